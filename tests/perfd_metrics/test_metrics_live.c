/* perfd's /metrics live: the real daemon on 127.0.0.1 (ephemeral port) with
 * every object exported (Process and Thread too) and _Total included.
 *   - `promtool check metrics` (Debian prometheus) says nothing about the
 *     whole exposition; the Accept header picks OpenMetrics or text 0.0.4;
 *   - a real Prometheus server (temp dir, 127.0.0.1, an ephemeral port,
 *     bounded) scrapes perfd every second for a few seconds; over the window
 *     between its first and last samples, the rate of
 *     perflib_processor_processor_time_seconds_total{processor="_Total"}
 *     agrees with /proc/stat's busy time (sampled by this test every 50 ms,
 *     the samples nearest to Prometheus's timestamps taken). */
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pd_util.h"
#include "pl_test.h"
#include "pq_run.h"

static void start_perfd(pd_proc *pd, char *store, size_t cap, const char *objects)
{
    char *dir = pq_mkdtemp();
    snprintf(store, cap, "%s/perflib.db", dir);
    free(dir);
    const char *args[] = {"--registry", store, "--set", objects, "--set", "metrics_total=on", NULL};
    assert_int_equal(pd_start(pd, args, NULL), 0);
}

static void promtool_clean(const char *text, size_t len)
{
    char *dir = pq_mkdtemp();
    char path[600], cmd[1400];
    snprintf(path, sizeof path, "%s/m.prom", dir);
    assert_int_equal(pq_write_file(path, text, len), 0);
    snprintf(cmd, sizeof cmd, "promtool check metrics < '%s'", path);
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    pq_result r;
    assert_int_equal(pq_run(argv, NULL, &r), 0);
    if (r.exit_code != 0 || r.out_len || r.err_len)
        fail_msg("promtool check metrics (Debian prometheus): %s", pq_result_transcript(&r));
    pq_result_free(&r);
    pq_rmdir(dir);
    free(dir);
}

static void live_promtool_whole_exposition(void **state)
{
    (void)state;
    pd_proc pd;
    char store[700];
    start_perfd(&pd, store, sizeof store, "metrics_objects=all");
    pd_resp r;
    assert_int_equal(pd_get(pd.port, "/metrics", "", &r, 20000), 0);
    assert_int_equal(r.status, 200);
    char ct[160];
    assert_int_equal(pd_header(&r, "Content-Type", ct, sizeof ct), 0);
    assert_string_equal(ct, "text/plain; version=0.0.4; charset=utf-8");
    assert_non_null(strstr((char *)r.body, "perflib_process_"));
    assert_non_null(strstr((char *)r.body, "perflib_thread_"));
    assert_non_null(strstr((char *)r.body, "processor=\"_Total\""));
    promtool_clean((char *)r.body, r.body_len);
    pd_resp_free(&r);
    /* what Prometheus sends: OpenMetrics first */
    assert_int_equal(pd_get(pd.port, "/metrics",
                            "Accept: application/openmetrics-text;version=1.0.0;q=0.5,"
                            "application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2\r\n",
                            &r, 20000),
                     0);
    assert_int_equal(r.status, 200);
    assert_int_equal(pd_header(&r, "Content-Type", ct, sizeof ct), 0);
    assert_string_equal(ct, "application/openmetrics-text; version=1.0.0; charset=utf-8");
    assert_true(r.body_len > 6 && memcmp(r.body + r.body_len - 6, "# EOF\n", 6) == 0);
    pd_resp_free(&r);
    /* text preferred, or OpenMetrics refused: text */
    assert_int_equal(pd_get(pd.port, "/metrics", "Accept: application/openmetrics-text;q=0.1, text/plain\r\n", &r, 20000),
                     0);
    assert_int_equal(pd_header(&r, "Content-Type", ct, sizeof ct), 0);
    assert_string_equal(ct, "text/plain; version=0.0.4; charset=utf-8");
    pd_resp_free(&r);
    assert_int_equal(pd_stop(&pd), 0);
}

/* metrics_objects names objects: only those, collected alone. */
static void live_object_list(void **state)
{
    (void)state;
    pd_proc pd;
    char store[700];
    start_perfd(&pd, store, sizeof store, "metrics_objects=Processor, 4");
    pd_resp r;
    assert_int_equal(pd_get(pd.port, "/metrics", "", &r, 20000), 0);
    assert_int_equal(r.status, 200);
    const char *body = (char *)r.body;
    assert_non_null(strstr(body, "perflib_processor_"));
    assert_non_null(strstr(body, "perflib_memory_"));
    for (const char *l = body; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (*l == '#' || *l == '\n') continue;
        if (strncmp(l, "perflib_processor_", 18) != 0 && strncmp(l, "perflib_memory_", 15) != 0)
            fail_msg("an object not asked for: %.80s", l);
    }
    pd_resp_free(&r);
    assert_int_equal(pd_stop(&pd), 0);
}

/* ---------------------------------------------------------- Prometheus */

static unsigned free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t al = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &al);
    close(fd);
    return ntohs(a.sin_port);
}

typedef struct cpu_sample {
    double t;                 /* CLOCK_REALTIME seconds */
    double busy;              /* busy CPU-seconds since boot, all CPUs */
} cpu_sample;

static double realtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* busy = user + nice + system + irq + softirq + steal of the "cpu" line
 * (what PerfOS counts as % Processor Time: the column sum less idle and
 * iowait), in seconds */
static double proc_stat_busy(void)
{
    FILE *f = fopen("/proc/stat", "r");
    assert_non_null(f);
    unsigned long long u = 0, n = 0, s = 0, idle = 0, io = 0, irq = 0, sirq = 0, st = 0;
    int got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &u, &n, &s, &idle, &io, &irq, &sirq, &st);
    fclose(f);
    assert_true(got >= 4);
    return (double)(u + n + s + irq + sirq + st) / (double)sysconf(_SC_CLK_TCK);
}

static const cpu_sample *nearest(const cpu_sample *v, size_t n, double t)
{
    const cpu_sample *best = &v[0];
    for (size_t i = 1; i < n; i++)
        if (fabs(v[i].t - t) < fabs(best->t - t)) best = &v[i];
    return best;
}

static void url_encode(const char *in, char *out, size_t cap)
{
    size_t w = 0;
    for (; *in && w + 4 < cap; in++) {
        unsigned char c = (unsigned char)*in;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.')
            out[w++] = (char)c;
        else w += (size_t)snprintf(out + w, cap - w, "%%%02X", c);
    }
    out[w] = '\0';
}

static void live_prometheus_scrapes_rate(void **state)
{
    (void)state;
    pd_proc pd;
    char store[700];
    /* the default objects (no Process, Thread): a scrape well inside 1 s on
     * a loaded machine */
    start_perfd(&pd, store, sizeof store, "metrics_objects=default");
    char *dir = pq_mkdtemp();
    unsigned pport = free_port();
    char cfg[4096], cfgpath[700], data[700], listen[64], cfgarg[800], dataarg[800];
    snprintf(cfg, sizeof cfg,
             "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
             "scrape_configs:\n  - job_name: perfd\n    static_configs:\n      - targets: ['127.0.0.1:%u']\n",
             pd.port);
    snprintf(cfgpath, sizeof cfgpath, "%s/prometheus.yml", dir);
    snprintf(data, sizeof data, "%s/data", dir);
    assert_int_equal(pq_write_file(cfgpath, cfg, strlen(cfg)), 0);
    snprintf(listen, sizeof listen, "--web.listen-address=127.0.0.1:%u", pport);
    snprintf(cfgarg, sizeof cfgarg, "--config.file=%s", cfgpath);
    snprintf(dataarg, sizeof dataarg, "--storage.tsdb.path=%s", data);
    char logpath[700];
    snprintf(logpath, sizeof logpath, "%s/prometheus.log", dir);
    pid_t prom = fork();
    assert_true(prom >= 0);
    if (prom == 0) {
        FILE *lf = freopen(logpath, "w", stderr);
        (void)lf;
        alarm(120); /* bounded whatever happens to this test */
        execlp("prometheus", "prometheus", cfgarg, dataarg, listen, "--log.level=warn", (char *)NULL);
        _exit(127);
    }
    /* ready within 20 s */
    int ready = 0;
    for (int i = 0; i < 200 && !ready; i++) {
        pd_resp r;
        if (pd_get(pport, "/-/ready", "", &r, 1000) == 0 && r.status == 200) ready = 1;
        pd_resp_free(&r);
        int st;
        if (!ready && waitpid(prom, &st, WNOHANG) == prom) {
            size_t n;
            char *log = pq_read_file(logpath, &n);
            fail_msg("prometheus (Debian prometheus) exited: %s", log ? log : "");
        }
        if (!ready) usleep(100000);
    }
    if (!ready) {
        kill(prom, SIGKILL);
        waitpid(prom, NULL, 0);
        fail_msg("prometheus did not become ready within 20 s");
    }
    /* targets reach the scrape manager a few seconds after start: wait for
     * the first scrape of perfd (up == 1), at most 30 s */
    int up = 0;
    for (int i = 0; i < 150 && !up; i++) {
        pd_resp u;
        if (pd_get(pport, "/api/v1/query?query=up", "", &u, 1000) == 0 && u.body &&
            strstr((char *)u.body, "\"job\":\"perfd\"") && strstr((char *)u.body, ",\"1\"]"))
            up = 1;
        pd_resp_free(&u);
        if (!up) usleep(200000);
    }
    if (!up) {
        kill(prom, SIGKILL);
        waitpid(prom, NULL, 0);
        fail_msg("Prometheus did not scrape perfd successfully within 30 s");
    }
    /* /proc/stat every 50 ms while Prometheus scrapes for ~6 s */
    cpu_sample samples[200];
    size_t ns = 0;
    double t0 = realtime();
    while (realtime() - t0 < 6.5 && ns < 200) {
        samples[ns].t = realtime();
        samples[ns].busy = proc_stat_busy();
        ns++;
        usleep(50000);
    }
    char q[512], enc[1024], path[1400];
    snprintf(q, sizeof q, "perflib_processor_processor_time_seconds_total{processor=\"_Total\"}[%ds]",
             (int)(realtime() - t0) + 2);
    url_encode(q, enc, sizeof enc);
    snprintf(path, sizeof path, "/api/v1/query?query=%s&time=%.3f", enc, realtime());
    pd_resp r;
    assert_int_equal(pd_get(pport, path, "", &r, 10000), 0);
    kill(prom, SIGTERM);
    int st;
    for (int i = 0; i < 100 && waitpid(prom, &st, WNOHANG) == 0; i++) usleep(100000);
    kill(prom, SIGKILL);
    waitpid(prom, NULL, WNOHANG);
    assert_int_equal(r.status, 200);
    /* values: [[t,"v"],...] of the one series */
    const char *p = strstr((char *)r.body, "\"values\":[");
    if (!p) fail_msg("no samples from Prometheus: %s", (char *)r.body);
    p += 10;
    double ts[64], vs[64];
    size_t nv = 0;
    while (nv < 64 && *p == '[') {
        char *e;
        ts[nv] = strtod(p + 1, &e);
        if (*e != ',' || e[1] != '"') break;
        vs[nv] = strtod(e + 2, &e);
        nv++;
        p = strchr(e, ']');
        if (!p) break;
        p++;
        if (*p == ',') p++;
    }
    char body[600];
    snprintf(body, sizeof body, "%.590s", (char *)r.body);
    pd_resp_free(&r);
    if (nv < 4) fail_msg("Prometheus has %zu samples of the _Total processor time after 6 s: %s", nv, body);
    double prom_rate = (vs[nv - 1] - vs[0]) / (ts[nv - 1] - ts[0]);
    const cpu_sample *a = nearest(samples, ns, ts[0]), *b = nearest(samples, ns, ts[nv - 1]);
    double stat_rate = (b->busy - a->busy) / (b->t - a->t);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    print_message("rate over %.2f s: Prometheus %.3f CPU-s/s, /proc/stat %.3f (%ld CPUs, %zu samples)\n",
                  ts[nv - 1] - ts[0], prom_rate, stat_rate, ncpu, nv);
    /* same window to within ~50 ms at each end plus perfd's 100 ms
     * snapshot age: allow 10% of the machine's CPUs */
    if (fabs(prom_rate - stat_rate) > 0.10 * (double)ncpu)
        fail_msg("Prometheus rate %.3f vs /proc/stat %.3f", prom_rate, stat_rate);
    assert_int_equal(pd_stop(&pd), 0);
    const char *rm[] = {"/bin/rm", "-rf", dir, NULL};
    pq_result rr;
    if (pq_run(rm, NULL, &rr) == 0) pq_result_free(&rr);
    free(dir);
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(live_promtool_whole_exposition),
        cmocka_unit_test(live_object_list),
        cmocka_unit_test(live_prometheus_scrapes_rate),
    };
    return pl_test_run(tests, argc, argv);
}
