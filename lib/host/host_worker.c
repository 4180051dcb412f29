/* perflib: the watchdog thread of an in-process provider (host_worker.h). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "host_worker.h"

enum { IDLE, JOB, DONE, QUIT };

struct pl__worker {
    pthread_t th;
    pthread_mutex_t m;
    pthread_cond_t cv_job, cv_done;
    int state;
    int abandoned;
    pl__call call;
    void *orphan;
};

static void destroy(pl__worker *w)
{
    pthread_cond_destroy(&w->cv_job);
    pthread_cond_destroy(&w->cv_done);
    pthread_mutex_destroy(&w->m);
    free(w);
}

static void *run(void *arg)
{
    pl__worker *w = arg;
    /* Signals belong to the consumer's own threads. */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_mutex_lock(&w->m);
    for (;;) {
        while (w->state != JOB && w->state != QUIT) pthread_cond_wait(&w->cv_job, &w->m);
        if (w->state == QUIT) break;
        pl__call *c = &w->call;
        pthread_mutex_unlock(&w->m);
        if (c->kind == PL__CALL_OPEN) c->rc = c->open ? c->open(c->arg) : 0;
        else if (c->kind == PL__CALL_COLLECT) c->rc = c->collect(c->arg, &c->data, &c->bytes, &c->nobj);
        else c->rc = c->close ? c->close() : 0;
        free(c->arg);
        c->arg = NULL;
        pthread_mutex_lock(&w->m);
        if (w->abandoned) { /* the caller gave up on us long ago */
            pthread_mutex_unlock(&w->m);
            free(w->orphan);
            destroy(w);
            return NULL;
        }
        w->state = DONE;
        pthread_cond_signal(&w->cv_done);
    }
    pthread_mutex_unlock(&w->m);
    return NULL;
}

pl__worker *pl__worker_new(void)
{
    pl__worker *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&w->m, NULL);
    pthread_cond_init(&w->cv_job, NULL);
    pthread_cond_init(&w->cv_done, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&w->th, NULL, run, w) != 0) {
        destroy(w);
        return NULL;
    }
    return w;
}

int pl__worker_call(pl__worker *w, pl__call *c, uint32_t ms, void *orphan)
{
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    dl.tv_sec += (time_t)(ms / 1000);
    dl.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&w->m);
    w->call = *c;
    c->arg = NULL; /* the worker's now */
    w->state = JOB;
    pthread_cond_signal(&w->cv_job);
    int e = 0;
    while (w->state != DONE && e != ETIMEDOUT) e = pthread_cond_timedwait(&w->cv_done, &w->m, &dl);
    if (w->state != DONE) {
        w->abandoned = 1;
        w->orphan = orphan;
        pthread_detach(w->th);
        pthread_mutex_unlock(&w->m);
        return 0;
    }
    *c = w->call;
    w->state = IDLE;
    pthread_mutex_unlock(&w->m);
    return 1;
}

void pl__worker_free(pl__worker *w)
{
    if (!w) return;
    pthread_mutex_lock(&w->m);
    w->state = QUIT;
    pthread_cond_signal(&w->cv_job);
    pthread_mutex_unlock(&w->m);
    pthread_join(w->th, NULL);
    destroy(w);
}
