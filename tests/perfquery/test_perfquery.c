/* Golden-output tests of the perfquery tool against a deterministic store
 * whose only provider is pq_testprov.so (fixed values). Every case runs the
 * built binary and compares exit code, stdout and stderr byte for byte with
 * tests/perfquery/golden/<case>.out (PL_UPDATE_GOLDEN=1 rewrites them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "perflib/block.h"
#include "pl_test.h"
#include "pq_fixture.h"
#include "pq_run.h"

#define GOLDEN_DIR PL_SOURCE_DIR "/tests/perfquery/golden/"
#define FIXED_TIME "PERFLIB_FIXED_TIME=125911584000000000" /* 2000-01-01 00:00:00 UTC */

static pq_fixture fx;

static int setup(void **state)
{
    (void)state;
    return pq_fixture_make(&fx, PL_SOURCE_DIR "/tests/perfquery/pqtest.ini", PQ_TESTPROV_SO);
}

static int teardown(void **state)
{
    (void)state;
    pq_fixture_done(&fx);
    return 0;
}

/* Run perfquery with the fixture's store plus `args` (NULL-terminated). */
static void run(pq_result *r, const char *const *args)
{
    const char *argv[32];
    size_t n = 0;
    argv[n++] = PERFQUERY_BIN;
    argv[n++] = "--registry";
    argv[n++] = fx.store;
    argv[n++] = "--system-name";
    argv[n++] = "TESTBOX";
    for (size_t i = 0; args[i] && n < 31; i++) argv[n++] = args[i];
    argv[n] = NULL;
    const char *env[] = {fx.env_store, FIXED_TIME, NULL};
    assert_int_equal(pq_run(argv, env, r), 0);
}

static void check_golden(const char *name, const char *const *args)
{
    pq_result r;
    run(&r, args);
    char *t = pq_result_transcript(&r);
    assert_non_null(t);
    char path[512];
    snprintf(path, sizeof path, GOLDEN_DIR "%s.out", name);
    int rc = pq_golden(path, t);
    free(t);
    pq_result_free(&r);
    assert_int_equal(rc, 0);
}

#define GOLDEN_CASE(name, ...)                                                                                         \
    static void name(void **state)                                                                                     \
    {                                                                                                                  \
        (void)state;                                                                                                   \
        const char *const args[] = {__VA_ARGS__, NULL};                                                                \
        check_golden(#name, args);                                                                                     \
    }

/* Dumps. */
GOLDEN_CASE(dump_text, "Global")
GOLDEN_CASE(dump_json, "--json")
GOLDEN_CASE(dump_unknown_query, "ABCD")
GOLDEN_CASE(dump_absent_items, "4242")
GOLDEN_CASE(usage_question_mark, "-?")
GOLDEN_CASE(usage_unknown_short_option, "-x")
GOLDEN_CASE(summary, "--summary")
GOLDEN_CASE(usage_help, "--help")
GOLDEN_CASE(dump_items_query, "3012", "238")
GOLDEN_CASE(get_headline, "--get", "Processor", "_Total", "% Processor Time")
GOLDEN_CASE(providers, "--providers")
/* The title database. */
GOLDEN_CASE(titles, "--titles")
GOLDEN_CASE(help_texts, "--help-texts", "009")
GOLDEN_CASE(titles_unknown_language, "--titles", "019")
/* --get: found. */
GOLDEN_CASE(get_text, "--get", "PQ Machine", "-", "Greeting")
GOLDEN_CASE(get_large, "--get", "pq machine", "-", "ticks")
GOLDEN_CASE(get_parent_path, "--get", "PQ Parent", "beta", "Items")
GOLDEN_CASE(get_duplicate, "--get", "PQ Child", "alpha/one#1", "Bytes/sec")
GOLDEN_CASE(get_short_name, "--get", "PQ Child", "one#1", "Hits")
GOLDEN_CASE(get_with_base, "--get", "PQ Child", "beta/one", "Hit Ratio")
/* --get: a value the provider marked unavailable: n/a, exit 5. */
GOLDEN_CASE(get_unavailable, "--get", "PQ Child", "alpha/two", "Bytes/sec")
GOLDEN_CASE(get_unavailable_base, "--get", "PQ Child", "alpha/one", "Hit Ratio")
GOLDEN_CASE(get_available_beside_marked, "--get", "PQ Child", "alpha/two", "Hits")
/* --get: each kind of "not found". */
GOLDEN_CASE(get_no_such_object, "--get", "Nope", "-", "Items")
GOLDEN_CASE(get_object_not_in_snapshot, "--get", "Paging File", "-", "Items")
GOLDEN_CASE(get_no_such_instance, "--get", "PQ Child", "gamma/one", "Hits")
GOLDEN_CASE(get_dash_on_instances, "--get", "PQ Child", "-", "Hits")
GOLDEN_CASE(get_instance_on_single, "--get", "PQ Machine", "x", "Ticks")
GOLDEN_CASE(get_no_such_counter, "--get", "PQ Child", "alpha/two", "Nope")
GOLDEN_CASE(get_counter_not_in_object, "--get", "PQ Child", "alpha/two", "Items")
/* Usage errors. */
GOLDEN_CASE(usage_get_missing, "--get", "PQ Child", "alpha/two")
GOLDEN_CASE(usage_unknown_option, "--frobnicate")
GOLDEN_CASE(usage_two_modes, "--summary", "--providers")
GOLDEN_CASE(read_missing_file, "--read", "/nonexistent/perfquery-test.blk")

/* --raw writes the exact block; --read of it shows what the query showed. */
static void raw_then_read(void **state)
{
    (void)state;
    char file[4300];
    snprintf(file, sizeof file, "%s/global.blk", fx.dir);
    pq_result r;
    const char *const raw[] = {"--raw", file, "Global", NULL};
    run(&r, raw);
    assert_int_equal(r.exit_code, 0);
    assert_string_equal(r.out, "");
    pq_result_free(&r);
    size_t len = 0;
    char *blk = pq_read_file(file, &len);
    assert_non_null(blk);
    assert_true(len >= 88);
    assert_memory_equal(blk, "P\0E\0R\0F\0", 8);
    uint32_t total;
    memcpy(&total, blk + 20, 4);
    assert_int_equal(total, len); /* TotalByteLength is the file size */
    free(blk);

    const char *const rd[] = {"--read", file, NULL};
    run(&r, rd);
    char *t = pq_result_transcript(&r);
    pq_result_free(&r);
    /* The same transcript as the Global dump. */
    int rc = pq_golden(GOLDEN_DIR "dump_text.out", t);
    free(t);
    assert_int_equal(rc, 0);
}

/* A corrupted block: the reader's message names the field and offset. */
static void read_corrupt(void **state)
{
    (void)state;
    char file[4300];
    snprintf(file, sizeof file, "%s/global.blk", fx.dir);
    pq_result r;
    const char *const raw[] = {"--raw", file, "Global", NULL};
    run(&r, raw);
    assert_int_equal(r.exit_code, 0);
    pq_result_free(&r);
    size_t len = 0;
    char *blk = pq_read_file(file, &len);
    assert_non_null(blk);
    uint32_t hl;
    memcpy(&hl, blk + 24, 4);
    assert_int_equal(hl, 104); /* align8(88 + sizeof L"TESTBOX") */
    /* The first object's DefinitionLength: smaller than its own header. */
    uint32_t bad = 16;
    memcpy(blk + hl + 4, &bad, 4);
    char corrupt[4300];
    snprintf(corrupt, sizeof corrupt, "%s/corrupt.blk", fx.dir);
    assert_int_equal(pq_write_file(corrupt, blk, len), 0);
    free(blk);

    const char *const rd[] = {"--read", corrupt, NULL};
    run(&r, rd);
    assert_int_equal(r.exit_code, 3);
    assert_string_equal(r.out, "");
    /* The message is the reader's; the path differs per run, so compare
     * what follows it. */
    const char *msg = strstr(r.err, "corrupt.blk: ");
    assert_non_null(msg);
    int rc = pq_golden(GOLDEN_DIR "read_corrupt.out", msg + strlen("corrupt.blk: "));
    pq_result_free(&r);
    assert_int_equal(rc, 0);

    /* A truncated file is refused too. */
    char cut[4300];
    snprintf(cut, sizeof cut, "%s/cut.blk", fx.dir);
    assert_int_equal(pq_write_file(cut, "P\0E\0R\0F\0", 8), 0);
    const char *const rd2[] = {"--read", cut, NULL};
    run(&r, rd2);
    assert_int_equal(r.exit_code, 3);
    assert_non_null(strstr(r.err, "cut.blk: "));
    pq_result_free(&r);
}

/* Without PERFLIB_FIXED_TIME the block's own time is shown, so the
 * fixed-time golden output must not match: proves the option is live. */
static void time_is_real_without_fixed_time(void **state)
{
    (void)state;
    const char *argv[] = {PERFQUERY_BIN, "--registry", fx.store, "--system-name", "TESTBOX", NULL};
    const char *env[] = {fx.env_store, "PERFLIB_FIXED_TIME=", NULL};
    pq_result r;
    assert_int_equal(pq_run(argv, env, &r), 0);
    assert_int_equal(r.exit_code, 0);
    assert_null(strstr(r.out, "System time: 2000-01-01 00:00:00.000 UTC"));
    assert_non_null(strstr(r.out, "System time: 20"));
    pq_result_free(&r);
}

static void bad_fixed_time(void **state)
{
    (void)state;
    const char *argv[] = {PERFQUERY_BIN, "--registry", fx.store, NULL};
    const char *env[] = {fx.env_store, "PERFLIB_FIXED_TIME=yesterday", NULL};
    pq_result r;
    assert_int_equal(pq_run(argv, env, &r), 0);
    assert_int_equal(r.exit_code, 1);
    assert_non_null(strstr(r.err, "PERFLIB_FIXED_TIME"));
    pq_result_free(&r);
}

/* A mistyped PERFLIB_REGISTRY: a non-zero exit that names the missing
 * directory, and nothing created (no store, no directory tree). */
static void registry_in_missing_directory(void **state)
{
    (void)state;
    char *dir = pq_mkdtemp();
    assert_non_null(dir);
    char env[700], sub[512];
    snprintf(sub, sizeof sub, "%s/no/such/dir", dir);
    snprintf(env, sizeof env, "PERFLIB_REGISTRY=%s/x.db", sub);
    const char *argv[] = {PERFQUERY_BIN, "--summary", NULL};
    const char *envs[] = {env, NULL};
    pq_result r;
    assert_int_equal(pq_run(argv, envs, &r), 0);
    assert_int_not_equal(r.exit_code, 0);
    char want[700];
    snprintf(want, sizeof want, "the directory %s does not exist", sub);
    if (!strstr(r.err, want)) fprintf(stderr, "stderr: %s\n", r.err);
    assert_non_null(strstr(r.err, want));
    assert_int_equal(r.out_len, 0);
    pq_result_free(&r);
    char no[600];
    snprintf(no, sizeof no, "%s/no", dir);
    struct stat sb;
    assert_int_not_equal(stat(no, &sb), 0);
    pq_rmdir(dir);
    free(dir);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(dump_absent_items, setup, teardown),
    cmocka_unit_test_setup_teardown(usage_question_mark, setup, teardown),
    cmocka_unit_test_setup_teardown(usage_unknown_short_option, setup, teardown),
    cmocka_unit_test(registry_in_missing_directory),
    cmocka_unit_test_setup_teardown(dump_text, setup, teardown),
    cmocka_unit_test_setup_teardown(dump_json, setup, teardown),
    cmocka_unit_test_setup_teardown(dump_unknown_query, setup, teardown),
    cmocka_unit_test_setup_teardown(summary, setup, teardown),
    cmocka_unit_test_setup_teardown(usage_help, setup, teardown),
    cmocka_unit_test_setup_teardown(dump_items_query, setup, teardown),
    cmocka_unit_test_setup_teardown(get_headline, setup, teardown),
    cmocka_unit_test_setup_teardown(providers, setup, teardown),
    cmocka_unit_test_setup_teardown(titles, setup, teardown),
    cmocka_unit_test_setup_teardown(help_texts, setup, teardown),
    cmocka_unit_test_setup_teardown(titles_unknown_language, setup, teardown),
    cmocka_unit_test_setup_teardown(get_text, setup, teardown),
    cmocka_unit_test_setup_teardown(get_large, setup, teardown),
    cmocka_unit_test_setup_teardown(get_parent_path, setup, teardown),
    cmocka_unit_test_setup_teardown(get_duplicate, setup, teardown),
    cmocka_unit_test_setup_teardown(get_short_name, setup, teardown),
    cmocka_unit_test_setup_teardown(get_with_base, setup, teardown),
    cmocka_unit_test_setup_teardown(get_unavailable, setup, teardown),
    cmocka_unit_test_setup_teardown(get_unavailable_base, setup, teardown),
    cmocka_unit_test_setup_teardown(get_available_beside_marked, setup, teardown),
    cmocka_unit_test_setup_teardown(get_no_such_object, setup, teardown),
    cmocka_unit_test_setup_teardown(get_object_not_in_snapshot, setup, teardown),
    cmocka_unit_test_setup_teardown(get_no_such_instance, setup, teardown),
    cmocka_unit_test_setup_teardown(get_dash_on_instances, setup, teardown),
    cmocka_unit_test_setup_teardown(get_instance_on_single, setup, teardown),
    cmocka_unit_test_setup_teardown(get_no_such_counter, setup, teardown),
    cmocka_unit_test_setup_teardown(get_counter_not_in_object, setup, teardown),
    cmocka_unit_test_setup_teardown(usage_get_missing, setup, teardown),
    cmocka_unit_test_setup_teardown(usage_unknown_option, setup, teardown),
    cmocka_unit_test_setup_teardown(usage_two_modes, setup, teardown),
    cmocka_unit_test_setup_teardown(read_missing_file, setup, teardown),
    cmocka_unit_test_setup_teardown(raw_then_read, setup, teardown),
    cmocka_unit_test_setup_teardown(read_corrupt, setup, teardown),
    cmocka_unit_test_setup_teardown(time_is_real_without_fixed_time, setup, teardown),
    cmocka_unit_test_setup_teardown(bad_fixed_time, setup, teardown),
};

PL_TEST_MAIN(tests)
