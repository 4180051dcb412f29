/* typeperf: write performance counter data to the console or a log file, as
 * Windows' typeperf does (docs/typeperf.md). Built only on the public API. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "perflib/block.h"
#include "perflib/log.h"
#include "perflib/pdh.h"
#include "perflib/registry.h"
#include "counterfile.h"
#include "tool_stdout.h"
#include "tp_format.h"
#include "tzname.h"
#ifdef TYPEPERF_HAVE_ENGINE
#include "perflib/query.h"
#endif

enum {
    EXIT_OK = 0,
    EXIT_USAGE = 1,   /* bad command line */
    EXIT_PATH = 2,    /* a counter path is malformed or names nothing */
    EXIT_SOURCE = 3,  /* the data source (engine, store, computer) failed */
    EXIT_OUTPUT = 4,  /* the output file could not be written */
};

static volatile sig_atomic_t g_stop;

static void on_sigint(int sig)
{
    (void)sig;
    g_stop = 1;
}

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

static void usage(FILE *out)
{
    fputs(
        "\r\n"
        "Microsoft-compatible TYPEPERF for perflib.\r\n"
        "\r\n"
        "Usage:\r\n"
        "typeperf { <counter [counter ...]> | -cf <filename> | -q [object] | -qx [object] }\r\n"
        "         [options]\r\n"
        "\r\n"
        "Parameters:\r\n"
        "  <counter [counter ...]>       Performance counters to sample, as\r\n"
        "                                \\\\Computer\\Object(Parent/Instance#Index)\\Counter;\r\n"
        "                                '*' may stand for a whole instance, parent or counter.\r\n"
        "\r\n"
        "Options:\r\n"
        "  -?, --help                    Displays this help.\r\n"
        "  --version                     Displays the version.\r\n"
        "  -f <CSV|TSV|BIN|SQL>          Output file format. Default is CSV. BIN (a perflib counter\r\n"
        "                                log, docs/counter-log.md) needs -o; SQL needs\r\n"
        "                                -o SQL:DSN!LogSet (a SQLite file or a PostgreSQL\r\n"
        "                                connection string as DSN).\r\n"
        "  -cf <filename>                File containing performance counters to sample, one per line.\r\n"
        "  -si <[[hh:]mm:]ss>            Time between samples. Default is 1 second.\r\n"
        "  -o <filename>                 Output file. Default is the console.\r\n"
        "  -q [object]                   List the available counters (of one object) without instances.\r\n"
        "  -qx [object]                  List the available counters (of one object) with instances.\r\n"
        "  -sc <samples>                 Number of samples to collect. Default is until CTRL+C.\r\n"
        "  -s <computer_name>            Server to monitor if no server is specified in the counter path\r\n"
        "                                (another machine is read from its perfd: docs/typeperf.md).\r\n"
        "  -y                            Overwrite an existing output file without asking.\r\n"
        "  -i <log>                      Replay a counter log (binary, CSV/TSV or SQL:DSN!LogSet)\r\n"
        "                                instead of sampling the machine (a perflib extension).\r\n"
        "\r\n"
        "Exit codes:\r\n"
        "  0  success\r\n"
        "  1  bad command line (unknown option, missing or invalid value, -f BIN or SQL without -o,\r\n"
        "     no counters)\r\n"
        "  2  no valid counter: every path is malformed or names an unknown object, counter,\r\n"
        "     instance or computer (bad paths among valid ones are reported and skipped)\r\n"
        "  3  the performance data could not be read (engine or registry store failed)\r\n"
        "  4  the output file could not be written (or was not overwritten)\r\n"
        "\r\n"
        "Examples:\r\n"
        "  typeperf \"\\Processor(_Total)\\% Processor Time\" \"\\Memory\\Available Bytes\" -si 1 -sc 5\r\n"
        "  typeperf -qx Processor\r\n"
        "  typeperf \"\\Process(*)\\ID Process\" -sc 1 -o procs.csv -y\r\n"
        "  typeperf \"\\Memory\\Available Bytes\" -si 5 -f SQL -o SQL:perf.db!daily\r\n",
        out);
}

/* ------------------------------------------------------- canned source */

typedef struct canned_src {
    char dir[1024];
    int cur;
    int exhausted;            /* the sample file for cur does not exist */
    pl_store *st;
    pl_titles *def, *en;
} canned_src;

static int canned_collect(void *ctx, const char *query, void **block, size_t *len, pl_error *err)
{
    canned_src *c = ctx;
    if (strncasecmp(query, "Foreign", 7) == 0) { /* saved blocks are this machine's only */
        if (err) {
            err->status = PL_E_REMOTE;
            snprintf(err->msg, sizeof err->msg, "saved sample blocks have no other machine");
        }
        return PL_E_REMOTE;
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/sample%d.blk", c->dir, c->cur);
    FILE *f = fopen(path, "rb");
    if (!f) {
        c->exhausted = 1;
        if (err) {
            int e = errno;
            err->status = PL_E_IO;
            snprintf(err->msg, sizeof err->msg, "sample%d.blk: %s", c->cur, strerror(e));
        }
        return PL_E_IO;
    }
    size_t cap = 65536, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (n < cap) break;
        if (cap >= (64u << 20)) break;
        unsigned char *nb = realloc(buf, cap * 2);
        if (!nb) { free(buf); buf = NULL; break; }
        buf = nb;
        cap *= 2;
    }
    fclose(f);
    if (!buf) return PL_E_NOMEM;
    *block = buf;
    *len = n;
    return PL_OK;
}

static const pl_titles *canned_titles(void *ctx, int english)
{
    canned_src *c = ctx;
    return english ? c->en : c->def;
}

static void canned_close(void *ctx)
{
    canned_src *c = ctx;
    if (c->def != c->en) pl_titles_free(c->def);
    pl_titles_free(c->en);
    pl_store_close(c->st);
}

/* ------------------------------------------------------------ options */

typedef struct opts {
    const char **paths;
    size_t npaths;
    const char *cf;
    const char *out;
    int tsv;
    int bin;                  /* -f BIN: a binary counter log */
    int sql;                  /* -f SQL: a log set in a database (-o SQL:DSN!LogSet) */
    double interval;          /* seconds */
    long samples;             /* 0: until Ctrl+C */
    const char *computer;
    int yes;
    int query;                /* 1: -q, 2: -qx */
    const char *qobject;
    const char *in;           /* -i: replay a binary counter log */
} opts;

static int opt_is(const char *a, const char *name)
{
    return (a[0] == '-' || a[0] == '/') && strcasecmp(a + 1, name) == 0;
}

/* [[hh:]mm:]ss -> seconds; 0 on a malformed value. */
static double parse_interval(const char *s)
{
    long parts[3];
    int n = 0;
    const char *p = s;
    for (;;) {
        if (*p < '0' || *p > '9' || n == 3) return 0;
        long v = 0;
        while (*p >= '0' && *p <= '9') {
            v = v * 10 + (*p++ - '0');
            if (v > 100000000L) return 0;
        }
        parts[n++] = v;
        if (*p == '\0') break;
        if (*p != ':') return 0;
        p++;
    }
    double secs = 0;
    for (int i = 0; i < n; i++) secs = secs * 60 + (double)parts[i];
    return secs;
}

static int parse_count(const char *s, long *out)
{
    long v = 0;
    if (!*s) return -1;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (*p - '0');
        if (v > 2147483647L) return -1;
    }
    if (v <= 0) return -1;
    *out = v;
    return 0;
}

static int parse_args(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->interval = 1;
    o->paths = calloc((size_t)argc + 1, sizeof *o->paths);
    if (!o->paths) return EXIT_SOURCE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        int has_next = next && next[0] != '-' && next[0] != '/';
        if (a[0] != '-' && a[0] != '/') {
            o->paths[o->npaths++] = a;
            continue;
        }
        if (opt_is(a, "?") || opt_is(a, "h") || opt_is(a, "help") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(tool_stdout_close("typeperf") ? EXIT_OUTPUT : EXIT_OK);
        } else if (!strcmp(a, "--version")) {
            printf("typeperf (perflib) %s\r\n", pl_version());
            exit(tool_stdout_close("typeperf") ? EXIT_OUTPUT : EXIT_OK);
        } else if (opt_is(a, "q") || opt_is(a, "qx")) {
            o->query = opt_is(a, "q") ? 1 : 2;
            if (has_next && next[0] != '\\') { o->qobject = next; i++; }
        } else if (opt_is(a, "y")) {
            o->yes = 1;
        } else if (opt_is(a, "cf") || opt_is(a, "o") || opt_is(a, "f") || opt_is(a, "si") || opt_is(a, "sc") ||
                   opt_is(a, "s") || opt_is(a, "i")) {
            if (!next) { errorf("option %s needs a value.", a); return EXIT_USAGE; }
            i++;
            if (opt_is(a, "cf")) o->cf = next;
            else if (opt_is(a, "o")) o->out = next;
            else if (opt_is(a, "s")) o->computer = next;
            else if (opt_is(a, "i")) o->in = next;
            else if (opt_is(a, "f")) {
                if (strcasecmp(next, "CSV") == 0) o->tsv = 0;
                else if (strcasecmp(next, "TSV") == 0) o->tsv = 1;
                else if (strcasecmp(next, "BIN") == 0) o->bin = 1;
                else if (strcasecmp(next, "SQL") == 0) o->sql = 1;
                else {
                    errorf("unknown file format \"%s\" (use CSV, TSV, BIN or SQL).", next);
                    return EXIT_USAGE;
                }
            } else if (opt_is(a, "si")) {
                o->interval = parse_interval(next);
                if (o->interval <= 0) {
                    errorf("invalid sample interval \"%s\" (use [[hh:]mm:]ss, at least 1 second).", next);
                    return EXIT_USAGE;
                }
            } else if (parse_count(next, &o->samples) != 0) {
                errorf("invalid sample count \"%s\" (use a positive number).", next);
                return EXIT_USAGE;
            }
        } else {
            errorf("unknown option \"%s\". Run typeperf -? for help.", a);
            return EXIT_USAGE;
        }
    }
    if (!o->query && o->npaths == 0 && !o->cf) {
        errorf("no counters given. Run typeperf -? for help.");
        return EXIT_USAGE;
    }
    if (o->bin && !o->query && !o->out) {
        errorf("-f BIN writes a binary log: give its file with -o.");
        return EXIT_USAGE;
    }
    /* -o SQL:DSN!LogSet is an SQL log whatever -f says (as on Windows) */
    if (o->out && strncasecmp(o->out, "SQL:", 4) == 0 && !o->bin && !o->query) o->sql = 1;
    if (o->sql && !o->query && !o->out) {
        errorf("-f SQL writes into a database: give it with -o SQL:DSN!LogSet.");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* Paths from -cf: one per line, blank lines skipped, a UTF-8 BOM ignored. */
static int read_counter_file(const char *file, opts *o, char **mem)
{
    FILE *f = fopen(file, "rb");
    if (!f) { errorf("cannot open counter file \"%s\": %s.", file, strerror(errno)); return EXIT_USAGE; }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1) break;
        char *nb = realloc(buf, cap * 2);
        if (!nb) { free(buf); buf = NULL; break; }
        buf = nb;
        cap *= 2;
    }
    fclose(f);
    if (!buf) return EXIT_SOURCE;
    buf[n] = '\0';
    if (tp_counter_file_split(buf, &o->paths, &o->npaths) != 0) { free(buf); return EXIT_SOURCE; }
    *mem = buf;
    return EXIT_OK;
}

/* ------------------------------------------------------------ output */


typedef struct column {
    pl_pdh_counter *c;
    char *header;
} column;

static int fail_status(uint32_t st)
{
    switch (st) {
    case PL_PDH_CSTATUS_BAD_COUNTERNAME: case PL_PDH_CSTATUS_NO_OBJECT: case PL_PDH_CSTATUS_NO_COUNTER:
    case PL_PDH_CSTATUS_NO_INSTANCE: case PL_PDH_CSTATUS_NO_MACHINE: case PL_PDH_INVALID_PATH:
    case PL_PDH_INVALID_ARGUMENT:
        return EXIT_PATH;
    default:
        return EXIT_SOURCE;
    }
}

static const char *status_text(uint32_t st)
{
    switch (st) {
    case PL_PDH_CSTATUS_BAD_COUNTERNAME: return "The counter path is malformed";
    case PL_PDH_CSTATUS_NO_OBJECT: return "The object was not found";
    case PL_PDH_CSTATUS_NO_COUNTER: return "The counter was not found";
    case PL_PDH_CSTATUS_NO_INSTANCE: return "The instance was not found";
    case PL_PDH_CSTATUS_NO_MACHINE: return "The computer was not found or did not answer";
    default: return "The counter could not be added";
    }
}

/* Write a line: fields quoted, separated, CRLF. A '"' inside a field (an
 * instance name can hold one) is doubled as RFC 4180 says, so the field
 * cannot end early and a name cannot add columns. */
static void put_row(FILE *out, char sep, char **fields, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i) fputc(sep, out);
        fputc('"', out);
        for (const char *p = fields[i]; *p; p++) {
            if (*p == '"') fputc('"', out);
            fputc(*p, out);
        }
        fputc('"', out);
    }
    fputs("\r\n", out);
}

/* ----------------------------------------------------- binary log (-f BIN) */

/* -i: the data source is a counter log read through PDH; each sample is the
 * next record. */
static int open_replay(const char *file, pl_pdh_source *src, pl_log **log, pl_log_source **ls)
{
    pl_error err = {0};
    if (pl_log_open(file, log, &err) != PL_OK) {
        errorf("cannot read the log \"%s\": %s.", file, err.msg);
        return EXIT_SOURCE;
    }
    if (pl_log_source_open(*log, src, ls, &err) != PL_OK) {
        errorf("cannot replay \"%s\": %s.", file, err.msg);
        pl_log_close(*log);
        *log = NULL;
        return EXIT_SOURCE;
    }
    return EXIT_OK;
}

/* The columns as a log names them: path, type, scale, help, and (tb not
 * NULL) each counter's time base. */
static void log_columns(const column *cols, size_t ncols, pl_log_column *lc, int64_t *tb)
{
    for (size_t i = 0; i < ncols; i++) {
        pl_pdh_counter_info info;
        memset(&info, 0, sizeof info);
        pl_pdh_get_counter_info(cols[i].c, &info);
        lc[i].path = cols[i].header;
        lc[i].type = info.type;
        lc[i].scale = info.default_scale;
        lc[i].help = info.explain;
        if (tb && pl_pdh_get_time_base(cols[i].c, &tb[i]) != 0) tb[i] = 0;
    }
}

/* Create the log at the first sample: its header names the columns with
 * their type, scale and help, and carries the source's title database. */
static int bin_create(const opts *o, const pl_pdh_source *src, const char *machine, const column *cols, size_t ncols,
                      pl_log_writer **w)
{
    pl_log_column *lc = calloc(ncols, sizeof *lc);
    if (!lc) return EXIT_SOURCE;
    log_columns(cols, ncols, lc, NULL);
    pl_log_header h = {PL_LOG_BLOCKS, machine, lc, ncols, src->titles(src->ctx, 0), src->titles(src->ctx, 1)};
    pl_error err = {0};
    int s = pl_log_create(o->out, &h, PL_LOG_OVERWRITE, w, &err);
    free(lc);
    if (s) {
        errorf("cannot create \"%s\": %s.", o->out, err.msg);
        return EXIT_OUTPUT;
    }
    return EXIT_OK;
}

/* -f SQL: open the log set at the first sample (its time names the zone
 * DisplayToID records). Each column is a CounterDetails row with the
 * counter's type, scale and time base. */
static int sql_create(const opts *o, const column *cols, size_t ncols, const struct tm *tm, pl_sqllog_writer **w)
{
    pl_log_column *lc = calloc(ncols, sizeof *lc);
    int64_t *tb = calloc(ncols, sizeof *tb);
    if (!lc || !tb) {
        free(lc);
        free(tb);
        return EXIT_SOURCE;
    }
    log_columns(cols, ncols, lc, tb);
    pl_sqllog_info si = {lc, ncols, tb, NULL, 0};
    si.zone = tp_zone_name_bias(tm, getenv("TZ"), "/etc", &si.bias);
    pl_error err = {0};
    int s = pl_sqllog_open(o->out, &si, 0, w, &err);
    free(lc);
    free(tb);
    if (s) {
        errorf("cannot open the SQL log \"%s\": %s.", o->out, err.msg);
        return EXIT_OUTPUT;
    }
    return EXIT_OK;
}

/* -------------------------------------------------------------- main */

static int list_counters(const pl_pdh_source *src, const opts *o, const char *machine, FILE *out)
{
    const char *mp = machine ? "\\\\" : "", *mn = machine ? machine : "";
    char **objs = NULL;
    size_t nobj = 0;
    pl_error err = {0};
    uint32_t st;
    if (o->qobject) {
        nobj = 1;
    } else {
        st = pl_pdh_enum_objects(src, 0, &objs, &nobj, &err);
        if (st) { errorf("cannot list the objects: %s (0x%08X).", err.msg, st); return EXIT_SOURCE; }
    }
    int rc = EXIT_OK;
    for (size_t i = 0; i < nobj; i++) {
        const char *obj = o->qobject ? o->qobject : objs[i];
        char **ctrs = NULL, **insts = NULL;
        size_t nc = 0, ni = 0;
        int has = 0;
        st = pl_pdh_enum_object_items(src, obj, &ctrs, &nc, &insts, &ni, &has, &err);
        if (st) {
            errorf("object \"%s\": %s (0x%08X).", obj, status_text(st), st);
            rc = fail_status(st);
            break;
        }
        for (size_t c = 0; c < nc; c++) {
            if (!has) fprintf(out, "%s%s\\%s\\%s\r\n", mp, mn, obj, ctrs[c]);
            else if (o->query == 1) fprintf(out, "%s%s\\%s(*)\\%s\r\n", mp, mn, obj, ctrs[c]);
            else
                for (size_t k = 0; k < ni; k++) fprintf(out, "%s%s\\%s(%s)\\%s\r\n", mp, mn, obj, insts[k], ctrs[c]);
        }
        pl_free(ctrs);
        pl_free(insts);
    }
    pl_free(objs);
    return rc;
}

static int open_source(pl_pdh_source *src, canned_src *cs, void **engine)
{
    pl_error err = {0};
    const char *dir = getenv("PERFLIB_TYPEPERF_BLOCKS");
    *engine = NULL;
    if (dir && *dir) {
        snprintf(cs->dir, sizeof cs->dir, "%s", dir);
        if (pl_store_open(NULL, PL_STORE_READONLY, &cs->st, &err) != PL_OK) {
            errorf("cannot open the registry store: %s.", err.msg);
            return EXIT_SOURCE;
        }
        if (pl_titles_load(cs->st, NULL, &cs->def, &err) != PL_OK ||
            (strcmp(pl_titles_language(cs->def), "009") == 0 ? (cs->en = cs->def, 0)
                                                              : pl_titles_load(cs->st, "009", &cs->en, &err)) != PL_OK) {
            errorf("cannot read the counter names: %s.", err.msg);
            return EXIT_SOURCE;
        }
        src->collect = canned_collect;
        src->titles = canned_titles;
        src->close = canned_close;
        src->ctx = cs;
        return EXIT_OK;
    }
#ifdef TYPEPERF_HAVE_ENGINE
    pl_engine *e = NULL;
    if (pl_engine_open(NULL, &e, &err) != PL_OK) {
        errorf("cannot open the performance data engine: %s.", err.msg);
        return EXIT_SOURCE;
    }
    if (pl_pdh_engine_source(e, src, &err) != 0) {
        errorf("%s.", err.msg);
        pl_engine_close(e);
        return EXIT_SOURCE;
    }
    *engine = e;
    return EXIT_OK;
#else
    errorf("this typeperf was built without the query engine: no live data.");
    return EXIT_SOURCE;
#endif
}

static void close_source(pl_pdh_source *src, void *engine)
{
    pl_pdh_source_close(src);
#ifdef TYPEPERF_HAVE_ENGINE
    pl_engine_close(engine);
#else
    (void)engine;
#endif
}

/* -s on another machine: the listing (-q, -qx) reads that machine's data
 * through this source, which turns every query into "Foreign <computer>
 * <query>". Sampling needs no wrapper: the paths get "\\computer" in front. */
typedef struct foreign_src {
    const pl_pdh_source *inner;
    const char *computer;
} foreign_src;

static int foreign_collect(void *ctx, const char *query, void **block, size_t *len, pl_error *err)
{
    foreign_src *f = ctx;
    size_t n = strlen(f->computer) + strlen(query) + 10;
    char *fq = malloc(n);
    if (!fq) return PL_E_NOMEM;
    snprintf(fq, n, "Foreign %s %s", f->computer, query);
    int rc = f->inner->collect(f->inner->ctx, fq, block, len, err);
    free(fq);
    return rc;
}

static const pl_titles *foreign_titles(void *ctx, int english)
{
    foreign_src *f = ctx;
    return f->inner->titles ? f->inner->titles(f->inner->ctx, english) : NULL;
}

static int is_local(const char *computer, const char *machine)
{
    const char *c = computer;
    if (c[0] == '\\' && c[1] == '\\') c += 2;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    return strcasecmp(c, ".") == 0 || strcasecmp(c, "localhost") == 0 || strcasecmp(c, machine) == 0 ||
           strcasecmp(c, host) == 0;
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

static int run(int argc, char **argv);

/* Output that cannot be written (a full disk, a closed stdout) is exit 4,
 * like an output file that cannot be written. */
int main(int argc, char **argv)
{
    tool_guard_stdio();
    int rc = run(argc, argv);
    if (tool_stdout_close("typeperf") != 0 && rc == EXIT_OK) rc = EXIT_OUTPUT;
    return rc;
}

static int run(int argc, char **argv)
{
    opts o;
    int rc = parse_args(argc, argv, &o);
    char *cfmem = NULL;
    if (rc) return rc;
    if (o.cf && (rc = read_counter_file(o.cf, &o, &cfmem)) != 0) return rc;
    if (!o.query && o.npaths == 0) {
        errorf("no counters given. Run typeperf -? for help.");
        free(cfmem);
        free(o.paths);
        return EXIT_USAGE;
    }

    pl_pdh_source src = {0}, inner = {0};
    canned_src cs;
    memset(&cs, 0, sizeof cs);
    void *engine = NULL;
    pl_log *rlog = NULL;
    pl_log_source *rls = NULL;
    if ((rc = o.in ? open_replay(o.in, &inner, &rlog, &rls) : open_source(&inner, &cs, &engine)) != 0) {
        free(cfmem);
        free(o.paths);
        return rc;
    }
    int canned = inner.collect == canned_collect;
    /* -f BIN records the blocks the query collects: a tap in front of the
     * source keeps the last one */
    pl_log_tap *tap = NULL;
    pl_log_writer *binlog = NULL;
    pl_sqllog_writer *sqllog = NULL;
    src = inner;
    if (o.bin && !o.query) {
        pl_error terr = {0};
        if (pl_log_tap_open(&inner, &src, &tap, &terr) != PL_OK) {
            errorf("%s.", terr.msg);
            close_source(&inner, engine);
    pl_log_close(rlog);
            free(cfmem);
            free(o.paths);
            return EXIT_SOURCE;
        }
    }
    FILE *out = stdout;
    pl_pdh_query *q = NULL;
    column *cols = NULL;
    size_t ncols = 0;
    pl_error err = {0};
    char **fields = NULL;
    const char *remote = NULL;   /* -s names another machine */
    char **mpaths = NULL;        /* paths given that machine's name */

    if (o.computer) {
        /* learn the machine name from one collection's header */
        void *blk = NULL;
        size_t len = 0;
        char machine[256] = "";
        if (src.collect(src.ctx, "2", &blk, &len, &err) == PL_OK) {
            pl_block b;
            if (pl_block_open(&b, blk, len, 0, 0, NULL) == PL_OK) snprintf(machine, sizeof machine, "%s", b.system_name);
        }
        free(blk);
        if (!is_local(o.computer, machine)) {
            remote = o.computer[0] == '\\' && o.computer[1] == '\\' ? o.computer + 2 : o.computer;
            if (!*remote || strpbrk(remote, " \t\\")) {
                errorf("computer \"%s\": not a computer name.", o.computer);
                rc = EXIT_SOURCE;
                goto done;
            }
            /* paths without a computer are that computer's */
            mpaths = calloc(o.npaths + 1, sizeof *mpaths);
            if (!mpaths) { rc = EXIT_SOURCE; goto done; }
            for (size_t i = 0; i < o.npaths; i++) {
                if (o.paths[i][0] == '\\' && o.paths[i][1] == '\\') continue;
                size_t l = strlen(remote) + strlen(o.paths[i]) + 3;
                if (!(mpaths[i] = malloc(l))) { rc = EXIT_SOURCE; goto done; }
                snprintf(mpaths[i], l, "\\\\%s%s", remote, o.paths[i]);
                o.paths[i] = mpaths[i];
            }
        }
    }

    if (o.out && !o.sql) { /* an SQL log set is appended to, as on Windows */
        if (!o.yes && !confirm_overwrite(o.out)) {
            errorf("the output file \"%s\" was not overwritten.", o.out);
            rc = EXIT_OUTPUT;
            goto done;
        }
    }

    if (o.query) {
        if (o.out && !(out = fopen(o.out, "wb"))) {
            errorf("cannot create \"%s\": %s.", o.out, strerror(errno));
            rc = EXIT_OUTPUT;
            goto done;
        }
        if (remote) {
            foreign_src fs = {.inner = &src, .computer = remote};
            pl_pdh_source wrapped = {.collect = foreign_collect, .titles = foreign_titles, .ctx = &fs};
            rc = list_counters(&wrapped, &o, remote, out);
        } else {
            rc = list_counters(&src, &o, NULL, out);
        }
        if (rc == EXIT_OK && out != stdout) {
            int bad = ferror(out) | fclose(out);
            out = stdout;
            if (bad) {
                errorf("writing \"%s\" failed.", o.out);
                rc = EXIT_OUTPUT;
            }
        }
        if (rc == EXIT_OK) fputs("The command completed successfully.\r\n", stdout);
        goto done;
    }

    if (pl_pdh_open_query(&src, &q, &err) != 0) { errorf("%s.", err.msg); rc = EXIT_SOURCE; goto done; }
    /* Validate every path, expand the wildcards once (one column per match).
     * A path that is malformed or names nothing is reported on stderr and
     * skipped; typeperf samples the valid ones and fails only when none is
     * left (docs/typeperf.md). A failing data source stops at once. */
    size_t nbad = 0;
    for (size_t i = 0; i < o.npaths; i++) {
        const char *p = o.paths[i];
        char **exp = NULL;
        size_t nexp = 0;
        uint32_t st = strchr(p, '*') ? pl_pdh_expand_path(&src, p, &exp, &nexp, &err) : pl_pdh_validate_path(&src, p, &err);
        if (st) {
            errorf("\"%s\": %s (0x%08X). %s", p, status_text(st), st, err.msg);
            if (fail_status(st) == EXIT_PATH) { nbad++; continue; }
            rc = fail_status(st);
            goto done;
        }
        size_t count = exp ? nexp : 1;
        column *nc = realloc(cols, (ncols + count + 1) * sizeof *cols);
        if (!nc) { pl_free(exp); rc = EXIT_SOURCE; goto done; }
        cols = nc;
        for (size_t k = 0; k < count; k++) {
            const char *path = exp ? exp[k] : p;
            pl_pdh_counter *c = NULL;
            st = pl_pdh_add_counter(q, path, &c, &err);
            if (st) {
                errorf("\"%s\": %s (0x%08X). %s", path, status_text(st), st, err.msg);
                if (fail_status(st) == EXIT_PATH) { nbad++; continue; }
                pl_free(exp);
                rc = fail_status(st);
                goto done;
            }
            pl_pdh_counter_info info;
            pl_pdh_get_counter_info(c, &info);
            cols[ncols].c = c;
            cols[ncols].header = strdup(info.full_path);
            if (!cols[ncols].header) { pl_free(exp); rc = EXIT_SOURCE; goto done; }
            ncols++;
        }
        pl_free(exp);
    }
    if (ncols == 0) {
        if (nbad) errorf("No valid counters.");
        else errorf("No valid counters (the wildcards matched no instance).");
        rc = EXIT_PATH;
        goto done;
    }

    if (o.out && !o.bin && !o.sql && !(out = fopen(o.out, "wb"))) {
        errorf("cannot create \"%s\": %s.", o.out, strerror(errno));
        rc = EXIT_OUTPUT;
        goto done;
    }
    int console = out == stdout && !o.bin && !o.sql;
    char sep = o.tsv ? '\t' : ',';
    fields = calloc(ncols + 1, sizeof *fields);
    if (!fields) { rc = EXIT_SOURCE; goto done; }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);

    /* Test hook: PERFLIB_TYPEPERF_CLOCK="<unix ms>[,<step ms>]" fixes the
     * timestamps; with it or with canned blocks, samples do not wait. */
    const char *clk = getenv("PERFLIB_TYPEPERF_CLOCK");
    int fixed_clock = 0;
    int64_t clk_start = 0, clk_step = 1000;
    if (clk && *clk) {
        char *e = NULL;
        clk_start = strtoll(clk, &e, 10);
        if (e && *e == ',') clk_step = strtoll(e + 1, &e, 10);
        fixed_clock = 1;
    }
    /* PERFLIB_TYPEPERF_REALTIME=1 makes canned runs wait -si between samples
     * (for the Ctrl+C test). */
    const char *rt = getenv("PERFLIB_TYPEPERF_REALTIME");
    int no_wait = fixed_clock || rlog || (canned && !(rt && strcmp(rt, "1") == 0));

    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int header_done = 0, write_failed = 0;
    char stamp[64];
    char **vals = calloc(ncols, sizeof *vals);
    double *num = calloc(ncols, sizeof *num);
    unsigned char *have = calloc(ncols, 1);
    pl_pdh_raw *raws = calloc(ncols, sizeof *raws);
    if (!vals || !num || !have || !raws) { rc = EXIT_SOURCE; goto freevals; }
    for (size_t i = 0; i < ncols; i++) {
        vals[i] = malloc(64);
        if (!vals[i]) { rc = EXIT_SOURCE; goto freevals; }
    }
    for (long n = 0; o.samples == 0 || n < o.samples; n++) {
        if (n > 0 && !no_wait) {
            double at = o.interval * (double)n;
            struct timespec wake = t0;
            wake.tv_sec += (time_t)at;
            wake.tv_nsec += (long)((at - (double)(time_t)at) * 1e9);
            if (wake.tv_nsec >= 1000000000L) { wake.tv_sec++; wake.tv_nsec -= 1000000000L; }
            while (!g_stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, NULL) == EINTR) {}
        }
        if (g_stop) break;
        cs.cur = (int)n;
        if (rlog) {
            /* replay: the next record; its time is the sample's (a gap or a
             * damaged record fails the collection and shows " ") */
            if ((size_t)n >= pl_log_count(rlog)) break;
            pl_log_source_set(rls, (size_t)n, NULL);
        }
        uint32_t st = pl_pdh_collect(q, &err);
        if (st && canned && cs.exhausted) break; /* canned data ran out: stop like Ctrl+C */
        int64_t ms = fixed_clock ? clk_start + clk_step * n
                                 : (st == 0 ? pl_pdh_query_time(q) / 10000 - 11644473600000LL : 0);
        if (rlog && !fixed_clock) ms = pl_log_time(rlog, (size_t)n) / 10000 - 11644473600000LL;
        else if (!fixed_clock && st) {
            struct timespec now;
            clock_gettime(CLOCK_REALTIME, &now);
            ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
        }
        if (o.bin) {
            pl_error lerr = {0};
            const void *blk = NULL;
            size_t blen = 0;
            if (!binlog && (rc = bin_create(&o, &src, st ? "" : pl_pdh_query_machine(q), cols, ncols, &binlog)) != 0)
                goto freevals;
            if (!st) pl_log_tap_last(tap, &blk, &blen);
            /* a failed collection is recorded as a gap */
            if (pl_log_append(binlog, (ms + 11644473600000LL) * 10000, blk, blk ? blen : 0, &lerr) != PL_OK) {
                errorf("writing \"%s\" failed: %s.", o.out, lerr.msg);
                rc = EXIT_OUTPUT;
                goto freevals;
            }
            continue;
        }
        struct tm tm;
        tp_fmt_time(ms, stamp, sizeof stamp, &tm);
        if (o.sql) {
            /* the values the CSV would show, and the raw counters */
            for (size_t i = 0; i < ncols; i++) {
                num[i] = 0;
                have[i] = !st && tp_value(cols[i].c, &num[i]);
                memset(&raws[i], 0, sizeof raws[i]);
                if (st || pl_pdh_get_raw(cols[i].c, NULL, &raws[i]) != 0) raws[i].cstatus = PL_PDH_CSTATUS_INVALID_DATA;
            }
            pl_error lerr = {0};
            if (!sqllog && (rc = sql_create(&o, cols, ncols, &tm, &sqllog)) != 0) goto freevals;
            if (pl_sqllog_append(sqllog, (ms + 11644473600000LL) * 10000, num, have, raws, &lerr) != PL_OK) {
                errorf("writing \"%s\" failed: %s.", o.out, lerr.msg);
                rc = EXIT_OUTPUT;
                goto freevals;
            }
            continue;
        }
        if (!header_done) {
            char first[160];
            if (console) {
                fputs("\r\n", out);
                snprintf(first, sizeof first, "(PDH-%s 4.0)", o.tsv ? "TSV" : "CSV");
            } else {
                tp_log_header_cell(o.tsv ? "TSV" : "CSV", &tm, getenv("TZ"), "/etc", first, sizeof first);
            }
            fields[0] = first;
            for (size_t i = 0; i < ncols; i++) fields[i + 1] = cols[i].header;
            put_row(out, sep, fields, ncols + 1);
            header_done = 1;
        }
        fields[0] = stamp;
        for (size_t i = 0; i < ncols; i++) {
            double v = 0;
            if (st || !tp_value(cols[i].c, &v)) snprintf(vals[i], 64, " ");
            else if (console) snprintf(vals[i], 64, "%.6f", v);
            else tp_fmt_full(v, vals[i], 64);
            fields[i + 1] = vals[i];
        }
        put_row(out, sep, fields, ncols + 1);
        if (fflush(out) != 0 || ferror(out)) { /* a full disk, a closed pipe: stop sampling now */
            write_failed = 1;
            break;
        }
    }
    if (write_failed) {
        errorf("writing %s%s%s failed.", o.out ? "\"" : "", o.out ? o.out : "the output", o.out ? "\"" : "");
        rc = EXIT_OUTPUT;
        goto freevals;
    }
    fputs("Exiting, please wait...\r\n", stdout);
    pl_error cerr = {0};
    if (binlog && pl_log_writer_close(binlog, &cerr) != PL_OK) {
        binlog = NULL;
        errorf("writing \"%s\" failed: %s.", o.out, cerr.msg);
        rc = EXIT_OUTPUT;
    } else if (sqllog && pl_sqllog_close(sqllog, &cerr) != PL_OK) {
        sqllog = NULL;
        errorf("writing \"%s\" failed: %s.", o.out, cerr.msg);
        rc = EXIT_OUTPUT;
    } else if (out != stdout && (ferror(out) || fclose(out) != 0)) {
        out = stdout;
        errorf("writing \"%s\" failed.", o.out);
        rc = EXIT_OUTPUT;
    } else {
        binlog = NULL;
        sqllog = NULL;
        out = stdout;
        fputs("The command completed successfully.\r\n", stdout);
    }
freevals:
    for (size_t i = 0; vals && i < ncols; i++) free(vals[i]);
    free(vals);
    free(num);
    free(have);
    free(raws);
done:
    if (out && out != stdout) fclose(out);
    fflush(stdout);
    free(fields);
    for (size_t i = 0; i < ncols; i++) free(cols[i].header);
    free(cols);
    pl_pdh_close_query(q);
    pl_log_writer_close(binlog, NULL);
    pl_sqllog_close(sqllog, NULL);
    if (tap) pl_pdh_source_close(&src);
    close_source(&inner, engine);
    if (mpaths)
        for (size_t i = 0; i < o.npaths; i++) free(mpaths[i]);
    free(mpaths);
    pl_log_close(rlog);
    free(cfmem);
    free(o.paths);
    return rc;
}
