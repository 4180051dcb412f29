/* perfd: work off the server thread (perfd.h, perfd_defer).
 *
 * A handler whose answer takes a while to build (rendering /metrics or
 * /v1/json of a large snapshot) hands a function to this file's one worker
 * thread and returns PERFD_WAIT; its connection is suspended until the
 * function has run, then the server thread calls the handler again. So the
 * server thread only ever parses requests, queues answers and moves bytes:
 * a large render no longer delays every other client.
 *
 * The connection is suspended before the job is queued, so the worker's
 * resume can never come first. Jobs run in the order they came; at
 * shutdown (perfd_work_stop) the worker finishes the queue and exits, and
 * the answers go out before the server stops. A second after its last job
 * the worker gives back the memory the work no longer needs. */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "daemon.h"
#include "push.h"

typedef struct job {
    perfd_req *req;
    void (*fn)(void *arg);
    void *arg;
    int *done;            /* perfd_work_call's: set when fn has run */
    struct job *next;
} job;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_cond_t done_cv;  /* perfd_work_call's jobs */
    pthread_t thread;
    int started, stopping;
    job *head, *tail;
} W = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .done_cv = PTHREAD_COND_INITIALIZER};

int perfd_idle_wait(pthread_cond_t *cv, pthread_mutex_t *mu, int *busy)
{
    if (!*busy) {
        pthread_cond_wait(cv, mu);
        return 0;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts); /* the default clock of perfd's conditions */
    ts.tv_sec += PERFD_IDLE_TRIM_S;
    if (pthread_cond_timedwait(cv, mu, &ts) != ETIMEDOUT) return 0;
    *busy = 0;
    return 1;
}

/* Memory after the work: a rendering's buffers are large and gone, and
 * the snapshots rendered are too old to serve again a moment later; they
 * need not stay until the next scrape. Once the worker has been idle for a
 * second, the stale snapshots are dropped and the heaps' free pages handed
 * back, so perfd's RSS between scrapes is what it still uses. */
static void *worker(void *arg)
{
    (void)arg;
    int worked = 0;
    pthread_mutex_lock(&W.mu);
    for (;;) {
        while (!W.head && !W.stopping) {
            if (perfd_idle_wait(&W.cv, &W.mu, &worked) && !W.head) {
                pthread_mutex_unlock(&W.mu);
                perfd_snapshot_trim();
                malloc_trim(0);
                pthread_mutex_lock(&W.mu);
            }
        }
        job *j = W.head;
        if (!j) break; /* stopping, and the queue is empty */
        W.head = j->next;
        if (!W.head) W.tail = NULL;
        pthread_mutex_unlock(&W.mu);
        j->fn(j->arg);
        if (j->req) MHD_resume_connection(j->req->conn);
        worked = 1;
        pthread_mutex_lock(&W.mu);
        if (j->done) {
            *j->done = 1;
            pthread_cond_broadcast(&W.done_cv);
        }
        free(j);
    }
    pthread_mutex_unlock(&W.mu);
    return NULL;
}

/* Queue j (W.mu held; the worker started if needed). 0, or -1 when
 * stopping. */
static int enqueue(job *j)
{
    if (W.stopping || (!W.started && pthread_create(&W.thread, NULL, worker, NULL) != 0)) return -1;
    W.started = 1;
    if (j->req) {
        MHD_suspend_connection(j->req->conn);
        j->req->suspended_ = 1;
    }
    if (W.tail) W.tail->next = j;
    else W.head = j;
    W.tail = j;
    pthread_cond_signal(&W.cv);
    return 0;
}

int perfd_defer(perfd_req *r, void (*fn)(void *arg), void *arg)
{
    job *j = calloc(1, sizeof *j);
    if (!j) return PERFD_FAIL;
    j->req = r;
    j->fn = fn;
    j->arg = arg;
    pthread_mutex_lock(&W.mu);
    int rc = enqueue(j);
    pthread_mutex_unlock(&W.mu);
    if (rc != 0) free(j);
    return rc ? PERFD_FAIL : PERFD_WAIT;
}

int perfd_work_call(void (*fn)(void *arg), void *arg)
{
    job *j = calloc(1, sizeof *j);
    if (!j) return -1;
    int done = 0;
    j->fn = fn;
    j->arg = arg;
    j->done = &done;
    pthread_mutex_lock(&W.mu);
    int rc = enqueue(j);
    if (rc != 0) free(j);
    else
        while (!done) pthread_cond_wait(&W.done_cv, &W.mu);
    pthread_mutex_unlock(&W.mu);
    return rc;
}

void perfd_work_stop(void)
{
    pthread_mutex_lock(&W.mu);
    W.stopping = 1;
    int started = W.started;
    pthread_cond_broadcast(&W.cv);
    pthread_mutex_unlock(&W.mu);
    if (started) pthread_join(W.thread, NULL);
    W.started = 0;
}
