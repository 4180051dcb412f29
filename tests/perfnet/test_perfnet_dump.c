/* PerfNet's root-qdisc dump thread (providers/perfnet/perfnet_dump.c):
 * Network Interface's Output Queue Length comes from an RTM_GETQDISC dump
 * made on a thread of PerfNet's own while the collection reads
 * /proc/net/dev and sysfs, waited for PN_DUMP_DEADLINE_MS (200 ms) at most.
 *
 * Most cases load libperfnet_test.so, PerfNet built with its test hook
 * (PerfNetTestSetDump: a dump of the test's own instead of the kernel's,
 * and the old order, the dump on the collecting thread after the rest). */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <net/if.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "linux/collect_io.h"
#include "net_live.h"
#include "perflib/indices.h"
#include "perflib/provider.h"
#include "perflib/query.h"
#include "perflib/registry.h"
#include "pl_test.h"
#include "pl_test_engine.h"
#include "provider_harness.h"

#define DEADLINE_MS 200 /* PN_DUMP_DEADLINE_MS */

typedef int dump_fn(struct pl__qdiscs *out);
typedef void set_dump_fn(dump_fn *fn, int inline_dump);

static ph_provider prov;
static set_dump_fn *set_dump;

static void load_test_so(void)
{
    ph_load(&prov, PERFNET_TEST_SO, "PerfNet", NULL);
    void *s = dlsym(prov.so, "PerfNetTestSetDump");
    if (!s) fail_msg("PerfNetTestSetDump is not exported by %s", PERFNET_TEST_SO);
    memcpy(&set_dump, &s, sizeof set_dump);
    /* Internals stay hidden, in the test build too. */
    assert_null(dlsym(prov.so, "pl__pn_dump_start"));
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* PerfNet's dump threads in this process (by the name it gives them; the
 * sanitizers run threads of their own). */
static int num_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) fail_msg("cannot list /proc/self/task: %s", strerror(errno));
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[300], comm[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue; /* ended meanwhile */
        if (fgets(comm, sizeof comm, f) && strcmp(comm, "perfnet-qdisc\n") == 0) n++;
        fclose(f);
    }
    closedir(d);
    return n;
}

/* Wait (at most 5 s) until the process has n dump threads. */
static void wait_threads(int n)
{
    for (int i = 0; i < 500 && num_threads() != n; i++) usleep(10000);
    assert_int_equal(num_threads(), n);
}

/* ---------------------------------------------------- the test's dumps */

/* A canned answer: a root qdisc with qlen 100 + ifindex for every ifindex
 * from 1 to 64 (whatever interfaces this machine has). */
static int canned(struct pl__qdiscs *out)
{
    out->n = 0;
    if (out->cap < 64) {
        struct pl__qdisc *q = realloc(out->q, 64 * sizeof *q);
        if (!q) return -ENOMEM;
        out->q = q;
        out->cap = 64;
    }
    for (int i = 0; i < 64; i++) {
        memset(&out->q[i], 0, sizeof out->q[i]);
        out->q[i].ifindex = i + 1;
        out->q[i].have_qlen = 1;
        out->q[i].qlen = 100u + (uint32_t)i + 1;
        snprintf(out->q[i].kind, sizeof out->q[i].kind, "canned");
    }
    out->n = 64;
    return 0;
}

/* A dump stuck (as behind rtnl) until the test releases it. */
static sem_t release;
static int calls;   /* atomic: dumps begun */
static int returned; /* atomic: dumps ended */

static int stuck(struct pl__qdiscs *out)
{
    __atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST);
    while (sem_wait(&release) != 0) {
    }
    int rc = canned(out);
    __atomic_add_fetch(&returned, 1, __ATOMIC_SEQ_CST);
    return rc;
}

/* --------------------------------------------------------- reading */

/* Interfaces of /proc/net/dev (names), at most cap. */
static size_t if_names(char (*names)[64], size_t cap)
{
    FILE *f = fopen("/proc/net/dev", "r");
    if (!f) fail_msg("cannot read /proc/net/dev: %s", strerror(errno));
    char line[1024];
    size_t n = 0;
    int ln = 0;
    while (fgets(line, sizeof line, f) && n < cap) {
        if (ln++ < 2) continue;
        char *colon = strchr(line, ':');
        if (!colon) continue;
        *colon = 0;
        char *s = line;
        while (*s == ' ') s++;
        snprintf(names[n++], 64, "%.63s", s);
    }
    fclose(f);
    return n;
}

/* Output Queue Length of every interface: want = 1 all available with
 * qlen 100 + ifindex (canned), 0 all marked unavailable (and written 0). */
static void check_queues(const ph_result *r, int want)
{
    pl_object o;
    ph_object(r, PL_OBJ_NETWORK_INTERFACE, &o);
    char names[64][64];
    size_t n = if_names(names, 64);
    size_t checked = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned ix = if_nametoindex(names[i]);
        if (ix == 0 || ix > 64) continue; /* gone meanwhile, or beyond the canned ones */
        if (ph_available_of(&o, names[i], PL_CTR_OUTPUT_QUEUE_LENGTH) != want)
            fail_msg("%s: Output Queue Length %savailable", names[i], want ? "un" : "");
        uint64_t v = ph_value_of(&o, names[i], PL_CTR_OUTPUT_QUEUE_LENGTH);
        assert_int_equal(v, want ? 100u + ix : 0);
        /* the other counters do not depend on the dump */
        assert_int_equal(ph_available_of(&o, names[i], PL_CTR_BYTES_RECEIVED_PER_SEC), 1);
        checked++;
    }
    assert_true(checked > 0);
}

/* --------------------------------------------- parallel = sequential */

/* In a private network namespace (lo only, nothing sent, so its counters
 * hold still), the block made with the dump on its thread is byte for byte
 * the block of the old order (the dump on the collecting thread after the
 * other sources): with the kernel's dump, and with a canned one whose
 * values show. Child exit: 0 ok, 77 no namespace, else the failing step. */
static int same_block_child(void)
{
    if (nl_netns_lo_up() != 0) return 77;
    ph_load(&prov, PERFNET_TEST_SO, "PerfNet", NULL);
    void *s = dlsym(prov.so, "PerfNetTestSetDump");
    if (!s) return 2;
    memcpy(&set_dump, &s, sizeof set_dump);
    if (prov.open(NULL) != 0) return 3;
    for (int with_canned = 0; with_canned < 2; with_canned++) {
        ph_result seq, par;
        set_dump(with_canned ? canned : NULL, 1);
        if (ph_collect(&prov, "510", 8, &seq) != 0) return 4;
        set_dump(with_canned ? canned : NULL, 0);
        if (ph_collect(&prov, "510", 8, &par) != 0) return 5;
        if (seq.bytes != par.bytes || seq.objects != par.objects || memcmp(seq.buf, par.buf, seq.bytes) != 0) {
            fprintf(stderr, "blocks differ (canned %d): %lu and %lu bytes\n", with_canned,
                    (unsigned long)seq.bytes, (unsigned long)par.bytes);
            return 6;
        }
        pl_object o;
        if (pl_block_find_object(&par.blk, PL_OBJ_NETWORK_INTERFACE, &o) != 0) return 7;
        /* lo (ifindex 1): noqueue in a new namespace, so 0; canned 101 */
        if (ph_available_of(&o, "lo", PL_CTR_OUTPUT_QUEUE_LENGTH) != 1) return 8;
        if (ph_value_of(&o, "lo", PL_CTR_OUTPUT_QUEUE_LENGTH) != (with_canned ? 101u : 0u)) return 9;
        ph_result_free(&seq);
        ph_result_free(&par);
    }
    if (prov.close() != 0) return 10;
    ph_dlclose(&prov);
    return 0;
}

static void parallel_block_equals_sequential(void **state)
{
    (void)state;
    nl_run_in_child_required(same_block_child, "a private network namespace");
}

/* The release library on the live machine: every interface's Output Queue
 * Length equals the root qdisc's qlen in a dump the test makes itself,
 * mapped by ifindex as the sequential code did (no root qdisc: 0). Queues
 * move, so a value is pinned by two equal provider reads around the
 * test's dump (bounded retries). */
static void live_queues_equal_direct_dump(void **state)
{
    (void)state;
    ph_load(&prov, PERFNET_SO, "PerfNet", NULL);
    assert_int_equal(prov.open(NULL), 0);
    char names[64][64];
    size_t n = if_names(names, 64);
    size_t pinned = 0;
    for (size_t i = 0; i < n; i++) {
        int ix = (int)if_nametoindex(names[i]);
        if (ix == 0) continue;
        int ok = 0;
        for (int tries = 0; tries < 20 && !ok; tries++) {
            ph_result a, b;
            struct pl__qdiscs qd = {0};
            ph_collect_ok(&prov, "510", 8, &a);
            assert_int_equal(pl__read_qdiscs(&qd), 0);
            ph_collect_ok(&prov, "510", 8, &b);
            pl_object oa, ob;
            ph_object(&a, PL_OBJ_NETWORK_INTERFACE, &oa);
            ph_object(&b, PL_OBJ_NETWORK_INTERFACE, &ob);
            const struct pl__qdisc *q = pl__qdisc_find(&qd, ix);
            int want_avail = !q || q->have_qlen;
            uint64_t want = q ? q->qlen : 0;
            assert_int_equal(ph_available_of(&oa, names[i], PL_CTR_OUTPUT_QUEUE_LENGTH), want_avail);
            uint64_t va = ph_value_of(&oa, names[i], PL_CTR_OUTPUT_QUEUE_LENGTH);
            uint64_t vb = ph_value_of(&ob, names[i], PL_CTR_OUTPUT_QUEUE_LENGTH);
            if (va == vb) {
                assert_int_equal(va, want);
                ok = 1;
            }
            pl__qdiscs_free(&qd);
            ph_result_free(&a);
            ph_result_free(&b);
        }
        if (!ok) fail_msg("%s: its queue never held still over 20 tries", names[i]);
        pinned++;
    }
    assert_true(pinned > 0);
    ph_unload(&prov);
}

/* ------------------------------------------------------- a stuck dump */

/* A dump that does not return: the Collect comes back at the deadline with
 * Output Queue Length marked unavailable (never a 0 shown as valid) and the
 * rest of the object intact; while it stays stuck, later Collects mark it
 * at once and start no new dump; once it returns, dumps resume and the
 * values are back. */
static void stuck_dump_marks_unavailable(void **state)
{
    (void)state;
    assert_int_equal(sem_init(&release, 0, 0), 0);
    load_test_so();
    assert_int_equal(prov.open(NULL), 0);
    set_dump(canned, 0);
    ph_result r;
    ph_collect_ok(&prov, "510", 8, &r);
    check_queues(&r, 1); /* the hook's values arrive */
    ph_result_free(&r);

    set_dump(stuck, 0);
    double t0 = now_ms();
    ph_collect_ok(&prov, "510", 8, &r);
    double t1 = now_ms();
    print_message("stuck dump: Collect returned after %.1f ms\n", t1 - t0);
    assert_true(t1 - t0 >= DEADLINE_MS - 1);
    assert_true(t1 - t0 < DEADLINE_MS + 800); /* the deadline, not the dump */
    assert_int_equal(__atomic_load_n(&calls, __ATOMIC_SEQ_CST), 1);
    check_queues(&r, 0);
    ph_result_free(&r);

    /* still stuck: marked at once, no second dump */
    for (int i = 0; i < 3; i++) {
        t0 = now_ms();
        ph_collect_ok(&prov, "510 546", 8, &r);
        t1 = now_ms();
        assert_true(t1 - t0 < DEADLINE_MS / 2);
        check_queues(&r, 0);
        assert_true(ph_has_object(&r, PL_OBJ_IPV4)); /* the other objects come as ever */
        ph_result_free(&r);
    }
    assert_int_equal(__atomic_load_n(&calls, __ATOMIC_SEQ_CST), 1);

    /* it returns: the next Collects dump again (the thread notices its
     * return right after the hook's, so allow it a moment) */
    sem_post(&release);
    int back = 0;
    for (int i = 0; i < 100 && !back; i++) {
        if (__atomic_load_n(&returned, __ATOMIC_SEQ_CST) == 1) {
            set_dump(canned, 0);
            ph_collect_ok(&prov, "510", 8, &r);
            pl_object o;
            ph_object(&r, PL_OBJ_NETWORK_INTERFACE, &o);
            back = ph_available_of(&o, "lo", PL_CTR_OUTPUT_QUEUE_LENGTH);
            if (back) check_queues(&r, 1);
            ph_result_free(&r);
        }
        if (!back) usleep(10000);
    }
    assert_true(back);
    assert_int_equal(__atomic_load_n(&calls, __ATOMIC_SEQ_CST), 1); /* the canned dump is not `stuck` */
    ph_unload(&prov);
    sem_destroy(&release);
}

/* Close and dlclose while the dump is stuck: neither waits for it, the
 * library stays mapped (pinned) so the dump can return into it, and the
 * thread then ends on its own. */
static void close_while_stuck(void **state)
{
    (void)state;
    assert_int_equal(sem_init(&release, 0, 0), 0);
    int threads0 = num_threads();
    load_test_so();
    assert_int_equal(prov.open(NULL), 0);
    set_dump(stuck, 0);
    ph_result r;
    ph_collect_ok(&prov, "510", 8, &r);
    check_queues(&r, 0);
    ph_result_free(&r);
    assert_int_equal(num_threads(), threads0 + 1);
    double t0 = now_ms();
    assert_int_equal(prov.close(), 0);
    ph_dlclose(&prov);
    assert_true(now_ms() - t0 < DEADLINE_MS / 2);
    void *again = dlopen(PERFNET_TEST_SO, RTLD_NOW | RTLD_NOLOAD);
    if (!again) fail_msg("libperfnet_test.so was unloaded under its stuck dump thread");
    dlclose(again);
    sem_post(&release);
    wait_threads(threads0); /* returned into mapped code, freed its state, ended */
    assert_int_equal(__atomic_load_n(&returned, __ATOMIC_SEQ_CST), 1);
    sem_destroy(&release);
}

/* A healthy thread: started on the first Network Interface collection
 * only, joined at the last Close; the library is not pinned. */
static void thread_lifetime(void **state)
{
    (void)state;
    int threads0 = num_threads();
    load_test_so();
    assert_int_equal(prov.open(NULL), 0);
    assert_int_equal(prov.open(NULL), 0); /* a second engine */
    ph_result r;
    ph_collect_ok(&prov, "546", 8, &r);
    ph_result_free(&r);
    assert_int_equal(num_threads(), threads0); /* not needed yet */
    ph_collect_ok(&prov, "510", 8, &r);
    ph_result_free(&r);
    assert_int_equal(num_threads(), threads0 + 1);
    ph_collect_ok(&prov, "Global", 8, &r);
    ph_result_free(&r);
    assert_int_equal(num_threads(), threads0 + 1); /* one thread, reused */
    assert_int_equal(prov.close(), 0);
    assert_int_equal(num_threads(), threads0 + 1); /* the other engine still has it open */
    assert_int_equal(prov.close(), 0);
    assert_int_equal(num_threads(), threads0); /* joined */
    ph_dlclose(&prov);
    void *again = dlopen(PERFNET_TEST_SO, RTLD_NOW | RTLD_NOLOAD);
    if (again) {
        dlclose(again);
        fail_msg("libperfnet_test.so stayed loaded without a stuck dump");
    }
}

/* Unloaded without Close (a host that only dlcloses): the destructor joins
 * the thread, so no thread is left running unmapped code. */
static void unload_without_close(void **state)
{
    (void)state;
    int threads0 = num_threads();
    load_test_so();
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "510", 8, &r);
    ph_result_free(&r);
    assert_int_equal(num_threads(), threads0 + 1);
    ph_dlclose(&prov);
    assert_int_equal(num_threads(), threads0);
}

/* A forked child has no dump thread: its first collection starts one. */
static int forked_child(void)
{
    ph_result r;
    if (ph_collect(&prov, "510", 8, &r) != 0) return 2;
    pl_object o;
    if (pl_block_find_object(&r.blk, PL_OBJ_NETWORK_INTERFACE, &o) != 0) return 3;
    int ok = ph_available_of(&o, "lo", PL_CTR_OUTPUT_QUEUE_LENGTH) == 1;
    ph_result_free(&r);
    return ok ? 0 : 4;
}

static void fork_starts_afresh(void **state)
{
    (void)state;
    load_test_so();
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "510", 8, &r);
    ph_result_free(&r);
    nl_run_in_child_required(forked_child, "a child process");
    ph_unload(&prov);
}

/* ------------------------------------------------- through the engine */

static pl_engine *engine_open(const char *store)
{
    pl_engine_config cfg = {.store_path = store, .system_name = "TESTBOX", .log_to_syslog = 0};
    pl_engine *e = NULL;
    pl_error err;
    if (pl_engine_open(&cfg, &e, &err) != PL_OK) fail_msg("engine: %s", err.msg);
    return e;
}

/* A "510" query through the engine: is lo's Output Queue Length available
 * (and then its value in *v)? */
static int engine_lo_queue(pl_engine *e, uint64_t *v)
{
    void *data = NULL;
    size_t len = 0;
    uint32_t type = 0;
    pl_error err;
    if (pl_engine_query_alloc(e, "510", &data, &len, &type, &err) != PL_OK) fail_msg("query: %s", err.msg);
    pl_block blk;
    assert_int_equal(pl_block_open(&blk, data, len, 0, 0, &err), PL_OK);
    pl_object o;
    assert_int_equal(pl_block_find_object(&blk, PL_OBJ_NETWORK_INTERFACE, &o), PL_OK);
    int ok = ph_available_of(&o, "lo", PL_CTR_OUTPUT_QUEUE_LENGTH);
    *v = ph_value_of(&o, "lo", PL_CTR_OUTPUT_QUEUE_LENGTH);
    pl_free(data);
    return ok;
}

/* The whole path on the live root, with PerfNet's record pointing at
 * libperfnet_test.so (the engine's dlopen of that path finds the instance
 * the test opened, so the test's hook is the engine's): a held dump costs
 * the query the 200 ms deadline and not the provider (enabled, no error),
 * the engine closes (dlclose) while the dump is held and the test has let
 * go of the library too, the dump then returns into the pinned library,
 * and a new engine has the value again. */
static void engine_query_with_a_stuck_dump(void **state)
{
    (void)state;
    assert_int_equal(sem_init(&release, 0, 0), 0);
    unsetenv("PERFLIB_SYSROOT");
    char dir[] = "/tmp/perfnet_engXXXXXX", store[600];
    ph_tempdir(dir);
    snprintf(store, sizeof store, "%s/perflib.db", dir);
    pl_store *st = NULL;
    pl_error err;
    assert_int_equal(pl_store_open(store, 0, &st, &err), PL_OK);
    pl_provider_info *list;
    size_t n;
    assert_int_equal(pl_store_providers(st, &list, &n, &err), PL_OK);
    int have = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(list[i].name, "PerfNet") != 0) {
            pl_store_disable_provider(st, list[i].name, "not under test", &err);
            continue;
        }
        have = 1;
        free(list[i].library);
        list[i].library = strdup(PERFNET_TEST_SO);
        assert_non_null(list[i].library);
        if (pl_store_set_provider(st, &list[i], &err) != PL_OK) fail_msg("set_provider: %s", err.msg);
    }
    pl_provider_list_free(list, n);
    pl_store_close(st);
    assert_true(have);

    load_test_so(); /* the engine will get this same instance */
    set_dump(canned, 0);
    pl_engine *e = engine_open(store);
    uint64_t v = 0;
    assert_true(engine_lo_queue(e, &v));
    assert_int_equal(v, 101); /* the hook's value: the engine runs the test's instance */
    set_dump(stuck, 0);
    double t0 = now_ms();
    assert_false(engine_lo_queue(e, &v));
    double took = now_ms() - t0;
    assert_int_equal(v, 0);
    assert_true(took >= DEADLINE_MS - 1);
    assert_true(took < DEADLINE_MS + 800);
    pl_provider_status ps = pl_test_provider_status(e, "PerfNet");
    assert_int_equal(ps.disabled, 0);
    assert_int_equal(ps.errors, 0);
    assert_int_equal(ps.collects, 2);
    ph_dlclose(&prov); /* the test lets go of it ... */
    pl_engine_close(e); /* ... and the engine dlcloses it while the dump is held */
    void *again = dlopen(PERFNET_TEST_SO, RTLD_NOW | RTLD_NOLOAD);
    if (!again) fail_msg("libperfnet_test.so was unloaded under its stuck dump thread");
    void *sym = dlsym(again, "PerfNetTestSetDump");
    assert_non_null(sym);
    memcpy(&set_dump, &sym, sizeof set_dump);
    set_dump(canned, 0);
    sem_post(&release);
    wait_threads(0); /* returned into the pinned code and ended */

    e = engine_open(store);
    int ok = 0;
    for (int i = 0; i < 100 && !(ok = engine_lo_queue(e, &v)); i++) usleep(10000);
    assert_true(ok);
    assert_int_equal(v, 101);
    pl_engine_close(e);
    dlclose(again);
    ph_rmtree(dir);
    sem_destroy(&release);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parallel_block_equals_sequential),
        cmocka_unit_test(live_queues_equal_direct_dump),
        cmocka_unit_test(stuck_dump_marks_unavailable),
        cmocka_unit_test(close_while_stuck),
        cmocka_unit_test(thread_lifetime),
        cmocka_unit_test(unload_without_close),
        cmocka_unit_test(fork_starts_afresh),
        cmocka_unit_test(engine_query_with_a_stuck_dump),
    };
    return pl_test_run(tests, argc, argv);
}
