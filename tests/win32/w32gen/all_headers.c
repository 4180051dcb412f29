/* Every include/win32 header as Windows programs include them, then (in C++)
 * the standard library: compiled by test_win32_cxx as C17 and as C++17, with
 * gcc/g++ and clang/clang++, ANSI, UNICODE and WIN32_LEAN_AND_MEAN, with
 * -Wall -Wextra -Werror. What ported code does that must keep working: its
 * own LONGLONG and PERF_NO_INSTANCES definitions, PM_*_PROC declarations,
 * C_ASSERT, L""/TEXT() strings, LARGE_INTEGER.LowPart, a DllMain with the
 * program's own return and argument types (Windows' headers declare none),
 * rand() from <windows.h> alone, ANYSIZE_ARRAY, SC_HANDLE, the _s forms of
 * tchar.h, crtdbg.h's _ASSERTE. */
#include <Windows.h>
#include <WinPerf.h>
#include <winternl.h>
#include <ntstatus.h>
#include <ntsecapi.h>
#include <winnt.h>
#include <LoadPerf.h>
#include <Pdh.h>
#include <PdhMsg.h>
#include <tchar.h>
#include <WinSvc.h>
#include <WinUser.h>
#include <crtdbg.h>
#ifdef __cplusplus
#include <algorithm>
#include <iostream>
#include <map>
#include <string>
#include <vector>
#endif

typedef long long LONGLONG;  /* as some ported code declares it itself */
#define PERF_NO_INSTANCES -1 /* the SDK's spelling: no redefinition warning */
C_ASSERT(sizeof(PERF_OBJECT_TYPE) == 64);
C_ASSERT(sizeof(PDH_COUNTER_INFO) == 112);

#ifdef __cplusplus
extern "C" {
#endif
PM_OPEN_PROC AllHeadersOpen;
#ifdef __cplusplus
}
#endif

typedef struct {
    DWORD Length;
    BYTE Data[ANYSIZE_ARRAY];
} ALL_HEADERS_REQUEST;
C_ASSERT(sizeof(ALL_HEADERS_REQUEST) == 8);

/* As RSDN's provider spells it: DWORD, not BOOL; ULONG, not DWORD. */
DWORD APIENTRY DllMain(HANDLE module, ULONG reason, LPVOID reserved)
{
    UNREFERENCED_PARAMETER(module);
    UNREFERENCED_PARAMETER(reserved);
    return reason != DLL_PROCESS_DETACH || reason == DLL_PROCESS_DETACH;
}

DWORD APIENTRY AllHeadersOpen(LPWSTR devices)
{
    UNREFERENCED_PARAMETER(devices);
    return ERROR_SUCCESS;
}

int main(void)
{
    WCHAR w[] = L"Global";
    TCHAR t[] = TEXT("Counter 009");
    LARGE_INTEGER li;
    li.QuadPart = 1;
    LONGLONG ll = li.QuadPart + (LONGLONG)li.LowPart;
    TCHAR buf[32];
    ll += _stprintf_s(buf, ARRAYSIZE(buf), TEXT("%d"), rand() % 10);
    _ASSERTE(buf[0] != 0);
    SC_HANDLE scm = OpenSCManager(NULL, NULL, SC_MANAGER_CONNECT);
    if (scm) CloseServiceHandle(scm);
    if (MessageBox(NULL, buf, TEXT("all headers"), MB_OK) != IDOK) ll++;
#ifdef __cplusplus
    std::vector<int> v = {3, 1, 2};
    std::sort(v.begin(), v.end());
    std::string s = "x";
    ll += (LONGLONG)v.size() + (LONGLONG)s.size();
#endif
    return (int)(AllHeadersOpen(w) + _tcslen(t) + (size_t)ll) == 0;
}
