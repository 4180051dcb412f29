/* This file is private to libperflib: no API/ABI guarantee.
 *
 * Collectors for the processor power and topology counters and the kernel
 * object counts of the perfos provider (issue 11): cpuidle, cpufreq and the
 * NUMA node lists from /sys, SysV IPC object counts from /proc/sysvipc.
 * Same contract as collect_os.h: every path is read relative to a root
 * directory descriptor, 0 or -errno is returned (-ENOENT for an absent file,
 * -EINVAL for a malformed one or one that is not a regular file: a FIFO
 * planted under the root is never opened for a blocking read), nothing is
 * printed, and a value that cannot be read is never a made-up number. */
#ifndef PL_COLLECT_SYS_H
#define PL_COLLECT_SYS_H

#include <stddef.h>
#include <stdint.h>

/* -------------------------------------------- one-number files in /sys */

/* A sysfs attribute holding one unsigned decimal: digits, one '\n', the
 * end (nothing else, no sign, no spaces, at most 64 bits). 0 and *v set,
 * or -EINVAL. */
int pl__parse_sys_u64(const char *text, size_t len, uint64_t *v);
/* Read <root>/<rel> as such a file: 0, -errno of the open/read, or -EINVAL. */
int pl__read_sys_u64(int rootfd, const char *rel, uint64_t *v);

/* ------------------------------------------------------------- cpuidle */

/* Windows has three idle levels (ACPI C1, C2, C3); Linux drivers name
 * their states (POLL, C1, C1E, C6, "haltpoll idle", WFI, ...). The mapping
 * (docs/providers/perfos.md, "Processor: C-states"):
 * - POLL (the kernel's busy-polling state) is no low-power state: left out;
 * - when every other state's name is "C<n>..." (acpi_idle: C1 C2 C3;
 *   intel_idle: C1 C1E C6 C8 ...; C1_ACPI ...), level = min(n, 3), as
 *   ACPI's _CST groups states by type (deeper states are type C3);
 * - otherwise by depth (the kernel numbers states from shallow to deep):
 *   the first non-POLL state is C1, the second C2, every deeper one C3. */
#define PL__CSTATE_LEVELS 3
#define PL__CSTATE_MAX 16        /* states read per CPU (the kernel has at most 10) */
#define PL__CSTATE_NAME_MAX 32

/* 1..3 for a name "C<n>..." with n >= 1 (C1, C1E, C10, C3_ACPI); 0 for
 * any other name. */
int pl__cstate_level_by_name(const char *name);
/* The level (0 = none: POLL) of each of n states named names[i], by the
 * rule above. */
void pl__cstate_map(const char names[][PL__CSTATE_NAME_MAX], unsigned n, int *level);

struct pl__cpuidle {
    int present;                          /* the CPU has cpuidle states */
    unsigned nstates;                     /* states found (POLL included) */
    uint64_t time_us[PL__CSTATE_LEVELS];  /* time in C1, C2, C3 (summed), microseconds */
    uint64_t usage[PL__CSTATE_LEVELS];    /* entries into C1, C2, C3 (summed) */
    unsigned bad;                         /* bit L: time of level L+1 unusable;
                                             bit 3+L: usage of level L+1 unusable */
};
#define PL__CPUIDLE_BAD_ALL 0x3fu

/* The states of one CPU and their levels, kept between collections so the
 * names are read once: valid = 0 makes the next read load it again. */
struct pl__cpuidle_map {
    uint32_t cpu;
    int valid;                            /* every name read, n > 0 */
    unsigned n;                           /* states (POLL included) */
    signed char level[PL__CSTATE_MAX];    /* 0: POLL, 1..3; -1: name unreadable */
};

/* Read <root>/sys/devices/system/cpu/cpu<cpu>/cpuidle/state<K>/{name,time,
 * usage} for K = 0, 1, ... until a state is missing. With a map (may be
 * NULL) that is valid for this cpu, the names are not read again; a state
 * of the map whose time and usage files are both gone makes it load the
 * names again (a driver change with fewer states; the caller invalidates
 * its maps when cpuidle/current_driver changes). POLL's files are not
 * read. Returns 0 with present = 0 when the CPU has no cpuidle directory
 * or no state; 0 with present = 1 otherwise, where a time or usage file
 * that is unreadable, not one number or whose sum overflows marks its
 * level bad, and a name that cannot be read marks every level bad (the
 * mapping needs every name). -EINVAL only for a bad cpu number. */
int pl__read_cpuidle(int rootfd, uint32_t cpu, struct pl__cpuidle_map *map, struct pl__cpuidle *out);

/* ------------------------------------------------------------- cpufreq */

/* One CPU's frequency, /sys/devices/system/cpu/cpu<cpu>/cpufreq/: the
 * current one (scaling_cur_freq, else cpuinfo_cur_freq) and the hardware
 * maximum (cpuinfo_max_freq), in kHz. */
struct pl__cpufreq {
    int have_cur, have_max;   /* each read as one number (> 0 for max) */
    uint64_t cur_khz, max_khz;
};
/* Always 0 (out zeroed first); a file absent, unreadable, not one number,
 * or a maximum of 0 leaves its have_* 0. -EINVAL only for a bad cpu. */
int pl__read_cpufreq(int rootfd, uint32_t cpu, struct pl__cpufreq *out);

/* ---------------------------------------------------------- NUMA nodes */

/* A CPU list as the kernel prints it ("0-3,8,10-11\n", or "\n" for none):
 * ascending, non-overlapping ranges of CPU numbers below 2^24. */
struct pl__cpulist {
    uint32_t n, cap;          /* ranges; cap private */
    uint32_t (*r)[2];         /* [lo, hi], owned */
};
int pl__parse_cpulist(const char *text, size_t len, struct pl__cpulist *out);
void pl__cpulist_free(struct pl__cpulist *l);
/* Is cpu in the list, and how many listed CPUs are below it? */
int pl__cpulist_has(const struct pl__cpulist *l, uint32_t cpu);
uint32_t pl__cpulist_rank(const struct pl__cpulist *l, uint32_t cpu);

/* The NUMA node of each of n CPUs (cpus[], ascending) and its index among
 * the node's CPUs (its rank in the node's cpulist), from <root>/sys/
 * devices/system/node/node<N>/cpulist. Without that directory every CPU is
 * in node 0 with its own number as index, and -ENOENT is returned (the
 * outputs are filled). -EINVAL when a cpulist is malformed or unreadable,
 * a CPU is in two nodes or in none; -ENOMEM. node[] and index[] hold n
 * entries, allocated by the caller. */
int pl__read_cpu_nodes(int rootfd, const uint32_t *cpus, uint32_t n, uint32_t *node, uint32_t *index);

/* ------------------------------------------------------ /proc/sysvipc */

/* The SysV IPC objects of the reader's IPC namespace: /proc/sysvipc/sem
 * (semaphore sets) or /proc/sysvipc/shm (shared memory segments). */
enum pl__sysvipc_kind { PL__SYSVIPC_SEM = 0, PL__SYSVIPC_SHM };

/* Count the objects: a header line whose first word is "key", then one
 * line per object whose first two fields are the key (a signed decimal)
 * and the id (an unsigned decimal). Anything else (no header, a line in
 * another format, a missing final newline, an embedded NUL) is -EINVAL. */
int pl__parse_sysvipc_count(const char *text, size_t len, uint64_t *n);
int pl__read_sysvipc_count(int rootfd, enum pl__sysvipc_kind kind, uint64_t *n);

#endif
