/* PDH queries and counters over a data source: name resolution, instance
 * matching (with parents, #n duplicates and wildcards), collection, raw and
 * formatted values, validation, expansion and enumeration. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pdh_internal.h"
#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/winperf.h"

#define QUERY_MAGIC 0x51484450u   /* "PDHQ" */
#define COUNTER_MAGIC 0x43484450u /* "PDHC" */
#define DEAD_MAGIC 0xDEADDEADu
#define MAX_CAND PL__PDH_MAX_CAND

/* What an instance is, beyond its key (issue 11 item 2): its UniqueID and
 * the raw values of its object's ID Process, ID Thread and first
 * PERF_ELAPSED_TIME counter (the creation time), each 0 when the object has
 * none or the value is not available. */
typedef struct ident {
    int32_t uid;
    uint64_t pid, tid, start;
} ident;

typedef struct item {
    char *key;                /* instance key "parent/name#k", "" without instance;
                                 counter wildcards: "key\\counter" or "counter" */
    pl_pdh_raw cur, prev;
    uint32_t type;            /* counter wildcards: this item's counter type */
    int64_t freq;             /* and its time base frequency */
    unsigned narrow;          /* and which of its values are 4 bytes (PL__PDH_NARROW_*) */
    ident cur_id, prev_id;    /* the instance each sample was taken from */
} item;

struct pl_pdh_counter {
    uint32_t magic;
    pl_pdh_query *q;
    pl__pdh_path p;
    char *full_path;
    char *machine;            /* the path's machine, else the block's at add time */
    char *remote;             /* another machine's target ("Foreign <remote> ..."), NULL: this one */
    char *explain;
    uint32_t obj_index, ctr_index;
    uint32_t type;
    int32_t scale, default_scale;
    int64_t freq;
    unsigned narrow;          /* PL__PDH_NARROW_*: values read from 4 bytes (may wrap once) */
    int wild;                 /* instance, parent or counter wildcard: items follow the data */
    int cwild;                /* counter wildcard: one item per counter x instance */
    item *items;
    size_t nitems;
};

/* The snapshot the last pl_pdh_add_counter resolved its path against,
 * kept for the next adds (docs/pdh.md, "Adding counters"). */
typedef struct add_cache {
    void *buf;                /* the snapshot's bytes (NULL: none kept) */
    pl_block blk;
    char *key;                /* "<machine>|<query string>" */
    int remote;
    int64_t ms;               /* when it was collected (CLOCK_MONOTONIC) */
} add_cache;

struct pl_pdh_query {
    uint32_t magic;
    pl_pdh_source src;
    pl_pdh_counter **ctrs;
    size_t n, cap;
    int64_t time;
    int64_t stamp;            /* time of the collect being processed, local FILETIME */
    char machine[256];
    add_cache ac;
};

/* ------------------------------------------------------------ helpers */

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void add_cache_drop(add_cache *ac)
{
    free(ac->buf);
    free(ac->key);
    memset(ac, 0, sizeof *ac);
}


typedef struct snap {
    void *buf;
    pl_block blk;
} snap;

static void snap_free(snap *s)
{
    free(s->buf);
    s->buf = NULL;
}

static uint32_t collect_snap(const pl_pdh_source *src, const char *query, snap *s, pl_error *err)
{
    memset(s, 0, sizeof *s);
    if (!src || !src->collect) return pl__pdh_fail(err, PL_PDH_INVALID_ARGUMENT, "no data source");
    void *buf = NULL;
    size_t len = 0;
    pl_error e2 = {0};
    int rc = src->collect(src->ctx, query, &buf, &len, &e2);
    if (rc != PL_OK) {
        free(buf);
        return pl__pdh_fail(err, PL_PDH_INVALID_DATA, "collecting \"%s\" failed: %s", query,
                            e2.msg[0] ? e2.msg : pl_strerror(rc));
    }
    rc = pl_block_open(&s->blk, buf, len, 0, 0, &e2);
    if (rc != PL_OK) {
        free(buf);
        return pl__pdh_fail(err, PL_PDH_INVALID_DATA, "the data for \"%s\" is not a valid block: %s", query, e2.msg);
    }
    s->buf = buf;
    return PL_PDH_CSTATUS_VALID_DATA;
}

/* Every index whose name is `name`, default language first, then English. */
size_t pl__pdh_resolve_names(const pl_pdh_source *src, const char *name, uint32_t *out, size_t cap)
{
    size_t n = 0;
    if (!src->titles) return 0;
    for (int en = 0; en < 2; en++) {
        const pl_titles *t = src->titles(src->ctx, en);
        if (!t) continue;
        uint32_t tmp[MAX_CAND];
        size_t k = pl_titles_find_all(t, PL_TITLE_NAME, name, tmp, MAX_CAND);
        if (k > MAX_CAND) k = MAX_CAND;
        for (size_t i = 0; i < k; i++) {
            size_t j = 0;
            while (j < n && out[j] != tmp[i]) j++;
            if (j == n && n < cap) out[n++] = tmp[i];
        }
    }
    /* A decimal number names an index directly. */
    if (n == 0 && *name) {
        uint64_t v = 0;
        const char *c = name;
        while (*c >= '0' && *c <= '9' && v < 0xFFFFFFFFu) v = v * 10u + (uint64_t)(*c++ - '0');
        if (!*c && v > 0 && v <= 0xFFFFFFFFu && cap) out[n++] = (uint32_t)v;
    }
    return n;
}

static const char *title_of(const pl_pdh_source *src, int kind, uint32_t index)
{
    if (!src->titles) return NULL;
    for (int en = 0; en < 2; en++) {
        const pl_titles *t = src->titles(src->ctx, en);
        const char *s = t ? pl_titles_get(t, kind, index) : NULL;
        if (s) return s;
    }
    return NULL;
}

static void query_string(const uint32_t *idx, size_t n, char *out, size_t cap)
{
    size_t w = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && w + 12 < cap; i++) w += (size_t)snprintf(out + w, cap - w, i ? " %u" : "%u", (unsigned)idx[i]);
}

static int machine_ok(const char *want, const char *have)
{
    if (!want) return 1;
    return pl__utf8_casecmp(want, have) == 0 || pl__utf8_casecmp(want, "localhost") == 0 || strcmp(want, ".") == 0;
}

/* "Foreign <machine> <query>" through the source: another machine's data. */
static uint32_t collect_foreign(const pl_pdh_source *src, const char *machine, const char *query, snap *s,
                                pl_error *err)
{
    memset(s, 0, sizeof *s);
    const char *m = machine;
    if (m[0] == '\\' && m[1] == '\\') m += 2;
    for (const char *c = m; *c; c++)
        if ((unsigned char)*c <= ' ')
            return pl__pdh_fail(err, PL_PDH_CSTATUS_NO_MACHINE, "machine \"%s\": not a host name", machine);
    size_t n = strlen(m) + strlen(query) + 10;
    char *fq = malloc(n);
    if (!fq) return pl__pdh_fail(err, PL_PDH_MEMORY_ALLOCATION_FAILURE, "out of memory");
    snprintf(fq, n, "Foreign %s %s", m, query);
    pl_error e2 = {0};
    uint32_t st = collect_snap(src, fq, s, &e2);
    free(fq);
    if (st) return pl__pdh_fail(err, PL_PDH_CSTATUS_NO_MACHINE, "machine \"%s\": %s", machine, e2.msg);
    return PL_PDH_CSTATUS_VALID_DATA;
}

/* Find the object among candidates in the snapshot, and the counter among
 * the candidates in the object. ctr_cands may be NULL (counter wildcard). */
static uint32_t find_object(const snap *s, const uint32_t *oc, size_t no, pl_object *obj, const char *name, pl_error *err)
{
    for (size_t i = 0; i < no; i++)
        if (pl_block_find_object(&s->blk, oc[i], obj) == PL_OK) return PL_PDH_CSTATUS_VALID_DATA;
    return pl__pdh_fail(err, PL_PDH_CSTATUS_NO_OBJECT, "object \"%s\" is not in the data", name);
}

/* A counter a user can name or list: not a base (it belongs to the counter
 * before it) and not the object's Unavailable Counters marker (a mask that
 * says which values are missing, docs/block-format.md). */
static int listed_counter(const pl_counter *c)
{
    if (pl_type_is_base(c->def.CounterType)) return 0;
    return !(c->def.CounterNameTitleIndex == PL_CTR_UNAVAILABLE_COUNTERS &&
             c->def.CounterType == PERF_COUNTER_LARGE_RAWCOUNT_HEX);
}

static uint32_t find_counter(const pl_object *obj, const uint32_t *cc, size_t nc, pl_counter *out)
{
    for (size_t k = 0; k < nc; k++) {
        pl_counter c; /* walked with pl_counter_next: linear */
        for (uint32_t i = 0; i < obj->hdr.NumCounters; i++) {
            if ((i ? pl_counter_next(&c, &c) : pl_object_counter(obj, 0, &c)) != PL_OK) break;
            if (pl_type_is_base(c.def.CounterType)) continue;
            if (c.def.CounterNameTitleIndex == cc[k]) {
                *out = c;
                return PL_PDH_CSTATUS_VALID_DATA;
            }
        }
    }
    return PL_PDH_CSTATUS_NO_COUNTER;
}

static int instanced(const pl_object *o)
{
    return o->hdr.NumInstances != PERF_NO_INSTANCES && o->hdr.NumInstances >= 0;
}

/* ------------------------------------------------------------- raw fill */

/* Which of the counter's values are 4 bytes wide: a 32-bit value wraps
 * and PDH unwraps one wrap (pdh_calc.c); an 8-byte one does not wrap. */
static unsigned narrow_of(const pl_counter *c)
{
    unsigned w = 0;
    if ((c->def.CounterType & PERF_SIZE_MASK) == PERF_SIZE_DWORD && c->def.CounterSize == 4) w |= PL__PDH_NARROW_N;
    if (c->has_base && c->base.CounterSize == 4) w |= PL__PDH_NARROW_B;
    return w;
}

static int64_t freq_of(const pl_block *b, const pl_object *o, uint32_t type)
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
    if (freq) *freq = freq_of(b, o, type);
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

static void no_data(pl_pdh_raw *r, uint32_t cs)
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

static ident ident_of(const idctx *x, const pl_instance *in)
{
    ident id = {PERF_NO_UNIQUE_ID, 0, 0, 0};
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
static int same_ident(const ident *a, const ident *b, int64_t freq)
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
static void fill_item(item *it, const pl_block *b, const pl_object *o, const pl_counter *ctr, const idctx *x,
                      const pl_instance *in, int64_t stamp)
{
    fill_raw(b, o, ctr, in, stamp, &it->cur);
    it->cur_id = ident_of(x, in);
    if (it->prev.cstatus == PL_PDH_CSTATUS_VALID_DATA && !same_ident(&it->cur_id, &it->prev_id, o->hdr.PerfFreq.QuadPart))
        no_data(&it->prev, PL_PDH_CSTATUS_INVALID_DATA);
}

/* ------------------------------------------------------------- queries */

static int query_ok(const pl_pdh_query *q) { return q && q->magic == QUERY_MAGIC; }
static int counter_ok(const pl_pdh_counter *c) { return c && c->magic == COUNTER_MAGIC && query_ok(c->q); }

PL_EXTERN void pl_pdh_source_close(pl_pdh_source *src)
{
    if (src && src->close) src->close(src->ctx);
    if (src) memset(src, 0, sizeof *src);
}

PL_EXTERN uint32_t pl_pdh_open_query(const pl_pdh_source *src, pl_pdh_query **out, pl_error *err)
{
    if (!out || !src || !src->collect) return pl__pdh_fail(err, PL_PDH_INVALID_ARGUMENT, "source or out is NULL");
    pl_pdh_query *q = calloc(1, sizeof *q);
    if (!q) return pl__pdh_fail(err, PL_PDH_MEMORY_ALLOCATION_FAILURE, "out of memory");
    q->magic = QUERY_MAGIC;
    q->src = *src;
    *out = q;
    return PL_PDH_CSTATUS_VALID_DATA;
}

static void counter_free(pl_pdh_counter *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->nitems; i++) free(c->items[i].key);
    free(c->items);
    free(c->p.mem);
    free(c->full_path);
    free(c->machine);
    free(c->remote);
    free(c->explain);
    c->magic = DEAD_MAGIC;
    free(c);
}

PL_EXTERN void pl_pdh_close_query(pl_pdh_query *q)
{
    if (!query_ok(q)) return;
    for (size_t i = 0; i < q->n; i++) counter_free(q->ctrs[i]);
    free(q->ctrs);
    add_cache_drop(&q->ac);
    q->magic = DEAD_MAGIC;
    free(q);
}

/* The object (and counter unless the counter is a wildcard) in snapshot s. */
static uint32_t find_in(const pl_pdh_source *src, const pl__pdh_path *p, const snap *s, const uint32_t *oc, size_t no,
                        pl_object *obj, pl_counter *ctr, pl_error *err)
{
    uint32_t st = find_object(s, oc, no, obj, p->e.object, err);
    if (st) return st;
    if (!p->counter_wild) {
        uint32_t cc[MAX_CAND];
        size_t nc = pl__pdh_resolve_names(src, p->e.counter, cc, MAX_CAND);
        if (nc == 0 || find_counter(obj, cc, nc, ctr) != 0)
            return pl__pdh_fail(err, PL_PDH_CSTATUS_NO_COUNTER, "object \"%s\" has no counter \"%s\"", p->e.object,
                                p->e.counter);
    }
    return PL_PDH_CSTATUS_VALID_DATA;
}

/* Resolve a split path: object (and counter unless the counter is a
 * wildcard) in a snapshot of the objects it may name. A machine that is
 * not this one is asked through the source with "Foreign <machine>
 * <indices>" (the engine's remote client, docs/pdh.md); *remote is set to
 * 1 then. A machine that cannot be asked, or does not answer, is
 * PDH_CSTATUS_NO_MACHINE with the reason.
 *
 * Without a cache (ac NULL) the snapshot is fresh and stays open for the
 * caller (snap_free). With one, the snapshot is the cache's (the caller
 * must not free it): the one kept by an earlier add of the same objects on
 * the same machine when it is younger than PL__PDH_ADD_CACHE_MS and holds
 * the object and counter, else a fresh one that replaces it. So adding the
 * thousands of paths of an expanded wildcard costs one collection, not one
 * each (issue 26 finding 7). */
#define PL__PDH_ADD_CACHE_MS 5000
static uint32_t resolve(const pl_pdh_source *src, const pl__pdh_path *p, snap *s, pl_object *obj, pl_counter *ctr,
                        int *remote, pl_error *err, add_cache *ac)
{
    *remote = 0;
    memset(s, 0, sizeof *s);
    uint32_t oc[MAX_CAND];
    if (!src->titles || !src->titles(src->ctx, 0))
        return pl__pdh_fail(err, PL_PDH_CANNOT_READ_NAME_STRINGS, "the title database is not available");
    size_t no = pl__pdh_resolve_names(src, p->e.object, oc, MAX_CAND);
    if (no == 0) return pl__pdh_fail(err, PL_PDH_CSTATUS_NO_OBJECT, "no object is named \"%s\"", p->e.object);
    char qs[MAX_CAND * 12];
    query_string(oc, no, qs, sizeof qs);
    char *key = NULL;
    if (ac) {
        size_t kl = (p->e.machine ? strlen(p->e.machine) : 0) + strlen(qs) + 2;
        key = malloc(kl);
        if (!key) return pl__pdh_fail(err, PL_PDH_MEMORY_ALLOCATION_FAILURE, "out of memory");
        snprintf(key, kl, "%s|%s", p->e.machine ? p->e.machine : "", qs);
        if (ac->buf && strcmp(ac->key, key) == 0 && mono_ms() - ac->ms <= PL__PDH_ADD_CACHE_MS) {
            s->buf = ac->buf;
            s->blk = ac->blk;
            if (find_in(src, p, s, oc, no, obj, ctr, NULL) == PL_PDH_CSTATUS_VALID_DATA) {
                *remote = ac->remote;
                free(key);
                return PL_PDH_CSTATUS_VALID_DATA;
            }
            /* an object or counter it does not have: it may have come since */
        }
        memset(s, 0, sizeof *s);
    }
    uint32_t st = collect_snap(src, qs, s, err);
    if (!st && !machine_ok(p->e.machine, s->blk.system_name)) {
        snap_free(s);
        st = collect_foreign(src, p->e.machine, qs, s, err);
        if (!st) *remote = 1;
    }
    if (!st) st = find_in(src, p, s, oc, no, obj, ctr, err);
    if (st) {
        snap_free(s);
        free(key);
        return st;
    }
    if (ac) { /* the cache owns it now */
        add_cache_drop(ac);
        ac->buf = s->buf;
        ac->blk = s->blk;
        ac->key = key;
        ac->remote = *remote;
        ac->ms = mono_ms();
    }
    return PL_PDH_CSTATUS_VALID_DATA;
}

static char *join_full(const char *machine, const pl__pdh_path *p)
{
    pl_pdh_path_elements e = p->e;
    e.machine = (char *)machine;
    size_t need = 0;
    pl_pdh_make_path(&e, NULL, &need, NULL);
    char *s = malloc(need ? need : 1);
    if (s && pl_pdh_make_path(&e, s, &need, NULL) != 0) { free(s); s = NULL; }
    return s;
}

PL_EXTERN uint32_t pl_pdh_add_counter(pl_pdh_query *q, const char *path, pl_pdh_counter **out, pl_error *err)
{
    if (!path || !*path || !out) return pl__pdh_fail(err, PL_PDH_INVALID_ARGUMENT, "path or out is NULL or empty");
    if (!query_ok(q)) return pl__pdh_fail(err, PL_PDH_INVALID_HANDLE, "not a query handle");
    pl_pdh_counter *c = calloc(1, sizeof *c);
    if (!c) return pl__pdh_fail(err, PL_PDH_MEMORY_ALLOCATION_FAILURE, "out of memory");
    uint32_t st = pl__pdh_split(path, &c->p, err);
    if (st) { free(c); return st; }
    snap s; /* the query's add cache's: not freed here */
    pl_object obj;
    pl_counter ctr;
    int remote = 0;
    st = resolve(&q->src, &c->p, &s, &obj, &ctr, &remote, err, &q->ac);
    if (st) { free(c->p.mem); free(c); return st; }
    if (!instanced(&obj) && c->p.e.instance) st = PL_PDH_CSTATUS_NO_INSTANCE;
    if (instanced(&obj) && !c->p.e.instance) st = PL_PDH_CSTATUS_NO_INSTANCE;
    if (st) {
        pl__pdh_fail(err, st, "\"%s\": object \"%s\" %s instances", path, c->p.e.object,
                     instanced(&obj) ? "has" : "has no");
        free(c->p.mem);
        free(c);
        return st;
    }
    c->magic = COUNTER_MAGIC;
    c->q = q;
    c->obj_index = obj.hdr.ObjectNameTitleIndex;
    c->cwild = c->p.counter_wild;
    c->wild = c->p.inst_wild || c->p.parent_wild || c->cwild;
    if (!c->cwild) {
        /* a counter wildcard has no single type, index, scale or help text */
        c->ctr_index = ctr.def.CounterNameTitleIndex;
        c->type = ctr.def.CounterType;
        c->default_scale = ctr.def.DefaultScale;
        c->freq = freq_of(&s.blk, &obj, c->type);
        c->narrow = narrow_of(&ctr);
        const char *h = title_of(&q->src, PL_TITLE_HELP, ctr.def.CounterHelpTitleIndex);
        c->explain = h ? pl__strdup(h) : NULL;
    }
    c->full_path = join_full(c->p.e.machine ? c->p.e.machine : s.blk.system_name, &c->p);
    c->machine = pl__strdup(c->p.e.machine ? c->p.e.machine : s.blk.system_name);
    if (remote) {
        const char *m = c->p.e.machine;
        c->remote = pl__strdup(m[0] == '\\' && m[1] == '\\' ? m + 2 : m);
        if (!c->remote) { counter_free(c); return pl__pdh_fail(err, PL_PDH_MEMORY_ALLOCATION_FAILURE, "out of memory"); }
    }
    if (!c->wild) {
        c->items = calloc(1, sizeof *c->items);
        if (c->items) {
            c->nitems = 1;
            size_t need = 0;
            if (c->p.e.instance) {
                size_t l = strlen(c->p.e.instance) + (c->p.e.parent ? strlen(c->p.e.parent) + 1 : 0) + 12;
                c->items[0].key = malloc(l);
                if (c->items[0].key) {
                    if (c->p.e.parent) need = (size_t)snprintf(c->items[0].key, l, "%s/%s", c->p.e.parent, c->p.e.instance);
                    else need = (size_t)snprintf(c->items[0].key, l, "%s", c->p.e.instance);
                    if (c->p.e.index || pl__pdh_ends_with_index(c->p.e.instance))
                        snprintf(c->items[0].key + need, l - need, "#%u", (unsigned)c->p.e.index);
                }
            } else {
                c->items[0].key = pl__strdup("");
            }
            no_data(&c->items[0].cur, PL_PDH_CSTATUS_INVALID_DATA);
            no_data(&c->items[0].prev, PL_PDH_CSTATUS_INVALID_DATA);
        }
    }
    if (!c->full_path || !c->machine || (!c->wild && (!c->items || !c->items[0].key))) {
        counter_free(c);
        return pl__pdh_fail(err, PL_PDH_MEMORY_ALLOCATION_FAILURE, "out of memory");
    }
    if (q->n == q->cap) {
        size_t nc = q->cap ? q->cap * 2 : 8;
        pl_pdh_counter **nv = realloc(q->ctrs, nc * sizeof *nv);
        if (!nv) { counter_free(c); return pl__pdh_fail(err, PL_PDH_MEMORY_ALLOCATION_FAILURE, "out of memory"); }
        q->ctrs = nv;
        q->cap = nc;
    }
    q->ctrs[q->n++] = c;
    *out = c;
    pl__clear(err);
    return PL_PDH_CSTATUS_VALID_DATA;
}

PL_EXTERN uint32_t pl_pdh_remove_counter(pl_pdh_counter *c)
{
    if (!counter_ok(c)) return PL_PDH_INVALID_HANDLE;
    pl_pdh_query *q = c->q;
    for (size_t i = 0; i < q->n; i++)
        if (q->ctrs[i] == c) {
            memmove(&q->ctrs[i], &q->ctrs[i + 1], (q->n - i - 1) * sizeof *q->ctrs);
            q->n--;
            break;
        }
    counter_free(c);
    return PL_PDH_CSTATUS_VALID_DATA;
}

static int cmp_item(const void *a, const void *b)
{
    return strcmp(((const item *)a)->key, ((const item *)b)->key);
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
    if (!instanced(&v->o)) return v->st = 0;
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
    item *nv = calloc(m ? m : 1, sizeof *nv);
    if (!nv) return PL_PDH_MEMORY_ALLOCATION_FAILURE;
    /* old items sorted by key for lookup */
    if (c->nitems > 1) qsort(c->items, c->nitems, sizeof *c->items, cmp_item);
    size_t k = 0;
    for (uint32_t i = 0; i < x.n; i++) {
        if (!pl__pdh_inst_match(&c->p, &x.v[i])) continue;
        item *it = &nv[k++];
        it->key = pl__strdup(x.v[i].key); /* the names are every counter's of this object */
        if (!it->key) {
            for (size_t j = 0; j + 1 < k; j++) free(nv[j].key);
            free(nv);
            return PL_PDH_MEMORY_ALLOCATION_FAILURE;
        }
        item probe = {.key = it->key};
        item *old = c->nitems ? bsearch(&probe, c->items, c->nitems, sizeof *c->items, cmp_item) : NULL;
        if (old) {
            it->prev = old->cur;
            it->prev_id = old->cur_id;
        } else {
            no_data(&it->prev, PL_PDH_CSTATUS_INVALID_DATA);
        }
        if (ctr) fill_item(it, b, o, ctr, &v->idc, &x.v[i].inst, c->q->stamp);
        else no_data(&it->cur, PL_PDH_CSTATUS_NO_COUNTER);
    }
    for (size_t i = 0; i < c->nitems; i++) free(c->items[i].key);
    free(c->items);
    c->items = nv;
    c->nitems = m;
    return 0;
}

/* The name a counter wildcard item uses for a counter: its title, or its
 * index in decimal when the title database has no name for it (a decimal
 * number also names an index in paths). */
static const char *counter_label(const pl_pdh_source *src, uint32_t index, char *num, size_t cap)
{
    const char *nm = title_of(src, PL_TITLE_NAME, index);
    if (nm) return nm;
    snprintf(num, cap, "%u", (unsigned)index);
    return num;
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
        ins[0].in = (!instanced(o) && pl_object_instance(o, -1, &single) == PL_OK) ? &single : NULL;
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
    item *nv = calloc((size_t)nctr * nin + 1, sizeof *nv);
    if (!nv) { st = PL_PDH_MEMORY_ALLOCATION_FAILURE; goto out; }
    if (c->nitems > 1) qsort(c->items, c->nitems, sizeof *c->items, cmp_item);
    size_t k = 0;
    pl_counter ctr; /* walked with pl_counter_next: linear */
    for (uint32_t ci = 0; ci < nctr; ci++) {
        if ((ci ? pl_counter_next(&ctr, &ctr) : pl_object_counter(o, 0, &ctr)) != PL_OK) break;
        if (!listed_counter(&ctr)) continue;
        char num[16];
        const char *nm = counter_label(&c->q->src, ctr.def.CounterNameTitleIndex, num, sizeof num);
        for (size_t ii = 0; ii < nin; ii++) {
            item *it = &nv[k];
            size_t l = strlen(nm) + (ins[ii].key ? strlen(ins[ii].key) + 1 : 0) + 1;
            it->key = malloc(l);
            if (!it->key) { st = PL_PDH_MEMORY_ALLOCATION_FAILURE; goto out; }
            snprintf(it->key, l, "%s%s%s", ins[ii].key ? ins[ii].key : "", ins[ii].key ? "\\" : "", nm);
            k++;
            it->type = ctr.def.CounterType;
            it->freq = freq_of(b, o, it->type);
            it->narrow = narrow_of(&ctr);
            item probe = {.key = it->key};
            item *old = c->nitems ? bsearch(&probe, c->items, c->nitems, sizeof *c->items, cmp_item) : NULL;
            if (old && old->type == it->type) {
                it->prev = old->cur;
                it->prev_id = old->cur_id;
            } else {
                no_data(&it->prev, PL_PDH_CSTATUS_INVALID_DATA);
            }
            if (ins[ii].in) fill_item(it, b, o, &ctr, &v->idc, ins[ii].in, c->q->stamp);
            else no_data(&it->cur, PL_PDH_CSTATUS_NO_INSTANCE);
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
    item *it = &c->items[0];
    it->prev = it->cur;
    it->prev_id = it->cur_id;
    if (!ctr) { no_data(&it->cur, PL_PDH_CSTATUS_NO_COUNTER); return; }
    if (!c->p.e.instance) {
        pl_instance in;
        if (instanced(o) || pl_object_instance(o, -1, &in) != PL_OK) no_data(&it->cur, PL_PDH_CSTATUS_NO_INSTANCE);
        else fill_item(it, b, o, ctr, &v->idc, &in, c->q->stamp);
        return;
    }
    if (objview_load(v)) { no_data(&it->cur, PL_PDH_CSTATUS_INVALID_DATA); return; }
    uint32_t i = pl__pdh_inames_find(&v->x, &c->p);
    if (i < v->x.n) fill_item(it, b, o, ctr, &v->idc, &v->x.v[i].inst, c->q->stamp);
    else no_data(&it->cur, PL_PDH_CSTATUS_NO_INSTANCE);
}

static int same_machine(const char *a, const char *b)
{
    if (!a || !b) return a == b;
    return pl__utf8_casecmp(a, b) == 0;
}

/* Update the counters of one machine (remote NULL: this one) from its
 * snapshot: each object's instance names read once for all its counters
 * (objview), so a sample costs time linear in counters + instances. */
static uint32_t update_machine(pl_pdh_query *q, const char *remote, const snap *s, pl_error *err)
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
                    no_data(&c->items[k].cur, PL_PDH_CSTATUS_NO_OBJECT);
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
        int have = find_counter(&v->o, &c->ctr_index, 1, &ctr) == 0;
        if (have) {
            c->freq = freq_of(&s->blk, &v->o, c->type);
            c->narrow = narrow_of(&ctr);
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
            no_data(&c->items[k].cur, PL_PDH_CSTATUS_NO_MACHINE);
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
    if (!query_ok(q)) return pl__pdh_fail(err, PL_PDH_INVALID_HANDLE, "not a query handle");
    if (q->n == 0) return pl__pdh_fail(err, PL_PDH_NO_DATA, "the query has no counters");
    /* The adds are over: their snapshot is not a sample (time moves on). */
    add_cache_drop(&q->ac);
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
            query_string(idx, ni, qs, q->n * 12 + 1);
            snap s;
            pl_error e2 = {0};
            tried++;
            uint32_t st = remote ? collect_foreign(&q->src, remote, qs, &s, &e2) : collect_snap(&q->src, qs, &s, &e2);
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
                snap_free(&s);
                free(idx);
                free(qs);
                return st;
            }
            if (ok++ == 0) {
                q->time = s.blk.hdr.PerfTime100nSec.QuadPart;
                snprintf(q->machine, sizeof q->machine, "%s", s.blk.system_name);
            }
            snap_free(&s);
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

PL_EXTERN int64_t pl_pdh_query_time(const pl_pdh_query *q) { return query_ok(q) ? q->time : 0; }
PL_EXTERN const char *pl_pdh_query_machine(const pl_pdh_query *q) { return query_ok(q) ? q->machine : ""; }

PL_EXTERN uint32_t pl_pdh_get_raw(const pl_pdh_counter *c, uint32_t *type, pl_pdh_raw *raw)
{
    if (!raw) return PL_PDH_INVALID_ARGUMENT;
    if (!counter_ok(c)) return PL_PDH_INVALID_HANDLE;
    if (type) *type = c->type;
    if (c->wild || c->nitems != 1) return PL_PDH_INVALID_ARGUMENT;
    *raw = c->items[0].cur;
    return raw->cstatus == PL_PDH_CSTATUS_VALID_DATA ? PL_PDH_CSTATUS_VALID_DATA : PL_PDH_INVALID_DATA;
}

PL_EXTERN uint32_t pl_pdh_calculate(const pl_pdh_counter *c, uint32_t fmt, const pl_pdh_raw *raw1,
                                    const pl_pdh_raw *raw2, pl_pdh_value *value)
{
    if (!value || !raw1) return PL_PDH_INVALID_ARGUMENT;
    if (!counter_ok(c)) return PL_PDH_INVALID_HANDLE;
    if (c->cwild) return PL_PDH_INVALID_ARGUMENT; /* no single counter type */
    return pl__pdh_calc(c->type, c->narrow, c->freq, c->scale, fmt, raw1, raw2, value);
}

PL_EXTERN uint32_t pl_pdh_get_formatted(const pl_pdh_counter *c, uint32_t fmt, uint32_t *type, pl_pdh_value *value)
{
    if (!value) return PL_PDH_INVALID_ARGUMENT;
    if (!counter_ok(c)) return PL_PDH_INVALID_HANDLE;
    if (type) *type = c->type;
    if (c->wild || c->nitems != 1) return PL_PDH_INVALID_ARGUMENT;
    return pl__pdh_calc(c->type, c->narrow, c->freq, c->scale, fmt, &c->items[0].cur, &c->items[0].prev, value);
}

PL_EXTERN uint32_t pl_pdh_get_formatted_array(const pl_pdh_counter *c, uint32_t fmt, pl_pdh_value_item **items,
                                              size_t *n)
{
    if (!items || !n) return PL_PDH_INVALID_ARGUMENT;
    if (!counter_ok(c)) return PL_PDH_INVALID_HANDLE;
    size_t strs = 0;
    for (size_t i = 0; i < c->nitems; i++) strs += strlen(c->items[i].key) + 1;
    pl_pdh_value_item *v = malloc(c->nitems * sizeof *v + strs + 1);
    if (!v) return PL_PDH_MEMORY_ALLOCATION_FAILURE;
    char *w = (char *)(v + c->nitems);
    for (size_t i = 0; i < c->nitems; i++) {
        size_t l = strlen(c->items[i].key) + 1;
        memcpy(w, c->items[i].key, l);
        v[i].name = w;
        w += l;
        const item *it = &c->items[i];
        uint32_t st = pl__pdh_calc(c->cwild ? it->type : c->type, c->cwild ? it->narrow : c->narrow,
                                   c->cwild ? it->freq : c->freq, c->scale, fmt, &it->cur, &it->prev, &v[i].value);
        if (st == PL_PDH_INVALID_ARGUMENT) { free(v); return st; }
    }
    *items = v;
    *n = c->nitems;
    return PL_PDH_CSTATUS_VALID_DATA;
}

PL_EXTERN uint32_t pl_pdh_statistics(const pl_pdh_counter *c, uint32_t fmt, uint32_t first, uint32_t n,
                                     const pl_pdh_raw *raws, pl_pdh_stats *stats)
{
    if (!stats || !raws) return PL_PDH_INVALID_ARGUMENT;
    if (!counter_ok(c)) return PL_PDH_INVALID_HANDLE;
    if (c->cwild) return PL_PDH_INVALID_ARGUMENT; /* no single counter type */
    return pl__pdh_stats_w(c->type, c->narrow, c->freq, c->scale, fmt, first, n, raws, stats);
}

PL_EXTERN uint32_t pl_pdh_set_scale(pl_pdh_counter *c, int32_t scale)
{
    if (!counter_ok(c)) return PL_PDH_INVALID_HANDLE;
    if (scale < PL_PDH_MIN_SCALE || scale > PL_PDH_MAX_SCALE) return PL_PDH_INVALID_ARGUMENT;
    c->scale = scale;
    return PL_PDH_CSTATUS_VALID_DATA;
}

PL_EXTERN uint32_t pl_pdh_get_counter_info(const pl_pdh_counter *c, pl_pdh_counter_info *info)
{
    if (!info) return PL_PDH_INVALID_ARGUMENT;
    if (!counter_ok(c)) return PL_PDH_INVALID_HANDLE;
    memset(info, 0, sizeof *info);
    info->type = c->type;
    info->scale = c->scale;
    info->default_scale = c->default_scale;
    info->object_index = c->obj_index;
    info->counter_index = c->ctr_index;
    info->full_path = c->full_path;
    info->machine = c->machine;
    info->object = c->p.e.object;
    info->instance = c->p.e.instance;
    info->parent = c->p.e.parent;
    info->instance_index = c->p.e.index;
    info->counter = c->p.e.counter;
    info->explain = c->explain;
    return PL_PDH_CSTATUS_VALID_DATA;
}

/* ------------------------------------------------- string list helper */

typedef struct strlist {
    char **v;
    size_t n, cap;
    int oom;
} strlist;

static void sl_add(strlist *l, const char *s, size_t len)
{
    if (l->oom) return;
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 16;
        char **nv = realloc(l->v, nc * sizeof *nv);
        if (!nv) { l->oom = 1; return; }
        l->v = nv;
        l->cap = nc;
    }
    char *d = malloc(len + 1);
    if (!d) { l->oom = 1; return; }
    memcpy(d, s, len);
    d[len] = '\0';
    l->v[l->n++] = d;
}

static void sl_adds(strlist *l, const char *s) { sl_add(l, s, strlen(s)); }

static void sl_free(strlist *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* Pack into one allocation: a NULL-terminated char*[] followed by strings. */
static uint32_t sl_pack(strlist *l, char ***out, size_t *n)
{
    if (l->oom) { sl_free(l); return PL_PDH_MEMORY_ALLOCATION_FAILURE; }
    size_t bytes = (l->n + 1) * sizeof(char *);
    for (size_t i = 0; i < l->n; i++) bytes += strlen(l->v[i]) + 1;
    char **v = malloc(bytes);
    if (!v) { sl_free(l); return PL_PDH_MEMORY_ALLOCATION_FAILURE; }
    char *w = (char *)(v + l->n + 1);
    for (size_t i = 0; i < l->n; i++) {
        size_t k = strlen(l->v[i]) + 1;
        memcpy(w, l->v[i], k);
        v[i] = w;
        w += k;
    }
    v[l->n] = NULL;
    *out = v;
    if (n) *n = l->n;
    sl_free(l);
    return PL_PDH_CSTATUS_VALID_DATA;
}

/* ------------------------------------------ validate, expand, enumerate */

PL_EXTERN uint32_t pl_pdh_validate_path(const pl_pdh_source *src, const char *path, pl_error *err)
{
    if (!src) return pl__pdh_fail(err, PL_PDH_INVALID_ARGUMENT, "source is NULL");
    pl__pdh_path p;
    uint32_t st = pl__pdh_split(path, &p, err);
    if (st) return st;
    snap s;
    pl_object obj;
    pl_counter ctr;
    int remote = 0;
    st = resolve(src, &p, &s, &obj, &ctr, &remote, err, NULL);
    if (st) { free(p.mem); return st; }
    if (p.e.instance) {
        if (!instanced(&obj)) {
            st = pl__pdh_fail(err, PL_PDH_CSTATUS_NO_INSTANCE, "object \"%s\" has no instances", p.e.object);
        } else {
            pl__inames x;
            st = pl__pdh_inames_load(&obj, &x);
            if (!st) {
                uint32_t i = 0;
                while (i < x.n && !pl__pdh_inst_match(&p, &x.v[i])) i++;
                if (i == x.n) st = pl__pdh_fail(err, PL_PDH_CSTATUS_NO_INSTANCE, "object \"%s\" has no instance \"%s%s%s\"",
                                               p.e.object, p.e.parent ? p.e.parent : "", p.e.parent ? "/" : "", p.e.instance);
                pl__pdh_inames_free(&x);
            }
        }
    } else if (instanced(&obj)) {
        st = pl__pdh_fail(err, PL_PDH_CSTATUS_NO_INSTANCE, "object \"%s\" has instances: name one", p.e.object);
    }
    snap_free(&s);
    free(p.mem);
    if (!st) pl__clear(err);
    return st;
}

PL_EXTERN uint32_t pl_pdh_expand_path(const pl_pdh_source *src, const char *path, char ***paths, size_t *n,
                                      pl_error *err)
{
    if (!src || !paths || !n) return pl__pdh_fail(err, PL_PDH_INVALID_ARGUMENT, "source or outputs are NULL");
    pl__pdh_path p;
    uint32_t st = pl__pdh_split(path, &p, err);
    if (st) return st;
    snap s;
    pl_object obj;
    pl_counter ctr;
    int remote = 0;
    st = resolve(src, &p, &s, &obj, &ctr, &remote, err, NULL);
    if (st) { free(p.mem); return st; }
    if ((p.e.instance != NULL) != (instanced(&obj) != 0)) {
        pl__pdh_fail(err, PL_PDH_CSTATUS_NO_INSTANCE, "object \"%s\" %s instances", p.e.object,
                     instanced(&obj) ? "has" : "has no");
        snap_free(&s);
        free(p.mem);
        return PL_PDH_CSTATUS_NO_INSTANCE;
    }
    strlist ctrs = {0}, insts = {0}, out = {0};
    if (p.counter_wild) {
        pl_counter c; /* walked with pl_counter_next: linear */
        for (uint32_t i = 0; i < obj.hdr.NumCounters; i++) {
            if ((i ? pl_counter_next(&c, &c) : pl_object_counter(&obj, 0, &c)) != PL_OK) break;
            if (!listed_counter(&c)) continue;
            char num[16];
            sl_adds(&ctrs, counter_label(src, c.def.CounterNameTitleIndex, num, sizeof num));
        }
    } else {
        sl_adds(&ctrs, p.e.counter);
    }
    if (p.e.instance) {
        if (p.inst_wild || p.parent_wild) {
            pl__inames x;
            if (pl__pdh_inames_load(&obj, &x)) insts.oom = 1;
            else {
                for (uint32_t i = 0; i < x.n; i++)
                    if (pl__pdh_inst_match(&p, &x.v[i])) sl_adds(&insts, x.v[i].key);
                pl__pdh_inames_free(&x);
            }
        } else {
            char key[16] = "";
            if (p.e.index || pl__pdh_ends_with_index(p.e.instance)) snprintf(key, sizeof key, "#%u", (unsigned)p.e.index);
            size_t l = strlen(p.e.instance) + (p.e.parent ? strlen(p.e.parent) + 1 : 0) + sizeof key;
            char *t = malloc(l);
            if (!t) insts.oom = 1;
            else {
                snprintf(t, l, "%s%s%s%s", p.e.parent ? p.e.parent : "", p.e.parent ? "/" : "", p.e.instance, key);
                sl_adds(&insts, t);
                free(t);
            }
        }
    }
    for (size_t ci = 0; ci < ctrs.n && !out.oom; ci++) {
        size_t ni = p.e.instance ? insts.n : 1;
        for (size_t ii = 0; ii < ni; ii++) {
            pl_pdh_path_elements e = {0};
            e.machine = p.e.machine;
            e.object = p.e.object;
            e.counter = ctrs.v[ci];
            if (p.e.instance) e.instance = insts.v[ii]; /* the key already holds parent/ and #k */
            size_t need = 0;
            pl__pdh_make_path_raw(&e, NULL, &need);
            char *b = malloc(need);
            if (!b) { out.oom = 1; break; }
            pl__pdh_make_path_raw(&e, b, &need);
            sl_adds(&out, b);
            free(b);
        }
    }
    int oom = ctrs.oom || insts.oom;
    sl_free(&ctrs);
    sl_free(&insts);
    snap_free(&s);
    free(p.mem);
    if (oom) { sl_free(&out); return pl__pdh_fail(err, PL_PDH_MEMORY_ALLOCATION_FAILURE, "out of memory"); }
    st = sl_pack(&out, paths, n);
    if (st) return pl__pdh_fail(err, st, "out of memory");
    pl__clear(err);
    return st;
}

PL_EXTERN uint32_t pl_pdh_lookup_index(const pl_pdh_source *src, const char *name, uint32_t *index)
{
    if (!src || !name || !*name || !index) return PL_PDH_INVALID_ARGUMENT;
    if (!src->titles) return PL_PDH_CANNOT_READ_NAME_STRINGS;
    for (int en = 0; en < 2; en++) {
        const pl_titles *t = src->titles(src->ctx, en);
        uint32_t i = t ? pl_titles_find(t, PL_TITLE_NAME, name) : 0;
        if (i) { *index = i; return PL_PDH_CSTATUS_VALID_DATA; }
    }
    return PL_PDH_STRING_NOT_FOUND;
}

PL_EXTERN uint32_t pl_pdh_lookup_name(const pl_pdh_source *src, uint32_t index, char *buf, size_t *size)
{
    if (!src || !size) return PL_PDH_INVALID_ARGUMENT;
    const char *s = title_of(src, PL_TITLE_NAME, index);
    if (!s) return PL_PDH_INVALID_ARGUMENT;
    size_t need = strlen(s) + 1;
    if (!buf || *size < need) { *size = need; return PL_PDH_MORE_DATA; }
    memcpy(buf, s, need);
    *size = need;
    return PL_PDH_CSTATUS_VALID_DATA;
}

static void add_object_names(const pl_pdh_source *src, const snap *s, strlist *l)
{
    pl_object o;
    for (uint32_t i = 0; pl_block_object(&s->blk, i, &o) == PL_OK; i++) {
        const char *nm = title_of(src, PL_TITLE_NAME, o.hdr.ObjectNameTitleIndex);
        char num[16];
        if (!nm) { snprintf(num, sizeof num, "%u", (unsigned)o.hdr.ObjectNameTitleIndex); nm = num; }
        /* once: a log answers "Global" and "Costly" with the same record */
        size_t k = 0;
        while (k < l->n && strcmp(l->v[k], nm) != 0) k++;
        if (k == l->n) sl_adds(l, nm);
    }
}

PL_EXTERN uint32_t pl_pdh_enum_objects(const pl_pdh_source *src, int costly, char ***names, size_t *n, pl_error *err)
{
    if (!src || !names || !n) return pl__pdh_fail(err, PL_PDH_INVALID_ARGUMENT, "source or outputs are NULL");
    strlist l = {0};
    for (int pass = 0; pass < (costly ? 2 : 1); pass++) {
        snap s;
        uint32_t st = collect_snap(src, pass ? "Costly" : "Global", &s, err);
        if (st) { sl_free(&l); return st; }
        add_object_names(src, &s, &l);
        snap_free(&s);
    }
    uint32_t st = sl_pack(&l, names, n);
    return st ? pl__pdh_fail(err, st, "out of memory") : st;
}

PL_EXTERN uint32_t pl_pdh_enum_object_items(const pl_pdh_source *src, const char *object, char ***counters,
                                            size_t *ncounters, char ***instances, size_t *ninstances,
                                            int *has_instances, pl_error *err)
{
    if (!src || !object || !*object) return pl__pdh_fail(err, PL_PDH_INVALID_ARGUMENT, "source or object is NULL");
    uint32_t oc[MAX_CAND];
    if (!src->titles || !src->titles(src->ctx, 0))
        return pl__pdh_fail(err, PL_PDH_CANNOT_READ_NAME_STRINGS, "the title database is not available");
    size_t no = pl__pdh_resolve_names(src, object, oc, MAX_CAND);
    if (no == 0) return pl__pdh_fail(err, PL_PDH_CSTATUS_NO_OBJECT, "no object is named \"%s\"", object);
    char qs[MAX_CAND * 12];
    query_string(oc, no, qs, sizeof qs);
    snap s;
    uint32_t st = collect_snap(src, qs, &s, err);
    if (st) return st;
    pl_object obj;
    st = find_object(&s, oc, no, &obj, object, err);
    if (st) { snap_free(&s); return st; }
    strlist cl = {0}, il = {0};
    pl_counter c; /* walked with pl_counter_next: linear */
    for (uint32_t i = 0; i < obj.hdr.NumCounters; i++) {
        if ((i ? pl_counter_next(&c, &c) : pl_object_counter(&obj, 0, &c)) != PL_OK) break;
        if (!listed_counter(&c)) continue;
        const char *nm = title_of(src, PL_TITLE_NAME, c.def.CounterNameTitleIndex);
        if (nm) sl_adds(&cl, nm);
    }
    if (instanced(&obj)) {
        pl__inames x;
        if (pl__pdh_inames_load(&obj, &x)) il.oom = 1;
        else {
            for (uint32_t i = 0; i < x.n; i++) sl_adds(&il, x.v[i].key);
            pl__pdh_inames_free(&x);
        }
    }
    if (has_instances) *has_instances = instanced(&obj);
    snap_free(&s);
    st = 0;
    if (counters) st = sl_pack(&cl, counters, ncounters);
    else sl_free(&cl);
    if (!st && instances) st = sl_pack(&il, instances, ninstances);
    else sl_free(&il);
    if (st) {
        if (counters && *counters) { free(*counters); *counters = NULL; }
        return pl__pdh_fail(err, st, "out of memory");
    }
    pl__clear(err);
    return PL_PDH_CSTATUS_VALID_DATA;
}

PL_EXTERN uint32_t pl_pdh_get_time_base(const pl_pdh_counter *c, int64_t *freq)
{
    if (!counter_ok(c)) return PL_PDH_INVALID_HANDLE;
    if (!freq) return PL_PDH_INVALID_ARGUMENT;
    int64_t f = c->freq;
    if (f <= 0 && (c->type & PERF_OBJECT_TIMER) == 0) f = 10000000; /* PerfFreq and the 100 ns timer */
    if (f <= 0) return PL_PDH_CSTATUS_INVALID_DATA;
    *freq = f;
    return PL_PDH_CSTATUS_VALID_DATA;
}
