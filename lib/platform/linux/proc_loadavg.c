/* perflib: /proc/loadavg ("0.08 0.06 0.02 1/87 4844"). */
#include <errno.h>
#include <string.h>

#include "collect_os.h"
#include "platform.h"

int pl__parse_proc_loadavg(const char *text, struct pl__loadavg *out)
{
    struct pl__loadavg l;
    memset(&l, 0, sizeof l);
    const char *s = text;
    for (int i = 0; i < 3; i++) {
        uint64_t v;
        if (!pl__parse_fixed2(&s, &v) || (*s != ' ' && *s != '\t')) return -EINVAL;
        if (v > UINT32_MAX) return -EINVAL; /* never a saturated load */
        l.load100[i] = (uint32_t)v;
    }
    if (!pl__parse_u64(&s, &l.running) || *s != '/') return -EINVAL;
    s++;
    if (!pl__parse_u64(&s, &l.threads)) return -EINVAL;
    if (!pl__parse_u64(&s, &l.last_pid)) return -EINVAL;
    while (*s == ' ' || *s == '\t') s++;
    if (*s != '\n' || s[1] != '\0') return -EINVAL;
    *out = l;
    return 0;
}

int pl__read_proc_loadavg(int rootfd, struct pl__loadavg *out)
{
    char buf[256];
    ssize_t n = pl__read_at(rootfd, "proc/loadavg", buf, sizeof buf);
    if (n < 0) return (int)n;
    return pl__text_complete(buf, (size_t)n) ? pl__parse_proc_loadavg(buf, out) : -EINVAL;
}
