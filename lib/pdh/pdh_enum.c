/* PDH paths checked and expanded against the data (validate, expand), and
 * names listed (objects, an object's counters and instances, look-ups by
 * name and index). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdh_internal.h"
#include "perflib/block.h"

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
    pl__pdh_snap s;
    pl_object obj;
    pl_counter ctr;
    int remote = 0;
    st = pl__pdh_resolve(src, &p, &s, &obj, &ctr, &remote, err, NULL);
    if (st) { free(p.mem); return st; }
    if (p.e.instance) {
        if (!pl__pdh_instanced(&obj)) {
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
    } else if (pl__pdh_instanced(&obj)) {
        st = pl__pdh_fail(err, PL_PDH_CSTATUS_NO_INSTANCE, "object \"%s\" has instances: name one", p.e.object);
    }
    pl__pdh_snap_free(&s);
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
    pl__pdh_snap s;
    pl_object obj;
    pl_counter ctr;
    int remote = 0;
    st = pl__pdh_resolve(src, &p, &s, &obj, &ctr, &remote, err, NULL);
    if (st) { free(p.mem); return st; }
    if ((p.e.instance != NULL) != (pl__pdh_instanced(&obj) != 0)) {
        pl__pdh_fail(err, PL_PDH_CSTATUS_NO_INSTANCE, "object \"%s\" %s instances", p.e.object,
                     pl__pdh_instanced(&obj) ? "has" : "has no");
        pl__pdh_snap_free(&s);
        free(p.mem);
        return PL_PDH_CSTATUS_NO_INSTANCE;
    }
    strlist ctrs = {0}, insts = {0}, out = {0};
    if (p.counter_wild) {
        pl_counter c; /* walked with pl_counter_next: linear */
        for (uint32_t i = 0; i < obj.hdr.NumCounters; i++) {
            if ((i ? pl_counter_next(&c, &c) : pl_object_counter(&obj, 0, &c)) != PL_OK) break;
            if (!pl__pdh_listed_counter(&c)) continue;
            char num[16];
            sl_adds(&ctrs, pl__pdh_counter_label(src, c.def.CounterNameTitleIndex, num, sizeof num));
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
    pl__pdh_snap_free(&s);
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
    const char *s = pl__pdh_title_of(src, PL_TITLE_NAME, index);
    if (!s) return PL_PDH_INVALID_ARGUMENT;
    size_t need = strlen(s) + 1;
    if (!buf || *size < need) { *size = need; return PL_PDH_MORE_DATA; }
    memcpy(buf, s, need);
    *size = need;
    return PL_PDH_CSTATUS_VALID_DATA;
}

static void add_object_names(const pl_pdh_source *src, const pl__pdh_snap *s, strlist *l)
{
    pl_object o;
    for (uint32_t i = 0; pl_block_object(&s->blk, i, &o) == PL_OK; i++) {
        const char *nm = pl__pdh_title_of(src, PL_TITLE_NAME, o.hdr.ObjectNameTitleIndex);
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
        pl__pdh_snap s;
        uint32_t st = pl__pdh_collect_snap(src, pass ? "Costly" : "Global", &s, err);
        if (st) { sl_free(&l); return st; }
        add_object_names(src, &s, &l);
        pl__pdh_snap_free(&s);
    }
    uint32_t st = sl_pack(&l, names, n);
    return st ? pl__pdh_fail(err, st, "out of memory") : st;
}

PL_EXTERN uint32_t pl_pdh_enum_object_items(const pl_pdh_source *src, const char *object, char ***counters,
                                            size_t *ncounters, char ***instances, size_t *ninstances,
                                            int *has_instances, pl_error *err)
{
    if (!src || !object || !*object) return pl__pdh_fail(err, PL_PDH_INVALID_ARGUMENT, "source or object is NULL");
    uint32_t oc[PL__PDH_MAX_CAND];
    if (!src->titles || !src->titles(src->ctx, 0))
        return pl__pdh_fail(err, PL_PDH_CANNOT_READ_NAME_STRINGS, "the title database is not available");
    size_t no = pl__pdh_resolve_names(src, object, oc, PL__PDH_MAX_CAND);
    if (no == 0) return pl__pdh_fail(err, PL_PDH_CSTATUS_NO_OBJECT, "no object is named \"%s\"", object);
    char qs[PL__PDH_MAX_CAND * 12];
    pl__pdh_query_string(oc, no, qs, sizeof qs);
    pl__pdh_snap s;
    uint32_t st = pl__pdh_collect_snap(src, qs, &s, err);
    if (st) return st;
    pl_object obj;
    st = pl__pdh_find_object(&s, oc, no, &obj, object, err);
    if (st) { pl__pdh_snap_free(&s); return st; }
    strlist cl = {0}, il = {0};
    pl_counter c; /* walked with pl_counter_next: linear */
    for (uint32_t i = 0; i < obj.hdr.NumCounters; i++) {
        if ((i ? pl_counter_next(&c, &c) : pl_object_counter(&obj, 0, &c)) != PL_OK) break;
        if (!pl__pdh_listed_counter(&c)) continue;
        const char *nm = pl__pdh_title_of(src, PL_TITLE_NAME, c.def.CounterNameTitleIndex);
        if (nm) sl_adds(&cl, nm);
    }
    if (pl__pdh_instanced(&obj)) {
        pl__inames x;
        if (pl__pdh_inames_load(&obj, &x)) il.oom = 1;
        else {
            for (uint32_t i = 0; i < x.n; i++) sl_adds(&il, x.v[i].key);
            pl__pdh_inames_free(&x);
        }
    }
    if (has_instances) *has_instances = pl__pdh_instanced(&obj);
    pl__pdh_snap_free(&s);
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
