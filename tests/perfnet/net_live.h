/* Live-machine helpers shared by the PerfNet tests: tc as the independent
 * reader of a queue, a private network namespace (with lo up, or with
 * packets waiting in lo's root qdisc), loopback TCP connections, and the
 * child process such a namespace is made in. */
#ifndef NET_LIVE_H
#define NET_LIVE_H

#include <stdint.h>
#include <sys/socket.h>

/* tc's "backlog Nb Mp" packet count of dev's root qdisc: 1 found, 0 no root
 * qdisc shown, -1 tc unusable. */
int nl_tc_root_backlog(const char *dev, unsigned long *pkts);

/* In the calling (child) process: enter a new network namespace and bring
 * its lo up. 0, or 77 when this cannot be done here (not root, no
 * iproute2). */
int nl_netns_lo_up(void);

/* In the calling (child) process: enter a new network namespace, give lo a
 * slow tbf root qdisc and queue 40 datagrams behind it. Returns 0 when the
 * queue is there, 77 when this cannot be done here (not root, no iproute2),
 * another value for a failed step. */
int nl_netns_queue_lo(void);

/* Run fn in a child process: its exit status 0 passes, 77 skips the test
 * with a message, anything else fails it. */
void nl_run_in_child(int (*fn)(void));
/* The same, for a test that must not be skipped: 77 fails it, saying that
 * `what` ("a private network namespace", ...) cannot be made here. */
void nl_run_in_child_required(int (*fn)(void), const char *what);

/* *ss = the address `addr` (text, of `family`: AF_INET or AF_INET6) with
 * `port`; returns its length, 0 when addr is not an address of family. */
socklen_t nl_sockaddr(int family, const char *addr, uint16_t port, struct sockaddr_storage *ss);
/* A TCP listener on addr (an ephemeral port, put in *port) with `backlog`;
 * for AF_INET6 IPV6_V6ONLY is set to v6only. -1 on any failure. */
int nl_tcp_listener(int family, const char *addr, int v6only, int backlog, uint16_t *port);
/* A TCP connection to addr:port, or -1. */
int nl_tcp_connect(int family, const char *addr, uint16_t port);

#endif
