/* perflib: /sys/block (which block devices are whole disks, their sizes). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect_io.h"
#include "platform.h"

int pl__sysfs_block_name(const char *name, char *out, size_t cap)
{
    size_t n = strlen(name);
    if (n == 0 || n >= cap) return -ENAMETOOLONG;
    for (size_t i = 0; i < n; i++) out[i] = name[i] == '/' ? '!' : name[i];
    out[n] = '\0';
    return 0;
}

/* A single path component that is safe to openat() below a directory. */
static int safe_component(const char *s)
{
    if (!*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0) return 0;
    return strchr(s, '/') == NULL;
}

int pl__sysblock_is_disk(int sysblockfd, const char *name)
{
    if (sysblockfd < 0) return sysblockfd;
    char sname[PL__DISK_NAME_MAX];
    if (pl__sysfs_block_name(name, sname, sizeof sname) < 0 || !safe_component(sname)) return 0;
    struct stat st;
    /* /sys/block entries are symlinks to the device directory: follow them. */
    if (fstatat(sysblockfd, sname, &st, 0) != 0) return 0;
    return S_ISDIR(st.st_mode) ? 1 : 0;
}

long pl__sysblock_parent(int sysblockfd, const char *part, const char *const *disks, size_t ndisks)
{
    if (sysblockfd < 0) return -1;
    char spart[PL__DISK_NAME_MAX];
    if (pl__sysfs_block_name(part, spart, sizeof spart) < 0 || !safe_component(spart)) return -1;
    for (size_t i = 0; i < ndisks; i++)
        if (strcmp(disks[i], part) == 0) return (long)i;
    for (size_t i = 0; i < ndisks; i++) {
        char sdisk[PL__DISK_NAME_MAX];
        if (pl__sysfs_block_name(disks[i], sdisk, sizeof sdisk) < 0 || !safe_component(sdisk)) continue;
        /* Partitions of a disk are subdirectories named after them. */
        size_t dl = strlen(sdisk), pl = strlen(spart);
        if (pl <= dl || strncmp(spart, sdisk, dl) != 0) continue;
        char rel[2 * PL__DISK_NAME_MAX + 2];
        memcpy(rel, sdisk, dl);
        rel[dl] = '/';
        memcpy(rel + dl + 1, spart, pl + 1);
        struct stat st;
        if (fstatat(sysblockfd, rel, &st, 0) == 0 && S_ISDIR(st.st_mode)) return (long)i;
    }
    return -1;
}

/* "<sectors>\n" */
static int parse_size(const char *buf, uint64_t *sectors)
{
    const char *p = buf;
    uint64_t v;
    if (!pl__parse_u64(&p, &v)) return -EINVAL;
    if (*p != '\n' && *p != '\0') return -EINVAL;
    *sectors = v;
    return 0;
}

static int size_rel(const char *name, char *rel, size_t cap)
{
    char sname[PL__DISK_NAME_MAX];
    if (pl__sysfs_block_name(name, sname, sizeof sname) < 0 || !safe_component(sname)) return -EINVAL;
    size_t l = strlen(sname);
    if (l + 6 > cap) return -ENAMETOOLONG;
    memcpy(rel, sname, l);
    memcpy(rel + l, "/size", 6);
    return 0;
}

int pl__sysblock_size(int sysblockfd, const char *name, uint64_t *sectors)
{
    if (sysblockfd < 0) return sysblockfd;
    char rel[PL__DISK_NAME_MAX + 8];
    int rc = size_rel(name, rel, sizeof rel);
    if (rc != 0) return rc;
    char buf[64];
    ssize_t n = pl__read_at(sysblockfd, rel, buf, sizeof buf);
    if (n < 0) return (int)n;
    return parse_size(buf, sectors);
}

int pl__sysblock_size_open(int sysblockfd, const char *name)
{
    if (sysblockfd < 0) return sysblockfd;
    char rel[PL__DISK_NAME_MAX + 8];
    int rc = size_rel(name, rel, sizeof rel);
    if (rc != 0) return rc;
    return pl__open_regular_at(sysblockfd, rel);
}

int pl__sysblock_size_fd(int fd, uint64_t *sectors)
{
    char buf[64];
    ssize_t n;
    do
        n = pread(fd, buf, sizeof buf - 1, 0);
    while (n < 0 && errno == EINTR);
    if (n < 0) return -errno;
    if (n == 0 || (size_t)n == sizeof buf - 1) return -EINVAL; /* empty, or longer than any size */
    buf[n] = '\0';
    return parse_size(buf, sectors);
}
