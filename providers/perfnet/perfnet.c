/* perflib built-in provider: Network Interface (510), IPv4 (546), IPv6 (548),
 * ICMP (582), ICMPv6 (1534), TCPv4 (638), TCPv6 (1530), UDPv4 (658),
 * UDPv6 (1532).
 *
 * Sources: /proc/net/dev (per-interface counters), /sys/class/net/<if>
 * (speed, mtu, ifindex), rtnetlink RTM_GETQDISC (root qdisc backlog, live
 * machine only), /proc/net/snmp (Ip, Icmp, Tcp, Udp: looked up by column
 * name), /proc/net/snmp6 (Ip6*, Icmp6*, Udp6*) and, for Connections
 * Established, a NETLINK_SOCK_DIAG dump (live machine) or /proc/net/tcp,
 * tcp6 (a canned tree, or sock_diag refused). Every decision is described in
 * docs/providers/perfnet.md; the short form:
 * - Network Interface: one instance per /proc/net/dev line, named by the
 *   interface name, no _Total (Windows has none). An interface whose
 *   /sys/class/net directory has gone by the time it is read is left out.
 *   Output Queue Length is the root qdisc's qlen; it is marked unavailable
 *   when netlink fails and always under a PERFLIB_SYSROOT other than "/"
 *   (netlink describes the live machine, not the canned tree). The dump
 *   takes rtnl, which a driver can hold for seconds: it runs on a thread of
 *   its own (perfnet_dump.c), asked at the start of the collection and
 *   waited for, after the other sources are read, until a deadline
 *   (PN_DUMP_DEADLINE_MS); a dump that misses it leaves the counter marked
 *   until it returns.
 * - Linux counts TCP segments and opens once for both IP versions (the Tcp:
 *   line of /proc/net/snmp): TCPv4 reports those totals. Connections
 *   Established is counted per IP version (ESTABLISHED + CLOSE_WAIT
 *   sockets); TCPv6 has TCPv4's counters with all but that one always
 *   marked unavailable. Both TCP objects carry "Unavailable Counters".
 * - A counter whose source column is missing from the file is left out of
 *   the object (never a made-up zero); an object with no counter left is
 *   left out. A Network Interface value that one interface lacks (no known
 *   speed, no mtu) is marked in the object's "Unavailable Counters"
 *   (docs/block-format.md) and written as 0.
 * Calls are serialised by a mutex (the host serialises them too). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/collect_io.h"
#include "perfnet_int.h"
#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/provider.h"
#include "platform.h"

PL_PROVIDER_EXPORT DWORD PerfNetOpen(LPWSTR device_names);
PL_PROVIDER_EXPORT DWORD PerfNetCollectNonBlocking(LPCWSTR query);
PL_PROVIDER_EXPORT DWORD PerfNetCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects);
PL_PROVIDER_EXPORT DWORD PerfNetClose(void);
#ifdef PERFNET_TEST_HOOKS
/* Test builds only (perfnet_int.h): the dump the thread makes instead of
 * the real one (NULL: the real one), and 1 to dump on the collecting thread
 * after the other sources, as before the thread. */
PL_PROVIDER_EXPORT void PerfNetTestSetDump(pn_dump_fn *fn, int inline_dump);
#endif


#define RATE PERF_COUNTER_BULK_COUNT
#define RAW PERF_COUNTER_LARGE_RAWCOUNT

/* ------------------------------------------------------ Network Interface */

enum nsrc {
    N_BYTES_TOTAL, N_PACKETS, N_PACKETS_RX, N_PACKETS_TX, N_BANDWIDTH, N_BYTES_RX, N_UNICAST_RX,
    N_NONUNICAST_RX, N_DISCARD_RX, N_ERRORS_RX, N_BYTES_TX, N_DISCARD_TX, N_ERRORS_TX, N_OUTPUT_QUEUE,
    N_MULTICAST_RX, N_COLLISIONS, N_CARRIER, N_MTU,
};

/* Per-interface values that do not come from /proc/net/dev or sysfs. */
struct ifextra {
    int oql_ok;           /* the root qdisc's queue length is known */
    uint64_t oql;
};

struct ndef {
    uint32_t index;
    uint32_t type;
    enum nsrc src;
};

static const struct ndef if_counters[] = {
    {PL_CTR_BYTES_TOTAL_PER_SEC, RATE, N_BYTES_TOTAL},
    {PL_CTR_PACKETS_PER_SEC, RATE, N_PACKETS},
    {PL_CTR_PACKETS_RECEIVED_PER_SEC, RATE, N_PACKETS_RX},
    {PL_CTR_PACKETS_SENT_PER_SEC, RATE, N_PACKETS_TX},
    {PL_CTR_CURRENT_BANDWIDTH, RAW, N_BANDWIDTH},
    {PL_CTR_BYTES_RECEIVED_PER_SEC, RATE, N_BYTES_RX},
    {PL_CTR_PACKETS_RECEIVED_UNICAST_PER_SEC, RATE, N_UNICAST_RX},
    {PL_CTR_PACKETS_RECEIVED_NON_UNICAST_PER_SEC, RATE, N_NONUNICAST_RX},
    {PL_CTR_PACKETS_RECEIVED_DISCARDED, RAW, N_DISCARD_RX},
    {PL_CTR_PACKETS_RECEIVED_ERRORS, RAW, N_ERRORS_RX},
    {PL_CTR_BYTES_SENT_PER_SEC, RATE, N_BYTES_TX},
    {PL_CTR_PACKETS_OUTBOUND_DISCARDED, RAW, N_DISCARD_TX},
    {PL_CTR_PACKETS_OUTBOUND_ERRORS, RAW, N_ERRORS_TX},
    {PL_CTR_OUTPUT_QUEUE_LENGTH, PERF_COUNTER_RAWCOUNT, N_OUTPUT_QUEUE},
    {PL_CTR_MULTICAST_PACKETS_RECEIVED_PER_SEC, RATE, N_MULTICAST_RX},
    {PL_CTR_COLLISIONS, RAW, N_COLLISIONS},
    {PL_CTR_CARRIER_ERRORS, RAW, N_CARRIER},
    {PL_CTR_MTU, PERF_COUNTER_RAWCOUNT, N_MTU},
};
#define N_IF_COUNTERS (sizeof if_counters / sizeof if_counters[0])

static uint64_t if_value(enum nsrc s, const struct pl__netdev *d, const struct pl__netif_attrs *a,
                         const struct ifextra *x)
{
    const uint64_t *f = d->f;
    switch (s) {
    case N_BYTES_TOTAL: return f[PL__ND_RX_BYTES] + f[PL__ND_TX_BYTES];
    case N_PACKETS: return f[PL__ND_RX_PACKETS] + f[PL__ND_TX_PACKETS];
    case N_PACKETS_RX: return f[PL__ND_RX_PACKETS];
    case N_PACKETS_TX: return f[PL__ND_TX_PACKETS];
    /* Without a speed (-1, or EINVAL for virtual and down links) the value
     * is marked unavailable (if_unavailable) and written as 0. */
    case N_BANDWIDTH: return (a->have & PL__NETIF_HAVE_SPEED) ? a->speed_mbps * 1000000ull : 0;
    case N_BYTES_RX: return f[PL__ND_RX_BYTES];
    case N_UNICAST_RX:
        return f[PL__ND_RX_PACKETS] > f[PL__ND_RX_MULTICAST] ? f[PL__ND_RX_PACKETS] - f[PL__ND_RX_MULTICAST] : 0;
    case N_NONUNICAST_RX: return f[PL__ND_RX_MULTICAST];
    case N_DISCARD_RX: return f[PL__ND_RX_DROP];
    case N_ERRORS_RX: return f[PL__ND_RX_ERRS];
    case N_BYTES_TX: return f[PL__ND_TX_BYTES];
    case N_DISCARD_TX: return f[PL__ND_TX_DROP];
    case N_ERRORS_TX: return f[PL__ND_TX_ERRS];
    case N_OUTPUT_QUEUE: return x->oql_ok ? x->oql : 0;
    case N_MULTICAST_RX: return f[PL__ND_RX_MULTICAST];
    case N_COLLISIONS: return f[PL__ND_TX_COLLS];
    case N_CARRIER: return f[PL__ND_TX_CARRIER];
    case N_MTU: return (a->have & PL__NETIF_HAVE_MTU) ? a->mtu : 0;
    }
    return 0;
}

/* Is the value of source s unreadable for this interface? */
static int if_unavailable(enum nsrc s, const struct pl__netif_attrs *a, const struct ifextra *x)
{
    if (s == N_BANDWIDTH) return !(a->have & PL__NETIF_HAVE_SPEED);
    if (s == N_MTU) return !(a->have & PL__NETIF_HAVE_MTU);
    if (s == N_OUTPUT_QUEUE) return !x->oql_ok;
    return 0;
}

/* The Output Queue Length of every interface, from one netlink dump `qd`
 * (NULL: none, every value marked). Only on the live machine: under a
 * canned PERFLIB_SYSROOT the kernel's qdiscs belong to another set of
 * interfaces, so nothing is known (all marked); the dump needs the ifindex
 * of sysfs. An interface whose root qdisc is not in the dump has the
 * built-in noop qdisc (down, or a device without a queue), which holds
 * nothing: 0. */
static void output_queues(const struct pl__qdiscs *qd, const struct pl__netif_attrs *attrs, size_t n,
                          struct ifextra *x)
{
    for (size_t k = 0; k < n; k++) {
        x[k].oql_ok = 0;
        x[k].oql = 0;
        if (!qd || attrs[k].have == UINT32_MAX || !(attrs[k].have & PL__NETIF_HAVE_IFINDEX)) continue;
        const struct pl__qdisc *q = pl__qdisc_find(qd, attrs[k].ifindex);
        if (q && !q->have_qlen) continue; /* a root without statistics */
        x[k].oql_ok = 1;
        x[k].oql = q ? q->qlen : 0;
    }
}

/* ------------------------------------------------------- protocol objects */

/* Where a protocol counter comes from. */
enum ssrc {
    S_COLUMN = 0,         /* snmp/snmp6 column a (+ b); left out when absent */
    S_ESTAB_V4,           /* ESTABLISHED + CLOSE_WAIT over IPv4 (sock_diag or
                           * /proc/net/tcp{,6}); marked when unknown */
    S_ESTAB_V6,           /* the same over IPv6 */
    S_NONE,               /* no source on Linux: always marked unavailable */
};

struct sdef {
    uint32_t index;
    uint32_t type;
    const char *a;        /* column name */
    const char *b;        /* NULL, or a second column added to a */
    int b_optional;       /* b is added when present */
    enum ssrc src;
};

enum pfile { F_SNMP, F_SNMP6, F_SOCKS };

struct pobj {
    uint32_t index;
    enum pfile file;      /* snmp (proto "Ip"...), snmp6 (proto ""), sockets only */
    const char *proto;
    const struct sdef *defs;
    size_t n;
    int marker;           /* carries Unavailable Counters (the TCP objects) */
};

static const struct sdef ipv4[] = {
    {PL_CTR_DATAGRAMS_PER_SEC, RATE, "InReceives", "OutRequests", 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_RECEIVED_PER_SEC, RATE, "InReceives", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_RECEIVED_HEADER_ERRORS, RAW, "InHdrErrors", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_RECEIVED_ADDRESS_ERRORS, RAW, "InAddrErrors", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_FORWARDED_PER_SEC, RATE, "ForwDatagrams", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_RECEIVED_UNKNOWN_PROTOCOL, RAW, "InUnknownProtos", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_RECEIVED_DISCARDED, RAW, "InDiscards", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_RECEIVED_DELIVERED_PER_SEC, RATE, "InDelivers", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_SENT_PER_SEC, RATE, "OutRequests", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_OUTBOUND_DISCARDED, RAW, "OutDiscards", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_OUTBOUND_NO_ROUTE, RAW, "OutNoRoutes", NULL, 0, S_COLUMN},
    {PL_CTR_FRAGMENTS_RECEIVED_PER_SEC, RATE, "ReasmReqds", NULL, 0, S_COLUMN},
    {PL_CTR_FRAGMENTS_REASSEMBLED_PER_SEC, RATE, "ReasmOKs", NULL, 0, S_COLUMN},
    {PL_CTR_FRAGMENT_REASSEMBLY_FAILURES, RAW, "ReasmFails", NULL, 0, S_COLUMN},
    {PL_CTR_FRAGMENTED_DATAGRAMS_PER_SEC, RATE, "FragOKs", NULL, 0, S_COLUMN},
    {PL_CTR_FRAGMENTATION_FAILURES, RAW, "FragFails", NULL, 0, S_COLUMN},
    {PL_CTR_FRAGMENTS_CREATED_PER_SEC, RATE, "FragCreates", NULL, 0, S_COLUMN},
};

static const struct sdef ipv6[] = {
    {PL_CTR_DATAGRAMS_PER_SEC, RATE, "Ip6InReceives", "Ip6OutRequests", 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_RECEIVED_PER_SEC, RATE, "Ip6InReceives", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_RECEIVED_HEADER_ERRORS, RAW, "Ip6InHdrErrors", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_RECEIVED_ADDRESS_ERRORS, RAW, "Ip6InAddrErrors", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_FORWARDED_PER_SEC, RATE, "Ip6OutForwDatagrams", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_RECEIVED_UNKNOWN_PROTOCOL, RAW, "Ip6InUnknownProtos", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_RECEIVED_DISCARDED, RAW, "Ip6InDiscards", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_RECEIVED_DELIVERED_PER_SEC, RATE, "Ip6InDelivers", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_SENT_PER_SEC, RATE, "Ip6OutRequests", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_OUTBOUND_DISCARDED, RAW, "Ip6OutDiscards", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_OUTBOUND_NO_ROUTE, RAW, "Ip6OutNoRoutes", NULL, 0, S_COLUMN},
    {PL_CTR_FRAGMENTS_RECEIVED_PER_SEC, RATE, "Ip6ReasmReqds", NULL, 0, S_COLUMN},
    {PL_CTR_FRAGMENTS_REASSEMBLED_PER_SEC, RATE, "Ip6ReasmOKs", NULL, 0, S_COLUMN},
    {PL_CTR_FRAGMENT_REASSEMBLY_FAILURES, RAW, "Ip6ReasmFails", NULL, 0, S_COLUMN},
    {PL_CTR_FRAGMENTED_DATAGRAMS_PER_SEC, RATE, "Ip6FragOKs", NULL, 0, S_COLUMN},
    {PL_CTR_FRAGMENTATION_FAILURES, RAW, "Ip6FragFails", NULL, 0, S_COLUMN},
    {PL_CTR_FRAGMENTS_CREATED_PER_SEC, RATE, "Ip6FragCreates", NULL, 0, S_COLUMN},
};

static const struct sdef icmp4[] = {
    {PL_CTR_MESSAGES_PER_SEC, RATE, "InMsgs", "OutMsgs", 0, S_COLUMN},
    {PL_CTR_MESSAGES_RECEIVED_PER_SEC, RATE, "InMsgs", NULL, 0, S_COLUMN},
    {PL_CTR_MESSAGES_RECEIVED_ERRORS, RAW, "InErrors", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_DEST_UNREACHABLE, RAW, "InDestUnreachs", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_TIME_EXCEEDED, RAW, "InTimeExcds", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_PARAMETER_PROBLEM, RAW, "InParmProbs", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_SOURCE_QUENCH, RAW, "InSrcQuenchs", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_REDIRECT_PER_SEC, RATE, "InRedirects", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_ECHO_PER_SEC, RATE, "InEchos", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_ECHO_REPLY_PER_SEC, RATE, "InEchoReps", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_TIMESTAMP_PER_SEC, RATE, "InTimestamps", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_TIMESTAMP_REPLY_PER_SEC, RATE, "InTimestampReps", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_ADDRESS_MASK, RAW, "InAddrMasks", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_ADDRESS_MASK_REPLY, RAW, "InAddrMaskReps", NULL, 0, S_COLUMN},
    {PL_CTR_MESSAGES_SENT_PER_SEC, RATE, "OutMsgs", NULL, 0, S_COLUMN},
    {PL_CTR_MESSAGES_OUTBOUND_ERRORS, RAW, "OutErrors", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_DESTINATION_UNREACHABLE, RAW, "OutDestUnreachs", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_TIME_EXCEEDED, RAW, "OutTimeExcds", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_PARAMETER_PROBLEM, RAW, "OutParmProbs", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_SOURCE_QUENCH, RAW, "OutSrcQuenchs", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_REDIRECT_PER_SEC, RATE, "OutRedirects", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_ECHO_PER_SEC, RATE, "OutEchos", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_ECHO_REPLY_PER_SEC, RATE, "OutEchoReps", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_TIMESTAMP_PER_SEC, RATE, "OutTimestamps", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_TIMESTAMP_REPLY_PER_SEC, RATE, "OutTimestampReps", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_ADDRESS_MASK, RAW, "OutAddrMasks", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_ADDRESS_MASK_REPLY, RAW, "OutAddrMaskReps", NULL, 0, S_COLUMN},
};

static const struct sdef icmp6[] = {
    {PL_CTR_MESSAGES_PER_SEC, RATE, "Icmp6InMsgs", "Icmp6OutMsgs", 0, S_COLUMN},
    {PL_CTR_MESSAGES_RECEIVED_PER_SEC, RATE, "Icmp6InMsgs", NULL, 0, S_COLUMN},
    {PL_CTR_MESSAGES_RECEIVED_ERRORS, RAW, "Icmp6InErrors", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_DEST_UNREACHABLE, RAW, "Icmp6InDestUnreachs", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_PACKET_TOO_BIG, RAW, "Icmp6InPktTooBigs", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_TIME_EXCEEDED, RAW, "Icmp6InTimeExcds", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_PARAMETER_PROBLEM, RAW, "Icmp6InParmProblems", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_ECHO_PER_SEC, RATE, "Icmp6InEchos", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_ECHO_REPLY_PER_SEC, RATE, "Icmp6InEchoReplies", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_MEMBERSHIP_QUERY, RAW, "Icmp6InGroupMembQueries", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_MEMBERSHIP_REPORT, RAW, "Icmp6InGroupMembResponses", "Icmp6InMLDv2Reports", 1, S_COLUMN},
    {PL_CTR_RECEIVED_MEMBERSHIP_REDUCTION, RAW, "Icmp6InGroupMembReductions", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_ROUTER_SOLICIT, RAW, "Icmp6InRouterSolicits", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_ROUTER_ADVERT, RAW, "Icmp6InRouterAdvertisements", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_NEIGHBOR_SOLICIT, RAW, "Icmp6InNeighborSolicits", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_NEIGHBOR_ADVERT, RAW, "Icmp6InNeighborAdvertisements", NULL, 0, S_COLUMN},
    {PL_CTR_RECEIVED_REDIRECT_PER_SEC, RATE, "Icmp6InRedirects", NULL, 0, S_COLUMN},
    {PL_CTR_MESSAGES_SENT_PER_SEC, RATE, "Icmp6OutMsgs", NULL, 0, S_COLUMN},
    {PL_CTR_MESSAGES_OUTBOUND_ERRORS, RAW, "Icmp6OutErrors", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_DESTINATION_UNREACHABLE, RAW, "Icmp6OutDestUnreachs", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_PACKET_TOO_BIG, RAW, "Icmp6OutPktTooBigs", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_TIME_EXCEEDED, RAW, "Icmp6OutTimeExcds", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_PARAMETER_PROBLEM, RAW, "Icmp6OutParmProblems", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_ECHO_PER_SEC, RATE, "Icmp6OutEchos", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_ECHO_REPLY_PER_SEC, RATE, "Icmp6OutEchoReplies", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_MEMBERSHIP_QUERY, RAW, "Icmp6OutGroupMembQueries", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_MEMBERSHIP_REPORT, RAW, "Icmp6OutGroupMembResponses", "Icmp6OutMLDv2Reports", 1, S_COLUMN},
    {PL_CTR_SENT_MEMBERSHIP_REDUCTION, RAW, "Icmp6OutGroupMembReductions", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_ROUTER_SOLICIT, RAW, "Icmp6OutRouterSolicits", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_ROUTER_ADVERT, RAW, "Icmp6OutRouterAdvertisements", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_NEIGHBOR_SOLICIT, RAW, "Icmp6OutNeighborSolicits", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_NEIGHBOR_ADVERT, RAW, "Icmp6OutNeighborAdvertisements", NULL, 0, S_COLUMN},
    {PL_CTR_SENT_REDIRECT_PER_SEC, RATE, "Icmp6OutRedirects", NULL, 0, S_COLUMN},
};

static const struct sdef tcp4[] = {
    {PL_CTR_SEGMENTS_PER_SEC, RATE, "InSegs", "OutSegs", 0, S_COLUMN},
    {PL_CTR_CONNECTIONS_ESTABLISHED, RAW, NULL, NULL, 0, S_ESTAB_V4},
    {PL_CTR_CONNECTIONS_ACTIVE, RAW, "ActiveOpens", NULL, 0, S_COLUMN},
    {PL_CTR_CONNECTIONS_PASSIVE, RAW, "PassiveOpens", NULL, 0, S_COLUMN},
    {PL_CTR_CONNECTION_FAILURES, RAW, "AttemptFails", NULL, 0, S_COLUMN},
    {PL_CTR_CONNECTIONS_RESET, RAW, "EstabResets", NULL, 0, S_COLUMN},
    {PL_CTR_SEGMENTS_RECEIVED_PER_SEC, RATE, "InSegs", NULL, 0, S_COLUMN},
    {PL_CTR_SEGMENTS_SENT_PER_SEC, RATE, "OutSegs", NULL, 0, S_COLUMN},
    {PL_CTR_SEGMENTS_RETRANSMITTED_PER_SEC, RATE, "RetransSegs", NULL, 0, S_COLUMN},
};

/* Linux has no per-version TCP MIB: only the connection count is IPv6's own.
 * The other counters exist (so their paths are valid, as on Windows) and are
 * always marked unavailable: the kernel's totals are TCPv4's, and repeating
 * them here would count IPv6 traffic twice for anyone adding the objects. */
static const struct sdef tcp6[] = {
    {PL_CTR_SEGMENTS_PER_SEC, RATE, NULL, NULL, 0, S_NONE},
    {PL_CTR_CONNECTIONS_ESTABLISHED, RAW, NULL, NULL, 0, S_ESTAB_V6},
    {PL_CTR_CONNECTIONS_ACTIVE, RAW, NULL, NULL, 0, S_NONE},
    {PL_CTR_CONNECTIONS_PASSIVE, RAW, NULL, NULL, 0, S_NONE},
    {PL_CTR_CONNECTION_FAILURES, RAW, NULL, NULL, 0, S_NONE},
    {PL_CTR_CONNECTIONS_RESET, RAW, NULL, NULL, 0, S_NONE},
    {PL_CTR_SEGMENTS_RECEIVED_PER_SEC, RATE, NULL, NULL, 0, S_NONE},
    {PL_CTR_SEGMENTS_SENT_PER_SEC, RATE, NULL, NULL, 0, S_NONE},
    {PL_CTR_SEGMENTS_RETRANSMITTED_PER_SEC, RATE, NULL, NULL, 0, S_NONE},
};

static const struct sdef udp4[] = {
    {PL_CTR_DATAGRAMS_PER_SEC, RATE, "InDatagrams", "OutDatagrams", 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_RECEIVED_PER_SEC, RATE, "InDatagrams", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_NO_PORT_PER_SEC, RATE, "NoPorts", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_RECEIVED_ERRORS, RAW, "InErrors", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_SENT_PER_SEC, RATE, "OutDatagrams", NULL, 0, S_COLUMN},
};

static const struct sdef udp6[] = {
    {PL_CTR_DATAGRAMS_PER_SEC, RATE, "Udp6InDatagrams", "Udp6OutDatagrams", 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_RECEIVED_PER_SEC, RATE, "Udp6InDatagrams", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_NO_PORT_PER_SEC, RATE, "Udp6NoPorts", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_RECEIVED_ERRORS, RAW, "Udp6InErrors", NULL, 0, S_COLUMN},
    {PL_CTR_DATAGRAMS_SENT_PER_SEC, RATE, "Udp6OutDatagrams", NULL, 0, S_COLUMN},
};

#define ARR(a) a, sizeof a / sizeof a[0]
static const struct pobj proto_objects[] = {
    {PL_OBJ_IPV4, F_SNMP, "Ip", ARR(ipv4), 0},     {PL_OBJ_IPV6, F_SNMP6, "", ARR(ipv6), 0},
    {PL_OBJ_ICMP, F_SNMP, "Icmp", ARR(icmp4), 0},  {PL_OBJ_ICMPV6, F_SNMP6, "", ARR(icmp6), 0},
    {PL_OBJ_TCPV4, F_SNMP, "Tcp", ARR(tcp4), 1},   {PL_OBJ_TCPV6, F_SOCKS, "", ARR(tcp6), 1},
    {PL_OBJ_UDPV4, F_SNMP, "Udp", ARR(udp4), 0},   {PL_OBJ_UDPV6, F_SNMP6, "", ARR(udp6), 0},
};
#define N_PROTO_OBJECTS (sizeof proto_objects / sizeof proto_objects[0])

/* The snmp index hash (pl__snmp_hash) of every column a and b of
 * proto_objects, computed on the first collect (under the lock): a lookup
 * is then one probe of the parse's index and a string compare, with no
 * hashing or scanning per counter. */
static struct {
    int ready;
    uint32_t a[N_PROTO_OBJECTS][64], b[N_PROTO_OBJECTS][64];
} colh;

static void col_hashes(void)
{
    for (size_t k = 0; k < N_PROTO_OBJECTS; k++) {
        const struct pobj *po = &proto_objects[k];
        for (size_t i = 0; i < po->n && i < 64; i++) {
            if (po->defs[i].a) colh.a[k][i] = pl__snmp_hash(po->proto, po->defs[i].a);
            if (po->defs[i].b) colh.b[k][i] = pl__snmp_hash(po->proto, po->defs[i].b);
        }
    }
    colh.ready = 1;
}

/* A column's value; negative values (never expected for these counters) are
 * treated as absent. */
static int col(const struct pl__snmp *s, const char *proto, const char *name, uint32_t hash, uint64_t *v)
{
    int64_t x;
    if (!pl__snmp_find(s, hash, proto, name, &x) || x < 0) return 0;
    *v = (uint64_t)x;
    return 1;
}

/* Established connections by IP version. */
struct estab {
    int ok4, ok6;         /* the count is known */
    int has6;             /* the machine (or canned tree) has IPv6 TCP: TCPv6 exists */
    uint64_t v4, v6;
};

/* Counter i of proto_objects[k]. 1: *v is the value; 0: no source, the
 * counter is left out; -1: the counter exists but its value is unknown
 * (marked unavailable, written as 0). */
static int sdef_value(size_t k, size_t i, const struct pl__snmp *s, const struct estab *e, uint64_t *v)
{
    const struct pobj *po = &proto_objects[k];
    const struct sdef *d = &po->defs[i];
    uint64_t a, b;
    *v = 0;
    if (d->src == S_NONE) return -1;
    if (d->src == S_ESTAB_V4 || d->src == S_ESTAB_V6) {
        int ok = d->src == S_ESTAB_V4 ? e->ok4 : e->ok6;
        if (ok) *v = d->src == S_ESTAB_V4 ? e->v4 : e->v6;
        return ok ? 1 : -1;
    }
    if (!colh.ready) col_hashes();
    if (!s || !col(s, po->proto, d->a, colh.a[k][i], &a)) return 0;
    if (d->b) {
        if (col(s, po->proto, d->b, colh.b[k][i], &b)) a += b;
        else if (!d->b_optional) return 0;
    }
    *v = a;
    return 1;
}

/* Connections Established from /proc/net/tcp and /proc/net/tcp6 under the
 * root: IPv4 connections are those of tcp plus the v4-mapped ones of tcp6;
 * without tcp6 (IPv6 not built in) tcp alone is all of them and there is no
 * TCPv6. */
static void estab_files(int rootfd, struct estab *e)
{
    struct pl__tcp_socks t4, t6;
    int r4 = pl__read_net_tcp(rootfd, 0, &t4);
    int r6 = pl__read_net_tcp(rootfd, 1, &t6);
    e->has6 = r6 != -ENOENT;
    e->ok6 = r6 == 0;
    e->ok4 = r4 == 0 && (r6 == 0 || r6 == -ENOENT);
    e->v4 = t4.estab_v4 + (r6 == 0 ? t6.estab_v4 : 0);
    e->v6 = t6.estab_v6;
}

/* Connections Established by IP version. On the live machine (root "/") from
 * two NETLINK_SOCK_DIAG dumps asking for ESTABLISHED and CLOSE_WAIT sockets
 * only (~50 us instead of 2-7 ms for the files, which the kernel renders
 * socket by socket in every state); the files are used only when the kernel
 * or a security policy refuses sock_diag, and always under a canned
 * PERFLIB_SYSROOT (netlink describes the live kernel, not the tree). A dump
 * that fails otherwise (malformed reply, timeout) leaves both counts marked
 * unavailable: the IPv4 count needs the v4-mapped sockets of the AF_INET6
 * dump. */
static void estab_count(int rootfd, int live, struct estab *e)
{
    memset(e, 0, sizeof *e);
    if (!live) {
        estab_files(rootfd, e);
        return;
    }
    int fd = pl__tcp_diag_open();
    int r4 = fd, r6 = fd;
    struct pl__tcp_diag d;
    memset(&d, 0, sizeof d);
    if (fd >= 0) {
        /* Both families in one dump; a kernel without the older
         * TCPDIAG_GETSOCK request gets one SOCK_DIAG_BY_FAMILY dump each. */
        r4 = r6 = pl__read_tcp_diag(fd, AF_UNSPEC, &d);
        if (r4 != 0 && (pl__tcp_diag_refused(r4) || r4 == -EINVAL)) {
            memset(&d, 0, sizeof d);
            r4 = pl__read_tcp_diag(fd, AF_INET, &d);
            r6 = r4 == 0 || !pl__tcp_diag_refused(r4) ? pl__read_tcp_diag(fd, AF_INET6, &d) : r4;
        }
        close(fd);
    }
    if (pl__tcp_diag_refused(r4) || pl__tcp_diag_refused(r6)) {
        estab_files(rootfd, e);
        return;
    }
    e->has6 = 1;
    e->ok6 = r6 == 0;
    e->ok4 = r4 == 0 && r6 == 0;
    e->v4 = d.estab_v4;
    e->v6 = d.estab_v6;
}

/* ------------------------------------------------------------------ state */

/* Guards g: one collection at a time. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
    int open;
    pl_builder *b;
    struct pl__netdevs nd;
    struct pl__snmp snmp, snmp6;
    struct pl__netif_attrs *attrs;
    struct ifextra *extra;
    size_t attrs_cap;
    pn_dumper *dumper;    /* the root-qdisc dump thread, from the first need */
#ifdef PERFNET_TEST_HOOKS
    struct pl__qdiscs qd; /* the dump made on the collecting thread (pl__pn_test_inline) */
#endif
} g;

/* `keep`: the object exists even when none of its values is known (its
 * counters are then all marked). */
/* The generic "Unavailable Counters" marker (docs/block-format.md) of obj,
 * after its other counters. */
static int add_marker(int obj, int *marker)
{
    pl_counter_desc cd = {0};
    cd.name_index = PL_CTR_UNAVAILABLE_COUNTERS;
    cd.help_index = PL_HELP(PL_CTR_UNAVAILABLE_COUNTERS);
    cd.type = PERF_COUNTER_LARGE_RAWCOUNT_HEX;
    cd.detail_level = PERF_DETAIL_WIZARD;
    return pl_builder_add_counter(g.b, obj, &cd, marker);
}

static int build_proto(const struct pobj *po, const struct pl__snmp *s, const struct estab *e, int keep)
{
    uint64_t vals[64];
    int present[64];
    size_t have = 0;
    for (size_t i = 0; i < po->n && i < 64; i++) {
        present[i] = sdef_value((size_t)(po - proto_objects), i, s, e, &vals[i]);
        have += present[i] == 1;
    }
    if (have == 0 && !keep) return PL_OK; /* nothing known: leave the object out */
    pl_object_desc od = {0};
    od.name_index = po->index;
    od.help_index = PL_HELP(po->index);
    od.detail_level = PERF_DETAIL_NOVICE;
    od.default_counter = 0;
    od.has_instances = 0;
    int obj;
    int rc = pl_builder_add_object(g.b, &od, &obj);
    int handles[64];
    for (size_t i = 0; rc == PL_OK && i < po->n && i < 64; i++) {
        if (!present[i]) continue; /* no source: left out (a marked one stays) */
        pl_counter_desc cd = {0};
        cd.name_index = po->defs[i].index;
        cd.help_index = PL_HELP(po->defs[i].index);
        cd.type = po->defs[i].type;
        cd.detail_level = PERF_DETAIL_NOVICE;
        rc = pl_builder_add_counter(g.b, obj, &cd, &handles[i]);
    }
    /* The generic "Unavailable Counters" marker (docs/block-format.md),
     * last; no counter here has a base, so a handle is its position. */
    int marker = -1;
    if (rc == PL_OK && po->marker) rc = add_marker(obj, &marker);
    uint64_t unav = 0;
    for (size_t i = 0; rc == PL_OK && i < po->n && i < 64; i++) {
        if (present[i] == 1) rc = pl_builder_set_u64(g.b, obj, -1, handles[i], vals[i]);
        else if (present[i] < 0) unav |= PL_UNAVAILABLE_BIT(handles[i]);
    }
    if (rc == PL_OK && marker >= 0) rc = pl_builder_set_u64(g.b, obj, -1, marker, unav);
    return rc;
}

static int build_interfaces(int have_sys)
{
    pl_object_desc od = {0};
    od.name_index = PL_OBJ_NETWORK_INTERFACE;
    od.help_index = PL_HELP(PL_OBJ_NETWORK_INTERFACE);
    od.detail_level = PERF_DETAIL_NOVICE;
    od.default_counter = 0;
    od.has_instances = 1;
    int obj;
    int rc = pl_builder_add_object(g.b, &od, &obj);
    int handles[N_IF_COUNTERS];
    int use[N_IF_COUNTERS];
    for (size_t i = 0; rc == PL_OK && i < N_IF_COUNTERS; i++) {
        /* Every counter is offered, so every path to it is valid (issue 11
         * item 11): an interface without a speed or an mtu (or every
         * interface, without sysfs) has it marked unavailable. */
        use[i] = 1;
        pl_counter_desc cd = {0};
        cd.name_index = if_counters[i].index;
        cd.help_index = PL_HELP(if_counters[i].index);
        cd.type = if_counters[i].type;
        cd.detail_level = PERF_DETAIL_NOVICE;
        rc = pl_builder_add_counter(g.b, obj, &cd, &handles[i]);
    }
    /* The generic "Unavailable Counters" marker (docs/block-format.md):
     * these counters have no base, so a handle is its definition position. */
    int marker = -1;
    if (rc == PL_OK) rc = add_marker(obj, &marker);
    for (size_t k = 0; rc == PL_OK && k < g.nd.n; k++) {
        const struct pl__netif_attrs *a = &g.attrs[k];
        const struct ifextra *x = &g.extra[k];
        if (have_sys && a->have == UINT32_MAX) continue; /* vanished */
        int inst;
        uint64_t unav = 0;
        rc = pl_builder_add_instance(g.b, obj, g.nd.d[k].name, 0, 0, PERF_NO_UNIQUE_ID, &inst);
        for (size_t i = 0; rc == PL_OK && i < N_IF_COUNTERS; i++) {
            if (!use[i]) continue;
            if (if_unavailable(if_counters[i].src, a, x)) {
                unav |= PL_UNAVAILABLE_BIT(handles[i]);
                continue; /* the value stays 0 */
            }
            rc = pl_builder_set_u64(g.b, obj, inst, handles[i], if_value(if_counters[i].src, &g.nd.d[k], a, x));
        }
        if (rc == PL_OK) rc = pl_builder_set_u64(g.b, obj, inst, marker, unav);
    }
    return rc;
}

/* ------------------------------------------------------- the qdisc dump */

/* A dump asked for at the start of a collection (perfnet_dump.c). */
struct qdump {
    int asked;            /* pl__pn_dump_start said 0: a wait must follow */
    struct timespec deadline;
};

static void qdump_ask(struct qdump *qq)
{
    clock_gettime(CLOCK_MONOTONIC, &qq->deadline);
    qq->deadline.tv_sec += PN_DUMP_DEADLINE_MS / 1000;
    qq->deadline.tv_nsec += (long)(PN_DUMP_DEADLINE_MS % 1000) * 1000000L;
    if (qq->deadline.tv_nsec >= 1000000000L) {
        qq->deadline.tv_sec++;
        qq->deadline.tv_nsec -= 1000000000L;
    }
    qq->asked = pl__pn_dump_start(&g.dumper) == 0;
}

/* The dump's root qdiscs, or NULL when it was not made (still stuck, no
 * thread), failed, or missed its deadline. */
static const struct pl__qdiscs *qdump_take(struct qdump *qq)
{
    if (!qq->asked) return NULL;
    qq->asked = 0;
    const struct pl__qdiscs *qd;
    int rc;
    if (pl__pn_dump_wait(g.dumper, &qq->deadline, &qd, &rc) != 0 || rc != 0) return NULL;
    return qd;
}

/* ------------------------------------------------------------ entry points */

static DWORD do_open(LPWSTR device_names)
{
    (void)device_names;
    /* Every host (engine) that loads this library calls Open and Close;
     * several engines in one process share this state, so count them. */
    if (g.open) {
        g.open++;
        return ERROR_SUCCESS;
    }
    g.b = pl_builder_new();
    if (!g.b) return ERROR_OUTOFMEMORY;
    g.open = 1;
    return ERROR_SUCCESS;
}

static DWORD do_collect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    if (!data || !bytes || !objects) return ERROR_INVALID_PARAMETER;
    *objects = 0;
    if (!g.open) {
        *bytes = 0;
        return ERROR_INVALID_HANDLE;
    }
    pl_query_items q;
    pl_query_parse_w(query, &q);
    int want_if = pl_query_wants(&q, PL_OBJ_NETWORK_INTERFACE, 0);
    int want_v4 = 0, want_v6 = 0;
    for (size_t i = 0; i < N_PROTO_OBJECTS; i++) {
        if (!pl_query_wants(&q, proto_objects[i].index, 0)) continue;
        if (proto_objects[i].file == F_SNMP6) want_v6 = 1;
        else if (proto_objects[i].file == F_SNMP) want_v4 = 1;
    }
    int want_socks = pl_query_wants(&q, PL_OBJ_TCPV4, 0) || pl_query_wants(&q, PL_OBJ_TCPV6, 0);
    if (!want_if && !want_v4 && !want_v6 && !want_socks) {
        *bytes = 0;
        return ERROR_SUCCESS;
    }
    const char *root = pl__sysroot();
    int live = strcmp(root, "/") == 0;
    /* The dump first: it runs on the other CPU while this one reads
     * /proc/net/dev and sysfs. */
    struct qdump qq = {0};
    int inline_dump = 0;
#ifdef PERFNET_TEST_HOOKS
    inline_dump = __atomic_load_n(&pl__pn_test_inline, __ATOMIC_ACQUIRE);
#endif
    if (want_if && live && !inline_dump) qdump_ask(&qq);
    int rootfd = pl__root_open(root, "");
    if (rootfd < 0) {
        qdump_take(&qq);
        *bytes = 0;
        return ERROR_SUCCESS;
    }
    DWORD ret = ERROR_SUCCESS;
    pl_builder_reset(g.b);
    int brc = PL_OK;

    if (want_if && pl__read_net_dev(rootfd, &g.nd) == 0) {
        int cnfd = openat(rootfd, "sys/class/net", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int have_sys = cnfd >= 0;
        size_t need = g.nd.n ? g.nd.n : 1;
        if (need > g.attrs_cap) {
            struct pl__netif_attrs *na = realloc(g.attrs, need * sizeof *na);
            if (na) g.attrs = na;
            struct ifextra *nx = na ? realloc(g.extra, need * sizeof *nx) : NULL;
            if (nx) g.extra = nx;
            if (!na || !nx) {
                brc = PL_E_NOMEM;
            } else {
                g.attrs_cap = need;
            }
        }
        for (size_t k = 0; brc == PL_OK && k < g.nd.n; k++) {
            memset(&g.attrs[k], 0, sizeof g.attrs[k]);
            if (!have_sys) continue;
            if (pl__read_netif_attrs(cnfd, g.nd.d[k].name, &g.attrs[k]) != 0) {
                g.attrs[k].have = UINT32_MAX; /* gone since /proc/net/dev was read */
                continue;
            }
        }
        if (cnfd >= 0) close(cnfd);
        const struct pl__qdiscs *qd = qdump_take(&qq);
#ifdef PERFNET_TEST_HOOKS
        if (inline_dump && live && have_sys) {
            pn_dump_fn *f = __atomic_load_n(&pl__pn_test_dump, __ATOMIC_ACQUIRE);
            qd = (f ? f(&g.qd) : pl__read_qdiscs(&g.qd)) == 0 ? &g.qd : NULL;
        }
#endif
        if (brc == PL_OK) {
            output_queues(have_sys ? qd : NULL, g.attrs, g.nd.n, g.extra);
            brc = build_interfaces(have_sys);
        }
    }
    qdump_take(&qq); /* asked for, and /proc/net/dev unreadable: not used */
    int have4 = want_v4 && pl__read_net_snmp(rootfd, &g.snmp) == 0;
    int have6 = want_v6 && pl__read_net_snmp6(rootfd, &g.snmp6) == 0;
    struct estab est = {0};
    if (want_socks) estab_count(rootfd, live, &est);
    for (size_t i = 0; brc == PL_OK && i < N_PROTO_OBJECTS; i++) {
        const struct pobj *po = &proto_objects[i];
        if (!pl_query_wants(&q, po->index, 0)) continue;
        /* Without its file an object keeps only the counters of other
         * sources (TCPv4's Connections Established), or is left out. */
        const struct pl__snmp *s = NULL;
        if (po->file == F_SNMP && have4) s = &g.snmp;
        if (po->file == F_SNMP6 && have6) s = &g.snmp6;
        if (po->index == PL_OBJ_TCPV6 && !est.has6) continue; /* no IPv6 TCP at all */
        brc = build_proto(po, s, &est, po->index == PL_OBJ_TCPV6);
    }
    close(rootfd);
    if (brc != PL_OK) ret = brc == PL_E_NOMEM ? ERROR_OUTOFMEMORY : ERROR_INVALID_PARAMETER;
    else ret = pl_provider_emit(g.b, data, bytes, objects);
    if (ret != ERROR_SUCCESS) {
        *bytes = 0;
        *objects = 0;
    }
    return ret;
}

static DWORD do_close(void)
{
    if (g.open > 1) {
        g.open--;
        return ERROR_SUCCESS;
    }
    pl__kept_close();
    pl_builder_free(g.b);
    pl__netdevs_free(&g.nd);
    pl__snmp_free(&g.snmp);
    pl__snmp_free(&g.snmp6);
    free(g.attrs);
    free(g.extra);
    pl__pn_dumper_stop(&g.dumper);
#ifdef PERFNET_TEST_HOOKS
    pl__qdiscs_free(&g.qd);
#endif
    memset(&g, 0, sizeof g);
    return ERROR_SUCCESS;
}

/* Unloaded without a last Close (a program that exits, a host that
 * dlcloses): the dump thread must not outlive the code it runs, and what
 * Open took is given back; a stuck thread is left to end on its own (the
 * library is then pinned, so this runs only at exit). A collection still
 * running on another thread is left alone. */
__attribute__((destructor)) static void perfnet_unload(void)
{
    if (pthread_mutex_trylock(&lock) != 0) return;
    if (g.open > 0) {
        g.open = 1; /* every engine's Open at once: what they hold is given back */
        do_close();
    }
    pl__pn_dumper_stop(&g.dumper);
    pthread_mutex_unlock(&lock);
}

/* On the live root every source is /proc/net text, sysfs attributes or a
 * sock_diag dump, which wait on no lock another task holds for long; the
 * one that does, Network Interface's RTM_GETQDISC dump (rtnl, held across
 * driver calls, sometimes for seconds), runs on PerfNet's own thread and is
 * waited for PN_DUMP_DEADLINE_MS at most. Any other root keeps the
 * watchdog: it may be a FUSE or network mount (docs/providers/perfnet.md). */
DWORD PerfNetCollectNonBlocking(LPCWSTR query)
{
    if (strcmp(pl__sysroot(), "/") != 0) return 0;
#ifdef PERFNET_TEST_HOOKS
    pl_query_items q;
    pl_query_parse_w(query, &q);
    /* the dump on the collecting thread, as before: it may block */
    if (__atomic_load_n(&pl__pn_test_inline, __ATOMIC_ACQUIRE) && pl_query_wants(&q, PL_OBJ_NETWORK_INTERFACE, 0))
        return 0;
#else
    (void)query;
#endif
    return 1;
}

#ifdef PERFNET_TEST_HOOKS
void PerfNetTestSetDump(pn_dump_fn *fn, int inline_dump)
{
    __atomic_store_n(&pl__pn_test_dump, fn, __ATOMIC_RELEASE);
    __atomic_store_n(&pl__pn_test_inline, inline_dump, __ATOMIC_RELEASE);
}
#endif

DWORD PerfNetOpen(LPWSTR device_names)
{
    pthread_mutex_lock(&lock);
    DWORD rc = do_open(device_names);
    pthread_mutex_unlock(&lock);
    return rc;
}

DWORD PerfNetCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    pthread_mutex_lock(&lock);
    DWORD rc = do_collect(query, data, bytes, objects);
    pthread_mutex_unlock(&lock);
    return rc;
}

DWORD PerfNetClose(void)
{
    pthread_mutex_lock(&lock);
    DWORD rc = do_close();
    pthread_mutex_unlock(&lock);
    return rc;
}
