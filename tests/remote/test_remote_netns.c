/* Two hosts: network namespaces A and B made by this test (names with the
 * pid), joined by a veth pair with addresses from 10.231.0.0/30 that exist
 * only inside them. perfd runs in B on its veth address and the default
 * port (9730), which perfd allows only with TLS and a bearer token, and
 * calls itself HOSTB. From A, the client configuration maps the name HOSTB
 * to B's address (the certificate is for that name), and:
 *   - perfquery --raw FILE "Foreign HOSTB 230" writes B's block, named HOSTB;
 *   - a Foreign query for Network Interface returns B's interfaces (its end
 *     of the veth), not A's: the data are B's, not a copy of A's;
 *   - typeperf "\\HOSTB\System\Processes" samples B.
 * Both namespaces (and the veth with them) are removed whatever happens.
 * Needs root and iproute2 (`ip`); without them the test fails and says so. */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perflib/block.h"
#include "pl_test.h"
#include "pq_run.h"

static char ns_a[32], ns_b[32], veth_a[16], veth_b[16];
static char *dir;
static pid_t perfd_pid;

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    char full[2200];
    snprintf(full, sizeof full, "PATH=\"$PATH:/usr/sbin:/sbin\"; %s", cmd);
    int st = system(full);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void cleanup(void)
{
    if (perfd_pid > 0) {
        kill(perfd_pid, SIGTERM);
        for (int i = 0; i < 100 && waitpid(perfd_pid, NULL, WNOHANG) == 0; i++) usleep(50000);
        kill(perfd_pid, SIGKILL);
        waitpid(perfd_pid, NULL, WNOHANG);
        perfd_pid = 0;
    }
    if (ns_a[0]) sh("ip netns del %s 2>/dev/null", ns_a);
    if (ns_b[0]) sh("ip netns del %s 2>/dev/null", ns_b);
    ns_a[0] = ns_b[0] = '\0';
    if (dir) {
        sh("rm -rf '%s'", dir);
        free(dir);
        dir = NULL;
    }
}

static int teardown(void **state)
{
    (void)state;
    cleanup();
    return 0;
}

static void make_hosts(void)
{
    if (geteuid() != 0) fail_msg("two-host test: needs root to create network namespaces (run the suite as root)");
    if (sh("command -v ip >/dev/null") != 0) fail_msg("two-host test: needs `ip` (Debian iproute2)");
    int pid = (int)getpid();
    snprintf(ns_a, sizeof ns_a, "plremA%d", pid);
    snprintf(ns_b, sizeof ns_b, "plremB%d", pid);
    snprintf(veth_a, sizeof veth_a, "plva%d", pid % 10000000);
    snprintf(veth_b, sizeof veth_b, "plvb%d", pid % 10000000);
    atexit(cleanup); /* also when an assertion ends the case early */
    if (sh("ip netns add %s && ip netns add %s", ns_a, ns_b) != 0) fail_msg("ip netns add failed");
    if (sh("ip link add %s type veth peer name %s && ip link set %s netns %s && ip link set %s netns %s", veth_a,
           veth_b, veth_a, ns_a, veth_b, ns_b) != 0)
        fail_msg("veth pair failed");
    if (sh("ip -n %s addr add 10.231.0.1/30 dev %s && ip -n %s link set %s up && ip -n %s link set lo up", ns_a, veth_a,
           ns_a, veth_a, ns_a) != 0 ||
        sh("ip -n %s addr add 10.231.0.2/30 dev %s && ip -n %s link set %s up && ip -n %s link set lo up", ns_b, veth_b,
           ns_b, veth_b, ns_b) != 0)
        fail_msg("addresses failed");
}

static void put(const char *name, const char *text, mode_t mode)
{
    char p[700];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    chmod(p, mode);
}

/* perfd in B, on B's address and the default port, TLS and token. */
static void start_perfd_in_b(const char *store)
{
    char log[700], cert[700], key[700], tok[700];
    snprintf(log, sizeof log, "%s/perfd.log", dir);
    snprintf(cert, sizeof cert, "%s/srv.pem", dir);
    snprintf(key, sizeof key, "%s/srv.key", dir);
    snprintf(tok, sizeof tok, "%s/token", dir);
    perfd_pid = fork();
    assert_true(perfd_pid >= 0);
    if (perfd_pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 2);
            dup2(fd, 1);
        }
        execlp("ip", "ip", "netns", "exec", ns_b, PERFD_BIN, "--listen", "10.231.0.2", "--registry", store,
               "--system-name", "HOSTB", "--tls-cert", cert, "--tls-key", key, "--token-file", tok, (char *)NULL);
        execl("/usr/sbin/ip", "ip", "netns", "exec", ns_b, PERFD_BIN, "--listen", "10.231.0.2", "--registry", store,
              "--system-name", "HOSTB", "--tls-cert", cert, "--tls-key", key, "--token-file", tok, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 150; i++) { /* at most 15 s */
        size_t n = 0;
        char *text = pq_read_file(log, &n);
        int ready = text && strstr(text, "perfd: ready");
        if (text && !ready && waitpid(perfd_pid, NULL, WNOHANG) == perfd_pid) {
            perfd_pid = 0;
            fail_msg("perfd in %s exited: %s", ns_b, text);
        }
        free(text);
        if (ready) return;
        usleep(100000);
    }
    fail_msg("perfd in %s did not become ready within 15 s", ns_b);
}

static pq_result in_a(const char *const *cmd)
{
    const char *argv[16] = {"ip", "netns", "exec", ns_a};
    size_t n = 4;
    while (*cmd && n < 15) argv[n++] = *cmd++;
    argv[n] = NULL;
    if (access("/usr/sbin/ip", X_OK) == 0) argv[0] = "/usr/sbin/ip";
    else if (access("/sbin/ip", X_OK) == 0) argv[0] = "/sbin/ip";
    else if (access("/usr/bin/ip", X_OK) == 0) argv[0] = "/usr/bin/ip";
    pq_result r;
    assert_int_equal(pq_run(argv, NULL, &r), 0);
    return r;
}

static void two_hosts_foreign_and_typeperf(void **state)
{
    (void)state;
    make_hosts();
    dir = pq_mkdtemp();
    assert_non_null(dir);
    char store[700];
    snprintf(store, sizeof store, "%s/perflib.db", dir);
    setenv("PERFLIB_REGISTRY", store, 1);
    const char *mk[] = {"/bin/sh", PL_SOURCE_DIR "/tests/remote/make_certs.sh", dir, "HOSTB", "10.231.0.2", NULL};
    pq_result r;
    assert_int_equal(pq_run(mk, NULL, &r), 0);
    if (r.exit_code != 0) fail_msg("make_certs.sh (needs certtool, Debian gnutls-bin): %s", pq_result_transcript(&r));
    pq_result_free(&r);
    put("token", "two-hosts-token-0123456789\n", 0600);
    char conf[2048];
    snprintf(conf, sizeof conf,
             "# host A's client configuration\n"
             "ca_file = %s/ca.pem\n"
             "timeout_ms = 8000\n"
             "[HOSTB]\n"
             "address = 10.231.0.2\n"
             "token_file = %s/token\n",
             dir, dir);
    put("remote.conf", conf, 0600);
    char confp[700];
    snprintf(confp, sizeof confp, "%s/remote.conf", dir);
    setenv("PERFLIB_REMOTE_CONFIG", confp, 1);
    start_perfd_in_b(store);

    /* the addresses exist only inside the two namespaces */
    assert_int_not_equal(sh("ip -o addr show | grep -q ' 10\\.231\\.0\\.'"), 0);
    assert_int_equal(sh("ip -n %s -o addr show | grep -q ' 10\\.231\\.0\\.2/'", ns_b), 0);

    /* Foreign from A: B's block with B's system name */
    char file[700];
    snprintf(file, sizeof file, "%s/230.blk", dir);
    const char *raw[] = {PERFQUERY_BIN, "--raw", file, "Foreign HOSTB 230", NULL};
    r = in_a(raw);
    if (r.exit_code != 0) fail_msg("%s", pq_result_transcript(&r));
    pq_result_free(&r);
    size_t len = 0;
    char *blk_data = pq_read_file(file, &len);
    assert_non_null(blk_data);
    pl_block blk;
    pl_object o;
    pl_error err;
    assert_int_equal(pl_block_open(&blk, blk_data, len, 0, 0, &err), PL_OK);
    assert_string_equal(blk.system_name, "HOSTB");
    assert_int_equal(pl_block_find_object(&blk, 230, &o), PL_OK);
    free(blk_data);

    /* B's own data: its network interfaces are B's veth end, not A's */
    snprintf(file, sizeof file, "%s/net.blk", dir);
    const char *rawnet[] = {PERFQUERY_BIN, "--raw", file, "Foreign HOSTB 510", NULL};
    r = in_a(rawnet);
    if (r.exit_code != 0) fail_msg("%s", pq_result_transcript(&r));
    pq_result_free(&r);
    blk_data = pq_read_file(file, &len);
    assert_non_null(blk_data);
    assert_int_equal(pl_block_open(&blk, blk_data, len, 0, 0, &err), PL_OK);
    assert_string_equal(blk.system_name, "HOSTB");
    if (pl_block_find_object(&blk, 510, &o) == PL_OK) {
        int saw_b = 0, saw_a = 0;
        pl_instance in;
        for (int rc = pl_object_instance(&o, 0, &in); rc == PL_OK; rc = pl_instance_next(&in, &in)) {
            char name[256];
            pl_instance_name(&in, name, sizeof name);
            saw_b |= strcmp(name, veth_b) == 0;
            saw_a |= strcmp(name, veth_a) == 0;
        }
        assert_true(saw_b);
        assert_false(saw_a);
    } else {
        fail_msg("B's answer has no Network Interface object (510)");
    }
    free(blk_data);

    /* typeperf in A with a \\HOSTB\... path: B's data, B's name */
    const char *tp[] = {TYPEPERF_BIN, "\\\\HOSTB\\System\\Processes", "-sc", "1", NULL};
    r = in_a(tp);
    if (r.exit_code != 0) fail_msg("%s", pq_result_transcript(&r));
    if (!strstr(r.out, "\"\\\\HOSTB\\System\\Processes\"")) fail_msg("typeperf output: %s", r.out);
    pq_result_free(&r);
    /* and typeperf -s HOSTB */
    const char *tps[] = {TYPEPERF_BIN, "-s", "HOSTB", "\\Processor(_Total)\\% Processor Time", "-sc", "2", "-si", "1",
                         NULL};
    r = in_a(tps);
    if (r.exit_code != 0) fail_msg("%s", pq_result_transcript(&r));
    if (!strstr(r.out, "\\\\HOSTB\\Processor(_Total)\\% Processor Time")) fail_msg("typeperf output: %s", r.out);
    pq_result_free(&r);

    /* without the token, B refuses; the error names the machine */
    snprintf(conf, sizeof conf, "ca_file = %s/ca.pem\n[HOSTB]\naddress = 10.231.0.2\n", dir);
    put("remote.conf", conf, 0600);
    const char *noauth[] = {PERFQUERY_BIN, "--raw", file, "Foreign HOSTB 230", NULL};
    r = in_a(noauth);
    assert_int_not_equal(r.exit_code, 0);
    if (!strstr(r.err, "HOSTB") || !strstr(r.err, "401")) fail_msg("%s", pq_result_transcript(&r));
    pq_result_free(&r);
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(two_hosts_foreign_and_typeperf, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
