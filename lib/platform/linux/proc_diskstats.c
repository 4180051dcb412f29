/* perflib: /proc/diskstats (block device I/O statistics). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect_io.h"
#include "platform.h"

ssize_t pl__io_read_text(int dirfd, const char *rel, char *stackbuf, size_t cap, char **heap,
                         const char **text)
{
    *heap = NULL;
    ssize_t n = pl__read_at(dirfd, rel, stackbuf, cap);
    if (n < 0) return n;
    if ((size_t)n + 1 < cap) {
        *text = stackbuf;
        return n;
    }
    /* The stack buffer is full: the file may be longer. Read it whole (a
     * second read, so the text is one consistent read of the file). */
    n = pl__slurp_at(dirfd, rel, heap);
    if (n < 0) return n;
    *text = *heap;
    return n;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t nc = *cap ? *cap : 16;
    while (nc < need) {
        if (nc > ((size_t)1 << 20)) return -ENOMEM; /* a million devices: refuse */
        nc *= 2;
    }
    void *np = realloc(*p, nc * elem);
    if (!np) return -ENOMEM;
    *p = np;
    *cap = nc;
    return 0;
}

static int is_sp(char c)
{
    return c == ' ' || c == '\t';
}

/* Parse one unsigned decimal that must be followed by a blank or the end of
 * the line (so "12x" is malformed rather than 12). Reads nothing at or past
 * `end`: the line need not be NUL-terminated. */
static int field_u64(const char **p, const char *end, uint64_t *v)
{
    const char *s = *p;
    while (s < end && is_sp(*s)) s++;
    if (s >= end || *s < '0' || *s > '9') return 0;
    uint64_t x = 0;
    while (s < end && *s >= '0' && *s <= '9') {
        unsigned d = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - d) / 10) return 0; /* beyond 64 bits: malformed */
        x = x * 10 + d;
        s++;
    }
    if (s < end && !is_sp(*s)) return 0;
    *v = x;
    *p = s;
    return 1;
}

int pl__parse_diskstats_line(const char *line, size_t len, struct pl__diskstat *out)
{
    const char *end = line + len;
    if (len && end[-1] == '\n') end--;
    const char *p = line;
    uint64_t maj, min;
    if (!field_u64(&p, end, &maj) || maj > UINT32_MAX) return 0;
    if (!field_u64(&p, end, &min) || min > UINT32_MAX) return 0;
    while (p < end && is_sp(*p)) p++;
    const char *ns = p;
    while (p < end && !is_sp(*p)) {
        if ((unsigned char)*p < 0x20 || *p == 0x7f) return 0;
        p++;
    }
    size_t nl = (size_t)(p - ns);
    if (nl == 0 || nl >= PL__DISK_NAME_MAX) return 0;
    memset(out, 0, sizeof *out);
    out->major = (uint32_t)maj;
    out->minor = (uint32_t)min;
    memcpy(out->name, ns, nl);
    out->name[nl] = '\0';
    unsigned n = 0;
    uint64_t v;
    while (n < PL__DK_NFIELDS && field_u64(&p, end, &v)) out->f[n++] = v;
    while (p < end && is_sp(*p)) p++;
    if (p != end) return 0; /* extra or non-numeric columns */
    if (n != 11 && n != 15 && n != 17) return 0;
    out->nfields = n;
    return 1;
}

int pl__parse_diskstats(const char *text, struct pl__diskstats *out)
{
    out->n = 0;
    out->bad = 0;
    const char *s = text;
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        const char *q = s;
        while (q < s + len && is_sp(*q)) q++;
        if (q < s + len && !nl) {
            out->bad++; /* no newline: a truncated last line */
        } else if (q < s + len) {
            int rc = grow((void **)&out->d, &out->cap, out->n + 1, sizeof *out->d);
            if (rc) return rc;
            if (pl__parse_diskstats_line(s, len, &out->d[out->n])) out->n++;
            else out->bad++;
        }
        s += len;
        if (*s == '\n') s++;
    }
    return 0;
}

int pl__read_diskstats(int rootfd, struct pl__diskstats *out)
{
    char buf[16384];
    char *heap = NULL;
    const char *text;
    ssize_t n = pl__io_read_text(rootfd, "proc/diskstats", buf, sizeof buf, &heap, &text);
    if (n < 0) return (int)n;
    int rc = pl__parse_diskstats(text, out);
    free(heap);
    return rc;
}

void pl__diskstats_free(struct pl__diskstats *s)
{
    free(s->d);
    memset(s, 0, sizeof *s);
}
