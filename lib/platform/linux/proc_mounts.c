/* perflib: /proc/self/mountinfo and /proc/mounts (mounted filesystems). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect_io.h"
#include "platform.h"

static int grow(struct pl__mounts *m)
{
    if (m->n < m->cap) return 0;
    size_t nc = m->cap ? m->cap * 2 : 16;
    if (nc > ((size_t)1 << 20)) return -ENOMEM;
    struct pl__mount *np = realloc(m->m, nc * sizeof *np);
    if (!np) return -ENOMEM;
    m->m = np;
    m->cap = nc;
    return 0;
}

static int odigit(char c)
{
    return c >= '0' && c <= '7';
}

int pl__mount_unescape(const char *in, size_t len, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        char c = in[i];
        if (c == '\\' && i + 3 < len && odigit(in[i + 1]) &&
            odigit(in[i + 2]) && odigit(in[i + 3])) {
            unsigned v = (unsigned)(in[i + 1] - '0') * 64 + (unsigned)(in[i + 2] - '0') * 8 +
                         (unsigned)(in[i + 3] - '0');
            if (v == 0 || v > 255) return -EINVAL;
            c = (char)v;
            i += 3;
        }
        if (o + 1 >= cap) return -ENAMETOOLONG;
        out[o++] = c;
    }
    if (cap == 0) return -ENAMETOOLONG;
    out[o] = '\0';
    return 0;
}

/* Split the next blank-separated word of [*p, end). */
static int word(const char **p, const char *end, const char **ws, size_t *wl)
{
    const char *s = *p;
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    if (s >= end) return 0;
    const char *e = s;
    while (e < end && *e != ' ' && *e != '\t') e++;
    *ws = s;
    *wl = (size_t)(e - s);
    *p = e;
    return 1;
}

static int parse_u32_word(const char *s, size_t l, uint32_t *v)
{
    if (l == 0 || l > 10) return 0;
    uint64_t x = 0;
    for (size_t i = 0; i < l; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        x = x * 10 + (uint64_t)(s[i] - '0');
    }
    if (x > UINT32_MAX) return 0;
    *v = (uint32_t)x;
    return 1;
}

static int parse_mountinfo_line(const char *s, const char *end, struct pl__mount *m)
{
    const char *w;
    size_t wl;
    uint32_t tmp;
    memset(m, 0, sizeof *m);
    if (!word(&s, end, &w, &wl) || !parse_u32_word(w, wl, &tmp)) return 0; /* mount id */
    if (!word(&s, end, &w, &wl) || !parse_u32_word(w, wl, &tmp)) return 0; /* parent id */
    if (!word(&s, end, &w, &wl)) return 0;                                  /* major:minor */
    const char *colon = memchr(w, ':', wl);
    if (!colon || !parse_u32_word(w, (size_t)(colon - w), &m->major) ||
        !parse_u32_word(colon + 1, wl - (size_t)(colon - w) - 1, &m->minor))
        return 0;
    m->have_devno = 1;
    if (!word(&s, end, &w, &wl)) return 0; /* root */
    m->root_is_slash = (wl == 1 && w[0] == '/');
    if (!word(&s, end, &w, &wl)) return 0; /* mount point */
    if (pl__mount_unescape(w, wl, m->mountpoint, sizeof m->mountpoint) < 0 || m->mountpoint[0] != '/')
        return 0;
    if (!word(&s, end, &w, &wl)) return 0; /* mount options */
    for (;;) {                              /* optional fields up to "-" */
        if (!word(&s, end, &w, &wl)) return 0;
        if (wl == 1 && w[0] == '-') break;
    }
    if (!word(&s, end, &w, &wl) || wl >= sizeof m->fstype) return 0; /* fs type */
    memcpy(m->fstype, w, wl);
    m->fstype[wl] = '\0';
    if (!word(&s, end, &w, &wl)) return 0; /* source */
    if (pl__mount_unescape(w, wl, m->source, sizeof m->source) < 0) return 0;
    return 1;
}

static int parse_mounts_line(const char *s, const char *end, struct pl__mount *m)
{
    const char *w;
    size_t wl;
    memset(m, 0, sizeof *m);
    m->root_is_slash = 1;
    if (!word(&s, end, &w, &wl)) return 0;
    if (pl__mount_unescape(w, wl, m->source, sizeof m->source) < 0) return 0;
    if (!word(&s, end, &w, &wl)) return 0;
    if (pl__mount_unescape(w, wl, m->mountpoint, sizeof m->mountpoint) < 0 || m->mountpoint[0] != '/')
        return 0;
    if (!word(&s, end, &w, &wl) || wl >= sizeof m->fstype) return 0;
    memcpy(m->fstype, w, wl);
    m->fstype[wl] = '\0';
    if (!word(&s, end, &w, &wl)) return 0; /* options must be there */
    return 1;
}

static int parse_lines(const char *text, struct pl__mounts *out,
                       int (*fn)(const char *, const char *, struct pl__mount *))
{
    out->n = 0;
    out->bad = 0;
    const char *s = text;
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        const char *q = s;
        while (q < s + len && (*q == ' ' || *q == '\t')) q++;
        if (q < s + len) {
            int rc = grow(out);
            if (rc) return rc;
            if (nl && fn(s, s + len, &out->m[out->n])) out->n++;
            else out->bad++;
        }
        s += len;
        if (*s == '\n') s++;
    }
    return 0;
}

int pl__parse_mountinfo(const char *text, struct pl__mounts *out)
{
    return parse_lines(text, out, parse_mountinfo_line);
}

int pl__parse_mounts(const char *text, struct pl__mounts *out)
{
    return parse_lines(text, out, parse_mounts_line);
}

int pl__read_mounts(int rootfd, struct pl__mounts *out)
{
    char buf[16384];
    char *heap = NULL;
    const char *text;
    ssize_t n = pl__io_read_text(rootfd, "proc/self/mountinfo", buf, sizeof buf, &heap, &text);
    if (n >= 0) {
        int rc = pl__parse_mountinfo(text, out);
        free(heap);
        return rc;
    }
    static const char *const plain[] = {"proc/self/mounts", "proc/mounts"};
    for (size_t i = 0; i < 2; i++) {
        n = pl__io_read_text(rootfd, plain[i], buf, sizeof buf, &heap, &text);
        if (n < 0) continue;
        int rc = pl__parse_mounts(text, out);
        free(heap);
        return rc;
    }
    return (int)n;
}

void pl__mounts_free(struct pl__mounts *s)
{
    free(s->m);
    memset(s, 0, sizeof *s);
}
