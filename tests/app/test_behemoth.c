/* examples/behemoth end to end, with the built programs: the service from
 * the build tree with a fresh store, typeperf -qx / -q, perfquery --get,
 * the manager (talks to the service) and the client (reads through PDH);
 * kill -9 and SIGTERM make the animals disappear. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pl_test.h"
#include "pq_run.h"

static char *dir;
static char env_store[600], env_dir[600], sock[600];
static const char *envs[3];

static void setup(void)
{
    dir = pq_mkdtemp();
    assert_non_null(dir);
    snprintf(env_store, sizeof env_store, "PERFLIB_REGISTRY=%s/store.db", dir);
    snprintf(env_dir, sizeof env_dir, "PERFLIB_APP_DIR=%s", dir);
    snprintf(sock, sizeof sock, "%s/manager.sock", dir);
    envs[0] = env_store;
    envs[1] = env_dir;
    envs[2] = NULL;
}

static pid_t start_service(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        putenv(env_store);
        putenv(env_dir);
        execl(BEHEMOTH_BIN, "behemoth", "--socket", sock, "--tick", "100", "--quiet", (char *)NULL);
        _exit(127);
    }
    return pid;
}

static char *run(const char *const *argv, int *code)
{
    pq_result r;
    assert_int_equal(pq_run(argv, envs, &r), 0);
    char *out = strdup(r.out);
    if (code) *code = r.exit_code;
    pq_result_free(&r);
    return out;
}

static char *typeperf_q(const char *flag, const char *obj)
{
    const char *argv[] = {TYPEPERF_BIN, flag, obj, NULL};
    return run(argv, NULL);
}

/* Wait (bounded: 100 x 100 ms) until typeperf -qx Behemoth lists `want`
 * (present = 1) or no longer lists it (present = 0). */
static int wait_listing(const char *want, int present)
{
    for (int i = 0; i < 100; i++) {
        char *out = typeperf_q("-qx", "Behemoth");
        int has = strstr(out, want) != NULL;
        free(out);
        if (has == present) return 1;
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

static void test_behemoth_end_to_end(void **state)
{
    (void)state;
    setup();
    pid_t pid = start_service();
    assert_true(wait_listing("\\Behemoth(Gloria/Hugo)\\Weight", 1));
    char *out = typeperf_q("-qx", "Behemoth");
    static const char *const want[] = {"\\Behemoth(Gloria)\\Sex",     "\\Behemoth(Moto)\\Age",
                                       "\\Behemoth(Marta/Pip)\\X",    "\\Behemoth(Gloria/Lulu)\\Y",
                                       "\\Behemoth(Marta/Pip)\\Weight", "\\Behemoth(Gloria/Hugo)\\Volume",
                                       "\\Behemoth(Marta)\\Birthday"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(out, want[i])) fail_msg("typeperf -qx Behemoth lacks %s:\n%s", want[i], out);
    free(out);
    out = typeperf_q("-q", "Behemoths Summary");
    assert_non_null(strstr(out, "\\Behemoths Summary\\Count"));
    assert_non_null(strstr(out, "\\Behemoths Summary\\Total Weight"));
    free(out);

    /* perfquery reads one value like any other counter. */
    const char *pq[] = {PERFQUERY_BIN, "--get", "Behemoths Summary", "-", "Count", NULL};
    int code;
    out = run(pq, &code);
    assert_int_equal(code, 0);
    assert_true(atoi(out) >= 6);
    free(out);

    /* The manager talks to the service; the change shows in the counters. */
    const char *list[] = {MANAGER_BIN, "--socket", sock, "list", NULL};
    out = run(list, &code);
    assert_int_equal(code, 0);
    assert_non_null(strstr(out, "Hugo male"));
    assert_non_null(strstr(out, " Gloria\n"));
    free(out);
    const char *birth[] = {MANAGER_BIN, "--socket", sock, "birth", "Baby", "Lulu", NULL};
    out = run(birth, &code);
    assert_int_equal(code, 0);
    free(out);
    assert_true(wait_listing("\\Behemoth(Lulu/Baby)\\Weight", 1));
    const char *bad[] = {MANAGER_BIN, "--socket", sock, "birth", "Calf", "Moto", NULL};
    out = run(bad, &code);
    assert_int_equal(code, 1); /* Moto is male */
    free(out);
    const char *kill_[] = {MANAGER_BIN, "--socket", sock, "kill", "Baby", NULL};
    out = run(kill_, &code);
    assert_int_equal(code, 0);
    free(out);
    assert_true(wait_listing("(Lulu/Baby)", 0));

    /* The client shows the herd through PDH, mothers first. */
    const char *client[] = {CLIENT_BIN, NULL};
    out = run(client, &code);
    assert_int_equal(code, 0);
    assert_non_null(strstr(out, "Gloria/Hugo\\Weight"));
    assert_non_null(strstr(out, "Total Weight"));
    free(out);

    /* kill -9: gone from the next listing. */
    kill(pid, SIGKILL);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    out = typeperf_q("-qx", "Behemoth");
    assert_null(strstr(out, "Gloria"));
    free(out);

    /* Started again: the same store keeps its indices; SIGTERM ends it
     * cleanly and takes the animals away. */
    pid = start_service();
    assert_true(wait_listing("\\Behemoth(Gloria/Hugo)\\Weight", 1));
    kill(pid, SIGTERM);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    out = typeperf_q("-qx", "Behemoth");
    assert_null(strstr(out, "Gloria"));
    free(out);
    pq_rmdir(dir);
    free(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_behemoth_end_to_end)};
    return pl_test_run(tests, argc, argv);
}
