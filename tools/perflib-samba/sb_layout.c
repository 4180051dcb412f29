/* perflib-samba: a snapshot laid out for Samba 4.17's reader (sb_layout.h).
 *
 * The records, each against the function of source3/registry/reg_perfcount.c
 * that reads it (docs/samba.md has the whole table):
 *
 * names.tdb
 *   "1"             N: Samba walks indices 2, 4, ... 2N (reg_perfcount_get_base_index)
 *   "<i>", "<i+1>"  a name and its help text (_reg_perfcount_multi_sz_from_tdb)
 *   "<i>rel"        "p" for an object, "c[<object>]" for a counter
 *                   (_reg_perfcount_assemble_global); an object is walked
 *                   before its counters, so its index is the lower one
 *   "<i>type"       the counter type, decimal (_reg_perfcount_get_counter_info)
 *   "<o>inst"       the instance count of an object with instances
 *                   (_reg_perfcount_get_numinst)
 *   "<o>i<n>name"   instance n's name (_reg_perfcount_get_instance_info)
 *   "0PerfFreq"     the block's PerfFreq (_reg_perfcount_init_data_block_perf)
 * data.tdb
 *   "0PerfTime", "0PerfTime100nSec"   the block's clocks (same function)
 *   "<i>"           a counter's value as text: strtol() for the 32-bit size
 *                   class, atof() for 64-bit ones (_reg_perfcount_get_counter_info);
 *                   zero is the empty text, since "0" comes back as the
 *                   byte '0' (48)
 *   "<o>i<n>"       instance n's values, packed in counter order, each as
 *                   many bytes as Samba gives the counter (8; a 32-bit
 *                   counter is a C long) (_reg_perfcount_perf_data_block_fixup)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/indices.h"
#include "perflib/registry.h"
#include "perflib/winperf.h"
#include "sb_layout.h"
#include "sb_util.h"

/* ------------------------------------------------------------ records */

void sb_recs_free(sb_recs *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].key);
        free(r->v[i].val);
    }
    free(r->v);
    memset(r, 0, sizeof *r);
}

const sb_rec *sb_recs_find(const sb_recs *r, const char *key)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->v[i].key, key) == 0) return &r->v[i];
    return NULL;
}

static int rec_add(sb_recs *r, const char *key, const void *val, size_t vlen)
{
    if (sb_grow((void **)&r->v, &r->cap, r->n + 1, sizeof *r->v) != 0) return -1;
    char *k = strdup(key);
    uint8_t *v = malloc(vlen ? vlen : 1);
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    if (vlen) memcpy(v, val, vlen);
    r->v[r->n].key = k;
    r->v[r->n].val = v;
    r->v[r->n].vlen = vlen;
    r->n++;
    return 0;
}

/* A record "<index><suffix>" whose value is a string. */
static int rec_str(sb_recs *r, const char *val, uint32_t index, const char *suffix)
{
    char key[64];
    snprintf(key, sizeof key, "%u%s", index, suffix);
    return rec_add(r, key, val, strlen(val));
}

/* The same with a decimal number. */
static int rec_num(sb_recs *r, uint64_t v, uint32_t index, const char *suffix)
{
    char val[24];
    snprintf(val, sizeof val, "%llu", (unsigned long long)v);
    return rec_str(r, val, index, suffix);
}

/* ------------------------------------------------------------- types */

uint32_t sb_served_type(uint32_t type, size_t dword_size, size_t *size)
{
    /* Samba reads the type with atoi() into an int. */
    if (type & 0x80000000u) return 0;
    switch (type & PERF_SIZE_MASK) {
    case PERF_SIZE_LARGE:
        *size = 8;
        return type;
    case PERF_SIZE_DWORD:
        break;
    default:
        return 0; /* zero-size and variable-length (text) counters */
    }
    /* A 32-bit counter is a C long in Samba: 8 bytes on amd64, while the
     * type still says 32 bits. Types with a 64-bit twin that computes the
     * same formula are served as that twin, which every reader takes at
     * 8 bytes (and Samba computes no DefaultScale for). */
    *size = 8;
    switch (type) {
    case PERF_COUNTER_COUNTER: return PERF_COUNTER_BULK_COUNT;
    case PERF_COUNTER_RAWCOUNT: return PERF_COUNTER_LARGE_RAWCOUNT;
    case PERF_COUNTER_RAWCOUNT_HEX: return PERF_COUNTER_LARGE_RAWCOUNT_HEX;
    case PERF_COUNTER_QUEUELEN_TYPE: return PERF_COUNTER_LARGE_QUEUELEN_TYPE;
    case PERF_COUNTER_DELTA: return PERF_COUNTER_LARGE_DELTA;
    case PERF_RAW_FRACTION: return PERF_LARGE_RAW_FRACTION;
    case PERF_RAW_BASE: return PERF_LARGE_RAW_BASE;
    case PERF_AVERAGE_TIMER:
    case PERF_AVERAGE_BASE:
        /* no twin: served in Samba's long, which perflib's reader accepts
         * at 8 bytes for exactly these two ("Wide average timers") */
        *size = dword_size;
        return type;
    default:
        return 0; /* PERF_SAMPLE_*: no 64-bit form */
    }
}

int sb_type_needs_object_time(uint32_t type)
{
    return (type & PERF_TIMER_MASK) == PERF_OBJECT_TIMER && type != PERF_PRECISION_OBJECT_TIMER;
}

/* -------------------------------------------------------------- texts */

size_t sb_ascii_text(const char *utf8, char *out)
{
    size_t n = 0, len = strlen(utf8);
    char tmp[SB_VALUE_MAX + 8];
    int cut = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)utf8[i];
        size_t step = 1;
        char o;
        if (c < 0x80) {
            o = (c == '\t' || c == '\n' || c == '\r') ? ' ' : (c < 0x20 || c == 0x7f) ? '?' : (char)c;
        } else {
            /* one '?' per character: skip its continuation bytes */
            while (i + step < len && ((unsigned char)utf8[i + step] & 0xC0) == 0x80 && step < 4) step++;
            o = '?';
        }
        if (n == SB_VALUE_MAX) {
            cut = 1;
            break;
        }
        tmp[n++] = o;
        i += step;
    }
    if (cut) {
        /* room for "...": cut at the last space of the first 252 bytes when
         * it leaves most of the text, else at 252 */
        size_t keep = SB_VALUE_MAX - 3;
        size_t sp = keep;
        while (sp > 0 && tmp[sp] != ' ') sp--;
        if (sp >= keep / 2) keep = sp;
        while (keep > 0 && tmp[keep - 1] == ' ') keep--;
        memcpy(tmp + keep, "...", 3);
        n = keep + 3;
    }
    memcpy(out, tmp, n);
    out[n] = '\0';
    return n;
}

/* The longest prefix of s[0, len) that is at most max bytes of valid UTF-8
 * (RFC 3629: no cut, broken or overlong sequence, surrogate or code point
 * past U+10FFFF; a NUL ends it, as it ends Samba's copy), and its UTF-16
 * code units in *units (two for a character past U+FFFF). Samba converts an
 * instance name with rpcstr_push_talloc, which fails the whole answer on a
 * cut or broken sequence (_reg_perfcount_get_instance_info); the units are
 * what its NameLength counts. */
static size_t utf8_prefix(const char *s, size_t len, size_t max, size_t *units)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, u = 0;
    if (len > max) len = max;
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000}; /* below: overlong */
    while (i < len && p[i]) {
        unsigned char c = p[i];
        size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (n == 0 || n > len - i) break;
        uint32_t v = n == 1 ? c : c & (0x7Fu >> n);
        size_t k = 1;
        for (; k < n && (p[i + k] & 0xC0) == 0x80; k++) v = (v << 6) | (p[i + k] & 0x3Fu);
        if (k < n || v < least[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) break;
        i += n;
        u += v >= 0x10000 ? 2 : 1;
    }
    if (units) *units = u;
    return i;
}

size_t sb_cut_utf8(const char *utf8, size_t len, char *out)
{
    size_t n = utf8_prefix(utf8, len, SB_VALUE_MAX, NULL);
    memcpy(out, utf8, n);
    out[n] = '\0';
    return n;
}

size_t sb_instance_name(const char *parent, const char *own, char *out)
{
    size_t ol = strlen(own);
    if (!parent) return sb_cut_utf8(own, ol, out);
    /* The parent part is shortened first, at a character, so that the own
     * name survives; when the own name alone leaves no room for a byte of
     * the parent, "parent/own" is cut at the limit instead. */
    size_t pl = strlen(parent), n;
    if (ol + 1 < SB_VALUE_MAX) n = utf8_prefix(parent, pl, SB_VALUE_MAX - 1 - ol, NULL);
    else n = pl < SB_VALUE_MAX ? pl : SB_VALUE_MAX;
    char full[SB_VALUE_MAX + 1];
    memcpy(full, parent, n);
    if (n < SB_VALUE_MAX) full[n++] = '/';
    size_t k = ol < SB_VALUE_MAX - n ? ol : SB_VALUE_MAX - n;
    memcpy(full + n, own, k);
    /* a character cut at the limit, or anything broken, goes */
    return sb_cut_utf8(full, n + k, out);
}

/* --------------------------------------------------- the snapshot's shape */

typedef struct def_info {
    pl_counter c;
    char kind;           /* SB_KIND_COUNTER or SB_KIND_BASE */
    uint32_t ctr, help, occ;
    uint32_t type;       /* served type, 0: not served */
    size_t size;         /* its size in Samba */
    size_t slot;         /* index into the map */
    int marker;          /* perflib's Unavailable Counters definition */
} def_info;

typedef struct obj_info {
    pl_object o;
    uint32_t idx, help;
    int has_inst;        /* NumInstances >= 0 */
    def_info *defs;      /* the served definitions, in block order */
    size_t ndefs;
    size_t slot;
} obj_info;

typedef struct shape {
    obj_info *objs;
    size_t nobjs, cap;
} shape;

static void shape_free(shape *s)
{
    for (size_t i = 0; i < s->nobjs; i++) free(s->objs[i].defs);
    free(s->objs);
    memset(s, 0, sizeof *s);
}

static int err(char *why, size_t cap, const char *msg)
{
    if (why && cap) snprintf(why, cap, "%s", msg);
    return -1;
}

/* The objects and definitions Samba can serve, in block order. */
static int read_shape(const pl_block *blk, size_t dword_size, shape *s, sb_stats *st)
{
    pl_object o;
    int rc = pl_block_object(blk, 0, &o);
    for (; rc == PL_OK; rc = pl_object_next(&o, &o)) {
        int dup = 0;
        for (size_t i = 0; i < s->nobjs && !dup; i++) dup = s->objs[i].idx == o.hdr.ObjectNameTitleIndex;
        size_t nc = o.hdr.NumCounters;
        if (dup || o.hdr.ObjectNameTitleIndex == 0) {
            st->skipped += nc; /* a second copy of an object: the first one is served */
            continue;
        }
        def_info *d = nc ? calloc(nc, sizeof *d) : NULL;
        if (nc && !d) return -1;
        size_t nd = 0;
        pl_counter c, prev;
        memset(&prev, 0, sizeof prev);
        int have_prev = 0, prev_base = 0, prc = pl_object_counter(&o, 0, &c);
        for (; prc == PL_OK && nd < nc; prc = pl_counter_next(&c, &c)) {
            def_info x;
            memset(&x, 0, sizeof x);
            x.c = c;
            /* the base of the counter before it; a base has none of its own
             * (two base types in a row: the second is a counter of its own,
             * else a counter could be served without its base when the
             * pair after it is left out) */
            int is_base = have_prev && prev.has_base && !prev_base;
            x.kind = is_base ? SB_KIND_BASE : SB_KIND_COUNTER;
            x.ctr = c.def.CounterNameTitleIndex;
            x.help = c.def.CounterHelpTitleIndex;
            x.type = sb_served_type(c.def.CounterType, dword_size, &x.size);
            if (x.type && x.size < c.def.CounterSize) x.type = 0; /* would not fit Samba's long */
            x.marker = !is_base && c.def.CounterNameTitleIndex == PL_CTR_UNAVAILABLE_COUNTERS &&
                       c.def.CounterType == PERF_COUNTER_LARGE_RAWCOUNT_HEX && c.def.CounterSize == 8;
            d[nd++] = x;
            prev = c;
            prev_base = is_base;
            have_prev = 1;
        }
        /* A counter and its base are served together or not at all. */
        for (size_t i = 0; i + 1 < nd; i++)
            if (d[i + 1].kind == SB_KIND_BASE && (!d[i].type || !d[i + 1].type)) d[i].type = d[i + 1].type = 0;
        size_t keep = 0;
        for (size_t i = 0; i < nd; i++) {
            if (!d[i].type) {
                st->skipped++;
                continue;
            }
            for (size_t j = 0; j < keep; j++)
                if (d[j].kind == d[i].kind && d[j].ctr == d[i].ctr) d[i].occ++;
            d[keep++] = d[i];
        }
        if (keep == 0) {
            /* Samba reads the last counter of an object with instances
             * without checking there is one: never serve an empty object */
            free(d);
            continue;
        }
        if (sb_grow((void **)&s->objs, &s->cap, s->nobjs + 1, sizeof *s->objs) != 0) {
            free(d);
            return -1;
        }
        obj_info *oi = &s->objs[s->nobjs++];
        memset(oi, 0, sizeof *oi);
        oi->o = o;
        oi->idx = o.hdr.ObjectNameTitleIndex;
        oi->help = o.hdr.ObjectHelpTitleIndex;
        oi->has_inst = (int32_t)o.hdr.NumInstances >= 0;
        oi->defs = d;
        oi->ndefs = keep;
    }
    return 0;
}

/* --------------------------------------------------------------- numbering */

static uint32_t map_top(const sb_map *m)
{
    uint32_t top = 0;
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].index > top) top = m->v[i].index;
    return top;
}

/* Find (or with add, append at the top) the slot for an identity. sorted
 * holds the map's slots ordered by identity (indices into m->v); it is
 * only searched, so slots added in this call are found by a linear look at
 * the tail (from `added`). */
static int slot_for(sb_map *m, const size_t *sorted, size_t nsorted, size_t added, const sb_slot *key, int add,
                    uint32_t *top, size_t *out)
{
    size_t lo = 0, hi = nsorted;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = sb_slot_cmp_identity(&m->v[sorted[mid]], key);
        if (c == 0) {
            *out = sorted[mid];
            return 1;
        }
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = added; i < m->n; i++)
        if (sb_slot_cmp_identity(&m->v[i], key) == 0) {
            *out = i;
            return 1;
        }
    if (!add) return 0;
    if (*top > SB_INDEX_MAX - 2) return -1;
    if (sb_grow((void **)&m->v, &m->cap, m->n + 1, sizeof *m->v) != 0) return -1;
    sb_slot s = *key;
    *top = *top ? *top + 2 : 2;
    s.index = *top;
    m->v[m->n] = s;
    *out = m->n++;
    return 1;
}

static size_t *sort_map(const sb_map *m)
{
    size_t *ix = malloc((m->n ? m->n : 1) * sizeof *ix);
    if (!ix) return NULL;
    for (size_t i = 0; i < m->n; i++) ix[i] = i;
    /* insertion into an ordered array would be quadratic: sort a copy */
    sb_slot *tmp = malloc((m->n ? m->n : 1) * sizeof *tmp);
    if (!tmp) {
        free(ix);
        return NULL;
    }
    for (size_t i = 0; i < m->n; i++) {
        tmp[i] = m->v[i];
        tmp[i].index = (uint32_t)i; /* carry the position in the index field */
    }
    qsort(tmp, m->n, sizeof *tmp, sb_slot_cmp_identity);
    for (size_t i = 0; i < m->n; i++) ix[i] = tmp[i].index;
    free(tmp);
    return ix;
}

/* Give every object and definition of the shape a slot, reusing the map.
 * Returns 0, 1 when the map cannot serve this shape in Samba's order (the
 * caller starts afresh), -1 on no memory or exhausted indices. */
static int assign(sb_map *m, shape *s)
{
    size_t *sorted = sort_map(m);
    if (!sorted) return -1;
    size_t nsorted = m->n, added = m->n;
    uint32_t top = map_top(m);
    int rc = 0;
    for (size_t i = 0; i < s->nobjs && rc == 0; i++) {
        obj_info *oi = &s->objs[i];
        sb_slot k = {.kind = SB_KIND_OBJECT, .obj = oi->idx, .help = oi->help};
        if (slot_for(m, sorted, nsorted, added, &k, 1, &top, &oi->slot) < 0) rc = -1;
        else m->v[oi->slot].help = oi->help;
        for (size_t j = 0; j < oi->ndefs && rc == 0; j++) {
            def_info *d = &oi->defs[j];
            sb_slot kd = {.kind = d->kind, .obj = oi->idx, .ctr = d->ctr, .occ = d->occ, .help = d->help};
            if (slot_for(m, sorted, nsorted, added, &kd, 1, &top, &d->slot) < 0) rc = -1;
            else m->v[d->slot].help = d->help;
        }
    }
    free(sorted);
    if (rc) return rc;
    /* Samba's order is index order: the object first, then its counters in
     * the block's order (a base right after its counter). */
    for (size_t i = 0; i < s->nobjs; i++) {
        const obj_info *oi = &s->objs[i];
        uint32_t last = m->v[oi->slot].index;
        for (size_t j = 0; j < oi->ndefs; j++) {
            uint32_t x = m->v[oi->defs[j].slot].index;
            if (x <= last) return 1;
            last = x;
        }
    }
    return 0;
}

static int number_shape(sb_map *m, shape *s, sb_stats *st)
{
    size_t need = 0;
    for (size_t i = 0; i < s->nobjs; i++) need += 1 + s->objs[i].ndefs;
    int rc = 1;
    /* Keep the map unless it has grown to more than twice what is served
     * (slots of objects that went away keep their names, up to a point),
     * or its numbers are sparse: Samba walks every index up to the highest
     * for each answer, so a map read back with a few huge indices would
     * make every request slow. */
    if (m->n <= 2 * need + 256 && map_top(m) / 2 <= 4 * (uint64_t)m->n + 1024) rc = assign(m, s);
    if (rc != 0) {
        sb_map_free(m);
        st->renumbered = 1;
        rc = assign(m, s);
    }
    return rc == 0 ? 0 : -1;
}

/* ------------------------------------------------------------- the records */

static int add_titles(const sb_map *m, const sb_layout_cfg *cfg, sb_recs *names)
{
    char text[SB_VALUE_MAX + 1];
    uint32_t top = map_top(m);
    if (rec_num(names, top / 2, 1, "") != 0) return -1;
    for (size_t i = 0; i < m->n; i++) {
        const sb_slot *x = &m->v[i];
        const char *name = cfg->title ? cfg->title(cfg->title_ctx, PL_TITLE_NAME, x->kind == SB_KIND_OBJECT ? x->obj : x->ctr) : NULL;
        const char *help = cfg->title ? cfg->title(cfg->title_ctx, PL_TITLE_HELP, x->help) : NULL;
        /* An empty text would end the MULTI_SZ list for a client: Samba
         * skips a missing key instead. */
        if (name && sb_ascii_text(name, text) > 0 && rec_str(names, text, x->index, "") != 0) return -1;
        if (help && sb_ascii_text(help, text) > 0 && rec_str(names, text, x->index + 1, "") != 0) return -1;
    }
    size_t len;
    char *t = sb_map_format(m, &len);
    if (!t) return -1;
    int rc = rec_add(names, SB_MAP_KEY, t, len);
    free(t);
    return rc;
}

/* How Samba lays out the values of one counter block: the running length
 * starts at 4 (the ByteLength field) and each value is aligned to its own
 * size (_reg_perfcount_get_counter_info). Returns the end of the last
 * value. */
static size_t samba_values_end(const def_info *d, size_t n, const uint8_t *keep)
{
    size_t bl = 4;
    for (size_t i = 0; i < n; i++) {
        if (keep && !keep[i]) continue;
        size_t pad = (d[i].size - bl % d[i].size) % d[i].size;
        bl += d[i].size + pad;
    }
    return bl;
}

static size_t align8(size_t n) { return (n + 7u) & ~(size_t)7u; }

static void put_le(uint8_t *p, uint64_t v, size_t size)
{
    for (size_t i = 0; i < size; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* A value of an object without instances, as the text Samba parses.
 * Returns 0 (text written), or 1 when Samba cannot carry it. */
static int value_text(const def_info *d, uint64_t v, size_t dword_size, char *out, size_t cap, sb_stats *st)
{
    if ((d->type & PERF_SIZE_MASK) == PERF_SIZE_DWORD) {
        /* strtol() into a long of dword_size bytes */
        uint64_t max = dword_size >= 8 ? (uint64_t)INT64_MAX : (uint64_t)INT32_MAX;
        if (v > max) return 1;
    } else {
        /* atof(), then a double to int64_t conversion */
        double dv = (double)v;
        if (dv >= 9223372036854775808.0) return 1;
        if (v > (1ull << 53) && (uint64_t)dv != v) st->rounded++;
    }
    if (v == 0) out[0] = '\0'; /* "0" would come back as 48 */
    else snprintf(out, cap, "%llu", (unsigned long long)v);
    return 0;
}

static int lay_object_noinst(const obj_info *oi, const sb_map *m, size_t dword_size, sb_recs *names, sb_recs *data,
                             sb_stats *st)
{
    pl_instance in;
    if (pl_object_instance(&oi->o, -1, &in) != PL_OK) return 0; /* no counter block: nothing to serve */
    uint8_t *keep = calloc(oi->ndefs, 1);
    char (*txt)[24] = calloc(oi->ndefs, sizeof *txt);
    if (!keep || !txt) {
        free(keep);
        free(txt);
        return -1;
    }
    size_t served = 0;
    for (size_t j = 0; j < oi->ndefs; j++) {
        const def_info *d = &oi->defs[j];
        uint64_t v = 0;
        /* The marker would say nothing here: what is unavailable is left out
         * of this answer, which every client understands. */
        if (d->marker) continue;
        int ok = pl_counter_value(&d->c, &in, &v) == PL_OK && pl_counter_available(&d->c, &in) &&
                 value_text(d, v, dword_size, txt[j], sizeof txt[j], st) == 0;
        keep[j] = (uint8_t)ok;
    }
    /* a counter and its base together */
    for (size_t j = 0; j + 1 < oi->ndefs; j++)
        if (oi->defs[j + 1].kind == SB_KIND_BASE && keep[j] != keep[j + 1]) keep[j] = keep[j + 1] = 0;
    for (size_t j = 0; j < oi->ndefs; j++) {
        if (!keep[j]) {
            if (!oi->defs[j].marker) st->omitted++;
            continue;
        }
        served++;
    }
    int rc = 0;
    if (served) {
        uint32_t oidx = m->v[oi->slot].index;
        rc = rec_str(names, "p", oidx, "rel");
        char rel[32];
        snprintf(rel, sizeof rel, "c[%u]", oidx);
        for (size_t j = 0; j < oi->ndefs && rc == 0; j++) {
            if (!keep[j]) continue;
            const def_info *d = &oi->defs[j];
            uint32_t cidx = m->v[d->slot].index;
            if (rec_str(names, rel, cidx, "rel") != 0 || rec_num(names, d->type, cidx, "type") != 0 ||
                rec_str(data, txt[j], cidx, "") != 0)
                rc = -1;
        }
        if (rc == 0) {
            st->objects++;
            st->definitions += served;
            st->objects_bytes += 64 + 40 * served + align8(samba_values_end(oi->defs, oi->ndefs, keep));
        }
    }
    free(keep);
    free(txt);
    return rc;
}

/* An instance's name as a client would print it: "parent/name" when the
 * block names a parent (Samba sends no ParentObjectTitleIndex). */
static size_t instance_name(const pl_instance *in, char *out)
{
    char own[1024], par[1024];
    if (pl_instance_name(in, own, sizeof own) == PL_E_INVAL) own[0] = '\0';
    pl_object po;
    pl_instance pi;
    int has_parent = pl_instance_parent(in, &po, &pi) == PL_OK && pl_instance_name(&pi, par, sizeof par) != PL_E_INVAL;
    return sb_instance_name(has_parent ? par : NULL, own, out);
}

static int lay_object_inst(const obj_info *oi, const sb_map *m, sb_recs *names, sb_recs *data, sb_stats *st)
{
    uint32_t oidx = m->v[oi->slot].index;
    uint32_t ninst = pl_object_num_instances(&oi->o), done = 0;
    int rc = rec_str(names, "p", oidx, "rel");
    char rel[32];
    snprintf(rel, sizeof rel, "c[%u]", oidx);
    size_t rec_len = 0;
    for (size_t j = 0; j < oi->ndefs && rc == 0; j++) {
        const def_info *d = &oi->defs[j];
        uint32_t cidx = m->v[d->slot].index;
        /* Samba also wants "<i>" in data.tdb here, although only objects
         * without instances use it: the empty text (zero). */
        if (rec_str(names, rel, cidx, "rel") != 0 || rec_num(names, d->type, cidx, "type") != 0 ||
            rec_str(data, "", cidx, "") != 0)
            rc = -1;
        rec_len += d->size;
    }
    if (rc != 0) return -1;
    size_t block = align8(samba_values_end(oi->defs, oi->ndefs, NULL) + 4);
    uint8_t *rec = malloc(rec_len ? rec_len : 1);
    if (!rec) return -1;
    size_t bytes = 64 + 40 * oi->ndefs;
    pl_instance in;
    int irc = pl_object_instance(&oi->o, 0, &in);
    for (uint32_t n = 0; irc == PL_OK && n < ninst && rc == 0; n++, irc = pl_instance_next(&in, &in), done++) {
        char name[SB_VALUE_MAX + 1], key[48];
        size_t nlen = instance_name(&in, name);
        /* the marker's bits follow the served positions */
        uint64_t mask = 0, v;
        for (size_t j = 0; j < oi->ndefs; j++) {
            const def_info *d = &oi->defs[j];
            if (!d->marker && (!pl_counter_available(&d->c, &in) || pl_counter_value(&d->c, &in, &v) != PL_OK))
                mask |= 1ull << (j < 63 ? j : 63);
        }
        size_t off = 0;
        for (size_t j = 0; j < oi->ndefs; j++) {
            const def_info *d = &oi->defs[j];
            v = 0;
            if (d->marker) v = mask;
            else if (pl_counter_value(&d->c, &in, &v) != PL_OK) v = 0; /* marked above */
            put_le(rec + off, v, d->size);
            off += d->size;
        }
        snprintf(key, sizeof key, "%ui%u", oidx, n);
        if (rec_add(data, key, rec, rec_len) != 0) rc = -1;
        snprintf(key, sizeof key, "%ui%uname", oidx, n);
        if (rc == 0 && rec_add(names, key, name, nlen) != 0) rc = -1;
        size_t units;
        utf8_prefix(name, nlen, nlen, &units);
        bytes += align8(24 + 2 * (units + 1)) + block;
    }
    free(rec);
    /* the count Samba walks: exactly the instances written */
    if (rc == 0) rc = rec_num(names, done, oidx, "inst");
    if (rc == 0) {
        st->objects++;
        st->definitions += oi->ndefs;
        st->instances += done;
        st->objects_bytes += bytes;
    }
    return rc;
}

int sb_layout(const pl_block *blk, const sb_layout_cfg *cfg, sb_map *map, sb_recs *names, sb_recs *data,
              sb_stats *st, char *why, size_t cap)
{
    memset(st, 0, sizeof *st);
    shape s = {0};
    if (read_shape(blk, cfg->dword_size, &s, st) != 0) {
        shape_free(&s);
        return err(why, cap, "no memory for the snapshot's shape");
    }
    /* the definitions were read through a pl_object that has moved since */
    for (size_t i = 0; i < s.nobjs; i++)
        for (size_t j = 0; j < s.objs[i].ndefs; j++) s.objs[i].defs[j].c.obj = &s.objs[i].o;
    if (number_shape(map, &s, st) != 0) {
        shape_free(&s);
        return err(why, cap, "cannot number the snapshot (no memory, or more than 500 million titles)");
    }
    int rc = add_titles(map, cfg, names);
    char stamp[24];
    snprintf(stamp, sizeof stamp, "%llu", (unsigned long long)blk->hdr.PerfTime.QuadPart);
    if (rc == 0) rc = rec_add(names, SB_STAMP_KEY, stamp, strlen(stamp));
    if (rc == 0) rc = rec_add(data, SB_STAMP_KEY, stamp, strlen(stamp));
    if (rc == 0) rc = rec_num(names, (uint64_t)blk->hdr.PerfFreq.QuadPart, 0, "PerfFreq");
    if (rc == 0) rc = rec_num(data, (uint64_t)blk->hdr.PerfTime.QuadPart, 0, "PerfTime");
    if (rc == 0) rc = rec_num(data, (uint64_t)blk->hdr.PerfTime100nSec.QuadPart, 0, "PerfTime100nSec");
    for (size_t i = 0; i < s.nobjs && rc == 0; i++)
        rc = s.objs[i].has_inst ? lay_object_inst(&s.objs[i], map, names, data, st)
                                : lay_object_noinst(&s.objs[i], map, cfg->dword_size, names, data, st);
    shape_free(&s);
    return rc == 0 ? 0 : err(why, cap, "no memory for the records");
}

int sb_layout_withdrawn(const sb_map *map, const sb_layout_cfg *cfg, sb_recs *names, sb_recs *data, char *why,
                        size_t cap)
{
    /* data.tdb holds no value: Samba then sends a header with zero clocks */
    if (add_titles(map, cfg, names) != 0 || rec_add(names, SB_STAMP_KEY, "withdrawn", 9) != 0 ||
        rec_add(data, SB_STAMP_KEY, "withdrawn", 9) != 0)
        return err(why, cap, "no memory for the records");
    return 0;
}
