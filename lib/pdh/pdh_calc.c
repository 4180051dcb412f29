/* PDH counter-type arithmetic: raw samples -> displayed numbers.
 *
 * Notation (reference/counter-formulas.md): N value, D time, B base, F the
 * time base frequency; subscript 1 newer, 0 older. raw.first is N; raw.second
 * is D (PerfTime, PerfTime100nSec or the object's PerfTime) or B (fractions,
 * averages, precision timers) or 0; raw.multi_count is the MULTI item count.
 *
 * Decisions where the sources disagree (tested in tests/pdh/test_pdh_calc.c):
 *
 * - PERF_COUNTER_MULTI_TIMER: 100*(dN/dD)/B, without F. The documented
 *   100*(dN/(dD/F))/B only comes out when N is pre-multiplied by F, which is
 *   what the .NET port of cutils.c does "to make PDH work like PERFMON": it
 *   shows that PDH itself computes 100*dN/dD/B on the raw value. N and D are
 *   both in PerfTime ticks, so dN/dD is already the busy fraction, exactly as
 *   for PERF_COUNTER_TIMER. raw.first is N as collected (not pre-multiplied).
 * - PERF_COUNTER_MULTI_TIMER_INV and PERF_100NSEC_MULTI_TIMER_INV:
 *   100*(B - dN/dD)/B (the CE page, again without F for the tick type). The
 *   W2003 page and the MS sample leave out the final /B, which gives up to
 *   100*B percent; dividing by B makes the inverse type the exact complement
 *   of its non-inverse twin (100 - MULTI_TIMER(idle)), as TIMER_INV is of
 *   TIMER, and keeps the value in [0, 100] like every other percent type.
 * - A zero denominator (base delta 0, B 0, MULTI count 0) is
 *   PL_PDH_CALC_NEGATIVE_DENOMINATOR; a time delta <= 0 or a frequency <= 0
 *   is PL_PDH_CALC_NEGATIVE_TIMEBASE; a value that went backwards (older N
 *   greater than newer N, also for bases) is PL_PDH_CALC_NEGATIVE_VALUE. The
 *   value is 0 with each of them (what .NET displays). N is compared as a
 *   signed LONGLONG; the deltas are exact (sdiff), never a signed overflow.
 * - A 32-bit value (a counter or base read from 4 bytes: PL__PDH_NARROW_N,
 *   PL__PDH_NARROW_B) that is smaller in the newer sample wrapped once, as
 *   Windows PDH reads it: the delta is N1 + 2^32 - N0. Only one wrap can be
 *   seen; a provider whose value can wrap twice within an interval must use
 *   8 bytes (PerfDisk's Avg. Disk sec/Transfer does). Values read from 8
 *   bytes that go backwards are still rejected.
 * - Inverse percent types never go below 0 (idle > elapsed from rounding in
 *   the provider gives 0, not -0.3).
 * - Order of the final steps: cap at 100 (percent types, unless NOCAP100),
 *   then the scale 10^scale (unless NOSCALE), then PDH_FMT_1000, then the
 *   conversion. LONG and LARGE truncate toward zero and saturate.
 * - PERF_ELAPSED_TIME: (D - N)/F with the object's PerfTime/PerfFreq; 0 when
 *   N is 0 or N >= D (as cutils.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pdh_internal.h"
#include "perflib/winperf.h"

PL_EXTERN const char *pl_pdh_status_name(uint32_t s)
{
    switch (s) {
#define N(x) case PL_##x: return #x;
    N(PDH_CSTATUS_VALID_DATA) N(PDH_CSTATUS_NEW_DATA) N(PDH_CSTATUS_NO_MACHINE) N(PDH_CSTATUS_NO_INSTANCE)
    N(PDH_MORE_DATA) N(PDH_CSTATUS_ITEM_NOT_VALIDATED) N(PDH_RETRY) N(PDH_NO_DATA)
    N(PDH_CALC_NEGATIVE_DENOMINATOR) N(PDH_CALC_NEGATIVE_TIMEBASE) N(PDH_CALC_NEGATIVE_VALUE)
    N(PDH_CSTATUS_NO_OBJECT) N(PDH_CSTATUS_NO_COUNTER) N(PDH_CSTATUS_INVALID_DATA)
    N(PDH_MEMORY_ALLOCATION_FAILURE) N(PDH_INVALID_HANDLE) N(PDH_INVALID_ARGUMENT) N(PDH_FUNCTION_NOT_FOUND)
    N(PDH_CSTATUS_NO_COUNTERNAME) N(PDH_CSTATUS_BAD_COUNTERNAME) N(PDH_INVALID_BUFFER)
    N(PDH_INSUFFICIENT_BUFFER) N(PDH_CANNOT_CONNECT_MACHINE) N(PDH_INVALID_PATH) N(PDH_INVALID_INSTANCE)
    N(PDH_INVALID_DATA) N(PDH_NO_DIALOG_DATA) N(PDH_CANNOT_READ_NAME_STRINGS) N(PDH_NO_MORE_DATA)
    N(PDH_NOT_IMPLEMENTED) N(PDH_STRING_NOT_FOUND) N(PDH_NO_COUNTERS) N(PDH_COUNTER_ALREADY_IN_QUERY)
#undef N
    }
    return NULL;
}

int64_t pl__pdh_local_filetime(int64_t utc_ft)
{
    const int64_t epoch = 116444736000000000LL; /* 1601 -> 1970 in 100 ns */
    if (utc_ft <= 0) return utc_ft;
    int64_t secs = (utc_ft - epoch) / 10000000;
    time_t t = (time_t)secs;
    struct tm tm;
    /* localtime_r (reentrant, no shared buffer): the offset of the local
     * zone at that instant, daylight saving included. */
    tzset(); /* follow TZ changes: localtime_r need not re-read it */
    if ((int64_t)t != secs || !localtime_r(&t, &tm)) return utc_ft;
    return utc_ft + (int64_t)tm.tm_gmtoff * 10000000;
}

int pl__pdh_two_sample(uint32_t type)
{
    return (type & PERF_DELTA_COUNTER) || type == PERF_AVERAGE_TIMER || type == PERF_AVERAGE_BULK;
}

int pl__pdh_displayable(uint32_t type)
{
    switch (type) {
    case PERF_COUNTER_COUNTER: case PERF_COUNTER_BULK_COUNT: case PERF_SAMPLE_COUNTER:
    case PERF_COUNTER_QUEUELEN_TYPE: case PERF_COUNTER_LARGE_QUEUELEN_TYPE:
    case PERF_COUNTER_100NS_QUEUELEN_TYPE: case PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE:
    case PERF_COUNTER_TIMER: case PERF_COUNTER_TIMER_INV: case PERF_100NSEC_TIMER: case PERF_100NSEC_TIMER_INV:
    case PERF_OBJ_TIME_TIMER: case PERF_COUNTER_MULTI_TIMER: case PERF_COUNTER_MULTI_TIMER_INV:
    case PERF_100NSEC_MULTI_TIMER: case PERF_100NSEC_MULTI_TIMER_INV:
    case PERF_RAW_FRACTION: case PERF_LARGE_RAW_FRACTION: case PERF_SAMPLE_FRACTION:
    case PERF_AVERAGE_TIMER: case PERF_AVERAGE_BULK: case PERF_COUNTER_DELTA: case PERF_COUNTER_LARGE_DELTA:
    case PERF_COUNTER_RAWCOUNT: case PERF_COUNTER_LARGE_RAWCOUNT: case PERF_COUNTER_RAWCOUNT_HEX:
    case PERF_COUNTER_LARGE_RAWCOUNT_HEX: case PERF_ELAPSED_TIME: case PERF_PRECISION_SYSTEM_TIMER:
    case PERF_PRECISION_100NS_TIMER: case PERF_PRECISION_OBJECT_TIMER: case PERF_DOUBLE_RAW:
        return 1;
    default:
        return 0;
    }
}

static int cstatus_ok(uint32_t cs)
{
    return cs == PL_PDH_CSTATUS_VALID_DATA || cs == PL_PDH_CSTATUS_NEW_DATA;
}

/* a - b as a double, exact before the final rounding: the samples are
 * LONGLONG and may lie up to 2^64 - 1 apart, which a signed subtraction
 * cannot hold (and (double)a - (double)b loses small differences of huge
 * values). */
static double sdiff(int64_t a, int64_t b)
{
    return a >= b ? (double)((uint64_t)a - (uint64_t)b) : -(double)((uint64_t)b - (uint64_t)a);
}

/* Does the type's base (raw.second) come from a PERF_*_BASE counter that
 * Windows declares 32-bit? */
static int base_is_counter(uint32_t type)
{
    return type == PERF_AVERAGE_TIMER || type == PERF_AVERAGE_BULK || type == PERF_SAMPLE_FRACTION;
}

unsigned pl__pdh_narrow_of(uint32_t type)
{
    unsigned w = 0;
    if ((type & PERF_SIZE_MASK) == PERF_SIZE_DWORD) w |= PL__PDH_NARROW_N;
    if (base_is_counter(type)) w |= PL__PDH_NARROW_B;
    return w;
}

/* One 32-bit wrap: a narrow value that went from a to a smaller b. */
static int wrapped32(int narrow, int64_t newer, int64_t older)
{
    return narrow && newer < older && newer >= 0 && older >= 0 && (uint64_t)older <= UINT32_MAX;
}

/* The raw number (before cap/scale). Returns 0 or a PDH_CALC_* code. */
static uint32_t compute(uint32_t type, unsigned narrow, int64_t freq, const pl_pdh_raw *r1, const pl_pdh_raw *r0,
                        double *out)
{
    double dn = 0, dd = 0;
    if (pl__pdh_two_sample(type)) {
        if (wrapped32(narrow & PL__PDH_NARROW_N, r1->first, r0->first))
            dn = (double)((uint64_t)r1->first + 4294967296ull - (uint64_t)r0->first);
        else if (r1->first < r0->first)
            return PL_PDH_CALC_NEGATIVE_VALUE;
        else
            dn = sdiff(r1->first, r0->first);
        if (base_is_counter(type) && wrapped32(narrow & PL__PDH_NARROW_B, r1->second, r0->second))
            dd = (double)((uint64_t)r1->second + 4294967296ull - (uint64_t)r0->second);
        else
            dd = sdiff(r1->second, r0->second);
    }
    switch (type) {
    case PERF_COUNTER_COUNTER: case PERF_COUNTER_BULK_COUNT: case PERF_SAMPLE_COUNTER:
        if (freq <= 0 || dd <= 0) return PL_PDH_CALC_NEGATIVE_TIMEBASE;
        *out = dn / (dd / (double)freq);
        return 0;
    case PERF_COUNTER_QUEUELEN_TYPE: case PERF_COUNTER_LARGE_QUEUELEN_TYPE:
    case PERF_COUNTER_100NS_QUEUELEN_TYPE: case PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE:
        if (dd <= 0) return PL_PDH_CALC_NEGATIVE_TIMEBASE;
        *out = dn / dd;
        return 0;
    case PERF_COUNTER_TIMER: case PERF_100NSEC_TIMER: case PERF_OBJ_TIME_TIMER:
        if (dd <= 0) return PL_PDH_CALC_NEGATIVE_TIMEBASE;
        *out = 100.0 * dn / dd;
        return 0;
    case PERF_COUNTER_TIMER_INV: case PERF_100NSEC_TIMER_INV:
        if (dd <= 0) return PL_PDH_CALC_NEGATIVE_TIMEBASE;
        *out = 100.0 * (dd - dn) / dd; /* = 100*(1 - dN/dD), fewer rounding steps */
        if (*out < 0) *out = 0;
        return 0;
    case PERF_COUNTER_MULTI_TIMER: case PERF_100NSEC_MULTI_TIMER:
        if (dd <= 0) return PL_PDH_CALC_NEGATIVE_TIMEBASE;
        if (r1->multi_count == 0) return PL_PDH_CALC_NEGATIVE_DENOMINATOR;
        *out = 100.0 * (dn / dd) / (double)r1->multi_count;
        return 0;
    case PERF_COUNTER_MULTI_TIMER_INV: case PERF_100NSEC_MULTI_TIMER_INV: {
        if (dd <= 0) return PL_PDH_CALC_NEGATIVE_TIMEBASE;
        if (r1->multi_count == 0) return PL_PDH_CALC_NEGATIVE_DENOMINATOR;
        double b = (double)r1->multi_count;
        *out = 100.0 * (b * dd - dn) / (b * dd); /* = 100*(B - dN/dD)/B */
        if (*out < 0) *out = 0;
        return 0;
    }
    case PERF_RAW_FRACTION: case PERF_LARGE_RAW_FRACTION:
        if (r1->second <= 0) return PL_PDH_CALC_NEGATIVE_DENOMINATOR;
        *out = 100.0 * (double)r1->first / (double)r1->second;
        return 0;
    case PERF_SAMPLE_FRACTION:
        if (dd < 0) return PL_PDH_CALC_NEGATIVE_VALUE;
        if (dd == 0) return PL_PDH_CALC_NEGATIVE_DENOMINATOR;
        *out = 100.0 * dn / dd;
        return 0;
    case PERF_PRECISION_SYSTEM_TIMER: case PERF_PRECISION_100NS_TIMER: case PERF_PRECISION_OBJECT_TIMER:
        if (dd <= 0) return PL_PDH_CALC_NEGATIVE_TIMEBASE;
        *out = 100.0 * dn / dd;
        return 0;
    case PERF_AVERAGE_TIMER:
        if (freq <= 0) return PL_PDH_CALC_NEGATIVE_TIMEBASE;
        if (dd < 0) return PL_PDH_CALC_NEGATIVE_VALUE;
        if (dd == 0) return PL_PDH_CALC_NEGATIVE_DENOMINATOR;
        *out = (dn / (double)freq) / dd;
        return 0;
    case PERF_AVERAGE_BULK:
        if (dd < 0) return PL_PDH_CALC_NEGATIVE_VALUE;
        if (dd == 0) return PL_PDH_CALC_NEGATIVE_DENOMINATOR;
        *out = dn / dd;
        return 0;
    case PERF_COUNTER_DELTA: case PERF_COUNTER_LARGE_DELTA:
        *out = dn;
        return 0;
    case PERF_COUNTER_RAWCOUNT: case PERF_COUNTER_LARGE_RAWCOUNT:
    case PERF_COUNTER_RAWCOUNT_HEX: case PERF_COUNTER_LARGE_RAWCOUNT_HEX:
        *out = (double)r1->first;
        return 0;
    case PERF_DOUBLE_RAW: {
        /* the raw value is the double's bits (a formatted value from a
         * CSV/TSV or SQL log); NaN or infinity: no value */
        uint64_t bits = (uint64_t)r1->first;
        double d;
        memcpy(&d, &bits, sizeof d);
        if (!isfinite(d)) return PL_PDH_CSTATUS_INVALID_DATA;
        *out = d;
        return 0;
    }
    case PERF_ELAPSED_TIME:
        if (freq <= 0) return PL_PDH_CALC_NEGATIVE_TIMEBASE;
        if (r1->first == 0 || r1->first >= r1->second) *out = 0;
        else *out = ((double)r1->second - (double)r1->first) / (double)freq;
        return 0;
    }
    return PL_PDH_CSTATUS_INVALID_DATA;
}

static uint32_t fmt_kind(uint32_t fmt)
{
    uint32_t k = fmt & (PL_PDH_FMT_LONG | PL_PDH_FMT_DOUBLE | PL_PDH_FMT_LARGE);
    return (k == PL_PDH_FMT_LONG || k == PL_PDH_FMT_DOUBLE || k == PL_PDH_FMT_LARGE) ? k : 0;
}

static void store(uint32_t kind, double d, pl_pdh_value *v)
{
    if (kind == PL_PDH_FMT_DOUBLE) {
        v->v.double_value = d;
    } else if (kind == PL_PDH_FMT_LONG) {
        double t = trunc(d);
        v->v.long_value = isnan(t) ? 0 : t >= 2147483647.0 ? INT32_MAX : t <= -2147483648.0 ? INT32_MIN : (int32_t)t;
    } else {
        double t = trunc(d);
        v->v.large_value = isnan(t) ? 0 : t >= 9223372036854775807.0 ? INT64_MAX
                         : t <= -9223372036854775808.0 ? INT64_MIN : (int64_t)t;
    }
}

/* Cap, scale, 1000. */
static double finish(uint32_t type, int32_t scale, uint32_t fmt, double d)
{
    if ((type & PERF_DISPLAY_MASK) == PERF_DISPLAY_PERCENT && !(fmt & PL_PDH_FMT_NOCAP100) && d > 100.0) d = 100.0;
    if (!(fmt & PL_PDH_FMT_NOSCALE) && scale != 0) d *= pow(10.0, (double)scale);
    if (fmt & PL_PDH_FMT_1000) d *= 1000.0;
    return d;
}

PL_EXTERN int64_t pl_pdh_time_100ns(int64_t perf_time, int64_t perf_freq, int64_t perf_time_100ns)
{
    if (perf_freq <= 0) return perf_time_100ns;
    if (perf_freq == 10000000) return perf_time;
    /* PerfTime x 10^7 / PerfFreq without overflow: whole seconds, then the
     * rest (below PerfFreq, so the product fits in 128 bits as two parts) */
    int64_t q = perf_time / perf_freq, r = perf_time % perf_freq;
    if (r < 0) {
        q--;
        r += perf_freq;
    }
    if (q >= INT64_MAX / 10000000 || q <= INT64_MIN / 10000000) return perf_time_100ns;
    uint64_t rr = (uint64_t)r, f = (uint64_t)perf_freq, part; /* rr < f: part < 10^7 */
#ifdef __SIZEOF_INT128__
    part = (uint64_t)((unsigned __int128)rr * 10000000u / f);
#else
    part = rr <= UINT64_MAX / 10000000u ? rr * 10000000u / f : (uint64_t)((long double)rr * 1e7L / (long double)f);
#endif
    return q * 10000000 + (int64_t)part;
}

/* The one time base of perflib (pdh.h): PDH's values, perfd's /metrics
 * and whoever else turns a raw timer into seconds read it here. */
PL_EXTERN void pl_pdh_time_base(const pl_block *b, const pl_object *o, uint32_t type, int64_t *time, int64_t *freq)
{
    int64_t t, f;
    switch (type & PERF_TIMER_MASK) {
    case PERF_TIMER_100NS: /* the monotonic PerfTime in 100 ns: a clock step is no rate (issue 33) */
        t = pl_pdh_time_100ns(b->hdr.PerfTime.QuadPart, b->hdr.PerfFreq.QuadPart, b->hdr.PerfTime100nSec.QuadPart);
        f = 10000000;
        break;
    case PERF_OBJECT_TIMER:
        t = o->hdr.PerfTime.QuadPart;
        f = o->hdr.PerfFreq.QuadPart;
        break;
    default:
        t = b->hdr.PerfTime.QuadPart;
        f = b->hdr.PerfFreq.QuadPart;
        break;
    }
    if (time) *time = t;
    if (freq) *freq = f;
}

PL_EXTERN uint32_t pl_pdh_calc_type(uint32_t type, int64_t freq, int32_t scale, uint32_t fmt,
                                    const pl_pdh_raw *raw1, const pl_pdh_raw *raw2, pl_pdh_value *value)
{
    return pl__pdh_calc(type, pl__pdh_narrow_of(type), freq, scale, fmt, raw1, raw2, value);
}

uint32_t pl__pdh_calc(uint32_t type, unsigned narrow, int64_t freq, int32_t scale, uint32_t fmt,
                      const pl_pdh_raw *raw1, const pl_pdh_raw *raw2, pl_pdh_value *value)
{
    if (!value || !raw1) return PL_PDH_INVALID_ARGUMENT;
    uint32_t kind = fmt_kind(fmt);
    if (!kind || scale < PL_PDH_MIN_SCALE || scale > PL_PDH_MAX_SCALE) return PL_PDH_INVALID_ARGUMENT;
    memset(value, 0, sizeof *value);
    if (!cstatus_ok(raw1->cstatus)) {
        value->cstatus = raw1->cstatus;
        return PL_PDH_INVALID_DATA;
    }
    if (!pl__pdh_displayable(type)) {
        value->cstatus = PL_PDH_CSTATUS_INVALID_DATA;
        return PL_PDH_INVALID_DATA;
    }
    if (pl__pdh_two_sample(type) && (!raw2 || !cstatus_ok(raw2->cstatus))) {
        value->cstatus = PL_PDH_CSTATUS_INVALID_DATA;
        return PL_PDH_INVALID_DATA;
    }
    double d = 0;
    uint32_t st = compute(type, narrow, freq, raw1, raw2, &d);
    if (st) {
        value->cstatus = st;
        return st == PL_PDH_CSTATUS_INVALID_DATA ? PL_PDH_INVALID_DATA : st;
    }
    store(kind, finish(type, scale, fmt, d), value);
    value->cstatus = PL_PDH_CSTATUS_VALID_DATA;
    return PL_PDH_CSTATUS_VALID_DATA;
}

uint32_t pl__pdh_stats(uint32_t type, int64_t freq, int32_t scale, uint32_t fmt, uint32_t first, uint32_t n,
                       const pl_pdh_raw *raws, pl_pdh_stats *stats)
{
    return pl__pdh_stats_w(type, pl__pdh_narrow_of(type), freq, scale, fmt, first, n, raws, stats);
}

uint32_t pl__pdh_stats_w(uint32_t type, unsigned narrow, int64_t freq, int32_t scale, uint32_t fmt, uint32_t first,
                         uint32_t n, const pl_pdh_raw *raws, pl_pdh_stats *stats)
{
    if (!stats || !raws || n == 0 || first >= n) return PL_PDH_INVALID_ARGUMENT;
    uint32_t kind = fmt_kind(fmt);
    if (!kind || scale < PL_PDH_MIN_SCALE || scale > PL_PDH_MAX_SCALE) return PL_PDH_INVALID_ARGUMENT;
    uint32_t dfmt = (fmt & ~(PL_PDH_FMT_LONG | PL_PDH_FMT_LARGE)) | PL_PDH_FMT_DOUBLE;
    int two = pl__pdh_two_sample(type);
    double mn = 0, mx = 0, sum = 0;
    uint32_t count = 0;
    for (uint32_t k = two ? 1 : 0; k < n; k++) {
        const pl_pdh_raw *r1 = &raws[(first + k) % n];
        const pl_pdh_raw *r0 = two ? &raws[(first + k - 1) % n] : NULL;
        pl_pdh_value v;
        if (pl__pdh_calc(type, narrow, freq, scale, dfmt, r1, r0, &v) != PL_PDH_CSTATUS_VALID_DATA) continue;
        double d = v.v.double_value;
        if (count == 0 || d < mn) mn = d;
        if (count == 0 || d > mx) mx = d;
        sum += d;
        count++;
    }
    memset(stats, 0, sizeof *stats);
    stats->format = fmt;
    stats->count = count;
    if (count == 0) {
        stats->min.cstatus = stats->max.cstatus = stats->mean.cstatus = PL_PDH_CSTATUS_INVALID_DATA;
        return PL_PDH_CSTATUS_VALID_DATA;
    }
    store(kind, mn, &stats->min);
    store(kind, mx, &stats->max);
    store(kind, sum / (double)count, &stats->mean);
    return PL_PDH_CSTATUS_VALID_DATA;
}
