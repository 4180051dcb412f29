/* perfd: the Prometheus / OpenMetrics exposition of a performance data block
 * (docs/perfd.md, "/metrics"). A pure function of the block, the names, the
 * options and the wrap state, so that tests can feed it canned blocks; the
 * route (metrics.c) adds the snapshot, the titles and the negotiation. */
#ifndef PERFD_METRICS_TEXT_H
#define PERFD_METRICS_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "perflib/block.h"

typedef struct pm_names {
    /* English name / help text of a title index, or NULL. */
    const char *(*name)(void *ctx, uint32_t index);
    const char *(*help)(void *ctx, uint32_t index);
    void *ctx;
} pm_names;

typedef struct pm_options {
    int openmetrics;          /* 1: OpenMetrics 1.0 text, else Prometheus text 0.0.4 */
    int include_total;        /* export _Total instances */
    /* objects to export: NULL / n == 0 means every object except Process and
     * Thread; all != 0 means every object */
    const uint32_t *objects;
    size_t nobjects;
    int all;
} pm_options;

/* The 32-bit counters' extension to 64 bits across wraps, kept between
 * scrapes (one per perfd; used from the server thread only). */
typedef struct pm_state pm_state;
pm_state *pm_state_new(void);
void pm_state_free(pm_state *st);

/* Build the exposition of `blk` (a validated block). `seq` is the snapshot's
 * publication number: the same snapshot scraped twice extends nothing twice.
 * *out (malloc'd, *len bytes) on 0; -1 when out of memory. */
int pm_render(const pl_block *blk, uint64_t seq, const pm_names *names, const pm_options *opt, pm_state *st,
              char **out, size_t *len);

/* How a counter type is exported (docs/perfd.md table): for tests and docs. */
typedef enum pm_kind {
    PM_SKIP = 0,              /* not exported (bases, no data, histogram) */
    PM_GAUGE,                 /* the raw value */
    PM_GAUGE_RATIO,           /* value / base, "_ratio" */
    PM_COUNTER,               /* the raw value, "_total" (32-bit: extended) */
    PM_COUNTER_SECONDS,       /* value / frequency, "_seconds_total" */
    PM_COUNTER_INVERSE,       /* value / frequency, "_inverse_seconds_total" (time NOT busy) */
    PM_COUNTER_QUEUE,         /* value / frequency, "_total": rate() is the average queue length */
    PM_PRECISION,             /* value / 10^7 "_seconds_total" and its base "_base_seconds_total" */
    PM_SUMMARY_SECONDS,       /* _sum = value / frequency, _count = base: "_seconds" summary */
    PM_SUMMARY,               /* _sum = value, _count = base */
    PM_SUMMARY_RATIO,         /* _sum = value, _count = base, "_ratio" summary */
    PM_ELAPSED,               /* "_start_time_seconds" gauge (Unix time) */
    PM_TEXT,                  /* "_info" gauge 1 with the text as label "value" */
} pm_kind;
pm_kind pm_kind_of(uint32_t type);

#endif
