/* libFuzzer target: CSV/TSV counter logs (lib/log/log_text.c) and the PDH
 * source over a log of values (lib/log/log_vsource.c) on arbitrary bytes.
 * The input is written to a memfd and opened with pl_log_open; every row
 * is read, and every record is made current in the PDH source and
 * collected for each machine the columns name. Nothing may crash, hang or
 * leak, a present value is finite, and every block the source hands out
 * must pass the block reader (it is built by perflib itself). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perflib/block.h"
#include "fuzz_memfd.h"
#include "perflib/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void collect(pl_pdh_source *src, const char *query)
{
    void *b = NULL;
    size_t len = 0;
    pl_error err;
    if (src->collect(src->ctx, query, &b, &len, &err) != PL_OK) return;
    pl_block blk;
    if (pl_block_open(&blk, b, len, 0, 0, &err) != PL_OK) abort();
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_memfd(data, size, path, sizeof path);
    if (fd < 0) return 0;
    pl_log *log = NULL;
    pl_error err;
    if (pl_log_open(path, &log, &err) == PL_OK) {
        const pl_log_header *h = pl_log_get_header(log);
        size_t n = pl_log_count(log);
        for (size_t i = 0; i < n; i++) {
            const double *v;
            const unsigned char *p;
            if (pl_log_read_values(log, i, &v, &p, &err) != PL_OK) continue;
            for (size_t c = 0; c < h->ncolumns; c++)
                if (p[c] && !isfinite(v[c])) abort();
        }
        pl_pdh_source src;
        pl_log_source *ls = NULL;
        if (pl_log_source_open(log, &src, &ls, &err) == PL_OK) {
            const pl_titles *t = src.titles(src.ctx, 0);
            if (!t) abort();
            for (size_t i = 0; i < n && i < 64; i++) {
                if (pl_log_source_set(ls, i, &err) != PL_OK) continue;
                collect(&src, "Global");
                for (size_t c = 0; c < h->ncolumns && c < 16; c++) {
                    const char *m = h->columns[c].path;
                    if (m[0] != '\\' || m[1] != '\\') continue;
                    char q[300];
                    const char *e = strchr(m + 2, '\\');
                    int l = e ? (int)(e - m - 2) : 0;
                    if (l <= 0 || l > 200) continue;
                    snprintf(q, sizeof q, "Foreign %.*s 2", l, m + 2);
                    collect(&src, q);
                }
            }
            src.close(src.ctx);
        }
        pl_log_close(log);
    }
    close(fd);
    return 0;
}
