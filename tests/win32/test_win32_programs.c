/* The two ported Windows programs (showtitl.c, perfenum.c), built only
 * against include/win32, run against the deterministic store (golden
 * output; PL_UPDATE_GOLDEN=1 rewrites tests/win32/golden/) and once live on
 * this machine with the built-in providers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_test.h"
#include "pq_run.h"
#include "w32_util.h"

#define GOLDEN_DIR PL_SOURCE_DIR "/tests/win32/golden/"

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

static void golden(const char *name, const char *const *argv)
{
    const char *env[] = {fx.env_store, NULL};
    pq_result r;
    assert_int_equal(pq_run(argv, env, &r), 0);
    char *raw = pq_result_transcript(&r);
    assert_non_null(raw);
    /* The provider's indices depend on where the store puts new providers;
     * the golden files name them relative to its First Counter/Help. */
    char *t = w32_symbolic_indices(raw, g_fc, g_fh, 18);
    free(raw);
    assert_non_null(t);
    char path[512];
    snprintf(path, sizeof path, GOLDEN_DIR "%s.out", name);
    int rc = pq_golden(path, t);
    free(t);
    pq_result_free(&r);
    assert_int_equal(rc, 0);
}

static void showtitl_canned(void **state)
{
    (void)state;
    const char *argv[] = {SHOWTITL_BIN, NULL};
    golden("showtitl", argv);
}

static void showtitl_unknown_language(void **state)
{
    (void)state;
    const char *argv[] = {SHOWTITL_BIN, "00C", NULL};
    golden("showtitl_00C", argv);
}

static void perfenum_canned(void **state)
{
    (void)state;
    const char *argv[] = {PERFENUM_BIN, NULL};
    golden("perfenum", argv);
}

static void perfenum_unknown_query(void **state)
{
    (void)state;
    const char *argv[] = {PERFENUM_BIN, "System", NULL};
    golden("perfenum_unknown", argv);
}

/* Live: a fresh default store in a temp dir, the built-in providers. */
static void run_live(const char *const *argv, pq_result *r, char **dir)
{
    *dir = pq_mkdtemp();
    assert_non_null(*dir);
    char store[4300], provdir[4300];
    snprintf(store, sizeof store, "PERFLIB_REGISTRY=%s/live.db", *dir);
    snprintf(provdir, sizeof provdir, "PERFLIB_PROVIDER_DIR=%s", W32_PROVIDER_DIR);
    const char *env[] = {store, provdir, NULL};
    assert_int_equal(pq_run(argv, env, r), 0);
}

static void showtitl_live(void **state)
{
    (void)state;
    const char *argv[] = {SHOWTITL_BIN, NULL};
    pq_result r;
    char *dir;
    run_live(argv, &r, &dir);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "");
    assert_true(strncmp(r.out, "1 1847\n2 System\n4 Memory\n6 % Processor Time\n", 44) == 0);
    assert_non_null(strstr(r.out, "\n238 Processor\n"));
    assert_non_null(strstr(r.out, "\n674 System Up Time\n"));
    assert_non_null(strstr(r.out, "\n1846 End Marker\n"));
    assert_non_null(strstr(r.out, "\n1847 End Marker\n"));
    pq_result_free(&r);
    pq_rmdir(dir);
    free(dir);
}

static void perfenum_live(void **state)
{
    (void)state;
    const char *argv[] = {PERFENUM_BIN, NULL};
    pq_result r;
    char *dir;
    run_live(argv, &r, &dir);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.err, "");
    assert_non_null(strstr(r.out, "default object 238 (Processor)"));
    assert_non_null(strstr(r.out, "\nObject 2 System ("));
    assert_non_null(strstr(r.out, "\nObject 4 Memory ("));
    assert_non_null(strstr(r.out, "\nObject 238 Processor ("));
    assert_non_null(strstr(r.out, "  Instance \"_Total\"\n    % Processor Time = "));
    assert_non_null(strstr(r.out, "\n  System Up Time = "));
    pq_result_free(&r);
    pq_rmdir(dir);
    free(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(showtitl_canned, setup, teardown),
        cmocka_unit_test_setup_teardown(showtitl_unknown_language, setup, teardown),
        cmocka_unit_test_setup_teardown(perfenum_canned, setup, teardown),
        cmocka_unit_test_setup_teardown(perfenum_unknown_query, setup, teardown),
        cmocka_unit_test_setup_teardown(showtitl_live, setup, teardown),
        cmocka_unit_test_setup_teardown(perfenum_live, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
