/* perflib: /proc/net/snmp and /proc/net/snmp6 (IP, ICMP, TCP, UDP MIBs). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect_io.h"
#include "platform.h"

static int add(struct pl__snmp *s, const char *proto, size_t pl, const char *name, size_t nl, int64_t v)
{
    if (pl >= sizeof s->e[0].proto || nl == 0 || nl >= sizeof s->e[0].name) {
        s->bad++;
        return 0;
    }
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 128;
        if (nc > 65536) return -ENOMEM; /* far beyond any real file */
        struct pl__snmp_entry *np = realloc(s->e, nc * sizeof *np);
        if (!np) return -ENOMEM;
        s->e = np;
        s->cap = nc;
    }
    struct pl__snmp_entry *e = &s->e[s->n++];
    memcpy(e->proto, proto, pl);
    e->proto[pl] = '\0';
    memcpy(e->name, name, nl);
    e->name[nl] = '\0';
    e->value = v;
    return 0;
}

static const char *skip_blank(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    return p;
}

static const char *word_end(const char *p, const char *end)
{
    while (p < end && *p != ' ' && *p != '\t') p++;
    return p;
}

/* A value word: an optional '-' and digits, nothing else. */
static int value_word(const char *w, const char *e, int64_t *v)
{
    const char *p = w;
    if (p < e && *p == '-') p++;
    if (p >= e) return 0;
    for (const char *q = p; q < e; q++)
        if (*q < '0' || *q > '9') return 0;
    const char *q = w;
    if (!pl__parse_i64(&q, v)) return 0;
    return q == e;
}

static int name_word(const char *w, const char *e)
{
    if (w >= e) return 0;
    for (const char *q = w; q < e; q++) {
        char c = *q;
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return 0;
    }
    return 1;
}

/* Split a line into "Proto:" and the rest. */
static int line_proto(const char *s, const char *end, const char **proto, size_t *pl, const char **rest)
{
    const char *colon = memchr(s, ':', (size_t)(end - s));
    if (!colon || colon == s) return 0;
    if (!name_word(s, colon)) return 0;
    *proto = s;
    *pl = (size_t)(colon - s);
    *rest = colon + 1;
    return 1;
}

static size_t count_words(const char *p, const char *end)
{
    size_t n = 0;
    for (;;) {
        p = skip_blank(p, end);
        if (p >= end) return n;
        p = word_end(p, end);
        n++;
    }
}

int pl__parse_net_snmp(const char *text, struct pl__snmp *out)
{
    out->n = 0;
    out->bad = 0;
    const char *s = text;
    while (*s) {
        /* A header line and the value line that must follow it. */
        const char *nl1 = strchr(s, '\n');
        if (!nl1) {
            if (*skip_blank(s, s + strlen(s))) out->bad++;
            break;
        }
        if (skip_blank(s, nl1) == nl1) {
            s = nl1 + 1;
            continue;
        }
        const char *hp, *hrest;
        size_t hpl;
        if (!line_proto(s, nl1, &hp, &hpl, &hrest)) {
            out->bad++;
            s = nl1 + 1;
            continue;
        }
        const char *v = nl1 + 1;
        const char *nl2 = strchr(v, '\n');
        const char *vp, *vrest;
        size_t vpl;
        if (!nl2 || !line_proto(v, nl2, &vp, &vpl, &vrest) || vpl != hpl || memcmp(vp, hp, hpl) != 0) {
            /* No value line for this header: skip the header alone. */
            out->bad++;
            s = nl1 + 1;
            continue;
        }
        size_t nh = count_words(hrest, nl1), nv = count_words(vrest, nl2);
        if (nh == 0 || nh != nv) {
            out->bad++;
            s = nl2 + 1;
            continue;
        }
        const char *hq = hrest, *vq = vrest;
        for (size_t i = 0; i < nh; i++) {
            hq = skip_blank(hq, nl1);
            const char *he = word_end(hq, nl1);
            vq = skip_blank(vq, nl2);
            const char *ve = word_end(vq, nl2);
            int64_t x;
            if (name_word(hq, he) && value_word(vq, ve, &x)) {
                int rc = add(out, hp, hpl, hq, (size_t)(he - hq), x);
                if (rc) return rc;
            } else {
                out->bad++;
            }
            hq = he;
            vq = ve;
        }
        s = nl2 + 1;
    }
    return 0;
}

int pl__parse_net_snmp6(const char *text, struct pl__snmp *out)
{
    out->n = 0;
    out->bad = 0;
    const char *s = text;
    while (*s) {
        const char *nl = strchr(s, '\n');
        const char *end = nl ? nl : s + strlen(s);
        const char *p = skip_blank(s, end);
        if (p < end) {
            const char *ne = word_end(p, end);
            const char *vs = skip_blank(ne, end);
            const char *ve = word_end(vs, end);
            int64_t x;
            if (nl && name_word(p, ne) && value_word(vs, ve, &x) && skip_blank(ve, end) == end) {
                int rc = add(out, "", 0, p, (size_t)(ne - p), x);
                if (rc) return rc;
            } else {
                out->bad++;
            }
        }
        s = nl ? nl + 1 : end;
    }
    return 0;
}

static int read_file(int rootfd, const char *rel, struct pl__snmp *out, int (*fn)(const char *, struct pl__snmp *))
{
    char buf[16384];
    char *heap = NULL;
    const char *text;
    ssize_t n = pl__io_read_text(rootfd, rel, buf, sizeof buf, &heap, &text);
    if (n < 0) return (int)n;
    int rc = fn(text, out);
    free(heap);
    return rc;
}

int pl__read_net_snmp(int rootfd, struct pl__snmp *out)
{
    return read_file(rootfd, "proc/net/snmp", out, pl__parse_net_snmp);
}

int pl__read_net_snmp6(int rootfd, struct pl__snmp *out)
{
    return read_file(rootfd, "proc/net/snmp6", out, pl__parse_net_snmp6);
}

void pl__snmp_free(struct pl__snmp *s)
{
    free(s->e);
    memset(s, 0, sizeof *s);
}

int pl__snmp_get(const struct pl__snmp *s, const char *proto, const char *name, int64_t *v)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->e[i].name, name) == 0 && strcmp(s->e[i].proto, proto) == 0) {
            *v = s->e[i].value;
            return 1;
        }
    return 0;
}
