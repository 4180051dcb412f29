/* Foreign queries, PDH paths with a machine and typeperf -s against the real
 * perfd binary on 127.0.0.1 (an ephemeral port), plain and with TLS, bearer
 * tokens and client certificates (certificates made by make_certs.sh with
 * GnuTLS certtool). perfd runs with --system-name REMOTEB so that "the
 * remote machine's name in the header" is told apart from this machine's. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd_util.h"
#include "perflib/block.h"
#include "perflib/pdh.h"
#include "perflib/query.h"
#include "perflib/remote.h"
#include "pl_test.h"
#include "pq_run.h"

static char *dir;             /* certificates, token, store, client config */
static char store[600];

static void file_put(const char *name, const char *text, mode_t mode)
{
    char p[700];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    chmod(p, mode);
}

static const char *path_of(const char *name)
{
    static char p[4][700];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static void setup_dir(void)
{
    dir = pq_mkdtemp();
    assert_non_null(dir);
    snprintf(store, sizeof store, "%s/perflib.db", dir);
    setenv("PERFLIB_REGISTRY", store, 1);
    setenv("PERFLIB_REMOTE_CONFIG", "/dev/null", 1);
    const char *argv[] = {"/bin/sh", PL_SOURCE_DIR "/tests/remote/make_certs.sh", dir, "REMOTEB", "127.0.0.1", NULL};
    pq_result r;
    assert_int_equal(pq_run(argv, NULL, &r), 0);
    if (r.exit_code != 0) fail_msg("make_certs.sh (needs certtool, Debian gnutls-bin): %s", pq_result_transcript(&r));
    pq_result_free(&r);
    file_put("token", "0123456789abcdef-good\n", 0600);
    file_put("wrong", "0123456789abcdef-bad!\n", 0600);
}

static void done_dir(void)
{
    const char *argv[] = {"/bin/rm", "-rf", dir, NULL};
    pq_result r;
    if (pq_run(argv, NULL, &r) == 0) pq_result_free(&r);
    free(dir);
    dir = NULL;
}

static void start(pd_proc *pd, const char *const *extra)
{
    const char *args[32] = {"--registry", store, "--system-name", "REMOTEB"};
    size_t n = 4;
    while (extra && *extra && n < 30) args[n++] = *extra++;
    args[n] = NULL;
    assert_int_equal(pd_start(pd, args, NULL), 0);
}

/* A client configuration for perfd at 127.0.0.1:port: credentials are
 * bound to a machine's section (issue 23). */
static void conf_put(const char *name, unsigned port, const char *body)
{
    char text[2400];
    snprintf(text, sizeof text, "[127.0.0.1:%u]\n%s", port, body);
    file_put(name, text, 0600);
}

static int fetch(const char *cfg, unsigned port, const char *q, void **out, size_t *len, uint32_t *type, pl_error *err)
{
    pl_remote *r;
    assert_int_equal(pl_remote_open(cfg, &r, err), PL_OK);
    char t[64];
    snprintf(t, sizeof t, "127.0.0.1:%u", port);
    *out = NULL;
    int rc = pl_remote_query(r, t, q, out, len, type, err);
    pl_remote_close(r);
    return rc;
}

/* ------------------------------------------------------------- plain */

static void perfd_foreign_block(void **state)
{
    (void)state;
    setup_dir();
    pd_proc pd;
    start(&pd, NULL);
    pl_engine *e;
    pl_error err;
    assert_int_equal(pl_engine_open(NULL, &e, &err), PL_OK);
    char q[96];
    snprintf(q, sizeof q, "Foreign 127.0.0.1:%u 238", pd.port);
    void *out = NULL;
    size_t len = 0;
    uint32_t type = 0;
    if (pl_engine_query_alloc(e, q, &out, &len, &type, &err) != PL_OK) fail_msg("%s", err.msg);
    assert_int_equal(type, PL_REG_BINARY);
    pl_block blk;
    assert_int_equal(pl_block_open(&blk, out, len, 0, 0, &err), PL_OK);
    assert_string_equal(blk.system_name, "REMOTEB");
    pl_object o;
    assert_int_equal(pl_block_find_object(&blk, 238, &o), PL_OK);
    pl_free(out);
    /* the title database of that machine */
    snprintf(q, sizeof q, "Foreign 127.0.0.1:%u Counter 009", pd.port);
    assert_int_equal(pl_engine_query_alloc(e, q, &out, &len, &type, &err), PL_OK);
    assert_int_equal(type, PL_REG_MULTI_SZ);
    pl_free(out);
    pl_engine_close(e);
    /* perfquery --raw FILE "Foreign HOST:PORT 230" writes the remote block */
    char file[700];
    snprintf(file, sizeof file, "%s/230.blk", dir);
    snprintf(q, sizeof q, "Foreign 127.0.0.1:%u 230", pd.port);
    const char *argv[] = {PERFQUERY_BIN, "--raw", file, q, NULL};
    pq_result r;
    assert_int_equal(pq_run(argv, NULL, &r), 0);
    if (r.exit_code != 0) fail_msg("%s", pq_result_transcript(&r));
    pq_result_free(&r);
    char *got = pq_read_file(file, &len);
    assert_non_null(got);
    assert_int_equal(pl_block_open(&blk, got, len, 0, 0, &err), PL_OK);
    assert_string_equal(blk.system_name, "REMOTEB");
    assert_int_equal(pl_block_find_object(&blk, 230, &o), PL_OK);
    free(got);
    assert_int_equal(pd_stop(&pd), 0);
    done_dir();
}

/* ------------------------------------------------------------- TLS */

static void perfd_tls_and_token(void **state)
{
    (void)state;
    setup_dir();
    pd_proc pd;
    const char *extra[] = {"--tls-cert", path_of("srv.pem"), "--tls-key", path_of("srv.key"), "--token-file",
                           path_of("token"), NULL};
    start(&pd, extra);
    char cfg[2048];
    void *out;
    size_t len;
    uint32_t type;
    pl_error err;
    /* right CA, right token */
    snprintf(cfg, sizeof cfg, "tls = on\nca_file = %s\ntoken_file = %s\n", path_of("ca.pem"), path_of("token"));
    conf_put("good.conf", pd.port, cfg);
    if (fetch(path_of("good.conf"), pd.port, "238", &out, &len, &type, &err) != PL_OK) fail_msg("%s", err.msg);
    pl_block blk;
    assert_int_equal(pl_block_open(&blk, out, len, 0, 0, NULL), PL_OK);
    assert_string_equal(blk.system_name, "REMOTEB");
    pl_free(out);
    /* no token, a wrong one: 401 */
    snprintf(cfg, sizeof cfg, "tls = on\nca_file = %s\n", path_of("ca.pem"));
    conf_put("notoken.conf", pd.port, cfg);
    assert_int_equal(fetch(path_of("notoken.conf"), pd.port, "238", &out, &len, &type, &err), PL_E_AUTH);
    assert_non_null(strstr(err.msg, "HTTP 401"));
    snprintf(cfg, sizeof cfg, "tls = on\nca_file = %s\ntoken_file = %s\n", path_of("ca.pem"), path_of("wrong"));
    conf_put("wrong.conf", pd.port, cfg);
    assert_int_equal(fetch(path_of("wrong.conf"), pd.port, "238", &out, &len, &type, &err), PL_E_AUTH);
    assert_null(out);
    /* a CA that did not sign perfd's certificate */
    snprintf(cfg, sizeof cfg, "tls = on\nca_file = %s\ntoken_file = %s\n", path_of("other.pem"), path_of("token"));
    conf_put("other.conf", pd.port, cfg);
    assert_int_equal(fetch(path_of("other.conf"), pd.port, "238", &out, &len, &type, &err), PL_E_AUTH);
    assert_non_null(strstr(err.msg, "TLS"));
    /* plain HTTP to a TLS port: no answer, a remote failure */
    snprintf(cfg, sizeof cfg, "tls = off\n");
    conf_put("plain.conf", pd.port, cfg);
    assert_int_equal(fetch(path_of("plain.conf"), pd.port, "238", &out, &len, &type, &err), PL_E_REMOTE);
    assert_int_equal(pd_stop(&pd), 0);
    done_dir();
}

static void perfd_client_certificate(void **state)
{
    (void)state;
    setup_dir();
    pd_proc pd;
    const char *extra[] = {"--tls-cert", path_of("srv.pem"), "--tls-key", path_of("srv.key"), "--tls-client-ca",
                           path_of("ca.pem"), NULL};
    start(&pd, extra);
    char cfg[2048];
    void *out;
    size_t len;
    uint32_t type;
    pl_error err;
    snprintf(cfg, sizeof cfg, "tls = on\nca_file = %s\ncert_file = %s\nkey_file = %s\n", path_of("ca.pem"),
             path_of("cli.pem"), path_of("cli.key"));
    conf_put("mtls.conf", pd.port, cfg);
    if (fetch(path_of("mtls.conf"), pd.port, "238", &out, &len, &type, &err) != PL_OK) fail_msg("%s", err.msg);
    pl_free(out);
    snprintf(cfg, sizeof cfg, "tls = on\nca_file = %s\n", path_of("ca.pem"));
    conf_put("nocert.conf", pd.port, cfg);
    int rc = fetch(path_of("nocert.conf"), pd.port, "238", &out, &len, &type, &err);
    if (rc != PL_E_AUTH) fail_msg("without a client certificate: rc %d, %s", rc, err.msg);
    /* a client certificate file that cannot be loaded is named */
    snprintf(cfg, sizeof cfg, "tls = on\nca_file = %s\ncert_file = %s/missing.pem\n", path_of("ca.pem"), dir);
    conf_put("badcert.conf", pd.port, cfg);
    assert_int_equal(fetch(path_of("badcert.conf"), pd.port, "238", &out, &len, &type, &err), PL_E_AUTH);
    assert_int_equal(pd_stop(&pd), 0);
    done_dir();
}

/* ------------------------------------------------------- PDH, typeperf */

/* One query with this machine's counter and another machine's; when the
 * other machine goes away its counter says so and this machine's goes on. */
static void pdh_two_machines(void **state)
{
    (void)state;
    setup_dir();
    pd_proc pd;
    start(&pd, NULL);
    pl_engine *e;
    pl_error err;
    assert_int_equal(pl_engine_open(NULL, &e, &err), PL_OK);
    pl_pdh_source src;
    assert_int_equal(pl_pdh_engine_source(e, &src, &err), 0);
    pl_pdh_query *q;
    assert_int_equal(pl_pdh_open_query(&src, &q, &err), 0);
    char path[160];
    pl_pdh_counter *local, *remote, *dead;
    assert_int_equal(pl_pdh_add_counter(q, "\\System\\Processes", &local, &err), 0);
    snprintf(path, sizeof path, "\\\\127.0.0.1:%u\\System\\Processes", pd.port);
    if (pl_pdh_add_counter(q, path, &remote, &err) != 0) fail_msg("%s", err.msg);
    pl_pdh_counter_info info;
    assert_int_equal(pl_pdh_get_counter_info(remote, &info), 0);
    assert_string_equal(info.full_path, path);
    /* a machine that answers at first and then stops */
    pd_proc pd2;
    start(&pd2, NULL);
    unsigned port2 = pd2.port;
    snprintf(path, sizeof path, "\\\\127.0.0.1:%u\\System\\Processes", port2);
    assert_int_equal(pl_pdh_add_counter(q, path, &dead, &err), 0);
    assert_int_equal(pd_stop(&pd2), 0);
    assert_int_equal(pl_pdh_collect(q, &err), 0);
    pl_pdh_value v;
    assert_int_equal(pl_pdh_get_formatted(local, PL_PDH_FMT_LARGE, NULL, &v), 0);
    assert_true(v.v.large_value > 0);
    assert_int_equal(pl_pdh_get_formatted(remote, PL_PDH_FMT_LARGE, NULL, &v), 0);
    assert_true(v.v.large_value > 0);
    pl_pdh_raw raw;
    assert_int_not_equal(pl_pdh_get_raw(dead, NULL, &raw), 0);
    assert_int_equal(raw.cstatus, PL_PDH_CSTATUS_NO_MACHINE);
    /* the other machine stops: only its counter loses its data */
    assert_int_equal(pd_stop(&pd), 0);
    assert_int_equal(pl_pdh_collect(q, &err), 0);
    assert_int_equal(pl_pdh_get_formatted(local, PL_PDH_FMT_LARGE, NULL, &v), 0);
    assert_int_not_equal(pl_pdh_get_raw(remote, NULL, &raw), 0);
    assert_int_equal(raw.cstatus, PL_PDH_CSTATUS_NO_MACHINE);
    pl_pdh_close_query(q);
    /* a machine that never answered: the path is refused with its reason */
    assert_int_equal(pl_pdh_open_query(&src, &q, &err), 0);
    snprintf(path, sizeof path, "\\\\127.0.0.1:%u\\System\\Processes", port2);
    assert_int_equal(pl_pdh_add_counter(q, path, &dead, &err), PL_PDH_CSTATUS_NO_MACHINE);
    assert_non_null(strstr(err.msg, "cannot connect"));
    pl_pdh_close_query(q);
    pl_pdh_source_close(&src);
    pl_engine_close(e);
    done_dir();
}

static void typeperf_other_computer(void **state)
{
    (void)state;
    setup_dir();
    pd_proc pd;
    start(&pd, NULL);
    char computer[64], header[160];
    snprintf(computer, sizeof computer, "127.0.0.1:%u", pd.port);
    const char *argv[] = {TYPEPERF_BIN, "-s", computer, "\\System\\Processes", "-sc", "2", "-si", "1", NULL};
    pq_result r;
    assert_int_equal(pq_run(argv, NULL, &r), 0);
    if (r.exit_code != 0) fail_msg("%s", pq_result_transcript(&r));
    snprintf(header, sizeof header, "\"\\\\%s\\System\\Processes\"", computer);
    if (!strstr(r.out, header)) fail_msg("no %s in %s", header, r.out);
    pq_result_free(&r);
    /* the listing of that computer's counters */
    const char *argv2[] = {TYPEPERF_BIN, "-q", "System", "-s", computer, NULL};
    assert_int_equal(pq_run(argv2, NULL, &r), 0);
    if (r.exit_code != 0) fail_msg("%s", pq_result_transcript(&r));
    snprintf(header, sizeof header, "\\\\%s\\System\\Processes\r\n", computer);
    if (!strstr(r.out, header)) fail_msg("no %s in %s", header, r.out);
    pq_result_free(&r);
    assert_int_equal(pd_stop(&pd), 0);
    /* gone: typeperf names the computer and fails */
    assert_int_equal(pq_run(argv, NULL, &r), 0);
    assert_int_not_equal(r.exit_code, 0);
    assert_non_null(strstr(r.err, computer));
    pq_result_free(&r);
    done_dir();
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(perfd_foreign_block),
        cmocka_unit_test(perfd_tls_and_token),
        cmocka_unit_test(perfd_client_certificate),
        cmocka_unit_test(pdh_two_machines),
        cmocka_unit_test(typeperf_other_computer),
    };
    return pl_test_run(tests, argc, argv);
}
