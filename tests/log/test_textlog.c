/* CSV/TSV logs in the PDH-CSV 4.0 form Windows writes, read through
 * pl_log and through PDH (docs/counter-log.md, "Other formats"). The logs
 * are written here following the documented form exactly (see
 * shared/reference/typeperf-format.md): a header cell
 * "(PDH-CSV 4.0) (<zone>)(<bias>)", full paths with machine names, every
 * field quoted, " " for a value that does not exist, CRLF line ends. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pl_test.h"

#include "pl_test_logs.h"

#include "perflib/log.h"
#include "perflib/pdh.h"
#include "win32/pdh.h"

typedef struct fx {
    char dir[64];
    char path[128];
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    if (!f) return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/pl_textlog_XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    snprintf(f->path, sizeof f->path, "%s/w.csv", f->dir);
    setenv("TZ", "UTC", 1);
    tzset();
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    int r = system(cmd);
    free(f);
    return r == 0 ? 0 : -1;
}

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
    assert_int_equal(fclose(fp), 0);
}

/* FILETIME of a UTC time. */
static int64_t ft_utc(int y, int mo, int d, int h, int mi, int s, int ms)
{
    struct tm tm = {0};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = s;
    return ((int64_t)timegm(&tm) * 1000 + ms + 11644473600000LL) * 10000;
}

static void check_windows_csv(const char *path)
{
    pl_log *log = NULL;
    pl_error err = {0};
    assert_int_equal(pl_log_open(path, &log, &err), PL_OK);
    assert_int_equal(pl_log_format(log), PL_LOG_FMT_CSV);
    const pl_log_header *h = pl_log_get_header(log);
    assert_int_equal(h->kind, PL_LOG_VALUES);
    assert_string_equal(h->machine, "WIN1");
    assert_int_equal(h->ncolumns, 5);
    assert_string_equal(h->columns[2].path, "\\\\WIN2\\Thread(explorer/0)\\% Processor Time");
    assert_string_equal(h->columns[4].path, "\\\\WIN1\\LogicalDisk(a,\"b\")\\Free Megabytes");
    assert_int_equal(pl_log_count(log), 3);
    /* 10:00 in Berlin's summer is 08:00 UTC */
    for (int k = 0; k < 3; k++) assert_true(pl_log_time(log, (size_t)k) == ft_utc(2026, 7, 1, 8, 0, k, 125));
    const double *v;
    const unsigned char *p;
    assert_int_equal(pl_log_read_values(log, 0, &v, &p, &err), PL_OK);
    assert_true(p[0] && v[0] == 1073741824.0);
    assert_false(p[1]);
    assert_true(p[2] && v[2] == 12.5);
    assert_true(p[4] && v[4] == 1);
    assert_int_equal(pl_log_read_values(log, 1, &v, &p, &err), PL_OK);
    assert_true(p[1] && v[1] == 37.5);
    assert_false(p[2]);
    assert_true(v[4] == 0.05);
    assert_int_equal(pl_log_read_values(log, 2, &v, &p, &err), PL_OK);
    assert_true(v[1] == 88.359340674585567);
    assert_false(p[3]);
    pl_log_close(log);
}

static void windows_csv_reads(void **state)
{
    fx *f = *state;
    write_text(f->path, pl_test_windows_csv);
    /* written in another zone than ours (UTC): the header's bias applies */
    check_windows_csv(f->path);
    /* read in the zone it was written in: the same instants */
    setenv("TZ", "Europe/Berlin", 1);
    tzset();
    check_windows_csv(f->path);
    /* the same as TSV */
    char tsv[sizeof pl_test_windows_csv];
    memcpy(tsv, pl_test_windows_csv, sizeof tsv);
    memcpy(tsv + 6, "TSV", 3);
    for (char *c = tsv; *c; c++)
        if (c[0] == '"' && c[1] == ',' && c[2] == '"') c[1] = '\t';
    write_text(f->path, tsv);
    pl_log *log = NULL;
    pl_error err = {0};
    assert_int_equal(pl_log_open(f->path, &log, &err), PL_OK);
    assert_int_equal(pl_log_format(log), PL_LOG_FMT_TSV);
    assert_int_equal(pl_log_get_header(log)->ncolumns, 5);
    const double *v;
    const unsigned char *p;
    assert_int_equal(pl_log_read_values(log, 2, &v, &p, &err), PL_OK);
    assert_true(p[1] && v[1] == 88.359340674585567);
    pl_log_close(log);
}

/* A console capture: BOM, an empty first line, a header without a zone
 * (local time applies), and the closing lines; a row that is malformed is
 * reported with its line and the others are read. */
static void console_capture_and_bad_rows(void **state)
{
    fx *f = *state;
    setenv("TZ", "America/New_York", 1);
    tzset();
    write_text(f->path, "\xEF\xBB\xBF\r\n"
                        "\"(PDH-CSV 4.0)\",\"\\\\H\\Memory\\Available Bytes\",\"\\\\H\\Memory\\Pages/sec\"\r\n"
                        "\"01/15/2026 10:00:00.000\",\"1.000000\",\" \"\r\n"
                        "\"01/15/2026 10:00:01.000\",\"2.000000\r\n"
                        "\"01/15/2026 10:00:02.000\",\"3\"\r\n"
                        "\"13/15/2026 10:00:03.000\",\"4\",\"5\"\r\n"
                        "\"01/15/2026 10:00:04.000\",\"5\",\"6\"x\r\n"
                        "\"01/15/2026 10:00:05.000\",\"6\",\"7\"\n"
                        "Exiting, please wait...\r\n"
                        "The command completed successfully.\r\n");
    pl_log *log = NULL;
    pl_error err = {0};
    assert_int_equal(pl_log_open(f->path, &log, &err), PL_OK);
    assert_int_equal(pl_log_count(log), 6);
    /* New York in January: UTC-5 */
    assert_true(pl_log_time(log, 0) == ft_utc(2026, 1, 15, 15, 0, 0, 0));
    assert_true(pl_log_time(log, 5) == ft_utc(2026, 1, 15, 15, 0, 5, 0));
    const double *v;
    const unsigned char *p;
    assert_int_equal(pl_log_read_values(log, 0, &v, &p, &err), PL_OK);
    assert_true(p[0] && v[0] == 1 && !p[1]);
    assert_int_equal(pl_log_read_values(log, 1, &v, &p, &err), PL_E_BAD_BLOCK);
    assert_non_null(strstr(err.msg, "line 4: a quote is not closed"));
    assert_int_equal(pl_log_read_values(log, 2, &v, &p, &err), PL_E_BAD_BLOCK);
    assert_non_null(strstr(err.msg, "line 5 has 2 cells, the header 3"));
    assert_int_equal(pl_log_read_values(log, 3, &v, &p, &err), PL_E_BAD_BLOCK);
    assert_non_null(strstr(err.msg, "line 6: \"13/15/2026 10:00:03.000\" is not a time"));
    assert_int_equal(pl_log_read_values(log, 4, &v, &p, &err), PL_E_BAD_BLOCK);
    assert_non_null(strstr(err.msg, "line 7: text follows a closing quote"));
    assert_int_equal(pl_log_read_values(log, 5, &v, &p, &err), PL_OK);
    assert_true(p[0] && v[0] == 6 && p[1] && v[1] == 7);
    pl_log_close(log);

    /* UTF-16 is refused with a reason; a header alone is a log of no rows */
    write_text(f->path, "\xFF\xFE\"\0(\0");
    assert_int_equal(pl_log_open(f->path, &log, &err), PL_E_ENCODING);
    assert_non_null(strstr(err.msg, "UTF-16"));
    write_text(f->path, "(PDH-TSV 4.0)\t\\\\H\\Memory\\Available Bytes\r\n");
    assert_int_equal(pl_log_open(f->path, &log, &err), PL_OK);
    assert_int_equal(pl_log_count(log), 0);
    assert_int_equal(pl_log_format(log), PL_LOG_FMT_TSV);
    pl_log_close(log);
}

/* PDH over the CSV log: paths on both machines, the parent/instance and the
 * duplicate instance, wildcards, the values of each row. */
static void pdh_reads_a_csv_log(void **state)
{
    fx *f = *state;
    write_text(f->path, pl_test_windows_csv);
    pl_log *log = NULL;
    pl_error err = {0};
    assert_int_equal(pl_log_open(f->path, &log, &err), PL_OK);
    pl_pdh_source s;
    pl_log_source *ls = NULL;
    assert_int_equal(pl_log_source_open(log, &s, &ls, &err), PL_OK);
    pl_pdh_query *q = NULL;
    assert_int_equal(pl_pdh_open_query(&s, &q, &err), 0);
    const char *paths[] = {"\\Memory\\Available Bytes", "\\\\WIN1\\Processor(_Total)\\% Processor Time",
                           "\\\\WIN2\\Thread(explorer/0)\\% Processor Time", "\\Process(svchost#1)\\Working Set",
                           "\\LogicalDisk(a,\"b\")\\Free Megabytes"};
    pl_pdh_counter *c[5];
    for (int i = 0; i < 5; i++) {
        uint32_t st = pl_pdh_add_counter(q, paths[i], &c[i], &err);
        if (st) print_error("%s: 0x%08X %s\n", paths[i], st, err.msg);
        assert_int_equal(st, 0);
    }
    char **exp = NULL;
    size_t nexp = 0;
    assert_int_equal(pl_pdh_expand_path(&s, "\\Process(*)\\Working Set", &exp, &nexp, &err), 0);
    assert_int_equal(nexp, 2);
    assert_string_equal(exp[0], "\\Process(svchost)\\Working Set");
    assert_string_equal(exp[1], "\\Process(svchost#1)\\Working Set");
    pl_free(exp);
    assert_int_equal(pl_pdh_validate_path(&s, "\\Memory\\Pages/sec", &err), PL_PDH_CSTATUS_NO_COUNTER);
    assert_int_equal(pl_pdh_validate_path(&s, "\\\\WIN3\\Memory\\Available Bytes", &err),
                     PL_PDH_CSTATUS_NO_MACHINE);
    static const double want[3][5] = {{1073741824, NAN, 12.5, 4096, 1},
                                      {1073741823, 37.5, NAN, 4100, 0.05},
                                      {1073741822, 88.359340674585567, 0, NAN, -2}};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(pl_log_source_set(ls, (size_t)k, &err), PL_OK);
        assert_int_equal(pl_pdh_collect(q, &err), 0);
        assert_true(pl_pdh_query_time(q) == ft_utc(2026, 7, 1, 8, 0, k, 125));
        for (int i = 0; i < 5; i++) {
            pl_pdh_value v;
            uint32_t st = pl_pdh_get_formatted(c[i], PL_PDH_FMT_DOUBLE | PL_PDH_FMT_NOCAP100, NULL, &v);
            if (isnan(want[k][i])) {
                assert_int_equal(st, PL_PDH_INVALID_DATA);
            } else {
                assert_int_equal(st, 0);
                assert_true(v.v.double_value == want[k][i]);
            }
        }
    }
    pl_pdh_close_query(q);
    pl_pdh_source_close(&s);
    pl_log_close(log);
}

/* The Windows-named PDH opens a CSV log as it opens a binary one. */
static void windows_names_read_a_csv_log(void **state)
{
    fx *f = *state;
    write_text(f->path, pl_test_windows_csv);
    PDH_HQUERY q = NULL;
    PDH_HCOUNTER c = NULL;
    assert_int_equal(PdhOpenQueryA(f->path, 0, &q), PDH_CSTATUS_VALID_DATA);
    assert_int_equal(PdhAddCounterA(q, "\\\\WIN1\\Processor(_Total)\\% Processor Time", 0, &c), PDH_CSTATUS_VALID_DATA);
    PDH_FMT_COUNTERVALUE v;
    assert_int_equal(PdhCollectQueryData(q), PDH_CSTATUS_VALID_DATA);
    assert_int_equal(PdhGetFormattedCounterValue(c, PDH_FMT_DOUBLE, NULL, &v), PDH_INVALID_DATA);
    assert_int_equal(PdhCollectQueryData(q), PDH_CSTATUS_VALID_DATA);
    assert_int_equal(PdhGetFormattedCounterValue(c, PDH_FMT_DOUBLE, NULL, &v), PDH_CSTATUS_VALID_DATA);
    assert_true(v.doubleValue == 37.5);
    DWORD type = 0;
    PDH_RAW_COUNTER raw;
    assert_int_equal(PdhGetRawCounterValue(c, &type, &raw), PDH_CSTATUS_VALID_DATA);
    assert_int_equal(type, PERF_DOUBLE_RAW);
    assert_int_equal(PdhCollectQueryData(q), PDH_CSTATUS_VALID_DATA);
    assert_int_equal(PdhCollectQueryData(q), PDH_NO_MORE_DATA);
    assert_int_equal(PdhCloseQuery(q), PDH_CSTATUS_VALID_DATA);
    PDH_TIME_INFO ti;
    DWORD n = 0, size = sizeof ti;
    assert_int_equal(PdhGetDataSourceTimeRangeA(f->path, &n, &ti, &size), PDH_CSTATUS_VALID_DATA);
    assert_int_equal(ti.SampleCount, 3);
    assert_true(ti.StartTime == ft_utc(2026, 7, 1, 8, 0, 0, 125)); /* TZ=UTC: local is UTC */
    char objs[4096];
    DWORD occh = sizeof objs;
    assert_int_equal(PdhEnumObjectsA(f->path, NULL, objs, &occh, PERF_DETAIL_WIZARD, 0), PDH_CSTATUS_VALID_DATA);
    int found = 0;
    for (const char *o = objs; *o; o += strlen(o) + 1) found += strcmp(o, "Memory") == 0 || strcmp(o, "Process") == 0;
    assert_int_equal(found, 2);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(windows_csv_reads, setup, teardown),
        cmocka_unit_test_setup_teardown(console_capture_and_bad_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(pdh_reads_a_csv_log, setup, teardown),
        cmocka_unit_test_setup_teardown(windows_names_read_a_csv_log, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
