/* perflib-provider-host: runs ONE isolated provider for the provider host.
 *
 * Started by lib/host/host.c with posix_spawn, never by a user: its end of a
 * socketpair is descriptor 3 (PLH_FD). It dlopens the provider the first
 * request names, resolves Open/Collect/Close and serves Open, Collect and
 * Close requests one at a time, keeping the provider loaded and its state
 * between queries. The protocol is in lib/host/helper_proto.h and
 * docs/provider-host.md. It exits 0 at end of file or after Close, and
 * PLH_EXIT_PROTOCOL on any request it does not understand. A provider that
 * crashes or hangs takes only this process with it; the host sees that and
 * acts. Built only on the public headers and the protocol header. */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helper_proto.h"
#include "helper_tree.h"
#include "perflib/wintypes.h"
#include "perflib/winperf.h"

/* Sanitizer builds: a provider's crash must reach the host as the signal
 * that caused it, not as the sanitizer's report and exit status; leaks of a
 * provider are not the helper's to report. Unused in other builds. */
__attribute__((visibility("default"))) const char *__asan_default_options(void);
__attribute__((visibility("default"))) const char *__asan_default_options(void)
{
    return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0:handle_sigill=0:detect_leaks=0";
}

/* The same for a -fsanitize=thread build (used to check the host for races). */
__attribute__((visibility("default"))) const char *__tsan_default_options(void);
__attribute__((visibility("default"))) const char *__tsan_default_options(void)
{
    return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0:handle_sigill=0:report_signal_unsafe=0";
}

typedef DWORD (*open_fn)(LPWSTR);
typedef DWORD (*collect_fn)(LPWSTR, LPVOID *, LPDWORD, LPDWORD);
typedef DWORD (*close_fn)(void);

static int sock = PLH_FD;
static open_fn p_open;
static collect_fn p_collect;
static close_fn p_close;
static int loaded;
static int opened;        /* Open returned 0: only then is Close called */
static void *lib;         /* the provider, for DllMain(DETACH) and dlclose */
static int in_call;       /* the main thread is inside the provider (atomic) */
static int finishing;     /* the main thread is ending the provider (atomic) */

static uint8_t *buf;      /* room + PLH_GUARD_BYTES */
static size_t bufcap;

/* Everything the provider started ends with the helper (helper_tree.h):
 * the helper is a child subreaper, so every descendant stays in its tree,
 * also one that left its process group. Walked and killed once, by whoever
 * ends the helper first (the main thread, the thread that watches the host,
 * a fatal signal's handler), so two never share the buffer. */
static int ending;
static pid_t end_buf[PLH_TREE_MAX];

static void kill_all(void)
{
    if (__atomic_exchange_n(&ending, 1, __ATOMIC_SEQ_CST)) return;
    (void)plh_kill_tree(getpid(), getpgrp(), NULL, end_buf);
}

static void bye(int status)
{
    kill_all();
    _exit(status);
}

/* The host went away: take along whatever the provider forked (its tree,
 * and our process group when we lead one, as the host starts us), then
 * leave. */
static void host_gone(void)
{
    kill_all();
    if (getpgrp() == getpid()) kill(0, SIGKILL);
    _exit(0);
}

/* A provider that crashes the helper (or a limit's signal): its processes
 * first, then the signal's own default action, which the host reports. */
static void fatal(int sig)
{
    kill_all();
    raise(sig); /* SA_RESETHAND: the default action now */
}

static void catch_fatal_signals(void)
{
    static uint8_t altstack[1 << 16];
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack, .ss_flags = 0};
    (void)sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fatal;
    sa.sa_flags = SA_RESETHAND | SA_ONSTACK | SA_NODEFER;
    sigfillset(&sa.sa_mask);
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP, SIGXCPU, SIGXFSZ};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) (void)sigaction(sigs[i], &sa, NULL);
}

/* The limits (docs/provider-host.md, "Limits"), from PLH_LIMITS_ARG. */
static struct {
    unsigned long memory_mb, files, open_cpu, collect_cpu;
    int set;
} lim;

static void parse_limits(int argc, char **argv)
{
    size_t n = strlen(PLH_LIMITS_ARG);
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], PLH_LIMITS_ARG, n) != 0) continue;
        char end;
        if (sscanf(argv[i] + n, "%lu,%lu,%lu,%lu%c", &lim.memory_mb, &lim.files, &lim.open_cpu, &lim.collect_cpu,
                   &end) != 4 || !lim.memory_mb || !lim.files || !lim.open_cpu || !lim.collect_cpu)
            bye(PLH_EXIT_PROTOCOL);
        lim.set = 1;
    }
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static void set_limit(int what, rlim_t v)
{
    struct rlimit rl;
    if (getrlimit(what, &rl) != 0) return;
    if (rl.rlim_max != RLIM_INFINITY && v > rl.rlim_max) v = rl.rlim_max;
    rl.rlim_cur = rl.rlim_max = v;
    (void)setrlimit(what, &rl);
}

/* Before the provider is loaded: no new privileges (no setuid programs
 * for it), no core files, the open-file limit, and an address-space cap
 * well above the memory limit as a backstop (not under AddressSanitizer,
 * whose shadow memory needs terabytes of address space). */
static void apply_limits(void)
{
    (void)prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    set_limit(RLIMIT_CORE, 0);
    if (!lim.set) return;
    set_limit(RLIMIT_NOFILE, (rlim_t)lim.files);
#ifndef UNDER_ASAN
    set_limit(RLIMIT_AS, ((rlim_t)lim.memory_mb * 2 + 256) << 20);
#endif
}

/* CPU time for one call: the soft RLIMIT_CPU is moved to what was used so
 * far plus the call's allowance (SIGXCPU ends us past it), and back after. */
static void cpu_budget(unsigned long seconds)
{
    struct rlimit rl;
    struct rusage ru;
    if (!lim.set || getrlimit(RLIMIT_CPU, &rl) != 0 || getrusage(RUSAGE_SELF, &ru) != 0) return;
    if (seconds) {
        rlim_t soft = (rlim_t)ru.ru_utime.tv_sec + (rlim_t)ru.ru_stime.tv_sec + 1 + (rlim_t)seconds;
        rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && soft > rl.rlim_max ? rl.rlim_max : soft;
    } else {
        rl.rlim_cur = rl.rlim_max;
    }
    (void)setrlimit(RLIMIT_CPU, &rl);
}

/* The resident KiB of process pid (statm's second field), 0 when gone. */
static unsigned long rss_kib(pid_t pid)
{
    char b[128];
    if (plh_read_proc(pid, "statm", b, sizeof b) <= 0) return 0;
    char *p = strchr(b, ' ');
    unsigned long pages = p ? strtoul(p + 1, NULL, 10) : 0;
    return pages * ((unsigned long)sysconf(_SC_PAGESIZE) / 1024ul);
}

/* Zombies among our children that were zombies at the previous check too
 * are reaped: orphans the subreaper inherited, or children the provider
 * had a whole call to wait for. */
static pid_t zombies_seen[64];
static size_t nzombies_seen;

static void reap_old_zombies(const pid_t *tree, size_t n)
{
    pid_t now[64];
    size_t nnow = 0;
    for (size_t i = 0; i < n; i++) {
        if (!plh_dead(tree[i])) continue;
        int old = 0;
        for (size_t k = 0; k < nzombies_seen && !old; k++) old = zombies_seen[k] == tree[i];
        if (old) (void)waitpid(tree[i], NULL, WNOHANG);
        else if (nnow < 64) now[nnow++] = tree[i];
    }
    memcpy(zombies_seen, now, nnow * sizeof now[0]);
    nzombies_seen = nnow;
}

/* After each provider call: a process the provider started that left the
 * helper's process group (setsid(), setpgid()): every one is killed and
 * the helper ends with PLH_EXIT_ESCAPED (the host disables the provider).
 * Above the memory limit (the helper's peak resident size plus what every
 * process it started holds now) or out of descriptors, the helper ends with
 * a status that says which. */
static pid_t check_buf[PLH_TREE_MAX];

static void check_limits(void)
{
    size_t n = plh_tree(getpid(), check_buf, PLH_TREE_MAX);
    unsigned long tree_kib = 0;
    for (size_t i = 0; i < n; i++) {
        pid_t g = getpgid(check_buf[i]);
        if (g >= 0 && g != getpgrp() && !plh_dead(check_buf[i])) bye(PLH_EXIT_ESCAPED);
        tree_kib += rss_kib(check_buf[i]);
    }
    reap_old_zombies(check_buf, n);
    if (!lim.set) return;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0 && (unsigned long)ru.ru_maxrss + tree_kib > lim.memory_mb * 1024ul)
        bye(PLH_EXIT_MEMORY);
    /* Descriptors: fewer than PLH_FILES_SPARE left after a call is the
     * limit hit (the provider's own last open already failed, or the next
     * one will). */
    int d[PLH_FILES_SPARE], got = 0, out = 0;
    for (; got < PLH_FILES_SPARE; got++) {
        d[got] = fcntl(sock, F_DUPFD_CLOEXEC, 0);
        if (d[got] < 0) {
            out = errno == EMFILE;
            break;
        }
    }
    for (int i = 0; i < got; i++) close(d[i]);
    if (out) bye(PLH_EXIT_FILES);
}

static int read_full(void *p, size_t n)
{
    uint8_t *b = p;
    while (n) {
        ssize_t r = recv(sock, b, n, 0);
        if (r == 0) return 0;
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        b += r;
        n -= (size_t)r;
    }
    return 1;
}

static void write_full(const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t r = send(sock, b, n, MSG_NOSIGNAL);
        if (r < 0) {
            if (errno == EINTR) continue;
            host_gone(); /* the host went away */
        }
        b += r;
        n -= (size_t)r;
    }
}

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static uint32_t get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void reply(uint32_t type, const void *a, size_t alen, const void *b, size_t blen)
{
    uint8_t hdr[PLH_HEADER];
    put32(hdr, type | PLH_REPLY);
    put32(hdr + 4, (uint32_t)(alen + blen));
    write_full(hdr, sizeof hdr);
    if (alen) write_full(a, alen);
    if (blen) write_full(b, blen);
}

static void reply32(uint32_t type, uint32_t v)
{
    uint8_t b[4];
    put32(b, v);
    reply(type, b, 4, NULL, 0);
}

/* Take one length-prefixed string from the payload; NULL for n = 0. */
static char *take_string(const uint8_t **p, const uint8_t *end)
{
    if (end - *p < 4) bye(PLH_EXIT_PROTOCOL);
    uint32_t n = get32(*p);
    *p += 4;
    if (n > PLH_MAX_STRING || (size_t)(end - *p) < n) bye(PLH_EXIT_PROTOCOL);
    char *s = NULL;
    if (n) {
        s = malloc((size_t)n + 1);
        if (!s) bye(PLH_EXIT_NOMEM);
        memcpy(s, *p, n);
        s[n] = '\0';
        if (strlen(s) != n) bye(PLH_EXIT_PROTOCOL); /* an embedded NUL */
    }
    *p += n;
    return s;
}

static void do_load(const uint8_t *pl, uint32_t len)
{
    if (loaded) bye(PLH_EXIT_PROTOCOL);
    const uint8_t *p = pl, *end = pl + len;
    char *s[4];
    for (int i = 0; i < 4; i++) s[i] = take_string(&p, end);
    if (p != end || !s[0] || !s[2]) bye(PLH_EXIT_PROTOCOL);
    dlerror();
    cpu_budget(lim.open_cpu);
    void *dl = dlopen(s[0], RTLD_NOW | RTLD_LOCAL);
    cpu_budget(0);
    check_limits();
    if (!dl) {
        const char *e = dlerror();
        if (!e) e = "unknown error";
        size_t n = strlen(e);
        if (n > PLH_MAX_MESSAGE) n = PLH_MAX_MESSAGE;
        uint8_t st[4];
        put32(st, PLH_LOAD_DLOPEN);
        reply(PLH_LOAD, st, 4, e, n);
        for (int k = 0; k < 4; k++) free(s[k]);
        return;
    }
    void *fn[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        if (!s[i + 1]) continue;
        dlerror();
        fn[i] = dlsym(dl, s[i + 1]);
        const char *e = dlerror();
        if (e || !fn[i]) {
            if (!e) e = "NULL symbol";
            size_t n = strlen(e);
            if (n > PLH_MAX_MESSAGE) n = PLH_MAX_MESSAGE;
            const char *msg = e;
            uint8_t st[4];
            put32(st, PLH_LOAD_DLSYM);
            reply(PLH_LOAD, st, 4, msg, n);
            dlclose(dl);
            for (int k = 0; k < 4; k++) free(s[k]);
            return;
        }
    }
    __atomic_store_n(&in_call, 1, __ATOMIC_SEQ_CST);
    int attached = plh_dllmain(dl, PLH_DLL_PROCESS_ATTACH);
    __atomic_store_n(&in_call, 0, __ATOMIC_SEQ_CST);
    if (!attached) {
        static const char msg[] = "DllMain(DLL_PROCESS_ATTACH) returned FALSE";
        uint8_t st[4];
        put32(st, PLH_LOAD_DLOPEN);
        reply(PLH_LOAD, st, 4, msg, sizeof msg - 1);
        dlclose(dl);
        for (int k = 0; k < 4; k++) free(s[k]);
        return;
    }
    lib = dl;
    /* POSIX guarantees a data pointer from dlsym converts to a function pointer. */
    memcpy(&p_open, &fn[0], sizeof fn[0]);
    memcpy(&p_collect, &fn[1], sizeof fn[1]);
    memcpy(&p_close, &fn[2], sizeof fn[2]);
    loaded = 1;
    for (int k = 0; k < 4; k++) free(s[k]);
    reply32(PLH_LOAD, PLH_LOAD_OK);
}

/* A NUL-terminated copy of `n` bytes of UTF-16 units. */
static WCHAR *wide(const uint8_t *p, uint32_t n)
{
    if (n % 2) bye(PLH_EXIT_PROTOCOL);
    WCHAR *w = malloc((size_t)n + 2);
    if (!w) bye(PLH_EXIT_NOMEM);
    if (n) memcpy(w, p, n);
    w[n / 2] = 0;
    return w;
}

static void do_open(const uint8_t *pl, uint32_t len)
{
    if (!loaded || len < 4) bye(PLH_EXIT_PROTOCOL);
    uint32_t has = get32(pl);
    if (has > 1 || (!has && len != 4)) bye(PLH_EXIT_PROTOCOL);
    WCHAR *link = has ? wide(pl + 4, len - 4) : NULL;
    cpu_budget(lim.open_cpu);
    __atomic_store_n(&in_call, 1, __ATOMIC_SEQ_CST);
    DWORD rc = p_open ? p_open(link) : 0;
    __atomic_store_n(&in_call, 0, __ATOMIC_SEQ_CST);
    cpu_budget(0);
    free(link);
    check_limits();
    if (rc == 0) opened = 1;
    reply32(PLH_OPEN, rc);
}

/* Run Collect on buf (room bytes, then the guard) and reply to `type`.
 * preload bytes of buf already hold a wrapped provider's result and nobj
 * its object count (0 and 0 for a plain Collect). */
static void run_collect(uint32_t type, WCHAR *q, uint32_t room, DWORD nobj)
{
    memset(buf + room, PLH_GUARD_BYTE, PLH_GUARD_BYTES);
    void *data = buf;
    DWORD bytes = room;
    cpu_budget(lim.collect_cpu);
    __atomic_store_n(&in_call, 1, __ATOMIC_SEQ_CST);
    DWORD rc = p_collect(q, &data, &bytes, &nobj);
    __atomic_store_n(&in_call, 0, __ATOMIC_SEQ_CST);
    cpu_budget(0);
    free(q);
    check_limits();
    uint32_t flags = 0;
    for (size_t g = 0; g < PLH_GUARD_BYTES; g++)
        if (buf[room + g] != PLH_GUARD_BYTE) flags |= PLH_GUARD_DAMAGED;
    int64_t moved = plh_pointer_moved(data, buf);
    uint8_t fixed[PLH_COLLECT_FIXED];
    put32(fixed, rc);
    put32(fixed + 4, bytes);
    put32(fixed + 8, nobj);
    put32(fixed + 12, flags);
    memcpy(fixed + 16, &moved, 8);
    size_t n = 0;
    if (rc == 0 && !flags && bytes <= room && moved == (int64_t)bytes) n = bytes;
    reply(type, fixed, sizeof fixed, buf, n);
}

static void room_for(uint32_t room)
{
    if (!buf || bufcap < room) {
        uint8_t *nb = realloc(buf, (size_t)room + PLH_GUARD_BYTES);
        if (!nb) bye(PLH_EXIT_NOMEM);
        buf = nb;
        bufcap = room;
    }
}

static void do_collect(const uint8_t *pl, uint32_t len)
{
    if (!loaded || len < 4 || len - 4 > PLH_MAX_QUERY) bye(PLH_EXIT_PROTOCOL);
    uint32_t room = get32(pl);
    if (room > PLH_MAX_ROOM) bye(PLH_EXIT_PROTOCOL);
    WCHAR *q = wide(pl + 4, len - 4);
    room_for(room);
    run_collect(PLH_COLLECT, q, room, 0);
}

/* PLH_WRAP: u32 room, u32 query bytes, u32 the original's objects, the
 * query, then the original's result (the rest, at most room bytes), read
 * straight into the buffer the wrapper's Collect gets. */
static void do_wrap(uint32_t len)
{
    uint8_t fx[12];
    if (!loaded || len < sizeof fx || read_full(fx, sizeof fx) <= 0) bye(PLH_EXIT_PROTOCOL);
    uint32_t room = get32(fx), qb = get32(fx + 4), nobj = get32(fx + 8);
    if (room > PLH_MAX_ROOM || qb > PLH_MAX_QUERY || qb > len - sizeof fx) bye(PLH_EXIT_PROTOCOL);
    uint32_t orig = len - (uint32_t)sizeof fx - qb;
    if (orig > room) bye(PLH_EXIT_PROTOCOL);
    uint8_t *qt = malloc(qb ? qb : 1);
    if (!qt) bye(PLH_EXIT_NOMEM);
    if (qb && read_full(qt, qb) <= 0) bye(PLH_EXIT_PROTOCOL);
    WCHAR *q = wide(qt, qb);
    free(qt);
    room_for(room);
    if (orig && read_full(buf, orig) <= 0) bye(PLH_EXIT_PROTOCOL);
    run_collect(PLH_WRAP, q, room, nobj);
}

/* The provider's end, as when a Windows process unloads it or exits:
 * DllMain(DLL_PROCESS_DETACH), then dlclose (its destructors run), then a
 * normal exit (atexit handlers run). */
static void finish(int host_went_away)
{
    __atomic_store_n(&finishing, 1, __ATOMIC_SEQ_CST);
    if (lib) {
        (void)plh_dllmain(lib, PLH_DLL_PROCESS_DETACH);
        dlclose(lib);
        lib = NULL;
    }
    if (host_went_away) host_gone(); /* and whatever the provider forked */
    kill_all();
    exit(0);
}

static void do_close(uint32_t len)
{
    if (len != 0) bye(PLH_EXIT_PROTOCOL);
    /* Close only after a successful Open, as Windows (and the in-process
     * host) does. */
    __atomic_store_n(&finishing, 1, __ATOMIC_SEQ_CST);
    DWORD rc = loaded && opened && p_close ? p_close() : 0;
    reply32(PLH_CLOSE, rc);
    finish(0);
}

/* The host's end closed (the host exited or gave up on us): leave, even in
 * the middle of a provider call that never returns. When the main thread is
 * not inside the provider it sees the end of file itself and ends the
 * provider properly (finish); that is given FINISH_MS before this thread
 * exits anyway. */
#define FINISH_MS 2000
static void *watch_host(void *arg)
{
    (void)arg;
    for (;;) {
        struct pollfd pf = {sock, POLLRDHUP, 0};
        int r = poll(&pf, 1, -1);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 || (pf.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))) break;
    }
    for (int waited = 0; waited < FINISH_MS; waited += 10) {
        if (__atomic_load_n(&in_call, __ATOMIC_SEQ_CST) && !__atomic_load_n(&finishing, __ATOMIC_SEQ_CST)) host_gone();
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    host_gone();
    return NULL;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    /* Orphans of the provider's processes come to us, not to init: every
     * one stays in our tree (helper_tree.h). */
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    catch_fatal_signals();
    /* Only stdin/stdout/stderr and the socket: nothing else of the host's. */
    close_range(PLH_FD + 1, ~0u, 0);
    parse_limits(argc, argv);
    apply_limits();
    pthread_t th;
    if (pthread_create(&th, NULL, watch_host, NULL) == 0) pthread_detach(th);
    uint8_t *pl = malloc(PLH_MAX_REQUEST);
    if (!pl) bye(PLH_EXIT_NOMEM);
    for (;;) {
        uint8_t hdr[PLH_HEADER];
        int r = read_full(hdr, sizeof hdr);
        if (r == 0) finish(1); /* the host went away between requests */
        if (r < 0) host_gone();
        uint32_t type = get32(hdr), len = get32(hdr + 4);
        if (type == PLH_WRAP) { /* its payload may be far larger than a request */
            do_wrap(len);
            continue;
        }
        if (len > PLH_MAX_REQUEST) bye(PLH_EXIT_PROTOCOL);
        if (len && read_full(pl, len) <= 0) bye(PLH_EXIT_PROTOCOL);
        switch (type) {
        case PLH_LOAD: do_load(pl, len); break;
        case PLH_OPEN: do_open(pl, len); break;
        case PLH_COLLECT: do_collect(pl, len); break;
        case PLH_CLOSE: do_close(len); break;
        default: bye(PLH_EXIT_PROTOCOL);
        }
    }
}
