/* perflib: PerfProc's read phase -- one process's /proc files into a slot
 * (perfproc_int.h). Runs on the calling thread or on a pool worker: it
 * touches only its slot, its arena and the descriptors it opens. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfproc_int.h"

static int gone(int rc)
{
    return rc == -ENOENT || rc == -ESRCH;
}

static int arena_grow(pp_arena *a)
{
    size_t nc = a->cap ? a->cap * 2 : 256;
    pp_thread *t = realloc(a->t, nc * sizeof *t);
    if (!t) return -ENOMEM;
    a->t = t;
    a->cap = nc;
    return 0;
}

/* The threads of one process, appended to the arena. Returns 0, or -ENOMEM. */
static int read_threads(int pidfd, pp_arena *a)
{
    int taskfd = openat(pidfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (taskfd < 0) return 0; /* gone, or unreadable: no threads to show */
    ssize_t nt = pl__proc_list_numeric(taskfd, &a->tids);
    if (nt < 0) {
        close(taskfd);
        return nt == -ENOMEM ? -ENOMEM : 0;
    }
    for (size_t i = 0; i < a->tids.n; i++) {
        if (a->n == a->cap && arena_grow(a) != 0) {
            close(taskfd);
            return -ENOMEM;
        }
        pp_thread *t = &a->t[a->n];
        char path[32];
        size_t l = pl__fmt_i32(path, a->tids.v[i]);
        memcpy(path + l, "/stat", 6);
        char buf[PL_PROC_STAT_BUF];
        ssize_t n = pl__proc_read1(taskfd, path, buf, sizeof buf);
        if (n <= 0 || pl__proc_parse_stat(buf, &t->st) != 0) continue; /* gone or malformed */
        memcpy(path + l, "/schedstat", 11);
        t->unav = 0;
        if (pl__proc_read_schedstat(taskfd, path, &t->ss) != 0) {
            t->unav = UNAV_SCHEDSTAT;
            memset(&t->ss, 0, sizeof t->ss);
        }
        t->tid = a->tids.v[i];
        a->n++;
    }
    close(taskfd);
    return 0;
}

void pl__pp_read_one(const pp_read_ctx *c, int32_t pid, pp_slot *s, pp_arena *a)
{
    s->state = PP_SKIP;
    s->unav = 0;
    s->t0 = a->n;
    s->nt = 0;
    s->fds = 0;
    char name[12];
    pl__fmt_i32(name, pid);
    int pidfd = openat(c->procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pidfd < 0) return; /* gone */
    if (pl__proc_read_stat(pidfd, &s->st) != 0) { /* gone, or malformed: no instance */
        close(pidfd);
        return;
    }
    if (c->want_p) {
        int r = pl__proc_read_status(pidfd, &s->ss);
        if (r != 0) {
            if (gone(r)) {
                close(pidfd);
                return;
            }
            s->unav |= UNAV_STATUS;
        }
        if (pl__proc_read_io(pidfd, &s->io) != 0) s->unav |= UNAV_IO;
        s->fds = pl__proc_count_fds(pidfd, c->fd_by_stat);
        if (s->fds < 0) s->unav |= UNAV_HANDLES;
    }
    int mine = c->only < 0 || c->only == pid;
    if (c->want_t && mine && read_threads(pidfd, a) != 0) {
        close(pidfd);
        s->state = PP_NOMEM;
        return;
    }
    s->nt = a->n - s->t0;
    /* The costly objects read through the same directory as stat. */
    if (s->pas) s->pas->state = PP_SKIP;
    if (mine && s->pas && (c->want_img || c->want_pas) && pl__pp_read_costly(pidfd, c->want_img, c->want_pas, s, a) != 0) {
        close(pidfd);
        s->state = PP_NOMEM;
        return;
    }
    s->state = PP_OK;
    close(pidfd);
}

void pl__pp_arena_free(pp_arena *a)
{
    free(a->t);
    a->t = NULL;
    a->n = a->cap = 0;
    pl__pidvec_free(&a->tids);
    free(a->img);
    a->img = NULL;
    a->nimg = a->img_cap = 0;
    free(a->maps);
    a->maps = NULL;
    a->maps_cap = 0;
    free(a->files);
    a->files = NULL;
    a->nfiles = a->files_cap = 0;
}
