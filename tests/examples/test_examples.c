/* The example providers, end to end: lodctr-install each example's .ini/.h
 * into a temp store, point its Library at the built .so, query through the
 * engine and read the example's object back with the reader; then the same
 * through the perfquery binary. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/block.h"
#include "perflib/query.h"
#include "perflib/registry.h"
#include "pl_test.h"
#include "pq_fixture.h"
#include "pq_run.h"

#define HELLO_INI PL_SOURCE_DIR "/examples/hello/hello.ini"
#define ROTATION_INI PL_SOURCE_DIR "/examples/instances/instances.ini"

static pq_fixture fx;
static pl_engine *eng;

static int setup_hello(void **state)
{
    (void)state;
    return pq_fixture_make(&fx, HELLO_INI, EXAMPLE_HELLO_SO);
}

static int setup_rotation(void **state)
{
    (void)state;
    return pq_fixture_make(&fx, ROTATION_INI, EXAMPLE_INSTANCES_SO);
}

static int setup_both(void **state)
{
    (void)state;
    if (pq_fixture_make(&fx, HELLO_INI, EXAMPLE_HELLO_SO) != 0) return -1;
    return pq_fixture_install(&fx, ROTATION_INI, EXAMPLE_INSTANCES_SO);
}

static int teardown(void **state)
{
    (void)state;
    pl_engine_close(eng);
    eng = NULL;
    pq_fixture_done(&fx);
    return 0;
}

static void open_engine(void)
{
    pl_engine_config cfg = {0};
    cfg.store_path = fx.store;
    cfg.system_name = "EXAMPLES";
    cfg.log_to_syslog = 0;
    pl_error err = {0};
    int rc = pl_engine_open(&cfg, &eng, &err);
    if (rc != PL_OK) fprintf(stderr, "engine: %s\n", err.msg);
    assert_int_equal(rc, PL_OK);
}

/* The provider's record as lodctr left it. */
static pl_provider_info provider(const char *name)
{
    pl_store *st = NULL;
    pl_error err = {0};
    assert_int_equal(pl_store_open(fx.store, PL_STORE_READONLY, &st, &err), PL_OK);
    pl_provider_info p = {0};
    assert_int_equal(pl_store_provider(st, name, &p, &err), PL_OK);
    pl_store_close(st);
    return p;
}

/* Run `query`; *buf (pl_free) holds the block, *blk its validated view. */
static void query(const char *q, void **buf, pl_block *blk)
{
    size_t len = 0;
    uint32_t type = 0;
    pl_error err = {0};
    int rc = pl_engine_query_alloc(eng, q, buf, &len, &type, &err);
    if (rc != PL_OK) fprintf(stderr, "query: %s\n", err.msg);
    assert_int_equal(rc, PL_OK);
    assert_int_equal(type, PL_REG_BINARY);
    rc = pl_block_open(blk, *buf, len, 0, 0, &err);
    if (rc != PL_OK) fprintf(stderr, "block: %s\n", err.msg);
    assert_int_equal(rc, PL_OK);
}

/* --------------------------------------------------------------- hello */

static void hello_installed_by_lodctr(void **state)
{
    (void)state;
    pl_provider_info p = provider("PerflibHello");
    /* Fixture: Last Counter 1846, Last Help 1847; offsets 0, 2, 4. */
    assert_int_equal(p.first_counter, 3000);
    assert_int_equal(p.last_counter, 3004);
    assert_int_equal(p.first_help, 3001);
    assert_int_equal(p.last_help, 3005);
    assert_string_equal(p.library, EXAMPLE_HELLO_SO);
    assert_string_equal(p.open, "HelloOpen");
    assert_string_equal(p.collect, "HelloCollect");
    assert_string_equal(p.close, "HelloClose");
    assert_non_null(p.object_list);
    assert_string_equal(p.object_list, "3000");
    pl_provider_info_clear(&p);
}

static void hello_text_and_count(void **state)
{
    (void)state;
    open_engine();
    for (uint32_t round = 1; round <= 3; round++) {
        void *buf = NULL;
        pl_block blk;
        query("Global", &buf, &blk);
        pl_object obj;
        assert_int_equal(pl_block_find_object(&blk, 3000, &obj), PL_OK);
        assert_int_equal(obj.hdr.ObjectHelpTitleIndex, 3001);
        assert_int_equal(obj.hdr.NumInstances, PERF_NO_INSTANCES);
        assert_int_equal(obj.hdr.NumCounters, 2);
        assert_int_equal(obj.hdr.TotalByteLength % 8, 0);
        pl_instance inst;
        assert_int_equal(pl_object_instance(&obj, -1, &inst), PL_OK);
        pl_counter c;
        assert_int_equal(pl_object_find_counter(&obj, 3002, &c), PL_OK);
        assert_int_equal(c.def.CounterType, PERF_COUNTER_TEXT);
        assert_int_equal(c.def.CounterHelpTitleIndex, 3003);
        char text[64];
        assert_int_equal(pl_counter_text(&c, &inst, text, sizeof text), PL_OK);
        assert_string_equal(text, "Hello, World!");
        assert_int_equal(pl_object_find_counter(&obj, 3004, &c), PL_OK);
        assert_int_equal(c.def.CounterType, PERF_COUNTER_RAWCOUNT);
        assert_int_equal(c.def.CounterSize, 4);
        uint64_t v = 0;
        assert_int_equal(pl_counter_value(&c, &inst, &v), PL_OK);
        assert_int_equal(v, round); /* one more with every query */
        pl_free(buf);
    }
}

static void hello_answers_only_its_own_index(void **state)
{
    (void)state;
    open_engine();
    void *buf = NULL;
    pl_block blk;
    pl_object obj;
    query("2", &buf, &blk); /* System: not ours */
    assert_int_equal(pl_block_find_object(&blk, 3000, &obj), PL_E_NOT_FOUND);
    pl_free(buf);
    query("3000", &buf, &blk);
    assert_int_equal(pl_block_find_object(&blk, 3000, &obj), PL_OK);
    pl_instance inst;
    pl_counter c;
    uint64_t v = 0;
    assert_int_equal(pl_object_instance(&obj, -1, &inst), PL_OK);
    assert_int_equal(pl_object_find_counter(&obj, 3004, &c), PL_OK);
    assert_int_equal(pl_counter_value(&c, &inst, &v), PL_OK);
    assert_int_equal(v, 1); /* the "2" query did not count */
    pl_free(buf);
    query("Costly", &buf, &blk);
    assert_int_equal(pl_block_find_object(&blk, 3000, &obj), PL_E_NOT_FOUND);
    pl_free(buf);
}

/* Without its counters installed, Open fails: the host skips the provider
 * and the block simply lacks the object. */
static void hello_without_lodctr_is_skipped(void **state)
{
    (void)state;
    pl_store *st = NULL;
    pl_error err = {0};
    assert_int_equal(pl_store_open(fx.store, 0, &st, &err), PL_OK);
    assert_int_equal(pl_store_uninstall(st, "PerflibHello", &err), PL_OK);
    pl_store_close(st);
    open_engine();
    void *buf = NULL;
    pl_block blk;
    query("Global", &buf, &blk);
    assert_int_equal(blk.num_objects, 0);
    pl_free(buf);
    pl_provider_status *list = NULL;
    size_t n = 0;
    assert_int_equal(pl_engine_provider_status(eng, &list, &n), PL_OK);
    int seen = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(list[i].name, "PerflibHello") != 0) continue;
        seen = 1;
        assert_int_equal(list[i].opened, 0);
        assert_true(list[i].errors >= 1);
        assert_int_equal(list[i].collects, 0);
    }
    assert_true(seen);
    pl_free(list);
}

static void hello_via_perfquery(void **state)
{
    (void)state;
    const char *env[] = {fx.env_store, NULL};
    pq_result r;
    const char *get_text[] = {PERFQUERY_BIN, "--registry", fx.store, "--get", "Hello", "-", "Greeting", NULL};
    assert_int_equal(pq_run(get_text, env, &r), 0);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.out, "Hello, World!\n");
    assert_string_equal(r.err, "");
    pq_result_free(&r);
    const char *get_calls[] = {PERFQUERY_BIN, "--registry", fx.store, "--get", "Hello", "-", "Collect Calls", NULL};
    assert_int_equal(pq_run(get_calls, env, &r), 0);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.out, "1\n"); /* a new process: its first Collect */
    pq_result_free(&r);
    const char *get_bad[] = {PERFQUERY_BIN, "--registry", fx.store, "--get", "Hello", "world", "Greeting", NULL};
    assert_int_equal(pq_run(get_bad, env, &r), 0);
    assert_int_equal(r.exit_code, 2);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "perfquery: instance \"world\" not found: object \"Hello\" has no instances; use -\n");
    pq_result_free(&r);
}

/* ------------------------------------------------------------ rotation */

typedef struct expect_inst {
    const char *name;
    uint32_t slot, appearances;
} expect_inst;

/* Collections 1..6 (see examples/instances/instances.c). */
static const expect_inst rounds[6][3] = {
    {{"north", 0, 1}, {"east", 1, 1}, {"south", 2, 1}},
    {{"east", 1, 2}, {"south", 2, 2}, {"west", 3, 1}},
    {{"south", 2, 3}, {"west", 3, 2}, {"center", 4, 1}},
    {{"west", 3, 3}, {"center", 4, 2}, {"north", 0, 2}},
    {{"center", 4, 3}, {"north", 0, 3}, {"east", 1, 3}},
    {{"north", 0, 4}, {"east", 1, 4}, {"south", 2, 4}},
};

static void check_round(const pl_block *blk, int k)
{
    pl_object obj;
    assert_int_equal(pl_block_find_object(blk, 3000, &obj), PL_OK);
    assert_int_equal(obj.hdr.NumCounters, 2);
    assert_int_equal(pl_object_num_instances(&obj), 3);
    pl_counter slot, seen;
    assert_int_equal(pl_object_find_counter(&obj, 3002, &slot), PL_OK);
    assert_int_equal(pl_object_find_counter(&obj, 3004, &seen), PL_OK);
    for (int32_t i = 0; i < 3; i++) {
        pl_instance inst;
        char name[32];
        uint64_t v;
        assert_int_equal(pl_object_instance(&obj, i, &inst), PL_OK);
        assert_int_equal(pl_instance_name(&inst, name, sizeof name), PL_OK);
        assert_string_equal(name, rounds[k][i].name);
        assert_int_equal(pl_counter_value(&slot, &inst, &v), PL_OK);
        assert_int_equal(v, rounds[k][i].slot);
        assert_int_equal(pl_counter_value(&seen, &inst, &v), PL_OK);
        assert_int_equal(v, rounds[k][i].appearances);
    }
}

static void rotation_changes_instances(void **state)
{
    (void)state;
    open_engine();
    for (int k = 0; k < 6; k++) {
        void *buf = NULL;
        pl_block blk;
        query("Global", &buf, &blk);
        check_round(&blk, k);
        pl_free(buf);
    }
}

static void rotation_other_queries_do_not_advance(void **state)
{
    (void)state;
    open_engine();
    void *buf = NULL;
    pl_block blk;
    query("Global", &buf, &blk);
    check_round(&blk, 0);
    pl_free(buf);
    query("238", &buf, &blk); /* not ours: the rotation stays */
    pl_object obj;
    assert_int_equal(pl_block_find_object(&blk, 3000, &obj), PL_E_NOT_FOUND);
    pl_free(buf);
    query("3000", &buf, &blk);
    check_round(&blk, 1);
    pl_free(buf);
}

static void rotation_via_perfquery(void **state)
{
    (void)state;
    const char *env[] = {fx.env_store, NULL};
    pq_result r;
    const char *get[] = {PERFQUERY_BIN, "--registry", fx.store, "--get", "Rotation", "south", "Slot", NULL};
    assert_int_equal(pq_run(get, env, &r), 0);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.out, "2\n");
    pq_result_free(&r);
    /* "west" is not among the first collection's instances. */
    const char *gone[] = {PERFQUERY_BIN, "--registry", fx.store, "--get", "Rotation", "west", "Slot", NULL};
    assert_int_equal(pq_run(gone, env, &r), 0);
    assert_int_equal(r.exit_code, 2);
    assert_string_equal(r.err, "perfquery: instance \"west\" not found in object \"Rotation\"\n");
    pq_result_free(&r);
}

/* Both examples in one store: each gets its own index range. */
static void both_examples_together(void **state)
{
    (void)state;
    pl_provider_info h = provider("PerflibHello"), ro = provider("PerflibRotation");
    assert_int_equal(h.first_counter, 3000);
    assert_int_equal(ro.first_counter, 3006);
    assert_int_equal(ro.first_help, 3007);
    pl_provider_info_clear(&h);
    pl_provider_info_clear(&ro);
    open_engine();
    void *buf = NULL;
    pl_block blk;
    query("Global", &buf, &blk);
    assert_int_equal(blk.num_objects, 2);
    pl_object obj;
    assert_int_equal(pl_block_find_object(&blk, 3000, &obj), PL_OK);
    assert_int_equal(obj.hdr.NumInstances, PERF_NO_INSTANCES);
    assert_int_equal(pl_block_find_object(&blk, 3006, &obj), PL_OK);
    assert_int_equal(pl_object_num_instances(&obj), 3);
    pl_free(buf);
}

/* Each .so exports its three entry points and nothing else: the static
 * libraries inside stay hidden, so they cannot clash with a host's. */
static void check_exports(const char *path, const char *const names[3])
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) fprintf(stderr, "dlopen: %s\n", dlerror());
    assert_non_null(h);
    for (int i = 0; i < 3; i++) assert_non_null(dlsym(h, names[i]));
    static const char *const hidden[] = {"pl_builder_new", "pl_provider_emit", "pl_query_parse_w",
                                         "pl_store_open", "pl_provider_first_indices", "build"};
    for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++) assert_null(dlsym(h, hidden[i]));
    dlclose(h);
}

static void examples_export_only_entry_points(void **state)
{
    (void)state;
    const char *const hello[3] = {"HelloOpen", "HelloCollect", "HelloClose"};
    const char *const rotation[3] = {"RotationOpen", "RotationCollect", "RotationClose"};
    check_exports(EXAMPLE_HELLO_SO, hello);
    check_exports(EXAMPLE_INSTANCES_SO, rotation);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(examples_export_only_entry_points),
    cmocka_unit_test_setup_teardown(hello_installed_by_lodctr, setup_hello, teardown),
    cmocka_unit_test_setup_teardown(hello_text_and_count, setup_hello, teardown),
    cmocka_unit_test_setup_teardown(hello_answers_only_its_own_index, setup_hello, teardown),
    cmocka_unit_test_setup_teardown(hello_without_lodctr_is_skipped, setup_hello, teardown),
    cmocka_unit_test_setup_teardown(hello_via_perfquery, setup_hello, teardown),
    cmocka_unit_test_setup_teardown(rotation_changes_instances, setup_rotation, teardown),
    cmocka_unit_test_setup_teardown(rotation_other_queries_do_not_advance, setup_rotation, teardown),
    cmocka_unit_test_setup_teardown(rotation_via_perfquery, setup_rotation, teardown),
    cmocka_unit_test_setup_teardown(both_examples_together, setup_both, teardown),
};

PL_TEST_MAIN(tests)
