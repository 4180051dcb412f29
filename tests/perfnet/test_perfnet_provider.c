/* Tests of libperfnet.so through dlopen(), as the host loads it: canned
 * trees under data/ (PERFLIB_SYSROOT) and cross-checks against this machine. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl_test.h"
#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/winperf.h"

#define M1 PL_SOURCE_DIR "/tests/perfnet/data/m1"
#define OLD PL_SOURCE_DIR "/tests/perfnet/data/old"

static void *lib;
static PM_OPEN_PROC p_open;
static PM_COLLECT_PROC p_collect;
static PM_CLOSE_PROC p_close;

static void load(const char *root)
{
    if (root) setenv("PERFLIB_SYSROOT", root, 1);
    else unsetenv("PERFLIB_SYSROOT");
    lib = dlopen(PERFNET_SO, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(lib);
    p_open = (PM_OPEN_PROC)dlsym(lib, "PerfNetOpen");
    p_collect = (PM_COLLECT_PROC)dlsym(lib, "PerfNetCollect");
    p_close = (PM_CLOSE_PROC)dlsym(lib, "PerfNetClose");
    assert_non_null(p_open);
    assert_non_null(p_collect);
    assert_non_null(p_close);
    /* Internals stay hidden. */
    assert_null(dlsym(lib, "pl_builder_new"));
    assert_null(dlsym(lib, "pl__read_net_dev"));
}

static void unload(void)
{
    assert_int_equal(p_close(), 0);
    dlclose(lib);
    lib = NULL;
}

static void widen(const char *s, WCHAR *w, size_t cap)
{
    size_t i = 0;
    for (; s[i] && i + 1 < cap; i++) w[i] = (WCHAR)(unsigned char)s[i];
    w[i] = 0;
}

struct result {
    uint8_t *buf;
    DWORD bytes, objects;
    pl_block blk;
};

/* Collect with a buffer grown from 8 bytes until it fits, checking the
 * MORE_DATA contract on the way; then open the result with the reader. */
static void collect(const char *query, struct result *r)
{
    WCHAR wq[128];
    widen(query, wq, 128);
    size_t cap = 8;
    for (;;) {
        uint8_t *buf = malloc(cap + 16);
        assert_non_null(buf);
        memset(buf, 0xAB, cap + 16);
        LPVOID data = buf;
        DWORD bytes = (DWORD)cap, objects = 77;
        DWORD rc = p_collect(wq, &data, &bytes, &objects);
        if (rc == ERROR_MORE_DATA) {
            assert_ptr_equal(data, buf);
            assert_int_equal(bytes, 0);
            assert_int_equal(objects, 0);
            for (size_t i = 0; i < cap + 16; i++) assert_int_equal(buf[i], 0xAB);
            free(buf);
            cap *= 2;
            assert_true(cap < (1u << 24));
            continue;
        }
        assert_int_equal(rc, ERROR_SUCCESS);
        assert_ptr_equal((uint8_t *)data, buf + bytes);
        assert_int_equal(bytes % 8, 0);
        assert_true(bytes <= cap);
        for (size_t i = bytes; i < cap + 16; i++) assert_int_equal(buf[i], 0xAB);
        r->buf = buf;
        r->bytes = bytes;
        r->objects = objects;
        break;
    }
    pl_error err = {0};
    assert_int_equal(pl_block_open(&r->blk, r->buf, r->bytes, PL_BLOCK_BARE, r->objects, &err), PL_OK);
}

static void find_object(const struct result *r, uint32_t index, pl_object *o)
{
    assert_int_equal(pl_block_find_object(&r->blk, index, o), PL_OK);
}

static int32_t find_instance(const pl_object *o, const char *name)
{
    uint32_t n = pl_object_num_instances(o);
    for (uint32_t i = 0; i < n; i++) {
        pl_instance in;
        char buf[256];
        assert_int_equal(pl_object_instance(o, (int32_t)i, &in), PL_OK);
        assert_int_equal(pl_instance_name(&in, buf, sizeof buf), PL_OK);
        if (strcmp(buf, name) == 0) return (int32_t)i;
    }
    fail_msg("no instance %s", name);
    return -1;
}

static uint64_t value(const pl_object *o, const char *inst, uint32_t ctr)
{
    pl_counter c;
    pl_instance in;
    assert_int_equal(pl_object_find_counter(o, ctr, &c), PL_OK);
    assert_int_equal(pl_object_instance(o, find_instance(o, inst), &in), PL_OK);
    uint64_t v;
    assert_int_equal(pl_counter_value(&c, &in, &v), PL_OK);
    return v;
}

static uint32_t ctype(const pl_object *o, uint32_t ctr)
{
    pl_counter c;
    assert_int_equal(pl_object_find_counter(o, ctr, &c), PL_OK);
    return c.def.CounterType;
}

static void names_are(const pl_object *o, const char *const *want, size_t n, int full)
{
    assert_int_equal(pl_object_num_instances(o), n);
    if (full) {
        char **names = NULL;
        assert_int_equal(pl_object_instance_names(o, &names), PL_OK);
        for (size_t i = 0; i < n; i++) assert_string_equal(names[i], want[i]);
        pl_free(names);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        pl_instance in;
        char buf[256];
        assert_int_equal(pl_object_instance(o, (int32_t)i, &in), PL_OK);
        assert_int_equal(pl_instance_name(&in, buf, sizeof buf), PL_OK);
        assert_string_equal(buf, want[i]);
    }
}

/* ------------------------------------------------------------ canned m1 */

static void interfaces_m1(void **state)
{
    (void)state;
    load(M1);
    assert_int_equal(p_open(NULL), 0);
    struct result r;
    collect("510", &r);
    /* An items query for 510 gives Network Interface only. */
    assert_int_equal(r.objects, 1);
    pl_object o;
    find_object(&r, PL_OBJ_NETWORK_INTERFACE, &o);
    /* veth9 is in /proc/net/dev but gone from /sys/class/net: left out.
     * Windows has no _Total for this object, and neither do we. */
    static const char *const want[] = {"lo", "eth0", "wlan0"};
    names_are(&o, want, 3, 0);
    assert_int_equal(value(&o, "eth0", PL_CTR_BYTES_TOTAL_PER_SEC), 7000000000ull);
    assert_int_equal(ctype(&o, PL_CTR_BYTES_TOTAL_PER_SEC), PERF_COUNTER_BULK_COUNT);
    assert_int_equal(value(&o, "eth0", PL_CTR_PACKETS_PER_SEC), 7000000);
    assert_int_equal(value(&o, "eth0", PL_CTR_PACKETS_RECEIVED_PER_SEC), 4000000);
    assert_int_equal(value(&o, "eth0", PL_CTR_PACKETS_SENT_PER_SEC), 3000000);
    assert_int_equal(value(&o, "eth0", PL_CTR_BYTES_RECEIVED_PER_SEC), 5000000000ull);
    assert_int_equal(value(&o, "eth0", PL_CTR_BYTES_SENT_PER_SEC), 2000000000ull);
    assert_int_equal(value(&o, "eth0", PL_CTR_PACKETS_RECEIVED_UNICAST_PER_SEC), 4000000 - 20000);
    assert_int_equal(value(&o, "eth0", PL_CTR_PACKETS_RECEIVED_NON_UNICAST_PER_SEC), 20000);
    assert_int_equal(value(&o, "eth0", PL_CTR_MULTICAST_PACKETS_RECEIVED_PER_SEC), 20000);
    assert_int_equal(value(&o, "eth0", PL_CTR_PACKETS_RECEIVED_DISCARDED), 7);
    assert_int_equal(ctype(&o, PL_CTR_PACKETS_RECEIVED_DISCARDED), PERF_COUNTER_LARGE_RAWCOUNT);
    assert_int_equal(value(&o, "eth0", PL_CTR_PACKETS_RECEIVED_ERRORS), 3);
    assert_int_equal(value(&o, "eth0", PL_CTR_PACKETS_OUTBOUND_DISCARDED), 2);
    assert_int_equal(value(&o, "eth0", PL_CTR_PACKETS_OUTBOUND_ERRORS), 1);
    assert_int_equal(value(&o, "eth0", PL_CTR_COLLISIONS), 5);
    assert_int_equal(value(&o, "eth0", PL_CTR_CARRIER_ERRORS), 4);
    assert_int_equal(value(&o, "eth0", PL_CTR_MTU), 1500);
    assert_int_equal(value(&o, "lo", PL_CTR_MTU), 65536);
    /* Speed 1000 Mb/s in bits/s; unknown speed (-1, no file) is 0. */
    assert_int_equal(value(&o, "eth0", PL_CTR_CURRENT_BANDWIDTH), 1000000000ull);
    assert_int_equal(ctype(&o, PL_CTR_CURRENT_BANDWIDTH), PERF_COUNTER_LARGE_RAWCOUNT);
    assert_int_equal(value(&o, "lo", PL_CTR_CURRENT_BANDWIDTH), 0);
    assert_int_equal(value(&o, "wlan0", PL_CTR_CURRENT_BANDWIDTH), 0);
    assert_int_equal(value(&o, "wlan0", PL_CTR_PACKETS_RECEIVED_UNICAST_PER_SEC), 2400);
    /* No packet count of the output queue in /proc or /sys: not offered. */
    pl_counter c;
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_OUTPUT_QUEUE_LENGTH, &c), PL_E_NOT_FOUND);
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_PACKETS_SENT_UNICAST_PER_SEC, &c), PL_E_NOT_FOUND);
    free(r.buf);
    unload();
}

static uint64_t single(const pl_object *o, uint32_t ctr)
{
    pl_counter c;
    pl_instance in;
    assert_int_equal(pl_object_find_counter(o, ctr, &c), PL_OK);
    assert_int_equal(pl_object_instance(o, -1, &in), PL_OK);
    uint64_t v;
    assert_int_equal(pl_counter_value(&c, &in, &v), PL_OK);
    return v;
}

static void protocols_m1(void **state)
{
    (void)state;
    load(M1);
    assert_int_equal(p_open(NULL), 0);
    struct result r;
    collect("Global", &r);
    /* Network Interface, IPv4, IPv6, ICMP, ICMPv6, TCPv4, UDPv4, UDPv6; no TCPv6. */
    assert_int_equal(r.objects, 8);
    pl_object o;
    assert_int_equal(pl_block_find_object(&r.blk, PL_OBJ_TCPV6, &o), PL_E_NOT_FOUND);

    find_object(&r, PL_OBJ_IPV4, &o);
    assert_int_equal(pl_object_num_instances(&o), 0);
    assert_int_equal(o.hdr.NumInstances, PERF_NO_INSTANCES);
    assert_int_equal(o.hdr.NumCounters, 17);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_PER_SEC), 180000);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_RECEIVED_PER_SEC), 100000);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_RECEIVED_HEADER_ERRORS), 10);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_RECEIVED_ADDRESS_ERRORS), 20);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_FORWARDED_PER_SEC), 300);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_RECEIVED_UNKNOWN_PROTOCOL), 4);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_RECEIVED_DISCARDED), 50);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_RECEIVED_DELIVERED_PER_SEC), 99000);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_SENT_PER_SEC), 80000);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_OUTBOUND_DISCARDED), 6);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_OUTBOUND_NO_ROUTE), 7);
    assert_int_equal(single(&o, PL_CTR_FRAGMENTS_RECEIVED_PER_SEC), 400);
    assert_int_equal(single(&o, PL_CTR_FRAGMENTS_REASSEMBLED_PER_SEC), 100);
    assert_int_equal(single(&o, PL_CTR_FRAGMENT_REASSEMBLY_FAILURES), 8);
    assert_int_equal(single(&o, PL_CTR_FRAGMENTED_DATAGRAMS_PER_SEC), 90);
    assert_int_equal(single(&o, PL_CTR_FRAGMENTATION_FAILURES), 9);
    assert_int_equal(single(&o, PL_CTR_FRAGMENTS_CREATED_PER_SEC), 270);
    assert_int_equal(ctype(&o, PL_CTR_DATAGRAMS_PER_SEC), PERF_COUNTER_BULK_COUNT);
    assert_int_equal(ctype(&o, PL_CTR_FRAGMENTATION_FAILURES), PERF_COUNTER_LARGE_RAWCOUNT);

    find_object(&r, PL_OBJ_IPV6, &o);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_PER_SEC), 9000);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_FORWARDED_PER_SEC), 13);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_RECEIVED_DELIVERED_PER_SEC), 4900);
    assert_int_equal(single(&o, PL_CTR_FRAGMENTS_CREATED_PER_SEC), 23);

    find_object(&r, PL_OBJ_ICMP, &o);
    assert_int_equal(o.hdr.NumCounters, 27);
    assert_int_equal(single(&o, PL_CTR_MESSAGES_PER_SEC), 1100);
    assert_int_equal(single(&o, PL_CTR_MESSAGES_RECEIVED_PER_SEC), 500);
    assert_int_equal(single(&o, PL_CTR_MESSAGES_RECEIVED_ERRORS), 5);
    assert_int_equal(single(&o, PL_CTR_RECEIVED_DEST_UNREACHABLE), 100);
    assert_int_equal(single(&o, PL_CTR_RECEIVED_TIME_EXCEEDED), 30);
    assert_int_equal(single(&o, PL_CTR_RECEIVED_ECHO_PER_SEC), 200);
    assert_int_equal(single(&o, PL_CTR_RECEIVED_ECHO_REPLY_PER_SEC), 150);
    assert_int_equal(single(&o, PL_CTR_MESSAGES_SENT_PER_SEC), 600);
    assert_int_equal(single(&o, PL_CTR_MESSAGES_OUTBOUND_ERRORS), 9);
    assert_int_equal(single(&o, PL_CTR_SENT_DESTINATION_UNREACHABLE), 110);
    assert_int_equal(single(&o, PL_CTR_SENT_ECHO_PER_SEC), 160);
    assert_int_equal(single(&o, PL_CTR_SENT_ECHO_REPLY_PER_SEC), 200);
    assert_int_equal(single(&o, PL_CTR_SENT_ADDRESS_MASK_REPLY), 18);

    find_object(&r, PL_OBJ_ICMPV6, &o);
    assert_int_equal(single(&o, PL_CTR_MESSAGES_PER_SEC), 650);
    assert_int_equal(single(&o, PL_CTR_RECEIVED_PACKET_TOO_BIG), 32);
    /* Membership reports: MLDv1 responses + MLDv2 reports. */
    assert_int_equal(single(&o, PL_CTR_RECEIVED_MEMBERSHIP_REPORT), 38 + 45);
    assert_int_equal(single(&o, PL_CTR_SENT_MEMBERSHIP_REPORT), 58 + 65);
    assert_int_equal(single(&o, PL_CTR_SENT_NEIGHBOR_ADVERT), 63);
    assert_int_equal(single(&o, PL_CTR_RECEIVED_REDIRECT_PER_SEC), 44);

    find_object(&r, PL_OBJ_TCPV4, &o);
    assert_int_equal(single(&o, PL_CTR_SEGMENTS_PER_SEC), 1700000);
    assert_int_equal(single(&o, PL_CTR_CONNECTIONS_ESTABLISHED), 25);
    assert_int_equal(single(&o, PL_CTR_CONNECTIONS_ACTIVE), 7000);
    assert_int_equal(single(&o, PL_CTR_CONNECTIONS_PASSIVE), 3000);
    assert_int_equal(single(&o, PL_CTR_CONNECTION_FAILURES), 40);
    assert_int_equal(single(&o, PL_CTR_CONNECTIONS_RESET), 60);
    assert_int_equal(single(&o, PL_CTR_SEGMENTS_RECEIVED_PER_SEC), 900000);
    assert_int_equal(single(&o, PL_CTR_SEGMENTS_SENT_PER_SEC), 800000);
    assert_int_equal(single(&o, PL_CTR_SEGMENTS_RETRANSMITTED_PER_SEC), 1200);

    find_object(&r, PL_OBJ_UDPV4, &o);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_PER_SEC), 81000);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_RECEIVED_PER_SEC), 40000);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_NO_PORT_PER_SEC), 300);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_RECEIVED_ERRORS), 20);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_SENT_PER_SEC), 41000);

    find_object(&r, PL_OBJ_UDPV6, &o);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_PER_SEC), 13000);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_NO_PORT_PER_SEC), 70);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_RECEIVED_ERRORS), 7);
    free(r.buf);
    unload();
}

static void old_kernel(void **state)
{
    (void)state;
    load(OLD);
    assert_int_equal(p_open(NULL), 0);
    struct result r;
    collect("", &r);
    /* Network Interface, IPv4, TCPv4, UDPv4: no Icmp line, no snmp6. */
    assert_int_equal(r.objects, 4);
    pl_object o;
    find_object(&r, PL_OBJ_NETWORK_INTERFACE, &o);
    static const char *const want[] = {"lo", "eth0"};
    names_are(&o, want, 2, 0);
    /* No /sys/class/net: no bandwidth or MTU counters (not zeros). */
    pl_counter c;
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_CURRENT_BANDWIDTH, &c), PL_E_NOT_FOUND);
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_MTU, &c), PL_E_NOT_FOUND);
    assert_int_equal(value(&o, "eth0", PL_CTR_BYTES_TOTAL_PER_SEC), 6000);
    assert_int_equal(pl_block_find_object(&r.blk, PL_OBJ_ICMP, &o), PL_E_NOT_FOUND);
    assert_int_equal(pl_block_find_object(&r.blk, PL_OBJ_IPV6, &o), PL_E_NOT_FOUND);
    find_object(&r, PL_OBJ_UDPV4, &o);
    assert_int_equal(single(&o, PL_CTR_DATAGRAMS_PER_SEC), 190);
    find_object(&r, PL_OBJ_IPV4, &o);
    assert_int_equal(o.hdr.NumCounters, 17);
    free(r.buf);
    unload();
}

/* A column missing from the file leaves its counter out (never a zero). */
static void missing_column_leaves_counter_out(void **state)
{
    (void)state;
    char dir[] = "/tmp/perfnet_colXXXXXX";
    assert_non_null(mkdtemp(dir));
    char p[256];
    snprintf(p, sizeof p, "%s/proc", dir);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/proc/net", dir);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/proc/net/snmp", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("Tcp: ActiveOpens InSegs\nTcp: 3 10\n", f);
    fclose(f);
    load(dir);
    assert_int_equal(p_open(NULL), 0);
    struct result r;
    collect("638 510 546", &r);
    assert_int_equal(r.objects, 1);
    pl_object o;
    find_object(&r, PL_OBJ_TCPV4, &o);
    assert_int_equal(o.hdr.NumCounters, 2);
    assert_int_equal(single(&o, PL_CTR_CONNECTIONS_ACTIVE), 3);
    assert_int_equal(single(&o, PL_CTR_SEGMENTS_RECEIVED_PER_SEC), 10);
    /* Segments/sec needs InSegs and OutSegs: OutSegs is missing. */
    pl_counter c;
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_SEGMENTS_PER_SEC, &c), PL_E_NOT_FOUND);
    free(r.buf);
    unload();
    unlink(p);
    snprintf(p, sizeof p, "%s/proc/net", dir);
    rmdir(p);
    snprintf(p, sizeof p, "%s/proc", dir);
    rmdir(p);
    rmdir(dir);
}

static void queries(void **state)
{
    (void)state;
    load(M1);
    assert_int_equal(p_open(NULL), 0);
    static const char *const none[] = {"234", "Costly", "Foreign host", "ABCD", "1530"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        uint8_t buf[64];
        LPVOID data = buf;
        DWORD bytes = sizeof buf, objects = 9;
        WCHAR wq[64];
        widen(none[i], wq, 64);
        assert_int_equal(p_collect(wq, &data, &bytes, &objects), ERROR_SUCCESS);
        assert_int_equal(bytes, 0);
        assert_int_equal(objects, 0);
        assert_ptr_equal(data, buf);
    }
    struct result r;
    collect("638 1532", &r);
    assert_int_equal(r.objects, 2);
    pl_object o;
    assert_int_equal(pl_block_object(&r.blk, 0, &o), PL_OK);
    assert_int_equal(o.hdr.ObjectNameTitleIndex, PL_OBJ_TCPV4);
    assert_int_equal(pl_block_object(&r.blk, 1, &o), PL_OK);
    assert_int_equal(o.hdr.ObjectNameTitleIndex, PL_OBJ_UDPV6);
    free(r.buf);
    unload();
}

static void collect_before_open(void **state)
{
    (void)state;
    load(M1);
    uint8_t buf[64];
    LPVOID data = buf;
    DWORD bytes = sizeof buf, objects = 5;
    assert_int_equal(p_collect(NULL, &data, &bytes, &objects), ERROR_INVALID_HANDLE);
    assert_int_equal(bytes, 0);
    assert_int_equal(objects, 0);
    assert_ptr_equal(data, buf);
    unload();
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
    assert_int_equal(p_open(NULL), 0);
    struct result r;
    collect("510", &r);
    pl_object o;
    find_object(&r, PL_OBJ_NETWORK_INTERFACE, &o);
    for (size_t i = 0; i < n; i++) {
        /* Counters only grow: the provider's read is later than ours. */
        uint64_t rx = value(&o, ifs[i].name, PL_CTR_BYTES_RECEIVED_PER_SEC);
        assert_true(rx >= ifs[i].rx);
    }
    assert_int_equal(pl_object_num_instances(&o), n);
    free(r.buf);
    unload();
}

static void live_tcp(void **state)
{
    (void)state;
    FILE *f = fopen("/proc/net/snmp", "r");
    if (!f) skip();
    fclose(f);
    load(NULL);
    assert_int_equal(p_open(NULL), 0);
    struct result r;
    collect("638 546", &r);
    assert_int_equal(r.objects, 2);
    pl_object o;
    find_object(&r, PL_OBJ_TCPV4, &o);
    assert_int_equal(o.hdr.NumCounters, 9);
    assert_true(single(&o, PL_CTR_SEGMENTS_PER_SEC) >= single(&o, PL_CTR_SEGMENTS_RECEIVED_PER_SEC));
    free(r.buf);
    unload();
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(interfaces_m1),
        cmocka_unit_test(protocols_m1),
        cmocka_unit_test(old_kernel),
        cmocka_unit_test(missing_column_leaves_counter_out),
        cmocka_unit_test(queries),
        cmocka_unit_test(collect_before_open),
        cmocka_unit_test(live_interfaces),
        cmocka_unit_test(live_tcp),
    };
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
