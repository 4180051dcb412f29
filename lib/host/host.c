/* perflib: the provider host.
 *
 * Each provider named in the registry store is loaded on first need with
 * dlopen(RTLD_NOW|RTLD_LOCAL), its Open/Collect/Close resolved by the names
 * the store gives. Open runs once before the first Collect; an Open error is
 * logged and Open is tried again on the next query. Collect runs with a
 * buffer that grows on ERROR_MORE_DATA, a bounded number of times. Every
 * result is checked against the contract (pointer advanced by exactly
 * *bytes, a multiple of 8, the right object count, every object valid, title
 * indices inside the provider's range or the base set, nothing written past
 * the buffer) before it joins the answer. A provider that breaks the
 * contract is disabled in the store with the reason and time and logged; an
 * error return from Collect is logged and the provider kept. A provider is
 * never called concurrently with itself. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "host.h"
#include "perflib/block.h"
#include "perflib/indices.h"
#include "pl_internal.h"

#define DEFAULT_MORE_DATA_ROUNDS 16u
#define DEFAULT_MAX_PROVIDER_BYTES ((size_t)256 << 20)
#define FIRST_BUFFER ((size_t)64 << 10)
#define GUARD_BYTES 64u
#define GUARD_BYTE 0xA5

typedef struct prov {
    pl_provider_info info;
    char *path;                 /* resolved library path */
    void *dl;
    PM_OPEN_PROC open;
    PM_COLLECT_PROC collect;
    PM_CLOSE_PROC close;
    int loaded, opened, disabled;
    pthread_mutex_t mu;         /* one call into the provider at a time */
    uint8_t *buf;               /* collect buffer, bufcap + GUARD_BYTES */
    size_t bufcap;
    int has_objlist;
    size_t nobjlist;
    uint32_t objlist[PL_QUERY_MAX_ITEMS];
    uint64_t collects, errors;
    char last_error[256];
} prov;

struct pl__host {
    pl_store *st;
    pthread_mutex_t store_mu;   /* guards every use of st */
    pl__host_config cfg;
    char *provider_dir;
    uint32_t base_index;
    prov *p;
    size_t n;
};

/* ------------------------------------------------------------ buffers */

int pl__buf_reserve(pl__buf *b, size_t extra)
{
    if (extra > SIZE_MAX - b->len) return PL_E_NOMEM;
    size_t need = b->len + extra;
    if (need <= b->cap) return PL_OK;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) return PL_E_NOMEM;
        cap *= 2;
    }
    uint8_t *np = realloc(b->p, cap);
    if (!np) return PL_E_NOMEM;
    b->p = np;
    b->cap = cap;
    return PL_OK;
}

int pl__buf_append(pl__buf *b, const void *data, size_t n)
{
    int rc = pl__buf_reserve(b, n);
    if (rc != PL_OK) return rc;
    if (n) memcpy(b->p + b->len, data, n);
    b->len += n;
    return PL_OK;
}

void pl__buf_free(pl__buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* ------------------------------------------------------------- logging */

static void note(pl__host *h, prov *p, int prio, const char *fmt, ...) PL__PRINTF(4, 5);
static void note(pl__host *h, prov *p, int prio, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* Log a repeated problem once, not on every query. */
    int repeat = strcmp(msg, p->last_error) == 0;
    memcpy(p->last_error, msg, sizeof p->last_error);
    if (h->cfg.use_syslog && !repeat)
        syslog(LOG_USER | prio, "perflib: provider %s: %s", p->info.name ? p->info.name : "?", msg);
}

/* ------------------------------------------------------------- loading */

static void parse_object_list(prov *p)
{
    p->has_objlist = 0;
    p->nobjlist = 0;
    const char *s = p->info.object_list;
    if (!s) return;
    while (*s) {
        while (*s == ' ' || *s == '\t' || *s == ',') s++;
        if (!*s) break;
        uint64_t v = 0;
        int digits = 0;
        while (*s >= '0' && *s <= '9' && digits < 11) {
            v = v * 10 + (uint64_t)(*s - '0');
            s++;
            digits++;
        }
        if (!digits) { /* junk in the list: skip the word */
            while (*s && *s != ' ' && *s != '\t' && *s != ',') s++;
            continue;
        }
        while (*s >= '0' && *s <= '9') s++;
        if (v > 0 && v <= 0xFFFFFFFFu && p->nobjlist < PL_QUERY_MAX_ITEMS) p->objlist[p->nobjlist++] = (uint32_t)v;
    }
    p->has_objlist = p->nobjlist > 0;
}

int pl__host_new(pl_store *st, const pl__host_config *cfg, pl__host **out, pl_error *err)
{
    pl__host *h = calloc(1, sizeof *h);
    if (!h) return pl__fail(err, PL_E_NOMEM, "out of memory");
    h->st = st;
    pthread_mutex_init(&h->store_mu, NULL);
    if (cfg) h->cfg = *cfg;
    if (!h->cfg.max_more_data_rounds) h->cfg.max_more_data_rounds = DEFAULT_MORE_DATA_ROUNDS;
    if (!h->cfg.max_provider_bytes) h->cfg.max_provider_bytes = DEFAULT_MAX_PROVIDER_BYTES;
    h->provider_dir = pl__strdup(cfg && cfg->provider_dir ? cfg->provider_dir : ".");
    h->cfg.provider_dir = h->provider_dir;

    pl_perflib_info pi;
    int rc = pl_store_perflib(st, &pi, err);
    if (rc != PL_OK) goto fail;
    h->base_index = pi.base_index;

    pl_provider_info *list = NULL;
    size_t n = 0;
    rc = pl_store_providers(st, &list, &n, err);
    if (rc != PL_OK) goto fail;
    h->p = calloc(n ? n : 1, sizeof *h->p);
    if (!h->p || !h->provider_dir) {
        pl_provider_list_free(list, n);
        rc = pl__fail(err, PL_E_NOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        prov *p = &h->p[i];
        p->info = list[i];             /* take ownership of the strings */
        pthread_mutex_init(&p->mu, NULL);
        p->disabled = p->info.disabled;
        parse_object_list(p);
        if (p->info.library && p->info.library[0]) {
            if (p->info.library[0] == '/') {
                p->path = pl__strdup(p->info.library);
            } else {
                size_t len = strlen(h->provider_dir) + strlen(p->info.library) + 2;
                p->path = malloc(len);
                if (p->path) snprintf(p->path, len, "%s/%s", h->provider_dir, p->info.library);
            }
        }
        h->n++;
    }
    free(list); /* the records' strings now belong to h->p */
    *out = h;
    return PL_OK;
fail:
    pthread_mutex_destroy(&h->store_mu);
    free(h->provider_dir);
    free(h);
    return rc;
}

void pl__host_free(pl__host *h)
{
    if (!h) return;
    for (size_t i = 0; i < h->n; i++) {
        prov *p = &h->p[i];
        if (p->opened && p->close) p->close();
        if (p->dl) dlclose(p->dl);
        free(p->buf);
        free(p->path);
        pl_provider_info_clear(&p->info);
        pthread_mutex_destroy(&p->mu);
    }
    free(h->p);
    free(h->provider_dir);
    pthread_mutex_destroy(&h->store_mu);
    free(h);
}

static int load(pl__host *h, prov *p)
{
    if (p->loaded) return 1;
    if (!p->path) {
        note(h, p, LOG_WARNING, "no Library in its registry entry; skipped");
        return 0;
    }
    if (!p->info.collect || !p->info.collect[0]) {
        note(h, p, LOG_WARNING, "no Collect entry point in its registry entry; skipped");
        return 0;
    }
    dlerror();
    void *dl = dlopen(p->path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        const char *e = dlerror();
        note(h, p, LOG_ERR, "cannot load %s: %s", p->path, e ? e : "unknown error");
        p->errors++;
        return 0;
    }
    const char *names[3] = {p->info.open, p->info.collect, p->info.close};
    void *fn[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        if (!names[i] || !names[i][0]) continue; /* Open and Close are optional */
        dlerror();
        fn[i] = dlsym(dl, names[i]);
        const char *e = dlerror();
        if (e || !fn[i]) {
            note(h, p, LOG_ERR, "%s does not export %s: %s", p->path, names[i], e ? e : "NULL symbol");
            p->errors++;
            dlclose(dl);
            return 0;
        }
    }
    p->dl = dl;
    /* POSIX guarantees a data pointer from dlsym converts to a function pointer. */
    memcpy(&p->open, &fn[0], sizeof fn[0]);
    memcpy(&p->collect, &fn[1], sizeof fn[1]);
    memcpy(&p->close, &fn[2], sizeof fn[2]);
    p->loaded = 1;
    return 1;
}

/* Disable a provider for good: in the store (for the administrator to see
 * and clear) and here. Called with p->mu held. */
static void disable(pl__host *h, prov *p, const char *fmt, ...) PL__PRINTF(3, 4);
static void disable(pl__host *h, prov *p, const char *fmt, ...)
{
    char reason[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    p->disabled = 1;
    p->errors++;
    note(h, p, LOG_ERR, "disabled: %s", reason);
    pthread_mutex_lock(&h->store_mu);
    pl_error e;
    (void)pl_store_disable_provider(h->st, p->info.name, reason, &e);
    pthread_mutex_unlock(&h->store_mu);
    if (p->opened && p->close) p->close();
    p->opened = 0;
}

static int wants(const prov *p, const pl_query_items *q)
{
    if (q->kind == PL_QUERY_KIND_GLOBAL || q->kind == PL_QUERY_KIND_COSTLY) return 1;
    if (q->kind != PL_QUERY_KIND_ITEMS) return 0;
    if (!p->has_objlist) return 1; /* without an Object List, every numeric query */
    for (size_t i = 0; i < q->n; i++)
        for (size_t j = 0; j < p->nobjlist; j++)
            if (q->items[i] == p->objlist[j]) return 1;
    return 0;
}

static int name_ok(const pl__host *h, const prov *p, uint32_t idx)
{
    if (idx >= 2 && idx <= h->base_index) return 1;
    /* The "Unavailable Counters" marker is perflib's convention for every
     * provider (docs/block-format.md), like a base index. */
    if (idx == PL_CTR_UNAVAILABLE_COUNTERS) return 1;
    return p->info.first_counter && idx >= p->info.first_counter && idx <= p->info.last_counter;
}

static int help_ok(const pl__host *h, const prov *p, uint32_t idx)
{
    if (idx == 0 || idx <= h->base_index + 1) return 1;
    if (idx == PL_HELP(PL_CTR_UNAVAILABLE_COUNTERS)) return 1;
    return p->info.first_help && idx >= p->info.first_help && idx <= p->info.last_help;
}

/* Check the title indices of every object and counter. Returns 1 when all
 * are inside the base set or the provider's ranges. */
static int indices_ok(pl__host *h, prov *p, const pl_block *blk, char *why, size_t whylen)
{
    for (uint32_t i = 0; i < blk->num_objects; i++) {
        pl_object o;
        if (pl_block_object(blk, i, &o) != PL_OK) return 0;
        if (!name_ok(h, p, o.hdr.ObjectNameTitleIndex) || !help_ok(h, p, o.hdr.ObjectHelpTitleIndex)) {
            snprintf(why, whylen, "object %u uses title index %u/%u outside its range %u-%u", i,
                     o.hdr.ObjectNameTitleIndex, o.hdr.ObjectHelpTitleIndex, p->info.first_counter,
                     p->info.last_help);
            return 0;
        }
        for (uint32_t c = 0; c < o.hdr.NumCounters; c++) {
            pl_counter k;
            if (pl_object_counter(&o, c, &k) != PL_OK) break;
            if (!name_ok(h, p, k.def.CounterNameTitleIndex) || !help_ok(h, p, k.def.CounterHelpTitleIndex)) {
                snprintf(why, whylen, "object %u counter %u uses title index %u/%u outside its range %u-%u", i, c,
                         k.def.CounterNameTitleIndex, k.def.CounterHelpTitleIndex, p->info.first_counter,
                         p->info.last_help);
                return 0;
            }
        }
    }
    return 1;
}

static WCHAR *to_wide(const char *s)
{
    uint16_t *w = NULL;
    if (pl__utf8_to_utf16_dup(s, &w, NULL) != PL_OK) return NULL;
    return w;
}

static void query_text(const pl_query_items *q, char *out, size_t cap)
{
    if (q->kind == PL_QUERY_KIND_COSTLY) {
        snprintf(out, cap, "Costly");
        return;
    }
    if (q->kind != PL_QUERY_KIND_ITEMS) {
        snprintf(out, cap, "Global");
        return;
    }
    size_t w = 0;
    out[0] = '\0';
    for (size_t i = 0; i < q->n && w + 12 < cap; i++)
        w += (size_t)snprintf(out + w, cap - w, i ? " %u" : "%u", q->items[i]);
}

/* One provider, one query. Called with p->mu held. */
static int collect_one(pl__host *h, prov *p, const WCHAR *wq, pl__buf *out, uint32_t *nobjects)
{
    if (!load(h, p)) return PL_OK;
    if (!p->opened) {
        DWORD rc = 0;
        if (p->open) {
            WCHAR *link = p->info.linkage_export ? to_wide(p->info.linkage_export) : NULL;
            rc = p->open(link);
            free(link);
        }
        if (rc != 0) {
            p->errors++;
            note(h, p, LOG_WARNING, "Open returned %u; it will be tried again on the next query", rc);
            return PL_OK;
        }
        p->opened = 1;
    }
    size_t cap = p->bufcap ? p->bufcap : FIRST_BUFFER;
    for (uint32_t round = 0;; round++) {
        if (!p->buf || p->bufcap < cap) {
            uint8_t *nb = realloc(p->buf, cap + GUARD_BYTES);
            if (!nb) return PL_E_NOMEM;
            p->buf = nb;
            p->bufcap = cap;
        }
        cap = p->bufcap;
        memset(p->buf + cap, GUARD_BYTE, GUARD_BYTES);
        void *data = p->buf;
        DWORD bytes = (DWORD)(cap > 0xFFFFFFF8u ? 0xFFFFFFF8u : cap);
        DWORD nobj = 0;
        DWORD rc = p->collect((LPWSTR)wq, &data, &bytes, &nobj);
        for (size_t g = 0; g < GUARD_BYTES; g++) {
            if (p->buf[cap + g] != GUARD_BYTE) {
                disable(h, p, "Collect wrote past the end of its %zu-byte buffer", cap);
                return PL_OK;
            }
        }
        if (rc == ERROR_MORE_DATA) {
            if (bytes != 0 || nobj != 0 || data != p->buf) {
                disable(h, p, "Collect returned ERROR_MORE_DATA but set bytes=%u objects=%u or moved the pointer",
                        bytes, nobj);
                return PL_OK;
            }
            if (round + 1 >= h->cfg.max_more_data_rounds || cap * 2 > h->cfg.max_provider_bytes) {
                disable(h, p, "Collect kept returning ERROR_MORE_DATA (%u rounds, up to %zu bytes)", round + 1, cap);
                return PL_OK;
            }
            cap *= 2;
            continue;
        }
        if (rc != ERROR_SUCCESS) {
            p->errors++;
            note(h, p, LOG_WARNING, "Collect returned %u; the provider stays loaded", rc);
            return PL_OK;
        }
        if ((size_t)bytes > cap) {
            disable(h, p, "Collect reported %u bytes in a %zu-byte buffer", bytes, cap);
            return PL_OK;
        }
        if ((uint8_t *)data != p->buf + bytes) {
            disable(h, p, "the pointer returned did not match the buffer length (%u bytes, pointer moved %td)",
                    bytes, (uint8_t *)data - p->buf);
            return PL_OK;
        }
        if (bytes % 8 != 0) {
            disable(h, p, "Collect returned %u bytes, not a multiple of 8", bytes);
            return PL_OK;
        }
        if (bytes == 0) {
            if (nobj != 0) {
                disable(h, p, "Collect returned 0 bytes but %u objects", nobj);
                return PL_OK;
            }
            p->collects++;
            return PL_OK;
        }
        pl_block blk;
        pl_error verr;
        if (pl_block_open(&blk, p->buf, bytes, PL_BLOCK_BARE, nobj, &verr) != PL_OK) {
            disable(h, p, "invalid data (%u objects): %s", nobj, verr.msg);
            return PL_OK;
        }
        char why[200];
        if (!indices_ok(h, p, &blk, why, sizeof why)) {
            disable(h, p, "%s", why);
            return PL_OK;
        }
        int arc = pl__buf_append(out, p->buf, bytes);
        if (arc != PL_OK) return arc;
        *nobjects += nobj;
        p->collects++;
        return PL_OK;
    }
}

int pl__host_collect(pl__host *h, const pl_query_items *q, pl__buf *out, uint32_t *nobjects)
{
    if (q->kind != PL_QUERY_KIND_GLOBAL && q->kind != PL_QUERY_KIND_COSTLY && q->kind != PL_QUERY_KIND_ITEMS)
        return PL_OK; /* unknown words: no provider is asked */
    char text[PL_QUERY_MAX_ITEMS * 11 + 16];
    query_text(q, text, sizeof text);
    WCHAR *wq = to_wide(text);
    if (!wq) return PL_E_NOMEM;
    int rc = PL_OK;
    for (size_t i = 0; i < h->n && rc == PL_OK; i++) {
        prov *p = &h->p[i];
        pthread_mutex_lock(&p->mu);
        if (!p->disabled && wants(p, q)) rc = collect_one(h, p, wq, out, nobjects);
        pthread_mutex_unlock(&p->mu);
    }
    free(wq);
    return rc;
}

int pl__host_status(pl__host *h, pl_provider_status **list, size_t *n)
{
    pl_provider_status *s = calloc(h->n ? h->n : 1, sizeof *s);
    if (!s) return PL_E_NOMEM;
    for (size_t i = 0; i < h->n; i++) {
        prov *p = &h->p[i];
        pthread_mutex_lock(&p->mu);
        snprintf(s[i].name, sizeof s[i].name, "%s", p->info.name ? p->info.name : "");
        s[i].loaded = p->loaded;
        s[i].opened = p->opened;
        s[i].disabled = p->disabled;
        s[i].collects = p->collects;
        s[i].errors = p->errors;
        memcpy(s[i].last_error, p->last_error, sizeof s[i].last_error);
        pthread_mutex_unlock(&p->mu);
    }
    *list = s;
    *n = h->n;
    return PL_OK;
}
