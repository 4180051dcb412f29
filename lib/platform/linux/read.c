/* perflib: reading /proc and /sys files under a configurable root. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "platform.h"

const char *pl__sysroot(void)
{
    const char *r = getenv("PERFLIB_SYSROOT");
    return (r && *r) ? r : "/";
}

int pl__root_open(const char *root, const char *rel)
{
    int rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rfd < 0) return -errno;
    if (!rel || !*rel || strcmp(rel, ".") == 0) return rfd;
    while (*rel == '/') rel++;
    int fd = openat(rfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int e = errno;
    close(rfd);
    return fd < 0 ? -e : fd;
}

int pl__open_regular_at(int dirfd, const char *rel)
{
    while (*rel == '/') rel++;
    /* O_NONBLOCK: a FIFO (or a device) planted under the root must not
     * block the reader in open() or read(); then only regular files (every
     * /proc and /sys file is one) are read at all. */
    int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return -errno;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return -EINVAL;
    }
    return fd;
}

ssize_t pl__read_at(int dirfd, const char *rel, char *buf, size_t cap)
{
    if (cap == 0) return -EINVAL;
    int fd = pl__open_regular_at(dirfd, rel);
    if (fd < 0) return fd;
    size_t got = 0;
    while (got < cap - 1) {
        ssize_t n = read(fd, buf + got, cap - 1 - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            close(fd);
            buf[got] = '\0';
            return -e;
        }
        if (n == 0) break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    return (ssize_t)got;
}

ssize_t pl__slurp_at(int dirfd, const char *rel, char **out)
{
    int fd = pl__open_regular_at(dirfd, rel);
    if (fd < 0) return fd;
    size_t cap = 4096, got = 0;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        return -ENOMEM;
    }
    for (;;) {
        if (got + 1 >= cap) {
            if (cap > ((size_t)1 << 30)) { /* 1 GiB: refuse, never a silently cut file */
                free(buf);
                close(fd);
                return -EFBIG;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                close(fd);
                return -ENOMEM;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + got, cap - 1 - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            free(buf);
            close(fd);
            return -e;
        }
        if (n == 0) break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    *out = buf;
    return (ssize_t)got;
}

int pl__parse_u64(const char **p, uint64_t *v)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t') s++;
    if (*s < '0' || *s > '9') return 0;
    uint64_t x = 0;
    while (*s >= '0' && *s <= '9') {
        unsigned d = (unsigned)(*s - '0');
        /* beyond 64 bits: not a number we can show (never saturated) */
        if (x > (UINT64_MAX - d) / 10) return 0;
        x = x * 10 + d;
        s++;
    }
    *v = x;
    *p = s;
    return 1;
}

int pl__parse_i64(const char **p, int64_t *v)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t') s++;
    int neg = 0;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    uint64_t u;
    if (!pl__parse_u64(&s, &u)) return 0;
    if (u > (uint64_t)INT64_MAX) u = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    *v = neg ? (int64_t)(0 - u) : (int64_t)u;
    *p = s;
    return 1;
}

void pl__skip_line(const char **p)
{
    const char *nl = strchr(*p, '\n');
    *p = nl ? nl + 1 : *p + strlen(*p);
}

int pl__find_key_u64(const char *text, const char *key, uint64_t *v)
{
    size_t kl = strlen(key);
    const char *s = text;
    while (*s) {
        if (strncmp(s, key, kl) == 0) {
            const char *q = s + kl;
            while (*q == ':' || *q == ' ' || *q == '\t') q++;
            return pl__parse_u64(&q, v);
        }
        pl__skip_line(&s);
    }
    return 0;
}

int64_t pl__filetime_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return PL_FILETIME_UNIX_EPOCH + (int64_t)ts.tv_sec * PL_TICKS_PER_SEC + ts.tv_nsec / 100;
}

int64_t pl__perf_time_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * PL_TICKS_PER_SEC + ts.tv_nsec / 100;
}

long pl__clock_ticks(void)
{
    long hz = sysconf(_SC_CLK_TCK);
    return hz > 0 ? hz : 100;
}

int64_t pl__boot_ft_choose(uint64_t btime, int64_t real_ft, int64_t since_boot)
{
    if (btime > (uint64_t)(INT64_MAX - PL_FILETIME_UNIX_EPOCH) / PL_TICKS_PER_SEC) return -1;
    int64_t coarse = PL_FILETIME_UNIX_EPOCH + (int64_t)btime * PL_TICKS_PER_SEC;
    if (since_boot < 0 || real_ft < since_boot) return coarse;
    int64_t precise = real_ft - since_boot;
    /* btime is that same instant cut to whole seconds, so the clocks belong
     * to the machine /proc describes only when they agree with it (a canned
     * tree, or another machine's /proc, keeps its btime) */
    if (precise >= coarse - PL_TICKS_PER_SEC && precise < coarse + 2 * PL_TICKS_PER_SEC) return precise;
    return coarse;
}

int64_t pl__boot_ft_precise(uint64_t btime)
{
    struct timespec r1, b, r2;
    clock_gettime(CLOCK_REALTIME, &r1);
    clock_gettime(CLOCK_BOOTTIME, &b);
    clock_gettime(CLOCK_REALTIME, &r2);
    int64_t t1 = PL_FILETIME_UNIX_EPOCH + (int64_t)r1.tv_sec * PL_TICKS_PER_SEC + r1.tv_nsec / 100;
    int64_t t2 = PL_FILETIME_UNIX_EPOCH + (int64_t)r2.tv_sec * PL_TICKS_PER_SEC + r2.tv_nsec / 100;
    int64_t up = (int64_t)b.tv_sec * PL_TICKS_PER_SEC + b.tv_nsec / 100;
    return pl__boot_ft_choose(btime, t1 + (t2 - t1) / 2, up);
}

int pl__boot_filetime(int rootfd, int64_t *ft)
{
    char *buf = NULL;
    ssize_t n = pl__slurp_at(rootfd, "proc/stat", &buf);
    if (n < 0) return (int)n;
    const char *s = strstr(buf, "\nbtime ");
    uint64_t bt = 0;
    int ok = 0;
    if (s) {
        s += 7;
        ok = pl__parse_u64(&s, &bt);
        while (ok && (*s == ' ' || *s == '\t')) s++;
        if (ok && *s != '\n' && *s != '\0') ok = 0; /* "1e9x" is not 1 */
    }
    free(buf);
    if (!s) return -ENODATA;
    if (!ok) return -EINVAL; /* malformed or beyond 64 bits */
    /* A boot time whose FILETIME does not fit in 63 bits (after 30828) is
     * malformed, not a wrapped (or, in signed arithmetic, undefined) value. */
    if (bt > (uint64_t)(INT64_MAX - PL_FILETIME_UNIX_EPOCH) / PL_TICKS_PER_SEC) return -EINVAL;
    *ft = pl__boot_ft_precise(bt);
    return 0;
}
