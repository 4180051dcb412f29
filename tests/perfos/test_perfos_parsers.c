/* PerfOS collectors: every /proc parser against the canned trees in
 * tests/perfos/data (m2: 2 CPUs, PSI, two swap areas; m4: 4 possible CPUs
 * with cpu2 offline, an older kernel without PSI, MemAvailable, guest columns
 * or swap), malformed and truncated inputs, and the live machine. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "pl_test.h"
#include "linux/collect_os.h"
#include "platform.h"

#define DATA PL_SOURCE_DIR "/tests/perfos/data/"

static int open_tree(const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s%s", DATA, name);
    int fd = pl__root_open(path, "");
    assert_true(fd >= 0);
    return fd;
}

/* A temporary root with proc/<rel> holding `content` (NULL: just proc/). */
static char tmp_root[64];
static int tmp_tree(const char *rel, const char *content, size_t len)
{
    if (!tmp_root[0]) {
        strcpy(tmp_root, "/tmp/perfos-test-XXXXXX");
        assert_non_null(mkdtemp(tmp_root));
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/proc", tmp_root);
        assert_int_equal(mkdir(p, 0755), 0);
        snprintf(p, sizeof p, "%s/proc/pressure", tmp_root);
        assert_int_equal(mkdir(p, 0755), 0);
    }
    if (rel) {
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/proc/%s", tmp_root, rel);
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, content, len), (ssize_t)len);
        close(fd);
    }
    int fd = pl__root_open(tmp_root, "");
    assert_true(fd >= 0);
    return fd;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void tmp_cleanup(void)
{
    if (tmp_root[0]) nftw(tmp_root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    tmp_root[0] = '\0';
}

/* ------------------------------------------------------------------ stat */

static void stat_m2(void **state)
{
    (void)state;
    int fd = open_tree("m2");
    struct pl__cpu_stats s;
    memset(&s, 0, sizeof s);
    assert_int_equal(pl__read_proc_stat(fd, &s), 0);
    assert_int_equal(s.nfields, 10);
    assert_int_equal(s.ncpu, 2);
    const uint64_t total[10] = {3000, 200, 1000, 18000, 400, 100, 200, 100, 50, 0};
    const uint64_t c0[10] = {1000, 100, 500, 9000, 200, 50, 100, 50, 25, 0};
    const uint64_t c1[10] = {2000, 100, 500, 9000, 200, 50, 100, 50, 25, 0};
    assert_memory_equal(s.total, total, sizeof total);
    assert_int_equal(s.cpu[0].id, 0);
    assert_memory_equal(s.cpu[0].t, c0, sizeof c0);
    assert_int_equal(s.cpu[1].id, 1);
    assert_memory_equal(s.cpu[1].t, c1, sizeof c1);
    assert_int_equal(s.have, PL__STAT_HAVE_INTR | PL__STAT_HAVE_CTXT | PL__STAT_HAVE_BTIME | PL__STAT_HAVE_PROCESSES |
                                 PL__STAT_HAVE_RUNNING | PL__STAT_HAVE_BLOCKED | PL__STAT_HAVE_SOFTIRQ);
    assert_int_equal(s.intr, 123456);
    assert_int_equal(s.ctxt, 987654);
    assert_int_equal(s.btime, 1700000000);
    assert_int_equal(s.processes, 43210);
    assert_int_equal(s.procs_running, 5);
    assert_int_equal(s.procs_blocked, 2);
    assert_int_equal(s.softirq, 77777);
    /* the struct is reusable: a second read gives the same answer */
    assert_int_equal(pl__read_proc_stat(fd, &s), 0);
    assert_int_equal(s.ncpu, 2);
    assert_int_equal(s.cpu[1].t[PL__CPU_USER], 2000);
    pl__cpu_stats_free(&s);
    close(fd);
}

static void stat_m4_offline_cpu(void **state)
{
    (void)state;
    int fd = open_tree("m4");
    struct pl__cpu_stats s;
    memset(&s, 0, sizeof s);
    assert_int_equal(pl__read_proc_stat(fd, &s), 0);
    assert_int_equal(s.nfields, 8); /* no guest columns */
    assert_int_equal(s.ncpu, 3);
    assert_int_equal(s.cpu[0].id, 0);
    assert_int_equal(s.cpu[1].id, 1);
    assert_int_equal(s.cpu[2].id, 3);
    assert_int_equal(s.cpu[2].t[PL__CPU_IDLE], 30000);
    assert_int_equal(s.cpu[2].t[PL__CPU_GUEST], 0);
    assert_int_equal(s.total[PL__CPU_IDLE], 70000);
    assert_int_equal(s.btime, 1600000000);
    assert_int_equal(s.procs_running, 1);
    pl__cpu_stats_free(&s);
    close(fd);
}

static void stat_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",                                          /* no aggregate line */
        "cpu0 1 2 3 4\n",                            /* no aggregate line */
        "cpu  1 2 3\n",                              /* too few columns */
        "cpu  1 2 3 4\ncpu0 1 2 3\n",                /* too few columns on cpu0 */
        "cpu  1 2 3 4\ncpu1 1 2 3 4\ncpu0 1 2 3 4\n", /* descending ids */
        "cpu  1 2 3 4\ncpu0 1 2 3 4\ncpu0 1 2 3 4\n", /* duplicate id */
        "cpu  1 2 3 4\ncpu  1 2 3 4\n",              /* two aggregates */
        "cpu  1 2 3 4 x\n",                          /* garbage after numbers */
        "cpu  1 2 3 4\ncpuX 1 2 3 4\n",              /* bad label */
        "cpu  1 2 3 4\ncpu0\n",                      /* label only */
        "cpu  1 2 3 4\nctxt\n",                      /* key without number */
        "cpu  1 2 3 4\nctxt 5 6\n",                  /* ctxt with two numbers */
        "cpu  1 2 3 4\nbtime 1\nbtime 2\n",          /* a key twice */
        "cpu  1 2 3 4\ncpu99999999999 1 2 3 4\n",    /* id beyond 32 bits */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct pl__cpu_stats s;
        memset(&s, 0, sizeof s);
        int rc = pl__parse_proc_stat(bad[i], &s);
        if (rc != -EINVAL) fail_msg("case %zu (%s) gave %d", i, bad[i], rc);
        pl__cpu_stats_free(&s);
    }
    /* unknown lines are fine; only 4 columns is an old kernel */
    struct pl__cpu_stats s;
    memset(&s, 0, sizeof s);
    assert_int_equal(pl__parse_proc_stat("cpu  1 2 3 4\npage 5 6\ncpu7 1 2 3 4\n", &s), 0);
    assert_int_equal(s.nfields, 4);
    assert_int_equal(s.ncpu, 1);
    assert_int_equal(s.cpu[0].id, 7);
    assert_int_equal(s.have, 0);
    pl__cpu_stats_free(&s);
}

/* Lines with different column counts: nfields is the fewest, and no line
 * keeps a column past it (found by fuzz_procfs). */
static void stat_uneven_columns(void **state)
{
    (void)state;
    struct pl__cpu_stats s;
    memset(&s, 0, sizeof s);
    assert_int_equal(pl__parse_proc_stat("cpu  1 2 3 4 5 6 7 8 9 10\ncpu0 1 2 3 4 5 6 7 8 9 10\n"
                                         "cpu1 1 2 3 4 5 6\n", &s), 0);
    assert_int_equal(s.nfields, 6);
    assert_int_equal(s.ncpu, 2);
    for (unsigned k = 0; k < PL__CPU_NFIELDS; k++) {
        uint64_t want = k < 6 ? k + 1 : 0;
        assert_int_equal(s.total[k], want);
        assert_int_equal(s.cpu[0].t[k], want);
        assert_int_equal(s.cpu[1].t[k], want);
    }
    pl__cpu_stats_free(&s);
}

static void stat_truncated_and_missing(void **state)
{
    (void)state;
    struct pl__cpu_stats s;
    memset(&s, 0, sizeof s);
    /* cut in the middle of a line: no final newline */
    const char t[] = "cpu  1 2 3 4\ncpu0 1 2 3 4\nctxt 12";
    int fd = tmp_tree("stat", t, sizeof t - 1);
    assert_int_equal(pl__read_proc_stat(fd, &s), -EINVAL);
    /* an embedded NUL hides the rest of the file */
    const char z[] = "cpu  1 2 3 4\n\0cpu0 1 2 3 4\n";
    tmp_tree("stat", z, sizeof z - 1);
    assert_int_equal(pl__read_proc_stat(fd, &s), -EINVAL);
    close(fd);
    fd = open_tree("m2");
    int sub = openat(fd, "proc/pressure", O_RDONLY | O_DIRECTORY);
    assert_true(sub >= 0);
    assert_int_equal(pl__read_proc_stat(sub, &s), -ENOENT);
    close(sub);
    close(fd);
    pl__cpu_stats_free(&s);
    tmp_cleanup();
}

static void stat_many_cpus(void **state)
{
    (void)state;
    /* 4096 CPUs: well past any fixed buffer */
    size_t cap = 4096 * 64 + 256, len = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    len += (size_t)snprintf(t + len, cap - len, "cpu  1 2 3 4 5 6 7 8 9 10\n");
    for (int i = 0; i < 4096; i++)
        len += (size_t)snprintf(t + len, cap - len, "cpu%d %d 0 0 %d 0 0 0 0 0 0\n", i * 2, i, 4096 - i);
    struct pl__cpu_stats s;
    memset(&s, 0, sizeof s);
    assert_int_equal(pl__parse_proc_stat(t, &s), 0);
    assert_int_equal(s.ncpu, 4096);
    assert_int_equal(s.cpu[4095].id, 8190);
    assert_int_equal(s.cpu[4095].t[PL__CPU_USER], 4095);
    assert_int_equal(s.cpu[4095].t[PL__CPU_IDLE], 1);
    pl__cpu_stats_free(&s);
    free(t);
}

/* --------------------------------------------------------------- meminfo */

static void meminfo_m2(void **state)
{
    (void)state;
    int fd = open_tree("m2");
    struct pl__meminfo m;
    assert_int_equal(pl__read_proc_meminfo(fd, &m), 0);
    assert_int_equal(m.have, ((uint64_t)1 << PL__MEM_NFIELDS) - 1); /* every field */
    assert_int_equal(m.v[PL__MEM_TOTAL], 8000000ull * 1024);
    assert_int_equal(m.v[PL__MEM_FREE], 2000000ull * 1024);
    assert_int_equal(m.v[PL__MEM_AVAILABLE], 5000000ull * 1024);
    assert_int_equal(m.v[PL__MEM_BUFFERS], 100000ull * 1024);
    assert_int_equal(m.v[PL__MEM_CACHED], 2500000ull * 1024); /* not SwapCached */
    assert_int_equal(m.v[PL__MEM_SWAP_CACHED], 1000ull * 1024);
    assert_int_equal(m.v[PL__MEM_ACTIVE], 3000000ull * 1024); /* not Active(anon) */
    assert_int_equal(m.v[PL__MEM_SWAP_TOTAL], 3000000ull * 1024);
    assert_int_equal(m.v[PL__MEM_SWAP_FREE], 2500000ull * 1024);
    assert_int_equal(m.v[PL__MEM_DIRTY], 400ull * 1024);
    assert_int_equal(m.v[PL__MEM_WRITEBACK], 40ull * 1024);
    assert_int_equal(m.v[PL__MEM_SHMEM], 50000ull * 1024);
    assert_int_equal(m.v[PL__MEM_SLAB], 300000ull * 1024);
    assert_int_equal(m.v[PL__MEM_SRECLAIMABLE], 200000ull * 1024);
    assert_int_equal(m.v[PL__MEM_COMMIT_LIMIT], 7000000ull * 1024);
    assert_int_equal(m.v[PL__MEM_COMMITTED_AS], 3500000ull * 1024);
    assert_int_equal(m.v[PL__MEM_HUGE_TOTAL], 16); /* a count: no kB */
    assert_int_equal(m.v[PL__MEM_HUGE_FREE], 8);
    assert_int_equal(m.v[PL__MEM_HUGE_PAGE_SIZE], 2048ull * 1024);
    close(fd);
}

static void meminfo_m4_old_kernel(void **state)
{
    (void)state;
    int fd = open_tree("m4");
    struct pl__meminfo m;
    assert_int_equal(pl__read_proc_meminfo(fd, &m), 0);
    assert_false(pl__mem_has(&m, PL__MEM_AVAILABLE));
    assert_false(pl__mem_has(&m, PL__MEM_SHMEM));
    assert_false(pl__mem_has(&m, PL__MEM_HUGE_TOTAL));
    assert_true(pl__mem_has(&m, PL__MEM_SWAP_TOTAL));
    assert_int_equal(m.v[PL__MEM_SWAP_TOTAL], 0);
    assert_int_equal(m.v[PL__MEM_COMMITTED_AS], 3000000ull * 1024);
    assert_int_equal(m.v[PL__MEM_AVAILABLE], 0);
    close(fd);
}

static void meminfo_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",                                      /* no MemTotal */
        "MemFree: 5 kB\n",                       /* no MemTotal */
        "MemTotal 5 kB\n",                       /* no colon */
        "MemTotal:\n",                           /* no number */
        "MemTotal: 5 MB\n",                      /* unknown unit */
        "MemTotal: 5 kB\nMemTotal: 6 kB\n",      /* twice */
        ": 5 kB\n",                              /* empty key */
        "MemTotal: -5 kB\n",                     /* negative */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct pl__meminfo m;
        int rc = pl__parse_proc_meminfo(bad[i], &m);
        if (rc != -EINVAL) fail_msg("case %zu (%s) gave %d", i, bad[i], rc);
    }
    struct pl__meminfo m;
    /* issue 11 item 8: beyond 64 bits is not a number (never saturated) */
    assert_int_equal(pl__parse_proc_meminfo("MemTotal: 99999999999999999999 kB\n", &m), -EINVAL);
    assert_int_equal(pl__parse_proc_meminfo("MemTotal: 18014398509481984 kB\n", &m), -EINVAL); /* x 1024 */
    /* a known key with a bad value is marked bad, the rest is read */
    assert_int_equal(pl__parse_proc_meminfo("MemTotal: 5 kB\nMemAvailable: 1e9x kB\nFoo: bar\nCached: 99999999999999999999\n", &m), 0);
    assert_int_equal(m.v[PL__MEM_TOTAL], 5120);
    assert_false(pl__mem_has(&m, PL__MEM_AVAILABLE));
    assert_true((m.bad >> PL__MEM_AVAILABLE) & 1u);
    assert_true((m.bad >> PL__MEM_CACHED) & 1u);
    assert_false((m.bad >> PL__MEM_TOTAL) & 1u);
    assert_int_equal(pl__parse_proc_meminfo("MemTotal: 5 kB\nMemAvailable: x\nMemAvailable: 5 kB\n", &m), -EINVAL);
    const char t[] = "MemTotal: 8000000 kB\nMemFree: 2000";
    int fd = tmp_tree("meminfo", t, sizeof t - 1);
    assert_int_equal(pl__read_proc_meminfo(fd, &m), -EINVAL);
    close(fd);
    tmp_cleanup();
}

/* ---------------------------------------------------------------- vmstat */

static void vmstat_m2(void **state)
{
    (void)state;
    int fd = open_tree("m2");
    struct pl__vmstat v;
    assert_int_equal(pl__read_proc_vmstat(fd, &v), 0);
    assert_int_equal(v.have, (1u << PL__VM_NFIELDS) - 1);
    assert_int_equal(v.v[PL__VM_PGPGIN], 400000);
    assert_int_equal(v.v[PL__VM_PGPGOUT], 600000);
    assert_int_equal(v.v[PL__VM_PSWPIN], 1000);
    assert_int_equal(v.v[PL__VM_PSWPOUT], 3000);
    assert_int_equal(v.v[PL__VM_PGFAULT], 5000000);
    assert_int_equal(v.v[PL__VM_PGMAJFAULT], 7000);
    close(fd);
}

static void vmstat_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {"pgfault\n", "pgfault x\n", "pgfault 1 2\n", " 5\n",
                                      "pgfault 1\npgfault 2\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct pl__vmstat v;
        int rc = pl__parse_proc_vmstat(bad[i], &v);
        if (rc != -EINVAL) fail_msg("case %zu (%s) gave %d", i, bad[i], rc);
    }
    struct pl__vmstat v;
    assert_int_equal(pl__parse_proc_vmstat("nr_foo 1\npgfault 2\n", &v), 0);
    assert_int_equal(v.have, 1u << PL__VM_PGFAULT);
    assert_int_equal(v.v[PL__VM_PGFAULT], 2);
    assert_int_equal(v.v[PL__VM_PSWPIN], 0);
}

/* The keys are found by bucket (length, first and last byte) and then
 * compared: a near miss of the same length or bucket is not the key, a key
 * of another bucket is still found, and a wanted key twice is malformed. */
static void vmstat_near_keys(void **state)
{
    (void)state;
    struct pl__vmstat v;
    assert_int_equal(pl__parse_proc_vmstat("pgfaulx 1\npgfaul 2\npgfaultt 3\nqgfault 4\npgpgin 5\n", &v), 0);
    assert_int_equal(v.have, 1u << PL__VM_PGPGIN);
    assert_int_equal(v.v[PL__VM_PGPGIN], 5);
    /* same length, first and last byte as pgfault */
    assert_int_equal(pl__parse_proc_vmstat("pgxxxxt 1\npgfault 7\n", &v), 0);
    assert_int_equal(v.have, 1u << PL__VM_PGFAULT);
    assert_int_equal(v.v[PL__VM_PGFAULT], 7);
    assert_int_equal(pl__parse_proc_vmstat("pgmajfault 1\nnr_x 2\npgmajfault 3\n", &v), -EINVAL);
    assert_int_equal(pl__parse_proc_vmstat("pgfault 18446744073709551615\n", &v), 0);
    assert_true(v.v[PL__VM_PGFAULT] == UINT64_MAX);
    assert_int_equal(pl__parse_proc_vmstat("pgfault 18446744073709551616\n", &v), -EINVAL);
    /* every line is checked, wanted or not */
    assert_int_equal(pl__parse_proc_vmstat("pgfault 1\nnr_x 2x\n", &v), -EINVAL);
    assert_int_equal(pl__parse_proc_vmstat("pgfault 1\nnr_x\t\n", &v), -EINVAL);
    assert_int_equal(pl__parse_proc_vmstat("pgfault 1\nnr\x01x 2\n", &v), 0); /* a control byte is a name byte */
}

static void meminfo_near_keys(void **state)
{
    (void)state;
    struct pl__meminfo m;
    assert_int_equal(pl__parse_proc_meminfo("MemTotal: 1 kB\nMemTotaX: 2 kB\nMemFreX: 3 kB\nCachez: 4 kB\n"
                                            "Active(anon): 5 kB\nActive(file): 6 kB\n", &m), 0);
    assert_int_equal(m.have, (1ull << PL__MEM_TOTAL) | (1ull << PL__MEM_ACTIVE_FILE));
    assert_int_equal(m.v[PL__MEM_ACTIVE_FILE], 6 * 1024);
    assert_int_equal(pl__parse_proc_meminfo("MemTotal: 1 kB\nCached: 2 kB\nCached: 2 kB\n", &m), -EINVAL);
    /* a wanted key with a bad value, then the same key again */
    assert_int_equal(pl__parse_proc_meminfo("MemTotal: 1 kB\nCached: 2 MB\nCached: 2 kB\n", &m), -EINVAL);
    /* an unwanted key's value is not checked; its line still needs a colon */
    assert_int_equal(pl__parse_proc_meminfo("MemTotal: 1 kB\nFoo: ??\n", &m), 0);
    assert_int_equal(pl__parse_proc_meminfo("MemTotal: 1 kB\nFoo ??\n", &m), -EINVAL);
}

/* --------------------------------------------------------------- loadavg */

static void loadavg_trees(void **state)
{
    (void)state;
    int fd = open_tree("m2");
    struct pl__loadavg l;
    assert_int_equal(pl__read_proc_loadavg(fd, &l), 0);
    assert_int_equal(l.load100[0], 150);
    assert_int_equal(l.load100[1], 75);
    assert_int_equal(l.load100[2], 25);
    assert_int_equal(l.running, 3);
    assert_int_equal(l.threads, 250);
    assert_int_equal(l.last_pid, 4321);
    close(fd);
    fd = open_tree("m4");
    assert_int_equal(pl__read_proc_loadavg(fd, &l), 0);
    assert_int_equal(l.load100[0], 0);
    assert_int_equal(l.load100[1], 1);
    assert_int_equal(l.load100[2], 5);
    assert_int_equal(l.threads, 100);
    close(fd);
}

static void loadavg_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "1.50 0.75 0.25 3/250 4321",      /* no newline */
        "1.5 0.75 0.25 3/250 4321\n",     /* one decimal */
        "1.500 0.75 0.25 3/250 4321\n",   /* three decimals */
        "1.50 0.75 3/250 4321\n",         /* two loads */
        "1.50 0.75 0.25 3 250 4321\n",    /* no slash */
        "1.50 0.75 0.25 3/250\n",         /* no last pid */
        "1.50 0.75 0.25 3/250 4321 9\n",  /* extra field */
        "1.50 0.75 0.25 3/250 4321\nx\n", /* extra line */
        "42949672.96 0.75 0.25 3/250 4321\n", /* beyond 32 bits: was UINT32_MAX */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct pl__loadavg l;
        int rc = pl__parse_proc_loadavg(bad[i], &l);
        if (rc != -EINVAL) fail_msg("case %zu (%s) gave %d", i, bad[i], rc);
    }
}

/* -------------------------------------------------------------- pressure */

static void pressure_m2(void **state)
{
    (void)state;
    int fd = open_tree("m2");
    struct pl__psi p;
    assert_int_equal(pl__read_proc_pressure(fd, PL__PSI_CPU, &p), 0);
    assert_true(p.have_some);
    assert_true(p.have_full);
    assert_int_equal(p.some.avg100[0], 125);
    assert_int_equal(p.some.avg100[1], 50);
    assert_int_equal(p.some.avg100[2], 10);
    assert_int_equal(p.some.total_us, 123456789);
    assert_int_equal(p.full.total_us, 0);
    assert_int_equal(pl__read_proc_pressure(fd, PL__PSI_MEMORY, &p), 0);
    assert_int_equal(p.some.avg100[0], 200);
    assert_int_equal(p.full.avg100[0], 100);
    assert_int_equal(p.full.avg100[1], 75);
    assert_int_equal(p.full.total_us, 2500);
    assert_int_equal(pl__read_proc_pressure(fd, PL__PSI_IO, &p), 0);
    assert_int_equal(p.some.avg100[0], 1050);
    assert_int_equal(p.some.total_us, 999999);
    assert_int_equal(p.full.avg100[0], 525);
    assert_int_equal(p.full.total_us, 444444);
    assert_int_equal(pl__read_proc_pressure(fd, PL__PSI_NRES, &p), -EINVAL);
    close(fd);
    fd = open_tree("m4"); /* no PSI on this kernel */
    assert_int_equal(pl__read_proc_pressure(fd, PL__PSI_CPU, &p), -ENOENT);
    assert_int_equal(pl__read_proc_pressure(fd, PL__PSI_IO, &p), -ENOENT);
    close(fd);
}

static void pressure_formats(void **state)
{
    (void)state;
    struct pl__psi p;
    /* before 5.13 cpu has only "some" */
    assert_int_equal(pl__parse_proc_pressure("some avg10=0.00 avg60=0.00 avg300=0.00 total=7\n", &p), 0);
    assert_true(p.have_some);
    assert_false(p.have_full);
    assert_int_equal(p.some.total_us, 7);
    static const char *const bad[] = {
        "",
        "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",       /* no some */
        "some avg10=0.00 avg60=0.00 total=7\n",                   /* avg300 missing */
        "some avg10=0.0 avg60=0.00 avg300=0.00 total=7\n",        /* one decimal */
        "some avg10=100.01 avg60=0.00 avg300=0.00 total=7\n",     /* over 100% */
        "some avg10=0.00 avg60=0.00 avg300=0.00 total=\n",        /* no total */
        "some avg10=0.00 avg60=0.00 avg300=0.00 total= 7\n",      /* space */
        "some avg10=0.00 avg60=0.00 avg300=0.00 total=7 x\n",     /* trailing */
        "some avg10=0.00 avg60=0.00 avg300=0.00 total=7\nsome avg10=0.00 avg60=0.00 avg300=0.00 total=7\n",
        "none avg10=0.00 avg60=0.00 avg300=0.00 total=7\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = pl__parse_proc_pressure(bad[i], &p);
        if (rc != -EINVAL) fail_msg("case %zu (%s) gave %d", i, bad[i], rc);
    }
    const char t[] = "some avg10=0.00 avg60=0.00 avg300=0.00 total=7\nfull avg10=0.0";
    int fd = tmp_tree("pressure/io", t, sizeof t - 1);
    assert_int_equal(pl__read_proc_pressure(fd, PL__PSI_IO, &p), -EINVAL);
    close(fd);
    tmp_cleanup();
}

/* ---------------------------------------------------------------- uptime */

static void uptime_trees(void **state)
{
    (void)state;
    int fd = open_tree("m2");
    struct pl__uptime u;
    assert_int_equal(pl__read_proc_uptime(fd, &u), 0);
    assert_int_equal(u.up_cs, 8640000);
    assert_int_equal(u.idle_cs, 17000050);
    close(fd);
    static const char *const bad[] = {"", "1.00\n", "1.00 2.00", "1 2\n", "1.00 2.00 3.00\n", "x.00 2.00\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = pl__parse_proc_uptime(bad[i], &u);
        if (rc != -EINVAL) fail_msg("case %zu (%s) gave %d", i, bad[i], rc);
    }
}

/* ----------------------------------------------------------------- swaps */

static void swaps_m2(void **state)
{
    (void)state;
    int fd = open_tree("m2");
    struct pl__swaps s;
    memset(&s, 0, sizeof s);
    assert_int_equal(pl__read_proc_swaps(fd, &s), 0);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.a[0].name, "/dev/sda2");
    assert_string_equal(s.a[0].type, "partition");
    assert_int_equal(s.a[0].size_kib, 2000000);
    assert_int_equal(s.a[0].used_kib, 250000);
    assert_int_equal(s.a[0].priority, -2);
    assert_string_equal(s.a[1].name, "/var/swap file"); /* \040 decoded */
    assert_string_equal(s.a[1].type, "file");
    assert_int_equal(s.a[1].size_kib, 1000000);
    assert_int_equal(s.a[1].used_kib, 250000);
    assert_int_equal(s.a[1].priority, -3);
    pl__swaps_free(&s);
    close(fd);
    fd = open_tree("m4");
    assert_int_equal(pl__read_proc_swaps(fd, &s), 0);
    assert_int_equal(s.n, 0); /* header only: no swap */
    pl__swaps_free(&s);
    close(fd);
}

static void swaps_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "/dev/sda2 partition 1 2 -2\n",                              /* no header */
        "Filename Type Size Used Priority\n/dev/sda2 partition 1 2\n", /* no priority */
        "Filename Type Size Used Priority\n/dev/sda2 partition x 2 -2\n",
        "Filename Type Size Used Priority\n/dev/sda2 partition 1 2 -2 9\n",
        "Filename Type Size Used Priority\n/a\\000b partition 1 2 -2\n", /* NUL escape */
        "Filename Type Size Used Priority\n\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct pl__swaps s;
        memset(&s, 0, sizeof s);
        int rc = pl__parse_proc_swaps(bad[i], &s);
        if (rc != -EINVAL) fail_msg("case %zu (%s) gave %d", i, bad[i], rc);
        pl__swaps_free(&s);
    }
    /* a very long path is truncated, never overflowed; other escapes decode */
    size_t cap = 8192;
    char *t = malloc(cap);
    assert_non_null(t);
    size_t len = (size_t)snprintf(t, cap, "Filename Type Size Used Priority\n/");
    for (int i = 0; i < 3000; i++) t[len++] = 'a';
    len += (size_t)snprintf(t + len, cap - len, " file 10 5 1\n/x\\134y\\011z file 20 0 -1\n");
    struct pl__swaps s;
    memset(&s, 0, sizeof s);
    assert_int_equal(pl__parse_proc_swaps(t, &s), 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(strlen(s.a[0].name), PL__SWAP_NAME_MAX - 1);
    assert_int_equal(s.a[0].used_kib, 5);
    assert_string_equal(s.a[1].name, "/x\\y\tz");
    assert_int_equal(s.a[1].priority, -1);
    pl__swaps_free(&s);
    free(t);
}

/* ------------------------------------------------- interrupts, softirqs */

static void interrupts_and_softirqs(void **state)
{
    (void)state;
    struct pl__percpu_sums s;
    memset(&s, 0, sizeof s);
    int fd = open_tree("m2");
    assert_int_equal(pl__read_proc_interrupts(fd, &s), 0);
    assert_int_equal(s.ncol, 2);
    assert_int_equal(s.cpu[0], 0);
    assert_int_equal(s.cpu[1], 1);
    assert_int_equal(s.sum[0], 1045); /* 40 + 0 + 5 + 1000; ERR and MIS left out */
    assert_int_equal(s.sum[1], 2015);
    assert_int_equal(pl__read_proc_softirqs(fd, &s), 0);
    assert_int_equal(s.ncol, 2);
    assert_int_equal(s.sum[0], 968);
    assert_int_equal(s.sum[1], 1289);
    close(fd);
    fd = open_tree("m4");
    assert_int_equal(pl__read_proc_interrupts(fd, &s), 0); /* online CPUs only */
    assert_int_equal(s.ncol, 3);
    assert_int_equal(s.cpu[2], 3);
    assert_int_equal(s.sum[0], 110);
    assert_int_equal(s.sum[1], 220);
    assert_int_equal(s.sum[2], 330);
    assert_int_equal(pl__read_proc_softirqs(fd, &s), 0); /* every possible CPU */
    assert_int_equal(s.ncol, 4);
    assert_int_equal(s.cpu[2], 2);
    assert_int_equal(s.sum[2], 29);
    assert_int_equal(s.sum[3], 43);
    close(fd);
    pl__percpu_sums_free(&s);
}

static void percpu_table_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "\n",                                  /* no columns */
        " CPU0 CPUx\n",                        /* bad column */
        " CPU1 CPU0\n",                        /* descending */
        " CPU0 CPU1\n HI 1 2\n",               /* no colon */
        " CPU0 CPU1\n HI: 1\n",                /* short row in softirqs */
        " CPU0 GPU1\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct pl__percpu_sums s;
        memset(&s, 0, sizeof s);
        int rc = pl__parse_percpu_table(bad[i], 0, &s);
        if (rc != -EINVAL) fail_msg("case %zu (%s) gave %d", i, bad[i], rc);
        pl__percpu_sums_free(&s);
    }
    /* interrupts: short rows and rows whose text holds digits */
    struct pl__percpu_sums s;
    memset(&s, 0, sizeof s);
    assert_int_equal(pl__parse_percpu_table("  CPU0 CPU1 CPU2\n 5: 1 2 3 edge 7\n 6: 4 5 6-edge\nERR: 9\n", 1, &s),
                     0);
    assert_int_equal(s.sum[0], 1);
    assert_int_equal(s.sum[1], 2);
    assert_int_equal(s.sum[2], 3);
    /* a sum beyond 64 bits is malformed; it used to be UINT64_MAX */
    assert_int_equal(pl__parse_percpu_table("  CPU0\n 5: 18446744073709551615\n 6: 0\n", 1, &s), 0);
    assert_true(s.sum[0] == UINT64_MAX);
    assert_int_equal(pl__parse_percpu_table("  CPU0\n 5: 18446744073709551615\n 6: 1\n", 1, &s), -EINVAL);
    pl__percpu_sums_free(&s);
}

/* ------------------------------------------------------------------ pids */

static void pids_trees(void **state)
{
    (void)state;
    uint64_t n = 0;
    int fd = open_tree("m2");
    assert_int_equal(pl__count_proc_pids(fd, &n), 0);
    assert_int_equal(n, 4); /* 1 2 300 4321; not 12a, sys, the file 77 */
    close(fd);
    fd = open_tree("m4");
    assert_int_equal(pl__count_proc_pids(fd, &n), 0);
    assert_int_equal(n, 2);
    int sub = openat(fd, "proc", O_RDONLY | O_DIRECTORY);
    assert_int_equal(pl__count_proc_pids(sub, &n), -ENOENT); /* no proc/proc */
    close(sub);
    close(fd);
}

static void fixed2_parse(void **state)
{
    (void)state;
    uint64_t v;
    const char *s = "12.34 x";
    assert_int_equal(pl__parse_fixed2(&s, &v), 1);
    assert_int_equal(v, 1234);
    assert_string_equal(s, " x");
    s = "0.05";
    assert_int_equal(pl__parse_fixed2(&s, &v), 1);
    assert_int_equal(v, 5);
    s = "184467440737095516.15"; /* UINT64_MAX: the largest */
    assert_int_equal(pl__parse_fixed2(&s, &v), 1);
    assert_true(v == UINT64_MAX);
    /* beyond 64 bits once times 100: malformed, it used to be UINT64_MAX
     * (found by fuzz_procfs) */
    const char *bad[] = {"12", "12.", "12.3", "12.345", ".12", "a.12", "184467440737095516.16",
                         "5555755555555155555.51"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s = bad[i];
        assert_int_equal(pl__parse_fixed2(&s, &v), 0);
        assert_ptr_equal(s, bad[i]);
    }
}

/* ------------------------------------------------------------------ live */

static void live_machine(void **state)
{
    (void)state;
    int fd = pl__root_open("/", "");
    assert_true(fd >= 0);
    struct pl__cpu_stats s;
    memset(&s, 0, sizeof s);
    assert_int_equal(pl__read_proc_stat(fd, &s), 0);
    assert_int_equal(s.ncpu, (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
    assert_true(s.have & PL__STAT_HAVE_BTIME);
    struct sysinfo si;
    assert_int_equal(sysinfo(&si), 0);
    struct pl__meminfo m;
    assert_int_equal(pl__read_proc_meminfo(fd, &m), 0);
    assert_int_equal(m.v[PL__MEM_TOTAL], (uint64_t)si.totalram * si.mem_unit);
    struct pl__vmstat vm;
    assert_int_equal(pl__read_proc_vmstat(fd, &vm), 0);
    assert_true(vm.have & (1u << PL__VM_PGFAULT));
    struct pl__loadavg la;
    assert_int_equal(pl__read_proc_loadavg(fd, &la), 0);
    assert_true(la.threads >= 1);
    struct pl__uptime up;
    assert_int_equal(pl__read_proc_uptime(fd, &up), 0);
    long diff = (long)(up.up_cs / 100) - si.uptime;
    assert_true(diff >= -2 && diff <= 2);
    struct pl__swaps sw;
    memset(&sw, 0, sizeof sw);
    assert_int_equal(pl__read_proc_swaps(fd, &sw), 0);
    uint64_t tot = 0;
    for (uint32_t i = 0; i < sw.n; i++) tot += sw.a[i].size_kib;
    assert_int_equal(tot * 1024, (uint64_t)si.totalswap * si.mem_unit);
    pl__swaps_free(&sw);
    struct pl__percpu_sums irq;
    memset(&irq, 0, sizeof irq);
    int rc = pl__read_proc_interrupts(fd, &irq);
    assert_true(rc == 0 || rc == -EACCES || rc == -ENOENT);
    if (rc == 0) assert_int_equal(irq.ncol, s.ncpu);
    pl__percpu_sums_free(&irq);
    struct pl__psi p;
    rc = pl__read_proc_pressure(fd, PL__PSI_CPU, &p);
    assert_true(rc == 0 || rc == -ENOENT || rc == -EOPNOTSUPP);
    uint64_t n;
    assert_int_equal(pl__count_proc_pids(fd, &n), 0);
    assert_true(n >= 1);
    pl__cpu_stats_free(&s);
    close(fd);
}

/* ------------------------------------------ counts per CPU across hotplug */

/* The tracker of issue 33 on its own (cpu_track.c): continuity, sums over
 * the CPUs present in both readings, marks, groups, the cap and the
 * hostile cases (ids not ascending, values past 2^64). */
static void cpu_track_rules(void **state)
{
    (void)state;
    struct pl__cpu_track t;
    pl__cpu_track_init(&t, 2);
    uint32_t ids[3] = {0, 1, 2};
    uint64_t v[6] = {10, 100, 20, 200, 30, 300}, out[2], m;
    assert_int_equal(pl__cpu_track_update(&t, 3, ids, v, NULL, NULL, NULL, 0), 0);
    pl__cpu_track_sum(&t, PL__CPU_TRACK_ALL, out, &m);
    assert_int_equal(m, 0);
    assert_int_equal(out[0], 60); /* the first readings */
    assert_int_equal(out[1], 600);
    /* cpu1 leaves; cpu0 +1, cpu2 +2 */
    uint32_t ids2[2] = {0, 2};
    uint64_t v2[4] = {11, 101, 32, 302};
    assert_int_equal(pl__cpu_track_update(&t, 2, ids2, v2, NULL, NULL, NULL, 0), 0);
    pl__cpu_track_sum(&t, PL__CPU_TRACK_ALL, out, &m);
    assert_int_equal(out[0], 63);
    assert_int_equal(pl__cpu_track_get(&t, 1, out, &m), -ENOENT);
    /* cpu1 returns with far more (its count since boot): marked, not summed;
     * cpu2 went back (restarted): marked, not summed; cpu0 +1 */
    uint64_t v3[6] = {12, 102, 5000, 5000, 1, 1};
    assert_int_equal(pl__cpu_track_update(&t, 3, ids, v3, NULL, NULL, NULL, 0), 0);
    pl__cpu_track_sum(&t, PL__CPU_TRACK_ALL, out, &m);
    assert_int_equal(m, 0);
    assert_int_equal(out[0], 64);
    assert_int_equal(pl__cpu_track_get(&t, 1, out, &m), 0);
    assert_int_equal(m, 3);
    assert_int_equal(out[0], 20); /* goes on from where it was */
    assert_int_equal(pl__cpu_track_get(&t, 2, out, &m), 0);
    assert_int_equal(m, 3);
    assert_int_equal(out[0], 32);
    assert_int_equal(pl__cpu_track_get(&t, 0, out, &m), 0);
    assert_int_equal(m, 0);
    /* then all count again */
    uint64_t v4[6] = {13, 103, 5001, 5001, 3, 3};
    assert_int_equal(pl__cpu_track_update(&t, 3, ids, v4, NULL, NULL, NULL, 0), 0);
    pl__cpu_track_sum(&t, PL__CPU_TRACK_ALL, out, &m);
    assert_int_equal(out[0], 64 + 1 + 1 + 2);
    /* only CPUs that could add nothing: the sum is marked */
    uint64_t v5[6] = {0, 0, 0, 0, 0, 0};
    assert_int_equal(pl__cpu_track_update(&t, 3, ids, v5, NULL, NULL, NULL, 0), 0);
    pl__cpu_track_sum(&t, PL__CPU_TRACK_ALL, out, &m);
    assert_int_equal(m, 3);
    assert_int_equal(out[0], 0);
    /* ids not ascending: refused, nothing changes */
    uint32_t bad[2] = {2, 1};
    uint64_t before = t.gen;
    assert_int_equal(pl__cpu_track_update(&t, 2, bad, v2, NULL, NULL, NULL, 0), -EINVAL);
    assert_int_equal(t.gen, before);
    pl__cpu_track_free(&t);
    assert_int_equal(t.nv, 2);
    assert_int_equal(t.n, 0);
}

static void cpu_track_groups_and_cap(void **state)
{
    (void)state;
    struct pl__cpu_track t;
    pl__cpu_track_init(&t, 3);
    uint32_t ids[2] = {0, 1};
    uint64_t v[6] = {0, 0, 7, 0, 0, 7}, out[3], m;
    assert_int_equal(pl__cpu_track_update(&t, 2, ids, v, NULL, NULL, NULL, 0), 0);
    pl__cpu_track_set_group(&t, 0, 0); /* in its first update: no mark */
    pl__cpu_track_sum(&t, 0, out, &m);
    assert_int_equal(m, 0);
    assert_int_equal(out[2], 7);
    /* the cap: values 0 and 1 may add 10 in all; 30 and 10 pending share it
     * 3:1, the rest is held and added when there is room */
    uint64_t cap[2] = {10, 100};
    uint64_t v2[6] = {30, 10, 8, 30, 10, 8};
    assert_int_equal(pl__cpu_track_update(&t, 2, ids, v2, NULL, NULL, cap, 2), 0);
    assert_int_equal(pl__cpu_track_get(&t, 0, out, &m), 0);
    assert_int_equal(out[0], 7);
    assert_int_equal(out[1], 2);
    assert_int_equal(out[2], 8); /* past the capped ones: never held */
    assert_int_equal(pl__cpu_track_get(&t, 1, out, &m), 0);
    assert_int_equal(out[0], 30);
    assert_int_equal(out[1], 10);
    uint64_t cap2[2] = {100, 100};
    assert_int_equal(pl__cpu_track_update(&t, 2, ids, v2, NULL, NULL, cap2, 2), 0);
    assert_int_equal(pl__cpu_track_get(&t, 0, out, &m), 0);
    assert_int_equal(out[0], 30);
    assert_int_equal(out[1], 10);
    /* a value not read: marked, held back, its next reading counts */
    uint64_t unread[2] = {1, 0};
    uint64_t v3[6] = {999, 11, 9, 31, 11, 9};
    assert_int_equal(pl__cpu_track_update(&t, 2, ids, v3, unread, NULL, NULL, 0), 0);
    assert_int_equal(pl__cpu_track_get(&t, 0, out, &m), 0);
    assert_int_equal(m, 1);
    assert_int_equal(out[1], 11);
    pl__cpu_track_sum(&t, PL__CPU_TRACK_ALL, out, &m);
    assert_int_equal(m, 1); /* a CPU of the sum could not read it */
    uint64_t v4[6] = {35, 11, 9, 31, 11, 9};
    assert_int_equal(pl__cpu_track_update(&t, 2, ids, v4, NULL, NULL, NULL, 0), 0);
    assert_int_equal(pl__cpu_track_get(&t, 0, out, &m), 0);
    assert_int_equal(m, 0);
    assert_int_equal(out[0], 35);
    /* cpu1 joins group 0 after its first update: its past moves with it, so
     * group 0's sum is marked once */
    pl__cpu_track_set_group(&t, 1, 0);
    pl__cpu_track_sum(&t, 0, out, &m);
    assert_int_equal(m, 7);
    pl__cpu_track_sum(&t, PL__CPU_TRACK_ALL, out, &m);
    assert_int_equal(m, 0);
    assert_int_equal(pl__cpu_track_update(&t, 2, ids, v4, NULL, NULL, NULL, 0), 0);
    pl__cpu_track_sum(&t, 0, out, &m);
    assert_int_equal(m, 0);
    /* a sum that would pass 2^64 is marked (a CPU's own values cannot:
     * each is at most its kernel count) */
    uint64_t big[6] = {35, 11, UINT64_MAX - 1, 31, 11, UINT64_MAX - 1};
    assert_int_equal(pl__cpu_track_update(&t, 2, ids, big, NULL, NULL, NULL, 0), 0);
    assert_int_equal(pl__cpu_track_get(&t, 0, out, &m), 0);
    assert_int_equal(m, 0);
    assert_int_equal(out[2], UINT64_MAX - 1);
    pl__cpu_track_sum(&t, PL__CPU_TRACK_ALL, out, &m);
    assert_int_equal(m, 4);
    assert_int_equal(out[2], 0);
    assert_int_equal(out[0], 35 + 31);
    pl__cpu_track_free(&t);
}

/* A CPU whose published count would pass 2^64 (its count restarted near
 * the top and rose again) is frozen and marked; the sum keeps what it had
 * accepted before, as for an offline CPU, and does not fall (found by
 * fuzz.cpu_track). */
static void cpu_track_frozen_cpu_stays_in_the_sum(void **state)
{
    (void)state;
    struct pl__cpu_track t;
    pl__cpu_track_init(&t, 1);
    uint32_t one[1] = {1}, both[2] = {0, 1};
    uint64_t out, m;
    assert_int_equal(pl__cpu_track_update(&t, 1, one, (uint64_t[]){5}, NULL, NULL, NULL, 0), 0);
    assert_int_equal(pl__cpu_track_update(&t, 2, both, (uint64_t[]){100, 6}, NULL, NULL, NULL, 0), 0);
    assert_int_equal(pl__cpu_track_update(&t, 2, both, (uint64_t[]){UINT64_MAX - 1, 7}, NULL, NULL, NULL, 0), 0);
    assert_int_equal(pl__cpu_track_update(&t, 2, both, (uint64_t[]){0, 8}, NULL, NULL, NULL, 0), 0); /* restarted */
    pl__cpu_track_sum(&t, PL__CPU_TRACK_ALL, &out, &m);
    assert_int_equal(m, 0);
    uint64_t before = out;
    assert_int_equal(before, (UINT64_MAX - 101) + 8);
    assert_int_equal(pl__cpu_track_update(&t, 2, both, (uint64_t[]){200, 9}, NULL, NULL, NULL, 0), 0);
    assert_int_equal(pl__cpu_track_get(&t, 0, &out, &m), 0);
    assert_int_equal(m, 1); /* frozen */
    assert_int_equal(out, UINT64_MAX - 1);
    pl__cpu_track_sum(&t, PL__CPU_TRACK_ALL, &out, &m);
    assert_int_equal(m, 0);
    assert_int_equal(out, before + 1); /* cpu1's step; cpu0 stays at what it had */
    pl__cpu_track_free(&t);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stat_m2),
        cmocka_unit_test(stat_m4_offline_cpu),
        cmocka_unit_test(stat_malformed),
        cmocka_unit_test(stat_uneven_columns),
        cmocka_unit_test(stat_truncated_and_missing),
        cmocka_unit_test(stat_many_cpus),
        cmocka_unit_test(meminfo_m2),
        cmocka_unit_test(meminfo_m4_old_kernel),
        cmocka_unit_test(meminfo_malformed),
        cmocka_unit_test(vmstat_m2),
        cmocka_unit_test(vmstat_malformed),
        cmocka_unit_test(vmstat_near_keys),
        cmocka_unit_test(meminfo_near_keys),
        cmocka_unit_test(loadavg_trees),
        cmocka_unit_test(loadavg_malformed),
        cmocka_unit_test(pressure_m2),
        cmocka_unit_test(pressure_formats),
        cmocka_unit_test(uptime_trees),
        cmocka_unit_test(swaps_m2),
        cmocka_unit_test(swaps_malformed),
        cmocka_unit_test(interrupts_and_softirqs),
        cmocka_unit_test(percpu_table_malformed),
        cmocka_unit_test(pids_trees),
        cmocka_unit_test(fixed2_parse),
        cmocka_unit_test(cpu_track_rules),
        cmocka_unit_test(cpu_track_groups_and_cap),
        cmocka_unit_test(cpu_track_frozen_cpu_stays_in_the_sum),
        cmocka_unit_test(live_machine),
    };
    return pl_test_run(tests, argc, argv);
}
