/* libFuzzer target for the NETLINK_SOCK_DIAG reply parser
 * (lib/platform/linux/netlink_sockdiag.c, TCPv4/TCPv6 Connections
 * Established).
 *
 * Input: one byte choosing the dump's family (its value mod 4: AF_INET,
 * AF_INET6, or AF_UNSPEC for the both-family dump) and where to cut the rest
 * into two datagrams (the value / 4), then the reply bytes, as
 * recvmsg() would deliver them for a request with sequence number 9. Whatever
 * the bytes, the parser reads only inside each datagram, never counts more
 * sockets than the bytes can hold, and splits them into v4/v6 exactly. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/inet_diag.h>
#include <linux/netlink.h>

#include "collect_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20)) return 0;
    static const int fams[4] = {AF_INET, AF_INET6, AF_UNSPEC, AF_UNSPEC};
    int family = fams[data[0] & 3];
    size_t len = size - 1;
    size_t cut = len ? ((size_t)(data[0] >> 2) * 8) % (len + 1) : 0;
    /* Exact-size heap copies, so a read past a datagram is an ASan error. */
    uint8_t *a = malloc(cut ? cut : 1);
    uint8_t *b = malloc(len - cut ? len - cut : 1);
    if (!a || !b) {
        free(a);
        free(b);
        return 0;
    }
    memcpy(a, data + 1, cut);
    memcpy(b, data + 1 + cut, len - cut);
    struct pl__tcp_diag d;
    memset(&d, 0, sizeof d);
    int rc = pl__parse_tcp_diag_dump(a, cut, 9, family, &d);
    if (rc == 0) rc = pl__parse_tcp_diag_dump(b, len - cut, 9, family, &d);
    if (rc > 1) abort();
    if (d.estab_v4 + d.estab_v6 != d.msgs) abort();
    if (d.msgs * (NLMSG_HDRLEN + sizeof(struct inet_diag_msg)) > len) abort();
    if (family == AF_INET && d.estab_v6 != 0) abort();
    free(a);
    free(b);
    return 0;
}
