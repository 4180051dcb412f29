/* The base Win32 of include/win32/winbase.h (docs/win32.md, "Base Win32"):
 * strings, wsprintf, code pages, time (QueryPerformanceCounter on the
 * block's clock), the computer name, module names, the event log, named
 * shared memory and events across processes, the service-control stubs,
 * MessageBox and crtdbg.h. Built as a Windows program: <windows.h> only
 * (plus perflib/win32.h for the event-log hook). */
#define _DEBUG /* crtdbg.h's reporting _ASSERTE */
#include <windows.h>
#include <crtdbg.h>
#include <ntsecapi.h>
#include <ntstatus.h>
#include <winternl.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "perflib/block.h"
#include "perflib/win32.h"
#include "pl_test.h"
#include "w32_util.h"

static pq_fixture fx;

static int setup(void **state)
{
    (void)state;
    return pq_fixture_make(&fx, NULL, NULL);
}

static int teardown(void **state)
{
    (void)state;
    pq_fixture_done(&fx);
    return 0;
}

static void strings(void **state)
{
    (void)state;
    char a[16];
    WCHAR w[16];
    static const WCHAR hello[] = {'H', 'e', 'l', 'l', 'o', 0};
    assert_int_equal(lstrlenA("abc"), 3);
    assert_int_equal(lstrlenA(NULL), 0);
    assert_int_equal(lstrlenW(hello), 5);
    assert_ptr_equal(lstrcpynA(a, "abcdef", 4), a);
    assert_string_equal(a, "abc");
    assert_null(lstrcpynA(a, "x", 0));
    assert_ptr_equal(lstrcpynW(w, hello, 3), w);
    assert_int_equal(w[0], 'H');
    assert_int_equal(w[2], 0);
    lstrcpyA(a, "ab");
    lstrcatA(a, "cd");
    assert_string_equal(a, "abcd");
    assert_true(lstrcmpiA("ABC", "abc") == 0);
    assert_true(lstrcmpA("abc", "abd") < 0);
    assert_true(lstrcmpiW(hello, hello) == 0);
    assert_true(lstrcmpA(NULL, "a") < 0);
}

static void wsprintf_rules(void **state)
{
    (void)state;
    char out[1100];
    static const WCHAR wide[] = {'W', 'i', 0xE9, 0};
    DWORD dw = 0xFFFFFFFFu;
    LONG l = -5;
    /* %s narrow in the A form, %S wide; %lu is 32-bit (a DWORD). */
    assert_int_equal(wsprintfA(out, "%s|%S|%lu|%ld|%I64d|%03d|%%|%c", "nar", wide, dw, l, (LONGLONG)-1099511627776LL, 7, 'x'),
                     (int)strlen("nar|Wi\xC3\xA9|4294967295|-5|-1099511627776|007|%|x"));
    assert_string_equal(out, "nar|Wi\xC3\xA9|4294967295|-5|-1099511627776|007|%|x");
    /* Output is cut at 1024 characters with the NUL, as on Windows. */
    char big[2000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(wsprintfA(out, "%s", big), 1023);
    assert_int_equal(strlen(out), 1023);
    /* The W form: %s wide, %hs narrow. */
    WCHAR wout[64];
    uint16_t *fmt = w32_widen("[%s][%hs][%5d]");
    assert_int_equal(wsprintfW(wout, (LPCWSTR)fmt, wide, "n", 42), 15);
    free(fmt);
    uint16_t *want = w32_widen("[Wi\xC3\xA9][n][   42]");
    assert_memory_equal(wout, want, 16 * sizeof(WCHAR));
    free(want);
}

static void code_pages(void **state)
{
    (void)state;
    const char *s = "a\xC3\xA9\xF0\x9F\x98\x80"; /* a, é, U+1F600 */
    assert_int_equal(MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0), 5); /* a é + surrogate pair + NUL */
    WCHAR w[8];
    assert_int_equal(MultiByteToWideChar(CP_ACP, 0, s, -1, w, 8), 5);
    assert_int_equal(w[1], 0xE9);
    assert_int_equal(w[2], 0xD83D);
    assert_int_equal(w[3], 0xDE00);
    assert_int_equal(MultiByteToWideChar(CP_UTF8, 0, s, -1, w, 2), 0);
    assert_int_equal(GetLastError(), ERROR_INSUFFICIENT_BUFFER);
    assert_int_equal(MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, "\xFF", 1, w, 8), 0);
    assert_int_equal(GetLastError(), ERROR_NO_UNICODE_TRANSLATION);
    assert_int_equal(MultiByteToWideChar(CP_UTF8, 0, "\xFF", 1, w, 8), 1);
    assert_int_equal(w[0], 0xFFFD);
    assert_int_equal(MultiByteToWideChar(1252, 0, "a", 1, w, 8), 0);
    assert_int_equal(GetLastError(), ERROR_INVALID_PARAMETER);
    char back[16];
    WCHAR src[] = {'a', 0xE9, 0xD83D, 0xDE00, 0};
    assert_int_equal(WideCharToMultiByte(CP_UTF8, 0, src, -1, NULL, 0, NULL, NULL), 8);
    assert_int_equal(WideCharToMultiByte(CP_UTF8, 0, src, -1, back, sizeof back, NULL, NULL), 8);
    assert_string_equal(back, s);
    BOOL used = TRUE;
    assert_int_equal(WideCharToMultiByte(CP_ACP, 0, src, 2, back, sizeof back, NULL, &used), 3);
    assert_false(used);
    assert_int_equal(WideCharToMultiByte(CP_UTF8, 0, src, -1, back, sizeof back, NULL, &used), 0);
    assert_int_equal(GetLastError(), ERROR_INVALID_PARAMETER);
}

static void bad_pointers(void **state)
{
    (void)state;
    assert_true(IsBadStringPtrA(NULL, 10));
    assert_false(IsBadStringPtrA("abc", 100));
    assert_true(IsBadStringPtrA((LPCSTR)(uintptr_t)16, 10));
    /* A string that runs into an unmapped page without a NUL is bad; one
     * whose NUL comes first, or whose limit comes first, is not. */
    long page = sysconf(_SC_PAGESIZE);
    char *two = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(two != MAP_FAILED);
    assert_int_equal(munmap(two + page, (size_t)page), 0);
    memset(two, 'x', (size_t)page);
    assert_true(IsBadStringPtrA(two, (UINT_PTR)page * 2));
    assert_false(IsBadStringPtrA(two, (UINT_PTR)page));
    two[page - 1] = '\0';
    assert_false(IsBadStringPtrA(two, (UINT_PTR)page * 2));
    assert_true(IsBadReadPtr(two, (UINT_PTR)page + 1));
    assert_false(IsBadReadPtr(two, (UINT_PTR)page));
    munmap(two, (size_t)page);
}

/* QueryPerformanceCounter/Frequency are the clock of the block's
 * PerfTime/PerfFreq: a reading taken between two queries lies between
 * their PerfTimes. GetComputerName is the block's system name. */
static void clocks_and_names_agree_with_the_block(void **state)
{
    (void)state;
    LARGE_INTEGER f, c;
    assert_true(QueryPerformanceFrequency(&f));
    unsigned char *buf = malloc(1 << 20);
    assert_non_null(buf);
    DWORD size = 1 << 20;
    assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Global", NULL, NULL, buf, &size), ERROR_SUCCESS);
    pl_block b1;
    pl_error err;
    assert_int_equal(pl_block_open(&b1, buf, size, 0, 0, &err), PL_OK);
    int64_t t1 = b1.hdr.PerfTime.QuadPart;
    assert_int_equal(b1.hdr.PerfFreq.QuadPart, f.QuadPart);
    assert_true(QueryPerformanceCounter(&c));
    size = 1 << 20;
    assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Global", NULL, NULL, buf, &size), ERROR_SUCCESS);
    pl_block b2;
    assert_int_equal(pl_block_open(&b2, buf, size, 0, 0, &err), PL_OK);
    assert_true(t1 <= c.QuadPart);
    assert_true(c.QuadPart <= b2.hdr.PerfTime.QuadPart);
    char name[64];
    DWORD n = 2;
    assert_false(GetComputerNameA(name, &n));
    assert_int_equal(GetLastError(), ERROR_BUFFER_OVERFLOW);
    assert_int_equal(n, strlen(b2.system_name) + 1);
    n = sizeof name;
    assert_true(GetComputerNameA(name, &n));
    assert_int_equal(n, strlen(name));
    assert_string_equal(name, b2.system_name);
    free(buf);
    /* Ticks and the system time move the right way. */
    ULONGLONG k1 = GetTickCount64();
    Sleep(20);
    assert_true(GetTickCount64() - k1 >= 20);
    FILETIME ft1, ft2;
    GetSystemTimeAsFileTime(&ft1);
    SYSTEMTIME st;
    GetSystemTime(&st);
    assert_true(st.wYear >= 2024);
    assert_true(SystemTimeToFileTime(&st, &ft2));
    SYSTEMTIME back;
    assert_true(FileTimeToSystemTime(&ft2, &back));
    assert_memory_equal(&back, &st, sizeof st);
    assert_int_equal(CompareFileTime(&ft1, &ft1), 0);
    ULARGE_INTEGER u1 = {{ft1.dwLowDateTime, ft1.dwHighDateTime}};
    ULARGE_INTEGER u2 = {{ft2.dwLowDateTime, ft2.dwHighDateTime}};
    assert_true(u2.QuadPart + 10000000ull > u1.QuadPart && u2.QuadPart < u1.QuadPart + 10000000ull);
}

static void module_names(void **state)
{
    (void)state;
    char path[4096];
    DWORD n = GetModuleFileNameA(NULL, path, sizeof path);
    assert_true(n > 0);
    assert_non_null(strstr(path, "test_win32_base"));
    assert_int_equal(GetModuleFileNameA(NULL, path, 4), 4); /* cut, NUL-terminated */
    assert_int_equal(path[3], '\0');
    assert_int_equal(GetLastError(), ERROR_INSUFFICIENT_BUFFER);
    assert_int_equal(GetModuleFileNameA((HMODULE)(uintptr_t)0x10, path, sizeof path), 0);
    assert_int_equal(GetLastError(), ERROR_MOD_NOT_FOUND);
}

static char g_lines[4][600];
static int g_prio[4], g_nlines;

static void hook(int prio, const char *line, void *ctx)
{
    (void)ctx;
    if (g_nlines < 4) {
        g_prio[g_nlines] = prio;
        snprintf(g_lines[g_nlines++], sizeof g_lines[0], "%s", line);
    }
}

static void event_log(void **state)
{
    (void)state;
    pl_win32_set_event_hook(hook, NULL);
    HANDLE h = RegisterEventSourceA(NULL, "W32Gen");
    assert_non_null(h);
    LPCSTR strs[] = {"object 156 bytes", "line\nbreak"};
    assert_true(ReportEventA(h, EVENTLOG_WARNING_TYPE, 0, 1016, NULL, 2, 0, strs, NULL));
    static const WCHAR wmsg[] = {'w', 0xE9, 0};
    LPCWSTR wstrs[] = {wmsg};
    assert_true(ReportEventW(h, EVENTLOG_ERROR_TYPE, 3, 0xC0000007u, NULL, 1, 0, wstrs, NULL));
    assert_int_equal(g_nlines, 2);
    assert_int_equal(g_prio[0], LOG_WARNING);
    assert_string_equal(g_lines[0], "W32Gen: event 1016: object 156 bytes line break");
    assert_int_equal(g_prio[1], LOG_ERR);
    assert_string_equal(g_lines[1], "W32Gen: event 7 category 3: w\xC3\xA9");
    assert_true(DeregisterEventSource(h));
    assert_false(DeregisterEventSource(h));
    assert_int_equal(GetLastError(), ERROR_INVALID_HANDLE);
    assert_false(ReportEventA(h, EVENTLOG_WARNING_TYPE, 0, 1, NULL, 0, 0, NULL, NULL));
    assert_null(RegisterEventSourceA("\\\\elsewhere.example", "x"));
    pl_win32_set_event_hook(NULL, NULL);
}

/* A service and its provider: the service (a child process) creates a named
 * mapping and an event, writes a value, signals; the provider side opens
 * both by name, waits, reads. Then the other way round with an auto-reset
 * event and a timeout. */
static void shared_memory_and_events(void **state)
{
    (void)state;
    char map_name[64], ev_name[64], ready_name[64];
    snprintf(map_name, sizeof map_name, "Global\\W32GenTest%d", (int)getpid());
    snprintf(ev_name, sizeof ev_name, "W32GenTestEv%d", (int)getpid());
    snprintf(ready_name, sizeof ready_name, "W32GenTestReady%d", (int)getpid());
    assert_null(OpenFileMappingA(FILE_MAP_READ, FALSE, map_name));
    assert_int_equal(GetLastError(), ERROR_FILE_NOT_FOUND);
    HANDLE ready = CreateEventA(NULL, TRUE, FALSE, ready_name);
    assert_non_null(ready);
    assert_int_equal(GetLastError(), ERROR_SUCCESS);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        HANDLE m = CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, 8192, map_name);
        HANDLE ev = CreateEventA(NULL, FALSE, FALSE, ev_name);
        HANDLE r = OpenEventA(EVENT_MODIFY_STATE, FALSE, ready_name);
        if (!m || !ev || !r) _exit(2);
        DWORD *v = MapViewOfFile(m, FILE_MAP_ALL_ACCESS, 0, 0, 0);
        if (!v) _exit(3);
        SetEvent(r); /* both objects exist now */
        /* Wait for the other side to ask (auto-reset: one wake per Set). */
        if (WaitForSingleObject(ev, 5000) != WAIT_OBJECT_0) _exit(4);
        v[1] = 4242;
        SetEvent(ev);
        Sleep(300); /* let the other side open the mapping before the name goes */
        UnmapViewOfFile(v);
        CloseHandle(m);
        CloseHandle(ev);
        CloseHandle(r);
        _exit(0);
    }
    assert_int_equal(WaitForSingleObject(ready, 5000), WAIT_OBJECT_0);
    assert_int_equal(WaitForSingleObject(ready, 0), WAIT_OBJECT_0); /* manual reset: stays signalled */
    HANDLE m = OpenFileMappingA(FILE_MAP_READ, FALSE, map_name);
    assert_non_null(m);
    HANDLE ev = OpenEventA(SYNCHRONIZE | EVENT_MODIFY_STATE, FALSE, ev_name);
    assert_non_null(ev);
    volatile DWORD *v = MapViewOfFile(m, FILE_MAP_READ, 0, 0, 8192);
    assert_non_null(v);
    assert_null(MapViewOfFile(m, FILE_MAP_WRITE, 0, 0, 0)); /* opened for reading */
    assert_int_equal(GetLastError(), ERROR_ACCESS_DENIED);
    assert_true(SetEvent(ev));
    Sleep(50);
    /* The child consumed the auto-reset signal, then set it again. */
    assert_int_equal(WaitForSingleObject(ev, 5000), WAIT_OBJECT_0);
    assert_int_equal(v[1], 4242);
    assert_int_equal(WaitForSingleObject(ev, 50), WAIT_TIMEOUT); /* auto-reset */
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_true(UnmapViewOfFile((LPCVOID)v));
    assert_false(UnmapViewOfFile((LPCVOID)v));
    assert_true(CloseHandle(m));
    assert_true(CloseHandle(ev));
    assert_true(CloseHandle(ready));
    assert_false(CloseHandle(ready));
    assert_int_equal(GetLastError(), ERROR_INVALID_HANDLE);
    assert_int_equal(WaitForSingleObject(ready, 0), WAIT_FAILED);
    /* The creators closed their handles: the names are gone. */
    assert_null(OpenFileMappingA(FILE_MAP_READ, FALSE, map_name));
    assert_null(OpenEventA(SYNCHRONIZE, FALSE, ev_name));
    /* An unnamed mapping and event work inside the process. */
    HANDLE um = CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, 100, NULL);
    assert_non_null(um);
    char *p = MapViewOfFile(um, FILE_MAP_WRITE, 0, 0, 0);
    assert_non_null(p);
    p[99] = 'z';
    UnmapViewOfFile(p);
    CloseHandle(um);
    assert_null(CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, 0, NULL));
    assert_int_equal(GetLastError(), ERROR_INVALID_PARAMETER);
}

/* What a provider's sources use from winnt.h/ntstatus.h: SAL annotations,
 * C_ASSERT at file and block scope, RTL_SIZEOF_THROUGH_FIELD, NTSTATUS;
 * and OutputDebugString, which goes where the event log goes. */
typedef struct two_fields {
    DWORD a;
    ULONG b[3];
} two_fields;
C_ASSERT(RTL_SIZEOF_THROUGH_FIELD(two_fields, b[1]) == 12);
C_ASSERT(FIELD_OFFSET(two_fields, b) == 4);

static NTSTATUS annotated(__in DWORD x, __out PULONG y, __in_opt LPCWSTR z)
{
    (void)z;
    *y = x;
    return x ? STATUS_SUCCESS : STATUS_INVALID_PARAMETER;
}

static void nt_headers_and_debug_output(void **state)
{
    (void)state;
    C_ASSERT(sizeof(NTSTATUS) == 4);
    ULONG y = 0;
    assert_true(NT_SUCCESS(annotated(3, &y, NULL)));
    assert_int_equal(y, 3);
    assert_false(NT_SUCCESS(annotated(0, &y, NULL)));
    assert_true(NT_ERROR(STATUS_ACCESS_DENIED));
    g_nlines = 0;
    pl_win32_set_event_hook(hook, NULL);
    OutputDebugStringA("JpkfbtQueryStatistics failed\n");
    static const WCHAR w[] = {'w', 'i', 'd', 'e', 0};
    OutputDebugStringW(w);
    pl_win32_set_event_hook(NULL, NULL);
    assert_int_equal(g_nlines, 2);
    assert_int_equal(g_prio[0], LOG_DEBUG);
    assert_string_equal(g_lines[0], "debug: JpkfbtQueryStatistics failed ");
    assert_string_equal(g_lines[1], "debug: wide");
}

/* A provider installer's service calls (issue 29 item 2): no service
 * control manager here, so each fails with ERROR_CALL_NOT_IMPLEMENTED;
 * StartServiceCtrlDispatcher fails as for a service program started from a
 * console on Windows, so the program takes its console path. */
static void service_control(void **state)
{
    (void)state;
    SetLastError(0);
    SC_HANDLE scm = OpenSCManagerA(NULL, NULL, SC_MANAGER_ALL_ACCESS);
    assert_null(scm);
    assert_int_equal(GetLastError(), ERROR_CALL_NOT_IMPLEMENTED);
    static const WCHAR wname[] = {'s', 'v', 'c', 0};
    SetLastError(0);
    assert_null(OpenSCManagerW(NULL, NULL, SC_MANAGER_CONNECT));
    assert_int_equal(GetLastError(), ERROR_CALL_NOT_IMPLEMENTED);
    SetLastError(0);
    assert_null(CreateServiceA(scm, "svc", "Service", SERVICE_ALL_ACCESS, SERVICE_WIN32_OWN_PROCESS,
                               SERVICE_DEMAND_START, SERVICE_ERROR_NORMAL, "/usr/bin/true", NULL, NULL, NULL, NULL,
                               NULL));
    assert_int_equal(GetLastError(), ERROR_CALL_NOT_IMPLEMENTED);
    SetLastError(0);
    assert_null(OpenServiceW(scm, wname, SERVICE_START | SERVICE_STOP | DELETE));
    assert_int_equal(GetLastError(), ERROR_CALL_NOT_IMPLEMENTED);
    SERVICE_STATUS st;
    SetLastError(0);
    assert_false(ControlService(NULL, SERVICE_CONTROL_STOP, &st));
    assert_int_equal(GetLastError(), ERROR_CALL_NOT_IMPLEMENTED);
    SetLastError(0);
    assert_false(StartServiceA(NULL, 0, NULL));
    assert_int_equal(GetLastError(), ERROR_CALL_NOT_IMPLEMENTED);
    SetLastError(0);
    assert_false(QueryServiceStatus(NULL, &st));
    assert_int_equal(GetLastError(), ERROR_CALL_NOT_IMPLEMENTED);
    SetLastError(0);
    assert_false(DeleteService(NULL));
    assert_int_equal(GetLastError(), ERROR_CALL_NOT_IMPLEMENTED);
    SetLastError(0);
    assert_false(CloseServiceHandle(NULL));
    assert_int_equal(GetLastError(), ERROR_CALL_NOT_IMPLEMENTED);
    SetLastError(0);
    assert_null(RegisterServiceCtrlHandlerA("svc", NULL));
    assert_int_equal(GetLastError(), ERROR_CALL_NOT_IMPLEMENTED);
    SERVICE_TABLE_ENTRYA table[] = {{(LPSTR) "svc", NULL}, {NULL, NULL}};
    SetLastError(0);
    assert_false(StartServiceCtrlDispatcherA(table));
    assert_int_equal(GetLastError(), ERROR_FAILED_SERVICE_CONTROLLER_CONNECT);
}

/* MessageBox has no desktop: a line on the event log's channel with the
 * icon's priority; OK boxes answer IDOK, questions fail (nobody to answer).
 * crtdbg.h's _ASSERTE under _DEBUG reports on the debugger's channel and
 * goes on. */
static void message_box_and_assert(void **state)
{
    (void)state;
    g_nlines = 0;
    pl_win32_set_event_hook(hook, NULL);
    assert_int_equal(MessageBoxA(NULL, "Open", "Open from counter.dll", MB_OK), IDOK);
    static const WCHAR text[] = {'D', 'L', 'L', '_', 'P', 'R', 'O', 'C', 'E', 'S', 'S', '_', 'A', 'T', 'T', 'A', 'C',
                                 'H', '\n', 'x', 0};
    static const WCHAR caption[] = {'D', 'l', 'l', 'M', 'a', 'i', 'n', 0};
    assert_int_equal(MessageBoxW(NULL, text, caption, MB_OK | MB_ICONWARNING), IDOK);
    SetLastError(0);
    assert_int_equal(MessageBoxA(NULL, "Retry?", NULL, MB_RETRYCANCEL | MB_ICONERROR), 0);
    assert_int_equal(GetLastError(), ERROR_CALL_NOT_IMPLEMENTED);
    int fine = 1, line = __LINE__ + 1;
    _ASSERTE(fine == 2);
    _ASSERTE(fine == 1);
    pl_win32_set_event_hook(NULL, NULL);
    assert_int_equal(g_nlines, 4);
    assert_int_equal(g_prio[0], LOG_INFO);
    assert_string_equal(g_lines[0], "message box: Open from counter.dll: Open");
    assert_int_equal(g_prio[1], LOG_WARNING);
    assert_string_equal(g_lines[1], "message box: DllMain: DLL_PROCESS_ATTACH x");
    assert_int_equal(g_prio[2], LOG_ERR);
    assert_string_equal(g_lines[2], "message box: Error: Retry?");
    assert_int_equal(g_prio[3], LOG_DEBUG);
    char want[300];
    snprintf(want, sizeof want, "debug: %s(%d) : Assertion failed: fine == 2", __FILE__, line);
    assert_string_equal(g_lines[3], want);
}

static void interlocked(void **state)
{
    (void)state;
    volatile LONG x = 5;
    assert_int_equal(InterlockedIncrement(&x), 6);
    assert_int_equal(InterlockedDecrement(&x), 5);
    assert_int_equal(InterlockedExchange(&x, 9), 5);
    assert_int_equal(InterlockedCompareExchange(&x, 1, 9), 9);
    assert_int_equal(x, 1);
    assert_int_equal(InterlockedCompareExchange(&x, 7, 9), 1);
    assert_int_equal(InterlockedExchangeAdd(&x, 10), 1);
    assert_int_equal(x, 11);
    volatile LONGLONG y = 1;
    assert_int_equal(InterlockedIncrement64(&y), 2);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strings),
        cmocka_unit_test(wsprintf_rules),
        cmocka_unit_test(code_pages),
        cmocka_unit_test(bad_pointers),
        cmocka_unit_test_setup_teardown(clocks_and_names_agree_with_the_block, setup, teardown),
        cmocka_unit_test(module_names),
        cmocka_unit_test(event_log),
        cmocka_unit_test(shared_memory_and_events),
        cmocka_unit_test(interlocked),
        cmocka_unit_test(nt_headers_and_debug_output),
        cmocka_unit_test(service_control),
        cmocka_unit_test(message_box_and_assert),
    };
    return pl_test_run(tests, argc, argv);
}
