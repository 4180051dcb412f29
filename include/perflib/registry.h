/* perflib: the registry store (docs/registry-store.md).
 *
 * One SQLite database file holds what Windows keeps under Perflib (per
 * language the Counter and Help strings; Last Counter, Last Help, Base Index)
 * and under Services\<name>\Performance (one record per provider). Several
 * processes may use one store at once; every change is one transaction.
 *
 * Location, first match wins: the path given to pl_store_open(); the
 * environment variable PERFLIB_REGISTRY; the installed store
 * /var/lib/perflib/perflib.db when it exists; the embedded default in the
 * build tree (created on first use, no root needed). */
#ifndef PERFLIB_REGISTRY_H
#define PERFLIB_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pl_store pl_store;

#define PL_STORE_READONLY 1   /* open for reading only; never creates or migrates */

/* Open (creating, seeding and migrating as needed) the store at `path`, or at
 * the default location when path is NULL (missing parent directories of a
 * default location are created). *out is valid only on PL_OK; close it with
 * pl_store_close(). Returns PL_E_NOT_FOUND for a read-only open of a missing
 * file, PL_E_SCHEMA for a store newer than this library, for an old store
 * opened read-only (open it for writing once to migrate) and for an SQLite
 * file that is not a perflib store, PL_E_IO/PL_E_STORE when SQLite cannot
 * use the file, PL_E_BUSY when another process held the lock for ~10 s.
 * A handle may be used from several threads (calls are serialised); do not
 * use one across fork(). */
PL_EXTERN int pl_store_open(const char *path, int flags, pl_store **out, pl_error *err);
PL_EXTERN void pl_store_close(pl_store *st);          /* accepts NULL */
/* The path the store was opened at. Valid until pl_store_close(). */
PL_EXTERN const char *pl_store_path(const pl_store *st);
/* The path pl_store_open(NULL, ...) would use, written to out (snprintf rules:
 * at most cap-1 bytes plus a NUL; returns the full length). */
PL_EXTERN int pl_store_default_path(char *out, size_t cap);
/* The store's schema version, and the one this library writes. */
PL_EXTERN int pl_store_schema_version(const pl_store *st);
/* A number that changes whenever another handle or process has committed a
 * change to the store since this handle's last call (SQLite's PRAGMA
 * data_version): compare two calls to know whether anything read from the
 * store (titles, provider records) may be stale. This handle's own writes
 * do not change it. */
PL_EXTERN int pl_store_data_version(pl_store *st, int64_t *out, pl_error *err);
#define PL_STORE_SCHEMA_VERSION 4

/* ------------------------------------------------------------ Perflib key */

typedef struct pl_perflib_info {
    uint32_t last_counter;
    uint32_t last_help;
    uint32_t base_index;      /* 1847 */
} pl_perflib_info;
PL_EXTERN int pl_store_perflib(pl_store *st, pl_perflib_info *out, pl_error *err);

/* The store's languages ("009", "007", ...), sorted; *langs is one allocation
 * freed with pl_free(). */
PL_EXTERN int pl_store_languages(pl_store *st, char ***langs, size_t *n, pl_error *err);
/* Add an empty language (its names fall back to English when read). Language
 * ids are 1 to 7 hex digits; every function taking one reads it as a number
 * and stores it in upper-case hex with at least three digits ("9", "09",
 * "0009" -> "009", "00c" -> "00C", "abc" -> "ABC"), as lodctr and the backup
 * reader do; PL_E_INVAL for a bad id, PL_E_EXISTS when present. */
PL_EXTERN int pl_store_add_language(pl_store *st, const char *lang, pl_error *err);
/* The default language: "009" unless PERFLIB_LANG names one the store has.
 * Valid until the next call on st or pl_store_close(). */
PL_EXTERN const char *pl_store_default_language(pl_store *st);

/* --------------------------------------------------------- title database */

/* An immutable in-memory copy of one language's names and help texts, fast to
 * search. Load it once, use it from any thread, free it with pl_titles_free(). */
typedef struct pl_titles pl_titles;

#define PL_TITLE_NAME 0       /* the "Counter" strings */
#define PL_TITLE_HELP 1       /* the "Help"/"Explain" strings */

/* lang NULL means the default language. A language the store does not have is
 * PL_E_NOT_FOUND. */
PL_EXTERN int pl_titles_load(pl_store *st, const char *lang, pl_titles **out, pl_error *err);
PL_EXTERN void pl_titles_free(pl_titles *t);
PL_EXTERN const char *pl_titles_language(const pl_titles *t);
/* Name or help of an index, or NULL. Valid until pl_titles_free(). */
PL_EXTERN const char *pl_titles_get(const pl_titles *t, int kind, uint32_t index);
/* The lowest index whose name equals `name` (case-insensitive), or 0. */
PL_EXTERN uint32_t pl_titles_find(const pl_titles *t, int kind, const char *name);
/* Every index with that name, ascending; returns the count, writes at most cap. */
PL_EXTERN size_t pl_titles_find_all(const pl_titles *t, int kind, const char *name, uint32_t *out, size_t cap);
/* Iterate: the i-th (0-based) entry in index order; PL_E_NOT_FOUND past the end. */
PL_EXTERN size_t pl_titles_count(const pl_titles *t, int kind);
PL_EXTERN int pl_titles_entry(const pl_titles *t, int kind, size_t i, uint32_t *index, const char **text);
PL_EXTERN uint32_t pl_titles_last_counter(const pl_titles *t);
PL_EXTERN uint32_t pl_titles_last_help(const pl_titles *t);

/* The title database as Windows returns it for "Counter NNN"/"Explain NNN":
 * a MULTI_SZ "index\0text\0...\0\0". For names it starts with "1","1847" and
 * holds "1846" -> "End Marker" (help: "1847" -> "End Marker") exactly as
 * stored. PL_MULTISZ_UTF16 writes UTF-16LE, else UTF-8. Size contract: *needed
 * is always set to the full size in bytes, final NUL included (an empty table
 * is one NUL unit); PL_E_MORE_DATA when buf is NULL or cap is smaller
 * (nothing written). buf needs no alignment. PL_E_INVAL for a bad kind/flags
 * or needed NULL. */
#define PL_MULTISZ_UTF16 1
PL_EXTERN int pl_titles_export_multisz(const pl_titles *t, int kind, int flags, void *buf, size_t cap,
                                       size_t *needed);

/* The reverse: a title database built from two UTF-8 MULTI_SZ lists as
 * pl_titles_export_multisz writes them (names, help; either may be empty),
 * e.g. the copy a counter log carries. The input is checked as hostile:
 * PL_E_PARSE for a bad index or an unterminated entry, PL_E_ENCODING for
 * text that is not UTF-8, PL_E_INVAL for a bad language id (NULL means
 * "009"). A repeated index keeps the later text. Last Counter/Help are the
 * highest indices present. Free with pl_titles_free(). */
PL_EXTERN int pl_titles_from_multisz(const char *lang, const void *names, size_t names_len, const void *help,
                                     size_t help_len, pl_titles **out, pl_error *err);

/* Set or remove single entries (used by tools and tests); each is one
 * transaction. text NULL removes. Last Counter/Help are not changed.
 * PL_E_NOT_FOUND when the language is missing, PL_E_RANGE for an index
 * outside 1..0x7FFFFFFF, PL_E_ENCODING for text that is not UTF-8. */
PL_EXTERN int pl_store_set_title(pl_store *st, const char *lang, int kind, uint32_t index, const char *text,
                                 pl_error *err);

/* -------------------------------------------------------------- providers */

typedef struct pl_provider_info {
    char *name;               /* the service name (case-insensitive key) */
    char *library;            /* path of the .so; relative paths resolve against
                                 the built-in provider directory */
    char *open, *collect, *close; /* exported entry-point names */
    char *object_list;        /* "230 232" or NULL */
    char *linkage_export;     /* Linkage\Export, passed to Open, or NULL */
    uint32_t first_counter, last_counter, first_help, last_help; /* 0: none */
    int disabled;             /* Disable Performance Counters */
    char *disable_reason;     /* why, or NULL */
    int64_t disable_time;     /* Unix seconds, 0 when enabled */
    uint32_t open_timeout_ms, collect_timeout_ms; /* 0: the host's default; enforced
                                 only for isolated providers */
    int builtin;              /* shipped with perflib */
    int isolation;            /* PL_ISOLATION_INPROC or PL_ISOLATION_HELPER */
    char *wraps;              /* the provider this one wraps (docs/provider-host.md,
                                 "Providers that wrap providers"), or NULL */
    int64_t app_owner;        /* an application's record (docs/app-counters.md):
                                 the user id that registered it; -1 when none is
                                 recorded (the store file's owner stands in) */
    char *app_publishers;     /* the other user ids whose processes may publish
                                 it, "1001,1002", or NULL */
} pl_provider_info;

/* How the host runs a provider (docs/provider-host.md). Built-in providers
 * are in-process; providers installed by lodctr are isolated by default. */
#define PL_ISOLATION_INPROC 0 /* dlopen'd into the consumer's process */
#define PL_ISOLATION_HELPER 1 /* in its own helper process (perflib-provider-host) */

/* Free the strings inside one record (not the record). Accepts NULL. */
PL_EXTERN void pl_provider_info_clear(pl_provider_info *p);
/* All providers, sorted by name; free with pl_provider_list_free(). */
PL_EXTERN int pl_store_providers(pl_store *st, pl_provider_info **list, size_t *n, pl_error *err);
PL_EXTERN void pl_provider_list_free(pl_provider_info *list, size_t n);
/* One provider by name (case-insensitive); PL_E_NOT_FOUND if absent. Clear
 * *out with pl_provider_info_clear(). */
PL_EXTERN int pl_store_provider(pl_store *st, const char *name, pl_provider_info *out, pl_error *err);
/* Create or update a provider's Library/Open/Collect/Close, Linkage export,
 * timeouts and isolation (what an installer writes), and its Object List when
 * p->object_list is not NULL (what an administrator may set by hand).
 * Counter ranges and the disabled state are left as they are. PL_E_INVAL for
 * an isolation other than PL_ISOLATION_INPROC/PL_ISOLATION_HELPER. */
PL_EXTERN int pl_store_set_provider(pl_store *st, const pl_provider_info *p, pl_error *err);
/* Remove a provider record that has no counters installed (PL_E_EXISTS if it
 * has, PL_E_NOT_FOUND if absent). Provider names: 1..256 bytes of UTF-8, no
 * control characters or backslashes; compared ASCII-case-insensitively. */
PL_EXTERN int pl_store_remove_provider(pl_store *st, const char *name, pl_error *err);
/* Set an application record's owner (a user id, 0..4294967294) and the
 * other users whose processes may publish its counters (publishers: NULL or
 * "" for none, else up to PL_STORE_MAX_PUBLISHERS decimal user ids
 * separated by commas). The caller (lib/app) decides who may; this writes.
 * PL_E_NOT_FOUND when absent, PL_E_INVAL for a bad owner or list. */
#define PL_STORE_MAX_PUBLISHERS 64
PL_EXTERN int pl_store_set_app_owner(pl_store *st, const char *name, int64_t owner, const char *publishers,
                                     pl_error *err);
/* Parse a publishers list as pl_store_set_app_owner accepts it into uids
 * (room for PL_STORE_MAX_PUBLISHERS); returns the count, -1 when malformed. */
PL_EXTERN int pl_store_parse_publishers(const char *s, uint32_t *uids);

/* Disable (with a reason; the time is now) or enable a provider. */
PL_EXTERN int pl_store_disable_provider(pl_store *st, const char *name, const char *reason, pl_error *err);
PL_EXTERN int pl_store_enable_provider(pl_store *st, const char *name, pl_error *err);

/* ------------------------------------------------ counter installation */

/* What lodctr installs for one provider, already parsed and checked. Offsets
 * are the even symbol offsets of the .h file. */
typedef struct pl_install_text {
    uint32_t offset;          /* even, >= 0 */
    const char *lang;         /* "009", ... */
    const char *name;         /* may be NULL when only help is given */
    const char *help;         /* may be NULL */
} pl_install_text;

typedef struct pl_install_req {
    const char *provider;     /* drivername */
    const char *library, *open, *collect, *close; /* NULL: keep what is stored */
    uint32_t max_offset;      /* highest symbol offset used */
    const pl_install_text *texts;
    size_t ntexts;
    const uint32_t *object_offsets; /* [objects] symbols -> Object List */
    size_t nobjects;
    int isolation;            /* PL_INSTALL_ISOLATION_*: 0 keeps an existing
                                 record's mode and makes a new record isolated */
    const char *wraps;        /* the provider it wraps; NULL: keep what is stored */
} pl_install_req;

#define PL_INSTALL_ISOLATION_DEFAULT 0
#define PL_INSTALL_ISOLATION_INPROC 1  /* set PL_ISOLATION_INPROC */
#define PL_INSTALL_ISOLATION_HELPER 2  /* set PL_ISOLATION_HELPER */

typedef struct pl_install_result {
    uint32_t first_counter, last_counter, first_help, last_help;
} pl_install_result;

/* Install a provider's names in one transaction: First Counter = Last
 * Counter + 2, First Help = Last Help + 2 (when Last Counter is odd or Last
 * Help even, as a restored store may have them, the next even respectively
 * odd index instead: names always sit at even indices, help at odd ones);
 * name index = First Counter +
 * offset, help index = First Help + offset; every language the store has gets
 * the request's text in that language, else its "009" text; Perflib Last
 * Counter/Help and the provider's First/Last Counter/Help and Object List are
 * updated. PL_E_EXISTS if the provider already has counters installed. On any
 * error nothing is changed. A provider record that does not exist yet is
 * created (library etc. from the request, NULL if not given; isolated unless
 * req->isolation says in-process). Languages of
 * the request that the store lacks are ignored. Refused with PL_E_INVAL: odd
 * offsets (texts, objects or max_offset), an offset above max_offset, two
 * texts for one (offset, language), a bad language id, indices that would
 * pass 0x7FFFFFFF, an unknown isolation value; PL_E_ENCODING for text that is not UTF-8; PL_E_EXISTS when
 * titles already occupy the new range (a damaged store). res may be NULL. */
PL_EXTERN int pl_store_install(pl_store *st, const pl_install_req *req, pl_install_result *res, pl_error *err);
/* Remove exactly that provider's indices (names and help in every language;
 * an index that another provider's range also covers is kept) and clear its
 * ranges and Object List, in one transaction. Last Counter/Help
 * go back down when the provider held the top of the range (to the highest
 * index still used by a title or another provider), so install followed by
 * uninstall leaves the store as it was. The provider record itself stays.
 * PL_E_NOT_FOUND if the provider is absent or has no counters; PL_E_INVAL
 * for a built-in provider. */
PL_EXTERN int pl_store_uninstall(pl_store *st, const char *provider, pl_error *err);

/* ----------------------------------------------------- whole-store access */

/* The whole title database and every provider's ranges, as a `lodctr /s`
 * backup holds them. Strings are UTF-8. */
typedef struct pl_backup_string {
    uint32_t index;
    char *text;
} pl_backup_string;

typedef struct pl_backup_lang {
    char lang[8];             /* "009" */
    pl_backup_string *names;  /* ascending index */
    size_t nnames;
    pl_backup_string *helps;  /* ascending index */
    size_t nhelps;
} pl_backup_lang;

typedef struct pl_backup_provider {
    char *name;
    uint32_t first_counter, first_help, last_counter, last_help;
} pl_backup_provider;

typedef struct pl_backup {
    uint32_t base_index, last_counter, last_help;
    pl_backup_lang *langs;
    size_t nlangs;
    pl_backup_provider *providers;
    size_t nproviders;
} pl_backup;

/* Free a backup and everything in it. Accepts NULL. */
PL_EXTERN void pl_backup_free(pl_backup *bk);
/* Replace the whole title database (every language in the backup; languages
 * not in it are removed) and set Last Counter/Help and the providers' ranges
 * from it, in one transaction (lodctr /r). Providers named in the backup that
 * the store lacks are created with ranges only (no library: the host skips
 * them); providers the backup does not name get their ranges cleared. Object
 * Lists are not part of a backup and are left as they are. Last Counter/Help
 * become the backup's values raised, when needed, to the highest restored
 * title and provider range, so the next install never gets an index in
 * use. Indices must ascend strictly
 * within each table. On any error nothing is changed. */
PL_EXTERN int pl_store_restore(pl_store *st, const pl_backup *bk, pl_error *err);
/* Read the whole title database and the ranges of every provider that has
 * any (lodctr /s), languages and providers sorted by name. Free with
 * pl_backup_free(). */
PL_EXTERN int pl_store_snapshot(pl_store *st, pl_backup **out, pl_error *err);

#ifdef __cplusplus
}
#endif

#endif
