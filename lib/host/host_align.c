/* perflib: the host's multiple-of-8 rule as Windows applies it.
 *
 * Windows' perflib expects every object a provider returns to be a multiple
 * of 8 bytes long; when one is not, it logs a warning (event 1016) and keeps
 * the data, padded so the next object starts 8-aligned. Several shipping
 * providers rely on that. pl__host_align8 does the same: each object is
 * copied to an 8-aligned offset of a new buffer, followed by zero bytes up to the
 * next multiple of 8, and its TotalByteLength is raised to that padded
 * length, so a consumer that walks objects by TotalByteLength (every
 * Windows reader does) finds the next one where it is.
 *
 * Everything read here comes from a provider and is hostile: an object is
 * taken only when its 64-byte header and its whole TotalByteLength lie inside
 * the bytes returned; the caller then validates the padded result with the
 * reader (pl_block_open) as it validates any other result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "perflib/winperf.h"
#include "pl_internal.h"

int pl__host_needs_align(const uint8_t *data, uint32_t bytes, uint32_t nobj)
{
    if (bytes % 8) return 1;
    size_t off = 0;
    for (uint32_t i = 0; i < nobj; i++) {
        if (bytes - off < 4) return 0; /* the reader will say what is wrong */
        uint32_t t = pl__rd32(data + off);
        if (t % 8) return 1;
        if (t == 0 || t > bytes - off) return 0;
        off += t;
    }
    return 0;
}

/* One pass over the objects: their offsets are checked, and *total is the
 * padded length. */
static int measure(const uint8_t *data, uint32_t bytes, uint32_t nobj, size_t *total, char *why, size_t whylen)
{
    size_t off = 0;
    *total = 0;
    for (uint32_t i = 0; i < nobj; i++) {
        if ((size_t)bytes - off < sizeof(PERF_OBJECT_TYPE)) {
            snprintf(why, whylen, "object %u at offset %zu: fewer than 64 bytes left", i, off);
            return PL_E_BAD_BLOCK;
        }
        uint32_t t = pl__rd32(data + off);
        if (t < sizeof(PERF_OBJECT_TYPE) || t > (size_t)bytes - off) {
            snprintf(why, whylen, "object %u at offset %zu: TotalByteLength %u outside the %u bytes returned", i,
                     off, t, bytes);
            return PL_E_BAD_BLOCK;
        }
        *total += pl__align8(t);
        off += t;
    }
    if (*total > UINT32_MAX) {
        snprintf(why, whylen, "the padded objects pass 4 GiB");
        return PL_E_BAD_BLOCK;
    }
    return PL_OK;
}

int pl__host_align8(const uint8_t *data, uint32_t bytes, uint32_t nobj, uint8_t **out, size_t *outlen, char *why,
                    size_t whylen)
{
    *out = NULL;
    *outlen = 0;
    size_t total = 0;
    int rc = measure(data, bytes, nobj, &total, why, whylen);
    if (rc != PL_OK) return rc;
    uint8_t *o = calloc(1, total ? total : 1);
    if (!o) return PL_E_NOMEM;
    size_t off = 0, at = 0;
    for (uint32_t i = 0; i < nobj; i++) {
        uint32_t t = pl__rd32(data + off);
        size_t padded = pl__align8(t);
        memcpy(o + at, data + off, t); /* the rest of [at, at + padded) stays 0 */
        pl__wr32(o + at, (uint32_t)padded);
        at += padded;
        off += t;
    }
    /* What follows the last object (a provider that rounded *bytes up, or
     * padding of its own) is not data: the objects end at `total`. */
    *out = o;
    *outlen = total;
    return PL_OK;
}
