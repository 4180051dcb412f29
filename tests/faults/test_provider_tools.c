/* Providers that fail at the edges, seen from the real tools (issue 26,
 * findings 4 and 5): an in-process provider that calls exit(0) inside
 * Collect makes perfquery and perfd end with PL_EXIT_PROVIDER_EXITED and
 * say why, not 0 with nothing said; one that crashes in Close keeps the
 * output perfquery printed before it, and is disabled by the second
 * consumer in a row it takes down. The misbehaving providers are
 * tests/host/test_provider.c's; the store is real, in a temporary
 * directory, with the built-in providers disabled. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pd_util.h"
#include "perflib/query.h"
#include "perflib/registry.h"
#include "pl_test.h"
#include "pl_test_engine.h"
#include "run_tool.h"

static char dir[256], store[300];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/pl-provtools-XXXXXX");
    if (!mkdtemp(dir)) return -1;
    snprintf(store, sizeof store, "%s/perflib.db", dir);
    setenv("PERFLIB_PROVIDER_DIR", TP_DIR, 1);
    setenv("PERFLIB_REGISTRY", store, 1);
    setenv("TP_TRACE", dir, 1);
    pl_store *st;
    pl_error err;
    if (pl_store_open(store, 0, &st, &err) != PL_OK) return -1;
    pl_provider_info *list;
    size_t n;
    if (pl_store_providers(st, &list, &n, &err) != PL_OK) return -1;
    for (size_t i = 0; i < n; i++) pl_store_disable_provider(st, list[i].name, "not under test", &err);
    pl_provider_list_free(list, n);
    pl_store_close(st);
    alarm(100);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void add(const char *name, const char *mode) { pl_test_add_tp(store, name, mode, PL_ISOLATION_INPROC, 0, 0); }

static void reason_of(const char *name, char *out, size_t cap)
{
    pl_store *st;
    pl_error err;
    assert_int_equal(pl_store_open(store, PL_STORE_READONLY, &st, &err), PL_OK);
    pl_provider_info p;
    assert_int_equal(pl_store_provider(st, name, &p, &err), PL_OK);
    snprintf(out, cap, "%s", p.disabled && p.disable_reason ? p.disable_reason : "");
    pl_provider_info_clear(&p);
    pl_store_close(st);
}

static const char *const PERFQUERY_SUMMARY[] = {PERFQUERY_BIN, "--summary", NULL};

/* perfquery: exit 70 and the reason on stderr (it exited 0 with an empty
 * output); the next run works without the provider. */
static void perfquery_provider_exit0(void **s)
{
    (void)s;
    add("Good", "good");
    add("Bad", "exit0");
    tool_run r;
    run_tool(dir, store, PERFQUERY_SUMMARY, OUT_FILE, -1, &r);
    if (r.code != PL_EXIT_PROVIDER_EXITED) fprintf(stderr, "exit %d: %s\n", r.code, r.err);
    assert_int_equal(r.code, PL_EXIT_PROVIDER_EXITED);
    assert_non_null(strstr(r.err, "perflib: provider Bad called exit(0) inside its in-process Collect; it is disabled"));
    char why[300];
    reason_of("Bad", why, sizeof why);
    assert_string_equal(why, "called exit(0) inside its in-process Collect");
    run_tool(dir, store, PERFQUERY_SUMMARY, OUT_FILE, -1, &r);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "Objects: 1"));
}

/* perfd: ends with 70 and says why in its log, so a service manager
 * restarts it (it ended with 0 and logged nothing). */
static void perfd_provider_exit0(void **s)
{
    (void)s;
    add("Good", "good");
    add("Bad", "exit0");
    pd_proc p;
    const char *args[] = {"--registry", store, NULL};
    assert_int_equal(pd_start(&p, args, NULL), 0);
    pd_resp r;
    (void)pd_get(p.port, "/metrics", "", &r, 10000); /* the collection that ends it */
    pd_resp_free(&r);
    int ws = 0;
    pid_t got = 0;
    for (int i = 0; i < 200 && got == 0; i++) {
        got = waitpid(p.pid, &ws, WNOHANG);
        if (!got) usleep(50000);
    }
    assert_int_equal(got, p.pid);
    char *log = pd_log(&p);
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != PL_EXIT_PROVIDER_EXITED) fprintf(stderr, "perfd log:\n%s\n", log);
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), PL_EXIT_PROVIDER_EXITED);
    assert_non_null(strstr(log, "perflib: provider Bad called exit(0) inside its in-process Collect"));
    free(log);
    p.pid = 0;
    pd_stop(&p);
}

/* A provider that crashes in Close: the output perfquery printed before
 * is in its file (it was lost with the buffer); the second run in a row
 * that dies disables it; the third exits 0. */
static void perfquery_output_survives_a_crash_in_close(void **s)
{
    (void)s;
    add("Good", "good");
    add("Bad", "crash_close");
    tool_run r;
    for (int i = 0; i < 2; i++) {
        run_tool(dir, store, PERFQUERY_SUMMARY, OUT_FILE, -1, &r);
        assert_int_equal(r.code, 128 + SIGSEGV);
        assert_non_null(strstr(r.out, "Objects: 2"));
    }
    run_tool(dir, store, PERFQUERY_SUMMARY, OUT_FILE, -1, &r);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "Objects: 1"));
    char why[300];
    reason_of("Bad", why, sizeof why);
    assert_non_null(strstr(why, "ended during its in-process Close (2 failures in a row)"));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(perfquery_provider_exit0, setup, teardown),
        cmocka_unit_test_setup_teardown(perfd_provider_exit0, setup, teardown),
        cmocka_unit_test_setup_teardown(perfquery_output_survives_a_crash_in_close, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
