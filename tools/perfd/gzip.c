/* perfd: gzip answers (perfd.h, "compression"). Prometheus asks for gzip
 * on every scrape; /metrics and /v1/json answer in it when asked.
 * libdeflate compresses the whole answer at once: at level 1 it is about
 * 2.3 times as fast as zlib's fastest level on /metrics text (4.2 MB: 7 ms
 * against 17 here, and a smaller result), and the compression is most of a
 * large scrape's time after the collection. */
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perfd.h"

#define GZIP_LEVEL 1

int perfd_gzip(const char *in, size_t n, char **out, size_t *outlen)
{
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(GZIP_LEVEL);
    if (!c) return -1;
    size_t cap = libdeflate_gzip_compress_bound(c, n);
    char *buf = malloc(cap ? cap : 1);
    size_t got = buf ? libdeflate_gzip_compress(c, in, n, buf, cap) : 0;
    libdeflate_free_compressor(c);
    if (!got) {
        free(buf);
        return -1;
    }
    *out = buf;
    *outlen = got;
    return 0;
}

/* The q-value of a coding in an Accept-Encoding header (-1 when absent). */
static double coding_q(const char *h, const char *coding)
{
    double best = -1;
    const char *p = h;
    while (p && *p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        while (n && (*p == ' ' || *p == '\t')) {
            p++;
            n--;
        }
        size_t tl = 0;
        while (tl < n && p[tl] != ';' && p[tl] != ' ' && p[tl] != '\t') tl++;
        if (tl == strlen(coding) && strncasecmp(p, coding, tl) == 0) {
            double q = 1;
            for (size_t i = tl; i + 1 < n; i++) {
                if ((p[i] != 'q' && p[i] != 'Q') || p[i + 1] != '=') continue;
                q = 0;
                double scale = 0;
                for (size_t j = i + 2; j < n && ((p[j] >= '0' && p[j] <= '9') || p[j] == '.'); j++) {
                    if (p[j] == '.') scale = 0.1;
                    else if (scale > 0) {
                        q += (p[j] - '0') * scale;
                        scale /= 10;
                    } else q = q * 10 + (p[j] - '0');
                }
                break;
            }
            if (q > best) best = q;
        }
        if (!e) break;
        p = e + 1;
    }
    return best;
}

int perfd_gzip_accepted(const char *h)
{
    if (!h) return 0;
    double q = coding_q(h, "gzip");
    if (q < 0) q = coding_q(h, "x-gzip");
    if (q < 0) q = coding_q(h, "*");
    return q > 0;
}

int perfd_accepts_gzip(perfd_req *r)
{
    return perfd_gzip_accepted(MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING));
}
