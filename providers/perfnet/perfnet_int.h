/* perflib: PerfNet's internals shared between its files (perfnet.c and
 * perfnet_dump.c). Nothing here leaves libperfnet.so (perfnet.map). */
#ifndef PERFNET_INT_H
#define PERFNET_INT_H

#include <time.h>

#include "linux/collect_io.h"

/* ------------------------------------------- the root-qdisc dump thread */

/* How long a Collect waits for the RTM_GETQDISC dump, counted from the
 * moment it asked for it (the start of the collection): the dump itself
 * takes tens of microseconds, but it takes rtnl, which a driver may hold
 * for seconds (docs/providers/perfnet.md, "Output Queue Length"). 200 ms is
 * 4000 times a normal dump, far below the host's 5 s watchdog and a fifth
 * of a 1 s sample interval, so a stuck rtnl costs a sampling tool one late
 * sample, never a stall. */
#define PN_DUMP_DEADLINE_MS 200

/* The thread that makes the dump (perfnet_dump.c). Used under PerfNet's
 * lock only: one dump in flight at a time. */
typedef struct pn_dumper pn_dumper;

/* Ask for a dump now; *d is started (a thread of its own, no signals) on
 * first need, and started afresh in a forked child. Returns 0 when the dump
 * is on its way (pl__pn_dump_wait must follow), -EBUSY while an earlier
 * dump that missed its deadline has still not returned (no new one is
 * started), or -errno when the thread cannot be made. */
int pl__pn_dump_start(pn_dumper **d);

/* Wait for the dump asked for by pl__pn_dump_start until `deadline`
 * (CLOCK_MONOTONIC). Returns 0 with *qd = the dump's result (valid until
 * the next pl__pn_dump_start) and *dump_rc = pl__read_qdiscs's status; or
 * -ETIMEDOUT: the dump is abandoned (it finishes on its own; until then
 * pl__pn_dump_start says -EBUSY), and the library is pinned in memory so
 * that unloading it cannot pull the code from under the thread. */
int pl__pn_dump_wait(pn_dumper *d, const struct timespec *deadline, const struct pl__qdiscs **qd, int *dump_rc);

/* At the last Close or at unload (under PerfNet's lock): a healthy thread
 * is stopped and joined, a stuck one is left to free itself when its dump
 * returns (never joined). *d is NULL afterwards. */
void pl__pn_dumper_stop(pn_dumper **d);

#ifdef PERFNET_TEST_HOOKS
/* Test builds only (tests/perfnet: libperfnet_test.so, never installed):
 * the dump the thread makes instead of pl__read_qdiscs (NULL: the real
 * one), and 1 to make the dump on the collecting thread after the other
 * sources, as before the dump thread existed. */
typedef int pn_dump_fn(struct pl__qdiscs *out);
extern pn_dump_fn *pl__pn_test_dump;
extern int pl__pn_test_inline;
#endif

#endif
