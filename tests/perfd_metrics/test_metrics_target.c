/* perfd's /metrics?target=HOST[:PORT]: another machine's counters through
 * the engine's Foreign query (docs/perfd.md, "Many targets"). Two real
 * perfd processes on 127.0.0.1: one stands for the remote machine
 * (--system-name REMOTEB), the other is the hub whose remote_config lists
 * it; listeners of the test stand for machines that are not listed or that
 * never answer.
 *   - a listed target serves the remote's object families (every one the
 *     remote's own /metrics has), its system name in perflib_system_info,
 *     promtool clean; with collect[]=Memory only Memory's;
 *   - an unlisted target is 403 at once and nothing connects to it; a
 *     malformed one is 400;
 *   - a listed machine that is down is 502 fast; one that never answers
 *     does not delay the hub's own /metrics meanwhile. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd_util.h"
#include "pl_test.h"
#include "pm_test.h"
#include "pq_run.h"

static pd_proc hub, remote;
static char *tmp;

static int teardown(void **state)
{
    (void)state;
    if (hub.pid > 0) pd_stop(&hub);
    if (remote.pid > 0) pd_stop(&remote);
    if (tmp) {
        pq_rmdir(tmp);
        free(tmp);
        tmp = NULL;
    }
    return 0;
}

static void start(pd_proc *p, const char *name, const char *remote_conf)
{
    if (!tmp) tmp = pq_mkdtemp();
    assert_non_null(tmp);
    char store[700], set[800];
    snprintf(store, sizeof store, "%s/%s.db", tmp, name);
    const char *args[12] = {"--registry", store, "--system-name", name, "--set", "snapshot_max_age_ms=0"};
    size_t n = 6;
    if (remote_conf) {
        snprintf(set, sizeof set, "remote_config=%s", remote_conf);
        args[n++] = "--set";
        args[n++] = set;
    }
    args[n] = NULL;
    memset(p, 0, sizeof *p);
    assert_int_equal(pd_start(p, args, NULL), 0);
}

/* remote_config listing the given ports of 127.0.0.1 (plain HTTP on
 * loopback, said explicitly), in the test's directory. */
static const char *conf_for(const unsigned *ports, size_t n, unsigned timeout_ms)
{
    static char path[700];
    if (!tmp) tmp = pq_mkdtemp();
    assert_non_null(tmp);
    snprintf(path, sizeof path, "%s/remote.conf", tmp);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "timeout_ms = %u\n", timeout_ms);
    for (size_t i = 0; i < n; i++) fprintf(f, "[127.0.0.1:%u]\ntls = off\n", ports[i]);
    fclose(f);
    chmod(path, 0600);
    return path;
}

/* A listener standing for another machine (pd_listener). */
static int listener(unsigned *port)
{
    int fd = pd_listener(port);
    assert_true(fd >= 0);
    return fd;
}

static char *scrape(unsigned port, const char *path)
{
    pd_resp r;
    assert_int_equal(pd_get(port, path, "", &r, 20000), 0);
    if (r.status != 200) fail_msg("%s: status %d: %s", path, r.status, r.body ? (char *)r.body : "");
    char *body = (char *)r.body;
    r.body = NULL;
    pd_resp_free(&r);
    return body;
}

/* Every "# TYPE name" of an object family (not perfd's own perflib_build,
 * _system, _provider, _object, _scrape) in a must be in b. Returns how
 * many there were. */
static size_t families_in(const char *a, const char *b)
{
    static const char *const own[] = {"perflib_build", "perflib_system", "perflib_provider_", "perflib_object_up",
                                      "perflib_scrape_"};
    size_t n = 0;
    for (const char *l = strstr(a, "# TYPE "); l; l = strstr(l + 1, "\n# TYPE ")) {
        if (*l == '\n') l++;
        const char *name = l + 7, *e = strchr(name, ' ');
        if (!e) break;
        int mine = 0;
        for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
            if (strncmp(name, own[i], strlen(own[i])) == 0) mine = 1;
        if (mine) continue;
        char needle[300];
        snprintf(needle, sizeof needle, "# TYPE %.*s ", (int)(e - name > 250 ? 250 : e - name), name);
        if (!strstr(b, needle)) fail_msg("%s is in the remote's own /metrics, not in target=", needle + 7);
        n++;
    }
    return n;
}

static void listed_target_serves_the_remote(void **state)
{
    (void)state;
    start(&remote, "REMOTEB", NULL);
    start(&hub, "HUB", conf_for(&remote.port, 1, 5000));
    char path[300], want[300];
    snprintf(path, sizeof path, "/metrics?target=127.0.0.1:%u", remote.port);
    char *t = scrape(hub.port, path);
    char *own = scrape(remote.port, "/metrics");
    size_t n = families_in(own, t);
    if (n < 20) fail_msg("only %zu object families in the remote's /metrics", n);
    snprintf(want, sizeof want, "perflib_system_info{system_name=\"REMOTEB\",target=\"127.0.0.1:%u\"} 1\n",
             remote.port);
    if (!strstr(t, want)) fail_msg("no %s in\n%.3000s", want, t);
    assert_null(strstr(t, "system_name=\"HUB\""));
    assert_null(strstr(t, "perflib_provider_up{")); /* the hub's providers are not the remote's */
    pmt_promtool_clean(t, strlen(t));
    free(t);
    free(own);
    /* as Prometheus writes it (params: collect[]), with the target */
    snprintf(path, sizeof path, "/metrics?collect%%5B%%5D=Memory&target=127.0.0.1:%u", remote.port);
    t = scrape(hub.port, path);
    assert_non_null(strstr(t, "# TYPE perflib_memory_available_bytes gauge\n"));
    assert_null(strstr(t, "perflib_processor_"));
    assert_null(strstr(t, "perflib_process_"));
    assert_non_null(strstr(t, "system_name=\"REMOTEB\""));
    pmt_promtool_clean(t, strlen(t));
    free(t);
    /* without target=, the hub's own */
    t = scrape(hub.port, "/metrics?collect[]=Memory");
    assert_non_null(strstr(t, "system_name=\"HUB\""));
    assert_null(strstr(t, "REMOTEB"));
    free(t);
    assert_int_equal(pd_stop(&hub), 0);
    assert_int_equal(pd_stop(&remote), 0);
}

static void unlisted_target_is_refused(void **state)
{
    (void)state;
    unsigned lport = 0, other = 0;
    int lfd = listener(&lport);
    int ofd = listener(&other);
    start(&hub, "HUB", conf_for(&other, 1, 5000));
    char t1[64], t2[64];
    snprintf(t1, sizeof t1, "127.0.0.1:%u", lport);
    snprintf(t2, sizeof t2, "%%5C%%5C127.0.0.1:%u", lport);
    const char *targets[] = {t1, t2, "localhost", "192.0.2.1:9100"};
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        char path[300];
        snprintf(path, sizeof path, "/metrics?target=%s", targets[i]);
        pd_resp r;
        long t0 = pd_now_ms();
        assert_int_equal(pd_get(hub.port, path, "", &r, 5000), 0);
        long took = pd_now_ms() - t0;
        if (r.status != 403 || took > 100)
            fail_msg("%s: %d in %ld ms: %s", path, r.status, took, r.body ? (char *)r.body : "");
        char ct[100];
        assert_int_equal(pd_header(&r, "Content-Type", ct, sizeof ct), 0);
        assert_non_null(strstr(ct, "text/plain"));
        assert_non_null(strstr((char *)r.body, "not one of perfd's remote machines"));
        pd_resp_free(&r);
    }
    /* not a machine name: 400 */
    const char *bad[] = {"/metrics?target=", "/metrics?target=a%20b", "/metrics?target=127.0.0.1:99999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pd_resp r;
        assert_int_equal(pd_get(hub.port, bad[i], "", &r, 5000), 0);
        if (r.status != 400) fail_msg("%s: %d %s", bad[i], r.status, r.body ? (char *)r.body : "");
        pd_resp_free(&r);
    }
    /* nothing knocked at the unlisted machine's door */
    struct pollfd pf = {lfd, POLLIN, 0};
    assert_int_equal(poll(&pf, 1, 300), 0);
    close(lfd);
    close(ofd);
    assert_int_equal(pd_stop(&hub), 0);
}

static void down_target_answers_fast(void **state)
{
    (void)state;
    unsigned down = 0, hole = 0;
    int dfd = listener(&down);
    close(dfd); /* nothing listens there now: connection refused */
    int hfd = listener(&hole); /* accepts in the backlog, never answers */
    unsigned ports[] = {down, hole};
    start(&hub, "HUB", conf_for(ports, 2, 3000));
    char path[300];
    snprintf(path, sizeof path, "/metrics?target=127.0.0.1:%u", down);
    pd_resp r;
    long t0 = pd_now_ms();
    assert_int_equal(pd_get(hub.port, path, "", &r, 10000), 0);
    long took = pd_now_ms() - t0;
    if ((r.status != 502 && r.status != 503) || took > 1000)
        fail_msg("%s: %d in %ld ms: %s", path, r.status, took, r.body ? (char *)r.body : "");
    char ct[100];
    assert_int_equal(pd_header(&r, "Content-Type", ct, sizeof ct), 0);
    assert_non_null(strstr(ct, "text/plain"));
    assert_true(r.body_len > 1);
    pd_resp_free(&r);
    /* a scrape of the machine that never answers is under way ... */
    int fd = pd_connect("127.0.0.1", hub.port, NULL);
    assert_true(fd >= 0);
    char req[300];
    int len = snprintf(req, sizeof req,
                       "GET /metrics?target=127.0.0.1:%u HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nConnection: close\r\n\r\n",
                       hole, hub.port);
    assert_int_equal(write(fd, req, (size_t)len), len);
    struct pollfd pf = {hfd, POLLIN, 0}; /* the hub's connection waits in the hole's backlog */
    if (poll(&pf, 1, 5000) != 1) fail_msg("the hub did not connect to the hung target within 5 s");
    /* ... and the hub's own /metrics is not delayed by it */
    for (int i = 0; i < 3; i++) {
        t0 = pd_now_ms();
        char *body = scrape(hub.port, "/metrics");
        took = pd_now_ms() - t0;
        if (took > 1000) fail_msg("local /metrics took %ld ms while a target hangs", took);
        assert_non_null(strstr(body, "system_name=\"HUB\""));
        free(body);
    }
    /* the hung target ends as a 502 within its timeout_ms (3 s) and slack */
    t0 = pd_now_ms();
    assert_int_equal(pd_read_resp(fd, &r, 10000), 0);
    took = pd_now_ms() - t0;
    close(fd);
    if ((r.status != 502 && r.status != 504) || took > 6000)
        fail_msg("hung target: %d after %ld more ms: %s", r.status, took, r.body ? (char *)r.body : "");
    pd_resp_free(&r);
    close(hfd);
    assert_int_equal(pd_stop(&hub), 0);
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(listed_target_serves_the_remote, teardown),
        cmocka_unit_test_teardown(unlisted_target_is_refused, teardown),
        cmocka_unit_test_teardown(down_target_answers_fast, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
