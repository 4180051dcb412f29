/* The provider host and the query engine, against real test providers that
 * misbehave on purpose (tests/host/test_provider.c) and a real SQLite store in
 * a temporary directory. */
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "perflib/block.h"
#include "perflib/lodctr.h"
#include "perflib/query.h"
#include "perflib/registry.h"
#include "pl_test.h"

typedef struct fixture {
    char dir[256];
    char store[300];
    pl_store *st;
} fixture;

static fixture fx;

/* A fresh store with the built-in providers disabled, so only the test
 * providers registered by each case answer. */
static int setup(void **state)
{
    (void)state;
    snprintf(fx.dir, sizeof fx.dir, "/tmp/pl-host-XXXXXX");
    if (!mkdtemp(fx.dir)) return -1;
    snprintf(fx.store, sizeof fx.store, "%s/perflib.db", fx.dir);
    setenv("TP_TRACE", fx.dir, 1);          /* the test providers log their calls here */
    unsetenv("PERFLIB_PROVIDER_HOST");      /* the build tree's helper */
    pl_error err;
    if (pl_store_open(fx.store, 0, &fx.st, &err) != PL_OK) {
        fprintf(stderr, "store: %s\n", err.msg);
        return -1;
    }
    pl_provider_info *list;
    size_t n;
    if (pl_store_providers(fx.st, &list, &n, &err) != PL_OK) return -1;
    for (size_t i = 0; i < n; i++) pl_store_disable_provider(fx.st, list[i].name, "not under test", &err);
    pl_provider_list_free(list, n);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    pl_store_close(fx.st);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx.dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void add_provider_ex(const char *name, const char *mode, const char *object_list, const char *linkage,
                            int isolation, uint32_t open_ms, uint32_t collect_ms)
{
    char lib[128];
    snprintf(lib, sizeof lib, "libtp_%s.so", mode);
    pl_provider_info p;
    memset(&p, 0, sizeof p);
    p.name = (char *)name;
    p.library = lib;
    p.open = "TpOpen";
    p.collect = "TpCollect";
    p.close = "TpClose";
    p.object_list = (char *)object_list;
    p.linkage_export = (char *)linkage;
    p.isolation = isolation;
    p.open_timeout_ms = open_ms;
    p.collect_timeout_ms = collect_ms;
    pl_error err;
    int rc = pl_store_set_provider(fx.st, &p, &err);
    if (rc != PL_OK) fprintf(stderr, "set_provider: %s\n", err.msg);
    assert_int_equal(rc, PL_OK);
}

static void add_provider(const char *name, const char *mode, const char *object_list, const char *linkage)
{
    add_provider_ex(name, mode, object_list, linkage, PL_ISOLATION_INPROC, 0, 0);
}

/* The calls a test provider logged ($TP_TRACE/<mode>.trace): how many lines
 * start with `what` (a word), and the argument of the last one. */
static int traced(const char *mode, const char *what, char *last, size_t lastcap)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s.trace", fx.dir, mode);
    if (last && lastcap) last[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[512];
    int n = 0;
    size_t wl = strlen(what);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, what, wl) != 0 || (line[wl] != ' ' && line[wl] != '\n')) continue;
        n++;
        if (last && lastcap) {
            const char *arg = line[wl] == ' ' ? line + wl + 1 : "";
            snprintf(last, lastcap, "%s", arg);
            char *nl = strchr(last, '\n');
            if (nl) *nl = '\0';
        }
    }
    fclose(f);
    return n;
}

/* Children of this process, and how many of them are zombies (state Z in
 * /proc/PID/stat). */
static int children(int *zombies)
{
    DIR *d = opendir("/proc");
    assert_non_null(d);
    int n = 0, z = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9') continue;
        char path[300], buf[1024];
        snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = '\0';
        char *rp = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
        if (!rp || rp[1] != ' ' || !rp[2]) continue;
        char state = rp[2];
        long ppid = strtol(rp + 4, NULL, 10);
        if (ppid != (long)getpid()) continue;
        n++;
        if (state == 'Z') z++;
    }
    closedir(d);
    if (zombies) *zombies = z;
    return n;
}

static void assert_no_zombies(void)
{
    int z = -1;
    children(&z);
    assert_int_equal(z, 0);
}

static int64_t ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The engine's view of one provider (status copied out). */
static pl_provider_status status_of(pl_engine *e, const char *name)
{
    pl_provider_status *st;
    size_t n;
    assert_int_equal(pl_engine_provider_status(e, &st, &n), PL_OK);
    pl_provider_status r;
    memset(&r, 0, sizeof r);
    int seen = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(st[i].name, name) == 0) {
            r = st[i];
            seen = 1;
        }
    pl_free(st);
    assert_true(seen);
    return r;
}

/* The exact disable reason in the store. */
/* bad Collects in a row that disable (PL__STATE_BREAKS_IN_ROW, issue 33) */
#define BREAKS_IN_ROW 3u

static void assert_disabled_exactly(const char *name, const char *reason)
{
    pl_provider_info p;
    pl_error err;
    assert_int_equal(pl_store_provider(fx.st, name, &p, &err), PL_OK);
    assert_int_equal(p.disabled, 1);
    assert_non_null(p.disable_reason);
    assert_string_equal(p.disable_reason, reason);
    assert_true(p.disable_time > 0);
    pl_provider_info_clear(&p);
}

/* The test provider's counters, through our own handle on the same library. */
typedef struct tp {
    void *dl;
    int *open_calls, *collect_calls, *close_calls, *overlaps;
    char *last_query, *last_linkage;
} tp;

static tp tp_get(const char *mode)
{
    char path[512];
    snprintf(path, sizeof path, "%s/libtp_%s.so", TP_DIR, mode);
    tp t;
    t.dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(t.dl);
    t.open_calls = dlsym(t.dl, "tp_open_calls");
    t.collect_calls = dlsym(t.dl, "tp_collect_calls");
    t.close_calls = dlsym(t.dl, "tp_close_calls");
    t.overlaps = dlsym(t.dl, "tp_overlaps");
    t.last_query = dlsym(t.dl, "tp_last_query");
    t.last_linkage = dlsym(t.dl, "tp_last_linkage");
    assert_non_null(t.open_calls);
    assert_non_null(t.collect_calls);
    return t;
}

static pl_engine *engine(void)
{
    pl_engine_config cfg = {.store_path = fx.store, .provider_dir = TP_DIR, .system_name = "TESTBOX",
                            .log_to_syslog = 0};
    pl_engine *e = NULL;
    pl_error err;
    int rc = pl_engine_open(&cfg, &e, &err);
    if (rc != PL_OK) fprintf(stderr, "engine: %s\n", err.msg);
    assert_int_equal(rc, PL_OK);
    return e;
}

/* Run a data query and open the answer with the reader. */
static void *query(pl_engine *e, const char *q, pl_block *blk)
{
    void *data = NULL;
    size_t len = 0;
    uint32_t type = 0;
    pl_error err;
    int rc = pl_engine_query_alloc(e, q, &data, &len, &type, &err);
    if (rc != PL_OK) fprintf(stderr, "query: %s\n", err.msg);
    assert_int_equal(rc, PL_OK);
    assert_int_equal(type, PL_REG_BINARY);
    rc = pl_block_open(blk, data, len, 0, 0, &err);
    if (rc != PL_OK) fprintf(stderr, "block: %s\n", err.msg);
    assert_int_equal(rc, PL_OK);
    return data;
}

static uint64_t value_of(const pl_block *blk, uint32_t obj_index, int32_t inst)
{
    pl_object o;
    assert_int_equal(pl_block_find_object(blk, obj_index, &o), PL_OK);
    pl_counter c;
    assert_int_equal(pl_object_counter(&o, 0, &c), PL_OK);
    pl_instance in;
    assert_int_equal(pl_object_instance(&o, inst, &in), PL_OK);
    uint64_t v = 0;
    assert_int_equal(pl_counter_value(&c, &in, &v), PL_OK);
    return v;
}

static void assert_disabled(const char *name, const char *reason_part)
{
    pl_provider_info p;
    pl_error err;
    assert_int_equal(pl_store_provider(fx.st, name, &p, &err), PL_OK);
    assert_int_equal(p.disabled, 1);
    assert_non_null(p.disable_reason);
    if (!strstr(p.disable_reason, reason_part)) fprintf(stderr, "reason: %s\n", p.disable_reason);
    assert_non_null(strstr(p.disable_reason, reason_part));
    assert_true(p.disable_time > 0);
    pl_provider_info_clear(&p);
}

static void assert_enabled(const char *name)
{
    pl_provider_info p;
    pl_error err;
    assert_int_equal(pl_store_provider(fx.st, name, &p, &err), PL_OK);
    assert_int_equal(p.disabled, 0);
    pl_provider_info_clear(&p);
}

static void global_block_header(void **state)
{
    (void)state;
    add_provider("Good", "good", NULL, NULL);
    tp t = tp_get("good");
    pl_engine *e = engine();
    pl_block blk;
    void *data = query(e, "Global", &blk);
    const uint8_t *b = data;
    assert_memory_equal(b, "P\0E\0R\0F\0", 8);
    assert_int_equal(blk.hdr.LittleEndian, 1);
    assert_int_equal(blk.hdr.Version, 1);
    assert_int_equal(blk.hdr.Revision, 1);
    assert_int_equal(blk.hdr.DefaultObject, 238);
    assert_int_equal(blk.hdr.SystemNameOffset, 88);
    assert_int_equal(blk.hdr.SystemNameLength, (7 + 1) * 2);
    assert_int_equal(blk.hdr.HeaderLength, 104); /* align8(88 + 16) */
    assert_int_equal(blk.hdr.PerfFreq.QuadPart, 10000000);
    assert_string_equal(blk.system_name, "TESTBOX");
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    assert_int_equal(blk.len, blk.hdr.TotalByteLength);
    /* PerfTime100nSec is now as FILETIME: after 2020-01-01 (132223104000000000). */
    assert_true(blk.hdr.PerfTime100nSec.QuadPart > 132223104000000000LL);
    assert_true(blk.hdr.SystemTime.wYear >= 2020);
    assert_int_equal(value_of(&blk, 86, -1), 43);
    free(data);
    data = query(e, "", &blk);
    assert_int_equal(value_of(&blk, 86, -1), 44);
    free(data);
    data = query(e, NULL, &blk);
    assert_int_equal(value_of(&blk, 86, -1), 45);
    free(data);
    assert_int_equal(*t.open_calls, 1);
    assert_int_equal(*t.collect_calls, 3);
    assert_string_equal(t.last_query, "Global");
    pl_engine_close(e);
    assert_int_equal(*t.close_calls, 1);
    dlclose(t.dl);
}

static void exact_size_contract(void **state)
{
    (void)state;
    add_provider("Good", "good", NULL, NULL);
    pl_engine *e = engine();
    size_t need = 0;
    pl_error err;
    assert_int_equal(pl_engine_query(e, "Global", NULL, 0, &need, NULL, &err), PL_E_MORE_DATA);
    assert_true(need > 104);
    uint8_t *buf = malloc(need + 32);
    memset(buf, 0x5A, need + 32);
    size_t need2 = 0;
    assert_int_equal(pl_engine_query(e, "Global", buf, need - 1, &need2, NULL, &err), PL_E_MORE_DATA);
    assert_int_equal(need2, need);
    for (size_t i = 0; i < need + 32; i++) assert_int_equal(buf[i], 0x5A); /* nothing written */
    uint32_t type = 0;
    assert_int_equal(pl_engine_query(e, "Global", buf, need, &need2, &type, &err), PL_OK);
    assert_int_equal(need2, need);
    assert_int_equal(type, PL_REG_BINARY);
    for (size_t i = need; i < need + 32; i++) assert_int_equal(buf[i], 0x5A);
    pl_block blk;
    assert_int_equal(pl_block_open(&blk, buf, need, 0, 0, &err), PL_OK);
    assert_int_equal(blk.hdr.TotalByteLength, need);
    free(buf);
    pl_engine_close(e);
}

/* Every way of breaking the contract disables the provider with a reason,
 * the good provider still answers in the same query, and the broken one is
 * not called again. */
static void contract_breaks_disable_in(const char *mode, const char *reason_part, int isolation)
{
    add_provider("Good", "good", NULL, NULL);
    add_provider_ex("Bad", mode, NULL, NULL, isolation, 0, 0);
    tp t = tp_get(mode);
    pl_engine *e = engine();
    pl_block blk;
    void *data;
    /* issue 33: a bad Collect leaves that sample without the provider's
     * objects and is reported; the third in a row disables. Writing past
     * the buffer (guard bytes) is the exception: at once. */
    int immediate = strstr(reason_part, "wrote past") != NULL;
    for (unsigned i = 1; !immediate && i < BREAKS_IN_ROW; i++) {
        data = query(e, "Global", &blk);
        assert_int_equal(blk.hdr.NumObjectTypes, 1);
        free(data);
        assert_enabled("Bad");
        pl_provider_status ps = status_of(e, "Bad");
        assert_int_equal(ps.disabled, 0);
        assert_true(ps.errors >= i);
        assert_non_null(strstr(ps.last_error, reason_part));
        assert_non_null(strstr(ps.last_error, "that sample is left without its objects"));
    }
    data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    assert_true(value_of(&blk, 86, -1) >= 43); /* the good provider answered each time */
    free(data);
    assert_disabled("Bad", reason_part);
    assert_enabled("Good");
    int calls = traced(mode, "collect", NULL, 0);
    assert_true(calls >= 1);
    if (isolation == PL_ISOLATION_INPROC) assert_int_equal(*t.collect_calls, calls);
    else assert_int_equal(*t.collect_calls, 0); /* not in this process */
    assert_int_equal(traced(mode, "close", NULL, 0), 1); /* Close on disable, in either mode */
    assert_no_zombies();
    pl_provider_status ps = status_of(e, "Bad");
    assert_int_equal(ps.isolation, isolation);
    assert_int_equal(ps.helper_pid, 0);
    data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    free(data);
    assert_int_equal(traced(mode, "collect", NULL, 0), calls);
    {
        pl_provider_status *st;
        size_t n;
        assert_int_equal(pl_engine_provider_status(e, &st, &n), PL_OK);
        int seen = 0;
        for (size_t i = 0; i < n; i++)
            if (strcmp(st[i].name, "Bad") == 0) {
                seen = 1;
                assert_int_equal(st[i].disabled, 1);
                assert_non_null(strstr(st[i].last_error, reason_part));
            }
        assert_true(seen);
        free(st);
    }
    pl_engine_close(e);
    /* A new engine (another process, later) does not load it either. */
    e = engine();
    data = query(e, "Global", &blk);
    free(data);
    assert_int_equal(traced(mode, "collect", NULL, 0), calls);
    pl_engine_close(e);
    assert_int_equal(children(NULL), 0);
    dlclose(t.dl);
}

static void contract_breaks_disable(const char *mode, const char *reason_part)
{
    contract_breaks_disable_in(mode, reason_part, PL_ISOLATION_INPROC);
}

/* The same breaks through a helper process: the same outcomes. */
static void contract_breaks_disable_isolated(const char *mode, const char *reason_part)
{
    contract_breaks_disable_in(mode, reason_part, PL_ISOLATION_HELPER);
}

/* issue 33: a clean Collect between bad ones starts the count again; only
 * the third bad Collect in a row disables (Collects 1-2, 4-5, 7-9 break). */
static void good_collect_resets_breaks_in(int isolation)
{
    add_provider("Good", "good", NULL, NULL);
    add_provider_ex("Bad", "break_twice", NULL, NULL, isolation, 0, 0);
    pl_engine *e = engine();
    pl_block blk;
    for (int i = 1; i <= 9; i++) {
        void *data = query(e, "Global", &blk);
        int good = i == 3 || i == 6;
        assert_int_equal(blk.hdr.NumObjectTypes, good ? 2 : 1); /* a bad sample has none of its objects */
        free(data);
        if (i < 9) assert_enabled("Bad");
    }
    assert_disabled("Bad", "pointer returned did not match");
    assert_disabled("Bad", "(3 bad Collects in a row)");
    assert_int_equal(traced("break_twice", "collect", NULL, 0), 9);
    pl_engine_close(e);
    assert_no_zombies();
}
static void good_collect_resets_breaks(void **s) { (void)s; good_collect_resets_breaks_in(PL_ISOLATION_INPROC); }
static void iso_good_collect_resets_breaks(void **s) { (void)s; good_collect_resets_breaks_in(PL_ISOLATION_HELPER); }

static void wrong_byte_count(void **s) { (void)s; contract_breaks_disable("wrong_bytes", "pointer returned did not match"); }
static void pointer_not_advanced(void **s) { (void)s; contract_breaks_disable("no_advance", "pointer returned did not match"); }
/* *bytes not a multiple of 8: Windows keeps the data, padded, and warns
 * (event 1016); so does the host, once, and the provider stays enabled. */
static void misaligned_padded_in(int isolation)
{
    add_provider("Good", "good", NULL, NULL);
    add_provider_ex("Bad", "misaligned", NULL, NULL, isolation, 0, 0);
    pl_engine *e = engine();
    for (int round = 0; round < 2; round++) {
        pl_block blk;
        void *data = query(e, "Global", &blk);
        assert_int_equal(blk.hdr.NumObjectTypes, 2);
        assert_int_equal(blk.hdr.TotalByteLength % 8, 0);
        pl_object o;
        assert_int_equal(pl_block_object(&blk, 1, &o), PL_OK);
        assert_int_equal(o.off % 8, 0);
        assert_int_equal(o.hdr.TotalByteLength % 8, 0);
        free(data);
        assert_enabled("Bad");
        pl_provider_status ps = status_of(e, "Bad");
        assert_non_null(strstr(ps.last_error, "not multiples of 8; padded"));
    }
    assert_int_equal(traced("misaligned", "close", NULL, 0), 0);
    pl_engine_close(e);
    assert_no_zombies();
}

static void misaligned_size(void **s) { (void)s; misaligned_padded_in(PL_ISOLATION_INPROC); }
static void corrupt_object(void **s) { (void)s; contract_breaks_disable("corrupt", "invalid data"); }
static void endless_more_data(void **s) { (void)s; contract_breaks_disable("endless_more", "kept returning ERROR_MORE_DATA"); }
static void index_out_of_range(void **s) { (void)s; contract_breaks_disable("bad_index", "outside its range"); }
static void buffer_overrun(void **s) { (void)s; contract_breaks_disable("overrun", "wrote past the end"); }
static void wrong_object_count(void **s) { (void)s; contract_breaks_disable("wrong_count", "invalid data"); }
static void more_data_with_bytes(void **s) { (void)s; contract_breaks_disable("more_data_lies", "ERROR_MORE_DATA but"); }
static void iso_wrong_byte_count(void **s) { (void)s; contract_breaks_disable_isolated("wrong_bytes", "pointer returned did not match"); }
static void iso_pointer_not_advanced(void **s) { (void)s; contract_breaks_disable_isolated("no_advance", "pointer returned did not match"); }
static void iso_misaligned_size(void **s) { (void)s; misaligned_padded_in(PL_ISOLATION_HELPER); }
static void iso_corrupt_object(void **s) { (void)s; contract_breaks_disable_isolated("corrupt", "invalid data"); }
static void iso_endless_more_data(void **s) { (void)s; contract_breaks_disable_isolated("endless_more", "kept returning ERROR_MORE_DATA"); }
static void iso_index_out_of_range(void **s) { (void)s; contract_breaks_disable_isolated("bad_index", "outside its range"); }
static void iso_buffer_overrun(void **s) { (void)s; contract_breaks_disable_isolated("overrun", "wrote past the end"); }
static void iso_wrong_object_count(void **s) { (void)s; contract_breaks_disable_isolated("wrong_count", "invalid data"); }
static void iso_more_data_with_bytes(void **s) { (void)s; contract_breaks_disable_isolated("more_data_lies", "ERROR_MORE_DATA but"); }

static void endless_more_data_is_bounded(void **state)
{
    (void)state;
    add_provider("Bad", "endless_more", NULL, NULL);
    tp t = tp_get("endless_more");
    pl_engine *e = engine();
    pl_block blk;
    free(query(e, "Global", &blk));
    /* 64 KiB doubling stops at the 256 MiB cap: 64K * 2^12 = 256M, 13 calls. */
    assert_int_equal(*t.collect_calls, 13);
    pl_engine_close(e);
    dlclose(t.dl);
}

static void open_error_retried(void **state)
{
    (void)state;
    add_provider("Flaky", "open_error", NULL, "dev0 dev1");
    tp t = tp_get("open_error");
    pl_engine *e = engine();
    pl_block blk;
    void *data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 0);
    assert_int_equal(*t.open_calls, 1);
    assert_int_equal(*t.collect_calls, 0);
    free(data);
    data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    assert_int_equal(*t.open_calls, 2);
    assert_string_equal(t.last_linkage, "dev0 dev1");
    free(data);
    assert_enabled("Flaky");
    pl_engine_close(e);
    dlclose(t.dl);
}

static void collect_error_kept(void **state)
{
    (void)state;
    add_provider("Flaky", "collect_error", NULL, NULL);
    tp t = tp_get("collect_error");
    pl_engine *e = engine();
    pl_block blk;
    pl_provider_status ps = status_of(e, "Flaky");
    assert_int_equal(ps.last_collect_ns, 0); /* not asked yet */
    assert_int_equal(ps.last_error_unix_ms, 0);
    int64_t before = (int64_t)time(NULL) * 1000;
    void *data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 0);
    free(data);
    /* how that Collect went (perfd's perflib_provider_* metrics) */
    ps = status_of(e, "Flaky");
    assert_true(ps.last_collect_ns > 0);
    assert_int_equal(ps.last_collect_ok, 0);
    assert_true(ps.last_error_unix_ms >= before - 1000 && ps.last_error_unix_ms <= (int64_t)time(NULL) * 1000 + 1000);
    assert_int_equal(ps.nobjects, 0);
    int64_t first_error = ps.last_error_unix_ms;
    data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    pl_object o;
    assert_int_equal(pl_block_object(&blk, 0, &o), PL_OK);
    free(data);
    ps = status_of(e, "Flaky");
    assert_int_equal(ps.last_collect_ok, 1);
    assert_int_equal(ps.last_error_unix_ms, first_error); /* no new error */
    assert_int_equal(ps.nobjects, 1);
    assert_int_equal(ps.objects[0], o.hdr.ObjectNameTitleIndex);
    assert_int_equal(*t.open_calls, 1);
    assert_int_equal(*t.collect_calls, 2);
    assert_enabled("Flaky");
    pl_engine_close(e);
    dlclose(t.dl);
}

static void buffer_grows(void **state)
{
    (void)state;
    add_provider("Big", "needs_big", NULL, NULL);
    tp t = tp_get("needs_big");
    pl_engine *e = engine();
    pl_block blk;
    void *data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    free(data);
    /* 64 KiB doubled until >= 300,000: 64K, 128K, 256K, 512K = 4 calls. */
    assert_int_equal(*t.collect_calls, 4);
    data = query(e, "Global", &blk); /* the grown buffer is kept */
    free(data);
    assert_int_equal(*t.collect_calls, 5);
    /* given back (pl_engine_trim): the next Collect starts at the room the
     * buffer had, not at 64 KiB again */
    pl_engine_trim(e);
    data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    free(data);
    assert_int_equal(*t.collect_calls, 6);
    assert_enabled("Big");
    pl_engine_close(e);
    dlclose(t.dl);
}

static void object_list_routes_queries(void **state)
{
    (void)state;
    add_provider("Listed", "good", "86", NULL);
    add_provider("Unlisted", "parent", NULL, NULL);
    tp a = tp_get("good"), b = tp_get("parent");
    pl_engine *e = engine();
    pl_block blk;
    free(query(e, "2", &blk));       /* not in Listed's Object List */
    assert_int_equal(*a.collect_calls, 0);
    assert_int_equal(*b.collect_calls, 1); /* no Object List: every numeric query */
    assert_string_equal(b.last_query, "2");
    void *data = query(e, "86", &blk);
    assert_int_equal(*a.collect_calls, 1);
    assert_string_equal(a.last_query, "86");
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    free(data);
    /* an index query's "pid=N" reaches the providers it goes to, as "pid=N" */
    data = query(e, "  PID=00042\t86 ", &blk);
    assert_int_equal(*a.collect_calls, 2);
    assert_string_equal(a.last_query, "86 pid=42");
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    free(data);
    data = query(e, "86 pid=x", &blk); /* a malformed one makes it unknown */
    assert_int_equal(blk.hdr.NumObjectTypes, 0);
    free(data);
    assert_int_equal(*a.collect_calls, 2);
    data = query(e, "ABCD", &blk);   /* unknown words: nobody is asked */
    assert_int_equal(blk.hdr.NumObjectTypes, 0);
    assert_int_equal(blk.len, blk.hdr.HeaderLength);
    free(data);
    assert_int_equal(*a.collect_calls, 2);
    assert_int_equal(*b.collect_calls, 3); /* "86 pid=42" too */
    data = query(e, "Costly", &blk); /* everyone is asked; nothing costly here */
    assert_int_equal(blk.hdr.NumObjectTypes, 0);
    assert_string_equal(a.last_query, "Costly");
    free(data);
    pl_engine_close(e);
    dlclose(a.dl);
    dlclose(b.dl);
}

static void child_brings_parent(void **state)
{
    (void)state;
    add_provider("Threads", "child", "232", NULL);
    add_provider("Processes", "parent", "230", NULL);
    pl_engine *e = engine();
    pl_block blk;
    void *data = query(e, "232", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 2);
    pl_object o;
    assert_int_equal(pl_block_find_object(&blk, 230, &o), PL_OK);
    assert_int_equal(pl_block_find_object(&blk, 232, &o), PL_OK);
    char **names = NULL;
    assert_int_equal(pl_object_instance_names(&o, &names), PL_OK);
    assert_string_equal(names[0], "proc/0");
    assert_string_equal(names[1], "proc/1");
    pl_free(names);
    free(data);
    data = query(e, "230", &blk); /* a parent alone does not bring children */
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    free(data);
    pl_engine_close(e);
}

static void title_queries(void **state)
{
    (void)state;
    pl_engine *e = engine();
    const char *qs[] = {"Counter 009", "counter", "cOuNtErwine"};
    for (size_t i = 0; i < 3; i++) {
        void *data;
        size_t len;
        uint32_t type;
        pl_error err;
        assert_int_equal(pl_engine_query_alloc(e, qs[i], &data, &len, &type, &err), PL_OK);
        assert_int_equal(type, PL_REG_MULTI_SZ);
        assert_memory_equal(data, "1\0\0\0" "1\0" "8\0" "4\0" "7\0\0\0", 14);
        const uint8_t *b = data;
        assert_int_equal(b[len - 1], 0);
        assert_int_equal(b[len - 2], 0);
        assert_int_equal(b[len - 3], 0);
        assert_int_equal(b[len - 4], 0);
        free(data);
    }
    void *data;
    size_t len;
    uint32_t type;
    pl_error err;
    assert_int_equal(pl_engine_query_alloc(e, "Explain 009", &data, &len, &type, &err), PL_OK);
    assert_int_equal(type, PL_REG_MULTI_SZ);
    free(data);
    assert_int_equal(pl_engine_query_alloc(e, "Help", &data, &len, &type, &err), PL_OK);
    free(data);
    assert_int_not_equal(pl_engine_query_alloc(e, "Counter 999", &data, &len, &type, &err), PL_OK);
    pl_engine_close(e);
}

typedef struct worker {
    pl_engine *e;
    int ok;
} worker;

static void *run_worker(void *arg)
{
    worker *w = arg;
    for (int i = 0; i < 50; i++) {
        void *data;
        size_t len;
        uint32_t type;
        pl_block blk;
        if (pl_engine_query_alloc(w->e, "Global", &data, &len, &type, NULL) != PL_OK) return NULL;
        if (pl_block_open(&blk, data, len, 0, 0, NULL) == PL_OK && blk.hdr.NumObjectTypes == 1) w->ok++;
        free(data);
    }
    return NULL;
}

static void many_threads_one_provider(void **state)
{
    (void)state;
    add_provider("Good", "good", NULL, NULL);
    tp t = tp_get("good");
    pl_engine *e = engine();
    pthread_t th[4];
    worker w[4];
    for (int i = 0; i < 4; i++) {
        w[i].e = e;
        w[i].ok = 0;
        pthread_create(&th[i], NULL, run_worker, &w[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(w[i].ok, 50);
    }
    assert_int_equal(*t.collect_calls, 200);
    assert_int_equal(*t.overlaps, 0);
    assert_int_equal(*t.open_calls, 1);
    pl_engine_close(e);
    dlclose(t.dl);
}

/* A provider that exports <Collect>NonBlocking and says yes is called on
 * the consumer's own thread (no watchdog hand-over); when it says no, and
 * for a provider without the export, Collect runs on the worker thread. */
static long collect_tid(void *dl)
{
    long *tid = dlsym(dl, "tp_collect_tid");
    assert_non_null(tid);
    return *tid;
}

static void nonblocking_collect_on_caller_thread(void **state)
{
    (void)state;
    add_provider("Nb", "nonblocking", NULL, NULL);
    tp t = tp_get("nonblocking");
    int *nb_calls = dlsym(t.dl, "tp_nonblocking_calls");
    assert_non_null(nb_calls);
    long me = (long)syscall(SYS_gettid);
    pl_engine *e = engine();
    pl_block blk;
    void *d = query(e, "86", &blk);
    assert_int_equal(value_of(&blk, 86, -1), 43);
    pl_free(d);
    assert_int_equal(*t.collect_calls, 1);
    assert_int_equal(*nb_calls, 1);
    assert_int_equal(collect_tid(t.dl), me);
    /* the provider says no for a query naming 232: the watchdog's thread */
    d = query(e, "86 232", &blk);
    assert_int_equal(value_of(&blk, 86, -1), 44);
    pl_free(d);
    assert_int_equal(*t.collect_calls, 2);
    assert_true(collect_tid(t.dl) != me);
    assert_true(collect_tid(t.dl) > 0);
    /* and yes again */
    d = query(e, "Global", &blk);
    pl_free(d);
    assert_int_equal(collect_tid(t.dl), me);
    pl_engine_close(e);
    dlclose(t.dl);
}

static void without_nonblocking_collect_on_worker(void **state)
{
    (void)state;
    add_provider("Good", "good", NULL, NULL);
    tp t = tp_get("good");
    assert_null(dlsym(t.dl, "TpCollectNonBlocking"));
    long me = (long)syscall(SYS_gettid);
    pl_engine *e = engine();
    pl_block blk;
    for (int i = 0; i < 3; i++) {
        void *d = query(e, "86", &blk);
        pl_free(d);
        assert_true(collect_tid(t.dl) != me);
        assert_true(collect_tid(t.dl) > 0);
    }
    pl_engine_close(e);
    dlclose(t.dl);
}

/* The optional <Collect>Note (provider.h, PL_NOTE_SUFFIX) reaches the
 * provider status as one line of valid UTF-8, asked for when the status is
 * read; a provider without the export, and an isolated one, have none. */
static void provider_note_in_status(void **state)
{
    (void)state;
    add_provider("Nt", "note", NULL, NULL);
    add_provider("Good", "good", NULL, NULL);
    add_provider_ex("NtIso", "note", NULL, NULL, PL_ISOLATION_HELPER, 0, 0);
    pl_engine *e = engine();
    pl_provider_status ps = status_of(e, "Nt");
    assert_string_equal(ps.note, ""); /* not loaded yet: nothing to ask */
    pl_block blk;
    void *d = query(e, "Global", &blk);
    pl_free(d);
    ps = status_of(e, "Nt");
    assert_string_equal(ps.note, "tp note?after 1 collects ?"); /* the tab and the 0xFF byte replaced */
    d = query(e, "Global", &blk);
    pl_free(d);
    ps = status_of(e, "Nt");
    assert_string_equal(ps.note, "tp note?after 2 collects ?"); /* asked again, not kept */
    assert_string_equal(status_of(e, "Good").note, "");
    assert_string_equal(status_of(e, "NtIso").note, ""); /* in-process only */
    assert_int_equal(status_of(e, "NtIso").collects, 2);
    pl_engine_close(e);
}

static void missing_library_skipped(void **state)
{
    (void)state;
    add_provider("Good", "good", NULL, NULL);
    add_provider("Ghost", "does_not_exist", NULL, NULL);
    pl_engine *e = engine();
    pl_block blk;
    void *data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    free(data);
    pl_provider_status *st;
    size_t n;
    assert_int_equal(pl_engine_provider_status(e, &st, &n), PL_OK);
    for (size_t i = 0; i < n; i++)
        if (strcmp(st[i].name, "Ghost") == 0) {
            assert_int_equal(st[i].loaded, 0);
            assert_non_null(strstr(st[i].last_error, "cannot load"));
        }
    free(st);
    pl_engine_close(e);
}

/* ------------------------------------------------------------ isolation */

static void iso_endless_more_data_is_bounded(void **state)
{
    (void)state;
    add_provider_ex("Bad", "endless_more", NULL, NULL, PL_ISOLATION_HELPER, 0, 0);
    pl_engine *e = engine();
    pl_block blk;
    free(query(e, "Global", &blk));
    assert_int_equal(traced("endless_more", "collect", NULL, 0), 13); /* as in-process */
    assert_non_null(strstr(status_of(e, "Bad").last_error,
                           "Collect kept returning ERROR_MORE_DATA (13 rounds, up to 268435456 bytes)"));
    /* the buffer it grew to is kept: the next Collects break at once */
    for (unsigned i = 1; i < BREAKS_IN_ROW; i++) free(query(e, "Global", &blk));
    assert_disabled("Bad", "Collect kept returning ERROR_MORE_DATA");
    assert_disabled("Bad", "(3 bad Collects in a row)");
    pl_engine_close(e);
    assert_int_equal(children(NULL), 0);
}

static void iso_open_error_retried(void **state)
{
    (void)state;
    add_provider_ex("Flaky", "open_error", NULL, "dev0 dev1", PL_ISOLATION_HELPER, 0, 0);
    pl_engine *e = engine();
    pl_block blk;
    void *data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 0);
    free(data);
    /* Open failed in the helper: the helper (and its count of Open calls)
     * stays, Open is asked again next time. */
    pl_provider_status ps = status_of(e, "Flaky");
    assert_int_equal(ps.opened, 0);
    assert_int_equal(ps.isolation, PL_ISOLATION_HELPER);
    assert_true(ps.helper_pid > 0);
    int pid = ps.helper_pid;
    assert_string_equal(ps.last_error, "Open returned 5; it will be tried again on the next query");
    data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    assert_int_equal(value_of(&blk, 86, -1), 43);
    free(data);
    char last[256];
    assert_int_equal(traced("open_error", "open", last, sizeof last), 2);
    assert_string_equal(last, "dev0 dev1");
    ps = status_of(e, "Flaky");
    assert_int_equal(ps.helper_pid, pid); /* the same helper */
    assert_int_equal(ps.opened, 1);
    assert_enabled("Flaky");
    pl_engine_close(e);
    assert_int_equal(traced("open_error", "close", NULL, 0), 1); /* Close at engine close */
    assert_int_equal(children(NULL), 0);
}

/* Windows calls a provider's Close only after its Open succeeded; the
 * helper does the same. It still ends the library as a process exit does:
 * DllMain(DLL_PROCESS_DETACH), then its destructors. */
static void iso_no_close_after_failed_open(void **state)
{
    (void)state;
    add_provider_ex("Flaky", "open_error", NULL, NULL, PL_ISOLATION_HELPER, 0, 0);
    pl_engine *e = engine();
    pl_block blk;
    void *data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 0);
    free(data);
    pl_engine_close(e);
    assert_int_equal(traced("open_error", "open", NULL, 0), 1);
    assert_int_equal(traced("open_error", "close", NULL, 0), 0);
    assert_int_equal(traced("open_error", "attach", NULL, 0), 1);
    assert_int_equal(traced("open_error", "detach", NULL, 0), 1);
    assert_int_equal(traced("open_error", "dtor", NULL, 0), 1);
    assert_int_equal(traced("open_error", "dllmain-without-instance", NULL, 0), 0);
    assert_int_equal(children(NULL), 0);
}

/* DllMain(DLL_PROCESS_ATTACH) at load, Close, DllMain(DLL_PROCESS_DETACH)
 * and the destructors when the helper ends. */
static void iso_dllmain_and_destructors(void **state)
{
    (void)state;
    add_provider_ex("Good", "good", NULL, NULL, PL_ISOLATION_HELPER, 0, 0);
    pl_engine *e = engine();
    for (int i = 0; i < 2; i++) {
        pl_block blk;
        void *data = query(e, "Global", &blk);
        assert_int_equal(blk.hdr.NumObjectTypes, 1);
        free(data);
    }
    assert_int_equal(traced("good", "attach", NULL, 0), 1);
    assert_int_equal(traced("good", "detach", NULL, 0), 0);
    pl_engine_close(e);
    assert_int_equal(traced("good", "close", NULL, 0), 1);
    assert_int_equal(traced("good", "detach", NULL, 0), 1);
    assert_int_equal(traced("good", "dtor", NULL, 0), 1);
    assert_int_equal(children(NULL), 0);
}

/* In process: DllMain at load and before the library is unloaded. */
static void dllmain_in_process(void **state)
{
    (void)state;
    add_provider("Good", "good", NULL, NULL);
    pl_engine *e = engine();
    pl_block blk;
    void *data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    free(data);
    assert_int_equal(traced("good", "attach", NULL, 0), 1);
    assert_int_equal(traced("good", "detach", NULL, 0), 0);
    pl_engine_close(e);
    assert_int_equal(traced("good", "detach", NULL, 0), 1);
    assert_int_equal(traced("good", "dllmain-without-instance", NULL, 0), 0);
}

static void iso_collect_error_kept(void **state)
{
    (void)state;
    add_provider_ex("Flaky", "collect_error", NULL, NULL, PL_ISOLATION_HELPER, 0, 0);
    pl_engine *e = engine();
    pl_block blk;
    void *data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 0);
    free(data);
    data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    assert_int_equal(value_of(&blk, 86, -1), 44); /* the helper kept the provider's state */
    free(data);
    assert_int_equal(traced("collect_error", "open", NULL, 0), 1);
    assert_int_equal(traced("collect_error", "collect", NULL, 0), 2);
    assert_enabled("Flaky");
    pl_provider_status ps = status_of(e, "Flaky");
    assert_int_equal(ps.collects, 1);
    assert_int_equal(ps.errors, 1);
    pl_engine_close(e);
    assert_int_equal(children(NULL), 0);
}

static void iso_buffer_grows(void **state)
{
    (void)state;
    add_provider_ex("Big", "needs_big", NULL, NULL, PL_ISOLATION_HELPER, 0, 0);
    pl_engine *e = engine();
    pl_block blk;
    void *data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    free(data);
    assert_int_equal(traced("needs_big", "collect", NULL, 0), 4);
    data = query(e, "Global", &blk);
    free(data);
    assert_int_equal(traced("needs_big", "collect", NULL, 0), 5);
    pl_engine_trim(e); /* as in buffer_grows */
    data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    free(data);
    assert_int_equal(traced("needs_big", "collect", NULL, 0), 6);
    assert_enabled("Big");
    pl_engine_close(e);
}

static void iso_query_text_and_routing(void **state)
{
    (void)state;
    add_provider_ex("Listed", "good", "86", NULL, PL_ISOLATION_HELPER, 0, 0);
    pl_engine *e = engine();
    pl_block blk;
    free(query(e, "2 4", &blk));
    assert_int_equal(traced("good", "collect", NULL, 0), 0);
    free(query(e, "4 86", &blk));
    char last[256];
    assert_int_equal(traced("good", "collect", last, sizeof last), 1);
    assert_string_equal(last, "4 86");
    free(query(e, "Costly", &blk));
    assert_int_equal(traced("good", "collect", last, sizeof last), 2);
    assert_string_equal(last, "Costly");
    pl_engine_close(e);
}

/* A misbehaving isolated provider: the query still answers (the good
 * in-process provider's object is there) and the store says why. */
static void bad_isolated_query(pl_engine *e, int64_t *elapsed_ms)
{
    pl_block blk;
    int64_t t0 = ms_now();
    void *data = query(e, "Global", &blk);
    *elapsed_ms = ms_now() - t0;
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    assert_true(value_of(&blk, 86, -1) >= 43); /* the good provider answered */
    free(data);
    assert_no_zombies();
}

static void crash_disables(const char *mode, const char *reason)
{
    add_provider("Good", "good", NULL, NULL);
    add_provider_ex("Bad", mode, NULL, NULL, PL_ISOLATION_HELPER, 200, 200);
    pl_engine *e = engine();
    int64_t ms;
    pl_provider_status ps;
    /* issue 33: a crash leaves that sample out and a new helper is started;
     * the third in a row disables */
    for (unsigned i = 1; i < BREAKS_IN_ROW; i++) {
        bad_isolated_query(e, &ms);
        assert_true(ms < 2000);
        assert_enabled("Bad");
        ps = status_of(e, "Bad");
        assert_int_equal(ps.disabled, 0);
        assert_non_null(strstr(ps.last_error, reason));
    }
    bad_isolated_query(e, &ms);
    assert_true(ms < 2000);
    char full[300];
    snprintf(full, sizeof full, "%s (%u bad Collects in a row)", reason, BREAKS_IN_ROW);
    assert_disabled_exactly("Bad", full);
    ps = status_of(e, "Bad");
    assert_int_equal(ps.disabled, 1);
    assert_int_equal(ps.helper_pid, 0);
    assert_true(ps.errors >= BREAKS_IN_ROW);
    char want[400];
    snprintf(want, sizeof want, "disabled: %s", full);
    assert_string_equal(ps.last_error, want);
    /* not asked again, not even by a new engine */
    bad_isolated_query(e, &ms);
    assert_int_equal(traced(mode, "collect", NULL, 0), (int)BREAKS_IN_ROW);
    pl_engine_close(e);
    e = engine();
    bad_isolated_query(e, &ms);
    pl_engine_close(e);
    assert_int_equal(traced(mode, "collect", NULL, 0), (int)BREAKS_IN_ROW);
    assert_int_equal(traced(mode, "close", NULL, 0), 0); /* a dead helper cannot Close */
    assert_int_equal(children(NULL), 0);
}

static void iso_crash(void **state)
{
    (void)state;
    crash_disables("crash", "helper process killed by signal 11 (SIGSEGV) during Collect");
}

static void iso_exit(void **state)
{
    (void)state;
    crash_disables("exit", "helper process exited with status 3 during Collect");
}

/* Hangs (issue 33): a call past its timeout is late, never a reason to
 * disable. The query that started it waits its timeout; the next ones do
 * not wait at all and go on without the provider while the helper stays
 * inside the call; after ten times its timeout the helper is killed and a
 * new one started for the next query, which is late again. */
static void hang_is_late(const char *mode, const char *call)
{
    add_provider("Good", "good", NULL, NULL);
    add_provider_ex("Bad", mode, NULL, NULL, PL_ISOLATION_HELPER, 200, 200);
    pl_engine *e = engine();
    int64_t ms;
    int64_t t0 = ms_now();
    bad_isolated_query(e, &ms);
    assert_true(ms >= 200);
    assert_true(ms < 1500);
    pl_provider_status ps = status_of(e, "Bad");
    assert_true(ps.helper_pid > 0); /* the helper lives on, inside the call */
    assert_int_equal(ps.disabled, 0);
    assert_int_equal(ps.timeouts, 1);
    assert_true(ps.late_ms >= 200);
    char want[300];
    snprintf(want, sizeof want,
             "%s did not return within 200 ms and is still running: its objects are left out of the answer until it "
             "returns (a slow provider is not disabled; the machine may be overloaded)", call);
    assert_string_equal(ps.last_error, want);
    bad_isolated_query(e, &ms);
    assert_true(ms < 150); /* no wait for a call already late */
    assert_int_equal(status_of(e, "Bad").helper_pid, ps.helper_pid);
    assert_int_equal(status_of(e, "Bad").timeouts, 1);
    assert_enabled("Bad");
    /* ten times its timeout: that helper is given up, a new one next time */
    while (ms_now() - t0 < 2100) usleep(50000);
    bad_isolated_query(e, &ms);
    assert_true(ms < 150);
    ps = status_of(e, "Bad");
    assert_int_equal(ps.helper_pid, 0);
    assert_int_equal(ps.disabled, 0);
    assert_non_null(strstr(ps.last_error, "(10 times its timeout): the helper process was killed and a new one will be "
                                          "started on the next query (a slow provider is not disabled)"));
    bad_isolated_query(e, &ms);
    assert_true(ms >= 200);
    assert_int_equal(traced(mode, "open", NULL, 0), 2); /* the second helper */
    assert_int_equal(status_of(e, "Bad").timeouts, 2);
    assert_enabled("Bad");
    pl_engine_close(e);
    assert_enabled("Bad");
    assert_int_equal(children(NULL), 0);
}

static void iso_hang(void **state)
{
    (void)state;
    hang_is_late("hang", "Collect");
}

static void iso_hang_open(void **state)
{
    (void)state;
    hang_is_late("hang_open", "Open");
}

/* One slow call, then well (issue 33): the query that started it goes on
 * without it, the next ones too while it runs (without waiting), and once
 * it has returned its answer is dropped and the provider answers again, in
 * the same helper: logged and counted, never disabled. */
static void iso_slow_once(void **state)
{
    (void)state;
    add_provider("Good", "good", NULL, NULL);
    add_provider_ex("Slow", "slow_once", NULL, NULL, PL_ISOLATION_HELPER, 0, 200);
    pl_engine *e = engine();
    pl_block blk;
    int64_t t0 = ms_now();
    void *data = query(e, "Global", &blk);
    int64_t ms = ms_now() - t0;
    assert_true(ms >= 200);
    assert_true(ms < 1500);
    assert_int_equal(blk.hdr.NumObjectTypes, 1); /* Good only */
    free(data);
    assert_no_zombies();
    assert_enabled("Slow");
    int64_t t1 = ms_now();
    data = query(e, "Global", &blk); /* still sleeping: left out at once */
    assert_true(ms_now() - t1 < 150);
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    free(data);
    while (ms_now() - t0 < 2200) usleep(50000);
    data = query(e, "Global", &blk); /* it returned: dropped, asked again */
    assert_int_equal(blk.hdr.NumObjectTypes, 2);
    free(data);
    pl_provider_status ps = status_of(e, "Slow");
    assert_non_null(strstr(ps.last_error, "a late Collect returned after "));
    assert_non_null(strstr(ps.last_error, " ms (its timeout is 200 ms); its answer was dropped and the provider is asked "
                                          "again"));
    data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 2);
    free(data);
    assert_int_equal(traced("slow_once", "open", NULL, 0), 1); /* one helper all along */
    assert_int_equal(traced("slow_once", "collect", NULL, 0), 3);
    ps = status_of(e, "Slow");
    assert_int_equal(ps.errors, 1);
    assert_int_equal(ps.timeouts, 1);
    assert_int_equal(ps.late_ms, 0);
    assert_int_equal(ps.collects, 2);
    assert_int_equal(ps.disabled, 0);
    assert_enabled("Slow");
    pl_engine_close(e);
    assert_int_equal(traced("slow_once", "close", NULL, 0), 1);
    assert_int_equal(children(NULL), 0);
}

static void garbage_disables(const char *fake_mode, const char *reason)
{
    setenv("PERFLIB_PROVIDER_HOST", FAKE_HELPER, 1);
    setenv("FAKE_HELPER_MODE", fake_mode, 1);
    add_provider("Good", "good", NULL, NULL);
    add_provider_ex("Liar", "good", NULL, NULL, PL_ISOLATION_HELPER, 0, 200);
    pl_engine *e = engine();
    int64_t ms;
    for (unsigned i = 0; i < BREAKS_IN_ROW; i++) {
        assert_enabled("Liar");
        bad_isolated_query(e, &ms);
        assert_true(ms < 1500);
    }
    char full[400];
    snprintf(full, sizeof full, "%s (%u bad Collects in a row)", reason, BREAKS_IN_ROW);
    assert_disabled_exactly("Liar", full);
    assert_int_equal(status_of(e, "Liar").helper_pid, 0);
    pl_engine_close(e);
    assert_int_equal(children(NULL), 0);
}

static void iso_garbage_length(void **state)
{
    (void)state;
    garbage_disables("huge", "helper process sent a malformed reply during Collect: a Collect reply of 4294967280 "
                             "bytes for 16 bytes of data (flags 0x0)");
}

static void iso_garbage_type(void **state)
{
    (void)state;
    garbage_disables("type", "helper process sent a malformed reply during Collect: reply type 0x99 to request 3");
}

static void iso_garbage_data(void **state)
{
    (void)state;
    setenv("PERFLIB_PROVIDER_HOST", FAKE_HELPER, 1);
    setenv("FAKE_HELPER_MODE", "baddata", 1);
    add_provider("Good", "good", NULL, NULL);
    add_provider_ex("Liar", "good", NULL, NULL, PL_ISOLATION_HELPER, 0, 200);
    pl_engine *e = engine();
    int64_t ms;
    for (unsigned i = 0; i < BREAKS_IN_ROW; i++) bad_isolated_query(e, &ms);
    assert_disabled("Liar", "invalid data (1 objects): ");
    pl_engine_close(e);
    assert_int_equal(children(NULL), 0);
}

/* A helper that cannot be started: logged, retried next time, not disabled. */
static void iso_missing_helper(void **state)
{
    (void)state;
    setenv("PERFLIB_PROVIDER_HOST", "/nonexistent/perflib-provider-host", 1);
    add_provider("Good", "good", NULL, NULL);
    add_provider_ex("Iso", "good", NULL, NULL, PL_ISOLATION_HELPER, 0, 0);
    pl_engine *e = engine();
    int64_t ms;
    bad_isolated_query(e, &ms);
    bad_isolated_query(e, &ms);
    pl_provider_status ps = status_of(e, "Iso");
    assert_int_equal(ps.errors, 2);
    assert_string_equal(ps.last_error, "cannot start the helper /nonexistent/perflib-provider-host: No such file or "
                                       "directory; it will be tried again on the next query");
    assert_enabled("Iso");
    pl_engine_close(e);
    assert_int_equal(children(NULL), 0);
}

static void iso_missing_library(void **state)
{
    (void)state;
    add_provider("Good", "good", NULL, NULL);
    add_provider_ex("Ghost", "does_not_exist", NULL, NULL, PL_ISOLATION_HELPER, 0, 0);
    pl_engine *e = engine();
    int64_t ms;
    bad_isolated_query(e, &ms);
    pl_provider_status ps = status_of(e, "Ghost");
    assert_int_equal(ps.loaded, 0);
    assert_int_equal(ps.helper_pid, 0);
    assert_non_null(strstr(ps.last_error, "cannot load " TP_DIR "/libtp_does_not_exist.so: "));
    assert_enabled("Ghost");
    pl_engine_close(e);
    assert_int_equal(children(NULL), 0);
}

static void many_threads_isolated(void **state)
{
    (void)state;
    add_provider_ex("Good", "good", NULL, NULL, PL_ISOLATION_HELPER, 0, 0);
    pl_engine *e = engine();
    pthread_t th[4];
    worker w[4];
    for (int i = 0; i < 4; i++) {
        w[i].e = e;
        w[i].ok = 0;
        pthread_create(&th[i], NULL, run_worker, &w[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(w[i].ok, 50);
    }
    assert_int_equal(traced("good", "collect", NULL, 0), 200);
    assert_int_equal(traced("good", "overlap", NULL, 0), 0);
    assert_int_equal(traced("good", "open", NULL, 0), 1); /* one helper for all threads */
    assert_int_equal(children(NULL), 1);
    pl_engine_close(e);
    assert_int_equal(children(NULL), 0);
}

/* Built-in providers run in-process by default; a third party installed
 * with lodctr runs in a helper and answers through it. */
static void builtin_inproc_lodctr_isolated(void **state)
{
    (void)state;
    pl_error err;
    assert_int_equal(pl_store_enable_provider(fx.st, "PerfOS", &err), PL_OK);
    setenv("PERFLIB_REGISTRY", fx.store, 1); /* the hello provider reads its indices from the store */
    pl_lodctr_set *set = NULL;
    assert_int_equal(pl_lodctr_parse_ex(PL_SOURCE_DIR "/examples/hello/hello.ini", NULL, &set, &err), PL_OK);
    pl_lodctr_overrides ov;
    memset(&ov, 0, sizeof ov);
    ov.library = EXAMPLE_HELLO_SO;
    pl_install_result res;
    assert_int_equal(pl_lodctr_install(fx.st, set, &ov, &res, &err), PL_OK);
    pl_lodctr_free(set);
    pl_provider_info p;
    assert_int_equal(pl_store_provider(fx.st, "PerflibHello", &p, &err), PL_OK);
    assert_int_equal(p.isolation, PL_ISOLATION_HELPER);
    pl_provider_info_clear(&p);
    assert_int_equal(pl_store_provider(fx.st, "PerfOS", &p, &err), PL_OK);
    assert_int_equal(p.isolation, PL_ISOLATION_INPROC);
    pl_provider_info_clear(&p);

    pl_engine_config cfg = {.store_path = fx.store, .system_name = "TESTBOX", .log_to_syslog = 0};
    pl_engine *e = NULL;
    assert_int_equal(pl_engine_open(&cfg, &e, &err), PL_OK);
    pl_block blk;
    void *data = query(e, "Global", &blk);
    pl_object o;
    assert_int_equal(pl_block_find_object(&blk, 2, &o), PL_OK); /* System, from PerfOS */
    assert_int_equal(pl_block_find_object(&blk, res.first_counter, &o), PL_OK); /* Hello */
    free(data);
    pl_provider_status hello = status_of(e, "PerflibHello"), os = status_of(e, "PerfOS");
    assert_int_equal(hello.isolation, PL_ISOLATION_HELPER);
    assert_true(hello.helper_pid > 0);
    assert_true(hello.helper_pid != (int)getpid());
    assert_int_equal(hello.loaded, 1);
    assert_int_equal(hello.opened, 1);
    assert_int_equal(hello.collects, 1);
    assert_int_equal(os.isolation, PL_ISOLATION_INPROC);
    assert_int_equal(os.helper_pid, 0);
    assert_int_equal(os.loaded, 1);
    assert_int_equal(children(NULL), 1);
    /* the helper is really a separate process running our provider */
    char exe[300], link[512];
    snprintf(exe, sizeof exe, "/proc/%d/exe", hello.helper_pid);
    ssize_t n = readlink(exe, link, sizeof link - 1);
    assert_true(n > 0);
    link[n] = '\0';
    assert_string_equal(link, PROVIDER_HOST);
    pl_engine_close(e);
    assert_int_equal(children(NULL), 0);
}

/* SIGPIPE: a helper gone between queries (killed from outside) does not
 * kill the consumer; the next query finds it dead and disables. */
static void iso_helper_killed_between_queries(void **state)
{
    (void)state;
    add_provider("Good", "good", NULL, NULL);
    add_provider_ex("Victim", "collect_error", NULL, NULL, PL_ISOLATION_HELPER, 0, 0);
    pl_engine *e = engine();
    int64_t ms;
    pl_block blk;
    free(query(e, "Global", &blk));
    pl_provider_status ps = status_of(e, "Victim");
    assert_true(ps.helper_pid > 0);
    assert_int_equal(kill(ps.helper_pid, SIGTERM), 0);
    if (pl_wait_exit(ps.helper_pid, 10000) != 0) fail_msg("the helper %d outlived SIGTERM by 10 s", ps.helper_pid);
    bad_isolated_query(e, &ms);
    /* one crash is one bad Collect (issue 33): reported, not disabled, and a
     * new helper answers the next query */
    assert_enabled("Victim");
    ps = status_of(e, "Victim");
    assert_int_equal(ps.disabled, 0);
    assert_non_null(strstr(ps.last_error, "helper process killed by signal 15 (SIGTERM) during Collect"));
    bad_isolated_query(e, &ms);
    assert_true(status_of(e, "Victim").helper_pid > 0);
    assert_enabled("Victim");
    pl_engine_close(e);
    assert_int_equal(children(NULL), 0);
}


/* ------------------------------------------------------------------------
 * Adversarial review: providers that break the contract in new ways, the
 * retry slot, the system name, query strings, the block header. */

/* *data set to an address far from the buffer: the host computed the move
 * as a signed pointer difference, which overflows (undefined behaviour;
 * UBSan aborts the host, or the helper, which then looked like a crash). */
static void wild_pointer(void **s) { (void)s; contract_breaks_disable("wild_pointer", "pointer returned did not match"); }
static void iso_wild_pointer(void **s) { (void)s; contract_breaks_disable_isolated("wild_pointer", "pointer returned did not match"); }
static void huge_object_count(void **s) { (void)s; contract_breaks_disable("huge_objects", "invalid data (4294967295 objects)"); }
static void iso_huge_object_count(void **s) { (void)s; contract_breaks_disable_isolated("huge_objects", "invalid data (4294967295 objects)"); }
static void straddling_block(void **s) { (void)s; contract_breaks_disable("straddle", "runs past the end of the data"); }
static void iso_straddling_block(void **s) { (void)s; contract_breaks_disable_isolated("straddle", "runs past the end of the data"); }

/* Half an object written, then ERROR_MORE_DATA (bytes 0, pointer kept): that
 * is within the contract; the buffer grows and the answer is whole. */
static void partial_then_more_data_in(int isolation)
{
    add_provider_ex("Partial", "partial_more", NULL, NULL, isolation, 0, 0);
    pl_engine *e = engine();
    pl_block blk;
    void *data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    /* 64K and 128K are refused, 256K answers: the third call, value 42 + 3. */
    assert_int_equal(value_of(&blk, 86, -1), 45);
    free(data);
    assert_int_equal(traced("partial_more", "collect", NULL, 0), 3);
    assert_enabled("Partial");
    pl_engine_close(e);
}
static void partial_then_more_data(void **s) { (void)s; partial_then_more_data_in(PL_ISOLATION_INPROC); }
static void iso_partial_then_more_data(void **s) { (void)s; partial_then_more_data_in(PL_ISOLATION_HELPER); }

/* 150,000 valid objects, the first with 30,000 definitions that are not all
 * 40 bytes: the host's index check and the engine's parent search looked
 * objects and definitions up by position, O(n^2): minutes of CPU in the
 * consumer, even with the provider isolated. */
static void many_objects_in(int isolation)
{
    add_provider_ex("Many", "many_objects", NULL, NULL, isolation, 0, 20000);
    pl_engine *e = engine();
    int64_t t0 = ms_now();
    pl_block blk;
    void *data = query(e, "Global", &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 150000);
    free(data);
    data = query(e, "86", &blk); /* an index query also looks for missing parents */
    assert_int_equal(blk.hdr.NumObjectTypes, 150000);
    pl_object o;
    assert_int_equal(pl_block_object(&blk, 0, &o), PL_OK);
    assert_int_equal(o.hdr.NumCounters, 30000);
    free(data);
    int64_t dt = ms_now() - t0;
    if (dt > 8000) fprintf(stderr, "took %lld ms\n", (long long)dt);
    assert_true(dt < 8000);
    assert_enabled("Many");
    pl_engine_close(e);
}
static void many_objects_linear(void **s) { (void)s; many_objects_in(PL_ISOLATION_INPROC); }
static void iso_many_objects_linear(void **s) { (void)s; many_objects_in(PL_ISOLATION_HELPER); }

/* The retry slot: a thread's kept answer survives another thread's
 * MORE_DATA on the same query, and serves only the thread's next call. */
typedef struct prober {
    pl_engine *e;
    const char *q;
    size_t cap;
    int rc;
    size_t need;
    uint8_t *buf;
} prober;

static void *probe(void *arg)
{
    prober *p = arg;
    pl_error err;
    p->rc = pl_engine_query(p->e, p->q, p->buf, p->cap, &p->need, NULL, &err);
    return NULL;
}

static void run_probe(prober *p)
{
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, probe, p), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
}

static void retry_slot_per_thread(void **state)
{
    (void)state;
    add_provider("Good", "good", NULL, NULL);
    tp t = tp_get("good");
    pl_engine *e = engine();
    size_t need = 0;
    pl_error err;
    /* This thread learns the size (collect 1, value 43) ... */
    assert_int_equal(pl_engine_query(e, "Global", NULL, 0, &need, NULL, &err), PL_E_MORE_DATA);
    /* ... another thread does the same meanwhile (collect 2, value 44) ... */
    prober other = {.e = e, .q = "Global"};
    run_probe(&other);
    assert_int_equal(other.rc, PL_E_MORE_DATA);
    assert_int_equal(*t.collect_calls, 2);
    /* ... and this thread's retry still gets its own answer, no third collect. */
    uint8_t *buf = malloc(need);
    size_t need2 = 0;
    assert_int_equal(pl_engine_query(e, "Global", buf, need, &need2, NULL, &err), PL_OK);
    assert_int_equal(need2, need);
    assert_int_equal(*t.collect_calls, 2);
    pl_block blk;
    assert_int_equal(pl_block_open(&blk, buf, need, 0, 0, &err), PL_OK);
    assert_int_equal(value_of(&blk, 86, -1), 43);
    free(buf);
    /* The other thread has exited without retrying: its answer is bounded
     * (one slot) and freed at close (ASan's leak check). */
    pl_engine_close(e);
    dlclose(t.dl);
}

static void retry_slot_never_stale(void **state)
{
    (void)state;
    add_provider("Good", "good", NULL, NULL);
    tp t = tp_get("good");
    pl_engine *e = engine();
    size_t need = 0;
    pl_error err;
    pl_block blk;
    /* Size probe (collect 1), then another query (collect 2), then the first
     * query again with room: a fresh answer (collect 3), not the probe's. */
    assert_int_equal(pl_engine_query(e, "Global", NULL, 0, &need, NULL, &err), PL_E_MORE_DATA);
    free(query(e, "86", &blk));
    uint8_t *buf = malloc(need + 64);
    size_t need2 = 0;
    assert_int_equal(pl_engine_query(e, "Global", buf, need + 64, &need2, NULL, &err), PL_OK);
    assert_int_equal(*t.collect_calls, 3);
    assert_int_equal(pl_block_open(&blk, buf, need2, 0, 0, &err), PL_OK);
    assert_int_equal(value_of(&blk, 86, -1), 45);
    /* A retry that comes too late is a new collection too. */
    assert_int_equal(pl_engine_query(e, "Global", NULL, 0, &need, NULL, &err), PL_E_MORE_DATA);
    assert_int_equal(*t.collect_calls, 4);
    struct timespec nap = {1, 200 * 1000 * 1000}; /* > PL_ENGINE_RETRY_MS */
    nanosleep(&nap, NULL);
    assert_int_equal(pl_engine_query(e, "Global", buf, need + 64, &need2, NULL, &err), PL_OK);
    assert_int_equal(*t.collect_calls, 5);
    /* A second short retry does not make the kept answer younger or
     * different: the same bytes each time, one collection. */
    assert_int_equal(pl_engine_query(e, "Global", NULL, 0, &need, NULL, &err), PL_E_MORE_DATA);
    assert_int_equal(pl_engine_query(e, "Global", buf, 8, &need2, NULL, &err), PL_E_MORE_DATA);
    assert_int_equal(need2, need);
    assert_int_equal(pl_engine_query(e, "Global", buf, need, &need2, NULL, &err), PL_OK);
    assert_int_equal(*t.collect_calls, 6);
    free(buf);
    /* Many threads that never retry: at most PL_ENGINE_RETRY_SLOTS kept. */
    for (int i = 0; i < PL_ENGINE_RETRY_SLOTS + 4; i++) {
        prober p = {.e = e, .q = "Global"};
        run_probe(&p);
        assert_int_equal(p.rc, PL_E_MORE_DATA);
    }
    pl_engine_close(e);
    dlclose(t.dl);
}

/* An explicit system name is cut at a character boundary (cutting a
 * character in two made every data query fail writing the header), and one
 * that is not UTF-8 is refused at open. */
static void system_name_utf8_boundary(void **state)
{
    (void)state;
    char name[300];
    pl_engine_config cfg = {.store_path = fx.store, .provider_dir = TP_DIR, .system_name = name,
                            .log_to_syslog = 0};
    pl_engine *e = NULL;
    pl_error err;
    pl_block blk;
    void *data;
    /* 62 bytes + a 2-byte character: the old 64-byte buffer kept half of it,
     * and every data query then failed with PL_E_ENCODING. */
    memset(name, 'B', 62);
    memcpy(name + 62, "\xC3\xA9", 3);
    assert_int_equal(pl_engine_open(&cfg, &e, &err), PL_OK);
    data = query(e, "Global", &blk);
    assert_string_equal(blk.system_name + 62, "\xC3\xA9");
    free(data);
    pl_engine_close(e);
    /* 254 + a 2-byte character does not fit 255 bytes: cut before it. */
    memset(name, 'A', 254);
    memcpy(name + 254, "\xC3\xA9", 3);
    assert_int_equal(pl_engine_open(&cfg, &e, &err), PL_OK);
    data = query(e, "Global", &blk);
    assert_int_equal(strlen(blk.system_name), 254);
    assert_int_equal(blk.hdr.SystemNameLength, 255 * 2);
    free(data);
    pl_engine_close(e);
    cfg.system_name = "BAD\xFFNAME";
    e = NULL;
    assert_int_equal(pl_engine_open(&cfg, &e, &err), PL_E_INVAL);
    assert_null(e);
    assert_non_null(strstr(err.msg, "system_name"));
}

/* Without a configured name, the block has the NetBIOS form of the host
 * name: up to the first dot, upper case, at most 15 characters. Runs in a
 * UTS namespace of its own (root only; skipped otherwise). */
static void default_system_name_netbios(void **state)
{
    (void)state;
    if (unshare(CLONE_NEWUTS) != 0) pl_skip("no UTS namespace of its own here (needs root)");
    static const struct {
        const char *host, *want;
    } cases[] = {
        {"averyveryverylonghostname.example.org", "AVERYVERYVERYLO"},
        {"web-01.example.org", "WEB-01"},
        {"exactly15chars0", "EXACTLY15CHARS0"},
        {"caf\xC3\xA9-server-with-long-name", "CAF\xC3\xA9-SERVER-WIT"},
        {"bad\xFFhost", "BAD_HOST"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(sethostname(cases[i].host, strlen(cases[i].host)), 0);
        pl_engine_config cfg = {.store_path = fx.store, .provider_dir = TP_DIR, .log_to_syslog = 0};
        pl_engine *e = NULL;
        pl_error err;
        assert_int_equal(pl_engine_open(&cfg, &e, &err), PL_OK);
        pl_block blk;
        void *data = query(e, "Global", &blk);
        assert_string_equal(blk.system_name, cases[i].want);
        free(data);
        pl_engine_close(e);
    }
}

/* Title queries with the language written in other widths mean the same
 * language; a language the store lacks is PL_E_NOT_FOUND however written
 * (before, "Counter 7" silently gave the default language while "Counter
 * 007" was PL_E_NOT_FOUND, and "Counter 0009" was not found). */
static void title_language_forms(void **state)
{
    (void)state;
    pl_engine *e = engine();
    void *ref;
    size_t reflen;
    uint32_t type;
    pl_error err;
    assert_int_equal(pl_engine_query_alloc(e, "Counter 009", &ref, &reflen, &type, &err), PL_OK);
    const char *same[] = {"Counter 9", "Counter 09", "Counter 0009", "counter009", "COUNTER\t009", "Counter 009\r\n",
                          " counter 9 ", "Counter", "cOuNtErwine", "Countera"};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        void *data;
        size_t len;
        int rc = pl_engine_query_alloc(e, same[i], &data, &len, &type, &err);
        if (rc != PL_OK) fprintf(stderr, "\"%s\": %s\n", same[i], err.msg);
        assert_int_equal(rc, PL_OK);
        assert_int_equal(type, PL_REG_MULTI_SZ);
        assert_int_equal(len, reflen);
        assert_memory_equal(data, ref, len);
        free(data);
    }
    const char *missing[] = {"Counter 7", "Counter 007", "Counter 0007", "Explain 7", "Counter 123456789",
                             "Counter 10000"};
    for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++) {
        void *data = NULL;
        size_t len;
        int rc = pl_engine_query_alloc(e, missing[i], &data, &len, &type, &err);
        if (rc != PL_E_NOT_FOUND) fprintf(stderr, "\"%s\": rc %d\n", missing[i], rc);
        assert_int_equal(rc, PL_E_NOT_FOUND);
    }
    free(ref);
    pl_engine_close(e);
}

/* Data query strings a demanding user sends: whitespace of any kind between
 * indices, 10,000 indices, non-ASCII, Foreign. */
static void odd_query_strings(void **state)
{
    (void)state;
    add_provider("Good", "good", "86", NULL);
    tp t = tp_get("good");
    pl_engine *e = engine();
    pl_block blk;
    void *data;
    const char *one[] = {"86", "86\n", "86\r\n", "\t86\t", "238\n86", "86 86 86"};
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
        data = query(e, one[i], &blk);
        assert_int_equal(blk.hdr.NumObjectTypes, 1);
        free(data);
    }
    assert_string_equal(t.last_query, "86");
    const char *none[] = {"\xE2\x80\x8A\x38\x36", "８６", "86x", "0", "-86", "4294967296", "ABCD"};
    int calls = *t.collect_calls;
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        data = query(e, none[i], &blk);
        assert_int_equal(blk.hdr.NumObjectTypes, 0);
        assert_int_equal(blk.hdr.TotalByteLength, blk.hdr.HeaderLength);
        free(data);
    }
    assert_int_equal(*t.collect_calls, calls); /* no provider asked */
    /* 10,000 distinct indices: the first PL_QUERY_MAX_ITEMS (256) count. */
    char *big = malloc(10000 * 7);
    size_t w = 0;
    for (int i = 0; i < 10000; i++) w += (size_t)snprintf(big + w, 8, "%d ", 1000 + i);
    big[w] = '\0';
    data = query(e, big, &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 0); /* 86 is not among them */
    free(data);
    memcpy(big, "86  ", 4); /* first: asked */
    data = query(e, big, &blk);
    assert_int_equal(blk.hdr.NumObjectTypes, 1);
    free(data);
    free(big);
    /* Foreign goes to the remote client (tests/remote): a machine that does
     * not answer is an error, never a local block; no provider asked. */
    void *d2 = NULL;
    size_t len;
    uint32_t type;
    pl_error err;
    calls = *t.collect_calls;
    setenv("PERFLIB_REMOTE_CONFIG", "/dev/null", 1); /* no client configuration from the machine */
    assert_int_equal(pl_engine_query_alloc(e, "Foreign 127.0.0.1:1 238", &d2, &len, &type, &err), PL_E_REMOTE);
    assert_null(d2);
    assert_int_equal(pl_engine_query_alloc(e, "Foreign", &d2, &len, &type, &err), PL_E_PARSE);
    assert_null(d2);
    assert_int_equal(*t.collect_calls, calls);
    pl_engine_close(e);
    dlclose(t.dl);
}

/* SYSTEMTIME and PerfTime100nSec describe the same instant (to the
 * millisecond), the day of week matches the date, PerfTime is
 * CLOCK_MONOTONIC in 100 ns and never goes back, the header is 8-aligned. */
static int64_t systemtime_to_filetime(const SYSTEMTIME *st, int *dow)
{
    /* days from civil (proleptic Gregorian) */
    int y = st->wYear, m = st->wMonth, d = st->wDay;
    y -= m <= 2;
    int era = (y >= 0 ? y : y - 399) / 400;
    int yoe = y - era * 400;
    int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = (int64_t)era * 146097 + doe - 719468;
    *dow = (int)((days % 7 + 11) % 7); /* 1970-01-01 was a Thursday (4) */
    int64_t secs = days * 86400 + st->wHour * 3600 + st->wMinute * 60 + st->wSecond;
    return 116444736000000000LL + secs * 10000000LL + (int64_t)st->wMilliseconds * 10000;
}

static void header_times_consistent(void **state)
{
    (void)state;
    add_provider("Good", "good", NULL, NULL);
    pl_engine *e = engine();
    int64_t last_perf = 0;
    for (int i = 0; i < 20; i++) {
        struct timespec m0, m1;
        clock_gettime(CLOCK_MONOTONIC, &m0);
        pl_block blk;
        void *data = query(e, i % 2 ? "86" : "Global", &blk);
        clock_gettime(CLOCK_MONOTONIC, &m1);
        const PERF_DATA_BLOCK *h = &blk.hdr;
        int dow = -1;
        int64_t ft = systemtime_to_filetime(&h->SystemTime, &dow);
        assert_int_equal(ft, h->PerfTime100nSec.QuadPart / 10000 * 10000);
        assert_int_equal(dow, h->SystemTime.wDayOfWeek);
        assert_true(h->SystemTime.wMilliseconds < 1000);
        assert_true(h->SystemTime.wMonth >= 1 && h->SystemTime.wMonth <= 12);
        int64_t lo = (int64_t)m0.tv_sec * 10000000 + m0.tv_nsec / 100;
        int64_t hi = (int64_t)m1.tv_sec * 10000000 + m1.tv_nsec / 100;
        assert_true(h->PerfTime.QuadPart >= lo && h->PerfTime.QuadPart <= hi);
        assert_true(h->PerfTime.QuadPart >= last_perf);
        last_perf = h->PerfTime.QuadPart;
        assert_int_equal(h->HeaderLength % 8, 0);
        assert_int_equal(h->TotalByteLength % 8, 0);
        free(data);
    }
    pl_engine_close(e);
}


/* Many threads x several providers (in-process and isolated), with status,
 * title and retry-slot calls mixed in: every answer whole, no provider ever
 * entered twice at once. Run under -fsanitize=thread too (docs). */
typedef struct mixer {
    pl_engine *e;
    int id, ok;
} mixer;

static void *run_mixer(void *arg)
{
    mixer *m = arg;
    static const char *qs[] = {"Global", "232", "86", "Counter 009", "230 232"};
    for (int i = 0; i < 40; i++) {
        const char *q = qs[(i + m->id) % 5];
        size_t need = 0;
        pl_error err;
        uint32_t type = 0;
        int rc = pl_engine_query(m->e, q, NULL, 0, &need, &type, &err);
        if (rc != PL_E_MORE_DATA) continue;
        uint8_t *buf = malloc(need);
        size_t got = 0;
        rc = pl_engine_query(m->e, q, buf, need, &got, &type, &err);
        pl_block blk;
        if (rc == PL_OK && got == need &&
            (type == PL_REG_MULTI_SZ || pl_block_open(&blk, buf, got, 0, 0, NULL) == PL_OK))
            m->ok++;
        free(buf);
        pl_provider_status *st;
        size_t n;
        if (pl_engine_provider_status(m->e, &st, &n) == PL_OK) pl_free(st);
        (void)pl_engine_titles(m->e, NULL);
    }
    return NULL;
}

static void many_threads_many_providers(void **state)
{
    (void)state;
    add_provider("Good", "good", NULL, NULL);
    add_provider("Parent", "parent", "230", NULL);
    add_provider_ex("Child", "child", "232", NULL, PL_ISOLATION_HELPER, 0, 0);
    tp g = tp_get("good"), pa = tp_get("parent");
    pl_engine *e = engine();
    enum { T = 6 };
    pthread_t th[T];
    mixer m[T];
    for (int i = 0; i < T; i++) {
        m[i] = (mixer){.e = e, .id = i};
        assert_int_equal(pthread_create(&th[i], NULL, run_mixer, &m[i]), 0);
    }
    for (int i = 0; i < T; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        assert_int_equal(m[i].ok, 40);
    }
    assert_int_equal(*g.overlaps, 0);
    assert_int_equal(*pa.overlaps, 0);
    assert_int_equal(traced("child", "overlap", NULL, 0), 0);
    assert_int_equal(*g.open_calls, 1);
    assert_int_equal(traced("child", "open", NULL, 0), 1);
    assert_enabled("Good");
    assert_enabled("Parent");
    assert_enabled("Child");
    pl_engine_close(e);
    assert_int_equal(children(NULL), 0);
    dlclose(g.dl);
    dlclose(pa.dl);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(global_block_header, setup, teardown),
        cmocka_unit_test_setup_teardown(exact_size_contract, setup, teardown),
        cmocka_unit_test_setup_teardown(good_collect_resets_breaks, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_good_collect_resets_breaks, setup, teardown),
        cmocka_unit_test_setup_teardown(wrong_byte_count, setup, teardown),
        cmocka_unit_test_setup_teardown(pointer_not_advanced, setup, teardown),
        cmocka_unit_test_setup_teardown(misaligned_size, setup, teardown),
        cmocka_unit_test_setup_teardown(corrupt_object, setup, teardown),
        cmocka_unit_test_setup_teardown(endless_more_data, setup, teardown),
        cmocka_unit_test_setup_teardown(index_out_of_range, setup, teardown),
        cmocka_unit_test_setup_teardown(buffer_overrun, setup, teardown),
        cmocka_unit_test_setup_teardown(wrong_object_count, setup, teardown),
        cmocka_unit_test_setup_teardown(more_data_with_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(endless_more_data_is_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(open_error_retried, setup, teardown),
        cmocka_unit_test_setup_teardown(collect_error_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(buffer_grows, setup, teardown),
        cmocka_unit_test_setup_teardown(object_list_routes_queries, setup, teardown),
        cmocka_unit_test_setup_teardown(child_brings_parent, setup, teardown),
        cmocka_unit_test_setup_teardown(title_queries, setup, teardown),
        cmocka_unit_test_setup_teardown(many_threads_one_provider, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_library_skipped, setup, teardown),
        cmocka_unit_test_setup_teardown(nonblocking_collect_on_caller_thread, setup, teardown),
        cmocka_unit_test_setup_teardown(without_nonblocking_collect_on_worker, setup, teardown),
        cmocka_unit_test_setup_teardown(provider_note_in_status, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_wrong_byte_count, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_pointer_not_advanced, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_misaligned_size, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_corrupt_object, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_endless_more_data, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_index_out_of_range, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_buffer_overrun, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_wrong_object_count, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_more_data_with_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_endless_more_data_is_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_open_error_retried, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_no_close_after_failed_open, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_dllmain_and_destructors, setup, teardown),
        cmocka_unit_test_setup_teardown(dllmain_in_process, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_collect_error_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_buffer_grows, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_query_text_and_routing, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_crash, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_exit, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_hang, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_hang_open, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_slow_once, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_garbage_length, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_garbage_type, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_garbage_data, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_missing_helper, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_missing_library, setup, teardown),
        cmocka_unit_test_setup_teardown(many_threads_isolated, setup, teardown),
        cmocka_unit_test_setup_teardown(builtin_inproc_lodctr_isolated, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_helper_killed_between_queries, setup, teardown),
        cmocka_unit_test_setup_teardown(wild_pointer, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_wild_pointer, setup, teardown),
        cmocka_unit_test_setup_teardown(huge_object_count, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_huge_object_count, setup, teardown),
        cmocka_unit_test_setup_teardown(straddling_block, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_straddling_block, setup, teardown),
        cmocka_unit_test_setup_teardown(partial_then_more_data, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_partial_then_more_data, setup, teardown),
        cmocka_unit_test_setup_teardown(many_objects_linear, setup, teardown),
        cmocka_unit_test_setup_teardown(iso_many_objects_linear, setup, teardown),
        cmocka_unit_test_setup_teardown(retry_slot_per_thread, setup, teardown),
        cmocka_unit_test_setup_teardown(retry_slot_never_stale, setup, teardown),
        cmocka_unit_test_setup_teardown(system_name_utf8_boundary, setup, teardown),
        cmocka_unit_test_setup_teardown(default_system_name_netbios, setup, teardown),
        cmocka_unit_test_setup_teardown(title_language_forms, setup, teardown),
        cmocka_unit_test_setup_teardown(odd_query_strings, setup, teardown),
        cmocka_unit_test_setup_teardown(header_times_consistent, setup, teardown),
        cmocka_unit_test_setup_teardown(many_threads_many_providers, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
