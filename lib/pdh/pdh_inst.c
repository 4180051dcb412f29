/* PDH: the instance names of an object (pdh_internal.h): each instance's
 * own name, parent and full names, duplicate numbers and key, read once
 * per object and collection, with the parent objects' names read once too;
 * a path's match against one instance (the walk), and an index that finds
 * the instance a path without wildcards names by binary search, with the
 * walk's answer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdh_internal.h"
#include "perflib/block.h"

void pl__pdh_inames_free(pl__inames *x)
{
    if (!x) return;
    if (x->v)
        for (uint32_t i = 0; i < x->n; i++) {
            free(x->v[i].own); free(x->v[i].parent); free(x->v[i].full); free(x->v[i].key);
        }
    free(x->v);
    free(x->by_full);
    free(x->by_own);
    memset(x, 0, sizeof *x);
}

static char *inst_name_dup(const pl_instance *in)
{
    char small[256];
    if (pl_instance_name(in, small, sizeof small) == PL_OK) return pl__strdup(small);
    size_t cap = 4096;
    for (;;) {
        char *b = malloc(cap);
        if (!b) return NULL;
        int rc = pl_instance_name(in, b, cap);
        if (rc == PL_OK) return b;
        free(b);
        if (rc != PL_E_MORE_DATA || cap > (1u << 20)) return NULL;
        cap *= 4;
    }
}

typedef struct sortkey {
    const char *name;
    uint32_t pos;
} sortkey;

static int cmp_key(const void *a, const void *b)
{
    const sortkey *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Number equal names 0, 1, 2... in block order (own names or full names). */
static void number_dups(pl__inames *x, int own, sortkey *ord)
{
    for (uint32_t i = 0; i < x->n; i++) {
        ord[i].name = own ? x->v[i].own : x->v[i].full;
        ord[i].pos = i;
    }
    qsort(ord, x->n, sizeof *ord, cmp_key);
    for (uint32_t i = 0; i < x->n; i++) {
        uint32_t k = 0;
        if (i > 0 && strcmp(ord[i - 1].name, ord[i].name) == 0) {
            const pl__iname *pv = &x->v[ord[i - 1].pos];
            k = (own ? pv->dup_own : pv->dup_full) + 1;
        }
        if (own) x->v[ord[i].pos].dup_own = k;
        else x->v[ord[i].pos].dup_full = k;
    }
}

/* The instance names of the parent objects an object's instances name,
 * read once per load_inames (pl_instance_parent walks the parent object
 * from its first instance each time: over N instances of M parents that
 * was N x M, 2,000 threads of 300 processes 600,000 steps per sample). */
#define MAX_PARENTS 4
typedef struct parents {
    struct {
        uint32_t idx;
        int state;            /* 0 not read, 1 read, -1 no such object */
        char **names;         /* NULL where a name could not be read */
        uint32_t n;           /* names read (the walk stops at a bad instance) */
    } p[MAX_PARENTS];
    size_t np;
} parents;

static void parents_free(parents *ps)
{
    for (size_t i = 0; i < ps->np; i++) {
        for (uint32_t k = 0; k < ps->p[i].n; k++) free(ps->p[i].names[k]);
        free(ps->p[i].names);
    }
    ps->np = 0;
}

/* The name of in's parent instance (malloc'd) in *out, NULL when it has
 * none (as pl_instance_parent says). Returns -1 when out of memory. */
static int parent_name(parents *ps, const pl_instance *in, char **out)
{
    *out = NULL;
    if (in->position < 0 || in->def.ParentObjectTitleIndex == 0) return 0;
    uint32_t pidx = in->def.ParentObjectTitleIndex, ppos = in->def.ParentObjectInstance;
    size_t i = 0;
    while (i < ps->np && ps->p[i].idx != pidx) i++;
    if (i == ps->np) {
        if (ps->np == MAX_PARENTS) { /* an object with more parent objects than that: the slow way */
            pl_object po;
            pl_instance pi;
            if (pl_instance_parent(in, &po, &pi) != PL_OK) return 0;
            return (*out = inst_name_dup(&pi)) ? 0 : -1;
        }
        ps->np++;
        memset(&ps->p[i], 0, sizeof ps->p[i]);
        ps->p[i].idx = pidx;
    }
    if (ps->p[i].state == 0) {
        pl_object po;
        ps->p[i].state = -1;
        if (pl_block_find_object(in->obj->blk, pidx, &po) == PL_OK) {
            uint32_t n = pl_object_num_instances(&po);
            ps->p[i].names = calloc(n ? n : 1, sizeof *ps->p[i].names);
            if (!ps->p[i].names) return -1;
            ps->p[i].state = 1;
            pl_instance pi;
            for (uint32_t k = 0; k < n; k++) {
                if ((k ? pl_instance_next(&pi, &pi) : pl_object_instance(&po, 0, &pi)) != PL_OK) break;
                ps->p[i].names[k] = inst_name_dup(&pi); /* NULL: fails only the children that need it */
                ps->p[i].n = k + 1;
            }
        }
    }
    if (ps->p[i].state != 1 || ppos >= ps->p[i].n) return 0;
    if (!ps->p[i].names[ppos]) return -1; /* as inst_name_dup failing for it */
    return (*out = pl__strdup(ps->p[i].names[ppos])) ? 0 : -1;
}

uint64_t pl__pdh_name_loads;

uint32_t pl__pdh_inames_load(const pl_object *o, pl__inames *x)
{
    __atomic_add_fetch(&pl__pdh_name_loads, 1, __ATOMIC_RELAXED);
    memset(x, 0, sizeof *x);
    uint32_t n = pl_object_num_instances(o);
    if (n == 0) return 0;
    x->v = calloc(n, sizeof *x->v);
    sortkey *ord = calloc(n, sizeof *ord);
    parents ps = {0};
    if (!x->v || !ord) { free(ord); free(x->v); x->v = NULL; return PL_PDH_MEMORY_ALLOCATION_FAILURE; }
    x->n = n;
    pl_instance in;
    for (uint32_t i = 0; i < n; i++) {
        int rc = i == 0 ? pl_object_instance(o, 0, &in) : pl_instance_next(&in, &in);
        if (rc != PL_OK) { x->n = i; break; }
        pl__iname *e = &x->v[i];
        e->inst = in;
        e->own = inst_name_dup(&in);
        if (!e->own) { x->n = i + 1; goto nomem; }
        if (parent_name(&ps, &in, &e->parent) != 0) { x->n = i + 1; goto nomem; }
        if (e->parent) {
            size_t l1 = strlen(e->parent), l2 = strlen(e->own);
            e->full = malloc(l1 + l2 + 2);
            if (!e->full) { x->n = i + 1; goto nomem; }
            memcpy(e->full, e->parent, l1);
            e->full[l1] = '/';
            memcpy(e->full + l1 + 1, e->own, l2 + 1);
        } else {
            e->full = pl__strdup(e->own);
            if (!e->full) { x->n = i + 1; goto nomem; }
        }
    }
    parents_free(&ps);
    number_dups(x, 0, ord);
    number_dups(x, 1, ord);
    for (uint32_t i = 0; i < x->n; i++) {
        pl__iname *e = &x->v[i];
        size_t l = strlen(e->full);
        e->key = malloc(l + 12);
        if (!e->key) goto nomem;
        /* "#k" also for k = 0 when the name itself ends in "#digits": the
         * key reads back as this instance, never as another's duplicate */
        if (e->dup_full || pl__pdh_ends_with_index(e->full))
            snprintf(e->key, l + 12, "%s#%u", e->full, (unsigned)e->dup_full);
        else memcpy(e->key, e->full, l + 1);
    }
    free(ord);
    return 0;
nomem:
    parents_free(&ps);
    free(ord);
    pl__pdh_inames_free(x);
    return PL_PDH_MEMORY_ALLOCATION_FAILURE;
}

static int ieq(const char *a, const char *b) { return pl__utf8_casecmp(a, b) == 0; }

int pl__pdh_inst_match(const pl__pdh_path *p, const pl__iname *e)
{
    const pl_pdh_path_elements *pe = &p->e;
    if (p->inst_wild || p->parent_wild) {
        if (pe->parent) {
            if (!e->parent) return 0;
            if (p->parent_wild ? !pl__utf8_casematch(pe->parent, e->parent) : !ieq(pe->parent, e->parent)) return 0;
        }
        if (p->inst_wild) return pl__utf8_casematch(pe->instance, e->own);
        return ieq(pe->instance, e->own) && (pe->index == 0 || e->dup_own == pe->index);
    }
    if (pe->parent) {
        size_t l1 = strlen(pe->parent), l2 = strlen(pe->instance);
        char stackbuf[512];
        char *t = l1 + l2 + 2 <= sizeof stackbuf ? stackbuf : malloc(l1 + l2 + 2);
        if (!t) return 0;
        memcpy(t, pe->parent, l1);
        t[l1] = '/';
        memcpy(t + l1 + 1, pe->instance, l2 + 1);
        int m = ieq(t, e->full) && e->dup_full == pe->index;
        if (t != stackbuf) free(t);
        return m;
    }
    if (ieq(pe->instance, e->full) && e->dup_full == pe->index) return 1;
    return e->parent && ieq(pe->instance, e->own) && e->dup_own == pe->index;
}

static int cmp_nkey(const void *a, const void *b)
{
    const pl__nkey *x = a, *y = b;
    int c = pl__utf8_casecmp(x->name, y->name);
    if (c) return c;
    if (x->dup != y->dup) return x->dup < y->dup ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

uint32_t pl__pdh_inames_index(pl__inames *x)
{
    x->by_full = malloc((x->n ? x->n : 1) * sizeof *x->by_full);
    x->by_own = malloc((x->n ? x->n : 1) * sizeof *x->by_own);
    if (!x->by_full || !x->by_own) return PL_PDH_MEMORY_ALLOCATION_FAILURE;
    x->nown = 0;
    for (uint32_t i = 0; i < x->n; i++) {
        const pl__iname *e = &x->v[i];
        x->by_full[i] = (pl__nkey){e->full, e->dup_full, i};
        if (e->parent) x->by_own[x->nown++] = (pl__nkey){e->own, e->dup_own, i};
    }
    qsort(x->by_full, x->n, sizeof *x->by_full, cmp_nkey);
    qsort(x->by_own, x->nown, sizeof *x->by_own, cmp_nkey);
    return 0;
}

/* The lowest position whose name equals `name` (case-insensitively) with
 * duplicate number dup, or UINT32_MAX. */
static uint32_t first_named(const pl__nkey *k, uint32_t n, const char *name, uint32_t dup)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = pl__utf8_casecmp(k[mid].name, name);
        if (!c) c = k[mid].dup < dup ? -1 : k[mid].dup > dup;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && k[lo].dup == dup && pl__utf8_casecmp(k[lo].name, name) == 0 ? k[lo].pos : UINT32_MAX;
}

uint32_t pl__pdh_inames_find(const pl__inames *x, const pl__pdh_path *p)
{
    const pl_pdh_path_elements *pe = &p->e;
    if (pe->parent) {
        size_t l1 = strlen(pe->parent), l2 = strlen(pe->instance);
        char stackbuf[512];
        char *t = l1 + l2 + 2 <= sizeof stackbuf ? stackbuf : malloc(l1 + l2 + 2);
        if (!t) return UINT32_MAX;
        memcpy(t, pe->parent, l1);
        t[l1] = '/';
        memcpy(t + l1 + 1, pe->instance, l2 + 1);
        uint32_t i = first_named(x->by_full, x->n, t, pe->index);
        if (t != stackbuf) free(t);
        return i;
    }
    uint32_t a = first_named(x->by_full, x->n, pe->instance, pe->index);
    uint32_t b = first_named(x->by_own, x->nown, pe->instance, pe->index);
    return a < b ? a : b;
}
