/* pview: turning snapshots into process and thread rows.
 *
 * One block per refresh (Process, and Thread when the thread pane needs it).
 * Rates are computed by PDH's formulas (pl_pdh_calc_type) from PDH's raw
 * samples (pl_pdh_block_raw: the value and its type's time base) of this
 * snapshot and the previous one of the SAME process or thread: rows are matched by
 * (ID Process, start time) and (ID Process, ID Thread, start time), so a pid
 * that was reused or a name that now belongs to another process never mixes
 * two processes' numbers; such a row shows no rate for that interval. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/indices.h"
#include "perflib/winperf.h"
#include "pview.h"

struct pv_praw {
    uint32_t pid;
    int64_t start;
    pl_pdh_raw r[5];          /* cpu, user, priv, faults, io: PDH's raw samples */
};

struct pv_traw {
    uint32_t pid, tid;
    int64_t start;
    pl_pdh_raw r[4];          /* cpu, user, priv, context switches */
};

/* A two-sample rate by PDH's formulas from PDH's raw samples (time bases
 * included: pl_pdh_block_raw), or NaN. */
static double rate(uint32_t type, int64_t freq, const pl_pdh_raw *now, const pl_pdh_raw *then, uint32_t fmt_extra)
{
    if (now->cstatus != PL_PDH_CSTATUS_VALID_DATA || then->cstatus != PL_PDH_CSTATUS_VALID_DATA) return NAN;
    pl_pdh_value out;
    if (pl_pdh_calc_type(type, freq, 0, PL_PDH_FMT_DOUBLE | PL_PDH_FMT_NOSCALE | fmt_extra, now, then, &out) !=
        PL_PDH_CSTATUS_VALID_DATA)
        return NAN;
    return out.v.double_value;
}

/* The columns pview reads, by title index. */
enum { P_CPU, P_USER, P_PRIV, P_FAULTS, P_IO, P_WS, P_PRIVATE, P_VIRT, P_THREADS, P_HANDLES, P_PRIO, P_ELAPSED,
       P_PID, P_PPID, P_NICE, P_N };
static const uint32_t proc_idx[P_N] = {6, 142, 144, 28, 1424, 180, 186, 174, 680, 952, 682, 684, 784, 1410, 1930};

enum { T_CPU, T_USER, T_PRIV, T_CSW, T_ELAPSED, T_PCUR, T_PBASE, T_STATE, T_WAIT, T_PID, T_TID, T_N };
static const uint32_t thr_idx[T_N] = {6, 142, 144, 146, 684, 694, 682, 46, 336, 784, 804};

typedef struct cols {
    pl_counter c[P_N];
    int have[P_N];
} cols;

static void find_cols(const pl_object *o, const uint32_t *idx, int n, cols *out)
{
    for (int i = 0; i < n; i++) out->have[i] = pl_object_find_counter(o, idx[i], &out->c[i]) == PL_OK;
}

/* A counter's value for an instance: 1 when it is there and available. */
static int get(const cols *k, int i, const pl_instance *in, uint64_t *v)
{
    if (!k->have[i] || !pl_counter_available(&k->c[i], in)) return 0;
    return pl_counter_value(&k->c[i], in, v) == PL_OK;
}

static double getd(const cols *k, int i, const pl_instance *in)
{
    uint64_t v;
    if (!get(k, i, in, &v)) return NAN;
    uint32_t size = k->c[i].def.CounterType & 0x300u;
    if (size == PERF_SIZE_DWORD && i == P_NICE) return (double)(int32_t)(uint32_t)v;
    return (double)v;
}

/* Elapsed seconds of a PERF_ELAPSED_TIME value, or NaN. */
static double elapsed(const pl_block *b, const pl_object *o, const cols *k, int i, const pl_instance *in)
{
    if (!k->have[i]) return NAN;
    pl_pdh_raw r;
    int64_t freq;
    if (pl_pdh_block_raw(b, o, &k->c[i], in, &r, &freq) != PL_PDH_CSTATUS_VALID_DATA) return NAN;
    pl_pdh_value out;
    if (pl_pdh_calc_type(k->c[i].def.CounterType, freq, 0, PL_PDH_FMT_DOUBLE | PL_PDH_FMT_NOSCALE, &r, NULL, &out) !=
        PL_PDH_CSTATUS_VALID_DATA)
        return NAN;
    return out.v.double_value;
}

/* PDH's raw sample of rated column i, and the frequency of its time base;
 * cstatus INVALID_DATA when the column is missing or unavailable. */
static void raw_of(const pl_block *b, const pl_object *o, const cols *k, int i, const pl_instance *in, pl_pdh_raw *r,
                   int64_t *freq)
{
    memset(r, 0, sizeof *r);
    r->cstatus = PL_PDH_CSTATUS_INVALID_DATA;
    *freq = 0;
    if (k->have[i]) pl_pdh_block_raw(b, o, &k->c[i], in, r, freq);
}

static int cmp_praw(const void *a, const void *b)
{
    const pv_praw *x = a, *y = b;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

static int cmp_traw(const void *a, const void *b)
{
    const pv_traw *x = a, *y = b;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need) {
        if (n > SIZE_MAX / 2 / size) return -1;
        n *= 2;
    }
    void *q = realloc(*p, n * size);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

void pv_model_init(pv_model *m)
{
    memset(m, 0, sizeof *m);
}

void pv_model_free(pv_model *m)
{
    free(m->procs);
    free(m->procs_b);
    free(m->threads);
    free(m->threads_b);
    free(m->praw);
    free(m->praw_b);
    free(m->traw);
    free(m->traw_b);
    memset(m, 0, sizeof *m);
}

#define SWAP(T, a, b)                                                                                          \
    do {                                                                                                       \
        T swap_tmp_ = (a);                                                                                     \
        (a) = (b);                                                                                             \
        (b) = swap_tmp_;                                                                                       \
    } while (0)

/* Rows go to the spare buffers (procs_b, praw_b, ...); the previous sample's
 * raws (praw, traw) are what rates are computed against. */
static int read_procs(pv_model *m, const pl_block *b, const pl_object *o, size_t *nout, size_t *nraw, pl_error *err)
{
    cols k;
    find_cols(o, proc_idx, P_N, &k);
    if (!k.have[P_PID]) {
        pv_err(err, PL_E_BAD_BLOCK, "Process object without ID Process (784)");
        return PL_E_BAD_BLOCK;
    }
    uint32_t n = pl_object_num_instances(o);
    if (grow((void **)&m->procs_b, &m->cap_procs_b, n, sizeof *m->procs_b) ||
        grow((void **)&m->praw_b, &m->cap_praw_b, n, sizeof *m->praw_b)) {
        pv_err(err, PL_E_NOMEM, "out of memory for %u processes", n);
        return PL_E_NOMEM;
    }
    size_t np = 0;
    pl_instance in;
    int rc = pl_object_instance(o, 0, &in);
    for (; rc == PL_OK && np < n; rc = pl_instance_next(&in, &in)) {
        pv_proc *p = &m->procs_b[np];
        memset(p, 0, sizeof *p);
        p->position = in.position;
        pl_instance_name(&in, p->name, sizeof p->name); /* a long name is cut, never refused */
        uint64_t v;
        p->pid = get(&k, P_PID, &in, &v) ? (uint32_t)v : 0;
        p->ppid = get(&k, P_PPID, &in, &v) ? (uint32_t)v : 0;
        p->start = get(&k, P_ELAPSED, &in, &v) ? (int64_t)v : 0;
        if (strcmp(p->name, "_Total") == 0 && p->pid == 0) p->special = 2;
        else if (strcmp(p->name, "Idle") == 0 && p->pid == 0) p->special = 1;
        p->ws = getd(&k, P_WS, &in);
        p->private_bytes = getd(&k, P_PRIVATE, &in);
        p->virtual_bytes = getd(&k, P_VIRT, &in);
        p->threads = getd(&k, P_THREADS, &in);
        p->handles = getd(&k, P_HANDLES, &in);
        p->prio = getd(&k, P_PRIO, &in);
        p->nice = getd(&k, P_NICE, &in);
        p->elapsed = p->special == 2 ? NAN : elapsed(b, o, &k, P_ELAPSED, &in);
        pv_praw *r = &m->praw_b[np];
        memset(r, 0, sizeof *r);
        r->pid = p->special == 2 ? UINT32_MAX : p->pid;
        r->start = p->start;
        static const int rated[5] = {P_CPU, P_USER, P_PRIV, P_FAULTS, P_IO};
        int64_t freq[5];
        for (int i = 0; i < 5; i++) raw_of(b, o, &k, rated[i], &in, &r->r[i], &freq[i]);
        double *out[5] = {&p->cpu, &p->user, &p->priv, &p->faults, &p->io};
        for (int i = 0; i < 5; i++) *out[i] = NAN;
        const pv_praw *old = m->npraw ? bsearch(r, m->praw, m->npraw, sizeof *r, cmp_praw) : NULL;
        if (old)
            for (int i = 0; i < 5; i++)
                *out[i] = rate(k.c[rated[i]].def.CounterType, freq[i], &r->r[i], &old->r[i], PL_PDH_FMT_NOCAP100);
        np++;
    }
    *nout = *nraw = np;
    return PL_OK;
}

static int read_threads(pv_model *m, const pl_block *b, const pl_object *o, size_t *nout, pl_error *err)
{
    cols k;
    find_cols(o, thr_idx, T_N, &k);
    uint32_t n = pl_object_num_instances(o);
    if (grow((void **)&m->threads_b, &m->cap_threads_b, n, sizeof *m->threads_b) ||
        grow((void **)&m->traw_b, &m->cap_traw_b, n, sizeof *m->traw_b)) {
        pv_err(err, PL_E_NOMEM, "out of memory for %u threads", n);
        return PL_E_NOMEM;
    }
    size_t nt = 0;
    uint32_t nzero = 0; /* threads with ID Process 0 seen so far */
    pl_instance in;
    int rc = pl_object_instance(o, 0, &in);
    for (; rc == PL_OK && nt < n; rc = pl_instance_next(&in, &in)) {
        pv_thread *t = &m->threads_b[nt];
        memset(t, 0, sizeof *t);
        uint64_t v;
        t->pid = get(&k, T_PID, &in, &v) ? (uint32_t)v : 0;
        t->tid = get(&k, T_TID, &in, &v) ? (uint32_t)v : 0;
        t->start = get(&k, T_ELAPSED, &in, &v) ? (int64_t)v : 0;
        t->parent = (int32_t)in.def.ParentObjectInstance;
        t->state = getd(&k, T_STATE, &in);
        t->wait_reason = getd(&k, T_WAIT, &in);
        t->prio_cur = getd(&k, T_PCUR, &in);
        t->prio_base = getd(&k, T_PBASE, &in);
        t->start_address = NAN;
        pv_traw *r = &m->traw_b[nt];
        memset(r, 0, sizeof *r);
        r->pid = t->pid;
        r->tid = t->tid;
        /* Idle/N and _Total/_Total all carry ID Process 0 and ID Thread 0:
         * they are told apart by their order, which a CPU count keeps */
        if (t->pid == 0) r->tid = 0x80000000u | nzero++;
        r->start = t->start;
        static const int rated[4] = {T_CPU, T_USER, T_PRIV, T_CSW};
        int64_t freq[4];
        for (int i = 0; i < 4; i++) raw_of(b, o, &k, rated[i], &in, &r->r[i], &freq[i]);
        double *out[4] = {&t->cpu, &t->user, &t->priv, &t->cswitch};
        for (int i = 0; i < 4; i++) *out[i] = NAN;
        const pv_traw *old = m->ntraw ? bsearch(r, m->traw, m->ntraw, sizeof *r, cmp_traw) : NULL;
        if (old)
            for (int i = 0; i < 4; i++)
                *out[i] = rate(k.c[rated[i]].def.CounterType, freq[i], &r->r[i], &old->r[i], PL_PDH_FMT_NOCAP100);
        nt++;
    }
    *nout = nt;
    return PL_OK;
}

int pv_model_update(pv_model *m, const void *block, size_t len, pl_error *err)
{
    pl_block b;
    int rc = pl_block_open(&b, block, len, 0, 0, err);
    if (rc != PL_OK) return rc;
    if (!b.has_header) {
        pv_err(err, PL_E_BAD_BLOCK, "the snapshot has no PERF_DATA_BLOCK header");
        return PL_E_BAD_BLOCK;
    }
    pl_object po, to;
    if (pl_block_find_object(&b, 230, &po) != PL_OK) {
        pv_err(err, PL_E_NOT_FOUND, "the snapshot has no Process object (230)");
        return PL_E_NOT_FOUND;
    }
    int have_thr = pl_block_find_object(&b, 232, &to) == PL_OK;
    size_t np = 0, npraw = 0, nt = 0;
    rc = read_procs(m, &b, &po, &np, &npraw, err);
    if (rc == PL_OK && have_thr) rc = read_threads(m, &b, &to, &nt, err);
    if (rc != PL_OK) return rc; /* nothing visible changed */
    SWAP(pv_proc *, m->procs, m->procs_b);
    SWAP(size_t, m->cap_procs, m->cap_procs_b);
    SWAP(pv_praw *, m->praw, m->praw_b);
    SWAP(size_t, m->cap_praw, m->cap_praw_b);
    m->nprocs = np;
    m->npraw = npraw;
    qsort(m->praw, m->npraw, sizeof *m->praw, cmp_praw);
    if (have_thr) {
        SWAP(pv_thread *, m->threads, m->threads_b);
        SWAP(size_t, m->cap_threads, m->cap_threads_b);
        SWAP(pv_traw *, m->traw, m->traw_b);
        SWAP(size_t, m->cap_traw, m->cap_traw_b);
        m->ntraw = nt;
        qsort(m->traw, m->ntraw, sizeof *m->traw, cmp_traw);
    }
    m->nthreads = have_thr ? nt : 0; /* the thread raws stay for when the pane comes back */
    m->have_threads = have_thr;
    m->time = b.hdr.PerfTime100nSec.QuadPart;
    memcpy(m->machine, b.system_name, sizeof m->machine);
    m->machine[sizeof m->machine - 1] = 0;
    m->samples++;
    return PL_OK;
}
