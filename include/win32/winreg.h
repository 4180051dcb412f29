/* perflib: the registry functions of Windows' winreg.h, for the
 * performance keys only (docs/win32.md).
 *
 * This is not a general registry. The handles that work:
 *   HKEY_PERFORMANCE_DATA     ("HKPD") performance data and title texts
 *   HKEY_PERFORMANCE_TEXT     ("HKPT") the same; title texts in English (009)
 *   HKEY_PERFORMANCE_NLSTEXT  ("HKPN") the same; title texts in the default
 *                             language (PERFLIB_LANG, else 009)
 *   HKEY_LOCAL_MACHINE, only to open
 *     "SOFTWARE\Microsoft\Windows NT\CurrentVersion\Perflib" (values
 *     "Last Counter", "Last Help", "Base Index" as REG_DWORD) and
 *     its subkeys "009" (which is HKPT, as on Windows) and "CurrentLanguage"
 *     (HKPN); any other path is ERROR_FILE_NOT_FOUND.
 * Any other handle is ERROR_INVALID_HANDLE.
 *
 * RegQueryValueEx on a performance key (Windows' rules):
 *  - a value name starting with "counter", "help" or "explain" (any case;
 *    "cOuNtErwine" counts) returns the title database as REG_MULTI_SZ:
 *    "1\0" "1847\0" "2\0" "System\0" ... "\0". An optional language code
 *    may follow ("Counter 009", "Help 007"); without one, HKPD and HKPT use
 *    009 and HKPN the default language. A language the store lacks is
 *    ERROR_FILE_NOT_FOUND. The W form returns UTF-16LE, the A form UTF-8.
 *    data NULL: ERROR_SUCCESS and *lpcbData = the size needed; a buffer too
 *    small: ERROR_MORE_DATA and *lpcbData = the size needed.
 *  - any other name (NULL, "", "Global", "Costly", "238 2", "System", ...)
 *    runs that query on the query engine and returns a PERF_DATA_BLOCK as
 *    REG_BINARY; words the engine does not know give a block with 0
 *    objects, not an error. data NULL: ERROR_MORE_DATA and *lpcbData = 0; a
 *    buffer too small: ERROR_MORE_DATA with *lpcbData unchanged (there is no
 *    "required size": grow the buffer and retry; a retry from the same
 *    thread with the same name gets the same snapshot, so the loop ends).
 *    Success sets *lpcbData to the block's TotalByteLength.
 *  - lpReserved must be NULL, and lpcbData may be NULL only when lpData is
 *    NULL (else ERROR_INVALID_PARAMETER). lpType may be NULL.
 *
 * The engine is the process's own, opened on first use with the default
 * store (PERFLIB_REGISTRY, ...) and closed at exit; every function here is
 * thread-safe. The unsuffixed names are the A forms unless UNICODE is
 * defined. */
#ifndef PERFLIB_WIN32_WINREG_H
#define PERFLIB_WIN32_WINREG_H

#include "windef.h"
#include "winerror.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct HKEY__ *HKEY;
typedef HKEY *PHKEY;
typedef LONG LSTATUS;
typedef DWORD ACCESS_MASK;
typedef ACCESS_MASK REGSAM;

/* The predefined keys, sign-extended as on 64-bit Windows. */
#define PERFLIB__HKEY(v) ((HKEY)(uintptr_t)(intptr_t)(int32_t)(uint32_t)(v))
#define HKEY_CLASSES_ROOT PERFLIB__HKEY(0x80000000u)
#define HKEY_CURRENT_USER PERFLIB__HKEY(0x80000001u)
#define HKEY_LOCAL_MACHINE PERFLIB__HKEY(0x80000002u)
#define HKEY_USERS PERFLIB__HKEY(0x80000003u)
#define HKEY_PERFORMANCE_DATA PERFLIB__HKEY(0x80000004u)
#define HKEY_CURRENT_CONFIG PERFLIB__HKEY(0x80000005u)
#define HKEY_DYN_DATA PERFLIB__HKEY(0x80000006u)
#define HKEY_PERFORMANCE_TEXT PERFLIB__HKEY(0x80000050u)
#define HKEY_PERFORMANCE_NLSTEXT PERFLIB__HKEY(0x80000060u)

#define REG_NONE 0u
#define REG_SZ 1u
#define REG_EXPAND_SZ 2u
#define REG_BINARY 3u
#define REG_DWORD 4u
#define REG_DWORD_LITTLE_ENDIAN 4u
#define REG_DWORD_BIG_ENDIAN 5u
#define REG_LINK 6u
#define REG_MULTI_SZ 7u
#define REG_QWORD 11u

#define REG_OPTION_NON_VOLATILE 0u
#define REG_OPTION_VOLATILE 1u
#define REG_CREATED_NEW_KEY 1u
#define REG_OPENED_EXISTING_KEY 2u

#define KEY_QUERY_VALUE 0x0001u
#define KEY_SET_VALUE 0x0002u
#define KEY_CREATE_SUB_KEY 0x0004u
#define KEY_ENUMERATE_SUB_KEYS 0x0008u
#define KEY_NOTIFY 0x0010u
#define KEY_CREATE_LINK 0x0020u
#define KEY_WOW64_64KEY 0x0100u
#define KEY_WOW64_32KEY 0x0200u
#define KEY_READ 0x20019u
#define KEY_WRITE 0x20006u
#define KEY_EXECUTE 0x20019u
#define KEY_ALL_ACCESS 0xF003Fu

/* Performance data, title texts, or the Perflib key's DWORD values. */
PL_EXTERN LSTATUS WINAPI RegQueryValueExA(HKEY hKey, LPCSTR lpValueName, LPDWORD lpReserved, LPDWORD lpType,
                                          LPBYTE lpData, LPDWORD lpcbData);
PL_EXTERN LSTATUS WINAPI RegQueryValueExW(HKEY hKey, LPCWSTR lpValueName, LPDWORD lpReserved, LPDWORD lpType,
                                          LPBYTE lpData, LPDWORD lpcbData);

/* 0 for the predefined keys and the Perflib key (any number of times);
 * ERROR_INVALID_HANDLE for anything else. */
PL_EXTERN LSTATUS WINAPI RegCloseKey(HKEY hKey);

/* On a performance key: ERROR_INVALID_HANDLE (Windows). From
 * HKEY_LOCAL_MACHINE: the Perflib key and its 009/CurrentLanguage subkeys
 * (see above), else ERROR_FILE_NOT_FOUND. *phkResult is set to NULL on
 * failure. ERROR_INVALID_PARAMETER for a NULL phkResult. */
PL_EXTERN LSTATUS WINAPI RegOpenKeyExA(HKEY hKey, LPCSTR lpSubKey, DWORD ulOptions, REGSAM samDesired,
                                       PHKEY phkResult);
PL_EXTERN LSTATUS WINAPI RegOpenKeyExW(HKEY hKey, LPCWSTR lpSubKey, DWORD ulOptions, REGSAM samDesired,
                                       PHKEY phkResult);
PL_EXTERN LSTATUS WINAPI RegOpenKeyA(HKEY hKey, LPCSTR lpSubKey, PHKEY phkResult);
PL_EXTERN LSTATUS WINAPI RegOpenKeyW(HKEY hKey, LPCWSTR lpSubKey, PHKEY phkResult);

/* A provider's own keys, from HKEY_LOCAL_MACHINE:
 *   SYSTEM\CurrentControlSet\Services            (only to open below it)
 *   ...\Services\<name>                         a provider in the store
 *   ...\Services\<name>\Performance             Library, Open, Collect,
 *       Close, Object List (REG_SZ), First/Last Counter, First/Last Help,
 *       Disable Performance Counters, Open/Collect Timeout (REG_DWORD);
 *       a value the record lacks is ERROR_FILE_NOT_FOUND
 *   ...\Services\<name>\Linkage                 Export (REG_MULTI_SZ)
 * RegCreateKeyEx creates the provider record (isolated, as lodctr does);
 * RegSetValueEx needs a key opened with KEY_SET_VALUE (else
 * ERROR_ACCESS_DENIED) and changes Library, Open, Collect, Close, Object
 * List, the timeouts, Disable Performance Counters (0 enables) and Export;
 * First/Last Counter/Help belong to lodctr and any other value cannot be
 * stored: ERROR_ACCESS_DENIED. docs/win32.md. */
PL_EXTERN LSTATUS WINAPI RegCreateKeyExA(HKEY hKey, LPCSTR lpSubKey, DWORD Reserved, LPSTR lpClass, DWORD dwOptions,
                                         REGSAM samDesired, LPSECURITY_ATTRIBUTES lpSecurityAttributes,
                                         PHKEY phkResult, LPDWORD lpdwDisposition);
PL_EXTERN LSTATUS WINAPI RegCreateKeyExW(HKEY hKey, LPCWSTR lpSubKey, DWORD Reserved, LPWSTR lpClass,
                                         DWORD dwOptions, REGSAM samDesired,
                                         LPSECURITY_ATTRIBUTES lpSecurityAttributes, PHKEY phkResult,
                                         LPDWORD lpdwDisposition);
PL_EXTERN LSTATUS WINAPI RegCreateKeyA(HKEY hKey, LPCSTR lpSubKey, PHKEY phkResult);
PL_EXTERN LSTATUS WINAPI RegCreateKeyW(HKEY hKey, LPCWSTR lpSubKey, PHKEY phkResult);

/* Connecting to the local machine (lpMachineName NULL, "", ".", "localhost"
 * or this host's name, with or without a leading "\\") gives back the
 * predefined key itself (HKPD/HKPT/HKPN/HKLM); another machine is
 * ERROR_BAD_NETPATH (remote queries go through "Foreign <host>" or perfd). */
PL_EXTERN LSTATUS WINAPI RegConnectRegistryA(LPCSTR lpMachineName, HKEY hKey, PHKEY phkResult);
PL_EXTERN LSTATUS WINAPI RegConnectRegistryW(LPCWSTR lpMachineName, HKEY hKey, PHKEY phkResult);

/* The old default-value functions: ERROR_INVALID_HANDLE on the performance
 * keys (Windows). */
PL_EXTERN LSTATUS WINAPI RegQueryValueA(HKEY hKey, LPCSTR lpSubKey, LPSTR lpData, PLONG lpcbData);
PL_EXTERN LSTATUS WINAPI RegQueryValueW(HKEY hKey, LPCWSTR lpSubKey, LPWSTR lpData, PLONG lpcbData);
PL_EXTERN LSTATUS WINAPI RegSetValueA(HKEY hKey, LPCSTR lpSubKey, DWORD dwType, LPCSTR lpData, DWORD cbData);
PL_EXTERN LSTATUS WINAPI RegSetValueW(HKEY hKey, LPCWSTR lpSubKey, DWORD dwType, LPCWSTR lpData, DWORD cbData);

/* Nothing can be written: ERROR_INVALID_HANDLE on HKPD, ERROR_BADKEY on
 * HKPT/HKPN (Windows), ERROR_ACCESS_DENIED on the Perflib key. */
PL_EXTERN LSTATUS WINAPI RegSetValueExA(HKEY hKey, LPCSTR lpValueName, DWORD Reserved, DWORD dwType,
                                        const BYTE *lpData, DWORD cbData);
PL_EXTERN LSTATUS WINAPI RegSetValueExW(HKEY hKey, LPCWSTR lpValueName, DWORD Reserved, DWORD dwType,
                                        const BYTE *lpData, DWORD cbData);

/* RegCreateKeyEx of lpSubKey (when given) and RegSetValueEx on it. */
PL_EXTERN LSTATUS WINAPI RegSetKeyValueA(HKEY hKey, LPCSTR lpSubKey, LPCSTR lpValueName, DWORD dwType,
                                         LPCVOID lpData, DWORD cbData);
PL_EXTERN LSTATUS WINAPI RegSetKeyValueW(HKEY hKey, LPCWSTR lpSubKey, LPCWSTR lpValueName, DWORD dwType,
                                         LPCVOID lpData, DWORD cbData);

/* Subkeys: ERROR_INVALID_HANDLE on HKPD, ERROR_NO_MORE_ITEMS on HKPT/HKPN
 * (Windows). The Perflib key lists "009" then "CurrentLanguage". */
PL_EXTERN LSTATUS WINAPI RegEnumKeyExA(HKEY hKey, DWORD dwIndex, LPSTR lpName, LPDWORD lpcchName,
                                       LPDWORD lpReserved, LPSTR lpClass, LPDWORD lpcchClass,
                                       PFILETIME lpftLastWriteTime);
PL_EXTERN LSTATUS WINAPI RegEnumKeyExW(HKEY hKey, DWORD dwIndex, LPWSTR lpName, LPDWORD lpcchName,
                                       LPDWORD lpReserved, LPWSTR lpClass, LPDWORD lpcchClass,
                                       PFILETIME lpftLastWriteTime);
PL_EXTERN LSTATUS WINAPI RegEnumKeyA(HKEY hKey, DWORD dwIndex, LPSTR lpName, DWORD cchName);
PL_EXTERN LSTATUS WINAPI RegEnumKeyW(HKEY hKey, DWORD dwIndex, LPWSTR lpName, DWORD cchName);

/* Values of a performance key cannot be enumerated: ERROR_MORE_DATA with
 * every output left unchanged, whatever the buffers (what Windows returns).
 * The Perflib key enumerates its DWORD values. */
PL_EXTERN LSTATUS WINAPI RegEnumValueA(HKEY hKey, DWORD dwIndex, LPSTR lpValueName, LPDWORD lpcchValueName,
                                       LPDWORD lpReserved, LPDWORD lpType, LPBYTE lpData, LPDWORD lpcbData);
PL_EXTERN LSTATUS WINAPI RegEnumValueW(HKEY hKey, DWORD dwIndex, LPWSTR lpValueName, LPDWORD lpcchValueName,
                                       LPDWORD lpReserved, LPDWORD lpType, LPBYTE lpData, LPDWORD lpcbData);

/* A performance key: 0 subkeys, 2 values (Windows), the longest value name
 * 7 ("Counter") and the longest value the size of its Counter or Help text
 * (in the form's encoding), as the KB Q107728 walker uses it; the other
 * counts are 0, the class is empty and the time is 0. The Perflib key: 2 subkeys, 3 values.
 * Every output may be NULL. */
PL_EXTERN LSTATUS WINAPI RegQueryInfoKeyA(HKEY hKey, LPSTR lpClass, LPDWORD lpcchClass, LPDWORD lpReserved,
                                          LPDWORD lpcSubKeys, LPDWORD lpcbMaxSubKeyLen, LPDWORD lpcbMaxClassLen,
                                          LPDWORD lpcValues, LPDWORD lpcbMaxValueNameLen,
                                          LPDWORD lpcbMaxValueLen, LPDWORD lpcbSecurityDescriptor,
                                          PFILETIME lpftLastWriteTime);
PL_EXTERN LSTATUS WINAPI RegQueryInfoKeyW(HKEY hKey, LPWSTR lpClass, LPDWORD lpcchClass, LPDWORD lpReserved,
                                          LPDWORD lpcSubKeys, LPDWORD lpcbMaxSubKeyLen, LPDWORD lpcbMaxClassLen,
                                          LPDWORD lpcValues, LPDWORD lpcbMaxValueNameLen,
                                          LPDWORD lpcbMaxValueLen, LPDWORD lpcbSecurityDescriptor,
                                          PFILETIME lpftLastWriteTime);

#ifdef UNICODE
#define RegQueryValueEx RegQueryValueExW
#define RegOpenKeyEx RegOpenKeyExW
#define RegOpenKey RegOpenKeyW
#define RegCreateKeyEx RegCreateKeyExW
#define RegCreateKey RegCreateKeyW
#define RegConnectRegistry RegConnectRegistryW
#define RegQueryValue RegQueryValueW
#define RegSetValue RegSetValueW
#define RegSetValueEx RegSetValueExW
#define RegSetKeyValue RegSetKeyValueW
#define RegEnumKeyEx RegEnumKeyExW
#define RegEnumKey RegEnumKeyW
#define RegEnumValue RegEnumValueW
#define RegQueryInfoKey RegQueryInfoKeyW
#else
#define RegQueryValueEx RegQueryValueExA
#define RegOpenKeyEx RegOpenKeyExA
#define RegOpenKey RegOpenKeyA
#define RegCreateKeyEx RegCreateKeyExA
#define RegCreateKey RegCreateKeyA
#define RegConnectRegistry RegConnectRegistryA
#define RegQueryValue RegQueryValueA
#define RegSetValue RegSetValueA
#define RegSetValueEx RegSetValueExA
#define RegSetKeyValue RegSetKeyValueA
#define RegEnumKeyEx RegEnumKeyExA
#define RegEnumKey RegEnumKeyA
#define RegEnumValue RegEnumValueA
#define RegQueryInfoKey RegQueryInfoKeyA
#endif

#ifdef __cplusplus
}
#endif

#endif
