/* libFuzzer target: the reader of application segments (lib/app/segread.c),
 * which takes shared memory written by any application of the user. The
 * input is the segment's bytes; they are copied to 8-byte-aligned memory,
 * as a mapping is. Every object's slots are read up to the (clamped)
 * high-water mark. The same bytes, as a string, also go through the other
 * two parsers of what a reader is handed: an announcement's name
 * (pl__seg_parse_name) and an application record's publishers list
 * (pl_store_parse_publishers, from a store file that may be damaged). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app_internal.h"
#include "perflib/registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t *buf = malloc(size / 8 * 8 + 8);
    if (!buf) return 0;
    memcpy(buf, data, size);
    static pl__seg_layout lay;
    pl_error err;
    if (pl__seg_layout_read(buf, size, &lay, &err) == PL_OK) {
        pl__seg_inst in;
        for (uint32_t o = 0; o < lay.nobjects; o++) {
            uint32_t high = pl__seg_high(buf, &lay, o);
            for (uint32_t s = 0; s < high && s < 4096; s++)
                if (pl__seg_read_slot(buf, &lay, o, s, &in) && lay.obj[o].max_instances && strlen(in.name) == 0)
                    abort(); /* a live instance always has a name */
        }
    }
    free(buf);
    char *str = malloc(size + 1);
    if (!str) return 0;
    memcpy(str, data, size);
    str[size] = '\0';
    uint32_t pid, uids[PL_STORE_MAX_PUBLISHERS];
    uint64_t start;
    int fd;
    if (pl__seg_parse_name(str, &pid, &start, &fd) && (pid == 0 || start == 0 || fd < 0)) abort();
    int n = pl_store_parse_publishers(str, uids);
    if (n > PL_STORE_MAX_PUBLISHERS || n < -1) abort();
    for (int i = 0; i < n; i++)
        if (uids[i] == UINT32_MAX) abort();
    free(str);
    return 0;
}
