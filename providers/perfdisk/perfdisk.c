/* perflib built-in provider: PhysicalDisk (234) and LogicalDisk (236).
 *
 * Sources: /proc/diskstats (I/O counters), /sys/block (which devices are whole
 * disks, disk sizes, partition -> disk), /proc/self/mountinfo (or
 * /proc/mounts) and statvfs() (filesystem space). Every decision is described
 * in docs/providers/perfdisk.md; the short form:
 * - PhysicalDisk: one instance per /proc/diskstats line whose device has a
 *   /sys/block entry (a whole disk), named by its kernel name ("sda"),
 *   except loop and ram devices that have never completed an I/O; plus
 *   _Total (last).
 * - LogicalDisk: one instance per mounted filesystem whose device is in
 *   /proc/diskstats (so proc, sysfs, tmpfs, overlay, nfs... are excluded),
 *   one per device, named by its mount point, with the whole disk as its
 *   parent PhysicalDisk; plus _Total (last). A mount point that is gone
 *   (ENOENT) is left out. The statvfs() calls run on PerfDisk's space
 *   thread (perfdisk_space.c) with a deadline, while this thread reads
 *   /sys/block: a hung file system never holds a Collect longer than that.
 * - A value that cannot be read for one instance (a disk without a size, a
 *   mount statvfs() fails on) is marked in the object's "Unavailable
 *   Counters" (docs/block-format.md) and written as 0; so is the _Total of a
 *   counter marked for any instance.
 * - Times are kernel milliseconds scaled to 100 ns (x 10^4).
 * Calls are serialised by a mutex (the host serialises them too); only the
 * space thread runs beside them. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "linux/collect_io.h"
#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/provider.h"
#include "perfdisk_space.h"
#include "pl_internal.h"
#include "platform.h"

PL_PROVIDER_EXPORT DWORD PerfDiskOpen(LPWSTR device_names);
PL_PROVIDER_EXPORT DWORD PerfDiskCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects);
PL_PROVIDER_EXPORT DWORD PerfDiskClose(void);
PL_PROVIDER_EXPORT DWORD PerfDiskCollectNonBlocking(LPCWSTR query);


#define MS_TO_100NS 10000ull
#define SECTOR 512ull
#define MB (1024ull * 1024ull)

/* What one instance's counters are computed from: the diskstats fields (a sum
 * for _Total), the precision-timer base and the idle numerator. */
struct dvals {
    uint64_t f[PL__DK_NFIELDS];
    uint64_t stamp;       /* PERF_PRECISION_TIMESTAMP base (100 ns) */
    uint64_t idle;        /* idle time numerator (100 ns) */
    uint64_t size_mb;
    /* LogicalDisk only */
    uint64_t free_mb, total_mb;
    unsigned missing;     /* MISS_*: what could not be read */
};

/* What could not be read for an instance. */
#define MISS_SIZE 1u      /* PhysicalDisk: /sys/block/<dev>/size */
#define MISS_SPACE 2u     /* LogicalDisk: statvfs() of the mount point */
#define MISS_IO 4u        /* _Total: a /proc/diskstats line did not parse, so a sum of
                             the I/O counters could leave a device out */

enum src {
    S_QUEUE_NOW, S_DISK_TIME, S_QLEN, S_READ_TIME, S_READ_QLEN, S_WRITE_TIME, S_WRITE_QLEN,
    S_SEC_XFER, S_SEC_READ, S_SEC_WRITE, S_XFERS, S_READS, S_WRITES, S_BYTES, S_RBYTES, S_WBYTES,
    S_BPX, S_BPR, S_BPW, S_IDLE, S_DISCARDS, S_DISCARD_BYTES, S_FLUSHES, S_SIZE_MB,
    S_PCT_FREE, S_FREE_MB,
};

/* Which optional data a counter needs. */
#define NEED_DISCARD 1
#define NEED_FLUSH 2
#define NEED_SIZE 4
#define LOGICAL_ONLY 8

struct cdef {
    uint32_t index;
    uint32_t type;
    uint32_t base_type;
    enum src src;
    unsigned need;
    uint32_t size;        /* 0: the type's; 8: a wide average (value and base) */
};

static const struct cdef counters[] = {
    {PL_CTR_PCT_FREE_SPACE, PERF_RAW_FRACTION, PERF_RAW_BASE, S_PCT_FREE, LOGICAL_ONLY, 0},
    {PL_CTR_FREE_MEGABYTES, PERF_COUNTER_RAWCOUNT, 0, S_FREE_MB, LOGICAL_ONLY, 0},
    {PL_CTR_CURRENT_DISK_QUEUE_LENGTH, PERF_COUNTER_RAWCOUNT, 0, S_QUEUE_NOW, 0, 0},
    {PL_CTR_PCT_DISK_TIME, PERF_PRECISION_100NS_TIMER, PERF_PRECISION_TIMESTAMP, S_DISK_TIME, 0, 0},
    {PL_CTR_AVG_DISK_QUEUE_LENGTH, PERF_COUNTER_100NS_QUEUELEN_TYPE, 0, S_QLEN, 0, 0},
    {PL_CTR_PCT_DISK_READ_TIME, PERF_PRECISION_100NS_TIMER, PERF_PRECISION_TIMESTAMP, S_READ_TIME, 0, 0},
    {PL_CTR_AVG_DISK_READ_QUEUE_LENGTH, PERF_COUNTER_100NS_QUEUELEN_TYPE, 0, S_READ_QLEN, 0, 0},
    {PL_CTR_PCT_DISK_WRITE_TIME, PERF_PRECISION_100NS_TIMER, PERF_PRECISION_TIMESTAMP, S_WRITE_TIME, 0, 0},
    {PL_CTR_AVG_DISK_WRITE_QUEUE_LENGTH, PERF_COUNTER_100NS_QUEUELEN_TYPE, 0, S_WRITE_QLEN, 0, 0},
    {PL_CTR_AVG_DISK_SEC_PER_TRANSFER, PERF_AVERAGE_TIMER, PERF_AVERAGE_BASE, S_SEC_XFER, 0, 8},
    {PL_CTR_AVG_DISK_SEC_PER_READ, PERF_AVERAGE_TIMER, PERF_AVERAGE_BASE, S_SEC_READ, 0, 8},
    {PL_CTR_AVG_DISK_SEC_PER_WRITE, PERF_AVERAGE_TIMER, PERF_AVERAGE_BASE, S_SEC_WRITE, 0, 8},
    {PL_CTR_DISK_TRANSFERS_PER_SEC, PERF_COUNTER_BULK_COUNT, 0, S_XFERS, 0, 0},
    {PL_CTR_DISK_READS_PER_SEC, PERF_COUNTER_BULK_COUNT, 0, S_READS, 0, 0},
    {PL_CTR_DISK_WRITES_PER_SEC, PERF_COUNTER_BULK_COUNT, 0, S_WRITES, 0, 0},
    {PL_CTR_DISK_BYTES_PER_SEC, PERF_COUNTER_BULK_COUNT, 0, S_BYTES, 0, 0},
    {PL_CTR_DISK_READ_BYTES_PER_SEC, PERF_COUNTER_BULK_COUNT, 0, S_RBYTES, 0, 0},
    {PL_CTR_DISK_WRITE_BYTES_PER_SEC, PERF_COUNTER_BULK_COUNT, 0, S_WBYTES, 0, 0},
    {PL_CTR_AVG_DISK_BYTES_PER_TRANSFER, PERF_AVERAGE_BULK, PERF_AVERAGE_BASE, S_BPX, 0, 8},
    {PL_CTR_AVG_DISK_BYTES_PER_READ, PERF_AVERAGE_BULK, PERF_AVERAGE_BASE, S_BPR, 0, 8},
    {PL_CTR_AVG_DISK_BYTES_PER_WRITE, PERF_AVERAGE_BULK, PERF_AVERAGE_BASE, S_BPW, 0, 8},
    {PL_CTR_PCT_IDLE_TIME_DISK, PERF_PRECISION_100NS_TIMER, PERF_PRECISION_TIMESTAMP, S_IDLE, 0, 0},
    {PL_CTR_DISCARDS_PER_SEC, PERF_COUNTER_BULK_COUNT, 0, S_DISCARDS, NEED_DISCARD, 0},
    {PL_CTR_DISCARD_BYTES_PER_SEC, PERF_COUNTER_BULK_COUNT, 0, S_DISCARD_BYTES, NEED_DISCARD, 0},
    {PL_CTR_FLUSHES_PER_SEC, PERF_COUNTER_BULK_COUNT, 0, S_FLUSHES, NEED_FLUSH, 0},
    {PL_CTR_SIZE_MEGABYTES, PERF_COUNTER_LARGE_RAWCOUNT, 0, S_SIZE_MB, NEED_SIZE, 0},
};
#define NCOUNTERS (sizeof counters / sizeof counters[0])

/* The value (and base) of one counter. */
static void value_of(enum src s, const struct dvals *v, uint64_t *n, uint64_t *b)
{
    const uint64_t *f = v->f;
    *b = 0;
    switch (s) {
    case S_QUEUE_NOW: *n = f[PL__DK_IN_FLIGHT]; break;
    case S_DISK_TIME: *n = f[PL__DK_WEIGHTED_MS] * MS_TO_100NS; *b = v->stamp; break;
    case S_QLEN: *n = f[PL__DK_WEIGHTED_MS] * MS_TO_100NS; break;
    case S_READ_TIME: *n = f[PL__DK_RD_MS] * MS_TO_100NS; *b = v->stamp; break;
    case S_READ_QLEN: *n = f[PL__DK_RD_MS] * MS_TO_100NS; break;
    case S_WRITE_TIME: *n = f[PL__DK_WR_MS] * MS_TO_100NS; *b = v->stamp; break;
    case S_WRITE_QLEN: *n = f[PL__DK_WR_MS] * MS_TO_100NS; break;
    /* The average timers are written 8 bytes wide, value and op-count base
     * (docs/block-format.md "Wide average timers"): the 100 ns sum in 32 bits
     * would wrap every 429.5 s of summed request time (13 s of wall time at
     * queue depth 32), more than once within one sampling interval. */
    case S_SEC_XFER:
        *n = (f[PL__DK_RD_MS] + f[PL__DK_WR_MS]) * MS_TO_100NS;
        *b = f[PL__DK_RD_IOS] + f[PL__DK_WR_IOS];
        break;
    case S_SEC_READ: *n = f[PL__DK_RD_MS] * MS_TO_100NS; *b = f[PL__DK_RD_IOS]; break;
    case S_SEC_WRITE: *n = f[PL__DK_WR_MS] * MS_TO_100NS; *b = f[PL__DK_WR_IOS]; break;
    case S_XFERS: *n = f[PL__DK_RD_IOS] + f[PL__DK_WR_IOS]; break;
    case S_READS: *n = f[PL__DK_RD_IOS]; break;
    case S_WRITES: *n = f[PL__DK_WR_IOS]; break;
    case S_BYTES: *n = (f[PL__DK_RD_SECTORS] + f[PL__DK_WR_SECTORS]) * SECTOR; break;
    case S_RBYTES: *n = f[PL__DK_RD_SECTORS] * SECTOR; break;
    case S_WBYTES: *n = f[PL__DK_WR_SECTORS] * SECTOR; break;
    case S_BPX:
        *n = (f[PL__DK_RD_SECTORS] + f[PL__DK_WR_SECTORS]) * SECTOR;
        *b = f[PL__DK_RD_IOS] + f[PL__DK_WR_IOS];
        break;
    case S_BPR: *n = f[PL__DK_RD_SECTORS] * SECTOR; *b = f[PL__DK_RD_IOS]; break;
    case S_BPW: *n = f[PL__DK_WR_SECTORS] * SECTOR; *b = f[PL__DK_WR_IOS]; break;
    case S_IDLE: *n = v->idle; *b = v->stamp; break;
    case S_DISCARDS: *n = f[PL__DK_DC_IOS]; break;
    case S_DISCARD_BYTES: *n = f[PL__DK_DC_SECTORS] * SECTOR; break;
    case S_FLUSHES: *n = f[PL__DK_FL_IOS]; break;
    case S_SIZE_MB: *n = v->size_mb; break;
    case S_PCT_FREE: *n = v->free_mb; *b = v->total_mb; break;
    case S_FREE_MB: *n = v->free_mb; break;
    }
}

/* Is the value of source s unreadable, given what is missing? */
static int unreadable(enum src s, int logical, unsigned missing)
{
    switch (s) {
    case S_PCT_FREE: case S_FREE_MB: return (missing & MISS_SPACE) != 0;
    case S_SIZE_MB: return (missing & (logical ? MISS_SPACE : MISS_SIZE)) != 0;
    default: return (missing & MISS_IO) != 0; /* every other value is from diskstats */
    }
}

/* ------------------------------------------------------------------ state */

struct pdisk {
    size_t ds;            /* index into diskstats */
    uint64_t size_mb;
    int have_size;
};

struct ldisk {
    size_t ds;            /* diskstats line of the mounted device */
    size_t mnt;           /* index into mounts */
    long parent;          /* PhysicalDisk position or -1 */
    int have_space;       /* statvfs() answered */
    uint64_t free_mb, total_mb;
};

/* A device of /proc/diskstats known from the last collection (live root). */
struct devc {
    char name[PL__DISK_NAME_MAX];
    uint32_t major, minor;
    int is_disk;          /* has a /sys/block entry */
    int fd;               /* its /sys/block/<name>/size kept open, or -1 */
};

/* What is known of one mount's space during a collection. */
struct mspace {
    int asked;            /* handed to the space thread */
    int known;            /* sp holds its answer */
    unsigned round;       /* the batch it was asked in */
    size_t slot;          /* its place in that batch */
    pd_space sp;
};

/* One object's counters: builder handles, definition positions (a counter
 * with a base takes two), and the "Unavailable Counters" marker's handle. */
struct layout {
    int obj;
    int logical;
    int handles[sizeof counters / sizeof counters[0]];
    uint32_t pos[sizeof counters / sizeof counters[0]];
    int marker;
};

/* Guards g: one collection at a time. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
    int open;
    pl_builder *b;
    struct pl__diskstats ds;
    struct pl__mounts mnts;
    struct pdisk *pd;
    size_t pd_cap;
    struct ldisk *ld;
    size_t ld_cap;
    const char **names;
    size_t names_cap;
    long *mds;            /* per mount: its diskstats line, or -1 */
    size_t mds_cap;
    struct mspace *ms;    /* per mount */
    size_t ms_cap;
    long *par;            /* per diskstats line: parent PhysicalDisk, -1 none, -2 not looked up */
    size_t par_cap;
    /* The live root's mount table, kept between collections (read_mount_table) */
    int mt_have;          /* mt_fd is open */
    int mt_fd;            /* /proc/self/mountinfo */
    int mt_valid;         /* g.mnts holds what mt_fd said last */
    pd_view mt_view;      /* the process, mount namespace and root it was opened in */
    char *mt_buf;
    size_t mt_cap;
    /* The live root's devices, kept between collections (refresh_devices) */
    struct devc *dc;      /* per diskstats line of the last collection */
    size_t ndc, dc_cap;
    struct devc *dc_new;  /* this collection's, swapped with dc */
    size_t dc_new_cap;
    long dc_pid;
    unsigned nkept;       /* size files kept open */
} g;

static int prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* loop and ram devices that have never completed an I/O are placeholders
 * (an unattached /dev/loopN), not disks anyone uses. */
static int placeholder(const struct pl__diskstat *d)
{
    if (!prefix(d->name, "loop") && !prefix(d->name, "ram")) return 0;
    uint64_t ops = d->f[PL__DK_RD_IOS] + d->f[PL__DK_WR_IOS] + d->f[PL__DK_IN_FLIGHT];
    if (d->nfields >= 15) ops += d->f[PL__DK_DC_IOS];
    if (d->nfields >= 17) ops += d->f[PL__DK_FL_IOS];
    return ops == 0;
}

/* The diskstats line of a mount's device: by major:minor (mountinfo), else
 * by the basename of a /dev/... source. -1 when the mount is not on a block
 * device that the kernel reports I/O statistics for. */
static long mount_device(const struct pl__mount *m)
{
    if (m->have_devno) {
        if (m->major == 0) return -1; /* anonymous: proc, tmpfs, overlay, btrfs subvolumes... */
        for (size_t i = 0; i < g.ds.n; i++)
            if (g.ds.d[i].major == m->major && g.ds.d[i].minor == m->minor) return (long)i;
    }
    if (!prefix(m->source, "/dev/")) return -1;
    const char *name = m->source + 5;
    for (size_t i = 0; i < g.ds.n; i++)
        if (strcmp(g.ds.d[i].name, name) == 0) return (long)i;
    return -1;
}

/* <root><mountpoint>, the path statvfs() is asked about ("/" for the live
 * root's "/"). -ENAMETOOLONG when it does not fit. */
static int space_path(const char *root, const char *mountpoint, char *path, size_t cap)
{
    size_t rl = strlen(root);
    while (rl > 1 && root[rl - 1] == '/') rl--;
    if (rl == 1 && root[0] == '/') rl = 0;
    size_t ml = strlen(mountpoint);
    if (rl + ml + 1 > cap) return -ENAMETOOLONG;
    memcpy(path, root, rl);
    memcpy(path + rl, mountpoint, ml + 1);
    if (path[0] == '\0') {
        path[0] = '/';
        path[1] = '\0';
    }
    return 0;
}

/* -------------------------------------------------------------- building */

static unsigned min_nfields(void)
{
    unsigned m = 17;
    for (size_t i = 0; i < g.ds.n; i++)
        if (g.ds.d[i].nfields < m) m = g.ds.d[i].nfields;
    return g.ds.n ? m : 11;
}

static int counter_wanted(const struct cdef *c, int logical, unsigned nf, int have_size)
{
    if ((c->need & LOGICAL_ONLY) && !logical) return 0;
    if ((c->need & NEED_DISCARD) && nf < 15) return 0;
    if ((c->need & NEED_FLUSH) && nf < 17) return 0;
    if ((c->need & NEED_SIZE) && !have_size) return 0;
    return 1;
}

/* Set one instance's values; what v->missing says could not be read is
 * left 0 and marked (with its base) in the instance's marker. */
static int set_values(const struct layout *L, int inst, const struct dvals *v)
{
    uint64_t unav = 0;
    for (size_t i = 0; i < NCOUNTERS; i++) {
        if (L->handles[i] < 0) continue;
        if (unreadable(counters[i].src, L->logical, v->missing)) {
            unav |= PL_UNAVAILABLE_BIT(L->pos[i]);
            if (counters[i].base_type) unav |= PL_UNAVAILABLE_BIT(L->pos[i] + 1);
            continue;
        }
        uint64_t n = 0, b = 0;
        value_of(counters[i].src, v, &n, &b);
        int rc = pl_builder_set_u64(g.b, L->obj, inst, L->handles[i], n);
        if (rc == PL_OK && counters[i].base_type) rc = pl_builder_set_base(g.b, L->obj, inst, L->handles[i], b);
        if (rc != PL_OK) return rc;
    }
    return pl_builder_set_u64(g.b, L->obj, inst, L->marker, unav);
}

static int add_object(uint32_t index, int logical, unsigned nf, int have_size, struct layout *L)
{
    pl_object_desc od = {0};
    od.name_index = index;
    od.help_index = PL_HELP(index);
    od.detail_level = PERF_DETAIL_NOVICE;
    od.default_counter = -1;
    od.has_instances = 1;
    L->logical = logical;
    int rc = pl_builder_add_object(g.b, &od, &L->obj);
    if (rc != PL_OK) return rc;
    uint32_t pos = 0;
    for (size_t i = 0; i < NCOUNTERS; i++) {
        L->handles[i] = -1;
        if (!counter_wanted(&counters[i], logical, nf, have_size)) continue;
        pl_counter_desc cd = {0};
        cd.name_index = counters[i].index;
        cd.help_index = PL_HELP(counters[i].index);
        cd.type = counters[i].type;
        cd.size = counters[i].size;
        cd.detail_level = PERF_DETAIL_NOVICE;
        cd.base_type = counters[i].base_type;
        cd.base_name_index = counters[i].index;
        rc = pl_builder_add_counter(g.b, L->obj, &cd, &L->handles[i]);
        if (rc != PL_OK) return rc;
        L->pos[i] = pos;
        pos += counters[i].base_type ? 2 : 1;
    }
    pl_counter_desc cd = {0};
    cd.name_index = PL_CTR_UNAVAILABLE_COUNTERS;
    cd.help_index = PL_HELP(PL_CTR_UNAVAILABLE_COUNTERS);
    cd.type = PERF_COUNTER_LARGE_RAWCOUNT_HEX;
    cd.detail_level = PERF_DETAIL_WIZARD;
    return pl_builder_add_counter(g.b, L->obj, &cd, &L->marker);
}

static void add_fields(struct dvals *t, const uint64_t *f)
{
    for (int k = 0; k < PL__DK_NFIELDS; k++) t->f[k] += f[k];
}

static void fill_io(struct dvals *v, const struct pl__diskstat *d, uint64_t stamp)
{
    memcpy(v->f, d->f, sizeof v->f);
    v->stamp = stamp;
    uint64_t busy = d->f[PL__DK_IO_MS] * MS_TO_100NS;
    v->idle = stamp > busy ? stamp - busy : 0;
}

/* Adds an instance's values to _Total's; what is missing for one instance
 * is missing from the sum. */
static void add_to_total(struct dvals *tot, const struct dvals *v)
{
    add_fields(tot, v->f);
    tot->stamp += v->stamp;
    tot->idle += v->idle;
    tot->free_mb += v->free_mb;
    tot->total_mb += v->total_mb;
    tot->size_mb += v->size_mb;
    tot->missing |= v->missing;
}

static int build_physical(size_t npd, unsigned nf, int have_size, uint64_t stamp)
{
    struct layout L;
    int rc = add_object(PL_OBJ_PHYSICAL_DISK, 0, nf, have_size, &L);
    struct dvals tot = {0};
    for (size_t i = 0; rc == PL_OK && i < npd; i++) {
        const struct pl__diskstat *d = &g.ds.d[g.pd[i].ds];
        int inst;
        rc = pl_builder_add_instance(g.b, L.obj, d->name, 0, 0, PERF_NO_UNIQUE_ID, &inst);
        if (rc != PL_OK) break;
        struct dvals v = {0};
        fill_io(&v, d, stamp);
        v.size_mb = g.pd[i].size_mb;
        if (!g.pd[i].have_size) v.missing |= MISS_SIZE;
        rc = set_values(&L, inst, &v);
        add_to_total(&tot, &v);
    }
    if (rc == PL_OK) {
        int inst;
        if (g.ds.bad) tot.missing |= MISS_IO;
        rc = pl_builder_add_instance(g.b, L.obj, "_Total", 0, 0, PERF_NO_UNIQUE_ID, &inst);
        if (rc == PL_OK) rc = set_values(&L, inst, &tot);
    }
    return rc;
}

static int build_logical(size_t nld, unsigned nf, uint64_t stamp)
{
    struct layout L;
    int rc = add_object(PL_OBJ_LOGICAL_DISK, 1, nf, 1, &L);
    struct dvals tot = {0};
    for (size_t i = 0; rc == PL_OK && i < nld; i++) {
        const struct ldisk *l = &g.ld[i];
        const struct pl__diskstat *d = &g.ds.d[l->ds];
        int inst;
        rc = pl_builder_add_instance(g.b, L.obj, g.mnts.m[l->mnt].mountpoint,
                                     l->parent >= 0 ? PL_OBJ_PHYSICAL_DISK : 0,
                                     l->parent >= 0 ? (uint32_t)l->parent : 0, PERF_NO_UNIQUE_ID, &inst);
        if (rc != PL_OK) break;
        struct dvals v = {0};
        fill_io(&v, d, stamp);
        if (l->have_space) {
            v.free_mb = l->free_mb;
            v.total_mb = l->total_mb;
            v.size_mb = l->total_mb;
        } else {
            v.missing |= MISS_SPACE;
        }
        rc = set_values(&L, inst, &v);
        add_to_total(&tot, &v);
    }
    if (rc == PL_OK) {
        int inst;
        if (g.ds.bad) tot.missing |= MISS_IO;
        rc = pl_builder_add_instance(g.b, L.obj, "_Total", 0, 0, PERF_NO_UNIQUE_ID, &inst);
        if (rc == PL_OK) rc = set_values(&L, inst, &tot);
    }
    return rc;
}

static DWORD do_open(LPWSTR device_names)
{
    (void)device_names;
    /* Every host (engine) that loads this library calls Open and Close;
     * several engines in one process share this state, so count them. */
    if (g.open) {
        g.open++;
        return ERROR_SUCCESS;
    }
    g.b = pl_builder_new();
    if (!g.b) return ERROR_OUTOFMEMORY;
    g.open = 1;
    return ERROR_SUCCESS;
}

static DWORD nothing(LPDWORD bytes, LPDWORD objects)
{
    *bytes = 0;
    *objects = 0;
    return ERROR_SUCCESS;
}

/* -------------------------------------------------------- LogicalDisk */

/* How long a collection waits for its statvfs() calls (the space thread,
 * perfdisk_space.c). A healthy local file system answers in microseconds
 * and a healthy network one in a round trip; 200 ms is far above both and
 * far below the host's Collect watchdog (5 s), so a hung mount costs one
 * collection 200 ms and the later ones nothing (their space counters are
 * unavailable at once until the stuck call returns). */
#define SPACE_DEADLINE_MS 200
/* Under another root (PERFLIB_SYSROOT: canned trees, tests) the host keeps
 * its watchdog anyway (PerfDiskCollectNonBlocking), and a loaded test
 * machine must not turn a late wake-up of the thread into unavailable
 * values: a longer deadline, still well below the watchdog's. */
#define SPACE_DEADLINE_OTHER_ROOT_MS 1000

/* The test hook (docs/providers/perfdisk.md, "Testing the deadline"): the
 * path of a FIFO the space thread opens before its calls. */
#define STALL_ENV "PERFLIB_TEST_PERFDISK_STALL"

static void deadline_in(struct timespec *dl, unsigned ms)
{
    clock_gettime(CLOCK_MONOTONIC, dl);
    dl->tv_sec += (time_t)(ms / 1000);
    dl->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (dl->tv_nsec >= 1000000000L) {
        dl->tv_sec++;
        dl->tv_nsec -= 1000000000L;
    }
}

/* Pick LogicalDisk's instances from the mounts with what is known of their
 * space so far (the rules of docs/providers/perfdisk.md, in mount order):
 * one per device, the first mount of it, except that a mount of the
 * filesystem root replaces a bind mount of a subdirectory; a mount whose
 * statvfs() said ENOENT/ENOTDIR (gone since mountinfo was read) is left out.
 * Which mounts are considered depends on those answers, so a mount
 * considered whose answer is not asked for yet is added to the open batch
 * (with `can_ask`) and counted as present meanwhile; the caller asks, and
 * calls again until nothing new is asked. A mount whose answer never came
 * (deadline, no thread) stays, its space unavailable. Returns the number of
 * mounts added to the batch, or -1 without memory; *nld = instances. */
static long choose(const char *root, int can_ask, unsigned round, size_t *nld)
{
    long nask = 0;
    size_t n = 0;
    for (size_t i = 0; i < g.mnts.n; i++) {
        const struct pl__mount *m = &g.mnts.m[i];
        long ds = g.mds[i];
        if (ds < 0) continue;
        long dup = -1;
        for (size_t k = 0; k < n; k++)
            if (g.ld[k].ds == (size_t)ds) dup = (long)k;
        if (dup >= 0 && (g.mnts.m[g.ld[dup].mnt].root_is_slash || !m->root_is_slash)) continue;
        struct mspace *s = &g.ms[i];
        if (!s->known && !s->asked && can_ask) {
            char path[2 * PL__MNT_PATH_MAX + 2];
            int pr = space_path(root, m->mountpoint, path, sizeof path);
            if (pr != 0) {
                s->known = 1;
                s->sp.rc = pr;
            } else {
                long slot = pl__pds_add(path);
                if (slot < 0) return -1;
                s->asked = 1;
                s->slot = (size_t)slot;
                s->round = round;
                nask++;
            }
        }
        /* Gone since mountinfo was read: no such mount any more. Any other
         * failure (EACCES, EIO, ELOOP, ...) and no answer keep the instance
         * with its space counters marked unavailable. */
        if (s->known && (s->sp.rc == -ENOENT || s->sp.rc == -ENOTDIR)) continue;
        struct ldisk l;
        l.ds = (size_t)ds;
        l.mnt = i;
        l.parent = -1;
        l.have_space = s->known && s->sp.rc == 0;
        l.free_mb = l.have_space ? s->sp.free_mb : 0;
        l.total_mb = l.have_space ? s->sp.total_mb : 0;
        if (dup >= 0) g.ld[dup] = l;
        else g.ld[n++] = l;
    }
    *nld = n;
    return nask;
}

/* The parent PhysicalDisk of the device on diskstats line ds (cached per
 * collection: every mount of one device has the same parent). */
static long parent_of(int sbfd, size_t ds, size_t npd)
{
    if (g.par[ds] == -2) g.par[ds] = pl__sysblock_parent(sbfd, g.ds.d[ds].name, g.names, npd);
    return g.par[ds];
}

/* The answers of the batch of `round` that came back (slots below done). */
static void take_answers(unsigned round, size_t done)
{
    for (size_t i = 0; i < g.mnts.n; i++) {
        struct mspace *s = &g.ms[i];
        if (!s->asked || s->known || s->round != round || s->slot >= done) continue;
        s->sp = *pl__pds_result(s->slot);
        s->known = 1;
    }
}

/* ------------------------------------------------------------- devices */

/* At most this many size files stay open (a machine with more whole disks
 * reads the others afresh each time). */
#define MAX_KEPT_SIZES 64

static void dc_close(struct devc *c)
{
    if (c->fd >= 0) {
        close(c->fd);
        g.nkept--;
    }
    c->fd = -1;
}

static void dc_forget(void)
{
    for (size_t i = 0; i < g.ndc; i++) dc_close(&g.dc[i]);
    g.ndc = 0;
    g.nkept = 0;
}

/* Which diskstats devices are whole disks, on the live root, without a
 * /sys/block lookup per device per collection (3 us each here): a device
 * keeps its answer for as long as it stays in /proc/diskstats under the
 * same name and numbers (a device that goes away leaves the file; whole
 * disk or partition is what the kernel made it). New devices are looked up.
 * Builds g.dc in diskstats order (found by the same position first, as the
 * file's order rarely changes); what left the file is closed. Returns 0, or
 * -1 without memory (then nothing is kept). */
static int refresh_devices(int sbfd)
{
    long me = (long)getpid();
    if (g.dc_pid != me) { /* a forked child: the kept descriptors are the parent's too */
        dc_forget();
        g.dc_pid = me;
    }
    if (pl__grow((void **)&g.dc_new, &g.dc_new_cap, g.ds.n + 1, sizeof *g.dc_new)) {
        dc_forget();
        return -1;
    }
    for (size_t i = 0; i < g.ds.n; i++) {
        const struct pl__diskstat *d = &g.ds.d[i];
        struct devc *hit = NULL;
        for (size_t k = 0, j = i; k < g.ndc; k++, j = (j + 1) % g.ndc) {
            struct devc *c = &g.dc[j % g.ndc];
            if (c->major == d->major && c->minor == d->minor && strcmp(c->name, d->name) == 0) {
                hit = c;
                break;
            }
        }
        struct devc *n = &g.dc_new[i];
        if (hit) {
            *n = *hit;
            hit->fd = -1;       /* moved */
            hit->major = UINT32_MAX; /* taken: not found twice */
            hit->name[0] = '\0';
        } else {
            memcpy(n->name, d->name, sizeof n->name);
            n->major = d->major;
            n->minor = d->minor;
            n->is_disk = pl__sysblock_is_disk(sbfd, d->name) == 1;
            n->fd = -1;
        }
    }
    for (size_t k = 0; k < g.ndc; k++) dc_close(&g.dc[k]); /* left the file */
    struct devc *t = g.dc;
    size_t tc = g.dc_cap;
    g.dc = g.dc_new;
    g.dc_cap = g.dc_new_cap;
    g.dc_new = t;
    g.dc_new_cap = tc;
    g.ndc = g.ds.n;
    return 0;
}

/* The size of whole disk i (diskstats position) in sectors. On the live
 * root its size file is kept open and read again from offset 0; a read
 * that fails (the device went away: ENODEV) closes it and the file is
 * opened again, as without a kept one. */
static int disk_size(int sbfd, size_t i, int cached, uint64_t *sectors)
{
    const char *name = g.ds.d[i].name;
    if (!cached) return pl__sysblock_size(sbfd, name, sectors);
    struct devc *c = &g.dc[i];
    if (c->fd >= 0) {
        if (pl__sysblock_size_fd(c->fd, sectors) == 0) return 0;
        dc_close(c);
    }
    if (g.nkept < MAX_KEPT_SIZES) {
        int fd = pl__sysblock_size_open(sbfd, name);
        if (fd < 0) return fd;
        int rc = pl__sysblock_size_fd(fd, sectors);
        if (rc != 0) {
            close(fd);
            return rc;
        }
        c->fd = fd;
        g.nkept++;
        return 0;
    }
    return pl__sysblock_size(sbfd, name, sectors);
}

/* ------------------------------------------------------ the mount table */

#define PROC_MAGIC 0x9fa0 /* procfs' f_type (linux/magic.h PROC_SUPER_MAGIC) */

static void mt_drop(void)
{
    if (g.mt_have) close(g.mt_fd);
    g.mt_have = 0;
    g.mt_valid = 0;
}

/* All of mt_fd from offset 0 into g.mt_buf, NUL-terminated. */
static int mt_read(void)
{
    size_t have = 0;
    for (;;) {
        if (g.mt_cap - have < 4096) {
            size_t cap = g.mt_cap ? 2 * g.mt_cap : 16384;
            if (cap > ((size_t)64 << 20)) return -EFBIG; /* 64 MiB of mount table: something is wrong */
            char *b = realloc(g.mt_buf, cap);
            if (!b) return -ENOMEM;
            g.mt_buf = b;
            g.mt_cap = cap;
        }
        ssize_t n = pread(g.mt_fd, g.mt_buf + have, g.mt_cap - have - 1, (off_t)have);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        if (n == 0) break;
        have += (size_t)n;
    }
    g.mt_buf[have] = '\0';
    return 0;
}

/* The mounted filesystems into g.mnts. Under another root: read every
 * time (a canned file cannot say it changed). On the live root the
 * kernel says when the mount table changes: /proc/self/mountinfo is kept
 * open, and poll() gives it POLLPRI (or POLLERR) after a mount, unmount or
 * move in its namespace since it was last polled (proc(5)); without that the
 * table parsed last time stands, and neither the kernel's rendering (about
 * 1.2 us per mount here) nor the parse is paid again. It is the mount
 * namespace of the thread that opened it, as the space thread's (both are
 * made by the first LogicalDisk collection: perfdisk_space.h, pd_view), and
 * is opened again in a forked child or after a chroot(). */
static int read_mount_table(const char *root, int rootfd, const pd_view *v)
{
    if (strcmp(root, "/") != 0) return pl__read_mounts(rootfd, &g.mnts);
    if (g.mt_have && !pl__pds_same_view(&g.mt_view, v)) mt_drop();
    if (!g.mt_have) {
        /* the calling thread's own view, as the space thread's (perfdisk_space.h) */
        int fd = openat(rootfd, "proc/thread-self/mountinfo", O_RDONLY | O_CLOEXEC);
        struct statfs sf;
        if (fd >= 0 && (fstatfs(fd, &sf) != 0 || sf.f_type != PROC_MAGIC)) {
            close(fd);
            fd = -1;
        }
        if (fd < 0) return pl__read_mounts(rootfd, &g.mnts);
        g.mt_fd = fd;
        g.mt_have = 1;
        g.mt_valid = 0;
        g.mt_view = *v;
    } else if (g.mt_valid) {
        struct pollfd p = {.fd = g.mt_fd, .events = POLLPRI};
        if (poll(&p, 1, 0) == 0) return 0; /* no change since it was read */
    }
    g.mt_valid = 0;
    int rc = mt_read();
    if (rc == 0) rc = pl__parse_mountinfo(g.mt_buf, &g.mnts);
    if (rc != 0) {
        mt_drop();
        return rc;
    }
    g.mt_valid = 1;
    return 0;
}

/* ------------------------------------------------------------ entry points */

static DWORD do_collect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    if (!data || !bytes || !objects) return ERROR_INVALID_PARAMETER;
    if (!g.open) {
        *bytes = 0;
        *objects = 0;
        return ERROR_INVALID_HANDLE;
    }
    pl_query_items q;
    pl_query_parse_w(query, &q);
    int want_logical = pl_query_wants(&q, PL_OBJ_LOGICAL_DISK, 0);
    /* A LogicalDisk instance names its parent PhysicalDisk by position, so a
     * query for LogicalDisk brings PhysicalDisk along (as Thread brings
     * Process). */
    int want_physical = pl_query_wants(&q, PL_OBJ_PHYSICAL_DISK, 0) || want_logical;
    if (!want_physical) return nothing(bytes, objects);

    const char *root = pl__sysroot();
    int rootfd = pl__root_open(root, "");
    if (rootfd < 0) return nothing(bytes, objects);
    /* The mount table first: its statvfs() calls then run on the space
     * thread while this one reads /sys/block (the order of the instances
     * does not depend on the order of reading). */
    pd_view view;
    if (want_logical) pl__pds_view(&view);
    int have_mounts = want_logical && read_mount_table(root, rootfd, &view) == 0;
    int rc = pl__read_diskstats(rootfd, &g.ds);
    /* A diskstats with no line that parses (empty, or all malformed) is as
     * unreadable as a missing one: no disk list, never a _Total of zeros
     * shown as valid (issue 11 item 8). */
    if (rc == 0 && g.ds.n == 0) rc = -EINVAL;
    uint64_t stamp = (uint64_t)pl__perf_time_now();
    int sbfd = rc == 0 ? pl__root_open(root, "sys/block") : -1;
    if (rc != 0 || sbfd < 0) {
        /* Without diskstats or /sys/block there is no honest disk list. */
        close(rootfd);
        if (sbfd >= 0) close(sbfd);
        return rc == -ENOMEM ? ERROR_OUTOFMEMORY : nothing(bytes, objects);
    }
    unsigned nf = min_nfields();
    DWORD ret = ERROR_SUCCESS;
    size_t out_n = 0; /* statvfs() calls handed over and not yet waited for */
    struct timespec dl = {0, 0};
    if (pl__grow((void **)&g.pd, &g.pd_cap, g.ds.n + 1, sizeof *g.pd) ||
        pl__grow((void **)&g.names, &g.names_cap, g.ds.n + 1, sizeof *g.names) ||
        pl__grow((void **)&g.par, &g.par_cap, g.ds.n + 1, sizeof *g.par)) {
        ret = ERROR_OUTOFMEMORY;
        goto out;
    }

    /* Mounted filesystems on those devices: the first choice, and its
     * statvfs() calls handed to the space thread. */
    size_t nld = 0;
    unsigned round = 0;
    int can_ask = 0;
    if (have_mounts) {
        if (pl__grow((void **)&g.ld, &g.ld_cap, g.mnts.n + 1, sizeof *g.ld) ||
            pl__grow((void **)&g.mds, &g.mds_cap, g.mnts.n + 1, sizeof *g.mds) ||
            pl__grow((void **)&g.ms, &g.ms_cap, g.mnts.n + 1, sizeof *g.ms)) {
            ret = ERROR_OUTOFMEMORY;
            goto out;
        }
        for (size_t i = 0; i < g.mnts.n; i++) g.mds[i] = mount_device(&g.mnts.m[i]);
        memset(g.ms, 0, g.mnts.n * sizeof *g.ms);
        can_ask = pl__pds_ready(&view);
        if (choose(root, can_ask, round, &nld) < 0) {
            ret = ERROR_OUTOFMEMORY;
            goto out;
        }
        if (can_ask) {
            deadline_in(&dl, strcmp(root, "/") == 0 ? SPACE_DEADLINE_MS : SPACE_DEADLINE_OTHER_ROOT_MS);
            out_n = pl__pds_go(getenv(STALL_ENV));
        }
    }

    /* Whole disks, in diskstats order. Size Megabytes is offered when one
     * disk has a size; a disk without one has it marked unavailable. */
    size_t npd = 0;
    int have_size = 0;
    int cached = strcmp(root, "/") == 0 && refresh_devices(sbfd) == 0;
    for (size_t i = 0; i < g.ds.n; i++) {
        const struct pl__diskstat *d = &g.ds.d[i];
        g.par[i] = -2;
        int disk = cached ? g.dc[i].is_disk : pl__sysblock_is_disk(sbfd, d->name) == 1;
        if (!disk || placeholder(d)) continue;
        struct pdisk *p = &g.pd[npd];
        p->ds = i;
        uint64_t sectors;
        int src = disk_size(sbfd, i, cached, &sectors);
        if (src == -ENOENT && pl__sysblock_is_disk(sbfd, d->name) != 1) { /* vanished */
            if (cached) g.dc[i].is_disk = 0;
            continue;
        }
        p->have_size = src == 0;
        p->size_mb = src == 0 ? sectors * SECTOR / MB : 0;
        if (p->have_size) have_size = 1;
        g.names[npd] = d->name;
        npd++;
    }

    if (have_mounts) {
        /* Parents of the devices chosen so far (a later choice only changes
         * which mount of a device is shown, or drops the device). */
        for (size_t i = 0; i < nld; i++) (void)parent_of(sbfd, g.ld[i].ds, npd);
        /* The answers; another round only when one showed a mount gone and
         * another mount of its device is then considered. */
        while (out_n) {
            size_t done = pl__pds_wait(&dl);
            take_answers(round, done);
            if (done < out_n) can_ask = 0; /* abandoned: no new batch this time */
            out_n = 0;
            round++;
            if (can_ask) can_ask = pl__pds_ready(&view);
            long nask = choose(root, can_ask, round, &nld);
            if (nask < 0) {
                ret = ERROR_OUTOFMEMORY;
                goto out;
            }
            if (nask) out_n = pl__pds_go(getenv(STALL_ENV));
        }
        for (size_t i = 0; i < nld; i++) g.ld[i].parent = parent_of(sbfd, g.ld[i].ds, npd);
    }

    pl_builder_reset(g.b);
    int brc = build_physical(npd, nf, have_size, stamp);
    if (brc == PL_OK && want_logical) brc = build_logical(nld, nf, stamp);
    if (brc != PL_OK) {
        ret = brc == PL_E_NOMEM ? ERROR_OUTOFMEMORY : ERROR_INVALID_PARAMETER;
        goto out;
    }
    ret = pl_provider_emit(g.b, data, bytes, objects);
out:
    /* Never leave a batch out that nobody waits for (an error above). */
    if (out_n) (void)pl__pds_wait(&dl);
    if (ret != ERROR_SUCCESS) {
        *bytes = 0;
        *objects = 0;
    }
    close(sbfd);
    close(rootfd);
    return ret;
}

static DWORD do_close(void)
{
    if (g.open > 1) {
        g.open--;
        return ERROR_SUCCESS;
    }
    pl__kept_close();
    pl_builder_free(g.b);
    pl__diskstats_free(&g.ds);
    pl__mounts_free(&g.mnts);
    free(g.pd);
    free(g.ld);
    free(g.names);
    free(g.mds);
    free(g.ms);
    free(g.par);
    mt_drop();
    free(g.mt_buf);
    dc_forget(); /* in a forked child too: its own copies of the descriptors */
    free(g.dc);
    free(g.dc_new);
    pl__pds_stop();
    memset(&g, 0, sizeof g);
    return ERROR_SUCCESS;
}

/* Unloaded without a last Close (a host that dlcloses, a program that
 * exits): the space thread must not outlive the code it runs, and what Open
 * took is given back. A space thread still out (stuck in statvfs) pinned
 * the library, so this then runs only at exit, and leaves that thread
 * alone; so is a collection still running on another thread. */
__attribute__((destructor)) static void perfdisk_unload(void)
{
    if (pthread_mutex_trylock(&lock) != 0) return;
    if (g.open) {
        g.open = 1;
        (void)do_close();
    } else {
        pl__pds_stop();
    }
    pthread_mutex_unlock(&lock);
}

/* Every source waits on nothing that can stay blocked: /proc/diskstats,
 * /proc/self/mountinfo and /sys/block are kernel text, and the statvfs()
 * calls of LogicalDisk, which walk a path and ask the file system (a hung
 * device or a network mount on the way can block them), run on the space
 * thread, waited for at most SPACE_DEADLINE_MS. So every Collect may run on
 * the caller's thread, on the live root; any other root (PERFLIB_SYSROOT)
 * may itself be a FUSE or network mount, where reading the text files can
 * block too: it keeps the host's watchdog (docs/providers/perfdisk.md). */
DWORD PerfDiskCollectNonBlocking(LPCWSTR query)
{
    (void)query;
    return strcmp(pl__sysroot(), "/") == 0;
}

DWORD PerfDiskOpen(LPWSTR device_names)
{
    pthread_mutex_lock(&lock);
    DWORD rc = do_open(device_names);
    pthread_mutex_unlock(&lock);
    return rc;
}

DWORD PerfDiskCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    pthread_mutex_lock(&lock);
    DWORD rc = do_collect(query, data, bytes, objects);
    pthread_mutex_unlock(&lock);
    return rc;
}

DWORD PerfDiskClose(void)
{
    pthread_mutex_lock(&lock);
    DWORD rc = do_close();
    pthread_mutex_unlock(&lock);
    return rc;
}
