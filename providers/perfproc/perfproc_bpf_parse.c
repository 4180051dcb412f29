/* perflib: the records of PerfProc's BPF pass (perfproc_bpf.h) turned into
 * what the /proc readers would have read (pl_proc_stat, pl_proc_status,
 * pl_proc_io, the descriptor count, the threads' stat and schedstat), so
 * that the one build phase in perfproc.c makes the block from either source.
 *
 * The conversions are the kernel's own (docs/providers/perfproc.md, "The
 * BPF source"): cputime_adjust() for the user/system split,
 * nsec_to_clock_t() for ticks, pages to kB, the positive clamps of the
 * memory counters. The record stream is checked as hostile input (a pass
 * that does not parse whole is not used); tests/fuzz/fuzz_perfproc_bpf.c
 * feeds it random bytes. Nothing here touches the kernel: the functions
 * are pure, given the floors they keep. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "perfproc_int.h"

/* ------------------------------------------------------------ growable arrays */

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 256;
    while (c < need) {
        if (c > SIZE_MAX / 2 / elem) return -ENOMEM;
        c *= 2;
    }
    void *n = realloc(*p, c * elem);
    if (!n) return -ENOMEM;
    *p = n;
    *cap = c;
    return 0;
}

/* ------------------------------------------------------------ CPU times */

/* cputime_adjust() (kernel/sched/cputime.c): the tick-sampled user and
 * system times scaled so that they add up to the scheduler's precise
 * runtime, never below what `prev` (an earlier answer for this task) said.
 * The kernel keeps one `prev` per task, written by every /proc reader; the
 * pass reads it, and the reader keeps its own floor too (pp_floors) since
 * the pass does not write the kernel's. */
static void cputime_adjust(uint64_t utime, uint64_t stime, uint64_t rtime, uint64_t prev_u, uint64_t prev_s,
                           uint64_t *ut, uint64_t *st)
{
    if (prev_s + prev_u >= rtime) {
        *ut = prev_u;
        *st = prev_s;
        return;
    }
    if (stime == 0) {
        utime = rtime;
    } else if (utime == 0) {
        stime = rtime;
    } else {
        unsigned __int128 m = (unsigned __int128)stime * rtime;
        unsigned __int128 q = m / ((unsigned __int128)stime + utime);
        stime = q > rtime ? rtime : (uint64_t)q;
    }
    if (stime < prev_s) stime = prev_s;
    utime = rtime - stime;
    if (utime < prev_u) {
        utime = prev_u;
        stime = rtime - utime;
    }
    *ut = utime;
    *st = stime;
}

/* The floors one collection reads and the next one gets: sorted by id. */
static int floor_lookup(pp_floors *f, int32_t id, uint64_t start, uint64_t *u, uint64_t *s)
{
    while (f->cursor < f->nold && f->old[f->cursor].id < id) f->cursor++;
    if (f->cursor < f->nold && f->old[f->cursor].id == id && f->old[f->cursor].start == start) {
        *u = f->old[f->cursor].u;
        *s = f->old[f->cursor].s;
        return 1;
    }
    return 0;
}

static int floor_keep(pp_floors *f, int32_t id, uint64_t start, uint64_t u, uint64_t s)
{
    if (f->ncur && f->cur[f->ncur - 1].id >= id) return 0; /* not ascending: keep the first */
    if (grow((void **)&f->cur, &f->cur_cap, f->ncur + 1, sizeof *f->cur) != 0) return -ENOMEM;
    f->cur[f->ncur++] = (pp_floor){id, start, u, s};
    return 0;
}

static void floors_begin(pp_floors *f)
{
    f->cursor = 0;
    f->ncur = 0;
}

static void floors_commit(pp_floors *f)
{
    pp_floor *t = f->old;
    size_t c = f->old_cap;
    f->old = f->cur;
    f->old_cap = f->cur_cap;
    f->nold = f->ncur;
    f->cur = t;
    f->cur_cap = c;
    f->ncur = 0;
}

void pl__pp_floors_free(pp_floors *f)
{
    free(f->old);
    free(f->cur);
    memset(f, 0, sizeof *f);
}

/* What /proc would say now (the kernel's prev), then never below what this
 * reader said before for the same task (its floor): the user and system
 * times in ns. */
static int adjusted(pp_floors *f, int32_t id, uint64_t start, uint64_t utime, uint64_t stime, uint64_t rtime,
                    uint64_t kprev_u, uint64_t kprev_s, uint64_t *ut, uint64_t *st)
{
    uint64_t u, s;
    cputime_adjust(utime, stime, rtime, kprev_u, kprev_s, &u, &s);
    uint64_t fu, fs;
    if (floor_lookup(f, id, start, &fu, &fs) && fu + fs <= rtime) {
        if (s < fs) s = fs;
        u = rtime - s;
        if (u < fu) {
            u = fu;
            s = rtime - u;
        }
    }
    *ut = u;
    *st = s;
    return floor_keep(f, id, start, u, s);
}

/* nsec_to_clock_t() (kernel/time/time.c) for USER_HZ = hz. */
static uint64_t ns_to_ticks(uint64_t ns, long hz)
{
    if (hz <= 0) return 0;
    if (1000000000 % hz == 0) return ns / (uint64_t)(1000000000 / hz);
    if (hz % 512 == 0) return (uint64_t)((unsigned __int128)ns * (uint64_t)hz / 512 / (1000000000 / 512));
    return (uint64_t)((unsigned __int128)ns * 9 / ((9ull * 1000000000 + (uint64_t)hz / 2) / (uint64_t)hz));
}

/* ------------------------------------------------------------ the index */

static uint32_t kind_at(const uint8_t *p)
{
    uint32_t k;
    memcpy(&k, p, sizeof k);
    return k;
}

int pl__pp_bpf_index(const void *buf, size_t len, pp_bpf_index *ix)
{
    const uint8_t *b = buf;
    ix->nproc = ix->nall = ix->nthr = 0;
    ix->orphans = 0;
    if (len % 8 != 0 || ((uintptr_t)buf % 8) != 0) return -EINVAL;
    size_t off = 0;
    int32_t last_tid = 0, last_pid = 0;
    int ended = 0;
    uint64_t end_tasks = 0;
    while (off < len) {
        if (ended) return -EINVAL; /* bytes after the end record */
        if (len - off < 8) return -EINVAL;
        uint32_t k = kind_at(b + off);
        if (k == PP_REC_END) {
            if (len - off < sizeof(struct pp_rec_end)) return -EINVAL;
            const struct pp_rec_end *e = (const void *)(b + off);
            end_tasks = e->tasks;
            ended = 1;
            off += sizeof *e;
        } else if (k == PP_REC_PROC) {
            if (len - off < sizeof(struct pp_rec_proc) + sizeof(struct pp_rec_thread)) return -EINVAL;
            const struct pp_rec_proc *p = (const void *)(b + off);
            const struct pp_rec_thread *t = (const void *)(b + off + sizeof *p);
            /* a leader's record is followed by its own task record */
            if (kind_at((const uint8_t *)t) != PP_REC_THREAD || t->tid != p->pid || t->tgid != p->pid) return -EINVAL;
            if (p->pid <= last_pid) return -EINVAL;
            last_pid = p->pid;
            if (grow((void **)&ix->proc, &ix->proc_cap, ix->nproc + 1, sizeof *ix->proc) != 0) return -ENOMEM;
            ix->proc[ix->nproc++] = p;
            off += sizeof *p; /* its task record next */
        } else if (k == PP_REC_THREAD) {
            if (len - off < sizeof(struct pp_rec_thread)) return -EINVAL;
            const struct pp_rec_thread *t = (const void *)(b + off);
            if (t->tid <= last_tid || t->tgid <= 0) return -EINVAL;
            last_tid = t->tid;
            if (grow((void **)&ix->all, &ix->all_cap, ix->nall + 1, sizeof *ix->all) != 0) return -ENOMEM;
            ix->all[ix->nall++] = t;
            off += sizeof *t;
        } else {
            return -EINVAL;
        }
    }
    if (!ended || end_tasks != ix->nall) return -EINVAL; /* not a whole pass */
    /* Every task to its leader: count, then place (ascending tid within a
     * process, since the tasks come in ascending tid order). */
    if (ix->nall > UINT32_MAX - 1 || ix->nproc > UINT32_MAX - 1) return -EINVAL;
    if (grow((void **)&ix->tfirst, &ix->tfirst_cap, ix->nproc + 1, sizeof *ix->tfirst) != 0 ||
        grow((void **)&ix->owner, &ix->owner_cap, ix->nall ? ix->nall : 1, sizeof *ix->owner) != 0 ||
        grow((void **)&ix->thr, &ix->thr_cap, ix->nall ? ix->nall : 1, sizeof *ix->thr) != 0)
        return -ENOMEM;
    memset(ix->tfirst, 0, (ix->nproc + 1) * sizeof *ix->tfirst);
    for (size_t i = 0; i < ix->nall; i++) {
        int32_t tg = ix->all[i]->tgid;
        size_t lo = 0, hi = ix->nproc;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (ix->proc[mid]->pid < tg) lo = mid + 1;
            else hi = mid;
        }
        if (lo < ix->nproc && ix->proc[lo]->pid == tg) {
            ix->owner[i] = (uint32_t)lo;
            ix->tfirst[lo + 1]++;
        } else {
            ix->owner[i] = UINT32_MAX; /* its leader was not visited: mid-exec, or hidden */
            ix->orphans++;
        }
    }
    for (size_t j = 0; j < ix->nproc; j++) ix->tfirst[j + 1] += ix->tfirst[j];
    /* tfirst[j] is the start of process j; fill with a running cursor per
     * process, kept in owner's place once used */
    for (size_t i = 0; i < ix->nall; i++) {
        uint32_t o = ix->owner[i];
        if (o == UINT32_MAX) continue;
        ix->thr[ix->tfirst[o]++] = (uint32_t)i;
    }
    /* the cursors moved each start to the next one's: shift back */
    for (size_t j = ix->nproc; j > 0; j--) ix->tfirst[j] = ix->tfirst[j - 1];
    ix->tfirst[0] = 0;
    ix->nthr = ix->nall - ix->orphans;
    return 0;
}

void pl__pp_bpf_index_free(pp_bpf_index *ix)
{
    free(ix->proc);
    free(ix->all);
    free(ix->thr);
    free(ix->tfirst);
    free(ix->owner);
    free(ix->tt);
    free(ix->pt);
    memset(ix, 0, sizeof *ix);
}

/* ------------------------------------------------------------ conversion */

/* pages to kB, as /proc/<pid>/status prints them */
static uint64_t pages_kb(uint64_t pages, unsigned page_shift)
{
    unsigned sh = page_shift >= 10 ? page_shift - 10 : 0;
    return pages > (UINT64_MAX >> sh) ? UINT64_MAX : pages << sh;
}

static uint64_t positive(int64_t v)
{
    return v < 0 ? 0 : (uint64_t)v;
}

/* The common part of a task's stat line. */
static void thread_stat(const pp_bpf_conv *cv, const struct pp_rec_thread *t, pl_proc_stat *st)
{
    st->pid = t->tid;
    st->state = (char)(t->state >= 0x20 && t->state < 0x7f ? t->state : '?');
    st->flags = t->task_flags;
    st->nice = (int64_t)t->static_prio - 120;
    st->priority = 0;
    st->starttime = ns_to_ticks(t->start_boottime + (uint64_t)cv->boot_offset_ns, cv->hz);
    st->processor = t->cpu;
    st->rt_priority = t->rt_priority;
    st->policy = t->policy;
}

int pl__pp_bpf_times(const pp_bpf_conv *cv, pp_bpf_index *ix, pp_floors *procs, pp_floors *threads)
{
    if (grow((void **)&ix->tt, &ix->tt_cap, ix->nall ? ix->nall * 2 : 2, sizeof *ix->tt) != 0 ||
        grow((void **)&ix->pt, &ix->pt_cap, ix->nproc ? ix->nproc * 2 : 2, sizeof *ix->pt) != 0)
        return -ENOMEM;
    floors_begin(threads);
    for (size_t i = 0; i < ix->nall; i++) {
        const struct pp_rec_thread *t = ix->all[i];
        uint64_t u, s;
        if (adjusted(threads, t->tid, t->start_boottime, t->utime, t->stime, t->runtime, t->prev_utime,
                     t->prev_stime, &u, &s) != 0)
            return -ENOMEM;
        ix->tt[2 * i] = ns_to_ticks(u, cv->hz);
        ix->tt[2 * i + 1] = ns_to_ticks(s, cv->hz);
    }
    floors_begin(procs);
    for (size_t j = 0; j < ix->nproc; j++) {
        const struct pp_rec_proc *p = ix->proc[j];
        const struct pp_rec_thread *lead = (const void *)(p + 1);
        uint64_t u, s;
        if (adjusted(procs, p->pid, lead->start_boottime, p->utime, p->stime, p->runtime, p->prev_utime,
                     p->prev_stime, &u, &s) != 0)
            return -ENOMEM;
        ix->pt[2 * j] = ns_to_ticks(u, cv->hz);
        ix->pt[2 * j + 1] = ns_to_ticks(s, cv->hz);
    }
    floors_commit(threads);
    floors_commit(procs);
    return 0;
}

int pl__pp_bpf_slot(const pp_bpf_conv *cv, const pp_bpf_index *ix, size_t j, pp_slot *s, pp_arena *a)
{
    const struct pp_rec_proc *p = ix->proc[j];
    const struct pp_rec_thread *lead = (const void *)(p + 1);
    memset(&s->st, 0, sizeof s->st);
    memset(&s->ss, 0, sizeof s->ss);
    memset(&s->io, 0, sizeof s->io);
    s->state = PP_OK;
    s->unav = 0;
    s->fds = (p->flags & PPF_FILES) ? (int64_t)(p->fds > INT64_MAX ? INT64_MAX : p->fds) : 0;
    /* stat */
    pl_proc_stat *st = &s->st;
    thread_stat(cv, lead, st);
    st->pid = p->pid;
    size_t cl = strnlen(p->comm, PP_COMM_LEN);
    if (cl >= sizeof st->comm) cl = sizeof st->comm - 1;
    memcpy(st->comm, p->comm, cl);
    st->comm[cl] = '\0';
    st->ppid = p->ppid;
    st->minflt = p->min_flt;
    st->majflt = p->maj_flt;
    st->utime = ix->pt[2 * j];
    st->stime = ix->pt[2 * j + 1];
    st->num_threads = p->nr_threads;
    st->vsize = p->total_vm > (UINT64_MAX >> cv->page_shift) ? UINT64_MAX : p->total_vm << cv->page_shift;
    st->rss = positive(p->rss_count[PP_MM_FILEPAGES]) + positive(p->rss_count[PP_MM_ANONPAGES]) +
              positive(p->rss_count[PP_MM_SHMEMPAGES]);
    /* status */
    pl_proc_status *ss = &s->ss;
    ss->have = PL_PST_THREADS | PL_PST_VOLCTXT | PL_PST_NONVOLCTXT;
    ss->threads = p->nr_threads;
    ss->vol_ctxt = p->nvcsw;
    ss->nonvol_ctxt = p->nivcsw;
    if (p->flags & PPF_MM) {
        uint64_t anon = positive(p->rss_sum[PP_MM_ANONPAGES]), file = positive(p->rss_sum[PP_MM_FILEPAGES]);
        uint64_t shmem = positive(p->rss_sum[PP_MM_SHMEMPAGES]);
        uint64_t total_rss = anon + file + shmem;
        uint64_t hwm = p->hiwater_rss > total_rss ? p->hiwater_rss : total_rss;
        uint64_t peak = p->hiwater_vm > p->total_vm ? p->hiwater_vm : p->total_vm;
        ss->have |= PL_PST_VM_ALL;
        ss->vm_peak = pages_kb(peak, cv->page_shift);
        ss->vm_size = pages_kb(p->total_vm, cv->page_shift);
        ss->vm_hwm = pages_kb(hwm, cv->page_shift);
        ss->vm_rss = pages_kb(total_rss, cv->page_shift);
        ss->rss_anon = pages_kb(anon, cv->page_shift);
        ss->rss_file = pages_kb(file, cv->page_shift);
        ss->rss_shmem = pages_kb(shmem, cv->page_shift);
        ss->vm_data = pages_kb(p->data_vm, cv->page_shift);
        ss->vm_stk = pages_kb(p->stack_vm, cv->page_shift);
        ss->vm_swap = pages_kb(positive(p->rss_sum[PP_MM_SWAPENTS]), cv->page_shift);
    }
    /* io */
    s->io.rchar = p->rchar;
    s->io.wchar = p->wchar;
    s->io.syscr = p->syscr;
    s->io.syscw = p->syscw;
    /* threads, into the arena */
    s->t0 = a->n;
    s->nt = 0;
    uint32_t first = ix->tfirst[j], end = ix->tfirst[j + 1];
    for (uint32_t i = first; i < end; i++) {
        if (a->n == a->cap) {
            size_t nc = a->cap ? a->cap * 2 : 256;
            pp_thread *nt = realloc(a->t, nc * sizeof *nt);
            if (!nt) return -ENOMEM;
            a->t = nt;
            a->cap = nc;
        }
        uint32_t k = ix->thr[i];
        const struct pp_rec_thread *t = ix->all[k];
        pp_thread *o = &a->t[a->n++];
        memset(o, 0, sizeof *o);
        o->tid = t->tid;
        thread_stat(cv, t, &o->st);
        o->st.minflt = t->min_flt;
        o->st.majflt = t->maj_flt;
        o->st.utime = ix->tt[2 * k];
        o->st.stime = ix->tt[2 * k + 1];
        o->st.num_threads = p->nr_threads;
        o->ss.slices = t->pcount;
        o->ss.run_ns = t->runtime;
        if (!(t->flags & PPF_SCHED_INFO)) o->unav = UNAV_SCHEDSTAT;
        s->nt++;
    }
    return 0;
}
