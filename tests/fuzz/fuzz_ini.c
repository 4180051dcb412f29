/* libFuzzer target for the lodctr parsers.
 *
 * The input is split at the first 0x00 0xFF byte pair into an .ini part and
 * a symbol-file part (no pair: all .ini, empty symbol file) and handed to
 * pl_lodctr_parse_mem(). The whole input is also read as a `lodctr /s`
 * backup; when that succeeds, the backup is written, read back and written
 * again, and the two writes must be identical. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/lodctr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t split = size, rest = size;
    for (size_t i = 0; i + 1 < size; i++) {
        if (data[i] == 0x00 && data[i + 1] == 0xFF) {
            split = i;
            rest = i + 2;
            break;
        }
    }
    pl_lodctr_set *set = NULL;
    pl_error err;
    int rc = pl_lodctr_parse_mem(data, split, "fuzz.ini", data + rest, size - rest, "fuzz.h", &set, &err);
    if (rc == PL_OK) {
        if (!set || !set->provider || set->ntexts == 0) abort();
        for (size_t i = 0; i < set->ntexts; i++)
            if (set->texts[i].offset > set->max_offset || (set->texts[i].offset & 1)) abort();
    } else if (set || err.msg[0] == '\0') {
        abort();
    }
    pl_lodctr_free(set);

    pl_backup *bk = NULL;
    if (pl_backup_read_mem(data, size, "fuzz.INI", &bk, &err) == PL_OK) {
        void *w1 = NULL, *w2 = NULL;
        size_t l1 = 0, l2 = 0;
        if (pl_backup_write_mem(bk, &w1, &l1, &err) == PL_OK) {
            pl_backup *bk2 = NULL;
            if (pl_backup_read_mem(w1, l1, "again.INI", &bk2, &err) != PL_OK) abort();
            if (pl_backup_write_mem(bk2, &w2, &l2, &err) != PL_OK) abort();
            if (l1 != l2 || memcmp(w1, w2, l1) != 0) abort();
            pl_backup_free(bk2);
        }
        pl_free(w1);
        pl_free(w2);
        pl_backup_free(bk);
    }
    return 0;
}
