/* This file is private to libperflib: no API/ABI guarantee. Cross-file
 * internals carry the pl__ prefix; everything else in lib/ is static. */
#ifndef PL_INTERNAL_H
#define PL_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "perflib/export.h"
#include "perflib/status.h"
#include "pl_buf.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "perflib writes the little-endian wire format natively; port the accessors first"
#endif

#if defined(__GNUC__) || defined(__clang__)
#define PL__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PL__PRINTF(a, b)
#endif

/* Fill *err (if not NULL) and return `status`. */
int pl__fail(pl_error *err, int status, const char *fmt, ...) PL__PRINTF(3, 4);
void pl__clear(pl_error *err);

/* Unaligned little-endian access. */
static inline uint16_t pl__rd16(const void *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t pl__rd32(const void *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t pl__rd64(const void *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline void pl__wr16(void *p, uint16_t v) { memcpy(p, &v, 2); }
static inline void pl__wr32(void *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void pl__wr64(void *p, uint64_t v) { memcpy(p, &v, 8); }

static inline size_t pl__align8(size_t n) { return (n + 7u) & ~(size_t)7u; }

/* UTF-8 -> UTF-16LE. Converts `len` bytes of `s` (no NUL needed). Writes at
 * most `cap` code units to `out` (may be NULL when cap is 0) and always sets
 * *units to the number of code units the whole string needs (without a NUL).
 * Returns PL_OK, PL_E_MORE_DATA when cap is too small (nothing is promised
 * about `out` then), or PL_E_ENCODING for invalid UTF-8 (overlong forms,
 * surrogates, code points above U+10FFFF, truncated sequences). */
int pl__utf8_to_utf16(const char *s, size_t len, uint16_t *out, size_t cap, size_t *units);

/* UTF-16LE -> UTF-8. Reads `n` code units from `src` (any alignment,
 * little-endian bytes); stops early at a NUL unit. Writes at most cap-1 bytes
 * plus a NUL to `out` (cap may be 0 with out NULL) and sets *bytes to the
 * length the whole string needs without the NUL. An unpaired surrogate is
 * written as U+FFFD when `lenient`, otherwise it is PL_E_ENCODING.
 * Returns PL_OK, PL_E_MORE_DATA or PL_E_ENCODING. */
int pl__utf16_to_utf8(const void *src, size_t n, char *out, size_t cap, size_t *bytes, int lenient);

/* Write code point cp (<= U+10FFFF) as UTF-8 into b (room for 4 bytes);
 * returns the bytes written. */
size_t pl__utf8_encode(uint32_t cp, char *b);

/* Allocating forms; the result is NUL-terminated and freed with free(). */
int pl__utf8_to_utf16_dup(const char *s, uint16_t **out, size_t *units);
int pl__utf16_to_utf8_dup(const void *src, size_t n, char **out, int lenient);

/* Case-insensitive compare of two UTF-8 strings: ASCII letters fold, and so do
 * Latin-1 Supplement, Latin Extended-A, Greek and Cyrillic letters. */
int pl__utf8_casecmp(const char *a, const char *b);
/* Does s match pattern, where '*' stands for any run of characters (none
 * included) and everything else compares as pl__utf8_casecmp does? 1 or 0. */
int pl__utf8_casematch(const char *pattern, const char *s);

/* Thread-safe description of an errno value (strerror is not); returns a
 * string valid while buf is. */
const char *pl__strerror(int e, char *buf, size_t cap);

/* 1 when this code runs from the installed prefix (the shared library or
 * the executable it is linked into lies under PL_INSTALL_PREFIX), 0 when it
 * runs from a build tree. Decides which provider directory and helper
 * binary are the defaults. */
int pl__running_installed(void);

/* Make room for `need` elements of `elem` bytes in *arr (capacity *cap,
 * doubled as needed, new room zeroed). Returns PL_OK, or PL_E_NOMEM when the
 * allocation fails or the size would overflow (*arr is then unchanged). */
int pl__grow(void **arr, size_t *cap, size_t need, size_t elem);

/* strdup that returns NULL for NULL. */
char *pl__strdup(const char *s);

/* A system library loaded on first use instead of linked (libcurl, libpq:
 * every program linking libperflib would otherwise load it and what it
 * needs, and run their constructors, at start-up). The first of sonames
 * that loads; each syms[i].slot (a function pointer's address) gets
 * syms[i].name. 0, or -1 with why (cap bytes) saying what is missing and
 * every slot cleared. */
typedef struct pl__dl_sym {
    const char *name;
    void *slot;
} pl__dl_sym;
int pl__dl_load(const char *what, const char *const *sonames, size_t nsonames, const pl__dl_sym *syms, size_t nsyms,
                char *why, size_t cap);

/* As root (euid 0), PL_OK only when no one but root can change `path`: the
 * file and every directory above it are owned by root and writable by
 * neither group nor others (a sticky directory such as /tmp may hold it).
 * Else PL_E_UNSAFE with a message naming `what` ("store", "provider
 * library") and the culprit. A missing file is judged by its directory.
 * Any other user: always PL_OK (it can only harm itself). */
int pl__path_trusted(const char *path, const char *what, pl_error *err);

#endif
