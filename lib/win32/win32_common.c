/* lib/win32: the process-wide engine behind the registry and loadperf
 * functions, the perflib status -> Win32 error table, string helpers. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "pl_internal.h"
#include "win32/winerror.h"
#include "win32_internal.h"

/* g_rw: shared for every call that uses an engine, exclusive to swap or
 * close it. g_open_mu: the lazy open of the own engine (under g_rw shared). */
static pthread_rwlock_t g_rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t g_open_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_lang_mu = PTHREAD_MUTEX_INITIALIZER;
static pl_engine *g_own;       /* opened here, closed at exit */
static pl_engine *g_override;  /* pl_win32_set_engine, borrowed */
static int g_atexit_done;

static void close_own(void)
{
    pthread_rwlock_wrlock(&g_rw);
    pl_engine *e = g_own;
    g_own = NULL;
    pthread_rwlock_unlock(&g_rw);
    pl_engine_close(e);
}

int pl__w32_enter(int open, pl_engine **e)
{
    pthread_rwlock_rdlock(&g_rw);
    if (g_override) {
        *e = g_override;
        return PL_OK;
    }
    pthread_mutex_lock(&g_open_mu);
    int rc = PL_OK;
    if (!g_own && open) {
        pl_engine *ne = NULL;
        rc = pl_engine_open(NULL, &ne, NULL);
        if (rc == PL_OK) {
            g_own = ne;
            if (!g_atexit_done && atexit(close_own) == 0) g_atexit_done = 1;
        }
    }
    *e = g_own;
    pthread_mutex_unlock(&g_open_mu);
    return rc;
}

void pl__w32_leave(void)
{
    pthread_rwlock_unlock(&g_rw);
}

PL_EXTERN void pl_win32_set_engine(pl_engine *e)
{
    pthread_rwlock_wrlock(&g_rw);
    g_override = e;
    pthread_rwlock_unlock(&g_rw);
}

void pl__w32_default_language(pl_store *st, char *out, size_t cap)
{
    pthread_mutex_lock(&g_lang_mu);
    const char *l = pl_store_default_language(st);
    size_t n = l ? strlen(l) : 0;
    if (n >= cap) n = 0;
    if (n) memcpy(out, l, n);
    out[n] = '\0';
    pthread_mutex_unlock(&g_lang_mu);
    if (!out[0] && cap >= 4) memcpy(out, "009", 4);
}

PL_EXTERN uint32_t pl_win32_error_from_status(int status)
{
    switch (status) {
    case PL_OK: return ERROR_SUCCESS;
    case PL_E_NOMEM: return ERROR_OUTOFMEMORY;
    case PL_E_INVAL: return ERROR_INVALID_PARAMETER;
    case PL_E_MORE_DATA: return ERROR_MORE_DATA;
    case PL_E_NOT_FOUND: return ERROR_FILE_NOT_FOUND;
    case PL_E_EXISTS: return ERROR_ALREADY_EXISTS;
    case PL_E_IO: return ERROR_FILE_NOT_FOUND;
    case PL_E_PARSE:
    case PL_E_ENCODING:
    case PL_E_RANGE:
    case PL_E_BAD_BLOCK: return ERROR_INVALID_DATA;
    case PL_E_STORE:
    case PL_E_SCHEMA: return ERROR_BADDB;
    case PL_E_BUSY: return ERROR_BUSY;
    case PL_E_UNSUPPORTED: return ERROR_NOT_SUPPORTED;
    case PL_E_REMOTE: return ERROR_BAD_NETPATH;
    case PL_E_AUTH:
    case PL_E_DENIED: return ERROR_ACCESS_DENIED;
    default: return ERROR_GEN_FAILURE;
    }
}

char *pl__w32_narrow(const WCHAR *w, int *rc)
{
    *rc = PL_OK;
    if (!w) return NULL;
    size_t n = 0;
    while (w[n]) n++;
    char *out = NULL;
    int r = pl__utf16_to_utf8_dup(w, n, &out, 0);
    if (r != PL_OK) {
        *rc = r == PL_E_NOMEM ? PL_E_NOMEM : PL_E_ENCODING;
        free(out);
        return NULL;
    }
    return out;
}

int pl__w32_ieq(const char *a, const char *b)
{
    return strcasecmp(a, b) == 0;
}

int pl__w32_is_local(const char *m)
{
    if (!m) return 1;
    if (m[0] == '\\' && m[1] == '\\') m += 2;
    if (!*m || strcmp(m, ".") == 0 || strcasecmp(m, "localhost") == 0) return 1;
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0) return 0;
    host[sizeof host - 1] = '\0';
    if (strcasecmp(m, host) == 0) return 1;
    char *dot = strchr(host, '.');
    if (dot) {
        *dot = '\0';
        if (strcasecmp(m, host) == 0) return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ handles */

#define MAX_HANDLES 4096

static pthread_mutex_t g_h_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    void *obj;
    int kind;
} g_handles[MAX_HANDLES];
static size_t g_nhandles;

int pl__w32_handle_add(void *obj, int kind)
{
    pthread_mutex_lock(&g_h_mu);
    int rc = PL_E_NOMEM;
    if (g_nhandles < MAX_HANDLES) {
        g_handles[g_nhandles].obj = obj;
        g_handles[g_nhandles].kind = kind;
        g_nhandles++;
        rc = PL_OK;
    }
    pthread_mutex_unlock(&g_h_mu);
    return rc;
}

static size_t find_handle(const void *h)
{
    for (size_t i = 0; i < g_nhandles; i++)
        if (g_handles[i].obj == h) return i;
    return SIZE_MAX;
}

int pl__w32_handle_get(const void *h, int kind, void *copy, size_t size)
{
    pthread_mutex_lock(&g_h_mu);
    size_t i = h ? find_handle(h) : SIZE_MAX;
    int ok = i != SIZE_MAX && g_handles[i].kind == kind;
    if (ok && copy) memcpy(copy, g_handles[i].obj, size);
    pthread_mutex_unlock(&g_h_mu);
    return ok;
}

int pl__w32_handle_kind(const void *h)
{
    pthread_mutex_lock(&g_h_mu);
    size_t i = h ? find_handle(h) : SIZE_MAX;
    int kind = i == SIZE_MAX ? 0 : g_handles[i].kind;
    pthread_mutex_unlock(&g_h_mu);
    return kind;
}

void *pl__w32_handle_remove(const void *h, int kind)
{
    pthread_mutex_lock(&g_h_mu);
    size_t i = h ? find_handle(h) : SIZE_MAX;
    void *obj = NULL;
    if (i != SIZE_MAX && g_handles[i].kind == kind) {
        obj = g_handles[i].obj;
        g_handles[i] = g_handles[--g_nhandles];
    }
    pthread_mutex_unlock(&g_h_mu);
    return obj;
}
