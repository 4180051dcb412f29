/* perflib counter logs: a log of formatted values (CSV/TSV, SQL, a binary
 * values log) as a PDH data source (docs/counter-log.md, "PDH over a log of
 * values").
 *
 * Such a log holds one number per column and no raw counters, so each
 * record is presented as the blocks a machine would have sent: per machine
 * named by the columns, one PERF_DATA_BLOCK whose objects, counters and
 * instances are those the column paths name, every counter a
 * PERF_DOUBLE_RAW holding the logged value (as Windows' PDH presents text
 * and SQL logs); a value the log does not have is a NaN, which PDH reports
 * as no value. The names get a title database of their own: indices 2, 4,
 * 6, ... in order of first appearance (1964, perflib's Unavailable Counters
 * marker, is left out). Paths, wildcards and formatted values then work as
 * on a binary log. Columns whose path does not parse or whose names are not
 * UTF-8 are not in the blocks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log_ext.h"
#include "pdh_internal.h"
#include "perflib/block.h"
#include "perflib/indices.h"

/* ------------------------------------------------------- string sets */

/* Interned strings with exact comparison: position in insertion order. */
typedef struct sset {
    char **v;
    size_t n, cap;
    size_t *slot;             /* hash slots: position + 1, 0 empty */
    size_t nslot;
} sset;

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void sset_free(sset *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->v[i]);
    free(s->v);
    free(s->slot);
    memset(s, 0, sizeof *s);
}

/* Position of str, added when new. -1 on no memory. */
static long sset_add(sset *s, const char *str, int *added)
{
    if (added) *added = 0;
    if ((s->n + 1) * 2 > s->nslot) {
        size_t ns = s->nslot ? s->nslot * 2 : 64;
        size_t *sl = calloc(ns, sizeof *sl);
        if (!sl) return -1;
        for (size_t i = 0; i < s->n; i++) {
            size_t k = (size_t)(hash(s->v[i]) & (ns - 1));
            while (sl[k]) k = (k + 1) & (ns - 1);
            sl[k] = i + 1;
        }
        free(s->slot);
        s->slot = sl;
        s->nslot = ns;
    }
    size_t k = (size_t)(hash(str) & (s->nslot - 1));
    for (; s->slot[k]; k = (k + 1) & (s->nslot - 1))
        if (strcmp(s->v[s->slot[k] - 1], str) == 0) return (long)(s->slot[k] - 1);
    if (pl__grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v) != PL_OK) return -1;
    if (!(s->v[s->n] = pl__strdup(str))) return -1;
    s->slot[k] = s->n + 1;
    if (added) *added = 1;
    return (long)s->n++;
}

/* ------------------------------------------------------------ layout */

typedef struct vobj {
    size_t name;              /* in names */
    int has_inst;
    sset ctrs;                /* counter names (positions are handles) */
    size_t *ctr_name;         /* names index of each counter */
    int32_t *ctr_scale;
    size_t name_cap, scale_cap;
    sset insts;               /* distinct full instance names */
    uint32_t *dups;           /* highest #n of each */
    size_t *first;            /* block position of each name's #0 */
    size_t dup_cap, first_cap;
    size_t ninst;             /* instances in the block */
    char **inst_names;        /* ninst names, in block order (into insts) */
} vobj;

typedef struct vmach {
    char *name;
    vobj *o;
    size_t n, cap;
    uint8_t *blk;             /* the current record's block */
    size_t len;
} vmach;

typedef struct vcol {
    int ok;
    size_t m, o, c;
    long inst;                /* block position, -1: no instances */
} vcol;

struct pl__vsrc {
    sset names;               /* object and counter names -> title indices */
    vmach *m;
    size_t nm;
    vcol *col;
    size_t ncol;
    pl_titles *titles;
    pl_builder *b;
    double *cell;             /* scratch: one object's values */
    size_t cellcap;
};

static uint32_t title_index(size_t name)
{
    uint32_t i = 2 + 2 * (uint32_t)name;
    return i >= PL_CTR_UNAVAILABLE_COUNTERS ? i + 2 : i;
}

static int utf8_ok(const char *s)
{
    size_t units;
    return s && pl__utf8_to_utf16(s, strlen(s), NULL, 0, &units) != PL_E_ENCODING;
}

void pl__vsrc_free(pl__vsrc *v)
{
    if (!v) return;
    for (size_t i = 0; i < v->nm; i++) {
        vmach *m = &v->m[i];
        for (size_t k = 0; k < m->n; k++) {
            vobj *o = &m->o[k];
            sset_free(&o->ctrs);
            sset_free(&o->insts);
            free(o->ctr_name);
            free(o->ctr_scale);
            free(o->dups);
            free(o->first);
            free(o->inst_names);
        }
        free(m->o);
        free(m->name);
        free(m->blk);
    }
    free(v->m);
    free(v->col);
    sset_free(&v->names);
    pl_titles_free(v->titles);
    pl_builder_free(v->b);
    free(v->cell);
    free(v);
}

static long find_machine(pl__vsrc *v, const char *name)
{
    for (size_t i = 0; i < v->nm; i++)
        if (pl__utf8_casecmp(v->m[i].name, name) == 0) return (long)i;
    vmach *nm = realloc(v->m, (v->nm + 1) * sizeof *nm);
    if (!nm) return -1;
    v->m = nm;
    memset(&v->m[v->nm], 0, sizeof *v->m);
    if (!(v->m[v->nm].name = pl__strdup(name))) return -1;
    return (long)v->nm++;
}

static long find_object(pl__vsrc *v, vmach *m, size_t name)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->o[i].name == name) return (long)i;
    if (pl__grow((void **)&m->o, &m->cap, m->n + 1, sizeof *m->o) != PL_OK) return -1;
    (void)v;
    m->o[m->n].name = name;
    return (long)m->n++;
}

/* Place one column: its machine, object, counter and instance name. */
static int place(pl__vsrc *v, size_t i, const pl_log_column *c, const char *default_machine)
{
    pl__pdh_path p;
    if (pl__pdh_split(c->path, &p, NULL) != PL_PDH_CSTATUS_VALID_DATA) return PL_OK; /* not a counter path */
    const pl_pdh_path_elements *e = &p.e;
    int s = PL_OK;
    char *full = NULL;
    if (p.inst_wild || p.parent_wild || p.counter_wild || !utf8_ok(e->object) || !utf8_ok(e->counter) ||
        (e->instance && !utf8_ok(e->instance)) || (e->parent && !utf8_ok(e->parent)))
        goto done;
    const char *mname = e->machine ? e->machine : default_machine ? default_machine : "";
    if (!utf8_ok(mname)) goto done;
    if (e->instance) {
        size_t l = strlen(e->instance) + (e->parent ? strlen(e->parent) + 1 : 0) + 1;
        if (!(full = malloc(l))) goto nomem;
        snprintf(full, l, "%s%s%s", e->parent ? e->parent : "", e->parent ? "/" : "", e->instance);
    }
    long mi = find_machine(v, mname);
    long on = mi < 0 ? -1 : sset_add(&v->names, e->object, NULL);
    long cn = on < 0 ? -1 : sset_add(&v->names, e->counter, NULL);
    if (cn < 0) goto nomem;
    vmach *m = &v->m[mi];
    long oi = find_object(v, m, (size_t)on);
    if (oi < 0) goto nomem;
    vobj *o = &m->o[oi];
    int added;
    long ci = sset_add(&o->ctrs, e->counter, &added);
    if (ci < 0) goto nomem;
    if (added) {
        if (pl__grow((void **)&o->ctr_name, &o->name_cap, o->ctrs.n, sizeof *o->ctr_name) != PL_OK ||
            pl__grow((void **)&o->ctr_scale, &o->scale_cap, o->ctrs.n, sizeof *o->ctr_scale) != PL_OK)
            goto nomem;
        o->ctr_name[ci] = (size_t)cn;
        o->ctr_scale[ci] = c->scale;
    }
    vcol *vc = &v->col[i];
    vc->m = (size_t)mi;
    vc->o = (size_t)oi;
    vc->c = (size_t)ci;
    vc->inst = -1;
    if (full) {
        o->has_inst = 1;
        long ii = sset_add(&o->insts, full, &added);
        if (ii < 0) goto nomem;
        if (added && (pl__grow((void **)&o->dups, &o->dup_cap, o->insts.n, sizeof *o->dups) != PL_OK ||
                      pl__grow((void **)&o->first, &o->first_cap, o->insts.n, sizeof *o->first) != PL_OK))
            goto nomem;
        if (e->index > o->dups[ii]) {
            if (e->index > 65535) goto done; /* a hostile #n */
            o->dups[ii] = e->index;
        }
        vc->inst = ii; /* the name for now; its block position follows */
    }
    vc->ok = 1 + (int)e->index; /* the duplicate index + 1 until placed */
    goto done;
nomem:
    s = PL_E_NOMEM;
done:
    free(full);
    free(p.mem);
    return s;
}

/* Instances in block order: each name's #0..#k together, names in order of
 * first appearance; objects that mix columns with and without an instance
 * keep only those with one. */
static int lay_out(pl__vsrc *v)
{
    for (size_t mi = 0; mi < v->nm; mi++)
        for (size_t oi = 0; oi < v->m[mi].n; oi++) {
            vobj *o = &v->m[mi].o[oi];
            size_t total = 0;
            for (size_t k = 0; k < o->insts.n; k++) {
                o->first[k] = total;
                total += (size_t)o->dups[k] + 1;
            }
            o->ninst = total;
            if (!total) continue;
            if (total > 4000000) return PL_E_RANGE;
            if (!(o->inst_names = malloc(total * sizeof *o->inst_names))) return PL_E_NOMEM;
            for (size_t k = 0; k < o->insts.n; k++)
                for (uint32_t d = 0; d <= o->dups[k]; d++) o->inst_names[o->first[k] + d] = o->insts.v[k];
        }
    for (size_t i = 0; i < v->ncol; i++) {
        vcol *c = &v->col[i];
        if (!c->ok) continue;
        uint32_t dup = (uint32_t)(c->ok - 1);
        vobj *o = &v->m[c->m].o[c->o];
        c->ok = 1;
        if (c->inst >= 0) c->inst = (long)(o->first[c->inst] + dup);
        else if (o->has_inst) c->ok = 0;
    }
    return PL_OK;
}

/* The title database: names and a help text for each. */
static int make_titles(pl__vsrc *v, const pl_log_header *h, pl_error *err)
{
    size_t nl = 2, hl = 2;
    for (size_t i = 0; i < v->names.n; i++) nl += strlen(v->names.v[i]) + 24;
    hl += v->names.n * 64;
    for (size_t i = 0; i < h->ncolumns; i++)
        if (h->columns[i].help) hl += strlen(h->columns[i].help) + 1;
    char *names = malloc(nl), *help = malloc(hl);
    const char **htext = calloc(v->names.n + 1, sizeof *htext);
    if (!names || !help || !htext) {
        free(names);
        free(help);
        free(htext);
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    /* a column's help text is its counter's */
    for (size_t i = 0; i < h->ncolumns; i++) {
        const vcol *c = &v->col[i];
        if (!c->ok || !h->columns[i].help || !*h->columns[i].help || !utf8_ok(h->columns[i].help)) continue;
        size_t n = v->m[c->m].o[c->o].ctr_name[c->c];
        if (!htext[n]) htext[n] = h->columns[i].help;
    }
    size_t w = 0, hw = 0;
    for (size_t i = 0; i < v->names.n; i++) {
        uint32_t idx = title_index(i);
        w += (size_t)snprintf(names + w, nl - w, "%u", (unsigned)idx) + 1;
        size_t l = strlen(v->names.v[i]) + 1;
        memcpy(names + w, v->names.v[i], l);
        w += l;
        hw += (size_t)snprintf(help + hw, hl - hw, "%u", (unsigned)idx + 1) + 1;
        const char *t = htext[i] ? htext[i] : "A value recorded in the log.";
        l = strlen(t) + 1;
        memcpy(help + hw, t, l);
        hw += l;
    }
    names[w++] = '\0';
    help[hw++] = '\0';
    int s = pl_titles_from_multisz("009", names, w, help, hw, &v->titles, err);
    free(names);
    free(help);
    free(htext);
    return s;
}

int pl__vsrc_new(const pl_log_header *h, pl__vsrc **out, pl_error *err)
{
    *out = NULL;
    pl__vsrc *v = calloc(1, sizeof *v);
    if (!v) return pl__fail(err, PL_E_NOMEM, "out of memory");
    v->ncol = h->ncolumns;
    v->col = calloc(v->ncol + 1, sizeof *v->col);
    v->b = pl_builder_new();
    int s = v->col && v->b ? PL_OK : PL_E_NOMEM;
    for (size_t i = 0; s == PL_OK && i < v->ncol; i++) s = place(v, i, &h->columns[i], h->machine);
    if (s == PL_OK) s = lay_out(v);
    if (s == PL_OK && v->names.n == 0) s = pl__fail(err, PL_E_UNSUPPORTED, "no column of the log is a counter path");
    else if (s == PL_E_NOMEM) pl__fail(err, s, "out of memory");
    else if (s == PL_E_RANGE) pl__fail(err, s, "the columns name more than 4,000,000 instances of one object");
    if (s == PL_OK) s = make_titles(v, h, err);
    if (s) {
        pl__vsrc_free(v);
        return s;
    }
    *out = v;
    return PL_OK;
}

const pl_titles *pl__vsrc_titles(const pl__vsrc *v) { return v ? v->titles : NULL; }

/* One machine's block for a record. */
static int build_machine(pl__vsrc *v, size_t mi, int64_t time, const double *vals, const unsigned char *present)
{
    vmach *m = &v->m[mi];
    pl_builder *b = v->b;
    pl_builder_reset(b);
    /* values by (object, instance, counter): NaN until a column sets one */
    for (size_t oi = 0; oi < m->n; oi++) {
        vobj *o = &m->o[oi];
        pl_object_desc od = {0};
        od.name_index = title_index(o->name);
        od.help_index = od.name_index + 1;
        od.detail_level = PERF_DETAIL_NOVICE;
        od.default_counter = 0;
        od.has_instances = o->has_inst;
        od.perf_time = time;
        od.perf_freq = 10000000;
        int obj, ctr, inst;
        if (pl_builder_add_object(b, &od, &obj) != PL_OK) return PL_E_NOMEM;
        for (size_t ci = 0; ci < o->ctrs.n; ci++) {
            pl_counter_desc cd = {0};
            cd.name_index = title_index(o->ctr_name[ci]);
            cd.help_index = cd.name_index + 1;
            cd.type = PERF_DOUBLE_RAW;
            cd.size = 8;
            cd.detail_level = PERF_DETAIL_NOVICE;
            cd.default_scale = o->ctr_scale[ci] < -10 || o->ctr_scale[ci] > 10 ? 0 : o->ctr_scale[ci];
            if (pl_builder_add_counter(b, obj, &cd, &ctr) != PL_OK) return PL_E_NOMEM;
        }
        double nan = NAN;
        uint64_t nanbits;
        memcpy(&nanbits, &nan, 8);
        if (!o->has_inst) {
            for (size_t ci = 0; ci < o->ctrs.n; ci++) pl_builder_set_u64(b, obj, -1, (int)ci, nanbits);
            continue;
        }
        for (size_t k = 0; k < o->ninst; k++) {
            if (pl_builder_add_instance(b, obj, o->inst_names[k], 0, 0, PERF_NO_UNIQUE_ID, &inst) != PL_OK)
                return PL_E_NOMEM;
            for (size_t ci = 0; ci < o->ctrs.n; ci++) pl_builder_set_u64(b, obj, inst, (int)ci, nanbits);
        }
    }
    for (size_t i = 0; i < v->ncol; i++) {
        const vcol *c = &v->col[i];
        if (!c->ok || c->m != mi || !present[i] || !isfinite(vals[i])) continue;
        uint64_t bits;
        memcpy(&bits, &vals[i], 8);
        pl_builder_set_u64(b, (int)c->o, (int)c->inst, (int)c->c, bits);
    }
    size_t olen = pl_builder_size(b), hlen = 0, used;
    uint32_t nobj;
    pl_block_header bh = {0};
    pl__walltime w;
    int wday;
    pl__ft_walltime(time, &w, &wday);
    bh.system_time.wYear = (WORD)w.year;
    bh.system_time.wMonth = (WORD)w.mon;
    bh.system_time.wDayOfWeek = (WORD)wday;
    bh.system_time.wDay = (WORD)w.day;
    bh.system_time.wHour = (WORD)w.hour;
    bh.system_time.wMinute = (WORD)w.min;
    bh.system_time.wSecond = (WORD)w.sec;
    bh.system_time.wMilliseconds = (WORD)w.ms;
    bh.perf_time = time;
    bh.perf_freq = 10000000;
    bh.perf_time_100ns = time;
    bh.default_object = m->n ? (int32_t)title_index(m->o[0].name) : 0;
    bh.system_name = m->name;
    if (pl_block_write_header(&bh, pl_builder_num_objects(b), olen, NULL, 0, &hlen) != PL_E_MORE_DATA)
        return PL_E_INVAL;
    uint8_t *blk = realloc(m->blk, hlen + olen);
    if (!blk) return PL_E_NOMEM;
    m->blk = blk;
    m->len = 0;
    if (pl_block_write_header(&bh, pl_builder_num_objects(b), olen, blk, hlen + olen, &used) != PL_OK ||
        pl_builder_emit(b, blk + hlen, olen, &used, &nobj) != PL_OK)
        return PL_E_INVAL;
    m->len = hlen + olen;
    return PL_OK;
}

int pl__vsrc_build(pl__vsrc *v, int64_t time, const double *vals, const unsigned char *present, pl_error *err)
{
    for (size_t mi = 0; mi < v->nm; mi++) {
        int s = build_machine(v, mi, time, vals, present);
        if (s) return pl__fail(err, s, "cannot build the record's block (%s)", s == PL_E_NOMEM ? "out of memory"
                                                                                               : "too large");
    }
    return PL_OK;
}

int pl__vsrc_collect(pl__vsrc *v, const char *query, void **block, size_t *len, pl_error *err)
{
    size_t mi = 0;
    if (strncasecmp(query, "Foreign ", 8) == 0) {
        const char *m = query + 8;
        const char *e = strchr(m, ' ');
        size_t n = e ? (size_t)(e - m) : strlen(m);
        for (mi = 0; mi < v->nm; mi++)
            if (strlen(v->m[mi].name) == n && strncasecmp(v->m[mi].name, m, n) == 0) break;
        if (mi == v->nm) return pl__fail(err, PL_E_REMOTE, "the log has no machine \"%.*s\"", (int)n, m);
    }
    if (mi >= v->nm || !v->m[mi].len) return pl__fail(err, PL_E_NO_DATA, "no record is current");
    void *b = malloc(v->m[mi].len);
    if (!b) return pl__fail(err, PL_E_NOMEM, "out of memory");
    memcpy(b, v->m[mi].blk, v->m[mi].len);
    *block = b;
    *len = v->m[mi].len;
    return PL_OK;
}
