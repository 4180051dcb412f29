/* pview tests: the model (rates, identity, unavailable values) on canned
 * snapshots, and the real program driven in tmux: a golden screen of a
 * canned replay with a fixed clock, and the live flow (filter, threads,
 * priority, end process, sort, resize, quit) on a process the test starts. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pl_test.h"

#include "perflib/log.h"
#include "perflib/registry.h"
#include "pv_canned.h"
#include "pview.h"

/* ------------------------------------------------------------- model */

static void update(pv_model *m, int k)
{
    void *b;
    size_t len;
    assert_int_equal(pv_canned(k, &b, &len), 0);
    pl_error err = {0};
    assert_int_equal(pv_model_update(m, b, len, &err), PL_OK);
    free(b);
}

static const pv_proc *find(const pv_model *m, uint32_t pid, const char *name)
{
    for (size_t i = 0; i < m->nprocs; i++)
        if (m->procs[i].pid == pid && strcmp(m->procs[i].name, name) == 0) return &m->procs[i];
    return NULL;
}

static void model_first_sample_has_no_rates(void **state)
{
    (void)state;
    pv_model m;
    pv_model_init(&m);
    update(&m, 0);
    const pv_proc *p = find(&m, 1, "init");
    assert_non_null(p);
    assert_true(isnan(p->cpu) && isnan(p->faults) && isnan(p->io));
    assert_true(p->ws == 1048576.0);
    assert_true(fabs(p->elapsed - (134117966450000000.0 - 133000000010000000.0) / 1e7) < 1e-6);
    assert_string_equal(m.machine, "CANNED");
    pv_model_free(&m);
}

static void model_rates_by_pdh_formulas(void **state)
{
    (void)state;
    pv_model m;
    pv_model_init(&m);
    update(&m, 0);
    update(&m, 1);
    const pv_proc *p = find(&m, 1, "init");
    assert_non_null(p);
    assert_true(fabs(p->cpu - 25.0) < 1e-9);
    assert_true(fabs(p->user - 10.0) < 1e-9);
    assert_true(fabs(p->priv - 15.0) < 1e-9);
    assert_true(fabs(p->faults - 100.0) < 1e-9);
    assert_true(fabs(p->io - 4096.0) < 1e-9);
    p = find(&m, 300, "worker");
    assert_true(fabs(p->cpu - 150.0) < 1e-9); /* not capped at 100 */
    assert_true(p->nice == -5.0 && p->prio == 13.0);
    /* threads of worker 300, with their rates */
    int n = 0;
    for (size_t i = 0; i < m.nthreads; i++)
        if (m.threads[i].pid == 300) {
            n++;
            assert_true(fabs(m.threads[i].cpu - 50.0) < 1e-9);
            assert_true(fabs(m.threads[i].cswitch - 10.0 * m.threads[i].tid) < 1e-6);
        }
    assert_int_equal(n, 3);
    pv_model_free(&m);
}

static void model_reused_pid_gives_no_rate(void **state)
{
    (void)state;
    pv_model m;
    pv_model_init(&m);
    update(&m, 0);
    update(&m, 1);
    const pv_proc *p = find(&m, 301, "worker");
    assert_non_null(p);
    assert_true(isnan(p->cpu)); /* same pid, another start time */
    assert_true(isnan(find(&m, 400, "new")->cpu));
    assert_null(find(&m, 250, "gone"));
    update(&m, 2);
    assert_true(fabs(find(&m, 301, "worker")->cpu - 30.0) < 1e-9);
    pv_model_free(&m);
}

static void model_unavailable_is_blank(void **state)
{
    (void)state;
    pv_model m;
    pv_model_init(&m);
    update(&m, 0);
    assert_true(isnan(find(&m, 200, "sshd")->handles));
    assert_true(find(&m, 1, "init")->handles == 11.0);
    const pv_proc *t = find(&m, 0, "_Total");
    assert_non_null(t);
    assert_int_equal(t->special, 2);
    assert_true(isnan(t->handles)); /* a sum with an unreadable part is not a number */
    pv_model_free(&m);
}

static void model_keeps_rows_on_bad_block(void **state)
{
    (void)state;
    pv_model m;
    pv_model_init(&m);
    update(&m, 0);
    size_t n = m.nprocs;
    void *b;
    size_t len;
    assert_int_equal(pv_canned(1, &b, &len), 0);
    ((unsigned char *)b)[len / 2] ^= 0xFF;
    memset(b, 0, 16); /* not a PERF signature */
    pl_error err = {0};
    assert_int_not_equal(pv_model_update(&m, b, len, &err), PL_OK);
    assert_true(err.msg[0] != 0);
    assert_int_equal(m.nprocs, n);
    free(b);
    /* the next good sample still computes against the last good one */
    update(&m, 1);
    assert_true(fabs(find(&m, 1, "init")->cpu - 25.0) < 1e-9);
    pv_model_free(&m);
}

static void sort_and_filter(void **state)
{
    (void)state;
    pv_model m;
    pv_model_init(&m);
    update(&m, 0);
    update(&m, 1);
    pv_proc *v = malloc(m.nprocs * sizeof *v);
    memcpy(v, m.procs, m.nprocs * sizeof *v);
    pv_sort(v, m.nprocs, PC_CPU, 1);
    assert_string_equal(v[0].name, "worker");
    assert_string_equal(v[m.nprocs - 1].name, "_Total");
    assert_true(isnan(v[m.nprocs - 2].cpu)); /* blanks after numbers */
    pv_sort(v, m.nprocs, PC_NAME, 0);
    assert_string_equal(v[0].name, "Idle");
    assert_string_equal(v[m.nprocs - 1].name, "_Total");
    assert_true(pv_name_matches("worker", "ORK"));
    assert_false(pv_name_matches("worker", "x"));
    assert_true(pv_name_matches("worker", ""));
    char buf[32];
    /* always a unit, 1024 steps: a column never mixes bytes with K */
    pv_fmt_bytes(buf, sizeof buf, 3.0 * 1048576);
    assert_string_equal(buf, "3.0M");
    pv_fmt_bytes(buf, sizeof buf, 0);
    assert_string_equal(buf, "0");
    pv_fmt_bytes(buf, sizeof buf, 4096);
    assert_string_equal(buf, "4.0K");
    pv_fmt_bytes(buf, sizeof buf, 98304);
    assert_string_equal(buf, "96K");
    pv_fmt_bytes(buf, sizeof buf, 1.5 * 1073741824.0);
    assert_string_equal(buf, "1.5G");
    pv_fmt_bytes(buf, sizeof buf, 1023.0 * 1048576);
    assert_string_equal(buf, "1.0G");
    pv_fmt_elapsed(buf, sizeof buf, 90061);
    assert_string_equal(buf, "1-01:01");
    free(v);
    pv_model_free(&m);
}

/* ---------------------------------------------------------------- tmux */

typedef struct tm_fx {
    char sock[64];
    char dir[64];
} tm_fx;

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int setup_tmux(void **state)
{
    if (sh("command -v tmux >/dev/null") != 0) {
        fprintf(stderr, "tmux is not installed: run scripts/deps.sh test as root\n");
        return -1;
    }
    tm_fx *f = calloc(1, sizeof *f);
    snprintf(f->sock, sizeof f->sock, "pvtest%d", (int)getpid());
    snprintf(f->dir, sizeof f->dir, "/tmp/pvtestXXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    *state = f;
    return 0;
}

static int teardown_tmux(void **state)
{
    tm_fx *f = *state;
    if (!f) return 0;
    sh("tmux -L %s kill-server >/dev/null 2>&1", f->sock);
    sh("rm -rf %s", f->dir);
    free(f);
    return 0;
}

static void start(tm_fx *f, int w, int h, const char *env, const char *args)
{
    assert_int_equal(sh("tmux -L %s -f /dev/null new-session -d -s pv -x %d -y %d "
                        "'env %s %s %s; echo PVIEW-EXIT=$?; sleep 30' && "
                        "tmux -L %s set-option -t pv status off >/dev/null",
                        f->sock, w, h, env, PVIEW_BIN, args, f->sock),
                     0);
}

/* End the tmux server and wait until it is gone, so that the next start
 * makes a new one (pview's whole environment is the new one's). */
static void end_server(tm_fx *f)
{
    char cmd[256], line[64] = "";
    snprintf(cmd, sizeof cmd, "tmux -L %s display-message -p '#{pid}' 2>/dev/null", f->sock);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    if (!fgets(line, sizeof line, p)) line[0] = '\0';
    pclose(p);
    int pid = atoi(line);
    if (pid <= 0) fail_msg("no tmux server to end (display-message said '%s')", line);
    assert_int_equal(sh("tmux -L %s kill-server >/dev/null 2>&1", f->sock), 0);
    if (pl_wait_exit(pid, 10000) != 0) fail_msg("the tmux server %d is still there 10 s after kill-server", pid);
}

static char *capture(tm_fx *f)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "tmux -L %s capture-pane -p -t pv", f->sock);
    FILE *p = popen(cmd, "r");
    if (!p) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while ((r = fread(buf + n, 1, cap - n - 1, p)) > 0) n += r;
    buf[n] = 0;
    pclose(p);
    return buf;
}

/* Wait (at most ~20 s: a loaded machine) until the screen shows `text`;
 * returns the screen. */
static char *wait_for(tm_fx *f, const char *text)
{
    for (int i = 0; i < 400; i++) {
        char *s = capture(f);
        if (s && strstr(s, text)) return s;
        free(s);
        usleep(50000);
    }
    char *s = capture(f);
    fprintf(stderr, "timed out waiting for \"%s\"; the screen:\n%s\n", text, s ? s : "(none)");
    free(s);
    fail();
    return NULL;
}

/* Wait (at most ~20 s) until the first line (the title, which carries the
 * sample time) differs from `title`: a refresh has happened. */
static char *wait_for_title_change(tm_fx *f, const char *title)
{
    for (int i = 0; i < 400; i++) {
        char *s = capture(f);
        if (s && strncmp(s, title, strlen(title)) != 0) return s;
        free(s);
        usleep(50000);
    }
    fprintf(stderr, "timed out waiting for a refresh after \"%s\"\n", title);
    fail();
    return NULL;
}

static void keys(tm_fx *f, const char *k)
{
    assert_int_equal(sh("tmux -L %s send-keys -t pv %s", f->sock, k), 0);
}

static void write_canned(tm_fx *f, int n, char *args, size_t cap)
{
    size_t off = (size_t)snprintf(args, cap, "-d 0.2 --replay");
    for (int k = 0; k < n; k++) {
        void *b;
        size_t len;
        assert_int_equal(pv_canned(k, &b, &len), 0);
        char path[128];
        snprintf(path, sizeof path, "%s/s%d.blk", f->dir, k);
        FILE *fp = fopen(path, "wb");
        assert_non_null(fp);
        assert_int_equal(fwrite(b, 1, len, fp), len);
        assert_int_equal(fclose(fp), 0);
        free(b);
        off += (size_t)snprintf(args + off, cap - off, " %s", path);
    }
}

static void compare_golden(const char *screen, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/pview/golden/%s", PL_SOURCE_DIR, name);
    if (getenv("PV_UPDATE_GOLDEN")) {
        FILE *fp = fopen(path, "w");
        assert_non_null(fp);
        fputs(screen, fp);
        fclose(fp);
    }
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char want[1 << 16];
    size_t n = fread(want, 1, sizeof want - 1, fp);
    want[n] = 0;
    fclose(fp);
    if (strcmp(want, screen) != 0) fprintf(stderr, "screen differs from %s:\n%s\n", path, screen);
    assert_string_equal(want, screen);
}

static void tmux_golden_replay(void **state)
{
    tm_fx *f = *state;
    char args[1024];
    write_canned(f, 2, args, sizeof args);
    start(f, 80, 24, "TZ=UTC TERM=screen", args);
    char *s = wait_for(f, "[END]");
    compare_golden(s, "replay-80x24.txt");
    free(s);
    /* sort by name and scroll right: another known screen */
    keys(f, "'<'");
    free(wait_for(f, "PIDv"));
    keys(f, "'<' r Right Right");
    s = wait_for(f, "Name^");
    compare_golden(s, "replay-sorted-80x24.txt");
    free(s);
    keys(f, "C-c");
    free(wait_for(f, "PVIEW-EXIT=0")); /* Ctrl-C quits cleanly too */
}

static void tmux_help_and_memory_on_replay(void **state)
{
    tm_fx *f = *state;
    char args[1024];
    write_canned(f, 2, args, sizeof args);
    start(f, 80, 24, "TZ=UTC TERM=linux", args);
    free(wait_for(f, "[END]"));
    keys(f, "h");
    free(wait_for(f, "Press any key to return"));
    keys(f, "x");
    free(wait_for(f, "[END]"));
    /* the recording has no costly snapshot: a clear message, nothing else */
    keys(f, "m");
    free(wait_for(f, "has no Costly snapshot"));
    /* actions on a recording are refused and say why, before asking */
    keys(f, "k");
    char *s = wait_for(f, "local machine only");
    assert_null(strstr(s, "[y/N]"));
    free(s);
    keys(f, "q");
    free(wait_for(f, "PVIEW-EXIT=0"));
}

/* A binary counter log (what typeperf -f BIN writes) of the canned samples
 * with a gap between them: pview replays it one record per refresh, the gap
 * skipped, the rates computed across it. */
static void tmux_log_replay(void **state)
{
    tm_fx *f = *state;
    char store[128], path[128];
    snprintf(store, sizeof store, "%s/perflib.db", f->dir);
    snprintf(path, sizeof path, "%s/t.blg", f->dir);
    pl_store *st = NULL;
    pl_titles *ti = NULL;
    pl_error err = {0};
    assert_int_equal(pl_store_open(store, 0, &st, &err), PL_OK);
    assert_int_equal(pl_titles_load(st, "009", &ti, &err), PL_OK);
    pl_log_column col = {.path = "\\\\CANNED\\Process(*)\\% Processor Time"};
    pl_log_header h = {.kind = PL_LOG_BLOCKS, .machine = "CANNED", .columns = &col, .ncolumns = 1,
                       .titles = ti, .titles_en = ti};
    pl_log_writer *w = NULL;
    assert_int_equal(pl_log_create(path, &h, PL_LOG_OVERWRITE, &w, &err), PL_OK);
    for (int k = 0; k < 2; k++) {
        void *b;
        size_t len;
        assert_int_equal(pv_canned(k, &b, &len), 0);
        assert_int_equal(pl_log_append(w, 134117966450000000LL + k * 10000000LL, b, len, &err), PL_OK);
        if (k == 0) assert_int_equal(pl_log_append(w, 134117966455000000LL, NULL, 0, &err), PL_OK); /* a gap */
        free(b);
    }
    assert_int_equal(pl_log_writer_close(w, &err), PL_OK);
    pl_titles_free(ti);
    pl_store_close(st);
    char args[256];
    snprintf(args, sizeof args, "-d 0.2 --log %s", path);
    start(f, 80, 24, "TZ=UTC TERM=screen", args);
    char *s = wait_for(f, "[END]");
    assert_non_null(strstr(s, "log t.blg"));
    assert_non_null(strstr(s, "worker              300 150.0  100.0   50.0"));
    free(s);
    keys(f, "q");
    free(wait_for(f, "PVIEW-EXIT=0"));
    /* not a log: a clear message and exit code 2, before the screen starts */
    assert_int_equal(sh("%s --log %s/s-none.blg >/dev/null 2>&1", PVIEW_BIN, f->dir), 2);
}

/* A process with a unique name and 3 extra threads, for the live test. */
static void *sleeper(void *arg)
{
    (void)arg;
    for (;;) pause();
    return NULL;
}

static pid_t spawn_target(char *name, size_t cap)
{
    snprintf(name, cap, "pvt%d", (int)getpid() % 1000000);
    int ready[2];
    if (pipe2(ready, O_CLOEXEC) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(ready[0]);
        /* never outlive the test, and never hold its output pipes (ctest
         * waits for every holder: a failed assertion would look like a
         * hang) */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 1);
            dup2(null, 2);
        }
        prctl(PR_SET_NAME, name);
        pthread_t t;
        for (int i = 0; i < 3; i++) pthread_create(&t, NULL, sleeper, NULL);
        /* named, with its three threads: the test may look now */
        if (write(ready[1], "r", 1) != 1) _exit(1);
        close(ready[1]);
        for (;;) pause();
    }
    close(ready[1]);
    char c;
    struct pollfd pf = {.fd = ready[0], .events = POLLIN};
    int ok = pid > 0 && poll(&pf, 1, 20000) == 1 && read(ready[0], &c, 1) == 1;
    close(ready[0]);
    if (!ok && pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return -1;
    }
    return pid;
}

static int nice_of(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *fp = fopen(path, "r");
    if (!fp) return 99;
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p) return 99;
    /* fields after comm: state(3) ... nice is field 19 */
    int field = 2;
    for (; *p && field < 19; p++)
        if (*p == ' ') field++;
    return atoi(p);
}

/* The data queries pview made ($PERFLIB_PVIEW_TRACE): "230" or "230 232
 * pid=N" only (never every thread), and `want` among them. */
static void expect_queries(const char *path, const char *want)
{
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char line[128];
    int seen = 0, n = 0;
    while (fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\n")] = 0;
        n++;
        if (strcmp(line, want) == 0) seen = 1;
        if (strcmp(line, "230") != 0 && strncmp(line, "230 232 pid=", 12) != 0)
            fail_msg("pview asked \"%s\"", line);
    }
    fclose(fp);
    if (!seen) fail_msg("pview never asked \"%s\" (%d queries)", want, n);
}

static void tmux_live_filter_threads_priority_end(void **state)
{
    tm_fx *f = *state;
    char name[32];
    pid_t child = spawn_target(name, sizeof name);
    assert_true(child > 0);
    char env[300];
    snprintf(env, sizeof env, "TERM=screen PERFLIB_PVIEW_TRACE=%s/q.trace", f->dir);
    start(f, 100, 30, env, "-d 0.5 --no-perfd");
    free(wait_for(f, "Processes:"));
    keys(f, "/");
    free(wait_for(f, "Filter by name"));
    char k[128];
    snprintf(k, sizeof k, "%s Enter", name);
    keys(f, k);
    char want[96];
    snprintf(want, sizeof want, "Threads of %s (%d): 4", name, (int)child);
    free(wait_for(f, want));
    /* only the selected process's threads were asked for, never all */
    char path[300], pq[64];
    snprintf(path, sizeof path, "%s/q.trace", f->dir);
    snprintf(pq, sizeof pq, "230 232 pid=%d", (int)child);
    expect_queries(path, pq);
    /* memory detail: the address space and the images it maps (libc at
     * least), matched to the process through Image's parent Process */
    keys(f, "m");
    snprintf(want, sizeof want, "Memory detail: %s (%d)", name, (int)child);
    char *md = wait_for(f, want);
    char *im = strstr(md, "Images (");
    if (!im || atoi(im + 8) < 1 || !strstr(md, "libc")) fprintf(stderr, "memory detail:\n%s\n", md);
    assert_non_null(im);
    assert_true(atoi(im + 8) >= 1);
    assert_non_null(strstr(md, "libc"));
    assert_non_null(strstr(md, "Mapped Space"));
    free(md);
    keys(f, "m");
    free(wait_for(f, "Threads of"));
    /* priority: nice 7 */
    keys(f, "p");
    free(wait_for(f, "Nice value for"));
    keys(f, "7 Enter");
    snprintf(want, sizeof want, "nice 7 set on %s", name);
    free(wait_for(f, want));
    assert_int_equal(nice_of(child), 7);
    /* a refused change (raise priority as an unprivileged user) is tested
     * only when not root; as root, an out-of-range value is refused */
    keys(f, "p");
    free(wait_for(f, "Nice value for"));
    keys(f, "99 Enter");
    free(wait_for(f, "nothing was done"));
    assert_int_equal(nice_of(child), 7);
    /* end it: asked first; "n" does nothing */
    keys(f, "k");
    free(wait_for(f, "[y/N]"));
    keys(f, "n Enter");
    free(wait_for(f, "nothing was done"));
    assert_int_equal(waitpid(child, NULL, WNOHANG), 0);
    keys(f, "k");
    free(wait_for(f, "[y/N]"));
    keys(f, "y Enter");
    snprintf(want, sizeof want, "sent SIGTERM to %s", name);
    free(wait_for(f, want));
    int st = 0;
    for (int i = 0; i < 100 && waitpid(child, &st, WNOHANG) == 0; i++) usleep(20000);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
    /* resize, then quit */
    assert_int_equal(sh("tmux -L %s resize-window -t pv -x 80 -y 24", f->sock), 0);
    keys(f, "/ Enter");
    char *s = wait_for(f, "Processes:");
    if (!strstr(s, "_Total")) fprintf(stderr, "after the resize:\n%s\n", s);
    assert_non_null(strstr(s, "_Total"));
    free(s);
    keys(f, "q");
    free(wait_for(f, "PVIEW-EXIT=0"));
}

/* A real perfd on 127.0.0.1 (ephemeral port) that dies with the test. */
static pid_t start_perfd(const char *log, unsigned *port)
{
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        FILE *fp = freopen(log, "w", stderr);
        (void)fp;
        dup2(2, 1);
        execl(PERFD_BIN, "perfd", "--listen", "127.0.0.1:0", "--system-name", "PVREMOTE", (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 300; i++) {
        char buf[4096] = "";
        FILE *fp = fopen(log, "r");
        if (fp) {
            size_t n = fread(buf, 1, sizeof buf - 1, fp);
            buf[n] = 0;
            fclose(fp);
        }
        const char *m = strstr(buf, "listening on http://127.0.0.1:");
        if (m && strstr(buf, "perfd: ready")) {
            *port = (unsigned)strtoul(m + strlen("listening on http://127.0.0.1:"), NULL, 10);
            return pid;
        }
        usleep(20000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    fail_msg("perfd did not start");
    return -1;
}

static void tmux_remote_through_perfd(void **state)
{
    tm_fx *f = *state;
    char log[128], args[64];
    snprintf(log, sizeof log, "%s/perfd.log", f->dir);
    unsigned port = 0;
    pid_t pd = start_perfd(log, &port);
    snprintf(args, sizeof args, "-d 0.5 -s 127.0.0.1:%u", port);
    start(f, 100, 30, "TERM=screen", args);
    char want[64];
    snprintf(want, sizeof want, "\\\\127.0.0.1:%u", port);
    char *s = wait_for(f, want);
    assert_non_null(strstr(s, " PVREMOTE "));
    free(s);
    free(wait_for(f, "_Total"));
    int st = 0;
    if (waitpid(pd, &st, WNOHANG) == pd) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "cat %s >&2", log);
        fprintf(stderr, "perfd ended (status 0x%x):\n", st);
        sh("%s", cmd);
        fail();
    }
    /* actions are for the local machine only: refused before any
     * question, and the refusal stays on screen across refreshes until a
     * key is pressed */
    keys(f, "k");
    s = wait_for(f, "local machine only");
    assert_null(strstr(s, "[y/N]"));
    char *first = strndup(s, (size_t)(strchr(s, '\n') - s));
    free(s);
    for (int i = 0; i < 2; i++) {
        s = wait_for_title_change(f, first);
        free(first);
        first = strndup(s, (size_t)(strchr(s, '\n') - s));
        if (!strstr(s, "local machine only")) fprintf(stderr, "the refusal went at a refresh:\n%s\n", s);
        assert_non_null(strstr(s, "local machine only"));
        free(s);
    }
    free(first);
    keys(f, "Down");
    for (int i = 0; i < 400; i++) {
        s = capture(f);
        int gone = s && !strstr(s, "local machine only");
        free(s);
        if (gone) break;
        assert_true(i < 399);
        usleep(50000);
    }
    /* perfd goes away: the last rows stay and the footer says why */
    kill(pd, SIGTERM);
    waitpid(pd, NULL, 0);
    free(wait_for(f, "no new data, showing the last good rows"));
    keys(f, "q");
    free(wait_for(f, "PVIEW-EXIT=0"));
}

/* The cheapest local source (docs/pview.md, "Sources"): an unprivileged
 * pview, whose PerfProc would read /proc, takes a local perfd's snapshots
 * (perfd runs as root: the BPF source) and still asks for the selected
 * process's threads only; without a perfd it collects itself; as root it
 * collects itself with the BPF source even when a perfd answers. */
static void tmux_live_cheapest_local_source(void **state)
{
    tm_fx *f = *state;
    if (geteuid() != 0) fail_msg("needs root (to run pview as another user and perfd with the BPF source)");
    assert_int_equal(sh("chmod 755 %s", f->dir), 0);
    char log[128], args[128], env[300], want[96];
    snprintf(log, sizeof log, "%s/perfd.log", f->dir);
    unsigned port = 0;
    pid_t pd = start_perfd(log, &port);
    snprintf(args, sizeof args, "-d 0.5 --perfd 127.0.0.1:%u", port);
    snprintf(env, sizeof env, "TERM=screen PERFLIB_PVIEW_TRACE=%s/nobody.trace setpriv --reuid=65534 --regid=65534 "
             "--clear-groups --", f->dir);
    assert_int_equal(sh("touch %s/nobody.trace && chmod 666 %s/nobody.trace", f->dir, f->dir), 0);
    start(f, 120, 30, env, args);
    snprintf(want, sizeof want, "local (perfd 127.0.0.1:%u)", port);
    char *s = wait_for(f, want);
    free(s);
    free(wait_for(f, "_Total"));
    free(wait_for(f, "Threads of")); /* the first selection's threads */
    keys(f, "q");
    free(wait_for(f, "PVIEW-EXIT=0"));
    char path[300];
    snprintf(path, sizeof path, "%s/nobody.trace", f->dir);
    expect_queries(path, "230");
    assert_int_equal(sh("grep -q '^230 232 pid=' %s", path), 0);
    end_server(f);
    /* root: its own BPF collection, the perfd not used */
    start(f, 120, 30, "TERM=screen", args);
    s = wait_for(f, "_Total");
    if (strstr(s, "(perfd")) fail_msg("root pview took the perfd:\n%s", s);
    free(s);
    keys(f, "q");
    free(wait_for(f, "PVIEW-EXIT=0"));
    kill(pd, SIGTERM);
    waitpid(pd, NULL, 0);
    end_server(f);
    /* no perfd: an unprivileged pview collects itself */
    snprintf(env, sizeof env, "TERM=screen setpriv --reuid=65534 --regid=65534 --clear-groups --");
    start(f, 120, 30, env, args);
    s = wait_for(f, "_Total");
    if (strstr(s, "(perfd")) fail_msg("pview took a perfd that is gone:\n%s", s);
    free(s);
    keys(f, "q");
    free(wait_for(f, "PVIEW-EXIT=0"));
}

/* pview started through a script that records its pid; `wrap` runs before
 * it (exec), e.g. to block SIGHUP. */
static pid_t start_with_pid(tm_fx *f, const char *wrap, const char *args)
{
    char script[128], pidf[128];
    snprintf(script, sizeof script, "%s/run.sh", f->dir);
    snprintf(pidf, sizeof pidf, "%s/pid", f->dir);
    FILE *fp = fopen(script, "w");
    assert_non_null(fp);
    fprintf(fp, "#!/bin/sh\necho $$ > %s\nexec %s env TZ=UTC TERM=screen %s %s\n", pidf, wrap, PVIEW_BIN, args);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(chmod(script, 0755), 0);
    assert_int_equal(sh("tmux -L %s -f /dev/null new-session -d -s pv -x 80 -y 24 %s", f->sock, script), 0);
    pid_t pid = 0;
    for (int i = 0; i < 400 && pid <= 0; i++) {
        fp = fopen(pidf, "r");
        if (fp) {
            if (fscanf(fp, "%d", &pid) != 1) pid = 0;
            fclose(fp);
        }
        if (pid <= 0) usleep(50000);
    }
    assert_true(pid > 0);
    return pid;
}

/* 1 when pid has ended (gone, or a zombie nobody reaped yet). */
static int ended(pid_t pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *fp = fopen(path, "r");
    if (!fp) return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = 0;
    char *rp = strrchr(buf, ')');
    return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

/* At most 2 s after `t0` (CLOCK_MONOTONIC seconds), pid has ended. */
static void ends_within_2s(pid_t pid, const char *what)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double dt = 0;
    while (!ended(pid) && dt < 2.0) {
        usleep(20000);
        clock_gettime(CLOCK_MONOTONIC, &t);
        dt = (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9;
    }
    if (!ended(pid)) {
        fprintf(stderr, "pview (%d) still runs 2 s after %s\n", (int)pid, what);
        kill(pid, SIGKILL);
        fail();
    }
}

/* The terminal goes away while a prompt is open: pview ends (it spun at
 * 100 % CPU for ever, deaf to SIGTERM). */
static void tmux_prompt_terminal_gone(void **state)
{
    tm_fx *f = *state;
    char args[1024];
    write_canned(f, 2, args, sizeof args);
    pid_t pid = start_with_pid(f, "", args);
    free(wait_for(f, "[END]"));
    keys(f, "/");
    free(wait_for(f, "Filter by name"));
    sh("tmux -L %s kill-server >/dev/null 2>&1", f->sock);
    ends_within_2s(pid, "its terminal went away with a prompt open");
}

/* The same with the hang-up signal blocked: the failing reads tell. */
static void tmux_prompt_terminal_gone_no_sighup(void **state)
{
    tm_fx *f = *state;
    char args[1024];
    write_canned(f, 2, args, sizeof args);
    pid_t pid = start_with_pid(
        f, "perl -e 'use POSIX; sigprocmask(SIG_BLOCK, POSIX::SigSet->new(SIGHUP)) or die; exec @ARGV or die'",
        args);
    free(wait_for(f, "[END]"));
    keys(f, "k");
    free(wait_for(f, "local machine only"));
    keys(f, "p");
    free(wait_for(f, "local machine only"));
    keys(f, "/");
    free(wait_for(f, "Filter by name"));
    sh("tmux -L %s kill-server >/dev/null 2>&1", f->sock);
    ends_within_2s(pid, "its terminal went away (SIGHUP blocked) with a prompt open");
}

/* SIGTERM while a prompt is open ends pview cleanly. */
static void tmux_prompt_sigterm(void **state)
{
    tm_fx *f = *state;
    char args[1024];
    write_canned(f, 2, args, sizeof args);
    pid_t pid = start_with_pid(f, "", args);
    free(wait_for(f, "[END]"));
    keys(f, "/");
    free(wait_for(f, "Filter by name"));
    assert_int_equal(kill(pid, SIGTERM), 0);
    ends_within_2s(pid, "SIGTERM with a prompt open");
}

static void tmux_not_a_terminal(void **state)
{
    (void)state;
    assert_int_equal(sh("%s </dev/null >/dev/null 2>&1", PVIEW_BIN), 3);
    assert_int_equal(sh("%s --bogus >/dev/null 2>&1", PVIEW_BIN), 1);
    assert_int_equal(sh("%s -d 0 >/dev/null 2>&1", PVIEW_BIN), 1);
    assert_int_equal(sh("%s --help >/dev/full 2>/dev/null", PVIEW_BIN), 1);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(model_first_sample_has_no_rates),
        cmocka_unit_test(model_rates_by_pdh_formulas),
        cmocka_unit_test(model_reused_pid_gives_no_rate),
        cmocka_unit_test(model_unavailable_is_blank),
        cmocka_unit_test(model_keeps_rows_on_bad_block),
        cmocka_unit_test(sort_and_filter),
        cmocka_unit_test_setup_teardown(tmux_golden_replay, setup_tmux, teardown_tmux),
        cmocka_unit_test_setup_teardown(tmux_help_and_memory_on_replay, setup_tmux, teardown_tmux),
        cmocka_unit_test_setup_teardown(tmux_log_replay, setup_tmux, teardown_tmux),
        cmocka_unit_test_setup_teardown(tmux_live_filter_threads_priority_end, setup_tmux, teardown_tmux),
        cmocka_unit_test_setup_teardown(tmux_live_cheapest_local_source, setup_tmux, teardown_tmux),
        cmocka_unit_test_setup_teardown(tmux_remote_through_perfd, setup_tmux, teardown_tmux),
        cmocka_unit_test(tmux_not_a_terminal),
        cmocka_unit_test_setup_teardown(tmux_prompt_terminal_gone, setup_tmux, teardown_tmux),
        cmocka_unit_test_setup_teardown(tmux_prompt_terminal_gone_no_sighup, setup_tmux, teardown_tmux),
        cmocka_unit_test_setup_teardown(tmux_prompt_sigterm, setup_tmux, teardown_tmux),
    };
    return pl_test_run(tests, argc, argv);
}
