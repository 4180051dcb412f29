/* perfd end to end: the real binary on 127.0.0.1 (ephemeral port) over a
 * deterministic store whose only provider is pq_testprov.so; /v1/query
 * must return exactly the bytes the local engine returns for the same
 * query (the header's clock fields aside: two collections are two
 * moments), the errors their statuses, the refusals their reasons. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pd_util.h"
#include "perflib/query.h"
#include "perflib/winperf.h"
#include "pl_test.h"
#include "pq_fixture.h"
#include "pq_run.h"

static pq_fixture fx;
static pd_proc pd;

static int setup(void **state)
{
    (void)state;
    if (pq_fixture_make(&fx, PL_SOURCE_DIR "/tests/perfquery/pqtest.ini", PQ_TESTPROV_SO) != 0) return -1;
    /* One snapshot per query for the whole case: /v1/query and /v1/json
     * answers can be compared. */
    const char *args[] = {"--registry", fx.store, "--system-name", "TESTBOX", "--set", "snapshot_max_age_ms=600000",
                          "--set", "log_interval=1", NULL};
    return pd_start(&pd, args, NULL);
}

static int teardown(void **state)
{
    (void)state;
    int rc = pd_stop(&pd);
    pq_fixture_done(&fx);
    return rc == 0 ? 0 : -1;
}

/* The local engine's answer for q. */
static void *local_query(const char *q, size_t *len, uint32_t *type)
{
    pl_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.store_path = fx.store;
    cfg.system_name = "TESTBOX";
    pl_engine *e = NULL;
    pl_error err = {0};
    assert_int_equal(pl_engine_open(&cfg, &e, &err), PL_OK);
    void *buf = NULL;
    assert_int_equal(pl_engine_query_alloc(e, q, &buf, len, type, &err), PL_OK);
    pl_engine_close(e);
    return buf;
}

/* The header fields that say when the block was taken. */
static void mask_clock(unsigned char *b, size_t len)
{
    if (len < sizeof(PERF_DATA_BLOCK)) return;
    memset(b + offsetof(PERF_DATA_BLOCK, SystemTime), 0, sizeof(SYSTEMTIME));
    memset(b + offsetof(PERF_DATA_BLOCK, PerfTime), 0, 8);
    memset(b + offsetof(PERF_DATA_BLOCK, PerfTime100nSec), 0, 8);
}

static void same_bytes(const char *q, const char *url, int data)
{
    pd_resp r;
    assert_int_equal(pd_get(pd.port, url, "", &r, 10000), 0);
    if (r.status != 200) {
        char *log = pd_log(&pd);
        fprintf(stderr, "%s -> %d %s\nperfd log:\n%s\n", url, r.status, r.body ? (char *)r.body : "", log);
        free(log);
    }
    assert_int_equal(r.status, 200);
    char ct[128], ty[64];
    assert_int_equal(pd_header(&r, "Content-Type", ct, sizeof ct), 0);
    assert_string_equal(ct, "application/octet-stream");
    size_t len = 0;
    uint32_t type = 0;
    unsigned char *local = local_query(q, &len, &type);
    assert_int_equal(pd_header(&r, "X-Perflib-Type", ty, sizeof ty), 0);
    assert_string_equal(ty, type == PL_REG_MULTI_SZ ? "REG_MULTI_SZ" : "REG_BINARY");
    assert_int_equal(type, data ? PL_REG_BINARY : PL_REG_MULTI_SZ);
    assert_int_equal(r.body_len, len);
    if (data) {
        mask_clock(r.body, r.body_len);
        mask_clock(local, len);
    }
    assert_memory_equal(r.body, local, len);
    pl_free(local);
    pd_resp_free(&r);
}

static void query_global(void **state)
{
    (void)state;
    same_bytes("Global", "/v1/query?q=Global", 1);
    same_bytes("Global", "/v1/query", 1); /* no q: Global, as the engine's NULL */
}

static void query_items(void **state)
{
    (void)state;
    same_bytes("3012 238", "/v1/query?q=3012%20238", 1);
    same_bytes("230 232", "/v1/query?q=230+232", 1);
}

static void query_costly_and_unknown(void **state)
{
    (void)state;
    same_bytes("Costly", "/v1/query?q=Costly", 1);
    same_bytes("ABCD", "/v1/query?q=ABCD", 1);
}

static void query_titles(void **state)
{
    (void)state;
    same_bytes("Counter 009", "/v1/query?q=Counter%20009", 0);
    same_bytes("Explain 009", "/v1/query?q=Explain%20009", 0);
}

/* /v1/json is perfquery's --json dump of the same snapshot, plus the
 * schema line. */
static void json_is_perfquery_json(void **state)
{
    (void)state;
    const char *queries[] = {"Global", "3012%20238", "ABCD"};
    for (int k = 0; k < 3; k++) {
        char url[128], sq[64], sj[64], ct[64];
        pd_resp raw, js;
        snprintf(url, sizeof url, "/v1/query?q=%s", queries[k]);
        assert_int_equal(pd_get(pd.port, url, "", &raw, 10000), 0);
        snprintf(url, sizeof url, "/v1/json?q=%s", queries[k]);
        assert_int_equal(pd_get(pd.port, url, "", &js, 10000), 0);
        assert_int_equal(raw.status, 200);
        assert_int_equal(js.status, 200);
        assert_int_equal(pd_header(&js, "Content-Type", ct, sizeof ct), 0);
        assert_string_equal(ct, "application/json");
        assert_int_equal(pd_header(&raw, "X-Perflib-Snapshot", sq, sizeof sq), 0);
        assert_int_equal(pd_header(&js, "X-Perflib-Snapshot", sj, sizeof sj), 0);
        assert_string_equal(sq, sj);
        char file[4400];
        snprintf(file, sizeof file, "%s/snap.blk", pd.dir);
        assert_int_equal(pq_write_file(file, raw.body, raw.body_len), 0);
        const char *argv[] = {PERFQUERY_BIN, "--registry", fx.store, "--json", "--read", file, NULL};
        const char *env[] = {"PERFLIB_FIXED_TIME=", NULL};
        pq_result r;
        assert_int_equal(pq_run(argv, env, &r), 0);
        assert_int_equal(r.exit_code, 0);
        static const char schema[] = "  \"schema\": \"perflib-snapshot/1\",\n";
        const char *body = (const char *)js.body;
        assert_memory_equal(body, "{\n", 2);
        assert_memory_equal(body + 2, schema, sizeof schema - 1);
        size_t rest = js.body_len - 2 - (sizeof schema - 1);
        assert_int_equal(rest + 2, r.out_len);
        assert_memory_equal(body + 2 + sizeof schema - 1, r.out + 2, rest);
        pq_result_free(&r);
        pd_resp_free(&raw);
        pd_resp_free(&js);
    }
    /* Titles as entries. */
    pd_resp t;
    assert_int_equal(pd_get(pd.port, "/v1/json?q=Counter%20009", "", &t, 10000), 0);
    assert_int_equal(t.status, 200);
    assert_non_null(strstr((char *)t.body, "\"schema\": \"perflib-titles/1\""));
    assert_non_null(strstr((char *)t.body, "{\"index\": 238, \"text\": \"Processor\"}"));
    pd_resp_free(&t);
}

static void healthz(void **state)
{
    (void)state;
    pd_resp r;
    assert_int_equal(pd_get(pd.port, "/healthz", "", &r, 5000), 0);
    assert_int_equal(r.status, 200);
    assert_string_equal((char *)r.body, "ok\n");
    pd_resp_free(&r);
}

/* perfd opens its remote client at start (to keep its engine to the
 * listed machines) but loads libcurl, with the ~27 libraries it brings
 * (~5 MB resident here), only when it first asks another machine, and
 * libsnappy (C++: libstdc++, ~0.9 MB) only when remote_write starts: with
 * neither configured, serving every route maps none of them. */
static void no_libcurl_without_remote_machines(void **state)
{
    (void)state;
    const char *paths[] = {"/metrics", "/v1/query?q=Global", "/v1/json?q=Global", "/healthz"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        pd_resp r;
        assert_int_equal(pd_get(pd.port, paths[i], "", &r, 10000), 0);
        assert_int_equal(r.status, 200);
        pd_resp_free(&r);
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pd.pid);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[600];
    int any = 0;
    const char *lib = NULL;
    while (fgets(line, sizeof line, f)) {
        any = 1;
        if (strstr(line, "libcurl")) lib = "libcurl";
        else if (strstr(line, "libsnappy")) lib = "libsnappy";
        else if (strstr(line, "libstdc++")) lib = "libstdc++";
    }
    fclose(f);
    assert_true(any);
    if (lib) fail_msg("perfd without remote machines or remote_write mapped %s", lib);
}

static void expect_status(const char *req, int status, const char *body_part)
{
    pd_resp r;
    assert_int_equal(pd_raw(pd.port, req, strlen(req), &r, 5000), 0);
    if (r.status != status) fprintf(stderr, "%s-> %d %s\n", req, r.status, r.body ? (char *)r.body : "");
    assert_int_equal(r.status, status);
    if (body_part) assert_non_null(strstr((char *)r.body, body_part));
    pd_resp_free(&r);
}

static void bad_requests(void **state)
{
    (void)state;
    expect_status("GET /nope HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", 404, "no such path");
    expect_status("GET /x%0Aforged%20line HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", 404, NULL);
    expect_status("POST /v1/query HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", 405,
                  "method not allowed");
    expect_status("DELETE /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", 405, NULL);
    expect_status("GET /v1/query?q=a%01b HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", 400, "control character");
    char big[3000];
    int n = snprintf(big, sizeof big, "GET /v1/query?q=");
    memset(big + n, 'A', 1100);
    snprintf(big + n + 1100, sizeof big - (size_t)n - 1100, " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    expect_status(big, 414, "query too long");
    /* Not HTTP at all: libmicrohttpd answers 400 (or closes). */
    pd_resp r;
    pd_raw(pd.port, "HELLO\r\n\r\n", 9, &r, 5000);
    assert_true(r.status == 400 || r.status == -1);
    pd_resp_free(&r);
    /* HEAD is GET without the body. */
    assert_int_equal(pd_raw(pd.port, "HEAD /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", 62, &r, 5000), 0);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.body_len, 0);
    pd_resp_free(&r);
    /* Every refusal left one line in the log: the first of its kind at
     * once, the others in the summary at the end of log_interval (1 s). */
    struct timespec ts = {1, 500000000};
    nanosleep(&ts, NULL);
    char *log = pd_log(&pd);
    assert_non_null(strstr(log, "404 127.0.0.1 GET /nope: no such path"));
    assert_non_null(strstr(log, "405 127.0.0.1 POST /v1/query"));
    assert_non_null(strstr(log, "414 127.0.0.1 GET /v1/query: query too long"));
    /* A path with an encoded newline stays on its one log line. */
    assert_null(strstr(log, "\nforged"));
    assert_non_null(strstr(log, "404 127.0.0.1 GET /x?forged line: no such path"));
    free(log);
}

/* Not loopback without TLS and authentication: exit 2 at once, saying why. */
static void refuses_public_address(void **state)
{
    (void)state;
    char *err = NULL;
    const char *args[] = {"--listen", "0.0.0.0:0", NULL};
    long t0 = pd_now_ms();
    int code = pd_run(args, &err, 5000);
    assert_int_equal(code, 2);
    assert_true(pd_now_ms() - t0 < 3000);
    assert_non_null(strstr(err, "refusing to listen on 0.0.0.0:0"));
    assert_non_null(strstr(err, "needs TLS"));
    free(err);
    const char *args6[] = {"--listen", "[::]:0", NULL};
    code = pd_run(args6, &err, 5000);
    assert_int_equal(code, 2);
    assert_non_null(strstr(err, "refusing to listen on [::]:0"));
    free(err);
    /* A token alone is not enough: TLS is missing. */
    const char *args_tok[] = {"--listen", "10.1.2.3:0", "--token-file", "/nonexistent", NULL};
    code = pd_run(args_tok, &err, 5000);
    assert_int_equal(code, 2);
    assert_non_null(strstr(err, "missing: TLS"));
    free(err);
}

static void usage_errors(void **state)
{
    (void)state;
    char *err = NULL;
    const char *a1[] = {"--frobnicate", NULL};
    assert_int_equal(pd_run(a1, &err, 5000), 1);
    assert_non_null(strstr(err, "unknown option --frobnicate"));
    free(err);
    const char *a2[] = {"--listen", "localhost:80", NULL};
    assert_int_equal(pd_run(a2, &err, 5000), 2);
    assert_non_null(strstr(err, "not a numeric"));
    free(err);
    const char *a3[] = {"--listen", "127.0.0.1:70000", NULL};
    assert_int_equal(pd_run(a3, &err, 5000), 2);
    free(err);
}

/* A client that leaves an event stream is how every stream ends: perfd's
 * log says nothing about it (it used to log libmicrohttpd's "Failed to
 * send the chunked response body" for each one). */
static void stream_client_leaving_not_logged(void **state)
{
    (void)state;
    for (int round = 0; round < 3; round++) {
        int fd = pd_connect("127.0.0.1", pd.port, NULL);
        assert_true(fd >= 0);
        const char req[] = "GET /v1/stream?i=100&c=%5CPQ%20Machine%5CTicks HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
        assert_int_equal(write(fd, req, sizeof req - 1), (ssize_t)(sizeof req - 1));
        /* Read until two events came (the meta and a sample), at most 5 s. */
        char buf[4096];
        size_t got = 0;
        int events = 0;
        long t0 = pd_now_ms();
        while (events < 2 && pd_now_ms() - t0 < 5000) {
            struct pollfd pfd = {.fd = fd, .events = POLLIN};
            if (poll(&pfd, 1, 200) <= 0) continue;
            ssize_t n = read(fd, buf + got, sizeof buf - 1 - got);
            assert_true(n > 0);
            got += (size_t)n;
            buf[got] = 0;
            events = 0;
            for (const char *p = buf; (p = strstr(p, "\nevent: ")) != NULL; p++) events++;
            if (got > sizeof buf / 2) {
                memmove(buf, buf + got / 2, got - got / 2);
                got -= got / 2;
            }
        }
        assert_true(events >= 2);
        close(fd);
    }
    /* At i=100 perfd writes to each closed stream within 0.1 s. */
    usleep(1500 * 1000);
    char *log = pd_log(&pd);
    assert_non_null(log);
    if (strstr(log, "Failed to send")) fail_msg("perfd logged a client leaving a stream:\n%s", log);
    free(log);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(query_global, setup, teardown),
        cmocka_unit_test_setup_teardown(query_items, setup, teardown),
        cmocka_unit_test_setup_teardown(query_costly_and_unknown, setup, teardown),
        cmocka_unit_test_setup_teardown(query_titles, setup, teardown),
        cmocka_unit_test_setup_teardown(healthz, setup, teardown),
        cmocka_unit_test_setup_teardown(no_libcurl_without_remote_machines, setup, teardown),
        cmocka_unit_test_setup_teardown(json_is_perfquery_json, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_requests, setup, teardown),
        cmocka_unit_test_setup_teardown(stream_client_leaving_not_logged, setup, teardown),
        cmocka_unit_test(refuses_public_address),
        cmocka_unit_test(usage_errors),
    };
    return pl_test_run(tests, argc, argv);
}
