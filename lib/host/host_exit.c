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
 * the consumer itself (no call in flight on that thread) keeps its status,
 * and clears the in-flight markers of calls still running on its other
 * threads (pl__markers_consumer_ends): the consumer's own end is not a
 * provider's failure. The same arming installs a handler for the
 * terminating signals the consumer left at their default action, which
 * does the same for a signal sent from outside (end_signal, below).
 *
 * The record is a small allocation per provider that holds copies of what
 * the handler needs (no pointer into the host), so a call abandoned by the
 * watchdog that calls exit() long after its engine was closed still finds
 * it: a hung provider's record is never freed, like its thread. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
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
    /* Not from inside a provider's call on this thread (or in a child the
     * provider forked there, whose exit ends only that child): the
     * consumer's own end. A call still running on another thread (the
     * watchdog's, a query thread's) is not one the consumer died in. */
    if (!f || getpid() != f->pid) {
        pl__markers_consumer_ends((uintptr_t)pthread_self());
        return;
    }
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

/* A terminating signal the consumer left at its default action
 * (docs/provider-host.md, "The consumer's own end"). Sent from outside
 * (another process: kill, timeout, a service manager; or the kernel: a
 * terminal's Ctrl-C, Ctrl-\ or hangup), or a SIGPIPE raised by a write on
 * a thread outside any provider call, it is the consumer's end, not a
 * provider's failure: the markers are cleared. Sent by this process to
 * itself otherwise (a provider's kill(getpid(), ...) or raise()), it counts
 * as before. Either way the handler then lets the signal do what it did:
 * the default action is back (SA_RESETHAND) and the signal raised again, so
 * the status (and SIGQUIT's core) stay the same. Async-signal-safe only. */
static const int end_signals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE};

static void end_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    int saved = errno;
    pid_t me = getpid();
    int sent = si && (si->si_code == SI_USER || si->si_code == SI_QUEUE || si->si_code == SI_TKILL);
    int outside = si && (si->si_code == SI_KERNEL || (sent && si->si_pid != me));
    int own_pipe = sig == SIGPIPE && !tl_call;
    if (outside || own_pipe) pl__markers_consumer_ends(0);
    (void)raise(sig); /* blocked until this handler returns, then the default action */
    errno = saved;
}

static void arm(void)
{
    (void)on_exit(exit_hook, NULL);
    /* Only where the consumer left the default action: a handler of its
     * own (now or later: it replaces this one) ends through exit(), which
     * the hook above sees, or decides itself. */
    for (size_t i = 0; i < sizeof end_signals / sizeof end_signals[0]; i++) {
        struct sigaction old;
        if (sigaction(end_signals[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = end_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        (void)sigaction(end_signals[i], &sa, NULL);
    }
}

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
