/* Tests of libperfdisk.so through dlopen(), as the host loads it: canned
 * trees under data/ (PERFLIB_SYSROOT) and cross-checks against this machine. */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "pl_test.h"
#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/winperf.h"

#define M1 PL_SOURCE_DIR "/tests/perfdisk/data/m1"
#define OLD PL_SOURCE_DIR "/tests/perfdisk/data/old"

static void *lib;
static PM_OPEN_PROC p_open;
static PM_COLLECT_PROC p_collect;
static PM_CLOSE_PROC p_close;

static void load(const char *root)
{
    if (root) setenv("PERFLIB_SYSROOT", root, 1);
    else unsetenv("PERFLIB_SYSROOT");
    lib = dlopen(PERFDISK_SO, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(lib);
    p_open = (PM_OPEN_PROC)dlsym(lib, "PerfDiskOpen");
    p_collect = (PM_COLLECT_PROC)dlsym(lib, "PerfDiskCollect");
    p_close = (PM_CLOSE_PROC)dlsym(lib, "PerfDiskClose");
    assert_non_null(p_open);
    assert_non_null(p_collect);
    assert_non_null(p_close);
    /* Internals stay hidden. */
    assert_null(dlsym(lib, "pl_builder_new"));
    assert_null(dlsym(lib, "pl__read_diskstats"));
}

static void unload(void)
{
    assert_int_equal(p_close(), 0);
    dlclose(lib);
    lib = NULL;
}

static void widen(const char *s, WCHAR *w, size_t cap)
{
    size_t i = 0;
    for (; s[i] && i + 1 < cap; i++) w[i] = (WCHAR)(unsigned char)s[i];
    w[i] = 0;
}

struct result {
    uint8_t *buf;
    DWORD bytes, objects;
    pl_block blk;
};

/* Collect with a buffer grown from 8 bytes until it fits, checking the
 * MORE_DATA contract on the way; then open the result with the reader. */
static void collect(const char *query, struct result *r)
{
    WCHAR wq[128];
    widen(query, wq, 128);
    size_t cap = 8;
    for (;;) {
        uint8_t *buf = malloc(cap + 16);
        assert_non_null(buf);
        memset(buf, 0xAB, cap + 16);
        LPVOID data = buf;
        DWORD bytes = (DWORD)cap, objects = 77;
        DWORD rc = p_collect(wq, &data, &bytes, &objects);
        if (rc == ERROR_MORE_DATA) {
            assert_ptr_equal(data, buf);
            assert_int_equal(bytes, 0);
            assert_int_equal(objects, 0);
            for (size_t i = 0; i < cap + 16; i++) assert_int_equal(buf[i], 0xAB);
            free(buf);
            cap *= 2;
            assert_true(cap < (1u << 24));
            continue;
        }
        assert_int_equal(rc, ERROR_SUCCESS);
        assert_ptr_equal((uint8_t *)data, buf + bytes);
        assert_int_equal(bytes % 8, 0);
        assert_true(bytes <= cap);
        for (size_t i = bytes; i < cap + 16; i++) assert_int_equal(buf[i], 0xAB);
        r->buf = buf;
        r->bytes = bytes;
        r->objects = objects;
        break;
    }
    pl_error err = {0};
    assert_int_equal(pl_block_open(&r->blk, r->buf, r->bytes, PL_BLOCK_BARE, r->objects, &err), PL_OK);
}

static void find_object(const struct result *r, uint32_t index, pl_object *o)
{
    assert_int_equal(pl_block_find_object(&r->blk, index, o), PL_OK);
}

static int32_t find_instance(const pl_object *o, const char *name)
{
    uint32_t n = pl_object_num_instances(o);
    for (uint32_t i = 0; i < n; i++) {
        pl_instance in;
        char buf[256];
        assert_int_equal(pl_object_instance(o, (int32_t)i, &in), PL_OK);
        assert_int_equal(pl_instance_name(&in, buf, sizeof buf), PL_OK);
        if (strcmp(buf, name) == 0) return (int32_t)i;
    }
    fail_msg("no instance %s", name);
    return -1;
}

static uint64_t value(const pl_object *o, const char *inst, uint32_t ctr)
{
    pl_counter c;
    pl_instance in;
    assert_int_equal(pl_object_find_counter(o, ctr, &c), PL_OK);
    assert_int_equal(pl_object_instance(o, find_instance(o, inst), &in), PL_OK);
    uint64_t v;
    assert_int_equal(pl_counter_value(&c, &in, &v), PL_OK);
    return v;
}

static uint64_t base(const pl_object *o, const char *inst, uint32_t ctr)
{
    pl_counter c;
    pl_instance in;
    assert_int_equal(pl_object_find_counter(o, ctr, &c), PL_OK);
    assert_true(c.has_base);
    assert_int_equal(pl_object_instance(o, find_instance(o, inst), &in), PL_OK);
    uint64_t v;
    assert_int_equal(pl_counter_base(&c, &in, &v), PL_OK);
    return v;
}

static uint32_t ctype(const pl_object *o, uint32_t ctr)
{
    pl_counter c;
    assert_int_equal(pl_object_find_counter(o, ctr, &c), PL_OK);
    return c.def.CounterType;
}

static void names_are(const pl_object *o, const char *const *want, size_t n, int full)
{
    assert_int_equal(pl_object_num_instances(o), n);
    if (full) {
        char **names = NULL;
        assert_int_equal(pl_object_instance_names(o, &names), PL_OK);
        for (size_t i = 0; i < n; i++) assert_string_equal(names[i], want[i]);
        pl_free(names);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        pl_instance in;
        char buf[256];
        assert_int_equal(pl_object_instance(o, (int32_t)i, &in), PL_OK);
        assert_int_equal(pl_instance_name(&in, buf, sizeof buf), PL_OK);
        assert_string_equal(buf, want[i]);
    }
}

/* ------------------------------------------------------------ canned m1 */

static void physical_instances_m1(void **state)
{
    (void)state;
    load(M1);
    assert_int_equal(p_open(NULL), 0);
    struct result r;
    collect("Global", &r);
    assert_int_equal(r.objects, 2);
    pl_object o;
    assert_int_equal(pl_block_object(&r.blk, 0, &o), PL_OK);
    assert_int_equal(o.hdr.ObjectNameTitleIndex, PL_OBJ_PHYSICAL_DISK);
    assert_int_equal(o.hdr.ObjectHelpTitleIndex, PL_OBJ_PHYSICAL_DISK + 1);
    /* Partitions, and the never-used loop1, are not disks. */
    static const char *const want[] = {"sda", "nvme0n1", "loop0", "dm-0", "_Total"};
    names_are(&o, want, 5, 0);
    free(r.buf);
    unload();
}

static void physical_values_m1(void **state)
{
    (void)state;
    load(M1);
    assert_int_equal(p_open(NULL), 0);
    struct result r;
    collect("234", &r);
    assert_int_equal(r.objects, 1);
    pl_object o;
    find_object(&r, PL_OBJ_PHYSICAL_DISK, &o);
    /* sda: 1000 100 80000 2000 500 50 40000 3000 2 2500 5000 10 1 800 20 30 40 */
    assert_int_equal(value(&o, "sda", PL_CTR_CURRENT_DISK_QUEUE_LENGTH), 2);
    assert_int_equal(ctype(&o, PL_CTR_CURRENT_DISK_QUEUE_LENGTH), PERF_COUNTER_RAWCOUNT);
    assert_int_equal(value(&o, "sda", PL_CTR_PCT_DISK_TIME), 5000ull * 10000);
    assert_int_equal(ctype(&o, PL_CTR_PCT_DISK_TIME), PERF_PRECISION_100NS_TIMER);
    assert_int_equal(value(&o, "sda", PL_CTR_PCT_DISK_READ_TIME), 2000ull * 10000);
    assert_int_equal(value(&o, "sda", PL_CTR_PCT_DISK_WRITE_TIME), 3000ull * 10000);
    assert_int_equal(value(&o, "sda", PL_CTR_AVG_DISK_QUEUE_LENGTH), 5000ull * 10000);
    assert_int_equal(ctype(&o, PL_CTR_AVG_DISK_QUEUE_LENGTH), PERF_COUNTER_100NS_QUEUELEN_TYPE);
    assert_int_equal(value(&o, "sda", PL_CTR_AVG_DISK_READ_QUEUE_LENGTH), 2000ull * 10000);
    assert_int_equal(value(&o, "sda", PL_CTR_AVG_DISK_WRITE_QUEUE_LENGTH), 3000ull * 10000);
    assert_int_equal(value(&o, "sda", PL_CTR_AVG_DISK_SEC_PER_TRANSFER), 5000ull * 10000);
    assert_int_equal(base(&o, "sda", PL_CTR_AVG_DISK_SEC_PER_TRANSFER), 1500);
    assert_int_equal(ctype(&o, PL_CTR_AVG_DISK_SEC_PER_TRANSFER), PERF_AVERAGE_TIMER);
    assert_int_equal(value(&o, "sda", PL_CTR_AVG_DISK_SEC_PER_READ), 2000ull * 10000);
    assert_int_equal(base(&o, "sda", PL_CTR_AVG_DISK_SEC_PER_READ), 1000);
    assert_int_equal(value(&o, "sda", PL_CTR_AVG_DISK_SEC_PER_WRITE), 3000ull * 10000);
    assert_int_equal(base(&o, "sda", PL_CTR_AVG_DISK_SEC_PER_WRITE), 500);
    assert_int_equal(value(&o, "sda", PL_CTR_DISK_TRANSFERS_PER_SEC), 1500);
    assert_int_equal(ctype(&o, PL_CTR_DISK_TRANSFERS_PER_SEC), PERF_COUNTER_BULK_COUNT);
    assert_int_equal(value(&o, "sda", PL_CTR_DISK_READS_PER_SEC), 1000);
    assert_int_equal(value(&o, "sda", PL_CTR_DISK_WRITES_PER_SEC), 500);
    assert_int_equal(value(&o, "sda", PL_CTR_DISK_BYTES_PER_SEC), 120000ull * 512);
    assert_int_equal(value(&o, "sda", PL_CTR_DISK_READ_BYTES_PER_SEC), 80000ull * 512);
    assert_int_equal(value(&o, "sda", PL_CTR_DISK_WRITE_BYTES_PER_SEC), 40000ull * 512);
    assert_int_equal(value(&o, "sda", PL_CTR_AVG_DISK_BYTES_PER_TRANSFER), 120000ull * 512);
    assert_int_equal(base(&o, "sda", PL_CTR_AVG_DISK_BYTES_PER_TRANSFER), 1500);
    assert_int_equal(ctype(&o, PL_CTR_AVG_DISK_BYTES_PER_TRANSFER), PERF_AVERAGE_BULK);
    assert_int_equal(value(&o, "sda", PL_CTR_AVG_DISK_BYTES_PER_READ), 80000ull * 512);
    assert_int_equal(base(&o, "sda", PL_CTR_AVG_DISK_BYTES_PER_READ), 1000);
    assert_int_equal(value(&o, "sda", PL_CTR_AVG_DISK_BYTES_PER_WRITE), 40000ull * 512);
    assert_int_equal(base(&o, "sda", PL_CTR_AVG_DISK_BYTES_PER_WRITE), 500);
    assert_int_equal(value(&o, "sda", PL_CTR_DISCARDS_PER_SEC), 10);
    assert_int_equal(value(&o, "sda", PL_CTR_DISCARD_BYTES_PER_SEC), 800ull * 512);
    assert_int_equal(value(&o, "sda", PL_CTR_FLUSHES_PER_SEC), 30);
    assert_int_equal(value(&o, "sda", PL_CTR_SIZE_MEGABYTES), 953869);
    assert_int_equal(value(&o, "nvme0n1", PL_CTR_SIZE_MEGABYTES), 488386);
    assert_int_equal(value(&o, "nvme0n1", PL_CTR_FLUSHES_PER_SEC), 100);
    assert_int_equal(value(&o, "dm-0", PL_CTR_DISK_READS_PER_SEC), 300);
    /* No split-I/O count in the kernel: the counter is not offered. */
    pl_counter c;
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_SPLIT_IO_PER_SEC, &c), PL_E_NOT_FOUND);
    /* % Idle Time: idle = timestamp - busy; one timestamp for every disk. */
    uint64_t stamp = base(&o, "sda", PL_CTR_PCT_IDLE_TIME_DISK);
    assert_true(stamp > 0);
    assert_int_equal(ctype(&o, PL_CTR_PCT_IDLE_TIME_DISK), PERF_PRECISION_100NS_TIMER);
    assert_int_equal(value(&o, "sda", PL_CTR_PCT_IDLE_TIME_DISK), stamp - 2500ull * 10000);
    assert_int_equal(value(&o, "nvme0n1", PL_CTR_PCT_IDLE_TIME_DISK), stamp - 6000ull * 10000);
    assert_int_equal(base(&o, "nvme0n1", PL_CTR_PCT_DISK_TIME), stamp);
    assert_int_equal(base(&o, "sda", PL_CTR_PCT_DISK_READ_TIME), stamp);
    free(r.buf);
    unload();
}

static void physical_total_m1(void **state)
{
    (void)state;
    load(M1);
    assert_int_equal(p_open(NULL), 0);
    struct result r;
    collect("234", &r);
    pl_object o;
    find_object(&r, PL_OBJ_PHYSICAL_DISK, &o);
    /* sda + nvme0n1 + loop0 + dm-0 */
    assert_int_equal(value(&o, "_Total", PL_CTR_DISK_READS_PER_SEC), 1000 + 2000 + 50 + 300);
    assert_int_equal(value(&o, "_Total", PL_CTR_DISK_WRITES_PER_SEC), 500 + 4000 + 0 + 100);
    assert_int_equal(value(&o, "_Total", PL_CTR_DISK_READ_BYTES_PER_SEC), (80000ull + 160000 + 400 + 24000) * 512);
    assert_int_equal(value(&o, "_Total", PL_CTR_CURRENT_DISK_QUEUE_LENGTH), 2);
    assert_int_equal(value(&o, "_Total", PL_CTR_AVG_DISK_QUEUE_LENGTH), (5000ull + 9000 + 10 + 1000) * 10000);
    assert_int_equal(value(&o, "_Total", PL_CTR_SIZE_MEGABYTES), 953869 + 488386 + 64 + 204800);
    assert_int_equal(base(&o, "_Total", PL_CTR_AVG_DISK_SEC_PER_READ), 3350);
    /* Percentages of _Total are averages over the disks: the timestamp base
     * is the sum of the disks' bases. */
    uint64_t stamp = base(&o, "sda", PL_CTR_PCT_DISK_TIME);
    assert_int_equal(base(&o, "_Total", PL_CTR_PCT_DISK_TIME), 4 * stamp);
    assert_int_equal(value(&o, "_Total", PL_CTR_PCT_IDLE_TIME_DISK),
                     4 * stamp - (2500ull + 6000 + 10 + 700) * 10000);
    free(r.buf);
    unload();
}

static void logical_m1(void **state)
{
    (void)state;
    load(M1);
    assert_int_equal(p_open(NULL), 0);
    struct statvfs before[3], after[3];
    static const char *const paths[] = {M1, M1 "/home", M1 "/data disk"};
    for (int i = 0; i < 3; i++) assert_int_equal(statvfs(paths[i], &before[i]), 0);
    struct result r;
    collect("236", &r);
    for (int i = 0; i < 3; i++) assert_int_equal(statvfs(paths[i], &after[i]), 0);
    /* LogicalDisk brings its parent object along. */
    assert_int_equal(r.objects, 2);
    pl_object o;
    find_object(&r, PL_OBJ_LOGICAL_DISK, &o);
    /* tmpfs, proc, sysfs and overlay are not on block devices; the bind mount
     * of sda1 is the same device as "/"; /snap/core has no directory in the
     * canned tree, so statvfs() fails and it is left out. */
    static const char *const own[] = {"/", "/home", "/data disk", "_Total"};
    names_are(&o, own, 4, 0);
    static const char *const full[] = {"sda//", "dm-0//home", "nvme0n1//data disk", "_Total"};
    names_are(&o, full, 4, 1);
    pl_instance in;
    assert_int_equal(pl_object_instance(&o, 1, &in), PL_OK);
    assert_int_equal(in.def.ParentObjectTitleIndex, PL_OBJ_PHYSICAL_DISK);
    assert_int_equal(in.def.ParentObjectInstance, 3);
    assert_int_equal(pl_object_instance(&o, 3, &in), PL_OK);
    assert_int_equal(in.def.ParentObjectTitleIndex, 0);
    /* Space, checked against statvfs() taken around the collection. */
    uint64_t tot_free = 0, tot_size = 0;
    for (int i = 0; i < 3; i++) {
        uint64_t fr = before[i].f_frsize;
        uint64_t f0 = before[i].f_bavail * fr / 1048576, f1 = after[i].f_bavail * fr / 1048576;
        uint64_t size = before[i].f_blocks * fr / 1048576;
        uint64_t lo = (f0 < f1 ? f0 : f1), hi = (f0 < f1 ? f1 : f0);
        uint64_t v = value(&o, own[i], PL_CTR_FREE_MEGABYTES);
        assert_true(v + 16 >= lo && v <= hi + 16);
        assert_int_equal(value(&o, own[i], PL_CTR_SIZE_MEGABYTES), size);
        assert_int_equal(value(&o, own[i], PL_CTR_PCT_FREE_SPACE), v);
        assert_int_equal(base(&o, own[i], PL_CTR_PCT_FREE_SPACE), size);
        tot_free += v;
        tot_size += size;
    }
    assert_int_equal(ctype(&o, PL_CTR_PCT_FREE_SPACE), PERF_RAW_FRACTION);
    assert_int_equal(value(&o, "_Total", PL_CTR_FREE_MEGABYTES), tot_free);
    assert_int_equal(base(&o, "_Total", PL_CTR_PCT_FREE_SPACE), tot_size);
    /* I/O from the partition's own line (sda1), not the disk's. */
    assert_int_equal(value(&o, "/", PL_CTR_DISK_READS_PER_SEC), 600);
    assert_int_equal(value(&o, "/", PL_CTR_CURRENT_DISK_QUEUE_LENGTH), 1);
    assert_int_equal(value(&o, "/", PL_CTR_AVG_DISK_QUEUE_LENGTH), 3000ull * 10000);
    assert_int_equal(value(&o, "/home", PL_CTR_DISK_WRITE_BYTES_PER_SEC), 8000ull * 512);
    assert_int_equal(value(&o, "_Total", PL_CTR_DISK_READS_PER_SEC), 600 + 300 + 2000);
    free(r.buf);
    unload();
}

/* ------------------------------------------------------- canned old kernel */

static void old_kernel_14_columns(void **state)
{
    (void)state;
    load(OLD);
    assert_int_equal(p_open(NULL), 0);
    struct result r;
    collect("", &r);
    assert_int_equal(r.objects, 2);
    pl_object o;
    find_object(&r, PL_OBJ_PHYSICAL_DISK, &o);
    static const char *const pd[] = {"sda", "hdb", "_Total"};
    names_are(&o, pd, 3, 0);
    /* The kernel has no discard or flush fields: no such counters. */
    pl_counter c;
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_DISCARDS_PER_SEC, &c), PL_E_NOT_FOUND);
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_FLUSHES_PER_SEC, &c), PL_E_NOT_FOUND);
    assert_int_equal(value(&o, "sda", PL_CTR_PCT_DISK_TIME), 10000ull * 10000);
    assert_int_equal(value(&o, "hdb", PL_CTR_SIZE_MEGABYTES), 0);
    assert_int_equal(value(&o, "sda", PL_CTR_SIZE_MEGABYTES), 152627);
    find_object(&r, PL_OBJ_LOGICAL_DISK, &o);
    /* /proc/mounts: matched by /dev/<name>; rootfs and /dev/sdb1 (not in
     * diskstats) are left out. */
    static const char *const ld[] = {"sda//", "hdb//mnt/usb", "_Total"};
    names_are(&o, ld, 3, 1);
    assert_int_equal(value(&o, "/", PL_CTR_DISK_WRITES_PER_SEC), 900);
    free(r.buf);
    unload();
}

/* ------------------------------------------------------- query handling */

static void queries(void **state)
{
    (void)state;
    load(M1);
    assert_int_equal(p_open(NULL), 0);
    static const char *const none[] = {"510", "Costly", "Foreign host", "ABCD", "2 4 238"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        uint8_t buf[64];
        LPVOID data = buf;
        DWORD bytes = sizeof buf, objects = 9;
        WCHAR wq[64];
        widen(none[i], wq, 64);
        assert_int_equal(p_collect(wq, &data, &bytes, &objects), ERROR_SUCCESS);
        assert_int_equal(bytes, 0);
        assert_int_equal(objects, 0);
        assert_ptr_equal(data, buf);
    }
    struct result r;
    collect("238 234", &r);
    assert_int_equal(r.objects, 1);
    free(r.buf);
    collect("236 234", &r);
    assert_int_equal(r.objects, 2);
    free(r.buf);
    /* NULL query is Global. */
    uint8_t *buf = malloc(1 << 16);
    LPVOID data = buf;
    DWORD bytes = 1 << 16, objects = 0;
    assert_int_equal(p_collect(NULL, &data, &bytes, &objects), ERROR_SUCCESS);
    assert_int_equal(objects, 2);
    free(buf);
    unload();
}

static void collect_before_open(void **state)
{
    (void)state;
    load(M1);
    uint8_t buf[64];
    LPVOID data = buf;
    DWORD bytes = sizeof buf, objects = 5;
    assert_int_equal(p_collect(NULL, &data, &bytes, &objects), ERROR_INVALID_HANDLE);
    assert_int_equal(bytes, 0);
    assert_int_equal(objects, 0);
    assert_ptr_equal(data, buf);
    unload();
}

static void empty_root(void **state)
{
    (void)state;
    load(PL_SOURCE_DIR "/tests/perfdisk");
    assert_int_equal(p_open(NULL), 0);
    uint8_t buf[64];
    LPVOID data = buf;
    DWORD bytes = sizeof buf, objects = 5;
    assert_int_equal(p_collect(NULL, &data, &bytes, &objects), ERROR_SUCCESS);
    assert_int_equal(bytes, 0);
    assert_int_equal(objects, 0);
    /* Open twice, collect again, close: state is reused. */
    assert_int_equal(p_open(NULL), 0);
    unload();
}

/* Repeated collections reuse the builder and give the same layout. */
static void repeated_collections(void **state)
{
    (void)state;
    load(M1);
    assert_int_equal(p_open(NULL), 0);
    struct result a, b;
    collect("Global", &a);
    collect("Global", &b);
    assert_int_equal(a.bytes, b.bytes);
    assert_int_equal(a.objects, b.objects);
    free(a.buf);
    free(b.buf);
    unload();
}

/* --------------------------------------------------------------- live */

static int is_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static void live_physical_disks(void **state)
{
    (void)state;
    /* Count /sys/block independently: every entry, except loop and ram
     * devices that have never completed an I/O (read from their own stat). */
    char want[256][64];
    size_t nwant = 0;
    DIR *d = opendir("/sys/block");
    if (!d) skip();
    struct dirent *e;
    while ((e = readdir(d)) != NULL && nwant < 256) {
        if (e->d_name[0] == '.') continue;
        if (is_prefix(e->d_name, "loop") || is_prefix(e->d_name, "ram")) {
            char p[512], buf[512];
            snprintf(p, sizeof p, "/sys/block/%s/stat", e->d_name);
            FILE *f = fopen(p, "r");
            if (!f) continue;
            unsigned long long v[17] = {0};
            size_t got = fread(buf, 1, sizeof buf - 1, f);
            fclose(f);
            buf[got] = 0;
            char *s = buf;
            for (int k = 0; k < 17; k++) v[k] = strtoull(s, &s, 10);
            if (v[0] + v[4] + v[8] + v[11] + v[15] == 0) continue;
        }
        snprintf(want[nwant++], 64, "%.63s", e->d_name);
    }
    closedir(d);
    load(NULL);
    assert_int_equal(p_open(NULL), 0);
    struct result r;
    collect("234", &r);
    pl_object o;
    find_object(&r, PL_OBJ_PHYSICAL_DISK, &o);
    uint32_t n = pl_object_num_instances(&o);
    assert_int_equal(n, nwant + 1);
    for (size_t i = 0; i < nwant; i++) {
        int found = 0;
        for (uint32_t k = 0; k < n; k++) {
            pl_instance in;
            char buf[256];
            assert_int_equal(pl_object_instance(&o, (int32_t)k, &in), PL_OK);
            assert_int_equal(pl_instance_name(&in, buf, sizeof buf), PL_OK);
            char sys[64];
            snprintf(sys, sizeof sys, "%.63s", buf);
            for (char *q = sys; *q; q++)
                if (*q == '/') *q = '!';
            if (strcmp(sys, want[i]) == 0) found = 1;
        }
        assert_true(found);
    }
    free(r.buf);
    unload();
}

static long long df_available_mb(void)
{
    FILE *p = popen("df -m -P / 2>/dev/null", "r");
    if (!p) return -1;
    char line[512];
    long long avail = -1;
    int ln = 0;
    while (fgets(line, sizeof line, p)) {
        if (ln++ == 0) continue;
        /* Filesystem 1M-blocks Used Available Capacity Mounted-on */
        char *s = line;
        for (int field = 0; field < 3; field++) {
            while (*s && *s != ' ') s++;
            while (*s == ' ') s++;
        }
        avail = strtoll(s, NULL, 10);
    }
    pclose(p);
    return avail;
}

static void live_root_free_space(void **state)
{
    (void)state;
    struct statvfs before, after;
    assert_int_equal(statvfs("/", &before), 0);
    load(NULL);
    assert_int_equal(p_open(NULL), 0);
    struct result r;
    collect("236", &r);
    assert_int_equal(statvfs("/", &after), 0);
    pl_object o;
    find_object(&r, PL_OBJ_LOGICAL_DISK, &o);
    int has_root = 0;
    uint32_t n = pl_object_num_instances(&o);
    for (uint32_t k = 0; k < n; k++) {
        pl_instance in;
        char buf[256];
        assert_int_equal(pl_object_instance(&o, (int32_t)k, &in), PL_OK);
        assert_int_equal(pl_instance_name(&in, buf, sizeof buf), PL_OK);
        if (strcmp(buf, "/") == 0) has_root = 1;
    }
    if (!has_root) {
        /* "/" is not on a block device here (overlay, tmpfs): nothing to check. */
        free(r.buf);
        unload();
        skip();
    }
    uint64_t v = value(&o, "/", PL_CTR_FREE_MEGABYTES);
    uint64_t f0 = before.f_bavail * before.f_frsize / 1048576, f1 = after.f_bavail * after.f_frsize / 1048576;
    uint64_t lo = f0 < f1 ? f0 : f1, hi = f0 < f1 ? f1 : f0;
    assert_true(v + 64 >= lo && v <= hi + 64);
    long long df = df_available_mb();
    if (df >= 0) assert_true((long long)v > df - 256 && (long long)v < df + 256);
    free(r.buf);
    unload();
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(physical_instances_m1),
        cmocka_unit_test(physical_values_m1),
        cmocka_unit_test(physical_total_m1),
        cmocka_unit_test(logical_m1),
        cmocka_unit_test(old_kernel_14_columns),
        cmocka_unit_test(queries),
        cmocka_unit_test(collect_before_open),
        cmocka_unit_test(empty_root),
        cmocka_unit_test(repeated_collections),
        cmocka_unit_test(live_physical_disks),
        cmocka_unit_test(live_root_free_space),
    };
    if (argc > 1) cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
