/* "Any error rolls back" past the first write: the store's transactions of
 * many writes (install, uninstall, restore) run on the fault-point build of
 * the store (pl_registry_faults: PL_FAULT_POINTS, registry_internal.h), and
 * each of their writes, and their COMMIT, is made to fail in turn. After
 * every failure the store file holds exactly what it held before (dumped
 * through SQLite directly), the handle still works, and once no point fails
 * the operation succeeds having passed exactly the points counted. */
#include "reg_test.h"
#include "registry_internal.h"

#define PROV "FaultProv"

/* Names and helps at offsets 0, 2 and 4 in English and German: 12 titles. */
static const pl_install_text TEXTS[] = {
    {0, "009", "Fault Object", "An object"},   {2, "009", "Fault Ctr", "A counter"},
    {4, "009", "Fault Ctr 2", "Another one"},  {0, "007", "Fehlerobjekt", "Ein Objekt"},
    {2, "007", "Fehlerzähler", "Ein Zähler"}, {4, "007", "Fehlerzähler 2", "Noch einer"},
};
static const uint32_t OBJECTS[] = {0};

static pl_backup *snapshot; /* for do_restore */

static int do_install(pl_store *st, pl_error *err)
{
    pl_install_req r;
    memset(&r, 0, sizeof r);
    r.provider = PROV;
    r.library = "libfault.so";
    r.open = "FOpen";
    r.collect = "FCollect";
    r.close = "FClose";
    r.max_offset = 4;
    r.texts = TEXTS;
    r.ntexts = sizeof TEXTS / sizeof TEXTS[0];
    r.object_offsets = OBJECTS;
    r.nobjects = 1;
    pl_install_result res;
    return pl_store_install(st, &r, &res, err);
}

static int do_uninstall(pl_store *st, pl_error *err) { return pl_store_uninstall(st, PROV, err); }

static int do_restore(pl_store *st, pl_error *err) { return pl_store_restore(st, snapshot, err); }

/* Fail the 1st, 2nd, ... fault point of op until op succeeds; returns the
 * number of points op passes. */
static unsigned long each_write_fails_in_turn(const char *path, pl_store *st, int (*op)(pl_store *, pl_error *),
                                              const char *what)
{
    char *before = reg_dump(path);
    unsigned long n;
    for (n = 1;; n++) {
        assert_true(n < 100000);
        pl_error err = {0, ""};
        pl__fault_arm(n);
        int s = op(st, &err);
        unsigned long passed = pl__fault_passed();
        pl__fault_arm(0);
        if (s == PL_OK) {
            /* no point failed: op passes n - 1 of them */
            assert_int_equal(passed, n - 1);
            break;
        }
        if (s != PL_E_STORE || !strstr(err.msg, "injected fault"))
            fail_msg("%s, point %lu of %lu: status %d, %s", what, n, passed, s, err.msg);
        char *now = reg_dump(path);
        if (strcmp(before, now) != 0) print_message("%s: the store changed after point %lu failed\n", what, n);
        reg_assert_same(before, now);
        free(now);
    }
    char *after = reg_dump(path);
    assert_string_not_equal(before, after); /* and then it did its work */
    free(after);
    free(before);
    print_message("%s: each of its %lu fault points (its writes, its COMMIT) failed in turn: the store unchanged\n", what,
                  n - 1);
    return n - 1;
}

static void install_uninstall_restore_roll_back_after_every_write(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "faults.db");
    pl_store *st = reg_open(path);
    pl_error err;
    assert_int_equal(pl_store_add_language(st, "007", &err), PL_OK);

    /* install: 12 titles, the provider record and its ranges, Last Counter
     * and Last Help, then the COMMIT */
    assert_int_equal(each_write_fails_in_turn(path, st, do_install, "install"), 12 + 2 + 2 + 1);
    pl_titles *t = NULL;
    assert_int_equal(pl_titles_load(st, "007", &t, &err), PL_OK);
    pl_provider_info p;
    assert_int_equal(pl_store_provider(st, PROV, &p, &err), PL_OK);
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, p.first_counter + 2), "Fehlerzähler");
    pl_titles_free(t);

    /* restore, from a snapshot taken now, onto the store without the
     * provider's counters: its DELETEs, each language and title, the meta
     * values, the providers, and the COMMIT */
    assert_int_equal(pl_store_snapshot(st, &snapshot, &err), PL_OK);
    /* uninstall: the titles, the provider's ranges, Last Counter and Last Help, the COMMIT */
    assert_true(each_write_fails_in_turn(path, st, do_uninstall, "uninstall") >= 4);
    pl_provider_info_clear(&p);
    assert_int_equal(pl_store_provider(st, PROV, &p, &err), PL_OK);
    assert_int_equal(p.first_counter, 0);
    pl_provider_info_clear(&p);
    assert_true(each_write_fails_in_turn(path, st, do_restore, "restore") > 100);
    assert_int_equal(pl_store_provider(st, PROV, &p, &err), PL_OK);
    assert_true(p.first_counter > 0);
    pl_provider_info_clear(&p);
    pl_backup_free(snapshot);
    pl_store_close(st);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(install_uninstall_restore_roll_back_after_every_write),
    };
    return pl_test_run(tests, argc, argv);
}
