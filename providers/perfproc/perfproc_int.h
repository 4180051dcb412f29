/* perflib: private to the PerfProc provider (perfproc.c, perfproc_read.c,
 * perfproc_pool.c). Nothing here is exported from libperfproc.so.
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

#include "linux/collect_proc.h"
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
    pp_pas pas;            /* want_img || want_pas */
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
 * s->pas and the arena (perfproc_costly.c). Returns 0 or -ENOMEM. */
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

#endif
