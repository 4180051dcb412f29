/* Helpers for the registry store tests: temporary stores and whole-store
 * dumps through SQLite directly (so the dump does not depend on the code
 * under test). */
#ifndef REG_TEST_H
#define REG_TEST_H

#include <errno.h>
#include <ftw.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl_test.h"
#include "perflib/indices.h"
#include "perflib/registry.h"

/* Temporary directories of this process, removed when it exits (every test
 * case runs in its own process). */
static char reg_dirs[32][256];
static int reg_ndirs;

static int reg_rm(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void reg_cleanup(void)
{
    for (int i = 0; i < reg_ndirs; i++)
        if (nftw(reg_dirs[i], reg_rm, 16, FTW_DEPTH | FTW_PHYS) != 0) fprintf(stderr, "could not remove %s\n", reg_dirs[i]);
    reg_ndirs = 0;
}

/* A fresh temporary directory, removed at exit. */
static inline void reg_tmpdir(char *out, size_t cap)
{
    snprintf(out, cap, "/tmp/pl_registry_test_XXXXXX");
    assert_non_null(mkdtemp(out));
    if (reg_ndirs == 0) atexit(reg_cleanup);
    if (reg_ndirs < 32 && strlen(out) < sizeof reg_dirs[0]) memcpy(reg_dirs[reg_ndirs++], out, strlen(out) + 1);
}

/* "<tmpdir>/<leaf>" */
static inline void reg_tmpfile(char *out, size_t cap, const char *leaf)
{
    char dir[256];
    reg_tmpdir(dir, sizeof dir);
    snprintf(out, cap, "%s/%s", dir, leaf);
}

static inline pl_store *reg_open(const char *path)
{
    pl_store *st = NULL;
    pl_error err = {0, ""};
    int s = pl_store_open(path, 0, &st, &err);
    if (s) fprintf(stderr, "open %s: %s\n", path, err.msg);
    assert_int_equal(s, PL_OK);
    assert_non_null(st);
    return st;
}

typedef struct reg_buf {
    char *p;
    size_t n, cap;
} reg_buf;

static inline void reg_append(reg_buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n + 1) cap *= 2;
        b->p = realloc(b->p, cap);
        assert_non_null(b->p);
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static inline int reg_dump_row(void *ctx, int ncol, char **vals, char **names)
{
    (void)names;
    reg_buf *b = ctx;
    for (int i = 0; i < ncol; i++) {
        const char *v = vals[i] ? vals[i] : "<NULL>";
        reg_append(b, v, strlen(v));
        reg_append(b, "|", 1);
    }
    reg_append(b, "\n", 1);
    return 0;
}

/* Every row of every table, ordered, plus user_version. Free the result. */
static inline char *reg_dump(const char *path)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_busy_timeout(db, 10000);
    reg_buf b = {NULL, 0, 0};
    static const char *const q[] = {
        "PRAGMA user_version",
        "SELECT * FROM meta ORDER BY key",
        "SELECT * FROM languages ORDER BY lang",
        "SELECT * FROM titles ORDER BY lang, kind, idx",
        "SELECT * FROM providers ORDER BY name",
    };
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        reg_append(&b, q[i], strlen(q[i]));
        reg_append(&b, "\n", 1);
        char *msg = NULL;
        int rc = sqlite3_exec(db, q[i], reg_dump_row, &b, &msg);
        if (rc != SQLITE_OK) fprintf(stderr, "dump: %s\n", msg ? msg : "?");
        assert_int_equal(rc, SQLITE_OK);
    }
    sqlite3_close(db);
    return b.p;
}

/* Two dumps must be equal; on a difference, print the first differing lines. */
static inline void reg_assert_same(const char *a, const char *b)
{
    if (strcmp(a, b) == 0) return;
    size_t line = 1, i = 0, start = 0;
    while (a[i] && a[i] == b[i]) {
        if (a[i] == '\n') {
            line++;
            start = i + 1;
        }
        i++;
    }
    fprintf(stderr, "dumps differ at line %zu:\n  was: %.200s\n  now: %.200s\n", line, a + start, b + start);
    fail_msg("store contents differ");
}

/* Run SQL on the store file directly (to build odd states). */
static inline void reg_sql(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 10000);
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) fprintf(stderr, "sql: %s\n", msg ? msg : "?");
    assert_int_equal(rc, SQLITE_OK);
    sqlite3_close(db);
}

static inline int reg_user_version(const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    int v = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(db);
    return v;
}

#endif
