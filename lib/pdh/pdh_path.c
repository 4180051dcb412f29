/* PDH counter paths: split, parse into a caller buffer, make.
 *
 * Grammar (docs/pdh.md):
 *   path     = [ "\\" machine ] "\" object [ "(" [ parent "/" ] instance [ "#" digits ] ")" ] "\" counter
 * - the counter is everything after the LAST backslash (counter names never
 *   hold one); the object part runs from its backslash to that last one;
 * - an instance list starts at the FIRST '(' of the object part and must end
 *   with the ')' right before the counter's backslash, so an instance name may
 *   itself hold parentheses and backslashes: \Process(foo (1))\ID Process;
 * - parent is what precedes the first '/' of the instance list, when text
 *   stands on both sides of it (else there is no parent); "#digits" at
 *   the end is the 0-based duplicate index (#0 is the same as no suffix);
 * - '*' in an instance or parent name is a wildcard for any run of
 *   characters ("*", "svc*", "*host"); the counter may only be "*" as a
 *   whole, the object and machine never hold one;
 * - an instance name that itself ends in "#digits" (a process "x#1") is
 *   written with its index even when it is 0 ("x#1#0"), so make -> parse
 *   gives every name back. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdh_internal.h"

uint32_t pl__pdh_fail(pl_error *err, uint32_t status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->status = (int)status;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return status;
}

static int has_star(const char *s, size_t n)
{
    return memchr(s, '*', n) != NULL;
}

/* Copy [s, s+n) into the arena at *w, NUL-terminated; return its start. */
static char *put(char **w, const char *s, size_t n)
{
    char *r = *w;
    memcpy(r, s, n);
    r[n] = '\0';
    *w += n + 1;
    return r;
}

uint32_t pl__pdh_split(const char *path, pl__pdh_path *p, pl_error *err)
{
    memset(p, 0, sizeof *p);
    if (!path || !*path) return pl__pdh_fail(err, PL_PDH_INVALID_ARGUMENT, "counter path is NULL or empty");
    size_t len = strlen(path);
    if (path[0] != '\\')
        return pl__pdh_fail(err, PL_PDH_CSTATUS_BAD_COUNTERNAME, "counter path \"%s\" does not start with '\\'", path);
    const char *s = path, *end = path + len;
    const char *mach = NULL;
    size_t mlen = 0;
    if (s[1] == '\\') {
        mach = s + 2;
        const char *bs = memchr(mach, '\\', (size_t)(end - mach));
        if (!bs || bs == mach)
            return pl__pdh_fail(err, PL_PDH_CSTATUS_BAD_COUNTERNAME,
                                "counter path \"%s\": %s", path, bs ? "empty machine name" : "no object after the machine name");
        mlen = (size_t)(bs - mach);
        if (has_star(mach, mlen))
            return pl__pdh_fail(err, PL_PDH_CSTATUS_BAD_COUNTERNAME, "counter path \"%s\": wildcard machine name", path);
        s = bs;
    }
    /* s points at the object's backslash. */
    const char *objs = s + 1;
    const char *last = NULL;
    for (const char *q = end; q > objs;) {
        q--;
        if (*q == '\\') { last = q; break; }
    }
    if (!last)
        return pl__pdh_fail(err, PL_PDH_CSTATUS_BAD_COUNTERNAME, "counter path \"%s\" has no second '\\' before a counter", path);
    const char *ctr = last + 1;
    size_t clen = (size_t)(end - ctr);
    if (clen == 0) return pl__pdh_fail(err, PL_PDH_CSTATUS_BAD_COUNTERNAME, "counter path \"%s\": empty counter name", path);
    const char *paren = memchr(objs, '(', (size_t)(last - objs));
    const char *obje = paren ? paren : last;
    size_t olen = (size_t)(obje - objs);
    if (olen == 0) return pl__pdh_fail(err, PL_PDH_CSTATUS_BAD_COUNTERNAME, "counter path \"%s\": empty object name", path);
    if (has_star(objs, olen))
        return pl__pdh_fail(err, PL_PDH_CSTATUS_BAD_COUNTERNAME, "counter path \"%s\": wildcards are not allowed in the object name", path);
    if (memchr(objs, ')', olen))
        return pl__pdh_fail(err, PL_PDH_CSTATUS_BAD_COUNTERNAME, "counter path \"%s\": ')' without '(' in the object name", path);
    if (clen > 1 && has_star(ctr, clen))
        return pl__pdh_fail(err, PL_PDH_CSTATUS_BAD_COUNTERNAME, "counter path \"%s\": partial wildcard in the counter name", path);

    const char *par = NULL, *inst = NULL;
    size_t plen = 0, ilen = 0;
    uint32_t index = 0;
    if (paren) {
        if (last[-1] != ')' || last - 1 <= paren)
            return pl__pdh_fail(err, PL_PDH_CSTATUS_BAD_COUNTERNAME,
                                "counter path \"%s\": the instance list must end with ')' right before the counter's '\\'", path);
        const char *is = paren + 1, *ie = last - 1;
        if (ie == is) return pl__pdh_fail(err, PL_PDH_CSTATUS_BAD_COUNTERNAME, "counter path \"%s\": empty instance name", path);
        /* Linux instance names may hold '/' themselves (a mount point "/",
         * a swap file "/dev/sda2", a process "kworker/0:1"): a '/' splits off
         * a parent only when text stands on both sides of it; otherwise the
         * whole text is the instance name. Matching then tries parent/name
         * against full names and the text against own names. */
        const char *slash = memchr(is, '/', (size_t)(ie - is));
        if (slash && slash > is && slash + 1 < ie) {
            par = is;
            plen = (size_t)(slash - is);
            is = slash + 1;
        }
        /* a trailing "#digits" is the duplicate index */
        const char *h = ie;
        while (h > is && h[-1] >= '0' && h[-1] <= '9') h--;
        if (h < ie && h - 1 > is && h[-1] == '#') { /* "#1" alone is a name */
            uint64_t v = 0;
            for (const char *d = h; d < ie; d++) {
                v = v * 10u + (uint64_t)(*d - '0');
                if (v > 0xFFFFFFFFu)
                    return pl__pdh_fail(err, PL_PDH_CSTATUS_BAD_COUNTERNAME, "counter path \"%s\": instance index too large", path);
            }
            index = (uint32_t)v;
            ie = h - 1;
        }
        inst = is;
        ilen = (size_t)(ie - is);
        if (ilen == 0) return pl__pdh_fail(err, PL_PDH_CSTATUS_BAD_COUNTERNAME, "counter path \"%s\": empty instance name", path);
        /* partial wildcards ("svc*", "*host", "s*c") match names as Windows
         * PDH does; they match every duplicate, so no "#n" after one */
        if (index && has_star(inst, ilen))
            return pl__pdh_fail(err, PL_PDH_CSTATUS_BAD_COUNTERNAME,
                                "counter path \"%s\": an instance wildcard takes no \"#n\" index", path);
    }
    char *mem = malloc(len + 6);
    if (!mem) return pl__pdh_fail(err, PL_PDH_MEMORY_ALLOCATION_FAILURE, "out of memory");
    char *w = mem;
    p->mem = mem;
    if (mach) p->e.machine = put(&w, mach, mlen);
    p->e.object = put(&w, objs, olen);
    if (par) p->e.parent = put(&w, par, plen);
    if (inst) p->e.instance = put(&w, inst, ilen);
    p->e.index = index;
    p->e.counter = put(&w, ctr, clen);
    p->inst_wild = inst && has_star(inst, ilen);
    p->parent_wild = par && has_star(par, plen);
    p->counter_wild = clen == 1 && ctr[0] == '*';
    return PL_PDH_CSTATUS_VALID_DATA;
}

int pl__pdh_ends_with_index(const char *name)
{
    size_t n = strlen(name), d = n;
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9') d--;
    return d < n && d >= 2 && name[d - 1] == '#';
}

static size_t slen(const char *s) { return s ? strlen(s) + 1 : 0; }

PL_EXTERN uint32_t pl_pdh_parse_path(const char *path, void *buf, size_t *size, pl_error *err)
{
    if (!size) return pl__pdh_fail(err, PL_PDH_INVALID_ARGUMENT, "size is NULL");
    pl__pdh_path p;
    uint32_t st = pl__pdh_split(path, &p, err);
    if (st == PL_PDH_CSTATUS_BAD_COUNTERNAME) {
        if (err) err->status = (int)PL_PDH_INVALID_PATH;
        return PL_PDH_INVALID_PATH;
    }
    if (st) return st;
    size_t need = sizeof(pl_pdh_path_elements) + slen(p.e.machine) + slen(p.e.object) + slen(p.e.instance) +
                  slen(p.e.parent) + slen(p.e.counter);
    if (!buf || *size < need) {
        free(p.mem);
        *size = need;
        return pl__pdh_fail(err, PL_PDH_MORE_DATA, "the path elements need %zu bytes", need);
    }
    pl_pdh_path_elements *out = buf;
    char *w = (char *)buf + sizeof *out;
    pl_pdh_path_elements e = {0};
#define CP(f) if (p.e.f) e.f = put(&w, p.e.f, strlen(p.e.f))
    CP(machine); CP(object); CP(instance); CP(parent); CP(counter);
#undef CP
    e.index = p.e.index;
    *out = e;
    *size = need;
    free(p.mem);
    pl__clear(err);
    return PL_PDH_CSTATUS_VALID_DATA;
}

PL_EXTERN uint32_t pl_pdh_parse_path_alloc(const char *path, pl_pdh_path_elements **out, pl_error *err)
{
    if (!out) return pl__pdh_fail(err, PL_PDH_INVALID_ARGUMENT, "out is NULL");
    size_t need = 0;
    uint32_t st = pl_pdh_parse_path(path, NULL, &need, err);
    if (st != PL_PDH_MORE_DATA) return st;
    void *buf = malloc(need);
    if (!buf) return pl__pdh_fail(err, PL_PDH_MEMORY_ALLOCATION_FAILURE, "out of memory");
    st = pl_pdh_parse_path(path, buf, &need, err);
    if (st) { free(buf); return st; }
    *out = buf;
    return st;
}

static uint32_t make(const pl_pdh_path_elements *e, char *buf, size_t *size, pl_error *err, int raw);

PL_EXTERN uint32_t pl_pdh_make_path(const pl_pdh_path_elements *e, char *buf, size_t *size, pl_error *err)
{
    return make(e, buf, size, err, 0);
}

uint32_t pl__pdh_make_path_raw(const pl_pdh_path_elements *e, char *buf, size_t *size)
{
    return make(e, buf, size, NULL, 1);
}

/* raw: the instance is an item key that already spells its index. */
static uint32_t make(const pl_pdh_path_elements *e, char *buf, size_t *size, pl_error *err, int raw)
{
    if (!e || !size) return pl__pdh_fail(err, PL_PDH_INVALID_ARGUMENT, "elements or size is NULL");
    if (!e->object || !*e->object || !e->counter || !*e->counter)
        return pl__pdh_fail(err, PL_PDH_INVALID_ARGUMENT, "a counter path needs an object and a counter");
    const char *m = e->machine;
    if (m && m[0] == '\\' && m[1] == '\\') m += 2;
    if (m && !*m) m = NULL;
    char idx[16] = "";
    int have_inst = e->instance && *e->instance;
    if (have_inst && !raw && (e->index > 0 || pl__pdh_ends_with_index(e->instance)))
        snprintf(idx, sizeof idx, "#%u", (unsigned)e->index);
    int have_par = have_inst && e->parent && *e->parent;
    size_t need = (m ? 2 + strlen(m) : 0) + 1 + strlen(e->object) +
                  (have_inst ? 2 + strlen(e->instance) + strlen(idx) + (have_par ? strlen(e->parent) + 1 : 0) : 0) +
                  1 + strlen(e->counter) + 1;
    if (!buf || *size < need) {
        *size = need;
        return pl__pdh_fail(err, PL_PDH_MORE_DATA, "the path needs %zu bytes", need);
    }
    char *w = buf;
#define APP(s) do { size_t l_ = strlen(s); memcpy(w, s, l_); w += l_; } while (0)
    if (m) { APP("\\\\"); APP(m); }
    APP("\\");
    APP(e->object);
    if (have_inst) {
        APP("(");
        if (have_par) { APP(e->parent); APP("/"); }
        APP(e->instance);
        APP(idx);
        APP(")");
    }
    APP("\\");
    APP(e->counter);
#undef APP
    *w = '\0';
    *size = need;
    pl__clear(err);
    return PL_PDH_CSTATUS_VALID_DATA;
}
