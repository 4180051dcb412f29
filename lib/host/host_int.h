/* This file is private to libperflib: no API/ABI guarantee.
 *
 * What the two halves of the provider host share: host.c (loading, the
 * in-process calls, the contract checks, wrapping, the query loop) and
 * host_helper.c (isolated providers: the helper process and its protocol).
 * docs/provider-host.md describes both. */
#ifndef PL_HOST_INT_H
#define PL_HOST_INT_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "helper_proto.h"
#include "host.h"
#include "host_limits.h"
#include "host_state.h"
#include "host_worker.h"
#include "perflib/provider.h"
#include "pl_internal.h"

#define DEFAULT_MORE_DATA_ROUNDS 16u
#define DEFAULT_MAX_PROVIDER_BYTES ((size_t)256 << 20)
#define FIRST_BUFFER ((size_t)64 << 10)
#define GUARD_BYTES PLH_GUARD_BYTES
#define GUARD_BYTE PLH_GUARD_BYTE
#define DEFAULT_OPEN_TIMEOUT_MS 10000u
#define DEFAULT_COLLECT_TIMEOUT_MS 5000u
#define CLOSE_WAIT_MS 1000           /* for Close's reply at engine close */
#define EXIT_WAIT_MS 500             /* for a helper to exit after Close or EOF */
#define LATE_GIVE_UP_FACTOR 10 /* an isolated call late for 10 x its timeout: the helper is restarted */
#define MAX_DEAD_IN_ROW 2u /* consumers that ended inside an in-process call, in a row */
#define MAX_CLOSE_TIMEOUTS_IN_ROW 3u /* isolated Closes that timed out, in a row (issue 26) */

typedef struct pl__prov {
    pl_provider_info info;
    char *path;                 /* resolved library path */
    void *dl;
    PM_OPEN_PROC *open;
    PM_COLLECT_PROC *collect;
    PM_CLOSE_PROC *close;
    PL_COLLECT_NONBLOCKING_PROC *nonblocking; /* optional: Collects it may make on the caller's thread */
    PL_COLLECT_NOTE_PROC *note;  /* optional: its note for the provider status */
    int loaded, opened, disabled;
    int isolated;               /* runs in a helper process */
    int hung;                   /* in-process: a call never returned; its thread still runs in the library */
    pl__worker *worker;         /* in-process: the thread that makes the calls (the watchdog waits) */
    pl__marker *mk;             /* in-process: the in-flight marker (host_state.h) */
    struct pl__inflight *inflight; /* in-process: what a call that exits needs (host_exit.c) */
    unsigned breaks_in_row;     /* bad Collects (contract breaks, helper crashes) in a row */
    unsigned closefail_in_row;  /* consumers that ended inside its Close / isolated Close timeouts, in a row */
    pid_t pid;                  /* isolated: the helper, 0 when none runs; also its process group */
    int pidfd;                  /* isolated: a pidfd of the helper, -1 when none */
    int sock;                   /* isolated: our end of its socket, -1 when none */
    uint32_t open_ms, collect_ms; /* isolated: the timeouts in force */
    unsigned timeouts_in_row;   /* consumers that ended inside an in-process call, in a row (host_state.h) */
    /* A call past its timeout that still runs (issue 33: slow, not broken):
     * in-process on the worker, isolated in the helper, whose reply is read
     * when it comes. 'O' Open, 'C' Collect, 'W' a wrapper's Collect, 'L'
     * Load, 'X' Close; 0 when none. */
    char late;
    int64_t late_start_ms;      /* when it started (pl__host_now_ms) */
    uint32_t late_limit_ms;     /* the timeout it passed */
    size_t late_cap;            /* a late Collect's room (its guard follows) */
    uint64_t timeouts;          /* calls that passed their timeout */
    unsigned hung_in_row;       /* calls left running at their end, in a row (host_state.h) */
    int64_t skip_until;         /* Unix time: until then it is skipped (hung, not disabled); 0: none */
    pthread_mutex_t mu;         /* one call into the provider at a time */
    uint8_t *buf;               /* collect buffer, bufcap + GUARD_BYTES */
    size_t bufcap;
    size_t buf_hint;            /* the room it had before pl__host_trim freed it (0: none) */
    int has_objlist;
    size_t nobjlist;
    uint32_t objlist[PL_QUERY_MAX_ITEMS];
    uint64_t collects, errors;
    uint32_t last_bytes;        /* the size of its last answer (the room of a Collect into the answer) */
    int warned_align;           /* the multiple-of-8 warning was logged */
    int warned_index;           /* the counter-index-outside-its-range warning was logged */
    char last_error[256];
    uint64_t last_collect_ns;   /* the last Collect's duration (pl_provider_status) */
    int last_collect_ok;
    int64_t last_error_unix_ms;
    uint32_t seen[16];          /* the objects of its answers so far */
    uint32_t nseen;
    /* Wrapping (docs/provider-host.md, "Providers that wrap providers"). */
    struct pl__prov *wrapped;       /* the provider this one wraps, or NULL */
    struct pl__prov *wrapper;       /* the provider that wraps this one, or NULL */
    const uint8_t *orig;        /* during a wrapper's Collect: the original's result */
    uint32_t orig_len, orig_n;
} pl__prov;

struct pl__host {
    pl_store *st;
    pl__state *state;           /* failure state that outlives this process; NULL: none */
    pl__limits limits;          /* what an isolated provider's helper may use */
    pl__host_config cfg;
    char *provider_dir;
    uint32_t base_index;
    pl__prov *p;
    size_t n;
};

/* What one Collect call produced, in either mode. `data` holds `bytes`
 * bytes when the call succeeded within the contract's pointer rules. */
typedef struct pl__call_result {
    DWORD rc, bytes, nobj;
    int64_t moved;              /* how far the provider moved the data pointer */
    int guard_damaged;          /* it wrote past the room it was given */
    const uint8_t *data;
} pl__call_result;

enum { PL__JUDGED, PL__GROW };

/* CLOCK_MONOTONIC in milliseconds. */
int64_t pl__host_now_ms(void);
/* A late call (p->late): say so (its objects are left out), and when it has
 * returned (clears p->late; `what` ends the sentence). */
void pl__host_late_note(pl__host *h, pl__prov *p);
void pl__host_late_done(pl__host *h, pl__prov *p, const char *what);
/* A call was left running past its timeout when its consumer closed or its
 * helper was killed for it: counted in the failure state; from
 * PL__STATE_HUNG_IN_ROW on, the provider is skipped for
 * PL__STATE_HUNG_RETRY_SECONDS. And a call returned (even late): forget
 * those. Called with p->mu held. */
void pl__host_left_running(pl__host *h, pl__prov *p, const char *call);
void pl__host_returned(pl__host *h, pl__prov *p);
/* Log a provider's problem (once while it repeats) and keep it as its last
 * error. */
void pl__host_note(pl__host *h, pl__prov *p, int prio, const char *fmt, ...) PL__PRINTF(4, 5);
/* Disable a provider for good: in the store (for the administrator to see
 * and clear) and here. Called with p->mu held. */
void pl__host_disable(pl__host *h, pl__prov *p, const char *fmt, ...) PL__PRINTF(3, 4);
/* A bad Collect (a contract break, a helper crash): counted in a row, the
 * PL__STATE_BREAKS_IN_ROW-th disables (host.c). */
void pl__host_break(pl__host *h, pl__prov *p, const char *fmt, ...) PL__PRINTF(3, 4);
/* As root, a library others could change is not loaded: 1 when it may be. */
int pl__host_library_trusted(pl__host *h, pl__prov *p);
/* The contract checks, the same for in-process and isolated results.
 * Returns PL__GROW (ask again with *cap doubled) or PL__JUDGED; *rc
 * receives PL_E_NOMEM when the answer cannot grow. Called with p->mu held. */
int pl__host_judge(pl__host *h, pl__prov *p, const pl__call_result *r, size_t *cap, uint32_t round, pl__buf *out,
                   uint32_t *nobjects, int *rc);
/* The provider's buffer: at least cap bytes plus the guard. */
int pl__host_ensure_buf(pl__prov *p, size_t cap);
/* The room a Collect starts with: the buffer's, else what it had before a
 * trim, else `first`. */
size_t pl__host_first_room(const pl__prov *p, size_t first);
/* UTF-8 to a malloc'd UTF-16 string; NULL when out of memory. */
WCHAR *pl__host_to_wide(const char *s);
static inline DWORD pl__host_room_of(size_t cap) { return (DWORD)(cap > 0xFFFFFFF8u ? 0xFFFFFFF8u : cap); }

/* host_exit.c: exit() inside an in-process provider's call. A record per
 * provider (copies of its name and the store's path; never freed while a
 * call may still run in it); pl__inflight_set says which call is next,
 * pl__inflight_enter/_leave (pl__call's enter/leave hooks) mark the
 * thread that makes it. The first record arms an on_exit() handler that
 * turns exit() from inside a call on that thread into a disable and
 * PL_EXIT_PROVIDER_EXITED. */
typedef struct pl__inflight pl__inflight;
pl__inflight *pl__inflight_new(const char *name, const char *store_path, int use_syslog);
void pl__inflight_free(pl__inflight *f);
void pl__inflight_set(pl__inflight *f, char call);
void pl__inflight_enter(void *ctx);
void pl__inflight_leave(void *ctx);

/* host_helper.c: an isolated provider's Collect of one query, and the end
 * of its helper (Close, then exit or kill). Called with p->mu held. */
int pl__host_collect_isolated(pl__host *h, pl__prov *p, const WCHAR *wq, pl__buf *out, uint32_t *nobjects);
void pl__host_helper_close(pl__host *h, pl__prov *p);

#endif
