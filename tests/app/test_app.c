/* Application counters (docs/app-counters.md): registration, publishing
 * and reading back through the real engine and the AppCounters provider,
 * torn-read and lost-update checks, kill -9 disappearance, a restarted
 * application, and hostile segments. Every case uses its own store and
 * announcement directory (PERFLIB_REGISTRY, PERFLIB_APP_DIR in a mkdtemp
 * directory), so cases and other tests never see each other's
 * applications. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app_internal.h"
#include "perflib/app.h"
#include "perflib/block.h"
#include "perflib/query.h"
#include "perflib/registry.h"
#include "pl_internal.h"
#include "pl_test.h"
#include "pl_test_engine.h"
#include "pq_run.h"

#ifndef PL_TORN_WRITES
#define PL_TORN_WRITES 20000000ULL
#endif

static char *dir;
static char store_path[512];
static uint32_t me_uid;

static void setup_dirs(void)
{
    dir = pq_mkdtemp();
    assert_non_null(dir);
    snprintf(store_path, sizeof store_path, "%s/store.db", dir);
    setenv("PERFLIB_REGISTRY", store_path, 1);
    setenv("PERFLIB_APP_DIR", dir, 1);
    me_uid = (uint32_t)geteuid();
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb;
    (void)flag;
    (void)f;
    return remove(p);
}

/* The directory with the users' announcement directories in it. */
static void teardown_dirs(void)
{
    nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
    free(dir);
}

/* A small application: "Herd" (instances, its own parent) and "Herd Total". */
static const pl_app_counter_decl HERD_CTRS[] = {
    {"Weight", "kg", PERF_COUNTER_LARGE_RAWCOUNT, 0, 0},
    {"Age", "days", PERF_COUNTER_RAWCOUNT, 0, 0},
};
static const pl_app_counter_decl TOTAL_CTRS[] = {{"Count", "animals", PERF_COUNTER_LARGE_RAWCOUNT, 0, 0}};
static const pl_app_object_decl HERD_OBJS[] = {
    {"Herd", "animals", 0, 0, 0, 1000, HERD_CTRS, 2},
    {"Herd Total", "all", 0, 0, PL_APP_NO_PARENT_OBJECT, 0, TOTAL_CTRS, 1},
};
static const pl_app_decl HERD = {"TestHerd", HERD_OBJS, 2, NULL, 0};

static int find_object(const pl_test_answer *a, uint32_t idx, pl_object *o)
{
    return pl_block_find_object(&a->blk, idx, o) == PL_OK;
}

/* Value of counter position c of the instance named name ("parent/name"
 * when full). Fails the test when absent. */
static uint64_t value_of(const pl_object *o, const char *full, uint32_t c)
{
    char **names;
    assert_int_equal(pl_object_instance_names(o, &names), PL_OK);
    pl_instance in;
    int found = 0;
    int rc = pl_object_instance(o, 0, &in);
    for (uint32_t i = 0; names[i] && rc == PL_OK; i++, rc = pl_instance_next(&in, &in))
        if (strcmp(names[i], full) == 0) {
            found = 1;
            break;
        }
    pl_free(names);
    if (!found) fail_msg("instance %s not found", full);
    pl_counter k;
    assert_int_equal(pl_object_counter(o, c, &k), PL_OK);
    uint64_t v;
    assert_int_equal(pl_counter_value(&k, &in, &v), PL_OK);
    return v;
}

static void test_register_keeps_indices(void **state)
{
    (void)state;
    setup_dirs();
    pl_app_indices a, b, c;
    pl_error err;
    assert_int_equal(pl_app_register(&HERD, store_path, &a, &err), PL_OK);
    assert_int_equal(a.reused, 0);
    assert_true(a.first_counter > 2998);
    assert_int_equal(a.last_counter, a.first_counter + 2 * 4); /* 2 objects + 3 counters = 5 names */
    assert_int_equal(pl_app_register(&HERD, store_path, &b, &err), PL_OK);
    assert_int_equal(b.reused, 1);
    assert_int_equal(b.first_counter, a.first_counter);
    assert_int_equal(b.first_help, a.first_help);
    /* The names are in the title database. */
    pl_store *st;
    pl_titles *t;
    assert_int_equal(pl_store_open(store_path, 0, &st, &err), PL_OK);
    assert_int_equal(pl_titles_load(st, "009", &t, &err), PL_OK);
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, a.first_counter), "Herd");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, a.first_counter + 4), "Age");
    assert_string_equal(pl_titles_get(t, PL_TITLE_HELP, a.first_help + 6), "all");
    pl_titles_free(t);
    /* A changed declaration gets new indices; the old names are gone. */
    pl_app_counter_decl ctrs2[] = {{"Weight", "kg", PERF_COUNTER_LARGE_RAWCOUNT, 0, 0},
                                   {"Height", "cm", PERF_COUNTER_RAWCOUNT, 0, 0}};
    pl_app_object_decl objs2[] = {HERD_OBJS[0], HERD_OBJS[1]};
    objs2[0].counters = ctrs2;
    pl_app_decl d2 = HERD;
    d2.objects = objs2;
    assert_int_equal(pl_app_register(&d2, store_path, &c, &err), PL_OK);
    assert_int_equal(c.reused, 0);
    assert_int_equal(pl_titles_load(st, "009", &t, &err), PL_OK);
    assert_string_not_equal(pl_titles_get(t, PL_TITLE_NAME, a.first_counter + 4), "Age");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, c.first_counter + 4), "Height");
    pl_titles_free(t);
    /* A provider's name cannot be taken by an application. */
    pl_app_decl d3 = HERD;
    d3.app = "PerfOS";
    assert_int_equal(pl_app_register(&d3, store_path, NULL, &err), PL_E_EXISTS);
    /* Bad declarations are refused, naming the field. */
    pl_app_counter_decl bad[] = {{"Frac", NULL, PERF_RAW_FRACTION, 0, 0}};
    pl_app_object_decl objs3[] = {{"X", NULL, 0, 0, PL_APP_NO_PARENT_OBJECT, 0, bad, 1}};
    pl_app_decl d4 = {"Bad", objs3, 1, NULL, 0};
    assert_int_equal(pl_app_register(&d4, store_path, NULL, &err), PL_E_INVAL);
    assert_non_null(strstr(err.msg, "Frac"));
    pl_app_object_decl cyc[] = {{"A", NULL, 0, 0, 1, 5, HERD_CTRS, 1}, {"B", NULL, 0, 0, 0, 5, HERD_CTRS, 1}};
    pl_app_decl d5 = {"Cycle", cyc, 2, NULL, 0};
    assert_int_equal(pl_app_register(&d5, store_path, NULL, &err), PL_E_INVAL);
    /* Unregister removes names and record. */
    assert_int_equal(pl_app_unregister("TestHerd", store_path, &err), PL_OK);
    pl_provider_info p;
    assert_int_equal(pl_store_provider(st, "TestHerd", &p, &err), PL_E_NOT_FOUND);
    assert_int_equal(pl_app_unregister("PerfOS", store_path, &err), PL_E_EXISTS);
    pl_store_close(st);
    teardown_dirs();
}

static void test_publish_and_read(void **state)
{
    (void)state;
    setup_dirs();
    pl_app *app;
    pl_error err;
    assert_int_equal(pl_app_start(&HERD, NULL, &app, &err), PL_OK);
    pl_app_indices ind = pl_app_get_indices(app);
    pl_app_instance mom, kid, other;
    assert_int_equal(pl_app_instance_create(app, 0, "Mom", PL_APP_NONE, &mom, &err), PL_OK);
    assert_int_equal(pl_app_instance_create(app, 0, "Kid", mom, &kid, &err), PL_OK);
    assert_int_equal(pl_app_instance_create(app, 0, "Другой", PL_APP_NONE, &other, &err), PL_OK);
    assert_true(mom.id != kid.id && kid.id != other.id);
    /* Bad arguments. */
    pl_app_instance x;
    assert_int_equal(pl_app_instance_create(app, 1, "no", PL_APP_NONE, &x, &err), PL_E_INVAL);
    assert_int_equal(pl_app_instance_create(app, 0, "bad\nname", PL_APP_NONE, &x, &err), PL_E_INVAL);
    assert_int_equal(pl_app_instance_create(app, 0, "\xff", PL_APP_NONE, &x, &err), PL_E_ENCODING);
    pl_app_value w, age, cnt, bad;
    assert_int_equal(pl_app_counter(app, kid, 0, &w, &err), PL_OK);
    assert_int_equal(pl_app_counter(app, kid, 1, &age, &err), PL_OK);
    assert_int_equal(pl_app_counter(app, PL_APP_SINGLE(1), 0, &cnt, &err), PL_OK);
    assert_int_equal(pl_app_counter(app, kid, 7, &bad, &err), PL_E_INVAL);
    pl_app_set(bad, 5); /* harmless */
    pl_app_set(w, 250);
    pl_app_add(w, 5);
    pl_app_inc(w);
    pl_app_add_single(w, 4);
    pl_app_set(age, 12);
    pl_app_set(cnt, 3);
    pl_app_value ow;
    assert_int_equal(pl_app_counter(app, other, 1, &ow, &err), PL_OK);
    pl_app_set(ow, (uint64_t)1 << 40); /* a 32-bit counter that does not fit: unavailable */

    pl_engine *e = pl_test_engine_open(store_path);
    pl_test_answer a;
    char q[32];
    snprintf(q, sizeof q, "%u", ind.first_counter); /* Herd by index */
    pl_test_query(e, q, &a);
    pl_object o;
    assert_true(find_object(&a, ind.first_counter, &o));
    assert_int_equal(pl_object_num_instances(&o), 3);
    assert_int_equal(value_of(&o, "Mom/Kid", 0), 260);
    assert_int_equal(value_of(&o, "Mom/Kid", 1), 12);
    assert_int_equal(value_of(&o, "Mom", 0), 0);
    /* "Другой": Age is unavailable, never a wrapped number. */
    pl_counter k;
    assert_int_equal(pl_object_counter(&o, 1, &k), PL_OK);
    pl_instance in;
    int32_t pos = -1;
    assert_int_equal(pl_object_instance(&o, 0, &in), PL_OK);
    for (int32_t i = 0; i < 3; i++, pl_instance_next(&in, &in)) {
        char nm[64];
        pl_instance_name(&in, nm, sizeof nm);
        if (strcmp(nm, "Другой") == 0) {
            pos = i;
            break;
        }
    }
    assert_int_equal(pos, 2);
    assert_int_equal(pl_counter_available(&k, &in), 0);
    pl_free(a.buf);
    /* Global has both objects; the single block carries Count. */
    pl_test_query(e, "Global", &a);
    assert_true(find_object(&a, ind.first_counter + 6, &o));
    pl_instance single;
    assert_int_equal(pl_object_instance(&o, -1, &single), PL_OK);
    assert_int_equal(pl_object_counter(&o, 0, &k), PL_OK);
    uint64_t v;
    assert_int_equal(pl_counter_value(&k, &single, &v), PL_OK);
    assert_int_equal(v, 3);
    pl_free(a.buf);
    /* Delete the mother: the kid stays, without a parent. */
    assert_int_equal(pl_app_instance_delete(app, mom, &err), PL_OK);
    assert_int_equal(pl_app_instance_delete(app, mom, &err), PL_E_NOT_FOUND);
    assert_int_equal(pl_app_counter(app, mom, 0, &bad, &err), PL_E_NOT_FOUND);
    pl_test_query(e, q, &a);
    assert_true(find_object(&a, ind.first_counter, &o));
    assert_int_equal(pl_object_num_instances(&o), 2);
    assert_int_equal(value_of(&o, "Kid", 0), 260);
    pl_free(a.buf);
    /* Stopped: gone from the next collection. */
    pl_app_stop(app);
    pl_test_query(e, "Global", &a);
    assert_false(find_object(&a, ind.first_counter, &o));
    assert_false(find_object(&a, ind.first_counter + 6, &o));
    pl_free(a.buf);
    /* The provider was never disabled. */
    pl_provider_status *ps;
    size_t n;
    assert_int_equal(pl_engine_provider_status(e, &ps, &n), PL_OK);
    for (size_t i = 0; i < n; i++)
        if (strcmp(ps[i].name, PL_APP_PROVIDER) == 0) {
            assert_int_equal(ps[i].disabled, 0);
            assert_true(ps[i].collects >= 4);
        } else if (strcmp(ps[i].name, "TestHerd") == 0) { /* the record itself is never loaded */
            assert_int_equal(ps[i].loaded, 0);
            assert_int_equal(ps[i].errors, 0);
            assert_non_null(strstr(ps[i].last_error, "come through AppCounters"));
        }
    pl_free(ps);
    pl_engine_close(e);
    teardown_dirs();
}

/* The engine's store is not the default one: AppCounters reads the
 * applications' records in the engine's store (the host gives it the path). */
static void test_engine_store_not_default(void **state)
{
    (void)state;
    setup_dirs();
    char other[600];
    snprintf(other, sizeof other, "%s/other.db", dir);
    setenv("PERFLIB_REGISTRY", other, 1); /* the default store: another one */
    pl_app *app;
    pl_error err;
    pl_app_options opt = {.store_path = store_path};
    assert_int_equal(pl_app_start(&HERD, &opt, &app, &err), PL_OK);
    pl_app_instance in;
    assert_int_equal(pl_app_instance_create(app, 0, "Only", PL_APP_NONE, &in, &err), PL_OK);
    pl_engine *e = pl_test_engine_open(store_path); /* store_path */
    pl_test_answer a;
    pl_test_query(e, "Global", &a);
    pl_object o;
    assert_true(find_object(&a, pl_app_get_indices(app).first_counter, &o));
    assert_int_equal(value_of(&o, "Only", 0), 0);
    pl_free(a.buf);
    pl_engine_close(e);
    /* An engine on the other store does not see it (not registered there). */
    pl_engine_config cfg = {.store_path = other};
    assert_int_equal(pl_engine_open(&cfg, &e, &err), PL_OK);
    pl_test_query(e, "Global", &a);
    assert_false(find_object(&a, pl_app_get_indices(app).first_counter, &o));
    pl_free(a.buf);
    pl_engine_close(e);
    pl_app_stop(app);
    unlink(other);
    teardown_dirs();
}

/* An index query for a child object brings its parent object along, and
 * PDH-style full names use the parent instance ("Pool A/w1"). */
/* An engine opened before an application registered names it once the
 * store changed (a long-running consumer such as perfd: issue 26 finding
 * 3); the table handed out before stays valid. */
static void test_engine_titles_follow_the_store(void **state)
{
    (void)state;
    setup_dirs();
    pl_engine *e = pl_test_engine_open(store_path);
    pl_error err;
    const pl_titles *t1 = pl_engine_titles(e, &err);
    assert_non_null(t1);
    assert_int_equal(pl_titles_find(t1, PL_TITLE_NAME, "Herd Total"), 0);
    pl_app_indices ind;
    assert_int_equal(pl_app_register(&HERD, store_path, &ind, &err), PL_OK);
    usleep(250 * 1000); /* the engine looks at the store at most every 200 ms */
    const pl_titles *t2 = pl_engine_titles(e, &err);
    assert_ptr_not_equal(t1, t2);
    assert_int_equal(pl_titles_find(t2, PL_TITLE_NAME, "Herd Total"), ind.first_counter + 6);
    assert_int_equal(pl_titles_find(t1, PL_TITLE_NAME, "Herd Total"), 0); /* still readable */
    /* nothing changed since: the same table */
    assert_ptr_equal(pl_engine_titles(e, &err), t2);
    /* a change that is not a name (a provider disabled): the same table */
    pl_store *st;
    assert_int_equal(pl_store_open(store_path, 0, &st, &err), PL_OK);
    assert_int_equal(pl_store_disable_provider(st, "PerfNet", "by hand", &err), PL_OK);
    pl_store_close(st);
    usleep(250 * 1000);
    assert_ptr_equal(pl_engine_titles(e, &err), t2);
    pl_engine_close(e);
    teardown_dirs();
}

static void test_index_query_brings_parent(void **state)
{
    (void)state;
    setup_dirs();
    static const pl_app_counter_decl c[] = {{"Jobs", NULL, PERF_COUNTER_LARGE_RAWCOUNT, 0, 0}};
    static const pl_app_object_decl o[] = {
        {"Pool", NULL, 0, 0, PL_APP_NO_PARENT_OBJECT, 8, c, 1},
        {"Worker", NULL, 0, 0, 0, 64, c, 1},
        {"Unrelated", NULL, 0, 0, PL_APP_NO_PARENT_OBJECT, 0, c, 1},
    };
    pl_app_decl d = {"PoolApp", o, 3, NULL, 0};
    pl_app *app;
    pl_error err;
    assert_int_equal(pl_app_start(&d, NULL, &app, &err), PL_OK);
    pl_app_instance pa, pb, w1, w2;
    assert_int_equal(pl_app_instance_create(app, 0, "Pool A", PL_APP_NONE, &pa, &err), PL_OK);
    assert_int_equal(pl_app_instance_create(app, 0, "Pool B", PL_APP_NONE, &pb, &err), PL_OK);
    assert_int_equal(pl_app_instance_create(app, 1, "w1", pa, &w1, &err), PL_OK);
    assert_int_equal(pl_app_instance_create(app, 1, "w2", pb, &w2, &err), PL_OK);
    assert_int_equal(pl_app_instance_create(app, 1, "w3", pa, &w2, &err), PL_OK);
    pl_app_instance bad;
    assert_int_equal(pl_app_instance_create(app, 1, "wx", w1, &bad, &err), PL_E_INVAL); /* parent of the wrong object */
    pl_app_value v;
    assert_int_equal(pl_app_counter(app, w1, 0, &v, &err), PL_OK);
    pl_app_set(v, 9);
    uint32_t fc = pl_app_get_indices(app).first_counter;
    uint32_t pool = fc, worker = fc + 4, unrelated = fc + 8;
    pl_engine *e = pl_test_engine_open(store_path);
    pl_test_answer a;
    char q[32];
    snprintf(q, sizeof q, "%u", worker);
    pl_test_query(e, q, &a);
    pl_object ob;
    assert_true(find_object(&a, worker, &ob));
    assert_int_equal(value_of(&ob, "Pool A/w1", 0), 9);
    assert_int_equal(value_of(&ob, "Pool B/w2", 0), 0);
    assert_int_equal(value_of(&ob, "Pool A/w3", 0), 0);
    assert_true(find_object(&a, pool, &ob)); /* the parent object came along */
    assert_false(find_object(&a, unrelated, &ob));
    pl_free(a.buf);
    pl_engine_close(e);
    pl_app_stop(app);
    teardown_dirs();
}

static void test_instance_limit(void **state)
{
    (void)state;
    setup_dirs();
    pl_app_object_decl objs[] = {{"Big", NULL, 0, 0, PL_APP_NO_PARENT_OBJECT, PL_APP_MAX_INSTANCES, HERD_CTRS, 1}};
    pl_app_decl d = {"BigApp", objs, 1, NULL, 0};
    pl_app *app;
    pl_error err;
    assert_int_equal(pl_app_start(&d, NULL, &app, &err), PL_OK);
    pl_app_instance in, first = PL_APP_NONE;
    char name[32];
    for (uint32_t i = 0; i < PL_APP_MAX_INSTANCES; i++) {
        snprintf(name, sizeof name, "i%u", i);
        assert_int_equal(pl_app_instance_create(app, 0, name, PL_APP_NONE, &in, &err), PL_OK);
        if (i == 0) first = in;
    }
    assert_int_equal(pl_app_instance_create(app, 0, "one more", PL_APP_NONE, &in, &err), PL_E_RANGE);
    assert_int_equal(pl_app_instance_delete(app, first, &err), PL_OK);
    assert_int_equal(pl_app_instance_create(app, 0, "one more", PL_APP_NONE, &in, &err), PL_OK);
    assert_true(in.id > first.id);
    pl_engine *e = pl_test_engine_open(store_path);
    pl_test_answer a;
    pl_test_query(e, "Global", &a);
    pl_object o;
    assert_true(find_object(&a, pl_app_get_indices(app).first_counter, &o));
    assert_int_equal(pl_object_num_instances(&o), PL_APP_MAX_INSTANCES);
    pl_free(a.buf);
    pl_engine_close(e);
    pl_app_stop(app);
    teardown_dirs();
}

/* ------------------------------------------------ torn values, lost updates */

/* An application of one object with up to `max` instances (one counter),
 * started in fresh directories, and the view of its segment. */
static pl_app *one_object_app(const char *app, const char *object, uint32_t max, pl__seg_view **v, size_t *n)
{
    setup_dirs();
    pl_app_object_decl objs[] = {{object, NULL, 0, 0, PL_APP_NO_PARENT_OBJECT, max, HERD_CTRS, 1}};
    pl_app_decl d = {app, objs, 1, NULL, 0};
    pl_app *a = NULL;
    pl_error err;
    assert_int_equal(pl_app_start(&d, NULL, &a, &err), PL_OK);
    assert_int_equal(pl__seg_find(dir, &me_uid, 1, v, n, NULL), PL_OK);
    assert_int_equal(*n, 1);
    return a;
}

typedef struct torn_ctx {
    pl_app *app;
    _Atomic int done;
    uint64_t writes;
} torn_ctx;

static void *torn_writer(void *arg)
{
    torn_ctx *c = arg;
    pl_error err;
    pl_app_instance in[4];
    pl_app_value v[4];
    char name[64];
    uint64_t gen = 0;
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "n%llu-%llu", (unsigned long long)gen, (unsigned long long)gen);
        pl_app_instance_create(c->app, 0, name, PL_APP_NONE, &in[i], &err);
        pl_app_counter(c->app, in[i], 0, &v[i], &err);
        gen++;
    }
    for (uint64_t w = 1; w <= c->writes; w++) {
        int i = (int)(w & 3);
        /* high and low halves always equal: a torn read shows them differ */
        pl_app_set(v[i], (w & 0xFFFFFFFFu) * 0x100000001ULL);
        if ((w & 0x3FFF) == 0) { /* births and deaths under the reader's eyes */
            pl_app_instance_delete(c->app, in[i], &err);
            snprintf(name, sizeof name, "n%llu-%llu", (unsigned long long)gen, (unsigned long long)gen);
            gen++;
            pl_app_instance_create(c->app, 0, name, PL_APP_NONE, &in[i], &err);
            pl_app_counter(c->app, in[i], 0, &v[i], &err);
        }
    }
    atomic_store(&c->done, 1);
    return NULL;
}

static void test_no_torn_values(void **state)
{
    (void)state;
    torn_ctx c = {.writes = PL_TORN_WRITES};
    pl__seg_view *v;
    size_t n;
    c.app = one_object_app("TornApp", "Torn", 64, &v, &n);
    pthread_t t;
    pthread_create(&t, NULL, torn_writer, &c);
    uint64_t reads = 0, torn = 0, names_bad = 0, seen = 0;
    pl__seg_inst in;
    while (!atomic_load(&c.done)) {
        uint32_t high = pl__seg_high(v[0].map, &v[0].lay, 0);
        for (uint32_t s = 0; s < high; s++) {
            if (!pl__seg_read_slot(v[0].map, &v[0].lay, 0, s, &in)) continue;
            seen++;
            unsigned long long a, b;
            if (sscanf(in.name, "n%llu-%llu", &a, &b) != 2 || a != b) names_bad++;
            uint64_t x = in.values[0];
            if ((x >> 32) != (x & 0xFFFFFFFFu)) torn++;
            reads++;
        }
    }
    pthread_join(t, NULL);
    print_message("torn check: %llu writes, %llu reads of live instances, %llu torn values, %llu torn names\n",
                  (unsigned long long)c.writes, (unsigned long long)reads, (unsigned long long)torn,
                  (unsigned long long)names_bad);
    assert_true(seen > 0);
    assert_int_equal(torn, 0);
    assert_int_equal(names_bad, 0);
    pl__seg_views_free(v, n);
    pl_app_stop(c.app);
    teardown_dirs();
}

/* The slot seqlock against a writer that never stops: one thread deletes
 * and creates an instance in the same slots as fast as it can (every
 * create rewrites id, parent and a 100-byte name under the slot's
 * generation), while this thread reads the slots. Each name spells its
 * instance's id and fills the rest from it, so a read that mixes two
 * versions of a slot (words of the old name with the new id, or of two
 * names) shows. A reader that trusted its first even generation without
 * checking it again after the copy would return such mixes. */
typedef struct churn_ctx {
    pl_app *app;
    pl_app_instance in[2];
    uint64_t next; /* the id the next create gets: the library counts them up by one */
    _Atomic int stop, bad;
    _Atomic uint64_t rewrites;
} churn_ctx;

static void churn_name(uint64_t id, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%llu:", (unsigned long long)id);
    for (size_t k = (size_t)n; k < 100 && k + 1 < cap; k++) out[k] = (char)('a' + (id * 7 + k) % 26);
    out[cap > 100 ? 100 : cap - 1] = '\0';
}

/* Create instance i of the churn with the name of the id it will get. */
static int churn_create(churn_ctx *c, int i)
{
    char name[128];
    pl_error err;
    churn_name(c->next, name, sizeof name);
    if (pl_app_instance_create(c->app, 0, name, PL_APP_NONE, &c->in[i], &err) != PL_OK || c->in[i].id != c->next)
        return -1;
    c->next++;
    return 0;
}

static void *churn_writer(void *arg)
{
    churn_ctx *c = arg;
    pl_error err;
    for (uint64_t w = 0; !atomic_load_explicit(&c->stop, memory_order_relaxed); w++) {
        int i = (int)(w & 1);
        if (pl_app_instance_delete(c->app, c->in[i], &err) != PL_OK || churn_create(c, i) != 0) {
            atomic_store(&c->bad, 1);
            return NULL;
        }
        atomic_fetch_add_explicit(&c->rewrites, 2, memory_order_relaxed);
    }
    return NULL;
}

/* The reader's test hook (pl__seg_read_hook, PL_TEST_HOOKS): once armed,
 * it rewrites slot 0 (delete, create) in the middle of the reader's copy of
 * it, after the id and before the name, the window a free-running writer
 * only hits now and then. */
static churn_ctx *hook_churn;
static int hook_armed, hook_calls, hook_bad;

static void rewrite_in_the_copy(uint32_t o, uint32_t slot)
{
    hook_calls++;
    if (!hook_armed || o != 0 || slot != 0) return;
    hook_armed = 0;
    pl_error err;
    if (pl_app_instance_delete(hook_churn->app, hook_churn->in[0], &err) != PL_OK || churn_create(hook_churn, 0) != 0)
        hook_bad = 1;
}

static void seqlock_reader_never_mixes_two_writes(void **state)
{
    (void)state;
    churn_ctx c = {0};
    pl__seg_view *v;
    size_t n;
    c.app = one_object_app("ChurnApp", "Churn", 2, &v, &n);
    pl_error err;
    /* learn the next id from a first instance, then name each by its id */
    pl_app_instance first;
    assert_int_equal(pl_app_instance_create(c.app, 0, "first", PL_APP_NONE, &first, &err), PL_OK);
    assert_int_equal(pl_app_instance_delete(c.app, first, &err), PL_OK);
    c.next = first.id + 1;
    assert_int_equal(churn_create(&c, 0), 0);
    assert_int_equal(churn_create(&c, 1), 0);
    /* Deterministic: slot 0 rewritten between the reader's reads of its id
     * and of its name. The copy mixes the old id with the new name; the
     * reader must see the generation moved, throw the copy away and read
     * again (a second pass through the hook), returning the new instance
     * whole. A reader without the re-check returns the mix. */
    for (int round = 0; round < 3; round++) {
        uint64_t old_id = c.in[0].id;
        hook_churn = &c;
        hook_armed = 1;
        hook_calls = hook_bad = 0;
        pl__seg_read_hook = rewrite_in_the_copy;
        pl__seg_inst in;
        int got = pl__seg_read_slot(v[0].map, &v[0].lay, 0, 0, &in);
        pl__seg_read_hook = NULL;
        assert_int_equal(hook_bad, 0);
        assert_int_equal(hook_armed, 0);
        assert_true(c.in[0].id > old_id); /* the rewrite made a new instance */
        char want[128];
        churn_name(in.id, want, sizeof want);
        if (got && strcmp(in.name, want) != 0)
            fail_msg("slot 0 read as id %llu with the name \"%s\": two writes mixed", (unsigned long long)in.id,
                     in.name);
        assert_int_equal(got, 1);
        assert_int_equal(in.id, c.in[0].id);
        assert_int_equal(hook_calls, 2); /* the mixed copy thrown away, read once more */
    }
    /* Free-running: a writer rewriting both slots as fast as it can. */
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, churn_writer, &c), 0);
    uint64_t whole = 0, mixed = 0, attempts = 0;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double elapsed = 0;
    /* 1 s of reading, at least 100,000 whole reads (a loaded machine
     * may starve one of the two threads for a while: up to 20 s) */
    while (elapsed < 20 && (elapsed < 1 || whole < 100000)) {
        for (uint32_t s = 0; s < 2; s++) {
            pl__seg_inst in;
            attempts++;
            if (!pl__seg_read_slot(v[0].map, &v[0].lay, 0, s, &in)) continue;
            char want[128];
            churn_name(in.id, want, sizeof want);
            if (strcmp(in.name, want) != 0) {
                if (mixed++ < 5) print_message("slot %u: id %llu with the name \"%s\"\n", s, (unsigned long long)in.id, in.name);
            } else {
                whole++;
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        elapsed = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
    }
    atomic_store(&c.stop, 1);
    pthread_join(t, NULL);
    print_message("seqlock: %llu slot rewrites, %llu reads tried, %llu whole, %llu mixed, in %.1f s\n",
                  (unsigned long long)atomic_load(&c.rewrites), (unsigned long long)attempts,
                  (unsigned long long)whole, (unsigned long long)mixed, elapsed);
    assert_int_equal(atomic_load(&c.bad), 0);
    assert_true(atomic_load(&c.rewrites) >= 10000); /* the writer ran alongside */
    assert_true(whole >= 100000);
    assert_int_equal(mixed, 0);
    pl__seg_views_free(v, n);
    pl_app_stop(c.app);
    teardown_dirs();
}

typedef struct inc_ctx {
    pl_app_value v;
    uint64_t n;
} inc_ctx;

static void *incr(void *arg)
{
    inc_ctx *c = arg;
    for (uint64_t i = 0; i < c->n; i++) pl_app_inc(c->v);
    return NULL;
}

static void test_no_lost_updates(void **state)
{
    (void)state;
    setup_dirs();
    pl_app *app;
    pl_error err;
    assert_int_equal(pl_app_start(&HERD, NULL, &app, &err), PL_OK);
    pl_app_value cnt;
    assert_int_equal(pl_app_counter(app, PL_APP_SINGLE(1), 0, &cnt, &err), PL_OK);
    for (int threads = 2; threads <= 16; threads *= 2) {
        pl_app_set(cnt, 0);
        pthread_t t[16];
        inc_ctx c = {cnt, 200000};
        for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, incr, &c);
        for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
        assert_int_equal(pl_app_get(cnt), (uint64_t)threads * c.n);
    }
    pl_app_stop(app);
    teardown_dirs();
}

/* --------------------------------------------- another process, kill -9 */

static pid_t child_app(int hold_fd, uint64_t weight)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        pl_app *app;
        pl_error err;
        if (pl_app_start(&HERD, NULL, &app, &err) != PL_OK) _exit(3);
        pl_app_instance in;
        pl_app_value w;
        pl_app_instance_create(app, 0, "Solo", PL_APP_NONE, &in, &err);
        pl_app_counter(app, in, 0, &w, &err);
        pl_app_set(w, weight);
        char c = 'r';
        if (write(hold_fd, &c, 1) != 1) _exit(4);
        for (;;) pause();
    }
    return pid;
}

static void wait_ready(int fd)
{
    char c;
    assert_int_equal(read(fd, &c, 1), 1);
}

/* The ID Process counter of the object's first instance. */
static long id_process_of(const pl_object *o)
{
    pl_counter c;
    pl_instance in;
    uint64_t v = 0;
    if (pl_object_find_counter(o, 784, &c) != PL_OK || pl_object_instance(o, 0, &in) != PL_OK ||
        pl_counter_value(&c, &in, &v) != PL_OK)
        return -1;
    return (long)v;
}

static void test_kill9_disappears_restart_is_new(void **state)
{
    (void)state;
    setup_dirs();
    pl_app_indices ind;
    pl_error err;
    assert_int_equal(pl_app_register(&HERD, store_path, &ind, &err), PL_OK);
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = child_app(p[1], 111);
    wait_ready(p[0]);
    pl_engine *e = pl_test_engine_open(store_path);
    pl_test_answer a;
    pl_object o;
    pl_test_query(e, "Global", &a);
    assert_true(find_object(&a, ind.first_counter, &o));
    assert_int_equal(value_of(&o, "Solo", 0), 111);
    assert_int_equal(id_process_of(&o), pid);
    pl_free(a.buf);
    kill(pid, SIGKILL);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    /* The next collection: gone (its announcement is still there). */
    pl_test_query(e, "Global", &a);
    assert_false(find_object(&a, ind.first_counter, &o));
    pl_free(a.buf);
    /* Restarted: the same indices, a new series starting from its own values. */
    pid = child_app(p[1], 222);
    wait_ready(p[0]);
    pl_test_query(e, "Global", &a);
    assert_true(find_object(&a, ind.first_counter, &o));
    assert_int_equal(pl_object_num_instances(&o), 1);
    assert_int_equal(value_of(&o, "Solo", 0), 222);
    /* ID Process names the new process: PDH sees another instance and
     * gives no rate across the restart (docs/app-counters.md). */
    assert_int_equal(id_process_of(&o), pid);
    pl_free(a.buf);
    /* Two processes of one application: both herds listed. */
    pid_t pid2 = child_app(p[1], 333);
    wait_ready(p[0]);
    pl_test_query(e, "Global", &a);
    assert_true(find_object(&a, ind.first_counter, &o));
    assert_int_equal(pl_object_num_instances(&o), 2);
    pl_free(a.buf);
    kill(pid, SIGKILL);
    kill(pid2, SIGKILL);
    waitpid(pid, &st, 0);
    waitpid(pid2, &st, 0);
    pl_test_query(e, "Global", &a);
    assert_false(find_object(&a, ind.first_counter, &o));
    pl_free(a.buf);
    pl_engine_close(e);
    close(p[0]);
    close(p[1]);
    teardown_dirs();
}

/* ------------------------------------------------------ hostile segments */

/* A segment made by hand in a memfd of this process, announced in dir. */
static int hostile_fd(const uint8_t *img, size_t len, int seal)
{
    int fd = memfd_create("hostile", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)len), 0);
    assert_int_equal(pwrite(fd, img, len, 0), (ssize_t)len);
    if (seal) assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
    return fd;
}

static void announce(pid_t pid, uint64_t start, int fd)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s%u/%s%d.%llu.%d", dir, PL__SEG_USER_DIR, me_uid, PL__SEG_PREFIX, (int)pid,
             (unsigned long long)start, fd);
    int f = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0444);
    assert_true(f >= 0);
    close(f);
}

static void test_hostile_segments(void **state)
{
    (void)state;
    setup_dirs();
    /* A real application, whose objects must come through untouched. */
    pl_app *app;
    pl_error err;
    assert_int_equal(pl_app_start(&HERD, NULL, &app, &err), PL_OK);
    pl_app_indices ind = pl_app_get_indices(app);
    pl_app_instance in;
    pl_app_value w;
    assert_int_equal(pl_app_instance_create(app, 0, "Real", PL_APP_NONE, &in, &err), PL_OK);
    assert_int_equal(pl_app_counter(app, in, 0, &w, &err), PL_OK);
    pl_app_set(w, 77);
    /* Its own segment as a template for the hostile ones. */
    pl__seg_view *v;
    size_t n;
    assert_int_equal(pl__seg_find(dir, &me_uid, 1, &v, &n, NULL), PL_OK);
    assert_int_equal(n, 1);
    size_t len = v[0].len;
    uint8_t *good = malloc(len);
    memcpy(good, v[0].map, len);
    pl__seg_views_free(v, n);
    uint64_t start = pl__proc_start_time("/proc", (uint32_t)getpid());
    uint64_t obj0 = pl__rd64(good + SEG_OBJ_OFF);
    uint64_t slots = pl__rd64(good + obj0 + SO_SLOTS);
    struct {
        const char *what;
        uint64_t off;
        uint64_t val;
        int width;
    } cases[] = {
        {"bad magic", 0, 0x4141414141414141ULL, 8},
        {"size past the file", SEG_SIZE, (uint64_t)1 << 40, 8},
        {"object count huge", SEG_NOBJECTS, 0xFFFFFFFFu, 4},
        {"object table past the end", SEG_OBJ_OFF, (uint64_t)1 << 62, 8},
        {"counter table misaligned", SEG_CTR_OFF, 257, 8},
        {"slots past the end", obj0 + SO_SLOTS, (uint64_t)-64, 8},
        {"slot size tiny", obj0 + SO_SLOT_SIZE, 8, 8},
        {"instances above the limit", obj0 + SO_MAX, 0x7FFFFFFF, 4},
        {"parent out of range", obj0 + SO_PARENT, 77, 4},
        {"counter type with a base", pl__rd64(good + SEG_CTR_OFF) + SC_TYPE, PERF_RAW_FRACTION, 4},
        {"name offset out of range", obj0 + SO_NAME, 4000, 4},
        {"app name unterminated", SEG_APP, 0x4242424242424242ULL, 8},
        {"ranges of another registration", SEG_FIRST_COUNTER, 5000, 4},
    };
    int fds[64], nfd = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *img = malloc(len);
        memcpy(img, good, len);
        if (cases[i].width == 8) pl__wr64(img + cases[i].off, cases[i].val);
        else pl__wr32(img + cases[i].off, (uint32_t)cases[i].val);
        if (cases[i].off == SEG_APP) {
            memset(img + SEG_APP, 'B', PL__SEG_NAME_BYTES);
        }
        int fd = hostile_fd(img, len, 1);
        fds[nfd++] = fd;
        announce(getpid(), start, fd);
        free(img);
    }
    /* A live-instance slot with garbage: name unterminated, a parent slot
     * far away, the seqlock odd for ever. */
    {
        uint8_t *img = malloc(len);
        memcpy(img, good, len);
        uint64_t sz = pl__rd64(img + obj0 + SO_SLOT_SIZE);
        pl__wr64(img + obj0 + SO_HIGH, UINT64_MAX); /* clamped to the object's room */
        pl__wr64(img + slots + 0 * sz + SL_GEN, 3); /* busy for ever */
        pl__wr64(img + slots + 0 * sz + SL_ID, 9);
        pl__wr64(img + slots + 1 * sz + SL_ID, 10);
        memset(img + slots + 1 * sz + SL_NAME, 'x', PL__SEG_NAME_BYTES); /* unterminated */
        pl__wr64(img + slots + 2 * sz + SL_ID, 11);
        memcpy(img + slots + 2 * sz + SL_NAME, "Fake", 5);
        pl__wr64(img + slots + 2 * sz + SL_PARENT, 0xFFFFFFF0u); /* no such parent */
        int fd = hostile_fd(img, len, 1);
        fds[nfd++] = fd;
        announce(getpid(), start, fd);
        free(img);
    }
    /* Not sealed: could shrink under the reader. Ignored. */
    fds[nfd] = hostile_fd(good, len, 0);
    announce(getpid(), start, fds[nfd]);
    nfd++;
    /* Wrong start time, a dead pid, a junk name, a directory. */
    announce(getpid(), start + 1, fds[0]);
    announce(999999, 5, 3);
    char path[600];
    snprintf(path, sizeof path, "%s/%s%u/%s12x.3.4", dir, PL__SEG_USER_DIR, me_uid, PL__SEG_PREFIX);
    close(open(path, O_CREAT | O_WRONLY, 0444));
    snprintf(path, sizeof path, "%s/%s%u/%s1.1.1", dir, PL__SEG_USER_DIR, me_uid, PL__SEG_PREFIX);
    mkdir(path, 0700);

    pl_engine *e = pl_test_engine_open(store_path);
    pl_test_answer a;
    pl_test_query(e, "Global", &a);
    pl_object o;
    assert_true(find_object(&a, ind.first_counter, &o));
    /* "Real", plus "Fake" from the garbage-slot segment (same layout, valid
     * name): the unterminated and the busy slots are not shown. */
    assert_int_equal(pl_object_num_instances(&o), 2);
    assert_int_equal(value_of(&o, "Real", 0), 77);
    assert_int_equal(value_of(&o, "Fake", 0), 0);
    pl_free(a.buf);
    pl_provider_status *ps;
    assert_int_equal(pl_engine_provider_status(e, &ps, &n), PL_OK);
    for (size_t i = 0; i < n; i++)
        if (strcmp(ps[i].name, PL_APP_PROVIDER) == 0) assert_int_equal(ps[i].disabled, 0);
    pl_free(ps);
    pl_engine_close(e);
    for (int i = 0; i < nfd; i++) close(fds[i]);
    rmdir(path);
    free(good);
    pl_app_stop(app);
    teardown_dirs();
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_register_keeps_indices),
        cmocka_unit_test(test_publish_and_read),
        cmocka_unit_test(test_engine_store_not_default),
        cmocka_unit_test(test_engine_titles_follow_the_store),
        cmocka_unit_test(test_index_query_brings_parent),
        cmocka_unit_test(test_instance_limit),
        cmocka_unit_test(test_no_torn_values),
        cmocka_unit_test(seqlock_reader_never_mixes_two_writes),
        cmocka_unit_test(test_no_lost_updates),
        cmocka_unit_test(test_kill9_disappears_restart_is_new),
        cmocka_unit_test(test_hostile_segments),
    };
    return pl_test_run(tests, argc, argv);
}
