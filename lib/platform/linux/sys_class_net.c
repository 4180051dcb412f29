/* perflib: /sys/class/net/<if>/{speed,mtu,ifindex}. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect_io.h"
#include "platform.h"

/* Read one attribute file holding a single decimal (maybe negative). Returns
 * 1 with *v set, 0 when unreadable or malformed. */
static int read_attr(int dirfd, const char *rel, int64_t *v)
{
    char buf[64];
    ssize_t n = pl__read_at(dirfd, rel, buf, sizeof buf);
    if (n <= 0) return 0; /* the kernel says EINVAL for speed of a down link */
    const char *p = buf;
    if (!pl__parse_i64(&p, v)) return 0;
    return *p == '\n' || *p == '\0';
}

int pl__read_netif_attrs(int classnetfd, const char *ifname, struct pl__netif_attrs *out)
{
    memset(out, 0, sizeof *out);
    if (classnetfd < 0) return classnetfd;
    size_t l = strlen(ifname);
    if (l == 0 || l >= PL__IF_NAME_MAX || strchr(ifname, '/') || strcmp(ifname, ".") == 0 ||
        strcmp(ifname, "..") == 0)
        return -EINVAL;
    int fd = openat(classnetfd, ifname, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -errno;
    int64_t v;
    if (read_attr(fd, "speed", &v) && v >= 0 && v < 0xFFFFFFFFll) { /* SPEED_UNKNOWN is -1 */
        out->speed_mbps = (uint64_t)v;
        out->have |= PL__NETIF_HAVE_SPEED;
    }
    if (read_attr(fd, "mtu", &v) && v >= 0) {
        out->mtu = (uint64_t)v;
        out->have |= PL__NETIF_HAVE_MTU;
    }
    if (read_attr(fd, "ifindex", &v) && v > 0 && v <= INT32_MAX) {
        out->ifindex = (int32_t)v;
        out->have |= PL__NETIF_HAVE_IFINDEX;
    }
    close(fd);
    return 0;
}
