/* behemoth-client: shows the herd through PDH, as any monitoring program
 * would: it knows nothing of the service, only the counter paths
 * \Behemoth(*)\* and \Behemoths Summary\*.
 *
 *   behemoth-client [--store PATH] [--samples N] [--interval MS]
 * Prints one table per sample: each behemoth as "Mother/Child" (PDH's
 * parent/instance name) with its counters, then the summary. Exit status
 * 0, or 1 when the counters cannot be read (is the service running?). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perflib/pdh.h"
#include "perflib/query.h"

static void print_array(pl_pdh_counter *c, const char *title)
{
    pl_pdh_value_item *items = NULL;
    size_t n = 0;
    if (pl_pdh_get_formatted_array(c, PL_PDH_FMT_LARGE, &items, &n) != PL_PDH_CSTATUS_VALID_DATA) {
        printf("%s: no data\n", title);
        return;
    }
    printf("%s\n", title);
    for (size_t i = 0; i < n; i++) {
        if (items[i].value.cstatus == PL_PDH_CSTATUS_VALID_DATA || items[i].value.cstatus == PL_PDH_CSTATUS_NEW_DATA)
            printf("  %-40s %lld\n", items[i].name, (long long)items[i].value.v.large_value);
        else
            printf("  %-40s (unavailable)\n", items[i].name);
    }
    pl_free(items);
}

int main(int argc, char **argv)
{
    pl_engine_config cfg = {0};
    int samples = 1, interval = 1000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--store") && i + 1 < argc) cfg.store_path = argv[++i];
        else if (!strcmp(argv[i], "--samples") && i + 1 < argc) samples = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--interval") && i + 1 < argc) interval = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: behemoth-client [--store PATH] [--samples N] [--interval MS]\n");
            return 2;
        }
    }
    pl_error e;
    pl_engine *eng;
    if (pl_engine_open(&cfg, &eng, &e) != PL_OK) {
        fprintf(stderr, "behemoth-client: %s\n", e.msg);
        return 1;
    }
    pl_pdh_source src;
    pl_pdh_query *q = NULL;
    pl_pdh_counter *herd = NULL, *sum = NULL;
    int rc = 1;
    if (pl_pdh_engine_source(eng, &src, &e) != PL_PDH_CSTATUS_VALID_DATA) goto out_engine;
    if (pl_pdh_open_query(&src, &q, &e) != PL_PDH_CSTATUS_VALID_DATA ||
        pl_pdh_add_counter(q, "\\Behemoth(*)\\*", &herd, &e) != PL_PDH_CSTATUS_VALID_DATA ||
        pl_pdh_add_counter(q, "\\Behemoths Summary\\*", &sum, &e) != PL_PDH_CSTATUS_VALID_DATA) {
        fprintf(stderr, "behemoth-client: %s (is the behemoth service running?)\n", e.msg);
        goto out;
    }
    for (int s = 0; s < samples; s++) {
        if (s) {
            struct timespec ts = {interval / 1000, (long)(interval % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
        if (pl_pdh_collect(q, &e) != PL_PDH_CSTATUS_VALID_DATA) {
            fprintf(stderr, "behemoth-client: %s\n", e.msg);
            goto out;
        }
        print_array(herd, "Behemoth (mother/child\\counter)");
        print_array(sum, "Behemoths Summary");
        fflush(stdout);
    }
    rc = 0;
out:
    pl_pdh_close_query(q);
    pl_pdh_source_close(&src);
out_engine:
    pl_engine_close(eng);
    return rc;
}
