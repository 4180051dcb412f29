/* bench/pcp_fetch: the peer of our snapshot, a resident Performance Co-Pilot
 * client. It connects to the local pmcd once, then fetches K times the
 * per-process metrics that correspond to our Process object (CPU times,
 * faults, priority, threads, start time, memory, I/O, descriptors) and
 * prints the median, like bench_snapshot:
 *   pcp median_ms=<x> min_ms=<y> cpu_ms=<c> processes=<n> threads=-1
 * cpu_ms is the CPU time per fetch of the whole PCP side: this client plus
 * pmcd and its PMDAs (every process named pmcd or pmda*), from their
 * /proc/<pid>/stat before and after the K fetches: a mean, not a median
 * (the servers' times are only known summed, in clock ticks).
 * Built only when libpcp is installed; run by bench/run-snapshot.sh when a
 * pmcd answers. */
#include <dirent.h>
#include <pcp/pmapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* utime + stime, in clock ticks, of every process named pmcd or pmda*. */
static unsigned long long server_ticks(void)
{
    unsigned long long sum = 0;
    DIR *d = opendir("/proc");
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char path[300], buf[1024];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        char *o = strchr(buf, '('), *c = strrchr(buf, ')');
        if (!o || !c) continue;
        if (strncmp(o + 1, "pmcd)", 5) != 0 && strncmp(o + 1, "pmda", 4) != 0) continue;
        /* fields 14 and 15 after the comm: state is field 3 */
        char *s = c + 2;
        unsigned long long ut = 0, st = 0;
        for (int field = 3; field <= 15 && *s; field++) {
            if (field == 14) ut = strtoull(s, NULL, 10);
            if (field == 15) st = strtoull(s, NULL, 10);
            s = strchr(s, ' ');
            if (!s) break;
            s++;
        }
        sum += ut + st;
    }
    closedir(d);
    return sum;
}

static double own_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int k = argc > 1 ? atoi(argv[1]) : 10;
    if (k < 1 || k > 100000) k = 10;
    static const char *want[] = {
        "proc.psinfo.utime",   "proc.psinfo.stime", "proc.psinfo.minflt",     "proc.psinfo.maj_flt",
        "proc.psinfo.nice",    "proc.psinfo.priority", "proc.psinfo.threads", "proc.psinfo.start_time",
        "proc.psinfo.ppid",    "proc.psinfo.vsize",  "proc.psinfo.rss",       "proc.memory.vmpeak",
        "proc.memory.vmhwm",   "proc.memory.vmrss",  "proc.memory.vmswap",    "proc.memory.vmdata",
        "proc.io.syscr",       "proc.io.syscw",      "proc.io.rchar",         "proc.io.wchar",
        "proc.fd.count",       "proc.psinfo.vctxsw", "proc.psinfo.nvctxsw",
    };
    enum { N = sizeof want / sizeof want[0] };
    int ctx = pmNewContext(PM_CONTEXT_HOST, "local:");
    if (ctx < 0) {
        fprintf(stderr, "pcp: no pmcd: %s\n", pmErrStr(ctx));
        return 1;
    }
    pmID ids[N];
    const char *names[N];
    for (int i = 0; i < N; i++) names[i] = want[i];
    /* pmLookupName fills PM_ID_NULL for unknown names; keep the known ones. */
    int rc = pmLookupName(N, names, ids);
    if (rc < 0 && rc != PM_ERR_NONLEAF) {
        fprintf(stderr, "pcp: %s\n", pmErrStr(rc));
    }
    pmID use[N];
    int n = 0;
    for (int i = 0; i < N; i++)
        if (ids[i] != PM_ID_NULL) use[n++] = ids[i];
    if (n == 0) {
        fprintf(stderr, "pcp: none of the proc metrics is known to pmcd\n");
        return 1;
    }
    double *t = calloc((size_t)k, sizeof *t);
    if (!t) return 1;
    int procs = 0;
    unsigned long long s0 = 0;
    double c0 = 0;
    for (int i = -1; i < k; i++) { /* i = -1: warm-up */
        if (i == 0) {
            s0 = server_ticks();
            c0 = own_cpu_ms();
        }
        pmResult *res = NULL;
        double a = now_ms();
        rc = pmFetch(n, use, &res);
        double b = now_ms();
        if (rc < 0) {
            fprintf(stderr, "pcp: fetch: %s\n", pmErrStr(rc));
            return 1;
        }
        if (res->numpmid > 0 && res->vset[0]->numval > 0) procs = res->vset[0]->numval;
        pmFreeResult(res);
        if (i >= 0) t[i] = b - a;
    }
    double own = own_cpu_ms() - c0;
    unsigned long long s1 = server_ticks();
    long hz = sysconf(_SC_CLK_TCK);
    double cpu = (own + (double)(s1 - s0) * 1e3 / (double)(hz > 0 ? hz : 100)) / k;
    qsort(t, (size_t)k, sizeof *t, cmp_double);
    printf("pcp median_ms=%.3f min_ms=%.3f cpu_ms=%.3f processes=%d threads=-1 metrics=%d\n", t[k / 2], t[0], cpu,
           procs, n);
    free(t);
    pmDestroyContext(ctx);
    return 0;
}
