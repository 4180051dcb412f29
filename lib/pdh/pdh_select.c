/* Counters chosen by path (pdh.h, "selections"; docs/pdh.md): paths split
 * by the one path parser (pl__pdh_split), names resolved as queries resolve
 * them (pl__pdh_resolve_names), instances matched as queries match them
 * (pl__pdh_inst_match). */
#include <stdlib.h>
#include <string.h>

#include "pdh_internal.h"
#include "perflib/winperf.h"

typedef struct sel_path {
    pl__pdh_path p;
    int exclude;
    uint32_t obj[PL__PDH_MAX_CAND], ctr[PL__PDH_MAX_CAND];
    size_t nobj, nctr;        /* nctr unused for a "*" counter */
} sel_path;

struct pl_pdh_selection {
    sel_path *v;
    size_t n, ninclude;
};

typedef struct pick_path {
    const sel_path *sp;
    unsigned char *in;        /* per instance position: matched */
} pick_path;

struct pl_pdh_pick {
    int whole;
    uint32_t ninst;
    pick_path *v;
    size_t n;
    unsigned char *mem;
};

void pl_pdh_selection_free(pl_pdh_selection *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->n; i++) free(s->v[i].p.mem);
    free(s->v);
    free(s);
}

uint32_t pl_pdh_selection_new(const pl_pdh_source *src, const char *const *include, size_t ninclude,
                              const char *const *exclude, size_t nexclude, pl_pdh_selection **out, pl_error *err)
{
    if (!out || (ninclude && !include) || (nexclude && !exclude) || !src)
        return pl__pdh_fail(err, PL_PDH_INVALID_ARGUMENT, "selection: NULL argument");
    *out = NULL;
    pl_pdh_selection *s = calloc(1, sizeof *s);
    if (!s) return pl__pdh_fail(err, PL_PDH_MEMORY_ALLOCATION_FAILURE, "out of memory");
    s->v = calloc(ninclude + nexclude + 1, sizeof *s->v);
    if (!s->v) {
        free(s);
        return pl__pdh_fail(err, PL_PDH_MEMORY_ALLOCATION_FAILURE, "out of memory");
    }
    s->ninclude = ninclude;
    for (size_t i = 0; i < ninclude + nexclude; i++) {
        const char *path = i < ninclude ? include[i] : exclude[i - ninclude];
        sel_path *sp = &s->v[i];
        uint32_t st = pl__pdh_split(path, &sp->p, err);
        if (st != PL_PDH_CSTATUS_VALID_DATA) {
            pl_pdh_selection_free(s);
            return st;
        }
        s->n = i + 1;
        if (sp->p.e.machine) {
            pl_pdh_selection_free(s);
            return pl__pdh_fail(err, PL_PDH_CSTATUS_BAD_COUNTERNAME,
                                "counter path \"%s\" names a machine: a selection is of this machine's counters", path);
        }
        sp->exclude = i >= ninclude;
        sp->nobj = pl__pdh_resolve_names(src, sp->p.e.object, sp->obj, PL__PDH_MAX_CAND);
        if (!sp->p.counter_wild) sp->nctr = pl__pdh_resolve_names(src, sp->p.e.counter, sp->ctr, PL__PDH_MAX_CAND);
    }
    *out = s;
    return PL_PDH_CSTATUS_VALID_DATA;
}

size_t pl_pdh_selection_objects(const pl_pdh_selection *s, uint32_t *out, size_t cap)
{
    size_t n = 0;
    if (!s) return 0;
    for (size_t i = 0; i < s->ninclude; i++)
        for (size_t k = 0; k < s->v[i].nobj; k++) {
            uint32_t idx = s->v[i].obj[k];
            int seen = 0;
            for (size_t j = 0; j < i && !seen; j++)
                for (size_t m = 0; m < s->v[j].nobj && !seen; m++) seen = s->v[j].obj[m] == idx;
            for (size_t m = 0; m < k && !seen; m++) seen = s->v[i].obj[m] == idx;
            if (seen) continue;
            if (n < cap) out[n] = idx;
            n++;
        }
    return n;
}

int pl_pdh_selection_resolved(const pl_pdh_selection *s, size_t i)
{
    if (!s || i >= s->ninclude) return 0;
    const sel_path *sp = &s->v[i];
    return sp->nobj > 0 && (sp->p.counter_wild || sp->nctr > 0);
}

static int names_object(const sel_path *sp, uint32_t idx)
{
    for (size_t k = 0; k < sp->nobj; k++)
        if (sp->obj[k] == idx) return 1;
    return 0;
}

void pl_pdh_pick_free(pl_pdh_pick *p)
{
    if (!p) return;
    free(p->v);
    free(p->mem);
    free(p);
}

uint32_t pl_pdh_selection_pick(const pl_pdh_selection *s, const pl_object *o, int whole, pl_pdh_pick **out)
{
    *out = NULL;
    if (!s || !o) return PL_PDH_INVALID_ARGUMENT;
    uint32_t oidx = o->hdr.ObjectNameTitleIndex;
    size_t n = 0, ninc = 0;
    for (size_t i = 0; i < s->n; i++)
        if (names_object(&s->v[i], oidx)) {
            n++;
            ninc += !s->v[i].exclude;
        }
    if (!whole && ninc == 0) return PL_PDH_CSTATUS_VALID_DATA;
    int instanced = o->hdr.NumInstances != PERF_NO_INSTANCES && o->hdr.NumInstances >= 0;
    pl__inames x = {0};
    if (instanced && n && pl__pdh_inames_load(o, &x) != 0) return PL_PDH_MEMORY_ALLOCATION_FAILURE;
    /* no path names the object (it is served whole): every instance */
    uint32_t ninst = !instanced ? 1 : n ? x.n : pl_object_num_instances(o);
    pl_pdh_pick *p = calloc(1, sizeof *p);
    if (p) {
        p->v = calloc(n + 1, sizeof *p->v);
        p->mem = calloc(n * (size_t)ninst + 1, 1);
    }
    if (!p || !p->v || !p->mem) {
        pl_pdh_pick_free(p);
        pl__pdh_inames_free(&x);
        return PL_PDH_MEMORY_ALLOCATION_FAILURE;
    }
    p->whole = whole;
    p->ninst = ninst;
    for (size_t i = 0; i < s->n; i++) {
        const sel_path *sp = &s->v[i];
        if (!names_object(sp, oidx)) continue;
        pick_path *pp = &p->v[p->n];
        pp->sp = sp;
        pp->in = p->mem + p->n * (size_t)ninst;
        p->n++;
        if (!instanced) {
            pp->in[0] = sp->p.e.instance == NULL; /* a path with an instance names none here */
            continue;
        }
        if (!sp->p.e.instance) continue;
        for (uint32_t k = 0; k < x.n; k++) pp->in[k] = (unsigned char)pl__pdh_inst_match(&sp->p, &x.v[k]);
    }
    pl__pdh_inames_free(&x);
    *out = p;
    return PL_PDH_CSTATUS_VALID_DATA;
}

static int names_counter(const sel_path *sp, uint32_t idx)
{
    if (sp->p.counter_wild) return 1;
    for (size_t k = 0; k < sp->nctr; k++)
        if (sp->ctr[k] == idx) return 1;
    return 0;
}

int pl_pdh_pick_has(const pl_pdh_pick *p, uint32_t counter_index, uint32_t pos)
{
    if (!p || pos >= p->ninst) return 0;
    int in = p->whole;
    for (size_t i = 0; i < p->n; i++) {
        const pick_path *pp = &p->v[i];
        if (!pp->in[pos] || !names_counter(pp->sp, counter_index)) continue;
        if (pp->sp->exclude) return 0;
        in = 1;
    }
    return in;
}
