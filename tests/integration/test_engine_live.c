/* The whole path on the live machine: a fresh store seeded with the built-in
 * providers, the host loading the real provider .so files, the engine
 * answering Global, Costly, index and title queries. Values are cross-checked
 * against independent readers (sysconf, /proc read directly here). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/query.h"
#include "pl_test.h"

static char dir[256], store[300];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/pl-live-XXXXXX");
    if (!mkdtemp(dir)) return -1;
    snprintf(store, sizeof store, "%s/perflib.db", dir);
    unsetenv("PERFLIB_SYSROOT");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static pl_engine *open_engine(void)
{
    pl_engine_config cfg = {.store_path = store, .provider_dir = PROVIDER_DIR, .log_to_syslog = 0};
    pl_engine *e = NULL;
    pl_error err;
    int rc = pl_engine_open(&cfg, &e, &err);
    if (rc != PL_OK) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, PL_OK);
    return e;
}

static void *run(pl_engine *e, const char *q, pl_block *blk)
{
    void *data;
    size_t len;
    uint32_t type;
    pl_error err;
    int rc = pl_engine_query_alloc(e, q, &data, &len, &type, &err);
    if (rc != PL_OK) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, PL_OK);
    rc = pl_block_open(blk, data, len, 0, 0, &err);
    if (rc != PL_OK) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, PL_OK);
    return data;
}

static int has(const pl_block *blk, uint32_t idx)
{
    pl_object o;
    return pl_block_find_object(blk, idx, &o) == PL_OK;
}

static void no_provider_disabled(pl_engine *e)
{
    pl_provider_status *st;
    size_t n;
    assert_int_equal(pl_engine_provider_status(e, &st, &n), PL_OK);
    assert_int_equal(n, 5); /* PerfOS, PerfProc, PerfDisk, PerfNet, AppCounters */
    for (size_t i = 0; i < n; i++) {
        if (st[i].disabled || st[i].errors) fprintf(stderr, "%s: %s\n", st[i].name, st[i].last_error);
        assert_int_equal(st[i].disabled, 0);
        assert_int_equal(st[i].errors, 0);
    }
    free(st);
}

static void global_has_every_standard_object(void **state)
{
    (void)state;
    pl_engine *e = open_engine();
    pl_block blk;
    void *data = run(e, "Global", &blk);
    const uint32_t want[] = {PL_OBJ_SYSTEM, PL_OBJ_MEMORY, PL_OBJ_PROCESSOR, PL_OBJ_PROCESS, PL_OBJ_THREAD,
                             PL_OBJ_PHYSICAL_DISK, PL_OBJ_NETWORK_INTERFACE, PL_OBJ_IPV4, PL_OBJ_TCPV4,
                             PL_OBJ_UDPV4, PL_OBJ_PAGING_FILE};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (!has(&blk, want[i])) fprintf(stderr, "object %u missing\n", want[i]);
        assert_true(has(&blk, want[i]));
    }
    assert_false(has(&blk, PL_OBJ_IMAGE)); /* costly */
    assert_false(has(&blk, PL_OBJ_PROCESS_ADDRESS_SPACE));
    /* Processor: one instance per online CPU plus _Total. */
    pl_object o;
    assert_int_equal(pl_block_find_object(&blk, PL_OBJ_PROCESSOR, &o), PL_OK);
    assert_int_equal(pl_object_num_instances(&o), (uint32_t)sysconf(_SC_NPROCESSORS_ONLN) + 1);
    /* Process: our own pid is an instance with ID Process = getpid(). */
    assert_int_equal(pl_block_find_object(&blk, PL_OBJ_PROCESS, &o), PL_OK);
    pl_counter c;
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_ID_PROCESS, &c), PL_OK);
    int found = 0;
    for (uint32_t i = 0; i < pl_object_num_instances(&o); i++) {
        pl_instance in;
        uint64_t v;
        assert_int_equal(pl_object_instance(&o, (int32_t)i, &in), PL_OK);
        if (pl_counter_value(&c, &in, &v) == PL_OK && v == (uint64_t)getpid()) found++;
    }
    assert_int_equal(found, 1);
    free(data);
    no_provider_disabled(e);
    pl_engine_close(e);
}

static void index_query_brings_parent(void **state)
{
    (void)state;
    pl_engine *e = open_engine();
    pl_block blk;
    void *data = run(e, "232", &blk);
    assert_true(has(&blk, PL_OBJ_THREAD));
    assert_true(has(&blk, PL_OBJ_PROCESS));
    assert_false(has(&blk, PL_OBJ_PROCESSOR));
    /* Every thread's full name starts with its process's name. */
    pl_object th;
    assert_int_equal(pl_block_find_object(&blk, PL_OBJ_THREAD, &th), PL_OK);
    char **names;
    assert_int_equal(pl_object_instance_names(&th, &names), PL_OK);
    for (uint32_t i = 0; i < pl_object_num_instances(&th); i++) assert_non_null(strchr(names[i], '/'));
    pl_free(names);
    free(data);
    data = run(e, "238 4", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 2);
    assert_true(has(&blk, PL_OBJ_PROCESSOR));
    assert_true(has(&blk, PL_OBJ_MEMORY));
    free(data);
    no_provider_disabled(e);
    pl_engine_close(e);
}

static void costly_has_image_objects(void **state)
{
    (void)state;
    pl_engine *e = open_engine();
    pl_block blk;
    void *data = run(e, "Costly", &blk);
    assert_true(has(&blk, PL_OBJ_IMAGE) || has(&blk, PL_OBJ_PROCESS_ADDRESS_SPACE));
    assert_false(has(&blk, PL_OBJ_PROCESSOR));
    free(data);
    no_provider_disabled(e);
    pl_engine_close(e);
}

static void process_count_matches_proc(void **state)
{
    (void)state;
    pl_engine *e = open_engine();
    pl_block blk;
    void *data = run(e, "230", &blk);
    pl_object o;
    assert_int_equal(pl_block_find_object(&blk, PL_OBJ_PROCESS, &o), PL_OK);
    uint32_t n = pl_object_num_instances(&o);
    size_t direct = 0;
    DIR *d = opendir("/proc");
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] >= '1' && de->d_name[0] <= '9') direct++;
    closedir(d);
    /* Process instances = processes + _Total + Idle; allow a few to come and go. */
    assert_true(n + 10 >= direct + 2 && n <= direct + 2 + 10);
    free(data);
    pl_engine_close(e);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(global_has_every_standard_object, setup, teardown),
        cmocka_unit_test_setup_teardown(index_query_brings_parent, setup, teardown),
        cmocka_unit_test_setup_teardown(costly_has_image_objects, setup, teardown),
        cmocka_unit_test_setup_teardown(process_count_matches_proc, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
