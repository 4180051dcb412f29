/* loadperf (include/win32/loadperf.h): real-world .ini files installed and
 * removed through LoadPerfCounterTextStrings / UnloadPerfCounterTextStrings
 * (A and W), InstallPerfDll, SetServiceAsTrusted, and real `lodctr /s`
 * backups restored with RestorePerfRegistryFromFileW and written back with
 * BackupPerfRegistryToFileW. Each case runs on a temp store
 * (PERFLIB_REGISTRY) holding the fixed title database of tests/perfquery's
 * fixture and no provider. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/lodctr.h"
#include "perflib/win32.h"
#include "pl_test.h"
#include "w32_util.h"
#include "win32/loadperf.h"
#include "win32/winreg.h"

#define LODCTR_DIR PL_SHARED_DIR "/realworld/lodctr/"
#define BACKUP_DIR PL_SHARED_DIR "/realworld/title-backups/"
#define MSDOCS_INI LODCTR_DIR "msdocs-example/MyApplication.ini"
#define PERFGEN_INI LODCTR_DIR "perfgen/Perfgen.Ini"
#define DE_BACKUP BACKUP_DIR "PerfStringBackup_de007+en009_apfeltee-tini.INI"
#define WIN10_BACKUP BACKUP_DIR "PerfStringBackup_en009_win10_rosenste-github-upload.INI"
#define BIG (4u * 1024u * 1024u)

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

/* "Counter 009" / "Help 009" through the registry API, in a new buffer. */
static char *titles(const char *value, DWORD *len)
{
    DWORD size = 0;
    assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_DATA, value, NULL, NULL, NULL, &size), ERROR_SUCCESS);
    char *buf = malloc(size);
    assert_non_null(buf);
    assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_DATA, value, NULL, NULL, (LPBYTE)buf, &size), ERROR_SUCCESS);
    *len = size;
    return buf;
}

static DWORD perflib_dword(const char *name);

/* "%u" of n, in a static buffer per slot. */
static const char *idx(int slot, DWORD n)
{
    static char b[8][16];
    snprintf(b[slot], sizeof b[slot], "%lu", (unsigned long)n);
    return b[slot];
}

/* Where the next install goes: the next even index above Last Counter, and
 * the next odd one above Last Help. */
static void next_first(DWORD *fc, DWORD *fh)
{
    *fc = (perflib_dword("Last Counter") | 1u) + 1u;
    *fh = (perflib_dword("Last Help") + 1u) | 1u;
}

static DWORD perflib_dword(const char *name)
{
    HKEY k = NULL;
    assert_int_equal(RegOpenKeyExA(HKEY_LOCAL_MACHINE, "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib", 0,
                                   KEY_READ, &k),
                     ERROR_SUCCESS);
    DWORD v = 0, size = 4;
    assert_int_equal(RegQueryValueExA(k, name, NULL, NULL, (LPBYTE)&v, &size), ERROR_SUCCESS);
    return v;
}

/* The MS docs example with the A forms: installed at 1848.., removed again,
 * leaving the title database byte for byte as it was. */
static void load_unload_a(void **state)
{
    (void)state;
    DWORD len0, hlen0, len, hlen, fc, fh;
    DWORD lc0 = perflib_dword("Last Counter"), lh0 = perflib_dword("Last Help");
    next_first(&fc, &fh);
    char *before = titles("Counter 009", &len0);
    char *hbefore = titles("Help 009", &hlen0);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "lodctr %s", MSDOCS_INI);
    assert_int_equal(LoadPerfCounterTextStringsA(cmd, FALSE), ERROR_SUCCESS);
    char *after = titles("Counter 009", &len);
    assert_string_equal(w32_multisz_lookup(after, idx(0, fc)), "Transfer");
    assert_string_equal(w32_multisz_lookup(after, idx(0, fc + 2)), "Bytes Sent");
    assert_string_equal(w32_multisz_lookup(after, idx(0, fc + 4)), "Available Bandwidth");
    assert_string_equal(w32_multisz_lookup(after, idx(0, fc + 6)), "Peer");
    assert_string_equal(w32_multisz_lookup(after, idx(0, fc + 8)), "Bytes Served");
    char *hafter = titles("Explain 009", &hlen);
    assert_string_equal(w32_multisz_lookup(hafter, idx(0, fh)), "Provides information related to transferring files.");
    assert_int_equal(perflib_dword("Last Counter"), fc + 8);
    assert_int_equal(perflib_dword("Last Help"), fh + 8);
    /* A second load of an installed provider. */
    assert_int_equal(LoadPerfCounterTextStringsA(cmd, TRUE), ERROR_ALREADY_EXISTS);
    assert_int_equal(SetServiceAsTrustedA(NULL, "MyApplication"), ERROR_SUCCESS);

    char ucmd[] = "unlodctr MyApplication";
    assert_int_equal(UnloadPerfCounterTextStringsA(ucmd, FALSE), ERROR_SUCCESS);
    assert_int_equal(UnloadPerfCounterTextStringsA(ucmd, TRUE), ERROR_FILE_NOT_FOUND);
    assert_int_equal(SetServiceAsTrustedA(NULL, "MyApplication"), ERROR_FILE_NOT_FOUND);
    free(after);
    free(hafter);
    after = titles("Counter 009", &len);
    hafter = titles("Help 009", &hlen);
    assert_int_equal(len, len0);
    assert_memory_equal(after, before, len0);
    assert_int_equal(hlen, hlen0);
    assert_memory_equal(hafter, hbefore, hlen0);
    assert_int_equal(perflib_dword("Last Counter"), lc0);
    assert_int_equal(perflib_dword("Last Help"), lh0);
    free(before);
    free(hbefore);
    free(after);
    free(hafter);
}

/* The W forms, with the PerfGen SDK sample (its .ini names genctrnm.h, the
 * file is GenCtrnm.h) and a quoted path. */
static void load_unload_w(void **state)
{
    (void)state;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "lodctr /q \"%s\"", PERFGEN_INI);
    uint16_t *wcmd = w32_widen(cmd);
    DWORD len, fc, fh;
    next_first(&fc, &fh);
    assert_int_equal(LoadPerfCounterTextStringsW(wcmd, TRUE), ERROR_SUCCESS);
    char *t = titles("Counter", &len);
    assert_string_equal(w32_multisz_lookup(t, idx(0, fc)), "Signal Generator");
    assert_string_equal(w32_multisz_lookup(t, idx(0, fc + 2)), "Sine Wave");
    free(t);
    assert_int_equal(LoadPerfCounterTextStringsW(wcmd, TRUE), ERROR_ALREADY_EXISTS);
    assert_int_equal(SetServiceAsTrustedW(NULL, u"perfgen"), ERROR_SUCCESS);
    assert_int_equal(SetServiceAsTrustedW(u"x", u"perfgen"), ERROR_INVALID_PARAMETER);
    uint16_t *ucmd = w32_widen("unlodctr PERFGEN");
    assert_int_equal(UnloadPerfCounterTextStringsW(ucmd, FALSE), ERROR_SUCCESS);
    assert_int_equal(UnloadPerfCounterTextStringsW(ucmd, FALSE), ERROR_FILE_NOT_FOUND);
    t = titles("Counter", &len);
    assert_null(w32_multisz_lookup(t, idx(0, fc)));
    free(t);
    free(wcmd);
    free(ucmd);
}

/* Errors map to Win32 codes. */
static void load_errors(void **state)
{
    (void)state;
    assert_int_equal(LoadPerfCounterTextStringsA(NULL, FALSE), ERROR_INVALID_PARAMETER);
    assert_int_equal(LoadPerfCounterTextStringsW(NULL, FALSE), ERROR_INVALID_PARAMETER);
    char empty[] = "   ";
    assert_int_equal(LoadPerfCounterTextStringsA(empty, FALSE), ERROR_INVALID_PARAMETER);
    char missing[] = "lodctr /nonexistent/dir/none.ini";
    assert_int_equal(LoadPerfCounterTextStringsA(missing, FALSE), ERROR_FILE_NOT_FOUND);
    char ini[4300], cmd[4400];
    snprintf(ini, sizeof ini, "%s/bad.ini", fx.dir);
    FILE *f = fopen(ini, "w");
    assert_non_null(f);
    fputs("[info]\nsymbolfile=none.h\n[text]\nX_009_NAME=x\n", f); /* no drivername= */
    fclose(f);
    snprintf(cmd, sizeof cmd, "lodctr %s", ini);
    assert_int_equal(LoadPerfCounterTextStringsA(cmd, FALSE), ERROR_INVALID_DATA);
    assert_int_equal(UnloadPerfCounterTextStringsA(NULL, FALSE), ERROR_INVALID_PARAMETER);
    char unknown[] = "unlodctr NoSuchProvider";
    assert_int_equal(UnloadPerfCounterTextStringsA(unknown, FALSE), ERROR_FILE_NOT_FOUND);
    const uint16_t bad_utf16[] = {'l', 0xD800, 'x', 0};
    assert_int_equal(LoadPerfCounterTextStringsW((LPWSTR)bad_utf16, FALSE), ERROR_INVALID_PARAMETER);
    assert_int_equal(UpdatePerfNameFilesA("a", "b", NULL, 0), ERROR_CALL_NOT_IMPLEMENTED);
    assert_int_equal(UpdatePerfNameFilesW(u"a", u"b", NULL, 0), ERROR_CALL_NOT_IMPLEMENTED);
}

/* InstallPerfDll takes a path (not a command line) and this machine only. */
static void install_perf_dll(void **state)
{
    (void)state;
    assert_int_equal(InstallPerfDllA(NULL, NULL, 0), ERROR_INVALID_PARAMETER);
    assert_int_equal(InstallPerfDllA("\\\\faraway.invalid", MSDOCS_INI, 0), ERROR_NOT_SUPPORTED);
    DWORD fc, fh;
    next_first(&fc, &fh);
    assert_int_equal(InstallPerfDllA(NULL, MSDOCS_INI, LOADPERF_FLAGS_LOAD_REGISTRY_ONLY), ERROR_SUCCESS);
    assert_int_equal(InstallPerfDllA("localhost", MSDOCS_INI, 0), ERROR_ALREADY_EXISTS);
    DWORD len;
    char *t = titles("Counter 009", &len);
    assert_string_equal(w32_multisz_lookup(t, idx(0, fc + 8)), "Bytes Served");
    free(t);
    uint16_t *w = w32_widen(PERFGEN_INI);
    assert_int_equal(InstallPerfDllW(NULL, w, 0), ERROR_SUCCESS);
    free(w);
    t = titles("Counter 009", &len);
    assert_string_equal(w32_multisz_lookup(t, idx(0, fc + 10)), "Signal Generator");
    free(t);
    w = w32_widen("/nonexistent/x.ini");
    assert_int_equal(InstallPerfDllW(NULL, w, 0), ERROR_FILE_NOT_FOUND);
    free(w);
}

/* lodctr /r of a real German+English backup, then lodctr /s of the result. */
static void restore_and_backup(void **state)
{
    (void)state;
    uint16_t *file = w32_widen(DE_BACKUP);
    assert_int_equal(RestorePerfRegistryFromFileW(file, NULL), ERROR_SUCCESS);
    free(file);
    assert_int_equal(perflib_dword("Last Counter"), 9408);
    assert_int_equal(perflib_dword("Last Help"), 9409);
    DWORD len;
    char *t = titles("Counter 009", &len);
    assert_string_equal(t, "1");
    assert_string_equal(t + 2, "1847");
    assert_string_equal(w32_multisz_lookup(t, "4"), "Memory");
    assert_string_equal(w32_multisz_lookup(t, "1846"), "End Marker");
    free(t);
    t = titles("Counter 007", &len);
    assert_string_equal(w32_multisz_lookup(t, "4"), "Arbeitsspeicher");
    assert_string_equal(w32_multisz_lookup(t, "238"), "Prozessor");
    free(t);

    char out[4300];
    snprintf(out, sizeof out, "%s/PerfStringBackup.INI", fx.dir);
    uint16_t *wout = w32_widen(out);
    assert_int_equal(BackupPerfRegistryToFileW(wout, u"comment"), ERROR_SUCCESS);
    pl_backup *a = NULL, *b = NULL;
    pl_error err;
    assert_int_equal(pl_backup_read_file(out, &a, &err), PL_OK);
    assert_int_equal(pl_backup_read_file(DE_BACKUP, &b, &err), PL_OK);
    assert_int_equal(a->last_counter, b->last_counter);
    assert_int_equal(a->last_help, b->last_help);
    assert_int_equal(a->nlangs, 2);
    assert_string_equal(a->langs[0].lang, "007");
    assert_string_equal(a->langs[1].lang, "009");
    for (size_t l = 0; l < 2; l++) {
        assert_int_equal(a->langs[l].nnames, b->langs[l].nnames);
        assert_int_equal(a->langs[l].nhelps, b->langs[l].nhelps);
    }
    pl_backup_free(a);
    pl_backup_free(b);
    /* A file that cannot be written. */
    uint16_t *bad = w32_widen("/nonexistent/dir/PerfStringBackup.INI");
    assert_int_equal(BackupPerfRegistryToFileW(bad, NULL), ERROR_ACCESS_DENIED);
    assert_int_equal(BackupPerfRegistryToFileW(NULL, NULL), ERROR_INVALID_PARAMETER);
    assert_int_equal(RestorePerfRegistryFromFileW(bad, NULL), ERROR_FILE_NOT_FOUND);
    assert_int_equal(RestorePerfRegistryFromFileW(NULL, NULL), ERROR_INVALID_PARAMETER);
    free(bad);
    free(wout);
}

/* Restoring one language keeps the others: 007 from the German backup onto
 * the fixture's 009, and the Windows 10 backup's Last Counter. */
static void restore_one_language(void **state)
{
    (void)state;
    uint16_t *file = w32_widen(DE_BACKUP);
    assert_int_equal(RestorePerfRegistryFromFileW(file, u"012"), ERROR_INVALID_PARAMETER);
    assert_int_equal(RestorePerfRegistryFromFileW(file, u"007"), ERROR_SUCCESS);
    free(file);
    DWORD len;
    char *t = titles("Counter 009", &len);
    assert_string_equal(w32_multisz_lookup(t, "1382"), "Available MBytes"); /* the fixture's 009 stays */
    assert_int_equal(w32_multisz_count(t, len), 2 * 10); /* its ten names, not the backup's thousands */
    free(t);
    t = titles("Counter 007", &len);
    assert_string_equal(w32_multisz_lookup(t, "4"), "Arbeitsspeicher");
    free(t);
    assert_int_equal(perflib_dword("Last Counter"), 9408);

    file = w32_widen(WIN10_BACKUP);
    assert_int_equal(RestorePerfRegistryFromFileW(file, u""), ERROR_SUCCESS);
    free(file);
    assert_int_equal(perflib_dword("Last Counter"), 10640);
    t = titles("Counter 009", &len);
    assert_string_equal(t, "1");
    assert_string_equal(t + 2, "1847");
    assert_string_equal(w32_multisz_lookup(t, "674"), "System Up Time");
    free(t);
    DWORD size = 0;
    assert_int_equal(RegQueryValueExA(HKEY_PERFORMANCE_DATA, "Counter 007", NULL, NULL, NULL, &size),
                     ERROR_FILE_NOT_FOUND);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(load_unload_a, setup, teardown),
        cmocka_unit_test_setup_teardown(load_unload_w, setup, teardown),
        cmocka_unit_test_setup_teardown(load_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(install_perf_dll, setup, teardown),
        cmocka_unit_test_setup_teardown(restore_and_backup, setup, teardown),
        cmocka_unit_test_setup_teardown(restore_one_language, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
