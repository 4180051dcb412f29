/* Tests of the rtnetlink root-qdisc collector (Output Queue Length): the
 * parser over hand-built reply bytes, hostile buffers, and the live kernel
 * against `tc -s qdisc`. */
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "net_live.h"
#include "nl_build.h"
#include "pl_test.h"
#include "linux/collect_io.h"

/* ------------------------------------------------ building reply bytes */

/* One RTM_NEWQDISC. stats: 2 = TCA_STATS2/QUEUE, 1 = old TCA_STATS, 0 = none. */
static void qdisc(struct nb *n, uint32_t seq, int ifindex, uint32_t parent, const char *kind, int stats,
                  uint32_t qlen, uint32_t backlog)
{
    nb_msg_begin(n, RTM_NEWQDISC, NLM_F_MULTI, seq);
    struct tcmsg t = {0};
    t.tcm_family = AF_UNSPEC;
    t.tcm_ifindex = ifindex;
    t.tcm_parent = parent;
    nb_put(n, &t, sizeof t);
    nb_attr(n, TCA_KIND, kind, strlen(kind) + 1);
    if (stats == 2) {
        nb_nest_begin(n, TCA_STATS2);
        struct gnet_stats_basic gb = {12345, 67};
        nb_attr(n, TCA_STATS_BASIC, &gb, sizeof gb);
        struct gnet_stats_queue q = {qlen, backlog, 5, 6, 7};
        nb_attr(n, TCA_STATS_QUEUE, &q, sizeof q);
        nb_nest_end(n);
    } else if (stats == 1) {
        struct tc_stats ts;
        memset(&ts, 0, sizeof ts);
        ts.packets = 99;
        ts.qlen = qlen;
        ts.backlog = backlog;
        nb_attr(n, TCA_STATS, &ts, sizeof ts);
    }
    nb_msg_end(n);
}

/* Parse from an exact-size heap copy, so any read past len is an ASan error. */
static int parse_exact(const void *b, size_t len, uint32_t seq, struct pl__qdiscs *out)
{
    void *c = malloc(len ? len : 1);
    assert_non_null(c);
    if (len) memcpy(c, b, len);
    int rc = pl__parse_qdisc_dump(c, len, seq, out);
    free(c);
    return rc;
}

#define SEQ 77u

static void build_dump(struct nb *n)
{
    memset(n, 0, sizeof *n);
    qdisc(n, SEQ, 4, TC_H_ROOT, "pfifo_fast", 2, 7, 9000);
    qdisc(n, SEQ, 4, TC_H_MAKE(1u << 16, 1), "fq_codel", 2, 99, 99);  /* a child: skipped */
    qdisc(n, SEQ, 4, TC_H_INGRESS, "ingress", 2, 98, 98);             /* ingress: skipped */
    qdisc(n, SEQ, 1, TC_H_ROOT, "noqueue", 1, 3, 300);                /* old TCA_STATS only */
    qdisc(n, SEQ, 5, TC_H_ROOT, "weird", 0, 0, 0);                    /* no statistics */
    qdisc(n, SEQ + 1, 6, TC_H_ROOT, "other", 2, 50, 50);              /* another request */
    nb_msg_begin(n, NLMSG_NOOP, 0, SEQ);
    nb_msg_end(n);
    qdisc(n, SEQ, 7, TC_H_ROOT, "mq", 2, 4000000000u, 4100000000u);
    nb_done(n, SEQ, 0);
}

static void parse_roots(void **state)
{
    (void)state;
    struct nb n;
    build_dump(&n);
    struct pl__qdiscs s = {0};
    assert_int_equal(parse_exact(n.b, n.len, SEQ, &s), 1);
    assert_int_equal(s.n, 4);
    assert_int_equal(s.bad, 1);
    const struct pl__qdisc *q = pl__qdisc_find(&s, 4);
    assert_non_null(q);
    assert_string_equal(q->kind, "pfifo_fast");
    assert_int_equal(q->have_qlen, 1);
    assert_int_equal(q->qlen, 7);
    assert_int_equal(q->backlog, 9000);
    q = pl__qdisc_find(&s, 1);
    assert_non_null(q);
    assert_string_equal(q->kind, "noqueue");
    assert_int_equal(q->have_qlen, 1);
    assert_int_equal(q->qlen, 3);
    assert_int_equal(q->backlog, 300);
    q = pl__qdisc_find(&s, 5);
    assert_non_null(q);
    assert_int_equal(q->have_qlen, 0);
    q = pl__qdisc_find(&s, 7);
    assert_non_null(q);
    assert_int_equal(q->qlen, 4000000000u);
    assert_int_equal(q->backlog, 4100000000u);
    assert_null(pl__qdisc_find(&s, 6));
    assert_null(pl__qdisc_find(&s, 2));
    pl__qdiscs_free(&s);
    assert_int_equal(s.n, 0);
    assert_null(s.q);
}

/* TCA_STATS2 wins over TCA_STATS when both are there (the kernel sends both). */
static void parse_stats2_preferred_and_multi_datagram(void **state)
{
    (void)state;
    struct nb a;
    memset(&a, 0, sizeof a);
    nb_msg_begin(&a, RTM_NEWQDISC, NLM_F_MULTI, SEQ);
    struct tcmsg t = {0};
    t.tcm_ifindex = 3;
    t.tcm_parent = TC_H_ROOT;
    nb_put(&a, &t, sizeof t);
    struct tc_stats ts;
    memset(&ts, 0, sizeof ts);
    ts.qlen = 11;
    nb_attr(&a, TCA_STATS, &ts, sizeof ts);
    nb_nest_begin(&a, TCA_STATS2 | NLA_F_NESTED);
    struct gnet_stats_queue gq = {22, 33, 0, 0, 0};
    nb_attr(&a, TCA_STATS_QUEUE, &gq, sizeof gq);
    nb_nest_end(&a);
    nb_msg_end(&a);
    struct pl__qdiscs s = {0};
    /* A datagram without NLMSG_DONE: more to come. */
    assert_int_equal(parse_exact(a.b, a.len, SEQ, &s), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.q[0].qlen, 22);
    assert_int_equal(s.q[0].backlog, 33);
    assert_string_equal(s.q[0].kind, "");
    /* The second datagram repeats ifindex 3 (kept: the first) and ends it. */
    struct nb b;
    memset(&b, 0, sizeof b);
    qdisc(&b, SEQ, 3, TC_H_ROOT, "again", 2, 1, 1);
    qdisc(&b, SEQ, 9, TC_H_ROOT, "fq", 2, 8, 800);
    nb_done(&b, SEQ, 0);
    assert_int_equal(parse_exact(b.b, b.len, SEQ, &s), 1);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.bad, 1);
    assert_int_equal(pl__qdisc_find(&s, 3)->qlen, 22);
    assert_int_equal(pl__qdisc_find(&s, 9)->qlen, 8);
    /* An unaligned buffer works the same. */
    unsigned char *u = malloc(b.len + 1);
    assert_non_null(u);
    memcpy(u + 1, b.b, b.len);
    struct pl__qdiscs s2 = {0};
    assert_int_equal(pl__parse_qdisc_dump(u + 1, b.len, SEQ, &s2), 1);
    assert_int_equal(s2.n, 2);
    assert_int_equal(pl__qdisc_find(&s2, 9)->backlog, 800);
    free(u);
    pl__qdiscs_free(&s2);
    pl__qdiscs_free(&s);
}

static void parse_errors_and_status(void **state)
{
    (void)state;
    struct pl__qdiscs s = {0};
    struct nb n;
    /* NLMSG_ERROR carrying -EPERM. */
    memset(&n, 0, sizeof n);
    nb_msg_begin(&n, NLMSG_ERROR, 0, SEQ);
    struct nlmsgerr e;
    memset(&e, 0, sizeof e);
    e.error = -EPERM;
    nb_put(&n, &e, sizeof e);
    nb_msg_end(&n);
    assert_int_equal(parse_exact(n.b, n.len, SEQ, &s), -EPERM);
    /* An acknowledgement (error 0) is not an error. */
    memset(&n, 0, sizeof n);
    nb_msg_begin(&n, NLMSG_ERROR, 0, SEQ);
    e.error = 0;
    nb_put(&n, &e, sizeof e);
    nb_msg_end(&n);
    nb_done(&n, SEQ, 0);
    assert_int_equal(parse_exact(n.b, n.len, SEQ, &s), 1);
    /* A positive or absurd error is -EPROTO. */
    memset(&n, 0, sizeof n);
    nb_msg_begin(&n, NLMSG_ERROR, 0, SEQ);
    e.error = 5;
    nb_put(&n, &e, sizeof e);
    nb_msg_end(&n);
    assert_int_equal(parse_exact(n.b, n.len, SEQ, &s), -EPROTO);
    /* An NLMSG_ERROR too short for its code. */
    memset(&n, 0, sizeof n);
    nb_msg_begin(&n, NLMSG_ERROR, 0, SEQ);
    nb_put(&n, "ab", 2);
    nb_msg_end(&n);
    assert_int_equal(parse_exact(n.b, n.len, SEQ, &s), -EINVAL);
    /* NLMSG_DONE with the dump's failure. */
    memset(&n, 0, sizeof n);
    nb_done(&n, SEQ, -EINTR);
    assert_int_equal(parse_exact(n.b, n.len, SEQ, &s), -EINTR);
    /* NLMSG_DONE of another request does not end ours. */
    memset(&n, 0, sizeof n);
    nb_done(&n, SEQ + 5, 0);
    assert_int_equal(parse_exact(n.b, n.len, SEQ, &s), 0);
    /* A dump interrupted by a change: -EAGAIN at its end. */
    memset(&n, 0, sizeof n);
    s.n = 0;
    s.intr = 0;
    qdisc(&n, SEQ, 2, TC_H_ROOT, "x", 2, 1, 1);
    uint16_t fl = NLM_F_MULTI | NLM_F_DUMP_INTR;
    memcpy(n.b + 6, &fl, 2);
    nb_done(&n, SEQ, 0);
    assert_int_equal(parse_exact(n.b, n.len, SEQ, &s), -EAGAIN);
    /* An empty buffer is nothing yet. */
    s.intr = 0;
    assert_int_equal(pl__parse_qdisc_dump(NULL, 0, SEQ, &s), 0);
    assert_int_equal(pl__parse_qdisc_dump(NULL, 4, SEQ, &s), -EINVAL);
    pl__qdiscs_free(&s);
}

/* Every truncation of a valid reply is refused (or, cut exactly between
 * messages, is "more to come") without reading past the cut. */
static void parse_truncated(void **state)
{
    (void)state;
    struct nb n;
    build_dump(&n);
    /* Message boundaries. */
    size_t bounds[16], nb = 0, off = 0;
    while (off < n.len) {
        uint32_t l;
        memcpy(&l, n.b + off, 4);
        off += (l + 3u) & ~3u;
        bounds[nb++] = off;
        assert_true(nb < 16);
    }
    for (size_t cut = 0; cut < n.len; cut++) {
        struct pl__qdiscs s = {0};
        int rc = parse_exact(n.b, cut, SEQ, &s);
        int boundary = cut == 0;
        for (size_t i = 0; i < nb; i++)
            if (bounds[i] == cut) boundary = 1;
        if (boundary) assert_int_equal(rc, 0);
        else assert_int_equal(rc, -EINVAL);
        pl__qdiscs_free(&s);
    }
}

static void set16(struct nb *n, size_t off, uint16_t v)
{
    memcpy(n->b + off, &v, 2);
}

static void parse_garbage(void **state)
{
    (void)state;
    struct pl__qdiscs s = {0};
    struct nb n;
    /* offsets in one qdisc message: header 16, tcmsg 20, then TCA_KIND */
    const size_t kind = 16 + sizeof(struct tcmsg);
    /* nlmsg_len larger than the buffer */
    memset(&n, 0, sizeof n);
    qdisc(&n, SEQ, 2, TC_H_ROOT, "x", 2, 1, 1);
    uint32_t big = (uint32_t)n.len + 4;
    memcpy(n.b, &big, 4);
    assert_int_equal(parse_exact(n.b, n.len, SEQ, &s), -EINVAL);
    big = 0xFFFFFFFFu;
    memcpy(n.b, &big, 4);
    assert_int_equal(parse_exact(n.b, n.len, SEQ, &s), -EINVAL);
    /* nlmsg_len smaller than a header: a loop that would never advance */
    for (uint32_t small = 0; small < 16; small++) {
        memcpy(n.b, &small, 4);
        assert_int_equal(parse_exact(n.b, n.len, SEQ, &s), -EINVAL);
    }
    /* tcmsg cut short */
    memset(&n, 0, sizeof n);
    nb_msg_begin(&n, RTM_NEWQDISC, 0, SEQ);
    nb_put(&n, "0123456789", 10);
    nb_msg_end(&n);
    assert_int_equal(parse_exact(n.b, n.len, SEQ, &s), -EINVAL);
    /* rta_len past the message, and below the attribute header */
    memset(&n, 0, sizeof n);
    qdisc(&n, SEQ, 2, TC_H_ROOT, "x", 2, 1, 1);
    set16(&n, kind, 0x7FFF);
    assert_int_equal(parse_exact(n.b, n.len, SEQ, &s), -EINVAL);
    for (uint16_t l = 0; l < 4; l++) {
        set16(&n, kind, l);
        assert_int_equal(parse_exact(n.b, n.len, SEQ, &s), -EINVAL);
    }
    /* an inner attribute of TCA_STATS2 overrunning its nest */
    memset(&n, 0, sizeof n);
    qdisc(&n, SEQ, 2, TC_H_ROOT, "x", 2, 1, 1);
    size_t stats2 = kind + 8; /* "x\0" is 2 bytes + 4 header, padded to 8 */
    uint16_t t2;
    memcpy(&t2, n.b + stats2 + 2, 2);
    assert_int_equal(t2, TCA_STATS2);
    set16(&n, stats2 + 4, 200); /* TCA_STATS_BASIC's length */
    assert_int_equal(parse_exact(n.b, n.len, SEQ, &s), -EINVAL);
    /* a short TCA_STATS_QUEUE or TCA_STATS is no statistics, not a misread */
    memset(&n, 0, sizeof n);
    nb_msg_begin(&n, RTM_NEWQDISC, 0, SEQ);
    struct tcmsg t = {0};
    t.tcm_ifindex = 8;
    t.tcm_parent = TC_H_ROOT;
    nb_put(&n, &t, sizeof t);
    nb_nest_begin(&n, TCA_STATS2);
    nb_attr(&n, TCA_STATS_QUEUE, "abcdefgh", 8);
    nb_nest_end(&n);
    nb_attr(&n, TCA_STATS, "abcdefgh", 8);
    nb_msg_end(&n);
    s.n = 0;
    s.bad = 0;
    assert_int_equal(parse_exact(n.b, n.len, SEQ, &s), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.q[0].have_qlen, 0);
    assert_int_equal(s.bad, 1);
    /* TCA_KIND without a NUL, longer than the field */
    memset(&n, 0, sizeof n);
    nb_msg_begin(&n, RTM_NEWQDISC, 0, SEQ);
    nb_put(&n, &t, sizeof t);
    nb_attr(&n, TCA_KIND, "abcdefghijklmnopqrstuvwxyz", 26);
    nb_msg_end(&n);
    s.n = 0;
    assert_int_equal(parse_exact(n.b, n.len, SEQ, &s), 0);
    assert_string_equal(s.q[0].kind, "abcdefghijklmno");
    pl__qdiscs_free(&s);

    /* Random bytes, and random corruptions of a valid reply: never a crash
     * or an out-of-bounds read (ASan), always a defined result. */
    struct nb good;
    build_dump(&good);
    uint32_t x = 12345;
    for (int iter = 0; iter < 20000; iter++) {
        unsigned char buf[600];
        size_t len;
        if (iter % 2) {
            len = (size_t)(x % sizeof buf);
            for (size_t i = 0; i < len; i++) {
                x = x * 1103515245u + 12345u;
                buf[i] = (unsigned char)(x >> 16);
            }
            if (len >= 16 && iter % 4 == 1) { /* a plausible header */
                uint32_t l = (uint32_t)len;
                memcpy(buf, &l, 4);
                uint16_t ty = RTM_NEWQDISC;
                memcpy(buf + 4, &ty, 2);
                uint32_t sq = SEQ;
                memcpy(buf + 8, &sq, 4);
            }
        } else {
            len = good.len < sizeof buf ? good.len : sizeof buf;
            memcpy(buf, good.b, len);
            for (int k = 0; k < 3; k++) {
                x = x * 1103515245u + 12345u;
                buf[(x >> 8) % len] = (unsigned char)(x >> 20);
            }
        }
        x = x * 1103515245u + 12345u;
        struct pl__qdiscs r = {0};
        int rc = parse_exact(buf, len, SEQ, &r);
        assert_true(rc == 0 || rc == 1 || (rc < 0 && rc >= -4095));
        assert_true(r.n <= 600 / 16);
        pl__qdiscs_free(&r);
    }
}

/* --------------------------------------------------------------- live */

static int32_t sys_ifindex(const char *ifname)
{
    char p[256];
    if (snprintf(p, sizeof p, "/sys/class/net/%s/ifindex", ifname) >= (int)sizeof p) return -1;
    FILE *f = fopen(p, "r");
    if (!f) return -1;
    int v = -1;
    if (fscanf(f, "%d", &v) != 1) v = -1;
    fclose(f);
    return v;
}


static void live_dump_matches_tc(void **state)
{
    (void)state;
    struct pl__qdiscs s = {0};
    int rc = pl__read_qdiscs(&s);
    assert_int_equal(rc, 0); /* rtnetlink is in every Linux kernel */
    int32_t lo = sys_ifindex("lo");
    assert_true(lo > 0);
    const struct pl__qdisc *q = pl__qdisc_find(&s, lo);
    /* lo has noqueue (a root with statistics, nothing queued) on any
     * usual system, or no dumped qdisc at all. */
    if (q) {
        assert_int_equal(q->have_qlen, 1);
        assert_int_equal(q->qlen, 0);
    }
    unsigned long pk = 0;
    int t = nl_tc_root_backlog("lo", &pk);
    if (t < 0) fail_msg("tc (iproute2: scripts/deps.sh test) is not usable here");
    assert_int_equal(t, q != NULL);
    if (t) assert_int_equal(pk, q->qlen);
    /* Every root qdisc is keyed by an ifindex that sysfs knows, and tc
     * agrees on which interfaces have one. */
    FILE *ls = popen("ls /sys/class/net", "r");
    assert_non_null(ls);
    char name[256];
    size_t matched = 0;
    while (fgets(name, sizeof name, ls)) {
        name[strcspn(name, "\n")] = 0;
        int32_t ix = sys_ifindex(name);
        if (ix <= 0) continue;
        const struct pl__qdisc *r = pl__qdisc_find(&s, ix);
        if (r) matched++;
        if (t >= 0) {
            int tt = nl_tc_root_backlog(name, &pk);
            if (tt >= 0) assert_int_equal(tt, r != NULL);
        }
    }
    pclose(ls);
    assert_int_equal(matched, s.n);
    pl__qdiscs_free(&s);
}

/* In a network namespace of its own (root only), give lo a slow tbf root
 * qdisc, queue datagrams behind it, and compare the collector's qlen with
 * tc's "backlog ..p". The queue only shrinks once sending stops, so two equal
 * reads of ours around tc's pin tc's value. Child exit: 0 ok, 77 skip. */
static int netns_child(void)
{
    int rc = nl_netns_queue_lo();
    if (rc != 0) return rc;
    int32_t lo = (int32_t)if_nametoindex("lo");
    for (int tries = 0; tries < 10; tries++) {
        struct pl__qdiscs a = {0}, b = {0};
        unsigned long tcq = 0;
        if (pl__read_qdiscs(&a) != 0) return 4;
        int t = nl_tc_root_backlog("lo", &tcq);
        if (pl__read_qdiscs(&b) != 0) return 4;
        const struct pl__qdisc *qa = pl__qdisc_find(&a, lo), *qb = pl__qdisc_find(&b, lo);
        if (t != 1 || !qa || !qb || strcmp(qa->kind, "tbf") != 0) return 5;
        int same = qa->qlen == qb->qlen, ok = qa->qlen == tcq && qa->qlen >= 30;
        fprintf(stderr, "netns lo: ours %u/%u, tc %lu\n", qa->qlen, qb->qlen, tcq);
        pl__qdiscs_free(&a);
        pl__qdiscs_free(&b);
        if (same) return ok ? 0 : 6;
    }
    return 7;
}

static void live_netns_nonzero_backlog(void **state)
{
    (void)state;
    nl_run_in_child(netns_child);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_roots),
        cmocka_unit_test(parse_stats2_preferred_and_multi_datagram),
        cmocka_unit_test(parse_errors_and_status),
        cmocka_unit_test(parse_truncated),
        cmocka_unit_test(parse_garbage),
        cmocka_unit_test(live_dump_matches_tc),
        cmocka_unit_test(live_netns_nonzero_backlog),
    };
    return pl_test_run(tests, argc, argv);
}
