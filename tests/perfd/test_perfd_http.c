/* perfd's HTTP strictness and its Host/Origin checks (issue 23, findings
 * 3, 4 and 7), on perfd_testd (perfd plus tests/perfd/pd_testroutes.c,
 * which adds POST /test/echo, a route that takes a body). Every refusal
 * must be text/plain with its reason and one log line. */
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
#include "pq_fixture.h"
#include "pq_run.h"

static pq_fixture fx;
static pd_proc pd;

static void start(const char *const *extra)
{
    assert_int_equal(pq_fixture_make(&fx, PL_SOURCE_DIR "/tests/perfd/pdslow.ini", PD_SLOWPROV_SO), 0);
    const char *args[32] = {"--registry", fx.store, "--system-name", "TESTBOX"};
    size_t n = 4;
    for (size_t i = 0; extra && extra[i] && n < 30; i++) args[n++] = extra[i];
    args[n] = NULL;
    const char *env[] = {"PD_SLOW_MS=0", "PD_INSTANCES=1", NULL};
    assert_int_equal(pd_start(&pd, args, env), 0);
}

static int teardown(void **state)
{
    (void)state;
    if (pd.pid > 0) pd_stop(&pd);
    if (fx.dir) pq_fixture_done(&fx);
    return 0;
}

static void stop(void)
{
    int rc = pd_stop(&pd);
    pq_fixture_done(&fx);
    assert_int_equal(rc, 0);
}

/* Send req (len bytes) and expect status; the answer must be text/plain
 * and hold `reason` (when not NULL); perfd's log must then hold `line`. */
static void expect(const char *req, size_t len, int status, const char *reason, const char *line)
{
    pd_resp r;
    if (pd_raw(pd.port, req, len, &r, 5000) != 0) fail_msg("no answer to %.60s", req);
    char ct[128] = "";
    pd_header(&r, "Content-Type", ct, sizeof ct);
    if (r.status != status || (status >= 400 && strncmp(ct, "text/plain", 10) != 0) ||
        (reason && !strstr((char *)r.body, reason)))
        fail_msg("%.60s...: %d (%s) \"%s\", expected %d \"%s\"", req, r.status, ct, r.body ? (char *)r.body : "",
                 status, reason ? reason : "");
    assert_null(strstr((char *)r.body, "<html"));
    pd_resp_free(&r);
    if (line) {
        char *log = pd_log(&pd);
        if (!strstr(log, line)) fail_msg("no \"%s\" in the log:\n%s", line, log);
        free(log);
    }
}

#define EXPECT(req, status, reason, line) expect(req, strlen(req), status, reason, line)

/* Finding 3: DNS rebinding and other sites' pages. */
static void host_and_origin(void **state)
{
    (void)state;
    const char *extra[] = {"--set", "host_names=perfd.example, mon.example", NULL};
    start(extra);
    char req[512];
    /* names of this perfd, any port */
    const char *good[] = {"localhost", "LOCALHOST:9730", "127.0.0.1", "127.0.0.1:1", "[::1]:9730", "perfd.example",
                          "mon.example:80"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        snprintf(req, sizeof req, "GET /v1/query?q=238 HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", good[i]);
        EXPECT(req, 200, NULL, NULL);
    }
    /* any other name, on every route, /healthz too */
    EXPECT("GET /v1/query?q=238 HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n", 421,
           "not a name of this perfd", "421 127.0.0.1 GET /v1/query: Host \"evil.example\" is not a name");
    EXPECT("GET /healthz HTTP/1.1\r\nHost: evil.example:9730\r\nConnection: close\r\n\r\n", 421, NULL, NULL);
    EXPECT("GET /v1/query HTTP/1.1\r\nHost: 10.0.0.1\r\nConnection: close\r\n\r\n", 421, NULL, NULL);
    EXPECT("GET /v1/query HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n", 400, NULL, NULL);
    /* HTTP/1.0 without Host is not a browser */
    EXPECT("GET /healthz HTTP/1.0\r\n\r\n", 200, NULL, NULL);
    /* a browser request from another origin or site */
    snprintf(req, sizeof req,
             "GET /v1/query?q=238 HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nOrigin: http://evil.example\r\nConnection: "
             "close\r\n\r\n",
             pd.port);
    EXPECT(req, 403, "another origin", "403 127.0.0.1 GET /v1/query: a browser request from another origin");
    snprintf(req, sizeof req,
             "GET /v1/query HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nOrigin: null\r\nConnection: close\r\n\r\n", pd.port);
    EXPECT(req, 403, "another origin", NULL);
    snprintf(req, sizeof req,
             "GET /v1/query HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nSec-Fetch-Site: cross-site\r\nConnection: close\r\n\r\n",
             pd.port);
    EXPECT(req, 403, "another site", NULL);
    /* the page's own requests */
    snprintf(req, sizeof req,
             "GET /v1/query HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nOrigin: http://127.0.0.1:%u\r\nSec-Fetch-Site: "
             "same-origin\r\nConnection: close\r\n\r\n",
             pd.port, pd.port);
    EXPECT(req, 200, NULL, NULL);
    stop();
}

/* Finding 4: one deadline, bodies, framing, 100 Continue, arguments. */
static void request_strictness(void **state)
{
    (void)state;
    const char *extra[] = {"--set", "request_timeout=2", "--set", "max_body_bytes=100", NULL};
    start(extra);
    /* the interface checks rely on: a loopback listener with no host_names
     * refuses another name (DNS rebinding) */
    EXPECT("GET /v1/query?q=238 HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n", 421,
           "not a name of this perfd", NULL);
    EXPECT("GET /metrics HTTP/1.1\r\nHost: evil.example:9730\r\nConnection: close\r\n\r\n", 421, NULL, NULL);
    /* a body where no endpoint takes one: 413 on the headers, and no
     * "100 Continue" first even for 100 MB */
    EXPECT("GET /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000000\r\nExpect: 100-continue\r\n\r\n", 413,
           "takes no request body", "413 127.0.0.1 GET /healthz: this endpoint takes no request body");
    {
        pd_resp r;
        const char *q = "GET /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000000\r\nExpect: "
                        "100-continue\r\n\r\n";
        assert_int_equal(pd_raw(pd.port, q, strlen(q), &r, 5000), 0);
        assert_null(strstr(r.headers, "100 Continue"));
        assert_int_equal(r.status, 413);
        pd_resp_free(&r);
    }
    EXPECT("GET /v1/query HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
           413, "takes no request body", NULL);
    /* a route that takes one: up to max_body_bytes */
    EXPECT("POST /test/echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello", 200,
           "got 5 bytes: hello", NULL);
    EXPECT("POST /test/echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 101\r\nExpect: 100-continue\r\n\r\n", 413,
           "request body too large (101 bytes, limit 100)", "413 127.0.0.1 POST /test/echo: request body too large");
    {
        /* chunked past the limit: 413 once it ends */
        char req[1024];
        int n = snprintf(req, sizeof req, "POST /test/echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: "
                                          "chunked\r\nConnection: close\r\n\r\n");
        for (int i = 0; i < 3; i++) n += snprintf(req + n, sizeof req - (size_t)n, "40\r\n%064d\r\n", 0);
        n += snprintf(req + n, sizeof req - (size_t)n, "0\r\n\r\n");
        expect(req, (size_t)n, 413, "request body too large (limit 100 bytes)", NULL);
    }
    /* framing that could be read two ways */
    EXPECT("POST /test/echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", 400,
           "conflicting Content-Length", "400 127.0.0.1 POST /test/echo: conflicting Content-Length headers");
    EXPECT("POST /test/echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nTransfer-Encoding: "
           "chunked\r\n\r\n0\r\n\r\n",
           400, "both Content-Length and Transfer-Encoding", NULL);
    EXPECT("POST /test/echo HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 400,
           "other than chunked", NULL);
    /* a NUL, escaped or raw, cuts nothing short: 400 */
    EXPECT("GET /v1/query?q=230%00junk HTTP/1.1\r\nHost: localhost\r\n\r\n", 400, "NUL",
           "400 127.0.0.1 GET /v1/query: a NUL byte (%00) in the request line");
    EXPECT("GET /v1/rep%00lay?log=a HTTP/1.1\r\nHost: localhost\r\n\r\n", 400, "NUL", NULL);
    static const char raw_nul[] = "GET /v1/query?q=23\0000 HTTP/1.1\r\nHost: localhost\r\n\r\n";
    expect(raw_nul, sizeof raw_nul - 1, 400, "NUL", NULL);
    /* 600 query arguments: 414 at once */
    {
        size_t cap = 8000;
        char *req = malloc(cap);
        assert_non_null(req);
        int n = snprintf(req, cap, "GET /v1/query?q=238");
        for (int i = 0; i < 600; i++) n += snprintf(req + n, cap - (size_t)n, "&a%d=1", i);
        n += snprintf(req + n, cap - (size_t)n, " HTTP/1.1\r\nHost: localhost\r\n\r\n");
        long t0 = pd_now_ms();
        expect(req, (size_t)n, 414, "too many query arguments (601, limit 256)", NULL);
        assert_true(pd_now_ms() - t0 < 1000);
        free(req);
    }
    /* a body trickled one byte a second past the request timeout (2 s) */
    {
        int fd = pd_connect("127.0.0.1", pd.port, NULL);
        assert_true(fd >= 0);
        const char *h = "POST /test/echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 50\r\n\r\n";
        assert_int_equal(send(fd, h, strlen(h), MSG_NOSIGNAL), (ssize_t)strlen(h));
        long t0 = pd_now_ms(), closed = -1;
        for (int i = 0; i < 12 && closed < 0; i++) {
            if (send(fd, "x", 1, MSG_NOSIGNAL) != 1) closed = pd_now_ms() - t0;
            struct pollfd pf = {fd, POLLIN, 0};
            if (closed < 0 && poll(&pf, 1, 500) > 0) {
                char c;
                if (recv(fd, &c, 1, 0) <= 0) closed = pd_now_ms() - t0;
            }
        }
        close(fd);
        fprintf(stderr, "a trickled body was dropped after %ld ms\n", closed);
        assert_true(closed >= 1500 && closed < 5000);
        char *log = pd_log(&pd);
        assert_non_null(strstr(log, "request not complete within 2 s"));
        free(log);
    }
    stop();
}

/* Finding 7: 401 before 404 when authentication is on; libmicrohttpd's own
 * refusals in the same text/plain form with a log line. */
static void auth_first_and_libmicrohttpd_errors(void **state)
{
    (void)state;
    char tok[700];
    assert_int_equal(pq_fixture_make(&fx, PL_SOURCE_DIR "/tests/perfd/pdslow.ini", PD_SLOWPROV_SO), 0);
    snprintf(tok, sizeof tok, "%s/tokens", fx.dir);
    FILE *f = fopen(tok, "w");
    assert_non_null(f);
    fputs("a-token-of-twenty-chars\n", f);
    fclose(f);
    chmod(tok, 0600);
    const char *args[] = {"--registry", fx.store, "--token-file", tok, NULL};
    const char *env[] = {"PD_SLOW_MS=0", "PD_INSTANCES=1", NULL};
    assert_int_equal(pd_start(&pd, args, env), 0);
    EXPECT("GET /no/such/route HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", 401, "bearer token", NULL);
    EXPECT("DELETE /v1/query HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", 401, NULL, NULL);
    EXPECT("GET /no/such/route HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer a-token-of-twenty-chars\r\n"
           "Connection: close\r\n\r\n",
           404, "no such path", NULL);
    EXPECT("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", 200, NULL, NULL);
    /* what libmicrohttpd refuses before perfd sees the request */
    EXPECT("GET /healthz HTTP/1.1\r\nHost: localhost\r\nBad Header Line\r\n\r\n", 400, "malformed request",
           "400 127.0.0.1 - -: malformed request");
    EXPECT("GET /healthz HTTP/2.5\r\nHost: localhost\r\n\r\n", 505, "HTTP version not supported", NULL);
    EXPECT("GET /healthz HTTP/1.1\r\n\r\n", 400, "without Host", NULL);
    {
        size_t n = 60000;
        char *req = malloc(n + 100);
        assert_non_null(req);
        int h = snprintf(req, 100, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ");
        memset(req + h, 'b', n);
        memcpy(req + h + n, "\r\n\r\n", 4);
        expect(req, (size_t)h + n + 4, 431, "request headers too large", "431 127.0.0.1 - -: request headers too large");
        free(req);
    }
    char *log = pd_log(&pd);
    assert_null(strstr(log, "<html"));
    free(log);
    stop();
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(host_and_origin, teardown),
        cmocka_unit_test_teardown(request_strictness, teardown),
        cmocka_unit_test_teardown(auth_first_and_libmicrohttpd_errors, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
