/* perflib: the root queueing discipline of every interface, over rtnetlink
 * (RTM_GETQDISC dump), for Network Interface "Output Queue Length".
 *
 * The parser (pl__parse_qdisc_dump) works on a byte buffer only, so tests
 * feed it hand-built replies; pl__read_qdiscs does the socket I/O. The walk
 * over the messages (nlmsg_len checks) and the receive loop are
 * netlink_util.c's, shared with the sock_diag dump; every rta_len is checked
 * against the bytes of its message before anything is read; headers are
 * copied out with memcpy (the buffer may have any alignment). */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "collect_io.h"
#include "netlink_util.h"

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

static int on_msg(void *ctx, uint16_t type, const unsigned char *p, size_t plen)
{
    if (type != RTM_NEWQDISC) return 0; /* nothing we asked for: ignored */
    return parse_qdisc(p, plen, ctx);
}

int pl__parse_qdisc_dump(const void *buf, size_t len, uint32_t seq, struct pl__qdiscs *out)
{
    return pl__nl_walk(buf, len, seq, &out->intr, on_msg, out);
}

static int parse_datagram(void *ctx, const void *buf, size_t len, uint32_t seq)
{
    return pl__parse_qdisc_dump(buf, len, seq, ctx);
}

#define RECV_BUF 65536
#define MAX_RECVS 4096L /* 256 MiB of replies: far beyond any real dump */

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
    int rc = pl__nl_send(fd, &req, req.h.nlmsg_len);
    if (rc < 0) return rc;
    out->n = 0;
    out->bad = 0;
    out->intr = 0;
    return pl__nl_recv_dump(fd, seq, buf, RECV_BUF, MAX_RECVS, 0, parse_datagram, out);
}

int pl__read_qdiscs(struct pl__qdiscs *out)
{
    int fd = pl__nl_open(NETLINK_ROUTE);
    if (fd < 0) return fd;
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
