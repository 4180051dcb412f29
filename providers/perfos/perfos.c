/* perflib: the PerfOS built-in provider: System (2), Memory (4), Processor
 * (238), Paging File (700), Objects (260) and Processor Information, from
 * /proc (and cpuidle, cpufreq and the NUMA nodes in /sys) under
 * PERFLIB_SYSROOT. Processor and Processor Information: perfos_cpu.c.
 *
 * Every counter, its source and each decision taken in mapping Linux to the
 * Windows meaning are in docs/providers/perfos.md. The rules in short:
 * - a counter whose source cannot be read (file absent, permission denied,
 *   malformed, a field the kernel does not have) is left out of the object's
 *   definition for that collection, never reported as zero; an object with
 *   no counter left is left out;
 * - timers are in 100 ns units (PerfFreq 10^7, PERF_100NSEC_*), rates of
 *   64-bit kernel totals are PERF_COUNTER_BULK_COUNT;
 * - a value whose source is there but unusable (and the counters Linux has
 *   no source for) stays in the object, marked in its Unavailable Counters;
 * - every Processor timer divides by the CPU's column sum of /proc/stat
 *   (PERF_PRECISION_100NS_TIMER); each CPU's counts are kept continuous
 *   across CPU hotplug and _Total sums only what the CPUs present in both
 *   readings of an interval added (perfos_cpu.c, cpu_track.c). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/collect_os.h"
#include "linux/collect_sys.h"
#include "perflib/indices.h"
#include "perflib/provider.h"
#include "perfos_cpu.h"
#include "platform.h"

#ifndef ERROR_INVALID_DATA
#define ERROR_INVALID_DATA 13u /* Win32 value; not (yet) in wintypes.h */
#endif

#define MAX_SINGLE 64 /* counters of an object without instances */

typedef struct peak {
    char name[PL__SWAP_NAME_MAX];
    uint64_t used_kib;
} peak;

static struct perfos {
    pthread_mutex_t mu;
    int opens;
    int rootfd;
    int live;             /* rootfd is the live "/" (PerfOsCollectNonBlocking) */
    long hz;
    pl_builder *b;
    struct pl__cpu_stats st;
    pl__perfos_cpu cpu;   /* Processor and Processor Information (perfos_cpu.c) */
    struct pl__swaps sw;
    peak *peaks;          /* per swap area name: highest used seen since Open */
    uint32_t npeaks, peak_cap;
    uint64_t total_peak_kib;
    int have_total_peak;
    /* per Collect: the visible processes and threads, counted once for
     * System and Objects (0: not yet, 1: counted, -1: cannot be) */
    int np_state, nt_state;
    uint64_t np, nt;
} g = {.mu = PTHREAD_MUTEX_INITIALIZER, .rootfd = -1};

/* ------------------------------------------------------------ helpers */

typedef struct val {
    pl_counter_desc d;
    uint64_t v, base;
    int unav;             /* the source was there but its value is not a number we can show */
} val;

typedef struct vlist {
    val v[MAX_SINGLE];
    int n;
} vlist;

static void put(vlist *l, uint32_t idx, uint32_t type, int32_t scale, uint32_t detail, uint64_t v)
{
    if (l->n >= MAX_SINGLE) return;
    val *x = &l->v[l->n++];
    memset(x, 0, sizeof *x);
    x->d.name_index = idx;
    x->d.help_index = PL_HELP(idx);
    x->d.type = type;
    x->d.detail_level = detail;
    x->d.default_scale = scale;
    /* 32-bit counters saturate rather than wrap */
    if ((type & PERF_SIZE_MASK) == PERF_SIZE_DWORD && v > UINT32_MAX) v = UINT32_MAX;
    x->v = v;
}

/* PERF_RAW_FRACTION + PERF_RAW_BASE: both 32-bit, so a numerator and
 * denominator (KiB) are halved together until both fit; the ratio is kept. */
static void frac32(uint64_t *num, uint64_t *den)
{
    while (*num > UINT32_MAX || *den > UINT32_MAX) {
        *num >>= 1;
        *den >>= 1;
    }
}

static void put_frac(vlist *l, uint32_t idx, uint32_t detail, uint64_t num_kib, uint64_t den_kib)
{
    if (l->n >= MAX_SINGLE) return;
    frac32(&num_kib, &den_kib);
    put(l, idx, PERF_RAW_FRACTION, 0, detail, num_kib);
    val *x = &l->v[l->n - 1];
    x->d.base_type = PERF_RAW_BASE;
    x->d.base_name_index = idx;
    x->base = den_kib;
}

/* A counter whose source line is present but unusable (malformed, beyond
 * 64 bits): it stays in the object, written as 0 and marked in the
 * object's "Unavailable Counters" (docs/block-format.md), never a number. */
static void put_bad(vlist *l, uint32_t idx, uint32_t type, int32_t scale, uint32_t detail)
{
    put(l, idx, type, scale, detail, 0);
    if (l->n > 0 && l->v[l->n - 1].d.name_index == idx) l->v[l->n - 1].unav = 1;
}

static void put_bad_frac(vlist *l, uint32_t idx, uint32_t detail)
{
    put_frac(l, idx, detail, 0, 0);
    if (l->n > 0 && l->v[l->n - 1].d.name_index == idx) l->v[l->n - 1].unav = 1;
}

static int64_t now_filetime(void)
{
    return pl__filetime_now();
}

/* An object without instances from a list of (counter, value). */
static int emit_single(pl_builder *b, uint32_t obj_index, int64_t perf_time, const vlist *l)
{
    int real = 0;
    for (int i = 0; i < l->n; i++) real += !l->v[i].unav;
    if (real == 0) return PL_OK; /* nothing could be read: no object */
    pl_object_desc od = {
        .name_index = obj_index,
        .help_index = PL_HELP(obj_index),
        .detail_level = PERF_DETAIL_NOVICE,
        .default_counter = 0,
        .has_instances = 0,
        .perf_time = perf_time,
        .perf_freq = PL_TICKS_PER_SEC,
    };
    int obj, rc = pl_builder_add_object(b, &od, &obj);
    if (rc != PL_OK) return rc;
    int h[MAX_SINGLE];
    uint64_t unav = 0;
    uint32_t pos = 0;
    for (int i = 0; i < l->n; i++) {
        if ((rc = pl_builder_add_counter(b, obj, &l->v[i].d, &h[i])) != PL_OK) return rc;
        if (l->v[i].unav) unav |= PL_UNAVAILABLE_BIT(pos);
        if (l->v[i].unav && l->v[i].d.base_type) unav |= PL_UNAVAILABLE_BIT(pos + 1);
        pos += l->v[i].d.base_type ? 2u : 1u;
    }
    for (int i = 0; i < l->n; i++) {
        if ((rc = pl_builder_set_u64(b, obj, -1, h[i], l->v[i].v)) != PL_OK) return rc;
        if (l->v[i].d.base_type && (rc = pl_builder_set_base(b, obj, -1, h[i], l->v[i].base)) != PL_OK)
            return rc;
    }
    if (unav) {
        /* the generic marker, last: only when something is unavailable */
        pl_counter_desc md = {
            .name_index = PL_CTR_UNAVAILABLE_COUNTERS,
            .help_index = PL_HELP(PL_CTR_UNAVAILABLE_COUNTERS),
            .type = PERF_COUNTER_LARGE_RAWCOUNT_HEX,
            .detail_level = PERF_DETAIL_WIZARD,
        };
        int m;
        if ((rc = pl_builder_add_counter(b, obj, &md, &m)) != PL_OK) return rc;
        if ((rc = pl_builder_set_u64(b, obj, -1, m, unav)) != PL_OK) return rc;
    }
    return PL_OK;
}

/* ------------------------------------------- processes and threads */

/* The processes the reader can see: the pid directories of /proc. Counted
 * once per Collect, for System and Objects. 0 or -1. */
static int visible_processes(uint64_t *n)
{
    if (g.np_state == 0) g.np_state = pl__count_proc_pids(g.rootfd, &g.np) == 0 ? 1 : -1;
    *n = g.np;
    return g.np_state > 0 ? 0 : -1;
}

/* Threads: what the reader can see, like Processes (issue 11 item 6).
 * loadavg's count (la, NULL when unreadable) is the whole machine's,
 * right only in the initial PID namespace; elsewhere (a container,
 * unshare -p --mount-proc) the visible processes' thread counts are
 * summed. Once per Collect. 0 or -1. */
static int visible_threads(const struct pl__loadavg *la, uint64_t *n)
{
    if (g.nt_state == 0) {
        if (pl__proc_is_initial_pidns(g.rootfd)) {
            g.nt_state = la ? 1 : -1;
            if (la) g.nt = la->threads;
        } else {
            g.nt_state = pl__count_proc_threads(g.rootfd, &g.nt) == 0 ? 1 : -1;
        }
    }
    *n = g.nt;
    return g.nt_state > 0 ? 0 : -1;
}

/* ------------------------------------------------------------- System */

static int build_system(pl_builder *b, int have_stat)
{
    const struct pl__cpu_stats *st = &g.st;
    vlist *l = calloc(1, sizeof *l);
    if (!l) return PL_E_NOMEM;
    int64_t now = now_filetime();

    if (have_stat && (st->have & PL__STAT_HAVE_RUNNING)) {
        /* Windows counts ready threads that are not running; Linux counts
         * runnable tasks including those on a CPU: the excess over the
         * online CPUs is the queue. */
        uint64_t q = st->procs_running > st->ncpu ? st->procs_running - st->ncpu : 0;
        put(l, PL_CTR_PROCESSOR_QUEUE_LENGTH, PERF_COUNTER_RAWCOUNT, 1, PERF_DETAIL_NOVICE, q);
    }
    uint64_t npids, nthreads;
    if (visible_processes(&npids) == 0)
        put(l, PL_CTR_PROCESSES, PERF_COUNTER_RAWCOUNT, -1, PERF_DETAIL_NOVICE, npids);
    struct pl__loadavg la;
    int have_la = pl__read_proc_loadavg(g.rootfd, &la) == 0;
    if (visible_threads(have_la ? &la : NULL, &nthreads) == 0)
        put(l, PL_CTR_THREADS, PERF_COUNTER_RAWCOUNT, -1, PERF_DETAIL_NOVICE, nthreads);

    /* System Up Time: PERF_ELAPSED_TIME, value = boot time as FILETIME,
     * the object's PerfTime = now (FILETIME), PerfFreq = 10^7. */
    int64_t boot = 0;
    int have_boot = 0;
    if (have_stat && (st->have & PL__STAT_HAVE_BTIME) &&
        st->btime <= (uint64_t)(INT64_MAX - PL_FILETIME_UNIX_EPOCH) / PL_TICKS_PER_SEC) {
        /* btime is whole seconds: made precise from the clocks (issue 11
         * item 5) when they agree with it */
        boot = pl__boot_ft_precise(st->btime);
        have_boot = 1;
    } else {
        struct pl__uptime up;
        if (pl__read_proc_uptime(g.rootfd, &up) == 0 && up.up_cs < (uint64_t)INT64_MAX / 100000) {
            boot = now - (int64_t)up.up_cs * 100000;
            have_boot = 1;
        }
    }
    if (have_boot && boot > 0 && boot <= now)
        put(l, PL_CTR_SYSTEM_UP_TIME, PERF_ELAPSED_TIME, -5, PERF_DETAIL_NOVICE, (uint64_t)boot);

    if (have_stat && (st->have & PL__STAT_HAVE_CTXT))
        put(l, PL_CTR_CONTEXT_SWITCHES_PER_SEC, PERF_COUNTER_BULK_COUNT, -2, PERF_DETAIL_NOVICE, st->ctxt);

    if (have_la) {
        /* load averages times 100: 1.50 is 150 (DefaultScale -2) */
        put(l, PL_CTR_LOAD_AVERAGE_1MIN, PERF_COUNTER_RAWCOUNT, -2, PERF_DETAIL_NOVICE, la.load100[0]);
        put(l, PL_CTR_LOAD_AVERAGE_5MIN, PERF_COUNTER_RAWCOUNT, -2, PERF_DETAIL_NOVICE, la.load100[1]);
        put(l, PL_CTR_LOAD_AVERAGE_15MIN, PERF_COUNTER_RAWCOUNT, -2, PERF_DETAIL_NOVICE, la.load100[2]);
    }

    static const struct {
        enum pl__psi_resource res;
        uint32_t some_avg, some_total, full_avg, full_total;
    } psi[] = {
        {PL__PSI_CPU, PL_CTR_CPU_PRESSURE_SOME_AVG10, PL_CTR_CPU_PRESSURE_SOME_TOTAL, PL_CTR_CPU_PRESSURE_FULL_AVG10,
         PL_CTR_CPU_PRESSURE_FULL_TOTAL},
        {PL__PSI_MEMORY, PL_CTR_MEMORY_PRESSURE_SOME_AVG10, PL_CTR_MEMORY_PRESSURE_SOME_TOTAL,
         PL_CTR_MEMORY_PRESSURE_FULL_AVG10, PL_CTR_MEMORY_PRESSURE_FULL_TOTAL},
        {PL__PSI_IO, PL_CTR_IO_PRESSURE_SOME_AVG10, PL_CTR_IO_PRESSURE_SOME_TOTAL, PL_CTR_IO_PRESSURE_FULL_AVG10,
         PL_CTR_IO_PRESSURE_FULL_TOTAL},
    };
    for (size_t i = 0; i < sizeof psi / sizeof psi[0]; i++) {
        struct pl__psi p;
        if (pl__read_proc_pressure(g.rootfd, psi[i].res, &p) != 0) continue;
        /* avg10 is a percentage with two decimals: times 100 (DefaultScale
         * -2); the total (microseconds stalled) times 10 is 100 ns of stall,
         * a PERF_100NSEC_TIMER: it formats as the % of wall time stalled over
         * the sample interval. */
        put(l, psi[i].some_avg, PERF_COUNTER_RAWCOUNT, -2, PERF_DETAIL_ADVANCED, p.some.avg100[0]);
        put(l, psi[i].some_total, PERF_100NSEC_TIMER, 0, PERF_DETAIL_ADVANCED,
            p.some.total_us > UINT64_MAX / 10 ? UINT64_MAX : p.some.total_us * 10);
        if (p.have_full) {
            put(l, psi[i].full_avg, PERF_COUNTER_RAWCOUNT, -2, PERF_DETAIL_ADVANCED, p.full.avg100[0]);
            put(l, psi[i].full_total, PERF_100NSEC_TIMER, 0, PERF_DETAIL_ADVANCED,
                p.full.total_us > UINT64_MAX / 10 ? UINT64_MAX : p.full.total_us * 10);
        }
    }

    if (have_stat && (st->have & PL__STAT_HAVE_RUNNING))
        put(l, PL_CTR_PROCESSES_RUNNING, PERF_COUNTER_RAWCOUNT, 0, PERF_DETAIL_ADVANCED, st->procs_running);
    if (have_stat && (st->have & PL__STAT_HAVE_BLOCKED))
        put(l, PL_CTR_PROCESSES_BLOCKED, PERF_COUNTER_RAWCOUNT, 0, PERF_DETAIL_ADVANCED, st->procs_blocked);
    if (have_stat && (st->have & PL__STAT_HAVE_PROCESSES))
        put(l, PL_CTR_FORKS_PER_SEC, PERF_COUNTER_BULK_COUNT, 0, PERF_DETAIL_ADVANCED, st->processes);

    /* No Linux source: offered (valid paths), marked unavailable, the help
     * texts say why. */
    put_bad(l, PL_CTR_SYSTEM_CALLS_PER_SEC, PERF_COUNTER_BULK_COUNT, -1, PERF_DETAIL_NOVICE);
    put_bad(l, PL_CTR_FILE_READ_OPERATIONS_PER_SEC, PERF_COUNTER_BULK_COUNT, -1, PERF_DETAIL_NOVICE);
    put_bad(l, PL_CTR_FILE_WRITE_OPERATIONS_PER_SEC, PERF_COUNTER_BULK_COUNT, -1, PERF_DETAIL_NOVICE);
    put_bad(l, PL_CTR_FILE_READ_BYTES_PER_SEC, PERF_COUNTER_BULK_COUNT, -4, PERF_DETAIL_NOVICE);
    put_bad(l, PL_CTR_FILE_WRITE_BYTES_PER_SEC, PERF_COUNTER_BULK_COUNT, -4, PERF_DETAIL_NOVICE);
    int rc = emit_single(b, PL_OBJ_SYSTEM, now, l);
    free(l);
    return rc;
}

/* ------------------------------------------------------------- Memory */

static int build_memory(pl_builder *b)
{
    struct pl__meminfo m;
    struct pl__vmstat vm;
    int have_m = pl__read_proc_meminfo(g.rootfd, &m) == 0;
    int have_vm = pl__read_proc_vmstat(g.rootfd, &vm) == 0;
    if (!have_m) memset(&m, 0, sizeof m);
    if (!have_vm) memset(&vm, 0, sizeof vm);
    vlist *l = calloc(1, sizeof *l);
    if (!l) return PL_E_NOMEM;
#define HAS(f) pl__mem_has(&m, f)
#define BAD(f) ((m.bad >> (f)) & 1u)
#define VM(f) ((vm.have >> (f)) & 1u)
    const uint32_t LRAW = PERF_COUNTER_LARGE_RAWCOUNT;
    if (HAS(PL__MEM_AVAILABLE)) {
        uint64_t a = m.v[PL__MEM_AVAILABLE];
        put(l, PL_CTR_AVAILABLE_BYTES, LRAW, -6, PERF_DETAIL_NOVICE, a);
        put(l, PL_CTR_AVAILABLE_KBYTES, LRAW, -3, PERF_DETAIL_NOVICE, a / 1024);
        put(l, PL_CTR_AVAILABLE_MBYTES, LRAW, 0, PERF_DETAIL_NOVICE, a / (1024 * 1024));
    } else if (BAD(PL__MEM_AVAILABLE)) {
        put_bad(l, PL_CTR_AVAILABLE_BYTES, LRAW, -6, PERF_DETAIL_NOVICE);
        put_bad(l, PL_CTR_AVAILABLE_KBYTES, LRAW, -3, PERF_DETAIL_NOVICE);
        put_bad(l, PL_CTR_AVAILABLE_MBYTES, LRAW, 0, PERF_DETAIL_NOVICE);
    }
    if (HAS(PL__MEM_COMMITTED_AS))
        put(l, PL_CTR_COMMITTED_BYTES, LRAW, -6, PERF_DETAIL_NOVICE, m.v[PL__MEM_COMMITTED_AS]);
    else if (BAD(PL__MEM_COMMITTED_AS))
        put_bad(l, PL_CTR_COMMITTED_BYTES, LRAW, -6, PERF_DETAIL_NOVICE);
    if (HAS(PL__MEM_COMMIT_LIMIT))
        put(l, PL_CTR_COMMIT_LIMIT, LRAW, -6, PERF_DETAIL_ADVANCED, m.v[PL__MEM_COMMIT_LIMIT]);
    else if (BAD(PL__MEM_COMMIT_LIMIT))
        put_bad(l, PL_CTR_COMMIT_LIMIT, LRAW, -6, PERF_DETAIL_ADVANCED);
    if (HAS(PL__MEM_COMMITTED_AS) && HAS(PL__MEM_COMMIT_LIMIT))
        put_frac(l, PL_CTR_PCT_COMMITTED_BYTES_IN_USE, PERF_DETAIL_NOVICE, m.v[PL__MEM_COMMITTED_AS] / 1024,
                 m.v[PL__MEM_COMMIT_LIMIT] / 1024);
    else if ((HAS(PL__MEM_COMMITTED_AS) || BAD(PL__MEM_COMMITTED_AS)) &&
             (HAS(PL__MEM_COMMIT_LIMIT) || BAD(PL__MEM_COMMIT_LIMIT)))
        put_bad_frac(l, PL_CTR_PCT_COMMITTED_BYTES_IN_USE, PERF_DETAIL_NOVICE);
    if (VM(PL__VM_PGFAULT))
        put(l, PL_CTR_PAGE_FAULTS_PER_SEC, PERF_COUNTER_BULK_COUNT, -1, PERF_DETAIL_NOVICE, vm.v[PL__VM_PGFAULT]);
    /* Windows' meaning: pages read from disk to resolve hard faults, mapped
     * files included (issue 11 item 4). The kernel counts hard faults
     * (pgmajfault: file and swap), not the readahead pages read with them,
     * so one page per hard fault: a lower bound. Output: pages written to
     * swap (writeback of mapped files is not told apart from write()). */
    if (VM(PL__VM_PGMAJFAULT) && VM(PL__VM_PSWPOUT))
        put(l, PL_CTR_PAGES_PER_SEC, PERF_COUNTER_BULK_COUNT, 0, PERF_DETAIL_NOVICE,
            vm.v[PL__VM_PGMAJFAULT] + vm.v[PL__VM_PSWPOUT]);
    if (VM(PL__VM_PGMAJFAULT))
        put(l, PL_CTR_PAGES_INPUT_PER_SEC, PERF_COUNTER_BULK_COUNT, 0, PERF_DETAIL_ADVANCED,
            vm.v[PL__VM_PGMAJFAULT]);
    if (VM(PL__VM_PSWPOUT))
        put(l, PL_CTR_PAGES_OUTPUT_PER_SEC, PERF_COUNTER_BULK_COUNT, 0, PERF_DETAIL_ADVANCED, vm.v[PL__VM_PSWPOUT]);
    if (VM(PL__VM_PGMAJFAULT))
        put(l, PL_CTR_PAGE_READS_PER_SEC, PERF_COUNTER_BULK_COUNT, 0, PERF_DETAIL_ADVANCED,
            vm.v[PL__VM_PGMAJFAULT]);
    /* Cache Bytes and System Cache Resident Bytes: Windows documents the
     * two as equivalent (the resident file cache); Linux's page cache is
     * resident by nature (its pages are dropped, never paged out). */
    static const uint32_t cache_idx[] = {PL_CTR_CACHE_BYTES, PL_CTR_SYSTEM_CACHE_RESIDENT_BYTES};
    for (size_t k = 0; k < sizeof cache_idx / sizeof cache_idx[0]; k++) {
        if (HAS(PL__MEM_BUFFERS) && HAS(PL__MEM_CACHED) && HAS(PL__MEM_SRECLAIMABLE))
            put(l, cache_idx[k], LRAW, -6, PERF_DETAIL_ADVANCED,
                m.v[PL__MEM_BUFFERS] + m.v[PL__MEM_CACHED] + m.v[PL__MEM_SRECLAIMABLE]);
        else if ((HAS(PL__MEM_BUFFERS) || BAD(PL__MEM_BUFFERS)) && (HAS(PL__MEM_CACHED) || BAD(PL__MEM_CACHED)) &&
                 (HAS(PL__MEM_SRECLAIMABLE) || BAD(PL__MEM_SRECLAIMABLE)))
            put_bad(l, cache_idx[k], LRAW, -6, PERF_DETAIL_ADVANCED);
    }

    static const struct {
        uint32_t idx;
        enum pl__mem_field f;
        int32_t scale;
    } linux_only[] = {
        {PL_CTR_TOTAL_BYTES, PL__MEM_TOTAL, -6},          {PL_CTR_FREE_BYTES, PL__MEM_FREE, -6},
        {PL_CTR_BUFFERS_BYTES, PL__MEM_BUFFERS, -6},      {PL_CTR_CACHED_BYTES, PL__MEM_CACHED, -6},
        {PL_CTR_DIRTY_BYTES, PL__MEM_DIRTY, -6},          {PL_CTR_WRITEBACK_BYTES, PL__MEM_WRITEBACK, -6},
        {PL_CTR_SLAB_BYTES, PL__MEM_SLAB, -6},            {PL_CTR_SHMEM_BYTES, PL__MEM_SHMEM, -6},
        {PL_CTR_SWAP_TOTAL_BYTES, PL__MEM_SWAP_TOTAL, -6}, {PL_CTR_SWAP_FREE_BYTES, PL__MEM_SWAP_FREE, -6},
        {PL_CTR_HUGE_PAGES_TOTAL, PL__MEM_HUGE_TOTAL, 0}, {PL_CTR_HUGE_PAGES_FREE, PL__MEM_HUGE_FREE, 0},
        {PL_CTR_HUGE_PAGE_SIZE_BYTES, PL__MEM_HUGE_PAGE_SIZE, -6},
    };
    /* Windows memory counters with a Linux source (docs/providers/perfos.md,
     * "Memory: Windows' lists and pools"): pools are kernel memory by
     * reclaimability, page lists by what the pages hold. */
    static const struct {
        uint32_t idx;
        enum pl__mem_field f[3];
        int n;
    } win_mem[] = {
        {PL_CTR_POOL_PAGED_BYTES, {PL__MEM_SRECLAIMABLE}, 1},
        {PL_CTR_POOL_NONPAGED_BYTES, {PL__MEM_SUNRECLAIM, PL__MEM_KERNEL_STACK, PL__MEM_PAGE_TABLES}, 3},
        {PL_CTR_FREE_AND_ZERO_PAGE_LIST_BYTES, {PL__MEM_FREE}, 1},
        {PL_CTR_MODIFIED_PAGE_LIST_BYTES, {PL__MEM_DIRTY, PL__MEM_WRITEBACK}, 2},
        {PL_CTR_STANDBY_CACHE_NORMAL_PRIORITY_BYTES, {PL__MEM_INACTIVE_FILE}, 1},
        {PL_CTR_STANDBY_CACHE_CORE_BYTES, {PL__MEM_ACTIVE_FILE}, 1},
    };
    for (size_t i = 0; i < sizeof win_mem / sizeof win_mem[0]; i++) {
        int all = 1, any_bad = 0, present = 1;
        uint64_t sum = 0;
        for (int k = 0; k < win_mem[i].n; k++) {
            enum pl__mem_field f = win_mem[i].f[k];
            if (!HAS(f)) all = 0;
            if (BAD(f)) any_bad = 1;
            if (!HAS(f) && !BAD(f)) present = 0;
            sum += m.v[f]; /* each below 2^64 / 1024 * 1024: at most 3 of them */
        }
        if (all) put(l, win_mem[i].idx, LRAW, -6, PERF_DETAIL_ADVANCED, sum);
        else if (present && any_bad) put_bad(l, win_mem[i].idx, LRAW, -6, PERF_DETAIL_ADVANCED);
    }
    /* No Linux source: offered, so paths to them are valid, and marked
     * unavailable; the help texts say why. */
    put_bad(l, PL_CTR_PAGE_WRITES_PER_SEC, PERF_COUNTER_BULK_COUNT, 0, PERF_DETAIL_ADVANCED);
    put_bad(l, PL_CTR_TRANSITION_FAULTS_PER_SEC, PERF_COUNTER_BULK_COUNT, -1, PERF_DETAIL_ADVANCED);
    put_bad(l, PL_CTR_CACHE_FAULTS_PER_SEC, PERF_COUNTER_BULK_COUNT, -1, PERF_DETAIL_ADVANCED);
    put_bad(l, PL_CTR_DEMAND_ZERO_FAULTS_PER_SEC, PERF_COUNTER_BULK_COUNT, -1, PERF_DETAIL_ADVANCED);
    for (size_t i = 0; i < sizeof linux_only / sizeof linux_only[0]; i++) {
        if (HAS(linux_only[i].f))
            put(l, linux_only[i].idx, LRAW, linux_only[i].scale, PERF_DETAIL_ADVANCED, m.v[linux_only[i].f]);
        else if (BAD(linux_only[i].f))
            put_bad(l, linux_only[i].idx, LRAW, linux_only[i].scale, PERF_DETAIL_ADVANCED);
    }
#undef HAS
#undef BAD
#undef VM
    int rc = emit_single(b, PL_OBJ_MEMORY, now_filetime(), l);
    free(l);
    return rc;
}

/* -------------------------------------------------------- Paging File */

static int update_peaks(void)
{
    const struct pl__swaps *sw = &g.sw;
    peak *np = NULL;
    if (sw->n) {
        np = malloc((size_t)sw->n * sizeof *np);
        if (!np) return PL_E_NOMEM;
    }
    for (uint32_t i = 0; i < sw->n; i++) {
        memcpy(np[i].name, sw->a[i].name, sizeof np[i].name);
        np[i].used_kib = sw->a[i].used_kib;
        for (uint32_t j = 0; j < g.npeaks; j++)
            if (strcmp(g.peaks[j].name, np[i].name) == 0 && g.peaks[j].used_kib > np[i].used_kib)
                np[i].used_kib = g.peaks[j].used_kib;
    }
    free(g.peaks);
    g.peaks = np;
    g.npeaks = g.peak_cap = sw->n;
    return PL_OK;
}

static int build_paging_file(pl_builder *b)
{
    if (pl__read_proc_swaps(g.rootfd, &g.sw) != 0) return PL_OK; /* unreadable: no object */
    int rc = update_peaks();
    if (rc != PL_OK) return rc;
    const struct pl__swaps *sw = &g.sw;
    uint64_t tsize = 0, tused = 0;
    for (uint32_t i = 0; i < sw->n; i++) {
        tsize += sw->a[i].size_kib;
        tused += sw->a[i].used_kib;
    }
    if (sw->n > 0) {
        if (!g.have_total_peak || tused > g.total_peak_kib) g.total_peak_kib = tused;
        g.have_total_peak = 1;
    }

    pl_object_desc od = {
        .name_index = PL_OBJ_PAGING_FILE,
        .help_index = PL_HELP(PL_OBJ_PAGING_FILE),
        .detail_level = PERF_DETAIL_NOVICE,
        .default_counter = 0,
        .has_instances = 1,
        .perf_time = now_filetime(),
        .perf_freq = PL_TICKS_PER_SEC,
    };
    int obj;
    if ((rc = pl_builder_add_object(b, &od, &obj)) != PL_OK) return rc;
    static const struct {
        uint32_t idx, type, base, detail;
        int32_t scale;
    } defs[] = {
        {PL_CTR_PCT_USAGE, PERF_RAW_FRACTION, PERF_RAW_BASE, PERF_DETAIL_NOVICE, 0},
        {PL_CTR_PCT_USAGE_PEAK, PERF_RAW_FRACTION, PERF_RAW_BASE, PERF_DETAIL_NOVICE, 0},
        {PL_CTR_SIZE_BYTES, PERF_COUNTER_LARGE_RAWCOUNT, 0, PERF_DETAIL_ADVANCED, -6},
        {PL_CTR_USED_BYTES, PERF_COUNTER_LARGE_RAWCOUNT, 0, PERF_DETAIL_ADVANCED, -6},
    };
    int h[4];
    for (int i = 0; i < 4; i++) {
        pl_counter_desc d = {
            .name_index = defs[i].idx,
            .help_index = PL_HELP(defs[i].idx),
            .type = defs[i].type,
            .detail_level = defs[i].detail,
            .default_scale = defs[i].scale,
            .base_type = defs[i].base,
            .base_name_index = defs[i].base ? defs[i].idx : 0,
        };
        if ((rc = pl_builder_add_counter(b, obj, &d, &h[i])) != PL_OK) return rc;
    }
    /* No swap: zero instances (a valid object), as Windows without a page file. */
    if (sw->n == 0) return PL_OK;
    for (uint32_t n = 0; n <= sw->n; n++) {
        int total = n == sw->n;
        uint64_t size = total ? tsize : sw->a[n].size_kib;
        uint64_t used = total ? tused : sw->a[n].used_kib;
        uint64_t pk = total ? g.total_peak_kib : g.peaks[n].used_kib;
        int inst;
        if ((rc = pl_builder_add_instance(b, obj, total ? "_Total" : sw->a[n].name, 0, 0, PERF_NO_UNIQUE_ID,
                                          &inst)) != PL_OK)
            return rc;
        uint64_t un = used, ud = size, pn = pk, pd = size;
        frac32(&un, &ud);
        frac32(&pn, &pd);
        if ((rc = pl_builder_set_u64(b, obj, inst, h[0], un)) != PL_OK ||
            (rc = pl_builder_set_base(b, obj, inst, h[0], ud)) != PL_OK ||
            (rc = pl_builder_set_u64(b, obj, inst, h[1], pn)) != PL_OK ||
            (rc = pl_builder_set_base(b, obj, inst, h[1], pd)) != PL_OK ||
            (rc = pl_builder_set_u64(b, obj, inst, h[2], size * 1024)) != PL_OK ||
            (rc = pl_builder_set_u64(b, obj, inst, h[3], used * 1024)) != PL_OK)
            return rc;
    }
    return PL_OK;
}

/* ------------------------------------------------------------ Objects */

/* Objects (260), no instances (issue 11): Processes and Threads as System
 * counts them; Semaphores and Sections from the SysV IPC objects of the
 * reader's IPC namespace; Events and Mutexes have no Linux kernel object:
 * present (valid paths), marked unavailable, the help texts say why. */
static int build_objects(pl_builder *b)
{
    vlist *l = calloc(1, sizeof *l);
    if (!l) return PL_E_NOMEM;
    uint64_t n;
    if (visible_processes(&n) == 0) put(l, PL_CTR_PROCESSES, PERF_COUNTER_RAWCOUNT, -1, PERF_DETAIL_NOVICE, n);
    else put_bad(l, PL_CTR_PROCESSES, PERF_COUNTER_RAWCOUNT, -1, PERF_DETAIL_NOVICE);
    struct pl__loadavg la;
    int have_la = g.nt_state == 0 && pl__proc_is_initial_pidns(g.rootfd) && pl__read_proc_loadavg(g.rootfd, &la) == 0;
    if (visible_threads(have_la ? &la : NULL, &n) == 0)
        put(l, PL_CTR_THREADS, PERF_COUNTER_RAWCOUNT, -1, PERF_DETAIL_NOVICE, n);
    else put_bad(l, PL_CTR_THREADS, PERF_COUNTER_RAWCOUNT, -1, PERF_DETAIL_NOVICE);
    put_bad(l, PL_CTR_EVENTS, PERF_COUNTER_RAWCOUNT, -1, PERF_DETAIL_NOVICE);
    if (pl__read_sysvipc_count(g.rootfd, PL__SYSVIPC_SEM, &n) == 0)
        put(l, PL_CTR_SEMAPHORES, PERF_COUNTER_RAWCOUNT, -1, PERF_DETAIL_NOVICE, n);
    else put_bad(l, PL_CTR_SEMAPHORES, PERF_COUNTER_RAWCOUNT, -1, PERF_DETAIL_NOVICE);
    put_bad(l, PL_CTR_MUTEXES, PERF_COUNTER_RAWCOUNT, -1, PERF_DETAIL_NOVICE);
    if (pl__read_sysvipc_count(g.rootfd, PL__SYSVIPC_SHM, &n) == 0)
        put(l, PL_CTR_SECTIONS, PERF_COUNTER_RAWCOUNT, -1, PERF_DETAIL_NOVICE, n);
    else put_bad(l, PL_CTR_SECTIONS, PERF_COUNTER_RAWCOUNT, -1, PERF_DETAIL_NOVICE);
    int rc = emit_single(b, PL_OBJ_OBJECTS, now_filetime(), l);
    free(l);
    return rc;
}

/* ------------------------------------------------------- entry points */

PL_PROVIDER_EXPORT DWORD PerfOsOpen(LPWSTR device_names);
PL_PROVIDER_EXPORT DWORD PerfOsCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects);
PL_PROVIDER_EXPORT DWORD PerfOsClose(void);
PL_PROVIDER_EXPORT DWORD PerfOsCollectNonBlocking(LPCWSTR query);

PL_PROVIDER_EXPORT DWORD PerfOsOpen(LPWSTR device_names)
{
    (void)device_names;
    DWORD ret = ERROR_SUCCESS;
    pthread_mutex_lock(&g.mu);
    if (g.opens == 0) {
        const char *root = pl__sysroot();
        int fd = pl__root_open(root, "");
        pl_builder *b = pl_builder_new();
        if (fd < 0 || !b) {
            if (fd >= 0) close(fd);
            pl_builder_free(b);
            ret = fd < 0 ? ERROR_FILE_NOT_FOUND : ERROR_OUTOFMEMORY;
        } else {
            g.rootfd = fd;
            g.live = strcmp(root, "/") == 0;
            if (g.live) pl__kept_root(fd); /* closed after pl__kept_close, at the last Close */
            g.b = b;
            g.hz = pl__clock_ticks();
            g.cpu.rootfd = fd;
            g.cpu.hz = g.hz;
            g.cpu.st = &g.st;
            g.have_total_peak = 0;
            g.total_peak_kib = 0;
        }
    }
    if (ret == ERROR_SUCCESS) g.opens++;
    pthread_mutex_unlock(&g.mu);
    return ret;
}

/* Every PerfOS source on the live root is kernel-generated text of /proc
 * and /sys whose read takes no lock that another task can hold for long
 * (docs/providers/perfos.md, "Collected on the caller's thread"): the host
 * may call Collect on the consumer's thread. A root given by
 * PERFLIB_SYSROOT may be anything (a FUSE mount, a network file system),
 * so its Collects keep the watchdog. */
PL_PROVIDER_EXPORT DWORD PerfOsCollectNonBlocking(LPCWSTR query)
{
    (void)query;
    pthread_mutex_lock(&g.mu);
    DWORD live = g.opens > 0 && g.live;
    pthread_mutex_unlock(&g.mu);
    return live;
}

PL_PROVIDER_EXPORT DWORD PerfOsCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    if (!data || !bytes || !objects) return ERROR_INVALID_PARAMETER;
    if (!*data && *bytes) {
        *bytes = 0;
        *objects = 0;
        return ERROR_INVALID_PARAMETER;
    }
    pl_query_items q;
    pl_query_parse_w(query, &q);
    int want_sys = pl_query_wants(&q, PL_OBJ_SYSTEM, 0);
    int want_mem = pl_query_wants(&q, PL_OBJ_MEMORY, 0);
    int want_cpu = pl_query_wants(&q, PL_OBJ_PROCESSOR, 0);
    int want_pf = pl_query_wants(&q, PL_OBJ_PAGING_FILE, 0);
    int want_objs = pl_query_wants(&q, PL_OBJ_OBJECTS, 0);
    int want_info = pl_query_wants(&q, PL_OBJ_PROCESSOR_INFORMATION, 0);
    if (!(want_sys || want_mem || want_cpu || want_pf || want_objs || want_info)) {
        *bytes = 0;
        *objects = 0;
        return ERROR_SUCCESS;
    }
    pthread_mutex_lock(&g.mu);
    if (g.opens == 0) {
        pthread_mutex_unlock(&g.mu);
        *bytes = 0;
        *objects = 0;
        return ERROR_INVALID_HANDLE; /* Collect before Open */
    }
    pl_builder_reset(g.b);
    g.np_state = g.nt_state = 0;
    pl__perfos_cpu_reset(&g.cpu);
    int have_stat = 0;
    if (want_sys || want_cpu || want_info) have_stat = pl__read_proc_stat(g.rootfd, &g.st) == 0;
    int rc = PL_OK;
    if (rc == PL_OK && want_sys) rc = build_system(g.b, have_stat);
    if (rc == PL_OK && want_mem) rc = build_memory(g.b);
    if (rc == PL_OK && want_cpu && have_stat) rc = pl__perfos_build_cpu(g.b, &g.cpu, 0);
    if (rc == PL_OK && want_pf) rc = build_paging_file(g.b);
    if (rc == PL_OK && want_objs) rc = build_objects(g.b);
    if (rc == PL_OK && want_info && have_stat) rc = pl__perfos_build_cpu(g.b, &g.cpu, 1);
    DWORD ret;
    if (rc != PL_OK) {
        *bytes = 0;
        *objects = 0;
        ret = rc == PL_E_NOMEM ? ERROR_OUTOFMEMORY : ERROR_INVALID_DATA;
    } else {
        ret = pl_provider_emit(g.b, data, bytes, objects);
    }
    pthread_mutex_unlock(&g.mu);
    return ret;
}

PL_PROVIDER_EXPORT DWORD PerfOsClose(void)
{
    pthread_mutex_lock(&g.mu);
    if (g.opens > 0 && --g.opens == 0) {
        pl__kept_close();
        close(g.rootfd);
        g.rootfd = -1;
        pl_builder_free(g.b);
        g.b = NULL;
        pl__cpu_stats_free(&g.st);
        pl__perfos_cpu_free(&g.cpu);
        pl__swaps_free(&g.sw);
        free(g.peaks);
        g.peaks = NULL;
        g.npeaks = g.peak_cap = 0;
        g.have_total_peak = 0;
        g.total_peak_kib = 0;
    }
    pthread_mutex_unlock(&g.mu);
    return ERROR_SUCCESS;
}
