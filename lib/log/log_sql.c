/* perflib counter logs in an SQL database, in the schema Windows' typeperf
 * and relog write with -f SQL (docs/counter-log.md, "SQL log sets"):
 *
 *   DisplayToID     one row per log set: GUID, DisplayString (the name),
 *                   LogStartTime/LogStopTime, NumberOfRecords, MinutesToUTC,
 *                   TimeZoneName
 *   CounterDetails  one row per counter: MachineName, ObjectName,
 *                   CounterName, InstanceName/Index, ParentName, CounterType,
 *                   DefaultScale, TimeBaseA/B
 *   CounterData     one row per counter and sample: GUID, CounterID,
 *                   RecordIndex, CounterDateTime (UTC), CounterValue (the
 *                   formatted value), FirstValueA/B, SecondValueA/B,
 *                   MultiCount (the raw counter)
 *
 * The writer keeps several log sets in one database, appends to an existing
 * set, and writes each sample in one transaction, so a writer killed at any
 * moment leaves only whole samples. The reader presents a log set as a log
 * of formatted values; every row it reads is hostile and checked. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>

#include "log_sql.h"
#include "pdh_internal.h"
#include "perflib/winperf.h"

/* Column sizes of Windows' schema, checked before a row is written. */
#define NAME_MAX_CHARS 1024
#define ZONE_MAX_CHARS 32

/* --------------------------------------------------------------- DSN */

void pl__dsn_free(pl__dsn *d)
{
    if (!d) return;
    free(d->target);
    free(d->logset);
    memset(d, 0, sizeof *d);
}

int pl__dsn_parse(const char *name, pl__dsn *d, pl_error *err)
{
    memset(d, 0, sizeof *d);
    if (!name) return pl__fail(err, PL_E_INVAL, "no SQL log named");
    const char *s = strncasecmp(name, "SQL:", 4) == 0 ? name + 4 : name;
    const char *bang = strrchr(s, '!');
    size_t n = bang ? (size_t)(bang - s) : strlen(s);
    if (bang && bang[1] && !(d->logset = pl__strdup(bang + 1))) return pl__fail(err, PL_E_NOMEM, "out of memory");
    char *dsn = malloc(n + 1);
    if (!dsn) {
        pl__dsn_free(d);
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    memcpy(dsn, s, n);
    dsn[n] = '\0';
    int s_ = PL_OK;
    if (!*dsn) {
        s_ = pl__fail(err, PL_E_INVAL, "\"%s\": no database before the '!' (SQL:DSN!LogSet)", name);
    } else if (strncasecmp(dsn, "sqlite:", 7) == 0) {
        d->dialect = PL__SQL_SQLITE;
        d->target = pl__strdup(dsn + 7);
    } else if (strncasecmp(dsn, "pg:", 3) == 0) {
        d->dialect = PL__SQL_PG;
        size_t l = strlen(dsn + 3) + 16;
        if ((d->target = malloc(l))) snprintf(d->target, l, "service=%s", dsn + 3);
    } else if (strncmp(dsn, "postgresql://", 13) == 0 || strncmp(dsn, "postgres://", 11) == 0 || strchr(dsn, '=')) {
        d->dialect = PL__SQL_PG;
        d->target = pl__strdup(dsn);
    } else {
        d->dialect = PL__SQL_SQLITE;
        d->target = pl__strdup(dsn);
    }
    free(dsn);
    if (s_ == PL_OK && (!d->target || !*d->target))
        s_ = d->target ? pl__fail(err, PL_E_INVAL, "\"%s\": an empty database name", name)
                       : pl__fail(err, PL_E_NOMEM, "out of memory");
    if (s_) pl__dsn_free(d);
    return s_;
}

static int connect_dsn(const pl__dsn *d, int write, pl__sqldb **db, pl_error *err)
{
    return d->dialect == PL__SQL_PG ? pl__pg_connect(d->target, db, err)
                                    : pl__sqlite_connect(d->target, write, db, err);
}

/* ------------------------------------------------------------- cells */

static int parse_int_text(const char *s, int64_t *out)
{
    if (!s || !*s) return -1;
    char *e = NULL;
    errno = 0;
    long long v = strtoll(s, &e, 10);
    while (e && *e == ' ') e++;
    if (errno || !e || *e) return -1;
    *out = v;
    return 0;
}

int pl__sql_int(const pl__sqlv *v, int64_t lo, int64_t hi, int64_t *out)
{
    int64_t x;
    if (v->type == PL__SQL_INT) x = v->i;
    else if (v->type == PL__SQL_TEXT) {
        if (parse_int_text(v->s, &x)) return -1;
    } else if (v->type == PL__SQL_REAL && v->d == trunc(v->d) && fabs(v->d) < 9e15) {
        x = (int64_t)v->d;
    } else {
        return -1;
    }
    if (x < lo || x > hi) return -1;
    *out = x;
    return 0;
}

int pl__sql_real(const pl__sqlv *v, double *out)
{
    double d;
    if (v->type == PL__SQL_REAL) d = v->d;
    else if (v->type == PL__SQL_INT) d = (double)v->i;
    else if (v->type == PL__SQL_TEXT && v->s && *v->s) {
        char *e = NULL;
        d = strtod(v->s, &e);
        while (e && *e == ' ') e++;
        if (!e || *e) return -1;
    } else {
        return -1;
    }
    if (!isfinite(d)) return -1;
    *out = d;
    return 0;
}

static pl__sqlv P_INT(int64_t i) { return (pl__sqlv){PL__SQL_INT, i, 0, NULL}; }
static pl__sqlv P_TEXT(const char *s) { return s ? (pl__sqlv){PL__SQL_TEXT, 0, 0, s} : (pl__sqlv){0}; }
static pl__sqlv P_NULL(void) { return (pl__sqlv){PL__SQL_NULL, 0, 0, NULL}; }

/* ------------------------------------------------------------ schema */

/* Windows' three tables, column for column, with each type adapted to the
 * database (docs/counter-log.md has the table of adaptations). PostgreSQL
 * folds unquoted names to lower case, so queries written for Windows'
 * tables (which quote nothing) run unchanged. CounterData's key is
 * Windows' three columns in the order samples arrive (GUID, RecordIndex,
 * CounterID): a sample's rows are appended together, where Windows' order
 * (GUID, CounterID, RecordIndex) touches one page per counter. */
static const char *const k_ddl_sqlite[] = {
    "CREATE TABLE IF NOT EXISTS CounterData ("
    " GUID TEXT NOT NULL, CounterID INTEGER NOT NULL, RecordIndex INTEGER NOT NULL,"
    " CounterDateTime TEXT NOT NULL, CounterValue REAL,"
    " FirstValueA INTEGER, FirstValueB INTEGER, SecondValueA INTEGER, SecondValueB INTEGER, MultiCount INTEGER,"
    " PRIMARY KEY (GUID, RecordIndex, CounterID)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS CounterDetails ("
    " CounterID INTEGER PRIMARY KEY AUTOINCREMENT, MachineName TEXT NOT NULL, ObjectName TEXT NOT NULL,"
    " CounterName TEXT NOT NULL, CounterType INTEGER NOT NULL, DefaultScale INTEGER NOT NULL,"
    " InstanceName TEXT, InstanceIndex INTEGER, ParentName TEXT, ParentObjectID INTEGER,"
    " TimeBaseA INTEGER, TimeBaseB INTEGER)",
    "CREATE TABLE IF NOT EXISTS DisplayToID ("
    " GUID TEXT NOT NULL PRIMARY KEY, RunID INTEGER, DisplayString TEXT NOT NULL UNIQUE,"
    " LogStartTime TEXT, LogStopTime TEXT, NumberOfRecords INTEGER, MinutesToUTC INTEGER, TimeZoneName TEXT)",
    NULL};

static const char *const k_ddl_pg[] = {
    "CREATE TABLE IF NOT EXISTS CounterData ("
    " GUID uuid NOT NULL, CounterID integer NOT NULL, RecordIndex integer NOT NULL,"
    " CounterDateTime char(24) NOT NULL, CounterValue double precision,"
    " FirstValueA integer, FirstValueB integer, SecondValueA integer, SecondValueB integer, MultiCount integer,"
    " PRIMARY KEY (GUID, RecordIndex, CounterID))",
    "CREATE TABLE IF NOT EXISTS CounterDetails ("
    " CounterID integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, MachineName varchar(1024) NOT NULL,"
    " ObjectName varchar(1024) NOT NULL, CounterName varchar(1024) NOT NULL, CounterType integer NOT NULL,"
    " DefaultScale integer NOT NULL, InstanceName varchar(1024), InstanceIndex integer,"
    " ParentName varchar(1024), ParentObjectID integer, TimeBaseA integer, TimeBaseB integer)",
    "CREATE TABLE IF NOT EXISTS DisplayToID ("
    " GUID uuid NOT NULL PRIMARY KEY, RunID integer, DisplayString varchar(1024) NOT NULL UNIQUE,"
    " LogStartTime char(24), LogStopTime char(24), NumberOfRecords integer, MinutesToUTC integer,"
    " TimeZoneName char(32))",
    NULL};

static int run(pl__sqldb *db, const char *sql, pl_error *err) { return db->query(db, sql, NULL, 0, NULL, NULL, err); }

static const char *begin_sql(const pl__sqldb *db) { return db->dialect == PL__SQL_PG ? "BEGIN" : "BEGIN IMMEDIATE"; }

/* A random (version 4) GUID as SQL Server shows one. */
static int new_guid(char out[37])
{
    uint8_t b[16];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t r = getrandom(b + got, sizeof b - got, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    b[6] = (uint8_t)((b[6] & 0x0F) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3F) | 0x80);
    snprintf(out, 37, "%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X", b[0], b[1], b[2], b[3],
             b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return 0;
}

/* Characters (not bytes) of a UTF-8 string: varchar(n) counts them. */
static size_t chars(const char *s)
{
    size_t n = 0;
    for (; s && *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* ------------------------------------------------------------ writer */

struct pl_sqllog_writer {
    pl__sqldb *db;
    char *name;
    char guid[40];
    int64_t next;             /* the next RecordIndex */
    uint64_t records;         /* written by this writer */
    size_t ncols;
    int64_t *ids;             /* CounterID of each column; 0: a repeat of an earlier column */
    pl__sql_data *rows;
    int failed;
};

typedef struct one_row {
    int have;
    pl__sqlv v[2];
    char text[2][80];
} one_row;

/* Keep the first row's first two cells (text copied). */
static int keep_first(void *ctx, const pl__sqlv *c, int n)
{
    one_row *r = ctx;
    if (r->have++) return PL_OK;
    for (int i = 0; i < 2 && i < n; i++) {
        r->v[i] = c[i];
        if (c[i].type == PL__SQL_TEXT) {
            snprintf(r->text[i], sizeof r->text[i], "%s", c[i].s);
            r->v[i].s = r->text[i];
        }
    }
    return PL_OK;
}

/* The CounterID of a column, added to CounterDetails when it is new. */
static int counter_id(pl_sqllog_writer *w, const pl_log_column *c, int64_t time_base, int64_t *id, pl_error *err)
{
    pl__pdh_path p;
    if (pl__pdh_split(c->path, &p, NULL) != PL_PDH_CSTATUS_VALID_DATA || p.inst_wild || p.parent_wild ||
        p.counter_wild) {
        free(p.mem);
        return pl__fail(err, PL_E_INVAL, "\"%s\" is not a counter path (\\\\machine\\object(instance)\\counter)",
                        c->path);
    }
    const pl_pdh_path_elements *e = &p.e;
    char machine[NAME_MAX_CHARS * 4 + 3];
    snprintf(machine, sizeof machine, "\\\\%s", e->machine ? e->machine : "");
    if (chars(machine) > NAME_MAX_CHARS || chars(e->object) > NAME_MAX_CHARS || chars(e->counter) > NAME_MAX_CHARS ||
        chars(e->instance) > NAME_MAX_CHARS || chars(e->parent) > NAME_MAX_CHARS) {
        free(p.mem);
        return pl__fail(err, PL_E_RANGE, "\"%.200s\": a name longer than %d characters (varchar(%d))", c->path,
                        NAME_MAX_CHARS, NAME_MAX_CHARS);
    }
    /* a column without a known type (from CSV) holds a formatted double */
    int64_t type = c->type ? (int64_t)c->type : (int64_t)PERF_DOUBLE_RAW;
    if (type > INT32_MAX) type -= 4294967296LL; /* the int column holds the bits */
    pl__sqlv q[7] = {P_TEXT(machine), P_TEXT(e->object), P_TEXT(e->counter), P_INT(type),
                     P_TEXT(e->instance ? e->instance : ""), P_INT(e->instance ? (int64_t)e->index : -1),
                     P_TEXT(e->parent ? e->parent : "")};
    one_row r = {0};
    int s = w->db->query(w->db,
                         "SELECT CounterID FROM CounterDetails WHERE MachineName = $1 AND ObjectName = $2"
                         " AND CounterName = $3 AND CounterType = $4 AND COALESCE(InstanceName, '') = $5"
                         " AND COALESCE(InstanceIndex, -1) = $6 AND COALESCE(ParentName, '') = $7"
                         " ORDER BY CounterID LIMIT 1",
                         q, 7, keep_first, &r, err);
    if (s == PL_OK && r.have) {
        if (pl__sql_int(&r.v[0], 1, INT32_MAX, id) != 0)
            s = pl__fail(err, PL_E_BAD_BLOCK, "CounterDetails: a CounterID that is not a number");
    } else if (s == PL_OK) {
        pl__sqlv ins[10] = {P_TEXT(machine),
                            P_TEXT(e->object),
                            P_TEXT(e->counter),
                            P_INT(type),
                            P_INT(c->scale),
                            e->instance ? P_TEXT(e->instance) : P_NULL(),
                            e->instance ? P_INT((int64_t)e->index) : P_NULL(),
                            e->parent ? P_TEXT(e->parent) : P_NULL(),
                            time_base ? P_INT((int32_t)(uint32_t)((uint64_t)time_base & 0xFFFFFFFFu)) : P_NULL(),
                            time_base ? P_INT((int32_t)(uint32_t)((uint64_t)time_base >> 32)) : P_NULL()};
        memset(&r, 0, sizeof r);
        s = w->db->query(w->db,
                         "INSERT INTO CounterDetails (MachineName, ObjectName, CounterName, CounterType, DefaultScale,"
                         " InstanceName, InstanceIndex, ParentName, TimeBaseA, TimeBaseB)"
                         " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING CounterID",
                         ins, 10, keep_first, &r, err);
        if (s == PL_OK && (!r.have || pl__sql_int(&r.v[0], 1, INT32_MAX, id) != 0))
            s = pl__fail(err, PL_E_STORE, "CounterDetails: the new row has no CounterID");
    }
    free(p.mem);
    return s;
}

static void writer_free(pl_sqllog_writer *w)
{
    if (!w) return;
    if (w->db) w->db->close(w->db);
    free(w->name);
    free(w->ids);
    free(w->rows);
    free(w);
}

PL_EXTERN int pl_sqllog_open(const char *name, const pl_sqllog_info *info, unsigned flags, pl_sqllog_writer **out,
                             pl_error *err)
{
    pl__clear(err);
    (void)flags;
    if (!name || !info || !out || !info->columns || !info->ncolumns)
        return pl__fail(err, PL_E_INVAL, "pl_sqllog_open: NULL argument or no columns");
    *out = NULL;
    pl__dsn d;
    int s = pl__dsn_parse(name, &d, err);
    if (s) return s;
    if (!d.logset) {
        pl__dsn_free(&d);
        return pl__fail(err, PL_E_INVAL, "\"%s\" names no log set (SQL:DSN!LogSet)", name);
    }
    if (chars(d.logset) > NAME_MAX_CHARS || (info->zone && chars(info->zone) > ZONE_MAX_CHARS)) {
        pl__dsn_free(&d);
        return pl__fail(err, PL_E_RANGE, "the log set name (1024) or time zone name (32 characters) is too long");
    }
    pl_sqllog_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->name = pl__strdup(name)) || !(w->ids = calloc(info->ncolumns, sizeof *w->ids)) ||
        !(w->rows = calloc(info->ncolumns, sizeof *w->rows))) {
        writer_free(w);
        pl__dsn_free(&d);
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    w->ncols = info->ncolumns;
    s = connect_dsn(&d, 1, &w->db, err);
    const char *const *ddl = d.dialect == PL__SQL_PG ? k_ddl_pg : k_ddl_sqlite;
    for (int i = 0; s == PL_OK && ddl[i]; i++) s = run(w->db, ddl[i], err);
    if (s == PL_OK) s = run(w->db, begin_sql(w->db), err);
    int in_tx = s == PL_OK;
    /* the log set: appended to when it exists (Windows' relog always
     * appends to SQL), else a new GUID */
    one_row r = {0};
    pl__sqlv q[1] = {P_TEXT(d.logset)};
    if (s == PL_OK)
        s = w->db->query(w->db, "SELECT GUID FROM DisplayToID WHERE DisplayString = $1", q, 1, keep_first, &r, err);
    if (s == PL_OK && r.have) {
        if (r.v[0].type != PL__SQL_TEXT || strlen(r.v[0].s) > 38) {
            s = pl__fail(err, PL_E_BAD_BLOCK, "DisplayToID: the log set \"%s\" has no GUID", d.logset);
        } else {
            snprintf(w->guid, sizeof w->guid, "%s", r.v[0].s);
            pl__sqlv g[1] = {P_TEXT(w->guid)};
            memset(&r, 0, sizeof r);
            s = w->db->query(w->db, "SELECT COALESCE(MAX(RecordIndex), 0) FROM CounterData WHERE GUID = $1", g, 1,
                             keep_first, &r, err);
            if (s == PL_OK && (!r.have || pl__sql_int(&r.v[0], 0, INT32_MAX - 1, &w->next) != 0))
                s = pl__fail(err, PL_E_BAD_BLOCK, "CounterData: the log set's last RecordIndex is not a number");
            w->next++;
        }
    } else if (s == PL_OK) {
        if (new_guid(w->guid) != 0) s = pl__fail(err, PL_E_OS, "no random numbers for a GUID");
        pl__sqlv ins[5] = {P_TEXT(w->guid), P_TEXT(d.logset), P_INT(info->bias),
                           info->zone ? P_TEXT(info->zone) : P_NULL()};
        if (s == PL_OK)
            s = w->db->query(w->db,
                             "INSERT INTO DisplayToID (GUID, RunID, DisplayString, LogStartTime, LogStopTime,"
                             " NumberOfRecords, MinutesToUTC, TimeZoneName) VALUES ($1, 0, $2, NULL, NULL, 0, $3, $4)",
                             ins, 4, NULL, NULL, err);
        w->next = 1;
    }
    for (size_t i = 0; s == PL_OK && i < w->ncols; i++) {
        s = counter_id(w, &info->columns[i], info->time_base ? info->time_base[i] : 0, &w->ids[i], err);
        for (size_t k = 0; s == PL_OK && k < i; k++)
            if (w->ids[k] == w->ids[i]) w->ids[i] = 0; /* the same counter twice: its first column is written */
    }
    if (s == PL_OK) s = run(w->db, "COMMIT", err);
    else if (in_tx) run(w->db, "ROLLBACK", NULL);
    if (s) {
        char m[sizeof err->msg];
        snprintf(m, sizeof m, "%s", err ? err->msg : "");
        pl__fail(err, s, "%s: %s", d.logset, m);
        writer_free(w);
        pl__dsn_free(&d);
        return s;
    }
    pl__dsn_free(&d);
    *out = w;
    return PL_OK;
}

PL_EXTERN int pl_sqllog_append(pl_sqllog_writer *w, int64_t time, const double *values, const unsigned char *present,
                               const pl_pdh_raw *raw, pl_error *err)
{
    pl__clear(err);
    if (!w || !values || !present) return pl__fail(err, PL_E_INVAL, "pl_sqllog_append: NULL argument");
    if (w->failed) return pl__fail(err, PL_E_IO, "%s: an earlier sample could not be written", w->name);
    if (w->next > INT32_MAX) return pl__fail(err, PL_E_RANGE, "%s: RecordIndex would pass 2^31 - 1", w->name);
    size_t n = 0;
    for (size_t i = 0; i < w->ncols; i++) {
        if (!w->ids[i]) continue;
        pl__sql_data *r = &w->rows[n++];
        r->counter_id = w->ids[i];
        r->present = present[i] && isfinite(values[i]);
        r->value = r->present ? values[i] : 0;
        r->has_raw = raw && (raw[i].cstatus == PL_PDH_CSTATUS_VALID_DATA || raw[i].cstatus == PL_PDH_CSTATUS_NEW_DATA);
        r->first = r->has_raw ? raw[i].first : 0;
        r->second = r->has_raw ? raw[i].second : 0;
        r->multi = r->has_raw ? raw[i].multi_count : 0;
    }
    char when[24], stamp[24];
    pl__ft_sql_time(time, '.', when);
    pl__ft_sql_time(time, ':', stamp);
    int s = run(w->db, begin_sql(w->db), err);
    if (s == PL_OK) s = w->db->data(w->db, w->guid, w->next, when, w->rows, n, err);
    pl__sqlv q[2] = {P_TEXT(w->guid), P_TEXT(stamp)};
    if (s == PL_OK)
        s = w->db->query(w->db,
                         "UPDATE DisplayToID SET LogStartTime = COALESCE(LogStartTime, $2), LogStopTime = $2,"
                         " NumberOfRecords = COALESCE(NumberOfRecords, 0) + 1 WHERE GUID = $1",
                         q, 2, NULL, NULL, err);
    if (s == PL_OK) s = run(w->db, "COMMIT", err);
    if (s) {
        run(w->db, "ROLLBACK", NULL);
        w->failed = 1;
        char m[sizeof err->msg];
        snprintf(m, sizeof m, "%s", err ? err->msg : "");
        return pl__fail(err, s, "%s: sample %" PRId64 " was not written: %s", w->name, w->next, m);
    }
    w->next++;
    w->records++;
    return PL_OK;
}

PL_EXTERN uint64_t pl_sqllog_records(const pl_sqllog_writer *w) { return w ? w->records : 0; }

PL_EXTERN int pl_sqllog_close(pl_sqllog_writer *w, pl_error *err)
{
    pl__clear(err);
    if (!w) return PL_OK;
    int s = w->failed ? pl__fail(err, PL_E_IO, "%s: a sample could not be written", w->name) : PL_OK;
    writer_free(w);
    return s;
}

/* ------------------------------------------------------------ reader */

typedef struct sqlrec {
    int64_t index;            /* RecordIndex */
    int bad;                  /* its CounterDateTime is not a time */
} sqlrec;

typedef struct sqllog {
    pl__xlog x;
    pl__sqldb *db;
    char *name;
    char guid[40];
    pl_log_column *cols;
    int64_t *ids;             /* CounterID of each column, ascending */
    char *machine;
    sqlrec *r;
    size_t rcap, tcap;
    /* reading one record */
    double *vals;
    unsigned char *present;
    size_t dup;
} sqllog;

static void sql_close(pl__xlog *x)
{
    sqllog *l = (sqllog *)x;
    if (!l) return;
    if (l->db) l->db->close(l->db);
    for (size_t i = 0; l->cols && i < x->h.ncolumns; i++) free((char *)l->cols[i].path);
    free(l->cols);
    free(l->ids);
    free(l->machine);
    free(l->r);
    free(x->times);
    free(l->name);
    free(l);
}

typedef struct set_scan {
    const char *want;
    int found, count;
    char guid[40];
    char names[400];
    int bad;
} set_scan;

static int scan_sets(void *ctx, const pl__sqlv *c, int n)
{
    set_scan *s = ctx;
    if (n < 2 || c[0].type != PL__SQL_TEXT || c[1].type != PL__SQL_TEXT || strlen(c[0].s) > 38) {
        s->bad++;
        return PL_OK;
    }
    s->count++;
    size_t l = strlen(s->names);
    if (l < sizeof s->names - 4)
        snprintf(s->names + l, sizeof s->names - l, "%s\"%.60s\"", l ? ", " : "", c[1].s);
    if (s->want ? strcasecmp(c[1].s, s->want) == 0 && !s->found : !s->found) {
        s->found = 1;
        snprintf(s->guid, sizeof s->guid, "%s", c[0].s);
    }
    return PL_OK;
}

static int add_column(void *ctx, const pl__sqlv *c, int n)
{
    sqllog *l = ctx;
    int64_t id, type, scale, index = 0;
    if (n < 9 || pl__sql_int(&c[0], 1, INT32_MAX, &id) || c[1].type != PL__SQL_TEXT || c[2].type != PL__SQL_TEXT ||
        c[3].type != PL__SQL_TEXT || !*c[2].s || !*c[3].s || pl__sql_int(&c[4], INT32_MIN, UINT32_MAX, &type) ||
        pl__sql_int(&c[5], INT32_MIN, INT32_MAX, &scale) ||
        (c[6].type != PL__SQL_NULL && c[6].type != PL__SQL_TEXT) ||
        (c[7].type != PL__SQL_NULL && pl__sql_int(&c[7], 0, UINT32_MAX, &index)) ||
        (c[8].type != PL__SQL_NULL && c[8].type != PL__SQL_TEXT)) {
        l->x.health.damaged_bytes++; /* a CounterDetails row that is not one: its data is left out */
        return PL_OK;
    }
    const char *m = c[1].s;
    if (m[0] == '\\' && m[1] == '\\') m += 2;
    const char *inst = c[6].type == PL__SQL_TEXT && *c[6].s ? c[6].s : NULL;
    const char *par = inst && c[8].type == PL__SQL_TEXT && *c[8].s ? c[8].s : NULL;
    pl_pdh_path_elements e = {(char *)(*m ? m : NULL), (char *)c[2].s, (char *)inst, (char *)par, (uint32_t)index,
                              (char *)c[3].s};
    size_t need = 0;
    if (pl_pdh_make_path(&e, NULL, &need, NULL) != PL_PDH_MORE_DATA) {
        l->x.health.damaged_bytes++;
        return PL_OK;
    }
    char *path = malloc(need);
    if (!path) return PL_E_NOMEM;
    pl_pdh_make_path(&e, path, &need, NULL);
    size_t k = l->x.h.ncolumns;
    pl_log_column *nc = realloc(l->cols, (k + 1) * sizeof *nc);
    int64_t *ni = nc ? realloc(l->ids, (k + 1) * sizeof *ni) : NULL;
    if (nc) l->cols = nc;
    if (ni) l->ids = ni;
    if (!nc || !ni) {
        free(path);
        return PL_E_NOMEM;
    }
    l->cols[k] = (pl_log_column){path, (uint32_t)type, (int32_t)scale, NULL};
    l->ids[k] = id;
    l->x.h.ncolumns = k + 1;
    return PL_OK;
}

static int add_record(void *ctx, const pl__sqlv *c, int n)
{
    sqllog *l = ctx;
    int64_t idx;
    if (n < 2 || pl__sql_int(&c[0], INT32_MIN, INT32_MAX, &idx)) {
        l->x.health.damaged_bytes++;
        return PL_OK;
    }
    size_t k = l->x.n;
    if (pl__grow((void **)&l->r, &l->rcap, k + 1, sizeof *l->r) ||
        pl__grow((void **)&l->x.times, &l->tcap, k + 1, sizeof *l->x.times))
        return PL_E_NOMEM;
    pl__walltime w;
    l->r[k].index = idx;
    l->r[k].bad = c[1].type != PL__SQL_TEXT || pl__parse_sql_time(c[1].s, &w) != 0;
    l->x.times[k] = l->r[k].bad ? (k ? l->x.times[k - 1] : 0) : pl__walltime_ft(&w);
    l->x.n = k + 1;
    return PL_OK;
}

/* Column of a CounterID (binary search: ids ascend), or -1. */
static long column_of(const sqllog *l, int64_t id)
{
    size_t lo = 0, hi = l->x.h.ncolumns;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->ids[mid] < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < l->x.h.ncolumns && l->ids[lo] == id ? (long)lo : -1;
}

static int add_value(void *ctx, const pl__sqlv *c, int n)
{
    sqllog *l = ctx;
    int64_t id;
    double d;
    if (n < 2 || pl__sql_int(&c[0], 1, INT32_MAX, &id)) return PL_OK;
    long k = column_of(l, id);
    if (k < 0) return PL_OK; /* a counter whose details are not readable */
    if (l->present[k]) {
        l->dup++;
        return PL_OK;
    }
    if (c[1].type != PL__SQL_NULL && pl__sql_real(&c[1], &d) == 0) {
        l->vals[k] = d;
        l->present[k] = 1;
    }
    return PL_OK;
}

static int sql_read(pl__xlog *x, size_t i, double *vals, unsigned char *present, pl_error *err)
{
    sqllog *l = (sqllog *)x;
    if (l->r[i].bad)
        return pl__fail(err, PL_E_BAD_BLOCK, "%s: RecordIndex %" PRId64 ": CounterDateTime is not a time", l->name,
                        l->r[i].index);
    memset(present, 0, x->h.ncolumns);
    for (size_t c = 0; c < x->h.ncolumns; c++) vals[c] = 0;
    l->vals = vals;
    l->present = present;
    l->dup = 0;
    pl__sqlv q[2] = {P_TEXT(l->guid), P_INT(l->r[i].index)};
    int s = l->db->query(l->db, "SELECT CounterID, CounterValue FROM CounterData WHERE GUID = $1 AND RecordIndex = $2",
                         q, 2, add_value, l, err);
    if (s) {
        char m[sizeof err->msg];
        snprintf(m, sizeof m, "%s", err ? err->msg : "");
        return pl__fail(err, s == PL_E_NOMEM ? s : PL_E_BAD_BLOCK, "%s: RecordIndex %" PRId64 ": %s", l->name,
                        l->r[i].index, m);
    }
    return PL_OK;
}

int pl__sqllog_open_db(pl__sqldb *db, const char *name, const char *logset, pl__xlog **out, pl_error *err)
{
    *out = NULL;
    sqllog *l = calloc(1, sizeof *l);
    if (!l || !(l->name = pl__strdup(name))) {
        free(l);
        db->close(db);
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    l->db = db;
    l->x.format = PL_LOG_FMT_SQL;
    l->x.read = sql_read;
    l->x.close = sql_close;
    set_scan ss = {0};
    ss.want = logset;
    int s = db->query(db, "SELECT GUID, DisplayString FROM DisplayToID ORDER BY DisplayString", NULL, 0, scan_sets, &ss,
                      err);
    if (s) {
        char m[sizeof err->msg];
        snprintf(m, sizeof m, "%s", err ? err->msg : "");
        s = pl__fail(err, PL_E_PARSE, "%s is not a counter log database (no DisplayToID table: %s)", name, m);
        goto fail;
    }
    if (!ss.found) {
        if (logset) s = pl__fail(err, PL_E_NOT_FOUND, "%s: no log set \"%s\" (log sets: %s)", name, logset,
                                 ss.count ? ss.names : "none");
        else s = pl__fail(err, PL_E_NOT_FOUND, "%s: the database holds no log set", name);
        goto fail;
    }
    if (!logset && ss.count > 1) {
        s = pl__fail(err, PL_E_INVAL, "%s: name a log set (SQL:DSN!LogSet): %s", name, ss.names);
        goto fail;
    }
    snprintf(l->guid, sizeof l->guid, "%s", ss.guid);
    pl__sqlv g[1] = {P_TEXT(l->guid)};
    s = db->query(db,
                  "SELECT CounterID, MachineName, ObjectName, CounterName, CounterType, DefaultScale, InstanceName,"
                  " InstanceIndex, ParentName FROM CounterDetails WHERE CounterID IN"
                  " (SELECT DISTINCT CounterID FROM CounterData WHERE GUID = $1) ORDER BY CounterID",
                  g, 1, add_column, l, err);
    if (s == PL_OK && l->x.h.ncolumns == 0) s = pl__fail(err, PL_E_PARSE, "%s: the log set has no counters", name);
    if (s == PL_OK)
        s = db->query(db,
                      "SELECT RecordIndex, MIN(CounterDateTime) FROM CounterData WHERE GUID = $1"
                      " GROUP BY RecordIndex ORDER BY RecordIndex",
                      g, 1, add_record, l, err);
    if (s) goto fail;
    l->x.h.kind = PL_LOG_VALUES;
    l->x.h.columns = l->cols;
    l->machine = pl__path_machine(l->cols[0].path);
    l->x.h.machine = l->machine;
    if (!l->x.times && !(l->x.times = malloc(sizeof *l->x.times))) {
        s = pl__fail(err, PL_E_NOMEM, "out of memory");
        goto fail;
    }
    *out = &l->x;
    return PL_OK;
fail:
    sql_close(&l->x);
    return s;
}

int pl__sqllog_open(const char *name, pl__xlog **out, pl_error *err)
{
    pl__dsn d;
    int s = pl__dsn_parse(name, &d, err);
    if (s) return s;
    pl__sqldb *db = NULL;
    s = connect_dsn(&d, 0, &db, err);
    if (s == PL_OK) s = pl__sqllog_open_db(db, name, d.logset, out, err);
    pl__dsn_free(&d);
    return s;
}
