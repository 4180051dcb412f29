/* perflib lodctr: the `lodctr /s` / `lodctr /r` backup file
 * (PerfStringBackup.INI), read and written as Windows writes it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lodctr_int.h"
#include "perflib/lodctr.h"

/* ----------------------------------------------------------------- read */

typedef struct strs {
    pl_backup_string *v;
    unsigned *lines;
    size_t n, cap;
} strs;

typedef struct rlang {
    char lang[8];
    unsigned line;
    strs names, helps;
} rlang;

static int strs_add(strs *s, uint32_t index, char *text, unsigned line)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 64;
        pl_backup_string *nv = realloc(s->v, nc * sizeof *nv);
        if (!nv) return 0;
        s->v = nv;
        unsigned *nl = realloc(s->lines, nc * sizeof *nl);
        if (!nl) return 0;
        s->lines = nl;
        s->cap = nc;
    }
    s->v[s->n].index = index;
    s->v[s->n].text = text;
    s->lines[s->n] = line;
    s->n++;
    return 1;
}

static void strs_free(strs *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->v[i].text);
    free(s->v);
    free(s->lines);
    memset(s, 0, sizeof *s);
}

/* Decimal DWORD, no sign, no spaces inside. */
static int parse_u32(const char *s, size_t n, uint32_t *out)
{
    if (n == 0 || n > 10) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > UINT32_MAX) return 0;
    *out = (uint32_t)v;
    return 1;
}

/* "009", "00c", "7" -> "009", "00C", "007". */
static int norm_lang(const char *s, size_t n, char out[8])
{
    if (n == 0 || n > 4) return 0;
    unsigned v = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        int h = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
              : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
        if (h < 0) return 0;
        v = v * 16 + (unsigned)h;
    }
    snprintf(out, 8, v <= 0xFFF ? "%03X" : "%04X", v);
    return 1;
}

/* Sort by index (stable by line) and refuse repeated indices. */
typedef struct sortent {
    pl_backup_string s;
    unsigned line;
} sortent;

static int sortent_cmp(const void *a, const void *b)
{
    const sortent *x = a, *y = b;
    if (x->s.index != y->s.index) return x->s.index < y->s.index ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

static int finish_strs(strs *s, const char *name, const char *lang, pl_error *err)
{
    if (s->n == 0) return PL_OK;
    sortent *t = malloc(s->n * sizeof *t);
    if (!t) return pl__fail(err, PL_E_NOMEM, "out of memory");
    for (size_t i = 0; i < s->n; i++) t[i] = (sortent){s->v[i], s->lines[i]};
    qsort(t, s->n, sizeof *t, sortent_cmp);
    for (size_t i = 0; i < s->n; i++) {
        if (i > 0 && t[i].s.index == t[i - 1].s.index) {
            unsigned l1 = t[i - 1].line, l2 = t[i].line;
            uint32_t ix = t[i].s.index;
            free(t);
            return pl__fail(err, PL_E_PARSE, "%s:%u: index %u repeats line %u in [PerfStrings_%s]", name, l2, ix, l1,
                            lang);
        }
    }
    for (size_t i = 0; i < s->n; i++) {
        s->v[i] = t[i].s;
        s->lines[i] = t[i].line;
    }
    free(t);
    return PL_OK;
}

enum { B_NONE, B_PERFLIB, B_PROVIDER, B_STRINGS, B_OTHER };

PL_EXTERN int pl_backup_read_mem(const void *data, size_t len, const char *name, pl_backup **out, pl_error *err)
{
    if (!out) return pl__fail(err, PL_E_INVAL, "pl_backup_read_mem: out is NULL");
    *out = NULL;
    if (!name) name = "backup";
    pl__clear(err);
    char *txt = NULL;
    size_t tl = 0;
    int rc = pl__lc_decode(data, len, name, &txt, &tl, NULL, err);
    if (rc != PL_OK) return rc;

    rlang *langs = NULL;
    size_t nlangs = 0, clangs = 0;
    pl_backup_provider *provs = NULL;
    size_t nprovs = 0, cprovs = 0;
    int have_base = 0, have_lc = 0, have_lh = 0, have_perflib = 0;
    uint32_t base = 0, lc = 0, lh = 0;
    int sec = B_NONE;
    size_t cur = 0;
    pl__lc_lines it;
    pl__lc_lines_init(&it, txt, tl);
    /* Windows writes CRLF; a help text may hold a bare LF (the Arabic
     * backup has some), which then belongs to the text. */
    it.crlf_only = memmem(txt, tl, "\r\n", 2) != NULL;
    const char *s;
    size_t n;
    while (rc == PL_OK && pl__lc_next_line(&it, &s, &n)) {
        unsigned line = it.line;
        const char *t = s;
        size_t tn = n;
        pl__lc_trim(&t, &tn);
        if (tn == 0) continue;
        if (t[0] == '[') {
            size_t close = tn;
            while (close > 0 && t[close - 1] != ']') close--;
            if (close == 0) {
                rc = pl__fail(err, PL_E_PARSE, "%s:%u: section header without ']'", name, line);
                break;
            }
            const char *nm = t + 1;
            size_t nn = close - 2;
            if (pl__lc_eq_ci(nm, nn, "Perflib")) {
                if (have_perflib) {
                    rc = pl__fail(err, PL_E_PARSE, "%s:%u: second [Perflib] section", name, line);
                    break;
                }
                have_perflib = 1;
                sec = B_PERFLIB;
            } else if (nn >= 5 && pl__lc_eq_ci(nm, 5, "PERF_")) {
                if (nn == 5) {
                    rc = pl__fail(err, PL_E_PARSE, "%s:%u: [PERF_] section without a provider name", name, line);
                    break;
                }
                for (size_t i = 0; i < nprovs; i++)
                    if (pl__lc_eq_ci(nm + 5, nn - 5, provs[i].name)) {
                        rc = pl__fail(err, PL_E_PARSE, "%s:%u: provider %s appears twice", name, line, provs[i].name);
                        break;
                    }
                if (rc != PL_OK) break;
                if (nprovs == cprovs) {
                    size_t nc = cprovs ? cprovs * 2 : 16;
                    pl_backup_provider *np = realloc(provs, nc * sizeof *np);
                    if (!np) {
                        rc = pl__fail(err, PL_E_NOMEM, "out of memory");
                        break;
                    }
                    provs = np;
                    cprovs = nc;
                }
                memset(&provs[nprovs], 0, sizeof provs[nprovs]);
                provs[nprovs].name = pl__lc_strndup(nm + 5, nn - 5);
                if (!provs[nprovs].name) {
                    rc = pl__fail(err, PL_E_NOMEM, "out of memory");
                    break;
                }
                cur = nprovs++;
                sec = B_PROVIDER;
            } else if (nn >= 12 && pl__lc_eq_ci(nm, 12, "PerfStrings_")) {
                char lg[8];
                if (!norm_lang(nm + 12, nn - 12, lg)) {
                    rc = pl__fail(err, PL_E_PARSE, "%s:%u: bad language '%.*s'", name, line,
                                  (int)(nn - 12 > 40 ? 40 : nn - 12), nm + 12);
                    break;
                }
                for (size_t i = 0; i < nlangs; i++)
                    if (strcmp(langs[i].lang, lg) == 0) {
                        rc = pl__fail(err, PL_E_PARSE, "%s:%u: language %s appears twice (line %u)", name, line, lg,
                                      langs[i].line);
                        break;
                    }
                if (rc != PL_OK) break;
                if (nlangs == clangs) {
                    size_t nc = clangs ? clangs * 2 : 4;
                    rlang *nl = realloc(langs, nc * sizeof *nl);
                    if (!nl) {
                        rc = pl__fail(err, PL_E_NOMEM, "out of memory");
                        break;
                    }
                    langs = nl;
                    clangs = nc;
                }
                memset(&langs[nlangs], 0, sizeof langs[nlangs]);
                memcpy(langs[nlangs].lang, lg, sizeof lg);
                langs[nlangs].line = line;
                cur = nlangs++;
                sec = B_STRINGS;
            } else {
                sec = B_OTHER;
            }
            continue;
        }
        const char *eq = memchr(s, '=', n);
        if (!eq) {
            rc = pl__fail(err, PL_E_PARSE, "%s:%u: line without '='", name, line);
            break;
        }
        const char *k = s, *v = eq + 1;
        size_t kn = (size_t)(eq - s), vn = n - kn - 1;
        pl__lc_trim(&k, &kn);
        if (sec == B_NONE) {
            rc = pl__fail(err, PL_E_PARSE, "%s:%u: value outside any section", name, line);
            break;
        }
        if (sec == B_OTHER) continue;
        if (sec == B_STRINGS) {
            uint32_t idx;
            if (!parse_u32(k, kn, &idx) || idx == 0) {
                rc = pl__fail(err, PL_E_PARSE, "%s:%u: bad index '%.*s'", name, line, (int)(kn > 40 ? 40 : kn), k);
                break;
            }
            char *text = pl__lc_strndup(v, vn);
            rlang *L = &langs[cur];
            int ok = text && (idx == 1 || idx % 2 == 0 ? strs_add(&L->names, idx, text, line)
                                                       : strs_add(&L->helps, idx, text, line));
            if (!ok) {
                free(text);
                rc = pl__fail(err, PL_E_NOMEM, "out of memory");
            }
            continue;
        }
        pl__lc_trim(&v, &vn);
        uint32_t val;
        int known = 1;
        uint32_t *dst = NULL;
        if (sec == B_PERFLIB) {
            if (pl__lc_eq_ci(k, kn, "Base Index")) dst = &base, have_base = 1;
            else if (pl__lc_eq_ci(k, kn, "Last Counter")) dst = &lc, have_lc = 1;
            else if (pl__lc_eq_ci(k, kn, "Last Help")) dst = &lh, have_lh = 1;
            else known = 0;
        } else {
            pl_backup_provider *p = &provs[cur];
            if (pl__lc_eq_ci(k, kn, "First Counter")) dst = &p->first_counter;
            else if (pl__lc_eq_ci(k, kn, "First Help")) dst = &p->first_help;
            else if (pl__lc_eq_ci(k, kn, "Last Counter")) dst = &p->last_counter;
            else if (pl__lc_eq_ci(k, kn, "Last Help")) dst = &p->last_help;
            else known = 0;
        }
        if (!known) continue;
        if (!parse_u32(v, vn, &val)) {
            rc = pl__fail(err, PL_E_PARSE, "%s:%u: %.*s is not a number", name, line, (int)(kn > 40 ? 40 : kn), k);
            break;
        }
        *dst = val;
    }
    unsigned last_line = it.line;
    free(txt);
    if (rc == PL_OK && (!have_perflib || !have_base || !have_lc || !have_lh))
        rc = pl__fail(err, PL_E_PARSE, "%s:%u: [Perflib] with Base Index, Last Counter and Last Help is missing",
                      name, last_line ? last_line : 1);
    for (size_t i = 0; rc == PL_OK && i < nlangs; i++) {
        rc = finish_strs(&langs[i].names, name, langs[i].lang, err);
        if (rc == PL_OK) rc = finish_strs(&langs[i].helps, name, langs[i].lang, err);
    }
    pl_backup *bk = NULL;
    if (rc == PL_OK) {
        bk = calloc(1, sizeof *bk);
        if (bk && nlangs) bk->langs = calloc(nlangs, sizeof *bk->langs);
        if (!bk || (nlangs && !bk->langs)) {
            free(bk);
            bk = NULL;
            rc = pl__fail(err, PL_E_NOMEM, "out of memory");
        }
    }
    if (rc != PL_OK) {
        for (size_t i = 0; i < nlangs; i++) {
            strs_free(&langs[i].names);
            strs_free(&langs[i].helps);
        }
        free(langs);
        for (size_t i = 0; i < nprovs; i++) free(provs[i].name);
        free(provs);
        return rc;
    }
    bk->base_index = base;
    bk->last_counter = lc;
    bk->last_help = lh;
    for (size_t i = 0; i < nlangs; i++) {
        pl_backup_lang *L = &bk->langs[i];
        memcpy(L->lang, langs[i].lang, sizeof L->lang);
        L->names = langs[i].names.v;
        L->nnames = langs[i].names.n;
        L->helps = langs[i].helps.v;
        L->nhelps = langs[i].helps.n;
        free(langs[i].names.lines);
        free(langs[i].helps.lines);
    }
    bk->nlangs = nlangs;
    free(langs);
    bk->providers = provs;
    bk->nproviders = nprovs;
    *out = bk;
    return PL_OK;
}

PL_EXTERN int pl_backup_read_file(const char *path, pl_backup **out, pl_error *err)
{
    if (!out) return pl__fail(err, PL_E_INVAL, "pl_backup_read_file: out is NULL");
    *out = NULL;
    if (!path) return pl__fail(err, PL_E_INVAL, "pl_backup_read_file: path is NULL");
    unsigned char *data = NULL;
    size_t len = 0;
    int rc = pl__lc_read_file(path, &data, &len, err);
    if (rc != PL_OK) return rc;
    rc = pl_backup_read_mem(data, len, path, out, err);
    free(data);
    return rc;
}

/* ---------------------------------------------------------------- write */

static int ci_cmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        unsigned char x = (unsigned char)*a, y = (unsigned char)*b;
        if (x >= 'a' && x <= 'z') x = (unsigned char)(x - 32);
        if (y >= 'a' && y <= 'z') y = (unsigned char)(y - 32);
        if (x != y || !x) return (x > y) - (x < y);
    }
}

static int prov_cmp(const void *a, const void *b)
{
    const pl_backup_provider *x = *(const pl_backup_provider *const *)a, *y = *(const pl_backup_provider *const *)b;
    int r = ci_cmp(x->name, y->name);
    return r ? r : strcmp(x->name, y->name);
}

static int lang_cmp(const void *a, const void *b)
{
    const pl_backup_lang *x = *(const pl_backup_lang *const *)a, *y = *(const pl_backup_lang *const *)b;
    return strcmp(x->lang, y->lang);
}

typedef struct went {
    uint32_t index;
    const char *text;
    int help;
} went;

static int went_cmp(const void *a, const void *b)
{
    const went *x = a, *y = b;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    return x->help - y->help;
}

/* A failed append shows in b->failed, checked once at the end. */
static void put(pl__buf *b, const char *s) { pl__buf_str(b, s); }

static void putu(pl__buf *b, const char *key, uint32_t v) { pl__buf_printf(b, "\r\n%s=%u", key, v); }

/* Only CRLF ends a line of a backup; a bare LF or CR inside a text is kept. */
static int has_break(const char *s)
{
    return strstr(s, "\r\n") != NULL;
}

static int write_lang(pl__buf *b, const pl_backup_lang *L, pl_error *err)
{
    char lg[8];
    if (!norm_lang(L->lang, strnlen(L->lang, sizeof L->lang), lg))
        return pl__fail(err, PL_E_RANGE, "backup: bad language '%.8s'", L->lang);
    size_t n = L->nnames + L->nhelps;
    went *w = malloc((n + 1) * sizeof *w);
    if (!w) return pl__fail(err, PL_E_NOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < L->nnames; i++) {
        uint32_t ix = L->names[i].index;
        if (ix == 0 || (ix != 1 && ix % 2)) {
            free(w);
            return pl__fail(err, PL_E_RANGE,
                            "backup: language %s: name at odd index %u cannot be written (odd indices are help texts)",
                            lg, ix);
        }
        w[k++] = (went){ix, L->names[i].text, 0};
    }
    for (size_t i = 0; i < L->nhelps; i++) {
        uint32_t ix = L->helps[i].index;
        if (ix % 2 == 0 || ix == 1) {
            free(w);
            return pl__fail(err, PL_E_RANGE,
                            "backup: language %s: help at index %u cannot be written (help texts have odd indices > 1)",
                            lg, ix);
        }
        w[k++] = (went){ix, L->helps[i].text, 1};
    }
    if (k) qsort(w, k, sizeof *w, went_cmp);
    put(b, "\r\n\r\n[PerfStrings_");
    put(b, lg);
    put(b, "]");
    for (size_t i = 0; i < k; i++) {
        const char *t = w[i].text ? w[i].text : "";
        if (i > 0 && w[i].index == w[i - 1].index) {
            uint32_t ix = w[i].index;
            free(w);
            return pl__fail(err, PL_E_RANGE, "backup: language %s: index %u appears twice", lg, ix);
        }
        if (has_break(t)) {
            uint32_t ix = w[i].index;
            free(w);
            return pl__fail(err, PL_E_RANGE, "backup: language %s: text of index %u contains a line break", lg, ix);
        }
        pl__buf_printf(b, "\r\n%u=", w[i].index);
        put(b, t);
    }
    free(w);
    return PL_OK;
}

PL_EXTERN int pl_backup_write_mem(const pl_backup *bk, void **data, size_t *len, pl_error *err)
{
    if (!bk || !data || !len) return pl__fail(err, PL_E_INVAL, "pl_backup_write_mem: NULL argument");
    *data = NULL;
    *len = 0;
    pl__clear(err);
    pl__buf b = {0};
    int rc = PL_OK;
    put(&b, "\r\n\r\n[Perflib]");
    putu(&b, "Base Index", bk->base_index);
    putu(&b, "Last Counter", bk->last_counter);
    putu(&b, "Last Help", bk->last_help);
    const pl_backup_provider **pv = malloc((bk->nproviders + 1) * sizeof *pv);
    const pl_backup_lang **lv = malloc((bk->nlangs + 1) * sizeof *lv);
    if (!pv || !lv) {
        rc = pl__fail(err, PL_E_NOMEM, "out of memory");
        goto out;
    }
    size_t np = 0;
    for (size_t i = 0; i < bk->nproviders; i++) {
        const pl_backup_provider *p = &bk->providers[i];
        if (!p->name || !p->name[0] || strchr(p->name, '\r') || strchr(p->name, '\n') || strchr(p->name, ']')) {
            rc = pl__fail(err, PL_E_RANGE, "backup: provider name '%s' cannot be written", p->name ? p->name : "");
            goto out;
        }
        if (p->first_counter || p->first_help || p->last_counter || p->last_help) pv[np++] = p;
    }
    if (np) qsort(pv, np, sizeof *pv, prov_cmp);
    for (size_t i = 0; i < np; i++) {
        put(&b, "\r\n\r\n[PERF_");
        put(&b, pv[i]->name);
        put(&b, "]");
        putu(&b, "First Counter", pv[i]->first_counter);
        putu(&b, "First Help", pv[i]->first_help);
        putu(&b, "Last Counter", pv[i]->last_counter);
        putu(&b, "Last Help", pv[i]->last_help);
    }
    for (size_t i = 0; i < bk->nlangs; i++) lv[i] = &bk->langs[i];
    if (bk->nlangs) qsort(lv, bk->nlangs, sizeof *lv, lang_cmp);
    for (size_t i = 0; i < bk->nlangs && rc == PL_OK; i++) rc = write_lang(&b, lv[i], err);
    if (rc != PL_OK) goto out;
    if (b.failed) {
        rc = pl__fail(err, PL_E_NOMEM, "out of memory");
        goto out;
    }
    uint16_t *u16 = NULL;
    size_t units = 0;
    rc = pl__utf8_to_utf16_dup(b.p, &u16, &units); /* the buffer keeps a NUL after its text */
    if (rc == PL_E_ENCODING) {
        rc = pl__fail(err, PL_E_ENCODING, "backup: a string is not valid UTF-8");
        goto out;
    }
    if (rc != PL_OK) {
        rc = pl__fail(err, PL_E_NOMEM, "out of memory");
        goto out;
    }
    /* uint16_t is stored little-endian on every supported platform
     * (pl_internal.h refuses big-endian builds). */
    *data = u16;
    *len = units * 2;
out:
    free(pv);
    free(lv);
    pl__buf_free(&b);
    return rc;
}

/* PL_OK when nothing is at `path` or a regular file is; else PL_E_IO. */
static int not_regular(const char *path, pl_error *err)
{
    struct stat sb;
    if (lstat(path, &sb) != 0) {
        if (errno == ENOENT) return PL_OK;
        char eb[128];
        return pl__fail(err, PL_E_IO, "%s: cannot check: %s", path, pl__strerror(errno, eb, sizeof eb));
    }
    if (S_ISREG(sb.st_mode)) return PL_OK;
    const char *what = S_ISLNK(sb.st_mode)    ? "a symbolic link"
                       : S_ISCHR(sb.st_mode)  ? "a character device"
                       : S_ISBLK(sb.st_mode)  ? "a block device"
                       : S_ISFIFO(sb.st_mode) ? "a FIFO"
                       : S_ISSOCK(sb.st_mode) ? "a socket"
                       : S_ISDIR(sb.st_mode)  ? "a directory"
                                              : "not a regular file";
    return pl__fail(err, PL_E_IO, "%s: is %s; a backup replaces only a regular file (give the path of a new or "
                    "regular file)", path, what);
}

PL_EXTERN int pl_backup_write_file(const pl_backup *bk, const char *path, pl_error *err)
{
    if (!path) return pl__fail(err, PL_E_INVAL, "pl_backup_write_file: path is NULL");
    void *data = NULL;
    size_t len = 0;
    int rc = pl_backup_write_mem(bk, &data, &len, err);
    if (rc != PL_OK) return rc;
    /* Only a regular file is replaced: a device, a FIFO, a socket or a
     * directory at the path is refused, and so is a symbolic link (the
     * rename would replace the link, not what it points to: say so rather
     * than do either silently). */
    int nr = not_regular(path, err);
    if (nr != PL_OK) {
        free(data);
        return nr;
    }
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 8);
    if (!tmp) {
        free(data);
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    memcpy(tmp, path, pl);
    memcpy(tmp + pl, ".XXXXXX", 8);
    int fd = mkstemp(tmp);
    char eb[128];
    if (fd < 0) {
        int e = errno;
        rc = pl__fail(err, PL_E_IO, "%s: cannot create: %s", path, strerror_r(e, eb, sizeof eb));
        free(tmp);
        free(data);
        return rc;
    }
    const unsigned char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            rc = pl__fail(err, PL_E_IO, "%s: cannot write: %s", path, strerror_r(e, eb, sizeof eb));
            break;
        }
        p += w;
        left -= (size_t)w;
    }
    if (rc == PL_OK && fsync(fd) != 0) {
        int e = errno;
        rc = pl__fail(err, PL_E_IO, "%s: cannot write: %s", path, strerror_r(e, eb, sizeof eb));
    }
    if (close(fd) != 0 && rc == PL_OK) {
        int e = errno;
        rc = pl__fail(err, PL_E_IO, "%s: cannot write: %s", path, strerror_r(e, eb, sizeof eb));
    }
    if (rc == PL_OK) rc = not_regular(path, err); /* again: it may have changed while we wrote */
    if (rc == PL_OK && rename(tmp, path) != 0) {
        int e = errno;
        rc = pl__fail(err, PL_E_IO, "%s: cannot rename: %s", path, strerror_r(e, eb, sizeof eb));
    }
    if (rc != PL_OK) unlink(tmp);
    free(tmp);
    free(data);
    return rc;
}
