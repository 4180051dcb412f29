/* perfd: the snapshot publisher.
 *
 * One collector thread runs every engine query. For each distinct query
 * string there is one entry holding the latest published snapshot and the
 * requests waiting for the next one. A request either gets the latest
 * snapshot (young enough), or joins the entry's collection (queued or
 * running) and is suspended; the collector resumes every waiter of an entry
 * when it publishes. Snapshots are immutable once published and freed when
 * their last reference goes (the entry's, a request's, a response's), so a
 * client that reads slowly holds memory, never the collector or a lock.
 *
 * Foreign queries (another machine's data) never run on the collector
 * thread: a pool of PERFD_REMOTE_WORKERS threads runs them, at most
 * PERFD_REMOTE_PER_MACHINE at once for one machine, with at most
 * PERFD_REMOTE_WAITING requests waiting for one machine; a machine whose
 * fetch failed is not asked again for PERFD_REMOTE_RETRY_MS (its requests
 * get the failure at once). So a machine that never answers holds one or two
 * pool threads and a few connections, and nothing local waits for it. Only
 * machines listed in remote_config get that far (perfd_machine_lookup). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon.h"
#include "perflib/remote.h"

#define PERFD_REMOTE_WORKERS 4
#define PERFD_REMOTE_PER_MACHINE 2
#define PERFD_REMOTE_WAITING 8
#define PERFD_REMOTE_WAITING_TOTAL 32
#define PERFD_REMOTE_RETRY_MS 5000u

/* A remote machine's share of the pool. */
typedef struct machine {
    char *key;                    /* "host:port" (perfd_machine_lookup) */
    unsigned running;             /* its fetches in progress */
    unsigned waiting;             /* requests waiting for one of its entries */
    uint64_t down_until_ns;       /* after a failure: not asked again before */
    char why[512];                /* that failure */
    struct machine *next;
} machine;

/* A thread of perfd's own waiting for a publication (perfd_snapshot_wait). */
typedef struct sync_wait {
    pthread_cond_t cv;
    perfd_snap *snap;             /* set by the publisher */
} sync_wait;

struct perfd_waiter {
    perfd_req *req;               /* a suspended request, or */
    sync_wait *sw;                /* a waiting thread */
    struct machine *m;            /* counted in m->waiting (remote entries) */
    struct perfd_waiter *next;
};

typedef struct entry {
    char *query;
    perfd_snap *latest;
    int queued;                   /* in the collector's queue or being collected */
    struct perfd_waiter *waiters;
    uint64_t used_ns;
    machine *m;                   /* a Foreign query's machine; NULL: this one */
    struct entry *next;           /* all entries */
    struct entry *qnext;          /* the queue (the collector's, or the pool's) */
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
    /* the remote pool */
    pthread_cond_t rwake;
    pthread_t workers[PERFD_REMOTE_WORKERS];
    int n_workers;
    entry *rqhead, *rqtail;
    machine *machines;
    unsigned remote_waiting;
} S = {.mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER, .rwake = PTHREAD_COND_INITIALIZER};

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

/* What error_snap hands out when it cannot allocate: never freed (its
 * count never comes near 0), so callers need no NULL check. */
static perfd_snap oom_snap = {.status = PL_E_NOMEM, .error = "out of memory", .query = "", .refs_ = 1 << 30};

/* A snapshot that carries an error rather than data (never NULL). */
static perfd_snap *error_snap(const char *query, int status, const char *msg)
{
    perfd_snap *s = calloc(1, sizeof *s);
    if (!s) return perfd_snap_ref(&oom_snap);
    s->query = strdup(query);
    s->status = status;
    snprintf(s->error, sizeof s->error, "%.511s", msg);
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

/* The machine of that key, made on first use (lock held). */
static machine *machine_get(const char *key)
{
    for (machine *m = S.machines; m; m = m->next)
        if (strcmp(m->key, key) == 0) return m;
    machine *m = calloc(1, sizeof *m);
    if (!m || !(m->key = strdup(key))) {
        free(m);
        return NULL;
    }
    m->next = S.machines;
    S.machines = m;
    return m;
}

/* Put e in its queue, the collector's or the pool's (lock held). */
static void enqueue(entry *e)
{
    if (e->queued) return;
    e->queued = 1;
    e->qnext = NULL;
    if (e->m) {
        if (S.rqtail)
            S.rqtail->qnext = e;
        else
            S.rqhead = e;
        S.rqtail = e;
        pthread_cond_broadcast(&S.rwake);
    } else {
        if (S.qtail)
            S.qtail->qnext = e;
        else
            S.qhead = e;
        S.qtail = e;
        pthread_cond_signal(&S.wake);
    }
}

/* A Foreign query's machine, vetted before anything is queued: 1 with its
 * key for a listed machine, 0 for a local query, -1 with *refusal set (a
 * snapshot to answer with) when it is not listed or not a machine name. */
static int vet_foreign(const char *q, char *key, size_t keylen, perfd_snap **refusal)
{
    char target[301];
    int foreign = 0;
    pl_error err = {0};
    *refusal = NULL;
    key[0] = 0;
    if (pl_query_foreign_target(q, target, sizeof target, &foreign, &err) != PL_OK) {
        *refusal = error_snap(q, PL_E_PARSE, err.msg);
        return -1;
    }
    if (!foreign) return 0;
    char why[512];
    int rc = perfd_machine_lookup(target, NULL, key, keylen, why, sizeof why);
    if (rc <= 0) {
        *refusal = error_snap(q, rc == 0 ? PL_E_DENIED : PL_E_PARSE, why);
        return -1;
    }
    return 1;
}

/* The snapshot for `query` if one can be answered at once (fresh, or a
 * refusal), else NULL after joining its collection as waiter w (a request
 * or a thread), with the lock still held. Returns with the lock held. */
static perfd_snap *lookup_or_join(const char *q, struct perfd_waiter *w)
{
    char key[320];
    perfd_snap *refusal = NULL;
    int foreign = vet_foreign(q, key, sizeof key, &refusal);
    pthread_mutex_lock(&S.mu);
    if (foreign < 0) return refusal;
    uint64_t now = now_ns();
    if (S.stopping) return error_snap(q, PL_E_BUSY, "perfd is stopping");
    machine *m = foreign ? machine_get(key) : NULL;
    if (foreign && !m) return error_snap(q, PL_E_NOMEM, "out of memory");
    entry *e = find_entry(q);
    if (!e) {
        if (S.n_entries >= S.max_entries && evict_one() != 0)
            return error_snap(q, PL_E_BUSY, "too many different queries are being collected");
        e = calloc(1, sizeof *e);
        if (e) e->query = strdup(q);
        if (!e || !e->query) {
            if (e) free(e);
            return error_snap(q, PL_E_NOMEM, "out of memory");
        }
        e->m = m;
        e->next = S.entries;
        S.entries = e;
        S.n_entries++;
    }
    e->used_ns = now;
    if (e->latest && now - e->latest->collected_ns <= S.max_age_ns) return perfd_snap_ref(e->latest);
    if (m) {
        /* The machine's budget: a failed machine answers at once, and only
         * so many requests wait for one machine (and for all). */
        char why[600];
        if (m->down_until_ns > now) {
            snprintf(why, sizeof why, "%.480s (asked again in %llu ms)", m->why,
                     (unsigned long long)((m->down_until_ns - now) / 1000000u + 1));
            return error_snap(q, PL_E_REMOTE, why);
        }
        if (m->waiting >= PERFD_REMOTE_WAITING || S.remote_waiting >= PERFD_REMOTE_WAITING_TOTAL) {
            snprintf(why, sizeof why, "%u requests already wait for machine %s (%u for all remote machines)",
                     m->waiting, m->key, S.remote_waiting);
            return error_snap(q, PL_E_BUSY, why);
        }
        m->waiting++;
        S.remote_waiting++;
    }
    w->m = m;
    w->next = e->waiters;
    e->waiters = w;
    enqueue(e);
    return NULL;
}

perfd_snap *perfd_snapshot(perfd_req *r, const char *query)
{
    /* Called again after the resume: the collector set snap_ before it
     * resumed the connection. */
    if (r->snap_) return r->snap_;
    const char *q = norm_query(query);
    struct perfd_waiter *w = calloc(1, sizeof *w);
    if (!w) {
        r->snap_ = error_snap(q, PL_E_NOMEM, "out of memory");
        return r->snap_;
    }
    w->req = r;
    perfd_snap *s = lookup_or_join(q, w);
    if (s) {
        pthread_mutex_unlock(&S.mu);
        free(w);
        r->snap_ = s;
        return s;
    }
    r->wait_ = w;
    /* Suspended while the lock is held: the collector can only resume it
     * after taking the waiter under the same lock, so the resume never comes
     * before the suspend. */
    MHD_suspend_connection(r->conn);
    r->suspended_ = 1;
    pthread_mutex_unlock(&S.mu);
    return NULL;
}

static void waiter_done(struct perfd_waiter *w);

perfd_snap *perfd_snapshot_wait(const char *query, unsigned timeout_ms)
{
    const char *q = norm_query(query);
    sync_wait sw = {.snap = NULL};
    struct perfd_waiter *w = calloc(1, sizeof *w);
    if (!w) return error_snap(q, PL_E_NOMEM, "out of memory");
    w->sw = &sw;
    perfd_snap *s = lookup_or_join(q, w);
    if (s) {
        pthread_mutex_unlock(&S.mu);
        free(w);
        return s;
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&sw.cv, &ca);
    pthread_condattr_destroy(&ca);
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += timeout_ms / 1000u;
    until.tv_nsec += (long)(timeout_ms % 1000u) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    while (!sw.snap)
        if (pthread_cond_timedwait(&sw.cv, &S.mu, &until) == ETIMEDOUT) break;
    if (!sw.snap) {
        /* Given up: leave the entry's waiters (the publisher has not taken us). */
        for (entry *e = S.entries; e; e = e->next) {
            for (struct perfd_waiter **pw = &e->waiters; *pw; pw = &(*pw)->next) {
                if (*pw == w) {
                    *pw = w->next;
                    waiter_done(w);
                    goto out;
                }
            }
        }
    }
out:
    pthread_mutex_unlock(&S.mu);
    pthread_cond_destroy(&sw.cv);
    return sw.snap ? sw.snap : error_snap(q, PL_E_REMOTE, "no answer in time");
}

/* A waiter leaves (lock held): the machine's count goes down. */
static void waiter_done(struct perfd_waiter *w)
{
    if (w->m) {
        w->m->waiting--;
        S.remote_waiting--;
    }
    free(w);
}

int perfd_snapshot_request(const char *query)
{
    const char *q = norm_query(query);
    char key[320];
    perfd_snap *refusal = NULL;
    int foreign = vet_foreign(q, key, sizeof key, &refusal);
    perfd_snap_unref(refusal);
    if (foreign < 0) return -1;
    pthread_mutex_lock(&S.mu);
    int rc = -1;
    machine *m = foreign ? machine_get(key) : NULL;
    entry *e = S.stopping || (foreign && !m) ? NULL : find_entry(q);
    if (!S.stopping && !(foreign && !m) && !e && (S.n_entries < S.max_entries || evict_one() == 0)) {
        e = calloc(1, sizeof *e);
        if (e && !(e->query = strdup(q))) {
            free(e);
            e = NULL;
        }
        if (e) {
            e->m = m;
            e->next = S.entries;
            S.entries = e;
            S.n_entries++;
        }
    }
    if (e && m && m->down_until_ns > now_ns()) e = NULL;
    if (e) {
        e->used_ns = now_ns();
        enqueue(e);
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
        if (w->sw) {
            w->sw->snap = perfd_snap_ref(s);
            pthread_cond_signal(&w->sw->cv);
        } else {
            w->req->snap_ = perfd_snap_ref(s);
            w->req->wait_ = NULL;
            MHD_resume_connection(w->req->conn);
        }
        waiter_done(w);
        w = next;
    }
}

/* Run one query on the engine (no lock held). */
static perfd_snap *collect(const char *query)
{
    perfd_snap *s = calloc(1, sizeof *s);
    char *q = strdup(query);
    uint64_t t0 = now_ns();
    if (!s || !q) {
        free(s);
        free(q);
        return NULL;
    }
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
    s->refs_ = 1;
    s->collected_ns = now_ns();
    s->took_ns = s->collected_ns - t0;
    return s;
}

/* Publish s for e and run the hooks (called and returning with the lock
 * held; the hooks run without it: they may ask for the next collection). */
static void publish(entry *e, perfd_snap *s)
{
    if (!s) s = error_snap(e->query, PL_E_NOMEM, "out of memory");
    e->queued = 0;
    if (!s) return;
    if (!s->collected_ns) s->collected_ns = now_ns();
    s->seq = ++S.seq;
    publish_locked(e, s);
    pthread_mutex_unlock(&S.mu);
    for (perfd_publish_hook *h = hooks; h; h = h->next_) h->fn(s);
    perfd_snap_unref(s);
    pthread_mutex_lock(&S.mu);
}

/* Providers the engine has disabled, as last seen (collector thread only):
 * perfd's own log says when one goes and why, since its objects then vanish
 * from every answer (the host also tells syslog). */
static char (*disabled)[128];
static size_t n_disabled;

static void note_providers(void)
{
    pl_provider_status *list = NULL;
    size_t n = 0;
    if (pl_engine_provider_status(S.engine, &list, &n) != PL_OK) return;
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < n_disabled && strcmp(disabled[k], list[i].name) != 0) k++;
        int was = k < n_disabled;
        if (list[i].disabled && !was) {
            char (*grown)[128] = realloc(disabled, (n_disabled + 1) * sizeof *disabled);
            if (!grown) break;
            disabled = grown;
            snprintf(disabled[n_disabled++], sizeof *disabled, "%s", list[i].name);
            const char *why = list[i].last_error;
            if (strncmp(why, "disabled: ", 10) == 0) why += 10;
            perfd_log("provider %s is disabled: %s; its objects are missing from every answer until it is enabled "
                      "again (docs/provider-host.md)",
                      list[i].name, why[0] ? why : "disabled in the registry store");
        } else if (!list[i].disabled && was) {
            memmove(disabled[k], disabled[k + 1], (n_disabled - k - 1) * sizeof *disabled);
            n_disabled--;
            perfd_log("provider %s is enabled again", list[i].name);
        }
    }
    pl_free(list);
}

/* After a second with nothing to collect, the collector gives back the
 * engine's buffers (pl_engine_trim: the providers' answers, half a
 * megabyte with 1,000 processes), as the render worker gives back its own
 * (work.c): between scrapes perfd holds what it uses. */
static void *collector(void *arg)
{
    (void)arg;
    int collected = 0;
    pthread_mutex_lock(&S.mu);
    for (;;) {
        while (!S.stopping && !S.qhead) {
            if (perfd_idle_wait(&S.wake, &S.mu, &collected) && !S.qhead && !S.stopping) {
                pthread_mutex_unlock(&S.mu);
                pl_engine_trim(S.engine);
                pthread_mutex_lock(&S.mu);
            }
        }
        if (S.stopping) break;
        collected = 1;
        entry *e = S.qhead;
        S.qhead = e->qnext;
        if (!S.qhead) S.qtail = NULL;
        char *q = strdup(e->query);
        pthread_mutex_unlock(&S.mu);
        perfd_snap *s = q ? collect(q) : NULL;
        free(q);
        note_providers();
        pthread_mutex_lock(&S.mu);
        publish(e, s);
    }
    pthread_mutex_unlock(&S.mu);
    free(disabled);
    disabled = NULL;
    n_disabled = 0;
    return NULL;
}

/* The first queued remote entry whose machine has room (lock held). */
static entry *take_remote(void)
{
    for (entry **pe = &S.rqhead, *prev = NULL; *pe; prev = *pe, pe = &(*pe)->qnext) {
        entry *e = *pe;
        if (e->m->running >= PERFD_REMOTE_PER_MACHINE) continue;
        *pe = e->qnext;
        if (S.rqtail == e) S.rqtail = prev;
        return e;
    }
    return NULL;
}

/* A pool thread: Foreign queries, one machine's budget at a time. */
static void *remote_worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&S.mu);
    for (;;) {
        entry *e = NULL;
        while (!S.stopping && !(e = take_remote())) pthread_cond_wait(&S.rwake, &S.mu);
        if (S.stopping) break;
        machine *m = e->m;
        perfd_snap *s = NULL;
        uint64_t now = now_ns();
        if (m->down_until_ns > now) {
            char why[600];
            snprintf(why, sizeof why, "%.480s (asked again in %llu ms)", m->why,
                     (unsigned long long)((m->down_until_ns - now) / 1000000u + 1));
            s = error_snap(e->query, PL_E_REMOTE, why);
        } else {
            m->running++;
            char *q = strdup(e->query);
            pthread_mutex_unlock(&S.mu);
            s = q ? collect(q) : NULL;
            free(q);
            pthread_mutex_lock(&S.mu);
            m->running--;
            if (s && s->status == PL_E_REMOTE) {
                /* not reachable, timed out, reset: give it a rest */
                m->down_until_ns = now_ns() + (uint64_t)PERFD_REMOTE_RETRY_MS * 1000000u;
                snprintf(m->why, sizeof m->why, "%s", s->error);
            } else if (s && s->status == PL_OK) {
                m->down_until_ns = 0;
            }
        }
        publish(e, s);
        pthread_cond_broadcast(&S.rwake); /* that machine may have room again */
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
    for (int i = 0; i < PERFD_REMOTE_WORKERS; i++) {
        if (pthread_create(&S.workers[i], NULL, remote_worker, NULL) != 0) break;
        S.n_workers++;
    }
    if (!S.n_workers) {
        perfd_snap_stop();
        return -1;
    }
    return 0;
}

void perfd_snap_stop(void)
{
    pthread_mutex_lock(&S.mu);
    S.stopping = 1;
    pthread_cond_broadcast(&S.wake);
    pthread_cond_broadcast(&S.rwake);
    pthread_mutex_unlock(&S.mu);
    perfd_machines_interrupt(); /* a fetch in progress ends within a second */
    if (S.running) pthread_join(S.thread, NULL);
    S.running = 0;
    for (int i = 0; i < S.n_workers; i++) pthread_join(S.workers[i], NULL);
    S.n_workers = 0;
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
    S.rqhead = S.rqtail = NULL;
    while (S.machines) {
        machine *m = S.machines;
        S.machines = m->next;
        free(m->key);
        free(m);
    }
    S.remote_waiting = 0;
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
                    waiter_done(r->wait_);
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
