/* perflib: PerfProc's BPF source -- loading the task iterator
 * (perfproc_iter.bpf.c, through its libbpf skeleton) and running passes.
 * docs/providers/perfproc.md, "The BPF source".
 *
 * Loading can fail for many reasons a kernel or its policy decides: no BTF,
 * no task iterator, the verifier refusing the program, lockdown, a seccomp
 * filter, missing privileges. Each one comes back as -errno with one line
 * saying why, and the provider reads /proc instead. libbpf's own messages
 * are caught while it works (the library never prints). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfproc_int.h"
#include "pl_internal.h"
#include "platform.h"

int64_t pl__pp_boot_offset(int procfd)
{
    char buf[256];
    ssize_t n = pl__proc_read1(procfd, "self/timens_offsets", buf, sizeof buf);
    if (n <= 0) return 0;
    const char *s = strstr(buf, "boottime");
    if (!s) return 0;
    s += 8;
    int64_t sec = 0, nsec = 0;
    if (!pl__parse_i64(&s, &sec) || !pl__parse_i64(&s, &nsec)) return 0;
    if (sec > INT64_MAX / 1000000000 - 1 || sec < INT64_MIN / 1000000000 + 1 || nsec <= -1000000000 ||
        nsec >= 1000000000)
        return 0;
    return sec * 1000000000 + nsec;
}

#ifndef PL_PERFPROC_HAVE_BPF

struct pp_bpf {
    int unused;
};

int pl__pp_bpf_open(pp_bpf **out, char *why, size_t cap)
{
    *out = NULL;
    snprintf(why, cap, "%s", PL_PERFPROC_NO_BPF);
    return -ENOSYS;
}

int pl__pp_bpf_pass(pp_bpf *b, const void **buf, size_t *len, char *why, size_t cap)
{
    (void)b;
    *buf = NULL;
    *len = 0;
    snprintf(why, cap, "%s", PL_PERFPROC_NO_BPF);
    return -ENOSYS;
}

void pl__pp_bpf_close(pp_bpf *b)
{
    (void)b;
}

#else

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <stdarg.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#endif
#include "perfproc_iter.skel.h"
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

struct pp_bpf {
    struct perfproc_iter *skel;
    struct bpf_link *link;
    uint8_t *buf; /* the last pass; 8-aligned (malloc) */
    size_t cap;
    int fail_passes; /* test hook: every pass after the first fails */
    unsigned long passes;
};

/* ------------------------------------------------------------ libbpf's messages */

/* The last lines libbpf printed while loading, for `why`. libbpf's print
 * hook is process-wide: it is ours only for the duration of a load, under
 * this lock, and the previous one is put back. */
static pthread_mutex_t print_mu = PTHREAD_MUTEX_INITIALIZER;
static char last_lines[4][160];
static unsigned nlines;

__attribute__((format(printf, 2, 0))) static int catch_print(enum libbpf_print_level level, const char *fmt,
                                                             va_list ap)
{
    if (level == LIBBPF_DEBUG) return 0;
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    /* every line of a multi-line message (the verifier's log) */
    for (char *p = line; *p;) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = '\0';
        while (*p == ' ' || *p == '\t') p++;
        if (*p && strncmp(p, "-- ", 3) != 0 && strncmp(p, "processed ", 10) != 0 &&
            strstr(p, "failed to load") == NULL) {
            size_t l = strnlen(p, sizeof last_lines[0] - 1);
            memcpy(last_lines[nlines % 4], p, l);
            last_lines[nlines % 4][l] = '\0';
            nlines++;
        }
        if (!nl) break;
        p = nl + 1;
    }
    return 0;
}

/* The most telling line libbpf printed: the last one kept. */
static const char *libbpf_said(void)
{
    return nlines ? last_lines[(nlines - 1) % 4] : "";
}

/* ------------------------------------------------------------ loading */

/* Where run queues and this_cpu_off lie in .data..percpu (the program finds
 * every CPU's per-CPU offset from them). 0, or -ENOTSUP. */
static int percpu_offsets(const char *btf_path, uint64_t *rq, uint64_t *tco, char *why, size_t cap)
{
    struct btf *vb = btf__parse(btf_path, NULL);
    if (!vb) {
        int e = errno ? errno : EINVAL;
        char eb[64];
        snprintf(why, cap, "cannot read kernel BTF %s: %s", btf_path, pl__strerror(e, eb, sizeof eb));
        return -e;
    }
    *rq = *tco = 0;
    int ds = btf__find_by_name_kind(vb, ".data..percpu", BTF_KIND_DATASEC);
    if (ds > 0) {
        const struct btf_type *t = btf__type_by_id(vb, (unsigned)ds);
        const struct btf_var_secinfo *vs = btf_var_secinfos(t);
        for (unsigned i = 0; i < btf_vlen(t); i++) {
            const struct btf_type *v = btf__type_by_id(vb, vs[i].type);
            const char *nm = v ? btf__name_by_offset(vb, v->name_off) : NULL;
            if (!nm) continue;
            if (strcmp(nm, "runqueues") == 0) *rq = vs[i].offset;
            else if (strcmp(nm, "this_cpu_off") == 0) *tco = vs[i].offset;
        }
    }
    btf__free(vb);
    if (!*rq || !*tco) {
        snprintf(why, cap,
                 "kernel BTF %s has no per-CPU runqueues/this_cpu_off (x86-64 only): the per-CPU memory counters "
                 "cannot be summed as /proc sums them",
                 btf_path);
        return -ENOTSUP;
    }
    return 0;
}

/* A program the verifier must refuse (test hook): it reads the stack
 * below its frame. */
static const struct bpf_insn refused_prog[] = {
    {.code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_0, .src_reg = BPF_REG_10, .off = 8, .imm = 0},
    {.code = BPF_JMP | BPF_EXIT, .dst_reg = 0, .src_reg = 0, .off = 0, .imm = 0},
};

static void say_errno(char *why, size_t cap, const char *what, int e)
{
    const char *said = libbpf_said();
    char eb[64];
    if (e == EPERM || e == EACCES)
        snprintf(why, cap, "%s: %s (loading needs root, or CAP_BPF with CAP_PERFMON; locked down, or a seccomp "
                 "filter)%s%s",
                 what, pl__strerror(e, eb, sizeof eb), *said ? ": " : "", said);
    else
        snprintf(why, cap, "%s: %s%s%s", what, pl__strerror(e, eb, sizeof eb), *said ? ": " : "", said);
}

static int load(pp_bpf *b, char *why, size_t cap)
{
    const char *env_btf = getenv("PERFLIB_PERFPROC_BTF");
    const char *btf_path = env_btf && *env_btf ? env_btf : "/sys/kernel/btf/vmlinux";
    if (access(btf_path, R_OK) != 0) {
        int e = errno;
        char eb[64];
        snprintf(why, cap, "no kernel BTF: %s: %s (the kernel needs CONFIG_DEBUG_INFO_BTF)", btf_path,
                 pl__strerror(e, eb, sizeof eb));
        return -e;
    }
    uint64_t rq, tco;
    int rc = percpu_offsets(btf_path, &rq, &tco, why, cap);
    if (rc != 0) return rc;
    LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = env_btf && *env_btf ? env_btf : NULL);
    b->skel = perfproc_iter__open_opts(&oo);
    if (!b->skel) {
        say_errno(why, cap, "cannot open the BPF object", errno ? errno : EINVAL);
        return -EINVAL;
    }
    b->skel->rodata->sec_runqueues = rq;
    b->skel->rodata->sec_this_cpu_off = tco;
    const char *fault = getenv("PERFLIB_PERFPROC_BPF_FAULT");
    if (fault && strcmp(fault, "verifier") == 0) {
        if (bpf_program__set_insns(b->skel->progs.perfproc_tasks, (struct bpf_insn *)refused_prog,
                                   sizeof refused_prog / sizeof refused_prog[0]) != 0) {
            snprintf(why, cap, "test hook: cannot replace the program");
            return -EINVAL;
        }
    } else if (fault && strcmp(fault, "pass") == 0) {
        b->fail_passes = 1;
    }
    if (perfproc_iter__load(b->skel) != 0) {
        int e = errno ? errno : EINVAL;
        say_errno(why, cap, "the kernel refused the BPF program", e);
        return -e;
    }
    /* Test hook "iter": an attachment the kernel refuses (a task iterator
     * for a thread and a process at once), as a kernel whose task iterator
     * cannot be attached. */
    union bpf_iter_link_info li;
    memset(&li, 0, sizeof li);
    li.task.tid = li.task.pid = (uint32_t)getpid();
    LIBBPF_OPTS(bpf_iter_attach_opts, ao, .link_info = &li, .link_info_len = sizeof li);
    int bad_attach = fault && strcmp(fault, "iter") == 0;
    b->link = bpf_program__attach_iter(b->skel->progs.perfproc_tasks, bad_attach ? &ao : NULL);
    if (!b->link) {
        int e = errno ? errno : EINVAL;
        say_errno(why, cap, "cannot attach the task iterator", e);
        return -e;
    }
    return 0;
}

void pl__pp_bpf_close(pp_bpf *b)
{
    if (!b) return;
    if (b->link) bpf_link__destroy(b->link);
    if (b->skel) perfproc_iter__destroy(b->skel);
    free(b->buf);
    free(b);
}

int pl__pp_bpf_open(pp_bpf **out, char *why, size_t cap)
{
    *out = NULL;
    pp_bpf *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(why, cap, "out of memory");
        return -ENOMEM;
    }
    pthread_mutex_lock(&print_mu);
    nlines = 0;
    libbpf_print_fn_t old = libbpf_set_print(catch_print);
    errno = 0;
    int rc = load(b, why, cap);
    libbpf_set_print(old);
    pthread_mutex_unlock(&print_mu);
    if (rc != 0) {
        pl__pp_bpf_close(b);
        return rc;
    }
    *out = b;
    return 0;
}

int pl__pp_bpf_pass(pp_bpf *b, const void **buf, size_t *len, char *why, size_t cap)
{
    *buf = NULL;
    *len = 0;
    if (b->fail_passes && b->passes++ > 0) {
        snprintf(why, cap, "a pass failed (test hook PERFLIB_PERFPROC_BPF_FAULT=pass)");
        return -EIO;
    }
    int fd = bpf_iter_create(bpf_link__fd(b->link));
    if (fd < 0) {
        int e = errno ? errno : EIO;
        char eb[64];
        snprintf(why, cap, "cannot start a pass (bpf_iter_create): %s", pl__strerror(e, eb, sizeof eb));
        return -e;
    }
    size_t n = 0;
    for (;;) {
        if (b->cap - n < 65536) {
            size_t nc = b->cap ? b->cap * 2 : (size_t)1 << 20;
            if (nc > ((size_t)1 << 30)) {
                close(fd);
                snprintf(why, cap, "a pass is larger than 1 GiB");
                return -EFBIG;
            }
            uint8_t *nb = realloc(b->buf, nc);
            if (!nb) {
                close(fd);
                snprintf(why, cap, "out of memory");
                return -ENOMEM;
            }
            b->buf = nb;
            b->cap = nc;
        }
        ssize_t r = read(fd, b->buf + n, b->cap - n);
        if (r == 0) break;
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN) continue; /* the iterator resumes where it was */
            int e = errno;
            close(fd);
            char eb[64];
            snprintf(why, cap, "a pass failed (read): %s", pl__strerror(e, eb, sizeof eb));
            return -e;
        }
        n += (size_t)r;
    }
    close(fd);
    *buf = b->buf;
    *len = n;
    return 0;
}

#endif
