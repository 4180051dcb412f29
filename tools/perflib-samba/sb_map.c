/* perflib-samba: the index map's text form (sb_layout.h, docs/samba.md "The
 * numbering"). It is read back from names.tdb at start-up, so it is parsed
 * as hostile input: tests/fuzz/fuzz_samba_layout.c feeds it garbage. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb_layout.h"
#include "sb_util.h"

#define MAP_MAGIC "perflib-samba map 1"

void sb_map_free(sb_map *m)
{
    if (!m) return;
    free(m->v);
    m->v = NULL;
    m->n = m->cap = 0;
}

static int fail(char *why, size_t cap, const char *msg, unsigned line)
{
    if (why && cap) snprintf(why, cap, "line %u: %s", line, msg);
    return -1;
}

/* A decimal number of at most 10 digits (no sign, no leading '+'), ending at
 * a space or the end of the line; *p advances past it and one space. */
static int number(const char **p, const char *end, uint32_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    size_t n = 0;
    while (s < end && *s >= '0' && *s <= '9' && n < 11) {
        v = v * 10 + (uint64_t)(*s - '0');
        s++;
        n++;
    }
    if (n == 0 || n > 10 || v > UINT32_MAX) return -1;
    if (s < end) {
        if (*s != ' ') return -1;
        s++;
    }
    *p = s;
    *out = (uint32_t)v;
    return 0;
}

static int slot_cmp_index(const void *a, const void *b)
{
    const sb_slot *x = a, *y = b;
    return x->index < y->index ? -1 : x->index > y->index;
}

int sb_slot_cmp_identity(const void *a, const void *b)
{
    const sb_slot *x = a, *y = b;
    if (x->obj != y->obj) return x->obj < y->obj ? -1 : 1;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    if (x->ctr != y->ctr) return x->ctr < y->ctr ? -1 : 1;
    if (x->occ != y->occ) return x->occ < y->occ ? -1 : 1;
    return 0;
}

int sb_map_parse(const char *text, size_t len, sb_map *out, char *why, size_t cap)
{
    memset(out, 0, sizeof *out);
    if (why && cap) why[0] = '\0';
    const char *p = text, *end = text + len;
    const char *nl = memchr(p, '\n', len);
    size_t mlen = strlen(MAP_MAGIC);
    if (!nl || (size_t)(nl - p) != mlen || memcmp(p, MAP_MAGIC, mlen) != 0)
        return fail(why, cap, "not a perflib-samba map (version 1)", 1);
    p = nl + 1;
    sb_map m = {0};
    unsigned line = 1;
    while (p < end) {
        line++;
        nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) {
            sb_map_free(&m);
            return fail(why, cap, "no line end", line);
        }
        const char *q = p;
        sb_slot s;
        memset(&s, 0, sizeof s);
        uint32_t kind = 0;
        int ok = number(&q, nl, &s.index) == 0 && q + 2 <= nl && q[1] == ' ';
        if (ok) {
            kind = (unsigned char)q[0];
            q += 2;
            ok = number(&q, nl, &s.obj) == 0 && number(&q, nl, &s.ctr) == 0 && number(&q, nl, &s.occ) == 0 &&
                 number(&q, nl, &s.help) == 0 && q == nl && nl[-1] != ' ';
        }
        s.kind = (char)kind;
        if (!ok) {
            sb_map_free(&m);
            return fail(why, cap, "not \"INDEX KIND OBJECT COUNTER OCCURRENCE HELP\"", line);
        }
        if (s.index < 2 || s.index > SB_INDEX_MAX || (s.index & 1u)) {
            sb_map_free(&m);
            return fail(why, cap, "index not even in 2..1073741822", line);
        }
        if (s.kind == SB_KIND_OBJECT ? (s.ctr != 0 || s.occ != 0)
                                     : (s.kind != SB_KIND_COUNTER && s.kind != SB_KIND_BASE)) {
            sb_map_free(&m);
            return fail(why, cap, "unknown kind, or an object with a counter", line);
        }
        if (sb_grow((void **)&m.v, &m.cap, m.n + 1, sizeof *m.v) != 0) {
            sb_map_free(&m);
            return fail(why, cap, "no memory", line);
        }
        m.v[m.n++] = s;
        p = nl + 1;
    }
    /* Every index and every slot once. */
    sb_slot *copy = m.n ? malloc(m.n * sizeof *copy) : NULL;
    if (m.n && !copy) {
        sb_map_free(&m);
        return fail(why, cap, "no memory", line);
    }
    if (m.n) memcpy(copy, m.v, m.n * sizeof *copy);
    int dup = 0;
    if (m.n) {
        qsort(copy, m.n, sizeof *copy, slot_cmp_index);
        for (size_t i = 1; i < m.n && !dup; i++)
            if (copy[i].index == copy[i - 1].index) dup = 1;
        qsort(copy, m.n, sizeof *copy, sb_slot_cmp_identity);
        for (size_t i = 1; i < m.n && !dup; i++)
            if (sb_slot_cmp_identity(&copy[i], &copy[i - 1]) == 0) dup = 2;
    }
    free(copy);
    if (dup) {
        sb_map_free(&m);
        return fail(why, cap, dup == 1 ? "an index is used twice" : "a slot is named twice",
                    line);
    }
    *out = m;
    return 0;
}

char *sb_map_format(const sb_map *m, size_t *len)
{
    /* 10 digits per number, 5 numbers, a kind, spaces and a line end */
    size_t cap = strlen(MAP_MAGIC) + 2 + m->n * 64;
    char *s = malloc(cap);
    if (!s) return NULL;
    size_t n = (size_t)snprintf(s, cap, "%s\n", MAP_MAGIC);
    for (size_t i = 0; i < m->n; i++) {
        const sb_slot *x = &m->v[i];
        n += (size_t)snprintf(s + n, cap - n, "%u %c %u %u %u %u\n", x->index, x->kind, x->obj, x->ctr, x->occ,
                              x->help);
    }
    if (len) *len = n;
    return s;
}
