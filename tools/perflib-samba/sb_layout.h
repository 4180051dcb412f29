/* perflib-samba: one snapshot laid out as the records of Samba's
 * perfmon/names.tdb and perfmon/data.tdb, the way Samba 4.17's reader
 * (source3/registry/reg_perfcount.c) reads them. No I/O here: main.c takes
 * the snapshot, this file lays it out, sb_publish.c writes the files. Every
 * rule and the function of Samba's reader it comes from: docs/samba.md. */
#ifndef SB_LAYOUT_H
#define SB_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "perflib/block.h"

/* Samba copies every name, help text, relation and number it reads from the
 * files into a 256-byte buffer without a bound: no value this layout writes
 * for those keys is longer than SB_VALUE_MAX bytes. */
#define SB_VALUE_MAX 255u
/* The highest Samba index the bridge hands out: Samba walks 1..N for every
 * request, so the map is renumbered long before indices get near it. */
#define SB_INDEX_MAX 0x3FFFFFFEu

/* One tdb record. The key is a C string stored without its NUL (Samba's
 * string_tdb_data); the value is vlen bytes (may be 0). */
typedef struct sb_rec {
    char *key;
    uint8_t *val;
    size_t vlen;
} sb_rec;

typedef struct sb_recs {
    sb_rec *v;
    size_t n, cap;
} sb_recs;

void sb_recs_free(sb_recs *r);
/* The record with that key, or NULL (linear; for tests and the model). */
const sb_rec *sb_recs_find(const sb_recs *r, const char *key);

/* The index map: which Samba title index serves which object or counter
 * definition. It lives in names.tdb (key SB_MAP_KEY) so that a restarted
 * bridge keeps every index a Windows client has already looked up. */
#define SB_MAP_KEY "perflib-samba map"
/* Written to both files: which snapshot they hold (its PerfTime, decimal;
 * "withdrawn" when none), so that one can tell that a reader got names
 * and values of one snapshot. Samba never reads it. */
#define SB_STAMP_KEY "perflib-samba snapshot"
#define SB_KIND_OBJECT 'o'
#define SB_KIND_COUNTER 'c'
#define SB_KIND_BASE 'b'

typedef struct sb_slot {
    uint32_t index;   /* Samba's title index: even, 2..SB_INDEX_MAX; help is index + 1 */
    char kind;        /* SB_KIND_* */
    uint32_t obj;     /* perflib title index of the object */
    uint32_t ctr;     /* perflib name index of the definition (0 for an object) */
    uint32_t occ;     /* the n-th definition of this kind and name index in the object */
    uint32_t help;    /* perflib index of its help text (its name: obj or ctr) */
} sb_slot;

typedef struct sb_map {
    sb_slot *v;
    size_t n, cap;
} sb_map;

void sb_map_free(sb_map *m);
/* Read a map as sb_map_format writes it. Strict: any line that does not
 * parse, an index that is odd, out of range or used twice, or a slot named
 * twice makes the whole text refused (returns -1 with a reason in why; *out
 * is left empty). Returns 0 on success. */
int sb_map_parse(const char *text, size_t len, sb_map *out, char *why, size_t cap);
/* The text form (one allocation, free()); NULL on no memory. */
char *sb_map_format(const sb_map *m, size_t *len);

/* Titles: the name (kind PL_TITLE_NAME) or help text (PL_TITLE_HELP) of a
 * perflib index, UTF-8, or NULL. */
typedef const char *(*sb_title_fn)(void *ctx, int kind, uint32_t index);

typedef struct sb_stats {
    size_t objects;       /* objects served */
    size_t definitions;   /* counter definitions served (bases included) */
    size_t instances;     /* instances served */
    size_t skipped;       /* definitions whose type Samba cannot serve (text, no data, ...) */
    size_t omitted;       /* values left out of objects without instances because
                             the provider marked them unavailable or Samba could not
                             carry them */
    size_t rounded;       /* 64-bit values above 2^53 that Samba's atof() rounds */
    size_t objects_bytes; /* the objects of Samba's answer to Global, header not counted */
    int renumbered;       /* 1 when the map was built afresh */
} sb_stats;

typedef struct sb_layout_cfg {
    size_t dword_size;    /* sizeof(long) in smbd: how Samba stores a 32-bit counter (8 on amd64) */
    sb_title_fn title;
    void *title_ctx;
} sb_layout_cfg;

/* Lay out a validated snapshot. *map is the map in use (possibly empty); it
 * is extended, or rebuilt when it cannot serve the snapshot, and must be
 * written with it (the records include it). names and data receive every
 * record of the two files (appended to; start them empty). Returns 0, or -1
 * with a reason in why (no memory, an index space exhausted). */
int sb_layout(const pl_block *blk, const sb_layout_cfg *cfg, sb_map *map, sb_recs *names, sb_recs *data,
              sb_stats *st, char *why, size_t cap);

/* The files when there is no snapshot to serve (the bridge stops, or a
 * snapshot failed): names and help texts of every slot of the map, and no
 * object, so that Samba answers Global with an empty block instead of old
 * numbers. */
int sb_layout_withdrawn(const sb_map *map, const sb_layout_cfg *cfg, sb_recs *names, sb_recs *data, char *why,
                        size_t cap);

/* The type Samba is given for a counter type, and its size there (8, or
 * dword_size for the 32-bit average types); 0 when Samba cannot carry it. */
uint32_t sb_served_type(uint32_t type, size_t dword_size, size_t *size);
/* 1 when a client needs the object's own PerfTime/PerfFreq to compute the
 * type, which Samba 4.17 never sends. */
int sb_type_needs_object_time(uint32_t type);

/* The ASCII form Samba's name lists can carry: every character outside
 * printable ASCII becomes '?' (a tab or line break a space), and a text
 * longer than SB_VALUE_MAX bytes is cut at a word and ends in "...". out
 * has room for SB_VALUE_MAX + 1 bytes. Returns the length. */
size_t sb_ascii_text(const char *utf8, char *out);
/* An instance name as Samba can convert it: the longest prefix of
 * utf8[0, len) that is valid UTF-8 of at most SB_VALUE_MAX bytes (a
 * character cut at the limit, and everything from a broken sequence on,
 * left out). out has room for SB_VALUE_MAX + 1 bytes. Returns the length. */
size_t sb_cut_utf8(const char *utf8, size_t len, char *out);
/* The name Samba serves for an instance: "parent/own" (Samba sends no
 * parent), at most SB_VALUE_MAX bytes, the parent part shortened first, at
 * a character, so that the instance's own name survives; an own name of
 * 254 bytes or more leaves no room, and "parent/own" is cut at the limit.
 * Valid UTF-8 as sb_cut_utf8. parent may be NULL. out has room for
 * SB_VALUE_MAX + 1 bytes. Returns the length. */
size_t sb_instance_name(const char *parent, const char *own, char *out);

#endif
