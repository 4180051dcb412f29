/* relog: convert, cut and merge performance logs with the Windows command
 * line (docs/relog.md). Inputs: perflib binary counter logs (typeperf -f
 * BIN) and CSV/TSV logs (typeperf's and Windows'). Built only on the public
 * API: binary logs are read through PDH over the log (pl_log_source), so
 * values are computed exactly as typeperf computes them live. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "perflib/log.h"
#include "perflib/pdh.h"
#include "tool_stdout.h"
#include "tp_format.h"
#include "tzname.h"

enum {
    EXIT_OK = 0,
    EXIT_USAGE = 1,    /* bad command line */
    EXIT_INPUT = 2,    /* an input cannot be read or is not a log */
    EXIT_MISMATCH = 3, /* no counter matched, or inputs/output do not fit together */
    EXIT_OUTPUT = 4,   /* the output cannot be written, or was not overwritten */
    EXIT_DAMAGED = 5,  /* done, but damaged input records were skipped */
};

#define FT_UNIX_MS 11644473600000LL /* ms from 1601 to 1970 */

static void errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void errorf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("Error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n", stderr);
    va_end(ap);
}

static void warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warnf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("Warning: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n", stderr);
    va_end(ap);
}

static void usage(void)
{
    fputs("\r\n"
          "Relog for perflib: creates new performance logs from existing ones, changing the\r\n"
          "sampling rate, the time range, the counters or the file format.\r\n"
          "\r\n"
          "Usage:\r\n"
          "relog <filename [filename ...]> [options]\r\n"
          "\r\n"
          "Parameters:\r\n"
          "  <filename [filename ...]>     Performance logs to relog: perflib binary counter logs\r\n"
          "                                (typeperf -f BIN), CSV/TSV logs (typeperf, Windows) and\r\n"
          "                                SQL log sets (SQL:DSN!LogSet). Several logs are merged\r\n"
          "                                in time order.\r\n"
          "\r\n"
          "Options:\r\n"
          "  -?, --help                    Displays this help.\r\n"
          "  --version                     Displays the version.\r\n"
          "  -a                            Append to the existing output file (SQL always appends).\r\n"
          "  -c <path [path ...]>          Counters to keep (wildcards for a whole instance,\r\n"
          "                                parent or counter). Default: every counter.\r\n"
          "  -cf <filename>                File listing the counters to keep, one per line.\r\n"
          "  -f <CSV|TSV|BIN|SQL>          Output file format. Default is BIN.\r\n"
          "  -t <value>                    Only write every nth record. Default is every record.\r\n"
          "  -o <filename|SQL:DSN!LogSet>  Output file, or the database and log set for -f SQL\r\n"
          "                                (DSN: a SQLite file or a PostgreSQL connection string).\r\n"
          "  -b <M/d/yyyy h:mm:ss[AM|PM]>  Begin time of the first record to write.\r\n"
          "  -e <M/d/yyyy h:mm:ss[AM|PM]>  End time of the last record to write.\r\n"
          "  -q                            List the input's time range, sample count and counters.\r\n"
          "  -y                            Overwrite an existing output file without asking.\r\n"
          "\r\n"
          "Exit codes:\r\n"
          "  0  success\r\n"
          "  1  bad command line\r\n"
          "  2  an input cannot be read, is not a log, or its header is damaged\r\n"
          "  3  no counter matched, or the inputs and the output do not fit together\r\n"
          "  4  the output file could not be written (or was not overwritten)\r\n"
          "  5  the output was written, but damaged input records were skipped\r\n",
          stdout);
}

/* ----------------------------------------------------------- options */

enum { FMT_BIN, FMT_CSV, FMT_TSV, FMT_SQL };

typedef struct opts {
    const char **inputs;
    size_t ninputs;
    const char **filters;
    size_t nfilters;
    const char *cf;
    const char *out;
    int fmt;                  /* FMT_BIN, FMT_CSV, FMT_TSV, FMT_SQL */
    long every;
    int64_t begin, end;       /* FILETIME; end INT64_MAX when open */
    int query, append, yes;
} opts;

static int opt_is(const char *a, const char *name)
{
    return (a[0] == '-' || a[0] == '/') && strcasecmp(a + 1, name) == 0;
}

/* "M/d/yyyy" plus an optional "h:mm[:ss][AM|PM]" (one argument or two) as
 * local time -> FILETIME. Returns the arguments used, 0 when malformed. */
static int parse_when(const char *a, const char *b, int64_t *ft)
{
    int mo, d, y, h = 0, mi = 0, s = 0, n = 0, used = 1;
    char rest[64] = "";
    if (sscanf(a, "%d/%d/%d%n", &mo, &d, &y, &n) != 3) return 0;
    const char *t = a + n;
    while (*t == ' ') t++;
    if (!*t && b && strchr(b, ':')) {
        t = b;
        used = 2;
    }
    if (*t) {
        int k = sscanf(t, "%d:%d:%d%63s", &h, &mi, &s, rest);
        if (k < 2) {
            if (sscanf(t, "%d:%d%63s", &h, &mi, rest) < 2) return 0;
            s = 0;
        }
        if (k == 2) {
            /* "h:mm" then maybe AM/PM glued on: the %d stopped before it */
            const char *p = strchr(t, ':');
            p++;
            while (*p >= '0' && *p <= '9') p++;
            snprintf(rest, sizeof rest, "%s", p);
        }
        char *r = rest;
        while (*r == ' ') r++;
        if (strcasecmp(r, "PM") == 0) {
            if (h < 1 || h > 12) return 0;
            if (h < 12) h += 12;
        } else if (strcasecmp(r, "AM") == 0) {
            if (h < 1 || h > 12) return 0;
            if (h == 12) h = 0;
        } else if (*r) {
            return 0;
        }
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || y < 1601 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 60)
        return 0;
    struct tm tm = {0};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = s;
    tm.tm_isdst = -1;
    time_t tt = mktime(&tm);
    *ft = ((int64_t)tt * 1000 + FT_UNIX_MS) * 10000;
    return used;
}

/* "-x" is always an option; "/x" only when x is one of ours, so an
 * absolute path is a file name. */
static int is_option(const char *a)
{
    static const char *const names[] = {"?", "h", "help", "q", "a", "y", "c", "cf", "o", "f", "t", "b", "e"};
    if (a[0] == '-') return 1;
    if (a[0] != '/') return 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcasecmp(a + 1, names[i]) == 0) return 1;
    return 0;
}

static int parse_args(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->every = 1;
    o->end = INT64_MAX;
    o->begin = INT64_MIN;
    o->inputs = calloc((size_t)argc + 1, sizeof *o->inputs);
    o->filters = calloc((size_t)argc + 1, sizeof *o->filters);
    if (!o->inputs || !o->filters) return EXIT_INPUT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!is_option(a)) {
            o->inputs[o->ninputs++] = a;
            continue;
        }
        if (opt_is(a, "?") || opt_is(a, "h") || opt_is(a, "help") || strcmp(a, "--help") == 0) {
            usage();
            exit(tool_stdout_close("relog") ? EXIT_OUTPUT : EXIT_OK);
        } else if (strcmp(a, "--version") == 0) {
            printf("relog (perflib) %s\r\n", pl_version());
            exit(tool_stdout_close("relog") ? EXIT_OUTPUT : EXIT_OK);
        } else if (opt_is(a, "q")) {
            o->query = 1;
        } else if (opt_is(a, "a")) {
            o->append = 1;
        } else if (opt_is(a, "y")) {
            o->yes = 1;
        } else if (opt_is(a, "c")) {
            /* every following argument up to the next option is a path */
            int k = 0;
            while (i + 1 < argc && argv[i + 1][0] == '\\') {
                o->filters[o->nfilters++] = argv[++i];
                k++;
            }
            if (!k) {
                errorf("-c needs at least one counter path (\\Object(Instance)\\Counter).");
                return EXIT_USAGE;
            }
        } else if (opt_is(a, "cf") || opt_is(a, "o") || opt_is(a, "f") || opt_is(a, "t") || opt_is(a, "b") ||
                   opt_is(a, "e")) {
            if (!next) {
                errorf("option %s needs a value.", a);
                return EXIT_USAGE;
            }
            i++;
            if (opt_is(a, "cf")) {
                o->cf = next;
            } else if (opt_is(a, "o")) {
                o->out = next;
            } else if (opt_is(a, "f")) {
                if (strcasecmp(next, "BIN") == 0) o->fmt = FMT_BIN;
                else if (strcasecmp(next, "CSV") == 0) o->fmt = FMT_CSV;
                else if (strcasecmp(next, "TSV") == 0) o->fmt = FMT_TSV;
                else if (strcasecmp(next, "SQL") == 0) o->fmt = FMT_SQL;
                else {
                    errorf("unknown file format \"%s\" (use BIN, CSV, TSV or SQL).", next);
                    return EXIT_USAGE;
                }
            } else if (opt_is(a, "t")) {
                char *e = NULL;
                errno = 0;
                long v = strtol(next, &e, 10);
                if (errno || !e || *e || v < 1) {
                    errorf("invalid record interval \"%s\" for -t (use a positive number).", next);
                    return EXIT_USAGE;
                }
                o->every = v;
            } else {
                int64_t ft = 0;
                int used = parse_when(next, i + 1 < argc ? argv[i + 1] : NULL, &ft);
                if (!used) {
                    errorf("invalid time \"%s\" for %s (use M/d/yyyy [h:mm:ss[AM|PM]]).", next, a);
                    return EXIT_USAGE;
                }
                i += used - 1;
                if (opt_is(a, "b")) o->begin = ft;
                else o->end = ft;
            }
        } else {
            errorf("unknown option \"%s\". Run relog -? for help.", a);
            return EXIT_USAGE;
        }
    }
    if (o->ninputs == 0) {
        errorf("no input file given. Run relog -? for help.");
        return EXIT_USAGE;
    }
    if (!o->query && !o->out) {
        errorf("no output file given (-o). Run relog -? for help.");
        return EXIT_USAGE;
    }
    /* -o SQL:DSN!LogSet writes into a database (-f SQL) */
    if (o->out && strncasecmp(o->out, "SQL:", 4) == 0) o->fmt = FMT_SQL;
    if (o->begin != INT64_MIN && o->end != INT64_MAX && o->begin > o->end) {
        errorf("the begin time (-b) is after the end time (-e).");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* Paths from -cf: one per line, blank lines skipped, a BOM and CR ignored. */
static int read_filter_file(opts *o, char **mem)
{
    FILE *f = fopen(o->cf, "rb");
    if (!f) {
        errorf("cannot open counter file \"%s\": %s.", o->cf, strerror(errno));
        return EXIT_USAGE;
    }
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n;
    size_t total = 0, lines = 0;
    char *all = NULL;
    while ((n = getline(&buf, &cap, f)) >= 0) {
        char *na = realloc(all, total + (size_t)n + 1);
        if (!na) break;
        all = na;
        memcpy(all + total, buf, (size_t)n);
        total += (size_t)n;
        all[total] = '\0';
        lines++;
    }
    free(buf);
    fclose(f);
    if (!all) return EXIT_OK;
    const char **nf = realloc(o->filters, (o->nfilters + lines + 1) * sizeof *nf);
    if (!nf) {
        free(all);
        return EXIT_INPUT;
    }
    o->filters = nf;
    char *p = all;
    if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) p += 3;
    while (*p) {
        char *e = strchr(p, '\n');
        char *nx = e ? e + 1 : p + strlen(p);
        if (e) *e = '\0';
        while (*p == ' ' || *p == '\t') p++;
        size_t l = strlen(p);
        while (l && (p[l - 1] == '\r' || p[l - 1] == ' ' || p[l - 1] == '\t')) p[--l] = '\0';
        if (l) o->filters[o->nfilters++] = p;
        p = nx;
    }
    *mem = all;
    return EXIT_OK;
}

/* Does column path `col` match filter `pat`? Object and counter compare
 * case-insensitively, '*' stands for a whole instance, parent or counter;
 * a machine in the pattern must be the column's. */
static int path_matches(const char *pat, const char *col)
{
    pl_pdh_path_elements *p = NULL, *c = NULL;
    int ok = 0;
    if (pl_pdh_parse_path_alloc(pat, &p, NULL) != 0) return 0;
    if (pl_pdh_parse_path_alloc(col, &c, NULL) != 0) {
        pl_free(p);
        return strcasecmp(pat, col) == 0;
    }
#define EQ(a, b) ((!(a) && !(b)) || ((a) && (b) && strcasecmp((a), (b)) == 0))
    ok = (!p->machine || EQ(p->machine, c->machine)) && EQ(p->object, c->object) &&
         (strcmp(p->counter, "*") == 0 || EQ(p->counter, c->counter));
    if (ok) {
        if (!p->instance) ok = !c->instance;
        else if (!c->instance) ok = 0;
        else if (strcmp(p->instance, "*") != 0) ok = EQ(p->instance, c->instance) && p->index == c->index;
        if (ok && p->parent && strcmp(p->parent, "*") != 0) ok = EQ(p->parent, c->parent);
    }
#undef EQ
    pl_free(p);
    pl_free(c);
    return ok;
}

static int wanted(const opts *o, const char *col)
{
    if (o->nfilters == 0) return 1;
    for (size_t i = 0; i < o->nfilters; i++)
        if (path_matches(o->filters[i], col)) return 1;
    return 0;
}

/* ------------------------------------------------------------ inputs */

enum { IN_BLOCKS, IN_VALUES };

typedef struct input {
    const char *file;
    int type;
    size_t ncols;             /* selected columns */
    char **cols;              /* their paths */
    size_t *src;              /* index of each in the log header */
    size_t *out;              /* output column of each */
    /* binary logs */
    pl_log *log;
    pl_pdh_source psrc;
    pl_log_source *ls;
    pl_pdh_query *q;
    pl_pdh_counter **ctr;
    size_t next, nrec;
    /* selection */
    long seen;                /* records inside -b/-e so far (for -t) */
    /* the current row */
    int have, gap;
    int64_t time;
    double *vals;
    unsigned char *present;
    pl_pdh_raw *raw;          /* SQL output from a log of blocks: the raw counters */
    const void *blk;          /* block passthrough (BIN to BIN) */
    size_t blen;
    size_t damaged;
    int done;
} input;

static void input_free(input *in)
{
    for (size_t i = 0; i < in->ncols; i++) free(in->cols[i]);
    free(in->cols);
    free(in->src);
    free(in->out);
    free(in->ctr);
    free(in->vals);
    free(in->present);
    free(in->raw);
    pl_pdh_close_query(in->q);
    if (in->ls) pl_pdh_source_close(&in->psrc);
    pl_log_close(in->log);
}

static int add_col(input *in, const char *path, size_t srcidx)
{
    char **c = realloc(in->cols, (in->ncols + 1) * sizeof *c);
    if (!c) return -1;
    in->cols = c;
    size_t *s = realloc(in->src, (in->ncols + 1) * sizeof *s);
    if (!s) return -1;
    in->src = s;
    if (!(in->cols[in->ncols] = strdup(path))) return -1;
    in->src[in->ncols++] = srcidx;
    return 0;
}

/* Open an input: a binary counter log, a CSV/TSV log or an SQL log set
 * (all read through pl_log). */
static int input_open(input *in, const opts *o, int passthrough)
{
    pl_error err = {0};
    {
        int s = pl_log_open(in->file, &in->log, &err);
        if (s == PL_E_NOT_FOUND || s == PL_E_IO) {
            errorf("cannot open \"%s\": %s.", in->file, err.msg);
            return EXIT_INPUT;
        }
        if (s == PL_E_PARSE) {
            errorf("\"%s\" is not a perflib counter log or a CSV/TSV performance log: %s.", in->file, err.msg);
            return EXIT_INPUT;
        }
        if (s) {
            errorf("cannot read \"%s\": %s.", in->file, err.msg);
            return EXIT_INPUT;
        }
        const pl_log_header *h = pl_log_get_header(in->log);
        in->type = h->kind == PL_LOG_VALUES ? IN_VALUES : IN_BLOCKS;
        in->nrec = pl_log_count(in->log);
        for (size_t i = 0; i < h->ncolumns; i++)
            if (wanted(o, h->columns[i].path) && add_col(in, h->columns[i].path, i)) return EXIT_INPUT;
        pl_log_health hh;
        pl_log_get_health(in->log, &hh);
        if (hh.damaged_bytes)
            warnf("\"%s\": %llu damaged bytes skipped; every complete record is kept.", in->file,
                  (unsigned long long)hh.damaged_bytes);
        if (hh.torn_tail_bytes)
            warnf("\"%s\": its last record is incomplete (%llu bytes, the writer stopped while writing it).",
                  in->file, (unsigned long long)hh.torn_tail_bytes);
        if (hh.damaged_bytes) in->damaged++;
        if (in->type == IN_BLOCKS && in->ncols && !passthrough) {
            if (pl_log_source_open(in->log, &in->psrc, &in->ls, &err) != PL_OK) {
                errorf("cannot read \"%s\" through PDH: %s.", in->file, err.msg);
                return EXIT_INPUT;
            }
            uint32_t st = pl_pdh_open_query(&in->psrc, &in->q, &err);
            in->ctr = calloc(in->ncols, sizeof *in->ctr);
            if (st || !in->ctr) {
                errorf("\"%s\": %s.", in->file, err.msg);
                return EXIT_INPUT;
            }
            for (size_t i = 0; i < in->ncols; i++) {
                st = pl_pdh_add_counter(in->q, in->cols[i], &in->ctr[i], &err);
                if (st) {
                    errorf("\"%s\": counter \"%s\" cannot be read from the log (0x%08X): %s", in->file, in->cols[i],
                           st, err.msg);
                    return EXIT_INPUT;
                }
            }
        }
    }
    in->vals = calloc(in->ncols + 1, sizeof *in->vals);
    in->present = calloc(in->ncols + 1, 1);
    in->out = calloc(in->ncols + 1, sizeof *in->out);
    if (!in->vals || !in->present || !in->out) return EXIT_INPUT;
    return EXIT_OK;
}

/* Is a record at time t kept (-b, -e, -t)? Sets *stop past -e. */
static int keep(input *in, const opts *o, int64_t t, int *stop)
{
    *stop = 0;
    if (t < o->begin) return 0;
    if (t > o->end) {
        *stop = 1;
        return 0;
    }
    return in->seen++ % o->every == 0;
}

/* Advance to the next kept row. Returns 1 with a row, 0 at the end. */
static int input_next(input *in, const opts *o)
{
    in->have = 0;
    if (in->done) return 0;
    pl_error err = {0};
    while (in->next < in->nrec) {
        size_t i = in->next++;
        int64_t t = pl_log_time(in->log, i);
        int stop;
        if (!keep(in, o, t, &stop)) {
            if (stop) break;
            continue;
        }
        in->time = t;
        in->gap = 0;
        in->blk = NULL;
        in->blen = 0;
        int s;
        if (in->type == IN_VALUES) {
            const double *v;
            const unsigned char *p;
            s = pl_log_read_values(in->log, i, &v, &p, &err);
            if (s == PL_OK)
                for (size_t c = 0; c < in->ncols; c++) {
                    in->vals[c] = v[in->src[c]];
                    in->present[c] = p[in->src[c]];
                }
        } else if (!in->q) {
            s = pl_log_read(in->log, i, &in->blk, &in->blen, &err);
        } else {
            s = pl_log_source_set(in->ls, i, &err);
            if (s == PL_OK && pl_pdh_collect(in->q, &err) != 0) s = PL_E_BAD_BLOCK;
            if (s == PL_OK)
                for (size_t c = 0; c < in->ncols; c++) {
                    in->present[c] = (unsigned char)tp_value(in->ctr[c], &in->vals[c]);
                    if (in->raw && pl_pdh_get_raw(in->ctr[c], NULL, &in->raw[c]) != 0)
                        in->raw[c].cstatus = PL_PDH_CSTATUS_INVALID_DATA;
                }
        }
        if (s == PL_E_NO_DATA) {
            /* a gap: the writer could not collect this sample */
            in->gap = 1;
            memset(in->present, 0, in->ncols);
        } else if (s != PL_OK) {
            warnf("%s (record skipped).", err.msg);
            in->damaged++;
            continue;
        }
        in->have = 1;
        return 1;
    }
    in->done = 1;
    return 0;
}

/* ----------------------------------------------------------- output */

#define OUT_SQL 100


static void put_field(FILE *out, const char *s)
{
    fputc('"', out);
    for (const char *p = s; *p; p++) {
        if (*p == '"') fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

typedef struct output {
    char **cols;
    size_t ncols;
    int kind;                 /* 0 text, PL_LOG_BLOCKS, PL_LOG_VALUES, OUT_SQL */
    FILE *fp;
    char sep;
    int header_done;
    pl_log_writer *w;
    pl_sqllog_writer *sql;
    pl_log_column *lc;        /* BIN and SQL: the columns' type, scale and help */
    int64_t *time_base;       /* SQL: each column's */
    pl_pdh_raw *raw;
    double *vals;
    unsigned char *present;
    const char **cells;
    char (*buf)[40];
    size_t rows;
} output;

static int out_col(output *o, const char *path, size_t *idx)
{
    for (size_t i = 0; i < o->ncols; i++)
        if (strcasecmp(o->cols[i], path) == 0) {
            *idx = i;
            return 0;
        }
    char **c = realloc(o->cols, (o->ncols + 1) * sizeof *c);
    if (!c) return -1;
    o->cols = c;
    if (!(o->cols[o->ncols] = strdup(path))) return -1;
    *idx = o->ncols++;
    return 0;
}

static int confirm_overwrite(const char *file)
{
    if (access(file, F_OK) != 0) return 1;
    printf("The file \"%s\" already exists. Overwrite it? [Y/N] ", file);
    fflush(stdout);
    char line[16];
    if (!fgets(line, sizeof line, stdin)) return 0;
    return line[0] == 'y' || line[0] == 'Y';
}

/* Text output: check an existing file's header for -a. */
static int text_header_matches(const char *file, const output *o)
{
    pl_log *t = NULL;
    if (pl_log_open(file, &t, NULL) != PL_OK) return 0;
    const pl_log_header *h = pl_log_get_header(t);
    int ok = pl_log_format(t) == (o->sep == '\t' ? PL_LOG_FMT_TSV : PL_LOG_FMT_CSV) && h->ncolumns == o->ncols;
    for (size_t i = 0; ok && i < o->ncols; i++) ok = strcmp(h->columns[i].path, o->cols[i]) == 0;
    pl_log_close(t);
    return ok;
}

static int write_row(output *o, const opts *op, int64_t t, const input *in)
{
    if (o->kind == 0) {
        char stamp[64];
        struct tm tm;
        tp_fmt_time(t / 10000 - FT_UNIX_MS, stamp, sizeof stamp, &tm);
        if (!o->header_done) {
            char first[160];
            tp_log_header_cell(op->fmt == FMT_TSV ? "TSV" : "CSV", &tm, getenv("TZ"), "/etc", first, sizeof first);
            put_field(o->fp, first);
            for (size_t i = 0; i < o->ncols; i++) {
                fputc(o->sep, o->fp);
                put_field(o->fp, o->cols[i]);
            }
            fputs("\r\n", o->fp);
            o->header_done = 1;
        }
        for (size_t i = 0; i < o->ncols; i++) o->cells[i] = " ";
        for (size_t c = 0; c < in->ncols; c++)
            if (in->present[c]) {
                tp_fmt_full(in->vals[c], o->buf[in->out[c]], sizeof o->buf[0]);
                o->cells[in->out[c]] = o->buf[in->out[c]];
            }
        put_field(o->fp, stamp);
        for (size_t i = 0; i < o->ncols; i++) {
            fputc(o->sep, o->fp);
            put_field(o->fp, o->cells[i]);
        }
        fputs("\r\n", o->fp);
        o->rows++;
        return ferror(o->fp) ? -1 : 0;
    }
    pl_error err = {0};
    int s;
    if (o->kind == OUT_SQL) {
        if (!o->sql) {
            /* the log set is opened at the first row: its zone is DisplayToID's */
            struct tm tm;
            char stamp[64];
            tp_fmt_time(t / 10000 - FT_UNIX_MS, stamp, sizeof stamp, &tm);
            pl_sqllog_info si = {o->lc, o->ncols, o->time_base, NULL, 0};
            si.zone = tp_zone_name_bias(&tm, getenv("TZ"), "/etc", &si.bias);
            if ((s = pl_sqllog_open(op->out, &si, 0, &o->sql, &err)) != PL_OK) {
                errorf("cannot open the SQL log \"%s\": %s.", op->out, err.msg);
                return -1;
            }
        }
        memset(o->present, 0, o->ncols);
        for (size_t i = 0; i < o->ncols; i++) o->raw[i].cstatus = PL_PDH_CSTATUS_INVALID_DATA;
        for (size_t c = 0; c < in->ncols; c++) {
            o->vals[in->out[c]] = in->vals[c];
            o->present[in->out[c]] = in->present[c];
            if (in->raw && !in->gap) o->raw[in->out[c]] = in->raw[c];
        }
        s = pl_sqllog_append(o->sql, t, o->vals, o->present, o->raw, &err);
    } else if (o->kind == PL_LOG_BLOCKS) {
        s = pl_log_append(o->w, t, in->gap ? NULL : in->blk, in->gap ? 0 : in->blen, &err);
    } else if (in->gap) {
        s = pl_log_append(o->w, t, NULL, 0, &err);
    } else {
        memset(o->present, 0, o->ncols);
        for (size_t c = 0; c < in->ncols; c++) {
            o->vals[in->out[c]] = in->vals[c];
            o->present[in->out[c]] = in->present[c];
        }
        s = pl_log_append_values(o->w, t, o->vals, o->present, &err);
    }
    if (s) {
        errorf("writing \"%s\" failed: %s.", op->out, err.msg);
        return -1;
    }
    o->rows++;
    return 0;
}

/* Open the output once the columns are known. */
static int output_open(output *o, const opts *op, input *ins, size_t nin)
{
    o->sep = op->fmt == FMT_TSV ? '\t' : ',';
    o->vals = calloc(o->ncols + 1, sizeof *o->vals);
    o->present = calloc(o->ncols + 1, 1);
    o->cells = calloc(o->ncols + 1, sizeof *o->cells);
    o->buf = calloc(o->ncols + 1, sizeof *o->buf);
    if (!o->vals || !o->present || !o->cells || !o->buf) return EXIT_OUTPUT;
    /* an SQL log set is appended to (as on Windows, where -a does not apply
     * to SQL) */
    int exists = o->kind != OUT_SQL && access(op->out, F_OK) == 0;
    if (exists && !op->append && !op->yes && !confirm_overwrite(op->out)) {
        errorf("the output file \"%s\" was not overwritten.", op->out);
        return EXIT_OUTPUT;
    }
    if (o->kind == 0) {
        if (exists && op->append) {
            if (!text_header_matches(op->out, o)) {
                errorf("cannot append to \"%s\": its columns are not the ones written now.", op->out);
                return EXIT_MISMATCH;
            }
            o->header_done = 1;
        }
        o->fp = fopen(op->out, exists && op->append ? "ab" : "wb");
        if (!o->fp) {
            errorf("cannot create \"%s\": %s.", op->out, strerror(errno));
            return EXIT_OUTPUT;
        }
        return EXIT_OK;
    }
    pl_log_column *lc = calloc(o->ncols, sizeof *lc);
    if (!lc) return EXIT_OUTPUT;
    const pl_titles *t = NULL, *ten = NULL;
    const char *machine = NULL;
    for (size_t i = 0; i < o->ncols; i++) lc[i].path = o->cols[i];
    for (size_t k = nin; k-- > 0;) {
        if (!ins[k].log) continue;
        const pl_log_header *h = pl_log_get_header(ins[k].log);
        for (size_t c = 0; c < ins[k].ncols; c++) {
            const pl_log_column *src = &h->columns[ins[k].src[c]];
            lc[ins[k].out[c]].type = src->type;
            lc[ins[k].out[c]].scale = src->scale;
            lc[ins[k].out[c]].help = src->help;
        }
        t = pl_log_titles(ins[k].log, 0);
        ten = pl_log_titles(ins[k].log, 1);
        machine = h->machine;
    }
    if (o->kind == OUT_SQL) {
        o->lc = lc;
        o->time_base = calloc(o->ncols + 1, sizeof *o->time_base);
        o->raw = calloc(o->ncols + 1, sizeof *o->raw);
        if (!o->time_base || !o->raw) return EXIT_OUTPUT;
        for (size_t k = 0; k < nin; k++)
            for (size_t c = 0; ins[k].ctr && c < ins[k].ncols; c++)
                if (pl_pdh_get_time_base(ins[k].ctr[c], &o->time_base[ins[k].out[c]]) != 0)
                    o->time_base[ins[k].out[c]] = 0;
        return EXIT_OK;
    }
    pl_log_header h = {o->kind, machine, lc, o->ncols, o->kind == PL_LOG_BLOCKS ? t : NULL,
                       o->kind == PL_LOG_BLOCKS ? ten : NULL};
    pl_error err = {0};
    int s = exists && op->append ? pl_log_append_open(op->out, &h, 0, &o->w, &err)
                                 : pl_log_create(op->out, &h, PL_LOG_OVERWRITE, &o->w, &err);
    free(lc);
    if (s) {
        errorf("cannot %s \"%s\": %s.", exists && op->append ? "append to" : "create", op->out, err.msg);
        return s == PL_E_INVAL ? EXIT_MISMATCH : EXIT_OUTPUT;
    }
    return EXIT_OK;
}

static int output_close(output *o, const opts *op)
{
    int rc = EXIT_OK;
    if (o->fp && (ferror(o->fp) || fclose(o->fp) != 0)) {
        errorf("writing \"%s\" failed.", op->out);
        rc = EXIT_OUTPUT;
    }
    o->fp = NULL;
    pl_error err = {0};
    if (o->w && pl_log_writer_close(o->w, &err) != PL_OK) {
        errorf("writing \"%s\" failed: %s.", op->out, err.msg);
        rc = EXIT_OUTPUT;
    }
    o->w = NULL;
    if (o->sql && pl_sqllog_close(o->sql, &err) != PL_OK) {
        errorf("writing \"%s\" failed: %s.", op->out, err.msg);
        rc = EXIT_OUTPUT;
    }
    o->sql = NULL;
    free(o->lc);
    free(o->time_base);
    free(o->raw);
    for (size_t i = 0; i < o->ncols; i++) free(o->cols[i]);
    free(o->cols);
    free(o->vals);
    free(o->present);
    free(o->cells);
    free(o->buf);
    memset(o, 0, sizeof *o);
    return rc;
}

/* -------------------------------------------------------------- main */

static const char *format_name(int f)
{
    return f == PL_LOG_FMT_CSV ? "CSV" : f == PL_LOG_FMT_TSV ? "TSV" : f == PL_LOG_FMT_SQL ? "SQL" : "Binary";
}

static void print_when(const char *label, int64_t ft)
{
    int64_t unix_ms = ft / 10000 - FT_UNIX_MS;
    time_t t = (time_t)(unix_ms >= 0 ? unix_ms / 1000 : (unix_ms - 999) / 1000);
    struct tm tm;
    localtime_r(&t, &tm);
    printf("%s %d/%d/%04d %d:%02d:%02d\r\n", label, tm.tm_mon + 1, tm.tm_mday, tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
           tm.tm_sec);
}

int main(int argc, char **argv)
{
    opts o;
    char *cfmem = NULL;
    tool_guard_stdio();
    int rc = parse_args(argc, argv, &o);
    if (rc) return rc;
    if (o.cf && (rc = read_filter_file(&o, &cfmem)) != 0) return rc;
    input *ins = calloc(o.ninputs, sizeof *ins);
    output out;
    memset(&out, 0, sizeof out);
    if (!ins) return EXIT_INPUT;

    /* BIN output keeps the raw blocks when every input is a binary log of
     * counter blocks from one machine; otherwise it holds values. */
    int all_blocks = 1;
    const char *machine = NULL;
    for (size_t i = 0; i < o.ninputs; i++) {
        ins[i].file = o.inputs[i];
        if ((rc = input_open(&ins[i], &o, !o.query && o.fmt == FMT_BIN)) != 0) goto done;
        if (ins[i].type != IN_BLOCKS) all_blocks = 0;
        if (ins[i].log) {
            const char *m = pl_log_get_header(ins[i].log)->machine;
            if (machine && m && strcasecmp(machine, m) != 0) all_blocks = 0;
            if (!machine) machine = m;
        }
    }
    if (!o.query && o.fmt == FMT_BIN && !all_blocks) {
        /* values are needed after all: read the block logs through PDH */
        for (size_t i = 0; i < o.ninputs; i++) {
            if (ins[i].type != IN_BLOCKS) continue;
            input_free(&ins[i]);
            memset(&ins[i], 0, sizeof ins[i]);
            ins[i].file = o.inputs[i];
            if ((rc = input_open(&ins[i], &o, 0)) != 0) goto done;
        }
    }
    for (size_t i = 0; i < o.ninputs; i++)
        for (size_t c = 0; c < ins[i].ncols; c++)
            if (out_col(&out, ins[i].cols[c], &ins[i].out[c])) {
                rc = EXIT_INPUT;
                goto done;
            }
    if (out.ncols == 0) {
        errorf(o.nfilters ? "no counter of the input matches the -c/-cf filter." : "the input has no counters.");
        rc = EXIT_MISMATCH;
        goto done;
    }
    out.kind = o.fmt == FMT_SQL ? OUT_SQL : o.fmt != FMT_BIN ? 0 : all_blocks ? PL_LOG_BLOCKS : PL_LOG_VALUES;
    /* SQL keeps the raw counters of logs of blocks too (CounterData's
     * FirstValue/SecondValue/MultiCount) */
    for (size_t i = 0; out.kind == OUT_SQL && i < o.ninputs; i++)
        if (ins[i].q && !(ins[i].raw = calloc(ins[i].ncols + 1, sizeof *ins[i].raw))) {
            rc = EXIT_INPUT;
            goto done;
        }
    if (!o.query && (rc = output_open(&out, &o, ins, o.ninputs)) != 0) goto done;

    /* merge: always take the earliest current row (inputs in command-line
     * order among equal times) */
    size_t samples = 0;
    int64_t first = 0, last = 0;
    for (size_t i = 0; i < o.ninputs; i++) input_next(&ins[i], &o);
    for (;;) {
        input *best = NULL;
        for (size_t i = 0; i < o.ninputs; i++)
            if (ins[i].have && (!best || ins[i].time < best->time)) best = &ins[i];
        if (!best) break;
        if (!samples) first = best->time;
        last = best->time;
        samples++;
        if (!o.query && write_row(&out, &o, best->time, best) != 0) {
            rc = EXIT_OUTPUT;
            goto done;
        }
        input_next(best, &o);
    }
    size_t damaged = 0;
    for (size_t i = 0; i < o.ninputs; i++) damaged += ins[i].damaged;

    if (o.query) {
        printf("\r\nInput\r\n----------------\r\nFile(s):\r\n");
        for (size_t i = 0; i < o.ninputs; i++)
            printf("     %s (%s)\r\n", ins[i].file,
                   format_name(pl_log_format(ins[i].log)));
        printf("\r\n");
        if (samples) {
            print_when("Begin:", first);
            print_when("End:", last);
        }
        printf("Samples: %zu\r\n\r\n", samples);
        for (size_t i = 0; i < out.ncols; i++) printf("%s\r\n", out.cols[i]);
        printf("\r\n");
    } else {
        rc = output_close(&out, &o);
        if (rc) goto done;
        printf("\r\nInput\r\n----------------\r\nFile(s):\r\n");
        for (size_t i = 0; i < o.ninputs; i++) printf("     %s\r\n", ins[i].file);
        printf("\r\nOutput\r\n----------------\r\nFile:     %s\r\n\r\nSamples: %zu\r\n\r\n", o.out, samples);
    }
    if (damaged) {
        errorf("%zu damaged record(s) or line(s) were skipped; every complete record was %s.", damaged,
               o.query ? "counted" : "written");
        rc = EXIT_DAMAGED;
    } else {
        printf("The command completed successfully.\r\n");
    }
done:
    if (rc && rc != EXIT_DAMAGED && out.cols) output_close(&out, &o);
    else if (out.cols && o.query) output_close(&out, &o);
    for (size_t i = 0; i < o.ninputs; i++) input_free(&ins[i]);
    free(ins);
    free(cfmem);
    free(o.inputs);
    free(o.filters);
    /* the listing or the summary must reach stdout */
    if (tool_stdout_close("relog") && (rc == EXIT_OK || rc == EXIT_DAMAGED)) rc = EXIT_OUTPUT;
    return rc;
}
