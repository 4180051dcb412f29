/* This file is private to libperflib's PDH layer: no API/ABI guarantee. */
#ifndef PL_PDH_INTERNAL_H
#define PL_PDH_INTERNAL_H

#include <stdint.h>

#include "perflib/pdh.h"
#include "pl_internal.h"

/* A split path. Every string points into `mem` (one allocation, free()). */
typedef struct pl__pdh_path {
    char *mem;
    pl_pdh_path_elements e;
    int inst_wild;            /* instance holds a '*' ("*", "svc*") */
    int parent_wild;          /* parent holds a '*' */
    int counter_wild;         /* counter is "*" */
} pl__pdh_path;

/* Split `path`. Returns VALID_DATA, PL_PDH_INVALID_ARGUMENT (NULL or ""),
 * PL_PDH_CSTATUS_BAD_COUNTERNAME (syntax) or PL_PDH_MEMORY_ALLOCATION_FAILURE.
 * On success free p->mem with free(). */
uint32_t pl__pdh_split(const char *path, pl__pdh_path *p, pl_error *err);

/* Does an instance name end in "#digits" after at least one character (so
 * a path must spell its index, "x#1#0")? */
int pl__pdh_ends_with_index(const char *name);
/* pl_pdh_make_path with e->instance an item key ("parent/name#k") written
 * as it is (expansion: the key already spells parent and index). */
uint32_t pl__pdh_make_path_raw(const pl_pdh_path_elements *e, char *buf, size_t *size);

/* Fill *err with a PDH status and return it. */
uint32_t pl__pdh_fail(pl_error *err, uint32_t status, const char *fmt, ...) PL__PRINTF(3, 4);

/* Statistics over a circular array for a counter type (pl_pdh_statistics). */
uint32_t pl__pdh_stats(uint32_t type, int64_t freq, int32_t scale, uint32_t fmt, uint32_t first, uint32_t n,
                       const pl_pdh_raw *raws, pl_pdh_stats *stats);
/* The same with the widths of the values (PL__PDH_NARROW_*, below). */
uint32_t pl__pdh_stats_w(uint32_t type, unsigned narrow, int64_t freq, int32_t scale, uint32_t fmt, uint32_t first,
                         uint32_t n, const pl_pdh_raw *raws, pl_pdh_stats *stats);

/* Which raw values were read from 4 bytes and so may have wrapped once
 * (pdh_calc.c): the counter's value, its PERF_*_BASE. pl__pdh_narrow_of()
 * is what the type declares (pl_pdh_calc_type); the query passes what the
 * definitions' CounterSize says. */
#define PL__PDH_NARROW_N 1u
#define PL__PDH_NARROW_B 2u
unsigned pl__pdh_narrow_of(uint32_t type);
uint32_t pl__pdh_calc(uint32_t type, unsigned narrow, int64_t freq, int32_t scale, uint32_t fmt,
                      const pl_pdh_raw *raw1, const pl_pdh_raw *raw2, pl_pdh_value *value);

/* A UTC FILETIME as local time (the zone of TZ / /etc/localtime at that
 * instant, daylight saving included): what Windows puts in
 * PDH_RAW_COUNTER.TimeStamp. 0 stays 0. */
int64_t pl__pdh_local_filetime(int64_t utc_ft);

/* A source over a freshly opened local engine (pl_engine_open(NULL)) that
 * closes the engine when the source is closed. PL_PDH_CANNOT_CONNECT_MACHINE
 * if the engine cannot be opened or is not built in. */
uint32_t pl__pdh_open_local(pl_pdh_source *out, pl_error *err);

/* Does the type need two samples? Is it displayable at all? */
int pl__pdh_two_sample(uint32_t type);
int pl__pdh_displayable(uint32_t type);

#endif
