/* perflib: the number of processes, counted as the all-digit directory
 * entries of /proc with getdents64 (no file inside them is opened), and the
 * number of threads they hold (each <pid>/stat read). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <sys/stat.h>

#include "collect_os.h"
#include "collect_proc.h"
#include "platform.h"

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* Calls fn(ctx, name) for every all-digit directory entry of <root>/proc;
 * stops at the first non-zero return. 0 or -errno. */
static int each_pid(int rootfd, int (*fn)(void *, int, const char *), void *ctx)
{
    int fd = openat(rootfd, "proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -errno;
    _Alignas(8) char buf[32768];
    int rc = 0;
    for (;;) {
        long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            rc = -errno;
            break;
        }
        if (n == 0) break;
        for (long off = 0; off < n && rc == 0;) {
            const struct linux_dirent64 *d = (const struct linux_dirent64 *)(buf + off);
            if (d->d_reclen == 0 || off + d->d_reclen > n) { /* never from a real kernel */
                rc = -EINVAL;
                break;
            }
            const char *nm = d->d_name;
            int digits = nm[0] != '\0';
            for (const char *c = nm; *c; c++)
                if (*c < '0' || *c > '9') digits = 0;
            if (digits && (d->d_type == DT_DIR || d->d_type == DT_UNKNOWN)) rc = fn(ctx, fd, nm);
            off += d->d_reclen;
        }
        if (rc) break;
    }
    close(fd);
    return rc;
}

struct tcount {
    uint64_t threads;
};

static int add_threads(void *ctx, int procfd, const char *pid)
{
    struct tcount *t = ctx;
    char path[32], buf[PL_PROC_STAT_BUF];
    size_t l = strlen(pid);
    if (l + 6 > sizeof path) return 0;
    memcpy(path, pid, l);
    memcpy(path + l, "/stat", 6);
    ssize_t n = pl__proc_read1(procfd, path, buf, sizeof buf);
    if (n == -ENOENT || n == -ESRCH || n == 0) return 0; /* exited meanwhile */
    if (n < 0) return (int)n;
    pl_proc_stat st;
    if (pl__proc_parse_stat(buf, &st) != 0) return -EINVAL;
    t->threads += st.num_threads;
    return 0;
}

int pl__count_proc_threads(int rootfd, uint64_t *out)
{
    struct tcount t = {0};
    int rc = each_pid(rootfd, add_threads, &t);
    if (rc) return rc;
    *out = t.threads;
    return 0;
}

int pl__proc_is_initial_pidns(int rootfd)
{
    /* The initial PID namespace has a fixed inode (PROC_PID_INIT_INO); a
     * reader visible as <root>/proc/self in it sees that procfs's whole
     * namespace. Canned trees have no proc/self. */
    struct stat st;
    return fstatat(rootfd, "proc/self/ns/pid", &st, 0) == 0 && st.st_ino == 0xEFFFFFFCu;
}

static int add_one(void *ctx, int procfd, const char *pid)
{
    (void)procfd;
    (void)pid;
    ++*(uint64_t *)ctx;
    return 0;
}

int pl__count_proc_pids(int rootfd, uint64_t *out)
{
    uint64_t count = 0;
    int rc = each_pid(rootfd, add_one, &count);
    if (rc) return rc;
    *out = count;
    return 0;
}
