/* SQL log sets in Windows' schema (docs/counter-log.md, "SQL log sets"):
 * written with pl_sqllog_*, read back with pl_log_open("SQL:...") and PDH,
 * checked column by column in the real databases: SQLite files and a real
 * PostgreSQL server started by the test (tests/common/pl_test_pg.c).
 * Several log sets in one database, appending, the DisplayToID times, a
 * writer killed with SIGKILL leaving whole samples only, hostile rows. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pl_test.h"
#include <libpq-fe.h>
#include <sqlite3.h>

#include "perflib/log.h"
#include "perflib/pdh.h"
#include "perflib/winperf.h"
#include "pl_test_pg.h"
#include "win32/pdh.h"

typedef struct fx {
    char dir[64];
    char db[128];             /* the SQLite file */
    pl_test_pg pg;
    int have_pg;
    char pgci[320];           /* the database of the check running */
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    if (!f) return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/pl_sqllog_XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    snprintf(f->db, sizeof f->db, "%s/perf.db", f->dir);
    setenv("TZ", "UTC", 1);
    tzset();
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    if (f->have_pg) pl_test_pg_stop(&f->pg);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    int r = system(cmd);
    free(f);
    return r == 0 ? 0 : -1;
}

/* Start the PostgreSQL server: a test that cannot fails, naming why. */
static void need_pg(fx *f)
{
    char why[1024];
    if (pl_test_pg_start(&f->pg, why, sizeof why) != 0) {
        print_error("cannot start PostgreSQL: %s\n", why);
        fail();
    }
    f->have_pg = 1;
}

/* "SQL:<target>!<set>" for the SQLite file or the server. */
static void name_of(const fx *f, int pg, const char *set, char *out, size_t cap)
{
    if (set) snprintf(out, cap, "SQL:%s!%s", pg ? f->pgci : f->db, set);
    else snprintf(out, cap, "SQL:%s", pg ? f->pgci : f->db);
}

/* One text cell of the first row of an SQL query on either database. */
static void cell(const fx *f, int pg, const char *sql, char *out, size_t cap)
{
    out[0] = '\0';
    if (pg) {
        PGconn *c = PQconnectdb(f->pgci);
        assert_int_equal(PQstatus(c), CONNECTION_OK);
        PGresult *r = PQexec(c, sql);
        if (PQresultStatus(r) != PGRES_TUPLES_OK) print_error("%s: %s\n", sql, PQresultErrorMessage(r));
        assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
        if (PQntuples(r) > 0) snprintf(out, cap, "%s", PQgetisnull(r, 0, 0) ? "NULL" : PQgetvalue(r, 0, 0));
        PQclear(r);
        PQfinish(c);
        return;
    }
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(f->db, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) print_error("%s: %s\n", sql, sqlite3_errmsg(db));
    assert_non_null(st);
    if (sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        snprintf(out, cap, "%s", t ? (const char *)t : "NULL");
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static void run_sql(const fx *f, int pg, const char *sql)
{
    if (pg) {
        PGconn *c = PQconnectdb(f->pgci);
        assert_int_equal(PQstatus(c), CONNECTION_OK);
        PGresult *r = PQexec(c, sql);
        if (PQresultStatus(r) != PGRES_COMMAND_OK) print_error("%s: %s\n", sql, PQresultErrorMessage(r));
        assert_int_equal(PQresultStatus(r), PGRES_COMMAND_OK);
        PQclear(r);
        PQfinish(c);
        return;
    }
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(f->db, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) print_error("%s: %s\n", sql, msg);
    assert_null(msg);
    sqlite3_close(db);
}

/* A fresh database for the next check. */
static void pg_database(fx *f, const char *name)
{
    snprintf(f->pgci, sizeof f->pgci, "%s", f->pg.conninfo);
    char sql[128];
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", name);
    run_sql(f, 1, sql);
    snprintf(f->pgci, sizeof f->pgci, "host=%s port=5432 user=perflib dbname=%s", f->pg.dir, name);
}

#define FT(s, ms) ((((int64_t)(s)) * 1000 + (ms) + 11644473600000LL) * 10000)
#define T0 1782900000 /* 2026-07-01 10:00:00 UTC */

static const pl_log_column k_cols[] = {
    {"\\\\WIN1\\Memory\\Available Bytes", PERF_COUNTER_LARGE_RAWCOUNT, -6, NULL},
    {"\\\\WIN1\\Processor(_Total)\\% Processor Time", PERF_100NSEC_TIMER_INV, 0, NULL},
    {"\\\\WIN2\\Thread(explorer/0)\\% Processor Time", PERF_100NSEC_TIMER, 0, NULL},
    {"\\\\WIN1\\Process(svchost#1)\\Working Set", PERF_COUNTER_LARGE_RAWCOUNT, -5, NULL},
    {"\\\\WIN1\\Memory\\Pages/sec", 0, 0, NULL},
};
#define NCOLS 5

/* Write 4 samples: value (k, c) = k * 10 + c + 0.5, column 2 missing in
 * sample 1, raw counters for columns 0 and 1. */
static void write_set(const char *name, int64_t t0)
{
    int64_t tb[NCOLS] = {10000000, 10000000, 10000000, 10000000, 0};
    pl_sqllog_info si = {k_cols, NCOLS, tb, "W. Europe Daylight Time", -120};
    pl_sqllog_writer *w = NULL;
    pl_error err = {0};
    int s = pl_sqllog_open(name, &si, 0, &w, &err);
    if (s) print_error("%s: %s\n", name, err.msg);
    assert_int_equal(s, PL_OK);
    for (int k = 0; k < 4; k++) {
        double v[NCOLS];
        unsigned char p[NCOLS];
        pl_pdh_raw raw[NCOLS];
        memset(raw, 0, sizeof raw);
        for (int c = 0; c < NCOLS; c++) {
            v[c] = k * 10 + c + 0.5;
            p[c] = !(k == 1 && c == 2);
            raw[c].cstatus = c < 2 ? PL_PDH_CSTATUS_VALID_DATA : PL_PDH_CSTATUS_INVALID_DATA;
            raw[c].first = (int64_t)0x123456789ALL + k;
            raw[c].second = -2;
            raw[c].multi_count = 7;
        }
        assert_int_equal(pl_sqllog_append(w, t0 + FT(k, 125) - FT(0, 0), v, p, raw, &err), PL_OK);
    }
    assert_int_equal(pl_sqllog_records(w), 4);
    assert_int_equal(pl_sqllog_close(w, &err), PL_OK);
}

static void check_set(const char *name, int64_t t0, size_t nrec)
{
    pl_log *log = NULL;
    pl_error err = {0};
    int s = pl_log_open(name, &log, &err);
    if (s) print_error("%s: %s\n", name, err.msg);
    assert_int_equal(s, PL_OK);
    assert_int_equal(pl_log_format(log), PL_LOG_FMT_SQL);
    const pl_log_header *h = pl_log_get_header(log);
    assert_int_equal(h->kind, PL_LOG_VALUES);
    assert_int_equal(h->ncolumns, NCOLS);
    assert_string_equal(h->machine, "WIN1");
    for (int c = 0; c < NCOLS; c++) {
        assert_string_equal(h->columns[c].path, k_cols[c].path);
        assert_int_equal(h->columns[c].type, k_cols[c].type ? k_cols[c].type : PERF_DOUBLE_RAW);
        assert_int_equal(h->columns[c].scale, k_cols[c].scale);
    }
    assert_int_equal(pl_log_count(log), nrec);
    for (size_t i = 0; i < nrec; i++) {
        int k = (int)(i % 4);
        /* a set written twice: the second four samples 100 s later */
        assert_true(pl_log_time(log, i) == t0 + FT(k, 125) - FT(0, 0) + (int64_t)(i / 4) * 1000000000LL);
        const double *v;
        const unsigned char *p;
        assert_int_equal(pl_log_read_values(log, i, &v, &p, &err), PL_OK);
        for (int c = 0; c < NCOLS; c++) {
            if (k == 1 && c == 2) {
                assert_false(p[c]);
                continue;
            }
            assert_true(p[c]);
            assert_true(v[c] == k * 10 + c + 0.5);
        }
    }
    pl_log_close(log);
}

/* Windows' columns, column for column, with the values read back. */
static void schema_and_round_trip(fx *f, int pg)
{
    char name[512];
    name_of(f, pg, "day one", name, sizeof name);
    write_set(name, FT(T0, 0));
    check_set(name, FT(T0, 0), 4);
    char v[256];
    /* DisplayToID: the name, times as Microsoft documents them (UTC), the
     * count, the zone of the first sample */
    cell(f, pg, "SELECT LogStartTime FROM DisplayToID WHERE DisplayString = 'day one'", v, sizeof v);
    assert_string_equal(v, pg ? "2026-07-01 10:00:00:125 " : "2026-07-01 10:00:00:125");
    cell(f, pg, "SELECT LogStopTime FROM DisplayToID", v, sizeof v);
    assert_true(strncmp(v, "2026-07-01 10:00:03:125", 23) == 0);
    cell(f, pg, "SELECT NumberOfRecords FROM DisplayToID", v, sizeof v);
    assert_string_equal(v, "4");
    cell(f, pg, "SELECT MinutesToUTC FROM DisplayToID", v, sizeof v);
    assert_string_equal(v, "-120");
    cell(f, pg, "SELECT TimeZoneName FROM DisplayToID", v, sizeof v);
    assert_true(strncmp(v, "W. Europe Daylight Time", 23) == 0);
    cell(f, pg, "SELECT RunID FROM DisplayToID", v, sizeof v);
    assert_string_equal(v, "0");
    /* CounterDetails: the path's parts, the machine with its backslashes */
    cell(f, pg, "SELECT MachineName || '|' || ObjectName || '|' || CounterName || '|' || InstanceName || '|' ||"
                " ParentName || '|' || InstanceIndex || '|' || CounterType || '|' || DefaultScale || '|' ||"
                " TimeBaseA || '|' || TimeBaseB FROM CounterDetails WHERE ObjectName = 'Thread'",
         v, sizeof v);
    assert_string_equal(v, "\\\\WIN2|Thread|% Processor Time|0|explorer|0|542180608|0|10000000|0");
    cell(f, pg, "SELECT InstanceName || '|' || InstanceIndex FROM CounterDetails WHERE ObjectName = 'Process'", v,
         sizeof v);
    assert_string_equal(v, "svchost|1");
    cell(f, pg, "SELECT COUNT(*) FROM CounterDetails WHERE InstanceName IS NULL AND InstanceIndex IS NULL"
                " AND ParentName IS NULL AND ParentObjectID IS NULL",
         v, sizeof v);
    assert_string_equal(v, "2");
    cell(f, pg, "SELECT CounterType FROM CounterDetails WHERE CounterName = 'Pages/sec'", v, sizeof v);
    assert_string_equal(v, "73728"); /* a column of unknown type: PERF_DOUBLE_RAW */
    /* CounterData: the time in UTC, the value, the raw halves */
    cell(f, pg, "SELECT d.CounterDateTime FROM CounterData d JOIN CounterDetails c ON c.CounterID = d.CounterID"
                " WHERE c.ObjectName = 'Memory' AND c.CounterName = 'Available Bytes' AND d.RecordIndex = 2",
         v, sizeof v);
    assert_true(strncmp(v, "2026-07-01 10:00:01.125", 23) == 0);
    cell(f, pg, "SELECT d.CounterValue || '|' || d.FirstValueA || '|' || d.FirstValueB || '|' || d.SecondValueA ||"
                " '|' || d.SecondValueB || '|' || d.MultiCount FROM CounterData d JOIN CounterDetails c"
                " ON c.CounterID = d.CounterID WHERE c.ObjectName = 'Memory' AND c.CounterName = 'Available Bytes'"
                " AND d.RecordIndex = 2",
         v, sizeof v);
    /* 0x123456789B: low 0x3456789B, high 0x12; -2: both halves -1 */
    assert_string_equal(v, pg ? "10.5|878082203|18|-2|-1|7" : "10.5|878082203|18|-2|-1|7");
    cell(f, pg, "SELECT COUNT(*) FROM CounterData WHERE CounterValue IS NULL", v, sizeof v);
    assert_string_equal(v, "1"); /* the one value that was not there */
    cell(f, pg, "SELECT COUNT(*) FROM CounterData WHERE FirstValueA IS NULL AND MultiCount IS NULL", v, sizeof v);
    assert_string_equal(v, "12");
}

/* Several sets in one database; appending continues a set's RecordIndex. */
static void sets_and_append(fx *f, int pg)
{
    char a[512], b[512], any[512];
    name_of(f, pg, "alpha", a, sizeof a);
    name_of(f, pg, "beta", b, sizeof b);
    name_of(f, pg, NULL, any, sizeof any);
    write_set(a, FT(T0, 0));
    pl_log *log = NULL;
    pl_error err = {0};
    /* one set: "SQL:DSN" alone reads it */
    assert_int_equal(pl_log_open(any, &log, &err), PL_OK);
    assert_int_equal(pl_log_count(log), 4);
    pl_log_close(log);
    write_set(b, FT(T0 + 3600, 0));
    write_set(a, FT(T0 + 100, 0));
    check_set(a, FT(T0, 0), 8);
    check_set(b, FT(T0 + 3600, 0), 4);
    assert_int_equal(pl_log_open(any, &log, &err), PL_E_INVAL);
    assert_non_null(strstr(err.msg, "\"alpha\", \"beta\""));
    char c[512];
    name_of(f, pg, "gamma", c, sizeof c);
    assert_int_equal(pl_log_open(c, &log, &err), PL_E_NOT_FOUND);
    assert_non_null(strstr(err.msg, "no log set \"gamma\""));
    char v[128];
    cell(f, pg, "SELECT MAX(RecordIndex) FROM CounterData d JOIN DisplayToID s ON s.GUID = d.GUID"
                " WHERE s.DisplayString = 'alpha'",
         v, sizeof v);
    assert_string_equal(v, "8");
    cell(f, pg, "SELECT NumberOfRecords FROM DisplayToID WHERE DisplayString = 'alpha'", v, sizeof v);
    assert_string_equal(v, "8");
    cell(f, pg, "SELECT LogStopTime FROM DisplayToID WHERE DisplayString = 'alpha'", v, sizeof v);
    assert_true(strncmp(v, "2026-07-01 10:01:43:125", 23) == 0);
    /* the counters are shared by the sets: five rows, not fifteen */
    cell(f, pg, "SELECT COUNT(*) FROM CounterDetails", v, sizeof v);
    assert_string_equal(v, "5");
    /* a set needs a name to be written; a column must be a counter path */
    pl_sqllog_writer *w = NULL;
    pl_sqllog_info si = {k_cols, NCOLS, NULL, NULL, 0};
    assert_int_equal(pl_sqllog_open(any, &si, 0, &w, &err), PL_E_INVAL);
    pl_log_column bad = {"Available Bytes", 0, 0, NULL};
    pl_sqllog_info sb = {&bad, 1, NULL, NULL, 0};
    assert_int_equal(pl_sqllog_open(a, &sb, 0, &w, &err), PL_E_INVAL);
    assert_non_null(strstr(err.msg, "not a counter path"));
}

/* A writer killed with SIGKILL at a random moment: every record read back
 * is a whole sample, and DisplayToID counts exactly those. */
static void killed_writer(fx *f, int pg)
{
    enum { NC = 40 };
    static pl_log_column cols[NC];
    static char paths[NC][64];
    for (int c = 0; c < NC; c++) {
        snprintf(paths[c], sizeof paths[c], "\\\\BOX\\Kill(%d)\\Value", c);
        cols[c] = (pl_log_column){paths[c], PERF_COUNTER_LARGE_RAWCOUNT, 0, NULL};
    }
    char name[512];
    srand((unsigned)getpid());
    for (int round = 0; round < 4; round++) {
        snprintf(name, sizeof name, "SQL:%s!kill%d", pg ? f->pgci : f->db, round);
        int ready[2];
        assert_int_equal(pipe(ready), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            close(ready[0]);
            pl_sqllog_info si = {cols, NC, NULL, NULL, 0};
            pl_sqllog_writer *w = NULL;
            if (pl_sqllog_open(name, &si, 0, &w, NULL) != PL_OK) _exit(3);
            double v[NC];
            unsigned char p[NC];
            memset(p, 1, sizeof p);
            for (int k = 0;; k++) {
                for (int c = 0; c < NC; c++) v[c] = k * 1000.0 + c;
                if (pl_sqllog_append(w, FT(T0 + k, 0), v, p, NULL, NULL) != PL_OK) _exit(4);
                if (k == 3 && write(ready[1], "x", 1) != 1) _exit(5);
            }
        }
        close(ready[1]);
        char x;
        assert_int_equal(read(ready[0], &x, 1), 1);
        close(ready[0]);
        struct timespec ts = {0, (long)(rand() % 200) * 1000000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        int st;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFSIGNALED(st));
        pl_log *log = NULL;
        pl_error err = {0};
        assert_int_equal(pl_log_open(name, &log, &err), PL_OK);
        size_t n = pl_log_count(log);
        assert_true(n >= 4);
        assert_int_equal(pl_log_get_header(log)->ncolumns, NC);
        for (size_t i = 0; i < n; i++) {
            const double *v;
            const unsigned char *p;
            assert_int_equal(pl_log_read_values(log, i, &v, &p, &err), PL_OK);
            for (int c = 0; c < NC; c++) {
                assert_true(p[c]);
                assert_true(v[c] == (double)i * 1000.0 + c);
            }
        }
        pl_log_close(log);
        char q[160], got[64], want[32];
        snprintf(q, sizeof q, "SELECT NumberOfRecords FROM DisplayToID WHERE DisplayString = 'kill%d'", round);
        cell(f, pg, q, got, sizeof got);
        snprintf(want, sizeof want, "%zu", n);
        assert_string_equal(got, want);
        snprintf(q, sizeof q, "SELECT COUNT(*) FROM CounterData d JOIN DisplayToID s ON s.GUID = d.GUID"
                              " WHERE s.DisplayString = 'kill%d'", round);
        cell(f, pg, q, got, sizeof got);
        snprintf(want, sizeof want, "%zu", n * NC);
        assert_string_equal(got, want);
    }
}

/* PDH reads a log set as it reads a CSV log. */
static void pdh_over_set(fx *f, int pg)
{
    char name[512];
    name_of(f, pg, "pdh", name, sizeof name);
    write_set(name, FT(T0, 0));
    pl_log *log = NULL;
    pl_error err = {0};
    assert_int_equal(pl_log_open(name, &log, &err), PL_OK);
    pl_pdh_source s;
    pl_log_source *ls = NULL;
    assert_int_equal(pl_log_source_open(log, &s, &ls, &err), PL_OK);
    pl_pdh_query *q = NULL;
    pl_pdh_counter *c1 = NULL, *c2 = NULL;
    assert_int_equal(pl_pdh_open_query(&s, &q, &err), 0);
    assert_int_equal(pl_pdh_add_counter(q, "\\Process(svchost#1)\\Working Set", &c1, &err), 0);
    assert_int_equal(pl_pdh_add_counter(q, "\\\\WIN2\\Thread(explorer/0)\\% Processor Time", &c2, &err), 0);
    for (int k = 0; k < 4; k++) {
        assert_int_equal(pl_log_source_set(ls, (size_t)k, &err), PL_OK);
        assert_int_equal(pl_pdh_collect(q, &err), 0);
        pl_pdh_value v;
        assert_int_equal(pl_pdh_get_formatted(c1, PL_PDH_FMT_DOUBLE, NULL, &v), 0);
        assert_true(v.v.double_value == k * 10 + 3.5);
        uint32_t st = pl_pdh_get_formatted(c2, PL_PDH_FMT_DOUBLE, NULL, &v);
        if (k == 1) assert_int_equal(st, PL_PDH_INVALID_DATA);
        else assert_true(st == 0 && v.v.double_value == k * 10 + 2.5);
    }
    pl_pdh_close_query(q);
    pl_pdh_source_close(&s);
    pl_log_close(log);
    /* the Windows names take "SQL:DSN!LogSet" as a data source, as on Windows */
    PDH_HQUERY hq = NULL;
    PDH_HCOUNTER hc = NULL;
    assert_int_equal(PdhOpenQueryA(name, 0, &hq), PDH_CSTATUS_VALID_DATA);
    assert_int_equal(PdhAddCounterA(hq, "\\\\WIN1\\Memory\\Available Bytes", 0, &hc), PDH_CSTATUS_VALID_DATA);
    for (int k = 0; k < 4; k++) {
        PDH_FMT_COUNTERVALUE fv;
        assert_int_equal(PdhCollectQueryData(hq), PDH_CSTATUS_VALID_DATA);
        assert_int_equal(PdhGetFormattedCounterValue(hc, PDH_FMT_DOUBLE, NULL, &fv), PDH_CSTATUS_VALID_DATA);
        assert_true(fv.doubleValue == k * 10 + 0.5);
    }
    assert_int_equal(PdhCollectQueryData(hq), PDH_NO_MORE_DATA);
    assert_int_equal(PdhCloseQuery(hq), PDH_CSTATUS_VALID_DATA);
    PDH_TIME_INFO ti;
    DWORD n = 0, size = sizeof ti;
    assert_int_equal(PdhGetDataSourceTimeRangeA(name, &n, &ti, &size), PDH_CSTATUS_VALID_DATA);
    assert_int_equal(ti.SampleCount, 4);
}

static void sqlite_schema_and_round_trip(void **state) { schema_and_round_trip(*state, 0); }
static void sqlite_sets_and_append(void **state) { sets_and_append(*state, 0); }
static void sqlite_killed_writer(void **state) { killed_writer(*state, 0); }
static void sqlite_pdh_over_set(void **state) { pdh_over_set(*state, 0); }

/* One server for all the PostgreSQL checks (starting one takes seconds). */
static void postgresql_real_server(void **state)
{
    fx *f = *state;
    need_pg(f);
    pg_database(f, "schema");
    schema_and_round_trip(f, 1);
    pg_database(f, "sets");
    sets_and_append(f, 1);
    pg_database(f, "killed");
    killed_writer(f, 1);
    pg_database(f, "pdh");
    pdh_over_set(f, 1);
    /* a server that is not there: PL_E_IO naming libpq's reason */
    pl_log *log = NULL;
    pl_error err = {0};
    char name[300];
    snprintf(name, sizeof name, "SQL:host=%s/none port=5432 user=perflib dbname=postgres!x", f->dir);
    assert_int_equal(pl_log_open(name, &log, &err), PL_E_IO);
    assert_non_null(strstr(err.msg, "PostgreSQL: cannot connect"));
}

/* DSN forms and hostile SQLite databases: rows of the wrong type, a bad
 * time, a view in place of a table, a file that is no database. */
static void hostile_sqlite(void **state)
{
    fx *f = *state;
    char name[512];
    name_of(f, 0, "h", name, sizeof name);
    write_set(name, FT(T0, 0));
    run_sql(f, 0, "UPDATE CounterData SET CounterDateTime = 'yesterday' WHERE RecordIndex = 2;"
                  "UPDATE CounterData SET CounterValue = 'abc' WHERE RecordIndex = 3 AND CounterID = 1;"
                  "UPDATE CounterData SET CounterValue = x'00ff' WHERE RecordIndex = 3 AND CounterID = 2;"
                  "INSERT INTO CounterDetails (MachineName, ObjectName, CounterName, CounterType, DefaultScale)"
                  " VALUES ('\\\\X', '', 'c', 1, 0);"
                  "INSERT INTO CounterData (GUID, CounterID, RecordIndex, CounterDateTime, CounterValue)"
                  " SELECT GUID, 6, 1, '2026-07-01 10:00:00.125', 1 FROM DisplayToID;"
                  "INSERT INTO CounterData (GUID, CounterID, RecordIndex, CounterDateTime, CounterValue)"
                  " SELECT GUID, 99, 1, '2026-07-01 10:00:00.125', 1 FROM DisplayToID;");
    pl_log *log = NULL;
    pl_error err = {0};
    assert_int_equal(pl_log_open(name, &log, &err), PL_OK);
    assert_int_equal(pl_log_get_header(log)->ncolumns, NCOLS); /* the row with no object is left out */
    assert_int_equal(pl_log_count(log), 4);
    const double *v;
    const unsigned char *p;
    assert_int_equal(pl_log_read_values(log, 1, &v, &p, &err), PL_E_BAD_BLOCK);
    assert_non_null(strstr(err.msg, "RecordIndex 2: CounterDateTime is not a time"));
    assert_int_equal(pl_log_read_values(log, 2, &v, &p, &err), PL_OK);
    assert_false(p[0]); /* text that is not a number */
    assert_false(p[1]); /* a blob */
    assert_true(p[2] && v[2] == 22.5);
    pl_log_close(log);
    /* a view in place of a table is refused */
    run_sql(f, 0, "ALTER TABLE DisplayToID RENAME TO D2; CREATE VIEW DisplayToID AS SELECT * FROM D2;");
    assert_int_equal(pl_log_open(name, &log, &err), PL_E_PARSE);
    /* a file that is no database, a missing one, a name without a database */
    FILE *fp = fopen(f->db, "wb");
    fputs("not a database at all, not even close to one..........................................", fp);
    fclose(fp);
    assert_int_not_equal(pl_log_open(name, &log, &err), PL_OK);
    unlink(f->db);
    assert_int_equal(pl_log_open(name, &log, &err), PL_E_NOT_FOUND);
    assert_int_equal(pl_log_open("SQL:!x", &log, &err), PL_E_INVAL);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(sqlite_schema_and_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(sqlite_sets_and_append, setup, teardown),
        cmocka_unit_test_setup_teardown(sqlite_killed_writer, setup, teardown),
        cmocka_unit_test_setup_teardown(sqlite_pdh_over_set, setup, teardown),
        cmocka_unit_test_setup_teardown(hostile_sqlite, setup, teardown),
        cmocka_unit_test_setup_teardown(postgresql_real_server, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
