/* This file is private to libperflib's log module: no API/ABI guarantee.
 * Counter logs in other formats than perflib's binary one, read through
 * the pl_log API as logs of formatted values (docs/counter-log.md, "Other
 * formats"): CSV/TSV text logs (log_text.c) and SQL log sets (log_sql.c
 * over log_sqlite.c and log_pg.c). pl_log_open() asks pl__xlog_open()
 * first; the binary reader takes every name it declines. */
#ifndef PL_LOG_EXT_H
#define PL_LOG_EXT_H

#include <stddef.h>
#include <stdint.h>

#include "perflib/log.h"
#include "pl_internal.h"

typedef struct pl__xlog pl__xlog;
struct pl__xlog {
    int format;               /* PL_LOG_FMT_CSV, _TSV or _SQL */
    pl_log_header h;          /* kind PL_LOG_VALUES; owned by the backend */
    int64_t *times;           /* record times (FILETIME UTC), n of them */
    size_t n;
    pl_log_health health;
    /* Record i's values into vals/present (h.ncolumns each): PL_OK,
     * PL_E_BAD_BLOCK with the reason (a malformed line, a damaged row). */
    int (*read)(pl__xlog *x, size_t i, double *vals, unsigned char *present, pl_error *err);
    void (*close)(pl__xlog *x); /* frees x */
};

/* Is `name` a log of another format? PL_OK with *out set when it is one and
 * opened, PL_OK with *out NULL when it is none (a binary log, or no log at
 * all: the binary reader says which), else the error of opening it. */
int pl__xlog_open(const char *name, pl__xlog **out, pl_error *err);

/* The backends. */
int pl__textlog_open(const char *path, pl__xlog **out, pl_error *err);
int pl__sqllog_open(const char *name, pl__xlog **out, pl_error *err);

/* Does the file start like a PDH-CSV/TSV 4.0 log (an optional UTF-8 BOM
 * and empty lines, then a line starting with "(PDH-CSV 4.0)" or
 * "(PDH-TSV 4.0)", quoted or not)? 1 CSV, 2 TSV, 3 UTF-16 text, 0 none. */
int pl__textlog_sniff(const char *path);

/* The machine of a counter path ("\\VM\Memory\..." -> "VM"), malloc'd;
 * NULL when the path names none or on no memory. */
char *pl__path_machine(const char *path);

/* Record times from text: "MM/DD/YYYY HH:MM:SS[.mmm]" (CSV/TSV rows, local
 * wall time) and "YYYY-MM-DD HH:MM:SS.mmm" (SQL, UTC): the fields and
 * milliseconds, 0 on success, -1 when malformed. Trailing blanks and NULs
 * after the SQL form are allowed (char(24) columns). */
typedef struct pl__walltime {
    int year, mon, day, hour, min, sec, ms;
} pl__walltime;
int pl__parse_us_time(const char *s, pl__walltime *w);
int pl__parse_sql_time(const char *s, pl__walltime *w);
/* UTC wall time -> FILETIME. */
int64_t pl__walltime_ft(const pl__walltime *w);
/* FILETIME (UTC) -> wall time fields; *wday (may be NULL): 0 Sunday. */
void pl__ft_walltime(int64_t ft, pl__walltime *w, int *wday);
/* FILETIME -> "YYYY-MM-DD HH:MM:SS.mmm" (sep '.') or "...:mmm" (sep ':'),
 * UTC; out holds 24 bytes. */
void pl__ft_sql_time(int64_t ft, char sep, char out[24]);

/* A log of values as a PDH data source (log_vsource.c): the blocks each
 * record stands for, built from the column paths. */
typedef struct pl__vsrc pl__vsrc;
/* PL_E_UNSUPPORTED when no column is a counter path. */
int pl__vsrc_new(const pl_log_header *h, pl__vsrc **out, pl_error *err);
void pl__vsrc_free(pl__vsrc *v);
const pl_titles *pl__vsrc_titles(const pl__vsrc *v);
/* Make a record current: its time, values and which are present. */
int pl__vsrc_build(pl__vsrc *v, int64_t time, const double *vals, const unsigned char *present, pl_error *err);
/* The current record's block for a query ("Foreign <machine> ..." picks
 * that machine's, anything else the first machine's); malloc'd. */
int pl__vsrc_collect(pl__vsrc *v, const char *query, void **block, size_t *len, pl_error *err);

#endif
