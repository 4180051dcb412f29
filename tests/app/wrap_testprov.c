/* A wrapper that misbehaves on demand, for tests/app/test_wrap.c. It wraps
 * whatever its record says; WRAP_MODE (environment, read at each Collect)
 * chooses what it does with the original's result:
 *   crash     SIGSEGV in Collect
 *   badbytes  *bytes 4 more than the pointer moved (a contract break)
 *   drop      returns nothing (the original's objects lost)
 *   error     returns ERROR_ACCESS_DENIED
 *   anything else: passes the original's result through unchanged. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/provider.h"

PL_PROVIDER_EXPORT DWORD WrapOpen(LPWSTR device_names);
PL_PROVIDER_EXPORT DWORD WrapCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects);
PL_PROVIDER_EXPORT DWORD WrapClose(void);

DWORD WrapOpen(LPWSTR device_names)
{
    (void)device_names;
    return ERROR_SUCCESS;
}

DWORD WrapClose(void) { return ERROR_SUCCESS; }

DWORD WrapCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    (void)query;
    const char *mode = getenv("WRAP_MODE");
    mode = mode ? mode : "";
    uint8_t *base = *data;
    uint32_t len = 0;
    for (DWORD i = 0; i < *objects; i++) {
        PERF_OBJECT_TYPE o;
        memcpy(&o, base + len, sizeof o);
        len += o.TotalByteLength;
    }
    if (!strcmp(mode, "crash")) raise(SIGSEGV);
    if (!strcmp(mode, "error")) return 5; /* ERROR_ACCESS_DENIED */
    if (!strcmp(mode, "drop")) {
        *bytes = 0;
        *objects = 0;
        return ERROR_SUCCESS;
    }
    *data = base + len;
    *bytes = len + (strcmp(mode, "badbytes") ? 0 : 4);
    return ERROR_SUCCESS;
}
