/* perfd: Prometheus remote_write (push.c, docs/perfd.md, "Push:
 * remote_write"): the samples of /metrics pushed to a configured endpoint. */
#ifndef PERFD_PUSH_H
#define PERFD_PUSH_H

#include <stddef.h>
#include <stdint.h>

#include "metrics_text.h"
#include "perfd.h"

/* Start the push thread when remote_write_url is set (0 also when it is
 * not); -1 with why. perfd_push_stop ends it (any time, also unstarted). */
int perfd_push_start(char *why, size_t whylen);
void perfd_push_stop(void);

/* SIGHUP (the main thread): read remote_write_token_file again, by the
 * rules of the start, and try a queue held back by a 401, 403 or refused
 * certificate at once. 1: the new token goes with the next request; 0: no
 * token to reload (no push, no token file); -1 with why: the previous
 * token stays. */
int perfd_push_reload(char *why, size_t whylen);

/* perfd's own remote_write metrics, in /metrics (nothing when not pushing). */
void perfd_push_self_metrics(pm_out *o, int openmetrics);

/* metrics.c for push.c: one rendering of /metrics as configured, without a
 * request. new: the query to take the snapshot of (*query, valid as long
 * as the job) or NULL with why; set_snap: the snapshot to render (a
 * reference is taken); render: on perfd's worker thread (perfd_work_call);
 * text: the Prometheus text 0.0.4 and the collection's time, or NULL when
 * the rendering failed. */
typedef struct perfd_metrics_job perfd_metrics_job;
perfd_metrics_job *perfd_metrics_job_new(const char **query, char *why, size_t whylen);
void perfd_metrics_job_set_snap(perfd_metrics_job *job, perfd_snap *s);
void perfd_metrics_job_render(void *job);
const char *perfd_metrics_job_text(perfd_metrics_job *job, size_t *len, int64_t *ts_ms);
void perfd_metrics_job_free(perfd_metrics_job *job);

/* work.c: run fn(arg) on perfd's worker thread and wait until it has run.
 * 0, or -1 when perfd is stopping (fn was not run). Never from the server
 * thread. */
int perfd_work_call(void (*fn)(void *arg), void *arg);

#endif
