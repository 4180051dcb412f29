/* A model of Samba 4.17's HKEY_PERFORMANCE_DATA reader, and a checker of
 * its answers (samba_model.h). Written from reading
 * source3/registry/reg_perfcount.c (functions named below); no Samba code
 * is copied. The model keeps Samba's quirks on purpose: a counter value
 * that parses as zero is stored as the bytes of its text, a 32-bit counter
 * takes a C long, TotalByteLength leaves out the header, HeaderLength gets
 * 8 bytes of padding even when aligned, an instance name is cut to 255
 * bytes. Padding that Samba leaves uninitialised is zero here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/indices.h"
#include "perflib/winperf.h"
#include "pl_internal.h"
#include "samba_model.h"

static int failf(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int failf(char *why, size_t cap, const char *fmt, ...)
{
    if (why && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, cap, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* --------------------------------------------------------- a byte buffer */

typedef struct obuf {
    uint8_t *p;
    size_t n, cap;
    int oom;
} obuf;

static void ob_put(obuf *b, const void *src, size_t len)
{
    if (b->oom) return;
    if (b->n + len > b->cap) {
        size_t c = b->cap ? b->cap : 4096;
        while (c < b->n + len) c *= 2;
        uint8_t *q = realloc(b->p, c);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = c;
    }
    if (src) memcpy(b->p + b->n, src, len);
    else memset(b->p + b->n, 0, len);
    b->n += len;
}
static void ob_u32(obuf *b, uint32_t v) { ob_put(b, &v, 4); }
static void ob_u64(obuf *b, uint64_t v) { ob_put(b, &v, 8); }
static void ob_u16(obuf *b, uint16_t v) { ob_put(b, &v, 2); }

/* ------------------------------------------------------------- lookups */

/* A record's value as Samba copies it into its 256-byte buffer: -2 when
 * it is missing, -1 when it would overflow that buffer. */
/* Samba converts these texts with atof() and a cast to an unsigned 64-bit
 * integer; a value outside that range (or NaN) is undefined behaviour in C,
 * and whatever Samba gets then, the model takes 0. */
static uint64_t atof_u64(const char *text)
{
    double d = atof(text);
    return d >= 0 && d < 18446744073709551616.0 ? (uint64_t)d : 0;
}

static int fetch_text(const sb_recs *r, const char *key, char *out)
{
    const sb_rec *x = sb_recs_find(r, key);
    if (!x) return -2;
    if (x->vlen >= 256) return -1;
    memset(out, 0, 256);
    memcpy(out, x->val, x->vlen);
    return 0;
}

/* ----------------------------------------------------------------- Global */

typedef struct mcounter {
    uint32_t index, type, size, offset;
    int32_t scale;
} mcounter;

typedef struct minst {
    uint8_t *name16;       /* UTF-16LE with NUL */
    size_t name_len;
    uint8_t *data;         /* the record */
    size_t data_len;
} minst;

typedef struct mobject {
    uint32_t index;
    int32_t ninst;         /* -1: no instances */
    mcounter *ctr;
    size_t nctr;
    size_t bl;             /* running ByteLength of the object's counter block */
    uint8_t *block;        /* values of an object without instances (bl - 4 bytes) */
    minst *inst;
} mobject;

static void free_objects(mobject *o, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(o[i].ctr);
        free(o[i].block);
        for (int32_t k = 0; o[i].inst && k < o[i].ninst; k++) {
            free(o[i].inst[k].name16);
            free(o[i].inst[k].data);
        }
        free(o[i].inst);
    }
    free(o);
}

/* _reg_perfcount_compute_scale */
static int32_t compute_scale(int64_t v)
{
    int32_t s = 0;
    if (v == 0) return 0;
    while (v > 100) {
        v /= 10;
        s--;
    }
    while (v < 10) {
        v *= 10;
        s++;
    }
    return s;
}

/* _reg_perfcount_add_object and _reg_perfcount_get_instance_info */
static int add_object(mobject *o, uint32_t j, const sb_recs *names, const sb_recs *data, char *why, size_t cap)
{
    char key[64], buf[256];
    memset(o, 0, sizeof *o);
    o->index = j;
    o->bl = 4;
    o->ninst = -1;
    snprintf(key, sizeof key, "%uinst", j);
    int r = fetch_text(names, key, buf);
    if (r == -1) return failf(why, cap, "%s: longer than Samba's 256-byte buffer", key);
    if (r == 0) o->ninst = atoi(buf);
    if (o->ninst <= 0) return 0;
    if (o->ninst > 10000000) return failf(why, cap, "%s: %d instances", key, o->ninst);
    o->inst = calloc((size_t)o->ninst, sizeof *o->inst);
    if (!o->inst) return failf(why, cap, "no memory");
    for (int32_t n = 0; n < o->ninst; n++) {
        snprintf(key, sizeof key, "%ui%d", j, n);
        const sb_rec *x = sb_recs_find(data, key);
        if (!x) return 1; /* "No instance data": the whole answer fails */
        o->inst[n].data = malloc(x->vlen ? x->vlen : 1);
        if (!o->inst[n].data) return failf(why, cap, "no memory");
        memcpy(o->inst[n].data, x->val, x->vlen);
        o->inst[n].data_len = x->vlen;
        snprintf(key, sizeof key, "%ui%dname", j, n);
        x = sb_recs_find(names, key);
        if (!x) continue; /* a nameless instance is allowed */
        size_t l = x->vlen < 255 ? x->vlen : 255;
        char name[256];
        memcpy(name, x->val, l);
        name[l] = '\0';
        size_t units;
        /* rpcstr_push_talloc stops at a NUL and fails on bad UTF-8 */
        if (pl__utf8_to_utf16(name, strlen(name), NULL, 0, &units) == PL_E_ENCODING) return 1;
        o->inst[n].name_len = (units + 1) * 2;
        o->inst[n].name16 = calloc(units + 1, 2);
        if (!o->inst[n].name16) return failf(why, cap, "no memory");
        pl__utf8_to_utf16(name, strlen(name), (uint16_t *)o->inst[n].name16, units, &units);
    }
    return 0;
}

/* _reg_perfcount_get_counter_info: one counter appended to object o */
static int add_counter(mobject *o, uint32_t j, const sb_recs *names, const sb_recs *data, size_t dword_size,
                       char *why, size_t cap)
{
    char key[64], buf[256];
    snprintf(key, sizeof key, "%utype", j);
    int r = fetch_text(names, key, buf);
    if (r == -1) return failf(why, cap, "%s: longer than Samba's 256-byte buffer", key);
    if (r == -2) return 1;
    uint32_t type = (uint32_t)atoi(buf);
    snprintf(key, sizeof key, "%u", j);
    r = fetch_text(data, key, buf);
    if (r == -1) return failf(why, cap, "data %s: longer than Samba's 256-byte buffer", key);
    if (r == -2) return 1;
    size_t dsize;
    uint8_t val[16];
    memset(val, 0, sizeof val);
    int32_t scale = 0;
    size_t pad = 0;
    uint32_t sizeclass = type & 0x300u;
    if (sizeclass == PERF_SIZE_DWORD || sizeclass == PERF_SIZE_LARGE) {
        int64_t v;
        if (sizeclass == PERF_SIZE_DWORD) {
            dsize = dword_size;
            long lv = strtol(buf, NULL, 0);
            v = dword_size == 4 ? (int64_t)(int32_t)lv : (int64_t)lv;
        } else {
            dsize = 8;
            double d = atof(buf);
            if (!(d > -9223372036854775808.0 && d < 9223372036854775808.0))
                return failf(why, cap, "data %s: '%s' does not fit Samba's int64_t", key, buf);
            v = (int64_t)d;
        }
        if ((type & 0xF00u) == PERF_TYPE_NUMBER) scale = compute_scale(v);
        if (v != 0) memcpy(val, &v, dsize);
        else memcpy(val, buf, dsize); /* the text itself: "0" is 48 */
        pad = (dsize - o->bl % dsize) % dsize;
    } else {
        return failf(why, cap, "%s: type 0x%08x: variable-length counters are not modelled", key, type);
    }
    uint8_t *nb = realloc(o->block, o->bl + dsize + pad - 4);
    if (!nb) return failf(why, cap, "no memory");
    o->block = nb;
    memset(o->block + o->bl - 4, 0, dsize + pad);
    o->bl += dsize + pad;
    memcpy(o->block + o->bl - 4 - dsize, val, dsize);
    mcounter *nc = realloc(o->ctr, (o->nctr + 1) * sizeof *nc);
    if (!nc) return failf(why, cap, "no memory");
    o->ctr = nc;
    o->ctr[o->nctr++] = (mcounter){.index = j, .type = type, .size = (uint32_t)dsize,
                                   .offset = (uint32_t)(o->bl - dsize), .scale = scale};
    return 0;
}

int model_global(const sb_recs *names, const sb_recs *data, size_t dword_size, const char *netbios,
                 uint8_t **out, size_t *len, char *why, size_t cap)
{
    *out = NULL;
    *len = 0;
    if (why && cap) why[0] = '\0';
    char buf[256], key[64];
    /* reg_perfcount_get_base_index */
    int r = fetch_text(names, "1", buf);
    if (r == -1) return failf(why, cap, "\"1\": longer than Samba's buffer");
    uint32_t base = r == 0 ? (uint32_t)atoi(buf) : 0;
    if (base > 600000000u) return failf(why, cap, "\"1\" = %u: Samba would walk that far", base);
    mobject *obj = NULL;
    size_t nobj = 0;
    int fatal = 0, failed = 0;
    /* _reg_perfcount_assemble_global */
    for (uint32_t i = 1; i <= base && !fatal && !failed; i++) {
        uint32_t j = i * 2;
        snprintf(key, sizeof key, "%urel", j);
        r = fetch_text(names, key, buf);
        if (r == -2) continue;
        if (r == -1) {
            fatal = failf(why, cap, "%s: longer than Samba's 256-byte buffer", key);
            break;
        }
        if (buf[0] == 'p') {
            mobject *no = realloc(obj, (nobj + 1) * sizeof *no);
            if (!no) {
                fatal = failf(why, cap, "no memory");
                break;
            }
            obj = no;
            int ar = add_object(&obj[nobj++], j, names, data, why, cap);
            if (ar < 0) fatal = 1;
            else if (ar > 0) failed = 1;
        } else if (buf[0] == 'c') {
            char *b = strchr(buf, '['), *e = strchr(buf, ']');
            if (!b || !e) {
                failed = 1;
                break;
            }
            *e = '\0';
            for (char *s = b + 1; s < e && !fatal && !failed;) {
                char *comma = strchr(s, ',');
                if (comma) *comma = '\0';
                uint32_t parent = (uint32_t)atoi(s);
                mobject *o = NULL;
                for (size_t k = 0; k < nobj; k++)
                    if (obj[k].index == parent) o = &obj[k]; /* _reg_perfcount_find_obj: the last match */
                if (!o) failed = 1; /* a counter before its object */
                else {
                    int ar = add_counter(o, j, names, data, dword_size, why, cap);
                    if (ar < 0) fatal = 1;
                    else if (ar > 0) failed = 1;
                }
                s = comma ? comma + 1 : e;
            }
        } else {
            failed = 1; /* "Bogus relationship" */
        }
    }
    if (fatal) {
        free_objects(obj, nobj);
        return -1;
    }
    if (failed) {
        free_objects(obj, nobj);
        return 0; /* Samba answers 0 bytes */
    }
    /* An object with instances and no counter: Samba reads counters[-1]
     * (_reg_perfcount_perf_data_block_fixup). A producer must never ask. */
    for (size_t k = 0; k < nobj; k++)
        if (obj[k].ninst > 0 && obj[k].nctr == 0) {
            free_objects(obj, nobj);
            return failf(why, cap, "object %u has instances and no counter: Samba reads out of bounds",
                         obj[k].index);
        }

    /* _reg_perfcount_init_data_block: the header */
    uint64_t freq = 0, ptime = 0, p100 = 0;
    if (fetch_text(names, "0PerfFreq", buf) == 0) freq = atof_u64(buf);
    if (fetch_text(data, "0PerfTime", buf) == 0) ptime = atof_u64(buf);
    if (fetch_text(data, "0PerfTime100nSec", buf) == 0) p100 = atof_u64(buf);
    size_t units;
    if (pl__utf8_to_utf16(netbios, strlen(netbios), NULL, 0, &units) == PL_E_ENCODING) units = 0;
    uint32_t name_len = (uint32_t)((units + 1) * 2);
    uint32_t hl = 88 + name_len;
    hl += 8 - hl % 8; /* 8 even when aligned */

    /* _reg_perfcount_perf_data_block_fixup: lengths */
    uint32_t total = 0;
    obuf ob = {0};
    ob_put(&ob, NULL, hl); /* the header, written at the end */
    for (size_t k = 0; k < nobj; k++) {
        mobject *o = &obj[k];
        uint32_t deflen = 64 + 40 * (uint32_t)o->nctr;
        size_t start = ob.n;
        ob_u32(&ob, 0); /* TotalByteLength, below */
        ob_u32(&ob, deflen);
        ob_u32(&ob, 64);
        ob_u32(&ob, o->index);
        ob_u32(&ob, 0);
        ob_u32(&ob, o->index + 1);
        ob_u32(&ob, 0);
        ob_u32(&ob, PERF_DETAIL_NOVICE);
        ob_u32(&ob, (uint32_t)o->nctr);
        ob_u32(&ob, 0); /* DefaultCounter */
        ob_u32(&ob, (uint32_t)o->ninst);
        ob_u32(&ob, 0); /* CodePage */
        ob_u64(&ob, 0); /* PerfTime: never sent */
        ob_u64(&ob, 0); /* PerfFreq */
        for (size_t c = 0; c < o->nctr; c++) {
            ob_u32(&ob, 40);
            ob_u32(&ob, o->ctr[c].index);
            ob_u32(&ob, 0);
            ob_u32(&ob, o->ctr[c].index + 1);
            ob_u32(&ob, 0);
            ob_u32(&ob, (uint32_t)o->ctr[c].scale);
            ob_u32(&ob, PERF_DETAIL_NOVICE);
            ob_u32(&ob, o->ctr[c].type);
            ob_u32(&ob, o->ctr[c].size);
            ob_u32(&ob, o->ctr[c].offset);
        }
        if (o->ninst == -1) {
            size_t bl = (o->bl + 7) & ~(size_t)7;
            ob_u32(&ob, (uint32_t)bl);
            ob_put(&ob, o->block, o->bl - 4);
            ob_put(&ob, NULL, bl - o->bl);
        } else {
            size_t need = 0;
            for (size_t c = 0; c < o->nctr; c++) need += o->ctr[c].size;
            for (int32_t n = 0; n < o->ninst; n++) {
                minst *in = &o->inst[n];
                if (in->data_len < need) {
                    free(ob.p);
                    free_objects(obj, nobj);
                    return failf(why, cap, "%ui%d: %zu bytes, Samba copies %zu: it reads past the record",
                                 o->index, n, in->data_len, need);
                }
                uint32_t ibl = 24 + (uint32_t)in->name_len;
                ibl = (ibl + 7) & ~7u;
                ob_u32(&ob, ibl);
                ob_u32(&ob, 0); /* ParentObjectTitleIndex: never sent */
                ob_u32(&ob, 0);
                ob_u32(&ob, (uint32_t)PERF_NO_UNIQUE_ID);
                ob_u32(&ob, 24);
                ob_u32(&ob, (uint32_t)in->name_len);
                ob_put(&ob, in->name16, in->name_len);
                ob_put(&ob, NULL, ibl - 24 - in->name_len);
                const mcounter *last = &o->ctr[o->nctr - 1];
                size_t cbl = last->offset + last->size + 4;
                size_t padded = (cbl + 7) & ~(size_t)7;
                ob_u32(&ob, (uint32_t)padded);
                size_t body = ob.n;
                ob_put(&ob, NULL, padded - 4);
                size_t src = 0;
                for (size_t c = 0; c < o->nctr && !ob.oom; c++) {
                    memcpy(ob.p + body + o->ctr[c].offset - 4, in->data + src, o->ctr[c].size);
                    src += o->ctr[c].size;
                }
            }
        }
        uint32_t tl = (uint32_t)(ob.n - start);
        if (!ob.oom) memcpy(ob.p + start, &tl, 4);
        total += tl;
    }
    free_objects(obj, nobj);
    if (ob.oom) {
        free(ob.p);
        return failf(why, cap, "no memory");
    }
    /* the header (_reg_perfcount_marshall_perf_data_block) */
    obuf h = {0};
    static const uint16_t sig[4] = {'P', 'E', 'R', 'F'};
    ob_put(&h, sig, 8);
    ob_u32(&h, 1);
    ob_u32(&h, 1);
    ob_u32(&h, 1);
    ob_u32(&h, total); /* the objects only */
    ob_u32(&h, hl);
    ob_u32(&h, (uint32_t)nobj);
    ob_u32(&h, (uint32_t)-1); /* DefaultObject */
    for (int k = 0; k < 8; k++) ob_u16(&h, 0); /* SystemTime: the request's, not modelled */
    ob_u32(&h, 0);
    ob_u64(&h, ptime);
    ob_u64(&h, freq);
    ob_u64(&h, p100);
    ob_u32(&h, name_len);
    ob_u32(&h, 88);
    uint16_t *n16 = calloc(units + 1, 2);
    if (n16) pl__utf8_to_utf16(netbios, strlen(netbios), n16, units, &units);
    ob_put(&h, n16, name_len);
    free(n16);
    ob_put(&h, NULL, hl - h.n);
    if (h.oom) {
        free(ob.p);
        free(h.p);
        return failf(why, cap, "no memory");
    }
    memcpy(ob.p, h.p, hl);
    free(h.p);
    *out = ob.p;
    *len = ob.n;
    return 0;
}

/* _reg_perfcount_multi_sz_from_tdb, reg_perfcount_get_counter_names/_help */
int model_titles(const sb_recs *names, int help, uint8_t **out, size_t *len, char *why, size_t cap)
{
    *out = NULL;
    *len = 0;
    char buf[256];
    int r = fetch_text(names, "1", buf);
    uint32_t base = r == 0 ? (uint32_t)atoi(buf) : 0;
    if (r == -1) return failf(why, cap, "\"1\": longer than Samba's buffer");
    if (base == 0) return 0; /* Samba answers nothing */
    obuf ob = {0};
    for (uint32_t i = help ? 1 : 0; i <= base; i++) {
        uint32_t k = i == 0 ? 1 : help ? 2 * i + 1 : 2 * i;
        char key[32];
        snprintf(key, sizeof key, "%u", k);
        const sb_rec *x = sb_recs_find(names, key);
        if (!x) continue;
        if (x->vlen >= 256) {
            free(ob.p);
            return failf(why, cap, "title %s: %zu bytes: Samba's 256-byte buffer overflows", key, x->vlen);
        }
        for (size_t c = 0; c < x->vlen; c++)
            if (x->val[c] == 0 || x->val[c] >= 0x80) {
                free(ob.p);
                return failf(why, cap, "title %s: byte %zu is 0x%02x: Samba sizes the text by its bytes and "
                             "reads past it", key, c, x->val[c]);
            }
        for (const char *s = key; *s; s++) ob_u16(&ob, (uint16_t)*s);
        ob_u16(&ob, 0);
        for (size_t c = 0; c < x->vlen; c++) ob_u16(&ob, x->val[c]);
        ob_u16(&ob, 0);
    }
    ob_u16(&ob, 0);
    if (ob.oom) {
        free(ob.p);
        return failf(why, cap, "no memory");
    }
    *out = ob.p;
    *len = ob.n;
    return 0;
}

int multisz_decode(const uint8_t *b, size_t len, char **names, size_t n)
{
    size_t pos = 0;
    int pairs = 0;
    if (len % 2) return -1;
    for (;;) {
        char *s[2];
        for (int k = 0; k < 2; k++) {
            size_t start = pos;
            while (pos + 1 < len && (b[pos] | b[pos + 1])) pos += 2;
            if (pos + 1 >= len) {
                if (k == 0) free(NULL);
                else free(s[0]);
                return -1;
            }
            if (pos == start) {
                /* the empty string ends the list */
                if (k == 1) free(s[0]);
                return k == 0 ? pairs : -1;
            }
            if (pl__utf16_to_utf8_dup(b + start, (pos - start) / 2, &s[k], 1) != PL_OK) {
                if (k == 1) free(s[0]);
                return -1;
            }
            pos += 2;
        }
        char *end;
        unsigned long idx = strtoul(s[0], &end, 10);
        if (*end || idx >= n) {
            free(s[0]);
            free(s[1]);
            return -1;
        }
        free(names[idx]);
        names[idx] = s[1];
        free(s[0]);
        pairs++;
    }
}

/* ---------------------------------------------------------------- checker */

typedef struct src_def {
    pl_counter c;
    char kind;
    uint32_t ctr, occ, type;
    size_t size;
    int marker;
} src_def;

/* The source object's definitions Samba can carry, as the layout numbers
 * them (sb_layout.c, read_shape): a base is the definition after a
 * counter (not itself a base) with has_base; a counter and its base both or neither; the
 * occurrence counts among those kept. */
static size_t src_defs(const pl_object *o, size_t dword_size, src_def *out, size_t cap)
{
    size_t n = 0;
    pl_counter c, prev;
    memset(&prev, 0, sizeof prev);
    int have = 0;
    for (int rc = pl_object_counter(o, 0, &c); rc == PL_OK && n < cap; rc = pl_counter_next(&c, &c)) {
        src_def d;
        memset(&d, 0, sizeof d);
        d.c = c;
        /* a base has no base of its own: two base types in a row, the
         * second is a counter */
        d.kind = have && prev.has_base && (n == 0 || out[n - 1].kind != SB_KIND_BASE) ? SB_KIND_BASE : SB_KIND_COUNTER;
        d.ctr = c.def.CounterNameTitleIndex;
        d.type = sb_served_type(c.def.CounterType, dword_size, &d.size);
        if (d.type && d.size < c.def.CounterSize) d.type = 0;
        d.marker = d.kind == SB_KIND_COUNTER && d.ctr == PL_CTR_UNAVAILABLE_COUNTERS &&
                   c.def.CounterType == PERF_COUNTER_LARGE_RAWCOUNT_HEX && c.def.CounterSize == 8;
        out[n++] = d;
        prev = c;
        have = 1;
    }
    for (size_t i = 0; i + 1 < n; i++)
        if (out[i + 1].kind == SB_KIND_BASE && (!out[i].type || !out[i + 1].type)) out[i].type = out[i + 1].type = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!out[i].type) continue;
        out[i].occ = 0;
        for (size_t j = 0; j < k; j++)
            if (out[j].kind == out[i].kind && out[j].ctr == out[i].ctr) out[i].occ++;
        out[k++] = out[i];
    }
    return k;
}

/* Can Samba carry value v of d in an object without instances (strtol()
 * into a long, or atof() into an int64_t)? */
static int carried(const src_def *d, uint64_t v, size_t dword_size)
{
    if ((d->type & PERF_SIZE_MASK) == PERF_SIZE_LARGE) return (double)v < 9223372036854775808.0;
    return v <= (dword_size >= 8 ? (uint64_t)INT64_MAX : (uint64_t)INT32_MAX);
}

/* The counter or base that goes with definition i (i itself when none). */
static size_t pair_of(const src_def *sd, size_t n, size_t i)
{
    if (sd[i].kind == SB_KIND_BASE) return i - 1;
    return i + 1 < n && sd[i + 1].kind == SB_KIND_BASE ? i + 1 : i;
}

/* Is definition i served in an object without instances: not the marker,
 * and it and its pair available and carried? */
static int noinst_served(const src_def *sd, size_t n, size_t i, const pl_instance *si, size_t dword_size)
{
    if (sd[i].marker) return 0;
    size_t p = pair_of(sd, n, i);
    size_t two[2] = {i, p};
    for (int k = 0; k < (p == i ? 1 : 2); k++) {
        uint64_t v;
        const src_def *d = &sd[two[k]];
        if (!pl_counter_available(&d->c, si) || pl_counter_value(&d->c, si, &v) != PL_OK) return 0;
        if (!carried(d, v, dword_size)) return 0;
    }
    return 1;
}

static const sb_slot *slot_at(const sb_map *m, uint32_t index)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].index == index) return &m->v[i];
    return NULL;
}

static void full_name(const pl_instance *in, char *out)
{
    char own[1024] = "", par[1024] = "";
    pl_instance_name(in, own, sizeof own);
    pl_object po;
    pl_instance pi;
    int has = pl_instance_parent(in, &po, &pi) == PL_OK;
    if (has) pl_instance_name(&pi, par, sizeof par);
    sb_instance_name(has ? par : NULL, own, out);
}

/* The value a 64-bit counter of an object without instances comes back
 * with: atof() of its decimal text, converted to int64_t. */
static uint64_t through_atof(uint64_t v)
{
    return (uint64_t)(int64_t)(double)v;
}

static int check_object(const pl_object *so, const pl_object *ao, const sb_map *m, size_t dword_size, char *why,
                        size_t cap)
{
    enum { MAXD = 4096 };
    src_def *sd = calloc(MAXD, sizeof *sd);
    if (!sd) return failf(why, cap, "no memory");
    size_t nsd = src_defs(so, dword_size, sd, MAXD);
    int rc = 0;
    int has_inst = (int32_t)so->hdr.NumInstances >= 0;
    uint32_t oidx = so->hdr.ObjectNameTitleIndex;
    /* the served definitions, each matched to its source */
    size_t *match = calloc(ao->hdr.NumCounters + 1, sizeof *match);
    if (!match) {
        free(sd);
        return failf(why, cap, "no memory");
    }
    pl_counter ac;
    size_t na = 0;
    for (int r = pl_object_counter(ao, 0, &ac); r == PL_OK && rc == 0; r = pl_counter_next(&ac, &ac), na++) {
        const sb_slot *s = slot_at(m, ac.def.CounterNameTitleIndex);
        if (!s || s->kind == SB_KIND_OBJECT || s->obj != oidx) {
            rc = failf(why, cap, "object %u: served counter %u is not one of its slots", oidx,
                       ac.def.CounterNameTitleIndex);
            break;
        }
        if (ac.def.CounterHelpTitleIndex != ac.def.CounterNameTitleIndex + 1)
            rc = failf(why, cap, "counter %u: help index %u", ac.def.CounterNameTitleIndex, ac.def.CounterHelpTitleIndex);
        size_t k = nsd;
        for (size_t i = 0; i < nsd; i++)
            if (sd[i].kind == s->kind && sd[i].ctr == s->ctr && sd[i].occ == s->occ) k = i;
        if (k == nsd) {
            rc = failf(why, cap, "object %u: slot %u (%c %u #%u) has no source definition", oidx, s->index, s->kind,
                       s->ctr, s->occ);
            break;
        }
        if (ac.def.CounterType != sd[k].type || ac.def.CounterSize != sd[k].size)
            rc = failf(why, cap, "object %u counter %u: type 0x%08x size %u, expected 0x%08x size %zu", oidx, s->ctr,
                       ac.def.CounterType, ac.def.CounterSize, sd[k].type, sd[k].size);
        match[na] = k;
    }
    if (rc == 0 && has_inst) {
        if (na != nsd) rc = failf(why, cap, "object %u: %zu counters served, %zu expected", oidx, na, nsd);
        uint32_t ns = pl_object_num_instances(so), nserved = pl_object_num_instances(ao);
        if (rc == 0 && ns != nserved) rc = failf(why, cap, "object %u: %u instances served, %u in the snapshot", oidx, nserved, ns);
        pl_instance si, ai;
        int r1 = pl_object_instance(so, 0, &si), r2 = pl_object_instance(ao, 0, &ai);
        for (uint32_t n = 0; rc == 0 && n < ns && r1 == PL_OK && r2 == PL_OK;
             n++, r1 = pl_instance_next(&si, &si), r2 = pl_instance_next(&ai, &ai)) {
            char want[SB_VALUE_MAX + 1], got[1024];
            full_name(&si, want);
            pl_instance_name(&ai, got, sizeof got);
            if (strcmp(want, got) != 0) {
                rc = failf(why, cap, "object %u instance %u: name '%s', expected '%s'", oidx, n, got, want);
                break;
            }
            uint64_t mask = 0;
            for (size_t j = 0; j < na; j++) {
                uint64_t v;
                if (!sd[match[j]].marker &&
                    (!pl_counter_available(&sd[match[j]].c, &si) || pl_counter_value(&sd[match[j]].c, &si, &v) != PL_OK))
                    mask |= 1ull << (j < 63 ? j : 63);
            }
            pl_counter c2;
            size_t j = 0;
            for (int r = pl_object_counter(ao, 0, &c2); r == PL_OK && rc == 0; r = pl_counter_next(&c2, &c2), j++) {
                uint64_t got_v = 0, want_v = 0;
                pl_counter_value(&c2, &ai, &got_v);
                if (sd[match[j]].marker) want_v = mask;
                else if (pl_counter_value(&sd[match[j]].c, &si, &want_v) != PL_OK) want_v = 0;
                if (got_v != want_v)
                    rc = failf(why, cap, "object %u instance '%s' counter %u: %llu served, %llu in the snapshot", oidx,
                               want, sd[match[j]].ctr, (unsigned long long)got_v, (unsigned long long)want_v);
            }
        }
    } else if (rc == 0) {
        /* every available value that Samba can carry is served, equal */
        pl_instance si, ai;
        if (pl_object_instance(so, -1, &si) != PL_OK || pl_object_instance(ao, -1, &ai) != PL_OK) {
            rc = failf(why, cap, "object %u: no counter block", oidx);
        } else {
            uint8_t *served = calloc(nsd + 1, 1);
            pl_counter c2;
            size_t j = 0;
            for (int r = pl_object_counter(ao, 0, &c2); served && r == PL_OK && rc == 0; r = pl_counter_next(&c2, &c2), j++) {
                const src_def *d = &sd[match[j]];
                served[match[j]] = 1;
                uint64_t got_v = 0, want_v = 0;
                pl_counter_value(&c2, &ai, &got_v);
                if (d->marker) rc = failf(why, cap, "object %u: the marker is served without instances", oidx);
                else if (pl_counter_value(&d->c, &si, &want_v) != PL_OK)
                    rc = failf(why, cap, "object %u counter %u: no value, but served", oidx, d->ctr);
                else if ((d->type & PERF_SIZE_MASK) == PERF_SIZE_LARGE ? got_v != through_atof(want_v) : got_v != want_v)
                    rc = failf(why, cap, "object %u counter %u: %llu served, %llu in the snapshot", oidx, d->ctr,
                               (unsigned long long)got_v, (unsigned long long)want_v);
            }
            for (size_t i = 0; served && rc == 0 && i < nsd; i++)
                if (!served[i] && noinst_served(sd, nsd, i, &si, dword_size))
                    rc = failf(why, cap, "object %u counter %u (#%u): available, but not served", oidx, sd[i].ctr,
                               sd[i].occ);
                else if (served[i] && !noinst_served(sd, nsd, i, &si, dword_size))
                    rc = failf(why, cap, "object %u counter %u (#%u): served, but unavailable or not carried", oidx,
                               sd[i].ctr, sd[i].occ);
            free(served);
        }
    }
    free(match);
    free(sd);
    return rc;
}

int check_answer(const pl_block *src, const sb_map *map, size_t dword_size, const uint8_t *answer, size_t len,
                 char *why, size_t cap)
{
    if (why && cap) why[0] = '\0';
    if (len < 88) return failf(why, cap, "answer of %zu bytes", len);
    uint32_t total, hl, nobj;
    memcpy(&total, answer + 20, 4);
    memcpy(&hl, answer + 24, 4);
    memcpy(&nobj, answer + 28, 4);
    if (hl > len || total != len - hl)
        return failf(why, cap, "TotalByteLength %u, HeaderLength %u, %zu bytes: not Samba's known layout", total, hl, len);
    pl_error err;
    pl_block objs;
    if (pl_block_open(&objs, answer + hl, len - hl, PL_BLOCK_BARE, nobj, &err) != PL_OK)
        return failf(why, cap, "the objects fail perflib's reader: %s", err.msg);
    uint8_t *fixed = malloc(len);
    if (!fixed) return failf(why, cap, "no memory");
    memcpy(fixed, answer, len);
    uint32_t t2 = (uint32_t)len;
    memcpy(fixed + 20, &t2, 4);
    pl_block whole;
    int rc = pl_block_open(&whole, fixed, len, 0, 0, &err);
    free(fixed);
    if (rc != PL_OK) return failf(why, cap, "the block (TotalByteLength counting the header) fails: %s", err.msg);
    /* every served object matched to the snapshot's first copy of it */
    pl_object ao;
    uint32_t served = 0;
    for (int r = pl_block_object(&objs, 0, &ao); r == PL_OK; r = pl_object_next(&ao, &ao), served++) {
        const sb_slot *s = slot_at(map, ao.hdr.ObjectNameTitleIndex);
        if (!s || s->kind != SB_KIND_OBJECT) return failf(why, cap, "served object %u is not an object slot", ao.hdr.ObjectNameTitleIndex);
        if (ao.hdr.ObjectHelpTitleIndex != ao.hdr.ObjectNameTitleIndex + 1) return failf(why, cap, "object help index");
        pl_object so;
        if (pl_block_find_object(src, s->obj, &so) != PL_OK)
            return failf(why, cap, "served object %u (perflib %u) is not in the snapshot", s->index, s->obj);
        if (check_object(&so, &ao, map, dword_size, why, cap) != 0) return -1;
    }
    /* and nothing the snapshot has is missing, unless Samba cannot carry it */
    pl_object so;
    uint32_t expected = 0;
    uint32_t seen[4096];
    size_t nseen = 0;
    src_def *sd = calloc(4096, sizeof *sd);
    if (!sd) return failf(why, cap, "no memory");
    for (int r = pl_block_object(src, 0, &so); r == PL_OK; r = pl_object_next(&so, &so)) {
        int dup = so.hdr.ObjectNameTitleIndex == 0;
        for (size_t i = 0; i < nseen && !dup; i++) dup = seen[i] == so.hdr.ObjectNameTitleIndex;
        if (dup) continue;
        if (nseen < 4096) seen[nseen++] = so.hdr.ObjectNameTitleIndex;
        size_t n = src_defs(&so, dword_size, sd, 4096);
        if (n == 0) continue;
        if ((int32_t)so.hdr.NumInstances >= 0) {
            expected++;
            continue;
        }
        /* without instances: served when at least one value is */
        pl_instance si;
        if (pl_object_instance(&so, -1, &si) != PL_OK) continue;
        int any = 0;
        for (size_t i = 0; i < n && !any; i++) any = noinst_served(sd, n, i, &si, dword_size);
        expected += (uint32_t)any;
    }
    free(sd);
    if (served != expected) return failf(why, cap, "%u objects served, %u expected", served, expected);
    return 0;
}

int model_block(pl_builder *b, uint8_t **buf, size_t *len, pl_block *blk, char *why, size_t cap)
{
    size_t olen = pl_builder_size(b), used = 0, oused = 0, hcap = 512;
    uint32_t n = pl_builder_num_objects(b);
    pl_block_header h = {.perf_time = 123456789, .perf_freq = 10000000, .perf_time_100ns = 134403620784847216LL,
                         .default_object = 238, .system_name = "TESTHOST"};
    pl_error err;
    *buf = calloc(1, hcap + olen);
    int rc = !*buf ? failf(why, cap, "no memory")
             : pl_block_write_header(&h, n, olen, *buf, hcap, &used) != PL_OK ? failf(why, cap, "header")
             : pl_builder_emit(b, *buf + used, olen, &oused, &n) != PL_OK     ? failf(why, cap, "objects")
                                                                                : 0;
    pl_builder_free(b);
    *len = used + oused;
    if (rc == 0 && pl_block_open(blk, *buf, *len, 0, 0, &err) != PL_OK) rc = failf(why, cap, "block: %s", err.msg);
    return rc;
}
