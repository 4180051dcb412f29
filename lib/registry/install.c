/* perflib registry store: installing and removing a provider's counter
 * names (the store side of lodctr/unlodctr). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/indices.h"
#include "registry_internal.h"

void (*pl__registry_test_hook)(const char *where) = NULL;

typedef struct itext {
    uint32_t offset;
    char lang[PL__LANG_MAX + 1];
    const pl_install_text *t;
} itext;

static int itext_cmp(const void *a, const void *b)
{
    const itext *x = a, *y = b;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    return strcmp(x->lang, y->lang);
}

/* Everything that can be checked without the store. On success *sorted holds
 * the texts sorted by (offset, language); free it. */
static int validate(const pl_install_req *req, itext **sorted, pl_error *err)
{
    int s = pl__provider_check_name(req->provider, err);
    if (s) return s;
    if (req->ntexts && !req->texts) return pl__fail(err, PL_E_INVAL, "install %s: texts is NULL", req->provider);
    if (req->isolation != PL_INSTALL_ISOLATION_DEFAULT && req->isolation != PL_INSTALL_ISOLATION_INPROC &&
        req->isolation != PL_INSTALL_ISOLATION_HELPER)
        return pl__fail(err, PL_E_INVAL, "install %s: unknown isolation %d", req->provider, req->isolation);
    if (req->nobjects && !req->object_offsets)
        return pl__fail(err, PL_E_INVAL, "install %s: object_offsets is NULL", req->provider);
    if (req->max_offset & 1)
        return pl__fail(err, PL_E_INVAL, "install %s: highest offset %u is odd", req->provider, req->max_offset);
    if (req->max_offset > PL__INDEX_MAX)
        return pl__fail(err, PL_E_INVAL, "install %s: highest offset %u is too large", req->provider,
                        req->max_offset);
    if (req->wraps && (s = pl__provider_check_name(req->wraps, err))) return s;
    if (req->wraps && pl__utf8_casecmp(req->wraps, req->provider) == 0)
        return pl__fail(err, PL_E_INVAL, "install %s: a provider cannot wrap itself", req->provider);
    const char *fields[4] = {req->library, req->open, req->collect, req->close};
    for (int i = 0; i < 4; i++)
        if (fields[i] && !pl__utf8_valid(fields[i]))
            return pl__fail(err, PL_E_ENCODING, "install %s: library or entry-point name is not valid UTF-8",
                            req->provider);
    for (size_t i = 0; i < req->nobjects; i++) {
        uint32_t o = req->object_offsets[i];
        if (o & 1) return pl__fail(err, PL_E_INVAL, "install %s: object offset %u is odd", req->provider, o);
        if (o > req->max_offset)
            return pl__fail(err, PL_E_INVAL, "install %s: object offset %u is above the highest offset %u",
                            req->provider, o, req->max_offset);
    }
    itext *v = malloc((req->ntexts ? req->ntexts : 1) * sizeof *v);
    if (!v) return pl__fail(err, PL_E_NOMEM, "out of memory");
    for (size_t i = 0; i < req->ntexts; i++) {
        const pl_install_text *t = &req->texts[i];
        if (pl__lang_norm(t->lang, v[i].lang) != 0) {
            s = pl__fail(err, PL_E_INVAL, "install %s: text %zu (offset %u) has a bad language id '%s'",
                         req->provider, i, t->offset, t->lang ? t->lang : "(null)");
            break;
        }
        if (t->offset & 1) {
            s = pl__fail(err, PL_E_INVAL, "install %s: text %zu (%s) has odd offset %u", req->provider, i, v[i].lang,
                         t->offset);
            break;
        }
        if (t->offset > req->max_offset) {
            s = pl__fail(err, PL_E_INVAL, "install %s: text %zu (%s) offset %u is above the highest offset %u",
                         req->provider, i, v[i].lang, t->offset, req->max_offset);
            break;
        }
        if ((t->name && !pl__utf8_valid(t->name)) || (t->help && !pl__utf8_valid(t->help))) {
            s = pl__fail(err, PL_E_ENCODING, "install %s: text %zu (%s, offset %u) is not valid UTF-8",
                         req->provider, i, v[i].lang, t->offset);
            break;
        }
        v[i].offset = t->offset;
        v[i].t = t;
    }
    if (!s) {
        qsort(v, req->ntexts, sizeof *v, itext_cmp);
        for (size_t i = 1; i < req->ntexts; i++)
            if (itext_cmp(&v[i - 1], &v[i]) == 0) {
                s = pl__fail(err, PL_E_INVAL, "install %s: two texts for offset %u in language %s", req->provider,
                             v[i].offset, v[i].lang);
                break;
            }
    }
    if (s) {
        free(v);
        return s;
    }
    *sorted = v;
    return PL_OK;
}

static int store_languages(pl_store *st, char (**langs)[PL__LANG_MAX + 1], size_t *n, pl_error *err)
{
    sqlite3_stmt *q;
    int s = pl__sql_prepare(st, "SELECT lang FROM languages ORDER BY lang", &q, err);
    if (s) return s;
    char(*arr)[PL__LANG_MAX + 1] = NULL;
    size_t count = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        char norm[PL__LANG_MAX + 1];
        const char *l = (const char *)sqlite3_column_text(q, 0);
        if (pl__lang_norm(l, norm) != 0 || strcmp(norm, l) != 0) continue;
        if (count == cap) {
            size_t nc = cap ? cap * 2 : 8;
            char(*b)[PL__LANG_MAX + 1] = realloc(arr, nc * sizeof *b);
            if (!b) {
                s = pl__fail(err, PL_E_NOMEM, "out of memory");
                break;
            }
            arr = b;
            cap = nc;
        }
        memcpy(arr[count++], norm, sizeof norm);
    }
    if (!s && rc != SQLITE_DONE) s = pl__sql_fail(st, err, rc, "read languages");
    sqlite3_finalize(q);
    if (s) {
        free(arr);
        return s;
    }
    *langs = arr;
    *n = count;
    return PL_OK;
}

static int count_in_ranges(pl_store *st, uint32_t fc, uint32_t lc, uint32_t fh, uint32_t lh, int *n, pl_error *err)
{
    sqlite3_stmt *q;
    int s = pl__sql_prepare(st,
                            "SELECT count(*) FROM titles WHERE (kind = 0 AND idx BETWEEN ?1 AND ?2)"
                            " OR (kind = 1 AND idx BETWEEN ?3 AND ?4)",
                            &q, err);
    if (s) return s;
    sqlite3_bind_int64(q, 1, fc);
    sqlite3_bind_int64(q, 2, lc);
    sqlite3_bind_int64(q, 3, fh);
    sqlite3_bind_int64(q, 4, lh);
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) *n = sqlite3_column_int(q, 0);
    else s = pl__sql_fail(st, err, rc, "check index ranges");
    sqlite3_finalize(q);
    return s;
}

static int insert_texts(pl_store *st, const pl_install_req *req, const itext *v, uint32_t fc, uint32_t fh,
                        pl_error *err)
{
    char(*langs)[PL__LANG_MAX + 1] = NULL;
    size_t nlangs = 0;
    int s = store_languages(st, &langs, &nlangs, err);
    if (s) return s;
    sqlite3_stmt *q;
    s = pl__sql_prepare(st, "INSERT INTO titles(lang, kind, idx, text) VALUES(?1, ?2, ?3, ?4)", &q, err);
    if (s) {
        free(langs);
        return s;
    }
    for (size_t l = 0; l < nlangs && !s; l++) {
        for (size_t i = 0; i < req->ntexts && !s;) {
            size_t j = i;
            const pl_install_text *mine = NULL, *english = NULL;
            for (; j < req->ntexts && v[j].offset == v[i].offset; j++) {
                if (strcmp(v[j].lang, langs[l]) == 0) mine = v[j].t;
                if (strcmp(v[j].lang, "009") == 0) english = v[j].t;
            }
            const char *name = mine && mine->name ? mine->name : english ? english->name : NULL;
            const char *help = mine && mine->help ? mine->help : english ? english->help : NULL;
            for (int kind = 0; kind < 2 && !s; kind++) {
                const char *text = kind ? help : name;
                if (!text) continue;
                sqlite3_reset(q);
                sqlite3_bind_text(q, 1, langs[l], -1, SQLITE_STATIC);
                sqlite3_bind_int(q, 2, kind);
                sqlite3_bind_int64(q, 3, (sqlite3_int64)(kind ? fh : fc) + v[i].offset);
                sqlite3_bind_text(q, 4, text, -1, SQLITE_STATIC);
                int rc = pl__sql_write(st, q);
                if (rc != SQLITE_DONE) s = pl__sql_fail(st, err, rc, "insert title");
            }
            i = j;
        }
    }
    sqlite3_finalize(q);
    free(langs);
    return s;
}

/* "2 4 238": object offsets as name indices. Caller frees. */
static char *object_list(const pl_install_req *req, uint32_t fc)
{
    if (!req->nobjects) return NULL;
    char *out = malloc(req->nobjects * 11 + 1);
    if (!out) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < req->nobjects; i++) {
        char d[12];
        int k = snprintf(d, sizeof d, "%s%u", i ? " " : "", fc + req->object_offsets[i]);
        memcpy(out + n, d, (size_t)k);
        n += (size_t)k;
    }
    out[n] = '\0';
    return out;
}

static int write_provider(pl_store *st, const pl_install_req *req, int exists, const pl_install_result *r,
                          const char *objects, pl_error *err)
{
    sqlite3_stmt *q;
    int s;
    /* ?6: the isolation to write, NULL to keep (an existing record). */
    if (!exists) {
        s = pl__sql_prepare(st,
                            "INSERT INTO providers(name, library, open_fn, collect_fn, close_fn, isolation, wraps)"
                            " VALUES(?1, ?2, ?3, ?4, ?5, coalesce(?6, 1), ?7)",
                            &q, err);
    } else {
        s = pl__sql_prepare(st,
                            "UPDATE providers SET library = coalesce(?2, library), open_fn = coalesce(?3, open_fn),"
                            " collect_fn = coalesce(?4, collect_fn), close_fn = coalesce(?5, close_fn),"
                            " isolation = coalesce(?6, isolation), wraps = coalesce(?7, wraps) WHERE name = ?1",
                            &q, err);
    }
    if (s) return s;
    if (req->isolation == PL_INSTALL_ISOLATION_INPROC) sqlite3_bind_int(q, 6, PL_ISOLATION_INPROC);
    else if (req->isolation == PL_INSTALL_ISOLATION_HELPER) sqlite3_bind_int(q, 6, PL_ISOLATION_HELPER);
    sqlite3_bind_text(q, 1, req->provider, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 2, req->library, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 3, req->open, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 4, req->collect, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 5, req->close, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 7, req->wraps, -1, SQLITE_STATIC);
    int rc = pl__sql_write(st, q);
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE) return pl__sql_fail(st, err, rc, "write provider");
    s = pl__sql_prepare(st,
                        "UPDATE providers SET first_counter = ?2, last_counter = ?3, first_help = ?4, last_help = ?5,"
                        " object_list = ?6 WHERE name = ?1",
                        &q, err);
    if (s) return s;
    sqlite3_bind_text(q, 1, req->provider, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 2, r->first_counter);
    sqlite3_bind_int64(q, 3, r->last_counter);
    sqlite3_bind_int64(q, 4, r->first_help);
    sqlite3_bind_int64(q, 5, r->last_help);
    sqlite3_bind_text(q, 6, objects, -1, SQLITE_STATIC);
    rc = pl__sql_write(st, q);
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE) return pl__sql_fail(st, err, rc, "write provider ranges");
    return PL_OK;
}

static int install_locked(pl_store *st, const pl_install_req *req, const itext *v, pl_install_result *r,
                          pl_error *err)
{
    pl_provider_info cur;
    pl_error nf;
    int exists = 0;
    int s = pl__provider_get(st, req->provider, &cur, &nf);
    if (s == PL_OK) {
        exists = 1;
        int has = cur.first_counter || cur.last_counter || cur.first_help || cur.last_help;
        uint32_t a = cur.first_counter, b = cur.last_counter;
        pl_provider_info_clear(&cur);
        if (has)
            return pl__fail(err, PL_E_EXISTS, "%s: provider '%s' already has counters %u..%u installed", st->path,
                            req->provider, a, b);
    } else if (s != PL_E_NOT_FOUND) {
        if (err) *err = nf;
        return s;
    }
    uint32_t lc, lh;
    if ((s = pl__meta_get(st, "Last Counter", &lc, err)) || (s = pl__meta_get(st, "Last Help", &lh, err))) return s;
    uint64_t top = (uint64_t)(lc > lh ? lc : lh) + 2 + req->max_offset;
    if (top > PL__INDEX_MAX)
        return pl__fail(err, PL_E_INVAL,
                        "install %s: indices would reach %llu, above the highest index %u (Last Counter %u)",
                        req->provider, (unsigned long long)top, PL__INDEX_MAX, lc);
    /* Names go to even indices and help texts to odd ones (that is how a
     * backup file tells them apart), whatever parity Last Counter/Help have
     * (a restored or hand-edited store may have an odd Last Counter):
     * First Counter is the next even index above Last Counter (Last Counter
     * + 2 when it is even), First Help the next odd index above Last Help. */
    r->first_counter = (lc | 1u) + 1u;
    r->last_counter = r->first_counter + req->max_offset;
    r->first_help = (lh + 1u) | 1u;
    r->last_help = r->first_help + req->max_offset;
    int used = 0;
    if ((s = count_in_ranges(st, r->first_counter, r->last_counter, r->first_help, r->last_help, &used, err)))
        return s;
    if (used)
        return pl__fail(err, PL_E_EXISTS,
                        "%s: %d title(s) already use indices %u..%u / %u..%u above Last Counter/Help; the store is"
                        " inconsistent",
                        st->path, used, r->first_counter, r->last_counter, r->first_help, r->last_help);
    if ((s = insert_texts(st, req, v, r->first_counter, r->first_help, err))) return s;
    char *objects = object_list(req, r->first_counter);
    if (req->nobjects && !objects) return pl__fail(err, PL_E_NOMEM, "out of memory");
    s = write_provider(st, req, exists, r, objects, err);
    free(objects);
    if (s) return s;
    if ((s = pl__meta_set(st, "Last Counter", r->last_counter, err))) return s;
    if ((s = pl__meta_set(st, "Last Help", r->last_help, err))) return s;
    if (pl__registry_test_hook) pl__registry_test_hook("install");
    return PL_OK;
}

PL_EXTERN int pl_store_install(pl_store *st, const pl_install_req *req, pl_install_result *res, pl_error *err)
{
    pl__clear(err);
    if (!st || !req) return pl__fail(err, PL_E_INVAL, "pl_store_install: NULL argument");
    itext *v = NULL;
    int s = validate(req, &v, err);
    if (s) return s;
    pl_install_result r = {0, 0, 0, 0};
    pl__store_lock(st);
    s = pl__tx_begin(st, 1, err);
    if (!s) {
        s = install_locked(st, req, v, &r, err);
        if (!s) s = pl__tx_commit(st, err);
        else pl__tx_rollback(st);
    }
    pl__store_unlock(st);
    free(v);
    if (!s && res) *res = r;
    return s;
}

/* The highest index of `kind` still used by a title or by a provider other
 * than `except`. */
static int highest_in_use(pl_store *st, int kind, const char *except, uint32_t *out, pl_error *err)
{
    sqlite3_stmt *q;
    int s = pl__sql_prepare(st,
                            kind ? "SELECT max(coalesce((SELECT max(idx) FROM titles WHERE kind = 1), 0),"
                                   " coalesce((SELECT max(last_help) FROM providers WHERE name <> ?1), 0), ?2 + 1)"
                                 : "SELECT max(coalesce((SELECT max(idx) FROM titles WHERE kind = 0), 0),"
                                   " coalesce((SELECT max(last_counter) FROM providers WHERE name <> ?1), 0), ?2)",
                            &q, err);
    if (s) return s;
    sqlite3_bind_text(q, 1, except, -1, SQLITE_STATIC);
    /* Never below the block reserved for perflib's own titles. */
    sqlite3_bind_int64(q, 2, PL_IDX_BUILTIN_RESERVED_LAST);
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
        sqlite3_int64 v = sqlite3_column_int64(q, 0);
        *out = v < 0 || v > (sqlite3_int64)PL__INDEX_MAX ? PL__INDEX_MAX : (uint32_t)v;
    } else {
        s = pl__sql_fail(st, err, rc, "find highest index");
    }
    sqlite3_finalize(q);
    return s;
}

static int uninstall_locked(pl_store *st, const char *name, pl_error *err)
{
    pl_provider_info p;
    int s = pl__provider_get(st, name, &p, err);
    if (s) return s;
    if (p.builtin) {
        s = pl__fail(err, PL_E_INVAL, "%s: '%s' is a built-in provider; its counters cannot be removed", st->path,
                     p.name);
    } else if (!(p.first_counter || p.last_counter || p.first_help || p.last_help)) {
        s = pl__fail(err, PL_E_NOT_FOUND, "%s: provider '%s' has no counters installed", st->path, p.name);
    }
    if (s) {
        pl_provider_info_clear(&p);
        return s;
    }
    sqlite3_stmt *q;
    /* An index that another provider's range also covers (ranges restored
     * from a backup may overlap, and the built-in ranges overlap each other)
     * still names that provider's counter: it stays. */
    s = pl__sql_prepare(st,
                        "DELETE FROM titles WHERE ((kind = 0 AND idx BETWEEN ?1 AND ?2)"
                        " OR (kind = 1 AND idx BETWEEN ?3 AND ?4))"
                        " AND NOT EXISTS (SELECT 1 FROM providers p WHERE p.name <> ?5 AND"
                        " ((titles.kind = 0 AND p.first_counter > 0 AND titles.idx BETWEEN p.first_counter"
                        " AND p.last_counter) OR (titles.kind = 1 AND p.first_help > 0 AND titles.idx"
                        " BETWEEN p.first_help AND p.last_help)))",
                        &q, err);
    if (!s) {
        sqlite3_bind_int64(q, 1, p.first_counter ? p.first_counter : 1);
        sqlite3_bind_int64(q, 2, p.first_counter ? p.last_counter : 0);
        sqlite3_bind_int64(q, 3, p.first_help ? p.first_help : 1);
        sqlite3_bind_int64(q, 4, p.first_help ? p.last_help : 0);
        sqlite3_bind_text(q, 5, name, -1, SQLITE_STATIC);
        int rc = pl__sql_write(st, q);
        if (rc != SQLITE_DONE) s = pl__sql_fail(st, err, rc, "delete titles");
        sqlite3_finalize(q);
    }
    if (!s) s = pl__sql_prepare(st,
                                "UPDATE providers SET first_counter = 0, last_counter = 0, first_help = 0,"
                                " last_help = 0, object_list = NULL WHERE name = ?1",
                                &q, err);
    if (!s) {
        sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
        int rc = pl__sql_write(st, q);
        if (rc != SQLITE_DONE) s = pl__sql_fail(st, err, rc, "clear provider ranges");
        sqlite3_finalize(q);
    }
    uint32_t lc, lh, hi;
    if (!s && !(s = pl__meta_get(st, "Last Counter", &lc, err)) && !(s = pl__meta_get(st, "Last Help", &lh, err))) {
        if (p.first_counter && lc <= p.last_counter && !(s = highest_in_use(st, 0, name, &hi, err)))
            s = pl__meta_set(st, "Last Counter", hi, err);
        if (!s && p.first_help && lh <= p.last_help && !(s = highest_in_use(st, 1, name, &hi, err)))
            s = pl__meta_set(st, "Last Help", hi, err);
    }
    pl_provider_info_clear(&p);
    return s;
}

PL_EXTERN int pl_store_uninstall(pl_store *st, const char *provider, pl_error *err)
{
    pl__clear(err);
    if (!st) return pl__fail(err, PL_E_INVAL, "pl_store_uninstall: NULL store");
    int s = pl__provider_check_name(provider, err);
    if (s) return s;
    pl__store_lock(st);
    s = pl__tx_begin(st, 1, err);
    if (!s) {
        s = uninstall_locked(st, provider, err);
        if (!s) s = pl__tx_commit(st, err);
        else pl__tx_rollback(st);
    }
    pl__store_unlock(st);
    return s;
}
