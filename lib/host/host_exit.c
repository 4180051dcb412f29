/* perflib: an in-process provider that calls exit() (docs/provider-host.md,
 * "A provider that calls exit()").
 *
 * exit() inside a provider's Open, Collect or Close ends the consumer with
 * the provider's status (exit(0) looked like success: perfquery printed
 * nothing and exited 0, perfd ended with 0 and a service manager did not
 * restart it). The host marks, on the thread that makes each in-process
 * call, which provider is being called (a thread-local pointer set right
 * before the call and cleared right after, by the thread that makes it);
 * an on_exit() handler, registered once per process when the first
 * in-process provider is loaded, sees whether exit() came from inside such
 * a call on its own thread. If so it disables the provider (in the store
 * when this process may write it, else in its failure state), logs it,
 * writes one line to stderr and ends the process with
 * PL_EXIT_PROVIDER_EXITED instead of the provider's status. An exit() by
 * the consumer itself (no call in flight on that thread) is left alone.
 *
 * The record is a small allocation per provider that holds copies of what
 * the handler needs (no pointer into the host), so a call abandoned by the
 * watchdog that calls exit() long after its engine was closed still finds
 * it: a hung provider's record is never freed, like its thread. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <syslog.h>
#include <unistd.h>

#include "host_int.h"

struct pl__inflight {
    char name[260];
    char *store_path;
    int use_syslog;
    pid_t pid;                  /* the consumer (a child the provider forked is not) */
    volatile char call;         /* 'O', 'C', 'X': the call being made */
};

static __thread pl__inflight *tl_call;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static const char *call_name(char c) { return c == 'O' ? "Open" : c == 'X' ? "Close" : "Collect"; }

static void exit_hook(int status, void *arg)
{
    (void)arg;
    pl__inflight *f = tl_call;
    /* not from inside a provider's call on this thread; or in a child the
     * provider forked there (its exit ends only that child) */
    if (!f || getpid() != f->pid) return;
    tl_call = NULL;
    char reason[200];
    snprintf(reason, sizeof reason, "called exit(%d) inside its in-process %s", status, call_name(f->call));
    int stored = 0;
    pl_store *st;
    pl_error e;
    if (f->store_path && pl_store_open(f->store_path, 0, &st, &e) == PL_OK) {
        stored = pl_store_disable_provider(st, f->name, reason, &e) == PL_OK;
        pl_store_close(st);
    }
    if (!stored) {
        pl__state *s = pl__state_open(f->store_path);
        pl__state_disable(s, f->name, reason);
        pl__state_close(s);
    }
    if (f->use_syslog)
        syslog(LOG_USER | LOG_ERR, "perflib: provider %s: disabled: %s; the process ends with status %d", f->name,
               reason, PL_EXIT_PROVIDER_EXITED);
    char msg[600];
    int n = snprintf(msg, sizeof msg,
                     "perflib: provider %s %s; it is disabled (lodctr /e:%s enables it again) and this process ends "
                     "with status %d\n",
                     f->name, reason, f->name, PL_EXIT_PROVIDER_EXITED);
    /* The one line the library writes itself: no caller gets control back
     * to print it. */
    if (n > 0 && write(STDERR_FILENO, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1) < 0) {
    }
    _exit(PL_EXIT_PROVIDER_EXITED);
}

static void arm(void) { (void)on_exit(exit_hook, NULL); }

pl__inflight *pl__inflight_new(const char *name, const char *store_path, int use_syslog)
{
    pthread_once(&once, arm);
    pl__inflight *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    snprintf(f->name, sizeof f->name, "%s", name ? name : "?");
    f->store_path = store_path ? pl__strdup(store_path) : NULL;
    f->use_syslog = use_syslog;
    f->pid = getpid();
    return f;
}

void pl__inflight_free(pl__inflight *f)
{
    if (!f) return;
    free(f->store_path);
    free(f);
}

void pl__inflight_set(pl__inflight *f, char call)
{
    if (f) f->call = call;
}

void pl__inflight_enter(void *ctx) { tl_call = ctx; }
void pl__inflight_leave(void *ctx)
{
    (void)ctx;
    tl_call = NULL;
}
