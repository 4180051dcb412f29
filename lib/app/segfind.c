/* perflib: finding and mapping the segments of live applications.
 *
 * Only the directories of the users the caller trusts are read
 * (<dir>/perflib-app-<uid>, each a real directory of that user that nobody
 * else may write), each at most PL__SEG_MAX_ENTRIES entries, at most
 * PL__SEG_MAX_PER_PROCESS announcements per process and
 * PL__SEG_MAX_PER_USER segments per user: what one user writes costs the
 * others nothing. An announcement <uid dir>/perflib-app.<pid>.<start>.<fd>
 * is believed only when: its name is exactly that shape; it is a regular
 * file of that user; the process <pid> is alive with that start time
 * (before and after the segment is opened, so a reused pid is never
 * mistaken for the announcer), and is that user's; /proc/<pid>/fd/<fd> is a
 * memfd of that user sealed against shrinking (so mapping it can never
 * raise SIGBUS); and the segment's own header names the same pid and start
 * time and passes pl__seg_layout_read. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app_internal.h"
#include "pl_internal.h"

/* Strict decimal: digits only, no sign, no leading zeros, <= max. */
static const char *num(const char *s, uint64_t max, uint64_t *out)
{
    if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9')) return NULL;
    uint64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (max - (uint64_t)(*s - '0')) / 10) return NULL;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return s;
}

int pl__seg_parse_name(const char *n, uint32_t *pid, uint64_t *start, int *fd)
{
    size_t pl = strlen(PL__SEG_PREFIX);
    if (strncmp(n, PL__SEG_PREFIX, pl) != 0) return 0;
    uint64_t a, b, c;
    const char *s = num(n + pl, 0x7FFFFFFF, &a);
    if (!s || *s++ != '.' || !(s = num(s, UINT64_MAX, &b)) || *s++ != '.' || !(s = num(s, 0x7FFFFFFF, &c)) || *s)
        return 0;
    if (a == 0 || b == 0) return 0;
    *pid = (uint32_t)a;
    *start = b;
    *fd = (int)c;
    return 1;
}

int pl__seg_user_dir(const char *dir, uint32_t uid, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s/%s%u", dir, PL__SEG_USER_DIR, (unsigned)uid);
    return n > 0 && (size_t)n < cap;
}

/* Open one announcement of user `uid` (its directory's owner). 1 when its
 * segment is live and valid (*v filled, mapped), 0 when the process or its
 * start time is gone (a stale announcement) or this reader may not open
 * another user's descriptors, -1 when a live process's announcement failed
 * a check. */
static int open_one(int dfd, const char *name, uint32_t uid, uint32_t pid, uint64_t start, int fdn, pl__seg_view *v)
{
    struct stat an, pr, sg;
    if (fstatat(dfd, name, &an, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(an.st_mode) || an.st_uid != uid) return -1;
    if (pl__proc_start_time("/proc", pid) != start) return 0; /* gone, or the pid was reused */
    char path[96];
    snprintf(path, sizeof path, "/proc/%u", pid);
    if (stat(path, &pr) != 0 || pr.st_uid != uid) return -1;
    snprintf(path, sizeof path, "/proc/%u/fd/%d", pid, fdn);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    /* Another user's process, to a reader that is not root: not ours to
     * read (the kernel's rule), not a failed check. */
    if (fd < 0) return errno == EACCES || errno == EPERM ? 0 : -1;
    void *m = MAP_FAILED;
    size_t len = 0;
    int seals = fcntl(fd, F_GET_SEALS);
    if (fstat(fd, &sg) == 0 && S_ISREG(sg.st_mode) && sg.st_uid == uid && seals >= 0 && (seals & F_SEAL_SHRINK) &&
        sg.st_size >= (off_t)PL__SEG_HEADER && (uint64_t)sg.st_size <= PL__SEG_MAX_BYTES &&
        pl__proc_start_time("/proc", pid) == start) {
        len = (size_t)sg.st_size;
        m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    }
    close(fd);
    if (m == MAP_FAILED) return -1;
    pl_error e;
    if (pl__seg_layout_read(m, len, &v->lay, &e) != PL_OK || v->lay.pid != pid || v->lay.start != start) {
        munmap(m, len);
        return -1;
    }
    v->map = m;
    v->len = len;
    v->uid = uid;
    v->dev = (uint64_t)sg.st_dev;
    v->ino = (uint64_t)sg.st_ino;
    return 1;
}

static int view_cmp(const void *a, const void *b)
{
    const pl__seg_view *x = a, *y = b;
    int c = strcmp(x->lay.app, y->lay.app);
    if (c) return c;
    if (x->lay.start != y->lay.start) return x->lay.start < y->lay.start ? -1 : 1;
    return x->lay.pid < y->lay.pid ? -1 : x->lay.pid > y->lay.pid;
}

/* One announcement's name, parsed. */
typedef struct ann {
    uint32_t pid;
    uint64_t start;
    int fd;
} ann;

static int ann_cmp(const void *a, const void *b)
{
    const ann *x = a, *y = b;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->fd < y->fd ? -1 : x->fd > y->fd;
}

/* The directory of user uid, if it is that user's own: a real directory
 * (not a symlink) owned by uid that nobody else may write. -1 otherwise
 * (missing: no application of that user has run). */
static int user_dir(const char *dir, uint32_t uid, int *bad)
{
    char path[4096];
    *bad = 0;
    if (!pl__seg_user_dir(dir, uid, path, sizeof path)) return -1;
    int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
        *bad = errno != ENOENT;
        return -1;
    }
    struct stat sb;
    if (fstat(dfd, &sb) != 0 || sb.st_uid != uid || (sb.st_mode & 022)) {
        close(dfd);
        *bad = 1;
        return -1;
    }
    return dfd;
}

/* Read at most PL__SEG_MAX_ENTRIES entries of one user's directory and
 * open its announcements, at most PL__SEG_MAX_PER_PROCESS per process and
 * PL__SEG_MAX_PER_USER segments in all, appending to *v. */
static int scan_user(const char *dir, uint32_t uid, pl__seg_view **v, size_t *cap, size_t *cnt, pl__seg_scan *sc)
{
    int bad;
    int dfd = user_dir(dir, uid, &bad);
    if (dfd < 0) {
        if (bad && !sc->bad_dirs++) sc->bad_dir_uid = uid;
        return PL_OK;
    }
    DIR *dd = fdopendir(dfd);
    if (!dd) {
        close(dfd);
        return PL_OK;
    }
    sc->users++;
    ann *a = NULL;
    size_t na = 0, acap = 0, entries = 0;
    int rc = PL_OK;
    struct dirent *e;
    while ((e = readdir(dd)) != NULL) {
        if (entries++ >= PL__SEG_MAX_ENTRIES) {
            sc->over_entries++;
            sc->over_uid = uid;
            break;
        }
        ann x;
        if (!pl__seg_parse_name(e->d_name, &x.pid, &x.start, &x.fd)) continue;
        if (pl__grow((void **)&a, &acap, na + 1, sizeof *a) != PL_OK) {
            rc = PL_E_NOMEM;
            break;
        }
        a[na++] = x;
    }
    if (na) qsort(a, na, sizeof *a, ann_cmp);
    size_t mine = 0, first = *cnt;
    for (size_t i = 0, run = 0; i < na && rc == PL_OK; i++) {
        run = i && a[i].pid == a[i - 1].pid ? run + 1 : 0;
        if (run >= PL__SEG_MAX_PER_PROCESS) {
            sc->over_process++;
            sc->over_uid = uid;
            continue;
        }
        if (mine >= PL__SEG_MAX_PER_USER) {
            sc->over_user++;
            sc->over_uid = uid;
            continue;
        }
        if (pl__grow((void **)v, cap, *cnt + 1, sizeof **v) != PL_OK) {
            rc = PL_E_NOMEM;
            break;
        }
        char name[96];
        snprintf(name, sizeof name, "%s%u.%llu.%d", PL__SEG_PREFIX, a[i].pid, (unsigned long long)a[i].start, a[i].fd);
        pl__seg_view *nv = &(*v)[*cnt];
        int r = open_one(dirfd(dd), name, uid, a[i].pid, a[i].start, a[i].fd, nv);
        if (r < 0 && !sc->invalid++) sc->invalid_uid = uid;
        if (r <= 0) continue;
        /* Two announcements of one segment: show it once. The same memfd
         * cannot be another user's (its owner is checked). */
        int dup = 0;
        for (size_t k = first; k < *cnt && !dup; k++) dup = (*v)[k].dev == nv->dev && (*v)[k].ino == nv->ino;
        if (dup) {
            munmap((void *)(*v)[*cnt].map, (*v)[*cnt].len);
            continue;
        }
        (*cnt)++;
        mine++;
    }
    free(a);
    closedir(dd);
    return rc;
}

int pl__seg_find(const char *dir, const uint32_t *uids, size_t nuids, pl__seg_view **views, size_t *n,
                 pl__seg_scan *scan)
{
    pl__seg_scan tmp;
    pl__seg_scan *sc = scan ? scan : &tmp;
    memset(sc, 0, sizeof *sc);
    *views = NULL;
    *n = 0;
    pl__seg_view *v = NULL;
    size_t cap = 0, cnt = 0;
    int rc = PL_OK;
    size_t tried = 0;
    for (size_t u = 0; u < nuids && rc == PL_OK; u++) {
        int again = 0;
        for (size_t k = 0; k < u && !again; k++) again = uids[k] == uids[u];
        if (again) continue;
        if (tried++ >= PL__SEG_MAX_USERS) {
            sc->users_over++;
            continue;
        }
        rc = scan_user(dir, uids[u], &v, &cap, &cnt, sc);
    }
    if (rc != PL_OK) {
        pl__seg_views_free(v, cnt);
        return rc;
    }
    if (cnt) qsort(v, cnt, sizeof *v, view_cmp);
    *views = v;
    *n = cnt;
    return PL_OK;
}

void pl__seg_views_free(pl__seg_view *v, size_t n)
{
    for (size_t i = 0; i < n; i++) munmap((void *)v[i].map, v[i].len);
    free(v);
}
