/* perflib counter logs: the header record (machine, columns, titles). */
#include <stdlib.h>
#include <string.h>

#include "log_internal.h"

static int put_titles(pl__buf *b, const pl_titles *t, pl_error *err)
{
    if (pl__log_str(b, t ? pl_titles_language(t) : "")) return pl__fail(err, PL_E_NOMEM, "out of memory");
    for (int kind = PL_TITLE_NAME; kind <= PL_TITLE_HELP; kind++) {
        size_t need = 0;
        if (!t) {
            if (pl__log_varint(b, 0)) return pl__fail(err, PL_E_NOMEM, "out of memory");
            continue;
        }
        pl_titles_export_multisz(t, kind, 0, NULL, 0, &need);
        if (pl__log_varint(b, need) || pl__buf_reserve(b, need)) return pl__fail(err, PL_E_NOMEM, "out of memory");
        if (pl_titles_export_multisz(t, kind, 0, b->p + b->len, need, &need) != PL_OK)
            return pl__fail(err, PL_E_INVAL, "log header: the title database could not be exported");
        b->len += need;
    }
    return PL_OK;
}

int pl__meta_encode(const pl_log_header *h, const uint8_t id[16], pl__buf *out, pl_error *err)
{
    if (!h || (h->kind != PL_LOG_BLOCKS && h->kind != PL_LOG_VALUES) || h->ncolumns == 0 || !h->columns ||
        h->ncolumns > PL__LOG_MAX_COLUMNS)
        return pl__fail(err, PL_E_INVAL, "log header: kind must be BLOCKS or VALUES with 1 to %u columns",
                        PL__LOG_MAX_COLUMNS);
    int s = pl__buf_append(out, id, 16) || pl__log_varint(out, 1) || pl__log_varint(out, (uint64_t)h->kind) ||
            pl__log_str(out, h->machine) || pl__log_varint(out, h->ncolumns);
    for (size_t i = 0; i < h->ncolumns && !s; i++) {
        const pl_log_column *c = &h->columns[i];
        if (!c->path || !*c->path) return pl__fail(err, PL_E_INVAL, "log header: column %zu has no path", i);
        s = pl__log_str(out, c->path) || pl__log_varint(out, c->type) || pl__log_varint(out, pl__zigzag(c->scale)) ||
            pl__log_str(out, c->help);
    }
    if (s) return pl__fail(err, PL_E_NOMEM, "out of memory");
    if ((s = put_titles(out, h->titles, err)) != 0) return s;
    return put_titles(out, h->titles_en == h->titles ? NULL : h->titles_en, err);
}

void pl__meta_free(pl__log_meta *m)
{
    if (!m) return;
    for (size_t i = 0; m->cols && i < m->h.ncolumns; i++) {
        free((char *)m->cols[i].path);
        free((char *)m->cols[i].help);
    }
    free(m->cols);
    free(m->machine);
    if (m->titles_en != m->titles) pl_titles_free(m->titles_en);
    pl_titles_free(m->titles);
    memset(m, 0, sizeof *m);
}

static int get_titles(pl__rd *r, pl_titles **out, pl_error *err)
{
    char *lang = NULL;
    uint64_t n1, n2;
    const uint8_t *p1 = NULL, *p2 = NULL;
    *out = NULL;
    if (pl__rd_str(r, &lang) || pl__rd_varint(r, &n1) || pl__rd_bytes(r, &p1, (size_t)n1) ||
        pl__rd_varint(r, &n2) || pl__rd_bytes(r, &p2, (size_t)n2)) {
        free(lang);
        return pl__fail(err, PL_E_BAD_BLOCK, "log header: the title database is cut short");
    }
    int s = PL_OK;
    if (*lang) s = pl_titles_from_multisz(lang, p1, (size_t)n1, p2, (size_t)n2, out, err);
    else if (n1 || n2) s = pl__fail(err, PL_E_BAD_BLOCK, "log header: titles without a language");
    free(lang);
    if (s) return PL_E_BAD_BLOCK;
    return PL_OK;
}

int pl__meta_decode(const uint8_t *p, size_t n, pl__log_meta *m, pl_error *err)
{
    memset(m, 0, sizeof *m);
    pl__rd r = {p, n, 0, 0};
    const uint8_t *id;
    uint64_t ver, kind, ncols;
    if (pl__rd_bytes(&r, &id, 16) || pl__rd_varint(&r, &ver) || pl__rd_varint(&r, &kind) ||
        pl__rd_str(&r, &m->machine) || pl__rd_varint(&r, &ncols))
        return pl__fail(err, PL_E_BAD_BLOCK, "log header: cut short");
    memcpy(m->id, id, 16);
    if (ver != 1) {
        pl__meta_free(m);
        return pl__fail(err, PL_E_UNSUPPORTED, "log header: version %llu (this library reads 1)",
                        (unsigned long long)ver);
    }
    /* each column needs at least 4 bytes, so ncols is bounded by the payload */
    if ((kind != PL_LOG_BLOCKS && kind != PL_LOG_VALUES) || ncols == 0 || ncols > PL__LOG_MAX_COLUMNS ||
        ncols > n / 4) {
        pl__meta_free(m);
        return pl__fail(err, PL_E_BAD_BLOCK, "log header: kind %llu with %llu columns", (unsigned long long)kind,
                        (unsigned long long)ncols);
    }
    m->h.kind = (int)kind;
    m->cols = calloc((size_t)ncols, sizeof *m->cols);
    if (!m->cols) {
        pl__meta_free(m);
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    m->h.ncolumns = (size_t)ncols;
    for (size_t i = 0; i < ncols; i++) {
        char *path = NULL, *help = NULL;
        uint64_t type, scale;
        if (pl__rd_str(&r, &path) || pl__rd_varint(&r, &type) || pl__rd_varint(&r, &scale) ||
            pl__rd_str(&r, &help) || !*path || type > UINT32_MAX) {
            free(path);
            free(help);
            pl__meta_free(m);
            return pl__fail(err, PL_E_BAD_BLOCK, "log header: column %zu is malformed", i);
        }
        int64_t sc = pl__unzigzag(scale);
        m->cols[i].path = path;
        m->cols[i].type = (uint32_t)type;
        m->cols[i].scale = sc < -100 || sc > 100 ? 0 : (int32_t)sc;
        if (*help) m->cols[i].help = help;
        else free(help);
    }
    int s = get_titles(&r, &m->titles, err);
    if (!s) s = get_titles(&r, &m->titles_en, err);
    if (!s && r.pos != r.len) s = pl__fail(err, PL_E_BAD_BLOCK, "log header: %zu bytes of trailing data", r.len - r.pos);
    if (s) {
        pl__meta_free(m);
        return s;
    }
    if (!m->titles_en) m->titles_en = m->titles;
    m->h.machine = m->machine;
    m->h.columns = m->cols;
    m->h.titles = m->titles;
    m->h.titles_en = m->titles_en;
    return PL_OK;
}
