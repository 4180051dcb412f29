/* A PDH data source over the query engine (query.h). */
#include <stdlib.h>
#include <string.h>

#include "pdh_internal.h"
#include "perflib/query.h"

typedef struct eng_ctx {
    pl_engine *e;
    pl_titles *en;            /* English titles when the default is another language */
    int en_tried;
    int own;                  /* close the engine with the source */
} eng_ctx;

static int eng_collect(void *ctx, const char *query, void **block, size_t *len, pl_error *err)
{
    eng_ctx *c = ctx;
    uint32_t type = 0;
    int rc = pl_engine_query_alloc(c->e, query, block, len, &type, err);
    if (rc != PL_OK) return rc;
    if (type != PL_REG_BINARY) {
        pl_free(*block);
        *block = NULL;
        return pl__fail(err, PL_E_INVAL, "query \"%s\" did not return performance data", query);
    }
    return PL_OK;
}

static const pl_titles *eng_titles(void *ctx, int english)
{
    eng_ctx *c = ctx;
    const pl_titles *t = pl_engine_titles(c->e, NULL);
    if (!english) return t;
    if (t && strcmp(pl_titles_language(t), "009") == 0) return t;
    if (!c->en_tried) {
        c->en_tried = 1;
        pl_store *st = pl_engine_store(c->e);
        if (st && pl_titles_load(st, "009", &c->en, NULL) != PL_OK) c->en = NULL;
    }
    return c->en;
}

static void eng_close(void *ctx)
{
    eng_ctx *c = ctx;
    if (!c) return;
    pl_titles_free(c->en);
    if (c->own) pl_engine_close(c->e);
    free(c);
}

PL_EXTERN uint32_t pl_pdh_engine_source(pl_engine *e, pl_pdh_source *out, pl_error *err)
{
    if (!e || !out) return pl__pdh_fail(err, PL_PDH_INVALID_ARGUMENT, "engine or out is NULL");
    eng_ctx *c = calloc(1, sizeof *c);
    if (!c) return pl__pdh_fail(err, PL_PDH_MEMORY_ALLOCATION_FAILURE, "out of memory");
    c->e = e;
    out->collect = eng_collect;
    out->titles = eng_titles;
    out->close = eng_close;
    out->ctx = c;
    return PL_PDH_CSTATUS_VALID_DATA;
}

uint32_t pl__pdh_open_local(pl_pdh_source *out, pl_error *err)
{
    pl_engine *e = NULL;
    pl_error e2 = {0};
    if (pl_engine_open(NULL, &e, &e2) != PL_OK)
        return pl__pdh_fail(err, PL_PDH_CANNOT_CONNECT_MACHINE, "cannot open the local performance data: %s", e2.msg);
    uint32_t st = pl_pdh_engine_source(e, out, err);
    if (st) {
        pl_engine_close(e);
        return st;
    }
    ((eng_ctx *)out->ctx)->own = 1;
    return PL_PDH_CSTATUS_VALID_DATA;
}
