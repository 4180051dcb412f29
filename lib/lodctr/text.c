/* perflib lodctr: reading text files in the encodings real .ini, .h and
 * backup files use, and splitting them into lines. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lodctr_int.h"

#define LC_MAX_FILE (64u * 1024u * 1024u)


/* Windows-1252 bytes 0x80-0x9F as Unicode code points. The five bytes the
 * code page leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) map to the C1
 * control of the same value, as Windows' own conversion does. */
static const uint16_t cp1252_80_9f[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, /* 80-87 */
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F, /* 88-8F */
    0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, /* 90-97 */
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178, /* 98-9F */
};

/* Line number (1-based) of the code unit `pos` of a UTF-16 text, counting
 * LF and lone CR as line ends. */
static unsigned utf16_line_of(const unsigned char *d, size_t pos, int be)
{
    unsigned line = 1;
    for (size_t i = 0; i < pos; i++) {
        uint16_t u = be ? (uint16_t)(d[2 * i] << 8 | d[2 * i + 1]) : (uint16_t)(d[2 * i] | d[2 * i + 1] << 8);
        if (u == '\n') line++;
        else if (u == '\r') {
            uint16_t nx = 0;
            if (i + 1 < pos) nx = be ? (uint16_t)(d[2 * i + 2] << 8 | d[2 * i + 3])
                                     : (uint16_t)(d[2 * i + 2] | d[2 * i + 3] << 8);
            if (nx != '\n') line++;
        }
    }
    return line;
}

static int decode_utf16(const unsigned char *d, size_t len, int be, const char *name, char **out, size_t *outlen,
                        pl_error *err)
{
    if (len % 2)
        return pl__fail(err, PL_E_ENCODING, "%s: truncated UTF-16 text (odd number of bytes: %zu)", name, len);
    size_t units = len / 2;
    if (units > (SIZE_MAX - 1) / 3) return pl__fail(err, PL_E_NOMEM, "%s: file too large", name);
    char *buf = malloc(units * 3 + 1);
    if (!buf) return pl__fail(err, PL_E_NOMEM, "%s: out of memory", name);
    size_t w = 0;
    for (size_t i = 0; i < units; i++) {
        uint32_t u = be ? (uint32_t)(d[2 * i] << 8 | d[2 * i + 1]) : (uint32_t)(d[2 * i] | d[2 * i + 1] << 8);
        if (u == 0) {
            free(buf);
            return pl__fail(err, PL_E_ENCODING, "%s:%u: NUL character in text", name, utf16_line_of(d, i, be));
        }
        if (u >= 0xD800 && u <= 0xDBFF) {
            uint32_t lo = 0;
            if (i + 1 < units)
                lo = be ? (uint32_t)(d[2 * i + 2] << 8 | d[2 * i + 3]) : (uint32_t)(d[2 * i + 2] | d[2 * i + 3] << 8);
            if (lo < 0xDC00 || lo > 0xDFFF) {
                free(buf);
                return pl__fail(err, PL_E_ENCODING, "%s:%u: unpaired UTF-16 surrogate", name,
                                utf16_line_of(d, i, be));
            }
            u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            i++;
        } else if (u >= 0xDC00 && u <= 0xDFFF) {
            free(buf);
            return pl__fail(err, PL_E_ENCODING, "%s:%u: unpaired UTF-16 surrogate", name, utf16_line_of(d, i, be));
        }
        w += pl__utf8_encode(u, buf + w);
    }
    buf[w] = '\0';
    *out = buf;
    *outlen = w;
    return PL_OK;
}

static int is_utf8(const unsigned char *d, size_t len)
{
    size_t units = 0;
    int rc = pl__utf8_to_utf16((const char *)d, len, NULL, 0, &units);
    return rc != PL_E_ENCODING;
}

/* Copy 8-bit text (UTF-8 or Windows-1252) up to an 0x1A, rejecting NULs. */
static int decode_8bit(const unsigned char *d, size_t len, const char *name, int force_utf8, char **out,
                       size_t *outlen, pl_error *err)
{
    const unsigned char *eof = memchr(d, 0x1A, len);
    if (eof) len = (size_t)(eof - d);
    const unsigned char *nul = memchr(d, 0, len);
    if (nul) {
        unsigned line = 1;
        for (const unsigned char *q = d; q < nul; q++)
            if (*q == '\n' || (*q == '\r' && (q + 1 >= nul || q[1] != '\n'))) line++;
        return pl__fail(err, PL_E_ENCODING, "%s:%u: NUL byte in text", name, line);
    }
    int utf8 = is_utf8(d, len);
    if (force_utf8 && !utf8)
        return pl__fail(err, PL_E_ENCODING, "%s: invalid UTF-8 after a UTF-8 byte-order mark", name);
    if (len > (SIZE_MAX - 1) / 3) return pl__fail(err, PL_E_NOMEM, "%s: file too large", name);
    char *buf = malloc(utf8 ? len + 1 : len * 3 + 1);
    if (!buf) return pl__fail(err, PL_E_NOMEM, "%s: out of memory", name);
    size_t w = 0;
    if (utf8) {
        memcpy(buf, d, len);
        w = len;
    } else {
        for (size_t i = 0; i < len; i++) {
            uint32_t c = d[i];
            if (c >= 0x80 && c <= 0x9F) c = cp1252_80_9f[c - 0x80];
            w += pl__utf8_encode(c, buf + w);
        }
    }
    buf[w] = '\0';
    *out = buf;
    *outlen = w;
    return PL_OK;
}

int pl__lc_decode(const void *data, size_t len, const char *name, char **out, size_t *outlen, int *was_utf16,
                  pl_error *err)
{
    const unsigned char *d = data;
    if (was_utf16) *was_utf16 = 0;
    if (!d) len = 0;
    if (!d || len == 0) d = (const unsigned char *)"";
    if (len >= 3 && d[0] == 0xEF && d[1] == 0xBB && d[2] == 0xBF)
        return decode_8bit(d + 3, len - 3, name, 1, out, outlen, err);
    if (len >= 2 && ((d[0] == 0xFF && d[1] == 0xFE) || (d[0] == 0xFE && d[1] == 0xFF))) {
        if (was_utf16) *was_utf16 = 1;
        return decode_utf16(d + 2, len - 2, d[0] == 0xFE, name, out, outlen, err);
    }
    /* No BOM: UTF-16 shows as NUL bytes in every other position for ASCII
     * text. Look at the first 1 KiB. */
    size_t look = len < 1024 ? len : 1024;
    size_t pairs = look / 2, zero_odd = 0, zero_even = 0;
    for (size_t i = 0; i < pairs; i++) {
        if (d[2 * i] == 0 && d[2 * i + 1] != 0) zero_even++;
        if (d[2 * i + 1] == 0 && d[2 * i] != 0) zero_odd++;
    }
    /* 8-bit text never holds NUL bytes, so any NUL means UTF-16. The first
     * character decides the byte order when it is ASCII (every real file and
     * every file we write starts with CR, '[' or a letter), else the side
     * with more NULs. */
    if (pairs > 0 && memchr(d, 0, look)) {
        int be;
        if (d[0] != 0 && d[1] == 0) be = 0;
        else if (d[0] == 0 && d[1] != 0) be = 1;
        else be = zero_even > zero_odd;
        if (was_utf16) *was_utf16 = 1;
        return decode_utf16(d, len, be, name, out, outlen, err);
    }
    return decode_8bit(d, len, name, 0, out, outlen, err);
}

int pl__lc_read_file(const char *path, unsigned char **out, size_t *len, pl_error *err)
{
    char eb[128];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return pl__fail(err, PL_E_IO, "%s: cannot open: %s", path, pl__strerror(errno, eb, sizeof eb));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return pl__fail(err, PL_E_IO, "%s: not a regular file", path);
    }
    if ((uint64_t)sb.st_size > LC_MAX_FILE) {
        close(fd);
        return pl__fail(err, PL_E_IO, "%s: file too large (%lld bytes)", path, (long long)sb.st_size);
    }
    size_t cap = (size_t)sb.st_size + 1, n = 0;
    unsigned char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        return pl__fail(err, PL_E_NOMEM, "%s: out of memory", path);
    }
    for (;;) {
        if (n == cap) {
            if (cap >= LC_MAX_FILE) {
                free(buf);
                close(fd);
                return pl__fail(err, PL_E_IO, "%s: file too large", path);
            }
            unsigned char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                close(fd);
                return pl__fail(err, PL_E_NOMEM, "%s: out of memory", path);
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            free(buf);
            close(fd);
            return pl__fail(err, PL_E_IO, "%s: cannot read: %s", path, pl__strerror(e, eb, sizeof eb));
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    close(fd);
    *out = buf;
    *len = n;
    return PL_OK;
}

void pl__lc_lines_init(pl__lc_lines *it, const char *text, size_t len)
{
    it->p = text;
    it->end = text + len;
    it->line = 0;
    it->crlf_only = 0;
}

int pl__lc_next_line(pl__lc_lines *it, const char **s, size_t *n)
{
    if (it->p >= it->end) return 0;
    const char *b = it->p, *e = b;
    if (it->crlf_only) {
        while (e < it->end && !(*e == '\r' && e + 1 < it->end && e[1] == '\n')) e++;
    } else {
        while (e < it->end && *e != '\n' && *e != '\r') e++;
    }
    *s = b;
    *n = (size_t)(e - b);
    if (e < it->end) {
        if (*e == '\r' && e + 1 < it->end && e[1] == '\n') e += 2;
        else e++;
    }
    it->p = e;
    it->line++;
    return 1;
}

void pl__lc_trim(const char **s, size_t *n)
{
    const char *p = *s;
    size_t k = *n;
    while (k > 0 && (*p == ' ' || *p == '\t')) {
        p++;
        k--;
    }
    while (k > 0 && (p[k - 1] == ' ' || p[k - 1] == '\t')) k--;
    *s = p;
    *n = k;
}

int pl__lc_eq_ci(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    if (m != n) return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char a = (unsigned char)s[i], b = (unsigned char)lit[i];
        if (a >= 'A' && a <= 'Z') a = (unsigned char)(a + 32);
        if (b >= 'A' && b <= 'Z') b = (unsigned char)(b + 32);
        if (a != b) return 0;
    }
    return 1;
}

char *pl__lc_strndup(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}
