/* perfquery: dump a performance-data snapshot or the title database.
 *
 * The seed articles' PERFENUM (every object, instance and counter of a
 * snapshot), SHOWTITL (the title database) and WORKSET (one value by names)
 * in one tool, built only on the public API. See docs/perfquery.md for the
 * output formats and exit codes. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perflib/block.h"
#include "perflib/provider.h"
#include "perflib/query.h"
#include "perflib/registry.h"
#include "perflib/status.h"
#include "pq_json.h"
#include "pq_text.h"
#include "tool_stdout.h"

#define EXIT_USAGE 1
#define EXIT_NOTFOUND 2
#define EXIT_BADBLOCK 3
#define EXIT_ENGINE 4
#define EXIT_UNAVAILABLE 5 /* --get: the provider marked the value unreadable */

/* Indices the summary looks for (Windows English indices). */
#define IDX_SYSTEM 2u
#define IDX_MEMORY 4u
#define IDX_PROCESS 230u
#define IDX_THREAD 232u
#define IDX_PROCESSOR 238u
#define IDX_PROCESSES 248u
#define IDX_THREADS 250u
#define IDX_AVAILABLE_MBYTES 1382u

typedef struct opts {
    const char *registry;     /* --registry */
    const char *system_name;  /* --system-name */
    int json;                 /* --json */
    int have_fixed_time;      /* PERFLIB_FIXED_TIME */
    uint64_t fixed_time;
} opts;

typedef pq_header_view header_view;

static void usage(FILE *f)
{
    fputs("usage: perfquery [options] [QUERY...]     dump a snapshot (default query \"Global\")\n"
          "       perfquery [options] --summary          a short summary of a Global snapshot\n"
          "       perfquery [options] --titles [LANG]    the title database: index and name\n"
          "       perfquery [options] --help-texts [LANG] the help texts: index and text\n"
          "       perfquery [options] --get OBJECT INSTANCE COUNTER\n"
          "                                              one raw value (INSTANCE: name, name#n,\n"
          "                                              parent/name, or - for no instances)\n"
          "       perfquery [options] --raw FILE QUERY   save the answer's exact bytes to FILE\n"
          "       perfquery [options] --read FILE        dump a saved block\n"
          "       perfquery [options] --providers        provider status after a Global query\n"
          "options:\n"
          "  --registry PATH      the registry store (default: $PERFLIB_REGISTRY, then the\n"
          "                       installed store, then the build tree's store)\n"
          "  --system-name NAME   the system name the engine writes into the block\n"
          "  --json               JSON output for snapshot dumps (see docs/perfquery.md)\n"
          "  --help               this text\n"
          "environment: PERFLIB_FIXED_TIME=N shows FILETIME N instead of the block's times\n"
          "values a provider could not read are shown as n/a (JSON: null, \"available\": false)\n"
          "exit codes: 0 ok, 1 usage, 2 not found (also: a query that answered no object),\n"
          "            3 bad block or file error, 4 engine/store error,\n"
          "            5 --get: the value is unavailable (n/a)\n",
          f);
}

/* ------------------------------------------------------------ utilities */

static int parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s) return -1;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10u) return -1;
        v = v * 10u + d;
    }
    *out = v;
    return 0;
}


static const char *detail_name(uint32_t level)
{
    switch (level) {
    case 100: return "novice";
    case 200: return "advanced";
    case 300: return "expert";
    case 400: return "wizard";
    default: return "other";
    }
}

static void print_type(FILE *f, uint32_t type)
{
    const char *n = pl_type_name(type);
    if (n)
        fputs(n, f);
    else
        fprintf(f, "0x%08x", (unsigned)type);
}



static void fill_header_view(const opts *o, const pl_block *blk, header_view *hv)
{
    memset(hv, 0, sizeof *hv);
    hv->system_name = blk->system_name;
    hv->num_objects = blk->num_objects;
    if (o->have_fixed_time) {
        pq_filetime_to_civil(o->fixed_time, &hv->time);
        hv->perf_time = (int64_t)o->fixed_time;
        hv->perf_time_100ns = (int64_t)o->fixed_time;
        hv->perf_freq = blk->hdr.PerfFreq.QuadPart;
        return;
    }
    const SYSTEMTIME *st = &blk->hdr.SystemTime;
    hv->time.year = st->wYear;
    hv->time.month = st->wMonth;
    hv->time.day = st->wDay;
    hv->time.hour = st->wHour;
    hv->time.minute = st->wMinute;
    hv->time.second = st->wSecond;
    hv->time.millis = st->wMilliseconds;
    hv->perf_time = blk->hdr.PerfTime.QuadPart;
    hv->perf_freq = blk->hdr.PerfFreq.QuadPart;
    hv->perf_time_100ns = blk->hdr.PerfTime100nSec.QuadPart;
}

/* ------------------------------------------------------ the text dump */

/* Print the values of one instance (or of the object's single block). */
static void text_values(FILE *f, const pl_object *obj, const pl_instance *inst, const pl_titles *t,
                        const char *indent)
{
    pl_counter c; /* walked with pl_counter_next: linear */
    for (uint32_t pos = 0; pos < obj->hdr.NumCounters; pos++) {
        if ((pos ? pl_counter_next(&c, &c) : pl_object_counter(obj, 0, &c)) != PL_OK) break;
        const char *name = pq_title(t, c.def.CounterNameTitleIndex);
        fprintf(f, "%sCounter %u ", indent, (unsigned)c.def.CounterNameTitleIndex);
        if (name)
            pq_plain_string(f, name);
        else
            fputs("(no name)", f);
        fputs(" [", f);
        print_type(f, c.def.CounterType);
        fputs("]: ", f);
        if (!pl_counter_available(&c, inst)) {
            fputs("n/a", f); /* marked unreadable by the provider */
        } else if (pq_is_text_type(c.def.CounterType)) {
            char *s = pq_counter_text(&c, inst);
            if (s) {
                pq_json_string(f, s);
                free(s);
            } else {
                fputs("(unreadable)", f);
            }
        } else {
            uint64_t v;
            if (pl_counter_value(&c, inst, &v) == PL_OK)
                fprintf(f, "%llu", (unsigned long long)v);
            else
                fputs("(no data)", f);
            if (c.has_base) {
                uint64_t b;
                if (pl_counter_base(&c, inst, &b) == PL_OK) fprintf(f, " base %llu", (unsigned long long)b);
            }
        }
        fputc('\n', f);
        /* The base was shown with its counter: step the walk past it. */
        if (c.has_base && (++pos, pl_counter_next(&c, &c) != PL_OK)) break;
    }
}

static void text_dump(FILE *f, const pl_block *blk, const header_view *hv, const pl_titles *t)
{
    fputs("System name: ", f);
    pq_plain_string(f, hv->system_name);
    fprintf(f, "\nSystem time: %04u-%02u-%02u %02u:%02u:%02u.%03u UTC\n", hv->time.year, hv->time.month,
            hv->time.day, hv->time.hour, hv->time.minute, hv->time.second, hv->time.millis);
    fprintf(f, "PerfTime: %lld\nPerfFreq: %lld\nPerfTime100nSec: %lld\nObjects: %u\n", (long long)hv->perf_time,
            (long long)hv->perf_freq, (long long)hv->perf_time_100ns, (unsigned)hv->num_objects);
    for (uint32_t i = 0; i < blk->num_objects; i++) {
        pl_object obj;
        if (pl_block_object(blk, i, &obj) != PL_OK) break;
        const char *name = pq_title(t, obj.hdr.ObjectNameTitleIndex);
        fprintf(f, "\nObject %u ", (unsigned)obj.hdr.ObjectNameTitleIndex);
        if (name)
            pq_plain_string(f, name);
        else
            fputs("(no name)", f);
        fprintf(f, "\n  Help index: %u\n  Detail level: %u (%s)\n  Counters: %u\n", (unsigned)obj.hdr.ObjectHelpTitleIndex,
                (unsigned)obj.hdr.DetailLevel, detail_name(obj.hdr.DetailLevel), (unsigned)obj.hdr.NumCounters);
        if (obj.hdr.NumInstances == PERF_NO_INSTANCES) {
            fputs("  Instances: none\n", f);
            pl_instance inst;
            if (pl_object_instance(&obj, -1, &inst) == PL_OK) text_values(f, &obj, &inst, t, "  ");
            continue;
        }
        uint32_t n = pl_object_num_instances(&obj);
        fprintf(f, "  Instances: %u\n", (unsigned)n);
        char **names = NULL;
        if (n > 0 && pl_object_instance_names(&obj, &names) != PL_OK) names = NULL;
        pl_instance inst; /* walked with pl_instance_next: linear, not quadratic */
        for (uint32_t k = 0; k < n; k++) {
            if ((k ? pl_instance_next(&inst, &inst) : pl_object_instance(&obj, 0, &inst)) != PL_OK) break;
            fprintf(f, "  Instance %u ", (unsigned)k);
            pq_json_string(f, names ? names[k] : NULL);
            fputc('\n', f);
            text_values(f, &obj, &inst, t, "    ");
        }
        pl_free(names);
    }
}




/* ------------------------------------------------------------ engine */

static int open_engine(const opts *o, pl_engine **e)
{
    pl_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.store_path = o->registry;
    cfg.system_name = o->system_name;
    cfg.log_to_syslog = 0;
    pl_error err = {0};
    if (pl_engine_open(&cfg, e, &err) != PL_OK) {
        fprintf(stderr, "perfquery: cannot open the engine: %s\n", err.msg[0] ? err.msg : pl_strerror(err.status));
        return EXIT_ENGINE;
    }
    return 0;
}

static int run_query_status(pl_engine *e, const char *query, void **buf, size_t *len, uint32_t *type, int *status)
{
    pl_error err = {0};
    *status = pl_engine_query_alloc(e, query, buf, len, type, &err);
    if (*status == PL_E_NOT_FOUND) return EXIT_NOTFOUND; /* the caller explains */
    if (*status != PL_OK) {
        fprintf(stderr, "perfquery: query \"%s\" failed: %s\n", query,
                err.msg[0] ? err.msg : pl_strerror(err.status));
        return EXIT_ENGINE;
    }
    return 0;
}

static int run_query(pl_engine *e, const char *query, void **buf, size_t *len, uint32_t *type)
{
    int status;
    int rc = run_query_status(e, query, buf, len, type, &status);
    if (rc == EXIT_NOTFOUND) {
        fprintf(stderr, "perfquery: query \"%s\" failed: %s\n", query, pl_strerror(status));
        rc = EXIT_ENGINE;
    }
    return rc;
}

static const pl_titles *engine_titles(pl_engine *e)
{
    pl_error err = {0};
    const pl_titles *t = pl_engine_titles(e, &err);
    if (!t) fprintf(stderr, "perfquery: warning: no title database: %s\n", err.msg);
    return t;
}

/* Print a MULTI_SZ (UTF-16LE "index\0text\0...\0\0") one entry a line. */
static int print_multisz(const uint8_t *p, size_t len)
{
    size_t units = len / 2u, i = 0;
    while (i < units) {
        size_t start = i;
        while (i < units && (p[2 * i] | p[2 * i + 1])) i++;
        if (i == start) break; /* the final empty string */
        char *idx = pq_utf16le_to_utf8(p + 2 * start, i - start);
        i++;
        size_t tstart = i;
        while (i < units && (p[2 * i] | p[2 * i + 1])) i++;
        char *text = pq_utf16le_to_utf8(p + 2 * tstart, i - tstart);
        i++;
        if (!idx || !text) {
            free(idx);
            free(text);
            fputs("perfquery: out of memory\n", stderr);
            return EXIT_ENGINE;
        }
        pq_plain_string(stdout, idx);
        fputc(' ', stdout);
        pq_plain_string(stdout, text);
        fputc('\n', stdout);
        free(idx);
        free(text);
    }
    return 0;
}

static int dump_buffer(const opts *o, const void *buf, size_t len, const pl_titles *t, const char *what)
{
    pl_block blk;
    pl_error err = {0};
    if (pl_block_open(&blk, buf, len, 0, 0, &err) != PL_OK) {
        fprintf(stderr, "perfquery: %s: %s\n", what, err.msg[0] ? err.msg : pl_strerror(err.status));
        return EXIT_BADBLOCK;
    }
    header_view hv;
    fill_header_view(o, &blk, &hv);
    if (o->json)
        pq_json_dump(stdout, &blk, &hv, t, NULL);
    else
        text_dump(stdout, &blk, &hv, t);
    return 0;
}

/* What was printed reaches stdout before the providers' Close calls run: a
 * provider that crashes in Close (and is disabled for it by the next
 * consumers, docs/provider-host.md) cannot take the output with it. A
 * write error stays in stdout's error flag for tool_stdout_close(). */
static void engine_done(pl_engine *e)
{
    (void)fflush(stdout);
    pl_engine_close(e);
}

/* An answer with no object is right (Windows answers an unknown word with
 * an empty block), but a person who typed "Glbal" should hear that it
 * matched nothing. Exit 2 (not found). */
static int say_empty(const char *query, const void *buf, size_t len)
{
    pl_block blk;
    pl_error err = {0};
    if (pl_block_open(&blk, buf, len, 0, 0, &err) != PL_OK || blk.num_objects) return 0;
    pl_query_items q;
    pl_query_parse(query, &q);
    if (q.kind == PL_QUERY_KIND_UNKNOWN)
        fprintf(stderr,
                "perfquery: \"%s\" matched nothing: a query is Global, Costly, object indices (\"230 232\"), "
                "Counter/Explain/Help [LANG] or Foreign HOST [QUERY] (see --help)\n",
                query);
    else if (q.kind == PL_QUERY_KIND_ITEMS)
        fprintf(stderr, "perfquery: no object of \"%s\" is in this snapshot (perfquery --titles lists the indices)\n",
                query);
    else
        fprintf(stderr, "perfquery: \"%s\" answered no object (perfquery --providers says why)\n", query);
    return EXIT_NOTFOUND;
}

static int cmd_dump(const opts *o, const char *query)
{
    pl_engine *e = NULL;
    int rc = open_engine(o, &e);
    if (rc) return rc;
    void *buf = NULL;
    size_t len = 0;
    uint32_t type = 0;
    rc = run_query(e, query, &buf, &len, &type);
    if (!rc) {
        if (type == PL_REG_MULTI_SZ)
            rc = print_multisz(buf, len);
        else
            rc = dump_buffer(o, buf, len, engine_titles(e), "the engine's answer");
        if (!rc && type != PL_REG_MULTI_SZ) rc = say_empty(query, buf, len);
    }
    pl_free(buf);
    engine_done(e);
    return rc;
}

static int cmd_titles(const opts *o, const char *word, const char *lang)
{
    char query[64];
    snprintf(query, sizeof query, "%s%s%s", word, lang ? " " : "", lang ? lang : "");
    pl_engine *e = NULL;
    int rc = open_engine(o, &e);
    if (rc) return rc;
    void *buf = NULL;
    size_t len = 0;
    uint32_t type = 0;
    int status = PL_OK;
    rc = run_query_status(e, query, &buf, &len, &type, &status);
    if (rc == EXIT_NOTFOUND) {
        fprintf(stderr, "perfquery: language \"%s\" not found in the title database\n", lang ? lang : "(default)");
    } else if (!rc && type != PL_REG_MULTI_SZ) {
        fprintf(stderr, "perfquery: query \"%s\" did not return a title list (is language %s installed?)\n", query,
                lang ? lang : "(default)");
        rc = EXIT_NOTFOUND;
    } else if (!rc) {
        rc = print_multisz(buf, len);
    }
    pl_free(buf);
    engine_done(e);
    return rc;
}

static int cmd_raw(const opts *o, const char *file, const char *query)
{
    pl_engine *e = NULL;
    int rc = open_engine(o, &e);
    if (rc) return rc;
    void *buf = NULL;
    size_t len = 0;
    uint32_t type = 0;
    rc = run_query(e, query, &buf, &len, &type);
    if (!rc) {
        FILE *f = fopen(file, "wb");
        if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
            fprintf(stderr, "perfquery: cannot write %s: %s\n", file, strerror(errno));
            if (f) fclose(f);
            rc = EXIT_BADBLOCK;
        }
    }
    pl_free(buf);
    engine_done(e);
    return rc;
}

static int cmd_read(const opts *o, const char *file)
{
    FILE *f = fopen(file, "rb");
    if (!f) {
        fprintf(stderr, "perfquery: cannot open %s: %s\n", file, strerror(errno));
        return EXIT_BADBLOCK;
    }
    size_t cap = 65536, len = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len < cap) break;
        if (cap > (size_t)1 << 30) {
            free(buf);
            buf = NULL;
            break;
        }
        uint8_t *nb = realloc(buf, cap * 2u);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2u;
    }
    int ioerr = ferror(f);
    fclose(f);
    if (!buf || ioerr) {
        fprintf(stderr, "perfquery: cannot read %s\n", file);
        free(buf);
        return EXIT_BADBLOCK;
    }
    /* Names come from the store when there is one; the dump works without. */
    pl_store *st = NULL;
    pl_titles *t = NULL;
    pl_error err = {0};
    if (pl_store_open(o->registry, PL_STORE_READONLY, &st, &err) == PL_OK) {
        if (pl_titles_load(st, NULL, &t, &err) != PL_OK) t = NULL;
    }
    char what[4200];
    snprintf(what, sizeof what, "%s", file);
    int rc = dump_buffer(o, buf, len, t, what);
    pl_titles_free(t);
    pl_store_close(st);
    free(buf);
    return rc;
}

/* ------------------------------------------------------------- --get */

/* The instance whose full name (or, failing that, own name with #n among
 * instances of the same own name) equals want. */
static int find_instance(const pl_object *obj, const char *want, pl_instance *out)
{
    uint32_t n = pl_object_num_instances(obj);
    if (n == 0) return PL_E_NOT_FOUND;
    char **names = NULL;
    if (pl_object_instance_names(obj, &names) != PL_OK) return PL_E_NOMEM;
    int found = -1;
    for (uint32_t k = 0; k < n && found < 0; k++)
        if (strcmp(names[k], want) == 0) found = (int)k;
    for (uint32_t k = 0; k < n && found < 0; k++)
        if (strcasecmp(names[k], want) == 0) found = (int)k;
    pl_free(names);
    if (found < 0) {
        /* Own names, numbered among themselves: "bash#1" is the second bash. */
        char **own = calloc(n, sizeof *own);
        if (!own) return PL_E_NOMEM;
        pl_instance inst; /* walked with pl_instance_next: linear, not quadratic */
        for (uint32_t k = 0; k < n; k++) {
            char buf[1024];
            if ((k ? pl_instance_next(&inst, &inst) : pl_object_instance(obj, 0, &inst)) == PL_OK && pl_instance_name(&inst, buf, sizeof buf) == PL_OK)
                own[k] = strdup(buf);
        }
        for (uint32_t k = 0; k < n && found < 0; k++) {
            if (!own[k]) continue;
            unsigned dup = 0;
            for (uint32_t j = 0; j < k; j++)
                if (own[j] && strcmp(own[j], own[k]) == 0) dup++;
            char full[1100];
            if (dup)
                snprintf(full, sizeof full, "%s#%u", own[k], dup);
            else
                snprintf(full, sizeof full, "%s", own[k]);
            if (strcasecmp(full, want) == 0) found = (int)k;
        }
        for (uint32_t k = 0; k < n; k++) free(own[k]);
        free(own);
    }
    if (found < 0) return PL_E_NOT_FOUND;
    return pl_object_instance(obj, found, out);
}

static int cmd_get(const opts *o, const char *oname, const char *iname, const char *cname)
{
    pl_engine *e = NULL;
    int rc = open_engine(o, &e);
    if (rc) return rc;
    const pl_titles *t = engine_titles(e);
    void *buf = NULL;
    if (!t) {
        rc = EXIT_ENGINE;
        goto out;
    }
    uint32_t idx[64];
    size_t nidx = pl_titles_find_all(t, PL_TITLE_NAME, oname, idx, 64);
    if (nidx == 0) {
        fprintf(stderr, "perfquery: object \"%s\" not found: no such name in the title database\n", oname);
        rc = EXIT_NOTFOUND;
        goto out;
    }
    if (nidx > 64) nidx = 64;
    char query[64 * 12];
    size_t ql = 0;
    for (size_t i = 0; i < nidx; i++)
        ql += (size_t)snprintf(query + ql, sizeof query - ql, "%s%u", i ? " " : "", (unsigned)idx[i]);
    /* Ask for the object by index first (cheap); a provider whose Object
     * List does not name it only answers Global or Costly, so try those. */
    const char *queries[3] = {query, "Global", "Costly"};
    pl_block blk;
    pl_object obj;
    int have = 0;
    for (int qi = 0; qi < 3 && !have; qi++) {
        size_t len = 0;
        uint32_t type = 0;
        pl_free(buf);
        buf = NULL;
        rc = run_query(e, queries[qi], &buf, &len, &type);
        if (rc) goto out;
        pl_error err = {0};
        if (pl_block_open(&blk, buf, len, 0, 0, &err) != PL_OK) {
            fprintf(stderr, "perfquery: the engine's answer: %s\n", err.msg);
            rc = EXIT_BADBLOCK;
            goto out;
        }
        for (size_t i = 0; i < nidx && !have; i++)
            if (pl_block_find_object(&blk, idx[i], &obj) == PL_OK) have = 1;
    }
    if (!have) {
        fprintf(stderr, "perfquery: object \"%s\" (index %u) not found: it is not in the snapshot\n", oname,
                (unsigned)idx[0]);
        rc = EXIT_NOTFOUND;
        goto out;
    }
    pl_instance inst;
    if (strcmp(iname, "-") == 0) {
        if (obj.hdr.NumInstances != PERF_NO_INSTANCES) {
            fprintf(stderr, "perfquery: instance \"-\" not found: object \"%s\" has instances; name one\n", oname);
            rc = EXIT_NOTFOUND;
            goto out;
        }
        pl_object_instance(&obj, -1, &inst);
    } else if (obj.hdr.NumInstances == PERF_NO_INSTANCES) {
        fprintf(stderr, "perfquery: instance \"%s\" not found: object \"%s\" has no instances; use -\n", iname,
                oname);
        rc = EXIT_NOTFOUND;
        goto out;
    } else if (find_instance(&obj, iname, &inst) != PL_OK) {
        fprintf(stderr, "perfquery: instance \"%s\" not found in object \"%s\"\n", iname, oname);
        rc = EXIT_NOTFOUND;
        goto out;
    }
    uint32_t cidx[64];
    size_t ncidx = pl_titles_find_all(t, PL_TITLE_NAME, cname, cidx, 64);
    if (ncidx > 64) ncidx = 64;
    pl_counter c;
    have = 0;
    for (size_t i = 0; i < ncidx && !have; i++)
        if (pl_object_find_counter(&obj, cidx[i], &c) == PL_OK && !pl_type_is_base(c.def.CounterType)) have = 1;
    if (!have) {
        if (ncidx == 0)
            fprintf(stderr, "perfquery: counter \"%s\" not found: no such name in the title database\n", cname);
        else
            fprintf(stderr, "perfquery: counter \"%s\" not found in object \"%s\"\n", cname, oname);
        rc = EXIT_NOTFOUND;
        goto out;
    }
    if (!pl_counter_available(&c, &inst)) {
        printf("n/a\n"); /* the provider could not read it for this instance */
        rc = EXIT_UNAVAILABLE;
    } else if (pq_is_text_type(c.def.CounterType)) {
        char *s = pq_counter_text(&c, &inst);
        if (!s) {
            fprintf(stderr, "perfquery: counter \"%s\": unreadable text\n", cname);
            rc = EXIT_BADBLOCK;
            goto out;
        }
        printf("%s\n", s);
        free(s);
    } else {
        uint64_t v, b;
        if (pl_counter_value(&c, &inst, &v) != PL_OK) {
            fprintf(stderr, "perfquery: counter \"%s\" has no value (type ", cname);
            print_type(stderr, c.def.CounterType);
            fputs(")\n", stderr);
            rc = EXIT_NOTFOUND;
            goto out;
        }
        if (c.has_base && pl_counter_base(&c, &inst, &b) == PL_OK)
            printf("%llu %llu\n", (unsigned long long)v, (unsigned long long)b);
        else
            printf("%llu\n", (unsigned long long)v);
    }
out:
    pl_free(buf);
    engine_done(e);
    return rc;
}

/* ------------------------------------------------------ --summary */

static int find_value(const pl_block *blk, uint32_t oidx, uint32_t cidx, uint64_t *v)
{
    pl_object obj;
    pl_counter c;
    pl_instance inst;
    if (pl_block_find_object(blk, oidx, &obj) != PL_OK) return -1;
    if (obj.hdr.NumInstances != PERF_NO_INSTANCES) return -1;
    if (pl_object_find_counter(&obj, cidx, &c) != PL_OK) return -1;
    if (pl_object_instance(&obj, -1, &inst) != PL_OK) return -1;
    if (!pl_counter_available(&c, &inst)) return -1; /* as if absent */
    return pl_counter_value(&c, &inst, v) == PL_OK ? 0 : -1;
}

/* Instances of an object other than "_Total", or -1 when it is absent. */
static long long count_instances(const pl_block *blk, uint32_t oidx)
{
    pl_object obj;
    if (pl_block_find_object(blk, oidx, &obj) != PL_OK) return -1;
    uint32_t n = pl_object_num_instances(&obj);
    long long count = 0;
    pl_instance inst; /* walked with pl_instance_next: linear, not quadratic */
    for (uint32_t k = 0; k < n; k++) {
        char name[64];
        if ((k ? pl_instance_next(&inst, &inst) : pl_object_instance(&obj, 0, &inst)) != PL_OK) break;
        if (pl_instance_name(&inst, name, sizeof name) == PL_OK && strcmp(name, "_Total") == 0) continue;
        count++;
    }
    return count;
}

static int cmd_summary(const opts *o)
{
    pl_engine *e = NULL;
    int rc = open_engine(o, &e);
    if (rc) return rc;
    void *buf = NULL;
    size_t len = 0;
    uint32_t type = 0;
    rc = run_query(e, "Global", &buf, &len, &type);
    if (rc) goto out;
    pl_block blk;
    pl_error err = {0};
    if (pl_block_open(&blk, buf, len, 0, 0, &err) != PL_OK) {
        fprintf(stderr, "perfquery: the engine's answer: %s\n", err.msg);
        rc = EXIT_BADBLOCK;
        goto out;
    }
    const pl_titles *t = engine_titles(e);
    header_view hv;
    fill_header_view(o, &blk, &hv);
    fputs("System: ", stdout);
    pq_plain_string(stdout, hv.system_name);
    printf("\nTime: %04u-%02u-%02u %02u:%02u:%02u.%03u UTC\nObjects: %u\n", hv.time.year, hv.time.month,
           hv.time.day, hv.time.hour, hv.time.minute, hv.time.second, hv.time.millis, (unsigned)blk.num_objects);
    for (uint32_t i = 0; i < blk.num_objects; i++) {
        pl_object obj;
        if (pl_block_object(&blk, i, &obj) != PL_OK) break;
        const char *name = pq_title(t, obj.hdr.ObjectNameTitleIndex);
        char label[160];
        if (name)
            snprintf(label, sizeof label, "%s", name);
        else
            snprintf(label, sizeof label, "(index %u)", (unsigned)obj.hdr.ObjectNameTitleIndex);
        fputs("  ", stdout);
        pq_plain_string(stdout, label);
        for (size_t w = strlen(label); w < 32; w++) fputc(' ', stdout);
        if (obj.hdr.NumInstances == PERF_NO_INSTANCES)
            printf(" instances: -     counters: %u\n", (unsigned)obj.hdr.NumCounters);
        else
            printf(" instances: %-5u counters: %u\n", (unsigned)pl_object_num_instances(&obj),
                   (unsigned)obj.hdr.NumCounters);
    }
    uint64_t v;
    long long n = count_instances(&blk, IDX_PROCESSOR);
    if (n >= 0) printf("Processors: %lld\n", n);
    if (find_value(&blk, IDX_MEMORY, IDX_AVAILABLE_MBYTES, &v) == 0)
        printf("Available MBytes: %llu\n", (unsigned long long)v);
    if (find_value(&blk, IDX_SYSTEM, IDX_PROCESSES, &v) == 0)
        printf("Processes: %llu\n", (unsigned long long)v);
    else if ((n = count_instances(&blk, IDX_PROCESS)) >= 0)
        printf("Processes: %lld\n", n);
    if (find_value(&blk, IDX_SYSTEM, IDX_THREADS, &v) == 0)
        printf("Threads: %llu\n", (unsigned long long)v);
    else if ((n = count_instances(&blk, IDX_THREAD)) >= 0)
        printf("Threads: %lld\n", n);
out:
    pl_free(buf);
    engine_done(e);
    return rc;
}

/* ---------------------------------------------------- --providers */

static int cmd_providers(const opts *o)
{
    pl_engine *e = NULL;
    int rc = open_engine(o, &e);
    if (rc) return rc;
    void *buf = NULL;
    size_t len = 0;
    uint32_t type = 0;
    rc = run_query(e, "Global", &buf, &len, &type);
    pl_free(buf);
    if (rc) goto out;
    pl_provider_status *list = NULL;
    size_t n = 0;
    if (pl_engine_provider_status(e, &list, &n) != PL_OK) {
        fputs("perfquery: cannot read the provider status\n", stderr);
        rc = EXIT_ENGINE;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const pl_provider_status *p = &list[i];
        pq_plain_string(stdout, p->name);
        printf(": loaded %s, opened %s, disabled %s, collects %llu, errors %llu, last error: ",
               p->loaded ? "yes" : "no", p->opened ? "yes" : "no", p->disabled ? "yes" : "no",
               (unsigned long long)p->collects, (unsigned long long)p->errors);
        pq_plain_string(stdout, p->last_error[0] ? p->last_error : "-");
        if (p->note[0]) {
            fputs(", note: ", stdout);
            pq_plain_string(stdout, p->note);
        }
        fputc('\n', stdout);
    }
    pl_free(list);
out:
    engine_done(e);
    return rc;
}

/* --------------------------------------------------------------- main */

static int run(int argc, char **argv);

/* Output that cannot be written (a full disk, a closed stdout) is exit 3,
 * like a file that cannot be written. */
int main(int argc, char **argv)
{
    tool_guard_stdio();
    int ex = run(argc, argv);
    if (tool_stdout_close("perfquery") != 0 && ex == 0) ex = 3;
    return ex;
}

static int run(int argc, char **argv)
{
    opts o;
    memset(&o, 0, sizeof o);
    const char *fixed = getenv("PERFLIB_FIXED_TIME");
    if (fixed && *fixed) {
        if (parse_u64(fixed, &o.fixed_time) != 0 || o.fixed_time > (uint64_t)INT64_MAX) {
            fprintf(stderr, "perfquery: PERFLIB_FIXED_TIME must be a FILETIME (decimal 100 ns ticks), not \"%s\"\n",
                    fixed);
            return EXIT_USAGE;
        }
        o.have_fixed_time = 1;
    }
    enum { M_DUMP, M_SUMMARY, M_TITLES, M_HELPS, M_GET, M_RAW, M_READ, M_PROVIDERS } mode = M_DUMP;
    int mode_set = 0;
    const char *args[3] = {NULL, NULL, NULL};
    const char *lang = NULL;
    char query[4096] = "";
    size_t ql = 0;
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int need = 0, newmode = -1;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 || strcmp(a, "-?") == 0 || strcmp(a, "/?") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("perfquery (perflib) %s\n", pl_version());
            return fflush(stdout) == 0 && !ferror(stdout) ? 0 : EXIT_USAGE;
        } else if (strcmp(a, "--json") == 0) {
            o.json = 1;
            continue;
        } else if (strcmp(a, "--registry") == 0 || strcmp(a, "--system-name") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "perfquery: %s needs a value\n", a);
                return EXIT_USAGE;
            }
            if (a[2] == 'r')
                o.registry = argv[++i];
            else
                o.system_name = argv[++i];
            continue;
        } else if (strcmp(a, "--summary") == 0) {
            newmode = M_SUMMARY;
        } else if (strcmp(a, "--providers") == 0) {
            newmode = M_PROVIDERS;
        } else if (strcmp(a, "--titles") == 0 || strcmp(a, "--help-texts") == 0) {
            newmode = a[2] == 't' ? M_TITLES : M_HELPS;
            if (i + 1 < argc && argv[i + 1][0] != '-') lang = argv[++i];
        } else if (strcmp(a, "--get") == 0) {
            newmode = M_GET;
            need = 3;
        } else if (strcmp(a, "--raw") == 0) {
            newmode = M_RAW;
            need = 2;
        } else if (strcmp(a, "--read") == 0) {
            newmode = M_READ;
            need = 1;
        } else if (a[0] == '-' && a[1]) {
            /* no query word starts with '-' */
            fprintf(stderr, "perfquery: unknown option %s (see --help)\n", a);
            return EXIT_USAGE;
        } else {
            size_t al = strlen(a);
            if (ql + al + 2 > sizeof query) {
                fputs("perfquery: the query is too long\n", stderr);
                return EXIT_USAGE;
            }
            if (ql) query[ql++] = ' ';
            memcpy(query + ql, a, al + 1);
            ql += al;
            npos++;
            continue;
        }
        if (mode_set) {
            fputs("perfquery: give only one of --summary, --titles, --help-texts, --get, --raw, --read, "
                  "--providers\n",
                  stderr);
            return EXIT_USAGE;
        }
        mode_set = 1;
        mode = newmode;
        if (i + need >= argc) {
            fprintf(stderr, "perfquery: %s needs %d argument%s (see --help)\n", a, need, need > 1 ? "s" : "");
            return EXIT_USAGE;
        }
        for (int k = 0; k < need; k++) args[k] = argv[++i];
    }
    if (npos && mode != M_DUMP) {
        fprintf(stderr, "perfquery: unexpected argument \"%s\" (see --help)\n", query);
        return EXIT_USAGE;
    }
    switch (mode) {
    case M_DUMP: return cmd_dump(&o, npos ? query : "Global");
    case M_SUMMARY: return cmd_summary(&o);
    case M_TITLES: return cmd_titles(&o, "Counter", lang);
    case M_HELPS: return cmd_titles(&o, "Explain", lang);
    case M_GET: return cmd_get(&o, args[0], args[1], args[2]);
    case M_RAW: return cmd_raw(&o, args[0], args[1]);
    case M_READ: return cmd_read(&o, args[0]);
    case M_PROVIDERS: return cmd_providers(&o);
    }
    return EXIT_USAGE;
}
