/* pview: where snapshots come from (the local engine, a remote perfd through
 * the engine's Foreign query, or saved blocks replayed in order). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "perflib/log.h"
#include "perflib/query.h"
#include "pview.h"

int pv_source_local(pv_source *s, pl_error *err)
{
    memset(s, 0, sizeof *s);
    pl_engine *e = NULL;
    int rc = pl_engine_open(NULL, &e, err);
    if (rc != PL_OK) return rc;
    if (pl_pdh_engine_source(e, &s->src, err) != PL_PDH_CSTATUS_VALID_DATA) {
        pl_engine_close(e);
        return PL_E_UNSUPPORTED;
    }
    snprintf(s->label, sizeof s->label, "local");
    s->local = 1;
    /* the engine source does not own the engine: remember it for close */
    s->engine = e;
    return PL_OK;
}

/* ---------------------------------------------------------------- cheapest */

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* pview's CPU for one "230" snapshot from s (the second of two: the first
 * loads providers or connects), or -1 when it fails or holds no Process. */
static double snapshot_cpu(pv_source *s)
{
    double c = -1;
    for (int i = 0; i < 2; i++) {
        void *blk = NULL;
        size_t len = 0;
        pl_error err = {0};
        double t0 = cpu_s();
        int rc = s->src.collect(s->src.ctx, "230", &blk, &len, &err);
        double t1 = cpu_s();
        pl_block b;
        pl_object o;
        int ok = rc == PL_OK && pl_block_open(&b, blk, len, 0, 0, NULL) == PL_OK &&
                 pl_block_find_object(&b, 230, &o) == PL_OK;
        free(blk);
        if (!ok) return -1;
        c = t1 - t0;
    }
    return c;
}

/* Does the local engine's PerfProc read its own BPF source (its note,
 * docs/providers/perfproc.md)? */
static int perfproc_uses_bpf(pl_engine *e)
{
    pl_provider_status *st = NULL;
    size_t n = 0;
    int yes = 0;
    if (pl_engine_provider_status(e, &st, &n) != PL_OK) return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(st[i].name, "PerfProc") == 0 &&
            strncmp(st[i].note, "Process and Thread from the BPF task iterator", 45) == 0)
            yes = 1;
    pl_free(st);
    return yes;
}

int pv_source_local_cheapest(pv_source *s, const char *perfd_addr, char *why, size_t cap, pl_error *err)
{
    int rc = pv_source_local(s, err);
    if (rc != PL_OK) return rc;
    if (!perfd_addr) {
        snprintf(why, cap, "own collection (--no-perfd)");
        return PL_OK;
    }
    /* one snapshot opens PerfProc: its note says whether it reads /proc */
    void *blk = NULL;
    size_t len = 0;
    pl_error e2 = {0};
    if (s->src.collect(s->src.ctx, "230", &blk, &len, &e2) == PL_OK && perfproc_uses_bpf(s->engine)) {
        free(blk);
        snprintf(why, cap, "own collection: PerfProc's BPF source");
        return PL_OK;
    }
    free(blk);
    pv_source r;
    pl_error rerr = {0};
    if (pv_source_remote(&r, perfd_addr, &rerr) != PL_OK) {
        snprintf(why, cap, "own collection (/proc)");
        return PL_OK;
    }
    double theirs = snapshot_cpu(&r);
    double own = theirs < 0 ? -1 : snapshot_cpu(s);
    if (theirs < 0 || (own >= 0 && theirs >= own)) {
        if (theirs < 0) snprintf(why, cap, "own collection (/proc): no perfd answers at %.100s", perfd_addr);
        else snprintf(why, cap, "own collection (/proc, %.1f ms) is cheaper than perfd at %.100s (%.1f ms)",
                      own * 1e3, perfd_addr, theirs * 1e3);
        pv_source_close(&r);
        return PL_OK;
    }
    snprintf(why, cap, "the local perfd at %.100s: %.1f ms of pview's CPU a snapshot, its own /proc collection %.1f ms",
             perfd_addr, theirs * 1e3, own * 1e3);
    pv_source_close(s);
    *s = r;
    s->local = 1; /* the same machine: actions stay allowed */
    snprintf(s->label, sizeof s->label, "local (perfd %.100s)", perfd_addr);
    return PL_OK;
}

/* ---------------------------------------------------------------- remote */

typedef struct remote_ctx {
    pl_engine *e;
    char host[256];
} remote_ctx;

static int remote_collect(void *ctx, const char *query, void **block, size_t *len, pl_error *err)
{
    remote_ctx *c = ctx;
    char q[512];
    int n = snprintf(q, sizeof q, "Foreign %s %s", c->host, query);
    if (n < 0 || (size_t)n >= sizeof q) {
        pv_err(err, PL_E_INVAL, "query for %s too long", c->host);
        return PL_E_INVAL;
    }
    uint32_t type = 0;
    int rc = pl_engine_query_alloc(c->e, q, block, len, &type, err);
    if (rc != PL_OK) return rc;
    if (type != PL_REG_BINARY) {
        pl_free(*block);
        *block = NULL;
        pv_err(err, PL_E_BAD_BLOCK, "%s did not return performance data", c->host);
        return PL_E_BAD_BLOCK;
    }
    return PL_OK;
}

static const pl_titles *remote_titles(void *ctx, int english)
{
    (void)english;
    return pl_engine_titles(((remote_ctx *)ctx)->e, NULL);
}

static void remote_close(void *ctx)
{
    remote_ctx *c = ctx;
    if (!c) return;
    pl_engine_close(c->e);
    free(c);
}

int pv_source_remote(pv_source *s, const char *host, pl_error *err)
{
    memset(s, 0, sizeof *s);
    while (*host == '\\') host++;
    if (!*host || strlen(host) >= 256 || strpbrk(host, " \t\r\n\\")) {
        pv_err(err, PL_E_INVAL, "\"%s\" is not a computer name", host);
        return PL_E_INVAL;
    }
    remote_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        pv_err(err, PL_E_NOMEM, "out of memory");
        return PL_E_NOMEM;
    }
    int rc = pl_engine_open(NULL, &c->e, err);
    if (rc != PL_OK) {
        free(c);
        return rc;
    }
    snprintf(c->host, sizeof c->host, "%s", host);
    s->src.collect = remote_collect;
    s->src.titles = remote_titles;
    s->src.close = remote_close;
    s->src.ctx = c;
    snprintf(s->label, sizeof s->label, "\\\\%s", host);
    return PL_OK;
}

/* ---------------------------------------------------------------- replay */

typedef struct blob {
    void *p;
    size_t len;
    int costly;               /* holds Image or Process Address Space */
} blob;

typedef struct replay_ctx {
    blob *b;
    int n, next;
} replay_ctx;

static int slurp(const char *path, blob *out, pl_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        pv_err(err, PL_E_IO, "%s: cannot open (errno %d)", path, errno);
        return PL_E_IO;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 || st.st_size > (1 << 30)) {
        fclose(f);
        pv_err(err, PL_E_IO, "%s: not a regular file of 1 byte to 1 GiB", path);
        return PL_E_IO;
    }
    out->len = (size_t)st.st_size;
    out->p = malloc(out->len);
    if (!out->p || fread(out->p, 1, out->len, f) != out->len) {
        fclose(f);
        free(out->p);
        out->p = NULL;
        pv_err(err, PL_E_IO, "%s: short read", path);
        return PL_E_IO;
    }
    fclose(f);
    pl_block b;
    pl_object o;
    int rc = pl_block_open(&b, out->p, out->len, 0, 0, err);
    if (rc != PL_OK) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
        pv_err(err, rc, "%s: %s", path, msg);
        free(out->p);
        out->p = NULL;
        return rc;
    }
    out->costly = pl_block_find_object(&b, 786, &o) == PL_OK || pl_block_find_object(&b, 740, &o) == PL_OK;
    return PL_OK;
}

static int replay_collect(void *ctx, const char *query, void **block, size_t *len, pl_error *err)
{
    replay_ctx *c = ctx;
    int pick = -1;
    if (query && strcmp(query, PV_MEMORY_QUERY) == 0) {
        for (int i = 0; i < c->n && pick < 0; i++)
            if (c->b[i].costly) pick = i;
    } else {
        while (c->next < c->n && pick < 0) {
            int i = c->next++;
            if (!c->b[i].costly) pick = i;
        }
        if (pick < 0) {
            pv_err(err, PL_E_NO_DATA, "end of the recording");
            return PL_E_NO_DATA;
        }
    }
    if (pick < 0) {
        pv_err(err, PL_E_NOT_FOUND, "the recording has no Costly snapshot (Image, Process Address Space)");
        return PL_E_NOT_FOUND;
    }
    *block = malloc(c->b[pick].len);
    if (!*block) {
        pv_err(err, PL_E_NOMEM, "out of memory");
        return PL_E_NOMEM;
    }
    memcpy(*block, c->b[pick].p, c->b[pick].len);
    *len = c->b[pick].len;
    return PL_OK;
}

static const pl_titles *replay_titles(void *ctx, int english)
{
    (void)ctx;
    (void)english;
    return NULL;
}

static void replay_close(void *ctx)
{
    replay_ctx *c = ctx;
    if (!c) return;
    for (int i = 0; i < c->n; i++) free(c->b[i].p);
    free(c->b);
    free(c);
}

int pv_source_blocks(pv_source *s, char **files, int n, pl_error *err)
{
    memset(s, 0, sizeof *s);
    replay_ctx *c = calloc(1, sizeof *c);
    if (!c || !(c->b = calloc((size_t)n, sizeof *c->b))) {
        free(c);
        pv_err(err, PL_E_NOMEM, "out of memory");
        return PL_E_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        int rc = slurp(files[i], &c->b[i], err);
        if (rc != PL_OK) {
            c->n = i;
            replay_close(c);
            return rc;
        }
    }
    c->n = n;
    s->src.collect = replay_collect;
    s->src.titles = replay_titles;
    s->src.close = replay_close;
    s->src.ctx = c;
    const char *base = strrchr(files[0], '/');
    base = base ? base + 1 : files[0];
    if (n > 1) snprintf(s->label, sizeof s->label, "replay %.100s +%d", base, n - 1);
    else snprintf(s->label, sizeof s->label, "replay %.100s", base);
    s->replay = 1;
    return PL_OK;
}

/* ------------------------------------------------------------ counter log */

/* A binary counter log of whole blocks (typeperf -f BIN, docs/counter-log.md)
 * replayed record by record: each data query takes the next record; gaps
 * and damaged records are skipped with their reason kept for the footer. */
typedef struct logsrc_ctx {
    pl_log *log;
    pl_pdh_source inner;
    pl_log_source *ls;
    size_t next, count;
} logsrc_ctx;

static int log_collect(void *ctx, const char *query, void **block, size_t *len, pl_error *err)
{
    logsrc_ctx *c = ctx;
    if (query && strcmp(query, PV_MEMORY_QUERY) == 0) {
        pv_err(err, PL_E_NOT_FOUND, "a counter log holds what was recorded: no Costly snapshot");
        return PL_E_NOT_FOUND;
    }
    while (c->next < c->count) {
        size_t i = c->next++;
        if (pl_log_source_set(c->ls, i, err) != PL_OK) continue; /* a gap or a damaged record */
        return c->inner.collect(c->inner.ctx, query, block, len, err);
    }
    pv_err(err, PL_E_NO_DATA, "end of the recording");
    return PL_E_NO_DATA;
}

static const pl_titles *log_titles(void *ctx, int english)
{
    logsrc_ctx *c = ctx;
    return c->inner.titles ? c->inner.titles(c->inner.ctx, english) : NULL;
}

static void log_close(void *ctx)
{
    logsrc_ctx *c = ctx;
    if (!c) return;
    pl_pdh_source_close(&c->inner);
    pl_log_close(c->log);
    free(c);
}

int pv_source_log(pv_source *s, const char *path, pl_error *err)
{
    memset(s, 0, sizeof *s);
    logsrc_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        pv_err(err, PL_E_NOMEM, "out of memory");
        return PL_E_NOMEM;
    }
    int rc = pl_log_open(path, &c->log, err);
    if (rc == PL_OK) rc = pl_log_source_open(c->log, &c->inner, &c->ls, err);
    if (rc != PL_OK) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
        pv_err(err, rc, "%.200s: %.300s", path, msg);
        pl_log_close(c->log);
        free(c);
        return rc;
    }
    c->count = pl_log_count(c->log);
    s->src.collect = log_collect;
    s->src.titles = log_titles;
    s->src.close = log_close;
    s->src.ctx = c;
    const char *base = strrchr(path, '/');
    snprintf(s->label, sizeof s->label, "log %.140s", base ? base + 1 : path);
    s->replay = 1;
    return PL_OK;
}

void pv_source_close(pv_source *s)
{
    if (!s) return;
    pl_pdh_source_close(&s->src);
    if (s->engine) pl_engine_close(s->engine);
    memset(s, 0, sizeof *s);
}
