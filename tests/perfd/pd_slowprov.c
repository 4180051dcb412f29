/* perfd's test provider: one object "PD Slow" with $PD_INSTANCES instances
 * (default 1) whose counter "Collections" is the number of Collect calls
 * so far, and a Collect that first sleeps $PD_SLOW_MS milliseconds (default
 * 0). Slow collections show requests sharing one; many instances make a
 * block larger than the socket buffers. From its $PD_FAIL_AFTER-th
 * collection on (when set) Collect returns an error; from its
 * $PD_BREAK_AFTER-th it breaks the Collect contract (reports bytes it did
 * not write), which gets it disabled. Entry points PdOpen/PdCollect/PdClose. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pdslowsym.h"
#include "perflib/provider.h"

PL_PROVIDER_EXPORT DWORD PdOpen(LPWSTR device_names);
PL_PROVIDER_EXPORT DWORD PdCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects);
PL_PROVIDER_EXPORT DWORD PdClose(void);

static uint32_t fc, fh, collections;
static long slow_ms, instances = 1, fail_after, break_after;

DWORD PdOpen(LPWSTR device_names)
{
    (void)device_names;
    const char *s = getenv("PD_SLOW_MS");
    if (s) slow_ms = strtol(s, NULL, 10);
    s = getenv("PD_INSTANCES");
    if (s) instances = strtol(s, NULL, 10);
    s = getenv("PD_FAIL_AFTER");
    if (s) fail_after = strtol(s, NULL, 10);
    s = getenv("PD_BREAK_AFTER");
    if (s) break_after = strtol(s, NULL, 10);
    if (instances < 1 || instances > 1000000) instances = 1;
    return pl_provider_first_indices("PerfdSlow", &fc, &fh);
}

DWORD PdCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    pl_query_items q;
    pl_query_parse_w(query, &q);
    if (!pl_query_wants(&q, fc + PD_SLOW, 0)) {
        *bytes = 0;
        *objects = 0;
        return ERROR_SUCCESS;
    }
    if (fail_after > 0 && (long)collections + 1 >= fail_after) {
        *bytes = 0;
        *objects = 0;
        return ERROR_INVALID_DATA;
    }
    if (break_after > 0 && (long)collections + 1 >= break_after) {
        *bytes = 8; /* a length it did not write, the pointer not moved */
        *objects = 1;
        return ERROR_SUCCESS;
    }
    if (slow_ms > 0) {
        struct timespec ts = {slow_ms / 1000, (slow_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    pl_builder *b = pl_builder_new();
    if (!b) return ERROR_OUTOFMEMORY;
    int o, c, i;
    DWORD rc = ERROR_INVALID_PARAMETER;
    pl_object_desc obj = {fc + PD_SLOW, fh + PD_SLOW, 100, 0, 1, 0, 0};
    pl_counter_desc ctr = {fc + PD_COLLECTIONS, fh + PD_COLLECTIONS, PERF_COUNTER_RAWCOUNT, 0, 100, 0, 0, 0};
    if (pl_builder_add_object(b, &obj, &o) != PL_OK || pl_builder_add_counter(b, o, &ctr, &c) != PL_OK) goto out;
    for (long k = 0; k < instances; k++) {
        char name[32];
        snprintf(name, sizeof name, "instance %ld", k);
        if (pl_builder_add_instance(b, o, name, 0, 0, PERF_NO_UNIQUE_ID, &i) != PL_OK) goto out;
        if (pl_builder_set_u32(b, o, i, c, collections + 1) != PL_OK) goto out;
    }
    rc = pl_provider_emit(b, data, bytes, objects);
    if (rc == ERROR_SUCCESS) collections++; /* a too-small buffer is retried: not a collection */
out:
    pl_builder_free(b);
    return rc;
}

DWORD PdClose(void)
{
    return ERROR_SUCCESS;
}
