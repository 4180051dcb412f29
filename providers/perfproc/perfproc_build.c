/* perflib: PerfProc's build phase (perfproc_int.h): the objects'
 * definitions (every counter's index, type and detail level, the groups a
 * source's failure marks unavailable), Windows' priorities, states and wait
 * reasons for Linux's, each process's Process, Thread, Image and Process
 * Address Space instances from what the read phase kept, the peaks and
 * commit charges kept between collections, and one collection's block:
 * Idle, the processes in pid order, _Total. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

/* What PerfProc keeps of each process between collections (pid + start
 * time), in pid order: its Page File Bytes peak, and its commit charge
 * from smaps with the status sizes it was read at (read again when one of
 * them changed: issue 33 item 7). */
struct pp_peak {
    int32_t pid;
    uint64_t start;
    uint64_t pfb_peak;    /* Page File Bytes, bytes */
    uint64_t vm_size, vm_data, vm_stk; /* kB, status: the commit below was read at these */
    pl_smaps_commit commit;
    int commit_rc;        /* 0 read; -errno: smaps unreadable (marked); 1: not read yet */
};

/* The objects' PerfTime (docs/providers/perfproc.md, "The objects'
 * clock"): the boot time taken at Open plus CLOCK_BOOTTIME, a FILETIME
 * that a step of the wall clock never moves (issue 33 item 3). Elapsed
 * Time is (PerfTime - start) / PerfFreq and both count from that boot
 * time. Equal to the wall clock until the wall clock is stepped. On a tree
 * whose boot time is not this machine's: the wall clock. */
static int64_t object_now(void)
{
    return pl__pp_state.boot_live ? pl__pp_state.boot_ft + pl__boot_time_now() : pl__filetime_now();
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
    int rc = pl_builder_add_object(pl__pp_state.b, &d, obj);
    for (int i = 0; rc == PL_OK && i < n; i++) {
        pl_counter_desc c = {
            .name_index = rows[i].index,
            .help_index = PL_HELP(rows[i].index),
            .type = rows[i].type,
            .detail_level = rows[i].detail,
            .default_scale = rows[i].scale,
        };
        int h;
        rc = pl_builder_add_counter(pl__pp_state.b, *obj, &c, &h);
        if (rc == PL_OK && h != i) rc = PL_E_INVAL;
    }
    return rc;
}

static int put_values(int obj, int inst, const uint64_t *v, int n)
{
    for (int i = 0; i < n; i++) {
        int rc = pl_builder_set_u64(pl__pp_state.b, obj, inst, i, v[i]);
        if (rc != PL_OK) return rc;
    }
    return PL_OK;
}

static int add_inst(int obj, const char *name, uint32_t parent_idx, uint32_t parent_pos, int *inst)
{
    char tmp[PL_PROC_COMM_MAX];
    return pl_builder_add_instance(pl__pp_state.b, obj, clean_name(name, tmp, sizeof tmp), parent_idx, parent_pos,
                                   PERF_NO_UNIQUE_ID, inst);
}

/* ------------------------------------------------------- peaks */

int pl__pp_peaks_reserve(size_t n)
{
    if (n <= pl__pp_state.peak_cap) return 0;
    size_t cap = pl__pp_state.peak_cap ? pl__pp_state.peak_cap : 1024;
    while (cap < n) cap *= 2;
    struct pp_peak *a = realloc(pl__pp_state.peaks, cap * sizeof *a);
    if (!a) return -ENOMEM;
    pl__pp_state.peaks = a;
    struct pp_peak *b = realloc(pl__pp_state.npeaks, cap * sizeof *b);
    if (!b) return -ENOMEM;
    pl__pp_state.npeaks = b;
    pl__pp_state.peak_cap = cap;
    return 0;
}

/* The entry of this process for this collection, with what the previous
 * collection kept of it (a fresh one for a new process). The previous
 * collection's entries are sorted by pid and so are the pids of this one,
 * so the look-up is a merge: `cursor` only moves forward. NULL only when
 * the table is full (cannot happen: reserved for every listed pid). */
static struct pp_peak *memo_next(size_t *cursor, int32_t pid, uint64_t start)
{
    while (*cursor < pl__pp_state.npeak && pl__pp_state.peaks[*cursor].pid < pid) (*cursor)++;
    if (pl__pp_state.nnpeak >= pl__pp_state.peak_cap) return NULL;
    struct pp_peak *m = &pl__pp_state.npeaks[pl__pp_state.nnpeak++];
    if (*cursor < pl__pp_state.npeak && pl__pp_state.peaks[*cursor].pid == pid &&
        pl__pp_state.peaks[*cursor].start == start) {
        *m = pl__pp_state.peaks[*cursor];
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
static int commit_of(struct pp_peak *m, const pl_proc_status *ss)
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
    ssize_t len = pl__slurp_at(pl__pp_state.procfd, rel, &buf);
    if (len < 0) m->commit_rc = (int)len;
    else m->commit_rc = pl__text_complete(buf, (size_t)len) ? pl__parse_smaps_commit(buf, &m->commit) : -EINVAL;
    free(buf);
    if (m->commit_rc == 0 && m->commit.mappings == 0) m->commit_rc = -ESRCH; /* it exited meanwhile */
    return m->commit_rc;
}

static void peaks_commit(void)
{
    struct pp_peak *t = pl__pp_state.peaks;
    pl__pp_state.peaks = pl__pp_state.npeaks;
    pl__pp_state.npeaks = t;
    pl__pp_state.npeak = pl__pp_state.nnpeak;
    pl__pp_state.nnpeak = 0;
}

/* ------------------------------------------------------- costly objects */

/* The Image instances (one per executable file mapped, in the order of
 * their first mapping) and the Process Address Space instance of one
 * process, from what the read phase kept. `pos` is its Process position. */
static int build_costly(const pp_slot *s, const pp_arena *ar, uint32_t pos, int img_obj, int pas_obj)
{
    const pp_pas *c = s->pas;
    if (!c || c->state != PP_OK) return PL_OK; /* gone meanwhile */
    int rc = PL_OK;
    for (size_t i = 0; img_obj >= 0 && i < c->ni && rc == PL_OK; i++) {
        const pp_image *im = &ar->img[c->i0 + i];
        int inst;
        char tmp[256];
        rc = pl_builder_add_instance(pl__pp_state.b, img_obj, clean_name(im->name, tmp, sizeof tmp), PL_OBJ_PROCESS,
                                     pos, PERF_NO_UNIQUE_ID, &inst);
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

static void fill_process(const pp_slot *pi, const struct pp_peak *m, uint64_t *v)
{
    const pl_proc_stat *st = &pi->st;
    const pl_proc_status *ss = &pi->ss;
    memset(v, 0, sizeof(uint64_t) * P_COUNT);
    uint64_t ut = st->utime * pl__pp_state.tick_100ns, kt = st->stime * pl__pp_state.tick_100ns;
    v[P_PCT_PROC] = ut + kt;
    v[P_PCT_USER] = ut;
    v[P_PCT_PRIV] = kt;
    v[P_VIRT] = st->vsize;
    v[P_PAGE_FAULTS] = st->minflt + st->majflt;
    v[P_WS] = st->rss * pl__pp_state.page_size;
    v[P_THREADS] = st->num_threads;
    v[P_PRIO] = base_priority(st->policy, st->rt_priority, st->nice);
    v[P_ELAPSED] = (uint64_t)pl__pp_state.boot_ft + st->starttime * pl__pp_state.tick_100ns;
    v[P_PID] = (uint64_t)st->pid;
    v[P_PPID] = (uint64_t)st->ppid;
    v[P_MAJ] = st->majflt;
    v[P_MIN] = st->minflt;
    v[P_NICE] = (uint32_t)(int32_t)st->nice;
    v[P_LASTCPU] = st->processor < 0 ? 0 : (uint64_t)st->processor;
    v[P_STATE] = (uint8_t)st->state;
    uint32_t unav = pi->unav | UNAV_IO_OTHER | UNAV_POOL | (pl__pp_state.have_boot ? 0 : UNAV_BOOT) |
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

static void thread_total_add(struct pp_thread_total *tt, const uint64_t *v)
{
    for (int k = 0; k < T_COUNT; k++) tt->v[k] += v[k];
    tt->unav |= v[T_UNAV];
}

/* The Thread instances of one process from what the read phase kept;
 * returns PL_OK, or a builder error. */
static int build_threads(const pp_slot *s, const pp_arena *a, uint32_t ppos, int tobj, struct pp_thread_total *tt)
{
    int rc = PL_OK;
    for (size_t i = 0; i < s->nt && rc == PL_OK; i++) {
        const pp_thread *t = &a->t[s->t0 + i];
        const pl_proc_stat *st = &t->st;
        uint32_t unav = t->unav | (pl__pp_state.have_boot ? 0 : UNAV_BOOT);
        uint64_t v[T_COUNT];
        uint64_t ut = st->utime * pl__pp_state.tick_100ns, kt = st->stime * pl__pp_state.tick_100ns;
        v[T_PCT_PROC] = ut + kt;
        v[T_PCT_USER] = ut;
        v[T_PCT_PRIV] = kt;
        v[T_CSW] = t->ss.slices;
        v[T_ELAPSED] = (uint64_t)pl__pp_state.boot_ft + st->starttime * pl__pp_state.tick_100ns;
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
        rc = pl_builder_add_instance(pl__pp_state.b, tobj, name, PL_OBJ_PROCESS, ppos, PERF_NO_UNIQUE_ID, &inst);
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
static int idle_threads(int tobj, uint32_t iunav, struct pp_thread_total *tt)
{
    uint64_t v[T_COUNT];
    int rc = PL_OK;
    /* /proc/stat unreadable or malformed: no Idle threads, and _Total/_Total
     * would miss their part (as _Total misses Idle's) */
    if (iunav & UNAV_PROCSTAT) tt->unav |= POSITIONS(UNAV_PROCSTAT, thread_groups);
    for (size_t i = 0; i < pl__pp_state.ncpus && rc == PL_OK; i++) {
        memset(v, 0, sizeof v);
        /* the CPU's idle ticks kept continuous across hotplug; marked in the
         * collection that has no honest difference for it (it came back,
         * or its count restarted) */
        uint64_t ticks = 0, m = 0;
        if (pl__cpu_track_get(&pl__pp_state.idle_track, pl__pp_state.cpu_ids[i], &ticks, &m) != 0) m = 1;
        v[T_PCT_PROC] = v[T_PCT_PRIV] = ticks * pl__pp_state.tick_100ns;
        v[T_ELAPSED] = (uint64_t)pl__pp_state.boot_ft;
        v[T_STATE] = thread_state('R');
        v[T_WAIT] = wait_reason('R');
        v[T_LASTCPU] = pl__pp_state.cpu_ids[i];
        v[T_UNAV] = POSITIONS(UNAV_IDLE_THREAD | (iunav & UNAV_BOOT) | (m ? UNAV_PROCSTAT : 0), thread_groups);
        zero_marked(v, T_COUNT, v[T_UNAV]);
        char name[12];
        pl__fmt_i32(name, (int32_t)pl__pp_state.cpu_ids[i]);
        int inst;
        rc = pl_builder_add_instance(pl__pp_state.b, tobj, name, PL_OBJ_PROCESS, 0, PERF_NO_UNIQUE_ID, &inst);
        if (rc == PL_OK) rc = put_values(tobj, inst, v, T_COUNT);
        thread_total_add(tt, v);
    }
    return rc;
}

/* The instances of one read process (PP_OK), in pid order. */
int pl__pp_build_one(struct pp_build *bd, const pp_slot *s, const pp_arena *a)
{
    int rc = PL_OK;
    if (bd->want_p) {
        uint64_t v[P_COUNT];
        int inst;
        struct pp_peak *m = memo_next(&bd->cursor, s->st.pid, s->st.starttime);
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

/* `only` >= 0: the query's "pid=N" (pl_query_process_filter): the Thread,
 * Image and Process Address Space instances of that process only, the
 * Process object whole (their parent positions refer to it); with a filter,
 * Thread has no _Total/_Total, and Idle/N only for pid=0 (the Idle
 * process's threads). */
int pl__pp_collect(const pl_query_items *q, int64_t only)
{
    int want_p = pl_query_wants(q, PL_OBJ_PROCESS, 0);
    int want_t = pl_query_wants(q, PL_OBJ_THREAD, 0);
    int want_i = pl_query_wants(q, PL_OBJ_IMAGE, 1);
    int want_a = pl_query_wants(q, PL_OBJ_PROCESS_ADDRESS_SPACE, 1);
    /* An index query for Thread or Image brings their parent Process from
     * the same snapshot: parent positions in a second, later snapshot could
     * point at other processes. */
    if (q->kind == PL_QUERY_KIND_ITEMS && (want_t || want_i)) want_p = 1;
    pl_builder_reset(pl__pp_state.b);
    if (!want_p && !want_t && !want_i && !want_a) return PL_OK;

    /* One snapshot time for every object, taken before anything is read. */
    int64_t now = object_now();
    struct pp_build bd;
    memset(&bd, 0, sizeof bd);
    bd.o = (struct pp_objs){-1, -1, -1, -1};
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
        uint32_t iunav = pl__pp_state.have_boot ? 0 : UNAV_BOOT;
        if (pl__pp_read_cpu_idle(&ncpu) != 0) iunav |= UNAV_PROCSTAT;
        else pl__cpu_track_sum(&pl__pp_state.idle_track, PL__CPU_TRACK_ALL, &idle, &m);
        if (m) iunav |= UNAV_PROCSTAT;
        memset(v, 0, sizeof v);
        v[P_PCT_PROC] = v[P_PCT_PRIV] = idle * pl__pp_state.tick_100ns;
        v[P_THREADS] = ncpu;
        v[P_ELAPSED] = (uint64_t)pl__pp_state.boot_ft;
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

    ssize_t np = pl__proc_list_numeric(pl__pp_state.procfd, &pl__pp_state.pids);
    if (np < 0) return np == -ENOMEM ? PL_E_NOMEM : PL_E_OS;
    if (pl__pp_peaks_reserve((size_t)np) != 0) return PL_E_NOMEM;
    pl__pp_state.nnpeak = 0;
    bd.pos = 1; /* Idle is position 0 */
    /* The BPF source gives Process and Thread; the costly objects read
     * maps and smaps_rollup, so a query for them is read from /proc whole
     * (their instances and the processes they belong to from one reading). */
    rc = PP_FALLBACK;
    if (pl__pp_state.bpf && bd.o.image < 0 && bd.o.pas < 0) rc = pl__pp_collect_processes_bpf(&bd);
    if (rc == PP_FALLBACK) rc = pl__pp_collect_processes(&bd);
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
            rc = pl_builder_add_instance(pl__pp_state.b, bd.o.thread, "_Total", PL_OBJ_PROCESS, bd.pos,
                                         PERF_NO_UNIQUE_ID, &inst);
            if (rc == PL_OK) rc = put_values(bd.o.thread, inst, tv, T_COUNT);
        }
    }
    return rc;
}
