/* perfd's snapshot publisher and limits, on the real binary over a store
 * whose only provider is pd_slowprov.so (a slow Collect, many instances,
 * a counter that counts collections). */
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pd_util.h"
#include "perflib/block.h"
#include "pl_test.h"
#include "pq_fixture.h"
#include "pq_run.h"

static pq_fixture fx;
static pd_proc pd;

static void start(const char *slow_ms, const char *instances, const char *const *extra)
{
    assert_int_equal(pq_fixture_make(&fx, PL_SOURCE_DIR "/tests/perfd/pdslow.ini", PD_SLOWPROV_SO), 0);
    const char *args[32] = {"--registry", fx.store, "--system-name", "TESTBOX"};
    size_t n = 4;
    for (size_t i = 0; extra && extra[i] && n < 30; i++) args[n++] = extra[i];
    args[n] = NULL;
    char e1[64], e2[64];
    snprintf(e1, sizeof e1, "PD_SLOW_MS=%s", slow_ms);
    snprintf(e2, sizeof e2, "PD_INSTANCES=%s", instances);
    const char *env[] = {e1, e2, NULL};
    assert_int_equal(pd_start(&pd, args, env), 0);
}

static void stop(void)
{
    int rc = pd_stop(&pd);
    pq_fixture_done(&fx);
    assert_int_equal(rc, 0); /* a clean SIGTERM exit (and no leak under ASan) */
}

/* After a failed assertion too: perfd must not outlive the test. */
static int teardown(void **state)
{
    (void)state;
    if (pd.pid > 0) pd_stop(&pd);
    if (fx.dir) pq_fixture_done(&fx);
    return 0;
}

/* The "Collections" value of the block's first instance. */
static uint64_t collections(const pd_resp *r)
{
    pl_block blk;
    pl_error err = {0};
    assert_int_equal(pl_block_open(&blk, r->body, r->body_len, 0, 0, &err), PL_OK);
    assert_int_equal(blk.num_objects, 1);
    pl_object obj;
    pl_instance inst;
    pl_counter c;
    uint64_t v = 0;
    assert_int_equal(pl_block_object(&blk, 0, &obj), PL_OK);
    assert_int_equal(pl_object_instance(&obj, 0, &inst), PL_OK);
    assert_int_equal(pl_object_counter(&obj, 0, &c), PL_OK);
    assert_int_equal(pl_counter_value(&c, &inst, &v), PL_OK);
    return v;
}

static unsigned long snapshot_no(const pd_resp *r)
{
    char v[64];
    assert_int_equal(pd_header(r, "X-Perflib-Snapshot", v, sizeof v), 0);
    return strtoul(v, NULL, 10);
}

static const char get_global[] = "GET /v1/query?q=Global HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

static int send_str(int fd, const char *s)
{
    size_t n = strlen(s);
    return send(fd, s, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

/* perfd holds connection fd open: ask it for /healthz on it (keep-alive)
 * and read the answer. Once it answered, perfd has accepted and counted the
 * connection. */
static void healthz_on(int fd)
{
    assert_int_equal(send_str(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"), 0);
    /* one whole answer (headers and Content-Length bytes); the connection stays open */
    char buf[4096];
    size_t len = 0;
    long deadline = pd_now_ms() + 10000;
    for (;;) {
        buf[len] = 0;
        char *end = strstr(buf, "\r\n\r\n");
        const char *cl = strcasestr(buf, "\r\nContent-Length:");
        if (end && cl && cl < end && len >= (size_t)(end + 4 - buf) + strtoul(cl + 17, NULL, 10)) break;
        struct pollfd pf = {fd, POLLIN, 0};
        long left = deadline - pd_now_ms();
        if (left <= 0 || poll(&pf, 1, (int)left) != 1) fail_msg("no whole answer to /healthz within 10 s: %s", buf);
        ssize_t n = recv(fd, buf + len, sizeof buf - 1 - len, 0);
        if (n <= 0) fail_msg("the connection closed before a whole answer: %s", buf);
        len += (size_t)n;
    }
    assert_int_equal(strncmp(buf, "HTTP/1.1 200 ", 13), 0);
}

/* Has perfd let go of its end of the connection from our local port
 * `client` to its port (/proc/net/tcp: the server's socket no longer
 * ESTABLISHED, or orphaned: no inode)? 1 yes, 0 no. */
static int server_end_released(unsigned client)
{
    for (int v6 = 0; v6 < 2; v6++) {
        FILE *f = fopen(v6 ? "/proc/net/tcp6" : "/proc/net/tcp", "r");
        if (!f) continue;
        char line[512];
        while (fgets(line, sizeof line, f)) {
            unsigned lport, rport, st;
            unsigned long inode;
            if (sscanf(line, " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%x %x %*s %*s %*s %*s %*s %lu", &lport, &rport, &st,
                       &inode) != 4)
                continue;
            if (lport == (unsigned)pd.port && rport == client && st == 1 && inode != 0) {
                fclose(f);
                return 0;
            }
        }
        fclose(f);
    }
    return 1;
}

/* Six clients ask while a collection runs (600 ms): one collection, one
 * snapshot, the same bytes for all; the next request (max age 0) gets a
 * new one. */
static void concurrent_requests_share_a_collection(void **state)
{
    (void)state;
    const char *extra[] = {"--set", "snapshot_max_age_ms=0", NULL};
    start("600", "3", extra);
    enum { N = 6 };
    int fds[N];
    long t0 = pd_now_ms();
    for (int i = 0; i < N; i++) {
        fds[i] = pd_connect("127.0.0.1", pd.port, NULL);
        assert_true(fds[i] >= 0);
        assert_int_equal(send_str(fds[i], get_global), 0);
    }
    pd_resp r[N];
    for (int i = 0; i < N; i++) {
        assert_int_equal(pd_read_resp(fds[i], &r[i], 10000), 0);
        close(fds[i]);
        assert_int_equal(r[i].status, 200);
    }
    long took = pd_now_ms() - t0;
    fprintf(stderr, "%d clients answered in %ld ms\n", N, took);
    assert_true(took < 3 * 600); /* one collection for all, not one each */
    unsigned long seq = snapshot_no(&r[0]);
    for (int i = 1; i < N; i++) {
        assert_int_equal(snapshot_no(&r[i]), seq);
        assert_int_equal(r[i].body_len, r[0].body_len);
        assert_memory_equal(r[i].body, r[0].body, r[0].body_len);
    }
    assert_int_equal(collections(&r[0]), 1);
    for (int i = 0; i < N; i++) pd_resp_free(&r[i]);

    pd_resp again;
    assert_int_equal(pd_raw(pd.port, get_global, strlen(get_global), &again, 10000), 0);
    assert_int_equal(again.status, 200);
    assert_true(snapshot_no(&again) > seq);
    assert_int_equal(collections(&again), 2);
    pd_resp_free(&again);
    stop();
}

/* Within the max age the same snapshot is served again. */
static void young_snapshot_served_again(void **state)
{
    (void)state;
    const char *extra[] = {"--set", "snapshot_max_age_ms=60000", NULL};
    start("0", "1", extra);
    pd_resp a, b;
    assert_int_equal(pd_raw(pd.port, get_global, strlen(get_global), &a, 10000), 0);
    assert_int_equal(pd_raw(pd.port, get_global, strlen(get_global), &b, 10000), 0);
    assert_int_equal(a.status, 200);
    assert_int_equal(snapshot_no(&a), snapshot_no(&b));
    assert_int_equal(collections(&b), 1);
    pd_resp_free(&a);
    pd_resp_free(&b);
    stop();
}

/* A client that asks for a large block ten times (pipelined) and never
 * reads: the answers fill the socket buffers and its connection stalls.
 * Other clients are served and collections go on meanwhile, each well
 * within the idle timeout (a server blocked by the stalled client would
 * only recover when that timeout drops it); then the stalled connection is
 * dropped by the idle timeout, its answers incomplete. */
static void client_that_never_reads(void **state)
{
    (void)state;
    const char *extra[] = {"--set", "snapshot_max_age_ms=0", "--set", "idle_timeout=5", NULL};
    start("0", "20000", extra);
    int small = 2048;
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)pd.port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int stalled = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(stalled >= 0);
    assert_int_equal(setsockopt(stalled, SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
    assert_int_equal(connect(stalled, (struct sockaddr *)&sa, sizeof sa), 0);
    static const char keep[] = "GET /v1/query?q=Global HTTP/1.1\r\nHost: x\r\n\r\n";
    for (int i = 0; i < 10; i++) assert_int_equal(send_str(stalled, keep), 0);
    /* perfd is answering it (and will stall on its full buffers) */
    struct pollfd spf = {stalled, POLLIN, 0};
    assert_int_equal(poll(&spf, 1, 20000), 1);

    size_t full = 0;
    unsigned long last = 0;
    for (int i = 0; i < 5; i++) {
        long t0 = pd_now_ms();
        pd_resp r;
        assert_int_equal(pd_raw(pd.port, get_global, strlen(get_global), &r, 10000), 0);
        long took = pd_now_ms() - t0;
        assert_int_equal(r.status, 200);
        fprintf(stderr, "request %d beside the stalled client: %ld ms\n", i, took);
        assert_true(took < 4000);
        unsigned long seq = snapshot_no(&r);
        assert_true(seq > last); /* a new collection each time: the collector is not held */
        last = seq;
        full = r.body_len;
        pd_resp_free(&r);
    }
    assert_true(full > 1000000);
    /* Now read the stalled one: perfd must have closed it short of its ten
     * answers. Reading unstalls it, so first wait for the idle timeout
     * (5 s) to make perfd let go of its end. */
    struct sockaddr_in me;
    socklen_t ml = sizeof me;
    assert_int_equal(getsockname(stalled, (struct sockaddr *)&me, &ml), 0);
    long released_by = pd_now_ms() + 20000;
    while (!server_end_released(ntohs(me.sin_port))) {
        if (pd_now_ms() > released_by) fail_msg("perfd kept the stalled connection 20 s past its 5 s idle timeout");
        poll(NULL, 0, 20);
    }
    size_t got = 0;
    long deadline = pd_now_ms() + 15000;
    int eof = 0;
    char buf[65536];
    while (pd_now_ms() < deadline) {
        struct pollfd pf = {stalled, POLLIN, 0};
        if (poll(&pf, 1, 1000) <= 0) continue;
        ssize_t n = recv(stalled, buf, sizeof buf, 0);
        if (n <= 0) {
            eof = 1;
            break;
        }
        got += (size_t)n;
    }
    close(stalled);
    fprintf(stderr, "stalled client got %zu of %zu bytes before perfd closed it\n", got, 10 * full);
    assert_true(eof);
    assert_true(got < 10 * full);
    stop();
}

/* A slowloris: one header byte every 300 ms keeps the idle timer alive,
 * the request timeout (2 s) drops it. */
static void slowloris_dropped(void **state)
{
    (void)state;
    const char *extra[] = {"--set", "request_timeout=2", NULL};
    start("0", "1", extra);
    int fd = pd_connect("127.0.0.1", pd.port, NULL);
    assert_true(fd >= 0);
    long t0 = pd_now_ms();
    assert_int_equal(send_str(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "), 0);
    long closed = -1;
    for (int i = 0; i < 40 && closed < 0; i++) { /* at most 12 s */
        if (send(fd, "a", 1, MSG_NOSIGNAL) != 1) {
            closed = pd_now_ms() - t0;
            break;
        }
        struct pollfd pf = {fd, POLLIN, 0};
        if (poll(&pf, 1, 300) > 0) {
            char c;
            if (recv(fd, &c, 1, 0) <= 0) closed = pd_now_ms() - t0;
        }
    }
    close(fd);
    fprintf(stderr, "slowloris closed after %ld ms\n", closed);
    assert_true(closed >= 1500 && closed < 5000);
    char *log = pd_log(&pd);
    assert_non_null(strstr(log, "dropped 127.0.0.1: request not complete within 2 s"));
    free(log);
    stop();
}

/* A connection that sends nothing is closed after the idle timeout. */
static void idle_connection_closed(void **state)
{
    (void)state;
    const char *extra[] = {"--set", "idle_timeout=1", NULL};
    start("0", "1", extra);
    int fd = pd_connect("127.0.0.1", pd.port, NULL);
    assert_true(fd >= 0);
    long ms = pd_wait_closed(fd, 5000);
    close(fd);
    fprintf(stderr, "idle connection closed after %ld ms\n", ms);
    assert_true(ms >= 800 && ms < 4000);
    stop();
}

static void header_limits(void **state)
{
    (void)state;
    start("0", "1", NULL);
    size_t sizes[] = {15000, 17000, 30000, 200000};
    int want[] = {200, 431, 431, 431};
    for (int k = 0; k < 4; k++) {
        size_t n = sizes[k];
        char *req = malloc(n + 200);
        assert_non_null(req);
        int h = snprintf(req, 200, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: ");
        memset(req + h, 'b', n);
        memcpy(req + h + n, "\r\n\r\n", 5);
        pd_resp r;
        int rc = pd_raw(pd.port, req, (size_t)h + n + 4, &r, 10000);
        free(req);
        if (k < 3) {
            assert_int_equal(rc, 0);
            assert_int_equal(r.status, want[k]);
        } else {
            /* Far past the limit libmicrohttpd refuses before any handler:
             * 431 or a closed connection, never 200. */
            assert_true(rc != 0 || r.status == 431);
        }
        pd_resp_free(&r);
    }
    char *log = pd_log(&pd);
    assert_non_null(strstr(log, "431 127.0.0.1 GET /healthz: request headers too large"));
    free(log);
    stop();
}

static void body_limit(void **state)
{
    (void)state;
    start("0", "1", NULL);
    size_t n = 70000;
    char *req = malloc(n + 200);
    assert_non_null(req);
    int h = snprintf(req, 200, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: %zu\r\n\r\n", n);
    memset(req + h, 'x', n);
    pd_resp r;
    int rc = pd_raw(pd.port, req, (size_t)h + n, &r, 10000);
    free(req);
    /* 413, or closed while we were still sending (the answer came first). */
    assert_true(rc != 0 || r.status == 413);
    if (rc == 0) assert_non_null(strstr((char *)r.body, "request body too large"));
    pd_resp_free(&r);
    stop();
}

/* Idle connections open from one address up to the limit; the next is
 * closed at once; the others still work. */
static void per_ip_limit(void **state)
{
    (void)state;
    start("0", "1", NULL);
    int fds[8];
    for (int i = 0; i < 8; i++) {
        fds[i] = pd_connect("127.0.0.1", pd.port, NULL);
        assert_true(fds[i] >= 0);
        healthz_on(fds[i]);
    }
    int extra = pd_connect("127.0.0.1", pd.port, NULL);
    assert_true(extra >= 0); /* the kernel accepts; perfd closes */
    long ms = pd_wait_closed(extra, 3000);
    close(extra);
    assert_true(ms >= 0 && ms < 1000);
    /* Another address is still welcome. */
    int other = pd_connect("127.0.0.1", pd.port, "127.0.0.2");
    assert_true(other >= 0);
    assert_int_equal(send_str(other, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 0);
    pd_resp r;
    assert_int_equal(pd_read_resp(other, &r, 5000), 0);
    assert_int_equal(r.status, 200);
    pd_resp_free(&r);
    close(other);
    /* So is one of the eight. */
    assert_int_equal(send_str(fds[0], "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 0);
    assert_int_equal(pd_read_resp(fds[0], &r, 5000), 0);
    assert_int_equal(r.status, 200);
    pd_resp_free(&r);
    for (int i = 0; i < 8; i++) close(fds[i]);
    char *log = pd_log(&pd);
    assert_non_null(strstr(log, "refused 127.0.0.1: 8 connections from this address (limit 8)"));
    free(log);
    stop();
}

/* 64 connections from eight addresses; the 65th (a ninth address) is
 * closed at once. */
static void total_limit(void **state)
{
    (void)state;
    start("0", "1", NULL);
    int fds[64];
    for (int a = 0; a < 8; a++) {
        char src[32];
        snprintf(src, sizeof src, "127.0.0.%d", a + 1);
        for (int i = 0; i < 8; i++) {
            fds[a * 8 + i] = pd_connect("127.0.0.1", pd.port, src);
            assert_true(fds[a * 8 + i] >= 0);
            healthz_on(fds[a * 8 + i]);
        }
    }
    int extra = pd_connect("127.0.0.1", pd.port, "127.0.0.9");
    assert_true(extra >= 0);
    long ms = pd_wait_closed(extra, 3000);
    close(extra);
    assert_true(ms >= 0 && ms < 1000);
    for (int i = 0; i < 64; i++) close(fds[i]);
    char *log = pd_log(&pd);
    assert_non_null(strstr(log, "refused 127.0.0.9: 64 connections open (limit 64)"));
    free(log);
    /* The slots come back once perfd sees those close: a new connection
     * is answered (each refused one is closed at once; 10 s at most). */
    long back_by = pd_now_ms() + 10000;
    for (;;) {
        pd_resp r;
        int rc = pd_get(pd.port, "/healthz", "", &r, 5000);
        long status = rc == 0 ? r.status : 0;
        if (rc == 0) pd_resp_free(&r);
        if (status == 200) break;
        if (pd_now_ms() > back_by) fail_msg("no connection slot came back within 10 s of closing all 64");
        poll(NULL, 0, 10); /* a refused one is closed at once: do not flood perfd's log */
    }
    stop();
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(concurrent_requests_share_a_collection, teardown),
        cmocka_unit_test_teardown(young_snapshot_served_again, teardown),
        cmocka_unit_test_teardown(client_that_never_reads, teardown),
        cmocka_unit_test_teardown(slowloris_dropped, teardown),
        cmocka_unit_test_teardown(idle_connection_closed, teardown),
        cmocka_unit_test_teardown(header_limits, teardown),
        cmocka_unit_test_teardown(body_limit, teardown),
        cmocka_unit_test_teardown(per_ip_limit, teardown),
        cmocka_unit_test_teardown(total_limit, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
