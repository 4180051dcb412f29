/* bench_app: what an application counter update costs (docs/app-counters.md,
 * docs/benchmarks.md), side by side in one run with a bare atomic and, when
 * libpcp_mmv is there, PCP's MMV; lost updates with 2..16 threads; and the
 * torn-read check: a concurrent reader over W writes plus births and deaths.
 *
 *   bench_app [--reps K] [--ops N] [--torn W] [--threads "2 4 8 16"]
 *
 * Every timing row is the median of K repetitions of N operations, in ns per
 * operation, with its ratio to the bare row it corresponds to. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app_internal.h"
#include "perflib/app.h"

#ifdef HAVE_MMV
#ifdef HAVE_PMAPI
#include <pcp/pmapi.h>
#else
#include "mmv_shim.h"
#endif
#include <pcp/mmv_stats.h>
#endif

static int reps = 11;
static uint64_t ops = 100000000ULL;

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

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, dcmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void row(const char *what, double ns, double ref)
{
    if (ref > 0) printf("%-44s %9.3f ns/op  x%.2f\n", what, ns, ns / ref);
    else printf("%-44s %9.3f ns/op\n", what, ns);
    fflush(stdout);
}

/* ---------------------------------------------------------- single thread */

static _Atomic uint64_t bare_word;
static pl_app_value app_v;

#define TIME_LOOP(body)                                                   \
    do {                                                                  \
        double t[64];                                                     \
        for (int r = 0; r < reps; r++) {                                  \
            double t0 = now_ns();                                         \
            for (uint64_t i = 0; i < ops; i++) { body; }                  \
            t[r] = (now_ns() - t0) / (double)ops;                         \
        }                                                                 \
        res = median(t, reps);                                            \
    } while (0)

#ifdef HAVE_MMV
static void *mmv_addr;
static pmAtomValue *mmv_v;
#endif

static void single_thread(void)
{
    double res, bare_store, bare_add;
    printf("\n== single-thread updates (median of %d x %llu ops)\n", reps, (unsigned long long)ops);
    TIME_LOOP(atomic_store_explicit(&bare_word, i, memory_order_relaxed));
    bare_store = res;
    row("bare relaxed 64-bit store", bare_store, 0);
    pl_app_value v = app_v; /* an application keeps its handles in locals or its own structs */
    TIME_LOOP(pl_app_set(v, i));
    row("pl_app_set (single writer)", res, bare_store);
    TIME_LOOP(pl_app_add_single(v, 1));
    row("pl_app_add_single (single writer)", res, bare_store);
    TIME_LOOP(atomic_store_explicit(&bare_word, i, memory_order_relaxed));
    row("bare relaxed 64-bit store (again)", res, bare_store);
    TIME_LOOP(atomic_fetch_add_explicit(&bare_word, 1, memory_order_relaxed));
    bare_add = res;
    row("bare atomic add (lock xadd)", bare_add, 0);
    TIME_LOOP(pl_app_inc(v));
    row("pl_app_inc (thread-safe)", res, bare_add);
    TIME_LOOP(pl_app_add(v, 3));
    row("pl_app_add (thread-safe)", res, bare_add);
#ifdef HAVE_MMV
    if (mmv_v) {
        TIME_LOOP(mmv_inc(mmv_addr, mmv_v));
        row("PCP MMV mmv_inc", res, bare_add);
        TIME_LOOP(mmv_set_value(mmv_addr, mmv_v, (double)i));
        row("PCP MMV mmv_set_value", res, bare_store);
    } else {
        printf("PCP MMV rows SKIPPED: the MMV file could not be created (see above)\n");
    }
#else
    printf("PCP MMV rows SKIPPED: libpcp_mmv (Debian libpcp-mmv1-dev) was not found when this was built\n");
#endif
}

/* ------------------------------------------------------------ lost updates */

enum { K_APP, K_BARE, K_MMV };
typedef struct thr {
    int kind;
    uint64_t n;
    pthread_barrier_t *go;
} thr;

static void *hammer(void *arg)
{
    thr *t = arg;
    pthread_barrier_wait(t->go);
    switch (t->kind) {
    case K_APP: {
        pl_app_value v = app_v;
        for (uint64_t i = 0; i < t->n; i++) pl_app_inc(v);
        break;
    }
    case K_BARE:
        for (uint64_t i = 0; i < t->n; i++) atomic_fetch_add_explicit(&bare_word, 1, memory_order_relaxed);
        break;
#ifdef HAVE_MMV
    case K_MMV:
        for (uint64_t i = 0; i < t->n; i++) mmv_inc(mmv_addr, mmv_v);
        break;
#endif
    default:
        break;
    }
    return NULL;
}

static uint64_t get(int kind)
{
    if (kind == K_APP) return pl_app_get(app_v);
    if (kind == K_BARE) return atomic_load(&bare_word);
#ifdef HAVE_MMV
    if (kind == K_MMV) return mmv_v->ull;
#endif
    return 0;
}

static void reset(int kind)
{
    if (kind == K_APP) pl_app_set(app_v, 0);
    if (kind == K_BARE) atomic_store(&bare_word, 0);
#ifdef HAVE_MMV
    if (kind == K_MMV) mmv_v->ull = 0;
#endif
}

static void lost_updates(const char *threads_list)
{
    uint64_t per = ops / 10;
    printf("\n== lost updates: T threads x %llu increments of one counter (median of %d runs)\n",
           (unsigned long long)per, reps);
    printf("%-20s %4s %14s %12s %10s\n", "what", "T", "lost (median)", "lost %", "ns/op");
    const char *names[] = {"pl_app_inc", "bare atomic add", "PCP MMV mmv_inc"};
    for (const char *tok = threads_list; *tok;) {
        char *end;
        long T = strtol(tok, &end, 10);
        if (end == tok) {
            tok++;
            continue;
        }
        tok = end;
        if (T < 1 || T > 64) continue;
        for (int kind = 0; kind < 3; kind++) {
#ifdef HAVE_MMV
            if (kind == K_MMV && !mmv_v) continue;
#else
            if (kind == K_MMV) continue;
#endif
            double lost[64], ns[64];
            for (int r = 0; r < reps; r++) {
                reset(kind);
                pthread_barrier_t go;
                pthread_barrier_init(&go, NULL, (unsigned)T + 1);
                pthread_t tid[64];
                thr a = {kind, per, &go};
                for (int i = 0; i < T; i++) pthread_create(&tid[i], NULL, hammer, &a);
                double t0 = now_ns();
                pthread_barrier_wait(&go);
                for (int i = 0; i < T; i++) pthread_join(tid[i], NULL);
                ns[r] = (now_ns() - t0) / (double)(per * (uint64_t)T);
                pthread_barrier_destroy(&go);
                uint64_t want = per * (uint64_t)T, got = get(kind);
                lost[r] = (double)(want - (got < want ? got : want));
            }
            double l = median(lost, reps);
            printf("%-20s %4ld %14.0f %11.2f%% %10.3f\n", names[kind], T, l, 100.0 * l / (double)(per * (uint64_t)T),
                   median(ns, reps));
            fflush(stdout);
        }
    }
}

/* --------------------------------------------------------------- torn reads */

typedef struct torn {
    pl_app *app;
    uint64_t writes;
    _Atomic int done;
} torn;

static void *torn_writer(void *arg)
{
    torn *t = arg;
    pl_error e;
    pl_app_instance in[4];
    pl_app_value v[4];
    char name[64];
    uint64_t gen = 0;
    for (int i = 0; i < 4; i++, gen++) {
        snprintf(name, sizeof name, "n%llu-%llu", (unsigned long long)gen, (unsigned long long)gen);
        pl_app_instance_create(t->app, 0, name, PL_APP_NONE, &in[i], &e);
        pl_app_counter(t->app, in[i], 0, &v[i], &e);
    }
    for (uint64_t w = 1; w <= t->writes; w++) {
        int i = (int)(w & 3);
        pl_app_set(v[i], (w & 0xFFFFFFFFu) * 0x100000001ULL);
        if ((w & 0xFFFFF) == 0) {
            pl_app_instance_delete(t->app, in[i], &e);
            snprintf(name, sizeof name, "n%llu-%llu", (unsigned long long)gen, (unsigned long long)gen);
            gen++;
            pl_app_instance_create(t->app, 0, name, PL_APP_NONE, &in[i], &e);
            pl_app_counter(t->app, in[i], 0, &v[i], &e);
        }
    }
    atomic_store(&t->done, 1);
    return NULL;
}

static int torn_check(uint64_t writes, const char *store)
{
    static const pl_app_counter_decl c[] = {{"V", NULL, PERF_COUNTER_LARGE_RAWCOUNT, 0, 0}};
    static const pl_app_object_decl o[] = {{"Torn", NULL, 0, 0, PL_APP_NO_PARENT_OBJECT, 64, c, 1}};
    pl_app_decl d = {"BenchTorn", o, 1, NULL, 0};
    pl_app_options opt = {.store_path = store};
    torn t = {.writes = writes};
    pl_error e;
    if (pl_app_start(&d, &opt, &t.app, &e) != PL_OK) {
        printf("torn check: cannot start: %s\n", e.msg);
        return 1;
    }
    pl__seg_view *v;
    size_t n;
    if (pl__seg_find(pl__app_dir(), &(uint32_t){(uint32_t)geteuid()}, 1, &v, &n, NULL) != PL_OK || n < 1) return 1;
    size_t me = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].lay.app, "BenchTorn") == 0 && v[i].lay.pid == (uint32_t)getpid()) me = i;
    pthread_t tid;
    double t0 = now_ns();
    pthread_create(&tid, NULL, torn_writer, &t);
    uint64_t reads = 0, torn_v = 0, torn_n = 0, busy = 0;
    pl__seg_inst in;
    while (!atomic_load(&t.done)) {
        uint32_t high = pl__seg_high(v[me].map, &v[me].lay, 0);
        for (uint32_t s = 0; s < high; s++) {
            if (!pl__seg_read_slot(v[me].map, &v[me].lay, 0, s, &in)) {
                busy++;
                continue;
            }
            unsigned long long a = 0, b = 1;
            if (sscanf(in.name, "n%llu-%llu", &a, &b) != 2 || a != b) torn_n++;
            if ((in.values[0] >> 32) != (in.values[0] & 0xFFFFFFFFu)) torn_v++;
            reads++;
        }
    }
    pthread_join(tid, NULL);
    double secs = (now_ns() - t0) / 1e9;
    printf("\n== torn-read check: %llu writes (births/deaths every 2^20) watched by a concurrent reader\n",
           (unsigned long long)writes);
    printf("reads of live instances: %llu, free/busy slots skipped: %llu, torn values: %llu, torn names: %llu "
           "(%.1f s)\n",
           (unsigned long long)reads, (unsigned long long)busy, (unsigned long long)torn_v,
           (unsigned long long)torn_n, secs);
    pl__seg_views_free(v, n);
    pl_app_stop(t.app);
    return torn_v || torn_n ? 1 : 0;
}

int main(int argc, char **argv)
{
    uint64_t writes = 100000000ULL;
    const char *threads = "2 4 8 16";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ops") && i + 1 < argc) ops = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--torn") && i + 1 < argc) writes = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = argv[++i];
        else {
            fprintf(stderr, "usage: bench_app [--reps K] [--ops N] [--torn W] [--threads \"2 4 8 16\"]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > 64) reps = 11;
    if (ops < 1000) ops = 1000;
    char dir[] = "/tmp/bench-app-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char store[256];
    snprintf(store, sizeof store, "%s/store.db", dir);
    setenv("PERFLIB_APP_DIR", dir, 1);
    static const pl_app_counter_decl c[] = {{"Ops", NULL, PERF_COUNTER_BULK_COUNT, 0, 0}};
    static const pl_app_object_decl o[] = {{"Bench", NULL, 0, 0, PL_APP_NO_PARENT_OBJECT, 0, c, 1}};
    pl_app_decl d = {"BenchApp", o, 1, NULL, 0};
    pl_app_options opt = {.store_path = store};
    pl_app *app;
    pl_error e;
    if (pl_app_start(&d, &opt, &app, &e) != PL_OK) {
        fprintf(stderr, "bench_app: %s\n", e.msg);
        return 1;
    }
    pl_app_counter(app, PL_APP_SINGLE(0), 0, &app_v, &e);
#ifdef HAVE_MMV
    mmv_registry_t *reg = mmv_stats_registry("perflib-bench-app", 321, 0);
    pmUnits u = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
    if (reg && mmv_stats_add_metric(reg, "ops", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, u, 0, "ops", "ops") == 0)
        mmv_addr = mmv_stats_start(reg);
    if (mmv_addr) mmv_v = mmv_lookup_value_desc(mmv_addr, "ops", NULL);
    if (!mmv_v)
        printf("PCP MMV: cannot create the MMV file (is $PCP_TMP_DIR/mmv writable?): its rows are SKIPPED\n");
#endif
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    printf("bench_app: %ld CPUs online; goals: single-writer update <= 1 ns, thread-safe <= 3 ns, no lost update\n",
           cpus);
    single_thread();
    lost_updates(threads);
    int rc = torn_check(writes, store);
    pl_app_stop(app);
#ifdef HAVE_MMV
    if (reg) mmv_stats_free(reg);
#endif
    unlink(store);
    rmdir(dir);
    return rc;
}
