/* perflib: the provider host's isolated providers (host_int.h).
 *
 * An isolated provider runs in its own helper process
 * (perflib-provider-host), started with posix_spawn on first need and
 * spoken to over a socketpair (helper_proto.h). Open/Collect Timeouts are
 * enforced with poll(): a call that passes its timeout is late (issue 33),
 * its reply read and dropped when it comes, and the provider left out of
 * the answers until then; a helper late for ten times its timeout is
 * killed and a new one started. A helper that crashes or sends a
 * malformed reply gets the provider disabled (docs/provider-host.md,
 * "Isolation"). Its answers go through the same contract checks as an
 * in-process provider's (pl__host_judge). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "helper_tree.h"
#include "host_int.h"

#ifndef PL_PROVIDER_HOST_BUILD
#define PL_PROVIDER_HOST_BUILD ""
#endif
#ifndef PL_PROVIDER_HOST_INSTALLED
#define PL_PROVIDER_HOST_INSTALLED "/usr/local/libexec/perflib/perflib-provider-host"
#endif

extern char **environ;


static const char *signal_name(int sig)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {{SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"},   {SIGABRT, "SIGABRT"}, {SIGFPE, "SIGFPE"},
                 {SIGILL, "SIGILL"},   {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGTRAP, "SIGTRAP"},
                 {SIGSYS, "SIGSYS"},   {SIGPIPE, "SIGPIPE"}, {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"},
                 {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGALRM, "SIGALRM"},
                 {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig) return names[i].name;
    return "unknown signal";
}

/* The helper to start: $PERFLIB_PROVIDER_HOST, else the build tree's,
 * else the installed one. */
static const char *helper_path(void)
{
    const char *env = getenv("PERFLIB_PROVIDER_HOST");
    if (env && env[0]) return env;
    static const char build[] = PL_PROVIDER_HOST_BUILD;
    if (!pl__running_installed() && sizeof build > 1 && access(build, X_OK) == 0) return build;
    return PL_PROVIDER_HOST_INSTALLED;
}

#define now_ms pl__host_now_ms

/* The helper leads its own process group (helper_spawn), so whatever the
 * provider forked is in it too: kill them all. Done while the helper is not
 * yet reaped (running or a zombie), so the group id cannot name anyone
 * else's processes. */
static void kill_group(pid_t pid)
{
    if (pid > 0) kill(-pid, SIGKILL);
}

/* Reap the helper once it has exited, after killing what is left of its
 * process group. Returns 1 and *status when reaped, 0 when it is still
 * running, -1 when it is not our child any more. */
static int reap_exited(pid_t pid, int *status)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0) return errno == EINTR ? 0 : -1;
    if (si.si_pid != pid) return 0;
    kill_group(pid);
    for (;;) {
        pid_t r = waitpid(pid, status, 0);
        if (r == pid) return 1;
        if (r < 0 && errno != EINTR) return -1;
    }
}

/* Wait up to wait_ms for the helper to exit. Returns 1 and *status when
 * reaped, 0 when it is still running, -1 when it is not our child any more
 * (someone else reaped it: SIGCHLD ignored or a waitpid(-1) elsewhere). */
static int reap_within(pid_t pid, int wait_ms, int *status)
{
    int64_t end = now_ms() + wait_ms;
    for (;;) {
        int r = reap_exited(pid, status);
        if (r != 0) {
            if (r < 0) kill_group(pid); /* reaped by someone else: its group may still run */
            return r;
        }
        if (now_ms() >= end) return 0;
        struct timespec nap = {0, 2 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
}

/* Kill the helper, everything the provider started (its tree: the helper
 * is a subreaper, so one that left its process group is still there; the
 * helper stopped first, so it cannot start more) and its process group,
 * and reap it. *status valid when it returns 1; *escaped (may be NULL) set
 * when a process of the tree had left the group. */
static int kill_reap_tree(pid_t pid, int *status, int *escaped)
{
    kill(pid, SIGSTOP);
    pid_t *buf = malloc(PLH_TREE_MAX * sizeof *buf);
    if (buf) {
        (void)plh_kill_tree(pid, pid, escaped, buf);
        free(buf);
    }
    kill_group(pid);
    kill(pid, SIGKILL);
    for (;;) {
        pid_t r = waitpid(pid, status, 0);
        if (r == pid) return 1;
        if (r < 0 && errno != EINTR) return -1;
    }
}

static void close_pidfd(pl__prov *p)
{
    if (p->pidfd >= 0) close(p->pidfd);
    p->pidfd = -1;
}

/* Forget the helper: our end of the socket closed, the child killed and
 * reaped. The state of the provider inside it is gone. */
static int kill_reap(pid_t pid, int *status) { return kill_reap_tree(pid, status, NULL); }

/* Forget the helper: our end of the socket closed, the child and what it
 * started killed and reaped. The state of the provider inside it is gone.
 * Returns 1 when a process it started had left its process group. */
static int helper_kill(pl__prov *p)
{
    int escaped = 0;
    p->late = 0;
    /* Stopped and walked before its socket closes: the helper would see the
     * end of file and kill its tree itself, and what had escaped would no
     * longer be seen. */
    if (p->pid > 0) {
        int st;
        kill_reap_tree(p->pid, &st, &escaped);
    }
    if (p->sock >= 0) close(p->sock);
    p->sock = -1;
    close_pidfd(p);
    p->pid = 0;
    p->loaded = 0;
    p->opened = 0;
    return escaped;
}

/* How an exchange with the helper went. XF_LATE: the request went out and
 * nothing of the reply came back in time (the provider is still in its
 * call). */
enum { XF_OK, XF_TIMEOUT, XF_DIED, XF_BAD, XF_LATE };

/* Engine close (or a disable): ask the provider to Close, wait briefly,
 * then make sure the helper is gone and reaped. */
static int xfer(pl__prov *p, uint32_t type, const void *a, size_t alen, const void *b, size_t blen, uint32_t ms,
                uint8_t *reply, size_t reply_cap, size_t *reply_len, char *why, size_t whylen);
static int xfer_reply(pl__prov *p, uint32_t type, int64_t deadline, uint8_t *reply, size_t reply_cap,
                      size_t *reply_len, char *why, size_t whylen);

static int wait_fd(int fd, int pidfd, short ev, int64_t deadline);
static int helper_settle(pl__host *h, pl__prov *p);

static void helper_failed(pl__host *h, pl__prov *p, int x, const char *call, uint32_t ms, const char *why);

#define ESCAPED_REASON "a process it started left the helper's process group (setsid() or setpgid()); every process it started was killed"

void pl__host_helper_close(pl__host *h, pl__prov *p)
{
    if (p->pid <= 0) {
        helper_kill(p);
        return;
    }
    /* Close is really called only when Open succeeded (helper_proto.h). A
     * Close that crashes, exits or sends a malformed reply disables the
     * provider as such a Collect does; one that times out counts as a
     * Close failure in a row (cleared by a Close that returns), and three
     * disable it, as Collect's timeouts do: otherwise every consumer would
     * wait for it at its end. Not again while it is being disabled. */
    int called = p->loaded && p->opened && !p->disabled;
    if (p->late) { /* still in a call: its reply may come while Close would wait */
        int w = wait_fd(p->sock, p->pidfd, POLLIN, now_ms() + CLOSE_WAIT_MS);
        if (w > 0 && helper_settle(h, p) && p->pid > 0) {
            pl__host_helper_close(h, p); /* settled: now Close as usual */
            return;
        }
        if (p->late) {
            char kind = p->late;
            const char *call = kind == 'L' ? "Load" : kind == 'O' ? "Open" : "Collect";
            p->late = 0;
            pl__host_left_running(h, p, call);
            /* stopped and walked before its socket closes (helper_kill):
             * a process that left its group is seen, killed, and disables */
            if (p->pid > 0 && helper_kill(p) && !p->disabled) pl__host_disable(h, p, ESCAPED_REASON " (during %s)", call);
            return;
        }
        if (p->pid <= 0) return; /* settling ended the helper */
    } else if (p->loaded) {
        uint8_t r[4];
        size_t rl;
        char why[128] = "";
        int x = xfer(p, PLH_CLOSE, NULL, 0, NULL, 0, CLOSE_WAIT_MS, r, sizeof r, &rl, why, sizeof why);
        if (x == XF_LATE) x = XF_TIMEOUT; /* a Close is never left running */
        if (x != XF_OK && called) {
            helper_failed(h, p, x, "Close", CLOSE_WAIT_MS, why); /* kills and reaps the helper */
            return;
        }
        if (x == XF_OK && called && p->closefail_in_row) {
            p->closefail_in_row = 0;
            pl__state_clear_closefail(h->state, p->info.name);
        }
    }
    if (p->sock >= 0) close(p->sock); /* end of file: the helper exits */
    p->sock = -1;
    int st;
    if (reap_within(p->pid, EXIT_WAIT_MS, &st) == 0) kill_reap(p->pid, &st);
    close_pidfd(p);
    p->pid = 0;
    p->loaded = 0;
    p->opened = 0;
}

static int helper_spawn(pl__host *h, pl__prov *p)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        char eb[128];
        p->errors++;
        pl__host_note(h, p, LOG_ERR, "cannot create the helper's socket: %s", pl__strerror(errno, eb, sizeof eb));
        return 0;
    }
    /* posix_spawn's dup2 onto the same number would keep close-on-exec. */
    if (sv[1] == PLH_FD) {
        int d = fcntl(sv[1], F_DUPFD_CLOEXEC, PLH_FD + 1);
        close(sv[1]);
        sv[1] = d;
    }
    int fl = fcntl(sv[0], F_GETFL);
    if (sv[1] < 0 || fl < 0 || fcntl(sv[0], F_SETFL, fl | O_NONBLOCK) != 0) {
        p->errors++;
        pl__host_note(h, p, LOG_ERR, "cannot set up the helper's socket");
        close(sv[0]);
        if (sv[1] >= 0) close(sv[1]);
        return 0;
    }
    const char *path = helper_path();
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    posix_spawn_file_actions_adddup2(&fa, sv[1], PLH_FD);
    /* Nothing of the consumer's terminal or output: a provider's prints
     * must not land inside typeperf's CSV. */
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    /* Its own process group: the helper and whatever the provider forks
     * are killed together (kill_group). */
    posix_spawnattr_setpgroup(&at, 0);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    char limits[96];
    pl__limits_arg(&h->limits, p->open_ms, p->collect_ms, limits, sizeof limits);
    char *argv[] = {(char *)"perflib-provider-host", p->info.name, limits, NULL};
    pid_t pid = 0;
    int e = posix_spawn(&pid, path, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(sv[1]);
    if (e != 0) {
        char eb[128];
        close(sv[0]);
        p->errors++;
        pl__host_note(h, p, LOG_ERR, "cannot start the helper %s: %s; it will be tried again on the next query", path,
             pl__strerror(e, eb, sizeof eb));
        return 0;
    }
    p->pid = pid;
    p->sock = sv[0];
    /* Watched by its pid as well as its socket: a child the provider forked
     * keeps the socket open after the helper itself died. */
#ifdef SYS_pidfd_open
    p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (p->pidfd >= 0) (void)fcntl(p->pidfd, F_SETFD, FD_CLOEXEC);
#endif
    return 1;
}


_Static_assert((PL_QUERY_MAX_ITEMS * 11 + 16) * 2 <= PLH_MAX_QUERY, "a query text fits one Collect request");

/* Wait for the socket until the deadline: 1 ready, 0 timed out, -1 error
 * or the helper exited (its pidfd is readable and the socket is not). */
static int wait_fd(int fd, int pidfd, short ev, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left <= 0) left = 0;
        struct pollfd pf[2] = {{fd, ev, 0}, {pidfd, POLLIN, 0}};
        int r = poll(pf, pidfd >= 0 ? 2 : 1, (int)(left > 0x7FFFFFFF ? 0x7FFFFFFF : left));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) return 0;
        if (pf[0].revents) return 1;
        return -1;
    }
}

static int send_all(int fd, int pidfd, const void *buf, size_t n, int64_t deadline)
{
    const uint8_t *b = buf;
    while (n) {
        ssize_t r = send(fd, b, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (r > 0) {
            b += r;
            n -= (size_t)r;
            continue;
        }
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int w = wait_fd(fd, pidfd, POLLOUT, deadline);
            if (w == 0) return XF_TIMEOUT;
            if (w < 0) return XF_DIED;
            continue;
        }
        return XF_DIED; /* EPIPE, ECONNRESET: the helper is gone */
    }
    return XF_OK;
}

static int recv_all(int fd, int pidfd, void *buf, size_t n, int64_t deadline)
{
    uint8_t *b = buf;
    size_t want = n;
    while (n) {
        ssize_t r = recv(fd, b, n, MSG_DONTWAIT);
        if (r > 0) {
            b += r;
            n -= (size_t)r;
            continue;
        }
        if (r == 0) return XF_DIED;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            int w = wait_fd(fd, pidfd, POLLIN, deadline);
            if (w == 0) return n == want ? XF_LATE : XF_TIMEOUT;
            if (w < 0) return XF_DIED;
            continue;
        }
        return XF_DIED;
    }
    return XF_OK;
}

static uint32_t get32(const uint8_t *b)
{
    uint32_t v;
    memcpy(&v, b, 4);
    return v;
}

static void put32(uint8_t *b, uint32_t v) { memcpy(b, &v, 4); }

/* Send one request (header + a + b) within `ms` and read the reply's
 * header and min(length, reply_cap) bytes of its payload into `reply`;
 * *reply_len receives the length the header announced. The reply's type
 * must answer the request; Open and Close replies must be exactly
 * reply_cap bytes, a Load reply 4..reply_cap bytes (XF_BAD with `why`
 * otherwise). A Collect reply is checked and its data read by the caller. */
static int xfer(pl__prov *p, uint32_t type, const void *a, size_t alen, const void *b, size_t blen, uint32_t ms,
                uint8_t *reply, size_t reply_cap, size_t *reply_len, char *why, size_t whylen)
{
    int64_t deadline = now_ms() + ms;
    uint8_t hdr[PLH_HEADER];
    put32(hdr, type);
    put32(hdr + 4, (uint32_t)(alen + blen));
    int x = send_all(p->sock, p->pidfd, hdr, sizeof hdr, deadline);
    if (x == XF_OK && alen) x = send_all(p->sock, p->pidfd, a, alen, deadline);
    if (x == XF_OK && blen) x = send_all(p->sock, p->pidfd, b, blen, deadline);
    if (x != XF_OK) return x == XF_LATE ? XF_TIMEOUT : x;
    return xfer_reply(p, type, deadline, reply, reply_cap, reply_len, why, whylen);
}

/* The reply to request `type` (xfer): its header by the deadline (XF_LATE
 * when nothing of it has come), then min(length, reply_cap) bytes. */
static int xfer_reply(pl__prov *p, uint32_t type, int64_t deadline, uint8_t *reply, size_t reply_cap,
                      size_t *reply_len, char *why, size_t whylen)
{
    uint8_t hdr[PLH_HEADER];
    int x = recv_all(p->sock, p->pidfd, hdr, sizeof hdr, deadline);
    if (x != XF_OK) return x;
    uint32_t rtype = get32(hdr), rlen = get32(hdr + 4);
    if (rtype != (type | PLH_REPLY)) {
        snprintf(why, whylen, "reply type 0x%x to request %u", rtype, type);
        return XF_BAD;
    }
    *reply_len = rlen;
    size_t take = rlen < reply_cap ? rlen : reply_cap;
    if (type != PLH_COLLECT && type != PLH_WRAP && type != PLH_LOAD && rlen != reply_cap) {
        snprintf(why, whylen, "reply of %u bytes to request %u, expected %zu", rlen, type, reply_cap);
        return XF_BAD;
    }
    if (type == PLH_LOAD && (rlen < 4 || rlen > reply_cap)) {
        snprintf(why, whylen, "reply of %u bytes to the load request", rlen);
        return XF_BAD;
    }
    if (take) x = recv_all(p->sock, p->pidfd, reply, take, deadline);
    return x == XF_LATE ? XF_TIMEOUT : x;
}

/* After a failed exchange: kill or reap the helper, count, log, and disable
 * when the contract says so. `call` is "Open" or "Collect" (or "Load"). */
static void helper_failed(pl__host *h, pl__prov *p, int x, const char *call, uint32_t ms, const char *why)
{
    int collect = strcmp(call, "Collect") == 0;
    if (x == XF_TIMEOUT) {
        if (helper_kill(p)) {
            pl__host_disable(h, p, ESCAPED_REASON " (during %s)", call);
            return;
        }
        p->errors++;
        p->timeouts++;
        if (strcmp(call, "Close") == 0) {
            /* A Close that does not answer is not slowness but a wait at
             * the end of every consumer (issue 26): counted in the failure
             * state, so one-shot consumers add up (a Collect answers before
             * every Close, so apart from the other counts), and three in a
             * row disable. */
            unsigned n = pl__state_add_closefail(h->state, p->info.name);
            p->closefail_in_row = n ? n : p->closefail_in_row + 1;
            if (p->closefail_in_row >= MAX_CLOSE_TIMEOUTS_IN_ROW) {
                pl__host_disable(h, p, "Close timed out after %u ms (%u times in a row)", ms, p->closefail_in_row);
                return;
            }
            pl__host_note(h, p, LOG_WARNING, "Close timed out after %u ms; the helper process was killed", ms);
            return;
        }
        /* a reply that stopped halfway: the exchange cannot go on, so the
         * helper is restarted; slowness never disables (issue 33) */
        pl__host_note(h, p, LOG_WARNING, "%s's reply did not come whole within %u ms; the helper process was killed and "
                      "the provider will be tried again on the next query", call, ms);
        return;
    }
    if (x == XF_BAD) {
        helper_kill(p);
        if (collect) pl__host_break(h, p, "helper process sent a malformed reply during %s: %s", call, why);
        else pl__host_disable(h, p, "helper process sent a malformed reply during %s: %s", call, why);
        return;
    }
    /* XF_DIED: the socket closed or broke. Find out how the helper ended. */
    if (p->sock >= 0) close(p->sock);
    p->sock = -1;
    int st = 0;
    int got = p->pid > 0 ? reap_within(p->pid, EXIT_WAIT_MS, &st) : -1;
    int killed_by_us = 0;
    if (got == 0) {
        got = kill_reap(p->pid, &st);
        killed_by_us = 1;
    }
    close_pidfd(p);
    p->pid = 0;
    p->loaded = 0;
    p->opened = 0;
    uint32_t cpu_s = h->limits.cpu_s ? h->limits.cpu_s : (ms + 999) / 1000;
    char reason[200];
    if (got == 1 && WIFEXITED(st) && WEXITSTATUS(st) == PLH_EXIT_ESCAPED && !killed_by_us) {
        /* not a crash: processes it started got out of the helper's reach */
        pl__host_disable(h, p, ESCAPED_REASON " (during %s)", call);
        return;
    }
    if (got == 1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGXCPU && !killed_by_us)
        snprintf(reason, sizeof reason, "helper process used more than its limit of %u s of CPU time during %s", cpu_s,
                 call);
    else if (got == 1 && WIFEXITED(st) && WEXITSTATUS(st) == PLH_EXIT_MEMORY && !killed_by_us)
        snprintf(reason, sizeof reason, "helper process went above its memory limit of %u MiB during %s",
                 h->limits.memory_mb, call);
    else if (got == 1 && WIFEXITED(st) && WEXITSTATUS(st) == PLH_EXIT_FILES && !killed_by_us)
        snprintf(reason, sizeof reason, "helper process used all the %u open files it may have during %s",
                 h->limits.files, call);
    else if (got == 1 && WIFSIGNALED(st) && !killed_by_us)
        snprintf(reason, sizeof reason, "helper process killed by signal %d (%s) during %s", WTERMSIG(st),
                 signal_name(WTERMSIG(st)), call);
    else if (got == 1 && WIFEXITED(st) && !killed_by_us)
        snprintf(reason, sizeof reason, "helper process exited with status %d during %s", WEXITSTATUS(st), call);
    else
        snprintf(reason, sizeof reason, "helper process closed its connection during %s", call);
    /* A crash during Collect counts like a contract break: a new helper is
     * started on the next query, and the third in a row disables. */
    if (collect) pl__host_break(h, p, "%s", reason);
    else pl__host_disable(h, p, "%s", reason);
}

/* A call passed its timeout with nothing of its reply back (XF_LATE): the
 * helper goes on with it, and its reply is read when it comes
 * (helper_settle); until then the provider is left out of the answers.
 * Slowness never disables (issue 33, docs/provider-host.md). */
static void went_late(pl__host *h, pl__prov *p, char kind, int64_t start, uint32_t ms, size_t room)
{
    p->late = kind;
    p->late_start_ms = start;
    p->late_limit_ms = ms;
    p->late_cap = room;
    p->timeouts++;
    p->errors++;
    pl__host_late_note(h, p);
}

/* The Load reply (4..4 + PLH_MAX_MESSAGE bytes): 1 when loaded. */
static int load_reply(pl__host *h, pl__prov *p, const uint8_t *reply, size_t rl)
{
    uint32_t status = get32(reply);
    if (status != PLH_LOAD_OK) {
        char msg[PLH_MAX_MESSAGE + 1];
        size_t ml = rl - 4;
        memcpy(msg, reply + 4, ml);
        msg[ml] = '\0';
        for (size_t i = 0; i < ml; i++)
            if ((unsigned char)msg[i] < 0x20) msg[i] = ' '; /* hostile text: no control characters */
        pl__host_helper_close(h, p);
        p->errors++;
        if (status == PLH_LOAD_DLOPEN) pl__host_note(h, p, LOG_ERR, "cannot load %s: %s", p->path, msg);
        else pl__host_note(h, p, LOG_ERR, "%s does not export an entry point: %s", p->path, msg);
        return 0;
    }
    p->loaded = 1;
    return 1;
}

/* The Open reply: 1 when opened. */
static int open_reply(pl__host *h, pl__prov *p, const uint8_t *reply)
{
    DWORD rc = get32(reply);
    if (rc != 0) {
        p->errors++;
        pl__host_note(h, p, LOG_WARNING, "Open returned %u; it will be tried again on the next query", rc);
        return 0;
    }
    p->opened = 1;
    return 1;
}

/* The fixed part of a Collect (or Wrap) reply of rl bytes to a request
 * with `room`: the result in *r, and in *n how many data bytes follow.
 * XF_OK, or XF_BAD with `why`. */
static int collect_fixed(const uint8_t *fixed, size_t rl, DWORD room, pl__call_result *r, size_t *n, char *why,
                         size_t whylen)
{
    memset(r, 0, sizeof *r);
    r->rc = get32(fixed);
    r->bytes = get32(fixed + 4);
    r->nobj = get32(fixed + 8);
    uint32_t flags = get32(fixed + 12);
    memcpy(&r->moved, fixed + 16, 8);
    r->guard_damaged = (flags & PLH_GUARD_DAMAGED) != 0;
    *n = r->rc == 0 && !r->guard_damaged && r->bytes <= room && r->moved == (int64_t)r->bytes ? r->bytes : 0;
    if (rl != PLH_COLLECT_FIXED + *n || (flags & ~PLH_GUARD_DAMAGED)) {
        snprintf(why, whylen, "a Collect reply of %zu bytes for %zu bytes of data (flags 0x%x)", rl, *n, flags);
        return XF_BAD;
    }
    return XF_OK;
}

/* A late call (p->late) of an earlier query: has its reply come? When it
 * has, it is read and settled (a Load or Open counts; a Collect's answer
 * answered a query that is gone: dropped, after the guard check) and 1 is
 * returned. 0: this query goes on without the provider (still running; or
 * running for LATE_GIVE_UP_FACTOR times its timeout, when the helper is
 * killed and a new one started next time, not disabled; or the helper
 * died, handled as any death during that call). */
static int helper_settle(pl__host *h, pl__prov *p)
{
    char kind = p->late;
    const char *call = kind == 'L' ? "Load" : kind == 'O' ? "Open" : "Collect";
    int w = p->sock >= 0 ? wait_fd(p->sock, p->pidfd, POLLIN, now_ms()) : -1;
    if (w == 0) {
        int64_t ran = now_ms() - p->late_start_ms;
        if (ran < (int64_t)p->late_limit_ms * LATE_GIVE_UP_FACTOR) {
            pl__host_late_note(h, p);
            return 0;
        }
        helper_kill(p);
        p->errors++;
        pl__host_note(h, p, LOG_WARNING, "%s had not returned after %lld ms (%d times its timeout): the helper process "
                      "was killed and a new one will be started on the next query (a slow provider is not disabled)",
                      call, (long long)ran, LATE_GIVE_UP_FACTOR);
        pl__host_left_running(h, p, call);
        return 0;
    }
    uint32_t type = kind == 'L' ? PLH_LOAD : kind == 'O' ? PLH_OPEN : kind == 'W' ? PLH_WRAP : PLH_COLLECT;
    size_t cap = kind == 'L' ? 4 + PLH_MAX_MESSAGE : kind == 'O' ? 4 : PLH_COLLECT_FIXED;
    uint8_t reply[4 + PLH_MAX_MESSAGE > PLH_COLLECT_FIXED ? 4 + PLH_MAX_MESSAGE : PLH_COLLECT_FIXED];
    char why[160] = "";
    size_t rl = 0;
    int64_t deadline = now_ms() + p->late_limit_ms; /* it has answered: the rest comes at once */
    int x = w < 0 ? XF_DIED : xfer_reply(p, type, deadline, reply, cap, &rl, why, sizeof why);
    if (x == XF_LATE) x = XF_TIMEOUT;
    pl__call_result r;
    size_t n = 0;
    if (x == XF_OK && type != PLH_LOAD && type != PLH_OPEN) {
        x = collect_fixed(reply, rl, pl__host_room_of(p->late_cap), &r, &n, why, sizeof why);
        if (x == XF_OK && n) x = pl__host_ensure_buf(p, n) == PL_OK ? recv_all(p->sock, p->pidfd, p->buf, n, deadline)
                                                                    : XF_TIMEOUT;
        if (x == XF_LATE) x = XF_TIMEOUT;
    }
    uint32_t limit = p->late_limit_ms;
    if (x != XF_OK) {
        p->late = 0;
        helper_failed(h, p, x, call, limit, why);
        return 0;
    }
    if (type == PLH_LOAD) {
        pl__host_late_done(h, p, "");
        return load_reply(h, p, reply, rl);
    }
    if (type == PLH_OPEN) {
        pl__host_late_done(h, p, "");
        (void)open_reply(h, p, reply);
        return 1;
    }
    if (r.guard_damaged) {
        p->late = 0;
        pl__host_disable(h, p, "Collect wrote past the end of its %zu-byte buffer", p->late_cap);
        return 0;
    }
    pl__host_late_done(h, p, "; its answer was dropped and the provider is asked again");
    return 1;
}

/* Start the helper and load the library in it. Returns 1 when ready. */
static int helper_load(pl__host *h, pl__prov *p)
{
    if (p->loaded && p->pid > 0) return 1;
    if (!p->path) {
        pl__host_note(h, p, LOG_WARNING, "no Library in its registry entry; skipped");
        return 0;
    }
    if (!p->info.collect || !p->info.collect[0]) {
        pl__host_note(h, p, LOG_WARNING, "no Collect entry point in its registry entry; skipped");
        return 0;
    }
    const char *s[4] = {p->path, p->info.open, p->info.collect, p->info.close};
    uint8_t req[PLH_MAX_REQUEST];
    size_t n = 0;
    for (int i = 0; i < 4; i++) {
        size_t l = s[i] ? strlen(s[i]) : 0;
        if (l > PLH_MAX_STRING) {
            pl__host_note(h, p, LOG_ERR, "a name in its registry entry is longer than %u bytes; skipped", PLH_MAX_STRING);
            p->errors++;
            return 0;
        }
        put32(req + n, (uint32_t)l);
        if (l) memcpy(req + n + 4, s[i], l);
        n += 4 + l;
    }
    if (!pl__host_library_trusted(h, p)) return 0;
    if (!helper_spawn(h, p)) return 0;
    uint8_t reply[4 + PLH_MAX_MESSAGE];
    size_t rl = 0;
    char why[160] = "";
    int64_t start = now_ms();
    int x = xfer(p, PLH_LOAD, req, n, NULL, 0, p->open_ms, reply, sizeof reply, &rl, why, sizeof why);
    if (x == XF_LATE) {
        went_late(h, p, 'L', start, p->open_ms, 0);
        return 0;
    }
    if (x != XF_OK) {
        helper_failed(h, p, x, "Load", p->open_ms, why);
        return 0;
    }
    return load_reply(h, p, reply, rl);
}

static size_t wlen(const WCHAR *w)
{
    size_t n = 0;
    while (w[n]) n++;
    return n;
}

/* One isolated provider, one query. Called with p->mu held. */
int pl__host_collect_isolated(pl__host *h, pl__prov *p, const WCHAR *wq, pl__buf *out, uint32_t *nobjects)
{
    if (p->late && !helper_settle(h, p)) return PL_OK;
    if (p->disabled || !helper_load(h, p)) return PL_OK;
    char why[160] = "";
    if (!p->opened) {
        uint8_t has[4];
        const char *arg = pl__host_open_arg(h->st, &p->info);
        WCHAR *link = arg ? pl__host_to_wide(arg) : NULL;
        if (arg && !link) return PL_E_NOMEM;
        put32(has, link ? 1 : 0);
        uint8_t reply[4];
        size_t rl = 0;
        int64_t start = now_ms();
        int x = xfer(p, PLH_OPEN, has, 4, link, link ? wlen(link) * 2 : 0, p->open_ms, reply, sizeof reply, &rl, why,
                     sizeof why);
        free(link);
        if (x == XF_LATE) {
            went_late(h, p, 'O', start, p->open_ms, 0);
            return PL_OK;
        }
        if (x != XF_OK) {
            helper_failed(h, p, x, "Open", p->open_ms, why);
            return PL_OK;
        }
        if (!open_reply(h, p, reply)) return PL_OK;
    }
    size_t qbytes = wlen(wq) * 2;
    if (qbytes > PLH_MAX_QUERY) qbytes = PLH_MAX_QUERY & ~(size_t)1;
    size_t cap = pl__host_first_room(p, FIRST_BUFFER);
    if (p->orig && cap < (size_t)p->orig_len + FIRST_BUFFER) cap = (size_t)p->orig_len + FIRST_BUFFER;
    if (cap > PLH_MAX_ROOM) cap = PLH_MAX_ROOM;
    if (p->orig && p->orig_len > cap) {
        pl__host_note(h, p, LOG_WARNING, "the original's %u bytes do not fit a helper's buffer; not wrapped", p->orig_len);
        return PL_OK;
    }
    for (uint32_t round = 0;; round++) {
        if (pl__host_ensure_buf(p, cap) != PL_OK) return PL_E_NOMEM;
        cap = p->bufcap > PLH_MAX_ROOM ? PLH_MAX_ROOM : p->bufcap;
        DWORD room = pl__host_room_of(cap);
        uint8_t fixed[PLH_COLLECT_FIXED] = {0};
        size_t rl = 0;
        int64_t started = now_ms();
        int x;
        if (p->orig) { /* PLH_WRAP: room, query bytes, the original's objects, the query, its bytes */
            uint8_t *req = malloc(12 + qbytes);
            if (!req) return PL_E_NOMEM;
            put32(req, room);
            put32(req + 4, (uint32_t)qbytes);
            put32(req + 8, p->orig_n);
            memcpy(req + 12, wq, qbytes);
            x = xfer(p, PLH_WRAP, req, 12 + qbytes, p->orig, p->orig_len, p->collect_ms, fixed, sizeof fixed, &rl,
                     why, sizeof why);
            free(req);
        } else {
            uint8_t req[4];
            put32(req, room);
            x = xfer(p, PLH_COLLECT, req, 4, wq, qbytes, p->collect_ms, fixed, sizeof fixed, &rl, why, sizeof why);
        }
        pl__call_result r;
        memset(&r, 0, sizeof r);
        if (x == XF_LATE) {
            went_late(h, p, p->orig ? 'W' : 'C', started, p->collect_ms, cap);
            return PL_OK;
        }
        if (x == XF_OK) {
            size_t n = 0;
            x = collect_fixed(fixed, rl, room, &r, &n, why, sizeof why);
            if (x == XF_OK && n) {
                /* The rest of the same reply: the same deadline. */
                int64_t left = started + p->collect_ms - now_ms();
                int64_t deadline = now_ms() + (left > 0 ? left : 0);
                x = recv_all(p->sock, p->pidfd, p->buf, n, deadline);
                if (x == XF_LATE) x = XF_TIMEOUT;
            }
            r.data = p->buf;
        }
        if (x != XF_OK) {
            helper_failed(h, p, x, "Collect", p->collect_ms, why);
            return PL_OK;
        }
        if (p->timeouts_in_row) {
            p->timeouts_in_row = 0;
            pl__state_clear_timeouts(h->state, p->info.name);
        }
        pl__host_returned(h, p);
        int arc;
        if (pl__host_judge(h, p, &r, &cap, round, out, nobjects, &arc) == PL__JUDGED) return arc;
    }
}
