/* Registry store: creation, seeding, location, read-only opens, migrations,
 * languages and single titles. */
#include <sys/wait.h>

#include "reg_test.h"

static void seed_exact(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "perflib.db");
    pl_store *st = reg_open(path);
    assert_string_equal(pl_store_path(st), path);
    assert_int_equal(pl_store_schema_version(st), PL_STORE_SCHEMA_VERSION);
    assert_int_equal(reg_user_version(path), 4);

    pl_perflib_info info;
    pl_error err;
    assert_int_equal(pl_store_perflib(st, &info, &err), PL_OK);
    assert_int_equal(info.base_index, 1847);
    assert_int_equal(info.last_counter, 2998); /* the reserved block's end */
    assert_int_equal(info.last_help, 2999);
    assert_true(PL_CTR_LAST_BUILTIN <= PL_IDX_BUILTIN_RESERVED_LAST);

    pl_titles *t = NULL;
    assert_int_equal(pl_titles_load(st, "009", &t, &err), PL_OK);
    assert_string_equal(pl_titles_language(t), "009");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 1), "1847");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 2), "System");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 4), "Memory");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 6), "% Processor Time");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 230), "Process");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 232), "Thread");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 238), "Processor");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 674), "System Up Time");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 1534), "ICMPv6");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 1846), "End Marker");
    assert_null(pl_titles_get(t, PL_TITLE_NAME, 1847)); /* odd: help only */
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 1848), "Load Average 1 Minute");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 1962), "MTU");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 1964), "Unavailable Counters");
    assert_string_equal(pl_titles_get(t, PL_TITLE_HELP, 1847), "End Marker");
    assert_null(pl_titles_get(t, PL_TITLE_NAME, 8));
    assert_null(pl_titles_get(t, PL_TITLE_HELP, 1));
    assert_null(pl_titles_get(t, PL_TITLE_HELP, 1848));
    assert_null(pl_titles_get(t, PL_TITLE_NAME, 1963));
    assert_null(pl_titles_get(t, PL_TITLE_NAME, 1974));
    assert_int_equal(pl_titles_last_counter(t), 2998);
    assert_int_equal(pl_titles_last_help(t), 2999);

    /* Every name but the specials has a help at +1, and names are even. */
    size_t n = pl_titles_count(t, PL_TITLE_NAME);
    assert_int_equal(n, 329); /* 327 objects/counters + 1 and 1846 */
    assert_int_equal(pl_titles_count(t, PL_TITLE_HELP), 328);
    for (size_t i = 0; i < n; i++) {
        uint32_t idx;
        const char *text;
        assert_int_equal(pl_titles_entry(t, PL_TITLE_NAME, i, &idx, &text), PL_OK);
        assert_true(text[0] != '\0');
        if (idx == 1 || idx == 1846 || idx == 1847) continue;
        assert_int_equal(idx % 2, 0);
        const char *help = pl_titles_get(t, PL_TITLE_HELP, PL_HELP(idx));
        assert_non_null(help);
        assert_true(strlen(help) > 10);
    }
    pl_titles_free(t);
    pl_store_close(st);

    /* Opening again does not seed twice. */
    char *before = reg_dump(path);
    st = reg_open(path);
    pl_store_close(st);
    char *after = reg_dump(path);
    reg_assert_same(before, after);
    free(before);
    free(after);
}

static void seed_providers(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "perflib.db");
    pl_store *st = reg_open(path);
    pl_provider_info *list = NULL;
    size_t n = 0;
    pl_error err;
    assert_int_equal(pl_store_providers(st, &list, &n, &err), PL_OK);
    assert_int_equal(n, 5);
    /* sorted by name, case-insensitively */
    assert_string_equal(list[0].name, "AppCounters");
    assert_string_equal(list[1].name, "PerfDisk");
    assert_string_equal(list[2].name, "PerfNet");
    assert_string_equal(list[3].name, "PerfOS");
    assert_string_equal(list[4].name, "PerfProc");
    assert_string_equal(list[0].library, "libappcounters.so");
    assert_null(list[0].object_list);
    assert_int_equal(list[0].first_counter, 0);
    const pl_provider_info *os = &list[3];
    assert_string_equal(os->library, "libperfos.so");
    assert_string_equal(os->open, "PerfOsOpen");
    assert_string_equal(os->collect, "PerfOsCollect");
    assert_string_equal(os->close, "PerfOsClose");
    assert_string_equal(os->object_list, "2 4 238 700 260 1966");
    assert_null(os->linkage_export);
    assert_int_equal(os->first_counter, 1848);
    assert_int_equal(os->last_counter, 1972);
    assert_int_equal(os->first_help, 1849);
    assert_int_equal(os->last_help, 1973);
    assert_int_equal(os->builtin, 1);
    assert_int_equal(os->disabled, 0);
    assert_null(os->disable_reason);
    assert_string_equal(list[4].object_list, "230 232 740 786 816");
    assert_string_equal(list[4].library, "libperfproc.so");
    assert_string_equal(list[4].collect, "PerfProcCollect");
    assert_int_equal(list[4].first_counter, 1922);
    assert_int_equal(list[4].last_counter, 1964);
    assert_string_equal(list[1].object_list, "234 236");
    assert_string_equal(list[1].open, "PerfDiskOpen");
    assert_int_equal(list[1].first_counter, 1948);
    assert_int_equal(list[1].last_counter, 1954);
    assert_string_equal(list[2].object_list, "510 546 548 582 638 658 1530 1532 1534");
    assert_string_equal(list[2].close, "PerfNetClose");
    assert_int_equal(list[2].first_counter, 1956);
    assert_int_equal(list[2].last_help, 1963);
    pl_provider_list_free(list, n);
    pl_store_close(st);
}

static void default_path_env(void **state)
{
    (void)state;
    char dir[256], path[512];
    reg_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/a/b/c/store.db", dir);
    setenv("PERFLIB_REGISTRY", path, 1);
    char out[512];
    assert_int_equal(pl_store_default_path(out, sizeof out), (int)strlen(path));
    assert_string_equal(out, path);
    /* snprintf rules: truncated, NUL-terminated, full length returned */
    char small[8];
    assert_int_equal(pl_store_default_path(small, sizeof small), (int)strlen(path));
    assert_int_equal(strlen(small), 7);
    assert_memory_equal(small, path, 7);

    /* A store the user names is never given directories: a mistyped
     * PERFLIB_REGISTRY fails, saying which directory is missing, and
     * creates nothing. */
    pl_store *st = NULL;
    pl_error err;
    assert_int_equal(pl_store_open(NULL, 0, &st, &err), PL_E_NOT_FOUND);
    assert_null(st);
    assert_non_null(strstr(err.msg, "PERFLIB_REGISTRY"));
    char missing[512];
    snprintf(missing, sizeof missing, "the directory %s/a/b/c does not exist", dir);
    assert_non_null(strstr(err.msg, missing));
    struct stat sb;
    char a[512];
    snprintf(a, sizeof a, "%s/a", dir);
    assert_int_not_equal(stat(a, &sb), 0);

    /* in a directory that exists, the store file is made */
    snprintf(path, sizeof path, "%s/store.db", dir);
    setenv("PERFLIB_REGISTRY", path, 1);
    assert_int_equal(pl_store_open(NULL, 0, &st, &err), PL_OK);
    assert_string_equal(pl_store_path(st), path);
    pl_store_close(st);
    assert_int_equal(stat(path, &sb), 0);
    unsetenv("PERFLIB_REGISTRY");
}

/* A directory, a file in place of a directory, a file nobody may read: each
 * named for what it is, not SQLite's "disk I/O error" or "unable to open
 * database file". */
static void named_store_location_checked(void **state)
{
    (void)state;
    char dir[256], path[512];
    reg_tmpdir(dir, sizeof dir);
    pl_store *st = NULL;
    pl_error err;
    assert_int_equal(pl_store_open(dir, 0, &st, &err), PL_E_IO);
    assert_non_null(strstr(err.msg, "is a directory; a store is a file"));
    assert_int_equal(pl_store_open(dir, PL_STORE_READONLY, &st, &err), PL_E_IO);
    assert_non_null(strstr(err.msg, "is a directory"));

    snprintf(path, sizeof path, "%s/plain", dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fclose(fp);
    snprintf(path, sizeof path, "%s/plain/x.db", dir);
    assert_int_equal(pl_store_open(path, 0, &st, &err), PL_E_NOT_FOUND);
    assert_non_null(strstr(err.msg, "plain is not a directory"));

    /* another user's unreadable store: the system's reason */
    snprintf(path, sizeof path, "%s/s.db", dir);
    pl_store_close(reg_open(path));
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(chmod(dir, 0755), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0) _exit(10);
        pl_store *s2 = NULL;
        pl_error e2;
        int rc = pl_store_open(path, PL_STORE_READONLY, &s2, &e2);
        if (rc != PL_E_IO) _exit(11);
        if (!strstr(e2.msg, "Permission denied")) {
            fprintf(stderr, "message: %s\n", e2.msg);
            _exit(12);
        }
        _exit(0);
    }
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 0);
}

static void default_path_fallback(void **state)
{
    (void)state;
    unsetenv("PERFLIB_REGISTRY");
    char out[1024];
    pl_store_default_path(out, sizeof out);
    struct stat sb;
    if (stat(PL_INSTALLED_STORE, &sb) == 0) assert_string_equal(out, PL_INSTALLED_STORE);
    else assert_string_equal(out, PL_SOURCE_STORE);
    /* An empty variable does not count. */
    setenv("PERFLIB_REGISTRY", "", 1);
    char out2[1024];
    pl_store_default_path(out2, sizeof out2);
    assert_string_equal(out, out2);
    unsetenv("PERFLIB_REGISTRY");
}

static void readonly_missing_fails(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "missing.db");
    pl_store *st = (pl_store *)1;
    pl_error err;
    assert_int_equal(pl_store_open(path, PL_STORE_READONLY, &st, &err), PL_E_NOT_FOUND);
    assert_null(st);
    assert_int_equal(err.status, PL_E_NOT_FOUND);
    assert_non_null(strstr(err.msg, "missing.db"));
    struct stat sb;
    assert_int_not_equal(stat(path, &sb), 0); /* not created */
    /* bad flags */
    assert_int_equal(pl_store_open(path, 0x80, &st, &err), PL_E_INVAL);
    assert_int_equal(pl_store_open(path, 0, NULL, &err), PL_E_INVAL);
}

static void readonly_open_reads(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "perflib.db");
    pl_store_close(reg_open(path));
    pl_store *st = NULL;
    pl_error err;
    assert_int_equal(pl_store_open(path, PL_STORE_READONLY, &st, &err), PL_OK);
    pl_titles *t = NULL;
    assert_int_equal(pl_titles_load(st, NULL, &t, &err), PL_OK);
    assert_int_equal(pl_titles_find(t, PL_TITLE_NAME, "System"), 2);
    pl_titles_free(t);
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 2, "X", &err), PL_E_INVAL);
    assert_int_equal(pl_store_disable_provider(st, "PerfOS", "x", &err), PL_E_INVAL);
    pl_store_close(st);
}

/* The version-0 layout: like version 1 without providers.disable_reason and
 * providers.disable_time. */
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
    "INSERT INTO meta VALUES('Base Index', 1847), ('Last Counter', 1850), ('Last Help', 1851);"
    "INSERT INTO languages VALUES('009');"
    "INSERT INTO titles VALUES('009', 0, 1, '1847'), ('009', 0, 2, 'System v0'), ('009', 1, 3, 'old help'),"
    " ('009', 0, 1848, 'Old Counter'), ('009', 1, 1849, 'Old help text');"
    "INSERT INTO providers(name, library, open_fn, collect_fn, close_fn, first_counter, last_counter,"
    " first_help, last_help, disabled) VALUES('OldProv', 'libold.so', 'O', 'C', 'X', 1848, 1850, 1849, 1851, 1);"
    "PRAGMA user_version = 0;";

/* A current-schema store written by an older seed (Seed Version 0): opening
 * it for writing adds the built-in titles and provider records it lacks,
 * keeps what it has, and leaves a read-only open alone. */
static void seed_refresh(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "stale.db");
    pl_store *st = reg_open(path);
    pl_error err;
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 1964, NULL, &err), PL_OK);
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 238, "Prozessor", &err), PL_OK);
    pl_store_close(st);
    reg_sql(path, "UPDATE meta SET value = 0 WHERE key = 'Seed Version';"
                  "UPDATE providers SET object_list = '2', library = 'old.so' WHERE name = 'PerfOS';"
                  "DELETE FROM providers WHERE name = 'PerfNet';");
    assert_int_equal(pl_store_open(path, PL_STORE_READONLY, &st, &err), PL_OK);
    pl_titles *t = NULL;
    assert_int_equal(pl_titles_load(st, "009", &t, &err), PL_OK);
    assert_null(pl_titles_get(t, PL_TITLE_NAME, 1964));
    pl_titles_free(t);
    pl_store_close(st);

    st = reg_open(path);
    assert_int_equal(pl_titles_load(st, "009", &t, &err), PL_OK);
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 1964), "Unavailable Counters");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 238), "Prozessor");
    pl_titles_free(t);
    pl_provider_info p;
    assert_int_equal(pl_store_provider(st, "PerfOS", &p, &err), PL_OK);
    assert_string_equal(p.object_list, "2 4 238 700 260 1966");
    assert_string_equal(p.library, "libperfos.so");
    pl_provider_info_clear(&p);
    assert_int_equal(pl_store_provider(st, "PerfNet", &p, &err), PL_OK);
    assert_int_equal(p.builtin, 1);
    pl_provider_info_clear(&p);
    pl_store_close(st);
}

static void migrate_from_v0(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "old.db");
    reg_sql(path, V0_LAYOUT);
    assert_int_equal(reg_user_version(path), 0);

    /* read-only cannot migrate */
    pl_store *st = NULL;
    pl_error err;
    assert_int_equal(pl_store_open(path, PL_STORE_READONLY, &st, &err), PL_E_SCHEMA);
    assert_null(st);
    assert_int_equal(reg_user_version(path), 0);

    st = reg_open(path);
    assert_int_equal(pl_store_schema_version(st), 4); /* 0 -> 1 -> 2 -> 3 -> 4 */
    assert_int_equal(reg_user_version(path), 4);
    /* Data kept; the seed refresh adds the missing built-in titles without
     * overwriting any title already there (1, 2 and 1848 were). */
    pl_titles *t = NULL;
    assert_int_equal(pl_titles_load(st, "009", &t, &err), PL_OK);
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 2), "System v0");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 1848), "Old Counter");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 238), "Processor");
    assert_int_equal(pl_titles_count(t, PL_TITLE_NAME), 329);
    assert_int_equal(pl_titles_last_counter(t), 2998);
    pl_titles_free(t);
    pl_provider_info p;
    assert_int_equal(pl_store_provider(st, "oldprov", &p, &err), PL_OK);
    assert_string_equal(p.name, "OldProv");
    assert_int_equal(p.disabled, 1);
    assert_null(p.disable_reason);
    assert_int_equal(p.disable_time, 0);
    assert_int_equal(p.first_counter, 1848);
    assert_int_equal(p.isolation, PL_ISOLATION_HELPER); /* not built-in: isolated by step 1 -> 2 */
    pl_provider_info_clear(&p);
    /* the new columns work */
    assert_int_equal(pl_store_disable_provider(st, "OldProv", "migrated", &err), PL_OK);
    assert_int_equal(pl_store_provider(st, "OldProv", &p, &err), PL_OK);
    assert_string_equal(p.disable_reason, "migrated");
    assert_true(p.disable_time > 0);
    pl_provider_info_clear(&p);
    pl_store_close(st);

    /* now read-only works too */
    assert_int_equal(pl_store_open(path, PL_STORE_READONLY, &st, &err), PL_OK);
    pl_store_close(st);
}

/* The version-1 layout: version 2 without providers.isolation. One built-in
 * record and one installed by lodctr. */
static const char V1_LAYOUT[] =
    "CREATE TABLE meta(key TEXT NOT NULL PRIMARY KEY, value INTEGER NOT NULL);"
    "CREATE TABLE languages(lang TEXT NOT NULL PRIMARY KEY);"
    "CREATE TABLE titles(lang TEXT NOT NULL REFERENCES languages(lang) ON DELETE CASCADE,"
    " kind INTEGER NOT NULL CHECK(kind IN (0, 1)), idx INTEGER NOT NULL CHECK(idx BETWEEN 1 AND 2147483647),"
    " text TEXT NOT NULL, PRIMARY KEY(lang, kind, idx)) WITHOUT ROWID;"
    "CREATE TABLE providers(name TEXT NOT NULL COLLATE NOCASE PRIMARY KEY,"
    " library TEXT, open_fn TEXT, collect_fn TEXT, close_fn TEXT, object_list TEXT, linkage_export TEXT,"
    " first_counter INTEGER NOT NULL DEFAULT 0, last_counter INTEGER NOT NULL DEFAULT 0,"
    " first_help INTEGER NOT NULL DEFAULT 0, last_help INTEGER NOT NULL DEFAULT 0,"
    " disabled INTEGER NOT NULL DEFAULT 0, disable_reason TEXT, disable_time INTEGER NOT NULL DEFAULT 0,"
    " open_timeout_ms INTEGER NOT NULL DEFAULT 0,"
    " collect_timeout_ms INTEGER NOT NULL DEFAULT 0, builtin INTEGER NOT NULL DEFAULT 0);"
    "INSERT INTO meta VALUES('Base Index', 1847), ('Last Counter', 3000), ('Last Help', 3001),"
    " ('Seed Version', 0);"
    "INSERT INTO languages VALUES('009');"
    "INSERT INTO titles VALUES('009', 0, 1, '1847'), ('009', 0, 2, 'System v1'), ('009', 0, 3000, 'Third');"
    "INSERT INTO providers(name, library, open_fn, collect_fn, close_fn, builtin, collect_timeout_ms)"
    " VALUES('PerfOS', 'libperfos.so', 'PerfOsOpen', 'PerfOsCollect', 'PerfOsClose', 1, 0),"
    " ('ThirdParty', '/opt/tp/libtp.so', 'O', 'C', 'X', 0, 750);"
    "UPDATE providers SET disabled = 1, disable_reason = 'by hand', disable_time = 1700000000"
    " WHERE name = 'ThirdParty';"
    "PRAGMA user_version = 1;";

/* Step 1 -> 2 adds providers.isolation: built-in records in-process, every
 * other record isolated; everything else is kept. */
static void migrate_from_v1(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "v1.db");
    reg_sql(path, V1_LAYOUT);
    pl_store *st = NULL;
    pl_error err;
    assert_int_equal(pl_store_open(path, PL_STORE_READONLY, &st, &err), PL_E_SCHEMA);
    assert_non_null(strstr(err.msg, "schema version 1, this library reads 4"));
    assert_int_equal(reg_user_version(path), 1);

    st = reg_open(path);
    assert_int_equal(pl_store_schema_version(st), 4);
    assert_int_equal(reg_user_version(path), 4);
    pl_provider_info p;
    assert_int_equal(pl_store_provider(st, "ThirdParty", &p, &err), PL_OK);
    assert_int_equal(p.isolation, PL_ISOLATION_HELPER);
    assert_int_equal(p.builtin, 0);
    assert_int_equal(p.disabled, 1);
    assert_string_equal(p.disable_reason, "by hand");
    assert_int_equal(p.disable_time, 1700000000);
    assert_int_equal(p.collect_timeout_ms, 750);
    assert_string_equal(p.library, "/opt/tp/libtp.so");
    pl_provider_info_clear(&p);
    assert_int_equal(pl_store_provider(st, "PerfOS", &p, &err), PL_OK);
    assert_int_equal(p.isolation, PL_ISOLATION_INPROC);
    assert_int_equal(p.builtin, 1);
    pl_provider_info_clear(&p);
    /* built-in records the v1 store lacked come in-process from the seed */
    assert_int_equal(pl_store_provider(st, "PerfNet", &p, &err), PL_OK);
    assert_int_equal(p.isolation, PL_ISOLATION_INPROC);
    pl_provider_info_clear(&p);
    pl_titles *t = NULL;
    assert_int_equal(pl_titles_load(st, "009", &t, &err), PL_OK);
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 2), "System v1");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 3000), "Third");
    pl_titles_free(t);
    pl_store_close(st);
    assert_int_equal(pl_store_open(path, PL_STORE_READONLY, &st, &err), PL_OK);
    pl_store_close(st);
}

/* Step 3 -> 4 adds providers.app_owner and providers.app_publishers
 * (docs/app-counters.md, "Who may publish"): a record made before has
 * none (-1), everything else is kept; the owner and the publishers are
 * written and read back, and a malformed list is refused. */
static void migrate_from_v3_app_owner(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "v3.db");
    pl_store *st = reg_open(path);
    pl_error err;
    pl_provider_info p;
    memset(&p, 0, sizeof p);
    p.name = "SomeApp";
    p.linkage_export = "perflib application";
    assert_int_equal(pl_store_set_provider(st, &p, &err), PL_OK);
    assert_int_equal(pl_store_set_app_owner(st, "SomeApp", 1234, "5,6", &err), PL_OK);
    pl_store_close(st);
    reg_sql(path, "ALTER TABLE providers DROP COLUMN app_owner; ALTER TABLE providers DROP COLUMN app_publishers;"
                  " PRAGMA user_version = 3;");
    assert_int_equal(pl_store_open(path, PL_STORE_READONLY, &st, &err), PL_E_SCHEMA);
    st = reg_open(path);
    assert_int_equal(pl_store_schema_version(st), 4);
    pl_provider_info got;
    assert_int_equal(pl_store_provider(st, "SomeApp", &got, &err), PL_OK);
    assert_int_equal(got.app_owner, -1);
    assert_null(got.app_publishers);
    assert_string_equal(got.linkage_export, "perflib application");
    pl_provider_info_clear(&got);
    assert_int_equal(pl_store_set_app_owner(st, "someapp", 1000, "65534,7", &err), PL_OK);
    assert_int_equal(pl_store_provider(st, "SomeApp", &got, &err), PL_OK);
    assert_int_equal(got.app_owner, 1000);
    assert_string_equal(got.app_publishers, "65534,7");
    pl_provider_info_clear(&got);
    uint32_t u[PL_STORE_MAX_PUBLISHERS];
    assert_int_equal(pl_store_parse_publishers("65534,7", u), 2);
    assert_int_equal(u[0], 65534);
    assert_int_equal(u[1], 7);
    assert_int_equal(pl_store_parse_publishers("", u), 0);
    const char *bad[] = {"1,", ",1", "1,,2", "x", "1 2", "-1", "4294967295", "99999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(pl_store_parse_publishers(bad[i], u), -1);
        assert_int_equal(pl_store_set_app_owner(st, "SomeApp", 1, bad[i], &err), PL_E_INVAL);
    }
    assert_int_equal(pl_store_set_app_owner(st, "SomeApp", -1, NULL, &err), PL_E_INVAL);
    assert_int_equal(pl_store_set_app_owner(st, "SomeApp", 4294967295LL, NULL, &err), PL_E_INVAL);
    assert_int_equal(pl_store_set_app_owner(st, "NoSuchApp", 1, NULL, &err), PL_E_NOT_FOUND);
    /* A damaged value read back: no owner, no publishers (the safe side). */
    pl_store_close(st);
    reg_sql(path, "UPDATE providers SET app_owner = 'x', app_publishers = '1,,2' WHERE name = 'SomeApp';");
    st = reg_open(path);
    assert_int_equal(pl_store_provider(st, "SomeApp", &got, &err), PL_OK);
    assert_int_equal(got.app_owner, -1);
    assert_null(got.app_publishers);
    pl_provider_info_clear(&got);
    pl_store_close(st);
}

/* pl_store_set_provider writes the mode; pl_store_install isolates a record
 * it creates unless told otherwise and keeps an existing record's mode. */
static void provider_isolation(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "iso.db");
    pl_store *st = reg_open(path);
    pl_error err;
    pl_provider_info p, got;
    memset(&p, 0, sizeof p);
    p.name = "Mode";
    p.library = "libmode.so";
    p.collect = "C";
    p.isolation = PL_ISOLATION_HELPER;
    assert_int_equal(pl_store_set_provider(st, &p, &err), PL_OK);
    assert_int_equal(pl_store_provider(st, "Mode", &got, &err), PL_OK);
    assert_int_equal(got.isolation, PL_ISOLATION_HELPER);
    pl_provider_info_clear(&got);
    p.isolation = PL_ISOLATION_INPROC;
    assert_int_equal(pl_store_set_provider(st, &p, &err), PL_OK);
    assert_int_equal(pl_store_provider(st, "Mode", &got, &err), PL_OK);
    assert_int_equal(got.isolation, PL_ISOLATION_INPROC);
    pl_provider_info_clear(&got);
    char *before = reg_dump(path);
    p.isolation = 2;
    assert_int_equal(pl_store_set_provider(st, &p, &err), PL_E_INVAL);
    assert_string_equal(err.msg, "provider 'Mode': isolation 2 is neither in-process (0) nor isolated (1)");
    char *after = reg_dump(path);
    reg_assert_same(before, after);
    free(before);
    free(after);

    pl_install_text txt[] = {{0, "009", "Obj", "Obj help"}};
    uint32_t objs[] = {0};
    pl_install_req req;
    memset(&req, 0, sizeof req);
    req.provider = "Fresh";
    req.library = "libfresh.so";
    req.texts = txt;
    req.ntexts = 1;
    req.object_offsets = objs;
    req.nobjects = 1;
    assert_int_equal(pl_store_install(st, &req, NULL, &err), PL_OK);
    assert_int_equal(pl_store_provider(st, "Fresh", &got, &err), PL_OK);
    assert_int_equal(got.isolation, PL_ISOLATION_HELPER);
    pl_provider_info_clear(&got);
    /* an existing in-process record keeps its mode by default... */
    req.provider = "Mode";
    assert_int_equal(pl_store_install(st, &req, NULL, &err), PL_OK);
    assert_int_equal(pl_store_provider(st, "Mode", &got, &err), PL_OK);
    assert_int_equal(got.isolation, PL_ISOLATION_INPROC);
    pl_provider_info_clear(&got);
    assert_int_equal(pl_store_uninstall(st, "Mode", &err), PL_OK);
    /* ...and takes the one asked for */
    req.isolation = PL_INSTALL_ISOLATION_HELPER;
    assert_int_equal(pl_store_install(st, &req, NULL, &err), PL_OK);
    assert_int_equal(pl_store_provider(st, "Mode", &got, &err), PL_OK);
    assert_int_equal(got.isolation, PL_ISOLATION_HELPER);
    pl_provider_info_clear(&got);
    req.provider = "InProc";
    req.isolation = PL_INSTALL_ISOLATION_INPROC;
    assert_int_equal(pl_store_install(st, &req, NULL, &err), PL_OK);
    assert_int_equal(pl_store_provider(st, "InProc", &got, &err), PL_OK);
    assert_int_equal(got.isolation, PL_ISOLATION_INPROC);
    pl_provider_info_clear(&got);
    req.provider = "Bad";
    req.isolation = 3;
    assert_int_equal(pl_store_install(st, &req, NULL, &err), PL_E_INVAL);
    assert_string_equal(err.msg, "install Bad: unknown isolation 3");
    assert_int_equal(pl_store_provider(st, "Bad", &got, &err), PL_E_NOT_FOUND);
    /* the built-in providers run in-process */
    assert_int_equal(pl_store_provider(st, "PerfProc", &got, &err), PL_OK);
    assert_int_equal(got.isolation, PL_ISOLATION_INPROC);
    pl_provider_info_clear(&got);
    pl_store_close(st);
}

static void future_version_refused(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "future.db");
    pl_store_close(reg_open(path));
    reg_sql(path, "PRAGMA user_version = 7");
    char *before = reg_dump(path);
    pl_store *st = NULL;
    pl_error err;
    assert_int_equal(pl_store_open(path, 0, &st, &err), PL_E_SCHEMA);
    assert_null(st);
    assert_non_null(strstr(err.msg, "7"));
    assert_int_equal(pl_store_open(path, PL_STORE_READONLY, &st, &err), PL_E_SCHEMA);
    assert_null(st);
    char *after = reg_dump(path);
    reg_assert_same(before, after);
    assert_int_equal(reg_user_version(path), 7);
    free(before);
    free(after);
}

static void foreign_database_refused(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "foreign.db");
    reg_sql(path, "CREATE TABLE foo(x); INSERT INTO foo VALUES(1);");
    pl_store *st = NULL;
    pl_error err;
    assert_int_equal(pl_store_open(path, 0, &st, &err), PL_E_SCHEMA);
    assert_null(st);

    /* a current version number over a damaged layout */
    char path2[512];
    reg_tmpfile(path2, sizeof path2, "damaged.db");
    reg_sql(path2, "CREATE TABLE meta(key, value); PRAGMA user_version = 3;");
    assert_int_equal(pl_store_open(path2, 0, &st, &err), PL_E_SCHEMA);
    assert_null(st);

    /* not an SQLite file at all */
    char path3[512];
    reg_tmpfile(path3, sizeof path3, "garbage.db");
    FILE *f = fopen(path3, "wb");
    assert_non_null(f);
    for (int i = 0; i < 4096; i++) fputc((i * 7919) & 0xff, f);
    fclose(f);
    int s = pl_store_open(path3, 0, &st, &err);
    assert_true(s == PL_E_STORE || s == PL_E_IO);
    assert_null(st);
    assert_true(err.msg[0] != '\0');
}

static void languages_and_default(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "perflib.db");
    pl_store *st = reg_open(path);
    pl_error err;
    assert_int_equal(pl_store_add_language(st, "00c", &err), PL_OK);
    assert_int_equal(pl_store_add_language(st, "007", &err), PL_OK);
    assert_int_equal(pl_store_add_language(st, "00C", &err), PL_E_EXISTS);
    assert_int_equal(pl_store_add_language(st, "xyz", &err), PL_E_INVAL);
    assert_int_equal(pl_store_add_language(st, "", &err), PL_E_INVAL);
    assert_int_equal(pl_store_add_language(st, "12345678", &err), PL_E_INVAL);
    char **langs = NULL;
    size_t n = 0;
    assert_int_equal(pl_store_languages(st, &langs, &n, &err), PL_OK);
    assert_int_equal(n, 3);
    assert_string_equal(langs[0], "007");
    assert_string_equal(langs[1], "009");
    assert_string_equal(langs[2], "00C");
    assert_null(langs[3]);
    pl_free(langs);

    unsetenv("PERFLIB_LANG");
    assert_string_equal(pl_store_default_language(st), "009");
    setenv("PERFLIB_LANG", "00c", 1);
    assert_string_equal(pl_store_default_language(st), "00C");
    setenv("PERFLIB_LANG", "019", 1);
    assert_string_equal(pl_store_default_language(st), "009");
    setenv("PERFLIB_LANG", "007", 1);
    pl_titles *t = NULL;
    assert_int_equal(pl_titles_load(st, NULL, &t, &err), PL_OK);
    assert_string_equal(pl_titles_language(t), "007");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 2), "System"); /* English fallback */
    pl_titles_free(t);
    unsetenv("PERFLIB_LANG");
    assert_int_equal(pl_titles_load(st, "019", &t, &err), PL_E_NOT_FOUND);
    assert_null(t);
    pl_store_close(st);
}

static void set_title_cases(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "perflib.db");
    pl_store *st = reg_open(path);
    pl_error err;
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 2000, "Extra", &err), PL_OK);
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 2, "Système", &err), PL_OK);
    pl_titles *t = NULL;
    assert_int_equal(pl_titles_load(st, "009", &t, &err), PL_OK);
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 2000), "Extra");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 2), "Système");
    pl_titles_free(t);
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 2000, NULL, &err), PL_OK);
    assert_int_equal(pl_titles_load(st, "009", &t, &err), PL_OK);
    assert_null(pl_titles_get(t, PL_TITLE_NAME, 2000));
    pl_titles_free(t);

    char *before = reg_dump(path);
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 0, "x", &err), PL_E_RANGE);
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 0x80000000u, "x", &err), PL_E_RANGE);
    assert_int_equal(pl_store_set_title(st, "009", 2, 10, "x", &err), PL_E_INVAL);
    assert_int_equal(pl_store_set_title(st, "00C", PL_TITLE_NAME, 10, "x", &err), PL_E_NOT_FOUND);
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 10, "bad \xC3\x28", &err), PL_E_ENCODING);
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 10, "\xED\xA0\x80", &err), PL_E_ENCODING);
    char *after = reg_dump(path);
    reg_assert_same(before, after);
    free(before);
    free(after);
    pl_store_close(st);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seed_exact),
        cmocka_unit_test(seed_providers),
        cmocka_unit_test(default_path_env),
        cmocka_unit_test(default_path_fallback),
        cmocka_unit_test(named_store_location_checked),
        cmocka_unit_test(readonly_missing_fails),
        cmocka_unit_test(readonly_open_reads),
        cmocka_unit_test(migrate_from_v0),
        cmocka_unit_test(migrate_from_v1),
        cmocka_unit_test(migrate_from_v3_app_owner),
        cmocka_unit_test(provider_isolation),
        cmocka_unit_test(seed_refresh),
        cmocka_unit_test(future_version_refused),
        cmocka_unit_test(foreign_database_refused),
        cmocka_unit_test(languages_and_default),
        cmocka_unit_test(set_title_cases),
    };
    return pl_test_run(tests, argc, argv);
}
