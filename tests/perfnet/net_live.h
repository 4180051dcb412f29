/* Live-machine helpers shared by the PerfNet tests: tc as the independent
 * reader of a queue, and a private network namespace whose lo has packets
 * waiting in its root qdisc. */
#ifndef NET_LIVE_H
#define NET_LIVE_H

/* tc's "backlog Nb Mp" packet count of dev's root qdisc: 1 found, 0 no root
 * qdisc shown, -1 tc unusable. */
int nl_tc_root_backlog(const char *dev, unsigned long *pkts);

/* In the calling (child) process: enter a new network namespace, give lo a
 * slow tbf root qdisc and queue 40 datagrams behind it. Returns 0 when the
 * queue is there, 77 when this cannot be done here (not root, no iproute2),
 * another value for a failed step. */
int nl_netns_queue_lo(void);

/* Run fn in a child process: its exit status 0 passes, 77 skips the test
 * with a message, anything else fails it. */
void nl_run_in_child(int (*fn)(void));

#endif
