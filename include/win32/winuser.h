/* perflib: MessageBox, the one call of Windows' winuser.h that performance
 * providers make (tracing samples put one in Open, Collect, Close and
 * DllMain, as RSDN's minimal provider does). There is no desktop here:
 * MessageBox writes one line "message box: <caption>: <text>" to the event
 * log's channel (syslog, or the hook of pl_win32_set_event_hook) with the
 * priority its icon asks for (MB_ICONERROR LOG_ERR, MB_ICONWARNING
 * LOG_WARNING, else LOG_INFO). A box with only an OK button returns IDOK;
 * a box that asks a question returns 0 with ERROR_CALL_NOT_IMPLEMENTED (no
 * user can answer it). Windows, dialogs and GDI are out of scope
 * (docs/win32.md). windows.h includes this header unless NOUSER is defined,
 * as Windows' does. */
#ifndef PERFLIB_WIN32_WINUSER_H
#define PERFLIB_WIN32_WINUSER_H

#include "windef.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MB_OK 0x00000000u
#define MB_OKCANCEL 0x00000001u
#define MB_ABORTRETRYIGNORE 0x00000002u
#define MB_YESNOCANCEL 0x00000003u
#define MB_YESNO 0x00000004u
#define MB_RETRYCANCEL 0x00000005u
#define MB_CANCELTRYCONTINUE 0x00000006u
#define MB_TYPEMASK 0x0000000Fu
#define MB_ICONHAND 0x00000010u
#define MB_ICONQUESTION 0x00000020u
#define MB_ICONEXCLAMATION 0x00000030u
#define MB_ICONASTERISK 0x00000040u
#define MB_ICONERROR MB_ICONHAND
#define MB_ICONSTOP MB_ICONHAND
#define MB_ICONWARNING MB_ICONEXCLAMATION
#define MB_ICONINFORMATION MB_ICONASTERISK
#define MB_ICONMASK 0x000000F0u
#define MB_DEFBUTTON1 0x00000000u
#define MB_DEFBUTTON2 0x00000100u
#define MB_DEFBUTTON3 0x00000200u
#define MB_DEFBUTTON4 0x00000300u
#define MB_APPLMODAL 0x00000000u
#define MB_SYSTEMMODAL 0x00001000u
#define MB_TASKMODAL 0x00002000u
#define MB_SETFOREGROUND 0x00010000u
#define MB_TOPMOST 0x00040000u
#define MB_SERVICE_NOTIFICATION 0x00200000u

#define IDOK 1
#define IDCANCEL 2
#define IDABORT 3
#define IDRETRY 4
#define IDIGNORE 5
#define IDYES 6
#define IDNO 7
#define IDTRYAGAIN 10
#define IDCONTINUE 11

PL_EXTERN int WINAPI MessageBoxA(HWND hWnd, LPCSTR lpText, LPCSTR lpCaption, UINT uType);
PL_EXTERN int WINAPI MessageBoxW(HWND hWnd, LPCWSTR lpText, LPCWSTR lpCaption, UINT uType);

#ifdef UNICODE
#define MessageBox MessageBoxW
#else
#define MessageBox MessageBoxA
#endif

#ifdef __cplusplus
}
#endif

#endif
