/* Base counters' title indices (issue 29 item 6), read as Windows consumers
 * read them: RegQueryValueEx(HKEY_PERFORMANCE_DATA, "Global") over the
 * built-in providers, and a walk over the raw structures.
 *
 * Windows' own providers give a base definition the CounterNameTitleIndex
 * and CounterHelpTitleIndex of the counter it follows (perfdisk's
 * "% Free Space" 408 and its PERF_RAW_BASE, "% Disk Time" 200 and its
 * PERF_PRECISION_TIMESTAMP, "Avg. Disk sec/Transfer" 206 and its
 * PERF_AVERAGE_BASE). Consumers that file definitions by title index
 * expect exactly that: .NET's CategorySample files only the non-base
 * definitions by index and hooks each base to the definition before it,
 * and its CategoryEntry drops a definition whose index repeats the one
 * before, so the base never takes the counter's place and never shows as a
 * counter of its own. perflib's built-in objects follow that rule; this
 * test checks every base of every object, and runs both .NET filings. */
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perflib/block.h"
#include "perflib/pdh.h"
#include "pl_test.h"

static char g_dir[] = "/tmp/pl_w32_bases_XXXXXX";

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(g_dir)) return -1;
    char store[600];
    snprintf(store, sizeof store, "%s/live.db", g_dir);
    setenv("PERFLIB_REGISTRY", store, 1);
    setenv("PERFLIB_PROVIDER_DIR", W32_PROVIDER_DIR, 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int is_base(DWORD type)
{
    return type == PERF_AVERAGE_BASE || type == PERF_COUNTER_MULTI_BASE || type == PERF_RAW_BASE ||
           type == PERF_LARGE_RAW_BASE || type == PERF_SAMPLE_BASE;
}

/* The types whose formula reads the next definition as its base. */
static int needs_base(DWORD type)
{
    return type == PERF_AVERAGE_TIMER || type == PERF_AVERAGE_BULK || type == PERF_RAW_FRACTION ||
           type == PERF_LARGE_RAW_FRACTION || type == PERF_SAMPLE_FRACTION || type == PERF_PRECISION_SYSTEM_TIMER ||
           type == PERF_PRECISION_100NS_TIMER || type == PERF_PRECISION_OBJECT_TIMER ||
           type == PERF_COUNTER_MULTI_TIMER || type == PERF_COUNTER_MULTI_TIMER_INV ||
           type == PERF_100NSEC_MULTI_TIMER || type == PERF_100NSEC_MULTI_TIMER_INV;
}

static BYTE *global_block(DWORD *size)
{
    DWORD cap = 1 << 20;
    BYTE *buf = NULL;
    for (int tries = 0; tries < 12; tries++, cap *= 2) {
        buf = realloc(buf, cap);
        assert_non_null(buf);
        *size = cap;
        LONG rc = RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Global", NULL, NULL, buf, size);
        if (rc == ERROR_SUCCESS) return buf;
        assert_int_equal(rc, ERROR_MORE_DATA);
    }
    fail_msg("Global did not fit in %u bytes", cap);
    return NULL;
}

static void builtin_bases_carry_the_counter_index(void **state)
{
    (void)state;
    DWORD size = 0;
    BYTE *buf = global_block(&size);
    PERF_DATA_BLOCK *pdb = (PERF_DATA_BLOCK *)buf;
    PERF_OBJECT_TYPE *obj = (PERF_OBJECT_TYPE *)(buf + pdb->HeaderLength);
    unsigned bases = 0, precision = 0, objects_with_bases = 0;
    int processor_seen = 0;
    for (DWORD i = 0; i < pdb->NumObjectTypes; i++) {
        PERF_COUNTER_DEFINITION *defs[512];
        DWORD n = obj->NumCounters < 512 ? obj->NumCounters : 512;
        PERF_COUNTER_DEFINITION *d = (PERF_COUNTER_DEFINITION *)((BYTE *)obj + obj->HeaderLength);
        for (DWORD c = 0; c < n; c++) {
            defs[c] = d;
            d = (PERF_COUNTER_DEFINITION *)((BYTE *)d + d->ByteLength);
        }
        /* .NET's CategorySample: non-base definitions by index, bases hooked
         * to the definition before them */
        PERF_COUNTER_DEFINITION *table_def[512];
        DWORD table_idx[512], tn = 0;
        unsigned here = 0;
        for (DWORD c = 0; c < n; c++) {
            if (is_base(defs[c]->CounterType)) {
                here++;
                bases++;
                if (defs[c]->CounterType == PERF_PRECISION_TIMESTAMP) precision++;
                if (c == 0) fail_msg("object %u: a base is its first definition", obj->ObjectNameTitleIndex);
                if (!needs_base(defs[c - 1]->CounterType))
                    fail_msg("object %u: base %u follows type 0x%x", obj->ObjectNameTitleIndex, c,
                             defs[c - 1]->CounterType);
                /* Windows' rule: the counter's own name and help indices */
                if (defs[c]->CounterNameTitleIndex != defs[c - 1]->CounterNameTitleIndex ||
                    defs[c]->CounterHelpTitleIndex != defs[c - 1]->CounterHelpTitleIndex)
                    fail_msg("object %u: base of counter %u carries %u/%u", obj->ObjectNameTitleIndex,
                             defs[c - 1]->CounterNameTitleIndex, defs[c]->CounterNameTitleIndex,
                             defs[c]->CounterHelpTitleIndex);
                continue;
            }
            if (needs_base(defs[c]->CounterType) && (c + 1 >= n || !is_base(defs[c + 1]->CounterType)))
                fail_msg("object %u: counter %u has no base after it", obj->ObjectNameTitleIndex,
                         defs[c]->CounterNameTitleIndex);
            DWORD k = 0;
            while (k < tn && table_idx[k] != defs[c]->CounterNameTitleIndex) k++;
            table_idx[k] = defs[c]->CounterNameTitleIndex;
            table_def[k] = defs[c];
            if (k == tn) tn++;
        }
        if (here) objects_with_bases++;
        /* Filed by index, every counter that needs a base is itself there
         * (never its base), and the definition after it is its base. */
        for (DWORD k = 0; k < tn; k++) assert_false(is_base(table_def[k]->CounterType));
        /* .NET's CategoryEntry: adjacent repeated indices dropped, so no
         * index is listed twice and bases do not show as counters. */
        DWORD listed[512], ln = 0, prev = (DWORD)-1;
        for (DWORD c = 0; c < n; c++) {
            if (defs[c]->CounterNameTitleIndex != prev) listed[ln++] = defs[c]->CounterNameTitleIndex;
            prev = defs[c]->CounterNameTitleIndex;
        }
        for (DWORD a = 0; a < ln; a++)
            for (DWORD b = a + 1; b < ln; b++)
                if (listed[a] == listed[b]) fail_msg("object %u lists index %u twice", obj->ObjectNameTitleIndex, listed[a]);
        assert_int_equal(ln, tn);
        if (obj->ObjectNameTitleIndex == 238) { /* Processor: % Processor Time (6) is the counter */
            processor_seen = 1;
            DWORD k = 0;
            while (k < tn && table_idx[k] != 6) k++;
            assert_true(k < tn);
            assert_int_equal(table_def[k]->CounterType, PERF_PRECISION_100NS_TIMER);
        }
        obj = (PERF_OBJECT_TYPE *)((BYTE *)obj + obj->TotalByteLength);
    }
    assert_true(processor_seen);
    assert_true(bases >= 10);        /* Processor's timers, LogicalDisk, PhysicalDisk, ... */
    assert_true(precision >= 6);     /* PERF_PRECISION_TIMESTAMP, which .NET 2.0 did not treat as a base */
    assert_true(objects_with_bases >= 2);
    free(buf);
}

/* Issue 29 item 7, decided (docs/win32.md, "% Processor Time"): the
 * counter stays PERF_PRECISION_100NS_TIMER over the kernel's column sum.
 * What a consumer that reads the counter type computes (PDH; .NET's
 * CounterSampleCalculator hands the type, the value and the hooked base to
 * PDH's formula) is the honest busy percentage: busy and idle share one
 * base, their raw values add up to it, and the two percentages to 100. */
struct cpu_raw {
    uint64_t busy, busy_base, idle, idle_base;
    uint32_t busy_type;
};

static void total_raw(struct cpu_raw *r)
{
    DWORD size = 0;
    BYTE *buf = global_block(&size);
    pl_block blk;
    assert_int_equal(pl_block_open(&blk, buf, size, 0, 0, NULL), PL_OK);
    pl_object o;
    assert_int_equal(pl_block_find_object(&blk, 238, &o), PL_OK);
    pl_instance in;
    int found = 0;
    int rc = pl_object_instance(&o, 0, &in);
    for (; rc == PL_OK; rc = pl_instance_next(&in, &in)) {
        char name[32];
        if (pl_instance_name(&in, name, sizeof name) == PL_OK && strcmp(name, "_Total") == 0) {
            found = 1;
            break;
        }
    }
    assert_true(found);
    pl_counter c;
    assert_int_equal(pl_object_find_counter(&o, 6, &c), PL_OK); /* the first definition with index 6 */
    r->busy_type = c.def.CounterType;
    assert_int_equal(pl_counter_value(&c, &in, &r->busy), PL_OK);
    assert_int_equal(pl_counter_base(&c, &in, &r->busy_base), PL_OK);
    assert_int_equal(pl_object_find_counter(&o, 1746, &c), PL_OK); /* % Idle Time */
    assert_int_equal(pl_counter_value(&c, &in, &r->idle), PL_OK);
    assert_int_equal(pl_counter_base(&c, &in, &r->idle_base), PL_OK);
    free(buf);
}

static void processor_time_read_by_type(void **state)
{
    (void)state;
    struct cpu_raw a, b;
    total_raw(&a);
    usleep(300000);
    total_raw(&b);
    assert_int_equal(a.busy_type, PERF_PRECISION_100NS_TIMER);
    /* one base, and the raw values add up to it (each converted to 100 ns
     * on its own: within 1) */
    assert_int_equal(a.busy_base, a.idle_base);
    assert_true(a.busy + a.idle <= a.busy_base + 1 && a.busy + a.idle + 1 >= a.busy_base);
    assert_true(b.busy_base > a.busy_base);
    /* the formula of the type, as PDH and .NET apply it */
    pl_pdh_raw n1 = {0, 0, (int64_t)b.busy, (int64_t)b.busy_base, 0}, n0 = {0, 0, (int64_t)a.busy, (int64_t)a.busy_base, 0};
    pl_pdh_raw i1 = {0, 0, (int64_t)b.idle, (int64_t)b.idle_base, 0}, i0 = {0, 0, (int64_t)a.idle, (int64_t)a.idle_base, 0};
    pl_pdh_value busy, idle;
    assert_int_equal(pl_pdh_calc_type(PERF_PRECISION_100NS_TIMER, 0, 0, PL_PDH_FMT_DOUBLE | PL_PDH_FMT_NOCAP100, &n1, &n0, &busy),
                     PL_PDH_CSTATUS_VALID_DATA);
    assert_int_equal(pl_pdh_calc_type(PERF_PRECISION_100NS_TIMER, 0, 0, PL_PDH_FMT_DOUBLE | PL_PDH_FMT_NOCAP100, &i1, &i0, &idle),
                     PL_PDH_CSTATUS_VALID_DATA);
    double want = 100.0 * (double)(b.busy - a.busy) / (double)(b.busy_base - a.busy_base);
    assert_true(busy.v.double_value > want - 1e-9 && busy.v.double_value < want + 1e-9);
    double dsum = (double)(b.busy_base - a.busy_base);
    assert_true(busy.v.double_value + idle.v.double_value > 100.0 - 200.0 / dsum && busy.v.double_value + idle.v.double_value < 100.0 + 200.0 / dsum);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(builtin_bases_carry_the_counter_index, setup, teardown),
        cmocka_unit_test_setup_teardown(processor_time_read_by_type, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
