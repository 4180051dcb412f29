/* relog and typeperf -f BIN, end to end with the real executables over the
 * canned samples (docs/relog.md, docs/counter-log.md): byte-identical CSV,
 * the Samples line, cuts, filters, merging, damaged inputs, exit codes. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pl_test.h"

#include "pl_test_logs.h"

#include "pdh_canned.h"
#include "perflib/registry.h"
#include "pl_test_pg.h"

typedef struct fx {
    char dir[64];
    char store[128];
    char out[65536];
    char err[8192];
    int code;
    const char *tz;           /* TZ of the tools run; NULL: UTC */
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    if (!f) return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/pl_relog_XXXXXX");
    if (canned_dir(f->dir, 1, f->store, sizeof f->store) != 0) return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    if (system(cmd) != 0) return -1;
    free(f);
    return 0;
}

/* Run bin with args (NULL-terminated); clock: typeperf's fixed-clock hook. */
static void run(fx *f, const char *bin, const char *clock, const char *const *args)
{
    char outp[160], errp[160];
    snprintf(outp, sizeof outp, "%s/stdout", f->dir);
    snprintf(errp, sizeof errp, "%s/stderr", f->dir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int o = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0600), e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int in = open("/dev/null", O_RDONLY);
        if (o < 0 || e < 0 || in < 0) _exit(99);
        dup2(o, 1);
        dup2(e, 2);
        dup2(in, 0);
        setenv("TZ", f->tz ? f->tz : "UTC", 1);
        setenv("PERFLIB_REGISTRY", f->store, 1);
        setenv("PERFLIB_TYPEPERF_BLOCKS", f->dir, 1);
        unsetenv("PERFLIB_LANG");
        if (clock) setenv("PERFLIB_TYPEPERF_CLOCK", clock, 1);
        else unsetenv("PERFLIB_TYPEPERF_CLOCK");
        const char *argv[40];
        int n = 0;
        argv[n++] = bin;
        for (int i = 0; args[i] && n < 39; i++) argv[n++] = args[i];
        argv[n] = NULL;
        execv(bin, (char *const *)argv);
        _exit(98);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    f->code = WEXITSTATUS(status);
    canned_read_file(outp, f->out, sizeof f->out);
    canned_read_file(errp, f->err, sizeof f->err);
}

static void expect_code(const fx *f, int code)
{
    if (f->code != code) {
        print_error("exit %d, want %d\n--- stdout ---\n%s\n--- stderr ---\n%s\n", f->code, code, f->out, f->err);
        fail();
    }
}

static void same_files(const char *a, const char *b)
{
    static char x[65536], y[65536];
    canned_read_file(a, x, sizeof x);
    canned_read_file(b, y, sizeof y);
    if (strcmp(x, y) != 0) {
        print_error("--- %s ---\n%s\n--- %s ---\n%s\n", a, x, b, y);
        fail();
    }
    assert_true(strlen(x) > 0);
}

static const char *const k_paths[] = {"\\Processor(*)\\% Processor Time", "\\Memory\\Available Bytes",
                                      "\\Memory\\Page Faults/sec", "\\LogicalDisk(C:)\\Avg. Disk sec/Transfer",
                                      "\\Process(*)\\% Processor Time", "\\Network Interface(*)\\Bytes Total/sec",
                                      "\\Network Interface(wlan0)\\Current Bandwidth", "\\System\\System Up Time"};

/* typeperf PATHS -sc 4 -o CSV and -f BIN -o LOG with the same clock. */
static void record(fx *f, const char *clock, const char *csv, const char *bin)
{
    const char *a[32];
    int n = 0;
    for (size_t i = 0; i < sizeof k_paths / sizeof *k_paths; i++) a[n++] = k_paths[i];
    a[n++] = "-sc";
    a[n++] = "4";
    a[n++] = "-si";
    a[n++] = "1";
    a[n++] = "-o";
    int at = n;
    a[n++] = csv;
    a[n++] = "-y";
    a[n] = NULL;
    if (csv) {
        run(f, TYPEPERF_BIN, clock, a);
        expect_code(f, 0);
    }
    a[at] = bin;
    a[n++] = "-f";
    a[n++] = "BIN";
    a[n] = NULL;
    run(f, TYPEPERF_BIN, clock, a);
    expect_code(f, 0);
    assert_string_equal(f->out, "Exiting, please wait...\r\nThe command completed successfully.\r\n");
}

static void csv_identical_to_typeperf(void **state)
{
    fx *f = *state;
    char csv[128], bin[128], out[128], tsv[128], tsv2[128];
    snprintf(csv, sizeof csv, "%s/tp.csv", f->dir);
    snprintf(bin, sizeof bin, "%s/tp.plog", f->dir);
    snprintf(out, sizeof out, "%s/relog.csv", f->dir);
    snprintf(tsv, sizeof tsv, "%s/tp.tsv", f->dir);
    record(f, NULL, csv, bin);
    const char *a[] = {bin, "-f", "CSV", "-o", out, "-y", NULL};
    run(f, RELOG_BIN, NULL, a);
    expect_code(f, 0);
    assert_non_null(strstr(f->out, "The command completed successfully."));
    same_files(csv, out);
    /* and with a fixed clock 250 ms apart, in TSV */
    record(f, "1688169599500,250", csv, bin);
    const char *tp[] = {k_paths[0], k_paths[1], "-sc", "4", "-f", "TSV", "-o", tsv, "-y", NULL};
    run(f, TYPEPERF_BIN, "1688169599500,250", tp);
    expect_code(f, 0);
    snprintf(tsv2, sizeof tsv2, "%s/relog.tsv", f->dir);
    const char *b[] = {bin, "-f", "TSV", "-o", tsv2, "-y", "-c", k_paths[0], k_paths[1], NULL};
    run(f, RELOG_BIN, NULL, b);
    expect_code(f, 0);
    same_files(tsv, tsv2);
}

/* typeperf -i replays a log: the same CSV again, and -q lists what the
 * log holds */
static void typeperf_replays_a_log(void **state)
{
    fx *f = *state;
    char csv[128], bin[128], out[128];
    snprintf(csv, sizeof csv, "%s/tp.csv", f->dir);
    snprintf(bin, sizeof bin, "%s/tp.plog", f->dir);
    snprintf(out, sizeof out, "%s/replay.csv", f->dir);
    record(f, "1700000000000,1000", csv, bin);
    const char *a[32];
    int n = 0;
    for (size_t i = 0; i < sizeof k_paths / sizeof *k_paths; i++) a[n++] = k_paths[i];
    a[n++] = "-i";
    a[n++] = bin;
    a[n++] = "-o";
    a[n++] = out;
    a[n++] = "-y";
    a[n] = NULL;
    run(f, TYPEPERF_BIN, NULL, a);
    expect_code(f, 0);
    same_files(csv, out);
    const char *q[] = {"-qx", "Memory", "-i", bin, NULL};
    run(f, TYPEPERF_BIN, NULL, q);
    expect_code(f, 0);
    assert_non_null(strstr(f->out, "\\Memory\\Available Bytes\r\n"));
    char junk[128];
    snprintf(junk, sizeof junk, "%s/junk", f->dir);
    canned_write_file(junk, "x", 1);
    const char *b[] = {"\\Memory\\Available Bytes", "-i", junk, NULL};
    run(f, TYPEPERF_BIN, NULL, b);
    expect_code(f, 3);
    assert_non_null(strstr(f->err, "not a perflib counter log"));
}

static void query_prints_samples(void **state)
{
    fx *f = *state;
    char bin[128];
    snprintf(bin, sizeof bin, "%s/tp.plog", f->dir);
    record(f, NULL, NULL, bin);
    const char *a[] = {bin, "-q", NULL};
    run(f, RELOG_BIN, NULL, a);
    expect_code(f, 0);
    assert_non_null(strstr(f->out, "\r\nSamples: 4\r\n"));
    assert_non_null(strstr(f->out, "Begin: 1/15/2024 10:00:00\r\n"));
    assert_non_null(strstr(f->out, "End: 1/15/2024 10:00:03\r\n"));
    assert_non_null(strstr(f->out, "\r\n\\\\TESTBOX\\Memory\\Available Bytes\r\n"));
    assert_non_null(strstr(f->out, "\r\n\\\\TESTBOX\\Processor(_Total)\\% Processor Time\r\n"));
    assert_non_null(strstr(f->out, "(Binary)"));
    /* the time range and every other record */
    const char *b[] = {bin, "-q", "-b", "1/15/2024", "10:00:01", "-e", "1/15/2024 10:00:02AM", NULL};
    run(f, RELOG_BIN, NULL, b);
    expect_code(f, 0);
    assert_non_null(strstr(f->out, "\r\nSamples: 2\r\n"));
    const char *c[] = {bin, "-q", "-t", "3", NULL};
    run(f, RELOG_BIN, NULL, c);
    expect_code(f, 0);
    assert_non_null(strstr(f->out, "\r\nSamples: 2\r\n"));
    /* counters filtered with wildcards */
    const char *d[] = {bin, "-q", "-c", "\\Processor(*)\\*", NULL};
    run(f, RELOG_BIN, NULL, d);
    expect_code(f, 0);
    assert_non_null(strstr(f->out, "Processor(0)\\% Processor Time\r\n"));
    assert_null(strstr(f->out, "Memory"));
}

static void csv_and_bin_round_trips(void **state)
{
    fx *f = *state;
    char csv[128], bin[128], c2[128], vlog[128], c3[128];
    snprintf(csv, sizeof csv, "%s/tp.csv", f->dir);
    snprintf(bin, sizeof bin, "%s/tp.plog", f->dir);
    snprintf(c2, sizeof c2, "%s/c2.csv", f->dir);
    snprintf(vlog, sizeof vlog, "%s/v.plog", f->dir);
    snprintf(c3, sizeof c3, "%s/c3.csv", f->dir);
    record(f, NULL, csv, bin);
    const char *a[] = {csv, "-f", "CSV", "-o", c2, "-y", NULL};
    run(f, RELOG_BIN, NULL, a);
    expect_code(f, 0);
    same_files(csv, c2);
    /* CSV -> BIN (values) -> CSV */
    const char *b[] = {csv, "-f", "BIN", "-o", vlog, "-y", NULL};
    run(f, RELOG_BIN, NULL, b);
    expect_code(f, 0);
    const char *c[] = {vlog, "-f", "CSV", "-o", c3, "-y", NULL};
    run(f, RELOG_BIN, NULL, c);
    expect_code(f, 0);
    same_files(csv, c3);
    /* BIN -> BIN keeps the raw blocks: the CSV from the copy is the same */
    char b2[128];
    snprintf(b2, sizeof b2, "%s/copy.plog", f->dir);
    const char *d[] = {bin, "-o", b2, "-y", NULL};
    run(f, RELOG_BIN, NULL, d);
    expect_code(f, 0);
    const char *e[] = {b2, "-f", "CSV", "-o", c3, "-y", NULL};
    run(f, RELOG_BIN, NULL, e);
    expect_code(f, 0);
    same_files(csv, c3);
}

/* Every 2nd record: rates are computed between the records kept. */
static void every_nth_and_range(void **state)
{
    fx *f = *state;
    char bin[128], out[128], buf[8192];
    snprintf(bin, sizeof bin, "%s/tp.plog", f->dir);
    snprintf(out, sizeof out, "%s/o.csv", f->dir);
    record(f, NULL, NULL, bin);
    const char *a[] = {bin, "-f", "CSV", "-o", out, "-y", "-t", "2", "-c", "\\Memory\\Page Faults/sec", NULL};
    run(f, RELOG_BIN, NULL, a);
    expect_code(f, 0);
    canned_read_file(out, buf, sizeof buf);
    /* faults 5000 + 100 k^2: (5900 - 5000) / 2 s = 450 */
    assert_string_equal(buf, "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\TESTBOX\\Memory\\Page Faults/sec\"\r\n"
                             "\"01/15/2024 10:00:00.000\",\" \"\r\n"
                             "\"01/15/2024 10:00:02.000\",\"200\"\r\n");
    const char *b[] = {bin, "-f", "CSV", "-o", out, "-y", "-b", "1/15/2024 10:00:02", "-c", "\\Memory\\Page Faults/sec",
                       NULL};
    run(f, RELOG_BIN, NULL, b);
    expect_code(f, 0);
    canned_read_file(out, buf, sizeof buf);
    assert_string_equal(buf, "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\TESTBOX\\Memory\\Page Faults/sec\"\r\n"
                             "\"01/15/2024 10:00:02.000\",\" \"\r\n"
                             "\"01/15/2024 10:00:03.000\",\"500\"\r\n");
}

/* Two logs one second apart interleave in time order; columns are the
 * union, each row fills its own log's columns. */
static void merge_in_time_order(void **state)
{
    fx *f = *state;
    char a1[128], a2[128], out[128], buf[8192];
    snprintf(a1, sizeof a1, "%s/a.plog", f->dir);
    snprintf(a2, sizeof a2, "%s/b.csv", f->dir);
    snprintf(out, sizeof out, "%s/m.csv", f->dir);
    const char *x[] = {"\\Memory\\Available Bytes", "-sc", "2", "-f", "BIN", "-o", a1, "-y", NULL};
    run(f, TYPEPERF_BIN, "1700000000000,2000", x);
    expect_code(f, 0);
    const char *y[] = {"\\Memory\\Available Bytes", "\\System\\System Up Time", "-sc", "2", "-o", a2, "-y", NULL};
    run(f, TYPEPERF_BIN, "1700000001000,2000", y);
    expect_code(f, 0);
    const char *m[] = {a2, a1, "-f", "CSV", "-o", out, "-y", NULL};
    run(f, RELOG_BIN, NULL, m);
    expect_code(f, 0);
    canned_read_file(out, buf, sizeof buf);
    assert_string_equal(buf, "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\TESTBOX\\Memory\\Available Bytes\","
                             "\"\\\\TESTBOX\\System\\System Up Time\"\r\n"
                             "\"11/14/2023 22:13:20.000\",\"2000000000\",\" \"\r\n"
                             "\"11/14/2023 22:13:21.000\",\"2000000000\",\"400\"\r\n"
                             "\"11/14/2023 22:13:22.000\",\"1998951424\",\" \"\r\n"
                             "\"11/14/2023 22:13:23.000\",\"1998951424\",\"401\"\r\n");
    const char *q[] = {a1, a2, "-q", NULL};
    run(f, RELOG_BIN, NULL, q);
    expect_code(f, 0);
    assert_non_null(strstr(f->out, "\r\nSamples: 4\r\n"));
}

static void damaged_inputs(void **state)
{
    fx *f = *state;
    char bin[128], out[128], buf[16384];
    snprintf(bin, sizeof bin, "%s/tp.plog", f->dir);
    snprintf(out, sizeof out, "%s/o.csv", f->dir);
    record(f, NULL, NULL, bin);
    struct stat st;
    assert_int_equal(stat(bin, &st), 0);
    /* cut in the middle of the last record: 3 samples, exit 0, a warning */
    assert_int_equal(truncate(bin, st.st_size - 5), 0);
    const char *a[] = {bin, "-q", NULL};
    run(f, RELOG_BIN, NULL, a);
    expect_code(f, 0);
    assert_non_null(strstr(f->out, "\r\nSamples: 3\r\n"));
    assert_non_null(strstr(f->err, "incomplete"));
    /* a flipped byte in the last record: the other 3 are converted, exit 5 */
    record(f, NULL, NULL, bin);
    FILE *fp = fopen(bin, "r+b");
    assert_non_null(fp);
    fseek(fp, -3, SEEK_END);
    int c = fgetc(fp);
    fseek(fp, -3, SEEK_END);
    fputc(c ^ 0x5A, fp);
    fclose(fp);
    const char *b[] = {bin, "-f", "CSV", "-o", out, "-y", "-c", "\\Memory\\Available Bytes", NULL};
    run(f, RELOG_BIN, NULL, b);
    expect_code(f, 5);
    assert_non_null(strstr(f->err, "damaged"));
    canned_read_file(out, buf, sizeof buf);
    assert_string_equal(buf, "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\TESTBOX\\Memory\\Available Bytes\"\r\n"
                             "\"01/15/2024 10:00:00.000\",\"2000000000\"\r\n"
                             "\"01/15/2024 10:00:01.000\",\"1998951424\"\r\n"
                             "\"01/15/2024 10:00:02.000\",\"1997902848\"\r\n");
    /* a CSV line cut short is skipped and reported */
    char csv[128];
    snprintf(csv, sizeof csv, "%s/bad.csv", f->dir);
    const char *text = "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\H\\Memory\\Available Bytes\"\r\n"
                       "\"01/15/2024 10:00:00.000\",\"1\"\r\n"
                       "\"01/15/2024 10:00:01.000\",\"2\r\n"
                       "\"01/15/2024 10:00:02.000\",\"3\"\r\n";
    canned_write_file(csv, text, strlen(text));
    const char *d[] = {csv, "-f", "CSV", "-o", out, "-y", NULL};
    run(f, RELOG_BIN, NULL, d);
    expect_code(f, 5);
    assert_non_null(strstr(f->err, "line 3"));
    canned_read_file(out, buf, sizeof buf);
    assert_string_equal(buf, "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\H\\Memory\\Available Bytes\"\r\n"
                             "\"01/15/2024 10:00:00.000\",\"1\"\r\n"
                             "\"01/15/2024 10:00:02.000\",\"3\"\r\n");
}

static void errors_and_exit_codes(void **state)
{
    fx *f = *state;
    char bin[128], out[128], junk[128], missing[128];
    snprintf(bin, sizeof bin, "%s/tp.plog", f->dir);
    snprintf(out, sizeof out, "%s/o.csv", f->dir);
    snprintf(junk, sizeof junk, "%s/junk", f->dir);
    snprintf(missing, sizeof missing, "%s/none.plog", f->dir);
    record(f, NULL, NULL, bin);
    canned_write_file(junk, "hello\n", 6);
    const char *a[] = {missing, "-f", "CSV", "-o", out, NULL};
    run(f, RELOG_BIN, NULL, a);
    expect_code(f, 2);
    assert_non_null(strstr(f->err, "Error: cannot open"));
    const char *b[] = {junk, "-f", "CSV", "-o", out, NULL};
    run(f, RELOG_BIN, NULL, b);
    expect_code(f, 2);
    assert_non_null(strstr(f->err, "not a perflib counter log or a CSV/TSV performance log"));
    const char *c[] = {bin, "-f", "CSV", "-o", out, "-c", "\\Nope\\Nothing", NULL};
    run(f, RELOG_BIN, NULL, c);
    expect_code(f, 3);
    const char *d[] = {bin, "-f", "XML", "-o", out, NULL};
    run(f, RELOG_BIN, NULL, d);
    expect_code(f, 1);
    const char *e[] = {bin, "-f", "CSV", NULL};
    run(f, RELOG_BIN, NULL, e);
    expect_code(f, 1);
    /* exists, no -y, "no" (stdin is /dev/null): kept, exit 4 */
    canned_write_file(out, "keep", 4);
    const char *g[] = {bin, "-f", "CSV", "-o", out, NULL};
    run(f, RELOG_BIN, NULL, g);
    expect_code(f, 4);
    char buf[64];
    canned_read_file(out, buf, sizeof buf);
    assert_string_equal(buf, "keep");
    /* -f BIN without -o in typeperf */
    const char *h[] = {"\\Memory\\Available Bytes", "-f", "BIN", NULL};
    run(f, TYPEPERF_BIN, NULL, h);
    expect_code(f, 1);
}

static void append_binary(void **state)
{
    fx *f = *state;
    char a1[128], a2[128], out[128];
    snprintf(a1, sizeof a1, "%s/a.plog", f->dir);
    snprintf(a2, sizeof a2, "%s/b.plog", f->dir);
    snprintf(out, sizeof out, "%s/all.plog", f->dir);
    const char *x[] = {"\\Memory\\Available Bytes", "-sc", "2", "-f", "BIN", "-o", a1, "-y", NULL};
    run(f, TYPEPERF_BIN, "1700000000000,1000", x);
    expect_code(f, 0);
    const char *y[] = {"\\Memory\\Available Bytes", "-sc", "3", "-f", "BIN", "-o", a2, "-y", NULL};
    run(f, TYPEPERF_BIN, "1700000010000,1000", y);
    expect_code(f, 0);
    const char *c1[] = {a1, "-o", out, "-y", NULL};
    run(f, RELOG_BIN, NULL, c1);
    expect_code(f, 0);
    const char *c2[] = {a2, "-a", "-o", out, NULL};
    run(f, RELOG_BIN, NULL, c2);
    expect_code(f, 0);
    const char *q[] = {out, "-q", NULL};
    run(f, RELOG_BIN, NULL, q);
    expect_code(f, 0);
    assert_non_null(strstr(f->out, "\r\nSamples: 5\r\n"));
    /* another column set does not fit */
    const char *z[] = {"\\System\\System Up Time", "-sc", "1", "-f", "BIN", "-o", a2, "-y", NULL};
    run(f, TYPEPERF_BIN, NULL, z);
    expect_code(f, 0);
    const char *c3[] = {a2, "-a", "-o", out, NULL};
    run(f, RELOG_BIN, NULL, c3);
    expect_code(f, 3);
}

/* Windows' CSV converts to BIN and back, and to TSV and back, with the
 * same values: byte for byte in the zone it was written in. */
static void windows_csv_round_trips(void **state)
{
    fx *f = *state;
    char csv[128], bin[128], out[128], tsv[128], buf[8192];
    snprintf(csv, sizeof csv, "%s/win.csv", f->dir);
    snprintf(bin, sizeof bin, "%s/win.plog", f->dir);
    snprintf(out, sizeof out, "%s/back.csv", f->dir);
    snprintf(tsv, sizeof tsv, "%s/win.tsv", f->dir);
    canned_write_file(csv, pl_test_windows_csv, strlen(pl_test_windows_csv));
    f->tz = "Europe/Berlin";
    const char *q[] = {csv, "-q", NULL};
    run(f, RELOG_BIN, NULL, q);
    expect_code(f, 0);
    assert_non_null(strstr(f->out, "(CSV)"));
    assert_non_null(strstr(f->out, "Samples: 3\r\n"));
    assert_non_null(strstr(f->out, "Begin: 7/1/2026 10:00:00\r\n"));
    assert_non_null(strstr(f->out, "\\\\WIN2\\Thread(explorer/0)\\% Processor Time\r\n"));
    const char *a[] = {csv, "-f", "BIN", "-o", bin, "-y", NULL};
    run(f, RELOG_BIN, NULL, a);
    expect_code(f, 0);
    const char *b[] = {bin, "-f", "CSV", "-o", out, "-y", NULL};
    run(f, RELOG_BIN, NULL, b);
    expect_code(f, 0);
    same_files(csv, out);
    const char *c[] = {csv, "-f", "TSV", "-o", tsv, "-y", NULL};
    run(f, RELOG_BIN, NULL, c);
    expect_code(f, 0);
    const char *d[] = {tsv, "-f", "CSV", "-o", out, "-y", NULL};
    run(f, RELOG_BIN, NULL, d);
    expect_code(f, 0);
    same_files(csv, out);
    /* read in another zone: the same instants, shown in that zone */
    f->tz = "UTC";
    const char *e[] = {bin, "-f", "CSV", "-o", out, "-y", "-c", "\\\\WIN1\\Memory\\Available Bytes", NULL};
    run(f, RELOG_BIN, NULL, e);
    expect_code(f, 0);
    canned_read_file(out, buf, sizeof buf);
    assert_string_equal(buf, "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\WIN1\\Memory\\Available Bytes\"\r\n"
                             "\"07/01/2026 08:00:00.125\",\"1073741824\"\r\n"
                             "\"07/01/2026 08:00:01.125\",\"1073741823\"\r\n"
                             "\"07/01/2026 08:00:02.125\",\"1073741822\"\r\n");
}

/* typeperf replays a CSV log through PDH: the same values again. */
static void typeperf_replays_a_csv_log(void **state)
{
    fx *f = *state;
    char csv[128], out[128], buf[8192];
    snprintf(csv, sizeof csv, "%s/win.csv", f->dir);
    snprintf(out, sizeof out, "%s/replay.csv", f->dir);
    canned_write_file(csv, pl_test_windows_csv, strlen(pl_test_windows_csv));
    f->tz = "Europe/Berlin";
    const char *a[] = {"\\\\WIN1\\Process(*)\\Working Set", "\\\\WIN2\\Thread(explorer/0)\\% Processor Time",
                       "-i", csv, "-o", out, "-y", NULL};
    run(f, TYPEPERF_BIN, NULL, a);
    expect_code(f, 0);
    canned_read_file(out, buf, sizeof buf);
    assert_string_equal(buf, "\"(PDH-CSV 4.0) (W. Europe Daylight Time)(-120)\",\"\\\\WIN1\\Process(svchost)\\Working Set\","
                             "\"\\\\WIN1\\Process(svchost#1)\\Working Set\",\"\\\\WIN2\\Thread(explorer/0)\\% Processor Time\"\r\n"
                             "\"07/01/2026 10:00:00.125\",\" \",\"4096\",\"12.5\"\r\n"
                             "\"07/01/2026 10:00:01.125\",\" \",\"4100\",\" \"\r\n"
                             "\"07/01/2026 10:00:02.125\",\" \",\" \",\"0\"\r\n");
}

/* typeperf -f SQL logs the canned samples straight into SQLite and into a
 * real PostgreSQL server; relog reads the log sets back to CSV: the same
 * bytes typeperf writes with -o for the same samples. */
static void typeperf_logs_into_sql(void **state)
{
    fx *f = *state;
    char csv[128], back[128], db[128], set[512];
    snprintf(csv, sizeof csv, "%s/tp.csv", f->dir);
    snprintf(back, sizeof back, "%s/back.csv", f->dir);
    snprintf(db, sizeof db, "%s/perf.db", f->dir);
    pl_test_pg pg;
    char why[1024];
    if (pl_test_pg_start(&pg, why, sizeof why) != 0) {
        print_error("cannot start PostgreSQL: %s\n", why);
        fail();
    }
    const char *targets[2] = {db, pg.conninfo};
    for (int t = 0; t < 2; t++) {
        const char *a[32];
        int n = 0;
        for (size_t i = 0; i < sizeof k_paths / sizeof *k_paths; i++) a[n++] = k_paths[i];
        a[n++] = "-sc";
        a[n++] = "4";
        a[n++] = "-o";
        a[n++] = csv;
        a[n++] = "-y";
        a[n] = NULL;
        run(f, TYPEPERF_BIN, "1700000000000,1000", a);
        expect_code(f, 0);
        snprintf(set, sizeof set, "SQL:%s!canned run", targets[t]);
        a[n - 2] = set;
        a[n - 1] = "-f";
        a[n++] = "SQL";
        a[n] = NULL;
        run(f, TYPEPERF_BIN, "1700000000000,1000", a);
        expect_code(f, 0);
        assert_string_equal(f->out, "Exiting, please wait...\r\nThe command completed successfully.\r\n");
        const char *r[] = {set, "-f", "CSV", "-o", back, "-y", NULL};
        run(f, RELOG_BIN, NULL, r);
        expect_code(f, 0);
        same_files(csv, back);
        /* a second run appends to the set; -q counts both */
        const char *ap[] = {"\\Memory\\Available Bytes", "-sc", "2", "-f", "SQL", "-o", set, NULL};
        run(f, TYPEPERF_BIN, "1700000100000,1000", ap);
        expect_code(f, 0);
        const char *q[] = {set, "-q", NULL};
        run(f, RELOG_BIN, NULL, q);
        expect_code(f, 0);
        assert_non_null(strstr(f->out, "(SQL)"));
        assert_non_null(strstr(f->out, "\r\nSamples: 6\r\n"));
    }
    /* -f SQL needs a log set: exit 1 without -o, 4 without a set name */
    const char *u[] = {"\\Memory\\Available Bytes", "-f", "SQL", NULL};
    run(f, TYPEPERF_BIN, NULL, u);
    expect_code(f, 1);
    snprintf(set, sizeof set, "SQL:%s", db);
    const char *v[] = {"\\Memory\\Available Bytes", "-sc", "1", "-o", set, NULL};
    run(f, TYPEPERF_BIN, NULL, v);
    expect_code(f, 4);
    assert_non_null(strstr(f->err, "names no log set"));
    pl_test_pg_stop(&pg);
}

/* Windows' CSV converts to SQL (SQLite, PostgreSQL) and back with the same
 * values, byte for byte in the zone it was written in; to BIN from SQL too. */
static void windows_csv_through_sql(void **state)
{
    fx *f = *state;
    char csv[128], out[128], bin[128], db[128], set[512];
    snprintf(csv, sizeof csv, "%s/win.csv", f->dir);
    snprintf(out, sizeof out, "%s/back.csv", f->dir);
    snprintf(bin, sizeof bin, "%s/win.plog", f->dir);
    snprintf(db, sizeof db, "%s/win.db", f->dir);
    canned_write_file(csv, pl_test_windows_csv, strlen(pl_test_windows_csv));
    f->tz = "Europe/Berlin";
    pl_test_pg pg;
    char why[1024];
    if (pl_test_pg_start(&pg, why, sizeof why) != 0) {
        print_error("cannot start PostgreSQL: %s\n", why);
        fail();
    }
    const char *targets[2] = {db, pg.conninfo};
    for (int t = 0; t < 2; t++) {
        snprintf(set, sizeof set, "%s!windows", targets[t]);
        const char *a[] = {csv, "-f", "SQL", "-o", set, NULL};
        run(f, RELOG_BIN, NULL, a);
        expect_code(f, 0);
        snprintf(set, sizeof set, "SQL:%s!windows", targets[t]);
        const char *b[] = {set, "-f", "CSV", "-o", out, "-y", NULL};
        run(f, RELOG_BIN, NULL, b);
        expect_code(f, 0);
        same_files(csv, out);
        const char *c[] = {set, "-o", bin, "-y", NULL};
        run(f, RELOG_BIN, NULL, c);
        expect_code(f, 0);
        const char *d[] = {bin, "-f", "CSV", "-o", out, "-y", NULL};
        run(f, RELOG_BIN, NULL, d);
        expect_code(f, 0);
        same_files(csv, out);
    }
    pl_test_pg_stop(&pg);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(csv_identical_to_typeperf, setup, teardown),
        cmocka_unit_test_setup_teardown(query_prints_samples, setup, teardown),
        cmocka_unit_test_setup_teardown(typeperf_replays_a_log, setup, teardown),
        cmocka_unit_test_setup_teardown(csv_and_bin_round_trips, setup, teardown),
        cmocka_unit_test_setup_teardown(every_nth_and_range, setup, teardown),
        cmocka_unit_test_setup_teardown(merge_in_time_order, setup, teardown),
        cmocka_unit_test_setup_teardown(damaged_inputs, setup, teardown),
        cmocka_unit_test_setup_teardown(errors_and_exit_codes, setup, teardown),
        cmocka_unit_test_setup_teardown(append_binary, setup, teardown),
        cmocka_unit_test_setup_teardown(windows_csv_round_trips, setup, teardown),
        cmocka_unit_test_setup_teardown(typeperf_replays_a_csv_log, setup, teardown),
        cmocka_unit_test_setup_teardown(typeperf_logs_into_sql, setup, teardown),
        cmocka_unit_test_setup_teardown(windows_csv_through_sql, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
