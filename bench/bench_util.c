/* See bench_util.h. */
#include "bench_util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double clock_us(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

double bu_now_us(void)
{
    return clock_us(CLOCK_MONOTONIC);
}

double bu_cpu_us(void)
{
    return clock_us(CLOCK_PROCESS_CPUTIME_ID);
}

int bu_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bu_median(double *t, int k)
{
    qsort(t, (size_t)k, sizeof *t, bu_cmp_double);
    return t[k / 2];
}

double bu_rusage_us(const struct rusage *ru)
{
    return (double)ru->ru_utime.tv_sec * 1e6 + (double)ru->ru_utime.tv_usec + (double)ru->ru_stime.tv_sec * 1e6 +
           (double)ru->ru_stime.tv_usec;
}

int bu_run_quiet(char **cmd, int search, double *wall_us, double *cpu_us)
{
    double a = bu_now_us();
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int dn = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (dn >= 0) {
            dup2(dn, 1);
            dup2(dn, 2);
        }
        if (search) execvp(cmd[0], cmd);
        else execv(cmd[0], cmd);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st) == 127) return -2;
    *wall_us = bu_now_us() - a;
    *cpu_us = bu_rusage_us(&ru);
    return 0;
}
