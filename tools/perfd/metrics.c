/* perfd: GET /metrics -- this machine's counters for Prometheus
 * (docs/perfd.md, "/metrics"). The exposition itself is metrics_text.c and
 * the table of names metrics_table.c; this file negotiates the format
 * (Accept) and the compression (Accept-Encoding), takes the snapshot, and
 * has the answer rendered on the worker thread (perfd_defer), gzipped when
 * asked, with perfd's own metrics after the objects: build and
 * system information, each provider's and object's state, the scrape's
 * durations.
 *
 * Config keys:
 *   metrics_objects  = default | all | NAME-or-INDEX[,NAME-or-INDEX...]
 *   metrics_total    = off | on      (export the _Total instances)
 *   metrics_counters = PATH[;PATH...] (counters chosen by PDH path)
 *   metrics_exclude  = PATH[;PATH...] (counters and instances left out)
 *   metrics_process_top    = off | N  (the N top processes and _Other)
 *   metrics_process_top_by = cpu | memory | io | COUNTER-NAME-or-INDEX
 *   metrics_system_label   = off | on (system_name="X" on every series)
 * and the query parameters collect[]=OBJECT (repeatable) and target=HOST[:PORT]
 * (another machine's counters, through the engine's Foreign query and the
 * remote pool, for machines listed in remote_config only). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <time.h>

#include "metrics_select.h"
#include "metrics_text.h"
#include "push.h"
#include "perfd.h"
#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/pdh.h"
#include "perflib/registry.h"

#define MAX_OBJECT_WORDS 256
#define FILETIME_UNIX_EPOCH 116444736000000000LL
#define QBUF_LEN ((MAX_OBJECT_WORDS * 2 + PM_COLLECT_MAX) * 11 + 8)
#define PM_TARGET_STATES 64              /* target= machines whose wrap state is kept */

static struct {
    int all;
    int include_total;
    char *words[MAX_OBJECT_WORDS];   /* names or indices as configured */
    size_t nwords;
    pthread_mutex_t mu;              /* en, en_tried; the provider status below */
    pl_titles *en;                   /* English titles when the default language is another */
    int en_tried;
    pl_provider_status *ps;          /* the providers after the latest collection */
    size_t nps;
    uint64_t ps_seq;                 /* the publication they are from */
    pm_state *state;                 /* the worker's only */
    struct {                         /* the same per target= machine (worker's) */
        char key[300];
        pm_state *st;
        uint64_t used;
    } tstate[PM_TARGET_STATES];
    uint64_t tclock;
    char **inc, **exc;               /* metrics_counters, metrics_exclude */
    size_t ninc, nexc;
    uint32_t top_n;                  /* metrics_process_top */
    uint32_t top_by;                 /* metrics_process_top_by as an index, 0: by name */
    char top_by_name[201];
    int system_label;                /* metrics_system_label */
} M = {.mu = PTHREAD_MUTEX_INITIALIZER};

static int set_objects(const char *v, char *why, size_t whylen)
{
    for (size_t i = 0; i < M.nwords; i++) free(M.words[i]);
    M.nwords = 0;
    M.all = 0;
    while (*v == ' ' || *v == '\t') v++;
    if (strcasecmp(v, "default") == 0 || !*v) return 0;
    if (strcasecmp(v, "all") == 0) {
        M.all = 1;
        return 0;
    }
    const char *p = v;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        while (n && (*p == ' ' || *p == '\t')) { p++; n--; }
        while (n && (p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
        if (n == 0 || n > 200) {
            snprintf(why, whylen, "metrics_objects: an empty or overlong object name");
            return -1;
        }
        if (M.nwords == MAX_OBJECT_WORDS) {
            snprintf(why, whylen, "metrics_objects: more than %d objects", MAX_OBJECT_WORDS);
            return -1;
        }
        M.words[M.nwords] = strndup(p, n);
        if (!M.words[M.nwords]) {
            snprintf(why, whylen, "out of memory");
            return -1;
        }
        M.nwords++;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}
PERFD_CONFIG_KEY(metrics_objects, "metrics_objects", set_objects)

static int set_total(const char *v, char *why, size_t whylen)
{
    if (strcasecmp(v, "on") == 0 || strcasecmp(v, "yes") == 0 || strcmp(v, "1") == 0) M.include_total = 1;
    else if (strcasecmp(v, "off") == 0 || strcasecmp(v, "no") == 0 || strcmp(v, "0") == 0) M.include_total = 0;
    else {
        snprintf(why, whylen, "metrics_total must be on or off");
        return -1;
    }
    return 0;
}
PERFD_CONFIG_KEY(metrics_total, "metrics_total", set_total)

static int set_paths(const char *key, char ***list, size_t *n, const char *v, char *why, size_t whylen)
{
    char **nv = NULL;
    size_t nn = 0;
    if (pm_paths_parse(key, v, &nv, &nn, why, whylen) != 0) return -1;
    free(*list);
    *list = nv;
    *n = nn;
    return 0;
}

static int set_counters(const char *v, char *why, size_t whylen)
{
    return set_paths("metrics_counters", &M.inc, &M.ninc, v, why, whylen);
}
PERFD_CONFIG_KEY(metrics_counters, "metrics_counters", set_counters)

static int set_exclude(const char *v, char *why, size_t whylen)
{
    return set_paths("metrics_exclude", &M.exc, &M.nexc, v, why, whylen);
}
PERFD_CONFIG_KEY(metrics_exclude, "metrics_exclude", set_exclude)

static int set_top(const char *v, char *why, size_t whylen)
{
    return pm_top_parse(v, &M.top_n, why, whylen);
}
PERFD_CONFIG_KEY(metrics_process_top, "metrics_process_top", set_top)

static int set_top_by(const char *v, char *why, size_t whylen)
{
    uint32_t idx;
    if (pm_top_by_parse(v, &idx, why, whylen) != 0) return -1;
    M.top_by = idx;
    snprintf(M.top_by_name, sizeof M.top_by_name, "%s", idx ? "" : v);
    return 0;
}
PERFD_CONFIG_KEY(metrics_process_top_by, "metrics_process_top_by", set_top_by)

static int set_system_label(const char *v, char *why, size_t whylen)
{
    if (strcmp(v, "on") == 0) M.system_label = 1;
    else if (strcmp(v, "off") == 0) M.system_label = 0;
    else {
        snprintf(why, whylen, "metrics_system_label must be on or off (\"%.40s\" given)", v);
        return -1;
    }
    return 0;
}
PERFD_CONFIG_KEY(metrics_system_label, "metrics_system_label", set_system_label)

/* The English titles (names and units are English whatever the default
 * language); from any thread. */
static const pl_titles *english(void)
{
    pl_engine *e = perfd_engine();
    const pl_titles *t = pl_engine_titles(e, NULL);
    if (t && strcmp(pl_titles_language(t), "009") == 0) return t;
    pthread_mutex_lock(&M.mu);
    if (!M.en_tried) {
        M.en_tried = 1;
        if (pl_titles_load(pl_engine_store(e), "009", &M.en, NULL) != PL_OK) M.en = NULL;
    }
    const pl_titles *en = M.en;
    pthread_mutex_unlock(&M.mu);
    return en ? en : t;
}

/* The titles a selection resolves names in: the default language, then
 * English (a PDH source that collects nothing). */
static const pl_titles *sel_titles(void *ctx, int en)
{
    (void)ctx;
    return en ? english() : pl_engine_titles(perfd_engine(), NULL);
}

/* An object by English or default-language name or by decimal index; 0
 * when the titles have none. */
static uint32_t find_object(void *ctx, const char *w)
{
    (void)ctx;
    const pl_titles *en = english(), *def = pl_engine_titles(perfd_engine(), NULL);
    char *end = NULL;
    unsigned long v = strtoul(w, &end, 10);
    if (end && end != w && *end == '\0') {
        if (v == 0 || v > 0xFFFFFFFFul) return 0;
        int named = (en && pl_titles_get(en, PL_TITLE_NAME, (uint32_t)v)) ||
                    (def && pl_titles_get(def, PL_TITLE_NAME, (uint32_t)v));
        return named ? (uint32_t)v : 0;
    }
    uint32_t i = en ? pl_titles_find(en, PL_TITLE_NAME, w) : 0;
    if (!i && def) i = pl_titles_find(def, PL_TITLE_NAME, w);
    return i;
}

static void *pick_open(void *ctx, const pl_object *o, int whole, int *failed)
{
    pl_pdh_pick *p = NULL;
    if (pl_pdh_selection_pick(ctx, o, whole, &p) != PL_PDH_CSTATUS_VALID_DATA) *failed = 1;
    return p;
}

static int pick_has(void *h, uint32_t cidx, uint32_t pos) { return pl_pdh_pick_has(h, cidx, pos); }
static void pick_close(void *h) { pl_pdh_pick_free(h); }

static const char *t_name(void *ctx, uint32_t i) { return ctx ? pl_titles_get(ctx, PL_TITLE_NAME, i) : NULL; }
static const char *t_help(void *ctx, uint32_t i) { return ctx ? pl_titles_get(ctx, PL_TITLE_HELP, i) : NULL; }

/* After every collection (collector thread): how the providers did. Kept
 * for the renders, so that a scrape does not wait on a provider's lock; a
 * render whose snapshot is newer than what is kept (the hook runs after the
 * waiting requests are resumed) reads it itself. */
static void keep_status(uint64_t seq)
{
    pl_provider_status *list = NULL;
    size_t n = 0;
    if (pl_engine_provider_status(perfd_engine(), &list, &n) != PL_OK) return;
    pthread_mutex_lock(&M.mu);
    if (seq >= M.ps_seq) {
        pl_free(M.ps);
        M.ps = list;
        M.nps = n;
        M.ps_seq = seq;
        list = NULL;
    }
    pthread_mutex_unlock(&M.mu);
    pl_free(list);
}

static void on_publish(perfd_snap *s)
{
    keep_status(s->seq);
}
PERFD_ON_PUBLISH(metrics_status, on_publish)

__attribute__((destructor)) static void metrics_free(void)
{
    pl_free(M.ps);
    M.ps = NULL;
    pm_state_free(M.state);
    M.state = NULL;
    for (size_t i = 0; i < PM_TARGET_STATES; i++) {
        pm_state_free(M.tstate[i].st);
        M.tstate[i].st = NULL;
    }
    pl_titles_free(M.en);
    M.en = NULL;
    for (size_t i = 0; i < M.nwords; i++) free(M.words[i]);
    M.nwords = 0;
    free(M.inc);
    free(M.exc);
    M.inc = M.exc = NULL;
    M.ninc = M.nexc = 0;
}

/* The q-value of `type` in an Accept header (0 when absent; "*" ranges count
 * for text/plain only, the default). */
static double accept_q(const char *accept, const char *type, int wildcard)
{
    double best = 0;
    const char *p = accept;
    while (p && *p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        while (n && (*p == ' ' || *p == '\t')) { p++; n--; }
        size_t tl = 0;
        while (tl < n && p[tl] != ';' && p[tl] != ' ') tl++;
        int match = (tl == strlen(type) && strncasecmp(p, type, tl) == 0) ||
                    (wildcard && ((tl == 3 && strncmp(p, "*/*", 3) == 0) || (tl == 6 && strncasecmp(p, "text/*", 6) == 0)));
        if (match) {
            double q = 1;
            for (size_t i = tl; i + 2 < n; i++)
                if ((p[i] == ';' || p[i] == ' ') && p[i + 1] == 'q' && p[i + 2] == '=') {
                    q = 0;
                    size_t j = i + 3;
                    double scale = 0;
                    for (; j < n && ((p[j] >= '0' && p[j] <= '9') || p[j] == '.'); j++) {
                        if (p[j] == '.') scale = 0.1;
                        else if (scale > 0) { q += (p[j] - '0') * scale; scale /= 10; }
                        else q = q * 10 + (p[j] - '0');
                    }
                    break;
                }
            if (q > best) best = q;
        }
        if (!e) break;
        p = e + 1;
    }
    return best;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------ one scrape */

typedef struct mjob {
    perfd_snap *snap;                /* NULL: no object asked for exists */
    pm_options opt;
    uint32_t idx[MAX_OBJECT_WORDS];
    uint32_t only[PM_COLLECT_MAX];   /* collect[] */
    pl_pdh_selection *sel;           /* metrics_counters, metrics_exclude */
    char qbuf[QBUF_LEN];
    const char *query;               /* what perfd_snapshot is asked, NULL: nothing */
    char target[300];                /* target=: the machine as "host:port" ("" = this one) */
    char fq[QBUF_LEN + 320];         /* "Foreign host:port " + query, for target= */
    int planned;
    uint32_t selobj[MAX_OBJECT_WORDS]; /* the objects the counter paths name */
    size_t nselobj;
    int gzip;
    uint64_t t0;                     /* when the request came */
    int done, failed;
    char *body;
    size_t len;
    int64_t ts_ms;                   /* the collection's Unix time in ms (remote_write) */
} mjob;

static void mjob_free(void *p)
{
    mjob *j = p;
    if (!j) return;
    perfd_snap_unref(j->snap);
    pl_pdh_selection_free(j->sel);
    free(j->body);
    free(j);
}

/* PRETTY_NAME of os-release(5), read once ("Linux" without one). */
static char os_pretty[160];

static void read_os(void)
{
    static const char *const paths[] = {"/etc/os-release", "/usr/lib/os-release"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0] && !os_pretty[0]; i++) {
        FILE *f = fopen(paths[i], "re");
        if (!f) continue;
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "PRETTY_NAME=", 12) != 0) continue;
            char *v = line + 12;
            v[strcspn(v, "\r\n")] = '\0';
            if (*v == '"' || *v == '\'') {
                char q = *v++;
                char *e = strrchr(v, q);
                if (e) *e = '\0';
            }
            size_t w = 0;
            for (size_t k = 0; v[k] && w + 1 < sizeof os_pretty; k++) {
                if (v[k] == '\\' && v[k + 1]) k++; /* shell escapes: \" \$ \` \\ */
                os_pretty[w++] = v[k];
            }
            os_pretty[w] = '\0';
            break;
        }
        fclose(f);
    }
    if (!os_pretty[0]) snprintf(os_pretty, sizeof os_pretty, "Linux");
}

static const char *os_name(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, read_os);
    return os_pretty;
}

static void info_family(pm_out *o, int om, const char *fam, const char *help, const char *labels)
{
    pm_family(o, om, fam, PM_TEXT, PM_UNIT_NONE, help);
    pm_sample(o, fam, "_info", labels, 1);
}

/* Does the scrape serve (some of) the object? */
static int served(const mjob *j, uint32_t idx)
{
    if (pm_wanted(&j->opt, idx)) return 1;
    if (!pm_allowed(&j->opt, idx)) return 0;
    for (size_t i = 0; i < j->nselobj; i++)
        if (j->selobj[i] == idx) return 1;
    return 0;
}

/* perfd's own metrics, after the objects (docs/perfd.md, "perfd's own
 * metrics"). blk: the snapshot, or NULL when none was taken. */
static void self_metrics(pm_out *o, const mjob *j, const pl_block *blk, const pl_titles *t)
{
    int om = j->opt.openmetrics;
    wb l = {0};
    pm_label(&l, "version", pl_version());
    info_family(o, om, "perflib_build",
                "perfd's build: the perflib version. Always 1; join on it to see which version a machine runs.", l.p);
    l.len = 0;
    struct utsname u;
    if (uname(&u) != 0) memset(&u, 0, sizeof u);
    if (!o->prefix_len) pm_label(&l, "system_name", blk ? blk->system_name : ""); /* else on every series */
    if (j->target[0]) {
        /* another machine's data: its name is in its block; its kernel,
         * OS and architecture are not, and this machine's would lie */
        pm_label(&l, "target", j->target);
    } else {
        pm_label(&l, "kernel", u.release);
        pm_label(&l, "os", os_name());
        pm_label(&l, "machine", u.machine);
    }
    info_family(o, om, "perflib_system",
                "The machine perfd reports on: its system name (as the data blocks carry it), kernel release, "
                "operating system and architecture. Always 1.", l.p);

    /* the providers, as the latest collection left them (this machine's:
     * none for target=, whose providers this perfd does not see) */
    size_t n = 0;
    pl_provider_status *ps = NULL;
    if (!j->target[0]) {
        pthread_mutex_lock(&M.mu);
        int stale = j->snap && M.ps_seq < j->snap->seq;
        pthread_mutex_unlock(&M.mu);
        if (stale) keep_status(j->snap->seq);
        pthread_mutex_lock(&M.mu);
        n = M.nps;
        ps = n ? malloc(n * sizeof *ps) : NULL;
        if (ps) memcpy(ps, M.ps, n * sizeof *ps);
        else n = 0;
        pthread_mutex_unlock(&M.mu);
    }
    static const struct {
        const char *fam;
        pm_kind kind;
        pm_unit unit;
        const char *help;
    } fams[] = {
        {"perflib_provider_up", PM_GAUGE, PM_UNIT_NONE,
         "1 when the provider answers, 0 when its last collection failed or it is disabled (its objects are then "
         "missing: perflib_object_up says which)."},
        {"perflib_provider_collect_duration_seconds", PM_GAUGE, PM_UNIT_SECONDS,
         "How long the provider's last collection took, in seconds."},
        {"perflib_provider_collects", PM_COUNTER, PM_UNIT_NONE,
         "Collections the provider answered. A counter: rate() gives collections per second."},
        {"perflib_provider_errors", PM_COUNTER, PM_UNIT_NONE,
         "Errors of the provider (failed calls, timeouts, crashes, broken rules). A counter: increase() over a "
         "window shows new ones."},
        {"perflib_provider_last_error_timestamp_seconds", PM_GAUGE, PM_UNIT_SECONDS,
         "When the provider's error count last grew, as Unix time in seconds; 0 when it never did."},
    };
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        pm_family(o, om, fams[f].fam, fams[f].kind, fams[f].unit, fams[f].help);
        for (size_t i = 0; i < n; i++) {
            const pl_provider_status *p = &ps[i];
            l.len = 0;
            pm_label(&l, "provider", p->name);
            double v;
            switch (f) {
            case 0: v = !p->disabled && (p->last_collect_ns == 0 || p->last_collect_ok); break;
            case 1:
                if (p->last_collect_ns == 0) continue;
                v = (double)p->last_collect_ns / 1e9;
                break;
            case 2: v = (double)p->collects; break;
            case 3: v = (double)p->errors; break;
            default: v = p->last_error_unix_ms > 0 ? (double)p->last_error_unix_ms / 1e3 : 0; break;
            }
            pm_sample(o, fams[f].fam, fams[f].kind == PM_COUNTER ? "_total" : "", l.p, v);
        }
    }
    /* every object a provider has answered with that this scrape wants:
     * present in the snapshot or not */
    pm_family(o, om, "perflib_object_up", PM_GAUGE, PM_UNIT_NONE,
              "1 when the object is in this scrape, 0 when its provider answered with it before but not now (the "
              "provider failed or was disabled: its series are missing).");
    for (size_t i = 0; i < n && j->snap; i++)
        for (uint32_t k = 0; k < ps[i].nobjects && k < 16; k++) {
            uint32_t idx = ps[i].objects[k];
            if (!served(j, idx)) continue;
            pl_object ob;
            int here = blk && pl_block_find_object(blk, idx, &ob) == PL_OK;
            const char *name = t ? pl_titles_get(t, PL_TITLE_NAME, idx) : NULL;
            char num[16];
            snprintf(num, sizeof num, "%u", (unsigned)idx);
            l.len = 0;
            pm_label(&l, "object", name ? name : num);
            pm_label(&l, "provider", ps[i].name);
            pm_sample(o, "perflib_object_up", "", l.p, here);
        }
    free(ps);

    /* the scrape */
    pm_family(o, om, "perflib_scrape_collect_duration_seconds", PM_GAUGE, PM_UNIT_SECONDS,
              "How long the collection this scrape shows took, in seconds.");
    if (j->snap) pm_sample(o, "perflib_scrape_collect_duration_seconds", "", NULL, (double)j->snap->took_ns / 1e9);
    pm_family(o, om, "perflib_scrape_snapshot_age_seconds", PM_GAUGE, PM_UNIT_SECONDS,
              "How old the collection this scrape shows was when it was rendered, in seconds (snapshot_max_age_ms "
              "bounds it).");
    uint64_t now = mono_ns();
    if (j->snap)
        pm_sample(o, "perflib_scrape_snapshot_age_seconds", "", NULL,
                  now > j->snap->collected_ns ? (double)(now - j->snap->collected_ns) / 1e9 : 0);
    pm_family(o, om, "perflib_scrape_timestamp_seconds", PM_GAUGE, PM_UNIT_SECONDS,
              "When the collection this scrape shows was made, as Unix time in seconds: the data's own time, to "
              "align other sources with (Prometheus stamps a sample with the scrape's start).");
    if (blk && blk->hdr.PerfTime100nSec.QuadPart > FILETIME_UNIX_EPOCH)
        pm_sample(o, "perflib_scrape_timestamp_seconds", "", NULL,
                  (double)(blk->hdr.PerfTime100nSec.QuadPart - FILETIME_UNIX_EPOCH) / 1e7);
    pm_family(o, om, "perflib_scrape_duration_seconds", PM_GAUGE, PM_UNIT_SECONDS,
              "How long this scrape took from the request to the end of its rendering, in seconds (the collection "
              "or the wait for it included, the transfer not).");
    pm_sample(o, "perflib_scrape_duration_seconds", "", NULL, (double)(mono_ns() - j->t0) / 1e9);
    perfd_push_self_metrics(o, om);
    if (l.failed) o->failed = 1;
    wb_free(&l);
}

/* The state that extends 32-bit counters across scrapes, one per machine
 * so that two machines' values never mix (worker thread only). The least
 * recently used machine's is dropped past PM_TARGET_STATES. */
static pm_state *state_for(const char *target)
{
    if (!target[0]) {
        if (!M.state) M.state = pm_state_new();
        return M.state;
    }
    size_t pick = 0;
    for (size_t i = 0; i < PM_TARGET_STATES; i++) {
        if (M.tstate[i].st && strcmp(M.tstate[i].key, target) == 0) {
            M.tstate[i].used = ++M.tclock;
            return M.tstate[i].st;
        }
        if (M.tstate[i].used < M.tstate[pick].used) pick = i;
    }
    pm_state_free(M.tstate[pick].st);
    M.tstate[pick].st = pm_state_new();
    snprintf(M.tstate[pick].key, sizeof M.tstate[pick].key, "%s", target);
    M.tstate[pick].used = ++M.tclock;
    return M.tstate[pick].st;
}

/* On the worker thread: the whole answer, then its gzip when asked. */
static void render_job(void *arg)
{
    mjob *j = arg;
    pm_out o = {0};
    const pl_titles *t = english();
    pm_names names = {.name = t_name, .help = t_help, .ctx = (void *)t};
    pm_state *state = state_for(j->target);
    pl_block blk;
    int have = 0;
    wb prefix = {0};
    if (j->snap) {
        pl_error err;
        have = pl_block_open(&blk, j->snap->data, j->snap->len, 0, 0, &err) == PL_OK;
        if (have && M.system_label) {
            pm_label(&prefix, "system_name", blk.system_name);
            o.prefix = prefix.p;
            o.prefix_len = prefix.len;
            if (prefix.failed) o.failed = 1;
        }
        if (!have) o.failed = 1;
        else if (!o.failed) pm_render_objects(&blk, j->snap->seq, &names, &j->opt, state, &o);
        if (have && blk.hdr.PerfTime100nSec.QuadPart > FILETIME_UNIX_EPOCH)
            j->ts_ms = (blk.hdr.PerfTime100nSec.QuadPart - FILETIME_UNIX_EPOCH) / 10000;
    }
    if (!o.failed) self_metrics(&o, j, have ? &blk : NULL, t);
    pm_eof(&o, j->opt.openmetrics);
    if (!o.b.p) wb_put(&o.b, "", 0);
    if (o.failed || o.b.failed) {
        j->failed = 1;
    } else if (j->gzip) {
        j->failed = perfd_gzip(o.b.p, o.b.len, &j->body, &j->len) != 0;
    } else {
        j->body = o.b.p;
        j->len = o.b.len;
        o.b.p = NULL;
    }
    wb_free(&o.b);
    wb_free(&prefix);
    j->done = 1;
}

static const char *content_type(int om)
{
    return om ? "application/openmetrics-text; version=1.0.0; charset=utf-8" : "text/plain; version=0.0.4; charset=utf-8";
}

typedef struct collect_arg {
    mjob *j;
    size_t n;
    int bad;
    char why[sizeof ((pl_error *)0)->msg]; /* a selection error whole */
} collect_arg;

static enum MHD_Result each_collect(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    collect_arg *a = cls;
    if (!key || strcmp(key, "collect[]") != 0) return MHD_YES;
    if (a->n == PM_COLLECT_MAX) {
        snprintf(a->why, sizeof a->why, "collect[]: more than %d objects", PM_COLLECT_MAX);
        a->bad = 1;
        return MHD_NO;
    }
    uint32_t idx;
    if (pm_collect_parse(value ? value : "", find_object, NULL, &idx, a->why, sizeof a->why) != 0) {
        a->bad = 1;
        return MHD_NO;
    }
    a->j->only[a->n++] = idx;
    return MHD_YES;
}

/* Append an object index to the query ("230 4"). */
static void add_query(mjob *j, uint32_t idx)
{
    size_t l = strlen(j->qbuf);
    if (l + 12 < sizeof j->qbuf) snprintf(j->qbuf + l, sizeof j->qbuf - l, l ? " %u" : "%u", (unsigned)idx);
}

/* What the scrape serves and the query that collects it (j->query; NULL
 * when nothing of it exists), from the configuration and the nonly
 * collect[] objects in j->only. 0, or -1 with the reason in why and the
 * HTTP status it deserves in *status. */
static int plan_config(mjob *j, size_t nonly, char *why, size_t whylen, unsigned *status)
{
    collect_arg a = {.j = j, .n = nonly};
    j->opt.only = j->only;
    j->opt.nonly = a.n;
    size_t n = 0;
    for (size_t i = 0; i < M.nwords; i++) {
        uint32_t found = find_object(NULL, M.words[i]);
        if (found && n < MAX_OBJECT_WORDS) j->idx[n++] = found;
    }
    j->opt.objects = j->idx;
    j->opt.nobjects = n;
    j->opt.top_n = M.top_n;
    j->opt.top_by = M.top_by ? M.top_by : PL_CTR_PCT_PROCESSOR_TIME;
    if (M.top_n && M.top_by_name[0]) {
        const pl_titles *en = english(), *def = pl_engine_titles(perfd_engine(), NULL);
        uint32_t i = en ? pl_titles_find(en, PL_TITLE_NAME, M.top_by_name) : 0;
        if (!i && def) i = pl_titles_find(def, PL_TITLE_NAME, M.top_by_name);
        if (!i) {
            snprintf(why, whylen, "metrics_process_top_by: no counter \"%s\" in this machine's titles",
                     M.top_by_name);
            *status = 500;
            return -1;
        }
        j->opt.top_by = i;
    }
    j->opt.none = (M.nwords && n == 0) || (M.ninc && !M.nwords && !M.all);
    if (M.ninc || M.nexc) {
        pl_pdh_source src = {.titles = sel_titles};
        pl_error err = {0};
        if (pl_pdh_selection_new(&src, (const char *const *)M.inc, M.ninc, (const char *const *)M.exc, M.nexc,
                                 &j->sel, &err) != PL_PDH_CSTATUS_VALID_DATA) {
            snprintf(why, whylen, "%s", err.msg);
            *status = 500;
            return -1;
        }
        j->nselobj = pl_pdh_selection_objects(j->sel, j->selobj, MAX_OBJECT_WORDS);
        if (j->nselobj > MAX_OBJECT_WORDS) j->nselobj = MAX_OBJECT_WORDS;
        j->opt.pick_open = pick_open;
        j->opt.pick_has = pick_has;
        j->opt.pick_close = pick_close;
        j->opt.pick_ctx = j->sel;
    }
    /* every collect[] object must be one this perfd serves */
    for (size_t i = 0; i < a.n; i++)
        if (!served(j, j->only[i])) {
            const pl_titles *t = english();
            const char *name = t ? pl_titles_get(t, PL_TITLE_NAME, j->only[i]) : NULL;
            snprintf(why, whylen,
                     "collect[]: object \"%s\" (%u) is not served by this perfd (metrics_objects, metrics_counters)",
                     name ? name : "?", (unsigned)j->only[i]);
            *status = 400;
            return -1;
        }
    j->qbuf[0] = '\0';
    if (a.n) {
        for (size_t i = 0; i < a.n; i++) add_query(j, j->only[i]);
    } else if (j->opt.none && !j->nselobj) {
        return 0; /* j->query stays NULL */
    } else if (j->opt.none || (n && !M.all)) {
        if (!j->opt.none)
            for (size_t i = 0; i < n; i++) add_query(j, j->idx[i]);
        for (size_t i = 0; i < j->nselobj; i++) add_query(j, j->selobj[i]);
    } else {
        snprintf(j->qbuf, sizeof j->qbuf, "Global");
    }
    j->query = j->qbuf;
    return 0;
}

/* plan_config for a request: its collect[] arguments first. 0, or 1 when
 * the reply is made (a 400 for a bad collect[]): *rc is the handler's
 * result then. */
static int plan(perfd_req *r, mjob *j, int *rc)
{
    collect_arg a = {.j = j};
    MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, each_collect, &a);
    if (a.bad) {
        *rc = perfd_reply_error(r, 400, a.why);
        return 1;
    }
    unsigned status = 500;
    if (plan_config(j, a.n, a.why, sizeof a.why, &status) != 0) {
        *rc = perfd_reply_error(r, status, a.why);
        return 1;
    }
    return 0;
}

/* ------------------------------------------- remote_write (push.h) */

perfd_metrics_job *perfd_metrics_job_new(const char **query, char *why, size_t whylen)
{
    mjob *j = calloc(1, sizeof *j);
    if (!j) {
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    j->t0 = mono_ns();
    j->opt.include_total = M.include_total;
    j->opt.all = M.all;
    unsigned status;
    if (plan_config(j, 0, why, whylen, &status) != 0) {
        mjob_free(j);
        return NULL;
    }
    *query = j->query ? j->query : "0";
    return (perfd_metrics_job *)j;
}

void perfd_metrics_job_render(void *arg)
{
    render_job(arg);
}

void perfd_metrics_job_set_snap(perfd_metrics_job *job, perfd_snap *s)
{
    mjob *j = (mjob *)job;
    j->snap = perfd_snap_ref(s);
}

const char *perfd_metrics_job_text(perfd_metrics_job *job, size_t *len, int64_t *ts_ms)
{
    mjob *j = (mjob *)job;
    if (!j->done || j->failed) return NULL;
    *len = j->len;
    *ts_ms = j->ts_ms;
    return j->body;
}

void perfd_metrics_job_free(perfd_metrics_job *job) { mjob_free(job); }

static int metrics(perfd_req *r)
{
    mjob *j = r->user;
    if (j && j->done) {
        if (j->failed) return perfd_reply_error(r, 500, "out of memory");
        char *body = j->body;
        j->body = NULL;
        return perfd_reply_owned_enc(r, 200, content_type(j->opt.openmetrics), j->gzip ? "gzip" : NULL, body, j->len);
    }
    if (!j) {
        j = calloc(1, sizeof *j);
        if (!j) return perfd_reply_error(r, 503, "out of memory");
        j->t0 = mono_ns();
        r->user = j;
        r->user_free = mjob_free;
        const char *accept = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Accept");
        double q_om = accept ? accept_q(accept, "application/openmetrics-text", 0) : 0;
        double q_text = accept ? accept_q(accept, "text/plain", 1) : 1;
        j->opt.openmetrics = q_om > 0 && q_om >= q_text;
        j->opt.include_total = M.include_total;
        j->opt.all = M.all;
        j->gzip = perfd_accepts_gzip(r);
    }
    /* The objects listed in metrics_objects or named by counter paths are
     * collected alone ("230 232"); default and all take the Global
     * snapshot. collect[] narrows either to the objects it names. */
    if (!j->planned) {
        j->planned = 1;
        int rc = PERFD_DONE;
        /* target=: only a machine in remote_config, refused here before
         * anything is planned or connected */
        const char *tg = perfd_arg(r, "target");
        if (tg) {
            char why[400];
            int k = perfd_machine_lookup(tg, NULL, j->target, sizeof j->target, why, sizeof why);
            if (k <= 0) {
                char msg[420];
                snprintf(msg, sizeof msg, "target: %s", why);
                return perfd_reply_error(r, k == 0 ? MHD_HTTP_FORBIDDEN : MHD_HTTP_BAD_REQUEST, msg);
            }
        }
        if (plan(r, j, &rc)) return rc;
    }
    /* nothing configured exists: perfd's own metrics, from an empty block
     * (its header says which machine) */
    const char *q = j->query ? j->query : "0";
    if (j->target[0]) {
        /* another machine: the remote pool collects it, never the collector */
        snprintf(j->fq, sizeof j->fq, "Foreign %s %s", j->target, q);
        q = j->fq;
    }
    perfd_snap *s = perfd_snapshot(r, q);
    if (!s) return PERFD_WAIT;
    if (s->status != PL_OK) return perfd_reply_snap_error(r, s);
    j->snap = perfd_snap_ref(s);
    return perfd_defer(r, render_job, j);
}
PERFD_ROUTE(metrics, "GET", "/metrics", 0, metrics)
