/* perflib: /proc/uptime ("407.59 787.57": seconds up, idle seconds summed
 * over CPUs). */
#include <errno.h>
#include <string.h>

#include "collect_os.h"
#include "platform.h"

int pl__parse_proc_uptime(const char *text, struct pl__uptime *out)
{
    struct pl__uptime u;
    const char *s = text;
    if (!pl__parse_fixed2(&s, &u.up_cs) || (*s != ' ' && *s != '\t')) return -EINVAL;
    if (!pl__parse_fixed2(&s, &u.idle_cs)) return -EINVAL;
    while (*s == ' ' || *s == '\t') s++;
    if (*s != '\n' || s[1] != '\0') return -EINVAL;
    *out = u;
    return 0;
}

int pl__read_proc_uptime(int rootfd, struct pl__uptime *out)
{
    char buf[256];
    ssize_t n = pl__read_at(rootfd, "proc/uptime", buf, sizeof buf);
    if (n < 0) return (int)n;
    return pl__text_complete(buf, (size_t)n) ? pl__parse_proc_uptime(buf, out) : -EINVAL;
}
