/* libFuzzer target: the counter log reader (lib/log) on arbitrary bytes.
 * The input is written to a memfd and opened as a log (no index, so every
 * frame is scanned); every record is read, as blocks and as values, and
 * seeks run over the index. Nothing may crash, hang or leak. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_memfd.h"
#include "perflib/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
            const void *d;
            size_t len;
            if (h->kind == PL_LOG_VALUES) {
                const double *v;
                const unsigned char *p;
                if (pl_log_read_values(log, i, &v, &p, &err) == PL_OK) {
                    double sum = 0;
                    for (size_t c = 0; c < h->ncolumns; c++)
                        if (p[c]) sum += v[c];
                    if (sum != sum) abort(); /* present values are finite */
                }
            } else if (pl_log_read(log, i, &d, &len, &err) == PL_OK && len) {
                volatile uint8_t x = ((const uint8_t *)d)[len - 1];
                (void)x;
            }
        }
        /* backwards: every read needs its key record again */
        for (size_t i = n; i-- > 0;) {
            const void *d;
            size_t len;
            pl_log_read(log, i, &d, &len, &err);
        }
        size_t at;
        pl_log_seek(log, n ? pl_log_time(log, n / 2) : 0, &at);
        pl_pdh_source src;
        pl_log_source *ls = NULL;
        if (pl_log_source_open(log, &src, &ls, &err) == PL_OK) {
            void *b = NULL;
            size_t bl = 0;
            if (src.collect(src.ctx, "2", &b, &bl, &err) == PL_OK) free(b);
            src.close(src.ctx);
        }
        pl_log_close(log);
    }
    close(fd);
    return 0;
}
