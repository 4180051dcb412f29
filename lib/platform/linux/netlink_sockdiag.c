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
 * does the socket I/O. Every nlmsg_len is checked against the bytes actually
 * received before anything is read; headers are copied out with memcpy (the
 * buffer may have any alignment). */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

#include "collect_io.h"

#define HDRLEN ((size_t)NLMSG_HDRLEN)
#define ST_ESTABLISHED 1 /* the kernel's TCP_ESTABLISHED */
#define ST_CLOSE_WAIT 8  /* TCP_CLOSE_WAIT */

int pl__parse_tcp_diag_dump(const void *buf, size_t len, uint32_t seq, int family, struct pl__tcp_diag *out)
{
    const unsigned char *b = buf;
    size_t off = 0;
    if (!b && len) return -EINVAL;
    while (off < len) {
        if (len - off < HDRLEN) return -EINVAL; /* a fragment of a header */
        struct nlmsghdr h;
        memcpy(&h, b + off, sizeof h);
        if (h.nlmsg_len < HDRLEN || h.nlmsg_len > len - off) return -EINVAL;
        const unsigned char *p = b + off + HDRLEN;
        size_t plen = h.nlmsg_len - HDRLEN;
        size_t step = NLMSG_ALIGN((size_t)h.nlmsg_len);
        off = step > len - off ? len : off + step;
        if (h.nlmsg_seq != seq) continue; /* a reply to some other request */
        if (h.nlmsg_flags & NLM_F_DUMP_INTR) out->intr = 1;
        switch (h.nlmsg_type) {
        case NLMSG_NOOP:
            break;
        case NLMSG_DONE: {
            /* The dump's final status (0 or -errno), when the kernel puts one. */
            int st = 0;
            if (plen >= sizeof st) memcpy(&st, p, sizeof st);
            if (st < 0) return st >= -4095 ? st : -EPROTO;
            return out->intr ? -EAGAIN : 1;
        }
        case NLMSG_ERROR: {
            int st;
            if (plen < sizeof st) return -EINVAL;
            memcpy(&st, p, sizeof st);
            if (st == 0) break; /* an acknowledgement */
            return st < 0 && st >= -4095 ? st : -EPROTO;
        }
        case SOCK_DIAG_BY_FAMILY:
        case TCPDIAG_GETSOCK: {
            /* The reply has the request's type: SOCK_DIAG_BY_FAMILY for a
             * dump of one family, TCPDIAG_GETSOCK for the both-family one. */
            if (h.nlmsg_type != (family == AF_UNSPEC ? TCPDIAG_GETSOCK : SOCK_DIAG_BY_FAMILY)) break;
            struct inet_diag_msg m;
            if (plen < sizeof m) return -EINVAL;
            memcpy(&m, p, sizeof m);
            /* The kernel filtered by family and state; a message that
             * disagrees is not counted (and not trusted to be anything). */
            int fam_ok = family == AF_UNSPEC ? m.idiag_family == AF_INET || m.idiag_family == AF_INET6
                                             : m.idiag_family == family;
            if (!fam_ok || (m.idiag_state != ST_ESTABLISHED && m.idiag_state != ST_CLOSE_WAIT)) {
                out->bad++;
                break;
            }
            out->msgs++;
            /* An IPv6 socket talking to an IPv4 peer has the v4-mapped
             * remote ::ffff:a.b.c.d; its packets are IPv4 on the wire. */
            int v4 = m.idiag_family == AF_INET || (m.id.idiag_dst[0] == 0 && m.id.idiag_dst[1] == 0 &&
                                                   m.id.idiag_dst[2] == htonl(0xffffu));
            if (v4) out->estab_v4++;
            else out->estab_v6++;
            break;
        }
        default:
            break; /* nothing we asked for: ignored */
        }
    }
    return 0;
}

#define RECV_BUF 65536
#define MAX_RECVS (1 << 20)  /* ~300 sockets a datagram: far beyond any machine */
#define MAX_NS (5 * 1000000000LL) /* a whole dump: 5 s at most */

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

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
    struct sockaddr_nl kernel;
    memset(&kernel, 0, sizeof kernel);
    kernel.nl_family = AF_NETLINK;
    ssize_t s;
    do s = sendto(fd, &req, rlen, 0, (struct sockaddr *)&kernel, sizeof kernel);
    while (s < 0 && errno == EINTR);
    if (s < 0) return -errno;
    if ((size_t)s != rlen) return -EIO;
    uint64_t v4 = out->estab_v4, v6 = out->estab_v6;
    size_t msgs = out->msgs, bad = out->bad;
    out->intr = 0;
    long long t0 = now_ns();
    int rc = -E2BIG;
    for (long i = 0; i < MAX_RECVS; i++) {
        if (now_ns() - t0 > MAX_NS) {
            rc = -ETIMEDOUT;
            break;
        }
        struct sockaddr_nl from;
        struct iovec iov = {buf, RECV_BUF};
        struct msghdr mh;
        memset(&mh, 0, sizeof mh);
        memset(&from, 0, sizeof from);
        mh.msg_name = &from;
        mh.msg_namelen = sizeof from;
        mh.msg_iov = &iov;
        mh.msg_iovlen = 1;
        ssize_t n;
        do n = recvmsg(fd, &mh, 0);
        while (n < 0 && errno == EINTR);
        if (n < 0) {
            rc = errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
            break;
        }
        if (mh.msg_flags & MSG_TRUNC) {
            rc = -EMSGSIZE;
            break;
        }
        if (n == 0) {
            rc = -EPROTO;
            break;
        }
        if (mh.msg_namelen < sizeof from || from.nl_pid != 0) continue; /* not from the kernel */
        rc = pl__parse_tcp_diag_dump(buf, (size_t)n, seq, family, out);
        if (rc < 0) break;
        if (rc == 1) {
            rc = 0;
            break;
        }
        rc = -E2BIG;
    }
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
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0) return -errno;
    /* A reply that never comes must not hang a collection. */
    struct timeval tv = {1, 0};
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0) {
        int e = -errno;
        close(fd);
        return e;
    }
    return fd;
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
