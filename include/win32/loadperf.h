/* perflib: Windows' loadperf.h (lodctr/unlodctr as functions) over perflib's
 * lodctr library and registry store (docs/win32.md).
 *
 * The store is the one the registry functions (win32/winreg.h) use: the
 * engine set with pl_win32_set_engine() or already opened by a query, else
 * the default store (PERFLIB_REGISTRY, ...) opened for the call. Nothing is
 * ever printed: bQuietModeArg is accepted and ignored. A-form strings are
 * UTF-8, W-form strings UTF-16LE (WCHAR).
 *
 * Results (Win32 codes, from perflib's status):
 *   ERROR_SUCCESS             done
 *   ERROR_INVALID_PARAMETER   a NULL or empty argument, no .ini/driver in the
 *                             command line, a bad offset in a .ini, a
 *                             built-in provider to unload, invalid UTF-16
 *   ERROR_FILE_NOT_FOUND      the .ini, its symbol file or the backup file
 *                             cannot be read; unload of a provider that is
 *                             unknown or has no counters installed
 *   ERROR_ALREADY_EXISTS      load of a provider that has counters installed
 *   ERROR_INVALID_DATA        a malformed .ini/.h/backup (parse, encoding or
 *                             range errors)
 *   ERROR_OUTOFMEMORY, ERROR_BUSY (the store stayed locked), ERROR_BADDB (the
 *   store failed), ERROR_GEN_FAILURE (anything else). */
#ifndef PERFLIB_WIN32_LOADPERF_H
#define PERFLIB_WIN32_LOADPERF_H

#include "windef.h"
#include "winerror.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LOADPERF_FLAGS_DELETE_MOF_ON_EXIT ((ULONG_PTR)1)
#define LOADPERF_FLAGS_LOAD_REGISTRY_ONLY ((ULONG_PTR)2)
#define LOADPERF_FLAGS_CREATE_MOF_ONLY ((ULONG_PTR)4)
#define LOADPERF_FLAGS_DISPLAY_USER_MSGS ((ULONG_PTR)8)

/* lodctr: lpCommandLine is a whole command line ("lodctr myapp.ini",
 * "lodctr \"C:\\dir with space\\x.ini\""); its last token (double quotes
 * group) is the .ini file, read with its symbol file as docs/lodctr.md
 * describes, and installed in one transaction. */
PL_EXTERN DWORD WINAPI LoadPerfCounterTextStringsA(LPSTR lpCommandLine, BOOL bQuietModeArg);
PL_EXTERN DWORD WINAPI LoadPerfCounterTextStringsW(LPWSTR lpCommandLine, BOOL bQuietModeArg);

/* unlodctr: the last token of lpCommandLine is the driver (provider) name;
 * its names and help texts are removed from every language. */
PL_EXTERN DWORD WINAPI UnloadPerfCounterTextStringsA(LPSTR lpCommandLine, BOOL bQuietModeArg);
PL_EXTERN DWORD WINAPI UnloadPerfCounterTextStringsW(LPWSTR lpCommandLine, BOOL bQuietModeArg);

/* Installs lpIniFile (a path, not a command line) like
 * LoadPerfCounterTextStrings. szComputerName must be NULL or name this
 * machine (else ERROR_NOT_SUPPORTED); dwFlags (MOF options) is ignored. */
PL_EXTERN DWORD WINAPI InstallPerfDllA(LPCSTR szComputerName, LPCSTR lpIniFile, ULONG_PTR dwFlags);
PL_EXTERN DWORD WINAPI InstallPerfDllW(LPCWSTR szComputerName, LPCWSTR lpIniFile, ULONG_PTR dwFlags);

/* Replacing the title files directly is not supported: ERROR_CALL_NOT_IMPLEMENTED. */
PL_EXTERN DWORD WINAPI UpdatePerfNameFilesA(LPCSTR szNewCtrFilePath, LPCSTR szNewHlpFilePath, LPSTR szLanguageID,
                                            ULONG_PTR dwFlags);
PL_EXTERN DWORD WINAPI UpdatePerfNameFilesW(LPCWSTR szNewCtrFilePath, LPCWSTR szNewHlpFilePath,
                                            LPWSTR szLanguageID, ULONG_PTR dwFlags);

/* perflib keeps no library validation code: ERROR_SUCCESS when the provider
 * exists, ERROR_FILE_NOT_FOUND when not, ERROR_INVALID_PARAMETER when
 * szReserved is not NULL or szServiceName is NULL. Nothing is changed. */
PL_EXTERN DWORD WINAPI SetServiceAsTrustedA(LPCSTR szReserved, LPCSTR szServiceName);
PL_EXTERN DWORD WINAPI SetServiceAsTrustedW(LPCWSTR szReserved, LPCWSTR szServiceName);

/* lodctr /s: the whole title database and every provider's ranges, written
 * as Windows writes PerfStringBackup.INI (UTF-16LE, CRLF). The comment is
 * ignored (the file format has no place for it). The file is replaced
 * atomically; on error it is unchanged. */
PL_EXTERN DWORD WINAPI BackupPerfRegistryToFileW(LPCWSTR szFileName, LPCWSTR szCommentString);

/* lodctr /r: restore a backup file (UTF-16LE with or without BOM, UTF-8 or
 * 8-bit). szLangId NULL or empty: the whole title database becomes the
 * backup's (languages it lacks are removed). szLangId "007": only that
 * language's tables are replaced (ERROR_INVALID_PARAMETER when the backup
 * lacks it), the other languages stay; Last Counter/Help and the provider
 * ranges come from the backup either way. One transaction. */
PL_EXTERN DWORD WINAPI RestorePerfRegistryFromFileW(LPCWSTR szFileName, LPCWSTR szLangId);

#ifdef UNICODE
#define LoadPerfCounterTextStrings LoadPerfCounterTextStringsW
#define UnloadPerfCounterTextStrings UnloadPerfCounterTextStringsW
#define InstallPerfDll InstallPerfDllW
#define UpdatePerfNameFiles UpdatePerfNameFilesW
#define SetServiceAsTrusted SetServiceAsTrustedW
#else
#define LoadPerfCounterTextStrings LoadPerfCounterTextStringsA
#define UnloadPerfCounterTextStrings UnloadPerfCounterTextStringsA
#define InstallPerfDll InstallPerfDllA
#define UpdatePerfNameFiles UpdatePerfNameFilesA
#define SetServiceAsTrusted SetServiceAsTrustedA
#endif
#define BackupPerfRegistryToFile BackupPerfRegistryToFileW
#define RestorePerfRegistryFromFile RestorePerfRegistryFromFileW

#ifdef __cplusplus
}
#endif

#endif
