/* The registry functions of include/win32/winreg.h over the query engine:
 * the performance keys (HKPD/HKPT/HKPN) and, read-only, the Perflib key.
 * The behaviours are Windows' (docs/win32.md, the reference's
 * win32-behaviour.md points 3, 4 and 6). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perflib/winperf.h"
#include "pl_internal.h"
#include "win32/winreg.h"
#include "win32_internal.h"

enum { K_BAD, K_HKPD, K_HKPT, K_HKPN, K_HKLM, K_PERFLIB, K_SVC };

/* The handle of HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Perflib:
 * the address of a private object, so it cannot collide with another key. */
static const char g_perflib_tag = 'P';
#define PERFLIB_KEY ((HKEY)(uintptr_t)&g_perflib_tag)
#define PERFLIB_PATH "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib"

static int key_kind(HKEY k)
{
    if (k == HKEY_PERFORMANCE_DATA) return K_HKPD;
    if (k == HKEY_PERFORMANCE_TEXT) return K_HKPT;
    if (k == HKEY_PERFORMANCE_NLSTEXT) return K_HKPN;
    if (k == HKEY_LOCAL_MACHINE) return K_HKLM;
    if (k == PERFLIB_KEY) return K_PERFLIB;
    if (pl__w32_svc_is(k)) return K_SVC;
    return K_BAD;
}

static int is_perf(int kind)
{
    return kind == K_HKPD || kind == K_HKPT || kind == K_HKPN;
}

/* "counter..." / "help..." / "explain..." (case-insensitive prefix), then an
 * optional language: 3 or 4 hex digits as the next word. */
static int title_name(const char *name, int *kind, char lang[8])
{
    static const struct { const char *w; int kind; } words[] = {
        {"counter", PL_TITLE_NAME}, {"help", PL_TITLE_HELP}, {"explain", PL_TITLE_HELP}};
    if (!name) return 0;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i].w);
        if (strncasecmp(name, words[i].w, n) != 0) continue;
        *kind = words[i].kind;
        lang[0] = '\0';
        const char *r = name + n;
        while (*r == ' ' || *r == '\t') r++;
        size_t k = 0;
        while (k < 5 && isxdigit((unsigned char)r[k])) k++;
        if (k >= 3 && k <= 4 && (r[k] == '\0' || r[k] == ' ' || r[k] == '\t')) {
            for (size_t j = 0; j < k; j++) lang[j] = (char)toupper((unsigned char)r[j]);
            lang[k] = '\0';
        }
        return 1;
    }
    return 0;
}

static LSTATUS query_text(pl_engine *e, int key, int kind, const char *lang, int wide, LPDWORD lpType,
                          LPBYTE lpData, LPDWORD lpcbData)
{
    pl_store *st = pl_engine_store(e);
    char lng[16];
    if (lang[0]) memcpy(lng, lang, strlen(lang) + 1); /* at most 4 digits */
    else if (key == K_HKPN) pl__w32_default_language(st, lng, sizeof lng);
    else memcpy(lng, "009", 4);
    pl_titles *t = NULL;
    int rc = pl_titles_load(st, lng, &t, NULL);
    if (rc != PL_OK) return (LSTATUS)pl_win32_error_from_status(rc);
    size_t need = 0;
    int flags = wide ? PL_MULTISZ_UTF16 : 0;
    rc = pl_titles_export_multisz(t, kind, flags, NULL, 0, &need);
    if (rc != PL_OK && rc != PL_E_MORE_DATA) {
        pl_titles_free(t);
        return (LSTATUS)pl_win32_error_from_status(rc);
    }
    if (need > 0xFFFFFFFFu) {
        pl_titles_free(t);
        return (LSTATUS)ERROR_GEN_FAILURE;
    }
    LSTATUS ret = (LSTATUS)ERROR_SUCCESS;
    if (lpType) *lpType = REG_MULTI_SZ;
    if (!lpData) {
        if (lpcbData) *lpcbData = (DWORD)need;
    } else if (*lpcbData < need) {
        *lpcbData = (DWORD)need;
        ret = (LSTATUS)ERROR_MORE_DATA;
    } else {
        rc = pl_titles_export_multisz(t, kind, flags, lpData, *lpcbData, &need);
        if (rc == PL_OK) *lpcbData = (DWORD)need;
        else ret = (LSTATUS)pl_win32_error_from_status(rc);
    }
    pl_titles_free(t);
    return ret;
}

/* Windows' perflib fills the PERF_DATA_BLOCK header field by field in the
 * caller's buffer, so the bytes no field defines keep what the caller had
 * there: the 4 bytes between SystemTime and PerfTime (offsets 52-55) and
 * those between the end of the system name and HeaderLength. The engine's
 * block has zeros there; the caller's bytes, saved from the first `kept`
 * bytes of the buffer, go back. A header that does not look like the
 * engine's (a Foreign block that was not, say) is left as it came. */
#define HEAD_KEEP 512u
static void keep_header_padding(uint8_t *blk, size_t len, const uint8_t *saved, size_t kept)
{
    PERF_DATA_BLOCK h;
    if (len < sizeof h || kept < sizeof h) return;
    memcpy(&h, blk, sizeof h);
    size_t name_end = (size_t)h.SystemNameOffset + h.SystemNameLength;
    if (h.HeaderLength > len || h.HeaderLength > kept || h.SystemNameOffset < sizeof h || name_end > h.HeaderLength)
        return;
    size_t hole = offsetof(PERF_DATA_BLOCK, PerfTime);
    size_t time_end = offsetof(PERF_DATA_BLOCK, SystemTime) + sizeof h.SystemTime;
    memcpy(blk + time_end, saved + time_end, hole - time_end);
    memcpy(blk + name_end, saved + name_end, h.HeaderLength - name_end);
}

static LSTATUS query_data(pl_engine *e, const char *name, LPDWORD lpType, LPBYTE lpData, LPDWORD lpcbData)
{
    if (lpType) *lpType = REG_BINARY;
    if (!lpData) {
        if (lpcbData) *lpcbData = 0;
        return (LSTATUS)ERROR_MORE_DATA;
    }
    const char *q = name ? name : "";
    /* The engine skips leading blanks before a title word; Windows does
     * not, so " Counter" is a data query with an unknown word. */
    const char *p = q;
    while (*p == ' ' || *p == '\t') p++;
    int k;
    char l[8];
    if (p != q && title_name(p, &k, l)) q = "-";
    /* The caller's bytes where the block header has padding, put back after
     * the copy (keep_header_padding). */
    uint8_t head[HEAD_KEEP];
    size_t kept = *lpcbData < sizeof head ? *lpcbData : sizeof head;
    memcpy(head, lpData, kept);
    size_t needed = 0;
    uint32_t type = 0;
    int rc = pl_engine_query(e, q, lpData, *lpcbData, &needed, &type, NULL);
    if (rc == PL_E_MORE_DATA) return (LSTATUS)ERROR_MORE_DATA; /* *lpcbData unchanged, as Windows */
    if (rc == PL_E_UNSUPPORTED) return (LSTATUS)ERROR_BAD_NETPATH; /* Foreign without a remote client */
    if (rc != PL_OK) return (LSTATUS)pl_win32_error_from_status(rc);
    keep_header_padding(lpData, needed, head, kept);
    *lpcbData = (DWORD)needed;
    return (LSTATUS)ERROR_SUCCESS;
}

/* The Perflib key's values. */
static const char *const g_perflib_values[] = {"Base Index", "Last Counter", "Last Help"};
#define N_PERFLIB_VALUES 3u

static int perflib_value(pl_engine *e, const char *name, DWORD *v)
{
    pl_perflib_info info;
    int rc = pl_store_perflib(pl_engine_store(e), &info, NULL);
    if (rc != PL_OK) return rc;
    if (name && pl__w32_ieq(name, "Base Index")) *v = info.base_index;
    else if (name && pl__w32_ieq(name, "Last Counter")) *v = info.last_counter;
    else if (name && pl__w32_ieq(name, "Last Help")) *v = info.last_help;
    else return PL_E_NOT_FOUND;
    return PL_OK;
}

static LSTATUS put_dword(DWORD v, LPDWORD lpType, LPBYTE lpData, LPDWORD lpcbData)
{
    if (lpType) *lpType = REG_DWORD;
    if (!lpData) {
        if (lpcbData) *lpcbData = 4;
        return (LSTATUS)ERROR_SUCCESS;
    }
    if (*lpcbData < 4) {
        *lpcbData = 4;
        return (LSTATUS)ERROR_MORE_DATA;
    }
    memcpy(lpData, &v, 4);
    *lpcbData = 4;
    return (LSTATUS)ERROR_SUCCESS;
}

static LSTATUS query_value(HKEY hKey, const char *name, int wide, LPDWORD lpReserved, LPDWORD lpType,
                           LPBYTE lpData, LPDWORD lpcbData)
{
    int kind = key_kind(hKey);
    if (kind == K_BAD) return (LSTATUS)ERROR_INVALID_HANDLE;
    if (lpReserved || (lpData && !lpcbData)) return (LSTATUS)ERROR_INVALID_PARAMETER;
    if (kind == K_HKLM) return (LSTATUS)ERROR_FILE_NOT_FOUND;
    if (kind == K_SVC) return pl__w32_svc_query(hKey, name, wide, lpType, lpData, lpcbData);
    pl_engine *e = NULL;
    int rc = pl__w32_enter(1, &e);
    LSTATUS ret;
    if (rc != PL_OK) {
        ret = (LSTATUS)(rc == PL_E_NOMEM ? ERROR_OUTOFMEMORY : ERROR_REGISTRY_IO_FAILED);
    } else if (kind == K_PERFLIB) {
        DWORD v = 0;
        rc = perflib_value(e, name, &v);
        ret = rc == PL_OK ? put_dword(v, lpType, lpData, lpcbData) : (LSTATUS)pl_win32_error_from_status(rc);
    } else {
        int tk;
        char lang[8];
        if (title_name(name, &tk, lang)) ret = query_text(e, kind, tk, lang, wide, lpType, lpData, lpcbData);
        else ret = query_data(e, name, lpType, lpData, lpcbData);
    }
    pl__w32_leave();
    return ret;
}

PL_EXTERN LSTATUS WINAPI RegQueryValueExA(HKEY hKey, LPCSTR lpValueName, LPDWORD lpReserved, LPDWORD lpType,
                                          LPBYTE lpData, LPDWORD lpcbData)
{
    return query_value(hKey, lpValueName, 0, lpReserved, lpType, lpData, lpcbData);
}

PL_EXTERN LSTATUS WINAPI RegQueryValueExW(HKEY hKey, LPCWSTR lpValueName, LPDWORD lpReserved, LPDWORD lpType,
                                          LPBYTE lpData, LPDWORD lpcbData)
{
    if (key_kind(hKey) == K_BAD) return (LSTATUS)ERROR_INVALID_HANDLE;
    int rc;
    char *name = pl__w32_narrow(lpValueName, &rc);
    /* A name that is not valid UTF-16 cannot be a title name: an unknown
     * data query, as Windows answers any name it does not know. */
    LSTATUS ret = query_value(hKey, rc == PL_OK ? name : "-", 1, lpReserved, lpType, lpData, lpcbData);
    if (rc == PL_E_NOMEM) ret = (LSTATUS)ERROR_OUTOFMEMORY;
    free(name);
    return ret;
}

PL_EXTERN LSTATUS WINAPI RegCloseKey(HKEY hKey)
{
    /* The predefined keys are never really open; closing them is a no-op. */
    int kind = key_kind(hKey);
    if (kind == K_SVC) return pl__w32_svc_close(hKey);
    if (kind != K_BAD) return (LSTATUS)ERROR_SUCCESS;
    if (hKey == HKEY_CLASSES_ROOT || hKey == HKEY_CURRENT_USER || hKey == HKEY_USERS ||
        hKey == HKEY_CURRENT_CONFIG || hKey == HKEY_DYN_DATA)
        return (LSTATUS)ERROR_SUCCESS;
    return (LSTATUS)ERROR_INVALID_HANDLE;
}

/* ------------------------------------------------------------ open */

/* Strip leading and trailing backslashes into out; 0 if too long. */
static int trim_path(const char *in, char *out, size_t cap)
{
    while (*in == '\\') in++;
    size_t n = strlen(in);
    while (n && in[n - 1] == '\\') n--;
    if (n >= cap) return 0;
    memcpy(out, in, n);
    out[n] = '\0';
    return 1;
}

/* A subkey of the Perflib key: "009" is HKPT, "CurrentLanguage" and the
 * default language are HKPN. */
static LSTATUS perflib_subkey(const char *sub, PHKEY out)
{
    if (!*sub) {
        *out = PERFLIB_KEY;
        return (LSTATUS)ERROR_SUCCESS;
    }
    if (strcmp(sub, "009") == 0) {
        *out = HKEY_PERFORMANCE_TEXT;
        return (LSTATUS)ERROR_SUCCESS;
    }
    if (pl__w32_ieq(sub, "CurrentLanguage")) {
        *out = HKEY_PERFORMANCE_NLSTEXT;
        return (LSTATUS)ERROR_SUCCESS;
    }
    pl_engine *e = NULL;
    LSTATUS ret = (LSTATUS)ERROR_FILE_NOT_FOUND;
    if (pl__w32_enter(1, &e) == PL_OK) {
        char lang[16];
        pl__w32_default_language(pl_engine_store(e), lang, sizeof lang);
        if (pl__w32_ieq(sub, lang)) {
            *out = HKEY_PERFORMANCE_NLSTEXT;
            ret = (LSTATUS)ERROR_SUCCESS;
        }
    }
    pl__w32_leave();
    return ret;
}

static LSTATUS open_key(HKEY hKey, const char *sub, REGSAM sam, int create, PHKEY phkResult, LPDWORD disp)
{
    int kind = key_kind(hKey);
    if (is_perf(kind) || kind == K_BAD) {
        if (phkResult) *phkResult = NULL;
        return (LSTATUS)ERROR_INVALID_HANDLE;
    }
    if (!phkResult) return (LSTATUS)ERROR_INVALID_PARAMETER;
    *phkResult = NULL;
    if (kind == K_SVC) return pl__w32_svc_open_sub(hKey, sub, sam, create, phkResult, disp);
    const char *rest = NULL;
    if (kind == K_HKLM && sub && pl__w32_svc_path(sub, &rest))
        return pl__w32_svc_open_hklm(rest, sam, create, phkResult, disp);
    if (disp) *disp = REG_OPENED_EXISTING_KEY;
    if (create && kind == K_HKLM) return (LSTATUS)ERROR_ACCESS_DENIED; /* no other key can be made */
    char path[512];
    if (!trim_path(sub ? sub : "", path, sizeof path)) return (LSTATUS)ERROR_FILE_NOT_FOUND;
    if (kind == K_PERFLIB) return perflib_subkey(path, phkResult);
    /* HKLM */
    if (!path[0]) {
        *phkResult = HKEY_LOCAL_MACHINE;
        return (LSTATUS)ERROR_SUCCESS;
    }
    size_t n = strlen(PERFLIB_PATH);
    if (strncasecmp(path, PERFLIB_PATH, n) != 0) return (LSTATUS)ERROR_FILE_NOT_FOUND;
    if (path[n] == '\0') return perflib_subkey("", phkResult);
    if (path[n] != '\\') return (LSTATUS)ERROR_FILE_NOT_FOUND;
    return perflib_subkey(path + n + 1, phkResult);
}

static LSTATUS open_key_w(HKEY hKey, LPCWSTR lpSubKey, REGSAM samDesired, int create, PHKEY phkResult,
                          LPDWORD disp)
{
    int kind = key_kind(hKey);
    if (is_perf(kind) || kind == K_BAD) return open_key(hKey, NULL, samDesired, create, phkResult, disp);
    int rc;
    char *sub = pl__w32_narrow(lpSubKey, &rc);
    LSTATUS ret;
    if (rc == PL_E_NOMEM) ret = (LSTATUS)ERROR_OUTOFMEMORY;
    else if (rc != PL_OK) ret = (LSTATUS)ERROR_FILE_NOT_FOUND;
    else ret = open_key(hKey, sub, samDesired, create, phkResult, disp);
    if (rc != PL_OK && phkResult) *phkResult = NULL;
    free(sub);
    return ret;
}

PL_EXTERN LSTATUS WINAPI RegOpenKeyExA(HKEY hKey, LPCSTR lpSubKey, DWORD ulOptions, REGSAM samDesired,
                                       PHKEY phkResult)
{
    (void)ulOptions;
    return open_key(hKey, lpSubKey, samDesired, 0, phkResult, NULL);
}

PL_EXTERN LSTATUS WINAPI RegOpenKeyExW(HKEY hKey, LPCWSTR lpSubKey, DWORD ulOptions, REGSAM samDesired,
                                       PHKEY phkResult)
{
    (void)ulOptions;
    return open_key_w(hKey, lpSubKey, samDesired, 0, phkResult, NULL);
}

PL_EXTERN LSTATUS WINAPI RegOpenKeyA(HKEY hKey, LPCSTR lpSubKey, PHKEY phkResult)
{
    return RegOpenKeyExA(hKey, lpSubKey, 0, KEY_ALL_ACCESS, phkResult);
}

PL_EXTERN LSTATUS WINAPI RegOpenKeyW(HKEY hKey, LPCWSTR lpSubKey, PHKEY phkResult)
{
    return RegOpenKeyExW(hKey, lpSubKey, 0, KEY_ALL_ACCESS, phkResult);
}

/* RegCreateKeyEx: opens the keys above, and creates a provider's
 * Services\<name>\Performance (and Linkage) key; nothing else can be made. */
PL_EXTERN LSTATUS WINAPI RegCreateKeyExA(HKEY hKey, LPCSTR lpSubKey, DWORD Reserved, LPSTR lpClass, DWORD dwOptions,
                                         REGSAM samDesired, LPSECURITY_ATTRIBUTES lpSecurityAttributes, PHKEY phkResult,
                                         LPDWORD lpdwDisposition)
{
    (void)Reserved;
    (void)lpClass;
    (void)dwOptions;
    (void)lpSecurityAttributes;
    if (!lpSubKey) return (LSTATUS)ERROR_INVALID_PARAMETER;
    return open_key(hKey, lpSubKey, samDesired, 1, phkResult, lpdwDisposition);
}

PL_EXTERN LSTATUS WINAPI RegCreateKeyExW(HKEY hKey, LPCWSTR lpSubKey, DWORD Reserved, LPWSTR lpClass,
                                         DWORD dwOptions, REGSAM samDesired, LPSECURITY_ATTRIBUTES lpSecurityAttributes,
                                         PHKEY phkResult, LPDWORD lpdwDisposition)
{
    (void)Reserved;
    (void)lpClass;
    (void)dwOptions;
    (void)lpSecurityAttributes;
    if (!lpSubKey) return (LSTATUS)ERROR_INVALID_PARAMETER;
    return open_key_w(hKey, lpSubKey, samDesired, 1, phkResult, lpdwDisposition);
}

PL_EXTERN LSTATUS WINAPI RegCreateKeyA(HKEY hKey, LPCSTR lpSubKey, PHKEY phkResult)
{
    return RegCreateKeyExA(hKey, lpSubKey ? lpSubKey : "", 0, NULL, 0, KEY_ALL_ACCESS, NULL, phkResult, NULL);
}

PL_EXTERN LSTATUS WINAPI RegCreateKeyW(HKEY hKey, LPCWSTR lpSubKey, PHKEY phkResult)
{
    static const WCHAR empty[1] = {0};
    return RegCreateKeyExW(hKey, lpSubKey ? lpSubKey : empty, 0, NULL, 0, KEY_ALL_ACCESS, NULL, phkResult, NULL);
}

static LSTATUS connect_key(int local, HKEY hKey, PHKEY phkResult)
{
    if (!phkResult) return (LSTATUS)ERROR_INVALID_PARAMETER;
    *phkResult = NULL;
    int kind = key_kind(hKey);
    if (kind == K_BAD || kind == K_PERFLIB) return (LSTATUS)ERROR_INVALID_HANDLE;
    if (!local) return (LSTATUS)ERROR_BAD_NETPATH;
    *phkResult = hKey;
    return (LSTATUS)ERROR_SUCCESS;
}

PL_EXTERN LSTATUS WINAPI RegConnectRegistryA(LPCSTR lpMachineName, HKEY hKey, PHKEY phkResult)
{
    return connect_key(pl__w32_is_local(lpMachineName), hKey, phkResult);
}

PL_EXTERN LSTATUS WINAPI RegConnectRegistryW(LPCWSTR lpMachineName, HKEY hKey, PHKEY phkResult)
{
    int rc;
    char *m = pl__w32_narrow(lpMachineName, &rc);
    if (rc == PL_E_NOMEM) return (LSTATUS)ERROR_OUTOFMEMORY;
    LSTATUS ret = connect_key(rc == PL_OK && pl__w32_is_local(m), hKey, phkResult);
    free(m);
    return ret;
}

/* ---------------------------------------------- what the keys refuse */

static LSTATUS refuse_plain(HKEY hKey)
{
    int kind = key_kind(hKey);
    if (kind == K_BAD || is_perf(kind)) return (LSTATUS)ERROR_INVALID_HANDLE;
    return (LSTATUS)ERROR_ACCESS_DENIED;
}

PL_EXTERN LSTATUS WINAPI RegQueryValueA(HKEY hKey, LPCSTR lpSubKey, LPSTR lpData, PLONG lpcbData)
{
    (void)lpSubKey;
    (void)lpData;
    (void)lpcbData;
    int kind = key_kind(hKey);
    if (kind == K_BAD || is_perf(kind)) return (LSTATUS)ERROR_INVALID_HANDLE;
    return (LSTATUS)ERROR_FILE_NOT_FOUND; /* no key here has a default value */
}

PL_EXTERN LSTATUS WINAPI RegQueryValueW(HKEY hKey, LPCWSTR lpSubKey, LPWSTR lpData, PLONG lpcbData)
{
    (void)lpSubKey;
    return RegQueryValueA(hKey, NULL, (LPSTR)lpData, lpcbData);
}

PL_EXTERN LSTATUS WINAPI RegSetValueA(HKEY hKey, LPCSTR lpSubKey, DWORD dwType, LPCSTR lpData, DWORD cbData)
{
    (void)lpSubKey;
    (void)dwType;
    (void)lpData;
    (void)cbData;
    return refuse_plain(hKey);
}

PL_EXTERN LSTATUS WINAPI RegSetValueW(HKEY hKey, LPCWSTR lpSubKey, DWORD dwType, LPCWSTR lpData, DWORD cbData)
{
    (void)lpSubKey;
    (void)dwType;
    (void)lpData;
    (void)cbData;
    return refuse_plain(hKey);
}

static LSTATUS refuse_set(HKEY hKey)
{
    int kind = key_kind(hKey);
    if (kind == K_SVC) return (LSTATUS)ERROR_ACCESS_DENIED;
    if (kind == K_HKPT || kind == K_HKPN) return (LSTATUS)ERROR_BADKEY;
    if (kind == K_BAD || kind == K_HKPD) return (LSTATUS)ERROR_INVALID_HANDLE;
    return (LSTATUS)ERROR_ACCESS_DENIED;
}

PL_EXTERN LSTATUS WINAPI RegSetValueExA(HKEY hKey, LPCSTR lpValueName, DWORD Reserved, DWORD dwType,
                                        const BYTE *lpData, DWORD cbData)
{
    (void)Reserved;
    if (key_kind(hKey) == K_SVC) return pl__w32_svc_set(hKey, lpValueName, dwType, lpData, cbData, 0);
    return refuse_set(hKey);
}

PL_EXTERN LSTATUS WINAPI RegSetValueExW(HKEY hKey, LPCWSTR lpValueName, DWORD Reserved, DWORD dwType,
                                        const BYTE *lpData, DWORD cbData)
{
    (void)Reserved;
    if (key_kind(hKey) != K_SVC) return refuse_set(hKey);
    int rc;
    char *name = pl__w32_narrow(lpValueName, &rc);
    LSTATUS ret = rc == PL_OK ? pl__w32_svc_set(hKey, name, dwType, lpData, cbData, 1)
                  : (LSTATUS)(rc == PL_E_NOMEM ? ERROR_OUTOFMEMORY : ERROR_INVALID_PARAMETER);
    free(name);
    return ret;
}

/* RegSetKeyValue: RegCreateKeyEx of the subkey (when one is given), then
 * RegSetValueEx on it, with their results; so on the performance keys
 * Windows' codes: ERROR_INVALID_HANDLE with a subkey or on HKPD,
 * ERROR_BADKEY on HKPT/HKPN. */
PL_EXTERN LSTATUS WINAPI RegSetKeyValueA(HKEY hKey, LPCSTR lpSubKey, LPCSTR lpValueName, DWORD dwType,
                                         LPCVOID lpData, DWORD cbData)
{
    if (!lpSubKey || !*lpSubKey) return RegSetValueExA(hKey, lpValueName, 0, dwType, lpData, cbData);
    HKEY k = NULL;
    LSTATUS r = RegCreateKeyExA(hKey, lpSubKey, 0, NULL, 0, KEY_SET_VALUE, NULL, &k, NULL);
    if (r != (LSTATUS)ERROR_SUCCESS) return r;
    r = RegSetValueExA(k, lpValueName, 0, dwType, lpData, cbData);
    RegCloseKey(k);
    return r;
}

PL_EXTERN LSTATUS WINAPI RegSetKeyValueW(HKEY hKey, LPCWSTR lpSubKey, LPCWSTR lpValueName, DWORD dwType,
                                         LPCVOID lpData, DWORD cbData)
{
    if (!lpSubKey || !*lpSubKey) return RegSetValueExW(hKey, lpValueName, 0, dwType, lpData, cbData);
    HKEY k = NULL;
    LSTATUS r = RegCreateKeyExW(hKey, lpSubKey, 0, NULL, 0, KEY_SET_VALUE, NULL, &k, NULL);
    if (r != (LSTATUS)ERROR_SUCCESS) return r;
    r = RegSetValueExW(k, lpValueName, 0, dwType, lpData, cbData);
    RegCloseKey(k);
    return r;
}

/* ------------------------------------------------------------ enumerate */

static const char *const g_perflib_subkeys[] = {"009", "CurrentLanguage"};

/* The name of subkey dwIndex, or an error for keys without subkeys. */
static LSTATUS subkey_name(HKEY hKey, DWORD dwIndex, const char **name)
{
    int kind = key_kind(hKey);
    if (kind == K_BAD || kind == K_HKPD) return (LSTATUS)ERROR_INVALID_HANDLE;
    if (kind == K_SVC) return pl__w32_svc_enum_key(hKey, dwIndex, name);
    if (kind == K_PERFLIB && dwIndex < 2) {
        *name = g_perflib_subkeys[dwIndex];
        return (LSTATUS)ERROR_SUCCESS;
    }
    return (LSTATUS)ERROR_NO_MORE_ITEMS;
}

/* Copy an ASCII name into a buffer of *cch characters (NUL included). */
static LSTATUS put_name(const char *name, void *out, LPDWORD cch, int wide)
{
    size_t n = strlen(name);
    if (!out || !cch) return (LSTATUS)ERROR_INVALID_PARAMETER;
    if (*cch <= n) return (LSTATUS)ERROR_MORE_DATA;
    if (wide) {
        WCHAR *w = out;
        for (size_t i = 0; i <= n; i++) w[i] = (WCHAR)(unsigned char)name[i];
    } else {
        memcpy(out, name, n + 1);
    }
    *cch = (DWORD)n;
    return (LSTATUS)ERROR_SUCCESS;
}

static LSTATUS enum_key(HKEY hKey, DWORD dwIndex, void *lpName, LPDWORD lpcchName, void *lpClass,
                        LPDWORD lpcchClass, PFILETIME ft, int wide)
{
    const char *name = NULL;
    LSTATUS ret = subkey_name(hKey, dwIndex, &name);
    if (ret != (LSTATUS)ERROR_SUCCESS) return ret;
    ret = put_name(name, lpName, lpcchName, wide);
    if (ret != (LSTATUS)ERROR_SUCCESS) return ret;
    if (lpClass && lpcchClass && *lpcchClass) {
        if (wide) ((WCHAR *)lpClass)[0] = 0;
        else ((char *)lpClass)[0] = '\0';
    }
    if (lpcchClass) *lpcchClass = 0;
    if (ft) memset(ft, 0, sizeof *ft);
    return (LSTATUS)ERROR_SUCCESS;
}

PL_EXTERN LSTATUS WINAPI RegEnumKeyExA(HKEY hKey, DWORD dwIndex, LPSTR lpName, LPDWORD lpcchName,
                                       LPDWORD lpReserved, LPSTR lpClass, LPDWORD lpcchClass,
                                       PFILETIME lpftLastWriteTime)
{
    (void)lpReserved;
    return enum_key(hKey, dwIndex, lpName, lpcchName, lpClass, lpcchClass, lpftLastWriteTime, 0);
}

PL_EXTERN LSTATUS WINAPI RegEnumKeyExW(HKEY hKey, DWORD dwIndex, LPWSTR lpName, LPDWORD lpcchName,
                                       LPDWORD lpReserved, LPWSTR lpClass, LPDWORD lpcchClass,
                                       PFILETIME lpftLastWriteTime)
{
    (void)lpReserved;
    return enum_key(hKey, dwIndex, lpName, lpcchName, lpClass, lpcchClass, lpftLastWriteTime, 1);
}

PL_EXTERN LSTATUS WINAPI RegEnumKeyA(HKEY hKey, DWORD dwIndex, LPSTR lpName, DWORD cchName)
{
    DWORD n = cchName;
    return enum_key(hKey, dwIndex, lpName, &n, NULL, NULL, NULL, 0);
}

PL_EXTERN LSTATUS WINAPI RegEnumKeyW(HKEY hKey, DWORD dwIndex, LPWSTR lpName, DWORD cchName)
{
    DWORD n = cchName;
    return enum_key(hKey, dwIndex, lpName, &n, NULL, NULL, NULL, 1);
}

static LSTATUS enum_value(HKEY hKey, DWORD dwIndex, void *lpValueName, LPDWORD lpcchValueName,
                          LPDWORD lpReserved, LPDWORD lpType, LPBYTE lpData, LPDWORD lpcbData, int wide)
{
    int kind = key_kind(hKey);
    if (kind == K_BAD) return (LSTATUS)ERROR_INVALID_HANDLE;
    if (is_perf(kind)) {
        /* Windows checks the arguments first (a NULL name is 87, not 234),
         * then answers ERROR_MORE_DATA whatever the buffers; nothing is
         * written. */
        if (!lpValueName || !lpcchValueName || lpReserved || (lpData && !lpcbData))
            return (LSTATUS)ERROR_INVALID_PARAMETER;
        return (LSTATUS)ERROR_MORE_DATA;
    }
    if (kind == K_SVC) {
        if (lpReserved || (lpData && !lpcbData) || !lpValueName || !lpcchValueName)
            return (LSTATUS)ERROR_INVALID_PARAMETER;
        const char *vname = NULL;
        LSTATUS r = pl__w32_svc_enum_value(hKey, dwIndex, &vname, wide, NULL, NULL, NULL);
        if (r != (LSTATUS)ERROR_SUCCESS) return r;
        r = put_name(vname, lpValueName, lpcchValueName, wide);
        if (r != (LSTATUS)ERROR_SUCCESS) return r;
        return pl__w32_svc_enum_value(hKey, dwIndex, &vname, wide, lpType, lpData, lpcbData);
    }
    if (kind == K_HKLM || dwIndex >= N_PERFLIB_VALUES) return (LSTATUS)ERROR_NO_MORE_ITEMS;
    if (lpReserved || (lpData && !lpcbData)) return (LSTATUS)ERROR_INVALID_PARAMETER;
    const char *name = g_perflib_values[dwIndex];
    LSTATUS ret = put_name(name, lpValueName, lpcchValueName, wide);
    if (ret != (LSTATUS)ERROR_SUCCESS) return ret;
    pl_engine *e = NULL;
    int rc = pl__w32_enter(1, &e);
    DWORD v = 0;
    if (rc == PL_OK) rc = perflib_value(e, name, &v);
    pl__w32_leave();
    if (rc != PL_OK) return (LSTATUS)pl_win32_error_from_status(rc);
    return put_dword(v, lpType, lpData, lpcbData);
}

PL_EXTERN LSTATUS WINAPI RegEnumValueA(HKEY hKey, DWORD dwIndex, LPSTR lpValueName, LPDWORD lpcchValueName,
                                       LPDWORD lpReserved, LPDWORD lpType, LPBYTE lpData, LPDWORD lpcbData)
{
    return enum_value(hKey, dwIndex, lpValueName, lpcchValueName, lpReserved, lpType, lpData, lpcbData, 0);
}

PL_EXTERN LSTATUS WINAPI RegEnumValueW(HKEY hKey, DWORD dwIndex, LPWSTR lpValueName, LPDWORD lpcchValueName,
                                       LPDWORD lpReserved, LPDWORD lpType, LPBYTE lpData, LPDWORD lpcbData)
{
    return enum_value(hKey, dwIndex, lpValueName, lpcchValueName, lpReserved, lpType, lpData, lpcbData, 1);
}

/* The largest value of a performance key: its Counter or Help text in the
 * key's language (HKPN: the default language, else 009), in bytes of the
 * A (UTF-8) or W (UTF-16) encoding; the KB Q107728 walker sizes its buffer
 * from it. 0 when the engine or the language is not there. */
static DWORD perf_max_value(int kind, int wide)
{
    pl_engine *e = NULL;
    DWORD max = 0;
    if (pl__w32_enter(1, &e) == PL_OK) {
        pl_store *st = pl_engine_store(e);
        char lang[16];
        if (kind == K_HKPN) pl__w32_default_language(st, lang, sizeof lang);
        else memcpy(lang, "009", 4);
        pl_titles *t = NULL;
        if (pl_titles_load(st, lang, &t, NULL) == PL_OK) {
            for (int k = PL_TITLE_NAME; k <= PL_TITLE_HELP; k++) {
                size_t need = 0;
                (void)pl_titles_export_multisz(t, k, wide ? PL_MULTISZ_UTF16 : 0, NULL, 0, &need);
                if (need > max) max = need > 0xFFFFFFFFu ? 0xFFFFFFFFu : (DWORD)need;
            }
            pl_titles_free(t);
        }
    }
    pl__w32_leave();
    return max;
}

static LSTATUS query_info(HKEY hKey, void *lpClass, LPDWORD lpcchClass, LPDWORD lpcSubKeys,
                          LPDWORD lpcbMaxSubKeyLen, LPDWORD lpcbMaxClassLen, LPDWORD lpcValues,
                          LPDWORD lpcbMaxValueNameLen, LPDWORD lpcbMaxValueLen, LPDWORD lpcbSecurityDescriptor,
                          PFILETIME ft, int wide)
{
    int kind = key_kind(hKey);
    if (kind == K_BAD) return (LSTATUS)ERROR_INVALID_HANDLE;
    DWORD subkeys = 0, values = 0, maxsub = 0, maxname = 0, maxval = 0;
    if (kind == K_SVC) {
        LSTATUS r = pl__w32_svc_info(hKey, &subkeys, &maxsub, &values, &maxname, &maxval, wide);
        if (r != (LSTATUS)ERROR_SUCCESS) return r;
    } else if (is_perf(kind)) {
        values = 2; /* what Windows reports: Counter and Help */
        maxname = 7; /* "Counter" */
        if (lpcbMaxValueLen) maxval = perf_max_value(kind, wide);
    } else if (kind == K_PERFLIB) {
        subkeys = 2;
        maxsub = 15;  /* "CurrentLanguage" */
        values = N_PERFLIB_VALUES;
        maxname = 12; /* "Last Counter" */
        maxval = 4;
    } else {
        subkeys = 2;  /* SOFTWARE and SYSTEM (only the Perflib and Services paths below them open) */
        maxsub = 8;
    }
    if (lpClass && lpcchClass && *lpcchClass) {
        if (wide) ((WCHAR *)lpClass)[0] = 0;
        else ((char *)lpClass)[0] = '\0';
    }
    if (lpcchClass) *lpcchClass = 0;
    if (lpcSubKeys) *lpcSubKeys = subkeys;
    if (lpcbMaxSubKeyLen) *lpcbMaxSubKeyLen = maxsub;
    if (lpcbMaxClassLen) *lpcbMaxClassLen = 0;
    if (lpcValues) *lpcValues = values;
    if (lpcbMaxValueNameLen) *lpcbMaxValueNameLen = maxname;
    if (lpcbMaxValueLen) *lpcbMaxValueLen = maxval;
    if (lpcbSecurityDescriptor) *lpcbSecurityDescriptor = 0;
    if (ft) memset(ft, 0, sizeof *ft);
    return (LSTATUS)ERROR_SUCCESS;
}

PL_EXTERN LSTATUS WINAPI RegQueryInfoKeyA(HKEY hKey, LPSTR lpClass, LPDWORD lpcchClass, LPDWORD lpReserved,
                                          LPDWORD lpcSubKeys, LPDWORD lpcbMaxSubKeyLen, LPDWORD lpcbMaxClassLen,
                                          LPDWORD lpcValues, LPDWORD lpcbMaxValueNameLen,
                                          LPDWORD lpcbMaxValueLen, LPDWORD lpcbSecurityDescriptor,
                                          PFILETIME lpftLastWriteTime)
{
    (void)lpReserved;
    return query_info(hKey, lpClass, lpcchClass, lpcSubKeys, lpcbMaxSubKeyLen, lpcbMaxClassLen, lpcValues,
                      lpcbMaxValueNameLen, lpcbMaxValueLen, lpcbSecurityDescriptor, lpftLastWriteTime, 0);
}

PL_EXTERN LSTATUS WINAPI RegQueryInfoKeyW(HKEY hKey, LPWSTR lpClass, LPDWORD lpcchClass, LPDWORD lpReserved,
                                          LPDWORD lpcSubKeys, LPDWORD lpcbMaxSubKeyLen, LPDWORD lpcbMaxClassLen,
                                          LPDWORD lpcValues, LPDWORD lpcbMaxValueNameLen,
                                          LPDWORD lpcbMaxValueLen, LPDWORD lpcbSecurityDescriptor,
                                          PFILETIME lpftLastWriteTime)
{
    (void)lpReserved;
    return query_info(hKey, lpClass, lpcchClass, lpcSubKeys, lpcbMaxSubKeyLen, lpcbMaxClassLen, lpcValues,
                      lpcbMaxValueNameLen, lpcbMaxValueLen, lpcbSecurityDescriptor, lpftLastWriteTime, 1);
}
