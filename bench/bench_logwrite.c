/* bench/bench_logwrite: write throughput of the counter log formats side by
 * side (bench/run-logwrite.sh, docs/benchmarks.md).
 *
 *   bench_logwrite DIR COLUMNS SAMPLES ROUNDS [PGCONNINFO...]
 *
 * Writes the same SAMPLES samples of COLUMNS counters (values that change
 * from sample to sample, one in twenty missing, raw counters beside them)
 * to each format, each sample handed over as a writer hands it:
 *   BIN      a perflib binary log of values (pl_log_append_values: one
 *            write(2) per record)
 *   CSV      typeperf's -o file (every field quoted, %.17g values, CRLF,
 *            flushed after each row as typeperf does)
 *   SQLite   an SQL log set in a SQLite file (pl_sqllog_append: one
 *            transaction per sample, WAL, synchronous=NORMAL)
 *   PG[k]    an SQL log set in PostgreSQL for each connection string given
 *            (one transaction, one COPY per sample)
 * ROUNDS times, the formats in a rotating order (A B C D, B C D A, ...), a
 * fresh file or log set each time. Prints, per format, the median and the
 * range of values per second over the rounds and the median's ratio to
 * BIN's. Values per sample = COLUMNS (a missing one is written too). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perflib/log.h"
#include "tp_format.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct work {
    size_t nc, ns;
    pl_log_column *cols;
    double *vals;             /* ns x nc */
    unsigned char *present;
    pl_pdh_raw *raw;
    int64_t t0;
} work;

static void make_work(work *w, size_t nc, size_t ns)
{
    w->nc = nc;
    w->ns = ns;
    w->cols = calloc(nc, sizeof *w->cols);
    w->vals = calloc(nc * ns, sizeof *w->vals);
    w->present = calloc(nc * ns, 1);
    w->raw = calloc(nc * ns, sizeof *w->raw);
    if (!w->cols || !w->vals || !w->present || !w->raw) exit(1);
    static const char *const objs[] = {"Processor", "Process", "LogicalDisk", "Network Interface"};
    for (size_t c = 0; c < nc; c++) {
        char p[160];
        snprintf(p, sizeof p, "\\\\BENCH\\%s(inst%zu)\\Counter %zu", objs[c % 4], c / 8, c % 8);
        w->cols[c].path = strdup(p);
        w->cols[c].type = 0x20510500u; /* PERF_100NSEC_TIMER */
    }
    uint64_t x = 88172645463325252ULL;
    for (size_t k = 0; k < ns; k++)
        for (size_t c = 0; c < nc; c++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            size_t i = k * nc + c;
            w->vals[i] = (double)(x % 100000) / 1000.0;
            w->present[i] = x % 20 != 0;
            w->raw[i].cstatus = 0;
            w->raw[i].first = (int64_t)(k * 1000003 + c * 7919);
            w->raw[i].second = (int64_t)(k * 10000000);
        }
    w->t0 = (1782900000LL * 1000 + 11644473600000LL) * 10000;
}

/* Each writer: the seconds writing all samples took, < 0 on failure. */
static double write_bin(const work *w, const char *path)
{
    unlink(path);
    pl_log_header h = {PL_LOG_VALUES, "BENCH", w->cols, w->nc, NULL, NULL};
    pl_log_writer *lw = NULL;
    pl_error err = {0};
    double t = now_s();
    if (pl_log_create(path, &h, PL_LOG_OVERWRITE, &lw, &err) != PL_OK) {
        fprintf(stderr, "BIN: %s\n", err.msg);
        return -1;
    }
    for (size_t k = 0; k < w->ns; k++)
        if (pl_log_append_values(lw, w->t0 + (int64_t)k * 10000000, w->vals + k * w->nc, w->present + k * w->nc,
                                 &err) != PL_OK) {
            fprintf(stderr, "BIN: %s\n", err.msg);
            return -1;
        }
    if (pl_log_writer_close(lw, &err) != PL_OK) return -1;
    return now_s() - t;
}

static void put_field(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static double write_csv(const work *w, const char *path)
{
    double t = now_s();
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    put_field(f, "(PDH-CSV 4.0) (UTC)(0)");
    for (size_t c = 0; c < w->nc; c++) {
        fputc(',', f);
        put_field(f, w->cols[c].path);
    }
    fputs("\r\n", f);
    char stamp[64], v[64];
    for (size_t k = 0; k < w->ns; k++) {
        tp_fmt_time((int64_t)(1782900000LL + (int64_t)k) * 1000, stamp, sizeof stamp, NULL);
        put_field(f, stamp);
        for (size_t c = 0; c < w->nc; c++) {
            size_t i = k * w->nc + c;
            if (w->present[i]) tp_fmt_full(w->vals[i], v, sizeof v);
            else snprintf(v, sizeof v, " ");
            fputc(',', f);
            put_field(f, v);
        }
        fputs("\r\n", f);
        if (fflush(f) != 0) return -1;
    }
    if (fclose(f) != 0) return -1;
    return now_s() - t;
}

static double write_sql(const work *w, const char *name)
{
    pl_sqllog_info si = {w->cols, w->nc, NULL, "UTC", 0};
    pl_sqllog_writer *sw = NULL;
    pl_error err = {0};
    double t = now_s();
    if (pl_sqllog_open(name, &si, 0, &sw, &err) != PL_OK) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        return -1;
    }
    for (size_t k = 0; k < w->ns; k++)
        if (pl_sqllog_append(sw, w->t0 + (int64_t)k * 10000000, w->vals + k * w->nc, w->present + k * w->nc,
                             w->raw + k * w->nc, &err) != PL_OK) {
            fprintf(stderr, "%s: %s\n", name, err.msg);
            return -1;
        }
    if (pl_sqllog_close(sw, &err) != PL_OK) return -1;
    return now_s() - t;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: bench_logwrite DIR COLUMNS SAMPLES ROUNDS [PGCONNINFO...]\n");
        return 2;
    }
    const char *dir = argv[1];
    size_t nc = (size_t)atol(argv[2]), ns = (size_t)atol(argv[3]);
    int rounds = atoi(argv[4]);
    if (!nc || !ns || rounds < 1) return 2;
    int npg = argc - 5, nf = 3 + npg;
    work w;
    make_work(&w, nc, ns);
    double *secs = calloc((size_t)(nf * rounds), sizeof *secs);
    if (!secs) return 1;
    char path[1024];
    for (int r = 0; r < rounds; r++) {
        for (int j = 0; j < nf; j++) {
            int f = (j + r) % nf;
            double s;
            if (f == 0) {
                snprintf(path, sizeof path, "%s/bench.plog", dir);
                s = write_bin(&w, path);
            } else if (f == 1) {
                snprintf(path, sizeof path, "%s/bench.csv", dir);
                s = write_csv(&w, path);
            } else if (f == 2) {
                snprintf(path, sizeof path, "SQL:%s/bench.db!round%d", dir, r);
                s = write_sql(&w, path);
            } else {
                snprintf(path, sizeof path, "SQL:%s!round%d", argv[5 + f - 3], r);
                s = write_sql(&w, path);
            }
            if (s <= 0) return 1;
            secs[f * rounds + r] = s;
        }
    }
    printf("write: %zu columns x %zu samples (%zu values a run), %d rounds, formats in rotating order\n", nc, ns,
           nc * ns, rounds);
    double bin_med = 0;
    for (int f = 0; f < nf; f++) {
        double *v = secs + f * rounds;
        double vps[256];
        int n = rounds < 256 ? rounds : 256;
        for (int r = 0; r < n; r++) vps[r] = (double)(nc * ns) / v[r];
        qsort(vps, (size_t)n, sizeof *vps, cmp_d);
        double med = vps[n / 2];
        if (f == 0) bin_med = med;
        char name[32];
        if (f < 3) snprintf(name, sizeof name, "%s", f == 0 ? "BIN" : f == 1 ? "CSV" : "SQLite");
        else snprintf(name, sizeof name, "PostgreSQL%d", f - 2);
        printf("%-12s values_per_s median=%.0f min=%.0f max=%.0f samples_per_s=%.1f ratio_to_BIN=%.3f\n", name, med,
               vps[0], vps[n - 1], med / (double)nc, med / bin_med);
    }
    for (int f = 3; f < nf; f++) printf("PostgreSQL%d = %s\n", f - 2, argv[5 + f - 3]);
    return 0;
}
