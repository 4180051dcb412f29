/* perflib: UTF-8 <-> UTF-16LE conversion and case-insensitive comparison. */
#include <stdlib.h>
#include <string.h>

#include "pl_internal.h"

/* Decode one code point; returns the bytes used, or 0 for invalid input. */
static size_t utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t n;
    uint32_t v, min;
    if ((c & 0xE0) == 0xC0) { n = 2; v = c & 0x1F; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { n = 3; v = c & 0x0F; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { n = 4; v = c & 0x07; min = 0x10000; }
    else return 0;
    if (len < n) return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
    *cp = v;
    return n;
}

int pl__utf8_to_utf16(const char *s, size_t len, uint16_t *out, size_t cap, size_t *units)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, u = 0;
    int more = 0;
    while (i < len) {
        uint32_t cp;
        size_t n = utf8_decode(p + i, len - i, &cp);
        if (n == 0) {
            *units = 0;
            return PL_E_ENCODING;
        }
        i += n;
        if (cp >= 0x10000) {
            if (u + 2 <= cap) {
                cp -= 0x10000;
                out[u] = (uint16_t)(0xD800 | (cp >> 10));
                out[u + 1] = (uint16_t)(0xDC00 | (cp & 0x3FF));
            } else {
                more = 1;
            }
            u += 2;
        } else {
            if (u + 1 <= cap) out[u] = (uint16_t)cp;
            else more = 1;
            u += 1;
        }
    }
    *units = u;
    return more ? PL_E_MORE_DATA : PL_OK;
}

size_t pl__utf8_encode(uint32_t cp, char *b)
{
    if (cp < 0x80) { b[0] = (char)cp; return 1; }
    if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    b[0] = (char)(0xF0 | (cp >> 18));
    b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    b[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

int pl__utf16_to_utf8(const void *src, size_t n, char *out, size_t cap, size_t *bytes, int lenient)
{
    const unsigned char *p = src;
    size_t w = 0, pos = 0;
    int more = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t cp = pl__rd16(p + 2 * i);
        if (cp == 0) break;
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < n) {
            uint32_t lo = pl__rd16(p + 2 * (i + 1));
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                i++;
            }
        }
        if (cp >= 0xD800 && cp <= 0xDFFF) {
            if (!lenient) {
                *bytes = 0;
                if (cap) out[0] = '\0';
                return PL_E_ENCODING;
            }
            cp = 0xFFFD;
        }
        char b[4];
        size_t k = pl__utf8_encode(cp, b);
        /* Only whole sequences are written, and nothing after the first one
         * that does not fit, so a truncated result is still valid UTF-8. */
        if (!more && cap > 0 && w + k <= cap - 1) {
            memcpy(out + w, b, k);
            pos = w + k;
        } else {
            more = 1;
        }
        w += k;
    }
    if (cap > 0) out[pos] = '\0';
    *bytes = w;
    return more ? PL_E_MORE_DATA : PL_OK;
}

int pl__utf8_to_utf16_dup(const char *s, uint16_t **out, size_t *units)
{
    size_t len = strlen(s), need = 0;
    int rc = pl__utf8_to_utf16(s, len, NULL, 0, &need);
    if (rc == PL_E_ENCODING) return rc;
    uint16_t *buf = malloc((need + 1) * sizeof *buf);
    if (!buf) return PL_E_NOMEM;
    rc = pl__utf8_to_utf16(s, len, buf, need, &need);
    if (rc != PL_OK) {
        free(buf);
        return rc;
    }
    buf[need] = 0;
    *out = buf;
    if (units) *units = need;
    return PL_OK;
}

int pl__utf16_to_utf8_dup(const void *src, size_t n, char **out, int lenient)
{
    size_t need = 0;
    int rc = pl__utf16_to_utf8(src, n, NULL, 0, &need, lenient);
    if (rc == PL_E_ENCODING) return rc;
    char *buf = malloc(need + 1);
    if (!buf) return PL_E_NOMEM;
    rc = pl__utf16_to_utf8(src, n, buf, need + 1, &need, lenient);
    if (rc != PL_OK) {
        free(buf);
        return rc;
    }
    *out = buf;
    return PL_OK;
}

static uint32_t fold(uint32_t c)
{
    if (c >= 'A' && c <= 'Z') return c + 32;
    if ((c >= 0xC0 && c <= 0xDE && c != 0xD7)) return c + 32;      /* Latin-1 */
    if (c >= 0x100 && c <= 0x17F && c != 0x130 && c != 0x131 && c != 0x138 && c != 0x149 &&
        c != 0x17F) {                                               /* Latin Ext-A pairs */
        if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c & 1) ? c + 1 : c;
        return c | 1;
    }
    if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 32;      /* Greek */
    if (c >= 0x410 && c <= 0x42F) return c + 32;                    /* Cyrillic */
    if (c >= 0x400 && c <= 0x40F) return c + 80;
    return c;
}

int pl__utf8_casecmp(const char *a, const char *b)
{
    const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
    size_t la = strlen(a), lb = strlen(b);
    for (;;) {
        if (la == 0 || lb == 0) return (la > 0) - (lb > 0);
        if (*p < 0x80 && *q < 0x80) {
            /* ASCII on both sides (almost every title): what the decoding
             * and fold() below give, without them. */
            uint32_t ca = *p, cb = *q;
            if (ca >= 'A' && ca <= 'Z') ca += 32;
            if (cb >= 'A' && cb <= 'Z') cb += 32;
            if (ca != cb) return ca < cb ? -1 : 1;
            p++; la--;
            q++; lb--;
            continue;
        }
        uint32_t ca, cb;
        size_t na = utf8_decode(p, la, &ca), nb = utf8_decode(q, lb, &cb);
        if (na == 0) { ca = *p; na = 1; }
        if (nb == 0) { cb = *q; nb = 1; }
        ca = fold(ca);
        cb = fold(cb);
        if (ca != cb) return ca < cb ? -1 : 1;
        p += na; la -= na;
        q += nb; lb -= nb;
    }
}

/* The next code point of [p, p + n), folded; 0 bytes at the end. */
static size_t next_folded(const unsigned char *p, size_t n, uint32_t *c)
{
    if (n == 0) return 0;
    size_t k = utf8_decode(p, n, c);
    if (k == 0) { *c = *p; k = 1; }
    *c = fold(*c);
    return k;
}

int pl__utf8_casematch(const char *pattern, const char *s)
{
    const unsigned char *p = (const unsigned char *)pattern, *q = (const unsigned char *)s;
    size_t lp = strlen(pattern), lq = strlen(s);
    /* the classic linear-backtracking match for '*': remember the last star
     * and the text position it stands for, retry one code point later */
    const unsigned char *star = NULL, *mark = NULL;
    size_t lstar = 0, lmark = 0;
    for (;;) {
        if (lq == 0) {
            while (lp && *p == '*') { p++; lp--; }
            return lp == 0;
        }
        if (lp && *p == '*') {
            star = ++p;
            lstar = --lp;
            mark = q;
            lmark = lq;
            continue;
        }
        uint32_t cp = 0, cq = 0;
        size_t np = next_folded(p, lp, &cp), nq = next_folded(q, lq, &cq);
        if (np && cp == cq) {
            p += np; lp -= np;
            q += nq; lq -= nq;
            continue;
        }
        if (!star) return 0;
        size_t skip = next_folded(mark, lmark, &cq);
        mark += skip;
        lmark -= skip;
        p = star; lp = lstar;
        q = mark; lq = lmark;
    }
}

int pl__grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return PL_OK;
    if (elem == 0) return PL_E_NOMEM;
    size_t nc = *cap ? *cap : 16;
    while (nc < need) {
        if (nc > SIZE_MAX / 2) return PL_E_NOMEM;
        nc *= 2;
    }
    if (nc > SIZE_MAX / elem) return PL_E_NOMEM;
    void *p = realloc(*arr, nc * elem);
    if (!p) return PL_E_NOMEM;
    memset((char *)p + *cap * elem, 0, (nc - *cap) * elem);
    *arr = p;
    *cap = nc;
    return PL_OK;
}

char *pl__strdup(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}
