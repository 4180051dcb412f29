/* PDH with many counters over one object (issue 26 finding 7, issue 33):
 * adding the paths of an expanded wildcard collects once, not once per
 * path; a collection reads each object's instance names once for all its
 * counters and finds a named instance without walking them all, with the
 * same answer the walk gave (duplicates, case, parents, "#n" names). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pdh_canned.h"
#include "pdh_internal.h"
#include "perflib/block.h"
#include "perflib/winperf.h"
#include "pl_test.h"

static pl_pdh_counter *add(pl_pdh_query *q, const char *path)
{
    pl_pdh_counter *c = NULL;
    pl_error err = {0};
    uint32_t st = pl_pdh_add_counter(q, path, &c, &err);
    if (st) {
        print_error("add %s: 0x%08x %s\n", path, st, err.msg);
        fail();
    }
    return c;
}

static void collect(pl_pdh_query *q)
{
    pl_error err = {0};
    uint32_t st = pl_pdh_collect(q, &err);
    if (st) {
        print_error("collect: 0x%08x %s\n", st, err.msg);
        fail();
    }
}

/* The raw value of a counter without wildcards (its first value word);
 * -1 when it has none this sample. */
static long long raw(const pl_pdh_counter *c)
{
    pl_pdh_raw r;
    return pl_pdh_get_raw(c, NULL, &r) == PL_PDH_CSTATUS_VALID_DATA ? (long long)r.first : -1;
}

/* typeperf's way: expand the wildcard, add every path, then sample. */
static void adds_share_one_collection(void **state)
{
    (void)state;
    canned c;
    pl_pdh_source src;
    assert_int_equal(canned_open(&c, &src, 0), 0);
    pl_pdh_query *q;
    assert_int_equal(pl_pdh_open_query(&src, &q, NULL), 0);
    pl_error err = {0};
    char **paths;
    size_t n;
    int before = c.ncollects;
    assert_int_equal(pl_pdh_expand_path(&src, "\\Process(*)\\*", &paths, &n, &err), 0);
    assert_int_equal(n, 8); /* 4 processes x 2 counters at sample 0 */
    assert_int_equal(c.ncollects, before + 1);
    pl_pdh_counter *ctr[8];
    for (size_t i = 0; i < n; i++) ctr[i] = add(q, paths[i]);
    assert_int_equal(c.ncollects, before + 2); /* one for all eight adds (it was eight) */
    pl_free(paths);
    /* another object: its own snapshot */
    pl_pdh_counter *mem = add(q, "\\Memory\\Available Bytes");
    assert_int_equal(c.ncollects, before + 3);
    (void)add(q, "\\Process(init)\\ID Process");
    assert_int_equal(c.ncollects, before + 4); /* the cache holds the last objects asked for: Memory */
    /* the first sample is a collection of its own */
    c.cur = 0;
    collect(q);
    assert_int_equal(c.ncollects, before + 5);
    assert_int_equal(raw(ctr[0]), 1);   /* \Process(init)\ID Process: counters first, then instances */
    assert_int_equal(raw(ctr[3]), 300); /* \Process(bash)\ID Process */
    assert_int_equal(raw(mem), 2000000000LL);
    /* an add after a sample does not reuse the adds' snapshot */
    (void)add(q, "\\Process(bash)\\ID Process");
    assert_int_equal(c.ncollects, before + 6);
    /* an object the kept snapshot lacks is looked for in a fresh one */
    pl_pdh_counter *x = NULL;
    assert_int_equal(pl_pdh_add_counter(q, "\\Network Interface(eth0)\\Current Bandwidth", &x, &err),
                     PL_PDH_CSTATUS_NO_OBJECT);
    pl_pdh_close_query(q);
    canned_close(&c);
}

/* ------------------------------------------------- names, one read each */

/* A source over one fixed block, with the canned store's titles. */
typedef struct fixed {
    canned c;
    void *blk;
    size_t len;
} fixed;

static int f_collect(void *ctx, const char *query, void **block, size_t *len, pl_error *err)
{
    (void)query;
    (void)err;
    fixed *f = ctx;
    f->c.ncollects++;
    *block = malloc(f->len);
    if (!*block) return PL_E_NOMEM;
    memcpy(*block, f->blk, f->len);
    *len = f->len;
    return PL_OK;
}

static const pl_titles *f_titles(void *ctx, int english)
{
    fixed *f = ctx;
    return english ? f->c.en : f->c.def;
}

typedef struct inst {
    char name[32];
    int parent;               /* position in Process, -1: none */
    uint32_t value;
} inst;

/* A block: Process (230) with ID Process (784), Thread (232) with ID
 * Thread (804) whose instances name parents in Process. */
static void make_block(fixed *f, const inst *procs, int np, const inst *threads, int nt)
{
    pl_builder *b = pl_builder_new();
    assert_non_null(b);
    int po, to, c;
    pl_object_desc od = {.name_index = 230, .help_index = 231, .default_counter = -1, .has_instances = 1};
    assert_int_equal(pl_builder_add_object(b, &od, &po), PL_OK);
    pl_counter_desc cd = {.name_index = 784, .help_index = 785, .type = PERF_COUNTER_RAWCOUNT};
    assert_int_equal(pl_builder_add_counter(b, po, &cd, &c), PL_OK);
    for (int i = 0; i < np; i++) {
        int in;
        assert_int_equal(pl_builder_add_instance(b, po, procs[i].name, 0, 0, PERF_NO_UNIQUE_ID, &in), PL_OK);
        assert_int_equal(pl_builder_set_u32(b, po, in, c, procs[i].value), PL_OK);
    }
    od.name_index = 232;
    od.help_index = 233;
    assert_int_equal(pl_builder_add_object(b, &od, &to), PL_OK);
    cd.name_index = 804;
    cd.help_index = 805;
    assert_int_equal(pl_builder_add_counter(b, to, &cd, &c), PL_OK);
    for (int i = 0; i < nt; i++) {
        int in;
        assert_int_equal(pl_builder_add_instance(b, to, threads[i].name, threads[i].parent >= 0 ? 230 : 0,
                                                 threads[i].parent >= 0 ? (uint32_t)threads[i].parent : 0,
                                                 PERF_NO_UNIQUE_ID, &in),
                         PL_OK);
        assert_int_equal(pl_builder_set_u32(b, to, in, c, threads[i].value), PL_OK);
    }
    size_t olen = pl_builder_size(b), hlen = 0, used;
    uint32_t nobj;
    pl_block_header h;
    memset(&h, 0, sizeof h);
    h.system_time.wYear = 2024;
    h.system_time.wMonth = 1;
    h.system_time.wDay = 15;
    h.perf_time = CANNED_PERFTIME(0);
    h.perf_freq = CANNED_FREQ;
    h.perf_time_100ns = CANNED_FT(0);
    h.system_name = CANNED_SYSTEM;
    assert_int_equal(pl_block_write_header(&h, pl_builder_num_objects(b), olen, NULL, 0, &hlen), PL_E_MORE_DATA);
    free(f->blk);
    f->blk = calloc(1, hlen + olen);
    assert_non_null(f->blk);
    assert_int_equal(pl_block_write_header(&h, pl_builder_num_objects(b), olen, f->blk, hlen + olen, &used), PL_OK);
    assert_int_equal(pl_builder_emit(b, (char *)f->blk + hlen, olen, &used, &nobj), PL_OK);
    f->len = hlen + olen;
    pl_builder_free(b);
}

static void fixed_open(fixed *f, pl_pdh_source *src)
{
    memset(f, 0, sizeof *f);
    pl_pdh_source inner;
    assert_int_equal(canned_open(&f->c, &inner, 0), 0);
    src->collect = f_collect;
    src->titles = f_titles;
    src->close = NULL;
    src->ctx = f;
}

static void fixed_close(fixed *f)
{
    free(f->blk);
    canned_close(&f->c);
}

/* Every counter of one object reads the same instance names: one read per
 * object and collection, however many counters (each read them all). And
 * the instance each path names, by the rules of the walk: the first in
 * block order whose full name (parent/own) matches case-insensitively with
 * its duplicate number, or, for a path without a parent, whose own name
 * does. */
static void names_read_once_and_found_as_walked(void **state)
{
    (void)state;
    fixed f;
    pl_pdh_source src;
    fixed_open(&f, &src);
    const inst procs[] = {{"svchost", -1, 100}, {"SVCHOST", -1, 101}, {"svchost", -1, 102},
                          {"bash#1", -1, 103},  {"bash", -1, 104}};
    const inst threads[] = {{"0", 0, 200}, {"0", 2, 201}, {"0", 1, 202}, {"1", 4, 203}, {"lone", -1, 204}};
    make_block(&f, procs, 5, threads, 5);
    pl_pdh_query *q;
    assert_int_equal(pl_pdh_open_query(&src, &q, NULL), 0);
    static const struct {
        const char *path;
        long long want;
    } probes[] = {
        {"\\Process(svchost)\\ID Process", 100},
        {"\\Process(SVCHOST)\\ID Process", 100},   /* the first case-insensitive match */
        {"\\Process(SvcHost#1)\\ID Process", 102},
        {"\\Process(bash#1#0)\\ID Process", 103},
        {"\\Process(bash)\\ID Process", 104},
        {"\\Process(nobody)\\ID Process", -1},
        {"\\Thread(svchost/0)\\ID Thread", 200},
        {"\\Thread(svchost/0#1)\\ID Thread", 201},
        {"\\Thread(SVCHOST/0)\\ID Thread", 200},
        {"\\Thread(0)\\ID Thread", 200},           /* own name of an instance with a parent */
        {"\\Thread(0#2)\\ID Thread", 202},
        {"\\Thread(1)\\ID Thread", 203},
        {"\\Thread(bash/1)\\ID Thread", 203},
        {"\\Thread(lone)\\ID Thread", 204},
        {"\\Thread(svchost/1)\\ID Thread", -1},
    };
    size_t np = sizeof probes / sizeof probes[0];
    pl_pdh_counter *c[sizeof probes / sizeof probes[0]];
    for (size_t i = 0; i < np; i++) c[i] = add(q, probes[i].path);
    pl_pdh_counter *wild = add(q, "\\Thread(svchost/*)\\ID Thread");
    uint64_t loads = pl__pdh_name_loads;
    collect(q);
    assert_int_equal(pl__pdh_name_loads - loads, 2); /* Process and Thread once each (were 17) */
    for (size_t i = 0; i < np; i++) {
        if (raw(c[i]) != probes[i].want) print_error("%s: %lld, want %lld\n", probes[i].path, raw(c[i]), probes[i].want);
        assert_int_equal(raw(c[i]), probes[i].want);
    }
    pl_pdh_value_item *items;
    size_t ni;
    assert_int_equal(pl_pdh_get_formatted_array(wild, PL_PDH_FMT_LARGE, &items, &ni), 0);
    assert_int_equal(ni, 3); /* the parent's name matched case-insensitively */
    assert_string_equal(items[0].name, "svchost/0");
    assert_string_equal(items[1].name, "svchost/0#1");
    assert_string_equal(items[2].name, "SVCHOST/0");
    assert_int_equal(items[0].value.v.large_value, 200);
    assert_int_equal(items[1].value.v.large_value, 201);
    assert_int_equal(items[2].value.v.large_value, 202);
    pl_free(items);
    pl_pdh_close_query(q);
    fixed_close(&f);
}

/* 2,000 threads of 50 processes with names that repeat and differ in case:
 * every key the expansion gives, added as a path, reads the value of the
 * instance a brute-force walk (written here again) finds for it. */
static void many_instances_agree_with_the_walk(void **state)
{
    (void)state;
    enum { NP = 50, NT = 2000 };
    static inst procs[NP], threads[NT];
    static const char *pn[] = {"svc", "SVC", "Svc", "bash", "db#1", "db"};
    static const char *tn[] = {"0", "1", "x", "X"};
    unsigned r = 12345;
    for (int i = 0; i < NP; i++) {
        snprintf(procs[i].name, sizeof procs[i].name, "%s", pn[i % 6]);
        procs[i].parent = -1;
        procs[i].value = 10000u + (uint32_t)i;
    }
    for (int i = 0; i < NT; i++) {
        r = r * 1103515245u + 12345u;
        snprintf(threads[i].name, sizeof threads[i].name, "%s", tn[(r >> 8) % 4]);
        threads[i].parent = (int)((r >> 16) % NP);
        threads[i].value = 20000u + (uint32_t)i;
    }
    fixed f;
    pl_pdh_source src;
    fixed_open(&f, &src);
    make_block(&f, procs, NP, threads, NT);
    pl_pdh_query *q;
    assert_int_equal(pl_pdh_open_query(&src, &q, NULL), 0);
    pl_error err = {0};
    char **paths;
    size_t n;
    assert_int_equal(pl_pdh_expand_path(&src, "\\Thread(*)\\ID Thread", &paths, &n, &err), 0);
    assert_int_equal(n, NT);
    pl_pdh_counter **c = calloc(n, sizeof *c);
    int before = f.c.ncollects;
    for (size_t i = 0; i < n; i++) c[i] = add(q, paths[i]);
    assert_int_equal(f.c.ncollects, before + 1);
    collect(q);
    /* the walk: full names and their duplicate numbers (case-sensitive, in
     * block order), then the first case-insensitive match */
    static char full[NT][64];
    static uint32_t dup[NT];
    for (int i = 0; i < NT; i++) {
        snprintf(full[i], sizeof full[i], "%.31s/%.31s", procs[threads[i].parent].name, threads[i].name);
        dup[i] = 0;
        for (int j = 0; j < i; j++)
            if (strcmp(full[j], full[i]) == 0) dup[i]++;
    }
    for (size_t k = 0; k < n; k++) {
        /* paths[k] is \\TESTBOX\Thread(<key>)\ID Thread, key = full#dup */
        const char *open = strchr(paths[k], '(');
        const char *close = strrchr(paths[k], ')');
        char key[80];
        snprintf(key, sizeof key, "%.*s", (int)(close - open - 1), open + 1);
        char *hash = strrchr(key, '#');
        uint32_t want_dup = 0;
        if (hash && hash[1] >= '0' && hash[1] <= '9' && !strchr(hash + 1, '/')) {
            want_dup = (uint32_t)strtoul(hash + 1, NULL, 10);
            *hash = '\0';
        }
        int found = -1;
        for (int i = 0; i < NT && found < 0; i++)
            if (strcasecmp(full[i], key) == 0 && dup[i] == want_dup) found = i;
        assert_true(found >= 0);
        if (raw(c[k]) != (long long)threads[found].value) print_error("%s\n", paths[k]);
        assert_int_equal(raw(c[k]), threads[found].value);
    }
    free(c);
    pl_free(paths);
    pl_pdh_close_query(q);
    fixed_close(&f);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(adds_share_one_collection),
        cmocka_unit_test(names_read_once_and_found_as_walked),
        cmocka_unit_test(many_instances_agree_with_the_walk),
    };
    return pl_test_run(tests, argc, argv);
}
