/* pview: ending a process and changing its priority. Before acting, a fresh
 * snapshot confirms that the pid still belongs to the process the user
 * chose (same start time), so a pid reused meanwhile is never signalled. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "pview.h"

static const char *why(int e)
{
    switch (e) {
    case EPERM: return "not permitted (it belongs to another user; run pview as its owner or root)";
    case EACCES: return "permission denied (raising priority needs root or CAP_SYS_NICE)";
    case ESRCH: return "it has exited";
    case EINVAL: return "invalid value";
    default: return "the system refused";
    }
}

/* 1 when pid still runs with the same start time, else 0 and a message. */
static int same_process(pv_app *a, const pv_proc *p, char *msg, size_t cap)
{
    void *blk = NULL;
    size_t len = 0;
    pl_error err = {0};
    if (a->src->src.collect(a->src->src.ctx, "230", &blk, &len, &err) != PL_OK) {
        snprintf(msg, cap, "cannot confirm %s (%u): %s", p->name, p->pid, err.msg);
        return 0;
    }
    pv_model m;
    pv_model_init(&m);
    int found = 0;
    if (pv_model_update(&m, blk, len, &err) == PL_OK)
        for (size_t i = 0; i < m.nprocs && !found; i++)
            found = m.procs[i].pid == p->pid && m.procs[i].start == p->start && !m.procs[i].special;
    pv_model_free(&m);
    free(blk);
    if (!found) snprintf(msg, cap, "%s (%u) has exited; nothing was done", p->name, p->pid);
    return found;
}

int pv_action_refused(const pv_app *a, const pv_proc *p, char *msg, size_t cap)
{
    if (!a->src->local) {
        snprintf(msg, cap, "actions work on the local machine only (this is %s)", a->src->label);
        return 1;
    }
    if (p->special || p->pid == 0) {
        snprintf(msg, cap, "%s is not a process that can be acted on", p->name);
        return 1;
    }
    return 0;
}

int pv_end_process(pv_app *a, const pv_proc *p, int sig, char *msg, size_t cap)
{
    if (pv_action_refused(a, p, msg, cap) || !same_process(a, p, msg, cap)) return -1;
    if (kill((pid_t)p->pid, sig) != 0) {
        int e = errno;
        snprintf(msg, cap, "cannot end %s (%u): %s", p->name, p->pid, why(e));
        return -1;
    }
    snprintf(msg, cap, "sent %s to %s (%u)", sig == SIGKILL ? "SIGKILL" : "SIGTERM", p->name, p->pid);
    return 0;
}

int pv_set_priority(pv_app *a, const pv_proc *p, int nice_value, char *msg, size_t cap)
{
    if (pv_action_refused(a, p, msg, cap)) return -1;
    if (nice_value < -20 || nice_value > 19) {
        snprintf(msg, cap, "nice must be -20..19, not %d", nice_value);
        return -1;
    }
    if (!same_process(a, p, msg, cap)) return -1;
    /* Linux keeps a nice value per thread: set every thread of the process
     * the last snapshot listed, the main thread first; stop at the first
     * refusal (the main thread's refusal leaves everything unchanged). */
    size_t done = 0, total = 1;
    if (setpriority(PRIO_PROCESS, (id_t)p->pid, nice_value) != 0) {
        int e = errno;
        snprintf(msg, cap, "cannot set nice %d on %s (%u): %s", nice_value, p->name, p->pid, why(e));
        return -1;
    }
    done = 1;
    for (size_t i = 0; i < a->model.nthreads; i++) {
        const pv_thread *t = &a->model.threads[i];
        if (t->pid != p->pid || t->tid == p->pid) continue;
        total++;
        if (setpriority(PRIO_PROCESS, (id_t)t->tid, nice_value) == 0) done++;
    }
    if (done < total)
        snprintf(msg, cap, "nice %d set on %zu of %zu threads of %s (%u); the others refused or exited", nice_value,
                 done, total, p->name, p->pid);
    else
        snprintf(msg, cap, "nice %d set on %s (%u)%s", nice_value, p->name, p->pid,
                 total > 1 ? " and all its threads" : "");
    return 0;
}
