/* Helpers of the live cross-checks (tests/crosscheck): bounded children,
 * running the independent tools, reading their tables, PDH queries. */
#ifndef XC_UTIL_H
#define XC_UTIL_H

#include <stddef.h>
#include <sys/types.h>

#include "win32/pdh.h"

/* Fork a child that dies with this process (PR_SET_PDEATHSIG) and after
 * `limit_s` seconds at most (alarm); it runs fn(arg) and _exits. */
pid_t xc_spawn(void (*fn)(void *), void *arg, unsigned limit_s);
/* The same for a program (argv[0] searched in PATH), stdout and stderr to
 * /dev/null. */
pid_t xc_spawn_exec(char *const argv[], unsigned limit_s);
/* SIGKILL and reap (0 and negative ids ignored). */
void xc_kill(pid_t pid);

/* Run `cmd` with sh (LC_ALL=C, S_TIME_FORMAT=ISO, bounded by timeout(1)),
 * its stdout into a malloc'd string; fails the test when it exits non-zero. */
char *xc_run(const char *cmd);
/* The same, calling go(arg) `delay_ms` after starting the tool (while it
 * runs, after its first reading); *started is the CLOCK_MONOTONIC time
 * (xc_now) just before the tool was started. */
char *xc_run_go(const char *cmd, long delay_ms, void (*go)(void *), void *arg, double *started);
/* CLOCK_MONOTONIC in seconds (one clock for every process). */
double xc_now(void);
/* Fail the test, naming the package, when `tool` is not in PATH. */
void xc_need_tool(const char *tool, const char *package);
/* Fail the test with the reason when not root. */
void xc_need_root(const char *why);

/* A value in the tables sysstat prints: the last header line seen
 * before a row (a line with no number after its first field) names the
 * columns; the row is the first line that starts with `row_prefix` (may be
 * "") and has a field equal to `key` (may be NULL); the column is found by
 * its position from the END of the header, so a time of day printed as one
 * or two fields does not shift it. Fails the test when it is not there. */
double xc_column(const char *out, const char *row_prefix, const char *key, const char *col);
/* Number of non-empty lines. */
size_t xc_lines(const char *out);

/* PDH over the live machine with a store of its own in `dir` (a 0700
 * directory: the store refuses world-writable places as root). */
PDH_HQUERY xc_pdh_open(const char *dir);
PDH_HCOUNTER xc_pdh_add(PDH_HQUERY q, const char *path);
void xc_pdh_collect(PDH_HQUERY q);
/* Samples with the wall-clock (xc_now) bounds of each collection, and the
 * raw values of up to 16 counters at each: a burst load is compared by its
 * count (raw delta) against the tool's rate times its interval, as the two
 * intervals differ in length by the collections' own time (up to ~0.2 s on
 * a loaded machine); xc_pdh_count also checks that PDH's formatted rate is
 * that count over an interval between the collections' bounds. */
typedef struct {
    PDH_HQUERY q;
    PDH_HCOUNTER c[16];
    int n;
    PDH_RAW_COUNTER raw[2][16];
    double t[2][2]; /* [sample][before, after] */
} xc_samples;
void xc_sample(xc_samples *s, int which);
double xc_pdh_count(const xc_samples *s, int i, const char *what);
/* The same for a PERF_100NSEC_TIMER (% Processor Time and kin): the time
 * counted, in seconds, and PDH's percentage checked to be that time over an
 * interval between the collections' bounds. */
double xc_pdh_seconds(const xc_samples *s, int i, const char *what);
/* The formatted value (double, not capped at 100); fails unless valid. */
double xc_pdh_value(PDH_HCOUNTER c, const char *what);

/* A 0700 directory under the working directory (the build tree: a real
 * disk, not tmpfs), removed by xc_rmtree. */
void xc_mkdtemp(char *buf, size_t cap);
void xc_rmtree(const char *dir);
/* cmocka teardown: unmount and remove every directory xc_mkdtemp made. */
int xc_cleanup(void **state);

/* |ours - theirs| <= abs + rel * |theirs|, printed either way. */
void xc_close_to(const char *what, double ours, double theirs, double rel, double abs);

void xc_sleep_ms(long ms);
/* Wait (10 s at most) until process pid is named `name` (its comm), or
 * has `threads` threads; 0 once it is so, -1 when the time ran out. */
int xc_wait_named(pid_t pid, const char *name);
int xc_wait_threads(pid_t pid, int threads);

/* The tools' interval (s), and when the loads start after the tool (ms). */
#define XC_T 5
#define XC_GO_MS 800
#define now_s xc_now

/* The loads start on a byte from the parent (one per child) and record in
 * shared memory when they finished; then they wait to be killed, so their
 * process is still there for the second sample. */
struct go {
    int fd[2];
    volatile double *done; /* one slot per load, in a MAP_SHARED page */
    int n;                 /* loads to start */
};
void go_init(struct go *g);
void go_wait(const struct go *g);
void go_start(void *arg); /* for xc_run_go: a byte for each of g->n loads */
/* Every load finished before `deadline` (the earliest the tool's last
 * reading can be). */
void go_check(const struct go *g, double deadline);
_Noreturn void idle_forever(void);
/* The directory must be on a block device: on tmpfs the kernel counts no
 * storage bytes (pidstat's kB_rd/s, kB_wr/s) and no hard faults. */
void need_disk_backed(const char *dir);

/* The cases in xc_disk.c and xc_net.c (test_crosscheck_live.c lists them). */
void live_physical_disk_vs_iostat(void **state);
void live_processor_iowait_vs_mpstat(void **state);
void live_logical_disk_vs_df(void **state);
void live_tcp_vs_ss(void **state);
void live_network_interface_vs_sar(void **state);
void live_commit_vs_committed_as(void **state); /* xc_commit.c */

#endif
