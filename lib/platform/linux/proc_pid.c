/* perflib: readers for /proc/<pid>/{stat,status,io,fd,task,maps}. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "collect_proc.h"
#include "platform.h"

/* pl__proc_trust_procfs(): skip the regular-file check. */
static atomic_int trust_procfs;

int pl__proc_is_procfs(int fd)
{
    struct statfs sf;
    return fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}

void pl__proc_trust_procfs(int on)
{
    atomic_store_explicit(&trust_procfs, on ? 1 : 0, memory_order_relaxed);
}

ssize_t pl__proc_read1(int dirfd, const char *rel, char *buf, size_t cap)
{
    if (cap < 2) return -EINVAL;
    int fd;
    if (atomic_load_explicit(&trust_procfs, memory_order_relaxed)) {
        fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0) fd = -errno;
    } else {
        fd = pl__open_regular_at(dirfd, rel);
    }
    if (fd < 0) return fd;
    ssize_t n;
    do {
        n = read(fd, buf, cap - 1);
    } while (n < 0 && errno == EINTR);
    int e = errno;
    close(fd);
    if (n < 0) {
        buf[0] = '\0';
        return -e;
    }
    buf[n] = '\0';
    return n;
}

/* ---------------------------------------------------------------- stat */

int pl__proc_parse_stat(const char *text, pl_proc_stat *st)
{
    memset(st, 0, sizeof *st);
    st->processor = -1;
    const char *s = text;
    int64_t pid;
    if (!pl__parse_i64(&s, &pid) || pid < 0 || pid > INT32_MAX) return -EINVAL;
    st->pid = (int32_t)pid;
    while (*s == ' ') s++;
    if (*s != '(') return -EINVAL;
    const char *open = s + 1;
    const char *close = strrchr(open, ')');
    if (!close) return -EINVAL;
    size_t cl = (size_t)(close - open);
    if (cl >= sizeof st->comm) cl = sizeof st->comm - 1;
    memcpy(st->comm, open, cl);
    st->comm[cl] = '\0';
    s = close + 1;
    if (*s != ' ') return -EINVAL;
    s++;
    if (!*s || *s == ' ' || *s == '\n') return -EINVAL;
    st->state = *s++;
    if (*s != ' ') return -EINVAL;

    /* Fields 4..24 are required; 25..41 optional (old kernels). Fields this
     * parser keeps are checked: an unsigned one may not be negative, no kept
     * field may overflow 64 bits, and a time (14, 15, 22) may not exceed
     * PL_PROC_STAT_MAX_TICKS, so its 100 ns value fits. A line that breaks
     * these rules is malformed (-EINVAL: the task is left out), never a
     * silently wrapped or saturated number. Fields nobody keeps (rsslim is
     * 18446744073709551615 on every real system) are only syntax-checked. */
    for (int f = 4; f <= 41; f++) {
        while (*s == ' ') s++;
        int neg = 0, ovf = 0;
        if (*s == '-') {
            neg = 1;
            s++;
        }
        if (*s < '0' || *s > '9') {
            if (f <= 24 || neg) return -EINVAL;
            break; /* optional tail */
        }
        uint64_t uv = 0;
        while (*s >= '0' && *s <= '9') {
            unsigned d = (unsigned)(*s++ - '0');
            if (uv > (UINT64_MAX - d) / 10) ovf = 1;
            else uv = uv * 10 + d;
        }
        if (*s && *s != ' ' && *s != '\n') return -EINVAL;
        int signed_field = f == 4 || f == 18 || f == 19 || f == 24 || f == 39;
        int kept = signed_field || f == 9 || f == 10 || f == 12 || f == 14 || f == 15 || f == 20 || f == 22 ||
                   f == 23 || f == 40 || f == 41;
        if (!kept) continue;
        if (ovf) return -EINVAL;
        if (!signed_field && neg) return -EINVAL;
        int64_t iv = 0;
        if (signed_field) {
            if (uv > (uint64_t)INT64_MAX + (uint64_t)neg) return -EINVAL;
            iv = neg ? (int64_t)(0 - uv) : (int64_t)uv;
        }
        switch (f) {
        case 4:
            if (iv < 0 || iv > INT32_MAX) return -EINVAL;
            st->ppid = (int32_t)iv;
            break;
        case 9: st->flags = uv; break;
        case 10: st->minflt = uv; break;
        case 12: st->majflt = uv; break;
        case 14: case 15: case 22:
            if (uv > PL_PROC_STAT_MAX_TICKS) return -EINVAL;
            if (f == 14) st->utime = uv;
            else if (f == 15) st->stime = uv;
            else st->starttime = uv;
            break;
        case 18: st->priority = iv; break;
        case 19: st->nice = iv; break;
        case 20: st->num_threads = uv; break;
        case 23: st->vsize = uv; break;
        case 24: st->rss = iv < 0 ? 0 : (uint64_t)iv; break;
        case 39: st->processor = (iv < 0 || iv > INT32_MAX) ? -1 : (int32_t)iv; break;
        case 40: case 41:
            if (uv > UINT32_MAX) return -EINVAL; /* never a saturated number */
            if (f == 40) st->rt_priority = (uint32_t)uv;
            else st->policy = (uint32_t)uv;
            break;
        default: break;
        }
    }
    return 0;
}

/* -------------------------------------------------------------- status */

struct key_row {
    const char *key;   /* including the ':' */
    uint8_t len;
    uint8_t slot;      /* index into the uint64 array below */
    uint32_t bit;
};

#define K(s, slot, bit) {s, (uint8_t)(sizeof(s) - 1), slot, bit}
static const struct key_row status_keys[] = {
    K("VmPeak:", 0, PL_PST_VMPEAK),         K("VmSize:", 1, PL_PST_VMSIZE),
    K("VmHWM:", 2, PL_PST_VMHWM),           K("VmRSS:", 3, PL_PST_VMRSS),
    K("VmData:", 4, PL_PST_VMDATA),         K("VmStk:", 5, PL_PST_VMSTK),
    K("VmSwap:", 6, PL_PST_VMSWAP),         K("RssAnon:", 7, PL_PST_RSSANON),
    K("RssFile:", 8, PL_PST_RSSFILE),       K("RssShmem:", 9, PL_PST_RSSSHMEM),
    K("Threads:", 10, PL_PST_THREADS),      K("voluntary_ctxt_switches:", 11, PL_PST_VOLCTXT),
    K("nonvoluntary_ctxt_switches:", 12, PL_PST_NONVOLCTXT),
};
#undef K

int pl__proc_parse_status(const char *text, pl_proc_status *st)
{
    uint64_t vals[13] = {0};
    uint32_t have = 0;
    int named = 0;
    const char *s = text;
    while (*s) {
        const char *nl = strchr(s, '\n');
        const char *end = nl ? nl : s + strlen(s);
        char c = *s;
        if (c == 'N' && end - s >= 5 && memcmp(s, "Name:", 5) == 0) {
            named = 1;
        } else if (c == 'V' || c == 'R' || c == 'T' || c == 'v' || c == 'n') {
            for (size_t i = 0; i < sizeof status_keys / sizeof status_keys[0]; i++) {
                const struct key_row *k = &status_keys[i];
                if (k->key[0] != c || (size_t)(end - s) < k->len || memcmp(s, k->key, k->len) != 0) continue;
                const char *q = s + k->len;
                uint64_t v;
                if (!pl__parse_u64(&q, &v) || q > end) return -EINVAL;
                vals[k->slot] = v;
                have |= k->bit;
                break;
            }
        }
        s = nl ? nl + 1 : end;
    }
    if (!named) return -EINVAL;
    memset(st, 0, sizeof *st);
    st->have = have;
    st->vm_peak = vals[0];
    st->vm_size = vals[1];
    st->vm_hwm = vals[2];
    st->vm_rss = vals[3];
    st->vm_data = vals[4];
    st->vm_stk = vals[5];
    st->vm_swap = vals[6];
    st->rss_anon = vals[7];
    st->rss_file = vals[8];
    st->rss_shmem = vals[9];
    st->threads = vals[10];
    st->vol_ctxt = vals[11];
    st->nonvol_ctxt = vals[12];
    return 0;
}

/* ------------------------------------------------------------------ io */

int pl__proc_parse_io(const char *text, pl_proc_io *io)
{
    static const struct {
        const char *key;
        uint8_t len;
    } keys[] = {{"rchar:", 6},       {"wchar:", 6},        {"syscr:", 6},
                {"syscw:", 6},       {"read_bytes:", 11},  {"write_bytes:", 12},
                {"cancelled_write_bytes:", 22}};
    uint64_t vals[7] = {0};
    unsigned have = 0;
    const char *s = text;
    while (*s) {
        const char *nl = strchr(s, '\n');
        const char *end = nl ? nl : s + strlen(s);
        for (unsigned i = 0; i < 7; i++) {
            if ((size_t)(end - s) < keys[i].len || memcmp(s, keys[i].key, keys[i].len) != 0) continue;
            const char *q = s + keys[i].len;
            if (!pl__parse_u64(&q, &vals[i]) || q > end) return -EINVAL;
            have |= 1u << i;
            break;
        }
        s = nl ? nl + 1 : end;
    }
    if ((have & 0xFu) != 0xFu) return -EINVAL;
    io->rchar = vals[0];
    io->wchar = vals[1];
    io->syscr = vals[2];
    io->syscw = vals[3];
    io->read_bytes = vals[4];
    io->write_bytes = vals[5];
    io->cancelled_write_bytes = vals[6];
    return 0;
}

int pl__proc_parse_schedstat(const char *text, pl_proc_schedstat *ss)
{
    const char *s = text;
    if (!pl__parse_u64(&s, &ss->run_ns) || !pl__parse_u64(&s, &ss->wait_ns) || !pl__parse_u64(&s, &ss->slices))
        return -EINVAL;
    return 0;
}

/* ------------------------------------------------------------- readers */

int pl__proc_read_stat(int dirfd, pl_proc_stat *st)
{
    char buf[PL_PROC_STAT_BUF];
    ssize_t n = pl__proc_read1(dirfd, "stat", buf, sizeof buf);
    if (n < 0) return (int)n;
    if (n == 0) return -ESRCH; /* an exiting task can give an empty file */
    return pl__proc_parse_stat(buf, st);
}

uint64_t pl__proc_start_time(const char *proc, uint32_t pid)
{
    char path[128], buf[PL_PROC_STAT_BUF];
    snprintf(path, sizeof path, "%s/%u", proc, pid);
    int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return 0;
    ssize_t n = pl__proc_read1(dfd, "stat", buf, sizeof buf);
    close(dfd);
    pl_proc_stat st;
    if (n <= 0 || pl__proc_parse_stat(buf, &st) != 0 || (uint32_t)st.pid != pid) return 0;
    return st.starttime;
}

int pl__proc_read_status(int dirfd, pl_proc_status *st)
{
    char buf[PL_PROC_STATUS_BUF];
    ssize_t n = pl__proc_read1(dirfd, "status", buf, sizeof buf);
    if (n < 0) return (int)n;
    if (n == 0) return -ESRCH;
    return pl__proc_parse_status(buf, st);
}

int pl__proc_read_io(int dirfd, pl_proc_io *io)
{
    char buf[PL_PROC_IO_BUF];
    ssize_t n = pl__proc_read1(dirfd, "io", buf, sizeof buf);
    if (n < 0) return (int)n;
    return pl__proc_parse_io(buf, io);
}

int pl__proc_read_schedstat(int dirfd, const char *rel, pl_proc_schedstat *ss)
{
    char buf[128];
    ssize_t n = pl__proc_read1(dirfd, rel, buf, sizeof buf);
    if (n < 0) return (int)n;
    return pl__proc_parse_schedstat(buf, ss);
}

/* --------------------------------------------------------- directories */

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

static long getdents(int fd, void *buf, size_t len)
{
    return syscall(SYS_getdents64, fd, buf, len);
}

int64_t pl__proc_count_fds(int dirfd, int use_stat)
{
    if (use_stat) {
        struct stat sb;
        /* The kernel answers this for every user (no read permission on
         * the directory is needed): we report what it lets us see. */
        if (fstatat(dirfd, "fd", &sb, 0) < 0) return -errno;
        return (int64_t)sb.st_size;
    }
    int fd = openat(dirfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -errno;
    _Alignas(8) char buf[4096];
    int64_t count = 0;
    for (;;) {
        long n = getdents(fd, buf, sizeof buf);
        if (n < 0) {
            int e = errno;
            close(fd);
            return -e;
        }
        if (n == 0) break;
        for (long off = 0; off < n;) {
            const struct linux_dirent64 *d = (const struct linux_dirent64 *)(buf + off);
            if (d->d_name[0] != '.') count++;
            off += d->d_reclen;
        }
    }
    close(fd);
    return count;
}

int pl__proc_fd_stat_works(int procfd)
{
    struct stat sb;
    if (fstatat(procfd, "self/fd", &sb, 0) < 0) return 0;
    /* This process has stdin/out/err or at least procfd open: a kernel that
     * counts reports > 0; an ordinary directory is not a procfs one. */
    struct stat pb;
    if (fstat(procfd, &pb) < 0) return 0;
    if (pb.st_ino != 1 && pb.st_ino != 0) {
        /* /proc's root inode is 1 on procfs */
        return 0;
    }
    return sb.st_size > 0 && sb.st_size < (1 << 24);
}

void pl__pidvec_free(pl_pidvec *pv)
{
    free(pv->v);
    pv->v = NULL;
    pv->n = pv->cap = 0;
}

static int pv_push(pl_pidvec *pv, int32_t x)
{
    if (pv->n == pv->cap) {
        size_t nc = pv->cap ? pv->cap * 2 : 1024;
        int32_t *nv = realloc(pv->v, nc * sizeof *nv);
        if (!nv) return -ENOMEM;
        pv->v = nv;
        pv->cap = nc;
    }
    pv->v[pv->n++] = x;
    return 0;
}

ssize_t pl__proc_list_numeric(int dirfd, pl_pidvec *pv)
{
    pv->n = 0;
    if (lseek(dirfd, 0, SEEK_SET) < 0) return -errno;
    _Alignas(8) char buf[32768];
    int sorted = 1;
    for (;;) {
        long n = getdents(dirfd, buf, sizeof buf);
        if (n < 0) return -errno;
        if (n == 0) break;
        for (long off = 0; off < n;) {
            const struct linux_dirent64 *d = (const struct linux_dirent64 *)(buf + off);
            off += d->d_reclen;
            const char *nm = d->d_name;
            if (*nm < '0' || *nm > '9') continue;
            uint64_t v = 0;
            int ok = 1;
            for (; *nm; nm++) {
                if (*nm < '0' || *nm > '9' || v > INT32_MAX) {
                    ok = 0;
                    break;
                }
                v = v * 10 + (uint64_t)(*nm - '0');
            }
            if (!ok || v > INT32_MAX) continue;
            if (pv->n && pv->v[pv->n - 1] > (int32_t)v) sorted = 0;
            int rc = pv_push(pv, (int32_t)v);
            if (rc < 0) return rc;
        }
    }
    if (!sorted) {
        /* Insertion sort: procfs lists in order already; canned trees are small. */
        for (size_t i = 1; i < pv->n; i++) {
            int32_t x = pv->v[i];
            size_t j = i;
            while (j > 0 && pv->v[j - 1] > x) {
                pv->v[j] = pv->v[j - 1];
                j--;
            }
            pv->v[j] = x;
        }
    }
    return (ssize_t)pv->n;
}

size_t pl__fmt_i32(char *buf, int32_t v)
{
    char tmp[12];
    size_t n = 0;
    uint32_t u = v < 0 ? 0u : (uint32_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    for (size_t i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return n;
}

/* ---------------------------------------------------------------- maps */

static int hex_u64(const char **p, uint64_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    int digits = 0;
    for (;; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9') d = (unsigned)(*s - '0');
        else if (*s >= 'a' && *s <= 'f') d = (unsigned)(*s - 'a' + 10);
        else if (*s >= 'A' && *s <= 'F') d = (unsigned)(*s - 'A' + 10);
        else break;
        if (digits >= 16) return 0;
        x = (x << 4) | d;
        digits++;
    }
    if (!digits) return 0;
    *v = x;
    *p = s;
    return 1;
}

int pl__maps_next(const char **p, pl_maps_entry *e)
{
    const char *s = *p;
    if (!*s) return 0;
    const char *nl = strchr(s, '\n');
    const char *end = nl ? nl : s + strlen(s);
    const char *next = nl ? nl + 1 : end;
    memset(e, 0, sizeof *e);
    uint64_t off, maj, mnr;
    if (!hex_u64(&s, &e->start) || *s++ != '-' || !hex_u64(&s, &e->end) || *s++ != ' ') return -EINVAL;
    if (e->end < e->start || end - s < 5) return -EINVAL;
    char r = s[0], w = s[1], x = s[2], ps = s[3];
    if ((r != 'r' && r != '-') || (w != 'w' && w != '-') || (x != 'x' && x != '-') || (ps != 'p' && ps != 's'))
        return -EINVAL;
    s += 4;
    if (*s++ != ' ') return -EINVAL;
    if (!hex_u64(&s, &off) || *s++ != ' ') return -EINVAL;
    if (!hex_u64(&s, &maj) || *s++ != ':' || !hex_u64(&s, &mnr) || *s != ' ') return -EINVAL;
    if (maj > UINT32_MAX || mnr > UINT32_MAX) return -EINVAL; /* never a cut device number */
    if (!pl__parse_u64(&s, &e->inode) || s > end) return -EINVAL;
    while (s < end && *s == ' ') s++;
    e->path = s;
    e->path_len = (size_t)(end - s);
    e->dev_major = (uint32_t)maj;
    e->dev_minor = (uint32_t)mnr;
    e->shared = ps == 's';
    e->exec = x == 'x';
    int rd = r == 'r', wr = w == 'w';
    if (e->exec) {
        if (wr) e->prot = e->shared ? PL_PROT_EXEC_READ_WRITE : PL_PROT_EXEC_WRITE_COPY;
        else e->prot = rd ? PL_PROT_EXEC_READ_ONLY : PL_PROT_EXECUTABLE;
    } else {
        if (wr) e->prot = e->shared ? PL_PROT_READ_WRITE : PL_PROT_WRITE_COPY;
        else e->prot = rd ? PL_PROT_READ_ONLY : PL_PROT_NO_ACCESS;
    }
    *p = next;
    return 1;
}

/* ------------------------------------------------ smaps: commit charge */

/* Does the text at s (up to end) name a shared anonymous mapping? */
static int shared_anon_path(const char *path, size_t len)
{
    static const char zero[] = "/dev/zero (deleted)", named[] = "[anon_shmem:";
    if (len == sizeof zero - 1 && memcmp(path, zero, len) == 0) return 1;
    return len >= sizeof named - 1 && memcmp(path, named, sizeof named - 1) == 0;
}

static int add_kb(uint64_t *sum, uint64_t bytes)
{
    uint64_t kb = bytes / 1024;
    if (kb > UINT64_MAX - *sum) return -EINVAL;
    *sum += kb;
    return 0;
}

int pl__parse_smaps_commit(const char *text, pl_smaps_commit *out)
{
    memset(out, 0, sizeof *out);
    const char *s = text;
    int open = 0; /* a mapping whose VmFlags line has not come yet */
    pl_maps_entry e;
    memset(&e, 0, sizeof e);
    int anon_shared = 0, writable = 0;
    while (*s) {
        /* a "Key:" line (letters, digits, '_'), or a mapping's header */
        const char *k = s;
        while ((*k >= 'A' && *k <= 'Z') || (*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '_') k++;
        if (k > s && *k == ':') {
            if (!open) return -EINVAL; /* a key before any mapping */
            const char *nl = strchr(k, '\n');
            const char *end = nl ? nl : k + strlen(k);
            if (k - s == 7 && memcmp(s, "VmFlags", 7) == 0) {
                int ac = 0, nr = 0;
                const char *f = k + 1;
                for (;;) {
                    while (f < end && *f == ' ') f++;
                    if (f >= end) break;
                    if (end - f < 2 || f[0] < 'a' || f[0] > 'z' || f[1] < 'a' || f[1] > 'z' ||
                        (end - f > 2 && f[2] != ' '))
                        return -EINVAL;
                    if (f[0] == 'a' && f[1] == 'c') ac = 1;
                    if (f[0] == 'n' && f[1] == 'r') nr = 1;
                    f += 2;
                }
                uint64_t size = e.end - e.start;
                int rc = 0;
                if (ac) rc = add_kb(&out->private_kb, size);
                else if (writable && !e.shared) rc = add_kb(&out->reserved_kb, size);
                if (rc == 0 && anon_shared && !nr) rc = add_kb(&out->shared_anon_kb, size);
                if (rc) return rc;
                open = 0;
            }
            s = nl ? nl + 1 : end;
            continue;
        }
        if (open) return -EINVAL; /* the previous mapping had no VmFlags */
        int r = pl__maps_next(&s, &e);
        if (r < 0) return r;
        if (r == 0) break;
        writable = e.prot == PL_PROT_READ_WRITE || e.prot == PL_PROT_WRITE_COPY || e.prot == PL_PROT_EXEC_READ_WRITE ||
                   e.prot == PL_PROT_EXEC_WRITE_COPY;
        anon_shared = e.shared && shared_anon_path(e.path, e.path_len);
        open = 1;
        if (out->mappings < UINT32_MAX) out->mappings++;
    }
    return open ? -EINVAL : 0;
}
