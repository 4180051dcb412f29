/* loadperf (include/win32/loadperf.h) over the lodctr library and the
 * registry store. Nothing here prints; bQuietModeArg is ignored. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perflib/lodctr.h"
#include "pl_internal.h"
#include "win32/loadperf.h"
#include "win32_internal.h"

/* The store to work on: the engine's when one is set or open, else the
 * default store opened for this call (*owned = 1: close it). Call
 * pl__w32_leave() afterwards in every case. */
static int get_store(pl_store **st, int *owned)
{
    pl_engine *e = NULL;
    (void)pl__w32_enter(0, &e);
    *owned = 0;
    if (e) {
        *st = pl_engine_store(e);
        return *st ? PL_OK : PL_E_STORE;
    }
    int rc = pl_store_open(NULL, 0, st, NULL);
    if (rc == PL_OK) *owned = 1;
    return rc;
}

static void put_store(pl_store *st, int owned)
{
    if (owned) pl_store_close(st);
    pl__w32_leave();
}

/* A store that cannot be opened is a registry problem, not a missing file. */
static DWORD store_error(int rc)
{
    if (rc == PL_E_NOMEM || rc == PL_E_BUSY) return pl_win32_error_from_status(rc);
    return ERROR_BADDB;
}

enum { OP_LOAD, OP_UNLOAD };

static DWORD run_cmdline(int op, const char *cmdline)
{
    if (!cmdline) return ERROR_INVALID_PARAMETER;
    pl_store *st = NULL;
    int owned = 0;
    int rc = get_store(&st, &owned);
    if (rc != PL_OK) {
        pl__w32_leave();
        return store_error(rc);
    }
    if (op == OP_LOAD) rc = pl_load_counter_strings(st, cmdline, NULL);
    else rc = pl_unload_counter_strings(st, cmdline, NULL);
    put_store(st, owned);
    return pl_win32_error_from_status(rc);
}

static DWORD run_cmdline_w(int op, const WCHAR *cmdline)
{
    if (!cmdline) return ERROR_INVALID_PARAMETER;
    int rc;
    char *c = pl__w32_narrow(cmdline, &rc);
    if (rc != PL_OK) return rc == PL_E_NOMEM ? ERROR_OUTOFMEMORY : ERROR_INVALID_PARAMETER;
    DWORD ret = run_cmdline(op, c);
    free(c);
    return ret;
}

PL_EXTERN DWORD WINAPI LoadPerfCounterTextStringsA(LPSTR lpCommandLine, BOOL bQuietModeArg)
{
    (void)bQuietModeArg;
    return run_cmdline(OP_LOAD, lpCommandLine);
}

PL_EXTERN DWORD WINAPI LoadPerfCounterTextStringsW(LPWSTR lpCommandLine, BOOL bQuietModeArg)
{
    (void)bQuietModeArg;
    return run_cmdline_w(OP_LOAD, lpCommandLine);
}

PL_EXTERN DWORD WINAPI UnloadPerfCounterTextStringsA(LPSTR lpCommandLine, BOOL bQuietModeArg)
{
    (void)bQuietModeArg;
    return run_cmdline(OP_UNLOAD, lpCommandLine);
}

PL_EXTERN DWORD WINAPI UnloadPerfCounterTextStringsW(LPWSTR lpCommandLine, BOOL bQuietModeArg)
{
    (void)bQuietModeArg;
    return run_cmdline_w(OP_UNLOAD, lpCommandLine);
}

/* ------------------------------------------------------------ InstallPerfDll */

static DWORD install_ini(const char *computer, const char *ini)
{
    if (!ini || !*ini) return ERROR_INVALID_PARAMETER;
    if (!pl__w32_is_local(computer)) return ERROR_NOT_SUPPORTED;
    pl_lodctr_set *set = NULL;
    int rc = pl_lodctr_parse(ini, &set, NULL);
    if (rc != PL_OK) return pl_win32_error_from_status(rc);
    pl_store *st = NULL;
    int owned = 0;
    rc = get_store(&st, &owned);
    if (rc != PL_OK) {
        pl__w32_leave();
        pl_lodctr_free(set);
        return store_error(rc);
    }
    rc = pl_lodctr_install(st, set, NULL, NULL, NULL);
    put_store(st, owned);
    pl_lodctr_free(set);
    return pl_win32_error_from_status(rc);
}

PL_EXTERN DWORD WINAPI InstallPerfDllA(LPCSTR szComputerName, LPCSTR lpIniFile, ULONG_PTR dwFlags)
{
    (void)dwFlags;
    return install_ini(szComputerName, lpIniFile);
}

PL_EXTERN DWORD WINAPI InstallPerfDllW(LPCWSTR szComputerName, LPCWSTR lpIniFile, ULONG_PTR dwFlags)
{
    (void)dwFlags;
    if (!lpIniFile) return ERROR_INVALID_PARAMETER;
    int rc1, rc2;
    char *c = pl__w32_narrow(szComputerName, &rc1);
    char *ini = pl__w32_narrow(lpIniFile, &rc2);
    DWORD ret;
    if (rc1 == PL_E_NOMEM || rc2 == PL_E_NOMEM) ret = ERROR_OUTOFMEMORY;
    else if (rc1 != PL_OK || rc2 != PL_OK) ret = ERROR_INVALID_PARAMETER;
    else ret = install_ini(c, ini);
    free(c);
    free(ini);
    return ret;
}

PL_EXTERN DWORD WINAPI UpdatePerfNameFilesA(LPCSTR szNewCtrFilePath, LPCSTR szNewHlpFilePath, LPSTR szLanguageID,
                                            ULONG_PTR dwFlags)
{
    (void)szNewCtrFilePath;
    (void)szNewHlpFilePath;
    (void)szLanguageID;
    (void)dwFlags;
    return ERROR_CALL_NOT_IMPLEMENTED;
}

PL_EXTERN DWORD WINAPI UpdatePerfNameFilesW(LPCWSTR szNewCtrFilePath, LPCWSTR szNewHlpFilePath,
                                            LPWSTR szLanguageID, ULONG_PTR dwFlags)
{
    (void)szNewCtrFilePath;
    (void)szNewHlpFilePath;
    (void)szLanguageID;
    (void)dwFlags;
    return ERROR_CALL_NOT_IMPLEMENTED;
}

static DWORD trusted(const char *service)
{
    pl_store *st = NULL;
    int owned = 0;
    int rc = get_store(&st, &owned);
    if (rc != PL_OK) {
        pl__w32_leave();
        return store_error(rc);
    }
    pl_provider_info info;
    memset(&info, 0, sizeof info);
    rc = pl_store_provider(st, service, &info, NULL);
    pl_provider_info_clear(&info);
    put_store(st, owned);
    return pl_win32_error_from_status(rc);
}

PL_EXTERN DWORD WINAPI SetServiceAsTrustedA(LPCSTR szReserved, LPCSTR szServiceName)
{
    if (szReserved || !szServiceName || !*szServiceName) return ERROR_INVALID_PARAMETER;
    return trusted(szServiceName);
}

PL_EXTERN DWORD WINAPI SetServiceAsTrustedW(LPCWSTR szReserved, LPCWSTR szServiceName)
{
    if (szReserved || !szServiceName || !*szServiceName) return ERROR_INVALID_PARAMETER;
    int rc;
    char *s = pl__w32_narrow(szServiceName, &rc);
    DWORD ret = rc == PL_OK ? trusted(s) : rc == PL_E_NOMEM ? ERROR_OUTOFMEMORY : ERROR_INVALID_PARAMETER;
    free(s);
    return ret;
}

/* ------------------------------------------------------------ backup/restore */

PL_EXTERN DWORD WINAPI BackupPerfRegistryToFileW(LPCWSTR szFileName, LPCWSTR szCommentString)
{
    (void)szCommentString;
    if (!szFileName || !*szFileName) return ERROR_INVALID_PARAMETER;
    int rc;
    char *path = pl__w32_narrow(szFileName, &rc);
    if (rc != PL_OK) return rc == PL_E_NOMEM ? ERROR_OUTOFMEMORY : ERROR_INVALID_PARAMETER;
    pl_store *st = NULL;
    int owned = 0;
    rc = get_store(&st, &owned);
    if (rc != PL_OK) {
        pl__w32_leave();
        free(path);
        return store_error(rc);
    }
    pl_backup *bk = NULL;
    rc = pl_store_snapshot(st, &bk, NULL);
    put_store(st, owned);
    DWORD ret = pl_win32_error_from_status(rc);
    if (rc == PL_OK) {
        rc = pl_backup_write_file(bk, path, NULL);
        /* A file that cannot be written is not a missing file. */
        ret = rc == PL_E_IO ? ERROR_ACCESS_DENIED : pl_win32_error_from_status(rc);
    }
    pl_backup_free(bk);
    free(path);
    return ret;
}

/* `cur` with its table for `lang` replaced by (or extended with) the one of
 * `bk`, and the counters and ranges of `bk`. Shallow: *langs is the only
 * allocation (free()). */
static int merge_one_language(const pl_backup *cur, const pl_backup *bk, const pl_backup_lang *lang,
                              pl_backup *out, pl_backup_lang **langs)
{
    *out = *bk;
    *langs = malloc((cur->nlangs + 1) * sizeof **langs);
    if (!*langs) return PL_E_NOMEM;
    size_t n = 0;
    int replaced = 0;
    for (size_t i = 0; i < cur->nlangs; i++) {
        if (strcasecmp(cur->langs[i].lang, lang->lang) == 0) {
            (*langs)[n++] = *lang;
            replaced = 1;
        } else {
            (*langs)[n++] = cur->langs[i];
        }
    }
    if (!replaced) (*langs)[n++] = *lang;
    out->langs = *langs;
    out->nlangs = n;
    return PL_OK;
}

PL_EXTERN DWORD WINAPI RestorePerfRegistryFromFileW(LPCWSTR szFileName, LPCWSTR szLangId)
{
    if (!szFileName || !*szFileName) return ERROR_INVALID_PARAMETER;
    int rc1, rc2;
    char *path = pl__w32_narrow(szFileName, &rc1);
    char *lang = pl__w32_narrow(szLangId, &rc2);
    if (rc1 != PL_OK || rc2 != PL_OK) {
        free(path);
        free(lang);
        return rc1 == PL_E_NOMEM || rc2 == PL_E_NOMEM ? ERROR_OUTOFMEMORY : ERROR_INVALID_PARAMETER;
    }
    pl_backup *bk = NULL;
    int rc = pl_backup_read_file(path, &bk, NULL);
    free(path);
    if (rc != PL_OK) {
        free(lang);
        return pl_win32_error_from_status(rc);
    }
    const pl_backup_lang *one = NULL;
    if (lang && *lang) {
        for (size_t i = 0; i < bk->nlangs && !one; i++)
            if (strcasecmp(bk->langs[i].lang, lang) == 0) one = &bk->langs[i];
        if (!one) {
            free(lang);
            pl_backup_free(bk);
            return ERROR_INVALID_PARAMETER;
        }
    }
    free(lang);
    pl_store *st = NULL;
    int owned = 0;
    rc = get_store(&st, &owned);
    if (rc != PL_OK) {
        pl__w32_leave();
        pl_backup_free(bk);
        return store_error(rc);
    }
    if (!one) {
        rc = pl_store_restore(st, bk, NULL);
    } else {
        pl_backup *cur = NULL;
        rc = pl_store_snapshot(st, &cur, NULL);
        if (rc == PL_OK) {
            pl_backup merged;
            pl_backup_lang *langs = NULL;
            rc = merge_one_language(cur, bk, one, &merged, &langs);
            if (rc == PL_OK) rc = pl_store_restore(st, &merged, NULL);
            free(langs);
        }
        pl_backup_free(cur);
    }
    put_store(st, owned);
    pl_backup_free(bk);
    return pl_win32_error_from_status(rc);
}
