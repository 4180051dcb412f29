/* See nl_build.h. */
#include "nl_build.h"

#include <string.h>

#include <linux/netlink.h>

#include "pl_test.h"

void nb_put(struct nb *n, const void *p, size_t len)
{
    assert_true(n->len + len <= sizeof n->b);
    memcpy(n->b + n->len, p, len);
    n->len += len;
}

void nb_pad4(struct nb *n)
{
    static const unsigned char z[4];
    nb_put(n, z, (4 - n->len % 4) % 4);
}

void nb_msg_begin(struct nb *n, uint16_t type, uint16_t flags, uint32_t seq)
{
    struct nlmsghdr h = {0};
    h.nlmsg_type = type;
    h.nlmsg_flags = flags;
    h.nlmsg_seq = seq;
    n->msg = n->len;
    nb_put(n, &h, sizeof h);
}

void nb_msg_end(struct nb *n)
{
    uint32_t l = (uint32_t)(n->len - n->msg);
    memcpy(n->b + n->msg, &l, 4);
    nb_pad4(n);
}

void nb_attr(struct nb *n, uint16_t type, const void *p, size_t len)
{
    uint16_t l = (uint16_t)(4 + len);
    nb_put(n, &l, 2);
    nb_put(n, &type, 2);
    nb_put(n, p, len);
    nb_pad4(n);
}

void nb_nest_begin(struct nb *n, uint16_t type)
{
    n->nest = n->len;
    uint16_t z = 0;
    nb_put(n, &z, 2);
    nb_put(n, &type, 2);
}

void nb_nest_end(struct nb *n)
{
    uint16_t l = (uint16_t)(n->len - n->nest);
    memcpy(n->b + n->nest, &l, 2);
}

void nb_done(struct nb *n, uint32_t seq, int status)
{
    nb_msg_begin(n, NLMSG_DONE, NLM_F_MULTI, seq);
    nb_put(n, &status, sizeof status);
    nb_msg_end(n);
}
