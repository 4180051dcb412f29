/* perflib: the records PerfProc's BPF task iterator writes
 * (perfproc_iter.bpf.c) and its reader parses (perfproc_bpf.c). Shared by
 * the BPF program and the provider: fixed-width fields only, every record a
 * multiple of 8 bytes, naturally aligned. docs/providers/perfproc.md ("The
 * BPF source") says where every field comes from in the kernel.
 *
 * One pass of the iterator writes, in the order the kernel visits the tasks
 * (ascending thread id in the reader's pid namespace):
 *   for a thread-group leader: a pp_rec_proc, then its pp_rec_thread;
 *   for any other task: its pp_rec_thread;
 *   at the end: one pp_rec_end with the number of tasks visited.
 * Raw kernel values only (nanoseconds, pages, counts): the reader does every
 * conversion, exactly as the kernel does for /proc. */
#ifndef PL_PERFPROC_BPF_H
#define PL_PERFPROC_BPF_H

#ifdef __bpf__
typedef __u32 pp_u32;
typedef __s32 pp_s32;
typedef __u64 pp_u64;
typedef __s64 pp_s64;
#else
#include <stdint.h>
typedef uint32_t pp_u32;
typedef int32_t pp_s32;
typedef uint64_t pp_u64;
typedef int64_t pp_s64;
#endif

#define PP_REC_PROC 0x43525050u   /* "PPRC" */
#define PP_REC_THREAD 0x54525050u /* "PPRT" */
#define PP_REC_END 0x45525050u    /* "PPRE" */

/* pp_rec_thread.flags and pp_rec_proc.flags */
#define PPF_MM 0x01u        /* the task has a user address space (get_task_mm() would succeed) */
#define PPF_SIGHAND 0x02u   /* lock_task_sighand() would succeed: ppid and nr_threads are set */
#define PPF_COMPLETE 0x04u  /* every process value was read: the group sums between two equal, even
                             * stats_lock counts, every CPU's part of the memory counters, the whole
                             * descriptor bitmap (else the reader reads the process from /proc) */
#define PPF_FILES 0x08u     /* the task has a files table: fds is the count of open descriptors */
#define PPF_SCHED_INFO 0x10u /* the kernel keeps sched_info (CONFIG_SCHED_INFO): pcount is real */

/* One task: what /proc/<tgid>/task/<tid>/stat and schedstat show. */
struct pp_rec_thread {
    pp_u32 kind;   /* PP_REC_THREAD */
    pp_u32 flags;  /* PPF_* */
    pp_s32 tid;    /* in the reader's pid namespace */
    pp_s32 tgid;   /* likewise */
    pp_u32 task_flags; /* task->flags (PF_*) */
    pp_s32 cpu;    /* task_cpu() */
    pp_u32 policy, rt_priority;
    pp_s32 static_prio; /* nice = static_prio - 120 */
    pp_u32 state;  /* the /proc state letter */
    pp_u64 start_boottime; /* ns after boot */
    pp_u64 utime, stime;   /* tick-sampled ns */
    pp_u64 runtime;        /* se.sum_exec_runtime, ns */
    pp_u64 prev_utime, prev_stime; /* task->prev_cputime: what the last reader of this task was told */
    pp_u64 min_flt, maj_flt;
    pp_u64 pcount; /* sched_info.pcount: times run on a CPU */
};

#define PP_COMM_LEN 64

/* A thread-group leader: what /proc/<pid>/stat, status and io and the
 * count of /proc/<pid>/fd show for the process, the group sums read as the
 * kernel reads them (sig + every live thread, under stats_lock). */
struct pp_rec_proc {
    pp_u32 kind;  /* PP_REC_PROC */
    pp_u32 flags; /* PPF_* */
    pp_s32 pid;   /* in the reader's pid namespace */
    pp_s32 ppid;  /* the parent's tgid there (0 when not visible, or no sighand) */
    pp_u32 nr_threads;
    pp_u32 pad;
    pp_u64 utime, stime, runtime;  /* thread_group_cputime(): sig + every thread */
    pp_u64 prev_utime, prev_stime; /* signal->prev_cputime */
    pp_u64 min_flt, maj_flt;       /* sig + every thread */
    pp_u64 rchar, wchar, syscr, syscw; /* sig->ioac + every thread's ioac */
    pp_u64 nvcsw, nivcsw;          /* the leader's own, as status shows them */
    pp_u64 total_vm, hiwater_vm, hiwater_rss, data_vm, stack_vm; /* pages */
    pp_s64 rss_count[4]; /* mm->rss_stat[i].count (get_mm_counter, for stat's rss) */
    pp_s64 rss_sum[4];   /* count + every CPU's part (get_mm_counter_sum, for status) */
    pp_u64 fds;
    char comm[PP_COMM_LEN]; /* proc_task_name(): kworker descriptions and long kthread names included */
};

/* The last record of a pass: how many pp_rec_thread records the pass wrote
 * (one per task visited), so a reader can tell a whole pass. */
struct pp_rec_end {
    pp_u32 kind; /* PP_REC_END */
    pp_u32 pad;
    pp_u64 tasks;
};

#ifndef __bpf__
_Static_assert(sizeof(struct pp_rec_thread) == 112, "the BPF program writes 112-byte task records");
_Static_assert(sizeof(struct pp_rec_proc) == 304, "the BPF program writes 304-byte process records");
_Static_assert(sizeof(struct pp_rec_end) == 16, "the BPF program writes 16-byte end records");
#endif

/* The rss_stat indices (enum in include/linux/mm_types_task.h). */
#define PP_MM_FILEPAGES 0
#define PP_MM_ANONPAGES 1
#define PP_MM_SWAPENTS 2
#define PP_MM_SHMEMPAGES 3

#endif
