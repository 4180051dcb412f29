/* MyCoolCounter: the seed article's hack made a supported feature. The
 * article registered its own DLL in place of the one that provides
 * "System", forwarded Open/Collect/Close to the original and added a
 * counter. Here the provider's record says `wraps=PerfOS`: the host loads
 * both, calls PerfOS, and then calls this Collect with PerfOS's result
 * already in the buffer (docs/provider-host.md, "Providers that wrap
 * providers"):
 *
 *   in:  *data points at the original's *objects objects (walk their
 *        TotalByteLength for their length), *bytes is the room from *data;
 *   out: the whole answer, the original's objects included, exactly as a
 *        Collect returns its own (pointer moved by *bytes, *objects).
 *
 * This one adds the counter "MyCoolCounter" (how many times it was
 * collected, PERF_COUNTER_LARGE_RAWCOUNT) to the System object (index 2)
 * and leaves every other object as it was. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mycoolsym.h"
#include "perflib/indices.h"
#include "perflib/provider.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static uint32_t first_counter, first_help;
static uint64_t collected;

PL_PROVIDER_EXPORT DWORD MyCoolOpen(LPWSTR device_names);
PL_PROVIDER_EXPORT DWORD MyCoolCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects);
PL_PROVIDER_EXPORT DWORD MyCoolClose(void);

DWORD MyCoolOpen(LPWSTR device_names)
{
    (void)device_names;
    pthread_mutex_lock(&mu);
    DWORD rc = pl_provider_first_indices("MyCoolCounter", &first_counter, &first_help);
    pthread_mutex_unlock(&mu);
    return rc;
}

DWORD MyCoolClose(void) { return ERROR_SUCCESS; }

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

static uint32_t up8(uint32_t v) { return (v + 7u) & ~7u; }

DWORD MyCoolCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    (void)query;
    uint8_t *base = *data;
    DWORD room = *bytes, n = *objects;
    /* The original's objects: their length, and the System object. The host
     * checked them, so each TotalByteLength is inside the buffer. */
    uint32_t len = 0, sys = UINT32_MAX;
    for (DWORD i = 0; i < n; i++) {
        PERF_OBJECT_TYPE o;
        memcpy(&o, base + len, sizeof o);
        if (o.ObjectNameTitleIndex == PL_OBJ_SYSTEM && o.NumInstances == PERF_NO_INSTANCES) sys = len;
        len += o.TotalByteLength;
    }
    pthread_mutex_lock(&mu);
    uint64_t value = collected + 1;
    pthread_mutex_unlock(&mu);
    if (sys != UINT32_MAX) {
        PERF_OBJECT_TYPE o;
        memcpy(&o, base + sys, sizeof o);
        uint32_t defs_end = o.DefinitionLength;              /* the counter block starts here */
        uint32_t block_len = rd32(base + sys + defs_end);    /* PERF_COUNTER_BLOCK.ByteLength */
        uint32_t value_off = up8(block_len);
        uint32_t new_block = value_off + 8;
        uint32_t new_total = up8(defs_end + (uint32_t)sizeof(PERF_COUNTER_DEFINITION) + new_block);
        uint32_t grow = new_total - o.TotalByteLength;
        if ((uint64_t)len + grow > room) {
            *bytes = 0;
            *objects = 0;
            return ERROR_MORE_DATA;
        }
        uint8_t *sysobj = malloc(new_total);
        if (!sysobj) return ERROR_OUTOFMEMORY;
        memset(sysobj, 0, new_total);
        memcpy(sysobj, base + sys, defs_end);                /* header and definitions */
        PERF_COUNTER_DEFINITION d = {.ByteLength = sizeof d,
                                     .CounterNameTitleIndex = first_counter + MYCOOL_COUNTER,
                                     .CounterHelpTitleIndex = first_help + MYCOOL_COUNTER,
                                     .DetailLevel = PERF_DETAIL_NOVICE,
                                     .CounterType = PERF_COUNTER_LARGE_RAWCOUNT,
                                     .CounterSize = 8,
                                     .CounterOffset = value_off};
        memcpy(sysobj + defs_end, &d, sizeof d);
        uint8_t *blk = sysobj + defs_end + sizeof d;
        memcpy(blk, base + sys + defs_end, block_len);       /* the original values */
        wr32(blk, new_block);
        memcpy(blk + value_off, &value, 8);
        o.TotalByteLength = new_total;
        o.DefinitionLength = defs_end + (uint32_t)sizeof d;
        o.NumCounters++;
        memcpy(sysobj, &o, sizeof o);
        /* Make room after System and put the new System in place. */
        uint32_t after = sys + (new_total - grow);
        memmove(base + after + grow, base + after, len - after);
        memcpy(base + sys, sysobj, new_total);
        free(sysobj);
        len += grow;
    }
    pthread_mutex_lock(&mu);
    collected = value;
    pthread_mutex_unlock(&mu);
    *data = base + len;
    *bytes = len;
    *objects = n;
    return ERROR_SUCCESS;
}
