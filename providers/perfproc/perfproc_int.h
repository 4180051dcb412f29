/* perflib: private to the PerfProc provider (perfproc*.c). Nothing here is
 * exported from libperfproc.so.
 *
 * A collection has two phases (docs/providers/perfproc.md, "Parallel
 * collection"): the READ phase fills one pp_slot per listed pid with what
 * that process's files said (pl__pp_read_one, on the calling thread or on the
 * workers of a pp_pool); the BUILD phase then turns the slots into instances
 * on the calling thread, in pid order. The read phase only reads files and
 * parses them; everything that depends on other processes (names and their
 * #n, parent positions, peaks, _Total) is decided in the build phase, so the
 * block does not depend on which worker read which process. */
#ifndef PL_PERFPROC_INT_H
#define PL_PERFPROC_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "linux/collect_os.h"
#include "linux/collect_proc.h"
#include "perflib/block.h"
#include "perflib/provider.h"
#include "perfproc_bpf.h"

/* Sources that can fail for one instance (docs/providers/perfproc.md,
 * "Unavailable values"). Collection records these groups; every instance's
 * "Unavailable Counters" gets the per-position mask of the generic protocol
 * (docs/block-format.md): the bits of the definitions each group covers. */
#define UNAV_IO 0x01u        /* /proc/<pid>/io: IO Read/Write/Data Operations and Bytes */
#define UNAV_IO_OTHER 0x02u  /* IO Other Operations/Bytes: Linux does not count them */
#define UNAV_HANDLES 0x04u   /* /proc/<pid>/fd: Handle Count */
#define UNAV_STATUS 0x08u    /* /proc/<pid>/status: peaks, private/shared WS, swap, ctxt */
#define UNAV_SCHEDSTAT 0x10u /* /proc/<pid>/task/<tid>/schedstat: Context Switches/sec */
#define UNAV_MAPS 0x20u      /* /proc/<pid>/maps: every address-space counter */
#define UNAV_ROLLUP 0x40u    /* /proc/<pid>/smaps_rollup: Resident / Private Resident Bytes */
#define UNAV_PROCSTAT 0x80u  /* Idle: /proc/stat */
#define UNAV_BOOT 0x100u     /* btime of /proc/stat missing or malformed: Elapsed Time */
#define UNAV_POOL 0x400u     /* Pool Paged/Nonpaged Bytes: Linux has no per-process kernel pool accounting */
#define UNAV_IDLE_THREAD 0x200u /* Idle/N: /proc shows no switch count for the idle task */
#define UNAV_COMMIT 0x800u   /* /proc/<pid>/smaps (the commit charge): Private Bytes, Page File Bytes (+Peak) */

/* ------------------------------------------------------------ read phase */

/* One thread of a process, as its task/<tid> files said. */
typedef struct pp_thread {
    int32_t tid;   /* the task/ directory's name */
    uint32_t unav; /* UNAV_SCHEDSTAT */
    pl_proc_stat st;
    pl_proc_schedstat ss;
} pp_thread;

/* A file mapped by a process, while its maps are summed. */
typedef struct pp_mapfile {
    uint64_t inode;
    uint32_t dev_major, dev_minor;
    const char *path; /* into the arena's maps text */
    size_t path_len;
    int exec;
    uint64_t bytes[PL_PROT_COUNT];
} pp_mapfile;

/* An executable file mapped by a process: one Image instance. */
typedef struct pp_image {
    char name[256]; /* the base name, raw (cleaned when built) */
    uint64_t bytes[PL_PROT_COUNT];
} pp_image;

/* A reader's own memory, kept across collections (steady state allocates
 * nothing): the thread and Image records of the processes it read this
 * collection, its tid list, and the maps text and file table of the process
 * it is reading. Only its reader touches it during the read phase. */
typedef struct pp_arena {
    pp_thread *t;
    size_t n, cap;
    pl_pidvec tids;
    pp_image *img;
    size_t nimg, img_cap;
    char *maps;
    size_t maps_cap;
    pp_mapfile *files;
    size_t nfiles, files_cap;
} pp_arena;

/* The costly objects' data of one process (Image, Process Address Space). */
typedef struct pp_pas {
    int state;       /* PP_OK, or PP_SKIP: maps said the process is gone */
    uint32_t unav;   /* UNAV_MAPS, UNAV_ROLLUP */
    uint64_t mapped[PL_PROT_COUNT], reserved[PL_PROT_COUNT], image[PL_PROT_COUNT];
    uint64_t image_reserved, total;
    uint64_t rss_kb, priv_kb; /* smaps_rollup Rss, Private_Clean + Private_Dirty */
    size_t i0, ni;   /* its Image records in the arena */
} pp_pas;

enum {
    PP_SKIP = 0,  /* gone or malformed: no instance, no position */
    PP_OK = 1,
    PP_NOMEM = 2, /* memory ran out while reading it: the collection fails */
};

/* One listed pid. */
typedef struct pp_slot {
    int state;             /* PP_* */
    uint32_t unav;         /* UNAV_STATUS, UNAV_IO, UNAV_HANDLES */
    uint32_t arena;        /* the reader whose arena holds its threads */
    size_t t0, nt;         /* its threads: arena->t[t0 .. t0+nt) */
    int64_t fds;
    pl_proc_stat st;
    pl_proc_status ss;
    pl_proc_io io;
    pp_pas *pas;           /* want_img || want_pas: where its address space goes; else NULL (most
                              queries: 248 bytes less per pid to keep between collections) */
} pp_slot;

typedef struct pp_read_ctx {
    int procfd;
    int fd_by_stat;
    int want_p, want_t, want_img, want_pas;
    int64_t only; /* >= 0: threads and costly files of that pid only (the query's "pid=N") */
} pp_read_ctx;

/* Read the files of process `pid` into *s, its threads (want_t) and Image
 * records (want_img) appended to *a (s->arena is left to the caller).
 * Never prints; thread-safe for distinct (s, a). */
void pl__pp_read_one(const pp_read_ctx *c, int32_t pid, pp_slot *s, pp_arena *a);

/* maps and smaps_rollup of the process whose directory is `pidfd` into
 * *s->pas and the arena (perfproc_costly.c). Returns 0 or -ENOMEM. */
int pl__pp_read_costly(int pidfd, int want_img, int want_pas, pp_slot *s, pp_arena *a);

void pl__pp_arena_free(pp_arena *a);

/* ------------------------------------------------------------ the pool */

/* The work of one collection: items [0, n) in chunks of `chunk`, handed out
 * by an atomic counter; fn(arg, worker, begin, end) reads items [begin,end)
 * as reader `worker` (0 is the calling thread). */
typedef void pp_work_fn(void *arg, unsigned worker, size_t begin, size_t end);

#define PP_MAX_WORKERS 64u

struct pp_pool;
struct pp_helper_arg {
    struct pp_pool *p;
    unsigned id;
    unsigned long gen0;
};

typedef struct pp_pool {
    pthread_mutex_t mu;
    pthread_cond_t wake, idle;
    pthread_t th[PP_MAX_WORKERS];
    struct pp_helper_arg args[PP_MAX_WORKERS];
    unsigned nth;          /* helper threads running (workers - 1) */
    unsigned long gen;     /* job generation: a helper works once per value */
    unsigned busy;         /* helpers still working on this generation */
    int quit;
    int inited;            /* mu/wake/idle are initialised */
    long owner;            /* getpid() that started the threads (a forked child has none) */
    pp_work_fn *fn;
    void *arg;
    size_t n, chunk;
    atomic_size_t next;
} pp_pool;

/* Start helpers so the pool has `workers` readers in all (the caller is
 * one). A thread that cannot start leaves the pool smaller, never an error.
 * Returns the readers available (>= 1). Idempotent: a started pool is kept
 * (or restarted when the process forked). Helpers block every signal. */
unsigned pl__pp_pool_start(pp_pool *p, unsigned workers);
/* Run one job across the caller and the helpers; returns when every item is
 * done. */
void pl__pp_pool_run(pp_pool *p, size_t n, size_t chunk, pp_work_fn *fn, void *arg);
/* Stop and join the helpers; the pool can be started again. */
void pl__pp_pool_stop(pp_pool *p);

/* ------------------------------------------------------------ the setting */

/* The number of readers: $PERFLIB_PERFPROC_WORKERS if it is a decimal
 * number 1..64 (nothing else: no sign, no spaces), else `linkage` if that
 * ASCII text is "workers=N" with such an N, else the default min(online
 * CPUs usable by this process, 4). */
unsigned pl__pp_workers_setting(const char *linkage);
unsigned pl__pp_default_workers(void);

/* ------------------------------------------------------------ the BPF source */

/* docs/providers/perfproc.md, "The BPF source". perfproc_bpf.c loads the
 * task iterator and runs passes; perfproc_bpf_parse.c turns a pass's
 * records into slots, so the build phase is the same for both sources. */

/* What this reader last reported as a task's user and system time (ns):
 * the floor of its next answer. Sorted by id (pid or tid). */
typedef struct pp_floor {
    int32_t id;
    uint64_t start; /* start_boottime: a reused id is another task */
    uint64_t u, s;
} pp_floor;

typedef struct pp_floors {
    pp_floor *old, *cur;
    size_t nold, ncur, old_cap, cur_cap, cursor;
} pp_floors;

void pl__pp_floors_free(pp_floors *f);

/* A pass's records, indexed; the arrays are kept across passes. */
typedef struct pp_bpf_index {
    const struct pp_rec_proc **proc;     /* every leader, ascending pid */
    size_t nproc, proc_cap;
    const struct pp_rec_thread **all;    /* every task, ascending tid */
    size_t nall, all_cap;
    uint32_t *owner;                     /* per task: its leader in proc[], UINT32_MAX: none */
    size_t owner_cap;
    uint32_t *thr;                       /* tasks (indices into all[]) grouped by leader */
    size_t nthr, thr_cap;
    uint32_t *tfirst;                    /* leader j's tasks: thr[tfirst[j] .. tfirst[j+1]) */
    size_t tfirst_cap;
    size_t orphans;                      /* tasks whose leader was not visited */
    uint64_t *tt, *pt;                   /* user, system ticks: per task (2 x nall), per leader (2 x nproc) */
    size_t tt_cap, pt_cap;
} pp_bpf_index;

/* The conversions' parameters. */
typedef struct pp_bpf_conv {
    long hz;                /* USER_HZ (sysconf(_SC_CLK_TCK)) */
    unsigned page_shift;
    int64_t boot_offset_ns; /* the reader's time namespace's boottime offset */
} pp_bpf_conv;

/* Index a pass (buf must be 8-aligned). 0, -EINVAL when it is not a whole,
 * well-formed pass, -ENOMEM. */
int pl__pp_bpf_index(const void *buf, size_t len, pp_bpf_index *ix);
/* The user/system ticks of every task and leader (ix->tt, ix->pt), and the
 * floors for the next pass. 0 or -ENOMEM. */
int pl__pp_bpf_times(const pp_bpf_conv *cv, pp_bpf_index *ix, pp_floors *procs, pp_floors *threads);
/* Leader j into a slot and its tasks into the arena, as the /proc readers
 * would have filled them. 0 or -ENOMEM. */
int pl__pp_bpf_slot(const pp_bpf_conv *cv, const pp_bpf_index *ix, size_t j, pp_slot *s, pp_arena *a);
void pl__pp_bpf_index_free(pp_bpf_index *ix);

/* The loaded program (perfproc_bpf.c). */
typedef struct pp_bpf pp_bpf;

/* Load and attach the task iterator and check one pass. Returns 0, or
 * -errno with why it cannot be used in `why` (one line). Never prints:
 * libbpf's messages are caught for `why`. */
int pl__pp_bpf_open(pp_bpf **out, char *why, size_t cap);
/* One pass into the kept buffer: 0 with the records in *buf and *len, or -errno (`why`). */
int pl__pp_bpf_pass(pp_bpf *b, const void **buf, size_t *len, char *why, size_t cap);
void pl__pp_bpf_close(pp_bpf *b);
/* The reader's time namespace's boottime offset (ns), from
 * <procfd>/self/timens_offsets; 0 when there is none. */
int64_t pl__pp_boot_offset(int procfd);


/* ------------------------------------------------------------ the build */

/* perfproc_build.c turns what the read phase kept into the block (the
 * objects' definitions, every instance, Idle and _Total); perfproc_collect.c
 * drives the read phase for a collection (the pool or a BPF pass, and
 * /proc/stat) and hands each process to the build in pid order; perfproc.c
 * holds the state below and the entry points. */

/* The Process counters' positions (perfproc_build.c's proc_ctrs). */
enum {
    P_PCT_PROC, P_PCT_USER, P_PCT_PRIV, P_VIRT_PEAK, P_VIRT, P_PAGE_FAULTS, P_WS_PEAK, P_WS, P_PFB_PEAK, P_PFB,
    P_PRIVATE, P_THREADS, P_PRIO, P_ELAPSED, P_PID, P_PPID, P_HANDLES, P_IO_RD_OPS, P_IO_WR_OPS, P_IO_DATA_OPS,
    P_IO_OTHER_OPS, P_IO_RD_BYTES, P_IO_WR_BYTES, P_IO_DATA_BYTES, P_IO_OTHER_BYTES, P_WS_PRIV, P_WS_SHARED,
    P_MAJ, P_MIN, P_VCS, P_IVCS, P_NICE, P_SWAP, P_RSS_SHARED, P_LASTCPU, P_STATE, P_POOL_PAGED, P_POOL_NONPAGED, P_UNAV,
    P_COUNT
};
/* The Thread counters' positions (perfproc_build.c's thread_ctrs). */
enum {
    T_PCT_PROC, T_PCT_USER, T_PCT_PRIV, T_CSW, T_ELAPSED, T_PRIO_CUR, T_PRIO_BASE, T_STATE, T_WAIT, T_PID, T_TID,
    T_MAJ, T_MIN, T_NICE, T_LASTCPU, T_UNAV, T_COUNT
};

/* What PerfProc keeps of each process between collections (perfproc_build.c). */
struct pp_peak;

/* The objects' handles in the builder (-1: not asked for). */
struct pp_objs {
    int proc, thread, image, pas;
};

/* The running sums of the Thread object's _Total/_Total instance. */
struct pp_thread_total {
    uint64_t v[T_COUNT];
    uint64_t unav; /* the OR of every thread's mask */
};

/* What the build phase carries from one process to the next. */
struct pp_build {
    struct pp_objs o;
    int want_p, want_t;
    int64_t only;   /* "pid=N": Thread, Image, Process Address Space of process N only (-1: all) */
    uint64_t total[P_COUNT];
    uint64_t tunav; /* the OR of every instance's mask, for _Total */
    struct pp_thread_total tt;
    size_t cursor;  /* in the previous peaks */
    uint32_t pos;   /* the next Process position */
};

/* The instances of one read process (PP_OK), in pid order. */
int pl__pp_build_one(struct pp_build *bd, const pp_slot *s, const pp_arena *a);
/* Room in the peak tables for n processes. 0 or -ENOMEM. */
int pl__pp_peaks_reserve(size_t n);
/* One collection into the builder (perfproc_build.c); `only` >= 0: the
 * query's "pid=N". PL_OK or a builder or OS error. */
int pl__pp_collect(const pl_query_items *q, int64_t only);

/* Idle ticks of each cpuN line of /proc/stat into S.cpu_ids/cpu_ticks and
 * the tracker (perfproc_collect.c). 0 or -errno. */
int pl__pp_read_cpu_idle(uint32_t *ncpu);
/* Every listed process read from /proc, then built in pid order. */
int pl__pp_collect_processes(struct pp_build *bd);
/* pl__pp_collect_processes_bpf(): the pass could not be used, read /proc. */
#define PP_FALLBACK (-1)
/* Every process from one BPF pass, in pid order: PL_OK, a builder error, or
 * PP_FALLBACK (nothing was built). */
int pl__pp_collect_processes_bpf(struct pp_build *bd);

/* ------------------------------------------------------------ the state */

/* The provider's state (perfproc.c), under S.lock in Open, Collect and
 * Close. */
typedef struct pp_state {
    pthread_mutex_t lock;
    int opened;
    int rootfd, procfd;
    int fd_by_stat;
    long hz;
    uint64_t tick_100ns;
    int64_t boot_ft;
    int have_boot;            /* boot_ft is known (else Elapsed Time is marked unavailable) */
    int boot_live;            /* boot_ft is this machine's (the objects' clock counts from it) */
    uint64_t page_size;
    pl_builder *b;
    pl_pidvec pids;
    /* the read phase (perfproc_int.h) */
    unsigned workers;      /* readers wanted: the setting (1: no threads) */
    pp_pool pool;
    pp_arena arenas[PP_MAX_WORKERS];
    pp_slot one;           /* the slot of the one-reader path */
    pp_slot *slots;        /* a slot per listed pid (pool path) */
    size_t slot_cap;
    pp_pas one_pas;        /* the address space of `one` */
    pp_pas *pas_v;         /* the slots' address spaces, only once a query asked for them */
    size_t pas_cap;
    struct pp_peak *peaks, *npeaks;
    size_t npeak, peak_cap, nnpeak;
    char *statbuf;         /* /proc/stat */
    size_t statbuf_cap;
    /* the last /proc/stat read: each cpuN line's number and idle + iowait
     * ticks (the Idle process's thread on that CPU) */
    uint32_t *cpu_ids;
    uint64_t *cpu_ticks;
    size_t ncpus, cpus_cap;
    /* kept between collections: each CPU's idle ticks continuous across
     * CPU hotplug, and Idle's sum over the CPUs present in both readings
     * of each interval (issue 33 item 2; docs/providers/perfproc.md) */
    struct pl__cpu_track idle_track;
    /* a block kept after ERROR_MORE_DATA, so the retry returns the same data */
    int pending;
    pl_query_items pending_q;
    int64_t pending_only;
    int64_t pending_time;
    /* the BPF source (docs/providers/perfproc.md, "The BPF source") */
    pp_bpf *bpf;           /* loaded: Process and Thread come from its passes */
    pp_bpf_index ix;
    pp_bpf_conv cv;
    pp_floors pfloor, tfloor;
    char why[200];         /* why the BPF source is not used (empty: it is) */
    char pass_err[200];    /* the last pass that failed, and why */
    uint64_t passes, failed_passes;
    size_t last_tasks, last_procs, last_from_proc;
    int fault_partial;     /* test hook: every other process of a pass counts as incomplete */
} pp_state;
extern pp_state pl__pp_state;

#endif
