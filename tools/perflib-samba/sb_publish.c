/* perflib-samba: replacing Samba's perfmon files (sb_publish.h).
 *
 * Why not write names.tdb and data.tdb in place, in tdb transactions: smbd
 * opens them O_RDONLY, which tdb turns into TDB_NOLOCK (lib/tdb/common/open.c,
 * tdb_open_ex), so it takes no lock at all and would read a commit in
 * progress. And one answer of Samba's reads names.tdb once (held open for the
 * whole answer) but opens data.tdb again for every counter and every
 * instance (reg_perfcount.c, _reg_perfcount_get_counter_data), so even two
 * whole files swapped one after the other could give a reader names of one
 * snapshot with values of the next.
 *
 * So each file is written complete under a temporary name (one tdb
 * transaction, synced by its commit) and renamed into place, and the two
 * renames happen while no process has names.tdb open: the bridge takes a
 * write lease on the current names.tdb, which the kernel grants only when no
 * other process has the file open, and which makes every process that opens
 * it meanwhile wait until the lease is released. An answer being assembled
 * holds names.tdb open from before its first data.tdb read to after its last,
 * so with the lease held no answer is in flight; the old names.tdb is then
 * emptied before the lease is released, so an opener that was waiting on it
 * gets an empty file (Samba answers with no objects) rather than old names
 * over new values. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <tdb.h>
#include <time.h>
#include <unistd.h>

#include "sb_publish.h"

#define LOCK_NAME "perflib-samba.lock"
#define NAMES_NEW "names.tdb.perflib-samba-new"
#define DATA_NEW "data.tdb.perflib-samba-new"

static int fail(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t cap, const char *fmt, ...)
{
    if (why && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, cap, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* A directory only root or this user may change. */
static int check_dir(const char *path, const struct stat *sb, int ancestor, char *why, size_t cap)
{
    if (!S_ISDIR(sb->st_mode)) return fail(why, cap, "%s: not a directory", path);
    if (sb->st_uid != 0 && sb->st_uid != geteuid())
        return fail(why, cap, "%s: owned by uid %lu, neither root nor this user", path, (unsigned long)sb->st_uid);
    if (ancestor && (sb->st_mode & S_ISVTX)) return 0; /* /tmp: others cannot rename what is ours */
    if (sb->st_mode & (S_IWGRP | S_IWOTH))
        return fail(why, cap, "%s: writable by %s (mode %04o): refused, chmod go-w it", path,
                    (sb->st_mode & S_IWOTH) ? "every user" : "its group", (unsigned)(sb->st_mode & 07777));
    return 0;
}

/* The state directory and every directory above it. */
static int check_tree(const char *state_dir, char *why, size_t cap)
{
    char real[PATH_MAX];
    if (!realpath(state_dir, real)) return fail(why, cap, "%s: %s", state_dir, strerror(errno));
    for (int ancestor = 0;; ancestor = 1) {
        struct stat sb;
        if (stat(real, &sb) != 0) return fail(why, cap, "%s: %s", real, strerror(errno));
        if (check_dir(real, &sb, ancestor, why, cap) != 0) return -1;
        if (strcmp(real, "/") == 0) return 0;
        char *slash = strrchr(real, '/');
        if (slash == real) real[1] = '\0';
        else *slash = '\0';
    }
}

int sb_dir_open(sb_dir *d, const char *state_dir, char *why, size_t cap)
{
    memset(d, 0, sizeof *d);
    d->lock_fd = -1;
    /* a lease break is announced with SIGIO, whose default is to die */
    signal(SIGIO, SIG_IGN);
    if (check_tree(state_dir, why, cap) != 0) return -1;
    if (snprintf(d->perfmon, sizeof d->perfmon, "%s/perfmon", state_dir) >= (int)sizeof d->perfmon)
        return fail(why, cap, "%s: path too long", state_dir);
    struct stat sb;
    if (lstat(d->perfmon, &sb) != 0) {
        if (errno != ENOENT) return fail(why, cap, "%s: %s", d->perfmon, strerror(errno));
        /* as Samba makes it (reg_perfcount.c, counters_directory) */
        if (mkdir(d->perfmon, 0755) != 0 && errno != EEXIST)
            return fail(why, cap, "cannot make %s: %s", d->perfmon, strerror(errno));
        if (chmod(d->perfmon, 0755) != 0 || lstat(d->perfmon, &sb) != 0)
            return fail(why, cap, "%s: %s", d->perfmon, strerror(errno));
    }
    if (check_dir(d->perfmon, &sb, 0, why, cap) != 0) return -1;
    char lock[4200];
    snprintf(lock, sizeof lock, "%s/%s", d->perfmon, LOCK_NAME);
    d->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (d->lock_fd < 0) return fail(why, cap, "%s: %s", lock, strerror(errno));
    if (flock(d->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        char pid[32] = "";
        ssize_t n = pread(d->lock_fd, pid, sizeof pid - 1, 0);
        if (n > 0) pid[n] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        if (strspn(pid, "0123456789") != strlen(pid)) pid[0] = '\0'; /* a number or nothing into the message */
        close(d->lock_fd);
        d->lock_fd = -1;
        if (e == EWOULDBLOCK)
            return fail(why, cap, "%s: another perflib-samba (pid %s) is writing this directory", d->perfmon,
                        pid[0] ? pid : "?");
        return fail(why, cap, "%s: cannot lock: %s", lock, strerror(e));
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(d->lock_fd, 0) != 0 || pwrite(d->lock_fd, pid, (size_t)n, 0) != n) {
        /* the pid is only for the message above */
    }
    return 0;
}

void sb_dir_close(sb_dir *d)
{
    if (d->lock_fd >= 0) close(d->lock_fd);
    d->lock_fd = -1;
}

static void path_in(const sb_dir *d, const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", d->perfmon, name);
}

int sb_load_map(const sb_dir *d, sb_map *map, char *why, size_t cap)
{
    memset(map, 0, sizeof *map);
    char p[4200];
    path_in(d, "names.tdb", p, sizeof p);
    struct stat sb;
    if (lstat(p, &sb) != 0) {
        if (errno == ENOENT) return 0;
        return fail(why, cap, "%s: %s", p, strerror(errno));
    }
    if (!S_ISREG(sb.st_mode)) {
        fail(why, cap, "%s: not a regular file; starting a new numbering", p);
        return 1;
    }
    TDB_CONTEXT *t = tdb_open(p, 0, TDB_DEFAULT, O_RDONLY, 0);
    if (!t) {
        fail(why, cap, "%s: not a tdb file (%s); starting a new numbering", p, strerror(errno));
        return 1;
    }
    TDB_DATA k = {.dptr = (unsigned char *)SB_MAP_KEY, .dsize = strlen(SB_MAP_KEY)};
    TDB_DATA v = tdb_fetch(t, k);
    tdb_close(t);
    if (!v.dptr) return 0; /* written by someone else: a new numbering */
    char pwhy[200];
    int rc = sb_map_parse((const char *)v.dptr, v.dsize, map, pwhy, sizeof pwhy);
    free(v.dptr);
    if (rc != 0) {
        fail(why, cap, "%s: its index map is refused (%s); starting a new numbering", p, pwhy);
        return 1;
    }
    return 0;
}

static unsigned hash_size(size_t n)
{
    size_t want = n < 131 ? 131 : n > 1000003 ? 1000003 : n;
    for (size_t c = want | 1;; c += 2) {
        int prime = 1;
        for (size_t f = 3; f * f <= c && prime; f += 2) prime = c % f != 0;
        if (prime) return (unsigned)c;
    }
}

static int write_tdb(const char *path, const sb_recs *r, char *why, size_t cap)
{
    if (unlink(path) != 0 && errno != ENOENT) return fail(why, cap, "%s: %s", path, strerror(errno));
    TDB_CONTEXT *t = tdb_open(path, (int)hash_size(r->n), TDB_DEFAULT, O_RDWR | O_CREAT | O_EXCL, 0644);
    if (!t) return fail(why, cap, "cannot create %s: %s", path, strerror(errno));
    int rc = 0;
    const char *what = "";
    if (fchmod(tdb_fd(t), 0644) != 0) {
        rc = errno;
        what = strerror(errno);
    }
    if (!rc && tdb_transaction_start(t) != 0) {
        rc = EIO;
        what = tdb_errorstr(t);
    }
    for (size_t i = 0; !rc && i < r->n; i++) {
        TDB_DATA k = {.dptr = (unsigned char *)r->v[i].key, .dsize = strlen(r->v[i].key)};
        TDB_DATA v = {.dptr = r->v[i].val, .dsize = r->v[i].vlen};
        if (tdb_store(t, k, v, TDB_INSERT) != 0) {
            rc = EIO;
            what = tdb_errorstr(t);
        }
    }
    if (!rc && tdb_transaction_commit(t) != 0) {
        rc = EIO;
        what = tdb_errorstr(t);
    }
    if (rc && tdb_transaction_active(t)) tdb_transaction_cancel(t);
    if (tdb_close(t) != 0 && !rc) {
        rc = EIO;
        what = strerror(errno);
    }
    if (rc) {
        unlink(path);
        return fail(why, cap, "cannot write %s: %s", path, what);
    }
    return 0;
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int sb_publish(const sb_dir *d, const sb_recs *names, const sb_recs *data, long wait_ms, sb_swap *sw, char *why,
               size_t cap)
{
    memset(sw, 0, sizeof *sw);
    char names_p[4200], data_p[4200], names_n[4200], data_n[4200];
    path_in(d, "names.tdb", names_p, sizeof names_p);
    path_in(d, "data.tdb", data_p, sizeof data_p);
    path_in(d, NAMES_NEW, names_n, sizeof names_n);
    path_in(d, DATA_NEW, data_n, sizeof data_n);
    if (write_tdb(data_n, data, why, cap) != 0) return -1;
    if (write_tdb(names_n, names, why, cap) != 0) {
        unlink(data_n);
        return -1;
    }
    int fd = open(names_p, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno != ENOENT) {
        int e = errno;
        unlink(data_n);
        unlink(names_n);
        return fail(why, cap, "%s: %s", names_p, strerror(e));
    }
    int leased = 0;
    if (fd >= 0) {
        long start = now_ms();
        for (;;) {
            if (fcntl(fd, F_SETLEASE, F_WRLCK) == 0) {
                leased = 1;
                break;
            }
            if (errno != EAGAIN && errno != EBUSY) {
                sw->unsupported = 1; /* EINVAL: a file system without leases; EACCES: not ours */
                break;
            }
            if (now_ms() - start >= wait_ms) break;
            struct timespec ts = {0, 2 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        sw->waited_ms = now_ms() - start;
        if (!leased && !sw->unsupported) {
            /* readers all along: leave the files as they are */
            close(fd);
            unlink(data_n);
            unlink(names_n);
            return 1;
        }
    }
    sw->guarded = leased || fd < 0;
    int rc = 0, e = 0;
    const char *p = data_p;
    if (rename(data_n, data_p) != 0) {
        e = errno;
        rc = -1;
    } else if (rename(names_n, names_p) != 0) {
        e = errno;
        p = names_p;
        rc = -1;
    }
    if (leased) {
        /* An opener waiting on the old names.tdb gets an empty file, which
         * Samba answers with no objects. (Should the truncation fail, such
         * an opener reads the old names over new values, as without a
         * lease: nothing more can be done then.) */
        if (rc == 0 && ftruncate(fd, 0) != 0) sw->guarded = 0;
        fcntl(fd, F_SETLEASE, F_UNLCK);
    }
    if (fd >= 0) close(fd);
    if (rc != 0) {
        unlink(data_n);
        unlink(names_n);
        return fail(why, cap, "cannot put %s in place: %s", p, strerror(e));
    }
    int dfd = open(d->perfmon, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}
