/* Tests of PerfProc's parallel collection (docs/providers/perfproc.md,
 * "Parallel collection"): the real libperfproc.so, a canned /proc tree of
 * hundreds of processes with threads built in a temporary directory, and
 * collections with 1 reader (no threads: the sequential path) and with 2, 3
 * and 8 readers, which must give the very same block. The one field allowed
 * to differ is each object's PerfTime, the moment the snapshot was taken. */
#include <dirent.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/wintypes.h"
#include "pl_test.h"
#include "provider_harness.h"

static ph_provider prov;
static char root[64];

#define NPROC 300

/* A canned tree: NPROC processes (pids 1000, 1003, ...: listing order is
 * not creation order), 1..4 threads each, names shared by many processes
 * (so #n suffixes depend on order), plus processes that vanish between the
 * listing and the reading of their files. */
static void make_tree(void)
{
    strcpy(root, "/tmp/perfpar_XXXXXX");
    ph_tempdir(root);
    ph_put(root, "proc/stat",
           "cpu  1000 20 300 50000 40 0 10 0 0 0\ncpu0 500 10 150 25000 20 0 5 0 0 0\n"
           "cpu1 500 10 150 25000 20 0 5 0 0 0\nbtime 1700000000\n");
    static const char *const names[] = {"worker", "bash", "a) b", "kworker/0:1", "w\xc3\xa9"};
    char rel[128], text[2048];
    for (int i = 0; i < NPROC; i++) {
        int pid = 1000 + 3 * i;
        int nt = 1 + i % 4;
        const char *nm = names[(i * 7) % 5];
        char state = "SRDZ"[i % 4];
        snprintf(text, sizeof text,
                 "%d (%s) %c 1 %d %d 0 -1 4194560 %d 0 %d 0 %d %d 0 0 20 %d %d 0 %d %d %d 18446744073709551615 "
                 "1 1 0 0 0 0 0 0 0 0 0 0 17 %d 0 0 0\n",
                 pid, nm, state, pid, pid, 100 + i, i % 13, 10 * i, 3 * i, (i % 40) - 20, nt, 500 + i,
                 1048576 * (i + 1), 100 + i, i % 2);
        snprintf(rel, sizeof rel, "proc/%d/stat", pid);
        ph_put(root, rel, text);
        if (i % 50 != 7) { /* a process whose status cannot be read is left without its group */
            snprintf(text, sizeof text,
                     "Name:\t%s\nVmPeak:\t%d kB\nVmSize:\t%d kB\nVmHWM:\t%d kB\nVmRSS:\t%d kB\nRssAnon:\t%d kB\n"
                     "RssFile:\t%d kB\nRssShmem:\t0 kB\nVmData:\t%d kB\nVmStk:\t136 kB\nVmSwap:\t%d kB\n"
                     "Threads:\t%d\nvoluntary_ctxt_switches:\t%d\nnonvoluntary_ctxt_switches:\t%d\n",
                     nm, 2000 + i, 1900 + i, 900 + i, 800 + i, 500 + i, 300 + i, 4000 + 2 * i, i % 3, nt, 10 * i, i);
            snprintf(rel, sizeof rel, "proc/%d/status", pid);
            ph_put(root, rel, text);
        } else {
            /* a directory where the file should be: read() fails with EISDIR */
            snprintf(rel, sizeof rel, "proc/%d/status/x", pid);
            ph_put(root, rel, "");
        }
        if (i % 9 != 4) {
            snprintf(text, sizeof text, "rchar: %d\nwchar: %d\nsyscr: %d\nsyscw: %d\n", 1000 * i, 500 * i, 10 * i, 5 * i);
            snprintf(rel, sizeof rel, "proc/%d/io", pid);
            ph_put(root, rel, text);
        }
        if (i % 3 == 0) { /* the costly objects' files for a third of them */
            snprintf(text, sizeof text,
                     "55d0c0000000-55d0c0001000 r--p 00000000 08:01 %d /usr/bin/p%d\n"
                     "55d0c0001000-55d0c0003000 r-xp 00001000 08:01 %d /usr/bin/p%d\n"
                     "7f0000000000-7f0000020000 r-xp 00000000 08:01 777 /usr/lib/libc.so.6\n"
                     "7f0000020000-7f0000021000 rw-p 00020000 08:01 777 /usr/lib/libc.so.6\n"
                     "7f0000100000-7f0000104000 rw-s 00000000 00:05 99 /dev/shm/seg%d\n"
                     "7f0000200000-7f00002%02x000 rw-p 00000000 00:00 0 \n"
                     "7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0                          [stack]\n%s",
                     5000 + i, i % 7, 5000 + i, i % 7, i % 4, i % 250, i % 30 == 9 ? "not a maps line\n" : "");
            snprintf(rel, sizeof rel, "proc/%d/maps", pid);
            ph_put(root, rel, text);
            if (i % 7 != 0) {
                snprintf(text, sizeof text,
                         "00400000-7fff00000000 ---p 00000000 00:00 0 [rollup]\nRss: %d kB\nPss: 1 kB\n"
                         "Private_Clean: %d kB\nPrivate_Dirty: %d kB\n",
                         1000 + i, 10 + i, 20 + i);
                snprintf(rel, sizeof rel, "proc/%d/smaps_rollup", pid);
                ph_put(root, rel, text);
            }
        }
        for (int f = 0; f < i % 5; f++) {
            snprintf(rel, sizeof rel, "proc/%d/fd/%d", pid, f);
            ph_put(root, rel, "");
        }
        for (int t = 0; t < nt; t++) {
            int tid = pid + t;
            if (t == 2 && i % 11 == 0) continue; /* a thread that ended after the listing: no stat */
            snprintf(text, sizeof text,
                     "%d (%s) %c 1 %d %d 0 -1 4194560 %d 0 %d 0 %d %d 0 0 20 %d %d 0 %d %d %d 1 1 1 0 0 0 0 0 0 0 0 "
                     "0 0 17 %d 0 0 0\n",
                     tid, nm, "SRD"[t % 3], pid, pid, t, t, i + t, t, (t % 3) - 1, nt, 500 + i + t, 4096, 10, t % 2);
            snprintf(rel, sizeof rel, "proc/%d/task/%d/stat", pid, tid);
            ph_put(root, rel, text);
            if ((i + t) % 6 != 5) {
                snprintf(text, sizeof text, "%d %d %d\n", 1000 * t, 100 * t, 7 * i + t);
                snprintf(rel, sizeof rel, "proc/%d/task/%d/schedstat", pid, tid);
                ph_put(root, rel, text);
            }
        }
    }
    /* Vanished between the listing and the reads: a directory without
     * stat, one with a malformed stat, and a number that is not a directory. */
    ph_mkdir(root, "proc/1001");
    ph_put(root, "proc/1002/stat", "1002 (half\n");
    ph_put(root, "proc/1004", "not a directory");
}

static void load_with(const char *workers)
{
    if (workers) setenv("PERFLIB_PERFPROC_WORKERS", workers, 1);
    else unsetenv("PERFLIB_PERFPROC_WORKERS");
    ph_load(&prov, PL_PERFPROC_SO, "PerfProc", root);
}

/* Each object's PerfTime set to 0 in a collected block (the objects follow
 * one another; TotalByteLength is checked by the reader already). */
static void zero_times(ph_result *r)
{
    size_t off = 0;
    for (DWORD i = 0; i < r->objects; i++) {
        PERF_OBJECT_TYPE h;
        assert_true(off + sizeof h <= r->bytes);
        memcpy(&h, r->buf + off, sizeof h);
        memset(r->buf + off + offsetof(PERF_OBJECT_TYPE, PerfTime), 0, sizeof h.PerfTime);
        off += h.TotalByteLength;
    }
    assert_int_equal(off, r->bytes);
}

/* Collect `query` `times` times with the given setting (one Open); returns
 * the last block with times zeroed. */
static void collect_with(const char *workers, const char *query, int times, ph_result *out)
{
    load_with(workers);
    assert_int_equal(prov.open(NULL), 0);
    for (int i = 0; i < times; i++) {
        if (i > 0) ph_result_free(out);
        ph_collect_ok(&prov, query, 1u << 20, out);
    }
    zero_times(out);
    ph_unload(&prov);
}

static void assert_same_block(const ph_result *a, const ph_result *b)
{
    assert_int_equal(a->objects, b->objects);
    assert_int_equal(a->bytes, b->bytes);
    assert_memory_equal(a->buf, b->buf, a->bytes);
}

/* The tree as the sequential collection sees it: the expected names and
 * counts, so the comparison is not between two equally wrong blocks. */
static void check_sequential(const ph_result *r)
{
    pl_object p, t;
    ph_object(r, PL_OBJ_PROCESS, &p);
    /* Idle, NPROC processes except the 6 whose status is a directory (gone
     * is not what EISDIR means: they stay, marked), _Total */
    assert_int_equal(pl_object_num_instances(&p), NPROC + 2);
    ph_object(r, PL_OBJ_THREAD, &t);
    int threads = 0;
    for (int i = 0; i < NPROC; i++) threads += 1 + i % 4 - ((i % 4) >= 2 && i % 11 == 0);
    /* Idle/0 and Idle/1 (two cpuN lines) first, _Total/_Total last */
    assert_int_equal(pl_object_num_instances(&t), threads + 3);
    const char *full[] = {"Idle", "worker", "a) b", "w\xc3\xa9", "bash", "kworker/0:1", "worker#1"};
    char **names;
    assert_int_equal(pl_object_instance_names(&p, &names), PL_OK);
    for (size_t i = 0; i < sizeof full / sizeof full[0]; i++) assert_string_equal(names[i], full[i]);
    pl_free(names);
    assert_int_equal(ph_value(&p, 1, PL_CTR_ID_PROCESS), 1000);
    assert_int_equal(ph_value(&p, NPROC, PL_CTR_ID_PROCESS), 1000 + 3 * (NPROC - 1));
    /* the last process's last thread has the last process as parent */
    pl_instance in;
    assert_int_equal(pl_object_instance(&t, threads + 1, &in), PL_OK);
    assert_int_equal(in.def.ParentObjectInstance, NPROC);
    assert_int_equal(ph_value(&t, threads + 1, PL_CTR_ID_PROCESS), 1000 + 3 * (NPROC - 1));
}

/* The costly objects as the sequential collection sees them: an Image per
 * executable file of the processes with maps (none for a malformed maps),
 * a Process Address Space per process. */
static void check_costly(const ph_result *r)
{
    pl_object im, as;
    ph_object(r, PL_OBJ_IMAGE, &im);
    ph_object(r, PL_OBJ_PROCESS_ADDRESS_SPACE, &as);
    int images = 0;
    for (int i = 0; i < NPROC; i++)
        if (i % 3 == 0 && i % 30 != 9) images += 2; /* p<n> and libc.so.6 */
    assert_int_equal(pl_object_num_instances(&im), images);
    assert_int_equal(pl_object_num_instances(&as), NPROC);
    char name[64];
    pl_instance in;
    assert_int_equal(pl_object_instance(&im, 1, &in), PL_OK);
    assert_int_equal(pl_instance_name(&in, name, sizeof name), PL_OK);
    assert_string_equal(name, "libc.so.6");
    assert_int_equal(ph_value(&im, 1, PL_CTR_EXEC_READ_ONLY), 0x20000);
    assert_int_equal(ph_value(&im, 1, PL_CTR_WRITE_COPY), 0x1000);
    /* pid 1000 has no smaps_rollup (marked), pid 1009 has */
    assert_int_equal(ph_available(&as, 0, PL_CTR_RESIDENT_BYTES), 0);
    assert_int_equal(ph_value(&as, 3, PL_CTR_RESIDENT_BYTES), 1003 * 1024ull);
    assert_int_equal(ph_value(&as, 3, PL_CTR_PRIVATE_RESIDENT_BYTES), (13 + 23) * 1024ull);
}

static void check_identical(const char *query, int times)
{
    make_tree();
    ph_result seq;
    collect_with("1", query, times, &seq);
    if (strcmp(query, "230 232") == 0) check_sequential(&seq);
    if (strstr(query, "740")) check_costly(&seq);
    static const char *const par[] = {"2", "3", "8"};
    for (size_t i = 0; i < sizeof par / sizeof par[0]; i++) {
        ph_result r;
        collect_with(par[i], query, times, &r);
        assert_same_block(&seq, &r);
        ph_result_free(&r);
    }
    ph_result_free(&seq);
    ph_rmtree(root);
}

static void identical_process_thread(void **state)
{
    (void)state;
    check_identical("230 232", 1);
}

static void identical_process_only(void **state)
{
    (void)state;
    check_identical("230", 1);
}

static void identical_global(void **state)
{
    (void)state;
    check_identical("Global", 1);
}

/* The third collection of one Open: peaks carried over from earlier
 * collections, arenas and slots reused. */
static void identical_after_repeats(void **state)
{
    (void)state;
    check_identical("230 232", 3);
}

/* The costly objects (maps and smaps_rollup read by the readers too). */
static void identical_costly(void **state)
{
    (void)state;
    check_identical("230 232 740 786", 1);
}

/* ------------------------------------------------------- the setting */

/* The reader threads of this process: tasks named "perfproc-read" (other
 * threads, such as a sanitizer's, do not count). */
static int task_count(void)
{
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[300], comm[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue; /* ended meanwhile */
        if (!fgets(comm, sizeof comm, f)) comm[0] = '\0';
        fclose(f);
        if (strcmp(comm, "perfproc-read\n") == 0) n++;
    }
    closedir(d);
    return n;
}

static int default_workers(void)
{
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
    if (n <= 0) n = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (n <= 0) n = 1;
    return n > 4 ? 4 : n;
}

/* The readers the provider runs with `env` (NULL: unset) and Linkage
 * export `linkage`: the threads it adds to this process during a
 * collection of the big tree, plus the caller; and Close joins them. */
static int readers_for(const char *env, const char *linkage)
{
    int before = task_count();
    load_with(env);
    assert_int_equal(prov.open(linkage ? ph_w(linkage) : NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "230 232", 1u << 20, &r);
    ph_result_free(&r);
    int during = task_count();
    ph_unload(&prov);
    assert_int_equal(task_count(), before);
    return during - before + 1;
}

static void worker_setting(void **state)
{
    (void)state;
    make_tree();
    int dflt = default_workers();
    assert_int_equal(readers_for("1", NULL), 1);
    assert_int_equal(readers_for("3", NULL), 3);
    assert_int_equal(readers_for("64", NULL), 64);
    assert_int_equal(readers_for(NULL, NULL), dflt);
    /* anything but a plain decimal 1..64 is the default, never an error */
    static const char *const bad[] = {"", "0", "65", "-1", "+2", " 2", "2 ", "2x", "0x2", "abc",
                                      "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) assert_int_equal(readers_for(bad[i], NULL), dflt);
    /* the Linkage export, when the environment says nothing */
    assert_int_equal(readers_for(NULL, "workers=3"), 3);
    assert_int_equal(readers_for(NULL, "workers=1"), 1);
    assert_int_equal(readers_for(NULL, "workers=x"), dflt);
    assert_int_equal(readers_for(NULL, "threads=3"), dflt);
    assert_int_equal(readers_for("2", "workers=3"), 2); /* the environment wins */
    ph_rmtree(root);
}

/* Unloading without Close stops the helpers (they must not run code that
 * is gone). */
static void dlclose_without_close(void **state)
{
    (void)state;
    make_tree();
    int before = task_count();
    load_with("3");
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "230 232", 1u << 20, &r);
    ph_result_free(&r);
    assert_int_equal(task_count(), before + 2);
    ph_dlclose(&prov);
    assert_int_equal(task_count(), before);
    ph_rmtree(root);
}

/* A forked child of a process whose pool runs has no helpers: its own
 * collection must still complete (the pool is started afresh there). */
static void collect_after_fork(void **state)
{
    (void)state;
    make_tree();
    load_with("3");
    assert_int_equal(prov.open(NULL), 0);
    ph_result a;
    ph_collect_ok(&prov, "230 232", 1u << 20, &a);
    zero_times(&a);
    pid_t c = fork();
    assert_true(c >= 0);
    if (c == 0) {
        alarm(20);
        void *data = malloc(1u << 20);
        WCHAR *q = ph_w("230 232");
        int ok = 1;
        for (int i = 0; i < 3 && ok; i++) {
            void *p = data;
            DWORD bytes = 1u << 20, objs = 0;
            ok = data && prov.collect(q, &p, &bytes, &objs) == 0 && bytes == a.bytes && objs == a.objects;
        }
        _exit(ok ? 0 : 1);
    }
    int st;
    assert_int_equal(waitpid(c, &st, 0), c);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    ph_result_free(&a);
    ph_unload(&prov);
    ph_rmtree(root);
}

/* No thread can start (a seccomp filter refuses clone3 and clone with
 * CLONE_THREAD, as a sandbox might): the provider collects with one reader,
 * the same block, and Collect does not fail. */
static int refuse_threads(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 4, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 2),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof f[0]), f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static void *nothing(void *arg)
{
    return arg;
}

static void threads_refused_one_reader(void **state)
{
    (void)state;
    make_tree();
    ph_result seq;
    collect_with("1", "230 232", 1, &seq);
    pid_t c = fork();
    assert_true(c >= 0);
    if (c == 0) {
        alarm(30);
        assert_int_equal(refuse_threads(), 0);
        /* the filter works: no thread starts */
        pthread_t th;
        assert_int_not_equal(pthread_create(&th, NULL, nothing, NULL), 0);
        ph_result r;
        collect_with("3", "230 232", 2, &r);
        assert_same_block(&seq, &r);
        assert_int_equal(task_count(), 0);
        _exit(0);
    }
    int st;
    assert_int_equal(waitpid(c, &st, 0), c);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    ph_result_free(&seq);
    ph_rmtree(root);
}

/* ------------------------------------------------------- live */

/* Processes come and go while 3 readers collect the live /proc: every
 * collection succeeds and opens, and each Thread's parent is a Process
 * whose ID is the thread's ID Process (nothing mixed from two passes). */
static volatile int churn_stop;

static void *churn(void *arg)
{
    (void)arg;
    for (int i = 0; i < 400 && !churn_stop; i++) {
        pid_t c = fork();
        if (c == 0) _exit(0);
        if (c > 0) waitpid(c, NULL, 0);
    }
    return NULL;
}

static void live_churn_consistent(void **state)
{
    (void)state;
    setenv("PERFLIB_PERFPROC_WORKERS", "3", 1);
    setenv("PERFLIB_PERFPROC_SOURCE", "proc", 1); /* the readers: not the BPF source root would get */
    ph_load(&prov, PL_PERFPROC_SO, "PerfProc", NULL);
    assert_int_equal(prov.open(NULL), 0);
    unsetenv("PERFLIB_PERFPROC_SOURCE");
    pthread_t th;
    churn_stop = 0;
    assert_int_equal(pthread_create(&th, NULL, churn, NULL), 0);
    for (int k = 0; k < 10; k++) {
        ph_result r;
        ph_collect_ok(&prov, "230 232", 8u << 20, &r);
        pl_object p, t;
        ph_object(&r, PL_OBJ_PROCESS, &p);
        ph_object(&r, PL_OBJ_THREAD, &t);
        int32_t nt = pl_object_num_instances(&t);
        for (int32_t i = 0; i < nt; i++) {
            pl_instance in;
            assert_int_equal(pl_object_instance(&t, i, &in), PL_OK);
            assert_int_equal(ph_value(&p, (int32_t)in.def.ParentObjectInstance, PL_CTR_ID_PROCESS),
                             ph_value(&t, i, PL_CTR_ID_PROCESS));
        }
        ph_result_free(&r);
    }
    churn_stop = 1;
    pthread_join(th, NULL);
    ph_unload(&prov);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identical_process_thread),
        cmocka_unit_test(identical_process_only),
        cmocka_unit_test(identical_global),
        cmocka_unit_test(identical_after_repeats),
        cmocka_unit_test(identical_costly),
        cmocka_unit_test(worker_setting),
        cmocka_unit_test(dlclose_without_close),
        cmocka_unit_test(collect_after_fork),
        cmocka_unit_test(threads_refused_one_reader),
        cmocka_unit_test(live_churn_consistent),
    };
    return pl_test_run(tests, argc, argv);
}
