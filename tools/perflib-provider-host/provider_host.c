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
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "helper_proto.h"
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

static uint8_t *buf;      /* room + PLH_GUARD_BYTES */
static size_t bufcap;

static void bye(int status) { _exit(status); }

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
            bye(0); /* the host went away */
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
    void *dl = dlopen(s[0], RTLD_NOW | RTLD_LOCAL);
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
    DWORD rc = p_open ? p_open(link) : 0;
    free(link);
    reply32(PLH_OPEN, rc);
}

static void do_collect(const uint8_t *pl, uint32_t len)
{
    if (!loaded || len < 4 || len - 4 > PLH_MAX_QUERY) bye(PLH_EXIT_PROTOCOL);
    uint32_t room = get32(pl);
    if (room > PLH_MAX_ROOM) bye(PLH_EXIT_PROTOCOL);
    WCHAR *q = wide(pl + 4, len - 4);
    if (!buf || bufcap < room) {
        uint8_t *nb = realloc(buf, (size_t)room + PLH_GUARD_BYTES);
        if (!nb) bye(PLH_EXIT_NOMEM);
        buf = nb;
        bufcap = room;
    }
    memset(buf + room, PLH_GUARD_BYTE, PLH_GUARD_BYTES);
    void *data = buf;
    DWORD bytes = room, nobj = 0;
    DWORD rc = p_collect(q, &data, &bytes, &nobj);
    free(q);
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
    reply(PLH_COLLECT, fixed, sizeof fixed, buf, n);
}

static void do_close(uint32_t len)
{
    if (len != 0) bye(PLH_EXIT_PROTOCOL);
    DWORD rc = loaded && p_close ? p_close() : 0;
    reply32(PLH_CLOSE, rc);
    bye(0);
}

/* The host's end closed (the host exited or gave up on us): leave, even in
 * the middle of a provider call that never returns. */
static void *watch_host(void *arg)
{
    (void)arg;
    for (;;) {
        struct pollfd pf = {sock, POLLRDHUP, 0};
        int r = poll(&pf, 1, -1);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 || (pf.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))) bye(0);
    }
    return NULL;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    /* Only stdin/stdout/stderr and the socket: nothing else of the host's. */
    close_range(PLH_FD + 1, ~0u, 0);
    pthread_t th;
    if (pthread_create(&th, NULL, watch_host, NULL) == 0) pthread_detach(th);
    uint8_t *pl = malloc(PLH_MAX_REQUEST);
    if (!pl) bye(PLH_EXIT_NOMEM);
    for (;;) {
        uint8_t hdr[PLH_HEADER];
        int r = read_full(hdr, sizeof hdr);
        if (r <= 0) bye(0);
        uint32_t type = get32(hdr), len = get32(hdr + 4);
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
