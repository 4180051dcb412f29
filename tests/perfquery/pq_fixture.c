/* See pq_fixture.h. */
#include "pq_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/lodctr.h"
#include "perflib/registry.h"
#include "pq_run.h"

static int fail(const char *what, const pl_error *err)
{
    fprintf(stderr, "fixture: %s: %s\n", what, err->msg);
    return -1;
}

int pq_fixture_install(pq_fixture *fx, const char *ini, const char *library)
{
    pl_store *st = NULL;
    pl_error err = {0};
    if (pl_store_open(fx->store, 0, &st, &err) != PL_OK) return fail("open store", &err);
    pl_lodctr_set *set = NULL;
    int rc = 0;
    if (pl_lodctr_parse(ini, &set, &err) != PL_OK) {
        rc = fail(ini, &err);
    } else {
        pl_lodctr_overrides ov = {.library = library};
        pl_install_result res;
        if (pl_lodctr_install(st, set, &ov, &res, &err) != PL_OK) rc = fail("install", &err);
    }
    pl_lodctr_free(set);
    pl_store_close(st);
    return rc;
}

int pq_fixture_make(pq_fixture *fx, const char *ini, const char *library)
{
    memset(fx, 0, sizeof *fx);
    fx->dir = pq_mkdtemp();
    if (!fx->dir) return -1;
    snprintf(fx->store, sizeof fx->store, "%s/perflib.db", fx->dir);
    snprintf(fx->env_store, sizeof fx->env_store, "PERFLIB_REGISTRY=%s", fx->store);
    setenv("PERFLIB_REGISTRY", fx->store, 1);
    unsetenv("PERFLIB_LANG");

    pl_store *st = NULL;
    pl_error err = {0};
    if (pl_store_open(fx->store, 0, &st, &err) != PL_OK) return fail("create store", &err);
    pl_backup_string names[] = {{1, "1847"},        {2, "System"},    {4, "Memory"},
                                {6, "% Processor Time"}, {238, "Processor"}, {248, "Processes"},
                                {250, "Threads"},     {700, "Paging File"}, {1382, "Available MBytes"},
                                {1846, "End Marker"}};
    pl_backup_string helps[] = {{3, "The whole machine."}, {5, "Physical and virtual memory."}, {1847, "End Marker"}};
    pl_backup_lang lang = {"009", names, sizeof names / sizeof names[0], helps, sizeof helps / sizeof helps[0]};
    pl_backup bk = {1847, 1846, 1847, &lang, 1, NULL, 0};
    int rc = 0;
    if (pl_store_restore(st, &bk, &err) != PL_OK) rc = fail("restore", &err);
    pl_provider_info *list = NULL;
    size_t n = 0;
    if (!rc && pl_store_providers(st, &list, &n, &err) != PL_OK) rc = fail("list providers", &err);
    for (size_t i = 0; !rc && i < n; i++) {
        if (pl_store_remove_provider(st, list[i].name, &err) != PL_OK &&
            pl_store_disable_provider(st, list[i].name, "not part of the test", &err) != PL_OK)
            rc = fail(list[i].name, &err);
    }
    pl_provider_list_free(list, n);
    pl_store_close(st);
    if (rc) return rc;
    return ini ? pq_fixture_install(fx, ini, library) : 0;
}

void pq_fixture_done(pq_fixture *fx)
{
    if (fx->dir) {
        /* SQLite may leave -wal/-shm files next to the store. */
        pq_rmdir(fx->dir);
        free(fx->dir);
    }
    fx->dir = NULL;
}
