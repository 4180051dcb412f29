/* PDH collection: one collection per machine for a query's counters, each
 * object's instance names read once for all its counters; the raw values
 * of a counter from a block, and the identity of the instance each sample
 * was taken from (a rate across two processes is no data). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdh_internal.h"
#include "perflib/block.h"
#include "perflib/winperf.h"

/* ------------------------------------------------------------- raw fill */

/* Which of the counter's values are 4 bytes wide: a 32-bit value wraps
 * and PDH unwraps one wrap (pdh_calc.c); an 8-byte one does not wrap. */
unsigned pl__pdh_counter_narrow(const pl_counter *c)
{
    unsigned w = 0;
    if ((c->def.CounterType & PERF_SIZE_MASK) == PERF_SIZE_DWORD && c->def.CounterSize == 4) w |= PL__PDH_NARROW_N;
    if (c->has_base && c->base.CounterSize == 4) w |= PL__PDH_NARROW_B;
    return w;
}

int64_t pl__pdh_freq_of(const pl_block *b, const pl_object *o, uint32_t type)
{
    int64_t f;
    pl_pdh_time_base(b, o, type, NULL, &f);
    return f;
}

PL_EXTERN uint32_t pl_pdh_block_raw(const pl_block *b, const pl_object *o, const pl_counter *c, const pl_instance *in,
                                    pl_pdh_raw *r, int64_t *freq)
{
    uint32_t type = c->def.CounterType;
    memset(r, 0, sizeof *r);
    if (freq) *freq = pl__pdh_freq_of(b, o, type);
    uint64_t v = 0, base = 0;
    r->cstatus = PL_PDH_CSTATUS_INVALID_DATA;
    if (!pl__pdh_displayable(type) || pl_counter_value(c, in, &v) != PL_OK) return r->cstatus;
    /* Marked unreadable by its provider (docs/block-format.md, "Unavailable
     * values"): no number, not even the raw 0. */
    if (!pl_counter_available(c, in)) return r->cstatus;
    r->first = (int64_t)v;
    switch (type) {
    case PERF_COUNTER_RAWCOUNT: case PERF_COUNTER_LARGE_RAWCOUNT: case PERF_COUNTER_RAWCOUNT_HEX:
    case PERF_COUNTER_LARGE_RAWCOUNT_HEX: case PERF_COUNTER_DELTA: case PERF_COUNTER_LARGE_DELTA:
        r->second = 0;
        break;
    case PERF_RAW_FRACTION: case PERF_LARGE_RAW_FRACTION: case PERF_SAMPLE_FRACTION: case PERF_AVERAGE_TIMER:
    case PERF_AVERAGE_BULK: case PERF_PRECISION_SYSTEM_TIMER: case PERF_PRECISION_100NS_TIMER:
    case PERF_PRECISION_OBJECT_TIMER:
        if (pl_counter_base(c, in, &base) != PL_OK) return r->cstatus;
        r->second = (int64_t)base;
        break;
    default: /* PERF_ELAPSED_TIME too: an object-timer type */
        pl_pdh_time_base(b, o, type, &r->second, NULL);
        if (type & PERF_MULTI_COUNTER) {
            if (pl_counter_base(c, in, &base) != PL_OK) return r->cstatus;
            r->multi_count = (uint32_t)base;
        }
    }
    r->cstatus = PL_PDH_CSTATUS_VALID_DATA;
    return r->cstatus;
}

/* fill_raw's stamp is the sample's time as a local-time FILETIME, as
 * Windows fills PDH_RAW_COUNTER.TimeStamp (query->stamp). */
static void fill_raw(const pl_block *b, const pl_object *o, const pl_counter *c, const pl_instance *in, int64_t stamp,
                     pl_pdh_raw *r)
{
    pl_pdh_block_raw(b, o, c, in, r, NULL);
    r->timestamp = stamp;
}

void pl__pdh_no_data(pl_pdh_raw *r, uint32_t cs)
{
    memset(r, 0, sizeof *r);
    r->cstatus = cs;
}

/* ---------------------------------------------------- instance identity */

/* The counters of an object that say which process, thread or creation an
 * instance is, found once per object and collection. */
typedef struct idctx {
    const pl_object *o;
    pl_counter c[3];          /* ID Process, ID Thread, creation time */
    int have[3];
} idctx;

#define IDX_ID_PROCESS 784u   /* ID Process */
#define IDX_ID_THREAD 804u    /* ID Thread */

static void idctx_init(idctx *x, const pl_object *o)
{
    memset(x, 0, sizeof *x);
    x->o = o;
    pl_counter c; /* walked with pl_counter_next: linear */
    for (uint32_t i = 0; i < o->hdr.NumCounters; i++) {
        if ((i ? pl_counter_next(&c, &c) : pl_object_counter(o, 0, &c)) != PL_OK) break;
        int k = c.def.CounterNameTitleIndex == IDX_ID_PROCESS && !x->have[0] ? 0
              : c.def.CounterNameTitleIndex == IDX_ID_THREAD && !x->have[1] ? 1
              : c.def.CounterType == PERF_ELAPSED_TIME && !x->have[2] ? 2 : -1;
        if (k < 0) continue;
        x->c[k] = c;
        x->have[k] = 1;
    }
}

static pl__pdh_ident ident_of(const idctx *x, const pl_instance *in)
{
    pl__pdh_ident id = {PERF_NO_UNIQUE_ID, 0, 0, 0};
    /* an object without instances has one "instance": nothing to compare */
    if (!in || in->position < 0) return id;
    id.uid = in->def.UniqueID;
    uint64_t *dst[3] = {&id.pid, &id.tid, &id.start};
    for (int k = 0; k < 3; k++) {
        uint64_t v = 0;
        if (x->have[k] && pl_counter_available(&x->c[k], in) && pl_counter_value(&x->c[k], in, &v) == PL_OK) *dst[k] = v;
    }
    return id;
}

/* The same instance? A creation time may differ by up to 1/50 s of the
 * object's clock (a provider reopened re-derives its boot time); a
 * different process or thread id or unique id is another instance. */
static int same_ident(const pl__pdh_ident *a, const pl__pdh_ident *b, int64_t freq)
{
    if (a->uid != b->uid || a->pid != b->pid || a->tid != b->tid) return 0;
    uint64_t d = a->start > b->start ? a->start - b->start : b->start - a->start;
    uint64_t tol = freq > 0 ? (uint64_t)freq / 50u : 0;
    return d <= tol;
}

/* Fill an item's newer sample from instance `in` (NULL: absent, status cs)
 * and drop its older sample when that came from another instance
 * (a process that exited and a same-named one that took its key): a rate
 * across two processes is no data, never a number. */
static void fill_item(pl__pdh_item *it, const pl_block *b, const pl_object *o, const pl_counter *ctr, const idctx *x,
                      const pl_instance *in, int64_t stamp)
{
    fill_raw(b, o, ctr, in, stamp, &it->cur);
    it->cur_id = ident_of(x, in);
    if (it->prev.cstatus == PL_PDH_CSTATUS_VALID_DATA && !same_ident(&it->cur_id, &it->prev_id, o->hdr.PerfFreq.QuadPart))
        pl__pdh_no_data(&it->prev, PL_PDH_CSTATUS_INVALID_DATA);
}

static int cmp_item(const void *a, const void *b)
{
    return strcmp(((const pl__pdh_item *)a)->key, ((const pl__pdh_item *)b)->key);
}

/* ------------------------------------------ one object, one collection */

/* What every counter of one object needs from one snapshot, made once per
 * collection however many counters read the object (typeperf's expanded
 * \\Process(*)\\* is thousands of counters over one object): its instance
 * names, an index to find a named instance without walking them all (the
 * walk per counter made 2,000 counters over 2,000 threads 4 million name
 * comparisons a sample), and its identity counters. */
typedef struct objview {
    uint32_t obj_index;
    pl_object o;
    int loaded;               /* x and its index are made (st says how) */
    uint32_t st;
    pl__inames x;
    idctx idc;
} objview;

static void objview_free(objview *v) { pl__pdh_inames_free(&v->x); }

/* The object's instance names and indexes, made on first need. 0 or a PDH
 * status (out of memory). */
static uint32_t objview_load(objview *v)
{
    if (v->loaded) return v->st;
    v->loaded = 1;
    if (!pl__pdh_instanced(&v->o)) return v->st = 0;
    if ((v->st = pl__pdh_inames_load(&v->o, &v->x)) != 0) return v->st;
    return v->st = pl__pdh_inames_index(&v->x);
}

/* Update a wildcard counter's items from the object's current instances. */
static uint32_t update_wild(pl_pdh_counter *c, const pl_block *b, objview *v, const pl_counter *ctr)
{
    const pl_object *o = &v->o;
    uint32_t st = objview_load(v);
    if (st) return st;
    const pl__inames x = v->x;
    size_t m = 0;
    for (uint32_t i = 0; i < x.n; i++) m += pl__pdh_inst_match(&c->p, &x.v[i]);
    pl__pdh_item *nv = calloc(m ? m : 1, sizeof *nv);
    if (!nv) return PL_PDH_MEMORY_ALLOCATION_FAILURE;
    /* old items sorted by key for lookup */
    if (c->nitems > 1) qsort(c->items, c->nitems, sizeof *c->items, cmp_item);
    size_t k = 0;
    for (uint32_t i = 0; i < x.n; i++) {
        if (!pl__pdh_inst_match(&c->p, &x.v[i])) continue;
        pl__pdh_item *it = &nv[k++];
        it->key = pl__strdup(x.v[i].key); /* the names are every counter's of this object */
        if (!it->key) {
            for (size_t j = 0; j + 1 < k; j++) free(nv[j].key);
            free(nv);
            return PL_PDH_MEMORY_ALLOCATION_FAILURE;
        }
        pl__pdh_item probe = {.key = it->key};
        pl__pdh_item *old = c->nitems ? bsearch(&probe, c->items, c->nitems, sizeof *c->items, cmp_item) : NULL;
        if (old) {
            it->prev = old->cur;
            it->prev_id = old->cur_id;
        } else {
            pl__pdh_no_data(&it->prev, PL_PDH_CSTATUS_INVALID_DATA);
        }
        if (ctr) fill_item(it, b, o, ctr, &v->idc, &x.v[i].inst, c->q->stamp);
        else pl__pdh_no_data(&it->cur, PL_PDH_CSTATUS_NO_COUNTER);
    }
    for (size_t i = 0; i < c->nitems; i++) free(c->items[i].key);
    free(c->items);
    c->items = nv;
    c->nitems = m;
    return 0;
}

/* One instance a counter-wildcard counter reads this time. */
typedef struct cw_inst {
    const char *key;          /* item key prefix; NULL: the object has no instances */
    const pl_instance *in;    /* NULL: missing (values carry NO_INSTANCE) */
} cw_inst;

/* Update a counter-wildcard counter from the object's current counter
 * definitions and instances: one item per (counter, instance), counters in
 * definition order (bases left out), instances in block order, and the
 * previous sample of each found by its key. */
static uint32_t update_cwild(pl_pdh_counter *c, const pl_block *b, objview *v)
{
    const pl_object *o = &v->o;
    const pl_pdh_path_elements *pe = &c->p.e;
    pl__inames x = {0};
    cw_inst *ins = NULL;
    size_t nin = 0;
    pl_instance single;
    uint32_t st = 0;
    char *fixed = NULL;
    if (!pe->instance) {
        ins = calloc(1, sizeof *ins);
        if (!ins) return PL_PDH_MEMORY_ALLOCATION_FAILURE;
        nin = 1;
        ins[0].key = NULL;
        ins[0].in = (!pl__pdh_instanced(o) && pl_object_instance(o, -1, &single) == PL_OK) ? &single : NULL;
    } else {
        if ((st = objview_load(v)) != 0) return st;
        x = v->x;
        ins = calloc(x.n + 1, sizeof *ins);
        if (!ins) return PL_PDH_MEMORY_ALLOCATION_FAILURE;
        if (c->p.inst_wild || c->p.parent_wild) {
            for (uint32_t i = 0; i < x.n; i++)
                if (pl__pdh_inst_match(&c->p, &x.v[i])) { ins[nin].key = x.v[i].key; ins[nin++].in = &x.v[i].inst; }
        } else {
            /* a named instance: its key as the path spells it, present or not */
            size_t l = strlen(pe->instance) + (pe->parent ? strlen(pe->parent) + 1 : 0) + 12;
            fixed = malloc(l);
            if (!fixed) { free(ins); return PL_PDH_MEMORY_ALLOCATION_FAILURE; }
            int w = snprintf(fixed, l, "%s%s%s", pe->parent ? pe->parent : "", pe->parent ? "/" : "", pe->instance);
            if (pe->index) snprintf(fixed + w, l - (size_t)w, "#%u", (unsigned)pe->index);
            uint32_t i = pl__pdh_inames_find(&v->x, &c->p);
            ins[0].key = fixed;
            ins[0].in = i < x.n ? &x.v[i].inst : NULL;
            nin = 1;
        }
    }
    uint32_t nctr = o->hdr.NumCounters;
    pl__pdh_item *nv = calloc((size_t)nctr * nin + 1, sizeof *nv);
    if (!nv) { st = PL_PDH_MEMORY_ALLOCATION_FAILURE; goto out; }
    if (c->nitems > 1) qsort(c->items, c->nitems, sizeof *c->items, cmp_item);
    size_t k = 0;
    pl_counter ctr; /* walked with pl_counter_next: linear */
    for (uint32_t ci = 0; ci < nctr; ci++) {
        if ((ci ? pl_counter_next(&ctr, &ctr) : pl_object_counter(o, 0, &ctr)) != PL_OK) break;
        if (!pl__pdh_listed_counter(&ctr)) continue;
        char num[16];
        const char *nm = pl__pdh_counter_label(&c->q->src, ctr.def.CounterNameTitleIndex, num, sizeof num);
        for (size_t ii = 0; ii < nin; ii++) {
            pl__pdh_item *it = &nv[k];
            size_t l = strlen(nm) + (ins[ii].key ? strlen(ins[ii].key) + 1 : 0) + 1;
            it->key = malloc(l);
            if (!it->key) { st = PL_PDH_MEMORY_ALLOCATION_FAILURE; goto out; }
            snprintf(it->key, l, "%s%s%s", ins[ii].key ? ins[ii].key : "", ins[ii].key ? "\\" : "", nm);
            k++;
            it->type = ctr.def.CounterType;
            it->freq = pl__pdh_freq_of(b, o, it->type);
            it->narrow = pl__pdh_counter_narrow(&ctr);
            pl__pdh_item probe = {.key = it->key};
            pl__pdh_item *old = c->nitems ? bsearch(&probe, c->items, c->nitems, sizeof *c->items, cmp_item) : NULL;
            if (old && old->type == it->type) {
                it->prev = old->cur;
                it->prev_id = old->cur_id;
            } else {
                pl__pdh_no_data(&it->prev, PL_PDH_CSTATUS_INVALID_DATA);
            }
            if (ins[ii].in) fill_item(it, b, o, &ctr, &v->idc, ins[ii].in, c->q->stamp);
            else pl__pdh_no_data(&it->cur, PL_PDH_CSTATUS_NO_INSTANCE);
        }
    }
    for (size_t i = 0; i < c->nitems; i++) free(c->items[i].key);
    free(c->items);
    c->items = nv;
    c->nitems = k;
    nv = NULL;
out:
    if (nv) {
        for (size_t i = 0; i < k; i++) free(nv[i].key);
        free(nv);
    }
    free(fixed);
    free(ins);
    return st;
}

static void update_single(pl_pdh_counter *c, const pl_block *b, objview *v, const pl_counter *ctr)
{
    const pl_object *o = &v->o;
    pl__pdh_item *it = &c->items[0];
    it->prev = it->cur;
    it->prev_id = it->cur_id;
    if (!ctr) { pl__pdh_no_data(&it->cur, PL_PDH_CSTATUS_NO_COUNTER); return; }
    if (!c->p.e.instance) {
        pl_instance in;
        if (pl__pdh_instanced(o) || pl_object_instance(o, -1, &in) != PL_OK)
            pl__pdh_no_data(&it->cur, PL_PDH_CSTATUS_NO_INSTANCE);
        else fill_item(it, b, o, ctr, &v->idc, &in, c->q->stamp);
        return;
    }
    if (objview_load(v)) { pl__pdh_no_data(&it->cur, PL_PDH_CSTATUS_INVALID_DATA); return; }
    uint32_t i = pl__pdh_inames_find(&v->x, &c->p);
    if (i < v->x.n) fill_item(it, b, o, ctr, &v->idc, &v->x.v[i].inst, c->q->stamp);
    else pl__pdh_no_data(&it->cur, PL_PDH_CSTATUS_NO_INSTANCE);
}

static int same_machine(const char *a, const char *b)
{
    if (!a || !b) return a == b;
    return pl__utf8_casecmp(a, b) == 0;
}

/* Update the counters of one machine (remote NULL: this one) from its
 * snapshot: each object's instance names read once for all its counters
 * (objview), so a sample costs time linear in counters + instances. */
static uint32_t update_machine(pl_pdh_query *q, const char *remote, const pl__pdh_snap *s, pl_error *err)
{
    q->stamp = pl__pdh_local_filetime(s->blk.hdr.PerfTime100nSec.QuadPart);
    /* each view allocated on its own: the instances and identity counters
     * read from it point at its pl_object, which must not move */
    objview **views = NULL;
    size_t nviews = 0, vcap = 0;
    uint32_t rc = PL_PDH_CSTATUS_VALID_DATA;
    for (size_t i = 0; i < q->n && !rc; i++) {
        pl_pdh_counter *c = q->ctrs[i];
        if (!same_machine(c->remote, remote)) continue;
        size_t vi = 0;
        while (vi < nviews && views[vi]->obj_index != c->obj_index) vi++;
        if (vi == nviews) {
            pl_object o;
            if (pl_block_find_object(&s->blk, c->obj_index, &o) != PL_OK) {
                for (size_t k = 0; k < c->nitems; k++) {
                    c->items[k].prev = c->items[k].cur;
                    pl__pdh_no_data(&c->items[k].cur, PL_PDH_CSTATUS_NO_OBJECT);
                }
                continue;
            }
            objview *nv = calloc(1, sizeof *nv);
            if (!nv || pl__grow((void **)&views, &vcap, nviews + 1, sizeof *views) != PL_OK) {
                free(nv);
                rc = pl__pdh_fail(err, PL_PDH_MEMORY_ALLOCATION_FAILURE, "out of memory");
                break;
            }
            nv->obj_index = c->obj_index;
            nv->o = o;
            idctx_init(&nv->idc, &nv->o);
            views[nviews++] = nv;
        }
        objview *v = views[vi];
        if (c->cwild) {
            if (update_cwild(c, &s->blk, v)) rc = pl__pdh_fail(err, PL_PDH_MEMORY_ALLOCATION_FAILURE, "out of memory");
            continue;
        }
        pl_counter ctr;
        int have = pl__pdh_find_counter(&v->o, &c->ctr_index, 1, &ctr) == 0;
        if (have) {
            c->freq = pl__pdh_freq_of(&s->blk, &v->o, c->type);
            c->narrow = pl__pdh_counter_narrow(&ctr);
        }
        if (c->wild) {
            if (update_wild(c, &s->blk, v, have ? &ctr : NULL))
                rc = pl__pdh_fail(err, PL_PDH_MEMORY_ALLOCATION_FAILURE, "out of memory");
        } else {
            update_single(c, &s->blk, v, have ? &ctr : NULL);
        }
    }
    for (size_t i = 0; i < nviews; i++) {
        objview_free(views[i]);
        free(views[i]);
    }
    free(views);
    return rc;
}

/* A machine that did not answer: its counters have no data this time (their
 * last sample becomes the previous one, so the next good sample after the
 * gap does not form a rate over it). */
static void machine_missing(pl_pdh_query *q, const char *remote)
{
    for (size_t i = 0; i < q->n; i++) {
        pl_pdh_counter *c = q->ctrs[i];
        if (!same_machine(c->remote, remote)) continue;
        for (size_t k = 0; k < c->nitems; k++) {
            c->items[k].prev = c->items[k].cur;
            pl__pdh_no_data(&c->items[k].cur, PL_PDH_CSTATUS_NO_MACHINE);
        }
    }
}

/* One collection per machine: this one first (its failure fails the call,
 * as before), then each other machine named by a counter path, asked with
 * "Foreign <machine> <indices>". A machine that fails marks only its own
 * counters (PDH_CSTATUS_NO_MACHINE); the call fails only when every machine
 * failed. */
PL_EXTERN uint32_t pl_pdh_collect(pl_pdh_query *q, pl_error *err)
{
    if (!pl__pdh_query_ok(q)) return pl__pdh_fail(err, PL_PDH_INVALID_HANDLE, "not a query handle");
    if (q->n == 0) return pl__pdh_fail(err, PL_PDH_NO_DATA, "the query has no counters");
    /* The adds are over: their snapshot is not a sample (time moves on). */
    pl__pdh_add_cache_drop(&q->ac);
    uint32_t *idx = calloc(q->n, sizeof *idx);
    char *qs = malloc(q->n * 12 + 1);
    if (!idx || !qs) { free(idx); free(qs); return pl__pdh_fail(err, PL_PDH_MEMORY_ALLOCATION_FAILURE, "out of memory"); }
    size_t ok = 0, tried = 0;
    uint32_t first_fail = 0;
    pl_error ferr = {0};
    for (int pass = 0; pass < 2; pass++) {
        for (size_t g = 0; g < q->n; g++) {
            const char *remote = q->ctrs[g]->remote;
            if ((pass == 0) != (remote == NULL)) continue;
            size_t j = 0;
            while (j < g && !same_machine(q->ctrs[j]->remote, remote)) j++;
            if (j < g) continue; /* this machine was collected with an earlier counter */
            size_t ni = 0;
            for (size_t i = g; i < q->n; i++) {
                if (!same_machine(q->ctrs[i]->remote, remote)) continue;
                size_t k = 0;
                while (k < ni && idx[k] != q->ctrs[i]->obj_index) k++;
                if (k == ni) idx[ni++] = q->ctrs[i]->obj_index;
            }
            pl__pdh_query_string(idx, ni, qs, q->n * 12 + 1);
            pl__pdh_snap s;
            pl_error e2 = {0};
            tried++;
            uint32_t st = remote ? pl__pdh_collect_foreign(&q->src, remote, qs, &s, &e2)
                                 : pl__pdh_collect_snap(&q->src, qs, &s, &e2);
            if (st && !remote) {
                free(idx);
                free(qs);
                if (err) *err = e2;
                return st;
            }
            if (st) {
                if (!first_fail) { first_fail = st; ferr = e2; }
                machine_missing(q, remote);
                continue;
            }
            st = update_machine(q, remote, &s, err);
            if (st) {
                pl__pdh_snap_free(&s);
                free(idx);
                free(qs);
                return st;
            }
            if (ok++ == 0) {
                q->time = s.blk.hdr.PerfTime100nSec.QuadPart;
                snprintf(q->machine, sizeof q->machine, "%s", s.blk.system_name);
            }
            pl__pdh_snap_free(&s);
        }
    }
    free(idx);
    free(qs);
    if (ok == 0 && tried) {
        if (err) *err = ferr;
        return first_fail;
    }
    pl__clear(err);
    return PL_PDH_CSTATUS_VALID_DATA;
}

PL_EXTERN int64_t pl_pdh_query_time(const pl_pdh_query *q) { return pl__pdh_query_ok(q) ? q->time : 0; }
PL_EXTERN const char *pl_pdh_query_machine(const pl_pdh_query *q) { return pl__pdh_query_ok(q) ? q->machine : ""; }
