/* perflib: the query engine — HKEY_PERFORMANCE_DATA for Linux.
 *
 * One call runs a query string and returns the complete answer:
 *   "Global", "" or NULL      every object that is not costly
 *   "Costly"                  the costly objects
 *   "230 232"                 those objects plus the parents they need
 *   "Counter 009"/"Counter"   the names of the title database (MULTI_SZ)
 *   "Explain 009"/"Help 009"  the help texts (MULTI_SZ)
 *   anything else             a valid block with no objects
 * Data queries return a PERF_DATA_BLOCK (REG_BINARY); title queries a UTF-16LE
 * MULTI_SZ (REG_MULTI_SZ). See docs/query-engine.md. */
#ifndef PERFLIB_QUERY_H
#define PERFLIB_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "registry.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PL_REG_BINARY 3u
#define PL_REG_MULTI_SZ 7u

typedef struct pl_engine pl_engine;

typedef struct pl_engine_config {
    const char *store_path;    /* NULL: the default store (see registry.h) */
    const char *provider_dir;  /* NULL: $PERFLIB_PROVIDER_DIR, else the built-in directory */
    const char *system_name;   /* NULL: the host name, upper-cased like NetBIOS */
    int log_to_syslog;         /* report provider misbehaviour to syslog (default on: 1) */
} pl_engine_config;

/* Open an engine: opens the store and prepares (does not yet load) the
 * providers it lists. cfg may be NULL for all defaults. *out valid on PL_OK;
 * close with pl_engine_close(), which calls every opened provider's Close. An
 * engine may be used from many threads at once. */
PL_EXTERN int pl_engine_open(const pl_engine_config *cfg, pl_engine **out, pl_error *err);
PL_EXTERN void pl_engine_close(pl_engine *e);   /* accepts NULL */

/* Run a query into the caller's buffer. *needed is always set to the exact
 * size of the answer; when cap is smaller the call returns PL_E_MORE_DATA and
 * writes nothing (the answer is kept so an immediate retry with a buffer of
 * *needed bytes returns that same answer). *type receives PL_REG_BINARY or
 * PL_REG_MULTI_SZ (may be NULL). */
PL_EXTERN int pl_engine_query(pl_engine *e, const char *query, void *buf, size_t cap, size_t *needed,
                              uint32_t *type, pl_error *err);
/* The same, allocating: *out (freed with pl_free) holds *len bytes. */
PL_EXTERN int pl_engine_query_alloc(pl_engine *e, const char *query, void **out, size_t *len, uint32_t *type,
                                    pl_error *err);

/* The engine's store (owned by the engine) and its title database in the
 * default language (loaded on first use; owned by the engine, valid until
 * pl_engine_close). */
PL_EXTERN pl_store *pl_engine_store(pl_engine *e);
PL_EXTERN const pl_titles *pl_engine_titles(pl_engine *e, pl_error *err);

/* What happened to each provider in the last queries: for tools and tests.
 * For an isolated provider, loaded/opened describe its helper process.
 * Open/Collect Timeouts are enforced for isolated providers only: an
 * in-process call cannot be interrupted safely (docs/provider-host.md).
 * *list (one allocation, free with pl_free) holds *n entries. */
typedef struct pl_provider_status {
    char name[128];
    int loaded;                /* dlopen'd and entry points resolved */
    int opened;                /* Open returned 0 */
    int disabled;              /* disabled in the store (by us or an administrator) */
    uint64_t collects;         /* Collect calls that succeeded */
    uint64_t errors;           /* Open/Collect errors, timeouts, crashes and contract breaks seen */
    char last_error[256];      /* the last problem, or "" */
    int isolation;             /* PL_ISOLATION_INPROC or PL_ISOLATION_HELPER (registry.h) */
    int helper_pid;            /* isolated: the helper process running now, else 0 */
} pl_provider_status;
PL_EXTERN int pl_engine_provider_status(pl_engine *e, pl_provider_status **list, size_t *n);

#ifdef __cplusplus
}
#endif

#endif
