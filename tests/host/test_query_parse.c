/* pl_query_parse / pl_query_parse_w / pl_query_wants: what a provider sees
 * of a query string, including the strings a hostile or careless caller
 * sends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/provider.h"
#include "pl_test.h"

static void items(const char *s, size_t n, const uint32_t *want)
{
    pl_query_items q;
    pl_query_parse(s, &q);
    if (q.kind != PL_QUERY_KIND_ITEMS) fprintf(stderr, "\"%s\": kind %d\n", s, (int)q.kind);
    assert_int_equal(q.kind, PL_QUERY_KIND_ITEMS);
    assert_int_equal(q.n, n);
    for (size_t i = 0; i < n; i++) assert_int_equal(q.items[i], want[i]);
}

static int kind_of(const char *s)
{
    pl_query_items q;
    memset(&q, 0x5A, sizeof q);
    pl_query_parse(s, &q);
    if (q.kind != PL_QUERY_KIND_ITEMS) assert_int_equal(q.n, 0);
    return (int)q.kind;
}

static void words_and_whitespace(void **state)
{
    (void)state;
    assert_int_equal(kind_of(NULL), PL_QUERY_KIND_GLOBAL);
    assert_int_equal(kind_of(""), PL_QUERY_KIND_GLOBAL);
    assert_int_equal(kind_of(" \t\r\n"), PL_QUERY_KIND_GLOBAL);
    assert_int_equal(kind_of("gLoBaL"), PL_QUERY_KIND_GLOBAL);
    assert_int_equal(kind_of("Global\r\n"), PL_QUERY_KIND_GLOBAL);
    assert_int_equal(kind_of("COSTLY"), PL_QUERY_KIND_COSTLY);
    assert_int_equal(kind_of("Foreign host 238"), PL_QUERY_KIND_FOREIGN);
    assert_int_equal(kind_of("Globalx"), PL_QUERY_KIND_UNKNOWN);
    assert_int_equal(kind_of("ABCD"), PL_QUERY_KIND_UNKNOWN);
    static const uint32_t a[] = {230, 232};
    items("230 232", 2, a);
    items("230\t232", 2, a);
    items("230\n232\r\n", 2, a);
    items("\v230\f232 230 232", 2, a);
    items("00230 0232", 2, a);
    static const uint32_t m[] = {4294967295u};
    items("4294967295", 1, m);
}

static void bad_numbers_make_it_unknown(void **state)
{
    (void)state;
    const char *bad[] = {"0", "230 0", "-230", "+230", "230x", "230 x", "4294967296", "99999999999999999999999",
                         "230,232", "２３０", "230\xC2\xA0\x32\x33\x32", "0x10"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (kind_of(bad[i]) != PL_QUERY_KIND_UNKNOWN) fprintf(stderr, "\"%s\"\n", bad[i]);
        assert_int_equal(kind_of(bad[i]), PL_QUERY_KIND_UNKNOWN);
    }
}

/* "pid=N" in an index query (docs/query-engine.md, "One process's
 * instances"): not an index, at most once, with at least one index. */
static void process_filter(void **state)
{
    (void)state;
    static const uint32_t a[] = {230, 232};
    items("230 232 pid=42", 2, a);
    items("pid=42 230 232", 2, a);
    items("230 PID=7 232", 2, a);
    uint32_t pid = 1;
    assert_int_equal(pl_query_process_filter("230 232 pid=42", &pid), 1);
    assert_int_equal(pid, 42);
    assert_int_equal(pl_query_process_filter("230 Pid=0042", &pid), 1);
    assert_int_equal(pid, 42);
    assert_int_equal(pl_query_process_filter("230 pid=0", &pid), 1);
    assert_int_equal(pid, 0);
    assert_int_equal(pl_query_process_filter("230 pid=4294967295", &pid), 1);
    assert_int_equal(pid, 4294967295u);
    pid = 9;
    assert_int_equal(pl_query_process_filter("230 232", &pid), 0);
    assert_int_equal(pl_query_process_filter("Global pid=3", &pid), 0);
    assert_int_equal(pl_query_process_filter(NULL, &pid), 0);
    assert_int_equal(pid, 9);
    const char *bad[] = {"pid=3", "230 pid=", "230 pid=-1", "230 pid=+1", "230 pid=1x", "230 pid=4294967296",
                         "230 pid=1 pid=1", "230 pid 1", "230 pid:1", "230 pidx=1", "230 pid=99999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (kind_of(bad[i]) != PL_QUERY_KIND_UNKNOWN) fprintf(stderr, "\"%s\"\n", bad[i]);
        assert_int_equal(kind_of(bad[i]), PL_QUERY_KIND_UNKNOWN);
        assert_int_equal(pl_query_process_filter(bad[i], &pid), 0);
    }
    assert_int_equal(kind_of("Global pid=3"), PL_QUERY_KIND_GLOBAL); /* the first word decides */
    WCHAR w[] = {'2', '3', '2', ' ', 'p', 'i', 'd', '=', '5', 0};
    assert_int_equal(pl_query_process_filter_w(w, &pid), 1);
    assert_int_equal(pid, 5);
    w[8] = 0x0665; /* an Arabic-Indic five */
    assert_int_equal(pl_query_process_filter_w(w, &pid), 0);
    assert_int_equal(pl_query_process_filter_w(NULL, &pid), 0);
}

static void many_indices(void **state)
{
    (void)state;
    /* 10,000 distinct: the first 256 are kept. */
    char *s = malloc(10000 * 7);
    size_t w = 0;
    for (int i = 0; i < 10000; i++) w += (size_t)snprintf(s + w, 8, "%d ", 1000 + i);
    pl_query_items q;
    pl_query_parse(s, &q);
    assert_int_equal(q.kind, PL_QUERY_KIND_ITEMS);
    assert_int_equal(q.n, PL_QUERY_MAX_ITEMS);
    assert_int_equal(q.items[0], 1000);
    assert_int_equal(q.items[255], 1255);
    free(s);
}

/* A UTF-16 query longer than the parser's 4 KiB stack buffer: 2,000 "86 "
 * then "230". The old conversion cut it at 4,095 characters, so 230 was
 * lost (and a number straddling the cut was read short). */
static void long_utf16_query(void **state)
{
    (void)state;
    size_t n = 0;
    WCHAR *w = malloc((2000 * 3 + 8) * sizeof *w);
    for (int i = 0; i < 2000; i++) {
        w[n++] = '8';
        w[n++] = '6';
        w[n++] = ' ';
    }
    w[n++] = '2';
    w[n++] = '3';
    w[n++] = '0';
    w[n] = 0;
    pl_query_items q;
    pl_query_parse_w(w, &q);
    assert_int_equal(q.kind, PL_QUERY_KIND_ITEMS);
    assert_int_equal(q.n, 2);
    assert_int_equal(q.items[0], 86);
    assert_int_equal(q.items[1], 230);
    assert_int_equal(pl_query_wants(&q, 230, 0), 1);
    /* 4,094 spaces then "2300": the old cut left "2" (index 2, System). */
    n = 0;
    WCHAR *v = malloc(5000 * sizeof *v);
    for (int i = 0; i < 4094; i++) v[n++] = ' ';
    v[n++] = '2';
    v[n++] = '3';
    v[n++] = '0';
    v[n++] = '0';
    v[n] = 0;
    pl_query_parse_w(v, &q);
    assert_int_equal(q.kind, PL_QUERY_KIND_ITEMS);
    assert_int_equal(q.n, 1);
    assert_int_equal(q.items[0], 2300);
    assert_int_equal(pl_query_wants(&q, 2, 0), 0);
    /* Non-ASCII anywhere: unknown. */
    v[4094] = 0x0662; /* ARABIC-INDIC DIGIT TWO */
    pl_query_parse_w(v, &q);
    assert_int_equal(q.kind, PL_QUERY_KIND_UNKNOWN);
    free(v);
    free(w);
    static const WCHAR glob[] = {'C', 'o', 's', 't', 'l', 'y', 0};
    pl_query_parse_w(glob, &q);
    assert_int_equal(q.kind, PL_QUERY_KIND_COSTLY);
    pl_query_parse_w(NULL, &q);
    assert_int_equal(q.kind, PL_QUERY_KIND_GLOBAL);
}

static void wants(void **state)
{
    (void)state;
    pl_query_items q;
    pl_query_parse("Global", &q);
    assert_int_equal(pl_query_wants(&q, 230, 0), 1);
    assert_int_equal(pl_query_wants(&q, 740, 1), 0);
    pl_query_parse("Costly", &q);
    assert_int_equal(pl_query_wants(&q, 230, 0), 0);
    assert_int_equal(pl_query_wants(&q, 740, 1), 1);
    pl_query_parse("230 232", &q);
    assert_int_equal(pl_query_wants(&q, 232, 0), 1);
    assert_int_equal(pl_query_wants(&q, 238, 0), 0);
    pl_query_parse("Foreign x 230", &q);
    assert_int_equal(pl_query_wants(&q, 230, 0), 0);
    pl_query_parse("ABCD", &q);
    assert_int_equal(pl_query_wants(&q, 230, 0), 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(words_and_whitespace),
        cmocka_unit_test(bad_numbers_make_it_unknown),
        cmocka_unit_test(process_filter),
        cmocka_unit_test(many_indices),
        cmocka_unit_test(long_utf16_query),
        cmocka_unit_test(wants),
    };
    return pl_test_run(tests, argc, argv);
}
