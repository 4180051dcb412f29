/* perflib: /proc/vmstat ("name value" lines). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect_io.h"
#include "collect_os.h"
#include "platform.h"
#include "scan.h"

static const struct pl__key vm_keys[PL__VM_NFIELDS] = {
    [PL__VM_PGPGIN] = PL__KEY("pgpgin"),   [PL__VM_PGPGOUT] = PL__KEY("pgpgout"),
    [PL__VM_PSWPIN] = PL__KEY("pswpin"),   [PL__VM_PSWPOUT] = PL__KEY("pswpout"),
    [PL__VM_PGFAULT] = PL__KEY("pgfault"), [PL__VM_PGMAJFAULT] = PL__KEY("pgmajfault"),
};

/* Every line must be "name value": a name without blanks, one or more
 * spaces or tabs, an unsigned decimal within 64 bits, optional blanks; any
 * other line makes the whole file malformed, as does a wanted name twice. */
int pl__parse_proc_vmstat(const char *text, struct pl__vmstat *out)
{
    memset(out, 0, sizeof *out);
    struct pl__keyset ks;
    pl__keyset_init(&ks, vm_keys, PL__VM_NFIELDS);
    const char *s = text, *end = text + strlen(text);
    while (*s) {
        /* the name ends at a blank, a newline or the end; bytes above ' '
         * are name bytes (eight at a time, then one test for each) */
        const char *e = pl__skip_words_above_space(s, end);
        while ((unsigned char)*e > ' ' || (*e && *e != ' ' && *e != '\t' && *e != '\n')) e++;
        if (e == s || (*e != ' ' && *e != '\t')) return -EINVAL;
        const char *r = e;
        uint64_t v;
        if (!pl__scan_u64(&r, &v)) return -EINVAL;
        while (*r == ' ' || *r == '\t') r++;
        if (*r != '\n' && *r != '\0') return -EINVAL;
        int f = pl__keyset_find(&ks, s, (size_t)(e - s));
        if (f >= 0) {
            if ((out->have >> f) & 1u) return -EINVAL;
            out->v[f] = v;
            out->have |= 1u << f;
        }
        s = *r ? r + 1 : r; /* no newline between s and r: r ends the line */
    }
    return 0;
}

int pl__read_proc_vmstat(int rootfd, struct pl__vmstat *out)
{
    /* About 5 KB today and growing with every kernel: read into the stack
     * buffer (no allocation) while it fits, else whole into the heap (no
     * fixed cap). */
    char buf[16384];
    char *heap = NULL;
    const char *text;
    ssize_t n = pl__io_read_text(rootfd, "proc/vmstat", buf, sizeof buf, &heap, &text);
    if (n < 0) return (int)n;
    int rc = pl__text_complete(text, (size_t)n) ? pl__parse_proc_vmstat(text, out) : -EINVAL;
    free(heap);
    return rc;
}
