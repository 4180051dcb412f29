/* This file is private to libperflib: no API/ABI guarantee.
 *
 * The contract between the collectors and the operating system. Every path
 * under /proc and /sys is read relative to one root directory (PERFLIB_SYSROOT,
 * default "/"), so the collectors run unchanged against canned trees in tests.
 * Helpers return >= 0 on success and -errno on failure; they never print. */
#ifndef PL_PLATFORM_H
#define PL_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* FILETIME ticks (100 ns) between 1601-01-01 and 1970-01-01. */
#define PL_FILETIME_UNIX_EPOCH 116444736000000000LL
#define PL_TICKS_PER_SEC 10000000LL

/* The start time of process `pid` under `proc` ("/proc"): field 22 of its
 * stat file, clock ticks after boot (as the reader's time namespace sees
 * them). With the pid it names one process, even after the pid is reused.
 * 0 when the file cannot be read or parsed (pl__proc_parse_stat's rules). */
uint64_t pl__proc_start_time(const char *proc, uint32_t pid);

/* The root directory, from PERFLIB_SYSROOT or "/". Never NULL. */
const char *pl__sysroot(void);

/* Open a directory below `root` (or the root itself for rel "" or ".") as an
 * O_DIRECTORY descriptor for the *_at helpers. Returns the fd or -errno. */
int pl__root_open(const char *root, const char *rel);

/* openat(dirfd, rel) + read until EOF or cap-1 bytes + close. The data is
 * NUL-terminated. Returns the bytes read (>= 0) or -errno. A file longer than
 * cap-1 is truncated: callers size buffers for the files they read. */
ssize_t pl__read_at(int dirfd, const char *rel, char *buf, size_t cap);

/* Read a whole file of any size into a malloc'd, NUL-terminated buffer.
 * Returns the length or -errno; *out is freed with free(). */
ssize_t pl__slurp_at(int dirfd, const char *rel, char **out);

/* pl__read_at and pl__slurp_at keep the machine-wide /proc files of the
 * live root open and read them again with pread (read.c, "kept
 * descriptors"). Close them: a provider does on its last Close. */
void pl__kept_close(void);
/* Declare `dirfd` a descriptor of the live "/" that stays open until the
 * caller's pl__kept_close (checked once here, not at every read). */
void pl__kept_root(int dirfd);

/* Number-parsing helpers for the hot path (no stdio, no locale). Each skips
 * leading spaces/tabs, parses an unsigned decimal, advances *p past it and
 * returns 1, or returns 0 (and leaves *p) when there is no number. Overflow
 * saturates at UINT64_MAX. */
int pl__parse_u64(const char **p, uint64_t *v);
int pl__parse_i64(const char **p, int64_t *v);
/* Advance *p past the next newline (or to the end). */
void pl__skip_line(const char **p);
/* Find "key" at the start of a line in a "key: value" file (e.g. meminfo) and
 * parse the first number after it. Returns 1 when found. */
int pl__find_key_u64(const char *text, const char *key, uint64_t *v);

/* Open a file below dirfd for reading: non-blocking (a FIFO planted under
 * the root cannot block), and only a regular file (-EINVAL otherwise).
 * Returns the descriptor or -errno. */
int pl__open_regular_at(int dirfd, const char *rel);

/* Boot time as FILETIME to 100 ns (issue 11 item 5): CLOCK_REALTIME minus
 * CLOCK_BOOTTIME, read together, when that agrees with `btime` (whole
 * seconds, from /proc/stat) to within [-1, +2) s; else btime itself (a
 * canned tree or another machine's /proc). -1 for a btime beyond 63 bits.
 * pl__boot_ft_choose is the decision on given clock readings (100 ns). */
int64_t pl__boot_ft_precise(uint64_t btime);
int64_t pl__boot_ft_choose(uint64_t btime, int64_t real_ft, int64_t since_boot);

/* The current time as FILETIME (100 ns since 1601, UTC). */
int64_t pl__filetime_now(void);
/* A monotonic clock in 100 ns ticks (the block's PerfTime, PerfFreq 10^7). */
int64_t pl__perf_time_now(void);
/* CLOCK_BOOTTIME in 100 ns: time since boot, suspend included, never
 * stepped (issue 33: the clock of elapsed times). */
int64_t pl__boot_time_now(void);
/* USER_HZ (clock ticks per second in /proc), normally 100. */
long pl__clock_ticks(void);
/* Convert clock ticks to 100 ns units (saturating at UINT64_MAX). */
static inline uint64_t pl__ticks_to_100ns(uint64_t ticks, long hz)
{
    if (hz <= 0) return 0;
    uint64_t m = (uint64_t)(PL_TICKS_PER_SEC / hz);
    return m && ticks > UINT64_MAX / m ? UINT64_MAX : ticks * m;
}
/* Boot time as FILETIME, from "btime" in <root>/proc/stat made precise
 * with pl__boot_ft_precise; a btime line that is not one number ("1e9x",
 * beyond 64 bits) is -EINVAL. -errno on failure:
 * -ENODATA without a btime line, -EINVAL for a btime whose FILETIME would
 * not fit in an int64_t. */
int pl__boot_filetime(int rootfd, int64_t *ft);

#endif
