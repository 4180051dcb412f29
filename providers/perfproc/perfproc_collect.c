/* perflib: PerfProc's read phase driven for one collection
 * (perfproc_int.h): the Idle process's ticks from /proc/stat, and every
 * listed process read (by the pool, or one by one) or taken from one BPF
 * pass merged with the /proc listing, each handed to the build in pid
 * order. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/collect_os.h"
#include "linux/collect_proc.h"
#include "perfproc_int.h"
#include "platform.h"
#include "pl_internal.h"

/* ------------------------------------------------------- /proc/stat */

/* The first five numbers of a cpu line at *s; 0 or -EINVAL. */
static int cpu_fields(const char **s, uint64_t f[5])
{
    for (int i = 0; i < 5; i++)
        if (!pl__parse_u64(s, &f[i])) return -EINVAL;
    /* a time that would overflow once turned into 100 ns units is not a time */
    if (f[3] > PL_PROC_STAT_MAX_TICKS || f[4] > PL_PROC_STAT_MAX_TICKS - f[3]) return -EINVAL;
    return 0;
}

/* Idle ticks (idle + iowait) of each cpuN line, into pl__pp_state.cpu_ids/cpu_ticks
 * and the tracker. A malformed line (the aggregate one included) makes the
 * whole read malformed: Idle's threads and Idle itself come from one
 * reading or none. The aggregate "cpu" line is not used: an offline CPU's
 * idle time in it comes from another source than its own line (+6,502
 * ticks at an offline, back at the online), so Idle read 5,614 % on 2 CPUs
 * across a hotplug (issue 33 item 2). */
int pl__pp_read_cpu_idle(uint32_t *ncpu)
{
    ssize_t n;
    pl__pp_state.ncpus = 0;
    /* One read of the whole file: /proc/stat grows with the CPUs (about
     * 80 bytes each, 330 KiB for 4096), so a full buffer is grown and the
     * file read again rather than counted short. */
    while ((n = pl__proc_read1(pl__pp_state.procfd, "stat", pl__pp_state.statbuf, pl__pp_state.statbuf_cap)) >= 0 &&
           (size_t)n == pl__pp_state.statbuf_cap - 1) {
        if (pl__pp_state.statbuf_cap >= ((size_t)64 << 20)) return -EFBIG;
        char *nb = realloc(pl__pp_state.statbuf, pl__pp_state.statbuf_cap * 2);
        if (!nb) return -ENOMEM;
        pl__pp_state.statbuf = nb;
        pl__pp_state.statbuf_cap *= 2;
    }
    if (n < 0) return (int)n;
    const char *s = pl__pp_state.statbuf;
    if (strncmp(s, "cpu ", 4) != 0) return -EINVAL;
    s += 4;
    uint64_t f[5] = {0};
    if (cpu_fields(&s, f) != 0) return -EINVAL;
    pl__skip_line(&s);
    while (strncmp(s, "cpu", 3) == 0 && s[3] >= '0' && s[3] <= '9') {
        s += 3;
        uint64_t num;
        if (!pl__parse_u64(&s, &num) || num > UINT32_MAX || cpu_fields(&s, f) != 0) {
            pl__pp_state.ncpus = 0;
            return -EINVAL;
        }
        if (pl__pp_state.ncpus == pl__pp_state.cpus_cap) {
            size_t cap = pl__pp_state.cpus_cap ? pl__pp_state.cpus_cap * 2 : 64;
            uint32_t *ni = realloc(pl__pp_state.cpu_ids, cap * sizeof *ni);
            if (ni) pl__pp_state.cpu_ids = ni;
            uint64_t *nt = ni ? realloc(pl__pp_state.cpu_ticks, cap * sizeof *nt) : NULL;
            if (nt) pl__pp_state.cpu_ticks = nt;
            if (!ni || !nt) {
                pl__pp_state.ncpus = 0;
                return -ENOMEM;
            }
            pl__pp_state.cpus_cap = cap;
        }
        pl__pp_state.cpu_ids[pl__pp_state.ncpus] = (uint32_t)num;
        pl__pp_state.cpu_ticks[pl__pp_state.ncpus++] = f[3] + f[4];
        pl__skip_line(&s);
    }
    /* ascending CPU numbers, as the kernel prints them (the tracker's
     * order); anything else is not its file */
    int rc = pl__cpu_track_update(&pl__pp_state.idle_track, (uint32_t)pl__pp_state.ncpus, pl__pp_state.cpu_ids,
                                  pl__pp_state.cpu_ticks, NULL, NULL, NULL, 0);
    if (rc != 0) {
        pl__pp_state.ncpus = 0;
        return rc;
    }
    *ncpu = (uint32_t)pl__pp_state.ncpus;
    return 0;
}

/* The read phase on the pool: reader `w` fills slots [b, e) into its arena. */
struct read_job {
    const pp_read_ctx *c;
    const int32_t *pids;
    pp_slot *slots;
    pp_pas *pas; /* NULL: no address spaces asked for */
    pp_arena *arenas;
};

static void read_range(void *arg, unsigned w, size_t b, size_t e)
{
    struct read_job *j = arg;
    for (size_t i = b; i < e; i++) {
        j->slots[i].pas = j->pas ? &j->pas[i] : NULL;
        pl__pp_read_one(j->c, j->pids[i], &j->slots[i], &j->arenas[w]);
        j->slots[i].arena = w;
    }
}

/* v with room for n elements of `size` bytes (capacity *cap, doubled from
 * 1,024), or NULL when memory ran out (v kept): the slots, and their
 * address spaces, kept apart because most queries never ask for them. */
static void *reserve(void *v, size_t *cap, size_t n, size_t size)
{
    if (v && n <= *cap) return v;
    size_t c = *cap ? *cap : 1024;
    while (c < n) c *= 2;
    void *nv = realloc(v, c * size);
    if (nv) *cap = c;
    return nv;
}

/* Pids per chunk: small enough that readers share the tail of the list
 * evenly, large enough that the shared counter is touched rarely. */
#define READ_CHUNK 8u

/* Every listed process: read, then built in pid order. With one reader (the
 * setting is 1, or the pool could not start, or 8 pids or fewer) each
 * process is read and built in turn, as before the pool existed; otherwise
 * every process is read first, by the pool, then built. */
int pl__pp_collect_processes(struct pp_build *bd)
{
    pp_read_ctx c = {.procfd = pl__pp_state.procfd,
                     .fd_by_stat = pl__pp_state.fd_by_stat,
                     .want_p = bd->want_p,
                     .want_t = bd->want_t,
                     .want_img = bd->o.image >= 0,
                     .want_pas = bd->o.pas >= 0,
                     .only = bd->only};
    size_t np = pl__pp_state.pids.n;
    unsigned readers = 1;
    if (pl__pp_state.workers > 1 && np > READ_CHUNK)
        readers = pl__pp_pool_start(&pl__pp_state.pool, pl__pp_state.workers);
    for (unsigned w = 0; w < readers; w++) pl__pp_state.arenas[w].n = pl__pp_state.arenas[w].nimg = 0;
    if (readers == 1) {
        pp_slot *s = &pl__pp_state.one;
        s->pas = c.want_img || c.want_pas ? &pl__pp_state.one_pas : NULL;
        for (size_t i = 0; i < np; i++) {
            pl__pp_state.arenas[0].n = pl__pp_state.arenas[0].nimg = 0;
            pl__pp_read_one(&c, pl__pp_state.pids.v[i], s, &pl__pp_state.arenas[0]);
            if (s->state == PP_NOMEM) return PL_E_NOMEM;
            if (s->state != PP_OK) continue;
            int rc = pl__pp_build_one(bd, s, &pl__pp_state.arenas[0]);
            if (rc != PL_OK) return rc;
            bd->pos++;
        }
        return PL_OK;
    }
    int want_pas = c.want_img || c.want_pas;
    pp_slot *sv = reserve(pl__pp_state.slots, &pl__pp_state.slot_cap, np, sizeof *sv);
    if (!sv) return PL_E_NOMEM;
    pl__pp_state.slots = sv;
    if (want_pas) {
        pp_pas *pv = reserve(pl__pp_state.pas_v, &pl__pp_state.pas_cap, np, sizeof *pv);
        if (!pv) return PL_E_NOMEM;
        pl__pp_state.pas_v = pv;
    }
    struct read_job j = {&c, pl__pp_state.pids.v, pl__pp_state.slots, want_pas ? pl__pp_state.pas_v : NULL,
                         pl__pp_state.arenas};
    pl__pp_pool_run(&pl__pp_state.pool, np, READ_CHUNK, read_range, &j);
    for (size_t i = 0; i < np; i++) {
        const pp_slot *s = &pl__pp_state.slots[i];
        if (s->state == PP_NOMEM) return PL_E_NOMEM;
        if (s->state != PP_OK) continue;
        int rc = pl__pp_build_one(bd, s, &pl__pp_state.arenas[s->arena]);
        if (rc != PL_OK) return rc;
        bd->pos++;
    }
    return PL_OK;
}

/* One process read from /proc on the calling thread (the BPF pass did not
 * show it whole), then built. */
static int build_from_proc(struct pp_build *bd, const pp_read_ctx *c, int32_t pid)
{
    pp_slot *s = &pl__pp_state.one;
    s->pas = c->want_img || c->want_pas ? &pl__pp_state.one_pas : NULL;
    pl__pp_state.arenas[0].n = pl__pp_state.arenas[0].nimg = 0;
    pl__pp_read_one(c, pid, s, &pl__pp_state.arenas[0]);
    if (s->state == PP_NOMEM) return PL_E_NOMEM;
    if (s->state != PP_OK) return PL_OK;
    pl__pp_state.last_from_proc++;
    int rc = pl__pp_build_one(bd, s, &pl__pp_state.arenas[0]);
    if (rc == PL_OK) bd->pos++;
    return rc;
}

/* Every process from one BPF pass, in pid order. The pass and the /proc
 * listing taken just before it are merged: a process the pass showed whole
 * comes from it; one it did not show (the iterator can be kept from a task:
 * this VM's pid 1), or showed incomplete (a thread exiting during the read of
 * its group, more descriptors or CPUs than the program counts), is read from
 * /proc like any other; one that started after the listing comes from the
 * pass. Returns PL_OK, a builder error, or PP_FALLBACK when the pass could
 * not be used (the caller reads /proc instead; nothing was built). */
int pl__pp_collect_processes_bpf(struct pp_build *bd)
{
    const void *buf;
    size_t len;
    pl__pp_state.passes++;
    int rc = pl__pp_bpf_pass(pl__pp_state.bpf, &buf, &len, pl__pp_state.pass_err, sizeof pl__pp_state.pass_err);
    if (rc == 0) {
        rc = pl__pp_bpf_index(buf, len, &pl__pp_state.ix);
        if (rc == -EINVAL)
            snprintf(pl__pp_state.pass_err, sizeof pl__pp_state.pass_err, "a pass was not whole or well-formed");
    }
    if (rc == 0) rc = pl__pp_bpf_times(&pl__pp_state.cv, &pl__pp_state.ix, &pl__pp_state.pfloor, &pl__pp_state.tfloor);
    if (rc == -ENOMEM) return PL_E_NOMEM;
    if (rc != 0) {
        pl__pp_state.failed_passes++;
        return PP_FALLBACK;
    }
    if (pl__pp_peaks_reserve(pl__pp_state.pids.n + pl__pp_state.ix.nproc) != 0) return PL_E_NOMEM;
    pp_read_ctx c = {.procfd = pl__pp_state.procfd,
                     .fd_by_stat = pl__pp_state.fd_by_stat,
                     .want_p = bd->want_p,
                     .want_t = bd->want_t,
                     .only = bd->only};
    pl__pp_state.last_tasks = pl__pp_state.ix.nall;
    pl__pp_state.last_procs = pl__pp_state.ix.nproc;
    pl__pp_state.last_from_proc = 0;
    size_t i = 0, j = 0;
    while (i < pl__pp_state.pids.n || j < pl__pp_state.ix.nproc) {
        int32_t lp = i < pl__pp_state.pids.n ? pl__pp_state.pids.v[i] : INT32_MAX;
        int32_t bp = j < pl__pp_state.ix.nproc ? pl__pp_state.ix.proc[j]->pid : INT32_MAX;
        if (lp < bp) { /* listed, not in the pass */
            rc = build_from_proc(bd, &c, lp);
            i++;
        } else {
            if (lp == bp) i++;
            if (!(pl__pp_state.ix.proc[j]->flags & PPF_COMPLETE) || (pl__pp_state.fault_partial && (j & 1))) {
                rc = build_from_proc(bd, &c, bp);
            } else {
                pp_slot *s = &pl__pp_state.one;
                s->pas = NULL; /* the pass runs only when no address space is asked for */
                pl__pp_state.arenas[0].n = pl__pp_state.arenas[0].nimg = 0;
                if (pl__pp_bpf_slot(&pl__pp_state.cv, &pl__pp_state.ix, j, s, &pl__pp_state.arenas[0]) != 0)
                    return PL_E_NOMEM;
                rc = pl__pp_build_one(bd, s, &pl__pp_state.arenas[0]);
                if (rc == PL_OK) bd->pos++;
            }
            j++;
        }
        if (rc != PL_OK) return rc;
    }
    return PL_OK;
}
