/* perflib: the PDH layer -- counter paths, queries, formatted values
 * (docs/pdh.md).
 *
 * This is the native API (pl_pdh_* names) that the Windows-named Pdh*
 * functions can be a thin layer over. Every function returns a PDH status
 * code with the numeric value of Windows' pdhmsg.h (PL_PDH_* below; 0 is
 * success). Calls that take `pl_error *err` (may be NULL) also write a
 * one-line message there; err->status then holds the same PDH code.
 *
 * Where data comes from: a query reads PERF_DATA_BLOCKs through a small
 * source interface (pl_pdh_source). pl_pdh_engine_source() adapts the query
 * engine (query.h); tests give canned blocks. Strings are UTF-8. */
#ifndef PERFLIB_PDH_H
#define PERFLIB_PDH_H

#include <stddef.h>
#include <stdint.h>

#include "block.h"
#include "export.h"
#include "registry.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------- status codes */
/* Values of Windows' pdhmsg.h (include/win32/pdhmsg.h has the PDH_* names). */
#define PL_PDH_CSTATUS_VALID_DATA 0x00000000u
#define PL_PDH_CSTATUS_NEW_DATA 0x00000001u
#define PL_PDH_CSTATUS_NO_MACHINE 0x800007D0u
#define PL_PDH_CSTATUS_NO_INSTANCE 0x800007D1u
#define PL_PDH_MORE_DATA 0x800007D2u
#define PL_PDH_CSTATUS_ITEM_NOT_VALIDATED 0x800007D3u
#define PL_PDH_RETRY 0x800007D4u
#define PL_PDH_NO_DATA 0x800007D5u
#define PL_PDH_CALC_NEGATIVE_DENOMINATOR 0x800007D6u
#define PL_PDH_CALC_NEGATIVE_TIMEBASE 0x800007D7u
#define PL_PDH_CALC_NEGATIVE_VALUE 0x800007D8u
#define PL_PDH_CSTATUS_NO_OBJECT 0xC0000BB8u
#define PL_PDH_CSTATUS_NO_COUNTER 0xC0000BB9u
#define PL_PDH_CSTATUS_INVALID_DATA 0xC0000BBAu
#define PL_PDH_MEMORY_ALLOCATION_FAILURE 0xC0000BBBu
#define PL_PDH_INVALID_HANDLE 0xC0000BBCu
#define PL_PDH_INVALID_ARGUMENT 0xC0000BBDu
#define PL_PDH_FUNCTION_NOT_FOUND 0xC0000BBEu
#define PL_PDH_CSTATUS_NO_COUNTERNAME 0xC0000BBFu
#define PL_PDH_CSTATUS_BAD_COUNTERNAME 0xC0000BC0u
#define PL_PDH_INVALID_BUFFER 0xC0000BC1u
#define PL_PDH_INSUFFICIENT_BUFFER 0xC0000BC2u
#define PL_PDH_CANNOT_CONNECT_MACHINE 0xC0000BC3u
#define PL_PDH_INVALID_PATH 0xC0000BC4u
#define PL_PDH_INVALID_INSTANCE 0xC0000BC5u
#define PL_PDH_INVALID_DATA 0xC0000BC6u
#define PL_PDH_NO_DIALOG_DATA 0xC0000BC7u
#define PL_PDH_CANNOT_READ_NAME_STRINGS 0xC0000BC8u
#define PL_PDH_NO_MORE_DATA 0xC0000BCCu
#define PL_PDH_NOT_IMPLEMENTED 0xC0000BD3u
#define PL_PDH_STRING_NOT_FOUND 0xC0000BD4u
#define PL_PDH_NO_COUNTERS 0xC0000BDFu
#define PL_PDH_COUNTER_ALREADY_IN_QUERY 0xC0000BF6u

/* Severity as pdh.h tests it: top two bits 00 success, 01 informational,
 * 10 warning, 11 error. */
#define PL_PDH_IS_ERROR(s) ((((uint32_t)(s)) & 0xC0000000u) == 0xC0000000u)
#define PL_PDH_IS_SUCCESS(s) ((((uint32_t)(s)) & 0xC0000000u) == 0u)

/* The symbolic name of a PDH status ("PDH_CSTATUS_NO_COUNTER"), or NULL. */
PL_EXTERN const char *pl_pdh_status_name(uint32_t status);

/* ------------------------------------------------------ format flags */
#define PL_PDH_FMT_RAW 0x00000010u
#define PL_PDH_FMT_LONG 0x00000100u
#define PL_PDH_FMT_DOUBLE 0x00000200u
#define PL_PDH_FMT_LARGE 0x00000400u
#define PL_PDH_FMT_NOSCALE 0x00001000u
#define PL_PDH_FMT_1000 0x00002000u
#define PL_PDH_FMT_NODATA 0x00004000u
#define PL_PDH_FMT_NOCAP100 0x00008000u
#define PL_PDH_MAX_SCALE 7
#define PL_PDH_MIN_SCALE (-7)

/* --------------------------------------------------------- data source */

/* Where a query's data comes from. collect() runs one query string ("238 4",
 * "Global", ...) and returns a whole PERF_DATA_BLOCK in *block (*len bytes),
 * allocated with malloc: the PDH layer frees it with free(). It returns a
 * pl_status (PL_OK on success). titles() returns the title database in the
 * default language (english == 0) or in English, "009" (english != 0); the
 * result stays owned by the source and valid until close(). close() (may be
 * NULL) is called by pl_pdh_source_close(). */
typedef struct pl_pdh_source {
    int (*collect)(void *ctx, const char *query, void **block, size_t *len, pl_error *err);
    const pl_titles *(*titles)(void *ctx, int english);
    void (*close)(void *ctx);
    void *ctx;
} pl_pdh_source;

/* Release what the source holds (calls src->close(src->ctx)). Accepts NULL. */
PL_EXTERN void pl_pdh_source_close(pl_pdh_source *src);

typedef struct pl_engine pl_engine;
/* A source over the query engine (query.h). The engine stays owned by the
 * caller and must outlive the source; closing the source frees only the
 * English titles it loaded. Only available when libperflib was built with
 * the query engine; otherwise returns PL_PDH_NOT_IMPLEMENTED. */
PL_EXTERN uint32_t pl_pdh_engine_source(pl_engine *e, pl_pdh_source *out, pl_error *err);

/* ------------------------------------------------------- counter paths */

/* A path's parts: \\machine\object(parent/instance#index)\counter.
 * Absent parts are NULL (index 0). machine is without the leading "\\". */
typedef struct pl_pdh_path_elements {
    char *machine;
    char *object;
    char *instance;
    char *parent;
    uint32_t index;           /* #n: 0-based; 0 is written without a suffix */
    char *counter;
} pl_pdh_path_elements;

/* Split a path (PdhParseCounterPath). buf receives a pl_pdh_path_elements
 * followed by its strings; *size is the buffer's size in bytes on input and,
 * on return, the bytes used (PL_PDH_CSTATUS_VALID_DATA) or needed
 * (PL_PDH_MORE_DATA; nothing written; buf may be NULL with *size 0).
 * Errors: PL_PDH_INVALID_ARGUMENT (NULL/"" path or NULL size),
 * PL_PDH_INVALID_PATH (malformed). Grammar: docs/pdh.md. The result's strings
 * point into buf. */
PL_EXTERN uint32_t pl_pdh_parse_path(const char *path, void *buf, size_t *size, pl_error *err);
/* The same, allocating: *out freed with pl_free() (one allocation). */
PL_EXTERN uint32_t pl_pdh_parse_path_alloc(const char *path, pl_pdh_path_elements **out, pl_error *err);

/* Build a path (PdhMakeCounterPath). object and counter are required
 * (PL_PDH_INVALID_ARGUMENT otherwise); without an instance, parent and index
 * are ignored; a machine may be given with or without its leading "\\".
 * *size: buffer bytes in, bytes used/needed (with the NUL) out; too small is
 * PL_PDH_MORE_DATA with nothing written. */
PL_EXTERN uint32_t pl_pdh_make_path(const pl_pdh_path_elements *e, char *buf, size_t *size, pl_error *err);

/* Does the path name an existing object, counter and instance on the
 * source's machine? Status: VALID_DATA, PL_PDH_INVALID_ARGUMENT,
 * PL_PDH_CSTATUS_BAD_COUNTERNAME (syntax), PL_PDH_CSTATUS_NO_MACHINE,
 * PL_PDH_CSTATUS_NO_OBJECT, PL_PDH_CSTATUS_NO_COUNTER,
 * PL_PDH_CSTATUS_NO_INSTANCE. A wildcard part matches when anything matches. */
PL_EXTERN uint32_t pl_pdh_validate_path(const pl_pdh_source *src, const char *path, pl_error *err);

/* Expand the wildcards (*) of a path (instance, parent, counter) against the
 * source's current data. *paths receives *n full paths (without machine
 * unless the pattern had one), as one allocation freed with pl_free(). Order:
 * counters in definition order, and for each counter the instances in block
 * order; duplicate instance names get "#1", "#2"... An object with no
 * matching instance gives *n = 0 and VALID_DATA. */
PL_EXTERN uint32_t pl_pdh_expand_path(const pl_pdh_source *src, const char *path, char ***paths, size_t *n,
                                      pl_error *err);

/* ------------------------------------------------------ name <-> index */

/* The index of an object or counter name (default language, then English);
 * PL_PDH_STRING_NOT_FOUND if none. */
PL_EXTERN uint32_t pl_pdh_lookup_index(const pl_pdh_source *src, const char *name, uint32_t *index);
/* The name of an index into buf (snprintf-like *size contract of
 * pl_pdh_make_path); PL_PDH_INVALID_ARGUMENT for an unknown index. */
PL_EXTERN uint32_t pl_pdh_lookup_name(const pl_pdh_source *src, uint32_t index, char *buf, size_t *size);

/* --------------------------------------------------------- enumeration */

/* Names of the objects in a "Global" collection (block order). Also
 * "Costly" ones when costly != 0. *names: one allocation, pl_free(). */
PL_EXTERN uint32_t pl_pdh_enum_objects(const pl_pdh_source *src, int costly, char ***names, size_t *n,
                                       pl_error *err);
/* An object's counters (definition order, bases left out) and current
 * instances (full names "parent/name#k"). *has_instances tells whether the
 * object is instanced even when it has no instance now. Each array is one
 * allocation, pl_free(); either out pointer may be NULL. */
PL_EXTERN uint32_t pl_pdh_enum_object_items(const pl_pdh_source *src, const char *object, char ***counters,
                                            size_t *ncounters, char ***instances, size_t *ninstances,
                                            int *has_instances, pl_error *err);

/* ---------------------------------------------------------- selections */

/* Counters chosen by path, as perfd's metrics_counters chooses them: paths
 * with wildcards (instance, parent, a whole-"*" counter), by name in the
 * default language or English, or by index; some including, some
 * excluding. Made once against a source's titles, then asked object by
 * object of any block which counters of which instances are chosen, with
 * the instance rules of counter paths (docs/pdh.md). A path with a machine
 * is refused (PL_PDH_CSTATUS_BAD_COUNTERNAME, like a malformed one; err
 * names the path). A name that is no title is not an error: that path
 * chooses nothing (pl_pdh_selection_resolved says so). Free with
 * pl_pdh_selection_free (accepts NULL). Read-only once made: any thread. */
typedef struct pl_pdh_selection pl_pdh_selection;
PL_EXTERN uint32_t pl_pdh_selection_new(const pl_pdh_source *src, const char *const *include, size_t ninclude,
                                        const char *const *exclude, size_t nexclude, pl_pdh_selection **out,
                                        pl_error *err);
PL_EXTERN void pl_pdh_selection_free(pl_pdh_selection *s);
/* The object indices the include paths may name, each once, in path order:
 * the total is returned, at most cap written to out. */
PL_EXTERN size_t pl_pdh_selection_objects(const pl_pdh_selection *s, uint32_t *out, size_t cap);
/* Did include path i's object and counter names resolve to indices? */
PL_EXTERN int pl_pdh_selection_resolved(const pl_pdh_selection *s, size_t i);

/* What a selection chooses in one object of a block. whole != 0: the
 * object counts as included whole (only exclude paths apply). *out is NULL
 * when nothing of the object is chosen. PL_PDH_CSTATUS_VALID_DATA or
 * PL_PDH_MEMORY_ALLOCATION_FAILURE. */
typedef struct pl_pdh_pick pl_pdh_pick;
PL_EXTERN uint32_t pl_pdh_selection_pick(const pl_pdh_selection *s, const pl_object *o, int whole,
                                         pl_pdh_pick **out);
/* Is counter `counter_index` of the instance at position pos (block order;
 * 0 in an object without instances) chosen? */
PL_EXTERN int pl_pdh_pick_has(const pl_pdh_pick *p, uint32_t counter_index, uint32_t pos);
PL_EXTERN void pl_pdh_pick_free(pl_pdh_pick *p); /* accepts NULL */

/* ------------------------------------------------------------- queries */

typedef struct pl_pdh_query pl_pdh_query;
typedef struct pl_pdh_counter pl_pdh_counter;

/* PDH_RAW_COUNTER. first/second per counter type (docs/pdh.md):
 * (N, PerfTime), (N, PerfTime100nSec), (N, object PerfTime), (N, base) or
 * (N, 0); multi_count is the MULTI item count B. timestamp is the sample's
 * PerfTime100nSec converted to LOCAL time (FILETIME plus the UTC offset of
 * the process's zone -- TZ or /etc/localtime -- at that instant, daylight
 * saving included), as Windows fills PDH_RAW_COUNTER.TimeStamp; 0 when
 * there is no sample. Calculations never use it (second carries the times).
 * pl_pdh_query_time() stays UTC. */
typedef struct pl_pdh_raw {
    uint32_t cstatus;
    int64_t timestamp;
    int64_t first;
    int64_t second;
    uint32_t multi_count;
} pl_pdh_raw;

/* PDH_FMT_COUNTERVALUE: the member chosen by the format flags is set. */
typedef struct pl_pdh_value {
    uint32_t cstatus;
    union {
        int32_t long_value;
        double double_value;
        int64_t large_value;
    } v;
} pl_pdh_value;

typedef struct pl_pdh_stats {
    uint32_t format;
    uint32_t count;           /* values that could be computed */
    pl_pdh_value min, max, mean;
} pl_pdh_stats;

/* Open a query on a source. The source struct is copied; what it points to
 * must outlive the query. Close with pl_pdh_close_query() (frees every
 * counter of the query). */
PL_EXTERN uint32_t pl_pdh_open_query(const pl_pdh_source *src, pl_pdh_query **out, pl_error *err);
PL_EXTERN void pl_pdh_close_query(pl_pdh_query *q); /* accepts NULL */

/* Add a counter (PdhAddCounter). Resolves the object and counter names
 * (default language, English always accepted) against one collection of the
 * object. An instance that does not exist yet is accepted: its values carry
 * PL_PDH_CSTATUS_NO_INSTANCE until it appears. A '*' instance and/or parent
 * makes a multi-instance counter re-expanded at every collect (read it with
 * pl_pdh_get_formatted_array). A '*' counter (\Process(*)\*, \Memory\*,
 * \Processor(_Total)\*) makes a multi-item counter too: at every collect
 * its items are the object's counters in that collection's definition order
 * (bases left out), each with every matching instance, named
 * "instance\counter" ("counter" alone for an object without instances);
 * see docs/pdh.md. *out is owned by the query (valid until
 * pl_pdh_remove_counter or pl_pdh_close_query). */
PL_EXTERN uint32_t pl_pdh_add_counter(pl_pdh_query *q, const char *path, pl_pdh_counter **out, pl_error *err);
PL_EXTERN uint32_t pl_pdh_remove_counter(pl_pdh_counter *c);

/* Collect one sample for every counter: one source query naming exactly the
 * object indices the counters need ("238 4"). The previous sample is kept for
 * two-sample types. PL_PDH_NO_DATA when the query has no counters;
 * PL_PDH_INVALID_DATA if the source fails or returns a bad block (the
 * counters keep their old samples then). */
PL_EXTERN uint32_t pl_pdh_collect(pl_pdh_query *q, pl_error *err);
/* FILETIME (UTC) of the last successful collect, 0 before. */
PL_EXTERN int64_t pl_pdh_query_time(const pl_pdh_query *q);
/* The machine (block system name) of the last collect, "" before. */
PL_EXTERN const char *pl_pdh_query_machine(const pl_pdh_query *q);

/* The newest raw sample of a single-instance counter. *type (may be NULL)
 * gets the counter type. For a missing instance raw->cstatus is
 * PL_PDH_CSTATUS_NO_INSTANCE and the call returns PL_PDH_INVALID_DATA. */
PL_EXTERN uint32_t pl_pdh_get_raw(const pl_pdh_counter *c, uint32_t *type, pl_pdh_raw *raw);

/* The formatted value from the two newest samples (PdhGetFormattedCounterValue).
 * fmt: exactly one of LONG/DOUBLE/LARGE plus NOSCALE, NOCAP100, 1000.
 * Returns VALID_DATA, or PL_PDH_INVALID_DATA with value->cstatus telling why
 * (PL_PDH_CSTATUS_INVALID_DATA for a first sample or a non-displayable type,
 * PL_PDH_CSTATUS_NO_INSTANCE, PL_PDH_CSTATUS_NO_OBJECT), or one of the
 * PL_PDH_CALC_* codes (value->cstatus the same, value 0). */
PL_EXTERN uint32_t pl_pdh_get_formatted(const pl_pdh_counter *c, uint32_t fmt, uint32_t *type,
                                        pl_pdh_value *value);

/* Every item of a (wildcard) counter: names and values, as one allocation
 * freed with pl_free(). Instance wildcards: one item per instance named
 * "parent/name#k". Counter wildcards: counter-major, one item per counter x
 * instance named "parent/name#k\counter" (split at the LAST backslash:
 * counter names never hold one), or "counter" for an object without
 * instances. A single-instance counter gives one item named after its
 * instance ("" without one). */
typedef struct pl_pdh_value_item {
    const char *name;
    pl_pdh_value value;
} pl_pdh_value_item;
PL_EXTERN uint32_t pl_pdh_get_formatted_array(const pl_pdh_counter *c, uint32_t fmt, pl_pdh_value_item **items,
                                              size_t *n);

/* A value from raw samples with this counter's type, time base and scale
 * (PdhCalculateCounterFromRawValue): raw1 newer, raw2 older (may be NULL for
 * single-sample types). Same statuses as pl_pdh_get_formatted;
 * PL_PDH_INVALID_ARGUMENT for a counter-wildcard counter (it has no single
 * type; the same holds for pl_pdh_statistics). */
PL_EXTERN uint32_t pl_pdh_calculate(const pl_pdh_counter *c, uint32_t fmt, const pl_pdh_raw *raw1,
                                    const pl_pdh_raw *raw2, pl_pdh_value *value);

/* Statistics over n raw samples in a circular array whose oldest entry is at
 * index `first` (newest at first-1, wrapping). Two-sample types use each
 * consecutive pair. min, max and the arithmetic mean of the values that could
 * be computed; count is their number (0: the three carry
 * PL_PDH_CSTATUS_INVALID_DATA). PL_PDH_INVALID_ARGUMENT for first >= n. */
PL_EXTERN uint32_t pl_pdh_statistics(const pl_pdh_counter *c, uint32_t fmt, uint32_t first, uint32_t n,
                                     const pl_pdh_raw *raws, pl_pdh_stats *stats);

/* Scale factor 10^scale applied to formatted values (unless NOSCALE);
 * PL_PDH_INVALID_ARGUMENT outside [-7, 7]. Default 0. */
PL_EXTERN uint32_t pl_pdh_set_scale(pl_pdh_counter *c, int32_t scale);

/* What a counter is (PDH_COUNTER_INFO). Strings point into the counter and
 * stay valid while it exists. full_path ("\\machine\...") and machine name
 * the path's machine, else the one whose data resolved the counter when it
 * was added. A counter wildcard has type 0, counter "*" and no help text. */
typedef struct pl_pdh_counter_info {
    uint32_t type;
    int32_t scale;
    int32_t default_scale;
    uint32_t object_index, counter_index;
    const char *full_path;
    const char *machine, *object, *instance, *parent, *counter;
    uint32_t instance_index;
    const char *explain;      /* help text, or NULL */
} pl_pdh_counter_info;
PL_EXTERN uint32_t pl_pdh_get_counter_info(const pl_pdh_counter *c, pl_pdh_counter_info *info);

/* The raw sample PDH takes of one counter of one instance in a block (what
 * a query's collection keeps): raw->first the value; raw->second the base
 * or the time base its type reads (its base counter for fractions and
 * averages, else the time stamp of pl_pdh_time_base); raw->multi_count for
 * _MULTI_ types; raw->timestamp 0. *freq (when freq is not NULL): the frequency
 * pl_pdh_calc_type takes with it. `in` is NULL for an object without
 * instances. Returns raw->cstatus: VALID_DATA, or INVALID_DATA when PDH
 * shows no value of this type or the provider marked this one unavailable.
 * For tools that keep their own samples of blocks (pview): with
 * pl_pdh_calc_type they compute what a PDH query would. */
PL_EXTERN uint32_t pl_pdh_block_raw(const pl_block *b, const pl_object *o, const pl_counter *c, const pl_instance *in,
                                    pl_pdh_raw *raw, int64_t *freq);

/* The frequency of a counter's time base (PdhGetCounterTimeBase): PerfFreq
 * for tick types, 10,000,000 for 100 ns types, the object's PerfFreq for
 * object-timer types, as the newest sample had it. PL_PDH_INVALID_HANDLE,
 * or PL_PDH_CSTATUS_INVALID_DATA before any sample gave one. */
PL_EXTERN uint32_t pl_pdh_get_time_base(const pl_pdh_counter *c, int64_t *freq);

/* The time base of the 100 ns timer types (PERF_100NSEC_TIMER and _INV,
 * their MULTI forms, PERF_COUNTER_100NS_QUEUELEN_TYPE) in a block whose
 * header has these three fields: its PerfTime in 100 ns units
 * (PerfTime x 10^7 / PerfFreq, exact; perflib's PerfTime is
 * CLOCK_MONOTONIC), so a step of the wall clock never reaches a rate
 * (issue 33; docs/pdh.md "Raw values"). Windows' PDH reads PerfTime100nSec
 * here, the wall clock: the two agree to the tick except across a clock
 * step. A header whose PerfFreq is not positive gives PerfTime100nSec. */
PL_EXTERN int64_t pl_pdh_time_100ns(int64_t perf_time, int64_t perf_freq, int64_t perf_time_100ns);

/* Compute a value from raw samples without a counter: for tests and tools
 * that keep their own samples. freq is the time base frequency of the type's
 * timer (PerfFreq for tick types, 10,000,000 for 100 ns types, the object's
 * PerfFreq for object-timer and PERF_ELAPSED_TIME). */
PL_EXTERN uint32_t pl_pdh_calc_type(uint32_t type, int64_t freq, int32_t scale, uint32_t fmt,
                                    const pl_pdh_raw *raw1, const pl_pdh_raw *raw2, pl_pdh_value *value);

/* The time base of a counter type in a block: the time stamp its values are
 * measured against and that stamp's frequency. Tick types: the block's
 * PerfTime and PerfFreq; 100 ns types: the block's PerfTime in 100 ns
 * (pl_pdh_time_100ns: monotonic, a clock step is no rate) and 10,000,000;
 * object-timer types (and PERF_ELAPSED_TIME): the object's PerfTime and
 * PerfFreq. perflib's one time base: PDH's values and perfd's /metrics both
 * take it from here. time or freq may be NULL. */
PL_EXTERN void pl_pdh_time_base(const pl_block *b, const pl_object *o, uint32_t type, int64_t *time, int64_t *freq);

#ifdef __cplusplus
}
#endif

#endif
