/* relog: CSV/TSV performance log reader (relog_text.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "relog_text.h"

struct rt_text {
    FILE *fp;
    char sep;
    char **cols;
    size_t ncols;
    char *line;
    size_t linecap;
    size_t lineno;
    char **cells;             /* into fields */
    size_t ncells, cellcap;
    char *fields;
    size_t fieldcap;
};

static void msg(pl_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void msg(pl_error *err, const char *fmt, ...)
{
    if (!err) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->status = PL_E_PARSE;
}

/* Split a line into cells (quoted with "" doubling, or bare). 0 or -1. */
static int split(rt_text *t, const char *line)
{
    size_t n = strlen(line);
    if (n + 1 > t->fieldcap) {
        char *f = realloc(t->fields, n + 1);
        if (!f) return -1;
        t->fields = f;
        t->fieldcap = n + 1;
    }
    char *o = t->fields;
    const char *p = line;
    t->ncells = 0;
    for (;;) {
        if (t->ncells == t->cellcap) {
            size_t c = t->cellcap ? t->cellcap * 2 : 64;
            char **nc = realloc(t->cells, c * sizeof *nc);
            if (!nc) return -1;
            t->cells = nc;
            t->cellcap = c;
        }
        t->cells[t->ncells++] = o;
        if (*p == '"') {
            p++;
            for (;;) {
                if (!*p) return -1; /* unterminated quote */
                if (*p == '"') {
                    if (p[1] == '"') {
                        *o++ = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                *o++ = *p++;
            }
            if (*p && *p != t->sep) return -1;
        } else {
            while (*p && *p != t->sep) *o++ = *p++;
        }
        *o++ = '\0';
        if (!*p) return 0;
        p++; /* the separator */
    }
}

static int read_line(rt_text *t)
{
    ssize_t n = getline(&t->line, &t->linecap, t->fp);
    if (n < 0) return -1;
    t->lineno++;
    while (n > 0 && (t->line[n - 1] == '\n' || t->line[n - 1] == '\r')) t->line[--n] = '\0';
    if (memchr(t->line, '\0', (size_t)n)) t->line[0] = '\0'; /* NUL bytes: not text */
    return 0;
}

int rt_text_open(const char *file, rt_text **out, pl_error *err)
{
    *out = NULL;
    rt_text *t = calloc(1, sizeof *t);
    if (!t) return -1;
    t->fp = fopen(file, "rb");
    if (!t->fp) {
        msg(err, "%s", strerror(errno));
        free(t);
        return -1;
    }
    int found = 0;
    while (!found && t->lineno < 16 && read_line(t) == 0) {
        char *l = t->line;
        if ((unsigned char)l[0] == 0xEF && (unsigned char)l[1] == 0xBB && (unsigned char)l[2] == 0xBF) l += 3;
        if ((unsigned char)l[0] == 0xFF && (unsigned char)l[1] == 0xFE) {
            msg(err, "UTF-16 text is not read (save the log as UTF-8)");
            break;
        }
        if (!*l) continue;
        if (strncmp(l, "\"(PDH-CSV 4.0)", 14) == 0) t->sep = ',';
        else if (strncmp(l, "\"(PDH-TSV 4.0)", 14) == 0) t->sep = '\t';
        else {
            msg(err, "line %zu does not start with \"(PDH-CSV 4.0)\" or \"(PDH-TSV 4.0)\"", t->lineno);
            break;
        }
        memmove(t->line, l, strlen(l) + 1);
        if (split(t, t->line) != 0 || t->ncells < 2) {
            msg(err, "the header line is malformed");
            break;
        }
        t->ncols = t->ncells - 1;
        t->cols = calloc(t->ncols, sizeof *t->cols);
        if (!t->cols) break;
        for (size_t i = 0; i < t->ncols; i++)
            if (!(t->cols[i] = strdup(t->cells[i + 1]))) {
                msg(err, "out of memory");
                rt_text_close(t);
                return -1;
            }
        found = 1;
    }
    if (!found) {
        if (err && !err->msg[0]) msg(err, "no \"(PDH-CSV 4.0)\" header line");
        rt_text_close(t);
        return -1;
    }
    *out = t;
    return 0;
}

void rt_text_close(rt_text *t)
{
    if (!t) return;
    if (t->fp) fclose(t->fp);
    for (size_t i = 0; t->cols && i < t->ncols; i++) free(t->cols[i]);
    free(t->cols);
    free(t->line);
    free(t->cells);
    free(t->fields);
    free(t);
}

size_t rt_text_ncols(const rt_text *t) { return t->ncols; }
const char *rt_text_col(const rt_text *t, size_t i) { return t->cols[i]; }
char rt_text_sep(const rt_text *t) { return t->sep; }

/* "MM/DD/YYYY HH:MM:SS.mmm" local time -> UTC FILETIME. */
static int parse_stamp(const char *s, int64_t *ft)
{
    int mo, d, y, h, mi, sec, ms = 0, n = 0;
    if (sscanf(s, "%2d/%2d/%4d %2d:%2d:%2d%n", &mo, &d, &y, &h, &mi, &sec, &n) != 6) return -1;
    const char *p = s + n;
    if (*p == '.') {
        int digits = 0;
        p++;
        while (*p >= '0' && *p <= '9' && digits < 3) {
            ms = ms * 10 + (*p++ - '0');
            digits++;
        }
        if (digits != 3) return -1;
    }
    if (*p) return -1;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || y < 1601 || y > 9999 || h > 23 || mi > 59 || sec > 60) return -1;
    struct tm tm = {0};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    tm.tm_isdst = -1;
    time_t t = mktime(&tm);
    *ft = (((int64_t)t * 1000 + ms) + 11644473600000LL) * 10000;
    return 0;
}

int rt_text_next(rt_text *t, int64_t *ft, pl_error *err)
{
    while (read_line(t) == 0) {
        if (t->line[0] != '"') continue;
        if (split(t, t->line) != 0) {
            msg(err, "line %zu: unterminated quote or text after a closing quote", t->lineno);
            return RT_BAD;
        }
        if (t->ncells != t->ncols + 1) {
            msg(err, "line %zu has %zu cells, the header %zu", t->lineno, t->ncells, t->ncols + 1);
            return RT_BAD;
        }
        if (parse_stamp(t->cells[0], ft) != 0) {
            msg(err, "line %zu: \"%.40s\" is not a time (MM/DD/YYYY HH:MM:SS.mmm)", t->lineno, t->cells[0]);
            return RT_BAD;
        }
        return RT_ROW;
    }
    return RT_END;
}

int rt_text_value(const rt_text *t, size_t i, double *v)
{
    const char *s = t->cells[i + 1];
    if (!*s || (s[0] == ' ' && !s[1])) return 0;
    char *e = NULL;
    errno = 0;
    double d = strtod(s, &e);
    if (e == s || *e || !isfinite(d)) return 0;
    *v = d;
    return 1;
}
