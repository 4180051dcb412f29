/* PDH selections (pl_pdh_selection: counters chosen by include and
 * exclude paths, docs/pdh.md "Selections") over the canned blocks:
 * default-language, English and index names; duplicates, parents and
 * wildcards as queries match them; exclusions; objects without instances;
 * the objects to collect; names that are no title; refused paths. */
#include <stdlib.h>
#include <string.h>

#include "pdh_canned.h"
#include "perflib/block.h"
#include "pl_test.h"

typedef struct fx {
    canned c;
    pl_pdh_source src;
    void *buf;
    pl_block blk;
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    size_t len;
    if (!f || canned_open(&f->c, &f->src, 1) != 0) return -1;
    if (canned_block(0, &f->buf, &len) != 0) return -1;
    if (pl_block_open(&f->blk, f->buf, len, 0, 0, NULL) != PL_OK) return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    free(f->buf);
    canned_close(&f->c);
    free(f);
    return 0;
}

static pl_pdh_selection *sel(fx *f, const char *const *inc, size_t ni, const char *const *exc, size_t ne)
{
    pl_pdh_selection *s = NULL;
    pl_error err = {0};
    uint32_t st = pl_pdh_selection_new(&f->src, inc, ni, exc, ne, &s, &err);
    if (st) fail_msg("selection: 0x%08x %s", st, err.msg);
    return s;
}

/* which positions of object `obj` have counter `ctr`, as a string of 0/1 */
static void picks(fx *f, const pl_pdh_selection *s, uint32_t obj, int whole, uint32_t ctr, const char *want)
{
    pl_object o;
    assert_int_equal(pl_block_find_object(&f->blk, obj, &o), PL_OK);
    pl_pdh_pick *p = NULL;
    assert_int_equal(pl_pdh_selection_pick(s, &o, whole, &p), PL_PDH_CSTATUS_VALID_DATA);
    char got[16] = "";
    if (p) {
        uint32_t n = o.hdr.NumInstances > 0 ? (uint32_t)o.hdr.NumInstances : 1;
        for (uint32_t i = 0; i < n && i < 15; i++) got[i] = pl_pdh_pick_has(p, ctr, i) ? '1' : '0';
    }
    if (strcmp(got, want) != 0) fail_msg("object %u counter %u: picks \"%s\", want \"%s\"", obj, ctr, got, want);
    pl_pdh_pick_free(p);
}

static void names_indices_and_languages(void **state)
{
    fx *f = *state;
    const char *inc[] = {"\\Speicher\\Verf\xC3\xBCgbare Bytes", "\\Processor(*)\\% User Time", "\\230(bash)\\784",
                         "\\Nosuch\\Thing", "\\Memory\\No Such Counter"};
    pl_pdh_selection *s = sel(f, inc, 5, NULL, 0);
    assert_true(pl_pdh_selection_resolved(s, 0));
    assert_true(pl_pdh_selection_resolved(s, 2));
    assert_false(pl_pdh_selection_resolved(s, 3));
    assert_false(pl_pdh_selection_resolved(s, 4));
    uint32_t objs[8];
    assert_int_equal(pl_pdh_selection_objects(s, objs, 8), 3);
    assert_int_equal(objs[0], 4);
    assert_int_equal(objs[1], 238);
    assert_int_equal(objs[2], 230);
    picks(f, s, 4, 0, 24, "1");   /* German names */
    picks(f, s, 4, 0, 28, "0");   /* another counter of the object */
    picks(f, s, 238, 0, 142, "111");
    picks(f, s, 238, 0, 6, "000");
    picks(f, s, 230, 0, 784, "0001"); /* init svchost svchost bash */
    picks(f, s, 232, 0, 804, "");     /* not named: nothing */
    pl_pdh_selection_free(s);
}

static void duplicates_parents_and_exclusions(void **state)
{
    fx *f = *state;
    const char *inc[] = {"\\Process(svchost)\\ID Process", "\\Process(svchost#1)\\% Processor Time",
                         "\\Thread(svchost/*)\\*"};
    const char *exc[] = {"\\Thread(*/1)\\ID Thread"};
    pl_pdh_selection *s = sel(f, inc, 3, exc, 1);
    picks(f, s, 230, 0, 784, "0100"); /* a named instance: the first of equal names */
    picks(f, s, 230, 0, 6, "0010");
    picks(f, s, 232, 0, 804, "101"); /* svchost/0, svchost/1 left out, svchost#1's 0 */
    pl_pdh_selection_free(s);
    /* a wildcard matches every duplicate; exclusions apply to whole objects */
    const char *inc2[] = {"\\Process(svc*)\\*"};
    const char *exc2[] = {"\\Process(init)\\*", "\\Processor(_Total)\\*"};
    s = sel(f, inc2, 1, exc2, 2);
    picks(f, s, 230, 0, 6, "0110");
    picks(f, s, 230, 1, 6, "0111");
    picks(f, s, 238, 1, 6, "110");
    picks(f, s, 4, 1, 24, "1");
    picks(f, s, 4, 0, 24, "");
    picks(f, s, 232, 1, 804, "111"); /* whole, named by no path: every instance */
    picks(f, s, 232, 0, 804, "");
    pl_pdh_selection_free(s);
    /* an instance where the object has none, and none where it has */
    const char *inc3[] = {"\\Memory(x)\\Available Bytes", "\\Process\\ID Process"};
    s = sel(f, inc3, 2, NULL, 0);
    picks(f, s, 4, 0, 24, "0");
    picks(f, s, 230, 0, 784, "0000");
    pl_pdh_selection_free(s);
}

static void refused(void **state)
{
    fx *f = *state;
    static const char *const bad[] = {"Memory\\Available Bytes", "\\\\box\\Memory\\Available Bytes", "\\Mem*\\x",
                                      "\\Process(a*#1)\\x", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pl_pdh_selection *s = NULL;
        pl_error err = {0};
        const char *one[] = {bad[i]};
        uint32_t st = pl_pdh_selection_new(&f->src, one, 1, NULL, 0, &s, &err);
        if (st == PL_PDH_CSTATUS_VALID_DATA || s) fail_msg("took \"%s\"", bad[i]);
        assert_true(err.msg[0] != '\0');
    }
    /* an exclude path is checked as well */
    pl_pdh_selection *s = NULL;
    const char *exc[] = {"\\Process(x"};
    assert_int_not_equal(pl_pdh_selection_new(&f->src, NULL, 0, exc, 1, &s, NULL), PL_PDH_CSTATUS_VALID_DATA);
    assert_null(s);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(names_indices_and_languages, setup, teardown),
        cmocka_unit_test_setup_teardown(duplicates_parents_and_exclusions, setup, teardown),
        cmocka_unit_test_setup_teardown(refused, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
