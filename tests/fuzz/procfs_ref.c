/* The reference parsers of procfs_ref.h: the library's code before issue 17
 * (lib/platform/linux/proc_vmstat.c, proc_meminfo.c, proc_net_snmp.c at
 * f685cf3), renamed, otherwise unchanged. Do not "improve" this file: its
 * only job is to be the old behaviour. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "procfs_ref.h"
#include "platform.h"

static const char *const vm_keys[PL__VM_NFIELDS] = {
    [PL__VM_PGPGIN] = "pgpgin",   [PL__VM_PGPGOUT] = "pgpgout", [PL__VM_PSWPIN] = "pswpin",
    [PL__VM_PSWPOUT] = "pswpout", [PL__VM_PGFAULT] = "pgfault", [PL__VM_PGMAJFAULT] = "pgmajfault",
};

int ref_parse_proc_vmstat(const char *text, struct pl__vmstat *out)
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

static const char *const mem_keys[PL__MEM_NFIELDS] = {
    [PL__MEM_TOTAL] = "MemTotal",
    [PL__MEM_FREE] = "MemFree",
    [PL__MEM_AVAILABLE] = "MemAvailable",
    [PL__MEM_BUFFERS] = "Buffers",
    [PL__MEM_CACHED] = "Cached",
    [PL__MEM_SWAP_CACHED] = "SwapCached",
    [PL__MEM_ACTIVE] = "Active",
    [PL__MEM_INACTIVE] = "Inactive",
    [PL__MEM_SWAP_TOTAL] = "SwapTotal",
    [PL__MEM_SWAP_FREE] = "SwapFree",
    [PL__MEM_DIRTY] = "Dirty",
    [PL__MEM_WRITEBACK] = "Writeback",
    [PL__MEM_ANON_PAGES] = "AnonPages",
    [PL__MEM_MAPPED] = "Mapped",
    [PL__MEM_SHMEM] = "Shmem",
    [PL__MEM_SLAB] = "Slab",
    [PL__MEM_SRECLAIMABLE] = "SReclaimable",
    [PL__MEM_SUNRECLAIM] = "SUnreclaim",
    [PL__MEM_KERNEL_STACK] = "KernelStack",
    [PL__MEM_PAGE_TABLES] = "PageTables",
    [PL__MEM_COMMIT_LIMIT] = "CommitLimit",
    [PL__MEM_COMMITTED_AS] = "Committed_AS",
    [PL__MEM_HUGE_TOTAL] = "HugePages_Total",
    [PL__MEM_HUGE_FREE] = "HugePages_Free",
    [PL__MEM_HUGE_PAGE_SIZE] = "Hugepagesize",
    [PL__MEM_ACTIVE_FILE] = "Active(file)",
    [PL__MEM_INACTIVE_FILE] = "Inactive(file)",
};

int ref_parse_proc_meminfo(const char *text, struct pl__meminfo *out)
{
    memset(out, 0, sizeof *out);
    const char *s = text;
    while (*s) {
        const char *colon = s;
        while (*colon && *colon != ':' && *colon != '\n') colon++;
        if (*colon != ':' || colon == s) return -EINVAL;
        size_t kl = (size_t)(colon - s);
        const char *r = colon + 1;
        uint64_t v = 0;
        int ok = pl__parse_u64(&r, &v);
        while (ok && (*r == ' ' || *r == '\t')) r++;
        if (ok && r[0] == 'k' && r[1] == 'B') {
            if (v > UINT64_MAX / 1024) ok = 0; /* never a saturated number */
            else v *= 1024;
            r += 2;
        }
        while (ok && (*r == ' ' || *r == '\t')) r++;
        if (ok && *r != '\n' && *r != '\0') ok = 0;
        for (int f = 0; f < PL__MEM_NFIELDS; f++) {
            if (strlen(mem_keys[f]) != kl || memcmp(mem_keys[f], s, kl) != 0) continue;
            if (((out->have | out->bad) >> f) & 1u) return -EINVAL; /* a key twice */
            if (ok) {
                out->v[f] = v;
                out->have |= (uint64_t)1 << f;
            } else {
                out->bad |= (uint64_t)1 << f;
            }
            break;
        }
        pl__skip_line(&s);
    }
    if (!pl__mem_has(out, PL__MEM_TOTAL)) return -EINVAL;
    return 0;
}

static int add(struct ref_snmp *s, const char *proto, size_t pl, const char *name, size_t nl, int64_t v)
{
    if (pl >= sizeof s->e[0].proto || nl == 0 || nl >= sizeof s->e[0].name) {
        s->bad++;
        return 0;
    }
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 128;
        if (nc > 65536) return -ENOMEM; /* far beyond any real file */
        struct ref_snmp_entry *np = realloc(s->e, nc * sizeof *np);
        if (!np) return -ENOMEM;
        s->e = np;
        s->cap = nc;
    }
    struct ref_snmp_entry *e = &s->e[s->n++];
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

int ref_parse_net_snmp(const char *text, struct ref_snmp *out)
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

int ref_parse_net_snmp6(const char *text, struct ref_snmp *out)
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

int ref_snmp_get(const struct ref_snmp *s, const char *proto, const char *name, int64_t *v)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->e[i].name, name) == 0 && strcmp(s->e[i].proto, proto) == 0) {
            *v = s->e[i].value;
            return 1;
        }
    return 0;
}

void ref_snmp_free(struct ref_snmp *s)
{
    free(s->e);
    memset(s, 0, sizeof *s);
}
