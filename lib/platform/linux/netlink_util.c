/* perflib: the netlink plumbing shared by the dump collectors
 * (netlink_sockdiag.c, netlink_qdisc.c); see netlink_util.h.
 *
 * Every nlmsg_len is checked against the bytes actually received before
 * anything is read; headers are copied out with memcpy (the buffer may have
 * any alignment). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "netlink_util.h"

#define HDRLEN ((size_t)NLMSG_HDRLEN)

int pl__nl_walk(const void *buf, size_t len, uint32_t seq, int *intr, pl__nl_msg_fn fn, void *ctx)
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
        if (h.nlmsg_flags & NLM_F_DUMP_INTR) *intr = 1;
        switch (h.nlmsg_type) {
        case NLMSG_NOOP:
            break;
        case NLMSG_DONE: {
            /* The dump's final status (0 or -errno), when the kernel puts one. */
            int st = 0;
            if (plen >= sizeof st) memcpy(&st, p, sizeof st);
            if (st < 0) return st >= -4095 ? st : -EPROTO;
            return *intr ? -EAGAIN : 1;
        }
        case NLMSG_ERROR: {
            int st;
            if (plen < sizeof st) return -EINVAL;
            memcpy(&st, p, sizeof st);
            if (st == 0) break; /* an acknowledgement */
            return st < 0 && st >= -4095 ? st : -EPROTO;
        }
        default: {
            int rc = fn(ctx, h.nlmsg_type, p, plen);
            if (rc < 0) return rc;
            break;
        }
        }
    }
    return 0;
}

int pl__nl_open(int protocol)
{
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol);
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

int pl__nl_send(int fd, const void *req, size_t len)
{
    struct sockaddr_nl kernel;
    memset(&kernel, 0, sizeof kernel);
    kernel.nl_family = AF_NETLINK;
    ssize_t s;
    do s = sendto(fd, req, len, 0, (struct sockaddr *)&kernel, sizeof kernel);
    while (s < 0 && errno == EINTR);
    if (s < 0) return -errno;
    if ((size_t)s != len) return -EIO;
    return 0;
}

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int pl__nl_recv_dump(int fd, uint32_t seq, unsigned char *buf, size_t cap, long max_recvs, long long max_ns,
                     pl__nl_parse_fn parse, void *ctx)
{
    long long t0 = max_ns > 0 ? now_ns() : 0;
    for (long i = 0; i < max_recvs; i++) {
        if (max_ns > 0 && now_ns() - t0 > max_ns) return -ETIMEDOUT;
        struct sockaddr_nl from;
        struct iovec iov = {buf, cap};
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
        if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
        if (mh.msg_flags & MSG_TRUNC) return -EMSGSIZE;
        if (n == 0) return -EPROTO;
        if (mh.msg_namelen < sizeof from || from.nl_pid != 0) continue; /* not from the kernel */
        int rc = parse(ctx, buf, (size_t)n, seq);
        if (rc < 0) return rc;
        if (rc == 1) return 0;
    }
    return -E2BIG;
}
