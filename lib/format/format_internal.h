/* perflib format module internals (builder, reader, type helpers). */
#ifndef PL_FORMAT_INTERNAL_H
#define PL_FORMAT_INTERNAL_H

#include "pl_internal.h"
#include "perflib/block.h"

#define PL__OBJ_LEN 64u   /* sizeof(PERF_OBJECT_TYPE) */
#define PL__DEF_LEN 40u   /* sizeof(PERF_COUNTER_DEFINITION) */
#define PL__INST_LEN 24u  /* sizeof(PERF_INSTANCE_DEFINITION) */
#define PL__HDR_LEN 88u   /* sizeof(PERF_DATA_BLOCK) */

/* A counter type that must be followed by a base definition (FRACTION and
 * PRECISION subtypes, and MULTI counters that are not bases themselves). */
int pl__type_needs_base(uint32_t type);
/* PERF_SIZE_VARIABLE_LEN | PERF_TYPE_TEXT (Unicode or ASCII). */
int pl__type_is_text(uint32_t type);

/* Number of buffer (re)allocations a builder has made since it was created;
 * lets tests check that the collection hot path stops allocating. */
size_t pl__builder_allocations(const pl_builder *b);

#endif
