/* PerfOS, issue 11: the Processor C-state counters (% C1/C2/C3 Time,
 * C1/C2/C3 Transitions/sec from cpuidle). The mapping of Linux states onto
 * Windows' three levels on its own, then libperfos.so on the canned trees
 * (m2: two cpuidle drivers' naming; m4: no cpuidle), on hostile trees
 * (non-numbers, overflow, a FIFO), and on this machine. */
#include <errno.h>
#include <sched.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "linux/collect_sys.h"
#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/winperf.h"
#include "pl_test.h"
#include "perfos_test.h"
#include "platform.h"

static uint64_t T(uint64_t ticks) /* USER_HZ ticks to 100 ns */
{
    return ticks * (uint64_t)(10000000 / sysconf(_SC_CLK_TCK));
}

static const uint32_t c_time[3] = {PL_CTR_PCT_C1_TIME, PL_CTR_PCT_C2_TIME, PL_CTR_PCT_C3_TIME};
static const uint32_t c_trans[3] = {PL_CTR_C1_TRANSITIONS_PER_SEC, PL_CTR_C2_TRANSITIONS_PER_SEC,
                                    PL_CTR_C3_TRANSITIONS_PER_SEC};

/* ------------------------------------------------------------ mapping */

static void cstate_mapping(void **state)
{
    (void)state;
    assert_int_equal(pl__cstate_level_by_name("C1"), 1);
    assert_int_equal(pl__cstate_level_by_name("C1E"), 1);
    assert_int_equal(pl__cstate_level_by_name("C1_ACPI"), 1);
    assert_int_equal(pl__cstate_level_by_name("C2"), 2);
    assert_int_equal(pl__cstate_level_by_name("C3"), 3);
    assert_int_equal(pl__cstate_level_by_name("C6"), 3);
    assert_int_equal(pl__cstate_level_by_name("C10"), 3);
    assert_int_equal(pl__cstate_level_by_name("C99999999999999999999"), 3);
    assert_int_equal(pl__cstate_level_by_name("C0"), 0);
    assert_int_equal(pl__cstate_level_by_name("POLL"), 0);
    assert_int_equal(pl__cstate_level_by_name("C"), 0);
    assert_int_equal(pl__cstate_level_by_name("WFI"), 0);
    assert_int_equal(pl__cstate_level_by_name(""), 0);

    int lv[8];
    /* intel_idle: by the names */
    const char intel[][PL__CSTATE_NAME_MAX] = {"POLL", "C1", "C1E", "C6", "C8", "C10"};
    pl__cstate_map(intel, 6, lv);
    const int want_intel[] = {0, 1, 1, 3, 3, 3};
    assert_memory_equal(lv, want_intel, sizeof want_intel);
    /* acpi_idle */
    const char acpi[][PL__CSTATE_NAME_MAX] = {"POLL", "C1", "C2", "C3"};
    pl__cstate_map(acpi, 4, lv);
    const int want_acpi[] = {0, 1, 2, 3};
    assert_memory_equal(lv, want_acpi, sizeof want_acpi);
    /* haltpoll, ARM (psci): not all C-named, so by depth */
    const char arm[][PL__CSTATE_NAME_MAX] = {"WFI", "cpu-sleep", "cluster-sleep", "system-sleep"};
    pl__cstate_map(arm, 4, lv);
    const int want_arm[] = {1, 2, 3, 3};
    assert_memory_equal(lv, want_arm, sizeof want_arm);
    const char mixed[][PL__CSTATE_NAME_MAX] = {"POLL", "C1", "deep", "C6"};
    pl__cstate_map(mixed, 4, lv);
    const int want_mixed[] = {0, 1, 2, 3};
    assert_memory_equal(lv, want_mixed, sizeof want_mixed);
}

static void sys_u64_format(void **state)
{
    (void)state;
    uint64_t v = 7;
    assert_int_equal(pl__parse_sys_u64("123\n", 4, &v), 0);
    assert_int_equal(v, 123);
    assert_int_equal(pl__parse_sys_u64("18446744073709551615\n", 21, &v), 0);
    assert_int_equal(v, UINT64_MAX);
    static const char *const bad[] = {"",    "\n",   "123",    "12x\n", "-1\n",
                                      " 1\n", "1 \n", "1\n2\n", "18446744073709551616\n", "1e9\n"};
    for (size_t i = 0; i < N(bad); i++) {
        v = 7;
        assert_int_equal(pl__parse_sys_u64(bad[i], strlen(bad[i]), &v), -EINVAL);
        assert_int_equal(v, 7);
    }
    assert_int_equal(pl__parse_sys_u64("1\0\n", 3, &v), -EINVAL); /* an embedded NUL */
}

/* ---------------------------------------------------------- canned trees */

/* The C-state values of one instance: time (100 ns), entries. */
typedef struct cexp {
    const char *name;
    uint64_t t[3], u[3];
    uint64_t base;
} cexp;

static void check_cstates(const pl_object *o, const cexp *e, size_t n)
{
    assert_int_equal(pl_object_num_instances(o), n);
    for (size_t i = 0; i < n; i++) {
        for (int L = 0; L < 3; L++) {
            assert_int_equal(ph_type(o, c_time[L]), PERF_PRECISION_100NS_TIMER);
            assert_int_equal(ph_type(o, c_trans[L]), PERF_COUNTER_BULK_COUNT);
            if (!ph_available_of(o, e[i].name, c_time[L])) fail_msg("%s: C%d time unavailable", e[i].name, L + 1);
            if (!ph_available_of(o, e[i].name, c_trans[L])) fail_msg("%s: C%d usage unavailable", e[i].name, L + 1);
            assert_int_equal(ph_value_of(o, e[i].name, c_time[L]), e[i].t[L]);
            assert_int_equal(ph_base_of(o, e[i].name, c_time[L]), e[i].base);
            assert_int_equal(ph_value_of(o, e[i].name, c_trans[L]), e[i].u[L]);
        }
        /* the same base as % Idle Time, so C1 + C2 + C3 <= Idle reads true */
        assert_int_equal(ph_base_of(o, e[i].name, PL_CTR_PCT_IDLE_TIME), e[i].base);
    }
}

/* m2: cpu0 has intel_idle's names (POLL C1 C1E C6 C8: C1 = C1 + C1E, C3 =
 * C6 + C8, no C2), cpu1 haltpoll-like names (POLL "haltpoll idle" deep
 * deeper: by depth). POLL's time and entries are in no level. */
static void m2_cstates(void **state)
{
    (void)state;
    pf_run r;
    pf_start(&r, DATA "m2", "238");
    pl_object o;
    ph_object(&r.s, PL_OBJ_PROCESSOR, &o);
    const cexp e[] = {
        {"0", {30000, 0, 340000}, {30, 0, 34}, T(11000)},
        {"1", {70000, 8000, 9000}, {70, 8, 9}, T(12000)},
        /* the sums, over the sum of the CPUs' column sums */
        {"_Total", {100000, 8000, 349000}, {100, 8, 43}, T(23000)},
    };
    check_cstates(&o, e, N(e));
    /* every value read: no marker */
    pl_counter c;
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_UNAVAILABLE_COUNTERS, &c), PL_E_NOT_FOUND);
    pf_end(&r);
}

/* Every instance has exactly these counters marked (and written as 0). */
static void marked(const pl_object *o, const char *inst, const uint32_t *idx, size_t n)
{
    uint64_t want = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t pos = ph_position(o, idx[i]);
        want |= 1ull << pos;
        if (ph_type(o, idx[i]) == PERF_PRECISION_100NS_TIMER) want |= 1ull << (pos + 1); /* its base */
        if (ph_available_of(o, inst, idx[i])) fail_msg("%s: counter %u not marked", inst, idx[i]);
        assert_int_equal(ph_value_of(o, inst, idx[i]), 0);
    }
    assert_int_equal(ph_value_of(o, inst, PL_CTR_UNAVAILABLE_COUNTERS), want);
}

static const uint32_t all_c[] = {PL_CTR_PCT_C1_TIME, PL_CTR_PCT_C2_TIME, PL_CTR_PCT_C3_TIME,
                                 PL_CTR_C1_TRANSITIONS_PER_SEC, PL_CTR_C2_TRANSITIONS_PER_SEC,
                                 PL_CTR_C3_TRANSITIONS_PER_SEC};

/* m4 has no /sys: the six counters are there (their paths valid) and
 * marked unavailable in every instance; the /proc counters are not. */
static void m4_no_cpuidle_marked(void **state)
{
    (void)state;
    pf_run r;
    pf_start(&r, DATA "m4", "238");
    pl_object o;
    ph_object(&r.s, PL_OBJ_PROCESSOR, &o);
    static const char *const names[] = {"0", "1", "3", "_Total"};
    for (size_t i = 0; i < N(names); i++) {
        marked(&o, names[i], all_c, N(all_c));
        assert_true(ph_available_of(&o, names[i], PL_CTR_PCT_PROCESSOR_TIME));
        assert_true(ph_available_of(&o, names[i], PL_CTR_PCT_IDLE_TIME));
    }
    pf_end(&r);
}

static char root[64];

static void put(const char *rel, const char *text)
{
    ph_put(root, rel, text);
}

static void state_files(unsigned cpu, unsigned k, const char *name, const char *time, const char *usage)
{
    char rel[160];
    snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%u/cpuidle/state%u/name", cpu, k);
    if (name) put(rel, name);
    snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%u/cpuidle/state%u/time", cpu, k);
    if (time) put(rel, time);
    snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%u/cpuidle/state%u/usage", cpu, k);
    if (usage) put(rel, usage);
}

static void fifo(const char *rel)
{
    pf_fifo(root, rel);
}

/* Hostile cpuidle files are marked unavailable, never shown as numbers,
 * per level, per CPU and in _Total; a FIFO does not block the collection. */
static void cstates_hostile(void **state)
{
    (void)state;
    strcpy(root, "/tmp/perfos-power-XXXXXX");
    ph_tempdir(root);
    put("proc/stat", "cpu  40 0 0 360 0 0 0 0\ncpu0 10 0 0 90 0 0 0 0\ncpu1 10 0 0 90 0 0 0 0\n"
                     "cpu2 10 0 0 90 0 0 0 0\ncpu3 10 0 0 90 0 0 0 0\n");
    /* cpu0: C1's time is not a number; C3 entries beyond 64 bits */
    state_files(0, 0, "POLL\n", "1\n", "1\n");
    state_files(0, 1, "C1\n", "12x\n", "5\n");
    state_files(0, 2, "C2\n", "100\n", "6\n");
    state_files(0, 3, "C6\n", "200\n", "99999999999999999999\n");
    /* cpu1: a time that fits 64 bits but not in 100 ns (x10); a FIFO as C2's usage */
    state_files(1, 0, "C1\n", "18446744073709551615\n", "7\n");
    state_files(1, 1, "C2\n", "300\n", NULL);
    fifo("sys/devices/system/cpu/cpu1/cpuidle/state1/usage");
    state_files(1, 2, "C3\n", "400\n", "8\n");
    /* cpu2: a FIFO as a name: no mapping, so every level */
    ph_mkdir(root, "sys/devices/system/cpu/cpu2/cpuidle/state0");
    fifo("sys/devices/system/cpu/cpu2/cpuidle/state0/name");
    state_files(2, 0, NULL, "1\n", "1\n");
    /* cpu3: a clean one, with a missing usage file in C3 (time still read) */
    state_files(3, 0, "C1\n", "10\n", "1\n");
    state_files(3, 1, "C2\n", "20\n", "2\n");
    state_files(3, 2, "C3\n", "30\n", NULL);
    alarm(20); /* a blocking open of a FIFO would hang here */
    pf_run r;
    pf_start(&r, root, "238");
    alarm(0);
    pl_object o;
    ph_object(&r.s, PL_OBJ_PROCESSOR, &o);

    const uint32_t m0[] = {PL_CTR_PCT_C1_TIME, PL_CTR_C3_TRANSITIONS_PER_SEC};
    marked(&o, "0", m0, N(m0));
    assert_int_equal(ph_value_of(&o, "0", PL_CTR_PCT_C2_TIME), 1000);
    assert_int_equal(ph_value_of(&o, "0", PL_CTR_PCT_C3_TIME), 2000);
    assert_int_equal(ph_value_of(&o, "0", PL_CTR_C1_TRANSITIONS_PER_SEC), 5);
    assert_int_equal(ph_value_of(&o, "0", PL_CTR_C2_TRANSITIONS_PER_SEC), 6);

    const uint32_t m1[] = {PL_CTR_PCT_C1_TIME, PL_CTR_C2_TRANSITIONS_PER_SEC};
    marked(&o, "1", m1, N(m1));
    assert_int_equal(ph_value_of(&o, "1", PL_CTR_PCT_C2_TIME), 3000);
    assert_int_equal(ph_value_of(&o, "1", PL_CTR_C1_TRANSITIONS_PER_SEC), 7);

    marked(&o, "2", all_c, N(all_c));

    const uint32_t m3[] = {PL_CTR_C3_TRANSITIONS_PER_SEC};
    marked(&o, "3", m3, N(m3));
    assert_int_equal(ph_value_of(&o, "3", PL_CTR_PCT_C1_TIME), 100);
    assert_int_equal(ph_value_of(&o, "3", PL_CTR_PCT_C3_TIME), 300);

    /* _Total lacks whatever any CPU lacks: here every counter */
    marked(&o, "_Total", all_c, N(all_c));
    /* the /proc counters stay available everywhere */
    assert_true(ph_available_of(&o, "_Total", PL_CTR_PCT_PROCESSOR_TIME));
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_PCT_PROCESSOR_TIME), T(40));
    pf_end(&r);
    ph_rmtree(root);
}

/* _Total of a partly unreadable machine: a level every CPU has stays
 * available and is the sum; a CPU whose cpuidle directory is missing
 * marks its own instance and _Total. */
static void cstates_total_partial(void **state)
{
    (void)state;
    strcpy(root, "/tmp/perfos-power-XXXXXX");
    ph_tempdir(root);
    put("proc/stat", "cpu  20 0 0 180 0 0 0 0\ncpu0 10 0 0 90 0 0 0 0\ncpu1 10 0 0 90 0 0 0 0\n");
    state_files(0, 0, "C1\n", "10\n", "1\n");
    state_files(0, 1, "C3\n", "x\n", "2\n");
    state_files(1, 0, "C1\n", "20\n", "3\n");
    state_files(1, 1, "C3\n", "30\n", "4\n");
    pf_run r;
    pf_start(&r, root, "238");
    pl_object o;
    ph_object(&r.s, PL_OBJ_PROCESSOR, &o);
    const uint32_t m[] = {PL_CTR_PCT_C3_TIME};
    marked(&o, "0", m, N(m));
    marked(&o, "_Total", m, N(m));
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_PCT_C1_TIME), 300);
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_C3_TRANSITIONS_PER_SEC), 6);
    assert_int_equal(ph_base_of(&o, "_Total", PL_CTR_PCT_C1_TIME), T(200));
    assert_int_equal(ph_value_of(&o, "1", PL_CTR_PCT_C3_TIME), 300);
    assert_int_equal(ph_value_of(&o, "1", PL_CTR_UNAVAILABLE_COUNTERS), 0);
    pf_end(&r);
    ph_rmtree(root);
}

/* The states' names are read once per CPU and kept: a change of cpuidle's
 * driver (current_driver) or a state that disappears makes the provider
 * read them again, so the levels follow the new driver's names. */
static void cstates_driver_change(void **state)
{
    (void)state;
    strcpy(root, "/tmp/perfos-power-XXXXXX");
    ph_tempdir(root);
    put("proc/stat", "cpu  10 0 0 90 0 0 0 0\ncpu0 10 0 0 90 0 0 0 0\n");
    put("sys/devices/system/cpu/cpuidle/current_driver", "intel_idle\n");
    state_files(0, 0, "POLL\n", "1\n", "1\n");
    state_files(0, 1, "C1\n", "10\n", "1\n");
    state_files(0, 2, "C1E\n", "20\n", "2\n");
    state_files(0, 3, "C6\n", "30\n", "3\n");
    pf_run r;
    pf_start(&r, root, "238");
    pl_object o;
    ph_object(&r.s, PL_OBJ_PROCESSOR, &o);
    assert_int_equal(ph_value_of(&o, "0", PL_CTR_PCT_C1_TIME), 300);
    assert_int_equal(ph_value_of(&o, "0", PL_CTR_PCT_C2_TIME), 0);
    assert_int_equal(ph_value_of(&o, "0", PL_CTR_PCT_C3_TIME), 300);
    /* acpi_idle's names for the same three states: C1E's slot is now C2.
     * The levels moved, so this interval has no honest C-state difference:
     * the six counters are marked, and the values go on from where they
     * were (docs/providers/perfos.md, "CPU hotplug") */
    put("sys/devices/system/cpu/cpuidle/current_driver", "acpi_idle\n");
    state_files(0, 2, "C2\n", "20\n", "2\n");
    state_files(0, 3, "C3\n", "30\n", "3\n");
    put("proc/stat", "cpu  10 0 0 100 0 0 0 0\ncpu0 10 0 0 100 0 0 0 0\n");
    pf_again(&r, "238");
    ph_object(&r.s, PL_OBJ_PROCESSOR, &o);
    marked(&o, "0", all_c, N(all_c));
    assert_true(ph_available_of(&o, "0", PL_CTR_PCT_IDLE_TIME)); /* the cpu line is fine */
    /* with the new levels, C2 grows by 5 us and C1 by 3 us: the differences
     * count again (the idle time grew by 1 tick, far more) */
    state_files(0, 1, "C1\n", "13\n", "2\n");
    state_files(0, 2, "C2\n", "25\n", "3\n");
    put("proc/stat", "cpu  10 0 0 101 0 0 0 0\ncpu0 10 0 0 101 0 0 0 0\n");
    pf_again(&r, "238");
    ph_object(&r.s, PL_OBJ_PROCESSOR, &o);
    assert_int_equal(ph_value_of(&o, "0", PL_CTR_PCT_C1_TIME), 300 + 30);
    assert_int_equal(ph_value_of(&o, "0", PL_CTR_PCT_C2_TIME), 0 + 50);
    assert_int_equal(ph_value_of(&o, "0", PL_CTR_C2_TRANSITIONS_PER_SEC), 0 + 1);
    assert_int_equal(ph_value_of(&o, "0", PL_CTR_PCT_C3_TIME), 300);
    pl_counter c;
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_UNAVAILABLE_COUNTERS, &c), PL_E_NOT_FOUND); /* all read */
    /* the deepest state disappears (same driver name): read again, C3 went
     * back (from 30 us to none), so this interval is marked again */
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/sys/devices/system/cpu/cpu0/cpuidle/state3", root);
    ph_rmtree(path);
    put("proc/stat", "cpu  10 0 0 102 0 0 0 0\ncpu0 10 0 0 102 0 0 0 0\n");
    pf_again(&r, "238");
    ph_object(&r.s, PL_OBJ_PROCESSOR, &o);
    marked(&o, "0", all_c, N(all_c));
    /* and then counts on: C3 stays where it was, and available */
    state_files(0, 2, "C2\n", "27\n", "4\n");
    put("proc/stat", "cpu  10 0 0 103 0 0 0 0\ncpu0 10 0 0 103 0 0 0 0\n");
    pf_again(&r, "238");
    ph_object(&r.s, PL_OBJ_PROCESSOR, &o);
    assert_true(ph_available_of(&o, "0", PL_CTR_PCT_C3_TIME));
    assert_int_equal(ph_value_of(&o, "0", PL_CTR_PCT_C3_TIME), 300);
    assert_int_equal(ph_value_of(&o, "0", PL_CTR_PCT_C2_TIME), 50 + 20);
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_UNAVAILABLE_COUNTERS, &c), PL_E_NOT_FOUND);
    pf_end(&r);
    ph_rmtree(root);
}

/* Issue 33 item 4: cpuidle adds an idle period's time only when the CPU
 * wakes, so on a quiet CPU one interval read 0 % and the next 200 % (the
 * checker saw 24.4, 141.5, 92.0, ..., 153.3 on a 100 % idle CPU). Each
 * interval's C-state time now stays within [0, its idle time]; the excess
 * is held back and shown in the next intervals, so nothing is lost. One
 * CPU with haltpoll's one state, 1 s (100 ticks) between readings. */
static void cstates_within_idle(void **state)
{
    (void)state;
    strcpy(root, "/tmp/perfos-power-XXXXXX");
    ph_tempdir(root);
    put("sys/devices/system/cpu/cpuidle/current_driver", "haltpoll\n");
    /* user ticks, idle ticks, C1 time (us) of each reading */
    static const struct {
        unsigned user, idle;
        unsigned long long c1_us;
        uint64_t c1_100ns; /* what the interval may show, 100 ns */
    } seq[] = {
        {0, 1000, 9000000, 0},     /* start */
        {0, 1100, 9000000, 0},     /* asleep the whole second: nothing added yet */
        {0, 1200, 11000000, 10000000}, /* woke: 2 s added at once; 1 s shown, 1 s held */
        {0, 1300, 11900000, 10000000}, /* 0.9 s + 1 s held: 1 s shown, 0.9 s held */
        {50, 1350, 12200000, 5000000}, /* half busy: 0.3 s + 0.9 s, only 0.5 s idle */
        {50, 1450, 12400000, 9000000}, /* 0.2 s + 0.7 s held: all shown */
    };
    pf_run r;
    uint64_t c1_prev = 0, idle_prev = 0, base_prev = 0, shown = 0;
    for (size_t i = 0; i < N(seq); i++) {
        char stat[256], t[32];
        snprintf(stat, sizeof stat, "cpu  %u 0 0 %u 0 0 0 0\ncpu0 %u 0 0 %u 0 0 0 0\n", seq[i].user, seq[i].idle,
                 seq[i].user, seq[i].idle);
        put("proc/stat", stat);
        snprintf(t, sizeof t, "%llu\n", seq[i].c1_us);
        state_files(0, 0, "haltpoll idle\n", t, "1\n");
        if (i == 0) pf_start(&r, root, "238");
        else pf_again(&r, "238");
        pl_object o;
        ph_object(&r.s, PL_OBJ_PROCESSOR, &o);
        assert_true(ph_available_of(&o, "0", PL_CTR_PCT_C1_TIME));
        uint64_t c1 = ph_value_of(&o, "0", PL_CTR_PCT_C1_TIME), idle = ph_value_of(&o, "0", PL_CTR_PCT_IDLE_TIME);
        uint64_t base = ph_base_of(&o, "0", PL_CTR_PCT_C1_TIME);
        assert_int_equal(base, ph_base_of(&o, "0", PL_CTR_PCT_IDLE_TIME));
        assert_int_equal(c1, ph_value_of(&o, "_Total", PL_CTR_PCT_C1_TIME));
        if (i == 0) {
            assert_int_equal(c1, 90000000); /* the first reading as it is */
        } else {
            uint64_t dc = c1 - c1_prev, di = idle - idle_prev;
            print_message("interval %zu: %% C1 Time %.1f, %% Idle Time %.1f\n", i,
                          100.0 * (double)dc / (double)(base - base_prev),
                          100.0 * (double)di / (double)(base - base_prev));
            assert_true(c1 >= c1_prev);
            assert_true(dc <= di);
            assert_int_equal(dc, seq[i].c1_100ns);
            shown += dc;
        }
        c1_prev = c1;
        idle_prev = idle;
        base_prev = base;
    }
    /* everything cpuidle counted was shown, in the end */
    assert_int_equal(shown, (uint64_t)(seq[N(seq) - 1].c1_us - seq[0].c1_us) * 10);
    pf_end(&r);
    ph_rmtree(root);
}

/* ------------------------------------------------------------- live */

/* The sum over non-POLL states of a CPU's cpuidle file `what`, read
 * directly; -1 without cpuidle. */
static long long direct_sum(unsigned cpu, const char *what)
{
    long long sum = 0;
    int any = 0;
    for (unsigned k = 0; k < 16; k++) {
        char path[160], name[64] = "";
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%u/cpuidle/state%u/name", cpu, k);
        FILE *f = fopen(path, "r");
        if (!f) break;
        if (!fgets(name, sizeof name, f)) name[0] = '\0';
        fclose(f);
        any = 1;
        if (strcmp(name, "POLL\n") == 0) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%u/cpuidle/state%u/%s", cpu, k, what);
        f = fopen(path, "r");
        assert_non_null(f);
        unsigned long long v;
        assert_int_equal(fscanf(f, "%llu", &v), 1);
        fclose(f);
        sum += (long long)v;
    }
    return any ? sum : -1;
}

/* cpuidle adds an idle period's time when the CPU leaves it, /proc/stat's
 * idle column counts it as it goes: a long idle period straddling a sample
 * would show in one and not the other. Running briefly on every CPU of the
 * test's affinity ends any such period just before a collection. */
static void wake_cpus(void)
{
    cpu_set_t all, one;
    if (sched_getaffinity(0, sizeof all, &all) != 0) fail_msg("sched_getaffinity failed");
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &all)) continue;
        CPU_ZERO(&one);
        CPU_SET(c, &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0) continue; /* went offline */
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do clock_gettime(CLOCK_MONOTONIC, &t1);
        while ((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 1000000L);
    }
    assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
}

/* This machine: with cpuidle, C1 + C2 + C3 time and entries of CPU 0 lie
 * between direct reads of the non-POLL states before and after the
 * collection, and over an interval C1 + C2 + C3 does not exceed % Idle
 * Time by more than the tick granularity; without cpuidle, every C
 * counter is marked unavailable (and the test says so). */
static void live_cstates(void **state)
{
    (void)state;
    ph_provider p;
    pf_load(&p, NULL);
    long long t0 = direct_sum(0, "time"), u0 = direct_sum(0, "usage");
    ph_result a, b;
    wake_cpus();
    ph_collect_ok(&p, "238", BUFSZ, &a);
    long long t1 = direct_sum(0, "time"), u1 = direct_sum(0, "usage");
    pl_object o;
    ph_object(&a, PL_OBJ_PROCESSOR, &o);
    if (t0 < 0) {
        print_message("this machine has no cpuidle for CPU 0: checking the counters are marked unavailable\n");
        marked(&o, "0", all_c, N(all_c));
        marked(&o, "_Total", all_c, N(all_c));
        ph_result_free(&a);
        ph_unload(&p);
        return;
    }
    uint64_t t = 0, u = 0;
    for (int L = 0; L < 3; L++) {
        assert_true(ph_available_of(&o, "0", c_time[L]));
        assert_true(ph_available_of(&o, "0", c_trans[L]));
        t += ph_value_of(&o, "0", c_time[L]);
        u += ph_value_of(&o, "0", c_trans[L]);
    }
    print_message("cpu0: cpuidle time %lld..%lld us, collected %llu us; entries %lld..%lld, collected %llu\n", t0, t1,
                  (unsigned long long)(t / 10), u0, u1, (unsigned long long)u);
    assert_true(t >= (uint64_t)t0 * 10 && t <= (uint64_t)t1 * 10);
    assert_true(u >= (uint64_t)u0 && u <= (uint64_t)u1);

    struct timespec ts = {0, 500 * 1000 * 1000};
    nanosleep(&ts, NULL);
    wake_cpus();
    ph_collect_ok(&p, "238", BUFSZ, &b);
    pl_object ob;
    ph_object(&b, PL_OBJ_PROCESSOR, &ob);
    uint32_t n = pl_object_num_instances(&ob);
    long hz = sysconf(_SC_CLK_TCK);
    for (uint32_t i = 0; i < n; i++) {
        pl_instance in;
        char nm[32];
        assert_int_equal(pl_object_instance(&ob, (int32_t)i, &in), PL_OK);
        assert_int_equal(pl_instance_name(&in, nm, sizeof nm), PL_OK);
        double dc = 0;
        for (int L = 0; L < 3; L++)
            dc += (double)(ph_value_of(&ob, nm, c_time[L]) - ph_value_of(&o, nm, c_time[L]));
        double di = (double)(ph_value_of(&ob, nm, PL_CTR_PCT_IDLE_TIME) - ph_value_of(&o, nm, PL_CTR_PCT_IDLE_TIME));
        double db = (double)(ph_base_of(&ob, nm, PL_CTR_PCT_C1_TIME) - ph_base_of(&o, nm, PL_CTR_PCT_C1_TIME));
        assert_true(db > 0);
        /* a CPU's idle column moves in ticks, cpuidle in microseconds: allow
         * two ticks per CPU */
        double slack = 2.0 * 1e7 / (double)hz * (i + 1 == n ? (double)(n - 1) : 1.0);
        print_message("%s: C1+C2+C3 %.1f%%, Idle %.1f%%\n", nm, 100.0 * dc / db, 100.0 * di / db);
        assert_true(dc >= 0);
        assert_true(dc <= di + slack);
    }
    ph_result_free(&a);
    ph_result_free(&b);
    ph_unload(&p);
}

/* ------------------------------------------------ Processor Information */

static void cpulist_parser(void **state)
{
    (void)state;
    struct pl__cpulist l = {0};
    assert_int_equal(pl__parse_cpulist("0-3,8,10-11\n", 12, &l), 0);
    assert_int_equal(l.n, 3);
    assert_true(pl__cpulist_has(&l, 2));
    assert_false(pl__cpulist_has(&l, 4));
    assert_true(pl__cpulist_has(&l, 11));
    assert_int_equal(pl__cpulist_rank(&l, 0), 0);
    assert_int_equal(pl__cpulist_rank(&l, 3), 3);
    assert_int_equal(pl__cpulist_rank(&l, 8), 4);
    assert_int_equal(pl__cpulist_rank(&l, 10), 5);
    assert_int_equal(pl__cpulist_rank(&l, 11), 6);
    assert_int_equal(pl__parse_cpulist("\n", 1, &l), 0); /* a node without CPUs */
    assert_int_equal(l.n, 0);
    static const char *const bad[] = {"",       "0-3",    "3-1\n",  "0,0\n",     "2,1\n", "0-3,3\n", " 0\n",
                                      "-1\n",   "0-\n",   "0,\n",   "0 1\n",     "a\n",   "0-3\n\n", "16777216\n",
                                      "0:2\n", "1-2/4\n"};
    for (size_t i = 0; i < N(bad); i++)
        if (pl__parse_cpulist(bad[i], strlen(bad[i]), &l) != -EINVAL) fail_msg("accepted bad[%zu] \"%s\"", i, bad[i]);
    assert_int_equal(pl__parse_cpulist("1\0\n", 3, &l), -EINVAL);
    pl__cpulist_free(&l);
}

/* Every counter the two objects share, except the marker. */
static int shared(uint32_t idx)
{
    return idx != PL_CTR_UNAVAILABLE_COUNTERS && idx != PL_CTR_PROCESSOR_FREQUENCY &&
           idx != PL_CTR_PCT_OF_MAXIMUM_FREQUENCY && idx != PL_CTR_PCT_PROCESSOR_UTILITY;
}

/* Processor Information holds Processor's counters, in Processor's order,
 * then its own three; a CPU's instance and _Total equal Processor's (value,
 * base, availability); a node's is the sum of its CPUs'. pairs[i] names
 * the Processor instance of Processor Information's instance i (NULL: a
 * node total, summing the CPUs listed in node_of[i]). */
static void check_info_vs_processor(const pl_object *pi, const pl_object *pr, const char *const *pi_names,
                                    const char *const *pr_names, const char *const *const *node_cpus, size_t n)
{
    assert_int_equal(pl_object_num_instances(pi), n);
    pl_counter c;
    uint32_t k = 0;
    for (uint32_t i = 0; pl_object_counter(pr, i, &c) == PL_OK; i++) {
        if (pl_type_is_base(c.def.CounterType) || !shared(c.def.CounterNameTitleIndex)) continue;
        assert_int_equal(ph_position(pi, c.def.CounterNameTitleIndex), ph_position(pr, c.def.CounterNameTitleIndex));
        k++;
    }
    assert_true(k >= 12);
    for (size_t j = 0; j < n; j++) {
        pl_instance in;
        char nm[48];
        assert_int_equal(pl_object_instance(pi, (int32_t)j, &in), PL_OK);
        assert_int_equal(pl_instance_name(&in, nm, sizeof nm), PL_OK);
        assert_string_equal(nm, pi_names[j]);
        for (uint32_t i = 0; pl_object_counter(pr, i, &c) == PL_OK; i++) {
            uint32_t idx = c.def.CounterNameTitleIndex;
            if (pl_type_is_base(c.def.CounterType) || !shared(idx)) continue;
            uint64_t v = 0, b = 0;
            int av = 1;
            if (pr_names[j]) {
                v = ph_value_of(pr, pr_names[j], idx);
                av = ph_available_of(pr, pr_names[j], idx);
                if (c.has_base) b = ph_base_of(pr, pr_names[j], idx);
            } else {
                for (const char *const *m = node_cpus[j]; *m; m++) {
                    v += ph_value_of(pr, *m, idx);
                    av &= ph_available_of(pr, *m, idx);
                    if (c.has_base) b += ph_base_of(pr, *m, idx);
                }
                if (!av) v = 0;
            }
            if (ph_value_of(pi, nm, idx) != v)
                fail_msg("%s: counter %u is %llu, expected %llu", nm, idx,
                         (unsigned long long)ph_value_of(pi, nm, idx), (unsigned long long)v);
            assert_int_equal(ph_available_of(pi, nm, idx), av);
            if (c.has_base) assert_int_equal(ph_base_of(pi, nm, idx), b);
        }
        /* no honest source: always marked */
        assert_false(ph_available_of(pi, nm, PL_CTR_PCT_PROCESSOR_UTILITY));
    }
    assert_int_equal(ph_type(pi, PL_CTR_PROCESSOR_FREQUENCY), PERF_COUNTER_RAWCOUNT);
    assert_int_equal(ph_type(pi, PL_CTR_PCT_OF_MAXIMUM_FREQUENCY), PERF_COUNTER_RAWCOUNT);
    assert_int_equal(ph_type(pi, PL_CTR_PCT_PROCESSOR_UTILITY), PERF_PRECISION_100NS_TIMER);
}

/* m2: no node directory (one node, 0; index = CPU number), cpufreq on both
 * CPUs: 2400 and 1200 MHz of a 3000 MHz maximum. */
static void m2_processor_information(void **state)
{
    (void)state;
    pf_run r;
    pf_start(&r, DATA "m2", "238 1966");
    assert_int_equal(r.s.objects, 2);
    pl_object pi, pr;
    ph_object(&r.s, PL_OBJ_PROCESSOR_INFORMATION, &pi);
    ph_object(&r.s, PL_OBJ_PROCESSOR, &pr);
    static const char *const pin[] = {"0,0", "0,1", "0,_Total", "_Total"};
    static const char *const prn[] = {"0", "1", NULL, "_Total"};
    static const char *const n0[] = {"0", "1", NULL};
    static const char *const *const nodes[] = {NULL, NULL, n0, NULL};
    check_info_vs_processor(&pi, &pr, pin, prn, nodes, 4);
    const uint64_t mhz[] = {2400, 1200, 1800, 1800}, pct[] = {80, 40, 60, 60};
    for (size_t i = 0; i < 4; i++) {
        assert_true(ph_available_of(&pi, pin[i], PL_CTR_PROCESSOR_FREQUENCY));
        assert_int_equal(ph_value_of(&pi, pin[i], PL_CTR_PROCESSOR_FREQUENCY), mhz[i]);
        assert_int_equal(ph_value_of(&pi, pin[i], PL_CTR_PCT_OF_MAXIMUM_FREQUENCY), pct[i]);
    }
    assert_int_equal(ph_value_of(&pi, "0,_Total", PL_CTR_PCT_PROCESSOR_TIME), T(4600));
    assert_int_equal(ph_base_of(&pi, "0,_Total", PL_CTR_PCT_PROCESSOR_TIME), T(23000));
    assert_int_equal(ph_value_of(&pi, "0,_Total", PL_CTR_PCT_C3_TIME), 349000);
    pf_end(&r);
}

/* m4: two nodes (0-1 and 2-3) with cpu2 offline: cpu3 is the second CPU
 * of node 1 ("1,1"); no cpufreq: frequency marked everywhere. */
static void m4_processor_information_numa(void **state)
{
    (void)state;
    pf_run r;
    pf_start(&r, DATA "m4", "Global");
    pl_object pi, pr;
    ph_object(&r.s, PL_OBJ_PROCESSOR_INFORMATION, &pi);
    ph_object(&r.s, PL_OBJ_PROCESSOR, &pr);
    static const char *const pin[] = {"0,0", "0,1", "0,_Total", "1,1", "1,_Total", "_Total"};
    static const char *const prn[] = {"0", "1", NULL, "3", NULL, "_Total"};
    static const char *const n0[] = {"0", "1", NULL}, *const n1[] = {"3", NULL};
    static const char *const *const nodes[] = {NULL, NULL, n0, NULL, n1, NULL};
    check_info_vs_processor(&pi, &pr, pin, prn, nodes, 6);
    for (size_t i = 0; i < N(pin); i++) {
        assert_false(ph_available_of(&pi, pin[i], PL_CTR_PROCESSOR_FREQUENCY));
        assert_false(ph_available_of(&pi, pin[i], PL_CTR_PCT_OF_MAXIMUM_FREQUENCY));
        assert_int_equal(ph_value_of(&pi, pin[i], PL_CTR_PROCESSOR_FREQUENCY), 0);
    }
    assert_int_equal(ph_value_of(&pi, "0,_Total", PL_CTR_PCT_PROCESSOR_TIME), T(7600));
    assert_int_equal(ph_base_of(&pi, "0,_Total", PL_CTR_PCT_PROCESSOR_TIME), T(39200));
    assert_int_equal(ph_value_of(&pi, "0,_Total", PL_CTR_INTERRUPTS_PER_SEC), 330);
    pf_end(&r);
}

/* Hostile cpufreq values are marked (per CPU, in the node and _Total);
 * a malformed node list leaves Processor Information out (its instances
 * cannot be named), never Processor. */
static void processor_information_hostile(void **state)
{
    (void)state;
    strcpy(root, "/tmp/perfos-power-XXXXXX");
    ph_tempdir(root);
    put("proc/stat", "cpu  30 0 0 270 0 0 0 0\ncpu0 10 0 0 90 0 0 0 0\ncpu1 10 0 0 90 0 0 0 0\n"
                     "cpu2 10 0 0 90 0 0 0 0\n");
    put("sys/devices/system/node/node0/cpulist", "0\n");
    put("sys/devices/system/node/node1/cpulist", "1-2\n");
    put("sys/devices/system/node/node1/cpumap", "6\n");
    put("sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "2000000\n");
    put("sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "0\n"); /* no maximum */
    put("sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "1e6\n");
    put("sys/devices/system/cpu/cpu1/cpufreq/cpuinfo_max_freq", "3000000\n");
    ph_mkdir(root, "sys/devices/system/cpu/cpu2/cpufreq");
    fifo("sys/devices/system/cpu/cpu2/cpufreq/scaling_cur_freq");
    put("sys/devices/system/cpu/cpu2/cpufreq/cpuinfo_max_freq", "3000000\n");
    alarm(20);
    pf_run r;
    pf_start(&r, root, "1966");
    alarm(0);
    pl_object pi;
    ph_object(&r.s, PL_OBJ_PROCESSOR_INFORMATION, &pi);
    static const char *const names[] = {"0,0", "0,_Total", "1,0", "1,1", "1,_Total", "_Total"};
    ph_names_are(&pi, names, N(names), 0);
    assert_true(ph_available_of(&pi, "0,0", PL_CTR_PROCESSOR_FREQUENCY));
    assert_int_equal(ph_value_of(&pi, "0,0", PL_CTR_PROCESSOR_FREQUENCY), 2000);
    assert_false(ph_available_of(&pi, "0,0", PL_CTR_PCT_OF_MAXIMUM_FREQUENCY));
    assert_false(ph_available_of(&pi, "0,_Total", PL_CTR_PCT_OF_MAXIMUM_FREQUENCY));
    for (size_t i = 2; i < N(names); i++) {
        assert_false(ph_available_of(&pi, names[i], PL_CTR_PROCESSOR_FREQUENCY));
        assert_false(ph_available_of(&pi, names[i], PL_CTR_PCT_OF_MAXIMUM_FREQUENCY));
    }
    assert_true(ph_available_of(&pi, "1,1", PL_CTR_PCT_PROCESSOR_TIME));

    /* a CPU in two nodes, then a malformed list: no Processor Information */
    put("sys/devices/system/node/node0/cpulist", "0-1\n");
    pf_again(&r, "238 1966");
    assert_true(ph_has_object(&r.s, PL_OBJ_PROCESSOR));
    assert_false(ph_has_object(&r.s, PL_OBJ_PROCESSOR_INFORMATION));
    put("sys/devices/system/node/node0/cpulist", "0,x\n");
    pf_again(&r, "238 1966");
    assert_true(ph_has_object(&r.s, PL_OBJ_PROCESSOR));
    assert_false(ph_has_object(&r.s, PL_OBJ_PROCESSOR_INFORMATION));
    pf_end(&r);
    ph_rmtree(root);
}

/* This machine: Processor Information and Processor from one collection
 * agree exactly on every shared counter of every CPU and _Total; the
 * instances are "node,index" per /sys; frequency is available with
 * cpufreq (within the CPU's own limits) and marked without it. */
static void live_processor_information(void **state)
{
    (void)state;
    pf_run r;
    pf_start(&r, NULL, "Global");
    pl_object pi, pr;
    ph_object(&r.s, PL_OBJ_PROCESSOR_INFORMATION, &pi);
    ph_object(&r.s, PL_OBJ_PROCESSOR, &pr);
    uint32_t ncpu = pl_object_num_instances(&pr) - 1, ninfo = pl_object_num_instances(&pi);
    assert_true(ninfo >= ncpu + 2);
    int have_freq = access("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", R_OK) == 0;
    if (!have_freq) print_message("this machine has no cpufreq: checking the frequency counters are marked\n");
    uint32_t matched = 0;
    for (uint32_t j = 0; j < ninfo; j++) {
        pl_instance in;
        char nm[48];
        assert_int_equal(pl_object_instance(&pi, (int32_t)j, &in), PL_OK);
        assert_int_equal(pl_instance_name(&in, nm, sizeof nm), PL_OK);
        if (!have_freq) assert_false(ph_available_of(&pi, nm, PL_CTR_PROCESSOR_FREQUENCY));
        else assert_true(ph_available_of(&pi, nm, PL_CTR_PROCESSOR_FREQUENCY));
        assert_false(ph_available_of(&pi, nm, PL_CTR_PCT_PROCESSOR_UTILITY));
        const char *pr_name = NULL;
        char cpu[16];
        if (strcmp(nm, "_Total") == 0) {
            pr_name = "_Total";
        } else {
            unsigned node, idx;
            char tail[8];
            if (sscanf(nm, "%u,%7s", &node, tail) == 2 && strcmp(tail, "_Total") == 0) continue;
            assert_int_equal(sscanf(nm, "%u,%u", &node, &idx), 2);
            /* the idx-th CPU of the node's cpulist */
            char path[96], list[256];
            snprintf(path, sizeof path, "/sys/devices/system/node/node%u/cpulist", node);
            FILE *f = fopen(path, "r");
            unsigned id = idx;
            if (f) {
                struct pl__cpulist l = {0};
                assert_non_null(fgets(list, sizeof list, f));
                fclose(f);
                assert_int_equal(pl__parse_cpulist(list, strlen(list), &l), 0);
                unsigned k = 0;
                for (id = 0; id < (1u << 16); id++)
                    if (pl__cpulist_has(&l, id) && k++ == idx) break;
                pl__cpulist_free(&l);
            }
            snprintf(cpu, sizeof cpu, "%u", id);
            pr_name = cpu;
        }
        pl_counter c;
        for (uint32_t i = 0; pl_object_counter(&pr, i, &c) == PL_OK; i++) {
            uint32_t idx = c.def.CounterNameTitleIndex;
            if (pl_type_is_base(c.def.CounterType) || !shared(idx)) continue;
            assert_int_equal(ph_value_of(&pi, nm, idx), ph_value_of(&pr, pr_name, idx));
            if (c.has_base) assert_int_equal(ph_base_of(&pi, nm, idx), ph_base_of(&pr, pr_name, idx));
        }
        matched++;
    }
    print_message("%u Processor Information instances matched Processor's exactly\n", matched);
    assert_int_equal(matched, ncpu + 1);
    pf_end(&r);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cstate_mapping),
        cmocka_unit_test(sys_u64_format),
        cmocka_unit_test(m2_cstates),
        cmocka_unit_test(m4_no_cpuidle_marked),
        cmocka_unit_test(cstates_hostile),
        cmocka_unit_test(cstates_total_partial),
        cmocka_unit_test(cstates_driver_change),
        cmocka_unit_test(cstates_within_idle),
        cmocka_unit_test(live_cstates),
        cmocka_unit_test(cpulist_parser),
        cmocka_unit_test(m2_processor_information),
        cmocka_unit_test(m4_processor_information_numa),
        cmocka_unit_test(processor_information_hostile),
        cmocka_unit_test(live_processor_information),
    };
    return pl_test_run(tests, argc, argv);
}
