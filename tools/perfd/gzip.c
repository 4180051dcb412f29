/* perfd: gzip answers (perfd.h, "compression"). Prometheus asks for gzip
 * on every scrape; /metrics and /v1/json answer in it when asked. zlib
 * does the work, a chunk at a time, as the answer is made. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "perfd.h"
#include "webbuf.h"

/* Level 1: the text is very repetitive (the same names and labels on every
 * line), so the fastest level already gains most of the ratio
 * (bench/run-metrics.sh prints both sizes). */
#define GZIP_LEVEL 1

struct perfd_gzip {
    z_stream z;
    wb out;
    int failed;
};

perfd_gzip *perfd_gzip_new(void)
{
    perfd_gzip *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    /* 15 + 16: a 32 KiB window with the gzip header and trailer */
    if (deflateInit2(&g->z, GZIP_LEVEL, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(g);
        return NULL;
    }
    return g;
}

static int run(perfd_gzip *g, const char *p, size_t n, int flush)
{
    if (g->failed) return -1;
    if (n > 0x7fffffffu) {
        g->failed = 1;
        return -1;
    }
    g->z.next_in = (Bytef *)(uintptr_t)p;
    g->z.avail_in = (uInt)n;
    for (;;) {
        const size_t room = 65536;
        if (wb_reserve(&g->out, room) != 0) {
            g->failed = 1;
            return -1;
        }
        g->z.next_out = (Bytef *)g->out.p + g->out.len;
        g->z.avail_out = (uInt)room;
        int rc = deflate(&g->z, flush);
        if (rc == Z_STREAM_ERROR) {
            g->failed = 1;
            return -1;
        }
        g->out.len += room - g->z.avail_out;
        if (flush == Z_FINISH ? rc == Z_STREAM_END : g->z.avail_in == 0 && g->z.avail_out != 0) break;
    }
    return 0;
}

int perfd_gzip_add(void *z, const char *p, size_t n)
{
    return n ? run(z, p, n, Z_NO_FLUSH) : 0;
}

int perfd_gzip_finish(perfd_gzip *g, char **out, size_t *len)
{
    int rc = -1;
    if (run(g, "", 0, Z_FINISH) == 0 && !g->failed) {
        *out = g->out.p;
        *len = g->out.len;
        g->out.p = NULL;
        rc = 0;
    }
    perfd_gzip_free(g);
    return rc;
}

void perfd_gzip_free(perfd_gzip *g)
{
    if (!g) return;
    deflateEnd(&g->z);
    wb_free(&g->out);
    free(g);
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
