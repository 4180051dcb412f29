/* Helpers of the live cross-checks: see xc_util.h. */
#include "xc_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/statfs.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pl_test.h"

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

static void child_guard(pid_t parent, unsigned limit_s)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(99); /* the parent died before prctl */
    alarm(limit_s);
}

pid_t xc_spawn(void (*fn)(void *), void *arg, unsigned limit_s)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        child_guard(parent, limit_s);
        fn(arg);
        _exit(0);
    }
    return pid;
}

pid_t xc_spawn_exec(char *const argv[], unsigned limit_s)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        child_guard(parent, limit_s);
        int nul = open("/dev/null", O_RDWR);
        if (nul >= 0) {
            dup2(nul, 1);
            dup2(nul, 2);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    return pid;
}

void xc_kill(pid_t pid)
{
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

double xc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

char *xc_run(const char *cmd)
{
    return xc_run_go(cmd, 0, NULL, NULL, NULL);
}

char *xc_run_go(const char *cmd, long delay_ms, void (*go)(void *), void *arg, double *started)
{
    char full[4096];
    /* timeout(1) bounds every tool: none of them should need 25 s */
    int n = snprintf(full, sizeof full, "LC_ALL=C S_TIME_FORMAT=ISO timeout -s KILL 25 %s", cmd);
    assert_true(n > 0 && (size_t)n < sizeof full);
    if (started) *started = xc_now();
    FILE *p = popen(full, "r");
    assert_non_null(p);
    if (go) {
        xc_sleep_ms(delay_ms);
        go(arg);
    }
    size_t cap = 65536, len = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    size_t got;
    while ((got = fread(out + len, 1, cap - 1 - len, p)) > 0) {
        len += got;
        if (len + 1 == cap) {
            cap *= 2;
            out = realloc(out, cap);
            assert_non_null(out);
        }
    }
    out[len] = '\0';
    int rc = pclose(p);
    if (rc != 0) fail_msg("`%s` failed (wait status %d), output:\n%s", cmd, rc, out);
    return out;
}

void xc_need_tool(const char *tool, const char *package)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
    if (system(cmd) != 0)
        fail_msg("%s is not installed (Debian package %s; scripts/deps.sh test installs it)", tool, package);
}

void xc_need_root(const char *why)
{
    if (geteuid() != 0) fail_msg("this cross-check needs root (%s); run the suite as root, as CI does", why);
}

/* Split a line into at most `cap` fields; returns the count. Modifies it. */
static size_t fields(char *line, char **f, size_t cap)
{
    size_t n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t", &save); t && n < cap; t = strtok_r(NULL, " \t", &save)) f[n++] = t;
    return n;
}

static int is_number(const char *s)
{
    char *end;
    errno = 0;
    strtod(s, &end);
    return end != s && *end == '\0';
}

double xc_column(const char *out, const char *row_prefix, const char *key, const char *col)
{
    char hdr[2048] = "";
    const char *p = out;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[2048];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
        p += len + (nl ? 1 : 0);
        char copy[2048];
        memcpy(copy, line, sizeof copy);
        char *f[64];
        size_t n = fields(copy, f, 64);
        if (n < 2) continue;
        int numbers = 0;
        for (size_t i = 1; i < n; i++) numbers += is_number(f[i]);
        if (numbers == 0) { /* a header: names only */
            memcpy(hdr, line, sizeof hdr);
            continue;
        }
        if (strncmp(line, row_prefix, strlen(row_prefix)) != 0) continue;
        int has_key = key == NULL;
        for (size_t i = 0; i < n && !has_key; i++) has_key = strcmp(f[i], key) == 0;
        if (!has_key) continue;
        char hcopy[2048];
        memcpy(hcopy, hdr, sizeof hcopy);
        char *h[64];
        size_t hn = fields(hcopy, h, 64);
        if (hn != n) continue; /* not this table's row */
        for (size_t i = 0; i < hn; i++)
            if (strcmp(h[i], col) == 0) {
                if (!is_number(f[i])) fail_msg("column %s is not a number in: %s", col, line);
                return strtod(f[i], NULL);
            }
        /* a row of another table (pidstat -u -d prints one per option) */
    }
    fail_msg("no row %s%s%s with column %s in:\n%s", row_prefix, key ? " with " : "", key ? key : "", col, out);
    return 0;
}

size_t xc_lines(const char *out)
{
    size_t n = 0;
    int nonblank = 0;
    for (const char *p = out; *p; p++) {
        if (*p == '\n') {
            n += (size_t)nonblank;
            nonblank = 0;
        } else if (*p != ' ' && *p != '\t') {
            nonblank = 1;
        }
    }
    return n + (size_t)nonblank;
}

PDH_HQUERY xc_pdh_open(const char *dir)
{
    char store[4096];
    snprintf(store, sizeof store, "%s/store.db", dir);
    setenv("PERFLIB_REGISTRY", store, 1);
    PDH_HQUERY q = NULL;
    PDH_STATUS st = PdhOpenQueryA(NULL, 0, &q);
    if (st != ERROR_SUCCESS) fail_msg("PdhOpenQuery: 0x%08X", (unsigned)st);
    return q;
}

PDH_HCOUNTER xc_pdh_add(PDH_HQUERY q, const char *path)
{
    PDH_HCOUNTER c = NULL;
    PDH_STATUS st = PdhAddEnglishCounterA(q, path, 0, &c);
    if (st != ERROR_SUCCESS) fail_msg("PdhAddEnglishCounter %s: 0x%08X", path, (unsigned)st);
    return c;
}

void xc_pdh_collect(PDH_HQUERY q)
{
    PDH_STATUS st = PdhCollectQueryData(q);
    if (st != ERROR_SUCCESS) fail_msg("PdhCollectQueryData: 0x%08X", (unsigned)st);
}

double xc_pdh_value(PDH_HCOUNTER c, const char *what)
{
    PDH_FMT_COUNTERVALUE v;
    memset(&v, 0, sizeof v);
    PDH_STATUS st = PdhGetFormattedCounterValue(c, PDH_FMT_DOUBLE | PDH_FMT_NOCAP100, NULL, &v);
    if (st != ERROR_SUCCESS || v.CStatus != PDH_CSTATUS_VALID_DATA)
        fail_msg("%s: no valid value (status 0x%08X, CStatus 0x%08X)", what, (unsigned)st, (unsigned)v.CStatus);
    return v.doubleValue;
}

void xc_sample(xc_samples *s, int which)
{
    s->t[which][0] = xc_now();
    xc_pdh_collect(s->q);
    s->t[which][1] = xc_now();
    for (int i = 0; i < s->n; i++) {
        PDH_STATUS st = PdhGetRawCounterValue(s->c[i], NULL, &s->raw[which][i]);
        if (st != ERROR_SUCCESS || s->raw[which][i].CStatus != PDH_CSTATUS_VALID_DATA)
            fail_msg("counter %d: no raw value (0x%08X)", i, (unsigned)st);
    }
}

double xc_pdh_count(const xc_samples *s, int i, const char *what)
{
    double count = (double)(s->raw[1][i].FirstValue - s->raw[0][i].FirstValue);
    double rate = xc_pdh_value(s->c[i], what);
    double lo = s->t[1][0] - s->t[0][1], hi = s->t[1][1] - s->t[0][0];
    if (count < 0) fail_msg("%s went backwards", what);
    if (count > 0) {
        double span = count / rate;
        print_message("%-44s %.0f over %.3f s (collections %.3f..%.3f s apart)\n", what, count, span, lo, hi);
        if (!(span >= lo - 0.002 && span <= hi + 0.002))
            fail_msg("%s: the rate %.3f is %.0f over %.3f s, outside the collections' %.3f..%.3f s", what, rate, count,
                     span, lo, hi);
    }
    return count;
}

/* The directories made, removed by xc_cleanup even when a check failed
 * (a failed case would otherwise leave its 32-256 MiB files behind). */
static char made[4][2100];
static int nmade;

double xc_pdh_seconds(const xc_samples *s, int i, const char *what)
{
    double secs = (double)(s->raw[1][i].FirstValue - s->raw[0][i].FirstValue) / 1e7;
    double pct = xc_pdh_value(s->c[i], what);
    double lo = s->t[1][0] - s->t[0][1], hi = s->t[1][1] - s->t[0][0];
    if (secs < 0) fail_msg("%s went backwards", what);
    if (pct > 0) {
        double span = 100.0 * secs / pct;
        print_message("%-44s %.3f s over %.3f s (collections %.3f..%.3f s apart)\n", what, secs, span, lo, hi);
        if (!(span >= lo - 0.002 && span <= hi + 0.002))
            fail_msg("%s: %.3f %% is %.3f s over %.3f s, outside the collections' %.3f..%.3f s", what, pct, secs, span,
                     lo, hi);
    }
    return secs;
}

void xc_mkdtemp(char *buf, size_t cap)
{
    char cwd[2048];
    assert_non_null(getcwd(cwd, sizeof cwd));
    int n = snprintf(buf, cap, "%s/xc.XXXXXX", cwd);
    assert_true(n > 0 && (size_t)n < cap);
    assert_non_null(mkdtemp(buf));
    if (nmade < 4) snprintf(made[nmade++], sizeof made[0], "%s", buf);
}

int xc_cleanup(void **state)
{
    (void)state;
    for (int i = 0; i < nmade; i++) {
        char mnt[2200];
        snprintf(mnt, sizeof mnt, "%.2100s/mnt", made[i]);
        umount2(mnt, MNT_DETACH); /* a loop filesystem, if one is there */
        xc_rmtree(made[i]);
    }
    nmade = 0;
    return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void xc_rmtree(const char *dir)
{
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

void xc_close_to(const char *what, double ours, double theirs, double rel, double abs)
{
    double lim = abs + rel * fabs(theirs);
    print_message("%-44s ours %12.4f  theirs %12.4f  (limit +-%.4f)\n", what, ours, theirs, lim);
    if (!(fabs(ours - theirs) <= lim)) fail_msg("%s: ours %.4f, theirs %.4f, beyond +-%.4f", what, ours, theirs, lim);
}

void xc_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}





/* Look at /proc/<pid> every millisecond until ok() says so, 10 s at most. */
static int wait_proc(pid_t pid, int (*ok)(pid_t, const void *), const void *arg)
{
    double until = xc_now() + 10;
    while (!ok(pid, arg)) {
        if (xc_now() > until) return -1;
        xc_sleep_ms(1);
    }
    return 0;
}

static int named(pid_t pid, const void *name)
{
    char p[64], comm[64] = "";
    snprintf(p, sizeof p, "/proc/%d/comm", (int)pid);
    FILE *f = fopen(p, "r");
    if (!f) return 0;
    if (fgets(comm, sizeof comm, f)) comm[strcspn(comm, "\n")] = 0;
    fclose(f);
    return strcmp(comm, name) == 0;
}

static int has_threads(pid_t pid, const void *n)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/task", (int)pid);
    DIR *d = opendir(p);
    if (!d) return 0;
    int k = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) k += e->d_name[0] != '.';
    closedir(d);
    return k == *(const int *)n;
}

int xc_wait_named(pid_t pid, const char *name) { return wait_proc(pid, named, name); }

int xc_wait_threads(pid_t pid, int threads) { return wait_proc(pid, has_threads, &threads); }

void go_init(struct go *g)
{
    assert_int_equal(pipe(g->fd), 0);
    void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    g->done = m;
    g->n = 0;
}

void go_wait(const struct go *g)
{
    char c;
    if (read(g->fd[0], &c, 1) != 1) _exit(4);
}

void go_start(void *arg)
{
    const struct go *g = arg;
    for (int i = 0; i < g->n; i++)
        if (write(g->fd[1], "g", 1) != 1) fail_msg("cannot start the loads");
}

void go_check(const struct go *g, double deadline)
{
    for (int i = 0; i < g->n; i++) {
        if (g->done[i] == 0) fail_msg("load %d never finished: the machine is too busy for this check", i);
        if (g->done[i] > deadline)
            fail_msg("load %d finished %.2f s after the tool's interval: the machine is too busy", i,
                     g->done[i] - deadline);
    }
}

_Noreturn void idle_forever(void)
{
    for (;;) pause();
}

void need_disk_backed(const char *dir)
{
    struct statfs sf;
    assert_int_equal(statfs(dir, &sf), 0);
    if (sf.f_type == TMPFS_MAGIC)
        fail_msg("%s is on tmpfs: the storage counters need a disk-backed build directory", dir);
}
