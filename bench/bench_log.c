/* bench/bench_log: counter log figures (bench/run-log.sh, docs/benchmarks.md).
 *
 *   bench_log record N STORE PROVIDER_DIR OUT.plog
 *       N samples 1 s apart of the Process and Thread objects ("230 232")
 *       through the query engine, appended to a counter log. Prints
 *       records, values per record (instances x counters, bases left out),
 *       data bytes (file minus preamble and header record) and bytes/value.
 *   bench_log seek MB FILE K
 *       makes FILE a log of about MB megabytes (records of ~64 KiB that
 *       change between samples) unless it is already there, then times:
 *       opening it with its index, opening it without (a scan), K seeks to
 *       random times, and K seek+read of the record found (medians). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "perflib/block.h"
#include "perflib/log.h"
#include "perflib/query.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return v[n / 2];
}

/* Values of a block: for every object, non-base counters x instances. */
static unsigned long long count_values(const void *buf, size_t len)
{
    pl_block b;
    if (pl_block_open(&b, buf, len, 0, 0, NULL) != PL_OK) return 0;
    unsigned long long n = 0;
    pl_object o;
    for (int r = pl_block_object(&b, 0, &o); r == PL_OK; r = pl_object_next(&o, &o)) {
        unsigned long long ctrs = 0;
        pl_counter c;
        for (int k = pl_object_counter(&o, 0, &c); k == PL_OK; k = pl_counter_next(&c, &c))
            if (!pl_type_is_base(c.def.CounterType)) ctrs++;
        uint32_t ni = pl_object_num_instances(&o);
        n += ctrs * (o.hdr.NumInstances < 0 ? 1 : ni);
    }
    return n;
}

static int record(int n, const char *store, const char *pdir, const char *out)
{
    pl_engine_config cfg = {.store_path = store, .provider_dir = pdir};
    pl_engine *e = NULL;
    pl_error err = {0};
    if (pl_engine_open(&cfg, &e, &err) != PL_OK) {
        fprintf(stderr, "engine: %s\n", err.msg);
        return 1;
    }
    pl_log_column col = {"\\Process(*)\\*", 0, 0, NULL};
    pl_log_header h = {PL_LOG_BLOCKS, "bench", &col, 1, pl_engine_titles(e, &err), NULL};
    pl_log_writer *w = NULL;
    if (pl_log_create(out, &h, PL_LOG_OVERWRITE, &w, &err) != PL_OK) {
        fprintf(stderr, "log: %s\n", err.msg);
        return 1;
    }
    uint64_t header_bytes = pl_log_writer_bytes(w);
    unsigned long long values = 0;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int k = 0; k < n; k++) {
        struct timespec wake = t0;
        wake.tv_sec += k;
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, NULL);
        void *data = NULL;
        size_t len = 0;
        uint32_t type = 0;
        if (pl_engine_query_alloc(e, "230 232", &data, &len, &type, &err) != PL_OK) {
            fprintf(stderr, "engine: %s\n", err.msg);
            return 1;
        }
        values += count_values(data, len);
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        int64_t ft = ((int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000 + 11644473600000LL) * 10000;
        if (pl_log_append(w, ft, data, len, &err) != PL_OK) {
            fprintf(stderr, "log: %s\n", err.msg);
            return 1;
        }
        free(data);
    }
    uint64_t total = pl_log_writer_bytes(w);
    pl_log_writer_close(w, NULL);
    pl_engine_close(e);
    uint64_t data_bytes = total - header_bytes;
    printf("perflib records=%d values_per_record=%llu data_bytes=%llu header_bytes=%llu bytes_per_value=%.4f\n", n,
           values / (unsigned long long)n, (unsigned long long)data_bytes, (unsigned long long)header_bytes,
           (double)data_bytes / (double)values);
    return 0;
}

static int make_big(const char *file, long mb)
{
    pl_log_column col = {"\\\\bench\\Synthetic\\Data", 0, 0, NULL};
    pl_log_header h = {PL_LOG_BLOCKS, "bench", &col, 1, NULL, NULL};
    pl_log_writer *w = NULL;
    pl_error err = {0};
    if (pl_log_create(file, &h, PL_LOG_OVERWRITE, &w, &err) != PL_OK) {
        fprintf(stderr, "log: %s\n", err.msg);
        return 1;
    }
    enum { REC = 65536 };
    static uint64_t buf[REC / 8];
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (size_t i = 0; i < REC / 8; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        buf[i] = x;
    }
    int64_t t = 133497864000000000LL;
    for (uint64_t k = 0; pl_log_writer_bytes(w) < (uint64_t)mb << 20; k++) {
        /* a quarter of the words change by a little, one in 64 a lot */
        for (size_t i = k % 4; i < REC / 8; i += 4) buf[i] += (i % 64 == 0) ? x++ * 2654435761u : i % 7;
        if (pl_log_append(w, t + (int64_t)k * 10000000, buf, sizeof buf, &err) != PL_OK) {
            fprintf(stderr, "log: %s\n", err.msg);
            return 1;
        }
    }
    return pl_log_writer_close(w, NULL) == PL_OK ? 0 : 1;
}

static int seek_bench(long mb, const char *file, int k)
{
    struct stat st;
    if (stat(file, &st) != 0 || st.st_size < (mb << 20)) {
        double a = now_us();
        if (make_big(file, mb)) return 1;
        fprintf(stderr, "wrote %s in %.1f s\n", file, (now_us() - a) / 1e6);
        stat(file, &st);
    }
    pl_error err = {0};
    pl_log *log = NULL;
    /* the index must be there (make_big writes it; a rebuild may be needed) */
    double a = now_us();
    if (pl_log_open(file, &log, &err) != PL_OK) {
        fprintf(stderr, "open: %s\n", err.msg);
        return 1;
    }
    double open_idx = now_us() - a;
    pl_log_health hh;
    pl_log_get_health(log, &hh);
    size_t n = pl_log_count(log);
    double *s = calloc((size_t)k, sizeof *s), *r = calloc((size_t)k, sizeof *r);
    int64_t t0 = pl_log_time(log, 0), t1 = pl_log_time(log, n - 1);
    srand(42);
    for (int i = 0; i < k; i++) {
        int64_t t = t0 + (int64_t)((double)rand() / RAND_MAX * (double)(t1 - t0));
        size_t at;
        a = now_us();
        pl_log_seek(log, t, &at);
        s[i] = now_us() - a;
        a = now_us();
        pl_log_seek(log, t, &at);
        const void *d;
        size_t len;
        int rc = pl_log_read(log, at < n ? at : n - 1, &d, &len, &err);
        r[i] = now_us() - a;
        if (rc != PL_OK) {
            fprintf(stderr, "read: %s\n", err.msg);
            return 1;
        }
    }
    pl_log_close(log);
    /* without the index: a full scan checks every frame */
    char idx[4200], tmp[4200];
    snprintf(idx, sizeof idx, "%s.idx", file);
    snprintf(tmp, sizeof tmp, "%s.idx.away", file);
    rename(idx, tmp);
    a = now_us();
    if (pl_log_open(file, &log, &err) != PL_OK) {
        fprintf(stderr, "open: %s\n", err.msg);
        rename(tmp, idx);
        return 1;
    }
    double open_scan = now_us() - a;
    pl_log_close(log);
    rename(tmp, idx);
    printf("seek file_mb=%.0f records=%zu index_used=%d open_with_index_ms=%.2f open_by_scan_ms=%.1f "
           "seek_median_us=%.2f seek_read_median_us=%.1f\n",
           (double)st.st_size / (1 << 20), n, hh.index_used, open_idx / 1e3, open_scan / 1e3, median(s, k),
           median(r, k));
    free(s);
    free(r);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "record") == 0) return record(atoi(argv[2]), argv[3], argv[4], argv[5]);
    if (argc == 5 && strcmp(argv[1], "seek") == 0) return seek_bench(atol(argv[2]), argv[3], atoi(argv[4]));
    fprintf(stderr, "usage: bench_log record N STORE PROVIDER_DIR OUT | bench_log seek MB FILE K\n");
    return 2;
}
