/* The interface route files use (tools/perfd/perfd.h), through perfd_testd:
 * perfd with tests/perfd/pd_testroutes.c compiled in. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pd_util.h"
#include "pl_test.h"
#include "pq_fixture.h"

static pq_fixture fx;
static pd_proc pd;

static int setup(void **state)
{
    (void)state;
    if (pq_fixture_make(&fx, PL_SOURCE_DIR "/tests/perfd/pdslow.ini", PD_SLOWPROV_SO) != 0) return -1;
    const char *args[] = {"--registry", fx.store, "--set", "snapshot_max_age_ms=0", "--set", "test_greeting=hi", NULL};
    const char *env[] = {"PD_SLOW_MS=200", NULL};
    return pd_start(&pd, args, env);
}

static int teardown(void **state)
{
    (void)state;
    int rc = pd.pid > 0 ? pd_stop(&pd) : 0;
    pq_fixture_done(&fx);
    return rc == 0 ? 0 : -1;
}

static char *get(const char *path, int want)
{
    pd_resp r;
    assert_int_equal(pd_get(pd.port, path, "", &r, 10000), 0);
    if (r.status != want) fprintf(stderr, "%s -> %d %s\n", path, r.status, r.body ? (char *)r.body : "");
    assert_int_equal(r.status, want);
    char *body = strdup(r.body ? (char *)r.body : "");
    pd_resp_free(&r);
    return body;
}

static void publish_hook_request_and_peek(void **state)
{
    (void)state;
    char *b = get("/test/published", 200);
    assert_string_equal(b, "published=0 greeting=hi\n"); /* the config key reached the route file */
    free(b);
    b = get("/test/peek?q=Global", 404);
    free(b);
    b = get("/test/request?q=Global", 202); /* answers at once, collects behind */
    assert_string_equal(b, "queued\n");
    free(b);
    /* The hook sees the publication within a few collections' time. */
    int seen = 0;
    for (int i = 0; i < 100 && !seen; i++) { /* at most 5 s */
        b = get("/test/published", 200);
        seen = strcmp(b, "published=1 greeting=hi\n") == 0;
        free(b);
        if (!seen) {
            struct timespec ts = {0, 50000000};
            nanosleep(&ts, NULL);
        }
    }
    assert_true(seen);
    b = get("/test/peek?q=Global", 200);
    assert_non_null(strstr(b, "seq=1 len="));
    free(b);
}

static void handler_state_across_wait(void **state)
{
    (void)state;
    char *b = get("/test/calls/deeper/path", 200);
    assert_string_equal(b, "calls=2 path=/test/calls/deeper/path\n");
    free(b);
    b = get("/test/calls", 404); /* the prefix is "/test/calls/" */
    free(b);
}

static void bad_config_key(void **state)
{
    (void)state;
    char *err = NULL;
    const char *args[] = {"--set", "test_greeting=0123456789012345678901234567890123456789012345678901234567890123456789",
                          "--check-config", NULL};
    assert_int_equal(pd_run(args, &err, 5000), 2);
    assert_non_null(strstr(err, "test_greeting: too long"));
    free(err);
}

/* A request sent now on its own connection, read later. */
static int send_get(const char *path)
{
    int fd = pd_connect("127.0.0.1", pd.port, NULL);
    assert_true(fd >= 0);
    char req[300];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", path);
    assert_int_equal(write(fd, req, (size_t)n), n);
    return fd;
}

/* perfd_defer: a job runs on the worker thread while the server thread
 * answers others; /metrics and /v1/json are rendered there too (they wait
 * for the job before them), never on the server thread. */
static void worker_off_the_server_thread(void **state)
{
    (void)state;
    char *b = get("/metrics", 200); /* a first collection, so that the next ones are quick */
    free(b);
    long t0 = pd_now_ms();
    int busy = send_get("/test/busy?ms=1500");
    struct timespec ts = {0, 100000000};
    nanosleep(&ts, NULL); /* the job is on the worker */
    long t1 = pd_now_ms();
    b = get("/healthz", 200);
    free(b);
    long healthz_ms = pd_now_ms() - t1;
    int metrics = send_get("/metrics"), json = send_get("/v1/json");
    pd_resp rm, rj, rb;
    assert_int_equal(pd_read_resp(metrics, &rm, 10000), 0);
    long metrics_ms = pd_now_ms() - t0;
    assert_int_equal(pd_read_resp(json, &rj, 10000), 0);
    long json_ms = pd_now_ms() - t0;
    assert_int_equal(pd_read_resp(busy, &rb, 10000), 0);
    close(busy);
    close(metrics);
    close(json);
    print_message("healthz %ld ms during the job; /metrics after %ld ms, /v1/json after %ld ms\n", healthz_ms, metrics_ms,
                  json_ms);
    assert_int_equal(rb.status, 200);
    assert_string_equal((char *)rb.body, "busy=1500\n");
    assert_int_equal(rm.status, 200);
    assert_int_equal(rj.status, 200);
    assert_true(healthz_ms < 1000);   /* the server thread was free */
    assert_true(metrics_ms >= 1400);  /* rendered after the job: on the worker */
    assert_true(json_ms >= 1400);
    pd_resp_free(&rm);
    pd_resp_free(&rj);
    pd_resp_free(&rb);
}

/* A second after the worker's last job, the snapshots too old to serve
 * again are dropped (perfd_snapshot_trim): not held until the next scrape. */
static void stale_snapshots_dropped_after_work(void **state)
{
    (void)state;
    char *b = get("/metrics", 200); /* a Global collection, rendered on the worker */
    free(b);
    b = get("/test/peek?q=Global", 200); /* kept for now */
    free(b);
    struct timespec ts = {1, 600000000};
    nanosleep(&ts, NULL);
    b = get("/test/peek?q=Global", 404); /* snapshot_max_age_ms=0: dropped */
    free(b);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(publish_hook_request_and_peek, setup, teardown),
        cmocka_unit_test_setup_teardown(handler_state_across_wait, setup, teardown),
        cmocka_unit_test_setup_teardown(worker_off_the_server_thread, setup, teardown),
        cmocka_unit_test_setup_teardown(stale_snapshots_dropped_after_work, setup, teardown),
        cmocka_unit_test(bad_config_key),
    };
    return pl_test_run(tests, argc, argv);
}
