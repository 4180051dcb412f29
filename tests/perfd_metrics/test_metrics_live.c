/* perfd's /metrics live: the real daemon on 127.0.0.1 (ephemeral port).
 *   - with every object (`perfd --listen 127.0.0.1:PORT --set
 *     metrics_objects=all`, Process and Thread too, _Total on),
 *     `promtool check metrics` (Debian prometheus) says nothing about the
 *     whole exposition, the Accept header picks OpenMetrics or text 0.0.4,
 *     and every Thread series carries a tid label;
 *   - gzip when asked (Accept-Encoding), for /metrics and /v1/json;
 *   - related values agree on the machine at the same moment: Available
 *     Bytes and Available MBytes x 2^20 (one scrape) and MemAvailable; the
 *     load averages and /proc/loadavg; this test's Working Set and its VmRSS;
 *     the tid labels of perfd's own threads and /proc/<pid>/task; the
 *     running totals of TCP, UDP, IP, ICMP and every interface's errors
 *     and discards and /proc/net/snmp, /proc/net/dev around one scrape;
 *   - perfd's own metrics: build and system information, the providers and
 *     objects up, the scrape's durations;
 *   - a real Prometheus server (temp dir, 127.0.0.1, ephemeral port,
 *     bounded) scrapes perfd every second while this test makes CPU, disk
 *     and network load; over the window between its first and last samples
 *     the increase of each series lies within what /proc, read by the test
 *     every 50 ms, allows between those two collections (their spans from
 *     perflib_scrape_timestamp_seconds and _collect_duration_seconds): CPU
 *     busy time (/proc/stat), bytes of every disk (/proc/diskstats), bytes
 *     of every interface (/proc/net/dev), page faults (/proc/vmstat); and
 *     available memory agrees with /proc/meminfo. */
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "pd_util.h"
#include "pl_test.h"
#include "pm_test.h"
#include "pq_run.h"

/* The daemon and the Prometheus server of the running case: the teardown
 * stops whatever a failed case left running. */
static pd_proc pd;

static void start_perfd(pd_proc *p, const char *objects)
{
    char *dir = pq_mkdtemp();
    char store[700];
    snprintf(store, sizeof store, "%s/perflib.db", dir);
    free(dir);
    const char *args[] = {"--registry", store, "--set", objects, "--set", "metrics_total=on", "--set",
                          "snapshot_max_age_ms=0", NULL};
    memset(p, 0, sizeof *p);
    assert_int_equal(pd_start(p, args, NULL), 0);
}

/* GET path with extra header lines: the answer (status 200 checked). */
static void get_ok(const pd_proc *d, const char *path, const char *extra, pd_resp *r)
{
    assert_int_equal(pd_get(d->port, path, extra, r, 20000), 0);
    if (r->status != 200) fail_msg("%s: status %d: %s", path, r->status, r->body ? (char *)r->body : "");
}

static char *scrape(const pd_proc *d)
{
    pd_resp r;
    get_ok(d, "/metrics", "", &r);
    char *body = (char *)r.body;
    r.body = NULL;
    pd_resp_free(&r);
    return body;
}

static int lines_starting(const char *text, const char *prefix)
{
    int n = 0;
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        n += strncmp(l, prefix, strlen(prefix)) == 0;
    return n;
}

static double realtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------- /proc */

static unsigned long long meminfo_kb(const char *field)
{
    FILE *f = fopen("/proc/meminfo", "r");
    assert_non_null(f);
    char line[256];
    unsigned long long v = 0;
    size_t n = strlen(field);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0 && line[n] == ':') v = strtoull(line + n + 1, NULL, 10);
    fclose(f);
    assert_true(v > 0);
    return v;
}

static void loadavg(double v[3])
{
    FILE *f = fopen("/proc/loadavg", "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%lf %lf %lf", &v[0], &v[1], &v[2]), 3);
    fclose(f);
}

static unsigned long long status_kb(pid_t pid, const char *field)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    unsigned long long v = 0;
    size_t n = strlen(field);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0 && line[n] == ':') v = strtoull(line + n + 1, NULL, 10);
    fclose(f);
    return v;
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

static unsigned long long vmstat(const char *field)
{
    FILE *f = fopen("/proc/vmstat", "r");
    assert_non_null(f);
    char name[64];
    unsigned long long v, out = 0;
    while (fscanf(f, "%63s %llu", name, &v) == 2)
        if (strcmp(name, field) == 0) out = v;
    fclose(f);
    return out;
}

#define MAX_DEV 16

typedef struct devs {
    int n;
    char name[MAX_DEV][32];
} devs;

/* Bytes read + written of a /proc/diskstats device (sectors of 512). */
static double disk_bytes(const char *dev)
{
    FILE *f = fopen("/proc/diskstats", "r");
    assert_non_null(f);
    char line[512];
    double v = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned maj, min;
        char name[64];
        unsigned long long rd, rdm, rs, rt, wr, wrm, ws;
        if (sscanf(line, "%u %u %63s %llu %llu %llu %llu %llu %llu %llu", &maj, &min, name, &rd, &rdm, &rs, &rt, &wr,
                   &wrm, &ws) == 10 &&
            strcmp(name, dev) == 0)
            v = (double)(rs + ws) * 512.0;
    }
    fclose(f);
    return v;
}

/* A field of /proc/net/snmp: the header line "Proto: names" and the value
 * line "Proto: values" that follows it. */
static double net_snmp(const char *proto, const char *field)
{
    FILE *f = fopen("/proc/net/snmp", "r");
    assert_non_null(f);
    char head[2048], vals[2048];
    double v = -1;
    size_t pn = strlen(proto);
    while (v < 0 && fgets(head, sizeof head, f) && fgets(vals, sizeof vals, f)) {
        if (strncmp(head, proto, pn) != 0 || head[pn] != ':') continue;
        char *hs, *vs;
        char *h = strtok_r(head + pn + 1, " \n", &hs), *x = strtok_r(vals + pn + 1, " \n", &vs);
        for (; h && x; h = strtok_r(NULL, " \n", &hs), x = strtok_r(NULL, " \n", &vs))
            if (strcmp(h, field) == 0) v = strtod(x, NULL);
    }
    fclose(f);
    if (v < 0) fail_msg("/proc/net/snmp has no %s %s", proto, field);
    return v;
}

/* Column col (0: bytes received) of a /proc/net/dev interface, -1 when
 * the interface is not there. */
static double net_dev_col(const char *dev, int col)
{
    FILE *f = fopen("/proc/net/dev", "r");
    assert_non_null(f);
    char line[512];
    double v = -1;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon) continue;
        *colon = '\0';
        char *name = line;
        while (*name == ' ') name++;
        if (strcmp(name, dev) != 0) continue;
        char *save, *t = strtok_r(colon + 1, " \n", &save);
        for (int i = 0; t && i < col; i++) t = strtok_r(NULL, " \n", &save);
        if (t) v = strtod(t, NULL);
    }
    fclose(f);
    return v;
}

/* Bytes received + sent of a /proc/net/dev interface. */
static double net_bytes(const char *dev)
{
    double rx = net_dev_col(dev, 0), tx = net_dev_col(dev, 8);
    return rx < 0 || tx < 0 ? -1 : rx + tx;
}

/* The instances of a family in a scrape (label `label`), at most MAX_DEV,
 * _Total left out. */
static void instances_of(const char *text, const char *fam, const char *label, devs *d)
{
    d->n = 0;
    char prefix[200];
    snprintf(prefix, sizeof prefix, "%s{%s=\"", fam, label);
    for (const char *l = text; l && *l && d->n < MAX_DEV; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, prefix, strlen(prefix)) != 0) continue;
        const char *v = l + strlen(prefix);
        const char *e = strchr(v, '"');
        if (!e || (size_t)(e - v) >= sizeof d->name[0]) continue;
        snprintf(d->name[d->n], sizeof d->name[0], "%.*s", (int)(e - v), v);
        if (strcmp(d->name[d->n], "_Total") != 0) d->n++;
    }
}

/* ------------------------------------------------------------- cases */

static void live_promtool_whole_exposition(void **state)
{
    (void)state;
    start_perfd(&pd, "metrics_objects=all");
    pd_resp r;
    get_ok(&pd, "/metrics", "", &r);
    char ct[160];
    assert_int_equal(pd_header(&r, "Content-Type", ct, sizeof ct), 0);
    assert_string_equal(ct, "text/plain; version=0.0.4; charset=utf-8");
    const char *body = (char *)r.body;
    assert_non_null(strstr(body, "perflib_process_"));
    assert_non_null(strstr(body, "processor=\"_Total\""));
    /* every Thread series is keyed by its thread id */
    int threads = 0;
    for (const char *l = body; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, "perflib_thread_", 15) != 0) continue;
        threads++;
        const char *e = strchr(l, '\n');
        char line[600];
        snprintf(line, sizeof line, "%.*s", e ? (int)(e - l) : (int)strlen(l), l);
        if (!strstr(line, ",tid=\"") || strstr(line, "thread=\"")) fail_msg("a Thread series without tid: %s", line);
    }
    assert_true(threads > 10);
    pmt_promtool_clean(body, r.body_len);
    pd_resp_free(&r);
    /* what Prometheus sends: OpenMetrics first */
    get_ok(&pd, "/metrics",
           "Accept: application/openmetrics-text;version=1.0.0;q=0.5,"
           "application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2\r\n",
           &r);
    assert_int_equal(pd_header(&r, "Content-Type", ct, sizeof ct), 0);
    assert_string_equal(ct, "application/openmetrics-text; version=1.0.0; charset=utf-8");
    assert_true(r.body_len > 6 && memcmp(r.body + r.body_len - 6, "# EOF\n", 6) == 0);
    assert_non_null(strstr((char *)r.body, "\n# UNIT perflib_memory_available_bytes bytes\n"));
    pd_resp_free(&r);
    /* text preferred, or OpenMetrics refused: text */
    get_ok(&pd, "/metrics", "Accept: application/openmetrics-text;q=0.1, text/plain\r\n", &r);
    assert_int_equal(pd_header(&r, "Content-Type", ct, sizeof ct), 0);
    assert_string_equal(ct, "text/plain; version=0.0.4; charset=utf-8");
    pd_resp_free(&r);
    assert_int_equal(pd_stop(&pd), 0);
}

/* metrics_objects names objects: only those, collected alone (and perfd's
 * own metrics). */
static void live_object_list(void **state)
{
    (void)state;
    start_perfd(&pd, "metrics_objects=Processor, 4");
    char *body = scrape(&pd);
    assert_non_null(strstr(body, "perflib_processor_"));
    assert_non_null(strstr(body, "perflib_memory_"));
    static const char *const own[] = {"perflib_build_info", "perflib_system_info", "perflib_provider_",
                                      "perflib_object_up",  "perflib_scrape_"};
    for (const char *l = body; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (*l == '#' || *l == '\n') continue;
        int ok = strncmp(l, "perflib_processor_", 18) == 0 || strncmp(l, "perflib_memory_", 15) == 0;
        for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) ok |= strncmp(l, own[i], strlen(own[i])) == 0;
        if (!ok) fail_msg("an object not asked for: %.80s", l);
    }
    /* the objects not asked for are not reported up or down either */
    assert_non_null(strstr(body, "perflib_object_up{object=\"Memory\",provider=\"PerfOS\"} 1\n"));
    assert_null(strstr(body, "perflib_object_up{object=\"System\""));
    free(body);
    assert_int_equal(pd_stop(&pd), 0);
}

static size_t gunzip(const unsigned char *in, size_t n, char **out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap + 1);
    assert_non_null(buf);
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)n;
    int rc;
    do {
        if (cap - len < 65536) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
            assert_non_null(buf);
        }
        z.next_out = (Bytef *)buf + len;
        z.avail_out = (uInt)(cap - len);
        rc = inflate(&z, Z_NO_FLUSH);
        len = cap - z.avail_out;
        if (rc != Z_OK && rc != Z_STREAM_END) fail_msg("not a valid gzip stream (inflate %d)", rc);
    } while (rc != Z_STREAM_END);
    assert_int_equal(z.avail_in, 0); /* nothing after the stream */
    inflateEnd(&z);
    buf[len] = '\0';
    *out = buf;
    return len;
}

/* Accept-Encoding: gzip gets Content-Encoding: gzip (a whole valid stream),
 * for /metrics and /v1/json; without it, the plain text. */
static void live_gzip(void **state)
{
    (void)state;
    start_perfd(&pd, "metrics_objects=all");
    pd_resp r;
    char h[160];
    get_ok(&pd, "/metrics", "Accept-Encoding: gzip\r\n", &r);
    assert_int_equal(pd_header(&r, "Content-Encoding", h, sizeof h), 0);
    assert_string_equal(h, "gzip");
    assert_int_equal(pd_header(&r, "Vary", h, sizeof h), 0);
    assert_string_equal(h, "Accept-Encoding");
    char *text = NULL;
    size_t len = gunzip(r.body, r.body_len, &text);
    print_message("/metrics: %zu bytes gzipped, %zu plain (%.1fx)\n", r.body_len, len, (double)len / r.body_len);
    assert_true(r.body_len * 4 < len);
    assert_true(strncmp(text, "# HELP perflib_", 15) == 0);
    assert_non_null(strstr(text, "\nperflib_scrape_duration_seconds "));
    pmt_promtool_clean(text, len);
    free(text);
    pd_resp_free(&r);
    /* Prometheus's own header, OpenMetrics and gzip */
    get_ok(&pd, "/metrics", "Accept: application/openmetrics-text;version=1.0.0;q=0.5,text/plain;q=0.3\r\n"
                            "Accept-Encoding: gzip\r\n", &r);
    len = gunzip(r.body, r.body_len, &text);
    assert_true(len > 6 && strcmp(text + len - 6, "# EOF\n") == 0);
    free(text);
    pd_resp_free(&r);
    /* refused or absent: plain */
    get_ok(&pd, "/metrics", "Accept-Encoding: gzip;q=0, identity\r\n", &r);
    assert_int_equal(pd_header(&r, "Content-Encoding", h, sizeof h), -1);
    assert_true(strncmp((char *)r.body, "# HELP ", 7) == 0);
    pd_resp_free(&r);
    get_ok(&pd, "/v1/json", "Accept-Encoding: deflate, gzip\r\n", &r);
    assert_int_equal(pd_header(&r, "Content-Encoding", h, sizeof h), 0);
    assert_string_equal(h, "gzip");
    len = gunzip(r.body, r.body_len, &text);
    assert_non_null(strstr(text, "\"schema\": \"perflib-snapshot/1\""));
    free(text);
    pd_resp_free(&r);
    get_ok(&pd, "/v1/json", "", &r);
    assert_int_equal(pd_header(&r, "Content-Encoding", h, sizeof h), -1);
    assert_true(r.body[0] == '{');
    pd_resp_free(&r);
    assert_int_equal(pd_stop(&pd), 0);
}

/* Values that must agree with each other and with the machine at the same
 * moment. */
static void live_values_agree(void **state)
{
    (void)state;
    start_perfd(&pd, "metrics_objects=all");
    char *body = NULL;
    double la0[3], la1[3];
    unsigned long long ma0, ma1, rss0, rss1;
    for (int attempt = 0; attempt < 5; attempt++) {
        free(body);
        loadavg(la0);
        ma0 = meminfo_kb("MemAvailable");
        rss0 = status_kb(getpid(), "VmRSS");
        body = scrape(&pd);
        rss1 = status_kb(getpid(), "VmRSS");
        ma1 = meminfo_kb("MemAvailable");
        loadavg(la1);
        if (la0[0] == la1[0]) break; /* no load average update during the scrape */
    }
    /* one scrape: Available MBytes x 2^20 is Available Bytes rounded down */
    double ab = pmt_must(body, "perflib_memory_available_bytes");
    double amb = pmt_must(body, "perflib_memory_available_mib_rounded_bytes");
    double akb = pmt_must(body, "perflib_memory_available_kib_rounded_bytes");
    print_message("available: %.0f bytes, %.0f (MiB), %.0f (KiB); MemAvailable %llu..%llu kB\n", ab, amb, akb, ma0, ma1);
    assert_true(amb <= ab && ab - amb < 1048576.0 && fmod(amb, 1048576.0) == 0);
    assert_true(akb <= ab && ab - akb < 1024.0 && fmod(akb, 1024.0) == 0);
    /* and the machine's MemAvailable around it (32 MiB of slack for what
     * moves between the reads) */
    double lo = (double)(ma0 < ma1 ? ma0 : ma1) * 1024 - 33554432.0, hi = (double)(ma0 > ma1 ? ma0 : ma1) * 1024 + 33554432.0;
    if (ab < lo || ab > hi) fail_msg("Available Bytes %.0f outside MemAvailable %.0f..%.0f", ab, lo, hi);
    /* the load averages are /proc/loadavg's, unscaled */
    static const char *const load[] = {"perflib_system_load1", "perflib_system_load5", "perflib_system_load15"};
    for (int i = 0; i < 3; i++) {
        double v = pmt_must(body, load[i]);
        double a = la0[i] < la1[i] ? la0[i] : la1[i], b = la0[i] > la1[i] ? la0[i] : la1[i];
        print_message("%s %.2f, /proc/loadavg %.2f..%.2f\n", load[i], v, a, b);
        if (v < a - 0.005 || v > b + 0.005) fail_msg("%s %.2f but /proc/loadavg %.2f..%.2f", load[i], v, a, b);
    }
    /* this test's Working Set is its RSS */
    char series[600], comm[64] = "";
    FILE *cf = fopen("/proc/self/comm", "r");
    assert_non_null(cf);
    assert_non_null(fgets(comm, sizeof comm, cf));
    fclose(cf);
    comm[strcspn(comm, "\n")] = '\0';
    snprintf(series, sizeof series, "perflib_process_working_set_bytes{process=\"%s\",pid=\"%d\"}", comm,
             (int)getpid());
    double ws = pmt_must(body, series);
    print_message("Working Set %.0f, VmRSS %llu..%llu kB\n", ws, rss0, rss1);
    double rlo = (double)(rss0 < rss1 ? rss0 : rss1) * 1024, rhi = (double)(rss0 > rss1 ? rss0 : rss1) * 1024;
    if (ws < rlo - 262144.0 || ws > rhi + 262144.0) fail_msg("Working Set %.0f but VmRSS %llu..%llu kB", ws, rss0, rss1);
    free(body);
    /* perfd's own threads: one series each, keyed by its tid */
    char task[64];
    snprintf(task, sizeof task, "/proc/%d/task", (int)pd.pid);
    int same = 0;
    for (int attempt = 0; attempt < 5 && !same; attempt++) {
        body = scrape(&pd);
        DIR *d = opendir(task);
        assert_non_null(d);
        int n = 0, found = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            n++;
            snprintf(series, sizeof series, "perflib_thread_processor_time_seconds_total{parent=\"perfd\",pid=\"%d\",tid=\"%s\"}",
                     (int)pd.pid, e->d_name);
            int f;
            pmt_sample(body, series, &f);
            found += f;
        }
        closedir(d);
        snprintf(series, sizeof series, "perflib_thread_processor_time_seconds_total{parent=\"perfd\",pid=\"%d\",", (int)pd.pid);
        int listed = lines_starting(body, series);
        print_message("perfd: %d threads in /proc, %d found by tid, %d series\n", n, found, listed);
        same = n > 1 && found == n && listed == n;
        free(body);
    }
    assert_true(same);
    assert_int_equal(pd_stop(&pd), 0);
}

/* perfd's own metrics. */
static void live_self_metrics(void **state)
{
    (void)state;
    start_perfd(&pd, "metrics_objects=default");
    char *body = scrape(&pd);
    assert_non_null(strstr(body, "\nperflib_build_info{version=\"" PL_PROJECT_VERSION "\"} 1\n"));
    struct utsname u;
    assert_int_equal(uname(&u), 0);
    char want[600];
    snprintf(want, sizeof want, ",kernel=\"%s\",", u.release);
    const char *si = strstr(body, "\nperflib_system_info{system_name=\"");
    assert_non_null(si);
    assert_non_null(strstr(si, want));
    snprintf(want, sizeof want, ",machine=\"%s\"} 1\n", u.machine);
    assert_non_null(strstr(si, want));
    static const char *const providers[] = {"PerfOS", "PerfProc", "PerfDisk", "PerfNet"};
    for (size_t i = 0; i < sizeof providers / sizeof providers[0]; i++) {
        char s[200];
        snprintf(s, sizeof s, "perflib_provider_up{provider=\"%s\"}", providers[i]);
        assert_true(pmt_must(body, s) == 1);
        snprintf(s, sizeof s, "perflib_provider_errors_total{provider=\"%s\"}", providers[i]);
        assert_true(pmt_must(body, s) == 0);
        snprintf(s, sizeof s, "perflib_provider_last_error_timestamp_seconds{provider=\"%s\"}", providers[i]);
        assert_true(pmt_must(body, s) == 0);
    }
    assert_true(pmt_must(body, "perflib_provider_collect_duration_seconds{provider=\"PerfOS\"}") > 0);
    assert_true(pmt_must(body, "perflib_object_up{object=\"Processor\",provider=\"PerfOS\"}") == 1);
    assert_true(pmt_must(body, "perflib_object_up{object=\"PhysicalDisk\",provider=\"PerfDisk\"}") == 1);
    /* Process and Thread are not in the default objects: not reported */
    assert_null(strstr(body, "perflib_object_up{object=\"Process\""));
    double d = pmt_must(body, "perflib_scrape_duration_seconds");
    double c = pmt_must(body, "perflib_scrape_collect_duration_seconds");
    assert_true(d > 0 && d < 10 && c > 0 && c <= d);
    free(body);
    assert_int_equal(pd_stop(&pd), 0);
}

/* ---------------------------------------------------------- Prometheus */

static unsigned free_port(void)
{
    unsigned port = pd_free_port();
    assert_true(port != 0);
    return port;
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

typedef struct prom {
    pid_t pid;
    unsigned port;
    char *dir;
} prom;

static prom P;

static void prom_stop(prom *p)
{
    if (p->pid > 0) {
        kill(p->pid, SIGTERM);
        int st;
        for (int i = 0; i < 100 && waitpid(p->pid, &st, WNOHANG) == 0; i++) usleep(100000);
        kill(p->pid, SIGKILL);
        waitpid(p->pid, NULL, WNOHANG);
        p->pid = 0;
    }
    if (p->dir) {
        const char *rm[] = {"/bin/rm", "-rf", p->dir, NULL};
        pq_result rr;
        if (pq_run(rm, NULL, &rr) == 0) pq_result_free(&rr);
        free(p->dir);
        p->dir = NULL;
    }
}

/* Prometheus scraping perfd every second, ready and with one successful
 * scrape behind it. job: more lines of the scrape job (params:), or "". */
static void prom_start(prom *p, unsigned target, const char *job)
{
    memset(p, 0, sizeof *p);
    p->dir = pq_mkdtemp();
    p->port = free_port();
    char cfg[4096], cfgpath[700], data[700], listen[64], cfgarg[800], dataarg[800], logpath[700];
    snprintf(cfg, sizeof cfg,
             "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
             "scrape_configs:\n  - job_name: perfd\n    static_configs:\n      - targets: ['127.0.0.1:%u']\n%s",
             target, job);
    snprintf(cfgpath, sizeof cfgpath, "%s/prometheus.yml", p->dir);
    snprintf(data, sizeof data, "%s/data", p->dir);
    assert_int_equal(pq_write_file(cfgpath, cfg, strlen(cfg)), 0);
    snprintf(listen, sizeof listen, "--web.listen-address=127.0.0.1:%u", p->port);
    snprintf(cfgarg, sizeof cfgarg, "--config.file=%s", cfgpath);
    snprintf(dataarg, sizeof dataarg, "--storage.tsdb.path=%s", data);
    snprintf(logpath, sizeof logpath, "%s/prometheus.log", p->dir);
    p->pid = fork();
    assert_true(p->pid >= 0);
    if (p->pid == 0) {
        FILE *lf = freopen(logpath, "w", stderr);
        (void)lf;
        alarm(150); /* bounded whatever happens to this test */
        execlp("prometheus", "prometheus", cfgarg, dataarg, listen, "--log.level=warn", (char *)NULL);
        _exit(127);
    }
    int ready = 0;
    for (int i = 0; i < 200 && !ready; i++) { /* 20 s */
        pd_resp r;
        if (pd_get(p->port, "/-/ready", "", &r, 1000) == 0 && r.status == 200) ready = 1;
        pd_resp_free(&r);
        int st;
        if (!ready && waitpid(p->pid, &st, WNOHANG) == p->pid) {
            size_t n;
            char *log = pq_read_file(logpath, &n);
            p->pid = 0;
            fail_msg("prometheus (Debian prometheus) exited: %s", log ? log : "");
        }
        if (!ready) usleep(100000);
    }
    if (!ready) {
        prom_stop(p);
        fail_msg("prometheus did not become ready within 20 s");
    }
    /* targets reach the scrape manager a few seconds after start: wait for
     * the first scrape of perfd (up == 1), at most 30 s */
    int up = 0;
    for (int i = 0; i < 150 && !up; i++) {
        pd_resp u;
        if (pd_get(p->port, "/api/v1/query?query=up", "", &u, 1000) == 0 && u.body &&
            strstr((char *)u.body, "\"job\":\"perfd\"") && strstr((char *)u.body, ",\"1\"]"))
            up = 1;
        pd_resp_free(&u);
        if (!up) usleep(200000);
    }
    if (!up) {
        pd_resp t;
        char why[600] = "";
        if (pd_get(p->port, "/api/v1/targets", "", &t, 1000) == 0 && t.body) snprintf(why, sizeof why, "%s", (char *)t.body);
        pd_resp_free(&t);
        prom_stop(p);
        fail_msg("Prometheus did not scrape perfd successfully within 30 s: %s", why);
    }
}

/* The raw samples of the one series a selector picks, over the last
 * `window` seconds: [t, v] pairs. 0 samples when none. */
static size_t prom_samples(const prom *p, const char *selector, int window, double *ts, double *vs, size_t cap)
{
    char q[600], enc[1400], path[1700];
    snprintf(q, sizeof q, "%s[%ds]", selector, window);
    url_encode(q, enc, sizeof enc);
    snprintf(path, sizeof path, "/api/v1/query?query=%s&time=%.3f", enc, realtime());
    pd_resp r;
    assert_int_equal(pd_get(p->port, path, "", &r, 10000), 0);
    assert_int_equal(r.status, 200);
    const char *s = strstr((char *)r.body, "\"values\":[");
    size_t nv = 0;
    if (s && !strstr(s + 1, "\"values\":[")) { /* exactly one series */
        s += 10;
        while (nv < cap && *s == '[') {
            char *e;
            ts[nv] = strtod(s + 1, &e);
            if (*e != ',' || e[1] != '"') break;
            vs[nv] = strtod(e + 2, &e);
            nv++;
            s = strchr(e, ']');
            if (!s) break;
            s++;
            if (*s == ',') s++;
        }
    } else if (s) {
        fail_msg("%s picks more than one series: %.300s", selector, (char *)r.body);
    }
    pd_resp_free(&r);
    return nv;
}

#define MAX_SAMPLES 400

typedef struct proc_sample {
    double t;                 /* CLOCK_REALTIME seconds */
    double busy;              /* busy CPU-seconds since boot, all CPUs */
    double disk[MAX_DEV];     /* bytes read + written */
    double net[MAX_DEV];      /* bytes received + sent */
    double faults;            /* pgfault */
    double avail;             /* MemAvailable, bytes */
} proc_sample;

static const proc_sample *nearest(const proc_sample *v, size_t n, double t)
{
    const proc_sample *best = &v[0];
    for (size_t i = 1; i < n; i++)
        if (fabs(v[i].t - t) < fabs(best->t - t)) best = &v[i];
    return best;
}

/* Load while Prometheus watches: bytes over 127.0.0.1 and to a file on
 * disk (fdatasync'd), and a busy loop; each stops by the deadline. */
static volatile int load_stop;

static void *net_sink(void *arg)
{
    int ls = *(int *)arg;
    int c = accept(ls, NULL, NULL);
    char buf[65536];
    while (c >= 0 && recv(c, buf, sizeof buf, 0) > 0) {}
    if (c >= 0) close(c);
    return NULL;
}

static void *net_load(void *arg)
{
    unsigned port = *(unsigned *)arg;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return NULL;
    }
    static char buf[65536];
    while (!load_stop) { /* about 20 MB/s */
        if (send(fd, buf, sizeof buf, MSG_NOSIGNAL) <= 0) break;
        usleep(3000);
    }
    close(fd);
    return NULL;
}

static void *disk_load(void *arg)
{
    const char *path = arg;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return NULL;
    static char buf[1 << 20];
    memset(buf, 0x5a, sizeof buf);
    for (int i = 0; !load_stop && i < 200; i++) { /* about 5 MB/s, at most 200 MB */
        if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) break;
        fdatasync(fd);
        usleep(200000);
    }
    close(fd);
    unlink(path);
    return NULL;
}

static void *cpu_load(void *arg)
{
    (void)arg;
    volatile unsigned long x = 0;
    while (!load_stop) x++;
    return NULL;
}

/* When perfd collected the data of the scrape Prometheus stamped `t`:
 * Prometheus stamps a sample with the scrape's start, and under load the
 * collection can end a good part of a second later. The block is stamped
 * when its collection ends (perflib_scrape_timestamp_seconds); the
 * providers read /proc during the collection before it
 * (perflib_scrape_collect_duration_seconds): [*from, *to]. */
static void collected_at(const prom *p, int window, double t, double *from, double *to)
{
    static double ts[64], vs[64], td[64], vd[64];
    size_t n = prom_samples(p, "perflib_scrape_timestamp_seconds", window, ts, vs, 64);
    size_t nd = prom_samples(p, "perflib_scrape_collect_duration_seconds", window, td, vd, 64);
    for (size_t i = 0; i < n; i++)
        if (ts[i] == t)
            for (size_t k = 0; k < nd; k++)
                if (td[k] == t) {
                    *to = vs[i];
                    *from = vs[i] - vd[k];
                    return;
                }
    fail_msg("no perflib_scrape_timestamp_seconds or _collect_duration_seconds for the scrape at %.3f", t);
}

/* The /proc samples around [from, to]: *lo the last at or before from,
 * *hi the first at or after to. */
static void around(const proc_sample *ps, size_t ns, double from, double to, size_t *lo, size_t *hi)
{
    size_t i = 0;
    while (i + 1 < ns && ps[i + 1].t <= from) i++;
    *lo = i;
    size_t j = ns - 1;
    while (j > 0 && ps[j - 1].t >= to) j--;
    *hi = j;
}

/* The increase of a running total `sel` between Prometheus's first and
 * last samples must lie within what /proc's own increase can be between
 * those two collections: from the samples just inside to the samples just
 * outside the collections' spans (a burst at either end moves the bound,
 * never the check).
 * slack: what rounding may add (CPU ticks). Prints both; 0 when within.
 * *proc_delta receives /proc's increase at the nearest samples. */
static int compare(const prom *p, const char *sel, const proc_sample *ps, size_t ns, size_t off, double slack,
                   double *proc_delta)
{
    double ts[64], vs[64];
    int window = (int)(ps[ns - 1].t - ps[0].t) + 2;
    size_t nv = prom_samples(p, sel, window, ts, vs, 64);
    if (nv < 4) fail_msg("Prometheus has %zu samples of %s", nv, sel);
    /* the first and last scrapes whose collections lie within /proc's
     * samples */
    size_t first = 0, last = nv - 1;
    double f0, t0, f1, t1;
    for (;; first++) {
        if (first + 3 > last) fail_msg("fewer than 4 samples of %s inside the window", sel);
        collected_at(p, window, ts[first], &f0, &t0);
        if (f0 >= ps[0].t) break;
    }
    for (;; last--) {
        if (last < first + 3) fail_msg("fewer than 4 samples of %s inside the window", sel);
        collected_at(p, window, ts[last], &f1, &t1);
        if (t1 <= ps[ns - 1].t) break;
    }
    size_t a_lo, a_hi, b_lo, b_hi;
    around(ps, ns, f0, t0, &a_lo, &a_hi);
    around(ps, ns, f1, t1, &b_lo, &b_hi);
#define AT(k) (*(const double *)((const char *)&ps[k] + off))
    double lo = AT(b_lo) - AT(a_hi), hi = AT(b_hi) - AT(a_lo);
    *proc_delta = AT((b_lo + b_hi) / 2) - AT((a_lo + a_hi) / 2);
#undef AT
    double dp = vs[last] - vs[first];
    int ok = dp >= lo - slack && dp <= hi + slack;
    if (getenv("PM_DEBUG")) {
#define AT(k) (*(const double *)((const char *)&ps[k] + off))
        print_message("  first: prom %.6f at [%.3f, %.3f]; proc %.6f at %.3f .. %.6f at %.3f\n", vs[first], f0, t0, AT(a_lo),
                      ps[a_lo].t, AT(a_hi), ps[a_hi].t);
        print_message("  last:  prom %.6f at [%.3f, %.3f]; proc %.6f at %.3f .. %.6f at %.3f\n", vs[last], f1, t1,
                      AT(b_lo), ps[b_lo].t, AT(b_hi), ps[b_hi].t);
#undef AT
    }
    print_message("%-70s over %.2f s: Prometheus %.6g, /proc %.6g..%.6g%s\n", sel, t1 - t0, dp, lo, hi,
                  ok ? "" : "  <-- outside");
    return ok ? 0 : -1;
}

static void live_prometheus_rates_match_proc(void **state)
{
    (void)state;
    /* the default objects (no Process, Thread): a scrape well inside 1 s on
     * a loaded machine */
    start_perfd(&pd, "metrics_objects=default");
    char *first = scrape(&pd);
    devs disks, nics;
    instances_of(first, "perflib_physicaldisk_disk_bytes_total", "physicaldisk", &disks);
    instances_of(first, "perflib_network_interface_bytes_total", "network_interface", &nics);
    free(first);
    assert_true(disks.n > 0 && nics.n > 0);
    prom_start(&P, pd.port, "");
    const prom *pp = &P;

    /* the load */
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(ls, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(ls, 1), 0);
    socklen_t al = sizeof a;
    getsockname(ls, (struct sockaddr *)&a, &al);
    unsigned lport = ntohs(a.sin_port);
    char file[700];
    snprintf(file, sizeof file, "./disk-load-%d.bin", (int)getpid()); /* the build tree: on a disk */
    load_stop = 0;
    pthread_t tn, ts_, td, tc;
    assert_int_equal(pthread_create(&ts_, NULL, net_sink, &ls), 0);
    assert_int_equal(pthread_create(&tn, NULL, net_load, &lport), 0);
    assert_int_equal(pthread_create(&td, NULL, disk_load, file), 0);
    assert_int_equal(pthread_create(&tc, NULL, cpu_load, NULL), 0);

    /* /proc every 50 ms while Prometheus scrapes for ~7 s */
    static proc_sample samples[MAX_SAMPLES];
    size_t ns = 0;
    double t0 = realtime();
    while (realtime() - t0 < 7.5 && ns < MAX_SAMPLES) {
        proc_sample *s = &samples[ns];
        s->t = realtime();
        s->busy = proc_stat_busy();
        for (int i = 0; i < disks.n; i++) s->disk[i] = disk_bytes(disks.name[i]);
        for (int i = 0; i < nics.n; i++) s->net[i] = net_bytes(nics.name[i]);
        s->faults = (double)vmstat("pgfault");
        s->avail = (double)meminfo_kb("MemAvailable") * 1024;
        ns++;
        usleep(50000);
    }
    load_stop = 1;
    pthread_join(tn, NULL);
    shutdown(ls, SHUT_RDWR);
    close(ls);
    pthread_join(ts_, NULL);
    pthread_join(td, NULL);
    pthread_join(tc, NULL);

    int bad = 0;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    double d;
    /* CPU: /proc/stat counts in ticks of 10 ms per processor */
    bad |= compare(pp, "perflib_processor_processor_time_seconds_total{processor=\"_Total\"}", samples, ns,
                   offsetof(proc_sample, busy), 0.02 * (double)ncpu, &d);
    /* disks and interfaces: every one, bytes */
    double disk_moved = 0, net_moved = 0;
    for (int i = 0; i < disks.n; i++) {
        char sel[200];
        snprintf(sel, sizeof sel, "perflib_physicaldisk_disk_bytes_total{physicaldisk=\"%s\"}", disks.name[i]);
        if (samples[0].disk[i] < 0) continue; /* not in /proc/diskstats */
        bad |= compare(pp, sel, samples, ns, offsetof(proc_sample, disk) + (size_t)i * sizeof(double), 0, &d);
        if (d > disk_moved) disk_moved = d;
    }
    for (int i = 0; i < nics.n; i++) {
        char sel[200];
        snprintf(sel, sizeof sel, "perflib_network_interface_bytes_total{network_interface=\"%s\"}", nics.name[i]);
        if (samples[0].net[i] < 0) continue;
        bad |= compare(pp, sel, samples, ns, offsetof(proc_sample, net) + (size_t)i * sizeof(double), 0, &d);
        if (d > net_moved) net_moved = d;
    }
    /* memory: page faults, and the available memory at the last sample */
    bad |= compare(pp, "perflib_memory_page_faults_total", samples, ns, offsetof(proc_sample, faults), 0, &d);
    double tsm[64], vsm[64];
    size_t nm = prom_samples(pp, "perflib_memory_available_bytes", 10, tsm, vsm, 64);
    assert_true(nm >= 4);
    double mf = 0, mt = 0; /* set by collected_at (gcc -O3 cannot see that) */
    collected_at(pp, 10, tsm[nm - 1], &mf, &mt);
    const proc_sample *near = nearest(samples, ns, (mf + mt) / 2);
    print_message("perflib_memory_available_bytes at the last sample: Prometheus %.0f, /proc %.0f\n", vsm[nm - 1],
                  near->avail);
    if (fabs(vsm[nm - 1] - near->avail) > 0.02 * near->avail + 33554432.0) bad = 1;
    prom_stop(&P);
    assert_int_equal(pd_stop(&pd), 0);
    /* the load was seen at all: the checks were not of idle counters */
    if (disk_moved < 8e6) fail_msg("no disk saw the test's writes (%.0f bytes): is the working directory on a disk?", disk_moved);
    if (net_moved < 20e6) fail_msg("no interface saw the test's traffic (%.0f bytes)", net_moved);
    assert_int_equal(bad, 0);
}

/* The running totals the kernel keeps in /proc/net (issue 24: published as
 * raw counts, they are counters): each value of one scrape lies between the
 * kernel's counts read just before and just after it. A refused TCP
 * connection and a UDP datagram to a closed port first, so that the failure
 * and no-port counts are not all zero. */
static void live_running_totals_match_proc(void **state)
{
    (void)state;
    start_perfd(&pd, "metrics_objects=all");
    int tfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ufd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    assert_true(tfd >= 0 && ufd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)free_port())};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(tfd, (struct sockaddr *)&a, sizeof a), -1); /* nobody listens: refused */
    assert_int_equal(sendto(ufd, "x", 1, 0, (struct sockaddr *)&a, sizeof a), 1);
    close(tfd);
    close(ufd);
    static const struct { const char *proto, *field, *series; } snmp[] = {
        {"Tcp", "ActiveOpens", "perflib_tcpv4_connections_active_total"},
        {"Tcp", "PassiveOpens", "perflib_tcpv4_connections_passive_total"},
        {"Tcp", "AttemptFails", "perflib_tcpv4_connection_failures_total"},
        {"Tcp", "EstabResets", "perflib_tcpv4_connections_reset_total"},
        {"Udp", "NoPorts", "perflib_udpv4_datagrams_no_port_total"},
        {"Udp", "InErrors", "perflib_udpv4_datagrams_received_errors_total"},
        {"Ip", "InHdrErrors", "perflib_ipv4_datagrams_received_header_errors_total"},
        {"Ip", "InDiscards", "perflib_ipv4_datagrams_received_discarded_total"},
        {"Icmp", "InErrors", "perflib_icmp_messages_received_errors_total"},
        {"Icmp", "InDestUnreachs", "perflib_icmp_received_dest_unreachable_total"},
    };
    enum { NS = sizeof snmp / sizeof snmp[0] };
    /* /proc/net/dev columns: 2 rx errs, 3 rx drop, 10 tx errs, 11 tx drop */
    static const struct { int col; const char *fam; } dev[] = {
        {2, "perflib_network_interface_packets_received_errors_total"},
        {3, "perflib_network_interface_packets_received_discarded_total"},
        {10, "perflib_network_interface_packets_outbound_errors_total"},
        {11, "perflib_network_interface_packets_outbound_discarded_total"},
    };
    double lo[NS], hi[NS];
    for (size_t i = 0; i < NS; i++) lo[i] = net_snmp(snmp[i].proto, snmp[i].field);
    devs nics = {0};
    double dlo[MAX_DEV][4];
    char *probe = scrape(&pd);
    instances_of(probe, "perflib_network_interface_bytes_total", "network_interface", &nics);
    free(probe);
    assert_true(nics.n > 0);
    for (int k = 0; k < nics.n; k++)
        for (int j = 0; j < 4; j++) dlo[k][j] = net_dev_col(nics.name[k], dev[j].col);
    char *body = scrape(&pd);
    int bad = 0;
    for (size_t i = 0; i < NS; i++) {
        hi[i] = net_snmp(snmp[i].proto, snmp[i].field);
        double v = pmt_must(body, snmp[i].series);
        print_message("%s %.0f, /proc/net/snmp %s %s %.0f..%.0f\n", snmp[i].series, v, snmp[i].proto, snmp[i].field,
                      lo[i], hi[i]);
        if (v < lo[i] || v > hi[i]) bad++;
    }
    assert_true(pmt_must(body, "perflib_tcpv4_connection_failures_total") > 0);
    assert_true(pmt_must(body, "perflib_udpv4_datagrams_no_port_total") > 0);
    for (int k = 0; k < nics.n; k++)
        for (int j = 0; j < 4; j++) {
            double h = net_dev_col(nics.name[k], dev[j].col);
            char sel[200];
            snprintf(sel, sizeof sel, "%s{network_interface=\"%s\"}", dev[j].fam, nics.name[k]);
            double v = pmt_must(body, sel);
            print_message("%s %.0f, /proc/net/dev %.0f..%.0f\n", sel, v, dlo[k][j], h);
            if (v < dlo[k][j] || v > h) bad++;
        }
    free(body);
    assert_int_equal(bad, 0);
    assert_int_equal(pd_stop(&pd), 0);
}

/* The body of an instant query. */
static char *prom_query(const prom *p, const char *q)
{
    char enc[1400], path[1700];
    url_encode(q, enc, sizeof enc);
    snprintf(path, sizeof path, "/api/v1/query?query=%s", enc);
    pd_resp r;
    assert_int_equal(pd_get(p->port, path, "", &r, 10000), 0);
    if (r.status != 200) fail_msg("%s: %d %s", q, r.status, r.body ? (char *)r.body : "");
    char *b = (char *)r.body;
    r.body = NULL;
    pd_resp_free(&r);
    return b;
}

static int count_of(const char *body, const char *s)
{
    int n = 0;
    for (const char *p = body; (p = strstr(p, s)) != NULL; p++) n++;
    return n;
}

/* Issue 25 through a real Prometheus: a job with params collect[] =
 * Process gets only Process (and perfd's own) series; the top 3 processes,
 * Idle and _Other; every series labelled system_name; _Other's CPU rate
 * exists and is not negative. */
static void live_prometheus_collect_top_identity(void **state)
{
    (void)state;
    char *dir = pq_mkdtemp();
    char store[700];
    snprintf(store, sizeof store, "%s/perflib.db", dir);
    free(dir);
    const char *args[] = {"--registry", store, "--system-name", "web-01", "--set", "metrics_objects=Memory, Process",
                          "--set", "metrics_process_top=3", "--set", "metrics_system_label=on", NULL};
    memset(&pd, 0, sizeof pd);
    assert_int_equal(pd_start(&pd, args, NULL), 0);
    prom_start(&P, pd.port, "    params:\n      'collect[]': ['Process']\n");
    sleep(4); /* a few more scrapes for rate() */
    char *b = prom_query(&P, "count({__name__=~\"perflib_memory_.+\"})");
    if (!strstr(b, "\"result\":[]")) fail_msg("Memory series despite collect[]=Process: %s", b);
    free(b);
    b = prom_query(&P, "perflib_process_working_set_bytes");
    int series = count_of(b, "\"__name__\":\"perflib_process_working_set_bytes\"");
    if (series < 3 || series > 5) fail_msg("%d working set series (top 3, Idle, _Other): %.2000s", series, b);
    assert_non_null(strstr(b, "\"process\":\"_Other\""));
    assert_int_equal(count_of(b, "\"system_name\":\"web-01\""), series);
    free(b);
    b = prom_query(&P, "rate(perflib_process_processor_time_seconds_total{process=\"_Other\"}[3s]) >= 0");
    if (count_of(b, "\"process\":\"_Other\"") != 1) fail_msg("no rate of _Other's CPU: %s", b);
    free(b);
    b = prom_query(&P, "perflib_build_info");
    assert_non_null(strstr(b, "\"system_name\":\"web-01\""));
    free(b);
    prom_stop(&P);
    assert_int_equal(pd_stop(&pd), 0);
}

/* /metrics?target= as Prometheus uses it: the job's targets are the
 * machines (here a second perfd, REMOTEB), relabelled as for the blackbox
 * exporter so that the hub (whose remote_config lists REMOTEB) is scraped
 * with __param_target; the series carry the machine as instance and
 * REMOTEB's system name. */
static pd_proc pd_remote;

static void live_prometheus_target_relabel(void **state)
{
    (void)state;
    char *dir = pq_mkdtemp();
    char store[700], store2[700], conf[700], text[300], set[800];
    snprintf(store, sizeof store, "%s/hub.db", dir);
    snprintf(store2, sizeof store2, "%s/remote.db", dir);
    snprintf(conf, sizeof conf, "%s/remote.conf", dir);
    const char *rargs[] = {"--registry", store2, "--system-name", "REMOTEB", NULL};
    memset(&pd_remote, 0, sizeof pd_remote);
    assert_int_equal(pd_start(&pd_remote, rargs, NULL), 0);
    snprintf(text, sizeof text, "timeout_ms = 5000\n[127.0.0.1:%u]\ntls = off\n", pd_remote.port);
    assert_int_equal(pq_write_file(conf, text, strlen(text)), 0);
    snprintf(set, sizeof set, "remote_config=%s", conf);
    const char *args[] = {"--registry", store, "--system-name", "HUB", "--set", set, NULL};
    memset(&pd, 0, sizeof pd);
    assert_int_equal(pd_start(&pd, args, NULL), 0);
    char job[600];
    snprintf(job, sizeof job,
             "    params:\n      'collect[]': ['Memory']\n"
             "    relabel_configs:\n"
             "      - source_labels: [__address__]\n        target_label: __param_target\n"
             "      - source_labels: [__param_target]\n        target_label: instance\n"
             "      - target_label: __address__\n        replacement: 127.0.0.1:%u\n",
             pd.port);
    prom_start(&P, pd_remote.port, job);
    char want[100];
    snprintf(want, sizeof want, "\"instance\":\"127.0.0.1:%u\"", pd_remote.port);
    char *b = prom_query(&P, "perflib_memory_available_bytes");
    if (count_of(b, "\"__name__\":\"perflib_memory_available_bytes\"") != 1 || !strstr(b, want))
        fail_msg("no perflib_memory_available_bytes of %s: %s", want, b);
    free(b);
    b = prom_query(&P, "perflib_system_info");
    if (!strstr(b, "\"system_name\":\"REMOTEB\"") || !strstr(b, want) || strstr(b, "HUB"))
        fail_msg("perflib_system_info is not REMOTEB's: %s", b);
    free(b);
    b = prom_query(&P, "count({__name__=~\"perflib_processor_.+\"})");
    if (!strstr(b, "\"result\":[]")) fail_msg("Processor series despite collect[]=Memory: %s", b);
    free(b);
    prom_stop(&P);
    assert_int_equal(pd_stop(&pd), 0);
    assert_int_equal(pd_stop(&pd_remote), 0);
    pq_rmdir(dir);
    free(dir);
}

static int teardown(void **state)
{
    (void)state;
    load_stop = 1;
    prom_stop(&P);
    if (pd.pid > 0) pd_stop(&pd);
    if (pd_remote.pid > 0) pd_stop(&pd_remote);
    return 0;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(live_promtool_whole_exposition, teardown),
        cmocka_unit_test_teardown(live_object_list, teardown),
        cmocka_unit_test_teardown(live_gzip, teardown),
        cmocka_unit_test_teardown(live_values_agree, teardown),
        cmocka_unit_test_teardown(live_self_metrics, teardown),
        cmocka_unit_test_teardown(live_running_totals_match_proc, teardown),
        cmocka_unit_test_teardown(live_prometheus_rates_match_proc, teardown),
        cmocka_unit_test_teardown(live_prometheus_collect_top_identity, teardown),
        cmocka_unit_test_teardown(live_prometheus_target_relabel, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
