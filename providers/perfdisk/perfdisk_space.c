/* PerfDisk's space thread (perfdisk_space.h).
 *
 * statvfs() walks a path and asks the file system, and either can block for
 * as long as a device or a server likes (a hung disk, an NFS mount on the
 * way). So LogicalDisk's statvfs() calls run here, on one thread of
 * PerfDisk's own, started on first use and woken per batch by a semaphore
 * (an idle thread costs no CPU), while the caller reads the rest; the
 * caller then waits for the results with a deadline.
 *
 * The hand-over: the caller fills the batch (paths, count), publishes the
 * count with a release store and posts `go`; the thread takes the count with
 * an acquire load, makes the calls, publishes each result by a release store
 * of `ndone` and posts `done`. The caller waits on `done` until the
 * deadline; results below `ndone` (acquire) are final whatever happens. A
 * batch that misses the deadline is abandoned: `stuck` is set, the caller
 * never touches the batch's memory again until the thread's post of `done`
 * is taken (sem_trywait at the next batch), and the library is pinned
 * (RTLD_NODELETE), because the host dlcloses providers at engine close and
 * the thread must return into mapped code. A stuck thread is never joined.
 *
 * Everything is called under PerfDisk's lock (one collection at a time);
 * only the thread runs concurrently with it. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "perfdisk_space.h"
#include "provider_thread.h"

#define MB (1024ull * 1024ull)

static struct {
    int started;          /* the thread runs (in process `owner`) */
    long owner;
    int stuck;            /* a batch was abandoned and its post not yet taken */
    int pinned;           /* the library is kept loaded for a stuck thread */
    pthread_t th;
    sem_t go, done;
    atomic_int quit;
    /* The batch: written by the caller before the release store of n, read
     * by the thread after its acquire load; results written by the thread,
     * read by the caller below ndone. */
    char *paths;          /* NUL-terminated paths back to back */
    size_t paths_len, paths_cap;
    size_t *off;          /* where path i starts */
    pd_space *res;
    size_t cap;           /* of off and res */
    size_t fill;          /* paths added to the open batch */
    atomic_size_t n;      /* paths handed over */
    atomic_size_t ndone;  /* results final */
    char stall[512];      /* test hook: a FIFO to open before the calls, or "" */
    pd_view view;         /* of the thread that made it */
} W;

void pl__pds_view(pd_view *v)
{
    struct stat st;
    memset(v, 0, sizeof *v);
    v->pid = (long)getpid();
    if (stat("/", &st) == 0) {
        v->rino = st.st_ino;
        v->rdev = st.st_dev;
    }
}

int pl__pds_same_view(const pd_view *a, const pd_view *b)
{
    return a->pid == b->pid && a->rino == b->rino && a->rdev == b->rdev;
}

void pl__pds_statvfs(const char *path, pd_space *out)
{
    struct statvfs st;
    out->free_mb = out->total_mb = 0;
    if (statvfs(path, &st) != 0) {
        out->rc = -errno;
        return;
    }
    uint64_t frsize = st.f_frsize ? st.f_frsize : st.f_bsize;
    /* Block counts x frsize fit 64 bits for any filesystem below 16 EiB. */
    out->free_mb = (uint64_t)st.f_bavail * frsize / MB;
    out->total_mb = (uint64_t)st.f_blocks * frsize / MB;
    out->rc = 0;
}

static void *space_main(void *arg)
{
    (void)arg;
    for (;;) {
        while (sem_wait(&W.go) != 0) { /* EINTR only: signals are blocked, but be safe */
        }
        if (atomic_load_explicit(&W.quit, memory_order_acquire)) break;
        size_t n = atomic_load_explicit(&W.n, memory_order_acquire);
        if (W.stall[0]) { /* the test hook: block until the test opens the FIFO for writing */
            int fd = open(W.stall, O_RDONLY | O_CLOEXEC);
            if (fd >= 0) close(fd);
        }
        for (size_t i = 0; i < n; i++) {
            pl__pds_statvfs(W.paths + W.off[i], &W.res[i]);
            atomic_store_explicit(&W.ndone, i + 1, memory_order_release);
        }
        sem_post(&W.done);
    }
    return NULL;
}

/* Keep this library loaded for the rest of the process: RTLD_NODELETE on
 * the object that holds W (found by dladdr), so a dlclose at engine close
 * cannot unmap the code a stuck thread will return into. */
static void pin(void)
{
    if (!W.pinned) W.pinned = pl__provider_pin(&W);
}

static void forget(void)
{
    free(W.paths);
    free(W.off);
    free(W.res);
    memset(&W, 0, sizeof W);
}

static int start(void)
{
    if (sem_init(&W.go, 0, 0) != 0) return 0;
    if (sem_init(&W.done, 0, 0) != 0) {
        sem_destroy(&W.go);
        return 0;
    }
    atomic_store(&W.quit, 0);
    /* Little stack: statvfs() and a loop. */
    if (pl__provider_thread(&W.th, space_main, NULL, 128u << 10, "perfdisk-space") != 0) {
        sem_destroy(&W.done);
        sem_destroy(&W.go);
        return 0;
    }
    W.started = 1;
    W.owner = (long)getpid();
    return 1;
}

/* Stop and join an idle thread (no batch out). */
static void join(void)
{
    atomic_store_explicit(&W.quit, 1, memory_order_release);
    sem_post(&W.go);
    pthread_join(W.th, NULL);
    sem_destroy(&W.done);
    sem_destroy(&W.go);
    W.started = 0;
}

int pl__pds_ready(const pd_view *v)
{
    if (W.started && W.owner != (long)getpid()) {
        /* A forked child: the thread stayed in the parent, and the
         * semaphores may be in any state. Start afresh. */
        forget();
    }
    if (W.stuck) {
        if (sem_trywait(&W.done) != 0) return 0; /* still out */
        W.stuck = 0; /* it came back: its batch is over */
        (void)atomic_load_explicit(&W.ndone, memory_order_acquire);
    }
    /* Made under another root than the caller's (chroot() since): its
     * statvfs() would look paths up elsewhere than the mount table says. */
    if (W.started && !pl__pds_same_view(&W.view, v)) join();
    if (!W.started) {
        if (!start()) return 0;
        W.view = *v;
    }
    W.fill = 0;
    W.paths_len = 0;
    return 1;
}

long pl__pds_add(const char *path)
{
    size_t len = strlen(path) + 1;
    if (W.fill == W.cap) {
        size_t cap = W.cap ? 2 * W.cap : 16;
        size_t *off = realloc(W.off, cap * sizeof *off);
        if (!off) return -1;
        W.off = off;
        pd_space *res = realloc(W.res, cap * sizeof *res);
        if (!res) return -1;
        W.res = res;
        W.cap = cap;
    }
    if (W.paths_len + len > W.paths_cap) {
        size_t cap = W.paths_cap ? W.paths_cap : 4096;
        while (cap < W.paths_len + len) cap *= 2;
        char *p = realloc(W.paths, cap);
        if (!p) return -1;
        W.paths = p;
        W.paths_cap = cap;
    }
    memcpy(W.paths + W.paths_len, path, len);
    W.off[W.fill] = W.paths_len;
    W.paths_len += len;
    return (long)W.fill++;
}

size_t pl__pds_go(const char *stall)
{
    if (W.fill == 0) return 0;
    if (stall && strlen(stall) < sizeof W.stall) memcpy(W.stall, stall, strlen(stall) + 1);
    else W.stall[0] = '\0';
    atomic_store_explicit(&W.ndone, 0, memory_order_relaxed);
    atomic_store_explicit(&W.n, W.fill, memory_order_release);
    sem_post(&W.go);
    return W.fill;
}

size_t pl__pds_wait(const struct timespec *deadline)
{
    size_t n = atomic_load_explicit(&W.n, memory_order_relaxed);
    for (;;) {
        if (sem_clockwait(&W.done, CLOCK_MONOTONIC, deadline) == 0) break;
        if (errno == EINTR) continue;
        /* The deadline passed (or the semaphore failed). */
        size_t got = atomic_load_explicit(&W.ndone, memory_order_acquire);
        if (got < n) {
            W.stuck = 1;
            pin();
            return got;
        }
        /* Every call returned just now: its post is on the way. */
        while (sem_wait(&W.done) != 0) {
        }
        break;
    }
    /* The thread stored ndone = n (release) before its post: this acquire
     * orders our reads of the results after its writes (also for tools
     * that do not model every semaphore wait). */
    while (atomic_load_explicit(&W.ndone, memory_order_acquire) != n) {
    }
    W.fill = 0;
    return n;
}

const pd_space *pl__pds_result(size_t slot)
{
    return &W.res[slot];
}

void pl__pds_stop(void)
{
    if (!W.started) return;
    if (W.owner != (long)getpid()) { /* forked: no thread here to join */
        forget();
        return;
    }
    if (W.stuck) {
        if (sem_trywait(&W.done) != 0) return; /* still out: left to finish on its own, never joined */
        W.stuck = 0;
        (void)atomic_load_explicit(&W.ndone, memory_order_acquire);
    }
    join();
    int pinned = W.pinned;
    forget();
    W.pinned = pinned;
}
