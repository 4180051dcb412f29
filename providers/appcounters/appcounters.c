/* AppCounters: every running application's objects (docs/app-counters.md).
 *
 * At each Collect: find the live applications' segments (pl__seg_find: the
 * announcing process alive with its start time, the segment a sealed memfd
 * of the same user), group them by application name, check each group
 * against the application's record in the store (an application record,
 * with exactly the title ranges the segment was made with), and build the
 * objects the query wants, their parent objects included. Instances of one
 * application running in several processes are listed together; an object
 * without instances shows the newest process's counter block. A 32-bit
 * counter whose value does not fit is marked unavailable, never wrapped. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app_internal.h"
#include "perflib/indices.h"
#include "perflib/provider.h"
#include "perflib/registry.h"
#include "pl_internal.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pl_builder *bld;
static pl_store *store;
static char *store_path; /* the engine's store, from Open; NULL: the default store */
static unsigned opens;   /* engines in this process that opened us (each Closes once) */

typedef struct snap {
    uint32_t slot;
    uint32_t parent_slot;
    uint64_t id, parent_id;
    char name[PL__SEG_NAME_BYTES];
    size_t values;            /* index of its first value in the object's value array */
} snap;

/* What one segment shows of one object this collection. */
typedef struct objsnap {
    snap *v;
    size_t n;
    uint64_t *values;
    int32_t *pos;             /* slot -> position among v, -1 when not there */
    uint32_t npos;
    size_t base;              /* position of v[0] among all the group's instances */
} objsnap;

PL_PROVIDER_EXPORT DWORD AppCountersOpen(LPWSTR device_names);
PL_PROVIDER_EXPORT DWORD AppCountersCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects);
PL_PROVIDER_EXPORT DWORD AppCountersClose(void);
PL_PROVIDER_EXPORT DWORD AppCountersCollectNote(char *text, DWORD cap);

/* What the last collection left out, and why (empty: nothing): the
 * provider's note in the provider status (provider.h, PL_NOTE_SUFFIX). */
static char note[256];

/* The store the applications registered in, read-only: the engine's own
 * (the host passes its path to Open), else the default store. Opened at the
 * first Collect that needs it, and tried again later when it does not
 * exist yet: no store, no registered application, nothing to show. */
static int have_store(void)
{
    if (!store) {
        pl_error e;
        if (pl_store_open(store_path, PL_STORE_READONLY, &store, &e) != PL_OK) store = NULL;
    }
    return store != NULL;
}

DWORD AppCountersOpen(LPWSTR device_names)
{
    pthread_mutex_lock(&mu);
    if (!bld) bld = pl_builder_new();
    DWORD rc = bld ? ERROR_SUCCESS : ERROR_OUTOFMEMORY;
    char *path = NULL;
    if (device_names && device_names[0]) {
        size_t n = 0;
        while (device_names[n] && n < 65536) n++;
        if (pl__utf16_to_utf8_dup(device_names, n, &path, 0) != PL_OK) rc = ERROR_OUTOFMEMORY;
    }
    if (rc == ERROR_SUCCESS) {
        /* A second engine in this process with another store: follow it. */
        if ((path == NULL) != (store_path == NULL) || (path && strcmp(path, store_path) != 0)) {
            pl_store_close(store);
            store = NULL;
        }
        free(store_path);
        store_path = path;
        path = NULL;
    }
    free(path);
    if (rc == ERROR_SUCCESS) opens++;
    pthread_mutex_unlock(&mu);
    return rc;
}

DWORD AppCountersClose(void)
{
    pthread_mutex_lock(&mu);
    if (opens > 1) { /* another engine of this process still uses us */
        opens--;
        pthread_mutex_unlock(&mu);
        return ERROR_SUCCESS;
    }
    opens = 0;
    pl_builder_free(bld);
    bld = NULL;
    pl_store_close(store);
    store = NULL;
    free(store_path);
    store_path = NULL;
    pthread_mutex_unlock(&mu);
    return ERROR_SUCCESS;
}

static void objsnap_free(objsnap *s)
{
    free(s->v);
    free(s->values);
    free(s->pos);
    memset(s, 0, sizeof *s);
}

/* Read every live instance of object o of one segment. 0 on no memory. */
static int take(const pl__seg_view *sv, uint32_t o, objsnap *out)
{
    const pl__seg_object *ob = &sv->lay.obj[o];
    uint32_t high = pl__seg_high(sv->map, &sv->lay, o);
    memset(out, 0, sizeof *out);
    out->v = malloc((high ? high : 1) * sizeof *out->v);
    out->values = malloc((size_t)(high ? high : 1) * ob->nctr * sizeof *out->values);
    out->pos = malloc((high ? high : 1) * sizeof *out->pos);
    if (!out->v || !out->values || !out->pos) return 0;
    out->npos = high;
    pl__seg_inst in;
    for (uint32_t s = 0; s < high; s++) {
        out->pos[s] = -1;
        if (!pl__seg_read_slot(sv->map, &sv->lay, o, s, &in)) continue;
        snap *x = &out->v[out->n];
        x->slot = s;
        x->id = in.id;
        x->parent_slot = in.parent_slot;
        x->parent_id = in.parent_id;
        memcpy(x->name, in.name, sizeof x->name);
        x->values = out->n * ob->nctr;
        memcpy(out->values + x->values, in.values, ob->nctr * sizeof *out->values);
        out->pos[s] = (int32_t)out->n;
        out->n++;
    }
    return 1;
}

/* Do two segments of one application have the same objects and counters? */
static int same_layout(const pl__seg_layout *a, const pl__seg_layout *b)
{
    if (a->nobjects != b->nobjects || a->ncounters != b->ncounters || a->first_counter != b->first_counter ||
        a->first_help != b->first_help)
        return 0;
    for (uint32_t o = 0; o < a->nobjects; o++) {
        const pl__seg_object *x = &a->obj[o], *y = &b->obj[o];
        if (x->name_off != y->name_off || x->detail != y->detail || x->parent != y->parent ||
            x->max_instances != y->max_instances || x->first_ctr != y->first_ctr || x->nctr != y->nctr ||
            x->flags != y->flags)
            return 0;
    }
    return memcmp(a->ctr, b->ctr, a->ncounters * sizeof a->ctr[0]) == 0;
}

/* One application: the segments v[0..n) (same layout, oldest first). */
static int build_app(const pl_query_items *q, const pl__seg_view *v, size_t n)
{
    const pl__seg_layout *lay = &v[0].lay;
    int want[PL_APP_MAX_OBJECTS] = {0}, any = 0;
    for (uint32_t o = 0; o < lay->nobjects; o++) {
        uint32_t idx = lay->first_counter + lay->obj[o].name_off;
        if (pl_query_wants(q, idx, (lay->obj[o].flags & PL__SEG_COSTLY) != 0)) want[o] = any = 1;
    }
    if (!any) return PL_OK;
    /* Parents included. The reader checked the chains: they end at no
     * parent or at an object that is its own parent, within nobjects steps. */
    for (uint32_t o = 0; o < lay->nobjects; o++) {
        if (want[o] != 1) continue;
        for (uint32_t cur = o, p = lay->obj[o].parent; p != PL__SEG_NO_PARENT && p != cur;
             cur = p, p = lay->obj[p].parent)
            if (!want[p]) want[p] = 2;
    }
    objsnap *s = calloc(n * lay->nobjects, sizeof *s);
    if (!s) return PL_E_NOMEM;
    int rc = PL_OK;
    for (uint32_t o = 0; o < lay->nobjects && rc == PL_OK; o++) {
        if (!want[o]) continue;
        size_t base = 0;
        for (size_t i = 0; i < n; i++) {
            objsnap *x = &s[i * lay->nobjects + o];
            if (!take(&v[i], o, x)) {
                rc = PL_E_NOMEM;
                break;
            }
            x->base = base;
            base += x->n;
        }
    }
    for (uint32_t o = 0; o < lay->nobjects && rc == PL_OK; o++) {
        if (!want[o]) continue;
        const pl__seg_object *ob = &lay->obj[o];
        pl_object_desc od = {.name_index = lay->first_counter + ob->name_off,
                             .help_index = lay->first_help + ob->name_off,
                             .detail_level = ob->detail,
                             .default_counter = 0,
                             .has_instances = ob->max_instances > 0};
        int obj, ctr[PL_APP_MAX_COUNTERS + 1], marker = -1, narrow = 0;
        if (pl_builder_add_object(bld, &od, &obj) != PL_OK) {
            rc = PL_E_NOMEM;
            break;
        }
        for (uint32_t c = 0; c < ob->nctr && rc == PL_OK; c++) {
            const pl__seg_counter *k = &lay->ctr[ob->first_ctr + c];
            pl_counter_desc cd = {.name_index = lay->first_counter + k->name_off,
                                  .help_index = lay->first_help + k->name_off,
                                  .type = k->type,
                                  .detail_level = k->detail,
                                  .default_scale = k->scale};
            if (pl_type_size(k->type) == 4) narrow = 1;
            if (pl_builder_add_counter(bld, obj, &cd, &ctr[c]) != PL_OK) rc = PL_E_NOMEM;
        }
        /* ID Process: which process published the instance. PDH compares
         * it between two samples, so a restarted application (a new pid)
         * is a new series: no rate mixes the dead process's values with the
         * new one's. */
        int idp = -1;
        if (rc == PL_OK) {
            pl_counter_desc pd = {.name_index = PL_CTR_ID_PROCESS,
                                  .help_index = PL_HELP(PL_CTR_ID_PROCESS),
                                  .type = PERF_COUNTER_RAWCOUNT,
                                  .detail_level = PERF_DETAIL_WIZARD};
            if (pl_builder_add_counter(bld, obj, &pd, &idp) != PL_OK) rc = PL_E_NOMEM;
        }
        if (narrow && rc == PL_OK) {
            pl_counter_desc ud = {.name_index = PL_CTR_UNAVAILABLE_COUNTERS,
                                  .help_index = PL_HELP(PL_CTR_UNAVAILABLE_COUNTERS),
                                  .type = PERF_COUNTER_LARGE_RAWCOUNT_HEX,
                                  .detail_level = PERF_DETAIL_WIZARD};
            if (pl_builder_add_counter(bld, obj, &ud, &marker) != PL_OK) rc = PL_E_NOMEM;
        }
        /* Without instances: the newest process's block. With: every
         * process's instances, oldest process first. */
        size_t from = ob->max_instances ? 0 : n - 1;
        for (size_t i = from; i < n && rc == PL_OK; i++) {
            const objsnap *x = &s[i * lay->nobjects + o];
            for (size_t k = 0; k < x->n && rc == PL_OK; k++) {
                const snap *in = &x->v[k];
                int inst = -1;
                if (ob->max_instances) {
                    uint32_t ptitle = 0, ppos = 0;
                    if (ob->parent != PL__SEG_NO_PARENT) {
                        const objsnap *px = &s[i * lay->nobjects + ob->parent];
                        if (in->parent_slot < px->npos && px->pos[in->parent_slot] >= 0 &&
                            px->v[px->pos[in->parent_slot]].id == in->parent_id) {
                            ptitle = lay->first_counter + lay->obj[ob->parent].name_off;
                            ppos = (uint32_t)(px->base + (size_t)px->pos[in->parent_slot]);
                        }
                    }
                    if (pl_builder_add_instance(bld, obj, in->name, ptitle, ppos, PERF_NO_UNIQUE_ID, &inst) != PL_OK) {
                        rc = PL_E_NOMEM;
                        break;
                    }
                }
                uint64_t mask = 0;
                for (uint32_t c = 0; c < ob->nctr; c++) {
                    uint64_t val = x->values[in->values + c];
                    if (pl_type_size(lay->ctr[ob->first_ctr + c].type) == 4) {
                        if (val > UINT32_MAX) mask |= PL_UNAVAILABLE_BIT(c);
                        else pl_builder_set_u32(bld, obj, inst, ctr[c], (uint32_t)val);
                    } else {
                        pl_builder_set_u64(bld, obj, inst, ctr[c], val);
                    }
                }
                if (idp >= 0) pl_builder_set_u32(bld, obj, inst, idp, v[i].lay.pid);
                if (marker >= 0) pl_builder_set_u64(bld, obj, inst, marker, mask);
            }
        }
    }
    for (size_t i = 0; i < n * lay->nobjects; i++) objsnap_free(&s[i]);
    free(s);
    return rc;
}

/* The application records of the store, and the users whose segments a
 * collection reads: every record's owner and publishers. */
typedef struct records {
    pl_provider_info *list;
    size_t n;
    uint32_t uids[PL__SEG_MAX_USERS * 2];
    size_t nuids;
    uint32_t uids_over;       /* more owners and publishers than that */
} records;

static void records_load(records *r)
{
    memset(r, 0, sizeof *r);
    pl_error e;
    size_t n = 0;
    if (pl_store_providers(store, &r->list, &n, &e) != PL_OK) {
        r->list = NULL;
        return;
    }
    r->n = n;
    for (size_t i = 0; i < n; i++) {
        const pl_provider_info *p = &r->list[i];
        if (!pl__app_is_record(p)) continue;
        uint32_t u[PL_STORE_MAX_PUBLISHERS + 1];
        u[0] = (uint32_t)pl__app_owner_of(store, p);
        int k = pl_store_parse_publishers(p->app_publishers, u + 1);
        for (int j = 0; j <= (k > 0 ? k : 0); j++) {
            size_t x = 0;
            while (x < r->nuids && r->uids[x] != u[j]) x++;
            if (x < r->nuids) continue;
            if (r->nuids < sizeof r->uids / sizeof r->uids[0]) r->uids[r->nuids++] = u[j];
            else r->uids_over++;
        }
    }
}

/* The application record named `app` (the store compares names
 * ASCII-case-insensitively), or NULL. */
static const pl_provider_info *record_of(const records *r, const char *app)
{
    for (size_t i = 0; i < r->n; i++)
        if (pl__app_is_record(&r->list[i]) && strcasecmp(r->list[i].name, app) == 0) return &r->list[i];
    return NULL;
}

/* What was left out and why, for the status. */
typedef struct ignored {
    uint32_t not_allowed, not_allowed_uid;
    char not_allowed_app[PL__SEG_NAME_BYTES];
    uint32_t unregistered, other_ranges;
} ignored;

static void note_append(size_t *w, const char *fmt, ...) PL__PRINTF(2, 3);
static void note_append(size_t *w, const char *fmt, ...)
{
    if (*w >= sizeof note - 1) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(note + *w, sizeof note - *w, fmt, ap);
    va_end(ap);
    if (k > 0) *w += (size_t)k;
    if (*w > sizeof note - 1) *w = sizeof note - 1;
}

static void make_note(const pl__seg_scan *sc, const ignored *ig, uint32_t uids_over)
{
    size_t w = 0;
    note[0] = '\0';
#define PART(...)                                                                                                  \
    do {                                                                                                           \
        note_append(&w, "%s", w ? "; " : "ignored in the last collection: ");                                      \
        note_append(&w, __VA_ARGS__);                                                                              \
    } while (0)
    if (ig->not_allowed)
        PART("%u segment%s of user %u, which may not publish %s", ig->not_allowed, ig->not_allowed == 1 ? "" : "s",
             ig->not_allowed_uid, ig->not_allowed_app);
    if (sc->over_process || sc->over_user || sc->over_entries)
        PART("%u announcement%s past a limit of user %u (%d per process, %d per user, %d directory entries)",
             sc->over_process + sc->over_user + sc->over_entries,
             sc->over_process + sc->over_user + sc->over_entries == 1 ? "" : "s", sc->over_uid,
             PL__SEG_MAX_PER_PROCESS, PL__SEG_MAX_PER_USER, PL__SEG_MAX_ENTRIES);
    if (sc->bad_dirs)
        PART("%u announcement director%s not its user's own (user %u)", sc->bad_dirs, sc->bad_dirs == 1 ? "y" : "ies",
             sc->bad_dir_uid);
    if (sc->invalid)
        PART("%u announcement%s that failed a check (user %u)", sc->invalid, sc->invalid == 1 ? "" : "s",
             sc->invalid_uid);
    if (ig->other_ranges)
        PART("%u segment%s made with other title indices than the record's", ig->other_ranges,
             ig->other_ranges == 1 ? "" : "s");
    if (ig->unregistered)
        PART("%u segment%s of applications not registered in this store", ig->unregistered,
             ig->unregistered == 1 ? "" : "s");
    if (sc->users_over + uids_over) PART("%u users past the limit of %d", sc->users_over + uids_over, PL__SEG_MAX_USERS);
#undef PART
}

DWORD AppCountersCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    pl_query_items q;
    pl_query_parse_w(query, &q);
    pthread_mutex_lock(&mu);
    if (!bld || !have_store() ||
        (q.kind != PL_QUERY_KIND_GLOBAL && q.kind != PL_QUERY_KIND_COSTLY && q.kind != PL_QUERY_KIND_ITEMS)) {
        pthread_mutex_unlock(&mu);
        *bytes = 0;
        *objects = 0;
        return ERROR_SUCCESS;
    }
    pl_builder_reset(bld);
    records rec;
    records_load(&rec);
    pl__seg_view *v = NULL;
    size_t n = 0;
    pl__seg_scan sc;
    DWORD rc = ERROR_SUCCESS;
    if (pl__seg_find(pl__app_dir(), rec.uids, rec.nuids, &v, &n, &sc) != PL_OK) {
        pl_provider_list_free(rec.list, rec.n);
        pthread_mutex_unlock(&mu);
        return ERROR_OUTOFMEMORY;
    }
    ignored ig;
    memset(&ig, 0, sizeof ig);
    for (size_t i = 0; i < n && rc == ERROR_SUCCESS;) {
        size_t j = i + 1;
        while (j < n && strcmp(v[j].lay.app, v[i].lay.app) == 0) j++;
        /* Only the segments of users the record lets publish, made with
         * exactly its title ranges, in start order; the others are
         * counted. */
        const pl_provider_info *p = record_of(&rec, v[i].lay.app);
        size_t m = i;
        for (size_t k = i; k < j; k++) {
            if (!p) {
                ig.unregistered++;
                continue;
            }
            if (!pl__app_may_publish(store, p, v[k].uid)) {
                if (!ig.not_allowed++) {
                    ig.not_allowed_uid = v[k].uid;
                    snprintf(ig.not_allowed_app, sizeof ig.not_allowed_app, "%s", v[k].lay.app);
                }
                continue;
            }
            const pl__seg_layout *l = &v[k].lay;
            if (p->first_counter != l->first_counter || p->last_counter != l->last_counter ||
                p->first_help != l->first_help || p->last_help != l->last_help) {
                ig.other_ranges++;
                continue;
            }
            pl__seg_view t = v[m];
            v[m] = v[k];
            v[k] = t;
            m++;
        }
        if (m > i) {
            /* Processes whose layout differs from the oldest one's (an
             * older or newer build of the application) are left out. */
            size_t e = i + 1;
            for (size_t k = i + 1; k < m; k++)
                if (same_layout(&v[i].lay, &v[k].lay)) {
                    pl__seg_view t = v[e];
                    v[e] = v[k];
                    v[k] = t;
                    e++;
                }
            if (build_app(&q, &v[i], e - i) != PL_OK) rc = ERROR_OUTOFMEMORY;
        }
        i = j;
    }
    make_note(&sc, &ig, rec.uids_over);
    pl__seg_views_free(v, n);
    pl_provider_list_free(rec.list, rec.n);
    if (rc == ERROR_SUCCESS) rc = pl_provider_emit(bld, data, bytes, objects);
    else *bytes = *objects = 0;
    pthread_mutex_unlock(&mu);
    return rc;
}

DWORD AppCountersCollectNote(char *text, DWORD cap)
{
    if (!text || !cap) return ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&mu);
    snprintf(text, cap, "%s", note);
    pthread_mutex_unlock(&mu);
    return ERROR_SUCCESS;
}
