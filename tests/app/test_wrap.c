/* Providers that wrap providers (docs/provider-host.md): MyCoolCounter
 * adds its counter to PerfOS's System, in-process and isolated; a wrapper
 * that crashes, breaks the contract, drops the original's objects or
 * returns an error still leaves PerfOS's objects; a wrapper of a provider
 * that is not installed is never called. Real stores (mkdtemp), the real
 * lodctr binary, the real engine and helper processes. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/query.h"
#include "perflib/registry.h"
#include "pl_test.h"
#include "pl_test_engine.h"
#include "pq_run.h"

static char *dir;
static char store[600];

static void install(const char *ini, const char *lib, const char *isolation)
{
    dir = pq_mkdtemp();
    assert_non_null(dir);
    snprintf(store, sizeof store, "%s/store.db", dir);
    setenv("PERFLIB_REGISTRY", store, 1);
    const char *argv[] = {LODCTR_BIN, "--registry", store, "--library", lib, "--isolation", isolation, ini, NULL};
    pq_result r;
    assert_int_equal(pq_run(argv, NULL, &r), 0);
    if (r.exit_code != 0) fail_msg("lodctr: %s%s", r.out, r.err);
    pq_result_free(&r);
}

static void done(void)
{
    pq_rmdir(dir);
    free(dir);
}

static uint32_t first_counter(const char *provider)
{
    pl_store *st;
    pl_error err;
    pl_provider_info p;
    assert_int_equal(pl_store_open(store, PL_STORE_READONLY, &st, &err), PL_OK);
    assert_int_equal(pl_store_provider(st, provider, &p, &err), PL_OK);
    uint32_t fc = p.first_counter;
    assert_non_null(p.wraps);
    assert_string_equal(p.wraps, "PerfOS");
    pl_provider_info_clear(&p);
    pl_store_close(st);
    return fc;
}

/* System's value of counter `idx`; 0 when System has no such counter. */
static int system_value(const pl_test_answer *a, uint32_t idx, uint64_t *v)
{
    pl_object o;
    assert_int_equal(pl_block_find_object(&a->blk, PL_OBJ_SYSTEM, &o), PL_OK);
    pl_counter k;
    if (pl_object_find_counter(&o, idx, &k) != PL_OK) return 0;
    pl_instance in;
    assert_int_equal(pl_object_instance(&o, -1, &in), PL_OK);
    assert_int_equal(pl_counter_value(&k, &in, v), PL_OK);
    return 1;
}

static void status_of(pl_engine *e, const char *name, pl_provider_status *out)
{
    pl_provider_status *s;
    size_t n;
    assert_int_equal(pl_engine_provider_status(e, &s, &n), PL_OK);
    int found = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(s[i].name, name) == 0) {
            *out = s[i];
            found = 1;
        }
    pl_free(s);
    assert_true(found);
}

static void mycool(const char *isolation)
{
    install(PL_SOURCE_DIR "/examples/mycoolcounter/mycoolcounter.ini", MYCOOL_SO, isolation);
    uint32_t fc = first_counter("MyCoolCounter");
    pl_engine *e = pl_test_engine_open(store);
    pl_test_answer a;
    uint64_t v1 = 0, v2 = 0, procs;
    pl_test_query(e, "2", &a);
    assert_true(system_value(&a, fc, &v1));
    assert_true(system_value(&a, PL_CTR_PROCESSES, &procs)); /* PerfOS's own counters are still there */
    assert_true(procs > 0);
    pl_free(a.buf);
    pl_test_query(e, "Global", &a);
    assert_true(system_value(&a, fc, &v2));
    assert_int_equal(v2, v1 + 1);
    pl_object o;
    assert_int_equal(pl_block_find_object(&a.blk, PL_OBJ_MEMORY, &o), PL_OK); /* untouched */
    assert_int_equal(pl_block_find_object(&a.blk, PL_OBJ_PROCESSOR, &o), PL_OK);
    pl_free(a.buf);
    pl_provider_status s;
    status_of(e, "MyCoolCounter", &s);
    assert_int_equal(s.disabled, 0);
    assert_int_equal(s.errors, 0);
    pl_engine_close(e);
    done();
}

static void test_mycoolcounter_inproc(void **state)
{
    (void)state;
    mycool("in-process");
}

static void test_mycoolcounter_isolated(void **state)
{
    (void)state;
    mycool("isolated");
}

/* A misbehaving wrapper: PerfOS's System is returned as PerfOS made it. */
static void bad_wrapper(const char *mode, const char *isolation, const char *reason)
{
    setenv("WRAP_MODE", mode, 1);
    install(PL_SOURCE_DIR "/tests/app/wrap_testprov.ini", WRAP_SO, isolation);
    pl_engine *e = pl_test_engine_open(store);
    pl_test_answer a;
    uint64_t procs;
    pl_provider_status s;
    /* Each query meets the failure, and the original's objects are returned
     * as it made them; a break is counted, the third in a row disables the
     * wrapper (docs/provider-host.md, "Disabling"); a fourth query meets the
     * disabled wrapper. */
    for (int i = 0; i < 4; i++) {
        pl_test_query(e, "Global", &a);
        assert_true(system_value(&a, PL_CTR_PROCESSES, &procs));
        pl_object o;
        assert_int_equal(pl_block_find_object(&a.blk, PL_OBJ_MEMORY, &o), PL_OK);
        pl_free(a.buf);
        if (reason && i == 1) { /* two breaks: reported, not yet disabled */
            status_of(e, "TestWrapper", &s);
            assert_int_equal(s.disabled, 0);
            if (!strstr(s.last_error, reason)) fail_msg("last error '%s' lacks '%s'", s.last_error, reason);
        }
    }
    status_of(e, "TestWrapper", &s);
    if (reason) {
        assert_int_equal(s.disabled, 1);
        if (!strstr(s.last_error, reason)) fail_msg("last error '%s' lacks '%s'", s.last_error, reason);
    } else {
        assert_int_equal(s.disabled, 0);
        assert_true(s.errors >= 2);
    }
    status_of(e, "PerfOS", &s);
    assert_int_equal(s.disabled, 0);
    assert_int_equal(s.errors, 0);
    pl_engine_close(e);
    unsetenv("WRAP_MODE");
    done();
}

static void test_wrapper_crash_isolated(void **state)
{
    (void)state;
    bad_wrapper("crash", "isolated", "signal 11");
}

static void test_wrapper_bad_bytes_inproc(void **state)
{
    (void)state;
    bad_wrapper("badbytes", "in-process", "did not match");
}

static void test_wrapper_bad_bytes_isolated(void **state)
{
    (void)state;
    bad_wrapper("badbytes", "isolated", "did not match");
}

static void test_wrapper_drops_objects(void **state)
{
    (void)state;
    bad_wrapper("drop", "in-process", "lost the original's object");
}

static void test_wrapper_error(void **state)
{
    (void)state;
    bad_wrapper("error", "isolated", NULL);
}

static void test_wrapper_passthrough(void **state)
{
    (void)state;
    setenv("WRAP_MODE", "pass", 1);
    install(PL_SOURCE_DIR "/tests/app/wrap_testprov.ini", WRAP_SO, "isolated");
    pl_engine *e = pl_test_engine_open(store);
    pl_test_answer a;
    uint64_t procs;
    pl_test_query(e, "Global", &a);
    assert_true(system_value(&a, PL_CTR_PROCESSES, &procs));
    pl_free(a.buf);
    pl_provider_status s;
    status_of(e, "TestWrapper", &s);
    assert_int_equal(s.disabled, 0);
    assert_int_equal(s.collects, 1);
    pl_engine_close(e);
    done();
}

/* A wrapper of a provider that is not installed is never called. */
static void test_wrapper_of_nothing(void **state)
{
    (void)state;
    setenv("WRAP_MODE", "crash", 1);
    install(PL_SOURCE_DIR "/tests/app/wrap_testprov.ini", WRAP_SO, "in-process"); /* would kill us if called */
    pl_store *st;
    pl_error err;
    pl_provider_info p;
    assert_int_equal(pl_store_open(store, 0, &st, &err), PL_OK);
    assert_int_equal(pl_store_provider(st, "TestWrapper", &p, &err), PL_OK);
    free(p.wraps);
    p.wraps = strdup("NoSuchProvider");
    assert_int_equal(pl_store_set_provider(st, &p, &err), PL_OK);
    p.name[0] = 'X'; /* a wrapper of itself is refused */
    free(p.wraps);
    p.wraps = strdup(p.name);
    assert_int_equal(pl_store_set_provider(st, &p, &err), PL_E_INVAL);
    pl_provider_info_clear(&p);
    pl_store_close(st);
    pl_engine *e = pl_test_engine_open(store);
    pl_test_answer a;
    uint64_t procs;
    pl_test_query(e, "Global", &a);
    assert_true(system_value(&a, PL_CTR_PROCESSES, &procs));
    pl_free(a.buf);
    pl_provider_status s;
    status_of(e, "TestWrapper", &s);
    assert_int_equal(s.collects, 0);
    assert_non_null(strstr(s.last_error, "never called"));
    pl_engine_close(e);
    unsetenv("WRAP_MODE");
    done();
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mycoolcounter_inproc),
        cmocka_unit_test(test_mycoolcounter_isolated),
        cmocka_unit_test(test_wrapper_crash_isolated),
        cmocka_unit_test(test_wrapper_bad_bytes_inproc),
        cmocka_unit_test(test_wrapper_bad_bytes_isolated),
        cmocka_unit_test(test_wrapper_drops_objects),
        cmocka_unit_test(test_wrapper_error),
        cmocka_unit_test(test_wrapper_passthrough),
        cmocka_unit_test(test_wrapper_of_nothing),
    };
    return pl_test_run(tests, argc, argv);
}
