/* perflib: registering an application's names in the title database
 * (pl_app_register), the call that does for an application what lodctr
 * does for a provider's .ini/.h pair. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app_internal.h"
#include "perflib/registry.h"
#include "pl_internal.h"

#define APP_MARKER PL_APP_RECORD_MARKER

static int text_ok(const char *s, size_t max)
{
    if (!s) return 0;
    size_t n = strlen(s);
    if (n == 0 || n > max) return 0;
    size_t units;
    return pl__utf8_to_utf16(s, n, NULL, 0, &units) != PL_E_ENCODING;
}

int pl__app_decl_check(const pl_app_decl *d, pl_error *err);
int pl__app_decl_check(const pl_app_decl *d, pl_error *err)
{
    if (!d || !d->app) return pl__fail(err, PL_E_INVAL, "application: no declaration or no name");
    size_t an = strlen(d->app);
    if (an == 0 || an > PL_APP_MAX_APP_NAME)
        return pl__fail(err, PL_E_INVAL, "application: name of %zu bytes (1..%d)", an, PL_APP_MAX_APP_NAME);
    for (size_t i = 0; i < an; i++)
        if ((unsigned char)d->app[i] < 0x20 || d->app[i] == '\\' || d->app[i] == 0x7f)
            return pl__fail(err, PL_E_INVAL, "application: control character or backslash in its name");
    if (!text_ok(d->app, PL_APP_MAX_APP_NAME)) return pl__fail(err, PL_E_ENCODING, "application: name is not UTF-8");
    if (!d->objects || d->nobjects < 1 || d->nobjects > PL_APP_MAX_OBJECTS)
        return pl__fail(err, PL_E_INVAL, "application %s: %zu objects (1..%d)", d->app, d->nobjects,
                        PL_APP_MAX_OBJECTS);
    for (size_t o = 0; o < d->nobjects; o++) {
        const pl_app_object_decl *ob = &d->objects[o];
        if (!text_ok(ob->name, 1024))
            return pl__fail(err, PL_E_INVAL, "application %s: object %zu has no valid UTF-8 name", d->app, o);
        if (ob->help && !text_ok(ob->help, 65536))
            return pl__fail(err, PL_E_ENCODING, "application %s: object %zu help is not valid UTF-8", d->app, o);
        if (ob->max_instances > PL_APP_MAX_INSTANCES)
            return pl__fail(err, PL_E_RANGE, "application %s: object %zu allows %u instances (at most %d)", d->app,
                            o, ob->max_instances, PL_APP_MAX_INSTANCES);
        if (ob->parent != PL_APP_NO_PARENT_OBJECT) {
            if (ob->parent < 0 || (size_t)ob->parent >= d->nobjects)
                return pl__fail(err, PL_E_INVAL, "application %s: object %zu has parent object %d", d->app, o,
                                ob->parent);
            if (d->objects[ob->parent].max_instances == 0 || ob->max_instances == 0)
                return pl__fail(err, PL_E_INVAL,
                                "application %s: object %zu and its parent object must both have instances", d->app,
                                o);
            /* An object may be its own parent (that ends the chain), but
             * not its own ancestor through others. */
            int cur = (int)o, p = ob->parent;
            for (size_t steps = 0; p != PL_APP_NO_PARENT_OBJECT && p != cur; steps++) {
                if (steps > d->nobjects || (size_t)p == o)
                    return pl__fail(err, PL_E_INVAL, "application %s: object %zu's parents form a cycle", d->app, o);
                cur = p;
                p = d->objects[p].parent;
            }
        }
        uint32_t dl = ob->detail_level;
        if (dl && dl != PERF_DETAIL_NOVICE && dl != PERF_DETAIL_ADVANCED && dl != PERF_DETAIL_EXPERT &&
            dl != PERF_DETAIL_WIZARD)
            return pl__fail(err, PL_E_INVAL, "application %s: object %zu detail level %u", d->app, o, dl);
        if (!ob->counters || ob->ncounters < 1 || ob->ncounters > PL_APP_MAX_COUNTERS)
            return pl__fail(err, PL_E_INVAL, "application %s: object %zu has %zu counters (1..%d)", d->app, o,
                            ob->ncounters, PL_APP_MAX_COUNTERS);
        for (size_t c = 0; c < ob->ncounters; c++) {
            const pl_app_counter_decl *k = &ob->counters[c];
            if (!text_ok(k->name, 1024))
                return pl__fail(err, PL_E_INVAL, "application %s: object %zu counter %zu has no valid UTF-8 name",
                                d->app, o, c);
            if (k->help && !text_ok(k->help, 65536))
                return pl__fail(err, PL_E_ENCODING, "application %s: object %zu counter %zu help is not valid UTF-8",
                                d->app, o, c);
            if (!pl__app_type_ok(k->type))
                return pl__fail(err, PL_E_INVAL,
                                "application %s: object %zu counter %zu (%s) has type 0x%08x; allowed: raw counts, "
                                "counters and deltas without a base",
                                d->app, o, c, k->name, k->type);
            uint32_t cl = k->detail_level;
            if (cl && cl != PERF_DETAIL_NOVICE && cl != PERF_DETAIL_ADVANCED && cl != PERF_DETAIL_EXPERT &&
                cl != PERF_DETAIL_WIZARD)
                return pl__fail(err, PL_E_INVAL, "application %s: counter %s detail level %u", d->app, k->name, cl);
            if (k->default_scale < -10 || k->default_scale > 10)
                return pl__fail(err, PL_E_RANGE, "application %s: counter %s scale %d", d->app, k->name,
                                k->default_scale);
        }
    }
    size_t total = 0;
    for (size_t o = 0; o < d->nobjects; o++) total += d->objects[o].ncounters;
    if (total > PL_APP_MAX_TOTAL_COUNTERS)
        return pl__fail(err, PL_E_RANGE, "application %s: %zu counters in all (at most %d)", d->app, total,
                        PL_APP_MAX_TOTAL_COUNTERS);
    if (d->ntranslations && !d->translations)
        return pl__fail(err, PL_E_INVAL, "application %s: translations is NULL", d->app);
    for (size_t i = 0; i < d->ntranslations; i++) {
        const pl_app_translation *t = &d->translations[i];
        if (!t->lang || t->object >= d->nobjects || t->counter < -1 ||
            (t->counter >= 0 && (size_t)t->counter >= d->objects[t->object].ncounters))
            return pl__fail(err, PL_E_INVAL, "application %s: translation %zu names no object or counter", d->app,
                            i);
        if ((t->name && !text_ok(t->name, 1024)) || (t->help && !text_ok(t->help, 65536)))
            return pl__fail(err, PL_E_ENCODING, "application %s: translation %zu is not valid UTF-8", d->app, i);
    }
    return PL_OK;
}

/* The symbol offset of object o (counter -1) or of one of its counters. */
uint32_t pl__app_offset(const pl_app_decl *d, uint32_t o, int32_t counter);
uint32_t pl__app_offset(const pl_app_decl *d, uint32_t o, int32_t counter)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < o; i++) n += 1u + (uint32_t)d->objects[i].ncounters;
    return 2u * (n + (uint32_t)(counter + 1));
}

static uint32_t name_count(const pl_app_decl *d)
{
    uint32_t n = 0;
    for (size_t i = 0; i < d->nobjects; i++) n += 1u + (uint32_t)d->objects[i].ncounters;
    return n;
}

int pl__app_is_record(const pl_provider_info *p)
{
    return (!p->library || !p->library[0]) && p->linkage_export && strcmp(p->linkage_export, APP_MARKER) == 0;
}

/* Does the store hold exactly this declaration's 009 names at the record's
 * indices? */
static int same_names(pl_store *st, const pl_app_decl *d, const pl_provider_info *p)
{
    uint32_t n = name_count(d);
    if (!p->first_counter || !p->first_help || p->last_counter != p->first_counter + 2u * (n - 1u) ||
        p->last_help != p->first_help + 2u * (n - 1u))
        return 0;
    pl_titles *t;
    pl_error e;
    if (pl_titles_load(st, "009", &t, &e) != PL_OK) return 0;
    int same = 1;
    for (uint32_t o = 0; o < d->nobjects && same; o++) {
        const pl_app_object_decl *ob = &d->objects[o];
        for (int32_t c = -1; c < (int32_t)ob->ncounters && same; c++) {
            uint32_t off = pl__app_offset(d, o, c);
            const char *name = c < 0 ? ob->name : ob->counters[c].name;
            const char *help = c < 0 ? ob->help : ob->counters[c].help;
            const char *sn = pl_titles_get(t, PL_TITLE_NAME, p->first_counter + off);
            const char *sh = pl_titles_get(t, PL_TITLE_HELP, p->first_help + off);
            if (!sn || strcmp(sn, name) != 0) same = 0;
            if ((help && (!sh || strcmp(sh, help) != 0)) || (!help && sh)) same = 0;
        }
    }
    pl_titles_free(t);
    return same;
}

static int install(pl_store *st, const pl_app_decl *d, pl_install_result *res, pl_error *err)
{
    uint32_t n = name_count(d);
    size_t ntexts = n + d->ntranslations;
    pl_install_text *texts = calloc(ntexts, sizeof *texts);
    if (!texts) return pl__fail(err, PL_E_NOMEM, "out of memory");
    size_t k = 0;
    for (uint32_t o = 0; o < d->nobjects; o++) {
        const pl_app_object_decl *ob = &d->objects[o];
        for (int32_t c = -1; c < (int32_t)ob->ncounters; c++) {
            texts[k].offset = pl__app_offset(d, o, c);
            texts[k].lang = "009";
            texts[k].name = c < 0 ? ob->name : ob->counters[c].name;
            texts[k].help = c < 0 ? ob->help : ob->counters[c].help;
            k++;
        }
    }
    for (size_t i = 0; i < d->ntranslations; i++) {
        const pl_app_translation *t = &d->translations[i];
        texts[k].offset = pl__app_offset(d, t->object, t->counter);
        texts[k].lang = t->lang;
        texts[k].name = t->name;
        texts[k].help = t->help;
        k++;
    }
    pl_install_req req = {.provider = d->app, .max_offset = 2u * (n - 1u), .texts = texts, .ntexts = ntexts};
    int s = pl_store_install(st, &req, res, err);
    free(texts);
    return s;
}

int64_t pl__app_owner_of(pl_store *st, const pl_provider_info *p)
{
    if (p->app_owner >= 0) return p->app_owner;
    /* A record made before owners were recorded: the store's owner, who
     * may write it, stands in. */
    struct stat sb;
    const char *path = pl_store_path(st);
    return path && stat(path, &sb) == 0 ? (int64_t)sb.st_uid : 0;
}

int pl__app_may_publish(pl_store *st, const pl_provider_info *p, uint32_t uid)
{
    if ((int64_t)uid == pl__app_owner_of(st, p)) return 1;
    uint32_t uids[PL_STORE_MAX_PUBLISHERS];
    int n = pl_store_parse_publishers(p->app_publishers, uids);
    for (int i = 0; i < n; i++)
        if (uids[i] == uid) return 1;
    return 0;
}

/* May this process (re)register the application whose record is p? Its
 * owner and root may; anyone else gets PL_E_EXISTS naming the owner. */
static int may_change(pl_store *st, const pl_provider_info *p, const char *app, pl_error *err)
{
    uid_t me = geteuid();
    int64_t owner = pl__app_owner_of(st, p);
    if (me == 0 || (int64_t)me == owner) return PL_OK;
    return pl__fail(err, PL_E_EXISTS,
                    "application %s is registered by user id %lld; this process (user id %lu) may not change it",
                    app, (long long)owner, (unsigned long)me);
}

int pl__app_register_store(pl_store *st, const pl_app_decl *d, pl_app_indices *ind, pl_error *err);
int pl__app_register_store(pl_store *st, const pl_app_decl *d, pl_app_indices *ind, pl_error *err)
{
    int s = pl__app_decl_check(d, err);
    if (s) return s;
    pl_provider_info p;
    memset(&p, 0, sizeof p);
    s = pl_store_provider(st, d->app, &p, err);
    if (s == PL_OK && !pl__app_is_record(&p)) {
        pl_provider_info_clear(&p);
        return pl__fail(err, PL_E_EXISTS, "application %s: a provider that is not an application has this name",
                        d->app);
    }
    if (s == PL_OK && same_names(st, d, &p) && (geteuid() == 0 || pl__app_may_publish(st, &p, (uint32_t)geteuid()))) {
        /* Registered already with these names, and this user may publish
         * it (or is root): nothing to write. A record without an owner gets one: the
         * user registering it, when that user may write it. */
        if (p.app_owner < 0 && may_change(st, &p, d->app, NULL) == PL_OK)
            (void)pl_store_set_app_owner(st, d->app, (int64_t)geteuid(), p.app_publishers, NULL);
        ind->first_counter = p.first_counter;
        ind->last_counter = p.last_counter;
        ind->first_help = p.first_help;
        ind->last_help = p.last_help;
        ind->reused = 1;
        pl_provider_info_clear(&p);
        return PL_OK;
    }
    if (s != PL_OK && s != PL_E_NOT_FOUND) return s;
    if (s == PL_OK) {
        int m = may_change(st, &p, d->app, err);
        if (m) {
            pl_provider_info_clear(&p);
            return m;
        }
    }
    int had_counters = s == PL_OK && p.first_counter;
    int64_t keep_owner = s == PL_OK && p.app_owner >= 0 ? p.app_owner : -1;
    char *keep_pub = s == PL_OK && p.app_publishers ? pl__strdup(p.app_publishers) : NULL;
    pl_provider_info_clear(&p);
    if (s == PL_E_NOT_FOUND) {
        pl_provider_info rec;
        memset(&rec, 0, sizeof rec);
        rec.name = (char *)d->app;
        rec.linkage_export = (char *)APP_MARKER;
        rec.isolation = PL_ISOLATION_INPROC;
        s = pl_store_set_provider(st, &rec, err);
        /* Owned by the user who registers it (root may re-register another
         * user's application and keeps its owner). */
        if (!s) s = pl_store_set_app_owner(st, d->app, (int64_t)geteuid(), NULL, err);
        if (s) {
            free(keep_pub);
            return s;
        }
    } else {
        if (keep_owner < 0) s = pl_store_set_app_owner(st, d->app, (int64_t)geteuid(), keep_pub, err);
        /* The declaration changed: its old names go, the new ones get new
         * indices (two transactions; a reader in between sees neither). */
        if (!s && had_counters) s = pl_store_uninstall(st, d->app, err);
        if (s) {
            free(keep_pub);
            return s;
        }
    }
    free(keep_pub);
    pl_install_result r;
    s = install(st, d, &r, err);
    if (s == PL_E_EXISTS) {
        /* Another process of this application registered it meanwhile. */
        s = pl_store_provider(st, d->app, &p, err);
        if (s) return s;
        int same = same_names(st, d, &p);
        r.first_counter = p.first_counter;
        r.last_counter = p.last_counter;
        r.first_help = p.first_help;
        r.last_help = p.last_help;
        pl_provider_info_clear(&p);
        if (!same)
            return pl__fail(err, PL_E_EXISTS, "application %s: registered at the same time with other names",
                            d->app);
    } else if (s) {
        return s;
    }
    ind->first_counter = r.first_counter;
    ind->last_counter = r.last_counter;
    ind->first_help = r.first_help;
    ind->last_help = r.last_help;
    ind->reused = 0;
    return PL_OK;
}

int pl_app_register(const pl_app_decl *d, const char *store_path, pl_app_indices *ind, pl_error *err)
{
    pl_app_indices tmp;
    pl_store *st;
    int s = pl_store_open(store_path, 0, &st, err);
    if (s) return s;
    s = pl__app_register_store(st, d, ind ? ind : &tmp, err);
    pl_store_close(st);
    return s;
}

/* The record of application `app`, when it is an application's and this
 * process may change it (its owner or root). *p is filled (clear it) in
 * every case. */
static int record_to_change(pl_store *st, const char *app, pl_provider_info *p, pl_error *err)
{
    memset(p, 0, sizeof *p);
    int s = pl_store_provider(st, app, p, err);
    if (s == PL_OK && !pl__app_is_record(p))
        s = pl__fail(err, PL_E_EXISTS, "application %s: the provider of that name is not an application", app);
    if (s == PL_OK) s = may_change(st, p, app, err);
    return s;
}

int pl_app_unregister(const char *app, const char *store_path, pl_error *err)
{
    if (!app) return pl__fail(err, PL_E_INVAL, "application: no name");
    pl_store *st;
    int s = pl_store_open(store_path, 0, &st, err);
    if (s) return s;
    pl_provider_info p;
    s = record_to_change(st, app, &p, err);
    int had = s == PL_OK && p.first_counter;
    pl_provider_info_clear(&p);
    if (s == PL_OK && had) s = pl_store_uninstall(st, app, err);
    if (s == PL_OK) s = pl_store_remove_provider(st, app, err);
    pl_store_close(st);
    return s;
}

int pl__app_registered(const pl_app_decl *d, const char *store_path, pl_app_indices *ind, pl_error *err);
int pl__app_registered(const pl_app_decl *d, const char *store_path, pl_app_indices *ind, pl_error *err)
{
    int s = pl__app_decl_check(d, err);
    if (s) return s;
    pl_store *st;
    s = pl_store_open(store_path, PL_STORE_READONLY, &st, err);
    if (s) return s;
    pl_provider_info p;
    memset(&p, 0, sizeof p);
    s = pl_store_provider(st, d->app, &p, err);
    if (s == PL_OK && (!pl__app_is_record(&p) || !same_names(st, d, &p)))
        s = pl__fail(err, PL_E_NOT_FOUND, "application %s: not registered with these names", d->app);
    if (s == PL_OK && !pl__app_may_publish(st, &p, (uint32_t)geteuid()))
        s = pl__fail(err, PL_E_EXISTS,
                     "application %s is registered by user id %lld, which does not let user id %lu publish it "
                     "(pl_app_set_publishers)",
                     d->app, (long long)pl__app_owner_of(st, &p), (unsigned long)geteuid());
    if (s == PL_OK) {
        ind->first_counter = p.first_counter;
        ind->last_counter = p.last_counter;
        ind->first_help = p.first_help;
        ind->last_help = p.last_help;
        ind->reused = 1;
    }
    pl_provider_info_clear(&p);
    pl_store_close(st);
    return s;
}

int pl_app_set_publishers(const char *app, const char *store_path, const uint32_t *uids, size_t n, pl_error *err)
{
    if (!app || (n && !uids)) return pl__fail(err, PL_E_INVAL, "pl_app_set_publishers: NULL argument");
    if (n > PL_STORE_MAX_PUBLISHERS)
        return pl__fail(err, PL_E_RANGE, "application %s: %zu publishers (at most %d)", app, n,
                        PL_STORE_MAX_PUBLISHERS);
    char list[PL_STORE_MAX_PUBLISHERS * 11 + 1];
    size_t w = 0;
    list[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (uids[i] == UINT32_MAX) return pl__fail(err, PL_E_INVAL, "application %s: user id %u", app, uids[i]);
        w += (size_t)snprintf(list + w, sizeof list - w, i ? ",%u" : "%u", uids[i]);
    }
    pl_store *st;
    int s = pl_store_open(store_path, 0, &st, err);
    if (s) return s;
    pl_provider_info p;
    s = record_to_change(st, app, &p, err);
    if (s == PL_OK) s = pl_store_set_app_owner(st, p.name, pl__app_owner_of(st, &p), list, err);
    pl_provider_info_clear(&p);
    pl_store_close(st);
    return s;
}
