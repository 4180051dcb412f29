/* lodctr/unlodctr against a real SQLite registry store in a temp dir: the nine
 * real sets install and uninstall cleanly, languages, refusals that leave the
 * store unchanged, two installers at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lc_util.h"
#include "pl_test.h"

typedef struct fixture {
    char *dir;
    pl_store *st;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->dir = lc_tmpdir();
    f->st = f->dir ? lc_store(f->dir) : NULL;
    if (!f->st) return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    pl_store_close(f->st);
    lc_rmdir(f->dir);
    free(f);
    return 0;
}

static void assert_title(pl_store *st, const char *lang, int kind, uint32_t idx, const char *want)
{
    char *got = lc_title(st, lang, kind, idx);
    if (!want) {
        assert_null(got);
        return;
    }
    if (!got || strcmp(got, want) != 0) fprintf(stderr, "%s %d %u: '%s'\n", lang, kind, idx, got ? got : "(null)");
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static pl_lodctr_set *install(pl_store *st, const char *ini, const char *sym, pl_install_result *res)
{
    pl_lodctr_set *set = NULL;
    pl_error err = {0, ""};
    pl_lodctr_parse_opts o = {sym};
    int rc = pl_lodctr_parse_ex(ini, &o, &set, &err);
    if (rc) fprintf(stderr, "parse: %s\n", err.msg);
    assert_int_equal(rc, PL_OK);
    pl_perflib_info before;
    assert_int_equal(pl_store_perflib(st, &before, &err), PL_OK);
    rc = pl_lodctr_install(st, set, NULL, res, &err);
    if (rc) fprintf(stderr, "install: %s\n", err.msg);
    assert_int_equal(rc, PL_OK);
    assert_int_equal(res->first_counter, before.last_counter + 2);
    assert_int_equal(res->first_help, before.last_help + 2);
    assert_int_equal(res->last_counter, res->first_counter + set->max_offset);
    assert_int_equal(res->last_help, res->first_help + set->max_offset);
    pl_perflib_info after;
    assert_int_equal(pl_store_perflib(st, &after, &err), PL_OK);
    assert_int_equal(after.last_counter, res->last_counter);
    assert_int_equal(after.last_help, res->last_help);
    return set;
}

static void uninstall(pl_store *st, const char *name)
{
    pl_error err = {0, ""};
    int rc = pl_lodctr_uninstall(st, name, &err);
    if (rc) fprintf(stderr, "uninstall: %s\n", err.msg);
    assert_int_equal(rc, PL_OK);
}

/* Install, check names, uninstall, compare the whole store with before. */
static void real_set(void **state, const char *ini, const char *sym, const char *provider,
                     const uint32_t *offs, const char *const *names, size_t n, const char *lang2)
{
    fixture *f = *state;
    pl_error err;
    if (lang2) assert_int_equal(pl_store_add_language(f->st, lang2, &err), PL_OK);
    char *before = lc_dump(f->st);
    assert_non_null(before);
    pl_install_result r;
    pl_lodctr_set *set = install(f->st, ini, sym, &r);
    assert_string_equal(set->provider, provider);
    for (size_t i = 0; i < n; i++) assert_title(f->st, "009", PL_TITLE_NAME, r.first_counter + offs[i], names[i]);
    pl_provider_info p;
    memset(&p, 0, sizeof p);
    assert_int_equal(pl_store_provider(f->st, provider, &p, &err), PL_OK);
    assert_int_equal(p.first_counter, r.first_counter);
    assert_int_equal(p.last_help, r.last_help);
    pl_provider_info_clear(&p);
    /* a second install of the same provider is refused, store unchanged */
    char *mid = lc_dump(f->st);
    pl_install_result r2;
    assert_int_equal(pl_lodctr_install(f->st, set, NULL, &r2, &err), PL_E_EXISTS);
    char *mid2 = lc_dump(f->st);
    assert_string_equal(mid, mid2);
    free(mid);
    free(mid2);
    uninstall(f->st, provider);
    char *after = lc_dump(f->st);
    assert_string_equal(before, after);
    free(before);
    free(after);
    pl_lodctr_free(set);
}

static void install_perfgen(void **state)
{
    const uint32_t o[] = {0, 2, 8};
    const char *const n[] = {"Signal Generator", "Sine Wave", "NumberOfBytes Value"};
    real_set(state, LC_REAL "perfgen/Perfgen.Ini", NULL, "PERFGEN", o, n, 3, NULL);
}

static void install_pywin32(void **state)
{
    const uint32_t o[] = {0, 2, 6, 8};
    const char *const n[] = {"Python Demo Service", "Heartbeat pulse", "Bytes written/sec", NULL};
    real_set(state, LC_REAL "pywin32/perf_install.ini", NULL, "PipeServicePerf", o, n, 4, NULL);
}

static void install_ntrace(void **state)
{
    const uint32_t o[] = {0, 6, 32};
    const char *const n[] = {"Kernel FBT Agent", "Buffers (Dirty)", "Thread Teardowns"};
    real_set(state, LC_REAL "ntrace-jpkfbt/perfctr.ini", NULL, "jpkfar", o, n, 3, NULL);
}

static void install_msdocs(void **state)
{
    const uint32_t o[] = {0, 4, 8};
    const char *const n[] = {"Transfer", "Available Bandwidth", "Bytes Served"};
    real_set(state, LC_REAL "msdocs-example/MyApplication.ini", NULL, "MyApplication", o, n, 3, "00C");
}

static void install_msdocs_old(void **state)
{
    const uint32_t o[] = {0, 6};
    const char *const n[] = {"Transfer", "Peer"};
    real_set(state, LC_REAL "msdocs-example-old/MyApplication_old.ini",
             LC_REAL "msdocs-example-old/CounterOffsets_old.h", "MyApplication", o, n, 2, NULL);
}

static void install_wix_symfile(void **state)
{
    const uint32_t o[] = {0, 2, 4, 6, 8};
    const char *const n[] = {"Name of the device", "Name of first counter", "Name of the second counter", NULL, NULL};
    real_set(state, LC_REAL "wix-symfile/SymFile.ini", NULL, "MyApplication", o, n, 5, "004");
}

static void install_wix_perfcategory(void **state)
{
    const uint32_t o[] = {0, 2, 4};
    const char *const n[] = {"InstrumentationDemo", "DemoCounter", NULL};
    real_set(state, LC_REAL "wix-perfcategory/PerformanceCategory_IniData.ini", NULL, "InstrumentationDemo", o, n, 3,
             NULL);
}

static void install_ese(void **state)
{
    const uint32_t o[] = {0, 2, 1838};
    const char *const n[] = {"MSExchange Database", "Defragmentation Tasks", "Database Cache Requests/sec (Unique)"};
    real_set(state, LC_REAL "ese/eseperf.ini", NULL, "ESE", o, n, 3, "000");
}

static void install_trafficserver(void **state)
{
    const uint32_t o[] = {0, 2, 286};
    const char *const n[] = {"Traffic Server", "# of objects served from cache", "current # of KB write from cache"};
    real_set(state, LC_REAL "trafficserver/TrafficServer.ini", NULL, "TrafficServer", o, n, 3, NULL);
}

/* ESE: 920 symbols, both languages written, object list from [objects]. */
static void ese_details(void **state)
{
    fixture *f = *state;
    pl_error err;
    assert_int_equal(pl_store_add_language(f->st, "000", &err), PL_OK);
    pl_install_result r;
    pl_lodctr_set *set = install(f->st, LC_REAL "ese/eseperf.ini", NULL, &r);
    assert_int_equal(set->nwarnings, 0);
    assert_int_equal(r.last_counter - r.first_counter, 1838);
    assert_title(f->st, "000", PL_TITLE_NAME, r.first_counter + 2, "Defragmentation Tasks");
    assert_title(f->st, "000", PL_TITLE_HELP, r.first_help + 2,
                 "Defragmentation Tasks is the count of background database defragmentation tasks that are currently "
                 "executing.");
    assert_title(f->st, "009", PL_TITLE_HELP, r.first_help + 1838,
                 "Database Cache Requests/sec (Unique) is the rate at which unique pages are requested from the "
                 "database cache.");
    pl_titles *t = NULL;
    assert_int_equal(pl_titles_load(f->st, "009", &t, &err), PL_OK);
    uint32_t idx = pl_titles_find(t, PL_TITLE_NAME, "MSExchange Database ==> Instances");
    assert_true(idx >= r.first_counter && idx <= r.last_counter);
    pl_titles_free(t);
    pl_provider_info p;
    memset(&p, 0, sizeof p);
    assert_int_equal(pl_store_provider(f->st, "ESE", &p, &err), PL_OK);
    assert_non_null(p.object_list);
    assert_true(strncmp(p.object_list, "", 1) != 0);
    char want[16];
    snprintf(want, sizeof want, "%u ", r.first_counter);
    assert_memory_equal(p.object_list, want, strlen(want));
    pl_provider_info_clear(&p);
    pl_lodctr_free(set);
}

/* wix-perfcategory: [text] languages never declared in [languages]. */
static void undeclared_languages(void **state)
{
    fixture *f = *state;
    pl_error err;
    pl_install_result r;
    pl_lodctr_set *set = install(f->st, LC_REAL "wix-perfcategory/PerformanceCategory_IniData.ini", NULL, &r);
    /* the store has only 009: 006, 028 and 054 are skipped with warnings */
    assert_int_equal(set->nwarnings, 3);
    assert_true(lc_has_warning(set, "PerformanceCategory_IniData.ini:20: language 006 is not in the registry store"));
    assert_true(lc_has_warning(set, "PerformanceCategory_IniData.ini:18: language 028 is not in the registry store"));
    assert_true(lc_has_warning(set, "PerformanceCategory_IniData.ini:16: language 054 is not in the registry store"));
    assert_title(f->st, "009", PL_TITLE_NAME, r.first_counter, "InstrumentationDemo");
    assert_title(f->st, "009", PL_TITLE_NAME, r.first_counter + 2, "DemoCounter");
    assert_title(f->st, "009", PL_TITLE_NAME, r.first_counter + 4, NULL);
    uninstall(f->st, "InstrumentationDemo");
    pl_lodctr_free(set);
    /* with 054 in the store its text is written there */
    assert_int_equal(pl_store_add_language(f->st, "054", &err), PL_OK);
    set = install(f->st, LC_REAL "wix-perfcategory/PerformanceCategory_IniData.ini", NULL, &r);
    assert_int_equal(set->nwarnings, 2);
    assert_title(f->st, "054", PL_TITLE_NAME, r.first_counter + 4, "DemoCounter1");
    assert_title(f->st, "054", PL_TITLE_HELP, r.first_help + 4, "Just a simple numerical count.");
    pl_lodctr_free(set);
}

static void both_languages_and_fallback(void **state)
{
    fixture *f = *state;
    pl_error err;
    assert_int_equal(pl_store_add_language(f->st, "00C", &err), PL_OK);
    assert_int_equal(pl_store_add_language(f->st, "007", &err), PL_OK);
    pl_install_result r;
    pl_lodctr_set *set = install(f->st, LC_REAL "msdocs-example/MyApplication.ini", NULL, &r);
    assert_int_equal(set->nwarnings, 0);
    assert_title(f->st, "009", PL_TITLE_NAME, r.first_counter + 2, "Bytes Sent");
    assert_title(f->st, "00C", PL_TITLE_NAME, r.first_counter + 2, "Octets Envoy\xC3\xA9s");
    assert_title(f->st, "00C", PL_TITLE_HELP, r.first_help + 6, "Fournit des informations li\xC3\xA9" "es \xC3\xA9 mise en cache homologue.");
    /* 007 is not in the .ini: English */
    assert_title(f->st, "007", PL_TITLE_NAME, r.first_counter + 2, "Bytes Sent");
    assert_title(f->st, "007", PL_TITLE_HELP, r.first_help + 8, "Number of bytes served from the cache.");
    pl_provider_info p;
    memset(&p, 0, sizeof p);
    assert_int_equal(pl_store_provider(f->st, "MyApplication", &p, &err), PL_OK);
    char want[32];
    snprintf(want, sizeof want, "%u %u", r.first_counter, r.first_counter + 6);
    assert_string_equal(p.object_list, want);
    pl_provider_info_clear(&p);
    pl_lodctr_free(set);
}

static void overrides_and_keep_record(void **state)
{
    fixture *f = *state;
    pl_error err;
    pl_lodctr_set *set = NULL;
    assert_int_equal(pl_lodctr_parse(LC_REAL "perfgen/Perfgen.Ini", &set, &err), PL_OK);
    pl_lodctr_overrides ov = {"/opt/perfgen/libperfgen.so", "OpenPerfGen", "CollectPerfGen", "ClosePerfGen", 0};
    pl_install_result r;
    assert_int_equal(pl_lodctr_install(f->st, set, &ov, &r, &err), PL_OK);
    pl_provider_info p;
    memset(&p, 0, sizeof p);
    assert_int_equal(pl_store_provider(f->st, "PERFGEN", &p, &err), PL_OK);
    assert_string_equal(p.library, "/opt/perfgen/libperfgen.so");
    assert_string_equal(p.open, "OpenPerfGen");
    assert_string_equal(p.collect, "CollectPerfGen");
    assert_string_equal(p.close, "ClosePerfGen");
    pl_provider_info_clear(&p);
    /* unlodctr keeps a record that has a Library (as Windows keeps the
     * service key), with its ranges cleared */
    uninstall(f->st, "PERFGEN");
    memset(&p, 0, sizeof p);
    assert_int_equal(pl_store_provider(f->st, "PERFGEN", &p, &err), PL_OK);
    assert_string_equal(p.library, "/opt/perfgen/libperfgen.so");
    assert_int_equal(p.first_counter, 0);
    assert_int_equal(p.last_help, 0);
    pl_provider_info_clear(&p);
    assert_int_equal(pl_lodctr_uninstall(f->st, "PERFGEN", &err), PL_E_NOT_FOUND);
    assert_int_equal(pl_lodctr_uninstall(f->st, "NoSuchProvider", &err), PL_E_NOT_FOUND);
    pl_lodctr_free(set);
}

/* Every refusal, through the loadperf-style entry point (parse + install):
 * the message names file and line, and the store is unchanged. */
static void refusals_leave_store_unchanged(void **state)
{
    fixture *f = *state;
    static const struct {
        const char *ini, *h;
        int status;
        const char *msg;
    } cases[] = {
        {"[info]\ndrivername=P\nsymbolfile=t.h\n[text]\nA_009_NAME=a\nN_009_NAME=n\n", "#define A 0\n#define N -2\n",
         PL_E_INVAL, "t.h:2: symbol N has a negative offset -2 (used at "},
        {"[info]\ndrivername=P\nsymbolfile=t.h\n[text]\nA_009_NAME=a\n", "#define A 5\n", PL_E_INVAL,
         "t.h:1: symbol A has an odd offset 5"},
        {"[info]\ndrivername=P\nsymbolfile=t.h\n[text]\nA_009_NAME=a\nB_009_NAME=b\n", "#define A 0\n#define B 0\n",
         PL_E_INVAL, "t.ini:6: symbols A (line 5) and B both have offset 0"},
        {"[info]\ndrivername=P\nsymbolfile=t.h\n[text]\nA_009_NAME=a\n", "#define A 0\n#define A 4\n", PL_E_PARSE,
         "t.h:1: symbol A is defined twice with different values"},
        {"[info]\nsymbolfile=t.h\n[text]\nA_009_NAME=a\n", "#define A 0\n", PL_E_PARSE, "t.ini:1: [info] has no drivername="},
        {"[info]\ndrivername=P\nsymbolfile=missing.h\n[text]\nA_009_NAME=a\n", "#define A 0\n", PL_E_IO,
         "t.ini:3: symbol file missing.h: "},
        {"[info]\ndrivername=P\nsymbolfile=t.h\n[objects]\nX_009_NAME=\n[text]\nA_009_NAME=a\n", "#define A 0\n",
         PL_E_PARSE, "t.ini:5: [objects] entry X has no offset in "},
        {"[info]\ndrivername=P\nsymbolfile=t.h\n[text]\nA_012_NAME=a\n", "#define A 0\n", PL_E_PARSE,
         "t.ini: no [text] entry is in a language of the registry store"},
    };
    pl_error err;
    char *before = lc_dump(f->st);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *ini = lc_write_str(f->dir, "t.ini", cases[i].ini);
        char *h = lc_write_str(f->dir, "t.h", cases[i].h);
        char cmd[600];
        snprintf(cmd, sizeof cmd, "lodctr \"%s\"", ini);
        int rc = pl_load_counter_strings(f->st, cmd, &err);
        if (rc != cases[i].status || !strstr(err.msg, cases[i].msg)) fprintf(stderr, "case %zu: %d %s\n", i, rc, err.msg);
        assert_int_equal(rc, cases[i].status);
        assert_non_null(strstr(err.msg, cases[i].msg));
        assert_non_null(strstr(err.msg, f->dir)); /* the message names the file with its path */
        char *after = lc_dump(f->st);
        assert_string_equal(before, after);
        free(after);
        free(ini);
        free(h);
    }
    /* an unreadable .ini */
    assert_int_equal(pl_load_counter_strings(f->st, "lodctr /nonexistent/x.ini", &err), PL_E_IO);
    assert_int_equal(pl_load_counter_strings(f->st, "   ", &err), PL_E_INVAL);
    char *after = lc_dump(f->st);
    assert_string_equal(before, after);
    free(after);
    free(before);
}

static void loadperf_entry_points(void **state)
{
    fixture *f = *state;
    pl_error err;
    char *before = lc_dump(f->st);
    int rc = pl_load_counter_strings(f->st, "lodctr \"" LC_REAL "perfgen/Perfgen.Ini\"", &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, PL_OK);
    pl_provider_info p;
    memset(&p, 0, sizeof p);
    assert_int_equal(pl_store_provider(f->st, "perfgen", &p, &err), PL_OK);
    assert_true(p.first_counter > 0);
    pl_provider_info_clear(&p);
    assert_int_equal(pl_unload_counter_strings(f->st, "unlodctr PERFGEN", &err), PL_OK);
    assert_int_equal(pl_unload_counter_strings(f->st, "unlodctr PERFGEN", &err), PL_E_NOT_FOUND);
    char *after = lc_dump(f->st);
    assert_string_equal(before, after);
    free(before);
    free(after);
}

/* Two processes install different providers into one store at once. */
static void two_installers_at_once(void **state)
{
    fixture *f = *state;
    const char *inis[2] = {LC_REAL "trafficserver/TrafficServer.ini", LC_REAL "ese/eseperf.ini"};
    char *path = lc_path(f->dir, "store.db");
    int go[2];
    assert_int_equal(pipe(go), 0);
    pid_t pids[2];
    for (int k = 0; k < 2; k++) {
        pids[k] = fork();
        assert_true(pids[k] >= 0);
        if (pids[k] == 0) {
            close(go[1]);
            char c;
            if (read(go[0], &c, 1) < 0) _exit(10);
            pl_store *st = NULL;
            pl_error err;
            if (pl_store_open(path, 0, &st, &err) != PL_OK) _exit(11);
            pl_lodctr_set *set = NULL;
            if (pl_lodctr_parse(inis[k], &set, &err) != PL_OK) _exit(12);
            int rc = pl_lodctr_install(st, set, NULL, NULL, &err);
            if (rc) fprintf(stderr, "child %d: %s\n", k, err.msg);
            pl_lodctr_free(set);
            pl_store_close(st);
            _exit(rc == PL_OK ? 0 : 13);
        }
    }
    close(go[0]);
    close(go[1]); /* EOF releases both children together */
    for (int k = 0; k < 2; k++) {
        int status = 0;
        assert_int_equal(waitpid(pids[k], &status, 0), pids[k]);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
    free(path);
    pl_provider_info a, b;
    pl_error err;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    assert_int_equal(pl_store_provider(f->st, "TrafficServer", &a, &err), PL_OK);
    assert_int_equal(pl_store_provider(f->st, "ESE", &b, &err), PL_OK);
    assert_int_equal(a.last_counter - a.first_counter, 286);
    assert_int_equal(b.last_counter - b.first_counter, 1838);
    assert_true(a.last_counter < b.first_counter || b.last_counter < a.first_counter);
    assert_true(a.last_help < b.first_help || b.last_help < a.first_help);
    assert_title(f->st, "009", PL_TITLE_NAME, a.first_counter + 2, "# of objects served from cache");
    assert_title(f->st, "009", PL_TITLE_NAME, b.first_counter, "MSExchange Database");
    pl_perflib_info pi;
    assert_int_equal(pl_store_perflib(f->st, &pi, &err), PL_OK);
    assert_int_equal(pi.last_counter, a.last_counter > b.last_counter ? a.last_counter : b.last_counter);
    pl_provider_info_clear(&a);
    pl_provider_info_clear(&b);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(install_perfgen, setup, teardown),
        cmocka_unit_test_setup_teardown(install_pywin32, setup, teardown),
        cmocka_unit_test_setup_teardown(install_ntrace, setup, teardown),
        cmocka_unit_test_setup_teardown(install_msdocs, setup, teardown),
        cmocka_unit_test_setup_teardown(install_msdocs_old, setup, teardown),
        cmocka_unit_test_setup_teardown(install_wix_symfile, setup, teardown),
        cmocka_unit_test_setup_teardown(install_wix_perfcategory, setup, teardown),
        cmocka_unit_test_setup_teardown(install_ese, setup, teardown),
        cmocka_unit_test_setup_teardown(install_trafficserver, setup, teardown),
        cmocka_unit_test_setup_teardown(ese_details, setup, teardown),
        cmocka_unit_test_setup_teardown(undeclared_languages, setup, teardown),
        cmocka_unit_test_setup_teardown(both_languages_and_fallback, setup, teardown),
        cmocka_unit_test_setup_teardown(overrides_and_keep_record, setup, teardown),
        cmocka_unit_test_setup_teardown(refusals_leave_store_unchanged, setup, teardown),
        cmocka_unit_test_setup_teardown(loadperf_entry_points, setup, teardown),
        cmocka_unit_test_setup_teardown(two_installers_at_once, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
