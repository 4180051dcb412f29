/* perflib: lodctr and unlodctr as a library (docs/lodctr.md).
 *
 * Three parts:
 *  - the .ini + symbol file parser: reads a provider's counter names and help
 *    texts the way Windows' lodctr does (and the real-world variants of those
 *    files: UTF-16, 8-bit, odd spacing, aliases, ...), checks them, and turns
 *    them into a pl_install_req for the registry store;
 *  - the `lodctr /s` / `lodctr /r` backup file (PerfStringBackup.INI) reader
 *    and writer;
 *  - loadperf-style whole-command-line entry points.
 *
 * Nothing here prints. Problems that refuse an install come back as a status
 * plus a pl_error message "file:line: problem"; entries that are skipped come
 * back as warnings (also "file:line: problem") inside the parsed set. */
#ifndef PERFLIB_LODCTR_H
#define PERFLIB_LODCTR_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "registry.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The highest symbol offset accepted (a larger one is PL_E_RANGE). */
#define PL_LODCTR_MAX_OFFSET 0x00FFFFFEu

/* One parsed .ini + symbol file pair, ready to install. Every field is
 * read-only for the caller; the whole set (strings, arrays) is one owner and
 * is freed with pl_lodctr_free(). */
typedef struct pl_lodctr_set {
    char *ini_path;            /* the .ini as given (or the name given to _mem) */
    char *symbol_path;         /* the symbol file actually read */
    char *provider;            /* [info] drivername= */
    char *library, *open, *collect, *close; /* [info] library= open= collect=
                                              close= (perflib's own keys), or NULL */
    char *wraps;               /* [info] wraps= (perflib's own key): the provider
                                  this one wraps, or NULL */
    int trusted;               /* [info] trusted= was present (informational) */
    pl_install_text *texts;    /* one per (offset, language); name and/or help,
                                  strings owned by the set; sorted by offset,
                                  then language */
    size_t ntexts;
    unsigned *text_lines;      /* .ini line of each texts[i] (first of its pair) */
    uint32_t *object_offsets;  /* [objects] symbols that have [text], ascending */
    size_t nobjects;
    uint32_t max_offset;       /* highest offset among texts and objects */
    char **languages;          /* languages used in [text] ("009", "00C"; always
                                  three upper-case hex digits), sorted */
    size_t nlanguages;
    char **warnings;           /* "file:line: problem", in the order found;
                                  pl_lodctr_install() appends its own */
    size_t nwarnings;
} pl_lodctr_set;

/* Options for parsing. Any field may be NULL/0. */
typedef struct pl_lodctr_parse_opts {
    /* Read this symbol file instead of the one [info] symbolfile= names
     * (symbolfile= is then optional). */
    const char *symbol_file;
} pl_lodctr_parse_opts;

/* Values that replace the .ini's [info] library=/open=/collect=/close= at
 * install time (the tool's --library/--open/--collect/--close). NULL fields
 * keep the .ini's value; when both are NULL the store keeps what it has.
 * isolation (the tool's --isolation) is a PL_INSTALL_ISOLATION_* value of
 * registry.h: 0 keeps an existing record's mode and isolates a new one. */
typedef struct pl_lodctr_overrides {
    const char *library, *open, *collect, *close;
    int isolation;
} pl_lodctr_overrides;

/* Parse `ini_path` and the symbol file it names (looked up in the .ini's
 * directory; when the exact name is missing, a case-insensitive match is
 * used). opts may be NULL.
 * Returns PL_OK and *out (free with pl_lodctr_free()), or an error with *out
 * left NULL and err->msg naming file and line:
 *   PL_E_IO       the .ini or the symbol file is missing or unreadable;
 *   PL_E_ENCODING a file is not decodable text (odd-sized UTF-16, NUL bytes);
 *   PL_E_PARSE    no drivername=, no symbolfile=, a used symbol defined twice
 *                 with different values or by an alias cycle, an [objects]
 *                 entry whose symbol has no offset, nothing to install;
 *   PL_E_INVAL    a used offset that is negative or odd, two used symbols with
 *                 the same offset;
 *   PL_E_RANGE    a used offset above PL_LODCTR_MAX_OFFSET;
 *   PL_E_NOMEM.
 * Skipped entries (a [text] symbol missing from the symbol file, a line
 * without '=', a malformed key, an [objects] symbol without text, duplicate
 * keys, empty values) become warnings in (*out)->warnings. */
PL_EXTERN int pl_lodctr_parse(const char *ini_path, pl_lodctr_set **out, pl_error *err);
PL_EXTERN int pl_lodctr_parse_ex(const char *ini_path, const pl_lodctr_parse_opts *opts, pl_lodctr_set **out,
                                 pl_error *err);

/* The same parser on in-memory files (any of the accepted encodings).
 * ini_name and sym_name are used in messages only (NULL: "ini" / "symbols");
 * the .ini's symbolfile= is not opened. Same results as pl_lodctr_parse(). */
PL_EXTERN int pl_lodctr_parse_mem(const void *ini, size_t ini_len, const char *ini_name, const void *sym,
                                  size_t sym_len, const char *sym_name, pl_lodctr_set **out, pl_error *err);

/* Free a set and everything in it. Accepts NULL. */
PL_EXTERN void pl_lodctr_free(pl_lodctr_set *set);

/* Install a parsed set into the store in one transaction
 * (pl_store_install). Texts in languages the store does not have are
 * skipped, each such language adding one warning to set->warnings. ov may be
 * NULL. On PL_OK *res (may be NULL) holds the provider's new ranges. Errors:
 * PL_E_EXISTS when the provider already has counters installed, PL_E_PARSE
 * when no text is left in any language of the store, PL_E_INVAL, PL_E_NOMEM,
 * or the store's error; on any error the store is unchanged. */
PL_EXTERN int pl_lodctr_install(pl_store *st, pl_lodctr_set *set, const pl_lodctr_overrides *ov,
                                pl_install_result *res, pl_error *err);

/* unlodctr: remove the provider's names and help texts from every language
 * and clear its ranges (pl_store_uninstall), then remove the provider record
 * itself when it has no Library (a record lodctr created), so a lodctr +
 * unlodctr pair leaves the store as it was. A record with a Library (written
 * by an installer) stays, as on Windows. Errors: PL_E_NOT_FOUND (unknown
 * provider, or nothing installed), PL_E_INVAL (a built-in provider), the
 * store's errors. */
PL_EXTERN int pl_lodctr_uninstall(pl_store *st, const char *provider, pl_error *err);

/* loadperf's LoadPerfCounterTextStrings / UnloadPerfCounterTextStrings: the
 * argument is a whole command line whose last token (double quotes group) is
 * the .ini file, respectively the provider name. Warnings are dropped.
 * Same statuses as pl_lodctr_parse/pl_lodctr_install, respectively
 * pl_lodctr_uninstall (PL_E_NOT_FOUND for an unknown provider); PL_E_INVAL for
 * an empty command line. */
PL_EXTERN int pl_load_counter_strings(pl_store *st, const char *cmdline, pl_error *err);
PL_EXTERN int pl_unload_counter_strings(pl_store *st, const char *cmdline, pl_error *err);

/* ------------------------------------------------------------ backups */

/* Read a `lodctr /s` backup: UTF-16LE with or without BOM, UTF-8, or 8-bit
 * Windows-1252; [Perflib] (Base Index, Last Counter, Last Help),
 * [PERF_<provider>] (First/Last Counter/Help; other keys ignored) and
 * [PerfStrings_<lang>] (index=text; index 1 and even indices are Counter
 * names, odd indices Help texts). When the file uses CRLF, only CRLF ends a
 * line: a bare LF inside a help text (real Windows backups have them) is
 * part of the text. Strings come back as UTF-8, sorted by
 * index. Returns PL_OK and *out (free with pl_backup_free()), or PL_E_IO,
 * PL_E_ENCODING (truncated UTF-16, NUL bytes), PL_E_PARSE (a line without
 * '=', a bad or repeated index, a missing [Perflib] value, a bad language),
 * PL_E_NOMEM; *out is NULL on error and err->msg names file and line. */
PL_EXTERN int pl_backup_read_file(const char *path, pl_backup **out, pl_error *err);
PL_EXTERN int pl_backup_read_mem(const void *data, size_t len, const char *name, pl_backup **out, pl_error *err);

/* Write `bk` in the layout Windows writes: UTF-16LE without BOM, CRLF,
 * a blank line before every section (so the file starts with two empty
 * lines), no newline after the last line; [Perflib], then [PERF_<name>] for
 * every provider with a range (sorted case-insensitively), then
 * [PerfStrings_<lang>] per language with names and help merged by index.
 * The file is written to a temporary name and renamed, so on error `path` is
 * unchanged. Errors: PL_E_RANGE when the backup cannot be represented (a name
 * at an odd index other than 1, a help text at an even index, a CRLF inside
 * a string, a bad language), PL_E_ENCODING (invalid UTF-8),
 * PL_E_IO, PL_E_NOMEM. pl_backup_write_mem() returns the bytes instead
 * (*data freed with pl_free()). */
PL_EXTERN int pl_backup_write_file(const pl_backup *bk, const char *path, pl_error *err);
PL_EXTERN int pl_backup_write_mem(const pl_backup *bk, void **data, size_t *len, pl_error *err);

#ifdef __cplusplus
}
#endif

#endif
