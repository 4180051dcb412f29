/* perfd's /metrics exposition (tools/perfd/metrics_text.c) on canned blocks:
 *   - golden files for an object with a counter of every type of winperf.h
 *     (both formats), checked by `promtool check metrics` too;
 *   - 32-bit counters extended across wraps, the same snapshot twice not
 *     extended twice;
 *   - labels: Process duplicates told apart by pid, other duplicates by
 *     index, parents, _Total left out unless asked, no duplicate series with
 *     1,000 processes of one name;
 *   - which objects are exported.
 * Regenerate the golden files with PL_UPDATE_GOLDEN=1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics_text.h"
#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/provider.h"
#include "perflib/winperf.h"
#include "pl_test.h"
#include "pq_run.h"

#define GOLDEN PL_SOURCE_DIR "/tests/perfd_metrics/golden/"
#define OBJ_TYPES 9000u
#define OBJ_WIDGET 9002u
#define FT_2026 134000000000000000LL /* a FILETIME in 2025 */

/* Every counter type, with its base where it needs one. */
static const struct { uint32_t type, base; } all_types[] = {
    {PERF_COUNTER_COUNTER, 0},          {PERF_COUNTER_TIMER, 0},
    {PERF_COUNTER_QUEUELEN_TYPE, 0},    {PERF_COUNTER_LARGE_QUEUELEN_TYPE, 0},
    {PERF_COUNTER_100NS_QUEUELEN_TYPE, 0}, {PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, 0},
    {PERF_COUNTER_BULK_COUNT, 0},       {PERF_COUNTER_TEXT, 0},
    {PERF_COUNTER_RAWCOUNT, 0},         {PERF_COUNTER_LARGE_RAWCOUNT, 0},
    {PERF_COUNTER_RAWCOUNT_HEX, 0},     {PERF_COUNTER_LARGE_RAWCOUNT_HEX, 0},
    {PERF_SAMPLE_FRACTION, PERF_SAMPLE_BASE}, {PERF_SAMPLE_COUNTER, 0},
    {PERF_COUNTER_NODATA, 0},           {PERF_COUNTER_TIMER_INV, 0},
    {PERF_AVERAGE_TIMER, PERF_AVERAGE_BASE}, {PERF_AVERAGE_BULK, PERF_AVERAGE_BASE},
    {PERF_OBJ_TIME_TIMER, 0},           {PERF_100NSEC_TIMER, 0},
    {PERF_100NSEC_TIMER_INV, 0},        {PERF_COUNTER_MULTI_TIMER, PERF_COUNTER_MULTI_BASE},
    {PERF_COUNTER_MULTI_TIMER_INV, PERF_COUNTER_MULTI_BASE}, {PERF_100NSEC_MULTI_TIMER, PERF_COUNTER_MULTI_BASE},
    {PERF_100NSEC_MULTI_TIMER_INV, PERF_COUNTER_MULTI_BASE}, {PERF_RAW_FRACTION, PERF_RAW_BASE},
    {PERF_LARGE_RAW_FRACTION, PERF_LARGE_RAW_BASE}, {PERF_ELAPSED_TIME, 0},
    {PERF_COUNTER_HISTOGRAM_TYPE, 0},   {PERF_COUNTER_DELTA, 0},
    {PERF_COUNTER_LARGE_DELTA, 0},      {PERF_PRECISION_SYSTEM_TIMER, PERF_LARGE_RAW_BASE},
    {PERF_PRECISION_100NS_TIMER, PERF_LARGE_RAW_BASE}, {PERF_PRECISION_OBJECT_TIMER, PERF_LARGE_RAW_BASE},
    {PERF_COUNTER_TEXT | PERF_TEXT_ASCII, 0},
};
#define NTYPES (sizeof all_types / sizeof all_types[0])

/* names: the types' counters are 10000 + 2i; help 10001 + 2i */
static const char *t_name(void *ctx, uint32_t i)
{
    (void)ctx;
    static char buf[8][160];
    static int k;
    if (i == OBJ_TYPES) return "Every Type";
    if (i == OBJ_WIDGET) return "Widget";
    if (i == PL_OBJ_PROCESS) return "Process";
    if (i == PL_CTR_ID_PROCESS) return "ID Process";
    if (i == 6) return "% Processor Time";
    if (i == 10) return "Free Megabytes";
    if (i >= 10000 && i < 10000 + 2 * NTYPES && i % 2 == 0) {
        const char *tn = pl_type_name(all_types[(i - 10000) / 2].type);
        k = (k + 1) % 8;
        snprintf(buf[k], sizeof buf[k], "%s/sec", tn ? tn + 5 : "unknown");
        for (char *p = buf[k]; *p; p++)
            if (*p == '_' || *p == '|') *p = ' ';
        return buf[k];
    }
    return NULL;
}

static const char *t_help(void *ctx, uint32_t i)
{
    (void)ctx;
    if (i == 11) return "Help with a \\ backslash,\na newline and \"quotes\".";
    if (i >= 10001 && i < 10001 + 2 * NTYPES) return "What this type of counter counts.";
    return NULL;
}

static const pm_names names = {t_name, t_help, NULL};

/* The object with one counter of every type, instances "a" and "_Total". */
static void add_types_object(pl_builder *b, uint64_t c32)
{
    pl_object_desc od = {.name_index = OBJ_TYPES, .help_index = OBJ_TYPES + 1, .has_instances = 1,
                         .perf_time = FT_2026, .perf_freq = 10000000};
    int obj;
    assert_int_equal(pl_builder_add_object(b, &od, &obj), PL_OK);
    int ctr[NTYPES];
    for (size_t i = 0; i < NTYPES; i++) {
        pl_counter_desc cd = {.name_index = 10000 + 2 * (uint32_t)i, .help_index = 10001 + 2 * (uint32_t)i,
                              .type = all_types[i].type, .base_type = all_types[i].base};
        if ((all_types[i].type & PERF_SIZE_MASK) == PERF_SIZE_VARIABLE_LEN) cd.size = 64;
        assert_int_equal(pl_builder_add_counter(b, obj, &cd, &ctr[i]), PL_OK);
    }
    static const char *const inst[] = {"a", "_Total"};
    for (int k = 0; k < 2; k++) {
        int in;
        assert_int_equal(pl_builder_add_instance(b, obj, inst[k], 0, 0, PERF_NO_UNIQUE_ID, &in), PL_OK);
        for (size_t i = 0; i < NTYPES; i++) {
            uint32_t t = all_types[i].type;
            if ((t & PERF_SIZE_MASK) == PERF_SIZE_VARIABLE_LEN) {
                assert_int_equal(pl_builder_set_text(b, obj, in, ctr[i], "text \"value\"\\"), PL_OK);
                continue;
            }
            if ((t & PERF_SIZE_MASK) == PERF_SIZE_ZERO) continue;
            uint64_t v = t == PERF_COUNTER_COUNTER ? c32 : t == PERF_ELAPSED_TIME ? (uint64_t)(FT_2026 - 36000000000LL)
                                                                                  : 20000000u * (uint64_t)(k + 1) + i;
            assert_int_equal(pl_builder_set_u64(b, obj, in, ctr[i], v), PL_OK);
            if (all_types[i].base) assert_int_equal(pl_builder_set_base(b, obj, in, ctr[i], 40000000u), PL_OK);
        }
    }
}

static uint8_t *finish(pl_builder *b, size_t *len)
{
    size_t olen = pl_builder_size(b);
    pl_block_header h = {.system_name = "GOLDEN", .default_object = 238, .perf_freq = 10000000,
                         .perf_time = 1000, .perf_time_100ns = FT_2026};
    size_t hlen = 0;
    pl_block_write_header(&h, pl_builder_num_objects(b), olen, NULL, 0, &hlen);
    uint8_t *buf = calloc(1, hlen + olen);
    assert_non_null(buf);
    size_t used;
    uint32_t n;
    assert_int_equal(pl_builder_emit(b, buf + hlen, olen, &used, &n), PL_OK);
    assert_int_equal(pl_block_write_header(&h, n, olen, buf, hlen, &used), PL_OK);
    *len = hlen + olen;
    pl_builder_free(b);
    return buf;
}

static char *render(const uint8_t *buf, size_t len, uint64_t seq, const pm_options *opt, pm_state *st)
{
    pl_block blk;
    pl_error err;
    assert_int_equal(pl_block_open(&blk, buf, len, 0, 0, &err), PL_OK);
    char *out = NULL;
    size_t n = 0;
    assert_int_equal(pm_render(&blk, seq, &names, opt, st, &out, &n), 0);
    assert_int_equal(strlen(out), n);
    return out;
}

/* promtool check metrics on a text: exit 0 and nothing said. */
static void promtool_clean(const char *text)
{
    char *dir = pq_mkdtemp();
    char path[600], cmd[1400];
    snprintf(path, sizeof path, "%s/m.prom", dir);
    assert_int_equal(pq_write_file(path, text, strlen(text)), 0);
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

static void golden_every_type(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    add_types_object(b, 7);
    size_t len;
    uint8_t *buf = finish(b, &len);
    pm_options opt = {.all = 1};
    char *text = render(buf, len, 1, &opt, NULL);
    assert_int_equal(pq_golden(GOLDEN "every_type.prom", text), 0);
    promtool_clean(text);
    /* every type that has a number appears; the skipped ones do not */
    for (size_t i = 0; i < NTYPES; i++) {
        pm_kind k = pm_kind_of(all_types[i].type);
        uint32_t t = all_types[i].type;
        int skip = t == PERF_COUNTER_NODATA || t == PERF_COUNTER_HISTOGRAM_TYPE;
        assert_int_equal(k == PM_SKIP, skip);
    }
    assert_null(strstr(text, "_Total")); /* left out by default */
    free(text);
    opt.openmetrics = 1;
    opt.include_total = 1;
    text = render(buf, len, 1, &opt, NULL);
    assert_int_equal(pq_golden(GOLDEN "every_type.om", text), 0);
    assert_non_null(strstr(text, "_Total"));
    size_t tl = strlen(text);
    assert_true(tl > 6 && strcmp(text + tl - 6, "# EOF\n") == 0);
    free(text);
    free(buf);
}

static void wrap_extended(void **state)
{
    (void)state;
    pm_state *st = pm_state_new();
    pm_options opt = {.all = 1};
    const char *fam = "perflib_every_type_events_events_total{every_type=\"a\"} ";
    uint64_t seq = 1;
    uint64_t vals[] = {4294967000u, 4294967295u, 5, 300, 4294967290u, 10};
    uint64_t want[] = {4294967000u, 4294967295u, 4294967301ull, 4294967596ull, 8589934586ull, 8589934602ull};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        pl_builder *b = pl_builder_new();
        add_types_object(b, vals[i]);
        size_t len;
        uint8_t *buf = finish(b, &len);
        for (int again = 0; again < 2; again++) { /* the same snapshot twice: extended once */
            char *text = render(buf, len, seq, &opt, st);
            const char *p = strstr(text, fam);
            if (!p) fail_msg("no %s in\n%s", fam, text);
            unsigned long long got = strtoull(p + strlen(fam), NULL, 10);
            if (got != want[i]) fail_msg("sample %zu: %llu, want %llu", i, got, (unsigned long long)want[i]);
            free(text);
        }
        seq++;
        free(buf);
    }
    pm_state_free(st);
}

/* 1,000 processes named alike: one series each (pid); a Widget object with
 * duplicate names and a parent: index; nothing duplicated ever. */
static void labels_unique(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    pl_object_desc pd = {.name_index = PL_OBJ_PROCESS, .help_index = PL_OBJ_PROCESS + 1, .has_instances = 1};
    int po, pc, pid;
    assert_int_equal(pl_builder_add_object(b, &pd, &po), PL_OK);
    pl_counter_desc cd = {.name_index = 6, .help_index = 7, .type = PERF_100NSEC_TIMER};
    assert_int_equal(pl_builder_add_counter(b, po, &cd, &pc), PL_OK);
    pl_counter_desc idd = {.name_index = PL_CTR_ID_PROCESS, .help_index = PL_CTR_ID_PROCESS + 1,
                           .type = PERF_COUNTER_LARGE_RAWCOUNT};
    assert_int_equal(pl_builder_add_counter(b, po, &idd, &pid), PL_OK);
    for (int i = 0; i < 1000; i++) {
        int in;
        assert_int_equal(pl_builder_add_instance(b, po, "worker", 0, 0, PERF_NO_UNIQUE_ID, &in), PL_OK);
        pl_builder_set_u64(b, po, in, pc, (uint64_t)i * 10000000u);
        pl_builder_set_u64(b, po, in, pid, 1000u + (uint64_t)i);
    }
    pl_object_desc wd = {.name_index = OBJ_WIDGET, .help_index = OBJ_WIDGET + 1, .has_instances = 1};
    int wo, wc;
    assert_int_equal(pl_builder_add_object(b, &wd, &wo), PL_OK);
    pl_counter_desc fm = {.name_index = 10, .help_index = 11, .type = PERF_COUNTER_RAWCOUNT};
    assert_int_equal(pl_builder_add_counter(b, wo, &fm, &wc), PL_OK);
    static const char *const wn[] = {"x", "x", "x", "y", "x"};
    for (int i = 0; i < 5; i++) {
        int in;
        /* the last x has a parent (process 0): its own series */
        assert_int_equal(pl_builder_add_instance(b, wo, wn[i], i == 4 ? PL_OBJ_PROCESS : 0, 0, PERF_NO_UNIQUE_ID, &in),
                         PL_OK);
        pl_builder_set_u32(b, wo, in, wc, 2);
    }
    size_t len;
    uint8_t *buf = finish(b, &len);
    pm_options opt = {.all = 1};
    char *text = render(buf, len, 1, &opt, NULL);
    promtool_clean(text);
    /* every sample line unique */
    size_t nlines = 0;
    char **lines = NULL;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (l[0] == '#') continue;
        lines = realloc(lines, (nlines + 1) * sizeof *lines);
        char *sp = strrchr(l, ' ');
        *sp = '\0';
        lines[nlines++] = l;
    }
    assert_int_equal(nlines, 2 * 1000 + 5); /* two Process counters, one Widget counter */
    for (size_t i = 0; i < nlines; i++)
        for (size_t j = i + 1; j < nlines; j++)
            if (strcmp(lines[i], lines[j]) == 0) fail_msg("duplicate series %s", lines[i]);
    int saw_pid = 0, saw_index2 = 0, saw_parent = 0, saw_bytes = 0;
    for (size_t i = 0; i < nlines; i++) {
        saw_pid += strstr(lines[i], "process=\"worker\",pid=\"1999\"") != NULL;
        saw_index2 += strstr(lines[i], "widget=\"x\",index=\"2\"") != NULL;
        saw_parent += strstr(lines[i], "widget=\"x\",parent=\"worker\"") != NULL;
        saw_bytes += strncmp(lines[i], "perflib_widget_free_bytes{", 26) == 0;
    }
    assert_int_equal(saw_pid, 2); /* in both Process counters */
    assert_int_equal(saw_index2, 1);
    assert_int_equal(saw_parent, 1);
    assert_int_equal(saw_bytes, 5); /* megabytes became bytes */
    free(lines);
    free(text);
    /* the default leaves Process out; a list picks objects */
    opt.all = 0;
    text = render(buf, len, 1, &opt, NULL);
    assert_null(strstr(text, "perflib_process_"));
    assert_non_null(strstr(text, "perflib_widget_free_bytes{"));
    assert_non_null(strstr(text, "perflib_widget_free_bytes{widget=\"y\"} 2097152\n"));
    free(text);
    uint32_t only[] = {PL_OBJ_PROCESS};
    opt.objects = only;
    opt.nobjects = 1;
    text = render(buf, len, 1, &opt, NULL);
    assert_non_null(strstr(text, "perflib_process_processor_time_seconds_total{process=\"worker\",pid=\"1000\"} 0\n"));
    assert_null(strstr(text, "perflib_widget"));
    free(text);
    free(buf);
}

/* A value its provider marked unavailable gives no sample, not a 0. */
static void unavailable_left_out(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    pl_object_desc wd = {.name_index = OBJ_WIDGET, .help_index = OBJ_WIDGET + 1, .has_instances = 1};
    int wo, wc, wm;
    assert_int_equal(pl_builder_add_object(b, &wd, &wo), PL_OK);
    pl_counter_desc fm = {.name_index = 10, .help_index = 11, .type = PERF_COUNTER_RAWCOUNT};
    assert_int_equal(pl_builder_add_counter(b, wo, &fm, &wc), PL_OK);
    pl_counter_desc mk = {.name_index = PL_CTR_UNAVAILABLE_COUNTERS, .help_index = PL_CTR_UNAVAILABLE_COUNTERS + 1,
                          .type = PERF_COUNTER_LARGE_RAWCOUNT_HEX};
    assert_int_equal(pl_builder_add_counter(b, wo, &mk, &wm), PL_OK);
    int i1, i2;
    assert_int_equal(pl_builder_add_instance(b, wo, "readable", 0, 0, PERF_NO_UNIQUE_ID, &i1), PL_OK);
    assert_int_equal(pl_builder_add_instance(b, wo, "unreadable", 0, 0, PERF_NO_UNIQUE_ID, &i2), PL_OK);
    pl_builder_set_u32(b, wo, i1, wc, 3);
    pl_builder_set_u64(b, wo, i2, wm, PL_UNAVAILABLE_BIT(0));
    size_t len;
    uint8_t *buf = finish(b, &len);
    pm_options opt = {.all = 1};
    char *text = render(buf, len, 1, &opt, NULL);
    assert_non_null(strstr(text, "perflib_widget_free_bytes{widget=\"readable\"} 3145728\n"));
    assert_null(strstr(text, "unreadable"));
    assert_null(strstr(text, "unavailable")); /* the marker is not a metric */
    free(text);
    free(buf);
}

/* Per-group totals such as Processor Information's "0,_Total" (node 0's
 * sum) are totals too: left out by default with "_Total", or a sum() in
 * PromQL would count every CPU twice. */
static void group_totals_left_out(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    pl_object_desc wd = {.name_index = OBJ_WIDGET, .help_index = OBJ_WIDGET + 1, .has_instances = 1};
    int wo, wc;
    assert_int_equal(pl_builder_add_object(b, &wd, &wo), PL_OK);
    pl_counter_desc fm = {.name_index = 10, .help_index = 11, .type = PERF_COUNTER_RAWCOUNT};
    assert_int_equal(pl_builder_add_counter(b, wo, &fm, &wc), PL_OK);
    static const char *const inst[] = {"0,0", "0,1", "0,_Total", "_Total", "x_Total"};
    for (int k = 0; k < 5; k++) {
        int in;
        assert_int_equal(pl_builder_add_instance(b, wo, inst[k], 0, 0, PERF_NO_UNIQUE_ID, &in), PL_OK);
        pl_builder_set_u32(b, wo, in, wc, (uint32_t)k + 1);
    }
    size_t len;
    uint8_t *buf = finish(b, &len);
    pm_options opt = {.all = 1};
    char *text = render(buf, len, 1, &opt, NULL);
    assert_non_null(strstr(text, "{widget=\"0,0\"} 1048576\n"));
    assert_non_null(strstr(text, "{widget=\"0,1\"} 2097152\n"));
    assert_non_null(strstr(text, "{widget=\"x_Total\"} 5242880\n")); /* a name that merely ends so */
    assert_null(strstr(text, "0,_Total"));
    assert_null(strstr(text, "\"_Total\""));
    free(text);
    opt.include_total = 1;
    text = render(buf, len, 1, &opt, NULL);
    assert_non_null(strstr(text, "{widget=\"0,_Total\"} 3145728\n"));
    assert_non_null(strstr(text, "{widget=\"_Total\"} 4194304\n"));
    free(text);
    free(buf);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden_every_type),
        cmocka_unit_test(wrap_extended),
        cmocka_unit_test(labels_unique),
        cmocka_unit_test(unavailable_left_out),
        cmocka_unit_test(group_totals_left_out),
    };
    return pl_test_run(tests, argc, argv);
}
