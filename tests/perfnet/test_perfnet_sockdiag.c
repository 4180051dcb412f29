/* Tests of the NETLINK_SOCK_DIAG connection counter (TCPv4/TCPv6
 * Connections Established): the reply parser over hand-built and hostile
 * bytes, and the live kernel in a private network namespace against ss and
 * against the provider, with /proc/net/tcp{,6} masked so only netlink can
 * give the answer. */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/inet_diag.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <linux/sock_diag.h>

#include "net_live.h"
#include "nl_build.h"
#include "pl_test.h"
#include "provider_harness.h"
#include "linux/collect_io.h"
#include "perflib/block.h"
#include "perflib/indices.h"

/* ------------------------------------------------ building reply bytes */

/* One socket message; dst is the remote address's four 32-bit words in
 * network order (an IPv4 address in dst[0]). */
static void sock_t(struct nb *n, uint16_t type, uint32_t seq, int family, int state, const uint32_t dst[4])
{
    nb_msg_begin(n, type, NLM_F_MULTI, seq);
    struct inet_diag_msg m;
    memset(&m, 0, sizeof m);
    m.idiag_family = (uint8_t)family;
    m.idiag_state = (uint8_t)state;
    m.id.idiag_sport = htons(1234);
    m.id.idiag_dport = htons(80);
    memcpy(m.id.idiag_dst, dst, sizeof m.id.idiag_dst);
    m.idiag_inode = 4242;
    nb_put(n, &m, sizeof m);
    nb_msg_end(n);
}

static void sock(struct nb *n, uint32_t seq, int family, int state, const uint32_t dst[4])
{
    sock_t(n, SOCK_DIAG_BY_FAMILY, seq, family, state, dst);
}

static int parse_exact(const void *b, size_t len, uint32_t seq, int family, struct pl__tcp_diag *out)
{
    void *c = malloc(len ? len : 1);
    assert_non_null(c);
    if (len) memcpy(c, b, len);
    int rc = pl__parse_tcp_diag_dump(c, len, seq, family, out);
    free(c);
    return rc;
}

#define SEQ 9u
static const uint32_t V4[4] = {0x0100007fu, 0, 0, 0};
static uint32_t MAPPED[4];
static uint32_t NATIVE6[4];

static void addrs(void)
{
    MAPPED[2] = htonl(0xffffu);
    MAPPED[3] = htonl(0x7f000001u);
    NATIVE6[3] = htonl(1); /* ::1 */
}

static void build_v6(struct nb *n)
{
    memset(n, 0, sizeof *n);
    addrs();
    sock(n, SEQ, AF_INET6, 1, NATIVE6);
    sock(n, SEQ, AF_INET6, 8, NATIVE6);     /* CLOSE_WAIT counts */
    sock(n, SEQ, AF_INET6, 1, MAPPED);      /* IPv4 on the wire */
    sock(n, SEQ + 1, AF_INET6, 1, NATIVE6); /* another request: ignored */
    nb_msg_begin(n, NLMSG_NOOP, 0, SEQ);
    nb_msg_end(n);
    sock(n, SEQ, AF_INET6, 10, NATIVE6);    /* LISTEN: not asked for, not counted */
    sock(n, SEQ, AF_INET, 1, V4);           /* wrong family: not counted */
    nb_done(n, SEQ, 0);
}

static void parse_counts(void **state)
{
    (void)state;
    struct nb n;
    build_v6(&n);
    struct pl__tcp_diag d = {0};
    assert_int_equal(parse_exact(n.b, n.len, SEQ, AF_INET6, &d), 1);
    assert_int_equal(d.estab_v6, 2);
    assert_int_equal(d.estab_v4, 1);
    assert_int_equal(d.msgs, 3);
    assert_int_equal(d.bad, 2);
    /* An AF_INET dump: every socket is IPv4, added to what is there. */
    struct nb m;
    memset(&m, 0, sizeof m);
    for (int i = 0; i < 5; i++) sock(&m, SEQ, AF_INET, i == 4 ? 8 : 1, V4);
    assert_int_equal(parse_exact(m.b, m.len, SEQ, AF_INET, &d), 0); /* no DONE yet */
    assert_int_equal(d.estab_v4, 6);
    assert_int_equal(d.estab_v6, 2);
    /* An empty datagram and the DONE alone. */
    assert_int_equal(parse_exact(m.b, 0, SEQ, AF_INET, &d), 0);
    memset(&m, 0, sizeof m);
    nb_done(&m, SEQ, 0);
    assert_int_equal(parse_exact(m.b, m.len, SEQ, AF_INET, &d), 1);
    /* A DONE without a status word ends the dump too. */
    memset(&m, 0, sizeof m);
    nb_msg_begin(&m, NLMSG_DONE, NLM_F_MULTI, SEQ);
    nb_msg_end(&m);
    assert_int_equal(parse_exact(m.b, m.len, SEQ, AF_INET, &d), 1);
    assert_int_equal(d.estab_v4, 6);
}

/* The both-family dump (TCPDIAG_GETSOCK): AF_INET and AF_INET6 sockets in
 * one reply, v4-mapped ones counted as IPv4; a SOCK_DIAG_BY_FAMILY message
 * is not its reply type, nor the other way round. */
static void parse_both_families(void **state)
{
    (void)state;
    addrs();
    struct nb n;
    memset(&n, 0, sizeof n);
    sock_t(&n, TCPDIAG_GETSOCK, SEQ, AF_INET, 1, V4);
    sock_t(&n, TCPDIAG_GETSOCK, SEQ, AF_INET, 8, V4);
    sock_t(&n, TCPDIAG_GETSOCK, SEQ, AF_INET6, 1, NATIVE6);
    sock_t(&n, TCPDIAG_GETSOCK, SEQ, AF_INET6, 1, MAPPED);
    sock_t(&n, TCPDIAG_GETSOCK, SEQ, AF_UNIX, 1, V4);        /* no such family here: not counted */
    sock(&n, SEQ, AF_INET, 1, V4);                           /* another request type: ignored */
    nb_done(&n, SEQ, 0);
    struct pl__tcp_diag d = {0};
    assert_int_equal(parse_exact(n.b, n.len, SEQ, AF_UNSPEC, &d), 1);
    assert_int_equal(d.estab_v4, 3);
    assert_int_equal(d.estab_v6, 1);
    assert_int_equal(d.msgs, 4);
    assert_int_equal(d.bad, 1);
    struct pl__tcp_diag e = {0};
    assert_int_equal(parse_exact(n.b, n.len, SEQ, AF_INET, &e), 1);
    assert_int_equal(e.msgs, 1); /* only the SOCK_DIAG_BY_FAMILY one */
}

static void parse_errors(void **state)
{
    (void)state;
    struct pl__tcp_diag d = {0};
    struct nb n;
    /* NLMSG_ERROR with an errno; with 0 it is an acknowledgement. */
    memset(&n, 0, sizeof n);
    nb_msg_begin(&n, NLMSG_ERROR, 0, SEQ);
    int e = -ENOENT;
    nb_put(&n, &e, sizeof e);
    struct nlmsghdr orig = {0};
    nb_put(&n, &orig, sizeof orig);
    nb_msg_end(&n);
    assert_int_equal(parse_exact(n.b, n.len, SEQ, AF_INET, &d), -ENOENT);
    memset(&n, 0, sizeof n);
    nb_msg_begin(&n, NLMSG_ERROR, 0, SEQ);
    e = 0;
    nb_put(&n, &e, sizeof e);
    nb_msg_end(&n);
    assert_int_equal(parse_exact(n.b, n.len, SEQ, AF_INET, &d), 0);
    /* An error word that is no errno, and one cut short. */
    memset(&n, 0, sizeof n);
    nb_msg_begin(&n, NLMSG_ERROR, 0, SEQ);
    e = -100000;
    nb_put(&n, &e, sizeof e);
    nb_msg_end(&n);
    assert_int_equal(parse_exact(n.b, n.len, SEQ, AF_INET, &d), -EPROTO);
    memset(&n, 0, sizeof n);
    nb_msg_begin(&n, NLMSG_ERROR, 0, SEQ);
    nb_put(&n, &e, 2);
    nb_msg_end(&n);
    assert_int_equal(parse_exact(n.b, n.len, SEQ, AF_INET, &d), -EINVAL);
    /* A failed dump's status in DONE. */
    memset(&n, 0, sizeof n);
    nb_done(&n, SEQ, -EPERM);
    assert_int_equal(parse_exact(n.b, n.len, SEQ, AF_INET, &d), -EPERM);
    /* Interrupted by a change: -EAGAIN at DONE, so the caller dumps again. */
    struct pl__tcp_diag di = {0};
    memset(&n, 0, sizeof n);
    nb_msg_begin(&n, SOCK_DIAG_BY_FAMILY, NLM_F_MULTI | NLM_F_DUMP_INTR, SEQ);
    struct inet_diag_msg m;
    memset(&m, 0, sizeof m);
    m.idiag_family = AF_INET;
    m.idiag_state = 1;
    nb_put(&n, &m, sizeof m);
    nb_msg_end(&n);
    nb_done(&n, SEQ, 0);
    assert_int_equal(parse_exact(n.b, n.len, SEQ, AF_INET, &di), -EAGAIN);
    /* A socket message shorter than struct inet_diag_msg. */
    memset(&n, 0, sizeof n);
    nb_msg_begin(&n, SOCK_DIAG_BY_FAMILY, NLM_F_MULTI, SEQ);
    nb_put(&n, &m, sizeof m - 1);
    nb_msg_end(&n);
    assert_int_equal(parse_exact(n.b, n.len, SEQ, AF_INET, &d), -EINVAL);
    /* Lengths: below the header, beyond the buffer, a trailing fragment. */
    build_v6(&n);
    uint32_t bad_len[] = {0, 15, (uint32_t)n.len + 1, 0xffffffffu};
    for (size_t i = 0; i < sizeof bad_len / sizeof bad_len[0]; i++) {
        struct nb c = n;
        memcpy(c.b, &bad_len[i], 4);
        struct pl__tcp_diag x = {0};
        assert_int_equal(parse_exact(c.b, c.len, SEQ, AF_INET6, &x), -EINVAL);
    }
    assert_int_equal(parse_exact(n.b, 7, SEQ, AF_INET6, &d), -EINVAL);
    assert_int_equal(pl__parse_tcp_diag_dump(NULL, 4, SEQ, AF_INET, &d), -EINVAL);
}

/* Every prefix of a valid reply, parsed from an exact-size copy: an error or
 * "more to come", never a read past the end, never DONE before the end. */
static void parse_truncations(void **state)
{
    (void)state;
    struct nb n;
    build_v6(&n);
    for (size_t len = 0; len < n.len; len++) {
        struct pl__tcp_diag d = {0};
        int rc = parse_exact(n.b, len, SEQ, AF_INET6, &d);
        assert_true(rc == 0 || rc == -EINVAL);
        assert_true(d.msgs <= 3);
    }
}

/* Random bytes and random corruptions of a valid reply (the fuzz target
 * does this at length under ASan; here a fixed seed, every build). */
static void parse_random(void **state)
{
    (void)state;
    struct nb n;
    build_v6(&n);
    unsigned seed = 12345;
    unsigned char buf[sizeof n.b];
    for (int round = 0; round < 20000; round++) {
        size_t len;
        if (round % 2) {
            len = (size_t)(rand_r(&seed) % 600);
            for (size_t i = 0; i < len; i++) buf[i] = (unsigned char)rand_r(&seed);
        } else {
            len = n.len;
            memcpy(buf, n.b, len);
            int flips = 1 + rand_r(&seed) % 4;
            for (int f = 0; f < flips; f++) buf[(size_t)rand_r(&seed) % len] = (unsigned char)rand_r(&seed);
        }
        struct pl__tcp_diag d = {0};
        static const int fams[3] = {AF_INET, AF_INET6, AF_UNSPEC};
        int rc = parse_exact(buf, len, SEQ, fams[round % 3], &d);
        assert_true(rc <= 1);
        assert_true(d.msgs * (NLMSG_HDRLEN + sizeof(struct inet_diag_msg)) <= len);
        assert_int_equal(d.estab_v4 + d.estab_v6, d.msgs);
    }
}

/* ------------------------------------------------------------------- live */

/* ESTABLISHED + CLOSE_WAIT sockets as ss shows them: IPv4 ones, native IPv6
 * ones, and IPv6 sockets with a v4-mapped peer. -1 when ss is unusable. */
static int ss_count(long *v4, long *v6, long *mapped)
{
    *v4 = *v6 = *mapped = 0;
    for (int fam = 4; fam <= 6; fam += 2) {
        char cmd[200];
        snprintf(cmd, sizeof cmd,
                 "PATH=\"$PATH:/usr/sbin:/sbin\" ss -Htn%d state established state close-wait 2>/dev/null", fam);
        FILE *p = popen(cmd, "r");
        if (!p) return -1;
        char line[512];
        while (fgets(line, sizeof line, p)) {
            if (fam == 4) (*v4)++;
            else if (strstr(line, "[::ffff:")) (*mapped)++;
            else (*v6)++;
        }
        if (pclose(p) != 0) return -1;
    }
    return 0;
}

/* Connection pairs in the child's private namespace: n4 IPv4, n6 native
 * IPv6 (of which c6 with the client closed: the server side in CLOSE_WAIT
 * counts, the client in FIN_WAIT2 does not), nm to a dual-stack listener over
 * IPv4 (the accepted side is a v4-mapped AF_INET6 socket). */
enum { N4 = 7, N6 = 5, C6 = 2, NM = 3 };
#define WANT_V4 (2 * N4 + NM * 2) /* both ends of each IPv4 pair; mapped: client (AF_INET) + accepted */
#define WANT_V6 (2 * N6 - C6)

static int open_connections(void)
{
    if (nl_netns_lo_up() != 0) return 77;
    uint16_t p4, p6, pm;
    int l4 = nl_tcp_listener(AF_INET, "127.0.0.1", 0, 256, &p4);
    int l6 = nl_tcp_listener(AF_INET6, "::1", 1, 256, &p6);
    int lm = nl_tcp_listener(AF_INET6, "::", 0, 256, &pm); /* dual-stack */
    if (l4 < 0 || l6 < 0 || lm < 0) return 10;
    for (int i = 0; i < N4; i++)
        if (nl_tcp_connect(AF_INET, "127.0.0.1", p4) < 0 || accept(l4, NULL, NULL) < 0) return 11;
    int closed[C6];
    for (int i = 0; i < N6; i++) {
        int c = nl_tcp_connect(AF_INET6, "::1", p6), a = c < 0 ? -1 : accept(l6, NULL, NULL);
        if (c < 0 || a < 0) return 12;
        if (i < C6) {
            close(c);
            closed[i] = a;
        }
    }
    for (int i = 0; i < NM; i++)
        if (nl_tcp_connect(AF_INET, "127.0.0.1", pm) < 0 || accept(lm, NULL, NULL) < 0) return 13;
    /* the FINs have arrived when the accepted ends see the hang-up (CLOSE_WAIT) */
    for (int i = 0; i < C6; i++) {
        struct pollfd pf = {.fd = closed[i], .events = POLLRDHUP};
        if (poll(&pf, 1, 10000) != 1 || !(pf.revents & POLLRDHUP)) return 14;
    }
    return 0;
}

static int live_dump_child(void)
{
    int rc = open_connections();
    if (rc) return rc;
    long s4, s6, sm;
    if (ss_count(&s4, &s6, &sm) != 0) return 20;
    if (s4 != N4 * 2 + NM || s6 != WANT_V6 || sm != NM) {
        fprintf(stderr, "ss: %ld v4, %ld v6, %ld mapped\n", s4, s6, sm);
        return 21;
    }
    int fd = pl__tcp_diag_open();
    if (fd < 0) return 22;
    struct pl__tcp_diag d = {0};
    if (pl__read_tcp_diag(fd, AF_INET, &d) != 0) return 23;
    if (pl__read_tcp_diag(fd, AF_INET6, &d) != 0) return 24;
    /* Twice over the same socket: the sequence numbers keep dumps apart. */
    struct pl__tcp_diag d2 = {0};
    if (pl__read_tcp_diag(fd, AF_INET, &d2) != 0 || pl__read_tcp_diag(fd, AF_INET6, &d2) != 0) return 25;
    /* The both-family dump the provider uses counts the same. */
    struct pl__tcp_diag du = {0};
    if (pl__read_tcp_diag(fd, AF_UNSPEC, &du) != 0) return 29;
    close(fd);
    fprintf(stderr, "both-family dump: v4 %llu v6 %llu\n", (unsigned long long)du.estab_v4,
            (unsigned long long)du.estab_v6);
    if (du.estab_v4 != d.estab_v4 || du.estab_v6 != d.estab_v6 || du.bad != 0) return 30;
    fprintf(stderr, "sock_diag: v4 %llu v6 %llu; ss: v4 %ld + mapped %ld, v6 %ld\n", (unsigned long long)d.estab_v4,
            (unsigned long long)d.estab_v6, s4, sm, s6);
    if (d.estab_v4 != (uint64_t)(s4 + sm) || d.estab_v6 != (uint64_t)s6) return 26;
    if (d.estab_v4 != WANT_V4 || d.estab_v6 != WANT_V6 || d.bad != 0) return 27;
    if (d2.estab_v4 != d.estab_v4 || d2.estab_v6 != d.estab_v6) return 28;
    return 0;
}

/* In a namespace of its own, with known connections: the dump equals ss
 * (split by family, mapped peers counted as IPv4) and the expected counts. */
static void live_dump_matches_ss(void **state)
{
    (void)state;
    nl_run_in_child_required(live_dump_child, "a private network namespace");
}

/* A seccomp filter that refuses socket(AF_NETLINK, ...) with EPERM, as a
 * sandbox policy would. */
static int refuse_netlink(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_NETLINK, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof f[0]), f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static int refused;

static int provider_masked_child(void)
{
    int rc = open_connections();
    if (rc) return rc;
    /* Replace /proc with a tree whose socket files say something else (one
     * IPv4 and one IPv6 connection): the provider must report the kernel's
     * counts from netlink, not these (before the change it read the files).
     * Bind mounts over /proc/<pid>/net entries do not stick (they are looked
     * up afresh), hence a whole tmpfs. */
    static char snmp[65536];
    FILE *f = fopen("/proc/net/snmp", "r");
    if (!f) return 30;
    size_t sn = fread(snmp, 1, sizeof snmp - 1, f);
    fclose(f);
    if (unshare(CLONE_NEWNS) != 0) return 77;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return 31;
    if (mount("none", "/proc", "tmpfs", 0, NULL) != 0) return 32;
    if (mkdir("/proc/net", 0755) != 0) return 33;
    static const char hdr[] = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
                              "timeout inode\n";
    struct {
        const char *path, *line;
    } files[] = {
        {"/proc/net/tcp", "   0: 0100007F:0016 0100007F:9C40 01 00000000:00000000 00:00000000 00000000 0 0 1\n"},
        {"/proc/net/tcp6", "   0: 00000000000000000000000001000000:0016 00000000000000000000000001000000:9C40 01 "
                           "00000000:00000000 00:00000000 00000000 0 0 2\n"},
    };
    for (size_t i = 0; i < 2; i++) {
        f = fopen(files[i].path, "w");
        if (!f || fputs(hdr, f) < 0 || fputs(files[i].line, f) < 0 || fclose(f) != 0) return 34;
    }
    f = fopen("/proc/net/snmp", "w");
    if (!f || fwrite(snmp, 1, sn, f) != sn || fclose(f) != 0) return 34;
    if (refused) {
        if (refuse_netlink() != 0) return 38;
        if (socket(AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG) >= 0 || errno != EPERM) return 39;
    }
    ph_provider prov;
    ph_load(&prov, PERFNET_SO, "PerfNet", NULL);
    if (prov.open(NULL) != 0) return 35;
    ph_result r;
    ph_collect_ok(&prov, "638 1530", 8, &r);
    pl_object o;
    ph_object(&r, PL_OBJ_TCPV4, &o);
    uint64_t v4 = ph_value(&o, -1, PL_CTR_CONNECTIONS_ESTABLISHED);
    int a4 = ph_available(&o, -1, PL_CTR_CONNECTIONS_ESTABLISHED);
    ph_object(&r, PL_OBJ_TCPV6, &o);
    uint64_t v6 = ph_value(&o, -1, PL_CTR_CONNECTIONS_ESTABLISHED);
    int a6 = ph_available(&o, -1, PL_CTR_CONNECTIONS_ESTABLISHED);
    ph_result_free(&r);
    ph_unload(&prov);
    fprintf(stderr, "provider: TCPv4 %llu (%d) TCPv6 %llu (%d)\n", (unsigned long long)v4, a4, (unsigned long long)v6,
            a6);
    if (!a4 || !a6) return 36;
    if (refused) return v4 == 1 && v6 == 1 ? 0 : 37;
    if (v4 != WANT_V4 || v6 != WANT_V6) return 37;
    return 0;
}

static void live_provider_uses_netlink(void **state)
{
    (void)state;
    refused = 0;
    nl_run_in_child_required(provider_masked_child, "a private network/mount namespace");
}

/* With sock_diag refused (a seccomp policy here), the provider falls back to
 * /proc/net/tcp{,6}: it reports what the files say. */
static void live_provider_falls_back_to_files(void **state)
{
    (void)state;
    refused = 1;
    nl_run_in_child_required(provider_masked_child, "a private network/mount namespace");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_counts),
        cmocka_unit_test(parse_both_families),
        cmocka_unit_test(parse_errors),
        cmocka_unit_test(parse_truncations),
        cmocka_unit_test(parse_random),
        cmocka_unit_test(live_dump_matches_ss),
        cmocka_unit_test(live_provider_uses_netlink),
        cmocka_unit_test(live_provider_falls_back_to_files),
    };
    return pl_test_run(tests, argc, argv);
}
