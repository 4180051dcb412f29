/* perflib: PerfNet's root-qdisc dump thread (perfnet_int.h).
 *
 * Network Interface's Output Queue Length comes from an RTM_GETQDISC dump,
 * which takes rtnl: a mutex the kernel holds across driver calls, sometimes
 * for seconds. The dump runs on a thread of PerfNet's own, started on first
 * need and woken by a semaphore; a Collect asks for it first and reads
 * /proc/net/dev and sysfs meanwhile (the two run on the two CPUs at once),
 * then waits for it with a deadline. The hand-off is the watchdog's
 * (lib/host/host_worker.c): two semaphores and one atomic state, and a
 * single compare-and-swap settles a dump that returns just as the deadline
 * passes.
 *
 *   IDLE -> JOB              the Collect asks (pl__pn_dump_start)
 *   JOB -> DONE              the thread, when the dump returns; posts `done`
 *   DONE -> IDLE             the Collect, having taken the result
 *   JOB -> ABANDONED         the Collect, when the deadline passes first
 *   ABANDONED -> IDLE        the thread, when the late dump returns: dumps
 *                            resume with the next Collect
 *   ABANDONED -> ORPHAN      the last Close or unload while it is stuck: the
 *                            thread frees everything when it returns
 *   IDLE -> QUIT             the last Close or unload: joined
 *
 * A stuck thread is inside the library's code (a system call made from
 * it); if the library were unloaded meanwhile, the return would jump into
 * unmapped memory. So the first abandoned dump pins the library
 * (RTLD_NODELETE): it stays mapped until the process ends. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfnet_int.h"
#include "provider_thread.h"

#ifdef PERFNET_TEST_HOOKS
pn_dump_fn *pl__pn_test_dump;
int pl__pn_test_inline;
#endif

enum { IDLE, JOB, DONE, ABANDONED, ORPHAN, QUIT };

struct pn_dumper {
    pthread_t th;
    sem_t job, done;
    int state;               /* atomic: the enum above */
    long owner;              /* the process that started the thread */
    int rc;                  /* the dump's status (written by the thread before DONE) */
    struct pl__qdiscs qd;    /* the dump's result: the thread's between JOB and DONE */
};

static int cas(int *p, int from, int to)
{
    return __atomic_compare_exchange_n(p, &from, to, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static void destroy(pn_dumper *d)
{
    pl__qdiscs_free(&d->qd);
    sem_destroy(&d->job);
    sem_destroy(&d->done);
    free(d);
}

static int dump(struct pl__qdiscs *qd)
{
#ifdef PERFNET_TEST_HOOKS
    pn_dump_fn *f = __atomic_load_n(&pl__pn_test_dump, __ATOMIC_ACQUIRE);
    if (f) return f(qd);
#endif
    return pl__read_qdiscs(qd);
}

static void *run(void *arg)
{
    pn_dumper *d = arg;
    for (;;) {
        while (sem_wait(&d->job) != 0) { /* EINTR only: signals are blocked, but be safe */
        }
        if (__atomic_load_n(&d->state, __ATOMIC_ACQUIRE) == QUIT) break;
        d->rc = dump(&d->qd);
        if (cas(&d->state, JOB, DONE)) {
            sem_post(&d->done);
            continue;
        }
        /* The Collect gave up on this dump: nobody waits for it. Later
         * Collects may dump again, unless the library was closed meanwhile
         * (ORPHAN): then nobody will, and everything is ours to free. */
        if (cas(&d->state, ABANDONED, IDLE)) continue;
        destroy(d);
        return NULL;
    }
    return NULL;
}

static pn_dumper *dumper_new(void)
{
    pn_dumper *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    if (sem_init(&d->job, 0, 0) != 0) {
        free(d);
        return NULL;
    }
    if (sem_init(&d->done, 0, 0) != 0) {
        sem_destroy(&d->job);
        free(d);
        return NULL;
    }
    d->state = IDLE;
    d->owner = (long)getpid();
    /* Little stack: the dump's receive buffer is on the heap. */
    int rc = pl__provider_thread(&d->th, run, d, 256u << 10, "perfnet-qdisc");
    if (rc != 0) {
        sem_destroy(&d->done);
        sem_destroy(&d->job);
        free(d);
        errno = rc;
        return NULL;
    }
    return d;
}

/* Keep this library mapped until the process ends, whoever dlcloses it:
 * a stuck dump returns into its code. Once; a failure leaves nothing else
 * to do (the host's own unload is then the risk, as it would be for any
 * provider whose thread outlives its Close). */
static void pin_library(void)
{
    static int pinned; /* atomic */
    if (__atomic_exchange_n(&pinned, 1, __ATOMIC_ACQ_REL)) return;
    (void)pl__provider_pin((const void *)&pl__pn_dump_start);
}

int pl__pn_dump_start(pn_dumper **dp)
{
    pn_dumper *d = *dp;
    if (d && d->owner != (long)getpid()) {
        /* A forked child: the thread stayed in the parent, and the copy's
         * semaphores and result may be in any state (the fork may have come
         * in the middle of a dump's realloc). Start afresh; the copy is
         * left as it is, never freed. */
        d = *dp = NULL;
    }
    if (!d) {
        d = dumper_new();
        if (!d) return errno ? -errno : -ENOMEM;
        *dp = d;
    }
    if (__atomic_load_n(&d->state, __ATOMIC_ACQUIRE) != IDLE) return -EBUSY; /* still stuck */
    __atomic_store_n(&d->state, JOB, __ATOMIC_RELEASE);
    sem_post(&d->job);
    return 0;
}

int pl__pn_dump_wait(pn_dumper *d, const struct timespec *deadline, const struct pl__qdiscs **qd, int *dump_rc)
{
    for (;;) {
        if (sem_clockwait(&d->done, CLOCK_MONOTONIC, deadline) == 0) break;
        if (errno == EINTR) continue;
        /* ETIMEDOUT (or a semaphore error): abandon it, unless the dump
         * returned in the meantime. */
        if (cas(&d->state, JOB, ABANDONED)) {
            pin_library();
            return -ETIMEDOUT;
        }
        while (sem_wait(&d->done) != 0) { /* DONE: its post is on the way or there */
        }
        break;
    }
    /* The thread set DONE (release) after its last write to rc and qd. */
    (void)__atomic_load_n(&d->state, __ATOMIC_ACQUIRE);
    *qd = &d->qd;
    *dump_rc = d->rc;
    __atomic_store_n(&d->state, IDLE, __ATOMIC_RELEASE);
    return 0;
}

void pl__pn_dumper_stop(pn_dumper **dp)
{
    pn_dumper *d = *dp;
    *dp = NULL;
    if (!d) return;
    if (d->owner != (long)getpid()) return; /* forked: no thread here; a copy, left alone */
    pthread_t th = d->th; /* once orphaned, d is the thread's to free */
    if (cas(&d->state, ABANDONED, ORPHAN)) {
        pthread_detach(th); /* valid until detached, even if it ended */
        return;
    }
    /* IDLE: under PerfNet's lock no dump is in flight but an abandoned one,
     * and that one has just returned (ABANDONED -> IDLE). */
    __atomic_store_n(&d->state, QUIT, __ATOMIC_RELEASE);
    sem_post(&d->job);
    pthread_join(th, NULL);
    destroy(d);
}
