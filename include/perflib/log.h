/* perflib: binary counter logs -- write, read, seek, and read back through
 * PDH as a data source (docs/counter-log.md).
 *
 * A log is one append-only file of records, each framed by a header with
 * its length and CRC-32s, plus a sidecar time index "<file>.idx" that the
 * reader rebuilds from the records when it is missing or does not match.
 * The first record describes the log: machine, columns (counter paths with
 * their type, scale and help), and the title database the data was named
 * with. Data records hold either
 *   - PL_LOG_BLOCKS: the PERF_DATA_BLOCK a PDH query collected (raw
 *     counters: PDH computes formatted values from them, as from the live
 *     machine), or
 *   - PL_LOG_VALUES: one formatted value per column (a log converted from
 *     CSV/TSV, where only formatted values exist),
 * delta-encoded against the last key record (docs/counter-log.md).
 *
 * Durability: every record is one write(2) of a complete frame, so killing
 * the writer at any moment loses at most the record being written. The
 * reader treats the file as hostile: it checks every length and CRC,
 * resynchronises after damage, and returns every complete record.
 *
 * Times are FILETIME (100 ns since 1601-01-01) in UTC. */
#ifndef PERFLIB_LOG_H
#define PERFLIB_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "pdh.h"
#include "registry.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the data records hold. */
#define PL_LOG_BLOCKS 1
#define PL_LOG_VALUES 2

/* One column: a full counter path as typeperf prints it in its header
 * ("\\VM\Processor(_Total)\% Processor Time"), its counter type, default
 * scale and help text (NULL/0 when unknown, e.g. a log made from CSV). */
typedef struct pl_log_column {
    const char *path;
    uint32_t type;
    int32_t scale;
    const char *help;
} pl_log_column;

/* What pl_log_create() writes into the log's first record. titles and
 * titles_en (may be NULL, or equal) are the title database the blocks are
 * named with (default language and English); a PL_LOG_BLOCKS log needs
 * titles to be read through PDH. */
typedef struct pl_log_header {
    int kind;                 /* PL_LOG_BLOCKS or PL_LOG_VALUES */
    const char *machine;      /* without "\\"; may be NULL */
    const pl_log_column *columns;
    size_t ncolumns;
    const pl_titles *titles;
    const pl_titles *titles_en;
} pl_log_header;

/* ------------------------------------------------------------- writing */

typedef struct pl_log_writer pl_log_writer;

#define PL_LOG_OVERWRITE 1u   /* replace an existing file (else PL_E_EXISTS) */
#define PL_LOG_SYNC 2u        /* fdatasync after every record (power loss) */

/* Create a log (and its index, "<path>.idx"). PL_E_EXISTS when the file
 * exists and PL_LOG_OVERWRITE is not set; PL_E_IO/PL_E_OS for file errors;
 * PL_E_INVAL for a bad header (no columns, unknown kind). */
PL_EXTERN int pl_log_create(const char *path, const pl_log_header *h, unsigned flags, pl_log_writer **out,
                            pl_error *err);

/* Open an existing log to append to it (relog -a). Its header is kept:
 * `kind` and the column paths must be equal to the existing ones, else
 * PL_E_INVAL names the first difference. A damaged tail (an incomplete last
 * record) is cut off first. */
PL_EXTERN int pl_log_append_open(const char *path, const pl_log_header *h, unsigned flags, pl_log_writer **out,
                                 pl_error *err);

/* Append one record at `time` to a PL_LOG_BLOCKS log: data is the
 * PERF_DATA_BLOCK (len bytes, at most 1 GiB). data NULL with len 0 records
 * a gap (the sample could not be collected); gaps are allowed in both
 * kinds of log. */
PL_EXTERN int pl_log_append(pl_log_writer *w, int64_t time, const void *data, size_t len, pl_error *err);

/* Append one PL_LOG_VALUES record: values[i] for column i, present[i] != 0
 * when the value exists (else the cell is empty, " " in CSV). */
PL_EXTERN int pl_log_append_values(pl_log_writer *w, int64_t time, const double *values,
                                   const unsigned char *present, pl_error *err);

/* Records written by this writer, and bytes in the file. */
PL_EXTERN uint64_t pl_log_writer_records(const pl_log_writer *w);
PL_EXTERN uint64_t pl_log_writer_bytes(const pl_log_writer *w);

/* Close (accepts NULL). Returns the first write error met, else PL_OK. */
PL_EXTERN int pl_log_writer_close(pl_log_writer *w, pl_error *err);

/* ------------------------------------------------------------- reading */

typedef struct pl_log pl_log;

/* Open a log read-only. The index is loaded when it matches the log and
 * completed from the records after its last entry; otherwise the records
 * are scanned (and the index is NOT rewritten: see pl_log_reindex).
 * PL_E_IO/PL_E_OS: the file cannot be read; PL_E_PARSE: not a perflib
 * counter log (bad magic); PL_E_BAD_BLOCK: the header record is damaged.
 *
 * Logs of other formats open too, as PL_LOG_VALUES logs (docs/counter-log.md,
 * "Other formats"): a CSV/TSV file in the PDH-CSV 4.0 form (Windows'
 * typeperf, relog, Performance Monitor) -- PL_E_PARSE for a malformed
 * header, PL_E_ENCODING for UTF-16 text; a malformed row reads as
 * PL_E_BAD_BLOCK naming its line; an SQL log set "SQL:DSN!LogSet" (below)
 * -- PL_E_NOT_FOUND for a missing file or log set, PL_E_IO for a database
 * that cannot be reached, PL_E_PARSE for one without the tables. */
PL_EXTERN int pl_log_open(const char *path, pl_log **out, pl_error *err);
PL_EXTERN void pl_log_close(pl_log *log); /* accepts NULL */

/* What a log is: PL_LOG_FMT_BIN (perflib's binary log), _CSV, _TSV, _SQL;
 * 0 for NULL. */
#define PL_LOG_FMT_BIN 1
#define PL_LOG_FMT_CSV 2
#define PL_LOG_FMT_TSV 3
#define PL_LOG_FMT_SQL 4
PL_EXTERN int pl_log_format(const pl_log *log);

/* Scan every record, verify it and write a fresh "<path>.idx". */
PL_EXTERN int pl_log_reindex(const char *path, pl_error *err);

/* The header as read (strings owned by the log, valid until close). */
PL_EXTERN const pl_log_header *pl_log_get_header(const pl_log *log);

/* Default-language and English titles from the header (NULL when the log
 * has none). Owned by the log. */
PL_EXTERN const pl_titles *pl_log_titles(const pl_log *log, int english);

/* Number of data records found (gaps included), and the time of record i
 * (0-based, file order). */
PL_EXTERN size_t pl_log_count(const pl_log *log);
PL_EXTERN int64_t pl_log_time(const pl_log *log, size_t i);

/* The first record whose time is >= time (binary search over the index;
 * times are assumed non-decreasing, as a writer with a steady clock makes
 * them). *i = pl_log_count() when there is none. */
PL_EXTERN void pl_log_seek(const pl_log *log, int64_t time, size_t *i);

/* Read record i. *data and *len: the decoded PERF_DATA_BLOCK (PL_LOG_BLOCKS) or
 * the values (use pl_log_read_values); owned by the log, valid until the
 * next read. A gap gives PL_E_NO_DATA. A record (or the key record it
 * depends on) that is damaged gives PL_E_BAD_BLOCK with the offset in the
 * message. */
PL_EXTERN int pl_log_read(pl_log *log, size_t i, const void **data, size_t *len, pl_error *err);

/* Read record i of a PL_LOG_VALUES log: *values and *present point to
 * ncolumns entries owned by the log (valid until the next read). */
PL_EXTERN int pl_log_read_values(pl_log *log, size_t i, const double **values, const unsigned char **present,
                                 pl_error *err);

/* What the open found: bytes skipped as damaged (not counting an incomplete
 * last record), bytes of an incomplete last record, and whether the index
 * was used (1) or rebuilt by a scan (0). */
typedef struct pl_log_health {
    uint64_t damaged_bytes;
    uint64_t torn_tail_bytes;
    uint64_t file_bytes;
    int index_used;
} pl_log_health;
PL_EXTERN void pl_log_get_health(const pl_log *log, pl_log_health *h);

/* -------------------------------------------------------- SQL log sets */

/* Counter logs in an SQL database, in the schema Windows' typeperf and
 * relog write with -f SQL: tables DisplayToID (one row per log set),
 * CounterDetails (one per counter) and CounterData (one per counter and
 * sample); docs/counter-log.md, "SQL log sets", has them column for column.
 *
 * A log set is named "SQL:DSN!LogSet" (the "SQL:" may be left out when
 * writing). DSN is a SQLite file ("perf.db", or "sqlite:perf.db"), or a
 * PostgreSQL database through libpq: a connection string ("host=/run/pg
 * dbname=perf", "service=perf", "postgresql://host/perf") or "pg:SERVICE".
 * pl_log_open("SQL:DSN!LogSet") reads a log set as a PL_LOG_VALUES log
 * (pl_log_format: PL_LOG_FMT_SQL); "SQL:DSN" alone reads the only set. */
typedef struct pl_sqllog_writer pl_sqllog_writer;

typedef struct pl_sqllog_info {
    const pl_log_column *columns; /* full counter paths, type (0: a formatted
                                     double, PERF_DOUBLE_RAW), default scale */
    size_t ncolumns;
    const int64_t *time_base; /* per column (TimeBaseA/B), or NULL */
    const char *zone;         /* TimeZoneName ("W. Europe Daylight Time"), or NULL */
    int32_t bias;             /* MinutesToUTC: UTC minus local time, minutes */
} pl_sqllog_info;

/* Open the log set to write: the tables are created when missing, a set of
 * that name is appended to (new RecordIndex values follow its last one; its
 * zone stays), else created. Each column's CounterDetails row is found or
 * added. PL_E_INVAL: no log set named, or a column that is not a counter
 * path; PL_E_RANGE: a name too long for its column; PL_E_IO: the database
 * cannot be opened or reached; PL_E_STORE: the database refused. flags: 0. */
PL_EXTERN int pl_sqllog_open(const char *name, const pl_sqllog_info *info, unsigned flags, pl_sqllog_writer **out,
                             pl_error *err);

/* Append one sample at `time` (FILETIME, UTC) in one transaction: a
 * CounterData row per column with the value when present[i] (else
 * CounterValue NULL) and, when raw is not NULL and raw[i] is valid, the
 * raw counter (FirstValue/SecondValue halves, MultiCount); then
 * DisplayToID's LogStopTime and NumberOfRecords. A writer killed at any
 * moment leaves whole samples only. After a failure the writer refuses
 * further samples. */
PL_EXTERN int pl_sqllog_append(pl_sqllog_writer *w, int64_t time, const double *values, const unsigned char *present,
                               const pl_pdh_raw *raw, pl_error *err);

/* Samples written by this writer. */
PL_EXTERN uint64_t pl_sqllog_records(const pl_sqllog_writer *w);

/* Close (accepts NULL). Returns PL_E_IO when a sample could not be written. */
PL_EXTERN int pl_sqllog_close(pl_sqllog_writer *w, pl_error *err);

/* ------------------------------------------------------- PDH data source */

typedef struct pl_log_source pl_log_source;

/* A PDH data source over a PL_LOG_BLOCKS log (what Windows'
 * PdhBindInputDataSource gives): collect() returns the block of the
 * current record, titles() the header's titles. The log stays owned by the
 * caller and must outlive the source. The current record starts at the
 * first readable one; pl_log_source_set() moves it. *ls (may be NULL) is
 * freed by pl_pdh_source_close(out). PL_E_UNSUPPORTED for a PL_LOG_VALUES
 * log or one without titles. */
PL_EXTERN int pl_log_source_open(pl_log *log, pl_pdh_source *out, pl_log_source **ls, pl_error *err);

/* Make record i current. Returns what pl_log_read() returns for it
 * (PL_E_NO_DATA for a gap, PL_E_BAD_BLOCK for a damaged record); a
 * collect() on a record that could not be read fails the same way. */
PL_EXTERN int pl_log_source_set(pl_log_source *ls, size_t i, pl_error *err);

/* --------------------------------------------------------- recording tap */

typedef struct pl_log_tap pl_log_tap;

/* A source that passes every call to `inner` and keeps a copy of the last
 * block collect() returned, for a tool that records what its PDH query
 * collected (typeperf -f BIN). The inner source stays owned by the caller;
 * pl_pdh_source_close(out) frees only the tap. */
PL_EXTERN int pl_log_tap_open(const pl_pdh_source *inner, pl_pdh_source *out, pl_log_tap **tap, pl_error *err);
/* The last block collected (NULL/0 before any); valid until the next
 * collect through the tap. */
PL_EXTERN void pl_log_tap_last(const pl_log_tap *tap, const void **block, size_t *len);

#ifdef __cplusplus
}
#endif

#endif
