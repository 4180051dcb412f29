/* This file is private to libperflib: no API/ABI guarantee.
 *
 * Collectors for the operating-system counters (the perfos provider): one
 * source file per kernel file, each a pure function that reads its file
 * relative to a root directory descriptor (pl__root_open(pl__sysroot(), ""))
 * and fills a plain C struct.
 *
 * Common contract of every pl__read_* function here:
 * - returns 0 on success, or -errno: the error of open/read (-ENOENT when the
 *   file is absent, -EACCES, ...), -EINVAL when the file is malformed or
 *   truncated (a file that does not end with a newline is truncated), -ENOMEM.
 * - *out is valid only when 0 is returned. On error its contents are
 *   unspecified but still safe to pass to the matching *_free function.
 * - never prints, never aborts, whatever the file contains.
 * Values are kept in the kernel's units unless the field says otherwise
 * (meminfo is converted to bytes). A field the file does not have is marked
 * absent in a `have` bit set, never reported as a made-up zero. */
#ifndef PL_COLLECT_OS_H
#define PL_COLLECT_OS_H

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ /proc/stat */

/* Columns of a "cpu" line, in file order (USER_HZ ticks). guest is included
 * in user and guest_nice in nice by the kernel. */
enum pl__cpu_field {
    PL__CPU_USER = 0,
    PL__CPU_NICE,
    PL__CPU_SYSTEM,
    PL__CPU_IDLE,
    PL__CPU_IOWAIT,
    PL__CPU_IRQ,
    PL__CPU_SOFTIRQ,
    PL__CPU_STEAL,
    PL__CPU_GUEST,
    PL__CPU_GUEST_NICE,
    PL__CPU_NFIELDS
};

struct pl__cpu_line {
    uint32_t id;                      /* N of "cpuN" */
    uint64_t t[PL__CPU_NFIELDS];      /* ticks; columns past nfields are 0 */
};

#define PL__STAT_HAVE_INTR 0x01u
#define PL__STAT_HAVE_CTXT 0x02u
#define PL__STAT_HAVE_BTIME 0x04u
#define PL__STAT_HAVE_PROCESSES 0x08u
#define PL__STAT_HAVE_RUNNING 0x10u
#define PL__STAT_HAVE_BLOCKED 0x20u
#define PL__STAT_HAVE_SOFTIRQ 0x40u

struct pl__cpu_stats {
    unsigned nfields;                  /* columns present on every cpu line (4..10) */
    uint64_t total[PL__CPU_NFIELDS];   /* the aggregate "cpu" line */
    uint32_t ncpu;                     /* number of "cpuN" lines (online CPUs) */
    uint32_t cap;                      /* private: allocated entries of cpu[] */
    struct pl__cpu_line *cpu;          /* ncpu entries in file order (ascending N);
                                          owned by the struct, reused across calls */
    unsigned have;                     /* PL__STAT_HAVE_* */
    uint64_t intr;                     /* "intr" first number: all interrupts since boot */
    uint64_t ctxt;                     /* context switches since boot */
    uint64_t btime;                    /* boot time, seconds since the Unix epoch */
    uint64_t processes;                /* forks since boot */
    uint64_t procs_running;
    uint64_t procs_blocked;
    uint64_t softirq;                  /* "softirq" first number */
};

/* Parse <root>/proc/stat. *out must be zero-initialised before the first
 * call; it may be reused for later calls (cpu[] is grown as needed). Needs
 * the aggregate line and at least 4 columns on every cpu line; cpuN lines
 * must have strictly ascending N (gaps are offline CPUs). */
int pl__read_proc_stat(int rootfd, struct pl__cpu_stats *out);
/* The same on text already in memory (NUL-terminated). */
int pl__parse_proc_stat(const char *text, struct pl__cpu_stats *out);
/* Release cpu[] and zero the struct. Accepts a zeroed struct. */
void pl__cpu_stats_free(struct pl__cpu_stats *s);

/* --------------------------------------------------------- /proc/meminfo */

enum pl__mem_field {
    PL__MEM_TOTAL = 0,      /* MemTotal */
    PL__MEM_FREE,           /* MemFree */
    PL__MEM_AVAILABLE,      /* MemAvailable (kernel >= 3.14) */
    PL__MEM_BUFFERS,        /* Buffers */
    PL__MEM_CACHED,         /* Cached */
    PL__MEM_SWAP_CACHED,    /* SwapCached */
    PL__MEM_ACTIVE,         /* Active */
    PL__MEM_INACTIVE,       /* Inactive */
    PL__MEM_SWAP_TOTAL,     /* SwapTotal */
    PL__MEM_SWAP_FREE,      /* SwapFree */
    PL__MEM_DIRTY,          /* Dirty */
    PL__MEM_WRITEBACK,      /* Writeback */
    PL__MEM_ANON_PAGES,     /* AnonPages */
    PL__MEM_MAPPED,         /* Mapped */
    PL__MEM_SHMEM,          /* Shmem */
    PL__MEM_SLAB,           /* Slab */
    PL__MEM_SRECLAIMABLE,   /* SReclaimable */
    PL__MEM_SUNRECLAIM,     /* SUnreclaim */
    PL__MEM_KERNEL_STACK,   /* KernelStack */
    PL__MEM_PAGE_TABLES,    /* PageTables */
    PL__MEM_COMMIT_LIMIT,   /* CommitLimit */
    PL__MEM_COMMITTED_AS,   /* Committed_AS */
    PL__MEM_HUGE_TOTAL,     /* HugePages_Total (a count, not bytes) */
    PL__MEM_HUGE_FREE,      /* HugePages_Free (a count) */
    PL__MEM_HUGE_PAGE_SIZE, /* Hugepagesize */
    PL__MEM_ACTIVE_FILE,    /* Active(file) */
    PL__MEM_INACTIVE_FILE,  /* Inactive(file) */
    PL__MEM_NFIELDS
};

struct pl__meminfo {
    uint64_t have;                    /* bit (1 << field) set when the key was present */
    uint64_t bad;                     /* bit (1 << field): the key was there, its value
                                         not a number we can show (malformed, beyond 64
                                         bits, an unknown unit) */
    uint64_t v[PL__MEM_NFIELDS];      /* bytes ("kB" values times 1024); values without
                                         a unit are kept as they are */
};

/* Parse <root>/proc/meminfo. A line must be "Key: ..." (else -EINVAL); a
 * key twice is -EINVAL. A known key whose value is not "number [kB]" (or
 * does not fit 64 bits in bytes) sets its `bad` bit; unknown keys are
 * skipped. A valid MemTotal is required (-EINVAL without it). */
int pl__read_proc_meminfo(int rootfd, struct pl__meminfo *out);
int pl__parse_proc_meminfo(const char *text, struct pl__meminfo *out);
static inline int pl__mem_has(const struct pl__meminfo *m, enum pl__mem_field f)
{
    return (m->have >> f) & 1u;
}

/* ---------------------------------------------------------- /proc/vmstat */

enum pl__vm_field {
    PL__VM_PGPGIN = 0,  /* KiB read from block devices */
    PL__VM_PGPGOUT,     /* KiB written to block devices */
    PL__VM_PSWPIN,      /* pages read from swap */
    PL__VM_PSWPOUT,     /* pages written to swap */
    PL__VM_PGFAULT,     /* page faults (minor + major) */
    PL__VM_PGMAJFAULT,  /* major faults: the ones that needed I/O */
    PL__VM_NFIELDS
};

struct pl__vmstat {
    unsigned have;                    /* bit (1 << field) */
    uint64_t v[PL__VM_NFIELDS];       /* counts since boot */
};

/* Parse <root>/proc/vmstat ("name value" lines; unknown names skipped). */
int pl__read_proc_vmstat(int rootfd, struct pl__vmstat *out);
int pl__parse_proc_vmstat(const char *text, struct pl__vmstat *out);

/* --------------------------------------------------------- /proc/loadavg */

struct pl__loadavg {
    uint32_t load100[3];   /* 1, 5 and 15 minute load averages times 100 */
    uint64_t running;      /* runnable scheduling entities */
    uint64_t threads;      /* all scheduling entities (threads) */
    uint64_t last_pid;
};

/* Parse <root>/proc/loadavg: "L1 L5 L15 running/total lastpid". */
int pl__read_proc_loadavg(int rootfd, struct pl__loadavg *out);
int pl__parse_proc_loadavg(const char *text, struct pl__loadavg *out);

/* -------------------------------------------------------- /proc/pressure */

enum pl__psi_resource { PL__PSI_CPU = 0, PL__PSI_MEMORY, PL__PSI_IO, PL__PSI_NRES };

struct pl__psi_line {
    uint32_t avg100[3];    /* avg10, avg60, avg300 (percent) times 100 */
    uint64_t total_us;     /* total stall time, microseconds */
};

struct pl__psi {
    int have_some, have_full;  /* "full" is absent for cpu before Linux 5.13 */
    struct pl__psi_line some, full;
};

/* Parse <root>/proc/pressure/{cpu,memory,io}. A kernel without PSI has no
 * such file (-ENOENT) or refuses to open it when PSI is disabled at boot
 * (-EOPNOTSUPP): both mean "unavailable". A file without a "some" line is
 * -EINVAL. */
int pl__read_proc_pressure(int rootfd, enum pl__psi_resource res, struct pl__psi *out);
int pl__parse_proc_pressure(const char *text, struct pl__psi *out);

/* ---------------------------------------------------------- /proc/uptime */

struct pl__uptime {
    uint64_t up_cs;        /* seconds since boot, in hundredths */
    uint64_t idle_cs;      /* idle time summed over CPUs, in hundredths */
};

int pl__read_proc_uptime(int rootfd, struct pl__uptime *out);
int pl__parse_proc_uptime(const char *text, struct pl__uptime *out);

/* ----------------------------------------------- counts per CPU across hotplug */

/* A CPU's counts (its /proc/stat columns, its /proc/interrupts column, its
 * cpuidle times, ...) are not continuous across CPU hotplug: the CPU's line
 * or column vanishes and returns, an older kernel restarts its idle time,
 * the aggregate "cpu" line switches an offline CPU's idle to another
 * source. A tracker keeps, per CPU number, `nv` values that are (cpu_track.c;
 * docs/providers/perfos.md, "CPU hotplug"):
 * - a CPU's values start at its first reading; each update adds the
 *   difference from the previous update only when the CPU was there in the
 *   previous update too, no value went backwards and the caller does not
 *   drop it ("accepted"); otherwise (it came back, or a count restarted)
 *   nothing is added, its values go on from this reading and the CPU is
 *   marked for this update (no honest value for the interval);
 * - a sum (every CPU, or a group: a NUMA node) adds what each CPU accepted
 *   since the tracker's first update (plus the first readings of the CPUs
 *   of that first update), offline CPUs included, so it never jumps when a
 *   CPU leaves or returns: it covers exactly the CPUs present in both
 *   readings of every interval;
 * - optionally, the first `ncap` values of a CPU may add at most cap[i] in
 *   all per update; the excess is held back and added in later updates
 *   (cpuidle adds an idle period's time only when the CPU wakes: the
 *   C-states may not exceed the idle time of the interval).
 * The tracker lives as long as the provider's state (one per process): a
 * consumer's interval is a run of consecutive updates, so what is
 * continuous between updates is continuous over any interval. */
#define PL__CPU_TRACK_MAX (1u << 20)        /* CPUs one tracker knows */
#define PL__CPU_TRACK_ALL UINT32_MAX        /* pl__cpu_track_sum: every CPU */
#define PL__CPU_TRACK_NOGROUP (UINT32_MAX - 1)

struct pl__cpu_rec {
    uint32_t id, group;
    uint32_t old_group;            /* its group before the update `regrouped` */
    uint64_t first;                /* the update that first had it */
    uint64_t regrouped;            /* the update in which its group changed, 0: never */
    uint64_t seen;                 /* the update that last had it */
    uint64_t have;                 /* values read at least once */
    uint64_t marked;               /* values without an honest difference in the last update */
    uint64_t unread;               /* values it could not read in the last update */
    int online;                    /* in the last update */
    int accepted;                  /* its difference was added in the last update */
    int in_total;                  /* seen in the first update: its first reading is in the sums */
    int bad;                       /* a value would pass 2^64: frozen and marked from then on */
};

struct pl__cpu_track {
    unsigned nv;                   /* values per CPU, 1..64 */
    uint64_t gen;                  /* updates so far */
    uint32_t n, cap;               /* private: records, sorted by id */
    struct pl__cpu_rec *rec;
    uint64_t *v;                   /* private: per record last, first, accepted sum, held back */
};

void pl__cpu_track_init(struct pl__cpu_track *t, unsigned nv);
/* Forget every CPU (the next update is a first one again). */
void pl__cpu_track_free(struct pl__cpu_track *t);
/* One reading of n CPUs (ids ascending, v: n x nv values). unread[i]
 * (may be NULL): bit k set when value k of CPU i could not be read (it is
 * marked, and its next reading takes the difference from its last one);
 * drop[i] (may be NULL): nonzero to add nothing for CPU i this time (its
 * reading is taken as the new start); cap (may be NULL): per CPU, at most
 * this much in all added to its first ncap values. 0, -EINVAL (ids not
 * ascending, too many CPUs, nv or ncap out of range) or -ENOMEM. */
int pl__cpu_track_update(struct pl__cpu_track *t, uint32_t n, const uint32_t *ids, const uint64_t *v,
                         const uint64_t *unread, const unsigned char *drop, const uint64_t *cap, unsigned ncap);
/* CPU id's published values (out: nv) and the values marked in the last
 * update; -ENOENT when it was not in the last update. */
int pl__cpu_track_get(const struct pl__cpu_track *t, uint32_t id, uint64_t *out, uint64_t *marked);
/* Put CPU id in `group` (a NUMA node); a CPU keeps its group while offline. */
void pl__cpu_track_set_group(struct pl__cpu_track *t, uint32_t id, uint32_t group);
/* The sum over `group` (PL__CPU_TRACK_ALL: every CPU). Marked: a value some
 * CPU of the group online in the last update could not read, a sum past
 * 2^64, and, after the first update, every value when no CPU of the group
 * had its difference accepted, or when a CPU joined or left the group in
 * the last update after its first (its accepted counts move with it).
 * Marked values are 0. */
void pl__cpu_track_sum(const struct pl__cpu_track *t, uint32_t group, uint64_t *out, uint64_t *marked);

/* ----------------------------------------------------------- /proc/swaps */

#define PL__SWAP_NAME_MAX 1024  /* longer paths are truncated (at a UTF-8 boundary) */

struct pl__swap_area {
    char name[PL__SWAP_NAME_MAX];  /* path with the kernel's \ooo escapes decoded */
    char type[16];                 /* "partition", "file", ... (truncated) */
    uint64_t size_kib;
    uint64_t used_kib;
    int64_t priority;
};

struct pl__swaps {
    uint32_t n;                    /* areas */
    uint32_t cap;                  /* private */
    struct pl__swap_area *a;       /* owned, reused across calls */
};

/* Parse <root>/proc/swaps: a header line, then one line per swap area. No
 * swap configured is n = 0 (not an error). *out must be zeroed before the
 * first call. */
int pl__read_proc_swaps(int rootfd, struct pl__swaps *out);
int pl__parse_proc_swaps(const char *text, struct pl__swaps *out);
void pl__swaps_free(struct pl__swaps *s);

/* ------------------------------------- /proc/interrupts and /proc/softirqs */

/* A per-CPU table ("CPU0 CPU1 ..." header, then "LABEL: n n n ..." rows)
 * reduced to one sum per CPU column. */
struct pl__percpu_sums {
    uint32_t ncol;                 /* CPU columns in the header */
    uint32_t cap;                  /* private */
    uint32_t *cpu;                 /* ncol CPU numbers, from "CPUn" */
    uint64_t *sum;                 /* ncol sums over the counted rows */
};

/* /proc/interrupts: sums every row that has one number per CPU column,
 * except the global "ERR" and "MIS" rows. Only online CPUs have a column. */
int pl__read_proc_interrupts(int rootfd, struct pl__percpu_sums *out);
/* /proc/softirqs: sums every row (HI, TIMER, NET_TX, ...). Every possible
 * CPU has a column, online or not. */
int pl__read_proc_softirqs(int rootfd, struct pl__percpu_sums *out);
/* The shared parser. skip_global: leave out ERR/MIS and rows with fewer
 * numbers than columns (interrupts); 0: a short row is -EINVAL (softirqs). */
int pl__parse_percpu_table(const char *text, int skip_global, struct pl__percpu_sums *out);
void pl__percpu_sums_free(struct pl__percpu_sums *s);

/* --------------------------------------------------------- /proc/<pid>/ */

/* Count the process directories (all-digit names) in <root>/proc with
 * getdents64; no file inside them is opened. */
int pl__count_proc_pids(int rootfd, uint64_t *out);
/* The sum of num_threads (field 20 of <pid>/stat) over every process of
 * <root>/proc: the threads the reader can see. A process that exits
 * meanwhile is skipped; an unreadable or malformed stat is -errno/-EINVAL. */
int pl__count_proc_threads(int rootfd, uint64_t *out);
/* Is <root>/proc the initial PID namespace's, seen from inside it? */
int pl__proc_is_initial_pidns(int rootfd);

/* --------------------------------------------------------- shared helpers */

/* 1 if text is non-empty and ends with '\n' (a complete /proc file). */
int pl__text_complete(const char *text, size_t len);
/* Parse "123.45" (exactly the kernel's %lu.%02lu) into 12345. Returns 1 and
 * advances *p, or 0 (also when the value times 100 is beyond 64 bits). */
int pl__parse_fixed2(const char **p, uint64_t *v);

#endif
