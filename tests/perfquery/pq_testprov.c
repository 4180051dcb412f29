/* perfquery's deterministic test provider: six objects with fixed values,
 * covering an object without instances, text with characters that need
 * escaping, 64-bit values, a counter with a base, parent instances and
 * duplicate instance names, values marked unavailable (the generic
 * "Unavailable Counters" marker: alpha/one's Hit Ratio base, alpha/two's
 * Bytes/sec), and stand-ins for System, Memory and Processor.
 * Entry points PqOpen/PqCollect/PqClose. */
#include <stdint.h>

#include "perflib/indices.h"
#include "perflib/provider.h"
#include "pqtestsym.h"

PL_PROVIDER_EXPORT DWORD PqOpen(LPWSTR device_names);
PL_PROVIDER_EXPORT DWORD PqCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects);
PL_PROVIDER_EXPORT DWORD PqClose(void);

static pl_builder *b;
static uint32_t fc, fh;

#define CHECK(x)                                                                                                       \
    do {                                                                                                               \
        if ((x) != PL_OK) return ERROR_INVALID_PARAMETER;                                                              \
    } while (0)

static DWORD build(void)
{
    int o, c_greet, c_ticks, c_flags, c_items, c_hits, c_ratio, c_bytes, c_unav, i;
    pl_object_desc machine = {fc + PQ_MACHINE, fh + PQ_MACHINE, 100, 0, 0, 0, 0};
    CHECK(pl_builder_add_object(b, &machine, &o));
    pl_counter_desc greet = {fc + PQ_GREETING, fh + PQ_GREETING, PERF_COUNTER_TEXT, 64, 100, 0, 0, 0};
    pl_counter_desc ticks = {fc + PQ_TICKS, fh + PQ_TICKS, PERF_COUNTER_LARGE_RAWCOUNT, 0, 200, 0, 0, 0};
    pl_counter_desc flags = {fc + PQ_FLAGS, fh + PQ_FLAGS, PERF_COUNTER_RAWCOUNT_HEX, 0, 300, -1, 0, 0};
    CHECK(pl_builder_add_counter(b, o, &greet, &c_greet));
    CHECK(pl_builder_add_counter(b, o, &ticks, &c_ticks));
    CHECK(pl_builder_add_counter(b, o, &flags, &c_flags));
    CHECK(pl_builder_set_text(b, o, -1, c_greet, "Tab\there \"q\" back\\slash \xc3\xa9\x01"));
    CHECK(pl_builder_set_u64(b, o, -1, c_ticks, 123456789012345ull));
    CHECK(pl_builder_set_u32(b, o, -1, c_flags, 0xBEEFu));

    pl_object_desc parent = {fc + PQ_PARENT, fh + PQ_PARENT, 100, 0, 1, 0, 0};
    CHECK(pl_builder_add_object(b, &parent, &o));
    pl_counter_desc items = {fc + PQ_ITEMS, fh + PQ_ITEMS, PERF_COUNTER_RAWCOUNT, 0, 100, 0, 0, 0};
    CHECK(pl_builder_add_counter(b, o, &items, &c_items));
    CHECK(pl_builder_add_instance(b, o, "alpha", 0, 0, PERF_NO_UNIQUE_ID, &i));
    CHECK(pl_builder_set_u32(b, o, i, c_items, 10));
    CHECK(pl_builder_add_instance(b, o, "beta", 0, 0, 7, &i));
    CHECK(pl_builder_set_u32(b, o, i, c_items, 20));

    pl_object_desc child = {fc + PQ_CHILD, fh + PQ_CHILD, 200, 1, 1, 0, 0};
    CHECK(pl_builder_add_object(b, &child, &o));
    pl_counter_desc hits = {fc + PQ_HITS, fh + PQ_HITS, PERF_COUNTER_RAWCOUNT, 0, 100, 0, 0, 0};
    pl_counter_desc ratio = {fc + PQ_HIT_RATIO, fh + PQ_HIT_RATIO, PERF_RAW_FRACTION, 0, 100, 0,
                             PERF_RAW_BASE, fc + PQ_HIT_RATIO};
    pl_counter_desc bytes = {fc + PQ_BYTES, fh + PQ_BYTES, PERF_COUNTER_BULK_COUNT, 0, 200, -4, 0, 0};
    CHECK(pl_builder_add_counter(b, o, &hits, &c_hits));
    CHECK(pl_builder_add_counter(b, o, &ratio, &c_ratio));
    CHECK(pl_builder_add_counter(b, o, &bytes, &c_bytes));
    /* positions: Hits 0, Hit Ratio 1 and its base 2, Bytes/sec 3, marker 4 */
    pl_counter_desc unav = {PL_CTR_UNAVAILABLE_COUNTERS, PL_HELP(PL_CTR_UNAVAILABLE_COUNTERS),
                            PERF_COUNTER_LARGE_RAWCOUNT_HEX, 0, PERF_DETAIL_WIZARD, 0, 0, 0};
    CHECK(pl_builder_add_counter(b, o, &unav, &c_unav));
    /* alpha/one, alpha/two, beta/one, alpha/one#1 */
    static const struct {
        const char *name;
        uint32_t parent;
        uint32_t hits, num, den;
        uint64_t bytes, unav;
    } kids[] = {
        {"one", 0, 1, 1, 0, 1000, PL_UNAVAILABLE_BIT(2)}, /* the base of Hit Ratio */
        {"two", 0, 2, 2, 4, 0, PL_UNAVAILABLE_BIT(3)},    /* Bytes/sec */
        {"one", 1, 3, 3, 4, 3000, 0},
        {"one", 0, 4, 0, 0, 5000000000ull, 0},
    };
    for (unsigned k = 0; k < sizeof kids / sizeof kids[0]; k++) {
        CHECK(pl_builder_add_instance(b, o, kids[k].name, fc + PQ_PARENT, kids[k].parent, PERF_NO_UNIQUE_ID, &i));
        CHECK(pl_builder_set_u32(b, o, i, c_hits, kids[k].hits));
        CHECK(pl_builder_set_u32(b, o, i, c_ratio, kids[k].num));
        CHECK(pl_builder_set_base(b, o, i, c_ratio, kids[k].den));
        CHECK(pl_builder_set_u64(b, o, i, c_bytes, kids[k].bytes));
        CHECK(pl_builder_set_u64(b, o, i, c_unav, kids[k].unav));
    }
    /* Stand-ins for the built-in objects the summary reports, at their
     * Windows indices: System (Processes, Threads), Memory (Available
     * MBytes), Processor with two CPUs and _Total. */
    pl_object_desc sys = {2, 3, 100, -1, 0, 0, 0};
    CHECK(pl_builder_add_object(b, &sys, &o));
    pl_counter_desc procs = {248, 249, PERF_COUNTER_RAWCOUNT, 0, 100, 0, 0, 0};
    pl_counter_desc threads = {250, 251, PERF_COUNTER_RAWCOUNT, 0, 100, 0, 0, 0};
    CHECK(pl_builder_add_counter(b, o, &procs, &c_items));
    CHECK(pl_builder_set_u32(b, o, -1, c_items, 42));
    CHECK(pl_builder_add_counter(b, o, &threads, &c_items));
    CHECK(pl_builder_set_u32(b, o, -1, c_items, 314));
    pl_object_desc mem = {4, 5, 100, 0, 0, 0, 0};
    CHECK(pl_builder_add_object(b, &mem, &o));
    pl_counter_desc avail = {1382, 1383, PERF_COUNTER_LARGE_RAWCOUNT, 0, 100, 0, 0, 0};
    CHECK(pl_builder_add_counter(b, o, &avail, &c_items));
    CHECK(pl_builder_set_u64(b, o, -1, c_items, 2048));
    pl_object_desc cpu = {238, 239, 100, 0, 1, 0, 0};
    CHECK(pl_builder_add_object(b, &cpu, &o));
    pl_counter_desc busy = {6, 7, PERF_100NSEC_TIMER_INV, 0, 100, 0, 0, 0};
    CHECK(pl_builder_add_counter(b, o, &busy, &c_items));
    static const char *const cpus[] = {"0", "1", "_Total"};
    for (unsigned k = 0; k < 3; k++) {
        CHECK(pl_builder_add_instance(b, o, cpus[k], 0, 0, PERF_NO_UNIQUE_ID, &i));
        CHECK(pl_builder_set_u64(b, o, i, c_items, 1000000u * (k + 1u)));
    }
    return ERROR_SUCCESS;
}

DWORD PqOpen(LPWSTR device_names)
{
    (void)device_names;
    DWORD rc = pl_provider_first_indices("PerfqueryTest", &fc, &fh);
    if (rc != ERROR_SUCCESS) return rc;
    if (b) return ERROR_SUCCESS;
    b = pl_builder_new();
    if (!b) return ERROR_OUTOFMEMORY;
    rc = build();
    if (rc != ERROR_SUCCESS) {
        pl_builder_free(b);
        b = NULL;
    }
    return rc;
}

DWORD PqCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    pl_query_items q;
    pl_query_parse_w(query, &q);
    /* Everything or nothing: a consumer must cope with extra objects. */
    static const uint32_t fixed[] = {2, 4, 238};
    int wanted = b && (pl_query_wants(&q, fc + PQ_MACHINE, 0) || pl_query_wants(&q, fc + PQ_PARENT, 0) ||
                       pl_query_wants(&q, fc + PQ_CHILD, 0));
    for (unsigned k = 0; b && k < 3; k++) wanted |= pl_query_wants(&q, fixed[k], 0);
    if (!wanted) {
        *bytes = 0;
        *objects = 0;
        return ERROR_SUCCESS;
    }
    return pl_provider_emit(b, data, bytes, objects);
}

DWORD PqClose(void)
{
    pl_builder_free(b);
    b = NULL;
    return ERROR_SUCCESS;
}
