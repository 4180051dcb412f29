// SPDX-License-Identifier: GPL-2.0
/* perflib: PerfProc's BPF source -- one pass of the kernel's task iterator
 * writes every task's numbers in binary (perfproc_bpf.h), read by
 * perfproc_bpf.c. Compiled at build time with clang -target bpf against the
 * build machine's vmlinux.h; CO-RE relocations fit it to the running
 * kernel's BTF when it is loaded. docs/providers/perfproc.md ("The BPF
 * source") says, field by field, which kernel value /proc shows and how the
 * reader turns it into the same number.
 *
 * The program only reads. What the kernel computes when /proc is read
 * (cputime_adjust(), nsec_to_clock_t(), kB) is done by the reader from the
 * raw values written here. The license is GPL because the program reads
 * kernel memory with GPL-only helpers (bpf_probe_read_kernel). */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "perfproc_bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Kernel flags and state bits (include/linux/sched.h); CO-RE cannot
 * relocate a #define, and these have not changed since Linux 6.1. */
#define PF_KTHREAD 0x00200000u
#define PF_WQ_WORKER 0x00000020u
#define TASK_REPORT 0x7fu
#define TASK_REPORT_IDLE 0x80u
#define TASK_IDLE 0x402u
#define TASK_RTLOCK_WAIT 0x1000u
#define TASK_FROZEN 0x8000u

/* How many CPUs' parts of a per-CPU counter are summed (more: the sum is
 * marked partial and the reader reads that process from /proc). */
#define MAX_CPUS 1024
/* Threads walked for one group's sums; descriptor-bitmap words counted. */
#define MAX_GROUP_THREADS (1u << 20)
#define FD_WORDS_PER_STEP 16
#define MAX_FD_STEPS 4096 /* 16 x 64 x 4096 = 4 Mi descriptors (fs.nr_open's ceiling is 2^30, its default 2^20) */

/* Where two static per-CPU variables lie in the kernel's .data..percpu
 * section (from its BTF, set by the reader before the program is loaded):
 * the run queue, and x86's this_cpu_off, whose copy on CPU n holds CPU n's
 * per-CPU offset. 0: unknown (no per-CPU sums; the reader does not use this
 * source). */
const volatile __u64 sec_runqueues = 0;
const volatile __u64 sec_this_cpu_off = 0;

/* CPU n's per-CPU offset (__per_cpu_offset[n]), found on the first run of
 * the program: the same values every time. */
static __u64 cpu_off[MAX_CPUS];
static __u32 ncpu_off;

/* How many task records each pass (iterator session) has written whole,
 * for its end record. Passes may run at once (a forked child shares the
 * loaded program): one entry each, dropped at the pass's end; an abandoned
 * pass's entry is the least recently used. */
struct {
    __uint(type, BPF_MAP_TYPE_LRU_HASH);
    __uint(max_entries, 64);
    __type(key, __u64);
    __type(value, __u64);
} pass_tasks SEC(".maps");

/* ------------------------------------------------------------ pids */

/* The reader's pid namespace: its level and the namespace itself. */
struct pidns_ctx {
    unsigned int level;
    void *ns;
};

/* pid_nr_ns(): the number of `pid` in the namespace, 0 when it has none. */
static __always_inline int pid_nr_in(struct pid *pid, const struct pidns_ctx *pn)
{
    if (!pid) return 0;
    unsigned int level = BPF_CORE_READ(pid, level);
    if (pn->level > level) return 0;
    struct upid up;
    __builtin_memset(&up, 0, sizeof up);
    void *at = (void *)pid + bpf_core_field_offset(struct pid, numbers) +
               (__u64)pn->level * bpf_core_type_size(struct upid);
    if (bpf_probe_read_kernel(&up, sizeof up, at)) return 0;
    return up.ns == pn->ns ? up.nr : 0;
}

/* ------------------------------------------------------------ state */

static __always_inline __u32 state_letter(struct task_struct *t)
{
    unsigned int st;
    if (bpf_core_field_exists(t->__state))
        st = BPF_CORE_READ(t, __state);
    else
        st = 0;
    unsigned int ex = BPF_CORE_READ(t, exit_state);
    unsigned int s = (st | ex) & TASK_REPORT;
    if ((st & TASK_IDLE) == TASK_IDLE) s = TASK_REPORT_IDLE;
    if ((st & TASK_RTLOCK_WAIT) || (st & TASK_FROZEN)) s = 2; /* TASK_UNINTERRUPTIBLE */
    /* fls(): the index into "RSDTtXZPI" */
    int i = 0;
    while (s && i < 9) {
        s >>= 1;
        i++;
    }
    switch (i) {
    case 0: return 'R';
    case 1: return 'S';
    case 2: return 'D';
    case 3: return 'T';
    case 4: return 't';
    case 5: return 'X';
    case 6: return 'Z';
    case 7: return 'P';
    default: return 'I';
    }
}

/* ------------------------------------------------------------ group sums */

struct group_sums {
    __u64 utime, stime, runtime, min_flt, maj_flt;
    __u64 rchar, wchar, syscr, syscw;
    __u64 head;   /* &signal->thread_head */
    __u64 node;   /* the list node being walked */
    __u64 skip;   /* the leader's own node: its numbers are read directly */
    int done;
};

/* Two adjacent u64 fields of a task read at once when the kernel lays
 * them out side by side (CO-RE offsets, known when loaded). */
#define READ_PAIR(t, a, b, x, y)                                                                                     \
    do {                                                                                                             \
        if (bpf_core_field_offset(struct task_struct, b) == bpf_core_field_offset(struct task_struct, a) + 8) {     \
            __u64 v2[2] = {0, 0};                                                                                    \
            bpf_probe_read_kernel(v2, sizeof v2, (void *)(t) + bpf_core_field_offset(struct task_struct, a));        \
            x = v2[0];                                                                                               \
            y = v2[1];                                                                                               \
        } else {                                                                                                     \
            x = BPF_CORE_READ((struct task_struct *)(t), a);                                                         \
            y = BPF_CORE_READ((struct task_struct *)(t), b);                                                         \
        }                                                                                                            \
    } while (0)

/* One more thread of the group (not the leader): its numbers are added. */
static long add_thread(__u32 i, void *arg)
{
    struct group_sums *g = arg;
    __u64 next = 0;
    if (bpf_probe_read_kernel(&next, sizeof next, (void *)g->node)) return 1; /* list_head.next comes first */
    if (!next || next == g->head) {
        g->done = 1;
        return 1;
    }
    g->node = next;
    if (next == g->skip) return 0;
    __u64 t = next - bpf_core_field_offset(struct task_struct, thread_node);
    __u64 a, b;
    READ_PAIR(t, utime, stime, a, b);
    g->utime += a;
    g->stime += b;
    g->runtime += BPF_CORE_READ((struct task_struct *)t, se.sum_exec_runtime);
    READ_PAIR(t, min_flt, maj_flt, a, b);
    g->min_flt += a;
    g->maj_flt += b;
    __u64 io[4] = {0, 0, 0, 0};
    if (bpf_core_field_offset(struct task_io_accounting, wchar) == 8 &&
        bpf_core_field_offset(struct task_io_accounting, syscr) == 16 &&
        bpf_core_field_offset(struct task_io_accounting, syscw) == 24 &&
        bpf_core_field_offset(struct task_io_accounting, rchar) == 0) {
        bpf_probe_read_kernel(io, sizeof io, (void *)t + bpf_core_field_offset(struct task_struct, ioac));
    } else {
        io[0] = BPF_CORE_READ((struct task_struct *)t, ioac.rchar);
        io[1] = BPF_CORE_READ((struct task_struct *)t, ioac.wchar);
        io[2] = BPF_CORE_READ((struct task_struct *)t, ioac.syscr);
        io[3] = BPF_CORE_READ((struct task_struct *)t, ioac.syscw);
    }
    g->rchar += io[0];
    g->wchar += io[1];
    g->syscr += io[2];
    g->syscw += io[3];
    return 0;
}

/* The group's sums as thread_group_cputime(), do_task_stat() and
 * do_io_accounting() read them: the signal struct's (threads already gone)
 * plus every live thread's, between two equal even counts of stats_lock,
 * which an exiting thread holds while it moves its numbers into the signal
 * struct. The leader `t` is read directly, the other threads through the
 * thread list. `t_addr`/`sig_addr` are the same pointers as plain numbers,
 * for the walk. Returns 1 when consistent. */
static __always_inline int read_group(struct task_struct *t, struct signal_struct *sig, __u64 t_addr,
                                      __u64 sig_addr, struct pp_rec_proc *r)
{
    struct group_sums g;
    for (int attempt = 0; attempt < 4; attempt++) {
        unsigned int s0 = sig->stats_lock.seqcount.seqcount.sequence;
        if (s0 & 1) continue;
        barrier();
        g.utime = sig->utime + t->utime;
        g.stime = sig->stime + t->stime;
        g.runtime = sig->sum_sched_runtime + t->se.sum_exec_runtime;
        g.min_flt = sig->min_flt + t->min_flt;
        g.maj_flt = sig->maj_flt + t->maj_flt;
        g.rchar = sig->ioac.rchar + t->ioac.rchar;
        g.wchar = sig->ioac.wchar + t->ioac.wchar;
        g.syscr = sig->ioac.syscr + t->ioac.syscr;
        g.syscw = sig->ioac.syscw + t->ioac.syscw;
        g.head = sig_addr + bpf_core_field_offset(struct signal_struct, thread_head);
        g.node = g.head;
        g.skip = t_addr + bpf_core_field_offset(struct task_struct, thread_node);
        g.done = 0;
        bpf_loop(MAX_GROUP_THREADS, add_thread, &g, 0);
        if (!g.done) return 0;
        barrier();
        if (sig->stats_lock.seqcount.seqcount.sequence != s0) continue;
        r->utime = g.utime;
        r->stime = g.stime;
        r->runtime = g.runtime;
        r->min_flt = g.min_flt;
        r->maj_flt = g.maj_flt;
        r->rchar = g.rchar;
        r->wchar = g.wchar;
        r->syscr = g.syscr;
        r->syscw = g.syscw;
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ per-CPU sums */

/* The records being written: too large for the 512-byte BPF stack. Per CPU,
 * which also gives every CPU's offset relative to this one's. */
struct scratch {
    struct pp_rec_proc proc;
    struct pp_rec_thread thread;
    __u64 addr[2]; /* pointers stored to be read back as plain numbers */
};

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct scratch);
} scratch_map SEC(".maps");

struct off_ctx {
    void *base;  /* this CPU's copy of scratch_map's value */
    __u64 off_c; /* this CPU's per-CPU offset */
};

static long fill_cpu_off(__u32 i, void *arg)
{
    struct off_ctx *c = arg;
    __u32 zero = 0;
    if (i >= MAX_CPUS) return 1;
    void *p = bpf_map_lookup_percpu_elem(&scratch_map, &zero, i);
    if (!p) return 1; /* past the possible CPUs */
    __s64 d = (char *)p - (char *)c->base; /* a scalar: pointer minus pointer */
    barrier_var(d);
    __u32 k = i;
    barrier_var(k);
    cpu_off[k & (MAX_CPUS - 1)] = c->off_c + (__u64)d;
    ncpu_off = i + 1;
    return 0;
}

/* Every possible CPU's per-CPU offset: this CPU's from its run queue and
 * this_cpu_off (their distance in the section), the others' from the
 * distances between the copies of a per-CPU map's value. Returns 0 when
 * the table is there. */
static __always_inline int cpu_offsets(void)
{
    if (ncpu_off) return 0;
    if (!sec_runqueues || !sec_this_cpu_off) return -1;
    struct task_struct *cur = bpf_get_current_task_btf();
    if (!bpf_core_field_exists(cur->se.cfs_rq) || !bpf_core_field_exists(struct cfs_rq, rq)) return -1;
    struct cfs_rq *cfs = BPF_CORE_READ(cur, se.cfs_rq);
    __u64 rq = (__u64)BPF_CORE_READ(cfs, rq);
    if (!rq) return -1;
    __u32 cpu = bpf_get_smp_processor_id();
    if (BPF_CORE_READ((struct rq *)rq, cpu) != (int)cpu) return -1;
    struct off_ctx c;
    c.off_c = 0;
    if (bpf_probe_read_kernel(&c.off_c, sizeof c.off_c, (void *)(rq - sec_runqueues + sec_this_cpu_off))) return -1;
    __u32 zero = 0;
    c.base = bpf_map_lookup_percpu_elem(&scratch_map, &zero, cpu);
    if (!c.base) return -1;
    bpf_loop(MAX_CPUS, fill_cpu_off, &c, 0);
    return ncpu_off ? 0 : -1;
}

struct rss_ctx {
    __u64 ctr[4]; /* the counters' per-CPU pointers */
    __s64 sum[4];
    int bad;
};

static long add_cpu_rss(__u32 i, void *arg)
{
    struct rss_ctx *c = arg;
    if (i >= MAX_CPUS || i >= ncpu_off) return 1;
    __u32 k0 = i;
    barrier_var(k0);
    __u64 off = cpu_off[k0 & (MAX_CPUS - 1)];
    if (c->ctr[1] == c->ctr[0] + 4 && c->ctr[2] == c->ctr[0] + 8 && c->ctr[3] == c->ctr[0] + 12) {
        /* percpu_counter_init_many(): the four counters' parts lie side by side */
        __s32 v[4] = {0, 0, 0, 0};
        if (bpf_probe_read_kernel(v, sizeof v, (void *)(c->ctr[0] + off))) {
            c->bad = 1;
            return 1;
        }
        for (int k = 0; k < 4; k++) c->sum[k] += v[k];
        return 0;
    }
    for (int k = 0; k < 4; k++) {
        __s32 v = 0;
        if (bpf_probe_read_kernel(&v, sizeof v, (void *)(c->ctr[k] + off))) {
            c->bad = 1;
            return 1;
        }
        c->sum[k] += v;
    }
    return 0;
}

/* ------------------------------------------------------------ descriptors */

struct fd_ctx {
    unsigned long *bits;
    __u32 words;
    __u64 count;
};

static __always_inline __u64 popcount64(__u64 x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (x * 0x0101010101010101ull) >> 56;
}

static long count_fd_words(__u32 i, void *arg)
{
    struct fd_ctx *c = arg;
    __u32 w0 = i * FD_WORDS_PER_STEP;
    if (w0 >= c->words) return 1;
    __u64 buf[FD_WORDS_PER_STEP];
    __u32 n = c->words - w0;
    if (n > FD_WORDS_PER_STEP) n = FD_WORDS_PER_STEP;
    __builtin_memset(buf, 0, sizeof buf);
    if (n == FD_WORDS_PER_STEP) {
        if (bpf_probe_read_kernel(buf, sizeof buf, c->bits + w0)) return 1;
    } else {
        for (__u32 k = 0; k < FD_WORDS_PER_STEP; k++) {
            if (k >= n) break;
            if (bpf_probe_read_kernel(&buf[k], sizeof buf[k], c->bits + w0 + k)) return 1;
        }
    }
    for (int k = 0; k < FD_WORDS_PER_STEP; k++) c->count += popcount64(buf[k]);
    return 0;
}

/* proc_readfd_count(): the bits set in the open-descriptor bitmap. */
static __always_inline int count_fds(struct files_struct *files, __u64 *out)
{
    struct fdtable *fdt = files->fdt;
    if (!fdt) return 0;
    struct fd_ctx c;
    __builtin_memset(&c, 0, sizeof c);
    unsigned int max = fdt->max_fds;
    c.bits = BPF_CORE_READ(fdt, open_fds);
    c.words = (max + 63) / 64; /* max_fds is a multiple of BITS_PER_LONG */
    if (c.words > FD_WORDS_PER_STEP * MAX_FD_STEPS) return -1;
    bpf_loop(MAX_FD_STEPS, count_fd_words, &c, 0);
    *out = c.count;
    return 0;
}

/* ------------------------------------------------------------ names */

/* proc_task_name() without escaping, as /proc/<pid>/stat shows it: a kernel
 * thread's full name when it has one longer than the comm (else the comm),
 * and for a workqueue worker that has run work, "+desc" while it runs some
 * and "-desc" after. */
static __always_inline void task_name(struct task_struct *t, __u32 flags, char *out)
{
    __builtin_memset(out, 0, PP_COMM_LEN);
    bpf_probe_read_kernel_str(out, 16, &t->comm);
    if (!(flags & (PF_WQ_WORKER | PF_KTHREAD))) return;
    struct kthread *kt = 0;
    if (bpf_core_field_exists(t->worker_private)) kt = BPF_CORE_READ(t, worker_private);
    if (!kt) return;
    if (bpf_core_field_exists(kt->full_name)) {
        const char *full = BPF_CORE_READ(kt, full_name);
        if (full) bpf_probe_read_kernel_str(out, PP_COMM_LEN, full);
    }
    if (!(flags & PF_WQ_WORKER)) return;
    struct worker *w = BPF_CORE_READ(kt, data);
    if (!w || !BPF_CORE_READ(w, pool)) return;
    char desc[32];
    if (bpf_probe_read_kernel_str(desc, sizeof desc, &w->desc) <= 1) return;
    int off = 0;
    for (int k = 0; k < PP_COMM_LEN; k++) {
        if (!out[k]) break;
        off++;
    }
    if (off > PP_COMM_LEN - 2) return;
    out[off & (PP_COMM_LEN - 1)] = BPF_CORE_READ(w, current_work) ? '+' : '-';
    off++;
    /* scnprintf() into what is left of the 64 bytes */
    __u32 room = PP_COMM_LEN - off;
    if (room > 32) room = 32;
    bpf_probe_read_kernel_str(out + (off & (PP_COMM_LEN - 1)), room & (PP_COMM_LEN - 1), &w->desc);
}

/* ------------------------------------------------------------ the program */


static __always_inline void read_thread(struct task_struct *t, struct pp_rec_thread *r, const struct pidns_ctx *pn)
{
    r->kind = PP_REC_THREAD;
    r->flags = 0;
    if (pn->level == 0) {
        r->tid = t->pid;
        r->tgid = t->tgid;
    } else {
        r->tid = pid_nr_in(t->thread_pid, pn);
        r->tgid = pid_nr_in(t->signal->pids[PIDTYPE_TGID], pn);
    }
    r->task_flags = t->flags;
    if (bpf_core_field_exists(t->thread_info.cpu))
        r->cpu = t->thread_info.cpu;
    else
        r->cpu = -1;
    r->policy = t->policy;
    r->rt_priority = t->rt_priority;
    r->static_prio = t->static_prio;
    r->state = state_letter(t);
    r->start_boottime = t->start_boottime;
    r->utime = t->utime;
    r->stime = t->stime;
    r->runtime = t->se.sum_exec_runtime;
    r->prev_utime = t->prev_cputime.utime;
    r->prev_stime = t->prev_cputime.stime;
    r->min_flt = t->min_flt;
    r->maj_flt = t->maj_flt;
    if (bpf_core_field_exists(t->sched_info)) {
        r->pcount = t->sched_info.pcount;
        r->flags |= PPF_SCHED_INFO;
    } else {
        r->pcount = 0;
    }
}

static __always_inline void read_proc(struct task_struct *t, struct scratch *sc, const struct pidns_ctx *pn)
{
    struct pp_rec_proc *r = &sc->proc;
    __u32 task_flags = sc->thread.task_flags;
    __builtin_memset(r, 0, sizeof *r);
    r->kind = PP_REC_PROC;
    r->pid = sc->thread.tid;
    struct signal_struct *sig = t->signal;
    if (!sig) return;
    if (t->sighand) {
        r->flags |= PPF_SIGHAND;
        r->nr_threads = sig->nr_threads;
        struct task_struct *parent = t->real_parent;
        if (pn->level == 0)
            r->ppid = parent->tgid;
        else
            r->ppid = pid_nr_in(parent->signal->pids[PIDTYPE_TGID], pn);
    }
    /* the pointers as plain numbers, for the thread walk */
    sc->addr[0] = (__u64)t;
    sc->addr[1] = (__u64)sig;
    barrier();
    if (read_group(t, sig, sc->addr[0], sc->addr[1], r)) r->flags |= PPF_COMPLETE; /* cleared below if need be */
    r->prev_utime = sig->prev_cputime.utime;
    r->prev_stime = sig->prev_cputime.stime;
    r->nvcsw = t->nvcsw;
    r->nivcsw = t->nivcsw;
    struct mm_struct *mm = (task_flags & PF_KTHREAD) ? 0 : t->mm;
    if (mm) {
        r->flags |= PPF_MM;
        r->total_vm = mm->total_vm;
        r->hiwater_vm = mm->hiwater_vm;
        r->hiwater_rss = mm->hiwater_rss;
        r->data_vm = mm->data_vm;
        r->stack_vm = mm->stack_vm;
        struct rss_ctx c;
        __builtin_memset(&c, 0, sizeof c);
        for (int k = 0; k < 4; k++) {
            r->rss_count[k] = mm->rss_stat[k].count;
            c.sum[k] = r->rss_count[k];
            c.ctr[k] = (__u64)BPF_CORE_READ(mm, rss_stat[k].counters);
        }
        if (cpu_offsets() == 0) bpf_loop(MAX_CPUS, add_cpu_rss, &c, 0);
        if (c.bad || ncpu_off == 0) r->flags &= ~PPF_COMPLETE; /* the reader reads this process from /proc */
        for (int k = 0; k < 4; k++) r->rss_sum[k] = c.sum[k];
    }
    struct files_struct *files = t->files;
    if (files) {
        r->flags |= PPF_FILES;
        if (count_fds(files, &r->fds) != 0) r->flags &= ~PPF_COMPLETE;
    }
    task_name(t, task_flags, r->comm);
}

SEC("iter/task")
int perfproc_tasks(struct bpf_iter__task *ctx)
{
    struct seq_file *seq = ctx->meta->seq;
    struct task_struct *t = ctx->task;
    __u64 session = ctx->meta->session_id;
    __u64 *written = bpf_map_lookup_elem(&pass_tasks, &session);
    if (!t) {
        struct pp_rec_end e = {.kind = PP_REC_END, .pad = 0, .tasks = written ? *written : 0};
        if (bpf_seq_write(seq, &e, sizeof e) == 0) bpf_map_delete_elem(&pass_tasks, &session);
        return 0;
    }
    struct pidns_ctx pn;
    struct task_struct *cur = bpf_get_current_task_btf();
    struct pid *cp = cur->thread_pid;
    pn.level = cp ? cp->level : 0;
    pn.ns = 0;
    if (pn.level) {
        struct upid up;
        void *at = (void *)cp + bpf_core_field_offset(struct pid, numbers) +
                   (__u64)pn.level * bpf_core_type_size(struct upid);
        if (bpf_probe_read_kernel(&up, sizeof up, at) == 0) pn.ns = up.ns;
    }
    __u32 zero = 0;
    struct scratch *sc = bpf_map_lookup_elem(&scratch_map, &zero);
    if (!sc) return 0;
    read_thread(t, &sc->thread, &pn);
    long err = 0;
    if (sc->thread.tid <= 0) return 0; /* released meanwhile, or not in this namespace */
    if (sc->thread.tid == sc->thread.tgid) {
        read_proc(t, sc, &pn);
        err = bpf_seq_write(seq, &sc->proc, sizeof sc->proc);
    }
    if (!err) err = bpf_seq_write(seq, &sc->thread, sizeof sc->thread);
    /* A write that did not fit is thrown away with the whole task and the
     * task is shown again at the next read(): count it then. */
    if (!err) {
        if (written) {
            __sync_fetch_and_add(written, 1);
        } else {
            __u64 one = 1;
            bpf_map_update_elem(&pass_tasks, &session, &one, BPF_ANY);
        }
    }
    return 0;
}
