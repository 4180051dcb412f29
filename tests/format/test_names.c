/* Instance names: own names, parent/child, "#n" duplicates, scale. */
#include <stdio.h>
#include <time.h>

#include "fmt_test.h"

typedef struct tinst {
    const char *name;
    uint32_t pidx, ppos;
} tinst;

/* Process (230) with the given names, then Thread (232) with parents. */
static uint8_t *two_objects(const char *const *procs, int np, const tinst *threads, int nt, size_t *len)
{
    pl_builder *b = pl_builder_new();
    int o, t, c, i;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 230, .has_instances = 1}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 784, .type = PERF_COUNTER_RAWCOUNT}, &c));
    for (int k = 0; k < np; k++) ASSERT_OK(pl_builder_add_instance(b, o, procs[k], 0, 0, -1, &i));
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 232, .has_instances = 1}, &t));
    ASSERT_OK(pl_builder_add_counter(b, t, &(pl_counter_desc){.name_index = 804, .type = PERF_COUNTER_RAWCOUNT}, &c));
    for (int k = 0; k < nt; k++)
        ASSERT_OK(pl_builder_add_instance(b, t, threads[k].name, threads[k].pidx, threads[k].ppos, -1, &i));
    uint32_t n;
    uint8_t *buf = emit_all(b, len, &n);
    pl_builder_free(b);
    return buf;
}

static void duplicate_names_get_hash_n(void **state)
{
    (void)state;
    static const char *const procs[] = {"a", "b", "a", "a", "b", "c", "A", "a#1"};
    size_t len;
    uint8_t *buf = two_objects(procs, 8, NULL, 0, &len);
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, buf, len, PL_BLOCK_BARE, 2, &err));
    pl_object ob;
    ASSERT_OK(pl_block_find_object(&blk, 230, &ob));
    char **names;
    ASSERT_OK(pl_object_instance_names(&ob, &names));
    static const char *want[] = {"a", "b", "a#1", "a#2", "b#1", "c", "A", "a#1"};
    for (int k = 0; k < 8; k++) assert_string_equal(names[k], want[k]);
    assert_null(names[8]);
    pl_free(names);
    free(buf);
}

static void parent_child_names(void **state)
{
    (void)state;
    static const char *const procs[] = {"svchost", "svchost", "init"};
    static const tinst threads[] = {
        {"0", 230, 0}, {"0", 230, 1}, {"0", 230, 2}, {"1", 230, 9}, {"2", 999, 0}, {"3", 0, 0}, {"0", 230, 0},
    };
    size_t len;
    uint8_t *buf = two_objects(procs, 3, threads, 7, &len);
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, buf, len, PL_BLOCK_BARE, 2, &err));
    pl_object th;
    ASSERT_OK(pl_block_find_object(&blk, 232, &th));
    char **names;
    ASSERT_OK(pl_object_instance_names(&th, &names));
    /* parent is the parent's own name (the two svchost threads share a full
     * name, so the second gets #1); unresolvable parents are left out */
    static const char *want[] = {"svchost/0", "svchost/0#1", "init/0", "1", "2", "3", "svchost/0#2"};
    for (int k = 0; k < 7; k++) assert_string_equal(names[k], want[k]);
    assert_null(names[7]);
    pl_free(names);

    pl_instance in, pin;
    pl_object pobj;
    char s[32];
    ASSERT_OK(pl_object_instance(&th, 2, &in));
    ASSERT_OK(pl_instance_parent(&in, &pobj, &pin));
    assert_int_equal(pobj.hdr.ObjectNameTitleIndex, 230);
    assert_int_equal(pin.position, 2);
    ASSERT_OK(pl_instance_name(&pin, s, sizeof s));
    assert_string_equal(s, "init");
    ASSERT_OK(pl_object_instance(&th, 3, &in));
    assert_int_equal(pl_instance_parent(&in, &pobj, &pin), PL_E_NOT_FOUND);
    ASSERT_OK(pl_object_instance(&th, 4, &in));
    assert_int_equal(pl_instance_parent(&in, &pobj, &pin), PL_E_NOT_FOUND);
    ASSERT_OK(pl_object_instance(&th, 5, &in));
    assert_int_equal(pl_instance_parent(&in, &pobj, &pin), PL_E_NOT_FOUND);
    free(buf);
}

static void name_encoding_and_truncation(void **state)
{
    (void)state;
    static const char *const procs[] = {"caf\xC3\xA9", "\xF0\x9F\x98\x80x", ""};
    size_t len;
    uint8_t *buf = two_objects(procs, 3, NULL, 0, &len);
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, buf, len, PL_BLOCK_BARE, 2, &err));
    pl_object ob;
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    pl_instance in;
    char s[16];
    ASSERT_OK(pl_object_instance(&ob, 0, &in));
    ASSERT_OK(pl_instance_name(&in, s, sizeof s));
    assert_string_equal(s, "caf\xC3\xA9");
    assert_int_equal(pl_instance_name(&in, s, 5), PL_E_MORE_DATA);
    assert_string_equal(s, "caf");
    ASSERT_OK(pl_instance_next(&in, &in));
    ASSERT_OK(pl_instance_name(&in, s, sizeof s));
    assert_string_equal(s, "\xF0\x9F\x98\x80x");
    /* a lone high surrogate becomes U+FFFD: patch the low one to 'y' */
    uint8_t *name = buf + in.off + in.def.NameOffset;
    name[2] = 'y';
    name[3] = 0;
    ASSERT_OK(pl_instance_name(&in, s, sizeof s));
    assert_string_equal(s, "\xEF\xBF\xBDyx");
    ASSERT_OK(pl_instance_next(&in, &in));
    ASSERT_OK(pl_instance_name(&in, s, sizeof s));
    assert_string_equal(s, "");
    assert_int_equal(in.def.NameLength, 2);
    /* a non-UTF-16 code page: bytes read as Latin-1, up to the NUL */
    pl_object ob2 = ob;
    ob2.hdr.CodePage = 1252;
    ASSERT_OK(pl_object_instance(&ob2, 0, &in));
    name = buf + in.off + in.def.NameOffset;
    memcpy(name, "x\xE9z\0", 4);
    ASSERT_OK(pl_instance_name(&in, s, sizeof s));
    assert_string_equal(s, "x\xC3\xA9z");
    free(buf);
}

/* 10,000 processes with 1,000 distinct names and 10,000 threads under them. */
static void ten_thousand_instances(void **state)
{
    (void)state;
    enum { N = 10000 };
    pl_builder *b = pl_builder_new();
    int o, t, c, i;
    char nm[32];
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 230, .has_instances = 1}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 784, .type = PERF_COUNTER_RAWCOUNT}, &c));
    for (int k = 0; k < N; k++) {
        snprintf(nm, sizeof nm, "worker%d", k % 1000);
        ASSERT_OK(pl_builder_add_instance(b, o, nm, 0, 0, k, &i));
    }
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 232, .has_instances = 1}, &t));
    ASSERT_OK(pl_builder_add_counter(b, t, &(pl_counter_desc){.name_index = 804, .type = PERF_COUNTER_RAWCOUNT}, &c));
    for (int k = 0; k < N; k++) {
        snprintf(nm, sizeof nm, "%d", k % 2);
        ASSERT_OK(pl_builder_add_instance(b, t, nm, 230, (uint32_t)(N - 1 - k), -1, &i));
    }
    size_t len;
    uint32_t n;
    uint8_t *buf = emit_all(b, &len, &n);
    pl_builder_free(b);
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, buf, len, PL_BLOCK_BARE, n, &err));
    pl_object ob, th;
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    ASSERT_OK(pl_block_object(&blk, 1, &th));
    char **pn, **tn;
    ASSERT_OK(pl_object_instance_names(&ob, &pn));
    ASSERT_OK(pl_object_instance_names(&th, &tn));
    char want[48];
    for (int k = 0; k < N; k++) {
        int dup = k / 1000;
        if (dup) snprintf(want, sizeof want, "worker%d#%d", k % 1000, dup);
        else snprintf(want, sizeof want, "worker%d", k % 1000);
        assert_string_equal(pn[k], want);
        /* thread k's parent is process N-1-k, named worker((N-1-k)%1000) */
        if (!(k % 97 == 0 || k > N - 5)) continue;
        int p = N - 1 - k;
        /* full name "workerX/Y" recurs once per 1000 processes sharing X, and
         * within those for each parity Y: count earlier threads with the same
         * pair: threads j<k with (N-1-j)%1000 == p%1000 and j%2 == k%2 */
        int earlier = 0;
        for (int j = k % 2; j < k; j += 2)
            if ((N - 1 - j) % 1000 == p % 1000) earlier++;
        if (earlier) snprintf(want, sizeof want, "worker%d/%d#%d", p % 1000, k % 2, earlier);
        else snprintf(want, sizeof want, "worker%d/%d", p % 1000, k % 2);
        assert_string_equal(tn[k], want);
    }
    assert_null(pn[N]);
    assert_null(tn[N]);
    pl_free(pn);
    pl_free(tn);
    free(buf);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(duplicate_names_get_hash_n),
        cmocka_unit_test(parent_child_names),
        cmocka_unit_test(name_encoding_and_truncation),
        cmocka_unit_test(ten_thousand_instances),
    };
    return pl_test_run(tests, argc, argv);
}
