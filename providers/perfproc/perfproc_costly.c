/* perflib: PerfProc's read phase for the costly objects -- one process's
 * /proc/<pid>/maps and smaps_rollup, summed per protection class and per
 * mapped file, into its slot and its reader's arena (perfproc_int.h). Read
 * through the same /proc/<pid> directory descriptor as the process's stat,
 * so a pid reused meanwhile cannot mix two processes. The build phase
 * (perfproc.c) turns the sums into Image and Process Address Space
 * instances. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfproc_int.h"
#include "platform.h"

/* The whole maps file into the arena's buffer (grown as needed, up to
 * 1 GiB). Returns its length or -errno. */
static ssize_t read_maps(int pidfd, pp_arena *a)
{
    int fd = pl__open_regular_at(pidfd, "maps");
    if (fd < 0) return fd;
    size_t got = 0;
    for (;;) {
        if (a->maps_cap - got < 4096) {
            size_t nc = a->maps_cap ? a->maps_cap * 2 : 65536;
            if (nc > ((size_t)1 << 30)) {
                close(fd);
                return -EFBIG;
            }
            char *nb = realloc(a->maps, nc);
            if (!nb) {
                close(fd);
                return -ENOMEM;
            }
            a->maps = nb;
            a->maps_cap = nc;
        }
        ssize_t n = read(fd, a->maps + got, a->maps_cap - 1 - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            close(fd);
            return -e;
        }
        if (n == 0) break;
        got += (size_t)n;
    }
    close(fd);
    a->maps[got] = '\0';
    return (ssize_t)got;
}

/* The mapped file of an entry (same inode, device and path), added at the
 * end when new: the files keep the order of their first mapping. */
static pp_mapfile *file_of(pp_arena *a, const pl_maps_entry *e)
{
    for (size_t i = a->nfiles; i-- > 0;) {
        pp_mapfile *f = &a->files[i];
        if (f->inode == e->inode && f->dev_major == e->dev_major && f->dev_minor == e->dev_minor &&
            f->path_len == e->path_len && memcmp(f->path, e->path, e->path_len) == 0)
            return f;
    }
    if (a->nfiles == a->files_cap) {
        size_t nc = a->files_cap ? a->files_cap * 2 : 256;
        pp_mapfile *nf = realloc(a->files, nc * sizeof *nf);
        if (!nf) return NULL;
        a->files = nf;
        a->files_cap = nc;
    }
    pp_mapfile *f = &a->files[a->nfiles++];
    memset(f, 0, sizeof *f);
    f->inode = e->inode;
    f->dev_major = e->dev_major;
    f->dev_minor = e->dev_minor;
    f->path = e->path;
    f->path_len = e->path_len;
    return f;
}

/* An executable file's Image record: its base name (at most 255 bytes) and
 * bytes per class. */
static int add_image(pp_arena *a, const pp_mapfile *f)
{
    if (a->nimg == a->img_cap) {
        size_t nc = a->img_cap ? a->img_cap * 2 : 256;
        pp_image *ni = realloc(a->img, nc * sizeof *ni);
        if (!ni) return -ENOMEM;
        a->img = ni;
        a->img_cap = nc;
    }
    pp_image *im = &a->img[a->nimg++];
    const char *slash = f->path + f->path_len;
    while (slash > f->path && slash[-1] != '/') slash--;
    size_t nl = (size_t)(f->path + f->path_len - slash);
    if (nl >= sizeof im->name) nl = sizeof im->name - 1;
    memcpy(im->name, slash, nl);
    im->name[nl] = '\0';
    memcpy(im->bytes, f->bytes, sizeof im->bytes);
    return 0;
}

int pl__pp_read_costly(int pidfd, int want_img, int want_pas, pp_slot *s, pp_arena *a)
{
    pp_pas *c = s->pas;
    memset(c, 0, sizeof *c);
    c->i0 = a->nimg;
    ssize_t n = read_maps(pidfd, a);
    a->nfiles = 0;
    if (n < 0) {
        if (n == -ESRCH) return 0; /* gone: no Image, no Process Address Space */
        c->unav |= UNAV_MAPS;
    } else {
        const char *p = a->maps;
        pl_maps_entry e;
        int r;
        while ((r = pl__maps_next(&p, &e)) == 1) {
            uint64_t len = e.end - e.start;
            c->total += len;
            if (e.inode != 0 && e.path_len > 0 && e.path[0] == '/') {
                pp_mapfile *f = file_of(a, &e);
                if (!f) return -ENOMEM;
                f->bytes[e.prot] += len;
                if (e.exec) f->exec = 1;
            } else if (e.shared) {
                c->mapped[e.prot] += len;
            } else {
                c->reserved[e.prot] += len;
            }
        }
        if (r < 0) {
            /* A malformed line: what was summed is incomplete. */
            memset(c->mapped, 0, sizeof c->mapped);
            memset(c->reserved, 0, sizeof c->reserved);
            c->total = 0;
            c->unav |= UNAV_MAPS;
            a->nfiles = 0;
        }
        for (size_t i = 0; i < a->nfiles; i++) {
            const pp_mapfile *f = &a->files[i];
            uint64_t *base = f->exec ? c->image : c->mapped;
            for (int k = 0; k < PL_PROT_COUNT; k++) {
                base[k] += f->bytes[k];
                if (f->exec) c->image_reserved += f->bytes[k];
            }
            if (f->exec && want_img && add_image(a, f) != 0) return -ENOMEM;
        }
    }
    if (want_pas) {
        char buf[2048];
        ssize_t rn = pl__proc_read1(pidfd, "smaps_rollup", buf, sizeof buf);
        uint64_t rss = 0, pc = 0, pd = 0;
        if (rn >= 0 && pl__find_key_u64(buf, "Rss", &rss) && pl__find_key_u64(buf, "Private_Clean", &pc) &&
            pl__find_key_u64(buf, "Private_Dirty", &pd)) {
            c->rss_kb = rss;
            c->priv_kb = pc + pd;
        } else {
            c->unav |= UNAV_ROLLUP;
        }
    }
    c->state = PP_OK;
    c->ni = a->nimg - c->i0;
    return 0;
}
