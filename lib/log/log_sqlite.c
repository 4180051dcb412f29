/* perflib SQL log sets: the SQLite backend (log_sql.h). The database is a
 * file; a writer uses write-ahead logging with synchronous=NORMAL, so each
 * committed sample survives the writer's death (a power loss may take the
 * last ones back, never half of one). A database opened to read is hostile:
 * opened read-only, its schema not trusted (no functions of its own run
 * from views or triggers), and the three tables must be tables. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "log_sql.h"

#define NCACHE 8

typedef struct lite {
    pl__sqldb b;
    sqlite3 *db;
    struct {
        char *sql;
        sqlite3_stmt *st;
    } cache[NCACHE];
    unsigned next;
    sqlite3_stmt *ins;
} lite;

static int fail(lite *l, pl_error *err, int rc, const char *what)
{
    int st = rc == SQLITE_BUSY || rc == SQLITE_LOCKED ? PL_E_BUSY : PL_E_STORE;
    return pl__fail(err, st, "SQLite: %s: %s", what, sqlite3_errmsg(l->db));
}

/* The statement for sql ($N parameters become ?N), prepared once. */
static int stmt(lite *l, const char *sql, sqlite3_stmt **out, pl_error *err)
{
    for (unsigned i = 0; i < NCACHE; i++)
        if (l->cache[i].sql && strcmp(l->cache[i].sql, sql) == 0) {
            sqlite3_reset(l->cache[i].st);
            sqlite3_clear_bindings(l->cache[i].st);
            *out = l->cache[i].st;
            return PL_OK;
        }
    char *q = pl__strdup(sql);
    if (!q) return pl__fail(err, PL_E_NOMEM, "out of memory");
    for (char *c = q; *c; c++)
        if (*c == '$') *c = '?';
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(l->db, q, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        free(q);
        return fail(l, err, rc, "prepare");
    }
    unsigned k = l->next++ % NCACHE;
    free(l->cache[k].sql);
    sqlite3_finalize(l->cache[k].st);
    memcpy(q, sql, strlen(sql) + 1); /* the key is the SQL as asked */
    l->cache[k].sql = q;
    l->cache[k].st = st;
    *out = st;
    return PL_OK;
}

static int bind(lite *l, sqlite3_stmt *st, const pl__sqlv *p, int np, pl_error *err)
{
    for (int i = 0; i < np; i++) {
        int rc;
        switch (p[i].type) {
        case PL__SQL_INT: rc = sqlite3_bind_int64(st, i + 1, p[i].i); break;
        case PL__SQL_REAL: rc = sqlite3_bind_double(st, i + 1, p[i].d); break;
        case PL__SQL_TEXT: rc = sqlite3_bind_text(st, i + 1, p[i].s, -1, SQLITE_STATIC); break;
        default: rc = sqlite3_bind_null(st, i + 1); break;
        }
        if (rc != SQLITE_OK) return fail(l, err, rc, "bind");
    }
    return PL_OK;
}

static int lite_query(pl__sqldb *b, const char *sql, const pl__sqlv *params, int np, pl__sql_row_fn row, void *ctx,
                      pl_error *err)
{
    lite *l = (lite *)b;
    sqlite3_stmt *st = NULL;
    int s = stmt(l, sql, &st, err);
    if (s == PL_OK) s = bind(l, st, params, np, err);
    if (s) return s;
    pl__sqlv cells[16];
    for (;;) {
        int rc = sqlite3_step(st);
        if (rc == SQLITE_DONE) break;
        if (rc != SQLITE_ROW) {
            s = fail(l, err, rc, "step");
            break;
        }
        if (!row) continue;
        int n = sqlite3_column_count(st);
        if (n > 16) n = 16;
        for (int i = 0; i < n; i++) {
            pl__sqlv *c = &cells[i];
            memset(c, 0, sizeof *c);
            switch (sqlite3_column_type(st, i)) {
            case SQLITE_INTEGER: c->type = PL__SQL_INT; c->i = sqlite3_column_int64(st, i); break;
            case SQLITE_FLOAT: c->type = PL__SQL_REAL; c->d = sqlite3_column_double(st, i); break;
            case SQLITE_TEXT:
                c->type = PL__SQL_TEXT;
                c->s = (const char *)sqlite3_column_text(st, i);
                if (!c->s) c->type = PL__SQL_OTHER;
                break;
            case SQLITE_NULL: c->type = PL__SQL_NULL; break;
            default: c->type = PL__SQL_OTHER; break;
            }
        }
        if ((s = row(ctx, cells, n)) != PL_OK) {
            if (err && !err->msg[0]) pl__fail(err, s, "out of memory");
            break;
        }
    }
    sqlite3_reset(st);
    return s;
}

static int lite_data(pl__sqldb *b, const char *guid, int64_t record, const char *datetime, const pl__sql_data *rows,
                     size_t n, pl_error *err)
{
    lite *l = (lite *)b;
    int rc;
    if (!l->ins) {
        rc = sqlite3_prepare_v2(l->db,
                                "INSERT INTO CounterData (GUID, CounterID, RecordIndex, CounterDateTime, CounterValue,"
                                " FirstValueA, FirstValueB, SecondValueA, SecondValueB, MultiCount)"
                                " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                                -1, &l->ins, NULL);
        if (rc != SQLITE_OK) return fail(l, err, rc, "prepare");
    }
    sqlite3_stmt *st = l->ins;
    for (size_t i = 0; i < n; i++) {
        const pl__sql_data *r = &rows[i];
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, guid, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, r->counter_id);
        sqlite3_bind_int64(st, 3, record);
        sqlite3_bind_text(st, 4, datetime, -1, SQLITE_STATIC);
        if (r->present) sqlite3_bind_double(st, 5, r->value);
        else sqlite3_bind_null(st, 5);
        if (r->has_raw) {
            uint64_t f = (uint64_t)r->first, s2 = (uint64_t)r->second;
            sqlite3_bind_int64(st, 6, (int32_t)(uint32_t)(f & 0xFFFFFFFFu));
            sqlite3_bind_int64(st, 7, (int32_t)(uint32_t)(f >> 32));
            sqlite3_bind_int64(st, 8, (int32_t)(uint32_t)(s2 & 0xFFFFFFFFu));
            sqlite3_bind_int64(st, 9, (int32_t)(uint32_t)(s2 >> 32));
            sqlite3_bind_int64(st, 10, (int32_t)r->multi);
        } else {
            for (int k = 6; k <= 10; k++) sqlite3_bind_null(st, k);
        }
        rc = sqlite3_step(st);
        if (rc != SQLITE_DONE) {
            int s = fail(l, err, rc, "INSERT INTO CounterData");
            sqlite3_reset(st);
            return s;
        }
    }
    sqlite3_reset(st);
    return PL_OK;
}

static void lite_close(pl__sqldb *b)
{
    lite *l = (lite *)b;
    if (!l) return;
    for (unsigned i = 0; i < NCACHE; i++) {
        free(l->cache[i].sql);
        sqlite3_finalize(l->cache[i].st);
    }
    sqlite3_finalize(l->ins);
    sqlite3_close(l->db);
    free(l);
}

typedef struct kinds {
    int tables;
} kinds;

static int count_tables(void *ctx, const pl__sqlv *c, int n)
{
    kinds *k = ctx;
    if (n >= 1 && c[0].type == PL__SQL_TEXT && strcmp(c[0].s, "table") == 0) k->tables++;
    return PL_OK;
}

int pl__sqlite_connect(const char *path, int write, pl__sqldb **out, pl_error *err)
{
    *out = NULL;
    lite *l = calloc(1, sizeof *l);
    if (!l) return pl__fail(err, PL_E_NOMEM, "out of memory");
    l->b.dialect = PL__SQL_SQLITE;
    l->b.query = lite_query;
    l->b.data = lite_data;
    l->b.close = lite_close;
    if (!write && access(path, F_OK) != 0) {
        int e = errno;
        char eb[128];
        free(l);
        return pl__fail(err, e == ENOENT ? PL_E_NOT_FOUND : PL_E_IO, "%s: %s", path, pl__strerror(e, eb, sizeof eb));
    }
    int flags = write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
    int rc = sqlite3_open_v2(path, &l->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        int s = pl__fail(err, rc == SQLITE_CANTOPEN ? PL_E_IO : PL_E_STORE, "SQLite: cannot open %s: %s", path,
                         l->db ? sqlite3_errmsg(l->db) : sqlite3_errstr(rc));
        lite_close(&l->b);
        return s;
    }
    sqlite3_extended_result_codes(l->db, 0);
    sqlite3_busy_timeout(l->db, 10000);
    sqlite3_db_config(l->db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
    sqlite3_db_config(l->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
    int s = PL_OK;
    if (write) {
        s = lite_query(&l->b, "PRAGMA journal_mode = WAL", NULL, 0, NULL, NULL, err);
        if (s == PL_OK) s = lite_query(&l->b, "PRAGMA synchronous = NORMAL", NULL, 0, NULL, NULL, err);
    } else {
        /* the log's tables must be tables, not views of anything */
        kinds k = {0};
        s = lite_query(&l->b,
                       "SELECT type FROM sqlite_master WHERE name IN ('CounterData', 'CounterDetails', 'DisplayToID')"
                       " COLLATE NOCASE",
                       NULL, 0, count_tables, &k, err);
        if (s == PL_OK && k.tables != 3)
            s = pl__fail(err, PL_E_PARSE, "%s has no CounterData, CounterDetails and DisplayToID tables", path);
    }
    if (s) {
        lite_close(&l->b);
        return s;
    }
    *out = &l->b;
    return PL_OK;
}
