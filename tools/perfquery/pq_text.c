/* perfquery: text helpers. See pq_text.h. */
#include "pq_text.h"

#include <stdlib.h>

/* Length of the well-formed UTF-8 sequence at s (1..4), or 0 if the bytes at
 * s do not start one; *cp receives the code point. */
static size_t utf8_seq(const unsigned char *s, uint32_t *cp)
{
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t len;
    uint32_t v, min;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        v = c & 0x1Fu;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        v = c & 0x0Fu;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        v = c & 0x07u;
        min = 0x10000;
    } else {
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0u) != 0x80u) return 0; /* also stops at the NUL */
        v = (v << 6) | (s[i] & 0x3Fu);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
    *cp = v;
    return len;
}

void pq_json_string(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    while (*p) {
        uint32_t cp = 0;
        size_t n = utf8_seq(p, &cp);
        if (n == 0) {
            fputs("\\ufffd", f);
            p++;
            continue;
        }
        switch (cp) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        case 0x2028: fputs("\\u2028", f); break;
        case 0x2029: fputs("\\u2029", f); break;
        default:
            if (cp < 0x20)
                fprintf(f, "\\u%04x", (unsigned)cp);
            else
                fwrite(p, 1, n, f);
        }
        p += n;
    }
    fputc('"', f);
}

void pq_plain_string(FILE *f, const char *s)
{
    if (!s) {
        fputs("(null)", f);
        return;
    }
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20 || *p == 0x7F)
                fprintf(f, "\\x%02x", (unsigned)*p);
            else
                fputc(*p, f);
        }
    }
}

char *pq_utf16le_to_utf8(const uint8_t *p, size_t n)
{
    /* At most 3 bytes per code unit (a pair of units makes 4 bytes). */
    if (n > (SIZE_MAX - 1) / 3) return NULL;
    char *out = malloc(n * 3 + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)p[2 * i] | ((uint32_t)p[2 * i + 1] << 8);
        if (u == 0) break;
        uint32_t cp = u;
        if (u >= 0xD800 && u <= 0xDBFF && i + 1 < n) {
            uint32_t lo = (uint32_t)p[2 * i + 2] | ((uint32_t)p[2 * i + 3] << 8);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                cp = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                i++;
            } else {
                cp = 0xFFFD;
            }
        } else if (u >= 0xD800 && u <= 0xDFFF) {
            cp = 0xFFFD;
        }
        if (cp < 0x80) {
            out[o++] = (char)cp;
        } else if (cp < 0x800) {
            out[o++] = (char)(0xC0 | (cp >> 6));
            out[o++] = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out[o++] = (char)(0xE0 | (cp >> 12));
            out[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (cp & 0x3F));
        } else {
            out[o++] = (char)(0xF0 | (cp >> 18));
            out[o++] = (char)(0x80 | ((cp >> 12) & 0x3F));
            out[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    out[o] = '\0';
    return out;
}

void pq_filetime_to_civil(uint64_t ft, pq_civil *out)
{
    uint64_t ms = ft / 10000u;
    out->millis = (unsigned)(ms % 1000u);
    uint64_t secs = ms / 1000u;
    out->second = (unsigned)(secs % 60u);
    out->minute = (unsigned)(secs / 60u % 60u);
    out->hour = (unsigned)(secs / 3600u % 24u);
    /* Days since 1601-01-01 -> days since 0000-03-01, then the usual
     * era/year-of-era arithmetic of the proleptic Gregorian calendar. */
    uint64_t days = secs / 86400u + 584694u; /* 1601-01-01 is day 584694 from 0000-03-01 */
    uint64_t era = days / 146097u;
    uint64_t doe = days - era * 146097u;
    uint64_t yoe = (doe - doe / 1460u + doe / 36524u - doe / 146096u) / 365u;
    uint64_t doy = doe - (365u * yoe + yoe / 4u - yoe / 100u);
    uint64_t mp = (5u * doy + 2u) / 153u;
    uint64_t d = doy - (153u * mp + 2u) / 5u + 1u;
    uint64_t m = mp < 10u ? mp + 3u : mp - 9u;
    uint64_t y = yoe + era * 400u + (m <= 2u ? 1u : 0u);
    out->year = (unsigned)y;
    out->month = (unsigned)m;
    out->day = (unsigned)d;
}
