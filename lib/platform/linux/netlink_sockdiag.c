/* perflib: TCP connections by state over NETLINK_SOCK_DIAG (inet_diag), for
 * TCPv4/TCPv6 "Connections Established".
 *
 * One SOCK_DIAG_BY_FAMILY dump per address family asks the kernel for the
 * sockets in ESTABLISHED or CLOSE_WAIT only, with no extensions: each reply
 * message is one struct inet_diag_msg (72 bytes), and the kernel skips the
 * listening table and every socket in another state without formatting
 * anything. /proc/net/tcp{,6} render ~150 bytes of text for every socket of
 * the connection hash in every state, which is what made them cost ~2-7 ms
 * on an idle machine.
 *
 * The parser (pl__parse_tcp_diag_dump) works on a byte buffer only, so tests
 * and the fuzz target feed it hand-built or random replies; pl__read_tcp_diag
 * does the socket I/O. The walk over the messages and the receive loop are
 * netlink_util.c's (shared with the qdisc dump); a socket message is copied
 * out with memcpy (the buffer may have any alignment). */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

#include "collect_io.h"
#include "netlink_util.h"

#define ST_ESTABLISHED 1 /* the kernel's TCP_ESTABLISHED */
#define ST_CLOSE_WAIT 8  /* TCP_CLOSE_WAIT */

struct walk {
    int family;
    struct pl__tcp_diag *out;
};

static int on_msg(void *ctx, uint16_t type, const unsigned char *p, size_t plen)
{
    const struct walk *w = ctx;
    struct pl__tcp_diag *out = w->out;
    /* The reply has the request's type: SOCK_DIAG_BY_FAMILY for a dump of
     * one family, TCPDIAG_GETSOCK for the both-family one. Anything else is
     * nothing we asked for: ignored. */
    if (type != (w->family == AF_UNSPEC ? TCPDIAG_GETSOCK : SOCK_DIAG_BY_FAMILY)) return 0;
    struct inet_diag_msg m;
    if (plen < sizeof m) return -EINVAL;
    memcpy(&m, p, sizeof m);
    /* The kernel filtered by family and state; a message that disagrees is
     * not counted (and not trusted to be anything). */
    int fam_ok = w->family == AF_UNSPEC ? m.idiag_family == AF_INET || m.idiag_family == AF_INET6
                                        : m.idiag_family == w->family;
    if (!fam_ok || (m.idiag_state != ST_ESTABLISHED && m.idiag_state != ST_CLOSE_WAIT)) {
        out->bad++;
        return 0;
    }
    out->msgs++;
    /* An IPv6 socket talking to an IPv4 peer has the v4-mapped remote
     * ::ffff:a.b.c.d; its packets are IPv4 on the wire. */
    int v4 = m.idiag_family == AF_INET ||
             (m.id.idiag_dst[0] == 0 && m.id.idiag_dst[1] == 0 && m.id.idiag_dst[2] == htonl(0xffffu));
    if (v4) out->estab_v4++;
    else out->estab_v6++;
    return 0;
}

int pl__parse_tcp_diag_dump(const void *buf, size_t len, uint32_t seq, int family, struct pl__tcp_diag *out)
{
    struct walk w = {family, out};
    return pl__nl_walk(buf, len, seq, &out->intr, on_msg, &w);
}

static int parse_datagram(void *ctx, const void *buf, size_t len, uint32_t seq)
{
    const struct walk *w = ctx;
    return pl__parse_tcp_diag_dump(buf, len, seq, w->family, w->out);
}

#define RECV_BUF 65536
#define MAX_RECVS (1 << 20)  /* ~300 sockets a datagram: far beyond any machine */
#define MAX_NS (5 * 1000000000LL) /* a whole dump: 5 s at most */

static int dump_once(int fd, int family, uint32_t seq, unsigned char *buf, struct pl__tcp_diag *out)
{
    /* One family: SOCK_DIAG_BY_FAMILY with inet_diag_req_v2. Both at once
     * (AF_UNSPEC): the older TCPDIAG_GETSOCK request (struct inet_diag_req),
     * which the kernel serves with one walk of the connection table for
     * every family, where two v2 dumps walk it twice. */
    union {
        struct {
            struct nlmsghdr h;
            struct inet_diag_req_v2 r;
        } v2;
        struct {
            struct nlmsghdr h;
            struct inet_diag_req r;
        } v1;
    } req;
    memset(&req, 0, sizeof req);
    uint32_t states = (1u << ST_ESTABLISHED) | (1u << ST_CLOSE_WAIT);
    size_t rlen;
    if (family == AF_UNSPEC) {
        rlen = sizeof req.v1;
        req.v1.h.nlmsg_type = TCPDIAG_GETSOCK;
        req.v1.r.idiag_family = AF_UNSPEC;
        req.v1.r.idiag_ext = 0; /* no extensions: the bare 72-byte message */
        req.v1.r.idiag_states = states;
    } else {
        rlen = sizeof req.v2;
        req.v2.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
        req.v2.r.sdiag_family = (uint8_t)family;
        req.v2.r.sdiag_protocol = IPPROTO_TCP;
        req.v2.r.idiag_ext = 0;
        req.v2.r.idiag_states = states;
    }
    req.v2.h.nlmsg_len = (uint32_t)rlen;
    req.v2.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    req.v2.h.nlmsg_seq = seq;
    int rc = pl__nl_send(fd, &req, rlen);
    if (rc < 0) return rc;
    uint64_t v4 = out->estab_v4, v6 = out->estab_v6;
    size_t msgs = out->msgs, bad = out->bad;
    out->intr = 0;
    struct walk w = {family, out};
    rc = pl__nl_recv_dump(fd, seq, buf, RECV_BUF, MAX_RECVS, MAX_NS, parse_datagram, &w);
    if (rc < 0) {
        /* Nothing of a failed dump is kept. */
        out->estab_v4 = v4;
        out->estab_v6 = v6;
        out->msgs = msgs;
        out->bad = bad;
    }
    return rc;
}

int pl__tcp_diag_open(void)
{
    return pl__nl_open(NETLINK_SOCK_DIAG);
}

int pl__read_tcp_diag(int fd, int family, struct pl__tcp_diag *out)
{
    if (family != AF_INET && family != AF_INET6 && family != AF_UNSPEC) return -EAFNOSUPPORT;
    unsigned char *buf = malloc(RECV_BUF);
    if (!buf) return -ENOMEM;
    /* Sequence numbers only have to tell this call's dumps apart from any
     * late reply of an earlier one on the same socket. */
    static const uint32_t seqs[3][2] = {{1, 2}, {3, 4}, {5, 6}};
    const uint32_t *sq = seqs[family == AF_INET6 ? 1 : family == AF_UNSPEC ? 2 : 0];
    int rc = dump_once(fd, family, sq[0], buf, out);
    if (rc == -EAGAIN) rc = dump_once(fd, family, sq[1], buf, out); /* changed while dumped: once more */
    free(buf);
    return rc;
}

int pl__tcp_diag_refused(int err)
{
    /* socket() or the dump refused outright: no such protocol or family in
     * this kernel (no inet_diag/tcp_diag), or a security policy says no. */
    return err == -EPERM || err == -EACCES || err == -EAFNOSUPPORT || err == -EPROTONOSUPPORT ||
           err == -ENOENT || err == -EOPNOTSUPP;
}
