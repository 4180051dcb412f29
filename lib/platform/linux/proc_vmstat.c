/* perflib: /proc/vmstat ("name value" lines). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect_os.h"
#include "platform.h"

static const char *const vm_keys[PL__VM_NFIELDS] = {
    [PL__VM_PGPGIN] = "pgpgin",   [PL__VM_PGPGOUT] = "pgpgout", [PL__VM_PSWPIN] = "pswpin",
    [PL__VM_PSWPOUT] = "pswpout", [PL__VM_PGFAULT] = "pgfault", [PL__VM_PGMAJFAULT] = "pgmajfault",
};

int pl__parse_proc_vmstat(const char *text, struct pl__vmstat *out)
{
    memset(out, 0, sizeof *out);
    const char *s = text;
    while (*s) {
        const char *e = s;
        while (*e && *e != ' ' && *e != '\t' && *e != '\n') e++;
        if (e == s || (*e != ' ' && *e != '\t')) return -EINVAL;
        size_t kl = (size_t)(e - s);
        const char *r = e;
        uint64_t v;
        if (!pl__parse_u64(&r, &v)) return -EINVAL;
        while (*r == ' ' || *r == '\t') r++;
        if (*r != '\n' && *r != '\0') return -EINVAL;
        for (int f = 0; f < PL__VM_NFIELDS; f++) {
            if (strlen(vm_keys[f]) != kl || memcmp(vm_keys[f], s, kl) != 0) continue;
            if ((out->have >> f) & 1u) return -EINVAL;
            out->v[f] = v;
            out->have |= 1u << f;
            break;
        }
        pl__skip_line(&s);
    }
    return 0;
}

int pl__read_proc_vmstat(int rootfd, struct pl__vmstat *out)
{
    char *buf = NULL; /* about 5 KB today and growing with every kernel: no fixed cap */
    ssize_t n = pl__slurp_at(rootfd, "proc/vmstat", &buf);
    if (n < 0) return (int)n;
    int rc = pl__text_complete(buf, (size_t)n) ? pl__parse_proc_vmstat(buf, out) : -EINVAL;
    free(buf);
    return rc;
}
