/* perfd with TLS, bearer tokens and client certificates; the config file,
 * --check-config and SIGHUP. Certificates are made by certtool (Debian
 * gnutls-bin) in a temp directory; the client is libcurl. */
#include <curl/curl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pd_util.h"
#include "pl_test.h"
#include "pq_fixture.h"
#include "pq_run.h"

static pq_fixture fx;
static pd_proc pd;
static char dir[4096];

static void path(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", dir, name);
}

static int run_certtool(const char *const *args)
{
    const char *argv[32] = {CERTTOOL};
    size_t n = 1;
    for (size_t i = 0; args[i] && n < 31; i++) argv[n++] = args[i];
    argv[n] = NULL;
    pq_result r;
    if (pq_run(argv, NULL, &r) != 0) {
        fprintf(stderr, "cannot run %s (Debian gnutls-bin, scripts/deps.sh test)\n", CERTTOOL);
        return -1;
    }
    int rc = r.exit_code;
    if (rc) fprintf(stderr, "certtool failed:\n%s\n", r.err);
    pq_result_free(&r);
    return rc;
}

static int write_text(const char *name, const char *text, mode_t mode)
{
    char p[4200];
    path(p, sizeof p, name);
    if (pq_write_file(p, text, strlen(text)) != 0) return -1;
    return chmod(p, mode);
}

/* A key and a certificate `name`.pem signed by `ca` (NULL: self-signed CA). */
static int make_cert(const char *name, const char *tmpl, const char *ca)
{
    char key[4200], pem[4200], tp[4200], cakey[4200], capem[4200];
    char kn[64], tn[64];
    snprintf(kn, sizeof kn, "%s.key", name);
    snprintf(tn, sizeof tn, "%s.tmpl", name);
    path(key, sizeof key, kn);
    snprintf(kn, sizeof kn, "%s.pem", name);
    path(pem, sizeof pem, kn);
    path(tp, sizeof tp, tn);
    if (write_text(tn, tmpl, 0600) != 0) return -1;
    const char *gk[] = {"--generate-privkey", "--key-type=ecdsa", "--outfile", key, NULL};
    if (run_certtool(gk) != 0) return -1;
    if (!ca) {
        const char *ss[] = {"--generate-self-signed", "--load-privkey", key, "--template", tp, "--outfile", pem, NULL};
        return run_certtool(ss);
    }
    snprintf(kn, sizeof kn, "%s.key", ca);
    path(cakey, sizeof cakey, kn);
    snprintf(kn, sizeof kn, "%s.pem", ca);
    path(capem, sizeof capem, kn);
    const char *gc[] = {"--generate-certificate", "--load-privkey", key, "--load-ca-certificate", capem,
                        "--load-ca-privkey", cakey, "--template", tp, "--outfile", pem, NULL};
    return run_certtool(gc);
}

static const char ca_tmpl[] = "cn = perfd test CA\nca\ncert_signing_key\nexpiration_days = 2\n";
static const char server_tmpl[] = "cn = 127.0.0.1\nip_address = 127.0.0.1\ntls_www_server\nsigning_key\n"
                                  "encryption_key\nexpiration_days = 2\n";
static const char client_tmpl[] = "cn = perfd test client\ntls_www_client\nsigning_key\nexpiration_days = 2\n";

static int setup(void **state)
{
    (void)state;
    if (pq_fixture_make(&fx, PL_SOURCE_DIR "/tests/perfquery/pqtest.ini", PQ_TESTPROV_SO) != 0) return -1;
    snprintf(dir, sizeof dir, "%s", fx.dir);
    if (make_cert("ca", ca_tmpl, NULL) || make_cert("server", server_tmpl, "ca") ||
        make_cert("client", client_tmpl, "ca") || make_cert("rogue", ca_tmpl, NULL) ||
        make_cert("rogueclient", client_tmpl, "rogue"))
        return -1;
    return write_text("tokens", "# perfd test tokens\ntoken-aaaaaaaaaaaaaaaa\n", 0600);
}

static int teardown(void **state)
{
    (void)state;
    if (pd.pid > 0) pd_stop(&pd);
    pq_fixture_done(&fx);
    return 0;
}

typedef struct https_resp {
    long status;      /* 0: no HTTP answer */
    CURLcode code;
    char serial[128]; /* the server certificate's serial number */
    size_t body_len;
} https_resp;

static size_t on_body(char *p, size_t sz, size_t n, void *cls)
{
    (void)p;
    *(size_t *)cls += sz * n;
    return sz * n;
}

/* GET https://127.0.0.1:port/path trusting ca.pem, with an optional client
 * certificate (name) and bearer token. */
static void https_get(const char *urlpath, const char *client, const char *token, https_resp *out)
{
    memset(out, 0, sizeof *out);
    char url[256], ca[4200], cert[4200], key[4200], auth[256];
    snprintf(url, sizeof url, "https://127.0.0.1:%u%s", pd.port, urlpath);
    path(ca, sizeof ca, "ca.pem");
    CURL *c = curl_easy_init();
    assert_non_null(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CAINFO, ca);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 10000L);
    curl_easy_setopt(c, CURLOPT_CERTINFO, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &out->body_len);
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    if (client) {
        char n[64];
        snprintf(n, sizeof n, "%s.pem", client);
        path(cert, sizeof cert, n);
        snprintf(n, sizeof n, "%s.key", client);
        path(key, sizeof key, n);
        curl_easy_setopt(c, CURLOPT_SSLCERT, cert);
        curl_easy_setopt(c, CURLOPT_SSLKEY, key);
    }
    struct curl_slist *h = NULL;
    if (token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        h = curl_slist_append(h, auth);
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    }
    out->code = curl_easy_perform(c);
    if (out->code == CURLE_OK) {
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out->status);
        struct curl_certinfo *ci = NULL;
        if (curl_easy_getinfo(c, CURLINFO_CERTINFO, &ci) == CURLE_OK && ci && ci->num_of_certs > 0) {
            for (struct curl_slist *s = ci->certinfo[0]; s; s = s->next)
                if (strncmp(s->data, "Serial Number:", 14) == 0) snprintf(out->serial, sizeof out->serial, "%s", s->data + 14);
        }
    }
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
}

static void start_tls(const char *const *extra)
{
    char cert[4200], key[4200];
    path(cert, sizeof cert, "server.pem");
    path(key, sizeof key, "server.key");
    const char *args[32] = {"--registry", fx.store, "--system-name", "TESTBOX", "--tls-cert", cert, "--tls-key", key};
    size_t n = 8;
    for (size_t i = 0; extra[i] && n < 30; i++) args[n++] = extra[i];
    args[n] = NULL;
    assert_int_equal(pd_start(&pd, args, NULL), 0);
}

static void stop_clean(void)
{
    assert_int_equal(pd_stop(&pd), 0);
}

static void token_accepted_and_refused(void **state)
{
    (void)state;
    char tokens[4200];
    path(tokens, sizeof tokens, "tokens");
    const char *extra[] = {"--token-file", tokens, NULL};
    start_tls(extra);
    https_resp r;
    https_get("/v1/query?q=Global", NULL, "token-aaaaaaaaaaaaaaaa", &r);
    assert_int_equal(r.code, CURLE_OK);
    assert_int_equal(r.status, 200);
    assert_true(r.body_len > 88);
    https_get("/v1/query?q=Global", NULL, NULL, &r);
    assert_int_equal(r.status, 401);
    https_get("/v1/query?q=Global", NULL, "token-aaaaaaaaaaaaaaab", &r);
    assert_int_equal(r.status, 401);
    https_get("/v1/query?q=Global", NULL, "token-aaaaaaaaaaaaaaa", &r); /* a prefix */
    assert_int_equal(r.status, 401);
    https_get("/v1/json", NULL, "token-aaaaaaaaaaaaaaaa", &r);
    assert_int_equal(r.status, 200);
    https_get("/healthz", NULL, NULL, &r); /* never needs authentication */
    assert_int_equal(r.status, 200);
    https_get("/nope", NULL, NULL, &r); /* authentication before the 405/404 detail? 404 is fine */
    assert_true(r.status == 404 || r.status == 401);
    /* Plain HTTP on the TLS port gets no HTTP answer. */
    pd_resp p;
    pd_get(pd.port, "/healthz", "", &p, 3000);
    assert_true(p.status != 200);
    pd_resp_free(&p);
    char *log = pd_log(&pd);
    assert_non_null(strstr(log, "401 127.0.0.1 GET /v1/query: a bearer token is required"));
    assert_non_null(strstr(log, "401 127.0.0.1 GET /v1/query: wrong bearer token"));
    assert_null(strstr(log, "token-aaaa")); /* tokens never reach the log */
    free(log);
    stop_clean();
}

static void client_certificates(void **state)
{
    (void)state;
    char ca[4200];
    path(ca, sizeof ca, "ca.pem");
    const char *extra[] = {"--tls-client-ca", ca, NULL};
    start_tls(extra);
    https_resp r;
    https_get("/v1/query?q=Global", "client", NULL, &r);
    assert_int_equal(r.code, CURLE_OK);
    assert_int_equal(r.status, 200);
    https_get("/v1/query?q=Global", NULL, NULL, &r);
    assert_int_equal(r.status, 403);
    https_get("/v1/query?q=Global", "rogueclient", NULL, &r);
    assert_int_equal(r.status, 403);
    /* The server's own certificate is not a client certificate. */
    https_get("/v1/query?q=Global", "server", NULL, &r);
    assert_int_equal(r.status, 403);
    char *log = pd_log(&pd);
    assert_non_null(strstr(log, "403 127.0.0.1 GET /v1/query: a client certificate is required"));
    assert_non_null(strstr(log, "403 127.0.0.1 GET /v1/query: client certificate not trusted"));
    free(log);
    stop_clean();
}

static void wait_log(const char *what)
{
    for (int i = 0; i < 200; i++) { /* at most 10 s */
        char *log = pd_log(&pd);
        int found = strstr(log, what) != NULL;
        free(log);
        if (found) return;
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    fail_msg("perfd did not log \"%s\" within 10 s", what);
}

/* SIGHUP: new tokens and a new certificate without a restart; a broken
 * token file keeps the previous ones. */
static void sighup_reloads(void **state)
{
    (void)state;
    char tokens[4200];
    path(tokens, sizeof tokens, "tokens");
    const char *extra[] = {"--token-file", tokens, NULL};
    start_tls(extra);
    https_resp r;
    https_get("/v1/query", NULL, "token-aaaaaaaaaaaaaaaa", &r);
    assert_int_equal(r.status, 200);
    char serial1[128];
    snprintf(serial1, sizeof serial1, "%s", r.serial);
    assert_true(serial1[0] != 0);

    assert_int_equal(write_text("tokens", "token-bbbbbbbbbbbbbbbb\n", 0600), 0);
    assert_int_equal(make_cert("server", server_tmpl, "ca"), 0); /* a new key and serial */
    kill(pd.pid, SIGHUP);
    wait_log("SIGHUP: certificates and tokens reloaded");
    https_get("/v1/query", NULL, "token-aaaaaaaaaaaaaaaa", &r);
    assert_int_equal(r.status, 401);
    https_get("/v1/query", NULL, "token-bbbbbbbbbbbbbbbb", &r);
    assert_int_equal(r.status, 200);
    assert_true(r.serial[0] != 0);
    assert_string_not_equal(r.serial, serial1);

    /* A token file others can read is refused; the previous tokens stay. */
    assert_int_equal(write_text("tokens", "token-cccccccccccccccc\n", 0644), 0);
    kill(pd.pid, SIGHUP);
    wait_log("SIGHUP: reload failed, keeping the previous ones");
    https_get("/v1/query", NULL, "token-bbbbbbbbbbbbbbbb", &r);
    assert_int_equal(r.status, 200);
    https_get("/v1/query", NULL, "token-cccccccccccccccc", &r);
    assert_int_equal(r.status, 401);
    stop_clean();
}

/* The number of times `what` is in perfd's log. */
static int log_count(const char *what)
{
    char *log = pd_log(&pd);
    int n = 0;
    for (const char *p = strstr(log, what); p; p = strstr(p + 1, what)) n++;
    free(log);
    return n;
}

/* Send SIGHUP and wait (at most 10 s) for the reload it causes to be
 * logged: the n-th "reloaded" line. */
static void reload(int n)
{
    kill(pd.pid, SIGHUP);
    for (int i = 0; i < 200 && log_count("SIGHUP: certificates and tokens reloaded") < n; i++) {
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    assert_int_equal(log_count("SIGHUP: certificates and tokens reloaded"), n);
}

static long status_with(const char *token)
{
    https_resp r;
    https_get("/v1/query", NULL, token, &r);
    assert_int_equal(r.code, CURLE_OK);
    return r.status;
}

/* Every token of a token file is accepted, not only the first (comments,
 * blank lines, CR LF, spaces around, no final newline), and keys rotate
 * through SIGHUP: old and new together for a while, then the new alone.
 * Two near misses are refused: tokens whose SHA-256 digests share the
 * first three and the last three bytes with a configured one's (found by
 * search: sha256("token-1111111111111111") = 2318cd...9add3f,
 * sha256("token-near-0032996778") = 2318cd..., sha256("token-near-0059975142")
 * = ...9add3f), so a comparison of part of the digest lets one in. */
static void every_token_accepted_and_keys_rotate(void **state)
{
    (void)state;
    assert_int_equal(write_text("tokens",
                                "# three keys\n\n  token-1111111111111111  \r\ntoken-2222222222222222\n"
                                "# the newest\n\ttoken-3333333333333333",
                                0600),
                     0);
    char tokens[4200];
    path(tokens, sizeof tokens, "tokens");
    const char *extra[] = {"--token-file", tokens, NULL};
    start_tls(extra);
    assert_int_equal(status_with("token-1111111111111111"), 200);
    assert_int_equal(status_with("token-2222222222222222"), 200);
    assert_int_equal(status_with("token-3333333333333333"), 200);
    assert_int_equal(status_with("token-4444444444444444"), 401);
    assert_int_equal(status_with("token-near-0032996778"), 401);
    assert_int_equal(status_with("token-near-0059975142"), 401);
    assert_int_equal(status_with("# three keys"), 401);

    /* rotation: the newest old key and a new one, together */
    assert_int_equal(write_text("tokens", "token-3333333333333333\ntoken-4444444444444444\n", 0600), 0);
    reload(1);
    assert_int_equal(status_with("token-1111111111111111"), 401);
    assert_int_equal(status_with("token-2222222222222222"), 401);
    assert_int_equal(status_with("token-3333333333333333"), 200);
    assert_int_equal(status_with("token-4444444444444444"), 200);
    /* then the new one alone */
    assert_int_equal(write_text("tokens", "token-4444444444444444\n", 0600), 0);
    reload(2);
    assert_int_equal(status_with("token-3333333333333333"), 401);
    assert_int_equal(status_with("token-4444444444444444"), 200);
    stop_clean();
}

static int check_config(const char *const *args, char **err)
{
    return pd_run(args, err, 10000);
}

/* Issue 23 finding 5: a certificate with the wrong key, out of its dates or
 * not for a TLS server is refused by --check-config and at start with the
 * reason, and on SIGHUP the previous one stays (the log says why). Finding
 * 7: a token file open to the group, or a directory, is refused by name. */
static void certificate_checked_at_load(void **state)
{
    (void)state;
    static const char expired_tmpl[] = "cn = 127.0.0.1\nip_address = 127.0.0.1\ntls_www_server\nsigning_key\n"
                                       "activation_date = \"2020-01-01 00:00:00\"\n"
                                       "expiration_date = \"2020-01-02 00:00:00\"\n";
    static const char future_tmpl[] = "cn = 127.0.0.1\nip_address = 127.0.0.1\ntls_www_server\nsigning_key\n"
                                      "activation_date = \"2099-01-01 00:00:00\"\n"
                                      "expiration_date = \"2099-01-02 00:00:00\"\n";
    assert_int_equal(make_cert("expired", expired_tmpl, "ca"), 0);
    assert_int_equal(make_cert("future", future_tmpl, "ca"), 0);
    char srv[4200], srvkey[4200], clikey[4200], cli[4200], exp[4200], expkey[4200], fut[4200], futkey[4200];
    path(srv, sizeof srv, "server.pem");
    path(srvkey, sizeof srvkey, "server.key");
    path(cli, sizeof cli, "client.pem");
    path(clikey, sizeof clikey, "client.key");
    path(exp, sizeof exp, "expired.pem");
    path(expkey, sizeof expkey, "expired.key");
    path(fut, sizeof fut, "future.pem");
    path(futkey, sizeof futkey, "future.key");
    static const struct { int cert, key; const char *why; } bad[] = {
        {0, 1, "the certificate is not for the key"},
        {2, 2, "the certificate expired on 2020-01-02 00:00:00 UTC"},
        {3, 3, "the certificate is not valid before 2099-01-01 00:00:00 UTC"},
        {1, 1, "does not include TLS server authentication"},
    };
    const char *files[][2] = {{srv, srvkey}, {cli, clikey}, {exp, expkey}, {fut, futkey}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *cert = files[bad[i].cert][0], *key = files[bad[i].key][1];
        const char *chk[] = {"--registry", fx.store, "--tls-cert", cert, "--tls-key", key, "--check-config", NULL};
        char *err = NULL;
        assert_int_equal(check_config(chk, &err), 2);
        if (!strstr(err, bad[i].why)) fail_msg("--check-config: \"%s\", expected \"%s\"", err, bad[i].why);
        free(err);
        /* and at start: exit 2 with the same reason */
        const char *run[] = {"--registry", fx.store, "--listen", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", key,
                             NULL};
        assert_int_equal(pd_run(run, &err, 10000), 2);
        assert_non_null(strstr(err, bad[i].why));
        free(err);
    }
    /* token files */
    char tok[4200], tdir[4200];
    path(tok, sizeof tok, "tokens");
    path(tdir, sizeof tdir, "tokdir");
    assert_int_equal(mkdir(tdir, 0700), 0);
    const char *chk_dir[] = {"--registry", fx.store, "--token-file", tdir, "--check-config", NULL};
    char *err = NULL;
    assert_int_equal(check_config(chk_dir, &err), 2);
    assert_non_null(strstr(err, "not a regular file (a directory)"));
    free(err);
    assert_int_equal(chmod(tok, 0640), 0);
    const char *chk_tok[] = {"--registry", fx.store, "--token-file", tok, "--check-config", NULL};
    assert_int_equal(check_config(chk_tok, &err), 2);
    assert_non_null(strstr(err, "open to other users (mode 0640; chmod 600)"));
    free(err);
    assert_int_equal(chmod(tok, 0600), 0);
    assert_int_equal(check_config(chk_tok, &err), 0);
    free(err);

    /* SIGHUP with an expired certificate in place: the old one stays */
    const char *none[] = {NULL};
    start_tls(none);
    https_resp r;
    https_get("/v1/query", NULL, NULL, &r);
    assert_int_equal(r.status, 200);
    char serial1[128];
    snprintf(serial1, sizeof serial1, "%s", r.serial);
    char *pem = pq_read_file(exp, &(size_t){0}), *k = pq_read_file(expkey, &(size_t){0});
    assert_non_null(pem);
    assert_non_null(k);
    assert_int_equal(write_text("server.pem", pem, 0600), 0);
    assert_int_equal(write_text("server.key", k, 0600), 0);
    free(pem);
    free(k);
    kill(pd.pid, SIGHUP);
    wait_log("SIGHUP: reload failed, keeping the previous ones");
    wait_log("the certificate expired on 2020-01-02");
    https_get("/v1/query", NULL, NULL, &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.serial, serial1);
    stop_clean();
    assert_int_equal(make_cert("server", server_tmpl, "ca"), 0); /* for the cases after */
}

/* --check-config and the config file. */
static void config_file_and_check(void **state)
{
    (void)state;
    char conf[4200], cert[4200], key[4200], tokens[4200], text[20000];
    path(conf, sizeof conf, "perfd.conf");
    path(cert, sizeof cert, "server.pem");
    path(key, sizeof key, "server.key");
    path(tokens, sizeof tokens, "tokens");
    snprintf(text, sizeof text,
             "# a public listener with everything it needs\nlisten = 0.0.0.0:9730\nlisten = [::]:9730\n"
             "tls_cert = %s\ntls_key = %s\ntoken_file = %s\nmax_connections = 32\nidle_timeout = 5\n",
             cert, key, tokens);
    assert_int_equal(write_text("perfd.conf", text, 0600), 0);
    char *err = NULL;
    const char *ok[] = {"--config", conf, "--check-config", NULL};
    assert_int_equal(check_config(ok, &err), 0);
    assert_non_null(strstr(err, "perfd: configuration OK (2 listen addresses, TLS on, tokens on"));
    free(err);

    /* TLS but no authentication: refused, naming what is missing. */
    snprintf(text, sizeof text, "listen = 0.0.0.0:9730\ntls_cert = %s\ntls_key = %s\n", cert, key);
    assert_int_equal(write_text("perfd.conf", text, 0600), 0);
    assert_int_equal(check_config(ok, &err), 2);
    assert_non_null(strstr(err, "missing: authentication"));
    free(err);

    /* Unknown key, bad number, missing file: file:line and the reason. */
    assert_int_equal(write_text("perfd.conf", "idle_timeout = 5\nmax_conections = 3\n", 0600), 0);
    assert_int_equal(check_config(ok, &err), 2);
    assert_non_null(strstr(err, "perfd.conf:2: unknown key \"max_conections\""));
    free(err);
    assert_int_equal(write_text("perfd.conf", "idle_timeout = -1\n", 0600), 0);
    assert_int_equal(check_config(ok, &err), 2);
    assert_non_null(strstr(err, "perfd.conf:1: idle_timeout: expected a whole number from 1 to 3600"));
    free(err);
    snprintf(text, sizeof text, "tls_cert = %s/nope.pem\ntls_key = %s\n", dir, key);
    assert_int_equal(write_text("perfd.conf", text, 0600), 0);
    assert_int_equal(check_config(ok, &err), 2);
    assert_non_null(strstr(err, "nope.pem: No such file or directory"));
    free(err);
    /* A key that does not parse. */
    snprintf(text, sizeof text, "tls_cert = %s\ntls_key = %s\n", cert, tokens);
    assert_int_equal(write_text("perfd.conf", text, 0600), 0);
    assert_int_equal(check_config(ok, &err), 2);
    free(err);
    const char *missing[] = {"--config", "/nonexistent/perfd.conf", "--check-config", NULL};
    assert_int_equal(check_config(missing, &err), 2);
    assert_non_null(strstr(err, "/nonexistent/perfd.conf: No such file or directory"));
    free(err);
    /* The command line wins over the file. */
    assert_int_equal(write_text("perfd.conf", "listen = 0.0.0.0:1\n", 0600), 0);
    const char *cli[] = {"--config", conf, "--listen", "127.0.0.1:0", "--check-config", NULL};
    assert_int_equal(check_config(cli, &err), 0);
    free(err);
}

/* The default config file installed with perfd passes --check-config. */
static void installed_config_is_valid(void **state)
{
    (void)state;
    char *err = NULL;
    const char *args[] = {"--config", PL_SOURCE_DIR "/tools/perfd/perfd.conf", "--check-config", NULL};
    assert_int_equal(check_config(args, &err), 0);
    free(err);
}

int main(int argc, char **argv)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(certificate_checked_at_load, setup, teardown),
        cmocka_unit_test_setup_teardown(token_accepted_and_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(client_certificates, setup, teardown),
        cmocka_unit_test_setup_teardown(sighup_reloads, setup, teardown),
        cmocka_unit_test_setup_teardown(every_token_accepted_and_keys_rotate, setup, teardown),
        cmocka_unit_test_setup_teardown(config_file_and_check, setup, teardown),
        cmocka_unit_test(installed_config_is_valid),
    };
    int rc = pl_test_run(tests, argc, argv);
    curl_global_cleanup();
    return rc;
}
