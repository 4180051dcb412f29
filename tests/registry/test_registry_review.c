/* Registry store under hostile conditions: language ids, restores whose
 * Perflib values disagree with their contents, overlapping ranges, crashes in
 * the middle of a write (a child killed inside the transaction), concurrent
 * migration and seed refresh, files that are not stores, edge indices. */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include "reg_test.h"

/* lib/registry's test hook (registry_internal.h). */
extern void (*pl__registry_test_hook)(const char *where);

static pl_store *fresh(char *path, size_t cap)
{
    reg_tmpfile(path, cap, "perflib.db");
    return reg_open(path);
}

static pl_perflib_info perflib(pl_store *st)
{
    pl_perflib_info i;
    pl_error err;
    assert_int_equal(pl_store_perflib(st, &i, &err), PL_OK);
    return i;
}

static void wait_ok(pid_t pid)
{
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static const pl_install_text ONE_TEXT[] = {{0, "009", "Obj", "Obj help"}, {2, "009", "Ctr", "Ctr help"}};

static pl_install_req small_request(const char *name)
{
    pl_install_req r;
    memset(&r, 0, sizeof r);
    r.provider = name;
    r.max_offset = 2;
    r.texts = ONE_TEXT;
    r.ntexts = 2;
    return r;
}

/* ------------------------------------------------------------ language ids */

/* "9", "09", "0009" and "009" are one language (lodctr's parser and the
 * backup reader already read them so); "abc" is "ABC", "00c" is "00C". */
static void language_ids_have_one_spelling(void **state)
{
    (void)state;
    char path[512];
    pl_store *st = fresh(path, sizeof path);
    pl_error err;
    assert_int_equal(pl_store_add_language(st, "9", &err), PL_E_EXISTS);
    assert_int_equal(pl_store_add_language(st, "09", &err), PL_E_EXISTS);
    assert_int_equal(pl_store_add_language(st, "0009", &err), PL_E_EXISTS);
    assert_int_equal(pl_store_add_language(st, "0000009", &err), PL_E_EXISTS);
    assert_int_equal(pl_store_add_language(st, "00c", &err), PL_OK);
    assert_int_equal(pl_store_add_language(st, "00C", &err), PL_E_EXISTS);
    assert_int_equal(pl_store_add_language(st, "c", &err), PL_E_EXISTS);
    assert_int_equal(pl_store_add_language(st, "abc", &err), PL_OK);
    assert_int_equal(pl_store_add_language(st, "ABC", &err), PL_E_EXISTS);
    assert_int_equal(pl_store_add_language(st, "0416", &err), PL_OK);
    assert_int_equal(pl_store_add_language(st, "416", &err), PL_E_EXISTS);
    assert_int_equal(pl_store_add_language(st, "00000009", &err), PL_E_INVAL); /* 8 digits */
    assert_int_equal(pl_store_add_language(st, "0x9", &err), PL_E_INVAL);
    char **langs = NULL;
    size_t n = 0;
    assert_int_equal(pl_store_languages(st, &langs, &n, &err), PL_OK);
    assert_int_equal(n, 4);
    assert_string_equal(langs[0], "009");
    assert_string_equal(langs[1], "00C");
    assert_string_equal(langs[2], "416");
    assert_string_equal(langs[3], "ABC");
    pl_free(langs);
    /* every entry point takes any spelling */
    assert_int_equal(pl_store_set_title(st, "9", PL_TITLE_NAME, 2, "Nine", &err), PL_OK);
    pl_titles *t = NULL;
    assert_int_equal(pl_titles_load(st, "0009", &t, &err), PL_OK);
    assert_string_equal(pl_titles_language(t), "009");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 2), "Nine");
    pl_titles_free(t);
    setenv("PERFLIB_LANG", "c", 1);
    assert_string_equal(pl_store_default_language(st), "00C");
    unsetenv("PERFLIB_LANG");
    pl_install_text txt[] = {{0, "0009", "N9", NULL}, {0, "C", "NC", NULL}};
    pl_install_req r = small_request("LangIds");
    r.texts = txt;
    r.ntexts = 2;
    r.max_offset = 0;
    pl_install_result res;
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_OK);
    assert_int_equal(pl_titles_load(st, "00c", &t, &err), PL_OK);
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, res.first_counter), "NC");
    pl_titles_free(t);
    /* the file holds the one spelling */
    char *dump = reg_dump(path);
    assert_null(strstr(dump, "\n9|"));
    assert_null(strstr(dump, "0009|"));
    assert_non_null(strstr(dump, "\n00C|"));
    free(dump);
    pl_store_close(st);
}

/* ----------------------------------------------------------------- restore */

static pl_backup_string *strings(size_t n, const uint32_t *idx, const char *const *text)
{
    pl_backup_string *v = calloc(n, sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < n; i++) {
        v[i].index = idx[i];
        v[i].text = strdup(text[i]);
    }
    return v;
}

/* A backup whose Last Counter/Help (lc/lh) lie below its own titles and
 * provider ranges: names 1, 3000..3010 (step 2), provider Old 3000..3020. */
static pl_backup *low_backup(uint32_t lc, uint32_t lh)
{
    pl_backup *bk = calloc(1, sizeof *bk);
    assert_non_null(bk);
    bk->base_index = 1847;
    bk->last_counter = lc;
    bk->last_help = lh;
    bk->nlangs = 1;
    bk->langs = calloc(1, sizeof *bk->langs);
    memcpy(bk->langs[0].lang, "009", 4);
    static const uint32_t ni[] = {1, 3000, 3002, 3010};
    static const char *const nt[] = {"1847", "Old Obj", "Old Ctr", "Old High"};
    static const uint32_t hi[] = {3001, 3011};
    static const char *const ht[] = {"Old obj help", "Old high help"};
    bk->langs[0].names = strings(4, ni, nt);
    bk->langs[0].nnames = 4;
    bk->langs[0].helps = strings(2, hi, ht);
    bk->langs[0].nhelps = 2;
    bk->nproviders = 1;
    bk->providers = calloc(1, sizeof *bk->providers);
    bk->providers[0].name = strdup("Old");
    bk->providers[0].first_counter = 3000;
    bk->providers[0].last_counter = 3020;
    bk->providers[0].first_help = 3001;
    bk->providers[0].last_help = 3021;
    return bk;
}

/* The next lodctr after a restore must never hand out an index that the
 * restored titles or provider ranges hold, nor one of perflib's reserved
 * block: Last Counter/Help are raised to cover them. */
static void restore_low_last_counter_never_reused(void **state)
{
    (void)state;
    char path[512];
    pl_store *st = fresh(path, sizeof path);
    pl_error err;
    pl_backup *bk = low_backup(3000, 3001);
    assert_int_equal(pl_store_restore(st, bk, &err), PL_OK);
    pl_backup_free(bk);
    pl_perflib_info i = perflib(st);
    assert_int_equal(i.last_counter, 3020);
    assert_int_equal(i.last_help, 3021);
    pl_install_req r = small_request("New");
    pl_install_result res;
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_OK);
    assert_int_equal(res.first_counter, 3022);
    assert_int_equal(res.first_help, 3023);
    pl_provider_info old;
    assert_int_equal(pl_store_provider(st, "Old", &old, &err), PL_OK);
    assert_true(res.first_counter > old.last_counter && res.first_help > old.last_help);
    pl_provider_info_clear(&old);
    /* uninstalling the new one does not give the old range away either */
    assert_int_equal(pl_store_uninstall(st, "New", &err), PL_OK);
    i = perflib(st);
    assert_int_equal(i.last_counter, 3020);
    pl_store_close(st);

    /* A backup below the reserved block (a bare Windows base set, as the
     * example tests restore): the built-in providers still use 1848-2998, so
     * Last Counter/Help rise to the block's end and the next install lands
     * above it. */
    st = fresh(path, sizeof path);
    bk = low_backup(1846, 1847);
    bk->nproviders = 0; /* freed with the first one below */
    bk->langs[0].nnames = 1;
    bk->langs[0].nhelps = 0;
    assert_int_equal(pl_store_restore(st, bk, &err), PL_OK);
    i = perflib(st);
    assert_int_equal(i.last_counter, PL_IDX_BUILTIN_RESERVED_LAST);
    assert_int_equal(i.last_help, PL_IDX_BUILTIN_RESERVED_LAST + 1);
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_OK);
    assert_int_equal(res.first_counter, 3000);
    assert_int_equal(res.first_help, 3001);
    /* the built-in providers kept their ranges through the restore */
    pl_provider_info os;
    assert_int_equal(pl_store_provider(st, "PerfOS", &os, &err), PL_OK);
    assert_int_equal(os.first_counter, PL_RANGE_PERFOS_FIRST);
    assert_int_equal(os.last_counter, PL_RANGE_PERFOS_LAST);
    pl_provider_info_clear(&os);
    bk->nproviders = 1;
    bk->langs[0].nnames = 4;
    bk->langs[0].nhelps = 2;
    pl_backup_free(bk);
    pl_store_close(st);
}

/* Names sit at even indices and help texts at odd ones whatever the parity
 * of Last Counter/Help (a backup may carry an odd Last Counter): otherwise
 * the next `lodctr /s` cannot write the store. */
static void install_after_odd_last_counter(void **state)
{
    (void)state;
    char path[512];
    pl_store *st = fresh(path, sizeof path);
    pl_error err;
    pl_backup *bk = low_backup(3021, 3022); /* odd Last Counter, even Last Help */
    assert_int_equal(pl_store_restore(st, bk, &err), PL_OK);
    pl_backup_free(bk);
    pl_install_req r = small_request("Parity");
    pl_install_result res;
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_OK);
    assert_int_equal(res.first_counter, 3022);
    assert_int_equal(res.last_counter, 3024);
    assert_int_equal(res.first_help, 3023);
    assert_int_equal(res.last_help, 3025);
    pl_perflib_info i = perflib(st);
    assert_int_equal(i.last_counter, 3024);
    assert_int_equal(i.last_help, 3025);
    pl_store_close(st);
}

/* Uninstalling a provider whose range overlaps another provider's (ranges
 * restored from a backup) removes only the indices nobody else claims. */
static void uninstall_overlapping_range_keeps_other(void **state)
{
    (void)state;
    char path[512];
    pl_store *st = fresh(path, sizeof path);
    pl_error err;
    pl_backup *bk = low_backup(3020, 3021);
    /* Old 3000..3020 and a second provider Mid 3002..3006 inside it. */
    pl_backup_provider *np = realloc(bk->providers, 2 * sizeof *np);
    assert_non_null(np);
    bk->providers = np;
    bk->providers[1] = (pl_backup_provider){strdup("Mid"), 3002, 3003, 3006, 3007};
    bk->nproviders = 2;
    assert_int_equal(pl_store_restore(st, bk, &err), PL_OK);
    pl_backup_free(bk);
    assert_int_equal(pl_store_uninstall(st, "Old", &err), PL_OK);
    pl_titles *t = NULL;
    assert_int_equal(pl_titles_load(st, "009", &t, &err), PL_OK);
    assert_null(pl_titles_get(t, PL_TITLE_NAME, 3000));
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 3002), "Old Ctr"); /* Mid's */
    assert_null(pl_titles_get(t, PL_TITLE_NAME, 3010));
    assert_null(pl_titles_get(t, PL_TITLE_HELP, 3011));
    pl_titles_free(t);
    pl_store_close(st);

    /* A third-party range restored over a built-in one: the built-in
     * provider's titles stay. */
    st = fresh(path, sizeof path);
    pl_backup *snap = NULL;
    assert_int_equal(pl_store_snapshot(st, &snap, &err), PL_OK);
    char *before_name = NULL;
    for (size_t k = 0; k < snap->langs[0].nnames; k++)
        if (snap->langs[0].names[k].index == PL_RANGE_PERFOS_FIRST) before_name = strdup(snap->langs[0].names[k].text);
    assert_non_null(before_name);
    np = realloc(snap->providers, (snap->nproviders + 1) * sizeof *np);
    assert_non_null(np);
    snap->providers = np;
    snap->providers[snap->nproviders++] =
        (pl_backup_provider){strdup("Squatter"), PL_RANGE_PERFOS_FIRST, PL_RANGE_PERFOS_FIRST + 1,
                             PL_RANGE_PERFOS_FIRST + 2, PL_RANGE_PERFOS_FIRST + 3};
    assert_int_equal(pl_store_restore(st, snap, &err), PL_OK);
    pl_backup_free(snap);
    assert_int_equal(pl_store_uninstall(st, "Squatter", &err), PL_OK);
    assert_int_equal(pl_titles_load(st, "009", &t, &err), PL_OK);
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, PL_RANGE_PERFOS_FIRST), before_name);
    assert_non_null(pl_titles_get(t, PL_TITLE_HELP, PL_RANGE_PERFOS_FIRST + 1));
    pl_titles_free(t);
    free(before_name);
    pl_store_close(st);
}

/* Snapshot -> restore with three languages is the identity (every table byte
 * for byte). */
static void snapshot_restore_three_languages(void **state)
{
    (void)state;
    char path[512];
    pl_store *st = fresh(path, sizeof path);
    pl_error err;
    assert_int_equal(pl_store_add_language(st, "007", &err), PL_OK);
    assert_int_equal(pl_store_add_language(st, "00C", &err), PL_OK);
    pl_install_text txt[] = {{0, "009", "Obj", "Help = with equals"},
                             {0, "007", "Objekt", " leading and trailing "},
                             {0, "00C", "Objet", "ligne 1\nligne 2"},
                             {2, "009", "Ctr", ""}};
    pl_install_req r = small_request("Three");
    r.texts = txt;
    r.ntexts = 4;
    assert_int_equal(pl_store_install(st, &r, NULL, &err), PL_OK);
    char *before = reg_dump(path);
    pl_backup *bk = NULL;
    assert_int_equal(pl_store_snapshot(st, &bk, &err), PL_OK);
    assert_int_equal(bk->nlangs, 3);
    assert_int_equal(pl_store_set_title(st, "007", PL_TITLE_NAME, 2, "changed", &err), PL_OK);
    assert_int_equal(pl_store_restore(st, bk, &err), PL_OK);
    pl_backup_free(bk);
    char *after = reg_dump(path);
    reg_assert_same(before, after);
    free(before);
    free(after);
    pl_store_close(st);
}

/* ------------------------------------------------------------ crash safety */

static int hook_fd = -1;
static void hook_stop(const char *where)
{
    (void)where;
    char c = 'x';
    if (write(hook_fd, &c, 1) != 1) _exit(90);
    for (;;) pause(); /* killed here, inside the transaction */
}

/* Fork a child that opens the store and runs `what` with the hook set; kill
 * it with SIGKILL once it is inside the transaction. */
static void kill_inside(const char *path, int what)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        hook_fd = p[1];
        pl_store *st = NULL;
        pl_error err;
        if (pl_store_open(path, 0, &st, &err) != PL_OK) _exit(91);
        pl__registry_test_hook = hook_stop;
        if (what == 0) {
            pl_install_req r = small_request("Killed");
            pl_store_install(st, &r, NULL, &err);
        } else {
            pl_backup *bk = low_backup(3020, 3021);
            pl_store_restore(st, bk, &err);
        }
        _exit(92); /* the hook never returns */
    }
    close(p[1]);
    char c;
    assert_int_equal(read(p[0], &c, 1), 1);
    close(p[0]);
    assert_int_equal(kill(pid, SIGKILL), 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGKILL);
}

static void check_crash(int what)
{
    char path[512];
    pl_store *st = fresh(path, sizeof path);
    pl_error err;
    assert_int_equal(pl_store_add_language(st, "007", &err), PL_OK);
    pl_store_close(st);
    char *before = reg_dump(path);

    kill_inside(path, what);
    /* The transaction's rollback journal is left behind (a hot journal). */
    char journal[600];
    snprintf(journal, sizeof journal, "%s-journal", path);
    struct stat sb;
    assert_int_equal(stat(journal, &sb), 0);

    /* A reader opens it cleanly and sees the store as it was. */
    assert_int_equal(pl_store_open(path, PL_STORE_READONLY, &st, &err), PL_OK);
    pl_perflib_info i = perflib(st);
    assert_int_equal(i.last_counter, PL_IDX_BUILTIN_RESERVED_LAST);
    pl_provider_info p;
    assert_int_equal(pl_store_provider(st, "Killed", &p, &err), PL_E_NOT_FOUND);
    assert_int_equal(pl_store_provider(st, "Old", &p, &err), PL_E_NOT_FOUND);
    pl_store_close(st);
    /* So does a writer, and the store works. */
    st = reg_open(path);
    char *after = reg_dump(path);
    reg_assert_same(before, after);
    free(after);
    pl_install_req r = small_request("Killed");
    pl_install_result res;
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_OK);
    assert_int_equal(res.first_counter, 3000);
    pl_store_close(st);
    free(before);
}

static void kill9_inside_install(void **state)
{
    (void)state;
    check_crash(0);
}

static void kill9_inside_restore(void **state)
{
    (void)state;
    check_crash(1);
}

/* ------------------------------------------------------------- concurrency */

static const char V0_LAYOUT[] =
    "CREATE TABLE meta(key TEXT NOT NULL PRIMARY KEY, value INTEGER NOT NULL);"
    "CREATE TABLE languages(lang TEXT NOT NULL PRIMARY KEY);"
    "CREATE TABLE titles(lang TEXT NOT NULL REFERENCES languages(lang) ON DELETE CASCADE,"
    " kind INTEGER NOT NULL CHECK(kind IN (0, 1)), idx INTEGER NOT NULL CHECK(idx BETWEEN 1 AND 2147483647),"
    " text TEXT NOT NULL, PRIMARY KEY(lang, kind, idx)) WITHOUT ROWID;"
    "CREATE TABLE providers(name TEXT NOT NULL COLLATE NOCASE PRIMARY KEY,"
    " library TEXT, open_fn TEXT, collect_fn TEXT, close_fn TEXT, object_list TEXT, linkage_export TEXT,"
    " first_counter INTEGER NOT NULL DEFAULT 0, last_counter INTEGER NOT NULL DEFAULT 0,"
    " first_help INTEGER NOT NULL DEFAULT 0, last_help INTEGER NOT NULL DEFAULT 0,"
    " disabled INTEGER NOT NULL DEFAULT 0, open_timeout_ms INTEGER NOT NULL DEFAULT 0,"
    " collect_timeout_ms INTEGER NOT NULL DEFAULT 0, builtin INTEGER NOT NULL DEFAULT 0);"
    "INSERT INTO meta VALUES('Base Index', 1847), ('Last Counter', 3004), ('Last Help', 3005);"
    "INSERT INTO languages VALUES('009');"
    "INSERT INTO titles VALUES('009', 0, 1, '1847'), ('009', 0, 3000, 'Third'), ('009', 1, 3001, 'help');"
    "INSERT INTO providers(name, library, open_fn, collect_fn, close_fn, first_counter, last_counter,"
    " first_help, last_help) VALUES('Third', 'libt.so', 'O', 'C', 'X', 3000, 3004, 3001, 3005);"
    "PRAGMA user_version = 0;";

/* Children wait on a pipe and then all open (and optionally install into)
 * the store at once. */
static void race(const char *path, int n, int install)
{
    int ready[2], go[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(go), 0);
    pid_t pid[4];
    for (int i = 0; i < n; i++) {
        pid[i] = fork();
        assert_true(pid[i] >= 0);
        if (pid[i] == 0) {
            close(ready[0]);
            close(go[1]);
            char c = 'r', buf;
            if (write(ready[1], &c, 1) != 1) _exit(10);
            if (read(go[0], &buf, 1) != 0) _exit(11);
            pl_store *st = NULL;
            pl_error err;
            if (pl_store_open(path, 0, &st, &err) != PL_OK) {
                fprintf(stderr, "child %d: %s\n", i, err.msg);
                _exit(12);
            }
            if (pl_store_schema_version(st) != PL_STORE_SCHEMA_VERSION) _exit(13);
            if (install && (i % 2) == 1) {
                char name[16];
                snprintf(name, sizeof name, "Racer%d", i);
                pl_install_req r = small_request(name);
                if (pl_store_install(st, &r, NULL, &err) != PL_OK) {
                    fprintf(stderr, "child %d: %s\n", i, err.msg);
                    _exit(14);
                }
            }
            pl_store_close(st);
            _exit(0);
        }
    }
    close(ready[1]);
    close(go[0]);
    char buf;
    for (int i = 0; i < n; i++) assert_int_equal(read(ready[0], &buf, 1), 1);
    close(go[1]);
    for (int i = 0; i < n; i++) wait_ok(pid[i]);
    close(ready[0]);
}

/* Four processes open one version-0 store at once: every one succeeds, the
 * store is migrated once, to exactly what one process makes of it. */
static void concurrent_migration(void **state)
{
    (void)state;
    char path[512], solo[512];
    reg_tmpfile(path, sizeof path, "v0.db");
    reg_tmpfile(solo, sizeof solo, "v0solo.db");
    reg_sql(path, V0_LAYOUT);
    reg_sql(solo, V0_LAYOUT);
    race(path, 4, 0);
    pl_store_close(reg_open(solo));
    assert_int_equal(reg_user_version(path), PL_STORE_SCHEMA_VERSION);
    char *a = reg_dump(path), *b = reg_dump(solo);
    reg_assert_same(b, a);
    free(a);
    free(b);
}

/* The seed refresh of an old store racing with installs: the refresh happens
 * once, every install gets its own range above the reserved block, and no
 * built-in title is lost or duplicated. */
static void seed_refresh_races_install(void **state)
{
    (void)state;
    char path[512], solo[512];
    pl_store_close(fresh(path, sizeof path));
    reg_sql(path, "UPDATE meta SET value = 0 WHERE key = 'Seed Version';"
                  "DELETE FROM titles WHERE kind = 0 AND idx = 1848;");
    reg_tmpfile(solo, sizeof solo, "solo.db");
    pl_store_close(reg_open(solo));
    race(path, 4, 1);
    pl_store *st = reg_open(path);
    pl_error err;
    pl_provider_info a, b;
    assert_int_equal(pl_store_provider(st, "Racer1", &a, &err), PL_OK);
    assert_int_equal(pl_store_provider(st, "Racer3", &b, &err), PL_OK);
    assert_true(a.first_counter > PL_IDX_BUILTIN_RESERVED_LAST && b.first_counter > PL_IDX_BUILTIN_RESERVED_LAST);
    assert_true(a.last_counter < b.first_counter || b.last_counter < a.first_counter);
    pl_provider_info_clear(&a);
    pl_provider_info_clear(&b);
    pl_store_close(st);
    /* Without the two providers, the store is what a fresh one is. */
    st = reg_open(path);
    assert_int_equal(pl_store_uninstall(st, "Racer1", &err), PL_OK);
    assert_int_equal(pl_store_uninstall(st, "Racer3", &err), PL_OK);
    assert_int_equal(pl_store_remove_provider(st, "Racer1", &err), PL_OK);
    assert_int_equal(pl_store_remove_provider(st, "Racer3", &err), PL_OK);
    pl_store_close(st);
    char *x = reg_dump(path), *y = reg_dump(solo);
    reg_assert_same(y, x);
    free(x);
    free(y);
}

/* ------------------------------------------------------- hostile files */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = malloc(1 << 20);
    assert_non_null(buf);
    *len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

static void assert_file_is(const char *path, const char *data, size_t len)
{
    size_t n = 0;
    char *now = slurp(path, &n);
    assert_non_null(now);
    assert_int_equal(n, len);
    assert_memory_equal(now, data, len);
    free(now);
}

static void open_refused_unchanged(const char *path, int want)
{
    size_t len = 0;
    char *before = slurp(path, &len);
    pl_store *st = NULL;
    pl_error err;
    int s = pl_store_open(path, 0, &st, &err);
    if (s != want) fprintf(stderr, "%s: %d %s\n", path, s, err.msg);
    assert_int_equal(s, want);
    assert_null(st);
    assert_non_null(strstr(err.msg, path));
    assert_int_equal(pl_store_open(path, PL_STORE_READONLY, &st, &err), want);
    assert_null(st);
    if (before) {
        assert_file_is(path, before, len);
        free(before);
    }
}

static void files_that_are_not_stores(void **state)
{
    (void)state;
    char dir[256], path[512];
    reg_tmpdir(dir, sizeof dir);

    snprintf(path, sizeof path, "%s/text.db", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (int i = 0; i < 200; i++) fputs("this is not an SQLite database at all\n", f);
    fclose(f);
    open_refused_unchanged(path, PL_E_STORE);

    /* a real store cut short after its header page */
    char real[512];
    snprintf(real, sizeof real, "%s/real.db", dir);
    pl_store_close(reg_open(real));
    size_t len = 0;
    char *data = slurp(real, &len);
    assert_true(len > 8192);
    snprintf(path, sizeof path, "%s/truncated.db", dir);
    f = fopen(path, "wb");
    fwrite(data, 1, 4096 + 100, f);
    fclose(f);
    free(data);
    size_t tl = 0;
    char *tb = slurp(path, &tl);
    pl_store *st = NULL;
    pl_error err;
    int s = pl_store_open(path, 0, &st, &err);
    assert_true(s == PL_E_STORE || s == PL_E_SCHEMA);
    assert_null(st);
    assert_file_is(path, tb, tl);
    free(tb);

    snprintf(path, sizeof path, "%s/adir", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    open_refused_unchanged(path, PL_E_IO);
    /* the same through PERFLIB_REGISTRY */
    setenv("PERFLIB_REGISTRY", path, 1);
    assert_int_equal(pl_store_open(NULL, 0, &st, &err), PL_E_IO);
    assert_null(st);
    unsetenv("PERFLIB_REGISTRY");

    char loop_a[512], loop_b[512];
    snprintf(loop_a, sizeof loop_a, "%s/loop_a", dir);
    snprintf(loop_b, sizeof loop_b, "%s/loop_b", dir);
    assert_int_equal(symlink(loop_b, loop_a), 0);
    assert_int_equal(symlink(loop_a, loop_b), 0);
    assert_int_equal(pl_store_open(loop_a, 0, &st, &err), PL_E_IO);
    assert_int_equal(pl_store_open(loop_a, PL_STORE_READONLY, &st, &err), PL_E_NOT_FOUND);
    assert_null(st);

    /* a path longer than any file system takes */
    char *longp = malloc(5000);
    assert_non_null(longp);
    int k = snprintf(longp, 5000, "%s/", dir);
    while (k < 4900) k += snprintf(longp + k, (size_t)(5000 - k), "abcdefghij/");
    snprintf(longp + k, (size_t)(5000 - k), "perflib.db");
    s = pl_store_open(longp, 0, &st, &err);
    assert_int_equal(s, PL_E_IO);
    assert_null(st);
    free(longp);
}

/* --------------------------------------------------------- edge values */

static void edge_indices_and_texts(void **state)
{
    (void)state;
    char path[512];
    pl_store *st = fresh(path, sizeof path);
    pl_error err;
    char *before = reg_dump(path);
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 0, "zero", &err), PL_E_RANGE);
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 0x80000000u, "big", &err), PL_E_RANGE);
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 0xFFFFFFFFu, "big", &err), PL_E_RANGE);
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 3000, "bad \xC3 utf8", &err), PL_E_ENCODING);
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 3000, "overlong \xC0\xAF", &err), PL_E_ENCODING);
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 3000, "surrogate \xED\xA0\x80", &err),
                     PL_E_ENCODING);
    assert_int_equal(pl_store_set_title(st, "abc", PL_TITLE_NAME, 3000, "x", &err), PL_E_NOT_FOUND);
    assert_int_equal(pl_store_set_title(st, "009", 2, 3000, "x", &err), PL_E_INVAL);
    char *after = reg_dump(path);
    reg_assert_same(before, after);
    free(after);
    /* the top index works; an embedded NUL ends the C string */
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 0x7FFFFFFFu, "top\0hidden", &err), PL_OK);
    pl_titles *t = NULL;
    assert_int_equal(pl_titles_load(st, "009", &t, &err), PL_OK);
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 0x7FFFFFFFu), "top");
    pl_titles_free(t);
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 0x7FFFFFFFu, NULL, &err), PL_OK);
    after = reg_dump(path);
    reg_assert_same(before, after);
    free(after);

    /* Last Counter overflow: refused whole, nothing changes */
    pl_install_req r = small_request("Huge");
    r.max_offset = 0x7FFFFFFEu;
    assert_int_equal(pl_store_install(st, &r, NULL, &err), PL_E_INVAL);
    r.max_offset = 0x80000000u;
    assert_int_equal(pl_store_install(st, &r, NULL, &err), PL_E_INVAL);
    r.max_offset = 0xFFFFFFFEu;
    assert_int_equal(pl_store_install(st, &r, NULL, &err), PL_E_INVAL);
    after = reg_dump(path);
    reg_assert_same(before, after);
    free(after);
    /* the largest that fits: Last Help reaches 0x7FFFFFFF exactly (Last
     * Counter 2998 and Last Help 2999 give First 3000/3001) */
    r.max_offset = 0x7FFFFFFFu - 3001u + 1u; /* odd: refused */
    assert_int_equal(pl_store_install(st, &r, NULL, &err), PL_E_INVAL);
    r.max_offset = 0x7FFFFFFFu - 3001u + 2u; /* one step too far */
    assert_int_equal(pl_store_install(st, &r, NULL, &err), PL_E_INVAL);
    r.max_offset = 0x7FFFFFFFu - 3001u;
    pl_install_result res;
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_OK);
    assert_int_equal(res.first_counter, 3000);
    assert_int_equal(res.last_counter, 0x7FFFFFFEu);
    assert_int_equal(res.last_help, 0x7FFFFFFFu);
    pl_install_req r2 = small_request("NoRoom");
    r2.max_offset = 0;
    r2.ntexts = 1;
    assert_int_equal(pl_store_install(st, &r2, NULL, &err), PL_E_INVAL);
    assert_int_equal(pl_store_uninstall(st, "Huge", &err), PL_OK);
    assert_int_equal(pl_store_remove_provider(st, "Huge", &err), PL_OK);
    after = reg_dump(path);
    reg_assert_same(before, after);
    free(after);
    free(before);
    pl_store_close(st);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(language_ids_have_one_spelling),
        cmocka_unit_test(restore_low_last_counter_never_reused),
        cmocka_unit_test(install_after_odd_last_counter),
        cmocka_unit_test(uninstall_overlapping_range_keeps_other),
        cmocka_unit_test(snapshot_restore_three_languages),
        cmocka_unit_test(kill9_inside_install),
        cmocka_unit_test(kill9_inside_restore),
        cmocka_unit_test(concurrent_migration),
        cmocka_unit_test(seed_refresh_races_install),
        cmocka_unit_test(files_that_are_not_stores),
        cmocka_unit_test(edge_indices_and_texts),
    };
    return pl_test_run(tests, argc, argv);
}
