/* Golden tests of the lodctr and unlodctr binaries: stdout, stderr and exit
 * codes for install, /q, /s, /r, /e, /d, errors and usage. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lc_util.h"
#include "pl_test.h"

typedef struct run_out {
    int code;
    char *out, *err;
} run_out;

typedef struct fixture {
    char *dir;
    char *store;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->dir = lc_tmpdir();
    if (!f->dir) return -1;
    f->store = lc_path(f->dir, "store.db");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    free(f->store);
    lc_rmdir(f->dir);
    free(f);
    return 0;
}

static void run_free(run_out *r)
{
    free(r->out);
    free(r->err);
}

/* Run a tool with PERFLIB_REGISTRY set to the fixture's store (or unset
 * when env_store is NULL). */
static run_out run(const fixture *f, const char *env_store, const char *const *argv)
{
    char *o = lc_path(f->dir, "stdout.txt"), *e = lc_path(f->dir, "stderr.txt");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fo = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0600), fe = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fo < 0 || fe < 0) _exit(120);
        dup2(fo, 1);
        dup2(fe, 2);
        if (env_store) setenv("PERFLIB_REGISTRY", env_store, 1);
        else unsetenv("PERFLIB_REGISTRY");
        execv(argv[0], (char *const *)argv);
        _exit(121);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    run_out r;
    r.code = WEXITSTATUS(status);
    r.out = (char *)lc_slurp(o, NULL);
    r.err = (char *)lc_slurp(e, NULL);
    assert_non_null(r.out);
    assert_non_null(r.err);
    free(o);
    free(e);
    return r;
}

#define LODCTR LODCTR_BIN
#define UNLODCTR UNLODCTR_BIN

static pl_perflib_info perflib(const fixture *f)
{
    pl_store *st = NULL;
    pl_error err;
    assert_int_equal(pl_store_open(f->store, 0, &st, &err), PL_OK);
    pl_perflib_info pi;
    assert_int_equal(pl_store_perflib(st, &pi, &err), PL_OK);
    pl_store_close(st);
    return pi;
}

static void usage_and_bad_options(void **state)
{
    fixture *f = *state;
    run_out r = run(f, f->store, (const char *[]){LODCTR, "--help", NULL});
    assert_int_equal(r.code, 0);
    assert_memory_equal(r.out, "Usage: lodctr [options] FILE.ini     install the counter names of FILE.ini\n", 75);
    assert_non_null(strstr(r.out, "Exit codes: 0 success, 1 bad usage, 2 input refused or file unusable,\n"
                                  "3 registry store error, 4 provider or backup not found, 5 provider already\n"
                                  "installed.\n"));
    assert_string_equal(r.err, "");
    run_free(&r);

    r = run(f, f->store, (const char *[]){LODCTR, NULL});
    assert_int_equal(r.code, 1);
    assert_string_equal(r.out, "");
    assert_memory_equal(r.err, "Usage: lodctr", 13);
    run_free(&r);

    r = run(f, f->store, (const char *[]){LODCTR, "/x:foo", NULL});
    assert_int_equal(r.code, 1);
    assert_string_equal(r.err, "lodctr: unknown option '/x:foo'\nTry 'lodctr --help'.\n");
    run_free(&r);

    r = run(f, f->store, (const char *[]){LODCTR, "--frobnicate", NULL});
    assert_int_equal(r.code, 1);
    assert_string_equal(r.err, "lodctr: unknown option '--frobnicate'\nTry 'lodctr --help'.\n");
    run_free(&r);

    r = run(f, f->store, (const char *[]){LODCTR, "/e", NULL});
    assert_int_equal(r.code, 1);
    assert_string_equal(r.err, "lodctr: '/e' needs a provider name (/e:NAME)\nTry 'lodctr --help'.\n");
    run_free(&r);

    r = run(f, f->store, (const char *[]){LODCTR, "a.ini", "/q", NULL});
    assert_int_equal(r.code, 1);
    assert_string_equal(r.err, "lodctr: only one action at a time ('/q')\nTry 'lodctr --help'.\n");
    run_free(&r);

    r = run(f, f->store, (const char *[]){UNLODCTR, NULL});
    assert_int_equal(r.code, 1);
    assert_memory_equal(r.err, "Usage: unlodctr [--registry PATH] NAME\n", 39);
    run_free(&r);

    r = run(f, f->store, (const char *[]){UNLODCTR, "--help", NULL});
    assert_int_equal(r.code, 0);
    assert_memory_equal(r.out, "Usage: unlodctr [--registry PATH] NAME\n", 39);
    run_free(&r);
}

static void install_query_uninstall(void **state)
{
    fixture *f = *state;
    pl_perflib_info pi = perflib(f);
    uint32_t fc = pi.last_counter + 2, fh = pi.last_help + 2;
    /* PERFLIB_REGISTRY names the store */
    run_out r = run(f, f->store, (const char *[]){LODCTR, LC_REAL "perfgen/Perfgen.Ini", NULL});
    char want[2048];
    snprintf(want, sizeof want,
             "Installed the counter names and help texts of PERFGEN: First Counter %u, Last Counter %u, First Help "
             "%u, Last Help %u.\n",
             fc, fc + 8, fh, fh + 8);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.out, want);
    assert_string_equal(r.err, "");
    run_free(&r);

    /* /Q:name, Windows spelling in upper case, --registry instead of the env */
    r = run(f, NULL, (const char *[]){LODCTR, "--registry", f->store, "/Q:perfgen", NULL});
    snprintf(want, sizeof want,
             "[PERFGEN] Performance Counters (Enabled)\n"
             "    DLL Name: \n"
             "    Open Procedure: \n"
             "    Collect Procedure: \n"
             "    Close Procedure: \n"
             "    First Counter ID: 0x%08X (%u)\n"
             "    Last Counter ID: 0x%08X (%u)\n"
             "    First Help ID: 0x%08X (%u)\n"
             "    Last Help ID: 0x%08X (%u)\n"
             "    Object List: %u\n"
             "    Isolation: isolated\n",
             fc, fc, fc + 8, fc + 8, fh, fh, fh + 8, fh + 8, fc);
    assert_int_equal(r.code, 0);
    assert_string_equal(r.out, want);
    run_free(&r);

    /* /q lists the Perflib values and every provider */
    r = run(f, f->store, (const char *[]){LODCTR, "-q", NULL});
    assert_int_equal(r.code, 0);
    snprintf(want, sizeof want,
             "Performance Counter ID Queries [PERFLIB]:\n"
             "    Base Index: 0x00000737 (1847)\n"
             "    Last Counter Text ID: 0x%08X (%u)\n"
             "    Last Help Text ID: 0x%08X (%u)\n",
             fc + 8, fc + 8, fh + 8, fh + 8);
    assert_memory_equal(r.out, want, strlen(want));
    assert_non_null(strstr(r.out, "\n[PERFGEN] Performance Counters (Enabled)\n"));
    run_free(&r);

    /* installing it again: exit 5, the store's message */
    r = run(f, f->store, (const char *[]){LODCTR, LC_REAL "perfgen/Perfgen.Ini", NULL});
    assert_int_equal(r.code, 5);
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, "provider 'PERFGEN' already has counters"));
    run_free(&r);

    /* disable / enable */
    r = run(f, f->store, (const char *[]){LODCTR, "/d:PERFGEN", NULL});
    assert_int_equal(r.code, 0);
    assert_string_equal(r.out, "Disabled provider PERFGEN.\n");
    run_free(&r);
    r = run(f, f->store, (const char *[]){LODCTR, "/q:PERFGEN", NULL});
    assert_int_equal(r.code, 0);
    assert_memory_equal(r.out, "[PERFGEN] Performance Counters (Disabled)\n", 42);
    assert_non_null(strstr(r.out, "\n    Disabled: disabled with lodctr /d since 20"));
    assert_non_null(strstr(r.out, " UTC\n"));
    run_free(&r);
    r = run(f, f->store, (const char *[]){LODCTR, "--enable", "PERFGEN", NULL});
    assert_int_equal(r.code, 0);
    assert_string_equal(r.out, "Enabled provider PERFGEN.\n");
    run_free(&r);

    /* unknown providers: exit 4 */
    r = run(f, f->store, (const char *[]){LODCTR, "/q:NoSuch", NULL});
    assert_int_equal(r.code, 4);
    run_free(&r);
    r = run(f, f->store, (const char *[]){LODCTR, "/e:NoSuch", NULL});
    assert_int_equal(r.code, 4);
    run_free(&r);
    r = run(f, f->store, (const char *[]){UNLODCTR, "NoSuch", NULL});
    assert_int_equal(r.code, 4);
    assert_string_equal(r.out, "");
    run_free(&r);

    r = run(f, f->store, (const char *[]){UNLODCTR, "PERFGEN", NULL});
    assert_int_equal(r.code, 0);
    assert_string_equal(r.out, "Removed the counter names and help texts of PERFGEN.\n");
    run_free(&r);
    pl_perflib_info after = perflib(f);
    assert_int_equal(after.last_counter, pi.last_counter);
    assert_int_equal(after.last_help, pi.last_help);
}

/* --isolation: chosen at install, shown by /q; a bad value or one without
 * FILE.ini is a usage error. */
static void isolation_option(void **state)
{
    fixture *f = *state;
    run_out r = run(f, f->store, (const char *[]){LODCTR, "--isolation", "sideways", LC_REAL "perfgen/Perfgen.Ini", NULL});
    assert_int_equal(r.code, 1);
    assert_string_equal(r.err, "lodctr: --isolation takes 'isolated' or 'in-process', not 'sideways'\n"
                               "Try 'lodctr --help'.\n");
    run_free(&r);
    r = run(f, f->store, (const char *[]){LODCTR, "--isolation=in-process", "/q", NULL});
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, "--isolation go with FILE.ini"));
    run_free(&r);
    r = run(f, f->store, (const char *[]){LODCTR, "--isolation=in-process", LC_REAL "perfgen/Perfgen.Ini", NULL});
    assert_int_equal(r.code, 0);
    run_free(&r);
    r = run(f, f->store, (const char *[]){LODCTR, "/q:PERFGEN", NULL});
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "\n    Isolation: in-process\n"));
    run_free(&r);
    /* the built-in providers run in-process */
    r = run(f, f->store, (const char *[]){LODCTR, "/q:PerfOS", NULL});
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "\n    Isolation: in-process\n"));
    run_free(&r);
}

static void warnings_and_refusals(void **state)
{
    fixture *f = *state;
    run_out r = run(f, f->store, (const char *[]){LODCTR, LC_REAL "pywin32/perf_install.ini", NULL});
    assert_int_equal(r.code, 0);
    assert_string_equal(r.err,
                        "lodctr: warning: " LC_REAL "pywin32/perf_install.ini:17: symbol THREADS is not defined in "
                        LC_REAL "pywin32/perf_install.h; skipped\n"
                        "lodctr: warning: " LC_REAL "pywin32/perf_install.ini:18: symbol THREADS is not defined in "
                        LC_REAL "pywin32/perf_install.h; skipped\n");
    run_free(&r);

    char *ini = lc_write_str(f->dir, "bad.ini", "[info]\r\ndrivername=Bad\r\nsymbolfile=bad.h\r\n[text]\r\nA_009_NAME=a\r\n");
    char *h = lc_write_str(f->dir, "bad.h", "#define A -2\n");
    char *before = NULL;
    {
        pl_store *st = NULL;
        pl_error err;
        assert_int_equal(pl_store_open(f->store, 0, &st, &err), PL_OK);
        before = lc_dump(st);
        pl_store_close(st);
    }
    r = run(f, f->store, (const char *[]){LODCTR, ini, NULL});
    assert_int_equal(r.code, 2);
    assert_string_equal(r.out, "");
    char want[1024];
    snprintf(want, sizeof want, "lodctr: %s/bad.h:1: symbol A has a negative offset -2 (used at %s:5)\n", f->dir, ini);
    assert_string_equal(r.err, want);
    run_free(&r);
    /* the symbol file's own --symbolfile override */
    char *h2 = lc_write_str(f->dir, "good.h", "#define A 0\n");
    r = run(f, f->store, (const char *[]){LODCTR, "--symbolfile", h2, "--library", "/opt/bad/libbad.so", ini, NULL});
    assert_int_equal(r.code, 0);
    run_free(&r);
    r = run(f, f->store, (const char *[]){LODCTR, "/q:Bad", NULL});
    assert_non_null(strstr(r.out, "    DLL Name: /opt/bad/libbad.so\n"));
    run_free(&r);
    r = run(f, f->store, (const char *[]){UNLODCTR, "--registry", f->store, "Bad", NULL});
    assert_int_equal(r.code, 0);
    run_free(&r);
    /* missing .ini */
    r = run(f, f->store, (const char *[]){LODCTR, "/nonexistent/dir/x.ini", NULL});
    assert_int_equal(r.code, 2);
    assert_memory_equal(r.err, "lodctr: /nonexistent/dir/x.ini: cannot open: ", 45);
    run_free(&r);
    free(before);
    free(ini);
    free(h);
    free(h2);
}

static void save_and_restore(void **state)
{
    fixture *f = *state;
    char *bk = lc_path(f->dir, "saved.INI");
    /* /r with no default backup yet */
    run_out r = run(f, f->store, (const char *[]){LODCTR, "/r", NULL});
    assert_int_equal(r.code, 4);
    assert_memory_equal(r.err, "lodctr: no backup to restore: ", 30);
    run_free(&r);

    /* start from a real Windows title database (the seeded store has a name
     * at 1847, which the backup format cannot hold; see the report) */
    r = run(f, f->store,
            (const char *[]){LODCTR, "/R:" LC_BACKUPS "PerfStringBackup_en009_win10_rosenste-github-upload.INI", NULL});
    assert_int_equal(r.code, 0);
    run_free(&r);
    r = run(f, f->store, (const char *[]){LODCTR, LC_REAL "trafficserver/TrafficServer.ini", NULL});
    assert_int_equal(r.code, 0);
    assert_string_equal(r.out, "Installed the counter names and help texts of TrafficServer: First Counter 10642, Last "
                               "Counter 10928, First Help 10643, Last Help 10929.\n");
    run_free(&r);
    r = run(f, f->store, (const char *[]){LODCTR, "/S:", bk, NULL}); /* "/s: FILE" */
    assert_int_equal(r.code, 0);
    char want0[1024];
    snprintf(want0, sizeof want0, "Saved the title database (1 language, Last Counter 10928, Last Help 10929) to %s.\n", bk);
    assert_string_equal(r.out, want0);
    run_free(&r);
    pl_perflib_info withts = perflib(f);

    r = run(f, f->store, (const char *[]){UNLODCTR, "TrafficServer", NULL});
    assert_int_equal(r.code, 0);
    run_free(&r);

    /* restore the Windows 10 backup, then ours: back to the saved state */
    r = run(f, f->store,
            (const char *[]){LODCTR, "-r:" LC_BACKUPS "PerfStringBackup_en009_win10_rosenste-github-upload.INI", NULL});
    assert_int_equal(r.code, 0);
    assert_string_equal(r.out, "Restored the title database (1 language, Last Counter 10640, Last Help 10641) from "
                               LC_BACKUPS "PerfStringBackup_en009_win10_rosenste-github-upload.INI.\n");
    run_free(&r);
    assert_int_equal(perflib(f).last_counter, 10640);

    char arg[1024];
    snprintf(arg, sizeof arg, "/r:%s", bk);
    r = run(f, f->store, (const char *[]){LODCTR, arg, NULL});
    assert_int_equal(r.code, 0);
    run_free(&r);
    assert_int_equal(perflib(f).last_counter, 10928);
    {
        pl_store *st = NULL;
        pl_error err;
        assert_int_equal(pl_store_open(f->store, 0, &st, &err), PL_OK);
        char *n = lc_title(st, "009", PL_TITLE_NAME, 10642 + 2);
        assert_string_equal(n, "# of objects served from cache");
        free(n);
        pl_store_close(st);
    }

    /* default backup file next to the store: /s then /r */
    r = run(f, f->store, (const char *[]){LODCTR, "/s", NULL});
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "/PerfStringBackup.INI.\n"));
    run_free(&r);
    r = run(f, f->store, (const char *[]){LODCTR, "--restore", NULL});
    assert_int_equal(r.code, 0);
    run_free(&r);

    /* a corrupt backup: exit 2, store unchanged */
    char *bad = lc_write_str(f->dir, "bad.INI", "[Perflib]\r\nBase Index=1847\r\nLast Counter=4\r\nLast Help=5\r\n"
                                                "[PerfStrings_009]\r\n2=System\r\nnonsense\r\n");
    snprintf(arg, sizeof arg, "/r:%s", bad);
    r = run(f, f->store, (const char *[]){LODCTR, arg, NULL});
    assert_int_equal(r.code, 2);
    char want[1024];
    snprintf(want, sizeof want, "lodctr: %s:7: line without '='\n", bad);
    assert_string_equal(r.err, want);
    run_free(&r);
    assert_int_equal(perflib(f).last_counter, withts.last_counter);
    free(bad);
    free(bk);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(usage_and_bad_options, setup, teardown),
        cmocka_unit_test_setup_teardown(install_query_uninstall, setup, teardown),
        cmocka_unit_test_setup_teardown(warnings_and_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(isolation_option, setup, teardown),
        cmocka_unit_test_setup_teardown(save_and_restore, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
