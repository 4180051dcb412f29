/* perflib counter logs: frame headers, varints, the delta codec and payload
 * packing (docs/counter-log.md). Everything that reads here reads bytes
 * from a file that may be truncated or damaged: every length is checked. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "log_internal.h"

uint32_t pl__crc32(const void *p, size_t n)
{
    uLong c = crc32(0L, Z_NULL, 0);
    const uint8_t *b = p;
    while (n > 0) {
        uInt chunk = n > (1u << 30) ? (1u << 30) : (uInt)n;
        c = crc32(c, b, chunk);
        b += chunk;
        n -= chunk;
    }
    return (uint32_t)c;
}

void pl__frame_put(uint8_t out[PL__FRAME_HDR], const pl__frame *f)
{
    memset(out, 0, PL__FRAME_HDR);
    pl__wr32(out, PL__FRAME_SYNC);
    out[4] = f->kind;
    out[5] = f->flags;
    pl__wr32(out + 8, f->stored);
    pl__wr32(out + 12, f->decoded);
    pl__wr64(out + 16, (uint64_t)f->time);
    pl__wr64(out + 24, f->key_off);
    pl__wr32(out + 32, f->crc);
    pl__wr32(out + 36, pl__crc32(out, 36));
}

int pl__frame_get(const uint8_t in[PL__FRAME_HDR], pl__frame *f)
{
    if (pl__rd32(in) != PL__FRAME_SYNC || pl__rd32(in + 36) != pl__crc32(in, 36)) return -1;
    f->kind = in[4];
    f->flags = in[5];
    f->stored = pl__rd32(in + 8);
    f->decoded = pl__rd32(in + 12);
    f->time = (int64_t)pl__rd64(in + 16);
    f->key_off = pl__rd64(in + 24);
    f->crc = pl__rd32(in + 32);
    if (f->kind < PL__KIND_HEADER || f->kind > PL__KIND_GAP || (f->flags & ~PL__FLAG_DEFLATE) ||
        pl__rd16(in + 6) != 0 || f->stored > PL__LOG_MAX_PAYLOAD || f->decoded > PL__LOG_MAX_DECODED)
        return -1;
    return 0;
}

/* ------------------------------------------------------------ buffers */

static size_t put_varint(uint8_t *o, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        o[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    o[n++] = (uint8_t)v;
    return n;
}

int pl__log_varint(pl__buf *b, uint64_t v)
{
    if (pl__buf_reserve(b, 10)) return PL_E_NOMEM;
    b->len += put_varint((uint8_t *)b->p + b->len, v);
    return PL_OK;
}

int pl__log_str(pl__buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (pl__log_varint(b, n)) return PL_E_NOMEM;
    return n ? pl__buf_append(b, s, n) : PL_OK;
}

/* ------------------------------------------------------------- reader */

int pl__rd_varint(pl__rd *r, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (r->pos >= r->len) break;
        uint8_t c = r->p[r->pos++];
        if (shift == 63 && c > 1) break;
        x |= (uint64_t)(c & 0x7F) << shift;
        if (!(c & 0x80)) {
            *v = x;
            return 0;
        }
    }
    r->bad = 1;
    return -1;
}

int pl__rd_bytes(pl__rd *r, const uint8_t **p, size_t n)
{
    if (r->bad || n > r->len - r->pos) {
        r->bad = 1;
        return -1;
    }
    *p = r->p + r->pos;
    r->pos += n;
    return 0;
}

int pl__rd_str(pl__rd *r, char **s)
{
    uint64_t n;
    const uint8_t *p;
    *s = NULL;
    if (pl__rd_varint(r, &n) || n > r->len - r->pos || pl__rd_bytes(r, &p, (size_t)n)) {
        r->bad = 1;
        return -1;
    }
    if (memchr(p, 0, (size_t)n)) {
        r->bad = 1;
        return -1;
    }
    *s = malloc((size_t)n + 1);
    if (!*s) {
        r->bad = 1;
        return -1;
    }
    memcpy(*s, p, (size_t)n);
    (*s)[n] = '\0';
    return 0;
}

/* -------------------------------------------------------- delta codec */

/* Word i of a buffer of len bytes, zero-padded past the end. */
static uint64_t word_at(const uint8_t *b, size_t len, size_t i)
{
    size_t off = i * 8;
    if (!b || off >= len) return 0;
    if (len - off >= 8) return pl__rd64(b + off);
    uint8_t t[8] = {0};
    memcpy(t, b + off, len - off);
    return pl__rd64(t);
}

/* Tokens: one varint per word, the zigzag of (word - key word) as a signed
 * 64-bit difference; a 0 is followed by a varint count of further zero
 * words (so a run of n zero words costs 2 bytes or a little more). */
int pl__delta_encode(const uint8_t *cur, size_t len, const uint8_t *key, size_t keylen, pl__buf *out)
{
    size_t nw = (len + 7) / 8;
    if (pl__buf_reserve(out, 16)) return PL_E_NOMEM;
    size_t i = 0;
    while (i < nw) {
        if (pl__buf_reserve(out, 20)) return PL_E_NOMEM;
        uint64_t d = word_at(cur, len, i) - word_at(key, keylen, i);
        uint64_t z = pl__zigzag((int64_t)d);
        if (z != 0) {
            out->len += put_varint((uint8_t *)out->p + out->len, z);
            i++;
            continue;
        }
        size_t run = 1;
        while (i + run < nw && word_at(cur, len, i + run) == word_at(key, keylen, i + run)) run++;
        out->p[out->len++] = 0;
        out->len += put_varint((uint8_t *)out->p + out->len, run - 1);
        i += run;
    }
    return PL_OK;
}

int pl__delta_decode(const uint8_t *tok, size_t ntok, const uint8_t *key, size_t keylen, uint8_t *out, size_t len)
{
    size_t nw = (len + 7) / 8;
    pl__rd r = {tok, ntok, 0, 0};
    size_t i = 0;
    while (i < nw) {
        uint64_t z;
        if (pl__rd_varint(&r, &z)) return -1;
        if (z != 0) {
            pl__wr64(out + i * 8, word_at(key, keylen, i) + (uint64_t)pl__unzigzag(z));
            i++;
            continue;
        }
        uint64_t more;
        if (pl__rd_varint(&r, &more) || more >= nw - i) return -1;
        for (uint64_t k = 0; k <= more; k++, i++) pl__wr64(out + i * 8, word_at(key, keylen, i));
    }
    if (r.pos != r.len) return -1;
    /* the padding of the last word must be zero: it is not data */
    for (size_t b = len; b < nw * 8; b++)
        if (out[b] != 0) return -1;
    return 0;
}

/* ------------------------------------------------------------ packing */

int pl__pack(const pl__buf *tokens, pl__buf *payload, uint8_t *flags)
{
    payload->len = 0;
    *flags = 0;
    if (tokens->len >= 256 && tokens->len <= UINT32_MAX) {
        uLong bound = compressBound((uLong)tokens->len);
        if (pl__buf_reserve(payload, 4 + (size_t)bound)) return PL_E_NOMEM;
        uLongf outlen = bound;
        if (compress2((Bytef *)payload->p + 4, &outlen, (const Bytef *)tokens->p, (uLong)tokens->len, 1) == Z_OK &&
            outlen + 4 < tokens->len) {
            pl__wr32(payload->p, (uint32_t)tokens->len);
            payload->len = 4 + (size_t)outlen;
            *flags = PL__FLAG_DEFLATE;
            return PL_OK;
        }
    }
    return pl__buf_append(payload, tokens->p, tokens->len);
}

int pl__unpack(const uint8_t *payload, size_t n, uint8_t flags, size_t max, uint8_t **tokens, size_t *ntok)
{
    *tokens = NULL;
    *ntok = 0;
    if (!(flags & PL__FLAG_DEFLATE)) {
        if (n > max) return -1;
        *tokens = malloc(n ? n : 1);
        if (!*tokens) return -1;
        if (n) memcpy(*tokens, payload, n);
        *ntok = n;
        return 0;
    }
    if (n < 4) return -1;
    uint32_t tl = pl__rd32(payload);
    if (tl == 0 || tl > max) return -1;
    uint8_t *t = malloc(tl);
    if (!t) return -1;
    uLongf outlen = tl;
    if (uncompress(t, &outlen, payload + 4, (uLong)(n - 4)) != Z_OK || outlen != tl) {
        free(t);
        return -1;
    }
    *tokens = t;
    *ntok = tl;
    return 0;
}
