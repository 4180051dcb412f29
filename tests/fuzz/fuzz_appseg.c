/* libFuzzer target: the reader of application segments (lib/app/segread.c),
 * which takes shared memory written by any application of the user. The
 * input is the segment's bytes; they are copied to 8-byte-aligned memory,
 * as a mapping is. Every object's slots are read up to the (clamped)
 * high-water mark. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app_internal.h"

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
    return 0;
}
