/* perflib: PerfProc's reader pool and its setting (perfproc_int.h).
 *
 * A fixed set of helper threads, started on the first parallel collection
 * and joined at the last Close (or when the library is unloaded). A job is
 * a range of items handed out in chunks by an atomic counter; the calling
 * thread takes chunks too, so a pool of N readers has N - 1 helpers and a
 * pool of 1 has none. Helpers wait on a condition variable between jobs:
 * an idle pool costs no CPU. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfproc_int.h"
#include "provider_thread.h"

static void work(pp_pool *p, unsigned id, pp_work_fn *fn, void *arg, size_t n, size_t chunk)
{
    for (;;) {
        size_t b = atomic_fetch_add_explicit(&p->next, chunk, memory_order_relaxed);
        if (b >= n) break;
        size_t e = n - b < chunk ? n : b + chunk;
        fn(arg, id, b, e);
    }
}

static void *helper(void *v)
{
    struct pp_helper_arg *ha = v;
    pp_pool *p = ha->p;
    /* The generation when it was started: a job posted before this thread
     * first takes the lock is still seen as new. */
    unsigned long seen = ha->gen0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->gen == seen && !p->quit) pthread_cond_wait(&p->wake, &p->mu);
        if (p->quit) break;
        seen = p->gen;
        pp_work_fn *fn = p->fn;
        void *arg = p->arg;
        size_t n = p->n, chunk = p->chunk;
        pthread_mutex_unlock(&p->mu);
        work(p, ha->id, fn, arg, n, chunk);
        pthread_mutex_lock(&p->mu);
        if (--p->busy == 0) pthread_cond_signal(&p->idle);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

unsigned pl__pp_pool_start(pp_pool *p, unsigned workers)
{
    if (workers > PP_MAX_WORKERS) workers = PP_MAX_WORKERS;
    if (workers < 1) workers = 1;
    if (p->inited && p->owner != (long)getpid()) {
        /* A forked child: the helpers stayed in the parent and the lock
         * and conditions may be in any state. Start afresh. */
        memset(p, 0, sizeof *p);
    }
    if (!p->inited) {
        if (pthread_mutex_init(&p->mu, NULL) != 0) return 1;
        if (pthread_cond_init(&p->wake, NULL) != 0) {
            pthread_mutex_destroy(&p->mu);
            return 1;
        }
        if (pthread_cond_init(&p->idle, NULL) != 0) {
            pthread_cond_destroy(&p->wake);
            pthread_mutex_destroy(&p->mu);
            return 1;
        }
        p->inited = 1;
        p->nth = 0;
        p->gen = 0;
        p->quit = 0;
        p->busy = 0;
    }
    p->owner = (long)getpid();
    if (p->nth + 1 >= workers) return p->nth + 1;
    /* Helpers need little stack: a reader's deepest frames hold about 40
     * KiB of buffers (the 32 KiB getdents64 buffer of a task listing). */
    while (p->nth + 1 < workers) {
        unsigned id = p->nth + 1;
        p->args[id - 1] = (struct pp_helper_arg){p, id, p->gen};
        if (pl__provider_thread(&p->th[p->nth], helper, &p->args[id - 1], 256u << 10, "perfproc-read") != 0) break;
        p->nth++;
    }
    return p->nth + 1;
}

void pl__pp_pool_run(pp_pool *p, size_t n, size_t chunk, pp_work_fn *fn, void *arg)
{
    if (chunk < 1) chunk = 1;
    if (!p->inited || p->nth == 0 || n <= chunk) {
        if (n > 0) fn(arg, 0, 0, n);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->arg = arg;
    p->n = n;
    p->chunk = chunk;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    p->busy = p->nth;
    p->gen++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    work(p, 0, fn, arg, n, chunk);
    pthread_mutex_lock(&p->mu);
    while (p->busy > 0) pthread_cond_wait(&p->idle, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void pl__pp_pool_stop(pp_pool *p)
{
    if (!p->inited) return;
    if (p->owner != (long)getpid()) { /* forked: no helpers here to join */
        memset(p, 0, sizeof *p);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 0; i < p->nth; i++) pthread_join(p->th[i], NULL);
    pthread_cond_destroy(&p->idle);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->mu);
    memset(p, 0, sizeof *p);
}

/* ------------------------------------------------------------ the setting */

/* A decimal 1..PP_MAX_WORKERS and nothing else; 0 when it is not one. */
static unsigned parse_workers(const char *s)
{
    if (!s || !*s) return 0;
    unsigned v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return 0;
        v = v * 10 + (unsigned)(*s - '0');
        if (v > PP_MAX_WORKERS) return 0;
    }
    return v;
}

unsigned pl__pp_default_workers(void)
{
    long n = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
    if (n <= 0) n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n <= 0) n = 1;
    return n > 4 ? 4u : (unsigned)n;
}

unsigned pl__pp_workers_setting(const char *linkage)
{
    unsigned v = parse_workers(getenv("PERFLIB_PERFPROC_WORKERS"));
    if (v) return v;
    if (linkage && strncmp(linkage, "workers=", 8) == 0) v = parse_workers(linkage + 8);
    return v ? v : pl__pp_default_workers();
}
