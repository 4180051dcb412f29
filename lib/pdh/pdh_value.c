/* PDH values of a counter: raw, formatted (one value or the array of a
 * wildcard counter), statistics over raw samples, scale and time base
 * (the arithmetic is pdh_calc.c's). */
#include <stdlib.h>
#include <string.h>

#include "pdh_internal.h"
#include "perflib/winperf.h"

PL_EXTERN uint32_t pl_pdh_get_raw(const pl_pdh_counter *c, uint32_t *type, pl_pdh_raw *raw)
{
    if (!raw) return PL_PDH_INVALID_ARGUMENT;
    if (!pl__pdh_counter_ok(c)) return PL_PDH_INVALID_HANDLE;
    if (type) *type = c->type;
    if (c->wild || c->nitems != 1) return PL_PDH_INVALID_ARGUMENT;
    *raw = c->items[0].cur;
    return raw->cstatus == PL_PDH_CSTATUS_VALID_DATA ? PL_PDH_CSTATUS_VALID_DATA : PL_PDH_INVALID_DATA;
}

PL_EXTERN uint32_t pl_pdh_calculate(const pl_pdh_counter *c, uint32_t fmt, const pl_pdh_raw *raw1,
                                    const pl_pdh_raw *raw2, pl_pdh_value *value)
{
    if (!value || !raw1) return PL_PDH_INVALID_ARGUMENT;
    if (!pl__pdh_counter_ok(c)) return PL_PDH_INVALID_HANDLE;
    if (c->cwild) return PL_PDH_INVALID_ARGUMENT; /* no single counter type */
    return pl__pdh_calc(c->type, c->narrow, c->freq, c->scale, fmt, raw1, raw2, value);
}

PL_EXTERN uint32_t pl_pdh_get_formatted(const pl_pdh_counter *c, uint32_t fmt, uint32_t *type, pl_pdh_value *value)
{
    if (!value) return PL_PDH_INVALID_ARGUMENT;
    if (!pl__pdh_counter_ok(c)) return PL_PDH_INVALID_HANDLE;
    if (type) *type = c->type;
    if (c->wild || c->nitems != 1) return PL_PDH_INVALID_ARGUMENT;
    return pl__pdh_calc(c->type, c->narrow, c->freq, c->scale, fmt, &c->items[0].cur, &c->items[0].prev, value);
}

PL_EXTERN uint32_t pl_pdh_get_formatted_array(const pl_pdh_counter *c, uint32_t fmt, pl_pdh_value_item **items,
                                              size_t *n)
{
    if (!items || !n) return PL_PDH_INVALID_ARGUMENT;
    if (!pl__pdh_counter_ok(c)) return PL_PDH_INVALID_HANDLE;
    size_t strs = 0;
    for (size_t i = 0; i < c->nitems; i++) strs += strlen(c->items[i].key) + 1;
    pl_pdh_value_item *v = malloc(c->nitems * sizeof *v + strs + 1);
    if (!v) return PL_PDH_MEMORY_ALLOCATION_FAILURE;
    char *w = (char *)(v + c->nitems);
    for (size_t i = 0; i < c->nitems; i++) {
        size_t l = strlen(c->items[i].key) + 1;
        memcpy(w, c->items[i].key, l);
        v[i].name = w;
        w += l;
        const pl__pdh_item *it = &c->items[i];
        uint32_t st = pl__pdh_calc(c->cwild ? it->type : c->type, c->cwild ? it->narrow : c->narrow,
                                   c->cwild ? it->freq : c->freq, c->scale, fmt, &it->cur, &it->prev, &v[i].value);
        if (st == PL_PDH_INVALID_ARGUMENT) { free(v); return st; }
    }
    *items = v;
    *n = c->nitems;
    return PL_PDH_CSTATUS_VALID_DATA;
}

PL_EXTERN uint32_t pl_pdh_statistics(const pl_pdh_counter *c, uint32_t fmt, uint32_t first, uint32_t n,
                                     const pl_pdh_raw *raws, pl_pdh_stats *stats)
{
    if (!stats || !raws) return PL_PDH_INVALID_ARGUMENT;
    if (!pl__pdh_counter_ok(c)) return PL_PDH_INVALID_HANDLE;
    if (c->cwild) return PL_PDH_INVALID_ARGUMENT; /* no single counter type */
    return pl__pdh_stats_w(c->type, c->narrow, c->freq, c->scale, fmt, first, n, raws, stats);
}

PL_EXTERN uint32_t pl_pdh_set_scale(pl_pdh_counter *c, int32_t scale)
{
    if (!pl__pdh_counter_ok(c)) return PL_PDH_INVALID_HANDLE;
    if (scale < PL_PDH_MIN_SCALE || scale > PL_PDH_MAX_SCALE) return PL_PDH_INVALID_ARGUMENT;
    c->scale = scale;
    return PL_PDH_CSTATUS_VALID_DATA;
}

PL_EXTERN uint32_t pl_pdh_get_time_base(const pl_pdh_counter *c, int64_t *freq)
{
    if (!pl__pdh_counter_ok(c)) return PL_PDH_INVALID_HANDLE;
    if (!freq) return PL_PDH_INVALID_ARGUMENT;
    int64_t f = c->freq;
    if (f <= 0 && (c->type & PERF_OBJECT_TIMER) == 0) f = 10000000; /* PerfFreq and the 100 ns timer */
    if (f <= 0) return PL_PDH_CSTATUS_INVALID_DATA;
    *freq = f;
    return PL_PDH_CSTATUS_VALID_DATA;
}
