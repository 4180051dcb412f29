/* perflib: status codes and error details.
 *
 * Every library call that can fail returns a pl_status. PL_OK is 0. The
 * values are append-only: never renumber or reuse one (a retired code stays
 * here marked "deprecated: do not re-use N").
 *
 * Calls that take a `pl_error *err` (which may be NULL) also write a one-line,
 * human-readable message naming what was wrong (file, line, field, offset).
 * The library never prints; tools decide what to show. */
#ifndef PERFLIB_STATUS_H
#define PERFLIB_STATUS_H

#include <stddef.h>

#include "export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pl_status {
    PL_OK = 0,
    PL_E_NOMEM = 1,          /* an allocation failed */
    PL_E_INVAL = 2,          /* a bad argument from the caller */
    PL_E_MORE_DATA = 3,      /* the buffer is too small; the needed size is reported */
    PL_E_BAD_BLOCK = 4,      /* a data block failed validation */
    PL_E_NOT_FOUND = 5,      /* no such name, index, provider, object, ... */
    PL_E_EXISTS = 6,         /* already there (a provider already installed, ...) */
    PL_E_IO = 7,             /* a file could not be read or written */
    PL_E_STORE = 8,          /* the registry store failed (SQLite error) */
    PL_E_PARSE = 9,          /* a text input (.ini, .h, backup, path) is malformed */
    PL_E_RANGE = 10,         /* a value outside its allowed range */
    PL_E_BUSY = 11,          /* the store stayed locked by another writer */
    PL_E_PROVIDER = 12,      /* a provider broke its contract */
    PL_E_DISABLED = 13,      /* a provider is disabled */
    PL_E_UNSUPPORTED = 14,   /* not available on this platform or build */
    PL_E_ENCODING = 15,      /* text that is not valid UTF-8 / UTF-16 */
    PL_E_OS = 16,            /* an operating-system call failed (errno in the message) */
    PL_E_NO_DATA = 17,       /* nothing to compute yet (a first sample, ...) */
    PL_E_SCHEMA = 18,        /* the store has a schema newer than this library knows */
    PL_E_REMOTE = 19,        /* a remote machine could not be reached or answered with an error */
    PL_E_AUTH = 20,          /* a remote machine refused the credentials, or its certificate was not trusted */
    PL_E_UNSAFE = 21,        /* refused as root: a file or directory that others may change */
    PL_E_DENIED = 22,        /* refused by this side's policy: a remote machine that is not configured */
} pl_status;

/* A fixed-size error record. `status` repeats the returned code; `msg` is a
 * NUL-terminated single line (no trailing newline), empty when not set. */
typedef struct pl_error {
    int status;
    char msg[512];
} pl_error;

/* A static, English description of a status code; never NULL. */
PL_EXTERN const char *pl_strerror(int status);

/* The library's version, "MAJOR.MINOR.PATCH" (static; never NULL). */
PL_EXTERN const char *pl_version(void);

/* Free any memory the library handed to the caller with "free with pl_free".
 * Accepts NULL. */
PL_EXTERN void pl_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
