/* perfd's /metrics top processes, live (the real daemon on 127.0.0.1,
 * ephemeral port; docs/perfd.md "Top processes"):
 *   - metrics_process_top=5: each Process family has at most 5 ranked
 *     processes, pid 0 (Idle), process="_Other" and _Total; the additive
 *     gauges (bytes in use, threads, handles) of all its series add up to
 *     _Total exactly (one snapshot) wherever _Total is there (at least
 *     working set, threads, handles); promtool says nothing;
 *   - ranked by cpu, a process of this test that spins is among the top
 *     from the second scrape; by memory, one that holds 256 MiB is;
 *   - _Other's counters never fall while short-lived processes come and
 *     go and move in and out of the top between scrapes;
 *   - bad values are refused naming the setting; an unknown counter name
 *     is a 500 saying so. */
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
static pid_t kids[4] = {-1, -1, -1, -1};

static void start_perfd(const char *top, const char *by)
{
    char *dir = pq_mkdtemp();
    char store[700], t[64], b[120];
    snprintf(store, sizeof store, "%s/perflib.db", dir);
    free(dir);
    snprintf(t, sizeof t, "metrics_process_top=%s", top);
    snprintf(b, sizeof b, "metrics_process_top_by=%s", by);
    const char *args[] = {"--registry", store, "--set", "snapshot_max_age_ms=0", "--set", "metrics_objects=Process",
                          "--set", "metrics_total=on", "--set", t, "--set", b, NULL};
    memset(&pd, 0, sizeof pd);
    assert_int_equal(pd_start(&pd, args, NULL), 0);
}

static char *scrape(void)
{
    pd_resp r;
    assert_int_equal(pd_get(pd.port, "/metrics", "", &r, 20000), 0);
    if (r.status != 200) fail_msg("status %d: %s", r.status, r.body ? (char *)r.body : "");
    char *body = (char *)r.body;
    r.body = NULL;
    pd_resp_free(&r);
    return body;
}

/* Sum of a family's samples, apart from _Total; *total gets _Total's. */
static double family_sum(const char *text, const char *fam, double *total, int *series)
{
    double sum = 0;
    size_t n = strlen(fam);
    *series = 0;
    *total = -1;
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, fam, n) != 0 || l[n] != '{') continue;
        const char *sp = strchr(l, ' ');
        assert_non_null(sp);
        double v = strtod(sp + 1, NULL);
        (*series)++;
        if (strncmp(l + n, "{process=\"_Total\"", 17) == 0) *total = v;
        else sum += v;
    }
    return sum;
}

static void live_top_series_and_sums(void **state)
{
    (void)state;
    start_perfd("5", "cpu");
    char *body = scrape();
    pmt_promtool_clean(body, strlen(body));
    /* every Process family: at most 5 + Idle + _Other + _Total series */
    for (const char *l = body; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, "# TYPE perflib_process_", 23) != 0) continue;
        char fam[200];
        sscanf(l + 7, "%199s", fam);
        char sfx[220];
        snprintf(sfx, sizeof sfx, "%s%s", fam, strstr(l, " counter") ? "_total" : "");
        double total;
        int series;
        family_sum(body, sfx, &total, &series);
        if (series > 8) fail_msg("%s: %d series", sfx, series);
    }
    static const char *const additive[] = {"perflib_process_working_set_bytes", "perflib_process_private_bytes",
                                           "perflib_process_virtual_bytes", "perflib_process_threads",
                                           "perflib_process_handles", "perflib_process_page_file_bytes"};
    /* a family whose _Total is left out (a process's value unreadable) has
     * no _Other either when that process is in it: compared where there is
     * one, and the always readable ones must have it */
    int compared = 0;
    for (size_t i = 0; i < sizeof additive / sizeof additive[0]; i++) {
        double total;
        int series;
        double sum = family_sum(body, additive[i], &total, &series);
        if (total < 0) continue;
        if (sum != total) fail_msg("%s: the series add up to %.0f, _Total %.0f", additive[i], sum, total);
        compared++;
    }
    if (compared < 3) fail_msg("only %d families with a _Total to compare", compared);
    double others = pmt_must(body, "perflib_process_other_processes");
    assert_true(others >= 1);
    /* a sum of peaks, ids or states means nothing: no _Other there */
    assert_null(strstr(body, "perflib_process_working_set_peak_bytes{process=\"_Other\"}"));
    assert_null(strstr(body, "perflib_process_creating_process_id{process=\"_Other\"}"));
    free(body);
    assert_int_equal(pd_stop(&pd), 0);
}

static pid_t spawn_spinner(void)
{
    pid_t p = fork();
    assert_true(p >= 0);
    if (p == 0) {
        volatile unsigned long x = 0;
        for (;;) x++;
    }
    return p;
}

static pid_t spawn_holder(size_t bytes)
{
    pid_t p = fork();
    assert_true(p >= 0);
    if (p == 0) {
        char *m = malloc(bytes);
        if (!m) _exit(1);
        for (size_t i = 0; i < bytes; i += 4096) m[i] = 1;
        for (;;) pause();
    }
    return p;
}

static int has_pid(const char *text, const char *fam, pid_t pid)
{
    char key[80];
    snprintf(key, sizeof key, ",pid=\"%d\"}", (int)pid);
    size_t n = strlen(fam);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *e = strchr(l, '\n');
        if (strncmp(l, fam, n) == 0 && l[n] == '{') {
            const char *k = strstr(l, key);
            if (k && (!e || k < e)) return 1;
        }
    }
    return 0;
}

static void live_top_follows_cpu_and_memory(void **state)
{
    (void)state;
    kids[0] = spawn_spinner();
    start_perfd("3", "cpu");
    free(scrape());
    usleep(1500 * 1000);
    char *body = scrape();
    if (!has_pid(body, "perflib_process_processor_time_seconds_total", kids[0]))
        fail_msg("the spinning process %d is not among the top 3 by cpu:\n%.4000s", (int)kids[0], body);
    free(body);
    assert_int_equal(pd_stop(&pd), 0);
    kids[1] = spawn_holder((size_t)256 << 20);
    usleep(1500 * 1000);
    start_perfd("3", "memory");
    body = scrape();
    if (!has_pid(body, "perflib_process_working_set_bytes", kids[1]))
        fail_msg("the process %d holding 256 MiB is not among the top 3 by memory", (int)kids[1]);
    free(body);
    assert_int_equal(pd_stop(&pd), 0);
}

static void live_other_never_falls(void **state)
{
    (void)state;
    start_perfd("2", "Working Set");
    static const char *const fams[] = {"perflib_process_processor_time_seconds_total{process=\"_Other\"}",
                                       "perflib_process_page_faults_total{process=\"_Other\"}",
                                       "perflib_process_voluntary_context_switches_total{process=\"_Other\"}",
                                       "perflib_process_minor_page_faults_total{process=\"_Other\"}"};
    double last[4] = {0};
    for (int round = 0; round < 6; round++) {
        /* processes that come and go, some larger than the top two for a while */
        if (kids[2] > 0) {
            kill(kids[2], SIGKILL);
            waitpid(kids[2], NULL, 0);
        }
        kids[2] = round % 2 ? spawn_holder((size_t)(64 + 64 * round) << 20) : spawn_spinner();
        for (int k = 0; k < 5; k++) {
            pid_t p = fork();
            if (p == 0) _exit(0);
            if (p > 0) waitpid(p, NULL, 0);
        }
        usleep(300 * 1000);
        char *body = scrape();
        for (int f = 0; f < 4; f++) {
            double v = pmt_must(body, fams[f]);
            if (v < last[f]) fail_msg("round %d: %s fell from %.17g to %.17g", round, fams[f], last[f], v);
            last[f] = v;
        }
        free(body);
    }
    assert_true(last[0] > 0);
    assert_int_equal(pd_stop(&pd), 0);
}

static void live_top_refused(void **state)
{
    (void)state;
    static const char *const bad[][2] = {{"metrics_process_top=many", "metrics_process_top: \"many\""},
                                         {"metrics_process_top=10001", "metrics_process_top"},
                                         {"metrics_process_top_by=", "metrics_process_top_by"},
                                         {"metrics_process_top_by=99999999999", "metrics_process_top_by"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (int check = 0; check < 2; check++) {
            const char *args[] = {"--listen", "127.0.0.1:0", "--set", bad[i][0], check ? "--check-config" : NULL,
                                  NULL};
            char *err = NULL;
            int code = pd_run(args, &err, 10000);
            if (code == 0 || !err || !strstr(err, bad[i][1]))
                fail_msg("%s: exit %d: %s", bad[i][0], code, err ? err : "");
            free(err);
        }
    start_perfd("3", "No Such Counter");
    pd_resp r;
    assert_int_equal(pd_get(pd.port, "/metrics", "", &r, 20000), 0);
    assert_int_equal(r.status, 500);
    assert_non_null(strstr((char *)r.body, "metrics_process_top_by: no counter \"No Such Counter\""));
    pd_resp_free(&r);
    assert_int_equal(pd_stop(&pd), 0);
}

static int teardown(void **state)
{
    (void)state;
    if (pd.pid > 0) pd_stop(&pd);
    for (int i = 0; i < 4; i++)
        if (kids[i] > 0) {
            kill(kids[i], SIGKILL);
            waitpid(kids[i], NULL, 0);
            kids[i] = -1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(live_top_series_and_sums, teardown),
        cmocka_unit_test_teardown(live_top_follows_cpu_and_memory, teardown),
        cmocka_unit_test_teardown(live_other_never_falls, teardown),
        cmocka_unit_test_teardown(live_top_refused, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
