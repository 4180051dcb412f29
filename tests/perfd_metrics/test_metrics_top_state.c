/* The top processes' state between scrapes (tools/perfd/metrics_top.c) on
 * numbers made up for it: who is ranked in, by value and by increase;
 * _Other's gauge sum; _Other's counter as the sum of increases, with a
 * member that is unreadable for a scrape (no sum written, and its increase
 * counted from its last value once readable, never twice); the same
 * snapshot rendered twice changes nothing. */
#include <stdlib.h>
#include <string.h>

#include "metrics_top.h"
#include "pl_test.h"

static const uint64_t pids[4] = {11, 12, 13, 14}, starts[4] = {0, 0, 0, 0};
static const unsigned char all[4] = {1, 1, 1, 1};

static void ranked_by_value_and_increase(void **state)
{
    (void)state;
    pm_top *t = pm_top_new();
    assert_non_null(t);
    unsigned char oth[4];
    const uint64_t gauge[4] = {10, 20, 30, 40};
    assert_int_equal(pm_top_begin(t, 1, 4, pids, starts, all, gauge, 0, 0, 2, oth), 0);
    assert_memory_equal(oth, ((unsigned char[]){1, 1, 0, 0}), 4);
    pm_top_end(t);
    /* cumulative: the first snapshot ranks by the whole value, the next by
     * the increase since it */
    const uint64_t c1[4] = {1000, 10, 10, 10}, c2[4] = {1001, 50, 10, 10};
    assert_int_equal(pm_top_begin(t, 2, 4, pids, starts, all, c1, 1, 0, 1, oth), 0);
    assert_memory_equal(oth, ((unsigned char[]){0, 1, 1, 1}), 4);
    pm_top_end(t);
    assert_int_equal(pm_top_begin(t, 3, 4, pids, starts, all, c2, 1, 0, 1, oth), 0);
    assert_memory_equal(oth, ((unsigned char[]){1, 0, 1, 1}), 4);
    pm_top_end(t);
    /* a process of the same pid but another start is another process */
    const uint64_t s2[4] = {0, 7, 0, 0}, c3[4] = {1002, 51, 10, 10};
    assert_int_equal(pm_top_begin(t, 4, 4, pids, s2, all, c3, 1, 0, 1, oth), 0);
    assert_memory_equal(oth, ((unsigned char[]){1, 0, 1, 1}), 4); /* 51 whole beats 1 */
    pm_top_end(t);
    pm_top_free(t);
}

static uint64_t other(pm_top *t, uint64_t seq, const uint64_t *v, const unsigned char *have, int *complete)
{
    unsigned char oth[4];
    const uint64_t rank[4] = {1, 1, 9, 9}; /* 13 and 14 in the top, 11 and 12 in _Other */
    assert_int_equal(pm_top_begin(t, seq, 4, pids, starts, all, rank, 0, 0, 2, oth), 0);
    uint64_t r = pm_top_other(t, 5, v, have, 1, 0, complete);
    pm_top_end(t);
    return r;
}

static void other_sums_increases(void **state)
{
    (void)state;
    pm_top *t = pm_top_new();
    int complete;
    unsigned char oth[4];
    const uint64_t g[4] = {5, 7, 100, 200}, rank[4] = {1, 1, 9, 9};
    assert_int_equal(pm_top_begin(t, 1, 4, pids, starts, all, rank, 0, 0, 2, oth), 0);
    assert_int_equal(pm_top_other(t, 9, g, all, 0, 0, &complete), 12);
    assert_true(complete);
    const unsigned char no0[4] = {0, 1, 1, 1};
    (void)pm_top_other(t, 9, g, no0, 0, 0, &complete);
    assert_false(complete);
    pm_top_end(t);
    pm_top_free(t);

    t = pm_top_new();
    assert_int_equal(other(t, 1, (const uint64_t[]){100, 200, 0, 0}, all, &complete), 300); /* new: whole */
    assert_true(complete);
    assert_int_equal(other(t, 2, (const uint64_t[]){110, 205, 0, 0}, all, &complete), 315);
    assert_int_equal(other(t, 2, (const uint64_t[]){110, 205, 0, 0}, all, &complete), 315); /* same snapshot */
    assert_int_equal(other(t, 3, (const uint64_t[]){0, 210, 0, 0}, no0, &complete), 320);
    assert_false(complete);
    /* 11 readable again: +20 from its last value (110), not +130 */
    assert_int_equal(other(t, 4, (const uint64_t[]){130, 215, 0, 0}, all, &complete), 345);
    assert_true(complete);
    pm_top_free(t);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ranked_by_value_and_increase),
        cmocka_unit_test(other_sums_increases),
    };
    return pl_test_run(tests, argc, argv);
}
