/* bench_wrap: the cost of a wrapped object against the original
 * (docs/provider-host.md, "Providers that wrap providers"). One engine
 * query "2" (System, from PerfOS) timed K times, median, in three stores:
 * PerfOS alone, PerfOS wrapped by examples/mycoolcounter in-process, and
 * wrapped by it isolated (in its helper process). Each configuration runs
 * in its own child process, so the three never share a loaded provider.
 *
 *   bench_wrap BUILD_DIR [K]      (goal: in-process wrapper <= 5% more) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perflib/lodctr.h"
#include "perflib/query.h"
#include "perflib/registry.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* In a child: set up the store, time K queries, write the median (ns) to fd. */
static int run(const char *build, const char *dir, int mode, int k, int fd)
{
    char store[512], ini[1024], lib[1024];
    snprintf(store, sizeof store, "%s/store-%d.db", dir, mode);
    setenv("PERFLIB_REGISTRY", store, 1);
    pl_error e;
    pl_store *st;
    if (pl_store_open(store, 0, &st, &e) != PL_OK) {
        fprintf(stderr, "bench_wrap: %s\n", e.msg);
        return 1;
    }
    if (mode) {
        snprintf(ini, sizeof ini, "%s/examples/mycoolcounter/mycoolcounter.ini", PL_SOURCE_DIR);
        snprintf(lib, sizeof lib, "%s/examples/mycoolcounter/example_mycoolcounter.so", build);
        pl_lodctr_set *set;
        if (pl_lodctr_parse(ini, &set, &e) != PL_OK) {
            fprintf(stderr, "bench_wrap: %s\n", e.msg);
            return 1;
        }
        pl_lodctr_overrides ov = {.library = lib,
                                  .isolation = mode == 1 ? PL_INSTALL_ISOLATION_INPROC : PL_INSTALL_ISOLATION_HELPER};
        int rc = pl_lodctr_install(st, set, &ov, NULL, &e);
        pl_lodctr_free(set);
        if (rc != PL_OK && rc != PL_E_EXISTS) { /* installed by an earlier round */
            fprintf(stderr, "bench_wrap: %s\n", e.msg);
            return 1;
        }
    }
    pl_store_close(st);
    pl_engine_config cfg = {.store_path = store};
    pl_engine *eng;
    if (pl_engine_open(&cfg, &eng, &e) != PL_OK) {
        fprintf(stderr, "bench_wrap: %s\n", e.msg);
        return 1;
    }
    double *t = malloc((size_t)k * sizeof *t);
    for (int i = -5; i < k; i++) { /* 5 warm-up queries: loading, Open, the helper */
        void *buf;
        size_t len;
        double t0 = now_ns();
        if (pl_engine_query_alloc(eng, "2", &buf, &len, NULL, &e) != PL_OK) {
            fprintf(stderr, "bench_wrap: %s\n", e.msg);
            return 1;
        }
        double dt = now_ns() - t0;
        pl_free(buf);
        if (i >= 0) t[i] = dt;
    }
    pl_provider_status *ps;
    size_t n;
    int bad = 0;
    if (pl_engine_provider_status(eng, &ps, &n) == PL_OK) {
        for (size_t i = 0; i < n; i++)
            if (ps[i].disabled || ps[i].errors) {
                fprintf(stderr, "bench_wrap: %s: %s\n", ps[i].name, ps[i].last_error);
                bad = 1;
            }
        pl_free(ps);
    }
    pl_engine_close(eng);
    qsort(t, (size_t)k, sizeof *t, dcmp);
    double med = t[k / 2];
    free(t);
    if (write(fd, &med, sizeof med) != (ssize_t)sizeof med) return 1;
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_wrap BUILD_DIR [K]\n");
        return 2;
    }
    int k = argc > 2 ? atoi(argv[2]) : 2001;
    char *build = realpath(argv[1], NULL);
    if (!build) {
        perror(argv[1]);
        return 2;
    }
    if (k < 11) k = 11;
    char dir[] = "/tmp/bench-wrap-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    static const char *const names[] = {"PerfOS System alone", "wrapped by MyCoolCounter, in-process",
                                        "wrapped by MyCoolCounter, isolated"};
    double med[3] = {0, 0, 0};
    int rc = 0;
    /* The three configurations interleaved, three rounds: the median of the
     * rounds' medians, so a burst of load on the machine hits all of them. */
    double rounds[3][3];
    for (int r = 0; r < 3; r++)
        for (int mode = 0; mode < 3; mode++) {
            int p[2];
            if (pipe(p) != 0) return 1;
            pid_t pid = fork();
            if (pid == 0) {
                close(p[0]);
                _exit(run(build, dir, mode, k, p[1]));
            }
            close(p[1]);
            double v = 0;
            if (read(p[0], &v, sizeof v) != (ssize_t)sizeof v) v = 0;
            close(p[0]);
            int st;
            waitpid(pid, &st, 0);
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || v == 0) rc = 1;
            rounds[mode][r] = v;
        }
    printf("\n== wrapped object cost: engine query \"2\" (System), median of %d queries, median of 3 rounds\n", k);
    for (int mode = 0; mode < 3; mode++) {
        qsort(rounds[mode], 3, sizeof rounds[mode][0], dcmp);
        med[mode] = rounds[mode][1];
        if (mode == 0) printf("%-40s %10.1f us\n", names[mode], med[mode] / 1000);
        else
            printf("%-40s %10.1f us  %+.1f%%\n", names[mode], med[mode] / 1000,
                   100.0 * (med[mode] - med[0]) / med[0]);
    }
    static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
    for (int mode = 0; mode < 3; mode++)
        for (int i = 0; i < 4; i++) {
            char path[600];
            snprintf(path, sizeof path, "%s/store-%d.db%s", dir, mode, suffix[i]);
            unlink(path);
        }
    rmdir(dir);
    free(build);
    if (rc) fprintf(stderr, "bench_wrap: a configuration failed (see above)\n");
    return rc;
}
