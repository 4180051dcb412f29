/* perflib: the providers' failure state that outlives a consumer process
 * (host_state.h, docs/provider-host.md "Failure state"). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host_state.h"
#include "platform.h"
#include "pl_internal.h"

#define STATE_FILE_MAX 1024
#define MAGIC "perflib-state 1\n"

struct pl__state {
    char *dir;
    int shared;                 /* next to the store; else the user's own */
    uint64_t store_hash;        /* private: the store's path, in every file name */
};

struct pl__marker {
    int fd;
    char *path;
    volatile char *map;         /* the file's first byte, mapped shared; NULL: pwrite */
    pid_t pid;                  /* the process that made it (a forked child inherits the mapping) */
    int slot;                   /* its place in `markers`, -1 when it has none */
};

/* Every marker of this process, for the consumer's own end
 * (pl__markers_consumer_ends), which may run in a signal handler: a fixed
 * table of atomic pointers, no lock. A marker is unmapped and freed only
 * after it left the table and no end is walking it (`walking`). A marker
 * that finds the table full keeps working, but a consumer's own end does
 * not clear it (it counts as before). */
#define MARKER_SLOTS 1024
static pl__marker *markers[MARKER_SLOTS];
static int walking;             /* ends walking `markers` now */
/* Set once this process ends on its own: the thread that ends it (its
 * pthread_self; 1 for a signal), whose later calls (Close in an exit
 * handler) are still marked; another thread's marks are cleared at once. */
static uintptr_t ending;

static uint64_t fnv(uint64_t h, const char *s, int fold)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (fold && c >= 'A' && c <= 'Z') c = (unsigned char)(c - 'A' + 'a');
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

/* A directory we may keep state in: a real directory (not a symlink), and
 * nobody but its owner may write it. `owner` (when not -1) must own it. */
static int dir_ok(const char *dir, long owner, int private_dir)
{
    struct stat sb;
    if (lstat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) return 0;
    if (owner >= 0 && sb.st_uid != (uid_t)owner) return 0;
    if (sb.st_mode & (private_dir ? 077 : 022)) return 0;
    return 1;
}

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 1;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s%s", a, b);
    return s;
}

pl__state *pl__state_open(const char *store_path)
{
    if (!store_path || !store_path[0]) return NULL;
    pl__state *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    /* Shared: a consumer that may write the store (and its directory). */
    char *parent = pl__strdup(store_path);
    if (!parent) {
        free(s);
        return NULL;
    }
    char *slash = strrchr(parent, '/');
    if (slash == parent) slash[1] = '\0';
    else if (slash) *slash = '\0';
    else snprintf(parent, strlen(parent) + 1, ".");
    int may_write = access(store_path, W_OK) == 0 && access(parent, W_OK) == 0;
    free(parent);
    if (may_write) {
        s->dir = join(store_path, ".state");
        if (!s->dir) goto fail;
        if (mkdir(s->dir, 0755) == 0) (void)chmod(s->dir, 0755); /* explicit, whatever the umask */
        if (dir_ok(s->dir, (long)geteuid(), 0)) {
            s->shared = 1;
            return s;
        }
        free(s->dir);
        s->dir = NULL;
    }
    /* The user's own directory; the store's path goes into the file names. */
    char real[PATH_MAX];
    s->store_hash = fnv(14695981039346656037ull, realpath(store_path, real) ? real : store_path, 0);
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    char buf[PATH_MAX];
    if (xdg && xdg[0] == '/' && dir_ok(xdg, (long)geteuid(), 1))
        snprintf(buf, sizeof buf, "%s/perflib", xdg);
    else
        snprintf(buf, sizeof buf, "/tmp/perflib-%lu", (unsigned long)geteuid());
    if (mkdir(buf, 0700) == 0) (void)chmod(buf, 0700);
    if (!dir_ok(buf, (long)geteuid(), 1)) goto fail; /* someone else's, or open to others: no state */
    s->dir = pl__strdup(buf);
    if (!s->dir) goto fail;
    return s;
fail:
    free(s->dir);
    free(s);
    return NULL;
}

void pl__state_close(pl__state *s)
{
    if (!s) return;
    free(s->dir);
    free(s);
}

int pl__state_shared(const pl__state *s) { return s && s->shared; }
const char *pl__state_dir(const pl__state *s) { return s ? s->dir : NULL; }

/* <dir>/<up to 32 safe characters of the name>-<hash>, without suffix. */
static void base_path(const pl__state *s, const char *name, char *out, size_t cap)
{
    char safe[33];
    size_t k = 0;
    for (const char *c = name; *c && k < sizeof safe - 1; c++)
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
            *c == '-')
            safe[k++] = *c;
    safe[k] = '\0';
    uint64_t h = fnv(s->shared ? 14695981039346656037ull : s->store_hash, name, 1);
    if (snprintf(out, cap, "%s/%s-%016llx", s->dir, safe, (unsigned long long)h) >= (int)cap) out[0] = '\0';
}

static void state_path(const pl__state *s, const char *name, char *out, size_t cap)
{
    char base[PATH_MAX];
    base_path(s, name, base, sizeof base);
    if (snprintf(out, cap, "%s.state", base) >= (int)cap) out[0] = '\0';
}

/* Parse a state file; anything unexpected makes it empty. */
void pl__state_parse(const char *text, size_t n, pl__pstate *out)
{
    memset(out, 0, sizeof *out);
    pl__pstate st;
    memset(&st, 0, sizeof st);
    size_t ml = sizeof MAGIC - 1;
    if (n < ml || memcmp(text, MAGIC, ml) != 0) return;
    const char *p = text + ml, *end = text + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) return;
        size_t len = (size_t)(nl - p);
        char line[300];
        if (len >= sizeof line) return;
        memcpy(line, p, len);
        line[len] = '\0';
        p = nl + 1;
        char *v = strchr(line, ' ');
        if (!v) return;
        *v++ = '\0';
        if (strcmp(line, "hung") == 0) { /* "hung <count> <unix time>" */
            char *e1, *e2;
            errno = 0;
            unsigned long long cnt = strtoull(v, &e1, 10);
            if (errno || e1 == v || *e1 != ' ' || cnt > PL__STATE_TIMEOUTS_MAX) return;
            long long t = strtoll(e1 + 1, &e2, 10);
            if (errno || e2 == e1 + 1 || *e2 || t < 0) return;
            st.hung = (unsigned)cnt;
            st.hung_time = t;
            continue;
        }
        if (strcmp(line, "reason") == 0) {
            for (char *c = v; *c; c++)
                if ((unsigned char)*c < 0x20 || *c == 0x7F) *c = ' ';
            snprintf(st.reason, sizeof st.reason, "%s", v);
            continue;
        }
        char *e;
        errno = 0;
        long long x = strtoll(v, &e, 10);
        if (errno || e == v || *e || x < 0) return;
        if (strcmp(line, "timeouts") == 0 && x <= (long long)PL__STATE_TIMEOUTS_MAX) st.timeouts = (unsigned)x;
        else if (strcmp(line, "closefail") == 0 && x <= (long long)PL__STATE_TIMEOUTS_MAX) st.closefail = (unsigned)x;
        else if (strcmp(line, "breaks") == 0 && x <= (long long)PL__STATE_TIMEOUTS_MAX) st.breaks = (unsigned)x;
        else if (strcmp(line, "disabled") == 0) st.time = x;
        else return;
    }
    st.disabled = st.time > 0;
    *out = st;
}

static void read_fd(int fd, pl__pstate *out)
{
    char buf[STATE_FILE_MAX + 1];
    memset(out, 0, sizeof *out);
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size > STATE_FILE_MAX) return;
    ssize_t r = pread(fd, buf, STATE_FILE_MAX, 0);
    if (r <= 0) return;
    pl__state_parse(buf, (size_t)r, out);
}

/* A disable recorded here holds for PL__STATE_DISABLE_SECONDS. */
static void expire(pl__pstate *st)
{
    time_t now = time(NULL);
    if (st->disabled && (st->time > (int64_t)now + 60 || (int64_t)now - st->time >= PL__STATE_DISABLE_SECONDS)) {
        st->disabled = 0;
        st->time = 0;
        st->reason[0] = '\0';
    }
}

void pl__state_get(pl__state *s, const char *name, pl__pstate *out)
{
    memset(out, 0, sizeof *out);
    if (!s || !name) return;
    char path[PATH_MAX];
    state_path(s, name, path, sizeof path);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return;
    if (flock(fd, LOCK_SH) == 0) read_fd(fd, out);
    close(fd);
    expire(out);
}

int pl__state_format(const pl__pstate *st, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, MAGIC "timeouts %u\ndisabled %lld\nreason %s\n", st->timeouts,
                     (long long)(st->disabled ? st->time : 0), st->disabled ? st->reason : "");
    if (n < 0 || (size_t)n >= cap) return -1;
    /* only when there are some: a file without the line is what versions
     * before it read (an unknown line makes the whole file count as empty) */
    if (st->hung) {
        int k = snprintf(buf + n, cap - (size_t)n, "hung %u %lld\n", st->hung, (long long)st->hung_time);
        if (k < 0 || (size_t)k >= cap - (size_t)n) return -1;
        n += k;
    }
    if (st->closefail) {
        int k = snprintf(buf + n, cap - (size_t)n, "closefail %u\n", st->closefail);
        if (k < 0 || (size_t)k >= cap - (size_t)n) return -1;
        n += k;
    }
    if (st->breaks) {
        int k = snprintf(buf + n, cap - (size_t)n, "breaks %u\n", st->breaks);
        if (k < 0 || (size_t)k >= cap - (size_t)n) return -1;
        n += k;
    }
    return n;
}

static int write_fd(int fd, const pl__pstate *st)
{
    char buf[STATE_FILE_MAX];
    int n = pl__state_format(st, buf, sizeof buf);
    if (n < 0) return -1;
    if (ftruncate(fd, 0) != 0) return -1;
    return pwrite(fd, buf, (size_t)n, 0) == n ? 0 : -1;
}

/* Read, change and write one provider's state under an exclusive lock.
 * `create`: make the file when it is missing. Returns 0 when written. */
static int update(pl__state *s, const char *name, int create, void (*change)(pl__pstate *, const void *),
                  const void *arg, pl__pstate *result)
{
    if (!s || !name) return -1;
    char path[PATH_MAX];
    state_path(s, name, path, sizeof path);
    int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | (create ? O_CREAT : 0), s->shared ? 0644 : 0600);
    if (fd < 0) return -1;
    int rc = -1;
    struct stat sb;
    if (flock(fd, LOCK_EX) == 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == geteuid()) {
        pl__pstate st;
        read_fd(fd, &st);
        expire(&st);
        pl__pstate before = st;
        change(&st, arg);
        if (memcmp(&before, &st, sizeof st) == 0) rc = 0;
        else rc = write_fd(fd, &st);
        if (result) *result = st;
    }
    close(fd);
    return rc;
}

static void add_timeout(pl__pstate *st, const void *arg)
{
    (void)arg;
    if (st->timeouts < PL__STATE_TIMEOUTS_MAX) st->timeouts++;
}

unsigned pl__state_add_timeout(pl__state *s, const char *name)
{
    pl__pstate st;
    if (update(s, name, 1, add_timeout, NULL, &st) != 0) return 0;
    return st.timeouts;
}

static void clear(pl__pstate *st, const void *arg)
{
    (void)arg;
    memset(st, 0, sizeof *st);
}

static void clear_timeouts(pl__pstate *st, const void *arg)
{
    (void)arg;
    st->timeouts = 0;
}

static void add_closefail(pl__pstate *st, const void *arg)
{
    (void)arg;
    if (st->closefail < PL__STATE_TIMEOUTS_MAX) st->closefail++;
}

static void clear_closefail(pl__pstate *st, const void *arg)
{
    (void)arg;
    st->closefail = 0;
}

/* Apply `change` when a state file exists (nothing recorded: no write). */
static void change_existing(pl__state *s, const char *name, void (*change)(pl__pstate *, const void *))
{
    if (!s || !name) return;
    char path[PATH_MAX];
    state_path(s, name, path, sizeof path);
    struct stat sb;
    if (lstat(path, &sb) != 0) return;
    (void)update(s, name, 0, change, NULL, NULL);
}

void pl__state_clear(pl__state *s, const char *name) { change_existing(s, name, clear); }
void pl__state_clear_timeouts(pl__state *s, const char *name) { change_existing(s, name, clear_timeouts); }
void pl__state_clear_closefail(pl__state *s, const char *name) { change_existing(s, name, clear_closefail); }

unsigned pl__state_add_closefail(pl__state *s, const char *name)
{
    pl__pstate st;
    if (update(s, name, 1, add_closefail, NULL, &st) != 0) return 0;
    return st.closefail;
}

static void add_break(pl__pstate *st, const void *arg)
{
    (void)arg;
    if (st->breaks < PL__STATE_TIMEOUTS_MAX) st->breaks++;
}

static void clear_breaks(pl__pstate *st, const void *arg)
{
    (void)arg;
    st->breaks = 0;
}

unsigned pl__state_add_break(pl__state *s, const char *name)
{
    pl__pstate st;
    if (update(s, name, 1, add_break, NULL, &st) != 0) return 0;
    return st.breaks;
}

void pl__state_clear_breaks(pl__state *s, const char *name) { change_existing(s, name, clear_breaks); }

static void add_hung(pl__pstate *st, const void *arg)
{
    (void)arg;
    if (st->hung < PL__STATE_TIMEOUTS_MAX) st->hung++;
    st->hung_time = (int64_t)time(NULL);
}

unsigned pl__state_add_hung(pl__state *s, const char *name)
{
    pl__pstate st;
    if (update(s, name, 1, add_hung, NULL, &st) != 0) return 0;
    return st.hung;
}

int64_t pl__state_skip_until(const pl__pstate *st, int64_t now)
{
    if (st->hung < PL__STATE_HUNG_IN_ROW) return 0;
    /* a time ahead of ours (the clock stepped back, or a hostile file)
     * counts as now: a skip never lasts longer than its retry time */
    int64_t last = st->hung_time < now ? st->hung_time : now;
    return last + PL__STATE_HUNG_RETRY_SECONDS > now ? last + PL__STATE_HUNG_RETRY_SECONDS : 0;
}

static void clear_hung(pl__pstate *st, const void *arg)
{
    (void)arg;
    st->hung = 0;
    st->hung_time = 0;
}

void pl__state_clear_hung(pl__state *s, const char *name) { change_existing(s, name, clear_hung); }

static void set_disabled(pl__pstate *st, const void *arg)
{
    st->timeouts = 0;
    st->closefail = 0;
    st->breaks = 0;
    st->disabled = 1;
    st->time = (int64_t)time(NULL);
    snprintf(st->reason, sizeof st->reason, "%s", (const char *)arg);
    for (char *c = st->reason; *c; c++)
        if ((unsigned char)*c < 0x20) *c = ' ';
}

void pl__state_disable(pl__state *s, const char *name, const char *reason)
{
    (void)update(s, name, 1, set_disabled, reason ? reason : "", NULL);
}

/* --------------------------------------------------- in-flight markers */

/* Field 22 of /proc/PID/stat (pl__proc_start_time); 0 when it cannot be
 * read. With the pid it names one process, even after the pid is reused. */
static unsigned long long start_time(long pid)
{
    return pid > 0 && pid <= INT32_MAX ? (unsigned long long)pl__proc_start_time("/proc", (uint32_t)pid) : 0;
}

/* The PID namespace this process sees pids in (the inode of
 * /proc/self/ns/pid; 0 when unknown). A marker names its consumer by pid
 * and start time, which only a process of the same namespace can check: in
 * another one the same number is another process (a consumer in a
 * container, or a test's namespace, sharing the state directory). */
static unsigned long long pid_ns(void)
{
    struct stat sb;
    return stat("/proc/self/ns/pid", &sb) == 0 ? (unsigned long long)sb.st_ino : 0;
}

/* The program's name for the reason a dead consumer gets (its comm, at
 * most 15 bytes; printable ASCII kept). out holds at least 16 bytes. */
static size_t own_comm(char *out)
{
    char name[16] = "";
    if (prctl(PR_GET_NAME, name) != 0) return 0;
    size_t k = 0;
    for (size_t i = 0; i < sizeof name - 1 && name[i]; i++)
        if ((unsigned char)name[i] >= 0x20 && (unsigned char)name[i] < 0x7F) out[k++] = name[i];
    out[k] = '\0';
    return k;
}

pl__marker *pl__marker_new(pl__state *s, const char *name)
{
    if (!s || !name) return NULL;
    static unsigned counter;
    unsigned n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
    char base[PATH_MAX], path[PATH_MAX + 96];
    base_path(s, name, base, sizeof base);
    snprintf(path, sizeof path, "%s.%ld-%llu-%u-%llu.busy", base, (long)getpid(), start_time((long)getpid()), n,
             pid_ns());
    pl__marker *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->path = pl__strdup(path);
    m->fd = m->path ? open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, s->shared ? 0644 : 0600) : -1;
    /* byte 0: the call in flight ('-' none); then the program's name */
    char rec[1 + 32] = "-";
    size_t rl = 1 + own_comm(rec + 1);
    if (m->fd < 0 || pwrite(m->fd, rec, rl, 0) != (ssize_t)rl) {
        if (m->fd >= 0) {
            close(m->fd);
            unlink(path);
        }
        free(m->path);
        free(m);
        return NULL;
    }
    /* Set by a store into a shared mapping, no system call: the page is the
     * file's page in the page cache, so a store made just before the process
     * dies is what the next consumer reads with pread (docs/provider-host.md,
     * "In-process providers"). Without the mapping, one pwrite per set. */
    void *map = mmap(NULL, 1, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
    m->map = map == MAP_FAILED ? NULL : map;
    m->pid = getpid();
    m->slot = -1;
    for (int i = 0; i < MARKER_SLOTS && m->slot < 0; i++) {
        pl__marker *none = NULL;
        if (__atomic_compare_exchange_n(&markers[i], &none, m, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) m->slot = i;
    }
    return m;
}

/* One byte, async-signal-safe. */
static void marker_put(pl__marker *m, char call)
{
    if (m->map) {
        __atomic_store_n(m->map, call, __ATOMIC_SEQ_CST);
        return;
    }
    if (pwrite(m->fd, &call, 1, 0) != 1) { /* best effort: a marker that cannot be set is no marker */
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void pl__marker_set(pl__marker *m, char call)
{
    if (!m) return;
    marker_put(m, call);
    /* The process is ending on its own on another thread: a call this
     * thread starts now is not one it died in. Either the end's walk comes
     * after this store (and clears it) or this load sees `ending` (both
     * sequentially consistent). */
    if (call == '-') return;
    uintptr_t e = __atomic_load_n(&ending, __ATOMIC_SEQ_CST);
    if (e && e != (uintptr_t)pthread_self()) marker_put(m, '-');
}

void pl__markers_consumer_ends(uintptr_t self)
{
    __atomic_store_n(&ending, self ? self : 1, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&walking, 1, __ATOMIC_SEQ_CST);
    pid_t me = getpid();
    for (int i = 0; i < MARKER_SLOTS; i++) {
        pl__marker *m = __atomic_load_n(&markers[i], __ATOMIC_SEQ_CST);
        /* a forked child's copy of its parent's markers is not its own */
        if (m && m->pid == me) marker_put(m, '-');
    }
    __atomic_sub_fetch(&walking, 1, __ATOMIC_SEQ_CST);
}

void pl__marker_free(pl__marker *m)
{
    if (!m) return;
    if (m->slot >= 0) {
        __atomic_store_n(&markers[m->slot], NULL, __ATOMIC_SEQ_CST);
        /* An end that loaded it before finishes first (a signal's end then
         * kills the process); a walk takes microseconds. Bounded: a child
         * forked during its parent's walk inherits the count, not the
         * walker. */
        for (int i = 0; i < 100000 && __atomic_load_n(&walking, __ATOMIC_SEQ_CST); i++) sched_yield();
    }
    if (m->map) munmap((void *)m->map, 1);
    close(m->fd);
    unlink(m->path);
    free(m->path);
    free(m);
}

static const char *call_name(char c)
{
    return c == 'O' ? "Open" : c == 'C' ? "Collect" : c == 'X' ? "Close" : NULL;
}

char pl__state_dead_consumer(pl__state *s, const char *name, char *why, size_t cap)
{
    if (!s || !name) return 0;
    char base[PATH_MAX];
    base_path(s, name, base, sizeof base);
    const char *prefix = strrchr(base, '/') + 1;
    size_t pl = strlen(prefix);
    DIR *d = opendir(s->dir);
    if (!d) return 0;
    char found = 0;
    long me = (long)getpid();
    unsigned long long my_start = start_time(me), my_ns = pid_ns();
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *f = de->d_name;
        size_t fl = strlen(f);
        if (fl <= pl + 6 || strncmp(f, prefix, pl) != 0 || f[pl] != '.' || strcmp(f + fl - 5, ".busy") != 0) continue;
        /* <pid>-<start time>-<n>-<pid namespace>.busy (before the
         * namespace was named: <pid>-<start time>-<n>.busy, judged as ours) */
        const char *q = f + pl + 1;
        char *e1, *e2 = NULL, *e3, *e4 = NULL;
        errno = 0;
        long long pid = strtoll(q, &e1, 10);
        unsigned long long st = *e1 == '-' ? strtoull(e1 + 1, &e2, 10) : 0;
        if (errno || e1 == q || *e1 != '-' || !e2 || *e2 != '-' || pid <= 0 || pid > INT32_MAX) continue;
        (void)strtoul(e2 + 1, &e3, 10);
        if (e3 == e2 + 1) continue;
        unsigned long long ns = my_ns;
        if (*e3 == '-') {
            ns = strtoull(e3 + 1, &e4, 10);
            if (e4 == e3 + 1) continue;
            e3 = e4;
        }
        if (errno || strcmp(e3, ".busy") != 0) continue;
        /* another PID namespace's consumer: its pid means nothing here, so
         * it is left to the consumers of its own namespace */
        if (ns != my_ns) continue;
        if (pid == me && st == my_start) continue; /* this process's own engines */
        if (kill((pid_t)pid, 0) == 0 || errno == EPERM) {
            /* that pid runs: the consumer, unless its start time differs.
             * One that cannot be read (hidepid, no /proc) is not judged. */
            unsigned long long now = start_time((long)pid);
            if (st == 0 || now == 0 || now == st) continue;
        }
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", s->dir, f);
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        char rec[33] = "-";
        ssize_t rn = 0;
        if (fd >= 0) {
            struct stat sb;
            if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (rn = pread(fd, rec, sizeof rec - 1, 0)) < 1) {
                rec[0] = '-';
                rn = 1;
            }
            close(fd);
        }
        rec[rn > 0 ? rn : 1] = '\0';
        /* the program's name, as hostile as the rest: printable ASCII only */
        for (char *c = rec + 1; *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7F) *c = '?';
        unlink(path);
        const char *call = call_name(rec[0]);
        if (call && !found) {
            found = rec[0];
            if (rec[1])
                snprintf(why, cap, "a consumer process (pid %lld, %s) ended during its in-process %s", pid, rec + 1,
                         call);
            else
                snprintf(why, cap, "a consumer process (pid %lld) ended during its in-process %s", pid, call);
        }
    }
    closedir(d);
    return found;
}
