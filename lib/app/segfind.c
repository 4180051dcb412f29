/* perflib: finding and mapping the segments of live applications.
 *
 * An announcement <dir>/perflib-app.<pid>.<start>.<fd> is believed only
 * when: its name is exactly that shape; it is a regular file; the process
 * <pid> is alive with that start time (before and after the segment is
 * opened, so a reused pid is never mistaken for the announcer), and is
 * owned by the announcement's owner; /proc/<pid>/fd/<fd> is a memfd owned
 * by that user and sealed against shrinking (so mapping it can never raise
 * SIGBUS); and the segment's own header names the same pid and start time
 * and passes pl__seg_layout_read. */
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

static int open_one(int dfd, const char *name, pl__seg_view *v, dev_t *dev, ino_t *ino)
{
    uint32_t pid;
    uint64_t start;
    int fdn;
    if (!pl__seg_parse_name(name, &pid, &start, &fdn)) return 0;
    struct stat an, pr, sg;
    if (fstatat(dfd, name, &an, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(an.st_mode)) return 0;
    if (pl__proc_start_time("/proc", pid) != start) return 0; /* gone, or the pid was reused */
    char path[96];
    snprintf(path, sizeof path, "/proc/%u", pid);
    if (stat(path, &pr) != 0 || pr.st_uid != an.st_uid) return 0;
    snprintf(path, sizeof path, "/proc/%u/fd/%d", pid, fdn);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return 0;
    int ok = 0;
    void *m = MAP_FAILED;
    size_t len = 0;
    int seals = fcntl(fd, F_GET_SEALS);
    if (fstat(fd, &sg) == 0 && S_ISREG(sg.st_mode) && sg.st_uid == an.st_uid && seals >= 0 &&
        (seals & F_SEAL_SHRINK) && sg.st_size >= (off_t)PL__SEG_HEADER && (uint64_t)sg.st_size <= PL__SEG_MAX_BYTES &&
        pl__proc_start_time("/proc", pid) == start) {
        len = (size_t)sg.st_size;
        m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    }
    close(fd);
    if (m == MAP_FAILED) return 0;
    pl_error e;
    if (pl__seg_layout_read(m, len, &v->lay, &e) == PL_OK && v->lay.pid == pid && v->lay.start == start) ok = 1;
    if (!ok) {
        munmap(m, len);
        return 0;
    }
    v->map = m;
    v->len = len;
    *dev = sg.st_dev;
    *ino = sg.st_ino;
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

int pl__seg_find(const char *dir, pl__seg_view **views, size_t *n)
{
    *views = NULL;
    *n = 0;
    DIR *dd = opendir(dir);
    if (!dd) return PL_OK; /* no directory: no applications */
    pl__seg_view *v = NULL;
    size_t cap = 0, cnt = 0;
    struct {
        dev_t dev;
        ino_t ino;
    } seen[PL__SEG_MAX_SEGMENTS];
    struct dirent *e;
    int rc = PL_OK;
    while ((e = readdir(dd)) != NULL && cnt < PL__SEG_MAX_SEGMENTS) {
        if (strncmp(e->d_name, PL__SEG_PREFIX, strlen(PL__SEG_PREFIX)) != 0) continue;
        if (pl__grow((void **)&v, &cap, cnt + 1, sizeof *v) != PL_OK) {
            rc = PL_E_NOMEM;
            break;
        }
        dev_t dev;
        ino_t ino;
        if (!open_one(dirfd(dd), e->d_name, &v[cnt], &dev, &ino)) continue;
        int dup = 0;
        for (size_t i = 0; i < cnt && !dup; i++) dup = seen[i].dev == dev && seen[i].ino == ino;
        if (dup) { /* two announcements of one segment: show it once */
            munmap((void *)v[cnt].map, v[cnt].len);
            continue;
        }
        seen[cnt].dev = dev;
        seen[cnt].ino = ino;
        cnt++;
    }
    closedir(dd);
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
