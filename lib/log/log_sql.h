/* This file is private to libperflib's log module: no API/ABI guarantee.
 * SQL log sets in Windows' schema (docs/counter-log.md, "SQL log sets"):
 * the schema logic (log_sql.c) over a small database interface that each
 * backend implements: SQLite (log_sqlite.c) and PostgreSQL through libpq
 * (log_pg.c). */
#ifndef PL_LOG_SQL_H
#define PL_LOG_SQL_H

#include <stddef.h>
#include <stdint.h>

#include "log_ext.h"

/* A parameter or a result cell. Text from the database is hostile: the
 * schema logic checks every cell's type and value. */
enum { PL__SQL_NULL, PL__SQL_INT, PL__SQL_REAL, PL__SQL_TEXT, PL__SQL_OTHER /* a blob: never a valid cell */ };
typedef struct pl__sqlv {
    int type;
    int64_t i;
    double d;
    const char *s;            /* PL__SQL_TEXT: NUL-terminated */
} pl__sqlv;

/* Called for each result row; a non-zero return stops the query and is
 * returned by it (a pl_status). */
typedef int (*pl__sql_row_fn)(void *ctx, const pl__sqlv *cells, int ncells);

/* One CounterData row of a record: the counter, its formatted value (NULL
 * when !present) and its raw value (the four halves and MultiCount NULL
 * when !has_raw). */
typedef struct pl__sql_data {
    int64_t counter_id;
    int present;
    double value;
    int has_raw;
    int64_t first, second;
    uint32_t multi;
} pl__sql_data;

enum { PL__SQL_SQLITE = 1, PL__SQL_PG = 2 };

typedef struct pl__sqldb pl__sqldb;
struct pl__sqldb {
    int dialect;              /* PL__SQL_SQLITE or PL__SQL_PG */
    /* Run one statement with parameters $1..$np (row may be NULL). PL_OK,
     * or PL_E_STORE with the database's message (PL_E_BUSY when locked). */
    int (*query)(pl__sqldb *db, const char *sql, const pl__sqlv *params, int np, pl__sql_row_fn row, void *ctx,
                 pl_error *err);
    /* Insert one record's CounterData rows (inside the caller's
     * transaction): GUID, RecordIndex and CounterDateTime are the same for
     * every row. */
    int (*data)(pl__sqldb *db, const char *guid, int64_t record, const char *datetime, const pl__sql_data *rows,
                size_t n, pl_error *err);
    void (*close)(pl__sqldb *db);
};

/* The backends. `write`: open to write (SQLite: create the file). */
int pl__sqlite_connect(const char *path, int write, pl__sqldb **out, pl_error *err);
int pl__pg_connect(const char *conninfo, pl__sqldb **out, pl_error *err);

/* A DSN as the user wrote it: "SQL:DSN!LogSet" (the "SQL:" optional). */
typedef struct pl__dsn {
    int dialect;
    char *target;             /* SQLite: the file; PostgreSQL: the conninfo */
    char *logset;             /* NULL when not named */
} pl__dsn;
int pl__dsn_parse(const char *name, pl__dsn *d, pl_error *err);
void pl__dsn_free(pl__dsn *d);

/* The reader over a connected database (it takes db over, also on
 * failure): the log set `logset` (NULL: the only one) as a log of values. */
int pl__sqllog_open_db(pl__sqldb *db, const char *name, const char *logset, pl__xlog **out, pl_error *err);

/* Cells as numbers: an integer (or text that is one) within [lo, hi];
 * a finite double (or an integer, or text that is one). 0 or -1. */
int pl__sql_int(const pl__sqlv *v, int64_t lo, int64_t hi, int64_t *out);
int pl__sql_real(const pl__sqlv *v, double *out);

#endif
