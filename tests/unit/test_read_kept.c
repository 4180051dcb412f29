/* The kept descriptors of lib/platform/linux/read.c: the machine-wide /proc
 * files of the live root stay open and are read again from offset 0 (fresh
 * data, one descriptor each), never for another root, and not across a
 * fork (a child may be in other namespaces). */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "platform.h"
#include "pl_test.h"

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

static double uptime_of(const char *text)
{
    char *end = NULL;
    double v = strtod(text, &end);
    assert_true(end != text);
    return v;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Live root: later reads see new data, through one descriptor kept open;
 * pl__kept_close gives it back. */
static void live_files_kept_and_fresh(void **state)
{
    (void)state;
    int root = pl__root_open("/", "");
    assert_true(root >= 0);
    int before = open_fds();
    char a[256], b[256];
    assert_true(pl__read_at(root, "proc/uptime", a, sizeof a) > 0);
    int after_first = open_fds();
    assert_int_equal(after_first, before + 1); /* kept */
    sleep_ms(40);                              /* /proc/uptime counts hundredths */
    assert_true(pl__read_at(root, "proc/uptime", b, sizeof b) > 0);
    assert_true(uptime_of(b) > uptime_of(a));
    char *big = NULL;
    for (int i = 0; i < 50; i++) {
        assert_true(pl__slurp_at(root, "proc/uptime", &big) > 0);
        free(big);
    }
    assert_int_equal(open_fds(), after_first); /* still the one */
    /* a name not on the list is opened afresh every time */
    assert_true(pl__read_at(root, "proc/version", a, sizeof a) > 0);
    assert_int_equal(open_fds(), after_first);
    pl__kept_close();
    assert_int_equal(open_fds(), before);
    /* and reopened on the next read */
    assert_true(pl__read_at(root, "proc/uptime", a, sizeof a) > 0);
    assert_int_equal(open_fds(), before + 1);
    pl__kept_close();
    close(root);
}

/* Another root (PERFLIB_SYSROOT's canned trees): never kept, so a changed
 * file is read as it is now. */
static void other_root_not_kept(void **state)
{
    (void)state;
    char dir[] = "/tmp/pl_kept_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/proc", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/proc/uptime", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("100.00 50.00\n", f);
    fclose(f);
    int root = pl__root_open(dir, "");
    assert_true(root >= 0);
    int before = open_fds();
    char a[256];
    assert_true(pl__read_at(root, "proc/uptime", a, sizeof a) > 0);
    assert_string_equal(a, "100.00 50.00\n");
    assert_int_equal(open_fds(), before);
    /* replaced (a new inode): a kept descriptor would still read the old one */
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    f = fopen(tmp, "w");
    assert_non_null(f);
    fputs("200.00 60.00\n", f);
    fclose(f);
    assert_int_equal(rename(tmp, path), 0);
    assert_true(pl__read_at(root, "proc/uptime", a, sizeof a) > 0);
    assert_string_equal(a, "200.00 60.00\n");
    close(root);
    unlink(path);
    snprintf(path, sizeof path, "%s/proc", dir);
    rmdir(path);
    rmdir(dir);
}

/* A declared root (pl__kept_root) reads like any live root; after
 * pl__kept_close it is forgotten, so a canned tree that gets the same
 * descriptor number is read as itself, never as the live machine. */
static void declared_root_forgotten_at_close(void **state)
{
    (void)state;
    int root = pl__root_open("/", "");
    assert_true(root >= 0);
    pl__kept_root(root);
    char a[256], b[256];
    assert_true(pl__read_at(root, "proc/uptime", a, sizeof a) > 0);
    sleep_ms(40);
    assert_true(pl__read_at(root, "proc/uptime", b, sizeof b) > 0);
    assert_true(uptime_of(b) > uptime_of(a));
    pl__kept_close();
    close(root);
    char dir[] = "/tmp/pl_kept_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/proc", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/proc/uptime", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("7.00 3.00\n", f);
    fclose(f);
    int canned = pl__root_open(dir, "");
    assert_int_equal(canned, root); /* the lowest free number: the one the live root had */
    assert_true(pl__read_at(canned, "proc/uptime", a, sizeof a) > 0);
    assert_string_equal(a, "7.00 3.00\n");
    /* replaced: read as it is now (a kept descriptor would hold the old one) */
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    f = fopen(tmp, "w");
    assert_non_null(f);
    fputs("8.00 4.00\n", f);
    fclose(f);
    assert_int_equal(rename(tmp, path), 0);
    assert_true(pl__read_at(canned, "proc/uptime", a, sizeof a) > 0);
    assert_string_equal(a, "8.00 4.00\n");
    close(canned);
    /* and the live root, opened again, reads the live file */
    root = pl__root_open("/", "");
    assert_true(root >= 0);
    assert_true(pl__read_at(root, "proc/uptime", a, sizeof a) > 0);
    assert_true(uptime_of(a) > 8.5);
    pl__kept_close();
    close(root);
    unlink(path);
    snprintf(path, sizeof path, "%s/proc", dir);
    rmdir(path);
    rmdir(dir);
}

/* The interface names of a /proc/net/dev text, one per line. */
static void names_of(const char *text, char *out, size_t cap)
{
    out[0] = '\0';
    size_t w = 0;
    for (const char *s = text; *s;) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        const char *colon = memchr(s, ':', len);
        if (colon && !memchr(s, '|', len)) {
            const char *n = s;
            while (*n == ' ') n++;
            w += (size_t)snprintf(out + w, cap - w, "%.*s\n", (int)(colon - n), n);
        }
        s = nl ? nl + 1 : s + len;
    }
}

/* A forked child that moves to a new network namespace reads its own
 * /proc/net/dev (only lo), not the descriptor its parent kept. */
static void forked_child_reads_its_own_namespace(void **state)
{
    (void)state;
    int root = pl__root_open("/", "");
    assert_true(root >= 0);
    char *text = NULL;
    assert_true(pl__slurp_at(root, "proc/net/dev", &text) > 0); /* kept in the parent */
    free(text);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (unshare(CLONE_NEWNET) != 0) {
            perror("unshare(CLONE_NEWNET) (the suite runs as root)");
            _exit(2);
        }
        char *t = NULL;
        if (pl__slurp_at(root, "proc/net/dev", &t) <= 0) _exit(3);
        char got[4096];
        names_of(t, got, sizeof got);
        free(t);
        _exit(strcmp(got, "lo\n") == 0 ? 0 : 4);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    if (WEXITSTATUS(st) == 2) fail_msg("cannot make a network namespace: run the suite as root");
    assert_int_equal(WEXITSTATUS(st), 0);
    pl__kept_close();
    close(root);
}

int main(int argc, char **argv)
{
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(live_files_kept_and_fresh),
        cmocka_unit_test(other_root_not_kept),
        cmocka_unit_test(declared_root_forgotten_at_close),
        cmocka_unit_test(forked_child_reads_its_own_namespace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
