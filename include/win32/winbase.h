/* perflib: the base Win32 that performance providers and consumers use
 * (winbase.h, sysinfoapi.h, stringapiset.h, synchapi.h, memoryapi.h,
 * winnls.h), on Linux. Only what real performance code calls: this is not a
 * Windows emulator. docs/win32.md lists every function and its behaviour.
 *
 * Strings: the A forms are UTF-8 (perflib's 8-bit encoding everywhere), the
 * W forms UTF-16 (WCHAR). Errors: the functions that Windows documents with
 * GetLastError set it here too (per thread). */
#ifndef PERFLIB_WIN32_WINBASE_H
#define PERFLIB_WIN32_WINBASE_H

#include <stdarg.h>

#include "windef.h"
#include "winerror.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ errors */
PL_EXTERN DWORD WINAPI GetLastError(void);
PL_EXTERN void WINAPI SetLastError(DWORD dwErrCode);

/* ------------------------------------------------------------ strings */
/* lstrlen of NULL is 0; lstrcpyn copies at most iMaxLength-1 characters and
 * always terminates (NULL for iMaxLength <= 0 or a NULL argument). lstrcmpi
 * folds ASCII letters only. */
PL_EXTERN int WINAPI lstrlenA(LPCSTR lpString);
PL_EXTERN int WINAPI lstrlenW(LPCWSTR lpString);
PL_EXTERN LPSTR WINAPI lstrcpyA(LPSTR lpString1, LPCSTR lpString2);
PL_EXTERN LPWSTR WINAPI lstrcpyW(LPWSTR lpString1, LPCWSTR lpString2);
PL_EXTERN LPSTR WINAPI lstrcpynA(LPSTR lpString1, LPCSTR lpString2, int iMaxLength);
PL_EXTERN LPWSTR WINAPI lstrcpynW(LPWSTR lpString1, LPCWSTR lpString2, int iMaxLength);
PL_EXTERN LPSTR WINAPI lstrcatA(LPSTR lpString1, LPCSTR lpString2);
PL_EXTERN LPWSTR WINAPI lstrcatW(LPWSTR lpString1, LPCWSTR lpString2);
PL_EXTERN int WINAPI lstrcmpA(LPCSTR lpString1, LPCSTR lpString2);
PL_EXTERN int WINAPI lstrcmpW(LPCWSTR lpString1, LPCWSTR lpString2);
PL_EXTERN int WINAPI lstrcmpiA(LPCSTR lpString1, LPCSTR lpString2);
PL_EXTERN int WINAPI lstrcmpiW(LPCWSTR lpString1, LPCWSTR lpString2);

/* wsprintf: Windows' format rules (perflib/win32.h, pl_win32_vformat: %s is
 * char in the A form and WCHAR in the W form, %S the other; %ld is 32-bit).
 * As on Windows the output is at most 1024 characters with the NUL (longer
 * output is cut); returns the characters written without the NUL. */
PL_EXTERN int WINAPIV wsprintfA(LPSTR lpOut, LPCSTR lpFmt, ...);
PL_EXTERN int WINAPIV wsprintfW(LPWSTR lpOut, LPCWSTR lpFmt, ...);
PL_EXTERN int WINAPI wvsprintfA(LPSTR lpOut, LPCSTR lpFmt, va_list arglist);
PL_EXTERN int WINAPI wvsprintfW(LPWSTR lpOut, LPCWSTR lpFmt, va_list arglist);

/* TRUE when the string is not readable up to its NUL or ucchMax characters
 * (checked without touching the memory: a bad pointer never crashes);
 * TRUE for NULL. */
PL_EXTERN BOOL WINAPI IsBadStringPtrA(LPCSTR lpsz, UINT_PTR ucchMax);
PL_EXTERN BOOL WINAPI IsBadStringPtrW(LPCWSTR lpsz, UINT_PTR ucchMax);
PL_EXTERN BOOL WINAPI IsBadReadPtr(const void *lp, UINT_PTR ucb);

/* Code pages: CP_ACP, CP_OEMCP, CP_THREAD_ACP and CP_UTF8 are all UTF-8;
 * any other is ERROR_INVALID_PARAMETER. Sizes and errors as Windows:
 * cbMultiByte/cchWideChar -1 means NUL-terminated (the NUL is converted and
 * counted); an output size of 0 returns the size needed; too small is 0 with
 * ERROR_INSUFFICIENT_BUFFER; invalid input becomes U+FFFD, or 0 with
 * ERROR_NO_UNICODE_TRANSLATION under MB_ERR_INVALID_CHARS /
 * WC_ERR_INVALID_CHARS. */
#define CP_ACP 0u
#define CP_OEMCP 1u
#define CP_THREAD_ACP 3u
#define CP_UTF8 65001u
#define MB_PRECOMPOSED 0x00000001u
#define MB_ERR_INVALID_CHARS 0x00000008u
#define WC_COMPOSITECHECK 0x00000200u
#define WC_NO_BEST_FIT_CHARS 0x00000400u
#define WC_ERR_INVALID_CHARS 0x00000080u
PL_EXTERN int WINAPI MultiByteToWideChar(UINT CodePage, DWORD dwFlags, LPCSTR lpMultiByteStr, int cbMultiByte,
                                         LPWSTR lpWideCharStr, int cchWideChar);
PL_EXTERN int WINAPI WideCharToMultiByte(UINT CodePage, DWORD dwFlags, LPCWSTR lpWideCharStr, int cchWideChar,
                                         LPSTR lpMultiByteStr, int cbMultiByte, LPCSTR lpDefaultChar,
                                         LPBOOL lpUsedDefaultChar);
PL_EXTERN UINT WINAPI GetACP(void);    /* CP_UTF8 */
PL_EXTERN UINT WINAPI GetOEMCP(void);  /* CP_UTF8 */

/* --------------------------------------------------------------- time */
/* QueryPerformanceCounter is the clock of the performance data block's
 * PerfTime (CLOCK_MONOTONIC in 100 ns units) and QueryPerformanceFrequency
 * its PerfFreq (10,000,000), so a program that compares its own QPC reading
 * with a block's PerfTime agrees. GetTickCount(64) counts milliseconds since
 * boot (CLOCK_BOOTTIME, suspend included, as on Windows); GetTickCount wraps
 * after 49.7 days as on Windows. */
PL_EXTERN BOOL WINAPI QueryPerformanceCounter(LARGE_INTEGER *lpPerformanceCount);
PL_EXTERN BOOL WINAPI QueryPerformanceFrequency(LARGE_INTEGER *lpFrequency);
PL_EXTERN DWORD WINAPI GetTickCount(void);
PL_EXTERN ULONGLONG WINAPI GetTickCount64(void);
PL_EXTERN void WINAPI GetSystemTime(LPSYSTEMTIME lpSystemTime);   /* UTC */
PL_EXTERN void WINAPI GetLocalTime(LPSYSTEMTIME lpSystemTime);
PL_EXTERN void WINAPI GetSystemTimeAsFileTime(LPFILETIME lpSystemTimeAsFileTime);
PL_EXTERN BOOL WINAPI FileTimeToSystemTime(const FILETIME *lpFileTime, LPSYSTEMTIME lpSystemTime);
PL_EXTERN BOOL WINAPI SystemTimeToFileTime(const SYSTEMTIME *lpSystemTime, LPFILETIME lpFileTime);
PL_EXTERN LONG WINAPI CompareFileTime(const FILETIME *lpFileTime1, const FILETIME *lpFileTime2);
PL_EXTERN void WINAPI Sleep(DWORD dwMilliseconds);

/* ------------------------------------------------------------ system */
/* The computer name is the one the performance data block carries: the host
 * name up to its first dot, upper-case. *nSize: in, the buffer's characters;
 * out, the length without the NUL, or (ERROR_BUFFER_OVERFLOW) the size
 * needed with the NUL. */
PL_EXTERN BOOL WINAPI GetComputerNameA(LPSTR lpBuffer, LPDWORD nSize);
PL_EXTERN BOOL WINAPI GetComputerNameW(LPWSTR lpBuffer, LPDWORD nSize);
PL_EXTERN DWORD WINAPI GetCurrentProcessId(void);
PL_EXTERN DWORD WINAPI GetCurrentThreadId(void);

/* The file of a module: NULL is the program; an HINSTANCE/HMODULE is the
 * base address of a loaded library, as DllMain receives it. Truncated
 * output is NUL-terminated with ERROR_INSUFFICIENT_BUFFER, as on Windows;
 * an unknown module is 0 with ERROR_MOD_NOT_FOUND. */
PL_EXTERN DWORD WINAPI GetModuleFileNameA(HMODULE hModule, LPSTR lpFilename, DWORD nSize);
PL_EXTERN DWORD WINAPI GetModuleFileNameW(HMODULE hModule, LPWSTR lpFilename, DWORD nSize);

/* OutputDebugString: the debugger's channel, here the event log's
 * (syslog LOG_DEBUG, or the hook of pl_win32_set_event_hook) as
 * "debug: <text>". */
PL_EXTERN void WINAPI OutputDebugStringA(LPCSTR lpOutputString);
PL_EXTERN void WINAPI OutputDebugStringW(LPCWSTR lpOutputString);

/* DllMain is not declared here, as in Windows' headers: a provider defines
 * it with the return and argument types it likes (BOOL or DWORD, HINSTANCE,
 * HANDLE or HMODULE, DWORD or ULONG). The provider host calls it, in process
 * and in the helper, with DLL_PROCESS_ATTACH after loading the library
 * (FALSE fails the load, as on Windows) and DLL_PROCESS_DETACH before
 * unloading it; a C++ definition without extern "C" is found too, as the
 * Windows C runtime finds it (docs/win32.md). */

/* ------------------------------------------------------------ event log */
/* The event log is syslog (LOG_USER): ReportEvent writes one line
 * "<source>: event <id> [category <n>]: <string1> <string2> ..." with the
 * priority of wType (error LOG_ERR, warning LOG_WARNING, information and
 * audit LOG_INFO / LOG_NOTICE). lpUNCServerName must be NULL or this
 * machine. There are no message files: the strings are the message. */
#define EVENTLOG_SUCCESS 0x0000u
#define EVENTLOG_ERROR_TYPE 0x0001u
#define EVENTLOG_WARNING_TYPE 0x0002u
#define EVENTLOG_INFORMATION_TYPE 0x0004u
#define EVENTLOG_AUDIT_SUCCESS 0x0008u
#define EVENTLOG_AUDIT_FAILURE 0x0010u
typedef void *PSID;
PL_EXTERN HANDLE WINAPI RegisterEventSourceA(LPCSTR lpUNCServerName, LPCSTR lpSourceName);
PL_EXTERN HANDLE WINAPI RegisterEventSourceW(LPCWSTR lpUNCServerName, LPCWSTR lpSourceName);
PL_EXTERN BOOL WINAPI ReportEventA(HANDLE hEventLog, WORD wType, WORD wCategory, DWORD dwEventID, PSID lpUserSid,
                                   WORD wNumStrings, DWORD dwDataSize, LPCSTR *lpStrings, LPVOID lpRawData);
PL_EXTERN BOOL WINAPI ReportEventW(HANDLE hEventLog, WORD wType, WORD wCategory, DWORD dwEventID, PSID lpUserSid,
                                   WORD wNumStrings, DWORD dwDataSize, LPCWSTR *lpStrings, LPVOID lpRawData);
PL_EXTERN BOOL WINAPI DeregisterEventSource(HANDLE hEventLog);

/* ---------------------------------------------- shared memory and events */
/* Named file mappings and events, for a provider that talks to its service.
 * A name ("Global\\" and "Local\\" prefixes ignored) is one object for every
 * process of the machine: a mapping is POSIX shared memory
 * (/dev/shm/perflib-w32-map-<name>), an event a process-shared mutex and
 * condition variable in /dev/shm/perflib-w32-evt-<name>. Only the page-file
 * mappings Windows programs use for this are supported (hFile
 * INVALID_HANDLE_VALUE); Create* of an existing name opens it and sets
 * ERROR_ALREADY_EXISTS. The creator's CloseHandle removes the name (on
 * Windows the name lives while any handle is open; here processes that have
 * it open keep their object). */
#define PAGE_READONLY 0x02u
#define PAGE_READWRITE 0x04u
#define FILE_MAP_WRITE 0x0002u
#define FILE_MAP_READ 0x0004u
#define FILE_MAP_ALL_ACCESS 0x000F001Fu
#define SYNCHRONIZE 0x00100000u
#define EVENT_MODIFY_STATE 0x0002u
#define EVENT_ALL_ACCESS 0x001F0003u
#define INFINITE 0xFFFFFFFFu
#define WAIT_OBJECT_0 0x00000000u
#define WAIT_ABANDONED 0x00000080u
#define WAIT_TIMEOUT 0x00000102u
#define WAIT_FAILED 0xFFFFFFFFu
PL_EXTERN HANDLE WINAPI CreateFileMappingA(HANDLE hFile, LPSECURITY_ATTRIBUTES lpAttributes, DWORD flProtect,
                                           DWORD dwMaximumSizeHigh, DWORD dwMaximumSizeLow, LPCSTR lpName);
PL_EXTERN HANDLE WINAPI CreateFileMappingW(HANDLE hFile, LPSECURITY_ATTRIBUTES lpAttributes, DWORD flProtect,
                                           DWORD dwMaximumSizeHigh, DWORD dwMaximumSizeLow, LPCWSTR lpName);
PL_EXTERN HANDLE WINAPI OpenFileMappingA(DWORD dwDesiredAccess, BOOL bInheritHandle, LPCSTR lpName);
PL_EXTERN HANDLE WINAPI OpenFileMappingW(DWORD dwDesiredAccess, BOOL bInheritHandle, LPCWSTR lpName);
PL_EXTERN LPVOID WINAPI MapViewOfFile(HANDLE hFileMappingObject, DWORD dwDesiredAccess, DWORD dwFileOffsetHigh,
                                      DWORD dwFileOffsetLow, SIZE_T dwNumberOfBytesToMap);
PL_EXTERN BOOL WINAPI UnmapViewOfFile(LPCVOID lpBaseAddress);
PL_EXTERN HANDLE WINAPI CreateEventA(LPSECURITY_ATTRIBUTES lpEventAttributes, BOOL bManualReset, BOOL bInitialState,
                                     LPCSTR lpName);
PL_EXTERN HANDLE WINAPI CreateEventW(LPSECURITY_ATTRIBUTES lpEventAttributes, BOOL bManualReset, BOOL bInitialState,
                                     LPCWSTR lpName);
PL_EXTERN HANDLE WINAPI OpenEventA(DWORD dwDesiredAccess, BOOL bInheritHandle, LPCSTR lpName);
PL_EXTERN HANDLE WINAPI OpenEventW(DWORD dwDesiredAccess, BOOL bInheritHandle, LPCWSTR lpName);
PL_EXTERN BOOL WINAPI SetEvent(HANDLE hEvent);
PL_EXTERN BOOL WINAPI ResetEvent(HANDLE hEvent);
PL_EXTERN DWORD WINAPI WaitForSingleObject(HANDLE hHandle, DWORD dwMilliseconds);
/* Closes a mapping or an event handle (views stay valid until unmapped). */
PL_EXTERN BOOL WINAPI CloseHandle(HANDLE hObject);

/* ------------------------------------------------------------ interlocked */
/* Sequentially consistent, as on Windows. */
static inline LONG InterlockedIncrement(LONG volatile *p) { return __atomic_add_fetch(p, 1, __ATOMIC_SEQ_CST); }
static inline LONG InterlockedDecrement(LONG volatile *p) { return __atomic_sub_fetch(p, 1, __ATOMIC_SEQ_CST); }
static inline LONG InterlockedExchange(LONG volatile *p, LONG v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
static inline LONG InterlockedExchangeAdd(LONG volatile *p, LONG v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static inline LONG InterlockedCompareExchange(LONG volatile *p, LONG xchg, LONG cmp)
{
    __atomic_compare_exchange_n(p, &cmp, xchg, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return cmp;
}
static inline LONGLONG InterlockedIncrement64(LONGLONG volatile *p) { return __atomic_add_fetch(p, 1, __ATOMIC_SEQ_CST); }
static inline LONGLONG InterlockedDecrement64(LONGLONG volatile *p) { return __atomic_sub_fetch(p, 1, __ATOMIC_SEQ_CST); }
static inline LONGLONG InterlockedExchange64(LONGLONG volatile *p, LONGLONG v)
{
    return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
}
static inline LONGLONG InterlockedExchangeAdd64(LONGLONG volatile *p, LONGLONG v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
static inline LONGLONG InterlockedCompareExchange64(LONGLONG volatile *p, LONGLONG xchg, LONGLONG cmp)
{
    __atomic_compare_exchange_n(p, &cmp, xchg, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return cmp;
}
static inline PVOID InterlockedExchangePointer(PVOID volatile *p, PVOID v)
{
    return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
}
static inline PVOID InterlockedCompareExchangePointer(PVOID volatile *p, PVOID xchg, PVOID cmp)
{
    __atomic_compare_exchange_n(p, &cmp, xchg, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return cmp;
}

#ifdef UNICODE
#define lstrlen lstrlenW
#define lstrcpy lstrcpyW
#define lstrcpyn lstrcpynW
#define lstrcat lstrcatW
#define lstrcmp lstrcmpW
#define lstrcmpi lstrcmpiW
#define wsprintf wsprintfW
#define wvsprintf wvsprintfW
#define IsBadStringPtr IsBadStringPtrW
#define GetComputerName GetComputerNameW
#define GetModuleFileName GetModuleFileNameW
#define OutputDebugString OutputDebugStringW
#define RegisterEventSource RegisterEventSourceW
#define ReportEvent ReportEventW
#define CreateFileMapping CreateFileMappingW
#define OpenFileMapping OpenFileMappingW
#define CreateEvent CreateEventW
#define OpenEvent OpenEventW
#else
#define lstrlen lstrlenA
#define lstrcpy lstrcpyA
#define lstrcpyn lstrcpynA
#define lstrcat lstrcatA
#define lstrcmp lstrcmpA
#define lstrcmpi lstrcmpiA
#define wsprintf wsprintfA
#define wvsprintf wvsprintfA
#define IsBadStringPtr IsBadStringPtrA
#define GetComputerName GetComputerNameA
#define GetModuleFileName GetModuleFileNameA
#define OutputDebugString OutputDebugStringA
#define RegisterEventSource RegisterEventSourceA
#define ReportEvent ReportEventA
#define CreateFileMapping CreateFileMappingA
#define OpenFileMapping OpenFileMappingA
#define CreateEvent CreateEventA
#define OpenEvent OpenEventA
#endif

#ifdef __cplusplus
}
#endif

#endif
