/* Live cross-checks on a loop device of the test's own: PhysicalDisk
 * against iostat, Processor under I/O wait against mpstat, LogicalDisk
 * against df (see test_crosscheck_live.c and docs/testing.md). */
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

void live_physical_disk_vs_iostat(void **state)
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
void live_processor_iowait_vs_mpstat(void **state)
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

void live_logical_disk_vs_df(void **state)
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
