/* perflib: per-CPU counts kept continuous across CPU hotplug (collect_os.h,
 * "Counts per CPU across hotplug"; docs/providers/perfos.md, "CPU hotplug").
 *
 * The kernel's per-CPU counts are not continuous when a CPU goes offline
 * and comes back: its /proc/stat line and /proc/interrupts column vanish
 * and return (the column with its count since boot), an older kernel
 * restarts its idle time from 0, and the aggregate "cpu" line switches
 * the offline CPU's idle and iowait to another source (thousands of ticks
 * up at offline, down again at online). A tracker remembers, per CPU
 * number, the last reading and how much it has accepted since the first:
 * each update adds a CPU's difference only when the CPU was there in the
 * previous update as well and no value went back, so the published values
 * (the CPU's first reading plus what was accepted) and the totals (sums of
 * what every CPU accepted) never jump. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect_os.h"

enum { V_LAST, V_INIT, V_DSUM, V_HOLD, V_PER_VALUE };

void pl__cpu_track_init(struct pl__cpu_track *t, unsigned nv)
{
    memset(t, 0, sizeof *t);
    t->nv = nv;
}

void pl__cpu_track_free(struct pl__cpu_track *t)
{
    unsigned nv = t->nv;
    free(t->rec);
    free(t->v);
    memset(t, 0, sizeof *t);
    t->nv = nv;
}

static uint64_t *vals(const struct pl__cpu_track *t, uint32_t r, int kind)
{
    return t->v + ((size_t)r * V_PER_VALUE + (size_t)kind) * t->nv;
}

/* The record of CPU `id`: its position, or where it would go (*found 0). */
static uint32_t find(const struct pl__cpu_track *t, uint32_t id, int *found)
{
    uint32_t lo = 0, hi = t->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->rec[mid].id == id) {
            *found = 1;
            return mid;
        }
        if (t->rec[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    *found = 0;
    return lo;
}

static int insert(struct pl__cpu_track *t, uint32_t at, uint32_t id)
{
    if (t->n == t->cap) {
        uint32_t nc = t->cap ? t->cap * 2 : 8;
        if (nc > PL__CPU_TRACK_MAX) nc = PL__CPU_TRACK_MAX;
        if (t->n >= nc) return -EINVAL;
        struct pl__cpu_rec *nr = realloc(t->rec, (size_t)nc * sizeof *nr);
        if (!nr) return -ENOMEM;
        t->rec = nr;
        uint64_t *nvv = realloc(t->v, (size_t)nc * V_PER_VALUE * t->nv * sizeof *nvv);
        if (!nvv) return -ENOMEM;
        t->v = nvv;
        t->cap = nc;
    }
    size_t per = (size_t)V_PER_VALUE * t->nv;
    memmove(&t->rec[at + 1], &t->rec[at], (size_t)(t->n - at) * sizeof *t->rec);
    memmove(t->v + (size_t)(at + 1) * per, t->v + (size_t)at * per, (size_t)(t->n - at) * per * sizeof *t->v);
    memset(&t->rec[at], 0, sizeof *t->rec);
    memset(t->v + (size_t)at * per, 0, per * sizeof *t->v);
    t->rec[at].id = id;
    t->rec[at].group = PL__CPU_TRACK_NOGROUP;
    t->n++;
    return 0;
}

/* pending[i] * cap / sum, without overflow (cap < sum). */
static uint64_t share(uint64_t pending, uint64_t cap, uint64_t sum_hi, uint64_t sum_lo)
{
#ifdef __SIZEOF_INT128__
    unsigned __int128 s = ((unsigned __int128)sum_hi << 64) | sum_lo;
    return (uint64_t)((unsigned __int128)pending * cap / s);
#else
    long double s = (long double)sum_hi * 18446744073709551616.0L + (long double)sum_lo;
    long double x = (long double)pending * (long double)cap / s;
    return x >= (long double)pending ? pending : (uint64_t)x;
#endif
}

/* Emit the first ncap values' pending amounts (held back + this update's
 * difference) up to `cap` in all, in proportion; hold back the rest. */
static void apply_cap(struct pl__cpu_track *t, uint32_t r, uint64_t *delta, uint64_t unread, unsigned ncap, uint64_t cap)
{
    uint64_t *hold = vals(t, r, V_HOLD);
    uint64_t pend[64];
    uint64_t hi = 0, lo = 0;
    for (unsigned k = 0; k < ncap; k++) {
        pend[k] = 0;
        if (unread & (1ull << k)) continue; /* not read: its hold waits */
        pend[k] = delta[k] > UINT64_MAX - hold[k] ? UINT64_MAX : delta[k] + hold[k];
        lo += pend[k];
        if (lo < pend[k]) hi++;
    }
    if (hi == 0 && lo <= cap) {
        for (unsigned k = 0; k < ncap; k++)
            if (!(unread & (1ull << k))) {
                delta[k] = pend[k];
                hold[k] = 0;
            }
        return;
    }
    for (unsigned k = 0; k < ncap; k++) {
        if (unread & (1ull << k)) continue;
        delta[k] = share(pend[k], cap, hi, lo);
        hold[k] = pend[k] - delta[k];
    }
}

int pl__cpu_track_update(struct pl__cpu_track *t, uint32_t n, const uint32_t *ids, const uint64_t *v,
                         const uint64_t *unread, const unsigned char *drop, const uint64_t *cap, unsigned ncap)
{
    unsigned nv = t->nv;
    if (nv == 0 || nv > 64 || ncap > nv) return -EINVAL;
    uint64_t all = nv == 64 ? UINT64_MAX : (1ull << nv) - 1;
    if (n > PL__CPU_TRACK_MAX) return -EINVAL;
    for (uint32_t i = 1; i < n; i++)
        if (ids[i] <= ids[i - 1]) return -EINVAL;
    t->gen++;
    int first = t->gen == 1;
    for (uint32_t i = 0; i < t->n; i++) t->rec[i].online = 0;
    for (uint32_t i = 0; i < n; i++) {
        int found;
        uint32_t r = find(t, ids[i], &found);
        if (!found) {
            int rc = insert(t, r, ids[i]);
            if (rc < 0) return rc;
        }
        struct pl__cpu_rec *rec = &t->rec[r];
        const uint64_t *in = v + (size_t)i * nv;
        uint64_t un = (unread ? unread[i] : 0) & all;
        uint64_t *last = vals(t, r, V_LAST), *init = vals(t, r, V_INIT), *dsum = vals(t, r, V_DSUM);
        uint64_t *hold = vals(t, r, V_HOLD);
        int was_there = found && rec->seen == t->gen - 1;
        rec->online = 1;
        rec->accepted = 0;
        rec->marked = un;
        rec->unread = un;
        if (!found) {
            /* first seen: its values start at its first reading (a value
             * not read yet starts at 0 and at its first reading) */
            rec->in_total = first;
            rec->first = t->gen;
            for (unsigned k = 0; k < nv; k++) {
                int ok = !(un & (1ull << k));
                init[k] = ok ? in[k] : 0;
                last[k] = ok ? in[k] : 0;
            }
            rec->have = all & ~un;
            rec->seen = t->gen;
            continue;
        }
        int back = 0; /* a value went backwards: the kernel restarted it */
        for (unsigned k = 0; k < nv; k++)
            if (!(un & (1ull << k)) && (rec->have & (1ull << k)) && in[k] < last[k]) back = 1;
        if (!was_there || back || (drop && drop[i]) || rec->bad) {
            /* came back (or no value to trust): no difference for this
             * update; its values go on from here */
            for (unsigned k = 0; k < nv; k++)
                if (!(un & (1ull << k))) last[k] = in[k];
            memset(hold, 0, (size_t)nv * sizeof *hold);
            rec->have |= all & ~un;
            rec->marked = all;
            rec->seen = t->gen;
            continue;
        }
        uint64_t delta[64];
        for (unsigned k = 0; k < nv; k++) {
            delta[k] = 0;
            if (un & (1ull << k)) continue;
            if (rec->have & (1ull << k)) delta[k] = in[k] - last[k];
            last[k] = in[k];
        }
        rec->have |= all & ~un;
        if (cap && ncap) apply_cap(t, r, delta, un, ncap, cap[i]);
        for (unsigned k = 0; k < nv; k++) {
            if (delta[k] > UINT64_MAX - dsum[k] || init[k] > UINT64_MAX - dsum[k] - delta[k]) rec->bad = 1;
        }
        if (rec->bad) {
            rec->marked = all;
        } else {
            for (unsigned k = 0; k < nv; k++) dsum[k] += delta[k];
            rec->accepted = 1;
        }
        rec->seen = t->gen;
    }
    return 0;
}

int pl__cpu_track_get(const struct pl__cpu_track *t, uint32_t id, uint64_t *out, uint64_t *marked)
{
    int found;
    uint32_t r = find(t, id, &found);
    if (!found || !t->rec[r].online) return -ENOENT;
    const uint64_t *init = vals(t, r, V_INIT), *dsum = vals(t, r, V_DSUM);
    for (unsigned k = 0; k < t->nv; k++) out[k] = init[k] + dsum[k];
    *marked = t->rec[r].bad ? (t->nv == 64 ? UINT64_MAX : (1ull << t->nv) - 1) : t->rec[r].marked;
    return 0;
}

void pl__cpu_track_set_group(struct pl__cpu_track *t, uint32_t id, uint32_t group)
{
    int found;
    uint32_t r = find(t, id, &found);
    if (!found || t->rec[r].group == group) return;
    /* a CPU that joins a group after its first update brings what it
     * accepted before: the old and the new group's sums jump, so both are
     * marked for this update */
    if (t->rec[r].first < t->gen) {
        t->rec[r].old_group = t->rec[r].group;
        t->rec[r].regrouped = t->gen;
    }
    t->rec[r].group = group;
}

void pl__cpu_track_sum(const struct pl__cpu_track *t, uint32_t group, uint64_t *out, uint64_t *marked)
{
    unsigned nv = t->nv;
    uint64_t all = nv == 64 ? UINT64_MAX : (1ull << nv) - 1;
    memset(out, 0, (size_t)nv * sizeof *out);
    uint64_t m = 0;
    int online = 0, accepted = 0;
    for (uint32_t r = 0; r < t->n; r++) {
        const struct pl__cpu_rec *rec = &t->rec[r];
        if (group != PL__CPU_TRACK_ALL && rec->regrouped == t->gen && (rec->group == group || rec->old_group == group))
            m = all;
        if (group != PL__CPU_TRACK_ALL && rec->group != group) continue;
        if (rec->online) {
            online = 1;
            accepted |= rec->accepted;
            m |= rec->unread; /* a value a CPU of the sum could not read */
        }
        /* a CPU whose counts would pass 2^64 stays in at what it had
         * accepted before (its dsum is frozen): leaving it out would drop
         * the sum */
        const uint64_t *init = vals(t, r, V_INIT), *dsum = vals(t, r, V_DSUM);
        for (unsigned k = 0; k < nv; k++) {
            uint64_t x = dsum[k];
            if (rec->in_total) {
                if (init[k] > UINT64_MAX - x) m |= 1ull << k;
                else x += init[k];
            }
            if (x > UINT64_MAX - out[k]) m |= 1ull << k;
            else out[k] += x;
        }
    }
    /* after the first update, a sum to which no CPU added anything has no
     * value for this interval */
    if (online && !accepted && t->gen > 1) m = all;
    for (unsigned k = 0; k < nv; k++)
        if (m & (1ull << k)) out[k] = 0;
    *marked = m;
}
