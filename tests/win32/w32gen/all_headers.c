/* Every include/win32 header as Windows programs include them, then (in C++)
 * the standard library: compiled by test_win32_cxx as C17 and as C++17, with
 * gcc/g++ and clang/clang++, ANSI, UNICODE and WIN32_LEAN_AND_MEAN, with
 * -Wall -Wextra -Werror. What ported code does that must keep working: its
 * own LONGLONG and PERF_NO_INSTANCES definitions, PM_*_PROC declarations,
 * C_ASSERT, L""/TEXT() strings, LARGE_INTEGER.LowPart. */
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
#ifdef __cplusplus
    std::vector<int> v = {3, 1, 2};
    std::sort(v.begin(), v.end());
    std::string s = "x";
    ll += (LONGLONG)v.size() + (LONGLONG)s.size();
#endif
    return (int)(AllHeadersOpen(w) + _tcslen(t) + (size_t)ll) == 0;
}
