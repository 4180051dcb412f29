/* perflib: the query engine (include/perflib/query.h, docs/query-engine.md).
 *
 * A data query is classified, the providers are asked through the host, and
 * the objects they return are put behind a PERF_DATA_BLOCK header. An index
 * query also brings the parents of what it asked for: when a returned object
 * has instances whose ParentObjectTitleIndex names an object that is not in
 * the answer, that object is asked for too (Thread brings Process). Title
 * queries ("Counter 009", "Explain 009", "Help") return the title database as
 * a UTF-16LE MULTI_SZ. */
#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host.h"
#include "perflib/block.h"
#include "perflib/query.h"
#include "perflib/remote.h"
#include "platform.h"
#include "pl_internal.h"

#ifndef PL_PROVIDER_DIR
#define PL_PROVIDER_DIR "."
#endif
#ifndef PL_INSTALLED_PROVIDER_DIR
#define PL_INSTALLED_PROVIDER_DIR "/usr/local/lib/perflib/providers"
#endif

#define PARENT_ROUNDS 2
#define NETBIOS_MAX 15             /* MAX_COMPUTERNAME_LENGTH */
#define SYSTEM_NAME_MAX 256        /* bytes of an explicit system name, with the NUL */

/* A kept answer that did not fit its caller's buffer (pl_engine_query). */
typedef struct retry_slot {
    char *query;               /* NULL: the slot is free */
    void *data;
    size_t len;
    uint32_t type;
    pthread_t thread;
    int64_t born_ms;           /* CLOCK_MONOTONIC */
} retry_slot;

struct pl_engine {
    pl_store *st;
    pl__host *host;
    pthread_mutex_t mu;        /* guards titles and the retry slots */
    pl_titles *titles;         /* default language, loaded on first use, again when the store changed */
    int64_t titles_version;    /* the store's data version it was loaded at */
    int64_t titles_checked_ms; /* when the version was last read (CLOCK_MONOTONIC) */
    pl_titles **old_titles;    /* earlier tables: handed out, valid until pl_engine_close */
    size_t nold;
    char system_name[SYSTEM_NAME_MAX];
    retry_slot slots[PL_ENGINE_RETRY_SLOTS];
    atomic_uint slots_used;    /* slots holding an answer (changed under mu): 0 lets a query skip mu */
    pl_remote *remote;         /* the client for Foreign queries, made on first use (under mu) */
};

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The length of the longest prefix of s (at most cap - 1 bytes and at most
 * max_chars characters) that ends on a UTF-8 character boundary; s must be
 * valid UTF-8. */
static size_t utf8_prefix(const char *s, size_t cap, size_t max_chars)
{
    size_t i = 0, chars = 0;
    while (s[i] && chars < max_chars) {
        size_t k = 1;
        unsigned char c = (unsigned char)s[i];
        if (c >= 0xF0) k = 4;
        else if (c >= 0xE0) k = 3;
        else if (c >= 0xC0) k = 2;
        if (i + k > cap - 1) break;
        i += k;
        chars++;
    }
    return i;
}

/* The NetBIOS-style name Windows puts in the block: the host name up to the
 * first dot, upper case, at most 15 characters (a longer DNS name is cut, as
 * Windows derives the NetBIOS name). Bytes that are not valid UTF-8 or are
 * control characters become '_' so the header can always be written. */
static void default_system_name(char *out, size_t cap)
{
    char host[256];
    if (gethostname(host, sizeof host) != 0) host[0] = '\0';
    host[sizeof host - 1] = '\0';
    char *dot = strchr(host, '.');
    if (dot) *dot = '\0';
    char clean[sizeof host * 3];
    size_t w = 0;
    for (size_t i = 0; host[i];) {
        size_t n = 0;
        size_t rest = strlen(host + i), k = 1;
        unsigned char c = (unsigned char)host[i];
        if (c >= 0xF0) k = 4;
        else if (c >= 0xE0) k = 3;
        else if (c >= 0xC0) k = 2;
        if (c >= 0x80 && (k > rest || pl__utf8_to_utf16(host + i, k, NULL, 0, &n) == PL_E_ENCODING)) k = 0;
        if (k == 0 || c < 0x20 || c == 0x7F) {
            clean[w++] = '_';
            i++;
            continue;
        }
        for (size_t j = 0; j < k; j++) clean[w++] = (char)toupper((unsigned char)host[i + j]);
        i += k;
    }
    clean[w] = '\0';
    size_t n = utf8_prefix(clean, cap, NETBIOS_MAX);
    memcpy(out, clean, n);
    out[n] = '\0';
    if (!out[0]) snprintf(out, cap, "LOCALHOST");
}

static const char *provider_dir(const pl_engine_config *cfg)
{
    if (cfg && cfg->provider_dir) return cfg->provider_dir;
    const char *env = getenv("PERFLIB_PROVIDER_DIR");
    if (env && *env) return env;
    /* The build tree's providers for a build-tree library, the installed
     * ones for an installed library (even while its build tree exists). */
    struct stat sb;
    if (!pl__running_installed() && stat(PL_PROVIDER_DIR, &sb) == 0 && S_ISDIR(sb.st_mode)) return PL_PROVIDER_DIR;
    return PL_INSTALLED_PROVIDER_DIR;
}

PL_EXTERN int pl_engine_open(const pl_engine_config *cfg, pl_engine **out, pl_error *err)
{
    pl__clear(err);
    if (!out) return pl__fail(err, PL_E_INVAL, "pl_engine_open: out is NULL");
    pl_engine *e = calloc(1, sizeof *e);
    if (!e) return pl__fail(err, PL_E_NOMEM, "out of memory");
    const char *store_path = cfg ? cfg->store_path : NULL;
    int rc = pl_store_open(store_path, 0, &e->st, err);
    if (rc != PL_OK && rc != PL_E_NOMEM && rc != PL_E_SCHEMA && rc != PL_E_BUSY && rc != PL_E_UNSAFE &&
        rc != PL_E_NOT_FOUND && rc != PL_E_INVAL) {
        /* A user who may not write the store (the installed one belongs to
         * root, or a read-only mount) still reads it; a provider it
         * disables is then recorded in its own failure state. When the
         * read-only open fails too, its error is the one that says why
         * (a hot journal on a read-only file system, a damaged file). A
         * busy store is not tried twice: the open's bound is the bound; nor
         * is a store the user named in a place that does not exist. */
        pl_error ro;
        rc = pl_store_open(store_path, PL_STORE_READONLY, &e->st, &ro);
        if (err) *err = ro;
    }
    if (rc != PL_OK) {
        free(e);
        return rc;
    }
    pl__host_config hc = {0};
    hc.provider_dir = provider_dir(cfg);
    hc.use_syslog = cfg ? cfg->log_to_syslog : 1;
    rc = pl__host_new(e->st, &hc, &e->host, err);
    if (rc != PL_OK) {
        pl_store_close(e->st);
        free(e);
        return rc;
    }
    if (cfg && cfg->system_name) {
        /* Used as given (not cut to 15), but it must be UTF-8 and is cut at a
         * character boundary: a split character would make every data
         * query fail when the header is written. */
        size_t units = 0;
        if (pl__utf8_to_utf16(cfg->system_name, strlen(cfg->system_name), NULL, 0, &units) == PL_E_ENCODING) {
            pl__host_free(e->host);
            pl_store_close(e->st);
            free(e);
            return pl__fail(err, PL_E_INVAL, "pl_engine_open: system_name is not valid UTF-8");
        }
        size_t n = utf8_prefix(cfg->system_name, sizeof e->system_name, SIZE_MAX);
        memcpy(e->system_name, cfg->system_name, n);
        e->system_name[n] = '\0';
    } else {
        default_system_name(e->system_name, sizeof e->system_name);
    }
    pthread_mutex_init(&e->mu, NULL);
    *out = e;
    return PL_OK;
}

PL_EXTERN void pl_engine_trim(pl_engine *e)
{
    if (e) pl__host_trim(e->host);
}

PL_EXTERN void pl_engine_close(pl_engine *e)
{
    if (!e) return;
    pl__host_free(e->host);
    pl_remote_close(e->remote);
    pl_titles_free(e->titles);
    for (size_t i = 0; i < e->nold; i++) pl_titles_free(e->old_titles[i]);
    free(e->old_titles);
    pl_store_close(e->st);
    for (size_t i = 0; i < PL_ENGINE_RETRY_SLOTS; i++) {
        free(e->slots[i].query);
        free(e->slots[i].data);
    }
    pthread_mutex_destroy(&e->mu);
    free(e);
}

PL_EXTERN pl_store *pl_engine_store(pl_engine *e)
{
    return e ? e->st : NULL;
}

#define TITLES_CHECK_MS 200

/* Do two title tables hold the same entries? */
static int same_titles(const pl_titles *a, const pl_titles *b)
{
    if (strcmp(pl_titles_language(a), pl_titles_language(b)) != 0) return 0;
    for (int kind = PL_TITLE_NAME; kind <= PL_TITLE_HELP; kind++) {
        size_t n = pl_titles_count(a, kind);
        if (n != pl_titles_count(b, kind)) return 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t ia, ib;
            const char *ta, *tb;
            if (pl_titles_entry(a, kind, i, &ia, &ta) != PL_OK || pl_titles_entry(b, kind, i, &ib, &tb) != PL_OK ||
                ia != ib || strcmp(ta, tb) != 0)
                return 0;
        }
    }
    return 1;
}

/* The titles are loaded again when another process changed the store
 * since they were (an application registered its names after this engine
 * opened: perfd showed its objects without names, issue 26 finding 3). A
 * table handed out stays valid until pl_engine_close (query.h), so the
 * one it replaces is kept until then: one per change of the store's names
 * (a commit that changed something else keeps the table), which only its
 * writers make (an installer, lodctr, an application's first
 * registration). Checking costs one PRAGMA, at most every TITLES_CHECK_MS. */
PL_EXTERN const pl_titles *pl_engine_titles(pl_engine *e, pl_error *err)
{
    if (!e) return NULL;
    pthread_mutex_lock(&e->mu);
    /* PDH asks for the titles at every name it looks up (thousands when a
     * wildcard is added): the store is asked at most every
     * TITLES_CHECK_MS. */
    int64_t v = 0, now = mono_ms();
    int have_v = 0;
    if (!e->titles || now - e->titles_checked_ms >= TITLES_CHECK_MS) {
        have_v = pl_store_data_version(e->st, &v, NULL) == PL_OK;
        e->titles_checked_ms = now;
    }
    if (e->titles && have_v && v != e->titles_version) {
        pl_titles *nt = NULL;
        pl_titles **grown = realloc(e->old_titles, (e->nold + 1) * sizeof *grown);
        if (grown) e->old_titles = grown;
        if (grown && pl_titles_load(e->st, NULL, &nt, NULL) == PL_OK) {
            if (same_titles(nt, e->titles)) { /* another change (a provider disabled, ...): keep the table */
                pl_titles_free(nt);
            } else {
                e->old_titles[e->nold++] = e->titles;
                e->titles = nt;
            }
        }
        e->titles_version = v; /* a failed reload is not tried on every call */
    }
    if (!e->titles && pl_titles_load(e->st, NULL, &e->titles, err) == PL_OK && have_v) e->titles_version = v;
    const pl_titles *t = e->titles;
    pthread_mutex_unlock(&e->mu);
    return t;
}

PL_EXTERN int pl_engine_provider_status(pl_engine *e, pl_provider_status **list, size_t *n)
{
    if (!e || !list || !n) return PL_E_INVAL;
    return pl__host_status(e->host, list, n);
}

/* ------------------------------------------------------------- titles */

/* "counter..." / "help..." / "explain..." (case-insensitive prefix), with an
 * optional language code as the last word. Returns 1 for a title query. */
static int title_query(const char *q, int *kind, char lang[8])
{
    while (isspace((unsigned char)*q)) q++;
    static const struct { const char *w; int kind; } words[] = {
        {"counter", PL_TITLE_NAME}, {"explain", PL_TITLE_HELP}, {"help", PL_TITLE_HELP}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i].w);
        if (strncasecmp(q, words[i].w, n) != 0) continue;
        *kind = words[i].kind;
        lang[0] = '\0';
        const char *r = q + n;
        int spaced = isspace((unsigned char)*r);
        while (isspace((unsigned char)*r)) r++;
        /* A hex language id, written any way ("9", "09", "009", "0009"):
         * the canonical store id is 3 digits for a primary language
         * (<= 0x3FF) and 4 for a full LANGID ("0416"). Glued to the word
         * ("counter009") it must be 3 or 4 digits, so that "Countera" stays
         * a plain prefix match. A word that is not a hex number
         * ("cOuNtErwine") means the default language. */
        size_t k = 0;
        uint32_t v = 0;
        while (isxdigit((unsigned char)r[k]) && k < 9) {
            int c = toupper((unsigned char)r[k]);
            v = v * 16 + (uint32_t)(c <= '9' ? c - '0' : c - 'A' + 10);
            k++;
        }
        if (k >= (spaced ? 1u : 3u) && (spaced || k <= 4) && (r[k] == '\0' || isspace((unsigned char)r[k]))) {
            if (k > 8 || v > 0xFFFF) snprintf(lang, 8, "-");
            else snprintf(lang, 8, v <= 0x3FF ? "%03X" : "%04X", (unsigned)v);
        }
        return 1;
    }
    return 0;
}

static int run_title_query(pl_engine *e, int kind, const char *lang, void **out, size_t *len, pl_error *err)
{
    pl_titles *own = NULL;
    const pl_titles *t;
    if (strcmp(lang, "-") == 0) return pl__fail(err, PL_E_NOT_FOUND, "the language id is not a LANGID");
    if (lang[0]) {
        int rc = pl_titles_load(e->st, lang, &own, err);
        if (rc != PL_OK) return rc;
        t = own;
    } else {
        t = pl_engine_titles(e, err);
        if (!t) return err ? err->status : PL_E_STORE;
    }
    size_t need = 0;
    int rc = pl_titles_export_multisz(t, kind, PL_MULTISZ_UTF16, NULL, 0, &need);
    if (rc != PL_OK && rc != PL_E_MORE_DATA) {
        pl_titles_free(own);
        return pl__fail(err, rc, "cannot export the title database: %s", pl_strerror(rc));
    }
    void *buf = malloc(need ? need : 1);
    if (!buf) {
        pl_titles_free(own);
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    rc = pl_titles_export_multisz(t, kind, PL_MULTISZ_UTF16, buf, need, &need);
    pl_titles_free(own);
    if (rc != PL_OK) {
        free(buf);
        return pl__fail(err, rc, "cannot export the title database: %s", pl_strerror(rc));
    }
    *out = buf;
    *len = need;
    return PL_OK;
}

/* --------------------------------------------------------------- data */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Indices of parent objects that instances refer to but the answer lacks.
 * Linear walks (pl_object_next, pl_instance_next) and a sorted index of the
 * objects present: the answer comes from providers, so it may hold many
 * objects and instances whose parents change at every step. */
static int missing_parents(const uint8_t *objs, size_t len, uint32_t nobj, const pl_query_items *asked,
                           pl_query_items *need)
{
    memset(need, 0, sizeof *need);
    need->kind = PL_QUERY_KIND_ITEMS;
    if (nobj == 0) return PL_OK;
    /* The host has checked every provider's objects before they joined the
     * answer (and the accessors check their own bounds): walked as they
     * are, not validated a second time. */
    pl_block blk;
    memset(&blk, 0, sizeof blk);
    blk.buf = objs;
    blk.len = len;
    blk.num_objects = nobj;
    uint32_t few[64];
    uint32_t *present = nobj <= 64 ? few : malloc((size_t)nobj * sizeof *present);
    if (!present) return PL_E_NOMEM;
    pl_object o;
    uint32_t np = 0;
    for (int rc = pl_block_object(&blk, 0, &o); rc == PL_OK && np < blk.num_objects; rc = pl_object_next(&o, &o))
        present[np++] = o.hdr.ObjectNameTitleIndex;
    qsort(present, np, sizeof *present, cmp_u32);
    int orc = pl_block_object(&blk, 0, &o);
    for (uint32_t i = 0; i < blk.num_objects && orc == PL_OK; i++, orc = pl_object_next(&o, &o)) {
        uint32_t ni = pl_object_num_instances(&o);
        uint32_t last = 0;
        pl_instance in;
        int more = ni > 0 && pl_object_instance(&o, 0, &in) == PL_OK;
        for (; more; more = pl_instance_next(&in, &in) == PL_OK) {
            uint32_t pidx = in.def.ParentObjectTitleIndex;
            if (pidx == 0 || pidx == last) continue;
            last = pidx;
            if (bsearch(&pidx, present, np, sizeof *present, cmp_u32)) continue;
            int dup = 0;
            for (size_t j = 0; j < need->n && !dup; j++) dup = need->items[j] == pidx;
            for (size_t j = 0; j < asked->n && !dup; j++) dup = asked->items[j] == pidx;
            if (!dup && need->n < PL_QUERY_MAX_ITEMS) need->items[need->n++] = pidx;
        }
    }
    if (present != few) free(present);
    return PL_OK;
}

static int run_data_query(pl_engine *e, const char *query, void **out, size_t *len, pl_error *err)
{
    pl_query_items q;
    pl_query_parse(query, &q);
    uint32_t fpid = 0;
    int64_t pid = query && pl_query_process_filter(query, &fpid) ? (int64_t)fpid : -1;

    /* The header's length depends only on the system name: leave room for it
     * at the front and let the providers' objects follow, so the answer is
     * built in one buffer and handed over without another copy. */
    pl_block_header hdr;
    memset(&hdr, 0, sizeof hdr);
    hdr.system_name = e->system_name;
    hdr.default_object = 238;
    hdr.perf_freq = PL_TICKS_PER_SEC;
    size_t hlen = 0;
    int rc = pl_block_write_header(&hdr, 0, 0, NULL, 0, &hlen);
    if (rc != PL_E_MORE_DATA && rc != PL_OK) return pl__fail(err, rc, "cannot write the block header: %s", pl_strerror(rc));
    pl__buf objs = {0};
    if (pl__buf_reserve(&objs, hlen) != PL_OK) return pl__fail(err, PL_E_NOMEM, "out of memory");
    memset(objs.p, 0, hlen);
    objs.len = hlen;

    uint32_t nobj = 0;
    rc = pl__host_collect(e->host, &q, pid, &objs, &nobj);
    if (rc == PL_OK && q.kind == PL_QUERY_KIND_ITEMS) {
        pl_query_items asked = q;
        for (int round = 0; round < PARENT_ROUNDS && rc == PL_OK; round++) {
            pl_query_items need;
            rc = missing_parents((const uint8_t *)objs.p + hlen, objs.len - hlen, nobj, &asked, &need);
            if (rc != PL_OK || need.n == 0) break;
            rc = pl__host_collect(e->host, &need, -1, &objs, &nobj); /* parents whole */
            for (size_t j = 0; j < need.n && asked.n < PL_QUERY_MAX_ITEMS; j++) asked.items[asked.n++] = need.items[j];
        }
    }
    if (rc != PL_OK) {
        pl__buf_free(&objs);
        return pl__fail(err, rc, "query \"%s\": %s", query ? query : "", pl_strerror(rc));
    }
    if (objs.len > 0xFFFFFFFFu) {
        pl__buf_free(&objs);
        return pl__fail(err, PL_E_RANGE, "the answer is larger than 4 GiB");
    }

    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    hdr.system_time.wYear = (WORD)(tm.tm_year + 1900);
    hdr.system_time.wMonth = (WORD)(tm.tm_mon + 1);
    hdr.system_time.wDayOfWeek = (WORD)tm.tm_wday;
    hdr.system_time.wDay = (WORD)tm.tm_mday;
    hdr.system_time.wHour = (WORD)tm.tm_hour;
    hdr.system_time.wMinute = (WORD)tm.tm_min;
    hdr.system_time.wSecond = (WORD)tm.tm_sec;
    hdr.system_time.wMilliseconds = (WORD)(ts.tv_nsec / 1000000);
    hdr.perf_time = pl__perf_time_now();
    hdr.perf_time_100ns = PL_FILETIME_UNIX_EPOCH + (int64_t)ts.tv_sec * PL_TICKS_PER_SEC + ts.tv_nsec / 100;
    size_t used = 0;
    rc = pl_block_write_header(&hdr, nobj, objs.len - hlen, objs.p, hlen, &used);
    if (rc != PL_OK || used != hlen) {
        pl__buf_free(&objs);
        return pl__fail(err, rc ? rc : PL_E_RANGE, "cannot write the block header: %s", pl_strerror(rc));
    }
    *out = objs.p; /* ownership passes to the caller */
    *len = objs.len;
    return PL_OK;
}

/* ------------------------------------------------------------ foreign */

static int qsep(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

PL_EXTERN int pl_query_foreign_target(const char *query, char *target, size_t cap, int *foreign, pl_error *err)
{
    pl__clear(err);
    if (!foreign || !target || !cap) return pl__fail(err, PL_E_INVAL, "pl_query_foreign_target: NULL argument");
    *foreign = 0;
    target[0] = '\0';
    if (!query) return PL_OK;
    const char *s = query;
    while (qsep(*s)) s++;
    if (strncasecmp(s, "foreign", 7) != 0 || !(s[7] == '\0' || qsep(s[7]))) return PL_OK;
    *foreign = 1;
    s += 7;
    while (qsep(*s)) s++;
    const char *tb = s;
    while (*s && !qsep(*s)) s++;
    size_t tn = (size_t)(s - tb);
    if (tn == 0) return pl__fail(err, PL_E_PARSE, "Foreign: no machine named (Foreign <host[:port]> [query])");
    if (tn > 300) return pl__fail(err, PL_E_PARSE, "Foreign: the machine name is longer than 300 bytes");
    if (tn >= cap) return pl__fail(err, PL_E_RANGE, "Foreign: the machine name does not fit");
    memcpy(target, tb, tn);
    target[tn] = '\0';
    return PL_OK;
}

PL_EXTERN int pl_engine_set_remote(pl_engine *e, pl_remote *r, pl_error *err)
{
    pl__clear(err);
    if (!e || !r) return pl__fail(err, PL_E_INVAL, "pl_engine_set_remote: NULL argument");
    pthread_mutex_lock(&e->mu);
    int busy = e->remote != NULL;
    if (!busy) e->remote = r;
    pthread_mutex_unlock(&e->mu);
    if (busy) return pl__fail(err, PL_E_INVAL, "pl_engine_set_remote: the engine already has a remote client");
    return PL_OK;
}

PL_EXTERN const char *pl_engine_system_name(pl_engine *e)
{
    return e ? e->system_name : "";
}

/* "Foreign <host[:port]> [query]": the rest of the string is the query perfd
 * on that machine runs (empty: Global). Its answer is validated by the
 * remote client and returned as it came, with that machine's system name in
 * the header. A failure is that machine's alone: the error names it. */
static int run_foreign(pl_engine *e, const char *query, void **out, size_t *len, uint32_t *type, pl_error *err)
{
    char target[301];
    int foreign = 0;
    int rc = pl_query_foreign_target(query, target, sizeof target, &foreign, err);
    if (rc != PL_OK) return rc;
    /* the query after the machine */
    const char *s = query;
    while (qsep(*s)) s++;
    s += 7;
    while (qsep(*s)) s++;
    s += strlen(target);
    while (qsep(*s)) s++;
    pthread_mutex_lock(&e->mu);
    if (!e->remote) rc = pl_remote_open(NULL, &e->remote, err);
    pl_remote *r = e->remote;
    pthread_mutex_unlock(&e->mu);
    if (rc != PL_OK) return rc;
    return pl_remote_query(r, target, s, out, len, type, err);
}

static int run_query(pl_engine *e, const char *query, void **out, size_t *len, uint32_t *type, pl_error *err)
{
    int kind;
    char lang[8];
    if (query) {
        const char *w = query;
        while (qsep(*w)) w++;
        if (strncasecmp(w, "foreign", 7) == 0 && (w[7] == '\0' || qsep(w[7])))
            return run_foreign(e, query, out, len, type, err);
    }
    if (query && title_query(query, &kind, lang)) {
        *type = PL_REG_MULTI_SZ;
        return run_title_query(e, kind, lang, out, len, err);
    }
    *type = PL_REG_BINARY;
    return run_data_query(e, query, out, len, err);
}

/* Take this thread's kept answer out of the slots: it serves only the
 * thread's very next call, and only when that call asks the same query within
 * PL_ENGINE_RETRY_MS. Returns 1 with *out filled when it serves this call;
 * qs NULL only drops it. */
static int take_slot(pl_engine *e, const char *qs, retry_slot *out)
{
    int hit = 0;
    retry_slot mine;
    memset(&mine, 0, sizeof mine);
    /* No slot in use: none is this thread's (only this thread keeps one for
     * itself, and that happened before this call). */
    if (atomic_load_explicit(&e->slots_used, memory_order_acquire) == 0) return 0;
    pthread_mutex_lock(&e->mu);
    for (size_t i = 0; i < PL_ENGINE_RETRY_SLOTS; i++) {
        retry_slot *s = &e->slots[i];
        if (s->query && pthread_equal(s->thread, pthread_self())) {
            mine = *s;
            memset(s, 0, sizeof *s);
            atomic_fetch_sub_explicit(&e->slots_used, 1, memory_order_release);
            hit = 1;
            break;
        }
    }
    pthread_mutex_unlock(&e->mu);
    if (!hit) return 0;
    if (qs && strcmp(mine.query, qs) == 0 && mono_ms() - mine.born_ms <= PL_ENGINE_RETRY_MS) {
        free(mine.query);
        *out = mine;
        return 1;
    }
    free(mine.query);
    free(mine.data);
    return 0;
}

/* Keep an answer for this thread's retry: in a free slot, else in place of
 * the oldest one. Takes ownership of `data`. */
static void keep_slot(pl_engine *e, const char *qs, void *data, size_t len, uint32_t type, int64_t born_ms)
{
    char *qdup = pl__strdup(qs);
    if (!qdup) {
        free(data);
        return;
    }
    retry_slot old;
    memset(&old, 0, sizeof old);
    pthread_mutex_lock(&e->mu);
    size_t pick = 0;
    for (size_t i = 0; i < PL_ENGINE_RETRY_SLOTS; i++) {
        if (!e->slots[i].query) {
            pick = i;
            break;
        }
        if (e->slots[i].born_ms < e->slots[pick].born_ms) pick = i;
    }
    old = e->slots[pick];
    if (!old.query) atomic_fetch_add_explicit(&e->slots_used, 1, memory_order_release);
    e->slots[pick] = (retry_slot){.query = qdup, .data = data, .len = len, .type = type,
                                  .thread = pthread_self(), .born_ms = born_ms};
    pthread_mutex_unlock(&e->mu);
    free(old.query);
    free(old.data);
}

PL_EXTERN int pl_engine_query_alloc(pl_engine *e, const char *query, void **out, size_t *len, uint32_t *type,
                                    pl_error *err)
{
    pl__clear(err);
    if (!e || !out || !len) return pl__fail(err, PL_E_INVAL, "pl_engine_query_alloc: NULL argument");
    uint32_t t = 0;
    retry_slot kept;
    (void)take_slot(e, NULL, &kept); /* this thread's next call: its kept answer is dropped */
    int rc = run_query(e, query, out, len, &t, err);
    if (rc == PL_OK && type) *type = t;
    return rc;
}

PL_EXTERN int pl_engine_query(pl_engine *e, const char *query, void *buf, size_t cap, size_t *needed,
                              uint32_t *type, pl_error *err)
{
    pl__clear(err);
    if (needed) *needed = 0; /* set on every return, as the contract says */
    if (!e || !needed || (cap && !buf)) return pl__fail(err, PL_E_INVAL, "pl_engine_query: bad argument");
    const char *qs = query ? query : "";
    void *data = NULL;
    size_t len = 0;
    uint32_t t = 0;
    retry_slot kept;
    int64_t born = 0;
    if (take_slot(e, qs, &kept)) {
        born = kept.born_ms; /* a second retry that is still short does not make it younger */
        data = kept.data;
        len = kept.len;
        t = kept.type;
    } else {
        born = mono_ms();
        int rc = run_query(e, query, &data, &len, &t, err);
        if (rc != PL_OK) return rc;
    }
    *needed = len;
    if (type) *type = t;
    if (cap < len) {
        keep_slot(e, qs, data, len, t, born);
        return pl__fail(err, PL_E_MORE_DATA, "the answer needs %zu bytes; the buffer has %zu", len, cap);
    }
    memcpy(buf, data, len);
    free(data);
    return PL_OK;
}
