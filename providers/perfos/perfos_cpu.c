/* perflib: PerfOS's Processor (238) and Processor Information objects.
 *
 * Both come from the same reading of /proc/stat, /proc/interrupts,
 * /proc/softirqs and cpuidle, so they agree exactly; Processor Information
 * adds the NUMA node naming ("node,index", "node,_Total", "_Total") and the
 * cpufreq counters. Every value goes through a tracker that keeps it
 * continuous across CPU hotplug (lib/platform/linux/cpu_track.c): a CPU's
 * counts go on from where they were, _Total and a node's total add only
 * what CPUs present in both readings of an interval added, and the
 * C-state times add at most the CPU's idle time of each interval. Every
 * counter, source and decision is in docs/providers/perfos.md
 * ("Processor", "CPU hotplug", "Processor: C-states", "Processor
 * Information"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/indices.h"
#include "perfos_cpu.h"
#include "platform.h"

struct pl__cstate_val {
    uint64_t t[PL__CSTATE_LEVELS], u[PL__CSTATE_LEVELS]; /* 100 ns, entries */
    unsigned bad; /* collect_sys.h: bits 0..2 time, 3..5 entries */
};

enum cpu_kind {
    K_PROCESSOR, /* every column but idle + iowait (over the column sum) */
    K_USER,      /* user + nice */
    K_PRIV,      /* system + irq + softirq */
    K_IRQ,
    K_SOFTIRQ,
    K_IDLE,      /* idle + iowait */
    K_INTERRUPTS,
    K_DPCS,
    K_NICE,
    K_IOWAIT,
    K_STEAL,
    K_GUEST,     /* guest + guest_nice */
    K_C_TIME,    /* cpuidle time of level `level` (us -> 100 ns) */
    K_C_TRANS,   /* cpuidle entries of level `level` */
    K_FREQ,      /* Processor Information: MHz */
    K_FREQ_PCT,  /* Processor Information: % of the maximum */
    K_UTILITY,   /* Processor Information: no honest source, always marked */
};

static const struct cpu_ctr {
    enum cpu_kind kind;
    uint32_t idx, type, detail;
    int32_t scale;
    unsigned min_fields; /* cpu line columns it needs */
    int level;           /* K_C_*: 0, 1, 2 for C1, C2, C3 */
    int info_only;       /* only in Processor Information */
} cpu_ctrs[] = {
    {K_PROCESSOR, PL_CTR_PCT_PROCESSOR_TIME, PERF_PRECISION_100NS_TIMER, PERF_DETAIL_NOVICE, 0, 5, 0, 0},
    {K_USER, PL_CTR_PCT_USER_TIME, PERF_PRECISION_100NS_TIMER, PERF_DETAIL_ADVANCED, 0, 2, 0, 0},
    {K_PRIV, PL_CTR_PCT_PRIVILEGED_TIME, PERF_PRECISION_100NS_TIMER, PERF_DETAIL_ADVANCED, 0, 7, 0, 0},
    {K_IRQ, PL_CTR_PCT_INTERRUPT_TIME, PERF_PRECISION_100NS_TIMER, PERF_DETAIL_ADVANCED, 0, 6, 0, 0},
    {K_SOFTIRQ, PL_CTR_PCT_DPC_TIME, PERF_PRECISION_100NS_TIMER, PERF_DETAIL_ADVANCED, 0, 7, 0, 0},
    {K_IDLE, PL_CTR_PCT_IDLE_TIME, PERF_PRECISION_100NS_TIMER, PERF_DETAIL_ADVANCED, 0, 5, 0, 0},
    {K_INTERRUPTS, PL_CTR_INTERRUPTS_PER_SEC, PERF_COUNTER_BULK_COUNT, PERF_DETAIL_NOVICE, -2, 0, 0, 0},
    {K_DPCS, PL_CTR_DPCS_QUEUED_PER_SEC, PERF_COUNTER_BULK_COUNT, PERF_DETAIL_ADVANCED, 0, 0, 0, 0},
    {K_NICE, PL_CTR_PCT_NICE_TIME, PERF_PRECISION_100NS_TIMER, PERF_DETAIL_ADVANCED, 0, 2, 0, 0},
    {K_IOWAIT, PL_CTR_PCT_IO_WAIT_TIME, PERF_PRECISION_100NS_TIMER, PERF_DETAIL_ADVANCED, 0, 5, 0, 0},
    {K_STEAL, PL_CTR_PCT_STEAL_TIME, PERF_PRECISION_100NS_TIMER, PERF_DETAIL_ADVANCED, 0, 8, 0, 0},
    {K_GUEST, PL_CTR_PCT_GUEST_TIME, PERF_PRECISION_100NS_TIMER, PERF_DETAIL_ADVANCED, 0, 9, 0, 0},
    /* issue 11: Windows' three idle levels from cpuidle (collect_sys.h has
     * the mapping); over the same column sum as % Idle Time */
    {K_C_TIME, PL_CTR_PCT_C1_TIME, PERF_PRECISION_100NS_TIMER, PERF_DETAIL_ADVANCED, 0, 4, 0, 0},
    {K_C_TIME, PL_CTR_PCT_C2_TIME, PERF_PRECISION_100NS_TIMER, PERF_DETAIL_ADVANCED, 0, 4, 1, 0},
    {K_C_TIME, PL_CTR_PCT_C3_TIME, PERF_PRECISION_100NS_TIMER, PERF_DETAIL_ADVANCED, 0, 4, 2, 0},
    {K_C_TRANS, PL_CTR_C1_TRANSITIONS_PER_SEC, PERF_COUNTER_BULK_COUNT, PERF_DETAIL_ADVANCED, -2, 0, 0, 0},
    {K_C_TRANS, PL_CTR_C2_TRANSITIONS_PER_SEC, PERF_COUNTER_BULK_COUNT, PERF_DETAIL_ADVANCED, -2, 0, 1, 0},
    {K_C_TRANS, PL_CTR_C3_TRANSITIONS_PER_SEC, PERF_COUNTER_BULK_COUNT, PERF_DETAIL_ADVANCED, -2, 0, 2, 0},
    /* issue 11: Processor Information's own */
    {K_FREQ, PL_CTR_PROCESSOR_FREQUENCY, PERF_COUNTER_RAWCOUNT, PERF_DETAIL_ADVANCED, -1, 0, 0, 1},
    {K_FREQ_PCT, PL_CTR_PCT_OF_MAXIMUM_FREQUENCY, PERF_COUNTER_RAWCOUNT, PERF_DETAIL_ADVANCED, 0, 0, 0, 1},
    {K_UTILITY, PL_CTR_PCT_PROCESSOR_UTILITY, PERF_PRECISION_100NS_TIMER, PERF_DETAIL_ADVANCED, 0, 4, 0, 1},
};
#define NCPU_CTRS (sizeof cpu_ctrs / sizeof cpu_ctrs[0])

static uint64_t ticks_100ns(uint64_t ticks, long hz)
{
    if (hz <= 0) return 0;
    uint64_t uhz = (uint64_t)hz;
    return (ticks / uhz) * (uint64_t)PL_TICKS_PER_SEC + (ticks % uhz) * (uint64_t)PL_TICKS_PER_SEC / uhz;
}

/* The time base of every Processor timer: the sum of the columns the
 * kernel accounted (user nice system idle iowait irq softirq steal, as many
 * as the line has; guest and guest_nice are already inside user and nice).
 * On tick-accounting kernels these cover only 93-95% of wall time (idle is
 * precise, user/system are sampled), so wall time as the base counted the
 * missing ticks as busy; the column sum is what mpstat divides by. */
static uint64_t cpu_sum(const uint64_t *t, unsigned nfields)
{
    uint64_t s = 0;
    unsigned n = nfields < PL__CPU_STEAL + 1 ? nfields : PL__CPU_STEAL + 1;
    for (unsigned i = 0; i < n; i++) s += t[i];
    return s;
}

static uint64_t cpu_ticks(enum cpu_kind k, const uint64_t *t, unsigned nfields)
{
    switch (k) {
    case K_PROCESSOR: {
        uint64_t sum = cpu_sum(t, nfields), idle = t[PL__CPU_IDLE] + t[PL__CPU_IOWAIT];
        return sum > idle ? sum - idle : 0;
    }
    case K_IDLE: return t[PL__CPU_IDLE] + t[PL__CPU_IOWAIT];
    case K_USER: return t[PL__CPU_USER] + t[PL__CPU_NICE];
    case K_PRIV: return t[PL__CPU_SYSTEM] + t[PL__CPU_IRQ] + t[PL__CPU_SOFTIRQ];
    case K_IRQ: return t[PL__CPU_IRQ];
    case K_SOFTIRQ: return t[PL__CPU_SOFTIRQ];
    case K_NICE: return t[PL__CPU_NICE];
    case K_IOWAIT: return t[PL__CPU_IOWAIT];
    case K_STEAL: return t[PL__CPU_STEAL];
    case K_GUEST: return t[PL__CPU_GUEST] + t[PL__CPU_GUEST_NICE];
    default: return 0;
    }
}

/* The column of CPU `id` in a per-CPU table, or -1. */
static long column_of(const struct pl__percpu_sums *s, uint32_t id)
{
    uint32_t lo = 0, hi = s->ncol;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->cpu[mid] == id) return (long)mid;
        if (s->cpu[mid] < id) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

/* Does the table have a column for every online CPU? */
static int covers_all(const struct pl__cpu_stats *st, const struct pl__percpu_sums *s)
{
    for (uint32_t i = 0; i < st->ncpu; i++)
        if (column_of(s, st->cpu[i].id) < 0) return 0;
    return 1;
}

/* ------------------------------------------------- per-collection read */

void pl__perfos_cpu_reset(pl__perfos_cpu *c)
{
    c->ready = 0;
}

void pl__perfos_cpu_free(pl__perfos_cpu *c)
{
    pl__percpu_sums_free(&c->irq);
    pl__percpu_sums_free(&c->soft);
    free(c->cs);
    free(c->fq);
    free(c->node);
    free(c->nidx);
    free(c->ids);
    free(c->scratch);
    free(c->unread);
    free(c->cap_idle);
    free(c->drop);
    c->ids = NULL;
    c->scratch = c->unread = c->cap_idle = NULL;
    c->drop = NULL;
    pl__cpu_track_free(&c->t_stat);
    pl__cpu_track_free(&c->t_irq);
    pl__cpu_track_free(&c->t_soft);
    pl__cpu_track_free(&c->t_cs);
    free(c->maps);
    c->maps = NULL;
    c->maps_cap = 0;
    c->driver[0] = '\0';
    c->cs = NULL;
    c->fq = NULL;
    c->node = c->nidx = NULL;
    c->cap = 0;
    c->ready = 0;
}

static int grow(pl__perfos_cpu *c, uint32_t n)
{
    if (n <= c->cap) return PL_OK;
    pl__cstate_val *cs = realloc(c->cs, ((size_t)n + 1) * sizeof *cs);
    if (cs) c->cs = cs;
    struct pl__cpufreq *fq = realloc(c->fq, (size_t)n * sizeof *fq);
    if (fq) c->fq = fq;
    uint32_t *node = realloc(c->node, (size_t)n * sizeof *node);
    if (node) c->node = node;
    uint32_t *nidx = realloc(c->nidx, (size_t)n * sizeof *nidx);
    if (nidx) c->nidx = nidx;
    uint32_t *ids = realloc(c->ids, (size_t)n * sizeof *ids);
    if (ids) c->ids = ids;
    uint64_t *scratch = realloc(c->scratch, (size_t)n * PL__CPU_NFIELDS * sizeof *scratch);
    if (scratch) c->scratch = scratch;
    uint64_t *unread = realloc(c->unread, (size_t)n * sizeof *unread);
    if (unread) c->unread = unread;
    uint64_t *cap_idle = realloc(c->cap_idle, (size_t)n * sizeof *cap_idle);
    if (cap_idle) c->cap_idle = cap_idle;
    unsigned char *drop = realloc(c->drop, (size_t)n * sizeof *drop);
    if (drop) c->drop = drop;
    if (!cs || !fq || !node || !nidx || !ids || !scratch || !unread || !cap_idle || !drop) return PL_E_NOMEM;
    c->cap = n;
    return PL_OK;
}

/* The cpuidle maps: one per position, kept (and valid) between
 * collections unless the driver changed. */
static int maps_for(pl__perfos_cpu *c, uint32_t n)
{
    if (n > c->maps_cap) {
        struct pl__cpuidle_map *m = realloc(c->maps, (size_t)n * sizeof *m);
        if (!m) return PL_E_NOMEM;
        memset(m + c->maps_cap, 0, (size_t)(n - c->maps_cap) * sizeof *m);
        c->maps = m;
        c->maps_cap = n;
    }
    char drv[64];
    ssize_t len = pl__read_at(c->rootfd, "sys/devices/system/cpu/cpuidle/current_driver", drv, sizeof drv);
    if (len < 0) drv[0] = '\0';
    c->driver_changed = strcmp(drv, c->driver) != 0;
    if (c->driver_changed) {
        for (uint32_t i = 0; i < c->maps_cap; i++) c->maps[i].valid = 0;
        memcpy(c->driver, drv, sizeof drv);
    }
    return PL_OK;
}

/* Every online CPU's cpuidle states as instance values (cs[i] for
 * st->cpu[i]). A CPU without cpuidle has every value unavailable. */
static void read_cstates(pl__perfos_cpu *c)
{
    const struct pl__cpu_stats *st = c->st;
    for (uint32_t i = 0; i < st->ncpu; i++) {
        struct pl__cpuidle *ci = &c->idle;
        pl__cstate_val *v = &c->cs[i];
        memset(v, 0, sizeof *v);
        if (pl__read_cpuidle(c->rootfd, st->cpu[i].id, &c->maps[i], ci) != 0 || !ci->present) {
            v->bad = PL__CPUIDLE_BAD_ALL;
            continue;
        }
        v->bad = ci->bad;
        for (int L = 0; L < PL__CSTATE_LEVELS; L++) {
            /* microseconds to 100 ns; beyond 64 bits is not a number */
            if (ci->time_us[L] > UINT64_MAX / 10) v->bad |= 1u << L;
            else v->t[L] = ci->time_us[L] * 10;
            v->u[L] = ci->usage[L];
        }
        for (int L = 0; L < PL__CSTATE_LEVELS; L++) {
            if (v->bad & (1u << L)) v->t[L] = 0;
            if (v->bad & (1u << (PL__CSTATE_LEVELS + L))) v->u[L] = 0;
        }
    }
}

/* Idle + iowait of a published cpu line, in 100 ns (% Idle Time). */
static uint64_t idle_100ns(const uint64_t *t, long hz)
{
    return ticks_100ns(t[PL__CPU_IDLE] + t[PL__CPU_IOWAIT], hz);
}

static int track_rc(int rc)
{
    return rc == -ENOMEM ? PL_E_NOMEM : rc < 0 ? PL_E_RANGE : PL_OK;
}

/* One per-CPU table (interrupts, softirqs) into its tracker: the online
 * CPUs' columns. */
static int track_table(pl__perfos_cpu *c, struct pl__cpu_track *t, const struct pl__percpu_sums *s)
{
    const struct pl__cpu_stats *st = c->st;
    for (uint32_t i = 0; i < st->ncpu; i++) c->scratch[i] = s->sum[column_of(s, st->cpu[i].id)];
    return track_rc(pl__cpu_track_update(t, st->ncpu, c->ids, c->scratch, NULL, NULL, NULL, 0));
}

/* This collection's readings into the trackers (docs/providers/perfos.md,
 * "CPU hotplug"): each CPU's counts go on from where they were, only CPUs
 * there in the previous collection too add to the sums, and a CPU's
 * C-state times add at most its idle time of the interval. */
static int track(pl__perfos_cpu *c)
{
    const struct pl__cpu_stats *st = c->st;
    if (!c->t_stat.nv) {
        pl__cpu_track_init(&c->t_stat, PL__CPU_NFIELDS);
        pl__cpu_track_init(&c->t_irq, 1);
        pl__cpu_track_init(&c->t_soft, 1);
        pl__cpu_track_init(&c->t_cs, 2 * PL__CSTATE_LEVELS);
    }
    uint32_t n = st->ncpu;
    for (uint32_t i = 0; i < n; i++) {
        c->ids[i] = st->cpu[i].id;
        memcpy(c->scratch + (size_t)i * PL__CPU_NFIELDS, st->cpu[i].t, sizeof st->cpu[i].t);
    }
    /* each CPU's idle time before and after: the C-states' allowance */
    for (uint32_t i = 0; i < n; i++) {
        uint64_t t[PL__CPU_NFIELDS], m;
        c->drop[i] = pl__cpu_track_get(&c->t_stat, c->ids[i], t, &m) != 0 || m != 0;
        c->cap_idle[i] = c->drop[i] ? 0 : idle_100ns(t, c->hz);
    }
    int rc = track_rc(pl__cpu_track_update(&c->t_stat, n, c->ids, c->scratch, NULL, NULL, NULL, 0));
    if (rc != PL_OK) return rc;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t t[PL__CPU_NFIELDS], m;
        if (pl__cpu_track_get(&c->t_stat, c->ids[i], t, &m) != 0 || m != 0) c->drop[i] = 1;
        uint64_t now = c->drop[i] ? 0 : idle_100ns(t, c->hz);
        c->cap_idle[i] = now >= c->cap_idle[i] ? now - c->cap_idle[i] : 0;
    }
    if (c->have_irq && (rc = track_table(c, &c->t_irq, &c->irq)) != PL_OK) return rc;
    if (c->have_soft && (rc = track_table(c, &c->t_soft, &c->soft)) != PL_OK) return rc;
    /* C-states: times (100 ns) then entries per level; a CPU whose cpu line
     * had no honest difference adds none either */
    for (uint32_t i = 0; i < n; i++) {
        uint64_t *v = c->scratch + (size_t)i * 2 * PL__CSTATE_LEVELS;
        for (int L = 0; L < PL__CSTATE_LEVELS; L++) {
            v[L] = c->cs[i].t[L];
            v[PL__CSTATE_LEVELS + L] = c->cs[i].u[L];
        }
        c->unread[i] = c->cs[i].bad;
        if (c->driver_changed) c->drop[i] = 1; /* the states' levels may have moved */
    }
    return track_rc(pl__cpu_track_update(&c->t_cs, n, c->ids, c->scratch, c->unread, c->drop, c->cap_idle,
                                         PL__CSTATE_LEVELS));
}

static int prepare(pl__perfos_cpu *c)
{
    if (c->ready) return PL_OK;
    const struct pl__cpu_stats *st = c->st;
    int rc = grow(c, st->ncpu);
    if (rc == PL_OK) rc = maps_for(c, st->ncpu);
    if (rc != PL_OK) return rc;
    c->have_irq = pl__read_proc_interrupts(c->rootfd, &c->irq) == 0 && covers_all(st, &c->irq);
    c->have_soft = pl__read_proc_softirqs(c->rootfd, &c->soft) == 0 && covers_all(st, &c->soft);
    read_cstates(c);
    if ((rc = track(c)) != PL_OK) return rc;
    c->ready = 1;
    c->nodes_ok = -1; /* Processor Information's sources: on first use */
    return PL_OK;
}

static int prepare_info(pl__perfos_cpu *c)
{
    if (c->nodes_ok >= 0) return PL_OK;
    const struct pl__cpu_stats *st = c->st;
    uint32_t *ids = malloc(((size_t)st->ncpu + 1) * sizeof *ids);
    if (!ids) return PL_E_NOMEM;
    for (uint32_t i = 0; i < st->ncpu; i++) ids[i] = st->cpu[i].id;
    int rc = pl__read_cpu_nodes(c->rootfd, ids, st->ncpu, c->node, c->nidx);
    free(ids);
    if (rc == -ENOMEM) return PL_E_NOMEM;
    c->nodes_ok = rc == 0 || rc == -ENOENT; /* -ENOENT: one node 0, filled */
    if (c->nodes_ok) {
        struct pl__cpu_track *ts[] = {&c->t_stat, &c->t_irq, &c->t_soft, &c->t_cs};
        for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++)
            for (uint32_t i = 0; i < st->ncpu; i++) pl__cpu_track_set_group(ts[k], st->cpu[i].id, c->node[i]);
    }
    for (uint32_t i = 0; i < st->ncpu; i++) pl__read_cpufreq(c->rootfd, st->cpu[i].id, &c->fq[i]);
    return PL_OK;
}

/* --------------------------------------------------------- instances */

/* What one instance stands for: a CPU (st->cpu[cpu]), the CPUs of NUMA
 * node `node` ("node,_Total"), or all ("_Total"). */
typedef struct inst_ref {
    enum { R_CPU, R_NODE, R_TOTAL } kind;
    uint32_t cpu, node;
} inst_ref;

/* The CPUs an instance covers: one, a node's, or all (i in [0, ncpu)). */
static int covers(const pl__perfos_cpu *c, const inst_ref *r, uint32_t i)
{
    switch (r->kind) {
    case R_CPU: return i == r->cpu;
    case R_NODE: return c->node[i] == r->node;
    default: return 1;
    }
}

/* The values of one instance, each with its unavailable flag. */
typedef struct inst_vals {
    uint64_t t[PL__CPU_NFIELDS]; /* cpu line columns, continuous (summed for a node, _Total) */
    int t_bad;                    /* no honest value for this interval, or a sum past 2^64 */
    uint64_t base;                /* column sum, 100 ns */
    uint64_t irq, dpcs;
    int irq_bad, dpcs_bad;
    pl__cstate_val cs;
    uint64_t mhz, pct_max;
    int freq_bad, pct_bad;
} inst_vals;

/* A CPU's published values from one tracker, or a group's sum. */
static uint64_t from_track(const pl__perfos_cpu *c, const struct pl__cpu_track *t, const inst_ref *r, uint64_t *out)
{
    uint64_t m = 0;
    if (r->kind == R_CPU) {
        if (pl__cpu_track_get(t, c->st->cpu[r->cpu].id, out, &m) != 0) m = UINT64_MAX; /* cannot happen */
    } else {
        pl__cpu_track_sum(t, r->kind == R_TOTAL ? PL__CPU_TRACK_ALL : r->node, out, &m);
    }
    return m;
}

static void instance_values(const pl__perfos_cpu *c, const inst_ref *r, inst_vals *v)
{
    const struct pl__cpu_stats *st = c->st;
    memset(v, 0, sizeof *v);
    /* every value from the trackers: a CPU's counts go on across hotplug,
     * a node's and _Total's add only the CPUs present in both readings of
     * each interval (docs/providers/perfos.md, "CPU hotplug") */
    v->t_bad = from_track(c, &c->t_stat, r, v->t) != 0;
    uint64_t sum = 0;
    unsigned nf = st->nfields < PL__CPU_STEAL + 1 ? st->nfields : PL__CPU_STEAL + 1;
    for (unsigned k = 0; k < nf; k++) {
        if (v->t[k] > UINT64_MAX - sum) v->t_bad = 1;
        sum += v->t[k];
    }
    if (v->t_bad) memset(v->t, 0, sizeof v->t);
    v->base = v->t_bad ? 0 : ticks_100ns(cpu_sum(v->t, st->nfields), c->hz);
    if (c->have_irq) v->irq_bad = from_track(c, &c->t_irq, r, &v->irq) != 0;
    if (c->have_soft) v->dpcs_bad = from_track(c, &c->t_soft, r, &v->dpcs) != 0;
    uint64_t cs[2 * PL__CSTATE_LEVELS];
    uint64_t m = from_track(c, &c->t_cs, r, cs);
    for (int L = 0; L < PL__CSTATE_LEVELS; L++) {
        v->cs.t[L] = cs[L];
        v->cs.u[L] = cs[PL__CSTATE_LEVELS + L];
    }
    v->cs.bad = (unsigned)(m & PL__CPUIDLE_BAD_ALL);
    if (v->t_bad) v->cs.bad |= (1u << PL__CSTATE_LEVELS) - 1; /* their base is unknown */
    for (int L = 0; L < PL__CSTATE_LEVELS; L++) {
        if (v->cs.bad & (1u << L)) v->cs.t[L] = 0;
        if (v->cs.bad & (1u << (PL__CSTATE_LEVELS + L))) v->cs.u[L] = 0;
    }
    if (c->nodes_ok < 0) return; /* Processor: no frequency */

    /* frequency: the average MHz of the CPUs covered, and the sum of their
     * current over the sum of their maximum frequencies */
    uint64_t cur = 0, max = 0, n = 0;
    for (uint32_t i = 0; i < st->ncpu; i++) {
        if (!covers(c, r, i)) continue;
        const struct pl__cpufreq *f = &c->fq[i];
        if (!f->have_cur || f->cur_khz > UINT64_MAX / 100 - cur) v->freq_bad = 1;
        else cur += f->cur_khz;
        if (!f->have_max || f->max_khz > UINT64_MAX - max) v->pct_bad = 1;
        else max += f->max_khz;
        n++;
    }
    if (n == 0) v->freq_bad = 1;
    v->pct_bad |= v->freq_bad;
    if (!v->freq_bad) v->mhz = (cur / n + 500) / 1000; /* kHz to MHz, rounded */
    if (!v->pct_bad) v->pct_max = cur * 100 / max;
    if (v->mhz > UINT32_MAX) v->freq_bad = 1;
    if (v->pct_max > UINT32_MAX) v->pct_bad = 1;
    if (v->freq_bad) v->mhz = 0;
    if (v->pct_bad) v->pct_max = 0;
}

static unsigned cstate_bit(const struct cpu_ctr *k)
{
    return k->kind == K_C_TIME ? 1u << k->level : 1u << (PL__CSTATE_LEVELS + k->level);
}

/* The value of counter k for an instance, its base, and whether it is
 * unavailable. */
static int counter_value(const struct cpu_ctr *k, const inst_vals *v, unsigned nfields, long hz, uint64_t *val,
                         uint64_t *base)
{
    *base = v->base;
    *val = 0;
    switch (k->kind) {
    case K_INTERRUPTS: *val = v->irq; return v->irq_bad;
    case K_DPCS: *val = v->dpcs; return v->dpcs_bad;
    case K_C_TIME:
    case K_C_TRANS:
        if (v->cs.bad & cstate_bit(k)) return 1;
        *val = k->kind == K_C_TIME ? v->cs.t[k->level] : v->cs.u[k->level];
        return 0;
    case K_FREQ: *val = v->mhz; return v->freq_bad;
    case K_FREQ_PCT: *val = v->pct_max; return v->pct_bad;
    case K_UTILITY: return 1; /* no honest source: docs/providers/perfos.md */
    default:
        if (v->t_bad) {
            *base = 0;
            return 1;
        }
        *val = ticks_100ns(cpu_ticks(k->kind, v->t, nfields), hz);
        return 0;
    }
}

/* The instances in order: Processor: every CPU, _Total. Processor
 * Information: per NUMA node (ascending) its CPUs then "node,_Total", and
 * _Total last. Returns the count (refs has room for 2 * ncpu + 1). */
static uint32_t list_instances(const pl__perfos_cpu *c, int info, inst_ref *refs)
{
    const struct pl__cpu_stats *st = c->st;
    uint32_t n = 0;
    if (!info) {
        for (uint32_t i = 0; i < st->ncpu; i++) refs[n++] = (inst_ref){R_CPU, i, 0};
    } else {
        uint64_t next = 0; /* the lowest node not yet listed */
        for (;;) {
            uint64_t nd = UINT64_MAX;
            for (uint32_t i = 0; i < st->ncpu; i++)
                if (c->node[i] >= next && c->node[i] < nd) nd = c->node[i];
            if (nd == UINT64_MAX) break;
            for (uint32_t i = 0; i < st->ncpu; i++)
                if (c->node[i] == nd) refs[n++] = (inst_ref){R_CPU, i, (uint32_t)nd};
            refs[n++] = (inst_ref){R_NODE, 0, (uint32_t)nd};
            next = nd + 1;
        }
    }
    refs[n++] = (inst_ref){R_TOTAL, 0, 0};
    return n;
}

static void instance_name(const pl__perfos_cpu *c, int info, const inst_ref *r, char *name, size_t cap)
{
    const struct pl__cpu_stats *st = c->st;
    if (r->kind == R_TOTAL) snprintf(name, cap, "_Total");
    else if (!info) snprintf(name, cap, "%u", st->cpu[r->cpu].id);
    else if (r->kind == R_NODE) snprintf(name, cap, "%u,_Total", r->node);
    else snprintf(name, cap, "%u,%u", r->node, c->nidx[r->cpu]);
}

int pl__perfos_build_cpu(pl_builder *b, pl__perfos_cpu *c, int info)
{
    const struct pl__cpu_stats *st = c->st;
    if (st->ncpu == 0) return PL_OK; /* no per-CPU line: nothing to divide by */
    int rc = prepare(c);
    if (rc == PL_OK && info) rc = prepare_info(c);
    if (rc != PL_OK) return rc;
    if (info && !c->nodes_ok) return PL_OK; /* the instances cannot be named */

    inst_ref *refs = malloc(((size_t)st->ncpu * 2 + 1) * sizeof *refs);
    inst_vals *vals = malloc(((size_t)st->ncpu * 2 + 1) * sizeof *vals);
    if (!refs || !vals) {
        free(refs);
        free(vals);
        return PL_E_NOMEM;
    }
    uint32_t ninst = list_instances(c, info, refs);
    int used[NCPU_CTRS];
    for (size_t i = 0; i < NCPU_CTRS; i++) {
        const struct cpu_ctr *k = &cpu_ctrs[i];
        used[i] = st->nfields >= k->min_fields && (info || !k->info_only);
        if (k->kind == K_INTERRUPTS) used[i] = c->have_irq;
        if (k->kind == K_DPCS) used[i] = c->have_soft;
    }
    /* values first: the marker is added only when something is unavailable */
    int any_bad = 0;
    for (uint32_t n = 0; n < ninst; n++) {
        instance_values(c, &refs[n], &vals[n]);
        for (size_t i = 0; i < NCPU_CTRS; i++) {
            uint64_t v, bs;
            if (used[i] && counter_value(&cpu_ctrs[i], &vals[n], st->nfields, c->hz, &v, &bs)) any_bad = 1;
        }
    }

    pl_object_desc od = {
        .name_index = info ? PL_OBJ_PROCESSOR_INFORMATION : PL_OBJ_PROCESSOR,
        .help_index = PL_HELP(info ? PL_OBJ_PROCESSOR_INFORMATION : PL_OBJ_PROCESSOR),
        .detail_level = PERF_DETAIL_NOVICE,
        .default_counter = 0,
        .has_instances = 1,
        .perf_time = pl__filetime_now(),
        .perf_freq = PL_TICKS_PER_SEC,
    };
    int obj = 0;
    rc = pl_builder_add_object(b, &od, &obj);
    int h[NCPU_CTRS], marker = -1;
    uint32_t pos[NCPU_CTRS] = {0}, npos = 0;
    for (size_t i = 0; rc == PL_OK && i < NCPU_CTRS; i++) {
        const struct cpu_ctr *k = &cpu_ctrs[i];
        if (!used[i]) continue;
        pl_counter_desc d = {
            .name_index = k->idx,
            .help_index = PL_HELP(k->idx),
            .type = k->type,
            .detail_level = k->detail,
            .default_scale = k->scale,
            .base_type = k->type == PERF_PRECISION_100NS_TIMER ? PERF_PRECISION_TIMESTAMP : 0,
            .base_name_index = k->idx,
        };
        rc = pl_builder_add_counter(b, obj, &d, &h[i]);
        pos[i] = npos;
        npos += d.base_type ? 2u : 1u;
    }
    if (rc == PL_OK && any_bad) {
        /* the generic marker (docs/block-format.md), last */
        pl_counter_desc md = {
            .name_index = PL_CTR_UNAVAILABLE_COUNTERS,
            .help_index = PL_HELP(PL_CTR_UNAVAILABLE_COUNTERS),
            .type = PERF_COUNTER_LARGE_RAWCOUNT_HEX,
            .detail_level = PERF_DETAIL_WIZARD,
        };
        rc = pl_builder_add_counter(b, obj, &md, &marker);
    }
    for (uint32_t n = 0; rc == PL_OK && n < ninst; n++) {
        char name[48];
        instance_name(c, info, &refs[n], name, sizeof name);
        int inst;
        if ((rc = pl_builder_add_instance(b, obj, name, 0, 0, PERF_NO_UNIQUE_ID, &inst)) != PL_OK) break;
        uint64_t unav = 0;
        for (size_t i = 0; rc == PL_OK && i < NCPU_CTRS; i++) {
            if (!used[i]) continue;
            const struct cpu_ctr *k = &cpu_ctrs[i];
            uint64_t v, base;
            if (counter_value(k, &vals[n], st->nfields, c->hz, &v, &base)) {
                unav |= PL_UNAVAILABLE_BIT(pos[i]);
                if (k->type == PERF_PRECISION_100NS_TIMER) unav |= PL_UNAVAILABLE_BIT(pos[i] + 1);
            }
            rc = pl_builder_set_u64(b, obj, inst, h[i], v);
            if (rc == PL_OK && k->type == PERF_PRECISION_100NS_TIMER) rc = pl_builder_set_base(b, obj, inst, h[i], base);
        }
        if (rc == PL_OK && marker >= 0) rc = pl_builder_set_u64(b, obj, inst, marker, unav);
    }
    free(refs);
    free(vals);
    return rc;
}
