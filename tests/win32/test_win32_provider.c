/* A Windows-style provider and its installer on perflib (docs/win32.md, "A
 * provider's own key"): the installer creates
 * HKLM\SYSTEM\CurrentControlSet\Services\W32Gen\Performance with
 * RegCreateKeyEx and writes Library/Open/Collect/Close with RegSetValueEx,
 * runs LoadPerfCounterTextStrings, and the provider (tests/win32/w32gen,
 * built only against include/win32) reads its First Counter/Help from that
 * key in Open. A consumer then reads it through
 * RegQueryValueEx(HKEY_PERFORMANCE_DATA). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/block.h"
#include "perflib/query.h"
#include "perflib/registry.h"
#include "perflib/win32.h"
#include "pl_test.h"
#include "w32_util.h"
#include "win32/loadperf.h"
#include "win32/pdh.h"
#include "win32/winperf.h"
#include "win32/winreg.h"

#define KEY "SYSTEM\\CurrentControlSet\\Services\\W32Gen\\Performance"
#define LINKAGE "SYSTEM\\CurrentControlSet\\Services\\W32Gen\\Linkage"
#define PYWIN32_INI PL_SHARED_DIR "/realworld/lodctr/pywin32/perf_install.ini"

static pq_fixture fx;

static int setup(void **state)
{
    (void)state;
    return pq_fixture_make(&fx, NULL, NULL); /* the fixed titles, no provider */
}

static int teardown(void **state)
{
    (void)state;
    pq_fixture_done(&fx);
    return 0;
}

static void set_sz(HKEY k, const char *name, const char *v)
{
    assert_int_equal(RegSetValueExA(k, name, 0, REG_SZ, (const BYTE *)v, (DWORD)strlen(v) + 1), ERROR_SUCCESS);
}

/* What a Windows installer does, then lodctr. `library` is the .so. */
static void install(const char *library, const char *export_)
{
    HKEY k = NULL;
    DWORD disp = 0;
    assert_int_equal(RegCreateKeyExA(HKEY_LOCAL_MACHINE, KEY, 0, NULL, REG_OPTION_NON_VOLATILE, KEY_ALL_ACCESS, NULL,
                                     &k, &disp),
                     ERROR_SUCCESS);
    assert_int_equal(disp, REG_CREATED_NEW_KEY);
    set_sz(k, "Library", library);
    set_sz(k, "Open", "OpenW32GenPerformanceData");
    set_sz(k, "Collect", "CollectW32GenPerformanceData");
    set_sz(k, "Close", "CloseW32GenPerformanceData");
    assert_int_equal(RegCloseKey(k), ERROR_SUCCESS);
    if (export_) {
        assert_int_equal(RegCreateKeyExA(HKEY_LOCAL_MACHINE, LINKAGE, 0, NULL, 0, KEY_WRITE, NULL, &k, &disp),
                         ERROR_SUCCESS);
        char multi[64];
        size_t n = strlen(export_);
        memcpy(multi, export_, n + 1);
        multi[n + 1] = '\0';
        assert_int_equal(RegSetValueExA(k, "Export", 0, REG_MULTI_SZ, (const BYTE *)multi, (DWORD)n + 2),
                         ERROR_SUCCESS);
        assert_int_equal(RegCloseKey(k), ERROR_SUCCESS);
    }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "lodctr \"%s\"", W32GEN_INI);
    assert_int_equal(LoadPerfCounterTextStringsA(cmd, TRUE), ERROR_SUCCESS);
}

static DWORD query_dword(HKEY k, const char *name, LSTATUS *rc)
{
    DWORD v = 0, type = 0, size = sizeof v;
    *rc = RegQueryValueExA(k, name, NULL, &type, (LPBYTE)&v, &size);
    if (*rc == ERROR_SUCCESS) {
        assert_int_equal(type, REG_DWORD);
        assert_int_equal(size, 4);
    }
    return v;
}

/* The key's values, their types and sizes, what may be written, and the
 * W forms. */
static void service_key_values(void **state)
{
    (void)state;
    HKEY k = NULL;
    /* No such provider yet: the key does not exist. */
    assert_int_equal(RegOpenKeyExA(HKEY_LOCAL_MACHINE, KEY, 0, KEY_READ, &k), ERROR_FILE_NOT_FOUND);
    assert_null(k);
    install(W32GEN_SO, NULL);

    assert_int_equal(RegOpenKeyExA(HKEY_LOCAL_MACHINE, KEY, 0, KEY_READ, &k), ERROR_SUCCESS);
    char buf[512];
    DWORD type = 0, size = 0;
    /* data NULL: the size; too small: ERROR_MORE_DATA and the size. */
    assert_int_equal(RegQueryValueExA(k, "Library", NULL, &type, NULL, &size), ERROR_SUCCESS);
    assert_int_equal(type, REG_SZ);
    assert_int_equal(size, strlen(W32GEN_SO) + 1);
    size = 4;
    assert_int_equal(RegQueryValueExA(k, "library", NULL, &type, (LPBYTE)buf, &size), ERROR_MORE_DATA);
    assert_int_equal(size, strlen(W32GEN_SO) + 1);
    size = sizeof buf;
    assert_int_equal(RegQueryValueExA(k, "Collect", NULL, &type, (LPBYTE)buf, &size), ERROR_SUCCESS);
    assert_string_equal(buf, "CollectW32GenPerformanceData");

    /* lodctr's values: the provider's range, as the store has it. */
    uint32_t fc = 0, fh = 0;
    assert_int_equal(w32_first_indices(&fx, "W32Gen", &fc, &fh), 0);
    LSTATUS rc;
    assert_int_equal(query_dword(k, "First Counter", &rc), fc);
    assert_int_equal(rc, ERROR_SUCCESS);
    assert_int_equal(query_dword(k, "First Help", &rc), fh);
    assert_int_equal(query_dword(k, "Last Counter", &rc), fc + 4);
    assert_int_equal(query_dword(k, "Last Help", &rc), fh + 4);
    size = sizeof buf;
    assert_int_equal(RegQueryValueExA(k, "Object List", NULL, &type, (LPBYTE)buf, &size), ERROR_SUCCESS);
    char ol[16];
    snprintf(ol, sizeof ol, "%u", fc);
    assert_string_equal(buf, ol);
    (void)query_dword(k, "Disable Performance Counters", &rc);
    assert_int_equal(rc, ERROR_FILE_NOT_FOUND); /* enabled: no value */
    (void)query_dword(k, "No Such Value", &rc);
    assert_int_equal(rc, ERROR_FILE_NOT_FOUND);

    /* Opened for reading: nothing can be written. */
    DWORD v = 7;
    assert_int_equal(RegSetValueExA(k, "Open Timeout", 0, REG_DWORD, (const BYTE *)&v, 4), ERROR_ACCESS_DENIED);
    DWORD nvalues = 0, maxname = 0, maxval = 0, nsub = 0;
    assert_int_equal(RegQueryInfoKeyA(k, NULL, NULL, NULL, &nsub, NULL, NULL, &nvalues, &maxname, &maxval, NULL,
                                      NULL),
                     ERROR_SUCCESS);
    assert_int_equal(nsub, 0);
    assert_int_equal(nvalues, 9); /* Library Open Collect Close Object List, 4 range values */
    assert_int_equal(maxname, strlen("First Counter"));
    assert_int_equal(maxval, strlen(W32GEN_SO) + 1);
    char name[64];
    DWORD cch = sizeof name;
    size = sizeof buf;
    assert_int_equal(RegEnumValueA(k, 0, name, &cch, NULL, &type, (LPBYTE)buf, &size), ERROR_SUCCESS);
    assert_string_equal(name, "Library");
    assert_int_equal(cch, 7);
    assert_string_equal(buf, W32GEN_SO);
    cch = sizeof name;
    assert_int_equal(RegEnumValueA(k, 9, name, &cch, NULL, NULL, NULL, NULL), ERROR_NO_MORE_ITEMS);
    assert_int_equal(RegCloseKey(k), ERROR_SUCCESS);
    assert_int_equal(RegCloseKey(k), ERROR_INVALID_HANDLE); /* a closed key is gone */

    /* Opened for writing: what the installer and the host keep. */
    assert_int_equal(RegOpenKeyExA(HKEY_LOCAL_MACHINE, KEY, 0, KEY_ALL_ACCESS, &k), ERROR_SUCCESS);
    v = 2500;
    assert_int_equal(RegSetValueExA(k, "Collect Timeout", 0, REG_DWORD, (const BYTE *)&v, 4), ERROR_SUCCESS);
    assert_int_equal(query_dword(k, "Collect Timeout", &rc), 2500);
    assert_int_equal(RegSetValueExA(k, "First Counter", 0, REG_DWORD, (const BYTE *)&v, 4), ERROR_ACCESS_DENIED);
    assert_int_equal(RegSetValueExA(k, "Unknown", 0, REG_SZ, (const BYTE *)"x", 2), ERROR_ACCESS_DENIED);
    assert_int_equal(RegSetValueExA(k, "Open Timeout", 0, REG_SZ, (const BYTE *)"x", 2), ERROR_INVALID_PARAMETER);
    v = 1;
    assert_int_equal(RegSetValueExA(k, "Disable Performance Counters", 0, REG_DWORD, (const BYTE *)&v, 4),
                     ERROR_SUCCESS);
    assert_int_equal(query_dword(k, "Disable Performance Counters", &rc), 1);
    v = 0;
    assert_int_equal(RegSetValueExA(k, "Disable Performance Counters", 0, REG_DWORD, (const BYTE *)&v, 4),
                     ERROR_SUCCESS);
    (void)query_dword(k, "Disable Performance Counters", &rc);
    assert_int_equal(rc, ERROR_FILE_NOT_FOUND);
    assert_int_equal(RegCloseKey(k), ERROR_SUCCESS);

    /* The W forms, and a path opened in steps. */
    HKEY svc = NULL;
    uint16_t *path = w32_widen("SYSTEM\\CurrentControlSet\\Services\\w32gen");
    assert_int_equal(RegOpenKeyExW(HKEY_LOCAL_MACHINE, path, 0, KEY_READ, &svc), ERROR_SUCCESS);
    free(path);
    assert_int_equal(RegEnumKeyA(svc, 0, name, sizeof name), ERROR_SUCCESS);
    assert_string_equal(name, "Performance");
    assert_int_equal(RegOpenKeyExA(svc, "Linkage", 0, KEY_READ, &k), ERROR_FILE_NOT_FOUND);
    assert_int_equal(RegOpenKeyExA(svc, "Performance", 0, KEY_READ, &k), ERROR_SUCCESS);
    uint16_t *vname = w32_widen("Open");
    uint16_t wbuf[64];
    size = sizeof wbuf;
    assert_int_equal(RegQueryValueExW(k, vname, NULL, &type, (LPBYTE)wbuf, &size), ERROR_SUCCESS);
    free(vname);
    assert_int_equal(type, REG_SZ);
    assert_int_equal(size, 2 * (strlen("OpenW32GenPerformanceData") + 1));
    assert_int_equal(wbuf[0], 'O');
    assert_int_equal(wbuf[size / 2 - 1], 0);
    RegCloseKey(k);
    RegCloseKey(svc);
    /* Only providers' keys can be created. */
    assert_int_equal(RegCreateKeyExA(HKEY_LOCAL_MACHINE, "SOFTWARE\\Other", 0, NULL, 0, KEY_ALL_ACCESS, NULL, &k,
                                     NULL),
                     ERROR_ACCESS_DENIED);
    assert_int_equal(RegOpenKeyExA(HKEY_LOCAL_MACHINE, KEY "\\Deeper", 0, KEY_READ, &k), ERROR_FILE_NOT_FOUND);
}

/* The object W32Gen returned in a Global block read with RegQueryValueEx. */
static void read_w32gen(uint32_t fc, uint32_t *constant, uint32_t *collections, int *present)
{
    DWORD cap = 4096, type = 0;
    unsigned char *buf = malloc(cap);
    assert_non_null(buf);
    LSTATUS rc;
    for (int tries = 0;; tries++) {
        DWORD size = cap;
        rc = RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Global", NULL, &type, buf, &size);
        if (rc != ERROR_MORE_DATA) {
            cap = size;
            break;
        }
        cap *= 2;
        buf = realloc(buf, cap);
        assert_non_null(buf);
        assert_true(tries < 20);
    }
    assert_int_equal(rc, ERROR_SUCCESS);
    pl_block blk;
    pl_error err;
    assert_int_equal(pl_block_open(&blk, buf, cap, 0, 0, &err), PL_OK);
    pl_object o;
    *present = pl_block_find_object(&blk, fc, &o) == PL_OK;
    if (*present) {
        assert_int_equal(o.hdr.TotalByteLength % 8, 0);
        pl_counter c;
        pl_instance one;
        uint64_t v = 0;
        assert_int_equal(pl_object_instance(&o, -1, &one), PL_OK);
        assert_int_equal(pl_object_find_counter(&o, fc + 2, &c), PL_OK);
        assert_int_equal(pl_counter_value(&c, &one, &v), PL_OK);
        *constant = (uint32_t)v;
        assert_int_equal(pl_object_find_counter(&o, fc + 4, &c), PL_OK);
        assert_int_equal(pl_counter_value(&c, &one, &v), PL_OK);
        *collections = (uint32_t)v;
    }
    free(buf);
}

/* The provider finds its own First Counter in Open and delivers. */
static void provider_reads_own_key(void **state)
{
    (void)state;
    install(W32GEN_SO, NULL);
    uint32_t fc = 0, fh = 0;
    assert_int_equal(w32_first_indices(&fx, "W32Gen", &fc, &fh), 0);
    uint32_t constant = 0, collections = 0;
    int present = 0;
    read_w32gen(fc, &constant, &collections, &present);
    assert_true(present);
    assert_int_equal(constant, fc);
    assert_int_equal(collections, 1);
    read_w32gen(fc, &constant, &collections, &present);
    assert_true(present);
    assert_int_equal(collections, 2); /* the same helper: state kept */
}

/* The same provider built with UNICODE and _UNICODE: RegOpenKeyExW and
 * RegQueryValueExW with TEXT() strings. */
static void provider_unicode_build(void **state)
{
    (void)state;
    install(W32GEN_W_SO, NULL);
    uint32_t fc = 0, fh = 0;
    assert_int_equal(w32_first_indices(&fx, "W32Gen", &fc, &fh), 0);
    uint32_t constant = 0, collections = 0;
    int present = 0;
    read_w32gen(fc, &constant, &collections, &present);
    assert_true(present);
    assert_int_equal(constant, fc);
    assert_int_equal(collections, 1);
}

/* Linkage Export "odd": the object is 156 bytes, not a multiple of 8, as
 * some shipping providers return. Windows keeps it (padded) and warns; so
 * does perflib, and the provider is not disabled. */
static void provider_odd_lengths_kept(void **state)
{
    (void)state;
    install(W32GEN_SO, "odd");
    uint32_t fc = 0, fh = 0;
    assert_int_equal(w32_first_indices(&fx, "W32Gen", &fc, &fh), 0);
    HKEY k = NULL;
    assert_int_equal(RegOpenKeyExA(HKEY_LOCAL_MACHINE, LINKAGE, 0, KEY_READ, &k), ERROR_SUCCESS);
    char buf[16];
    DWORD type = 0, size = sizeof buf;
    assert_int_equal(RegQueryValueExA(k, "Export", NULL, &type, (LPBYTE)buf, &size), ERROR_SUCCESS);
    assert_int_equal(type, REG_MULTI_SZ);
    assert_int_equal(size, 5);
    assert_memory_equal(buf, "odd\0\0", 5);
    RegCloseKey(k);
    for (uint32_t round = 1; round <= 2; round++) {
        uint32_t constant = 0, collections = 0;
        int present = 0;
        read_w32gen(fc, &constant, &collections, &present);
        assert_true(present);
        assert_int_equal(constant, fc);
        assert_int_equal(collections, round);
    }
    assert_int_equal(RegOpenKeyExA(HKEY_LOCAL_MACHINE, KEY, 0, KEY_READ, &k), ERROR_SUCCESS);
    LSTATUS rc;
    (void)query_dword(k, "Disable Performance Counters", &rc);
    assert_int_equal(rc, ERROR_FILE_NOT_FOUND); /* still enabled */
    RegCloseKey(k);
}

/* pywin32's demo service (shared/realworld/lodctr/pywin32): its .ini names
 * the thread counter under THREADS, a symbol its .h does not define, so
 * lodctr skips the name and the range ends at WRITE; the provider still
 * publishes the counter at THREAD (8), outside its range. Windows shows the
 * object with that counter nameless; so does perflib, with a warning, and
 * the provider stays enabled (issue 29 item 5: it was disabled until
 * lodctr /e). w32gen/pipeperf.c plays the provider. */
static void pywin32_counter_outside_range_kept(void **state)
{
    (void)state;
    HKEY k = NULL;
    assert_int_equal(RegCreateKeyExA(HKEY_LOCAL_MACHINE, "SYSTEM\\CurrentControlSet\\Services\\PipeServicePerf\\Performance",
                                     0, NULL, 0, KEY_ALL_ACCESS, NULL, &k, NULL),
                     ERROR_SUCCESS);
    set_sz(k, "Library", PIPEPERF_SO);
    set_sz(k, "Open", "OpenPipePerf");
    set_sz(k, "Collect", "CollectPipePerf");
    set_sz(k, "Close", "ClosePipePerf");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "lodctr \"%s\"", PYWIN32_INI);
    assert_int_equal(LoadPerfCounterTextStringsA(cmd, TRUE), ERROR_SUCCESS);
    LSTATUS rc;
    DWORD fc = query_dword(k, "First Counter", &rc);
    assert_int_equal(query_dword(k, "Last Counter", &rc), fc + 6); /* THREADS skipped */
    RegCloseKey(k);

    pl_engine *e = NULL;
    assert_int_equal(pl_engine_open(NULL, &e, NULL), PL_OK);
    pl_win32_set_engine(e);
    for (int round = 0; round < 2; round++) {
        DWORD cap = 1 << 20, type = 0, size = cap;
        unsigned char *buf = malloc(cap);
        assert_non_null(buf);
        assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Global", NULL, &type, buf, &size), ERROR_SUCCESS);
        pl_block blk;
        assert_int_equal(pl_block_open(&blk, buf, size, 0, 0, NULL), PL_OK);
        pl_object o;
        assert_int_equal(pl_block_find_object(&blk, fc, &o), PL_OK);
        assert_int_equal(o.hdr.NumCounters, 4);
        pl_instance one;
        assert_int_equal(pl_object_instance(&o, -1, &one), PL_OK);
        static const uint32_t off[4] = {2, 4, 6, 8}, want[4] = {1, 100, 200, 3};
        for (uint32_t c = 0; c < 4; c++) {
            pl_counter ctr;
            uint64_t v = 0;
            assert_int_equal(pl_object_counter(&o, c, &ctr), PL_OK);
            assert_int_equal(ctr.def.CounterNameTitleIndex, fc + off[c]);
            assert_int_equal(pl_counter_value(&ctr, &one, &v), PL_OK);
            assert_int_equal(v, want[c]);
        }
        free(buf);
    }
    /* the counter's index has no name: PDH lists the three named ones */
    DWORD cc = 0, ic = 0;
    assert_int_equal(PdhEnumObjectItemsA(NULL, NULL, "Python Demo Service", NULL, &cc, NULL, &ic, PERF_DETAIL_WIZARD, 0),
                     PDH_MORE_DATA);
    char *list = calloc(cc, 1);
    assert_int_equal(PdhEnumObjectItemsA(NULL, NULL, "Python Demo Service", list, &cc, NULL, &ic, PERF_DETAIL_WIZARD, 0),
                     ERROR_SUCCESS);
    assert_int_equal(w32_multisz_count(list, cc), 3);
    free(list);

    pl_provider_status *st = NULL;
    size_t n = 0;
    int seen = 0;
    assert_int_equal(pl_engine_provider_status(e, &st, &n), PL_OK);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(st[i].name, "PipeServicePerf") != 0) continue;
        seen = 1;
        assert_int_equal(st[i].disabled, 0);
        assert_true(st[i].collects >= 2);
        char part[128];
        snprintf(part, sizeof part, "counter 3 uses title index %u/", (unsigned)fc + 8);
        if (!strstr(st[i].last_error, part) || !strstr(st[i].last_error, "kept and shows without a name"))
            fail_msg("last error: %s", st[i].last_error);
    }
    free(st);
    assert_true(seen);
    pl_win32_set_engine(NULL);
    pl_engine_close(e);
    assert_int_equal(RegOpenKeyExA(HKEY_LOCAL_MACHINE, "SYSTEM\\CurrentControlSet\\Services\\PipeServicePerf\\Performance",
                                   0, KEY_READ, &k),
                     ERROR_SUCCESS);
    (void)query_dword(k, "Disable Performance Counters", &rc);
    assert_int_equal(rc, ERROR_FILE_NOT_FOUND); /* still enabled in the store */
    RegCloseKey(k);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(service_key_values, setup, teardown),
        cmocka_unit_test_setup_teardown(provider_reads_own_key, setup, teardown),
        cmocka_unit_test_setup_teardown(provider_odd_lengths_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(provider_unicode_build, setup, teardown),
        cmocka_unit_test_setup_teardown(pywin32_counter_outside_range_kept, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
