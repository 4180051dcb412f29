/* perfd: private interface between the daemon's files (docs/perfd.md).
 *
 * perfd serves one machine's counters over HTTP on libmicrohttpd's internal
 * epoll thread. Everything a request handler needs is here:
 *
 *   ROUTES. A file adds its routes without touching the dispatcher:
 *
 *       static int my_handler(perfd_req *r) { ... }
 *       PERFD_ROUTE(my_route, "GET", "/metrics", 0, my_handler)
 *       PERFD_ROUTE(my_assets, "GET", "/ui/", PERFD_PREFIX, assets_handler)
 *
 *   The macro registers the route before main() runs (a constructor). An
 *   exact path wins over a prefix; among prefixes the longest wins. "GET"
 *   routes also answer HEAD (libmicrohttpd drops the body). A path with no
 *   route is 404; a path whose routes have other methods is 405 with Allow.
 *   Authentication, limits, method and size checks all run BEFORE a handler
 *   is called; a handler only builds its answer.
 *
 *   HANDLERS run on the server thread and must never block: no sleeping, no
 *   waiting for a collection, no disk or network I/O beyond a few bytes, no
 *   rendering of a large answer (perfd_defer runs that on the worker).
 *   A handler returns PERFD_DONE after queueing a response (perfd_reply_*
 *   or MHD_queue_response on r->conn), PERFD_FAIL to drop the connection, or
 *   PERFD_WAIT after perfd_snapshot() said the snapshot is not ready: the
 *   connection is then suspended and the SAME handler is called again, on
 *   the same perfd_req, once the collection it waits for is published.
 *   r->user / r->user_free keep the handler's own state between calls.
 *
 *   SNAPSHOTS. One collector thread runs every engine query; answers are
 *   published as immutable, reference-counted perfd_snap objects. Requests
 *   arriving while a collection of the same query string runs share it;
 *   a snapshot younger than the configured max age is served as is, so two
 *   clients asking at the same moment see the same snapshot. A handler gets
 *   one with perfd_snapshot(); the reference it holds is dropped for it when
 *   the request ends (or earlier with perfd_snap_unref; take another with
 *   perfd_snap_ref to keep it in a response). Slow clients only hold
 *   references: they never delay the collector or other clients.
 *
 *   The engine (perfd_engine(), for its titles) may be used from any thread;
 *   it stays valid for the daemon's whole life. */
#ifndef PERFD_H
#define PERFD_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>

#include "perflib/query.h"

/* ------------------------------------------------------------ snapshots */

typedef struct perfd_snap {
    const uint8_t *data;  /* exactly the bytes pl_engine_query returned */
    size_t len;
    uint32_t type;        /* PL_REG_BINARY or PL_REG_MULTI_SZ */
    int status;           /* PL_OK, or the engine's failure (data NULL) */
    char error[512];      /* the engine's message when status != PL_OK */
    const char *query;    /* the query string it answers (normalised) */
    uint64_t seq;         /* publication number, increasing */
    uint64_t collected_ns;/* CLOCK_MONOTONIC time the collection finished */
    uint64_t took_ns;     /* how long the collection took */
    /* private */
    int refs_;
} perfd_snap;

perfd_snap *perfd_snap_ref(perfd_snap *s);
void perfd_snap_unref(perfd_snap *s);   /* accepts NULL */

/* ------------------------------------------------------------- requests */

typedef struct perfd_req perfd_req;

enum { PERFD_DONE = 0, PERFD_WAIT = 1, PERFD_FAIL = -1 };

struct perfd_req {
    struct MHD_Connection *conn;
    const char *method;   /* "GET", "HEAD", ... */
    const char *url;      /* the path, without the query string */
    const char *client;   /* the peer address as text, for log lines */
    const char *body;     /* a PERFD_BODY route's request body (NUL-terminated), else NULL */
    size_t body_len;
    void *user;           /* the handler's own state between calls */
    void (*user_free)(void *user);  /* called once when the request ends */
    /* private */
    perfd_snap *snap_;            /* written by the collector only while suspended */
    struct perfd_waiter *wait_;   /* under the publisher's lock */
    int suspended_;               /* this call suspended the connection (server thread only) */
};

/* Get the snapshot answering `query` (NULL or "" mean "Global"). Returns it
 * (a reference the request owns) when one is fresh enough, otherwise starts
 * or joins its collection and returns NULL: the handler then returns
 * PERFD_WAIT. A Foreign query for a machine that is not listed
 * (perfd_machine_lookup) is refused at once: a snapshot with status
 * PL_E_DENIED, and no collection. Foreign queries are collected by the
 * remote pool (docs/perfd.md), never by the collector thread; a machine
 * that failed, or that already has PERFD_REMOTE_WAITING requests waiting,
 * gets an error snapshot at once. Only one snapshot per request; calling again on the same
 * request returns the same one. A snapshot whose status is not PL_OK carries
 * the engine's error instead of data. */
perfd_snap *perfd_snapshot(perfd_req *r, const char *query);

/* The same for a thread of perfd's own (a stream's), which may block: waits
 * up to timeout_ms for the collection and returns the snapshot (a new
 * reference: perfd_snap_unref it), an error snapshot at once when the
 * machine is refused, resting or busy, or one saying no answer came in
 * time. Never from the server thread. */
perfd_snap *perfd_snapshot_wait(const char *query, unsigned timeout_ms);

/* The latest published snapshot for `query` without collecting, or NULL
 * (a new reference: perfd_snap_unref it). For streams that follow
 * publications. */
perfd_snap *perfd_snapshot_peek(const char *query);

/* Drop every kept snapshot too old to be served again (older than
 * snapshot_max_age_ms), so that a large one is not held until the next
 * scrape; the requests and answers that hold one keep it. perfd's worker
 * calls it a second after its last job. */
void perfd_snapshot_trim(void);

/* Start a collection of `query` unless one is queued or running, without a
 * request (for streams that sample on their own clock). 0, or -1 when
 * perfd is stopping or the query cannot be cached now. Never blocks. */
int perfd_snapshot_request(const char *query);

/* Called on the collector thread right after each publication, with the new
 * snapshot (borrowed: perfd_snap_ref it to keep it). Must not block: resume
 * suspended connections (MHD_resume_connection), flag work, return.
 *     static void on_new(perfd_snap *s) {...}
 *     PERFD_ON_PUBLISH(stream, on_new) */
typedef struct perfd_publish_hook {
    void (*fn)(perfd_snap *s);
    struct perfd_publish_hook *next_;
} perfd_publish_hook;
void perfd_publish_hook_add(perfd_publish_hook *h);
#define PERFD_ON_PUBLISH(name, fn)                                                                                     \
    static perfd_publish_hook perfd_publish_##name = {fn, NULL};                                                       \
    __attribute__((constructor)) static void perfd_publish_init_##name(void)                                           \
    {                                                                                                                  \
        perfd_publish_hook_add(&perfd_publish_##name);                                                                 \
    }

pl_engine *perfd_engine(void);

/* ------------------------------------------------------ remote machines */

/* May this perfd reach `target` ("host", "host:port", "[v6]:port", each
 * optionally after "\\")? Only machines the operator listed in
 * remote_config are (docs/perfd.md, "Remote machines"); a request never
 * adds one. 1: listed, *out (when not NULL; pl_remote_settings_free it)
 * holds its credentials and TLS settings and key[keylen] (when not NULL)
 * the machine as "host:port" in lower case, one name per machine whatever
 * the spelling. 0: not listed (why says so). -1: not a machine name (why).
 * In memory: may be called from the server thread. */
struct pl_remote_settings;
int perfd_machine_lookup(const char *target, struct pl_remote_settings *out, char *key, size_t keylen, char *why,
                         size_t whylen);
/* Is a PDH path's machine this one ("", ".", "localhost", the system name)? */
int perfd_machine_is_local(const char *machine);

/* Query-string argument of the request, or NULL. */
const char *perfd_arg(perfd_req *r, const char *name);

/* The request's q= argument, checked against the query limits; NULL after
 * replying 414/400 (return *rc then). No q= means "Global". */
const char *perfd_query_arg(perfd_req *r, int *rc);

/* Replies (each returns PERFD_DONE or PERFD_FAIL). The error reply sends
 * "reason\n" as text/plain and logs one line to stderr. */
int perfd_reply_bytes(perfd_req *r, unsigned status, const char *content_type, const void *data, size_t len);
int perfd_reply_snap(perfd_req *r, unsigned status, const char *content_type, perfd_snap *s);
int perfd_reply_error(perfd_req *r, unsigned status, const char *reason);
/* A snapshot whose status is not PL_OK, with the engine's message: 403 a
 * machine that is not listed, 400 a malformed Foreign query, 503 perfd busy
 * or stopping, 502 a remote machine that failed, else 500. */
int perfd_reply_snap_error(perfd_req *r, const perfd_snap *s);
/* Take ownership of a malloc'd buffer and send it. */
int perfd_reply_owned(perfd_req *r, unsigned status, const char *content_type, void *data, size_t len);
/* The same with a Content-Encoding ("gzip"; NULL for none), and "Vary:
 * Accept-Encoding" (an answer whose route can compress says so either way). */
int perfd_reply_owned_enc(perfd_req *r, unsigned status, const char *content_type, const char *encoding, void *data,
                          size_t len);

/* ------------------------------------------------------------ compression */

/* Does the request's Accept-Encoding take gzip (q > 0, by name or "*")?
 * perfd_gzip_accepted: the same for a header's value (NULL: no). */
int perfd_accepts_gzip(perfd_req *r);
int perfd_gzip_accepted(const char *accept_encoding);

/* The gzip (RFC 1952) of n bytes in a new buffer: *out (malloc'd, *outlen
 * bytes). 0, or -1 when out of memory. */
int perfd_gzip(const char *in, size_t n, char **out, size_t *outlen);

/* ---------------------------------------------------------- worker thread */

/* Run fn(arg) on perfd's worker thread, off the server thread: for a
 * handler whose answer takes a while to build (rendering /metrics or
 * /v1/json). The connection is suspended until fn has returned; then the
 * SAME handler is called again, as after a snapshot wait (r->user tells it
 * the work is done). Returns PERFD_WAIT (return it), or PERFD_FAIL when
 * perfd is stopping or out of memory (nothing was started). */
int perfd_defer(perfd_req *r, void (*fn)(void *arg), void *arg);

/* A queue thread's wait (mu held, cv of the default clock): while *busy, at
 * most PERFD_IDLE_TRIM_S; returns 1 (and clears *busy) when that passed
 * with no signal, the moment to give memory back; 0 when woken. The
 * caller checks its queue either way. */
#define PERFD_IDLE_TRIM_S 1
int perfd_idle_wait(pthread_cond_t *cv, pthread_mutex_t *mu, int *busy);

/* One log line on stderr: "perfd: <text>\n" (journald adds the time). */
void perfd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---------------------------------------------------------------- routes */

#define PERFD_PREFIX 1u  /* path is a prefix ("/ui/") rather than exact */
#define PERFD_NOAUTH 2u  /* answered without authentication (only /healthz) */
#define PERFD_BODY 4u    /* takes a request body (up to max_body_bytes); any other route refuses one (413) */

typedef int (*perfd_handler)(perfd_req *r);

typedef struct perfd_route {
    const char *method;
    const char *path;
    unsigned flags;
    perfd_handler fn;
    struct perfd_route *next_;
} perfd_route;

void perfd_route_add(perfd_route *route);

#define PERFD_ROUTE(name, method, path, flags, fn)                                                                     \
    static perfd_route perfd_route_##name = {method, path, flags, fn, NULL};                                           \
    __attribute__((constructor)) static void perfd_route_init_##name(void) { perfd_route_add(&perfd_route_##name); }

/* ----------------------------------------------------- config file keys */

/* A route file's own config-file key ("key = value"), e.g.
 *     static int set_objects(const char *v, char *why, size_t whylen) {...}
 *     PERFD_CONFIG_KEY(metrics_objects, "metrics_objects", set_objects)
 * set() returns 0, or -1 with the reason in why; it runs before the server
 * starts (and for --check-config), never concurrently with requests. */
typedef struct perfd_config_key {
    const char *name;
    int (*set)(const char *value, char *why, size_t whylen);
    struct perfd_config_key *next_;
} perfd_config_key;

void perfd_config_key_add(perfd_config_key *k);

#define PERFD_CONFIG_KEY(id, key, setter)                                                                              \
    static perfd_config_key perfd_config_key_##id = {key, setter, NULL};                                               \
    __attribute__((constructor)) static void perfd_config_key_init_##id(void)                                          \
    {                                                                                                                  \
        perfd_config_key_add(&perfd_config_key_##id);                                                                  \
    }

#endif
