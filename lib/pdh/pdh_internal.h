/* This file is private to libperflib's PDH layer: no API/ABI guarantee. */
#ifndef PL_PDH_INTERNAL_H
#define PL_PDH_INTERNAL_H

#include <stdint.h>

#include "perflib/block.h"
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

/* Candidates kept per name look-up (a name may be several indices). */
#define PL__PDH_MAX_CAND 32

/* Every index whose name is `name` (default language, then English; a
 * decimal number is an index), at most cap of them. */
size_t pl__pdh_resolve_names(const pl_pdh_source *src, const char *name, uint32_t *out, size_t cap);


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

/* An object's instances by name (pdh_inst.c). */
typedef struct pl__iname {
    char *own, *parent;       /* parent NULL when none */
    char *full;               /* parent/own */
    uint32_t dup_full, dup_own; /* duplicate numbers among equal full / own names (case-sensitive, block order) */
    char *key;                /* full#k: the name PDH gives the instance */
    pl_instance inst;
} pl__iname;

typedef struct pl__nkey {
    const char *name;         /* an instance's full name, or own name */
    uint32_t dup, pos;
} pl__nkey;

typedef struct pl__inames {
    pl__iname *v;
    uint32_t n;
    pl__nkey *by_full, *by_own; /* pl__pdh_inames_index: sorted by name (case-insensitively), dup, position */
    uint32_t nown;
} pl__inames;

/* Read every instance's names (0, or PL_PDH_MEMORY_ALLOCATION_FAILURE);
 * free with pl__pdh_inames_free (also a failed or zeroed one). */
uint32_t pl__pdh_inames_load(const pl_object *o, pl__inames *x);
void pl__pdh_inames_free(pl__inames *x);
/* Does instance e match the path's instance part (wildcards included)? */
int pl__pdh_inst_match(const pl__pdh_path *p, const pl__iname *e);
/* Build the index (0, or out of memory), then find the first instance in
 * block order that a path without wildcards names, as a walk with
 * pl__pdh_inst_match would: UINT32_MAX when none. */
uint32_t pl__pdh_inames_index(pl__inames *x);
uint32_t pl__pdh_inames_find(const pl__inames *x, const pl__pdh_path *p);

/* How many times an object's instance names were read (every instance's
 * name, parent and key): once per object and collection however many
 * counters read it (pdh_collect.c, objview). For tests. */
extern uint64_t pl__pdh_name_loads;

/* ---------------------------------------------- queries and counters
 * pdh_query.c (lifetime, resolution), pdh_collect.c (collection, raw
 * values), pdh_value.c (values), pdh_enum.c (validate, expand, enumerate). */

/* What an instance is, beyond its key (issue 11 item 2): its UniqueID and
 * the raw values of its object's ID Process, ID Thread and first
 * PERF_ELAPSED_TIME counter (the creation time), each 0 when the object has
 * none or the value is not available. */
typedef struct pl__pdh_ident {
    int32_t uid;
    uint64_t pid, tid, start;
} pl__pdh_ident;

typedef struct pl__pdh_item {
    char *key;                /* instance key "parent/name#k", "" without instance;
                                 counter wildcards: "key\\counter" or "counter" */
    pl_pdh_raw cur, prev;
    uint32_t type;            /* counter wildcards: this item's counter type */
    int64_t freq;             /* and its time base frequency */
    unsigned narrow;          /* and which of its values are 4 bytes (PL__PDH_NARROW_*) */
    pl__pdh_ident cur_id, prev_id; /* the instance each sample was taken from */
} pl__pdh_item;

struct pl_pdh_counter {
    uint32_t magic;
    pl_pdh_query *q;
    pl__pdh_path p;
    char *full_path;
    char *machine;            /* the path's machine, else the block's at add time */
    char *remote;             /* another machine's target ("Foreign <remote> ..."), NULL: this one */
    char *explain;
    uint32_t obj_index, ctr_index;
    uint32_t type;
    int32_t scale, default_scale;
    int64_t freq;
    unsigned narrow;          /* PL__PDH_NARROW_*: values read from 4 bytes (may wrap once) */
    int wild;                 /* instance, parent or counter wildcard: items follow the data */
    int cwild;                /* counter wildcard: one item per counter x instance */
    pl__pdh_item *items;
    size_t nitems;
};

/* The snapshot the last pl_pdh_add_counter resolved its path against,
 * kept for the next adds (docs/pdh.md, "Adding counters"). */
typedef struct pl__pdh_add_cache {
    void *buf;                /* the snapshot's bytes (NULL: none kept) */
    pl_block blk;
    char *key;                /* "<machine>|<query string>" */
    int remote;
    int64_t ms;               /* when it was collected (CLOCK_MONOTONIC) */
} pl__pdh_add_cache;

struct pl_pdh_query {
    uint32_t magic;
    pl_pdh_source src;
    pl_pdh_counter **ctrs;
    size_t n, cap;
    int64_t time;
    int64_t stamp;            /* time of the collect being processed, local FILETIME */
    char machine[256];
    pl__pdh_add_cache ac;
};

/* A block collected from the source: its bytes (free()) and the opened block. */
typedef struct pl__pdh_snap {
    void *buf;
    pl_block blk;
} pl__pdh_snap;

/* pdh_query.c */
int pl__pdh_query_ok(const pl_pdh_query *q);
int pl__pdh_counter_ok(const pl_pdh_counter *c);
void pl__pdh_add_cache_drop(pl__pdh_add_cache *ac);
void pl__pdh_snap_free(pl__pdh_snap *s);
/* Collect `query` from the source into a checked block. */
uint32_t pl__pdh_collect_snap(const pl_pdh_source *src, const char *query, pl__pdh_snap *s, pl_error *err);
/* "Foreign <machine> <query>" through the source: another machine's data. */
uint32_t pl__pdh_collect_foreign(const pl_pdh_source *src, const char *machine, const char *query, pl__pdh_snap *s,
                                 pl_error *err);
/* An index's title (default language, then English), NULL when none. */
const char *pl__pdh_title_of(const pl_pdh_source *src, int kind, uint32_t index);
/* A counter's title, or its index in decimal written to num. */
const char *pl__pdh_counter_label(const pl_pdh_source *src, uint32_t index, char *num, size_t cap);
/* The query string naming n indices ("238 4"). */
void pl__pdh_query_string(const uint32_t *idx, size_t n, char *out, size_t cap);
uint32_t pl__pdh_find_object(const pl__pdh_snap *s, const uint32_t *oc, size_t no, pl_object *obj, const char *name,
                             pl_error *err);
uint32_t pl__pdh_find_counter(const pl_object *obj, const uint32_t *cc, size_t nc, pl_counter *out);
/* A counter a user can name or list (not a base, not the Unavailable
 * Counters marker). */
int pl__pdh_listed_counter(const pl_counter *c);
int pl__pdh_instanced(const pl_object *o);
/* Resolve a split path's object (and counter) in a snapshot; ac NULL: a
 * fresh snapshot the caller frees. */
uint32_t pl__pdh_resolve(const pl_pdh_source *src, const pl__pdh_path *p, pl__pdh_snap *s, pl_object *obj,
                         pl_counter *ctr, int *remote, pl_error *err, pl__pdh_add_cache *ac);

/* pdh_collect.c */
/* Which of a counter's values are 4 bytes wide (PL__PDH_NARROW_*). */
unsigned pl__pdh_counter_narrow(const pl_counter *c);
/* The frequency of a counter type's time base in object o. */
int64_t pl__pdh_freq_of(const pl_block *b, const pl_object *o, uint32_t type);
/* A raw value with no data: all 0, status cs. */
void pl__pdh_no_data(pl_pdh_raw *r, uint32_t cs);

#endif
