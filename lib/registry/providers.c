/* perflib registry store: provider records (Services\<name>\Performance). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "registry_internal.h"

#define PROVIDER_COLUMNS                                                                                          \
    "name, library, open_fn, collect_fn, close_fn, object_list, linkage_export, first_counter, last_counter,"     \
    " first_help, last_help, disabled, disable_reason, disable_time, open_timeout_ms, collect_timeout_ms,"        \
    " builtin, isolation, wraps, app_owner, app_publishers"

PL_EXTERN void pl_provider_info_clear(pl_provider_info *p)
{
    if (!p) return;
    free(p->name);
    free(p->library);
    free(p->open);
    free(p->collect);
    free(p->close);
    free(p->object_list);
    free(p->linkage_export);
    free(p->disable_reason);
    free(p->wraps);
    free(p->app_publishers);
    memset(p, 0, sizeof *p);
}

PL_EXTERN void pl_provider_list_free(pl_provider_info *list, size_t n)
{
    if (!list) return;
    for (size_t i = 0; i < n; i++) pl_provider_info_clear(&list[i]);
    free(list);
}

static int dup_col(sqlite3_stmt *q, int col, char **out)
{
    const char *s = (const char *)sqlite3_column_text(q, col);
    *out = NULL;
    if (!s) return sqlite3_column_type(q, col) == SQLITE_NULL ? PL_OK : PL_E_NOMEM;
    *out = pl__strdup(s);
    return *out ? PL_OK : PL_E_NOMEM;
}

static uint32_t u32_col(sqlite3_stmt *q, int col)
{
    sqlite3_int64 v = sqlite3_column_int64(q, col);
    return v < 0 || v > (sqlite3_int64)UINT32_MAX ? 0 : (uint32_t)v;
}

/* Copy the current row (PROVIDER_COLUMNS order) into *p. */
static int row_to_info(pl_store *st, sqlite3_stmt *q, pl_provider_info *p, pl_error *err)
{
    memset(p, 0, sizeof *p);
    if (dup_col(q, 0, &p->name) || dup_col(q, 1, &p->library) || dup_col(q, 2, &p->open) ||
        dup_col(q, 3, &p->collect) || dup_col(q, 4, &p->close) || dup_col(q, 5, &p->object_list) ||
        dup_col(q, 6, &p->linkage_export) || dup_col(q, 12, &p->disable_reason) || dup_col(q, 18, &p->wraps) ||
        dup_col(q, 20, &p->app_publishers)) {
        pl_provider_info_clear(p);
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    if (!p->name) {
        pl_provider_info_clear(p);
        return pl__fail(err, PL_E_STORE, "%s: a provider record has no name", st->path);
    }
    p->first_counter = u32_col(q, 7);
    p->last_counter = u32_col(q, 8);
    p->first_help = u32_col(q, 9);
    p->last_help = u32_col(q, 10);
    p->disabled = sqlite3_column_int64(q, 11) != 0;
    p->disable_time = sqlite3_column_int64(q, 13);
    p->open_timeout_ms = u32_col(q, 14);
    p->collect_timeout_ms = u32_col(q, 15);
    p->builtin = sqlite3_column_int64(q, 16) != 0;
    /* A damaged value isolates: the safe side. */
    p->isolation = sqlite3_column_int64(q, 17) == 0 ? PL_ISOLATION_INPROC : PL_ISOLATION_HELPER;
    /* An owner that is not a user id counts as none recorded (-1); a
     * damaged publishers list, as no other publisher (the safe side). */
    sqlite3_int64 owner = sqlite3_column_int64(q, 19);
    p->app_owner = sqlite3_column_type(q, 19) == SQLITE_INTEGER && owner >= 0 && owner < (sqlite3_int64)UINT32_MAX
                       ? owner
                       : -1;
    uint32_t uids[PL_STORE_MAX_PUBLISHERS];
    if (p->app_publishers && pl_store_parse_publishers(p->app_publishers, uids) < 0) {
        free(p->app_publishers);
        p->app_publishers = NULL;
    }
    return PL_OK;
}

PL_EXTERN int pl_store_providers(pl_store *st, pl_provider_info **list, size_t *n, pl_error *err)
{
    pl__clear(err);
    if (!st || !list || !n) return pl__fail(err, PL_E_INVAL, "pl_store_providers: NULL argument");
    pl__store_lock(st);
    sqlite3_stmt *q;
    pl_provider_info *arr = NULL;
    size_t count = 0, cap = 0;
    int s = pl__sql_prepare(st, "SELECT " PROVIDER_COLUMNS " FROM providers ORDER BY name COLLATE NOCASE", &q, err);
    if (!s) {
        int rc;
        while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
            if (count == cap) {
                size_t nc = cap ? cap * 2 : 16;
                pl_provider_info *bigger = realloc(arr, nc * sizeof *bigger);
                if (!bigger) {
                    s = pl__fail(err, PL_E_NOMEM, "out of memory");
                    break;
                }
                arr = bigger;
                cap = nc;
            }
            if ((s = row_to_info(st, q, &arr[count], err))) break;
            count++;
        }
        if (!s && rc != SQLITE_DONE) s = pl__sql_fail(st, err, rc, "read providers");
        sqlite3_finalize(q);
    }
    pl__store_unlock(st);
    if (s) {
        pl_provider_list_free(arr, count);
        return s;
    }
    if (!arr) arr = calloc(1, sizeof *arr); /* a valid pointer even for none */
    if (!arr) return pl__fail(err, PL_E_NOMEM, "out of memory");
    *list = arr;
    *n = count;
    return PL_OK;
}

/* Read one provider inside the caller's transaction/lock. PL_E_NOT_FOUND when
 * absent (err filled). */
int pl__provider_get(pl_store *st, const char *name, pl_provider_info *out, pl_error *err)
{
    sqlite3_stmt *q;
    int s = pl__sql_prepare(st, "SELECT " PROVIDER_COLUMNS " FROM providers WHERE name = ?1", &q, err);
    if (s) return s;
    sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) s = row_to_info(st, q, out, err);
    else if (rc == SQLITE_DONE) s = pl__fail(err, PL_E_NOT_FOUND, "%s: no provider '%s'", st->path, name);
    else s = pl__sql_fail(st, err, rc, "read provider");
    sqlite3_finalize(q);
    return s;
}

int pl__provider_check_name(const char *name, pl_error *err)
{
    if (!name || !name[0]) return pl__fail(err, PL_E_INVAL, "provider name is empty");
    if (strlen(name) > 256) return pl__fail(err, PL_E_INVAL, "provider name is longer than 256 bytes");
    if (!pl__utf8_valid(name)) return pl__fail(err, PL_E_ENCODING, "provider name is not valid UTF-8");
    for (const char *c = name; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == '\\')
            return pl__fail(err, PL_E_INVAL, "provider name '%s' contains a control character or '\\'", name);
    return PL_OK;
}

PL_EXTERN int pl_store_provider(pl_store *st, const char *name, pl_provider_info *out, pl_error *err)
{
    pl__clear(err);
    if (!st || !out) return pl__fail(err, PL_E_INVAL, "pl_store_provider: NULL argument");
    int s = pl__provider_check_name(name, err);
    if (s) return s;
    pl_provider_info tmp;
    pl__store_lock(st);
    s = pl__provider_get(st, name, &tmp, err);
    pl__store_unlock(st);
    if (!s) *out = tmp;
    return s;
}

static int check_text(const char *what, const char *s, pl_error *err)
{
    if (s && !pl__utf8_valid(s)) return pl__fail(err, PL_E_ENCODING, "provider %s is not valid UTF-8", what);
    return PL_OK;
}

PL_EXTERN int pl_store_set_provider(pl_store *st, const pl_provider_info *p, pl_error *err)
{
    pl__clear(err);
    if (!st || !p) return pl__fail(err, PL_E_INVAL, "pl_store_set_provider: NULL argument");
    int s = pl__provider_check_name(p->name, err);
    if (s || (s = check_text("library", p->library, err)) || (s = check_text("open", p->open, err)) ||
        (s = check_text("collect", p->collect, err)) || (s = check_text("close", p->close, err)) ||
        (s = check_text("linkage export", p->linkage_export, err)))
        return s;
    if (p->wraps && (s = pl__provider_check_name(p->wraps, err))) return s;
    if (p->wraps && pl__utf8_casecmp(p->wraps, p->name) == 0)
        return pl__fail(err, PL_E_INVAL, "provider '%s' cannot wrap itself", p->name);
    if (p->isolation != PL_ISOLATION_INPROC && p->isolation != PL_ISOLATION_HELPER)
        return pl__fail(err, PL_E_INVAL, "provider '%s': isolation %d is neither in-process (0) nor isolated (1)",
                        p->name, p->isolation);
    pl__store_lock(st);
    s = pl__tx_begin(st, 1, err);
    if (!s) {
        sqlite3_stmt *q;
        s = pl__sql_prepare(st,
                            "INSERT INTO providers(name, library, open_fn, collect_fn, close_fn, linkage_export,"
                            " open_timeout_ms, collect_timeout_ms, builtin, object_list, isolation, wraps)"
                            " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
                            " ON CONFLICT(name) DO UPDATE SET library = excluded.library,"
                            " open_fn = excluded.open_fn, collect_fn = excluded.collect_fn,"
                            " close_fn = excluded.close_fn, linkage_export = excluded.linkage_export,"
                            " open_timeout_ms = excluded.open_timeout_ms,"
                            " collect_timeout_ms = excluded.collect_timeout_ms,"
                            " isolation = excluded.isolation, wraps = excluded.wraps,"
                            " object_list = coalesce(excluded.object_list, object_list)",
                            &q, err);
        if (!s) {
            sqlite3_bind_text(q, 1, p->name, -1, SQLITE_STATIC);
            sqlite3_bind_text(q, 2, p->library, -1, SQLITE_STATIC);
            sqlite3_bind_text(q, 3, p->open, -1, SQLITE_STATIC);
            sqlite3_bind_text(q, 4, p->collect, -1, SQLITE_STATIC);
            sqlite3_bind_text(q, 5, p->close, -1, SQLITE_STATIC);
            sqlite3_bind_text(q, 6, p->linkage_export, -1, SQLITE_STATIC);
            sqlite3_bind_int64(q, 7, p->open_timeout_ms);
            sqlite3_bind_int64(q, 8, p->collect_timeout_ms);
            sqlite3_bind_int(q, 9, p->builtin ? 1 : 0);
            sqlite3_bind_text(q, 10, p->object_list, -1, SQLITE_STATIC);
            sqlite3_bind_int(q, 11, p->isolation);
            sqlite3_bind_text(q, 12, p->wraps, -1, SQLITE_STATIC);
            int rc = pl__sql_write(st, q);
            if (rc != SQLITE_DONE) s = pl__sql_fail(st, err, rc, "write provider");
            sqlite3_finalize(q);
        }
        if (!s) s = pl__tx_commit(st, err);
        else pl__tx_rollback(st);
    }
    pl__store_unlock(st);
    return s;
}

PL_EXTERN int pl_store_remove_provider(pl_store *st, const char *name, pl_error *err)
{
    pl__clear(err);
    if (!st) return pl__fail(err, PL_E_INVAL, "pl_store_remove_provider: NULL store");
    int s = pl__provider_check_name(name, err);
    if (s) return s;
    pl__store_lock(st);
    s = pl__tx_begin(st, 1, err);
    if (!s) {
        pl_provider_info cur;
        s = pl__provider_get(st, name, &cur, err);
        if (!s) {
            if (cur.first_counter || cur.last_counter || cur.first_help || cur.last_help)
                s = pl__fail(err, PL_E_EXISTS,
                             "%s: provider '%s' still has counters %u..%u installed; uninstall them first",
                             st->path, cur.name, cur.first_counter, cur.last_counter);
            pl_provider_info_clear(&cur);
        }
        if (!s) {
            sqlite3_stmt *q;
            s = pl__sql_prepare(st, "DELETE FROM providers WHERE name = ?1", &q, err);
            if (!s) {
                sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
                int rc = pl__sql_write(st, q);
                if (rc != SQLITE_DONE) s = pl__sql_fail(st, err, rc, "remove provider");
                sqlite3_finalize(q);
            }
        }
        if (!s) s = pl__tx_commit(st, err);
        else pl__tx_rollback(st);
    }
    pl__store_unlock(st);
    return s;
}

PL_EXTERN int pl_store_parse_publishers(const char *s, uint32_t *uids)
{
    int n = 0;
    if (!s) return 0;
    while (*s) {
        if (*s < '0' || *s > '9' || n >= PL_STORE_MAX_PUBLISHERS) return -1;
        uint64_t v = 0;
        for (; *s >= '0' && *s <= '9'; s++) {
            v = v * 10 + (uint64_t)(*s - '0');
            if (v >= UINT32_MAX) return -1;
        }
        if (*s == ',') {
            s++;
            if (!*s) return -1;
        } else if (*s) {
            return -1;
        }
        uids[n++] = (uint32_t)v;
    }
    return n;
}

PL_EXTERN int pl_store_set_app_owner(pl_store *st, const char *name, int64_t owner, const char *publishers,
                                     pl_error *err)
{
    pl__clear(err);
    if (!st) return pl__fail(err, PL_E_INVAL, "pl_store_set_app_owner: NULL store");
    int s = pl__provider_check_name(name, err);
    if (s) return s;
    if (owner < 0 || owner >= (int64_t)UINT32_MAX)
        return pl__fail(err, PL_E_INVAL, "provider '%s': owner %lld is not a user id", name, (long long)owner);
    uint32_t uids[PL_STORE_MAX_PUBLISHERS];
    if (pl_store_parse_publishers(publishers, uids) < 0)
        return pl__fail(err, PL_E_INVAL,
                        "provider '%s': publishers \"%.64s\" is not a list of up to %d user ids separated by commas",
                        name, publishers, PL_STORE_MAX_PUBLISHERS);
    pl__store_lock(st);
    s = pl__tx_begin(st, 1, err);
    if (!s) {
        sqlite3_stmt *q;
        s = pl__sql_prepare(st, "UPDATE providers SET app_owner = ?2, app_publishers = ?3 WHERE name = ?1", &q, err);
        if (!s) {
            sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
            sqlite3_bind_int64(q, 2, owner);
            if (publishers && publishers[0]) sqlite3_bind_text(q, 3, publishers, -1, SQLITE_STATIC);
            else sqlite3_bind_null(q, 3);
            int rc = sqlite3_step(q);
            if (rc != SQLITE_DONE) s = pl__sql_fail(st, err, rc, "update provider");
            else if (sqlite3_changes(st->db) == 0)
                s = pl__fail(err, PL_E_NOT_FOUND, "%s: no provider '%s'", st->path, name);
            sqlite3_finalize(q);
        }
        if (!s) s = pl__tx_commit(st, err);
        else pl__tx_rollback(st);
    }
    pl__store_unlock(st);
    return s;
}

static int set_disabled(pl_store *st, const char *name, int disabled, const char *reason, pl_error *err)
{
    int s = pl__provider_check_name(name, err);
    if (s || (s = check_text("disable reason", reason, err))) return s;
    pl__store_lock(st);
    s = pl__tx_begin(st, 1, err);
    if (!s) {
        sqlite3_stmt *q;
        s = pl__sql_prepare(st,
                            "UPDATE providers SET disabled = ?2, disable_reason = ?3, disable_time = ?4"
                            " WHERE name = ?1",
                            &q, err);
        if (!s) {
            sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
            sqlite3_bind_int(q, 2, disabled);
            if (disabled) {
                sqlite3_bind_text(q, 3, reason ? reason : "", -1, SQLITE_STATIC);
                sqlite3_bind_int64(q, 4, (sqlite3_int64)time(NULL));
            } else {
                sqlite3_bind_null(q, 3);
                sqlite3_bind_int64(q, 4, 0);
            }
            int rc = pl__sql_write(st, q);
            if (rc != SQLITE_DONE) s = pl__sql_fail(st, err, rc, "update provider");
            else if (sqlite3_changes(st->db) == 0)
                s = pl__fail(err, PL_E_NOT_FOUND, "%s: no provider '%s'", st->path, name);
            sqlite3_finalize(q);
        }
        if (!s) s = pl__tx_commit(st, err);
        else pl__tx_rollback(st);
    }
    pl__store_unlock(st);
    return s;
}

PL_EXTERN int pl_store_disable_provider(pl_store *st, const char *name, const char *reason, pl_error *err)
{
    pl__clear(err);
    if (!st) return pl__fail(err, PL_E_INVAL, "pl_store_disable_provider: NULL store");
    return set_disabled(st, name, 1, reason, err);
}

PL_EXTERN int pl_store_enable_provider(pl_store *st, const char *name, pl_error *err)
{
    pl__clear(err);
    if (!st) return pl__fail(err, PL_E_INVAL, "pl_store_enable_provider: NULL store");
    return set_disabled(st, name, 0, NULL, err);
}
