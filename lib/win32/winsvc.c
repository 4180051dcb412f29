/* perflib: the service-control functions of win32/winsvc.h and MessageBox
 * of win32/winuser.h, for ported provider installers, services and tracing
 * code (docs/win32.md, "Services" and "MessageBox"). Linux has no service
 * control manager these calls could mean: each one fails with the error
 * Windows gives where that is meaningful here (a service program not
 * started by a service controller), else ERROR_CALL_NOT_IMPLEMENTED.
 * MessageBox has no desktop: it writes its caption and text to the event
 * log's channel. */
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "win32/winbase.h"
#include "win32/winsvc.h"
#include "win32/winuser.h"
#include "win32_internal.h"

/* ------------------------------------------------------------ services */

static SC_HANDLE no_handle(void)
{
    SetLastError(ERROR_CALL_NOT_IMPLEMENTED);
    return NULL;
}

static BOOL no_call(void)
{
    SetLastError(ERROR_CALL_NOT_IMPLEMENTED);
    return FALSE;
}

PL_EXTERN SC_HANDLE WINAPI OpenSCManagerA(LPCSTR lpMachineName, LPCSTR lpDatabaseName, DWORD dwDesiredAccess)
{
    (void)lpMachineName;
    (void)lpDatabaseName;
    (void)dwDesiredAccess;
    return no_handle();
}

PL_EXTERN SC_HANDLE WINAPI OpenSCManagerW(LPCWSTR lpMachineName, LPCWSTR lpDatabaseName, DWORD dwDesiredAccess)
{
    (void)lpMachineName;
    (void)lpDatabaseName;
    (void)dwDesiredAccess;
    return no_handle();
}

PL_EXTERN SC_HANDLE WINAPI OpenServiceA(SC_HANDLE hSCManager, LPCSTR lpServiceName, DWORD dwDesiredAccess)
{
    (void)hSCManager;
    (void)lpServiceName;
    (void)dwDesiredAccess;
    return no_handle();
}

PL_EXTERN SC_HANDLE WINAPI OpenServiceW(SC_HANDLE hSCManager, LPCWSTR lpServiceName, DWORD dwDesiredAccess)
{
    (void)hSCManager;
    (void)lpServiceName;
    (void)dwDesiredAccess;
    return no_handle();
}

PL_EXTERN SC_HANDLE WINAPI CreateServiceA(SC_HANDLE hSCManager, LPCSTR lpServiceName, LPCSTR lpDisplayName,
                                          DWORD dwDesiredAccess, DWORD dwServiceType, DWORD dwStartType,
                                          DWORD dwErrorControl, LPCSTR lpBinaryPathName, LPCSTR lpLoadOrderGroup,
                                          LPDWORD lpdwTagId, LPCSTR lpDependencies, LPCSTR lpServiceStartName,
                                          LPCSTR lpPassword)
{
    (void)hSCManager, (void)lpServiceName, (void)lpDisplayName, (void)dwDesiredAccess, (void)dwServiceType;
    (void)dwStartType, (void)dwErrorControl, (void)lpBinaryPathName, (void)lpLoadOrderGroup, (void)lpdwTagId;
    (void)lpDependencies, (void)lpServiceStartName, (void)lpPassword;
    return no_handle();
}

PL_EXTERN SC_HANDLE WINAPI CreateServiceW(SC_HANDLE hSCManager, LPCWSTR lpServiceName, LPCWSTR lpDisplayName,
                                          DWORD dwDesiredAccess, DWORD dwServiceType, DWORD dwStartType,
                                          DWORD dwErrorControl, LPCWSTR lpBinaryPathName, LPCWSTR lpLoadOrderGroup,
                                          LPDWORD lpdwTagId, LPCWSTR lpDependencies, LPCWSTR lpServiceStartName,
                                          LPCWSTR lpPassword)
{
    (void)hSCManager, (void)lpServiceName, (void)lpDisplayName, (void)dwDesiredAccess, (void)dwServiceType;
    (void)dwStartType, (void)dwErrorControl, (void)lpBinaryPathName, (void)lpLoadOrderGroup, (void)lpdwTagId;
    (void)lpDependencies, (void)lpServiceStartName, (void)lpPassword;
    return no_handle();
}

PL_EXTERN BOOL WINAPI DeleteService(SC_HANDLE hService)
{
    (void)hService;
    return no_call();
}

PL_EXTERN BOOL WINAPI StartServiceA(SC_HANDLE hService, DWORD dwNumServiceArgs, LPCSTR *lpServiceArgVectors)
{
    (void)hService, (void)dwNumServiceArgs, (void)lpServiceArgVectors;
    return no_call();
}

PL_EXTERN BOOL WINAPI StartServiceW(SC_HANDLE hService, DWORD dwNumServiceArgs, LPCWSTR *lpServiceArgVectors)
{
    (void)hService, (void)dwNumServiceArgs, (void)lpServiceArgVectors;
    return no_call();
}

PL_EXTERN BOOL WINAPI ControlService(SC_HANDLE hService, DWORD dwControl, LPSERVICE_STATUS lpServiceStatus)
{
    (void)hService, (void)dwControl, (void)lpServiceStatus;
    return no_call();
}

PL_EXTERN BOOL WINAPI QueryServiceStatus(SC_HANDLE hService, LPSERVICE_STATUS lpServiceStatus)
{
    (void)hService, (void)lpServiceStatus;
    return no_call();
}

PL_EXTERN BOOL WINAPI QueryServiceStatusEx(SC_HANDLE hService, SC_STATUS_TYPE InfoLevel, LPBYTE lpBuffer,
                                           DWORD cbBufSize, LPDWORD pcbBytesNeeded)
{
    (void)hService, (void)InfoLevel, (void)lpBuffer, (void)cbBufSize, (void)pcbBytesNeeded;
    return no_call();
}

PL_EXTERN BOOL WINAPI ChangeServiceConfigA(SC_HANDLE hService, DWORD dwServiceType, DWORD dwStartType,
                                           DWORD dwErrorControl, LPCSTR lpBinaryPathName, LPCSTR lpLoadOrderGroup,
                                           LPDWORD lpdwTagId, LPCSTR lpDependencies, LPCSTR lpServiceStartName,
                                           LPCSTR lpPassword, LPCSTR lpDisplayName)
{
    (void)hService, (void)dwServiceType, (void)dwStartType, (void)dwErrorControl, (void)lpBinaryPathName;
    (void)lpLoadOrderGroup, (void)lpdwTagId, (void)lpDependencies, (void)lpServiceStartName, (void)lpPassword;
    (void)lpDisplayName;
    return no_call();
}

PL_EXTERN BOOL WINAPI ChangeServiceConfigW(SC_HANDLE hService, DWORD dwServiceType, DWORD dwStartType,
                                           DWORD dwErrorControl, LPCWSTR lpBinaryPathName, LPCWSTR lpLoadOrderGroup,
                                           LPDWORD lpdwTagId, LPCWSTR lpDependencies, LPCWSTR lpServiceStartName,
                                           LPCWSTR lpPassword, LPCWSTR lpDisplayName)
{
    (void)hService, (void)dwServiceType, (void)dwStartType, (void)dwErrorControl, (void)lpBinaryPathName;
    (void)lpLoadOrderGroup, (void)lpdwTagId, (void)lpDependencies, (void)lpServiceStartName, (void)lpPassword;
    (void)lpDisplayName;
    return no_call();
}

PL_EXTERN BOOL WINAPI ChangeServiceConfig2A(SC_HANDLE hService, DWORD dwInfoLevel, LPVOID lpInfo)
{
    (void)hService, (void)dwInfoLevel, (void)lpInfo;
    return no_call();
}

PL_EXTERN BOOL WINAPI ChangeServiceConfig2W(SC_HANDLE hService, DWORD dwInfoLevel, LPVOID lpInfo)
{
    (void)hService, (void)dwInfoLevel, (void)lpInfo;
    return no_call();
}

PL_EXTERN BOOL WINAPI CloseServiceHandle(SC_HANDLE hSCObject)
{
    (void)hSCObject;
    return no_call();
}

/* A service program started from a console gets this on Windows and then
 * usually runs in the foreground: here no service controller ever starts
 * one. */
PL_EXTERN BOOL WINAPI StartServiceCtrlDispatcherA(const SERVICE_TABLE_ENTRYA *lpServiceStartTable)
{
    (void)lpServiceStartTable;
    SetLastError(ERROR_FAILED_SERVICE_CONTROLLER_CONNECT);
    return FALSE;
}

PL_EXTERN BOOL WINAPI StartServiceCtrlDispatcherW(const SERVICE_TABLE_ENTRYW *lpServiceStartTable)
{
    (void)lpServiceStartTable;
    SetLastError(ERROR_FAILED_SERVICE_CONTROLLER_CONNECT);
    return FALSE;
}

PL_EXTERN SERVICE_STATUS_HANDLE WINAPI RegisterServiceCtrlHandlerA(LPCSTR lpServiceName,
                                                                   LPHANDLER_FUNCTION lpHandlerProc)
{
    (void)lpServiceName, (void)lpHandlerProc;
    SetLastError(ERROR_CALL_NOT_IMPLEMENTED);
    return NULL;
}

PL_EXTERN SERVICE_STATUS_HANDLE WINAPI RegisterServiceCtrlHandlerW(LPCWSTR lpServiceName,
                                                                   LPHANDLER_FUNCTION lpHandlerProc)
{
    (void)lpServiceName, (void)lpHandlerProc;
    SetLastError(ERROR_CALL_NOT_IMPLEMENTED);
    return NULL;
}

PL_EXTERN SERVICE_STATUS_HANDLE WINAPI RegisterServiceCtrlHandlerExA(LPCSTR lpServiceName,
                                                                     LPHANDLER_FUNCTION_EX lpHandlerProc,
                                                                     LPVOID lpContext)
{
    (void)lpServiceName, (void)lpHandlerProc, (void)lpContext;
    SetLastError(ERROR_CALL_NOT_IMPLEMENTED);
    return NULL;
}

PL_EXTERN SERVICE_STATUS_HANDLE WINAPI RegisterServiceCtrlHandlerExW(LPCWSTR lpServiceName,
                                                                     LPHANDLER_FUNCTION_EX lpHandlerProc,
                                                                     LPVOID lpContext)
{
    (void)lpServiceName, (void)lpHandlerProc, (void)lpContext;
    SetLastError(ERROR_CALL_NOT_IMPLEMENTED);
    return NULL;
}

PL_EXTERN BOOL WINAPI SetServiceStatus(SERVICE_STATUS_HANDLE hServiceStatus, LPSERVICE_STATUS lpServiceStatus)
{
    (void)hServiceStatus, (void)lpServiceStatus;
    return no_call();
}

/* ------------------------------------------------------------ MessageBox */

static int box_priority(UINT type)
{
    switch (type & MB_ICONMASK) {
    case MB_ICONHAND: return LOG_ERR;
    case MB_ICONEXCLAMATION: return LOG_WARNING;
    default: return LOG_INFO;
    }
}

static int message_box(const char *text, const char *caption, UINT type)
{
    /* "<caption>: <text>"; a NULL caption is Windows' default, "Error". */
    const char *c = caption ? caption : "Error";
    const char *t = text ? text : "";
    size_t lc = strlen(c), lt = strlen(t);
    char *line = malloc(lc + 2 + lt + 1);
    if (!line) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return 0;
    }
    memcpy(line, c, lc);
    memcpy(line + lc, ": ", 2);
    memcpy(line + lc + 2, t, lt + 1);
    pl__w32_channel_line(box_priority(type), "message box: ", line);
    free(line);
    if ((type & MB_TYPEMASK) == MB_OK) return IDOK;
    SetLastError(ERROR_CALL_NOT_IMPLEMENTED); /* nobody here can answer a question */
    return 0;
}

PL_EXTERN int WINAPI MessageBoxA(HWND hWnd, LPCSTR lpText, LPCSTR lpCaption, UINT uType)
{
    (void)hWnd;
    return message_box(lpText, lpCaption, uType);
}

PL_EXTERN int WINAPI MessageBoxW(HWND hWnd, LPCWSTR lpText, LPCWSTR lpCaption, UINT uType)
{
    (void)hWnd;
    int rc1 = PL_OK, rc2 = PL_OK;
    char *text = pl__w32_narrow(lpText, &rc1);
    char *caption = pl__w32_narrow(lpCaption, &rc2);
    int ret = 0;
    if (rc1 == PL_E_NOMEM || rc2 == PL_E_NOMEM) SetLastError(ERROR_NOT_ENOUGH_MEMORY);
    else if (rc1 != PL_OK || rc2 != PL_OK) SetLastError(ERROR_INVALID_PARAMETER); /* not UTF-16 */
    else ret = message_box(text, caption, uType);
    free(text);
    free(caption);
    return ret;
}
