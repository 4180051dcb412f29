/* perfd /metrics: the top processes (docs/perfd.md, "Top processes"). With
 * metrics_process_top = N, the Process object is served for the N
 * processes highest by one counter, and every other process is summed into
 * one "_Other" instance, so that sums over the object stay right with a
 * fixed number of series. This is the state kept between scrapes for it:
 * each process's last raw values (a process is its pid and start time), to
 * rank cumulative counters by what they did since the previous snapshot and
 * to keep _Other's counters monotonic while processes move in and out of
 * it (each adds its increase since the previous snapshot, never its whole
 * value twice). Pure: the renderer (metrics_text.c) gives it numbers. */
#ifndef PERFD_METRICS_TOP_H
#define PERFD_METRICS_TOP_H

#include <stddef.h>
#include <stdint.h>

typedef struct pm_top pm_top;
pm_top *pm_top_new(void);
void pm_top_free(pm_top *t);

/* One render of the Process object of the snapshot `seq` (the same seq
 * again changes nothing kept): n instances, pid[i] and start[i] (its
 * creation time, raw) identify instance i; eligible[i] == 0 for those never
 * ranked (totals, pid 0: shown as they are). rank[i]: the ranking
 * counter's raw value (cum != 0: cumulative, ranked by its increase since
 * the previous snapshot, the whole value for a process not seen then;
 * size4: a 32-bit value that may wrap). Fills in_other[i] = 1 for every
 * eligible instance not among the `topn` highest. 0, or -1 out of memory. */
int pm_top_begin(pm_top *t, uint64_t seq, uint32_t n, const uint64_t *pid, const uint64_t *start,
                 const unsigned char *eligible, const uint64_t *rank, int cum, int size4, uint32_t topn,
                 unsigned char *in_other);

/* _Other's raw value for counter `cidx`: vals[i] of every instance (have[i]
 * == 0: not readable), cum: a cumulative counter (the sum of increases,
 * kept across scrapes), else a gauge (the sum now). Every instance's value
 * is kept for the next snapshot (a value not readable now keeps the last
 * one read, so that it is never counted twice). *complete: every member of
 * _Other had its value (else the sum is not written: a sum of some would
 * be a wrong number). */
uint64_t pm_top_other(pm_top *t, uint32_t cidx, const uint64_t *vals, const unsigned char *have, int cum, int size4,
                      int *complete);

/* The render is over: what it saw becomes "the previous snapshot". */
void pm_top_end(pm_top *t);

#endif
