/* HKLM\SYSTEM\CurrentControlSet\Services\<name>[\Performance|\Linkage]:
 * a provider's own registry keys, served from its record in the registry
 * store (docs/win32.md, "A provider's own key").
 *
 * The keys are real handles (an allocation registered in a table, so a
 * stale or foreign handle is ERROR_INVALID_HANDLE, never a read through a
 * wild pointer). Every call opens the store afresh: the store of the engine
 * the registry functions use when one is set or open, else the default
 * store. A provider calls these from its Open, possibly inside a host that is
 * itself answering a query of this process's engine, so nothing here takes
 * the engine's or the store's locks across a call into the other. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pl_internal.h"
#include "win32/winreg.h"
#include "win32_internal.h"

#define SVC_MAGIC 0x53564b59u /* "SVKY" */
#define SERVICES_PATH "SYSTEM\\CurrentControlSet\\Services"
#define MAX_KEYS 4096
#define NAME_MAX_BYTES 256

enum { LV_ROOT, LV_SERVICE, LV_PERF, LV_LINKAGE };

typedef struct svc_key {
    uint32_t magic;
    int level;
    REGSAM sam;
    char name[NAME_MAX_BYTES + 1]; /* the service, as the caller spelled it */
} svc_key;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static svc_key *g_keys[MAX_KEYS];
static size_t g_nkeys;

static int registered(const void *k)
{
    for (size_t i = 0; i < g_nkeys; i++)
        if (g_keys[i] == k) return 1;
    return 0;
}

/* A copy of the key behind a handle; 0 when the handle is not one of ours. */
static int lookup(HKEY h, svc_key *out)
{
    pthread_mutex_lock(&g_mu);
    int ok = h && registered(h);
    if (ok) *out = *(const svc_key *)(const void *)h;
    pthread_mutex_unlock(&g_mu);
    return ok;
}

int pl__w32_svc_is(HKEY h)
{
    svc_key k;
    return lookup(h, &k);
}

static LSTATUS new_handle(int level, const char *name, REGSAM sam, PHKEY out)
{
    svc_key *k = calloc(1, sizeof *k);
    if (!k) return (LSTATUS)ERROR_OUTOFMEMORY;
    k->magic = SVC_MAGIC;
    k->level = level;
    k->sam = sam;
    if (name) memcpy(k->name, name, strlen(name) + 1);
    pthread_mutex_lock(&g_mu);
    int ok = g_nkeys < MAX_KEYS;
    if (ok) g_keys[g_nkeys++] = k;
    pthread_mutex_unlock(&g_mu);
    if (!ok) {
        free(k);
        return (LSTATUS)ERROR_OUTOFMEMORY; /* Windows: too many open keys */
    }
    *out = (HKEY)(void *)k;
    return (LSTATUS)ERROR_SUCCESS;
}

LSTATUS pl__w32_svc_close(HKEY h)
{
    pthread_mutex_lock(&g_mu);
    svc_key *found = NULL;
    for (size_t i = 0; i < g_nkeys; i++) {
        if (g_keys[i] == (void *)h) {
            found = g_keys[i];
            g_keys[i] = g_keys[--g_nkeys];
            break;
        }
    }
    pthread_mutex_unlock(&g_mu);
    if (!found) return (LSTATUS)ERROR_INVALID_HANDLE;
    free(found);
    return (LSTATUS)ERROR_SUCCESS;
}

/* ------------------------------------------------------------ the store */

/* The store to use, opened for this call: the engine's store path when an
 * engine is set or open, else the default. */
static int svc_store(int write, pl_store **st)
{
    pl_engine *e = NULL;
    (void)pl__w32_enter(0, &e);
    char *path = NULL;
    int rc = PL_OK;
    if (e) {
        const char *p = pl_store_path(pl_engine_store(e));
        if (p && !(path = strdup(p))) rc = PL_E_NOMEM;
    }
    pl__w32_leave();
    if (rc == PL_OK) rc = pl_store_open(path, write ? 0 : PL_STORE_READONLY, st, NULL);
    free(path);
    return rc;
}

static int svc_record(const char *name, pl_provider_info *info)
{
    memset(info, 0, sizeof *info);
    pl_store *st = NULL;
    int rc = svc_store(0, &st);
    if (rc == PL_OK) {
        rc = pl_store_provider(st, name, info, NULL);
        pl_store_close(st);
    }
    return rc;
}

/* --------------------------------------------------------------- paths */

/* Split "a\b\c" (backslashes trimmed) into at most `max` components; 0 when
 * there are more, or one is empty or too long. */
static int split(const char *path, char comp[][NAME_MAX_BYTES + 1], int max, int *n)
{
    *n = 0;
    while (*path == '\\') path++;
    while (*path) {
        const char *e = strchr(path, '\\');
        size_t len = e ? (size_t)(e - path) : strlen(path);
        if (len == 0) {
            path++; /* "a\\b": Windows treats a doubled separator as one */
            continue;
        }
        if (*n >= max || len > NAME_MAX_BYTES) return 0;
        memcpy(comp[*n], path, len);
        comp[*n][len] = '\0';
        (*n)++;
        path += len;
        while (*path == '\\') path++;
    }
    return 1;
}

/* Does `path` (from HKLM) start with SYSTEM\CurrentControlSet\Services? Then
 * *rest is what follows it ("" or starting after a backslash). */
int pl__w32_svc_path(const char *path, const char **rest)
{
    while (*path == '\\') path++;
    size_t n = strlen(SERVICES_PATH);
    if (strncasecmp(path, SERVICES_PATH, n) != 0) return 0;
    if (path[n] != '\0' && path[n] != '\\') return 0;
    *rest = path + n;
    return 1;
}

/* Resolve `sub` below a key at (level, name); create the provider record
 * when `create` and the target is its Performance key. */
static LSTATUS resolve(int level, const char *name, const char *sub, REGSAM sam, int create, PHKEY out,
                       LPDWORD disposition)
{
    char comp[3][NAME_MAX_BYTES + 1];
    int n = 0;
    if (!split(sub ? sub : "", comp, 3, &n)) return (LSTATUS)ERROR_FILE_NOT_FOUND;
    char svc[NAME_MAX_BYTES + 1];
    svc[0] = '\0';
    if (name) memcpy(svc, name, strlen(name) + 1);
    int lv = level;
    for (int i = 0; i < n; i++) {
        if (lv == LV_ROOT) {
            memcpy(svc, comp[i], strlen(comp[i]) + 1);
            lv = LV_SERVICE;
        } else if (lv == LV_SERVICE && strcasecmp(comp[i], "Performance") == 0) {
            lv = LV_PERF;
        } else if (lv == LV_SERVICE && strcasecmp(comp[i], "Linkage") == 0) {
            lv = LV_LINKAGE;
        } else {
            return (LSTATUS)ERROR_FILE_NOT_FOUND;
        }
    }
    if (disposition) *disposition = REG_OPENED_EXISTING_KEY;
    if (lv == LV_ROOT) return new_handle(lv, NULL, sam, out);
    pl_provider_info info;
    int rc = svc_record(svc, &info);
    if (rc == PL_OK) {
        int missing = lv == LV_LINKAGE && !info.linkage_export;
        pl_provider_info_clear(&info);
        if (!missing || create) return new_handle(lv, svc, sam, out);
        return (LSTATUS)ERROR_FILE_NOT_FOUND;
    }
    if (rc != PL_E_NOT_FOUND) return (LSTATUS)pl_win32_error_from_status(rc);
    if (!create) return (LSTATUS)ERROR_FILE_NOT_FOUND;
    /* RegCreateKeyEx of a new service's key: create its provider record,
     * isolated as lodctr makes new providers (docs/provider-host.md). */
    pl_store *st = NULL;
    rc = svc_store(1, &st);
    if (rc != PL_OK) return (LSTATUS)ERROR_ACCESS_DENIED;
    pl_provider_info p;
    memset(&p, 0, sizeof p);
    p.name = svc;
    p.isolation = PL_ISOLATION_HELPER;
    rc = pl_store_set_provider(st, &p, NULL);
    pl_store_close(st);
    if (rc == PL_E_INVAL) return (LSTATUS)ERROR_INVALID_PARAMETER; /* not a valid service name */
    if (rc != PL_OK) return (LSTATUS)ERROR_ACCESS_DENIED;
    if (disposition) *disposition = REG_CREATED_NEW_KEY;
    return new_handle(lv, svc, sam, out);
}

LSTATUS pl__w32_svc_open_hklm(const char *rest, REGSAM sam, int create, PHKEY out, LPDWORD disposition)
{
    return resolve(LV_ROOT, NULL, rest, sam, create, out, disposition);
}

LSTATUS pl__w32_svc_open_sub(HKEY parent, const char *sub, REGSAM sam, int create, PHKEY out, LPDWORD disposition)
{
    svc_key k;
    if (!lookup(parent, &k)) return (LSTATUS)ERROR_INVALID_HANDLE;
    return resolve(k.level, k.level == LV_ROOT ? NULL : k.name, sub, sam, create, out, disposition);
}

/* -------------------------------------------------------------- values */

enum { V_SZ, V_DWORD, V_MULTI };

typedef struct value_def {
    const char *name;
    int level;
    int type;
    int writable;
} value_def;

/* Every value a provider's keys have, in enumeration order. */
static const value_def g_values[] = {
    {"Library", LV_PERF, V_SZ, 1},
    {"Open", LV_PERF, V_SZ, 1},
    {"Collect", LV_PERF, V_SZ, 1},
    {"Close", LV_PERF, V_SZ, 1},
    {"Object List", LV_PERF, V_SZ, 1},
    {"First Counter", LV_PERF, V_DWORD, 0},
    {"Last Counter", LV_PERF, V_DWORD, 0},
    {"First Help", LV_PERF, V_DWORD, 0},
    {"Last Help", LV_PERF, V_DWORD, 0},
    {"Disable Performance Counters", LV_PERF, V_DWORD, 1},
    {"Open Timeout", LV_PERF, V_DWORD, 1},
    {"Collect Timeout", LV_PERF, V_DWORD, 1},
    {"Export", LV_LINKAGE, V_MULTI, 1},
};
#define N_VALUES (sizeof g_values / sizeof g_values[0])

static const value_def *find_value(int level, const char *name)
{
    for (size_t i = 0; i < N_VALUES; i++)
        if (g_values[i].level == level && name && strcasecmp(name, g_values[i].name) == 0) return &g_values[i];
    return NULL;
}

/* The value from a record: a string (*s, may be NULL: absent) or a DWORD
 * (*present). */
static void value_of(const value_def *v, const pl_provider_info *p, const char **s, DWORD *d, int *present)
{
    *s = NULL;
    *d = 0;
    *present = 0;
    const char *n = v->name;
    if (strcmp(n, "Library") == 0) *s = p->library;
    else if (strcmp(n, "Open") == 0) *s = p->open;
    else if (strcmp(n, "Collect") == 0) *s = p->collect;
    else if (strcmp(n, "Close") == 0) *s = p->close;
    else if (strcmp(n, "Object List") == 0) *s = p->object_list;
    else if (strcmp(n, "Export") == 0) *s = p->linkage_export;
    else if (strcmp(n, "First Counter") == 0) *d = p->first_counter, *present = p->first_counter != 0;
    else if (strcmp(n, "Last Counter") == 0) *d = p->last_counter, *present = p->last_counter != 0;
    else if (strcmp(n, "First Help") == 0) *d = p->first_help, *present = p->first_help != 0;
    else if (strcmp(n, "Last Help") == 0) *d = p->last_help, *present = p->last_help != 0;
    else if (strcmp(n, "Disable Performance Counters") == 0) *d = p->disabled ? 1 : 0, *present = p->disabled;
    else if (strcmp(n, "Open Timeout") == 0) *d = p->open_timeout_ms, *present = p->open_timeout_ms != 0;
    else if (strcmp(n, "Collect Timeout") == 0) *d = p->collect_timeout_ms, *present = p->collect_timeout_ms != 0;
    if (*s) *present = 1;
}

/* Copy `n` bytes of value data out with the registry's size rules. */
static LSTATUS put_bytes(const void *src, size_t n, DWORD type, LPDWORD lpType, LPBYTE lpData, LPDWORD lpcbData)
{
    if (n > 0xFFFFFFFFu) return (LSTATUS)ERROR_GEN_FAILURE;
    if (lpType) *lpType = type;
    if (!lpData) {
        if (lpcbData) *lpcbData = (DWORD)n;
        return (LSTATUS)ERROR_SUCCESS;
    }
    if (*lpcbData < n) {
        *lpcbData = (DWORD)n;
        return (LSTATUS)ERROR_MORE_DATA;
    }
    memcpy(lpData, src, n);
    *lpcbData = (DWORD)n;
    return (LSTATUS)ERROR_SUCCESS;
}

/* A string value as REG_SZ (or REG_MULTI_SZ: the string, then an empty
 * one), UTF-8 or UTF-16LE. */
static LSTATUS put_string(const char *s, int multi, int wide, LPDWORD lpType, LPBYTE lpData, LPDWORD lpcbData)
{
    DWORD type = multi ? REG_MULTI_SZ : REG_SZ;
    size_t len = strlen(s);
    size_t terms = multi ? 2 : 1;
    if (!wide) {
        char *b = malloc(len + terms);
        if (!b) return (LSTATUS)ERROR_OUTOFMEMORY;
        memcpy(b, s, len);
        memset(b + len, 0, terms);
        LSTATUS r = put_bytes(b, len + terms, type, lpType, lpData, lpcbData);
        free(b);
        return r;
    }
    size_t units = 0;
    if (pl__utf8_to_utf16(s, len, NULL, 0, &units) == PL_E_ENCODING) return (LSTATUS)ERROR_INVALID_DATA;
    uint16_t *w = calloc(units + terms, sizeof *w);
    if (!w) return (LSTATUS)ERROR_OUTOFMEMORY;
    size_t got = 0;
    (void)pl__utf8_to_utf16(s, len, w, units, &got);
    LSTATUS r = put_bytes(w, (units + terms) * 2, type, lpType, lpData, lpcbData);
    free(w);
    return r;
}

static LSTATUS put_value(const value_def *v, const pl_provider_info *p, int wide, LPDWORD lpType, LPBYTE lpData,
                         LPDWORD lpcbData)
{
    const char *s;
    DWORD d;
    int present;
    value_of(v, p, &s, &d, &present);
    if (!present) return (LSTATUS)ERROR_FILE_NOT_FOUND;
    if (v->type == V_DWORD) return put_bytes(&d, 4, REG_DWORD, lpType, lpData, lpcbData);
    return put_string(s, v->type == V_MULTI, wide, lpType, lpData, lpcbData);
}

LSTATUS pl__w32_svc_query(HKEY h, const char *name, int wide, LPDWORD lpType, LPBYTE lpData, LPDWORD lpcbData)
{
    svc_key k;
    if (!lookup(h, &k)) return (LSTATUS)ERROR_INVALID_HANDLE;
    if (k.level == LV_ROOT || k.level == LV_SERVICE) return (LSTATUS)ERROR_FILE_NOT_FOUND;
    const value_def *v = find_value(k.level, name);
    if (!v) return (LSTATUS)ERROR_FILE_NOT_FOUND;
    pl_provider_info p;
    int rc = svc_record(k.name, &p);
    if (rc != PL_OK) return (LSTATUS)(rc == PL_E_NOT_FOUND ? ERROR_FILE_NOT_FOUND : pl_win32_error_from_status(rc));
    LSTATUS r = put_value(v, &p, wide, lpType, lpData, lpcbData);
    pl_provider_info_clear(&p);
    return r;
}

LSTATUS pl__w32_svc_enum_value(HKEY h, DWORD index, const char **name, int wide, LPDWORD lpType, LPBYTE lpData,
                               LPDWORD lpcbData)
{
    svc_key k;
    if (!lookup(h, &k)) return (LSTATUS)ERROR_INVALID_HANDLE;
    if (k.level == LV_ROOT || k.level == LV_SERVICE) return (LSTATUS)ERROR_NO_MORE_ITEMS;
    pl_provider_info p;
    int rc = svc_record(k.name, &p);
    if (rc != PL_OK) return (LSTATUS)(rc == PL_E_NOT_FOUND ? ERROR_NO_MORE_ITEMS : pl_win32_error_from_status(rc));
    DWORD seen = 0;
    LSTATUS r = (LSTATUS)ERROR_NO_MORE_ITEMS;
    for (size_t i = 0; i < N_VALUES; i++) {
        const char *s;
        DWORD d;
        int present;
        if (g_values[i].level != k.level) continue;
        value_of(&g_values[i], &p, &s, &d, &present);
        if (!present) continue;
        if (seen++ != index) continue;
        *name = g_values[i].name;
        r = lpData || lpType || lpcbData ? put_value(&g_values[i], &p, wide, lpType, lpData, lpcbData)
                                         : (LSTATUS)ERROR_SUCCESS;
        break;
    }
    pl_provider_info_clear(&p);
    return r;
}

LSTATUS pl__w32_svc_info(HKEY h, DWORD *subkeys, DWORD *maxsub, DWORD *values, DWORD *maxname, DWORD *maxval,
                         int wide)
{
    svc_key k;
    if (!lookup(h, &k)) return (LSTATUS)ERROR_INVALID_HANDLE;
    *subkeys = *maxsub = *values = *maxname = *maxval = 0;
    if (k.level == LV_ROOT) return (LSTATUS)ERROR_SUCCESS;
    pl_provider_info p;
    int rc = svc_record(k.name, &p);
    if (rc != PL_OK) return (LSTATUS)(rc == PL_E_NOT_FOUND ? ERROR_SUCCESS : pl_win32_error_from_status(rc));
    if (k.level == LV_SERVICE) {
        *subkeys = p.linkage_export ? 2 : 1;
        *maxsub = 11; /* "Performance" */
    }
    for (size_t i = 0; i < N_VALUES; i++) {
        const char *s;
        DWORD d;
        int present;
        if (g_values[i].level != k.level) continue;
        value_of(&g_values[i], &p, &s, &d, &present);
        if (!present) continue;
        (*values)++;
        DWORD nl = (DWORD)strlen(g_values[i].name);
        if (nl > *maxname) *maxname = nl;
        size_t vl = 4;
        if (s) {
            size_t units = strlen(s);
            if (wide) (void)pl__utf8_to_utf16(s, strlen(s), NULL, 0, &units);
            vl = (units + (g_values[i].type == V_MULTI ? 2 : 1)) * (wide ? 2 : 1);
        }
        if (vl > *maxval) *maxval = (DWORD)(vl > 0xFFFFFFFFu ? 0xFFFFFFFFu : vl);
    }
    pl_provider_info_clear(&p);
    return (LSTATUS)ERROR_SUCCESS;
}

LSTATUS pl__w32_svc_enum_key(HKEY h, DWORD index, const char **name)
{
    svc_key k;
    if (!lookup(h, &k)) return (LSTATUS)ERROR_INVALID_HANDLE;
    if (k.level != LV_SERVICE) return (LSTATUS)ERROR_NO_MORE_ITEMS;
    pl_provider_info p;
    int rc = svc_record(k.name, &p);
    if (rc != PL_OK) return (LSTATUS)ERROR_NO_MORE_ITEMS;
    int has_link = p.linkage_export != NULL;
    pl_provider_info_clear(&p);
    if (index == 0 && has_link) *name = "Linkage";
    else if (index == (DWORD)has_link) *name = "Performance";
    else return (LSTATUS)ERROR_NO_MORE_ITEMS;
    return (LSTATUS)ERROR_SUCCESS;
}

/* A string from value data: up to the first NUL or cbData (UTF-8 from the
 * A form, UTF-16 from the W form); a MULTI_SZ keeps its first string (the
 * Linkage Export of a provider names its devices, one is what Open gets). */
static int data_string(const BYTE *data, DWORD cb, int wide, char **out)
{
    *out = NULL;
    if (!data && cb) return PL_E_INVAL;
    if (!wide) {
        size_t n = strnlen((const char *)data, cb);
        *out = malloc(n + 1);
        if (!*out) return PL_E_NOMEM;
        if (n) memcpy(*out, data, n);
        (*out)[n] = '\0';
        return PL_OK;
    }
    if (cb % 2) return PL_E_INVAL;
    return pl__utf16_to_utf8_dup(data, cb / 2, out, 0);
}

static int set_field(pl_provider_info *p, const value_def *v, char *s, DWORD d, int *enable, int *disable)
{
    char **slot = NULL;
    const char *n = v->name;
    if (strcmp(n, "Library") == 0) slot = &p->library;
    else if (strcmp(n, "Open") == 0) slot = &p->open;
    else if (strcmp(n, "Collect") == 0) slot = &p->collect;
    else if (strcmp(n, "Close") == 0) slot = &p->close;
    else if (strcmp(n, "Object List") == 0) slot = &p->object_list;
    else if (strcmp(n, "Export") == 0) slot = &p->linkage_export;
    else if (strcmp(n, "Open Timeout") == 0) p->open_timeout_ms = d;
    else if (strcmp(n, "Collect Timeout") == 0) p->collect_timeout_ms = d;
    else if (strcmp(n, "Disable Performance Counters") == 0) *(d ? disable : enable) = 1;
    if (slot) {
        free(*slot);
        *slot = s;
        return 1; /* took s */
    }
    return 0;
}

LSTATUS pl__w32_svc_set(HKEY h, const char *name, DWORD type, const BYTE *data, DWORD cb, int wide)
{
    svc_key k;
    if (!lookup(h, &k)) return (LSTATUS)ERROR_INVALID_HANDLE;
    if (!(k.sam & KEY_SET_VALUE)) return (LSTATUS)ERROR_ACCESS_DENIED;
    const value_def *v = find_value(k.level, name);
    /* perflib keeps only the values the host uses; First/Last Counter/Help
     * are lodctr's (its ranges must stay consistent with the titles). */
    if (!v || !v->writable) return (LSTATUS)ERROR_ACCESS_DENIED;
    char *s = NULL;
    DWORD d = 0;
    if (v->type == V_DWORD) {
        if (type != REG_DWORD || cb != 4 || !data) return (LSTATUS)ERROR_INVALID_PARAMETER;
        memcpy(&d, data, 4);
    } else {
        int ok = type == REG_SZ || type == REG_EXPAND_SZ || (v->type == V_MULTI && type == REG_MULTI_SZ);
        if (!ok) return (LSTATUS)ERROR_INVALID_PARAMETER;
        int rc = data_string(data, cb, wide, &s);
        if (rc != PL_OK) return (LSTATUS)(rc == PL_E_NOMEM ? ERROR_OUTOFMEMORY : ERROR_INVALID_PARAMETER);
    }
    pl_store *st = NULL;
    int rc = svc_store(1, &st);
    if (rc != PL_OK) {
        free(s);
        return (LSTATUS)ERROR_ACCESS_DENIED;
    }
    pl_provider_info p;
    memset(&p, 0, sizeof p);
    rc = pl_store_provider(st, k.name, &p, NULL);
    LSTATUS ret = (LSTATUS)ERROR_SUCCESS;
    if (rc == PL_OK) {
        int enable = 0, disable = 0;
        if (set_field(&p, v, s, d, &enable, &disable)) s = NULL;
        if (p.object_list && !*p.object_list) {
            free(p.object_list);
            p.object_list = NULL;
        }
        if (enable && p.disabled) rc = pl_store_enable_provider(st, k.name, NULL);
        else if (disable && !p.disabled)
            rc = pl_store_disable_provider(st, k.name, "Disable Performance Counters set in the registry", NULL);
        else if (!enable && !disable) rc = pl_store_set_provider(st, &p, NULL);
    }
    if (rc == PL_E_NOT_FOUND) ret = (LSTATUS)ERROR_KEY_DELETED;
    else if (rc == PL_E_INVAL || rc == PL_E_ENCODING) ret = (LSTATUS)ERROR_INVALID_PARAMETER;
    else if (rc != PL_OK) ret = (LSTATUS)pl_win32_error_from_status(rc);
    pl_provider_info_clear(&p);
    pl_store_close(st);
    free(s);
    return ret;
}
