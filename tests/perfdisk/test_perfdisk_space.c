/* PerfDisk's space thread (providers/perfdisk/perfdisk_space.c): LogicalDisk's
 * statvfs() calls off the calling thread, with a deadline. libperfdisk.so
 * through dlopen(), as the host loads it, against canned trees; the test hook
 * PERFLIB_TEST_PERFDISK_STALL (a FIFO the thread opens before its calls)
 * holds a batch back for as long as the test likes. Also run under
 * ThreadSanitizer (scripts/test.sh). */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pl_test.h"
#include "disk_live.h"
#include "pl_test_engine.h"
#include "provider_harness.h"
#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/query.h"
#include "perflib/registry.h"
#include "perflib/winperf.h"

#define M1 PL_SOURCE_DIR "/tests/perfdisk/data/m1"
#define STALL "PERFLIB_TEST_PERFDISK_STALL"
#define THREAD_NAME "perfdisk-space"

static ph_provider prov;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* Threads of this process named `name` (/proc/self/task/N/comm). */
static int threads_named(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) fail_msg("cannot list /proc/self/task");
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char p[300], comm[64] = "";
        snprintf(p, sizeof p, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(p, "r");
        if (!f) continue;
        if (fgets(comm, sizeof comm, f)) comm[strcspn(comm, "\n")] = 0;
        fclose(f);
        if (strcmp(comm, name) == 0) n++;
    }
    closedir(d);
    return n;
}

/* The same, looked at again for up to 2 s until it is `want`: /proc may
 * list a joined thread for a moment (the kernel wakes the joiner before the
 * task is reaped). */
static int threads_named_settled(const char *name, int want)
{
    int n = threads_named(name);
    for (int i = 0; i < 200 && n != want; i++) {
        sleep_ms(10);
        n = threads_named(name);
    }
    return n;
}

/* A FIFO in a fresh directory, for the stall hook. */
static void make_fifo(char *dir, char *fifo, size_t cap)
{
    ph_tempdir(dir);
    snprintf(fifo, cap, "%s/stall", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
}

/* Let the stalled thread go: open the FIFO for writing, which wakes the
 * reader blocked in open(); ENXIO while it has not got there yet. */
static void release(const char *fifo)
{
    for (int i = 0; i < 300; i++) {
        int fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) {
            close(fd);
            return;
        }
        if (errno != ENXIO) fail_msg("open %s: %s", fifo, strerror(errno));
        sleep_ms(10);
    }
    fail_msg("the space thread never opened %s", fifo);
}

static void collect(const char *query, ph_result *r)
{
    ph_collect_ok(&prov, query, 1 << 16, r);
}

/* Is "/"'s Free Megabytes available in a LogicalDisk collection? */
static int root_space_available(void)
{
    ph_result r;
    collect("236", &r);
    pl_object o;
    ph_object(&r, PL_OBJ_LOGICAL_DISK, &o);
    int ok = ph_available_of(&o, "/", PL_CTR_FREE_MEGABYTES);
    ph_result_free(&r);
    return ok;
}

/* Collect until "/"'s space is back (the stalled batch returned), at most 5 s. */
static void wait_space_back(void)
{
    for (int i = 0; i < 500; i++) {
        if (root_space_available()) return;
        sleep_ms(10);
    }
    fail_msg("the space counters did not come back within 5 s of the release");
}

/* The same on the live root, by the first instance (its name varies). */
static void wait_space_back_live(void)
{
    for (int i = 0; i < 500; i++) {
        ph_result r;
        collect("236", &r);
        pl_object o;
        ph_object(&r, PL_OBJ_LOGICAL_DISK, &o);
        int ok = ph_available(&o, 0, PL_CTR_FREE_MEGABYTES);
        ph_result_free(&r);
        if (ok) return;
        sleep_ms(10);
    }
    fail_msg("the space counters did not come back within 5 s of the release");
}

/* Every instance of a LogicalDisk object has its space counters (and % Free
 * Space's base and Size Megabytes) marked unavailable and written as 0, and
 * its I/O counters available. */
static void space_unavailable_everywhere(const pl_object *o)
{
    uint32_t n = pl_object_num_instances(o);
    assert_true(n >= 2);
    for (uint32_t k = 0; k < n; k++) {
        int32_t i = (int32_t)k;
        assert_int_equal(ph_available(o, i, PL_CTR_FREE_MEGABYTES), 0);
        assert_int_equal(ph_available(o, i, PL_CTR_PCT_FREE_SPACE), 0);
        assert_int_equal(ph_available(o, i, PL_CTR_SIZE_MEGABYTES), 0);
        assert_int_equal(ph_value(o, i, PL_CTR_FREE_MEGABYTES), 0);
        assert_int_equal(ph_value(o, i, PL_CTR_PCT_FREE_SPACE), 0);
        assert_int_equal(ph_base(o, i, PL_CTR_PCT_FREE_SPACE), 0);
        assert_int_equal(ph_available(o, i, PL_CTR_DISK_READS_PER_SEC), 1);
        /* % Free Space (0) and its base (1), Free Megabytes (2), Size (36) */
        assert_int_equal(ph_value(o, i, PL_CTR_UNAVAILABLE_COUNTERS), 0x1000000007ull);
    }
}

/* ------------------------------------------ the same result as in line */

/* The choice of a device's mount depends on statvfs() answers (a mount gone
 * lets the next mount of its device in), so a collection may take several
 * batches; the instances, their order and values are those of the rules
 * applied in line, one mount after another (docs/providers/perfdisk.md):
 *   sda1: "/"                              -> "/"
 *   sdb:  "/gone" (no directory), then a bind "/b" -> "/b" (asked in round 2)
 *   sdc:  a bind "/x", then "/y", then "/z"  -> "/y" at /x's place
 *   sdd:  "/nodir" (none), then "/loop" (ELOOP) -> "/loop", space unavailable */
static void rounds_match_the_rules(void **state)
{
    (void)state;
    char dir[] = "/tmp/perfdisk_roundsXXXXXX";
    ph_tempdir(dir);
    ph_put(dir, "proc/diskstats",
           "   8       0 sda 100 0 800 10 50 0 400 20 0 30 30 0 0 0 0 0 0\n"
           "   8       1 sda1 60 0 480 6 30 0 240 12 0 18 18 0 0 0 0 0 0\n"
           "   8      16 sdb 200 0 1600 20 70 0 560 40 0 50 60 0 0 0 0 0 0\n"
           "   8      32 sdc 300 0 1600 20 70 0 560 40 0 50 60 0 0 0 0 0 0\n"
           "   8      48 sdd 400 0 1600 20 70 0 560 40 0 50 60 0 0 0 0 0 0\n");
    ph_put(dir, "sys/block/sda/size", "2048000\n");
    ph_put(dir, "sys/block/sda/sda1/partition", "1\n");
    ph_put(dir, "sys/block/sdb/size", "2048000\n");
    ph_put(dir, "sys/block/sdc/size", "2048000\n");
    ph_put(dir, "sys/block/sdd/size", "2048000\n");
    ph_put(dir, "proc/self/mountinfo",
           "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
           "23 22 8:16 / /gone rw,relatime - ext4 /dev/sdb rw\n"
           "24 22 8:16 /sub /b rw,relatime - ext4 /dev/sdb rw\n"
           "25 22 8:32 /sub /x rw,relatime - ext4 /dev/sdc rw\n"
           "26 22 8:32 / /y rw,relatime - ext4 /dev/sdc rw\n"
           "27 22 8:32 / /z rw,relatime - ext4 /dev/sdc rw\n"
           "28 22 8:48 / /nodir rw,relatime - ext4 /dev/sdd rw\n"
           "29 22 8:48 / /loop rw,relatime - ext4 /dev/sdd rw\n");
    ph_mkdir(dir, "b");
    ph_mkdir(dir, "x");
    ph_mkdir(dir, "y");
    ph_mkdir(dir, "z");
    char link[512];
    snprintf(link, sizeof link, "%s/loop", dir);
    assert_int_equal(symlink("loop", link), 0);
    struct statvfs sv;
    assert_int_equal(statvfs(dir, &sv), 0);
    uint64_t size = (uint64_t)sv.f_blocks * sv.f_frsize / 1048576;

    for (int rep = 0; rep < 4; rep++) {
        /* twice per load (the second collection reuses the batch buffers),
         * loaded twice (each load starts and joins its own thread) */
        if (rep % 2 == 0) {
            ph_load(&prov, PERFDISK_SO, "PerfDisk", dir);
            assert_int_equal(prov.open(NULL), 0);
        }
        ph_result r;
        collect("236", &r);
        pl_object o;
        ph_object(&r, PL_OBJ_LOGICAL_DISK, &o);
        static const char *const want[] = {"sda//", "sdb//b", "sdc//y", "sdd//loop", "_Total"};
        ph_names_are(&o, want, 5, 1);
        static const char *const ok[] = {"/", "/b", "/y"};
        for (int i = 0; i < 3; i++) {
            assert_int_equal(ph_value_of(&o, ok[i], PL_CTR_UNAVAILABLE_COUNTERS), 0);
            assert_int_equal(ph_value_of(&o, ok[i], PL_CTR_SIZE_MEGABYTES), size);
            assert_int_equal(ph_base_of(&o, ok[i], PL_CTR_PCT_FREE_SPACE), size);
            uint64_t fr = ph_value_of(&o, ok[i], PL_CTR_FREE_MEGABYTES);
            uint64_t f0 = (uint64_t)sv.f_bavail * sv.f_frsize / 1048576;
            assert_true(fr + 64 >= f0 && fr <= f0 + 64);
        }
        assert_int_equal(ph_value_of(&o, "/loop", PL_CTR_UNAVAILABLE_COUNTERS), 0x1000000007ull);
        assert_int_equal(ph_value_of(&o, "/loop", PL_CTR_DISK_READS_PER_SEC), 400);
        assert_int_equal(ph_value_of(&o, "/y", PL_CTR_DISK_READS_PER_SEC), 300);
        assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_UNAVAILABLE_COUNTERS), 0x1000000007ull);
        assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_DISK_READS_PER_SEC), 60 + 200 + 300 + 400);
        ph_result_free(&r);
        if (rep % 2 == 1) ph_unload(&prov);
    }
    ph_rmtree(dir);
}

/* ------------------------------------------------------- the deadline */

/* A batch that does not come back in time: the collection returns at the
 * deadline (1 s under a canned root, 200 ms on the live one) with every
 * space counter marked unavailable (a mount that may be gone stays, as
 * nobody knows), the next collection starts no batch and returns at once,
 * and once the batch is back the values are there again. */
static void deadline_marks_space_unavailable(void **state)
{
    (void)state;
    char dir[] = "/tmp/perfdisk_stallXXXXXX", fifo[600];
    make_fifo(dir, fifo, sizeof fifo);
    ph_load(&prov, PERFDISK_SO, "PerfDisk", M1);
    assert_int_equal(prov.open(NULL), 0);
    setenv(STALL, fifo, 1);

    ph_result r;
    double t0 = now_ms();
    collect("236", &r);
    double took = now_ms() - t0;
    assert_true(took >= 900);  /* it waited for the batch ... */
    assert_true(took < 3000);  /* ... until the deadline (1 s under a canned root), not until it came back */
    pl_object o;
    ph_object(&r, PL_OBJ_LOGICAL_DISK, &o);
    /* /snap/core has no directory in m1, so statvfs() would have said ENOENT
     * and left it out; without an answer it stays. */
    static const char *const kept[] = {"/", "/home", "/data disk", "/snap/core", "_Total"};
    ph_names_are(&o, kept, 5, 0);
    space_unavailable_everywhere(&o);
    assert_int_equal(ph_value_of(&o, "/", PL_CTR_DISK_READS_PER_SEC), 600);
    ph_object(&r, PL_OBJ_PHYSICAL_DISK, &o);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_UNAVAILABLE_COUNTERS), 0);
    ph_result_free(&r);

    /* Still out: no new batch, no wait. */
    t0 = now_ms();
    collect("Global", &r);
    took = now_ms() - t0;
    assert_true(took < 500); /* a new batch would wait out the 1 s deadline */
    ph_object(&r, PL_OBJ_LOGICAL_DISK, &o);
    ph_names_are(&o, kept, 5, 0);
    space_unavailable_everywhere(&o);
    ph_result_free(&r);

    unsetenv(STALL);
    release(fifo);
    wait_space_back();
    collect("236", &r);
    ph_object(&r, PL_OBJ_LOGICAL_DISK, &o);
    static const char *const own[] = {"/", "/home", "/data disk", "_Total"};
    ph_names_are(&o, own, 4, 0);
    struct statvfs sv;
    assert_int_equal(statvfs(M1 "/home", &sv), 0);
    assert_int_equal(ph_value_of(&o, "/home", PL_CTR_SIZE_MEGABYTES), (uint64_t)sv.f_blocks * sv.f_frsize / 1048576);
    for (int i = 0; i < 4; i++) assert_int_equal(ph_value_of(&o, own[i], PL_CTR_UNAVAILABLE_COUNTERS), 0);
    ph_result_free(&r);
    ph_unload(&prov);
    assert_int_equal(threads_named_settled(THREAD_NAME, 0), 0);
    ph_rmtree(dir);
}

/* On the live root the deadline is 200 ms (the host calls PerfDisk on the
 * consumer's own thread there). Two loop-device filesystems of its own make
 * a batch to hold back on any machine (as root). */
static void live_root_deadline(void **state)
{
    (void)state;
    char dir[] = "/tmp/perfdisk_liveXXXXXX", fifo[600], mnt[] = "/tmp/perfdisk_mntXXXXXX";
    dl_loop_mounts(mnt, 2);
    make_fifo(dir, fifo, sizeof fifo);
    ph_load(&prov, PERFDISK_SO, "PerfDisk", NULL);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    collect("236", &r);
    pl_object o;
    ph_object(&r, PL_OBJ_LOGICAL_DISK, &o);
    uint32_t n = pl_object_num_instances(&o);
    ph_result_free(&r);
    assert_true(n >= 2);
    setenv(STALL, fifo, 1);
    double t0 = now_ms();
    collect("236", &r);
    double took = now_ms() - t0;
    unsetenv(STALL);
    assert_true(took >= 150);
    assert_true(took < 900);
    ph_object(&r, PL_OBJ_LOGICAL_DISK, &o);
    space_unavailable_everywhere(&o);
    ph_result_free(&r);
    release(fifo);
    wait_space_back_live();
    ph_unload(&prov);
    ph_rmtree(dir);
    dl_unmount(mnt, 2);
}

/* Close and dlclose while a batch is out: Close does not wait for the
 * thread, and the library stays mapped for it (pinned), so the thread
 * returns into its code; loaded again, the same state sees the batch come
 * back, and the next Close joins the thread. */
static void close_while_out_pins_the_library(void **state)
{
    (void)state;
    char dir[] = "/tmp/perfdisk_pinXXXXXX", fifo[600];
    make_fifo(dir, fifo, sizeof fifo);
    ph_load(&prov, PERFDISK_SO, "PerfDisk", M1);
    assert_int_equal(prov.open(NULL), 0);
    setenv(STALL, fifo, 1);
    ph_result r;
    collect("236", &r);
    ph_result_free(&r);
    unsetenv(STALL);
    assert_int_equal(threads_named(THREAD_NAME), 1);
    double t0 = now_ms();
    ph_unload(&prov); /* Close, then dlclose */
    assert_true(now_ms() - t0 < 500); /* joining the stalled thread would never return */
    void *h = dlopen(PERFDISK_SO, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(h); /* still loaded */
    dlclose(h);
    assert_int_equal(threads_named(THREAD_NAME), 1);

    release(fifo);
    ph_load(&prov, PERFDISK_SO, "PerfDisk", M1);
    assert_int_equal(prov.open(NULL), 0);
    wait_space_back();
    ph_unload(&prov);
    assert_int_equal(threads_named_settled(THREAD_NAME, 0), 0);
    ph_rmtree(dir);
}

/* ---------------------------------------------------------- lifetime */

/* The thread is started by the first LogicalDisk collection only, and
 * joined by the last Close. */
static void thread_started_on_need_joined_at_close(void **state)
{
    (void)state;
    ph_load(&prov, PERFDISK_SO, "PerfDisk", M1);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    collect("234", &r);
    ph_result_free(&r);
    assert_int_equal(threads_named(THREAD_NAME), 0);
    collect("236", &r);
    ph_result_free(&r);
    assert_int_equal(threads_named(THREAD_NAME), 1);
    collect("Global", &r);
    ph_result_free(&r);
    assert_int_equal(threads_named(THREAD_NAME), 1); /* one thread, reused */
    assert_int_equal(prov.open(NULL), 0);             /* a second host */
    assert_int_equal(prov.close(), 0);
    assert_int_equal(threads_named(THREAD_NAME), 1);  /* not its last Close */
    ph_unload(&prov);
    assert_int_equal(threads_named_settled(THREAD_NAME, 0), 0);
}

/* Unloaded without a Close: the library's destructor joins the thread
 * before its code goes away. */
static void unload_without_close_joins(void **state)
{
    (void)state;
    ph_load(&prov, PERFDISK_SO, "PerfDisk", M1);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    collect("236", &r);
    ph_result_free(&r);
    assert_int_equal(threads_named(THREAD_NAME), 1);
    ph_dlclose(&prov);
    assert_null(dlopen(PERFDISK_SO, RTLD_NOW | RTLD_NOLOAD)); /* really unloaded */
    assert_int_equal(threads_named_settled(THREAD_NAME, 0), 0);
}

/* A forked child has no space thread (only the calling thread is forked):
 * its first LogicalDisk collection starts its own instead of posting to the
 * parent's and waiting out the deadline. Checked in the child without
 * cmocka (exit codes), the parent waits at most 10 s. */
static void forked_child_starts_its_own(void **state)
{
    (void)state;
    ph_load(&prov, PERFDISK_SO, "PerfDisk", M1);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    collect("236", &r);
    ph_result_free(&r);
    assert_int_equal(threads_named(THREAD_NAME), 1);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (threads_named(THREAD_NAME) != 0) _exit(10);
        static uint8_t buf[1 << 16];
        LPVOID data = buf;
        DWORD bytes = sizeof buf, objects = 0;
        double t0 = now_ms();
        DWORD rc = prov.collect(ph_w("236"), &data, &bytes, &objects);
        double took = now_ms() - t0;
        if (rc != ERROR_SUCCESS || objects != 2) _exit(11);
        if (took >= 900) _exit(12); /* waited out the deadline: posted to no thread */
        if (threads_named(THREAD_NAME) != 1) _exit(13);
        pl_block b;
        pl_error e;
        pl_object o;
        if (pl_block_open(&b, buf, bytes, PL_BLOCK_BARE, objects, &e) != PL_OK) _exit(14);
        if (pl_block_find_object(&b, PL_OBJ_LOGICAL_DISK, &o) != PL_OK) _exit(15);
        if (ph_instance(&o, "/home") < 0 || !ph_available(&o, ph_instance(&o, "/home"), PL_CTR_FREE_MEGABYTES))
            _exit(16);
        _exit(prov.close() == ERROR_SUCCESS && threads_named_settled(THREAD_NAME, 0) == 0 ? 0 : 17);
    }
    int st = 0;
    pid_t got = 0;
    for (int i = 0; i < 1000 && (got = waitpid(pid, &st, WNOHANG)) == 0; i++) sleep_ms(10);
    if (got == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        fail_msg("the forked child did not finish within 10 s");
    }
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    /* the parent's thread is still there and still answers */
    assert_int_equal(threads_named(THREAD_NAME), 1);
    assert_true(root_space_available());
    ph_unload(&prov);
}

/* ------------------------------------------------- through the engine */

static pl_engine *engine_open(const char *store)
{
    pl_engine_config cfg = {.store_path = store, .system_name = "TESTBOX", .log_to_syslog = 0};
    pl_engine *e = NULL;
    pl_error err;
    int rc = pl_engine_open(&cfg, &e, &err);
    if (rc != PL_OK) fail_msg("engine: %s", err.msg);
    return e;
}

/* A LogicalDisk query through the engine: the number of LogicalDisk
 * instances, and whether the first one's Free Megabytes is available. */
static uint32_t engine_logical(pl_engine *e, int *space_ok, int check_unavailable)
{
    void *data = NULL;
    size_t len = 0;
    uint32_t type = 0;
    pl_error err;
    if (pl_engine_query_alloc(e, "236", &data, &len, &type, &err) != PL_OK) fail_msg("query: %s", err.msg);
    pl_block blk;
    assert_int_equal(pl_block_open(&blk, data, len, 0, 0, &err), PL_OK);
    pl_object o;
    assert_int_equal(pl_block_find_object(&blk, PL_OBJ_LOGICAL_DISK, &o), PL_OK);
    uint32_t n = pl_object_num_instances(&o);
    *space_ok = n ? ph_available(&o, 0, PL_CTR_FREE_MEGABYTES) : 0;
    if (check_unavailable) space_unavailable_everywhere(&o);
    pl_free(data);
    return n;
}

/* The whole path on the live root: the engine calls PerfDisk on the
 * consumer's thread (PerfDiskCollectNonBlocking), a held-back batch costs
 * the query the 200 ms deadline and not the provider (it stays enabled, no
 * error), the engine closes (dlclose) while the thread is still out, the
 * thread then returns into the pinned library, and a new engine has the
 * values again. Two loop-device filesystems of its own make a batch. */
static void live_engine_query_with_a_stuck_batch(void **state)
{
    (void)state;
    char dir[] = "/tmp/perfdisk_engXXXXXX", fifo[600], store[600], mnt[] = "/tmp/perfdisk_mntXXXXXX";
    dl_loop_mounts(mnt, 2);
    make_fifo(dir, fifo, sizeof fifo);
    snprintf(store, sizeof store, "%s/perflib.db", dir);
    unsetenv("PERFLIB_SYSROOT");
    pl_store *st = NULL;
    pl_error err;
    assert_int_equal(pl_store_open(store, 0, &st, &err), PL_OK);
    pl_provider_info *list;
    size_t n;
    assert_int_equal(pl_store_providers(st, &list, &n, &err), PL_OK);
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i].name, "PerfDisk") != 0) pl_store_disable_provider(st, list[i].name, "not under test", &err);
    pl_provider_list_free(list, n);
    pl_store_close(st);

    pl_engine *e = engine_open(store);
    int ok = 0;
    assert_true(engine_logical(e, &ok, 0) >= 2);
    assert_true(ok);
    setenv(STALL, fifo, 1);
    double t0 = now_ms();
    engine_logical(e, &ok, 1);
    double took = now_ms() - t0;
    unsetenv(STALL);
    assert_true(took >= 150);
    assert_true(took < 900);
    pl_provider_status ps = pl_test_provider_status(e, "PerfDisk");
    assert_int_equal(ps.disabled, 0);
    assert_int_equal(ps.errors, 0);
    assert_int_equal(ps.collects, 2);
    pl_engine_close(e); /* dlclose while the thread is out */
    release(fifo);

    e = engine_open(store);
    for (int i = 0; i < 500 && (engine_logical(e, &ok, 0), !ok); i++) sleep_ms(10);
    assert_true(ok);
    pl_engine_close(e);
    ph_rmtree(dir);
    dl_unmount(mnt, 2);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rounds_match_the_rules),
        cmocka_unit_test(deadline_marks_space_unavailable),
        cmocka_unit_test(live_root_deadline),
        cmocka_unit_test(close_while_out_pins_the_library),
        cmocka_unit_test(thread_started_on_need_joined_at_close),
        cmocka_unit_test(unload_without_close_joins),
        cmocka_unit_test(forked_child_starts_its_own),
        cmocka_unit_test(live_engine_query_with_a_stuck_batch),
    };
    return pl_test_run(tests, argc, argv);
}
