/* perflib: the PerfProc provider -- Process (230) and Thread (232), and the
 * costly Image (740) and Process Address Space (786) objects, from /proc.
 * docs/providers/perfproc.md describes every counter, its source and the
 * decisions taken here.
 *
 * Speed is the point of this file: /proc is enumerated with getdents64, every
 * file is opened relative to a /proc/<pid> directory descriptor and read with
 * one read() into a stack buffer, numbers are parsed by hand, and the builder
 * and every table live across calls, so a steady-state Collect allocates
 * nothing. The files are read by a pool of reader threads
 * (perfproc_read.c, perfproc_costly.c, perfproc_pool.c); this file builds
 * the block from what they read, in pid order (perfproc_int.h).
 *
 * Where the process may load it, Process and Thread come instead from one
 * pass of a BPF task iterator (perfproc_bpf.c, perfproc_bpf_parse.c): the
 * kernel's own numbers in binary, turned into the very slots the /proc
 * readers fill, so the build below is the same for both sources. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/collect_os.h"
#include "linux/collect_proc.h"
#include "perfproc_int.h"
#include "perflib/indices.h"
#include "perflib/provider.h"
#include "platform.h"
#include "pl_internal.h"

#define LARGE PERF_COUNTER_LARGE_RAWCOUNT
#define RAW PERF_COUNTER_RAWCOUNT
#define BULK PERF_COUNTER_BULK_COUNT
#define T100 PERF_100NSEC_TIMER
#define ELAP PERF_ELAPSED_TIME
#define HEX PERF_COUNTER_LARGE_RAWCOUNT_HEX
#define NOV PERF_DETAIL_NOVICE
#define ADV PERF_DETAIL_ADVANCED
#define EXP PERF_DETAIL_EXPERT
#define WIZ PERF_DETAIL_WIZARD

struct ctr_row {
    uint32_t index, type, detail;
    int32_t scale;
};

/* ------------------------------------------------------------- Process */
enum {
    P_PCT_PROC, P_PCT_USER, P_PCT_PRIV, P_VIRT_PEAK, P_VIRT, P_PAGE_FAULTS, P_WS_PEAK, P_WS, P_PFB_PEAK, P_PFB,
    P_PRIVATE, P_THREADS, P_PRIO, P_ELAPSED, P_PID, P_PPID, P_HANDLES, P_IO_RD_OPS, P_IO_WR_OPS, P_IO_DATA_OPS,
    P_IO_OTHER_OPS, P_IO_RD_BYTES, P_IO_WR_BYTES, P_IO_DATA_BYTES, P_IO_OTHER_BYTES, P_WS_PRIV, P_WS_SHARED,
    P_MAJ, P_MIN, P_VCS, P_IVCS, P_NICE, P_SWAP, P_RSS_SHARED, P_LASTCPU, P_STATE, P_POOL_PAGED, P_POOL_NONPAGED, P_UNAV,
    P_COUNT
};
/* kB from /proc to bytes, saturating: a hostile value must not wrap. */
static inline uint64_t kib(uint64_t k)
{
    return k > UINT64_MAX / 1024 ? UINT64_MAX : k * 1024;
}

static const struct ctr_row proc_ctrs[P_COUNT] = {
    [P_PCT_PROC] = {PL_CTR_PCT_PROCESSOR_TIME, T100, NOV, 0},
    [P_PCT_USER] = {PL_CTR_PCT_USER_TIME, T100, ADV, 0},
    [P_PCT_PRIV] = {PL_CTR_PCT_PRIVILEGED_TIME, T100, ADV, 0},
    [P_VIRT_PEAK] = {PL_CTR_VIRTUAL_BYTES_PEAK, LARGE, EXP, -6},
    [P_VIRT] = {PL_CTR_VIRTUAL_BYTES, LARGE, EXP, -6},
    [P_PAGE_FAULTS] = {PL_CTR_PAGE_FAULTS_PER_SEC, BULK, NOV, -1},
    [P_WS_PEAK] = {PL_CTR_WORKING_SET_PEAK, LARGE, ADV, -5},
    [P_WS] = {PL_CTR_WORKING_SET, LARGE, NOV, -5},
    [P_PFB_PEAK] = {PL_CTR_PAGE_FILE_BYTES_PEAK, LARGE, ADV, -6},
    [P_PFB] = {PL_CTR_PAGE_FILE_BYTES, LARGE, ADV, -6},
    [P_PRIVATE] = {PL_CTR_PRIVATE_BYTES, LARGE, ADV, -5},
    [P_THREADS] = {PL_CTR_THREAD_COUNT, RAW, ADV, 0},
    [P_PRIO] = {PL_CTR_PRIORITY_BASE, RAW, ADV, 0},
    [P_ELAPSED] = {PL_CTR_ELAPSED_TIME, ELAP, ADV, -4},
    [P_PID] = {PL_CTR_ID_PROCESS, RAW, ADV, -1},
    [P_PPID] = {PL_CTR_CREATING_PROCESS_ID, RAW, ADV, -1},
    [P_HANDLES] = {PL_CTR_HANDLE_COUNT, RAW, NOV, 0},
    [P_IO_RD_OPS] = {PL_CTR_IO_READ_OPERATIONS_PER_SEC, BULK, ADV, 0},
    [P_IO_WR_OPS] = {PL_CTR_IO_WRITE_OPERATIONS_PER_SEC, BULK, ADV, 0},
    [P_IO_DATA_OPS] = {PL_CTR_IO_DATA_OPERATIONS_PER_SEC, BULK, ADV, 0},
    [P_IO_OTHER_OPS] = {PL_CTR_IO_OTHER_OPERATIONS_PER_SEC, BULK, ADV, 0},
    [P_IO_RD_BYTES] = {PL_CTR_IO_READ_BYTES_PER_SEC, BULK, ADV, -4},
    [P_IO_WR_BYTES] = {PL_CTR_IO_WRITE_BYTES_PER_SEC, BULK, ADV, -4},
    [P_IO_DATA_BYTES] = {PL_CTR_IO_DATA_BYTES_PER_SEC, BULK, ADV, -4},
    [P_IO_OTHER_BYTES] = {PL_CTR_IO_OTHER_BYTES_PER_SEC, BULK, ADV, -4},
    [P_WS_PRIV] = {PL_CTR_WORKING_SET_PRIVATE, LARGE, NOV, -5},
    [P_WS_SHARED] = {PL_CTR_WORKING_SET_SHARED, LARGE, ADV, -5},
    [P_MAJ] = {PL_CTR_MAJOR_PAGE_FAULTS_PER_SEC, BULK, ADV, 0},
    [P_MIN] = {PL_CTR_MINOR_PAGE_FAULTS_PER_SEC, BULK, ADV, -1},
    [P_VCS] = {PL_CTR_VOLUNTARY_CONTEXT_SWITCHES_PER_SEC, BULK, ADV, -1},
    [P_IVCS] = {PL_CTR_INVOLUNTARY_CONTEXT_SWITCHES_PER_SEC, BULK, ADV, 0},
    [P_NICE] = {PL_CTR_NICE_VALUE, RAW, ADV, 0},
    [P_SWAP] = {PL_CTR_SWAP_BYTES, LARGE, ADV, -6},
    [P_RSS_SHARED] = {PL_CTR_RESIDENT_SHARED_BYTES, LARGE, ADV, -5},
    [P_LASTCPU] = {PL_CTR_LAST_PROCESSOR, RAW, EXP, 0},
    [P_STATE] = {PL_CTR_PROCESS_STATE, RAW, EXP, 0},
    [P_POOL_PAGED] = {PL_CTR_POOL_PAGED_BYTES, RAW, ADV, -5},
    [P_POOL_NONPAGED] = {PL_CTR_POOL_NONPAGED_BYTES, RAW, ADV, -5},
    [P_UNAV] = {PL_CTR_UNAVAILABLE_COUNTERS, HEX, WIZ, 0},
};

/* -------------------------------------------------------------- Thread */
enum {
    T_PCT_PROC, T_PCT_USER, T_PCT_PRIV, T_CSW, T_ELAPSED, T_PRIO_CUR, T_PRIO_BASE, T_STATE, T_WAIT, T_PID, T_TID,
    T_MAJ, T_MIN, T_NICE, T_LASTCPU, T_UNAV, T_COUNT
};
static const struct ctr_row thread_ctrs[T_COUNT] = {
    [T_PCT_PROC] = {PL_CTR_PCT_PROCESSOR_TIME, T100, NOV, 0},
    [T_PCT_USER] = {PL_CTR_PCT_USER_TIME, T100, ADV, 0},
    [T_PCT_PRIV] = {PL_CTR_PCT_PRIVILEGED_TIME, T100, ADV, 0},
    [T_CSW] = {PL_CTR_CONTEXT_SWITCHES_PER_SEC, BULK, ADV, -2},
    [T_ELAPSED] = {PL_CTR_ELAPSED_TIME, ELAP, ADV, -4},
    [T_PRIO_CUR] = {PL_CTR_PRIORITY_CURRENT, RAW, ADV, 0},
    [T_PRIO_BASE] = {PL_CTR_PRIORITY_BASE, RAW, ADV, 0},
    [T_STATE] = {PL_CTR_THREAD_STATE, RAW, ADV, 0},
    [T_WAIT] = {PL_CTR_THREAD_WAIT_REASON, RAW, ADV, 0},
    [T_PID] = {PL_CTR_ID_PROCESS, RAW, ADV, -1},
    [T_TID] = {PL_CTR_ID_THREAD, RAW, ADV, -1},
    [T_MAJ] = {PL_CTR_MAJOR_PAGE_FAULTS_PER_SEC, BULK, ADV, 0},
    [T_MIN] = {PL_CTR_MINOR_PAGE_FAULTS_PER_SEC, BULK, ADV, -1},
    [T_NICE] = {PL_CTR_NICE_VALUE, RAW, ADV, 0},
    [T_LASTCPU] = {PL_CTR_LAST_PROCESSOR, RAW, EXP, 0},
    [T_UNAV] = {PL_CTR_UNAVAILABLE_COUNTERS, HEX, WIZ, 0},
};

/* --------------------------------------------------------------- Image */
enum { I_MAPPED = PL_PROT_COUNT, I_COUNT };
static const struct ctr_row image_ctrs[I_COUNT] = {
    [PL_PROT_NO_ACCESS] = {PL_CTR_NO_ACCESS, LARGE, ADV, -5},
    [PL_PROT_READ_ONLY] = {PL_CTR_READ_ONLY, LARGE, ADV, -5},
    [PL_PROT_READ_WRITE] = {PL_CTR_READ_WRITE, LARGE, ADV, -5},
    [PL_PROT_WRITE_COPY] = {PL_CTR_WRITE_COPY, LARGE, ADV, -5},
    [PL_PROT_EXECUTABLE] = {PL_CTR_EXECUTABLE, LARGE, ADV, -5},
    [PL_PROT_EXEC_READ_ONLY] = {PL_CTR_EXEC_READ_ONLY, LARGE, ADV, -5},
    [PL_PROT_EXEC_READ_WRITE] = {PL_CTR_EXEC_READ_WRITE, LARGE, ADV, -5},
    [PL_PROT_EXEC_WRITE_COPY] = {PL_CTR_EXEC_WRITE_COPY, LARGE, ADV, -5},
    [I_MAPPED] = {PL_CTR_MAPPED_BYTES, LARGE, ADV, -5},
};

/* ------------------------------------------------ Process Address Space */
enum {
    A_PID = 0,
    A_MAPPED0 = 1,                        /* Mapped Space <class>, 8 counters */
    A_RESERVED0 = A_MAPPED0 + PL_PROT_COUNT,
    A_IMAGE0 = A_RESERVED0 + PL_PROT_COUNT,
    A_IMAGE_RESERVED = A_IMAGE0 + PL_PROT_COUNT,
    A_TOTAL, A_RESIDENT, A_PRIV_RESIDENT, A_UNAV, A_COUNT
};
static const struct ctr_row pas_ctrs[A_COUNT] = {
    [A_PID] = {PL_CTR_ID_PROCESS, RAW, WIZ, 0},
    [A_MAPPED0 + 0] = {PL_CTR_MAPPED_SPACE_NO_ACCESS, LARGE, WIZ, -5},
    [A_MAPPED0 + 1] = {PL_CTR_MAPPED_SPACE_READ_ONLY, LARGE, WIZ, -5},
    [A_MAPPED0 + 2] = {PL_CTR_MAPPED_SPACE_READ_WRITE, LARGE, WIZ, -5},
    [A_MAPPED0 + 3] = {PL_CTR_MAPPED_SPACE_WRITE_COPY, LARGE, WIZ, -5},
    [A_MAPPED0 + 4] = {PL_CTR_MAPPED_SPACE_EXECUTABLE, LARGE, WIZ, -5},
    [A_MAPPED0 + 5] = {PL_CTR_MAPPED_SPACE_EXEC_READ_ONLY, LARGE, WIZ, -5},
    [A_MAPPED0 + 6] = {PL_CTR_MAPPED_SPACE_EXEC_READ_WRITE, LARGE, WIZ, -5},
    [A_MAPPED0 + 7] = {PL_CTR_MAPPED_SPACE_EXEC_WRITE_COPY, LARGE, WIZ, -5},
    [A_RESERVED0 + 0] = {PL_CTR_RESERVED_SPACE_NO_ACCESS, LARGE, WIZ, -5},
    [A_RESERVED0 + 1] = {PL_CTR_RESERVED_SPACE_READ_ONLY, LARGE, WIZ, -5},
    [A_RESERVED0 + 2] = {PL_CTR_RESERVED_SPACE_READ_WRITE, LARGE, WIZ, -5},
    [A_RESERVED0 + 3] = {PL_CTR_RESERVED_SPACE_WRITE_COPY, LARGE, WIZ, -5},
    [A_RESERVED0 + 4] = {PL_CTR_RESERVED_SPACE_EXECUTABLE, LARGE, WIZ, -5},
    [A_RESERVED0 + 5] = {PL_CTR_RESERVED_SPACE_EXEC_READ_ONLY, LARGE, WIZ, -5},
    [A_RESERVED0 + 6] = {PL_CTR_RESERVED_SPACE_EXEC_READ_WRITE, LARGE, WIZ, -5},
    [A_RESERVED0 + 7] = {PL_CTR_RESERVED_SPACE_EXEC_WRITE_COPY, LARGE, WIZ, -5},
    [A_IMAGE0 + 0] = {PL_CTR_IMAGE_SPACE_NO_ACCESS, LARGE, WIZ, -5},
    [A_IMAGE0 + 1] = {PL_CTR_IMAGE_SPACE_READ_ONLY, LARGE, WIZ, -5},
    [A_IMAGE0 + 2] = {PL_CTR_IMAGE_SPACE_READ_WRITE, LARGE, WIZ, -5},
    [A_IMAGE0 + 3] = {PL_CTR_IMAGE_SPACE_WRITE_COPY, LARGE, WIZ, -5},
    [A_IMAGE0 + 4] = {PL_CTR_IMAGE_SPACE_EXECUTABLE, LARGE, WIZ, -5},
    [A_IMAGE0 + 5] = {PL_CTR_IMAGE_SPACE_EXEC_READ_ONLY, LARGE, WIZ, -5},
    [A_IMAGE0 + 6] = {PL_CTR_IMAGE_SPACE_EXEC_READ_WRITE, LARGE, WIZ, -5},
    [A_IMAGE0 + 7] = {PL_CTR_IMAGE_SPACE_EXEC_WRITE_COPY, LARGE, WIZ, -5},
    [A_IMAGE_RESERVED] = {PL_CTR_BYTES_IMAGE_RESERVED, LARGE, WIZ, -5},
    [A_TOTAL] = {PL_CTR_MAPPED_BYTES, LARGE, WIZ, -5},
    [A_RESIDENT] = {PL_CTR_RESIDENT_BYTES, LARGE, WIZ, -5},
    [A_PRIV_RESIDENT] = {PL_CTR_PRIVATE_RESIDENT_BYTES, LARGE, WIZ, -5},
    [A_UNAV] = {PL_CTR_UNAVAILABLE_COUNTERS, HEX, WIZ, 0},
};

/* ------------------------------------------------ unavailable groups */

/* Every object here has fewer than 63 definitions and no base counters, so
 * a counter's handle is its definition position and its bit is 1 << handle. */
_Static_assert(P_COUNT < 63 && T_COUNT < 63 && A_COUNT < 63, "positions fit the mask below bit 63");
#define BIT(pos) (1ull << (pos))

struct unav_group {
    uint32_t group;
    uint64_t positions;
};

static const struct unav_group proc_groups[] = {
    {UNAV_IO, BIT(P_IO_RD_OPS) | BIT(P_IO_WR_OPS) | BIT(P_IO_DATA_OPS) | BIT(P_IO_RD_BYTES) | BIT(P_IO_WR_BYTES) |
                  BIT(P_IO_DATA_BYTES)},
    {UNAV_IO_OTHER, BIT(P_IO_OTHER_OPS) | BIT(P_IO_OTHER_BYTES)},
    {UNAV_POOL, BIT(P_POOL_PAGED) | BIT(P_POOL_NONPAGED)},
    {UNAV_HANDLES, BIT(P_HANDLES)},
    {UNAV_STATUS, BIT(P_VIRT_PEAK) | BIT(P_WS_PEAK) | BIT(P_WS_PRIV) | BIT(P_WS_SHARED) | BIT(P_RSS_SHARED) |
                      BIT(P_PRIVATE) | BIT(P_PFB) | BIT(P_PFB_PEAK) | BIT(P_SWAP) | BIT(P_VCS) | BIT(P_IVCS)},
    {UNAV_PROCSTAT, BIT(P_PCT_PROC) | BIT(P_PCT_PRIV) | BIT(P_THREADS)},
    {UNAV_BOOT, BIT(P_ELAPSED)},
    {UNAV_COMMIT, BIT(P_PRIVATE) | BIT(P_PFB) | BIT(P_PFB_PEAK)},
};

static const struct unav_group thread_groups[] = {
    {UNAV_SCHEDSTAT, BIT(T_CSW)},
    {UNAV_BOOT, BIT(T_ELAPSED)},
    {UNAV_IDLE_THREAD, BIT(T_CSW)},
    {UNAV_PROCSTAT, BIT(T_PCT_PROC) | BIT(T_PCT_PRIV)}, /* _Total/_Total without Idle's part */
};

static const struct unav_group pas_groups[] = {
    {UNAV_MAPS, ((BIT(A_TOTAL + 1) - 1) & ~BIT(A_PID))}, /* positions 1..A_TOTAL */
    {UNAV_ROLLUP, BIT(A_RESIDENT) | BIT(A_PRIV_RESIDENT)},
};

/* The per-position mask of a set of groups. */
static uint64_t positions_of(uint32_t groups, const struct unav_group *t, size_t n)
{
    uint64_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (groups & t[i].group) m |= t[i].positions;
    return m;
}
#define POSITIONS(groups, table) positions_of(groups, table, sizeof table / sizeof table[0])

/* Zero the values of marked positions (their raw value is meaningless). */
static void zero_marked(uint64_t *v, int n, uint64_t mask)
{
    for (int i = 0; i < n; i++)
        if (mask & BIT(i)) v[i] = 0;
}

/* ------------------------------------------------------------ state */

/* What PerfProc keeps of each process between collections (pid + start
 * time), in pid order: its Page File Bytes peak, and its commit charge
 * from smaps with the status sizes it was read at (read again when one of
 * them changed: issue 33 item 7). */
struct peak {
    int32_t pid;
    uint64_t start;
    uint64_t pfb_peak;    /* Page File Bytes, bytes */
    uint64_t vm_size, vm_data, vm_stk; /* kB, status: the commit below was read at these */
    pl_smaps_commit commit;
    int commit_rc;        /* 0 read; -errno: smaps unreadable (marked); 1: not read yet */
};


static struct {
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
    struct peak *peaks, *npeaks;
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
} S = {.lock = PTHREAD_MUTEX_INITIALIZER, .rootfd = -1, .procfd = -1};

/* The objects' PerfTime (docs/providers/perfproc.md, "The objects'
 * clock"): the boot time taken at Open plus CLOCK_BOOTTIME, a FILETIME
 * that a step of the wall clock never moves (issue 33 item 3). Elapsed
 * Time is (PerfTime - start) / PerfFreq and both count from that boot
 * time. Equal to the wall clock until the wall clock is stepped. On a tree
 * whose boot time is not this machine's: the wall clock. */
static int64_t object_now(void)
{
    return S.boot_live ? S.boot_ft + pl__boot_time_now() : pl__filetime_now();
}

/* ------------------------------------------------------- mappings */

/* Windows base priority (1..31) for a Linux scheduling policy and nice value. */
static uint32_t base_priority(uint32_t policy, uint32_t rt_priority, int64_t nice)
{
    if (policy == 1 || policy == 2) { /* SCHED_FIFO, SCHED_RR: the real-time range */
        uint32_t rt = rt_priority < 1 ? 1 : rt_priority > 99 ? 99 : rt_priority;
        return 16 + (rt - 1) * 15 / 98;
    }
    if (policy == 5) return 1; /* SCHED_IDLE */
    if (nice <= -15) return 13; /* HIGH_PRIORITY_CLASS */
    if (nice <= -5) return 10;  /* ABOVE_NORMAL */
    if (nice < 5) return 8;     /* NORMAL */
    if (nice < 15) return 6;    /* BELOW_NORMAL */
    return 4;                   /* IDLE_PRIORITY_CLASS */
}

/* Windows thread states: 0 Initialized 1 Ready 2 Running 3 Standby
 * 4 Terminated 5 Wait 6 Transition 7 Unknown. */
static uint32_t thread_state(char s)
{
    switch (s) {
    case 'R': return 2;
    case 'S': case 'D': case 'T': case 't': case 'I': case 'P': return 5;
    case 'Z': case 'X': case 'x': return 4;
    case 'W': return 6;
    default: return 7;
    }
}

/* Windows KWAIT_REASON values; 20 is "Unknown" (also for a thread that does
 * not wait). */
static uint32_t wait_reason(char s)
{
    switch (s) {
    case 'S': return 6;            /* UserRequest: interruptible sleep */
    case 'D': return 0;            /* Executive: uninterruptible, in the kernel */
    case 'T': case 't': case 'P': return 5; /* Suspended: stopped, traced, parked */
    case 'I': return 15;           /* WrQueue: an idle kernel worker */
    case 'W': return 2;            /* PageIn */
    default: return 20;
    }
}

/* comm as UTF-8 for an instance name: invalid UTF-8 and control characters
 * (a newline, a tab, DEL: prctl(PR_SET_NAME) takes any byte) become '?', so
 * a name never breaks a CSV/TSV row or a line of text output. */
static const char *clean_name(const char *in, char *out, size_t cap)
{
    const unsigned char *u = (const unsigned char *)in;
    size_t len = 0;
    int ascii = 1, ctl = 0;
    for (; u[len]; len++) {
        if (u[len] >= 0x80) ascii = 0;
        else if (u[len] < 0x20 || u[len] == 0x7f) ctl = 1;
    }
    if (!ctl) {
        if (ascii) return in;
        size_t units;
        if (pl__utf8_to_utf16(in, len, NULL, 0, &units) != PL_E_ENCODING) return in;
    }
    size_t units;
    int bad_utf8 = !ascii && pl__utf8_to_utf16(in, len, NULL, 0, &units) == PL_E_ENCODING;
    size_t i = 0;
    for (; i < len && i + 1 < cap; i++) {
        unsigned char c = u[i];
        out[i] = (c < 0x20 || c == 0x7f || (bad_utf8 && c >= 0x80)) ? '?' : (char)c;
    }
    out[i] = '\0';
    return out;
}

/* ------------------------------------------------------- builder setup */

static int add_object(uint32_t index, uint32_t detail, const struct ctr_row *rows, int n, int default_ctr,
                      int64_t now_ft, int *obj)
{
    pl_object_desc d = {
        .name_index = index,
        .help_index = PL_HELP(index),
        .detail_level = detail,
        .default_counter = default_ctr,
        .has_instances = 1,
        .perf_time = now_ft,
        .perf_freq = PL_TICKS_PER_SEC,
    };
    int rc = pl_builder_add_object(S.b, &d, obj);
    for (int i = 0; rc == PL_OK && i < n; i++) {
        pl_counter_desc c = {
            .name_index = rows[i].index,
            .help_index = PL_HELP(rows[i].index),
            .type = rows[i].type,
            .detail_level = rows[i].detail,
            .default_scale = rows[i].scale,
        };
        int h;
        rc = pl_builder_add_counter(S.b, *obj, &c, &h);
        if (rc == PL_OK && h != i) rc = PL_E_INVAL;
    }
    return rc;
}

static int put_values(int obj, int inst, const uint64_t *v, int n)
{
    for (int i = 0; i < n; i++) {
        int rc = pl_builder_set_u64(S.b, obj, inst, i, v[i]);
        if (rc != PL_OK) return rc;
    }
    return PL_OK;
}

static int add_inst(int obj, const char *name, uint32_t parent_idx, uint32_t parent_pos, int *inst)
{
    char tmp[PL_PROC_COMM_MAX];
    return pl_builder_add_instance(S.b, obj, clean_name(name, tmp, sizeof tmp), parent_idx, parent_pos,
                                   PERF_NO_UNIQUE_ID, inst);
}

/* ------------------------------------------------------- /proc/stat */

/* The first five numbers of a cpu line at *s; 0 or -EINVAL. */
static int cpu_fields(const char **s, uint64_t f[5])
{
    for (int i = 0; i < 5; i++)
        if (!pl__parse_u64(s, &f[i])) return -EINVAL;
    /* a time that would overflow once turned into 100 ns units is not a time */
    if (f[3] > PL_PROC_STAT_MAX_TICKS || f[4] > PL_PROC_STAT_MAX_TICKS - f[3]) return -EINVAL;
    return 0;
}

/* Idle ticks (idle + iowait) of each cpuN line, into S.cpu_ids/cpu_ticks
 * and the tracker. A malformed line (the aggregate one included) makes the
 * whole read malformed: Idle's threads and Idle itself come from one
 * reading or none. The aggregate "cpu" line is not used: an offline CPU's
 * idle time in it comes from another source than its own line (+6,502
 * ticks at an offline, back at the online), so Idle read 5,614 % on 2 CPUs
 * across a hotplug (issue 33 item 2). */
static int read_cpu_idle(uint32_t *ncpu)
{
    ssize_t n;
    S.ncpus = 0;
    /* One read of the whole file: /proc/stat grows with the CPUs (about
     * 80 bytes each, 330 KiB for 4096), so a full buffer is grown and the
     * file read again rather than counted short. */
    while ((n = pl__proc_read1(S.procfd, "stat", S.statbuf, S.statbuf_cap)) >= 0 &&
           (size_t)n == S.statbuf_cap - 1) {
        if (S.statbuf_cap >= ((size_t)64 << 20)) return -EFBIG;
        char *nb = realloc(S.statbuf, S.statbuf_cap * 2);
        if (!nb) return -ENOMEM;
        S.statbuf = nb;
        S.statbuf_cap *= 2;
    }
    if (n < 0) return (int)n;
    const char *s = S.statbuf;
    if (strncmp(s, "cpu ", 4) != 0) return -EINVAL;
    s += 4;
    uint64_t f[5] = {0};
    if (cpu_fields(&s, f) != 0) return -EINVAL;
    pl__skip_line(&s);
    while (strncmp(s, "cpu", 3) == 0 && s[3] >= '0' && s[3] <= '9') {
        s += 3;
        uint64_t num;
        if (!pl__parse_u64(&s, &num) || num > UINT32_MAX || cpu_fields(&s, f) != 0) {
            S.ncpus = 0;
            return -EINVAL;
        }
        if (S.ncpus == S.cpus_cap) {
            size_t cap = S.cpus_cap ? S.cpus_cap * 2 : 64;
            uint32_t *ni = realloc(S.cpu_ids, cap * sizeof *ni);
            if (ni) S.cpu_ids = ni;
            uint64_t *nt = ni ? realloc(S.cpu_ticks, cap * sizeof *nt) : NULL;
            if (nt) S.cpu_ticks = nt;
            if (!ni || !nt) {
                S.ncpus = 0;
                return -ENOMEM;
            }
            S.cpus_cap = cap;
        }
        S.cpu_ids[S.ncpus] = (uint32_t)num;
        S.cpu_ticks[S.ncpus++] = f[3] + f[4];
        pl__skip_line(&s);
    }
    /* ascending CPU numbers, as the kernel prints them (the tracker's
     * order); anything else is not its file */
    int rc = pl__cpu_track_update(&S.idle_track, (uint32_t)S.ncpus, S.cpu_ids, S.cpu_ticks, NULL, NULL, NULL, 0);
    if (rc != 0) {
        S.ncpus = 0;
        return rc;
    }
    *ncpu = (uint32_t)S.ncpus;
    return 0;
}

/* ------------------------------------------------------- peaks */

static int peaks_reserve(size_t n)
{
    if (n <= S.peak_cap) return 0;
    size_t cap = S.peak_cap ? S.peak_cap : 1024;
    while (cap < n) cap *= 2;
    struct peak *a = realloc(S.peaks, cap * sizeof *a);
    if (!a) return -ENOMEM;
    S.peaks = a;
    struct peak *b = realloc(S.npeaks, cap * sizeof *b);
    if (!b) return -ENOMEM;
    S.npeaks = b;
    S.peak_cap = cap;
    return 0;
}

/* The entry of this process for this collection, with what the previous
 * collection kept of it (a fresh one for a new process). The previous
 * collection's entries are sorted by pid and so are the pids of this one,
 * so the look-up is a merge: `cursor` only moves forward. NULL only when
 * the table is full (cannot happen: reserved for every listed pid). */
static struct peak *memo_next(size_t *cursor, int32_t pid, uint64_t start)
{
    while (*cursor < S.npeak && S.peaks[*cursor].pid < pid) (*cursor)++;
    if (S.nnpeak >= S.peak_cap) return NULL;
    struct peak *m = &S.npeaks[S.nnpeak++];
    if (*cursor < S.npeak && S.peaks[*cursor].pid == pid && S.peaks[*cursor].start == start) {
        *m = S.peaks[*cursor];
    } else {
        memset(m, 0, sizeof *m);
        m->pid = pid;
        m->start = start;
        m->commit_rc = 1;
    }
    return m;
}

/* The process's commit charge (docs/providers/perfproc.md, "Private Bytes
 * and Page File Bytes"): from its smaps, read again only when VmSize,
 * VmData or VmStk moved since the last reading (a process whose mappings
 * did not change keeps its charge); a process without an address space
 * (a kernel thread) has none. 0, or -errno when smaps cannot be read (not
 * ours, and not root; gone; malformed). */
static int commit_of(struct peak *m, const pl_proc_status *ss)
{
    if (!(ss->have & PL_PST_VMSIZE)) {
        memset(&m->commit, 0, sizeof m->commit);
        return m->commit_rc = 0;
    }
    if (m->commit_rc <= 0 && m->vm_size == ss->vm_size && m->vm_data == ss->vm_data && m->vm_stk == ss->vm_stk)
        return m->commit_rc;
    m->vm_size = ss->vm_size;
    m->vm_data = ss->vm_data;
    m->vm_stk = ss->vm_stk;
    char rel[32];
    size_t n = pl__fmt_i32(rel, m->pid);
    memcpy(rel + n, "/smaps", 7);
    char *buf = NULL;
    ssize_t len = pl__slurp_at(S.procfd, rel, &buf);
    if (len < 0) m->commit_rc = (int)len;
    else m->commit_rc = pl__text_complete(buf, (size_t)len) ? pl__parse_smaps_commit(buf, &m->commit) : -EINVAL;
    free(buf);
    if (m->commit_rc == 0 && m->commit.mappings == 0) m->commit_rc = -ESRCH; /* it exited meanwhile */
    return m->commit_rc;
}

static void peaks_commit(void)
{
    struct peak *t = S.peaks;
    S.peaks = S.npeaks;
    S.npeaks = t;
    S.npeak = S.nnpeak;
    S.nnpeak = 0;
}

/* ------------------------------------------------------- costly objects */

/* The Image instances (one per executable file mapped, in the order of
 * their first mapping) and the Process Address Space instance of one
 * process, from what the read phase kept. `pos` is its Process position. */
static int build_costly(const pp_slot *s, const pp_arena *ar, uint32_t pos, int img_obj, int pas_obj)
{
    const pp_pas *c = &s->pas;
    if (c->state != PP_OK) return PL_OK; /* gone meanwhile */
    int rc = PL_OK;
    for (size_t i = 0; img_obj >= 0 && i < c->ni && rc == PL_OK; i++) {
        const pp_image *im = &ar->img[c->i0 + i];
        int inst;
        char tmp[256];
        rc = pl_builder_add_instance(S.b, img_obj, clean_name(im->name, tmp, sizeof tmp), PL_OBJ_PROCESS, pos,
                                     PERF_NO_UNIQUE_ID, &inst);
        uint64_t iv[I_COUNT];
        uint64_t total = 0;
        for (int k = 0; k < PL_PROT_COUNT; k++) {
            iv[k] = im->bytes[k];
            total += im->bytes[k];
        }
        iv[I_MAPPED] = total;
        if (rc == PL_OK) rc = put_values(img_obj, inst, iv, I_COUNT);
    }
    if (rc != PL_OK || pas_obj < 0) return rc;
    uint64_t a[A_COUNT] = {0};
    a[A_PID] = (uint64_t)s->st.pid;
    for (int k = 0; k < PL_PROT_COUNT; k++) {
        a[A_MAPPED0 + k] = c->mapped[k];
        a[A_RESERVED0 + k] = c->reserved[k];
        a[A_IMAGE0 + k] = c->image[k];
    }
    a[A_IMAGE_RESERVED] = c->image_reserved;
    a[A_TOTAL] = c->total;
    a[A_RESIDENT] = kib(c->rss_kb);
    a[A_PRIV_RESIDENT] = kib(c->priv_kb);
    a[A_UNAV] = POSITIONS(c->unav, pas_groups);
    zero_marked(a, A_COUNT, a[A_UNAV]);
    int inst;
    rc = add_inst(pas_obj, s->st.comm, 0, 0, &inst);
    if (rc == PL_OK) rc = put_values(pas_obj, inst, a, A_COUNT);
    return rc;
}

/* ------------------------------------------------------- the collection */

struct objs {
    int proc, thread, image, pas;
};

static void fill_process(const pp_slot *pi, const struct peak *m, uint64_t *v)
{
    const pl_proc_stat *st = &pi->st;
    const pl_proc_status *ss = &pi->ss;
    memset(v, 0, sizeof(uint64_t) * P_COUNT);
    uint64_t ut = st->utime * S.tick_100ns, kt = st->stime * S.tick_100ns;
    v[P_PCT_PROC] = ut + kt;
    v[P_PCT_USER] = ut;
    v[P_PCT_PRIV] = kt;
    v[P_VIRT] = st->vsize;
    v[P_PAGE_FAULTS] = st->minflt + st->majflt;
    v[P_WS] = st->rss * S.page_size;
    v[P_THREADS] = st->num_threads;
    v[P_PRIO] = base_priority(st->policy, st->rt_priority, st->nice);
    v[P_ELAPSED] = (uint64_t)S.boot_ft + st->starttime * S.tick_100ns;
    v[P_PID] = (uint64_t)st->pid;
    v[P_PPID] = (uint64_t)st->ppid;
    v[P_MAJ] = st->majflt;
    v[P_MIN] = st->minflt;
    v[P_NICE] = (uint32_t)(int32_t)st->nice;
    v[P_LASTCPU] = st->processor < 0 ? 0 : (uint64_t)st->processor;
    v[P_STATE] = (uint8_t)st->state;
    uint32_t unav = pi->unav | UNAV_IO_OTHER | UNAV_POOL | (S.have_boot ? 0 : UNAV_BOOT) |
                    (m && m->commit_rc == 0 ? 0 : UNAV_COMMIT);
    if (!(unav & UNAV_STATUS)) {
        v[P_VIRT_PEAK] = kib(ss->vm_peak);
        v[P_WS_PEAK] = kib(ss->vm_hwm);
        /* status and stat can disagree by the per-CPU counter slack: take
         * VmRSS so that Working Set = Private + Shared. */
        if (ss->have & PL_PST_VMRSS) v[P_WS] = kib(ss->vm_rss);
        v[P_WS_PRIV] = kib(ss->rss_anon);
        v[P_WS_SHARED] = kib(ss->rss_file + ss->rss_shmem);
        v[P_RSS_SHARED] = v[P_WS_SHARED];
        if (!(unav & UNAV_COMMIT)) {
            /* the kernel's own commit accounting: what it charged for the
             * process's private mappings (not MAP_NORESERVE reservations);
             * Page File Bytes, the commit charge, adds the shared anonymous
             * memory it maps. Swap in use is Swap Bytes. */
            v[P_PRIVATE] = kib(m->commit.private_kb);
            v[P_PFB] = kib(m->commit.private_kb + m->commit.shared_anon_kb);
            v[P_PFB_PEAK] = m->pfb_peak;
        }
        v[P_SWAP] = kib(ss->vm_swap);
        v[P_VCS] = ss->vol_ctxt;
        v[P_IVCS] = ss->nonvol_ctxt;
    }
    if (!(unav & UNAV_IO)) {
        v[P_IO_RD_OPS] = pi->io.syscr;
        v[P_IO_WR_OPS] = pi->io.syscw;
        v[P_IO_DATA_OPS] = pi->io.syscr + pi->io.syscw;
        v[P_IO_RD_BYTES] = pi->io.rchar;
        v[P_IO_WR_BYTES] = pi->io.wchar;
        v[P_IO_DATA_BYTES] = pi->io.rchar + pi->io.wchar;
    }
    if (!(unav & UNAV_HANDLES)) v[P_HANDLES] = (uint64_t)pi->fds;
    v[P_UNAV] = POSITIONS(unav, proc_groups);
    zero_marked(v, P_COUNT, v[P_UNAV]);
}

/* The running sums of the Thread object's _Total/_Total instance. */
struct thread_total {
    uint64_t v[T_COUNT];
    uint64_t unav; /* the OR of every thread's mask */
};

static void thread_total_add(struct thread_total *tt, const uint64_t *v)
{
    for (int k = 0; k < T_COUNT; k++) tt->v[k] += v[k];
    tt->unav |= v[T_UNAV];
}

/* The Thread instances of one process from what the read phase kept;
 * returns PL_OK, or a builder error. */
static int build_threads(const pp_slot *s, const pp_arena *a, uint32_t ppos, int tobj, struct thread_total *tt)
{
    int rc = PL_OK;
    for (size_t i = 0; i < s->nt && rc == PL_OK; i++) {
        const pp_thread *t = &a->t[s->t0 + i];
        const pl_proc_stat *st = &t->st;
        uint32_t unav = t->unav | (S.have_boot ? 0 : UNAV_BOOT);
        uint64_t v[T_COUNT];
        uint64_t ut = st->utime * S.tick_100ns, kt = st->stime * S.tick_100ns;
        v[T_PCT_PROC] = ut + kt;
        v[T_PCT_USER] = ut;
        v[T_PCT_PRIV] = kt;
        v[T_CSW] = t->ss.slices;
        v[T_ELAPSED] = (uint64_t)S.boot_ft + st->starttime * S.tick_100ns;
        v[T_PRIO_BASE] = base_priority(st->policy, st->rt_priority, st->nice);
        v[T_PRIO_CUR] = v[T_PRIO_BASE];
        v[T_STATE] = thread_state(st->state);
        v[T_WAIT] = wait_reason(st->state);
        v[T_PID] = (uint64_t)s->st.pid;
        v[T_TID] = (uint64_t)t->tid;
        v[T_MAJ] = st->majflt;
        v[T_MIN] = st->minflt;
        v[T_NICE] = (uint32_t)(int32_t)st->nice;
        v[T_LASTCPU] = st->processor < 0 ? 0 : (uint64_t)st->processor;
        v[T_UNAV] = POSITIONS(unav, thread_groups);
        zero_marked(v, T_COUNT, v[T_UNAV]);
        char name[12];
        pl__fmt_i32(name, (int32_t)i);
        int inst;
        rc = pl_builder_add_instance(S.b, tobj, name, PL_OBJ_PROCESS, ppos, PERF_NO_UNIQUE_ID, &inst);
        if (rc == PL_OK) rc = put_values(tobj, inst, v, T_COUNT);
        thread_total_add(tt, v);
    }
    return rc;
}

/* Idle's threads, one per CPU as Windows lists them ("Idle/0", "Idle/1",
 * ...: named by the CPU number), from the same /proc/stat reading as Idle:
 * the CPU's idle + iowait time as privileged time, started at boot. The
 * idle task has no user address space (no page faults: 0 is its count);
 * /proc shows no switch count for it, so Context Switches/sec is marked
 * unavailable (and with it _Total/_Total's, a sum missing a part). */
static int idle_threads(int tobj, uint32_t iunav, struct thread_total *tt)
{
    uint64_t v[T_COUNT];
    int rc = PL_OK;
    /* /proc/stat unreadable or malformed: no Idle threads, and _Total/_Total
     * would miss their part (as _Total misses Idle's) */
    if (iunav & UNAV_PROCSTAT) tt->unav |= POSITIONS(UNAV_PROCSTAT, thread_groups);
    for (size_t i = 0; i < S.ncpus && rc == PL_OK; i++) {
        memset(v, 0, sizeof v);
        /* the CPU's idle ticks kept continuous across hotplug; marked in the
         * collection that has no honest difference for it (it came back,
         * or its count restarted) */
        uint64_t ticks = 0, m = 0;
        if (pl__cpu_track_get(&S.idle_track, S.cpu_ids[i], &ticks, &m) != 0) m = 1;
        v[T_PCT_PROC] = v[T_PCT_PRIV] = ticks * S.tick_100ns;
        v[T_ELAPSED] = (uint64_t)S.boot_ft;
        v[T_STATE] = thread_state('R');
        v[T_WAIT] = wait_reason('R');
        v[T_LASTCPU] = S.cpu_ids[i];
        v[T_UNAV] = POSITIONS(UNAV_IDLE_THREAD | (iunav & UNAV_BOOT) | (m ? UNAV_PROCSTAT : 0), thread_groups);
        zero_marked(v, T_COUNT, v[T_UNAV]);
        char name[12];
        pl__fmt_i32(name, (int32_t)S.cpu_ids[i]);
        int inst;
        rc = pl_builder_add_instance(S.b, tobj, name, PL_OBJ_PROCESS, 0, PERF_NO_UNIQUE_ID, &inst);
        if (rc == PL_OK) rc = put_values(tobj, inst, v, T_COUNT);
        thread_total_add(tt, v);
    }
    return rc;
}

/* What the build phase carries from one process to the next. */
struct build {
    struct objs o;
    int want_p, want_t;
    int64_t only;   /* "pid=N": Thread, Image, Process Address Space of process N only (-1: all) */
    uint64_t total[P_COUNT];
    uint64_t tunav; /* the OR of every instance's mask, for _Total */
    struct thread_total tt;
    size_t cursor;  /* in the previous peaks */
    uint32_t pos;   /* the next Process position */
};

/* The instances of one read process (PP_OK), in pid order. */
static int build_one(struct build *bd, const pp_slot *s, const pp_arena *a)
{
    int rc = PL_OK;
    if (bd->want_p) {
        uint64_t v[P_COUNT];
        int inst;
        struct peak *m = memo_next(&bd->cursor, s->st.pid, s->st.starttime);
        if (m && !(s->unav & UNAV_STATUS) && commit_of(m, &s->ss) == 0) {
            uint64_t pfb = kib(m->commit.private_kb + m->commit.shared_anon_kb);
            if (pfb > m->pfb_peak) m->pfb_peak = pfb;
        }
        fill_process(s, m && !(s->unav & UNAV_STATUS) ? m : NULL, v);
        rc = add_inst(bd->o.proc, s->st.comm, 0, 0, &inst);
        if (rc == PL_OK) rc = put_values(bd->o.proc, inst, v, P_COUNT);
        for (int k = 0; k < P_COUNT; k++) bd->total[k] += v[k];
        bd->tunav |= v[P_UNAV];
    }
    int mine = bd->only < 0 || bd->only == s->st.pid;
    if (rc == PL_OK && bd->want_t && mine) rc = build_threads(s, a, bd->pos, bd->o.thread, &bd->tt);
    if (rc == PL_OK && mine && (bd->o.image >= 0 || bd->o.pas >= 0))
        rc = build_costly(s, a, bd->pos, bd->o.image, bd->o.pas);
    return rc;
}

/* The read phase on the pool: reader `w` fills slots [b, e) into its arena. */
struct read_job {
    const pp_read_ctx *c;
    const int32_t *pids;
    pp_slot *slots;
    pp_arena *arenas;
};

static void read_range(void *arg, unsigned w, size_t b, size_t e)
{
    struct read_job *j = arg;
    for (size_t i = b; i < e; i++) {
        pl__pp_read_one(j->c, j->pids[i], &j->slots[i], &j->arenas[w]);
        j->slots[i].arena = w;
    }
}

static int slots_reserve(size_t n)
{
    if (n <= S.slot_cap) return 0;
    size_t cap = S.slot_cap ? S.slot_cap : 1024;
    while (cap < n) cap *= 2;
    pp_slot *s = realloc(S.slots, cap * sizeof *s);
    if (!s) return -ENOMEM;
    S.slots = s;
    S.slot_cap = cap;
    return 0;
}

/* Pids per chunk: small enough that readers share the tail of the list
 * evenly, large enough that the shared counter is touched rarely. */
#define READ_CHUNK 8u

/* Every listed process: read, then built in pid order. With one reader (the
 * setting is 1, or the pool could not start, or 8 pids or fewer) each
 * process is read and built in turn, as before the pool existed; otherwise
 * every process is read first, by the pool, then built. */
static int collect_processes(struct build *bd)
{
    pp_read_ctx c = {.procfd = S.procfd,
                     .fd_by_stat = S.fd_by_stat,
                     .want_p = bd->want_p,
                     .want_t = bd->want_t,
                     .want_img = bd->o.image >= 0,
                     .want_pas = bd->o.pas >= 0,
                     .only = bd->only};
    size_t np = S.pids.n;
    unsigned readers = 1;
    if (S.workers > 1 && np > READ_CHUNK) readers = pl__pp_pool_start(&S.pool, S.workers);
    for (unsigned w = 0; w < readers; w++) S.arenas[w].n = S.arenas[w].nimg = 0;
    if (readers == 1) {
        pp_slot *s = &S.one;
        for (size_t i = 0; i < np; i++) {
            S.arenas[0].n = S.arenas[0].nimg = 0;
            pl__pp_read_one(&c, S.pids.v[i], s, &S.arenas[0]);
            if (s->state == PP_NOMEM) return PL_E_NOMEM;
            if (s->state != PP_OK) continue;
            int rc = build_one(bd, s, &S.arenas[0]);
            if (rc != PL_OK) return rc;
            bd->pos++;
        }
        return PL_OK;
    }
    if (slots_reserve(np) != 0) return PL_E_NOMEM;
    struct read_job j = {&c, S.pids.v, S.slots, S.arenas};
    pl__pp_pool_run(&S.pool, np, READ_CHUNK, read_range, &j);
    for (size_t i = 0; i < np; i++) {
        const pp_slot *s = &S.slots[i];
        if (s->state == PP_NOMEM) return PL_E_NOMEM;
        if (s->state != PP_OK) continue;
        int rc = build_one(bd, s, &S.arenas[s->arena]);
        if (rc != PL_OK) return rc;
        bd->pos++;
    }
    return PL_OK;
}

/* collect_processes_bpf(): the pass could not be used, read /proc. */
#define PP_FALLBACK (-1)

/* One process read from /proc on the calling thread (the BPF pass did not
 * show it whole), then built. */
static int build_from_proc(struct build *bd, const pp_read_ctx *c, int32_t pid)
{
    pp_slot *s = &S.one;
    S.arenas[0].n = S.arenas[0].nimg = 0;
    pl__pp_read_one(c, pid, s, &S.arenas[0]);
    if (s->state == PP_NOMEM) return PL_E_NOMEM;
    if (s->state != PP_OK) return PL_OK;
    S.last_from_proc++;
    int rc = build_one(bd, s, &S.arenas[0]);
    if (rc == PL_OK) bd->pos++;
    return rc;
}

/* Every process from one BPF pass, in pid order. The pass and the /proc
 * listing taken just before it are merged: a process the pass showed whole
 * comes from it; one it did not show (the iterator can be kept from a task:
 * this VM's pid 1), or showed incomplete (a thread exiting during the read of
 * its group, more descriptors or CPUs than the program counts), is read from
 * /proc like any other; one that started after the listing comes from the
 * pass. Returns PL_OK, a builder error, or PP_FALLBACK when the pass could
 * not be used (the caller reads /proc instead; nothing was built). */
static int collect_processes_bpf(struct build *bd)
{
    const void *buf;
    size_t len;
    S.passes++;
    int rc = pl__pp_bpf_pass(S.bpf, &buf, &len, S.pass_err, sizeof S.pass_err);
    if (rc == 0) {
        rc = pl__pp_bpf_index(buf, len, &S.ix);
        if (rc == -EINVAL) snprintf(S.pass_err, sizeof S.pass_err, "a pass was not whole or well-formed");
    }
    if (rc == 0) rc = pl__pp_bpf_times(&S.cv, &S.ix, &S.pfloor, &S.tfloor);
    if (rc == -ENOMEM) return PL_E_NOMEM;
    if (rc != 0) {
        S.failed_passes++;
        return PP_FALLBACK;
    }
    if (peaks_reserve(S.pids.n + S.ix.nproc) != 0) return PL_E_NOMEM;
    pp_read_ctx c = {.procfd = S.procfd,
                     .fd_by_stat = S.fd_by_stat,
                     .want_p = bd->want_p,
                     .want_t = bd->want_t,
                     .only = bd->only};
    S.last_tasks = S.ix.nall;
    S.last_procs = S.ix.nproc;
    S.last_from_proc = 0;
    size_t i = 0, j = 0;
    while (i < S.pids.n || j < S.ix.nproc) {
        int32_t lp = i < S.pids.n ? S.pids.v[i] : INT32_MAX;
        int32_t bp = j < S.ix.nproc ? S.ix.proc[j]->pid : INT32_MAX;
        if (lp < bp) { /* listed, not in the pass */
            rc = build_from_proc(bd, &c, lp);
            i++;
        } else {
            if (lp == bp) i++;
            if (!(S.ix.proc[j]->flags & PPF_COMPLETE) || (S.fault_partial && (j & 1))) {
                rc = build_from_proc(bd, &c, bp);
            } else {
                pp_slot *s = &S.one;
                S.arenas[0].n = S.arenas[0].nimg = 0;
                if (pl__pp_bpf_slot(&S.cv, &S.ix, j, s, &S.arenas[0]) != 0) return PL_E_NOMEM;
                rc = build_one(bd, s, &S.arenas[0]);
                if (rc == PL_OK) bd->pos++;
            }
            j++;
        }
        if (rc != PL_OK) return rc;
    }
    return PL_OK;
}

/* `only` >= 0: the query's "pid=N" (pl_query_process_filter): the Thread,
 * Image and Process Address Space instances of that process only, the
 * Process object whole (their parent positions refer to it); with a filter,
 * Thread has no _Total/_Total, and Idle/N only for pid=0 (the Idle
 * process's threads). */
static int collect(const pl_query_items *q, int64_t only)
{
    int want_p = pl_query_wants(q, PL_OBJ_PROCESS, 0);
    int want_t = pl_query_wants(q, PL_OBJ_THREAD, 0);
    int want_i = pl_query_wants(q, PL_OBJ_IMAGE, 1);
    int want_a = pl_query_wants(q, PL_OBJ_PROCESS_ADDRESS_SPACE, 1);
    /* An index query for Thread or Image brings their parent Process from
     * the same snapshot: parent positions in a second, later snapshot could
     * point at other processes. */
    if (q->kind == PL_QUERY_KIND_ITEMS && (want_t || want_i)) want_p = 1;
    pl_builder_reset(S.b);
    if (!want_p && !want_t && !want_i && !want_a) return PL_OK;

    /* One snapshot time for every object, taken before anything is read. */
    int64_t now = object_now();
    struct build bd;
    memset(&bd, 0, sizeof bd);
    bd.o = (struct objs){-1, -1, -1, -1};
    bd.want_p = want_p;
    bd.want_t = want_t;
    bd.only = only;
    int rc = PL_OK;
    if (want_p) rc = add_object(PL_OBJ_PROCESS, NOV, proc_ctrs, P_COUNT, P_PCT_PROC, now, &bd.o.proc);
    if (rc == PL_OK && want_t) rc = add_object(PL_OBJ_THREAD, ADV, thread_ctrs, T_COUNT, T_PCT_PROC, now, &bd.o.thread);
    if (rc == PL_OK && want_i) rc = add_object(PL_OBJ_IMAGE, WIZ, image_ctrs, I_COUNT, -1, now, &bd.o.image);
    if (rc == PL_OK && want_a)
        rc = add_object(PL_OBJ_PROCESS_ADDRESS_SPACE, WIZ, pas_ctrs, A_COUNT, -1, now, &bd.o.pas);
    if (rc != PL_OK) return rc;

    uint64_t *total = bd.total;
    uint64_t v[P_COUNT];
    int inst;
    if (want_p) {
        /* Idle: the idle time of every CPU, ID Process 0; each interval
         * over the CPUs present in both of its readings (the tracker) */
        uint64_t idle = 0, m = 0;
        uint32_t ncpu = 0;
        uint32_t iunav = S.have_boot ? 0 : UNAV_BOOT;
        if (read_cpu_idle(&ncpu) != 0) iunav |= UNAV_PROCSTAT;
        else pl__cpu_track_sum(&S.idle_track, PL__CPU_TRACK_ALL, &idle, &m);
        if (m) iunav |= UNAV_PROCSTAT;
        memset(v, 0, sizeof v);
        v[P_PCT_PROC] = v[P_PCT_PRIV] = idle * S.tick_100ns;
        v[P_THREADS] = ncpu;
        v[P_ELAPSED] = (uint64_t)S.boot_ft;
        v[P_UNAV] = POSITIONS(iunav | UNAV_POOL, proc_groups);
        zero_marked(v, P_COUNT, v[P_UNAV]);
        rc = add_inst(bd.o.proc, "Idle", 0, 0, &inst);
        if (rc == PL_OK) rc = put_values(bd.o.proc, inst, v, P_COUNT);
        if (rc == PL_OK && want_t && only <= 0) rc = idle_threads(bd.o.thread, iunav, &bd.tt);
        if (rc != PL_OK) return rc;
        total[P_PCT_PROC] += v[P_PCT_PROC];
        total[P_PCT_PRIV] += v[P_PCT_PRIV];
        total[P_THREADS] += v[P_THREADS];
        bd.tunav |= v[P_UNAV];
    }

    ssize_t np = pl__proc_list_numeric(S.procfd, &S.pids);
    if (np < 0) return np == -ENOMEM ? PL_E_NOMEM : PL_E_OS;
    if (peaks_reserve((size_t)np) != 0) return PL_E_NOMEM;
    S.nnpeak = 0;
    bd.pos = 1; /* Idle is position 0 */
    /* The BPF source gives Process and Thread; the costly objects read
     * maps and smaps_rollup, so a query for them is read from /proc whole
     * (their instances and the processes they belong to from one reading). */
    rc = PP_FALLBACK;
    if (S.bpf && bd.o.image < 0 && bd.o.pas < 0) rc = collect_processes_bpf(&bd);
    if (rc == PP_FALLBACK) rc = collect_processes(&bd);
    if (rc != PL_OK) return rc;
    if (want_p) {
        peaks_commit();
        /* _Total: sums; identities and times of day do not add up. */
        total[P_PRIO] = total[P_ELAPSED] = total[P_PID] = total[P_PPID] = 0;
        total[P_NICE] = total[P_LASTCPU] = total[P_STATE] = 0;
        /* A value unavailable for any process makes the sum unavailable. */
        total[P_UNAV] = bd.tunav | POSITIONS(UNAV_IO_OTHER | UNAV_POOL, proc_groups);
        zero_marked(total, P_COUNT, total[P_UNAV]);
        rc = add_inst(bd.o.proc, "_Total", 0, 0, &inst);
        if (rc == PL_OK) rc = put_values(bd.o.proc, inst, total, P_COUNT);
        /* _Total/_Total: the sums of every thread, Idle's included, under
         * the Process _Total (position pos); identities do not add up. */
        if (rc == PL_OK && want_t && only < 0) {
            static const int ident[] = {T_ELAPSED, T_PRIO_CUR, T_PRIO_BASE, T_STATE, T_WAIT,
                                        T_PID,     T_TID,      T_NICE,      T_LASTCPU};
            uint64_t *tv = bd.tt.v;
            for (size_t k = 0; k < sizeof ident / sizeof ident[0]; k++) tv[ident[k]] = 0;
            tv[T_UNAV] = bd.tt.unav;
            zero_marked(tv, T_COUNT, tv[T_UNAV]);
            rc = pl_builder_add_instance(S.b, bd.o.thread, "_Total", PL_OBJ_PROCESS, bd.pos, PERF_NO_UNIQUE_ID,
                                         &inst);
            if (rc == PL_OK) rc = put_values(bd.o.thread, inst, tv, T_COUNT);
        }
    }
    return rc;
}

/* ------------------------------------------------------- entry points */

static void close_fds(void)
{
    if (S.procfd >= 0) close(S.procfd);
    if (S.rootfd >= 0) close(S.rootfd);
    S.procfd = S.rootfd = -1;
}

PL_PROVIDER_EXPORT DWORD PerfProcOpen(LPWSTR device_names);
PL_PROVIDER_EXPORT DWORD PerfProcCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects);
PL_PROVIDER_EXPORT DWORD PerfProcClose(void);
PL_PROVIDER_EXPORT DWORD PerfProcCollectNote(char *text, DWORD cap);

/* $PERFLIB_PERFPROC_SOURCE: "proc" or "bpf" force a source; "auto", unset,
 * empty or anything else is the default (the BPF source where it loads). */
enum { SRC_AUTO, SRC_PROC, SRC_BPF };

static int source_setting(void)
{
    const char *v = getenv("PERFLIB_PERFPROC_SOURCE");
    if (v && strcmp(v, "proc") == 0) return SRC_PROC;
    if (v && strcmp(v, "bpf") == 0) return SRC_BPF;
    return SRC_AUTO;
}

/* Does the /proc opened at Open show what a task-iterator pass shows: the
 * running kernel's procfs, of this process's pid namespace? A canned tree
 * (PERFLIB_SYSROOT) or another namespace's /proc does not. */
static int proc_is_ours(char *why, size_t cap)
{
    if (!pl__proc_is_procfs(S.procfd)) {
        snprintf(why, cap, "%s/proc is not the kernel's procfs", strcmp(pl__sysroot(), "/") == 0 ? "" : pl__sysroot());
        return 0;
    }
    char link[32];
    ssize_t n = readlinkat(S.procfd, "self", link, sizeof link - 1);
    char mine[16];
    size_t ml = pl__fmt_i32(mine, (int32_t)getpid());
    if (n != (ssize_t)ml || memcmp(link, mine, ml) != 0) {
        snprintf(why, cap, "this /proc belongs to another pid namespace");
        return 0;
    }
    return 1;
}

/* Choose the source at Open (docs/providers/perfproc.md, "The BPF source").
 * Returns 0, or -1 when the BPF source was forced and cannot be used. */
static int choose_source(void)
{
    int setting = source_setting();
    const char *fault = getenv("PERFLIB_PERFPROC_BPF_FAULT");
    S.fault_partial = fault && strcmp(fault, "partial") == 0;
    S.why[0] = '\0';
    S.pass_err[0] = '\0';
    S.passes = S.failed_passes = 0;
    S.last_tasks = S.last_procs = S.last_from_proc = 0;
    if (setting == SRC_PROC) {
        snprintf(S.why, sizeof S.why, "PERFLIB_PERFPROC_SOURCE=proc");
        return 0;
    }
    if (!proc_is_ours(S.why, sizeof S.why)) return setting == SRC_BPF ? -1 : 0;
    if (pl__pp_bpf_open(&S.bpf, S.why, sizeof S.why) != 0) return setting == SRC_BPF ? -1 : 0;
    /* A first pass must show this very process whole: the per-CPU offsets
     * found, the group read, the name; else the source is not used. */
    const void *buf;
    size_t len;
    int rc = pl__pp_bpf_pass(S.bpf, &buf, &len, S.why, sizeof S.why);
    if (rc == 0 && pl__pp_bpf_index(buf, len, &S.ix) != 0) {
        snprintf(S.why, sizeof S.why, "a first pass was not whole or well-formed");
        rc = -EINVAL;
    }
    int32_t me = (int32_t)getpid();
    size_t k = 0;
    while (rc == 0 && k < S.ix.nproc && S.ix.proc[k]->pid != me) k++;
    if (rc == 0 && (k == S.ix.nproc || !(S.ix.proc[k]->flags & PPF_COMPLETE))) {
        snprintf(S.why, sizeof S.why, "a first pass did not show this process whole (%s)",
                 k == S.ix.nproc ? "not in it" : "per-CPU counters, threads or descriptors not read");
        rc = -EINVAL;
    }
    if (rc != 0) {
        pl__pp_bpf_close(S.bpf);
        S.bpf = NULL;
        return setting == SRC_BPF ? -1 : 0;
    }
    unsigned shift = 0;
    while (shift < 63 && ((uint64_t)1 << shift) < S.page_size) shift++;
    S.cv = (pp_bpf_conv){.hz = S.hz, .page_shift = shift, .boot_offset_ns = pl__pp_boot_offset(S.procfd)};
    return 0;
}

/* The Linkage export as ASCII (anything else: empty), for the setting. */
static void linkage_ascii(const WCHAR *w, char *out, size_t cap)
{
    size_t i = 0;
    for (; w && w[i] && i + 1 < cap; i++) {
        if (w[i] >= 0x80) {
            i = 0;
            break;
        }
        out[i] = (char)w[i];
    }
    out[i] = '\0';
}

PL_PROVIDER_EXPORT DWORD PerfProcOpen(LPWSTR device_names)
{
    pthread_mutex_lock(&S.lock);
    DWORD ret = ERROR_SUCCESS;
    if (S.opened++ > 0) goto out;
    char linkage[32];
    linkage_ascii(device_names, linkage, sizeof linkage);
    S.workers = pl__pp_workers_setting(linkage);
    S.rootfd = pl__root_open(pl__sysroot(), "");
    if (S.rootfd >= 0) S.procfd = openat(S.rootfd, "proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (S.rootfd < 0 || S.procfd < 0) {
        ret = ERROR_FILE_NOT_FOUND;
        goto fail;
    }
    /* Without a usable btime (absent, malformed such as "1e9x", beyond 63
     * bits) every Elapsed Time is marked unavailable, never computed from a
     * made-up boot time (issue 11 item 8). */
    S.boot_ft = 0;
    S.have_boot = pl__boot_filetime(S.rootfd, &S.boot_ft) == 0;
    /* the objects' clock (object_now): boot time plus CLOCK_BOOTTIME, when
     * the boot time is this machine's own (the clocks agree with it); a
     * canned tree's btime keeps the wall clock */
    int64_t off = pl__filetime_now() - pl__boot_time_now() - S.boot_ft;
    S.boot_live = S.have_boot && off > -2 * PL_TICKS_PER_SEC && off < 2 * PL_TICKS_PER_SEC;
    S.hz = pl__clock_ticks();
    pl__cpu_track_init(&S.idle_track, 1);
    S.tick_100ns = pl__ticks_to_100ns(1, S.hz);
    long ps = sysconf(_SC_PAGESIZE);
    S.page_size = ps > 0 ? (uint64_t)ps : 4096;
    S.fd_by_stat = pl__proc_fd_stat_works(S.procfd);
    /* On the kernel's procfs every file is regular: the per-file fstat()
     * check (against a FIFO or device planted in a canned tree) is skipped,
     * 5 system calls per process with a thread (docs/providers/perfproc.md). */
    pl__proc_trust_procfs(pl__proc_is_procfs(S.procfd));
    S.statbuf_cap = 65536;
    S.statbuf = malloc(S.statbuf_cap);
    S.b = pl_builder_new();
    if (!S.statbuf || !S.b) {
        ret = ERROR_OUTOFMEMORY;
        goto fail;
    }
    if (choose_source() != 0) {
        ret = ERROR_CALL_NOT_IMPLEMENTED; /* PERFLIB_PERFPROC_SOURCE=bpf, and the note says why not */
        goto fail;
    }
    goto out;
fail:
    close_fds();
    free(S.statbuf);
    S.statbuf = NULL;
    pl_builder_free(S.b);
    S.b = NULL;
    S.opened = 0;
out:
    pthread_mutex_unlock(&S.lock);
    return ret;
}

static int same_query(const pl_query_items *a, const pl_query_items *b)
{
    if (a->kind != b->kind || a->n != b->n) return 0;
    return memcmp(a->items, b->items, a->n * sizeof a->items[0]) == 0;
}

PL_PROVIDER_EXPORT DWORD PerfProcCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    if (!data || !bytes || !objects) return ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&S.lock);
    DWORD ret;
    if (!S.opened || !S.b) {
        *bytes = 0;
        *objects = 0;
        ret = ERROR_INVALID_HANDLE;
        goto out;
    }
    pl_query_items q;
    pl_query_parse_w(query, &q);
    uint32_t fpid = 0;
    int64_t only = pl_query_process_filter_w(query, &fpid) ? (int64_t)fpid : -1;
    /* A retry after ERROR_MORE_DATA gets the very same snapshot (within 5 s). */
    int64_t now = pl__perf_time_now();
    if (!(S.pending && same_query(&q, &S.pending_q) && only == S.pending_only &&
          now - S.pending_time < 5 * PL_TICKS_PER_SEC)) {
        int rc = collect(&q, only);
        if (rc != PL_OK) {
            pl_builder_reset(S.b);
            S.pending = 0;
            *bytes = 0;
            *objects = 0;
            /* /proc unreadable, or data the builder refused: not the
             * caller's parameters. */
            ret = rc == PL_E_NOMEM ? ERROR_OUTOFMEMORY : rc == PL_E_OS ? ERROR_FILE_NOT_FOUND : ERROR_INVALID_DATA;
            goto out;
        }
    }
    ret = pl_provider_emit(S.b, data, bytes, objects);
    S.pending = ret == ERROR_MORE_DATA;
    if (S.pending) {
        S.pending_q = q;
        S.pending_only = only;
        S.pending_time = now;
    }
out:
    pthread_mutex_unlock(&S.lock);
    return ret;
}

/* Everything Open and the collections hold. */
static void release_all(void)
{
    close_fds();
    pl_builder_free(S.b);
    S.b = NULL;
    free(S.statbuf);
    S.statbuf = NULL;
    free(S.cpu_ids);
    free(S.cpu_ticks);
    S.cpu_ids = NULL;
    S.cpu_ticks = NULL;
    S.ncpus = S.cpus_cap = 0;
    pl__cpu_track_free(&S.idle_track);
    free(S.peaks);
    free(S.npeaks);
    S.peaks = S.npeaks = NULL;
    S.npeak = S.nnpeak = S.peak_cap = 0;
    pl__pidvec_free(&S.pids);
    pl__pp_pool_stop(&S.pool);
    for (unsigned w = 0; w < PP_MAX_WORKERS; w++) pl__pp_arena_free(&S.arenas[w]);
    free(S.slots);
    S.slots = NULL;
    S.slot_cap = 0;
    pl__pp_bpf_close(S.bpf);
    S.bpf = NULL;
    pl__pp_bpf_index_free(&S.ix);
    pl__pp_floors_free(&S.pfloor);
    pl__pp_floors_free(&S.tfloor);
    S.pending = 0;
    S.opened = 0;
}

/* Unloaded without a last Close (a host that dlcloses, a program that
 * exits): the reader threads must not outlive the code they run, and what
 * Open took is given back. A collection still running on another thread
 * (the program exits meanwhile) is left alone. */
__attribute__((destructor)) static void perfproc_unload(void)
{
    if (pthread_mutex_trylock(&S.lock) != 0) return;
    if (S.opened > 0) release_all();
    pthread_mutex_unlock(&S.lock);
}

PL_PROVIDER_EXPORT DWORD PerfProcClose(void)
{
    pthread_mutex_lock(&S.lock);
    if (S.opened > 0 && --S.opened == 0) release_all();
    pthread_mutex_unlock(&S.lock);
    return ERROR_SUCCESS;
}

/* The provider's note (provider.h, PL_NOTE_SUFFIX): which source Process
 * and Thread come from now, and why not the BPF one. */
PL_PROVIDER_EXPORT DWORD PerfProcCollectNote(char *text, DWORD cap)
{
    if (!text || cap == 0) return ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&S.lock);
    int n;
    if (S.bpf && S.passes > S.failed_passes)
        n = snprintf(text, cap,
                     "Process and Thread from the BPF task iterator (last pass: %zu tasks, %zu processes, %zu of "
                     "them read from /proc)",
                     S.last_tasks, S.last_procs, S.last_from_proc);
    else if (S.bpf)
        n = snprintf(text, cap, "Process and Thread from the BPF task iterator");
    else if (S.why[0])
        n = snprintf(text, cap, "Process and Thread from /proc; BPF task iterator not used: %s", S.why);
    else
        n = snprintf(text, cap, "%s", S.opened ? "Process and Thread from /proc" : "");
    if (n >= 0 && (DWORD)n < cap && S.failed_passes)
        snprintf(text + n, cap - (DWORD)n, "; %llu of %llu passes failed and were read from /proc, the last: %s",
                 (unsigned long long)S.failed_passes, (unsigned long long)S.passes, S.pass_err);
    pthread_mutex_unlock(&S.lock);
    return ERROR_SUCCESS;
}
