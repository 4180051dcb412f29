/* One growable buffer for perflib's library and tools (docs/README.md,
 * "Conventions": one implementation of each idea). Self-contained (the C
 * library and perflib/status.h only): libperflib has it as an internal
 * module, and a tool built on libperflib.so, which cannot reach the
 * library's internals, links the same file as the static pl_buf_tool.
 *
 * The bytes are followed by a NUL that len does not count, so a buffer of
 * text is a C string. The first failure (no memory, a size that would
 * overflow, a bad format) is kept in `failed` and makes every later append
 * do nothing: a caller may check each return or only `failed` at the end.
 * A zeroed struct is an empty buffer. */
#ifndef PL_BUF_H
#define PL_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "perflib/status.h"

typedef struct pl__buf {
    char *p;                  /* NULL until the first append */
    size_t len, cap;          /* cap counts the room for the NUL */
    int failed;               /* 0, or the pl_status of the first failure */
} pl__buf;

/* Room for `extra` more bytes (and the NUL). PL_OK or b->failed. */
int pl__buf_reserve(pl__buf *b, size_t extra);
/* Append n bytes of data / a C string / printf output. PL_OK or b->failed. */
int pl__buf_append(pl__buf *b, const void *data, size_t n);
int pl__buf_str(pl__buf *b, const char *s);
#if defined(__GNUC__) || defined(__clang__)
#define PL__BUF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PL__BUF_PRINTF(a, b)
#endif
int pl__buf_printf(pl__buf *b, const char *fmt, ...) PL__BUF_PRINTF(2, 3);
int pl__buf_vprintf(pl__buf *b, const char *fmt, va_list ap) PL__BUF_PRINTF(2, 0);
/* Free the bytes; the buffer is empty (and not failed) again. */
void pl__buf_free(pl__buf *b);

#endif
