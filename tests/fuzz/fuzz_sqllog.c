/* libFuzzer target: the SQL log set reader (lib/log/log_sql.c) on arbitrary
 * database rows. A stand-in database answers every query the reader makes
 * (DisplayToID, CounterDetails, the record list, each record's values)
 * with rows decoded from the input: each cell an integer, a double, text,
 * NULL or a blob, in any column, so every cell is of any type and value.
 * Every record is read and made current in the PDH source of values; its
 * blocks must pass the block reader. Nothing may crash, hang or leak. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log_sql.h"
#include "perflib/block.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fake {
    pl__sqldb b;
    const uint8_t *p;
    size_t n, pos;
    char text[16][256];
} fake;

static int byte(fake *f)
{
    return f->pos < f->n ? f->p[f->pos++] : -1;
}

/* Rows for one query: a count, then per row a cell count and cells. */
static int fake_query(pl__sqldb *b, const char *sql, const pl__sqlv *params, int np, pl__sql_row_fn row, void *ctx,
                      pl_error *err)
{
    fake *f = (fake *)b;
    (void)sql;
    (void)params;
    (void)np;
    int nrows = byte(f);
    if (nrows < 0) return pl__fail(err, PL_E_STORE, "fake: no more answers");
    if (nrows == 255) return pl__fail(err, PL_E_STORE, "fake: a failing query");
    for (int r = 0; r < nrows && row; r++) {
        int nc = byte(f);
        if (nc < 0) break;
        nc %= 17;
        pl__sqlv cells[16];
        if (nc > 16) nc = 16;
        for (int c = 0; c < nc; c++) {
            memset(&cells[c], 0, sizeof cells[c]);
            int t = byte(f);
            switch (t < 0 ? 0 : t % 5) {
            case 1:
                cells[c].type = PL__SQL_INT;
                for (int k = 0; k < 8; k++) cells[c].i = (int64_t)((uint64_t)cells[c].i << 8 | (uint8_t)byte(f));
                break;
            case 2: {
                uint64_t bits = 0;
                for (int k = 0; k < 8; k++) bits = bits << 8 | (uint8_t)byte(f);
                cells[c].type = PL__SQL_REAL;
                memcpy(&cells[c].d, &bits, 8);
                break;
            }
            case 3: {
                int len = byte(f);
                if (len < 0) len = 0;
                len %= 255;
                size_t k = 0;
                for (; k < (size_t)len && f->pos < f->n; k++) f->text[c][k] = (char)f->p[f->pos++];
                f->text[c][k] = '\0';
                cells[c].type = PL__SQL_TEXT;
                cells[c].s = f->text[c];
                break;
            }
            case 4: cells[c].type = PL__SQL_OTHER; break;
            default: cells[c].type = PL__SQL_NULL; break;
            }
        }
        int s = row(ctx, cells, nc);
        if (s) return s;
    }
    return PL_OK;
}

static int fake_data(pl__sqldb *b, const char *guid, int64_t record, const char *datetime, const pl__sql_data *rows,
                     size_t n, pl_error *err)
{
    (void)b, (void)guid, (void)record, (void)datetime, (void)rows, (void)n;
    return pl__fail(err, PL_E_STORE, "fake: read only");
}

static void fake_close(pl__sqldb *b) { free(b); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    fake *f = calloc(1, sizeof *f);
    if (!f) return 0;
    f->b.dialect = data[0] & 1 ? PL__SQL_PG : PL__SQL_SQLITE;
    f->b.query = fake_query;
    f->b.data = fake_data;
    f->b.close = fake_close;
    f->p = data + 1;
    f->n = size - 1;
    pl__xlog *x = NULL;
    pl_error err;
    if (pl__sqllog_open_db(&f->b, "fuzz", data[0] & 2 ? "set" : NULL, &x, &err) != PL_OK) return 0;
    size_t nc = x->h.ncolumns;
    double *v = calloc(nc + 1, sizeof *v);
    unsigned char *p = calloc(nc + 1, 1);
    pl__vsrc *vs = NULL;
    if (v && p && pl__vsrc_new(&x->h, &vs, &err) != PL_OK) vs = NULL;
    for (size_t i = 0; v && p && i < x->n && i < 256; i++) {
        if (x->read(x, i, v, p, &err) != PL_OK) continue;
        for (size_t c = 0; c < nc; c++)
            if (p[c] && !isfinite(v[c])) abort();
        if (vs && pl__vsrc_build(vs, x->times[i], v, p, &err) == PL_OK) {
            void *b = NULL;
            size_t len = 0;
            if (pl__vsrc_collect(vs, "Global", &b, &len, &err) == PL_OK) {
                pl_block blk;
                if (pl_block_open(&blk, b, len, 0, 0, &err) != PL_OK) abort();
                free(b);
            }
        }
    }
    pl__vsrc_free(vs);
    free(v);
    free(p);
    x->close(x);
    return 0;
}
