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
    const char *system_name;   /* NULL: the host name, upper-cased and cut to 15 characters like NetBIOS */
    int log_to_syslog;         /* 1: report provider misbehaviour to syslog; 0: do not.
                                  A NULL cfg logs; a zeroed cfg does not. */
} pl_engine_config;

/* Open an engine: opens the store and prepares (does not yet load) the
 * providers it lists. cfg may be NULL for all defaults. *out valid on PL_OK;
 * close with pl_engine_close(), which calls every opened provider's Close. An
 * engine may be used from many threads at once, but pl_engine_close() must
 * not run while any other call on the same engine is in progress (as with
 * free(): the caller joins its threads first); what the engine handed out
 * (pl_engine_titles, pl_engine_store) is invalid after it.
 * cfg->system_name must be valid UTF-8 (else PL_E_INVAL); it is used as
 * given, cut at a character boundary to 255 bytes. Without it the block
 * carries the host name up to the first dot, upper-cased and cut to 15
 * characters, as a NetBIOS computer name is. */
PL_EXTERN int pl_engine_open(const pl_engine_config *cfg, pl_engine **out, pl_error *err);
/* The status a process ends with when an in-process provider calls exit()
 * inside its Open, Collect or Close (70, EX_SOFTWARE): the provider is
 * disabled and one line on stderr says so (docs/provider-host.md, "A
 * provider that calls exit()"). */
#define PL_EXIT_PROVIDER_EXITED 70
PL_EXTERN void pl_engine_close(pl_engine *e);   /* accepts NULL */

/* Give back what the engine keeps between queries for speed: each
 * provider's answer buffer, as large as its last answer (half a megabyte
 * for Process with 1,000 processes). The next query allocates them again,
 * at the size they had. For a program that queries seldom, between its
 * queries (perfd after a second idle). Safe beside queries on other
 * threads: each provider is trimmed under the lock its calls take, and a
 * buffer a late call still writes into is kept. Accepts NULL. */
PL_EXTERN void pl_engine_trim(pl_engine *e);

/* Run a query into the caller's buffer. *needed is always set to the exact
 * size of the answer; when cap is smaller the call returns PL_E_MORE_DATA and
 * writes nothing, and the answer is kept for the calling thread: its very
 * next call on the engine, if it is pl_engine_query with the same query
 * string within
 * PL_ENGINE_RETRY_MS of the collection, returns that same answer (no second
 * collection, no guessing loop). Any other next call from that thread drops
 * it, so a kept answer is never served stale. Each thread has its own kept
 * answer; at most PL_ENGINE_RETRY_SLOTS are kept per engine (the oldest is
 * dropped first), which bounds the memory held for threads that never
 * retry. *type receives PL_REG_BINARY or PL_REG_MULTI_SZ (may be NULL).
 *
 * Title queries: a word starting with "counter" / "help" / "explain"
 * (case-insensitive), then optionally a hex language id in any width ("9",
 * "009", "0009" all mean "009"; 4 digits for full LANGIDs such as "0416"). */
#define PL_ENGINE_RETRY_SLOTS 16
#define PL_ENGINE_RETRY_MS 1000
PL_EXTERN int pl_engine_query(pl_engine *e, const char *query, void *buf, size_t cap, size_t *needed,
                              uint32_t *type, pl_error *err);
/* The same, allocating: *out (freed with pl_free) holds *len bytes. */
PL_EXTERN int pl_engine_query_alloc(pl_engine *e, const char *query, void **out, size_t *len, uint32_t *type,
                                    pl_error *err);

/* The engine's store (owned by the engine) and its title database in the
 * default language (loaded on first use, and again by the call after
 * another process changed the store's names, e.g. an application
 * registered after the engine opened; every table handed out is owned by
 * the engine and valid until pl_engine_close). */
PL_EXTERN pl_store *pl_engine_store(pl_engine *e);
PL_EXTERN const pl_titles *pl_engine_titles(pl_engine *e, pl_error *err);

/* This engine's computer name, as data blocks carry it (valid until
 * pl_engine_close). */
PL_EXTERN const char *pl_engine_system_name(pl_engine *e);

/* Is `query` a "Foreign <host[:port]> [query]" query? PL_OK with *foreign
 * 1 and the machine (as written) in target[cap], or *foreign 0 for any other
 * query; PL_E_PARSE when it is Foreign without a machine or with one longer
 * than 300 bytes; PL_E_RANGE when cap is too small. The engine parses the
 * same way, so a caller can vet the machine before the engine is asked. */
PL_EXTERN int pl_query_foreign_target(const char *query, char *target, size_t cap, int *foreign, pl_error *err);

typedef struct pl_remote pl_remote;
/* Make `r` (remote.h) the client this engine's Foreign queries use, in place
 * of the one it opens by itself on first use (the default configuration
 * search, the environment). The engine owns r from then on (closed with it).
 * For a daemon whose remote machines are its own configuration:
 * pl_remote_open_ex(file, PL_REMOTE_LISTED_ONLY | PL_REMOTE_NO_ENVIRONMENT).
 * Call before the first Foreign query; PL_E_INVAL when one already ran. */
PL_EXTERN int pl_engine_set_remote(pl_engine *e, pl_remote *r, pl_error *err);

/* What happened to each provider in the last queries: for tools and tests.
 * For an isolated provider, loaded/opened describe its helper process.
 * A call that passes its Open/Collect Timeout is late, not fatal: the
 * answer goes on without that provider's objects until the call returns,
 * and the provider is never disabled for it (docs/provider-host.md).
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
    uint64_t last_collect_ns;  /* how long its last Collect took (wrapper included), 0: not asked yet */
    int last_collect_ok;       /* that Collect's answer was kept (no error, no contract break) */
    int64_t last_error_unix_ms;/* when its error count last grew (Unix time in ms), 0: never */
    uint32_t objects[16];      /* the objects its answers have held so far (title indices, the first 16) */
    uint32_t nobjects;
    char note[256];            /* what the provider says of how it collects (provider.h, PL_NOTE_SUFFIX), or "" */
    uint64_t timeouts;         /* calls that passed their timeout (slow: never a reason to disable) */
    uint64_t late_ms;          /* a call past its timeout still runs: for this long (ms); 0 when none */
} pl_provider_status;
PL_EXTERN int pl_engine_provider_status(pl_engine *e, pl_provider_status **list, size_t *n);

#ifdef __cplusplus
}
#endif

#endif
