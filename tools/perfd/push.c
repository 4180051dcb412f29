/* perfd: Prometheus remote_write (docs/perfd.md, "Push: remote_write").
 *
 * When remote_write_url is set, one thread of perfd's own samples /metrics
 * every remote_write_interval_ms: it takes the snapshot a scrape would
 * (perfd_snapshot_wait), has it rendered on perfd's worker thread like a
 * scrape (same names, labels and values; the 32-bit wrap state is the
 * worker's), reads the text back into series (push_text.c) and queues the
 * batch. The queue is bounded by remote_write_queue_samples: when a new
 * batch would pass it, the oldest batches go and perflib_remote_write_
 * samples_dropped_total counts them. The same thread sends the queue,
 * oldest first, as snappy-compressed protobuf WriteRequests (remote_write
 * 1.0) over libcurl (loaded on first use, lib/remote/curl_dl.h); a 2xx
 * answer removes what was sent; 5xx, 429 and connection errors keep it and
 * retry with an exponential backoff (PUSH_BACKOFF_MIN_MS doubling to
 * PUSH_BACKOFF_MAX_MS); 401, 403 and a receiver certificate that does not
 * verify (CA, name) are not transient: the queue is kept and tried again
 * only every PUSH_HELD_RETRY_MS or at once after a SIGHUP (the operator
 * fixing the token or CA file); any other answer drops the batch with a
 * log line (the receiver refuses it: sending it again cannot help).
 *
 * The bearer token: read at start and again at SIGHUP (perfd_push_reload,
 * the main thread) under P.mu; the push thread copies it under P.mu into
 * the headers of its next request when P.token_gen moved (each SIGHUP), so
 * a request carries the whole old token or the whole new one.
 *
 * Config keys:
 *   remote_write_url           = http(s)://HOST[:PORT]/PATH
 *   remote_write_interval_ms   = 100..3600000 (default 15000)
 *   remote_write_token_file    = FILE (one bearer token; mode 0600)
 *   remote_write_ca_file       = FILE (PEM CAs for an https URL)
 *   remote_write_queue_samples = 1000..100000000 (default 500000) */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <snappy-c.h>

#include "curl_dl.h"
#include "pl_internal.h"
#include "push.h"
#include "push_text.h"
#include "remote_write.pb-c.h"

/* libsnappy is C++: linked, it brought libstdc++ into every perfd (~0.9 MB
 * resident), also one that never pushes. Loaded when remote_write starts,
 * as libcurl is (lib/common/dl.c). */
static struct {
    size_t (*max_len)(size_t);
    snappy_status (*compress)(const char *, size_t, char *, size_t *);
} SNAPPY;

static int snappy_load(char *why, size_t cap)
{
    static const char *const sonames[] = {"libsnappy.so.1"};
    const pl__dl_sym syms[] = {
        {"snappy_max_compressed_length", &SNAPPY.max_len},
        {"snappy_compress", &SNAPPY.compress},
    };
    return pl__dl_load("libsnappy", sonames, 1, syms, sizeof syms / sizeof syms[0], why, cap);
}

#define PUSH_BACKOFF_MIN_MS 250u
#define PUSH_BACKOFF_MAX_MS 10000u
#define PUSH_HELD_RETRY_MS 60000u  /* credentials or certificate refused: next try */
#define PUSH_SEND_SAMPLES 50000u   /* at most this many samples in one request */
#define PUSH_TIMEOUT_S 10L
#define TOKEN_MAX 4096

static struct {
    char url[PW_URL_MAX + 1];
    unsigned long interval_ms, queue_max;
    char token_file[4096];
    char ca_file[4096];
    /* the thread */
    pthread_t thread;
    int started, stopping;
    pthread_mutex_t mu;    /* stopping, the token, the counters below */
    pthread_cond_t cv;
    /* the bearer token ("" none), under mu; token_gen moves at each reload */
    char token[TOKEN_MAX];
    unsigned token_gen;
    /* the queue: the push thread's only */
    pw_batch *head, *tail;
    /* counters, under mu */
    uint64_t queued, sent, dropped, failed_requests, refused, auth_failed;
    int64_t last_success_ms;
} P = {.interval_ms = 15000, .queue_max = 500000, .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

/* ----------------------------------------------------------- settings */

static int set_url(const char *v, char *why, size_t whylen)
{
    if (pw_check_url(v, why, whylen) != 0) return -1;
    snprintf(P.url, sizeof P.url, "%s", v);
    return 0;
}
PERFD_CONFIG_KEY(rw_url, "remote_write_url", set_url)

static int set_interval(const char *v, char *why, size_t whylen)
{
    return pw_parse_uint("remote_write_interval_ms", v, PW_INTERVAL_MIN_MS, PW_INTERVAL_MAX_MS, &P.interval_ms, why,
                         whylen);
}
PERFD_CONFIG_KEY(rw_interval, "remote_write_interval_ms", set_interval)

static int set_queue(const char *v, char *why, size_t whylen)
{
    return pw_parse_uint("remote_write_queue_samples", v, PW_QUEUE_MIN, PW_QUEUE_MAX, &P.queue_max, why, whylen);
}
PERFD_CONFIG_KEY(rw_queue, "remote_write_queue_samples", set_queue)

/* The token file follows token_file's rules: a regular file no one but its
 * owner may read; here it holds one token (a line of 16 to TOKEN_MAX-1
 * printable characters). At start and at SIGHUP alike: out (TOKEN_MAX
 * bytes) gets the token, or -1 with why and out untouched. */
static int read_token(const char *v, char *out, char *why, size_t whylen)
{
    struct stat st;
    FILE *f = fopen(v, "rb");
    if (!f || fstat(fileno(f), &st) != 0) {
        snprintf(why, whylen, "remote_write_token_file: %s: %s", v, strerror(errno));
        if (f) fclose(f);
        return -1;
    }
    if (!S_ISREG(st.st_mode) || (st.st_mode & (S_IRWXG | S_IRWXO))) {
        snprintf(why, whylen, "remote_write_token_file: %s: %s", v,
                 !S_ISREG(st.st_mode) ? "not a regular file" : "open to other users (chmod 600)");
        fclose(f);
        return -1;
    }
    char buf[TOKEN_MAX + 2];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    int err = ferror(f);
    fclose(f);
    int rc = -1;
    if (err) {
        snprintf(why, whylen, "remote_write_token_file: %s: read error", v);
        goto done;
    }
    buf[n] = 0;
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) buf[--n] = 0;
    if (n < 16 || n >= TOKEN_MAX) {
        snprintf(why, whylen, "remote_write_token_file: %s: one token of 16 to %d characters", v, TOKEN_MAX - 1);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)buf[i] <= 0x20 || (unsigned char)buf[i] >= 0x7f) {
            snprintf(why, whylen, "remote_write_token_file: %s: one token, printable, without spaces", v);
            goto done;
        }
    memcpy(out, buf, n + 1);
    rc = 0;
done:
    explicit_bzero(buf, sizeof buf);
    return rc;
}

static int set_token(const char *v, char *why, size_t whylen)
{
    if (strlen(v) >= sizeof P.token_file) {
        snprintf(why, whylen, "remote_write_token_file: the path is too long");
        return -1;
    }
    char tok[TOKEN_MAX];
    if (read_token(v, tok, why, whylen) != 0) return -1;
    pthread_mutex_lock(&P.mu);
    memcpy(P.token, tok, sizeof tok);
    P.token_gen++;
    pthread_mutex_unlock(&P.mu);
    explicit_bzero(tok, sizeof tok);
    snprintf(P.token_file, sizeof P.token_file, "%s", v);
    return 0;
}
PERFD_CONFIG_KEY(rw_token, "remote_write_token_file", set_token)

static int set_ca(const char *v, char *why, size_t whylen)
{
    size_t n = strlen(v);
    if (!n || n >= sizeof P.ca_file || access(v, R_OK) != 0) {
        snprintf(why, whylen, "remote_write_ca_file: %s: %s", v, !n || n >= sizeof P.ca_file ? "empty or too long" :
                 strerror(errno));
        return -1;
    }
    memcpy(P.ca_file, v, n + 1);
    return 0;
}
PERFD_CONFIG_KEY(rw_ca, "remote_write_ca_file", set_ca)

/* --------------------------------------------------------- self metrics */

void perfd_push_self_metrics(pm_out *o, int om)
{
    if (!P.url[0]) return;
    pthread_mutex_lock(&P.mu);
    uint64_t q = P.queued, s = P.sent, d = P.dropped, f = P.failed_requests, r = P.refused, a = P.auth_failed;
    int64_t last = P.last_success_ms;
    pthread_mutex_unlock(&P.mu);
    static const struct {
        const char *fam;
        pm_kind kind;
        pm_unit unit;
        const char *help;
    } fams[] = {
        {"perflib_remote_write_queue_samples", PM_GAUGE, PM_UNIT_NONE,
         "Samples waiting to be pushed (remote_write_queue_samples bounds them)."},
        {"perflib_remote_write_samples_sent", PM_COUNTER, PM_UNIT_NONE,
         "Samples the remote_write receiver accepted."},
        {"perflib_remote_write_samples_dropped", PM_COUNTER, PM_UNIT_NONE,
         "Samples dropped unsent because the queue was full (the receiver was unreachable too long)."},
        {"perflib_remote_write_samples_refused", PM_COUNTER, PM_UNIT_NONE,
         "Samples dropped because the receiver refused them (a 4xx answer other than 401, 403 and 429)."},
        {"perflib_remote_write_failed_requests", PM_COUNTER, PM_UNIT_NONE,
         "Requests to the receiver that failed and will be retried (connection errors, 5xx, 429)."},
        {"perflib_remote_write_auth_failed_requests", PM_COUNTER, PM_UNIT_NONE,
         "Requests that failed on credentials: the receiver answered 401 or 403, or its certificate did not "
         "verify; the samples stay queued, tried again every 60 s and at SIGHUP."},
        {"perflib_remote_write_last_success_timestamp_seconds", PM_GAUGE, PM_UNIT_SECONDS,
         "When the receiver last accepted a request, as Unix time in seconds; 0 when it never did."},
    };
    double v[] = {(double)q, (double)s, (double)d, (double)r, (double)f, (double)a, (double)last / 1e3};
    for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++) {
        pm_family(o, om, fams[i].fam, fams[i].kind, fams[i].unit, fams[i].help);
        pm_sample(o, fams[i].fam, fams[i].kind == PM_COUNTER ? "_total" : "", NULL, v[i]);
    }
}

/* -------------------------------------------------------------- the queue */

static int64_t now_ms(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void queue_add(pw_batch *b)
{
    if (P.tail) P.tail->next = b;
    else P.head = b;
    P.tail = b;
    pthread_mutex_lock(&P.mu);
    P.queued += b->nseries;
    uint64_t dropped = 0;
    while (P.queued > P.queue_max && P.head) {
        pw_batch *old = P.head;
        P.head = old->next;
        if (!P.head) P.tail = NULL;
        P.queued -= old->nseries;
        dropped += old->nseries;
        pw_batch_free(old);
    }
    P.dropped += dropped;
    pthread_mutex_unlock(&P.mu);
}

/* Take the first n batches off the queue, counting them as sent or refused. */
static void queue_pop(size_t n, int refused)
{
    uint64_t samples = 0;
    for (size_t i = 0; i < n && P.head; i++) {
        pw_batch *b = P.head;
        P.head = b->next;
        if (!P.head) P.tail = NULL;
        samples += b->nseries;
        pw_batch_free(b);
    }
    pthread_mutex_lock(&P.mu);
    P.queued -= samples;
    if (refused) P.refused += samples;
    else {
        P.sent += samples;
        P.last_success_ms = now_ms(CLOCK_REALTIME);
    }
    pthread_mutex_unlock(&P.mu);
}

/* One rendering of /metrics into the queue. */
static void sample_once(void)
{
    char why[512];
    const char *query = NULL;
    perfd_metrics_job *j = perfd_metrics_job_new(&query, why, sizeof why);
    if (!j) {
        perfd_log("remote_write: %s", why);
        return;
    }
    unsigned wait_ms = P.interval_ms < 10000 ? 10000 : (unsigned)P.interval_ms;
    perfd_snap *s = perfd_snapshot_wait(query, wait_ms);
    if (!s || s->status != PL_OK) {
        perfd_log("remote_write: no collection: %s", s ? s->error : "out of memory");
        perfd_snap_unref(s);
        perfd_metrics_job_free(j);
        return;
    }
    perfd_metrics_job_set_snap(j, s);
    perfd_snap_unref(s);
    size_t len = 0;
    int64_t ts = 0;
    const char *text = NULL;
    if (perfd_work_call(perfd_metrics_job_render, j) == 0) text = perfd_metrics_job_text(j, &len, &ts);
    pw_batch *b = NULL;
    if (!text) {
        pthread_mutex_lock(&P.mu);
        int stopping = P.stopping;
        pthread_mutex_unlock(&P.mu);
        if (!stopping) perfd_log("remote_write: the rendering failed (out of memory)");
    } else if (pw_parse(text, len, ts ? ts : now_ms(CLOCK_REALTIME), &b, why, sizeof why) != 0) {
        perfd_log("remote_write: cannot read /metrics back: %s", why);
    } else {
        queue_add(b);
    }
    perfd_metrics_job_free(j);
}

/* ------------------------------------------------------------ sending */

/* The WriteRequest of the first batches (up to PUSH_SEND_SAMPLES samples,
 * at least one batch), snappy-compressed: *out (malloc'd), *outlen, *nb
 * batches. 0 or -1 (out of memory). */
static int encode(uint8_t **out, size_t *outlen, size_t *nb)
{
    size_t nts = 0, nbatch = 0, nlab = 0;
    for (pw_batch *b = P.head; b; b = b->next) {
        if (nbatch && nts + b->nseries > PUSH_SEND_SAMPLES) break;
        nts += b->nseries;
        nlab += b->nlabels;
        nbatch++;
    }
    Prometheus__TimeSeries *ts = calloc(nts ? nts : 1, sizeof *ts);
    Prometheus__TimeSeries **tsp = calloc(nts ? nts : 1, sizeof *tsp);
    Prometheus__Sample *sm = calloc(nts ? nts : 1, sizeof *sm);
    Prometheus__Sample **smp = calloc(nts ? nts : 1, sizeof *smp);
    Prometheus__Label *lb = calloc(nlab ? nlab : 1, sizeof *lb);
    Prometheus__Label **lbp = calloc(nlab ? nlab : 1, sizeof *lbp);
    uint8_t *raw = NULL, *z = NULL;
    int rc = -1;
    if (!ts || !tsp || !sm || !smp || !lb || !lbp) goto done;
    size_t t = 0, l = 0;
    pw_batch *b = P.head;
    for (size_t k = 0; k < nbatch; k++, b = b->next)
        for (size_t i = 0; i < b->nseries; i++, t++) {
            const pw_series *s = &b->series[i];
            prometheus__time_series__init(&ts[t]);
            prometheus__sample__init(&sm[t]);
            sm[t].value = s->value;
            sm[t].timestamp = b->ts_ms;
            smp[t] = &sm[t];
            ts[t].n_samples = 1;
            ts[t].samples = &smp[t];
            ts[t].n_labels = s->n;
            ts[t].labels = &lbp[l];
            for (size_t m = 0; m < s->n; m++, l++) {
                prometheus__label__init(&lb[l]);
                lb[l].name = (char *)b->labels[s->first + m].name;
                lb[l].value = (char *)b->labels[s->first + m].value;
                lbp[l] = &lb[l];
            }
            tsp[t] = &ts[t];
        }
    Prometheus__WriteRequest wr = PROMETHEUS__WRITE_REQUEST__INIT;
    wr.n_timeseries = nts;
    wr.timeseries = tsp;
    size_t rawlen = prometheus__write_request__get_packed_size(&wr);
    raw = malloc(rawlen ? rawlen : 1);
    if (!raw) goto done;
    prometheus__write_request__pack(&wr, raw);
    size_t zlen = SNAPPY.max_len(rawlen);
    z = malloc(zlen);
    if (!z || SNAPPY.compress((const char *)raw, rawlen, (char *)z, &zlen) != SNAPPY_OK) goto done;
    *out = z;
    *outlen = zlen;
    *nb = nbatch;
    z = NULL;
    rc = 0;
done:
    free(ts);
    free(tsp);
    free(sm);
    free(smp);
    free(lb);
    free(lbp);
    free(raw);
    free(z);
    return rc;
}

static size_t keep_body(char *p, size_t size, size_t n, void *ud)
{
    char *buf = ud;
    size_t have = strlen(buf), add = size * n;
    size_t room = 200 - have;
    memcpy(buf + have, p, add < room ? add : room);
    buf[have + (add < room ? add : room)] = 0;
    return size * n;
}

/* What a try did, and what the thread was doing (`failing`: the kind of
 * the last failure, so each kind is logged when it starts, not each try). */
enum {
    SEND_RETRY,     /* transient: back off and try again */
    SEND_DONE,      /* sent or refused: go on with the queue */
    SEND_HELD,      /* credentials or certificate refused: keep the queue, wait */
};
enum { FAIL_NONE, FAIL_TRANSIENT, FAIL_HELD, FAIL_RELOADED };

/* libcurl's answers that say the receiver's certificate is not the one the
 * settings trust (CA, name, issuer) or the CA file cannot be used. */
static int tls_refused(CURLcode cc)
{
    return cc == CURLE_PEER_FAILED_VERIFICATION || cc == CURLE_SSL_CACERT_BADFILE || cc == CURLE_SSL_ISSUER_ERROR;
}

/* Send the head of the queue. */
static int send_once(CURL *c, struct curl_slist *hdrs, int *failing)
{
    uint8_t *body = NULL;
    size_t len = 0, nb = 0;
    if (encode(&body, &len, &nb) != 0) {
        perfd_log("remote_write: out of memory encoding a request");
        return SEND_RETRY;
    }
    char answer[201] = "", errbuf[CURL_ERROR_SIZE] = "";
    pl__curl.easy_reset(c);
    pl__curl.easy_setopt(c, CURLOPT_URL, P.url);
    pl__curl.easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
    pl__curl.easy_setopt(c, CURLOPT_POSTFIELDS, (const char *)body);
    pl__curl.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    pl__curl.easy_setopt(c, CURLOPT_TIMEOUT, PUSH_TIMEOUT_S);
    pl__curl.easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 5L);
    pl__curl.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    pl__curl.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    pl__curl.easy_setopt(c, CURLOPT_WRITEFUNCTION, keep_body);
    pl__curl.easy_setopt(c, CURLOPT_WRITEDATA, answer);
    pl__curl.easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    if (P.ca_file[0]) pl__curl.easy_setopt(c, CURLOPT_CAINFO, P.ca_file);
    /* the CA file is read for each new connection (libcurl's OpenSSL flavour
     * would keep it a day), so a fixed file and a SIGHUP are enough */
    pl__curl.easy_setopt(c, CURLOPT_CA_CACHE_TIMEOUT, 0L);
    CURLcode cc = pl__curl.easy_perform(c);
    long code = 0;
    if (cc == CURLE_OK) pl__curl.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    pl__curl.easy_setopt(c, CURLOPT_ERRORBUFFER, NULL);
    free(body);
    for (char *q = answer; *q; q++)
        if ((unsigned char)*q < 0x20) *q = ' ';
    const char *detail = errbuf[0] ? errbuf : pl__curl.easy_strerror(cc);
    if (cc == CURLE_OK && code >= 200 && code < 300) {
        if (*failing != FAIL_NONE) perfd_log("remote_write: %s answers again", P.url);
        *failing = FAIL_NONE;
        queue_pop(nb, 0);
        return SEND_DONE;
    }
    if ((cc == CURLE_OK && (code == 401 || code == 403)) || tls_refused(cc)) {
        pthread_mutex_lock(&P.mu);
        P.auth_failed++;
        uint64_t queued = P.queued;
        pthread_mutex_unlock(&P.mu);
        if (*failing != FAIL_HELD) {
            char what[CURL_ERROR_SIZE + sizeof P.ca_file + 200];
            if (cc != CURLE_OK)
                snprintf(what, sizeof what, "the receiver's certificate is refused (%s; remote_write_ca_file %s)",
                         detail, P.ca_file[0] ? P.ca_file : "not set: the system CAs");
            else
                snprintf(what, sizeof what, "the receiver refuses %s (HTTP %ld: %s)",
                         P.token_file[0] ? "the bearer token of remote_write_token_file" :
                                           "perfd without a token (no remote_write_token_file)", code, answer);
            perfd_log("remote_write: %s: %s; keeping the %llu queued samples, next try in %u s or at SIGHUP", P.url,
                      what, (unsigned long long)queued, PUSH_HELD_RETRY_MS / 1000);
        }
        *failing = FAIL_HELD;
        return SEND_HELD;
    }
    if (cc == CURLE_OK && code >= 400 && code < 500 && code != 429) {
        perfd_log("remote_write: %s refused %zu batch%s (HTTP %ld: %s); dropped", P.url, nb, nb == 1 ? "" : "es", code,
                  answer);
        queue_pop(nb, 1);
        return SEND_DONE;
    }
    pthread_mutex_lock(&P.mu);
    P.failed_requests++;
    pthread_mutex_unlock(&P.mu);
    if (*failing != FAIL_TRANSIENT) {
        if (cc != CURLE_OK) perfd_log("remote_write: %s: %s; retrying", P.url, detail);
        else perfd_log("remote_write: %s answered HTTP %ld (%s); retrying", P.url, code, answer);
    }
    *failing = FAIL_TRANSIENT;
    return SEND_RETRY;
}

static void headers_free(struct curl_slist *hdrs)
{
    for (struct curl_slist *l = hdrs; l; l = l->next) explicit_bzero(l->data, strlen(l->data));
    pl__curl.slist_free_all(hdrs);
}

/* The request headers with the bearer token (none when token is ""); NULL
 * when out of memory. */
static struct curl_slist *headers_make(const char *token)
{
    struct curl_slist *hdrs = NULL, *n;
    const char *h[] = {"Content-Encoding: snappy", "Content-Type: application/x-protobuf",
                       "X-Prometheus-Remote-Write-Version: 0.1.0", "User-Agent: perfd", "Expect:"};
    for (size_t i = 0; i < sizeof h / sizeof h[0]; i++) {
        if (!(n = pl__curl.slist_append(hdrs, h[i]))) goto fail;
        hdrs = n;
    }
    if (token[0]) {
        char auth[TOKEN_MAX + 32];
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        n = pl__curl.slist_append(hdrs, auth);
        explicit_bzero(auth, sizeof auth);
        if (!n) goto fail;
        hdrs = n;
    }
    return hdrs;
fail:
    headers_free(hdrs);
    return NULL;
}

static void *push_thread(void *arg)
{
    CURL *c = arg;
    struct curl_slist *hdrs = NULL;
    unsigned gen = 0;
    int have_gen = 0;
    int64_t next_sample = now_ms(CLOCK_MONOTONIC), retry_at = 0;
    unsigned backoff = 0;
    int failing = FAIL_NONE;
    for (;;) {
        /* the token of the next request: a copy taken whole under P.mu */
        char token[TOKEN_MAX];
        int renew = 0;
        pthread_mutex_lock(&P.mu);
        int stop = P.stopping;
        if (!have_gen || gen != P.token_gen || !hdrs) {
            memcpy(token, P.token, sizeof token);
            gen = P.token_gen;
            renew = 1;
        }
        pthread_mutex_unlock(&P.mu);
        if (renew) {
            headers_free(hdrs);
            hdrs = headers_make(token);
            explicit_bzero(token, sizeof token);
            if (have_gen && failing == FAIL_HELD) { /* SIGHUP: try at once, and log what it gives */
                retry_at = 0;
                backoff = 0;
                failing = FAIL_RELOADED;
            }
            have_gen = 1;
        }
        if (stop) break;
        int64_t now = now_ms(CLOCK_MONOTONIC);
        if (now >= next_sample) {
            sample_once();
            next_sample += (int64_t)P.interval_ms;
            now = now_ms(CLOCK_MONOTONIC);
            if (next_sample <= now) next_sample = now + (int64_t)P.interval_ms;
        }
        /* send while there is something and the receiver takes it */
        while (P.head && now >= retry_at && hdrs) {
            int r = send_once(c, hdrs, &failing);
            if (r == SEND_DONE) {
                backoff = 0;
            } else if (r == SEND_HELD) {
                backoff = 0;
                retry_at = now_ms(CLOCK_MONOTONIC) + PUSH_HELD_RETRY_MS;
            } else {
                backoff = backoff ? (backoff * 2 > PUSH_BACKOFF_MAX_MS ? PUSH_BACKOFF_MAX_MS : backoff * 2)
                                  : PUSH_BACKOFF_MIN_MS;
                retry_at = now_ms(CLOCK_MONOTONIC) + backoff;
            }
            now = now_ms(CLOCK_MONOTONIC);
            if (now >= next_sample) break;
            pthread_mutex_lock(&P.mu);
            stop = P.stopping || P.token_gen != gen;
            pthread_mutex_unlock(&P.mu);
            if (stop) break;
        }
        int64_t wake = next_sample;
        if (P.head && retry_at > now && retry_at < wake) wake = retry_at;
        if (wake > now) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts); /* P.cv has the default clock */
            int64_t ns = (int64_t)ts.tv_nsec + (wake - now) % 1000 * 1000000;
            ts.tv_sec += (time_t)((wake - now) / 1000 + ns / 1000000000);
            ts.tv_nsec = (long)(ns % 1000000000);
            pthread_mutex_lock(&P.mu);
            if (!P.stopping && P.token_gen == gen) pthread_cond_timedwait(&P.cv, &P.mu, &ts);
            pthread_mutex_unlock(&P.mu);
        }
    }
    headers_free(hdrs);
    pl__curl.easy_cleanup(c);
    while (P.head) {
        pw_batch *b = P.head;
        P.head = b->next;
        pw_batch_free(b);
    }
    P.tail = NULL;
    return NULL;
}

int perfd_push_reload(char *why, size_t whylen)
{
    if (!P.url[0]) return 0;
    char tok[TOKEN_MAX];
    int rc = !P.token_file[0] ? 0 : read_token(P.token_file, tok, why, whylen) == 0 ? 1 : -1;
    pthread_mutex_lock(&P.mu);
    if (rc == 1) memcpy(P.token, tok, sizeof tok);
    P.token_gen++; /* also without a new token: a held queue is tried at once */
    pthread_cond_broadcast(&P.cv);
    pthread_mutex_unlock(&P.mu);
    explicit_bzero(tok, sizeof tok);
    return rc;
}

int perfd_push_start(char *why, size_t whylen)
{
    if (!P.url[0]) return 0;
    char reason[300];
    if (pl__curl_load(reason, sizeof reason) != 0 || snappy_load(reason, sizeof reason) != 0) {
        snprintf(why, whylen, "remote_write: %s", reason);
        return -1;
    }
    pl__curl.global_init(CURL_GLOBAL_DEFAULT);
    CURL *c = pl__curl.easy_init();
    if (!c) {
        snprintf(why, whylen, "remote_write: cannot make a libcurl handle");
        return -1;
    }
    if (pthread_create(&P.thread, NULL, push_thread, c) != 0) {
        pl__curl.easy_cleanup(c);
        snprintf(why, whylen, "remote_write: cannot start its thread");
        return -1;
    }
    P.started = 1;
    perfd_log("remote_write: pushing to %s every %lu ms (queue %lu samples)", P.url, P.interval_ms, P.queue_max);
    return 0;
}

void perfd_push_stop(void)
{
    pthread_mutex_lock(&P.mu);
    P.stopping = 1;
    pthread_cond_broadcast(&P.cv);
    pthread_mutex_unlock(&P.mu);
    if (P.started) pthread_join(P.thread, NULL);
    P.started = 0;
    pthread_mutex_lock(&P.mu);
    explicit_bzero(P.token, sizeof P.token);
    pthread_mutex_unlock(&P.mu);
}
