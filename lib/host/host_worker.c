/* perflib: the watchdog thread of an in-process provider (host_worker.h).
 *
 * The hand-off is two semaphores and one atomic state: the caller posts
 * `job` and waits on `done` with a deadline, the worker waits on `job` and
 * posts `done`. A semaphore makes a system call only when someone sleeps or
 * must be woken, so a call costs the two wake-ups it needs and nothing for
 * a mutex both sides would take (a mutex and condition variables made ~8
 * futex calls per Collect; issue 17, docs/benchmarks.md). A call that
 * passes its deadline stays the worker's ("late", issue 33): the caller
 * waits for it again later (pl__worker_wait), and only gives it up for
 * good at the end (pl__worker_abandon). Who owns the call then is settled
 * by one compare-and-swap on `state`: JOB -> DONE by the worker when the
 * call returns, JOB -> ABANDONED by the caller; whoever loses knows the
 * other won. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "host_worker.h"

enum { IDLE, JOB, DONE, ABANDONED, QUIT };

struct pl__worker {
    pthread_t th;
    sem_t job, done;
    int state;    /* atomic: IDLE, JOB, DONE, ABANDONED, QUIT */
    pl__call call;
    void *orphan; /* set before the CAS that abandons: the worker reads it only after losing */
};

static void destroy(pl__worker *w)
{
    sem_destroy(&w->job);
    sem_destroy(&w->done);
    free(w);
}

static int cas(int *p, int from, int to)
{
    return __atomic_compare_exchange_n(p, &from, to, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static void *run(void *arg)
{
    pl__worker *w = arg;
    /* Signals belong to the consumer's own threads. */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    for (;;) {
        while (sem_wait(&w->job) != 0) { /* EINTR only: signals are blocked, but be safe */
        }
        if (__atomic_load_n(&w->state, __ATOMIC_ACQUIRE) == QUIT) break;
        pl__call *c = &w->call;
        if (c->enter) c->enter(c->ctx);
        if (c->kind == PL__CALL_OPEN) c->rc = c->open ? c->open(c->arg) : 0;
        else if (c->kind == PL__CALL_COLLECT) c->rc = c->collect(c->arg, &c->data, &c->bytes, &c->nobj);
        else c->rc = c->close ? c->close() : 0;
        if (c->leave) c->leave(c->ctx);
        free(c->arg);
        c->arg = NULL;
        if (!cas(&w->state, JOB, DONE)) { /* ABANDONED: the caller gave up on us long ago */
            free(w->orphan);
            destroy(w);
            return NULL;
        }
        sem_post(&w->done);
    }
    return NULL;
}

pl__worker *pl__worker_new(void)
{
    pl__worker *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    if (sem_init(&w->job, 0, 0) != 0) {
        free(w);
        return NULL;
    }
    if (sem_init(&w->done, 0, 0) != 0) {
        sem_destroy(&w->job);
        free(w);
        return NULL;
    }
    w->state = IDLE;
    if (pthread_create(&w->th, NULL, run, w) != 0) {
        destroy(w);
        return NULL;
    }
    return w;
}

/* The call has returned (the worker set DONE and posted `done`, which the
 * caller has taken): its results into *c, the worker idle again. */
static void take_results(pl__worker *w, pl__call *c)
{
    /* The worker set DONE (release) after its last write to w->call and
     * before its post: this acquire orders our reads after those writes
     * (also for tools that do not model every semaphore wait). */
    while (__atomic_load_n(&w->state, __ATOMIC_ACQUIRE) != DONE) {
    }
    *c = w->call;
    __atomic_store_n(&w->state, IDLE, __ATOMIC_RELEASE);
}

int pl__worker_wait(pl__worker *w, pl__call *c, uint32_t ms)
{
    if (ms == 0) {
        while (sem_trywait(&w->done) != 0)
            if (errno != EINTR) return 0;
        take_results(w, c);
        return 1;
    }
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    dl.tv_sec += (time_t)(ms / 1000);
    dl.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    for (;;) {
        if (sem_clockwait(&w->done, CLOCK_MONOTONIC, &dl) == 0) break;
        if (errno == EINTR) continue;
        return 0; /* ETIMEDOUT (or a semaphore error): still running */
    }
    take_results(w, c);
    return 1;
}

int pl__worker_call(pl__worker *w, pl__call *c, uint32_t ms)
{
    w->call = *c;
    c->arg = NULL; /* the worker's now */
    __atomic_store_n(&w->state, JOB, __ATOMIC_RELEASE);
    sem_post(&w->job);
    return pl__worker_wait(w, c, ms);
}

int pl__worker_abandon(pl__worker *w, pl__call *c, void *orphan)
{
    pthread_t th = w->th; /* once abandoned, w is the worker's to free */
    w->orphan = orphan;   /* read by the worker only after it loses the CAS below */
    if (cas(&w->state, JOB, ABANDONED)) {
        pthread_detach(th); /* valid until detached, even if it ended */
        return 1;
    }
    w->orphan = NULL;
    while (sem_wait(&w->done) != 0) { /* DONE: its post is on the way or there */
    }
    take_results(w, c);
    return 0;
}

void pl__worker_free(pl__worker *w)
{
    if (!w) return;
    __atomic_store_n(&w->state, QUIT, __ATOMIC_RELEASE);
    sem_post(&w->job);
    pthread_join(w->th, NULL);
    destroy(w);
}
