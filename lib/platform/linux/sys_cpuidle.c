/* perflib: cpuidle states of a CPU (/sys/devices/system/cpu/cpuN/cpuidle/
 * stateK/{name,time,usage}) summed onto Windows' three idle levels, and
 * the one-number sysfs files they are made of. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "collect_sys.h"
#include "platform.h"

int pl__parse_sys_u64(const char *text, size_t len, uint64_t *v)
{
    /* digits, '\n', end: a sign, a space, a second line or an embedded NUL
     * is not the kernel's format */
    if (len < 2 || text[len - 1] != '\n' || text[0] < '0' || text[0] > '9') return -EINVAL;
    const char *p = text;
    uint64_t x;
    if (!pl__parse_u64(&p, &x) || p != text + len - 1) return -EINVAL;
    *v = x;
    return 0;
}

int pl__read_sys_u64(int rootfd, const char *rel, uint64_t *v)
{
    char buf[32]; /* 20 digits and a newline; anything longer is not one number */
    ssize_t n = pl__read_at(rootfd, rel, buf, sizeof buf);
    if (n < 0) return (int)n;
    if ((size_t)n >= sizeof buf - 1) return -EINVAL;
    return pl__parse_sys_u64(buf, (size_t)n, v);
}

int pl__cstate_level_by_name(const char *name)
{
    if (name[0] != 'C' || name[1] < '0' || name[1] > '9') return 0;
    unsigned n = 0;
    for (const char *p = name + 1; *p >= '0' && *p <= '9'; p++)
        if ((n = n * 10 + (unsigned)(*p - '0')) > 99) return 3; /* C100...: deeper than C3 */
    if (n == 0) return 0; /* "C0" is the running state, not an idle level */
    return n >= PL__CSTATE_LEVELS ? PL__CSTATE_LEVELS : (int)n;
}

void pl__cstate_map(const char names[][PL__CSTATE_NAME_MAX], unsigned n, int *level)
{
    int by_name = 1;
    for (unsigned i = 0; i < n; i++)
        if (strcmp(names[i], "POLL") != 0 && pl__cstate_level_by_name(names[i]) == 0) by_name = 0;
    int depth = 0;
    for (unsigned i = 0; i < n; i++) {
        if (strcmp(names[i], "POLL") == 0) {
            level[i] = 0;
        } else if (by_name) {
            level[i] = pl__cstate_level_by_name(names[i]);
        } else {
            if (depth < PL__CSTATE_LEVELS) depth++;
            level[i] = depth;
        }
    }
}

/* One state's name: the file's first line, without its newline. */
static int read_name(int rootfd, const char *rel, char *out)
{
    char buf[PL__CSTATE_NAME_MAX + 2];
    ssize_t n = pl__read_at(rootfd, rel, buf, sizeof buf);
    if (n < 0) return (int)n;
    if (n < 2 || buf[n - 1] != '\n' || (size_t)n > PL__CSTATE_NAME_MAX || strlen(buf) != (size_t)n) return -EINVAL;
    buf[n - 1] = '\0';
    for (ssize_t i = 0; i < n - 1; i++)
        if ((unsigned char)buf[i] < 0x20) return -EINVAL; /* a second line, a control character */
    memcpy(out, buf, (size_t)n);
    return 0;
}

/* Read the states' names of a CPU into a map: n = 0 without cpuidle;
 * valid only when every name was read (a map that is not valid is never
 * reused). */
static int load_map(int rootfd, uint32_t cpu, struct pl__cpuidle_map *map)
{
    char names[PL__CSTATE_MAX][PL__CSTATE_NAME_MAX];
    char rel[128];
    int names_ok = 1;
    unsigned n = 0;
    memset(map, 0, sizeof *map);
    map->cpu = cpu;
    for (; n < PL__CSTATE_MAX; n++) {
        int l = snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%u/cpuidle/state%u/name", cpu, n);
        if (l < 0 || (size_t)l >= sizeof rel) return -EINVAL;
        int rc = read_name(rootfd, rel, names[n]);
        if (rc == -ENOENT || rc == -ENOTDIR) break; /* no such state: the list ends */
        if (rc != 0) {
            names_ok = 0;
            names[n][0] = '\0';
        }
    }
    map->n = n;
    int level[PL__CSTATE_MAX];
    pl__cstate_map((const char(*)[PL__CSTATE_NAME_MAX])names, n, level);
    for (unsigned i = 0; i < n; i++) map->level[i] = (signed char)(names_ok ? level[i] : -1);
    map->valid = names_ok && n > 0;
    return 0;
}

int pl__read_cpuidle(int rootfd, uint32_t cpu, struct pl__cpuidle_map *map, struct pl__cpuidle *out)
{
    struct pl__cpuidle_map local;
    int fresh = 0;
    if (!map) map = &local;
    if (map == &local || !map->valid || map->cpu != cpu) {
        int rc = load_map(rootfd, cpu, map);
        if (rc) return rc;
        fresh = 1;
    }
    for (;;) {
        memset(out, 0, sizeof *out);
        out->nstates = map->n;
        if (map->n == 0) return 0; /* no cpuidle here: present = 0 */
        out->present = 1;
        if (!map->valid) { /* a name could not be read: no mapping */
            out->bad = PL__CPUIDLE_BAD_ALL;
            return 0;
        }
        int gone = 0;
        char rel[128];
        for (unsigned i = 0; i < map->n && !gone; i++) {
            int L = map->level[i] - 1;
            if (L < 0) continue; /* POLL: in no level, its files are not read */
            uint64_t t = 0, u = 0;
            snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%u/cpuidle/state%u/time", cpu, i);
            int trc = pl__read_sys_u64(rootfd, rel, &t);
            snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%u/cpuidle/state%u/usage", cpu, i);
            int urc = pl__read_sys_u64(rootfd, rel, &u);
            /* a state of the cached map that is gone: the driver changed */
            if (!fresh && (trc == -ENOENT || trc == -ENOTDIR) && (urc == -ENOENT || urc == -ENOTDIR)) gone = 1;
            if (trc != 0 || t > UINT64_MAX - out->time_us[L]) out->bad |= 1u << L;
            else out->time_us[L] += t;
            if (urc != 0 || u > UINT64_MAX - out->usage[L]) out->bad |= 1u << (PL__CSTATE_LEVELS + L);
            else out->usage[L] += u;
        }
        if (gone) {
            int rc = load_map(rootfd, cpu, map);
            if (rc) return rc;
            fresh = 1;
            continue;
        }
        break;
    }
    for (int L = 0; L < PL__CSTATE_LEVELS; L++) {
        if (out->bad & (1u << L)) out->time_us[L] = 0;
        if (out->bad & (1u << (PL__CSTATE_LEVELS + L))) out->usage[L] = 0;
    }
    return 0;
}
