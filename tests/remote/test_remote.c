/* The remote client (lib/remote) and the engine's Foreign query.
 *
 * Settings and target parsing are unit cases. The transfer cases run a small
 * HTTP server of this test on 127.0.0.1 (an ephemeral port, a child process,
 * bounded in connections and time) whose answers are chosen by the query
 * string, so that every way a remote machine can fail is produced for real:
 * refused, stalled, an HTTP error, a wrong token, a malformed or truncated
 * block, an answer larger than the cap. The cases against the real perfd are
 * in test_remote_perfd.c. */
#include <arpa/inet.h>
#include <link.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perflib/block.h"
#include "perflib/query.h"
#include "perflib/remote.h"
#include "pl_test.h"
#include "pq_run.h"

/* ------------------------------------------------------------ a block */

static uint8_t *make_block(const char *system_name, size_t *len)
{
    pl_builder *b = pl_builder_new();
    assert_non_null(b);
    pl_object_desc od = {.name_index = 238, .help_index = 239, .has_instances = 1, .default_counter = 0};
    int obj, ctr, inst;
    assert_int_equal(pl_builder_add_object(b, &od, &obj), PL_OK);
    pl_counter_desc cd = {.name_index = 6, .help_index = 7, .type = PERF_100NSEC_TIMER_INV};
    assert_int_equal(pl_builder_add_counter(b, obj, &cd, &ctr), PL_OK);
    assert_int_equal(pl_builder_add_instance(b, obj, "_Total", 0, 0, PERF_NO_UNIQUE_ID, &inst), PL_OK);
    assert_int_equal(pl_builder_set_u64(b, obj, inst, ctr, 123456789), PL_OK);
    size_t olen = pl_builder_size(b);
    pl_block_header h = {.system_name = system_name, .default_object = 238, .perf_freq = 10000000,
                         .perf_time = 1, .perf_time_100ns = 133000000000000000};
    size_t hlen = 0;
    assert_int_equal(pl_block_write_header(&h, 1, olen, NULL, 0, &hlen), PL_E_MORE_DATA);
    uint8_t *buf = calloc(1, hlen + olen);
    assert_non_null(buf);
    size_t used = 0;
    uint32_t nobj = 0;
    assert_int_equal(pl_builder_emit(b, buf + hlen, olen, &used, &nobj), PL_OK);
    assert_int_equal(pl_block_write_header(&h, 1, olen, buf, hlen, &used), PL_OK);
    pl_builder_free(b);
    *len = hlen + olen;
    return buf;
}

/* ----------------------------------------------------------- a server */

typedef struct server {
    pid_t pid;
    unsigned port;
} server;

static const uint8_t *srv_block;
static size_t srv_block_len;

static void send_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        c += w;
        n -= (size_t)w;
    }
}

static void respond(int fd, int code, const char *reason, const void *body, size_t n)
{
    char h[256];
    int k = snprintf(h, sizeof h, "HTTP/1.1 %d %s\r\nContent-Type: application/octet-stream\r\n"
                     "Connection: close\r\nContent-Length: %zu\r\n\r\n",
                     code, reason, n);
    send_all(fd, h, (size_t)k);
    if (n) send_all(fd, body, n);
}

/* One request: the query string picks the answer. */
static void serve_one(int fd)
{
    char req[8192];
    req[0] = '\0';
    size_t n = 0;
    time_t start = time(NULL);
    while (n < sizeof req - 1 && !strstr(req, "\r\n\r\n") && time(NULL) - start < 5) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 1000) <= 0) continue;
        ssize_t r = recv(fd, req + n, sizeof req - 1 - n, 0);
        if (r <= 0) return;
        n += (size_t)r;
        req[n] = '\0';
    }
    const char *q = strstr(req, "?q=");
    q = q ? q + 3 : "";
    int authed = strstr(req, "\r\nAuthorization: Bearer s3cret\r\n") != NULL;
    if (strncmp(q, "ok", 2) == 0) {
        respond(fd, 200, "OK", srv_block, srv_block_len);
    } else if (strncmp(q, "auth", 4) == 0) {
        if (authed) respond(fd, 200, "OK", srv_block, srv_block_len);
        else respond(fd, 401, "Unauthorized", "bad token\n", 10);
    } else if (strncmp(q, "Counter", 7) == 0) {
        static const uint8_t ms[] = {'2', 0, 0, 0, 'S', 0, 0, 0, 0, 0};
        respond(fd, 200, "OK", ms, sizeof ms);
    } else if (strncmp(q, "garbage", 7) == 0) {
        respond(fd, 200, "OK", "this is not a block at all, not even close....", 46);
    } else if (strncmp(q, "short", 5) == 0) {
        respond(fd, 200, "OK", srv_block, srv_block_len - 8); /* TotalByteLength says more */
    } else if (strncmp(q, "big", 3) == 0) {
        static uint8_t zero[65536];
        char h[160];
        int k = snprintf(h, sizeof h, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", 40 * 65536);
        send_all(fd, h, (size_t)k);
        for (int i = 0; i < 40; i++) send_all(fd, zero, sizeof zero);
    } else if (strncmp(q, "chunked", 7) == 0) { /* no length announced: the cap must hold while reading */
        static uint8_t zero[4096];
        const char *h = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
        send_all(fd, h, strlen(h));
        for (int i = 0; i < 400; i++) {
            send_all(fd, "1000\r\n", 6);
            send_all(fd, zero, sizeof zero);
            send_all(fd, "\r\n", 2);
        }
        send_all(fd, "0\r\n\r\n", 5);
    } else if (strncmp(q, "stall", 5) == 0) {
        sleep(4);
    } else if (strncmp(q, "fail500", 7) == 0) {
        respond(fd, 500, "Internal Server Error", "collector\x01 broke\r\nbadly", 24);
    } else {
        respond(fd, 404, "Not Found", "", 0);
    }
}

static server start_server(void)
{
    server s = {0};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(fd, 16), 0);
    socklen_t al = sizeof a;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
    s.port = ntohs(a.sin_port);
    s.pid = fork();
    assert_true(s.pid >= 0);
    if (s.pid == 0) {
        alarm(60); /* bounded, whatever happens to the parent */
        signal(SIGCHLD, SIG_IGN);
        for (int i = 0; i < 64; i++) {
            struct pollfd p = {.fd = fd, .events = POLLIN};
            if (poll(&p, 1, 30000) <= 0) break;
            int c = accept(fd, NULL, NULL);
            if (c < 0) continue;
            if (fork() == 0) { /* one process per connection: a stall blocks only itself */
                prctl(PR_SET_PDEATHSIG, SIGKILL); /* and ends with the server */
                close(fd);
                serve_one(c);
                close(c);
                _exit(0);
            }
            close(c);
        }
        _exit(0);
    }
    close(fd);
    return s;
}

static void stop_server(server *s)
{
    if (s->pid > 0) {
        kill(s->pid, SIGKILL);
        waitpid(s->pid, NULL, 0);
    }
    s->pid = 0;
}

/* A port nothing listens on: bound, then closed. */
static unsigned closed_port(void)
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

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Every transfer case: no configuration from the machine, our block. */
static char *store_dir;

static server setup(void)
{
    setenv("PERFLIB_REMOTE_CONFIG", "/dev/null", 1);
    store_dir = pq_mkdtemp();
    assert_non_null(store_dir);
    char store[512];
    snprintf(store, sizeof store, "%s/perflib.db", store_dir);
    setenv("PERFLIB_REGISTRY", store, 1);
    srv_block = make_block("REMOTEBOX", &srv_block_len);
    return start_server();
}

static void teardown(server *s)
{
    stop_server(s);
    free((void *)srv_block);
    srv_block = NULL;
    pq_rmdir(store_dir);
    free(store_dir);
    store_dir = NULL;
}

static int query(pl_remote *r, const char *target, const char *q, void **out, size_t *len, uint32_t *type,
                 pl_error *err)
{
    *out = NULL;
    return pl_remote_query(r, target, q, out, len, type, err);
}

/* ------------------------------------------------------------ targets */

static void target_forms(void **state)
{
    (void)state;
    char h[256];
    unsigned port;
    static const struct { const char *t, *host; unsigned port; } ok[] = {
        {"web1", "web1", 0},           {"web1:9000", "web1", 9000},       {"\\\\WEB1", "WEB1", 0},
        {"\\\\web1:1", "web1", 1},     {"10.0.0.2:65535", "10.0.0.2", 65535}, {"[::1]:80", "::1", 80},
        {"[fe80::1]", "fe80::1", 0},   {"::1", "::1", 0},                 {"a.b-c.example", "a.b-c.example", 0},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        assert_int_equal(pl_remote_parse_target(ok[i].t, h, sizeof h, &port, NULL), PL_OK);
        assert_string_equal(h, ok[i].host);
        assert_int_equal(port, ok[i].port);
    }
    static const char *const bad[] = {"", ":80", "web1:", "web1:0", "web1:65536", "web1:80x", "we b1", "web1/x",
                                      "user@web1", "[::1", "[::1]x", "[web1]:80", "\\\\", "web1?q", "w\x01"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pl_error err;
        assert_int_equal(pl_remote_parse_target(bad[i], h, sizeof h, &port, &err), PL_E_PARSE);
        assert_non_null(strstr(err.msg, "target"));
    }
}

/* ----------------------------------------------------------- settings */

static const char conf[] =
    "# perflib remote client\n"
    "timeout_ms = 5000\r\n"
    "  ca_file = /etc/ca.pem  \n"
    "; another comment\n"
    "[web1]\n"
    "address = 10.0.0.7\n"
    "token_file = \"/etc/web1 token\"\n"
    "tls = on\n"
    "[web1:9000]\n"
    "timeout_ms = 100\n"
    "[other]\n"
    "timeout_ms = 1\n";

static void settings_layers(void **state)
{
    (void)state;
    pl_remote_settings s;
    assert_int_equal(pl_remote_settings_parse(conf, strlen(conf), NULL, &s, NULL), PL_OK);
    assert_int_equal(s.timeout_ms, 5000);
    assert_int_equal(s.connect_timeout_ms, PL_REMOTE_DEFAULT_CONNECT_TIMEOUT_MS);
    assert_int_equal(s.max_bytes, PL_REMOTE_DEFAULT_MAX_BYTES);
    assert_int_equal(s.tls, PL_REMOTE_TLS_AUTO);
    assert_string_equal(s.ca_file, "/etc/ca.pem");
    assert_null(s.address);
    pl_remote_settings_free(&s);

    assert_int_equal(pl_remote_settings_parse(conf, strlen(conf), "\\\\WEB1", &s, NULL), PL_OK);
    assert_int_equal(s.timeout_ms, 5000);
    assert_string_equal(s.address, "10.0.0.7");
    assert_string_equal(s.token_file, "/etc/web1 token");
    assert_int_equal(s.tls, PL_REMOTE_TLS_ON);
    pl_remote_settings_free(&s);

    /* the host's section, then the host:port section */
    assert_int_equal(pl_remote_settings_parse(conf, strlen(conf), "web1:9000", &s, NULL), PL_OK);
    assert_int_equal(s.timeout_ms, 100);
    assert_string_equal(s.address, "10.0.0.7");
    pl_remote_settings_free(&s);

    /* the environment wins over the file */
    char dir[] = "/tmp/pl_remote_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/remote.conf", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(conf, f);
    fclose(f);
    setenv("PERFLIB_REMOTE_CONFIG", path, 1);
    setenv("PERFLIB_REMOTE_TIMEOUT_MS", "42", 1);
    assert_int_equal(pl_remote_settings_load(NULL, "web1", &s, NULL), PL_OK);
    assert_int_equal(s.timeout_ms, 42);
    assert_string_equal(s.token_file, "/etc/web1 token");
    assert_string_equal(s.address, "10.0.0.7");
    pl_remote_settings_free(&s);
    /* ...but never a credential: it would go to every target (issue 23) */
    pl_error err;
    static const char *const cred_env[] = {"PERFLIB_REMOTE_TOKEN_FILE", "PERFLIB_REMOTE_CERT_FILE",
                                           "PERFLIB_REMOTE_KEY_FILE"};
    for (size_t i = 0; i < 3; i++) {
        setenv(cred_env[i], "/run/tok", 1);
        assert_int_equal(pl_remote_settings_load(NULL, "web1", &s, &err), PL_E_PARSE);
        assert_non_null(strstr(err.msg, cred_env[i]));
        assert_non_null(strstr(err.msg, "section"));
        /* a daemon's client reads no environment at all */
        assert_int_equal(pl_remote_settings_load_ex(path, PL_REMOTE_NO_ENVIRONMENT, "web1", &s, &err), PL_OK);
        assert_int_equal(s.timeout_ms, 5000);
        pl_remote_settings_free(&s);
        unsetenv(cred_env[i]);
    }
    setenv("PERFLIB_REMOTE_TIMEOUT_MS", "0", 1);
    assert_int_equal(pl_remote_settings_load(NULL, "web1", &s, &err), PL_E_PARSE);
    assert_non_null(strstr(err.msg, "PERFLIB_REMOTE_TIMEOUT_MS"));
    unsetenv("PERFLIB_REMOTE_TIMEOUT_MS");
    unlink(path);
    rmdir(dir);
    /* a configuration that is named but missing is an error, not "none" */
    assert_int_equal(pl_remote_settings_load(NULL, "web1", &s, &err), PL_E_IO);
    assert_non_null(strstr(err.msg, path));
}

static void settings_errors(void **state)
{
    (void)state;
    static const struct { const char *text, *what; } bad[] = {
        {"timeout = 5\n", "line 1: unknown key"},
        {"\n\ntimeout_ms = 0\n", "line 3"},
        {"timeout_ms = 600001\n", "line 1"},
        {"timeout_ms = 99999999999999999999999\n", "line 1"},
        {"max_bytes = 1073741825\n", "line 1"},
        {"port = 70000\n", "line 1"},
        {"tls = maybe\n", "line 1"},
        {"[web1\n", "line 1"},
        {"[  ]\n", "line 1"},
        {"ca_file\n", "line 1"},
        {"= x\n", "line 1"},
        {"ca_file =\n", "line 1"},
        {"ca_file = a\x01b\n", "control character"},
        {"address = user@host\n", "line 1"},
        {"[other]\nnonsense = 1\n", "line 2"}, /* checked in every section */
        /* credentials only where they are bound to a machine (issue 23) */
        {"token_file = /etc/t\n", "line 1: token_file must be inside the [machine] section"},
        {"cert_file = /etc/c.pem\n[web1]\n", "line 1: cert_file must be inside"},
        {"\nkey_file = /etc/k.pem\n", "line 2: key_file must be inside"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pl_remote_settings s;
        pl_error err;
        assert_int_equal(pl_remote_settings_parse(bad[i].text, strlen(bad[i].text), "web1", &s, &err), PL_E_PARSE);
        if (!strstr(err.msg, bad[i].what)) fail_msg("\"%s\": message \"%s\"", bad[i].text, err.msg);
    }
    pl_remote_settings s;
    assert_int_equal(pl_remote_settings_parse("a\0b = 1", 7, NULL, &s, NULL), PL_E_PARSE);
    assert_int_equal(pl_remote_settings_parse(NULL, 0, NULL, &s, NULL), PL_OK);
    pl_remote_settings_free(&s);
}

/* A daemon's client asks only the machines that have a section of their
 * own, each at its own port (issue 23). */
static void settings_listed_only(void **state)
{
    (void)state;
    static const char text[] = "timeout_ms = 700\n"
                               "[web1]\n"
                               "[web2]\nport = 9300\n"
                               "[web3:8000]\ntimeout_ms = 5\n"
                               "[[::1]:9731]\n"
                               "[127.0.0.1:4444]\ntls = off\ntoken_file = /t\n";
    static const struct { const char *target; int listed; long timeout; } cases[] = {
        {"web1", 1, 700},         {"WEB1:9730", 1, 700}, {"\\\\web1", 1, 700}, {"web1:22", 0, 0},
        {"web2", 1, 700},         {"web2:9300", 1, 700}, {"web2:9730", 0, 0},     {"web3:8000", 1, 5},
        {"web3", 0, 0},           {"[::1]:9731", 1, 700}, {"::1", 0, 0},         {"127.0.0.1:4444", 1, 700},
        {"127.0.0.1", 0, 0},      {"web4", 0, 0},        {"10.0.0.7", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pl_remote_settings st;
        pl_error err;
        int rc = pl_remote_settings_parse_ex(text, strlen(text), PL_REMOTE_LISTED_ONLY, cases[i].target, &st, &err);
        if (cases[i].listed) {
            if (rc != PL_OK) fail_msg("%s: %d %s", cases[i].target, rc, err.msg);
            assert_true(st.listed);
            assert_int_equal(st.timeout_ms, cases[i].timeout);
            pl_remote_settings_free(&st);
        } else {
            if (rc != PL_E_DENIED) fail_msg("%s: %d, expected PL_E_DENIED", cases[i].target, rc);
            assert_non_null(strstr(err.msg, "not a configured remote machine"));
            /* without the flag the same target is fine, and not listed */
            assert_int_equal(pl_remote_settings_parse(text, strlen(text), cases[i].target, &st, NULL), PL_OK);
            assert_false(st.listed);
            pl_remote_settings_free(&st);
        }
    }
    /* tls = off counts for the token only when the machine's own section says it */
    pl_remote_settings st;
    assert_int_equal(pl_remote_settings_parse(text, strlen(text), "127.0.0.1:4444", &st, NULL), PL_OK);
    assert_true(st.tls_off_for_machine);
    pl_remote_settings_free(&st);
    static const char global_off[] = "tls = off\n[127.0.0.1:4444]\ntoken_file = /t\n";
    assert_int_equal(pl_remote_settings_parse(global_off, strlen(global_off), "127.0.0.1:4444", &st, NULL), PL_OK);
    assert_int_equal(st.tls, PL_REMOTE_TLS_OFF);
    assert_false(st.tls_off_for_machine);
    pl_remote_settings_free(&st);
    /* no configuration at all: nothing is listed, and no socket is opened */
    pl_remote *r;
    pl_error err;
    assert_int_equal(pl_remote_open_ex(NULL, PL_REMOTE_LISTED_ONLY | PL_REMOTE_NO_ENVIRONMENT, &r, &err), PL_OK);
    void *out = NULL;
    size_t len = 0;
    int64_t t0 = now_ms();
    assert_int_equal(pl_remote_query(r, "192.0.2.1:9", "238", &out, &len, NULL, &err), PL_E_DENIED);
    assert_true(now_ms() - t0 < 100);
    assert_null(out);
    assert_non_null(strstr(err.msg, "192.0.2.1:9"));
    pl_remote_close(r);
}

/* ----------------------------------------------------------- transfers */

static void foreign_block_as_sent(void **state)
{
    (void)state;
    server s = setup();
    pl_engine *e;
    pl_error err;
    assert_int_equal(pl_engine_open(NULL, &e, &err), PL_OK);
    char q[128];
    snprintf(q, sizeof q, "Foreign 127.0.0.1:%u ok 238", s.port);
    void *out = NULL;
    size_t len = 0;
    uint32_t type = 0;
    assert_int_equal(pl_engine_query_alloc(e, q, &out, &len, &type, &err), PL_OK);
    assert_int_equal(type, PL_REG_BINARY);
    assert_int_equal(len, srv_block_len);
    assert_memory_equal(out, srv_block, len);
    pl_block blk;
    assert_int_equal(pl_block_open(&blk, out, len, 0, 0, NULL), PL_OK);
    assert_string_equal(blk.system_name, "REMOTEBOX");
    pl_free(out);
    /* the sized form and its retry */
    size_t need = 0;
    assert_int_equal(pl_engine_query(e, q, NULL, 0, &need, &type, &err), PL_E_MORE_DATA);
    assert_int_equal(need, srv_block_len);
    void *buf = malloc(need);
    assert_int_equal(pl_engine_query(e, q, buf, need, &need, &type, &err), PL_OK);
    assert_memory_equal(buf, srv_block, need);
    free(buf);
    /* a title query comes back as a MULTI_SZ */
    snprintf(q, sizeof q, "Foreign 127.0.0.1:%u Counter 009", s.port);
    assert_int_equal(pl_engine_query_alloc(e, q, &out, &len, &type, &err), PL_OK);
    assert_int_equal(type, PL_REG_MULTI_SZ);
    assert_int_equal(len, 10);
    pl_free(out);
    pl_engine_close(e);
    teardown(&s);
}

static void foreign_perfquery_raw(void **state)
{
    (void)state;
    server s = setup();
    char *dir = pq_mkdtemp();
    char file[512], q[128];
    snprintf(file, sizeof file, "%s/remote.blk", dir);
    snprintf(q, sizeof q, "Foreign 127.0.0.1:%u ok", s.port);
    const char *argv[] = {PERFQUERY_BIN, "--raw", file, q, NULL};
    pq_result r;
    assert_int_equal(pq_run(argv, NULL, &r), 0);
    if (r.exit_code != 0) fail_msg("%s", pq_result_transcript(&r));
    pq_result_free(&r);
    size_t len = 0;
    char *got = pq_read_file(file, &len);
    assert_non_null(got);
    assert_int_equal(len, srv_block_len);
    assert_memory_equal(got, srv_block, len);
    free(got);
    /* a failing machine: non-zero, and the message names it */
    snprintf(q, sizeof q, "Foreign 127.0.0.1:%u ok", closed_port());
    const char *argv2[] = {PERFQUERY_BIN, "--raw", file, q, NULL};
    assert_int_equal(pq_run(argv2, NULL, &r), 0);
    assert_int_not_equal(r.exit_code, 0);
    assert_non_null(strstr(r.err, "127.0.0.1:"));
    assert_non_null(strstr(r.err, "cannot connect"));
    pq_result_free(&r);
    pq_rmdir(dir);
    free(dir);
    teardown(&s);
}

static void foreign_failures_named(void **state)
{
    (void)state;
    server s = setup();
    setenv("PERFLIB_REMOTE_TIMEOUT_MS", "700", 1);
    setenv("PERFLIB_REMOTE_MAX_BYTES", "1000000", 1);
    pl_remote *r;
    pl_error err;
    assert_int_equal(pl_remote_open(NULL, &r, &err), PL_OK);
    char t[64];
    snprintf(t, sizeof t, "127.0.0.1:%u", s.port);
    void *out;
    size_t len;
    uint32_t type;
    static const struct { const char *q; int rc; const char *msg; } cases[] = {
        {"garbage", PL_E_BAD_BLOCK, "malformed block"},
        {"short", PL_E_BAD_BLOCK, "malformed block"},
        {"big", PL_E_RANGE, "larger than max_bytes"},
        {"chunked", PL_E_RANGE, "larger than max_bytes"},
        {"auth", PL_E_AUTH, "HTTP 401: bad token"},
        {"fail500", PL_E_REMOTE, "HTTP 500: collector? broke badly"},
        {"nothing", PL_E_REMOTE, "HTTP 404"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = query(r, t, cases[i].q, &out, &len, &type, &err);
        if (rc != cases[i].rc || !strstr(err.msg, cases[i].msg) || !strstr(err.msg, t))
            fail_msg("%s: rc %d, \"%s\"", cases[i].q, rc, err.msg);
        assert_null(out);
    }
    /* a stalled machine costs the timeout, not more */
    int64_t t0 = now_ms();
    assert_int_equal(query(r, t, "stall", &out, &len, &type, &err), PL_E_REMOTE);
    int64_t took = now_ms() - t0;
    assert_non_null(strstr(err.msg, "timed out"));
    assert_true(took >= 600 && took < 2500);
    /* and the client still works afterwards */
    assert_int_equal(query(r, t, "ok", &out, &len, &type, &err), PL_OK);
    pl_free(out);
    /* refused */
    snprintf(t, sizeof t, "127.0.0.1:%u", closed_port());
    assert_int_equal(query(r, t, "ok", &out, &len, &type, &err), PL_E_REMOTE);
    assert_non_null(strstr(err.msg, "cannot connect"));
    pl_remote_close(r);
    teardown(&s);
}

/* Is a library whose file name contains `part` loaded in this process? */
static int has_part(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    return info->dlpi_name && strstr(info->dlpi_name, (const char *)data) != NULL;
}

static int loaded(const char *part)
{
    return dl_iterate_phdr(has_part, (void *)part);
}

/* libcurl (and the ~27 libraries it needs) is not loaded with libperflib,
 * nor by a client that never transfers (perfd opens one at start), only at
 * the first transfer: every tool's start-up and perfd's resident memory pay
 * for it otherwise (docs/benchmarks.md, "Start-up"). The query still
 * works. */
static void curl_loaded_on_first_use(void **state)
{
    (void)state;
    assert_false(loaded("libcurl"));
    assert_false(loaded("libgnutls"));
    server s = setup();
    assert_false(loaded("libcurl"));
    pl_remote *r;
    pl_error err;
    assert_int_equal(pl_remote_open(NULL, &r, &err), PL_OK);
    assert_false(loaded("libcurl"));
    char t[64];
    snprintf(t, sizeof t, "127.0.0.1:%u", s.port);
    void *out;
    size_t len;
    uint32_t type;
    assert_int_equal(query(r, t, "ok", &out, &len, &type, &err), PL_OK);
    pl_free(out);
    assert_true(loaded("libcurl"));
    pl_remote_close(r);
    teardown(&s);
}

/* What one connection to a listener of the test sends, read on a thread
 * while the client under test asks it (a stand-in for a hostile listener). */
typedef struct capture {
    int fd;
    char got[4096];
    size_t n;
} capture;

static void *capture_main(void *arg)
{
    capture *c = arg;
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    if (poll(&p, 1, 5000) <= 0) return NULL;
    int a = accept(c->fd, NULL, NULL);
    if (a < 0) return NULL;
    int64_t end = now_ms() + 1500;
    while (c->n < sizeof c->got - 1 && now_ms() < end) {
        struct pollfd q = {.fd = a, .events = POLLIN};
        if (poll(&q, 1, 200) <= 0) continue;
        ssize_t r = recv(a, c->got + c->n, sizeof c->got - 1 - c->n, 0);
        if (r <= 0) break;
        c->n += (size_t)r;
    }
    close(a); /* a TLS client gets no ServerHello: its handshake fails */
    return NULL;
}

static void foreign_token(void **state)
{
    (void)state;
    server s = setup();
    char dir[] = "/tmp/pl_remote_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char tokf[256], cfg[256];
    snprintf(tokf, sizeof tokf, "%s/token", dir);
    snprintf(cfg, sizeof cfg, "%s/remote.conf", dir);
    FILE *f = fopen(tokf, "w");
    fputs("  s3cret \r\nsecond line ignored\n", f);
    fclose(f);
    /* in clear to loopback only when the machine's own section says so */
    f = fopen(cfg, "w");
    fprintf(f, "[127.0.0.1]\ntls = off\ntoken_file = %s\n", tokf);
    fclose(f);
    pl_remote *r;
    pl_error err;
    assert_int_equal(pl_remote_open(cfg, &r, &err), PL_OK);
    char t[64];
    snprintf(t, sizeof t, "127.0.0.1:%u", s.port);
    void *out;
    size_t len;
    uint32_t type;
    assert_int_equal(query(r, t, "auth", &out, &len, &type, &err), PL_OK);
    pl_free(out);
    /* a wrong token */
    f = fopen(tokf, "w");
    fputs("wrong\n", f);
    fclose(f);
    assert_int_equal(query(r, t, "auth", &out, &len, &type, &err), PL_E_AUTH);
    /* a token that would break the header */
    f = fopen(tokf, "w");
    fputs("s3 cret\n", f);
    fclose(f);
    assert_int_equal(query(r, t, "auth", &out, &len, &type, &err), PL_E_PARSE);
    /* a missing token file is named */
    unlink(tokf);
    assert_int_equal(query(r, t, "auth", &out, &len, &type, &err), PL_E_IO);
    assert_non_null(strstr(err.msg, tokf));
    pl_remote_close(r);
    f = fopen(tokf, "w");
    fputs("s3cret\n", f);
    fclose(f);

    /* A machine with a token and tls = auto is asked over HTTPS, loopback
     * too: a plain listener on loopback sees a TLS handshake, never the
     * token (issue 23: a loopback target used to get it in clear). */
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(lfd, 4), 0);
    socklen_t al = sizeof a;
    getsockname(lfd, (struct sockaddr *)&a, &al);
    capture cap = {.fd = lfd};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, capture_main, &cap), 0);
    f = fopen(cfg, "w");
    fprintf(f, "connect_timeout_ms = 3000\ntimeout_ms = 3000\n[127.0.0.1:%u]\ntoken_file = %s\n", ntohs(a.sin_port),
            tokf);
    fclose(f);
    assert_int_equal(pl_remote_open(cfg, &r, &err), PL_OK);
    snprintf(t, sizeof t, "127.0.0.1:%u", ntohs(a.sin_port));
    int rc = query(r, t, "auth", &out, &len, &type, &err);
    pthread_join(th, NULL);
    close(lfd);
    pl_remote_close(r);
    assert_int_not_equal(rc, PL_OK);
    assert_true(cap.n > 5);
    assert_int_equal((unsigned char)cap.got[0], 0x16); /* a TLS record: handshake */
    assert_null(memmem(cap.got, cap.n, "s3cret", 6));
    assert_null(memmem(cap.got, cap.n, "Authorization", 13));
    /* tls = off for every machine is not "this machine's own section" */
    f = fopen(cfg, "w");
    fprintf(f, "tls = off\n[127.0.0.1]\ntoken_file = %s\n", tokf);
    fclose(f);
    assert_int_equal(pl_remote_open(cfg, &r, &err), PL_OK);
    snprintf(t, sizeof t, "127.0.0.1:%u", s.port);
    assert_int_equal(query(r, t, "auth", &out, &len, &type, &err), PL_E_INVAL);
    assert_non_null(strstr(err.msg, "without TLS"));
    pl_remote_close(r);
    /* a token outside any section is refused before anything is sent */
    f = fopen(cfg, "w");
    fprintf(f, "tls = off\ntoken_file = %s\n", tokf);
    fclose(f);
    assert_int_equal(pl_remote_open(cfg, &r, &err), PL_OK);
    assert_int_equal(query(r, t, "auth", &out, &len, &type, &err), PL_E_PARSE);
    assert_non_null(strstr(err.msg, "token_file must be inside"));
    pl_remote_close(r);
    /* never in clear to a host beyond loopback, even with its own tls = off:
     * refused before connecting */
    f = fopen(cfg, "w");
    fprintf(f, "[192.0.2.1:9]\ntls = off\ntoken_file = %s\n", tokf);
    fclose(f);
    assert_int_equal(pl_remote_open(cfg, &r, &err), PL_OK);
    int64_t t0 = now_ms();
    assert_int_equal(query(r, "192.0.2.1:9", "ok", &out, &len, &type, &err), PL_E_INVAL);
    assert_true(now_ms() - t0 < 500);
    assert_non_null(strstr(err.msg, "without TLS"));
    pl_remote_close(r);
    unlink(tokf);
    unlink(cfg);
    rmdir(dir);
    teardown(&s);
}

/* One machine failing does not spoil the engine for the others or for the
 * local machine; a Foreign query without a machine is a parse error. */
static void foreign_failure_is_that_machines(void **state)
{
    (void)state;
    server s = setup();
    pl_engine *e;
    pl_error err;
    assert_int_equal(pl_engine_open(NULL, &e, &err), PL_OK);
    void *out = NULL;
    size_t len;
    uint32_t type;
    char q[128];
    snprintf(q, sizeof q, "Foreign 127.0.0.1:%u garbage", s.port);
    assert_int_equal(pl_engine_query_alloc(e, q, &out, &len, &type, &err), PL_E_BAD_BLOCK);
    assert_null(out);
    assert_int_equal(pl_engine_query_alloc(e, "Foreign", &out, &len, &type, &err), PL_E_PARSE);
    assert_int_equal(pl_engine_query_alloc(e, "  foreign\t", &out, &len, &type, &err), PL_E_PARSE);
    assert_int_equal(pl_engine_query_alloc(e, "Foreign bad/host 238", &out, &len, &type, &err), PL_E_PARSE);
    snprintf(q, sizeof q, "Foreign 127.0.0.1:%u ok", s.port);
    assert_int_equal(pl_engine_query_alloc(e, q, &out, &len, &type, &err), PL_OK);
    pl_free(out);
    /* "Foreigner" is not Foreign: an unknown word, a header-only block */
    assert_int_equal(pl_engine_query_alloc(e, "Foreigner 238", &out, &len, &type, &err), PL_OK);
    pl_block blk;
    assert_int_equal(pl_block_open(&blk, out, len, 0, 0, NULL), PL_OK);
    assert_int_equal(blk.num_objects, 0);
    pl_free(out);
    pl_engine_close(e);
    teardown(&s);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(target_forms),
        cmocka_unit_test(settings_layers),
        cmocka_unit_test(settings_errors),
        cmocka_unit_test(settings_listed_only),
        cmocka_unit_test(foreign_block_as_sent),
        cmocka_unit_test(foreign_perfquery_raw),
        cmocka_unit_test(foreign_failures_named),
        cmocka_unit_test(curl_loaded_on_first_use),
        cmocka_unit_test(foreign_token),
        cmocka_unit_test(foreign_failure_is_that_machines),
    };
    return pl_test_run(tests, argc, argv);
}
