/* perfd's remote_write bearer token (docs/perfd.md, "Push: remote_write"),
 * against a receiver that checks it: libmicrohttpd on 127.0.0.1 in this
 * process, answering 204 to the tokens it accepts and 401 (or 403) to any
 * other or none, decoding every accepted request (snappy, then the
 * WriteRequest through the same protoc-c code perfd uses) to count its
 * samples and batches. Checked: the token goes as `Authorization: Bearer`;
 * a SIGHUP after the file is rotated sends the new one whole, and a bad new
 * file (open to others, two tokens, too short) keeps the previous one with
 * the reason in the log; a 401/403 is not retried in a loop, is counted and
 * logged, and keeps the queue until a SIGHUP brings the right token, when
 * the samples taken meanwhile arrive; any other 4xx still drops. */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <snappy-c.h>

#include "pd_util.h"
#include "pl_test.h"
#include "pq_run.h"
#include "push_test.h"
#include "remote_write.pb-c.h"

#define INTERVAL_MS 300
#define MAX_REQ 4096
#define MAX_BATCH 100000
#define MAX_BODY (64u << 20)

static const char TOK_A[] = "token-aaaaaaaaaaaaaaaa";
static const char TOK_B[] = "token-bbbbbbbbbbbbbbbb";

/* ------------------------------------------------------------- receiver */

typedef struct req {
    int status;              /* what the receiver answered */
    char auth[128];          /* the Authorization header ("" none) */
    int64_t at_ms;           /* when it came (CLOCK_REALTIME) */
    size_t samples, batches, memory_series;
} req_t;

static struct {
    pthread_mutex_t mu;
    const char *accept[2];   /* the tokens accepted (NULL: none) */
    int deny_status;         /* 401 or 403 for any other; 0: answer 400 to everything */
    req_t req[MAX_REQ];
    size_t n;
    int64_t batch_ts[MAX_BATCH]; /* the time of every batch accepted */
    size_t nbatch;
    char bad[300];           /* the first thing that was not remote_write 1.0 */
    struct MHD_Daemon *d;
    unsigned port;
} RV = {.mu = PTHREAD_MUTEX_INITIALIZER};

typedef struct body {
    unsigned char *p;
    size_t len, cap;
    int too_big;
} body_t;

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* RV.mu held: note the first protocol fault. */
static void bad(const char *what)
{
    if (!RV.bad[0]) snprintf(RV.bad, sizeof RV.bad, "%s", what);
}

static int header_is(struct MHD_Connection *c, const char *name, const char *want)
{
    const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
    return v && strcmp(v, want) == 0;
}

/* RV.mu held: decode an accepted body into r and RV.batch_ts. */
static void decode(const body_t *b, req_t *r)
{
    size_t rawlen = 0;
    if (snappy_uncompressed_length((const char *)b->p, b->len, &rawlen) != SNAPPY_OK || rawlen > MAX_BODY) {
        bad("the body is not snappy");
        return;
    }
    char *raw = malloc(rawlen ? rawlen : 1);
    assert_non_null(raw);
    if (snappy_uncompress((const char *)b->p, b->len, raw, &rawlen) != SNAPPY_OK) {
        bad("the body does not uncompress");
        free(raw);
        return;
    }
    Prometheus__WriteRequest *wr = prometheus__write_request__unpack(NULL, rawlen, (const uint8_t *)raw);
    free(raw);
    if (!wr) {
        bad("the body is not a WriteRequest");
        return;
    }
    int64_t last = INT64_MIN;
    for (size_t i = 0; i < wr->n_timeseries; i++) {
        const Prometheus__TimeSeries *t = wr->timeseries[i];
        int named = 0;
        for (size_t l = 0; l < t->n_labels; l++)
            if (strcmp(t->labels[l]->name, "__name__") == 0) {
                named = 1;
                if (strcmp(t->labels[l]->value, "perflib_memory_available_bytes") == 0) r->memory_series++;
            }
        if (!named) bad("a series without __name__");
        for (size_t s = 0; s < t->n_samples; s++) {
            r->samples++;
            int64_t ts = t->samples[s]->timestamp;
            if (ts != last) { /* the series of one batch are together, with its one time */
                r->batches++;
                if (RV.nbatch < MAX_BATCH) RV.batch_ts[RV.nbatch++] = ts;
                last = ts;
            }
        }
    }
    prometheus__write_request__free_unpacked(wr, NULL);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *data, size_t *size, void **ctx)
{
    (void)cls;
    (void)version;
    body_t *b = *ctx;
    if (!b) {
        b = calloc(1, sizeof *b);
        if (!b) return MHD_NO;
        *ctx = b;
        return MHD_YES;
    }
    if (*size) {
        if (b->len + *size > MAX_BODY) b->too_big = 1;
        else {
            if (b->len + *size > b->cap) {
                size_t cap = (b->len + *size) * 2;
                unsigned char *p = realloc(b->p, cap);
                if (!p) return MHD_NO;
                b->p = p;
                b->cap = cap;
            }
            memcpy(b->p + b->len, data, *size);
            b->len += *size;
        }
        *size = 0;
        return MHD_YES;
    }
    const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    pthread_mutex_lock(&RV.mu);
    req_t *r = RV.n < MAX_REQ ? &RV.req[RV.n++] : NULL;
    req_t scratch;
    if (!r) r = &scratch;
    memset(r, 0, sizeof *r);
    r->at_ms = wall_ms();
    snprintf(r->auth, sizeof r->auth, "%s", auth ? auth : "");
    if (strcmp(method, "POST") != 0 || strcmp(url, "/api/v1/write") != 0) bad("not a POST to /api/v1/write");
    if (!header_is(c, "Content-Encoding", "snappy") || !header_is(c, "Content-Type", "application/x-protobuf") ||
        !header_is(c, "X-Prometheus-Remote-Write-Version", "0.1.0"))
        bad("not the remote_write 1.0 headers");
    if (b->too_big) bad("a body over 64 MiB");
    int ok = 0;
    for (int i = 0; i < 2; i++) {
        char want[128];
        if (!RV.accept[i]) continue;
        snprintf(want, sizeof want, "Bearer %s", RV.accept[i]);
        if (auth && strcmp(auth, want) == 0) ok = 1;
    }
    r->status = !RV.deny_status ? 400 : ok ? 204 : RV.deny_status;
    if (r->status == 204) decode(b, r);
    int status = r->status;
    pthread_mutex_unlock(&RV.mu);
    const char *text = status == 204 ? "" : status == 400 ? "out of order sample" : "invalid bearer token";
    struct MHD_Response *resp = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
    if (!resp) return MHD_NO;
    enum MHD_Result q = MHD_queue_response(c, (unsigned)status, resp);
    MHD_destroy_response(resp);
    return q;
}

static void on_done(void *cls, struct MHD_Connection *c, void **ctx, enum MHD_RequestTerminationCode why)
{
    (void)cls;
    (void)c;
    (void)why;
    body_t *b = *ctx;
    if (b) free(b->p);
    free(b);
    *ctx = NULL;
}

static void recv_start(const char *a, const char *b, int deny_status)
{
    pthread_mutex_lock(&RV.mu);
    RV.accept[0] = a;
    RV.accept[1] = b;
    RV.deny_status = deny_status;
    RV.n = RV.nbatch = 0;
    RV.bad[0] = 0;
    pthread_mutex_unlock(&RV.mu);
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    RV.d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, on_request, NULL,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sin, MHD_OPTION_NOTIFY_COMPLETED, on_done, NULL,
                            MHD_OPTION_CONNECTION_TIMEOUT, 30u, MHD_OPTION_END);
    assert_non_null(RV.d);
    const union MHD_DaemonInfo *i = MHD_get_daemon_info(RV.d, MHD_DAEMON_INFO_BIND_PORT);
    assert_non_null(i);
    RV.port = i->port;
    assert_true(RV.port != 0);
}

/* A copy of request k (waiting at most 30 s for it); fails with perfd's log
 * when it does not come. */
static pd_proc D;

static req_t wait_req(size_t k)
{
    for (int i = 0; i < 300; i++) {
        pthread_mutex_lock(&RV.mu);
        int have = RV.n > k;
        req_t r;
        if (have) r = RV.req[k];
        pthread_mutex_unlock(&RV.mu);
        if (have) return r;
        usleep(100000);
    }
    static char msg[8192];
    char *log = pd_log(&D);
    snprintf(msg, sizeof msg, "%s", log ? log : "");
    free(log);
    fail_msg("request %zu did not come in 30 s; perfd's log: %s", k + 1, msg);
    req_t none = {0};
    return none;
}

static size_t nreq(void)
{
    pthread_mutex_lock(&RV.mu);
    size_t n = RV.n;
    pthread_mutex_unlock(&RV.mu);
    return n;
}

static void no_protocol_fault(void)
{
    pthread_mutex_lock(&RV.mu);
    char b[300];
    snprintf(b, sizeof b, "%s", RV.bad);
    pthread_mutex_unlock(&RV.mu);
    if (b[0]) fail_msg("the receiver saw: %s", b);
}

/* ---------------------------------------------------------------- perfd */

static char *dir;
static char tokpath[700];

static void write_token(const char *text, mode_t mode)
{
    char tmp[800];
    snprintf(tmp, sizeof tmp, "%s.new", tokpath);
    assert_int_equal(pq_write_file(tmp, text, strlen(text)), 0);
    assert_int_equal(chmod(tmp, mode), 0);
    assert_int_equal(rename(tmp, tokpath), 0); /* as an operator's mv: never a half-written file */
}

/* perfd pushing to the receiver every INTERVAL_MS, with the token file when
 * with_token. */
static void perfd_start(int with_token)
{
    char url[128], interval[64], store[800], tokset[800];
    snprintf(url, sizeof url, "remote_write_url=http://127.0.0.1:%u/api/v1/write", RV.port);
    snprintf(interval, sizeof interval, "remote_write_interval_ms=%d", INTERVAL_MS);
    snprintf(store, sizeof store, "%s/perflib.db", dir);
    snprintf(tokset, sizeof tokset, "remote_write_token_file=%s", tokpath);
    const char *args[] = {"--registry", store, "--set", url, "--set", interval, "--set", "metrics_objects=Memory",
                          with_token ? "--set" : NULL, tokset, NULL};
    assert_int_equal(pd_start(&D, args, NULL), 0);
}

static int setup(void **state)
{
    (void)state;
    dir = pq_mkdtemp();
    if (!dir) return -1;
    snprintf(tokpath, sizeof tokpath, "%s/rw-token", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    int rc = 0;
    if (D.pid > 0) {
        char *log = pd_log(&D);
        int st = pd_stop(&D);
        if (st != 0) {
            fprintf(stderr, "perfd exited %d after SIGTERM; its log:\n%s\n", st, log ? log : "");
            rc = -1;
        }
        free(log);
    }
    if (RV.d) MHD_stop_daemon(RV.d);
    RV.d = NULL;
    if (dir) {
        pq_rmdir(dir);
        free(dir);
        dir = NULL;
    }
    return rc;
}

static void expect_auth(const req_t *r, const char *token, size_t k)
{
    char want[128];
    snprintf(want, sizeof want, "Bearer %s", token);
    if (strcmp(r->auth, want) != 0)
        fail_msg("request %zu: Authorization \"%s\", expected \"%s\"", k + 1, r->auth, want);
}

/* The right token, as `Authorization: Bearer TOKEN`; what the receiver
 * decoded is what perfd counts as sent. */
static void live_push_token_bearer(void **state)
{
    (void)state;
    recv_start(TOK_A, NULL, 401);
    write_token("token-aaaaaaaaaaaaaaaa\n", 0600);
    perfd_start(1);
    for (size_t k = 0; k < 3; k++) {
        req_t r = wait_req(k);
        expect_auth(&r, TOK_A, k);
        assert_int_equal(r.status, 204);
        assert_true(r.samples > 0);
        assert_true(r.memory_series >= 1);
    }
    no_protocol_fault();
    /* perfd counts a request once it has the answer, the receiver before it
     * answers: what perfd says it sent is what some first requests held */
    double sent = pst_self(D.port, "perflib_remote_write_samples_sent_total");
    assert_true(sent > 0);
    pthread_mutex_lock(&RV.mu);
    double sum = 0;
    int match = 0;
    for (size_t k = 0; k < RV.n && sum <= sent; k++) {
        sum += (double)RV.req[k].samples;
        if (sum == sent) match = 1;
    }
    pthread_mutex_unlock(&RV.mu);
    if (!match) fail_msg("perfd says %.0f samples sent; no run of first requests the receiver decoded holds that", sent);
    assert_true(pst_self(D.port, "perflib_remote_write_auth_failed_requests_total") == 0);
    assert_true(pst_self(D.port, "perflib_remote_write_samples_refused_total") == 0);
}

/* Key rotation: the file gets a new token, SIGHUP, and the next requests
 * carry the new one whole (never a mix); a bad new file keeps it. */
static void live_push_token_rotation(void **state)
{
    (void)state;
    recv_start(TOK_A, TOK_B, 401);
    write_token("token-aaaaaaaaaaaaaaaa\n", 0600);
    perfd_start(1);
    req_t r = wait_req(1);
    expect_auth(&r, TOK_A, 1);

    write_token("token-bbbbbbbbbbbbbbbb\n", 0600);
    kill(D.pid, SIGHUP);
    pst_wait_log(&D, "SIGHUP: remote_write token reloaded", 1, 10000);
    size_t from = nreq();
    wait_req(from + 3);
    pthread_mutex_lock(&RV.mu);
    size_t n = RV.n, a_after = 0;
    int seen_b = 0;
    for (size_t k = 0; k < n; k++) {
        const req_t *q = &RV.req[k];
        int is_a = strcmp(q->auth, "Bearer token-aaaaaaaaaaaaaaaa") == 0;
        int is_b = strcmp(q->auth, "Bearer token-bbbbbbbbbbbbbbbb") == 0;
        if ((!is_a && !is_b) || (is_a && seen_b) || q->status != 204) {
            pthread_mutex_unlock(&RV.mu);
            fail_msg("request %zu of %zu: Authorization \"%s\", HTTP %d (after the reload at request %zu)", k + 1, n,
                     q->auth, q->status, from + 1);
        }
        if (is_b) seen_b = 1;
        if (is_a && k >= from) a_after++;
    }
    pthread_mutex_unlock(&RV.mu);
    assert_true(seen_b);
    /* the one request that may have been on its way when the log said it */
    assert_true(a_after <= 1);

    /* bad new files: the reason is logged, token B stays */
    static const struct {
        const char *text;
        mode_t mode;
        const char *why;
    } badf[] = {
        {"token-cccccccccccccccc\n", 0644, "open to other users (chmod 600)"},
        {"token-cccccccccccccccc\ntoken-dddddddddddddddd\n", 0600, "one token, printable, without spaces"},
        {"short\n", 0600, "one token of 16 to"},
    };
    for (size_t i = 0; i < sizeof badf / sizeof badf[0]; i++) {
        write_token(badf[i].text, badf[i].mode);
        kill(D.pid, SIGHUP);
        pst_wait_log(&D, "SIGHUP: remote_write token not reloaded, keeping the previous one", (int)i + 1, 10000);
        pst_wait_log(&D, badf[i].why, 1, 1000);
        size_t k0 = nreq();
        for (size_t k = k0; k < k0 + 2; k++) {
            req_t q = wait_req(k);
            expect_auth(&q, TOK_B, k);
            assert_int_equal(q.status, 204);
        }
    }
    no_protocol_fault();
    assert_true(pst_self(D.port, "perflib_remote_write_auth_failed_requests_total") == 0);
}

/* The number of batches accepted with a time in [from, to]. */
static size_t batches_between(int64_t from, int64_t to)
{
    size_t n = 0;
    pthread_mutex_lock(&RV.mu);
    for (size_t i = 0; i < RV.nbatch; i++)
        if (RV.batch_ts[i] >= from && RV.batch_ts[i] <= to) n++;
    pthread_mutex_unlock(&RV.mu);
    return n;
}

/* A wrong token: one request, 401, then nothing (no loop of retries) while
 * the queue grows; counted and logged once. The right token and a SIGHUP:
 * what was queued meanwhile arrives. */
static void live_push_token_401_held(void **state)
{
    (void)state;
    recv_start(TOK_A, NULL, 401);
    write_token("token-wwwwwwwwwwwwwwww\n", 0600);
    perfd_start(1);
    req_t first = wait_req(0);
    expect_auth(&first, "token-wwwwwwwwwwwwwwww", 0);
    assert_int_equal(first.status, 401);
    int64_t held_from = first.at_ms;
    sleep(4); /* ~13 intervals */
    assert_int_equal(nreq(), 1);
    pst_wait_log(&D, "refuses the bearer token of remote_write_token_file (HTTP 401: invalid bearer token)", 1, 1000);
    assert_int_equal(pst_log_count(&D, "(HTTP 401"), 1);
    assert_true(pst_self(D.port, "perflib_remote_write_auth_failed_requests_total") == 1);
    assert_true(pst_self(D.port, "perflib_remote_write_failed_requests_total") == 0);
    assert_true(pst_self(D.port, "perflib_remote_write_samples_refused_total") == 0);
    assert_true(pst_self(D.port, "perflib_remote_write_samples_sent_total") == 0);
    assert_true(pst_self(D.port, "perflib_remote_write_queue_samples") > 0);

    write_token("token-aaaaaaaaaaaaaaaa\n", 0600);
    int64_t fixed_at = wall_ms();
    kill(D.pid, SIGHUP);
    pst_wait_log(&D, "answers again", 1, 15000);
    req_t r = wait_req(1);
    expect_auth(&r, TOK_A, 1);
    assert_int_equal(r.status, 204);
    /* the batches of the held time arrived: one an interval, less for a
     * loaded machine's late samples */
    size_t got = batches_between(held_from - INTERVAL_MS, fixed_at);
    size_t expect = (size_t)((double)(fixed_at - held_from) / INTERVAL_MS * 0.6);
    if (got < expect)
        fail_msg("%zu batches of the %lld ms the token was refused arrived, expected at least %zu", got,
                 (long long)(fixed_at - held_from), expect);
    no_protocol_fault();
    assert_true(pst_self(D.port, "perflib_remote_write_samples_dropped_total") == 0);
    assert_true(pst_self(D.port, "perflib_remote_write_samples_sent_total") > 0);
}

/* No token file, a receiver that answers 403: held the same way, and the
 * log says no token was set. */
static void live_push_token_missing_403(void **state)
{
    (void)state;
    recv_start(TOK_A, NULL, 403);
    perfd_start(0);
    req_t first = wait_req(0);
    assert_string_equal(first.auth, "");
    assert_int_equal(first.status, 403);
    sleep(2);
    assert_int_equal(nreq(), 1);
    pst_wait_log(&D, "refuses perfd without a token (no remote_write_token_file) (HTTP 403", 1, 1000);
    assert_true(pst_self(D.port, "perflib_remote_write_auth_failed_requests_total") == 1);
    assert_true(pst_self(D.port, "perflib_remote_write_samples_sent_total") == 0);
}

/* Any other 4xx is about the data: the batch is dropped and counted, the
 * next ones still go (not held like a 401). */
static void live_push_refused_400_dropped(void **state)
{
    (void)state;
    recv_start(NULL, NULL, 0);
    perfd_start(0);
    for (size_t k = 0; k < 4; k++) assert_int_equal(wait_req(k).status, 400);
    pst_wait_log(&D, "(HTTP 400: out of order sample); dropped", 1, 1000);
    assert_true(pst_self(D.port, "perflib_remote_write_samples_refused_total") > 0);
    assert_true(pst_self(D.port, "perflib_remote_write_auth_failed_requests_total") == 0);
    assert_true(pst_self(D.port, "perflib_remote_write_samples_sent_total") == 0);
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(live_push_token_bearer, setup, teardown),
        cmocka_unit_test_setup_teardown(live_push_token_rotation, setup, teardown),
        cmocka_unit_test_setup_teardown(live_push_token_401_held, setup, teardown),
        cmocka_unit_test_setup_teardown(live_push_token_missing_403, setup, teardown),
        cmocka_unit_test_setup_teardown(live_push_refused_400_dropped, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
