/* relog: reading CSV/TSV performance logs (typeperf -o, Windows typeperf,
 * perfmon and relog). Input is untrusted: malformed lines are reported and
 * skipped, never guessed at. */
#ifndef RELOG_TEXT_H
#define RELOG_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "perflib/status.h"

typedef struct rt_text rt_text;

enum { RT_ROW = 0, RT_END = 1, RT_BAD = 2 };

/* Open and read the header line "(PDH-CSV 4.0)..." or "(PDH-TSV 4.0)..."
 * (a UTF-8 BOM and leading empty lines allowed, as in a console capture).
 * Returns 0, or -1 with a message in err. */
int rt_text_open(const char *file, rt_text **out, pl_error *err);
void rt_text_close(rt_text *t); /* accepts NULL */
size_t rt_text_ncols(const rt_text *t);
const char *rt_text_col(const rt_text *t, size_t i);
char rt_text_sep(const rt_text *t);

/* The next row: RT_ROW with its time (local time in the file, as UTC
 * FILETIME), RT_END, or RT_BAD (message in err: line number and why).
 * Lines that are not rows (not starting with a quote, e.g. "Exiting,
 * please wait...") are passed over. */
int rt_text_next(rt_text *t, int64_t *ft, pl_error *err);

/* Cell of column i of the current row: 1 with *v when it holds a number,
 * 0 when it is empty (" ") or not a number. */
int rt_text_value(const rt_text *t, size_t i, double *v);

#endif
