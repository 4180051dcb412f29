/* perflib counter logs as a PDH data source, and the recording tap. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log_ext.h"
#include "log_internal.h"

struct pl_log_source {
    pl_log *log;
    size_t cur;
    int status;               /* of reading cur: PL_OK, PL_E_NO_DATA, PL_E_BAD_BLOCK */
    char msg[sizeof ((pl_error *)0)->msg];
    const void *data;
    size_t len;
    pl__vsrc *v;              /* a log of values: the blocks it stands for */
};

static int src_collect(void *ctx, const char *query, void **block, size_t *len, pl_error *err)
{
    pl_log_source *ls = ctx;
    (void)query; /* the record holds what the writer's query collected */
    if (ls->status) return pl__fail(err, ls->status, "%s", ls->msg);
    if (ls->v) return pl__vsrc_collect(ls->v, query, block, len, err);
    void *b = malloc(ls->len ? ls->len : 1);
    if (!b) return pl__fail(err, PL_E_NOMEM, "out of memory");
    memcpy(b, ls->data, ls->len);
    *block = b;
    *len = ls->len;
    return PL_OK;
}

static const pl_titles *src_titles(void *ctx, int english)
{
    pl_log_source *ls = ctx;
    return ls->v ? pl__vsrc_titles(ls->v) : pl_log_titles(ls->log, english);
}

static void src_close(void *ctx)
{
    pl_log_source *ls = ctx;
    if (ls) pl__vsrc_free(ls->v);
    free(ls);
}

PL_EXTERN int pl_log_source_set(pl_log_source *ls, size_t i, pl_error *err)
{
    pl__clear(err);
    if (!ls) return pl__fail(err, PL_E_INVAL, "pl_log_source_set: NULL argument");
    pl_error e = {0};
    ls->cur = i;
    ls->data = NULL;
    ls->len = 0;
    if (ls->v) {
        const double *vals;
        const unsigned char *present;
        ls->status = pl_log_read_values(ls->log, i, &vals, &present, &e);
        if (!ls->status)
            ls->status = pl__vsrc_build(ls->v, pl_log_time(ls->log, i), vals, present, &e);
    } else {
        ls->status = pl_log_read(ls->log, i, &ls->data, &ls->len, &e);
    }
    snprintf(ls->msg, sizeof ls->msg, "%s", e.msg);
    if (ls->status) return pl__fail(err, ls->status, "%s", e.msg);
    return PL_OK;
}

PL_EXTERN int pl_log_source_open(pl_log *log, pl_pdh_source *out, pl_log_source **lsp, pl_error *err)
{
    pl__clear(err);
    if (!log || !out) return pl__fail(err, PL_E_INVAL, "pl_log_source_open: NULL argument");
    const pl_log_header *h = pl_log_get_header(log);
    pl__vsrc *v = NULL;
    if (h->kind == PL_LOG_VALUES) {
        int s = pl__vsrc_new(h, &v, err);
        if (s) return s;
    } else if (!pl_log_titles(log, 0)) {
        return pl__fail(err, PL_E_UNSUPPORTED, "the log carries no counter names");
    }
    pl_log_source *ls = calloc(1, sizeof *ls);
    if (!ls) {
        pl__vsrc_free(v);
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    ls->v = v;
    ls->log = log;
    ls->status = PL_E_NO_DATA;
    snprintf(ls->msg, sizeof ls->msg, "no readable record in the log");
    for (size_t i = 0; i < pl_log_count(log); i++)
        if (pl_log_source_set(ls, i, NULL) == PL_OK) break;
    memset(out, 0, sizeof *out);
    out->collect = src_collect;
    out->titles = src_titles;
    out->close = src_close;
    out->ctx = ls;
    if (lsp) *lsp = ls;
    return PL_OK;
}

/* ------------------------------------------------------------------ tap */

struct pl_log_tap {
    pl_pdh_source inner;
    uint8_t *last;
    size_t len, cap;
    int have;
};

static int tap_collect(void *ctx, const char *query, void **block, size_t *len, pl_error *err)
{
    pl_log_tap *t = ctx;
    t->have = 0;
    int s = t->inner.collect(t->inner.ctx, query, block, len, err);
    if (s == PL_OK && *block) {
        if (*len > t->cap) {
            uint8_t *p = realloc(t->last, *len);
            if (!p) return PL_OK; /* the caller's data is fine; this copy is lost */
            t->last = p;
            t->cap = *len;
        }
        memcpy(t->last, *block, *len);
        t->len = *len;
        t->have = 1;
    }
    return s;
}

static const pl_titles *tap_titles(void *ctx, int english)
{
    pl_log_tap *t = ctx;
    return t->inner.titles(t->inner.ctx, english);
}

static void tap_close(void *ctx)
{
    pl_log_tap *t = ctx;
    free(t->last);
    free(t);
}

PL_EXTERN int pl_log_tap_open(const pl_pdh_source *inner, pl_pdh_source *out, pl_log_tap **tap, pl_error *err)
{
    pl__clear(err);
    if (!inner || !inner->collect || !inner->titles || !out || !tap)
        return pl__fail(err, PL_E_INVAL, "pl_log_tap_open: NULL argument");
    pl_log_tap *t = calloc(1, sizeof *t);
    if (!t) return pl__fail(err, PL_E_NOMEM, "out of memory");
    t->inner = *inner;
    memset(out, 0, sizeof *out);
    out->collect = tap_collect;
    out->titles = tap_titles;
    out->close = tap_close;
    out->ctx = t;
    *tap = t;
    return PL_OK;
}

PL_EXTERN void pl_log_tap_last(const pl_log_tap *tap, const void **block, size_t *len)
{
    *block = tap && tap->have ? tap->last : NULL;
    *len = tap && tap->have ? tap->len : 0;
}
