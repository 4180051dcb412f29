/* typeperf: the Windows time zone name and bias for the log file header
 * "(PDH-CSV 4.0) (<zone name>)(<bias>)" (docs/typeperf.md). */
#ifndef TYPEPERF_TZNAME_H
#define TYPEPERF_TZNAME_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* The zone's IANA name: from TZ (":Europe/Berlin", "Europe/Berlin" or a path
 * under .../zoneinfo/), else the first line of <etc>/timezone, else the
 * target of the <etc>/localtime symlink after "zoneinfo/". etc is "/etc"
 * except in tests. Writes "" when none is found (e.g. TZ="CET-1CEST"). */
void tp_zone_id(const char *tz, const char *etc, char *out, size_t cap);

/* The Windows standard (dst == 0) or daylight name of an IANA zone or of a
 * common abbreviation ("EST", "CEST"), or NULL if the table has none. */
const char *tp_windows_zone_name(const char *id, int dst);

/* The Windows name of the zone at the local time `tm` (as the header cell
 * below names it; tm->tm_zone's storage or a static string) and *bias, UTC
 * minus local time in minutes, daylight saving included: what an SQL log's
 * DisplayToID holds as TimeZoneName and MinutesToUTC. */
const char *tp_zone_name_bias(const struct tm *tm, const char *tz, const char *etc, int32_t *bias);

/* The header cell: "(PDH-CSV 4.0) (<name>)(<bias>)" with fmt "CSV"/"TSV",
 * for the local time `tm` (tm_isdst, tm_gmtoff, tm_zone): the Windows name
 * of the zone if known (IANA name first, then the abbreviation), else the
 * abbreviation; bias = UTC minus local time in minutes, daylight saving
 * included. */
void tp_log_header_cell(const char *fmt, const struct tm *tm, const char *tz, const char *etc, char *out,
                        size_t cap);

#endif
