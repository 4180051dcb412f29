/* A provider that misbehaves on purpose, one way per build (TP_MODE), for the
 * host tests. It answers with one object "Cache" (86) holding one counter
 * "% Processor Time" (6), both in the base set, unless its mode says
 * otherwise. The test reads tp_open_calls/tp_collect_calls/tp_close_calls
 * through dlsym to see what the host did. */
#include <stdint.h>
#include <string.h>

#include "perflib/block.h"
#include "perflib/provider.h"

#define TP_GOOD 0
#define TP_WRONG_BYTES 1     /* *bytes says 8 more than written */
#define TP_NO_ADVANCE 2      /* the pointer is not moved */
#define TP_MISALIGNED 3      /* 4 extra bytes: not a multiple of 8 */
#define TP_CORRUPT 4         /* an object whose DefinitionLength is wrong */
#define TP_OPEN_ERROR 5      /* Open fails the first time, then works */
#define TP_COLLECT_ERROR 6   /* Collect fails the first time, then works */
#define TP_ENDLESS_MORE 7    /* always ERROR_MORE_DATA */
#define TP_BAD_INDEX 8       /* an object index outside the base set and any range */
#define TP_NEEDS_BIG 9       /* MORE_DATA until it gets 300,000 bytes */
#define TP_OVERRUN 10        /* writes past the end of the buffer it was given */
#define TP_WRONG_COUNT 11    /* *objects says 2 for 1 object */
#define TP_MORE_DATA_LIES 12 /* ERROR_MORE_DATA with *bytes not 0 */
#define TP_CHILD 13          /* a child object (232) whose instances name parent 230 */
#define TP_PARENT 14         /* the parent object 230 */

#ifndef TP_MODE
#error "build with -DTP_MODE=..."
#endif

PL_PROVIDER_EXPORT int tp_open_calls, tp_collect_calls, tp_close_calls;
PL_PROVIDER_EXPORT char tp_last_query[256];
PL_PROVIDER_EXPORT char tp_last_linkage[256];

PL_PROVIDER_EXPORT DWORD TpOpen(LPWSTR linkage);
PL_PROVIDER_EXPORT DWORD TpClose(void);
PL_PROVIDER_EXPORT DWORD TpCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects);

static pl_builder *b;

PL_PROVIDER_EXPORT DWORD TpOpen(LPWSTR linkage)
{
    tp_open_calls++;
    tp_last_linkage[0] = '\0';
    for (size_t i = 0; linkage && linkage[i] && i < sizeof tp_last_linkage - 1; i++) {
        tp_last_linkage[i] = (char)linkage[i];
        tp_last_linkage[i + 1] = '\0';
    }
    if (TP_MODE == TP_OPEN_ERROR && tp_open_calls == 1) return 5;
    if (!b) b = pl_builder_new();
    return b ? 0 : ERROR_OUTOFMEMORY;
}

PL_PROVIDER_EXPORT DWORD TpClose(void)
{
    tp_close_calls++;
    pl_builder_free(b);
    b = NULL;
    return 0;
}

static int build(uint32_t obj_index)
{
    pl_builder_reset(b);
    pl_object_desc od = {.name_index = obj_index, .help_index = obj_index + 1, .default_counter = -1,
                         .has_instances = TP_MODE == TP_CHILD || TP_MODE == TP_PARENT};
    int o, c;
    if (pl_builder_add_object(b, &od, &o) != PL_OK) return -1;
    pl_counter_desc cd = {.name_index = 6, .help_index = 7, .type = PERF_COUNTER_RAWCOUNT};
    if (pl_builder_add_counter(b, o, &cd, &c) != PL_OK) return -1;
    if (TP_MODE == TP_CHILD) {
        int i0, i1;
        pl_builder_add_instance(b, o, "0", 230, 0, -1, &i0);
        pl_builder_add_instance(b, o, "1", 230, 0, -1, &i1);
        pl_builder_set_u32(b, o, i0, c, 10);
        pl_builder_set_u32(b, o, i1, c, 11);
    } else if (TP_MODE == TP_PARENT) {
        int i0;
        pl_builder_add_instance(b, o, "proc", 0, 0, -1, &i0);
        pl_builder_set_u32(b, o, i0, c, 7);
    } else {
        pl_builder_set_u32(b, o, -1, c, 42 + (uint32_t)tp_collect_calls);
    }
    return 0;
}

PL_PROVIDER_EXPORT int tp_overlaps; /* Collect entered while another call was inside */
static int inflight;

static DWORD collect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects);

PL_PROVIDER_EXPORT DWORD TpCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    if (__atomic_add_fetch(&inflight, 1, __ATOMIC_SEQ_CST) > 1) __atomic_add_fetch(&tp_overlaps, 1, __ATOMIC_SEQ_CST);
    DWORD rc = collect(query, data, bytes, objects);
    __atomic_sub_fetch(&inflight, 1, __ATOMIC_SEQ_CST);
    return rc;
}

static DWORD collect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    tp_collect_calls++;
    tp_last_query[0] = '\0';
    for (size_t i = 0; query && query[i] && i < sizeof tp_last_query - 1; i++) {
        tp_last_query[i] = (char)query[i];
        tp_last_query[i + 1] = '\0';
    }
    pl_query_items q;
    pl_query_parse_w(query, &q);
    uint32_t index = TP_MODE == TP_BAD_INDEX ? 5000 : TP_MODE == TP_CHILD ? 232 : TP_MODE == TP_PARENT ? 230 : 86;
    if (!pl_query_wants(&q, index, 0)) {
        *bytes = 0;
        *objects = 0;
        return 0;
    }
    if (TP_MODE == TP_COLLECT_ERROR && tp_collect_calls == 1) {
        *bytes = 0;
        *objects = 0;
        return 31; /* ERROR_GEN_FAILURE */
    }
    if (TP_MODE == TP_ENDLESS_MORE || (TP_MODE == TP_NEEDS_BIG && *bytes < 300000)) {
        *bytes = 0;
        *objects = 0;
        return ERROR_MORE_DATA;
    }
    if (TP_MODE == TP_MORE_DATA_LIES) {
        *bytes = 16;
        *objects = 0;
        return ERROR_MORE_DATA;
    }
    if (build(index) != 0) return ERROR_OUTOFMEMORY;
    DWORD room = *bytes;
    uint8_t *start = *data;
    DWORD rc = pl_provider_emit(b, data, bytes, objects);
    if (rc != 0) return rc;
    switch (TP_MODE) {
    case TP_WRONG_BYTES: *bytes += 8; break;
    case TP_NO_ADVANCE: *data = start; break;
    case TP_MISALIGNED:
        *bytes += 4;
        *data = start + *bytes;
        break;
    case TP_CORRUPT: {
        uint32_t deflen = 3; /* DefinitionLength smaller than the header */
        memcpy(start + 4, &deflen, 4);
        break;
    }
    case TP_OVERRUN: memset(start, 0xEE, room + 16); break; /* 16 bytes past: into the host's guard */
    case TP_WRONG_COUNT: *objects = 2; break;
    default: break;
    }
    return 0;
}
