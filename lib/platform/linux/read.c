/* perflib: reading /proc and /sys files under a configurable root. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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

/* ------------------------------------------------- kept descriptors
 *
 * The machine-wide files of the live root, read on every Collect, stay open
 * in this process and are read again from offset 0 with pread: the kernel
 * renders /proc text afresh at offset 0, so the data is as current as a new
 * open's, without the path walk, the open and the close (about half of what
 * reading a small /proc file costs; docs/benchmarks.md, "Global at the
 * floor"). Only the fixed names below qualify, and only below the live "/"
 * (a root given by PERFLIB_SYSROOT is opened afresh every time, as before).
 * The kept descriptors belong to the process that opened them: a forked
 * child opens its own (its namespaces may differ; pthread_atfork marks the
 * child, so no getpid() per read). A provider that keeps its own
 * descriptor of "/" may declare it (pl__kept_root): reads below it skip the
 * fstat that checks any other descriptor. One lock serialises the
 * reads of kept descriptors, so two threads never interleave the reads of
 * one open file. A process that changes its network or IPC namespace with
 * setns() keeps reading the first namespace's /proc/net and /proc/sysvipc
 * files. */
static const char *const kept_names[] = {
    "proc/stat",          "proc/meminfo",       "proc/vmstat",      "proc/swaps",           "proc/loadavg",
    "proc/uptime",        "proc/pressure/cpu",  "proc/pressure/io", "proc/pressure/memory", "proc/net/snmp",
    "proc/net/snmp6",     "proc/net/dev",       "proc/diskstats",   "proc/softirqs",        "proc/interrupts",
    "proc/sysvipc/sem",   "proc/sysvipc/shm",
};
#define NKEPT (sizeof kept_names / sizeof kept_names[0])

/* Which of them the kernel renders with single_open() (one record, the
 * whole text, made in one go and handed out in one read when the reader's
 * buffer holds it): a first read shorter than asked is the whole file, so
 * the read that would return 0 is not made. The others are record-by-record
 * seq_files, which may stop short before the end (a record that did not
 * fit their page). */
static const unsigned char kept_whole[NKEPT] = {
    [0] = 1, /* stat: single_open_size */
    [1] = 1, /* meminfo */
    [4] = 1, /* loadavg */
    [5] = 1, /* uptime */
    [6] = 1, [7] = 1, [8] = 1, /* pressure: psi_open */
    [9] = 1, [10] = 1,         /* net/snmp, net/snmp6: single_open_net */
    [13] = 1,                  /* softirqs */
};
_Static_assert(NKEPT == 17, "kept_whole follows kept_names");

static pthread_mutex_t kept_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t kept_once = PTHREAD_ONCE_INIT;
static struct {
    int init;                   /* the root's identity is known */
    int forked;                 /* this is a forked child: the descriptors are its parent's */
    dev_t dev;                  /* the live root's identity */
    ino_t ino;
    int root_fd;                /* a descriptor of "/" its owner declared (pl__kept_root); -1: none */
    int fd[NKEPT];              /* -1: not open */
} kept = {.root_fd = -1};

/* Around fork: the lock is taken before and given back on both sides, so a
 * child never inherits it held; the child marks its copies its parent's. */
static void kept_prepare(void) { pthread_mutex_lock(&kept_mu); }
static void kept_parent(void) { pthread_mutex_unlock(&kept_mu); }
static void kept_child(void)
{
    kept.forked = 1;
    pthread_mutex_unlock(&kept_mu);
}
static void kept_register(void) { pthread_atfork(kept_prepare, kept_parent, kept_child); }

static int kept_slot(const char *rel)
{
    if (strncmp(rel, "proc/", 5) != 0) return -1;
    for (size_t i = 0; i < NKEPT; i++)
        if (strcmp(rel, kept_names[i]) == 0) return (int)i;
    return -1;
}

/* With kept_mu held: know the live root, and after a fork drop the
 * parent's descriptors (the child's namespaces may differ). 0, or -1 when
 * "/" cannot be looked at. */
static int kept_ready(void)
{
    if (kept.forked) {
        for (size_t i = 0; i < NKEPT; i++)
            if (kept.init && kept.fd[i] >= 0) close(kept.fd[i]); /* the child's copies; the parent keeps its own */
        kept.init = 0;
        kept.forked = 0;
    }
    if (kept.init) return 0;
    struct stat root;
    if (stat("/", &root) != 0) return -1;
    for (size_t i = 0; i < NKEPT; i++) kept.fd[i] = -1;
    kept.dev = root.st_dev;
    kept.ino = root.st_ino;
    kept.init = 1;
    return 0;
}

void pl__kept_root(int dirfd)
{
    pthread_once(&kept_once, kept_register);
    struct stat st;
    if (fstat(dirfd, &st) != 0) return;
    pthread_mutex_lock(&kept_mu);
    if (kept_ready() == 0 && st.st_dev == kept.dev && st.st_ino == kept.ino) kept.root_fd = dirfd;
    pthread_mutex_unlock(&kept_mu);
}

/* For a kept name below the live root: 1 with its descriptor in *fd
 * (opened on first use) and kept_mu held (the caller reads it, then calls
 * kept_release); 0 when the file is not one to keep (open it afresh); or
 * -errno when it cannot be opened. Only 1 returns with the lock held. */
static int kept_acquire(int dirfd, const char *rel, int *fd, int *whole)
{
    while (*rel == '/') rel++;
    int slot = kept_slot(rel);
    if (slot < 0) return 0;
    pthread_once(&kept_once, kept_register);
    pthread_mutex_lock(&kept_mu);
    if (kept_ready() != 0) {
        pthread_mutex_unlock(&kept_mu);
        return 0;
    }
    /* the declared root needs no look; any other descriptor is checked */
    if (dirfd < 0 || dirfd != kept.root_fd) {
        struct stat st;
        if (fstat(dirfd, &st) != 0 || st.st_dev != kept.dev || st.st_ino != kept.ino) {
            pthread_mutex_unlock(&kept_mu);
            return 0;
        }
    }
    if (kept.fd[slot] < 0) {
        int f = pl__open_regular_at(dirfd, rel);
        if (f < 0) {
            pthread_mutex_unlock(&kept_mu);
            return f;
        }
        kept.fd[slot] = f;
    }
    *fd = kept.fd[slot];
    *whole = kept_whole[slot];
    return 1;
}

static void kept_release(void) { pthread_mutex_unlock(&kept_mu); }

void pl__kept_close(void)
{
    pthread_mutex_lock(&kept_mu);
    if (kept.init && !kept.forked)
        for (size_t i = 0; i < NKEPT; i++)
            if (kept.fd[i] >= 0) close(kept.fd[i]);
    if (kept.forked) (void)kept_ready(); /* a child closes only its copies */
    kept.init = 0;                       /* the next read starts afresh */
    kept.root_fd = -1;
    pthread_mutex_unlock(&kept_mu);
}

/* A kept descriptor that failed a read (the file went away, ...) is closed,
 * so the next read opens the name again. Called with kept_mu held. */
static void kept_drop(int fd)
{
    for (size_t i = 0; i < NKEPT; i++)
        if (kept.fd[i] == fd) {
            close(fd);
            kept.fd[i] = -1;
        }
}

/* Read from offset `off` on, as read() would, but with pread when `at`. */
static ssize_t read_some(int fd, int at, void *buf, size_t n, size_t off)
{
    return at ? pread(fd, buf, n, (off_t)off) : read(fd, buf, n);
}

/* The descriptor to read rel from: a kept one (*kept = 1, kept_mu held) or
 * a fresh one (*kept = 0), or -errno. */
static int open_for_read(int dirfd, const char *rel, int *kept_out, int *whole)
{
    int fd = -1;
    *whole = 0;
    int rc = kept_acquire(dirfd, rel, &fd, whole);
    *kept_out = rc == 1;
    if (rc == 1) return fd;
    if (rc < 0) return rc; /* a kept name that cannot be opened */
    return pl__open_regular_at(dirfd, rel);
}

static void done_reading(int fd, int k, int failed)
{
    if (!k) {
        close(fd);
        return;
    }
    if (failed) kept_drop(fd);
    kept_release();
}

ssize_t pl__read_at(int dirfd, const char *rel, char *buf, size_t cap)
{
    if (cap == 0) return -EINVAL;
    int k, whole;
    int fd = open_for_read(dirfd, rel, &k, &whole);
    if (fd < 0) return fd;
    size_t got = 0;
    while (got < cap - 1) {
        size_t want = cap - 1 - got;
        ssize_t n = read_some(fd, k, buf + got, want, got);
        if (n < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            done_reading(fd, k, 1);
            buf[got] = '\0';
            return -e;
        }
        if (n == 0) break;
        got += (size_t)n;
        if (whole && got == (size_t)n && (size_t)n < want) break; /* single_open: all of it */
    }
    done_reading(fd, k, 0);
    buf[got] = '\0';
    return (ssize_t)got;
}

ssize_t pl__slurp_at(int dirfd, const char *rel, char **out)
{
    int k, whole;
    int fd = open_for_read(dirfd, rel, &k, &whole);
    if (fd < 0) return fd;
    /* 16 KiB: most /proc files in one read (vmstat is ~5 KiB) */
    size_t cap = 16384, got = 0;
    char *buf = malloc(cap);
    if (!buf) {
        done_reading(fd, k, 0);
        return -ENOMEM;
    }
    for (;;) {
        if (got + 1 >= cap) {
            if (cap > ((size_t)1 << 30)) { /* 1 GiB: refuse, never a silently cut file */
                free(buf);
                done_reading(fd, k, 0);
                return -EFBIG;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                done_reading(fd, k, 0);
                return -ENOMEM;
            }
            buf = nb;
            cap *= 2;
        }
        size_t want = cap - 1 - got;
        ssize_t n = read_some(fd, k, buf + got, want, got);
        if (n < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            free(buf);
            done_reading(fd, k, 1);
            return -e;
        }
        if (n == 0) break;
        got += (size_t)n;
        if (whole && got == (size_t)n && (size_t)n < want) break; /* single_open: all of it */
    }
    done_reading(fd, k, 0);
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

int64_t pl__boot_time_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
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
