/* This file is private to libperflib: no API/ABI guarantee.
 *
 * Failure state of providers that outlives the consumer process
 * (docs/provider-host.md, "Failure state"): for each provider a small state
 * file holding the consumers that died inside its in-process calls and the
 * calls left running (slow or hung: issue 33), each in a row, and, when the consumer
 * could not write the store, the disable it decided; and for in-process
 * providers an in-flight marker per engine, so the next consumer can tell
 * that a predecessor died inside a provider call.
 *
 * Where: next to the store (`<store>.state/`, mode 0755, files 0644) for a
 * consumer that may write the store; else a directory of the user's own
 * ($XDG_RUNTIME_DIR/perflib, else /tmp/perflib-<uid>; mode 0700, owned by
 * the user, not a symlink), with the store's path in each file name's hash.
 * Every file read back is hostile: a malformed one counts as empty. */
#ifndef PL_HOST_STATE_H
#define PL_HOST_STATE_H

#include <stddef.h>
#include <stdint.h>

#define PL__STATE_TIMEOUTS_MAX 1000000u
#define PL__STATE_DISABLE_SECONDS 3600 /* how long a disable kept only here holds */

typedef struct pl__state pl__state;

#define PL__STATE_HUNG_IN_ROW 3u      /* calls left running in a row before consumers skip it */
#define PL__STATE_HUNG_RETRY_SECONDS 60 /* how long they skip it before one tries again */
#define PL__STATE_BREAKS_IN_ROW 3u    /* bad Collects in a row that disable (issue 33) */

typedef struct pl__pstate {
    unsigned timeouts;           /* consumers that ended inside an in-process call, in a row */
    unsigned hung;               /* calls still running when their consumer (or helper) ended, in a row */
    int64_t hung_time;           /* when the last of those was counted (Unix seconds) */
    unsigned closefail;          /* Closes that did not return, in a row: a consumer
                                    that ended inside an in-process Close, an isolated
                                    Close that timed out (cleared only by a Close that
                                    returns) */
    unsigned breaks;             /* Collects that broke the contract or whose helper
                                    crashed, in a row (cleared by a clean Collect):
                                    the PL__STATE_BREAKS_IN_ROW-th disables */
    int disabled;                /* a disable recorded here (not in the store), still in force */
    int64_t time;                /* when it was recorded (Unix seconds) */
    char reason[256];
} pl__pstate;

/* The state directory for the store at `store_path`, created when missing.
 * NULL when there is none to use (out of memory, a directory that fails the
 * checks); the host then keeps its counts in memory only. */
pl__state *pl__state_open(const char *store_path);
void pl__state_close(pl__state *s);
/* 1 when the state lives next to the store (shared by its writers). */
int pl__state_shared(const pl__state *s);
const char *pl__state_dir(const pl__state *s);

/* Read the provider's state (all zero when there is none). */
void pl__state_get(pl__state *s, const char *name, pl__pstate *out);
/* One more timeout in a row; returns the new count (read, increased and
 * written under a lock, so concurrent consumers add up), 0 on failure. */
unsigned pl__state_add_timeout(pl__state *s, const char *name);
/* The store now holds the disable: forget everything recorded here. Writes
 * only when there is something to forget. */
void pl__state_clear(pl__state *s, const char *name);
/* A call still running past its timeout when its consumer closed (or its
 * helper was killed for it): one more in a row, with the time; returns the
 * new count (0 on failure). From PL__STATE_HUNG_IN_ROW on, consumers skip
 * the provider for PL__STATE_HUNG_RETRY_SECONDS after the last, then one
 * tries again: never a disable (issue 33; docs/provider-host.md, "Slow
 * providers"). And a call that returned, even late: forget them. */
unsigned pl__state_add_hung(pl__state *s, const char *name);
void pl__state_clear_hung(pl__state *s, const char *name);
/* Until when (Unix seconds) a consumer reading `st` at `now` skips the
 * provider, or 0: PL__STATE_HUNG_RETRY_SECONDS after the last hung call
 * from the PL__STATE_HUNG_IN_ROW-th on, a last time ahead of `now`
 * counting as `now`. */
int64_t pl__state_skip_until(const pl__pstate *st, int64_t now);
/* A Collect (or Open) answered: forget the timeouts in a row (not the Close
 * failures: a provider whose Close kills its consumers answers every
 * Collect before it). */
void pl__state_clear_timeouts(pl__state *s, const char *name);
/* One more Close failure in a row (as pl__state_add_timeout); and a Close
 * that returned: forget them. */
unsigned pl__state_add_closefail(pl__state *s, const char *name);
void pl__state_clear_closefail(pl__state *s, const char *name);
/* A Collect that broke the contract (docs/provider-host.md, "The
 * contract") or whose helper crashed: one more in a row (as
 * pl__state_add_timeout); and a clean Collect: forget them. */
unsigned pl__state_add_break(pl__state *s, const char *name);
void pl__state_clear_breaks(pl__state *s, const char *name);
/* Record a disable here (the store could not be written). */
void pl__state_disable(pl__state *s, const char *name, const char *reason);

/* The state file's text (hostile: anyone who could write the directory
 * before its checks, an older or newer version): n bytes, no NUL needed.
 * Anything unexpected gives an all-zero state. The format writes what the
 * parser reads back: its length, or -1 when it does not fit `cap`.
 * (tests/fuzz/fuzz_host_state.c) */
void pl__state_parse(const char *text, size_t n, pl__pstate *out);
int pl__state_format(const pl__pstate *st, char *buf, size_t cap);

/* In-flight markers of in-process providers: one small file per engine and
 * provider, `<base>.<pid>-<start>-<n>.busy`, holding the call in progress
 * ('O' Open, 'C' Collect, 'X' Close, '-' none). Setting it is one pwrite. */
typedef struct pl__marker pl__marker;
pl__marker *pl__marker_new(pl__state *s, const char *name);
void pl__marker_set(pl__marker *m, char call);
/* Remove the file and free (accepts NULL). */
void pl__marker_free(pl__marker *m);
/* This process ends on its own (docs/provider-host.md, "The consumer's own
 * end"): every marker it made is set to '-', so the next consumer does not
 * count a call still running on another thread as one it died in; and from
 * now on a call another thread starts is not marked either. `self`: the
 * ending thread (pthread_self), whose own later calls stay marked; 0 for a
 * signal. Async-signal-safe, lock-free. */
void pl__markers_consumer_ends(uintptr_t self);
/* Look for markers of this provider left by consumers that no longer run.
 * Each is removed; when one shows a call in progress, returns that call
 * ('O', 'C' or 'X') and describes it in `why` ("a consumer (pid 123) died
 * during in-process Collect"); 0 when none did. */
char pl__state_dead_consumer(pl__state *s, const char *name, char *why, size_t cap);

#endif
