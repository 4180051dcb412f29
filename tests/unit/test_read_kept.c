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

/* The first word of every line, joined: what a file's shape is, whatever
 * its values do between two reads. */
static void shape_of(const char *text, char *out, size_t cap)
{
    size_t w = 0;
    out[0] = '\0';
    for (const char *s = text; *s && w + 2 < cap;) {
        size_t n = strcspn(s, " \t:\n");
        if (n > 40) n = 40;
        w += (size_t)snprintf(out + w, cap - w, "%.*s|", (int)n, s);
        const char *nl = strchr(s, '\n');
        if (!nl) break;
        s = nl + 1;
    }
}

/* The files read in one pread when the first comes back short
 * (single_open in the kernel) are read whole: the same lines as a fresh
 * read of the file to its end, read after read. */
static void single_open_files_read_whole(void **state)
{
    (void)state;
    static const char *const names[] = {"proc/stat", "proc/meminfo", "proc/loadavg", "proc/uptime",
                                        "proc/net/snmp", "proc/net/snmp6", "proc/softirqs", "proc/vmstat"};
    int root = pl__root_open("/", "");
    assert_true(root >= 0);
    static char fresh[1 << 17], kept_shape[1 << 15], fresh_shape[1 << 15];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        for (int round = 0; round < 3; round++) {
            char *text = NULL;
            ssize_t n = pl__slurp_at(root, names[i], &text);
            assert_true(n > 0);
            char path[64];
            snprintf(path, sizeof path, "/%s", names[i]);
            FILE *f = fopen(path, "r");
            assert_non_null(f);
            size_t m = fread(fresh, 1, sizeof fresh - 1, f);
            fclose(f);
            fresh[m] = '\0';
            shape_of(text, kept_shape, sizeof kept_shape);
            shape_of(fresh, fresh_shape, sizeof fresh_shape);
            if (strcmp(kept_shape, fresh_shape) != 0) fail_msg("%s: kept read %zd bytes, fresh %zu", names[i], n, m);
            assert_int_equal(text[n - 1], '\n');
            free(text);
            char small[8192];
            if (strcmp(names[i], "proc/loadavg") == 0 || strcmp(names[i], "proc/uptime") == 0) {
                assert_true(pl__read_at(root, names[i], small, sizeof small) > 0);
                assert_non_null(strchr(small, '\n'));
            }
        }
    }
    pl__kept_close();
    close(root);
}

/* A canned tree <dir>/proc/uptime holding `text`. */
static void canned_tree(char *dir, const char *text)
{
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/proc", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/proc/uptime", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Replace the canned file by a new one (a new inode): a kept descriptor
 * would still read the old one. */
static void canned_replace(const char *dir, const char *text)
{
    char path[256], tmp[300];
    snprintf(path, sizeof path, "%s/proc/uptime", dir);
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *f = fopen(tmp, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(rename(tmp, path), 0);
}

static void canned_remove(const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/proc/uptime", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/proc", dir);
    rmdir(path);
    rmdir(dir);
}

/* Another root (PERFLIB_SYSROOT's canned trees): never kept, so a changed
 * file is read as it is now. */
static void other_root_not_kept(void **state)
{
    (void)state;
    char dir[] = "/tmp/pl_kept_XXXXXX";
    canned_tree(dir, "100.00 50.00\n");
    int root = pl__root_open(dir, "");
    assert_true(root >= 0);
    int before = open_fds();
    char a[256];
    assert_true(pl__read_at(root, "proc/uptime", a, sizeof a) > 0);
    assert_string_equal(a, "100.00 50.00\n");
    assert_int_equal(open_fds(), before);
    canned_replace(dir, "200.00 60.00\n");
    assert_true(pl__read_at(root, "proc/uptime", a, sizeof a) > 0);
    assert_string_equal(a, "200.00 60.00\n");
    close(root);
    canned_remove(dir);
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
    canned_tree(dir, "7.00 3.00\n");
    int canned = pl__root_open(dir, "");
    assert_int_equal(canned, root); /* the lowest free number: the one the live root had */
    assert_true(pl__read_at(canned, "proc/uptime", a, sizeof a) > 0);
    assert_string_equal(a, "7.00 3.00\n");
    canned_replace(dir, "8.00 4.00\n");
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
    canned_remove(dir);
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
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(live_files_kept_and_fresh),
        cmocka_unit_test(other_root_not_kept),
        cmocka_unit_test(single_open_files_read_whole),
        cmocka_unit_test(declared_root_forgotten_at_close),
        cmocka_unit_test(forked_child_reads_its_own_namespace),
    };
    return pl_test_run(tests, argc, argv);
}
