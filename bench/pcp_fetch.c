/* bench/pcp_fetch: the peer of our snapshot, a resident Performance Co-Pilot
 * client. It connects to the local pmcd once, then fetches K times the
 * per-process metrics that correspond to our Process object (CPU times,
 * faults, priority, threads, start time, memory, I/O, descriptors) and
 * prints the median, like bench_snapshot:
 *   pcp median_ms=<x> min_ms=<y> processes=<n> threads=-1
 * Built only when libpcp is installed; run by bench/run-snapshot.sh when a
 * pmcd answers. */
#include <pcp/pmapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    for (int i = -1; i < k; i++) { /* i = -1: warm-up */
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
    qsort(t, (size_t)k, sizeof *t, cmp_double);
    printf("pcp median_ms=%.3f min_ms=%.3f processes=%d threads=-1 metrics=%d\n", t[k / 2], t[0], procs, n);
    free(t);
    pmDestroyContext(ctx);
    return 0;
}
