/* Routes compiled only into perfd_testd (perfd plus this file), to test the
 * interface route files use: PERFD_ON_PUBLISH, perfd_snapshot_request,
 * perfd_snapshot_peek, PERFD_PREFIX, PERFD_CONFIG_KEY, PERFD_BODY, a
 * handler's own state across a WAIT, and perfd_defer (a job on the worker
 * thread). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perfd.h"

static unsigned long published; /* written on the collector thread */
static char greeting[64] = "hello";

static void on_publish(perfd_snap *s)
{
    (void)s;
    __atomic_add_fetch(&published, 1, __ATOMIC_RELAXED);
}
PERFD_ON_PUBLISH(test_count, on_publish)

static int set_greeting(const char *v, char *why, size_t whylen)
{
    if (strlen(v) >= sizeof greeting) {
        snprintf(why, whylen, "test_greeting: too long");
        return -1;
    }
    snprintf(greeting, sizeof greeting, "%s", v);
    return 0;
}
PERFD_CONFIG_KEY(test_greeting, "test_greeting", set_greeting)

/* GET /test/published: "published=N greeting=G" */
static int count(perfd_req *r)
{
    char *body = malloc(128);
    if (!body) return PERFD_FAIL;
    int n = snprintf(body, 128, "published=%lu greeting=%s\n", __atomic_load_n(&published, __ATOMIC_RELAXED), greeting);
    return perfd_reply_owned(r, 200, "text/plain", body, (size_t)n);
}
PERFD_ROUTE(test_published, "GET", "/test/published", 0, count)

/* GET /test/request?q=Q: starts a collection, answers at once. */
static int request(perfd_req *r)
{
    int rc = perfd_snapshot_request(perfd_arg(r, "q"));
    return perfd_reply_bytes(r, rc == 0 ? 202 : 503, "text/plain", rc == 0 ? "queued\n" : "no\n", rc == 0 ? 7 : 3);
}
PERFD_ROUTE(test_request, "GET", "/test/request", 0, request)

/* GET /test/peek?q=Q: the latest snapshot's number, or 404. */
static int peek(perfd_req *r)
{
    perfd_snap *s = perfd_snapshot_peek(perfd_arg(r, "q"));
    if (!s) return perfd_reply_error(r, 404, "nothing published yet");
    char body[64];
    int n = snprintf(body, sizeof body, "seq=%llu len=%zu\n", (unsigned long long)s->seq, s->len);
    perfd_snap_unref(s);
    return perfd_reply_bytes(r, 200, "text/plain", body, (size_t)n);
}
PERFD_ROUTE(test_peek, "GET", "/test/peek", 0, peek)

/* GET /test/calls/...: a prefix route whose handler counts its own calls
 * in r->user across the WAIT (2: one before, one after the collection). */
static int calls(perfd_req *r)
{
    if (!r->user) {
        r->user = calloc(1, sizeof(int));
        r->user_free = free;
        if (!r->user) return PERFD_FAIL;
    }
    int *n = r->user;
    (*n)++;
    perfd_snap *s = perfd_snapshot(r, "Global");
    if (!s) return PERFD_WAIT;
    char body[128];
    int len = snprintf(body, sizeof body, "calls=%d path=%s\n", *n, r->url);
    return perfd_reply_bytes(r, 200, "text/plain", body, (size_t)len);
}
PERFD_ROUTE(test_calls, "GET", "/test/calls/", PERFD_PREFIX, calls)

/* GET /test/busy?ms=N: a job of N ms (at most 5 s) on perfd's worker
 * thread (perfd_defer); answers "busy=N" once it has run. */
typedef struct busy_job {
    long ms;
    int done;
} busy_job;

static void busy_run(void *arg)
{
    busy_job *j = arg;
    struct timespec ts = {j->ms / 1000, (j->ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    j->done = 1;
}

static int busy(perfd_req *r)
{
    busy_job *j = r->user;
    if (j && j->done) {
        char body[64];
        int len = snprintf(body, sizeof body, "busy=%ld\n", j->ms);
        return perfd_reply_bytes(r, 200, "text/plain", body, (size_t)len);
    }
    const char *ms = perfd_arg(r, "ms");
    j = calloc(1, sizeof *j);
    if (!j) return PERFD_FAIL;
    j->ms = ms ? strtol(ms, NULL, 10) : 0;
    if (j->ms < 0 || j->ms > 5000) j->ms = 0;
    r->user = j;
    r->user_free = free;
    return perfd_defer(r, busy_run, j);
}
PERFD_ROUTE(test_busy, "GET", "/test/busy", 0, busy)

/* POST /test/echo: a route that takes a body (PERFD_BODY), up to
 * max_body_bytes; answers its length and first bytes. */
static int echo(perfd_req *r)
{
    char body[128];
    int n = snprintf(body, sizeof body, "got %zu bytes: %.32s\n", r->body_len, r->body ? r->body : "");
    return perfd_reply_bytes(r, 200, "text/plain", body, (size_t)n);
}
PERFD_ROUTE(test_echo, "POST", "/test/echo", PERFD_BODY, echo)
