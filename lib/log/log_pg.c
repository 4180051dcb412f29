/* perflib SQL log sets: the PostgreSQL backend through libpq (log_sql.h).
 * The connection is a libpq connection string ("host=/tmp dbname=perf",
 * "service=perf", "postgresql://..."); notices are dropped (the library
 * prints nothing). Parameters and results travel as text; the schema logic
 * checks every cell. A record's CounterData rows go in one COPY. */
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "log_sql.h"
#include "pl_internal.h"

/* libpq, loaded at the first connection rather than linked: every program
 * linking libperflib (perfd among them) would otherwise load it and the
 * libraries it needs (OpenSSL, Kerberos, LDAP), about 3 MB of resident
 * memory and their constructors at start-up, although only a PostgreSQL
 * log set uses them. The header still comes from libpq-dev. */
static struct {
    __typeof__(PQclear) *PQclear;
    __typeof__(PQconnectdb) *PQconnectdb;
    __typeof__(PQerrorMessage) *PQerrorMessage;
    __typeof__(PQexec) *PQexec;
    __typeof__(PQexecParams) *PQexecParams;
    __typeof__(PQfinish) *PQfinish;
    __typeof__(PQgetResult) *PQgetResult;
    __typeof__(PQgetisnull) *PQgetisnull;
    __typeof__(PQgetvalue) *PQgetvalue;
    __typeof__(PQnfields) *PQnfields;
    __typeof__(PQntuples) *PQntuples;
    __typeof__(PQputCopyData) *PQputCopyData;
    __typeof__(PQputCopyEnd) *PQputCopyEnd;
    __typeof__(PQresultErrorMessage) *PQresultErrorMessage;
    __typeof__(PQresultStatus) *PQresultStatus;
    __typeof__(PQsetNoticeProcessor) *PQsetNoticeProcessor;
    __typeof__(PQstatus) *PQstatus;
} pq;
static char pq_why[256]; /* set when libpq could not be loaded */
static pthread_once_t pq_once = PTHREAD_ONCE_INIT;

static void pq_load(void)
{
    static const char *const sonames[] = {"libpq.so.5"};
    const pl__dl_sym syms[] = {
        {"PQclear", &pq.PQclear},
        {"PQconnectdb", &pq.PQconnectdb},
        {"PQerrorMessage", &pq.PQerrorMessage},
        {"PQexec", &pq.PQexec},
        {"PQexecParams", &pq.PQexecParams},
        {"PQfinish", &pq.PQfinish},
        {"PQgetResult", &pq.PQgetResult},
        {"PQgetisnull", &pq.PQgetisnull},
        {"PQgetvalue", &pq.PQgetvalue},
        {"PQnfields", &pq.PQnfields},
        {"PQntuples", &pq.PQntuples},
        {"PQputCopyData", &pq.PQputCopyData},
        {"PQputCopyEnd", &pq.PQputCopyEnd},
        {"PQresultErrorMessage", &pq.PQresultErrorMessage},
        {"PQresultStatus", &pq.PQresultStatus},
        {"PQsetNoticeProcessor", &pq.PQsetNoticeProcessor},
        {"PQstatus", &pq.PQstatus},
    };
    if (pl__dl_load("libpq", sonames, 1, syms, sizeof syms / sizeof syms[0], pq_why, sizeof pq_why) != 0 && !pq_why[0])
        snprintf(pq_why, sizeof pq_why, "cannot load libpq");
}

typedef struct pg {
    pl__sqldb b;
    PGconn *c;
    pl__buf copy;             /* COPY text, kept between calls */
} pg;

static int pg_fail(pg *p, pl_error *err, const PGresult *r, const char *what)
{
    char m[512];
    snprintf(m, sizeof m, "%s", r ? pq.PQresultErrorMessage(r) : pq.PQerrorMessage(p->c));
    size_t n = strlen(m);
    while (n && (m[n - 1] == '\n' || m[n - 1] == ' ')) m[--n] = '\0';
    return pl__fail(err, PL_E_STORE, "PostgreSQL: %s: %s", what, m);
}

static int pg_query(pl__sqldb *b, const char *sql, const pl__sqlv *params, int np, pl__sql_row_fn row, void *ctx,
                    pl_error *err)
{
    pg *p = (pg *)b;
    const char *vals[16];
    char num[16][32];
    if (np > 16) return pl__fail(err, PL_E_INVAL, "too many parameters");
    for (int i = 0; i < np; i++) {
        switch (params[i].type) {
        case PL__SQL_INT: snprintf(num[i], sizeof num[i], "%" PRId64, params[i].i); vals[i] = num[i]; break;
        case PL__SQL_REAL: snprintf(num[i], sizeof num[i], "%.17g", params[i].d); vals[i] = num[i]; break;
        case PL__SQL_TEXT: vals[i] = params[i].s; break;
        default: vals[i] = NULL; break;
        }
    }
    PGresult *r = pq.PQexecParams(p->c, sql, np, NULL, vals, NULL, NULL, 0);
    ExecStatusType st = pq.PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        int s = pg_fail(p, err, r, "query");
        pq.PQclear(r);
        return s;
    }
    int s = PL_OK;
    if (row && st == PGRES_TUPLES_OK) {
        int n = pq.PQnfields(r), rows = pq.PQntuples(r);
        if (n > 16) n = 16;
        pl__sqlv cells[16];
        for (int k = 0; k < rows && s == PL_OK; k++) {
            for (int i = 0; i < n; i++) {
                memset(&cells[i], 0, sizeof cells[i]);
                if (pq.PQgetisnull(r, k, i)) {
                    cells[i].type = PL__SQL_NULL;
                } else {
                    cells[i].type = PL__SQL_TEXT;
                    cells[i].s = pq.PQgetvalue(r, k, i);
                }
            }
            s = row(ctx, cells, n);
            if (s && err && !err->msg[0]) pl__fail(err, s, "out of memory");
        }
    }
    pq.PQclear(r);
    return s;
}

static int pg_data(pl__sqldb *b, const char *guid, int64_t record, const char *datetime, const pl__sql_data *rows,
                   size_t n, pl_error *err)
{
    pg *p = (pg *)b;
    p->copy.len = 0;
    for (size_t i = 0; i < n; i++) {
        const pl__sql_data *r = &rows[i];
        char v[40] = "\\N", raw[96] = "\\N\t\\N\t\\N\t\\N\t\\N";
        if (r->present) snprintf(v, sizeof v, "%.17g", r->value);
        if (r->has_raw) {
            uint64_t f = (uint64_t)r->first, s2 = (uint64_t)r->second;
            snprintf(raw, sizeof raw, "%" PRId32 "\t%" PRId32 "\t%" PRId32 "\t%" PRId32 "\t%" PRId32,
                     (int32_t)(uint32_t)(f & 0xFFFFFFFFu), (int32_t)(uint32_t)(f >> 32),
                     (int32_t)(uint32_t)(s2 & 0xFFFFFFFFu), (int32_t)(uint32_t)(s2 >> 32), (int32_t)r->multi);
        }
        pl__buf_printf(&p->copy, "%s\t%" PRId64 "\t%" PRId64 "\t%s\t%s\t%s\n", guid, r->counter_id, record,
                       datetime, v, raw);
    }
    if (p->copy.failed || p->copy.len > INT_MAX) {
        pl__buf_free(&p->copy);
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    PGresult *res = pq.PQexec(p->c, "COPY CounterData (GUID, CounterID, RecordIndex, CounterDateTime, CounterValue,"
                                 " FirstValueA, FirstValueB, SecondValueA, SecondValueB, MultiCount) FROM STDIN");
    if (pq.PQresultStatus(res) != PGRES_COPY_IN) {
        int s = pg_fail(p, err, res, "COPY CounterData");
        pq.PQclear(res);
        return s;
    }
    pq.PQclear(res);
    int s = PL_OK;
    if (pq.PQputCopyData(p->c, p->copy.p, (int)p->copy.len) != 1 || pq.PQputCopyEnd(p->c, NULL) != 1)
        s = pg_fail(p, err, NULL, "COPY CounterData");
    while ((res = pq.PQgetResult(p->c))) {
        if (s == PL_OK && pq.PQresultStatus(res) != PGRES_COMMAND_OK) s = pg_fail(p, err, res, "COPY CounterData");
        pq.PQclear(res);
    }
    return s;
}

static void pg_close(pl__sqldb *b)
{
    pg *p = (pg *)b;
    if (!p) return;
    pq.PQfinish(p->c);
    pl__buf_free(&p->copy);
    free(p);
}

static void quiet(void *arg, const char *message)
{
    (void)arg;
    (void)message; /* the library prints nothing: notices are dropped */
}

int pl__pg_connect(const char *conninfo, pl__sqldb **out, pl_error *err)
{
    *out = NULL;
    pthread_once(&pq_once, pq_load);
    if (pq_why[0]) return pl__fail(err, PL_E_IO, "PostgreSQL: %s", pq_why);
    pg *p = calloc(1, sizeof *p);
    if (!p) return pl__fail(err, PL_E_NOMEM, "out of memory");
    p->b.dialect = PL__SQL_PG;
    p->b.query = pg_query;
    p->b.data = pg_data;
    p->b.close = pg_close;
    p->c = pq.PQconnectdb(conninfo);
    if (!p->c || pq.PQstatus(p->c) != CONNECTION_OK) {
        int s = p->c ? pg_fail(p, err, NULL, "cannot connect") : pl__fail(err, PL_E_NOMEM, "out of memory");
        if (s == PL_E_STORE) {
            s = PL_E_IO; /* the database cannot be reached, like a file that cannot be opened */
            if (err) err->status = s;
        }
        pg_close(&p->b);
        return s;
    }
    pq.PQsetNoticeProcessor(p->c, quiet, NULL);
    *out = &p->b;
    return PL_OK;
}
