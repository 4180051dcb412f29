/* The PDH functions as a UNICODE Windows program calls them (docs/win32.md,
 * "PDH"): the W forms with L"" strings (built with -DUNICODE -fshort-wchar),
 * PdhEnumObjects/PdhEnumObjectItems, PdhCollectQueryDataEx with an event,
 * PdhCollectQueryDataWithTime, PdhGetCounterTimeBase, PdhGetDllVersion,
 * PdhValidatePathEx, PdhVbGetDoubleCounterValue, PdhGetCounterInfo sizing.
 * The data is the live engine over the deterministic store of tests/
 * perfquery (pq_testprov: PQ Machine, PQ Parent with alpha and beta, ...). */
#include <windows.h>
#include <pdh.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pl_test.h"
#include "w32_util.h"

static pq_fixture fx;
static uint32_t g_fc, g_fh;

static int setup(void **state)
{
    (void)state;
    if (w32_fixture(&fx) != 0) return -1;
    return w32_first_indices(&fx, "PerfqueryTest", &g_fc, &g_fh);
}

static int teardown(void **state)
{
    (void)state;
    pq_fixture_done(&fx);
    return 0;
}

static int wequal(LPCWSTR a, LPCWSTR b) { return lstrcmpW(a, b) == 0; }

/* Find s in a MULTI_SZ. */
static int in_list(LPCWSTR list, LPCWSTR s)
{
    for (; *list; list += lstrlenW(list) + 1)
        if (wequal(list, s)) return 1;
    return 0;
}

static void w_forms(void **state)
{
    (void)state;
    PDH_HQUERY q = NULL;
    PDH_HCOUNTER c = NULL, bad = (PDH_HCOUNTER)1;
    assert_int_equal(PdhOpenQuery(NULL, 7, &q), ERROR_SUCCESS);
    assert_int_equal(PdhAddCounter(q, NULL, 0, &c), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhAddCounter(q, L"\\PQ Machine\\No Such", 0, &bad), PDH_CSTATUS_NO_COUNTER);
    assert_null(bad);
    assert_int_equal(PdhAddCounter(q, L"\\PQ Machine\\Ticks", 42, &c), ERROR_SUCCESS);
    PDH_HCOUNTER e = NULL;
    assert_int_equal(PdhAddEnglishCounter(q, L"\\PQ Parent(beta)\\Items", 0, &e), ERROR_SUCCESS);

    /* PdhGetCounterInfo: size 0 asks; the strings follow the structure. */
    DWORD size = 0;
    assert_int_equal(PdhGetCounterInfo(c, TRUE, &size, NULL), PDH_MORE_DATA);
    assert_true(size > sizeof(PDH_COUNTER_INFO));
    DWORD small = sizeof(PDH_COUNTER_INFO) - 1;
    PDH_COUNTER_INFO *info = malloc(size);
    assert_int_equal(PdhGetCounterInfo(c, TRUE, &small, info), PDH_MORE_DATA);
    assert_int_equal(small, size);
    assert_int_equal(PdhGetCounterInfo(c, TRUE, &size, info), ERROR_SUCCESS);
    assert_int_equal(info->dwLength, size);
    assert_int_equal(info->dwUserData, 42);
    assert_int_equal(info->dwQueryUserData, 7);
    assert_int_equal(info->CStatus, PDH_CSTATUS_VALID_DATA); /* before the first collection */
    assert_true(wequal(info->szCounterName, L"Ticks"));
    assert_true(wequal(info->szObjectName, L"PQ Machine"));
    assert_true((BYTE *)info->szFullPath >= (BYTE *)info->DataBuffer);
    assert_true((BYTE *)info->szExplainText < (BYTE *)info + size);
    assert_true(wequal(info->szExplainText, L"A 64-bit raw count."));
    free(info);

    /* Before the first collection a raw value is success with CStatus 0
     * (what Windows returns; Wine's test_PdhGetRawCounterValue). */
    PDH_RAW_COUNTER raw;
    memset(&raw, 0xAB, sizeof raw);
    assert_int_equal(PdhGetRawCounterValue(c, NULL, &raw), ERROR_SUCCESS);
    assert_int_equal(raw.CStatus, ERROR_SUCCESS);
    LONGLONG ts = 0;
    FILETIME now;
    GetSystemTimeAsFileTime(&now);
    assert_int_equal(PdhCollectQueryDataWithTime(q, &ts), ERROR_SUCCESS);
    ULARGE_INTEGER n = {{now.dwLowDateTime, now.dwHighDateTime}};
    /* local time: within a day of UTC */
    assert_true(ts > (LONGLONG)n.QuadPart - 864000000000LL && ts < (LONGLONG)n.QuadPart + 864000000000LL);
    PDH_FMT_COUNTERVALUE v;
    assert_int_equal(PdhGetFormattedCounterValue(c, PDH_FMT_LARGE, NULL, &v), ERROR_SUCCESS);
    assert_int_equal(v.CStatus, PDH_CSTATUS_VALID_DATA);
    DWORD cst = 99;
    double d = PdhVbGetDoubleCounterValue(c, &cst);
    assert_int_equal(cst, PDH_CSTATUS_VALID_DATA);
    assert_true(d == (double)v.largeValue);
    assert_int_equal(PdhVbGetDoubleCounterValue((PDH_HCOUNTER)&v, &cst), 0.0);
    assert_int_equal(cst, PDH_INVALID_HANDLE);
    LONGLONG tb = 0;
    assert_int_equal(PdhGetCounterTimeBase(c, &tb), ERROR_SUCCESS);
    assert_int_equal(tb, 10000000);
    DWORD ver = 0;
    assert_int_equal(PdhGetDllVersion(&ver), ERROR_SUCCESS);
    assert_int_equal(ver, PDH_VERSION);

    /* An array, names in UTF-16 after the items. */
    PDH_HCOUNTER w = NULL;
    assert_int_equal(PdhAddCounter(q, L"\\PQ Parent(*)\\Items", 0, &w), ERROR_SUCCESS);
    assert_int_equal(PdhCollectQueryData(q), ERROR_SUCCESS);
    DWORD bytes = 0, count = 0;
    assert_int_equal(PdhGetFormattedCounterArray(w, PDH_FMT_LONG, &bytes, &count, NULL), PDH_MORE_DATA);
    PDH_FMT_COUNTERVALUE_ITEM *items = malloc(bytes);
    assert_int_equal(PdhGetFormattedCounterArray(w, PDH_FMT_LONG, &bytes, &count, items), ERROR_SUCCESS);
    assert_int_equal(count, 2);
    assert_true(wequal(items[0].szName, L"alpha"));
    assert_true(wequal(items[1].szName, L"beta"));
    free(items);
    assert_int_equal(PdhCloseQuery(q), ERROR_SUCCESS);
}

static void w_paths_and_names(void **state)
{
    (void)state;
    DWORD size = 0;
    assert_int_equal(PdhParseCounterPath(L"\\\\host\\PQ Parent(alpha#1)\\Items", NULL, &size, 0), PDH_MORE_DATA);
    PDH_COUNTER_PATH_ELEMENTS *e = malloc(size);
    assert_int_equal(PdhParseCounterPath(L"\\\\host\\PQ Parent(alpha#1)\\Items", e, &size, 0), ERROR_SUCCESS);
    assert_true(wequal(e->szMachineName, L"host")); /* as the A form gives it */
    assert_true(wequal(e->szObjectName, L"PQ Parent"));
    assert_true(wequal(e->szInstanceName, L"alpha"));
    assert_int_equal(e->dwInstanceIndex, 1);
    assert_true(wequal(e->szCounterName, L"Items"));
    WCHAR path[256];
    DWORD cch = 3;
    assert_int_equal(PdhMakeCounterPath(e, path, &cch, 0), PDH_MORE_DATA);
    assert_int_equal(cch, lstrlenW(L"\\\\host\\PQ Parent(alpha#1)\\Items") + 1);
    cch = ARRAYSIZE(path);
    assert_int_equal(PdhMakeCounterPath(e, path, &cch, 0), ERROR_SUCCESS);
    assert_true(wequal(path, L"\\\\host\\PQ Parent(alpha#1)\\Items"));
    free(e);

    assert_int_equal(PdhValidatePath(L"\\PQ Parent(beta)\\Items"), ERROR_SUCCESS);
    assert_int_equal(PdhValidatePathEx(NULL, L"\\PQ Parent(gamma)\\Items"), PDH_CSTATUS_NO_INSTANCE);
    assert_int_equal(PdhValidatePath(L"no backslash"), PDH_CSTATUS_BAD_COUNTERNAME);

    DWORD idx = 0;
    assert_int_equal(PdhLookupPerfIndexByName(NULL, L"PQ Parent", &idx), ERROR_SUCCESS);
    assert_int_equal(idx, g_fc + 8); /* PQ_PARENT */
    WCHAR name[64];
    cch = 2;
    assert_int_equal(PdhLookupPerfNameByIndex(NULL, 2, name, &cch), PDH_MORE_DATA);
    assert_int_equal(cch, 7);
    cch = ARRAYSIZE(name);
    assert_int_equal(PdhLookupPerfNameByIndex(NULL, 2, name, &cch), ERROR_SUCCESS);
    assert_true(wequal(name, L"System"));

    cch = 0;
    assert_int_equal(PdhExpandWildCardPath(NULL, L"\\PQ Parent(*)\\Items", NULL, &cch, 0), PDH_MORE_DATA);
    WCHAR *list = calloc(cch, sizeof(WCHAR));
    assert_int_equal(PdhExpandWildCardPath(NULL, L"\\PQ Parent(*)\\Items", list, &cch, 0), ERROR_SUCCESS);
    assert_true(in_list(list, L"\\PQ Parent(alpha)\\Items"));
    assert_true(in_list(list, L"\\PQ Parent(beta)\\Items"));
    free(list);
}

static void enum_objects_and_items(void **state)
{
    (void)state;
    DWORD cch = 0;
    assert_int_equal(PdhEnumObjects(NULL, NULL, NULL, &cch, PERF_DETAIL_WIZARD, TRUE), PDH_MORE_DATA);
    assert_true(cch > 10);
    WCHAR *objs = calloc(cch, sizeof(WCHAR));
    DWORD small = 3;
    assert_int_equal(PdhEnumObjects(NULL, NULL, objs, &small, PERF_DETAIL_WIZARD, FALSE), PDH_MORE_DATA);
    assert_int_equal(small, cch);
    assert_int_equal(PdhEnumObjects(NULL, NULL, objs, &cch, PERF_DETAIL_WIZARD, FALSE), ERROR_SUCCESS);
    assert_true(in_list(objs, L"PQ Machine"));
    assert_true(in_list(objs, L"PQ Parent"));
    assert_true(in_list(objs, L"System"));
    free(objs);
    assert_int_equal(PdhEnumObjects(NULL, L"\\\\elsewhere.example", NULL, &cch, PERF_DETAIL_WIZARD, FALSE),
                     PDH_CSTATUS_NO_MACHINE);

    /* Both sizes come back when either list is missing or short. */
    DWORD cc = 0, ic = 0;
    assert_int_equal(PdhEnumObjectItems(NULL, NULL, L"PQ Parent", NULL, &cc, NULL, &ic, PERF_DETAIL_WIZARD, 0),
                     PDH_MORE_DATA);
    assert_int_equal(cc, lstrlenW(L"Items") + 2);
    assert_int_equal(ic, lstrlenW(L"alpha") + lstrlenW(L"beta") + 3);
    WCHAR *cl = calloc(cc, sizeof(WCHAR)), *il = calloc(ic, sizeof(WCHAR));
    DWORD icsmall = ic - 1;
    assert_int_equal(PdhEnumObjectItems(NULL, NULL, L"PQ Parent", cl, &cc, il, &icsmall, PERF_DETAIL_WIZARD, 0),
                     PDH_MORE_DATA);
    assert_int_equal(cl[0], 0); /* nothing written */
    assert_int_equal(icsmall, ic);
    assert_int_equal(PdhEnumObjectItems(NULL, NULL, L"PQ Parent", cl, &cc, il, &ic, PERF_DETAIL_WIZARD, 0),
                     ERROR_SUCCESS);
    assert_true(in_list(cl, L"Items"));
    assert_true(in_list(il, L"alpha"));
    assert_true(in_list(il, L"beta"));
    free(cl);
    free(il);
    /* No instances: the instance size is 0. */
    cc = 0;
    ic = 5;
    assert_int_equal(PdhEnumObjectItems(NULL, NULL, L"PQ Machine", NULL, &cc, NULL, &ic, PERF_DETAIL_WIZARD, 0),
                     PDH_MORE_DATA);
    assert_int_equal(ic, 0);
    cl = calloc(cc, sizeof(WCHAR));
    assert_int_equal(PdhEnumObjectItems(NULL, NULL, L"PQ Machine", cl, &cc, NULL, &ic, PERF_DETAIL_WIZARD, 0),
                     ERROR_SUCCESS);
    assert_true(in_list(cl, L"Ticks"));
    free(cl);
    assert_int_equal(PdhEnumObjectItems(NULL, NULL, L"No Such Object", NULL, &cc, NULL, &ic, PERF_DETAIL_WIZARD, 0),
                     PDH_CSTATUS_NO_OBJECT);
}

/* PdhCollectQueryDataEx: the event is set after each collection, every
 * interval, until the query is closed. */
static void collect_with_event(void **state)
{
    (void)state;
    PDH_HQUERY q = NULL;
    PDH_HCOUNTER c = NULL;
    assert_int_equal(PdhOpenQuery(NULL, 0, &q), ERROR_SUCCESS);
    assert_int_equal(PdhAddCounter(q, L"\\PQ Machine\\Ticks", 0, &c), ERROR_SUCCESS);
    HANDLE ev = CreateEvent(NULL, FALSE, FALSE, NULL);
    assert_non_null(ev);
    assert_int_equal(PdhCollectQueryDataEx(q, 0, ev), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhCollectQueryDataEx(q, 1, (HANDLE)&c), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhCollectQueryDataEx((PDH_HQUERY)&c, 1, ev), PDH_INVALID_HANDLE);
    ULONGLONG t0 = GetTickCount64();
    assert_int_equal(PdhCollectQueryDataEx(q, 1, ev), ERROR_SUCCESS);
    assert_int_equal(WaitForSingleObject(ev, 5000), WAIT_OBJECT_0); /* the first sample */
    assert_int_equal(WaitForSingleObject(ev, 5000), WAIT_OBJECT_0); /* one interval later */
    ULONGLONG dt = GetTickCount64() - t0;
    assert_true(dt >= 900 && dt < 5000);
    PDH_FMT_COUNTERVALUE v;
    assert_int_equal(PdhGetFormattedCounterValue(c, PDH_FMT_LARGE, NULL, &v), ERROR_SUCCESS);
    assert_int_equal(PdhCloseQuery(q), ERROR_SUCCESS);
    /* Closed: no more signals (the thread ends at its next collection). */
    Sleep(1300);
    (void)WaitForSingleObject(ev, 0);
    assert_int_equal(WaitForSingleObject(ev, 1500), WAIT_TIMEOUT);
    CloseHandle(ev);
}

/* Issue 29 items 3 and 4, as Wine's conformance test (which passes on
 * Windows) asks: PdhGetCounterInfo with a buffer of exactly
 * sizeof(PDH_COUNTER_INFO) fills the structure alone and succeeds;
 * PdhGetCounterTimeBase checks its argument before the handle; formatting a
 * type that needs one sample before the first collection succeeds, with
 * the value marked unavailable (a two-sample type still does not). */
static void windows_argument_rules(void **state)
{
    (void)state;
    PDH_HQUERY q = NULL;
    PDH_HCOUNTER ticks = NULL, rate = NULL;
    assert_int_equal(PdhOpenQuery(NULL, 0, &q), ERROR_SUCCESS);
    assert_int_equal(PdhAddCounter(q, L"\\PQ Machine\\Ticks", 5, &ticks), ERROR_SUCCESS);
    assert_int_equal(PdhAddCounter(q, L"\\PQ Child(beta/one)\\Bytes/sec", 0, &rate), ERROR_SUCCESS);

    /* counter info: the structure alone when the strings do not fit */
    PDH_COUNTER_INFO info;
    memset(&info, 0xAB, sizeof info);
    DWORD size = sizeof info;
    assert_int_equal(PdhGetCounterInfo(ticks, FALSE, &size, &info), ERROR_SUCCESS);
    assert_int_equal(size, sizeof info);
    assert_int_equal(info.dwLength, sizeof info);
    assert_int_equal(info.dwType, PERF_COUNTER_LARGE_RAWCOUNT);
    assert_int_equal(info.CVersion, PDH_CVERSION_WIN50);
    assert_int_equal(info.lScale, 0);
    assert_int_equal(info.lDefaultScale, 0);
    assert_int_equal(info.dwUserData, 5);
    assert_null(info.szFullPath);
    assert_null(info.szCounterName);
    assert_null(info.szExplainText);
    PDH_COUNTER_INFO_A ainfo; /* the A form alike */
    DWORD asize = sizeof ainfo;
    assert_int_equal(PdhGetCounterInfoA(ticks, FALSE, &asize, &ainfo), ERROR_SUCCESS);
    assert_int_equal(asize, sizeof ainfo);
    assert_int_equal(ainfo.dwType, PERF_COUNTER_LARGE_RAWCOUNT);
    assert_null(ainfo.szFullPath);
    assert_null(ainfo.szObjectName);
    assert_int_equal(PdhSetCounterScaleFactor(ticks, -5), ERROR_SUCCESS);
    assert_int_equal(PdhGetCounterInfo(ticks, FALSE, &size, &info), ERROR_SUCCESS);
    assert_int_equal(info.lScale, -5);
    /* with the help text asked for, and a buffer between the two sizes */
    DWORD full = 0;
    assert_int_equal(PdhGetCounterInfo(rate, TRUE, &full, NULL), PDH_MORE_DATA);
    BYTE *big = malloc(full);
    size = full - 2;
    assert_int_equal(PdhGetCounterInfo(rate, TRUE, &size, (PPDH_COUNTER_INFO)big), ERROR_SUCCESS);
    assert_int_equal(size, sizeof(PDH_COUNTER_INFO));
    assert_null(((PPDH_COUNTER_INFO)big)->szExplainText);
    size = full;
    assert_int_equal(PdhGetCounterInfo(rate, TRUE, &size, (PPDH_COUNTER_INFO)big), ERROR_SUCCESS);
    assert_int_equal(size, full);
    assert_true(wequal(((PPDH_COUNTER_INFO)big)->szCounterName, L"Bytes/sec"));
    free(big);
    size = sizeof info - 1;
    assert_int_equal(PdhGetCounterInfo(ticks, FALSE, &size, NULL), PDH_MORE_DATA);
    assert_true(size > sizeof info);
    assert_int_equal(PdhGetCounterInfo(ticks, FALSE, NULL, &info), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhGetCounterInfo(NULL, FALSE, NULL, NULL), PDH_INVALID_HANDLE);

    /* the time base: the argument, then the handle */
    LONGLONG base = 0;
    assert_int_equal(PdhGetCounterTimeBase(NULL, NULL), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhGetCounterTimeBase(NULL, &base), PDH_INVALID_HANDLE);
    assert_int_equal(PdhGetCounterTimeBase(ticks, NULL), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhGetCounterTimeBase(ticks, &base), ERROR_SUCCESS);

    /* formatting before the first collection */
    PDH_FMT_COUNTERVALUE v;
    memset(&v, 0xAB, sizeof v);
    assert_int_equal(PdhGetFormattedCounterValue(NULL, PDH_FMT_LARGE, NULL, NULL), PDH_INVALID_ARGUMENT);
    assert_int_equal(PdhGetFormattedCounterValue(NULL, PDH_FMT_LARGE, NULL, &v), PDH_INVALID_HANDLE);
    assert_int_equal(PdhGetFormattedCounterValue(ticks, PDH_FMT_LARGE, NULL, NULL), PDH_INVALID_ARGUMENT);
    DWORD type = 0;
    assert_int_equal(PdhGetFormattedCounterValue(ticks, PDH_FMT_LARGE, &type, &v), ERROR_SUCCESS);
    assert_int_equal(type, PERF_COUNTER_LARGE_RAWCOUNT);
    assert_int_equal(v.CStatus, PDH_CSTATUS_INVALID_DATA); /* success, but not a number */
    assert_int_equal(v.largeValue, 0);
    assert_int_equal(PdhGetFormattedCounterValue(rate, PDH_FMT_DOUBLE, NULL, &v), PDH_INVALID_DATA);
    assert_int_equal(PdhCollectQueryData(q), ERROR_SUCCESS);
    assert_int_equal(PdhGetFormattedCounterValue(ticks, PDH_FMT_LARGE | PDH_FMT_NOSCALE, NULL, &v), ERROR_SUCCESS);
    assert_int_equal(v.CStatus, PDH_CSTATUS_VALID_DATA);
    assert_true(v.largeValue > 0);
    /* one sample is not enough for a rate, after the first collection too */
    assert_int_equal(PdhGetFormattedCounterValue(rate, PDH_FMT_DOUBLE, NULL, &v), PDH_INVALID_DATA);
    assert_int_equal(PdhCloseQuery(q), ERROR_SUCCESS);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(w_forms, setup, teardown),
        cmocka_unit_test_setup_teardown(w_paths_and_names, setup, teardown),
        cmocka_unit_test_setup_teardown(enum_objects_and_items, setup, teardown),
        cmocka_unit_test_setup_teardown(collect_with_event, setup, teardown),
        cmocka_unit_test_setup_teardown(windows_argument_rules, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
