/* perflib: the number of processes, counted as the all-digit directory
 * entries of /proc with getdents64 (no file inside them is opened). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collect_os.h"
#include "platform.h"

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

int pl__count_proc_pids(int rootfd, uint64_t *out)
{
    int fd = openat(rootfd, "proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -errno;
    _Alignas(8) char buf[32768];
    uint64_t count = 0;
    for (;;) {
        long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            close(fd);
            return -e;
        }
        if (n == 0) break;
        for (long off = 0; off < n;) {
            const struct linux_dirent64 *d = (const struct linux_dirent64 *)(buf + off);
            if (d->d_reclen == 0 || off + d->d_reclen > n) { /* never from a real kernel */
                close(fd);
                return -EINVAL;
            }
            const char *nm = d->d_name;
            int digits = nm[0] != '\0';
            for (const char *c = nm; *c; c++)
                if (*c < '0' || *c > '9') digits = 0;
            if (digits && (d->d_type == DT_DIR || d->d_type == DT_UNKNOWN)) count++;
            off += d->d_reclen;
        }
    }
    close(fd);
    *out = count;
    return 0;
}
