/* perfd's remote_write (docs/perfd.md, "Push: remote_write"), against the
 * real thing: Debian's Prometheus started with
 * --web.enable-remote-write-receiver on 127.0.0.1 in a temp directory,
 * perfd pushing to it, the pushed series read back through Prometheus'
 * HTTP API (/api/v1/query). Then the receiver is stopped for a few seconds
 * and started again on the same port and data directory: the samples
 * perfd took while it was down must arrive (no gap within the queue
 * bound). And perfd --check-config refuses bad remote_write settings. */
#include <arpa/inet.h>
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

#define INTERVAL_MS 500

typedef struct recv {
    pid_t pid;
    unsigned port;
    char *dir;
} recv_t;

static recv_t R;
static pd_proc D;

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
    r->pid = fork();
    assert_true(r->pid >= 0);
    if (r->pid == 0) {
        FILE *lf = freopen(logpath, "a", stderr);
        (void)lf;
        alarm(170); /* bounded whatever happens to this test */
        execlp("prometheus", "prometheus", cfgarg, dataarg, listen, "--web.enable-remote-write-receiver",
               "--log.level=warn", (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 300; i++) { /* 30 s */
        pd_resp q;
        int ok = pd_get(r->port, "/-/ready", "", &q, 1000) == 0 && q.status == 200;
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
    if (D.pid > 0) {
        char *log = pd_log(&D);
        int st = pd_stop(&D); /* SIGTERM: the push thread ends, perfd exits 0 (a sanitizer's report does not) */
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

static void start_both(void)
{
    memset(&R, 0, sizeof R);
    R.dir = pq_mkdtemp();
    R.port = free_port();
    recv_run(&R);
    char url[128], interval[64];
    snprintf(url, sizeof url, "remote_write_url=http://127.0.0.1:%u/api/v1/write", R.port);
    snprintf(interval, sizeof interval, "remote_write_interval_ms=%d", INTERVAL_MS);
    char store[700];
    snprintf(store, sizeof store, "%s/perflib.db", R.dir);
    const char *args[] = {"--registry", store, "--set", url, "--set", interval, "--set", "metrics_objects=Memory", NULL};
    memset(&D, 0, sizeof D);
    assert_int_equal(pd_start(&D, args, NULL), 0);
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
    assert_int_equal(pd_get(R.port, path, "", &r, 10000), 0);
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
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(push_check_config),
        cmocka_unit_test_teardown(live_push_query_back, teardown),
        cmocka_unit_test_teardown(live_push_receiver_restart_no_gap, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
