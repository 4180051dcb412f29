/* perflib: status code descriptions and the error-record helpers. */
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_internal.h"

PL_EXTERN const char *pl_strerror(int status)
{
    switch ((pl_status)status) {
    case PL_OK: return "success";
    case PL_E_NOMEM: return "out of memory";
    case PL_E_INVAL: return "invalid argument";
    case PL_E_MORE_DATA: return "buffer too small";
    case PL_E_BAD_BLOCK: return "malformed performance data block";
    case PL_E_NOT_FOUND: return "not found";
    case PL_E_EXISTS: return "already exists";
    case PL_E_IO: return "input/output error";
    case PL_E_STORE: return "registry store error";
    case PL_E_PARSE: return "malformed input";
    case PL_E_RANGE: return "value out of range";
    case PL_E_BUSY: return "registry store busy";
    case PL_E_PROVIDER: return "provider broke its contract";
    case PL_E_DISABLED: return "provider disabled";
    case PL_E_UNSUPPORTED: return "not supported";
    case PL_E_ENCODING: return "invalid text encoding";
    case PL_E_OS: return "operating system error";
    case PL_E_NO_DATA: return "no data yet";
    case PL_E_SCHEMA: return "registry store schema is newer than this library";
    case PL_E_REMOTE: return "remote machine not reachable or failed";
    case PL_E_AUTH: return "remote machine refused the credentials or was not trusted";
    case PL_E_UNSAFE: return "refused: others may change this file";
    case PL_E_DENIED: return "refused: not a configured remote machine";
    }
    return "unknown status";
}

PL_EXTERN void pl_free(void *p)
{
    free(p);
}

int pl__fail(pl_error *err, int status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->status = status;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return status;
}

#ifndef PL_INSTALL_PREFIX
#define PL_INSTALL_PREFIX "/usr/local"
#endif

int pl__running_installed(void)
{
    static int cached = -1; /* computed once; a benign race computes it twice */
    int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (v >= 0) return v;
    v = 0;
    Dl_info info;
    char self[PATH_MAX], prefix[PATH_MAX];
    if (dladdr((void *)&pl__running_installed, &info) && info.dli_fname && realpath(info.dli_fname, self) &&
        realpath(PL_INSTALL_PREFIX, prefix)) {
        size_t n = strlen(prefix);
        v = strncmp(self, prefix, n) == 0 && (self[n] == '/' || prefix[n - 1] == '/');
    }
    __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    return v;
}

const char *pl__strerror(int e, char *buf, size_t cap)
{
    /* _GNU_SOURCE: the GNU strerror_r, which returns the string to use. */
    return strerror_r(e, buf, cap);
}

void pl__clear(pl_error *err)
{
    if (err) {
        err->status = PL_OK;
        err->msg[0] = '\0';
    }
}
