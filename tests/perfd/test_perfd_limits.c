/* perfd's snapshot publisher and limits, on the real binary over a store
 * whose only provider is pd_slowprov.so (a slow Collect, many instances,
 * a counter that counts collections). */
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
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

static const char get_global[] = "GET /v1/query?q=Global HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";

static int send_str(int fd, const char *s)
{
    size_t n = strlen(s);
    return send(fd, s, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

/* Pacing, not waiting for an event: the idle-eviction cases space their
 * connections so that their idle times differ, and the flood keeps its
 * rate (ten reconnects a second). */
static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
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

/* perfd's side of its port (/proc/net/tcp): the connections it holds
 * (ESTABLISHED or CLOSE_WAIT, with a socket), the request bytes it has not
 * read yet and the connections waiting in its accept queue. */
static void server_side(unsigned *held, unsigned long *unread, unsigned long *backlog)
{
    *held = 0;
    *unread = *backlog = 0;
    FILE *f = fopen("/proc/net/tcp", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        unsigned lport, st;
        unsigned long rxq, inode;
        if (sscanf(line, " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x %*x:%lx %*s %*s %*s %*s %lu", &lport, &st, &rxq,
                   &inode) != 4 ||
            lport != (unsigned)pd.port)
            continue;
        if (st == 0x0A) {
            *backlog += rxq;
        } else if ((st == 0x01 || st == 0x08) && inode != 0) {
            (*held)++;
            *unread += rxq;
        }
    }
    fclose(f);
}

/* Waits (5 s at most) until perfd has accepted every connection made to
 * it, read every request sent on them, and holds exactly n. */
static void wait_held(unsigned n)
{
    long deadline = pd_now_ms() + 5000;
    unsigned held = 0;
    unsigned long unread = 0, backlog = 0;
    for (;;) {
        server_side(&held, &unread, &backlog);
        if (held == n && unread == 0 && backlog == 0) return;
        if (pd_now_ms() > deadline) break;
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    fail_msg("perfd holds %u connections (%lu bytes unread, %lu not accepted), not %u", held, unread, backlog, n);
}

/* perfd's log once `done` says it has what the case waits for (or at a
 * 10 s deadline: the case's checks then say what is missing). */
static char *log_when(int (*done)(const char *log))
{
    long deadline = pd_now_ms() + 10000;
    for (;;) {
        char *log = pd_log(&pd);
        if ((log && done(log)) || pd_now_ms() > deadline) return log;
        free(log);
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
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
    static const char keep[] = "GET /v1/query?q=Global HTTP/1.1\r\nHost: localhost\r\n\r\n";
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
    assert_int_equal(send_str(fd, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: "), 0);
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
        int h = snprintf(req, 200, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-Big: ");
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
    int h = snprintf(req, 200, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: %zu\r\n\r\n", n);
    memset(req + h, 'x', n);
    pd_resp r;
    int rc = pd_raw(pd.port, req, (size_t)h + n, &r, 10000);
    free(req);
    /* 413, or closed while we were still sending (the answer came first). */
    assert_true(rc != 0 || r.status == 413);
    if (rc == 0) assert_non_null(strstr((char *)r.body, "this endpoint takes no request body"));
    pd_resp_free(&r);
    stop();
}

/* A connection with a request waiting for a collection of pd_slowprov (busy:
 * never evicted). */
static int busy_conn(const char *src)
{
    int fd = pd_connect("127.0.0.1", pd.port, src);
    assert_true(fd >= 0);
    assert_int_equal(send_str(fd, "GET /v1/query?q=Global HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"),
                     0);
    return fd;
}

/* Idle connections from one address up to the limit: the next one from
 * that address takes the place of the longest idle (issue 23 finding 6),
 * and answers; when all eight are busy, the next is closed at once. */
static void per_ip_limit(void **state)
{
    (void)state;
    const char *extra[] = {"--set", "snapshot_max_age_ms=0", NULL};
    start("1500", "1", extra);
    int fds[8];
    for (int i = 0; i < 8; i++) {
        fds[i] = pd_connect("127.0.0.1", pd.port, NULL);
        assert_true(fds[i] >= 0);
        wait_held((unsigned)i + 1); /* fds[0] is the longest idle */
    }
    int extra_fd = pd_connect("127.0.0.1", pd.port, NULL);
    assert_true(extra_fd >= 0);
    assert_int_equal(send_str(extra_fd, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"), 0);
    pd_resp r;
    assert_int_equal(pd_read_resp(extra_fd, &r, 5000), 0);
    assert_int_equal(r.status, 200);
    pd_resp_free(&r);
    close(extra_fd);
    long ms = pd_wait_closed(fds[0], 3000); /* the one evicted */
    assert_true(ms >= 0 && ms < 1000);
    for (int i = 0; i < 8; i++) close(fds[i]);
    wait_held(0);
    /* eight busy ones: no room to make */
    int busy[8];
    for (int i = 0; i < 8; i++) busy[i] = busy_conn(NULL);
    wait_held(8);
    int more = pd_connect("127.0.0.1", pd.port, NULL);
    assert_true(more >= 0); /* the kernel accepts; perfd closes */
    ms = pd_wait_closed(more, 3000);
    close(more);
    assert_true(ms >= 0 && ms < 1000);
    /* Another address is still welcome. */
    int other = pd_connect("127.0.0.1", pd.port, "127.0.0.2");
    assert_true(other >= 0);
    assert_int_equal(send_str(other, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"), 0);
    assert_int_equal(pd_read_resp(other, &r, 5000), 0);
    assert_int_equal(r.status, 200);
    pd_resp_free(&r);
    close(other);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(pd_read_resp(busy[i], &r, 10000), 0);
        assert_int_equal(r.status, 200);
        pd_resp_free(&r);
        close(busy[i]);
    }
    char *log = pd_log(&pd);
    assert_non_null(strstr(log, "evicted an idle connection of 127.0.0.1 to make room for 127.0.0.1"));
    assert_non_null(strstr(log, "refused 127.0.0.1: 8 connections from this address (limit 8)"));
    free(log);
    stop();
}

/* 64 idle connections from eight addresses: a 65th (a ninth address) takes
 * the place of the longest idle; with 64 busy ones it is closed at once. */
static void total_limit(void **state)
{
    (void)state;
    const char *extra[] = {"--set", "snapshot_max_age_ms=0", "--set", "max_connections=16", NULL};
    start("1500", "1", extra);
    int fds[16];
    for (int a = 0; a < 2; a++) {
        char src[32];
        snprintf(src, sizeof src, "127.0.0.%d", a + 1);
        for (int i = 0; i < 8; i++) {
            fds[a * 8 + i] = pd_connect("127.0.0.1", pd.port, src);
            assert_true(fds[a * 8 + i] >= 0);
            wait_held((unsigned)(a * 8 + i) + 1);
        }
    }
    pd_resp r;
    int extra_fd = pd_connect("127.0.0.1", pd.port, "127.0.0.9");
    assert_true(extra_fd >= 0);
    assert_int_equal(send_str(extra_fd, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"), 0);
    assert_int_equal(pd_read_resp(extra_fd, &r, 5000), 0);
    assert_int_equal(r.status, 200);
    pd_resp_free(&r);
    close(extra_fd);
    long ms = pd_wait_closed(fds[0], 3000);
    assert_true(ms >= 0 && ms < 1000);
    for (int i = 0; i < 16; i++) close(fds[i]);
    wait_held(0);
    int busy[16];
    for (int a = 0; a < 2; a++) {
        char src[32];
        snprintf(src, sizeof src, "127.0.0.%d", a + 1);
        for (int i = 0; i < 8; i++) busy[a * 8 + i] = busy_conn(src);
    }
    wait_held(16);
    int more = pd_connect("127.0.0.1", pd.port, "127.0.0.9");
    assert_true(more >= 0);
    ms = pd_wait_closed(more, 3000);
    close(more);
    assert_true(ms >= 0 && ms < 1000);
    for (int i = 0; i < 16; i++) {
        assert_int_equal(pd_read_resp(busy[i], &r, 10000), 0);
        assert_int_equal(r.status, 200);
        pd_resp_free(&r);
        close(busy[i]);
    }
    char *log = pd_log(&pd);
    assert_non_null(strstr(log, "refused 127.0.0.9: 16 connections open, none idle (limit 16)"));
    free(log);
    /* The slots come back once perfd sees those close: a new connection
     * is answered (each refused one is closed at once; 10 s at most). */
    long back_by = pd_now_ms() + 10000;
    for (;;) {
        int rc = pd_get(pd.port, "/healthz", "", &r, 5000);
        long status = rc == 0 ? r.status : 0;
        if (rc == 0) pd_resp_free(&r);
        if (status == 200) break;
        if (pd_now_ms() > back_by) fail_msg("no connection slot came back within 10 s of closing all 16");
        poll(NULL, 0, 10); /* a refused one is closed at once: do not flood perfd's log */
    }
    stop();
}


/* ------------------------------------- idle connections and log floods */

typedef struct flood {
    int fds[1000];
    int stop; /* __atomic */
    unsigned long reconnects;
} flood;

static int flood_connect(int i)
{
    char src[32];
    snprintf(src, sizeof src, "127.0.1.%d", i / 8 + 1); /* 125 addresses, 8 each */
    return pd_connect("127.0.0.1", pd.port, src);
}

/* Keeps 1,000 idle connections open: one that perfd closed (evicted) is
 * opened again, ten times a second. (A client reconnecting as fast as it
 * can is a connection flood, which costs perfd an accept and an eviction
 * each: bench/run-hub.sh measures that one.) */
static void *flood_main(void *arg)
{
    flood *f = arg;
    while (!__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE)) {
        for (int i = 0; i < 1000 && !__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE); i++) {
            struct pollfd pf = {f->fds[i], POLLIN, 0};
            if (f->fds[i] >= 0 && poll(&pf, 1, 0) == 0) continue;
            if (f->fds[i] >= 0) close(f->fds[i]);
            f->fds[i] = flood_connect(i);
            f->reconnects++;
        }
        sleep_ms(100);
    }
    return NULL;
}

static int by_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

static int flood_evicting(const char *log)
{
    return strstr(log, "evicted an idle connection of 127.0.1.") != NULL;
}

static int eviction_summarised(const char *log)
{
    return strstr(log, "more like this in the last 2 s: evicted an idle connection") != NULL;
}

/* Issue 23 finding 6: at the default limits (64 connections, 8 an address),
 * 1,000 idle connections from 125 loopback addresses, kept open, made 40 of
 * 50 scrapes fail and wrote a refusal line each. Now idle connections make
 * room: 50 of 50 scrapes succeed with a median under 5 ms, and the log gets
 * a few lines, not thousands. */
static void idle_connections_never_lock_out_scrapes(void **state)
{
    (void)state;
    struct rlimit rl;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
    if (rl.rlim_cur < 2200) {
        rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
        assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
    }
    assert_true(rl.rlim_cur >= 1100);
    const char *extra[] = {"--set", "log_interval=2", NULL};
    start("0", "1", extra);
    /* the same scrapes first without the flood: this machine's own pace */
    long idle_t[50];
    for (int i = 0; i < 50; i++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        pd_resp r;
        assert_int_equal(pd_get(pd.port, "/metrics", "", &r, 5000), 0);
        clock_gettime(CLOCK_MONOTONIC, &b);
        pd_resp_free(&r);
        idle_t[i] = (b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000;
        sleep_ms(10);
    }
    qsort(idle_t, 50, sizeof idle_t[0], by_long);
    static flood f;
    memset(&f, 0, sizeof f);
    for (int i = 0; i < 1000; i++) f.fds[i] = flood_connect(i);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, flood_main, &f), 0);
    free(log_when(flood_evicting)); /* the flood has filled perfd's limits */
    long t[50];
    int ok = 0;
    for (int i = 0; i < 50; i++) {
        long t0 = pd_now_ms();
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        pd_resp r;
        int rc = pd_get(pd.port, "/metrics", "", &r, 5000);
        clock_gettime(CLOCK_MONOTONIC, &b);
        (void)t0;
        t[i] = (b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000;
        if (rc == 0 && r.status == 200) ok++;
        pd_resp_free(&r);
        sleep_ms(40);
    }
    __atomic_store_n(&f.stop, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    for (int i = 0; i < 1000; i++)
        if (f.fds[i] >= 0) close(f.fds[i]);
    qsort(t, 50, sizeof t[0], by_long);
    fprintf(stderr,
            "%d of 50 scrapes beside 1,000 idle connections (%lu reconnects): median %.2f ms, p99 %.2f ms; "
            "without them: median %.2f ms\n",
            ok, f.reconnects, t[25] / 1000.0, t[49] / 1000.0, idle_t[25] / 1000.0);
    assert_int_equal(ok, 50);
    /* under 5 ms (0.5 ms here on a quiet machine; the ASan build does every
     * accept and eviction several times slower: 50 ms there); a machine
     * loaded by others slows both: then within 2x its own pace without the
     * flood */
#if defined(__SANITIZE_ADDRESS__)
    long bound = 50000;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    long bound = 50000;
#else
    long bound = 5000;
#endif
#else
    long bound = 5000;
#endif
    assert_true(t[25] < bound || t[25] < 2 * idle_t[25] + 2000);
    char *log = log_when(eviction_summarised);
    size_t lines = 0;
    for (const char *p = log; (p = strchr(p, '\n')) != NULL; p++) lines++;
    fprintf(stderr, "perfd wrote %zu log lines\n", lines);
    assert_non_null(strstr(log, "evicted an idle connection of 127.0.1."));
    assert_non_null(strstr(log, "more like this in the last 2 s: evicted an idle connection"));
    assert_true(lines < 60);
    free(log);
    stop();
}

/* The wrong-token refusals in perfd's log: full lines, summaries and the
 * refusals the summaries count. */
static void count_refusals(const char *log, size_t *full, size_t *summaries, unsigned long *summed)
{
    *full = *summaries = 0;
    *summed = 0;
    for (const char *p = log; (p = strstr(p, "401 127.0.0.1 GET /metrics: wrong bearer token")) != NULL; p++) (*full)++;
    for (const char *p = log; (p = strstr(p, " more like this in the last 1 s: 401 ")) != NULL; p++) {
        const char *b = p;
        while (b > log && b[-1] != ' ') b--;
        *summed += strtoul(b, NULL, 10);
        (*summaries)++;
    }
}

static int refusals_counted(const char *log)
{
    size_t full, summaries;
    unsigned long summed;
    count_refusals(log, &full, &summaries, &summed);
    return summaries >= 1 && full - summaries + summed >= 300;
}

/* A client with a wrong token, 300 times: one line, then one summary a
 * log_interval, not 300 lines. */
static void refusals_logged_with_a_rate_limit(void **state)
{
    (void)state;
    assert_int_equal(pq_fixture_make(&fx, PL_SOURCE_DIR "/tests/perfd/pdslow.ini", PD_SLOWPROV_SO), 0);
    char tok[4200];
    snprintf(tok, sizeof tok, "%s/tokens", fx.dir);
    FILE *fp = fopen(tok, "w");
    assert_non_null(fp);
    fputs("the-right-token-0123456789\n", fp);
    fclose(fp);
    chmod(tok, 0600);
    const char *args[] = {"--registry", fx.store, "--token-file", tok, "--set", "log_interval=1", NULL};
    const char *env[] = {"PD_SLOW_MS=0", "PD_INSTANCES=1", NULL};
    assert_int_equal(pd_start(&pd, args, env), 0);
    for (int i = 0; i < 300; i++) {
        pd_resp r;
        assert_int_equal(pd_get(pd.port, "/metrics", "Authorization: Bearer not-the-right-one-xx\r\n", &r, 5000), 0);
        assert_int_equal(r.status, 401);
        pd_resp_free(&r);
    }
    char *log = log_when(refusals_counted);
    size_t full = 0, summaries = 0;
    unsigned long summed = 0;
    count_refusals(log, &full, &summaries, &summed);
    fprintf(stderr, "300 refusals: %zu lines (%zu summaries of %lu)\n", full, summaries, summed);
    assert_true(summaries >= 1);
    assert_int_equal(full - summaries + summed, 300); /* every refusal counted once */
    assert_true(full <= 10);
    free(log);
    stop();
}

/* Issue 23 finding 7: a provider the host disables is named in perfd's own
 * log with the reason (its objects vanish from /metrics and every answer). */
static void provider_disable_logged(void **state)
{
    (void)state;
    assert_int_equal(pq_fixture_make(&fx, PL_SOURCE_DIR "/tests/perfd/pdslow.ini", PD_SLOWPROV_SO), 0);
    const char *args[] = {"--registry", fx.store, "--set", "snapshot_max_age_ms=0", NULL};
    const char *env[] = {"PD_SLOW_MS=0", "PD_INSTANCES=1", "PD_BREAK_AFTER=2", NULL};
    assert_int_equal(pd_start(&pd, args, env), 0);
    pd_resp r;
    /* two good Collects, then bad ones: the third bad one in a row disables
     * (issue 33) */
    for (int i = 0; i < 6; i++) {
        assert_int_equal(pd_raw(pd.port, get_global, strlen(get_global), &r, 10000), 0);
        pd_resp_free(&r);
    }
    char *log = pd_log(&pd);
    const char *line = strstr(log, "perfd: provider PerfdSlow is disabled: ");
    if (!line) fail_msg("no disable line in:\n%s", log);
    fprintf(stderr, "%.*s\n", (int)(strchr(line, '\n') - line), line);
    /* once, not at every collection */
    assert_null(strstr(line + 1, "perfd: provider PerfdSlow is disabled: "));
    /* the built-ins the fixture disabled in the store are named at start */
    assert_non_null(strstr(log, "perfd: provider PerfOS is disabled: disabled in the registry store"));
    free(log);
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
        cmocka_unit_test_teardown(idle_connections_never_lock_out_scrapes, teardown),
        cmocka_unit_test_teardown(refusals_logged_with_a_rate_limit, teardown),
        cmocka_unit_test_teardown(provider_disable_logged, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
