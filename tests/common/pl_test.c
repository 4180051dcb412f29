/* The runner every test program ends with (pl_test.h). */
#include "pl_test.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char *prog = "test";
static const char *running; /* the case being run */
static int skipped;

void pl__test_skip(const char *file, int line, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    for (char *c = why; *c; c++)
        if (*c == '\n' || *c == '\t') *c = ' ';
    skipped = 1;
    fflush(NULL);
    fprintf(stderr, "[  SKIP    ] %s.%s: %s (%s:%d)\n", prog, running ? running : "?", why, file, line);
    const char *log = getenv("PL_SKIP_LOG");
    if (log && *log) {
        char rec[768];
        int n = snprintf(rec, sizeof rec, "%s.%s\t%s\n", prog, running ? running : "?", why);
        if (n > (int)sizeof rec - 1) {
            n = (int)sizeof rec - 1;
            rec[n - 1] = '\n';
        }
        int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        /* One write with O_APPEND: parallel cases never interleave lines. */
        if (fd < 0 || write(fd, rec, (size_t)n) != n)
            fprintf(stderr, "[  SKIP    ] cannot record the skip in %s: %s\n", log, strerror(errno));
        if (fd >= 0) close(fd);
    }
    _skip(file, line); /* jumps back into the runner */
    exit(77);          /* not reached: only when called outside a case */
}

static long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* poll() one descriptor until `events` or the deadline; EINTR resumes. */
static int poll_until(int fd, short events, long deadline)
{
    for (;;) {
        long left = deadline - now_ms();
        if (left < 0) left = 0;
        struct pollfd pf = {.fd = fd, .events = events};
        int n = poll(&pf, 1, (int)left);
        if (n > 0) return 0;
        if (n == 0 || errno != EINTR) return -1;
    }
}

int pl_wait_exit(int pid, int timeout_ms)
{
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd < 0) return errno == ESRCH ? 0 : -1; /* ESRCH: gone (and reaped) already */
    int rc = poll_until(fd, POLLIN, now_ms() + timeout_ms);
    close(fd);
    return rc;
}

int pl_wait_file(const char *path, int timeout_ms)
{
    long deadline = now_ms() + timeout_ms;
    char dir[4096];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    int in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (in < 0) return -1;
    int rc = -1;
    if (inotify_add_watch(in, dir[0] ? dir : "/", IN_CREATE | IN_MOVED_TO) >= 0) {
        /* after the watch: a file made before it is found here, one made
         * after it wakes the poll */
        while (access(path, F_OK) != 0) {
            if (poll_until(in, POLLIN, deadline) != 0) break;
            char buf[4096];
            while (read(in, buf, sizeof buf) > 0) {
            }
        }
        rc = access(path, F_OK) == 0 ? 0 : -1;
    }
    close(in);
    return rc;
}

/* `prog --registered NAME...`: the names ctest runs (cmake/perflib.cmake
 * finds them in the sources) must be exactly the program's cases, so no case
 * is left out of ctest and no ctest entry names a case that is gone. */
static int check_registered(const struct CMUnitTest *tests, size_t n, int argc, char **argv)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        int found = 0;
        for (int a = 2; a < argc && !found; a++) found = strcmp(argv[a], tests[i].name) == 0;
        if (!found) {
            fprintf(stderr, "%s: case %s is not registered with ctest: write it as cmocka_unit_test*(%s, ...) on a line of its own\n",
                    prog, tests[i].name, tests[i].name);
            bad = 1;
        }
    }
    for (int a = 2; a < argc; a++) {
        int found = 0;
        for (size_t i = 0; i < n && !found; i++) found = strcmp(argv[a], tests[i].name) == 0;
        if (!found) {
            fprintf(stderr, "%s: ctest runs a case %s that is not in the program's list (commented out or under #if?)\n",
                    prog, argv[a]);
            bad = 1;
        }
    }
    if (!bad) printf("%s: all %zu cases registered\n", prog, n);
    return bad;
}

int pl__test_run(const struct CMUnitTest *tests, size_t n, int argc, char **argv)
{
    if (argc > 0 && argv[0]) {
        const char *slash = strrchr(argv[0], '/');
        prog = slash ? slash + 1 : argv[0];
    }
    if (argc > 1 && strcmp(argv[1], "--registered") == 0) return check_registered(tests, n, argc, argv);
    const char *pattern = argc > 1 ? argv[1] : NULL;
    size_t ran = 0;
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        if (pattern && fnmatch(pattern, tests[i].name, 0) != 0) continue;
        running = tests[i].name;
        ran++;
        if (_cmocka_run_group_tests(prog, &tests[i], 1, NULL, NULL) != 0) failed = 1;
    }
    if (ran == 0) {
        fprintf(stderr, "%s: no case matches '%s'; the cases are:\n", prog, pattern ? pattern : "");
        for (size_t i = 0; i < n; i++) fprintf(stderr, "  %s\n", tests[i].name);
        return 1;
    }
    if (failed) return 1;
    return skipped ? 77 : 0;
}
