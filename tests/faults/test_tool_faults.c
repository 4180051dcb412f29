/* The tools under attack (issue 12, items 9-10): `lodctr /s:PATH` never
 * replaces what is not a regular file nor follows a symbolic link silently;
 * perfquery, typeperf and lodctr exit non-zero, with their documented code,
 * when their output cannot be written (a full device the test makes, a
 * closed stdout). Everything in a temporary directory; never a real device. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "perflib/registry.h"
#include "pl_test.h"
#include "run_tool.h"

static char dir[256], store[300];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/pl-toolfaults-XXXXXX");
    if (!mkdtemp(dir)) return -1;
    snprintf(store, sizeof store, "%s/perflib.db", dir);
    pl_store *st;
    pl_error err;
    if (pl_store_open(store, 0, &st, &err) != PL_OK) return -1;
    pl_store_close(st);
    alarm(110);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* ------------------------------------------------ 9. /s and what is there */

static void save_to(const char *path, tool_run *r)
{
    char arg[600];
    snprintf(arg, sizeof arg, "/s:%s", path);
    const char *argv[] = {LODCTR_BIN, arg, NULL};
    run_tool(dir, store, argv, OUT_FILE, -1, r);
}

static void assert_refused_save(const tool_run *r, const char *what)
{
    if (r->code != 2 || !strstr(r->err, what)) fprintf(stderr, "exit %d: %s\n", r->code, r->err);
    assert_int_equal(r->code, 2);
    assert_non_null(strstr(r->err, what));
    assert_null(strstr(r->out, "Saved"));
}

static void save_refuses_a_symlink(void **s)
{
    (void)s;
    char target[400], link[400];
    snprintf(target, sizeof target, "%s/target.txt", dir);
    snprintf(link, sizeof link, "%s/link.ini", dir);
    FILE *f = fopen(target, "w");
    assert_non_null(f);
    fputs("keep me\n", f);
    fclose(f);
    assert_int_equal(symlink(target, link), 0);
    tool_run r;
    save_to(link, &r);
    assert_refused_save(&r, "is a symbolic link");
    struct stat sb;
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    char buf[64] = "";
    f = fopen(target, "r");
    assert_non_null(f);
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    assert_string_equal(buf, "keep me\n");
}

static void save_refuses_a_fifo(void **s)
{
    (void)s;
    char fifo[400];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    tool_run r;
    save_to(fifo, &r);
    assert_refused_save(&r, "is a FIFO");
    struct stat sb;
    assert_int_equal(lstat(fifo, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
}

/* A character device the test makes in its own directory (needs root). */
static void save_refuses_a_device(void **s)
{
    (void)s;
    if (geteuid() != 0) fail_msg("this case must run as root: it makes a device node in its temporary directory");
    char dev[400];
    snprintf(dev, sizeof dev, "%s/full", dir);
    assert_int_equal(mknod(dev, S_IFCHR | 0666, makedev(1, 7)), 0);
    tool_run r;
    save_to(dev, &r);
    assert_refused_save(&r, "is a character device");
    struct stat sb;
    assert_int_equal(lstat(dev, &sb), 0);
    assert_true(S_ISCHR(sb.st_mode));
    assert_int_equal(sb.st_rdev, makedev(1, 7));
}

static void save_replaces_a_regular_file(void **s)
{
    (void)s;
    char path[400];
    snprintf(path, sizeof path, "%s/backup.ini", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("old\n", f);
    fclose(f);
    tool_run r;
    save_to(path, &r);
    if (r.code) fprintf(stderr, "%s\n", r.err);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "Saved"));
    struct stat sb;
    assert_int_equal(lstat(path, &sb), 0);
    assert_true(S_ISREG(sb.st_mode));
    assert_true(sb.st_size > 1000);
}

/* ----------------------------------------- 10. output that cannot be written */

typedef struct tool_case {
    const char *argv[8];
    int code;                   /* the documented exit code for it */
} tool_case;

static void output_fails(int mode)
{
    if (mode == OUT_FULL && geteuid() != 0)
        fail_msg("this case must run as root: it makes a full device (1:7) in its temporary directory");
    const tool_case cases[] = {
        {{LODCTR_BIN, "/q", NULL}, 2},
        {{PERFQUERY_BIN, "--summary", NULL}, 3},
        {{PERFQUERY_BIN, "Global", NULL}, 3},
        {{TYPEPERF_BIN, "-q", "Memory", NULL}, 4},
        {{TYPEPERF_BIN, "-sc", "1", "\\Memory\\Available Bytes", NULL}, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tool_run r;
        /* the same command works with a file for stdout */
        run_tool(dir, store, cases[i].argv, OUT_FILE, -1, &r);
        if (r.code != 0) fprintf(stderr, "%s %s: exit %d: %s\n", cases[i].argv[0], cases[i].argv[1], r.code, r.err);
        assert_int_equal(r.code, 0);
        assert_true(strlen(r.out) > 0);
        run_tool(dir, store, cases[i].argv, mode, -1, &r);
        if (r.code != cases[i].code || !strstr(r.err, "cannot write the output"))
            fprintf(stderr, "%s %s: exit %d: %s\n", cases[i].argv[0], cases[i].argv[1], r.code, r.err);
        assert_int_equal(r.code, cases[i].code);
        if (strcmp(cases[i].argv[1], "-sc") != 0)
            assert_non_null(strstr(r.err, "cannot write the output"));
        else
            assert_true(strstr(r.err, "cannot write the output") || strstr(r.err, "writing the output failed"));
    }
}

static void tools_fail_on_a_full_device(void **s)
{
    (void)s;
    output_fails(OUT_FULL);
}

static void tools_fail_on_a_closed_stdout(void **s)
{
    (void)s;
    output_fails(OUT_CLOSED);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(save_refuses_a_symlink, setup, teardown),
        cmocka_unit_test_setup_teardown(save_refuses_a_fifo, setup, teardown),
        cmocka_unit_test_setup_teardown(save_refuses_a_device, setup, teardown),
        cmocka_unit_test_setup_teardown(save_replaces_a_regular_file, setup, teardown),
        cmocka_unit_test_setup_teardown(tools_fail_on_a_full_device, setup, teardown),
        cmocka_unit_test_setup_teardown(tools_fail_on_a_closed_stdout, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
