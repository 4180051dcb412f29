/* PerfDisk's space thread (perfdisk_space.c): the statvfs() calls of a
 * LogicalDisk collection, made on a thread of PerfDisk's own so that the
 * calling thread never waits on a file system longer than a deadline
 * (docs/providers/perfdisk.md, "Free space off the calling thread").
 *
 * One batch at a time, driven by PerfDisk's Collect under its lock:
 *   if (pl__pds_ready()) { pl__pds_add(path)...; pl__pds_go(stall); }
 *   ... other work ...
 *   done = pl__pds_wait(&deadline);  results [0, done) are final
 * A batch that misses its deadline is abandoned: its thread finishes on its
 * own, the library stays loaded (pinned) for it, and pl__pds_ready() answers
 * 0 until it has come back. Internal to libperfdisk.so. */
#ifndef PERFDISK_SPACE_H
#define PERFDISK_SPACE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Free space is what an unprivileged user can still write (df's
 * "Available"); total is the filesystem's size; both in MiB. */
typedef struct pd_space {
    int rc;               /* 0 or -errno of statvfs() */
    uint64_t free_mb, total_mb;
} pd_space;

/* Where a path is looked up: the process and its root directory (chroot()).
 * A thread made by the caller shares both, so the space thread is made
 * again when they change. The mount namespace is not followed: a process
 * that changes it (setns(), unshare()) after its first LogicalDisk
 * collection keeps the first one's view, the mount table and the statvfs()
 * calls alike (checking it costs a /proc lookup, ~6 us, per collection). */
typedef struct pd_view {
    long pid;
    dev_t rdev;
    ino_t rino;
} pd_view;

/* The calling thread's view. */
void pl__pds_view(pd_view *v);
int pl__pds_same_view(const pd_view *a, const pd_view *b);

/* statvfs() of `path` into *out (the thread's call; also used inline). */
void pl__pds_statvfs(const char *path, pd_space *out);

/* May a batch be started now, for a caller with view `v`? 1: an empty
 * batch is open (the thread is started on first use, and made again when
 * the caller's view is not the one it was made in); 0: the last batch is
 * still out (abandoned and not back yet), or no thread could be made. */
int pl__pds_ready(const pd_view *v);
/* Add a path to the open batch; its slot, or -1 without memory. */
long pl__pds_add(const char *path);
/* Hand the open batch (if not empty) to the thread. `stall`, when not NULL,
 * is the test hook's FIFO (PERFLIB_TEST_PERFDISK_STALL): the thread opens
 * it for reading before its first statvfs, which blocks until a writer
 * opens it. Returns the number of paths handed over. */
size_t pl__pds_go(const char *stall);
/* Wait for the batch handed over until `deadline` (CLOCK_MONOTONIC);
 * returns how many of its results are final (all of them, or those done
 * when the deadline passed: the batch is then abandoned). */
size_t pl__pds_wait(const struct timespec *deadline);
/* The result in `slot` (below what pl__pds_wait returned). */
const pd_space *pl__pds_result(size_t slot);
/* At the last Close or unload: stop and join the thread unless a batch of
 * it is still out (then it is left to finish on its own). */
void pl__pds_stop(void);

#endif
