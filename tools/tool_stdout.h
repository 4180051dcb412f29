/* The standard descriptors of a perflib tool, and the check that its output
 * really reached stdout (docs/perfquery.md, typeperf.md, lodctr.md: a tool
 * whose output cannot be written exits non-zero). Header-only, included by
 * the tools' main files. */
#ifndef PL_TOOL_STDOUT_H
#define PL_TOOL_STDOUT_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Call first in main. A closed 0, 1 or 2 is opened on /dev/null, so that no
 * file the tool opens (the store, a backup) becomes its stdout or stderr;
 * a closed stdout is opened read-only, so every write to it fails and is
 * reported by tool_stdout_close() instead of vanishing. */
static inline void tool_guard_stdio(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
        int n = open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);
        if (n >= 0 && n != fd) {
            dup2(n, fd);
            close(n);
        }
    }
}

/* Call when the tool is done with stdout: flush and close it. Returns 0
 * when everything written reached it; else prints "<prog>: cannot write the
 * output: <reason>" to stderr and returns -1. */
static inline int tool_stdout_close(const char *prog)
{
    int bad = 0, e = 0;
    if (fflush(stdout) != 0) {
        bad = 1;
        e = errno;
    }
    if (ferror(stdout)) bad = 1;
    errno = 0;
    if (fclose(stdout) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad) return 0;
    char eb[128] = "a write failed";
    if (e) {
        /* strerror_r: the GNU form returns a pointer */
        const char *s = strerror_r(e, eb, sizeof eb);
        if (s != eb) snprintf(eb, sizeof eb, "%s", s);
    }
    fprintf(stderr, "%s: cannot write the output: %s\n", prog, eb);
    return -1;
}

#endif
