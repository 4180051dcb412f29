/* perfd: the page's live data, one Server-Sent-Events stream per page
 * (docs/web.md).
 *
 *   GET /v1/stream?i=MS&c=PATH&c=PATH...
 *
 * A stream owns a PDH query with the page's counters on perfd's engine and a
 * thread that collects it every MS milliseconds and formats the values
 * (PDH_FMT_DOUBLE | PDH_FMT_NOCAP100, as typeperf): the browser never does
 * counter math. Events:
 *
 *   event: meta    {"version":1,"machine":..,"interval":MS,"counters":[
 *                    {"path":..,"ok":true,"multi":bool,"machine":..,"object":..,"counter":..,
 *                     "instance":..,"parent":..,"scale":DEFAULT_SCALE,"type":"PERF_..","explain":..}
 *                  | {"path":..,"ok":false,"error":"PDH_CSTATUS_NO_OBJECT","message":..}]}
 *   event: sample  {"t":UNIX_MS,"v":[VALUE, ...]}   one entry per counter, in order:
 *                  a number, null (cannot be computed now: a gap, never 0),
 *                  or for a wildcard counter [[ "parent/name#k", VALUE ], ...]
 *   ": k" comment lines keep a quiet connection alive.
 *
 * A counter that could not be added (its machine did not answer, its object
 * or instance was not there) is tried again every STREAM_RETRY_MS; when one
 * resolves, a new meta event says so and its values follow.
 *
 * Threads and libmicrohttpd: the server thread never waits. The response is
 * a content-reader callback: with bytes pending it hands them over, with none
 * it suspends the connection; the stream thread appends an event and resumes
 * it. Both happen under the stream's lock, so a resume never precedes its
 * suspend. When the client goes, libmicrohttpd frees the response, which
 * marks the stream gone; its thread notices within one tick and ends.
 *
 * Limits: STREAM_MAX streams at once (503 past it), STREAM_MAX_COUNTERS
 * counters and STREAM_MAX_PATH bytes a path (400), intervals of
 * STREAM_MIN_MS..STREAM_MAX_MS (400), and STREAM_MAX_PENDING bytes waiting for
 * a client that does not read (it is then dropped, one log line). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "perfd.h"
#include "perflib/block.h"
#include "perflib/log.h"
#include "perflib/pdh.h"
#include "perflib/query.h"
#include "perflib/winperf.h"
#include "stream.h"
#include "webbuf.h"

#define STREAM_MAX 16
#define STREAM_MAX_COUNTERS 64
#define STREAM_MAX_PATH 1024
#define STREAM_MIN_MS 100u
#define STREAM_MAX_MS 3600000u
#define STREAM_KEEPALIVE_MS 5000u
#define STREAM_MAX_PENDING (1u << 20)
#define STREAM_FMT (PL_PDH_FMT_DOUBLE | PL_PDH_FMT_NOCAP100)
#define STREAM_RETRY_MS 10000u  /* counters that could not be added yet */
#define STREAM_MSG 512
#define REPLAY_MAX_RECORDS 2000u  /* a wider window is thinned to this */
#define REPLAY_DRAIN_MS 30000u    /* a replay client that reads nothing this long is dropped */
#define FT_UNIX_EPOCH 116444736000000000LL  /* FILETIME of 1970-01-01 */

typedef struct stream {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct MHD_Connection *conn;
    wb pending;           /* event text not yet read: pending.p[off..pending.len) */
    size_t off;
    int suspended;        /* the reader suspended conn and nobody resumed it */
    int gone;             /* libmicrohttpd freed the response */
    int closing;          /* end the response (overflow, shutdown) */
    int refs;             /* the thread and the response */
    unsigned interval_ms;
    char *log_path;       /* a replay (/v1/replay): the log file, else NULL */
    int64_t b, e;         /* its window, FILETIME, inclusive */
    size_t n;
    char **paths;
    struct stream *next, *prev;  /* in the live list */
} stream;

static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t live_cv = PTHREAD_COND_INITIALIZER;
static stream *live;
static int live_threads;   /* stream threads not yet finished */
static int live_count;     /* streams not yet freed */
static int stopping;

static void stream_unref(stream *st)
{
    pthread_mutex_lock(&st->mu);
    int last = --st->refs == 0;
    pthread_mutex_unlock(&st->mu);
    if (!last) return;
    pthread_mutex_lock(&live_mu);
    if (st->prev) st->prev->next = st->next;
    else live = st->next;
    if (st->next) st->next->prev = st->prev;
    live_count--;
    pthread_mutex_unlock(&live_mu);
    for (size_t i = 0; i < st->n; i++) free(st->paths[i]);
    free(st->paths);
    free(st->log_path);
    wb_free(&st->pending);
    pthread_cond_destroy(&st->cv);
    pthread_mutex_destroy(&st->mu);
    free(st);
}

/* ------------------------------------------------ libmicrohttpd's side */

static ssize_t reader(void *cls, uint64_t pos, char *out, size_t max)
{
    (void)pos;
    stream *st = cls;
    pthread_mutex_lock(&st->mu);
    if (st->off < st->pending.len) {
        size_t k = st->pending.len - st->off < max ? st->pending.len - st->off : max;
        memcpy(out, st->pending.p + st->off, k);
        st->off += k;
        if (st->off == st->pending.len) st->off = st->pending.len = 0;
        pthread_cond_signal(&st->cv);  /* a replay waits for the client to read */
        pthread_mutex_unlock(&st->mu);
        return (ssize_t)k;
    }
    if (st->closing) {
        pthread_mutex_unlock(&st->mu);
        return MHD_CONTENT_READER_END_OF_STREAM;
    }
    st->suspended = 1;
    MHD_suspend_connection(st->conn);
    pthread_mutex_unlock(&st->mu);
    return 0;
}

static void response_freed(void *cls)
{
    stream *st = cls;
    pthread_mutex_lock(&st->mu);
    st->gone = 1;
    st->suspended = 0;
    pthread_cond_signal(&st->cv);
    pthread_mutex_unlock(&st->mu);
    stream_unref(st);
}

/* Queue text for the client and wake its connection. -1 when the stream is
 * over (client gone, or dropped for not reading). Lock held by the caller. */
static int emit_locked(stream *st, const char *text, size_t n)
{
    if (st->gone || st->closing) return -1;
    if (st->pending.len - st->off + n > STREAM_MAX_PENDING) {
        st->closing = 1;
        perfd_log("stream: dropped a client that read nothing for %zu bytes", st->pending.len - st->off);
    } else {
        if (st->off) {
            memmove(st->pending.p, st->pending.p + st->off, st->pending.len - st->off);
            st->pending.len -= st->off;
            st->off = 0;
        }
        wb_put(&st->pending, text, n);
        if (st->pending.failed) st->closing = 1;
    }
    if (st->suspended) {
        st->suspended = 0;
        MHD_resume_connection(st->conn);
    }
    return st->closing ? -1 : 0;
}

static int emit(stream *st, const char *text, size_t n)
{
    pthread_mutex_lock(&st->mu);
    int rc = emit_locked(st, text, n);
    pthread_mutex_unlock(&st->mu);
    return rc;
}

/* ------------------------------------------------------ the collector */

static uint64_t now_ms(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Wait until monotonic time `until` (ms) or until the stream ends: 0 on the
 * deadline, -1 when it ended. */
static int wait_until(stream *st, uint64_t until)
{
    struct timespec ts = {(time_t)(until / 1000u), (long)(until % 1000u) * 1000000L};
    pthread_mutex_lock(&st->mu);
    while (!st->gone && !st->closing && now_ms(CLOCK_MONOTONIC) < until) {
        if (pthread_cond_timedwait(&st->cv, &st->mu, &ts) == ETIMEDOUT) break;
    }
    int over = st->gone || st->closing;
    pthread_mutex_unlock(&st->mu);
    return over ? -1 : 0;
}

static int valid(uint32_t rc, const pl_pdh_value *v)
{
    return rc == PL_PDH_CSTATUS_VALID_DATA &&
           (v->cstatus == PL_PDH_CSTATUS_VALID_DATA || v->cstatus == PL_PDH_CSTATUS_NEW_DATA);
}

/* ft: the sample's time (FILETIME), or 0 for the query's collection time. */
static void sample_json(wb *b, pl_pdh_query *q, pl_pdh_counter **cs, const int *multi, size_t n, int collected,
                        int64_t ft)
{
    if (!ft) ft = collected ? pl_pdh_query_time(q) : 0;
    /* FILETIME (100 ns since 1601) to Unix milliseconds */
    uint64_t t = ft > FT_UNIX_EPOCH ? (uint64_t)(ft - FT_UNIX_EPOCH) / 10000u : now_ms(CLOCK_REALTIME);
    wb_printf(b, "event: sample\ndata: {\"t\":%llu,\"v\":[", (unsigned long long)t);
    for (size_t i = 0; i < n; i++) {
        if (i) wb_str(b, ",");
        if (!cs[i] || !collected) {
            wb_str(b, multi[i] ? "[]" : "null");
            continue;
        }
        if (multi[i]) {
            pl_pdh_value_item *items = NULL;
            size_t ni = 0;
            uint32_t rc = pl_pdh_get_formatted_array(cs[i], STREAM_FMT, &items, &ni);
            wb_str(b, "[");
            for (size_t k = 0; rc == PL_PDH_CSTATUS_VALID_DATA && k < ni; k++) {
                wb_str(b, k ? ",[" : "[");
                wb_json(b, items[k].name);
                wb_str(b, ",");
                if (valid(0, &items[k].value)) wb_num(b, items[k].value.v.double_value);
                else wb_str(b, "null");
                wb_str(b, "]");
            }
            wb_str(b, "]");
            pl_free(items);
        } else {
            pl_pdh_value v;
            uint32_t rc = pl_pdh_get_formatted(cs[i], STREAM_FMT, NULL, &v);
            if (valid(rc, &v)) wb_num(b, v.v.double_value);
            else wb_str(b, "null");
        }
    }
    wb_str(b, "]}\n\n");
}

static int has_wildcard(const char *path, int *counter_wild)
{
    pl_pdh_path_elements *e = NULL;
    *counter_wild = 0;
    if (pl_pdh_parse_path_alloc(path, &e, NULL) != PL_PDH_CSTATUS_VALID_DATA) return 0;
    int w = (e->instance && strchr(e->instance, '*')) || (e->parent && strchr(e->parent, '*'));
    *counter_wild = e->counter && strchr(e->counter, '*') != NULL;
    pl_free(e);
    return w;
}

static void meta_counter(wb *b, const char *path, pl_pdh_counter *c, int multi, uint32_t status, const char *msg)
{
    wb_str(b, "{\"path\":");
    wb_json(b, path);
    if (!c) {
        const char *name = pl_pdh_status_name(status);
        wb_str(b, ",\"ok\":false,\"error\":");
        wb_json(b, name ? name : "PDH error");
        wb_str(b, ",\"message\":");
        wb_json(b, msg);
        wb_str(b, "}");
        return;
    }
    pl_pdh_counter_info info;
    memset(&info, 0, sizeof info);
    pl_pdh_get_counter_info(c, &info);
    wb_printf(b, ",\"ok\":true,\"multi\":%s,\"machine\":", multi ? "true" : "false");
    wb_json(b, info.machine);
    wb_str(b, ",\"object\":");
    wb_json(b, info.object);
    wb_str(b, ",\"counter\":");
    wb_json(b, info.counter);
    wb_str(b, ",\"instance\":");
    wb_json(b, info.instance);
    wb_str(b, ",\"parent\":");
    wb_json(b, info.parent);
    wb_printf(b, ",\"scale\":%d,\"type\":", (int)info.default_scale);
    const char *tn = pl_type_name(info.type);
    wb_json(b, tn ? tn : "");
    wb_str(b, ",\"explain\":");
    wb_json(b, info.explain);
    wb_str(b, "}");
}

/* Add counter i to the query; its status and message are kept for meta. */
static void add_one(stream *st, pl_pdh_query *q, size_t i, pl_pdh_counter **cs, uint32_t *status,
                    char (*msgs)[STREAM_MSG])
{
    int cw = 0;
    has_wildcard(st->paths[i], &cw);
    if (cw) {
        status[i] = PL_PDH_CSTATUS_BAD_COUNTERNAME;
        snprintf(msgs[i], STREAM_MSG, "a stream takes counters one by one, not a counter wildcard");
        return;
    }
    pl_error e = {0};
    status[i] = pl_pdh_add_counter(q, st->paths[i], &cs[i], &e);
    snprintf(msgs[i], STREAM_MSG, "%s", e.msg);
    if (status[i] != PL_PDH_CSTATUS_VALID_DATA) cs[i] = NULL;
}

/* Worth adding again later: the machine, object or instance may come. */
static int retryable(uint32_t status)
{
    return status != PL_PDH_CSTATUS_VALID_DATA && status != PL_PDH_CSTATUS_BAD_COUNTERNAME &&
           status != PL_PDH_INVALID_PATH && status != PL_PDH_INVALID_ARGUMENT &&
           status != PL_PDH_MEMORY_ALLOCATION_FAILURE;
}

static int emit_meta(stream *st, pl_pdh_query *q, pl_pdh_counter **cs, const int *multi, const uint32_t *status,
                     char (*msgs)[STREAM_MSG])
{
    wb meta = {0};
    wb_printf(&meta, "retry: 2000\nevent: meta\ndata: {\"version\":1,\"interval\":%u,\"counters\":[", st->interval_ms);
    for (size_t i = 0; i < st->n; i++) {
        if (i) wb_str(&meta, ",");
        meta_counter(&meta, st->paths[i], cs[i], multi[i], status[i], msgs[i]);
    }
    wb_str(&meta, "],\"machine\":");
    wb_json(&meta, q ? pl_pdh_query_machine(q) : "");
    wb_str(&meta, "}\n\n");
    int rc = meta.failed || emit(st, meta.p, meta.len) != 0 ? -1 : 0;
    wb_free(&meta);
    return rc;
}

/* The end of a stream thread: make sure the response ends (a collector
 * failure, an allocation, a replay's last record), drop the thread's
 * reference. */
static void thread_done(stream *st)
{
    pthread_mutex_lock(&st->mu);
    if (!st->gone && !st->closing) {
        st->closing = 1;
        if (st->suspended) {
            st->suspended = 0;
            MHD_resume_connection(st->conn);
        }
    }
    pthread_mutex_unlock(&st->mu);
    stream_unref(st);
    pthread_mutex_lock(&live_mu);
    live_threads--;
    pthread_cond_broadcast(&live_cv);
    pthread_mutex_unlock(&live_mu);
}

/* The per-counter state of a stream or a replay, one entry a path. */
typedef struct ctrs {
    pl_pdh_counter **cs;
    int *multi;
    uint32_t *status;
    char (*msgs)[STREAM_MSG];
} ctrs;

static int ctrs_alloc(ctrs *c, size_t n)
{
    size_t n1 = n ? n : 1;
    c->cs = calloc(n1, sizeof *c->cs);
    c->multi = calloc(n1, sizeof *c->multi);
    c->status = calloc(n1, sizeof *c->status);
    c->msgs = calloc(n1, sizeof *c->msgs);
    return c->cs && c->multi && c->status && c->msgs ? 0 : -1;
}

static void ctrs_free(ctrs *c)
{
    free(c->cs);
    free(c->multi);
    free(c->status);
    free(c->msgs);
}

/* Add every path to q, or give each the status `rc` (and err's message)
 * when the query could not be opened. Returns 1 when some counter may
 * resolve later (retryable). */
static int ctrs_add_all(stream *st, pl_pdh_query *q, uint32_t rc, const pl_error *err, ctrs *c)
{
    int retry = 0;
    for (size_t i = 0; i < st->n; i++) {
        int cw = 0;
        c->multi[i] = has_wildcard(st->paths[i], &cw);
        if (rc != PL_PDH_CSTATUS_VALID_DATA) {
            c->status[i] = rc;
            snprintf(c->msgs[i], STREAM_MSG, "%s", err->msg);
        } else {
            add_one(st, q, i, c->cs, c->status, c->msgs);
            retry |= retryable(c->status[i]);
        }
    }
    return retry;
}

/* A stream's PDH source: this machine's queries go to the engine on the
 * stream's thread, as before; another machine's ("Foreign ...") go through
 * the snapshot publisher, so the remote pool, its per-machine budget and a
 * failed machine's rest apply to streams too, and streams and pages asking
 * the same machine share its fetches. */
#define STREAM_REMOTE_WAIT_MS 60000u

typedef struct pool_src {
    pl_pdh_source engine;
} pool_src;

static int pool_collect(void *ctx, const char *query, void **block, size_t *len, pl_error *err)
{
    pool_src *p = ctx;
    char target[301];
    int foreign = 0;
    if (pl_query_foreign_target(query, target, sizeof target, &foreign, NULL) != PL_OK || !foreign)
        return p->engine.collect(p->engine.ctx, query, block, len, err);
    perfd_snap *snap = perfd_snapshot_wait(query, STREAM_REMOTE_WAIT_MS);
    int rc = snap->status;
    if (rc == PL_OK && snap->type != PL_REG_BINARY) rc = PL_E_INVAL;
    if (rc == PL_OK) {
        *block = malloc(snap->len ? snap->len : 1);
        if (*block) {
            memcpy(*block, snap->data, snap->len);
            *len = snap->len;
        } else {
            rc = PL_E_NOMEM;
        }
    }
    if (rc != PL_OK && err) {
        err->status = rc;
        snprintf(err->msg, sizeof err->msg, "%s", snap->status != PL_OK ? snap->error : "not performance data");
    }
    perfd_snap_unref(snap);
    return rc;
}

static const pl_titles *pool_titles(void *ctx, int english)
{
    pool_src *p = ctx;
    return p->engine.titles(p->engine.ctx, english);
}

static void pool_close(void *ctx)
{
    pool_src *p = ctx;
    pl_pdh_source_close(&p->engine);
    free(p);
}

static uint32_t pool_source(pl_pdh_source *out, pl_error *err)
{
    pool_src *p = calloc(1, sizeof *p);
    if (!p) return PL_PDH_MEMORY_ALLOCATION_FAILURE;
    uint32_t rc = pl_pdh_engine_source(perfd_engine(), &p->engine, err);
    if (rc != PL_PDH_CSTATUS_VALID_DATA) {
        free(p);
        return rc;
    }
    out->collect = pool_collect;
    out->titles = pool_titles;
    out->close = pool_close;
    out->ctx = p;
    return PL_PDH_CSTATUS_VALID_DATA;
}

static void *stream_main(void *arg)
{
    stream *st = arg;
    pl_pdh_source src = {0};
    pl_pdh_query *q = NULL;
    pl_error err = {0};
    ctrs c;
    wb b = {0};
    int have_src = 0;
    if (ctrs_alloc(&c, st->n) != 0) goto out;
    pl_pdh_counter **cs = c.cs;
    int *multi = c.multi;
    uint32_t *status = c.status;
    char (*msgs)[STREAM_MSG] = c.msgs;
    uint32_t rc = pool_source(&src, &err);
    have_src = rc == PL_PDH_CSTATUS_VALID_DATA;
    if (have_src) rc = pl_pdh_open_query(&src, &q, &err);
    int retry = ctrs_add_all(st, q, rc, &err, &c);
    int collected = q && pl_pdh_collect(q, NULL) == PL_PDH_CSTATUS_VALID_DATA;
    int over = emit_meta(st, q, cs, multi, status, msgs) != 0;
    /* The first sample: single-sample types have values, rates are gaps. */
    uint64_t next = now_ms(CLOCK_MONOTONIC);
    uint64_t last_sent = next, last_retry = next;
    while (!over) {
        b.len = 0;
        sample_json(&b, q, cs, multi, st->n, collected, 0);
        if (b.failed || emit(st, b.p, b.len) != 0) break;
        last_sent = now_ms(CLOCK_MONOTONIC);
        next += st->interval_ms;
        if (next < last_sent) next = last_sent + st->interval_ms;  /* fell behind: no burst */
        /* Keep-alive comments on a quiet connection. */
        while (next - last_sent > STREAM_KEEPALIVE_MS && !over) {
            if (wait_until(st, last_sent + STREAM_KEEPALIVE_MS) != 0 || emit(st, ": k\n\n", 5) != 0) over = 1;
            last_sent = now_ms(CLOCK_MONOTONIC);
        }
        if (over || wait_until(st, next) != 0) break;
        /* Counters whose machine, object or instance was not there: try
         * again now and then, and tell the page when one resolves. */
        if (retry && q && now_ms(CLOCK_MONOTONIC) - last_retry >= STREAM_RETRY_MS) {
            int added = 0;
            retry = 0;
            for (size_t i = 0; i < st->n; i++) {
                if (cs[i] || !retryable(status[i])) continue;
                add_one(st, q, i, cs, status, msgs);
                added |= cs[i] != NULL;
                retry |= retryable(status[i]);
            }
            last_retry = now_ms(CLOCK_MONOTONIC);
            if (added && emit_meta(st, q, cs, multi, status, msgs) != 0) break;
        }
        collected = pl_pdh_collect(q, NULL) == PL_PDH_CSTATUS_VALID_DATA;
    }
out:
    wb_free(&b);
    pl_pdh_close_query(q);
    if (have_src) pl_pdh_source_close(&src);
    ctrs_free(&c);
    thread_done(st);
    return NULL;
}

/* ------------------------------------------------------ a log replay */

/* Wait (bounded) until the client has read most of what is pending, so a
 * replay, which has every record at once, never outgrows the pending limit
 * for a client that reads. 0, or -1 when the stream is over. */
static int wait_drained(stream *st)
{
    uint64_t until = now_ms(CLOCK_MONOTONIC) + REPLAY_DRAIN_MS;
    struct timespec ts = {(time_t)(until / 1000u), (long)(until % 1000u) * 1000000L};
    pthread_mutex_lock(&st->mu);
    while (!st->gone && !st->closing && st->pending.len - st->off > STREAM_MAX_PENDING / 2)
        if (pthread_cond_timedwait(&st->cv, &st->mu, &ts) == ETIMEDOUT) break;
    int over = st->gone || st->closing;
    pthread_mutex_unlock(&st->mu);
    return over ? -1 : 0;
}

/* /v1/replay: the same events as a live stream, from the records of a
 * counter log in [b, e] (at most REPLAY_MAX_RECORDS of them, evenly
 * thinned), then "event: end". PDH computes the values from the logged
 * blocks exactly as from the live engine. */
/* The page is told a log's name, not where perfd keeps it: the directory
 * is cut from a message naming the log's path (perfd's own log keeps it). */
static void hide_log_dir(char *msg, const char *path)
{
    const char *slash = strrchr(path, '/');
    char *at = slash ? strstr(msg, path) : NULL;
    if (!at) return;
    size_t dl = (size_t)(slash + 1 - path);
    memmove(at, at + dl, strlen(at + dl) + 1);
}

static void *replay_main(void *arg)
{
    stream *st = arg;
    pl_log *log = NULL;
    pl_log_source *ls = NULL;
    pl_pdh_source src = {0};
    pl_pdh_query *q = NULL;
    pl_error err = {0};
    ctrs c;
    wb b = {0};
    int have_src = 0;
    if (ctrs_alloc(&c, st->n) != 0) goto out;
    pl_pdh_counter **cs = c.cs;
    int *multi = c.multi;
    uint32_t *status = c.status;
    char (*msgs)[STREAM_MSG] = c.msgs;
    uint32_t rc = PL_PDH_CSTATUS_VALID_DATA;
    if (pl_log_open(st->log_path, &log, &err) != PL_OK || pl_log_source_open(log, &src, &ls, &err) != PL_OK) {
        rc = PL_PDH_INVALID_ARGUMENT;
        perfd_log("replay: %s", err.msg);
        hide_log_dir(err.msg, st->log_path);
    } else {
        have_src = 1;
        rc = pl_pdh_open_query(&src, &q, &err);
    }
    size_t i0 = 0, i1 = 0;
    if (log) {
        pl_log_seek(log, st->b, &i0);
        pl_log_seek(log, st->e == INT64_MAX ? st->e : st->e + 1, &i1);
    }
    size_t count = i1 > i0 ? i1 - i0 : 0;
    size_t step = count > REPLAY_MAX_RECORDS ? (count + REPLAY_MAX_RECORDS - 1) / REPLAY_MAX_RECORDS : 1;
    /* The records' spacing for the page's axis (the median is not needed:
     * a log is written at one interval). */
    st->interval_ms = 1000;
    if (count > 1) {
        int64_t span = pl_log_time(log, i0 + (count - 1) / step * step) - pl_log_time(log, i0);
        uint64_t ms = (uint64_t)(span > 0 ? span : 0) / 10000u / ((count - 1) / step ? (count - 1) / step : 1);
        if (ms >= 1 && ms <= STREAM_MAX_MS) st->interval_ms = (unsigned)ms;
    }
    ctrs_add_all(st, q, rc, &err, &c); /* a log does not change: nothing to retry */
    if (emit_meta(st, q, cs, multi, status, msgs) != 0) goto out;
    /* The record before the window primes the rates, so the window's first
     * point has its value (as typeperf -i prints it) rather than a gap. */
    if (q && i0 > 0 && i0 < i1 && pl_log_source_set(ls, i0 - 1, NULL) == PL_OK) pl_pdh_collect(q, NULL);
    for (size_t i = i0; q && i < i1; i += step) {
        int collected = pl_log_source_set(ls, i, NULL) == PL_OK && pl_pdh_collect(q, NULL) == PL_PDH_CSTATUS_VALID_DATA;
        b.len = 0;
        sample_json(&b, q, cs, multi, st->n, collected, pl_log_time(log, i));
        if (b.failed || wait_drained(st) != 0 || emit(st, b.p, b.len) != 0) goto out;
    }
    static const char end_event[] = "event: end\ndata: {}\n\n";
    emit(st, end_event, sizeof end_event - 1);
out:
    wb_free(&b);
    pl_pdh_close_query(q);
    if (have_src) pl_pdh_source_close(&src);  /* frees ls */
    pl_log_close(log);
    ctrs_free(&c);
    thread_done(st);
    return NULL;
}

/* ------------------------------------------------------ the request */

typedef struct args {
    stream *st;
    const char *bad;
} args;

static enum MHD_Result each_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    args *a = cls;
    if (a->bad || !key) return MHD_YES;
    if (strcmp(key, "c") == 0) {
        if (!value || !*value || strlen(value) > STREAM_MAX_PATH) {
            a->bad = "c: a counter path of 1 to 1024 bytes";
        } else if (a->st->n >= STREAM_MAX_COUNTERS) {
            a->bad = "too many counters: at most 64 a stream";
        } else {
            for (const char *p = value; *p; p++)
                if ((unsigned char)*p < 0x20) a->bad = "c: control characters in a path";
            if (!a->bad) {
                char *dup = strdup(value);
                if (!dup) a->bad = "out of memory";
                else a->st->paths[a->st->n++] = dup;
            }
        }
    }
    return MHD_YES;
}

static int start_stream(perfd_req *r, stream *st, const char *bad, void *(*fn)(void *));

/* A path on another machine that perfd may not reach: the request is
 * refused (403) before the stream starts, so no connection is made. 0, or
 * -1 with the reason. */
static int remote_refused(const stream *st, char *why, size_t whylen)
{
    for (size_t i = 0; i < st->n; i++) {
        pl_pdh_path_elements *e = NULL;
        if (pl_pdh_parse_path_alloc(st->paths[i], &e, NULL) != PL_PDH_CSTATUS_VALID_DATA) continue;
        int refused = 0;
        if (e->machine && !perfd_machine_is_local(e->machine))
            refused = perfd_machine_lookup(e->machine, NULL, NULL, 0, why, whylen) <= 0;
        pl_free(e);
        if (refused) return -1;
    }
    return 0;
}

static int h_stream(perfd_req *r)
{
    const char *is = perfd_arg(r, "i");
    char *end = NULL;
    errno = 0;
    unsigned long ms = is ? strtoul(is, &end, 10) : 1000ul;
    if (is && (errno || end == is || *end || ms < STREAM_MIN_MS || ms > STREAM_MAX_MS))
        return perfd_reply_error(r, MHD_HTTP_BAD_REQUEST, "i: an interval of 100 to 3600000 milliseconds");
    stream *st = calloc(1, sizeof *st);
    if (!st || !(st->paths = calloc(STREAM_MAX_COUNTERS, sizeof *st->paths))) {
        free(st);
        return perfd_reply_error(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    }
    st->interval_ms = (unsigned)ms;
    return start_stream(r, st, NULL, stream_main);
}

/* Take the counters from the request, count the stream against the limits
 * and start its thread; st (and bad) are consumed. */
static int start_stream(perfd_req *r, stream *st, const char *bad, void *(*fn)(void *))
{
    args a = {st, bad};
    MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, each_arg, &a);
    if (!a.bad && st->n == 0) a.bad = "c: at least one counter path";
    char denied[512];
    if (!a.bad && fn == stream_main && remote_refused(st, denied, sizeof denied) != 0) {
        for (size_t i = 0; i < st->n; i++) free(st->paths[i]);
        free(st->paths);
        free(st);
        return perfd_reply_error(r, MHD_HTTP_FORBIDDEN, denied);
    }
    pthread_mutex_lock(&live_mu);
    int full = !a.bad && (live_count >= STREAM_MAX || stopping);
    if (!a.bad && !full) {
        live_count++;
        st->next = live;
        if (live) live->prev = st;
        live = st;
    }
    pthread_mutex_unlock(&live_mu);
    if (a.bad || full) {
        for (size_t i = 0; i < st->n; i++) free(st->paths[i]);
        free(st->paths);
        free(st->log_path);
        free(st);
        return a.bad ? perfd_reply_error(r, MHD_HTTP_BAD_REQUEST, a.bad)
                     : perfd_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, "too many streams: at most 16 at once");
    }
    pthread_mutex_init(&st->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&st->cv, &ca);
    pthread_condattr_destroy(&ca);
    st->conn = r->conn;
    st->refs = 1;  /* the response's */
    struct MHD_Response *resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, reader, st, response_freed);
    if (!resp) {
        stream_unref(st);
        return PERFD_FAIL;
    }
    int ok = MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream; charset=utf-8") ==
                 MHD_YES &&
             MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store") == MHD_YES &&
             MHD_add_response_header(resp, "X-Accel-Buffering", "no") == MHD_YES;
    pthread_t th;
    pthread_attr_t ta;
    pthread_attr_init(&ta);
    pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
    if (ok) {
        st->refs = 2;
        pthread_mutex_lock(&live_mu);
        live_threads++;
        pthread_mutex_unlock(&live_mu);
        if (pthread_create(&th, &ta, fn, st) != 0) {
            st->refs = 1;
            pthread_mutex_lock(&live_mu);
            live_threads--;
            pthread_mutex_unlock(&live_mu);
            ok = 0;
        }
    }
    pthread_attr_destroy(&ta);
    if (!ok) {
        MHD_destroy_response(resp);  /* frees st through response_freed */
        return perfd_reply_error(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot start the stream");
    }
    ok = MHD_queue_response(r->conn, MHD_HTTP_OK, resp) == MHD_YES;
    MHD_destroy_response(resp);
    return ok ? PERFD_DONE : PERFD_FAIL;
}

void perfd_streams_stop(void)
{
    pthread_mutex_lock(&live_mu);
    stopping = 1;
    for (stream *st = live; st; st = st->next) {
        pthread_mutex_lock(&st->mu);
        st->closing = 1;
        if (st->suspended) {
            st->suspended = 0;
            MHD_resume_connection(st->conn);
        }
        pthread_cond_signal(&st->cv);
        pthread_mutex_unlock(&st->mu);
    }
    /* A stream thread finishes its collection (bounded by the engine's own
     * provider timeouts) and ends; wait for them, but not forever. */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 10;
    while (live_threads > 0)
        if (pthread_cond_timedwait(&live_cv, &live_mu, &ts) == ETIMEDOUT) break;
    if (live_threads > 0) perfd_log("stream: %d stream threads still collecting at shutdown", live_threads);
    pthread_mutex_unlock(&live_mu);
}

PERFD_ROUTE(stream_route, "GET", "/v1/stream", 0, h_stream)

/* log_dir: the one directory /v1/replay reads logs from (none: no replay). */
static char log_dir[PATH_MAX];

static int set_log_dir(const char *v, char *why, size_t whylen)
{
    size_t n = strlen(v);
    while (n > 1 && v[n - 1] == '/') n--;
    if (v[0] != '/' || n >= sizeof log_dir - 256) {
        snprintf(why, whylen, "log_dir: an absolute directory path");
        return -1;
    }
    memcpy(log_dir, v, n);
    log_dir[n] = 0;
    return 0;
}
PERFD_CONFIG_KEY(log_dir, "log_dir", set_log_dir)

const char *perfd_log_dir(void)
{
    return log_dir;
}

/* A window bound: Unix milliseconds to FILETIME, or def when absent. */
static int window_arg(perfd_req *r, const char *name, int64_t def, int64_t *out)
{
    const char *v = perfd_arg(r, name);
    if (!v) {
        *out = def;
        return 0;
    }
    char *end = NULL;
    errno = 0;
    unsigned long long ms = strtoull(v, &end, 10);
    if (errno || end == v || *end || *v == '-' || ms > 253402300799999ull) return -1;  /* year 9999 */
    *out = (int64_t)ms * 10000 + FT_UNIX_EPOCH;
    return 0;
}

static int h_replay(perfd_req *r)
{
    const char *name = perfd_arg(r, "log");
    if (!perfd_log_name_ok(name))
        return perfd_reply_error(r, MHD_HTTP_BAD_REQUEST,
                                 "log: a plain file name in perfd's log directory (no '/', not starting with '.')");
    if (!log_dir[0]) return perfd_reply_error(r, MHD_HTTP_NOT_FOUND, "no log directory configured (log_dir)");
    int64_t b = 0, e = 0;
    if (window_arg(r, "b", 0, &b) != 0 || window_arg(r, "e", INT64_MAX, &e) != 0 || b > e)
        return perfd_reply_error(r, MHD_HTTP_BAD_REQUEST, "b, e: a window of Unix milliseconds with b <= e");
    char path[PATH_MAX];
    size_t dl = strlen(log_dir), nl = strlen(name);
    if (dl + 1 + nl >= sizeof path) return perfd_reply_error(r, MHD_HTTP_BAD_REQUEST, "log: name too long");
    memcpy(path, log_dir, dl);
    path[dl] = '/';
    memcpy(path + dl + 1, name, nl + 1);
    struct stat sb;
    if (lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode))  /* no symlink out of the directory */
        return perfd_reply_error(r, MHD_HTTP_NOT_FOUND, "no such log in perfd's log directory");
    stream *st = calloc(1, sizeof *st);
    if (!st || !(st->paths = calloc(STREAM_MAX_COUNTERS, sizeof *st->paths)) || !(st->log_path = strdup(path))) {
        if (st) free(st->paths);
        free(st);
        return perfd_reply_error(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    }
    st->b = b;
    st->e = e;
    st->interval_ms = 1000;
    return start_stream(r, st, NULL, replay_main);
}
PERFD_ROUTE(replay_route, "GET", "/v1/replay", 0, h_replay)
