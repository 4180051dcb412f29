/* perflib registry store: the in-memory title database of one language. */
#include <stdlib.h>
#include <string.h>

#include "registry_internal.h"

typedef struct tentry {
    uint32_t idx;
    uint32_t u16len;          /* UTF-16 code units of text, without NUL */
    size_t len;               /* bytes of text, without NUL */
    const char *text;         /* into the pool (an offset while loading) */
} tentry;

typedef struct tname {
    const char *text;
    uint32_t idx;
} tname;

typedef struct tkind {
    tentry *e;                /* ascending idx */
    size_t n, cap;
    tname *byname;            /* sorted by (case-folded text, idx) */
} tkind;

struct pl_titles {
    char lang[PL__LANG_MAX + 1];
    tkind k[2];
    pl__buf pool;             /* every text, each with its NUL */
    uint32_t last_counter, last_help;
};

PL_EXTERN void pl_titles_free(pl_titles *t)
{
    if (!t) return;
    for (int i = 0; i < 2; i++) {
        free(t->k[i].e);
        free(t->k[i].byname);
    }
    pl__buf_free(&t->pool);
    free(t);
}

static int pool_add(pl_titles *t, const char *s, size_t n, size_t *off)
{
    *off = t->pool.len;
    return pl__buf_append(&t->pool, s, n) || pl__buf_append(&t->pool, "", 1) ? PL_E_NOMEM : PL_OK;
}

static int kind_push(tkind *k, uint32_t idx, size_t off, size_t len, uint32_t u16len)
{
    /* Rows arrive by (kind, idx) with the requested language after 009: a
     * second row for the same index replaces the English fallback. */
    if (k->n > 0 && k->e[k->n - 1].idx == idx) {
        tentry *e = &k->e[k->n - 1];
        e->text = (const char *)(uintptr_t)off;
        e->len = len;
        e->u16len = u16len;
        return PL_OK;
    }
    if (k->n == k->cap) {
        size_t cap = k->cap ? k->cap * 2 : 1024;
        tentry *e = realloc(k->e, cap * sizeof *e);
        if (!e) return PL_E_NOMEM;
        k->e = e;
        k->cap = cap;
    }
    k->e[k->n++] = (tentry){idx, u16len, len, (const char *)(uintptr_t)off};
    return PL_OK;
}

static int name_cmp(const void *a, const void *b)
{
    const tname *x = a, *y = b;
    int c = pl__utf8_casecmp(x->text, y->text);
    if (c) return c;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int finish(pl_titles *t)
{
    for (int i = 0; i < 2; i++) {
        tkind *k = &t->k[i];
        for (size_t j = 0; j < k->n; j++) k->e[j].text = t->pool.p + (uintptr_t)k->e[j].text;
        k->byname = malloc((k->n ? k->n : 1) * sizeof *k->byname);
        if (!k->byname) return PL_E_NOMEM;
        for (size_t j = 0; j < k->n; j++) k->byname[j] = (tname){k->e[j].text, k->e[j].idx};
        qsort(k->byname, k->n, sizeof *k->byname, name_cmp);
    }
    return PL_OK;
}

static int load_rows(pl_store *st, pl_titles *t, pl_error *err)
{
    sqlite3_stmt *q;
    int s = pl__sql_prepare(st,
                            "SELECT kind, idx, text FROM titles WHERE lang = '009' OR lang = ?1"
                            " ORDER BY kind, idx, lang = ?1",
                            &q, err);
    if (s) return s;
    sqlite3_bind_text(q, 1, t->lang, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        sqlite3_int64 kind = sqlite3_column_int64(q, 0), idx = sqlite3_column_int64(q, 1);
        const char *text = (const char *)sqlite3_column_text(q, 2);
        if ((kind != PL_TITLE_NAME && kind != PL_TITLE_HELP) || idx < 1 || idx > (sqlite3_int64)PL__INDEX_MAX ||
            !text) {
            s = pl__fail(err, PL_E_STORE, "%s: titles row (kind %lld, index %lld) is malformed", st->path,
                         (long long)kind, (long long)idx);
            break;
        }
        size_t len = strlen(text), units = 0;
        if (pl__utf8_to_utf16(text, len, NULL, 0, &units) == PL_E_ENCODING || units > UINT32_MAX - 1) {
            s = pl__fail(err, PL_E_ENCODING, "%s: title %s index %lld (%s) is not valid UTF-8", st->path, t->lang,
                         (long long)idx, kind ? "help" : "name");
            break;
        }
        size_t off;
        if (pool_add(t, text, len, &off) || kind_push(&t->k[kind], (uint32_t)idx, off, len, (uint32_t)units)) {
            s = pl__fail(err, PL_E_NOMEM, "out of memory loading titles");
            break;
        }
    }
    if (!s && rc != SQLITE_DONE) s = pl__sql_fail(st, err, rc, "read titles");
    sqlite3_finalize(q);
    return s;
}

PL_EXTERN int pl_titles_load(pl_store *st, const char *lang, pl_titles **out, pl_error *err)
{
    pl__clear(err);
    if (!st || !out) return pl__fail(err, PL_E_INVAL, "pl_titles_load: NULL argument");
    *out = NULL;
    char deflang[PL__LANG_MAX + 1];
    if (!lang) {
        pl__store_default_language(st, deflang);
        lang = deflang;
    }
    pl_titles *t = calloc(1, sizeof *t);
    if (!t) return pl__fail(err, PL_E_NOMEM, "out of memory");
    if (pl__lang_norm(lang, t->lang) != 0) {
        free(t);
        return pl__fail(err, PL_E_INVAL, "language id '%s' is not 1 to 7 hex digits", lang);
    }
    pl__store_lock(st);
    int s = pl__tx_begin(st, 0, err);
    if (!s) {
        int e = pl__lang_exists(st, t->lang, err);
        if (e < 0) s = -e;
        else if (e == 0) s = pl__fail(err, PL_E_NOT_FOUND, "%s: no language %s", st->path, t->lang);
        if (!s && !(s = pl__meta_get(st, "Last Counter", &t->last_counter, err)) &&
            !(s = pl__meta_get(st, "Last Help", &t->last_help, err)))
            s = load_rows(st, t, err);
        pl__tx_rollback(st);
    }
    pl__store_unlock(st);
    if (!s && finish(t) != PL_OK) s = pl__fail(err, PL_E_NOMEM, "out of memory loading titles");
    if (s) {
        pl_titles_free(t);
        return s;
    }
    *out = t;
    return PL_OK;
}

PL_EXTERN const char *pl_titles_language(const pl_titles *t) { return t ? t->lang : NULL; }

static const tkind *kind_of(const pl_titles *t, int kind)
{
    if (!t || (kind != PL_TITLE_NAME && kind != PL_TITLE_HELP)) return NULL;
    return &t->k[kind];
}

static const tentry *find_index(const tkind *k, uint32_t index)
{
    size_t lo = 0, hi = k->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->e[mid].idx < index) lo = mid + 1;
        else hi = mid;
    }
    return lo < k->n && k->e[lo].idx == index ? &k->e[lo] : NULL;
}

PL_EXTERN const char *pl_titles_get(const pl_titles *t, int kind, uint32_t index)
{
    const tkind *k = kind_of(t, kind);
    if (!k) return NULL;
    const tentry *e = find_index(k, index);
    return e ? e->text : NULL;
}

/* First position in byname whose text is >= name (case-insensitively). */
static size_t lower_bound(const tkind *k, const char *name)
{
    size_t lo = 0, hi = k->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pl__utf8_casecmp(k->byname[mid].text, name) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

PL_EXTERN uint32_t pl_titles_find(const pl_titles *t, int kind, const char *name)
{
    const tkind *k = kind_of(t, kind);
    if (!k || !name) return 0;
    size_t i = lower_bound(k, name);
    if (i < k->n && pl__utf8_casecmp(k->byname[i].text, name) == 0) return k->byname[i].idx;
    return 0;
}

PL_EXTERN size_t pl_titles_find_all(const pl_titles *t, int kind, const char *name, uint32_t *out, size_t cap)
{
    const tkind *k = kind_of(t, kind);
    if (!k || !name) return 0;
    size_t n = 0;
    for (size_t i = lower_bound(k, name); i < k->n && pl__utf8_casecmp(k->byname[i].text, name) == 0; i++) {
        if (out && n < cap) out[n] = k->byname[i].idx;
        n++;
    }
    return n;
}

PL_EXTERN size_t pl_titles_count(const pl_titles *t, int kind)
{
    const tkind *k = kind_of(t, kind);
    return k ? k->n : 0;
}

PL_EXTERN int pl_titles_entry(const pl_titles *t, int kind, size_t i, uint32_t *index, const char **text)
{
    const tkind *k = kind_of(t, kind);
    if (!k) return PL_E_INVAL;
    if (i >= k->n) return PL_E_NOT_FOUND;
    if (index) *index = k->e[i].idx;
    if (text) *text = k->e[i].text;
    return PL_OK;
}

PL_EXTERN uint32_t pl_titles_last_counter(const pl_titles *t) { return t ? t->last_counter : 0; }
PL_EXTERN uint32_t pl_titles_last_help(const pl_titles *t) { return t ? t->last_help : 0; }

/* Decimal digits of v into d (no NUL); returns the count. */
static size_t udec(uint32_t v, char d[10])
{
    char tmp[10];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++) d[i] = tmp[n - 1 - i];
    return n;
}

PL_EXTERN int pl_titles_export_multisz(const pl_titles *t, int kind, int flags, void *buf, size_t cap,
                                       size_t *needed)
{
    const tkind *k = kind_of(t, kind);
    if (!k || !needed || (flags & ~PL_MULTISZ_UTF16)) return PL_E_INVAL;
    int wide = (flags & PL_MULTISZ_UTF16) != 0;
    size_t unit = wide ? 2 : 1;
    /* Every entry is "index\0text\0"; one more NUL ends the list. */
    size_t total = 0, maxu = 0;
    char d[10];
    for (size_t i = 0; i < k->n; i++) {
        const tentry *e = &k->e[i];
        size_t chars = udec(e->idx, d) + 1 + (wide ? e->u16len : e->len) + 1;
        total += chars * unit;
        if (e->u16len > maxu) maxu = e->u16len;
    }
    total += unit;
    *needed = total;
    if (!buf || cap < total) return PL_E_MORE_DATA;

    unsigned char *p = buf;
    if (!wide) {
        for (size_t i = 0; i < k->n; i++) {
            const tentry *e = &k->e[i];
            size_t nd = udec(e->idx, d);
            memcpy(p, d, nd);
            p += nd;
            *p++ = 0;
            memcpy(p, e->text, e->len);
            p += e->len;
            *p++ = 0;
        }
        *p = 0;
        return PL_OK;
    }
    uint16_t *scratch = malloc((maxu + 1) * sizeof *scratch);
    if (!scratch) return PL_E_NOMEM;
    for (size_t i = 0; i < k->n; i++) {
        const tentry *e = &k->e[i];
        size_t nd = udec(e->idx, d), units = 0;
        for (size_t j = 0; j < nd; j++, p += 2) pl__wr16(p, (uint16_t)d[j]);
        pl__wr16(p, 0);
        p += 2;
        /* Validated at load time, so this cannot fail. */
        pl__utf8_to_utf16(e->text, e->len, scratch, maxu + 1, &units);
        memcpy(p, scratch, units * 2);
        p += units * 2;
        pl__wr16(p, 0);
        p += 2;
    }
    pl__wr16(p, 0);
    free(scratch);
    return PL_OK;
}

/* ---------------------------------------------- titles from a MULTI_SZ */

typedef struct mentry {
    uint32_t idx;
    size_t seq;               /* position in the input: the later one wins */
    const char *text;
    size_t len;
} mentry;

static int mentry_cmp(const void *a, const void *b)
{
    const mentry *x = a, *y = b;
    if (x->idx != y->idx) return x->idx < y->idx ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Parse one UTF-8 MULTI_SZ ("index\0text\0...\0") into t->k[kind]. */
static int load_multisz(pl_titles *t, int kind, const char *p, size_t n, pl_error *err)
{
    mentry *es = NULL;
    size_t ne = 0, cap = 0;
    size_t pos = 0;
    int s = PL_OK;
    while (pos < n && p[pos] != '\0') {
        const char *a = p + pos;
        const char *ae = memchr(a, 0, n - pos);
        if (!ae) { s = pl__fail(err, PL_E_PARSE, "title list (%s): index at byte %zu has no end", kind ? "help" : "names", pos); break; }
        const char *b = ae + 1;
        const char *be = b < p + n ? memchr(b, 0, (size_t)(p + n - b)) : NULL;
        if (!be) { s = pl__fail(err, PL_E_PARSE, "title list (%s): text at byte %zu has no end", kind ? "help" : "names", pos); break; }
        uint64_t v = 0;
        for (const char *q = a; q < ae; q++) {
            if (*q < '0' || *q > '9' || v > PL__INDEX_MAX) { v = 0; break; }
            v = v * 10 + (uint64_t)(*q - '0');
        }
        if (v < 1 || v > PL__INDEX_MAX) {
            s = pl__fail(err, PL_E_PARSE, "title list (%s): bad index at byte %zu", kind ? "help" : "names", pos);
            break;
        }
        size_t len = (size_t)(be - b), units = 0;
        if (pl__utf8_to_utf16(b, len, NULL, 0, &units) == PL_E_ENCODING || units > UINT32_MAX - 1) {
            s = pl__fail(err, PL_E_ENCODING, "title list (%s): index %llu is not valid UTF-8", kind ? "help" : "names",
                         (unsigned long long)v);
            break;
        }
        void *arr = es;
        if (pl__grow(&arr, &cap, ne + 1, sizeof *es)) { s = pl__fail(err, PL_E_NOMEM, "out of memory"); break; }
        es = arr;
        es[ne] = (mentry){(uint32_t)v, ne, b, len};
        ne++;
        pos = (size_t)(be + 1 - p);
    }
    if (!s) {
        qsort(es, ne, sizeof *es, mentry_cmp);
        for (size_t i = 0; i < ne && !s; i++) {
            size_t off, units = 0;
            pl__utf8_to_utf16(es[i].text, es[i].len, NULL, 0, &units);
            if (pool_add(t, es[i].text, es[i].len, &off) ||
                kind_push(&t->k[kind], es[i].idx, off, es[i].len, (uint32_t)units))
                s = pl__fail(err, PL_E_NOMEM, "out of memory");
            uint32_t *last = kind ? &t->last_help : &t->last_counter;
            if (es[i].idx > *last) *last = es[i].idx;
        }
    }
    free(es);
    return s;
}

PL_EXTERN int pl_titles_from_multisz(const char *lang, const void *names, size_t names_len, const void *help,
                                     size_t help_len, pl_titles **out, pl_error *err)
{
    pl__clear(err);
    if (!out || (!names && names_len) || (!help && help_len)) return pl__fail(err, PL_E_INVAL, "pl_titles_from_multisz: NULL argument");
    *out = NULL;
    pl_titles *t = calloc(1, sizeof *t);
    if (!t) return pl__fail(err, PL_E_NOMEM, "out of memory");
    if (pl__lang_norm(lang ? lang : "009", t->lang) != 0) {
        free(t);
        return pl__fail(err, PL_E_INVAL, "language id '%s' is not 1 to 7 hex digits", lang);
    }
    int s = load_multisz(t, PL_TITLE_NAME, names, names_len, err);
    if (!s) s = load_multisz(t, PL_TITLE_HELP, help, help_len, err);
    if (!s && finish(t) != PL_OK) s = pl__fail(err, PL_E_NOMEM, "out of memory");
    if (s) {
        pl_titles_free(t);
        return s;
    }
    *out = t;
    return PL_OK;
}
