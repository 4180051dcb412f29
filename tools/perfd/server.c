/* perfd: the HTTP server (libmicrohttpd, one internal epoll thread per
 * listening address), the route table, the limits and authentication.
 *
 * Order of checks for every request, before any handler runs:
 *   1. connection limits (accept policy: total and per client address);
 *   2. the request headers' size (431), the query's size (414);
 *   3. Host and Origin (origin.c: 421, 403);
 *   4. authentication when configured (401), except for PERFD_NOAUTH routes:
 *      before the route, so an unknown path says nothing without it;
 *   5. the route: unknown path 404, other method 405 with Allow;
 *   6. the body: refused (413) by a route that takes none (only PERFD_BODY
 *      routes do, up to max_body_bytes), and framing that could be read two
 *      ways (two Content-Lengths that differ, Content-Length with
 *      Transfer-Encoding, an encoding other than chunked) is 400; decided on
 *      the headers, so a refused body never gets "100 Continue".
 * Before all of these, on the raw request line (uri_seen): a NUL (%00)
 * anywhere is 400 and more than PERFD_MAX_ARGS query arguments 414, so
 * neither cuts nor exhausts what libmicrohttpd parses. The request timeout
 * covers the whole request, body included: the deadline is cleared when the
 * handler runs or the refusal is queued.
 * Every refusal writes one line to stderr. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include "daemon.h"
#include "tls.h"

/* ---------------------------------------------------------------- logging */

void perfd_log(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* One line, whatever a client put in its path (%0A decodes to a
     * newline): control characters become '?'. */
    for (char *p = line; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    /* One write per line, so lines from two threads never interleave. */
    char out[1100];
    int n = snprintf(out, sizeof out, "perfd: %s\n", line);
    if (n > (int)sizeof out - 1) n = (int)sizeof out - 1;
    fwrite(out, 1, (size_t)n, stderr);
    fflush(stderr);
}

/* A send that failed because the client went away (a closed page or tab, a
 * curl --max-time, Prometheus giving up on a scrape) is how every event
 * stream ends: libmicrohttpd reports it as an error, but it is no fault of
 * perfd's nor of the request, and logging it filled perfd's log in normal
 * use. Other send failures are still logged. */
static int client_went_away(const char *line)
{
    if (strncmp(line, "Failed to send ", 15) != 0) return 0;
    return strstr(line, "no longer available for sending") || strstr(line, "closed by remote peer") ||
           strstr(line, "socket is not connected");
}

__attribute__((format(printf, 2, 0))) static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char line[900];
    vsnprintf(line, sizeof line, fmt, ap);
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
    /* Its error answers are logged by mhd_errors.c, in perfd's form. */
    if (strncmp(line, "Error processing request", 24) == 0) return;
    if (client_went_away(line)) return;
    perfd_log("libmicrohttpd: %s", line);
}

/* ----------------------------------------------------------------- routes */

static perfd_route *routes;

void perfd_route_add(perfd_route *route)
{
    route->next_ = routes;
    routes = route;
}

static int method_matches(const char *want, const char *got)
{
    if (strcmp(want, got) == 0) return 1;
    return strcmp(want, "GET") == 0 && strcmp(got, "HEAD") == 0;
}

/* The route for (method, path); *path_known tells 404 from 405, allow[]
 * lists the methods that path has. */
static perfd_route *route_find(const char *method, const char *path, int *path_known, char *allow, size_t allowlen)
{
    perfd_route *best = NULL;
    size_t best_len = 0;
    int best_exact = 0;
    *path_known = 0;
    allow[0] = 0;
    /* First the best matching path, regardless of method. */
    for (perfd_route *r = routes; r; r = r->next_) {
        size_t n = strlen(r->path);
        int exact = !(r->flags & PERFD_PREFIX) && strcmp(r->path, path) == 0;
        int prefix = (r->flags & PERFD_PREFIX) && strncmp(r->path, path, n) == 0;
        if (!exact && !prefix) continue;
        if (exact && !best_exact) {
            best_exact = 1;
            best_len = n;
        } else if (!best_exact && prefix && n > best_len) {
            best_len = n;
        }
    }
    for (perfd_route *r = routes; r; r = r->next_) {
        size_t n = strlen(r->path);
        int exact = !(r->flags & PERFD_PREFIX) && strcmp(r->path, path) == 0;
        int prefix = (r->flags & PERFD_PREFIX) && strncmp(r->path, path, n) == 0;
        if (best_exact ? !exact : !(prefix && n == best_len)) continue;
        *path_known = 1;
        size_t used = strlen(allow);
        if (!strstr(allow, r->method))
            snprintf(allow + used, allowlen - used, "%s%s%s", used ? ", " : "", r->method,
                     strcmp(r->method, "GET") == 0 ? ", HEAD" : "");
        if (!best && method_matches(r->method, method)) best = r;
    }
    return best;
}

/* ----------------------------------------------------- connection limits */

/* One client address: its connections (for the per-address limit and for
 * choosing whom to evict). */
typedef struct addr_rec {
    struct sockaddr_storage addr;
    unsigned live;                /* its connections not shut down by perfd */
    unsigned listed;              /* all of them, until libmicrohttpd closes them */
    struct addr_rec *next;
} addr_rec;

#define ADDR_BUCKETS 1024u

typedef struct conn_track {
    struct sockaddr_storage addr;
    addr_rec *ar;
    char text[INET6_ADDRSTRLEN + 8];
    int fd;
    int handling;                 /* its request is complete and being answered */
    int gone;                     /* shut down by perfd (evicted, dropped): no longer counted */
    uint64_t deadline_ns;         /* the request must be complete by then (while !handling) */
    uint64_t idle_since_ns;       /* connected, or its last answer ended */
    struct conn_track *prev, *next;
} conn_track;

static struct {
    pthread_mutex_t mu;
    conn_track *list;
    unsigned live;                /* connections not shut down by perfd */
    addr_rec *addrs[ADDR_BUCKETS];
    unsigned long long evicted;   /* since start, for the log */
    pthread_t reaper;
    pthread_cond_t cv;
    int reaper_running, stopping;
} L = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static const perfd_config *CFG;
static struct MHD_Daemon *daemons[PERFD_MAX_LISTEN];
static size_t n_daemons;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int same_ip(const struct sockaddr *a, const struct sockaddr_storage *b)
{
    if (a->sa_family != b->ss_family) return 0;
    if (a->sa_family == AF_INET)
        return memcmp(&((const struct sockaddr_in *)a)->sin_addr, &((const struct sockaddr_in *)b)->sin_addr, 4) == 0;
    if (a->sa_family == AF_INET6)
        return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr, &((const struct sockaddr_in6 *)b)->sin6_addr,
                      16) == 0;
    return 0;
}

void perfd_addr_text(const struct sockaddr *sa, char *out, size_t len)
{
    out[0] = 0;
    if (!sa) {
        snprintf(out, len, "?");
    } else if (sa->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)len);
    } else if (sa->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, (socklen_t)len);
    } else {
        snprintf(out, len, "?");
    }
}

static size_t ip_bytes(const struct sockaddr *a, const unsigned char **p)
{
    if (a && a->sa_family == AF_INET) {
        *p = (const unsigned char *)&((const struct sockaddr_in *)a)->sin_addr;
        return 4;
    }
    if (a && a->sa_family == AF_INET6) {
        *p = (const unsigned char *)&((const struct sockaddr_in6 *)a)->sin6_addr;
        return 16;
    }
    *p = NULL;
    return 0;
}

/* Lock held: the record of that address (made when `make`), or NULL. */
static addr_rec *addr_of(const struct sockaddr *a, int make)
{
    const unsigned char *p;
    size_t n = ip_bytes(a, &p);
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    addr_rec **b = &L.addrs[h % ADDR_BUCKETS];
    for (addr_rec *r = *b; r; r = r->next)
        if (a && same_ip(a, &r->addr)) return r;
    if (!make || !a) return NULL;
    addr_rec *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    memcpy(&r->addr, a, a->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
    r->next = *b;
    *b = r;
    return r;
}

static void addr_drop(addr_rec *r)
{
    if (!r || --r->listed) return;
    const unsigned char *p;
    size_t n = ip_bytes((const struct sockaddr *)&r->addr, &p);
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    for (addr_rec **pr = &L.addrs[h % ADDR_BUCKETS]; *pr; pr = &(*pr)->next) {
        if (*pr == r) {
            *pr = r->next;
            free(r);
            return;
        }
    }
}

/* Lock held: the connection is shut down by perfd; it no longer counts. */
static void mark_gone(conn_track *t)
{
    shutdown(t->fd, SHUT_RDWR);
    t->gone = 1;
    L.live--;
    if (t->ar) t->ar->live--;
}

/* Lock held: shut down an idle connection so a new one can come in: from
 * address `ar` when not NULL (its per-address limit), else from the address
 * with the most connections (so a flood of idle connections from a few
 * addresses pays for itself, and a lone scraper's is the last to go); among
 * those the one idle longest. Idle: no request being answered (a client
 * still sending one counts as idle). 1 when one was evicted.
 * libmicrohttpd sees the shutdown and closes it. */
static int evict_idle(addr_rec *ar, const char *for_whom)
{
    conn_track *victim = NULL;
    for (conn_track *t = L.list; t; t = t->next) {
        if (t->gone || t->handling || t->fd < 0) continue;
        if (ar && t->ar != ar) continue;
        unsigned tl = t->ar ? t->ar->live : 0, vl = victim && victim->ar ? victim->ar->live : 0;
        if (!victim || tl > vl || (tl == vl && t->idle_since_ns < victim->idle_since_ns)) victim = t;
    }
    if (!victim) return 0;
    mark_gone(victim);
    L.evicted++;
    perfd_log_refusal(0, "evicted", "evicted an idle connection of %s to make room for %s (%llu so far)", victim->text,
                      for_whom, (unsigned long long)L.evicted);
    return 1;
}

/* Accept policy: runs on the accepting daemon's thread before the
 * connection exists; counts are kept by on_connection. When a limit is
 * reached, an idle connection makes room (evict_idle: one of the same
 * address for the per-address limit); only when none is idle is the new one
 * refused, and the refusal log line is rate-limited (loglimit.c). */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    (void)cls;
    (void)addrlen;
    char text[INET6_ADDRSTRLEN];
    perfd_addr_text(addr, text, sizeof text);
    pthread_mutex_lock(&L.mu);
    addr_rec *ar = addr_of(addr, 0);
    unsigned same = ar ? ar->live : 0;
    if (same >= CFG->max_per_ip && !evict_idle(ar, text)) {
        pthread_mutex_unlock(&L.mu);
        perfd_log_refusal(0, "connections from this address", "refused %s: %u connections from this address (limit %u)",
                          text, same, CFG->max_per_ip);
        return MHD_NO;
    }
    unsigned total = L.live;
    if (total >= CFG->max_connections && !evict_idle(NULL, text)) {
        pthread_mutex_unlock(&L.mu);
        perfd_log_refusal(0, "connections open", "refused %s: %u connections open, none idle (limit %u)", text, total,
                          CFG->max_connections);
        return MHD_NO;
    }
    pthread_mutex_unlock(&L.mu);
    return MHD_YES;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    (void)cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        conn_track *t = calloc(1, sizeof *t);
        if (!t) return;
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        if (ci && ci->client_addr) {
            socklen_t n = ci->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                                                 : sizeof(struct sockaddr_in);
            memcpy(&t->addr, ci->client_addr, n);
        }
        perfd_addr_text(ci ? ci->client_addr : NULL, t->text, sizeof t->text);
        ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        t->fd = ci ? ci->connect_fd : -1;
        t->idle_since_ns = mono_ns();
        t->deadline_ns = t->idle_since_ns + (uint64_t)CFG->request_timeout_s * 1000000000u;
        pthread_mutex_lock(&L.mu);
        t->next = L.list;
        if (L.list) L.list->prev = t;
        L.list = t;
        L.live++;
        t->ar = addr_of((const struct sockaddr *)&t->addr, 1);
        if (t->ar) {
            t->ar->live++;
            t->ar->listed++;
        }
        pthread_mutex_unlock(&L.mu);
        *socket_context = t;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        conn_track *t = *socket_context;
        if (!t) return;
        pthread_mutex_lock(&L.mu);
        if (t->prev)
            t->prev->next = t->next;
        else
            L.list = t->next;
        if (t->next) t->next->prev = t->prev;
        if (!t->gone) {
            L.live--;
            if (t->ar) t->ar->live--;
        }
        addr_drop(t->ar);
        pthread_mutex_unlock(&L.mu);
        free(t);
        *socket_context = NULL;
    }
}

static conn_track *track_of(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

/* The request-timeout reaper: a connection whose request (headers and
 * body) is not complete by its deadline (a slowloris trickling bytes, which
 * resets the idle timeout) is shut down; libmicrohttpd then closes it. It
 * also ends the refusal log's intervals (loglimit.c). The fd is
 * valid while its record is listed: the record goes (under L.mu) before
 * libmicrohttpd closes the socket. */
static void *reaper(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&L.mu);
    while (!L.stopping) {
        /* L.cv has the default clock (CLOCK_REALTIME): a deadline on
         * another clock lies in the past and the wait would spin. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 250000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&L.cv, &L.mu, &ts);
        uint64_t now = mono_ns();
        for (conn_track *t = L.list; t; t = t->next) {
            if (!t->handling && !t->gone && now > t->deadline_ns && t->fd >= 0) {
                perfd_log_refusal(0, "dropped", "dropped %s: request not complete within %u s", t->text,
                                  CFG->request_timeout_s);
                mark_gone(t);
            }
        }
        pthread_mutex_unlock(&L.mu);
        perfd_loglimit_tick();
        pthread_mutex_lock(&L.mu);
    }
    pthread_mutex_unlock(&L.mu);
    return NULL;
}

/* ------------------------------------------------------------- requests */

typedef struct req_state {
    perfd_req pub;
    const perfd_listen *listen;   /* the listener that got it */
    perfd_route *route;
    int started;      /* the first call (headers complete) happened */
    int refused;      /* a refusal was queued */
    int nul;          /* the request line holds %00 */
    size_t n_args;    /* query arguments on the request line */
    int over;         /* a chunked body passed max_body_bytes: 413 at its end */
    const char *version;
    const char *uri_end;  /* where the raw request target's text ends */
    char *body;       /* a PERFD_BODY route's body */
    size_t body_len;
} req_state;

#define PERFD_MAX_ARGS 256

/* The raw request line, before libmicrohttpd splits and decodes it (its
 * return value is the request's state from then on). A %00 would cut a
 * decoded argument or path short without a word; hundreds of arguments
 * would exhaust the connection's memory while libmicrohttpd parses them
 * (it then answered nothing and held the connection). Both are refused on
 * the first call; the arguments are then not parsed at all. */
static void *uri_seen(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)conn;
    req_state *st = calloc(1, sizeof *st);
    if (!st) return NULL;
    st->listen = cls;
    /* libmicrohttpd ends the target with a NUL just before the version: a
     * NUL that ends it sooner came from the client (checked on the first
     * call, against the version's address). */
    st->uri_end = uri + strlen(uri);
    for (const char *p = uri; (p = strchr(p, '%')) != NULL; p++)
        if (p[1] == '0' && p[2] == '0') st->nul = 1;
    char *q = strchr(uri, '?');
    if (q) {
        st->n_args = 1;
        for (const char *p = q + 1; *p; p++)
            if (*p == '&' || *p == ';') st->n_args++;
        /* The line is libmicrohttpd's own buffer, which it splits in place
         * right after this call: an empty argument list is parsed instead. */
        if (st->n_args > PERFD_MAX_ARGS && q[1]) q[1] = '\0';
    }
    return st;
}

const char *perfd_arg(perfd_req *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

static enum MHD_Result add_size(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    size_t *n = cls;
    *n += strlen(key) + (value ? strlen(value) : 0) + 4;
    return MHD_YES;
}

static void add_common_headers(struct MHD_Response *resp)
{
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
}

static int queue(perfd_req *r, unsigned status, struct MHD_Response *resp, const char *content_type)
{
    if (!resp) return PERFD_FAIL;
    if (content_type) MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    add_common_headers(resp);
    if (r->snap_ && r->snap_->status == PL_OK) {
        /* Every answer made from a snapshot names it. */
        char seq[32];
        snprintf(seq, sizeof seq, "%llu", (unsigned long long)r->snap_->seq);
        MHD_add_response_header(resp, "X-Perflib-Snapshot", seq);
    }
    enum MHD_Result ok = MHD_queue_response(r->conn, status, resp);
    MHD_destroy_response(resp);
    return ok == MHD_YES ? PERFD_DONE : PERFD_FAIL;
}

int perfd_reply_bytes(perfd_req *r, unsigned status, const char *content_type, const void *data, size_t len)
{
    return queue(r, status, MHD_create_response_from_buffer(len, (void *)data, MHD_RESPMEM_MUST_COPY), content_type);
}

int perfd_reply_owned(perfd_req *r, unsigned status, const char *content_type, void *data, size_t len)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer_with_free_callback(len, data, free);
    if (!resp) free(data);
    return queue(r, status, resp, content_type);
}

int perfd_reply_owned_enc(perfd_req *r, unsigned status, const char *content_type, const char *encoding, void *data,
                          size_t len)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer_with_free_callback(len, data, free);
    if (!resp) {
        free(data);
        return PERFD_FAIL;
    }
    if (encoding) MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, encoding);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, MHD_HTTP_HEADER_ACCEPT_ENCODING);
    return queue(r, status, resp, content_type);
}

static void snap_release(void *cls)
{
    perfd_snap_unref(cls);
}

int perfd_reply_snap(perfd_req *r, unsigned status, const char *content_type, perfd_snap *s)
{
    perfd_snap_ref(s); /* the response's own reference: outlives the request if the client is slow */
    struct MHD_Response *resp =
        MHD_create_response_from_buffer_with_free_callback_cls(s->len, (void *)s->data, snap_release, s);
    if (!resp) {
        perfd_snap_unref(s);
        return PERFD_FAIL;
    }
    MHD_add_response_header(resp, "X-Perflib-Type", s->type == PL_REG_MULTI_SZ ? "REG_MULTI_SZ" : "REG_BINARY");
    return queue(r, status, resp, content_type);
}

int perfd_reply_error(perfd_req *r, unsigned status, const char *reason)
{
    if (status < 500)
        perfd_log_refusal(status, reason, "%u %s %s %s: %s", status, r->client ? r->client : "?", r->method, r->url,
                          reason);
    else
        perfd_log("%u %s %s %s: %s", status, r->client ? r->client : "?", r->method, r->url, reason);
    char body[600];
    int n = snprintf(body, sizeof body, "%s\n", reason);
    if (n > (int)sizeof body - 1) n = (int)sizeof body - 1;
    struct MHD_Response *resp = MHD_create_response_from_buffer((size_t)n, body, MHD_RESPMEM_MUST_COPY);
    if (resp && status == MHD_HTTP_UNAUTHORIZED) MHD_add_response_header(resp, "WWW-Authenticate", "Bearer");
    return queue(r, status, resp, "text/plain; charset=utf-8");
}

static int reply_405(perfd_req *r, const char *allow)
{
    perfd_log_refusal(405, "method not allowed", "405 %s %s %s: method not allowed", r->client, r->method, r->url);
    static const char body[] = "method not allowed\n";
    struct MHD_Response *resp = MHD_create_response_from_buffer(sizeof body - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
    if (resp) MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
    return queue(r, MHD_HTTP_METHOD_NOT_ALLOWED, resp, "text/plain; charset=utf-8");
}

/* The q= argument, checked: 400/414 replies are made here (returns NULL
 * with *rc set). A missing q is "Global", as the engine's NULL query. */
const char *perfd_query_arg(perfd_req *r, int *rc)
{
    const char *q = perfd_arg(r, "q");
    if (!q) return "Global";
    size_t n = strlen(q), max = CFG->max_query_bytes;
    if (n > max) {
        char why[96];
        snprintf(why, sizeof why, "query too long (%zu bytes, limit %zu)", n, max);
        *rc = perfd_reply_error(r, MHD_HTTP_URI_TOO_LONG, why);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)q[i] < 0x20 || q[i] == 0x7f) {
            *rc = perfd_reply_error(r, MHD_HTTP_BAD_REQUEST, "bad query: control character");
            return NULL;
        }
    }
    return q;
}

/* A snapshot the engine could not make, with the engine's message: 403 a
 * remote machine that is not listed, 400 a malformed Foreign query, 503
 * perfd busy or stopping, 502 another machine that failed, else 500. */
int perfd_reply_snap_error(perfd_req *r, const perfd_snap *s)
{
    char target[301];
    int foreign = 0;
    pl_query_foreign_target(s->query, target, sizeof target, &foreign, NULL);
    unsigned code = MHD_HTTP_INTERNAL_SERVER_ERROR;
    if (s->status == PL_E_DENIED) code = MHD_HTTP_FORBIDDEN;
    else if (s->status == PL_E_PARSE && foreign) code = MHD_HTTP_BAD_REQUEST;
    else if (s->status == PL_E_BUSY) code = MHD_HTTP_SERVICE_UNAVAILABLE;
    else if (foreign) code = MHD_HTTP_BAD_GATEWAY;
    if (code == MHD_HTTP_FORBIDDEN || code == MHD_HTTP_BAD_REQUEST) return perfd_reply_error(r, code, s->error);
    char why[600];
    snprintf(why, sizeof why, "collection failed: %s", s->error);
    return perfd_reply_error(r, code, why);
}

static enum MHD_Result result_of(int rc)
{
    return rc == PERFD_FAIL ? MHD_NO : MHD_YES;
}

/* First call for a request (headers complete): every check. Returns
 * PERFD_DONE when the request may go on to its handler, else what the
 * refusal returned (with st->refused set). */
/* The request's framing, from its headers. */
typedef struct framing {
    unsigned n_length, n_te;
    int lengths_differ, te_chunked_only;
    const char *length;
    unsigned long long content_length;
} framing;

static enum MHD_Result scan_framing(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    framing *f = cls;
    if (!key || !value) return MHD_YES;
    if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
        if (f->n_length++ && strcmp(f->length, value) != 0) f->lengths_differ = 1;
        f->length = value;
        f->content_length = strtoull(value, NULL, 10);
    } else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
        f->te_chunked_only = f->n_te++ == 0 && strcasecmp(value, "chunked") == 0;
    }
    return MHD_YES;
}

static int first_checks(req_state *st, struct MHD_Connection *conn, const char *url)
{
    perfd_req *r = &st->pub;
    st->refused = 1;
    if (st->nul) return perfd_reply_error(r, MHD_HTTP_BAD_REQUEST, "a NUL byte (%00) in the request line");
    if (!st->version || strncmp(st->version, "HTTP/1.", 7) != 0 || (st->uri_end && st->uri_end + 1 != st->version))
        return perfd_reply_error(r, MHD_HTTP_BAD_REQUEST, "a NUL byte in the request line, or no HTTP/1.x version");
    if (st->n_args > PERFD_MAX_ARGS) {
        char why[96];
        snprintf(why, sizeof why, "too many query arguments (%zu, limit %d)", st->n_args, PERFD_MAX_ARGS);
        return perfd_reply_error(r, MHD_HTTP_URI_TOO_LONG, why);
    }
    size_t hdr = strlen(url) + strlen(r->method) + 16;
    MHD_get_connection_values(conn, MHD_HEADER_KIND, add_size, &hdr);
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, add_size, &hdr);
    if (hdr > CFG->max_header_bytes) {
        char why[128];
        snprintf(why, sizeof why, "request headers too large (%zu bytes, limit %zu)", hdr, CFG->max_header_bytes);
        return perfd_reply_error(r, MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE, why);
    }
    framing f = {0};
    MHD_get_connection_values(conn, MHD_HEADER_KIND, scan_framing, &f);
    if (f.lengths_differ) return perfd_reply_error(r, MHD_HTTP_BAD_REQUEST, "conflicting Content-Length headers");
    if (f.n_length && f.n_te)
        return perfd_reply_error(r, MHD_HTTP_BAD_REQUEST, "both Content-Length and Transfer-Encoding");
    if (f.n_te && !f.te_chunked_only)
        return perfd_reply_error(r, MHD_HTTP_BAD_REQUEST, "a Transfer-Encoding other than chunked");
    if (strcmp(st->version, "HTTP/1.0") != 0 && !MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST))
        return perfd_reply_error(r, MHD_HTTP_BAD_REQUEST, "an HTTP/1.1 request without Host");
    char why[256];
    int o = perfd_origin_check(conn, st->listen, why, sizeof why);
    if (o != 0) return perfd_reply_error(r, (unsigned)o, why);
    int known = 0;
    char allow[128];
    st->route = route_find(r->method, url, &known, allow, sizeof allow);
    if (!(st->route && (st->route->flags & PERFD_NOAUTH))) {
        int a = perfd_tls_authorize(conn, why, sizeof why);
        if (a != 0) return perfd_reply_error(r, (unsigned)a, why);
    }
    if (!st->route && !known) return perfd_reply_error(r, MHD_HTTP_NOT_FOUND, "no such path");
    if (!st->route) return reply_405(r, allow);
    int has_body = f.n_te || f.content_length > 0;
    if (has_body && !(st->route->flags & PERFD_BODY))
        return perfd_reply_error(r, MHD_HTTP_CONTENT_TOO_LARGE, "this endpoint takes no request body");
    if (f.content_length > CFG->max_body_bytes) {
        snprintf(why, sizeof why, "request body too large (%llu bytes, limit %zu)", f.content_length,
                 CFG->max_body_bytes);
        return perfd_reply_error(r, MHD_HTTP_CONTENT_TOO_LARGE, why);
    }
    st->refused = 0;
    return PERFD_DONE;
}

/* The request is complete (or refused): the request timeout ends. */
static void request_in(struct MHD_Connection *conn)
{
    conn_track *t = track_of(conn);
    if (!t) return;
    pthread_mutex_lock(&L.mu);
    t->handling = 1;
    pthread_mutex_unlock(&L.mu);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_size, void **con_cls)
{
    req_state *st = *con_cls;
    if (!st) { /* uri_seen could not allocate */
        st = calloc(1, sizeof *st);
        if (!st) return MHD_NO;
        *con_cls = st;
        st->listen = cls;
    }
    if (!st->started) {
        st->started = 1;
        st->version = version;
        st->pub.conn = conn;
        st->pub.method = method;
        st->pub.url = url;
        conn_track *t = track_of(conn);
        st->pub.client = t ? t->text : "?";
        int rc = first_checks(st, conn, url);
        if (st->refused) request_in(conn);
        return result_of(rc);
    }
    if (st->refused) {
        *upload_size = 0; /* discard what follows a refusal */
        return MHD_YES;
    }
    if (*upload_size) {
        /* a PERFD_BODY route (first_checks refused a body anywhere else) */
        size_t n = *upload_size;
        *upload_size = 0;
        if (st->over || st->body_len + n > CFG->max_body_bytes) {
            st->over = 1; /* answered once the body has ended (or the deadline drops it) */
            return MHD_YES;
        }
        char *nb = realloc(st->body, st->body_len + n + 1);
        if (!nb) return MHD_NO;
        memcpy(nb + st->body_len, upload_data, n);
        st->body = nb;
        st->body_len += n;
        st->body[st->body_len] = 0;
        return MHD_YES;
    }
    request_in(conn);
    if (st->over) {
        st->refused = 1;
        char why[128];
        snprintf(why, sizeof why, "request body too large (limit %zu bytes)", CFG->max_body_bytes);
        return result_of(perfd_reply_error(&st->pub, MHD_HTTP_CONTENT_TOO_LARGE, why));
    }
    st->pub.body = st->body;
    st->pub.body_len = st->body_len;
    /* Once suspended, the connection may be resumed by the collector (and
     * st->pub.snap_/wait_ change) before the handler even returns: only
     * this thread's own flag says whether the WAIT is real. */
    st->pub.suspended_ = 0;
    int rc = st->route->fn(&st->pub);
    int suspended = st->pub.suspended_;
    st->pub.suspended_ = 0;
    if (rc == PERFD_WAIT && !suspended) {
        perfd_log("route %s returned WAIT without a pending snapshot", st->route->path);
        rc = perfd_reply_error(&st->pub, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal error");
    }
    return result_of(rc);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)toe;
    req_state *st = *con_cls;
    conn_track *t = track_of(conn);
    if (t) {
        /* Keep-alive: the next request has its own deadline. */
        pthread_mutex_lock(&L.mu);
        t->handling = 0;
        t->idle_since_ns = mono_ns();
        t->deadline_ns = t->idle_since_ns + (uint64_t)CFG->request_timeout_s * 1000000000u;
        pthread_mutex_unlock(&L.mu);
    }
    if (!st) return;
    perfd_snap_end_request(&st->pub);
    if (st->pub.user_free) st->pub.user_free(st->pub.user);
    free(st->body);
    free(st);
    *con_cls = NULL;
}

/* ---------------------------------------------------------------- daemon */

int perfd_server_start(const perfd_config *c, char *why, size_t whylen)
{
    CFG = c;
    L.stopping = 0;
    perfd_loglimit_init(c->log_interval_s);
    if (pthread_create(&L.reaper, NULL, reaper, NULL) != 0) {
        snprintf(why, whylen, "cannot start a thread: %s", strerror(errno));
        return -1;
    }
    L.reaper_running = 1;
    for (size_t i = 0; i < c->n_listen; i++) {
        const perfd_listen *l = &c->listen[i];
        struct sockaddr_storage ss;
        memset(&ss, 0, sizeof ss);
        unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
        if (l->family == AF_INET6) {
            struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
            s6->sin6_family = AF_INET6;
            s6->sin6_port = htons((uint16_t)l->port);
            inet_pton(AF_INET6, l->host, &s6->sin6_addr);
            flags |= MHD_USE_IPv6;
        } else {
            struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
            s4->sin_family = AF_INET;
            s4->sin_port = htons((uint16_t)l->port);
            inet_pton(AF_INET, l->host, &s4->sin_addr);
        }
        struct MHD_OptionItem tls_opts[8];
        size_t n_tls = perfd_tls_options(tls_opts, 8);
        if (n_tls) flags |= MHD_USE_TLS;
        tls_opts[n_tls].option = MHD_OPTION_END;
        tls_opts[n_tls].value = 0;
        tls_opts[n_tls].ptr_value = NULL;
        /* libmicrohttpd's own connection limits are a backstop above ours
         * (evicted connections are still counted there until it closes
         * them): accept_policy decides first, across all listeners, and
         * logs who was refused and why. */
        struct MHD_Daemon *d = MHD_start_daemon(
            flags, (uint16_t)l->port, accept_policy, NULL, on_request, (void *)l, MHD_OPTION_EXTERNAL_LOGGER, mhd_logger,
            NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT, 2u * c->max_connections + 16u,
            MHD_OPTION_PER_IP_CONNECTION_LIMIT, 2u * c->max_per_ip + 16u, MHD_OPTION_CONNECTION_TIMEOUT,
            (unsigned)c->idle_timeout_s, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(c->max_header_bytes + 16384),
            MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u, MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
            MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL, MHD_OPTION_URI_LOG_CALLBACK, uri_seen, (void *)l,
            MHD_OPTION_ARRAY, tls_opts, MHD_OPTION_END);
        if (!d) {
            snprintf(why, whylen, "cannot listen on %s%s%s:%u (address in use, not local, or no permission)",
                     l->family == AF_INET6 ? "[" : "", l->host, l->family == AF_INET6 ? "]" : "", l->port);
            perfd_server_stop();
            return -1;
        }
        daemons[n_daemons++] = d;
        const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
        unsigned port = di ? di->port : l->port;
        perfd_log("listening on %s://%s%s%s:%u/", n_tls ? "https" : "http", l->family == AF_INET6 ? "[" : "",
                  l->host, l->family == AF_INET6 ? "]" : "", port);
    }
    return 0;
}

void perfd_server_stop(void)
{
    for (size_t i = 0; i < n_daemons; i++) MHD_stop_daemon(daemons[i]);
    n_daemons = 0;
    if (L.reaper_running) {
        pthread_mutex_lock(&L.mu);
        L.stopping = 1;
        pthread_cond_broadcast(&L.cv);
        pthread_mutex_unlock(&L.mu);
        pthread_join(L.reaper, NULL);
        L.reaper_running = 0;
    }
}
