/* Every family of the built-in objects pinned: the real providers (PerfOS,
 * PerfProc, PerfDisk, PerfNet) on the canned /proc and /sys trees of their
 * own tests, merged into one root, through the real engine, rendered by
 * perfd's exposition with every object and _Total on.
 *   - golden/builtin.prom (text 0.0.4) and golden/builtin.om (OpenMetrics)
 *     hold every HELP, TYPE and UNIT line of the Global and Costly objects:
 *     a name, type, unit or HELP that changes shows in review;
 *   - every counter of those objects has a row in the table
 *     (metrics_table.c): a counter added to a provider without one fails;
 *   - promtool check metrics is clean on the whole exposition, and no HELP
 *     speaks of percent or leaves a scale to the reader;
 *   - no internal jargon in the titles and the examples' texts. 
 * Regenerate the golden files with PL_UPDATE_GOLDEN=1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics_text.h"
#include "perflib/block.h"
#include "perflib/query.h"
#include "perflib/registry.h"
#include "perflib/winperf.h"
#include "pl_test.h"
#include "pm_test.h"
#include "pq_run.h"

#define GOLDEN PL_SOURCE_DIR "/tests/perfd_metrics/golden/"

static char *dir;
static pl_engine *engine;

/* The four providers' canned trees in one root (the first tree's file
 * wins where two have one). */
static int setup(void **state)
{
    (void)state;
    dir = pq_mkdtemp();
    if (!dir) return -1;
    static const char *const trees[] = {"perfos/data/m2", "perfproc/data/basic", "perfdisk/data/m1", "perfnet/data/m1"};
    for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++) {
        char src[600];
        snprintf(src, sizeof src, "%s/tests/%s/.", PL_SOURCE_DIR, trees[i]);
        const char *argv[] = {"/bin/cp", "-rn", src, dir, NULL};
        pq_result r;
        if (pq_run(argv, NULL, &r) != 0 || r.exit_code != 0) {
            fprintf(stderr, "cp %s: %s\n", src, r.err ? r.err : "");
            return -1;
        }
        pq_result_free(&r);
    }
    char store[700];
    snprintf(store, sizeof store, "%s/perflib.db", dir);
    /* the trees are copied to dir itself: it is the root */
    setenv("PERFLIB_SYSROOT", dir, 1);
    unsetenv("PERFLIB_LANG");
    pl_engine_config cfg = {.store_path = store, .provider_dir = PROVIDER_DIR, .log_to_syslog = 0};
    pl_error err;
    if (pl_engine_open(&cfg, &engine, &err) != PL_OK) {
        fprintf(stderr, "engine: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    pl_engine_close(engine);
    const char *argv[] = {"/bin/rm", "-rf", dir, NULL};
    pq_result r;
    if (pq_run(argv, NULL, &r) == 0) pq_result_free(&r);
    free(dir);
    return 0;
}

static const char *t_name(void *ctx, uint32_t i) { return pl_titles_get(ctx, PL_TITLE_NAME, i); }
static const char *t_help(void *ctx, uint32_t i) { return pl_titles_get(ctx, PL_TITLE_HELP, i); }

static void *query(const char *q, pl_block *blk)
{
    void *data = NULL;
    size_t len = 0;
    uint32_t type = 0;
    pl_error err;
    int rc = pl_engine_query_alloc(engine, q, &data, &len, &type, &err);
    if (rc != PL_OK) fail_msg("%s: %s", q, err.msg);
    assert_int_equal(pl_block_open(blk, data, len, 0, 0, &err), PL_OK);
    return data;
}

/* The lines of text that start with "# " (HELP, TYPE, UNIT), appended. */
static void headers(const char *text, char **acc, size_t *n)
{
    for (const char *l = text; l && *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) + 1 : strlen(l);
        if (strncmp(l, "# HELP ", 7) == 0 || strncmp(l, "# TYPE ", 7) == 0 || strncmp(l, "# UNIT ", 7) == 0) {
            *acc = realloc(*acc, *n + len + 1);
            assert_non_null(*acc);
            memcpy(*acc + *n, l, len);
            *n += len;
            (*acc)[*n] = '\0';
        }
        l = e ? e + 1 : NULL;
    }
}

static void builtin_families_golden(void **state)
{
    (void)state;
    const pl_titles *t = pl_engine_titles(engine, NULL);
    assert_non_null(t);
    pm_names names = {t_name, t_help, (void *)t};
    static const char *const queries[] = {"Global", "Costly"};
    for (int om = 0; om < 2; om++) {
        char *acc = NULL;
        size_t n = 0;
        for (size_t q = 0; q < 2; q++) {
            pl_block blk;
            void *data = query(queries[q], &blk);
            pm_options opt = {.all = 1, .include_total = 1, .openmetrics = om};
            char *text = NULL;
            size_t len = 0;
            assert_int_equal(pm_render(&blk, 1, &names, &opt, NULL, &text, &len), 0);
            if (!om) pmt_promtool_clean(text, len);
            headers(text, &acc, &n);
            free(text);
            pl_free(data);
        }
        assert_non_null(acc);
        assert_int_equal(pq_golden(om ? GOLDEN "builtin.om" : GOLDEN "builtin.prom", acc), 0);
        for (const char *l = acc; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
            if (strncmp(l, "# HELP ", 7) != 0) continue;
            const char *e = strchr(l, '\n');
            int len = e ? (int)(e - l) : (int)strlen(l);
            char line[2000];
            snprintf(line, sizeof line, "%.*s", len, l);
            if (strstr(line, "percent") || strchr(line, '%') || strstr(line, "scaled by") || strstr(line, "The rate ") ||
                strstr(line, "no explain text"))
                fail_msg("HELP not in the metric's terms: %s", line);
        }
        free(acc);
    }
}

/* Every counter of the built-in objects has a row in the table. */
static void builtin_counters_in_table(void **state)
{
    (void)state;
    const pl_titles *t = pl_engine_titles(engine, NULL);
    static const char *const queries[] = {"Global", "Costly"};
    int missing = 0, seen = 0;
    for (size_t q = 0; q < 2; q++) {
        pl_block blk;
        void *data = query(queries[q], &blk);
        pl_object o;
        for (int rc = pl_block_object(&blk, 0, &o); rc == PL_OK; rc = pl_object_next(&o, &o)) {
            pl_counter c;
            for (int crc = pl_object_counter(&o, 0, &c); crc == PL_OK; crc = pl_counter_next(&c, &c)) {
                if (pl_type_is_base(c.def.CounterType)) continue;
                uint32_t ci = c.def.CounterNameTitleIndex, oi = o.hdr.ObjectNameTitleIndex;
                pm_metric m;
                pm_metric_of(oi, pl_titles_get(t, PL_TITLE_NAME, oi), ci, c.def.CounterType,
                             pl_titles_get(t, PL_TITLE_NAME, ci), pl_titles_get(t, PL_TITLE_HELP, ci + 1), &m);
                seen++;
                if (!m.from_table) {
                    print_error("\\%s\\%s (index %u) has no row in the table\n", pl_titles_get(t, PL_TITLE_NAME, oi),
                                pl_titles_get(t, PL_TITLE_NAME, ci), ci);
                    missing++;
                }
            }
        }
        pl_free(data);
    }
    assert_true(seen > 350);
    assert_int_equal(missing, 0);
}

/* No internal jargon where a user reads: the base titles' Explain texts
 * (the HELP of counters without a row, the web page, perfquery) and the
 * shipped examples' .ini texts. */
static int jargon(const char *s)
{
    static const char *const words[] = {"Seed 0", "hack", "issue ", "TODO", "FIXME", "pl__"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strstr(s, words[i])) return 1;
    return 0;
}

static void no_jargon_in_user_texts(void **state)
{
    (void)state;
    const pl_titles *t = pl_engine_titles(engine, NULL);
    for (int kind = PL_TITLE_NAME; kind <= PL_TITLE_HELP; kind++) {
        size_t n = pl_titles_count(t, kind);
        assert_true(n > 100);
        for (size_t i = 0; i < n; i++) {
            uint32_t idx;
            const char *text;
            assert_int_equal(pl_titles_entry(t, kind, i, &idx, &text), PL_OK);
            if (jargon(text)) fail_msg("title %u: %s", idx, text);
        }
    }
    const char *argv[] = {"/bin/sh", "-c", "cat " PL_SOURCE_DIR "/examples/*/*.ini", NULL};
    pq_result r;
    assert_int_equal(pq_run(argv, NULL, &r), 0);
    assert_int_equal(r.exit_code, 0);
    for (char *save = NULL, *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        if (strstr(l, "_HELP=") && jargon(l)) fail_msg("an example's text: %s", l);
    pq_result_free(&r);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(builtin_families_golden, setup, teardown),
        cmocka_unit_test_setup_teardown(builtin_counters_in_table, setup, teardown),
        cmocka_unit_test_setup_teardown(no_jargon_in_user_texts, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
