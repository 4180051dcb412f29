/* What the /metrics tests share: `promtool check metrics` on a text, and a
 * sample's value in one. */
#ifndef PM_TEST_H
#define PM_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_test.h"
#include "pq_run.h"

/* promtool check metrics (Debian prometheus) on len bytes of text: exit 0
 * and nothing said, else the test fails with its transcript. */
static inline void pmt_promtool_clean(const char *text, size_t len)
{
    char *dir = pq_mkdtemp();
    assert_non_null(dir);
    char path[600], cmd[1400];
    snprintf(path, sizeof path, "%s/m.prom", dir);
    assert_int_equal(pq_write_file(path, text, len), 0);
    snprintf(cmd, sizeof cmd, "promtool check metrics < '%s'", path);
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    pq_result r;
    assert_int_equal(pq_run(argv, NULL, &r), 0);
    if (r.exit_code != 0 || r.out_len || r.err_len)
        fail_msg("promtool check metrics (Debian prometheus): %s", pq_result_transcript(&r));
    pq_result_free(&r);
    pq_rmdir(dir);
    free(dir);
}

/* The value of the sample line `series value` in text; *found 0 (and 0)
 * when there is none. */
static inline double pmt_sample(const char *text, const char *series, int *found)
{
    size_t n = strlen(series);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, series, n) == 0 && l[n] == ' ') {
            if (found) *found = 1;
            return strtod(l + n + 1, NULL);
        }
    if (found) *found = 0;
    return 0;
}

/* The same, failing the test when there is none. */
static inline double pmt_must(const char *text, const char *series)
{
    int found;
    double v = pmt_sample(text, series, &found);
    if (!found) fail_msg("no sample %s in\n%.2000s", series, text);
    return v;
}

#endif
