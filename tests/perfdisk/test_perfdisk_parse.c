/* Tests of the disk collectors: /proc/diskstats, /sys/block, mount tables. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl_test.h"
#include "linux/collect_io.h"
#include "platform.h"

#define M1 PL_SOURCE_DIR "/tests/perfdisk/data/m1"
#define OLD PL_SOURCE_DIR "/tests/perfdisk/data/old"

static void diskstats_20_columns(void **state)
{
    (void)state;
    struct pl__diskstat d;
    const char *l = " 259       0 nvme0n1 2000 0 160000 1000 4000 0 320000 8000 3 6000 9000 7 1 56 9 100 50\n";
    assert_int_equal(pl__parse_diskstats_line(l, strlen(l), &d), 1);
    assert_int_equal(d.major, 259);
    assert_int_equal(d.minor, 0);
    assert_string_equal(d.name, "nvme0n1");
    assert_int_equal(d.nfields, 17);
    static const uint64_t want[17] = {2000, 0, 160000, 1000, 4000, 0, 320000, 8000, 3, 6000, 9000, 7, 1, 56, 9, 100, 50};
    for (int i = 0; i < 17; i++) assert_int_equal(d.f[i], want[i]);
}

static void diskstats_18_and_14_columns(void **state)
{
    (void)state;
    struct pl__diskstat d;
    const char *l18 = "8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15";
    assert_int_equal(pl__parse_diskstats_line(l18, strlen(l18), &d), 1);
    assert_int_equal(d.nfields, 15);
    assert_int_equal(d.f[PL__DK_DC_MS], 15);
    assert_int_equal(d.f[PL__DK_FL_IOS], 0);
    const char *l14 = "   8       1 sda1 3000 10 56000 6000 900 20 15000 2900 0 8000 8900\n";
    assert_int_equal(pl__parse_diskstats_line(l14, strlen(l14), &d), 1);
    assert_int_equal(d.nfields, 11);
    assert_string_equal(d.name, "sda1");
    assert_int_equal(d.f[PL__DK_WEIGHTED_MS], 8900);
    assert_int_equal(d.f[PL__DK_IO_MS], 8000);
    /* 64-bit values survive; a value beyond 64 bits makes the line
     * malformed (issue 11 item 8: never a saturated number). */
    const char *max = "8 0 sda 18446744073709551615 0 0 0 0 0 0 0 0 0 5";
    assert_int_equal(pl__parse_diskstats_line(max, strlen(max), &d), 1);
    assert_true(d.f[0] == UINT64_MAX);
    const char *big = "8 0 sda 18446744073709551615 0 0 0 0 0 0 0 0 0 99999999999999999999999";
    assert_int_equal(pl__parse_diskstats_line(big, strlen(big), &d), 0);
}

static void diskstats_malformed_lines(void **state)
{
    (void)state;
    struct pl__diskstat d;
    static const char *const bad[] = {
        "",
        "8 0",
        "8 0 sda",
        "8 16 sdb 1 2 3",                                      /* pre-2.6.25 partition format */
        "8 0 sda 1 2 3 4 5 6 7 8 9 10",                        /* 10 fields */
        "8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12",                  /* 12 fields */
        "8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18", /* 18 fields */
        "8 0 sda 1 2 3 4 5 6 7 8 9 10 x1",
        "8 0 sda 1 2 3 4 5 6 7 8 9 10 11x",
        "8 0 sda -1 2 3 4 5 6 7 8 9 10 11",
        "x 0 sda 1 2 3 4 5 6 7 8 9 10 11",
        "4294967296 0 sda 1 2 3 4 5 6 7 8 9 10 11",
        "8 0 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 1 2 3 4 5 6 7 8 9 10 11",
        ("8 0 s\x01" "da 1 2 3 4 5 6 7 8 9 10 11"),
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(pl__parse_diskstats_line(bad[i], strlen(bad[i]), &d), 0);
    /* A 63-byte name is the longest accepted. */
    char l[200] = "8 0 ";
    memset(l + 4, 'a', 63);
    strcpy(l + 67, " 1 2 3 4 5 6 7 8 9 10 11");
    assert_int_equal(pl__parse_diskstats_line(l, strlen(l), &d), 1);
    assert_int_equal(strlen(d.name), 63);
}

/* The line is `len` bytes, not a C string (found by fuzz_procfs): nothing
 * at or past line + len is read, so digits that follow in the buffer are not
 * part of the last number, and an exact-size copy without a NUL parses
 * (ASan checks the bound). */
static void diskstats_line_is_len_bytes(void **state)
{
    (void)state;
    struct pl__diskstat d;
    const char *l = "   7       0 loop0 1 2 3 4 5 6 7 8 9 10 11999";
    assert_int_equal(pl__parse_diskstats_line(l, strlen(l) - 3, &d), 1);
    assert_int_equal(d.nfields, 11);
    assert_int_equal(d.f[10], 11);
    size_t n = strlen(l) - 3;
    char *exact = malloc(n);
    assert_non_null(exact);
    memcpy(exact, l, n);
    assert_int_equal(pl__parse_diskstats_line(exact, n, &d), 1);
    assert_int_equal(d.f[10], 11);
    /* cut inside the name's column: malformed, still inside the bytes */
    assert_int_equal(pl__parse_diskstats_line(exact, 16, &d), 0);
    free(exact);
}

static void diskstats_whole_text(void **state)
{
    (void)state;
    struct pl__diskstats s = {0};
    const char *t = "   8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n"
                    "\n"
                    "garbage line\n"
                    "   8 1 sda1 1 2 3 4 5 6 7 8 9 10 11\n"
                    "   8 2 sda2 1 2 3 4 5 6 7 8 9 10 1"; /* truncated: no newline */
    assert_int_equal(pl__parse_diskstats(t, &s), 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(s.bad, 2);
    assert_string_equal(s.d[0].name, "sda");
    assert_string_equal(s.d[1].name, "sda1");
    /* Reuse: a second parse replaces the first. */
    assert_int_equal(pl__parse_diskstats("", &s), 0);
    assert_int_equal(s.n, 0);
    assert_int_equal(s.bad, 0);
    pl__diskstats_free(&s);
    assert_null(s.d);
}

static void diskstats_canned_file(void **state)
{
    (void)state;
    int fd = pl__root_open(M1, "");
    assert_true(fd >= 0);
    struct pl__diskstats s = {0};
    assert_int_equal(pl__read_diskstats(fd, &s), 0);
    assert_int_equal(s.n, 7);
    assert_int_equal(s.bad, 0);
    assert_string_equal(s.d[6].name, "dm-0");
    assert_int_equal(s.d[6].major, 253);
    assert_int_equal(s.d[0].f[PL__DK_FL_MS], 40);
    pl__diskstats_free(&s);
    close(fd);
    /* Missing file: -ENOENT. */
    fd = pl__root_open(PL_SOURCE_DIR "/tests/perfdisk", "");
    assert_int_equal(pl__read_diskstats(fd, &s), -ENOENT);
    pl__diskstats_free(&s);
    close(fd);
}

/* A diskstats text longer than the stack buffer is read whole. */
static void diskstats_large_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/perfdisk_largeXXXXXX";
    assert_non_null(mkdtemp(dir));
    char p[256];
    snprintf(p, sizeof p, "%s/proc", dir);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/proc/diskstats", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    for (int i = 0; i < 2000; i++) fprintf(f, "   7 %d loop%d %d 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", i, i, i);
    fclose(f);
    int fd = pl__root_open(dir, "");
    struct pl__diskstats s = {0};
    assert_int_equal(pl__read_diskstats(fd, &s), 0);
    assert_int_equal(s.n, 2000);
    assert_int_equal(s.bad, 0);
    assert_string_equal(s.d[1999].name, "loop1999");
    assert_int_equal(s.d[1999].f[0], 1999);
    pl__diskstats_free(&s);
    close(fd);
    unlink(p);
    snprintf(p, sizeof p, "%s/proc", dir);
    rmdir(p);
    rmdir(dir);
}

static void sysblock_disks_and_parents(void **state)
{
    (void)state;
    int sb = pl__root_open(M1, "sys/block");
    assert_true(sb >= 0);
    assert_int_equal(pl__sysblock_is_disk(sb, "sda"), 1);
    assert_int_equal(pl__sysblock_is_disk(sb, "dm-0"), 1);
    assert_int_equal(pl__sysblock_is_disk(sb, "sda1"), 0);
    assert_int_equal(pl__sysblock_is_disk(sb, "sdz"), 0);
    assert_int_equal(pl__sysblock_is_disk(sb, ".."), 0);
    assert_int_equal(pl__sysblock_is_disk(sb, "."), 0);
    assert_int_equal(pl__sysblock_is_disk(-ENOENT, "sda"), -ENOENT);
    const char *disks[] = {"sda", "nvme0n1", "dm-0"};
    assert_int_equal(pl__sysblock_parent(sb, "sda1", disks, 3), 0);
    assert_int_equal(pl__sysblock_parent(sb, "sda2", disks, 3), 0);
    assert_int_equal(pl__sysblock_parent(sb, "dm-0", disks, 3), 2);
    assert_int_equal(pl__sysblock_parent(sb, "nvme0n1", disks, 3), 1);
    assert_int_equal(pl__sysblock_parent(sb, "sda3", disks, 3), -1);
    assert_int_equal(pl__sysblock_parent(sb, "sdb1", disks, 3), -1);
    uint64_t sec = 0;
    assert_int_equal(pl__sysblock_size(sb, "sda", &sec), 0);
    assert_true(sec == 1953525168ull);
    assert_int_equal(pl__sysblock_size(sb, "loop1", &sec), 0);
    assert_true(sec == 0);
    assert_int_equal(pl__sysblock_size(sb, "sdz", &sec), -ENOENT);
    close(sb);
}

static void sysfs_name_mapping(void **state)
{
    (void)state;
    char out[16];
    assert_int_equal(pl__sysfs_block_name("cciss/c0d0", out, sizeof out), 0);
    assert_string_equal(out, "cciss!c0d0");
    assert_int_equal(pl__sysfs_block_name("0123456789abcdef", out, sizeof out), -ENAMETOOLONG);
    assert_int_equal(pl__sysfs_block_name("", out, sizeof out), -ENAMETOOLONG);
}

static void mount_unescape(void **state)
{
    (void)state;
    char out[32];
    const char *in = "/data\\040disk\\011x\\134y\\012";
    assert_int_equal(pl__mount_unescape(in, strlen(in), out, sizeof out), 0);
    assert_string_equal(out, "/data disk\tx\\y\n");
    /* Not an escape: kept as is. */
    in = "/a\\04b\\9";
    assert_int_equal(pl__mount_unescape(in, strlen(in), out, sizeof out), 0);
    assert_string_equal(out, "/a\\04b\\9");
    in = "/a\\000";
    assert_int_equal(pl__mount_unescape(in, strlen(in), out, sizeof out), -EINVAL);
    in = "/abcdefgh";
    assert_int_equal(pl__mount_unescape(in, strlen(in), out, 9), -ENAMETOOLONG);
    assert_int_equal(pl__mount_unescape(in, strlen(in), out, 10), 0);
}

static void mountinfo_parse(void **state)
{
    (void)state;
    struct pl__mounts m = {0};
    int fd = pl__root_open(M1, "");
    assert_int_equal(pl__read_mounts(fd, &m), 0);
    close(fd);
    assert_int_equal(m.n, 9);
    assert_int_equal(m.bad, 0);
    assert_int_equal(m.m[0].major, 8);
    assert_int_equal(m.m[0].minor, 1);
    assert_int_equal(m.m[0].have_devno, 1);
    assert_int_equal(m.m[0].root_is_slash, 1);
    assert_string_equal(m.m[0].mountpoint, "/");
    assert_string_equal(m.m[0].source, "/dev/sda1");
    assert_string_equal(m.m[0].fstype, "ext4");
    assert_string_equal(m.m[4].mountpoint, "/home");
    assert_string_equal(m.m[4].source, "/dev/mapper/vg-home");
    assert_string_equal(m.m[5].mountpoint, "/data disk");
    assert_int_equal(m.m[6].root_is_slash, 0);
    assert_string_equal(m.m[6].mountpoint, "/srv/bind");
    assert_string_equal(m.m[8].fstype, "overlay");
    assert_int_equal(m.m[8].major, 0);

    /* Malformed lines are skipped and counted; no optional-field end marker,
     * a relative mount point, a bad device number, a missing source. */
    const char *t = "22 1 8:1 / / rw shared:1 - ext4 /dev/sda1 rw\n"
                    "23 1 8:2 / /x rw shared:1 ext4 /dev/sda2 rw\n"
                    "24 1 8:3 / rel rw - ext4 /dev/sda3 rw\n"
                    "25 1 8x3 / /y rw - ext4 /dev/sda3 rw\n"
                    "26 1 8:4 / /z rw -\n"
                    "27 1 8:5 / /w rw - ext4 /dev/sda5 rw"; /* truncated */
    assert_int_equal(pl__parse_mountinfo(t, &m), 0);
    assert_int_equal(m.n, 1);
    assert_int_equal(m.bad, 5);
    pl__mounts_free(&m);
}

static void mounts_fallback(void **state)
{
    (void)state;
    struct pl__mounts m = {0};
    int fd = pl__root_open(OLD, "");
    assert_int_equal(pl__read_mounts(fd, &m), 0);
    close(fd);
    assert_int_equal(m.n, 5);
    assert_int_equal(m.m[1].have_devno, 0);
    assert_string_equal(m.m[1].source, "/dev/sda1");
    assert_string_equal(m.m[1].mountpoint, "/");
    assert_string_equal(m.m[3].fstype, "vfat");
    const char *t = "/dev/sda1 / ext4\n/dev/sdb1 /b ext4 rw 0 0\n";
    assert_int_equal(pl__parse_mounts(t, &m), 0);
    assert_int_equal(m.n, 1);
    assert_int_equal(m.bad, 1);
    assert_string_equal(m.m[0].mountpoint, "/b");
    pl__mounts_free(&m);
    /* No mount table at all. */
    fd = pl__root_open(PL_SOURCE_DIR "/tests/perfdisk", "");
    assert_int_equal(pl__read_mounts(fd, &m), -ENOENT);
    close(fd);
    pl__mounts_free(&m);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(diskstats_20_columns),
        cmocka_unit_test(diskstats_18_and_14_columns),
        cmocka_unit_test(diskstats_malformed_lines),
        cmocka_unit_test(diskstats_line_is_len_bytes),
        cmocka_unit_test(diskstats_whole_text),
        cmocka_unit_test(diskstats_canned_file),
        cmocka_unit_test(diskstats_large_file),
        cmocka_unit_test(sysblock_disks_and_parents),
        cmocka_unit_test(sysfs_name_mapping),
        cmocka_unit_test(mount_unescape),
        cmocka_unit_test(mountinfo_parse),
        cmocka_unit_test(mounts_fallback),
    };
    return pl_test_run(tests, argc, argv);
}
