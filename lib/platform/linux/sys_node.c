/* perflib: the NUMA node of each CPU, from /sys/devices/system/node/
 * node<N>/cpulist, and the kernel's CPU list format. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect_sys.h"
#include "platform.h"

#define CPU_LIMIT (1u << 24)

void pl__cpulist_free(struct pl__cpulist *l)
{
    free(l->r);
    memset(l, 0, sizeof *l);
}

static int push(struct pl__cpulist *l, uint32_t lo, uint32_t hi)
{
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 8;
        void *nr = realloc(l->r, (size_t)cap * sizeof *l->r);
        if (!nr) return -ENOMEM;
        l->r = nr;
        l->cap = cap;
    }
    l->r[l->n][0] = lo;
    l->r[l->n][1] = hi;
    l->n++;
    return 0;
}

static int cpu_num(const char **p, uint32_t *v)
{
    if (**p < '0' || **p > '9') return 0; /* no spaces, no sign */
    uint64_t x;
    if (!pl__parse_u64(p, &x) || x >= CPU_LIMIT) return 0;
    *v = (uint32_t)x;
    return 1;
}

int pl__parse_cpulist(const char *text, size_t len, struct pl__cpulist *out)
{
    out->n = 0;
    if (len == 0 || text[len - 1] != '\n' || strlen(text) != len) return -EINVAL;
    const char *p = text;
    if (*p == '\n') return p + 1 == text + len ? 0 : -EINVAL; /* a node without CPUs */
    int64_t prev = -1;
    for (;;) {
        uint32_t lo, hi;
        if (!cpu_num(&p, &lo)) return -EINVAL;
        hi = lo;
        if (*p == '-') {
            p++;
            if (!cpu_num(&p, &hi) || hi < lo) return -EINVAL;
        }
        if ((int64_t)lo <= prev) return -EINVAL; /* ascending, no overlap */
        prev = hi;
        int rc = push(out, lo, hi);
        if (rc) return rc;
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == '\n' && p + 1 == text + len) return 0;
        return -EINVAL;
    }
}

int pl__cpulist_has(const struct pl__cpulist *l, uint32_t cpu)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (cpu >= l->r[i][0] && cpu <= l->r[i][1]) return 1;
    return 0;
}

uint32_t pl__cpulist_rank(const struct pl__cpulist *l, uint32_t cpu)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < l->n && l->r[i][0] < cpu; i++)
        k += (cpu - 1 < l->r[i][1] ? cpu - 1 : l->r[i][1]) - l->r[i][0] + 1;
    return k;
}

static int node_number(const char *name, uint32_t *v)
{
    if (strncmp(name, "node", 4) != 0 || name[4] < '0' || name[4] > '9') return 0;
    const char *p = name + 4;
    uint64_t x;
    if (!pl__parse_u64(&p, &x) || *p != '\0' || x > 0xffffu) return 0;
    *v = (uint32_t)x;
    return 1;
}

int pl__read_cpu_nodes(int rootfd, const uint32_t *cpus, uint32_t n, uint32_t *node, uint32_t *index)
{
    for (uint32_t i = 0; i < n; i++) {
        node[i] = UINT32_MAX;
        index[i] = 0;
    }
    int dfd = openat(rootfd, "sys/devices/system/node", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        int e = errno;
        if (e != ENOENT) return -EINVAL;
        for (uint32_t i = 0; i < n; i++) {
            node[i] = 0;
            index[i] = cpus[i];
        }
        return -ENOENT;
    }
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return -ENOMEM;
    }
    int rc = 0, nodes = 0;
    struct pl__cpulist l = {0};
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        uint32_t nd;
        if (!node_number(e->d_name, &nd)) continue;
        nodes++;
        char rel[64], *buf = NULL;
        snprintf(rel, sizeof rel, "node%u/cpulist", nd);
        ssize_t len = pl__slurp_at(dirfd(d), rel, &buf);
        if (len < 0) {
            rc = len == -ENOMEM ? -ENOMEM : -EINVAL; /* unreadable */
            break;
        }
        rc = pl__parse_cpulist(buf, (size_t)len, &l);
        free(buf);
        if (rc) break;
        for (uint32_t i = 0; i < n; i++) {
            if (!pl__cpulist_has(&l, cpus[i])) continue;
            if (node[i] != UINT32_MAX) {
                rc = -EINVAL; /* in two nodes */
                break;
            }
            node[i] = nd;
            index[i] = pl__cpulist_rank(&l, cpus[i]);
        }
    }
    closedir(d);
    pl__cpulist_free(&l);
    if (rc == 0 && nodes == 0) rc = -EINVAL; /* a node directory without nodes */
    for (uint32_t i = 0; rc == 0 && i < n; i++)
        if (node[i] == UINT32_MAX) rc = -EINVAL; /* in no node */
    return rc;
}
