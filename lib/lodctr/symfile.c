/* perflib lodctr: the symbol file (.h) named by an .ini's symbolfile=:
 * its #defines read, and each symbol an .ini uses resolved to an offset
 * through alias chains, with the refusals and warnings of docs/lodctr.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lodctr_int.h"
#include "perflib/lodctr.h"

enum { R_OK = 0, R_UNDEFINED, R_NOTNUM, R_CYCLE, R_CONFLICT, R_EXPR };

/* Blank out C comments (keeping line breaks) and skip string literals. */
static void strip_comments(char *t, size_t n)
{
    size_t i = 0;
    while (i < n) {
        char ch = t[i];
        if (ch == '"' || ch == '\'') {
            i++;
            while (i < n && t[i] != ch && t[i] != '\n' && t[i] != '\r') {
                if (t[i] == '\\' && i + 1 < n) i++;
                i++;
            }
            if (i < n && t[i] == ch) i++;
        } else if (ch == '/' && i + 1 < n && t[i + 1] == '/') {
            while (i < n && t[i] != '\n' && t[i] != '\r') t[i++] = ' ';
        } else if (ch == '/' && i + 1 < n && t[i + 1] == '*') {
            t[i++] = ' ';
            t[i++] = ' ';
            while (i < n && !(t[i] == '*' && i + 1 < n && t[i + 1] == '/')) {
                if (t[i] != '\n' && t[i] != '\r') t[i] = ' ';
                i++;
            }
            if (i < n) {
                t[i++] = ' ';
                t[i++] = ' ';
            }
        } else {
            i++;
        }
    }
}

static int sym_cmp(const void *a, const void *b)
{
    const pl__lc_sym *x = a, *y = b;
    int r = strcmp(x->name, y->name);
    if (r) return r;
    return (x->line > y->line) - (x->line < y->line);
}

int pl__lc_parse_symbols(pl__lc_ctx *c, char *txt, size_t len)
{
    strip_comments(txt, len);
    pl__lc_lines it;
    pl__lc_lines_init(&it, txt, len);
    const char *s;
    size_t n;
    while (pl__lc_next_line(&it, &s, &n)) {
        pl__lc_trim(&s, &n);
        pl__lc_skip_bom(&s, &n);
        if (n < 1 || s[0] != '#') continue;
        s++;
        n--;
        pl__lc_trim(&s, &n);
        if (n >= 7 && memcmp(s, "include", 7) == 0) {
            if (!c->include_line) c->include_line = it.line;
            continue;
        }
        if (n < 6 || memcmp(s, "define", 6) != 0 || (n > 6 && s[6] != ' ' && s[6] != '\t')) continue;
        s += 6;
        n -= 6;
        pl__lc_trim(&s, &n);
        if (!pl__lc_is_ident(s, 1)) continue;
        size_t in = 1;
        while (in < n && ((s[in] >= 'A' && s[in] <= 'Z') || (s[in] >= 'a' && s[in] <= 'z') ||
                          (s[in] >= '0' && s[in] <= '9') || s[in] == '_'))
            in++;
        if (in < n && s[in] == '(') continue; /* a function-like macro */
        const char *v = s + in;
        size_t vn = n - in;
        pl__lc_trim(&v, &vn);
        if (vn == 0) continue; /* include guard */
        if (!pl__lc_grow((void **)&c->syms, &c->csyms, c->nsyms, sizeof *c->syms)) return PL_E_NOMEM;
        pl__lc_sym *y = &c->syms[c->nsyms];
        memset(y, 0, sizeof *y);
        y->name = pl__lc_strndup(s, in);
        y->value = pl__lc_strndup(v, vn);
        if (!y->name || !y->value) {
            free(y->name);
            free(y->value);
            return PL_E_NOMEM;
        }
        y->line = it.line;
        c->nsyms++;
    }
    if (c->nsyms) qsort(c->syms, c->nsyms, sizeof *c->syms, sym_cmp);
    /* Collapse repeated defines: same value is harmless; a different value
     * is remembered and refused if the symbol is used. */
    size_t w = 0;
    for (size_t i = 0; i < c->nsyms; i++) {
        if (w > 0 && strcmp(c->syms[w - 1].name, c->syms[i].name) == 0) {
            if (strcmp(c->syms[w - 1].value, c->syms[i].value) != 0 && !c->syms[w - 1].conflict_line)
                c->syms[w - 1].conflict_line = c->syms[i].line;
            free(c->syms[i].name);
            free(c->syms[i].value);
            continue;
        }
        c->syms[w++] = c->syms[i];
    }
    c->nsyms = w;
    return PL_OK;
}

static pl__lc_sym *find_sym(pl__lc_ctx *c, const char *name)
{
    size_t lo = 0, hi = c->nsyms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int r = strcmp(c->syms[mid].name, name);
        if (r == 0) return &c->syms[mid];
        if (r < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

/* A C integer constant, possibly in parentheses and with a sign and an
 * integer suffix. Saturates far beyond any valid offset. */
static int parse_number(const char *s, size_t n, int64_t *out)
{
    pl__lc_trim(&s, &n);
    while (n >= 2 && s[0] == '(' && s[n - 1] == ')') {
        s++;
        n -= 2;
        pl__lc_trim(&s, &n);
    }
    int neg = 0;
    if (n > 0 && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        s++;
        n--;
        pl__lc_trim(&s, &n);
        while (n >= 2 && s[0] == '(' && s[n - 1] == ')') {
            s++;
            n -= 2;
            pl__lc_trim(&s, &n);
        }
    }
    while (n > 0 && (s[n - 1] == 'u' || s[n - 1] == 'U' || s[n - 1] == 'l' || s[n - 1] == 'L')) n--;
    if (n == 0 || s[0] < '0' || s[0] > '9') return 0;
    int base = 10;
    size_t i = 0;
    if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        i = 2;
        if (n == 2) return 0;
    } else if (n >= 2 && s[0] == '0') {
        base = 8;
        i = 1;
    }
    uint64_t v = 0;
    for (; i < n; i++) {
        int d = pl__lc_hexval(s[i]);
        if (d < 0 || d >= base) return 0;
        if (v < (1ull << 40)) v = v * (uint64_t)base + (uint64_t)d;
    }
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 1;
}

/* 1 when a #define's replacement text is arithmetic (`(OTHER + 2)`, `A|B`,
 * `-A`) rather than a number or the name of another symbol. */
static int is_expression(const char *v)
{
    for (; *v; v++)
        if (strchr("+-*/%<>|&^~!?", *v)) return 1;
    return 0;
}

/* Resolve a symbol through alias chains. Returns R_*; *where is the symbol
 * at which it failed (for messages). Every symbol on the chain remembers the
 * result, so resolving n symbols costs O(n) even when they form one long
 * chain of aliases. */
static int resolve(pl__lc_ctx *c, const char *name, int64_t *off, pl__lc_sym **where)
{
    pl__lc_sym *y = find_sym(c, name);
    *where = y;
    if (!y) return R_UNDEFINED;
    if (y->state == 1) {
        *off = y->off;
        return R_OK;
    }
    if (y->state == 2) {
        *where = y->fail_at;
        return y->fail;
    }
    pl__lc_sym *cur = y;
    int rc = R_OK;
    int64_t v = 0;
    size_t nchain = 0;
    for (;;) {
        if (cur->state == 1) {
            v = cur->off;
            break;
        }
        if (cur->state == 2) {
            rc = cur->fail;
            *where = cur->fail_at;
            break;
        }
        if (cur->state == 3) { /* back on the chain: a cycle */
            rc = R_CYCLE;
            *where = y;
            break;
        }
        if (nchain == c->cchain) {
            size_t nc = c->cchain ? c->cchain * 2 : 16;
            pl__lc_sym **np = realloc(c->chain, nc * sizeof *np);
            if (!np) {
                c->nomem = 1;
                rc = R_NOTNUM;
                *where = cur;
                break;
            }
            c->chain = np;
            c->cchain = nc;
        }
        c->chain[nchain++] = cur;
        cur->state = 3;
        if (cur->conflict_line) {
            rc = R_CONFLICT;
            *where = cur;
            break;
        }
        if (parse_number(cur->value, strlen(cur->value), &v)) break;
        const char *a = cur->value;
        size_t an = strlen(a);
        while (an >= 2 && a[0] == '(' && a[an - 1] == ')') {
            a++;
            an -= 2;
            pl__lc_trim(&a, &an);
        }
        if (!pl__lc_is_ident(a, an)) {
            rc = is_expression(cur->value) ? R_EXPR : R_NOTNUM;
            *where = cur;
            break;
        }
        char *tmp = pl__lc_strndup(a, an);
        if (!tmp) {
            c->nomem = 1;
            rc = R_NOTNUM;
            *where = cur;
            break;
        }
        pl__lc_sym *nx = find_sym(c, tmp);
        free(tmp);
        if (!nx) {
            rc = R_UNDEFINED;
            *where = cur;
            break;
        }
        cur = nx;
    }
    for (size_t i = 0; i < nchain; i++) {
        pl__lc_sym *z = c->chain[i];
        if (rc == R_OK) {
            z->state = 1;
            z->off = v;
        } else {
            z->state = 2;
            z->fail = rc;
            z->fail_at = *where;
        }
    }
    if (rc == R_OK) *off = v;
    return rc;
}

/* Check a used symbol; returns PL_OK, 1 for "skip with warning" (text) or an
 * error status. */
int pl__lc_check_use(pl__lc_ctx *c, const char *symname, unsigned line, int is_object, int64_t *off)
{
    pl__lc_sym *where = NULL;
    int r = resolve(c, symname, off, &where);
    switch (r) {
    case R_OK:
        break;
    case R_UNDEFINED:
    case R_NOTNUM:
        if (is_object)
            return pl__fail(c->err, PL_E_PARSE, "%s:%u: [objects] entry %s has no offset in %s", c->ini_name, line,
                            symname, c->sym_name);
        char inc[300] = "";
        if (r == R_UNDEFINED && c->include_line)
            snprintf(inc, sizeof inc, " (%s:%u #includes another file; lodctr reads only the symbol file itself)",
                     c->sym_name, c->include_line);
        if (r == R_UNDEFINED && where && strcmp(where->name, symname) != 0)
            pl__lc_warn(c, "%s:%u: symbol %s is an alias of an undefined symbol in %s:%u; skipped%s", c->ini_name, line,
                        symname, c->sym_name, where->line, inc);
        else if (r == R_UNDEFINED)
            pl__lc_warn(c, "%s:%u: symbol %s is not defined in %s; skipped%s", c->ini_name, line, symname, c->sym_name,
                        inc);
        else
            pl__lc_warn(c, "%s:%u: symbol %s is not a number in %s:%u; skipped", c->ini_name, line, symname,
                        c->sym_name, where ? where->line : 0);
        return 1;
    case R_EXPR:
        return pl__fail(c->err, PL_E_PARSE,
                        "%s:%u: symbol %s is defined as the expression '%s' (%s:%u); lodctr reads only numbers and"
                        " names of other symbols, write the offset as a number",
                        c->ini_name, line, symname, where ? where->value : "?", c->sym_name, where ? where->line : 0);
    case R_CYCLE:
        return pl__fail(c->err, PL_E_PARSE, "%s:%u: symbol %s is defined in a cycle of aliases (%s:%u)",
                        c->ini_name, line, symname, c->sym_name, where ? where->line : 0);
    case R_CONFLICT:
        return pl__fail(c->err, PL_E_PARSE, "%s:%u: symbol %s is defined twice with different values (%s:%u and %u)",
                        c->sym_name, where ? where->line : 0, where ? where->name : symname, c->sym_name,
                        where ? where->line : 0, where ? where->conflict_line : 0);
    }
    pl__lc_sym *y = find_sym(c, symname);
    unsigned dl = y ? y->line : 0;
    if (*off < 0)
        return pl__fail(c->err, PL_E_INVAL, "%s:%u: symbol %s has a negative offset %lld (used at %s:%u)", c->sym_name,
                        dl, symname, (long long)*off, c->ini_name, line);
    if (*off % 2)
        return pl__fail(c->err, PL_E_INVAL, "%s:%u: symbol %s has an odd offset %lld (used at %s:%u)", c->sym_name, dl,
                        symname, (long long)*off, c->ini_name, line);
    if (*off > (int64_t)PL_LODCTR_MAX_OFFSET)
        return pl__fail(c->err, PL_E_RANGE, "%s:%u: symbol %s has offset %lld, above the limit %u (used at %s:%u)",
                        c->sym_name, dl, symname, (long long)*off, PL_LODCTR_MAX_OFFSET, c->ini_name, line);
    return PL_OK;
}
