/* perflib: the application side of application counters (perflib/app.h).
 *
 * The segment is a memfd sealed against shrinking and growing, so a reader
 * that maps it can never be hit by SIGBUS, and it is never backed by a disk
 * file. It is announced by an empty file <dir>/perflib-app-<uid>/perflib-app.
 * <pid>.<start time>.<fd> (dir: $PERFLIB_APP_DIR or /dev/shm; the user's
 * own directory, mode 0755; the file mode 0444); a reader opens
 * the segment through /proc/<pid>/fd/<fd>, which the kernel allows to the
 * same user and to root. The memory goes away with the process, kill -9
 * included; a stale announcement is ignored by readers (its process, or its
 * start time, is gone) and removed by the next application of that user.
 *
 * Instances live in slots. Birth and death change a slot under its seqlock
 * (gen odd while changing), so a reader sees an instance whole or not at
 * all; value updates are single relaxed 64-bit stores or atomic adds and
 * never touch gen. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app_internal.h"
#include "perflib/registry.h"
#include "pl_internal.h"

int pl__app_decl_check(const pl_app_decl *d, pl_error *err);
uint32_t pl__app_offset(const pl_app_decl *d, uint32_t o, int32_t counter);
int pl__app_register_store(pl_store *st, const pl_app_decl *d, pl_app_indices *ind, pl_error *err);
int pl__app_registered(const pl_app_decl *d, const char *store_path, pl_app_indices *ind, pl_error *err);

typedef struct app_object {
    uint32_t max, nctr, parent;
    uint64_t slots_off, slot_size, high_off;
    uint32_t high;            /* slots ever used */
    uint32_t *free_slots;     /* a stack of deleted slots */
    uint32_t nfree;
} app_object;

struct pl_app {
    pthread_mutex_t mu;
    uint8_t *map;
    size_t size;
    int fd;
    char announce[512];
    uint32_t nobjects;
    app_object obj[PL_APP_MAX_OBJECTS];
    uint64_t next_id;
    pl_app_indices ind;
    _Atomic uint64_t scratch;  /* where a failed pl_app_counter points */
};

static _Atomic uint64_t *word(pl_app *a, uint64_t off) { return (_Atomic uint64_t *)(void *)(a->map + off); }
static void put(pl_app *a, uint64_t off, uint64_t v) { atomic_store_explicit(word(a, off), v, memory_order_relaxed); }
static uint64_t get(pl_app *a, uint64_t off) { return atomic_load_explicit(word(a, off), memory_order_relaxed); }

static uint64_t align(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

/* Remove announcements of this user's processes that are gone (the
 * directory is this user's own). */
static void sweep_stale(int dfd)
{
    int d2 = dup(dfd);
    DIR *dd = d2 >= 0 ? fdopendir(d2) : NULL;
    if (!dd) {
        if (d2 >= 0) close(d2);
        return;
    }
    struct dirent *e;
    uid_t me = geteuid();
    while ((e = readdir(dd)) != NULL) {
        uint32_t pid;
        uint64_t start;
        int fdn;
        if (!pl__seg_parse_name(e->d_name, &pid, &start, &fdn)) continue;
        struct stat sb;
        if (fstatat(dirfd(dd), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || sb.st_uid != me) continue;
        if (pl__proc_start_time("/proc", pid) != start) (void)unlinkat(dirfd(dd), e->d_name, 0);
    }
    closedir(dd);
}

/* This user's announcement directory, <dir>/perflib-app-<uid>, created
 * when missing: a real directory of this user that nobody else may write
 * (else PL_E_UNSAFE naming its owner: someone made it first). Its path
 * goes into a->announce; *dfd is open on it. */
static int user_dir(pl_app *a, pl_error *err, int *dfd)
{
    const char *dir = pl__app_dir();
    uid_t me = geteuid();
    char eb[128];
    if (!pl__seg_user_dir(dir, (uint32_t)me, a->announce, sizeof a->announce - 128)) {
        a->announce[0] = '\0';
        return pl__fail(err, PL_E_INVAL, "the announcement directory %s is too long", dir);
    }
    if (mkdir(a->announce, 0755) == 0) (void)chmod(a->announce, 0755); /* whatever the umask */
    int fd = open(a->announce, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat sb;
    int s = PL_OK;
    if (fd < 0) {
        int e = errno;
        s = pl__fail(err, PL_E_OS, "cannot create or open the announcement directory %s: %s", a->announce,
                     pl__strerror(e, eb, sizeof eb));
    } else if (fstat(fd, &sb) != 0 || sb.st_uid != me || (sb.st_mode & 022)) {
        s = pl__fail(err, PL_E_UNSAFE,
                     "the announcement directory %s belongs to user id %lu (mode %03o), not to this user (%lu): "
                     "readers would ignore it; it must be removed",
                     a->announce, (unsigned long)sb.st_uid, (unsigned)(sb.st_mode & 0777), (unsigned long)me);
    }
    if (s) {
        if (fd >= 0) close(fd);
        a->announce[0] = '\0';
        return s;
    }
    *dfd = fd;
    return PL_OK;
}

static int make_segment(pl_app *a, const pl_app_decl *d, pl_error *err)
{
    uint32_t ncounters = 0;
    for (size_t o = 0; o < d->nobjects; o++) ncounters += (uint32_t)d->objects[o].ncounters;
    uint64_t obj_off = PL__SEG_HEADER;
    uint64_t ctr_off = align(obj_off + (uint64_t)d->nobjects * SO_SIZE, 8);
    uint64_t end = ctr_off + (uint64_t)ncounters * SC_SIZE;
    for (size_t o = 0; o < d->nobjects; o++) {
        app_object *ob = &a->obj[o];
        const pl_app_object_decl *od = &d->objects[o];
        ob->max = od->max_instances;
        ob->nctr = (uint32_t)od->ncounters;
        ob->parent = od->parent == PL_APP_NO_PARENT_OBJECT ? PL__SEG_NO_PARENT : (uint32_t)od->parent;
        ob->slot_size = align(PL__SEG_SLOT_FIXED + 8u * ob->nctr, 64);
        ob->slots_off = align(end, 64);
        ob->high_off = obj_off + o * SO_SIZE + SO_HIGH;
        end = ob->slots_off + (uint64_t)(ob->max ? ob->max : 1) * ob->slot_size;
        if (ob->max) {
            ob->free_slots = malloc((size_t)ob->max * sizeof *ob->free_slots);
            if (!ob->free_slots) return pl__fail(err, PL_E_NOMEM, "out of memory");
        }
    }
    a->nobjects = (uint32_t)d->nobjects;
    a->size = (size_t)align(end, 4096);

    int fd = memfd_create("perflib-app", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    char eb[128];
    if (fd < 0) return pl__fail(err, PL_E_OS, "memfd_create: %s", pl__strerror(errno, eb, sizeof eb));
    a->fd = fd;
    if (ftruncate(fd, (off_t)a->size) != 0)
        return pl__fail(err, PL_E_OS, "ftruncate of the segment to %zu bytes: %s", a->size,
                        pl__strerror(errno, eb, sizeof eb));
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
        return pl__fail(err, PL_E_OS, "sealing the segment: %s", pl__strerror(errno, eb, sizeof eb));
    void *m = mmap(NULL, a->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) return pl__fail(err, PL_E_OS, "mmap of the segment: %s", pl__strerror(errno, eb, sizeof eb));
    a->map = m;

    /* The fixed part, written before anyone can find the segment. */
    uint8_t *h = a->map;
    memcpy(h + SEG_MAGIC, PL__SEG_MAGIC, 8);
    pl__wr32(h + SEG_VERSION, PL__SEG_VERSION);
    pl__wr32(h + SEG_HEADER_LEN, PL__SEG_HEADER);
    pl__wr64(h + SEG_SIZE, a->size);
    pl__wr32(h + SEG_PID, (uint32_t)getpid());
    pl__wr32(h + SEG_NOBJECTS, (uint32_t)d->nobjects);
    pl__wr64(h + SEG_START, pl__proc_start_time("/proc", (uint32_t)getpid()));
    pl__wr32(h + SEG_FIRST_COUNTER, a->ind.first_counter);
    pl__wr32(h + SEG_LAST_COUNTER, a->ind.last_counter);
    pl__wr32(h + SEG_FIRST_HELP, a->ind.first_help);
    pl__wr32(h + SEG_LAST_HELP, a->ind.last_help);
    pl__wr32(h + SEG_NCOUNTERS, ncounters);
    pl__wr64(h + SEG_OBJ_OFF, obj_off);
    pl__wr64(h + SEG_CTR_OFF, ctr_off);
    memcpy(h + SEG_APP, d->app, strlen(d->app) + 1);
    uint32_t c = 0;
    for (uint32_t o = 0; o < a->nobjects; o++) {
        const pl_app_object_decl *od = &d->objects[o];
        const app_object *ob = &a->obj[o];
        uint8_t *r = h + obj_off + (uint64_t)o * SO_SIZE;
        pl__wr32(r + SO_NAME, pl__app_offset(d, o, -1));
        pl__wr32(r + SO_DETAIL, od->detail_level ? od->detail_level : PERF_DETAIL_NOVICE);
        pl__wr32(r + SO_PARENT, ob->parent);
        pl__wr32(r + SO_MAX, ob->max);
        pl__wr32(r + SO_FIRST_CTR, c);
        pl__wr32(r + SO_NCTR, ob->nctr);
        pl__wr32(r + SO_FLAGS, od->costly ? PL__SEG_COSTLY : 0);
        pl__wr64(r + SO_SLOTS, ob->slots_off);
        pl__wr64(r + SO_SLOT_SIZE, ob->slot_size);
        for (uint32_t k = 0; k < ob->nctr; k++, c++) {
            const pl_app_counter_decl *cd = &od->counters[k];
            uint8_t *q = h + ctr_off + (uint64_t)c * SC_SIZE;
            pl__wr32(q + SC_NAME, pl__app_offset(d, o, (int32_t)k));
            pl__wr32(q + SC_TYPE, cd->type);
            pl__wr32(q + SC_DETAIL, cd->detail_level ? cd->detail_level : PERF_DETAIL_NOVICE);
            pl__wr32(q + SC_SCALE, (uint32_t)cd->default_scale);
        }
        if (!ob->max) { /* the single counter block: always alive */
            put(a, ob->slots_off + SL_ID, 1);
            put(a, ob->slots_off + SL_PARENT, UINT64_MAX);
            put(a, ob->slots_off + SL_GEN, 2);
        }
    }
    atomic_thread_fence(memory_order_release);

    int dfd = -1;
    int s = user_dir(a, err, &dfd);
    if (s) return s;
    sweep_stale(dfd);
    char name[128];
    snprintf(name, sizeof name, "%s%u.%llu.%d", PL__SEG_PREFIX, (unsigned)getpid(),
             (unsigned long long)pl__rd64(h + SEG_START), fd);
    if ((size_t)snprintf(a->announce + strlen(a->announce), sizeof a->announce - strlen(a->announce), "/%s", name) >=
        sizeof a->announce - strlen(a->announce)) {
        close(dfd);
        a->announce[0] = '\0';
        return pl__fail(err, PL_E_INVAL, "the announcement directory's path is too long");
    }
    for (int tries = 0; tries < 2; tries++) {
        int af = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0444);
        if (af >= 0) {
            (void)fchmod(af, 0444); /* whatever the umask */
            close(af);
            close(dfd);
            return PL_OK;
        }
        if (errno != EEXIST) break;
        (void)unlinkat(dfd, name, 0); /* our own pid and start time: a leftover of ours */
    }
    int e = errno;
    close(dfd);
    char where[sizeof a->announce];
    snprintf(where, sizeof where, "%s", a->announce);
    a->announce[0] = '\0';
    return pl__fail(err, PL_E_OS, "cannot create the announcement %s: %s", where, pl__strerror(e, eb, sizeof eb));
}

int pl_app_start(const pl_app_decl *d, const pl_app_options *opt, pl_app **out, pl_error *err)
{
    int s = pl__app_decl_check(d, err);
    if (s) return s;
    pl_app *a = calloc(1, sizeof *a);
    if (!a) return pl__fail(err, PL_E_NOMEM, "out of memory");
    pthread_mutex_init(&a->mu, NULL);
    a->fd = -1;
    a->next_id = 2; /* 1 is every single counter block */
    const char *store = opt ? opt->store_path : NULL;
    /* Registered (by us now, or before): then the record must let this
     * user publish it, or every reader would ignore the segment. */
    int reg = !(opt && opt->no_register);
    if (reg) s = pl_app_register(d, store, &a->ind, err);
    if (!s) {
        int reused = a->ind.reused;
        s = pl__app_registered(d, store, &a->ind, err);
        if (reg) a->ind.reused = reused;
    }
    if (!s) s = make_segment(a, d, err);
    if (s) {
        pl_app_stop(a);
        return s;
    }
    *out = a;
    return PL_OK;
}

void pl_app_stop(pl_app *a)
{
    if (!a) return;
    if (a->announce[0]) (void)unlink(a->announce);
    if (a->map) munmap(a->map, a->size);
    if (a->fd >= 0) close(a->fd);
    for (uint32_t o = 0; o < PL_APP_MAX_OBJECTS; o++) free(a->obj[o].free_slots);
    pthread_mutex_destroy(&a->mu);
    free(a);
}

pl_app_indices pl_app_get_indices(const pl_app *a) { return a->ind; }

/* Is inst a live instance of this application? Called with mu held. */
static int live(pl_app *a, pl_app_instance inst)
{
    if (inst.object >= a->nobjects) return 0;
    const app_object *ob = &a->obj[inst.object];
    uint32_t nslots = ob->max ? ob->high : 1;
    if (inst.slot >= nslots || inst.id == 0) return 0;
    return get(a, ob->slots_off + (uint64_t)inst.slot * ob->slot_size + SL_ID) == inst.id;
}

/* Change a slot under its seqlock. Called with mu held. */
static void slot_write(pl_app *a, const app_object *ob, uint32_t slot, uint64_t id, uint64_t parent_slot,
                       uint64_t parent_id, const char *name)
{
    uint64_t base = ob->slots_off + (uint64_t)slot * ob->slot_size;
    _Atomic uint64_t *gen = word(a, base + SL_GEN);
    uint64_t g = atomic_load_explicit(gen, memory_order_relaxed);
    atomic_store_explicit(gen, g + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    put(a, base + SL_ID, id);
    put(a, base + SL_PARENT, parent_slot);
    put(a, base + SL_PARENT_ID, parent_id);
    uint8_t nm[PL__SEG_NAME_BYTES] = {0};
    if (name) memcpy(nm, name, strlen(name));
    for (uint32_t i = 0; i < PL__SEG_NAME_BYTES; i += 8) put(a, base + SL_NAME + i, pl__rd64(nm + i));
    for (uint32_t c = 0; c < ob->nctr; c++) put(a, base + SL_VALUES + 8u * c, 0);
    atomic_store_explicit(gen, g + 2, memory_order_release);
}

int pl_app_instance_create(pl_app *a, uint32_t object, const char *name, pl_app_instance parent,
                           pl_app_instance *out, pl_error *err)
{
    if (!a || !out || !name) return pl__fail(err, PL_E_INVAL, "pl_app_instance_create: NULL argument");
    if (object >= a->nobjects || a->obj[object].max == 0)
        return pl__fail(err, PL_E_INVAL, "pl_app_instance_create: object %u has no instances", object);
    size_t n = strlen(name), units;
    if (n == 0 || n > PL_APP_MAX_NAME)
        return pl__fail(err, PL_E_INVAL, "pl_app_instance_create: name of %zu bytes (1..%d)", n, PL_APP_MAX_NAME);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
            return pl__fail(err, PL_E_INVAL, "pl_app_instance_create: control character in the name");
    if (pl__utf8_to_utf16(name, n, NULL, 0, &units) == PL_E_ENCODING)
        return pl__fail(err, PL_E_ENCODING, "pl_app_instance_create: name is not UTF-8");
    app_object *ob = &a->obj[object];
    int has_parent = parent.object != UINT32_MAX;
    if (has_parent && parent.object != ob->parent)
        return pl__fail(err, PL_E_INVAL, "pl_app_instance_create: the parent is not an instance of object %u's "
                                         "parent object",
                        object);
    pthread_mutex_lock(&a->mu);
    int s = PL_OK;
    if (has_parent && !live(a, parent)) {
        s = pl__fail(err, PL_E_NOT_FOUND, "pl_app_instance_create: the parent instance no longer exists");
    } else if (!ob->nfree && ob->high >= ob->max) {
        s = pl__fail(err, PL_E_RANGE, "pl_app_instance_create: object %u already has %u instances", object,
                     ob->max);
    } else {
        uint32_t slot = ob->nfree ? ob->free_slots[--ob->nfree] : ob->high;
        uint64_t id = a->next_id++;
        slot_write(a, ob, slot, id, has_parent ? parent.slot : UINT64_MAX, has_parent ? parent.id : 0, name);
        if (slot == ob->high) {
            ob->high++;
            atomic_store_explicit(word(a, ob->high_off), ob->high, memory_order_release);
        }
        *out = (pl_app_instance){object, slot, id};
    }
    pthread_mutex_unlock(&a->mu);
    return s;
}

int pl_app_instance_delete(pl_app *a, pl_app_instance inst, pl_error *err)
{
    if (!a) return pl__fail(err, PL_E_INVAL, "pl_app_instance_delete: NULL application");
    pthread_mutex_lock(&a->mu);
    int s = PL_OK;
    if (inst.object >= a->nobjects || a->obj[inst.object].max == 0 || !live(a, inst)) {
        s = pl__fail(err, PL_E_NOT_FOUND, "pl_app_instance_delete: no such instance");
    } else {
        app_object *ob = &a->obj[inst.object];
        slot_write(a, ob, inst.slot, 0, UINT64_MAX, 0, NULL);
        ob->free_slots[ob->nfree++] = inst.slot;
    }
    pthread_mutex_unlock(&a->mu);
    return s;
}

int pl_app_counter(pl_app *a, pl_app_instance inst, uint32_t counter, pl_app_value *out, pl_error *err)
{
    if (!out) return pl__fail(err, PL_E_INVAL, "pl_app_counter: NULL output");
    if (!a) {
        static _Atomic uint64_t sink;
        out->p = &sink;
        return pl__fail(err, PL_E_INVAL, "pl_app_counter: NULL application");
    }
    out->p = &a->scratch;
    pthread_mutex_lock(&a->mu);
    int s = PL_OK;
    if (!live(a, inst)) {
        s = pl__fail(err, PL_E_NOT_FOUND, "pl_app_counter: no such instance");
    } else if (counter >= a->obj[inst.object].nctr) {
        s = pl__fail(err, PL_E_INVAL, "pl_app_counter: object %u has no counter %u", inst.object, counter);
    } else {
        const app_object *ob = &a->obj[inst.object];
        out->p = word(a, ob->slots_off + (uint64_t)inst.slot * ob->slot_size + SL_VALUES + 8u * counter);
    }
    pthread_mutex_unlock(&a->mu);
    return s;
}
