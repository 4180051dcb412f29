/* Providers that fail in the ways that hurt consumers (issue 12): hangs that
 * one-shot consumers must not pay for ever, in-process providers that crash
 * or hang the consumer, helpers that fork and crash, leak memory, burn CPU,
 * leak descriptors or print. Real test providers (tests/host/test_provider.c),
 * a real store in a temporary directory, real helper processes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perflib/block.h"
#include "perflib/query.h"
#include "perflib/registry.h"
#include "pl_test.h"

static char dir[256], store[300];

/* A fresh store with the built-in providers disabled: only the test
 * providers each case registers answer. */
static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/pl-faults-XXXXXX");
    if (!mkdtemp(dir)) return -1;
    snprintf(store, sizeof store, "%s/perflib.db", dir);
    setenv("TP_TRACE", dir, 1);
    unsetenv("PERFLIB_PROVIDER_HOST");
    unsetenv("PERFLIB_HELPER_MEMORY_MB");
    unsetenv("PERFLIB_HELPER_FILES");
    unsetenv("PERFLIB_HELPER_CPU_SECONDS");
    pl_store *st;
    pl_error err;
    if (pl_store_open(store, 0, &st, &err) != PL_OK) {
        fprintf(stderr, "store: %s\n", err.msg);
        return -1;
    }
    pl_provider_info *list;
    size_t n;
    if (pl_store_providers(st, &list, &n, &err) != PL_OK) return -1;
    for (size_t i = 0; i < n; i++) pl_store_disable_provider(st, list[i].name, "not under test", &err);
    pl_provider_list_free(list, n);
    pl_store_close(st);
    alarm(100); /* a hang fails the case instead of waiting for ctest */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void add(const char *name, const char *mode, int isolation, uint32_t open_ms, uint32_t collect_ms)
{
    char lib[128];
    snprintf(lib, sizeof lib, "libtp_%s.so", mode);
    pl_provider_info p;
    memset(&p, 0, sizeof p);
    p.name = (char *)name;
    p.library = lib;
    p.open = "TpOpen";
    p.collect = "TpCollect";
    p.close = "TpClose";
    p.isolation = isolation;
    p.open_timeout_ms = open_ms;
    p.collect_timeout_ms = collect_ms;
    pl_store *st;
    pl_error err;
    assert_int_equal(pl_store_open(store, 0, &st, &err), PL_OK);
    int rc = pl_store_set_provider(st, &p, &err);
    if (rc != PL_OK) fprintf(stderr, "set_provider: %s\n", err.msg);
    assert_int_equal(rc, PL_OK);
    pl_store_close(st);
}

/* How many lines of $TP_TRACE/<mode>.trace start with `what`; the argument
 * of the last one in `last`. */
static int traced(const char *mode, const char *what, char *last, size_t lastcap)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s.trace", dir, mode);
    if (last && lastcap) last[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[512];
    int n = 0;
    size_t wl = strlen(what);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, what, wl) != 0 || (line[wl] != ' ' && line[wl] != '\n')) continue;
        n++;
        if (last && lastcap) {
            snprintf(last, lastcap, "%s", line[wl] == ' ' ? line + wl + 1 : "");
            char *nl = strchr(last, '\n');
            if (nl) *nl = '\0';
        }
    }
    fclose(f);
    return n;
}

static int64_t ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static pl_engine *engine(void)
{
    pl_engine_config cfg = {.store_path = store, .provider_dir = TP_DIR, .system_name = "TESTBOX"};
    pl_engine *e = NULL;
    pl_error err;
    int rc = pl_engine_open(&cfg, &e, &err);
    if (rc != PL_OK) fprintf(stderr, "engine: %s\n", err.msg);
    assert_int_equal(rc, PL_OK);
    return e;
}

/* One Global query; returns its objects and (when not NULL) the time taken. */
static uint32_t query_objects(pl_engine *e, int64_t *ms)
{
    void *data = NULL;
    size_t len = 0;
    uint32_t type = 0;
    pl_error err;
    int64_t t0 = ms_now();
    int rc = pl_engine_query_alloc(e, "Global", &data, &len, &type, &err);
    if (ms) *ms = ms_now() - t0;
    if (rc != PL_OK) fprintf(stderr, "query: %s\n", err.msg);
    assert_int_equal(rc, PL_OK);
    pl_block blk;
    assert_int_equal(pl_block_open(&blk, data, len, 0, 0, &err), PL_OK);
    uint32_t n = blk.hdr.NumObjectTypes;
    free(data);
    return n;
}

static pl_provider_status status_of(pl_engine *e, const char *name)
{
    pl_provider_status *st;
    size_t n;
    assert_int_equal(pl_engine_provider_status(e, &st, &n), PL_OK);
    pl_provider_status r;
    memset(&r, 0, sizeof r);
    for (size_t i = 0; i < n; i++)
        if (strcmp(st[i].name, name) == 0) r = st[i];
    pl_free(st);
    return r;
}

/* The store record's disable reason ("" when enabled). */
static void store_reason(const char *name, char *out, size_t cap)
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

static void assert_store_reason(const char *name, const char *want)
{
    char got[300];
    store_reason(name, got, sizeof got);
    if (strcmp(got, want) != 0) fprintf(stderr, "reason: '%s'\nwanted: '%s'\n", got, want);
    assert_string_equal(got, want);
}

/* ---------------------------------------------- 1. one-shot consumers */

/* A hanging isolated provider, each query made by a new engine (perfquery,
 * typeperf started once a minute): the timeouts add up across processes and
 * the third disables it; the fourth consumer does not wait at all. */
static void hang_counted_across(const char *mode, const char *call)
{
    add("Good", "good", PL_ISOLATION_INPROC, 0, 0);
    add("Bad", mode, PL_ISOLATION_HELPER, 200, 200);
    for (int i = 1; i <= 3; i++) {
        pl_engine *e = engine();
        int64_t ms;
        assert_int_equal(query_objects(e, &ms), 1);
        assert_true(ms >= 200);
        pl_engine_close(e);
    }
    char want[200];
    snprintf(want, sizeof want, "%s timed out after 200 ms (3 times in a row)", call);
    assert_store_reason("Bad", want);
    pl_engine *e = engine();
    int64_t ms;
    assert_int_equal(query_objects(e, &ms), 1);
    assert_true(ms < 200);
    pl_engine_close(e);
    assert_int_equal(traced(mode, "open", NULL, 0), 3);
}

static void hang_disables_one_shot_consumers(void **s)
{
    (void)s;
    hang_counted_across("hang", "Collect");
}

static void hang_open_disables_one_shot_consumers(void **s)
{
    (void)s;
    hang_counted_across("hang_open", "Open");
}

/* A success in between starts the count again (the state is cleared). */
static void timeouts_reset_by_an_answer(void **s)
{
    (void)s;
    add("Slow", "slow_once", PL_ISOLATION_HELPER, 0, 200);
    pl_engine *e = engine();
    assert_int_equal(query_objects(e, NULL), 0); /* timed out once */
    pl_engine_close(e);
    e = engine();
    assert_int_equal(query_objects(e, NULL), 1); /* answers now */
    pl_engine_close(e);
    char path[600];
    snprintf(path, sizeof path, "%s.state", store);
    DIR *d = opendir(path);
    assert_non_null(d); /* the state lives next to the store for its writers */
    struct dirent *de;
    int files = 0;
    while ((de = readdir(d)))
        if (strstr(de->d_name, ".state")) {
            char f[1200], text[1100];
            snprintf(f, sizeof f, "%s/%s", path, de->d_name);
            FILE *fp = fopen(f, "r");
            assert_non_null(fp);
            size_t n = fread(text, 1, sizeof text - 1, fp);
            fclose(fp);
            text[n] = '\0';
            assert_non_null(strstr(text, "timeouts 0\n"));
            files++;
        }
    closedir(d);
    assert_int_equal(files, 1);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0755);
}

/* A consumer that may not write the store (an ordinary user on root's
 * store) keeps the count, and then the disable, in its own state directory,
 * so its next consumers skip the provider too. Needs root to become
 * another user. */
static void readonly_consumer_keeps_its_own_state(void **s)
{
    (void)s;
    if (geteuid() != 0) fail_msg("this case must run as root: it runs a consumer as the user nobody (65534)");
    add("Good", "good", PL_ISOLATION_INPROC, 0, 0);
    add("Bad", "hang", PL_ISOLATION_HELPER, 200, 200);
    char run[400];
    snprintf(run, sizeof run, "%s/run", dir);
    assert_int_equal(mkdir(run, 0700), 0);
    assert_int_equal(chown(run, 65534, 65534), 0);
    assert_int_equal(chmod(dir, 0777), 0); /* the providers' traces */
    assert_int_equal(chmod(store, 0644), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0) _exit(10);
        setenv("XDG_RUNTIME_DIR", run, 1);
        int code = 0;
        for (int i = 1; i <= 4 && !code; i++) {
            pl_engine_config cfg = {.store_path = store, .provider_dir = TP_DIR, .system_name = "T"};
            pl_engine *e = NULL;
            pl_error err;
            if (pl_engine_open(&cfg, &e, &err) != PL_OK) _exit(11);
            void *data = NULL;
            size_t len = 0;
            uint32_t type = 0;
            int64_t t0 = ms_now();
            if (pl_engine_query_alloc(e, "Global", &data, &len, &type, &err) != PL_OK) code = 12;
            int64_t ms = ms_now() - t0;
            free(data);
            if (i <= 3 && ms < 200) code = 13;
            if (i == 4 && ms >= 200) code = 14;
            pl_provider_status *st;
            size_t n;
            if (i == 4 && pl_engine_provider_status(e, &st, &n) == PL_OK) {
                for (size_t k = 0; k < n; k++)
                    if (strcmp(st[k].name, "Bad") == 0 &&
                        (!st[k].disabled ||
                         strcmp(st[k].last_error, "disabled: Collect timed out after 200 ms (3 times in a row)")))
                        code = 15;
                pl_free(st);
            }
            pl_engine_close(e);
        }
        _exit(code);
    }
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 0);
    assert_int_equal(chmod(dir, 0700), 0); /* root opens no store in a directory others may write */
    assert_store_reason("Bad", ""); /* root's store untouched */
    char priv[500];
    snprintf(priv, sizeof priv, "%s/perflib", run);
    struct stat sb;
    assert_int_equal(lstat(priv, &sb), 0);
    assert_int_equal(sb.st_uid, 65534);
    assert_int_equal(sb.st_mode & 0777, 0700);
    assert_int_equal(traced("hang", "open", NULL, 0), 3);
}

/* ------------------------------------ 2. in-process: markers, watchdog */

/* A consumer that an in-process provider takes down, twice in a row: the
 * next consumer finds the second marker, disables the provider with the
 * reason, and lives. After the first, the provider is only warned about (a
 * consumer may end inside a Collect for reasons of its own). */
static pid_t consumer_that_dies(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL); /* die as a consumer would, not through cmocka's handler */
        pl_engine_config cfg = {.store_path = store, .provider_dir = TP_DIR, .system_name = "T"};
        pl_engine *e = NULL;
        pl_error err;
        if (pl_engine_open(&cfg, &e, &err) != PL_OK) _exit(11);
        void *data = NULL;
        size_t len = 0;
        uint32_t type = 0;
        pl_engine_query_alloc(e, "Global", &data, &len, &type, &err);
        _exit(0); /* not reached: the provider ends the process */
    }
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_false(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    return pid;
}

static void inproc_kill_then_next_disables(const char *mode, const char *call)
{
    add("Good", "good", PL_ISOLATION_INPROC, 0, 0);
    add("Bad", mode, PL_ISOLATION_INPROC, 0, 0);
    (void)consumer_that_dies();
    pid_t pid = consumer_that_dies(); /* the second consumer still called it: not disabled by one */
    assert_int_equal(traced(mode, strcmp(call, "Open") == 0 ? "open" : "collect", NULL, 0), 2);
    pl_engine *e = engine();
    assert_int_equal(query_objects(e, NULL), 1); /* Good answers; Bad is not called */
    char want[200];
    snprintf(want, sizeof want, "a consumer process (pid %ld) ended during its in-process %s (2 failures in a row)",
             (long)pid, call);
    pl_provider_status ps = status_of(e, "Bad");
    assert_int_equal(ps.disabled, 1);
    pl_engine_close(e);
    assert_store_reason("Bad", want);
    assert_int_equal(traced(mode, strcmp(call, "Open") == 0 ? "open" : "collect", NULL, 0), 2); /* twice: the crashes */
    /* No marker left behind by the engines that closed. */
    char path[600];
    snprintf(path, sizeof path, "%s.state", store);
    DIR *d = opendir(path);
    assert_non_null(d);
    struct dirent *de;
    while ((de = readdir(d))) assert_null(strstr(de->d_name, ".busy"));
    closedir(d);
}

/* A consumer killed from outside during an in-process Collect (Ctrl-C, kill,
 * the OOM killer) leaves the same marker as a crash. One such death only
 * warns: the next consumer calls the provider, which answers, and nothing is
 * disabled (a disable in the store would hold for everyone). */
static void inproc_one_killed_consumer_does_not_disable(void **s)
{
    (void)s;
    add("Slow", "slow_once", PL_ISOLATION_INPROC, 0, 5000);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        pl_engine_config cfg = {.store_path = store, .provider_dir = TP_DIR, .system_name = "T"};
        pl_engine *e = NULL;
        pl_error err;
        if (pl_engine_open(&cfg, &e, &err) != PL_OK) _exit(11);
        void *data = NULL;
        size_t len = 0;
        pl_engine_query_alloc(e, "Global", &data, &len, NULL, &err); /* sleeps 2 s inside Collect */
        _exit(0);
    }
    /* slow_once makes its mark in $TP_TRACE as it starts to sleep inside Collect */
    char slow[400];
    snprintf(slow, sizeof slow, "%s/slow_once.slow", dir);
    if (pl_wait_file(slow, 20000) != 0) fail_msg("the consumer never got inside Collect (no %s)", slow);
    kill(pid, SIGKILL);
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFSIGNALED(ws));
    pl_engine *e = engine();
    assert_int_equal(query_objects(e, NULL), 1); /* called again, and it answers */
    assert_int_equal(status_of(e, "Slow").disabled, 0);
    pl_engine_close(e);
    assert_store_reason("Slow", "");
}

static void inproc_crash_next_consumer_disables(void **s)
{
    (void)s;
    inproc_kill_then_next_disables("crash", "Collect");
}

static void inproc_exit_next_consumer_disables(void **s)
{
    (void)s;
    inproc_kill_then_next_disables("exit", "Collect");
}

static void inproc_crash_in_open_next_consumer_disables(void **s)
{
    (void)s;
    inproc_kill_then_next_disables("crash_open", "Open");
}

/* The same provider isolated: only its helper dies. */
static void iso_crash_in_open(void **s)
{
    (void)s;
    add("Good", "good", PL_ISOLATION_INPROC, 0, 0);
    add("Bad", "crash_open", PL_ISOLATION_HELPER, 0, 0);
    pl_engine *e = engine();
    int64_t ms;
    assert_int_equal(query_objects(e, &ms), 1);
    assert_true(ms < 2000);
    pl_engine_close(e);
    assert_store_reason("Bad", "helper process killed by signal 11 (SIGSEGV) during Open");
}

/* An in-process Collect (or Open) that never returns: the query answers with
 * the other providers after the timeout, the provider is disabled, and the
 * engine still closes. */
static void inproc_hang_watchdog(const char *mode, const char *call)
{
    add("Good", "good", PL_ISOLATION_INPROC, 0, 0);
    add("Bad", mode, PL_ISOLATION_INPROC, 300, 300);
    pl_engine *e = engine();
    int64_t ms;
    assert_int_equal(query_objects(e, &ms), 1);
    assert_true(ms >= 300);
    assert_true(ms < 3000);
    char want[200];
    snprintf(want, sizeof want, "%s did not return within 300 ms (in-process: the call was abandoned)", call);
    assert_store_reason("Bad", want);
    assert_int_equal(query_objects(e, &ms), 1);
    assert_true(ms < 300);
    pl_engine_close(e);
}

static void inproc_hang_collect_watchdog(void **s)
{
    (void)s;
    inproc_hang_watchdog("hang", "Collect");
}

static void inproc_hang_open_watchdog(void **s)
{
    (void)s;
    inproc_hang_watchdog("hang_open", "Open");
}

/* A Collect that loops on the CPU is a hang like any other. */
static void inproc_spin_watchdog(void **s)
{
    (void)s;
    inproc_hang_watchdog("spin", "Collect");
}

/* ------------------------------------------------ 3-5. helper processes */

/* 'Z' or gone: the process no longer runs. */
static int process_ended(long pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *rp = strrchr(buf, ')');
    return !rp || rp[2] == 'Z' || rp[2] == 'X';
}

/* The provider forks a child that keeps the helper's socket, then crashes:
 * seen at once as a crash (not a timeout), and the child is killed. */
static void iso_fork_then_crash(void **s)
{
    (void)s;
    add("Good", "good", PL_ISOLATION_INPROC, 0, 0);
    add("Bad", "fork_crash", PL_ISOLATION_HELPER, 0, 4000);
    pl_engine *e = engine();
    int64_t ms;
    assert_int_equal(query_objects(e, &ms), 1);
    assert_true(ms < 2000);
    assert_store_reason("Bad", "helper process killed by signal 11 (SIGSEGV) during Collect");
    char child[32];
    assert_int_equal(traced("fork_crash", "child", child, sizeof child), 1);
    long cpid = strtol(child, NULL, 10);
    assert_true(cpid > 0);
    int ended = 0;
    for (int i = 0; i < 200 && !ended; i++) { /* at most 2 s */
        ended = process_ended(cpid);
        if (!ended) usleep(10000);
    }
    assert_true(ended);
    pl_engine_close(e);
}

/* What a helper prints goes nowhere near the consumer's stdout/stderr. */
static void iso_prints_go_to_dev_null(void **s)
{
    (void)s;
    add("Printer", "print", PL_ISOLATION_HELPER, 0, 0);
    char out[400];
    snprintf(out, sizeof out, "%s/out.txt", dir);
    fflush(stdout);
    fflush(stderr);
    int saved1 = dup(1), saved2 = dup(2);
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0 && saved1 >= 0 && saved2 >= 0);
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
    pl_engine *e = engine();
    uint32_t n = query_objects(e, NULL);
    pl_engine_close(e);
    dup2(saved1, 1);
    dup2(saved2, 2);
    close(saved1);
    close(saved2);
    assert_int_equal(n, 1);
    assert_int_equal(traced("print", "collect", NULL, 0), 1);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    char buf[4096];
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    assert_null(strstr(buf, "TP-PRINT"));
}

/* Query until the provider is disabled (at most `max` queries). */
static int queries_until_disabled(const char *name, int max)
{
    pl_engine *e = engine();
    int i;
    for (i = 1; i <= max; i++) {
        query_objects(e, NULL);
        if (status_of(e, name).disabled) break;
    }
    pl_engine_close(e);
    return i;
}

static void iso_memory_limit(void **s)
{
    (void)s;
    setenv("PERFLIB_HELPER_MEMORY_MB", "200", 1);
    add("Leak", "leak", PL_ISOLATION_HELPER, 0, 0);
    assert_true(queries_until_disabled("Leak", 8) <= 8);
    assert_store_reason("Leak", "helper process went above its memory limit of 200 MiB during Collect");
}

static void iso_cpu_limit(void **s)
{
    (void)s;
    setenv("PERFLIB_HELPER_CPU_SECONDS", "1", 1);
    setenv("TP_SPIN_THREADS", "3", 1); /* the helper burns 4 threads' worth: CPU time outruns the wall clock */
    add("Spin", "spin", PL_ISOLATION_HELPER, 0, 60000);
    pl_engine *e = engine();
    int64_t ms;
    assert_int_equal(query_objects(e, &ms), 0);
    unsetenv("TP_SPIN_THREADS");
    assert_true(ms < 60000); /* ended by the CPU limit, not the (long) timeout */
    pl_engine_close(e);
    assert_store_reason("Spin", "helper process used more than its limit of 1 s of CPU time during Collect");
}

static void iso_file_limit(void **s)
{
    (void)s;
    setenv("PERFLIB_HELPER_FILES", "64", 1);
    add("FdLeak", "fd_leak", PL_ISOLATION_HELPER, 0, 0);
    assert_true(queries_until_disabled("FdLeak", 4) <= 4);
    assert_store_reason("FdLeak", "helper process used all the 64 open files it may have during Collect");
}

/* The limits as the kernel shows them for a running helper. */
static void iso_helper_limits_applied(void **s)
{
    (void)s;
    add("Good", "good", PL_ISOLATION_HELPER, 0, 0);
    pl_engine *e = engine();
    assert_int_equal(query_objects(e, NULL), 1);
    pl_provider_status ps = status_of(e, "Good");
    assert_true(ps.helper_pid > 0);
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", ps.helper_pid);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int nnp = 0;
    while (fgets(line, sizeof line, f))
        if (strcmp(line, "NoNewPrivs:\t1\n") == 0) nnp = 1;
    fclose(f);
    assert_true(nnp);
    snprintf(path, sizeof path, "/proc/%d/limits", ps.helper_pid);
    f = fopen(path, "r");
    assert_non_null(f);
    int files = 0, core = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long soft, hard;
        if (sscanf(line, "Max open files %lu %lu", &soft, &hard) == 2 && soft == 256 && hard == 256) files = 1;
        if (sscanf(line, "Max core file size %lu %lu", &soft, &hard) == 2 && soft == 0) core = 1;
    }
    fclose(f);
    assert_true(files);
    assert_true(core);
    /* its own process group */
    assert_int_equal(getpgid(ps.helper_pid), ps.helper_pid);
    pl_engine_close(e);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(hang_disables_one_shot_consumers, setup, teardown),
        cmocka_unit_test_setup_teardown(hang_open_disables_one_shot_consumers, setup, teardown),
        cmocka_unit_test_setup_teardown(timeouts_reset_by_an_answer, setup, teardown),
        cmocka_unit_test_setup_teardown(readonly_consumer_keeps_its_own_state, setup, teardown),
        cmocka_unit_test_setup_teardown(inproc_one_killed_consumer_does_not_disable, setup, teardown),
        cmocka_unit_test_setup_teardown(inproc_crash_next_consumer_disables, setup, teardown),
        cmocka_unit_test_setup_teardown(inproc_exit_next_consumer_disables, setup, teardown),
        cmocka_unit_test_setup_teardown(inproc_crash_in_open_next_consumer_disables, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_crash_in_open, setup, teardown),
        cmocka_unit_test_setup_teardown(inproc_spin_watchdog, setup, teardown),
        cmocka_unit_test_setup_teardown(inproc_hang_collect_watchdog, setup, teardown),
        cmocka_unit_test_setup_teardown(inproc_hang_open_watchdog, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_fork_then_crash, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_prints_go_to_dev_null, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_memory_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_cpu_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_file_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_helper_limits_applied, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
