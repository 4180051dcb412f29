/* bench_foreign: a Foreign query against the same query run locally.
 *
 *   bench_foreign TARGET K QUERY
 *
 * Runs QUERY K times on the local engine and K times as "Foreign TARGET
 * QUERY" (perfd there; start it with snapshot_max_age_ms=0 so that every
 * request is a fresh collection), alternating, one engine and one remote
 * client for the whole run (connections reused), and prints the median and
 * p99 of each in ms and their difference (issue 9 goal: Foreign <= local +
 * RTT + 2 ms at p99). Used by bench/run-metrics.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perflib/query.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: bench_foreign TARGET K QUERY\n");
        return 2;
    }
    int k = atoi(argv[2]);
    if (k < 1 || k > 100000) return 2;
    pl_engine *e;
    pl_error err;
    if (pl_engine_open(NULL, &e, &err) != PL_OK) {
        fprintf(stderr, "bench_foreign: %s\n", err.msg);
        return 1;
    }
    size_t fl = strlen(argv[1]) + strlen(argv[3]) + 16;
    char *fq = malloc(fl);
    snprintf(fq, fl, "Foreign %s %s", argv[1], argv[3]);
    double *loc = calloc((size_t)k, sizeof *loc), *rem = calloc((size_t)k, sizeof *rem);
    for (int i = -1; i < k; i++) { /* i = -1: warm-up of both */
        void *d = NULL;
        size_t len;
        uint32_t type;
        double t0 = now_ms();
        if (pl_engine_query_alloc(e, argv[3], &d, &len, &type, &err) != PL_OK) {
            fprintf(stderr, "bench_foreign: local: %s\n", err.msg);
            return 1;
        }
        double t1 = now_ms();
        pl_free(d);
        d = NULL;
        if (pl_engine_query_alloc(e, fq, &d, &len, &type, &err) != PL_OK) {
            fprintf(stderr, "bench_foreign: %s\n", err.msg);
            return 1;
        }
        double t2 = now_ms();
        pl_free(d);
        if (i >= 0) {
            loc[i] = t1 - t0;
            rem[i] = t2 - t1;
        }
    }
    qsort(loc, (size_t)k, sizeof *loc, cmp);
    qsort(rem, (size_t)k, sizeof *rem, cmp);
    int p99 = (int)((k * 99 + 99) / 100) - 1;
    printf("local median_ms=%.3f p99_ms=%.3f foreign median_ms=%.3f p99_ms=%.3f p99_diff_ms=%.3f k=%d\n",
           loc[k / 2], loc[p99], rem[k / 2], rem[p99], rem[p99] - loc[p99], k);
    free(loc);
    free(rem);
    free(fq);
    pl_engine_close(e);
    return 0;
}
