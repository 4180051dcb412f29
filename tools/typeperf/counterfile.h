/* typeperf -cf: the counter file's lines (docs/typeperf.md). Separate so
 * tests/fuzz can fuzz it. */
#ifndef TP_COUNTERFILE_H
#define TP_COUNTERFILE_H

#include <stddef.h>

/* Split `buf` (NUL-terminated, changed in place) into counter paths: one
 * per line, a UTF-8 BOM at the start ignored, spaces and tabs around each
 * line and a CR at its end removed, blank lines skipped. The paths point
 * into buf and are appended to *paths (grown with realloc; *n paths
 * already there). Returns 0, or -1 when out of memory (*paths unchanged). */
int tp_counter_file_split(char *buf, const char ***paths, size_t *n);

#endif
