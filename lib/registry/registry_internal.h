/* Private to lib/registry: the store handle and helpers shared by its files. */
#ifndef PL_REGISTRY_INTERNAL_H
#define PL_REGISTRY_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>

#include "perflib/registry.h"
#include "pl_internal.h"

#define PL__LANG_MAX 7              /* "009", "00C", ... at most 7 characters */
#define PL__INDEX_MAX 0x7FFFFFFFu   /* highest title index the store accepts */

struct pl_store {
    sqlite3 *db;
    char *path;
    int readonly;
    int version;                    /* PRAGMA user_version after open */
    pthread_mutex_t mu;             /* one public call at a time per handle */
    uint32_t busy_ms;               /* the bound on waiting for a lock (PL__STORE_BUSY_MS or the environment's) */
    int opening;                    /* inside pl_store_open: one deadline for all of it */
    int64_t deadline;               /* CLOCK_MONOTONIC ms at which a lock wait gives up */
    char deflang[PL__LANG_MAX + 1]; /* pl_store_default_language() result */
};

/* One row of the base English title database (base_titles.c). */
typedef struct pl__base_title {
    uint32_t index;
    const char *name;               /* NULL: no name at this index */
    const char *help;               /* NULL: no help at index + 1 */
} pl__base_title;

extern const pl__base_title pl__base_titles[];
extern const size_t pl__base_titles_count;

/* How long any wait for the store's lock may last: all of pl_store_open
 * together, and each statement after it (docs/registry-store.md). The
 * environment's PERFLIB_STORE_TIMEOUT_MS (1..600000) overrides it. */
#define PL__STORE_BUSY_MS 10000u

/* Fill *err from an SQLite result code (PL_E_BUSY for lock timeouts, else
 * PL_E_STORE) and return the status. */
int pl__sql_fail(pl_store *st, pl_error *err, int rc, const char *what);
/* Run SQL without results. */
int pl__sql_exec(pl_store *st, const char *sql, pl_error *err);
/* Prepare a statement (PL_OK or a filled error). */
int pl__sql_prepare(pl_store *st, const char *sql, sqlite3_stmt **out, pl_error *err);
/* Transactions: BEGIN IMMEDIATE for writers, BEGIN (deferred) for readers. */
int pl__tx_begin(pl_store *st, int immediate, pl_error *err);
int pl__tx_commit(pl_store *st, pl_error *err);
void pl__tx_rollback(pl_store *st);
/* Lock/unlock the handle's mutex. */
void pl__store_lock(pl_store *st);
void pl__store_unlock(pl_store *st);

/* Normalise a language id: 1 to 7 hex digits, written back as the value in
 * upper-case hex with at least three digits ("9", "09", "0009" -> "009";
 * "00c" -> "00C"; "abc" -> "ABC"), so one language has one spelling.
 * Returns 0 on success, -1 when invalid. */
int pl__lang_norm(const char *lang, char out[PL__LANG_MAX + 1]);
/* 1 when s is valid UTF-8. */
int pl__utf8_valid(const char *s);
/* Read a meta value; *out = 0 when absent. */
int pl__meta_get(pl_store *st, const char *key, uint32_t *out, pl_error *err);
int pl__meta_set(pl_store *st, const char *key, uint32_t v, pl_error *err);
/* 1 when the language exists, 0 when not, <0 a pl_status negated. */
int pl__lang_exists(pl_store *st, const char *lang, pl_error *err);

/* Read one provider inside the caller's lock/transaction; PL_E_NOT_FOUND
 * (with a message) when absent. Clear *out with pl_provider_info_clear(). */
int pl__provider_get(pl_store *st, const char *name, pl_provider_info *out, pl_error *err);
/* Check a provider (service) name: non-empty, at most 256 bytes, UTF-8, no
 * control characters or backslashes. */
int pl__provider_check_name(const char *name, pl_error *err);

/* sqlite3_step of a statement that changes the store, and sqlite3_exec of
 * SQL that does: each passes a fault point first (below). Same results as
 * sqlite3_step / pl__sql_exec. */
int pl__sql_write(pl_store *st, sqlite3_stmt *q);
int pl__sql_exec_write(pl_store *st, const char *sql, pl_error *err);

/* Fault points, in the manner of PCP's PM_FAULT_POINT: every write above
 * and every COMMIT passes one. Only in pl_registry_faults, the static
 * library compiled with PL_FAULT_POINTS for tests/registry (never in
 * libperflib): pl__fault_arm(n) makes the n-th point passed from then on
 * fail as an I/O error (SQLITE_IOERR) would, so a test can fail each write
 * of a transaction in turn and check that nothing of it stays. */
#ifdef PL_FAULT_POINTS
void pl__fault_arm(unsigned long n); /* 0: no fault */
unsigned long pl__fault_passed(void); /* points passed since the last arm */
int pl__fault_point(void);            /* 1: fail here */
#define PL__FAULT_POINT() pl__fault_point()
#else
#define PL__FAULT_POINT() 0
#endif

/* Tests only (tests/registry): when set, called inside the write transaction
 * of pl_store_install ("install") and pl_store_restore ("restore") after
 * every change is written and before the commit, so a test can kill the
 * process there. NULL in normal use. */
extern void (*pl__registry_test_hook)(const char *where);

/* The default language ("009" unless PERFLIB_LANG names one the store has),
 * copied into out: safe to call from any thread. */
void pl__store_default_language(pl_store *st, char out[PL__LANG_MAX + 1]);

#endif
