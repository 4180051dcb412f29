/* libFuzzer target for the host's multiple-of-8 padding (lib/host/host_align.c).
 *
 * The input's first byte is the object count a provider claims, the rest is
 * what its Collect returned. Whatever pl__host_align8 accepts must be padded
 * correctly: every object 8-aligned with a TotalByteLength that is a multiple
 * of 8, the objects covering the output exactly, their bytes the provider's,
 * the padding zero. The host then validates the padded result with the
 * reader, as here. (A result the reader accepted before padding may be
 * refused after it: an object with NumInstances 0 and 4 or more bytes of
 * padding has a counter block of ByteLength 0. Refused is safe: the host
 * disables the provider.) */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "perflib/block.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20)) return 0;
    uint32_t nobj = data[0];
    const uint8_t *in = data + 1;
    uint32_t bytes = (uint32_t)(size - 1);
    (void)pl__host_needs_align(in, bytes, nobj);
    uint8_t *out = NULL;
    size_t len = 0;
    char why[200];
    if (pl__host_align8(in, bytes, nobj, &out, &len, why, sizeof why) != PL_OK) {
        if (out) abort();
        return 0;
    }
    if (len % 8) abort();
    size_t off = 0, src = 0;
    for (uint32_t i = 0; i < nobj; i++) {
        uint32_t t, orig;
        if (len - off < 64) abort();
        memcpy(&t, out + off, 4);
        memcpy(&orig, in + src, 4);
        if (t % 8 || t < orig || t - orig > 7 || t > len - off) abort();
        if (memcmp(out + off + 4, in + src + 4, orig - 4) != 0) abort();
        for (uint32_t k = orig; k < t; k++)
            if (out[off + k]) abort();
        off += t;
        src += orig;
    }
    if (off != len) abort();
    pl_block b;
    pl_error err;
    (void)pl_block_open(&b, out, len, PL_BLOCK_BARE, nobj, &err);
    free(out);
    return 0;
}
