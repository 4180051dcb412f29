/* libFuzzer target for the RTM_GETQDISC dump reply parser
 * (lib/platform/linux/netlink_qdisc.c, Network Interface "Output Queue
 * Length").
 *
 * Input: one byte saying where to cut the rest into two datagrams (its value
 * times 8, modulo the length + 1), then the reply bytes, as recvmsg() would
 * deliver them for a request with sequence number 9. Whatever the bytes, the
 * parser reads only inside each datagram (exact-size heap copies), keeps one
 * root qdisc per interface, never more than the bytes can hold, with its
 * kind NUL-terminated, and gives the same result when run again. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "collect_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int parse(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, struct pl__qdiscs *q)
{
    memset(q, 0, sizeof *q);
    int rc = pl__parse_qdisc_dump(a, alen, 9, q);
    if (rc == 0) rc = pl__parse_qdisc_dump(b, blen, 9, q);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20)) return 0;
    size_t len = size - 1;
    size_t cut = len ? ((size_t)data[0] * 8) % (len + 1) : 0;
    /* Exact-size heap copies, so a read past a datagram is an ASan error. */
    uint8_t *a = malloc(cut ? cut : 1);
    uint8_t *b = malloc(len - cut ? len - cut : 1);
    if (!a || !b) abort();
    memcpy(a, data + 1, cut);
    memcpy(b, data + 1 + cut, len - cut);
    struct pl__qdiscs q1, q2;
    int rc = parse(a, cut, b, len - cut, &q1);
    if (rc > 1) abort();
    if (q1.n > q1.cap || (q1.n && !q1.q)) abort();
    if (q1.n * (NLMSG_HDRLEN + sizeof(struct tcmsg)) > len) abort();
    for (size_t i = 0; i < q1.n; i++) {
        const struct pl__qdisc *e = &q1.q[i];
        if (!memchr(e->kind, '\0', sizeof e->kind)) abort();
        if (!e->have_qlen && (e->qlen || e->backlog)) abort();
        if (pl__qdisc_find(&q1, e->ifindex) != e) abort(); /* one per interface */
    }
    int rc2 = parse(a, cut, b, len - cut, &q2);
    if (rc2 != rc || q2.n != q1.n || q2.bad != q1.bad) abort();
    if (q1.n && memcmp(q1.q, q2.q, q1.n * sizeof *q1.q) != 0) abort();
    pl__qdiscs_free(&q1);
    pl__qdiscs_free(&q2);
    free(a);
    free(b);
    return 0;
}
