/* Golden values for every counter type, worked out by hand from
 * reference/counter-formulas.md on fixed synthetic samples, plus flags,
 * scale, cap, first-sample, backwards and statistics cases. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pdh_internal.h"
#include "perflib/winperf.h"
#include "pl_test.h"
#include "win32/pdhmsg.h"

#define F 10000000LL             /* PerfFreq */
#define D0 1000000000LL          /* PerfTime of the older sample */
#define D1 1020000000LL          /* newer: 2 s later */
#define T0 132000000000000000LL  /* PerfTime100nSec older */
#define T1 (T0 + 10000000LL)     /* newer: 1 s later */

static pl_pdh_raw R(int64_t first, int64_t second, uint32_t multi)
{
    pl_pdh_raw r = {PL_PDH_CSTATUS_VALID_DATA, T1, first, second, multi};
    return r;
}

/* One golden case: type, freq, newer, older, expected double, LONG, LARGE. */
static void check(uint32_t type, int64_t freq, pl_pdh_raw r1, const pl_pdh_raw *r0, double want, int32_t wl, int64_t wq)
{
    pl_pdh_value v;
    assert_int_equal(pl_pdh_calc_type(type, freq, 0, PL_PDH_FMT_DOUBLE, &r1, r0, &v), PL_PDH_CSTATUS_VALID_DATA);
    assert_int_equal(v.cstatus, PL_PDH_CSTATUS_VALID_DATA);
    if (fabs(v.v.double_value - want) > 1e-9 * (fabs(want) > 1 ? fabs(want) : 1)) {
        print_error("type 0x%08x: got %.17g want %.17g\n", type, v.v.double_value, want);
        fail();
    }
    assert_int_equal(pl_pdh_calc_type(type, freq, 0, PL_PDH_FMT_LONG, &r1, r0, &v), 0);
    assert_int_equal(v.v.long_value, wl);
    assert_int_equal(pl_pdh_calc_type(type, freq, 0, PL_PDH_FMT_LARGE, &r1, r0, &v), 0);
    assert_true(v.v.large_value == wq);
}

static void rate_types(void **state)
{
    (void)state;
    pl_pdh_raw o;
    /* (N1-N0)/((D1-D0)/F): 250 over 2 s */
    o = R(100, D0, 0);
    check(PERF_COUNTER_COUNTER, F, R(350, D1, 0), &o, 125.0, 125, 125);
    o = R(1000000000LL, D0, 0);
    check(PERF_COUNTER_BULK_COUNT, F, R(1003000001LL, D1, 0), &o, 1500000.5, 1500000, 1500000);
    o = R(0, D0, 0);
    check(PERF_SAMPLE_COUNTER, F, R(7, D1, 0), &o, 3.5, 3, 3);
}

static void queue_types(void **state)
{
    (void)state;
    pl_pdh_raw o;
    /* (N1-N0)/(D1-D0) */
    o = R(0, D0, 0);
    check(PERF_COUNTER_QUEUELEN_TYPE, F, R(50000000, D1, 0), &o, 2.5, 2, 2);
    o = R(10, D0, 0);
    check(PERF_COUNTER_LARGE_QUEUELEN_TYPE, F, R(5000010, D1, 0), &o, 0.25, 0, 0);
    o = R(0, T0, 0);
    check(PERF_COUNTER_100NS_QUEUELEN_TYPE, 10000000, R(30000000, T1, 0), &o, 3.0, 3, 3);
    o = R(500, 5000, 0);
    check(PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, 1000, R(2000, 6000, 0), &o, 1.5, 1, 1);
}

static void timer_types(void **state)
{
    (void)state;
    pl_pdh_raw o;
    o = R(0, D0, 0);
    check(PERF_COUNTER_TIMER, F, R(5000000, D1, 0), &o, 25.0, 25, 25);          /* 100*5e6/2e7 */
    check(PERF_COUNTER_TIMER_INV, F, R(15000000, D1, 0), &o, 25.0, 25, 25);     /* 100*(1-0.75) */
    o = R(0, T0, 0);
    check(PERF_100NSEC_TIMER, 10000000, R(3333333, T1, 0), &o, 33.33333, 33, 33);
    check(PERF_100NSEC_TIMER_INV, 10000000, R(9000000, T1, 0), &o, 10.0, 10, 10);
    o = R(1000, 5000, 0);
    check(PERF_OBJ_TIME_TIMER, 1000, R(1250, 6000, 0), &o, 25.0, 25, 25);
}

static void multi_timer_types(void **state)
{
    (void)state;
    pl_pdh_raw o;
    /* Decision (pdh_calc.c): 100*(dN/dD)/B and 100*(B - dN/dD)/B, no F. */
    o = R(0, D0, 4);
    check(PERF_COUNTER_MULTI_TIMER, F, R(60000000, D1, 4), &o, 75.0, 75, 75);
    check(PERF_COUNTER_MULTI_TIMER_INV, F, R(60000000, D1, 4), &o, 25.0, 25, 25);
    o = R(0, T0, 8);
    check(PERF_100NSEC_MULTI_TIMER, 10000000, R(20000000, T1, 8), &o, 25.0, 25, 25);
    check(PERF_100NSEC_MULTI_TIMER_INV, 10000000, R(20000000, T1, 8), &o, 75.0, 75, 75);
    /* the inverse is the complement of the non-inverse type */
    pl_pdh_value a, b;
    pl_pdh_raw n1 = R(33000000, T1, 8);
    assert_int_equal(pl_pdh_calc_type(PERF_100NSEC_MULTI_TIMER, F, 0, PL_PDH_FMT_DOUBLE, &n1, &o, &a), 0);
    assert_int_equal(pl_pdh_calc_type(PERF_100NSEC_MULTI_TIMER_INV, F, 0, PL_PDH_FMT_DOUBLE, &n1, &o, &b), 0);
    assert_true(fabs(a.v.double_value + b.v.double_value - 100.0) < 1e-9);
    assert_true(fabs(a.v.double_value - 41.25) < 1e-9);
}

static void fraction_types(void **state)
{
    (void)state;
    pl_pdh_raw o;
    check(PERF_RAW_FRACTION, F, R(25, 200, 0), NULL, 12.5, 12, 12);
    check(PERF_LARGE_RAW_FRACTION, F, R(1LL << 40, 1LL << 42, 0), NULL, 25.0, 25, 25);
    o = R(10, 100, 0);
    check(PERF_SAMPLE_FRACTION, F, R(13, 108, 0), &o, 37.5, 37, 37);
    /* ((N1-N0)/F)/(B1-B0): 3 s over 6 operations */
    o = R(0, 10, 0);
    check(PERF_AVERAGE_TIMER, F, R(30000000, 16, 0), &o, 0.5, 0, 0);
    o = R(1000, 2, 0);
    check(PERF_AVERAGE_BULK, F, R(5096, 6, 0), &o, 1024.0, 1024, 1024);
}

static void precision_types(void **state)
{
    (void)state;
    pl_pdh_raw o = R(0, 0, 0);
    check(PERF_PRECISION_SYSTEM_TIMER, F, R(5000000, 20000000, 0), &o, 25.0, 25, 25);
    o = R(1000, 0, 0);
    check(PERF_PRECISION_100NS_TIMER, 10000000, R(1001000, 2000000, 0), &o, 50.0, 50, 50);
    o = R(0, 0, 0);
    check(PERF_PRECISION_OBJECT_TIMER, 1000, R(3, 4, 0), &o, 75.0, 75, 75);
}

static void value_types(void **state)
{
    (void)state;
    pl_pdh_raw o = R(7, 0, 0);
    check(PERF_COUNTER_DELTA, F, R(12, 0, 0), &o, 5.0, 5, 5);
    o = R(1LL << 33, 0, 0);
    check(PERF_COUNTER_LARGE_DELTA, F, R((1LL << 33) + 9, 0, 0), &o, 9.0, 9, 9);
    /* LONG saturates; LARGE keeps the value */
    check(PERF_COUNTER_RAWCOUNT, F, R(4294967295LL, 0, 0), NULL, 4294967295.0, INT32_MAX, 4294967295LL);
    check(PERF_COUNTER_LARGE_RAWCOUNT, F, R(123456789012LL, 0, 0), NULL, 123456789012.0, INT32_MAX, 123456789012LL);
    check(PERF_COUNTER_RAWCOUNT_HEX, F, R(0xBEEF, 0, 0), NULL, 48879.0, 48879, 48879);
    check(PERF_COUNTER_LARGE_RAWCOUNT_HEX, F, R(0x100000000LL, 0, 0), NULL, 4294967296.0, INT32_MAX, 4294967296LL);
    check(PERF_COUNTER_RAWCOUNT, F, R(-5, 0, 0), NULL, -5.0, -5, -5);
}

static void elapsed_time(void **state)
{
    (void)state;
    /* (D-N)/F with the object's time: 100 s - 40 s */
    check(PERF_ELAPSED_TIME, F, R(400000000, 1000000000, 0), NULL, 60.0, 60, 60);
    check(PERF_ELAPSED_TIME, 1000, R(1500, 4000, 0), NULL, 2.5, 2, 2);
    check(PERF_ELAPSED_TIME, F, R(0, 1000000000, 0), NULL, 0.0, 0, 0);          /* no start time */
    check(PERF_ELAPSED_TIME, F, R(1000000001, 1000000000, 0), NULL, 0.0, 0, 0); /* start in the future */
    pl_pdh_value v;
    pl_pdh_raw r = R(1, 2, 0);
    assert_int_equal(pl_pdh_calc_type(PERF_ELAPSED_TIME, 0, 0, PL_PDH_FMT_DOUBLE, &r, NULL, &v), PL_PDH_CALC_NEGATIVE_TIMEBASE);
}

static void not_displayable(void **state)
{
    (void)state;
    const uint32_t types[] = {PERF_SAMPLE_BASE, PERF_AVERAGE_BASE, PERF_RAW_BASE, PERF_LARGE_RAW_BASE,
                              PERF_COUNTER_MULTI_BASE, PERF_COUNTER_TEXT, PERF_COUNTER_NODATA,
                              PERF_COUNTER_HISTOGRAM_TYPE, 0x12345678u};
    pl_pdh_raw r = R(5, 5, 1);
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        pl_pdh_value v;
        v.cstatus = 77;
        assert_int_equal(pl_pdh_calc_type(types[i], F, 0, PL_PDH_FMT_DOUBLE, &r, &r, &v), PL_PDH_INVALID_DATA);
        assert_int_equal(v.cstatus, PL_PDH_CSTATUS_INVALID_DATA);
        assert_true(v.v.double_value == 0.0);
        assert_false(pl__pdh_displayable(types[i]));
    }
}

static void cap_and_flags(void **state)
{
    (void)state;
    pl_pdh_value v;
    pl_pdh_raw o = R(0, D0, 0), n = R(25000000, D1, 0); /* 125 % */
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_TIMER, F, 0, PL_PDH_FMT_DOUBLE, &n, &o, &v), 0);
    assert_true(v.v.double_value == 100.0);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_TIMER, F, 0, PL_PDH_FMT_DOUBLE | PL_PDH_FMT_NOCAP100, &n, &o, &v), 0);
    assert_true(v.v.double_value == 125.0);
    /* cap first, then scale: 100 * 10 */
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_TIMER, F, 1, PL_PDH_FMT_LONG, &n, &o, &v), 0);
    assert_int_equal(v.v.long_value, 1000);
    /* non-percent types are never capped */
    pl_pdh_raw c = R(1234, 0, 0);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_RAWCOUNT, F, 0, PL_PDH_FMT_DOUBLE, &c, NULL, &v), 0);
    assert_true(v.v.double_value == 1234.0);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_RAWCOUNT, F, -2, PL_PDH_FMT_DOUBLE, &c, NULL, &v), 0);
    assert_true(fabs(v.v.double_value - 12.34) < 1e-12);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_RAWCOUNT, F, -2, PL_PDH_FMT_DOUBLE | PL_PDH_FMT_NOSCALE, &c, NULL, &v), 0);
    assert_true(v.v.double_value == 1234.0);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_RAWCOUNT, F, 0, PL_PDH_FMT_LONG | PL_PDH_FMT_1000, &c, NULL, &v), 0);
    assert_int_equal(v.v.long_value, 1234000);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_RAWCOUNT, F, 3, PL_PDH_FMT_LARGE | PL_PDH_FMT_1000, &c, NULL, &v), 0);
    assert_true(v.v.large_value == 1234000000LL);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_RAWCOUNT, F, 7, PL_PDH_FMT_LARGE, &c, NULL, &v), 0);
    assert_true(v.v.large_value == 12340000000LL);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_RAWCOUNT, F, -7, PL_PDH_FMT_LONG, &c, NULL, &v), 0);
    assert_int_equal(v.v.long_value, 0);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_RAWCOUNT, F, -1, PL_PDH_FMT_LONG | PL_PDH_FMT_NOSCALE | PL_PDH_FMT_1000, &c, NULL, &v), 0);
    assert_int_equal(v.v.long_value, 1234000);
    /* bad scale and format */
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_RAWCOUNT, F, 8, PL_PDH_FMT_LONG, &c, NULL, &v), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_RAWCOUNT, F, -8, PL_PDH_FMT_LONG, &c, NULL, &v), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_RAWCOUNT, F, 0, PL_PDH_FMT_LONG | PL_PDH_FMT_DOUBLE, &c, NULL, &v), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_RAWCOUNT, F, 0, PL_PDH_FMT_NOSCALE, &c, NULL, &v), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_RAWCOUNT, F, 0, PL_PDH_FMT_LONG, &c, NULL, NULL), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_RAWCOUNT, F, 0, PL_PDH_FMT_LONG, NULL, NULL, &v), PL_PDH_INVALID_ARGUMENT);
}

static void inverse_never_negative(void **state)
{
    (void)state;
    pl_pdh_value v;
    pl_pdh_raw o = R(0, D0, 2), n = R(21000000, D1, 2); /* idle 105 % of elapsed */
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_TIMER_INV, F, 0, PL_PDH_FMT_DOUBLE, &n, &o, &v), 0);
    assert_true(v.v.double_value == 0.0);
    n.first = 41000000; /* 2.05 of 2 items idle */
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_MULTI_TIMER_INV, F, 0, PL_PDH_FMT_DOUBLE, &n, &o, &v), 0);
    assert_true(v.v.double_value == 0.0);
}

static void first_sample_and_bad_pairs(void **state)
{
    (void)state;
    pl_pdh_value v;
    pl_pdh_raw n = R(350, D1, 0), o = R(100, D0, 0);
    /* first sample: no older value */
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_COUNTER, F, 0, PL_PDH_FMT_DOUBLE, &n, NULL, &v), PL_PDH_INVALID_DATA);
    assert_int_equal(v.cstatus, PL_PDH_CSTATUS_INVALID_DATA);
    pl_pdh_raw none = {PL_PDH_CSTATUS_INVALID_DATA, 0, 0, 0, 0};
    assert_int_equal(pl_pdh_calc_type(PERF_AVERAGE_BULK, F, 0, PL_PDH_FMT_DOUBLE, &n, &none, &v), PL_PDH_INVALID_DATA);
    assert_int_equal(v.cstatus, PL_PDH_CSTATUS_INVALID_DATA);
    /* the newer sample is missing its instance */
    pl_pdh_raw gone = {PL_PDH_CSTATUS_NO_INSTANCE, 0, 0, 0, 0};
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_RAWCOUNT, F, 0, PL_PDH_FMT_DOUBLE, &gone, NULL, &v), PL_PDH_INVALID_DATA);
    assert_int_equal(v.cstatus, PL_PDH_CSTATUS_NO_INSTANCE);
    /* went backwards (64-bit types: a 32-bit one wrapped, see
     * dword_wrap_unwrapped_once) */
    pl_pdh_raw later = R(100, D1 + 1, 0);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_BULK_COUNT, F, 0, PL_PDH_FMT_DOUBLE, &later, &n, &v),
                     PL_PDH_CALC_NEGATIVE_VALUE);
    assert_int_equal(v.cstatus, PL_PDH_CALC_NEGATIVE_VALUE);
    assert_true(v.v.double_value == 0.0);
    pl_pdh_raw d0 = R(12, 0, 0), d1 = R(7, 0, 0);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_LARGE_DELTA, F, 0, PL_PDH_FMT_LONG, &d1, &d0, &v),
                     PL_PDH_CALC_NEGATIVE_VALUE);
    /* same time twice, time going backwards, frequency 0 */
    pl_pdh_raw same = R(400, D0, 0);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_COUNTER, F, 0, PL_PDH_FMT_DOUBLE, &same, &o, &v), PL_PDH_CALC_NEGATIVE_TIMEBASE);
    assert_int_equal(pl_pdh_calc_type(PERF_100NSEC_TIMER, F, 0, PL_PDH_FMT_DOUBLE, &same, &o, &v), PL_PDH_CALC_NEGATIVE_TIMEBASE);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_COUNTER, 0, 0, PL_PDH_FMT_DOUBLE, &n, &o, &v), PL_PDH_CALC_NEGATIVE_TIMEBASE);
    /* zero denominators */
    pl_pdh_raw f0 = R(5, 0, 0);
    assert_int_equal(pl_pdh_calc_type(PERF_RAW_FRACTION, F, 0, PL_PDH_FMT_DOUBLE, &f0, NULL, &v), PL_PDH_CALC_NEGATIVE_DENOMINATOR);
    assert_int_equal(v.cstatus, PL_PDH_CALC_NEGATIVE_DENOMINATOR);
    pl_pdh_raw a0 = R(0, 10, 0), a1 = R(100, 10, 0);
    assert_int_equal(pl_pdh_calc_type(PERF_AVERAGE_TIMER, F, 0, PL_PDH_FMT_DOUBLE, &a1, &a0, &v), PL_PDH_CALC_NEGATIVE_DENOMINATOR);
    assert_int_equal(pl_pdh_calc_type(PERF_SAMPLE_FRACTION, F, 0, PL_PDH_FMT_DOUBLE, &a1, &a0, &v), PL_PDH_CALC_NEGATIVE_DENOMINATOR);
    pl_pdh_raw b1 = R(100, 9, 0);
    /* an 8-byte base that went back (a 4-byte one wrapped) */
    assert_int_equal(pl__pdh_calc(PERF_AVERAGE_BULK, 0, F, 0, PL_PDH_FMT_DOUBLE, &b1, &a0, &v), PL_PDH_CALC_NEGATIVE_VALUE);
    pl_pdh_raw m0 = R(0, D0, 0), m1 = R(10, D1, 0);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_MULTI_TIMER, F, 0, PL_PDH_FMT_DOUBLE, &m1, &m0, &v), PL_PDH_CALC_NEGATIVE_DENOMINATOR);
    /* single-sample types ignore the older sample */
    pl_pdh_raw rc = R(9, 0, 0);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_RAWCOUNT, F, 0, PL_PDH_FMT_LONG, &rc, &none, &v), 0);
    assert_int_equal(v.v.long_value, 9);
}

/* Review: extreme raw values. The delta of two LONGLONG samples used to be
 * computed with a signed subtraction, which overflows (undefined behaviour,
 * caught by UBSan) when the samples lie more than 2^63 apart, e.g. a 64-bit
 * counter stored as UINT64_MAX (-1) followed by INT64_MAX. The comparison
 * stays signed (PDH_RAW_COUNTER holds LONGLONG, docs/pdh.md); the difference
 * is now taken exactly in unsigned arithmetic. */
static void extreme_deltas_exact(void **state)
{
    (void)state;
    pl_pdh_value v;
    pl_pdh_raw o = R(-1, D0, 0), n = R(INT64_MAX, D0 + F, 0);
    /* 2^63 counts in one second */
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_BULK_COUNT, F, 0, PL_PDH_FMT_DOUBLE, &n, &o, &v), 0);
    assert_true(v.v.double_value == 9223372036854775808.0);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_BULK_COUNT, F, 0, PL_PDH_FMT_LARGE, &n, &o, &v), 0);
    assert_true(v.v.large_value == INT64_MAX); /* saturates */
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_BULK_COUNT, F, 0, PL_PDH_FMT_LONG, &n, &o, &v), 0);
    assert_int_equal(v.v.long_value, INT32_MAX);
    /* the whole range: INT64_MIN -> INT64_MAX is 2^64 - 1 */
    o = R(INT64_MIN, 0, 0);
    n = R(INT64_MAX, 0, 0);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_LARGE_DELTA, F, 0, PL_PDH_FMT_DOUBLE, &n, &o, &v), 0);
    assert_true(v.v.double_value == 18446744073709551615.0);
    /* time bases that far apart: a positive, exact delta, not an overflow */
    o = R(0, INT64_MIN, 0);
    n = R(0, INT64_MAX, 0);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_QUEUELEN_TYPE, F, 0, PL_PDH_FMT_DOUBLE, &n, &o, &v), 0);
    assert_true(v.v.double_value == 0.0);
    /* adjacent huge times stay distinct (a double difference would be 0) */
    o = R(0, INT64_MAX - 1, 0);
    n = R(5, INT64_MAX, 0);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_QUEUELEN_TYPE, F, 0, PL_PDH_FMT_DOUBLE, &n, &o, &v), 0);
    assert_true(v.v.double_value == 5.0);
    /* a base that went back across the whole range is rejected */
    o = R(0, INT64_MAX, 0);
    n = R(10, INT64_MIN, 0);
    assert_int_equal(pl_pdh_calc_type(PERF_AVERAGE_BULK, F, 0, PL_PDH_FMT_DOUBLE, &n, &o, &v), PL_PDH_CALC_NEGATIVE_VALUE);
}

/* Issue 11 item 1: a 32-bit value that wrapped once is unwrapped, as
 * Windows PDH does (delta = N1 + 2^32 - N0), for the counter and for the
 * 32-bit PERF_AVERAGE_BASE / PERF_SAMPLE_BASE of the average and sample
 * types. A value read from 8 bytes that went backwards is still rejected, as
 * is a "wrap" from a value that does not fit 32 bits. */
static void dword_wrap_unwrapped_once(void **state)
{
    (void)state;
    pl_pdh_value v;
    pl_pdh_raw o = R(0xFFFFFFF0LL, D0, 0), n = R(0x10, D1, 0);
    /* 0x20 counts over 2 s */
    check(PERF_COUNTER_COUNTER, F, n, &o, 16.0, 16, 16);
    check(PERF_COUNTER_DELTA, F, n, &o, 32.0, 32, 32);
    /* the average timer of a disk: 0.5 s of summed time over 100 ops, the
     * time sum wrapping: 5,000,000 100 ns units */
    o = R(0xFFFFFFFFLL - 999999, 0xFFFFFFF0LL, 0);
    n = R(4000000, 0xFFFFFFF0LL + 100 - 0x100000000LL, 0);
    check(PERF_AVERAGE_TIMER, F, n, &o, 0.005, 0, 0);
    /* the base wrapping alone */
    o = R(1000, 0xFFFFFFFELL, 0);
    n = R(2000, 2, 0);
    check(PERF_AVERAGE_BULK, F, n, &o, 250.0, 250, 250);
    /* the same pairs read from 8 bytes: a value that went backwards */
    o = R(0xFFFFFFF0LL, D0, 0);
    n = R(0x10, D1, 0);
    assert_int_equal(pl__pdh_calc(PERF_COUNTER_COUNTER, 0, F, 0, PL_PDH_FMT_DOUBLE, &n, &o, &v),
                     PL_PDH_CALC_NEGATIVE_VALUE);
    o = R(0xFFFFFFFFLL - 999999, 0xFFFFFFF0LL, 0);
    n = R(4000000, 0xFFFFFFF0LL + 100 - 0x100000000LL, 0);
    assert_int_equal(pl__pdh_calc(PERF_AVERAGE_TIMER, 0, F, 0, PL_PDH_FMT_DOUBLE, &n, &o, &v),
                     PL_PDH_CALC_NEGATIVE_VALUE);
    assert_int_equal(pl__pdh_calc(PERF_AVERAGE_TIMER, PL__PDH_NARROW_B, F, 0, PL_PDH_FMT_DOUBLE, &n, &o, &v),
                     PL_PDH_CALC_NEGATIVE_VALUE);
    /* a "32-bit" older value beyond 32 bits is bad data, not a wrap */
    o = R(0x100000005LL, D0, 0);
    n = R(0x10, D1, 0);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_COUNTER, F, 0, PL_PDH_FMT_DOUBLE, &n, &o, &v),
                     PL_PDH_CALC_NEGATIVE_VALUE);
    /* 64-bit types are never unwrapped */
    o = R(0xFFFFFFF0LL, D0, 0);
    n = R(0x10, D1, 0);
    assert_int_equal(pl_pdh_calc_type(PERF_COUNTER_BULK_COUNT, F, 0, PL_PDH_FMT_DOUBLE, &n, &o, &v),
                     PL_PDH_CALC_NEGATIVE_VALUE);
    assert_true(v.v.double_value == 0.0);
}

/* Review: every displayable type against every combination of extreme
 * inputs (0, 1, -1 = UINT64_MAX, INT64_MIN, INT64_MAX; equal samples; zero
 * and huge frequencies and multi counts), in every format and with the
 * largest scale and x1000: no undefined behaviour (UBSan aborts), and a
 * valid value is always a finite number. */
static void extreme_inputs_every_type(void **state)
{
    (void)state;
    static const uint32_t types[] = {
        PERF_COUNTER_COUNTER, PERF_COUNTER_BULK_COUNT, PERF_SAMPLE_COUNTER, PERF_COUNTER_QUEUELEN_TYPE,
        PERF_COUNTER_LARGE_QUEUELEN_TYPE, PERF_COUNTER_100NS_QUEUELEN_TYPE, PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE,
        PERF_COUNTER_TIMER, PERF_COUNTER_TIMER_INV, PERF_100NSEC_TIMER, PERF_100NSEC_TIMER_INV, PERF_OBJ_TIME_TIMER,
        PERF_COUNTER_MULTI_TIMER, PERF_COUNTER_MULTI_TIMER_INV, PERF_100NSEC_MULTI_TIMER,
        PERF_100NSEC_MULTI_TIMER_INV, PERF_RAW_FRACTION, PERF_LARGE_RAW_FRACTION, PERF_SAMPLE_FRACTION,
        PERF_AVERAGE_TIMER, PERF_AVERAGE_BULK, PERF_COUNTER_DELTA, PERF_COUNTER_LARGE_DELTA, PERF_COUNTER_RAWCOUNT,
        PERF_COUNTER_LARGE_RAWCOUNT, PERF_COUNTER_RAWCOUNT_HEX, PERF_COUNTER_LARGE_RAWCOUNT_HEX, PERF_ELAPSED_TIME,
        PERF_PRECISION_SYSTEM_TIMER, PERF_PRECISION_100NS_TIMER, PERF_PRECISION_OBJECT_TIMER};
    static const int64_t vals[] = {0, 1, -1, INT64_MIN, INT64_MAX, INT64_MAX - 1};
    static const int64_t freqs[] = {1, F, INT64_MAX};
    static const uint32_t multis[] = {0, 1, UINT32_MAX};
    static const uint32_t fmts[] = {PL_PDH_FMT_DOUBLE, PL_PDH_FMT_LONG, PL_PDH_FMT_LARGE,
                                    PL_PDH_FMT_DOUBLE | PL_PDH_FMT_NOCAP100 | PL_PDH_FMT_1000};
    const size_t nv = sizeof vals / sizeof vals[0];
    unsigned valid = 0;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (size_t a = 0; a < nv; a++)
            for (size_t b = 0; b < nv; b++)
                for (size_t c = 0; c < nv; c++)
                    for (size_t d = 0; d < nv; d += 2)
                        for (size_t f = 0; f < 3; f++)
                            for (size_t m = 0; m < 3; m++)
                                for (size_t k = 0; k < 4; k++) {
                                    pl_pdh_raw r1 = R(vals[a], vals[b], multis[m]);
                                    pl_pdh_raw r0 = R(vals[c], vals[d], multis[m]);
                                    pl_pdh_value v;
                                    uint32_t st = pl_pdh_calc_type(types[t], freqs[f], 7, fmts[k], &r1, &r0, &v);
                                    if (st != PL_PDH_CSTATUS_VALID_DATA) {
                                        assert_int_not_equal(v.cstatus, PL_PDH_CSTATUS_VALID_DATA);
                                        continue;
                                    }
                                    valid++;
                                    if (fmts[k] & PL_PDH_FMT_DOUBLE) assert_true(isfinite(v.v.double_value));
                                }
    assert_true(valid > 10000);
}

static void statistics_wrapped(void **state)
{
    (void)state;
    pl_pdh_stats st;
    /* oldest at index 3: 10, 20, 30, 40, 50 */
    pl_pdh_raw a[5] = {R(30, 0, 0), R(40, 0, 0), R(50, 0, 0), R(10, 0, 0), R(20, 0, 0)};
    assert_int_equal(pl__pdh_stats(PERF_COUNTER_RAWCOUNT, F, 0, PL_PDH_FMT_DOUBLE, 3, 5, a, &st), 0);
    assert_int_equal(st.count, 5);
    assert_true(st.min.v.double_value == 10.0 && st.max.v.double_value == 50.0 && st.mean.v.double_value == 30.0);
    assert_int_equal(st.format, PL_PDH_FMT_DOUBLE);
    /* a rate: samples t0..t3 one second apart stored from index 2; rates 100, 200, 300 */
    pl_pdh_raw r[4];
    r[2] = R(0, D0, 0);
    r[3] = R(100, D0 + F, 0);
    r[0] = R(300, D0 + 2 * F, 0);
    r[1] = R(600, D0 + 3 * F, 0);
    assert_int_equal(pl__pdh_stats(PERF_COUNTER_COUNTER, F, 0, PL_PDH_FMT_LONG, 2, 4, r, &st), 0);
    assert_int_equal(st.count, 3);
    assert_int_equal(st.min.v.long_value, 100);
    assert_int_equal(st.max.v.long_value, 300);
    assert_int_equal(st.mean.v.long_value, 200);
    assert_int_equal(st.mean.cstatus, 0);
    /* an invalid entry drops the pairs it is part of */
    r[3].cstatus = PL_PDH_CSTATUS_NO_INSTANCE;
    assert_int_equal(pl__pdh_stats(PERF_COUNTER_COUNTER, F, 0, PL_PDH_FMT_DOUBLE, 2, 4, r, &st), 0);
    assert_int_equal(st.count, 1);
    assert_true(st.min.v.double_value == 300.0 && st.mean.v.double_value == 300.0);
    /* nothing computable */
    assert_int_equal(pl__pdh_stats(PERF_COUNTER_COUNTER, F, 0, PL_PDH_FMT_DOUBLE, 0, 1, r, &st), 0);
    assert_int_equal(st.count, 0);
    assert_int_equal(st.mean.cstatus, PL_PDH_CSTATUS_INVALID_DATA);
    /* percent cap and scale apply */
    pl_pdh_raw p[2] = {R(0, D0, 0), R(40000000, D1, 0)};
    assert_int_equal(pl__pdh_stats(PERF_COUNTER_TIMER, F, -1, PL_PDH_FMT_DOUBLE, 0, 2, p, &st), 0);
    assert_true(st.max.v.double_value == 10.0);
    /* arguments */
    assert_int_equal(pl__pdh_stats(PERF_COUNTER_RAWCOUNT, F, 0, PL_PDH_FMT_DOUBLE, 5, 5, a, &st), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl__pdh_stats(PERF_COUNTER_RAWCOUNT, F, 0, PL_PDH_FMT_DOUBLE, 0, 0, a, &st), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl__pdh_stats(PERF_COUNTER_RAWCOUNT, F, 9, PL_PDH_FMT_DOUBLE, 0, 5, a, &st), PL_PDH_INVALID_ARGUMENT);
}

/* PERF_DOUBLE_RAW: the raw value is a double's bits, shown as it is
 * (scaled), NaN and infinity are no value. */
static void double_raw_type(void **state)
{
    (void)state;
    double d = 37.5;
    int64_t bits;
    memcpy(&bits, &d, 8);
    check(PERF_DOUBLE_RAW, 0, R(bits, 0, 0), NULL, 37.5, 37, 37);
    d = -1e300;
    memcpy(&bits, &d, 8);
    check(PERF_DOUBLE_RAW, 0, R(bits, 0, 0), NULL, -1e300, INT32_MIN, INT64_MIN);
    pl_pdh_value v;
    pl_pdh_raw r = R(bits, 0, 0);
    d = 2.5;
    memcpy(&r.first, &d, 8);
    assert_int_equal(pl_pdh_calc_type(PERF_DOUBLE_RAW, 0, 2, PL_PDH_FMT_DOUBLE, &r, NULL, &v), 0);
    assert_true(v.v.double_value == 250.0);
    d = NAN;
    memcpy(&r.first, &d, 8);
    assert_int_equal(pl_pdh_calc_type(PERF_DOUBLE_RAW, 0, 0, PL_PDH_FMT_DOUBLE, &r, NULL, &v), PL_PDH_INVALID_DATA);
    assert_int_equal(v.cstatus, PL_PDH_CSTATUS_INVALID_DATA);
    d = INFINITY;
    memcpy(&r.first, &d, 8);
    assert_int_equal(pl_pdh_calc_type(PERF_DOUBLE_RAW, 0, 0, PL_PDH_FMT_DOUBLE, &r, NULL, &v), PL_PDH_INVALID_DATA);
}

static void status_names(void **state)
{
    (void)state;
    /* the Windows names carry the reference values, the same as the native ones */
    assert_int_equal(PDH_CSTATUS_BAD_COUNTERNAME, 0xC0000BC0u);
    assert_int_equal(PDH_CSTATUS_NO_COUNTER, 0xC0000BB9u);
    assert_int_equal(PDH_INVALID_ARGUMENT, 0xC0000BBDu);
    assert_int_equal(PDH_CSTATUS_NO_INSTANCE, 0x800007D1u);
    assert_int_equal(PDH_NO_DATA, 0x800007D5u);
    assert_int_equal(PDH_QUERY_PERF_DATA_TIMEOUT, 0xC0000BFEu);
    assert_int_equal(PDH_UNABLE_MAP_NAME_FILES, 0x80000BD5u);
    assert_int_equal(PDH_INVALID_DATA, PL_PDH_INVALID_DATA);
    assert_int_equal(PDH_CALC_NEGATIVE_DENOMINATOR, PL_PDH_CALC_NEGATIVE_DENOMINATOR);
    assert_int_equal(PDH_MORE_DATA, PL_PDH_MORE_DATA);
    assert_string_equal(pl_pdh_status_name(0xC0000BC0u), "PDH_CSTATUS_BAD_COUNTERNAME");
    assert_string_equal(pl_pdh_status_name(PL_PDH_CALC_NEGATIVE_VALUE), "PDH_CALC_NEGATIVE_VALUE");
    assert_null(pl_pdh_status_name(0x12345u));
    assert_true(PL_PDH_IS_ERROR(PL_PDH_INVALID_DATA));
    assert_false(PL_PDH_IS_ERROR(PL_PDH_NO_DATA));
    assert_true(PL_PDH_IS_SUCCESS(PL_PDH_CSTATUS_NEW_DATA));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rate_types),
        cmocka_unit_test(double_raw_type),
        cmocka_unit_test(queue_types),
        cmocka_unit_test(timer_types),
        cmocka_unit_test(multi_timer_types),
        cmocka_unit_test(fraction_types),
        cmocka_unit_test(precision_types),
        cmocka_unit_test(value_types),
        cmocka_unit_test(elapsed_time),
        cmocka_unit_test(not_displayable),
        cmocka_unit_test(cap_and_flags),
        cmocka_unit_test(inverse_never_negative),
        cmocka_unit_test(first_sample_and_bad_pairs),
        cmocka_unit_test(statistics_wrapped),
        cmocka_unit_test(extreme_deltas_exact),
        cmocka_unit_test(dword_wrap_unwrapped_once),
        cmocka_unit_test(extreme_inputs_every_type),
        cmocka_unit_test(status_names),
    };
    return pl_test_run(tests, argc, argv);
}
