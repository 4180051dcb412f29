/* Test helpers for tests that open an engine (they link pl_query). */
#ifndef PL_TEST_ENGINE_H
#define PL_TEST_ENGINE_H

#include <string.h>

#include "perflib/query.h"
#include "pl_test.h"

/* The status of the provider named `name` (it must be listed). */
static inline pl_provider_status pl_test_provider_status(pl_engine *e, const char *name)
{
    pl_provider_status *list = NULL, out;
    size_t n = 0;
    assert_int_equal(pl_engine_provider_status(e, &list, &n), PL_OK);
    memset(&out, 0, sizeof out);
    int found = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i].name, name) == 0) {
            out = list[i];
            found = 1;
        }
    pl_free(list);
    if (!found) fail_msg("provider %s is not in the engine's status list", name);
    return out;
}

#endif
