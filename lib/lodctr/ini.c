/* perflib lodctr: the .ini parser and the building of a counter set from
 * the .ini and its symbol file (symfile.c reads the symbol file; install.c
 * installs the set). */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lodctr_int.h"
#include "perflib/lodctr.h"

enum { K_NAME = 0, K_HELP = 1 };

int pl__lc_grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap) return 1;
    size_t nc = *cap ? *cap * 2 : 16;
    if (nc > SIZE_MAX / elem) return 0;
    void *p = realloc(*arr, nc * elem);
    if (!p) return 0;
    *arr = p;
    *cap = nc;
    return 1;
}

void pl__lc_warn(pl__lc_ctx *c, const char *fmt, ...)
{
    char tmp[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (!pl__lc_grow((void **)&c->warnings, &c->cwarnings, c->nwarnings, sizeof *c->warnings)) {
        c->nomem = 1;
        return;
    }
    char *w = pl__strdup(tmp);
    if (!w) {
        c->nomem = 1;
        return;
    }
    c->warnings[c->nwarnings++] = w;
}

int pl__lc_is_ident(const char *s, size_t n)
{
    if (n == 0) return 0;
    if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_')) return 0;
    for (size_t i = 1; i < n; i++) {
        char ch = s[i];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_'))
            return 0;
    }
    return 1;
}

int pl__lc_hexval(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* Split "SYM_LANG_KIND" from the right. Returns 1 and fills the parts, or 0. */
static int split_key(const char *k, size_t n, size_t *symlen, char lang[5], int *kind)
{
    size_t u2 = n;
    while (u2 > 0 && k[u2 - 1] != '_') u2--;
    if (u2 == 0) return 0;
    const char *kd = k + u2;
    size_t kdn = n - u2;
    if (pl__lc_eq_ci(kd, kdn, "NAME")) *kind = K_NAME;
    else if (pl__lc_eq_ci(kd, kdn, "HELP")) *kind = K_HELP;
    else return 0;
    size_t u1 = u2 - 1;
    while (u1 > 0 && k[u1 - 1] != '_') u1--;
    if (u1 == 0) return 0;
    const char *lg = k + u1;
    size_t lgn = u2 - 1 - u1;
    if (lgn == 0 || lgn > 4) return 0;
    unsigned v = 0;
    for (size_t i = 0; i < lgn; i++) {
        int h = pl__lc_hexval(lg[i]);
        if (h < 0) return 0;
        v = v * 16 + (unsigned)h;
    }
    snprintf(lang, 5, v <= 0xFFF ? "%03X" : "%04X", v);
    *symlen = u1 - 1;
    return *symlen > 0;
}

static char *dup_or_flag(pl__lc_ctx *c, const char *s, size_t n)
{
    char *d = pl__lc_strndup(s, n);
    if (!d) c->nomem = 1;
    return d;
}

static void set_info(pl__lc_ctx *c, char **field, unsigned *line_out, const char *v, size_t vn, unsigned line,
                     const char *key)
{
    if (*field) {
        pl__lc_warn(c, "%s:%u: %s= given again; the first value is used", c->ini_name, line, key);
        return;
    }
    *field = dup_or_flag(c, v, vn);
    if (line_out) *line_out = line;
}

enum { S_NONE, S_INFO, S_LANGUAGES, S_OBJECTS, S_TEXT, S_OTHER };

/* A byte-order mark (U+FEFF) at the start of a line inside the file: what
 * concatenating two files with BOMs (`cat a.ini b.ini`) leaves. It is not
 * text; skip it and the blanks after it. */
void pl__lc_skip_bom(const char **s, size_t *n)
{
    while (*n >= 3 && (unsigned char)(*s)[0] == 0xEF && (unsigned char)(*s)[1] == 0xBB &&
           (unsigned char)(*s)[2] == 0xBF) {
        *s += 3;
        *n -= 3;
        pl__lc_trim(s, n);
    }
}

static int parse_ini(pl__lc_ctx *c, const char *txt, size_t len)
{
    pl__lc_lines it;
    pl__lc_lines_init(&it, txt, len);
    const char *s;
    size_t n;
    int sec = S_NONE;
    while (pl__lc_next_line(&it, &s, &n)) {
        unsigned line = it.line;
        c->last_line = line;
        pl__lc_trim(&s, &n);
        pl__lc_skip_bom(&s, &n);
        if (n == 0) continue;
        if (s[0] == ';' || s[0] == '#' || (n >= 2 && s[0] == '/' && s[1] == '/')) continue;
        if (s[0] == '[') {
            const char *e = memchr(s, ']', n);
            const char *nm = s + 1;
            size_t nn = e ? (size_t)(e - nm) : n - 1;
            pl__lc_trim(&nm, &nn);
            if (!e) pl__lc_warn(c, "%s:%u: section header without ']'", c->ini_name, line);
            if (pl__lc_eq_ci(nm, nn, "info")) {
                sec = S_INFO;
                if (!c->info_line) c->info_line = line;
            } else if (pl__lc_eq_ci(nm, nn, "languages")) sec = S_LANGUAGES;
            else if (pl__lc_eq_ci(nm, nn, "objects")) sec = S_OBJECTS;
            else if (pl__lc_eq_ci(nm, nn, "text")) sec = S_TEXT;
            else sec = S_OTHER;
            continue;
        }
        if (sec == S_NONE || sec == S_OTHER) continue;
        const char *eq = memchr(s, '=', n);
        if (!eq) {
            pl__lc_warn(c, "%s:%u: line without '=' skipped", c->ini_name, line);
            /* A help text lost this way leaves a counter without help (the
             * real ntrace file has one); a name lost would leave a counter
             * nobody can find: kept to be judged once the file is read. */
            size_t kn = 0, symlen;
            char lang[5];
            int kind;
            while (kn < n && s[kn] != ' ' && s[kn] != '\t') kn++;
            if (sec == S_TEXT && split_key(s, kn, &symlen, lang, &kind) && kind == K_NAME) {
                if (!pl__lc_grow((void **)&c->noeq, &c->cnoeq, c->nnoeq, sizeof *c->noeq)) return PL_E_NOMEM;
                pl__lc_rtext *t = &c->noeq[c->nnoeq];
                memset(t, 0, sizeof *t);
                t->sym = dup_or_flag(c, s, symlen);
                if (!t->sym) return PL_E_NOMEM;
                memcpy(t->lang, lang, sizeof t->lang);
                t->line = line;
                c->nnoeq++;
            }
            continue;
        }
        const char *k = s, *v = eq + 1;
        size_t kn = (size_t)(eq - s), vn = n - kn - 1;
        pl__lc_trim(&k, &kn);
        pl__lc_trim(&v, &vn);
        if (sec == S_INFO) {
            if (pl__lc_eq_ci(k, kn, "drivername")) set_info(c, &c->provider, &c->provider_line, v, vn, line, "drivername");
            else if (pl__lc_eq_ci(k, kn, "symbolfile")) set_info(c, &c->symfile, &c->symfile_line, v, vn, line, "symbolfile");
            else if (pl__lc_eq_ci(k, kn, "library")) set_info(c, &c->library, NULL, v, vn, line, "library");
            else if (pl__lc_eq_ci(k, kn, "open")) set_info(c, &c->open, NULL, v, vn, line, "open");
            else if (pl__lc_eq_ci(k, kn, "collect")) set_info(c, &c->collect, NULL, v, vn, line, "collect");
            else if (pl__lc_eq_ci(k, kn, "close")) set_info(c, &c->close, NULL, v, vn, line, "close");
            else if (pl__lc_eq_ci(k, kn, "wraps")) set_info(c, &c->wraps, NULL, v, vn, line, "wraps");
            else if (pl__lc_eq_ci(k, kn, "trusted")) c->trusted = 1;
            continue;
        }
        if (sec == S_LANGUAGES) continue;
        size_t symlen;
        char lang[5];
        int kind;
        if (!split_key(k, kn, &symlen, lang, &kind)) {
            pl__lc_warn(c, "%s:%u: key '%.*s' is not SYMBOL_LANG_NAME or SYMBOL_LANG_HELP; skipped", c->ini_name, line,
                        (int)(kn > 200 ? 200 : kn), k);
            continue;
        }
        if (sec == S_OBJECTS) {
            if (kind != K_NAME) {
                pl__lc_warn(c, "%s:%u: [objects] key '%.*s' does not end in _NAME; skipped", c->ini_name, line,
                            (int)(kn > 200 ? 200 : kn), k);
                continue;
            }
            if (!pl__lc_grow((void **)&c->objs, &c->cobjs, c->nobjs, sizeof *c->objs)) return PL_E_NOMEM;
            pl__lc_robj *o = &c->objs[c->nobjs];
            o->sym = dup_or_flag(c, k, symlen);
            if (!o->sym) return PL_E_NOMEM;
            o->line = line;
            o->off = -1;
            c->nobjs++;
            continue;
        }
        /* [text] */
        if (vn == 0) {
            pl__lc_warn(c, "%s:%u: empty value for %.*s skipped", c->ini_name, line, (int)(kn > 200 ? 200 : kn), k);
            continue;
        }
        if (!pl__lc_grow((void **)&c->texts, &c->ctexts, c->ntexts, sizeof *c->texts)) return PL_E_NOMEM;
        pl__lc_rtext *t = &c->texts[c->ntexts];
        memset(t, 0, sizeof *t);
        t->sym = dup_or_flag(c, k, symlen);
        t->value = dup_or_flag(c, v, vn);
        if (!t->sym || !t->value) {
            free(t->sym);
            free(t->value);
            return PL_E_NOMEM;
        }
        memcpy(t->lang, lang, sizeof t->lang);
        t->kind = kind;
        t->line = line;
        t->off = -1;
        c->ntexts++;
    }
    if (c->nomem) return PL_E_NOMEM;
    for (size_t i = 0; i < c->nnoeq; i++) {
        const pl__lc_rtext *m = &c->noeq[i];
        int named = 0;
        for (size_t k = 0; k < c->ntexts && !named; k++)
            named = c->texts[k].kind == K_NAME && strcmp(c->texts[k].sym, m->sym) == 0;
        if (!named)
            return pl__fail(c->err, PL_E_PARSE,
                            "%s:%u: the %s_%s_NAME line has no '=': %s would be installed without a name "
                            "(write %s_%s_NAME=its name)",
                            c->ini_name, m->line, m->sym, m->lang, m->sym, m->sym, m->lang);
    }
    return PL_OK;
}

/* ------------------------------------------------------------- building */

typedef struct use {
    int64_t off;
    const char *sym;
    unsigned line;
} use;

static int use_cmp(const void *a, const void *b)
{
    const use *x = a, *y = b;
    if (x->off != y->off) return x->off < y->off ? -1 : 1;
    int r = strcmp(x->sym, y->sym);
    if (r) return r;
    return (x->line > y->line) - (x->line < y->line);
}

static int rtext_cmp(const void *a, const void *b)
{
    const pl__lc_rtext *const *px = a, *const *py = b;
    const pl__lc_rtext *x = *px, *y = *py;
    if (x->off != y->off) return x->off < y->off ? -1 : 1;
    int r = strcmp(x->lang, y->lang);
    if (r) return r;
    if (x->kind != y->kind) return x->kind - y->kind;
    return (x->line > y->line) - (x->line < y->line);
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void ctx_free(pl__lc_ctx *c)
{
    free(c->provider);
    free(c->symfile);
    free(c->library);
    free(c->wraps);
    free(c->open);
    free(c->collect);
    free(c->close);
    for (size_t i = 0; i < c->ntexts; i++) {
        free(c->texts[i].sym);
        free(c->texts[i].value);
    }
    free(c->texts);
    for (size_t i = 0; i < c->nobjs; i++) free(c->objs[i].sym);
    free(c->objs);
    for (size_t i = 0; i < c->nnoeq; i++) free(c->noeq[i].sym);
    free(c->noeq);
    for (size_t i = 0; i < c->nsyms; i++) {
        free(c->syms[i].name);
        free(c->syms[i].value);
    }
    free(c->syms);
    free(c->chain);
    for (size_t i = 0; i < c->nwarnings; i++) free(c->warnings[i]);
    free(c->warnings);
}

PL_EXTERN void pl_lodctr_free(pl_lodctr_set *set)
{
    if (!set) return;
    free(set->ini_path);
    free(set->symbol_path);
    free(set->provider);
    free(set->library);
    free(set->wraps);
    free(set->open);
    free(set->collect);
    free(set->close);
    for (size_t i = 0; i < set->ntexts; i++) {
        free((char *)set->texts[i].name);
        free((char *)set->texts[i].help);
        free((char *)set->texts[i].lang);
    }
    free(set->texts);
    free(set->text_lines);
    free(set->object_offsets);
    for (size_t i = 0; i < set->nlanguages; i++) free(set->languages[i]);
    free(set->languages);
    for (size_t i = 0; i < set->nwarnings; i++) free(set->warnings[i]);
    free(set->warnings);
    free(set);
}

/* Everything after both files are read: resolve, check, build the set. */
static int build(pl__lc_ctx *c, pl_lodctr_set **out)
{
    pl_error *err = c->err;
    int rc;
    /* Resolve every used symbol, in line order (texts come before objects
     * only when they do in the file; report the earliest problem). */
    size_t ti = 0, oi = 0;
    while (ti < c->ntexts || oi < c->nobjs) {
        int take_obj = oi < c->nobjs && (ti >= c->ntexts || c->objs[oi].line < c->texts[ti].line);
        if (take_obj) {
            pl__lc_robj *o = &c->objs[oi++];
            int64_t off;
            rc = pl__lc_check_use(c, o->sym, o->line, 1, &off);
            if (rc != PL_OK) return rc;
            o->off = off;
        } else {
            pl__lc_rtext *t = &c->texts[ti++];
            int64_t off;
            rc = pl__lc_check_use(c, t->sym, t->line, 0, &off);
            if (rc == 1) continue; /* skipped, off stays -1 */
            if (rc != PL_OK) return rc;
            t->off = off;
        }
    }
    if (c->nomem) return pl__fail(err, PL_E_NOMEM, "out of memory");

    /* Two different symbols with one offset: refuse (Windows would give one
     * index two names, and unlodctr would remove the wrong one). */
    size_t nuse = 0;
    use *uses = malloc((c->ntexts + c->nobjs + 1) * sizeof *uses);
    if (!uses) return pl__fail(err, PL_E_NOMEM, "out of memory");
    for (size_t i = 0; i < c->ntexts; i++)
        if (c->texts[i].off >= 0) uses[nuse++] = (use){c->texts[i].off, c->texts[i].sym, c->texts[i].line};
    for (size_t i = 0; i < c->nobjs; i++) uses[nuse++] = (use){c->objs[i].off, c->objs[i].sym, c->objs[i].line};
    if (nuse) qsort(uses, nuse, sizeof *uses, use_cmp);
    for (size_t i = 1; i < nuse; i++) {
        if (uses[i].off == uses[i - 1].off && strcmp(uses[i].sym, uses[i - 1].sym) != 0) {
            const use *a = &uses[i - 1], *b = &uses[i];
            if (b->line < a->line) {
                const use *t = a;
                a = b;
                b = t;
            }
            rc = pl__fail(err, PL_E_INVAL, "%s:%u: symbols %s (line %u) and %s both have offset %lld", c->ini_name,
                          b->line, a->sym, a->line, b->sym, (long long)a->off);
            free(uses);
            return rc;
        }
    }
    free(uses);

    /* Order the placed texts; the first of a repeated key wins. */
    pl__lc_rtext **order = malloc((c->ntexts + 1) * sizeof *order);
    if (!order) return pl__fail(err, PL_E_NOMEM, "out of memory");
    size_t nord = 0;
    for (size_t i = 0; i < c->ntexts; i++)
        if (c->texts[i].off >= 0) order[nord++] = &c->texts[i];
    if (nord) qsort(order, nord, sizeof *order, rtext_cmp);

    pl_lodctr_set *set = calloc(1, sizeof *set);
    if (!set) {
        free(order);
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    set->texts = calloc(nord + 1, sizeof *set->texts);
    set->text_lines = calloc(nord + 1, sizeof *set->text_lines);
    set->object_offsets = calloc(c->nobjs + 1, sizeof *set->object_offsets);
    set->languages = calloc(nord + 1, sizeof *set->languages);
    if (!set->texts || !set->text_lines || !set->object_offsets || !set->languages) goto nomem;
    uint32_t maxoff = 0;
    for (size_t i = 0; i < nord; i++) {
        pl__lc_rtext *t = order[i];
        if (i > 0 && order[i - 1]->off == t->off && strcmp(order[i - 1]->lang, t->lang) == 0 &&
            order[i - 1]->kind == t->kind) {
            pl__lc_warn(c, "%s:%u: %s_%s_%s repeats line %u; the first value is used", c->ini_name, t->line, t->sym,
                        t->lang, t->kind == K_NAME ? "NAME" : "HELP", order[i - 1]->line);
            continue;
        }
        pl_install_text *x;
        if (set->ntexts > 0 && set->texts[set->ntexts - 1].offset == (uint32_t)t->off &&
            strcmp(set->texts[set->ntexts - 1].lang, t->lang) == 0) {
            x = &set->texts[set->ntexts - 1];
            if (t->line < set->text_lines[set->ntexts - 1]) set->text_lines[set->ntexts - 1] = t->line;
        } else {
            x = &set->texts[set->ntexts];
            x->offset = (uint32_t)t->off;
            x->lang = pl__strdup(t->lang);
            if (!x->lang) goto nomem;
            set->text_lines[set->ntexts] = t->line;
            set->ntexts++;
        }
        if (t->kind == K_NAME) x->name = t->value;
        else x->help = t->value;
        t->value = NULL; /* moved */
        if ((uint32_t)t->off > maxoff) maxoff = (uint32_t)t->off;
    }
    free(order);
    order = NULL;

    /* Languages used: sorted, each once (sort the pointers, then copy the
     * distinct ones; linear-time lookups would be quadratic in big files). */
    {
        const char **all = malloc((set->ntexts + 1) * sizeof *all);
        if (!all) goto nomem;
        for (size_t i = 0; i < set->ntexts; i++) all[i] = set->texts[i].lang;
        if (set->ntexts) qsort(all, set->ntexts, sizeof *all, str_cmp);
        for (size_t i = 0; i < set->ntexts; i++) {
            if (i > 0 && strcmp(all[i], all[i - 1]) == 0) continue;
            set->languages[set->nlanguages] = pl__strdup(all[i]);
            if (!set->languages[set->nlanguages]) {
                free(all);
                goto nomem;
            }
            set->nlanguages++;
        }
        free(all);
    }

    /* Objects: must have text at their offset (texts are sorted by offset:
     * binary search); an object listed twice is listed once. */
    for (size_t i = 0; i < c->nobjs; i++) {
        uint32_t off = (uint32_t)c->objs[i].off;
        size_t lo = 0, hi = set->ntexts;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (set->texts[mid].offset < off) lo = mid + 1;
            else hi = mid;
        }
        if (lo == set->ntexts || set->texts[lo].offset != off) {
            pl__lc_warn(c, "%s:%u: [objects] entry %s has no [text]; left out of the Object List", c->ini_name,
                        c->objs[i].line, c->objs[i].sym);
            continue;
        }
        set->object_offsets[set->nobjects++] = off;
        if (off > maxoff) maxoff = off;
    }
    if (set->nobjects) {
        qsort(set->object_offsets, set->nobjects, sizeof *set->object_offsets, u32_cmp);
        size_t w = 0;
        for (size_t i = 0; i < set->nobjects; i++)
            if (w == 0 || set->object_offsets[w - 1] != set->object_offsets[i])
                set->object_offsets[w++] = set->object_offsets[i];
        set->nobjects = w;
    }
    set->max_offset = maxoff;

    if (set->ntexts == 0) {
        pl_lodctr_free(set);
        return pl__fail(err, PL_E_PARSE, "%s:%u: no [text] entry names a symbol of %s; nothing to install",
                        c->ini_name, c->last_line ? c->last_line : 1, c->sym_name);
    }
    set->provider = c->provider;
    c->provider = NULL;
    set->library = c->library;
    c->library = NULL;
    set->open = c->open;
    c->open = NULL;
    set->collect = c->collect;
    c->collect = NULL;
    set->close = c->close;
    c->close = NULL;
    set->wraps = c->wraps;
    c->wraps = NULL;
    set->trusted = c->trusted;
    set->ini_path = pl__strdup(c->ini_name);
    set->symbol_path = pl__strdup(c->sym_name);
    if (!set->ini_path || !set->symbol_path || c->nomem) goto nomem;
    set->warnings = c->warnings;
    set->nwarnings = c->nwarnings;
    c->warnings = NULL;
    c->nwarnings = 0;
    *out = set;
    return PL_OK;
nomem:
    free(order);
    pl_lodctr_free(set);
    return pl__fail(err, PL_E_NOMEM, "out of memory");
}

/* Checks on [info] after the .ini is read. */
static int check_info(pl__lc_ctx *c, int need_symfile)
{
    if (!c->provider || !c->provider[0])
        return pl__fail(c->err, PL_E_PARSE, "%s:%u: [info] has no drivername=", c->ini_name,
                        c->provider ? c->provider_line : c->info_line ? c->info_line : c->last_line ? c->last_line : 1);
    /* The rules of the registry store for a provider (service) name, checked
     * here so the refusal names the line. */
    if (strlen(c->provider) > 256)
        return pl__fail(c->err, PL_E_INVAL, "%s:%u: drivername= is longer than 256 bytes", c->ini_name,
                        c->provider_line);
    for (const char *p = c->provider; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == '\\')
            return pl__fail(c->err, PL_E_INVAL, "%s:%u: drivername=%s contains a control character or '\\'",
                            c->ini_name, c->provider_line, c->provider);
    if (need_symfile && (!c->symfile || !c->symfile[0]))
        return pl__fail(c->err, PL_E_PARSE, "%s:%u: [info] has no symbolfile=", c->ini_name,
                        c->symfile ? c->symfile_line : c->info_line ? c->info_line : 1);
    return PL_OK;
}

static int run_ini(pl__lc_ctx *c, const void *ini, size_t ini_len)
{
    char *txt = NULL;
    size_t tl = 0;
    int rc = pl__lc_decode(ini, ini_len, c->ini_name, &txt, &tl, NULL, c->err);
    if (rc != PL_OK) return rc;
    rc = parse_ini(c, txt, tl);
    free(txt);
    if (rc == PL_E_NOMEM) return pl__fail(c->err, PL_E_NOMEM, "out of memory");
    return rc;
}

static int run_sym(pl__lc_ctx *c, const void *sym_data, size_t sym_len)
{
    char *txt = NULL;
    size_t tl = 0;
    int rc = pl__lc_decode(sym_data, sym_len, c->sym_name, &txt, &tl, NULL, c->err);
    if (rc != PL_OK) return rc;
    rc = pl__lc_parse_symbols(c, txt, tl);
    free(txt);
    if (rc == PL_E_NOMEM) return pl__fail(c->err, PL_E_NOMEM, "out of memory");
    return rc;
}

PL_EXTERN int pl_lodctr_parse_mem(const void *ini, size_t ini_len, const char *ini_name, const void *symdata,
                                  size_t sym_len, const char *sym_name, pl_lodctr_set **out, pl_error *err)
{
    if (!out) return pl__fail(err, PL_E_INVAL, "pl_lodctr_parse_mem: out is NULL");
    *out = NULL;
    pl__clear(err);
    pl__lc_ctx c;
    memset(&c, 0, sizeof c);
    c.ini_name = ini_name ? ini_name : "ini";
    c.sym_name = sym_name ? sym_name : "symbols";
    c.err = err;
    int rc = run_ini(&c, ini, ini_len);
    if (rc == PL_OK) rc = check_info(&c, 0);
    if (rc == PL_OK) rc = run_sym(&c, symdata, sym_len);
    if (rc == PL_OK) rc = build(&c, out);
    ctx_free(&c);
    return rc;
}

/* Join the .ini's directory and a symbolfile= value (backslashes become
 * slashes). */
static char *join_path(const char *ini_path, const char *rel)
{
    const char *slash = strrchr(ini_path, '/');
    size_t dl = slash ? (size_t)(slash - ini_path) + 1 : 0;
    size_t rl = strlen(rel);
    int abs = rel[0] == '/' || rel[0] == '\\';
    char *p = malloc(dl + rl + 1);
    if (!p) return NULL;
    size_t w = 0;
    if (!abs) {
        memcpy(p, ini_path, dl);
        w = dl;
    }
    for (size_t i = 0; i < rl; i++) p[w++] = rel[i] == '\\' ? '/' : rel[i];
    p[w] = '\0';
    return p;
}

/* When `path` does not exist, look for its last component case-insensitively
 * in its directory. Returns a new path or NULL. */
static char *find_ci(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dl = slash ? (size_t)(slash - path) : 0;
    char *dir = slash ? pl__lc_strndup(path, dl == 0 ? 1 : dl) : pl__strdup(".");
    if (!dir) return NULL;
    DIR *d = opendir(dir);
    char *found = NULL;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (pl__lc_eq_ci(e->d_name, strlen(e->d_name), base)) {
                size_t bl = strlen(e->d_name);
                found = malloc(dl + 1 + bl + 1);
                if (found) {
                    size_t w = 0;
                    if (slash) {
                        memcpy(found, path, dl + 1);
                        w = dl + 1;
                    }
                    memcpy(found + w, e->d_name, bl + 1);
                }
                break;
            }
        }
        closedir(d);
    }
    free(dir);
    return found;
}

PL_EXTERN int pl_lodctr_parse_ex(const char *ini_path, const pl_lodctr_parse_opts *opts, pl_lodctr_set **out,
                                 pl_error *err)
{
    if (!out) return pl__fail(err, PL_E_INVAL, "pl_lodctr_parse: out is NULL");
    *out = NULL;
    if (!ini_path || !ini_path[0]) return pl__fail(err, PL_E_INVAL, "pl_lodctr_parse: no .ini file given");
    pl__clear(err);
    pl__lc_ctx c;
    memset(&c, 0, sizeof c);
    c.ini_name = ini_path;
    c.err = err;
    unsigned char *data = NULL;
    size_t len = 0;
    char *sympath = NULL;
    const char *override = opts ? opts->symbol_file : NULL;
    int rc = pl__lc_read_file(ini_path, &data, &len, err);
    if (rc == PL_OK) rc = run_ini(&c, data, len);
    free(data);
    data = NULL;
    if (rc == PL_OK) rc = check_info(&c, override == NULL);
    if (rc == PL_OK) {
        if (override) {
            sympath = pl__strdup(override);
        } else {
            sympath = join_path(ini_path, c.symfile);
            if (sympath) {
                FILE *f = fopen(sympath, "rb");
                if (f) {
                    fclose(f);
                } else if (errno == ENOENT) {
                    char *alt = find_ci(sympath);
                    if (alt) {
                        free(sympath);
                        sympath = alt;
                    }
                }
            }
        }
        if (!sympath) rc = pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    if (rc == PL_OK) {
        c.sym_name = sympath;
        pl_error e2;
        rc = pl__lc_read_file(sympath, &data, &len, &e2);
        if (rc == PL_E_IO && override)
            rc = pl__fail(err, PL_E_IO, "%s", e2.msg);
        else if (rc == PL_E_IO)
            rc = pl__fail(err, PL_E_IO, "%s:%u: symbol file %s: %s", ini_path, c.symfile_line, c.symfile, e2.msg);
        else if (rc != PL_OK)
            rc = pl__fail(err, rc, "%s", e2.msg);
    }
    if (rc == PL_OK) rc = run_sym(&c, data, len);
    free(data);
    if (rc == PL_OK) rc = build(&c, out);
    ctx_free(&c);
    free(sympath);
    return rc;
}

PL_EXTERN int pl_lodctr_parse(const char *ini_path, pl_lodctr_set **out, pl_error *err)
{
    return pl_lodctr_parse_ex(ini_path, NULL, out, err);
}
