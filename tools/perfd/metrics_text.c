/* perfd: a performance data block as Prometheus text 0.0.4 or OpenMetrics
 * 1.0 (metrics_text.h, docs/perfd.md "/metrics").
 *
 * Names: perflib_<object>_<counter> in snake case, "%" and "/sec" dropped,
 * unit abbreviations spelled out, then the suffix of the counter type
 * (_total, _seconds_total, _ratio, ...). Labels: the instance under the
 * object's name, `parent`, `pid` for Process and Thread, `index` for other
 * duplicates. Every family is written once, contiguous, HELP and TYPE first;
 * every series once (label sets made unique per object). 32-bit counters are
 * extended to 64 bits across wraps with state kept between scrapes. */
#include "metrics_text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/indices.h"
#include "perflib/pdh.h"
#include "perflib/winperf.h"
#include "pl_buf.h"

/* "_Total", or a group's total such as Processor Information's "0,_Total"
 * (a NUMA node's sum): left out unless metrics_total is on. */
static int is_total(const char *name)
{
    size_t n = strlen(name);
    return strcmp(name, "_Total") == 0 || (n > 7 && strcmp(name + n - 7, ",_Total") == 0);
}

#define FILETIME_UNIX_EPOCH 116444736000000000LL

/* ------------------------------------------------------------ buffers */

/* perflib's one growable buffer (lib/common/pl_buf.h); its first failure
 * is kept in .failed and stops later appends. */
typedef pl__buf sbuf;

static void sb_add(sbuf *b, const char *s, size_t n) { pl__buf_append(b, s, n); }

static void sb_s(sbuf *b, const char *s) { pl__buf_str(b, s); }

#define sb_f pl__buf_printf

/* A label value: \ " and newline escaped; bytes that are not printable
 * (control characters) dropped. UTF-8 passes through. */
static void sb_label(sbuf *b, const char *v)
{
    for (; *v; v++) {
        unsigned char c = (unsigned char)*v;
        if (c == '\\') sb_add(b, "\\\\", 2);
        else if (c == '"') sb_add(b, "\\\"", 2);
        else if (c == '\n') sb_add(b, "\\n", 2);
        else if (c >= 0x20 && c != 0x7F) sb_add(b, v, 1);
    }
}

/* HELP text on one line: \ and newline escaped (and " for OpenMetrics). */
static void sb_help(sbuf *b, const char *v, int om)
{
    for (; *v; v++) {
        unsigned char c = (unsigned char)*v;
        if (c == '\\') sb_add(b, "\\\\", 2);
        else if (c == '\n' || c == '\r') sb_add(b, " ", 1);
        else if (c == '"' && om) sb_add(b, "\\\"", 2);
        else if (c >= 0x20 && c != 0x7F) sb_add(b, v, 1);
        else sb_add(b, " ", 1);
    }
}

static void sb_num(sbuf *b, double v)
{
    if (v == (double)(int64_t)v && v < 9e15 && v > -9e15) {
        /* integers by hand: most samples are, and snprintf is the cost */
        char t[24];
        int64_t x = (int64_t)v;
        uint64_t u = x < 0 ? (uint64_t)(-x) : (uint64_t)x;
        size_t i = sizeof t;
        do {
            t[--i] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (x < 0) t[--i] = '-';
        sb_add(b, t + i, sizeof t - i);
        return;
    }
    char t[40];
    snprintf(t, sizeof t, "%.15g", v); /* the shortest of these that reads back exactly */
    if (strtod(t, NULL) != v) snprintf(t, sizeof t, "%.17g", v);
    sb_s(b, t);
}

/* -------------------------------------------------------------- types */

pm_kind pm_kind_of(uint32_t type)
{
    switch (type) {
    case PERF_COUNTER_RAWCOUNT:
    case PERF_COUNTER_LARGE_RAWCOUNT:
    case PERF_COUNTER_RAWCOUNT_HEX:
    case PERF_COUNTER_LARGE_RAWCOUNT_HEX:
    case PERF_COUNTER_DELTA:
    case PERF_COUNTER_LARGE_DELTA: return PM_GAUGE;
    case PERF_RAW_FRACTION:
    case PERF_LARGE_RAW_FRACTION: return PM_GAUGE_RATIO;
    case PERF_COUNTER_COUNTER:
    case PERF_COUNTER_BULK_COUNT:
    case PERF_SAMPLE_COUNTER: return PM_COUNTER;
    case PERF_COUNTER_TIMER:
    case PERF_100NSEC_TIMER:
    case PERF_OBJ_TIME_TIMER:
    case PERF_COUNTER_MULTI_TIMER:
    case PERF_100NSEC_MULTI_TIMER: return PM_COUNTER_SECONDS;
    case PERF_COUNTER_TIMER_INV:
    case PERF_100NSEC_TIMER_INV:
    case PERF_COUNTER_MULTI_TIMER_INV:
    case PERF_100NSEC_MULTI_TIMER_INV: return PM_COUNTER_INVERSE;
    case PERF_COUNTER_QUEUELEN_TYPE:
    case PERF_COUNTER_LARGE_QUEUELEN_TYPE:
    case PERF_COUNTER_100NS_QUEUELEN_TYPE:
    case PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE: return PM_COUNTER_QUEUE;
    case PERF_PRECISION_SYSTEM_TIMER:
    case PERF_PRECISION_100NS_TIMER:
    case PERF_PRECISION_OBJECT_TIMER: return PM_PRECISION;
    case PERF_AVERAGE_TIMER: return PM_SUMMARY_SECONDS;
    case PERF_AVERAGE_BULK: return PM_SUMMARY;
    case PERF_SAMPLE_FRACTION: return PM_SUMMARY_RATIO;
    case PERF_ELAPSED_TIME: return PM_ELAPSED;
    case PERF_COUNTER_TEXT:
    case PERF_COUNTER_TEXT | PERF_TEXT_ASCII: return PM_TEXT;
    default: return PM_SKIP; /* bases, PERF_COUNTER_NODATA, PERF_COUNTER_HISTOGRAM_TYPE, unknown */
    }
}

/* The frequency a timer's value is counted in: PDH's time base
 * (pl_pdh_time_base), 0 when the block has none. */
static double freq_of(const pl_block *b, const pl_object *o, uint32_t type)
{
    int64_t f;
    pl_pdh_time_base(b, o, type, NULL, &f);
    return f > 0 ? (double)f : 0;
}

/* -------------------------------------------------------------- names */

static const char *const abbrev[][2] = {
    {"s", "seconds"},   {"sec", "seconds"},  {"secs", "seconds"},  {"ms", "milliseconds"}, {"msec", "milliseconds"},
    {"us", "microseconds"}, {"ns", "nanoseconds"}, {"b", "bytes"}, {"kb", "kilobytes"}, {"mb", "megabytes"},
    {"gb", "gigabytes"}, {"tb", "terabytes"}, {"pb", "petabytes"}, {"m", "minutes"}, {"h", "hours"}, {"d", "days"},
    {"counter", "events"}, {"gauge", "level"}, {"histogram", "distribution"}, {"summary", "digest"},
    {"untyped", "plain"},
    /* units that are not base units where they are only part of a name
     * ("Load Average 15 Minutes"): singular, which the lint accepts */
    {"minutes", "minute"}, {"hours", "hour"}, {"days", "day"}, {"weeks", "week"},
    {"milliseconds", "millisecond"}, {"microseconds", "microsecond"}, {"nanoseconds", "nanosecond"},
};

/* Sizes in multiples of a byte become bytes: the value is multiplied. */
static const struct { const char *word; double mul; } size_units[] = {
    {"kilobytes", 1024.0}, {"megabytes", 1048576.0}, {"gigabytes", 1073741824.0}, {"terabytes", 1099511627776.0},
};

/* snake_case of a title: "%" and "/sec" dropped, anything not [a-z0-9]
 * becomes one "_", abbreviated units spelled out (promtool's lint). */
static void snake(const char *in, char *out, size_t cap)
{
    char tmp[512];
    size_t w = 0;
    for (size_t i = 0; in[i] && w + 2 < sizeof tmp; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c == '/' && strncasecmp(in + i, "/sec", 4) == 0 && !((in[i + 4] | 0x20) >= 'a' && (in[i + 4] | 0x20) <= 'z')) {
            i += 3;
            continue;
        }
        if (c >= 'A' && c <= 'Z') c = (unsigned char)(c + 32);
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) tmp[w++] = (char)c;
        else if (w && tmp[w - 1] != '_') tmp[w++] = '_';
    }
    while (w && tmp[w - 1] == '_') w--;
    tmp[w] = '\0';
    /* words */
    size_t o = 0;
    out[0] = '\0';
    char *save = NULL;
    for (char *wd = strtok_r(tmp, "_", &save); wd; wd = strtok_r(NULL, "_", &save)) {
        const char *rep = wd;
        for (size_t k = 0; k < sizeof abbrev / sizeof abbrev[0]; k++)
            if (strcmp(wd, abbrev[k][0]) == 0) {
                rep = abbrev[k][1];
                /* an abbreviation that spells a multiple unit: singular too */
                for (size_t u = 0; u < sizeof abbrev / sizeof abbrev[0]; u++)
                    if (u != k && strcmp(rep, abbrev[u][0]) == 0)
                        rep = abbrev[u][1];
                break;
            }
        int n = snprintf(out + o, cap - o, "%s%s", o ? "_" : "", rep);
        if (n < 0 || (size_t)n >= cap - o) break;
        o += (size_t)n;
    }
    if (!out[0]) snprintf(out, cap, "unnamed");
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static void cut_suffix(char *s, const char *suf)
{
    if (ends_with(s, suf) && strlen(s) > strlen(suf)) s[strlen(s) - strlen(suf)] = '\0';
}

/* The family name (without the sample suffixes _total/_sum/_count). */
static void family_name(const char *obj, const char *ctr, uint32_t ctr_index, pm_kind k, char *out, size_t cap,
                        double *mul)
{
    char c[300];
    *mul = 1;
    if (ctr) snake(ctr, c, sizeof c);
    else snprintf(c, sizeof c, "counter_%u", (unsigned)ctr_index);
    for (size_t u = 0; u < sizeof size_units / sizeof size_units[0]; u++) {
        char *p = strstr(c, size_units[u].word);
        if (!p) continue;
        size_t wl = strlen(size_units[u].word);
        memmove(p + 5, p + wl, strlen(p + wl) + 1);
        memcpy(p, "bytes", 5);
        *mul = size_units[u].mul;
        break;
    }
    /* reserved or misleading endings */
    cut_suffix(c, "_total");
    if (ends_with(c, "_count") || ends_with(c, "_sum") || ends_with(c, "_bucket") || ends_with(c, "_info") ||
        ends_with(c, "_created"))
        snprintf(c + strlen(c), sizeof c - strlen(c), "_value");
    const char *unit = "";
    int bytes = strstr(c, "bytes") != NULL;
    switch (k) {
    case PM_GAUGE:
        if (bytes && !ends_with(c, "_bytes") && strcmp(c, "bytes") != 0) unit = "_bytes";
        break;
    case PM_GAUGE_RATIO: unit = "_ratio"; break;
    case PM_COUNTER:
        if (bytes) {
            char *p = strstr(c, "bytes");
            size_t l = strlen("bytes");
            if (p != c && p[-1] == '_') { p--; l++; }
            else if (p[l] == '_') l++;
            memmove(p, p + l, strlen(p + l) + 1);
            if (!c[0]) snprintf(c, sizeof c, "transferred");
            unit = "_bytes";
        }
        break;
    case PM_COUNTER_SECONDS:
    case PM_PRECISION: unit = "_seconds"; break;
    case PM_COUNTER_INVERSE: unit = "_inverse_seconds"; break;
    case PM_COUNTER_QUEUE: unit = "_queue"; break;
    case PM_SUMMARY_SECONDS: unit = "_seconds"; break;
    case PM_SUMMARY:
        if (bytes) unit = "_bytes";
        break;
    case PM_SUMMARY_RATIO: unit = "_ratio"; break;
    case PM_ELAPSED: unit = "_start_time_seconds"; break;
    case PM_TEXT: break;
    case PM_SKIP: break;
    }
    if (*unit && ends_with(c, unit)) unit = "";
    snprintf(out, cap, "perflib_%s_%s%s", obj, c, unit);
}

/* ---------------------------------------------------------- wrap state */

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
};

pm_state *pm_state_new(void) { return calloc(1, sizeof(pm_state)); }

void pm_state_free(pm_state *st)
{
    if (!st) return;
    for (size_t i = 0; i < st->cap; i++) free(st->v[i].key);
    free(st->v);
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
    } else if (e->seq != seq) {
        if (raw < e->last) e->high += (uint64_t)1 << 32;
        e->last = raw;
        e->seq = seq;
    }
    e->gen = st->gen;
    return e->high + e->last;
}

/* ----------------------------------------------------------- instances */

typedef struct inst_labels {
    char *labels;             /* `object="name",parent="p",pid="1"` (escaped) */
    int skip;                 /* _Total left out */
    uint64_t unavail;         /* the instance's Unavailable Counters bits (0: none) */
} inst_labels;

/* The Unavailable Counters marker of an instance (docs/block-format.md):
 * read once per instance instead of once per sample. */
static uint64_t unavail_bits(const pl_object *o, const pl_instance *in)
{
    pl_counter m;
    uint64_t v = 0;
    int rc = o->hdr.NumCounters ? pl_object_counter(o, 0, &m) : PL_E_NOT_FOUND;
    for (; rc == PL_OK; rc = pl_counter_next(&m, &m))
        if (m.def.CounterNameTitleIndex == PL_CTR_UNAVAILABLE_COUNTERS &&
            m.def.CounterType == PERF_COUNTER_LARGE_RAWCOUNT_HEX && m.def.CounterSize == 8)
            break;
    if (rc != PL_OK || pl_counter_value(&m, in, &v) != PL_OK) return 0;
    return v;
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

static int find_pid(const pl_object *o, const pl_instance *in, uint64_t *pid)
{
    pl_counter c;
    if (pl_object_find_counter(o, PL_CTR_ID_PROCESS, &c) != PL_OK) return 0;
    if (!pl_counter_available(&c, in)) return 0;
    return pl_counter_value(&c, in, pid) == PL_OK;
}

/* qsort_r: positions into the instances' labels (ctx), by labels then
 * position. */
static int cmp_pos(const void *a, const void *b, void *ctx)
{
    const inst_labels *v = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = strcmp(v[x].labels, v[y].labels);
    if (c) return c;
    return (x > y) - (x < y);
}

/* Labels of every instance of o, each set unique: a set seen before gets
 * index="k" (k = 1, 2, ... among equal sets). */
static int object_labels(const pl_object *o, const char *label, int pidlabel, int include_total, inst_labels **out,
                         uint32_t *nout)
{
    uint32_t n = pl_object_num_instances(o);
    *out = NULL;
    *nout = 0;
    if (n == 0) return 0;
    inst_labels *v = calloc(n, sizeof *v);
    if (!v) return -1;
    pl_instance in;
    uint32_t k = 0;
    for (int rc = pl_object_instance(o, 0, &in); rc == PL_OK && k < n; rc = pl_instance_next(&in, &in), k++) {
        char name[1024], pname[1024];
        if (pl_instance_name(&in, name, sizeof name) == PL_E_MORE_DATA) { /* cut: still a label */ }
        sbuf b = {0};
        sb_f(&b, "%s=\"", label);
        sb_label(&b, name);
        sb_s(&b, "\"");
        pl_object po;
        pl_instance pi;
        if (pl_instance_parent(&in, &po, &pi) == PL_OK) {
            pl_instance_name(&pi, pname, sizeof pname);
            sb_s(&b, ",parent=\"");
            sb_label(&b, pname);
            sb_s(&b, "\"");
        }
        uint64_t pid;
        if (pidlabel && find_pid(o, &in, &pid)) sb_f(&b, ",pid=\"%" PRIu64 "\"", pid);
        if (b.failed) {
            pl__buf_free(&b);
            for (uint32_t i = 0; i < k; i++) free(v[i].labels);
            free(v);
            return -1;
        }
        v[k].labels = b.p;
        v[k].skip = !include_total && is_total(name);
        v[k].unavail = unavail_bits(o, &in);
    }
    n = k;
    /* duplicates: order positions by (labels, position); in each run of
     * equal label sets the 2nd, 3rd... get index="1", "2"... (base label
     * sets never hold `index`, so the results are unique) */
    uint32_t *ord = malloc((n ? n : 1) * sizeof *ord);
    if (!ord) {
        for (uint32_t i = 0; i < n; i++) free(v[i].labels);
        free(v);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) ord[i] = i;
    qsort_r(ord, n, sizeof *ord, cmp_pos, v);
    uint32_t run = 0, first = 0; /* the first of a run keeps its labels */
    for (uint32_t i = 1; i < n; i++) {
        if (strcmp(v[ord[i]].labels, v[ord[first]].labels) != 0) {
            first = i;
            run = 0;
            continue;
        }
        run++;
        size_t l = strlen(v[ord[i]].labels) + 24;
        char *nl = malloc(l);
        if (!nl) { /* cannot make it unique: leave the instance out */
            v[ord[i]].skip = 1;
            continue;
        }
        snprintf(nl, l, "%s,index=\"%u\"", v[ord[i]].labels, (unsigned)run);
        free(v[ord[i]].labels);
        v[ord[i]].labels = nl;
    }
    free(ord);
    *out = v;
    *nout = n;
    return 0;
}

/* ------------------------------------------------------------- render */

static int wanted(const pm_options *opt, uint32_t idx)
{
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

static void header(sbuf *b, const pm_options *opt, const char *fam, pm_kind k, const char *help, const char *note)
{
    int om = opt->openmetrics;
    int counter = strcmp(prom_type(k), "counter") == 0;
    const char *sfx = counter && !om ? "_total" : k == PM_TEXT && !om ? "_info" : "";
    sb_f(b, "# HELP %s%s ", fam, sfx);
    if (help && *help) sb_help(b, help, om);
    else sb_s(b, "(no explain text)");
    if (note) {
        sb_s(b, " ");
        sb_help(b, note, om);
    }
    sb_f(b, "\n# TYPE %s%s %s\n", fam, sfx, k == PM_TEXT && om ? "info" : prom_type(k));
}

static void sample(sbuf *b, const char *fam, const char *sfx, const char *labels, double v)
{
    sb_s(b, fam);
    sb_s(b, sfx);
    if (labels && *labels) {
        sb_s(b, "{");
        sb_s(b, labels);
        sb_s(b, "}");
    }
    sb_s(b, " ");
    sb_num(b, v);
    sb_s(b, "\n");
}

/* A counter's value as the exposition needs it: 32-bit counters of
 * cumulative kinds extended across wraps. part distinguishes value/base. */
static uint64_t cum_value(pm_state *st, uint64_t seq, const pl_counter *c, uint32_t size, uint64_t raw, int part,
                          const char *labels)
{
    if (size != 4) return raw;
    char key[1200];
    snprintf(key, sizeof key, "%u/%u/%d/%.1100s", (unsigned)c->obj->hdr.ObjectNameTitleIndex,
             (unsigned)c->def.CounterNameTitleIndex, part, labels ? labels : "");
    return extend32(st, key, (uint32_t)raw, seq);
}

static void one_counter(sbuf *b, const pl_block *blk, const pl_object *o, const pl_counter *c, const char *fam,
                        pm_kind k, const inst_labels *il, uint32_t nil, uint64_t seq, pm_state *st, double mul)
{
    uint32_t type = c->def.CounterType;
    double f = freq_of(blk, o, type);
    int instanced = o->hdr.NumInstances != PERF_NO_INSTANCES && o->hdr.NumInstances > 0;
    pl_instance in;
    int rc = instanced ? pl_object_instance(o, 0, &in) : pl_object_instance(o, -1, &in);
    for (uint32_t i = 0; rc == PL_OK; i++, rc = instanced ? pl_instance_next(&in, &in) : PL_E_NOT_FOUND) {
        const char *labels = instanced ? (i < nil ? il[i].labels : NULL) : "";
        if (instanced && (i >= nil || il[i].skip)) continue;
        /* unreadable: no number rather than a wrong one */
        if (instanced ? !available(c, il[i].unavail) : !pl_counter_available(c, &in)) continue;
        if (k == PM_TEXT) {
            char text[1024];
            if (pl_counter_text(c, &in, text, sizeof text) != PL_OK) continue;
            sbuf l = {0};
            if (labels && *labels) {
                sb_s(&l, labels);
                sb_s(&l, ",");
            }
            sb_s(&l, "value=\"");
            sb_label(&l, text);
            sb_s(&l, "\"");
            if (!l.failed) sample(b, fam, "_info", l.p, 1);
            pl__buf_free(&l);
            continue;
        }
        uint64_t v = 0, base = 0;
        if (pl_counter_value(c, &in, &v) != PL_OK) continue;
        uint32_t size = c->def.CounterSize;
        int has_base = c->has_base && pl_counter_base(c, &in, &base) == PL_OK;
        switch (k) {
        case PM_GAUGE: sample(b, fam, "", labels, (double)v * mul); break;
        case PM_GAUGE_RATIO:
            if (has_base && base) sample(b, fam, "", labels, (double)v / (double)base);
            break;
        case PM_COUNTER:
            sample(b, fam, "_total", labels, (double)cum_value(st, seq, c, size, v, 0, labels) * mul);
            break;
        case PM_COUNTER_SECONDS:
        case PM_COUNTER_INVERSE:
            if (f > 0) sample(b, fam, "_total", labels, (double)cum_value(st, seq, c, size, v, 0, labels) / f);
            break;
        case PM_COUNTER_QUEUE:
            if (f > 0) sample(b, fam, "_total", labels, (double)cum_value(st, seq, c, size, v, 0, labels) / f);
            break;
        case PM_PRECISION:
            if (f > 0) sample(b, fam, "_total", labels, (double)cum_value(st, seq, c, size, v, 0, labels) / f);
            break;
        case PM_SUMMARY_SECONDS:
            if (has_base && f > 0) {
                sample(b, fam, "_sum", labels, (double)cum_value(st, seq, c, size, v, 0, labels) / f);
                sample(b, fam, "_count", labels, (double)cum_value(st, seq, c, c->base.CounterSize, base, 1, labels));
            }
            break;
        case PM_SUMMARY:
        case PM_SUMMARY_RATIO:
            if (has_base) {
                sample(b, fam, "_sum", labels, (double)cum_value(st, seq, c, size, v, 0, labels));
                sample(b, fam, "_count", labels, (double)cum_value(st, seq, c, c->base.CounterSize, base, 1, labels));
            }
            break;
        case PM_ELAPSED: {
            int64_t ot, of; /* an object-timer type: the object's clock */
            pl_pdh_time_base(blk, o, c->def.CounterType, &ot, &of);
            if (of == 10000000 && (int64_t)v > FILETIME_UNIX_EPOCH && (int64_t)v <= ot)
                sample(b, fam, "", labels, (double)((int64_t)v - FILETIME_UNIX_EPOCH) / 1e7);
            break;
        }
        default: break;
        }
    }
}

/* The base of a precision timer: its own family "<name>_base_seconds". */
static void precision_base(sbuf *b, const pl_block *blk, const pl_object *o, const pl_counter *c, const char *fam,
                           const inst_labels *il, uint32_t nil, uint64_t seq, pm_state *st)
{
    double f = freq_of(blk, o, c->def.CounterType);
    int instanced = o->hdr.NumInstances != PERF_NO_INSTANCES && o->hdr.NumInstances > 0;
    pl_instance in;
    int rc = instanced ? pl_object_instance(o, 0, &in) : pl_object_instance(o, -1, &in);
    for (uint32_t i = 0; rc == PL_OK; i++, rc = instanced ? pl_instance_next(&in, &in) : PL_E_NOT_FOUND) {
        const char *labels = instanced ? (i < nil ? il[i].labels : NULL) : "";
        if (instanced && (i >= nil || il[i].skip)) continue;
        if ((instanced ? !available(c, il[i].unavail) : !pl_counter_available(c, &in)) || f <= 0) continue;
        uint64_t base = 0;
        if (!c->has_base || pl_counter_base(c, &in, &base) != PL_OK) continue;
        sample(b, fam, "_total", labels, (double)cum_value(st, seq, c, c->base.CounterSize, base, 1, labels) / f);
    }
}

int pm_render(const pl_block *blk, uint64_t seq, const pm_names *names, const pm_options *opt, pm_state *st,
              char **out, size_t *len)
{
    sbuf b = {0};
    nameset fams = {0};
    int fail = 0;
    if (st) st->gen++;
    pl_object o;
    for (int rc = pl_block_object(blk, 0, &o); rc == PL_OK && !fail; rc = pl_object_next(&o, &o)) {
        uint32_t oidx = o.hdr.ObjectNameTitleIndex;
        if (!wanted(opt, oidx)) continue;
        const char *oname = names->name(names->ctx, oidx);
        char obj[200], numbuf[32];
        if (!oname) {
            snprintf(numbuf, sizeof numbuf, "object_%u", (unsigned)oidx);
            oname = numbuf;
        }
        snake(oname, obj, sizeof obj);
        if (strcmp(obj, "instance") == 0 || strcmp(obj, "job") == 0 || strcmp(obj, "parent") == 0 ||
            strcmp(obj, "pid") == 0 || strcmp(obj, "index") == 0 || strcmp(obj, "value") == 0)
            snprintf(obj + strlen(obj), sizeof obj - strlen(obj), "_name");
        inst_labels *il = NULL;
        uint32_t nil = 0;
        int instanced = o.hdr.NumInstances != PERF_NO_INSTANCES && o.hdr.NumInstances > 0;
        if (instanced &&
            object_labels(&o, obj, oidx == PL_OBJ_PROCESS || oidx == PL_OBJ_THREAD, opt->include_total, &il, &nil) != 0) {
            fail = 1;
            break;
        }
        pl_counter c;
        for (int crc = pl_object_counter(&o, 0, &c); crc == PL_OK && !fail; crc = pl_counter_next(&c, &c)) {
            uint32_t type = c.def.CounterType;
            if (pl_type_is_base(type)) continue;
            if (c.def.CounterNameTitleIndex == PL_CTR_UNAVAILABLE_COUNTERS) continue;
            pm_kind k = pm_kind_of(type);
            if (k == PM_SKIP) continue;
            char fam[600];
            double mul = 1;
            family_name(obj, names->name(names->ctx, c.def.CounterNameTitleIndex), c.def.CounterNameTitleIndex, k, fam,
                        sizeof fam, &mul);
            if (ns_has(&fams, fam)) snprintf(fam + strlen(fam), sizeof fam - strlen(fam), "_%u",
                                             (unsigned)c.def.CounterNameTitleIndex);
            if (ns_has(&fams, fam) || ns_add(&fams, fam) != 0) continue;
            const char *help = names->help(names->ctx, c.def.CounterHelpTitleIndex);
            const char *note = NULL;
            if (k == PM_COUNTER_INVERSE) note = "(Inverse timer: the time the activity did NOT happen; 1 - rate() is the busy fraction.)";
            else if (k == PM_COUNTER_QUEUE) note = "(rate() is the average queue length.)";
            else if (k == PM_PRECISION) note = "(rate() divided by the rate() of the _base_seconds_total family is the fraction.)";
            else if (k == PM_SUMMARY_RATIO) note = "(rate(_sum) / rate(_count) is the fraction.)";
            header(&b, opt, fam, k, help, note);
            one_counter(&b, blk, &o, &c, fam, k, il, nil, seq, st, mul);
            if (k == PM_PRECISION) {
                char bfam[640];
                snprintf(bfam, sizeof bfam, "%.590s", fam);
                cut_suffix(bfam, "_seconds");
                snprintf(bfam + strlen(bfam), sizeof bfam - strlen(bfam), "_base_seconds");
                if (!ns_has(&fams, bfam) && ns_add(&fams, bfam) == 0) {
                    header(&b, opt, bfam, k, "The time base the counter above is measured against.", NULL);
                    precision_base(&b, blk, &o, &c, bfam, il, nil, seq, st);
                }
            }
            if (b.failed) fail = 1;
        }
        for (uint32_t i = 0; i < nil; i++) free(il[i].labels);
        free(il);
    }
    if (opt->openmetrics) sb_s(&b, "# EOF\n");
    ns_free(&fams);
    if (fail || b.failed) {
        pl__buf_free(&b);
        return -1;
    }
    if (!b.p) sb_s(&b, "");
    if (b.failed) return -1;
    *out = b.p;
    *len = b.len;
    return 0;
}
