/* perfd: the Prometheus / OpenMetrics exposition of a performance data block
 * (docs/perfd.md, "/metrics"). A pure function of the block, the names, the
 * options and the wrap state, so that tests can feed it canned blocks; the
 * route (metrics.c) adds the snapshot, the titles, the negotiation, perfd's
 * own metrics and the compression. What each counter becomes is the table
 * of metrics_table.h. */
#ifndef PERFD_METRICS_TEXT_H
#define PERFD_METRICS_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "metrics_table.h"
#include "perflib/block.h"
#include "webbuf.h"

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
    int none;                 /* no whole object (only what pick chooses) */
    /* collect[]: only these objects (n == 0: no restriction) */
    const uint32_t *only;
    size_t nonly;
    /* Counters chosen by path (metrics_counters, metrics_exclude): when
     * pick_open is set it is called for each object the restriction above
     * lets through, with whole = pm_wanted(); it returns NULL when nothing
     * of the object is served (*failed set when out of memory), else a
     * handle asked by pick_has which counter of which instance (position
     * in block order, 0 without instances) is served, and closed by
     * pick_close. */
    void *(*pick_open)(void *ctx, const pl_object *o, int whole, int *failed);
    int (*pick_has)(void *h, uint32_t counter_index, uint32_t pos);
    void (*pick_close)(void *h);
    void *pick_ctx;
    /* Top processes (metrics_process_top): the Process object for the
     * top_n processes highest by counter top_by, the rest summed into
     * process="_Other" (0: every process). Needs the state (pm_state). */
    uint32_t top_n;
    uint32_t top_by;
} pm_options;

/* Is the object with that title index exported whole under these options
 * (the collect[] restriction included; pick_open not asked)? */
int pm_wanted(const pm_options *opt, uint32_t object_index);
/* Does the collect[] restriction let the object through? */
int pm_allowed(const pm_options *opt, uint32_t object_index);

/* The 32-bit counters' extension to 64 bits across wraps, kept between
 * scrapes (one per perfd; one scrape at a time uses it). */
typedef struct pm_state pm_state;
pm_state *pm_state_new(void);
void pm_state_free(pm_state *st);

/* Where the text goes. failed: out of memory. */
typedef struct pm_out {
    wb b;
    int failed;
    /* labels put first in every sample (`system_name="X"`, made with
     * pm_label), NULL for none */
    const char *prefix;
    size_t prefix_len;
} pm_out;

/* The families of every wanted object of `blk` (a validated block), without
 * the OpenMetrics "# EOF". `seq` is the snapshot's publication number: the
 * same snapshot rendered twice extends nothing twice. 0, or -1 when
 * o->failed. */
int pm_render_objects(const pl_block *blk, uint64_t seq, const pm_names *names, const pm_options *opt,
                      pm_state *st, pm_out *o);

/* A family of one's own (perfd's self metrics): HELP, TYPE (and UNIT in
 * OpenMetrics); then its samples. labels: `a="x",b="y"` made with
 * pm_label, or NULL. */
void pm_family(pm_out *o, int openmetrics, const char *family, pm_kind kind, pm_unit unit, const char *help);
void pm_sample(pm_out *o, const char *family, const char *suffix, const char *labels, double v);
/* Append `key="value"` (escaped) to a label list, with a comma when b
 * already holds one. */
void pm_label(wb *b, const char *key, const char *value);
void pm_eof(pm_out *o, int openmetrics); /* "# EOF\n" in OpenMetrics */

/* The whole exposition of blk (pm_render_objects and the EOF) as one
 * malloc'd string: *out (*len bytes, NUL-terminated). 0 or -1. */
int pm_render(const pl_block *blk, uint64_t seq, const pm_names *names, const pm_options *opt, pm_state *st,
              char **out, size_t *len);

#endif
