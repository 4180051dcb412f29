/* perfd's /metrics: what a scrape serves, live (the real daemon on
 * 127.0.0.1, ephemeral port; docs/perfd.md "Choosing counters"):
 *   - `--set 'metrics_counters=\Memory\Available Bytes'` serves that one
 *     counter under the name, type and HELP the table gives it in the whole
 *     object, with MemAvailable's value, and nothing else but perfd's own
 *     metrics; `promtool check metrics` says nothing;
 *   - several paths (';'), wildcards, a path by index (\4\24), English names
 *     and metrics_exclude: Process series for every process but the
 *     excluded ones, a process this test starts among them;
 *   - metrics_exclude on whole objects: Processor served whole, Process
 *     without the excluded processes;
 *   - a bad path is refused at start and by --check-config, naming the
 *     setting and the path;
 *   - /metrics?collect[]=Memory answers only Memory's families (and
 *     perfd's own metrics); two collect[]; an unknown object and an object
 *     the configuration does not serve are a 400 saying so;
 *   - metrics_system_label=on puts system_name="NAME" (--system-name) first
 *     on every series, perfd's own included, in both formats (the text
 *     promtool clean); off, only perflib_system_info carries it. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pd_util.h"
#include "pl_test.h"
#include "pm_test.h"
#include "pq_run.h"

static pd_proc pd;
static pid_t child = -1;

static void start_perfd(pd_proc *p, const char *const *sets)
{
    char *dir = pq_mkdtemp();
    char store[700];
    snprintf(store, sizeof store, "%s/perflib.db", dir);
    free(dir);
    const char *args[16] = {"--registry", store, "--set", "snapshot_max_age_ms=0"};
    size_t n = 4;
    for (size_t i = 0; sets[i] && n + 2 < 16; i++) {
        args[n++] = "--set";
        args[n++] = sets[i];
    }
    args[n] = NULL;
    memset(p, 0, sizeof *p);
    assert_int_equal(pd_start(p, args, NULL), 0);
}

static pd_resp get(const char *path)
{
    pd_resp r;
    assert_int_equal(pd_get(pd.port, path, "", &r, 20000), 0);
    return r;
}

static char *scrape(const char *path)
{
    pd_resp r = get(path);
    if (r.status != 200) fail_msg("%s: status %d: %s", path, r.status, r.body ? (char *)r.body : "");
    char *body = (char *)r.body;
    r.body = NULL;
    pd_resp_free(&r);
    return body;
}

/* perfd's own families, present in every scrape */
static int own_line(const char *l)
{
    static const char *const own[] = {"perflib_build_info", "perflib_system_info", "perflib_provider_",
                                      "perflib_object_up", "perflib_scrape_"};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if (strncmp(l, own[i], strlen(own[i])) == 0) return 1;
    return 0;
}

/* Every sample line of text that is no own metric starts with one of the
 * prefixes; each prefix has at least one. */
static void only_families(const char *text, const char *const *prefixes)
{
    size_t np = 0;
    while (prefixes[np]) np++;
    int seen[16] = {0};
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *hash = l;
        if (*l == '\n') continue;
        if (strncmp(l, "# HELP ", 7) == 0 || strncmp(l, "# TYPE ", 7) == 0) hash = l + 7;
        else if (*l == '#') continue;
        if (own_line(hash)) continue;
        int ok = 0;
        for (size_t i = 0; i < np; i++)
            if (strncmp(hash, prefixes[i], strlen(prefixes[i])) == 0) ok = seen[i] = 1;
        if (!ok) fail_msg("a family not asked for: %.100s", l);
    }
    for (size_t i = 0; i < np; i++)
        if (!seen[i]) fail_msg("no %s in\n%.3000s", prefixes[i], text);
}

/* The "# HELP fam ..." line of text (copied), for comparing. */
static void help_line(const char *text, const char *fam, char *out, size_t cap)
{
    char key[200];
    snprintf(key, sizeof key, "# HELP %s ", fam);
    const char *h = strstr(text, key);
    if (!h) fail_msg("no HELP for %s", fam);
    const char *e = strchr(h, '\n');
    snprintf(out, cap, "%.*s", (int)(e ? e - h : (long)strlen(h)), h);
}

static unsigned long long mem_available_kb(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    assert_non_null(f);
    char line[256];
    unsigned long long v = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "MemAvailable:", 13) == 0) v = strtoull(line + 13, NULL, 10);
    fclose(f);
    assert_true(v > 0);
    return v;
}

static void live_counter_path_one(void **state)
{
    (void)state;
    const char *sets[] = {"metrics_counters=\\Memory\\Available Bytes", NULL};
    start_perfd(&pd, sets);
    char *body = scrape("/metrics");
    const char *only[] = {"perflib_memory_available_bytes ", NULL};
    only_families(body, only);
    double v = pmt_must(body, "perflib_memory_available_bytes");
    double kb = (double)mem_available_kb() * 1024.0;
    if (v < kb * 0.9 - 67108864.0 || v > kb * 1.1 + 67108864.0)
        fail_msg("Available Bytes %.0f, MemAvailable %.0f", v, kb);
    assert_non_null(strstr(body, "# TYPE perflib_memory_available_bytes gauge\n"));
    assert_non_null(strstr(body, "perflib_object_up{object=\"Memory\",provider=\"PerfOS\"} 1\n"));
    assert_null(strstr(body, "perflib_object_up{object=\"Processor\""));
    pmt_promtool_clean(body, strlen(body));
    char h1[1500], h2[1500];
    help_line(body, "perflib_memory_available_bytes", h1, sizeof h1);
    free(body);
    assert_int_equal(pd_stop(&pd), 0);
    /* the same name and HELP as in the whole object */
    const char *whole[] = {"metrics_objects=Memory", NULL};
    start_perfd(&pd, whole);
    body = scrape("/metrics");
    help_line(body, "perflib_memory_available_bytes", h2, sizeof h2);
    assert_string_equal(h1, h2);
    free(body);
    assert_int_equal(pd_stop(&pd), 0);
}

static void live_counter_paths_wildcards_exclude(void **state)
{
    (void)state;
    /* a process of our own to find among the instances */
    child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        execlp("sleep", "sleep", "60", (char *)NULL);
        _exit(127);
    }
    const char *sets[] = {"metrics_counters= \\Process(*)\\% Processor Time ;\\PhysicalDisk(*)\\Avg. Disk sec/Read;"
                          "\\4\\24",
                          "metrics_exclude=\\Process(perfd*)\\*;\\Process(_Total)\\*", NULL};
    start_perfd(&pd, sets);
    char *body = scrape("/metrics");
    const char *only[] = {"perflib_process_processor_time_seconds_total",
                          "perflib_memory_available_bytes ", "perflib_physicaldisk_disk_read_duration_seconds", NULL};
    /* PhysicalDisk needs a disk: a machine without one fails loudly here */
    only_families(body, only);
    char want[120];
    snprintf(want, sizeof want, "perflib_process_processor_time_seconds_total{process=\"sleep\",pid=\"%d\"}", (int)child);
    pmt_must(body, want);
    assert_null(strstr(body, "process=\"perfd\""));
    assert_null(strstr(body, "process=\"_Total\""));
    /* every process of the machine but perfd (and _Total) */
    int series = 0;
    for (const char *l = body; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        series += strncmp(l, "perflib_process_processor_time_seconds_total{", 45) == 0;
    int procs = 0;
    FILE *f = popen("ls /proc | grep -c '^[0-9]'", "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%d", &procs), 1);
    pclose(f);
    if (series < procs / 2 || series > procs + 50) fail_msg("%d Process series, %d processes in /proc", series, procs);
    pmt_promtool_clean(body, strlen(body));
    free(body);
    assert_int_equal(pd_stop(&pd), 0);
}

/* metrics_exclude with whole objects: the object it names loses those
 * instances, the others are served whole */
static void live_exclude_whole_objects(void **state)
{
    (void)state;
    const char *sets[] = {"metrics_objects=Processor, Process", "metrics_exclude=\\Process(perfd*)\\*", NULL};
    start_perfd(&pd, sets);
    char *body = scrape("/metrics");
    const char *only[] = {"perflib_processor_", "perflib_process_", NULL};
    only_families(body, only);
    assert_non_null(strstr(body, "processor=\"0\"}"));
    int procs = 0;
    for (const char *l = body; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        procs += strncmp(l, "perflib_process_processor_time_seconds_total{", 45) == 0;
    if (procs < 10) fail_msg("%d processes served", procs);
    assert_null(strstr(body, "process=\"perfd\""));
    pmt_promtool_clean(body, strlen(body));
    free(body);
    assert_int_equal(pd_stop(&pd), 0);
}

static void expect_refused(const char *set, const char *const *needles)
{
    for (int check = 0; check < 2; check++) {
        const char *args[] = {"--listen", "127.0.0.1:0", "--set", set, check ? "--check-config" : NULL, NULL};
        char *err = NULL;
        int code = pd_run(args, &err, 10000);
        if (code == 0) fail_msg("perfd%s took %s", check ? " --check-config" : "", set);
        for (size_t i = 0; needles[i]; i++)
            if (!err || !strstr(err, needles[i])) fail_msg("%s: no \"%s\" in: %s", set, needles[i], err ? err : "");
        free(err);
    }
}

static void live_counter_path_refused(void **state)
{
    (void)state;
    const char *a[] = {"metrics_counters", "\"Memory\\Available Bytes\" is not a counter path", NULL};
    expect_refused("metrics_counters=\\Memory\\Available Bytes;Memory\\Available Bytes", a);
    const char *b[] = {"metrics_counters", "names a machine", NULL};
    expect_refused("metrics_counters=\\\\otherhost\\Memory\\Available Bytes", b);
    const char *c[] = {"metrics_exclude", "is not a counter path", NULL};
    expect_refused("metrics_exclude=\\Process(x*#1)\\*", c);
}

static void live_collect(void **state)
{
    (void)state;
    const char *sets[] = {"metrics_objects=default", NULL};
    start_perfd(&pd, sets);
    char *body = scrape("/metrics?collect[]=Memory");
    const char *mem[] = {"perflib_memory_", NULL};
    only_families(body, mem);
    assert_non_null(strstr(body, "perflib_object_up{object=\"Memory\",provider=\"PerfOS\"} 1\n"));
    assert_null(strstr(body, "perflib_object_up{object=\"Processor\""));
    pmt_promtool_clean(body, strlen(body));
    free(body);
    /* as Prometheus writes it (params: collect[]), two objects, one by index */
    body = scrape("/metrics?collect%5B%5D=Memory&collect%5B%5D=238");
    const char *two[] = {"perflib_memory_", "perflib_processor_", NULL};
    only_families(body, two);
    free(body);
    pd_resp r = get("/metrics?collect[]=Memoryy");
    assert_int_equal(r.status, 400);
    assert_non_null(strstr((char *)r.body, "collect[]: no object \"Memoryy\""));
    pd_resp_free(&r);
    r = get("/metrics?collect[]=");
    assert_int_equal(r.status, 400);
    assert_non_null(strstr((char *)r.body, "collect[]: an empty object name"));
    pd_resp_free(&r);
    r = get("/metrics?collect[]=Process");
    assert_int_equal(r.status, 400);
    assert_non_null(strstr((char *)r.body, "\"Process\" (230) is not served by this perfd"));
    pd_resp_free(&r);
    assert_int_equal(pd_stop(&pd), 0);
    /* a counter path's object may be asked for; the others are not served */
    const char *sel[] = {"metrics_counters=\\Process(*)\\Working Set", NULL};
    start_perfd(&pd, sel);
    body = scrape("/metrics?collect[]=Process");
    const char *proc[] = {"perflib_process_working_set_bytes", NULL};
    only_families(body, proc);
    free(body);
    r = get("/metrics?collect[]=Memory");
    assert_int_equal(r.status, 400);
    pd_resp_free(&r);
    assert_int_equal(pd_stop(&pd), 0);
}

static void start_named(const char *label)
{
    char *dir = pq_mkdtemp();
    char store[700];
    snprintf(store, sizeof store, "%s/perflib.db", dir);
    free(dir);
    const char *args[] = {"--registry", store, "--system-name", "web-01", "--set", "metrics_objects=Memory, Process",
                          "--set", "metrics_process_top=2", "--set", label, NULL};
    memset(&pd, 0, sizeof pd);
    assert_int_equal(pd_start(&pd, args, NULL), 0);
}

static void live_system_label(void **state)
{
    (void)state;
    start_named("metrics_system_label=on");
    char *body = scrape("/metrics");
    int samples = 0;
    for (const char *l = body; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (*l == '#' || *l == '\n') continue;
        samples++;
        const char *b = strchr(l, '{'), *e = strchr(l, '\n');
        if (!b || (e && b > e) || strncmp(b, "{system_name=\"web-01\"", 21) != 0)
            fail_msg("a series without system_name first: %.120s", l);
    }
    assert_true(samples > 50);
    assert_non_null(strstr(body, "perflib_process_working_set_bytes{system_name=\"web-01\",process=\"_Other\"} "));
    assert_non_null(strstr(body, "perflib_process_other_processes{system_name=\"web-01\"} "));
    assert_non_null(strstr(body, "perflib_system_info{system_name=\"web-01\",kernel="));
    pmt_promtool_clean(body, strlen(body));
    free(body);
    pd_resp r;
    assert_int_equal(pd_get(pd.port, "/metrics", "Accept: application/openmetrics-text\r\n", &r, 20000), 0);
    assert_int_equal(r.status, 200);
    assert_non_null(strstr((char *)r.body, "perflib_memory_available_bytes{system_name=\"web-01\"} "));
    pd_resp_free(&r);
    assert_int_equal(pd_stop(&pd), 0);
    start_named("metrics_system_label=off");
    body = scrape("/metrics");
    assert_non_null(strstr(body, "perflib_system_info{system_name=\"web-01\",kernel="));
    assert_non_null(strstr(body, "\nperflib_memory_available_bytes "));
    free(body);
    assert_int_equal(pd_stop(&pd), 0);
    const char *bad[] = {"metrics_system_label must be on or off", NULL};
    expect_refused("metrics_system_label=yes please", bad);
}

static int teardown(void **state)
{
    (void)state;
    if (pd.pid > 0) pd_stop(&pd);
    if (child > 0) {
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        child = -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(live_counter_path_one, teardown),
        cmocka_unit_test_teardown(live_counter_paths_wildcards_exclude, teardown),
        cmocka_unit_test_teardown(live_exclude_whole_objects, teardown),
        cmocka_unit_test_teardown(live_counter_path_refused, teardown),
        cmocka_unit_test_teardown(live_collect, teardown),
        cmocka_unit_test_teardown(live_system_label, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
