/* perflib: building and reading performance data blocks (docs/block-format.md).
 *
 * The builder is what providers use: declare an object and its counters once,
 * add instances, set values; pl_builder_emit() writes PERF_OBJECT_TYPEs with
 * every length, offset and padding computed. The reader is what consumers
 * use: pl_block_open() validates a whole PERF_DATA_BLOCK (or a bare sequence
 * of objects, as a provider's Collect returns) before anything is exposed,
 * so a block from a buggy provider or another machine can never make a
 * consumer read out of bounds. */
#ifndef PERFLIB_BLOCK_H
#define PERFLIB_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "status.h"
#include "winperf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- builder */

typedef struct pl_builder pl_builder;

typedef struct pl_object_desc {
    uint32_t name_index;      /* ObjectNameTitleIndex */
    uint32_t help_index;      /* ObjectHelpTitleIndex */
    uint32_t detail_level;    /* PERF_DETAIL_*; 0 means NOVICE */
    int32_t default_counter;  /* position of the default counter, -1 for none */
    int has_instances;        /* 0: one counter block, NumInstances = PERF_NO_INSTANCES */
    int64_t perf_time;        /* object's own time base (PERF_OBJECT_TIMER types, ELAPSED) */
    int64_t perf_freq;        /* its frequency; 0 is allowed when unused */
} pl_object_desc;

typedef struct pl_counter_desc {
    uint32_t name_index;      /* CounterNameTitleIndex */
    uint32_t help_index;      /* CounterHelpTitleIndex */
    uint32_t type;            /* PERF_* counter type */
    uint32_t size;            /* bytes; 0 derives it from the type (4, 8, 0);
                                 required for PERF_SIZE_VARIABLE_LEN (text): the
                                 fixed room every instance gets, a multiple of 2 */
    uint32_t detail_level;    /* 0 means NOVICE */
    int32_t default_scale;    /* DefaultScale, a power of ten */
    uint32_t base_type;       /* 0, or the PERF_*_BASE type of the base counter
                                 the builder places right after this one */
    uint32_t base_name_index; /* name index of that base; 0 uses name_index. The
                                 base's help index is help_index. */
} pl_counter_desc;

/* A new, empty builder. Free it with pl_builder_free(). NULL on no memory. */
PL_EXTERN pl_builder *pl_builder_new(void);
PL_EXTERN void pl_builder_free(pl_builder *b);  /* accepts NULL */
/* Drop every object, keeping allocated memory for the next collection. */
PL_EXTERN void pl_builder_reset(pl_builder *b);

/* Add an object; *obj receives its handle (0, 1, ... in order added). */
PL_EXTERN int pl_builder_add_object(pl_builder *b, const pl_object_desc *d, int *obj);
/* Add a counter to an object before any instance is added (PL_E_INVAL
 * after; on an object without instances counters may be added at any time).
 * Values are placed in declaration order, 8-byte values at 8-aligned
 * offsets, others at 4; a base value directly after its counter's value.
 * PL_E_INVAL for a size that contradicts the type, a type that needs a base
 * (FRACTION, PRECISION, MULTI) without base_type, or a base_type that is not
 * a PERF_*_BASE. *ctr receives
 * its handle (the counter's position among this object's non-base counters'
 * handles: 0, 1, ...). A counter with base_type also declares its base. */
PL_EXTERN int pl_builder_add_counter(pl_builder *b, int obj, const pl_counter_desc *d, int *ctr);
/* Add an instance to an object declared with has_instances. The name is UTF-8
 * and is stored as UTF-16LE. parent_index/parent_position are the parent
 * object's title index and the parent instance's 0-based position (0, 0 for
 * none); unique_id is PERF_NO_UNIQUE_ID when unused. *inst receives the
 * instance's position. Values start at zero. */
PL_EXTERN int pl_builder_add_instance(pl_builder *b, int obj, const char *name, uint32_t parent_index,
                                      uint32_t parent_position, int32_t unique_id, int *inst);

/* Set a value. `inst` is the instance position, or -1 for an object without
 * instances. 32-bit counters take the low 32 bits of set_u64 too. */
PL_EXTERN int pl_builder_set_u32(pl_builder *b, int obj, int inst, int ctr, uint32_t v);
PL_EXTERN int pl_builder_set_u64(pl_builder *b, int obj, int inst, int ctr, uint64_t v);
/* The value of the base counter that follows counter `ctr`. */
PL_EXTERN int pl_builder_set_base(pl_builder *b, int obj, int inst, int ctr, uint64_t v);
/* A text counter (PERF_COUNTER_TEXT, or ASCII with PERF_TEXT_ASCII): UTF-8 in,
 * stored as UTF-16LE (or ASCII) and NUL-terminated; PL_E_RANGE if it does not
 * fit the counter's declared size. */
PL_EXTERN int pl_builder_set_text(pl_builder *b, int obj, int inst, int ctr, const char *utf8);

/* Bytes pl_builder_emit() will write for all objects. */
PL_EXTERN size_t pl_builder_size(const pl_builder *b);
PL_EXTERN uint32_t pl_builder_num_objects(const pl_builder *b);

/* Write every object into buf. On PL_OK, *used is the number of bytes written
 * (a multiple of 8) and *nobjects the object count. If cap is too small,
 * returns PL_E_MORE_DATA, sets *used to the bytes needed and writes nothing. */
PL_EXTERN int pl_builder_emit(const pl_builder *b, void *buf, size_t cap, size_t *used, uint32_t *nobjects);

/* Write a PERF_DATA_BLOCK header for a block holding `nobjects` objects of
 * `objects_len` bytes that will follow the header. Fields that are 0 in *hdr_in
 * (SystemTime, PerfTime, ...) are written as given: the caller fills them. The
 * system name is UTF-8. Same size contract as pl_builder_emit(): *used is the
 * header length (HeaderLength, align8(88 + name)). */
typedef struct pl_block_header {
    SYSTEMTIME system_time;   /* UTC */
    int64_t perf_time;
    int64_t perf_freq;
    int64_t perf_time_100ns;  /* FILETIME */
    int32_t default_object;   /* 238 */
    const char *system_name;  /* UTF-8 */
} pl_block_header;
PL_EXTERN int pl_block_write_header(const pl_block_header *h, uint32_t nobjects, size_t objects_len, void *buf,
                                    size_t cap, size_t *used);

/* ----------------------------------------------------------------- reader */

/* A validated view of a block. It points into the caller's buffer, which must
 * stay unchanged while the view is used. All fields are read-only. */
typedef struct pl_block {
    const uint8_t *buf;
    size_t len;
    int has_header;           /* 0 for a bare object sequence */
    PERF_DATA_BLOCK hdr;      /* a copy; zero when has_header is 0 */
    char system_name[256];    /* UTF-8, truncated if longer */
    uint32_t num_objects;
    size_t first_object;      /* offset of the first object */
} pl_block;

typedef struct pl_object {
    const pl_block *blk;
    uint32_t position;        /* 0-based among the block's objects */
    size_t off;               /* object start in the buffer */
    PERF_OBJECT_TYPE hdr;     /* a copy */
    size_t first_instance;    /* offset of the first instance or the single counter block */
} pl_object;

typedef struct pl_counter {
    const pl_object *obj;
    uint32_t position;        /* 0-based among the object's definitions */
    PERF_COUNTER_DEFINITION def;
    int has_base;             /* the next definition is this counter's base */
    PERF_COUNTER_DEFINITION base; /* valid when has_base */
    size_t off;               /* the definition's offset in the buffer (for pl_counter_next) */
} pl_counter;

typedef struct pl_instance {
    const pl_object *obj;
    int32_t position;         /* 0-based; -1 for an object without instances */
    size_t off;               /* instance start (0 when position is -1) */
    PERF_INSTANCE_DEFINITION def; /* zero when position is -1 */
    size_t data_off;          /* the PERF_COUNTER_BLOCK */
    uint32_t data_len;        /* its ByteLength */
} pl_instance;

/* Validate and open a block. flags: PL_BLOCK_BARE for a sequence of
 * `nobjects` objects with no PERF_DATA_BLOCK header (a provider's output).
 * On failure returns PL_E_BAD_BLOCK and err names the first bad field and its
 * byte offset, e.g. "object 2 (index 230) at offset 1184: DefinitionLength 90
 * < HeaderLength + NumCounters*40 (104)". What is checked is listed in
 * docs/block-format.md; NumInstances must be >= -1 (the PERF_METADATA_*
 * values are rejected). *blk is written only on success. */
#define PL_BLOCK_BARE 1
PL_EXTERN int pl_block_open(pl_block *blk, const void *buf, size_t len, int flags, uint32_t nobjects,
                            pl_error *err);

/* Objects, counters and instances by position (0-based). They return PL_OK or
 * PL_E_NOT_FOUND past the end. Outputs are valid while *blk is. */
PL_EXTERN int pl_block_object(const pl_block *blk, uint32_t pos, pl_object *out);
/* The object after *cur (O(1); pl_block_object walks from the first, O(pos)):
 * PL_E_NOT_FOUND after the last, PL_E_BAD_BLOCK for a view that no longer
 * matches the buffer. `out` may be `cur`. */
PL_EXTERN int pl_object_next(const pl_object *cur, pl_object *out);
PL_EXTERN int pl_block_find_object(const pl_block *blk, uint32_t name_index, pl_object *out);
/* pl_object_counter finds a definition by position: O(1) when every
 * definition is 40 bytes long, else a walk from the first (O(pos)). To visit
 * them all, take position 0 and then pl_counter_next (O(1) each). */
PL_EXTERN int pl_object_counter(const pl_object *obj, uint32_t pos, pl_counter *out);
/* The definition after *cur (by cur's ByteLength, re-checked against the
 * buffer), with its base as pl_object_counter gives it; PL_E_NOT_FOUND after
 * the last one, PL_E_BAD_BLOCK for a view that no longer matches the buffer.
 * `out` may be `cur`. */
PL_EXTERN int pl_counter_next(const pl_counter *cur, pl_counter *out);
/* The first non-base definition with that name index: one linear walk. */
PL_EXTERN int pl_object_find_counter(const pl_object *obj, uint32_t name_index, pl_counter *out);
/* Number of instances: 0 for an object without instances (use pos -1). */
PL_EXTERN uint32_t pl_object_num_instances(const pl_object *obj);
/* pos -1 gives the single counter block of an object without instances (or
 * of one with 0 instances, when its block is present; PL_E_NOT_FOUND if not).
 * Random access walks the instances from the first: O(pos). */
PL_EXTERN int pl_object_instance(const pl_object *obj, int32_t pos, pl_instance *out);
/* The instance after *cur (O(1)); PL_E_NOT_FOUND after the last one. `out`
 * may be `cur`. Iterate with pl_object_instance(obj, 0, &i) then this. */
PL_EXTERN int pl_instance_next(const pl_instance *cur, pl_instance *out);

/* The instance's own name as UTF-8 (lone surrogates become U+FFFD). Same size
 * contract as snprintf: returns PL_E_MORE_DATA with a truncated result. */
PL_EXTERN int pl_instance_name(const pl_instance *inst, char *out, size_t cap);
/* The parent instance (found through ParentObjectTitleIndex/Instance in the
 * same block): PL_OK, or PL_E_NOT_FOUND when there is none or it is absent. */
PL_EXTERN int pl_instance_parent(const pl_instance *inst, pl_object *pobj, pl_instance *pinst);

/* Full names as readers show them: "parent/name" when the instance has a
 * parent in the block, with "#n" appended for the n-th (n >= 1) earlier
 * instance of the same object with the same full name (byte-exact match).
 * The parent part is the parent instance's own name. Computes every name of
 * the object at once (linear time); *names is an array of NumInstances
 * strings followed by a NULL, all in one allocation, freed with pl_free().
 * As many children may name one parent, the names together can be far
 * larger than the block: past PL_NAMES_MAX_BYTES(block length) bytes this
 * returns PL_E_RANGE (only a hostile block gets there: a 1.7 MB block with
 * a 32,000-character parent and 40,000 children would need 1.3 GB). *names
 * is written only on PL_OK. */
#define PL_NAMES_MAX_BYTES(block_len) ((size_t)64 * 1024 * 1024 + (size_t)16 * (size_t)(block_len))
PL_EXTERN int pl_object_instance_names(const pl_object *obj, char ***names);

/* Raw values. `v` receives the counter's value: 32-bit counters zero-extended.
 * PL_E_INVAL for a text or zero-size counter. */
PL_EXTERN int pl_counter_value(const pl_counter *c, const pl_instance *inst, uint64_t *v);
/* The base value: of the definition that follows (has_base). */
PL_EXTERN int pl_counter_base(const pl_counter *c, const pl_instance *inst, uint64_t *v);
/* A text counter's value as UTF-8. */
PL_EXTERN int pl_counter_text(const pl_counter *c, const pl_instance *inst, char *out, size_t cap);

/* The "Unavailable Counters" protocol (docs/block-format.md, "Unavailable
 * values"): an object may carry the counter PL_CTR_UNAVAILABLE_COUNTERS (1964,
 * PERF_COUNTER_LARGE_RAWCOUNT_HEX, 8 bytes); in an instance's counter block
 * (or the single one) bit i set means the definition at position i (0-based,
 * bases included; bit 63 stands for every position >= 63) could not be read
 * for that instance, and its raw value is meaningless (providers write 0).
 * Returns 0 when counter c is marked for inst -- its own bit, or its base's
 * bit when it has one (c->has_base) -- and 1 otherwise: the object has no
 * marker (a definition with that index but another type or size is not one),
 * the bits are clear, c is the marker itself, or the marker's value cannot be
 * read. Arguments that pl_counter_value() would reject (NULL, an instance of
 * another object) also give 1: reading the value reports that error. Looks
 * the marker up on each call (O(NumCounters)); nothing is cached. */
PL_EXTERN int pl_counter_available(const pl_counter *c, const pl_instance *inst);

/* Helpers on counter types. */
PL_EXTERN int pl_type_is_base(uint32_t type);
PL_EXTERN uint32_t pl_type_size(uint32_t type);  /* 4, 8 or 0 (zero/variable) */
PL_EXTERN const char *pl_type_name(uint32_t type); /* "PERF_COUNTER_RAWCOUNT", or NULL */

#ifdef __cplusplus
}
#endif

#endif
