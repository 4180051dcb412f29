/* Which items queries reach the built-in AppCounters provider
 * (lib/host/host_app.c, pl__host_may_own): applications' objects have
 * third-party indices, so a query naming only perflib's own indices is not
 * sent to it (issue 17: every engine query used to pay a second provider
 * call for it). Providers other than the built-in AppCounters are never
 * filtered here. */
#include "host.h"
#include "perflib/app.h"
#include "perflib/indices.h"
#include "pl_test.h"

#include <string.h>

static pl_query_items items(const uint32_t *v, size_t n)
{
    pl_query_items q;
    memset(&q, 0, sizeof q);
    q.kind = PL_QUERY_KIND_ITEMS;
    for (size_t i = 0; i < n; i++) q.items[i] = v[i];
    q.n = n;
    return q;
}

static void app_provider_skips_builtin_indices(void **state)
{
    (void)state;
    pl_provider_info app = {.name = (char *)PL_APP_PROVIDER, .builtin = 1};
    const uint32_t sys[] = {2, 230, 1966, PL_IDX_BUILTIN_RESERVED_LAST};
    pl_query_items q = items(sys, 4);
    assert_int_equal(pl__host_may_own(&app, &q), 0);
    const uint32_t mixed[] = {2, PL_IDX_BUILTIN_RESERVED_LAST + 1};
    q = items(mixed, 2);
    assert_int_equal(pl__host_may_own(&app, &q), 1);
    const uint32_t third[] = {100000};
    q = items(third, 1);
    assert_int_equal(pl__host_may_own(&app, &q), 1);
}

static void other_providers_not_filtered(void **state)
{
    (void)state;
    const uint32_t sys[] = {2};
    pl_query_items q = items(sys, 1);
    /* a third-party record named like it, and any other provider */
    pl_provider_info fake = {.name = (char *)PL_APP_PROVIDER, .builtin = 0};
    pl_provider_info other = {.name = (char *)"Something", .builtin = 1};
    assert_int_equal(pl__host_may_own(&fake, &q), 1);
    assert_int_equal(pl__host_may_own(&other, &q), 1);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(app_provider_skips_builtin_indices),
        cmocka_unit_test(other_providers_not_filtered),
    };
    return pl_test_run(tests, argc, argv);
}
