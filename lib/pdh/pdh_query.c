/* PDH queries and counters: their lifetime (open, add, remove, close) and
 * the resolution of a path's names against a snapshot of the objects it
 * names, with the snapshot kept for the adds that follow (docs/pdh.md,
 * "Adding counters"). Collection is in pdh_collect.c, values in
 * pdh_value.c, validation, expansion and enumeration in pdh_enum.c. */
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

/* ------------------------------------------------------------ helpers */

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void pl__pdh_add_cache_drop(pl__pdh_add_cache *ac)
{
    free(ac->buf);
    free(ac->key);
    memset(ac, 0, sizeof *ac);
}



void pl__pdh_snap_free(pl__pdh_snap *s)
{
    free(s->buf);
    s->buf = NULL;
}

uint32_t pl__pdh_collect_snap(const pl_pdh_source *src, const char *query, pl__pdh_snap *s, pl_error *err)
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

const char *pl__pdh_title_of(const pl_pdh_source *src, int kind, uint32_t index)
{
    if (!src->titles) return NULL;
    for (int en = 0; en < 2; en++) {
        const pl_titles *t = src->titles(src->ctx, en);
        const char *s = t ? pl_titles_get(t, kind, index) : NULL;
        if (s) return s;
    }
    return NULL;
}

void pl__pdh_query_string(const uint32_t *idx, size_t n, char *out, size_t cap)
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
uint32_t pl__pdh_collect_foreign(const pl_pdh_source *src, const char *machine, const char *query, pl__pdh_snap *s,
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
    uint32_t st = pl__pdh_collect_snap(src, fq, s, &e2);
    free(fq);
    if (st) return pl__pdh_fail(err, PL_PDH_CSTATUS_NO_MACHINE, "machine \"%s\": %s", machine, e2.msg);
    return PL_PDH_CSTATUS_VALID_DATA;
}

/* Find the object among candidates in the snapshot, and the counter among
 * the candidates in the object. ctr_cands may be NULL (counter wildcard). */
uint32_t pl__pdh_find_object(const pl__pdh_snap *s, const uint32_t *oc, size_t no, pl_object *obj, const char *name,
                             pl_error *err)
{
    for (size_t i = 0; i < no; i++)
        if (pl_block_find_object(&s->blk, oc[i], obj) == PL_OK) return PL_PDH_CSTATUS_VALID_DATA;
    return pl__pdh_fail(err, PL_PDH_CSTATUS_NO_OBJECT, "object \"%s\" is not in the data", name);
}

/* A counter a user can name or list: not a base (it belongs to the counter
 * before it) and not the object's Unavailable Counters marker (a mask that
 * says which values are missing, docs/block-format.md). */
int pl__pdh_listed_counter(const pl_counter *c)
{
    if (pl_type_is_base(c->def.CounterType)) return 0;
    return !(c->def.CounterNameTitleIndex == PL_CTR_UNAVAILABLE_COUNTERS &&
             c->def.CounterType == PERF_COUNTER_LARGE_RAWCOUNT_HEX);
}

uint32_t pl__pdh_find_counter(const pl_object *obj, const uint32_t *cc, size_t nc, pl_counter *out)
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

int pl__pdh_instanced(const pl_object *o)
{
    return o->hdr.NumInstances != PERF_NO_INSTANCES && o->hdr.NumInstances >= 0;
}

/* The name a counter wildcard item uses for a counter: its title, or its
 * index in decimal when the title database has no name for it (a decimal
 * number also names an index in paths). */
const char *pl__pdh_counter_label(const pl_pdh_source *src, uint32_t index, char *num, size_t cap)
{
    const char *nm = pl__pdh_title_of(src, PL_TITLE_NAME, index);
    if (nm) return nm;
    snprintf(num, cap, "%u", (unsigned)index);
    return num;
}

/* ------------------------------------------------------------- queries */

int pl__pdh_query_ok(const pl_pdh_query *q) { return q && q->magic == QUERY_MAGIC; }
int pl__pdh_counter_ok(const pl_pdh_counter *c) { return c && c->magic == COUNTER_MAGIC && pl__pdh_query_ok(c->q); }

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
    if (!pl__pdh_query_ok(q)) return;
    for (size_t i = 0; i < q->n; i++) counter_free(q->ctrs[i]);
    free(q->ctrs);
    pl__pdh_add_cache_drop(&q->ac);
    q->magic = DEAD_MAGIC;
    free(q);
}

/* The object (and counter unless the counter is a wildcard) in snapshot s. */
static uint32_t find_in(const pl_pdh_source *src, const pl__pdh_path *p, const pl__pdh_snap *s, const uint32_t *oc,
                        size_t no, pl_object *obj, pl_counter *ctr, pl_error *err)
{
    uint32_t st = pl__pdh_find_object(s, oc, no, obj, p->e.object, err);
    if (st) return st;
    if (!p->counter_wild) {
        uint32_t cc[MAX_CAND];
        size_t nc = pl__pdh_resolve_names(src, p->e.counter, cc, MAX_CAND);
        if (nc == 0 || pl__pdh_find_counter(obj, cc, nc, ctr) != 0)
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
 * caller (pl__pdh_snap_free). With one, the snapshot is the cache's (the caller
 * must not free it): the one kept by an earlier add of the same objects on
 * the same machine when it is younger than PL__PDH_ADD_CACHE_MS and holds
 * the object and counter, else a fresh one that replaces it. So adding the
 * thousands of paths of an expanded wildcard costs one collection, not one
 * each (issue 26 finding 7). */
#define PL__PDH_ADD_CACHE_MS 5000
uint32_t pl__pdh_resolve(const pl_pdh_source *src, const pl__pdh_path *p, pl__pdh_snap *s, pl_object *obj,
                         pl_counter *ctr, int *remote, pl_error *err, pl__pdh_add_cache *ac)
{
    *remote = 0;
    memset(s, 0, sizeof *s);
    uint32_t oc[MAX_CAND];
    if (!src->titles || !src->titles(src->ctx, 0))
        return pl__pdh_fail(err, PL_PDH_CANNOT_READ_NAME_STRINGS, "the title database is not available");
    size_t no = pl__pdh_resolve_names(src, p->e.object, oc, MAX_CAND);
    if (no == 0) return pl__pdh_fail(err, PL_PDH_CSTATUS_NO_OBJECT, "no object is named \"%s\"", p->e.object);
    char qs[MAX_CAND * 12];
    pl__pdh_query_string(oc, no, qs, sizeof qs);
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
    uint32_t st = pl__pdh_collect_snap(src, qs, s, err);
    if (!st && !machine_ok(p->e.machine, s->blk.system_name)) {
        pl__pdh_snap_free(s);
        st = pl__pdh_collect_foreign(src, p->e.machine, qs, s, err);
        if (!st) *remote = 1;
    }
    if (!st) st = find_in(src, p, s, oc, no, obj, ctr, err);
    if (st) {
        pl__pdh_snap_free(s);
        free(key);
        return st;
    }
    if (ac) { /* the cache owns it now */
        pl__pdh_add_cache_drop(ac);
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
    if (!pl__pdh_query_ok(q)) return pl__pdh_fail(err, PL_PDH_INVALID_HANDLE, "not a query handle");
    pl_pdh_counter *c = calloc(1, sizeof *c);
    if (!c) return pl__pdh_fail(err, PL_PDH_MEMORY_ALLOCATION_FAILURE, "out of memory");
    uint32_t st = pl__pdh_split(path, &c->p, err);
    if (st) { free(c); return st; }
    pl__pdh_snap s; /* the query's add cache's: not freed here */
    pl_object obj;
    pl_counter ctr;
    int remote = 0;
    st = pl__pdh_resolve(&q->src, &c->p, &s, &obj, &ctr, &remote, err, &q->ac);
    if (st) { free(c->p.mem); free(c); return st; }
    if (!pl__pdh_instanced(&obj) && c->p.e.instance) st = PL_PDH_CSTATUS_NO_INSTANCE;
    if (pl__pdh_instanced(&obj) && !c->p.e.instance) st = PL_PDH_CSTATUS_NO_INSTANCE;
    if (st) {
        pl__pdh_fail(err, st, "\"%s\": object \"%s\" %s instances", path, c->p.e.object,
                     pl__pdh_instanced(&obj) ? "has" : "has no");
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
        c->freq = pl__pdh_freq_of(&s.blk, &obj, c->type);
        c->narrow = pl__pdh_counter_narrow(&ctr);
        const char *h = pl__pdh_title_of(&q->src, PL_TITLE_HELP, ctr.def.CounterHelpTitleIndex);
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
            pl__pdh_no_data(&c->items[0].cur, PL_PDH_CSTATUS_INVALID_DATA);
            pl__pdh_no_data(&c->items[0].prev, PL_PDH_CSTATUS_INVALID_DATA);
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
    if (!pl__pdh_counter_ok(c)) return PL_PDH_INVALID_HANDLE;
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

PL_EXTERN uint32_t pl_pdh_get_counter_info(const pl_pdh_counter *c, pl_pdh_counter_info *info)
{
    if (!info) return PL_PDH_INVALID_ARGUMENT;
    if (!pl__pdh_counter_ok(c)) return PL_PDH_INVALID_HANDLE;
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
