/* This file is private to libperflib's lodctr module: no API/ABI guarantee.
 * Text decoding, line splitting and a growable buffer shared by the .ini,
 * symbol-file and backup-file code; the parse state the .ini and
 * symbol-file code share. */
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


/* ------------------------------------------------ the .ini and its symbols
 * ini.c reads the .ini and builds the set; symfile.c reads the symbol file
 * and resolves the symbols the .ini uses. */

typedef struct pl__lc_rtext {
    char *sym;
    char lang[5];
    int kind;
    char *value;               /* owned until moved into the set */
    unsigned line;
    int64_t off;
} pl__lc_rtext;

typedef struct pl__lc_robj {
    char *sym;
    unsigned line;
    int64_t off;
} pl__lc_robj;

typedef struct pl__lc_sym {
    char *name;
    char *value;               /* the define's replacement text, trimmed */
    unsigned line;
    unsigned conflict_line;    /* a later define with a different value */
    int state;                 /* 0 not yet, 1 resolved, 2 failed, 3 being resolved */
    int fail;                  /* why it failed (R_*, symfile.c) */
    struct pl__lc_sym *fail_at; /* the symbol at which it failed (messages) */
    int64_t off;
} pl__lc_sym;

typedef struct pl__lc_ctx {
    const char *ini_name;
    const char *sym_name;
    pl_error *err;
    /* [info] */
    char *provider, *symfile, *library, *open, *collect, *close, *wraps;
    unsigned provider_line, symfile_line, info_line, last_line;
    int trusted;
    pl__lc_rtext *texts;
    size_t ntexts, ctexts;
    pl__lc_robj *objs;
    size_t nobjs, cobjs;
    pl__lc_rtext *noeq;        /* [text] NAME keys on lines without '=' */
    size_t nnoeq, cnoeq;
    pl__lc_sym *syms;
    size_t nsyms, csyms;
    unsigned include_line;     /* first #include of the symbol file (not followed) */
    pl__lc_sym **chain;        /* resolve(): the alias chain being followed */
    size_t cchain;
    char **warnings;
    size_t nwarnings, cwarnings;
    int nomem;
} pl__lc_ctx;

/* Make room for element n of a growable array (1, or 0: no memory). */
int pl__lc_grow(void **arr, size_t *cap, size_t n, size_t elem);
/* Add a warning to the set being parsed (c->nomem on failure). */
void pl__lc_warn(pl__lc_ctx *c, const char *fmt, ...) PL__PRINTF(2, 3);
/* Is [s, s+n) a C identifier? */
int pl__lc_is_ident(const char *s, size_t n);
/* A hex digit's value, -1 when it is not one. */
int pl__lc_hexval(char ch);
/* Skip a byte-order mark at the start of a line and the blanks after it. */
void pl__lc_skip_bom(const char **s, size_t *n);
/* Read the symbol file's #defines into c->syms (symfile.c). PL_OK or PL_E_NOMEM. */
int pl__lc_parse_symbols(pl__lc_ctx *c, char *txt, size_t len);
/* Resolve a symbol the .ini uses at `line` to its offset (symfile.c): PL_OK,
 * 1 to skip it with a warning (text), or an error status in c->err. */
int pl__lc_check_use(pl__lc_ctx *c, const char *symname, unsigned line, int is_object, int64_t *off);

#endif
