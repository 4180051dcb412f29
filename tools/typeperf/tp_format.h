/* typeperf's cell formats, shared with relog (whose CSV output must be
 * byte-identical to typeperf's). Not part of libperflib. */
#ifndef TP_FORMAT_H
#define TP_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "perflib/pdh.h"

/* "MM/DD/YYYY hh:mm:ss.mmm" in local time for a Unix time in ms; *tmout
 * (may be NULL) gets the broken-down local time. */
void tp_fmt_time(int64_t unix_ms, char *out, size_t cap, struct tm *tmout);
/* Full precision as Windows writes log files: "%.17g" with the exponent in
 * three digits as the Microsoft C runtime writes it. */
void tp_fmt_full(double v, char *out, size_t cap);

/* The value typeperf shows for a counter after a collect: 1 with *v, 0
 * when it cannot be computed (" "). */
int tp_value(const pl_pdh_counter *c, double *v);

#endif
