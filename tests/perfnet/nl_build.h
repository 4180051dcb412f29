/* Building netlink reply bytes by hand, for the tests of the dump parsers
 * (test_perfnet_qdisc.c, test_perfnet_sockdiag.c): messages with any header
 * fields, attributes and one level of nesting, 4-byte aligned as the kernel
 * sends them. Overflowing the buffer fails the running test. */
#ifndef NL_BUILD_H
#define NL_BUILD_H

#include <stddef.h>
#include <stdint.h>

struct nb {
    unsigned char b[16384];
    size_t len;
    size_t msg;  /* offset of the open message */
    size_t nest; /* offset of the open nested attribute */
};

void nb_put(struct nb *n, const void *p, size_t len);
/* Zero bytes up to the next multiple of 4. */
void nb_pad4(struct nb *n);
/* Open a message (its length is written by nb_msg_end). */
void nb_msg_begin(struct nb *n, uint16_t type, uint16_t flags, uint32_t seq);
void nb_msg_end(struct nb *n);
/* One attribute (struct rtattr / nlattr) with its payload. */
void nb_attr(struct nb *n, uint16_t type, const void *p, size_t len);
/* Open a nested attribute (its length is written by nb_nest_end). */
void nb_nest_begin(struct nb *n, uint16_t type);
void nb_nest_end(struct nb *n);
/* NLMSG_DONE with the dump's status. */
void nb_done(struct nb *n, uint32_t seq, int status);

#endif
