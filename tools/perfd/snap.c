/* perfd: the snapshot publisher.
 *
 * One collector thread runs every engine query. For each distinct query
 * string there is one entry holding the latest published snapshot and the
 * requests waiting for the next one. A request either gets the latest
 * snapshot (young enough), or joins the entry's collection (queued or
 * running) and is suspended; the collector resumes every waiter of an entry
 * when it publishes. Snapshots are immutable once published and freed when
 * their last reference goes (the entry's, a request's, a response's), so a
 * client that reads slowly holds memory, never the collector or a lock. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon.h"

struct perfd_waiter {
    perfd_req *req;
    struct perfd_waiter *next;
};

typedef struct entry {
    char *query;
    perfd_snap *latest;
    int queued;                   /* in the collector's queue or being collected */
    struct perfd_waiter *waiters;
    uint64_t used_ns;
    struct entry *next;           /* all entries */
    struct entry *qnext;          /* the queue */
} entry;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t wake;
    pthread_t thread;
    int running, stopping;
    pl_engine *engine;
    entry *entries;
    unsigned n_entries, max_entries;
    entry *qhead, *qtail;
    uint64_t max_age_ns;
    uint64_t seq;
} S = {.mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static perfd_publish_hook *hooks;

void perfd_publish_hook_add(perfd_publish_hook *h)
{
    h->next_ = hooks;
    hooks = h;
}

pl_engine *perfd_engine(void)
{
    return S.engine;
}

perfd_snap *perfd_snap_ref(perfd_snap *s)
{
    if (s) __atomic_add_fetch(&s->refs_, 1, __ATOMIC_RELAXED);
    return s;
}

void perfd_snap_unref(perfd_snap *s)
{
    if (!s || __atomic_sub_fetch(&s->refs_, 1, __ATOMIC_ACQ_REL) != 0) return;
    pl_free((void *)s->data);
    free((void *)s->query);
    free(s);
}

/* A snapshot that carries an error rather than data. */
static perfd_snap *error_snap(const char *query, int status, const char *msg)
{
    perfd_snap *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->query = strdup(query);
    s->status = status;
    snprintf(s->error, sizeof s->error, "%s", msg);
    s->refs_ = 1;
    return s;
}

/* "Global" for NULL or blank; otherwise the string as given (the engine
 * parses it; two spellings of one query are two entries, which is correct
 * if wasteful). */
static const char *norm_query(const char *q)
{
    if (!q) return "Global";
    const char *p = q;
    while (*p == ' ' || *p == '\t') p++;
    return *p ? q : "Global";
}

static entry *find_entry(const char *q)
{
    for (entry *e = S.entries; e; e = e->next)
        if (strcmp(e->query, q) == 0) return e;
    return NULL;
}

/* Drop the least recently used entry that nobody waits for. */
static int evict_one(void)
{
    entry **victim = NULL;
    for (entry **pe = &S.entries; *pe; pe = &(*pe)->next) {
        entry *e = *pe;
        if (e->queued || e->waiters) continue;
        if (!victim || e->used_ns < (*victim)->used_ns) victim = pe;
    }
    if (!victim) return -1;
    entry *e = *victim;
    *victim = e->next;
    perfd_snap_unref(e->latest);
    free(e->query);
    free(e);
    S.n_entries--;
    return 0;
}

perfd_snap *perfd_snapshot(perfd_req *r, const char *query)
{
    /* Called again after the resume: the collector set snap_ before it
     * resumed the connection. */
    if (r->snap_) return r->snap_;
    const char *q = norm_query(query);
    uint64_t now = now_ns();
    pthread_mutex_lock(&S.mu);
    if (S.stopping) {
        pthread_mutex_unlock(&S.mu);
        r->snap_ = error_snap(q, PL_E_BUSY, "perfd is stopping");
        return r->snap_;
    }
    entry *e = find_entry(q);
    if (!e) {
        if (S.n_entries >= S.max_entries && evict_one() != 0) {
            pthread_mutex_unlock(&S.mu);
            r->snap_ = error_snap(q, PL_E_BUSY, "too many different queries are being collected");
            return r->snap_;
        }
        e = calloc(1, sizeof *e);
        if (e) e->query = strdup(q);
        if (!e || !e->query) {
            if (e) free(e);
            pthread_mutex_unlock(&S.mu);
            r->snap_ = error_snap(q, PL_E_NOMEM, "out of memory");
            return r->snap_;
        }
        e->next = S.entries;
        S.entries = e;
        S.n_entries++;
    }
    e->used_ns = now;
    if (e->latest && now - e->latest->collected_ns <= S.max_age_ns) {
        r->snap_ = perfd_snap_ref(e->latest);
        pthread_mutex_unlock(&S.mu);
        return r->snap_;
    }
    struct perfd_waiter *w = malloc(sizeof *w);
    if (!w) {
        pthread_mutex_unlock(&S.mu);
        r->snap_ = error_snap(q, PL_E_NOMEM, "out of memory");
        return r->snap_;
    }
    w->req = r;
    w->next = e->waiters;
    e->waiters = w;
    r->wait_ = w;
    if (!e->queued) {
        e->queued = 1;
        e->qnext = NULL;
        if (S.qtail)
            S.qtail->qnext = e;
        else
            S.qhead = e;
        S.qtail = e;
        pthread_cond_signal(&S.wake);
    }
    /* Suspended while the lock is held: the collector can only resume it
     * after taking the waiter under the same lock, so the resume never comes
     * before the suspend. */
    MHD_suspend_connection(r->conn);
    r->suspended_ = 1;
    pthread_mutex_unlock(&S.mu);
    return NULL;
}

int perfd_snapshot_request(const char *query)
{
    const char *q = norm_query(query);
    pthread_mutex_lock(&S.mu);
    int rc = -1;
    entry *e = S.stopping ? NULL : find_entry(q);
    if (!S.stopping && !e && (S.n_entries < S.max_entries || evict_one() == 0)) {
        e = calloc(1, sizeof *e);
        if (e && !(e->query = strdup(q))) {
            free(e);
            e = NULL;
        }
        if (e) {
            e->next = S.entries;
            S.entries = e;
            S.n_entries++;
        }
    }
    if (e) {
        e->used_ns = now_ns();
        if (!e->queued) {
            e->queued = 1;
            e->qnext = NULL;
            if (S.qtail)
                S.qtail->qnext = e;
            else
                S.qhead = e;
            S.qtail = e;
            pthread_cond_signal(&S.wake);
        }
        rc = 0;
    }
    pthread_mutex_unlock(&S.mu);
    return rc;
}

perfd_snap *perfd_snapshot_peek(const char *query)
{
    const char *q = norm_query(query);
    pthread_mutex_lock(&S.mu);
    entry *e = find_entry(q);
    perfd_snap *s = e ? perfd_snap_ref(e->latest) : NULL;
    pthread_mutex_unlock(&S.mu);
    return s;
}

void perfd_snapshot_trim(void)
{
    uint64_t now = now_ns();
    pthread_mutex_lock(&S.mu);
    for (entry *e = S.entries; e; e = e->next)
        if (e->latest && !e->waiters && now - e->latest->collected_ns > S.max_age_ns) {
            perfd_snap_unref(e->latest);
            e->latest = NULL;
        }
    pthread_mutex_unlock(&S.mu);
}

/* Hand `s` to every waiter of e and resume them (lock held; resuming only
 * flags the connection and wakes the server thread). */
static void publish_locked(entry *e, perfd_snap *s)
{
    if (s->status == PL_OK || !e->latest) {
        perfd_snap_unref(e->latest);
        e->latest = perfd_snap_ref(s);
    }
    struct perfd_waiter *w = e->waiters;
    e->waiters = NULL;
    while (w) {
        struct perfd_waiter *next = w->next;
        w->req->snap_ = perfd_snap_ref(s);
        w->req->wait_ = NULL;
        MHD_resume_connection(w->req->conn);
        free(w);
        w = next;
    }
}

static void *collector(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&S.mu);
    for (;;) {
        while (!S.stopping && !S.qhead) pthread_cond_wait(&S.wake, &S.mu);
        if (S.stopping) break;
        entry *e = S.qhead;
        S.qhead = e->qnext;
        if (!S.qhead) S.qtail = NULL;
        char *q = strdup(e->query);
        pthread_mutex_unlock(&S.mu);

        perfd_snap *s = calloc(1, sizeof *s);
        uint64_t t0 = now_ns();
        if (s && q) {
            void *buf = NULL;
            size_t len = 0;
            uint32_t type = 0;
            pl_error err;
            memset(&err, 0, sizeof err);
            s->status = pl_engine_query_alloc(S.engine, q, &buf, &len, &type, &err);
            if (s->status == PL_OK) {
                s->data = buf;
                s->len = len;
                s->type = type;
            } else {
                pl_free(buf);
                snprintf(s->error, sizeof s->error, "%s", err.msg[0] ? err.msg : pl_strerror(s->status));
            }
            s->query = q;
            q = NULL;
            s->refs_ = 1;
        } else if (s) {
            free(s);
            s = NULL;
        }
        uint64_t t1 = now_ns();
        free(q);

        pthread_mutex_lock(&S.mu);
        if (!s) s = error_snap(e->query, PL_E_NOMEM, "out of memory");
        e->queued = 0;
        if (s) {
            s->collected_ns = t1;
            s->took_ns = t1 - t0;
            s->seq = ++S.seq;
            publish_locked(e, s);
            /* The hooks run without the lock (they may ask for the next
             * collection); s stays alive through our reference. */
            pthread_mutex_unlock(&S.mu);
            for (perfd_publish_hook *h = hooks; h; h = h->next_) h->fn(s);
            perfd_snap_unref(s);
            pthread_mutex_lock(&S.mu);
        }
    }
    pthread_mutex_unlock(&S.mu);
    return NULL;
}

int perfd_snap_start(pl_engine *e, const perfd_config *c)
{
    S.engine = e;
    S.max_entries = c->max_queries ? c->max_queries : 1;
    S.max_age_ns = (uint64_t)c->max_age_ms * 1000000u;
    S.stopping = 0;
    if (pthread_create(&S.thread, NULL, collector, NULL) != 0) return -1;
    S.running = 1;
    return 0;
}

void perfd_snap_stop(void)
{
    pthread_mutex_lock(&S.mu);
    S.stopping = 1;
    pthread_cond_broadcast(&S.wake);
    pthread_mutex_unlock(&S.mu);
    if (S.running) pthread_join(S.thread, NULL);
    S.running = 0;
    /* Wake whoever still waits: they answer 503. */
    pthread_mutex_lock(&S.mu);
    for (entry *e = S.entries; e; e = e->next) {
        if (!e->waiters) continue;
        perfd_snap *s = error_snap(e->query, PL_E_BUSY, "perfd is stopping");
        if (s) {
            publish_locked(e, s);
            perfd_snap_unref(s);
        }
    }
    while (S.entries) {
        entry *e = S.entries;
        S.entries = e->next;
        perfd_snap_unref(e->latest);
        free(e->query);
        free(e);
    }
    S.n_entries = 0;
    S.qhead = S.qtail = NULL;
    pthread_mutex_unlock(&S.mu);
}

void perfd_snap_end_request(perfd_req *r)
{
    pthread_mutex_lock(&S.mu);
    if (r->wait_) {
        /* Only at shutdown can a waiting request end; unlink it. */
        for (entry *e = S.entries; e && r->wait_; e = e->next) {
            for (struct perfd_waiter **pw = &e->waiters; *pw; pw = &(*pw)->next) {
                if (*pw == r->wait_) {
                    *pw = r->wait_->next;
                    free(r->wait_);
                    r->wait_ = NULL;
                    break;
                }
            }
        }
    }
    pthread_mutex_unlock(&S.mu);
    perfd_snap_unref(r->snap_);
    r->snap_ = NULL;
}
