/* Loop-device filesystems for the PerfDisk tests (disk_live.h). */
#include "disk_live.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl_test.h"
#include "provider_harness.h"

const char *dl_mount_path(const char *dir, int i, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/m%d", dir, i);
    return buf;
}

void dl_run(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    if (!p) fail_msg("popen %s", cmd);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    if (pclose(p) != 0) fail_msg("%s failed: %s", cmd, out);
}

void dl_loop_mounts(char *dir, int n)
{
    assert_true(n >= 1 && n <= DL_MAX_MOUNTS);
    if (geteuid() != 0) pl_skip("needs root: it mounts loop-device filesystems in a private mount namespace");
    if (system("command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null") != 0)
        fail_msg("needs losetup (mount) and mkfs.ext4 (e2fsprogs): scripts/deps.sh test");
    if (unshare(CLONE_NEWNS) != 0) fail_msg("unshare(CLONE_NEWNS): %s", strerror(errno));
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) fail_msg("making / private: %s", strerror(errno));
    ph_tempdir(dir);
    for (int i = 0; i < n; i++) {
        char m[512], cmd[2048], out[512], dev[64];
        dl_mount_path(dir, i, m, sizeof m);
        if (mkdir(m, 0755) != 0) fail_msg("mkdir %s: %s", m, strerror(errno));
        snprintf(cmd, sizeof cmd, "truncate -s 16M '%s.img' && mkfs.ext4 -q -F '%s.img' && losetup -f --show '%s.img'",
                 m, m, m);
        dl_run(cmd, out, sizeof out);
        const char *d = strstr(out, "/dev/loop");
        if (!d) fail_msg("losetup printed no device: %s", out);
        snprintf(dev, sizeof dev, "%.*s", (int)strcspn(d, "\n"), d);
        if (mount(dev, m, "ext4", 0, NULL) != 0) fail_msg("mount %s on %s: %s", dev, m, strerror(errno));
        snprintf(cmd, sizeof cmd, "losetup -d %s", dev); /* autoclear: it goes with its mount */
        dl_run(cmd, out, sizeof out);
    }
}

void dl_unmount(const char *dir, int n)
{
    for (int i = 0; i < n; i++) {
        char m[512];
        if (umount2(dl_mount_path(dir, i, m, sizeof m), MNT_DETACH) != 0)
            fail_msg("umount %s: %s", m, strerror(errno));
    }
    ph_rmtree(dir);
}
