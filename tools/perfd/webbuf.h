/* perfd: the page's JSON and event-stream text and /metrics (web.c, browse.c,
 * stream.c) in perflib's one growable buffer (lib/common/pl_buf.h, linked
 * as pl_buf_tool). A failure sets `failed` and stops appending; the caller
 * checks it once at the end. */
#ifndef PERFD_WEBBUF_H
#define PERFD_WEBBUF_H

#include <stddef.h>

#include "pl_buf.h"

typedef pl__buf wb;

void wb_put(wb *b, const char *s, size_t n);
/* Room for extra more bytes (and the NUL) at p + len: 0, or -1 with failed set.
 * For a writer that fills the room itself and then adds to len. */
int wb_reserve(wb *b, size_t extra);
void wb_str(wb *b, const char *s);                 /* raw text */
void wb_printf(wb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void wb_json(wb *b, const char *s);                /* a JSON string, quoted; invalid UTF-8 becomes U+FFFD */
void wb_num(wb *b, double v);                      /* a JSON number, or null when not finite */
void wb_free(wb *b);

#endif
