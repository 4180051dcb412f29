/* perflib registry store: whole title database snapshot and restore (the
 * store side of `lodctr /s` and `lodctr /r`). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perflib/indices.h"
#include "registry_internal.h"

PL_EXTERN void pl_backup_free(pl_backup *bk)
{
    if (!bk) return;
    for (size_t i = 0; i < bk->nlangs; i++) {
        pl_backup_lang *l = &bk->langs[i];
        for (size_t j = 0; j < l->nnames; j++) free(l->names[j].text);
        for (size_t j = 0; j < l->nhelps; j++) free(l->helps[j].text);
        free(l->names);
        free(l->helps);
    }
    free(bk->langs);
    for (size_t i = 0; i < bk->nproviders; i++) free(bk->providers[i].name);
    free(bk->providers);
    free(bk);
}

static int snap_titles(pl_store *st, pl_backup_lang *l, pl_error *err)
{
    sqlite3_stmt *q;
    int s = pl__sql_prepare(st, "SELECT kind, idx, text FROM titles WHERE lang = ?1 ORDER BY kind, idx", &q, err);
    if (s) return s;
    sqlite3_bind_text(q, 1, l->lang, -1, SQLITE_STATIC);
    size_t cap[2] = {0, 0};
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        sqlite3_int64 kind = sqlite3_column_int64(q, 0), idx = sqlite3_column_int64(q, 1);
        const char *text = (const char *)sqlite3_column_text(q, 2);
        if ((kind != 0 && kind != 1) || idx < 1 || idx > (sqlite3_int64)PL__INDEX_MAX || !text) {
            s = pl__fail(err, PL_E_STORE, "%s: titles row (%s, kind %lld, index %lld) is malformed", st->path, l->lang,
                         (long long)kind, (long long)idx);
            break;
        }
        pl_backup_string **arr = kind ? &l->helps : &l->names;
        size_t *n = kind ? &l->nhelps : &l->nnames;
        if (pl__grow((void **)arr, &cap[kind], *n + 1, sizeof **arr)) {
            s = pl__fail(err, PL_E_NOMEM, "out of memory");
            break;
        }
        char *dup = pl__strdup(text);
        if (!dup) {
            s = pl__fail(err, PL_E_NOMEM, "out of memory");
            break;
        }
        (*arr)[*n].index = (uint32_t)idx;
        (*arr)[*n].text = dup;
        (*n)++;
    }
    if (!s && rc != SQLITE_DONE) s = pl__sql_fail(st, err, rc, "read titles");
    sqlite3_finalize(q);
    return s;
}

static int snapshot_locked(pl_store *st, pl_backup *bk, pl_error *err)
{
    int s;
    if ((s = pl__meta_get(st, "Base Index", &bk->base_index, err)) ||
        (s = pl__meta_get(st, "Last Counter", &bk->last_counter, err)) ||
        (s = pl__meta_get(st, "Last Help", &bk->last_help, err)))
        return s;
    sqlite3_stmt *q;
    if ((s = pl__sql_prepare(st, "SELECT lang FROM languages ORDER BY lang", &q, err))) return s;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *lang = (const char *)sqlite3_column_text(q, 0);
        char norm[PL__LANG_MAX + 1];
        if (pl__lang_norm(lang, norm) != 0 || strcmp(norm, lang) != 0) {
            s = pl__fail(err, PL_E_STORE, "%s: language row '%s' is malformed", st->path, lang ? lang : "(null)");
            break;
        }
        if (pl__grow((void **)&bk->langs, &cap, bk->nlangs + 1, sizeof *bk->langs)) {
            s = pl__fail(err, PL_E_NOMEM, "out of memory");
            break;
        }
        memcpy(bk->langs[bk->nlangs++].lang, norm, sizeof norm);
    }
    if (!s && rc != SQLITE_DONE) s = pl__sql_fail(st, err, rc, "read languages");
    sqlite3_finalize(q);
    for (size_t i = 0; i < bk->nlangs && !s; i++) s = snap_titles(st, &bk->langs[i], err);
    if (s) return s;
    if ((s = pl__sql_prepare(st,
                             "SELECT name, first_counter, first_help, last_counter, last_help FROM providers"
                             " WHERE first_counter <> 0 OR first_help <> 0 OR last_counter <> 0 OR last_help <> 0"
                             " ORDER BY name COLLATE NOCASE",
                             &q, err)))
        return s;
    cap = 0;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (pl__grow((void **)&bk->providers, &cap, bk->nproviders + 1, sizeof *bk->providers)) {
            s = pl__fail(err, PL_E_NOMEM, "out of memory");
            break;
        }
        pl_backup_provider *p = &bk->providers[bk->nproviders];
        const char *name = (const char *)sqlite3_column_text(q, 0);
        p->name = pl__strdup(name ? name : "");
        if (!p->name) {
            s = pl__fail(err, PL_E_NOMEM, "out of memory");
            break;
        }
        uint32_t v[4];
        for (int c = 0; c < 4; c++) {
            sqlite3_int64 x = sqlite3_column_int64(q, c + 1);
            v[c] = x < 0 || x > (sqlite3_int64)PL__INDEX_MAX ? 0 : (uint32_t)x;
        }
        p->first_counter = v[0];
        p->first_help = v[1];
        p->last_counter = v[2];
        p->last_help = v[3];
        bk->nproviders++;
    }
    if (!s && rc != SQLITE_DONE) s = pl__sql_fail(st, err, rc, "read providers");
    sqlite3_finalize(q);
    return s;
}

PL_EXTERN int pl_store_snapshot(pl_store *st, pl_backup **out, pl_error *err)
{
    pl__clear(err);
    if (!st || !out) return pl__fail(err, PL_E_INVAL, "pl_store_snapshot: NULL argument");
    *out = NULL;
    pl_backup *bk = calloc(1, sizeof *bk);
    if (!bk) return pl__fail(err, PL_E_NOMEM, "out of memory");
    pl__store_lock(st);
    int s = pl__tx_begin(st, 0, err);
    if (!s) {
        s = snapshot_locked(st, bk, err);
        pl__tx_rollback(st);
    }
    pl__store_unlock(st);
    if (s) {
        pl_backup_free(bk);
        return s;
    }
    *out = bk;
    return PL_OK;
}

static int check_strings(const char *lang, const char *what, const pl_backup_string *v, size_t n, pl_error *err)
{
    if (n && !v) return pl__fail(err, PL_E_INVAL, "backup %s %s: array is NULL", lang, what);
    for (size_t i = 0; i < n; i++) {
        if (v[i].index == 0 || v[i].index > PL__INDEX_MAX)
            return pl__fail(err, PL_E_RANGE, "backup %s %s: index %u is outside 1..%u", lang, what, v[i].index,
                            PL__INDEX_MAX);
        if (i && v[i].index <= v[i - 1].index)
            return pl__fail(err, PL_E_INVAL, "backup %s %s: index %u follows %u (must ascend, no duplicates)", lang,
                            what, v[i].index, v[i - 1].index);
        if (!v[i].text) return pl__fail(err, PL_E_INVAL, "backup %s %s: index %u has no text", lang, what, v[i].index);
        if (!pl__utf8_valid(v[i].text))
            return pl__fail(err, PL_E_ENCODING, "backup %s %s: index %u is not valid UTF-8", lang, what, v[i].index);
    }
    return PL_OK;
}

static int validate_backup(const pl_backup *bk, pl_error *err)
{
    if (bk->nlangs && !bk->langs) return pl__fail(err, PL_E_INVAL, "backup: langs is NULL");
    if (bk->nproviders && !bk->providers) return pl__fail(err, PL_E_INVAL, "backup: providers is NULL");
    if (bk->last_counter > PL__INDEX_MAX || bk->last_help > PL__INDEX_MAX || bk->base_index > PL__INDEX_MAX)
        return pl__fail(err, PL_E_RANGE, "backup: Last Counter/Last Help/Base Index out of range");
    for (size_t i = 0; i < bk->nlangs; i++) {
        char norm[PL__LANG_MAX + 1];
        const pl_backup_lang *l = &bk->langs[i];
        if (memchr(l->lang, '\0', sizeof l->lang) == NULL || pl__lang_norm(l->lang, norm) != 0)
            return pl__fail(err, PL_E_INVAL, "backup: language %zu has a bad id", i);
        for (size_t j = 0; j < i; j++) {
            char other[PL__LANG_MAX + 1];
            pl__lang_norm(bk->langs[j].lang, other);
            if (strcmp(other, norm) == 0) return pl__fail(err, PL_E_INVAL, "backup: language %s appears twice", norm);
        }
        int s;
        if ((s = check_strings(norm, "names", l->names, l->nnames, err)) ||
            (s = check_strings(norm, "helps", l->helps, l->nhelps, err)))
            return s;
    }
    for (size_t i = 0; i < bk->nproviders; i++) {
        const pl_backup_provider *p = &bk->providers[i];
        int s = pl__provider_check_name(p->name, err);
        if (s) return s;
        uint32_t v[4] = {p->first_counter, p->last_counter, p->first_help, p->last_help};
        for (int c = 0; c < 4; c++)
            if (v[c] > PL__INDEX_MAX) return pl__fail(err, PL_E_RANGE, "backup: provider %s: index out of range", p->name);
        if (p->first_counter > p->last_counter || p->first_help > p->last_help)
            return pl__fail(err, PL_E_INVAL, "backup: provider %s: first index above last", p->name);
        for (size_t j = 0; j < i; j++)
            if (strcasecmp(bk->providers[j].name, p->name) == 0)
                return pl__fail(err, PL_E_INVAL, "backup: provider %s appears twice", p->name);
    }
    return PL_OK;
}

static int step_done(pl_store *st, sqlite3_stmt *q, const char *what, pl_error *err)
{
    int rc = pl__sql_write(st, q);
    sqlite3_reset(q);
    return rc == SQLITE_DONE ? PL_OK : pl__sql_fail(st, err, rc, what);
}

static int restore_locked(pl_store *st, const pl_backup *bk, pl_error *err)
{
    int s;
    if ((s = pl__sql_exec_write(st, "DELETE FROM titles; DELETE FROM languages;", err))) return s;
    sqlite3_stmt *ql = NULL, *qt = NULL, *qp = NULL;
    if ((s = pl__sql_prepare(st, "INSERT INTO languages(lang) VALUES(?1)", &ql, err)) ||
        (s = pl__sql_prepare(st, "INSERT INTO titles(lang, kind, idx, text) VALUES(?1, ?2, ?3, ?4)", &qt, err)))
        goto out;
    for (size_t i = 0; i < bk->nlangs && !s; i++) {
        const pl_backup_lang *l = &bk->langs[i];
        char norm[PL__LANG_MAX + 1];
        pl__lang_norm(l->lang, norm);
        sqlite3_bind_text(ql, 1, norm, -1, SQLITE_TRANSIENT);
        if ((s = step_done(st, ql, "insert language", err))) break;
        for (int kind = 0; kind < 2 && !s; kind++) {
            const pl_backup_string *v = kind ? l->helps : l->names;
            size_t n = kind ? l->nhelps : l->nnames;
            for (size_t j = 0; j < n && !s; j++) {
                sqlite3_bind_text(qt, 1, norm, -1, SQLITE_TRANSIENT);
                sqlite3_bind_int(qt, 2, kind);
                sqlite3_bind_int64(qt, 3, v[j].index);
                sqlite3_bind_text(qt, 4, v[j].text, -1, SQLITE_STATIC);
                s = step_done(st, qt, "insert title", err);
            }
        }
    }
    if (s) goto out;
    if ((s = pl__meta_set(st, "Base Index", bk->base_index, err)) ||
        (s = pl__meta_set(st, "Last Counter", bk->last_counter, err)) ||
        (s = pl__meta_set(st, "Last Help", bk->last_help, err)))
        goto out;
    /* Providers the backup does not name lose their ranges: their names are
     * gone. Built-in providers keep theirs: the indices they use are facts of
     * this perflib, whatever title database was restored. */
    if ((s = pl__sql_exec_write(st,
                                "UPDATE providers SET first_counter = 0, last_counter = 0, first_help = 0,"
                                " last_help = 0 WHERE builtin = 0",
                                err)))
        goto out;
    if ((s = pl__sql_prepare(st,
                             "INSERT INTO providers(name, first_counter, last_counter, first_help, last_help)"
                             " VALUES(?1, ?2, ?3, ?4, ?5) ON CONFLICT(name) DO UPDATE SET"
                             " first_counter = excluded.first_counter, last_counter = excluded.last_counter,"
                             " first_help = excluded.first_help, last_help = excluded.last_help",
                             &qp, err)))
        goto out;
    for (size_t i = 0; i < bk->nproviders && !s; i++) {
        const pl_backup_provider *p = &bk->providers[i];
        sqlite3_bind_text(qp, 1, p->name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(qp, 2, p->first_counter);
        sqlite3_bind_int64(qp, 3, p->last_counter);
        sqlite3_bind_int64(qp, 4, p->first_help);
        sqlite3_bind_int64(qp, 5, p->last_help);
        s = step_done(st, qp, "restore provider", err);
    }
    if (s) goto out;
    /* Last Counter/Help must stay above every index in use, or the next
     * lodctr would hand out indices that restored titles or provider ranges
     * already hold (a backup may say less: hand-edited, or written while a
     * provider was half installed), and never inside the block reserved for
     * perflib's own titles (the built-in providers use it whatever was
     * restored). Every real backup is above the block, so they round-trip. */
    sqlite3_stmt *qm = NULL;
    if ((s = pl__sql_prepare(st,
                             "UPDATE meta SET value = max(value, ?1,"
                             " coalesce((SELECT max(idx) FROM titles WHERE kind = 0), 0),"
                             " coalesce((SELECT max(last_counter) FROM providers), 0))"
                             " WHERE key = 'Last Counter'",
                             &qm, err)))
        goto out;
    sqlite3_bind_int64(qm, 1, PL_IDX_BUILTIN_RESERVED_LAST);
    s = step_done(st, qm, "raise Last Counter", err);
    sqlite3_finalize(qm);
    qm = NULL;
    if (!s)
        s = pl__sql_prepare(st,
                            "UPDATE meta SET value = max(value, ?1,"
                            " coalesce((SELECT max(idx) FROM titles WHERE kind = 1), 0),"
                            " coalesce((SELECT max(last_help) FROM providers), 0))"
                            " WHERE key = 'Last Help'",
                            &qm, err);
    if (!s) {
        sqlite3_bind_int64(qm, 1, PL_IDX_BUILTIN_RESERVED_LAST + 1);
        s = step_done(st, qm, "raise Last Help", err);
    }
    sqlite3_finalize(qm);
    if (s) goto out;
    if (pl__registry_test_hook) pl__registry_test_hook("restore");
out:
    sqlite3_finalize(ql);
    sqlite3_finalize(qt);
    sqlite3_finalize(qp);
    return s;
}

PL_EXTERN int pl_store_restore(pl_store *st, const pl_backup *bk, pl_error *err)
{
    pl__clear(err);
    if (!st || !bk) return pl__fail(err, PL_E_INVAL, "pl_store_restore: NULL argument");
    int s = validate_backup(bk, err);
    if (s) return s;
    pl__store_lock(st);
    s = pl__tx_begin(st, 1, err);
    if (!s) {
        s = restore_locked(st, bk, err);
        if (!s) s = pl__tx_commit(st, err);
        else pl__tx_rollback(st);
    }
    pl__store_unlock(st);
    return s;
}
