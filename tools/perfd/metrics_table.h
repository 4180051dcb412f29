/* perfd: what a counter becomes in /metrics (docs/perfd.md, "/metrics: the
 * table"). One table from a counter's semantics -- its type, the unit words
 * of its name, and what perflib knows of each built-in counter (its unit,
 * a scale in its raw value, a running total kept as a plain count) -- to
 * the metric's name, Prometheus type, unit, conversion and HELP text.
 *
 * The exposition (metrics_text.c) asks it for every counter it writes, and
 * any other way of choosing counters (a counter path, an object list) is to
 * ask it too: the same counter always gets the same name, unit and HELP.
 * A pure function of its arguments: callable from any thread. */
#ifndef PERFD_METRICS_TABLE_H
#define PERFD_METRICS_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* How a counter's samples are made (the column "exported as" of the
 * table in docs/perfd.md). */
typedef enum pm_kind {
    PM_SKIP = 0,              /* not exported (bases, no data, histogram, label-only) */
    PM_GAUGE,                 /* raw x conversion */
    PM_GAUGE_RATIO,           /* value / base, "_ratio" */
    PM_COUNTER,               /* raw x conversion, "_total" (32-bit: extended) */
    PM_COUNTER_SECONDS,       /* value / frequency, "_seconds_total" */
    PM_COUNTER_INVERSE,       /* value / frequency, "_inverse_seconds_total" (time NOT busy) */
    PM_COUNTER_QUEUE,         /* value / frequency, "_seconds_total": rate() is the average queue length */
    PM_PRECISION,             /* value / frequency "_seconds_total" and its base "_base_seconds_total" */
    PM_SUMMARY_SECONDS,       /* _sum = value / frequency, _count = base: "_seconds" summary */
    PM_SUMMARY,               /* _sum = value x conversion, _count = base */
    PM_SUMMARY_RATIO,         /* _sum = value, _count = base, "_ratio" summary */
    PM_ELAPSED,               /* "_seconds" gauge: the start as Unix time */
    PM_TEXT,                  /* "_info" gauge 1 with the text as label "value" */
    PM_DOUBLE,                /* a gauge of the raw value read as a double (PERF_DOUBLE_RAW) x conversion */
} pm_kind;

/* The kind a counter type has before anything is known of the counter. */
pm_kind pm_kind_of(uint32_t type);

typedef enum pm_unit {
    PM_UNIT_NONE = 0,
    PM_UNIT_BYTES,            /* "_bytes" */
    PM_UNIT_SECONDS,          /* "_seconds" */
    PM_UNIT_HERTZ,            /* "_hertz" */
    PM_UNIT_RATIO,            /* "_ratio": 0 to 1 */
    PM_UNIT_BYTES_PER_SECOND, /* "_bytes_per_second" (a capacity, not a rate of a counter) */
    PM_UNIT_COUNT_            /* (number of units) */
} pm_unit;
const char *pm_unit_suffix(pm_unit u); /* "bytes", ...; "" for none */

/* The conversion from the raw value: sample = raw x num / den (den > 0),
 * kept as a fraction so that the exposition can write it exactly (a timer
 * in 100 ns units is raw / 10,000,000; Available MBytes is raw x 1,048,576).
 * For timers the renderer multiplies den by the time base frequency. */
typedef struct pm_conv {
    uint64_t num, den;
} pm_conv;

#define PM_NAME_MAX 256
#define PM_HELP_MAX 1200

typedef struct pm_metric {
    pm_kind kind;             /* PM_SKIP: nothing to write */
    pm_unit unit;
    pm_conv conv;
    int from_table;           /* the counter has a row in the table (built-in) */
    int is_signed;            /* the raw value is two's complement (a 4-byte one: 32 bits) */
    char name[PM_NAME_MAX];   /* family name without _total/_sum/_count/_info */
    size_t unit_at;           /* where "_<unit>" starts in name (its length when there is none) */
    char help[PM_HELP_MAX];   /* one line, not yet escaped */
} pm_metric;

/* What a counter becomes. object/counter: the English names (NULL when the
 * title is missing: "object_<index>" / "counter_<index>"); explain: the
 * counter's English Explain text or NULL. Always fills *m (kind PM_SKIP for
 * what is not exported). */
void pm_metric_of(uint32_t object_index, const char *object, uint32_t counter_index, uint32_t counter_type,
                  const char *counter, const char *explain, pm_metric *m);

/* The metric name of an object: perflib_<snake case of its English name>. */
void pm_object_prefix(uint32_t object_index, const char *object, char *out, size_t cap);

/* How an object's instances are labelled (docs/perfd.md, "Labels"). */
enum {
    PM_ID_PID = 1,            /* a pid label from ID Process */
    PM_ID_TID = 2,            /* a tid label from ID Thread */
};
typedef struct pm_labels {
    char instance[128];       /* label of the instance name */
    int positional;           /* the name is only a position (Thread: "0", "1", ... within its process,
                               * taken by the next thread when one ends): left out where an ID label
                               * says which instance it is */
    unsigned ids;             /* PM_ID_* */
    int transient;            /* instances come and go (processes, threads): the _Total of a counter
                               * kind would fall when one ends, so it is never a counter */
} pm_labels;
void pm_labels_of(uint32_t object_index, const char *object, pm_labels *l);

/* For tests and docs: the number of rows of the built-in table and row i
 * (its counter index), so that a test can check every built-in counter
 * has one. */
size_t pm_table_rows(void);
uint32_t pm_table_counter(size_t i);

#endif
