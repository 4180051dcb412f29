/* perfquery's JSON dump of a snapshot (docs/perfquery.md), shared with
 * perfd's /v1/json. */
#ifndef PQ_JSON_H
#define PQ_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "perflib/block.h"
#include "perflib/registry.h"
#include "pq_text.h"

/* What the dump shows of the block header; the time fields can be replaced
 * by PERFLIB_FIXED_TIME so that test output does not change. */
typedef struct pq_header_view {
    const char *system_name;
    pq_civil time;
    int64_t perf_time, perf_freq, perf_time_100ns;
    uint32_t num_objects;
} pq_header_view;

/* The name of title `index`, or NULL (t may be NULL). */
const char *pq_title(const pl_titles *t, uint32_t index);
/* A text counter's value as a newly allocated string (free()), or NULL. */
char *pq_counter_text(const pl_counter *c, const pl_instance *inst);
int pq_is_text_type(uint32_t type);
/* The whole block as JSON. With schema non-NULL, a first member
 * "schema": schema (perfd's versioned form). */
void pq_json_dump(FILE *f, const pl_block *blk, const pq_header_view *hv, const pl_titles *t, const char *schema);

#endif
