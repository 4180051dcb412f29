/* This file is private to libperflib: no API/ABI guarantee.
 *
 * The watchdog for in-process providers (docs/provider-host.md, "In-process
 * providers: the watchdog"): each in-process provider's Open, Collect and
 * Close run on a worker thread of its own while the caller waits with a
 * timeout. A call that does not return in time is late, not lost: the
 * caller goes on without its answer and waits for it again later (issue
 * 33: a slow provider is not a broken one); at the end, a call that still
 * has not returned is abandoned: the thread stays inside the provider,
 * owns what the call uses, and frees it if the call ever returns. */
#ifndef PL_HOST_WORKER_H
#define PL_HOST_WORKER_H

#include <stdint.h>

#include "perflib/provider.h"

enum { PL__CALL_OPEN = 1, PL__CALL_COLLECT, PL__CALL_CLOSE };

typedef struct pl__call {
    int kind;
    PM_OPEN_PROC *open;
    PM_COLLECT_PROC *collect;
    PM_CLOSE_PROC *close;
    WCHAR *arg;                 /* linkage or query; the call frees it */
    void *data;                 /* Collect: in and out */
    DWORD bytes, nobj;          /* Collect: in and out */
    DWORD rc;                   /* the provider's return value */
    /* Optional: called on the thread that makes the call, right before and
     * right after it (the host's exit() detection, host_exit.c). */
    void (*enter)(void *ctx);
    void (*leave)(void *ctx);
    void *ctx;
} pl__call;

typedef struct pl__worker pl__worker;

/* A worker with its thread started; NULL when no thread can be made. */
pl__worker *pl__worker_new(void);
/* Run *c on the worker and wait up to `ms`. Returns 1 when the call
 * returned (results in *c), 0 when it is still running ("late"): the
 * worker owns c->arg and whatever the call uses until it returns, and the
 * caller must settle it with pl__worker_wait or pl__worker_abandon before
 * the next call. */
int pl__worker_call(pl__worker *w, pl__call *c, uint32_t ms);
/* Wait up to `ms` (0: just look) for a late call: 1 when it has returned
 * (results in *c, the worker idle), 0 when it still runs. */
int pl__worker_wait(pl__worker *w, pl__call *c, uint32_t ms);
/* Give a late call up for good: returns 1 when it is abandoned (the worker
 * then owns `orphan` and frees it, and itself, if the call ever returns;
 * the caller must not touch the worker, `orphan` or anything the call uses
 * again), 0 when it had returned meanwhile (results in *c, the worker idle
 * and usable). */
int pl__worker_abandon(pl__worker *w, pl__call *c, void *orphan);
/* Stop and join an idle worker (accepts NULL). */
void pl__worker_free(pl__worker *w);

#endif
