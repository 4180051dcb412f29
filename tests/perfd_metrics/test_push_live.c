/* perfd's remote_write (docs/perfd.md, "Push: remote_write"), against the
 * real thing: Debian's Prometheus started with
 * --web.enable-remote-write-receiver on 127.0.0.1 in a temp directory,
 * perfd pushing to it, the pushed series read back through Prometheus'
 * HTTP API (/api/v1/query). Then the receiver is stopped for a few seconds
 * and started again on the same port and data directory: the samples
 * perfd took while it was down must arrive (no gap within the queue
 * bound). Over https (the receiver with a certificate from a test CA
 * made by tests/remote/make_certs.sh, served through Prometheus'
 * --web.config.file): a CA that did not sign it and a URL host that is not
 * its name are refused (logged, counted, nothing reaches Prometheus), and
 * the right CA file and a SIGHUP make the push go. And perfd
 * --check-config refuses bad remote_write settings. */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pd_util.h"
#include "pl_test.h"
#include "pq_run.h"
#include "push_test.h"

#define INTERVAL_MS 500

typedef struct recv {
    pid_t pid;
    unsigned port;
    char *dir;
    int tls;                 /* https with dir/srv.pem, verified with dir/ca.pem */
} recv_t;

static recv_t R;
static pd_proc D, D2;

static size_t keep(char *p, size_t size, size_t n, void *ud)
{
    pd_resp *r = ud;
    unsigned char *b = realloc(r->body, r->body_len + size * n + 1);
    if (!b) return 0;
    memcpy(b + r->body_len, p, size * n);
    r->body = b;
    r->body_len += size * n;
    b[r->body_len] = 0;
    return size * n;
}

/* GET path from the receiver (https when it has TLS). 0 or -1. */
static int recv_get(const char *path, pd_resp *r, int timeout_ms)
{
    if (!R.tls) return pd_get(R.port, path, "", r, timeout_ms);
    memset(r, 0, sizeof *r);
    r->status = -1;
    char url[1400], ca[800];
    snprintf(url, sizeof url, "https://127.0.0.1:%u%s", R.port, path);
    snprintf(ca, sizeof ca, "%s/ca.pem", R.dir);
    CURL *c = curl_easy_init();
    if (!c) return -1;
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CAINFO, ca);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L); /* the certificate's name is perfd-push.test */
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    CURLcode cc = curl_easy_perform(c);
    long code = 0;
    if (cc == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(c);
    if (cc != CURLE_OK) return -1;
    r->status = (int)code;
    if (!r->body) r->body = (unsigned char *)calloc(1, 1);
    return r->body ? 0 : -1;
}

static unsigned free_port(void)
{
    unsigned port = pd_free_port();
    assert_true(port != 0);
    return port;
}

static void recv_kill(recv_t *r)
{
    if (r->pid <= 0) return;
    kill(r->pid, SIGTERM);
    int st;
    for (int i = 0; i < 150 && waitpid(r->pid, &st, WNOHANG) == 0; i++) usleep(100000);
    kill(r->pid, SIGKILL);
    waitpid(r->pid, NULL, 0);
    r->pid = 0;
}

/* Start (or start again) the receiver on r->port with r->dir's data. */
static void recv_run(recv_t *r)
{
    char cfgpath[700], cfgarg[800], dataarg[800], listen[64], logpath[700];
    snprintf(cfgpath, sizeof cfgpath, "%s/prometheus.yml", r->dir);
    const char *cfg = "global:\n  scrape_interval: 1m\n";
    assert_int_equal(pq_write_file(cfgpath, cfg, strlen(cfg)), 0);
    snprintf(cfgarg, sizeof cfgarg, "--config.file=%s", cfgpath);
    snprintf(dataarg, sizeof dataarg, "--storage.tsdb.path=%s/data", r->dir);
    snprintf(listen, sizeof listen, "--web.listen-address=127.0.0.1:%u", r->port);
    snprintf(logpath, sizeof logpath, "%s/prometheus.log", r->dir);
    char webpath[700], webarg[800] = "--log.format=logfmt";
    if (r->tls) {
        snprintf(webpath, sizeof webpath, "%s/web.yml", r->dir);
        char web[2000];
        snprintf(web, sizeof web, "tls_server_config:\n  cert_file: %s/srv.pem\n  key_file: %s/srv.key\n", r->dir,
                 r->dir);
        assert_int_equal(pq_write_file(webpath, web, strlen(web)), 0);
        snprintf(webarg, sizeof webarg, "--web.config.file=%s", webpath);
    }
    r->pid = fork();
    assert_true(r->pid >= 0);
    if (r->pid == 0) {
        FILE *lf = freopen(logpath, "a", stderr);
        (void)lf;
        alarm(170); /* bounded whatever happens to this test */
        execlp("prometheus", "prometheus", cfgarg, dataarg, listen, "--web.enable-remote-write-receiver",
               "--log.level=warn", webarg, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 300; i++) { /* 30 s */
        pd_resp q;
        int ok = recv_get("/-/ready", &q, 1000) == 0 && q.status == 200;
        pd_resp_free(&q);
        if (ok) return;
        int st;
        if (waitpid(r->pid, &st, WNOHANG) == r->pid) {
            size_t n;
            char *log = pq_read_file(logpath, &n);
            r->pid = 0;
            fail_msg("prometheus (Debian prometheus) exited: %s", log ? log : "");
        }
        usleep(100000);
    }
    fail_msg("prometheus did not become ready within 30 s");
}

static int teardown(void **state)
{
    (void)state;
    int rc = 0;
    pd_proc *ds[] = {&D, &D2};
    for (size_t i = 0; i < 2; i++) {
        if (ds[i]->pid <= 0) continue;
        char *log = pd_log(ds[i]);
        int st = pd_stop(ds[i]); /* SIGTERM: the push thread ends, perfd exits 0 (a sanitizer's report does not) */
        if (st != 0) {
            fprintf(stderr, "perfd exited %d after SIGTERM; its log:\n%s\n", st, log ? log : "");
            rc = -1;
        }
        free(log);
    }
    recv_kill(&R);
    if (R.dir) {
        const char *rm[] = {"/bin/rm", "-rf", R.dir, NULL};
        pq_result rr;
        if (pq_run(rm, NULL, &rr) == 0) pq_result_free(&rr);
        free(R.dir);
        R.dir = NULL;
    }
    return rc;
}

/* A perfd pushing to url every INTERVAL_MS (verifying with ca_file when
 * not NULL). */
static void perfd_push_to(pd_proc *p, const char *url, const char *ca_file)
{
    char urlset[300], interval[64], store[700], caset[800];
    snprintf(urlset, sizeof urlset, "remote_write_url=%s", url);
    snprintf(interval, sizeof interval, "remote_write_interval_ms=%d", INTERVAL_MS);
    snprintf(store, sizeof store, "%s/perflib.db", R.dir);
    snprintf(caset, sizeof caset, "remote_write_ca_file=%s", ca_file ? ca_file : "");
    const char *args[] = {"--registry", store, "--set", urlset, "--set", interval, "--set", "metrics_objects=Memory",
                          ca_file ? "--set" : NULL, caset, NULL};
    memset(p, 0, sizeof *p);
    assert_int_equal(pd_start(p, args, NULL), 0);
}

static void start_both(void)
{
    memset(&R, 0, sizeof R);
    R.dir = pq_mkdtemp();
    R.port = free_port();
    recv_run(&R);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/api/v1/write", R.port);
    perfd_push_to(&D, url, NULL);
}

/* The answer of /api/v1/query?query=Q[&time=T]: the first result's value,
 * or -1 when there is none. */
static double query(const char *q, double at)
{
    char path[1200], enc[900];
    size_t w = 0;
    for (const char *p = q; *p && w + 4 < sizeof enc; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')
            enc[w++] = *p;
        else
            w += (size_t)snprintf(enc + w, sizeof enc - w, "%%%02X", (unsigned char)*p);
    }
    enc[w] = 0;
    if (at > 0) snprintf(path, sizeof path, "/api/v1/query?query=%s&time=%.3f", enc, at);
    else snprintf(path, sizeof path, "/api/v1/query?query=%s", enc);
    pd_resp r;
    assert_int_equal(recv_get(path, &r, 10000), 0);
    if (r.status != 200) fail_msg("%s: HTTP %d: %s", path, r.status, r.body ? (char *)r.body : "");
    const char *v = strstr((char *)r.body, "\"value\":[");
    double out = -1;
    if (v) {
        const char *s = strchr(v + 9, ',');
        if (s && s[1] == '"') out = strtod(s + 2, NULL);
    }
    pd_resp_free(&r);
    return out;
}

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wait (at most 30 s) until the query has an answer. */
static double wait_for(const char *q)
{
    for (int i = 0; i < 60; i++) {
        double v = query(q, 0);
        if (v >= 0) return v;
        usleep(500000);
    }
    static char msg[8192];
    char *log = pd_log(&D);
    snprintf(msg, sizeof msg, "%s", log ? log : "");
    free(log);
    fail_msg("no answer to %s in 30 s; perfd's log: %s", q, msg);
    return -1;
}

/* What perfd pushes is what a scrape shows: a Memory family with its
 * usual name, perfd's own metrics, and the push counters. */
static void live_push_query_back(void **state)
{
    (void)state;
    start_both();
    double avail = wait_for("perflib_memory_available_bytes");
    assert_true(avail > 0);
    wait_for("perflib_scrape_collect_duration_seconds");
    /* the first batch goes out before any was sent: its count is 0 */
    wait_for("perflib_remote_write_samples_sent_total");
    double sent = 0;
    for (int i = 0; i < 40 && (sent = query("perflib_remote_write_samples_sent_total", 0)) <= 0; i++) usleep(250000);
    assert_true(sent > 0);
    /* the same value Prometheus' own data says perfd pushed: the pushed
     * series' sample count grows at about one per interval */
    for (int i = 0; i < 20 && query("count_over_time(perflib_memory_available_bytes[1m])", 0) < 4; i++) usleep(500000);
    assert_true(query("count_over_time(perflib_memory_available_bytes[1m])", 0) >= 4);
}

/* The receiver stopped for ~6 s and started again on the same port and
 * data: the samples taken while it was down arrive. */
static void live_push_receiver_restart_no_gap(void **state)
{
    (void)state;
    start_both();
    wait_for("perflib_memory_available_bytes");
    recv_kill(&R);
    double down_from = wall_s();
    sleep(6);
    double down_to = wall_s();
    recv_run(&R);
    /* perfd retries with backoff (at most 10 s between tries): wait for the
     * queue to drain into the receiver */
    double got = -1;
    char q[200];
    /* samples stamped inside the down window only */
    snprintf(q, sizeof q, "count_over_time(perflib_memory_available_bytes[%ds])", (int)(down_to - down_from) - 1);
    double expect = ((down_to - down_from) - 1) * 1000.0 / INTERVAL_MS * 0.6; /* a loaded machine samples late */
    for (int i = 0; i < 60; i++) {
        got = query(q, down_to);
        if (got >= expect) break;
        usleep(500000);
    }
    if (got < expect) {
        static char msg[8192];
        char *log = pd_log(&D);
        snprintf(msg, sizeof msg, "%s", log ? log : "");
        free(log);
        fail_msg("%.0f samples in the %.1f s the receiver was down, expected at least %.0f; perfd's log: %s", got,
                 down_to - down_from, expect, msg);
    }
    assert_true(query("perflib_remote_write_samples_dropped_total", 0) == 0);
    assert_true(query("perflib_remote_write_failed_requests_total", 0) >= 1);
}

/* Copy file from to to (a new file renamed over it, as an operator would). */
static void copy_file(const char *from, const char *to)
{
    size_t n = 0;
    char *text = pq_read_file(from, &n);
    assert_non_null(text);
    char tmp[900];
    snprintf(tmp, sizeof tmp, "%s.new", to);
    assert_int_equal(pq_write_file(tmp, text, n), 0);
    assert_int_equal(rename(tmp, to), 0);
    free(text);
}

/* https: the receiver's certificate is from a test CA and names
 * perfd-push.test and 127.0.0.1. A perfd trusting another CA, and one
 * reaching it as "localhost" with the right CA, are refused: logged with
 * the reason, counted, held (one try), and nothing reaches Prometheus. The
 * right CA written into the first one's CA file and a SIGHUP: its samples
 * arrive. */
static void live_push_tls(void **state)
{
    (void)state;
    memset(&R, 0, sizeof R);
    R.dir = pq_mkdtemp();
    R.port = free_port();
    R.tls = 1;
    const char *mk[] = {"/bin/sh", PL_SOURCE_DIR "/tests/remote/make_certs.sh", R.dir, "perfd-push.test", "127.0.0.1",
                        NULL};
    pq_result mr;
    assert_int_equal(pq_run(mk, NULL, &mr), 0);
    if (mr.exit_code != 0) fail_msg("make_certs.sh (needs certtool, Debian gnutls-bin): %s", pq_result_transcript(&mr));
    pq_result_free(&mr);
    recv_run(&R);

    char ca[800], other[800], rwca[800], url[200], url_name[200];
    snprintf(ca, sizeof ca, "%s/ca.pem", R.dir);
    snprintf(other, sizeof other, "%s/other.pem", R.dir);
    snprintf(rwca, sizeof rwca, "%s/rw-ca.pem", R.dir);
    copy_file(other, rwca);
    snprintf(url, sizeof url, "https://127.0.0.1:%u/api/v1/write", R.port);
    snprintf(url_name, sizeof url_name, "https://localhost:%u/api/v1/write", R.port);
    perfd_push_to(&D, url, rwca);       /* the wrong CA */
    perfd_push_to(&D2, url_name, ca);   /* the right CA, the wrong name */
    pst_wait_log(&D, "the receiver's certificate is refused", 1, 10000);
    pst_wait_log(&D2, "the receiver's certificate is refused", 1, 10000);
    pst_wait_log(&D, rwca, 1, 1000);
    pst_wait_log(&D2, "'localhost'", 1, 1000); /* libcurl's reason names the host */
    sleep(2); /* ~6 intervals: held, not retried */
    pd_proc *ds[] = {&D, &D2};
    for (size_t i = 0; i < 2; i++) {
        assert_true(pst_self(ds[i]->port, "perflib_remote_write_auth_failed_requests_total") == 1);
        assert_true(pst_self(ds[i]->port, "perflib_remote_write_failed_requests_total") == 0);
        assert_true(pst_self(ds[i]->port, "perflib_remote_write_samples_sent_total") == 0);
        assert_true(pst_self(ds[i]->port, "perflib_remote_write_queue_samples") > 0);
        assert_int_equal(pst_log_count(ds[i], "the receiver's certificate is refused"), 1);
    }
    assert_true(query("count(perflib_memory_available_bytes)", 0) < 0);
    assert_true(query("sum(prometheus_http_requests_total{handler=\"/api/v1/write\"})", 0) <= 0);

    copy_file(ca, rwca);
    kill(D.pid, SIGHUP);
    pst_wait_log(&D, "answers again", 1, 20000);
    wait_for("perflib_memory_available_bytes");
    assert_true(pst_self(D.port, "perflib_remote_write_samples_sent_total") > 0);
    assert_true(pst_self(D2.port, "perflib_remote_write_samples_sent_total") == 0);
    assert_true(pst_self(D2.port, "perflib_remote_write_auth_failed_requests_total") == 1);
}

/* perfd --check-config validates the settings. */
static void check_config_refuses(const char *set, const char *expect)
{
    const char *args[] = {"--check-config", "--set", set, NULL};
    char *err = NULL;
    int rc = pd_run(args, &err, 20000);
    if (rc == 0 || !err || !strstr(err, expect))
        fail_msg("perfd --check-config --set %s: exit %d, \"%s\" (expected a refusal saying \"%s\")", set, rc,
                 err ? err : "", expect);
    free(err);
}

static void push_check_config(void **state)
{
    (void)state;
    check_config_refuses("remote_write_url=ftp://127.0.0.1/x", "http:// or https://");
    check_config_refuses("remote_write_url=http:///api/v1/write", "no host");
    check_config_refuses("remote_write_url=http://u:p@h/api/v1/write", "no credentials");
    check_config_refuses("remote_write_interval_ms=50", "remote_write_interval_ms");
    check_config_refuses("remote_write_interval_ms=99999999", "remote_write_interval_ms");
    check_config_refuses("remote_write_queue_samples=10", "remote_write_queue_samples");
    check_config_refuses("remote_write_token_file=/nonexistent/token", "remote_write_token_file");
    check_config_refuses("remote_write_ca_file=/nonexistent/ca.pem", "remote_write_ca_file");
    char *dir = pq_mkdtemp();
    char tok[700], set[800];
    snprintf(tok, sizeof tok, "%s/token", dir);
    const char *t = "0123456789abcdef0123\n";
    assert_int_equal(pq_write_file(tok, t, strlen(t)), 0);
    chmod(tok, 0644);
    snprintf(set, sizeof set, "remote_write_token_file=%s", tok);
    check_config_refuses(set, "chmod 600");
    chmod(tok, 0600);
    const char *ok[] = {"--check-config", "--set", set, "--set", "remote_write_url=https://example.org:9090/api/v1/write",
                        "--set", "remote_write_interval_ms=1000", NULL};
    char *err = NULL;
    int rc = pd_run(ok, &err, 20000);
    if (rc != 0) fail_msg("a good remote_write config refused: %s", err ? err : "");
    free(err);
    unlink(tok);
    rmdir(dir);
    free(dir);
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(push_check_config),
        cmocka_unit_test_teardown(live_push_query_back, teardown),
        cmocka_unit_test_teardown(live_push_receiver_restart_no_gap, teardown),
        cmocka_unit_test_teardown(live_push_tls, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
