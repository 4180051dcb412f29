/* perflib registry store: opening, location, schema, migrations, seeding,
 * the Perflib values and languages (docs/registry-store.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "perflib/indices.h"
#include "registry_internal.h"

#ifndef PL_SOURCE_STORE
#define PL_SOURCE_STORE "perflib.db"
#endif
#ifndef PL_INSTALLED_STORE
#define PL_INSTALLED_STORE "/var/lib/perflib/perflib.db"
#endif

/* ------------------------------------------------------------ helpers */

#ifdef PL_FAULT_POINTS
static unsigned long fault_at, fault_passed;
static int fault_fired;
#endif

int pl__sql_fail(pl_store *st, pl_error *err, int rc, const char *what)
{
    int prim = rc & 0xff;
    int status = (prim == SQLITE_BUSY || prim == SQLITE_LOCKED) ? PL_E_BUSY : PL_E_STORE;
    const char *detail = st && st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc);
#ifdef PL_FAULT_POINTS
    if (fault_fired) detail = "injected fault (a PL_FAULT_POINTS test build)";
    fault_fired = 0;
#endif
    if (status == PL_E_BUSY)
        return pl__fail(err, status, "%s: store busy: another process holds its lock; gave up after %u ms (%s: %s)",
                        st && st->path ? st->path : "store", st ? st->busy_ms : 0, what, detail);
    return pl__fail(err, status, "%s: %s: %s (SQLite %d)", st && st->path ? st->path : "store", what,
                    detail, rc);
}

int pl__sql_exec(pl_store *st, const char *sql, pl_error *err)
{
    int rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK) return pl__sql_fail(st, err, rc, sql);
    return PL_OK;
}

#ifdef PL_FAULT_POINTS
void pl__fault_arm(unsigned long n)
{
    fault_at = n;
    fault_passed = 0;
}

unsigned long pl__fault_passed(void) { return fault_passed; }

int pl__fault_point(void)
{
    fault_passed++;
    fault_fired = fault_at && fault_passed == fault_at;
    return fault_fired;
}
#endif

int pl__sql_write(pl_store *st, sqlite3_stmt *q)
{
    (void)st;
    if (PL__FAULT_POINT()) return SQLITE_IOERR;
    return sqlite3_step(q);
}

int pl__sql_exec_write(pl_store *st, const char *sql, pl_error *err)
{
    if (PL__FAULT_POINT()) return pl__sql_fail(st, err, SQLITE_IOERR, sql);
    return pl__sql_exec(st, sql, err);
}

int pl__sql_prepare(pl_store *st, const char *sql, sqlite3_stmt **out, pl_error *err)
{
    int rc = sqlite3_prepare_v2(st->db, sql, -1, out, NULL);
    if (rc != SQLITE_OK) {
        *out = NULL;
        return pl__sql_fail(st, err, rc, "prepare");
    }
    return PL_OK;
}

int pl__tx_begin(pl_store *st, int immediate, pl_error *err)
{
    if (immediate && st->readonly)
        return pl__fail(err, PL_E_INVAL, "%s: the store was opened read-only", st->path);
    return pl__sql_exec(st, immediate ? "BEGIN IMMEDIATE" : "BEGIN", err);
}

int pl__tx_commit(pl_store *st, pl_error *err)
{
    int rc = PL__FAULT_POINT() ? SQLITE_IOERR : sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        int s = pl__sql_fail(st, err, rc, "commit");
        pl__tx_rollback(st);
        return s;
    }
    return PL_OK;
}

void pl__tx_rollback(pl_store *st)
{
    if (!sqlite3_get_autocommit(st->db)) sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

void pl__store_lock(pl_store *st) { pthread_mutex_lock(&st->mu); }
void pl__store_unlock(pl_store *st) { pthread_mutex_unlock(&st->mu); }

int pl__lang_norm(const char *lang, char out[PL__LANG_MAX + 1])
{
    if (!lang) return -1;
    size_t n = strlen(lang);
    if (n == 0 || n > PL__LANG_MAX) return -1;
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++) {
        char c = lang[i];
        int h = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (h < 0) return -1;
        v = v * 16 + (uint32_t)h; /* at most 7 digits: no overflow */
    }
    /* One spelling per language, the one lodctr and the backup reader use:
     * the value in upper-case hex, at least three digits ("9", "09", "0009"
     * are all "009"; "00c" is "00C"). */
    static const char hex[] = "0123456789ABCDEF";
    char tmp[PL__LANG_MAX + 1];
    size_t k = 0;
    do {
        tmp[k++] = hex[v & 15];
        v >>= 4;
    } while (v);
    while (k < 3) tmp[k++] = '0';
    for (size_t i = 0; i < k; i++) out[i] = tmp[k - 1 - i];
    out[k] = '\0';
    return 0;
}

int pl__utf8_valid(const char *s)
{
    size_t units;
    return s && pl__utf8_to_utf16(s, strlen(s), NULL, 0, &units) != PL_E_ENCODING;
}

int pl__meta_get(pl_store *st, const char *key, uint32_t *out, pl_error *err)
{
    sqlite3_stmt *q;
    int s = pl__sql_prepare(st, "SELECT value FROM meta WHERE key = ?1", &q, err);
    if (s) return s;
    sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(q);
    *out = 0;
    if (rc == SQLITE_ROW) {
        sqlite3_int64 v = sqlite3_column_int64(q, 0);
        if (v < 0 || v > (sqlite3_int64)PL__INDEX_MAX) {
            sqlite3_finalize(q);
            return pl__fail(err, PL_E_STORE, "%s: meta '%s' = %lld is out of range", st->path, key,
                            (long long)v);
        }
        *out = (uint32_t)v;
    } else if (rc != SQLITE_DONE) {
        s = pl__sql_fail(st, err, rc, "read meta");
    }
    sqlite3_finalize(q);
    return s;
}

int pl__meta_set(pl_store *st, const char *key, uint32_t v, pl_error *err)
{
    sqlite3_stmt *q;
    int s = pl__sql_prepare(st, "INSERT INTO meta(key, value) VALUES(?1, ?2) "
                                "ON CONFLICT(key) DO UPDATE SET value = excluded.value", &q, err);
    if (s) return s;
    sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 2, v);
    int rc = pl__sql_write(st, q);
    if (rc != SQLITE_DONE) s = pl__sql_fail(st, err, rc, "write meta");
    sqlite3_finalize(q);
    return s;
}

int pl__lang_exists(pl_store *st, const char *lang, pl_error *err)
{
    sqlite3_stmt *q;
    int s = pl__sql_prepare(st, "SELECT 1 FROM languages WHERE lang = ?1", &q, err);
    if (s) return -s;
    sqlite3_bind_text(q, 1, lang, -1, SQLITE_STATIC);
    int rc = sqlite3_step(q);
    int r = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -pl__sql_fail(st, err, rc, "read languages");
    sqlite3_finalize(q);
    return r;
}

/* ------------------------------------------------------------ locking */

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint32_t busy_bound(void)
{
    const char *v = getenv("PERFLIB_STORE_TIMEOUT_MS");
    if (!v || !*v) return PL__STORE_BUSY_MS;
    uint32_t x = 0;
    for (const char *c = v; *c; c++) {
        if (*c < '0' || *c > '9' || x > 600000) return PL__STORE_BUSY_MS;
        x = x * 10 + (uint32_t)(*c - '0');
    }
    return x >= 1 && x <= 600000 ? x : PL__STORE_BUSY_MS;
}

/* SQLite's busy handler: wait for the lock until the deadline. Inside
 * pl_store_open the deadline is the open's own, so the open as a whole is
 * bounded; after it, each statement that finds the store locked gets the
 * bound from its first wait. */
static int busy_wait(void *arg, int count)
{
    pl_store *st = arg;
    int64_t now = mono_ms();
    if (count == 0 && !st->opening) st->deadline = now + st->busy_ms;
    if (now >= st->deadline) return 0;
    int64_t nap = count < 10 ? 1 + count : 20;
    if (nap > st->deadline - now) nap = st->deadline - now;
    struct timespec ts = {0, (long)nap * 1000000L};
    nanosleep(&ts, NULL);
    return 1;
}

/* ----------------------------------------------------------- location */

static size_t copy_out(char *out, size_t cap, const char *s)
{
    size_t n = strlen(s);
    if (cap > 0) {
        size_t k = n < cap - 1 ? n : cap - 1;
        memcpy(out, s, k);
        out[k] = '\0';
    }
    return n;
}

/* The store to use when the caller names none; *from_env says whether the
 * user chose it (PERFLIB_REGISTRY) rather than the built-in defaults. */
static const char *default_path_from(int *from_env)
{
    const char *env = getenv("PERFLIB_REGISTRY");
    *from_env = env && env[0];
    if (*from_env) return env;
    struct stat sb;
    if (pl__running_installed() || stat(PL_INSTALLED_STORE, &sb) == 0) return PL_INSTALLED_STORE;
    return PL_SOURCE_STORE;
}

static const char *default_path(void)
{
    int from_env;
    return default_path_from(&from_env);
}

PL_EXTERN int pl_store_default_path(char *out, size_t cap)
{
    if (!out && cap) return -1;
    size_t n = copy_out(out, cap, default_path());
    return n > 0x7fffffff ? 0x7fffffff : (int)n;
}

/* mkdir -p of the directory that holds `path`. */
static int make_parents(const char *path, pl_error *err)
{
    char *dir = pl__strdup(path);
    if (!dir) return pl__fail(err, PL_E_NOMEM, "out of memory");
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) {
        free(dir);
        return PL_OK;
    }
    *slash = '\0';
    for (char *p = dir + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            /* Explicit modes whatever the umask: a store's directory that
             * others may write would let them swap the store. */
            if (mkdir(dir, 0755) == 0) (void)chmod(dir, 0755);
            else if (errno != EEXIST) {
                int e = errno;
                char eb[128];
                int s = pl__fail(err, PL_E_OS, "%s: cannot create directory: %s", dir, pl__strerror(e, eb, sizeof eb));
                free(dir);
                return s;
            }
            *p = c;
            if (c == '\0') break;
        }
    }
    free(dir);
    return PL_OK;
}

/* ------------------------------------------------------------- schema */

/* Schema version 4, what a new store gets. Version 0 had the same tables
 * without providers.disable_reason and providers.disable_time; version 1
 * without providers.isolation; version 2 without providers.wraps; version
 * 3 without providers.app_owner and providers.app_publishers. */
static const char SCHEMA[] =
    "CREATE TABLE meta("
    " key TEXT NOT NULL PRIMARY KEY,"
    " value INTEGER NOT NULL);"
    "CREATE TABLE languages("
    " lang TEXT NOT NULL PRIMARY KEY);"
    "CREATE TABLE titles("
    " lang TEXT NOT NULL REFERENCES languages(lang) ON DELETE CASCADE,"
    " kind INTEGER NOT NULL CHECK(kind IN (0, 1)),"
    " idx INTEGER NOT NULL CHECK(idx BETWEEN 1 AND 2147483647),"
    " text TEXT NOT NULL,"
    " PRIMARY KEY(lang, kind, idx)) WITHOUT ROWID;"
    "CREATE TABLE providers("
    " name TEXT NOT NULL COLLATE NOCASE PRIMARY KEY,"
    " library TEXT, open_fn TEXT, collect_fn TEXT, close_fn TEXT,"
    " object_list TEXT, linkage_export TEXT,"
    " first_counter INTEGER NOT NULL DEFAULT 0, last_counter INTEGER NOT NULL DEFAULT 0,"
    " first_help INTEGER NOT NULL DEFAULT 0, last_help INTEGER NOT NULL DEFAULT 0,"
    " disabled INTEGER NOT NULL DEFAULT 0,"
    " disable_reason TEXT,"
    " disable_time INTEGER NOT NULL DEFAULT 0,"
    " open_timeout_ms INTEGER NOT NULL DEFAULT 0,"
    " collect_timeout_ms INTEGER NOT NULL DEFAULT 0,"
    " builtin INTEGER NOT NULL DEFAULT 0,"
    " isolation INTEGER NOT NULL DEFAULT 0,"
    " wraps TEXT,"
    " app_owner INTEGER,"
    " app_publishers TEXT);";

/* Statements that must prepare on a current store: a cheap check that the
 * file's tables have the columns this library reads and writes. */
static const char LAYOUT_CHECK[] =
    "SELECT (SELECT count(*) FROM (SELECT key, value FROM meta LIMIT 0)),"
    " (SELECT count(*) FROM (SELECT lang FROM languages LIMIT 0)),"
    " (SELECT count(*) FROM (SELECT lang, kind, idx, text FROM titles LIMIT 0)),"
    " (SELECT count(*) FROM (SELECT name, library, open_fn, collect_fn, close_fn, object_list,"
    "  linkage_export, first_counter, last_counter, first_help, last_help, disabled,"
    "  disable_reason, disable_time, open_timeout_ms, collect_timeout_ms, builtin, isolation, wraps,"
    "  app_owner, app_publishers FROM providers LIMIT 0))";

/* One migration step: brings a store from version `from` to `from + 1`. It
 * runs inside the step's own BEGIN IMMEDIATE transaction, which also writes
 * the new user_version. */
typedef struct migration {
    int from;
    const char *what;
    const char *sql;
} migration;

static const migration MIGRATIONS[] = {
    {0, "add providers.disable_reason and providers.disable_time",
     "ALTER TABLE providers ADD COLUMN disable_reason TEXT;"
     "ALTER TABLE providers ADD COLUMN disable_time INTEGER NOT NULL DEFAULT 0;"},
    /* Built-in providers stay in-process; every other record (written by
     * lodctr or an installer before isolation existed) becomes isolated, as
     * lodctr now installs them. */
    {1, "add providers.isolation",
     "ALTER TABLE providers ADD COLUMN isolation INTEGER NOT NULL DEFAULT 0;"
     "UPDATE providers SET isolation = 1 WHERE builtin = 0;"},
    /* A provider may wrap another (MyCoolCounter around PerfOS). */
    {2, "add providers.wraps", "ALTER TABLE providers ADD COLUMN wraps TEXT;"},
    /* An application's record names the user who registered it and the
     * other users whose processes may publish it (docs/app-counters.md,
     * "Who may publish"). Records made before have none: their owner is
     * the store file's owner until the application registers again. */
    {3, "add providers.app_owner and providers.app_publishers",
     "ALTER TABLE providers ADD COLUMN app_owner INTEGER;"
     "ALTER TABLE providers ADD COLUMN app_publishers TEXT;"},
};

static int read_int_pragma(pl_store *st, const char *sql, int *out, pl_error *err)
{
    sqlite3_stmt *q;
    int s = pl__sql_prepare(st, sql, &q, err);
    if (s) return s;
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
        *out = sqlite3_column_int(q, 0);
    } else {
        s = pl__sql_fail(st, err, rc, sql);
    }
    sqlite3_finalize(q);
    return s;
}

static int set_user_version(pl_store *st, int v, pl_error *err)
{
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v);
    return pl__sql_exec(st, sql, err);
}

typedef struct seed_provider {
    const char *name, *library, *open, *collect, *close, *objects;
    uint32_t first, last;
} seed_provider;

#define STR_(x) #x
#define STR(x) STR_(x)

static const seed_provider SEED_PROVIDERS[] = {
    {"PerfOS", "libperfos.so", "PerfOsOpen", "PerfOsCollect", "PerfOsClose",
     STR(PL_OBJ_SYSTEM) " " STR(PL_OBJ_MEMORY) " " STR(PL_OBJ_PROCESSOR) " " STR(PL_OBJ_PAGING_FILE) " " STR(
         PL_OBJ_OBJECTS) " " STR(PL_OBJ_PROCESSOR_INFORMATION),
     PL_RANGE_PERFOS_FIRST, PL_RANGE_PERFOS_LAST},
    {"PerfProc", "libperfproc.so", "PerfProcOpen", "PerfProcCollect", "PerfProcClose",
     STR(PL_OBJ_PROCESS) " " STR(PL_OBJ_THREAD) " " STR(PL_OBJ_IMAGE) " " STR(
         PL_OBJ_PROCESS_ADDRESS_SPACE) " " STR(PL_OBJ_THREAD_DETAILS),
     PL_RANGE_PERFPROC_FIRST, PL_RANGE_PERFPROC_LAST},
    {"PerfDisk", "libperfdisk.so", "PerfDiskOpen", "PerfDiskCollect", "PerfDiskClose",
     STR(PL_OBJ_PHYSICAL_DISK) " " STR(PL_OBJ_LOGICAL_DISK), PL_RANGE_PERFDISK_FIRST, PL_RANGE_PERFDISK_LAST},
    {"PerfNet", "libperfnet.so", "PerfNetOpen", "PerfNetCollect", "PerfNetClose",
     STR(PL_OBJ_NETWORK_INTERFACE) " " STR(PL_OBJ_IPV4) " " STR(PL_OBJ_IPV6) " " STR(PL_OBJ_ICMP) " " STR(
         PL_OBJ_TCPV4) " " STR(PL_OBJ_UDPV4) " " STR(PL_OBJ_TCPV6) " " STR(PL_OBJ_UDPV6) " " STR(PL_OBJ_ICMPV6),
     PL_RANGE_PERFNET_FIRST, PL_RANGE_PERFNET_LAST},
    /* Application counters (docs/app-counters.md): no Object List (the
     * applications' indices come and go) and no range of its own; the host
     * checks its indices against the third-party space and the provider
     * checks each application's against that application's record. */
    {"AppCounters", "libappcounters.so", "AppCountersOpen", "AppCountersCollect", "AppCountersClose", NULL, 0, 0},
};

static int seed_providers(pl_store *st, int refresh, pl_error *err);

_Static_assert(PL_CTR_LAST_BUILTIN <= PL_IDX_BUILTIN_RESERVED_LAST, "built-in titles must fit the reserved block");

/* Write every built-in 009 title. `or_ignore` keeps a title already at that
 * index (the refresh); otherwise a clash is an error (a new store). */
static int write_base_titles(pl_store *st, int or_ignore, pl_error *err)
{
    sqlite3_stmt *q = NULL;
    int s = pl__sql_prepare(st,
                            or_ignore ? "INSERT OR IGNORE INTO titles(lang, kind, idx, text) VALUES('009', ?1, ?2, ?3)"
                                      : "INSERT INTO titles(lang, kind, idx, text) VALUES('009', ?1, ?2, ?3)",
                            &q, err);
    for (size_t i = 0; !s && i < pl__base_titles_count; i++) {
        const pl__base_title *t = &pl__base_titles[i];
        for (int kind = 0; kind < 2 && !s; kind++) {
            const char *text = kind == PL_TITLE_NAME ? t->name : t->help;
            uint32_t idx = kind == PL_TITLE_NAME ? t->index : PL_HELP(t->index);
            if (!text) continue;
            sqlite3_reset(q);
            sqlite3_bind_int(q, 1, kind);
            sqlite3_bind_int64(q, 2, idx);
            sqlite3_bind_text(q, 3, text, -1, SQLITE_STATIC);
            int rc = pl__sql_write(st, q);
            if (rc != SQLITE_DONE) s = pl__sql_fail(st, err, rc, "write built-in titles");
        }
    }
    sqlite3_finalize(q);
    return s;
}

/* Fill a new store (inside the creating transaction). Last Counter/Help
 * start at the end of the reserved block, above every built-in title. */
static int seed(pl_store *st, pl_error *err)
{
    int s;
    if ((s = pl__sql_exec_write(st, "INSERT INTO languages(lang) VALUES('009')", err)) ||
        (s = write_base_titles(st, 0, err)) ||
        (s = pl__meta_set(st, "Base Index", PL_IDX_LAST_BASE, err)) ||
        (s = pl__meta_set(st, "Last Counter", PL_IDX_BUILTIN_RESERVED_LAST, err)) ||
        (s = pl__meta_set(st, "Last Help", PL_IDX_BUILTIN_RESERVED_LAST + 1, err)) ||
        (s = pl__meta_set(st, "Seed Version", PL_SEED_VERSION, err)))
        return s;
    return seed_providers(st, 0, err);
}

/* Write the built-in provider records. On refresh, an existing record gets
 * the current library, entry points, Object List and ranges; its disabled
 * state and timeouts stay as the administrator left them. */
static int seed_providers(pl_store *st, int refresh, pl_error *err)
{
    sqlite3_stmt *q;
    int s = pl__sql_prepare(st,
                        refresh ? "INSERT INTO providers(name, library, open_fn, collect_fn, close_fn, object_list,"
                                  " first_counter, last_counter, first_help, last_help, builtin)"
                                  " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 1)"
                                  " ON CONFLICT(name) DO UPDATE SET library = excluded.library,"
                                  " open_fn = excluded.open_fn, collect_fn = excluded.collect_fn,"
                                  " close_fn = excluded.close_fn, object_list = excluded.object_list,"
                                  " first_counter = excluded.first_counter, last_counter = excluded.last_counter,"
                                  " first_help = excluded.first_help, last_help = excluded.last_help, builtin = 1"
                                : "INSERT INTO providers(name, library, open_fn, collect_fn, close_fn, object_list,"
                                  " first_counter, last_counter, first_help, last_help, builtin)"
                                  " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 1)",
                        &q, err);
    if (s) return s;
    for (size_t i = 0; i < sizeof SEED_PROVIDERS / sizeof SEED_PROVIDERS[0] && !s; i++) {
        const seed_provider *p = &SEED_PROVIDERS[i];
        sqlite3_reset(q);
        sqlite3_bind_text(q, 1, p->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 2, p->library, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 3, p->open, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 4, p->collect, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 5, p->close, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 6, p->objects, -1, SQLITE_STATIC);
        sqlite3_bind_int64(q, 7, p->first);
        sqlite3_bind_int64(q, 8, p->last);
        sqlite3_bind_int64(q, 9, p->first ? PL_HELP(p->first) : 0);
        sqlite3_bind_int64(q, 10, p->last ? PL_HELP(p->last) : 0);
        int rc = pl__sql_write(st, q);
        if (rc != SQLITE_DONE) s = pl__sql_fail(st, err, rc, "seed providers");
    }
    sqlite3_finalize(q);
    return s;
}

/* A store seeded by an older perflib gets what this version's seed adds:
 * missing built-in titles in 009 (a title already at that index, restored or
 * installed, is never overwritten), the current built-in provider records,
 * and Last Counter/Help raised to cover them and the reserved block. Cheap
 * when nothing is stale: one read, no write lock. */
static int refresh_seed(pl_store *st, pl_error *err)
{
    uint32_t have = 0;
    int s = pl__meta_get(st, "Seed Version", &have, err);
    if (s || have >= PL_SEED_VERSION) return s;
    if ((s = pl__tx_begin(st, 1, err))) return s;
    if ((s = pl__meta_get(st, "Seed Version", &have, err)) || have >= PL_SEED_VERSION) {
        pl__tx_rollback(st);
        return s;
    }
    uint32_t lc = 0, lh = 0;
    s = pl__sql_exec_write(st, "INSERT OR IGNORE INTO languages(lang) VALUES('009')", err);
    if (!s) s = write_base_titles(st, 1, err);
    if (!s) s = seed_providers(st, 1, err);
    if (!s) s = pl__meta_get(st, "Last Counter", &lc, err);
    if (!s) s = pl__meta_get(st, "Last Help", &lh, err);
    if (!s && lc < PL_IDX_BUILTIN_RESERVED_LAST) s = pl__meta_set(st, "Last Counter", PL_IDX_BUILTIN_RESERVED_LAST, err);
    if (!s && lh < PL_IDX_BUILTIN_RESERVED_LAST + 1)
        s = pl__meta_set(st, "Last Help", PL_IDX_BUILTIN_RESERVED_LAST + 1, err);
    if (!s) s = pl__meta_set(st, "Seed Version", PL_SEED_VERSION, err);
    if (!s) return pl__tx_commit(st, err);
    pl__tx_rollback(st);
    return s;
}

static int table_count(pl_store *st, int *tables, int *has_meta, pl_error *err)
{
    sqlite3_stmt *q;
    int s = pl__sql_prepare(st,
                            "SELECT count(*), coalesce(sum(name = 'meta'), 0) FROM sqlite_master"
                            " WHERE type = 'table'",
                            &q, err);
    if (s) return s;
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
        *tables = sqlite3_column_int(q, 0);
        *has_meta = sqlite3_column_int(q, 1);
    } else {
        s = pl__sql_fail(st, err, rc, "read schema");
    }
    sqlite3_finalize(q);
    return s;
}

static int check_layout(pl_store *st, pl_error *err)
{
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(st->db, LAYOUT_CHECK, -1, &q, NULL);
    if (rc != SQLITE_OK)
        return pl__fail(err, PL_E_SCHEMA, "%s: not a perflib store of schema version %d: %s", st->path,
                        PL_STORE_SCHEMA_VERSION, sqlite3_errmsg(st->db));
    sqlite3_finalize(q);
    return PL_OK;
}

/* Create, seed or migrate until the store is at PL_STORE_SCHEMA_VERSION. Each
 * step is its own transaction; another process may be doing the same, so the
 * version is read again inside every transaction. */
static int init_or_migrate(pl_store *st, pl_error *err)
{
    for (;;) {
        int s = pl__tx_begin(st, 1, err);
        if (s) return s;
        int v = 0, tables = 0, has_meta = 0;
        if ((s = read_int_pragma(st, "PRAGMA user_version", &v, err)) ||
            (s = table_count(st, &tables, &has_meta, err))) {
            pl__tx_rollback(st);
            return s;
        }
        if (v > PL_STORE_SCHEMA_VERSION || v < 0) {
            pl__tx_rollback(st);
            return pl__fail(err, PL_E_SCHEMA, "%s: schema version %d is newer than this library's %d", st->path,
                            v, PL_STORE_SCHEMA_VERSION);
        }
        if (v == PL_STORE_SCHEMA_VERSION) {
            pl__tx_rollback(st);
            st->version = v;
            if ((s = check_layout(st, err))) return s;
            return refresh_seed(st, err);
        }
        if (v == 0 && !has_meta) {
            if (tables > 0) {
                pl__tx_rollback(st);
                return pl__fail(err, PL_E_SCHEMA, "%s: an SQLite database that is not a perflib store", st->path);
            }
            if ((s = pl__sql_exec(st, SCHEMA, err)) || (s = seed(st, err)) ||
                (s = set_user_version(st, PL_STORE_SCHEMA_VERSION, err))) {
                pl__tx_rollback(st);
                return s;
            }
        } else {
            const migration *m = NULL;
            for (size_t i = 0; i < sizeof MIGRATIONS / sizeof MIGRATIONS[0]; i++)
                if (MIGRATIONS[i].from == v) m = &MIGRATIONS[i];
            if (!m) {
                pl__tx_rollback(st);
                return pl__fail(err, PL_E_SCHEMA, "%s: no migration from schema version %d", st->path, v);
            }
            pl_error why;
            if ((s = pl__sql_exec(st, m->sql, &why)) || (s = set_user_version(st, v + 1, &why))) {
                pl__tx_rollback(st);
                return pl__fail(err, s == PL_E_BUSY ? s : PL_E_SCHEMA, "%s: migration %d -> %d (%s) failed: %s",
                                st->path, v, v + 1, m->what, why.msg);
            }
        }
        if ((s = pl__tx_commit(st, err))) return s;
    }
}

static int check_readonly_version(pl_store *st, pl_error *err)
{
    int v = 0;
    int s = read_int_pragma(st, "PRAGMA user_version", &v, err);
    if (s) return s;
    if (v != PL_STORE_SCHEMA_VERSION)
        return pl__fail(err, PL_E_SCHEMA,
                        "%s: schema version %d, this library reads %d%s", st->path, v, PL_STORE_SCHEMA_VERSION,
                        v < PL_STORE_SCHEMA_VERSION ? " (open it for writing once to migrate)" : "");
    st->version = v;
    return check_layout(st, err);
}

/* Use the rollback journal (journal_mode DELETE), and switch a store that an
 * earlier version left in WAL mode back to it. WAL would let readers and the
 * writer overlap, but a WAL database cannot be read at all by a user who
 * may not create its -shm file, and the installed store in /var/lib/perflib
 * is written by root and read by everyone. Registry writes are rare and
 * short, so readers waiting out a commit (busy timeout) cost nothing. The
 * switch needs an exclusive lock and SQLite may report it busy without
 * waiting (several processes opening at once), so retry for up to the busy
 * timeout. */
static int set_journal(pl_store *st, pl_error *err)
{
    struct timespec nap = {0, 5 * 1000 * 1000};
    for (;;) {
        int rc = sqlite3_exec(st->db, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL);
        if (rc == SQLITE_OK) return PL_OK;
        if ((rc & 0xff) != SQLITE_BUSY || mono_ms() >= st->deadline) /* the open's deadline, not a count of naps */
            return pl__sql_fail(st, err, rc, "PRAGMA journal_mode = DELETE");
        nanosleep(&nap, NULL);
    }
}

/* A new store file: created here with mode 0644 exactly (readable by every
 * consumer, writable by its owner), not by SQLite under the umask. */
static int create_file(const char *path, pl_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (errno == EEXIST) return PL_OK;
        char eb[128];
        return pl__fail(err, PL_E_IO, "%s: cannot create the store: %s", path, pl__strerror(errno, eb, sizeof eb));
    }
    int ok = fchmod(fd, 0644) == 0;
    close(fd);
    if (!ok) {
        unlink(path);
        return pl__fail(err, PL_E_IO, "%s: cannot set the store's mode", path);
    }
    return PL_OK;
}

/* --------------------------------------------------------------- open */

/* A store path the user chose: its directory must exist and be one, and
 * the path itself must not be a directory. `var` names where the path
 * came from, for the message. */
static int check_named_location(const char *path, const char *var, pl_error *err)
{
    char from[64] = "";
    if (var) snprintf(from, sizeof from, " (from %s)", var);
    struct stat sb;
    char eb[128];
    if (stat(path, &sb) == 0) {
        if (S_ISDIR(sb.st_mode))
            return pl__fail(err, PL_E_IO, "%s%s is a directory; a store is a file (e.g. %s/perflib.db)", path,
                            from, path);
        return PL_OK;
    }
    if (errno != ENOENT && errno != ENOTDIR) return PL_OK; /* the open says why (a loop, a long name, ...) */
    char *dir = pl__strdup(path);
    if (!dir) return pl__fail(err, PL_E_NOMEM, "out of memory");
    char *slash = strrchr(dir, '/');
    int s = PL_OK;
    if (slash) {
        if (slash == dir) slash[1] = '\0';
        else *slash = '\0';
        if (stat(dir, &sb) != 0) {
            int e = errno;
            s = e == ENOENT ? pl__fail(err, PL_E_NOT_FOUND,
                                       "%s%s: the directory %s does not exist (perflib makes no directories "
                                       "for a store it is given)",
                                       path, from, dir)
                            : pl__fail(err, PL_E_IO, "%s%s: %s: %s", path, from, dir,
                                       pl__strerror(e, eb, sizeof eb));
        } else if (!S_ISDIR(sb.st_mode)) {
            s = pl__fail(err, PL_E_NOT_FOUND, "%s%s: %s is not a directory", path, from, dir);
        }
    }
    free(dir);
    return s;
}

PL_EXTERN int pl_store_open(const char *path, int flags, pl_store **out, pl_error *err)
{
    pl__clear(err);
    if (!out) return pl__fail(err, PL_E_INVAL, "pl_store_open: out is NULL");
    *out = NULL;
    if (flags & ~PL_STORE_READONLY) return pl__fail(err, PL_E_INVAL, "pl_store_open: unknown flags 0x%x", flags);
    int ro = (flags & PL_STORE_READONLY) != 0;
    int from_env = 0, builtin = path == NULL;
    if (!path) path = default_path_from(&from_env);
    if (from_env) builtin = 0;
    if (!path[0]) return pl__fail(err, PL_E_INVAL, "pl_store_open: empty path");

    struct stat sb;
    /* Only the built-in locations are made on first use. A store the user
     * names (PERFLIB_REGISTRY or a path) must be in a directory that
     * exists: a mistyped name must not grow a tree and a store nobody
     * will find again. */
    if (!builtin) {
        int s = check_named_location(path, from_env ? "PERFLIB_REGISTRY" : NULL, err);
        if (s) return s;
    }
    if (ro && stat(path, &sb) != 0) {
        char eb[128];
        return pl__fail(err, PL_E_NOT_FOUND, "%s: no store there (%s)", path, pl__strerror(errno, eb, sizeof eb));
    }
    if (!ro && builtin) {
        int s = make_parents(path, err);
        if (s) return s;
    }
    /* Root loads the libraries a store names: a store others could swap or
     * change would run their code as root. */
    int ts = pl__path_trusted(path, "the store", err);
    if (ts) return ts;
    if (!ro && stat(path, &sb) != 0) {
        int s = create_file(path, err);
        if (s) return s;
    }

    pl_store *st = calloc(1, sizeof *st);
    if (!st) return pl__fail(err, PL_E_NOMEM, "out of memory");
    st->path = pl__strdup(path);
    st->readonly = ro;
    memcpy(st->deflang, "009", 4);
    if (!st->path) {
        free(st);
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    pthread_mutex_init(&st->mu, NULL);
    st->busy_ms = busy_bound();
    st->opening = 1;
    st->deadline = mono_ms() + st->busy_ms;

    int oflags = (ro ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX;
    int rc = sqlite3_open_v2(path, &st->db, oflags, NULL);
    int s = PL_OK;
    if (rc != SQLITE_OK) {
        /* SQLite's words ("unable to open database file") do not say why;
         * the system's error does (permission denied, ...). */
        int e = st->db ? sqlite3_system_errno(st->db) : 0;
        char eb[128];
        if (e) s = pl__fail(err, PL_E_IO, "%s: cannot open the store: %s", path, pl__strerror(e, eb, sizeof eb));
        else
            s = pl__fail(err, PL_E_IO, "%s: cannot open the store: %s", path,
                         st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
        goto fail;
    }
    sqlite3_extended_result_codes(st->db, 1);
    sqlite3_busy_handler(st->db, busy_wait, st);
    if ((s = pl__sql_exec(st, "PRAGMA foreign_keys = ON", err))) goto fail;
    if (!ro && sqlite3_db_readonly(st->db, "main") == 1) {
        /* SQLite quietly opens a file it may not write read-only; say so
         * instead, so the caller can choose PL_STORE_READONLY. */
        s = pl__fail(err, PL_E_IO, "%s: no permission to write the store (open it read-only)", path);
        goto fail;
    }
    if (!ro) {
        if ((s = set_journal(st, err))) goto fail;
        s = init_or_migrate(st, err);
    } else {
        s = check_readonly_version(st, err);
    }
    if (s) goto fail;
    st->opening = 0;
    *out = st;
    return PL_OK;
fail:
    pl_store_close(st);
    return s;
}

PL_EXTERN void pl_store_close(pl_store *st)
{
    if (!st) return;
    if (st->db) sqlite3_close_v2(st->db);
    pthread_mutex_destroy(&st->mu);
    free(st->path);
    free(st);
}

PL_EXTERN const char *pl_store_path(const pl_store *st) { return st ? st->path : NULL; }

PL_EXTERN int pl_store_schema_version(const pl_store *st) { return st ? st->version : 0; }

PL_EXTERN int pl_store_data_version(pl_store *st, int64_t *out, pl_error *err)
{
    pl__clear(err);
    if (!st || !out) return pl__fail(err, PL_E_INVAL, "pl_store_data_version: NULL argument");
    pl__store_lock(st);
    sqlite3_stmt *q;
    int s = pl__sql_prepare(st, "PRAGMA data_version", &q, err);
    if (!s) {
        int rc = sqlite3_step(q);
        if (rc == SQLITE_ROW) *out = sqlite3_column_int64(q, 0);
        else s = pl__sql_fail(st, err, rc, "PRAGMA data_version");
        sqlite3_finalize(q);
    }
    pl__store_unlock(st);
    return s;
}

/* ------------------------------------------------------- Perflib values */

PL_EXTERN int pl_store_perflib(pl_store *st, pl_perflib_info *out, pl_error *err)
{
    pl__clear(err);
    if (!st || !out) return pl__fail(err, PL_E_INVAL, "pl_store_perflib: NULL argument");
    pl__store_lock(st);
    pl_perflib_info info;
    int s = pl__tx_begin(st, 0, err);
    if (!s) {
        if (!(s = pl__meta_get(st, "Last Counter", &info.last_counter, err)) &&
            !(s = pl__meta_get(st, "Last Help", &info.last_help, err)))
            s = pl__meta_get(st, "Base Index", &info.base_index, err);
        pl__tx_rollback(st);
    }
    pl__store_unlock(st);
    if (!s) *out = info;
    return s;
}

/* ------------------------------------------------------------ languages */

PL_EXTERN int pl_store_languages(pl_store *st, char ***langs, size_t *n, pl_error *err)
{
    pl__clear(err);
    if (!st || !langs || !n) return pl__fail(err, PL_E_INVAL, "pl_store_languages: NULL argument");
    pl__store_lock(st);
    sqlite3_stmt *q;
    char found[64][PL__LANG_MAX + 1];
    char (*list)[PL__LANG_MAX + 1] = found;
    size_t count = 0, cap = 64;
    int s = pl__sql_prepare(st, "SELECT lang FROM languages ORDER BY lang", &q, err);
    if (s) {
        pl__store_unlock(st);
        return s;
    }
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *l = (const char *)sqlite3_column_text(q, 0);
        char norm[PL__LANG_MAX + 1];
        if (pl__lang_norm(l, norm) != 0 || strcmp(norm, l) != 0) continue; /* hostile row: not a language id */
        if (count == cap) {
            char(*bigger)[PL__LANG_MAX + 1] = malloc(cap * 2 * sizeof *bigger);
            if (!bigger) {
                s = pl__fail(err, PL_E_NOMEM, "out of memory");
                break;
            }
            memcpy(bigger, list, count * sizeof *list);
            if (list != found) free(list);
            list = bigger;
            cap *= 2;
        }
        memcpy(list[count++], norm, sizeof norm);
    }
    if (!s && rc != SQLITE_DONE) s = pl__sql_fail(st, err, rc, "read languages");
    sqlite3_finalize(q);
    pl__store_unlock(st);
    if (!s) {
        /* One allocation: the pointer array, then the strings. */
        size_t bytes = (count + 1) * sizeof(char *) + count * (PL__LANG_MAX + 1);
        char **arr = malloc(bytes);
        if (!arr) {
            s = pl__fail(err, PL_E_NOMEM, "out of memory");
        } else {
            char *pool = (char *)(arr + count + 1);
            for (size_t i = 0; i < count; i++) {
                arr[i] = pool + i * (PL__LANG_MAX + 1);
                memcpy(arr[i], list[i], PL__LANG_MAX + 1);
            }
            arr[count] = NULL;
            *langs = arr;
            *n = count;
        }
    }
    if (list != found) free(list);
    return s;
}

PL_EXTERN int pl_store_add_language(pl_store *st, const char *lang, pl_error *err)
{
    pl__clear(err);
    char norm[PL__LANG_MAX + 1];
    if (!st) return pl__fail(err, PL_E_INVAL, "pl_store_add_language: NULL store");
    if (pl__lang_norm(lang, norm) != 0)
        return pl__fail(err, PL_E_INVAL, "language id '%s' is not 1 to 7 hex digits", lang ? lang : "(null)");
    pl__store_lock(st);
    int s = pl__tx_begin(st, 1, err);
    if (!s) {
        int e = pl__lang_exists(st, norm, err);
        if (e < 0) {
            s = -e;
        } else if (e > 0) {
            s = pl__fail(err, PL_E_EXISTS, "%s: language %s already exists", st->path, norm);
        } else {
            sqlite3_stmt *q;
            s = pl__sql_prepare(st, "INSERT INTO languages(lang) VALUES(?1)", &q, err);
            if (!s) {
                sqlite3_bind_text(q, 1, norm, -1, SQLITE_STATIC);
                int rc = pl__sql_write(st, q);
                if (rc != SQLITE_DONE) s = pl__sql_fail(st, err, rc, "add language");
                sqlite3_finalize(q);
            }
        }
        if (!s) s = pl__tx_commit(st, err);
        else pl__tx_rollback(st);
    }
    pl__store_unlock(st);
    return s;
}

void pl__store_default_language(pl_store *st, char out[PL__LANG_MAX + 1])
{
    memcpy(out, "009", 4);
    const char *env = getenv("PERFLIB_LANG");
    char norm[PL__LANG_MAX + 1];
    pl__store_lock(st);
    if (env && pl__lang_norm(env, norm) == 0 && pl__lang_exists(st, norm, NULL) == 1)
        memcpy(out, norm, sizeof norm);
    pl__store_unlock(st);
}

PL_EXTERN const char *pl_store_default_language(pl_store *st)
{
    if (!st) return "009";
    /* Computed into a local first: the shared buffer only ever holds a
     * whole answer, and callers inside the library use the copying form. */
    char now[PL__LANG_MAX + 1];
    pl__store_default_language(st, now);
    pl__store_lock(st);
    memcpy(st->deflang, now, sizeof now);
    pl__store_unlock(st);
    return st->deflang;
}

/* --------------------------------------------------------- single titles */

PL_EXTERN int pl_store_set_title(pl_store *st, const char *lang, int kind, uint32_t index, const char *text,
                                 pl_error *err)
{
    pl__clear(err);
    char norm[PL__LANG_MAX + 1];
    if (!st) return pl__fail(err, PL_E_INVAL, "pl_store_set_title: NULL store");
    if (pl__lang_norm(lang, norm) != 0)
        return pl__fail(err, PL_E_INVAL, "language id '%s' is not 1 to 7 hex digits", lang ? lang : "(null)");
    if (kind != PL_TITLE_NAME && kind != PL_TITLE_HELP)
        return pl__fail(err, PL_E_INVAL, "title kind %d is neither PL_TITLE_NAME nor PL_TITLE_HELP", kind);
    if (index == 0 || index > PL__INDEX_MAX)
        return pl__fail(err, PL_E_RANGE, "title index %u is outside 1..%u", index, PL__INDEX_MAX);
    if (text && !pl__utf8_valid(text))
        return pl__fail(err, PL_E_ENCODING, "title %s/%u: text is not valid UTF-8", norm, index);
    pl__store_lock(st);
    int s = pl__tx_begin(st, 1, err);
    if (!s) {
        int e = pl__lang_exists(st, norm, err);
        if (e < 0) s = -e;
        else if (e == 0) s = pl__fail(err, PL_E_NOT_FOUND, "%s: no language %s", st->path, norm);
        sqlite3_stmt *q = NULL;
        if (!s)
            s = pl__sql_prepare(st,
                                text ? "INSERT INTO titles(lang, kind, idx, text) VALUES(?1, ?2, ?3, ?4)"
                                       " ON CONFLICT(lang, kind, idx) DO UPDATE SET text = excluded.text"
                                     : "DELETE FROM titles WHERE lang = ?1 AND kind = ?2 AND idx = ?3",
                                &q, err);
        if (!s) {
            sqlite3_bind_text(q, 1, norm, -1, SQLITE_STATIC);
            sqlite3_bind_int(q, 2, kind);
            sqlite3_bind_int64(q, 3, index);
            if (text) sqlite3_bind_text(q, 4, text, -1, SQLITE_STATIC);
            int rc = pl__sql_write(st, q);
            if (rc != SQLITE_DONE) s = pl__sql_fail(st, err, rc, "write title");
            sqlite3_finalize(q);
        }
        if (!s) s = pl__tx_commit(st, err);
        else pl__tx_rollback(st);
    }
    pl__store_unlock(st);
    return s;
}
