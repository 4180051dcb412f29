/* Issue 11 item 2: an instance key (parent/name#n) that moves to another
 * process or thread between two samples gives no data for that interval,
 * never a rate mixed from two processes. Issue 33 item 3: a step of the
 * wall clock (PerfTime100nSec) between samples changes no rate and no
 * elapsed time. Synthetic samples built with the block builder; the titles
 * come from the canned store. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdh_canned.h"
#include "perflib/block.h"
#include "perflib/winperf.h"
#include "pl_test.h"

/* One process or thread in a sample. */
typedef struct proc {
    const char *name;
    uint32_t pid, tid;        /* tid 0: a Process instance */
    uint64_t start;           /* creation FILETIME (Elapsed Time) */
    uint64_t cpu;             /* 100 ns of CPU time */
    uint32_t parent;          /* Thread: Process position */
} proc;

typedef struct scen {
    canned c;                 /* first: the canned titles callback casts ctx */
    const proc *procs[4], *threads[4];
    size_t nprocs[4], nthreads[4];
    int k;
    /* issue 33: the wall clock (PerfTime100nSec) steps by `step` from
     * sample `step_at` on (0: never); the block's PerfTime runs at
     * `perf_freq` (0: 10^7) */
    int64_t step;
    int step_at;
    int64_t perf_freq;
} scen;

#define FT0 133497864000000000ULL

static int build(const scen *s, void **out, size_t *len)
{
    pl_builder *b = pl_builder_new();
    if (!b) return -1;
    int o, c_pid, c_cpu, c_start, c_tid, in, rc = 0;
    int64_t now = (int64_t)FT0 + (int64_t)s->k * 10000000;
    pl_object_desc od = {0};
    od.name_index = 230;
    od.help_index = 231;
    od.has_instances = 1;
    od.perf_time = now;
    od.perf_freq = 10000000;
    rc |= pl_builder_add_object(b, &od, &o);
    pl_counter_desc d = {0};
    d.name_index = 6; d.help_index = 7; d.type = PERF_100NSEC_TIMER;
    rc |= pl_builder_add_counter(b, o, &d, &c_cpu);
    d.name_index = 784; d.help_index = 785; d.type = PERF_COUNTER_RAWCOUNT;
    rc |= pl_builder_add_counter(b, o, &d, &c_pid);
    d.name_index = 684; d.help_index = 685; d.type = PERF_ELAPSED_TIME;
    rc |= pl_builder_add_counter(b, o, &d, &c_start);
    for (size_t i = 0; i < s->nprocs[s->k]; i++) {
        const proc *p = &s->procs[s->k][i];
        rc |= pl_builder_add_instance(b, o, p->name, 0, 0, PERF_NO_UNIQUE_ID, &in);
        rc |= pl_builder_set_u64(b, o, in, c_cpu, p->cpu);
        rc |= pl_builder_set_u32(b, o, in, c_pid, p->pid);
        rc |= pl_builder_set_u64(b, o, in, c_start, p->start);
    }
    od.name_index = 232;
    od.help_index = 233;
    rc |= pl_builder_add_object(b, &od, &o);
    d.name_index = 6; d.help_index = 7; d.type = PERF_100NSEC_TIMER;
    rc |= pl_builder_add_counter(b, o, &d, &c_cpu);
    d.name_index = 804; d.help_index = 805; d.type = PERF_COUNTER_RAWCOUNT;
    rc |= pl_builder_add_counter(b, o, &d, &c_tid);
    for (size_t i = 0; i < s->nthreads[s->k]; i++) {
        const proc *p = &s->threads[s->k][i];
        rc |= pl_builder_add_instance(b, o, p->name, 230, p->parent, PERF_NO_UNIQUE_ID, &in);
        rc |= pl_builder_set_u64(b, o, in, c_cpu, p->cpu);
        rc |= pl_builder_set_u32(b, o, in, c_tid, p->tid);
    }
    if (rc) { pl_builder_free(b); return -1; }
    size_t olen = pl_builder_size(b), hlen = 0, used = 0;
    uint32_t nobj = 0;
    pl_block_header h;
    memset(&h, 0, sizeof h);
    h.system_time.wYear = 2024;
    h.system_time.wMonth = 1;
    h.system_time.wDay = 15;
    int64_t freq = s->perf_freq ? s->perf_freq : 10000000;
    h.perf_time = (int64_t)((__int128)(now - (int64_t)FT0 + 864000000000LL) * freq / 10000000); /* 1 day up */
    h.perf_freq = freq;
    h.perf_time_100ns = now + (s->step_at && s->k >= s->step_at ? s->step : 0);
    h.system_name = CANNED_SYSTEM;
    pl_block_write_header(&h, pl_builder_num_objects(b), olen, NULL, 0, &hlen);
    void *buf = calloc(1, hlen + olen);
    if (!buf || pl_block_write_header(&h, pl_builder_num_objects(b), olen, buf, hlen + olen, &used) != PL_OK ||
        pl_builder_emit(b, (char *)buf + hlen, olen, &used, &nobj) != PL_OK) {
        free(buf);
        pl_builder_free(b);
        return -1;
    }
    pl_builder_free(b);
    *out = buf;
    *len = hlen + olen;
    return 0;
}

static int s_collect(void *ctx, const char *query, void **block, size_t *len, pl_error *err)
{
    (void)query;
    (void)err;
    return build(ctx, block, len) == 0 ? PL_OK : PL_E_NOMEM;
}

static void open_scen(scen *s, pl_pdh_source *src)
{
    assert_int_equal(canned_open(&s->c, src, 0), 0);
    src->collect = s_collect;
    src->ctx = s;
}

static double value(pl_pdh_counter *c, uint32_t *cstatus)
{
    pl_pdh_value v;
    pl_pdh_get_formatted(c, PL_PDH_FMT_DOUBLE | PL_PDH_FMT_NOCAP100, NULL, &v);
    *cstatus = v.cstatus;
    return v.v.double_value;
}

/* Two "x" processes; the first exits after sample 0, so \Process(x) names
 * the second from sample 1 on. Its CPU time is far below the first's: the
 * old code subtracted one from the other (backwards: rejected) or, the
 * other way round, showed 331 % for one thread on 2 CPUs. */
static void process_key_moves_to_another_process(void **state)
{
    (void)state;
    static const proc s0[] = {{"x", 10, 0, FT0 - 50000000, 9000000, 0}, {"x", 20, 0, FT0 - 20000000, 1000000, 0}};
    static const proc s1[] = {{"x", 20, 0, FT0 - 20000000, 6000000, 0}};
    static const proc s2[] = {{"x", 20, 0, FT0 - 20000000, 11000000, 0}};
    /* reversed: the survivor has more CPU time than the one that left */
    static const proc r0[] = {{"y", 10, 0, FT0 - 50000000, 1000000, 0}, {"y", 20, 0, FT0 - 20000000, 9000000, 0}};
    static const proc r1[] = {{"y", 20, 0, FT0 - 20000000, 13000000, 0}};
    scen s = {0};
    pl_pdh_source src;
    open_scen(&s, &src);
    s.procs[0] = s0; s.nprocs[0] = 2;
    s.procs[1] = s1; s.nprocs[1] = 1;
    s.procs[2] = s2; s.nprocs[2] = 1;
    pl_pdh_query *q;
    pl_pdh_counter *c, *w;
    assert_int_equal(pl_pdh_open_query(&src, &q, NULL), 0);
    assert_int_equal(pl_pdh_add_counter(q, "\\Process(x)\\% Processor Time", &c, NULL), 0);
    assert_int_equal(pl_pdh_add_counter(q, "\\Process(*)\\% Processor Time", &w, NULL), 0);
    uint32_t cs;
    s.k = 0;
    assert_int_equal(pl_pdh_collect(q, NULL), 0);
    s.k = 1;
    assert_int_equal(pl_pdh_collect(q, NULL), 0);
    value(c, &cs);
    assert_int_equal(cs, PL_PDH_CSTATUS_INVALID_DATA); /* pid 10 -> pid 20: no data */
    pl_pdh_value_item *items;
    size_t n;
    assert_int_equal(pl_pdh_get_formatted_array(w, PL_PDH_FMT_DOUBLE, &items, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(items[0].value.cstatus, PL_PDH_CSTATUS_INVALID_DATA);
    free(items);
    s.k = 2;
    assert_int_equal(pl_pdh_collect(q, NULL), 0);
    assert_true(value(c, &cs) == 50.0); /* the same process again: 5e6 over 1e7 */
    assert_int_equal(cs, PL_PDH_CSTATUS_VALID_DATA);
    pl_pdh_close_query(q);

    s.procs[0] = r0;
    s.procs[1] = r1;
    assert_int_equal(pl_pdh_open_query(&src, &q, NULL), 0);
    assert_int_equal(pl_pdh_add_counter(q, "\\Process(y)\\% Processor Time", &c, NULL), 0);
    s.k = 0;
    assert_int_equal(pl_pdh_collect(q, NULL), 0);
    s.k = 1;
    assert_int_equal(pl_pdh_collect(q, NULL), 0);
    double d = value(c, &cs);
    assert_int_equal(cs, PL_PDH_CSTATUS_INVALID_DATA); /* was 120 % */
    assert_true(d == 0.0);
    pl_pdh_close_query(q);
    canned_close(&s.c);
}

/* The same pid with another creation time (pid reuse) is another process. */
static void pid_reused_is_another_process(void **state)
{
    (void)state;
    static const proc s0[] = {{"z", 10, 0, FT0 - 50000000, 1000000, 0}};
    static const proc s1[] = {{"z", 10, 0, FT0 + 5000000, 3000000, 0}};
    static const proc s2[] = {{"z", 10, 0, FT0 + 5000000, 4000000, 0}};
    scen s = {0};
    pl_pdh_source src;
    open_scen(&s, &src);
    s.procs[0] = s0; s.nprocs[0] = 1;
    s.procs[1] = s1; s.nprocs[1] = 1;
    s.procs[2] = s2; s.nprocs[2] = 1;
    pl_pdh_query *q;
    pl_pdh_counter *c;
    assert_int_equal(pl_pdh_open_query(&src, &q, NULL), 0);
    assert_int_equal(pl_pdh_add_counter(q, "\\Process(z)\\% Processor Time", &c, NULL), 0);
    uint32_t cs;
    for (s.k = 0; s.k < 3; s.k++) assert_int_equal(pl_pdh_collect(q, NULL), 0);
    assert_true(value(c, &cs) == 10.0);
    s.k = 1;
    assert_int_equal(pl_pdh_collect(q, NULL), 0); /* back to s1: time goes back too */
    pl_pdh_close_query(q);
    assert_int_equal(pl_pdh_open_query(&src, &q, NULL), 0);
    assert_int_equal(pl_pdh_add_counter(q, "\\Process(z)\\% Processor Time", &c, NULL), 0);
    s.k = 0;
    assert_int_equal(pl_pdh_collect(q, NULL), 0);
    s.k = 1;
    assert_int_equal(pl_pdh_collect(q, NULL), 0);
    value(c, &cs);
    assert_int_equal(cs, PL_PDH_CSTATUS_INVALID_DATA);
    pl_pdh_close_query(q);
    canned_close(&s.c);
}

/* Threads are named by ordinal: when thread 0 exits, "p/0" is the next
 * thread (another ID Thread), and the counter wildcard items follow too. */
static void thread_key_moves_to_another_thread(void **state)
{
    (void)state;
    static const proc p[] = {{"p", 10, 0, FT0 - 50000000, 0, 0}};
    static const proc t0[] = {{"0", 10, 11, 0, 8000000, 0}, {"1", 10, 12, 0, 1000000, 0}};
    static const proc t1[] = {{"0", 10, 12, 0, 3000000, 0}};
    static const proc t2[] = {{"0", 10, 12, 0, 5000000, 0}};
    scen s = {0};
    pl_pdh_source src;
    open_scen(&s, &src);
    for (int k = 0; k < 3; k++) { s.procs[k] = p; s.nprocs[k] = 1; }
    s.threads[0] = t0; s.nthreads[0] = 2;
    s.threads[1] = t1; s.nthreads[1] = 1;
    s.threads[2] = t2; s.nthreads[2] = 1;
    pl_pdh_query *q;
    pl_pdh_counter *c, *cw;
    assert_int_equal(pl_pdh_open_query(&src, &q, NULL), 0);
    assert_int_equal(pl_pdh_add_counter(q, "\\Thread(p/0)\\% Processor Time", &c, NULL), 0);
    assert_int_equal(pl_pdh_add_counter(q, "\\Thread(p/0)\\*", &cw, NULL), 0);
    uint32_t cs;
    s.k = 0;
    assert_int_equal(pl_pdh_collect(q, NULL), 0);
    s.k = 1;
    assert_int_equal(pl_pdh_collect(q, NULL), 0);
    value(c, &cs);
    assert_int_equal(cs, PL_PDH_CSTATUS_INVALID_DATA);
    pl_pdh_value_item *items;
    size_t n;
    assert_int_equal(pl_pdh_get_formatted_array(cw, PL_PDH_FMT_DOUBLE, &items, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(items[0].value.cstatus, PL_PDH_CSTATUS_INVALID_DATA); /* % Processor Time */
    assert_int_equal(items[1].value.cstatus, PL_PDH_CSTATUS_VALID_DATA);   /* ID Thread: one sample */
    free(items);
    s.k = 2;
    assert_int_equal(pl_pdh_collect(q, NULL), 0);
    assert_true(value(c, &cs) == 20.0);
    pl_pdh_close_query(q);
    canned_close(&s.c);
}

/* Issue 11 items 9 and 10: every listed path names its instance. A
 * process named "x#1" is listed as x#1#0 (the second "x" is x#1); the
 * fourth "n" is n#3; a partial wildcard finds names in any case. */
static void listed_paths_name_their_instance(void **state)
{
    (void)state;
    static const proc s0[] = {{"x#1", 5, 0, FT0 - 1, 0, 0}, {"x", 6, 0, FT0 - 1, 0, 0}, {"x", 7, 0, FT0 - 1, 0, 0},
                              {"n", 8, 0, FT0 - 1, 0, 0},   {"n", 9, 0, FT0 - 1, 0, 0}, {"n", 10, 0, FT0 - 1, 0, 0},
                              {"n", 11, 0, FT0 - 1, 0, 0},  {"Svc.exe", 12, 0, FT0 - 1, 0, 0}};
    scen s = {0};
    pl_pdh_source src;
    open_scen(&s, &src);
    s.procs[0] = s0;
    s.nprocs[0] = 8;
    char **paths;
    size_t n;
    assert_int_equal(pl_pdh_expand_path(&src, "\\Process(*)\\ID Process", &paths, &n, NULL), 0);
    assert_int_equal(n, 8);
    assert_string_equal(paths[0], "\\Process(x#1#0)\\ID Process");
    assert_string_equal(paths[1], "\\Process(x)\\ID Process");
    assert_string_equal(paths[2], "\\Process(x#1)\\ID Process");
    assert_string_equal(paths[6], "\\Process(n#3)\\ID Process");
    pl_pdh_query *q;
    assert_int_equal(pl_pdh_open_query(&src, &q, NULL), 0);
    pl_pdh_counter *c[8];
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(pl_pdh_validate_path(&src, paths[i], NULL), 0);
        assert_int_equal(pl_pdh_add_counter(q, paths[i], &c[i], NULL), 0);
    }
    assert_int_equal(pl_pdh_collect(q, NULL), 0);
    for (size_t i = 0; i < n; i++) {
        pl_pdh_value v;
        assert_int_equal(pl_pdh_get_formatted(c[i], PL_PDH_FMT_LARGE, NULL, &v), 0);
        if (v.v.large_value != (int64_t)s0[i].pid) fail_msg("%s gave pid %lld", paths[i], (long long)v.v.large_value);
    }
    pl_free(paths);
    /* the wildcard's items carry the same unambiguous names */
    pl_pdh_counter *w;
    assert_int_equal(pl_pdh_add_counter(q, "\\Process(x*)\\ID Process", &w, NULL), 0);
    assert_int_equal(pl_pdh_collect(q, NULL), 0);
    pl_pdh_value_item *items;
    assert_int_equal(pl_pdh_get_formatted_array(w, PL_PDH_FMT_LARGE, &items, &n), 0);
    assert_int_equal(n, 3);
    assert_string_equal(items[0].name, "x#1#0");
    assert_int_equal(items[0].value.v.large_value, 5);
    free(items);
    assert_int_equal(pl_pdh_expand_path(&src, "\\Process(sVC*)\\ID Process", &paths, &n, NULL), 0);
    assert_int_equal(n, 1);
    assert_string_equal(paths[0], "\\Process(Svc.exe)\\ID Process");
    pl_free(paths);
    assert_int_equal(pl_pdh_expand_path(&src, "\\Process(*.EXE)\\ID Process", &paths, &n, NULL), 0);
    assert_int_equal(n, 1);
    pl_free(paths);
    assert_int_equal(pl_pdh_expand_path(&src, "\\Process(q*)\\ID Process", &paths, &n, NULL), 0);
    assert_int_equal(n, 0);
    pl_free(paths);
    pl_pdh_close_query(q);
    canned_close(&s.c);
}

/* Issue 33 item 3: the wall clock stepped +1 h between samples 1 and 2,
 * while a process burned a whole CPU (10^7 of CPU time a second) since 6 s
 * before sample 0. % Processor Time read 0.028 % for the interval (its
 * base was PerfTime100nSec, the wall clock); it is 100 % in every interval
 * now, over the monotonic PerfTime, whatever its frequency, and Elapsed
 * Time (over the object's clock) 6, 7, 8, 9 s. */
static void clock_step_changes_no_rate(void **state)
{
    (void)state;
    static const proc p[4][1] = {{{"burn", 30, 0, FT0 - 60000000, 10000000, 0}},
                                 {{"burn", 30, 0, FT0 - 60000000, 20000000, 0}},
                                 {{"burn", 30, 0, FT0 - 60000000, 30000000, 0}},
                                 {{"burn", 30, 0, FT0 - 60000000, 40000000, 0}}};
    static const int64_t freqs[] = {10000000, 3579545, 1000000000};
    for (size_t f = 0; f < sizeof freqs / sizeof freqs[0]; f++) {
        scen s = {0};
        pl_pdh_source src;
        open_scen(&s, &src);
        for (int k = 0; k < 4; k++) {
            s.procs[k] = p[k];
            s.nprocs[k] = 1;
        }
        s.step = 3600LL * 10000000;
        s.step_at = 2;
        s.perf_freq = freqs[f];
        pl_pdh_query *q;
        pl_pdh_counter *cpu, *el;
        assert_int_equal(pl_pdh_open_query(&src, &q, NULL), 0);
        assert_int_equal(pl_pdh_add_counter(q, "\\Process(burn)\\% Processor Time", &cpu, NULL), 0);
        assert_int_equal(pl_pdh_add_counter(q, "\\Process(burn)\\Elapsed Time", &el, NULL), 0);
        uint32_t cs;
        for (s.k = 0; s.k < 4; s.k++) {
            assert_int_equal(pl_pdh_collect(q, NULL), 0);
            double e = value(el, &cs);
            assert_int_equal(cs, PL_PDH_CSTATUS_VALID_DATA);
            assert_true(fabs(e - (6.0 + s.k)) < 1e-6);
            if (s.k == 0) continue;
            double v = value(cpu, &cs);
            assert_int_equal(cs, PL_PDH_CSTATUS_VALID_DATA);
            if (fabs(v - 100.0) > 1e-3) fail_msg("interval %d at PerfFreq %lld: %f %%", s.k, (long long)freqs[f], v);
        }
        pl_pdh_close_query(q);
        canned_close(&s.c);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(process_key_moves_to_another_process),
        cmocka_unit_test(pid_reused_is_another_process),
        cmocka_unit_test(clock_step_changes_no_rate),
        cmocka_unit_test(thread_key_moves_to_another_thread),
        cmocka_unit_test(listed_paths_name_their_instance),
    };
    return pl_test_run(tests, argc, argv);
}
