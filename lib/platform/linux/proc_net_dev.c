/* perflib: /proc/net/dev (per-interface packet and byte counters). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect_io.h"
#include "platform.h"

static int grow(struct pl__netdevs *m)
{
    if (m->n < m->cap) return 0;
    size_t nc = m->cap ? m->cap * 2 : 16;
    if (nc > ((size_t)1 << 20)) return -ENOMEM;
    struct pl__netdev *np = realloc(m->d, nc * sizeof *np);
    if (!np) return -ENOMEM;
    m->d = np;
    m->cap = nc;
    return 0;
}

/* "  eth0: 1 2 3 ... 16". The name ends at the first ':' (the kernel does not
 * allow ':' or blanks in interface names); old kernels wrote no blank after
 * the colon. */
static int parse_line(const char *s, const char *end, struct pl__netdev *d)
{
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    const char *colon = memchr(s, ':', (size_t)(end - s));
    if (!colon) return 0;
    size_t nl = (size_t)(colon - s);
    if (nl == 0 || nl >= sizeof d->name) return 0;
    for (size_t i = 0; i < nl; i++)
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '/' || (unsigned char)s[i] < 0x20) return 0;
    memcpy(d->name, s, nl);
    d->name[nl] = '\0';
    const char *p = colon + 1;
    for (int i = 0; i < PL__ND_NFIELDS; i++) {
        while (p < end && (*p == ' ' || *p == '\t')) p++;
        if (p >= end || *p < '0' || *p > '9') return 0;
        if (!pl__parse_u64(&p, &d->f[i]) || p > end) return 0;
        if (p < end && *p != ' ' && *p != '\t') return 0;
    }
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    return p == end;
}

int pl__parse_net_dev(const char *text, struct pl__netdevs *out)
{
    out->n = 0;
    out->bad = 0;
    const char *s = text;
    /* Two header lines; the second names the columns. */
    const char *l1 = strchr(s, '\n');
    if (!l1) return -EINVAL;
    const char *l2 = strchr(l1 + 1, '\n');
    if (!l2) return -EINVAL;
    const char *h = l1 + 1;
    size_t hl = (size_t)(l2 - h);
    static const char key[] = "|bytes";
    int found = 0;
    for (size_t i = 0; i + sizeof key - 1 <= hl; i++)
        if (memcmp(h + i, key, sizeof key - 1) == 0) found = 1;
    if (!found) return -EINVAL;
    s = l2 + 1;
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        const char *q = s;
        while (q < s + len && (*q == ' ' || *q == '\t')) q++;
        if (q < s + len) {
            int rc = grow(out);
            if (rc) return rc;
            if (nl && parse_line(s, s + len, &out->d[out->n])) out->n++;
            else out->bad++;
        }
        s += len;
        if (*s == '\n') s++;
    }
    return 0;
}

int pl__read_net_dev(int rootfd, struct pl__netdevs *out)
{
    char buf[16384];
    char *heap = NULL;
    const char *text;
    ssize_t n = pl__io_read_text(rootfd, "proc/net/dev", buf, sizeof buf, &heap, &text);
    if (n < 0) return (int)n;
    int rc = pl__parse_net_dev(text, out);
    free(heap);
    return rc;
}

void pl__netdevs_free(struct pl__netdevs *s)
{
    free(s->d);
    memset(s, 0, sizeof *s);
}
