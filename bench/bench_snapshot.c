/* bench/bench_snapshot: time one snapshot of every process and thread.
 *
 *   bench_snapshot floor K          the raw floor: open/read/close of exactly
 *                                   the files PerfProc reads for "230 232"
 *   bench_snapshot floor-par K [N]  the same files read by N threads
 *                                   (default 2): /proc listed once, then the
 *                                   pids handed out in chunks of 8 by an
 *                                   atomic counter, as PerfProc's readers do
 *   bench_snapshot perfproc K SO    dlopen SO (libperfproc.so), Open once,
 *                                   Collect "230 232" K times (its readers:
 *                                   $PERFLIB_PERFPROC_WORKERS, else the
 *                                   default, docs/providers/perfproc.md)
 *   bench_snapshot floor-proc K     the floor of the Process object alone
 *                                   (no task/ files), to compare with
 *                                   engine-proc and with PCP, which read
 *                                   no per-thread files either
 *   bench_snapshot engine-proc K STORE DIR
 *                                   like engine, for "230" (Process only)
 *   bench_snapshot engine-costly K STORE DIR
 *                                   like engine, for "230 232 740 786" (with
 *                                   the costly Image and Process Address
 *                                   Space objects)
 *   bench_snapshot engine K STORE DIR
 *                                   the whole library path: pl_engine_open on
 *                                   STORE (created if missing) with providers
 *                                   from DIR, then pl_engine_query_alloc
 *                                   "230 232" K times (the host validates each
 *                                   result and the engine adds the header)
 *
 *   bench_snapshot mix K SO [N]     floor, floor-par (N threads), perfproc
 *                                   (/proc) with its default readers,
 *                                   perfproc (/proc) with 1 reader and
 *                                   perfproc with the BPF source, taken in
 *                                   turn within each of K rounds, so that a
 *                                   machine whose load changes during the
 *                                   run weighs on all five alike; prints
 *                                   five lines (the second and third
 *                                   providers are separate copies, dlmopen,
 *                                   opened with Linkage workers=1 and with
 *                                   PERFLIB_PERFPROC_SOURCE=bpf). Without
 *                                   the BPF source (not root, not built)
 *                                   its line says "perfproc-bpf skipped:"
 *   bench_snapshot files K PATH...  open, read once and close each PATH K
 *                                   times; one line per path with the median
 *                                   in microseconds (what one per-device
 *                                   file costs: docs/benchmarks.md)
 *   bench_snapshot exec K CMD ARGS...
 *                                   fork/exec CMD K times (output to
 *                                   /dev/null), after one warm-up run: ps, top
 *
 * Prints one line: "<mode> median_ms=<x> min_ms=<y> cpu_ms=<c> processes=<n>
 * threads=<m>": wall-clock medians and the median CPU time (user + system)
 * of one snapshot: this process's, every thread included
 * (CLOCK_PROCESS_CPUTIME_ID), or for exec the child's (wait4 rusage).
 * The floor uses the same kernel interfaces as the provider (getdents64 on
 * /proc and task/, a /proc/<pid> directory descriptor, one read() per file
 * into a stack buffer, fstatat(fd) for the descriptor count when the kernel
 * reports it), and does no parsing and no building: the gap between the two
 * is what perflib adds. */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/query.h"

#include "bench_util.h"

static double now_ms(void)
{
    return bu_now_us() / 1e3;
}

static double cpu_ms(void)
{
    return bu_cpu_us() / 1e3;
}

static long nprocs, nthreads;
static int fd_by_stat;
static int with_threads = 1; /* 0: the floor of the Process object alone */

static void read_one(int dirfd, const char *rel)
{
    char buf[4096];
    int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    if (read(fd, buf, sizeof buf - 1) < 0) buf[0] = 0;
    close(fd);
}

static void count_fds(int pidfd)
{
    if (fd_by_stat) {
        struct stat sb;
        fstatat(pidfd, "fd", &sb, 0);
        return;
    }
    int fd = openat(pidfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    _Alignas(8) char buf[4096];
    while (syscall(SYS_getdents64, fd, buf, sizeof buf) > 0) {
    }
    close(fd);
}

static _Atomic long par_procs, par_threads;
static int32_t pids[1 << 20];
static size_t npids;

/* One process's files, as PerfProc's reader reads them; returns 1 when its
 * directory could be opened, and adds its threads to *threads. */
static int floor_pid(int procfd, int32_t pid, char *tdents, size_t tcap, long *threads)
{
    char name[16];
    snprintf(name, sizeof name, "%d", pid);
    int pidfd = openat(procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pidfd < 0) return 0;
    read_one(pidfd, "stat");
    read_one(pidfd, "status");
    read_one(pidfd, "io");
    count_fds(pidfd);
    int taskfd = with_threads ? openat(pidfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (taskfd >= 0) {
        long n;
        while ((n = syscall(SYS_getdents64, taskfd, tdents, tcap)) > 0) {
            for (long off = 0; off < n;) {
                struct d64 *d = (struct d64 *)(tdents + off);
                off += d->reclen;
                if (d->name[0] < '0' || d->name[0] > '9') continue;
                char path[48];
                snprintf(path, sizeof path, "%s/stat", d->name);
                read_one(taskfd, path);
                snprintf(path, sizeof path, "%s/schedstat", d->name);
                read_one(taskfd, path);
                (*threads)++;
            }
        }
        close(taskfd);
    }
    close(pidfd);
    return 1;
}

/* /proc/stat and the pid list, as the provider starts a collection. */
static void floor_list(int procfd)
{
    static _Alignas(8) char dents[32768];
    npids = 0;
    read_one(procfd, "stat");
    lseek(procfd, 0, SEEK_SET);
    long n;
    while ((n = syscall(SYS_getdents64, procfd, dents, sizeof dents)) > 0) {
        for (long off = 0; off < n;) {
            struct d64 *d = (struct d64 *)(dents + off);
            off += d->reclen;
            if (d->name[0] < '0' || d->name[0] > '9') continue;
            if (npids < sizeof pids / sizeof pids[0]) pids[npids++] = atoi(d->name);
        }
    }
}

static void floor_once(int procfd)
{
    static _Alignas(8) char tdents[32768];
    floor_list(procfd);
    nprocs = nthreads = 0;
    for (size_t i = 0; i < npids; i++) nprocs += floor_pid(procfd, pids[i], tdents, sizeof tdents, &nthreads);
}

/* ---- floor-par: the same reads by N threads (the caller is one) */

#define PAR_CHUNK 8
static pthread_barrier_t par_start, par_done;
static atomic_size_t par_next;
static int par_procfd, par_quit;

static void par_work(void)
{
    _Alignas(8) char tdents[32768];
    long p = 0, t = 0;
    for (;;) {
        size_t b = atomic_fetch_add(&par_next, PAR_CHUNK);
        if (b >= npids) break;
        size_t e = npids - b < PAR_CHUNK ? npids : b + PAR_CHUNK;
        for (size_t i = b; i < e; i++) p += floor_pid(par_procfd, pids[i], tdents, sizeof tdents, &t);
    }
    par_procs += p;
    par_threads += t;
}

static void *par_helper(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_barrier_wait(&par_start);
        if (par_quit) return NULL;
        par_work();
        pthread_barrier_wait(&par_done);
    }
}

/* /proc as a directory descriptor, and whether fstatat(fd) gives the
 * descriptor count here; -1 (said on stderr) without /proc. */
static int open_proc(void)
{
    int procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (procfd < 0) {
        perror("/proc");
        return -1;
    }
    struct stat sb;
    fd_by_stat = fstatat(procfd, "self/fd", &sb, 0) == 0 && sb.st_size > 0;
    return procfd;
}

/* The nth - 1 helper threads of floor-par (the caller is the nth). */
static int par_begin(int nth, pthread_t *th, const char *mode)
{
    pthread_barrier_init(&par_start, NULL, (unsigned)nth);
    pthread_barrier_init(&par_done, NULL, (unsigned)nth);
    for (int i = 0; i < nth - 1; i++)
        if (pthread_create(&th[i], NULL, par_helper, NULL) != 0) {
            fprintf(stderr, "%s: cannot start a thread\n", mode);
            return -1;
        }
    return 0;
}

static void par_end(int nth, pthread_t *th)
{
    par_quit = 1;
    pthread_barrier_wait(&par_start);
    for (int i = 0; i < nth - 1; i++) pthread_join(th[i], NULL);
}

/* A warm-up run of once(procfd), then k timed ones: wall clock in t[],
 * CPU time in c[] (milliseconds). */
static void time_floor(void (*once)(int), int procfd, int k, double *t, double *c)
{
    once(procfd);
    for (int i = 0; i < k; i++) {
        double a = now_ms();
        double c0 = cpu_ms();
        once(procfd);
        c[i] = cpu_ms() - c0;
        t[i] = now_ms() - a;
    }
}

/* The result line of a mode (sorts t and c). */
static void report(const char *mode, double *t, double *c, int k, long procs, long threads)
{
    qsort(t, (size_t)k, sizeof *t, bu_cmp_double);
    qsort(c, (size_t)k, sizeof *c, bu_cmp_double);
    printf("%s median_ms=%.3f min_ms=%.3f cpu_ms=%.3f processes=%ld threads=%ld\n", mode, t[k / 2], t[0], c[k / 2],
           procs, threads);
}

struct prov {
    open_fn open;
    collect_fn collect;
    close_fn close;
};

static int prov_load(void *so, struct prov *p)
{
    if (!so) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return -1;
    }
    p->open = (open_fn)dlsym(so, "PerfProcOpen");
    p->collect = (collect_fn)dlsym(so, "PerfProcCollect");
    p->close = (close_fn)dlsym(so, "PerfProcClose");
    return p->open && p->collect && p->close ? 0 : -1;
}

/* One Collect of "230 232" into buf: Collect's status. */
static DWORD prov_call(const struct prov *p, void *buf, size_t cap)
{
    WCHAR q[8] = {'2', '3', '0', ' ', '2', '3', '2', 0};
    void *d = buf;
    DWORD bytes = (DWORD)cap, objs = 0;
    return p->collect(q, &d, &bytes, &objs);
}

/* The counts of a "230 232" block: Process NumInstances at offset 40 of the
 * first object, Thread's of the second. */
static void block_counts(const void *buf)
{
    int32_t pi, ti;
    uint32_t plen;
    memcpy(&plen, buf, 4);
    memcpy(&pi, (const char *)buf + 40, 4);
    memcpy(&ti, (const char *)buf + plen + 40, 4);
    nprocs = pi - 2; /* Idle and _Total */
    nthreads = ti;
}

/* prov_call, then block_counts: 0, or -1 (said on stderr). */
static int prov_collect(const struct prov *p, void *buf, size_t cap)
{
    DWORD rc = prov_call(p, buf, cap);
    if (rc != 0) {
        fprintf(stderr, "perfproc: Collect returned %u\n", rc);
        return -1;
    }
    block_counts(buf);
    return 0;
}

static void floor_par_once(int procfd)
{
    floor_list(procfd);
    par_procfd = procfd;
    par_procs = par_threads = 0;
    atomic_store(&par_next, 0);
    pthread_barrier_wait(&par_start);
    par_work();
    pthread_barrier_wait(&par_done);
    nprocs = par_procs;
    nthreads = par_threads;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_snapshot floor K | floor-par K [N] | perfproc K libperfproc.so | engine K STORE "
                        "PROVIDER_DIR | exec K CMD ARGS...\n");
        return 1;
    }
    int k = atoi(argv[2]);
    if (k < 1 || k > 100000) k = 10;
    double *t = calloc((size_t)k, sizeof *t);
    double *c = calloc((size_t)k, sizeof *c);
    if (!t || !c) return 1;
    double c0;
    const char *query = "230 232";
    if (strcmp(argv[1], "floor-proc") == 0) {
        with_threads = 0;
        argv[1] = "floor";
    } else if (strcmp(argv[1], "engine-proc") == 0) {
        query = "230";
        argv[1] = "engine";
    } else if (strcmp(argv[1], "engine-costly") == 0) {
        query = "230 232 740 786";
        argv[1] = "engine";
    }
    if (strcmp(argv[1], "floor") == 0) {
        int procfd = open_proc();
        if (procfd < 0) return 1;
        time_floor(floor_once, procfd, k, t, c);
    } else if (strcmp(argv[1], "floor-par") == 0) {
        int nth = argc >= 4 ? atoi(argv[3]) : 2;
        if (nth < 1 || nth > 64) nth = 2;
        int procfd = open_proc();
        if (procfd < 0) return 1;
        pthread_t th[64];
        if (par_begin(nth, th, "floor-par") != 0) return 1;
        time_floor(floor_par_once, procfd, k, t, c);
        par_end(nth, th);
    } else if (strcmp(argv[1], "mix") == 0 && argc >= 4) {
        int nth = argc >= 5 ? atoi(argv[4]) : 2;
        if (nth < 1 || nth > 64) nth = 2;
        int procfd = open_proc();
        if (procfd < 0) return 1;
        pthread_t th[64];
        if (par_begin(nth, th, "mix") != 0) return 1;
        /* The pool's default (the environment must not decide it) and a
         * second copy of the provider with one reader (no threads: safe in
         * a second link-map namespace). */
        unsetenv("PERFLIB_PERFPROC_WORKERS");
        struct prov pa, pb, pc;
        WCHAR one[] = {'w', 'o', 'r', 'k', 'e', 'r', 's', '=', '1', 0};
        setenv("PERFLIB_PERFPROC_SOURCE", "proc", 1);
        if (prov_load(dlopen(argv[3], RTLD_NOW | RTLD_LOCAL), &pa) != 0 ||
            prov_load(dlmopen(LM_ID_NEWLM, argv[3], RTLD_NOW | RTLD_LOCAL), &pb) != 0 || pa.open(NULL) != 0 ||
            pb.open(one) != 0) {
            fprintf(stderr, "mix: cannot open the provider twice\n");
            return 1;
        }
        /* the third copy with the BPF source (forced: Open fails without it) */
        setenv("PERFLIB_PERFPROC_SOURCE", "bpf", 1);
        int with_bpf = prov_load(dlmopen(LM_ID_NEWLM, argv[3], RTLD_NOW | RTLD_LOCAL), &pc) == 0 && pc.open(NULL) == 0;
        unsetenv("PERFLIB_PERFPROC_SOURCE");
        int nm = with_bpf ? 5 : 4;
        size_t cap = 64u << 20;
        void *buf = malloc(cap);
        double *tt[5], *cc[5];
        for (int m = 0; m < 5; m++) {
            tt[m] = calloc((size_t)k, sizeof(double));
            cc[m] = calloc((size_t)k, sizeof(double));
            if (!tt[m] || !cc[m]) return 1;
        }
        if (!buf) return 1;
        long np[5] = {0}, nt[5] = {0};
        for (int i = -1; i < k; i++) { /* i = -1: warm-up */
            for (int m = 0; m < nm; m++) {
                double a = now_ms();
                c0 = cpu_ms();
                int r = 0;
                switch (m) {
                case 0: floor_once(procfd); break;
                case 1: floor_par_once(procfd); break;
                case 2: r = prov_collect(&pa, buf, cap); break;
                case 3: r = prov_collect(&pb, buf, cap); break;
                default: r = prov_collect(&pc, buf, cap); break;
                }
                double cm = cpu_ms() - c0;
                double b = now_ms();
                if (r != 0) return 1;
                if (i >= 0) {
                    tt[m][i] = b - a;
                    cc[m][i] = cm;
                }
                np[m] = nprocs;
                nt[m] = nthreads;
            }
        }
        static const char *const name[5] = {"floor", "floor-par", "perfproc", "perfproc-1", "perfproc-bpf"};
        for (int m = 0; m < nm; m++) report(name[m], tt[m], cc[m], k, np[m], nt[m]);
        if (!with_bpf) printf("perfproc-bpf skipped: the BPF source cannot be opened here (root? built with it?)\n");
        par_end(nth, th);
        pa.close();
        pb.close();
        if (with_bpf) pc.close();
        return 0;
    } else if (strcmp(argv[1], "files") == 0 && argc >= 4) {
        for (int f = 3; f < argc; f++) {
            for (int i = -1; i < k; i++) {
                double a = now_ms();
                for (int r = 0; r < 100; r++) read_one(AT_FDCWD, argv[f]);
                if (i >= 0) t[i] = (now_ms() - a) * 10; /* us per read */
            }
            printf("file %s median_us=%.2f\n", argv[f], bu_median(t, k));
        }
        return 0;
    } else if (strcmp(argv[1], "exec") == 0 && argc >= 4) {
        for (int i = -1; i < k; i++) { /* i = -1: warm-up (page cache, dynamic loader) */
            double w, cu;
            int rc = bu_run_quiet(argv + 3, 1, &w, &cu);
            if (rc == -1) {
                perror("fork");
                return 1;
            }
            if (rc != 0) {
                fprintf(stderr, "exec: %s failed\n", argv[3]);
                return 1;
            }
            if (i >= 0) {
                t[i] = w / 1e3;
                c[i] = cu / 1e3;
            }
        }
        nprocs = nthreads = -1;
    } else if (strcmp(argv[1], "perfproc") == 0 && argc >= 4) {
        struct prov pp;
        if (prov_load(dlopen(argv[3], RTLD_NOW | RTLD_LOCAL), &pp) != 0 || pp.open(NULL) != 0) {
            fprintf(stderr, "perfproc: cannot open the provider\n");
            return 1;
        }
        size_t cap = 64u << 20;
        void *buf = malloc(cap);
        if (!buf) return 1;
        for (int i = -1; i < k; i++) { /* i = -1: warm-up, sizes the buffers */
            double a = now_ms();
            c0 = cpu_ms();
            DWORD rc = prov_call(&pp, buf, cap);
            double cc = cpu_ms() - c0;
            double b = now_ms();
            if (rc != 0) {
                fprintf(stderr, "perfproc: Collect returned %u\n", rc);
                return 1;
            }
            if (i >= 0) {
                t[i] = b - a;
                c[i] = cc;
            }
            block_counts(buf);
        }
        pp.close();
        free(buf);
    } else if (strcmp(argv[1], "engine") == 0 && argc >= 5) {
        pl_engine_config cfg = {.store_path = argv[3], .provider_dir = argv[4], .log_to_syslog = 1};
        pl_engine *e = NULL;
        pl_error err;
        if (pl_engine_open(&cfg, &e, &err) != PL_OK) {
            fprintf(stderr, "engine: %s\n", err.msg);
            return 1;
        }
        for (int i = -1; i < k; i++) { /* i = -1: warm-up (loads and opens the providers) */
            void *data = NULL;
            size_t len = 0;
            uint32_t type = 0;
            double a = now_ms();
            c0 = cpu_ms();
            int rc = pl_engine_query_alloc(e, query, &data, &len, &type, &err);
            double cc = cpu_ms() - c0;
            double b = now_ms();
            if (rc != PL_OK) {
                fprintf(stderr, "engine: %s\n", err.msg);
                return 1;
            }
            if (i >= 0) {
                t[i] = b - a;
                c[i] = cc;
            }
            pl_block blk;
            pl_object o;
            if (pl_block_open(&blk, data, len, 0, 0, &err) != PL_OK) {
                fprintf(stderr, "engine: %s\n", err.msg);
                return 1;
            }
            if (pl_block_find_object(&blk, PL_OBJ_PROCESS, &o) != PL_OK) {
                fprintf(stderr, "engine: no Process object (PerfProc did not open: with PERFLIB_PERFPROC_SOURCE=bpf, "
                                "the BPF source cannot load here)\n");
                return 1;
            }
            nprocs = (long)pl_object_num_instances(&o) - 2;
            if (pl_block_find_object(&blk, PL_OBJ_THREAD, &o) == PL_OK) nthreads = (long)pl_object_num_instances(&o);
            pl_free(data);
        }
        pl_engine_close(e);
    } else {
        fprintf(stderr, "bench_snapshot: unknown mode\n");
        return 1;
    }
    report(argv[1], t, c, k, nprocs, nthreads);
    free(t);
    free(c);
    return 0;
}
