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
    assert_int_equal(a.have, PL__NETIF_HAVE_SPEED | PL__NETIF_HAVE_MTU | PL__NETIF_HAVE_TXQLEN);
    assert_int_equal(a.speed_mbps, 1000);
    assert_int_equal(a.mtu, 1500);
    assert_int_equal(a.tx_queue_len, 1000);
    /* speed -1 (SPEED_UNKNOWN) and no speed file are both "not known". */
    assert_int_equal(pl__read_netif_attrs(cn, "lo", &a), 0);
    assert_int_equal(a.have, PL__NETIF_HAVE_MTU | PL__NETIF_HAVE_TXQLEN);
    assert_int_equal(a.mtu, 65536);
    assert_int_equal(pl__read_netif_attrs(cn, "wlan0", &a), 0);
    assert_int_equal(a.have, PL__NETIF_HAVE_MTU | PL__NETIF_HAVE_TXQLEN);
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
    };
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
