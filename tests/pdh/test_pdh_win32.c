/* The Windows-named PDH layer (include/win32/pdh.h) over the canned scenario
 * of pdh_canned.c: handle validation, the order of argument and handle
 * checks, exact status codes (reference/win32-behaviour.md points 8-10 and
 * the function notes), struct layouts and buffer contracts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pdh_canned.h"
#include "perflib/winperf.h"
#include "pl_test.h"
#include "win32/pdh.h"

typedef struct fx {
    canned c;
    pl_pdh_source src;
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    if (!f || canned_open(&f->c, &f->src, 0) != 0) return -1;
    pl_pdh_win32_set_source(&f->src);
    setenv("TZ", "UTC0", 1);
    tzset();
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    pl_pdh_win32_set_source(NULL);
    canned_close(&f->c);
    free(f);
    return 0;
}

static PDH_HQUERY open_q(void)
{
    PDH_HQUERY q = NULL;
    assert_int_equal(PdhOpenQueryA(NULL, 0, &q), ERROR_SUCCESS);
    assert_non_null(q);
    return q;
}

static PDH_HCOUNTER add(PDH_HQUERY q, const char *path, DWORD_PTR user)
{
    PDH_HCOUNTER c = NULL;
    PDH_STATUS st = PdhAddCounterA(q, path, user, &c);
    if (st) { print_error("add %s: 0x%08X\n", path, st); fail(); }
    return c;
}

static void collect(fx *f, PDH_HQUERY q, int k)
{
    f->c.cur = k;
    assert_int_equal(PdhCollectQueryData(q), ERROR_SUCCESS);
}

static void near(double a, double b)
{
    if (fabs(a - b) > 1e-9 * (fabs(b) > 1 ? fabs(b) : 1)) { print_error("got %.17g want %.17g\n", a, b); fail(); }
}

static void handles_and_check_order(void **state)
{
    (void)state;
    PDH_HQUERY q = NULL;
    PDH_HCOUNTER c = NULL;
    PDH_FMT_COUNTERVALUE v;
    int local = 0;
    assert_int_equal(PdhOpenQueryA(NULL, 0, NULL), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhOpenQueryA("perf.blg", 0, &q), PDH_FILE_NOT_FOUND); /* a counter log that is not there */
    q = open_q();
    /* closing: NULL, the address of the handle, another pointer */
    assert_int_equal(PdhCloseQuery(NULL), PDH_INVALID_HANDLE);
    assert_int_equal(PdhCloseQuery(&q), PDH_INVALID_HANDLE);
    assert_int_equal(PdhCloseQuery((PDH_HQUERY)&local), PDH_INVALID_HANDLE);
    assert_int_equal(PdhCloseQuery((PDH_HQUERY)(uintptr_t)1), PDH_INVALID_HANDLE);
    assert_int_equal(PdhCloseQuery((PDH_HQUERY)UINTPTR_MAX), PDH_INVALID_HANDLE);
    /* argument checks come before handle checks */
    assert_int_equal(PdhAddCounterA(NULL, "\\System\\System Up Time", 0, NULL), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhAddCounterA(NULL, "\\System\\System Up Time", 0, &c), PDH_INVALID_HANDLE);
    assert_int_equal(PdhAddCounterA(q, NULL, 0, &c), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhAddCounterA(q, "\\System\\System Up Time", 0, NULL), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhAddCounterA(q, "", 0, &c), PDH_INVALID_ARGUMENT);
    /* a failed add sets the handle to NULL */
    c = (PDH_HCOUNTER)&local;
    assert_int_equal(PdhAddCounterA(q, "\\System\\System Down Time", 0, &c), PDH_CSTATUS_NO_COUNTER);
    assert_null(c);
    assert_int_equal(PdhAddCounterA(q, "System Up Time", 0, &c), PDH_CSTATUS_BAD_COUNTERNAME);
    assert_int_equal(PdhAddCounterA(q, "\\Nope\\Nope", 0, &c), PDH_CSTATUS_NO_OBJECT);
    /* a query with no counters has no data */
    assert_int_equal(PdhCollectQueryData(q), PDH_NO_DATA);
    c = add(q, "\\System\\System Up Time", 0);
    assert_int_equal(PdhAddEnglishCounterA(q, "\\System\\System Down Time", 0, &c), PDH_CSTATUS_NO_COUNTER);
    assert_null(c);
    assert_int_equal(PdhAddEnglishCounterA(q, "\\System\\System Up Time", 0, &c), ERROR_SUCCESS);
    /* the wrong kind of handle */
    assert_int_equal(PdhCollectQueryData(NULL), PDH_INVALID_HANDLE);
    assert_int_equal(PdhCollectQueryData(c), PDH_INVALID_HANDLE);
    assert_int_equal(PdhCloseQuery(c), PDH_INVALID_HANDLE);
    assert_int_equal(PdhAddCounterA(c, "\\System\\System Up Time", 0, &c), PDH_INVALID_HANDLE);
    assert_null(c);
    c = add(q, "\\System\\System Up Time", 0);
    assert_int_equal(PdhGetFormattedCounterValue(q, PDH_FMT_LARGE, NULL, &v), PDH_INVALID_HANDLE);
    assert_int_equal(PdhRemoveCounter(q), PDH_INVALID_HANDLE);
    assert_int_equal(PdhSetCounterScaleFactor(q, 1), PDH_INVALID_HANDLE);
    assert_int_equal(PdhCollectQueryData(q), ERROR_SUCCESS);
    /* remove: NULL, then twice */
    assert_int_equal(PdhRemoveCounter(NULL), PDH_INVALID_HANDLE);
    assert_int_equal(PdhRemoveCounter(c), ERROR_SUCCESS);
    assert_int_equal(PdhRemoveCounter(c), PDH_INVALID_HANDLE);
    assert_int_equal(PdhGetFormattedCounterValue(c, PDH_FMT_LARGE, NULL, &v), PDH_INVALID_HANDLE);
    /* closing the query invalidates its counters; closing twice fails */
    PDH_HCOUNTER c2 = add(q, "\\Memory\\Available Bytes", 0);
    assert_int_equal(PdhCloseQuery(q), ERROR_SUCCESS);
    assert_int_equal(PdhCloseQuery(q), PDH_INVALID_HANDLE);
    assert_int_equal(PdhCollectQueryData(q), PDH_INVALID_HANDLE);
    assert_int_equal(PdhGetFormattedCounterValue(c2, PDH_FMT_LARGE, NULL, &v), PDH_INVALID_HANDLE);
    assert_int_equal(PdhRemoveCounter(c2), PDH_INVALID_HANDLE);
    /* a new query may reuse the slot: the old handle stays invalid */
    PDH_HQUERY q2 = open_q();
    assert_true(q2 != q);
    assert_int_equal(PdhCloseQuery(q), PDH_INVALID_HANDLE);
    PDH_HCOUNTER c3 = add(q2, "\\Memory\\Available Bytes", 0);
    assert_true(c3 != c2 && c3 != c);
    assert_int_equal(PdhRemoveCounter(c2), PDH_INVALID_HANDLE);
    assert_int_equal(PdhCloseQuery(q2), ERROR_SUCCESS);
}

static void formatted_raw_and_scale(void **state)
{
    fx *f = *state;
    PDH_HQUERY q = open_q();
    PDH_HCOUNTER cpu = add(q, "\\Processor(_Total)\\% Processor Time", 7);
    PDH_HCOUNTER mem = add(q, "\\Memory\\Available Bytes", 0);
    PDH_HCOUNTER up = add(q, "\\System\\System Up Time", 0);
    PDH_HCOUNTER bash = add(q, "\\Process(bash)\\ID Process", 0);
    PDH_FMT_COUNTERVALUE v;
    PDH_RAW_COUNTER r0, r1;
    DWORD type = 0;
    assert_int_equal(PdhGetFormattedCounterValue(NULL, PDH_FMT_LARGE, NULL, NULL), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhGetFormattedCounterValue(NULL, PDH_FMT_LARGE, NULL, &v), PDH_INVALID_HANDLE);
    assert_int_equal(PdhGetFormattedCounterValue(cpu, PDH_FMT_LARGE, NULL, NULL), PDH_INVALID_ARGUMENT);
    collect(f, q, 0);
    /* a rate needs two collections */
    assert_int_equal(PdhGetFormattedCounterValue(cpu, PDH_FMT_DOUBLE, &type, &v), PDH_INVALID_DATA);
    assert_int_equal(v.CStatus, PDH_CSTATUS_INVALID_DATA);
    assert_int_equal(type, PERF_100NSEC_TIMER_INV);
    assert_int_equal(PdhGetFormattedCounterValue(up, PDH_FMT_LARGE, &type, &v), ERROR_SUCCESS);
    assert_int_equal(v.CStatus, 0);
    assert_true(v.largeValue == 400);
    assert_int_equal(PdhGetRawCounterValue(NULL, NULL, &r0), PDH_INVALID_HANDLE);
    assert_int_equal(PdhGetRawCounterValue(cpu, NULL, NULL), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhGetRawCounterValue(cpu, &type, &r0), ERROR_SUCCESS);
    assert_int_equal(r0.CStatus, 0);
    collect(f, q, 1);
    assert_int_equal(PdhGetFormattedCounterValue(cpu, PDH_FMT_DOUBLE, NULL, &v), ERROR_SUCCESS);
    near(v.doubleValue, 37.5);
    assert_int_equal(PdhGetFormattedCounterValue(cpu, PDH_FMT_LONG, NULL, &v), ERROR_SUCCESS);
    assert_int_equal(v.longValue, 37);
    assert_int_equal(PdhGetFormattedCounterValue(cpu, PDH_FMT_LARGE | PDH_FMT_1000, NULL, &v), ERROR_SUCCESS);
    assert_true(v.largeValue == 37500);
    assert_int_equal(PdhGetFormattedCounterValue(mem, PDH_FMT_LARGE, NULL, &v), ERROR_SUCCESS);
    assert_true(v.largeValue == 1998951424LL);
    /* a missing instance */
    assert_int_equal(PdhGetFormattedCounterValue(bash, PDH_FMT_LONG, NULL, &v), PDH_INVALID_DATA);
    assert_int_equal(v.CStatus, PDH_CSTATUS_NO_INSTANCE);
    assert_int_equal(PdhGetRawCounterValue(bash, NULL, &r1), ERROR_SUCCESS);
    assert_int_equal(r1.CStatus, PDH_CSTATUS_NO_INSTANCE);
    /* the raw layout: (N, PerfTime in 100 ns: the monotonic clock, issue 33),
     * TimeStamp the wall clock in local time (TZ=UTC0 here) */
    assert_int_equal(PdhGetRawCounterValue(cpu, NULL, &r1), ERROR_SUCCESS);
    assert_int_equal(r1.CStatus, 0);
    assert_true(r1.FirstValue == 6250000 && r1.SecondValue == pl_pdh_time_100ns(CANNED_PERFTIME(1), CANNED_FREQ, 0) &&
                r1.MultiCount == 0);
    assert_int_equal(r1.TimeStamp.dwLowDateTime, (DWORD)(CANNED_FT(1) & 0xFFFFFFFF));
    assert_int_equal(r1.TimeStamp.dwHighDateTime, (DWORD)(CANNED_FT(1) >> 32));
    /* scale: handle first, range [-7, 7] */
    assert_int_equal(PdhSetCounterScaleFactor(NULL, 8), PDH_INVALID_HANDLE);
    assert_int_equal(PdhSetCounterScaleFactor(cpu, 8), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhSetCounterScaleFactor(cpu, -8), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhSetCounterScaleFactor(cpu, 7), ERROR_SUCCESS);
    assert_int_equal(PdhSetCounterScaleFactor(cpu, -1), ERROR_SUCCESS);
    assert_int_equal(PdhGetFormattedCounterValue(cpu, PDH_FMT_DOUBLE, NULL, &v), ERROR_SUCCESS);
    near(v.doubleValue, 3.75);
    assert_int_equal(PdhGetFormattedCounterValue(cpu, PDH_FMT_DOUBLE | PDH_FMT_NOSCALE, NULL, &v), ERROR_SUCCESS);
    near(v.doubleValue, 37.5);
    assert_int_equal(PdhSetCounterScaleFactor(cpu, 0), ERROR_SUCCESS);
    /* calculate from raw values: raw1 newer, raw2 older */
    assert_int_equal(PdhCalculateCounterFromRawValue(cpu, PDH_FMT_DOUBLE, &r1, &r0, &v), ERROR_SUCCESS);
    near(v.doubleValue, 37.5);
    assert_int_equal(PdhCalculateCounterFromRawValue(cpu, PDH_FMT_DOUBLE, &r0, &r1, &v), PDH_CALC_NEGATIVE_VALUE);
    assert_int_equal(v.CStatus, PDH_CALC_NEGATIVE_VALUE);
    assert_int_equal(PdhCalculateCounterFromRawValue(cpu, PDH_FMT_DOUBLE, &r1, NULL, &v), PDH_INVALID_DATA);
    assert_int_equal(PdhCalculateCounterFromRawValue(cpu, PDH_FMT_DOUBLE, &r1, &r0, NULL), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhCalculateCounterFromRawValue(NULL, PDH_FMT_DOUBLE, &r1, &r0, NULL), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhCalculateCounterFromRawValue(NULL, PDH_FMT_DOUBLE, &r1, &r0, &v), PDH_INVALID_HANDLE);
    assert_int_equal(PdhCalculateCounterFromRawValue(q, PDH_FMT_DOUBLE, &r1, &r0, &v), PDH_INVALID_HANDLE);
    /* a single-sample type needs no older value */
    PDH_RAW_COUNTER ru;
    assert_int_equal(PdhGetRawCounterValue(mem, NULL, &ru), ERROR_SUCCESS);
    assert_int_equal(PdhCalculateCounterFromRawValue(mem, PDH_FMT_LARGE, &ru, NULL, &v), ERROR_SUCCESS);
    assert_true(v.largeValue == 1998951424LL);
    /* statistics over a circular array whose oldest entry is at index 1 */
    PDH_RAW_COUNTER ring[4];
    for (int k = 0; k < 4; k++) {
        collect(f, q, k);
        assert_int_equal(PdhGetRawCounterValue(mem, NULL, &ring[(k + 1) % 4]), ERROR_SUCCESS);
    }
    PDH_STATISTICS s;
    assert_int_equal(PdhComputeCounterStatistics(mem, PDH_FMT_LARGE, 1, 4, ring, NULL), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhComputeCounterStatistics(NULL, PDH_FMT_LARGE, 1, 4, NULL, &s), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhComputeCounterStatistics(NULL, PDH_FMT_LARGE, 1, 4, ring, &s), PDH_INVALID_HANDLE);
    assert_int_equal(PdhComputeCounterStatistics(mem, PDH_FMT_LARGE, 4, 4, ring, &s), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhComputeCounterStatistics(mem, PDH_FMT_LARGE, 1, 4, ring, &s), ERROR_SUCCESS);
    assert_int_equal(s.dwFormat, PDH_FMT_LARGE);
    assert_int_equal(s.count, 4);
    assert_true(s.min.largeValue == 2000000000LL - 3 * 1048576LL);
    assert_true(s.max.largeValue == 2000000000LL);
    assert_true(s.mean.largeValue == 2000000000LL - 1572864LL); /* minus 1.5 MiB */
    PDH_HCOUNTER cpu0 = add(q, "\\Processor(0)\\% Processor Time", 0);
    for (int k = 0; k < 4; k++) {
        collect(f, q, k);
        assert_int_equal(PdhGetRawCounterValue(cpu0, NULL, &ring[(k + 2) % 4]), ERROR_SUCCESS);
    }
    assert_int_equal(PdhComputeCounterStatistics(cpu0, PDH_FMT_DOUBLE, 2, 4, ring, &s), ERROR_SUCCESS);
    assert_int_equal(s.count, 3); /* three consecutive pairs */
    near(s.mean.doubleValue, 25.0);
    near(s.min.doubleValue, 25.0);
    near(s.max.doubleValue, 25.0);
    assert_int_equal(PdhCloseQuery(q), ERROR_SUCCESS);
}

static void counter_info(void **state)
{
    fx *f = *state;
    PDH_HQUERY q = NULL;
    assert_int_equal(PdhOpenQueryA(NULL, 0x1234, &q), ERROR_SUCCESS);
    PDH_HCOUNTER c = add(q, "\\Thread(svchost/0#1)\\ID Thread", 0xABCD);
    DWORD size = 0;
    assert_int_equal(PdhGetCounterInfoA(NULL, 0, NULL, NULL), PDH_INVALID_HANDLE);
    assert_int_equal(PdhGetCounterInfoA(q, 0, &size, NULL), PDH_INVALID_HANDLE);
    assert_int_equal(PdhGetCounterInfoA(c, 0, NULL, NULL), PDH_INVALID_ARGUMENT);
    union { PDH_COUNTER_INFO_A info; char b[1024]; } u;
    assert_int_equal(PdhGetCounterInfoA(c, 0, NULL, &u.info), PDH_INVALID_ARGUMENT);
    size = sizeof(PDH_COUNTER_INFO_A) - 1;
    assert_int_equal(PdhGetCounterInfoA(c, 0, &size, NULL), PDH_MORE_DATA);
    /* strings from DataBuffer (offset 104): full path, machine, object,
     * instance, parent, counter, each with its NUL */
    const char *full = "\\\\TESTBOX\\Thread(svchost/0#1)\\ID Thread";
    DWORD want = 104 + (DWORD)(strlen(full) + 1 + 8 + 7 + 2 + 8 + 10);
    assert_int_equal(size, want);
    size = want - 1; /* room for the structure but not the strings: the structure alone, as Windows */
    assert_int_equal(PdhGetCounterInfoA(c, 0, &size, &u.info), ERROR_SUCCESS);
    assert_int_equal(size, sizeof(PDH_COUNTER_INFO_A));
    assert_int_equal(u.info.dwLength, sizeof(PDH_COUNTER_INFO_A));
    assert_null(u.info.szFullPath);
    assert_null(u.info.szCounterName);
    collect(f, q, 0);
    assert_int_equal(PdhSetCounterScaleFactor(c, -5), ERROR_SUCCESS);
    size = sizeof u;
    memset(&u, 0x55, sizeof u);
    assert_int_equal(PdhGetCounterInfoA(c, 0, &size, &u.info), ERROR_SUCCESS);
    assert_int_equal(size, want);
    const PDH_COUNTER_INFO_A *in = &u.info;
    assert_int_equal(in->dwLength, want);
    assert_int_equal(in->dwType, PERF_COUNTER_RAWCOUNT);
    assert_int_equal(in->CVersion, PDH_CVERSION_WIN50);
    assert_int_equal(in->CStatus, 0);
    assert_int_equal(in->lScale, -5);
    assert_int_equal(in->lDefaultScale, 0);
    assert_true(in->dwUserData == 0xABCD && in->dwQueryUserData == 0x1234);
    assert_true(in->szFullPath == (char *)in->DataBuffer);
    assert_string_equal(in->szFullPath, full);
    assert_string_equal(in->szMachineName, "TESTBOX");
    assert_string_equal(in->szObjectName, "Thread");
    assert_string_equal(in->szInstanceName, "0");
    assert_string_equal(in->szParentInstance, "svchost");
    assert_int_equal(in->dwInstanceIndex, 1);
    assert_string_equal(in->szCounterName, "ID Thread");
    assert_string_equal(in->CounterPath.szCounterName, "ID Thread");
    assert_null(in->szExplainText);
    /* with the help text */
    size = 0;
    assert_int_equal(PdhGetCounterInfoA(c, 1, &size, NULL), PDH_MORE_DATA);
    assert_true(size > want);
    DWORD need = size;
    size = sizeof u;
    assert_int_equal(PdhGetCounterInfoA(c, 1, &size, &u.info), ERROR_SUCCESS);
    assert_int_equal(size, need);
    assert_non_null(in->szExplainText);
    assert_int_equal(strlen(in->szExplainText) + 1, need - want);
    assert_int_equal(PdhCloseQuery(q), ERROR_SUCCESS);
}

static void parse_and_make_paths(void **state)
{
    (void)state;
    union { PDH_COUNTER_PATH_ELEMENTS_A e; char b[512]; } u;
    DWORD size = 0;
    const char *path = "\\\\BOX\\Thread(svchost/0#1)\\ID Thread";
    assert_int_equal(PdhParseCounterPathA(NULL, &u.e, &size, 0), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhParseCounterPathA(path, &u.e, NULL, 0), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhParseCounterPathA(path, &u.e, &size, 1), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhParseCounterPathA(path, NULL, &size, 0), PDH_MORE_DATA);
    const DWORD want = 48 + 4 + 7 + 2 + 8 + 10;
    assert_int_equal(size, want);
    size = want - 1;
    assert_int_equal(PdhParseCounterPathA(path, &u.e, &size, 0), PDH_MORE_DATA);
    assert_int_equal(size, want);
    size = sizeof u; /* larger: set to the size used */
    assert_int_equal(PdhParseCounterPathA(path, &u.e, &size, 0), ERROR_SUCCESS);
    assert_int_equal(size, want);
    assert_string_equal(u.e.szMachineName, "BOX");
    assert_string_equal(u.e.szObjectName, "Thread");
    assert_string_equal(u.e.szInstanceName, "0");
    assert_string_equal(u.e.szParentInstance, "svchost");
    assert_int_equal(u.e.dwInstanceIndex, 1);
    assert_string_equal(u.e.szCounterName, "ID Thread");
    assert_true(u.e.szMachineName == u.b + 48); /* strings right after the structure */
    size = sizeof u;
    assert_int_equal(PdhParseCounterPathA("\\Memory\\Available Bytes", &u.e, &size, 0), ERROR_SUCCESS);
    assert_null(u.e.szMachineName);
    assert_null(u.e.szInstanceName);
    assert_null(u.e.szParentInstance);
    size = sizeof u;
    assert_int_equal(PdhParseCounterPathA("Memory\\Available Bytes", &u.e, &size, 0), PDH_INVALID_PATH);
    assert_int_equal(PdhParseCounterPathA("\\Memory", &u.e, &size, 0), PDH_INVALID_PATH);
    assert_int_equal(PdhParseCounterPathA("", &u.e, &size, 0), PDH_INVALID_ARGUMENT);

    PDH_COUNTER_PATH_ELEMENTS_A e;
    memset(&e, 0, sizeof e);
    char buf[256];
    DWORD cch = 0;
    e.szObjectName = "Process";
    e.szCounterName = "ID Process";
    e.szInstanceName = "svchost";
    e.dwInstanceIndex = 1;
    assert_int_equal(PdhMakeCounterPathA(NULL, buf, &cch, 0), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhMakeCounterPathA(&e, buf, NULL, 0), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhMakeCounterPathA(&e, buf, &cch, 0), PDH_MORE_DATA);
    assert_int_equal(cch, sizeof "\\Process(svchost#1)\\ID Process");
    assert_int_equal(PdhMakeCounterPathA(&e, NULL, &cch, 0), PDH_MORE_DATA);
    cch = sizeof buf;
    assert_int_equal(PdhMakeCounterPathA(&e, buf, &cch, 0), ERROR_SUCCESS);
    assert_string_equal(buf, "\\Process(svchost#1)\\ID Process");
    assert_int_equal(cch, sizeof "\\Process(svchost#1)\\ID Process");
    /* no instance: parent and index are ignored */
    e.szInstanceName = NULL;
    e.szParentInstance = "x";
    e.szMachineName = "\\\\BOX";
    cch = sizeof buf;
    assert_int_equal(PdhMakeCounterPathA(&e, buf, &cch, 0), ERROR_SUCCESS);
    assert_string_equal(buf, "\\\\BOX\\Process\\ID Process");
    /* object and counter are required */
    e.szCounterName = NULL;
    assert_int_equal(PdhMakeCounterPathA(&e, buf, &cch, 0), PDH_INVALID_ARGUMENT);
    e.szCounterName = "ID Process";
    assert_int_equal(PdhMakeCounterPathA(&e, buf, &cch, PDH_PATH_WBEM_RESULT), PDH_NOT_IMPLEMENTED);
    assert_int_equal(PdhMakeCounterPathA(&e, buf, &cch, PDH_PATH_LANG_FLAGS(9, 0)), ERROR_SUCCESS);
}

static void validate_and_expand(void **state)
{
    (void)state;
    assert_int_equal(PdhValidatePathA(NULL), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhValidatePathA(""), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhValidatePathA("\\System"), PDH_CSTATUS_BAD_COUNTERNAME);
    assert_int_equal(PdhValidatePathA("System Up Time"), PDH_CSTATUS_BAD_COUNTERNAME);
    assert_int_equal(PdhValidatePathA("\\System\\System Down Time"), PDH_CSTATUS_NO_COUNTER);
    assert_int_equal(PdhValidatePathA("\\System\\System Up Time"), ERROR_SUCCESS);
    assert_int_equal(PdhValidatePathA("\\Process(nosuch)\\ID Process"), PDH_CSTATUS_NO_INSTANCE);
    assert_int_equal(PdhValidatePathA("\\\\FAR\\System\\System Up Time"), PDH_CSTATUS_NO_MACHINE);

    char list[1024];
    DWORD cch = 0;
    assert_int_equal(PdhExpandWildCardPathA(NULL, NULL, list, &cch, 0), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhExpandWildCardPathA(NULL, "\\Processor(*)\\*", list, NULL, 0), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhExpandWildCardPathA(NULL, "\\Processor(*)\\*", list, &cch, 8), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhExpandWildCardPathA("x.blg", "\\Processor(*)\\*", list, &cch, 0), PDH_FILE_NOT_FOUND);
    assert_int_equal(PdhExpandWildCardPathA(NULL, "\\Processor(*)\\% User Time", NULL, &cch, 0), PDH_MORE_DATA);
    const char want[] = "\\Processor(0)\\% User Time\0\\Processor(1)\\% User Time\0\\Processor(_Total)\\% User Time\0";
    assert_int_equal(cch, sizeof want); /* the final NUL of the literal ends the list */
    cch = sizeof want - 1;
    assert_int_equal(PdhExpandWildCardPathA(NULL, "\\Processor(*)\\% User Time", list, &cch, 0), PDH_MORE_DATA);
    cch = sizeof list;
    assert_int_equal(PdhExpandWildCardPathA(NULL, "\\Processor(*)\\% User Time", list, &cch, 0), ERROR_SUCCESS);
    assert_int_equal(cch, sizeof want);
    assert_memory_equal(list, want, sizeof want);
    /* counter wildcards, and the NOEXPAND flags */
    cch = sizeof list;
    assert_int_equal(PdhExpandWildCardPathA(NULL, "\\Memory\\*", list, &cch, 0), ERROR_SUCCESS);
    const char mem[] = "\\Memory\\Available Bytes\0\\Memory\\Page Faults/sec\0";
    assert_int_equal(cch, sizeof mem);
    assert_memory_equal(list, mem, sizeof mem);
    cch = sizeof list;
    assert_int_equal(PdhExpandWildCardPathA(NULL, "\\Processor(*)\\*", list, &cch, PDH_NOEXPANDCOUNTERS), ERROR_SUCCESS);
    const char nc[] = "\\Processor(0)\\*\0\\Processor(1)\\*\0\\Processor(_Total)\\*\0";
    assert_int_equal(cch, sizeof nc);
    assert_memory_equal(list, nc, sizeof nc);
    cch = sizeof list;
    assert_int_equal(PdhExpandWildCardPathA(NULL, "\\Processor(*)\\*", list, &cch, PDH_NOEXPANDINSTANCES), ERROR_SUCCESS);
    const char ni[] = "\\Processor(*)\\% Processor Time\0\\Processor(*)\\% User Time\0\\Processor(*)\\Interrupts/sec\0";
    assert_int_equal(cch, sizeof ni);
    assert_memory_equal(list, ni, sizeof ni);
    cch = sizeof list;
    assert_int_equal(PdhExpandWildCardPathA(NULL, "\\Processor(*)\\*", list, &cch,
                                            PDH_NOEXPANDINSTANCES | PDH_NOEXPANDCOUNTERS), ERROR_SUCCESS);
    assert_int_equal(cch, sizeof "\\Processor(*)\\*" + 1);
    assert_memory_equal(list, "\\Processor(*)\\*\0", sizeof "\\Processor(*)\\*" + 1);
    assert_int_equal(PdhExpandWildCardPathA(NULL, "\\Nope(*)\\*", list, &cch, 0), PDH_CSTATUS_NO_OBJECT);
    assert_int_equal(PdhExpandWildCardPathA(NULL, "Nope", list, &cch, 0), PDH_INVALID_PATH);
}

static void names_and_indices(void **state)
{
    (void)state;
    DWORD idx = 0;
    assert_int_equal(PdhLookupPerfIndexByNameA(NULL, NULL, NULL), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhLookupPerfIndexByNameA(NULL, NULL, &idx), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhLookupPerfIndexByNameA(NULL, "No Counter", &idx), PDH_STRING_NOT_FOUND);
    assert_int_equal(PdhLookupPerfIndexByNameA(NULL, "% Processor Time", NULL), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhLookupPerfIndexByNameA(NULL, "% Processor Time", &idx), ERROR_SUCCESS);
    assert_int_equal(idx, 6);
    assert_int_equal(PdhLookupPerfIndexByNameA("\\\\.", "System Up Time", &idx), ERROR_SUCCESS);
    assert_int_equal(idx, 674);
    assert_int_equal(PdhLookupPerfIndexByNameA("\\\\FARAWAY", "System Up Time", &idx), PDH_CSTATUS_NO_MACHINE);
    char buf[PDH_MAX_COUNTER_NAME] = "!!";
    DWORD size = 0;
    assert_int_equal(PdhLookupPerfNameByIndexA(NULL, 0, NULL, NULL), PDH_INVALID_ARGUMENT);
    size = 1;
    assert_int_equal(PdhLookupPerfNameByIndexA(NULL, 0, NULL, &size), ERROR_SUCCESS);
    assert_int_equal(size, 1);
    size = sizeof buf;
    assert_int_equal(PdhLookupPerfNameByIndexA(NULL, 0, buf, &size), ERROR_SUCCESS);
    assert_string_equal(buf, "!!");
    size = 0;
    assert_int_equal(PdhLookupPerfNameByIndexA(NULL, 6, buf, &size), PDH_MORE_DATA);
    assert_int_equal(size, sizeof "% Processor Time");
    size = sizeof buf;
    assert_int_equal(PdhLookupPerfNameByIndexA(NULL, 6, buf, &size), ERROR_SUCCESS);
    assert_string_equal(buf, "% Processor Time");
    assert_int_equal(size, sizeof "% Processor Time");
    size = 0;
    assert_int_equal(PdhLookupPerfNameByIndexA(NULL, 674, NULL, &size), PDH_MORE_DATA);
    assert_int_equal(size, sizeof "System Up Time");
    size = sizeof buf;
    assert_int_equal(PdhLookupPerfNameByIndexA(NULL, 999999, buf, &size), PDH_INVALID_ARGUMENT);
}

static void wildcard_arrays(void **state)
{
    fx *f = *state;
    PDH_HQUERY q = open_q();
    PDH_HCOUNTER ids = add(q, "\\Process(*)\\ID Process", 0);
    PDH_HCOUNTER all = add(q, "\\Processor(_Total)\\*", 0);
    collect(f, q, 0);
    DWORD size = 0, n = 0;
    PDH_FMT_COUNTERVALUE v;
    assert_int_equal(PdhGetFormattedCounterValue(ids, PDH_FMT_LONG, NULL, &v), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhGetFormattedCounterArrayA(ids, PDH_FMT_LONG, NULL, &n, NULL), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhGetFormattedCounterArrayA(q, PDH_FMT_LONG, &size, &n, NULL), PDH_INVALID_HANDLE);
    assert_int_equal(PdhGetFormattedCounterArrayA(ids, PDH_FMT_LONG, &size, &n, NULL), PDH_MORE_DATA);
    assert_int_equal(n, 4);
    assert_int_equal(size, 4 * 24 + sizeof "init" + sizeof "svchost" + sizeof "svchost#1" + sizeof "bash");
    union { PDH_FMT_COUNTERVALUE_ITEM_A it[64]; char b[2048]; } u;
    size = sizeof u;
    assert_int_equal(PdhGetFormattedCounterArrayA(ids, PDH_FMT_LONG, &size, &n, u.it), ERROR_SUCCESS);
    assert_int_equal(n, 4);
    assert_string_equal(u.it[2].szName, "svchost#1");
    assert_int_equal(u.it[2].FmtValue.longValue, 200);
    assert_int_equal(u.it[3].FmtValue.longValue, 300);
    collect(f, q, 1);
    size = sizeof u;
    assert_int_equal(PdhGetFormattedCounterArrayA(all, PDH_FMT_DOUBLE, &size, &n, u.it), ERROR_SUCCESS);
    assert_int_equal(n, 3);
    assert_string_equal(u.it[0].szName, "_Total\\% Processor Time");
    near(u.it[0].FmtValue.doubleValue, 37.5);
    assert_string_equal(u.it[2].szName, "_Total\\Interrupts/sec");
    near(u.it[2].FmtValue.doubleValue, 375.0);
    assert_int_equal(PdhCloseQuery(q), ERROR_SUCCESS);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(handles_and_check_order, setup, teardown),
        cmocka_unit_test_setup_teardown(formatted_raw_and_scale, setup, teardown),
        cmocka_unit_test_setup_teardown(counter_info, setup, teardown),
        cmocka_unit_test_setup_teardown(parse_and_make_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(validate_and_expand, setup, teardown),
        cmocka_unit_test_setup_teardown(names_and_indices, setup, teardown),
        cmocka_unit_test_setup_teardown(wildcard_arrays, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
