/* PDH queries over canned blocks: name resolution, the query string sent to
 * the source, raw and formatted values through real blocks, wildcards that
 * follow instances, duplicates, parents, errors, validation, expansion,
 * enumeration and look-ups. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pdh_canned.h"
#include "pdh_internal.h"
#include "perflib/winperf.h"
#include "pl_test.h"

typedef struct fx {
    canned c;
    pl_pdh_source src;
    pl_pdh_query *q;
} fx;

static int setup_lang(void **state, int german)
{
    fx *f = calloc(1, sizeof *f);
    if (!f || canned_open(&f->c, &f->src, german) != 0) return -1;
    if (pl_pdh_open_query(&f->src, &f->q, NULL) != 0) return -1;
    *state = f;
    return 0;
}
static int setup(void **state) { return setup_lang(state, 0); }
static int setup_de(void **state) { return setup_lang(state, 1); }

static int teardown(void **state)
{
    fx *f = *state;
    pl_pdh_close_query(f->q);
    canned_close(&f->c);
    free(f);
    return 0;
}

static pl_pdh_counter *add(fx *f, const char *path)
{
    pl_pdh_counter *c = NULL;
    pl_error err = {0};
    uint32_t st = pl_pdh_add_counter(f->q, path, &c, &err);
    if (st) { print_error("add %s: 0x%08x %s\n", path, st, err.msg); fail(); }
    return c;
}

static void collect(fx *f, int k)
{
    f->c.cur = k;
    pl_error err = {0};
    uint32_t st = pl_pdh_collect(f->q, &err);
    if (st) { print_error("collect %d: 0x%08x %s\n", k, st, err.msg); fail(); }
}

static double dbl(const pl_pdh_counter *c)
{
    pl_pdh_value v;
    uint32_t st = pl_pdh_get_formatted(c, PL_PDH_FMT_DOUBLE, NULL, &v);
    if (st) { print_error("format: 0x%08x cstatus 0x%08x\n", st, v.cstatus); fail(); }
    return v.v.double_value;
}

static void near(double a, double b)
{
    if (fabs(a - b) > 1e-9 * (fabs(b) > 1 ? fabs(b) : 1)) { print_error("got %.17g want %.17g\n", a, b); fail(); }
}

static void two_counters_three_samples(void **state)
{
    fx *f = *state;
    pl_pdh_counter *cpu = add(f, "\\Processor(_Total)\\% Processor Time");
    pl_pdh_counter *mem = add(f, "\\Memory\\Available Bytes");
    pl_pdh_counter *pf = add(f, "\\memory\\PAGE FAULTS/SEC"); /* case-insensitive */
    pl_pdh_value v;
    /* nothing collected yet */
    assert_int_equal(pl_pdh_get_formatted(mem, PL_PDH_FMT_DOUBLE, NULL, &v), PL_PDH_INVALID_DATA);
    collect(f, 0);
    /* exactly the objects the counters need, once each, in order */
    assert_string_equal(f->c.last_query, "238 4");
    assert_int_equal(pl_pdh_query_time(f->q), CANNED_FT(0));
    assert_string_equal(pl_pdh_query_machine(f->q), "TESTBOX");
    uint32_t type = 0;
    near(dbl(mem), 2000000000.0);
    /* a rate's first sample */
    assert_int_equal(pl_pdh_get_formatted(cpu, PL_PDH_FMT_DOUBLE, &type, &v), PL_PDH_INVALID_DATA);
    assert_int_equal(v.cstatus, PL_PDH_CSTATUS_INVALID_DATA);
    assert_int_equal(type, PERF_100NSEC_TIMER_INV);
    collect(f, 1);
    near(dbl(cpu), 37.5);
    near(dbl(mem), 1998951424.0);
    near(dbl(pf), 100.0);
    collect(f, 2);
    near(dbl(cpu), 37.5);
    near(dbl(pf), 300.0);
    assert_int_equal(pl_pdh_get_formatted(cpu, PL_PDH_FMT_LONG, NULL, &v), 0);
    assert_int_equal(v.v.long_value, 37);
    /* raw values: (N, PerfTime in 100 ns) for a 100 ns timer -- the
     * monotonic clock, not PerfTime100nSec (issue 33) -- (N, 0) for a count */
    pl_pdh_raw r;
    assert_int_equal(pl_pdh_get_raw(cpu, &type, &r), 0);
    assert_int_equal(r.cstatus, 0);
    assert_true(r.first == 12500000 && r.second == pl_pdh_time_100ns(CANNED_PERFTIME(2), CANNED_FREQ, CANNED_FT(2)));
    assert_true(r.second != CANNED_FT(2));
    assert_int_equal(pl_pdh_get_raw(mem, NULL, &r), 0);
    assert_true(r.first == 2000000000LL - 2 * 1048576LL && r.second == 0);
    assert_int_equal(pl_pdh_get_raw(pf, NULL, &r), 0);
    assert_true(r.second == CANNED_PERFTIME(2)); /* tick counters carry PerfTime */
    /* removing a counter changes what is asked for */
    assert_int_equal(pl_pdh_remove_counter(cpu), 0);
    collect(f, 3);
    assert_string_equal(f->c.last_query, "4");
}

static void wildcard_follows_instances(void **state)
{
    fx *f = *state;
    pl_pdh_counter *ids = add(f, "\\Process(*)\\ID Process");
    pl_pdh_counter *cpu = add(f, "\\Process(*)\\% Processor Time");
    pl_pdh_value_item *it = NULL;
    size_t n = 0;
    collect(f, 0);
    assert_int_equal(pl_pdh_get_formatted_array(ids, PL_PDH_FMT_LONG, &it, &n), 0);
    assert_int_equal(n, 4);
    assert_string_equal(it[0].name, "init");
    assert_string_equal(it[1].name, "svchost");
    assert_string_equal(it[2].name, "svchost#1");
    assert_string_equal(it[3].name, "bash");
    assert_int_equal(it[2].value.v.long_value, 200);
    assert_int_equal(it[3].value.v.long_value, 300);
    pl_free(it);
    collect(f, 1);
    assert_int_equal(pl_pdh_get_formatted_array(cpu, PL_PDH_FMT_DOUBLE, &it, &n), 0);
    assert_int_equal(n, 4); /* bash left, python came */
    assert_string_equal(it[3].name, "python");
    near(it[0].value.v.double_value, 0.01);
    near(it[1].value.v.double_value, 1.0);
    near(it[2].value.v.double_value, 2.0);
    assert_int_equal(it[3].value.cstatus, PL_PDH_CSTATUS_INVALID_DATA); /* new: first sample */
    pl_free(it);
    collect(f, 2);
    assert_int_equal(pl_pdh_get_formatted_array(cpu, PL_PDH_FMT_DOUBLE, &it, &n), 0);
    assert_int_equal(n, 5);
    assert_string_equal(it[3].name, "svchost#2");
    assert_int_equal(it[3].value.cstatus, PL_PDH_CSTATUS_INVALID_DATA);
    assert_string_equal(it[4].name, "python");
    near(it[4].value.v.double_value, 4.0);
    near(it[2].value.v.double_value, 2.0);
    pl_free(it);
    /* a wildcard counter has no single value */
    pl_pdh_value v;
    assert_int_equal(pl_pdh_get_formatted(ids, PL_PDH_FMT_LONG, NULL, &v), PL_PDH_INVALID_ARGUMENT);
}

static void duplicates_and_missing_instances(void **state)
{
    fx *f = *state;
    pl_pdh_counter *s0 = add(f, "\\Process(svchost)\\ID Process");
    pl_pdh_counter *s1 = add(f, "\\Process(SVCHOST#1)\\ID Process");
    pl_pdh_counter *s2 = add(f, "\\Process(svchost#2)\\ID Process");   /* appears at sample 2 */
    pl_pdh_counter *bash = add(f, "\\Process(bash)\\% Processor Time"); /* leaves at sample 1 */
    collect(f, 0);
    near(dbl(s0), 100);
    near(dbl(s1), 200);
    pl_pdh_value v;
    assert_int_equal(pl_pdh_get_formatted(s2, PL_PDH_FMT_DOUBLE, NULL, &v), PL_PDH_INVALID_DATA);
    assert_int_equal(v.cstatus, PL_PDH_CSTATUS_NO_INSTANCE);
    collect(f, 1);
    assert_int_equal(pl_pdh_get_formatted(bash, PL_PDH_FMT_DOUBLE, NULL, &v), PL_PDH_INVALID_DATA);
    assert_int_equal(v.cstatus, PL_PDH_CSTATUS_NO_INSTANCE);
    pl_pdh_raw r;
    assert_int_equal(pl_pdh_get_raw(bash, NULL, &r), PL_PDH_INVALID_DATA);
    assert_int_equal(r.cstatus, PL_PDH_CSTATUS_NO_INSTANCE);
    collect(f, 2);
    near(dbl(s2), 250);
}

static void parents(void **state)
{
    fx *f = *state;
    pl_pdh_counter *a = add(f, "\\Thread(svchost/0)\\ID Thread");
    pl_pdh_counter *b = add(f, "\\Thread(svchost/0#1)\\ID Thread");
    pl_pdh_counter *c = add(f, "\\Thread(svchost/1)\\ID Thread");
    pl_pdh_counter *own = add(f, "\\Thread(1)\\ID Thread"); /* no parent given: own name */
    pl_pdh_counter *w = add(f, "\\Thread(*/0)\\ID Thread");
    pl_pdh_counter *all = add(f, "\\Thread(svchost/*)\\ID Thread");
    collect(f, 0);
    assert_string_equal(f->c.last_query, "232");
    near(dbl(a), 1001);
    near(dbl(b), 2001);
    near(dbl(c), 1002);
    near(dbl(own), 1002);
    pl_pdh_value_item *it;
    size_t n;
    assert_int_equal(pl_pdh_get_formatted_array(w, PL_PDH_FMT_LONG, &it, &n), 0);
    assert_int_equal(n, 2);
    assert_string_equal(it[0].name, "svchost/0");
    assert_string_equal(it[1].name, "svchost/0#1");
    assert_int_equal(it[1].value.v.long_value, 2001);
    pl_free(it);
    assert_int_equal(pl_pdh_get_formatted_array(all, PL_PDH_FMT_LONG, &it, &n), 0);
    assert_int_equal(n, 3);
    pl_free(it);
}

static void other_types_through_blocks(void **state)
{
    fx *f = *state;
    pl_pdh_counter *up = add(f, "\\System\\System Up Time");
    pl_pdh_counter *fs = add(f, "\\LogicalDisk(C:)\\% Free Space");
    pl_pdh_counter *avg = add(f, "\\LogicalDisk(C:)\\Avg. Disk sec/Transfer");
    collect(f, 1);
    assert_string_equal(f->c.last_query, "2 236");
    near(dbl(up), 401.0);     /* object PerfTime/PerfFreq */
    near(dbl(fs), 12.5);      /* base from the next definition */
    pl_pdh_raw r;
    assert_int_equal(pl_pdh_get_raw(fs, NULL, &r), 0);
    assert_true(r.first == 25 && r.second == 200);
    pl_pdh_value v;
    assert_int_equal(pl_pdh_get_formatted(avg, PL_PDH_FMT_DOUBLE, NULL, &v), PL_PDH_INVALID_DATA);
    collect(f, 2);
    near(dbl(avg), 0.05);
    near(dbl(up), 402.0);
}

/* A value its provider marked unreadable (the generic "Unavailable
 * Counters" marker) is never a number: raw CStatus INVALID_DATA, formatted
 * PL_PDH_INVALID_DATA with that CStatus, also per item of an array. */
static void expect_invalid(const pl_pdh_counter *c)
{
    pl_pdh_value v;
    memset(&v, 0x5A, sizeof v);
    assert_int_equal(pl_pdh_get_formatted(c, PL_PDH_FMT_DOUBLE, NULL, &v), PL_PDH_INVALID_DATA);
    assert_int_equal(v.cstatus, PL_PDH_CSTATUS_INVALID_DATA);
    assert_true(v.v.double_value == 0.0);
    assert_int_equal(pl_pdh_get_formatted(c, PL_PDH_FMT_LARGE, NULL, &v), PL_PDH_INVALID_DATA);
    assert_int_equal(v.cstatus, PL_PDH_CSTATUS_INVALID_DATA);
}

static void unavailable_values_are_invalid_data(void **state)
{
    fx *f = *state;
    f->c.unavailable = 1;
    pl_pdh_counter *bw_eth = add(f, "\\Network Interface(eth0)\\Current Bandwidth");
    pl_pdh_counter *bw_wlan = add(f, "\\Network Interface(wlan0)\\Current Bandwidth");
    pl_pdh_counter *bt_eth = add(f, "\\Network Interface(eth0)\\Bytes Total/sec");
    pl_pdh_counter *bt_wlan = add(f, "\\Network Interface(wlan0)\\Bytes Total/sec");
    pl_pdh_counter *bt_all = add(f, "\\Network Interface(*)\\Bytes Total/sec");
    pl_pdh_counter *mask = add(f, "\\Network Interface(wlan0)\\Unavailable Counters");
    pl_pdh_raw r;
    pl_pdh_value v;
    pl_pdh_value_item *it = NULL;
    size_t n = 0;

    collect(f, 0);
    assert_string_equal(f->c.last_query, "510");
    near(dbl(bw_eth), 1e9);
    assert_int_equal(pl_pdh_get_raw(bw_wlan, NULL, &r), PL_PDH_INVALID_DATA);
    assert_int_equal(r.cstatus, PL_PDH_CSTATUS_INVALID_DATA);
    assert_true(r.first == 0 && r.second == 0);
    expect_invalid(bw_wlan);
    /* the marker itself is an ordinary counter */
    assert_int_equal(pl_pdh_get_formatted(mask, PL_PDH_FMT_LARGE, NULL, &v), 0);
    assert_int_equal(v.v.large_value, 1);

    collect(f, 1); /* wlan0's Bytes Total/sec is marked in this sample */
    near(dbl(bt_eth), 1e6);
    expect_invalid(bt_wlan);
    assert_int_equal(pl_pdh_get_raw(bt_wlan, NULL, &r), PL_PDH_INVALID_DATA);
    assert_int_equal(pl_pdh_get_formatted(mask, PL_PDH_FMT_LARGE, NULL, &v), 0);
    assert_int_equal(v.v.large_value, 3);
    assert_int_equal(pl_pdh_get_formatted_array(bt_all, PL_PDH_FMT_DOUBLE, &it, &n), 0);
    assert_int_equal(n, 2);
    assert_string_equal(it[0].name, "eth0");
    assert_int_equal(it[0].value.cstatus, PL_PDH_CSTATUS_VALID_DATA);
    near(it[0].value.v.double_value, 1e6);
    assert_string_equal(it[1].name, "wlan0");
    assert_int_equal(it[1].value.cstatus, PL_PDH_CSTATUS_INVALID_DATA);
    assert_true(it[1].value.v.double_value == 0.0);
    pl_free(it);

    collect(f, 2); /* readable again, but the previous sample was not */
    assert_int_equal(pl_pdh_get_raw(bt_wlan, NULL, &r), 0);
    assert_int_equal(r.first, 1000000);
    expect_invalid(bt_wlan);
    expect_invalid(bw_wlan);
    assert_int_equal(pl_pdh_get_formatted_array(bt_all, PL_PDH_FMT_DOUBLE, &it, &n), 0);
    assert_int_equal(it[1].value.cstatus, PL_PDH_CSTATUS_INVALID_DATA);
    pl_free(it);

    collect(f, 3);
    near(dbl(bt_wlan), 500000.0);
    near(dbl(bt_eth), 1e6);
    expect_invalid(bw_wlan);
    assert_int_equal(pl_pdh_get_formatted_array(bt_all, PL_PDH_FMT_DOUBLE, &it, &n), 0);
    assert_int_equal(it[1].value.cstatus, PL_PDH_CSTATUS_VALID_DATA);
    near(it[1].value.v.double_value, 500000.0);
    pl_free(it);
    /* pl_pdh_calculate over the two raw samples gives the same verdicts */
    pl_pdh_raw r1 = {0};
    assert_int_equal(pl_pdh_get_raw(bw_wlan, NULL, &r1), PL_PDH_INVALID_DATA);
    assert_int_equal(pl_pdh_calculate(bw_wlan, PL_PDH_FMT_DOUBLE, &r1, NULL, &v), PL_PDH_INVALID_DATA);
    assert_int_equal(v.cstatus, PL_PDH_CSTATUS_INVALID_DATA);
}

static void errors(void **state)
{
    fx *f = *state;
    pl_pdh_counter *c = NULL;
    pl_error err = {0};
    pl_pdh_value v;
    /* no counters yet */
    assert_int_equal(pl_pdh_collect(f->q, &err), PL_PDH_NO_DATA);
    /* argument checks come before handle checks */
    assert_int_equal(pl_pdh_add_counter(NULL, "\\Memory\\Available Bytes", NULL, NULL), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl_pdh_add_counter(NULL, "\\Memory\\Available Bytes", &c, NULL), PL_PDH_INVALID_HANDLE);
    assert_int_equal(pl_pdh_add_counter((pl_pdh_query *)&v, "\\Memory\\Available Bytes", &c, NULL), PL_PDH_INVALID_HANDLE);
    assert_int_equal(pl_pdh_add_counter(f->q, NULL, &c, NULL), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl_pdh_add_counter(f->q, "", &c, NULL), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl_pdh_add_counter(f->q, "Memory\\Available Bytes", &c, &err), PL_PDH_CSTATUS_BAD_COUNTERNAME);
    assert_int_equal((uint32_t)err.status, PL_PDH_CSTATUS_BAD_COUNTERNAME);
    assert_int_equal(pl_pdh_add_counter(f->q, "\\Memory", &c, NULL), PL_PDH_CSTATUS_BAD_COUNTERNAME);
    assert_int_equal(pl_pdh_add_counter(f->q, "\\Nonsense\\Available Bytes", &c, &err), PL_PDH_CSTATUS_NO_OBJECT);
    assert_non_null(strstr(err.msg, "Nonsense"));
    assert_int_equal(pl_pdh_add_counter(f->q, "\\Memory\\No Such Counter", &c, &err), PL_PDH_CSTATUS_NO_COUNTER);
    /* a known name that this object does not have */
    assert_int_equal(pl_pdh_add_counter(f->q, "\\Memory\\ID Process", &c, NULL), PL_PDH_CSTATUS_NO_COUNTER);
    /* an object the title database knows but the data lacks */
    assert_int_equal(pl_pdh_add_counter(f->q, "\\Paging File(_Total)\\% Usage", &c, NULL), PL_PDH_CSTATUS_NO_OBJECT);
    assert_int_equal(pl_pdh_add_counter(f->q, "\\\\OTHERBOX\\Memory\\Available Bytes", &c, NULL), PL_PDH_CSTATUS_NO_MACHINE);
    assert_int_equal(pl_pdh_add_counter(f->q, "\\Memory(x)\\Available Bytes", &c, NULL), PL_PDH_CSTATUS_NO_INSTANCE);
    assert_int_equal(pl_pdh_add_counter(f->q, "\\Processor\\% Processor Time", &c, NULL), PL_PDH_CSTATUS_NO_INSTANCE);
    /* counter wildcards are accepted, but not partial ones nor on the wrong instancing */
    assert_int_equal(pl_pdh_add_counter(f->q, "\\Processor(*)\\% *", &c, NULL), PL_PDH_CSTATUS_BAD_COUNTERNAME);
    assert_int_equal(pl_pdh_add_counter(f->q, "\\Memory(*)\\*", &c, NULL), PL_PDH_CSTATUS_NO_INSTANCE);
    assert_int_equal(pl_pdh_add_counter(f->q, "\\Processor\\*", &c, NULL), PL_PDH_CSTATUS_NO_INSTANCE);
    assert_int_equal(pl_pdh_add_counter(f->q, "\\Nope(*)\\*", &c, NULL), PL_PDH_CSTATUS_NO_OBJECT);
    /* the machine may be named, in any case, or as localhost */
    c = add(f, "\\\\testbox\\Memory\\Available Bytes");
    add(f, "\\\\localhost\\Memory\\Available Bytes");
    /* the source fails: the counters keep their data */
    collect(f, 0);
    f->c.fail = 1;
    assert_int_equal(pl_pdh_collect(f->q, &err), PL_PDH_INVALID_DATA);
    assert_non_null(strstr(err.msg, "canned failure"));
    near(dbl(c), 2000000000.0);
    f->c.fail = 0;
    f->c.garbage = 1;
    assert_int_equal(pl_pdh_collect(f->q, &err), PL_PDH_INVALID_DATA);
    near(dbl(c), 2000000000.0);
    /* bad format flags, NULL outputs, bad scale */
    assert_int_equal(pl_pdh_get_formatted(c, 0, NULL, &v), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl_pdh_get_formatted(c, PL_PDH_FMT_LONG, NULL, NULL), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl_pdh_get_formatted(NULL, PL_PDH_FMT_LONG, NULL, &v), PL_PDH_INVALID_HANDLE);
    assert_int_equal(pl_pdh_set_scale(c, 8), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl_pdh_set_scale(c, -8), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl_pdh_set_scale(NULL, 1), PL_PDH_INVALID_HANDLE);
    assert_int_equal(pl_pdh_remove_counter(NULL), PL_PDH_INVALID_HANDLE);
}

static void scale_info_and_raw_calc(void **state)
{
    fx *f = *state;
    pl_pdh_counter *c = add(f, "\\Processor(_Total)\\% User Time");
    pl_pdh_counter_info info;
    assert_int_equal(pl_pdh_get_counter_info(c, &info), 0);
    assert_int_equal(info.type, PERF_100NSEC_TIMER);
    assert_int_equal(info.scale, 0);
    assert_int_equal(info.object_index, 238);
    assert_int_equal(info.counter_index, 142);
    assert_string_equal(info.full_path, "\\\\TESTBOX\\Processor(_Total)\\% User Time");
    assert_string_equal(info.instance, "_Total");
    assert_non_null(info.explain);
    assert_true(strlen(info.explain) > 10);
    collect(f, 0);
    pl_pdh_raw r0, r1;
    assert_int_equal(pl_pdh_get_raw(c, NULL, &r0), 0);
    collect(f, 1);
    assert_int_equal(pl_pdh_get_raw(c, NULL, &r1), 0);
    near(dbl(c), 15.0);
    assert_int_equal(pl_pdh_set_scale(c, 1), 0);
    near(dbl(c), 150.0);
    pl_pdh_value v;
    assert_int_equal(pl_pdh_get_formatted(c, PL_PDH_FMT_DOUBLE | PL_PDH_FMT_NOSCALE, NULL, &v), 0);
    near(v.v.double_value, 15.0);
    assert_int_equal(pl_pdh_set_scale(c, 0), 0);
    /* calculate from raw: raw1 newer, raw2 older */
    assert_int_equal(pl_pdh_calculate(c, PL_PDH_FMT_DOUBLE, &r1, &r0, &v), 0);
    near(v.v.double_value, 15.0);
    assert_int_equal(pl_pdh_calculate(c, PL_PDH_FMT_DOUBLE, &r0, &r1, &v), PL_PDH_CALC_NEGATIVE_VALUE);
    assert_int_equal(pl_pdh_calculate(c, PL_PDH_FMT_DOUBLE, &r1, NULL, &v), PL_PDH_INVALID_DATA);
    assert_int_equal(pl_pdh_calculate(c, PL_PDH_FMT_DOUBLE, &r1, &r0, NULL), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl_pdh_calculate(NULL, PL_PDH_FMT_DOUBLE, &r1, &r0, &v), PL_PDH_INVALID_HANDLE);
    /* statistics through the counter: samples 0..3 stored from index 1 */
    pl_pdh_raw ring[4];
    for (int k = 0; k < 4; k++) {
        collect(f, k);
        assert_int_equal(pl_pdh_get_raw(c, NULL, &ring[(k + 1) % 4]), 0);
    }
    pl_pdh_stats st;
    assert_int_equal(pl_pdh_statistics(c, PL_PDH_FMT_DOUBLE, 1, 4, ring, &st), 0);
    assert_int_equal(st.count, 3);
    near(st.mean.v.double_value, 15.0);
    near(st.min.v.double_value, 15.0);
    assert_int_equal(pl_pdh_statistics(c, PL_PDH_FMT_DOUBLE, 4, 4, ring, &st), PL_PDH_INVALID_ARGUMENT);
}

static void validate_and_expand(void **state)
{
    fx *f = *state;
    const pl_pdh_source *s = &f->src;
    assert_int_equal(pl_pdh_validate_path(s, "\\Processor(_Total)\\% Processor Time", NULL), 0);
    assert_int_equal(pl_pdh_validate_path(s, "\\Process(*)\\ID Process", NULL), 0);
    assert_int_equal(pl_pdh_validate_path(s, "\\Process(svchost#1)\\ID Process", NULL), 0);
    assert_int_equal(pl_pdh_validate_path(s, "\\Process(svchost#2)\\ID Process", NULL), PL_PDH_CSTATUS_NO_INSTANCE);
    assert_int_equal(pl_pdh_validate_path(s, "\\Process(nosuch)\\ID Process", NULL), PL_PDH_CSTATUS_NO_INSTANCE);
    assert_int_equal(pl_pdh_validate_path(s, "\\Memory\\*", NULL), 0);
    assert_int_equal(pl_pdh_validate_path(s, "\\Memory\\Nope", NULL), PL_PDH_CSTATUS_NO_COUNTER);
    assert_int_equal(pl_pdh_validate_path(s, "\\Nope\\Nope", NULL), PL_PDH_CSTATUS_NO_OBJECT);
    assert_int_equal(pl_pdh_validate_path(s, "Memory", NULL), PL_PDH_CSTATUS_BAD_COUNTERNAME);
    assert_int_equal(pl_pdh_validate_path(s, NULL, NULL), PL_PDH_INVALID_ARGUMENT);
    char **p = NULL;
    size_t n = 0;
    assert_int_equal(pl_pdh_expand_path(s, "\\Process(*)\\ID Process", &p, &n, NULL), 0);
    assert_int_equal(n, 4);
    assert_string_equal(p[0], "\\Process(init)\\ID Process");
    assert_string_equal(p[2], "\\Process(svchost#1)\\ID Process");
    assert_null(p[4]);
    pl_free(p);
    assert_int_equal(pl_pdh_expand_path(s, "\\\\TESTBOX\\Processor(*)\\*", &p, &n, NULL), 0);
    assert_int_equal(n, 9); /* counter-major */
    assert_string_equal(p[0], "\\\\TESTBOX\\Processor(0)\\% Processor Time");
    assert_string_equal(p[2], "\\\\TESTBOX\\Processor(_Total)\\% Processor Time");
    assert_string_equal(p[3], "\\\\TESTBOX\\Processor(0)\\% User Time");
    assert_string_equal(p[8], "\\\\TESTBOX\\Processor(_Total)\\Interrupts/sec");
    pl_free(p);
    assert_int_equal(pl_pdh_expand_path(s, "\\Memory\\*", &p, &n, NULL), 0);
    assert_int_equal(n, 2);
    assert_string_equal(p[1], "\\Memory\\Page Faults/sec");
    pl_free(p);
    assert_int_equal(pl_pdh_expand_path(s, "\\Thread(*/*)\\ID Thread", &p, &n, NULL), 0);
    assert_int_equal(n, 3);
    assert_string_equal(p[2], "\\Thread(svchost/0#1)\\ID Thread");
    pl_free(p);
    assert_int_equal(pl_pdh_expand_path(s, "\\LogicalDisk(*)\\*", &p, &n, NULL), 0);
    assert_int_equal(n, 2); /* the bases are not counters of their own */
    pl_free(p);
    assert_int_equal(pl_pdh_expand_path(s, "\\Memory\\Available Bytes", &p, &n, NULL), 0);
    assert_int_equal(n, 1);
    pl_free(p);
    assert_int_equal(pl_pdh_expand_path(s, "\\Memory(*)\\*", &p, &n, NULL), PL_PDH_CSTATUS_NO_INSTANCE);
    /* issue 11 item 10: partial wildcards, any case; every duplicate */
    assert_int_equal(pl_pdh_expand_path(s, "\\Process(SVC*)\\ID Process", &p, &n, NULL), 0);
    assert_true(n >= 2);
    for (size_t i = 0; i < n; i++) assert_non_null(strstr(p[i], "\\Process(svchost"));
    pl_free(p);
    assert_int_equal(pl_pdh_expand_path(s, "\\Process(*N*T)\\ID Process", &p, &n, NULL), 0);
    assert_int_equal(n, 1);
    assert_string_equal(p[0], "\\Process(init)\\ID Process");
    pl_free(p);
    assert_int_equal(pl_pdh_expand_path(s, "\\Process(pro*#1)\\*", &p, &n, NULL), PL_PDH_CSTATUS_BAD_COUNTERNAME);
}

static void enumerate_and_lookup(void **state)
{
    fx *f = *state;
    char **names = NULL, **ctrs = NULL, **insts = NULL;
    size_t n = 0, nc = 0, ni = 0;
    int has = -1;
    assert_int_equal(pl_pdh_enum_objects(&f->src, 0, &names, &n, NULL), 0);
    assert_string_equal(f->c.last_query, "Global");
    assert_int_equal(n, 6);
    assert_string_equal(names[0], "Processor");
    assert_string_equal(names[5], "LogicalDisk");
    pl_free(names);
    assert_int_equal(pl_pdh_enum_object_items(&f->src, "process", &ctrs, &nc, &insts, &ni, &has, NULL), 0);
    assert_int_equal(has, 1);
    assert_int_equal(nc, 2);
    assert_string_equal(ctrs[0], "ID Process");
    assert_int_equal(ni, 4);
    assert_string_equal(insts[2], "svchost#1");
    pl_free(ctrs);
    pl_free(insts);
    assert_int_equal(pl_pdh_enum_object_items(&f->src, "Memory", &ctrs, &nc, &insts, &ni, &has, NULL), 0);
    assert_int_equal(has, 0);
    assert_int_equal(ni, 0);
    pl_free(ctrs);
    pl_free(insts);
    assert_int_equal(pl_pdh_enum_object_items(&f->src, "Nope", &ctrs, &nc, NULL, NULL, NULL, NULL), PL_PDH_CSTATUS_NO_OBJECT);
    uint32_t idx = 0;
    assert_int_equal(pl_pdh_lookup_index(&f->src, "processor", &idx), 0);
    assert_int_equal(idx, 238);
    assert_int_equal(pl_pdh_lookup_index(&f->src, "System Up Time", &idx), 0);
    assert_int_equal(idx, 674);
    assert_int_equal(pl_pdh_lookup_index(&f->src, "zzz", &idx), PL_PDH_STRING_NOT_FOUND);
    char buf[64];
    size_t sz = sizeof buf;
    assert_int_equal(pl_pdh_lookup_name(&f->src, 6, buf, &sz), 0);
    assert_string_equal(buf, "% Processor Time");
    assert_int_equal(sz, 17);
    sz = 3;
    assert_int_equal(pl_pdh_lookup_name(&f->src, 6, buf, &sz), PL_PDH_MORE_DATA);
    assert_int_equal(sz, 17);
    sz = sizeof buf;
    assert_int_equal(pl_pdh_lookup_name(&f->src, 999999, buf, &sz), PL_PDH_INVALID_ARGUMENT);
}

static void default_language_and_english(void **state)
{
    fx *f = *state;
    pl_pdh_counter *de = add(f, "\\Speicher\\Verf\xC3\xBCgbare Bytes");
    pl_pdh_counter *en = add(f, "\\Memory\\Available Bytes");
    pl_pdh_counter *mix = add(f, "\\Prozessor(_Total)\\% User Time");
    collect(f, 0);
    assert_string_equal(f->c.last_query, "4 238");
    near(dbl(de), 2000000000.0);
    near(dbl(en), 2000000000.0);
    uint32_t idx = 0;
    assert_int_equal(pl_pdh_lookup_index(&f->src, "SPEICHER", &idx), 0);
    assert_int_equal(idx, 4);
    char buf[64];
    size_t sz = sizeof buf;
    assert_int_equal(pl_pdh_lookup_name(&f->src, 238, buf, &sz), 0);
    assert_string_equal(buf, "Prozessor");
    (void)mix;
}

/* Item (name, expected) checks for formatted arrays. */
typedef struct want_item {
    const char *name;
    double value;             /* NAN: expect cstatus `cs` */
    uint32_t cs;
} want_item;

static void expect_items(const pl_pdh_counter *c, uint32_t fmt, const want_item *w, size_t nw)
{
    pl_pdh_value_item *it = NULL;
    size_t n = 0;
    assert_int_equal(pl_pdh_get_formatted_array(c, fmt, &it, &n), 0);
    if (n != nw) { print_error("got %zu items, want %zu\n", n, nw); pl_free(it); fail(); }
    for (size_t i = 0; i < n; i++) {
        if (strcmp(it[i].name, w[i].name) != 0) {
            print_error("item %zu: name \"%s\" want \"%s\"\n", i, it[i].name, w[i].name);
            pl_free(it);
            fail();
        }
        if (isnan(w[i].value)) {
            if (it[i].value.cstatus != w[i].cs) {
                print_error("item %s: cstatus 0x%08x want 0x%08x\n", w[i].name, it[i].value.cstatus, w[i].cs);
                pl_free(it);
                fail();
            }
        } else {
            double got = (fmt & PL_PDH_FMT_LONG)    ? (double)it[i].value.v.long_value
                         : (fmt & PL_PDH_FMT_LARGE) ? (double)it[i].value.v.large_value
                                                    : it[i].value.v.double_value;
            if (it[i].value.cstatus != 0 || fabs(got - w[i].value) > 1e-9 * (fabs(w[i].value) > 1 ? fabs(w[i].value) : 1)) {
                print_error("item %s: %.17g (cstatus 0x%08x) want %.17g\n", w[i].name, got, it[i].value.cstatus, w[i].value);
                pl_free(it);
                fail();
            }
        }
    }
    pl_free(it);
}

#define INV(n) {n, NAN, PL_PDH_CSTATUS_INVALID_DATA}

static void counter_wildcard_instances_and_counters(void **state)
{
    fx *f = *state;
    pl_pdh_counter *all = add(f, "\\Processor(*)\\*");
    pl_pdh_counter_info info;
    assert_int_equal(pl_pdh_get_counter_info(all, &info), 0);
    assert_int_equal(info.type, 0);
    assert_string_equal(info.counter, "*");
    assert_string_equal(info.full_path, "\\\\TESTBOX\\Processor(*)\\*");
    collect(f, 0);
    assert_string_equal(f->c.last_query, "238");
    /* counter-major; a raw-free first sample of rates has no value yet */
    const want_item w0[] = {INV("0\\% Processor Time"), INV("1\\% Processor Time"), INV("_Total\\% Processor Time"),
                            INV("0\\% User Time"), INV("1\\% User Time"), INV("_Total\\% User Time"),
                            INV("0\\Interrupts/sec"), INV("1\\Interrupts/sec"), INV("_Total\\Interrupts/sec")};
    expect_items(all, PL_PDH_FMT_DOUBLE, w0, 9);
    collect(f, 1);
    const want_item w1[] = {{"0\\% Processor Time", 25, 0}, {"1\\% Processor Time", 50, 0},
                            {"_Total\\% Processor Time", 37.5, 0}, {"0\\% User Time", 10, 0},
                            {"1\\% User Time", 20, 0}, {"_Total\\% User Time", 15, 0},
                            {"0\\Interrupts/sec", 250, 0}, {"1\\Interrupts/sec", 125, 0},
                            {"_Total\\Interrupts/sec", 375, 0}};
    expect_items(all, PL_PDH_FMT_DOUBLE, w1, 9);
    /* the scale applies to every item; LONG truncates */
    assert_int_equal(pl_pdh_set_scale(all, -1), 0);
    const want_item w1s[] = {{"0\\% Processor Time", 2, 0}, {"1\\% Processor Time", 5, 0},
                             {"_Total\\% Processor Time", 3, 0}, {"0\\% User Time", 1, 0},
                             {"1\\% User Time", 2, 0}, {"_Total\\% User Time", 1, 0},
                             {"0\\Interrupts/sec", 25, 0}, {"1\\Interrupts/sec", 12, 0},
                             {"_Total\\Interrupts/sec", 37, 0}};
    expect_items(all, PL_PDH_FMT_LONG, w1s, 9);
    /* no single value, type or raw sample */
    pl_pdh_value v;
    pl_pdh_raw r = {0};
    assert_int_equal(pl_pdh_get_formatted(all, PL_PDH_FMT_DOUBLE, NULL, &v), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl_pdh_get_raw(all, NULL, &r), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl_pdh_calculate(all, PL_PDH_FMT_DOUBLE, &r, &r, &v), PL_PDH_INVALID_ARGUMENT);
    pl_pdh_stats stt;
    assert_int_equal(pl_pdh_statistics(all, PL_PDH_FMT_DOUBLE, 0, 1, &r, &stt), PL_PDH_INVALID_ARGUMENT);
}

static void counter_wildcard_follows_data(void **state)
{
    fx *f = *state;
    pl_pdh_counter *procs = add(f, "\\Process(*)\\*");
    pl_pdh_counter *mem = add(f, "\\Memory\\*");
    pl_pdh_counter *tot = add(f, "\\Processor(_Total)\\*");
    pl_pdh_counter *gone = add(f, "\\Process(bash)\\*");
    pl_pdh_counter *disk = add(f, "\\LogicalDisk(*)\\*");
    collect(f, 0);
    assert_string_equal(f->c.last_query, "230 4 238 236");
    const want_item p0[] = {{"init\\ID Process", 1, 0}, {"svchost\\ID Process", 100, 0},
                            {"svchost#1\\ID Process", 200, 0}, {"bash\\ID Process", 300, 0},
                            INV("init\\% Processor Time"), INV("svchost\\% Processor Time"),
                            INV("svchost#1\\% Processor Time"), INV("bash\\% Processor Time")};
    expect_items(procs, PL_PDH_FMT_DOUBLE, p0, 8);
    const want_item m0[] = {{"Available Bytes", 2000000000.0, 0}, INV("Page Faults/sec")};
    expect_items(mem, PL_PDH_FMT_DOUBLE, m0, 2);
    const want_item b0[] = {{"bash\\ID Process", 300, 0}, INV("bash\\% Processor Time")};
    expect_items(gone, PL_PDH_FMT_DOUBLE, b0, 2);
    /* the bases are not items; a fraction needs one sample, an average two */
    const want_item d0[] = {{"C:\\% Free Space", 12.5, 0}, INV("C:\\Avg. Disk sec/Transfer")};
    expect_items(disk, PL_PDH_FMT_DOUBLE, d0, 2);
    collect(f, 1);
    /* bash left, python came: its rate has no older sample */
    const want_item p1[] = {{"init\\ID Process", 1, 0}, {"svchost\\ID Process", 100, 0},
                            {"svchost#1\\ID Process", 200, 0}, {"python\\ID Process", 400, 0},
                            {"init\\% Processor Time", 0.01, 0}, {"svchost\\% Processor Time", 1, 0},
                            {"svchost#1\\% Processor Time", 2, 0}, INV("python\\% Processor Time")};
    expect_items(procs, PL_PDH_FMT_DOUBLE, p1, 8);
    const want_item m1[] = {{"Available Bytes", 1998951424.0, 0}, {"Page Faults/sec", 100, 0}};
    expect_items(mem, PL_PDH_FMT_DOUBLE, m1, 2);
    const want_item t1[] = {{"_Total\\% Processor Time", 37.5, 0}, {"_Total\\% User Time", 15, 0},
                            {"_Total\\Interrupts/sec", 375, 0}};
    expect_items(tot, PL_PDH_FMT_DOUBLE, t1, 3);
    /* a named instance that left keeps its items, with NO_INSTANCE */
    const want_item b1[] = {{"bash\\ID Process", NAN, PL_PDH_CSTATUS_NO_INSTANCE},
                            {"bash\\% Processor Time", NAN, PL_PDH_CSTATUS_NO_INSTANCE}};
    expect_items(gone, PL_PDH_FMT_DOUBLE, b1, 2);
    collect(f, 2);
    const want_item p2[] = {{"init\\ID Process", 1, 0}, {"svchost\\ID Process", 100, 0},
                            {"svchost#1\\ID Process", 200, 0}, {"svchost#2\\ID Process", 250, 0},
                            {"python\\ID Process", 400, 0}, {"init\\% Processor Time", 0.01, 0},
                            {"svchost\\% Processor Time", 1, 0}, {"svchost#1\\% Processor Time", 2, 0},
                            INV("svchost#2\\% Processor Time"), {"python\\% Processor Time", 4, 0}};
    expect_items(procs, PL_PDH_FMT_DOUBLE, p2, 10);
    const want_item m2[] = {{"Available Bytes", 1997902848.0, 0}, {"Page Faults/sec", 300, 0}};
    expect_items(mem, PL_PDH_FMT_DOUBLE, m2, 2);
    const want_item d2[] = {{"C:\\% Free Space", 12.5, 0}, {"C:\\Avg. Disk sec/Transfer", 0.05, 0}};
    expect_items(disk, PL_PDH_FMT_DOUBLE, d2, 2);
    /* removing one wildcard counter leaves the others intact */
    assert_int_equal(pl_pdh_remove_counter(procs), 0);
    collect(f, 3);
    assert_string_equal(f->c.last_query, "4 238 230 236"); /* \Process(bash)\* still needs Process */
    const want_item m3[] = {{"Available Bytes", 1996854272.0, 0}, {"Page Faults/sec", 500, 0}};
    expect_items(mem, PL_PDH_FMT_DOUBLE, m3, 2);
}

static void parent_wildcards_with_counter_wildcard(void **state)
{
    fx *f = *state;
    pl_pdh_counter *th = add(f, "\\Thread(*/*)\\ID Thread");
    pl_pdh_counter *thall = add(f, "\\Thread(*/*)\\*");
    pl_pdh_counter *th0 = add(f, "\\Thread(svchost/0#1)\\*");
    collect(f, 0);
    const want_item a[] = {{"svchost/0", 1001, 0}, {"svchost/1", 1002, 0}, {"svchost/0#1", 2001, 0}};
    expect_items(th, PL_PDH_FMT_LONG, a, 3);
    const want_item b[] = {{"svchost/0\\ID Thread", 1001, 0}, {"svchost/1\\ID Thread", 1002, 0},
                           {"svchost/0#1\\ID Thread", 2001, 0}};
    expect_items(thall, PL_PDH_FMT_LONG, b, 3);
    const want_item c[] = {{"svchost/0#1\\ID Thread", 2001, 0}};
    expect_items(th0, PL_PDH_FMT_LARGE, c, 1);
}

static void expand_counter_wildcards(void **state)
{
    fx *f = *state;
    const pl_pdh_source *s = &f->src;
    char **p = NULL;
    size_t n = 0;
    assert_int_equal(pl_pdh_expand_path(s, "\\Process(*)\\*", &p, &n, NULL), 0);
    assert_int_equal(n, 8);
    assert_string_equal(p[0], "\\Process(init)\\ID Process");
    assert_string_equal(p[3], "\\Process(bash)\\ID Process");
    assert_string_equal(p[4], "\\Process(init)\\% Processor Time");
    assert_string_equal(p[6], "\\Process(svchost#1)\\% Processor Time");
    assert_null(p[8]);
    pl_free(p);
    assert_int_equal(pl_pdh_expand_path(s, "\\Processor(_Total)\\*", &p, &n, NULL), 0);
    assert_int_equal(n, 3);
    assert_string_equal(p[0], "\\Processor(_Total)\\% Processor Time");
    assert_string_equal(p[2], "\\Processor(_Total)\\Interrupts/sec");
    pl_free(p);
    assert_int_equal(pl_pdh_expand_path(s, "\\Thread(*/*)\\*", &p, &n, NULL), 0);
    assert_int_equal(n, 3);
    assert_string_equal(p[0], "\\Thread(svchost/0)\\ID Thread");
    assert_string_equal(p[2], "\\Thread(svchost/0#1)\\ID Thread");
    pl_free(p);
    /* instances follow the data: at sample 2 svchost#2 and python are there */
    f->c.cur = 2;
    assert_int_equal(pl_pdh_expand_path(s, "\\Process(*)\\*", &p, &n, NULL), 0);
    assert_int_equal(n, 10);
    assert_string_equal(p[3], "\\Process(svchost#2)\\ID Process");
    assert_string_equal(p[9], "\\Process(python)\\% Processor Time");
    pl_free(p);
    /* every expanded path can be added and read */
    assert_int_equal(pl_pdh_expand_path(s, "\\Memory\\*", &p, &n, NULL), 0);
    assert_int_equal(n, 2);
    pl_pdh_counter *c0 = add(f, p[0]);
    pl_pdh_counter *c1 = add(f, p[1]);
    pl_free(p);
    collect(f, 2);
    collect(f, 3);
    near(dbl(c0), 1996854272.0);
    near(dbl(c1), 500.0);
    assert_int_equal(pl_pdh_expand_path(s, "\\Memory\\* ", &p, &n, NULL), PL_PDH_CSTATUS_BAD_COUNTERNAME);
    assert_int_equal(pl_pdh_expand_path(s, "\\Memory\\**", &p, &n, NULL), PL_PDH_CSTATUS_BAD_COUNTERNAME);
    /* error messages name the object and machine (and are built before the data is freed) */
    pl_error err = {0};
    assert_int_equal(pl_pdh_expand_path(s, "\\Memory(*)\\*", &p, &n, &err), PL_PDH_CSTATUS_NO_INSTANCE);
    assert_string_equal(err.msg, "object \"Memory\" has no instances");
    assert_int_equal(pl_pdh_expand_path(s, "\\\\FAR\\Memory\\*", &p, &n, &err), PL_PDH_CSTATUS_NO_MACHINE);
    assert_string_equal(err.msg, "machine \"FAR\": collecting \"Foreign FAR 4\" failed: no such machine");
}

/* PDH_RAW_COUNTER.TimeStamp is local time on Windows: ours too. POSIX TZ
 * strings need no tzdata. The canned samples are in January (2024-01-15
 * 10:00:0k UTC). */
static void raw_timestamp_is_local_time(void **state)
{
    fx *f = *state;
    pl_pdh_counter *mem = add(f, "\\Memory\\Available Bytes");
    pl_pdh_counter *ids = add(f, "\\Process(*)\\ID Process");
    pl_pdh_raw r;
    const int64_t hour = 36000000000LL;
    setenv("TZ", "UTC0", 1);
    collect(f, 1);
    assert_int_equal(pl_pdh_get_raw(mem, NULL, &r), 0);
    assert_true(r.timestamp == CANNED_FT(1));
    assert_true(pl_pdh_query_time(f->q) == CANNED_FT(1)); /* the query time stays UTC */
    setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1); /* winter: UTC+1 */
    collect(f, 2);
    assert_int_equal(pl_pdh_get_raw(mem, NULL, &r), 0);
    assert_true(r.timestamp == CANNED_FT(2) + hour);
    assert_true(pl_pdh_query_time(f->q) == CANNED_FT(2));
    setenv("TZ", "EST5EDT,M3.2.0,M11.1.0", 1); /* winter: UTC-5 */
    collect(f, 3);
    assert_int_equal(pl_pdh_get_raw(mem, NULL, &r), 0);
    assert_true(r.timestamp == CANNED_FT(3) - 5 * hour);
    /* wildcard items carry the same stamp */
    {
        pl_pdh_value_item *it = NULL;
        size_t n = 0;
        assert_int_equal(pl_pdh_get_formatted_array(ids, PL_PDH_FMT_LONG, &it, &n), 0);
        assert_int_equal(n, 5);
        pl_free(it);
    }
    /* the conversion itself, with daylight saving: 2024-07-01 12:00 UTC */
    const int64_t july = 133643088000000000LL;
    setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
    assert_true(pl__pdh_local_filetime(july) == july + 2 * hour);
    setenv("TZ", "EST5EDT,M3.2.0,M11.1.0", 1);
    assert_true(pl__pdh_local_filetime(july) == july - 4 * hour);
    setenv("TZ", "UTC0", 1);
    assert_true(pl__pdh_local_filetime(july) == july);
    assert_true(pl__pdh_local_filetime(0) == 0);
    /* a counter's stored raw sample keeps the stamp of its collect */
    setenv("TZ", "XST-9", 1);
    assert_int_equal(pl_pdh_get_raw(mem, NULL, &r), 0);
    assert_true(r.timestamp == CANNED_FT(3) - 5 * hour);
    unsetenv("TZ");
    tzset();
}

/* The one time base (pl_pdh_time_base): tick types on the block's clock,
 * 100 ns types on the block's PerfTime in 100 ns (pl_pdh_time_100ns, not
 * the wall clock's PerfTime100nSec: issue 33), object-timer types and
 * ELAPSED_TIME on the object's own clock; different clocks, so a mix-up
 * shows. */
static void time_base_of_each_timer(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    assert_non_null(b);
    pl_object_desc od = {.name_index = 238, .help_index = 239, .perf_time = 777000, .perf_freq = 1000};
    int obj, ctr;
    assert_int_equal(pl_builder_add_object(b, &od, &obj), PL_OK);
    pl_counter_desc cd = {.name_index = 6, .help_index = 7, .type = PERF_COUNTER_TIMER};
    assert_int_equal(pl_builder_add_counter(b, obj, &cd, &ctr), PL_OK);
    size_t olen = pl_builder_size(b), hlen = 0, used;
    pl_block_header h = {.system_name = "TB", .perf_freq = 3000000, .perf_time = 5000000, .perf_time_100ns = CANNED_FT0};
    pl_block_write_header(&h, 1, olen, NULL, 0, &hlen);
    uint8_t *buf = calloc(1, hlen + olen);
    assert_non_null(buf);
    uint32_t n;
    assert_int_equal(pl_builder_emit(b, buf + hlen, olen, &used, &n), PL_OK);
    assert_int_equal(pl_block_write_header(&h, n, olen, buf, hlen, &used), PL_OK);
    pl_builder_free(b);
    pl_block blk;
    pl_object o;
    assert_int_equal(pl_block_open(&blk, buf, hlen + olen, 0, 0, NULL), PL_OK);
    assert_int_equal(pl_block_object(&blk, 0, &o), PL_OK);
    const int64_t t100 = 16666666; /* 5,000,000 ticks at 3 MHz, in 100 ns */
    assert_true(pl_pdh_time_100ns(5000000, 3000000, CANNED_FT0) == t100);
    const struct { uint32_t type; int64_t time, freq; } want[] = {
        {PERF_COUNTER_TIMER, 5000000, 3000000},          {PERF_COUNTER_COUNTER, 5000000, 3000000},
        {PERF_COUNTER_QUEUELEN_TYPE, 5000000, 3000000},  {PERF_PRECISION_SYSTEM_TIMER, 5000000, 3000000},
        {PERF_100NSEC_TIMER, t100, 10000000},      {PERF_100NSEC_MULTI_TIMER_INV, t100, 10000000},
        {PERF_PRECISION_100NS_TIMER, t100, 10000000}, {PERF_COUNTER_100NS_QUEUELEN_TYPE, t100, 10000000},
        {PERF_OBJ_TIME_TIMER, 777000, 1000},             {PERF_PRECISION_OBJECT_TIMER, 777000, 1000},
        {PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, 777000, 1000}, {PERF_ELAPSED_TIME, 777000, 1000},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int64_t t = -1, f = -1;
        pl_pdh_time_base(&blk, &o, want[i].type, &t, &f);
        if (t != want[i].time || f != want[i].freq)
            fail_msg("type 0x%08x: time %lld freq %lld, want %lld %lld", want[i].type, (long long)t, (long long)f,
                     (long long)want[i].time, (long long)want[i].freq);
    }
    int64_t f = 0;
    pl_pdh_time_base(&blk, &o, PERF_OBJ_TIME_TIMER, NULL, &f); /* either output may be left out */
    assert_int_equal(f, 1000);
    free(buf);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(two_counters_three_samples, setup, teardown),
        cmocka_unit_test_setup_teardown(wildcard_follows_instances, setup, teardown),
        cmocka_unit_test_setup_teardown(duplicates_and_missing_instances, setup, teardown),
        cmocka_unit_test_setup_teardown(parents, setup, teardown),
        cmocka_unit_test_setup_teardown(other_types_through_blocks, setup, teardown),
        cmocka_unit_test_setup_teardown(unavailable_values_are_invalid_data, setup, teardown),
        cmocka_unit_test_setup_teardown(errors, setup, teardown),
        cmocka_unit_test_setup_teardown(scale_info_and_raw_calc, setup, teardown),
        cmocka_unit_test_setup_teardown(validate_and_expand, setup, teardown),
        cmocka_unit_test_setup_teardown(enumerate_and_lookup, setup, teardown),
        cmocka_unit_test_setup_teardown(default_language_and_english, setup_de, teardown),
        cmocka_unit_test_setup_teardown(counter_wildcard_instances_and_counters, setup, teardown),
        cmocka_unit_test_setup_teardown(counter_wildcard_follows_data, setup, teardown),
        cmocka_unit_test_setup_teardown(parent_wildcards_with_counter_wildcard, setup, teardown),
        cmocka_unit_test_setup_teardown(expand_counter_wildcards, setup, teardown),
        cmocka_unit_test_setup_teardown(raw_timestamp_is_local_time, setup, teardown),
        cmocka_unit_test(time_base_of_each_timer),
    };
    return pl_test_run(tests, argc, argv);
}
