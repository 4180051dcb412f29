/* libFuzzer target for the PDH counter-path parser (pl_pdh_parse_path,
 * docs/pdh.md). The input, cut at its first NUL, is parsed by the sizing
 * call and the filling call, which must agree; a path that parses is built
 * again with pl_pdh_make_path and parsed once more, and the two parses must
 * give the same parts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/pdh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same(const char *a, const char *b)
{
    if (!a || !b) return a == b;
    return strcmp(a, b) == 0;
}

/* An instance name that itself ends in "#digits": make_path writes it as
 * given (the wildcard expansion relies on that, passing "svchost#1" with
 * index 0), so it reads back as a name and an index. */
static int ends_in_index(const char *s)
{
    if (!s) return 0;
    const char *end = s + strlen(s), *h = end;
    while (h > s && h[-1] >= '0' && h[-1] <= '9') h--;
    return h < end && h > s && h[-1] == '#';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *path = malloc(size + 1);
    if (!path) return 0;
    memcpy(path, data, size);
    path[size] = '\0';
    pl_error err;
    size_t need = 0;
    uint32_t st = pl_pdh_parse_path(path, NULL, &need, &err);
    pl_pdh_path_elements *e = NULL;
    uint32_t st2 = pl_pdh_parse_path_alloc(path, &e, &err);
    if ((st == PL_PDH_MORE_DATA) != (st2 == PL_PDH_CSTATUS_VALID_DATA)) abort();
    if (st2 == PL_PDH_CSTATUS_VALID_DATA) {
        if (!e || !e->object || !e->counter) abort();
        size_t cap = 0;
        uint32_t ms = pl_pdh_make_path(e, NULL, &cap, &err);
        if (ms == PL_PDH_MORE_DATA && cap > 0 && cap < ((size_t)1 << 24)) {
            char *again = malloc(cap);
            if (again && pl_pdh_make_path(e, again, &cap, &err) == PL_PDH_CSTATUS_VALID_DATA) {
                pl_pdh_path_elements *e2 = NULL;
                /* What make_path writes must parse to the same parts
                 * (some parts cannot be written back, e.g. a ')' inside
                 * an instance name: then it may be refused, not changed). */
                if (pl_pdh_parse_path_alloc(again, &e2, &err) == PL_PDH_CSTATUS_VALID_DATA) {
                    if (!same(e->object, e2->object) || !same(e->counter, e2->counter)) abort();
                    if (!ends_in_index(e->instance) && !same(e->instance, e2->instance)) abort();
                    pl_free(e2);
                }
            }
            free(again);
        }
    } else if (e) {
        abort();
    }
    pl_free(e);
    free(path);
    return 0;
}
