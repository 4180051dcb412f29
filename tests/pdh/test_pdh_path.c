/* Counter path vectors: parse (split), PdhParseCounterPath-style buffers,
 * make, and every malformed form with its exact status code. */
#include <stdlib.h>
#include <string.h>

#include "pdh_internal.h"
#include "pl_test.h"

typedef struct vec {
    const char *path;
    uint32_t status;          /* of pl__pdh_split (add/validate status) */
    const char *machine, *object, *parent, *instance;
    uint32_t index;
    const char *counter;
    int iw, pw, cw;
} vec;

#define OK PL_PDH_CSTATUS_VALID_DATA
#define BAD PL_PDH_CSTATUS_BAD_COUNTERNAME

static const vec vectors[] = {
    {"\\Memory\\Available Bytes", OK, NULL, "Memory", NULL, NULL, 0, "Available Bytes", 0, 0, 0},
    {"\\Processor(_Total)\\% Processor Time", OK, NULL, "Processor", NULL, "_Total", 0, "% Processor Time", 0, 0, 0},
    {"\\\\HOST\\Memory\\Pages/sec", OK, "HOST", "Memory", NULL, NULL, 0, "Pages/sec", 0, 0, 0},
    {"\\\\host.example\\Processor(0)\\% User Time", OK, "host.example", "Processor", NULL, "0", 0, "% User Time", 0, 0, 0},
    {"\\Thread(explorer/3)\\ID Thread", OK, NULL, "Thread", "explorer", "3", 0, "ID Thread", 0, 0, 0},
    {"\\Thread(explorer/3#2)\\ID Thread", OK, NULL, "Thread", "explorer", "3", 2, "ID Thread", 0, 0, 0},
    {"\\Process(svchost#1)\\ID Process", OK, NULL, "Process", NULL, "svchost", 1, "ID Process", 0, 0, 0},
    {"\\Process(svchost#0)\\ID Process", OK, NULL, "Process", NULL, "svchost", 0, "ID Process", 0, 0, 0},
    {"\\Process(svchost#12)\\ID Process", OK, NULL, "Process", NULL, "svchost", 12, "ID Process", 0, 0, 0},
    {"\\\\M\\Thread(p/i#4)\\C", OK, "M", "Thread", "p", "i", 4, "C", 0, 0, 0},
    {"\\Process(*)\\% Processor Time", OK, NULL, "Process", NULL, "*", 0, "% Processor Time", 1, 0, 0},
    {"\\Thread(*/*)\\ID Thread", OK, NULL, "Thread", "*", "*", 0, "ID Thread", 1, 1, 0},
    {"\\Thread(explorer/*)\\ID Thread", OK, NULL, "Thread", "explorer", "*", 0, "ID Thread", 1, 0, 0},
    {"\\Thread(*/0)\\ID Thread", OK, NULL, "Thread", "*", "0", 0, "ID Thread", 0, 1, 0},
    {"\\Processor(*)\\*", OK, NULL, "Processor", NULL, "*", 0, "*", 1, 0, 1},
    {"\\Memory\\*", OK, NULL, "Memory", NULL, NULL, 0, "*", 0, 0, 1},
    {"\\Process(pro*)\\ID Process", OK, NULL, "Process", NULL, "pro*", 0, "ID Process", 1, 0, 0},
    {"\\Process(*host)\\ID Process", OK, NULL, "Process", NULL, "*host", 0, "ID Process", 1, 0, 0},
    {"\\Thread(ex*/1)\\ID Thread", OK, NULL, "Thread", "ex*", "1", 0, "ID Thread", 0, 1, 0},
    /* issue 11 item 9: a name that itself ends in "#digits" spells its
     * index, also #0, so make -> parse gives it back */
    {"\\Process(x#1#0)\\ID Process", OK, NULL, "Process", NULL, "x#1", 0, "ID Process", 0, 0, 0},
    {"\\Process(x#1#2)\\ID Process", OK, NULL, "Process", NULL, "x#1", 2, "ID Process", 0, 0, 0},
    {"\\Process(x#1)\\ID Process", OK, NULL, "Process", NULL, "x", 1, "ID Process", 0, 0, 0},
    /* parentheses inside the instance: the LAST ')' before the counter's '\' ends it */
    {"\\Process(foo (1))\\ID Process", OK, NULL, "Process", NULL, "foo (1)", 0, "ID Process", 0, 0, 0},
    {"\\Network Interface(Intel(R) PRO_1000)\\Bytes Total/sec", OK, NULL, "Network Interface", NULL,
     "Intel(R) PRO_1000", 0, "Bytes Total/sec", 0, 0, 0},
    {"\\LogicalDisk(C:\\mnt)\\% Free Space", OK, NULL, "LogicalDisk", NULL, "C:\\mnt", 0, "% Free Space", 0, 0, 0},
    /* a '#' not followed by digits only is part of the name */
    {"\\Network Interface(eth#a)\\Bytes Total/sec", OK, NULL, "Network Interface", NULL, "eth#a", 0, "Bytes Total/sec", 0, 0, 0},
    /* '(' only in the counter: no instance */
    {"\\Memory\\Cache Bytes (peak)", OK, NULL, "Memory", NULL, NULL, 0, "Cache Bytes (peak)", 0, 0, 0},
    /* '/' inside a parent-less name splits: the matcher joins them again */
    {"\\Process(kworker/0:1)\\ID Process", OK, NULL, "Process", "kworker", "0:1", 0, "ID Process", 0, 0, 0},
    /* a '/' without text on both sides does not split: Linux names like a
     * mount point "/", a swap file "/dev/sda2" or "p/" are whole instances */
    {"\\LogicalDisk(/)\\% Free Space", OK, NULL, "LogicalDisk", NULL, "/", 0, "% Free Space", 0, 0, 0},
    {"\\Paging File(/dev/sda2)\\% Usage", OK, NULL, "Paging File", NULL, "/dev/sda2", 0, "% Usage", 0, 0, 0},
    {"\\Thread(/3)\\ID Thread", OK, NULL, "Thread", NULL, "/3", 0, "ID Thread", 0, 0, 0},
    {"\\Thread(p/)\\ID Thread", OK, NULL, "Thread", NULL, "p/", 0, "ID Thread", 0, 0, 0},
    {"\\LogicalDisk(sda//home#1)\\Free Megabytes", OK, NULL, "LogicalDisk", "sda", "/home", 1, "Free Megabytes", 0, 0, 0},
    /* malformed */
    {"Memory\\Available Bytes", BAD, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0},
    {"\\Memory", BAD, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0},
    {"\\Memory\\", BAD, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0},
    {"\\\\HOST", BAD, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0},
    {"\\\\HOST\\Memory", BAD, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0},
    {"\\\\\\Memory\\Available Bytes", BAD, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0},
    {"\\\\Memory\\Available Bytes", BAD, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0}, /* machine "Memory", no counter */
    {"\\\\Available Bytes", BAD, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0},
    {"\\Processor(_Total\\% Processor Time", BAD, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0},
    {"\\Processor(_Total)x\\% Processor Time", BAD, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0},
    {"\\Processor()\\% Processor Time", BAD, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0},
    /* "#digits" with nothing before it is a name, not an index of nothing */
    {"\\Process(#3)\\ID Process", OK, NULL, "Process", NULL, "#3", 0, "ID Process", 0, 0, 0},
    {"\\(x)\\C", BAD, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0},
    {"\\\\C", BAD, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0},
    /* issue 11 item 10: partial wildcards in the instance and parent, as
     * Windows PDH accepts them; no "#n" after one */
    {"\\Process(svc*#1)\\ID Process", BAD, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0},
    {"\\Processor(_Total)\\% Proc*", BAD, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0},
    {"\\*\\Available Bytes", BAD, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0},
    {"\\\\*\\Memory\\Available Bytes", BAD, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0},
    {"\\Mem)ory\\Available Bytes", BAD, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0},
    {"\\Process(x#99999999999)\\ID Process", BAD, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0},
    {"", PL_PDH_INVALID_ARGUMENT, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0},
};

static void eq_or_null(const char *got, const char *want, const char *path)
{
    if (!want) {
        if (got) { print_error("%s: got \"%s\", want NULL\n", path, got); fail(); }
        return;
    }
    if (!got || strcmp(got, want)) { print_error("%s: got \"%s\", want \"%s\"\n", path, got ? got : "(null)", want); fail(); }
}

static void split_vectors(void **state)
{
    (void)state;
    assert_true(sizeof vectors / sizeof vectors[0] >= 30);
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        const vec *v = &vectors[i];
        pl__pdh_path p;
        pl_error err = {0};
        uint32_t st = pl__pdh_split(v->path, &p, &err);
        if (st != v->status) { print_error("%s: status 0x%08x want 0x%08x\n", v->path, st, v->status); fail(); }
        if (st) {
            assert_true(err.msg[0] != '\0');
            assert_int_equal((uint32_t)err.status, st);
            continue;
        }
        eq_or_null(p.e.machine, v->machine, v->path);
        eq_or_null(p.e.object, v->object, v->path);
        eq_or_null(p.e.parent, v->parent, v->path);
        eq_or_null(p.e.instance, v->instance, v->path);
        eq_or_null(p.e.counter, v->counter, v->path);
        assert_int_equal(p.e.index, v->index);
        assert_int_equal(p.inst_wild, v->iw);
        assert_int_equal(p.parent_wild, v->pw);
        assert_int_equal(p.counter_wild, v->cw);
        free(p.mem);
    }
    pl__pdh_path p;
    assert_int_equal(pl__pdh_split(NULL, &p, NULL), PL_PDH_INVALID_ARGUMENT);
}

static void parse_buffer_contract(void **state)
{
    (void)state;
    const char *path = "\\\\HOST\\Thread(explorer/3#2)\\ID Thread";
    size_t need = 0;
    assert_int_equal(pl_pdh_parse_path(path, NULL, &need, NULL), PL_PDH_MORE_DATA);
    size_t want = sizeof(pl_pdh_path_elements) + 5 + 7 + 9 + 2 + 10;
    assert_int_equal(need, want);
    unsigned char *buf = malloc(need + 64);
    memset(buf, 0xAB, need + 64);
    size_t small = need - 1;
    assert_int_equal(pl_pdh_parse_path(path, buf, &small, NULL), PL_PDH_MORE_DATA);
    assert_int_equal(small, need);
    assert_int_equal(buf[0], 0xAB); /* nothing written */
    size_t big = need + 64;
    assert_int_equal(pl_pdh_parse_path(path, buf, &big, NULL), 0);
    assert_int_equal(big, need); /* bytes actually used */
    const pl_pdh_path_elements *e = (const pl_pdh_path_elements *)buf;
    assert_string_equal(e->machine, "HOST");
    assert_string_equal(e->object, "Thread");
    assert_string_equal(e->parent, "explorer");
    assert_string_equal(e->instance, "3");
    assert_int_equal(e->index, 2);
    assert_string_equal(e->counter, "ID Thread");
    /* strings live inside the buffer */
    assert_true((const unsigned char *)e->counter > buf && (const unsigned char *)e->counter < buf + need);
    assert_int_equal(buf[need], 0xAB);
    free(buf);
    /* malformed -> PDH_INVALID_PATH here; NULL/"" -> PDH_INVALID_ARGUMENT */
    pl_error err = {0};
    need = 0;
    assert_int_equal(pl_pdh_parse_path("Memory\\X", NULL, &need, &err), PL_PDH_INVALID_PATH);
    assert_int_equal((uint32_t)err.status, PL_PDH_INVALID_PATH);
    assert_int_equal(pl_pdh_parse_path("", NULL, &need, NULL), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl_pdh_parse_path(NULL, NULL, &need, NULL), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl_pdh_parse_path("\\Memory\\X", NULL, NULL, NULL), PL_PDH_INVALID_ARGUMENT);
    pl_pdh_path_elements *a = NULL;
    assert_int_equal(pl_pdh_parse_path_alloc("\\Process(foo (1))\\ID Process", &a, NULL), 0);
    assert_string_equal(a->instance, "foo (1)");
    assert_null(a->machine);
    assert_null(a->parent);
    pl_free(a);
}

static void make_paths(void **state)
{
    (void)state;
    char buf[256];
    size_t n;
    pl_pdh_path_elements e = {0};
    e.object = "Processor";
    e.counter = "% Processor Time";
    n = sizeof buf;
    assert_int_equal(pl_pdh_make_path(&e, buf, &n, NULL), 0);
    assert_string_equal(buf, "\\Processor\\% Processor Time");
    assert_int_equal(n, strlen(buf) + 1);
    e.instance = "_Total";
    e.machine = "\\\\HOST";
    n = sizeof buf;
    assert_int_equal(pl_pdh_make_path(&e, buf, &n, NULL), 0);
    assert_string_equal(buf, "\\\\HOST\\Processor(_Total)\\% Processor Time");
    e.machine = "HOST";
    e.object = "Thread";
    e.parent = "explorer";
    e.instance = "3";
    e.index = 1;
    e.counter = "ID Thread";
    n = sizeof buf;
    assert_int_equal(pl_pdh_make_path(&e, buf, &n, NULL), 0);
    assert_string_equal(buf, "\\\\HOST\\Thread(explorer/3#1)\\ID Thread");
    /* #0 is written without a suffix */
    e.index = 0;
    n = sizeof buf;
    assert_int_equal(pl_pdh_make_path(&e, buf, &n, NULL), 0);
    assert_string_equal(buf, "\\\\HOST\\Thread(explorer/3)\\ID Thread");
    /* without an instance, parent and index are ignored */
    e.instance = NULL;
    e.index = 5;
    e.machine = NULL;
    n = sizeof buf;
    assert_int_equal(pl_pdh_make_path(&e, buf, &n, NULL), 0);
    assert_string_equal(buf, "\\Thread\\ID Thread");
    /* size contract */
    n = 0;
    assert_int_equal(pl_pdh_make_path(&e, NULL, &n, NULL), PL_PDH_MORE_DATA);
    assert_int_equal(n, strlen("\\Thread\\ID Thread") + 1);
    char tiny[4] = "zzz";
    n = sizeof tiny;
    assert_int_equal(pl_pdh_make_path(&e, tiny, &n, NULL), PL_PDH_MORE_DATA);
    assert_string_equal(tiny, "zzz");
    /* object and counter are required */
    e.counter = NULL;
    n = sizeof buf;
    assert_int_equal(pl_pdh_make_path(&e, buf, &n, NULL), PL_PDH_INVALID_ARGUMENT);
    e.counter = "C";
    e.object = "";
    assert_int_equal(pl_pdh_make_path(&e, buf, &n, NULL), PL_PDH_INVALID_ARGUMENT);
    assert_int_equal(pl_pdh_make_path(NULL, buf, &n, NULL), PL_PDH_INVALID_ARGUMENT);
}

static void make_parse_roundtrip(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        if (vectors[i].status != OK) continue;
        pl_pdh_path_elements *a = NULL;
        assert_int_equal(pl_pdh_parse_path_alloc(vectors[i].path, &a, NULL), 0);
        char buf[512];
        size_t n = sizeof buf;
        assert_int_equal(pl_pdh_make_path(a, buf, &n, NULL), 0);
        /* #0 normalises away (unless the name ends in "#digits");
         * everything else round-trips */
        if (strstr(vectors[i].path, "svchost#0)")) assert_string_equal(buf, "\\Process(svchost)\\ID Process");
        else assert_string_equal(buf, vectors[i].path);
        pl_free(a);
    }
    /* every instance name, made into a path and parsed back, is itself */
    static const char *const names[] = {"x#1", "x#", "#1", "a#b#12", "x#1#0", "svc#007", "p#1)", "#", "x##3"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        for (uint32_t idx = 0; idx < 3; idx++) {
            pl_pdh_path_elements e = {0};
            e.object = "Process";
            e.instance = (char *)names[i];
            e.index = idx;
            e.counter = "ID Process";
            char buf[256];
            size_t n = sizeof buf;
            assert_int_equal(pl_pdh_make_path(&e, buf, &n, NULL), 0);
            pl_pdh_path_elements *a = NULL;
            assert_int_equal(pl_pdh_parse_path_alloc(buf, &a, NULL), 0);
            if (strcmp(a->instance, names[i]) != 0 || a->index != idx)
                fail_msg("%s #%u -> %s -> %s #%u", names[i], idx, buf, a->instance, a->index);
            pl_free(a);
        }
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(split_vectors),
        cmocka_unit_test(parse_buffer_contract),
        cmocka_unit_test(make_paths),
        cmocka_unit_test(make_parse_roundtrip),
    };
    return pl_test_run(tests, argc, argv);
}
