/* Test helpers for tests that open an engine (they link pl_query). */
#ifndef PL_TEST_ENGINE_H
#define PL_TEST_ENGINE_H

#include <string.h>

#include <stdio.h>

#include "perflib/block.h"
#include "perflib/query.h"
#include "perflib/registry.h"
#include "pl_test.h"

/* An engine over the store at `store` (the test fails when it cannot open). */
static inline pl_engine *pl_test_engine_open(const char *store)
{
    pl_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.store_path = store;
    pl_engine *e = NULL;
    pl_error err;
    if (pl_engine_open(&cfg, &e, &err) != PL_OK) fail_msg("pl_engine_open(%s): %s", store, err.msg);
    return e;
}

/* One query's answer, read back: free buf with pl_free. */
typedef struct pl_test_answer {
    void *buf;
    size_t len;
    pl_block blk;
} pl_test_answer;

static inline void pl_test_query(pl_engine *e, const char *q, pl_test_answer *a)
{
    pl_error err;
    if (pl_engine_query_alloc(e, q, &a->buf, &a->len, NULL, &err) != PL_OK) fail_msg("query %s: %s", q, err.msg);
    if (pl_block_open(&a->blk, a->buf, a->len, 0, 0, &err) != PL_OK) fail_msg("query %s: %s", q, err.msg);
}

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

/* Install (or rewrite) provider `name` in the store at `store` as the test
 * provider libtp_<mode>.so of tests/host/test_provider.c (TpOpen, TpCollect,
 * TpClose), with that isolation and those timeouts (0: the defaults). */
static inline void pl_test_add_tp(const char *store, const char *name, const char *mode, int isolation,
                                  uint32_t open_ms, uint32_t collect_ms)
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
    p.isolation = isolation;
    p.open_timeout_ms = open_ms;
    p.collect_timeout_ms = collect_ms;
    pl_store *st;
    pl_error err;
    assert_int_equal(pl_store_open(store, 0, &st, &err), PL_OK);
    int rc = pl_store_set_provider(st, &p, &err);
    if (rc != PL_OK) fprintf(stderr, "set_provider: %s\n", err.msg);
    assert_int_equal(rc, PL_OK);
    pl_store_close(st);
}

#endif
