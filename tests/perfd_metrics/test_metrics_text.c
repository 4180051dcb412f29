/* perfd's /metrics exposition (tools/perfd/metrics_text.c) and the table of
 * names (metrics_table.c) on canned blocks:
 *   - golden files for an object with a counter of every type of winperf.h
 *     (both formats), checked by `promtool check metrics` too; the block's
 *     clock (PerfFreq 3 MHz) differs from the 100 ns one, so each timer's
 *     time base (PDH's, pl_pdh_get_time_base) shows in the values;
 *   - the built-in counters the table knows: units written once and values
 *     converted (Available KBytes/MBytes, Working Set, bandwidth, frequency),
 *     scaled raw values (load averages, pressure), running totals kept as
 *     raw counts exported as counters, Thread series keyed by tid, the
 *     _Total of processes and threads never a counter, HELP in the metric's
 *     own terms;
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
#include "pm_test.h"
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
    {PERF_COUNTER_TEXT | PERF_TEXT_ASCII, 0}, {PERF_DOUBLE_RAW, 0},
};
#define NTYPES (sizeof all_types / sizeof all_types[0])

/* The English names of the built-in objects and counters the cases use. */
static const struct { uint32_t index; const char *name; } builtin_names[] = {
    {PL_OBJ_SYSTEM, "System"}, {PL_OBJ_MEMORY, "Memory"}, {PL_OBJ_THREAD, "Thread"},
    {PL_OBJ_NETWORK_INTERFACE, "Network Interface"}, {PL_OBJ_TCPV4, "TCPv4"},
    {PL_OBJ_PROCESSOR_INFORMATION, "Processor Information"},
    {PL_CTR_AVAILABLE_BYTES, "Available Bytes"}, {PL_CTR_AVAILABLE_KBYTES, "Available KBytes"},
    {PL_CTR_AVAILABLE_MBYTES, "Available MBytes"}, {PL_CTR_COMMIT_LIMIT, "Commit Limit"},
    {PL_CTR_ID_THREAD, "ID Thread"}, {PL_CTR_LOAD_AVERAGE_1MIN, "Load Average 1 Minute"},
    {PL_CTR_LOAD_AVERAGE_15MIN, "Load Average 15 Minutes"}, {PL_CTR_CPU_PRESSURE_SOME_AVG10, "CPU Pressure Some Avg10"},
    {PL_CTR_PACKETS_RECEIVED_ERRORS, "Packets Received Errors"}, {PL_CTR_OUTPUT_QUEUE_LENGTH, "Output Queue Length"},
    {PL_CTR_CURRENT_BANDWIDTH, "Current Bandwidth"}, {PL_CTR_CONNECTIONS_ACTIVE, "Connections Active"},
    {PL_CTR_CONNECTIONS_ESTABLISHED, "Connections Established"}, {PL_CTR_WORKING_SET, "Working Set"},
    {PL_CTR_WORKING_SET_PEAK, "Working Set Peak"}, {PL_CTR_WORKING_SET_PRIVATE, "Working Set - Private"},
    {PL_CTR_VIRTUAL_BYTES_PEAK, "Virtual Bytes Peak"}, {PL_CTR_PAGE_FILE_BYTES_PEAK, "Page File Bytes Peak"},
    {PL_CTR_THREAD_COUNT, "Thread Count"}, {PL_CTR_PROCESSOR_FREQUENCY, "Processor Frequency"},
    {PL_CTR_PCT_OF_MAXIMUM_FREQUENCY, "% of Maximum Frequency"}, {PL_CTR_NICE_VALUE, "Nice Value"},
    {PL_CTR_PAGE_FAULTS_PER_SEC, "Page Faults/sec"},
};

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
    if (i == 9010) return "Free Megabytes";
    if (i == 9020) return "% Busy Time";
    if (i == 9022) return "Requests/sec";
    if (i == 9024) return "Queued Items";
    for (size_t k2 = 0; k2 < sizeof builtin_names / sizeof builtin_names[0]; k2++)
        if (builtin_names[k2].index == i) return builtin_names[k2].name;
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
    if (i == 9021) return "The percent of time the widget was busy.";
    if (i == 9023) return "The rate of requests per second.";
    if (i == 9025) return "Items waiting in the widget's queue.";
    if (i == 9011) return "Help with a \\ backslash,\na newline and \"quotes\".";
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
            if (t == PERF_DOUBLE_RAW) { /* a double's bits: 2.75, 5.5 */
                double d = 2.75 * (k + 1);
                memcpy(&v, &d, sizeof v);
            }
            assert_int_equal(pl_builder_set_u64(b, obj, in, ctr[i], v), PL_OK);
            if (all_types[i].base) assert_int_equal(pl_builder_set_base(b, obj, in, ctr[i], 40000000u), PL_OK);
        }
    }
}

static uint8_t *finish(pl_builder *b, size_t *len)
{
    size_t olen = pl_builder_size(b);
    pl_block_header h = {.system_name = "GOLDEN", .default_object = 238, .perf_freq = 3000000,
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

static void promtool_clean(const char *text) { pmt_promtool_clean(text, strlen(text)); }

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

/* An older snapshot rendered after a newer one (a remote_write render and a
 * scrape's, queued on the worker in the other order): its value is the one
 * it had, neither a wrap nor a change of the state. */
static uint64_t events_at(pm_state *st, uint64_t seq, uint64_t raw)
{
    pm_options opt = {.all = 1};
    const char *fam = "perflib_every_type_events_events_total{every_type=\"a\"} ";
    pl_builder *b = pl_builder_new();
    add_types_object(b, raw);
    size_t len;
    uint8_t *buf = finish(b, &len);
    char *text = render(buf, len, seq, &opt, st);
    const char *p = strstr(text, fam);
    if (!p) fail_msg("no %s in\n%s", fam, text);
    uint64_t got = strtoull(p + strlen(fam), NULL, 10);
    free(text);
    free(buf);
    return got;
}

static void wrap_older_snapshot_late(void **state)
{
    (void)state;
    pm_state *st = pm_state_new();
    assert_true(events_at(st, 10, 4294967000u) == 4294967000u);
    assert_true(events_at(st, 12, 5) == 4294967301ull);          /* wrapped */
    assert_true(events_at(st, 11, 4294967100u) == 4294967100u);  /* older: before the wrap */
    assert_true(events_at(st, 13, 10) == 4294967306ull);         /* no false wrap after it */
    assert_true(events_at(st, 12, 5) == 4294967301ull);
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
    pl_counter_desc fm = {.name_index = 9010, .help_index = 9011, .type = PERF_COUNTER_RAWCOUNT};
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
    assert_int_equal(nlines, 1000 + 5); /* % Processor Time (ID Process is the pid label), one Widget counter */
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
    assert_int_equal(saw_pid, 1);
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
    pl_counter_desc fm = {.name_index = 9010, .help_index = 9011, .type = PERF_COUNTER_RAWCOUNT};
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
    pl_counter_desc fm = {.name_index = 9010, .help_index = 9011, .type = PERF_COUNTER_RAWCOUNT};
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

/* ------------------------------------------------- the built-in counters */

static void has_line(const char *text, const char *line)
{
    char want[600];
    snprintf(want, sizeof want, "%s\n", line);
    if (!strstr(text, want) || (strstr(text, want) != text && strstr(text, want)[-1] != '\n'))
        fail_msg("no line \"%s\" in\n%s", line, text);
}

static int add_counter(pl_builder *b, int obj, uint32_t index, uint32_t type)
{
    pl_counter_desc cd = {.name_index = index, .help_index = index + 1, .type = type};
    int c;
    assert_int_equal(pl_builder_add_counter(b, obj, &cd, &c), PL_OK);
    return c;
}

static int add_object(pl_builder *b, uint32_t index, int instances)
{
    pl_object_desc od = {.name_index = index, .help_index = index + 1, .has_instances = instances,
                         .perf_time = FT_2026, .perf_freq = 10000000};
    int o;
    assert_int_equal(pl_builder_add_object(b, &od, &o), PL_OK);
    return o;
}

static int add_inst(pl_builder *b, int obj, const char *name, uint32_t parent, uint32_t ppos)
{
    int in;
    assert_int_equal(pl_builder_add_instance(b, obj, name, parent, ppos, PERF_NO_UNIQUE_ID, &in), PL_OK);
    return in;
}

/* Every HELP line in the metric's own terms: no percent, no rate per
 * second of a counter, no scale left to the reader. */
static void help_lines_clean(const char *text)
{
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, "# HELP ", 7) != 0) continue;
        const char *e = strchr(l, '\n');
        int n = e ? (int)(e - l) : (int)strlen(l);
        char line[2000];
        snprintf(line, sizeof line, "%.*s", n, l);
        if (strstr(line, "percent") || strstr(line, "%") || strstr(line, "scaled by") || strstr(line, "The rate "))
            fail_msg("HELP not in the metric's terms: %s", line);
    }
}

/* Finding 1: Available KBytes and MBytes are bytes, converted, with a name
 * that says the unit once; Commit Limit has its unit. */
static void memory_units(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int o = add_object(b, PL_OBJ_MEMORY, 0);
    int ab = add_counter(b, o, PL_CTR_AVAILABLE_BYTES, PERF_COUNTER_LARGE_RAWCOUNT);
    int akb = add_counter(b, o, PL_CTR_AVAILABLE_KBYTES, PERF_COUNTER_LARGE_RAWCOUNT);
    int amb = add_counter(b, o, PL_CTR_AVAILABLE_MBYTES, PERF_COUNTER_LARGE_RAWCOUNT);
    int cl = add_counter(b, o, PL_CTR_COMMIT_LIMIT, PERF_COUNTER_LARGE_RAWCOUNT);
    const uint64_t a = 24837996544ull; /* MemAvailable of 24.8 GB */
    pl_builder_set_u64(b, o, -1, ab, a);
    pl_builder_set_u64(b, o, -1, akb, a / 1024);
    pl_builder_set_u64(b, o, -1, amb, a >> 20);
    pl_builder_set_u64(b, o, -1, cl, 40000000000ull);
    size_t len;
    uint8_t *buf = finish(b, &len);
    pm_options opt = {.all = 1};
    char *text = render(buf, len, 1, &opt, NULL);
    char want[200];
    has_line(text, "perflib_memory_available_bytes 24837996544");
    snprintf(want, sizeof want, "perflib_memory_available_kib_rounded_bytes %llu", (unsigned long long)(a / 1024 * 1024));
    has_line(text, want);
    snprintf(want, sizeof want, "perflib_memory_available_mib_rounded_bytes %llu", (unsigned long long)((a >> 20) << 20));
    has_line(text, want);
    has_line(text, "# TYPE perflib_memory_available_mib_rounded_bytes gauge");
    has_line(text, "perflib_memory_commit_limit_bytes 40000000000");
    /* the same memory, whatever the counter's own unit */
    double mb = pmt_must(text, "perflib_memory_available_mib_rounded_bytes");
    assert_true(mb <= (double)a && (double)a - mb < 1048576.0);
    assert_null(strstr(text, "_kbytes"));
    assert_null(strstr(text, "_mbytes"));
    help_lines_clean(text);
    promtool_clean(text);
    free(text);
    free(buf);
}

/* One scrape of a process "app" (pid 100) whose threads are (tid, CPU
 * seconds) pairs, in order: Thread's instance names are their positions. */
static uint8_t *threads_block(const uint32_t *tids, const double *cpu, int n, size_t *len)
{
    pl_builder *b = pl_builder_new();
    int po = add_object(b, PL_OBJ_PROCESS, 1);
    int pid = add_counter(b, po, PL_CTR_ID_PROCESS, PERF_COUNTER_RAWCOUNT);
    int pi = add_inst(b, po, "app", 0, 0);
    pl_builder_set_u32(b, po, pi, pid, 100);
    int to = add_object(b, PL_OBJ_THREAD, 1);
    int tcpu = add_counter(b, to, PL_CTR_PCT_PROCESSOR_TIME, PERF_100NSEC_TIMER);
    int tpid = add_counter(b, to, PL_CTR_ID_PROCESS, PERF_COUNTER_RAWCOUNT);
    int ttid = add_counter(b, to, PL_CTR_ID_THREAD, PERF_COUNTER_RAWCOUNT);
    for (int k = 0; k < n; k++) {
        char name[16];
        snprintf(name, sizeof name, "%d", k);
        int in = add_inst(b, to, name, PL_OBJ_PROCESS, 0);
        pl_builder_set_u64(b, to, in, tcpu, (uint64_t)(cpu[k] * 1e7));
        pl_builder_set_u32(b, to, in, tpid, 100);
        pl_builder_set_u32(b, to, in, ttid, tids[k]);
    }
    return finish(b, len);
}

/* Finding 2: Thread series are keyed by tid, not by position: when a
 * thread ends, the next one keeps its own series and no series jumps. */
static void threads_keyed_by_tid(void **state)
{
    (void)state;
    static const uint32_t tids1[] = {101, 102, 103}, tids2[] = {101, 103};
    static const double cpu1[] = {1, 2, 3}, cpu2[] = {1.5, 3.5};
    size_t l1, l2;
    uint8_t *b1 = threads_block(tids1, cpu1, 3, &l1), *b2 = threads_block(tids2, cpu2, 2, &l2);
    pm_options opt = {.all = 1};
    pm_state *st = pm_state_new();
    char *t1 = render(b1, l1, 1, &opt, st), *t2 = render(b2, l2, 2, &opt, st);
    const char *fam = "perflib_thread_processor_time_seconds_total";
    char s[200];
    snprintf(s, sizeof s, "%s{parent=\"app\",pid=\"100\",tid=\"103\"}", fam);
    assert_true(pmt_must(t1, s) == 3);
    assert_true(pmt_must(t2, s) == 3.5);
    assert_null(strstr(t2, "tid=\"102\""));
    assert_null(strstr(t1, "thread=\""));
    assert_null(strstr(t2, "thread=\""));
    /* no series of the first scrape is lower in the second */
    for (const char *l = t1; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, fam, strlen(fam)) != 0) continue;
        const char *sp = strchr(l, ' ');
        char series[300];
        snprintf(series, sizeof series, "%.*s", (int)(sp - l), l);
        char *hit = strstr(t2, series);
        if (hit && hit[strlen(series)] == ' ' && strtod(hit + strlen(series) + 1, NULL) < strtod(sp + 1, NULL))
            fail_msg("%s went down", series);
    }
    promtool_clean(t2);
    free(t1);
    free(t2);
    free(b1);
    free(b2);
    pm_state_free(st);
}

/* Finding 3: values the provider keeps scaled (load averages x 100,
 * pressure in hundredths of a percent) come out in their own unit. */
static void scaled_values(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int o = add_object(b, PL_OBJ_SYSTEM, 0);
    int l1 = add_counter(b, o, PL_CTR_LOAD_AVERAGE_1MIN, PERF_COUNTER_RAWCOUNT);
    int l15 = add_counter(b, o, PL_CTR_LOAD_AVERAGE_15MIN, PERF_COUNTER_RAWCOUNT);
    int psi = add_counter(b, o, PL_CTR_CPU_PRESSURE_SOME_AVG10, PERF_COUNTER_RAWCOUNT);
    pl_builder_set_u32(b, o, -1, l1, 273);
    pl_builder_set_u32(b, o, -1, l15, 5);
    pl_builder_set_u32(b, o, -1, psi, 1234);
    size_t len;
    uint8_t *buf = finish(b, &len);
    pm_options opt = {.all = 1};
    char *text = render(buf, len, 1, &opt, NULL);
    has_line(text, "perflib_system_load1 2.73");
    has_line(text, "perflib_system_load15 0.05");
    has_line(text, "perflib_system_cpu_pressure_some_avg10_ratio 0.1234");
    help_lines_clean(text);
    promtool_clean(text);
    free(text);
    free(buf);
}

/* Finding 4: running totals the provider publishes as raw counts
 * (interface errors, TCP opens) are counters; what is a level stays one. */
static void running_totals_are_counters(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int n = add_object(b, PL_OBJ_NETWORK_INTERFACE, 1);
    int err = add_counter(b, n, PL_CTR_PACKETS_RECEIVED_ERRORS, PERF_COUNTER_LARGE_RAWCOUNT);
    int q = add_counter(b, n, PL_CTR_OUTPUT_QUEUE_LENGTH, PERF_COUNTER_RAWCOUNT);
    int in = add_inst(b, n, "eth0", 0, 0);
    pl_builder_set_u64(b, n, in, err, 7);
    pl_builder_set_u32(b, n, in, q, 3);
    int t = add_object(b, PL_OBJ_TCPV4, 0);
    int act = add_counter(b, t, PL_CTR_CONNECTIONS_ACTIVE, PERF_COUNTER_LARGE_RAWCOUNT);
    int est = add_counter(b, t, PL_CTR_CONNECTIONS_ESTABLISHED, PERF_COUNTER_LARGE_RAWCOUNT);
    pl_builder_set_u64(b, t, -1, act, 12);
    pl_builder_set_u64(b, t, -1, est, 4);
    size_t len;
    uint8_t *buf = finish(b, &len);
    pm_options opt = {.all = 1};
    char *text = render(buf, len, 1, &opt, NULL);
    has_line(text, "# TYPE perflib_network_interface_packets_received_errors_total counter");
    has_line(text, "perflib_network_interface_packets_received_errors_total{network_interface=\"eth0\"} 7");
    has_line(text, "# TYPE perflib_network_interface_output_queue_length gauge");
    has_line(text, "# TYPE perflib_tcpv4_connections_active_total counter");
    has_line(text, "perflib_tcpv4_connections_active_total 12");
    has_line(text, "# TYPE perflib_tcpv4_connections_established gauge");
    has_line(text, "perflib_tcpv4_connections_established 4");
    promtool_clean(text);
    free(text);
    free(buf);
}

/* Finding 5: every unit in base units, written once, at the end. */
static void units_once(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int p = add_object(b, PL_OBJ_PROCESS, 1);
    static const uint32_t bytes[] = {PL_CTR_WORKING_SET, PL_CTR_WORKING_SET_PEAK, PL_CTR_WORKING_SET_PRIVATE,
                                     PL_CTR_VIRTUAL_BYTES_PEAK, PL_CTR_PAGE_FILE_BYTES_PEAK};
    int c[5];
    for (int k = 0; k < 5; k++) c[k] = add_counter(b, p, bytes[k], PERF_COUNTER_LARGE_RAWCOUNT);
    int tc = add_counter(b, p, PL_CTR_THREAD_COUNT, PERF_COUNTER_RAWCOUNT);
    int nice = add_counter(b, p, PL_CTR_NICE_VALUE, PERF_COUNTER_RAWCOUNT);
    int pid = add_counter(b, p, PL_CTR_ID_PROCESS, PERF_COUNTER_RAWCOUNT);
    int in = add_inst(b, p, "app", 0, 0);
    for (int k = 0; k < 5; k++) pl_builder_set_u64(b, p, in, c[k], 4096u * (k + 1));
    pl_builder_set_u32(b, p, in, tc, 9);
    pl_builder_set_u32(b, p, in, nice, (uint32_t)-5);
    pl_builder_set_u32(b, p, in, pid, 42);
    int n = add_object(b, PL_OBJ_NETWORK_INTERFACE, 1);
    int bw = add_counter(b, n, PL_CTR_CURRENT_BANDWIDTH, PERF_COUNTER_LARGE_RAWCOUNT);
    in = add_inst(b, n, "eth0", 0, 0);
    pl_builder_set_u64(b, n, in, bw, 1000000000u); /* 1 Gbit/s */
    int pi = add_object(b, PL_OBJ_PROCESSOR_INFORMATION, 1);
    int f = add_counter(b, pi, PL_CTR_PROCESSOR_FREQUENCY, PERF_COUNTER_RAWCOUNT);
    int fm = add_counter(b, pi, PL_CTR_PCT_OF_MAXIMUM_FREQUENCY, PERF_COUNTER_RAWCOUNT);
    in = add_inst(b, pi, "0,0", 0, 0);
    pl_builder_set_u32(b, pi, in, f, 2400);
    pl_builder_set_u32(b, pi, in, fm, 75);
    size_t len;
    uint8_t *buf = finish(b, &len);
    pm_options opt = {.all = 1};
    char *text = render(buf, len, 1, &opt, NULL);
    has_line(text, "perflib_process_working_set_bytes{process=\"app\",pid=\"42\"} 4096");
    has_line(text, "perflib_process_working_set_peak_bytes{process=\"app\",pid=\"42\"} 8192");
    has_line(text, "perflib_process_working_set_private_bytes{process=\"app\",pid=\"42\"} 12288");
    has_line(text, "perflib_process_virtual_peak_bytes{process=\"app\",pid=\"42\"} 16384");
    has_line(text, "perflib_process_page_file_peak_bytes{process=\"app\",pid=\"42\"} 20480");
    has_line(text, "perflib_process_threads{process=\"app\",pid=\"42\"} 9");
    has_line(text, "perflib_process_nice_value{process=\"app\",pid=\"42\"} -5");
    has_line(text, "perflib_network_interface_current_bandwidth_bytes_per_second{network_interface=\"eth0\"} 125000000");
    has_line(text, "perflib_processor_information_processor_frequency_hertz{processor_information=\"0,0\"} 2400000000");
    has_line(text, "perflib_processor_information_frequency_of_maximum_ratio{processor_information=\"0,0\"} 0.75");
    assert_null(strstr(text, "_bytes_bytes"));
    assert_null(strstr(text, "count_value"));
    assert_null(strstr(text, "thread_count"));
    assert_null(strstr(text, "perflib_process_id")); /* ID Process is the pid label */
    help_lines_clean(text);
    promtool_clean(text);
    free(text);
    free(buf);
}

/* Finding 6: the _Total of processes (or threads) falls when one ends:
 * never a counter, even with metrics_total on; a level's _Total stays. */
static void process_totals_never_counters(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int p = add_object(b, PL_OBJ_PROCESS, 1);
    int cpu = add_counter(b, p, PL_CTR_PCT_PROCESSOR_TIME, PERF_100NSEC_TIMER);
    int pf = add_counter(b, p, PL_CTR_PAGE_FAULTS_PER_SEC, PERF_COUNTER_BULK_COUNT);
    int ws = add_counter(b, p, PL_CTR_WORKING_SET, PERF_COUNTER_LARGE_RAWCOUNT);
    static const char *const inames[] = {"a", "b", "_Total"};
    for (int k = 0; k < 3; k++) {
        int in = add_inst(b, p, inames[k], 0, 0);
        pl_builder_set_u64(b, p, in, cpu, 10000000u * (k + 1));
        pl_builder_set_u64(b, p, in, pf, 10u * (k + 1));
        pl_builder_set_u64(b, p, in, ws, 4096u * (k + 1));
    }
    size_t len;
    uint8_t *buf = finish(b, &len);
    pm_options opt = {.all = 1, .include_total = 1};
    char *text = render(buf, len, 1, &opt, NULL);
    assert_null(strstr(text, "perflib_process_processor_time_seconds_total{process=\"_Total\"}"));
    assert_null(strstr(text, "perflib_process_page_faults_total{process=\"_Total\"}"));
    has_line(text, "perflib_process_working_set_bytes{process=\"_Total\"} 12288");
    has_line(text, "perflib_process_processor_time_seconds_total{process=\"b\"} 2");
    free(text);
    opt.include_total = 0;
    text = render(buf, len, 1, &opt, NULL);
    assert_null(strstr(text, "_Total"));
    free(text);
    free(buf);
}

/* Finding 7: HELP in the metric's terms for a counter the table does not
 * know either: an application's percent timer, rate and level. */
static void help_in_metric_terms(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int o = add_object(b, OBJ_WIDGET, 1);
    pl_counter_desc busy = {.name_index = 9020, .help_index = 9021, .type = PERF_100NSEC_TIMER};
    pl_counter_desc reqs = {.name_index = 9022, .help_index = 9023, .type = PERF_COUNTER_BULK_COUNT};
    pl_counter_desc queue = {.name_index = 9024, .help_index = 9025, .type = PERF_COUNTER_RAWCOUNT};
    int cb, cr, cq;
    assert_int_equal(pl_builder_add_counter(b, o, &busy, &cb), PL_OK);
    assert_int_equal(pl_builder_add_counter(b, o, &reqs, &cr), PL_OK);
    assert_int_equal(pl_builder_add_counter(b, o, &queue, &cq), PL_OK);
    int in = add_inst(b, o, "w", 0, 0);
    pl_builder_set_u64(b, o, in, cb, 5);
    size_t len;
    uint8_t *buf = finish(b, &len);
    pm_options opt = {.all = 1};
    char *text = render(buf, len, 1, &opt, NULL);
    has_line(text, "# HELP perflib_widget_busy_time_seconds_total The counter \"Busy Time\" of the Widget object. A "
                   "counter of seconds: rate() gives seconds per second, the fraction of time (above 1 when it adds up "
                   "over several processors).");
    has_line(text, "# HELP perflib_widget_requests_total The counter \"Requests\" of the Widget object. A counter since "
                   "the count started: rate() gives the number per second.");
    has_line(text, "# HELP perflib_widget_queued_items Items waiting in the widget's queue.");
    help_lines_clean(text);
    free(text);
    free(buf);
}

/* The table is sorted (it is searched by halves) and has one row per
 * counter. */
static void table_sorted(void **state)
{
    (void)state;
    assert_true(pm_table_rows() > 200);
    for (size_t i = 1; i < pm_table_rows(); i++)
        if (pm_table_counter(i - 1) >= pm_table_counter(i))
            fail_msg("table rows %zu and %zu: %u then %u", i - 1, i, pm_table_counter(i - 1), pm_table_counter(i));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden_every_type),
        cmocka_unit_test(wrap_extended),
        cmocka_unit_test(wrap_older_snapshot_late),
        cmocka_unit_test(labels_unique),
        cmocka_unit_test(unavailable_left_out),
        cmocka_unit_test(group_totals_left_out),
        cmocka_unit_test(memory_units),
        cmocka_unit_test(threads_keyed_by_tid),
        cmocka_unit_test(scaled_values),
        cmocka_unit_test(running_totals_are_counters),
        cmocka_unit_test(units_once),
        cmocka_unit_test(process_totals_never_counters),
        cmocka_unit_test(help_in_metric_terms),
        cmocka_unit_test(table_sorted),
    };
    return pl_test_run(tests, argc, argv);
}
