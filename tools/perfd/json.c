/* perfd: GET /v1/json?q=QUERY, the snapshot of /v1/query as JSON.
 *
 * Data blocks use perfquery's JSON dump (tools/perfquery/pq_json.c, schema
 * in docs/perfquery.md) with a first member "schema": "perflib-snapshot/1";
 * title queries ("Counter 009", "Explain 009") become
 * {"schema": "perflib-titles/1", "entries": [{"index": N, "text": "..."}]}.
 * The rendering of the latest snapshot is kept, so clients sharing a
 * snapshot share its JSON too. Rendered on the worker thread (perfd_defer),
 * gzipped when the client asks. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfd.h"
#include "pq_json.h"
#include "pq_text.h"

#define SNAPSHOT_SCHEMA "perflib-snapshot/1"
#define TITLES_SCHEMA "perflib-titles/1"

static struct {
    pthread_mutex_t mu;
    uint64_t seq;
    char *buf;
    size_t len;
} cache = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void titles_json(FILE *f, const uint8_t *p, size_t len)
{
    fputs("{\n  \"schema\": \"" TITLES_SCHEMA "\",\n  \"entries\": [", f);
    size_t units = len / 2u, i = 0;
    int first = 1;
    while (i < units) {
        size_t start = i;
        while (i < units && (p[2 * i] | p[2 * i + 1])) i++;
        if (i == start) break; /* the final empty string */
        char *idx = pq_utf16le_to_utf8(p + 2 * start, i - start);
        i++;
        size_t tstart = i;
        while (i < units && (p[2 * i] | p[2 * i + 1])) i++;
        char *text = pq_utf16le_to_utf8(p + 2 * tstart, i - tstart);
        i++;
        char *end = NULL;
        unsigned long n = idx ? strtoul(idx, &end, 10) : 0;
        if (idx && text && end && !*end && *idx) {
            fprintf(f, "%s\n    {\"index\": %lu, \"text\": ", first ? "" : ",", n);
            pq_json_string(f, text);
            fputs("}", f);
            first = 0;
        }
        free(idx);
        free(text);
    }
    fputs(first ? "]\n}\n" : "\n  ]\n}\n", f);
}

static int render(const perfd_snap *s, char **out, size_t *outlen, char *why, size_t whylen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    if (s->type == PL_REG_MULTI_SZ) {
        titles_json(f, s->data, s->len);
    } else {
        pl_block blk;
        pl_error err;
        memset(&err, 0, sizeof err);
        if (pl_block_open(&blk, s->data, s->len, 0, 0, &err) != PL_OK) {
            fclose(f);
            free(buf);
            snprintf(why, whylen, "the engine's block does not validate: %s", err.msg);
            return -1;
        }
        pq_header_view hv;
        memset(&hv, 0, sizeof hv);
        hv.system_name = blk.system_name;
        hv.num_objects = blk.num_objects;
        const SYSTEMTIME *st = &blk.hdr.SystemTime;
        hv.time.year = st->wYear;
        hv.time.month = st->wMonth;
        hv.time.day = st->wDay;
        hv.time.hour = st->wHour;
        hv.time.minute = st->wMinute;
        hv.time.second = st->wSecond;
        hv.time.millis = st->wMilliseconds;
        hv.perf_time = blk.hdr.PerfTime.QuadPart;
        hv.perf_freq = blk.hdr.PerfFreq.QuadPart;
        hv.perf_time_100ns = blk.hdr.PerfTime100nSec.QuadPart;
        memset(&err, 0, sizeof err);
        const pl_titles *t = pl_engine_titles(perfd_engine(), &err);
        pq_json_dump(f, &blk, &hv, t, SNAPSHOT_SCHEMA);
    }
    if (fclose(f) != 0 || !buf) {
        free(buf);
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    *out = buf;
    *outlen = len;
    return 0;
}

/* One request's answer, made on the worker thread. */
typedef struct jjob {
    perfd_snap *s;
    int gzip;
    int done;
    unsigned status;
    char why[600];
    char *body;
    size_t len;
} jjob;

static void jjob_free(void *p)
{
    jjob *j = p;
    if (!j) return;
    perfd_snap_unref(j->s);
    free(j->body);
    free(j);
}

/* The rendering of the snapshot: the kept one when it is this snapshot's,
 * else a new one (then kept); gzipped when asked. */
static void json_job(void *arg)
{
    jjob *j = arg;
    j->done = 1;
    char *buf = NULL;
    size_t len = 0;
    pthread_mutex_lock(&cache.mu);
    if (cache.buf && cache.seq == j->s->seq) {
        buf = malloc(cache.len ? cache.len : 1);
        len = cache.len;
        if (buf) memcpy(buf, cache.buf, len);
    }
    pthread_mutex_unlock(&cache.mu);
    if (!buf) {
        if (render(j->s, &buf, &len, j->why, sizeof j->why) != 0) {
            j->status = MHD_HTTP_INTERNAL_SERVER_ERROR;
            return;
        }
        char *keep = malloc(len ? len : 1);
        pthread_mutex_lock(&cache.mu);
        if (keep) {
            memcpy(keep, buf, len);
            free(cache.buf);
            cache.buf = keep;
            cache.len = len;
            cache.seq = j->s->seq;
        }
        pthread_mutex_unlock(&cache.mu);
    }
    if (j->gzip) {
        char *z = NULL;
        size_t zl = 0;
        int ok = perfd_gzip(buf, len, &z, &zl) == 0;
        free(buf);
        if (!ok) {
            j->status = MHD_HTTP_SERVICE_UNAVAILABLE;
            snprintf(j->why, sizeof j->why, "out of memory");
            return;
        }
        buf = z;
        len = zl;
    }
    j->status = MHD_HTTP_OK;
    j->body = buf;
    j->len = len;
}

static int v1_json(perfd_req *r)
{
    jjob *j = r->user;
    if (j && j->done) {
        if (j->status != MHD_HTTP_OK) return perfd_reply_error(r, j->status, j->why);
        char *body = j->body;
        j->body = NULL;
        return perfd_reply_owned_enc(r, MHD_HTTP_OK, "application/json", j->gzip ? "gzip" : NULL, body, j->len);
    }
    int rc = PERFD_DONE;
    const char *q = perfd_query_arg(r, &rc);
    if (!q) return rc;
    perfd_snap *s = perfd_snapshot(r, q);
    if (!s) return PERFD_WAIT;
    if (s->status != PL_OK) return perfd_reply_snap_error(r, s);
    j = calloc(1, sizeof *j);
    if (!j) return perfd_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
    j->s = perfd_snap_ref(s);
    j->gzip = perfd_accepts_gzip(r);
    r->user = j;
    r->user_free = jjob_free;
    return perfd_defer(r, json_job, j);
}
PERFD_ROUTE(v1_json, "GET", "/v1/json", 0, v1_json)

__attribute__((destructor)) static void json_cache_free(void)
{
    free(cache.buf);
    cache.buf = NULL;
}
