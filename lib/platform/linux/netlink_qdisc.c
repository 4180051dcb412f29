/* perflib: the root queueing discipline of every interface, over rtnetlink
 * (RTM_GETQDISC dump), for Network Interface "Output Queue Length".
 *
 * The parser (pl__parse_qdisc_dump) works on a byte buffer only, so tests
 * feed it hand-built replies; pl__read_qdiscs does the socket I/O. Every
 * length in a reply (nlmsg_len, rta_len) is checked against the bytes
 * actually received before anything is read; headers are copied out with
 * memcpy (the buffer may have any alignment). */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "collect_io.h"

#define HDRLEN ((size_t)NLMSG_HDRLEN)
#define ATTR_HDR ((size_t)4) /* struct rtattr / nlattr: u16 len, u16 type */
#define ALIGN4(x) (((x) + 3u) & ~(size_t)3u)

/* The next attribute in [b, b+len) at *off. Returns 1 with type/payload set,
 * 0 at the end, -EINVAL when an attribute overruns the area or the area ends
 * in a fragment too short to be an attribute. */
static int next_attr(const unsigned char *b, size_t len, size_t *off, unsigned *type, const unsigned char **pl,
                     size_t *plen)
{
    if (*off >= len) return 0;
    if (len - *off < ATTR_HDR) return -EINVAL;
    uint16_t alen, atype;
    memcpy(&alen, b + *off, 2);
    memcpy(&atype, b + *off + 2, 2);
    if (alen < ATTR_HDR || alen > len - *off) return -EINVAL;
    *type = atype & NLA_TYPE_MASK;
    *pl = b + *off + ATTR_HDR;
    *plen = alen - ATTR_HDR;
    size_t step = ALIGN4((size_t)alen);
    *off = step > len - *off ? len : *off + step;
    return 1;
}

static int add(struct pl__qdiscs *s, const struct pl__qdisc *q)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->q[i].ifindex == q->ifindex) {
            s->bad++; /* two root qdiscs for one interface: keep the first */
            return 0;
        }
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 16;
        if (nc > PL__QDISC_MAX_ENTRIES) return -ENOMEM;
        struct pl__qdisc *np = realloc(s->q, nc * sizeof *np);
        if (!np) return -ENOMEM;
        s->q = np;
        s->cap = nc;
    }
    s->q[s->n++] = *q;
    return 0;
}

/* One RTM_NEWQDISC payload (struct tcmsg + attributes). */
static int parse_qdisc(const unsigned char *p, size_t len, struct pl__qdiscs *out)
{
    struct tcmsg tc;
    if (len < sizeof tc) return -EINVAL;
    memcpy(&tc, p, sizeof tc);
    struct pl__qdisc q;
    memset(&q, 0, sizeof q);
    q.ifindex = tc.tcm_ifindex;
    q.handle = tc.tcm_handle;
    int have2 = 0, have1 = 0;
    uint32_t qlen2 = 0, backlog2 = 0, qlen1 = 0, backlog1 = 0;
    size_t start = NLMSG_ALIGN(sizeof tc);
    if (start > len) start = len;
    const unsigned char *a = p + start;
    size_t alen = len - start, off = 0;
    unsigned type;
    const unsigned char *pl;
    size_t plen;
    int rc;
    /* The attributes of every qdisc are checked, root or not. */
    while ((rc = next_attr(a, alen, &off, &type, &pl, &plen)) == 1) {
        if (type == TCA_KIND) {
            size_t n = 0;
            while (n < plen && n < sizeof q.kind - 1 && pl[n] != '\0') n++;
            memcpy(q.kind, pl, n);
            q.kind[n] = '\0';
        } else if (type == TCA_STATS2) {
            size_t noff = 0;
            unsigned nt;
            const unsigned char *np;
            size_t nl;
            int nrc;
            while ((nrc = next_attr(pl, plen, &noff, &nt, &np, &nl)) == 1) {
                if (nt == TCA_STATS_QUEUE && nl >= sizeof(struct gnet_stats_queue)) {
                    struct gnet_stats_queue gq;
                    memcpy(&gq, np, sizeof gq);
                    qlen2 = gq.qlen;
                    backlog2 = gq.backlog;
                    have2 = 1;
                }
            }
            if (nrc < 0) return nrc;
        } else if (type == TCA_STATS && plen >= offsetof(struct tc_stats, backlog) + sizeof(uint32_t)) {
            memcpy(&qlen1, pl + offsetof(struct tc_stats, qlen), sizeof qlen1);
            memcpy(&backlog1, pl + offsetof(struct tc_stats, backlog), sizeof backlog1);
            have1 = 1;
        }
    }
    if (rc < 0) return rc;
    if (tc.tcm_parent != TC_H_ROOT) return 0; /* a class's child or ingress/clsact */
    if (have2) {
        q.have_qlen = 1;
        q.qlen = qlen2;
        q.backlog = backlog2;
    } else if (have1) {
        q.have_qlen = 1;
        q.qlen = qlen1;
        q.backlog = backlog1;
    }
    if (!q.have_qlen) out->bad++;
    return add(out, &q);
}

int pl__parse_qdisc_dump(const void *buf, size_t len, uint32_t seq, struct pl__qdiscs *out)
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
            /* The kernel puts the dump's final status (0 or -errno) here. */
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
        case RTM_NEWQDISC: {
            int rc = parse_qdisc(p, plen, out);
            if (rc < 0) return rc;
            break;
        }
        default:
            break; /* nothing we asked for: ignored */
        }
    }
    return 0;
}

#define RECV_BUF 65536
#define MAX_RECVS 4096 /* 256 MiB of replies: far beyond any real dump */

static int dump_once(int fd, uint32_t seq, unsigned char *buf, struct pl__qdiscs *out)
{
    struct {
        struct nlmsghdr h;
        struct tcmsg t;
    } req;
    memset(&req, 0, sizeof req);
    req.h.nlmsg_len = NLMSG_LENGTH(sizeof req.t);
    req.h.nlmsg_type = RTM_GETQDISC;
    req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    req.h.nlmsg_seq = seq;
    req.t.tcm_family = AF_UNSPEC;
    struct sockaddr_nl kernel;
    memset(&kernel, 0, sizeof kernel);
    kernel.nl_family = AF_NETLINK;
    ssize_t s;
    do s = sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof kernel);
    while (s < 0 && errno == EINTR);
    if (s < 0) return -errno;
    if ((size_t)s != req.h.nlmsg_len) return -EIO;
    out->n = 0;
    out->bad = 0;
    out->intr = 0;
    for (int i = 0; i < MAX_RECVS; i++) {
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
        if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
        if (mh.msg_flags & MSG_TRUNC) return -EMSGSIZE;
        if (n == 0) return -EPROTO;
        if (mh.msg_namelen < sizeof from || from.nl_pid != 0) continue; /* not from the kernel */
        int rc = pl__parse_qdisc_dump(buf, (size_t)n, seq, out);
        if (rc < 0) return rc;
        if (rc == 1) return 0;
    }
    return -E2BIG;
}

int pl__read_qdiscs(struct pl__qdiscs *out)
{
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) return -errno;
    /* A reply that never comes must not hang a collection. */
    struct timeval tv = {1, 0};
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0) {
        int e = -errno;
        close(fd);
        return e;
    }
    unsigned char *buf = malloc(RECV_BUF);
    if (!buf) {
        close(fd);
        return -ENOMEM;
    }
    /* A fresh socket per call: sequence numbers only have to tell this
     * call's two possible dumps apart. */
    int rc = dump_once(fd, 1, buf, out);
    if (rc == -EAGAIN) rc = dump_once(fd, 2, buf, out); /* changed while dumped: once more */
    free(buf);
    close(fd);
    if (rc < 0) out->n = 0;
    return rc;
}

const struct pl__qdisc *pl__qdisc_find(const struct pl__qdiscs *s, int32_t ifindex)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->q[i].ifindex == ifindex) return &s->q[i];
    return NULL;
}

void pl__qdiscs_free(struct pl__qdiscs *s)
{
    free(s->q);
    memset(s, 0, sizeof *s);
}
