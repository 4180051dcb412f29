/* This file is private to libperflib: no API/ABI guarantee.
 *
 * What every netlink dump of the platform collectors shares (the
 * NETLINK_SOCK_DIAG TCP connections of netlink_sockdiag.c, the rtnetlink
 * root qdiscs of netlink_qdisc.c): the socket, the request, the bounded
 * receive loop and the walk over the messages of one datagram with its
 * sequence filter and its NLMSG_DONE/NLMSG_ERROR/NLM_F_DUMP_INTR handling.
 * Nothing here prints; errors are -errno. */
#ifndef PL_NETLINK_UTIL_H
#define PL_NETLINK_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* One message of a dump, of a type other than NLMSG_NOOP, NLMSG_DONE and
 * NLMSG_ERROR, whose nlmsg_seq is the request's: `p` is its payload of
 * `plen` bytes (inside the datagram; any alignment). Returns 0 to go on,
 * or -errno to stop the walk with that error. */
typedef int (*pl__nl_msg_fn)(void *ctx, uint16_t type, const unsigned char *p, size_t plen);

/* Walk the messages of one received datagram [buf, buf+len) of a dump with
 * sequence number `seq`, handing each to `fn`. Messages of another seq are
 * skipped; NLM_F_DUMP_INTR on any of ours sets *intr. Returns 1 at
 * NLMSG_DONE (-EAGAIN instead when *intr is set), 0 when more datagrams are
 * to come, -EINVAL when a message length overruns the buffer or the buffer
 * ends in a fragment of a header or an NLMSG_ERROR is too short, the
 * negative errno of an NLMSG_ERROR reply or of a failed dump (-EPROTO when
 * that status is not an errno), or `fn`'s error. Never reads outside
 * [buf, buf+len). */
int pl__nl_walk(const void *buf, size_t len, uint32_t seq, int *intr, pl__nl_msg_fn fn, void *ctx);

/* A netlink socket of `protocol` (NETLINK_ROUTE, NETLINK_SOCK_DIAG, ...)
 * with a 1 s receive timeout, so that a reply that never comes cannot hang
 * a collection; or -errno. */
int pl__nl_open(int protocol);

/* Send the request [req, req+len) to the kernel. 0, -errno, or -EIO when
 * the kernel took only part of it. */
int pl__nl_send(int fd, const void *req, size_t len);

/* One datagram of a dump, as received into `buf`: returns 1 when the dump
 * is complete, 0 when more datagrams are to come, or -errno to stop
 * (pl__nl_walk's contract). */
typedef int (*pl__nl_parse_fn)(void *ctx, const void *buf, size_t len, uint32_t seq);

/* Receive the datagrams of the dump with sequence number `seq` into `buf`
 * (`cap` bytes) and hand each one sent by the kernel to `parse`, until it
 * says the dump is complete. At most `max_recvs` datagrams and, when
 * `max_ns` > 0, `max_ns` nanoseconds. Returns 0, or -errno: recvmsg's
 * (-ETIMEDOUT for the socket's timeout), -EMSGSIZE for a datagram larger
 * than `cap`, -EPROTO for an empty one, -ETIMEDOUT past `max_ns`, -E2BIG
 * past `max_recvs`, or `parse`'s. */
int pl__nl_recv_dump(int fd, uint32_t seq, unsigned char *buf, size_t cap, long max_recvs, long long max_ns,
                     pl__nl_parse_fn parse, void *ctx);

#endif
