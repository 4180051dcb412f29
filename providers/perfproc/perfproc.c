/* perflib: the PerfProc provider -- Process (230) and Thread (232), and the
 * costly Image (740) and Process Address Space (786) objects, from /proc.
 * docs/providers/perfproc.md describes every counter, its source and the
 * decisions taken here.
 *
 * Speed is the point of this provider: /proc is enumerated with getdents64,
 * every file is opened relative to a /proc/<pid> directory descriptor and
 * read with one read() into a stack buffer, numbers are parsed by hand, and
 * the builder and every table live across calls, so a steady-state Collect
 * allocates nothing. The files are read by a pool of reader threads
 * (perfproc_read.c, perfproc_costly.c, perfproc_pool.c, driven by
 * perfproc_collect.c); perfproc_build.c builds the block from what they
 * read, in pid order (perfproc_int.h). This file holds the provider's state
 * and its entry points: Open (where the source is chosen), Collect, Close
 * and the status note.
 *
 * Where the process may load it, Process and Thread come instead from one
 * pass of a BPF task iterator (perfproc_bpf.c, perfproc_bpf_parse.c): the
 * kernel's own numbers in binary, turned into the very slots the /proc
 * readers fill, so the build is the same for both sources. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/collect_os.h"
#include "linux/collect_proc.h"
#include "perfproc_int.h"
#include "perflib/indices.h"
#include "perflib/provider.h"
#include "platform.h"
#include "pl_internal.h"

/* ------------------------------------------------------------ state */

pp_state pl__pp_state = {.lock = PTHREAD_MUTEX_INITIALIZER, .rootfd = -1, .procfd = -1};

/* ------------------------------------------------------- entry points */

static void close_fds(void)
{
    if (pl__pp_state.procfd >= 0) close(pl__pp_state.procfd);
    if (pl__pp_state.rootfd >= 0) close(pl__pp_state.rootfd);
    pl__pp_state.procfd = pl__pp_state.rootfd = -1;
}

PL_PROVIDER_EXPORT DWORD PerfProcOpen(LPWSTR device_names);
PL_PROVIDER_EXPORT DWORD PerfProcCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects);
PL_PROVIDER_EXPORT DWORD PerfProcClose(void);
PL_PROVIDER_EXPORT DWORD PerfProcCollectNote(char *text, DWORD cap);

/* $PERFLIB_PERFPROC_SOURCE: "proc" or "bpf" force a source; "auto", unset,
 * empty or anything else is the default (the BPF source where it loads). */
enum { SRC_AUTO, SRC_PROC, SRC_BPF };

static int source_setting(void)
{
    const char *v = getenv("PERFLIB_PERFPROC_SOURCE");
    if (v && strcmp(v, "proc") == 0) return SRC_PROC;
    if (v && strcmp(v, "bpf") == 0) return SRC_BPF;
    return SRC_AUTO;
}

/* Does the /proc opened at Open show what a task-iterator pass shows: the
 * running kernel's procfs, of this process's pid namespace? A canned tree
 * (PERFLIB_SYSROOT) or another namespace's /proc does not. */
static int proc_is_ours(char *why, size_t cap)
{
    if (!pl__proc_is_procfs(pl__pp_state.procfd)) {
        snprintf(why, cap, "%s/proc is not the kernel's procfs", strcmp(pl__sysroot(), "/") == 0 ? "" : pl__sysroot());
        return 0;
    }
    char link[32];
    ssize_t n = readlinkat(pl__pp_state.procfd, "self", link, sizeof link - 1);
    char mine[16];
    size_t ml = pl__fmt_i32(mine, (int32_t)getpid());
    if (n != (ssize_t)ml || memcmp(link, mine, ml) != 0) {
        snprintf(why, cap, "this /proc belongs to another pid namespace");
        return 0;
    }
    return 1;
}

/* Choose the source at Open (docs/providers/perfproc.md, "The BPF source").
 * Returns 0, or -1 when the BPF source was forced and cannot be used. */
static int choose_source(void)
{
    int setting = source_setting();
    const char *fault = getenv("PERFLIB_PERFPROC_BPF_FAULT");
    pl__pp_state.fault_partial = fault && strcmp(fault, "partial") == 0;
    pl__pp_state.why[0] = '\0';
    pl__pp_state.pass_err[0] = '\0';
    pl__pp_state.passes = pl__pp_state.failed_passes = 0;
    pl__pp_state.last_tasks = pl__pp_state.last_procs = pl__pp_state.last_from_proc = 0;
    if (setting == SRC_PROC) {
        snprintf(pl__pp_state.why, sizeof pl__pp_state.why, "PERFLIB_PERFPROC_SOURCE=proc");
        return 0;
    }
    if (!proc_is_ours(pl__pp_state.why, sizeof pl__pp_state.why)) return setting == SRC_BPF ? -1 : 0;
    if (pl__pp_bpf_open(&pl__pp_state.bpf, pl__pp_state.why, sizeof pl__pp_state.why) != 0)
        return setting == SRC_BPF ? -1 : 0;
    /* A first pass must show this very process whole: the per-CPU offsets
     * found, the group read, the name; else the source is not used. */
    const void *buf;
    size_t len;
    int rc = pl__pp_bpf_pass(pl__pp_state.bpf, &buf, &len, pl__pp_state.why, sizeof pl__pp_state.why);
    if (rc == 0 && pl__pp_bpf_index(buf, len, &pl__pp_state.ix) != 0) {
        snprintf(pl__pp_state.why, sizeof pl__pp_state.why, "a first pass was not whole or well-formed");
        rc = -EINVAL;
    }
    int32_t me = (int32_t)getpid();
    size_t k = 0;
    while (rc == 0 && k < pl__pp_state.ix.nproc && pl__pp_state.ix.proc[k]->pid != me) k++;
    if (rc == 0 && (k == pl__pp_state.ix.nproc || !(pl__pp_state.ix.proc[k]->flags & PPF_COMPLETE))) {
        snprintf(pl__pp_state.why, sizeof pl__pp_state.why, "a first pass did not show this process whole (%s)",
                 k == pl__pp_state.ix.nproc ? "not in it" : "per-CPU counters, threads or descriptors not read");
        rc = -EINVAL;
    }
    if (rc != 0) {
        pl__pp_bpf_close(pl__pp_state.bpf);
        pl__pp_state.bpf = NULL;
        return setting == SRC_BPF ? -1 : 0;
    }
    unsigned shift = 0;
    while (shift < 63 && ((uint64_t)1 << shift) < pl__pp_state.page_size) shift++;
    pl__pp_state.cv = (pp_bpf_conv){
        .hz = pl__pp_state.hz, .page_shift = shift, .boot_offset_ns = pl__pp_boot_offset(pl__pp_state.procfd)};
    return 0;
}

/* The Linkage export as ASCII (anything else: empty), for the setting. */
static void linkage_ascii(const WCHAR *w, char *out, size_t cap)
{
    size_t i = 0;
    for (; w && w[i] && i + 1 < cap; i++) {
        if (w[i] >= 0x80) {
            i = 0;
            break;
        }
        out[i] = (char)w[i];
    }
    out[i] = '\0';
}

PL_PROVIDER_EXPORT DWORD PerfProcOpen(LPWSTR device_names)
{
    pthread_mutex_lock(&pl__pp_state.lock);
    DWORD ret = ERROR_SUCCESS;
    if (pl__pp_state.opened++ > 0) goto out;
    char linkage[32];
    linkage_ascii(device_names, linkage, sizeof linkage);
    pl__pp_state.workers = pl__pp_workers_setting(linkage);
    pl__pp_state.rootfd = pl__root_open(pl__sysroot(), "");
    if (pl__pp_state.rootfd >= 0)
        pl__pp_state.procfd = openat(pl__pp_state.rootfd, "proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pl__pp_state.rootfd < 0 || pl__pp_state.procfd < 0) {
        ret = ERROR_FILE_NOT_FOUND;
        goto fail;
    }
    /* Without a usable btime (absent, malformed such as "1e9x", beyond 63
     * bits) every Elapsed Time is marked unavailable, never computed from a
     * made-up boot time (issue 11 item 8). */
    pl__pp_state.boot_ft = 0;
    pl__pp_state.have_boot = pl__boot_filetime(pl__pp_state.rootfd, &pl__pp_state.boot_ft) == 0;
    /* the objects' clock (object_now): boot time plus CLOCK_BOOTTIME, when
     * the boot time is this machine's own (the clocks agree with it); a
     * canned tree's btime keeps the wall clock */
    int64_t off = pl__filetime_now() - pl__boot_time_now() - pl__pp_state.boot_ft;
    pl__pp_state.boot_live = pl__pp_state.have_boot && off > -2 * PL_TICKS_PER_SEC && off < 2 * PL_TICKS_PER_SEC;
    pl__pp_state.hz = pl__clock_ticks();
    pl__cpu_track_init(&pl__pp_state.idle_track, 1);
    pl__pp_state.tick_100ns = pl__ticks_to_100ns(1, pl__pp_state.hz);
    long ps = sysconf(_SC_PAGESIZE);
    pl__pp_state.page_size = ps > 0 ? (uint64_t)ps : 4096;
    pl__pp_state.fd_by_stat = pl__proc_fd_stat_works(pl__pp_state.procfd);
    /* On the kernel's procfs every file is regular: the per-file fstat()
     * check (against a FIFO or device planted in a canned tree) is skipped,
     * 5 system calls per process with a thread (docs/providers/perfproc.md). */
    pl__proc_trust_procfs(pl__proc_is_procfs(pl__pp_state.procfd));
    pl__pp_state.statbuf_cap = 65536;
    pl__pp_state.statbuf = malloc(pl__pp_state.statbuf_cap);
    pl__pp_state.b = pl_builder_new();
    if (!pl__pp_state.statbuf || !pl__pp_state.b) {
        ret = ERROR_OUTOFMEMORY;
        goto fail;
    }
    if (choose_source() != 0) {
        ret = ERROR_CALL_NOT_IMPLEMENTED; /* PERFLIB_PERFPROC_SOURCE=bpf, and the note says why not */
        goto fail;
    }
    goto out;
fail:
    close_fds();
    free(pl__pp_state.statbuf);
    pl__pp_state.statbuf = NULL;
    pl_builder_free(pl__pp_state.b);
    pl__pp_state.b = NULL;
    pl__pp_state.opened = 0;
out:
    pthread_mutex_unlock(&pl__pp_state.lock);
    return ret;
}

static int same_query(const pl_query_items *a, const pl_query_items *b)
{
    if (a->kind != b->kind || a->n != b->n) return 0;
    return memcmp(a->items, b->items, a->n * sizeof a->items[0]) == 0;
}

PL_PROVIDER_EXPORT DWORD PerfProcCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    if (!data || !bytes || !objects) return ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&pl__pp_state.lock);
    DWORD ret;
    if (!pl__pp_state.opened || !pl__pp_state.b) {
        *bytes = 0;
        *objects = 0;
        ret = ERROR_INVALID_HANDLE;
        goto out;
    }
    pl_query_items q;
    pl_query_parse_w(query, &q);
    uint32_t fpid = 0;
    int64_t only = pl_query_process_filter_w(query, &fpid) ? (int64_t)fpid : -1;
    /* A retry after ERROR_MORE_DATA gets the very same snapshot (within 5 s). */
    int64_t now = pl__perf_time_now();
    if (!(pl__pp_state.pending && same_query(&q, &pl__pp_state.pending_q) && only == pl__pp_state.pending_only &&
          now - pl__pp_state.pending_time < 5 * PL_TICKS_PER_SEC)) {
        int rc = pl__pp_collect(&q, only);
        if (rc != PL_OK) {
            pl_builder_reset(pl__pp_state.b);
            pl__pp_state.pending = 0;
            *bytes = 0;
            *objects = 0;
            /* /proc unreadable, or data the builder refused: not the
             * caller's parameters. */
            ret = rc == PL_E_NOMEM ? ERROR_OUTOFMEMORY : rc == PL_E_OS ? ERROR_FILE_NOT_FOUND : ERROR_INVALID_DATA;
            goto out;
        }
    }
    ret = pl_provider_emit(pl__pp_state.b, data, bytes, objects);
    pl__pp_state.pending = ret == ERROR_MORE_DATA;
    if (pl__pp_state.pending) {
        pl__pp_state.pending_q = q;
        pl__pp_state.pending_only = only;
        pl__pp_state.pending_time = now;
    }
out:
    pthread_mutex_unlock(&pl__pp_state.lock);
    return ret;
}

/* Everything Open and the collections hold. */
static void release_all(void)
{
    close_fds();
    pl_builder_free(pl__pp_state.b);
    pl__pp_state.b = NULL;
    free(pl__pp_state.statbuf);
    pl__pp_state.statbuf = NULL;
    free(pl__pp_state.cpu_ids);
    free(pl__pp_state.cpu_ticks);
    pl__pp_state.cpu_ids = NULL;
    pl__pp_state.cpu_ticks = NULL;
    pl__pp_state.ncpus = pl__pp_state.cpus_cap = 0;
    pl__cpu_track_free(&pl__pp_state.idle_track);
    free(pl__pp_state.peaks);
    free(pl__pp_state.npeaks);
    pl__pp_state.peaks = pl__pp_state.npeaks = NULL;
    pl__pp_state.npeak = pl__pp_state.nnpeak = pl__pp_state.peak_cap = 0;
    pl__pidvec_free(&pl__pp_state.pids);
    pl__pp_pool_stop(&pl__pp_state.pool);
    for (unsigned w = 0; w < PP_MAX_WORKERS; w++) pl__pp_arena_free(&pl__pp_state.arenas[w]);
    free(pl__pp_state.slots);
    pl__pp_state.slots = NULL;
    pl__pp_state.slot_cap = 0;
    free(pl__pp_state.pas_v);
    pl__pp_state.pas_v = NULL;
    pl__pp_state.pas_cap = 0;
    pl__pp_bpf_close(pl__pp_state.bpf);
    pl__pp_state.bpf = NULL;
    pl__pp_bpf_index_free(&pl__pp_state.ix);
    pl__pp_floors_free(&pl__pp_state.pfloor);
    pl__pp_floors_free(&pl__pp_state.tfloor);
    pl__pp_state.pending = 0;
    pl__pp_state.opened = 0;
}

/* Unloaded without a last Close (a host that dlcloses, a program that
 * exits): the reader threads must not outlive the code they run, and what
 * Open took is given back. A collection still running on another thread
 * (the program exits meanwhile) is left alone. */
__attribute__((destructor)) static void perfproc_unload(void)
{
    if (pthread_mutex_trylock(&pl__pp_state.lock) != 0) return;
    if (pl__pp_state.opened > 0) release_all();
    pthread_mutex_unlock(&pl__pp_state.lock);
}

PL_PROVIDER_EXPORT DWORD PerfProcClose(void)
{
    pthread_mutex_lock(&pl__pp_state.lock);
    if (pl__pp_state.opened > 0 && --pl__pp_state.opened == 0) release_all();
    pthread_mutex_unlock(&pl__pp_state.lock);
    return ERROR_SUCCESS;
}

/* The provider's note (provider.h, PL_NOTE_SUFFIX): which source Process
 * and Thread come from now, and why not the BPF one. */
PL_PROVIDER_EXPORT DWORD PerfProcCollectNote(char *text, DWORD cap)
{
    if (!text || cap == 0) return ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&pl__pp_state.lock);
    int n;
    if (pl__pp_state.bpf && pl__pp_state.passes > pl__pp_state.failed_passes)
        n = snprintf(text, cap,
                     "Process and Thread from the BPF task iterator (last pass: %zu tasks, %zu processes, %zu of "
                     "them read from /proc)",
                     pl__pp_state.last_tasks, pl__pp_state.last_procs, pl__pp_state.last_from_proc);
    else if (pl__pp_state.bpf)
        n = snprintf(text, cap, "Process and Thread from the BPF task iterator");
    else if (pl__pp_state.why[0])
        n = snprintf(text, cap, "Process and Thread from /proc; BPF task iterator not used: %s", pl__pp_state.why);
    else
        n = snprintf(text, cap, "%s", pl__pp_state.opened ? "Process and Thread from /proc" : "");
    if (n >= 0 && (DWORD)n < cap && pl__pp_state.failed_passes)
        snprintf(text + n, cap - (DWORD)n, "; %llu of %llu passes failed and were read from /proc, the last: %s",
                 (unsigned long long)pl__pp_state.failed_passes, (unsigned long long)pl__pp_state.passes,
                 pl__pp_state.pass_err);
    pthread_mutex_unlock(&pl__pp_state.lock);
    return ERROR_SUCCESS;
}
