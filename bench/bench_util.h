/* Helpers shared by bench_global and bench_snapshot: clocks, medians, a
 * directory entry of getdents64, the provider entry-point types, and K-run
 * timing of a command. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdint.h>
#include <sys/resource.h>

typedef uint32_t DWORD;
typedef uint16_t WCHAR;
typedef DWORD (*open_fn)(WCHAR *);
typedef DWORD (*collect_fn)(WCHAR *, void **, DWORD *, DWORD *);
typedef DWORD (*close_fn)(void);

/* One record of getdents64. */
struct d64 {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

/* CLOCK_MONOTONIC in microseconds. */
double bu_now_us(void);
/* CPU time of the whole process (every thread), in microseconds. */
double bu_cpu_us(void);
/* qsort comparison of doubles. */
int bu_cmp_double(const void *a, const void *b);
/* Sort t[0..k) and return its median (t[k / 2]). */
double bu_median(double *t, int k);
/* User + system time of a rusage, in microseconds. */
double bu_rusage_us(const struct rusage *ru);

/* Run cmd (argv style; with `search`, looked up in PATH) once with stdout
 * and stderr to /dev/null and wait for it: its wall-clock time and CPU time
 * (user + system, from wait4) in microseconds. 0, -1 when fork failed
 * (errno set), -2 when the command did not run (did not exit, or exit status
 * 127: exec failed). */
int bu_run_quiet(char **cmd, int search, double *wall_us, double *cpu_us);

#endif
