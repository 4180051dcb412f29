/* typeperf golden tests: exact stdout bytes (CRLF included), files and exit
 * codes, over the canned scenario of tests/pdh/pdh_canned.c with a fixed
 * clock and TZ=UTC. */
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pdh_canned.h"
#include "perflib/block.h"
#include "perflib/winperf.h"
#include "pl_test.h"
#include "tzname.h"

typedef struct fx {
    char dir[64];
    char store[128];
    char out[4096 * 4];
    char err[4096];
    int code;
    const char *tz;           /* TZ for the child; NULL: UTC */
} fx;


static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    if (!f) return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/pl_typeperf_XXXXXX");
    if (canned_dir(f->dir, 0, f->store, sizeof f->store) != 0) return -1;
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

/* Run typeperf with args (NULL-terminated); clock: fixed-clock hook or NULL. */
static void run(fx *f, const char *clock, const char *const *args)
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
        const char *argv[32];
        int n = 0;
        argv[n++] = TYPEPERF_BIN;
        for (int i = 0; args[i] && n < 31; i++) argv[n++] = args[i];
        argv[n] = NULL;
        execv(TYPEPERF_BIN, (char *const *)argv);
        _exit(98);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    f->code = WEXITSTATUS(status);
    canned_read_file(outp, f->out, sizeof f->out);
    canned_read_file(errp, f->err, sizeof f->err);
}

static void expect_out(const fx *f, const char *want)
{
    if (strcmp(f->out, want) != 0) {
        print_error("--- got ---\n%s\n--- want ---\n%s\n--- stderr ---\n%s\n", f->out, want, f->err);
        fail();
    }
}

/* Two samples, one second apart, of one Process instance "busy" that ran on
 * 2.5 processors: its % Processor Time (PERF_100NSEC_TIMER) is 250. */
static int busy_block(int k, const char *dir)
{
    pl_builder *b = pl_builder_new();
    if (!b) return -1;
    int o, c, in, rc;
    pl_object_desc od = {.name_index = 230, .help_index = 231, .default_counter = 0, .has_instances = 1};
    pl_counter_desc cd = {.name_index = 6, .help_index = 7, .type = PERF_100NSEC_TIMER};
    rc = pl_builder_add_object(b, &od, &o);
    if (!rc) rc = pl_builder_add_counter(b, o, &cd, &c);
    if (!rc) rc = pl_builder_add_instance(b, o, "busy", 0, 0, -1, &in);
    if (!rc) rc = pl_builder_set_u64(b, o, in, c, (uint64_t)k * 25000000u);
    size_t olen = pl_builder_size(b), hlen = 0, used = 0;
    uint32_t n = 0;
    pl_block_header h;
    memset(&h, 0, sizeof h);
    h.system_time.wYear = 2024;
    h.system_time.wMonth = 1;
    h.system_time.wDay = 15;
    h.system_time.wHour = 10;
    h.system_time.wSecond = (WORD)k;
    h.perf_time = CANNED_PERFTIME(k);
    h.perf_freq = CANNED_FREQ;
    h.perf_time_100ns = CANNED_FT(k); /* 01/15/2024 10:00:0k UTC, one second apart */
    h.default_object = 238;
    h.system_name = "TESTBOX";
    if (!rc && pl_block_write_header(&h, 1, olen, NULL, 0, &hlen) != PL_E_MORE_DATA) rc = -1;
    uint8_t *buf = rc ? NULL : calloc(1, hlen + olen);
    if (!buf) rc = -1;
    if (!rc) rc = pl_block_write_header(&h, 1, olen, buf, hlen + olen, &used);
    if (!rc) rc = pl_builder_emit(b, buf + hlen, olen, &used, &n);
    char path[160];
    snprintf(path, sizeof path, "%s/sample%d.blk", dir, k);
    if (!rc) rc = canned_write_file(path, buf, hlen + olen);
    free(buf);
    pl_builder_free(b);
    return rc;
}

/* Percentages are not capped at 100: a process busy on 2.5 processors shows
 * 250, as System Monitor and typeperf show it. */
static void percentages_not_capped(void **state)
{
    fx *f = *state;
    for (int k = 0; k < CANNED_SAMPLES; k++) {
        char p[160];
        snprintf(p, sizeof p, "%s/sample%d.blk", f->dir, k);
        unlink(p);
    }
    assert_int_equal(busy_block(0, f->dir), 0);
    assert_int_equal(busy_block(1, f->dir), 0);
    const char *a[] = {"\\Process(busy)\\% Processor Time", "-sc", "2", NULL};
    run(f, NULL, a);
    assert_int_equal(f->code, 0);
    expect_out(f, "\r\n"
                  "\"(PDH-CSV 4.0)\",\"\\\\TESTBOX\\Process(busy)\\% Processor Time\"\r\n"
                  "\"01/15/2024 10:00:00.000\",\" \"\r\n"
                  "\"01/15/2024 10:00:01.000\",\"250.000000\"\r\n"
                  "Exiting, please wait...\r\n"
                  "The command completed successfully.\r\n");
}

static void two_counters_three_samples(void **state)
{
    fx *f = *state;
    const char *a[] = {"\\Processor(_Total)\\% Processor Time", "\\Memory\\Page Faults/sec", "\\Memory\\Available Bytes",
                       "-sc", "3", NULL};
    run(f, NULL, a);
    assert_int_equal(f->code, 0);
    expect_out(f, "\r\n"
                  "\"(PDH-CSV 4.0)\",\"\\\\TESTBOX\\Processor(_Total)\\% Processor Time\",\"\\\\TESTBOX\\Memory\\Page Faults/sec\","
                  "\"\\\\TESTBOX\\Memory\\Available Bytes\"\r\n"
                  "\"01/15/2024 10:00:00.000\",\" \",\" \",\"2000000000.000000\"\r\n"
                  "\"01/15/2024 10:00:01.000\",\"37.500000\",\"100.000000\",\"1998951424.000000\"\r\n"
                  "\"01/15/2024 10:00:02.000\",\"37.500000\",\"300.000000\",\"1997902848.000000\"\r\n"
                  "Exiting, please wait...\r\n"
                  "The command completed successfully.\r\n");
    assert_string_equal(f->err, "");
}

/* Values a provider marked unreadable ("Unavailable Counters") print " ",
 * like any value that cannot be computed: wlan0's Current Bandwidth in every
 * sample, its Bytes Total/sec at samples 1 (marked) and 2 (previous marked). */
static void unavailable_values_blank(void **state)
{
    fx *f = *state;
    for (int k = 0; k < CANNED_SAMPLES; k++) {
        void *b = NULL;
        size_t len = 0;
        char p[160];
        assert_int_equal(canned_block_opt(k, 1, &b, &len), 0);
        snprintf(p, sizeof p, "%s/sample%d.blk", f->dir, k);
        assert_int_equal(canned_write_file(p, b, len), 0);
        free(b);
    }
    const char *a[] = {"\\Network Interface(eth0)\\Current Bandwidth", "\\Network Interface(wlan0)\\Current Bandwidth",
                       "\\Network Interface(*)\\Bytes Total/sec", NULL};
    run(f, NULL, a);
    assert_int_equal(f->code, 0);
    expect_out(f, "\r\n"
                  "\"(PDH-CSV 4.0)\",\"\\\\TESTBOX\\Network Interface(eth0)\\Current Bandwidth\","
                  "\"\\\\TESTBOX\\Network Interface(wlan0)\\Current Bandwidth\","
                  "\"\\\\TESTBOX\\Network Interface(eth0)\\Bytes Total/sec\","
                  "\"\\\\TESTBOX\\Network Interface(wlan0)\\Bytes Total/sec\"\r\n"
                  "\"01/15/2024 10:00:00.000\",\"1000000000.000000\",\" \",\" \",\" \"\r\n"
                  "\"01/15/2024 10:00:01.000\",\"1000000000.000000\",\" \",\"1000000.000000\",\" \"\r\n"
                  "\"01/15/2024 10:00:02.000\",\"1000000000.000000\",\" \",\"1000000.000000\",\" \"\r\n"
                  "\"01/15/2024 10:00:03.000\",\"1000000000.000000\",\" \",\"1000000.000000\",\"500000.000000\"\r\n"
                  "Exiting, please wait...\r\n"
                  "The command completed successfully.\r\n");
    assert_string_equal(f->err, "");
}

static void fixed_clock_and_tsv(void **state)
{
    fx *f = *state;
    /* 2023-06-30 23:59:59.500 UTC, 250 ms apart */
    const char *a[] = {"\\Processor(0)\\% User Time", "-f", "tsv", "-sc", "2", "-si", "00:05", NULL};
    run(f, "1688169599500,250", a);
    assert_int_equal(f->code, 0);
    expect_out(f, "\r\n"
                  "\"(PDH-TSV 4.0)\"\t\"\\\\TESTBOX\\Processor(0)\\% User Time\"\r\n"
                  "\"06/30/2023 23:59:59.500\"\t\" \"\r\n"
                  "\"06/30/2023 23:59:59.750\"\t\"10.000000\"\r\n"
                  "Exiting, please wait...\r\n"
                  "The command completed successfully.\r\n");
}

static void wildcard_columns(void **state)
{
    fx *f = *state;
    /* one column per instance at the first sample; bash leaves, python is not added */
    const char *a[] = {"\\Process(*)\\ID Process", "-sc", "2", NULL};
    run(f, NULL, a);
    assert_int_equal(f->code, 0);
    expect_out(f, "\r\n"
                  "\"(PDH-CSV 4.0)\",\"\\\\TESTBOX\\Process(init)\\ID Process\",\"\\\\TESTBOX\\Process(svchost)\\ID Process\","
                  "\"\\\\TESTBOX\\Process(svchost#1)\\ID Process\",\"\\\\TESTBOX\\Process(bash)\\ID Process\"\r\n"
                  "\"01/15/2024 10:00:00.000\",\"1.000000\",\"100.000000\",\"200.000000\",\"300.000000\"\r\n"
                  "\"01/15/2024 10:00:01.000\",\"1.000000\",\"100.000000\",\"200.000000\",\" \"\r\n"
                  "Exiting, please wait...\r\n"
                  "The command completed successfully.\r\n");
}

/* Review: a sample block whose Process instances have a quote and a comma
 * in their names (a Linux process may call itself anything). */
static int quoted_block(int k, void **out, size_t *outlen)
{
    pl_builder *b = pl_builder_new();
    if (!b) return -1;
    int o, c, in, rc = 0;
    pl_object_desc od = {0};
    od.name_index = 230;
    od.help_index = 231;
    od.has_instances = 1;
    pl_counter_desc cd = {0};
    cd.name_index = 784;
    cd.help_index = 785;
    cd.type = PERF_COUNTER_RAWCOUNT;
    const char *names[] = {"a\"b", "c,d\"\""};
    rc |= pl_builder_add_object(b, &od, &o);
    rc |= pl_builder_add_counter(b, o, &cd, &c);
    for (int i = 0; i < 2 && rc == 0; i++) {
        rc |= pl_builder_add_instance(b, o, names[i], 0, 0, PERF_NO_UNIQUE_ID, &in);
        rc |= pl_builder_set_u32(b, o, in, c, (uint32_t)(10 * (i + 1)));
    }
    size_t olen = pl_builder_size(b), hlen = 0, used = 0;
    uint32_t nobj = 0;
    pl_block_header h;
    memset(&h, 0, sizeof h);
    h.system_time.wYear = 2024;
    h.system_time.wMonth = 1;
    h.system_time.wDay = 15;
    h.perf_time = CANNED_PERFTIME(k);
    h.perf_freq = CANNED_FREQ;
    h.perf_time_100ns = CANNED_FT(k);
    h.system_name = CANNED_SYSTEM;
    void *buf = NULL;
    if (rc == 0 && pl_block_write_header(&h, pl_builder_num_objects(b), olen, NULL, 0, &hlen) == PL_E_MORE_DATA &&
        (buf = calloc(1, hlen + olen)) != NULL &&
        pl_block_write_header(&h, pl_builder_num_objects(b), olen, buf, hlen + olen, &used) == PL_OK &&
        pl_builder_emit(b, (char *)buf + hlen, olen, &used, &nobj) == PL_OK) {
        pl_builder_free(b);
        *out = buf;
        *outlen = hlen + olen;
        return 0;
    }
    free(buf);
    pl_builder_free(b);
    return -1;
}

/* Review: a '"' inside a field (an instance name in a column header) used to
 * be written as is, ending the field early: a process named `x","y` could
 * add columns to every CSV row a tool reads. Quotes inside a field are now
 * doubled (RFC 4180, what Excel and relog read back); commas stay inside the
 * quotes. Console and -o log files alike. */
static void quotes_in_names_doubled(void **state)
{
    fx *f = *state;
    for (int k = 0; k < CANNED_SAMPLES; k++) {
        void *b = NULL;
        size_t len = 0;
        char p[160];
        assert_int_equal(quoted_block(k, &b, &len), 0);
        snprintf(p, sizeof p, "%s/sample%d.blk", f->dir, k);
        assert_int_equal(canned_write_file(p, b, len), 0);
        free(b);
    }
    const char *a[] = {"\\Process(*)\\ID Process", "-sc", "1", NULL};
    run(f, NULL, a);
    assert_int_equal(f->code, 0);
    expect_out(f, "\r\n"
                  "\"(PDH-CSV 4.0)\",\"\\\\TESTBOX\\Process(a\"\"b)\\ID Process\","
                  "\"\\\\TESTBOX\\Process(c,d\"\"\"\")\\ID Process\"\r\n"
                  "\"01/15/2024 10:00:00.000\",\"10.000000\",\"20.000000\"\r\n"
                  "Exiting, please wait...\r\n"
                  "The command completed successfully.\r\n");
    char outp[160];
    snprintf(outp, sizeof outp, "%s/q.tsv", f->dir);
    const char *b2[] = {"\\Process(a\"b)\\ID Process", "-sc", "1", "-f", "TSV", "-o", outp, "-y", NULL};
    run(f, NULL, b2);
    assert_int_equal(f->code, 0);
    char got[1024];
    canned_read_file(outp, got, sizeof got);
    assert_string_equal(got, "\"(PDH-TSV 4.0) (UTC)(0)\"\t\"\\\\TESTBOX\\Process(a\"\"b)\\ID Process\"\r\n"
                             "\"01/15/2024 10:00:00.000\"\t\"10\"\r\n");
}

static void runs_until_data_ends(void **state)
{
    fx *f = *state;
    /* no -sc: canned data stops after the last sample file, like Ctrl+C */
    const char *a[] = {"\\System\\System Up Time", NULL};
    run(f, NULL, a);
    assert_int_equal(f->code, 0);
    expect_out(f, "\r\n"
                  "\"(PDH-CSV 4.0)\",\"\\\\TESTBOX\\System\\System Up Time\"\r\n"
                  "\"01/15/2024 10:00:00.000\",\"400.000000\"\r\n"
                  "\"01/15/2024 10:00:01.000\",\"401.000000\"\r\n"
                  "\"01/15/2024 10:00:02.000\",\"402.000000\"\r\n"
                  "\"01/15/2024 10:00:03.000\",\"403.000000\"\r\n"
                  "Exiting, please wait...\r\n"
                  "The command completed successfully.\r\n");
}

static void query_list(void **state)
{
    fx *f = *state;
    const char *a[] = {"-q", "Processor", NULL};
    run(f, NULL, a);
    assert_int_equal(f->code, 0);
    expect_out(f, "\\Processor(*)\\% Processor Time\r\n"
                  "\\Processor(*)\\% User Time\r\n"
                  "\\Processor(*)\\Interrupts/sec\r\n"
                  "The command completed successfully.\r\n");
    const char *b[] = {"-q", NULL};
    run(f, NULL, b);
    assert_int_equal(f->code, 0);
    expect_out(f, "\\Processor(*)\\% Processor Time\r\n"
                  "\\Processor(*)\\% User Time\r\n"
                  "\\Processor(*)\\Interrupts/sec\r\n"
                  "\\Memory\\Available Bytes\r\n"
                  "\\Memory\\Page Faults/sec\r\n"
                  "\\Process(*)\\ID Process\r\n"
                  "\\Process(*)\\% Processor Time\r\n"
                  "\\Thread(*)\\ID Thread\r\n"
                  "\\System\\System Up Time\r\n"
                  "\\LogicalDisk(*)\\% Free Space\r\n"
                  "\\LogicalDisk(*)\\Avg. Disk sec/Transfer\r\n"
                  "The command completed successfully.\r\n");
}

static void query_expanded(void **state)
{
    fx *f = *state;
    const char *a[] = {"-qx", "Thread", NULL};
    run(f, NULL, a);
    assert_int_equal(f->code, 0);
    expect_out(f, "\\Thread(svchost/0)\\ID Thread\r\n"
                  "\\Thread(svchost/1)\\ID Thread\r\n"
                  "\\Thread(svchost/0#1)\\ID Thread\r\n"
                  "The command completed successfully.\r\n");
    const char *b[] = {"-qx", "Memory", NULL};
    run(f, NULL, b);
    expect_out(f, "\\Memory\\Available Bytes\r\n"
                  "\\Memory\\Page Faults/sec\r\n"
                  "The command completed successfully.\r\n");
    const char *c[] = {"-qx", "Nothing", NULL};
    run(f, NULL, c);
    assert_int_equal(f->code, 2);
    expect_out(f, "");
    assert_non_null(strstr(f->err, "Nothing"));
}

static void output_file(void **state)
{
    fx *f = *state;
    char path[160], buf[4096];
    snprintf(path, sizeof path, "%s/log.csv", f->dir);
    const char *a[] = {"\\LogicalDisk(C:)\\Avg. Disk sec/Transfer", "\\Process(svchost)\\% Processor Time",
                       "\\Processor(_Total)\\% Processor Time", "-sc", "3", "-o", path, NULL};
    run(f, NULL, a);
    assert_int_equal(f->code, 0);
    expect_out(f, "Exiting, please wait...\r\nThe command completed successfully.\r\n");
    canned_read_file(path, buf, sizeof buf);
    const char *want =
        "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\TESTBOX\\LogicalDisk(C:)\\Avg. Disk sec/Transfer\","
        "\"\\\\TESTBOX\\Process(svchost)\\% Processor Time\",\"\\\\TESTBOX\\Processor(_Total)\\% Processor Time\"\r\n"
        "\"01/15/2024 10:00:00.000\",\" \",\" \",\" \"\r\n"
        "\"01/15/2024 10:00:01.000\",\"0.050000000000000003\",\"1\",\"37.5\"\r\n"
        "\"01/15/2024 10:00:02.000\",\"0.050000000000000003\",\"1\",\"37.5\"\r\n";
    if (strcmp(buf, want)) { print_error("--- got ---\n%s\n--- want ---\n%s\n", buf, want); fail(); }
    /* exists: without -y and with "no" on stdin it is kept */
    run(f, NULL, a);
    assert_int_equal(f->code, 4);
    canned_read_file(path, buf, sizeof buf);
    assert_string_equal(buf, want);
    const char *b[] = {"\\Memory\\Available Bytes", "-sc", "1", "-o", path, "-y", NULL};
    run(f, NULL, b);
    assert_int_equal(f->code, 0);
    canned_read_file(path, buf, sizeof buf);
    assert_string_equal(buf, "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\TESTBOX\\Memory\\Available Bytes\"\r\n"
                             "\"01/15/2024 10:00:00.000\",\"2000000000\"\r\n");
}

static void counter_file(void **state)
{
    fx *f = *state;
    char path[160];
    snprintf(path, sizeof path, "%s/counters.txt", f->dir);
    const char *txt = "\xEF\xBB\xBF\\Memory\\Available Bytes\r\n\r\n  \\System\\System Up Time  \r\n";
    assert_int_equal(canned_write_file(path, txt, strlen(txt)), 0);
    const char *a[] = {"-cf", path, "-sc", "1", NULL};
    run(f, NULL, a);
    assert_int_equal(f->code, 0);
    expect_out(f, "\r\n"
                  "\"(PDH-CSV 4.0)\",\"\\\\TESTBOX\\Memory\\Available Bytes\",\"\\\\TESTBOX\\System\\System Up Time\"\r\n"
                  "\"01/15/2024 10:00:00.000\",\"2000000000.000000\",\"400.000000\"\r\n"
                  "Exiting, please wait...\r\n"
                  "The command completed successfully.\r\n");
}

static void path_errors(void **state)
{
    fx *f = *state;
    /* a bad path among valid ones: one error line on stderr, the valid
     * counters are sampled, exit 0 */
    const struct { const char *path; const char *code; } cases[] = {
        {"Memory\\Available Bytes", "0xC0000BC0"},
        {"\\Memory", "0xC0000BC0"},
        {"\\Process(pro*#1)\\ID Process", "0xC0000BC0"},
        {"\\Memory\\No Such Counter", "0xC0000BB9"},
        {"\\No Such Object\\Available Bytes", "0xC0000BB8"},
        {"\\Process(nosuch)\\ID Process", "0x800007D1"},
        {"\\\\FARAWAY\\Memory\\Available Bytes", "0x800007D0"},
        {"\\Memory(*)\\*", "0x800007D1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *a[] = {"\\Memory\\Available Bytes", cases[i].path, "-sc", "1", NULL};
        run(f, NULL, a);
        if (f->code != 0) { print_error("%s: exit %d stderr %s\n", cases[i].path, f->code, f->err); fail(); }
        expect_out(f, "\r\n"
                      "\"(PDH-CSV 4.0)\",\"\\\\TESTBOX\\Memory\\Available Bytes\"\r\n"
                      "\"01/15/2024 10:00:00.000\",\"2000000000.000000\"\r\n"
                      "Exiting, please wait...\r\n"
                      "The command completed successfully.\r\n");
        char want[256];
        snprintf(want, sizeof want, "Error: \"%s\": ", cases[i].path);
        const char *nl = strchr(f->err, '\n');
        if (strncmp(f->err, want, strlen(want)) != 0 || !strstr(f->err, cases[i].code) || !nl || nl[1] != '\0') {
            print_error("%s: stderr %s\n", cases[i].path, f->err);
            fail();
        }
    }
}

static void mixed_paths_keep_order(void **state)
{
    fx *f = *state;
    /* bad paths before, between and after good ones: one error line each, in
     * order; the columns keep the order of the valid paths */
    const char *a[] = {"\\Nope\\X", "\\System\\System Up Time", "\\Memory\\Nope", "\\Processor(_Total)\\% User Time",
                       "Memory", "-sc", "2", NULL};
    run(f, NULL, a);
    assert_int_equal(f->code, 0);
    expect_out(f, "\r\n"
                  "\"(PDH-CSV 4.0)\",\"\\\\TESTBOX\\System\\System Up Time\",\"\\\\TESTBOX\\Processor(_Total)\\% User Time\"\r\n"
                  "\"01/15/2024 10:00:00.000\",\"400.000000\",\" \"\r\n"
                  "\"01/15/2024 10:00:01.000\",\"401.000000\",\"15.000000\"\r\n"
                  "Exiting, please wait...\r\n"
                  "The command completed successfully.\r\n");
    const char *l1 = f->err, *l2 = strchr(l1, '\n'), *l3 = l2 ? strchr(l2 + 1, '\n') : NULL;
    assert_non_null(l3);
    assert_int_equal(strncmp(l1, "Error: \"\\Nope\\X\": The object was not found (0xC0000BB8).", 56), 0);
    assert_int_equal(strncmp(l2 + 1, "Error: \"\\Memory\\Nope\": The counter was not found (0xC0000BB9).", 62), 0);
    assert_int_equal(strncmp(l3 + 1, "Error: \"Memory\": The counter path is malformed (0xC0000BC0).", 60), 0);
    assert_string_equal(strchr(l3 + 1, '\n'), "\n");
    /* in a -cf file too, and with -o: the file has only the valid columns */
    char cf[160], out[160], buf[1024];
    snprintf(cf, sizeof cf, "%s/c.txt", f->dir);
    snprintf(out, sizeof out, "%s/o.csv", f->dir);
    const char *txt = "\\Memory\\Zzz\n\\Memory\\Available Bytes\n";
    assert_int_equal(canned_write_file(cf, txt, strlen(txt)), 0);
    const char *b[] = {"-cf", cf, "-sc", "1", "-o", out, "-y", NULL};
    run(f, NULL, b);
    assert_int_equal(f->code, 0);
    expect_out(f, "Exiting, please wait...\r\nThe command completed successfully.\r\n");
    assert_non_null(strstr(f->err, "\\Memory\\Zzz"));
    canned_read_file(out, buf, sizeof buf);
    assert_string_equal(buf, "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\TESTBOX\\Memory\\Available Bytes\"\r\n"
                             "\"01/15/2024 10:00:00.000\",\"2000000000\"\r\n");
}

static void no_valid_path(void **state)
{
    fx *f = *state;
    const char *a[] = {"\\Memory\\Nope", "\\Process(nosuch)\\ID Process", "-sc", "1", NULL};
    run(f, NULL, a);
    assert_int_equal(f->code, 2);
    expect_out(f, "");
    const char *want1 = "Error: \"\\Memory\\Nope\": The counter was not found (0xC0000BB9).";
    assert_int_equal(strncmp(f->err, want1, strlen(want1)), 0);
    const char *l2 = strchr(f->err, '\n') + 1;
    const char *want2 = "Error: \"\\Process(nosuch)\\ID Process\": The instance was not found (0x800007D1).";
    assert_int_equal(strncmp(l2, want2, strlen(want2)), 0);
    assert_string_equal(strchr(l2, '\n') + 1, "Error: No valid counters.\n");
    /* a -o file is not created when nothing is valid */
    char out[160];
    snprintf(out, sizeof out, "%s/none.csv", f->dir);
    const char *b[] = {"\\Memory\\Nope", "-sc", "1", "-o", out, "-y", NULL};
    run(f, NULL, b);
    assert_int_equal(f->code, 2);
    assert_int_equal(access(out, F_OK), -1);
}

static void counter_wildcard_columns(void **state)
{
    fx *f = *state;
    /* \Object(*)\* : one column per counter x instance at the first sample,
     * counter by counter (as -qx lists them) */
    const char *a[] = {"\\Processor(*)\\*", "-sc", "2", NULL};
    run(f, NULL, a);
    assert_int_equal(f->code, 0);
    expect_out(f, "\r\n"
                  "\"(PDH-CSV 4.0)\","
                  "\"\\\\TESTBOX\\Processor(0)\\% Processor Time\",\"\\\\TESTBOX\\Processor(1)\\% Processor Time\","
                  "\"\\\\TESTBOX\\Processor(_Total)\\% Processor Time\","
                  "\"\\\\TESTBOX\\Processor(0)\\% User Time\",\"\\\\TESTBOX\\Processor(1)\\% User Time\","
                  "\"\\\\TESTBOX\\Processor(_Total)\\% User Time\","
                  "\"\\\\TESTBOX\\Processor(0)\\Interrupts/sec\",\"\\\\TESTBOX\\Processor(1)\\Interrupts/sec\","
                  "\"\\\\TESTBOX\\Processor(_Total)\\Interrupts/sec\"\r\n"
                  "\"01/15/2024 10:00:00.000\",\" \",\" \",\" \",\" \",\" \",\" \",\" \",\" \",\" \"\r\n"
                  "\"01/15/2024 10:00:01.000\",\"25.000000\",\"50.000000\",\"37.500000\",\"10.000000\",\"20.000000\","
                  "\"15.000000\",\"250.000000\",\"125.000000\",\"375.000000\"\r\n"
                  "Exiting, please wait...\r\n"
                  "The command completed successfully.\r\n");
    assert_string_equal(f->err, "");
    /* instances that come later are not added; those that leave show " " */
    const char *b[] = {"\\Process(*)\\*", "\\Memory\\*", "-sc", "3", NULL};
    run(f, NULL, b);
    assert_int_equal(f->code, 0);
    expect_out(f, "\r\n"
                  "\"(PDH-CSV 4.0)\","
                  "\"\\\\TESTBOX\\Process(init)\\ID Process\",\"\\\\TESTBOX\\Process(svchost)\\ID Process\","
                  "\"\\\\TESTBOX\\Process(svchost#1)\\ID Process\",\"\\\\TESTBOX\\Process(bash)\\ID Process\","
                  "\"\\\\TESTBOX\\Process(init)\\% Processor Time\",\"\\\\TESTBOX\\Process(svchost)\\% Processor Time\","
                  "\"\\\\TESTBOX\\Process(svchost#1)\\% Processor Time\",\"\\\\TESTBOX\\Process(bash)\\% Processor Time\","
                  "\"\\\\TESTBOX\\Memory\\Available Bytes\",\"\\\\TESTBOX\\Memory\\Page Faults/sec\"\r\n"
                  "\"01/15/2024 10:00:00.000\",\"1.000000\",\"100.000000\",\"200.000000\",\"300.000000\","
                  "\" \",\" \",\" \",\" \",\"2000000000.000000\",\" \"\r\n"
                  "\"01/15/2024 10:00:01.000\",\"1.000000\",\"100.000000\",\"200.000000\",\" \","
                  "\"0.010000\",\"1.000000\",\"2.000000\",\" \",\"1998951424.000000\",\"100.000000\"\r\n"
                  "\"01/15/2024 10:00:02.000\",\"1.000000\",\"100.000000\",\"200.000000\",\" \","
                  "\"0.010000\",\"1.000000\",\"2.000000\",\" \",\"1997902848.000000\",\"300.000000\"\r\n"
                  "Exiting, please wait...\r\n"
                  "The command completed successfully.\r\n");
}

static void option_errors(void **state)
{
    fx *f = *state;
    const char *const cases[][6] = {
        {"\\Memory\\Available Bytes", "-zz", NULL},
        {"\\Memory\\Available Bytes", "-f", "BIN", NULL},
        {"\\Memory\\Available Bytes", "-f", "XML", NULL},
        {"\\Memory\\Available Bytes", "-si", "1:2:3:4", NULL},
        {"\\Memory\\Available Bytes", "-si", "0", NULL},
        {"\\Memory\\Available Bytes", "-si", "abc", NULL},
        {"\\Memory\\Available Bytes", "-sc", "0", NULL},
        {"\\Memory\\Available Bytes", "-sc", NULL},
        {"-sc", "2", NULL},
        {"-cf", "/nonexistent/file", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run(f, NULL, cases[i]);
        if (f->code != 1 || strncmp(f->err, "Error: ", 7) != 0) {
            print_error("case %zu: exit %d stderr %s\n", i, f->code, f->err);
            fail();
        }
        expect_out(f, "");
    }
    const char *bin[] = {"\\Memory\\Available Bytes", "-f", "BIN", NULL};
    run(f, NULL, bin);
    assert_non_null(strstr(f->err, "BIN"));
    const char *remote[] = {"\\Memory\\Available Bytes", "-s", "FARAWAY", NULL};
    run(f, NULL, remote); /* another computer: asked through Foreign; saved blocks have none */
    assert_int_not_equal(f->code, 0);
    assert_non_null(strstr(f->err, "FARAWAY"));
    assert_non_null(strstr(f->err, "The computer was not found"));
    const char *local[] = {"\\Memory\\Available Bytes", "-s", "testbox", "-sc", "1", NULL};
    run(f, NULL, local);
    assert_int_equal(f->code, 0);
    const char *help[] = {"-?", NULL};
    run(f, NULL, help);
    assert_int_equal(f->code, 0);
    assert_non_null(strstr(f->out, "-sc <samples>"));
    assert_non_null(strstr(f->out, "Exit codes:"));
}

static void ctrl_c_stops_cleanly(void **state)
{
    fx *f = *state;
    char outp[160], errp[160];
    snprintf(outp, sizeof outp, "%s/stdout", f->dir);
    snprintf(errp, sizeof errp, "%s/stderr", f->dir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int o = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0600), e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (o < 0 || e < 0) _exit(99);
        dup2(o, 1);
        dup2(e, 2);
        setenv("TZ", "UTC", 1);
        setenv("PERFLIB_REGISTRY", f->store, 1);
        setenv("PERFLIB_TYPEPERF_BLOCKS", f->dir, 1);
        setenv("PERFLIB_TYPEPERF_REALTIME", "1", 1);
        execl(TYPEPERF_BIN, TYPEPERF_BIN, "\\Memory\\Available Bytes", "-si", "3", (char *)NULL);
        _exit(98);
    }
    /* wait for the first row, then interrupt while it sleeps */
    for (int i = 0; i < 600; i++) {
        canned_read_file(outp, f->out, sizeof f->out);
        if (strstr(f->out, "10:00:00.000")) break;
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    assert_non_null(strstr(f->out, "10:00:00.000"));
    assert_int_equal(kill(pid, SIGINT), 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    canned_read_file(outp, f->out, sizeof f->out);
    /* sample 0 only (the next was 3 s away), then the closing lines */
    expect_out(f, "\r\n"
                  "\"(PDH-CSV 4.0)\",\"\\\\TESTBOX\\Memory\\Available Bytes\"\r\n"
                  "\"01/15/2024 10:00:00.000\",\"2000000000.000000\"\r\n"
                  "Exiting, please wait...\r\n"
                  "The command completed successfully.\r\n");
}

/* The -o header names the zone as Windows does, with the bias of the first
 * sample's instant (daylight saving included). Fixed clock: 2024-07-01
 * 12:00:00 UTC (summer) and 2024-01-15 10:00:00 UTC (winter). */
static void log_header_time_zones(void **state)
{
    fx *f = *state;
    const char *need[] = {"Europe/Berlin", "America/New_York", "Europe/London", "Asia/Tokyo", "Europe/Moscow",
                          "America/Chicago", "America/Denver", "America/Los_Angeles"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
        char p[128];
        snprintf(p, sizeof p, "/usr/share/zoneinfo/%s", need[i]);
        if (access(p, R_OK) != 0) fail_msg("%s is missing (install tzdata: scripts/deps.sh test)", p);
    }
    const char *summer = "1719835200000", *winter = "1705312800000";
    const struct { const char *tz, *clock, *cell, *stamp; } cases[] = {
        {"Europe/Berlin", summer, "(W. Europe Daylight Time)(-120)", "07/01/2024 14:00:00.000"},
        {"Europe/Berlin", winter, "(W. Europe Standard Time)(-60)", "01/15/2024 11:00:00.000"},
        {"America/New_York", summer, "(Eastern Daylight Time)(240)", "07/01/2024 08:00:00.000"},
        {"America/New_York", winter, "(Eastern Standard Time)(300)", "01/15/2024 05:00:00.000"},
        {":Europe/London", summer, "(GMT Daylight Time)(-60)", "07/01/2024 13:00:00.000"},
        {":Europe/London", winter, "(GMT Standard Time)(0)", "01/15/2024 10:00:00.000"},
        {"/usr/share/zoneinfo/Asia/Tokyo", winter, "(Tokyo Standard Time)(-540)", "01/15/2024 19:00:00.000"},
        {"Europe/Moscow", summer, "(Russian Standard Time)(-180)", "07/01/2024 15:00:00.000"},
        {"America/Chicago", summer, "(Central Daylight Time)(300)", "07/01/2024 07:00:00.000"},
        {"America/Denver", winter, "(Mountain Standard Time)(420)", "01/15/2024 03:00:00.000"},
        {"America/Los_Angeles", summer, "(Pacific Daylight Time)(420)", "07/01/2024 05:00:00.000"},
        /* POSIX rules need no tzdata: the abbreviation is mapped, or kept */
        {"CET-1CEST,M3.5.0,M10.5.0/3", summer, "(W. Europe Daylight Time)(-120)", "07/01/2024 14:00:00.000"},
        {"XST-3", winter, "(XST)(-180)", "01/15/2024 13:00:00.000"},
        {"UTC", summer, "(UTC)(0)", "07/01/2024 12:00:00.000"},
    };
    char path[160], buf[1024], want[512];
    snprintf(path, sizeof path, "%s/tz.csv", f->dir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        f->tz = cases[i].tz;
        const char *a[] = {"\\Memory\\Available Bytes", "-sc", "1", "-o", path, "-y", NULL};
        run(f, cases[i].clock, a);
        assert_int_equal(f->code, 0);
        canned_read_file(path, buf, sizeof buf);
        snprintf(want, sizeof want,
                 "\"(PDH-CSV 4.0) %s\",\"\\\\TESTBOX\\Memory\\Available Bytes\"\r\n\"%s\",\"2000000000\"\r\n",
                 cases[i].cell, cases[i].stamp);
        if (strcmp(buf, want) != 0) {
            print_error("TZ=%s: got\n%s\nwant\n%s\n", cases[i].tz, buf, want);
            fail();
        }
    }
    /* TSV, and the console keeps the plain cell */
    f->tz = "Europe/Berlin";
    const char *t[] = {"\\Memory\\Available Bytes", "-sc", "1", "-f", "TSV", "-o", path, "-y", NULL};
    run(f, summer, t);
    canned_read_file(path, buf, sizeof buf);
    const char *tsv = "\"(PDH-TSV 4.0) (W. Europe Daylight Time)(-120)\"\t\"\\\\TESTBOX\\Memory\\Available Bytes\"\r\n";
    assert_int_equal(strncmp(buf, tsv, strlen(tsv)), 0);
    const char *c[] = {"\\Memory\\Available Bytes", "-sc", "1", NULL};
    run(f, summer, c);
    expect_out(f, "\r\n"
                  "\"(PDH-CSV 4.0)\",\"\\\\TESTBOX\\Memory\\Available Bytes\"\r\n"
                  "\"07/01/2024 14:00:00.000\",\"2000000000.000000\"\r\n"
                  "Exiting, please wait...\r\n"
                  "The command completed successfully.\r\n");
}

/* Where the zone's name comes from: TZ, <etc>/timezone, <etc>/localtime. */
static void zone_name_sources(void **state)
{
    fx *f = *state;
    char etc[160], p[200], id[128];
    snprintf(etc, sizeof etc, "%s/etc", f->dir);
    assert_int_equal(mkdir(etc, 0700), 0);
    tp_zone_id(NULL, etc, id, sizeof id);
    assert_string_equal(id, "");
    snprintf(p, sizeof p, "%s/localtime", etc);
    assert_int_equal(symlink("../usr/share/zoneinfo/America/Chicago", p), 0);
    tp_zone_id(NULL, etc, id, sizeof id);
    assert_string_equal(id, "America/Chicago");
    tp_zone_id("", etc, id, sizeof id); /* an empty TZ is not a name */
    assert_string_equal(id, "America/Chicago");
    snprintf(p, sizeof p, "%s/timezone", etc);
    assert_int_equal(canned_write_file(p, "Europe/Berlin\n", 14), 0);
    tp_zone_id(NULL, etc, id, sizeof id);
    assert_string_equal(id, "Europe/Berlin");
    tp_zone_id(":America/Denver", etc, id, sizeof id);
    assert_string_equal(id, "America/Denver");
    tp_zone_id("/usr/share/zoneinfo/Asia/Tokyo", etc, id, sizeof id);
    assert_string_equal(id, "Asia/Tokyo");
    tp_zone_id("/etc/mytz", etc, id, sizeof id);
    assert_string_equal(id, "");
    char small[4];
    tp_zone_id("Europe/Berlin", etc, small, sizeof small);
    assert_string_equal(small, "Eur");
    /* the table */
    assert_string_equal(tp_windows_zone_name("Europe/Berlin", 1), "W. Europe Daylight Time");
    assert_string_equal(tp_windows_zone_name("Europe/Berlin", 0), "W. Europe Standard Time");
    assert_string_equal(tp_windows_zone_name("America/Chicago", 0), "Central Standard Time");
    assert_string_equal(tp_windows_zone_name("Etc/UTC", 1), "UTC");
    assert_string_equal(tp_windows_zone_name("EDT", 0), "Eastern Daylight Time");
    assert_null(tp_windows_zone_name("Nowhere/City", 0));
    assert_null(tp_windows_zone_name("", 0));
    assert_null(tp_windows_zone_name(NULL, 0));
    /* the cell from a struct tm: IANA name first, then the abbreviation */
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    tm.tm_isdst = 1;
    tm.tm_gmtoff = 7200;
    tm.tm_zone = "CEST";
    char cell[128];
    tp_log_header_cell("TSV", &tm, "Europe/Berlin", etc, cell, sizeof cell);
    assert_string_equal(cell, "(PDH-TSV 4.0) (W. Europe Daylight Time)(-120)");
    tp_log_header_cell("CSV", &tm, "Europe/Paris", etc, cell, sizeof cell);
    assert_string_equal(cell, "(PDH-CSV 4.0) (Romance Daylight Time)(-120)");
    tp_log_header_cell("CSV", &tm, "Mars/Olympus", etc, cell, sizeof cell);
    assert_string_equal(cell, "(PDH-CSV 4.0) (W. Europe Daylight Time)(-120)");
    tm.tm_zone = "ABC";
    tm.tm_isdst = 0;
    tm.tm_gmtoff = -(9 * 3600 + 30 * 60);
    tp_log_header_cell("CSV", &tm, "Mars/Olympus", etc, cell, sizeof cell);
    assert_string_equal(cell, "(PDH-CSV 4.0) (ABC)(570)");
}

/* The built-in objects carry the Unavailable Counters marker (a mask of the
 * values that are missing); it is no counter a user reads: -q, -qx and a
 * counter wildcard leave it out (it was listed under 13 objects). */
static void live_marker_not_listed(void **state)
{
    (void)state;
    static const char *const cmds[] = {
        "'" TYPEPERF_BIN "' -q System",
        "'" TYPEPERF_BIN "' -qx Processor",
        "'" TYPEPERF_BIN "' -q",
        "'" TYPEPERF_BIN "' '\\System\\*' -sc 1",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "env -u PERFLIB_REGISTRY %s 2>&1", cmds[i]);
        FILE *p = popen(cmd, "r");
        assert_non_null(p);
        static char out[1 << 20];
        size_t n = fread(out, 1, sizeof out - 1, p);
        out[n] = 0;
        assert_int_equal(pclose(p), 0);
        if (strstr(out, "Unavailable Counters") || !strstr(out, i == 1 ? "% Processor Time" : "System Up Time"))
            fprintf(stderr, "%s:\n%.2000s\n", cmds[i], out);
        assert_null(strstr(out, "Unavailable Counters"));
        assert_non_null(strstr(out, i == 1 ? "% Processor Time" : "System Up Time"));
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(two_counters_three_samples, setup, teardown),
        cmocka_unit_test_setup_teardown(percentages_not_capped, setup, teardown),
        cmocka_unit_test_setup_teardown(unavailable_values_blank, setup, teardown),
        cmocka_unit_test_setup_teardown(fixed_clock_and_tsv, setup, teardown),
        cmocka_unit_test_setup_teardown(wildcard_columns, setup, teardown),
        cmocka_unit_test_setup_teardown(quotes_in_names_doubled, setup, teardown),
        cmocka_unit_test_setup_teardown(runs_until_data_ends, setup, teardown),
        cmocka_unit_test_setup_teardown(query_list, setup, teardown),
        cmocka_unit_test_setup_teardown(query_expanded, setup, teardown),
        cmocka_unit_test_setup_teardown(output_file, setup, teardown),
        cmocka_unit_test_setup_teardown(counter_file, setup, teardown),
        cmocka_unit_test_setup_teardown(path_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(mixed_paths_keep_order, setup, teardown),
        cmocka_unit_test_setup_teardown(no_valid_path, setup, teardown),
        cmocka_unit_test_setup_teardown(counter_wildcard_columns, setup, teardown),
        cmocka_unit_test_setup_teardown(option_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(ctrl_c_stops_cleanly, setup, teardown),
        cmocka_unit_test_setup_teardown(log_header_time_zones, setup, teardown),
        cmocka_unit_test_setup_teardown(zone_name_sources, setup, teardown),
        cmocka_unit_test(live_marker_not_listed),
    };
    return pl_test_run(tests, argc, argv);
}

