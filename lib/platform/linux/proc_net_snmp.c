/* perflib: /proc/net/snmp and /proc/net/snmp6 (IP, ICMP, TCP, UDP MIBs).
 *
 * Both parsers make one pass over each line, validating every word as they
 * go, and end with a hash index of the entries so that a lookup by
 * protocol and name is one probe rather than a scan of every entry with
 * strcmp (issue 17: PerfNet looks up some forty counters per collect). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect_io.h"
#include "platform.h"

/* The index's hash of a key, over the zero-padded fields of an entry: the
 * protocol's two words and the name's six, each times its own odd
 * constant (independent multiplies), then mixed. Fixed-size loads
 * whatever the key (a byte-by-byte hash made the parse several times
 * slower); computed when the index is built, not as the entry is written
 * (reading back just-written bytes stalls). Equal keys hash alike; lookups
 * still compare the strings. */
static inline uint64_t load8(const char *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

static inline uint32_t key_hash(const struct pl__snmp_entry *e)
{
    uint64_t h = load8(e->proto) * 0x9e3779b97f4a7c15ull + load8(e->proto + 8) * 0xc2b2ae3d27d4eb4full +
                 load8(e->name) * 0x165667b19e3779f9ull + load8(e->name + 8) * 0xd6e8feb86659fd93ull +
                 load8(e->name + 16) * 0xff51afd7ed558ccdull + load8(e->name + 24) * 0xc4ceb9fe1a85ec53ull +
                 load8(e->name + 32) * 0x94d049bb133111ebull + load8(e->name + 40) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    h *= 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    return (uint32_t)h;
}

/* Fill e's key fields, zero-padded (the hash reads whole words). */
static inline void set_key(struct pl__snmp_entry *e, const char *proto, size_t pl, const char *name, size_t nl)
{
    memset(e->proto, 0, sizeof e->proto);
    memset(e->name, 0, sizeof e->name);
    memcpy(e->proto, proto, pl);
    memcpy(e->name, name, nl);
}

uint32_t pl__snmp_hash(const char *proto, const char *name)
{
    struct pl__snmp_entry k;
    size_t pl = strlen(proto), nl = strlen(name);
    if (pl >= sizeof k.proto || nl >= sizeof k.name) return 0; /* never an entry */
    set_key(&k, proto, pl, name, nl);
    return key_hash(&k);
}

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
    set_key(e, proto, pl, name, nl);
    e->value = v;
    return 0;
}

static inline int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* A name byte: a letter, a digit or '_' (a table: one load per byte). */
#define NB(c) (((c) >= '0' && (c) <= '9') || ((c) >= 'A' && (c) <= 'Z') || ((c) >= 'a' && (c) <= 'z') || (c) == '_')
#define NB4(c) NB(c), NB((c) + 1), NB((c) + 2), NB((c) + 3)
#define NB16(c) NB4(c), NB4((c) + 4), NB4((c) + 8), NB4((c) + 12)
static const unsigned char name_byte[256] = {
    NB16(0),   NB16(16),  NB16(32),  NB16(48),  NB16(64),  NB16(80),  NB16(96),  NB16(112),
    NB16(128), NB16(144), NB16(160), NB16(176), NB16(192), NB16(208), NB16(224), NB16(240),
};

static inline int is_name(char c)
{
    return name_byte[(unsigned char)c];
}

/* Does a word (a run of non-blank bytes) end at p? The caller's line ends
 * at a '\n' (or, for snmp6's last line, the NUL) with no NUL before it. */
static inline int word_ends(const char *p)
{
    return *p == ' ' || *p == '\t' || *p == '\n' || *p == '\0';
}

static inline const char *skip_word(const char *p)
{
    while (!word_ends(p)) p++;
    return p;
}

/* A name word at p: name bytes only. Sets *end past the word (valid or
 * not); returns 1 when valid. */
static inline int name_word(const char *p, const char **end)
{
    const char *q = p;
    while (is_name(*q)) q++;
    if (q == p || !word_ends(q)) {
        *end = skip_word(q);
        return 0;
    }
    *end = q;
    return 1;
}

/* A value word at p: an optional '-' and digits, nothing else, within 64
 * bits before the sign (as pl__parse_i64: beyond INT64_MAX it is clamped
 * to INT64_MAX, or INT64_MIN when negative). Sets *end past the word. */
static inline int value_word(const char *p, const char **end, int64_t *v)
{
    const char *q = p;
    int neg = *q == '-';
    q += neg;
    unsigned d = (unsigned)(unsigned char)*q - '0';
    if (d > 9) {
        *end = skip_word(q);
        return 0;
    }
    uint64_t u = 0;
    do {
        if (u >= UINT64_MAX / 10 && (u > UINT64_MAX / 10 || d > UINT64_MAX % 10)) {
            *end = skip_word(q); /* beyond 64 bits */
            return 0;
        }
        u = u * 10 + d;
        d = (unsigned)(unsigned char)*++q - '0';
    } while (d <= 9);
    if (!word_ends(q)) {
        *end = skip_word(q);
        return 0;
    }
    *end = q;
    if (u > (uint64_t)INT64_MAX) u = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    *v = neg ? (int64_t)(0 - u) : (int64_t)u;
    return 1;
}

static inline const char *skip_blank(const char *p)
{
    while (is_blank(*p)) p++;
    return p;
}

/* "Proto:" at the start of a line: name bytes up to the line's first ':'.
 * Sets *pl to the protocol's length and *rest after the colon. */
static int line_proto(const char *s, size_t *pl, const char **rest)
{
    const char *q = s;
    while (is_name(*q)) q++;
    if (*q != ':' || q == s) return 0;
    *pl = (size_t)(q - s);
    *rest = q + 1;
    return 1;
}

/* The index: open addressing over a power-of-two table, each entry once
 * (the first of equal keys, as a scan would find). Without it (no memory)
 * lookups scan. */
static void build_index(struct pl__snmp *s)
{
    s->nslot = 0;
    for (size_t i = 0; i < s->n; i++) s->e[i].hash = key_hash(&s->e[i]);
    size_t ns = 16;
    while (ns < 2 * s->n) ns *= 2;
    if (ns > s->slot_cap) {
        free(s->slot);
        s->slot = malloc(ns * sizeof *s->slot);
        s->slot_cap = s->slot ? ns : 0;
        if (!s->slot) return;
    }
    memset(s->slot, 0, ns * sizeof *s->slot);
    size_t mask = ns - 1;
    for (size_t i = 0; i < s->n; i++) {
        const struct pl__snmp_entry *e = &s->e[i];
        size_t j = e->hash & mask;
        int dup = 0;
        for (; s->slot[j].pos; j = (j + 1) & mask) {
            const struct pl__snmp_entry *o = &s->e[s->slot[j].pos - 1];
            if (s->slot[j].hash == e->hash && strcmp(o->name, e->name) == 0 && strcmp(o->proto, e->proto) == 0) {
                dup = 1;
                break;
            }
        }
        if (dup) continue;
        s->slot[j].hash = e->hash;
        s->slot[j].pos = (uint32_t)(i + 1);
    }
    s->nslot = ns;
}

/* The words of a header line (h..) and its value line (v..), in step.
 * Returns 0 (entries added, bad words counted), 1 when the lines have
 * different word counts or none (nothing added: the caller counts the
 * pair bad), or -ENOMEM. */
static int add_pair(struct pl__snmp *out, const char *proto, size_t pl, const char *h, const char *v)
{
    size_t n0 = out->n, bad0 = out->bad, words = 0;
    int rc = 0;
    for (;;) {
        h = skip_blank(h);
        v = skip_blank(v);
        int hend = *h == '\n', vend = *v == '\n';
        if (hend || vend) {
            if (hend != vend || words == 0) break; /* a mismatch */
            if (rc) return rc;
            return 0;
        }
        words++;
        const char *he, *ve;
        int64_t val;
        int okn = name_word(h, &he);
        int okv = value_word(v, &ve, &val);
        if (rc == 0) {
            if (okn && okv) rc = add(out, proto, pl, h, (size_t)(he - h), val);
            else out->bad++;
        }
        h = he;
        v = ve;
    }
    /* Different counts: nothing of this pair is kept, even what was added
     * before the shorter line ended (or before memory ran out). */
    out->n = n0;
    out->bad = bad0;
    return 1;
}

int pl__parse_net_snmp(const char *text, struct pl__snmp *out)
{
    out->n = 0;
    out->bad = 0;
    out->nslot = 0;
    const char *s = text;
    while (*s) {
        /* A header line and the value line that must follow it. */
        const char *nl1 = strchr(s, '\n');
        if (!nl1) {
            if (*skip_blank(s)) out->bad++;
            break;
        }
        if (skip_blank(s) == nl1) {
            s = nl1 + 1;
            continue;
        }
        const char *hrest, *vrest;
        size_t hpl, vpl;
        if (!line_proto(s, &hpl, &hrest)) {
            out->bad++;
            s = nl1 + 1;
            continue;
        }
        const char *v = nl1 + 1;
        const char *nl2 = strchr(v, '\n');
        if (!nl2 || !line_proto(v, &vpl, &vrest) || vpl != hpl || memcmp(v, s, hpl) != 0) {
            /* No value line for this header: skip the header alone. */
            out->bad++;
            s = nl1 + 1;
            continue;
        }
        int rc = add_pair(out, s, hpl, hrest, vrest);
        if (rc < 0) return rc;
        if (rc > 0) out->bad++;
        s = nl2 + 1;
    }
    build_index(out);
    return 0;
}

int pl__parse_net_snmp6(const char *text, struct pl__snmp *out)
{
    out->n = 0;
    out->bad = 0;
    out->nslot = 0;
    const char *s = text;
    while (*s) {
        /* "Name value" and optional blanks, then the line's '\n' */
        const char *p = skip_blank(s);
        if (*p == '\n') {
            s = p + 1;
            continue;
        }
        if (*p == '\0') break;
        const char *ne, *ve = p;
        int64_t x;
        int ok = name_word(p, &ne) && is_blank(*ne);
        if (ok) ok = value_word(skip_blank(ne), &ve, &x);
        if (ok) {
            ve = skip_blank(ve);
            ok = *ve == '\n';
        }
        if (ok) {
            int rc = add(out, "", 0, p, (size_t)(ne - p), x);
            if (rc) return rc;
            s = ve + 1;
            continue;
        }
        out->bad++;
        const char *nl = strchr(p, '\n');
        if (!nl) break;
        s = nl + 1;
    }
    build_index(out);
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
    free(s->slot);
    memset(s, 0, sizeof *s);
}

int pl__snmp_find(const struct pl__snmp *s, uint32_t hash, const char *proto, const char *name, int64_t *v)
{
    if (s->nslot == 0) {
        for (size_t i = 0; i < s->n; i++)
            if (strcmp(s->e[i].name, name) == 0 && strcmp(s->e[i].proto, proto) == 0) {
                *v = s->e[i].value;
                return 1;
            }
        return 0;
    }
    size_t mask = s->nslot - 1;
    for (size_t j = hash & mask; s->slot[j].pos; j = (j + 1) & mask) {
        const struct pl__snmp_entry *e = &s->e[s->slot[j].pos - 1];
        if (s->slot[j].hash == hash && strcmp(e->name, name) == 0 && strcmp(e->proto, proto) == 0) {
            *v = e->value;
            return 1;
        }
    }
    return 0;
}

int pl__snmp_get(const struct pl__snmp *s, const char *proto, const char *name, int64_t *v)
{
    return pl__snmp_find(s, pl__snmp_hash(proto, name), proto, name, v);
}
