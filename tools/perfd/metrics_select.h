/* perfd /metrics: which counters a scrape serves (docs/perfd.md, "Choosing
 * counters"). The parsers of metrics_counters / metrics_exclude (lists of
 * PDH counter paths) and of the collect[] query parameter: pure functions,
 * fuzzed by tests/fuzz/fuzz_metrics_select.c. The paths themselves are
 * split and matched by the PDH layer (pl_pdh_selection, perflib/pdh.h). */
#ifndef PERFD_METRICS_SELECT_H
#define PERFD_METRICS_SELECT_H

#include <stddef.h>
#include <stdint.h>

#define PM_PATHS_MAX 256      /* paths in one setting */
#define PM_PATH_LEN_MAX 1024  /* bytes in one path */
#define PM_COLLECT_MAX 64     /* collect[] values in one request */

/* A list of counter paths: "PATH[;PATH...]" (blanks around each path and
 * empty items are dropped; a newline separates too). Every path is checked
 * by the PDH path parser and must name no machine. 0 with *paths (*n of
 * them, one allocation: free(*paths)) or -1 with `why` naming the setting
 * `key` and the path. An empty value is the empty list. */
int pm_paths_parse(const char *key, const char *value, char ***paths, size_t *n, char *why, size_t whylen);

/* One collect[] value: an object by English (or default-language) name or
 * by decimal index, resolved by `find` (0: no such object). 0 with *index,
 * or -1 with `why` saying what is wrong with the value. */
typedef uint32_t (*pm_find_object)(void *ctx, const char *name);
int pm_collect_parse(const char *value, pm_find_object find, void *ctx, uint32_t *index, char *why, size_t whylen);

/* metrics_process_top: "off", or N processes (0 is off) up to
 * PM_TOP_MAX. 0 with *n, or -1 with `why`. */
#define PM_TOP_MAX 10000
int pm_top_parse(const char *value, uint32_t *n, char *why, size_t whylen);

/* metrics_process_top_by: "cpu" (% Processor Time), "memory" (Working
 * Set), "io" (IO Data Bytes/sec), a counter index, or a counter name
 * (English or default language, looked up when a scrape is rendered).
 * 0 with *index (0 for a name, which is then the trimmed value itself),
 * or -1 with `why`. */
int pm_top_by_parse(const char *value, uint32_t *index, char *why, size_t whylen);

#endif
