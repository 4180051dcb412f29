/* perflib: /proc/pressure/{cpu,memory,io} (pressure stall information):
 *   some avg10=0.56 avg60=0.31 avg300=0.29 total=3327060
 *   full avg10=0.00 avg60=0.00 avg300=0.00 total=0 */
#include <errno.h>
#include <string.h>

#include "collect_os.h"
#include "platform.h"

static int parse_psi_line(const char *s, struct pl__psi_line *l)
{
    static const char *const names[3] = {"avg10=", "avg60=", "avg300="};
    for (int i = 0; i < 3; i++) {
        while (*s == ' ' || *s == '\t') s++;
        size_t nl = strlen(names[i]);
        if (strncmp(s, names[i], nl) != 0) return -EINVAL;
        s += nl;
        uint64_t v;
        if (!pl__parse_fixed2(&s, &v) || v > 10000) return -EINVAL; /* a percentage */
        l->avg100[i] = (uint32_t)v;
    }
    while (*s == ' ' || *s == '\t') s++;
    if (strncmp(s, "total=", 6) != 0) return -EINVAL;
    s += 6;
    if (*s < '0' || *s > '9' || !pl__parse_u64(&s, &l->total_us)) return -EINVAL;
    while (*s == ' ' || *s == '\t') s++;
    return (*s == '\n' || *s == '\0') ? 0 : -EINVAL;
}

int pl__parse_proc_pressure(const char *text, struct pl__psi *out)
{
    struct pl__psi p;
    memset(&p, 0, sizeof p);
    const char *s = text;
    while (*s) {
        int rc;
        if (strncmp(s, "some ", 5) == 0) {
            if (p.have_some) return -EINVAL;
            if ((rc = parse_psi_line(s + 5, &p.some)) < 0) return rc;
            p.have_some = 1;
        } else if (strncmp(s, "full ", 5) == 0) {
            if (p.have_full) return -EINVAL;
            if ((rc = parse_psi_line(s + 5, &p.full)) < 0) return rc;
            p.have_full = 1;
        } else {
            return -EINVAL;
        }
        pl__skip_line(&s);
    }
    if (!p.have_some) return -EINVAL;
    *out = p;
    return 0;
}

int pl__read_proc_pressure(int rootfd, enum pl__psi_resource res, struct pl__psi *out)
{
    static const char *const paths[PL__PSI_NRES] = {
        [PL__PSI_CPU] = "proc/pressure/cpu",
        [PL__PSI_MEMORY] = "proc/pressure/memory",
        [PL__PSI_IO] = "proc/pressure/io",
    };
    if ((unsigned)res >= PL__PSI_NRES) return -EINVAL;
    char buf[512];
    ssize_t n = pl__read_at(rootfd, paths[res], buf, sizeof buf);
    if (n < 0) return (int)n;
    return pl__text_complete(buf, (size_t)n) ? pl__parse_proc_pressure(buf, out) : -EINVAL;
}
