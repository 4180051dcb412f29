/* Live cross-checks (issue 11): the built-in counters, read through PDH
 * (engine, store, provider .so files of the build tree), against the
 * independent tool an operator would use, over the same interval and under
 * a load the test makes itself. Every load is a child that dies with the
 * test (PR_SET_PDEATHSIG) and after a bounded time (alarm), and is killed
 * at the end. docs/testing.md lists each check, its tool and tolerance.
 *
 * The common shape of a rate check: PDH sample 1, start the tool for one
 * interval of T = 5 s, and 0.8 s later (the tool has taken its first
 * reading) start a load of a fixed size that ends well before the tool's
 * last reading; PDH sample 2 as soon as the tool has exited. Both intervals
 * then hold the whole load. They differ in length by the tool's start-up
 * and exit and by our collections' own time (up to ~0.2 s on a loaded
 * machine), so a burst is compared by its count: our raw delta against
 * the tool's rate times T; xc_pdh_count checks besides that PDH's rate is
 * that count over an interval between our collections. The loads are big
 * enough that the tolerances still fail a wrong value (zero, half, double)
 * by far. A load that overran the interval (a machine too busy) fails the
 * check with that reason.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pl_test.h"
#include "xc_util.h"

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

#define now_s xc_now

/* The tools' interval (s), and when the loads start after the tool (ms). */
#define XC_T 5
#define XC_GO_MS 800

/* The loads start on a byte from the parent (one per child) and record in
 * shared memory when they finished; then they wait to be killed, so their
 * process is still there for the second sample. */
struct go {
    int fd[2];
    volatile double *done; /* one slot per load, in a MAP_SHARED page */
    int n;                 /* loads to start */
};

static void go_init(struct go *g)
{
    assert_int_equal(pipe(g->fd), 0);
    void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    g->done = m;
    g->n = 0;
}

static void go_wait(const struct go *g)
{
    char c;
    if (read(g->fd[0], &c, 1) != 1) _exit(4);
}

static void go_start(void *arg)
{
    const struct go *g = arg;
    for (int i = 0; i < g->n; i++)
        if (write(g->fd[1], "g", 1) != 1) fail_msg("cannot start the loads");
}

/* Every load finished before `deadline` (the earliest the tool's last
 * reading can be). */
static void go_check(const struct go *g, double deadline)
{
    for (int i = 0; i < g->n; i++) {
        if (g->done[i] == 0) fail_msg("load %d never finished: the machine is too busy for this check", i);
        if (g->done[i] > deadline)
            fail_msg("load %d finished %.2f s after the tool's interval: the machine is too busy", i,
                     g->done[i] - deadline);
    }
}

static void idle_forever(void)
{
    for (;;) pause();
}

/* The directory must be on a block device: on tmpfs the kernel counts no
 * storage bytes (pidstat's kB_rd/s, kB_wr/s) and no hard faults. */
static void need_disk_backed(const char *dir)
{
    struct statfs sf;
    assert_int_equal(statfs(dir, &sf), 0);
    if (sf.f_type == TMPFS_MAGIC)
        fail_msg("%s is on tmpfs: the storage counters need a disk-backed build directory", dir);
}

/* ----------------------------------------------- Process vs pidstat */

/* Sleep until `start + k * period`: keeps a paced load steady. */
static void pace(double start, long k, double period)
{
    double wait = start + (double)k * period - now_s();
    if (wait > 0) xc_sleep_ms((long)(wait * 1000.0));
}

/* A CPU spinner for 3 s of wall time, at nice -20 (root may; otherwise it
 * stays at 0) so that it gets a good share of a CPU on a busy machine. */
struct spin_arg {
    char name[16];
    const struct go *go;
};

static void spinner(void *arg)
{
    struct spin_arg *a = arg;
    prctl(PR_SET_NAME, a->name);
    setpriority(PRIO_PROCESS, 0, -20);
    go_wait(a->go);
    double end = now_s() + 3.0;
    for (volatile unsigned long x = 0; (x & 0xfffff) != 0 || now_s() < end; x++) {
    }
    a->go->done[2] = now_s();
    idle_forever();
}

/* 32 MiB of 1 MiB buffered writes appended to a new file at 32 MiB/s:
 * each write dirties fresh pages once, so wchar (ours) and write_bytes
 * (pidstat) count the same bytes. */
struct io_arg {
    char name[16];
    char path[4096];
    const struct go *go;
    int slot;
};

static void writer(void *arg)
{
    struct io_arg *a = arg;
    prctl(PR_SET_NAME, a->name);
    int fd = open(a->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) _exit(2);
    static char buf[1 << 20];
    memset(buf, 'w', sizeof buf);
    go_wait(a->go);
    double t0 = now_s();
    for (long k = 0; k < 32; k++) {
        if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) _exit(3);
        pace(t0, k + 1, 1.0 / 32);
    }
    a->go->done[a->slot] = now_s();
    idle_forever();
}

/* 16 MiB of 256 KiB O_DIRECT reads at 16 MiB/s: every byte read (rchar,
 * ours) is a bio the reader submits (read_bytes, pidstat). */
static void reader(void *arg)
{
    struct io_arg *a = arg;
    prctl(PR_SET_NAME, a->name);
    int fd = open(a->path, O_RDONLY | O_DIRECT | O_CLOEXEC);
    if (fd < 0) _exit(2);
    void *buf;
    if (posix_memalign(&buf, 4096, 256 << 10) != 0) _exit(2);
    go_wait(a->go);
    double t0 = now_s();
    for (long k = 0; k < 64; k++) {
        if (pread(fd, buf, 256 << 10, (off_t)k * (256 << 10)) != (256 << 10)) _exit(3);
        pace(t0, k + 1, 1.0 / 64);
    }
    a->go->done[a->slot] = now_s();
    idle_forever();
}

/* 64 MiB of anonymous memory touched page by page (16,384 minor faults),
 * then held. */
static void toucher(void *arg)
{
    struct spin_arg *a = arg;
    prctl(PR_SET_NAME, a->name);
    go_wait(a->go);
    size_t bytes = 64u << 20;
    volatile char *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) _exit(2);
    madvise((void *)m, bytes, MADV_NOHUGEPAGE); /* one fault a page */
    for (size_t off = 0; off < bytes; off += (size_t)sysconf(_SC_PAGESIZE)) m[off] = 1;
    a->go->done[3] = now_s();
    idle_forever();
}

static void write_file(const char *path, size_t bytes)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    static char buf[1 << 20];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (char)(i * 7);
    for (size_t done = 0; done < bytes; done += sizeof buf) assert_int_equal(write(fd, buf, sizeof buf), sizeof buf);
    assert_int_equal(fsync(fd), 0);
    assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
    close(fd);
}

static void live_process_vs_pidstat(void **state)
{
    (void)state;
    xc_need_tool("pidstat", "sysstat");
    char dir[2100];
    xc_mkdtemp(dir, sizeof dir);
    need_disk_backed(dir);
    struct spin_arg sa, ma;
    snprintf(sa.name, sizeof sa.name, "xcs%d", (int)getpid() % 1000000);
    snprintf(ma.name, sizeof ma.name, "xcm%d", (int)getpid() % 1000000);
    struct io_arg w, r;
    snprintf(w.name, sizeof w.name, "xcw%d", (int)getpid() % 1000000);
    snprintf(w.path, sizeof w.path, "%s/written", dir);
    snprintf(r.name, sizeof r.name, "xcr%d", (int)getpid() % 1000000);
    snprintf(r.path, sizeof r.path, "%s/read", dir);
    write_file(r.path, 32 << 20);
    struct go g;
    go_init(&g);
    w.go = r.go = sa.go = ma.go = &g;
    w.slot = 0;
    r.slot = 1;
    g.n = 4; /* the spinner's slot is 2, the toucher's 3 */

    pid_t spin = xc_spawn(spinner, &sa, 25);
    pid_t wr = xc_spawn(writer, &w, 25);
    pid_t rd = xc_spawn(reader, &r, 25);
    pid_t mem = xc_spawn(toucher, &ma, 25);
    xc_sleep_ms(300); /* every load named */

    xc_samples sm = {.q = xc_pdh_open(dir), .n = 8};
    char path[256];
    snprintf(path, sizeof path, "\\Process(%s)\\IO Write Bytes/sec", w.name);
    sm.c[0] = xc_pdh_add(sm.q, path);
    snprintf(path, sizeof path, "\\Process(%s)\\IO Read Bytes/sec", r.name);
    sm.c[1] = xc_pdh_add(sm.q, path);
    snprintf(path, sizeof path, "\\Process(%s)\\%% Processor Time", sa.name);
    sm.c[2] = xc_pdh_add(sm.q, path);
    snprintf(path, sizeof path, "\\Process(%s)\\%% User Time", sa.name);
    sm.c[3] = xc_pdh_add(sm.q, path);
    snprintf(path, sizeof path, "\\Process(%s)\\%% Privileged Time", sa.name);
    sm.c[4] = xc_pdh_add(sm.q, path);
    snprintf(path, sizeof path, "\\Process(%s)\\Page Faults/sec", ma.name);
    sm.c[5] = xc_pdh_add(sm.q, path);
    snprintf(path, sizeof path, "\\Process(%s)\\Working Set", ma.name);
    sm.c[6] = xc_pdh_add(sm.q, path);
    snprintf(path, sizeof path, "\\Process(%s)\\Virtual Bytes", ma.name);
    sm.c[7] = xc_pdh_add(sm.q, path);
    xc_sample(&sm, 0);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "pidstat -u -d -r -p %d,%d,%d,%d %d 1", (int)spin, (int)wr, (int)rd, (int)mem, XC_T);
    double started;
    char *out = xc_run_go(cmd, XC_GO_MS, go_start, &g, &started);
    xc_sample(&sm, 1);
    double ours_w = xc_pdh_count(&sm, 0, "IO Write Bytes/sec"), ours_r = xc_pdh_count(&sm, 1, "IO Read Bytes/sec");
    double ours_cpu = xc_pdh_seconds(&sm, 2, "% Processor Time"), ours_usr = xc_pdh_seconds(&sm, 3, "% User Time"),
           ours_sys = xc_pdh_seconds(&sm, 4, "% Privileged Time");
    double ours_flt = xc_pdh_count(&sm, 5, "Page Faults/sec"), ours_ws = xc_pdh_value(sm.c[6], "Working Set"),
           ours_vsz = xc_pdh_value(sm.c[7], "Virtual Bytes");
    xc_kill(spin);
    xc_kill(wr);
    xc_kill(rd);
    xc_kill(mem);
    PdhCloseQuery(sm.q);
    go_check(&g, started + XC_T);
    char sp[16], wp[16], rp[16], mp[16];
    snprintf(mp, sizeof mp, "%d", (int)mem);
    snprintf(sp, sizeof sp, "%d", (int)spin);
    snprintf(wp, sizeof wp, "%d", (int)wr);
    snprintf(rp, sizeof rp, "%d", (int)rd);
    /* CPU seconds: pidstat's percentages of its interval */
    double their_cpu = xc_column(out, "Average:", sp, "%CPU") / 100.0 * XC_T,
           their_usr = xc_column(out, "Average:", sp, "%usr") / 100.0 * XC_T,
           their_sys = xc_column(out, "Average:", sp, "%system") / 100.0 * XC_T;
    double their_w = xc_column(out, "Average:", wp, "kB_wr/s") * 1024.0 * XC_T;
    double their_r = xc_column(out, "Average:", rp, "kB_rd/s") * 1024.0 * XC_T;
    double their_flt = (xc_column(out, "Average:", mp, "minflt/s") + xc_column(out, "Average:", mp, "majflt/s")) * XC_T;
    double their_rss = xc_column(out, "Average:", mp, "RSS") * 1024.0, their_vsz = xc_column(out, "Average:", mp, "VSZ") * 1024.0;
    free(out);
    /* Below a quarter of its 3 s the comparison could not tell a wrong
     * value well. */
    if (their_cpu < 0.75) fail_msg("the spinner got only %.2f s of CPU in 3 s: the machine is too busy", their_cpu);
    /* The spinner's 3 s are in both intervals, so both count the same CPU
     * time: pidstat in whole clock ticks (10 ms) at each end and two
     * decimals of a percentage. 2 % + 30 ms: a zero, a half or a double
     * fails. */
    xc_close_to("Process % Processor Time (spinner, s) vs %CPU x T", ours_cpu, their_cpu, 0.02, 0.03);
    xc_close_to("Process % User Time (spinner, s) vs %usr x T", ours_usr, their_usr, 0.02, 0.03);
    xc_close_to("Process % Privileged Time (spinner, s) vs %system x T", ours_sys, their_sys, 0.02, 0.03);
    /* Bursts, compared by their bytes (pidstat's kB/s, two decimals, times
     * its interval): the same 32 MiB and 16 MiB in both. 2 %. */
    xc_close_to("Process IO Write Bytes (writer) vs kB_wr/s x T", ours_w, their_w, 0.02, 0.0);
    xc_close_to("Process IO Read Bytes (O_DIRECT reader) vs kB_rd/s x T", ours_r, their_r, 0.02, 0.0);
    /* The toucher's 16,384 faults in both intervals (pidstat's two
     * decimals, its real interval up to 1-2 % past T): 2 % + 20. Its
     * memory is held still after, so the sizes both read at their second
     * sample agree: Virtual Bytes (stat vsize) against VSZ to the KiB
     * pidstat prints; Working Set (status VmRSS, the kernel's exact sum of
     * its per-CPU RSS counters) against RSS (stat rss, the same counters
     * without the per-CPU parts not yet folded in: 15-32 pages less here),
     * so 1 % + 1 MiB of 64 MiB. */
    xc_close_to("Process Page Faults (toucher) vs (minflt/s + majflt/s) x T", ours_flt, their_flt, 0.02, 20.0);
    if (their_flt < 16000) fail_msg("pidstat saw %.0f faults of the toucher's 16,384", their_flt);
    xc_close_to("Process Working Set (toucher) vs RSS", ours_ws, their_rss, 0.01, 1048576.0);
    xc_close_to("Process Virtual Bytes (toucher) vs VSZ", ours_vsz, their_vsz, 0.0, 1024.0);
    if (their_w < 0.98 * (32 << 20) || their_r < 0.98 * (16 << 20))
        fail_msg("pidstat saw less than the loads did (write %.0f B, read %.0f B)", their_w, their_r);
    xc_rmtree(dir);
}

/* ----------------------------------------------- Memory vs sar -B */

struct fault_arg {
    char path[4096];
    size_t bytes;
    const struct go *go;
};

/* Hard faults from a mapped file for 3 s: drop it from the page cache, map
 * it with MADV_RANDOM (no read-around: one page read per fault), touch
 * every page; again until the 3 s are over. */
static void faulter(void *arg)
{
    struct fault_arg *a = arg;
    int fd = open(a->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) _exit(2);
    long pg = sysconf(_SC_PAGESIZE);
    go_wait(a->go);
    double end = now_s() + 3.0;
    while (now_s() < end) {
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        volatile char *m = mmap(NULL, a->bytes, PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) _exit(3);
        madvise((void *)m, a->bytes, MADV_RANDOM);
        unsigned sum = 0;
        for (size_t off = 0; off < a->bytes && ((off & ((1u << 20) - 1)) != 0 || now_s() < end); off += (size_t)pg)
            sum += (unsigned)m[off];
        (void)sum;
        munmap((void *)m, a->bytes);
    }
    a->go->done[0] = now_s();
    idle_forever();
}

static void live_memory_faults_vs_sar(void **state)
{
    (void)state;
    xc_need_tool("sar", "sysstat");
    char dir[2100];
    xc_mkdtemp(dir, sizeof dir);
    need_disk_backed(dir);
    struct go g;
    go_init(&g);
    g.n = 1;
    struct fault_arg a;
    a.bytes = 64u << 20;
    a.go = &g;
    snprintf(a.path, sizeof a.path, "%s/mapped", dir);
    write_file(a.path, a.bytes);
    pid_t f = xc_spawn(faulter, &a, 25);

    xc_samples sm = {.q = xc_pdh_open(dir), .n = 9};
    sm.c[0] = xc_pdh_add(sm.q, "\\Memory\\Page Reads/sec");
    sm.c[1] = xc_pdh_add(sm.q, "\\Memory\\Pages Input/sec");
    sm.c[2] = xc_pdh_add(sm.q, "\\Memory\\Pages/sec");
    sm.c[3] = xc_pdh_add(sm.q, "\\Memory\\Page Faults/sec");
    /* sizes, read at the end of the interval by both */
    const char *sizes[] = {"Available Bytes", "Free Bytes", "Buffers Bytes", "Cached Bytes", "Committed Bytes"};
    const char *sar_cols[] = {"kbavail", "kbmemfree", "kbbuffers", "kbcached", "kbcommit"};
    for (int i = 0; i < 5; i++) {
        char path[64];
        snprintf(path, sizeof path, "\\Memory\\%s", sizes[i]);
        sm.c[4 + i] = xc_pdh_add(sm.q, path);
    }
    xc_sample(&sm, 0);
    double started;
    char cmd[64];
    snprintf(cmd, sizeof cmd, "sar -B -W -r %d 1", XC_T);
    char *out = xc_run_go(cmd, XC_GO_MS, go_start, &g, &started);
    xc_sample(&sm, 1);
    double ours_reads = xc_pdh_count(&sm, 0, "Page Reads/sec"), ours_input = xc_pdh_count(&sm, 1, "Pages Input/sec"),
           ours_pages = xc_pdh_count(&sm, 2, "Pages/sec"), ours_faults = xc_pdh_count(&sm, 3, "Page Faults/sec");
    double ours_size[5];
    for (int i = 0; i < 5; i++) ours_size[i] = xc_pdh_value(sm.c[4 + i], sizes[i]);
    xc_kill(f);
    PdhCloseQuery(sm.q);
    go_check(&g, started + XC_T);
    double majflt = xc_column(out, "Average:", NULL, "majflt/s");
    double pgpgin = xc_column(out, "Average:", NULL, "pgpgin/s");
    double pswpout = xc_column(out, "Average:", NULL, "pswpout/s");
    double faults = xc_column(out, "Average:", NULL, "fault/s");
    double their_size[5];
    for (int i = 0; i < 5; i++) their_size[i] = xc_column(out, "Average:", NULL, sar_cols[i]) * 1024.0;
    free(out);
    /* 1000 faults at least (here 5,000 to 45,000, as fast as the disk
     * answers): enough that the tolerance below fails a zero, a half or a
     * double */
    if (majflt * XC_T < 1000.0)
        fail_msg("only %.0f hard faults/s: the load did not fault (is the page cache dropped?)", majflt);
    /* Both count pgmajfault of /proc/vmstat: the load's 3 s of faults
     * (thousands a second) are in both intervals; the rest of the machine
     * adds a few tens a second over intervals that differ by up to ~0.2 s;
     * sar's two decimals. 3 % + 100. */
    xc_close_to("Memory Page Reads vs majflt/s x T", ours_reads, majflt * XC_T, 0.03, 100.0);
    xc_close_to("Memory Pages Input vs majflt/s x T", ours_input, majflt * XC_T, 0.03, 100.0);
    /* Pages/sec = Pages Input/sec + Pages Output/sec (pswpout) */
    xc_close_to("Memory Pages vs (majflt/s + pswpout/s) x T", ours_pages, (majflt + pswpout) * XC_T, 0.03, 100.0);
    /* All page faults (pgfault), machine-wide: the load's are in both
     * intervals, the rest of the machine makes tens of thousands a second
     * here, counted alike but for the intervals' unshared ends (a few ms)
     * and sar's late wake-up (1-2 %). 4 % + 2000. */
    xc_close_to("Memory Page Faults vs fault/s x T", ours_faults, faults * XC_T, 0.04, 2000.0);
    /* Sizes: /proc/meminfo read by both at the end of the interval, a few
     * ms apart, on a machine whose memory moves meanwhile; sar's own
     * processes were alive at its reading (Committed_AS read 1.7 MiB
     * higher there). 2 % + 8 MiB: a zero or a double of any above 16 MiB
     * fails (Buffers, the smallest, is 25-50 MiB here). */
    for (int i = 0; i < 5; i++) {
        char what[64];
        snprintf(what, sizeof what, "Memory %s vs %s", sizes[i], sar_cols[i]);
        xc_close_to(what, ours_size[i], their_size[i], 0.02, 8.0 * 1048576);
        if (their_size[i] < 16.0 * 1048576)
            print_message("note: %s is only %.0f bytes, the check above is weak\n", sar_cols[i], their_size[i]);
    }
    /* Each of those faults read at least one page from the disk: pgpgin
     * (KiB read from block devices, by anyone) is at least Pages Input in
     * KiB. A lower bound only: other readers add to pgpgin. */
    double kib = (double)sysconf(_SC_PAGESIZE) / 1024.0;
    print_message("%-44s ours %12.4f  theirs %12.4f  (ours <= theirs * 1.03 + 100 pages)\n",
                  "Pages Input in KiB vs pgpgin/s x T", ours_input * kib, pgpgin * XC_T);
    assert_true(ours_input * kib <= pgpgin * XC_T * 1.03 + 100.0 * kib);
    xc_rmtree(dir);
}

/* ------------------------------------- PhysicalDisk / LogicalDisk on a loop device */

struct loopfs {
    char dir[2100];
    char mnt[2200];
    char dev[64]; /* "loop3" */
};

/* A 256 MiB ext4 image on a loop device (direct I/O to the backing file,
 * so latencies are the disk's), mounted in a mount namespace of this test
 * process alone: when the process ends, however it ends, the mount goes and
 * the loop device (autoclear) detaches. */
static void loopfs_setup(struct loopfs *l)
{
    xc_need_root("a loop device and a mount");
    xc_need_tool("losetup", "mount");
    xc_need_tool("mkfs.ext4", "e2fsprogs");
    if (unshare(CLONE_NEWNS) != 0) fail_msg("unshare(CLONE_NEWNS): %s", strerror(errno));
    assert_int_equal(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
    xc_mkdtemp(l->dir, sizeof l->dir);
    need_disk_backed(l->dir);
    snprintf(l->mnt, sizeof l->mnt, "%s/mnt", l->dir);
    assert_int_equal(mkdir(l->mnt, 0700), 0);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "truncate -s 256M '%s/img' && mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 '%s/img' && losetup -f --show --direct-io=on '%s/img'",
             l->dir, l->dir, l->dir);
    char *out = xc_run(cmd);
    const char *dev = strstr(out, "/dev/loop");
    if (!dev) fail_msg("losetup printed no device: %s", out);
    snprintf(l->dev, sizeof l->dev, "%.*s", (int)strcspn(dev + 5, "\n"), dev + 5);
    free(out);
    char devpath[80];
    snprintf(devpath, sizeof devpath, "/dev/%s", l->dev);
    if (mount(devpath, l->mnt, "ext4", 0, NULL) != 0) fail_msg("mount %s: %s", devpath, strerror(errno));
    /* detach now: the kernel keeps it until the mount goes (autoclear) */
    snprintf(cmd, sizeof cmd, "losetup -d %s", devpath);
    free(xc_run(cmd));
}

static void loopfs_teardown(struct loopfs *l)
{
    umount2(l->mnt, MNT_DETACH);
    xc_rmtree(l->dir);
}

struct fio_arg {
    char *argv[16];
    struct go g; /* done[0]: when fio ended; done[1]: 1 if it succeeded */
};

/* Runs fio and records when it ended (a child of the test, so fio's end is
 * known while the tool still runs). */
static void fio_runner(void *arg)
{
    struct fio_arg *f = arg;
    pid_t pid = xc_spawn_exec(f->argv, 20);
    int st;
    if (waitpid(pid, &st, 0) != pid) _exit(2);
    f->g.done[1] = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    f->g.done[0] = now_s();
    _exit(0);
}

static void fio_start(void *arg)
{
    xc_spawn(fio_runner, arg, 20);
}

static void live_physical_disk_vs_iostat(void **state)
{
    (void)state;
    xc_need_tool("iostat", "sysstat");
    xc_need_tool("fio", "fio");
    struct loopfs l;
    loopfs_setup(&l);
    char file[2300], fname[2320];
    snprintf(file, sizeof file, "%s/fio.dat", l.mnt);
    snprintf(fname, sizeof fname, "--filename=%s", file);
    /* lay the file out first, so that reads hit written blocks */
    char *layout[] = {"fio", "--name=layout", fname, "--size=64M", "--create_only=1", NULL};
    pid_t lp = xc_spawn_exec(layout, 20);
    int st;
    assert_int_equal(waitpid(lp, &st, 0), lp);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fail_msg("fio could not lay out %s (status %d)", file, st);
    /* 2 s of ~1000 reads/s and ~1000 writes/s of 16 KiB at queue depth 16:
     * about 32 MB/s (light on a shared disk) and latencies that iostat's
     * two decimals (10 us) resolve. */
    struct fio_arg fa = {{"fio", "--name=xc", fname, "--size=64M", "--direct=1", "--ioengine=libaio", "--rw=randrw",
                          "--bs=16k", "--iodepth=16", "--rate_iops=1000", "--time_based", "--runtime=2", NULL},
                         {{0, 0}, NULL, 0}};
    go_init(&fa.g);

    const char *names[] = {"Disk Reads/sec",         "Disk Writes/sec",     "Disk Transfers/sec",
                           "Disk Read Bytes/sec",    "Disk Write Bytes/sec", "Avg. Disk sec/Read",
                           "Avg. Disk sec/Write",    "Avg. Disk sec/Transfer", "Avg. Disk Queue Length",
                           "% Idle Time"};
    xc_samples sm = {.q = xc_pdh_open(l.dir), .n = 10};
    for (int i = 0; i < 10; i++) {
        char path[256];
        snprintf(path, sizeof path, "\\PhysicalDisk(%s)\\%s", l.dev, names[i]);
        sm.c[i] = xc_pdh_add(sm.q, path);
    }
    xc_sample(&sm, 0);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "iostat -y -x -d %s %d 1", l.dev, XC_T);
    double started;
    char *out = xc_run_go(cmd, XC_GO_MS, fio_start, &fa, &started);
    xc_sample(&sm, 1);
    double ours[10];
    for (int i = 0; i < 5; i++) ours[i] = xc_pdh_count(&sm, i, names[i]);
    for (int i = 5; i < 10; i++) ours[i] = xc_pdh_value(sm.c[i], names[i]);
    /* our interval, as PDH divided by it */
    double span = ours[0] / xc_pdh_value(sm.c[0], names[0]);
    PdhCloseQuery(sm.q);
    /* fio ends by itself after 2 s; it must have ended inside the interval */
    fa.g.n = 1;
    go_check(&fa.g, started + XC_T);
    if (fa.g.done[1] != 1) fail_msg("fio failed");
    print_message("fio ran from %.2f s to %.2f s of iostat's %d s\n", XC_GO_MS / 1000.0, fa.g.done[0] - started, XC_T);
    double rs = xc_column(out, "", l.dev, "r/s"), ws = xc_column(out, "", l.dev, "w/s");
    double rawait = xc_column(out, "", l.dev, "r_await"), wawait = xc_column(out, "", l.dev, "w_await");
    double rkb = xc_column(out, "", l.dev, "rkB/s"), wkb = xc_column(out, "", l.dev, "wkB/s");
    double aqu = xc_column(out, "", l.dev, "aqu-sz"), util = xc_column(out, "", l.dev, "%util");
    free(out);
    if (rs * XC_T < 1000 || ws * XC_T < 1000)
        fail_msg("fio did %.0f reads/s, %.0f writes/s on %s: too little to compare", rs, ws, l.dev);
    /* Counts: both read the same diskstats fields of a device only fio
     * uses, and all of fio's I/O is in both intervals. iostat's rates are
     * over its real interval, which on a loaded machine runs up to ~1-2 %
     * past T (it wakes late): 2 % + 5. */
    xc_close_to("PhysicalDisk Disk Reads vs r/s x T", ours[0], rs * XC_T, 0.02, 5.0);
    xc_close_to("PhysicalDisk Disk Writes vs w/s x T", ours[1], ws * XC_T, 0.02, 5.0);
    xc_close_to("PhysicalDisk Disk Transfers vs (r/s + w/s) x T", ours[2], (rs + ws) * XC_T, 0.02, 5.0);
    xc_close_to("PhysicalDisk Disk Read Bytes vs rkB/s x T", ours[3], rkb * 1024.0 * XC_T, 0.02, 0.0);
    xc_close_to("PhysicalDisk Disk Write Bytes vs wkB/s x T", ours[4], wkb * 1024.0 * XC_T, 0.02, 0.0);
    /* Latencies (ms): the same I/Os on both sides, so the averages agree
     * but for iostat's two decimals (+-0.005 ms) and the odd journal write
     * of the filesystem: 3 % + 0.005 ms. The wrapped averages of issue 11
     * item 1 (4x low, or 0) fail. */
    double theirs_all = (rs * rawait + ws * wawait) / (rs + ws);
    xc_close_to("PhysicalDisk Avg. Disk sec/Read (ms) vs r_await", ours[5] * 1000.0, rawait, 0.03, 0.005);
    xc_close_to("PhysicalDisk Avg. Disk sec/Write (ms) vs w_await", ours[6] * 1000.0, wawait, 0.03, 0.005);
    xc_close_to("PhysicalDisk Avg. Disk sec/Transfer (ms) vs weighted await", ours[7] * 1000.0, theirs_all, 0.03,
                0.005);
    /* Time-weighted values over each side's own interval, turned into the
     * seconds they count (the I/O is in both intervals): the summed time
     * in flight (Avg. Disk Queue Length x our interval, aqu-sz x T) and
     * the busy time (100 - % Idle Time, %util). iostat's two decimals
     * over 5 s (0.025 s) and its late wake-up: 3 % + 0.03 s. */
    xc_close_to("PhysicalDisk Avg. Disk Queue Length (s in flight) vs aqu-sz x T", ours[8] * span, aqu * XC_T, 0.03,
                0.03);
    xc_close_to("PhysicalDisk 100 - % Idle Time (busy s) vs %util x T", (100.0 - ours[9]) / 100.0 * span,
                util / 100.0 * XC_T, 0.03, 0.03);
    /* at 0.1 s a zero or a double is beyond the tolerance. The loop
     * device's busy time (io_ticks) is counted sparsely by this kernel
     * (0-0.5 s for the same load here), so the % Idle Time check may be a
     * weak one; it is printed either way. */
    if (aqu * XC_T < 0.1) fail_msg("the disk was in use too little to compare (aqu-sz %.2f)", aqu);
    if (util * XC_T / 100.0 < 0.1) print_message("note: %%util %.2f, the %% Idle Time check is weak\n", util);
    loopfs_teardown(&l);
}

/* Per-CPU values of a wildcard counter \Processor(*)\name: the value of
 * instance `inst` ("0", "1", ..., "_Total"); fails when absent. */
static double cpu_value(PDH_HCOUNTER c, const char *inst, const char *what)
{
    DWORD size = 0, count = 0;
    PDH_STATUS st = PdhGetFormattedCounterArrayA(c, PDH_FMT_DOUBLE | PDH_FMT_NOCAP100, &size, &count, NULL);
    if (st != PDH_MORE_DATA) fail_msg("%s: array size: 0x%08X", what, (unsigned)st);
    PDH_FMT_COUNTERVALUE_ITEM_A *items = malloc(size);
    assert_non_null(items);
    st = PdhGetFormattedCounterArrayA(c, PDH_FMT_DOUBLE | PDH_FMT_NOCAP100, &size, &count, items);
    if (st != ERROR_SUCCESS) fail_msg("%s: array: 0x%08X", what, (unsigned)st);
    for (DWORD i = 0; i < count; i++) {
        size_t len = strcspn(items[i].szName, "\\"); /* "0" or "0\counter" */
        if (strlen(inst) == len && strncmp(items[i].szName, inst, len) == 0) {
            if (items[i].FmtValue.CStatus != PDH_CSTATUS_VALID_DATA)
                fail_msg("%s(%s): CStatus 0x%08X", what, inst, (unsigned)items[i].FmtValue.CStatus);
            double v = items[i].FmtValue.doubleValue;
            free(items);
            return v;
        }
    }
    free(items);
    fail_msg("%s: no instance %s", what, inst);
    return 0;
}

/* Issue 11 item 3 under its own conditions: per-CPU % Processor Time, %
 * Idle Time and % IO Wait Time while a reader waits on the disk (fio, 4 KiB
 * O_DIRECT reads one at a time: iowait where the CPUs are otherwise idle),
 * against mpstat. tests/perfos live_processor_vs_mpstat does the same under
 * a CPU spinner. */
static void live_processor_iowait_vs_mpstat(void **state)
{
    (void)state;
    xc_need_tool("mpstat", "sysstat");
    xc_need_tool("fio", "fio");
    struct loopfs l;
    loopfs_setup(&l);
    char file[2300], fname[2320];
    snprintf(file, sizeof file, "%s/fio.dat", l.mnt);
    snprintf(fname, sizeof fname, "--filename=%s", file);
    char *layout[] = {"fio", "--name=layout", fname, "--size=64M", "--create_only=1", NULL};
    pid_t lp = xc_spawn_exec(layout, 20);
    int st;
    assert_int_equal(waitpid(lp, &st, 0), lp);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fail_msg("fio could not lay out %s (status %d)", file, st);
    struct fio_arg fa = {{"fio", "--name=xcw", fname, "--size=64M", "--direct=1", "--ioengine=psync", "--rw=randread",
                          "--bs=4k", "--time_based", "--runtime=3", NULL},
                         {{0, 0}, NULL, 0}};
    go_init(&fa.g);

    const char *names[] = {"% Processor Time", "% Idle Time", "% IO Wait Time"};
    PDH_HQUERY q = xc_pdh_open(l.dir);
    PDH_HCOUNTER c[3];
    for (int i = 0; i < 3; i++) {
        char path[128];
        snprintf(path, sizeof path, "\\Processor(*)\\%s", names[i]);
        c[i] = xc_pdh_add(q, path);
    }
    xc_pdh_collect(q);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "mpstat -P ALL %d 1", XC_T);
    double started;
    char *out = xc_run_go(cmd, XC_GO_MS, fio_start, &fa, &started);
    xc_pdh_collect(q);
    fa.g.n = 1;
    go_check(&fa.g, started + XC_T);
    if (fa.g.done[1] != 1) fail_msg("fio failed");
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    double max_wait = 0;
    for (long k = -1; k < ncpu; k++) {
        char inst[32] = "_Total", key[32] = "all";
        if (k >= 0) {
            snprintf(inst, sizeof inst, "%ld", k);
            snprintf(key, sizeof key, "%ld", k);
        }
        double idle = xc_column(out, "Average:", key, "%idle"), wait = xc_column(out, "Average:", key, "%iowait");
        if (wait > max_wait) max_wait = wait;
        char what[64];
        /* mpstat divides each CPU's column deltas by their sum, as we do;
         * the intervals differ at their ends by our collections and
         * mpstat's late wake-up (1-2 % of 5 s), in which the CPUs do
         * whatever the machine does: 4 points. The old tick-accounting
         * error (issue 11 item 3) was 10-13 points. */
        snprintf(what, sizeof what, "Processor(%s) %% Processor Time", inst);
        xc_close_to(what, cpu_value(c[0], inst, names[0]), 100.0 - idle - wait, 0.0, 4.0);
        snprintf(what, sizeof what, "Processor(%s) %% Idle Time", inst);
        xc_close_to(what, cpu_value(c[1], inst, names[1]), idle + wait, 0.0, 4.0);
        snprintf(what, sizeof what, "Processor(%s) %% IO Wait Time", inst);
        xc_close_to(what, cpu_value(c[2], inst, names[2]), wait, 0.0, 4.0);
    }
    PdhCloseQuery(q);
    free(out);
    /* On a machine whose CPUs are all busy there is no I/O wait to see
     * (the kernel counts it only on an otherwise idle CPU): the check then
     * still compares the three timers, and says so. */
    if (max_wait < 1.0) print_message("note: the CPUs were busy, mpstat saw %.2f %% iowait at most\n", max_wait);
    loopfs_teardown(&l);
}

static void live_logical_disk_vs_df(void **state)
{
    (void)state;
    xc_need_tool("df", "coreutils");
    struct loopfs l;
    loopfs_setup(&l);
    /* take 100 MiB of the 256, so free space is neither all nor nothing */
    char file[2300];
    snprintf(file, sizeof file, "%s/used", l.mnt);
    int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(posix_fallocate(fd, 0, 100 << 20), 0);
    assert_int_equal(fsync(fd), 0);
    close(fd);

    PDH_HQUERY q = xc_pdh_open(l.dir);
    char path[4400];
    /* LogicalDisk instances are parent/mount point: loopN//the/mount */
    snprintf(path, sizeof path, "\\LogicalDisk(%s/%s)\\Free Megabytes", l.dev, l.mnt);
    PDH_HCOUNTER free_mb = xc_pdh_add(q, path);
    snprintf(path, sizeof path, "\\LogicalDisk(%s/%s)\\%% Free Space", l.dev, l.mnt);
    PDH_HCOUNTER free_pct = xc_pdh_add(q, path);
    xc_pdh_collect(q);
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "df -B1 --output=size,avail '%s'", l.mnt);
    char *out = xc_run(cmd);
    double ours_mb = xc_pdh_value(free_mb, "Free Megabytes"), ours_pct = xc_pdh_value(free_pct, "% Free Space");
    PdhCloseQuery(q);
    double size = -1, avail = -1;
    const char *row = strchr(out, '\n');
    if (!row || sscanf(row, "%lf %lf", &size, &avail) != 2) fail_msg("df printed: %s", out);
    free(out);
    /* Nothing else writes to this filesystem: exact. Free Megabytes is
     * floor(f_bavail * f_frsize / 2^20) and % Free Space is free MB over
     * total MB (docs/providers/perfdisk.md), df's columns are f_bavail and
     * f_blocks in bytes; 0.01 points is float formatting only. */
    double mib = 1048576.0;
    xc_close_to("LogicalDisk Free Megabytes vs df avail", ours_mb, floor(avail / mib), 0.0, 0.0);
    xc_close_to("LogicalDisk % Free Space vs df avail/size (whole MB)", ours_pct,
                100.0 * floor(avail / mib) / floor(size / mib), 0.0, 0.01);
    assert_true(ours_pct > 20.0 && ours_pct < 80.0); /* the 100 MiB taken shows */
    loopfs_teardown(&l);
}

/* ------------------------------------- TCPv4/TCPv6 vs ss, in a network namespace */

static int listener(int family, const char *addr, uint16_t *port)
{
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t sl;
    if (family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        assert_int_equal(inet_pton(AF_INET, addr, &a->sin_addr), 1);
        sl = sizeof *a;
    } else {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        assert_int_equal(inet_pton(AF_INET6, addr, &a->sin6_addr), 1);
        int v6only = strcmp(addr, "::") != 0; /* "::" takes IPv4 too */
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only);
        sl = sizeof *a;
    }
    assert_int_equal(bind(fd, (struct sockaddr *)&ss, sl), 0);
    assert_int_equal(listen(fd, 64), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&ss, &sl), 0);
    *port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port : ((struct sockaddr_in6 *)&ss)->sin6_port);
    return fd;
}

/* Connect to addr:port through the listener `l`; *server gets the accepted
 * socket. Returns the client socket. */
static int pair(int family, const char *addr, uint16_t port, int l, int *server)
{
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t sl;
    if (family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_port = htons(port);
        assert_int_equal(inet_pton(AF_INET, addr, &a->sin_addr), 1);
        sl = sizeof *a;
    } else {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(port);
        assert_int_equal(inet_pton(AF_INET6, addr, &a->sin6_addr), 1);
        sl = sizeof *a;
    }
    assert_int_equal(connect(fd, (struct sockaddr *)&ss, sl), 0);
    *server = accept(l, NULL, NULL);
    assert_true(*server >= 0);
    return fd;
}

/* Count ss lines, and those with v4-mapped addresses. */
static void ss_count(const char *args, size_t *lines, size_t *mapped)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ss -Htn %s state established state close-wait", args);
    char *out = xc_run(cmd);
    *lines = xc_lines(out);
    *mapped = 0;
    for (const char *p = out; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (memmem(p, len, "[::ffff:", 8)) (*mapped)++;
        p += len + (nl ? 1 : 0);
    }
    print_message("%s:\n%s", cmd, out);
    free(out);
}

/* This process in a network namespace of its own, with lo up. */
static void private_netns(void)
{
    if (unshare(CLONE_NEWNET) != 0) fail_msg("unshare(CLONE_NEWNET): %s", strerror(errno));
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    assert_true(s >= 0);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
    assert_int_equal(ioctl(s, SIOCGIFFLAGS, &ifr), 0);
    ifr.ifr_flags |= IFF_UP;
    assert_int_equal(ioctl(s, SIOCSIFFLAGS, &ifr), 0);
    close(s);
}

static void live_tcp_vs_ss(void **state)
{
    (void)state;
    xc_need_root("a network namespace of its own");
    xc_need_tool("ss", "iproute2");
    /* A network namespace of this test process alone: nothing else opens
     * connections in it, so every count is exact. */
    private_netns();

    int fds[64], n = 0, srv;
    uint16_t p4, p6, pd;
    int l4 = listener(AF_INET, "127.0.0.1", &p4), l6 = listener(AF_INET6, "::1", &p6);
    int ld = listener(AF_INET6, "::", &pd);
    /* IPv4: 5 established pairs (10 sockets) */
    for (int i = 0; i < 5; i++) {
        fds[n++] = pair(AF_INET, "127.0.0.1", p4, l4, &srv);
        fds[n++] = srv;
    }
    /* IPv4: 2 pairs whose client closes: the server end waits in
     * CLOSE_WAIT (counted, as on Windows), the client in FIN_WAIT2 (not) */
    for (int i = 0; i < 2; i++) {
        close(pair(AF_INET, "127.0.0.1", p4, l4, &srv));
        fds[n++] = srv;
    }
    /* IPv6: 3 established pairs, 1 in CLOSE_WAIT */
    for (int i = 0; i < 3; i++) {
        fds[n++] = pair(AF_INET6, "::1", p6, l6, &srv);
        fds[n++] = srv;
    }
    close(pair(AF_INET6, "::1", p6, l6, &srv));
    fds[n++] = srv;
    /* A dual-stack listener reached over IPv4: an IPv4 client and an IPv6
     * socket with v4-mapped addresses, both IPv4 connections. */
    fds[n++] = pair(AF_INET, "127.0.0.1", pd, ld, &srv);
    fds[n++] = srv;
    xc_sleep_ms(100); /* the FINs arrive */
    const double want4 = 10 + 2 + 2, want6 = 6 + 1;

    char dir[2100];
    xc_mkdtemp(dir, sizeof dir);
    PDH_HQUERY q = xc_pdh_open(dir);
    PDH_HCOUNTER c4 = xc_pdh_add(q, "\\TCPv4\\Connections Established");
    PDH_HCOUNTER c6 = xc_pdh_add(q, "\\TCPv6\\Connections Established");
    xc_pdh_collect(q);
    double ours4 = xc_pdh_value(c4, "TCPv4 Connections Established");
    double ours6 = xc_pdh_value(c6, "TCPv6 Connections Established");
    PdhCloseQuery(q);
    size_t ss4, m4, ss6, m6;
    ss_count("-4", &ss4, &m4);
    ss_count("-6", &ss6, &m6);
    /* ss -4 lists AF_INET sockets, -6 AF_INET6 ones, v4-mapped included:
     * those are IPv4 connections, as Windows and the provider count them */
    xc_close_to("TCPv4 Connections Established vs ss -4 (+ mapped)", ours4, (double)(ss4 + m6), 0.0, 0.0);
    xc_close_to("TCPv6 Connections Established vs ss -6 (- mapped)", ours6, (double)(ss6 - m6), 0.0, 0.0);
    assert_true(ours4 == want4 && ours6 == want6);
    for (int i = 0; i < n; i++) close(fds[i]);
    close(l4);
    close(l6);
    close(ld);
    xc_rmtree(dir);
}

/* ------------------------------------- Network Interface vs sar -n DEV */

struct net_arg {
    int fd, udp;
    const struct go *go;
};

/* 32 MiB over a TCP connection on lo, the write side shut, then 2000 UDP
 * datagrams of 100 bytes in bursts of 100. */
static void net_sender(void *arg)
{
    struct net_arg *a = arg;
    static char buf[1 << 20];
    memset(buf, 'n', sizeof buf);
    go_wait(a->go);
    for (int k = 0; k < 32; k++)
        for (size_t off = 0; off < sizeof buf;) {
            ssize_t n = write(a->fd, buf + off, sizeof buf - off);
            if (n <= 0) _exit(3);
            off += (size_t)n;
        }
    shutdown(a->fd, SHUT_WR);
    for (int k = 0; k < 2000; k++) {
        if (send(a->udp, buf, 100, 0) != 100) _exit(4);
        if (k % 100 == 99) xc_sleep_ms(2);
    }
    a->go->done[0] = now_s();
    idle_forever();
}

/* Reads the TCP stream to the end and the datagrams until 0.5 s pass
 * without one, then records when. */
static void net_receiver(void *arg)
{
    struct net_arg *a = arg;
    static char buf[1 << 16];
    size_t total = 0;
    ssize_t n;
    while ((n = read(a->fd, buf, sizeof buf)) > 0) total += (size_t)n;
    struct timeval tv = {0, 500000};
    setsockopt(a->udp, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    for (int k = 0; k < 2000 && recv(a->udp, buf, sizeof buf, 0) > 0; k++) {
    }
    a->go->done[1] = total == (32u << 20) ? now_s() : -1.0;
    idle_forever();
}

static void live_network_interface_vs_sar(void **state)
{
    (void)state;
    xc_need_root("a network namespace of its own");
    xc_need_tool("sar", "sysstat");
    /* Only this test's traffic crosses lo in its own namespace; sar and the
     * provider both read that namespace's counters. */
    private_netns();
    uint16_t port;
    int l = listener(AF_INET, "127.0.0.1", &port), srv;
    int cli = pair(AF_INET, "127.0.0.1", port, l, &srv);
    int urx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), utx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    assert_true(urx >= 0 && utx >= 0);
    struct sockaddr_in ua = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t ul = sizeof ua;
    assert_int_equal(bind(urx, (struct sockaddr *)&ua, sizeof ua), 0);
    assert_int_equal(getsockname(urx, (struct sockaddr *)&ua, &ul), 0);
    assert_int_equal(connect(utx, (struct sockaddr *)&ua, sizeof ua), 0);
    struct go g;
    go_init(&g);
    g.n = 1; /* the sender waits for go; the receiver reads from the start */
    struct net_arg snd = {cli, utx, &g}, rcv = {srv, urx, &g};
    pid_t ps = xc_spawn(net_sender, &snd, 25), pr = xc_spawn(net_receiver, &rcv, 25);
    close(cli);
    close(srv);
    close(l);
    close(urx);
    close(utx);
    xc_sleep_ms(100); /* the handshake's packets are behind us */

    char dir[2100];
    xc_mkdtemp(dir, sizeof dir);
    const char *names[] = {"Network Interface(lo)\\Bytes Received/sec", "Network Interface(lo)\\Bytes Sent/sec",
                           "Network Interface(lo)\\Packets Received/sec", "Network Interface(lo)\\Packets Sent/sec",
                           "IPv4\\Datagrams Received/sec", "IPv4\\Datagrams Sent/sec",
                           "TCPv4\\Segments Received/sec", "TCPv4\\Segments Sent/sec",
                           "UDPv4\\Datagrams Received/sec", "UDPv4\\Datagrams Sent/sec"};
    xc_samples sm = {.q = xc_pdh_open(dir), .n = 10};
    for (int i = 0; i < 10; i++) {
        char path[128];
        snprintf(path, sizeof path, "\\%s", names[i]);
        sm.c[i] = xc_pdh_add(sm.q, path);
    }
    xc_sample(&sm, 0);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "sar -n DEV,IP,TCP,UDP %d 1", XC_T);
    double started;
    char *out = xc_run_go(cmd, XC_GO_MS, go_start, &g, &started);
    xc_sample(&sm, 1);
    double ours[10];
    for (int i = 0; i < 10; i++) ours[i] = xc_pdh_count(&sm, i, names[i]);
    PdhCloseQuery(sm.q);
    g.n = 2;
    go_check(&g, started + XC_T);
    xc_kill(ps);
    xc_kill(pr);
    double rxkb = xc_column(out, "Average:", "lo", "rxkB/s"), txkb = xc_column(out, "Average:", "lo", "txkB/s");
    double rxpck = xc_column(out, "Average:", "lo", "rxpck/s"), txpck = xc_column(out, "Average:", "lo", "txpck/s");
    double irec = xc_column(out, "Average:", NULL, "irec/s"), orq = xc_column(out, "Average:", NULL, "orq/s");
    double iseg = xc_column(out, "Average:", NULL, "iseg/s"), oseg = xc_column(out, "Average:", NULL, "oseg/s");
    double idgm = xc_column(out, "Average:", NULL, "idgm/s"), odgm = xc_column(out, "Average:", NULL, "odgm/s");
    free(out);
    /* Counts: the whole transfer is in both intervals and nothing else uses
     * this lo. sar's rates are over its real interval, which on a loaded
     * machine runs up to ~1-2 % past the T it was asked for (its collector
     * wakes late); times T they read that much low (seen: 0.6 %). 2 % + 1
     * KiB; packets 2 % + 2 (lo moves 64 KiB segments: a few hundred data
     * packets and their ACKs). */
    xc_close_to("Network Interface(lo) Bytes Received vs rxkB/s x T", ours[0], rxkb * 1024.0 * XC_T, 0.02, 1024.0);
    xc_close_to("Network Interface(lo) Bytes Sent vs txkB/s x T", ours[1], txkb * 1024.0 * XC_T, 0.02, 1024.0);
    xc_close_to("Network Interface(lo) Packets Received vs rxpck/s x T", ours[2], rxpck * XC_T, 0.02, 2.0);
    xc_close_to("Network Interface(lo) Packets Sent vs txpck/s x T", ours[3], txpck * XC_T, 0.02, 2.0);
    /* The protocol counters of the namespace (its /proc/net/snmp), the
     * same way: IP and TCP carry the transfer's packets, UDP the 2000
     * datagrams (some may be dropped on a full receive queue: not
     * delivered, so not in InDatagrams, for both tools alike). */
    xc_close_to("IPv4 Datagrams Received vs irec/s x T", ours[4], irec * XC_T, 0.02, 2.0);
    xc_close_to("IPv4 Datagrams Sent vs orq/s x T", ours[5], orq * XC_T, 0.02, 2.0);
    xc_close_to("TCPv4 Segments Received vs iseg/s x T", ours[6], iseg * XC_T, 0.02, 2.0);
    xc_close_to("TCPv4 Segments Sent vs oseg/s x T", ours[7], oseg * XC_T, 0.02, 2.0);
    xc_close_to("UDPv4 Datagrams Received vs idgm/s x T", ours[8], idgm * XC_T, 0.02, 2.0);
    xc_close_to("UDPv4 Datagrams Sent vs odgm/s x T", ours[9], odgm * XC_T, 0.02, 2.0);
    if (ours[9] < 2000 || ours[8] < 200 || ours[6] < 200)
        fail_msg("too little traffic to compare: %.0f datagrams sent, %.0f received, %.0f segments", ours[9], ours[8],
                 ours[6]);
    if (ours[0] < 32.0 * 1048576)
        fail_msg("lo carried %.0f bytes, less than the 32 MiB sent", ours[0]);
}

/* ------------------------------------- System Context Switches vs sar -w */

struct pingpong {
    int to[2], back[2];
    const struct go *go;
};

/* The far end: answers every byte. */
static void pong(void *arg)
{
    struct pingpong *p = arg;
    char c;
    while (read(p->to[0], &c, 1) == 1)
        if (write(p->back[1], &c, 1) != 1) break;
    idle_forever();
}

/* 2 s of round trips through two pipes: each blocks both ends in turn, so
 * tens of thousands of context switches a second. */
static void ping(void *arg)
{
    struct pingpong *p = arg;
    go_wait(p->go);
    double end = now_s() + 2.0;
    char c = 'p';
    for (unsigned long k = 0; (k & 1023) != 0 || now_s() < end; k++)
        if (write(p->to[1], &c, 1) != 1 || read(p->back[0], &c, 1) != 1) _exit(3);
    p->go->done[0] = now_s();
    idle_forever();
}

static void live_system_vs_sar_w(void **state)
{
    (void)state;
    xc_need_tool("sar", "sysstat");
    struct go g;
    go_init(&g);
    g.n = 1;
    struct pingpong pp = {.go = &g};
    assert_int_equal(pipe(pp.to), 0);
    assert_int_equal(pipe(pp.back), 0);
    pid_t a = xc_spawn(pong, &pp, 25), b = xc_spawn(ping, &pp, 25);
    char dir[2100];
    xc_mkdtemp(dir, sizeof dir);
    xc_samples sm = {.q = xc_pdh_open(dir), .n = 2};
    sm.c[0] = xc_pdh_add(sm.q, "\\System\\Context Switches/sec");
    sm.c[1] = xc_pdh_add(sm.q, "\\Processor(_Total)\\Interrupts/sec");
    xc_sample(&sm, 0);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "sar -w -I SUM %d 1", XC_T);
    double started;
    char *out = xc_run_go(cmd, XC_GO_MS, go_start, &g, &started);
    xc_sample(&sm, 1);
    double ours_cs = xc_pdh_count(&sm, 0, "Context Switches/sec"), ours_intr = xc_pdh_count(&sm, 1, "Interrupts/sec");
    PdhCloseQuery(sm.q);
    go_check(&g, started + XC_T);
    xc_kill(a);
    xc_kill(b);
    double cs = xc_column(out, "Average:", NULL, "cswch/s") * XC_T, intr = xc_column(out, "Average:", "sum", "all") * XC_T;
    free(out);
    /* Machine-wide counts (ctxt of /proc/stat for both): the round trips'
     * switches are in both intervals, the rest of the machine's (20,000 a
     * second here) too but for the unshared ends of the intervals (a few
     * ms of collection) and sar's late wake-up (its rates are over its
     * real interval, up to 1-2 % past T). 4 % + 2000. */
    xc_close_to("System Context Switches vs cswch/s x T", ours_cs, cs, 0.04, 2000.0);
    /* Interrupts: ours is the sum of /proc/interrupts' per-CPU columns,
     * sar's the total of /proc/stat's intr line, which the kernel counts
     * from a slightly different set of architecture rows (5 % fewer here);
     * and the background's unshared ends as above. 10 % + 250. */
    xc_close_to("Processor(_Total) Interrupts vs sar -I SUM x T", ours_intr, intr, 0.10, 250.0);
    if (cs < 50000) fail_msg("only %.0f context switches: the round trips did not run", cs);
    if (intr < 500) fail_msg("only %.0f interrupts in %d s: nothing to compare", intr, XC_T);
    xc_rmtree(dir);
}

/* ------------------------------------- System vs ps, in a PID namespace */

static void *sleeper_thread(void *arg)
{
    (void)arg;
    for (;;) pause();
    return NULL;
}

static void sleeper(void *arg)
{
    int threads = *(const int *)arg;
    for (int i = 0; i < threads; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, sleeper_thread, NULL) != 0) _exit(2);
    }
    for (;;) pause();
}

/* Run `ps args` directly (no shell, which ps would list), its output in
 * buf; returns ps's own pid so its line can be left out. */
static pid_t ps_run(char *const argv[], char *buf, size_t cap)
{
    int p[2];
    if (pipe(p) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        dup2(p[1], 1);
        close(p[0]);
        alarm(10);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(p[1]);
    size_t len = 0;
    ssize_t got;
    while (len + 1 < cap && (got = read(p[0], buf + len, cap - 1 - len)) > 0) len += (size_t)got;
    buf[len] = '\0';
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? pid : -1;
}

/* Lines whose first field is not `pid`. */
static long count_but(const char *out, pid_t pid)
{
    long n = 0;
    for (const char *p = out; *p;) {
        long first = strtol(p, NULL, 10);
        const char *nl = strchr(p, '\n');
        if (first > 0 && first != (long)pid) n++;
        if (!nl) break;
        p = nl + 1;
    }
    return n;
}

/* PID 1 of the new namespace: start the processes, read System through
 * PDH, count with ps, write the four numbers to fd. */
static void pidns_init(int fd, const char *dir)
{
    /* a /proc of the namespace's own, in a mount namespace of its own */
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) _exit(9);
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) _exit(10);
    int threads[3] = {0, 2, 5};
    for (int i = 0; i < 3; i++) xc_spawn(sleeper, &threads[i], 25);
    xc_sleep_ms(200); /* the threads are started */
    char store[4200];
    snprintf(store, sizeof store, "%s/store.db", dir);
    setenv("PERFLIB_REGISTRY", store, 1);
    PDH_HQUERY q = NULL;
    PDH_HCOUNTER cp = NULL, ct = NULL;
    PDH_FMT_COUNTERVALUE vp, vt;
    if (PdhOpenQueryA(NULL, 0, &q) != ERROR_SUCCESS ||
        PdhAddEnglishCounterA(q, "\\System\\Processes", 0, &cp) != ERROR_SUCCESS ||
        PdhAddEnglishCounterA(q, "\\System\\Threads", 0, &ct) != ERROR_SUCCESS || PdhCollectQueryData(q) != ERROR_SUCCESS ||
        PdhGetFormattedCounterValue(cp, PDH_FMT_DOUBLE, NULL, &vp) != ERROR_SUCCESS ||
        PdhGetFormattedCounterValue(ct, PDH_FMT_DOUBLE, NULL, &vt) != ERROR_SUCCESS)
        _exit(11);
    /* ps runs while the query is open: a provider helper, if any, is
     * seen by both */
    static char out[65536];
    char *ps_p[] = {"ps", "-e", "-o", "pid=", NULL};
    char *ps_t[] = {"ps", "-eL", "-o", "pid=", NULL};
    pid_t pp = ps_run(ps_p, out, sizeof out);
    long procs = count_but(out, pp);
    pid_t pt = ps_run(ps_t, out, sizeof out);
    long thr = count_but(out, pt);
    PdhCloseQuery(q);
    if (pp < 0 || pt < 0) _exit(12);
    dprintf(fd, "%.0f %.0f %ld %ld\n", vp.doubleValue, vt.doubleValue, procs, thr);
    _exit(0);
}

static void live_system_vs_ps_in_pid_namespace(void **state)
{
    (void)state;
    xc_need_root("a PID namespace with its own /proc");
    xc_need_tool("ps", "procps");
    char dir[2100];
    xc_mkdtemp(dir, sizeof dir);
    int p[2];
    assert_int_equal(pipe(p), 0);
    /* The namespace is made by a middle process, so this one (and its
     * sanitizers at exit) keeps its own PID namespace and /proc. */
    pid_t mid = fork();
    assert_true(mid >= 0);
    if (mid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        alarm(25);
        if (unshare(CLONE_NEWPID) != 0) _exit(20);
        pid_t init = fork(); /* PID 1 there: when it ends, the kernel ends the rest */
        if (init < 0) _exit(21);
        if (init == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            close(p[0]);
            pidns_init(p[1], dir);
        }
        int ist;
        if (waitpid(init, &ist, 0) != init) _exit(22);
        _exit(WIFEXITED(ist) ? WEXITSTATUS(ist) : 23);
    }
    close(p[1]);
    char line[256] = "";
    ssize_t got = read(p[0], line, sizeof line - 1);
    close(p[0]);
    int st;
    assert_int_equal(waitpid(mid, &st, 0), mid);
    line[got > 0 ? got : 0] = '\0';
    double ours_p, ours_t;
    long ps_p, ps_t;
    if (sscanf(line, "%lf %lf %ld %ld", &ours_p, &ours_t, &ps_p, &ps_t) != 4)
        fail_msg("the PID namespace could not be made or its init failed (wait status %d)", st);
    /* Nothing else runs in the namespace: exact. 4 processes (init and 3
     * sleepers), 1 + 1 + 3 + 6 threads (init may have more: the library's
     * own threads, which ps sees too). */
    xc_close_to("System Processes vs ps -e (PID namespace)", ours_p, (double)ps_p, 0.0, 0.0);
    xc_close_to("System Threads vs ps -eL (PID namespace)", ours_t, (double)ps_t, 0.0, 0.0);
    assert_true(ours_p >= 4 && ours_p <= 5);
    assert_true(ours_t >= 11 && ours_t <= 16);
    xc_rmtree(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(live_process_vs_pidstat, xc_cleanup),
        cmocka_unit_test_teardown(live_memory_faults_vs_sar, xc_cleanup),
        cmocka_unit_test_teardown(live_physical_disk_vs_iostat, xc_cleanup),
        cmocka_unit_test_teardown(live_processor_iowait_vs_mpstat, xc_cleanup),
        cmocka_unit_test_teardown(live_logical_disk_vs_df, xc_cleanup),
        cmocka_unit_test_teardown(live_tcp_vs_ss, xc_cleanup),
        cmocka_unit_test_teardown(live_network_interface_vs_sar, xc_cleanup),
        cmocka_unit_test_teardown(live_system_vs_sar_w, xc_cleanup),
        cmocka_unit_test_teardown(live_system_vs_ps_in_pid_namespace, xc_cleanup),
    };
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
