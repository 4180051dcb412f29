/* perflib counter logs: CSV and TSV logs in the PDH-CSV 4.0 form Windows'
 * typeperf, relog and Performance Monitor write (docs/counter-log.md,
 * "Other formats"), read as logs of formatted values.
 *
 *   "(PDH-CSV 4.0) (W. Europe Daylight Time)(-120)","\\VM\Memory\Available Bytes",...
 *   "06/30/2026 23:59:59.500","23962193920",...
 *   "06/30/2026 23:59:59.750"," ",...
 *
 * The file is hostile: lines are bounded, every row is checked when it is
 * read (cell count, quoting, time), a bad row is reported with its line
 * number and never guessed at, and the other rows are still read. Opening
 * indexes the rows (file offset and time) in one pass. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log_ext.h"

/* A line longer than this is not read (it is reported as a bad row). */
#define MAX_LINE (64u << 20)
/* Lines searched for the header (a console capture starts with an empty
 * line; a BOM may come first). */
#define HEADER_LINES 16

typedef struct trow {
    int64_t time;
    uint64_t off;             /* of the line */
    uint32_t len;             /* without the line end */
    uint32_t line;            /* 1-based */
    uint8_t toolong;          /* longer than MAX_LINE: not kept */
} trow;

typedef struct textlog {
    pl__xlog x;               /* first: the backend's view */
    int fd;
    char *path;
    char sep;
    pl_log_column *cols;
    char **names;
    char *machine;
    trow *r;
    size_t cap;
    /* time conversion: the header's bias when the local zone disagrees */
    int fixed;
    int32_t bias;
    /* a row being parsed */
    char *buf;
    size_t bufcap;
    char **cells;
    size_t ncells, cellcap;
} textlog;

/* ------------------------------------------------------------ lines */

typedef struct lreader {
    int fd;
    uint8_t b[65536];
    size_t pos, len;
    uint64_t off;             /* file offset of b[pos] */
    int eof;
} lreader;

/* The next line into *line (NUL-terminated, without CR/LF). *start is its
 * offset, *len its length; *toolong when it exceeded MAX_LINE (then only
 * its start is kept). 1 with a line, 0 at the end, -1 on a read error or
 * no memory. */
static int next_line(lreader *r, char **line, size_t *cap, size_t *len, uint64_t *start, int *toolong)
{
    size_t n = 0;
    *toolong = 0;
    *start = r->off;
    int got = 0;
    for (;;) {
        if (r->pos == r->len) {
            if (r->eof) break;
            ssize_t k = read(r->fd, r->b, sizeof r->b);
            if (k < 0 && errno == EINTR) continue;
            if (k < 0) return -1;
            if (k == 0) {
                r->eof = 1;
                break;
            }
            r->pos = 0;
            r->len = (size_t)k;
        }
        got = 1;
        uint8_t *s = r->b + r->pos, *nl = memchr(s, '\n', r->len - r->pos);
        size_t take = nl ? (size_t)(nl - s) : r->len - r->pos;
        if (!*toolong && n + take > MAX_LINE) *toolong = 1;
        if (!*toolong) {
            if (n + take + 1 > *cap) {
                size_t c = *cap ? *cap : 256;
                while (c < n + take + 1) c *= 2;
                char *p = realloc(*line, c);
                if (!p) return -1;
                *line = p;
                *cap = c;
            }
            memcpy(*line + n, s, take);
            n += take;
        }
        r->pos += take + (nl ? 1 : 0);
        r->off += take + (nl ? 1 : 0);
        if (nl) break;
    }
    if (!got) return 0;
    if (*toolong) n = 0;
    if (!*line) {
        if (!(*line = malloc(1))) return -1;
        *cap = 1;
    }
    while (n > 0 && (*line)[n - 1] == '\r') n--;
    (*line)[n] = '\0';
    *len = n;
    return 1;
}

/* --------------------------------------------------------- splitting */

/* Split line (len bytes, may hold NULs: refused) into cells: quoted with
 * "" doubling, or bare. 0, or -1 with *why. */
static int split(textlog *t, const char *line, size_t len, const char **why)
{
    if (memchr(line, '\0', len)) {
        *why = "it holds a NUL byte (not text)";
        return -1;
    }
    if (len + 1 > t->bufcap) {
        char *b = realloc(t->buf, len + 1);
        if (!b) {
            *why = "out of memory";
            return -1;
        }
        t->buf = b;
        t->bufcap = len + 1;
    }
    char *o = t->buf;
    const char *p = line, *end = line + len;
    t->ncells = 0;
    for (;;) {
        if (t->ncells == t->cellcap) {
            size_t c = t->cellcap ? t->cellcap * 2 : 64;
            char **nc = realloc(t->cells, c * sizeof *nc);
            if (!nc) {
                *why = "out of memory";
                return -1;
            }
            t->cells = nc;
            t->cellcap = c;
        }
        t->cells[t->ncells++] = o;
        if (p < end && *p == '"') {
            p++;
            for (;;) {
                if (p == end) {
                    *why = "a quote is not closed";
                    return -1;
                }
                if (*p == '"') {
                    if (p + 1 < end && p[1] == '"') {
                        *o++ = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                *o++ = *p++;
            }
            if (p < end && *p != t->sep) {
                *why = "text follows a closing quote";
                return -1;
            }
        } else {
            while (p < end && *p != t->sep) *o++ = *p++;
        }
        *o++ = '\0';
        if (p == end) return 0;
        p++; /* the separator */
    }
}

/* ------------------------------------------------------------ times */

/* A row's wall time as UTC FILETIME: with the local zone's rules (the log
 * was written in this zone, or names none), else the header's fixed bias. */
static int wall_to_ft(const textlog *t, const pl__walltime *w, int64_t *ft)
{
    if (t->fixed) {
        *ft = pl__walltime_ft(w) + (int64_t)t->bias * 600000000LL;
        return 0;
    }
    struct tm tm = {0};
    tm.tm_year = w->year - 1900;
    tm.tm_mon = w->mon - 1;
    tm.tm_mday = w->day;
    tm.tm_hour = w->hour;
    tm.tm_min = w->min;
    tm.tm_sec = w->sec;
    tm.tm_isdst = -1;
    time_t s = mktime(&tm);
    if (s == (time_t)-1 && !(tm.tm_year == 69 && tm.tm_mon == 11 && tm.tm_mday == 31)) return -1;
    *ft = ((int64_t)s + 11644473600LL) * 10000000LL + (int64_t)w->ms * 10000;
    return 0;
}

/* Header cell 1 after "(PDH-CSV 4.0)": " (<zone>)(<bias>)", optional.
 * 1 with the bias, 0 when absent or malformed. */
static int header_bias(const char *rest, int32_t *bias)
{
    size_t n = strlen(rest);
    if (n < 3 || rest[n - 1] != ')') return 0;
    const char *open = NULL;
    for (size_t i = n - 1; i-- > 0;)
        if (rest[i] == '(') {
            open = rest + i;
            break;
        }
    if (!open || open == rest || open[-1] != ')') return 0;
    const char *p = open + 1;
    int neg = 0;
    if (*p == '-' || *p == '+') neg = *p++ == '-';
    long v = 0;
    int nd = 0;
    while (*p >= '0' && *p <= '9' && nd < 6) {
        v = v * 10 + (*p++ - '0');
        nd++;
    }
    if (!nd || *p != ')' || p != rest + n - 1 || v > 24 * 60) return 0;
    *bias = (int32_t)(neg ? -v : v);
    return 1;
}

/* ------------------------------------------------------------ reading */

static int text_read(pl__xlog *x, size_t i, double *vals, unsigned char *present, pl_error *err)
{
    textlog *t = (textlog *)x;
    const trow *r = &t->r[i];
    size_t nc = x->h.ncolumns;
    char *line = malloc((size_t)r->len + 1);
    if (!line) return pl__fail(err, PL_E_NOMEM, "out of memory");
    size_t done = 0;
    while (done < r->len) {
        ssize_t k = pread(t->fd, line + done, r->len - done, (off_t)(r->off + done));
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        done += (size_t)k;
    }
    line[done] = '\0';
    int s = PL_OK;
    const char *why = NULL;
    pl__walltime w;
    int64_t ft;
    if (done != r->len) {
        why = "it cannot be read back (the file changed)";
    } else if (r->toolong) {
        why = "it is longer than 64 MiB";
    } else if (split(t, line, done, &why) != 0) {
        /* why is set */
    } else if (t->ncells != nc + 1) {
        s = pl__fail(err, PL_E_BAD_BLOCK, "%s: line %u has %zu cells, the header %zu", t->path, (unsigned)r->line,
                     t->ncells, nc + 1);
    } else if (pl__parse_us_time(t->cells[0], &w) != 0 || wall_to_ft(t, &w, &ft) != 0) {
        s = pl__fail(err, PL_E_BAD_BLOCK, "%s: line %u: \"%.40s\" is not a time (MM/DD/YYYY HH:MM:SS.mmm)", t->path,
                     (unsigned)r->line, t->cells[0]);
    }
    if (why) s = pl__fail(err, PL_E_BAD_BLOCK, "%s: line %u: %s", t->path, (unsigned)r->line, why);
    if (s == PL_OK) {
        for (size_t c = 0; c < nc; c++) {
            const char *v = t->cells[c + 1];
            char *e = NULL;
            present[c] = 0;
            vals[c] = 0;
            /* " " (or nothing) is Windows' empty value; text is none either */
            if (!*v || (v[0] == ' ' && !v[1])) continue;
            double d = strtod(v, &e);
            if (e == v || *e || !isfinite(d)) continue;
            vals[c] = d;
            present[c] = 1;
        }
    }
    free(line);
    return s;
}

static void text_close(pl__xlog *x)
{
    textlog *t = (textlog *)x;
    if (!t) return;
    if (t->fd >= 0) close(t->fd);
    for (size_t i = 0; t->names && i < x->h.ncolumns; i++) free(t->names[i]);
    free(t->names);
    free(t->cols);
    free(t->machine);
    free(t->r);
    free(x->times);
    free(t->buf);
    free(t->cells);
    free(t->path);
    free(t);
}

/* Strip a UTF-8 BOM; "" stays "". */
static const char *skip_bom(const char *l)
{
    const unsigned char *u = (const unsigned char *)l;
    return u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF ? l + 3 : l;
}

/* "(PDH-CSV 4.0)" (1) or "(PDH-TSV 4.0)" (2) at the start of a line,
 * quoted or not; 0 otherwise. */
static int header_kind(const char *l)
{
    if (*l == '"') l++;
    if (strncmp(l, "(PDH-CSV 4.0)", 13) == 0) return 1;
    if (strncmp(l, "(PDH-TSV 4.0)", 13) == 0) return 2;
    return 0;
}

int pl__textlog_sniff(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char b[4096];
    ssize_t n = read(fd, b, sizeof b - 1);
    close(fd);
    if (n <= 0) return 0;
    b[n] = '\0';
    const unsigned char *u = (const unsigned char *)b;
    if (n >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF))) return 3;
    if (n >= 8 && memcmp(b, "PLCLOG\r\n", 8) == 0) return 0;
    const char *p = skip_bom(b);
    while (*p == '\r' || *p == '\n') p++;
    return header_kind(p);
}

/* The first row's wall time decides how times convert: a header bias that
 * is the local zone's own at that time means the log was written here, and
 * the local rules (daylight saving changes included) apply; another bias is
 * applied as it is. */
static void choose_zone(textlog *t, int have_bias, const char *first_cell)
{
    t->fixed = 0;
    if (!have_bias || !first_cell) return;
    pl__walltime w;
    if (pl__parse_us_time(first_cell, &w) != 0) return;
    int64_t local;
    if (wall_to_ft(t, &w, &local) == 0 && local == pl__walltime_ft(&w) + (int64_t)t->bias * 600000000LL) return;
    t->fixed = 1;
}

int pl__textlog_open(const char *path, pl__xlog **out, pl_error *err)
{
    *out = NULL;
    textlog *t = calloc(1, sizeof *t);
    if (!t) return pl__fail(err, PL_E_NOMEM, "out of memory");
    t->fd = -1;
    lreader *lr = malloc(sizeof *lr);
    char *line = NULL, *first_time = NULL;
    size_t cap = 0, len = 0;
    uint64_t start = 0;
    int toolong = 0, s = PL_OK, have_bias = 0, got;
    char eb[128];
    t->path = pl__strdup(path);
    if (!lr || !t->path) {
        s = pl__fail(err, PL_E_NOMEM, "out of memory");
        goto fail;
    }
    memset(lr, 0, sizeof *lr);
    t->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (t->fd < 0) {
        int e = errno;
        s = pl__fail(err, e == ENOENT ? PL_E_NOT_FOUND : PL_E_IO, "%s: %s", path, pl__strerror(e, eb, sizeof eb));
        goto fail;
    }
    lr->fd = t->fd;
    t->x.format = PL_LOG_FMT_CSV;
    /* the header */
    uint32_t lineno = 0;
    int kind = 0;
    while (!kind && lineno < HEADER_LINES && (got = next_line(lr, &line, &cap, &len, &start, &toolong)) > 0) {
        lineno++;
        const char *l = lineno == 1 ? skip_bom(line) : line;
        if (!*l) continue;
        if (!(kind = header_kind(l))) break;
        t->sep = kind == 2 ? '\t' : ',';
        const char *why = NULL;
        size_t off = (size_t)(l - line);
        if (split(t, l, len - off, &why) != 0 || t->ncells < 2) {
            s = pl__fail(err, PL_E_PARSE, "%s: the header line %u is malformed (%s)", path, lineno,
                         why ? why : "no counter columns");
            goto fail;
        }
    }
    if (!kind) {
        s = pl__fail(err, PL_E_PARSE, "%s: no \"(PDH-CSV 4.0)\" or \"(PDH-TSV 4.0)\" header line", path);
        goto fail;
    }
    t->x.format = kind == 2 ? PL_LOG_FMT_TSV : PL_LOG_FMT_CSV;
    size_t nc = t->ncells - 1;
    if (nc > 1000000) {
        s = pl__fail(err, PL_E_RANGE, "%s: %zu columns (at most 1000000)", path, nc);
        goto fail;
    }
    have_bias = header_bias(t->cells[0] + 13, &t->bias);
    t->names = calloc(nc, sizeof *t->names);
    t->cols = calloc(nc, sizeof *t->cols);
    if (!t->names || !t->cols) {
        s = pl__fail(err, PL_E_NOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < nc; i++) {
        if (!(t->names[i] = pl__strdup(t->cells[i + 1]))) {
            s = pl__fail(err, PL_E_NOMEM, "out of memory");
            goto fail;
        }
        t->cols[i].path = t->names[i];
    }
    t->x.h.kind = PL_LOG_VALUES;
    t->x.h.columns = t->cols;
    t->x.h.ncolumns = nc;
    t->machine = pl__path_machine(t->names[0]);
    t->x.h.machine = t->machine;

    /* index the rows: lines that start with a quote or a digit (a console
     * capture's "Exiting, please wait..." is not one) */
    size_t n = 0;
    int64_t last = 0;
    while ((got = next_line(lr, &line, &cap, &len, &start, &toolong)) > 0) {
        lineno++;
        if (!toolong && line[0] != '"' && !(line[0] >= '0' && line[0] <= '9')) continue;
        if (pl__grow((void **)&t->r, &t->cap, n + 1, sizeof *t->r) != PL_OK) {
            s = pl__fail(err, PL_E_NOMEM, "out of memory");
            goto fail;
        }
        trow *r = &t->r[n++];
        r->off = start;
        r->len = toolong ? 0 : (uint32_t)len;
        r->line = lineno;
        r->time = last;
        r->toolong = (uint8_t)toolong;
        if (toolong) continue; /* its time is the last one's */
        /* the time cell only: the rest is checked when the row is read */
        const char *why;
        if (split(t, line, len, &why) != 0 || t->ncells < 1) continue;
        if (!first_time) {
            if (!(first_time = pl__strdup(t->cells[0]))) {
                s = pl__fail(err, PL_E_NOMEM, "out of memory");
                goto fail;
            }
            choose_zone(t, have_bias, first_time);
        }
        pl__walltime w;
        int64_t ft;
        if (pl__parse_us_time(t->cells[0], &w) == 0 && wall_to_ft(t, &w, &ft) == 0) r->time = last = ft;
    }
    if (got < 0) {
        int e = errno;
        s = pl__fail(err, PL_E_IO, "%s: %s", path, pl__strerror(e, eb, sizeof eb));
        goto fail;
    }
    t->x.times = malloc((n ? n : 1) * sizeof *t->x.times);
    if (!t->x.times) {
        s = pl__fail(err, PL_E_NOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < n; i++) t->x.times[i] = t->r[i].time;
    t->x.n = n;
    t->x.health.file_bytes = lr->off;
    t->x.read = text_read;
    t->x.close = text_close;
    free(line);
    free(first_time);
    free(lr);
    *out = &t->x;
    return PL_OK;
fail:
    free(line);
    free(first_time);
    free(lr);
    text_close(&t->x);
    return s;
}
