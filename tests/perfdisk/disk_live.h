/* Filesystems on block devices for the PerfDisk tests that need them (the
 * LogicalDisk batches, Free Megabytes against statvfs), made by the test
 * itself so they run on any machine where the suite runs as root, whatever
 * its own root filesystem is (overlay, tmpfs, a container). */
#ifndef DISK_LIVE_H
#define DISK_LIVE_H

#include <stddef.h>

#define DL_MAX_MOUNTS 4

/* As root: move this process into a private mount namespace (call it before
 * the process starts any thread: the namespace is the calling thread's) and
 * mount `n` (1..DL_MAX_MOUNTS) fresh 16 MiB ext4 filesystems, each on a loop
 * device of its own, at "<dir>/m0", "<dir>/m1", ...; `dir` is a mkdtemp
 * template, filled in. The loop devices go with their mounts (autoclear), the
 * mounts with dl_unmount() or with the process. Not root: the case is
 * skipped, saying why; a missing tool or a failed step fails it. */
void dl_loop_mounts(char *dir, int n);

/* "<dir>/m<i>" into buf. */
const char *dl_mount_path(const char *dir, int i, char *buf, size_t cap);

/* Run a shell command, its output (cut to cap - 1 bytes) in out; a command
 * that cannot start or fails fails the case, with its output. */
void dl_run(const char *cmd, char *out, size_t cap);

/* Unmount what dl_loop_mounts() mounted and remove dir. */
void dl_unmount(const char *dir, int n);

#endif
