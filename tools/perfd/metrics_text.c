/* perfd: a performance data block as Prometheus text 0.0.4 or OpenMetrics
 * 1.0 (metrics_text.h, docs/perfd.md "/metrics").
 *
 * Names, types, units, conversions and HELP come from the table
 * (metrics_table.c). Labels: the instance under the object's name (not for
 * Thread, whose names are positions), `parent`, `pid` and `tid` from ID
 * Process / ID Thread, `index` for other duplicates. Every family is
 * written once, contiguous, HELP and TYPE first; every series once (label
 * sets made unique per object). 32-bit counters are extended to 64 bits
 * across wraps with state kept between scrapes. A timer's raw value is
 * divided by the frequency of its time base, PDH's (pl_pdh_time_base,
 * docs/pdh.md). Values are written exactly where
 * they can be (an integer times a power of ten or of two), so that a
 * conversion adds no rounding of its own. */
#include "metrics_text.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics_top.h"
#include "perflib/indices.h"
#include "perflib/pdh.h"
#include "perflib/winperf.h"

#define FILETIME_UNIX_EPOCH 116444736000000000LL

/* "_Total", or a group's total such as Processor Information's "0,_Total"
 * (a NUMA node's sum). */
static int is_total(const char *name)
{
    size_t n = strlen(name);
    return strcmp(name, "_Total") == 0 || (n > 7 && strcmp(name + n - 7, ",_Total") == 0);
}

/* ----------------------------------------------------------------- output */

static void put(pm_out *o, const char *s, size_t n)
{
    wb_put(&o->b, s, n);
    if (o->b.failed) o->failed = 1;
}

static void put_s(pm_out *o, const char *s) { put(o, s, strlen(s)); }

/* A label value: \ " and newline escaped; control characters dropped;
 * UTF-8 passes through. */
static void esc_label(wb *b, const char *v)
{
    const char *run = v;
    for (; *v; v++) {
        unsigned char c = (unsigned char)*v;
        if (c >= 0x20 && c != 0x7F && c != '\\' && c != '"') continue;
        wb_put(b, run, (size_t)(v - run));
        run = v + 1;
        if (c == '\\') wb_put(b, "\\\\", 2);
        else if (c == '"') wb_put(b, "\\\"", 2);
        else if (c == '\n') wb_put(b, "\\n", 2);
    }
    wb_put(b, run, (size_t)(v - run));
}

void pm_label(wb *b, const char *key, const char *value)
{
    if (b->len) wb_put(b, ",", 1);
    wb_str(b, key);
    wb_put(b, "=\"", 2);
    esc_label(b, value ? value : "");
    wb_put(b, "\"", 1);
}

/* HELP text on one line: \ and newline escaped (and " for OpenMetrics). */
static void esc_help(pm_out *o, const char *v, int om)
{
    for (; *v; v++) {
        unsigned char c = (unsigned char)*v;
        if (c == '\\') put(o, "\\\\", 2);
        else if (c == '\n' || c == '\r') put(o, " ", 1);
        else if (c == '"' && om) put(o, "\\\"", 2);
        else if (c >= 0x20 && c != 0x7F) put(o, v, 1);
        else put(o, " ", 1);
    }
}

/* ---------------------------------------------------------------- numbers */

#define NUM_MAX 48

static size_t fmt_u64(char *out, uint64_t u)
{
    char t[24];
    size_t i = sizeof t;
    do {
        t[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    memcpy(out, t + i, sizeof t - i);
    return sizeof t - i;
}

static size_t fmt_double(char *out, double v)
{
    if (isnan(v)) return (size_t)snprintf(out, NUM_MAX, "NaN");
    if (isinf(v)) return (size_t)snprintf(out, NUM_MAX, v > 0 ? "+Inf" : "-Inf");
    if (v == (double)(int64_t)v && v < 9e15 && v > -9e15) {
        if (v < 0) {
            out[0] = '-';
            return 1 + fmt_u64(out + 1, (uint64_t)(-(int64_t)v));
        }
        return fmt_u64(out, (uint64_t)v);
    }
    /* the shortest of these that reads back exactly */
    int n = snprintf(out, NUM_MAX, "%.15g", v);
    if (strtod(out, NULL) != v) n = snprintf(out, NUM_MAX, "%.17g", v);
    return (size_t)n;
}

/* digits of frac (< 10^k) as k digits, trailing zeros dropped, after a '.' */
static size_t fmt_frac(char *out, uint64_t frac, int k)
{
    if (!frac) return 0;
    char t[24];
    for (int i = k - 1; i >= 0; i--) {
        t[i] = (char)('0' + frac % 10);
        frac /= 10;
    }
    while (k > 0 && t[k - 1] == '0') k--;
    out[0] = '.';
    memcpy(out + 1, t, (size_t)k);
    return (size_t)k + 1;
}

/* raw x num / den (den > 0), negative when neg: exactly as a decimal where
 * den is a power of ten or of two (up to 2^19) or divides the product,
 * else the shortest double that reads back. */
static size_t fmt_scaled(char *out, uint64_t raw, int neg, uint64_t num, uint64_t den)
{
    size_t w = 0;
    if (num != 1) {
        if (raw && num > UINT64_MAX / raw) return fmt_double(out, (neg ? -1.0 : 1.0) * (double)raw * (double)num / (double)den);
        raw *= num;
    }
    if (neg && raw) out[w++] = '-';
    if (den == 1) return w + fmt_u64(out + w, raw);
    uint64_t p = 1;
    int k = 0;
    while (p < den && k < 19) {
        p *= 10;
        k++;
    }
    if (p == den) {
        w += fmt_u64(out + w, raw / den);
        return w + fmt_frac(out + w, raw % den, k);
    }
    if ((den & (den - 1)) == 0 && den <= (1u << 19)) {
        int b = 0;
        while (((uint64_t)1 << b) < den) b++;
        uint64_t five = 1;
        for (int i = 0; i < b; i++) five *= 5;
        w += fmt_u64(out + w, raw >> b);
        return w + fmt_frac(out + w, (raw & (den - 1)) * five, b);
    }
    if (raw % den == 0) return w + fmt_u64(out + w, raw / den);
    return fmt_double(out, (neg ? -1.0 : 1.0) * ((double)raw / (double)den));
}

/* ------------------------------------------------------------ wrap state */

typedef struct wentry {
    char *key;
    uint32_t last;            /* the last raw 32-bit value */
    uint64_t high;            /* wraps so far << 32 */
    uint64_t seq;             /* snapshot it was last updated from */
    uint64_t gen;             /* scrape it was last seen in */
} wentry;

struct pm_state {
    wentry *v;
    size_t n, cap;            /* open addressing, cap a power of two */
    uint64_t gen;
    pm_top *top;              /* the top processes' values between scrapes */
};

pm_state *pm_state_new(void) { return calloc(1, sizeof(pm_state)); }

void pm_state_free(pm_state *st)
{
    if (!st) return;
    for (size_t i = 0; i < st->cap; i++) free(st->v[i].key);
    free(st->v);
    pm_top_free(st->top);
    free(st);
}

static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int st_grow(pm_state *st)
{
    size_t nc = st->cap ? st->cap * 2 : 1024;
    wentry *nv = calloc(nc, sizeof *nv);
    if (!nv) return -1;
    size_t n = 0;
    for (size_t i = 0; i < st->cap; i++) {
        if (!st->v[i].key) continue;
        /* entries unseen for 16 scrapes are dropped while rehashing */
        if (st->gen - st->v[i].gen > 16) {
            free(st->v[i].key);
            continue;
        }
        size_t j = fnv(st->v[i].key) & (nc - 1);
        while (nv[j].key) j = (j + 1) & (nc - 1);
        nv[j] = st->v[i];
        n++;
    }
    free(st->v);
    st->v = nv;
    st->cap = nc;
    st->n = n;
    return 0;
}

/* The 64-bit value of a 32-bit counter identified by key. */
static uint64_t extend32(pm_state *st, const char *key, uint32_t raw, uint64_t seq)
{
    if (!st) return raw;
    if ((st->n + 1) * 2 > st->cap && st_grow(st) != 0) return raw;
    size_t j = fnv(key) & (st->cap - 1);
    while (st->v[j].key && strcmp(st->v[j].key, key) != 0) j = (j + 1) & (st->cap - 1);
    wentry *e = &st->v[j];
    if (!e->key) {
        e->key = strdup(key);
        if (!e->key) return raw;
        e->last = raw;
        e->high = 0;
        e->seq = seq;
        st->n++;
    } else if (seq < e->seq) {
        /* an older snapshot rendered after a newer one (remote_write's
         * render and a scrape's queued on the worker in the other order):
         * its value is from before e->last, so a raw above it is from
         * before the latest wrap; nothing is updated */
        e->gen = st->gen;
        if (raw <= e->last || e->high == 0) return e->high + raw;
        return e->high - ((uint64_t)1 << 32) + raw;
    } else if (e->seq != seq) {
        if (raw < e->last) e->high += (uint64_t)1 << 32;
        e->last = raw;
        e->seq = seq;
    }
    e->gen = st->gen;
    return e->high + e->last;
}

/* A cumulative value as the exposition needs it: a 32-bit one extended
 * across wraps. part tells the value from the base. */
static uint64_t cum_value(pm_state *st, uint64_t seq, const pl_counter *c, uint32_t size, uint64_t raw, int part,
                          const char *labels, size_t lablen)
{
    if (size != 4) return raw;
    char key[1200];
    snprintf(key, sizeof key, "%u/%u/%d/%.*s", (unsigned)c->obj->hdr.ObjectNameTitleIndex,
             (unsigned)c->def.CounterNameTitleIndex, part, (int)(lablen > 1100 ? 1100 : lablen), labels);
    return extend32(st, key, (uint32_t)raw, seq);
}

/* ------------------------------------------------------------- instances */

typedef struct inst {
    pl_instance in;
    size_t lab_off, lab_len;  /* in the view's label text */
    uint64_t unavail;         /* the Unavailable Counters bits (0: none) */
    unsigned char total;      /* a _Total or group total */
    unsigned char skip;       /* a total the options leave out */
    unsigned char other;      /* top processes: summed into _Other */
} inst;

typedef struct view {
    const pl_object *o;
    int instanced;
    inst *v;
    uint32_t n;
    wb lab;                   /* every instance's label text, back to back */
    pm_labels L;
    int top;                  /* top processes: some instances are in _Other */
    uint32_t nother;
    void *pick;               /* counters chosen by path (pm_options), NULL: all */
    int (*pick_has)(void *h, uint32_t counter_index, uint32_t pos);
} view;

/* Does the view serve counter cidx of its i-th instance? */
static int view_has(const view *w, uint32_t cidx, uint32_t i)
{
    return !w->pick || w->pick_has(w->pick, cidx, i);
}

/* Does it serve counter cidx in any instance (else no family at all)? */
static int view_picks(const view *w, uint32_t cidx)
{
    for (uint32_t i = 0; i < w->n; i++)
        if (!w->v[i].skip && view_has(w, cidx, i)) return 1;
    return 0;
}

static void view_free(view *w)
{
    free(w->v);
    wb_free(&w->lab);
}

/* Is counter c readable where the marker says `bits`? Its own bit and its
 * base's (pl_counter_available's rule, without the per-call lookup). */
static int available(const pl_counter *c, uint64_t bits)
{
    if (!bits || c->def.CounterNameTitleIndex == PL_CTR_UNAVAILABLE_COUNTERS) return 1;
    uint32_t p = c->position;
    uint64_t own = (uint64_t)1 << (p >= 63 ? 63 : p);
    uint64_t base = c->has_base ? (uint64_t)1 << (p + 1 >= 63 ? 63 : p + 1) : 0;
    return (bits & (own | base)) == 0;
}

/* The label-ready names of a parent object's instances, by position. */
typedef struct parents {
    uint32_t index;           /* the parent object's title index, 0: none looked up */
    int found;
    uint32_t n;
    size_t *off;              /* into text */
    wb text;
} parents;

static int parents_load(parents *pp, const pl_block *blk, uint32_t index)
{
    free(pp->off);
    wb_free(&pp->text);
    memset(pp, 0, sizeof *pp);
    pp->index = index;
    pl_object po;
    if (pl_block_find_object(blk, index, &po) != PL_OK) return 0;
    uint32_t n = pl_object_num_instances(&po);
    pp->off = malloc(((size_t)n + 1) * sizeof *pp->off);
    if (!pp->off) return -1;
    pl_instance pi;
    uint32_t k = 0;
    for (int rc = n ? pl_object_instance(&po, 0, &pi) : PL_E_NOT_FOUND; rc == PL_OK && k < n;
         rc = pl_instance_next(&pi, &pi), k++) {
        char name[1024];
        pl_instance_name(&pi, name, sizeof name); /* cut: still a label */
        pp->off[k] = pp->text.len;
        esc_label(&pp->text, name);
        wb_put(&pp->text, "", 1); /* the NUL between names */
    }
    pp->n = k;
    pp->found = 1;
    return pp->text.failed ? -1 : 0;
}

static void parents_free(parents *pp)
{
    free(pp->off);
    wb_free(&pp->text);
}

static int cmp_labels(const void *a, const void *b, void *ctx)
{
    const view *w = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const inst *ix = &w->v[x], *iy = &w->v[y];
    size_t n = ix->lab_len < iy->lab_len ? ix->lab_len : iy->lab_len;
    int c = memcmp(w->lab.p + ix->lab_off, w->lab.p + iy->lab_off, n);
    if (c) return c;
    if (ix->lab_len != iy->lab_len) return ix->lab_len < iy->lab_len ? -1 : 1;
    return (x > y) - (x < y);
}

static void id_label(wb *b, const char *key, const pl_counter *c, const inst *x)
{
    uint64_t v;
    if (!available(c, x->unavail) || pl_counter_value(c, &x->in, &v) != PL_OK) return;
    char num[24];
    num[fmt_u64(num, v)] = '\0';
    pm_label(b, key, num);
}

/* Walk o's instances once: their labels (unique within the object: a set
 * seen before gets index="k", k = 1, 2, ... among equal sets), totals and
 * unavailable bits. */
static int view_open(view *w, const pl_block *blk, const pl_object *o, const char *oname, const pm_options *opt)
{
    memset(w, 0, sizeof *w);
    w->o = o;
    pm_labels_of(o->hdr.ObjectNameTitleIndex, oname, &w->L);
    w->instanced = o->hdr.NumInstances != PERF_NO_INSTANCES && o->hdr.NumInstances > 0;
    pl_counter marker, cpid, ctid;
    int have_marker = 0;
    if (o->hdr.NumCounters && pl_object_counter(o, 0, &marker) == PL_OK) {
        int rc = PL_OK;
        for (; rc == PL_OK; rc = pl_counter_next(&marker, &marker))
            if (marker.def.CounterNameTitleIndex == PL_CTR_UNAVAILABLE_COUNTERS &&
                marker.def.CounterType == PERF_COUNTER_LARGE_RAWCOUNT_HEX && marker.def.CounterSize == 8)
                break;
        have_marker = rc == PL_OK;
    }
    if (!w->instanced) {
        w->v = calloc(1, sizeof *w->v);
        if (!w->v) return -1;
        if (pl_object_instance(o, -1, &w->v[0].in) == PL_OK) {
            w->n = 1;
            uint64_t bits = 0;
            if (have_marker && pl_counter_value(&marker, &w->v[0].in, &bits) == PL_OK) w->v[0].unavail = bits;
        }
        return 0;
    }
    int have_pid = (w->L.ids & PM_ID_PID) && pl_object_find_counter(o, PL_CTR_ID_PROCESS, &cpid) == PL_OK;
    int have_tid = (w->L.ids & PM_ID_TID) && pl_object_find_counter(o, PL_CTR_ID_THREAD, &ctid) == PL_OK;
    uint32_t n = pl_object_num_instances(o);
    w->v = calloc(n, sizeof *w->v);
    if (!w->v) return -1;
    parents pp = {0};
    wb ids = {0}; /* one instance's pid and tid labels */
    uint32_t k = 0;
    int fail = 0;
    pl_instance in;
    for (int rc = pl_object_instance(o, 0, &in); rc == PL_OK && k < n && !fail; rc = pl_instance_next(&in, &in), k++) {
        inst *x = &w->v[k];
        x->in = in;
        char name[1024];
        pl_instance_name(&in, name, sizeof name); /* cut: still a label */
        x->total = (unsigned char)is_total(name);
        x->skip = x->total && !opt->include_total;
        uint64_t bits = 0;
        if (have_marker && pl_counter_value(&marker, &in, &bits) == PL_OK) x->unavail = bits;
        x->lab_off = w->lab.len;
        size_t mark = w->lab.len;
        ids.len = 0;
        if (have_pid) id_label(&ids, "pid", &cpid, x);
        if (have_tid) id_label(&ids, "tid", &ctid, x);
        if (!w->L.positional || !ids.len) {
            wb_str(&w->lab, w->L.instance);
            wb_put(&w->lab, "=\"", 2);
            esc_label(&w->lab, name);
            wb_put(&w->lab, "\"", 1);
        }
        uint32_t pidx = in.def.ParentObjectTitleIndex;
        if (pidx) {
            if (pp.index != pidx && parents_load(&pp, blk, pidx) != 0) fail = 1;
            uint32_t ppos = in.def.ParentObjectInstance;
            if (pp.found && ppos < pp.n) {
                wb_put(&w->lab, w->lab.len > mark ? ",parent=\"" : "parent=\"", w->lab.len > mark ? 9 : 8);
                wb_str(&w->lab, pp.text.p + pp.off[ppos]);
                wb_put(&w->lab, "\"", 1);
            }
        }
        if (ids.len) {
            if (w->lab.len > mark) wb_put(&w->lab, ",", 1);
            wb_put(&w->lab, ids.p, ids.len);
        }
        if (ids.failed) fail = 1;
        x->lab_len = w->lab.len - x->lab_off;
    }
    parents_free(&pp);
    wb_free(&ids);
    w->n = k;
    if (fail || w->lab.failed) return -1;
    /* duplicates: order positions by (labels, position); in each run of
     * equal label sets the 2nd, 3rd... get index="1", "2"... (no base label
     * set holds `index`, so the results are unique) */
    uint32_t *ord = malloc(((size_t)w->n + 1) * sizeof *ord);
    if (!ord) return -1;
    for (uint32_t i = 0; i < w->n; i++) ord[i] = i;
    qsort_r(ord, w->n, sizeof *ord, cmp_labels, w);
    uint32_t run = 0, first = 0;
    for (uint32_t i = 1; i < w->n; i++) {
        inst *a = &w->v[ord[first]], *b = &w->v[ord[i]];
        if (a->lab_len != b->lab_len || memcmp(w->lab.p + a->lab_off, w->lab.p + b->lab_off, a->lab_len) != 0) {
            first = i;
            run = 0;
            continue;
        }
        run++;
        char idx[40];
        int il = snprintf(idx, sizeof idx, ",index=\"%u\"", (unsigned)run);
        size_t off = w->lab.len;
        if (wb_reserve(&w->lab, b->lab_len + (size_t)il) != 0) break;
        memcpy(w->lab.p + off, w->lab.p + b->lab_off, b->lab_len);
        memcpy(w->lab.p + off + b->lab_len, idx, (size_t)il);
        w->lab.len = off + b->lab_len + (size_t)il;
        w->lab.p[w->lab.len] = '\0';
        b->lab_off = off;
        b->lab_len += (size_t)il;
    }
    free(ord);
    return w->lab.failed ? -1 : 0;
}

/* ----------------------------------------------------------------- render */

int pm_allowed(const pm_options *opt, uint32_t idx)
{
    if (!opt->nonly) return 1;
    for (size_t i = 0; i < opt->nonly; i++)
        if (opt->only[i] == idx) return 1;
    return 0;
}

int pm_wanted(const pm_options *opt, uint32_t idx)
{
    if (!pm_allowed(opt, idx) || opt->none) return 0;
    if (opt->all) return 1;
    if (!opt->objects || opt->nobjects == 0) return idx != PL_OBJ_PROCESS && idx != PL_OBJ_THREAD;
    for (size_t i = 0; i < opt->nobjects; i++)
        if (opt->objects[i] == idx) return 1;
    return 0;
}

/* Family names written so far (a name from two counters gets the counter's
 * index appended: never a family twice). */
typedef struct nameset {
    char **v;
    size_t n, cap;
} nameset;

static int ns_has(const nameset *s, const char *n)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], n) == 0) return 1;
    return 0;
}

static int ns_add(nameset *s, const char *n)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 256;
        char **nv = realloc(s->v, nc * sizeof *nv);
        if (!nv) return -1;
        s->v = nv;
        s->cap = nc;
    }
    if (!(s->v[s->n] = strdup(n))) return -1;
    s->n++;
    return 0;
}

static void ns_free(nameset *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->v[i]);
    free(s->v);
}

static const char *prom_type(pm_kind k)
{
    switch (k) {
    case PM_COUNTER: case PM_COUNTER_SECONDS: case PM_COUNTER_INVERSE: case PM_COUNTER_QUEUE: case PM_PRECISION:
        return "counter";
    case PM_SUMMARY_SECONDS: case PM_SUMMARY: case PM_SUMMARY_RATIO: return "summary";
    default: return "gauge";
    }
}

void pm_family(pm_out *o, int om, const char *fam, pm_kind k, pm_unit unit, const char *help)
{
    int counter = strcmp(prom_type(k), "counter") == 0;
    const char *sfx = counter && !om ? "_total" : k == PM_TEXT && !om ? "_info" : "";
    put(o, "# HELP ", 7);
    put_s(o, fam);
    put_s(o, sfx);
    put(o, " ", 1);
    esc_help(o, help && *help ? help : "(no explain text)", om);
    put(o, "\n# TYPE ", 8);
    put_s(o, fam);
    put_s(o, sfx);
    put(o, " ", 1);
    put_s(o, k == PM_TEXT && om ? "info" : prom_type(k));
    put(o, "\n", 1);
    if (om && unit != PM_UNIT_NONE) {
        put(o, "# UNIT ", 7);
        put_s(o, fam);
        put(o, " ", 1);
        put_s(o, pm_unit_suffix(unit));
        put(o, "\n", 1);
    }
}

/* One sample line: fam sfx {labels} number */
static void line(pm_out *o, const char *fam, size_t famlen, const char *sfx, const char *lab, size_t lablen,
                 const char *num, size_t numlen)
{
    size_t sfxlen = strlen(sfx);
    if (wb_reserve(&o->b, famlen + sfxlen + o->prefix_len + lablen + numlen + 5) != 0) {
        o->failed = 1;
        return;
    }
    char *p = o->b.p + o->b.len;
    memcpy(p, fam, famlen);
    p += famlen;
    memcpy(p, sfx, sfxlen);
    p += sfxlen;
    if (lablen || o->prefix_len) {
        *p++ = '{';
        if (o->prefix_len) {
            memcpy(p, o->prefix, o->prefix_len);
            p += o->prefix_len;
            if (lablen) *p++ = ',';
        }
        if (lablen) memcpy(p, lab, lablen);
        p += lablen;
        *p++ = '}';
    }
    *p++ = ' ';
    memcpy(p, num, numlen);
    p += numlen;
    *p++ = '\n';
    o->b.len = (size_t)(p - o->b.p);
    o->b.p[o->b.len] = '\0';
}

void pm_sample(pm_out *o, const char *fam, const char *sfx, const char *labels, double v)
{
    char num[NUM_MAX];
    size_t n = fmt_double(num, v);
    line(o, fam, strlen(fam), sfx, labels ? labels : "", labels ? strlen(labels) : 0, num, n);
}

void pm_eof(pm_out *o, int om)
{
    if (om) put(o, "# EOF\n", 6);
}

/* Is a counter-like family's _Total of a transient object (processes,
 * threads) left out? It falls when an instance ends: never a counter. */
static int counter_like(pm_kind k)
{
    return strcmp(prom_type(k), "gauge") != 0;
}

/* ---------------------------------------------------------- top processes */

/* Mark the instances of a Process view that go into _Other (metrics_top.h):
 * every process with a pid but pid 0 is ranked by opt->top_by. */
static int view_top(view *w, const pm_options *opt, pm_state *st, uint64_t seq)
{
    if (!st->top && !(st->top = pm_top_new())) return -1;
    const pl_object *o = w->o;
    pl_counter cpid, cstart, crank;
    int hp = pl_object_find_counter(o, PL_CTR_ID_PROCESS, &cpid) == PL_OK;
    int hs = pl_object_find_counter(o, PL_CTR_ELAPSED_TIME, &cstart) == PL_OK;
    int hr = pl_object_find_counter(o, opt->top_by ? opt->top_by : PL_CTR_PCT_PROCESSOR_TIME, &crank) == PL_OK;
    uint32_t n = w->n;
    uint64_t *pid = calloc((size_t)n + 1, sizeof *pid), *start = calloc((size_t)n + 1, sizeof *start);
    uint64_t *rank = calloc((size_t)n + 1, sizeof *rank);
    unsigned char *elig = calloc((size_t)n + 1, 1), *oth = calloc((size_t)n + 1, 1);
    int rc = -1;
    if (pid && start && rank && elig && oth) {
        for (uint32_t i = 0; i < n; i++) {
            const inst *x = &w->v[i];
            int have_pid = hp && available(&cpid, x->unavail) && pl_counter_value(&cpid, &x->in, &pid[i]) == PL_OK;
            if (hs && available(&cstart, x->unavail)) (void)pl_counter_value(&cstart, &x->in, &start[i]);
            if (hr && available(&crank, x->unavail)) (void)pl_counter_value(&crank, &x->in, &rank[i]);
            elig[i] = have_pid && pid[i] != 0 && !x->total && !x->skip && (!hr || view_has(w, crank.def.CounterNameTitleIndex, i));
        }
        int cum = hr && counter_like(pm_kind_of(crank.def.CounterType));
        rc = pm_top_begin(st->top, seq, n, pid, start, elig, rank, cum, hr && crank.def.CounterSize == 4, opt->top_n,
                          oth);
        if (rc == 0)
            for (uint32_t i = 0; i < n; i++) {
                w->v[i].other = oth[i];
                w->nother += oth[i];
            }
    }
    free(pid);
    free(start);
    free(rank);
    free(elig);
    free(oth);
    w->top = rc == 0;
    return rc;
}

/* Is a counter's _Other a sum that means something (counts, times, bytes
 * in use; not peaks, ids, priorities or states)? */
static int additive(const pm_metric *m, uint32_t cidx)
{
    switch (m->kind) {
    case PM_COUNTER: case PM_COUNTER_SECONDS: return 1;
    case PM_GAUGE:
        return !m->is_signed && ((m->unit == PM_UNIT_BYTES && !strstr(m->name, "_peak")) ||
                                 cidx == PL_CTR_THREAD_COUNT || cidx == PL_CTR_HANDLE_COUNT);
    default: return 0;
    }
}

/* The process="_Other" sample of counter c (a top-processes view). */
static void other_line(pm_out *o, const view *w, const pl_counter *c, const char *fam, const pm_metric *m,
                       int64_t freq, pm_state *st)
{
    uint32_t n = w->n;
    uint64_t *vals = calloc((size_t)n + 1, sizeof *vals);
    unsigned char *have = calloc((size_t)n + 1, 1);
    if (!vals || !have) {
        free(vals);
        free(have);
        o->failed = 1;
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        have[i] = view_has(w, c->def.CounterNameTitleIndex, i) && available(c, w->v[i].unavail) &&
                  pl_counter_value(c, &w->v[i].in, &vals[i]) == PL_OK;
    int cum = m->kind != PM_GAUGE, complete = 0;
    uint64_t raw =
        pm_top_other(st->top, c->def.CounterNameTitleIndex, vals, have, cum, c->def.CounterSize == 4, &complete);
    free(vals);
    free(have);
    if (!complete) return; /* a member's value is not readable: no sum rather than a wrong one */
    char num[NUM_MAX];
    size_t nl;
    if (m->kind == PM_COUNTER_SECONDS) {
        if (freq <= 0) return;
        nl = fmt_scaled(num, raw, 0, 1, (uint64_t)freq);
    } else {
        nl = fmt_scaled(num, raw, 0, m->conv.num, m->conv.den);
    }
    wb l = {0};
    pm_label(&l, w->L.instance, "_Other");
    if (l.failed) o->failed = 1;
    else line(o, fam, strlen(fam), cum ? "_total" : "", l.p, l.len, num, nl);
    wb_free(&l);
}

/* The samples of counter c in every instance of the view. */
static void one_counter(pm_out *o, const pl_block *blk, const view *w, const pl_counter *c, const char *fam,
                        const pm_metric *m, uint64_t seq, pm_state *st, int base_family)
{
    uint32_t type = c->def.CounterType;
    int64_t now = 0, freq = 0; /* the stamp its values are measured against, and its frequency */
    pl_pdh_time_base(blk, w->o, type, &now, &freq);
    size_t famlen = strlen(fam);
    int drop_totals = w->L.transient && counter_like(m->kind);
    for (uint32_t i = 0; i < w->n; i++) {
        const inst *x = &w->v[i];
        if (x->skip || (drop_totals && x->total)) continue;
        if (x->other || !view_has(w, c->def.CounterNameTitleIndex, i)) continue;
        /* unreadable: no number rather than a wrong one */
        if (!available(c, x->unavail)) continue;
        const char *lab = w->lab.p ? w->lab.p + x->lab_off : "";
        size_t lablen = w->instanced ? x->lab_len : 0;
        char num[NUM_MAX], num2[NUM_MAX];
        size_t n = 0, n2 = 0;
        if (m->kind == PM_TEXT) {
            char text[1024];
            if (pl_counter_text(c, &x->in, text, sizeof text) != PL_OK) continue;
            wb l = {0};
            if (lablen) wb_put(&l, lab, lablen);
            pm_label(&l, "value", text);
            if (l.failed) {
                o->failed = 1;
                wb_free(&l);
                return;
            }
            line(o, fam, famlen, "_info", l.p, l.len, "1", 1);
            wb_free(&l);
            continue;
        }
        uint64_t v = 0, base = 0;
        if (pl_counter_value(c, &x->in, &v) != PL_OK) continue;
        uint32_t size = c->def.CounterSize;
        int has_base = c->has_base && pl_counter_base(c, &x->in, &base) == PL_OK;
        if (base_family) { /* a precision timer's base, in seconds */
            if (!has_base || freq <= 0) continue;
            base = cum_value(st, seq, c, c->base.CounterSize, base, 1, lab, lablen);
            n = fmt_scaled(num, base, 0, 1, (uint64_t)freq);
            line(o, fam, famlen, "_total", lab, lablen, num, n);
            continue;
        }
        switch (m->kind) {
        case PM_GAUGE: {
            int neg = 0;
            if (m->is_signed) {
                int64_t s = size == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
                neg = s < 0;
                v = neg ? (uint64_t)0 - (uint64_t)s : (uint64_t)s;
            }
            n = fmt_scaled(num, v, neg, m->conv.num, m->conv.den);
            line(o, fam, famlen, "", lab, lablen, num, n);
            break;
        }
        case PM_DOUBLE: {
            double d;
            memcpy(&d, &v, sizeof d);
            if (!isfinite(d)) break; /* no number rather than a wrong one */
            n = fmt_double(num, d * (double)m->conv.num / (double)m->conv.den);
            line(o, fam, famlen, "", lab, lablen, num, n);
            break;
        }
        case PM_GAUGE_RATIO:
            if (!has_base || !base) break;
            n = fmt_double(num, (double)v / (double)base);
            line(o, fam, famlen, "", lab, lablen, num, n);
            break;
        case PM_COUNTER:
            v = cum_value(st, seq, c, size, v, 0, lab, lablen);
            n = fmt_scaled(num, v, 0, m->conv.num, m->conv.den);
            line(o, fam, famlen, "_total", lab, lablen, num, n);
            break;
        case PM_COUNTER_SECONDS:
        case PM_COUNTER_INVERSE:
        case PM_COUNTER_QUEUE:
        case PM_PRECISION:
            if (freq <= 0) break;
            v = cum_value(st, seq, c, size, v, 0, lab, lablen);
            n = fmt_scaled(num, v, 0, 1, (uint64_t)freq);
            line(o, fam, famlen, "_total", lab, lablen, num, n);
            break;
        case PM_SUMMARY_SECONDS:
        case PM_SUMMARY:
        case PM_SUMMARY_RATIO: {
            if (!has_base) break;
            uint64_t den = m->conv.den;
            if (m->kind == PM_SUMMARY_SECONDS) {
                if (freq <= 0) break;
                den = (uint64_t)freq;
            }
            v = cum_value(st, seq, c, size, v, 0, lab, lablen);
            base = cum_value(st, seq, c, c->base.CounterSize, base, 1, lab, lablen);
            n = fmt_scaled(num, v, 0, m->kind == PM_SUMMARY ? m->conv.num : 1, den);
            n2 = fmt_u64(num2, base);
            line(o, fam, famlen, "_sum", lab, lablen, num, n);
            line(o, fam, famlen, "_count", lab, lablen, num2, n2);
            break;
        }
        case PM_ELAPSED: {
            if (freq == 10000000 && (int64_t)v > FILETIME_UNIX_EPOCH && (int64_t)v <= now) {
                n = fmt_scaled(num, (uint64_t)((int64_t)v - FILETIME_UNIX_EPOCH), 0, 1, 10000000);
                line(o, fam, famlen, "", lab, lablen, num, n);
            }
            break;
        }
        default: break;
        }
        if (o->failed) return;
    }
    if (w->top && !base_family && additive(m, c->def.CounterNameTitleIndex)) other_line(o, w, c, fam, m, freq, st);
}

int pm_render_objects(const pl_block *blk, uint64_t seq, const pm_names *names, const pm_options *opt,
                      pm_state *st, pm_out *o)
{
    nameset fams = {0};
    if (st) st->gen++;
    pl_object ob;
    for (int rc = pl_block_object(blk, 0, &ob); rc == PL_OK && !o->failed; rc = pl_object_next(&ob, &ob)) {
        uint32_t oidx = ob.hdr.ObjectNameTitleIndex;
        int whole = pm_wanted(opt, oidx);
        void *pick = NULL;
        if (opt->pick_open && pm_allowed(opt, oidx)) {
            int failed = 0;
            pick = opt->pick_open(opt->pick_ctx, &ob, whole, &failed);
            if (failed) {
                o->failed = 1;
                break;
            }
            if (!pick) continue;
        } else if (!whole) {
            continue;
        }
        const char *oname = names->name(names->ctx, oidx);
        view w;
        if (view_open(&w, blk, &ob, oname, opt) != 0) {
            view_free(&w);
            if (pick) opt->pick_close(pick);
            o->failed = 1;
            break;
        }
        w.pick = pick;
        w.pick_has = opt->pick_has;
        if (opt->top_n && oidx == PL_OBJ_PROCESS && st && w.instanced && view_top(&w, opt, st, seq) != 0) {
            view_free(&w);
            if (pick) opt->pick_close(pick);
            o->failed = 1;
            break;
        }
        pl_counter c;
        for (int crc = pl_object_counter(&ob, 0, &c); crc == PL_OK && !o->failed; crc = pl_counter_next(&c, &c)) {
            uint32_t cidx = c.def.CounterNameTitleIndex;
            if (pl_type_is_base(c.def.CounterType)) continue;
            pm_metric m;
            pm_metric_of(oidx, oname, cidx, c.def.CounterType, names->name(names->ctx, cidx),
                         names->help(names->ctx, c.def.CounterHelpTitleIndex), &m);
            if (m.kind == PM_SKIP) continue;
            if (pick && !view_picks(&w, cidx)) continue;
            if (ns_has(&fams, m.name)) { /* two counters, one name: the later gets its index, before the unit */
                char tail[PM_NAME_MAX];
                snprintf(tail, sizeof tail, "%s", m.name + m.unit_at);
                snprintf(m.name + m.unit_at, sizeof m.name - m.unit_at, "_%u%s", (unsigned)cidx, tail);
            }
            if (ns_has(&fams, m.name) || ns_add(&fams, m.name) != 0) continue;
            pm_family(o, opt->openmetrics, m.name, m.kind, m.unit, m.help);
            one_counter(o, blk, &w, &c, m.name, &m, seq, st, 0);
            if (m.kind == PM_PRECISION) {
                char bfam[PM_NAME_MAX + 32];
                size_t l = strlen(m.name);
                if (l > 8 && strcmp(m.name + l - 8, "_seconds") == 0) l -= 8;
                snprintf(bfam, sizeof bfam, "%.*s_base_seconds", (int)l, m.name);
                if (!ns_has(&fams, bfam) && ns_add(&fams, bfam) == 0) {
                    char help[PM_HELP_MAX + 200];
                    snprintf(help, sizeof help,
                             "The time base of %s_total, in seconds (for a processor, its busy and idle time "
                             "together): rate(%s_total) / rate() of this is the fraction of time.",
                             m.name, m.name);
                    pm_family(o, opt->openmetrics, bfam, m.kind, PM_UNIT_SECONDS, help);
                    one_counter(o, blk, &w, &c, bfam, &m, seq, st, 1);
                }
            }
        }
        if (w.top && !o->failed) {
            char num[24];
            num[fmt_u64(num, w.nother)] = '\0';
            pm_family(o, opt->openmetrics, "perflib_process_other_processes", PM_GAUGE, PM_UNIT_NONE,
                      "Processes summed into the series whose process label is _Other: every process but the "
                      "metrics_process_top highest (and pid 0).");
            line(o, "perflib_process_other_processes", strlen("perflib_process_other_processes"), "", NULL, 0, num,
                 strlen(num));
        }
        if (w.top) pm_top_end(st->top);
        view_free(&w);
        if (pick) opt->pick_close(pick);
    }
    ns_free(&fams);
    if (o->b.failed) o->failed = 1;
    return o->failed ? -1 : 0;
}

int pm_render(const pl_block *blk, uint64_t seq, const pm_names *names, const pm_options *opt, pm_state *st,
              char **out, size_t *len)
{
    pm_out o = {0};
    if (pm_render_objects(blk, seq, names, opt, st, &o) != 0) {
        wb_free(&o.b);
        return -1;
    }
    pm_eof(&o, opt->openmetrics);
    if (!o.b.p) wb_put(&o.b, "", 0);
    if (o.b.failed) {
        wb_free(&o.b);
        return -1;
    }
    *out = o.b.p;
    *len = o.b.len;
    return 0;
}
