/* This file is private to libperflib: no API/ABI guarantee.
 *
 * Readers for the per-process files under /proc/<pid>/ (proc_pid.c), used by
 * the PerfProc provider and the snapshot benchmark. Everything is relative to
 * directory descriptors (the /proc directory, a /proc/<pid> directory), reads
 * go into caller buffers with one read() per file, and no function allocates
 * except the growable pid vector. Functions return >= 0 on success and
 * -errno on failure: -ENOENT/-ESRCH mean the process or thread went away,
 * -EACCES that the caller may not read it, -EINVAL that the file is malformed.
 * Nothing here prints. */
#ifndef PL_COLLECT_PROC_H
#define PL_COLLECT_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Buffer sizes that hold the whole file for every process seen in practice:
 * stat is < 400 bytes, status < 1600, io < 200. */
#define PL_PROC_STAT_BUF 1024
#define PL_PROC_STATUS_BUF 4096
#define PL_PROC_IO_BUF 512
#define PL_PROC_COMM_MAX 64

/* Fields of /proc/<pid>/stat (and /proc/<pid>/task/<tid>/stat), proc(5)
 * numbering in comments. Times are in clock ticks (USER_HZ), rss in pages. */
typedef struct pl_proc_stat {
    int32_t pid;                        /* 1 */
    char comm[PL_PROC_COMM_MAX];        /* 2, without the parentheses, NUL-terminated, truncated */
    char state;                         /* 3 */
    int32_t ppid;                       /* 4 */
    uint64_t flags;                     /* 9 (PF_KTHREAD = 0x00200000) */
    uint64_t minflt, majflt;            /* 10, 12 */
    uint64_t utime, stime;              /* 14, 15 */
    int64_t priority, nice;             /* 18, 19 */
    uint64_t num_threads;               /* 20 */
    uint64_t starttime;                 /* 22, ticks after boot */
    uint64_t vsize;                     /* 23, bytes */
    uint64_t rss;                       /* 24, pages */
    int32_t processor;                  /* 39 (-1 when absent) */
    uint32_t rt_priority;               /* 40 */
    uint32_t policy;                    /* 41 */
} pl_proc_stat;

#define PL_PF_KTHREAD 0x00200000u

/* The largest utime/stime/starttime accepted, in clock ticks: times 10^7
 * (100 ns per tick at USER_HZ 1) it still fits in 64 bits. */
#define PL_PROC_STAT_MAX_TICKS (UINT64_MAX / 10000000u)

/* Parse a stat line. The comm may contain spaces and ')': it runs from the
 * first '(' to the LAST ')'. Fields up to 24 (rss) are required; 39..41 are
 * optional (old kernels). A kept unsigned field that is negative, a kept
 * field beyond 64 bits and a time above PL_PROC_STAT_MAX_TICKS are
 * malformed. Returns 0 or -EINVAL. */
int pl__proc_parse_stat(const char *text, pl_proc_stat *st);

/* Values of /proc/<pid>/status this provider needs, in kB (as the file). A
 * kernel thread or a zombie has no Vm* lines: `have` says what was present. */
typedef struct pl_proc_status {
    uint32_t have;                      /* PL_PST_* bits of the lines found */
    uint64_t vm_peak, vm_size, vm_hwm, vm_rss;
    uint64_t vm_data, vm_stk, vm_swap;
    uint64_t rss_anon, rss_file, rss_shmem;
    uint64_t threads;
    uint64_t vol_ctxt, nonvol_ctxt;
} pl_proc_status;

#define PL_PST_VMPEAK 0x0001u
#define PL_PST_VMSIZE 0x0002u
#define PL_PST_VMHWM 0x0004u
#define PL_PST_VMRSS 0x0008u
#define PL_PST_VMDATA 0x0010u
#define PL_PST_VMSTK 0x0020u
#define PL_PST_VMSWAP 0x0040u
#define PL_PST_RSSANON 0x0080u
#define PL_PST_RSSFILE 0x0100u
#define PL_PST_RSSSHMEM 0x0200u
#define PL_PST_THREADS 0x0400u
#define PL_PST_VOLCTXT 0x0800u
#define PL_PST_NONVOLCTXT 0x1000u
#define PL_PST_VM_ALL 0x03FFu /* every memory line (a process with an mm) */

/* Parse status text. Lines that are not of interest are skipped; a file
 * without a "Name:" line, or with a key of interest whose value is not a
 * number, is malformed. Returns 0 or -EINVAL. */
int pl__proc_parse_status(const char *text, pl_proc_status *st);

/* /proc/<pid>/io. rchar, wchar, syscr, syscw are required; read_bytes,
 * write_bytes, cancelled_write_bytes are 0 when absent. */
typedef struct pl_proc_io {
    uint64_t rchar, wchar, syscr, syscw;
    uint64_t read_bytes, write_bytes, cancelled_write_bytes;
} pl_proc_io;

int pl__proc_parse_io(const char *text, pl_proc_io *io);

/* /proc/<pid>/task/<tid>/schedstat: time on cpu (ns), time waiting (ns),
 * number of timeslices run (i.e. switches onto a cpu). */
typedef struct pl_proc_schedstat {
    uint64_t run_ns, wait_ns, slices;
} pl_proc_schedstat;

int pl__proc_parse_schedstat(const char *text, pl_proc_schedstat *ss);

/* openat(dirfd, rel) + ONE read() into buf (cap-1 bytes at most) + close;
 * NUL-terminates. Proc's seq files hand the whole content to one read that
 * is large enough. Returns the length or -errno. The file is opened
 * non-blocking and, unless procfs is trusted (below), read only if fstat()
 * says it is a regular file (pl__open_regular_at). */
ssize_t pl__proc_read1(int dirfd, const char *rel, char *buf, size_t cap);

/* Is the directory `fd` on the kernel's procfs (statfs magic)? 1 or 0. */
int pl__proc_is_procfs(int fd);
/* Skip the regular-file fstat() in pl__proc_read1 (on), or check again
 * (off). Only for descriptors on the kernel's procfs, where every file is the
 * kernel's own and no FIFO or device can be planted: a caller turns it on
 * after pl__proc_is_procfs() said so. Process-wide (per copy of this code). */
void pl__proc_trust_procfs(int on);

/* Read and parse a process's (or a task directory's) files. `dirfd` is the
 * /proc/<pid> (or /proc/<pid>/task/<tid>) directory. */
int pl__proc_read_stat(int dirfd, pl_proc_stat *st);
int pl__proc_read_status(int dirfd, pl_proc_status *st);
int pl__proc_read_io(int dirfd, pl_proc_io *io);
int pl__proc_read_schedstat(int dirfd, const char *rel, pl_proc_schedstat *ss);

/* Number of open descriptors of the process: the entries of <dirfd>/fd.
 * With use_stat set (Linux >= 6.2 reports the count as the directory's
 * st_size), one fstatat(); otherwise getdents64() with a stack buffer.
 * Returns the count or -errno. */
int64_t pl__proc_count_fds(int dirfd, int use_stat);

/* Does the kernel report fd counts as st_size under this /proc? Probes
 * <procfd>/self/fd: 1 yes, 0 no (older kernel, or a canned tree). */
int pl__proc_fd_stat_works(int procfd);

/* A growable vector of numeric directory entries (pids or tids). */
typedef struct pl_pidvec {
    int32_t *v;
    size_t n, cap;
} pl_pidvec;

void pl__pidvec_free(pl_pidvec *pv);

/* List the all-digit entries of a directory (rewinding it first, so the
 * same descriptor can be listed again), sorted ascending. Allocates only when
 * the vector must grow. Returns the count or -errno. */
ssize_t pl__proc_list_numeric(int dirfd, pl_pidvec *pv);

/* Format a non-negative int as decimal into buf (>= 12 bytes); returns its
 * length. */
size_t pl__fmt_i32(char *buf, int32_t v);

/* ---------------------------------------------------------------- maps */

/* Protection classes, as the Windows Image/Process Address Space counters
 * name them. Linux permission strings map as follows (p = private, s = shared):
 *   ---  No Access        r--  Read Only
 *   rw-s / -w-s Read/Write        rw-p / -w-p Write Copy
 *   --x  Executable       r-x  Exec Read Only
 *   rwxs / -wxs Exec Read/Write   rwxp / -wxp Exec Write Copy */
enum {
    PL_PROT_NO_ACCESS = 0,
    PL_PROT_READ_ONLY,
    PL_PROT_READ_WRITE,
    PL_PROT_WRITE_COPY,
    PL_PROT_EXECUTABLE,
    PL_PROT_EXEC_READ_ONLY,
    PL_PROT_EXEC_READ_WRITE,
    PL_PROT_EXEC_WRITE_COPY,
    PL_PROT_COUNT
};

/* One line of /proc/<pid>/maps. `path` points into the parsed text (not
 * NUL-terminated; path_len bytes), empty for anonymous mappings. */
typedef struct pl_maps_entry {
    uint64_t start, end;
    int prot;                 /* PL_PROT_* */
    int shared;               /* 's' */
    int exec;
    uint64_t inode;
    uint32_t dev_major, dev_minor;
    const char *path;
    size_t path_len;
} pl_maps_entry;

/* Parse the line at *p and advance *p past it. Returns 1 for an entry, 0 at
 * the end of the text, -EINVAL for a malformed line. */
int pl__maps_next(const char **p, pl_maps_entry *e);

/* -------------------------------------------------- smaps: commit charge */

/* What the kernel's commit accounting (Committed_AS, /proc/meminfo) holds
 * for one process's mappings, from /proc/<pid>/smaps: each mapping's
 * header line (as in maps) and its "VmFlags:" line (issue 33 item 7;
 * docs/providers/perfproc.md, "Private Bytes and Page File Bytes"). */
typedef struct pl_smaps_commit {
    uint64_t private_kb;     /* mappings with VM_ACCOUNT ("ac"): private writable memory the
                                kernel charged (MAP_NORESERVE and hugetlb ones are not), its
                                stacks, and memory made read-only after it was charged */
    uint64_t shared_anon_kb; /* shared anonymous mappings (MAP_SHARED | MAP_ANONYMOUS: "/dev/zero
                                (deleted)", "[anon_shmem:...]") without VM_NORESERVE ("nr"):
                                charged when they were made */
    uint64_t reserved_kb;    /* private writable mappings without VM_ACCOUNT: counted by
                                VmData, never charged (for the record) */
    uint32_t mappings;
} pl_smaps_commit;

/* Parse smaps text (NUL-terminated). Every mapping must have its VmFlags
 * line (Linux 3.8 and later); a header line that is not in the maps
 * format, a flag that is not two lower-case letters, a size that would
 * pass 64 bits, a mapping without VmFlags: -EINVAL. */
int pl__parse_smaps_commit(const char *text, pl_smaps_commit *out);

#endif
