/* Tests of the network collectors: /proc/net/dev, /sys/class/net,
 * /proc/net/snmp and /proc/net/snmp6. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl_test.h"
#include "linux/collect_io.h"
#include "platform.h"

#define M1 PL_SOURCE_DIR "/tests/perfnet/data/m1"
#define OLD PL_SOURCE_DIR "/tests/perfnet/data/old"

static const char hdr[] =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls "
    "carrier compressed\n";

static void net_dev_canned(void **state)
{
    (void)state;
    int fd = pl__root_open(M1, "");
    struct pl__netdevs s = {0};
    assert_int_equal(pl__read_net_dev(fd, &s), 0);
    close(fd);
    assert_int_equal(s.n, 4);
    assert_int_equal(s.bad, 0);
    assert_string_equal(s.d[1].name, "eth0");
    static const uint64_t eth0[16] = {5000000000ull, 4000000, 3, 7, 0, 0, 0, 20000,
                                      2000000000ull, 3000000, 1, 2, 0, 5, 4, 0};
    for (int i = 0; i < 16; i++) assert_true(s.d[1].f[i] == eth0[i]);
    assert_string_equal(s.d[3].name, "veth9");
    pl__netdevs_free(&s);
}

static void net_dev_old_format_and_bad_lines(void **state)
{
    (void)state;
    int fd = pl__root_open(OLD, "");
    struct pl__netdevs s = {0};
    assert_int_equal(pl__read_net_dev(fd, &s), 0);
    close(fd);
    /* "eth0:2000 ..." (no blank after the colon) parses; "eth1: 1 2 3" not. */
    assert_int_equal(s.n, 2);
    assert_int_equal(s.bad, 1);
    assert_string_equal(s.d[1].name, "eth0");
    assert_int_equal(s.d[1].f[PL__ND_RX_BYTES], 2000);
    assert_int_equal(s.d[1].f[PL__ND_RX_MULTICAST], 3);
    assert_int_equal(s.d[1].f[PL__ND_TX_PACKETS], 30);

    char t[2048];
    snprintf(t, sizeof t, "%s%s", hdr,
             "  a b: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"          /* blank in name */
             "  : 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"             /* empty name */
             "  x: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"         /* 17 numbers */
             "  y: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 -16\n"           /* negative */
             "  z: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16x\n"           /* junk */
             "  averyveryveryveryverylongname0123: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
             "  ok: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
             "  cut: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 1"); /* no newline */
    assert_int_equal(pl__parse_net_dev(t, &s), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.bad, 7);
    assert_string_equal(s.d[0].name, "ok");
    assert_int_equal(s.d[0].f[15], 16);
    /* No header: the file is not /proc/net/dev. */
    assert_int_equal(pl__parse_net_dev("lo: 1 2 3\n", &s), -EINVAL);
    assert_int_equal(pl__parse_net_dev("a\nb\n", &s), -EINVAL);
    assert_int_equal(pl__parse_net_dev("", &s), -EINVAL);
    pl__netdevs_free(&s);
}

static void netif_attrs(void **state)
{
    (void)state;
    int cn = pl__root_open(M1, "sys/class/net");
    assert_true(cn >= 0);
    struct pl__netif_attrs a;
    assert_int_equal(pl__read_netif_attrs(cn, "eth0", &a), 0);
    assert_int_equal(a.have, PL__NETIF_HAVE_SPEED | PL__NETIF_HAVE_MTU | PL__NETIF_HAVE_IFINDEX);
    assert_int_equal(a.ifindex, 2);
    assert_int_equal(a.speed_mbps, 1000);
    assert_int_equal(a.mtu, 1500);
    /* speed -1 (SPEED_UNKNOWN) and no speed file are both "not known". */
    assert_int_equal(pl__read_netif_attrs(cn, "lo", &a), 0);
    assert_int_equal(a.have, PL__NETIF_HAVE_MTU | PL__NETIF_HAVE_IFINDEX);
    assert_int_equal(a.ifindex, 1);
    assert_int_equal(a.mtu, 65536);
    assert_int_equal(pl__read_netif_attrs(cn, "wlan0", &a), 0);
    assert_int_equal(a.have, PL__NETIF_HAVE_MTU);
    assert_int_equal(pl__read_netif_attrs(cn, "veth9", &a), -ENOENT);
    assert_int_equal(pl__read_netif_attrs(cn, "..", &a), -EINVAL);
    assert_int_equal(pl__read_netif_attrs(cn, "a/b", &a), -EINVAL);
    close(cn);
    assert_int_equal(pl__read_netif_attrs(-ENOENT, "eth0", &a), -ENOENT);
}

static void snmp_canned(void **state)
{
    (void)state;
    int fd = pl__root_open(M1, "");
    struct pl__snmp s = {0};
    assert_int_equal(pl__read_net_snmp(fd, &s), 0);
    assert_int_equal(s.bad, 0);
    int64_t v;
    assert_int_equal(pl__snmp_get(&s, "Ip", "InReceives", &v), 1);
    assert_int_equal(v, 100000);
    assert_int_equal(pl__snmp_get(&s, "Ip", "OutTransmits", &v), 1);
    assert_int_equal(v, 80000);
    assert_int_equal(pl__snmp_get(&s, "Tcp", "MaxConn", &v), 1);
    assert_int_equal(v, -1);
    assert_int_equal(pl__snmp_get(&s, "Tcp", "CurrEstab", &v), 1);
    assert_int_equal(v, 25);
    assert_int_equal(pl__snmp_get(&s, "Udp", "InErrors", &v), 1);
    assert_int_equal(v, 20);
    assert_int_equal(pl__snmp_get(&s, "UdpLite", "InErrors", &v), 1);
    assert_int_equal(v, 0);
    assert_int_equal(pl__snmp_get(&s, "Icmp", "OutAddrMaskReps", &v), 1);
    assert_int_equal(v, 18);
    assert_int_equal(pl__snmp_get(&s, "IcmpMsg", "InType8", &v), 1);
    assert_int_equal(v, 200);
    assert_int_equal(pl__snmp_get(&s, "Ip", "NoSuchColumn", &v), 0);
    assert_int_equal(pl__snmp_get(&s, "Tcp", "InReceives", &v), 0);
    pl__snmp_free(&s);
    close(fd);
}

/* Values are found by column name, whatever the column order or count. */
static void snmp_by_name_not_position(void **state)
{
    (void)state;
    struct pl__snmp s = {0};
    const char *t = "Tcp: CurrEstab NewColumn ActiveOpens\n"
                    "Tcp: 4 99 12\n"
                    "Udp: OutDatagrams InDatagrams\n"
                    "Udp: 8 9\n";
    assert_int_equal(pl__parse_net_snmp(t, &s), 0);
    int64_t v;
    assert_int_equal(pl__snmp_get(&s, "Tcp", "ActiveOpens", &v), 1);
    assert_int_equal(v, 12);
    assert_int_equal(pl__snmp_get(&s, "Tcp", "CurrEstab", &v), 1);
    assert_int_equal(v, 4);
    assert_int_equal(pl__snmp_get(&s, "Udp", "InDatagrams", &v), 1);
    assert_int_equal(v, 9);
    pl__snmp_free(&s);
}

static void snmp_malformed(void **state)
{
    (void)state;
    struct pl__snmp s = {0};
    const char *t = "Ip: A B C\n"
                    "Ip: 1 2\n"              /* count mismatch: pair skipped */
                    "Icmp: InMsgs InErrors\n" /* header without value line */
                    "Tcp: X Y\n"
                    "Tcp: 5 z\n"             /* bad value: that column skipped */
                    "Udp: P Q\n"
                    "Udp: 7 8\n"
                    "junk without colon\n"
                    "Udp6: R\n";             /* truncated: no value line */
    assert_int_equal(pl__parse_net_snmp(t, &s), 0);
    int64_t v;
    assert_int_equal(pl__snmp_get(&s, "Ip", "A", &v), 0);
    assert_int_equal(pl__snmp_get(&s, "Icmp", "InMsgs", &v), 0);
    assert_int_equal(pl__snmp_get(&s, "Tcp", "X", &v), 1);
    assert_int_equal(v, 5);
    assert_int_equal(pl__snmp_get(&s, "Tcp", "Y", &v), 0);
    assert_int_equal(pl__snmp_get(&s, "Udp", "Q", &v), 1);
    assert_int_equal(v, 8);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.bad, 5);
    assert_int_equal(pl__parse_net_snmp("", &s), 0);
    assert_int_equal(s.n, 0);
    pl__snmp_free(&s);
}

static void snmp6_canned_and_malformed(void **state)
{
    (void)state;
    int fd = pl__root_open(M1, "");
    struct pl__snmp s = {0};
    assert_int_equal(pl__read_net_snmp6(fd, &s), 0);
    close(fd);
    assert_int_equal(s.bad, 0);
    assert_true(s.n > 80);
    int64_t v;
    assert_int_equal(pl__snmp_get(&s, "", "Ip6InReceives", &v), 1);
    assert_int_equal(v, 5000);
    assert_int_equal(pl__snmp_get(&s, "", "Udp6OutDatagrams", &v), 1);
    assert_int_equal(v, 6000);
    assert_int_equal(pl__snmp_get(&s, "", "Icmp6OutMLDv2Reports", &v), 1);
    assert_int_equal(v, 65);
    const char *t = "Ip6InReceives 12\n"
                    "Ip6Bad\n"
                    "Ip6Two 1 2\n"
                    "Ip6Neg -3\n"
                    "Ip6X 4x\n"
                    "\n"
                    "Ip6Last 9"; /* no newline */
    assert_int_equal(pl__parse_net_snmp6(t, &s), 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.bad, 4);
    assert_int_equal(pl__snmp_get(&s, "", "Ip6Neg", &v), 1);
    assert_int_equal(v, -3);
    assert_int_equal(pl__snmp_get(&s, "", "Ip6Last", &v), 0);
    pl__snmp_free(&s);
    fd = pl__root_open(OLD, "");
    assert_int_equal(pl__read_net_snmp6(fd, &s), -ENOENT);
    close(fd);
    pl__snmp_free(&s);
}

/* Lookups go through the parse's hash index: the first of equal names
 * wins, a name that shares a prefix, a length or a protocol is not found,
 * the index follows each new parse of the same struct, and a pair whose
 * lines are swapped (values before names) adds nothing it should not. */
static void snmp_index_lookups(void **state)
{
    (void)state;
    struct pl__snmp s = {0};
    int64_t v;
    const char *t = "Udp: InDatagrams NoPorts InDatagrams\n"
                    "Udp: 1 2 3\n"
                    "Udp: InDatagrams\n"
                    "Udp: 4\n"
                    "Tcp: InDatagrams NoPortsX NoPort\n"
                    "Tcp: 5 6 7\n";
    assert_int_equal(pl__parse_net_snmp(t, &s), 0);
    assert_int_equal(s.n, 7);
    assert_true(s.nslot > 0);
    assert_int_equal(pl__snmp_get(&s, "Udp", "InDatagrams", &v), 1);
    assert_int_equal(v, 1); /* the first */
    assert_int_equal(pl__snmp_get(&s, "Tcp", "InDatagrams", &v), 1);
    assert_int_equal(v, 5);
    assert_int_equal(pl__snmp_get(&s, "Udp", "NoPorts", &v), 1);
    assert_int_equal(v, 2);
    assert_int_equal(pl__snmp_get(&s, "Tcp", "NoPorts", &v), 0);
    assert_int_equal(pl__snmp_get(&s, "Udp", "NoPort", &v), 0);
    assert_int_equal(pl__snmp_get(&s, "", "NoPorts", &v), 0);
    assert_int_equal(pl__snmp_get(&s, "Ud", "NoPorts", &v), 0);
    assert_int_equal(pl__snmp_find(&s, pl__snmp_hash("Tcp", "NoPort"), "Tcp", "NoPort", &v), 1);
    assert_int_equal(v, 7);
    /* a name too long to be an entry */
    assert_int_equal(pl__snmp_get(&s, "Udp", "A123456789012345678901234567890123456789012345678", &v), 0);

    /* the same struct again: the old entries are gone from the index */
    assert_int_equal(pl__parse_net_snmp("Ip: Forwarding\nIp: 2\n", &s), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(pl__snmp_get(&s, "Udp", "InDatagrams", &v), 0);
    assert_int_equal(pl__snmp_get(&s, "Ip", "Forwarding", &v), 1);
    assert_int_equal(v, 2);

    /* values before names: the "header" 1 2 has name words but its
     * "values" are not numbers, then a header without a value line */
    assert_int_equal(pl__parse_net_snmp("Ip: 1 2\nIp: A B\nIp: A B\n", &s), 0);
    assert_int_equal(s.n, 0);
    assert_int_equal(s.bad, 3);
    assert_int_equal(pl__snmp_get(&s, "Ip", "1", &v), 0);
    assert_int_equal(pl__snmp_get(&s, "Ip", "A", &v), 0);

    /* a pair whose value line is longer: nothing of it, even its first
     * columns; the pair after it is read */
    assert_int_equal(pl__parse_net_snmp("Ip: A B\nIp: 1 2 3\nTcp: C\nTcp: 4\n", &s), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.bad, 1);
    assert_int_equal(pl__snmp_get(&s, "Ip", "A", &v), 0);
    assert_int_equal(pl__snmp_get(&s, "Tcp", "C", &v), 1);

    /* values at the edges of 64 bits (as pl__parse_i64: clamped to the
     * signed range, beyond 64 bits not a value) */
    assert_int_equal(pl__parse_net_snmp("Ip: A B C D\nIp: 18446744073709551615 -9223372036854775809 "
                                        "18446744073709551616 -0\n", &s), 0);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.bad, 1);
    assert_int_equal(pl__snmp_get(&s, "Ip", "A", &v), 1);
    assert_true(v == INT64_MAX);
    assert_int_equal(pl__snmp_get(&s, "Ip", "B", &v), 1);
    assert_true(v == INT64_MIN);
    assert_int_equal(pl__snmp_get(&s, "Ip", "C", &v), 0);
    assert_int_equal(pl__snmp_get(&s, "Ip", "D", &v), 1);
    assert_int_equal(v, 0);

    /* snmp6: duplicates, the first wins */
    assert_int_equal(pl__parse_net_snmp6("Ip6A 1\nIp6B 2\nIp6A 3\n", &s), 0);
    assert_int_equal(s.n, 3);
    assert_int_equal(pl__snmp_get(&s, "", "Ip6A", &v), 1);
    assert_int_equal(v, 1);
    assert_int_equal(pl__snmp_get(&s, "Ip", "Ip6A", &v), 0);
    pl__snmp_free(&s);
}

/* An ifindex that is not a positive 32-bit number is not known. */
static void netif_bad_ifindex(void **state)
{
    (void)state;
    char dir[] = "/tmp/perfnet_ifiXXXXXX";
    assert_non_null(mkdtemp(dir));
    static const char *const vals[] = {"0\n", "-3\n", "2147483648\n", "7x\n", "", "12\n"};
    char path[512];
    snprintf(path, sizeof path, "%s/x", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/x/ifindex", dir);
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(vals[i], f);
        fclose(f);
        int cn = pl__root_open(dir, "");
        struct pl__netif_attrs a;
        assert_int_equal(pl__read_netif_attrs(cn, "x", &a), 0);
        close(cn);
        if (i == 5) {
            assert_int_equal(a.have, PL__NETIF_HAVE_IFINDEX);
            assert_int_equal(a.ifindex, 12);
        } else {
            assert_int_equal(a.have, 0);
        }
    }
    unlink(path);
    snprintf(path, sizeof path, "%s/x", dir);
    rmdir(path);
    rmdir(dir);
}

/* ------------------------------------------------- /proc/net/tcp, tcp6 */

static void tcp_canned(void **state)
{
    (void)state;
    int fd = pl__root_open(M1, "");
    struct pl__tcp_socks t;
    assert_int_equal(pl__read_net_tcp(fd, 0, &t), 0);
    assert_int_equal(t.lines, 23);
    assert_int_equal(t.bad, 0);
    assert_int_equal(t.state[0x01], 14);
    assert_int_equal(t.state[0x08], 3);
    assert_int_equal(t.state[0x0A], 2);
    assert_int_equal(t.state[0x06], 2);
    assert_int_equal(t.state[0x02], 1);
    assert_int_equal(t.state[0x05], 1);
    assert_int_equal(t.estab_v4, 17);
    assert_int_equal(t.estab_v6, 0);
    assert_int_equal(pl__read_net_tcp(fd, 1, &t), 0);
    assert_int_equal(t.lines, 12);
    assert_int_equal(t.bad, 0);
    assert_int_equal(t.state[0x01], 7);
    assert_int_equal(t.state[0x08], 1);
    assert_int_equal(t.state[0x09], 1);
    /* 5 ESTABLISHED + 1 CLOSE_WAIT native; 2 ESTABLISHED v4-mapped. */
    assert_int_equal(t.estab_v6, 6);
    assert_int_equal(t.estab_v4, 2);
    close(fd);
    fd = pl__root_open(OLD, "");
    assert_int_equal(pl__read_net_tcp(fd, 0, &t), -ENOENT);
    assert_int_equal(t.lines, 0);
    close(fd);
}

#define TCP4_HDR "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
#define TCP4_TAIL " 00000000:00000000 00:00000000 00000000     0        0 1 1 0 20 4 30 10 -1\n"

static void tcp_malformed_lines(void **state)
{
    (void)state;
    struct pl__tcp_socks t;
    const char *txt = TCP4_HDR
        "   0: 0100007F:0277 00000000:0000 0A" TCP4_TAIL        /* ok: LISTEN */
        "   1: 0100007F:0277 0100007F:9000 01" TCP4_TAIL        /* ok: ESTABLISHED */
        "   2: 0100007F:0277 0100007F:9000 08\n"                /* ok: state is the last column read */
        "   3: 0100007F:0277 0100007F:9000 00" TCP4_TAIL        /* state 0 */
        "   4: 0100007F:0277 0100007F:9000 10" TCP4_TAIL        /* state 16 */
        "   5: 0100007F:0277 0100007F:9000 0G" TCP4_TAIL        /* not hex */
        "   6: 0100007F:277 0100007F:9000 01" TCP4_TAIL         /* short port */
        "   7: 0100007F0:0277 0100007F:9000 01" TCP4_TAIL       /* long address */
        "   8 0100007F:0277 0100007F:9000 01" TCP4_TAIL         /* no colon after sl */
        "   9: 0100007F:0277 0100007F:9000 011" TCP4_TAIL       /* three-digit state */
        "  10: 0100007F:0277 0100007F:9000\n"                   /* no state */
        "    \n"                                                /* blank: ignored */
        "  11: 0000000000000000FFFF00000100007F:0277 0100007F:9000 01\n" /* v6 address in tcp */
        "  12: 0100007F:0277 0100007F:9001 01";                 /* no newline: cut short */
    assert_int_equal(pl__parse_net_tcp(txt, strlen(txt), 0, &t), 0);
    assert_int_equal(t.lines, 3);
    assert_int_equal(t.bad, 10);
    assert_int_equal(t.estab_v4, 2);
    assert_int_equal(t.state[0x0A], 1);
    /* No header: not the file we expect. */
    const char *nohdr = "   0: 0100007F:0277 00000000:0000 0A\n";
    assert_int_equal(pl__parse_net_tcp(nohdr, strlen(nohdr), 0, &t), -EINVAL);
    assert_int_equal(pl__parse_net_tcp("", 0, 0, &t), -EINVAL);
    /* The parser stops at len: the bytes after are never read. */
    char cut[] = TCP4_HDR "   0: 0100007F:0277 0100007F:9000 01\nXXXX";
    assert_int_equal(pl__parse_net_tcp(cut, strlen(cut) - 4, 0, &t), 0);
    assert_int_equal(t.lines, 1);
    assert_int_equal(t.bad, 0);
    /* v6: mapped remote counts as IPv4, native as IPv6, v4 address is bad. */
    const char *six = "  sl  local_address remote_address st\n"
        "   0: 0000000000000000FFFF00000100007F:0016 0000000000000000FFFF00000200007F:C000 01 x\n"
        "   1: 00000000000000000000000001000000:0016 00000000000000000000000001000000:C001 08 x\n"
        "   2: 00000000000000000000000001000000:0016 00000000000000000000000001000000:C001 0A x\n"
        "   3: 0100007F:0016 0100007F:C000 01 x\n";
    assert_int_equal(pl__parse_net_tcp(six, strlen(six), 1, &t), 0);
    assert_int_equal(t.lines, 3);
    assert_int_equal(t.bad, 1);
    assert_int_equal(t.estab_v4, 1);
    assert_int_equal(t.estab_v6, 1);
}

/* The chunked reader gives the same counts as the whole-text parser, for a
 * file far larger than its 16 KiB buffer, with lines across every boundary
 * and a line longer than the buffer. */
static void tcp_chunked_reader_large_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/perfnet_tcpXXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[512];
    snprintf(path, sizeof path, "%s/proc", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/proc/net", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/proc/net/tcp6", dir);
    size_t cap = 8u << 20, len = 0;
    char *txt = malloc(cap);
    assert_non_null(txt);
    len += (size_t)snprintf(txt + len, cap - len, "  sl  local_address remote_address st tx_queue\n");
    uint64_t want_v4 = 0, want_v6 = 0, want_lines = 0;
    for (unsigned i = 0; i < 20000; i++) {
        unsigned st = 1 + i % 11;
        int mapped = i % 7 == 0;
        len += (size_t)snprintf(txt + len, cap - len,
                                "%5u: 00000000000000000000000001000000:%04X %s:%04X %02X 00000000:00000000 "
                                "00:00000000 00000000 %*u\n",
                                i, i & 0xFFFF,
                                mapped ? "0000000000000000FFFF00000100007F" : "B80D0120000000000000000099000000",
                                (i * 7) & 0xFFFF, st, (int)(i % 50), i);
        want_lines++;
        if (st == 1 || st == 8) {
            if (mapped) want_v4++;
            else want_v6++;
        }
        if (i == 10000) {
            /* One line of 40000 bytes: bad, and the reader resynchronises. */
            len += (size_t)snprintf(txt + len, cap - len, "%5u: ", i);
            memset(txt + len, 'A', 40000);
            len += 40000;
            txt[len++] = '\n';
        }
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(txt, 1, len, f), len);
    fclose(f);
    struct pl__tcp_socks whole, chunked;
    assert_int_equal(pl__parse_net_tcp(txt, len, 1, &whole), 0);
    int fd = pl__root_open(dir, "");
    assert_int_equal(pl__read_net_tcp(fd, 1, &chunked), 0);
    close(fd);
    assert_int_equal(whole.lines, want_lines);
    assert_int_equal(whole.estab_v4, want_v4);
    assert_int_equal(whole.estab_v6, want_v6);
    assert_int_equal(whole.bad, 1);
    assert_memory_equal(&whole, &chunked, sizeof whole);
    free(txt);
    unlink(path);
    snprintf(path, sizeof path, "%s/proc/net", dir);
    rmdir(path);
    snprintf(path, sizeof path, "%s/proc", dir);
    rmdir(path);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(net_dev_canned),
        cmocka_unit_test(net_dev_old_format_and_bad_lines),
        cmocka_unit_test(netif_attrs),
        cmocka_unit_test(snmp_canned),
        cmocka_unit_test(snmp_by_name_not_position),
        cmocka_unit_test(snmp_malformed),
        cmocka_unit_test(snmp6_canned_and_malformed),
        cmocka_unit_test(snmp_index_lookups),
        cmocka_unit_test(netif_bad_ifindex),
        cmocka_unit_test(tcp_canned),
        cmocka_unit_test(tcp_malformed_lines),
        cmocka_unit_test(tcp_chunked_reader_large_file),
    };
    return pl_test_run(tests, argc, argv);
}
