/* This file is private to perflib: no API/ABI guarantee.
 *
 * The processes an isolated provider started (docs/provider-host.md,
 * "Everything the provider starts"): the helper is a child subreaper
 * (PR_SET_CHILD_SUBREAPER), so every descendant, also one whose parent
 * exited or one that left the helper's process group with setsid(), stays
 * in its tree while it lives. This walks that tree from /proc/<pid>/task/
 * <tid>/children, and kills it, using only async-signal-safe calls (open,
 * read, getdents64, kill, getpgid): the helper does it from its handler of
 * a fatal signal too. Shared by the helper (tools/perflib-provider-host)
 * and the host (lib/host/host_helper.c), header-only. */
#ifndef PL_HELPER_TREE_H
#define PL_HELPER_TREE_H

#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#define PLH_TREE_MAX 4096             /* descendants walked at most */
#define PLH_TREE_ROUNDS 64            /* kill rounds (a descendant forking while it is killed) */

/* "/proc/<pid>[/task/<tid>][/<leaf>]" into out (>= 80 bytes; tid < 0:
 * none), without stdio. */
static inline void plh_proc_path(char *out, long pid, long tid, const char *leaf)
{
    size_t n = 0;
    for (const char *c = "/proc/"; *c; c++) out[n++] = *c;
    long v[2] = {pid, tid};
    for (int k = 0; k < 2; k++) {
        if (k == 1) {
            if (tid < 0) break;
            for (const char *c = "/task/"; *c; c++) out[n++] = *c;
        }
        char d[24];
        int nd = 0;
        long x = v[k] < 0 ? 0 : v[k];
        do d[nd++] = (char)('0' + x % 10); while ((x /= 10) > 0 && nd < 20);
        while (nd) out[n++] = d[--nd];
    }
    if (leaf) {
        out[n++] = '/';
        for (const char *c = leaf; *c && n < 78; c++) out[n++] = *c;
    }
    out[n] = '\0';
}

/* Append the children of every thread of pid to out[n..cap); returns n. */
static inline size_t plh_children(pid_t pid, pid_t *out, size_t n, size_t cap)
{
    char path[80];
    plh_proc_path(path, pid, -1, "task");
    int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return n;
    char dbuf[2048];
    long got;
    while (n < cap && (got = syscall(SYS_getdents64, dfd, dbuf, sizeof dbuf)) > 0) {
        for (long pos = 0; pos < got;) {
            /* struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, name */
            unsigned short reclen;
            memcpy(&reclen, dbuf + pos + 16, sizeof reclen);
            const char *name = dbuf + pos + 19;
            pos += reclen ? reclen : got;
            long tid = 0;
            int ok = name[0] >= '0' && name[0] <= '9';
            for (const char *c = name; ok && *c; c++) {
                if (*c < '0' || *c > '9' || tid > 100000000L) ok = 0;
                else tid = tid * 10 + (*c - '0');
            }
            if (!ok) continue;
            char cp[80];
            plh_proc_path(cp, pid, tid, "children");
            int fd = open(cp, O_RDONLY | O_CLOEXEC);
            if (fd < 0) continue;
            char buf[4096];
            long cur = 0;
            int in = 0;
            ssize_t r;
            while ((r = read(fd, buf, sizeof buf)) > 0) {
                for (ssize_t i = 0; i < r; i++) {
                    if (buf[i] >= '0' && buf[i] <= '9') {
                        cur = cur * 10 + (buf[i] - '0');
                        in = 1;
                    } else if (in) {
                        if (n < cap) out[n++] = (pid_t)cur;
                        cur = 0;
                        in = 0;
                    }
                }
            }
            if (in && n < cap) out[n++] = (pid_t)cur;
            close(fd);
        }
    }
    close(dfd);
    return n;
}

/* Every descendant of root (children first, then theirs), at most cap. */
static inline size_t plh_tree(pid_t root, pid_t *out, size_t cap)
{
    size_t n = plh_children(root, out, 0, cap);
    for (size_t i = 0; i < n && n < cap; i++) n = plh_children(out[i], out, n, cap);
    return n;
}

/* The start of /proc/<pid>/<leaf> into buf (NUL-terminated); the bytes
 * read, 0 when it cannot be read. */
static inline ssize_t plh_read_proc(pid_t pid, const char *leaf, char *buf, size_t cap)
{
    char path[80];
    plh_proc_path(path, pid, -1, leaf);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t r = read(fd, buf, cap - 1);
    close(fd);
    if (r < 0) r = 0;
    buf[r] = '\0';
    return r;
}

/* Is pid a zombie (or gone)? From the state field of /proc/<pid>/stat. */
static inline int plh_dead(pid_t pid)
{
    char buf[512];
    ssize_t r = plh_read_proc(pid, "stat", buf, sizeof buf);
    if (r <= 0) return 1;
    ssize_t p = r - 1;
    while (p > 0 && buf[p] != ')') p--; /* the name may hold anything */
    return p <= 0 || p + 2 >= r || buf[p + 2] == 'Z' || buf[p + 2] == 'X';
}

/* Kill every descendant of root, in rounds until none is left alive (a
 * process forking while it is killed leaves a child, which comes to the
 * subreaper root and is found next round). *escaped (may be NULL) is set
 * when one was outside process group `group` (it called setsid() or
 * setpgid()). buf holds PLH_TREE_MAX pids. Returns how many were found. */
static inline size_t plh_kill_tree(pid_t root, pid_t group, int *escaped, pid_t *buf)
{
    size_t total = 0;
    for (int round = 0; round < PLH_TREE_ROUNDS; round++) {
        size_t n = plh_tree(root, buf, PLH_TREE_MAX), alive = 0;
        for (size_t i = 0; i < n; i++) {
            pid_t g = getpgid(buf[i]);
            if (escaped && g >= 0 && g != group) *escaped = 1; /* a zombie that escaped did escape */
            if (plh_dead(buf[i])) continue;
            alive++;
            kill(buf[i], SIGKILL);
        }
        if (round == 0) total = n;
        if (!alive) break;
    }
    return total;
}

/* Does a live descendant of root run outside process group `group`?
 * Returns its pid, or 0. */
static inline pid_t plh_escaped(pid_t root, pid_t group, pid_t *buf)
{
    size_t n = plh_tree(root, buf, PLH_TREE_MAX);
    for (size_t i = 0; i < n; i++) {
        pid_t g = getpgid(buf[i]);
        if (g >= 0 && g != group && !plh_dead(buf[i])) return buf[i];
    }
    return 0;
}

#endif
