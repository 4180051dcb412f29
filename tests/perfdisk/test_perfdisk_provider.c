/* Tests of libperfdisk.so through dlopen(), as the host loads it: canned
 * trees under data/ (PERFLIB_SYSROOT) and cross-checks against this machine. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "pl_test.h"
#include "disk_live.h"
#include "provider_harness.h"
#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/winperf.h"

#define M1 PL_SOURCE_DIR "/tests/perfdisk/data/m1"
#define OLD PL_SOURCE_DIR "/tests/perfdisk/data/old"

static ph_provider prov;

/* PerfDisk with PERFLIB_SYSROOT = root (NULL: the real "/"). */
static void load(const char *root)
{
    ph_load(&prov, PERFDISK_SO, "PerfDisk", root);
    /* Internals stay hidden. */
    assert_null(dlsym(prov.so, "pl_builder_new"));
    assert_null(dlsym(prov.so, "pl__read_diskstats"));
}

/* ------------------------------------------------------------ canned m1 */

static void physical_instances_m1(void **state)
{
    (void)state;
    load(M1);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "Global", 8, &r);
    assert_int_equal(r.objects, 2);
    pl_object o;
    assert_int_equal(pl_block_object(&r.blk, 0, &o), PL_OK);
    assert_int_equal(o.hdr.ObjectNameTitleIndex, PL_OBJ_PHYSICAL_DISK);
    assert_int_equal(o.hdr.ObjectHelpTitleIndex, PL_OBJ_PHYSICAL_DISK + 1);
    /* Partitions, and the never-used loop1, are not disks. */
    static const char *const want[] = {"sda", "nvme0n1", "loop0", "dm-0", "_Total"};
    ph_names_are(&o, want, 5, 0);
    ph_result_free(&r);
    ph_unload(&prov);
}

static void physical_values_m1(void **state)
{
    (void)state;
    load(M1);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "234", 8, &r);
    assert_int_equal(r.objects, 1);
    pl_object o;
    ph_object(&r, PL_OBJ_PHYSICAL_DISK, &o);
    /* sda: 1000 100 80000 2000 500 50 40000 3000 2 2500 5000 10 1 800 20 30 40 */
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_CURRENT_DISK_QUEUE_LENGTH), 2);
    assert_int_equal(ph_type(&o, PL_CTR_CURRENT_DISK_QUEUE_LENGTH), PERF_COUNTER_RAWCOUNT);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_PCT_DISK_TIME), 5000ull * 10000);
    assert_int_equal(ph_type(&o, PL_CTR_PCT_DISK_TIME), PERF_PRECISION_100NS_TIMER);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_PCT_DISK_READ_TIME), 2000ull * 10000);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_PCT_DISK_WRITE_TIME), 3000ull * 10000);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_AVG_DISK_QUEUE_LENGTH), 5000ull * 10000);
    assert_int_equal(ph_type(&o, PL_CTR_AVG_DISK_QUEUE_LENGTH), PERF_COUNTER_100NS_QUEUELEN_TYPE);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_AVG_DISK_READ_QUEUE_LENGTH), 2000ull * 10000);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_AVG_DISK_WRITE_QUEUE_LENGTH), 3000ull * 10000);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_AVG_DISK_SEC_PER_TRANSFER), 5000ull * 10000);
    assert_int_equal(ph_base_of(&o, "sda", PL_CTR_AVG_DISK_SEC_PER_TRANSFER), 1500);
    assert_int_equal(ph_type(&o, PL_CTR_AVG_DISK_SEC_PER_TRANSFER), PERF_AVERAGE_TIMER);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_AVG_DISK_SEC_PER_READ), 2000ull * 10000);
    assert_int_equal(ph_base_of(&o, "sda", PL_CTR_AVG_DISK_SEC_PER_READ), 1000);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_AVG_DISK_SEC_PER_WRITE), 3000ull * 10000);
    assert_int_equal(ph_base_of(&o, "sda", PL_CTR_AVG_DISK_SEC_PER_WRITE), 500);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_DISK_TRANSFERS_PER_SEC), 1500);
    assert_int_equal(ph_type(&o, PL_CTR_DISK_TRANSFERS_PER_SEC), PERF_COUNTER_BULK_COUNT);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_DISK_READS_PER_SEC), 1000);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_DISK_WRITES_PER_SEC), 500);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_DISK_BYTES_PER_SEC), 120000ull * 512);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_DISK_READ_BYTES_PER_SEC), 80000ull * 512);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_DISK_WRITE_BYTES_PER_SEC), 40000ull * 512);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_AVG_DISK_BYTES_PER_TRANSFER), 120000ull * 512);
    assert_int_equal(ph_base_of(&o, "sda", PL_CTR_AVG_DISK_BYTES_PER_TRANSFER), 1500);
    assert_int_equal(ph_type(&o, PL_CTR_AVG_DISK_BYTES_PER_TRANSFER), PERF_AVERAGE_BULK);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_AVG_DISK_BYTES_PER_READ), 80000ull * 512);
    assert_int_equal(ph_base_of(&o, "sda", PL_CTR_AVG_DISK_BYTES_PER_READ), 1000);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_AVG_DISK_BYTES_PER_WRITE), 40000ull * 512);
    assert_int_equal(ph_base_of(&o, "sda", PL_CTR_AVG_DISK_BYTES_PER_WRITE), 500);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_DISCARDS_PER_SEC), 10);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_DISCARD_BYTES_PER_SEC), 800ull * 512);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_FLUSHES_PER_SEC), 30);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_SIZE_MEGABYTES), 953869);
    assert_int_equal(ph_value_of(&o, "nvme0n1", PL_CTR_SIZE_MEGABYTES), 488386);
    assert_int_equal(ph_value_of(&o, "nvme0n1", PL_CTR_FLUSHES_PER_SEC), 100);
    assert_int_equal(ph_value_of(&o, "dm-0", PL_CTR_DISK_READS_PER_SEC), 300);
    /* No split-I/O count in the kernel: the counter is not offered. */
    pl_counter c;
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_SPLIT_IO_PER_SEC, &c), PL_E_NOT_FOUND);
    /* % Idle Time: idle = timestamp - busy; one timestamp for every disk. */
    uint64_t stamp = ph_base_of(&o, "sda", PL_CTR_PCT_IDLE_TIME_DISK);
    assert_true(stamp > 0);
    assert_int_equal(ph_type(&o, PL_CTR_PCT_IDLE_TIME_DISK), PERF_PRECISION_100NS_TIMER);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_PCT_IDLE_TIME_DISK), stamp - 2500ull * 10000);
    assert_int_equal(ph_value_of(&o, "nvme0n1", PL_CTR_PCT_IDLE_TIME_DISK), stamp - 6000ull * 10000);
    assert_int_equal(ph_base_of(&o, "nvme0n1", PL_CTR_PCT_DISK_TIME), stamp);
    assert_int_equal(ph_base_of(&o, "sda", PL_CTR_PCT_DISK_READ_TIME), stamp);
    /* Everything was read: the marker (last, position 34) is 0 everywhere. */
    assert_int_equal(o.hdr.NumCounters, 35);
    assert_int_equal(ph_position(&o, PL_CTR_SIZE_MEGABYTES), 33);
    assert_int_equal(ph_position(&o, PL_CTR_UNAVAILABLE_COUNTERS), 34);
    assert_int_equal(ph_type(&o, PL_CTR_UNAVAILABLE_COUNTERS), PERF_COUNTER_LARGE_RAWCOUNT_HEX);
    static const char *const all[] = {"sda", "nvme0n1", "loop0", "dm-0", "_Total"};
    for (size_t i = 0; i < 5; i++) assert_int_equal(ph_value_of(&o, all[i], PL_CTR_UNAVAILABLE_COUNTERS), 0);
    ph_result_free(&r);
    ph_unload(&prov);
}

static void physical_total_m1(void **state)
{
    (void)state;
    load(M1);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "234", 8, &r);
    pl_object o;
    ph_object(&r, PL_OBJ_PHYSICAL_DISK, &o);
    /* sda + nvme0n1 + loop0 + dm-0 */
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_DISK_READS_PER_SEC), 1000 + 2000 + 50 + 300);
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_DISK_WRITES_PER_SEC), 500 + 4000 + 0 + 100);
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_DISK_READ_BYTES_PER_SEC), (80000ull + 160000 + 400 + 24000) * 512);
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_CURRENT_DISK_QUEUE_LENGTH), 2);
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_AVG_DISK_QUEUE_LENGTH), (5000ull + 9000 + 10 + 1000) * 10000);
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_SIZE_MEGABYTES), 953869 + 488386 + 64 + 204800);
    assert_int_equal(ph_base_of(&o, "_Total", PL_CTR_AVG_DISK_SEC_PER_READ), 3350);
    /* Percentages of _Total are averages over the disks: the timestamp base
     * is the sum of the disks' bases. */
    uint64_t stamp = ph_base_of(&o, "sda", PL_CTR_PCT_DISK_TIME);
    assert_int_equal(ph_base_of(&o, "_Total", PL_CTR_PCT_DISK_TIME), 4 * stamp);
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_PCT_IDLE_TIME_DISK),
                     4 * stamp - (2500ull + 6000 + 10 + 700) * 10000);
    ph_result_free(&r);
    ph_unload(&prov);
}

static void logical_m1(void **state)
{
    (void)state;
    load(M1);
    assert_int_equal(prov.open(NULL), 0);
    struct statvfs before[3], after[3];
    static const char *const paths[] = {M1, M1 "/home", M1 "/data disk"};
    for (int i = 0; i < 3; i++) assert_int_equal(statvfs(paths[i], &before[i]), 0);
    ph_result r;
    ph_collect_ok(&prov, "236", 8, &r);
    for (int i = 0; i < 3; i++) assert_int_equal(statvfs(paths[i], &after[i]), 0);
    /* LogicalDisk brings its parent object along. */
    assert_int_equal(r.objects, 2);
    pl_object o;
    ph_object(&r, PL_OBJ_LOGICAL_DISK, &o);
    /* tmpfs, proc, sysfs and overlay are not on block devices; the bind mount
     * of sda1 is the same device as "/"; /snap/core has no directory in the
     * canned tree, so statvfs() fails and it is left out. */
    static const char *const own[] = {"/", "/home", "/data disk", "_Total"};
    ph_names_are(&o, own, 4, 0);
    static const char *const full[] = {"sda//", "dm-0//home", "nvme0n1//data disk", "_Total"};
    ph_names_are(&o, full, 4, 1);
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
        uint64_t v = ph_value_of(&o, own[i], PL_CTR_FREE_MEGABYTES);
        assert_true(v + 16 >= lo && v <= hi + 16);
        assert_int_equal(ph_value_of(&o, own[i], PL_CTR_SIZE_MEGABYTES), size);
        assert_int_equal(ph_value_of(&o, own[i], PL_CTR_PCT_FREE_SPACE), v);
        assert_int_equal(ph_base_of(&o, own[i], PL_CTR_PCT_FREE_SPACE), size);
        tot_free += v;
        tot_size += size;
    }
    assert_int_equal(ph_type(&o, PL_CTR_PCT_FREE_SPACE), PERF_RAW_FRACTION);
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_FREE_MEGABYTES), tot_free);
    assert_int_equal(ph_base_of(&o, "_Total", PL_CTR_PCT_FREE_SPACE), tot_size);
    /* I/O from the partition's own line (sda1), not the disk's. */
    assert_int_equal(ph_value_of(&o, "/", PL_CTR_DISK_READS_PER_SEC), 600);
    assert_int_equal(ph_value_of(&o, "/", PL_CTR_CURRENT_DISK_QUEUE_LENGTH), 1);
    assert_int_equal(ph_value_of(&o, "/", PL_CTR_AVG_DISK_QUEUE_LENGTH), 3000ull * 10000);
    assert_int_equal(ph_value_of(&o, "/home", PL_CTR_DISK_WRITE_BYTES_PER_SEC), 8000ull * 512);
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_DISK_READS_PER_SEC), 600 + 300 + 2000);
    assert_int_equal(o.hdr.NumCounters, 38);
    assert_int_equal(ph_position(&o, PL_CTR_UNAVAILABLE_COUNTERS), 37);
    for (int i = 0; i < 4; i++) assert_int_equal(ph_value_of(&o, own[i], PL_CTR_UNAVAILABLE_COUNTERS), 0);
    ph_result_free(&r);
    ph_unload(&prov);
}

/* ------------------------------------------------------- canned old kernel */

static void old_kernel_14_columns(void **state)
{
    (void)state;
    load(OLD);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "", 8, &r);
    assert_int_equal(r.objects, 2);
    pl_object o;
    ph_object(&r, PL_OBJ_PHYSICAL_DISK, &o);
    static const char *const pd[] = {"sda", "hdb", "_Total"};
    ph_names_are(&o, pd, 3, 0);
    /* The kernel has no discard or flush fields: no such counters. */
    pl_counter c;
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_DISCARDS_PER_SEC, &c), PL_E_NOT_FOUND);
    assert_int_equal(pl_object_find_counter(&o, PL_CTR_FLUSHES_PER_SEC, &c), PL_E_NOT_FOUND);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_PCT_DISK_TIME), 10000ull * 10000);
    assert_int_equal(ph_value_of(&o, "hdb", PL_CTR_SIZE_MEGABYTES), 0);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_SIZE_MEGABYTES), 152627);
    ph_object(&r, PL_OBJ_LOGICAL_DISK, &o);
    /* /proc/mounts: matched by /dev/<name>; rootfs and /dev/sdb1 (not in
     * diskstats) are left out. */
    static const char *const ld[] = {"sda//", "hdb//mnt/usb", "_Total"};
    ph_names_are(&o, ld, 3, 1);
    assert_int_equal(ph_value_of(&o, "/", PL_CTR_DISK_WRITES_PER_SEC), 900);
    ph_result_free(&r);
    ph_unload(&prov);
}

/* ------------------------------------------------- unreadable values */

/* sdb has no size file; the mount point /loop is a symlink to itself, so
 * statvfs() fails with ELOOP (even for root); /gone has no directory. */
static void unreadable_values_marked(void **state)
{
    (void)state;
    char dir[] = "/tmp/perfdisk_unavXXXXXX";
    ph_tempdir(dir);
    ph_put(dir, "proc/diskstats",
           "   8       0 sda 100 0 800 10 50 0 400 20 0 30 30 0 0 0 0 0 0\n"
           "   8       1 sda1 60 0 480 6 30 0 240 12 0 18 18 0 0 0 0 0 0\n"
           "   8      16 sdb 200 0 1600 20 70 0 560 40 0 50 60 0 0 0 0 0 0\n"
           "   8      17 sdb1 150 0 1200 15 40 0 320 30 0 40 45 0 0 0 0 0 0\n");
    ph_put(dir, "sys/block/sda/size", "2048000\n");
    ph_put(dir, "sys/block/sda/sda1/partition", "1\n");
    ph_put(dir, "sys/block/sdb/sdb1/partition", "1\n");
    ph_put(dir, "proc/self/mountinfo",
           "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
           "23 22 8:17 / /loop rw,relatime - ext4 /dev/sdb1 rw\n"
           "24 22 8:16 / /gone rw,relatime - ext4 /dev/sdb rw\n");
    char link[512];
    snprintf(link, sizeof link, "%s/loop", dir);
    assert_int_equal(symlink("loop", link), 0);
    struct statvfs sv;
    assert_int_equal(statvfs(dir, &sv), 0);
    uint64_t size = (uint64_t)sv.f_blocks * sv.f_frsize / 1048576;

    load(dir);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "236", 8, &r);
    assert_int_equal(r.objects, 2);
    pl_object o;
    ph_object(&r, PL_OBJ_PHYSICAL_DISK, &o);
    static const char *const pd[] = {"sda", "sdb", "_Total"};
    ph_names_are(&o, pd, 3, 0);
    /* Size Megabytes (position 33) is offered: sda has a size, sdb not. */
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_SIZE_MEGABYTES), 1000);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_UNAVAILABLE_COUNTERS), 0);
    assert_int_equal(ph_value_of(&o, "sdb", PL_CTR_UNAVAILABLE_COUNTERS), 0x200000000ull);
    assert_int_equal(ph_value_of(&o, "sdb", PL_CTR_SIZE_MEGABYTES), 0);
    assert_int_equal(ph_available_of(&o, "sdb", PL_CTR_SIZE_MEGABYTES), 0);
    assert_int_equal(ph_available_of(&o, "sdb", PL_CTR_DISK_READS_PER_SEC), 1);
    assert_int_equal(ph_value_of(&o, "sdb", PL_CTR_DISK_READS_PER_SEC), 200);
    /* _Total: the sum of sizes would be partial, so it is unavailable */
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_UNAVAILABLE_COUNTERS), 0x200000000ull);
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_SIZE_MEGABYTES), 0);
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_DISK_READS_PER_SEC), 300);
    assert_int_equal(ph_available_of(&o, "_Total", PL_CTR_DISK_READS_PER_SEC), 1);

    ph_object(&r, PL_OBJ_LOGICAL_DISK, &o);
    /* /gone is gone (ENOENT): left out; /loop stays, its space unreadable */
    static const char *const ld[] = {"sda//", "sdb//loop", "_Total"};
    ph_names_are(&o, ld, 3, 1);
    assert_int_equal(ph_position(&o, PL_CTR_PCT_FREE_SPACE), 0); /* and its base at 1 */
    assert_int_equal(ph_position(&o, PL_CTR_FREE_MEGABYTES), 2);
    assert_int_equal(ph_position(&o, PL_CTR_SIZE_MEGABYTES), 36);
    assert_int_equal(ph_value_of(&o, "/", PL_CTR_UNAVAILABLE_COUNTERS), 0);
    assert_int_equal(ph_value_of(&o, "/", PL_CTR_SIZE_MEGABYTES), size);
    assert_int_equal(ph_value_of(&o, "/loop", PL_CTR_UNAVAILABLE_COUNTERS), 0x1000000007ull);
    assert_int_equal(ph_value_of(&o, "/loop", PL_CTR_FREE_MEGABYTES), 0);
    assert_int_equal(ph_value_of(&o, "/loop", PL_CTR_SIZE_MEGABYTES), 0);
    assert_int_equal(ph_value_of(&o, "/loop", PL_CTR_PCT_FREE_SPACE), 0);
    assert_int_equal(ph_base_of(&o, "/loop", PL_CTR_PCT_FREE_SPACE), 0);
    assert_int_equal(ph_available_of(&o, "/loop", PL_CTR_PCT_FREE_SPACE), 0);
    assert_int_equal(ph_available_of(&o, "/loop", PL_CTR_FREE_MEGABYTES), 0);
    assert_int_equal(ph_available_of(&o, "/loop", PL_CTR_SIZE_MEGABYTES), 0);
    assert_int_equal(ph_available_of(&o, "/loop", PL_CTR_DISK_READS_PER_SEC), 1);
    assert_int_equal(ph_value_of(&o, "/loop", PL_CTR_DISK_READS_PER_SEC), 150);
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_UNAVAILABLE_COUNTERS), 0x1000000007ull);
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_FREE_MEGABYTES), 0);
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_DISK_READS_PER_SEC), 60 + 150);
    ph_result_free(&r);
    ph_unload(&prov);

    ph_rmtree(dir);
}

/* Issue 11 item 8: a diskstats without one line that parses (empty, or
 * every line malformed) gives no objects, never a _Total of zeros shown as
 * valid; with one malformed line among good ones the disks are read and
 * _Total's I/O counters are marked unavailable (the sum could leave a disk
 * out), its size stays. */
static void diskstats_unreadable_no_total(void **state)
{
    (void)state;
    char dir[] = "/tmp/perfdisk_badXXXXXX";
    ph_tempdir(dir);
    ph_put(dir, "sys/block/sda/size", "2048000\n");
    ph_put(dir, "proc/self/mountinfo", "");
    const char *bodies[] = {"", "   8       0 sda 1 2 x\n", "garbage\n"};
    for (size_t i = 0; i < 3; i++) {
        ph_put(dir, "proc/diskstats", bodies[i]);
        load(dir);
        assert_int_equal(prov.open(NULL), 0);
        ph_result r;
        ph_collect_ok(&prov, "234", 8, &r);
        assert_int_equal(r.objects, 0);
        ph_result_free(&r);
        ph_unload(&prov);
    }
    ph_put(dir, "proc/diskstats",
           "   8       0 sda 100 0 800 10 50 0 400 20 0 30 30 0 0 0 0 0 0\n"
           "   8      16 sdb 1 2 3\n");
    load(dir);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "234", 8, &r);
    pl_object o;
    ph_object(&r, PL_OBJ_PHYSICAL_DISK, &o);
    static const char *const pd[] = {"sda", "_Total"};
    ph_names_are(&o, pd, 2, 0);
    assert_int_equal(ph_available_of(&o, "sda", PL_CTR_DISK_READS_PER_SEC), 1);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_DISK_READS_PER_SEC), 100);
    assert_int_equal(ph_available_of(&o, "_Total", PL_CTR_DISK_READS_PER_SEC), 0);
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_DISK_READS_PER_SEC), 0);
    assert_int_equal(ph_available_of(&o, "_Total", PL_CTR_AVG_DISK_SEC_PER_READ), 0);
    assert_int_equal(ph_available_of(&o, "_Total", PL_CTR_SIZE_MEGABYTES), 1);
    assert_int_equal(ph_value_of(&o, "_Total", PL_CTR_SIZE_MEGABYTES), 1000);
    ph_result_free(&r);
    ph_unload(&prov);
    ph_rmtree(dir);
}

/* ------------------------------------------------ wide average timers */

/* Issue 11 item 1: 600 s of summed read time is 6e9 in 100 ns units, past
 * 2^32. The average timers (and their op-count bases) are 8 bytes wide, so
 * the value is exact instead of its low 32 bits (1.7e9), which wrapped
 * every 429.5 s of summed time and could wrap several times per interval. */
static void average_timers_do_not_wrap(void **state)
{
    (void)state;
    char dir[] = "/tmp/perfdisk_wideXXXXXX";
    ph_tempdir(dir);
    ph_put(dir, "proc/diskstats",
           "   8       0 sda 5000000000 0 800 600000 7 0 400 900000 0 30 1500000 0 0 0 0 0 0\n");
    ph_put(dir, "sys/block/sda/size", "2048000\n");
    ph_put(dir, "proc/self/mountinfo", "");
    load(dir);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "234", 8, &r);
    pl_object o;
    ph_object(&r, PL_OBJ_PHYSICAL_DISK, &o);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_AVG_DISK_SEC_PER_READ), 600000ull * 10000);
    assert_int_equal(ph_base_of(&o, "sda", PL_CTR_AVG_DISK_SEC_PER_READ), 5000000000ull);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_AVG_DISK_SEC_PER_WRITE), 900000ull * 10000);
    assert_int_equal(ph_value_of(&o, "sda", PL_CTR_AVG_DISK_SEC_PER_TRANSFER), 1500000ull * 10000);
    assert_int_equal(ph_base_of(&o, "sda", PL_CTR_AVG_DISK_SEC_PER_TRANSFER), 5000000007ull);
    assert_int_equal(ph_base_of(&o, "sda", PL_CTR_AVG_DISK_BYTES_PER_READ), 5000000000ull);
    pl_counter c;
    ph_counter(&o, PL_CTR_AVG_DISK_SEC_PER_TRANSFER, &c);
    assert_int_equal(c.def.CounterType, PERF_AVERAGE_TIMER);
    assert_int_equal(c.def.CounterSize, 8);
    assert_true(c.has_base);
    assert_int_equal(c.base.CounterType, PERF_AVERAGE_BASE);
    assert_int_equal(c.base.CounterSize, 8);
    ph_result_free(&r);
    ph_unload(&prov);
    ph_rmtree(dir);
}

/* ------------------------------------------------------- query handling */

static void queries(void **state)
{
    (void)state;
    load(M1);
    assert_int_equal(prov.open(NULL), 0);
    static const char *const none[] = {"510", "Costly", "Foreign host", "ABCD", "2 4 238"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) ph_expect_nothing(&prov, none[i], ERROR_SUCCESS);
    ph_result r;
    ph_collect_ok(&prov, "238 234", 8, &r);
    assert_int_equal(r.objects, 1);
    ph_result_free(&r);
    ph_collect_ok(&prov, "236 234", 8, &r);
    assert_int_equal(r.objects, 2);
    ph_result_free(&r);
    /* NULL query is Global. */
    uint8_t *buf = malloc(1 << 16);
    LPVOID data = buf;
    DWORD bytes = 1 << 16, objects = 0;
    assert_int_equal(prov.collect(NULL, &data, &bytes, &objects), ERROR_SUCCESS);
    assert_int_equal(objects, 2);
    free(buf);
    ph_unload(&prov);
}

static void collect_before_open(void **state)
{
    (void)state;
    load(M1);
    ph_expect_nothing(&prov, NULL, ERROR_INVALID_HANDLE);
    ph_unload(&prov);
}

static void empty_root(void **state)
{
    (void)state;
    load(PL_SOURCE_DIR "/tests/perfdisk");
    assert_int_equal(prov.open(NULL), 0);
    uint8_t buf[64];
    LPVOID data = buf;
    DWORD bytes = sizeof buf, objects = 5;
    assert_int_equal(prov.collect(NULL, &data, &bytes, &objects), ERROR_SUCCESS);
    assert_int_equal(bytes, 0);
    assert_int_equal(objects, 0);
    /* Open again: counted, so it takes two Closes (the second in ph_unload). */
    assert_int_equal(prov.open(NULL), 0);
    assert_int_equal(prov.close(), 0);
    ph_unload(&prov);
}

/* Repeated collections reuse the builder and give the same layout. */
static void repeated_collections(void **state)
{
    (void)state;
    load(M1);
    assert_int_equal(prov.open(NULL), 0);
    ph_result a, b;
    ph_collect_ok(&prov, "Global", 8, &a);
    ph_collect_ok(&prov, "Global", 8, &b);
    assert_int_equal(a.bytes, b.bytes);
    assert_int_equal(a.objects, b.objects);
    ph_result_free(&a);
    ph_result_free(&b);
    ph_unload(&prov);
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
    assert_non_null(d);
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
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "234", 8, &r);
    pl_object o;
    ph_object(&r, PL_OBJ_PHYSICAL_DISK, &o);
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
    ph_result_free(&r);
    ph_unload(&prov);
}

/* df's available bytes of the filesystem at `path`, or -1. */
static long long df_available_bytes(const char *path)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "df -B1 --output=avail '%s' 2>/dev/null", path);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[512];
    long long avail = -1;
    int ln = 0;
    while (fgets(line, sizeof line, p))
        if (ln++ == 1) avail = strtoll(line, NULL, 10);
    if (pclose(p) != 0) return -1;
    return avail;
}

/* Free Megabytes and Size Megabytes of a filesystem nothing else writes (a
 * loop device's, in this test's own mount namespace, with 5 MiB written to
 * it) equal statvfs and df exactly. */
static void live_free_space_vs_statvfs(void **state)
{
    (void)state;
    char mnt[] = "/tmp/perfdisk_freeXXXXXX", m0[600], file[700];
    dl_loop_mounts(mnt, 1);
    dl_mount_path(mnt, 0, m0, sizeof m0);
    snprintf(file, sizeof file, "%s/data", m0);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    static char mib[1 << 20];
    memset(mib, 'x', sizeof mib);
    for (int i = 0; i < 5; i++) assert_int_equal(fwrite(mib, 1, sizeof mib, f), sizeof mib);
    assert_int_equal(fflush(f), 0);
    assert_int_equal(fsync(fileno(f)), 0);
    assert_int_equal(fclose(f), 0);
    struct statvfs sv;
    assert_int_equal(statvfs(m0, &sv), 0);
    load(NULL);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    ph_collect_ok(&prov, "236", 8, &r);
    pl_object o;
    ph_object(&r, PL_OBJ_LOGICAL_DISK, &o);
    uint64_t v = ph_value_of(&o, m0, PL_CTR_FREE_MEGABYTES);
    print_message("%s: Free Megabytes %llu, statvfs %llu blocks of %lu available\n", m0, (unsigned long long)v,
                  (unsigned long long)sv.f_bavail, (unsigned long)sv.f_frsize);
    assert_int_equal(v, (uint64_t)sv.f_bavail * sv.f_frsize / 1048576);
    assert_int_equal(ph_value_of(&o, m0, PL_CTR_SIZE_MEGABYTES), (uint64_t)sv.f_blocks * sv.f_frsize / 1048576);
    long long df = df_available_bytes(m0);
    if (df < 0) fail_msg("df (coreutils) cannot be run here");
    assert_int_equal(v, (uint64_t)df / 1048576);
    ph_result_free(&r);
    ph_unload(&prov);
    dl_unmount(mnt, 1);
}

/* ------------------------------------------------- the kept mount table */

static int has_instance(const pl_object *o, const char *name)
{
    uint32_t n = pl_object_num_instances(o);
    for (uint32_t i = 0; i < n; i++) {
        pl_instance in;
        char buf[512];
        assert_int_equal(pl_object_instance(o, (int32_t)i, &in), PL_OK);
        assert_int_equal(pl_instance_name(&in, buf, sizeof buf), PL_OK);
        if (strcmp(buf, name) == 0) return 1;
    }
    return 0;
}

/* LogicalDisk of a fresh collection on the live root. */
static void logical_now(ph_result *r, pl_object *o)
{
    ph_collect_ok(&prov, "236", 1 << 16, r);
    ph_object(r, PL_OBJ_LOGICAL_DISK, o);
}

/* On the live root PerfDisk keeps /proc/thread-self/mountinfo open and reads
 * it again only when poll() says the mount table changed: a mount, a second
 * mount of the same device, an unmount that lets the second one in, and the
 * last unmount each show at the next collection. It also keeps the disks'
 * size files open: a loop device that grows shows its new size. A loop device with ext4 in
 * a mount namespace of this test process alone (as root; the mounts go with
 * the process, and the loop device with its last mount). */
static void live_mount_table_followed(void **state)
{
    (void)state;
    if (geteuid() != 0) fail_msg("needs root: it mounts a loop device in a private mount namespace");
    if (system("command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null") != 0)
        fail_msg("needs losetup (mount) and mkfs.ext4 (e2fsprogs): scripts/deps.sh test");
    if (unshare(CLONE_NEWNS) != 0) fail_msg("unshare(CLONE_NEWNS): %s", strerror(errno));
    assert_int_equal(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
    char dir[] = "/tmp/perfdisk_mtXXXXXX";
    ph_tempdir(dir);
    ph_mkdir(dir, "m1");
    ph_mkdir(dir, "m2");
    char cmd[1024], out[512], m1[300], m2[300], dev[64];
    snprintf(m1, sizeof m1, "%s/m1", dir);
    snprintf(m2, sizeof m2, "%s/m2", dir);
    snprintf(cmd, sizeof cmd, "truncate -s 32M '%s/img' && mkfs.ext4 -q -F '%s/img' && losetup -f --show '%s/img'", dir,
             dir, dir);
    dl_run(cmd, out, sizeof out);
    const char *d = strstr(out, "/dev/loop");
    if (!d) fail_msg("losetup printed no device: %s", out);
    snprintf(dev, sizeof dev, "%.*s", (int)strcspn(d, "\n"), d);

    load(NULL);
    assert_int_equal(prov.open(NULL), 0);
    ph_result r;
    pl_object o;
    logical_now(&r, &o);
    assert_false(has_instance(&o, m1));
    /* mkfs wrote to it: a disk (kept size file), 32 MiB */
    pl_object po;
    ph_object(&r, PL_OBJ_PHYSICAL_DISK, &po);
    assert_int_equal(ph_value_of(&po, dev + 5, PL_CTR_SIZE_MEGABYTES), 32);
    ph_result_free(&r);
    logical_now(&r, &o); /* the table read once is kept */
    assert_false(has_instance(&o, m1));
    ph_result_free(&r);
    /* the loop device grows: the kept size file says so at the next read */
    snprintf(cmd, sizeof cmd, "truncate -s 64M '%s/img' && losetup -c %s", dir, dev);
    dl_run(cmd, out, sizeof out);
    logical_now(&r, &o);
    ph_object(&r, PL_OBJ_PHYSICAL_DISK, &po);
    assert_int_equal(ph_value_of(&po, dev + 5, PL_CTR_SIZE_MEGABYTES), 64);
    ph_result_free(&r);

    if (mount(dev, m1, "ext4", 0, NULL) != 0) fail_msg("mount %s: %s", dev, strerror(errno));
    snprintf(cmd, sizeof cmd, "losetup -d %s", dev); /* autoclear: it goes with its last mount */
    dl_run(cmd, out, sizeof out);
    logical_now(&r, &o);
    assert_true(has_instance(&o, m1));
    struct statvfs sv;
    assert_int_equal(statvfs(m1, &sv), 0);
    assert_int_equal(ph_value_of(&o, m1, PL_CTR_SIZE_MEGABYTES), (uint64_t)sv.f_blocks * sv.f_frsize / 1048576);
    ph_result_free(&r);

    if (mount(dev, m2, "ext4", 0, NULL) != 0) fail_msg("mount %s: %s", dev, strerror(errno));
    logical_now(&r, &o); /* one instance per device: the first mount */
    assert_true(has_instance(&o, m1));
    assert_false(has_instance(&o, m2));
    ph_result_free(&r);

    assert_int_equal(umount2(m1, 0), 0);
    logical_now(&r, &o);
    assert_false(has_instance(&o, m1));
    assert_true(has_instance(&o, m2));
    ph_result_free(&r);

    assert_int_equal(umount2(m2, 0), 0);
    logical_now(&r, &o);
    assert_false(has_instance(&o, m1));
    assert_false(has_instance(&o, m2));
    ph_result_free(&r);
    ph_unload(&prov);
    ph_rmtree(dir);
}

/* Two hosts in one process (an engine for RegQueryValueEx and another for
 * PDH) share this library: each calls Open and Close, and the first Close
 * must not take the provider away from the other. */
static void open_close_are_counted(void **state)
{
    (void)state;
    load(M1);
    assert_int_equal(prov.open(NULL), 0);
    assert_int_equal(prov.open(NULL), 0);
    assert_int_equal(prov.close(), 0);
    ph_result r;
    ph_collect_ok(&prov, "234", 8, &r);
    assert_true(ph_has_object(&r, PL_OBJ_PHYSICAL_DISK));
    ph_result_free(&r);
    assert_int_equal(prov.close(), 0);
    /* Closed by both: Collect now refuses, as before any Open. */
    ph_expect_nothing(&prov, "234", ERROR_INVALID_HANDLE);
    ph_dlclose(&prov);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(open_close_are_counted),
        cmocka_unit_test(physical_instances_m1),
        cmocka_unit_test(physical_values_m1),
        cmocka_unit_test(physical_total_m1),
        cmocka_unit_test(logical_m1),
        cmocka_unit_test(old_kernel_14_columns),
        cmocka_unit_test(unreadable_values_marked),
        cmocka_unit_test(average_timers_do_not_wrap),
        cmocka_unit_test(diskstats_unreadable_no_total),
        cmocka_unit_test(queries),
        cmocka_unit_test(collect_before_open),
        cmocka_unit_test(empty_root),
        cmocka_unit_test(repeated_collections),
        cmocka_unit_test(live_physical_disks),
        cmocka_unit_test(live_free_space_vs_statvfs),
        cmocka_unit_test(live_mount_table_followed),
    };
    return pl_test_run(tests, argc, argv);
}
