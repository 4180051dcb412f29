/* Helpers of the PerfOS provider tests: see perfos_test.h. */
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "perfos_test.h"

void pf_load(ph_provider *p, const char *root)
{
    ph_load(p, PERFOS_SO, "PerfOs", root);
    assert_int_equal(p->open(NULL), ERROR_SUCCESS);
}

void pf_start(pf_run *r, const char *root, const char *query)
{
    pf_load(&r->p, root);
    ph_collect_ok(&r->p, query, BUFSZ, &r->s);
}

void pf_again(pf_run *r, const char *query)
{
    ph_result_free(&r->s);
    ph_collect_ok(&r->p, query, BUFSZ, &r->s);
}

void pf_end(pf_run *r)
{
    ph_result_free(&r->s);
    ph_unload(&r->p);
}

void pf_fifo(const char *root, const char *rel)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    assert_int_equal(mkfifo(path, 0644), 0);
}
