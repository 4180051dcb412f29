/* Tests of libperfnet.so through dlopen(), as the host loads it: canned
 * trees under data/ (PERFLIB_SYSROOT) and cross-checks against this machine. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl_test.h"
#include "provider_harness.h"
#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/winperf.h"

#define M1 PL_SOURCE_DIR "/tests/perfnet/data/m1"
#define OLD PL_SOURCE_DIR "/tests/perfnet/data/old"

static ph_provider prov;

/* PerfNet with PERFLIB_SYSROOT = root (NULL: the real "/"). */
static void load(const char *root)
{
    ph_load(&prov, PERFNET_SO, "PerfNet", root);
    /* Internals stay hidden. */
    assert_null(dlsym(prov.so, "pl_builder_new"));
    assert_null(dlsym(prov.so, "pl__read_net_dev"));
}

/* ------------------------------------------------------------ canned m1 */

static void interfaces_m1(void **state)
{
    (void)state;
    load(M1);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "510", 8, &r);
    /* An items query for 510 gives Network Interface only. */
    assert_int_equal(r.objects, 1);
    pl_object o;
    ph_object(&r, PL_OBJ_NETWORK_INTERFACE, &o);
    /* veth9 is in /proc/net/dev but gone from /sys/class/net: left out.
     * Windows has no _Total for this object, and neither do we. */
    static const char *const want[] = {"lo", "eth0", "wlan0"};
    ph_names_are(&o, want, 3, 0);
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_BYTES_TOTAL_PER_SEC), 7000000000ull);
    assert_int_equal(ph_type(&o, PL_CTR_BYTES_TOTAL_PER_SEC), PERF_COUNTER_BULK_COUNT);
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_PACKETS_PER_SEC), 7000000);
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_PACKETS_RECEIVED_PER_SEC), 4000000);
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_PACKETS_SENT_PER_SEC), 3000000);
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_BYTES_RECEIVED_PER_SEC), 5000000000ull);
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_BYTES_SENT_PER_SEC), 2000000000ull);
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_PACKETS_RECEIVED_UNICAST_PER_SEC), 4000000 - 20000);
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_PACKETS_RECEIVED_NON_UNICAST_PER_SEC), 20000);
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_MULTICAST_PACKETS_RECEIVED_PER_SEC), 20000);
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_PACKETS_RECEIVED_DISCARDED), 7);
    assert_int_equal(ph_type(&o, PL_CTR_PACKETS_RECEIVED_DISCARDED), PERF_COUNTER_LARGE_RAWCOUNT);
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_PACKETS_RECEIVED_ERRORS), 3);
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_PACKETS_OUTBOUND_DISCARDED), 2);
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_PACKETS_OUTBOUND_ERRORS), 1);
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_COLLISIONS), 5);
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_CARRIER_ERRORS), 4);
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_MTU), 1500);
    assert_int_equal(ph_value_of(&o, "lo", PL_CTR_MTU), 65536);
    /* Speed 1000 Mb/s in bits/s; an unknown speed (-1 for lo, no file for
     * wlan0) is marked unavailable (position 4 of 18 definitions), value 0. */
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_CURRENT_BANDWIDTH), 1000000000ull);
    assert_int_equal(ph_type(&o, PL_CTR_CURRENT_BANDWIDTH), PERF_COUNTER_LARGE_RAWCOUNT);
    assert_int_equal(o.hdr.NumCounters, 18);
    assert_int_equal(ph_position(&o, PL_CTR_CURRENT_BANDWIDTH), 4);
    assert_int_equal(ph_position(&o, PL_CTR_MTU), 16);
    assert_int_equal(ph_position(&o, PL_CTR_UNAVAILABLE_COUNTERS), 17);
    assert_int_equal(ph_type(&o, PL_CTR_UNAVAILABLE_COUNTERS), PERF_COUNTER_LARGE_RAWCOUNT_HEX);
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_UNAVAILABLE_COUNTERS), 0);
    assert_int_equal(ph_value_of(&o, "lo", PL_CTR_UNAVAILABLE_COUNTERS), 0x10);
    assert_int_equal(ph_value_of(&o, "wlan0", PL_CTR_UNAVAILABLE_COUNTERS), 0x10);
    assert_int_equal(ph_value_of(&o, "lo", PL_CTR_CURRENT_BANDWIDTH), 0);
    assert_int_equal(ph_value_of(&o, "wlan0", PL_CTR_CURRENT_BANDWIDTH), 0);
    assert_int_equal(ph_available_of(&o, "eth0", PL_CTR_CURRENT_BANDWIDTH), 1);
    assert_int_equal(ph_available_of(&o, "lo", PL_CTR_CURRENT_BANDWIDTH), 0);
    assert_int_equal(ph_available_of(&o, "wlan0", PL_CTR_CURRENT_BANDWIDTH), 0);
    assert_int_equal(ph_available_of(&o, "wlan0", PL_CTR_MTU), 1);
    assert_int_equal(ph_available_of(&o, "wlan0", PL_CTR_BYTES_TOTAL_PER_SEC), 1);
    assert_int_equal(ph_value_of(&o, "wlan0", PL_CTR_PACKETS_RECEIVED_UNICAST_PER_SEC), 2400);
    /* No packet count of the output queue in /proc or /sys: not offered. */
    pl_counter c;
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_OUTPUT_QUEUE_LENGTH, &c), PL_E_NOT_FOUND);
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_PACKETS_SENT_UNICAST_PER_SEC, &c), PL_E_NOT_FOUND);
    ph_result_free(&r);
    ph_unload(&prov);
}

static void protocols_m1(void **state)
{
    (void)state;
    load(M1);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "Global", 8, &r);
    /* Network Interface, IPv4, IPv6, ICMP, ICMPv6, TCPv4, UDPv4, UDPv6; no TCPv6. */
    assert_int_equal(r.objects, 8);
    pl_object o;
    assert_int_equal(pl_block_find_object(&r.blk, PL_OBJ_TCPV6, &o), PL_E_NOT_FOUND);

    ph_object(&r, PL_OBJ_IPV4, &o);
    assert_int_equal(pl_object_num_instances(&o), 0);
    assert_int_equal(o.hdr.NumInstances, PERF_NO_INSTANCES);
    assert_int_equal(o.hdr.NumCounters, 17);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_PER_SEC), 180000);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_RECEIVED_PER_SEC), 100000);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_RECEIVED_HEADER_ERRORS), 10);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_RECEIVED_ADDRESS_ERRORS), 20);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_FORWARDED_PER_SEC), 300);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_RECEIVED_UNKNOWN_PROTOCOL), 4);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_RECEIVED_DISCARDED), 50);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_RECEIVED_DELIVERED_PER_SEC), 99000);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_SENT_PER_SEC), 80000);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_OUTBOUND_DISCARDED), 6);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_OUTBOUND_NO_ROUTE), 7);
    assert_int_equal(ph_value(&o, -1, PL_CTR_FRAGMENTS_RECEIVED_PER_SEC), 400);
    assert_int_equal(ph_value(&o, -1, PL_CTR_FRAGMENTS_REASSEMBLED_PER_SEC), 100);
    assert_int_equal(ph_value(&o, -1, PL_CTR_FRAGMENT_REASSEMBLY_FAILURES), 8);
    assert_int_equal(ph_value(&o, -1, PL_CTR_FRAGMENTED_DATAGRAMS_PER_SEC), 90);
    assert_int_equal(ph_value(&o, -1, PL_CTR_FRAGMENTATION_FAILURES), 9);
    assert_int_equal(ph_value(&o, -1, PL_CTR_FRAGMENTS_CREATED_PER_SEC), 270);
    assert_int_equal(ph_type(&o, PL_CTR_DATAGRAMS_PER_SEC), PERF_COUNTER_BULK_COUNT);
    assert_int_equal(ph_type(&o, PL_CTR_FRAGMENTATION_FAILURES), PERF_COUNTER_LARGE_RAWCOUNT);

    ph_object(&r, PL_OBJ_IPV6, &o);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_PER_SEC), 9000);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_FORWARDED_PER_SEC), 13);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_RECEIVED_DELIVERED_PER_SEC), 4900);
    assert_int_equal(ph_value(&o, -1, PL_CTR_FRAGMENTS_CREATED_PER_SEC), 23);

    ph_object(&r, PL_OBJ_ICMP, &o);
    assert_int_equal(o.hdr.NumCounters, 27);
    assert_int_equal(ph_value(&o, -1, PL_CTR_MESSAGES_PER_SEC), 1100);
    assert_int_equal(ph_value(&o, -1, PL_CTR_MESSAGES_RECEIVED_PER_SEC), 500);
    assert_int_equal(ph_value(&o, -1, PL_CTR_MESSAGES_RECEIVED_ERRORS), 5);
    assert_int_equal(ph_value(&o, -1, PL_CTR_RECEIVED_DEST_UNREACHABLE), 100);
    assert_int_equal(ph_value(&o, -1, PL_CTR_RECEIVED_TIME_EXCEEDED), 30);
    assert_int_equal(ph_value(&o, -1, PL_CTR_RECEIVED_ECHO_PER_SEC), 200);
    assert_int_equal(ph_value(&o, -1, PL_CTR_RECEIVED_ECHO_REPLY_PER_SEC), 150);
    assert_int_equal(ph_value(&o, -1, PL_CTR_MESSAGES_SENT_PER_SEC), 600);
    assert_int_equal(ph_value(&o, -1, PL_CTR_MESSAGES_OUTBOUND_ERRORS), 9);
    assert_int_equal(ph_value(&o, -1, PL_CTR_SENT_DESTINATION_UNREACHABLE), 110);
    assert_int_equal(ph_value(&o, -1, PL_CTR_SENT_ECHO_PER_SEC), 160);
    assert_int_equal(ph_value(&o, -1, PL_CTR_SENT_ECHO_REPLY_PER_SEC), 200);
    assert_int_equal(ph_value(&o, -1, PL_CTR_SENT_ADDRESS_MASK_REPLY), 18);

    ph_object(&r, PL_OBJ_ICMPV6, &o);
    assert_int_equal(ph_value(&o, -1, PL_CTR_MESSAGES_PER_SEC), 650);
    assert_int_equal(ph_value(&o, -1, PL_CTR_RECEIVED_PACKET_TOO_BIG), 32);
    /* Membership reports: MLDv1 responses + MLDv2 reports. */
    assert_int_equal(ph_value(&o, -1, PL_CTR_RECEIVED_MEMBERSHIP_REPORT), 38 + 45);
    assert_int_equal(ph_value(&o, -1, PL_CTR_SENT_MEMBERSHIP_REPORT), 58 + 65);
    assert_int_equal(ph_value(&o, -1, PL_CTR_SENT_NEIGHBOR_ADVERT), 63);
    assert_int_equal(ph_value(&o, -1, PL_CTR_RECEIVED_REDIRECT_PER_SEC), 44);

    ph_object(&r, PL_OBJ_TCPV4, &o);
    assert_int_equal(ph_value(&o, -1, PL_CTR_SEGMENTS_PER_SEC), 1700000);
    assert_int_equal(ph_value(&o, -1, PL_CTR_CONNECTIONS_ESTABLISHED), 25);
    assert_int_equal(ph_value(&o, -1, PL_CTR_CONNECTIONS_ACTIVE), 7000);
    assert_int_equal(ph_value(&o, -1, PL_CTR_CONNECTIONS_PASSIVE), 3000);
    assert_int_equal(ph_value(&o, -1, PL_CTR_CONNECTION_FAILURES), 40);
    assert_int_equal(ph_value(&o, -1, PL_CTR_CONNECTIONS_RESET), 60);
    assert_int_equal(ph_value(&o, -1, PL_CTR_SEGMENTS_RECEIVED_PER_SEC), 900000);
    assert_int_equal(ph_value(&o, -1, PL_CTR_SEGMENTS_SENT_PER_SEC), 800000);
    assert_int_equal(ph_value(&o, -1, PL_CTR_SEGMENTS_RETRANSMITTED_PER_SEC), 1200);

    ph_object(&r, PL_OBJ_UDPV4, &o);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_PER_SEC), 81000);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_RECEIVED_PER_SEC), 40000);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_NO_PORT_PER_SEC), 300);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_RECEIVED_ERRORS), 20);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_SENT_PER_SEC), 41000);

    ph_object(&r, PL_OBJ_UDPV6, &o);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_PER_SEC), 13000);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_NO_PORT_PER_SEC), 70);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_RECEIVED_ERRORS), 7);
    ph_result_free(&r);
    ph_unload(&prov);
}

static void old_kernel(void **state)
{
    (void)state;
    load(OLD);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "", 8, &r);
    /* Network Interface, IPv4, TCPv4, UDPv4: no Icmp line, no snmp6. */
    assert_int_equal(r.objects, 4);
    pl_object o;
    ph_object(&r, PL_OBJ_NETWORK_INTERFACE, &o);
    static const char *const want[] = {"lo", "eth0"};
    ph_names_are(&o, want, 2, 0);
    /* No /sys/class/net: no bandwidth or MTU counters (not zeros), and so
     * nothing to mark: the marker is there and 0. */
    pl_counter c;
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_CURRENT_BANDWIDTH, &c), PL_E_NOT_FOUND);
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_MTU, &c), PL_E_NOT_FOUND);
    assert_int_equal(o.hdr.NumCounters, 16);
    assert_int_equal(ph_value_of(&o, "lo", PL_CTR_UNAVAILABLE_COUNTERS), 0);
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_UNAVAILABLE_COUNTERS), 0);
    assert_int_equal(ph_value_of(&o, "eth0", PL_CTR_BYTES_TOTAL_PER_SEC), 6000);
    assert_int_equal(pl_block_find_object(&r.blk, PL_OBJ_ICMP, &o), PL_E_NOT_FOUND);
    assert_int_equal(pl_block_find_object(&r.blk, PL_OBJ_IPV6, &o), PL_E_NOT_FOUND);
    ph_object(&r, PL_OBJ_UDPV4, &o);
    assert_int_equal(ph_value(&o, -1, PL_CTR_DATAGRAMS_PER_SEC), 190);
    ph_object(&r, PL_OBJ_IPV4, &o);
    assert_int_equal(o.hdr.NumCounters, 17);
    ph_result_free(&r);
    ph_unload(&prov);
}

/* A column missing from the file leaves its counter out (never a zero). */
static void missing_column_leaves_counter_out(void **state)
{
    (void)state;
    char dir[] = "/tmp/perfnet_colXXXXXX";
    ph_tempdir(dir);
    ph_put(dir, "proc/net/snmp", "Tcp: ActiveOpens InSegs\nTcp: 3 10\n");
    load(dir);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "638 510 546", 8, &r);
    assert_int_equal(r.objects, 1);
    pl_object o;
    ph_object(&r, PL_OBJ_TCPV4, &o);
    assert_int_equal(o.hdr.NumCounters, 2);
    assert_int_equal(ph_value(&o, -1, PL_CTR_CONNECTIONS_ACTIVE), 3);
    assert_int_equal(ph_value(&o, -1, PL_CTR_SEGMENTS_RECEIVED_PER_SEC), 10);
    /* Segments/sec needs InSegs and OutSegs: OutSegs is missing. */
    pl_counter c;
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_SEGMENTS_PER_SEC, &c), PL_E_NOT_FOUND);
    ph_result_free(&r);
    ph_unload(&prov);
    ph_rmtree(dir);
}

/* Per interface: a missing speed or mtu marks exactly that counter. */
static void unknown_speed_and_mtu_marked(void **state)
{
    (void)state;
    char dir[] = "/tmp/perfnet_unavXXXXXX";
    ph_tempdir(dir);
    ph_put(dir, "proc/net/dev",
           "Inter-|   Receive                                                |  Transmit\n"
           " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls "
           "carrier compressed\n"
           "     a:  100 1 0 0 0 0 0 0 200 2 0 0 0 0 0 0\n"
           "     b:  300 3 0 0 0 0 0 0 400 4 0 0 0 0 0 0\n"
           "     c:  500 5 0 0 0 0 0 0 600 6 0 0 0 0 0 0\n");
    ph_put(dir, "sys/class/net/a/speed", "100\n");
    ph_put(dir, "sys/class/net/a/mtu", "9000\n");
    ph_mkdir(dir, "sys/class/net/b");                /* neither speed nor mtu */
    ph_put(dir, "sys/class/net/c/mtu", "1280\n"); /* no speed */
    load(dir);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "510", 8, &r);
    pl_object o;
    ph_object(&r, PL_OBJ_NETWORK_INTERFACE, &o);
    static const char *const want[] = {"a", "b", "c"};
    ph_names_are(&o, want, 3, 0);
    assert_int_equal(o.hdr.NumCounters, 18);
    assert_int_equal(ph_value_of(&o, "a", PL_CTR_CURRENT_BANDWIDTH), 100000000);
    assert_int_equal(ph_value_of(&o, "a", PL_CTR_MTU), 9000);
    assert_int_equal(ph_value_of(&o, "a", PL_CTR_UNAVAILABLE_COUNTERS), 0);
    /* bandwidth is position 4, MTU 16 */
    assert_int_equal(ph_value_of(&o, "b", PL_CTR_UNAVAILABLE_COUNTERS), 0x10010);
    assert_int_equal(ph_value_of(&o, "b", PL_CTR_CURRENT_BANDWIDTH), 0);
    assert_int_equal(ph_value_of(&o, "b", PL_CTR_MTU), 0);
    assert_int_equal(ph_available_of(&o, "b", PL_CTR_CURRENT_BANDWIDTH), 0);
    assert_int_equal(ph_available_of(&o, "b", PL_CTR_MTU), 0);
    assert_int_equal(ph_available_of(&o, "b", PL_CTR_BYTES_SENT_PER_SEC), 1);
    assert_int_equal(ph_value_of(&o, "b", PL_CTR_BYTES_SENT_PER_SEC), 400);
    assert_int_equal(ph_value_of(&o, "c", PL_CTR_UNAVAILABLE_COUNTERS), 0x10);
    assert_int_equal(ph_value_of(&o, "c", PL_CTR_MTU), 1280);
    assert_int_equal(ph_available_of(&o, "c", PL_CTR_MTU), 1);
    assert_int_equal(ph_available_of(&o, "c", PL_CTR_CURRENT_BANDWIDTH), 0);
    ph_result_free(&r);
    ph_unload(&prov);
    ph_rmtree(dir);
}

static void queries(void **state)
{
    (void)state;
    load(M1);
    assert_int_equal(prov.open(NULL), 0);
    static const char *const none[] = {"234", "Costly", "Foreign host", "ABCD", "1530"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) ph_expect_nothing(&prov, none[i], ERROR_SUCCESS);
    ph_result r;
    ph_collect_ok(&prov, "638 1532", 8, &r);
    assert_int_equal(r.objects, 2);
    pl_object o;
    assert_int_equal(pl_block_object(&r.blk, 0, &o), PL_OK);
    assert_int_equal(o.hdr.ObjectNameTitleIndex, PL_OBJ_TCPV4);
    assert_int_equal(pl_block_object(&r.blk, 1, &o), PL_OK);
    assert_int_equal(o.hdr.ObjectNameTitleIndex, PL_OBJ_UDPV6);
    ph_result_free(&r);
    ph_unload(&prov);
}

static void collect_before_open(void **state)
{
    (void)state;
    load(M1);
    ph_expect_nothing(&prov, NULL, ERROR_INVALID_HANDLE);
    ph_unload(&prov);
}

/* --------------------------------------------------------------- live */

struct live_if {
    char name[64];
    unsigned long long rx;
};

static size_t read_proc_net_dev(struct live_if *ifs, size_t cap)
{
    FILE *f = fopen("/proc/net/dev", "r");
    if (!f) return 0;
    char line[1024];
    size_t n = 0;
    int ln = 0;
    while (fgets(line, sizeof line, f) && n < cap) {
        if (ln++ < 2) continue;
        char *colon = strchr(line, ':');
        if (!colon) continue;
        *colon = 0;
        char *s = line;
        while (*s == ' ') s++;
        snprintf(ifs[n].name, sizeof ifs[n].name, "%.63s", s);
        ifs[n].rx = strtoull(colon + 1, NULL, 10);
        n++;
    }
    fclose(f);
    return n;
}

static void live_interfaces(void **state)
{
    (void)state;
    struct live_if ifs[256];
    size_t n = read_proc_net_dev(ifs, 256);
    if (n == 0) skip();
    load(NULL);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "510", 8, &r);
    pl_object o;
    ph_object(&r, PL_OBJ_NETWORK_INTERFACE, &o);
    for (size_t i = 0; i < n; i++) {
        /* Counters only grow: the provider's read is later than ours. */
        uint64_t rx = ph_value_of(&o, ifs[i].name, PL_CTR_BYTES_RECEIVED_PER_SEC);
        assert_true(rx >= ifs[i].rx);
    }
    assert_int_equal(pl_object_num_instances(&o), n);
    ph_result_free(&r);
    ph_unload(&prov);
}

static void live_tcp(void **state)
{
    (void)state;
    FILE *f = fopen("/proc/net/snmp", "r");
    if (!f) skip();
    fclose(f);
    load(NULL);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "638 546", 8, &r);
    assert_int_equal(r.objects, 2);
    pl_object o;
    ph_object(&r, PL_OBJ_TCPV4, &o);
    assert_int_equal(o.hdr.NumCounters, 9);
    assert_true(ph_value(&o, -1, PL_CTR_SEGMENTS_PER_SEC) >= ph_value(&o, -1, PL_CTR_SEGMENTS_RECEIVED_PER_SEC));
    ph_result_free(&r);
    ph_unload(&prov);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(interfaces_m1),
        cmocka_unit_test(protocols_m1),
        cmocka_unit_test(old_kernel),
        cmocka_unit_test(missing_column_leaves_counter_out),
        cmocka_unit_test(unknown_speed_and_mtu_marked),
        cmocka_unit_test(queries),
        cmocka_unit_test(collect_before_open),
        cmocka_unit_test(live_interfaces),
        cmocka_unit_test(live_tcp),
    };
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
