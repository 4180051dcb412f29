/* This file is private to libperflib's lodctr module: no API/ABI guarantee.
 * Text decoding, line splitting and a growable buffer shared by the .ini,
 * symbol-file and backup-file code. */
#ifndef PL_LODCTR_INT_H
#define PL_LODCTR_INT_H

#include <stddef.h>
#include <stdint.h>

#include "pl_internal.h"

/* Decode a text file's bytes to NUL-terminated UTF-8 (no BOM): UTF-8 with or
 * without BOM, UTF-16LE/BE with BOM, UTF-16LE/BE without BOM (any NUL byte in
 * the first KiB), otherwise Windows-1252. In 8-bit text a 0x1A (DOS
 * end-of-file) ends the text. `name` is used in messages. *out is freed with free().
 * Returns PL_OK, PL_E_ENCODING (odd-sized or invalid UTF-16, invalid UTF-8
 * after a UTF-8 BOM, NUL characters) or PL_E_NOMEM. *was_utf16 (may be NULL)
 * tells whether the input was UTF-16. */
int pl__lc_decode(const void *data, size_t len, const char *name, char **out, size_t *outlen, int *was_utf16,
                  pl_error *err);

/* Read a whole file (at most 64 MiB). PL_E_IO with the errno text when it
 * cannot be opened or read. *out is freed with free(). */
int pl__lc_read_file(const char *path, unsigned char **out, size_t *len, pl_error *err);

/* Iterate over lines ending in CRLF, LF or CR (the last may have none).
 * With crlf_only set, only CRLF ends a line (a lone LF or CR is text). */
typedef struct pl__lc_lines {
    const char *p, *end;
    unsigned line;             /* number of the line last returned, 1-based */
    int crlf_only;
} pl__lc_lines;
void pl__lc_lines_init(pl__lc_lines *it, const char *text, size_t len);
/* Returns 1 with the line in [*s, *s + *n), 0 at the end. */
int pl__lc_next_line(pl__lc_lines *it, const char **s, size_t *n);

/* Trim spaces and tabs on both sides. */
void pl__lc_trim(const char **s, size_t *n);
/* ASCII case-insensitive compare of a counted string with a C string. */
int pl__lc_eq_ci(const char *s, size_t n, const char *lit);
/* strndup that returns NULL on allocation failure. */
char *pl__lc_strndup(const char *s, size_t n);


#endif
