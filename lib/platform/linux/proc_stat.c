/* perflib: /proc/stat (per-CPU times, interrupts, context switches, boot
 * time, forks, runnable and blocked tasks). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect_os.h"
#include "platform.h"

void pl__cpu_stats_free(struct pl__cpu_stats *s)
{
    if (!s) return;
    free(s->cpu);
    memset(s, 0, sizeof *s);
}

/* The numbers of one cpu line after the label; returns the count (max 10). */
static unsigned parse_cpu_fields(const char **p, uint64_t t[PL__CPU_NFIELDS])
{
    unsigned n = 0;
    uint64_t v;
    memset(t, 0, sizeof(uint64_t) * PL__CPU_NFIELDS);
    while (pl__parse_u64(p, &v)) {
        if (n < PL__CPU_NFIELDS) t[n] = v;
        n++;
    }
    return n > PL__CPU_NFIELDS ? PL__CPU_NFIELDS : n;
}

/* Does the line start with the word `key`? */
static int line_key(const char *s, const char *key, const char **rest)
{
    size_t kl = strlen(key);
    if (strncmp(s, key, kl) != 0) return 0;
    if (s[kl] != ' ' && s[kl] != '\t' && s[kl] != '\n' && s[kl] != '\0') return 0;
    *rest = s + kl;
    return 1;
}

/* Only spaces/tabs may remain before the end of the line. */
static int at_eol(const char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    return *s == '\n' || *s == '\0';
}

int pl__parse_proc_stat(const char *text, struct pl__cpu_stats *out)
{
    struct pl__cpu_line *cpu = out->cpu;
    uint32_t cap = out->cap;
    memset(out, 0, sizeof *out);
    out->cpu = cpu;
    out->cap = cap;
    out->nfields = PL__CPU_NFIELDS;

    int have_total = 0;
    const char *s = text;
    while (*s) {
        const char *r;
        if (s[0] == 'c' && s[1] == 'p' && s[2] == 'u') {
            if (s[3] == ' ') {
                if (have_total) return -EINVAL;
                r = s + 3;
                unsigned n = parse_cpu_fields(&r, out->total);
                if (n < 4 || !at_eol(r)) return -EINVAL;
                if (n < out->nfields) out->nfields = n;
                have_total = 1;
            } else if (s[3] >= '0' && s[3] <= '9') {
                r = s + 3;
                uint64_t id;
                if (!pl__parse_u64(&r, &id) || id > UINT32_MAX) return -EINVAL;
                if (*r != ' ' && *r != '\t') return -EINVAL;
                if (out->ncpu > 0 && id <= out->cpu[out->ncpu - 1].id) return -EINVAL;
                if (out->ncpu == out->cap) {
                    uint32_t nc = out->cap ? out->cap * 2 : 64;
                    if (nc > (1u << 20)) return -EINVAL; /* a million CPUs: not a real file */
                    struct pl__cpu_line *ncp = realloc(out->cpu, (size_t)nc * sizeof *ncp);
                    if (!ncp) return -ENOMEM;
                    out->cpu = ncp;
                    out->cap = nc;
                }
                struct pl__cpu_line *l = &out->cpu[out->ncpu];
                l->id = (uint32_t)id;
                unsigned n = parse_cpu_fields(&r, l->t);
                if (n < 4 || !at_eol(r)) return -EINVAL;
                if (n < out->nfields) out->nfields = n;
                out->ncpu++;
            } else {
                return -EINVAL;
            }
        } else {
            static const struct {
                const char *key;
                unsigned bit;
                size_t off;
                int whole_line; /* 1: exactly one number on the line */
            } keys[] = {
                {"intr", PL__STAT_HAVE_INTR, offsetof(struct pl__cpu_stats, intr), 0},
                {"ctxt", PL__STAT_HAVE_CTXT, offsetof(struct pl__cpu_stats, ctxt), 1},
                {"btime", PL__STAT_HAVE_BTIME, offsetof(struct pl__cpu_stats, btime), 1},
                {"processes", PL__STAT_HAVE_PROCESSES, offsetof(struct pl__cpu_stats, processes), 1},
                {"procs_running", PL__STAT_HAVE_RUNNING, offsetof(struct pl__cpu_stats, procs_running), 1},
                {"procs_blocked", PL__STAT_HAVE_BLOCKED, offsetof(struct pl__cpu_stats, procs_blocked), 1},
                {"softirq", PL__STAT_HAVE_SOFTIRQ, offsetof(struct pl__cpu_stats, softirq), 0},
            };
            for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
                if (!line_key(s, keys[i].key, &r)) continue;
                uint64_t v;
                if ((out->have & keys[i].bit) || !pl__parse_u64(&r, &v)) return -EINVAL;
                if (keys[i].whole_line && !at_eol(r)) return -EINVAL;
                memcpy((char *)out + keys[i].off, &v, sizeof v);
                out->have |= keys[i].bit;
                break;
            }
            /* other lines (page, swap, ...) are skipped */
        }
        pl__skip_line(&s);
    }
    if (!have_total) return -EINVAL;
    /* nfields is the fewest columns of any line: a column some line lacks is
     * 0 on every line, as the header promises (found by fuzz_procfs). */
    size_t tail = sizeof(uint64_t) * (PL__CPU_NFIELDS - out->nfields);
    memset(out->total + out->nfields, 0, tail);
    for (uint32_t i = 0; i < out->ncpu; i++) memset(out->cpu[i].t + out->nfields, 0, tail);
    return 0;
}

int pl__read_proc_stat(int rootfd, struct pl__cpu_stats *out)
{
    char *buf = NULL;
    ssize_t n = pl__slurp_at(rootfd, "proc/stat", &buf);
    if (n < 0) return (int)n;
    int rc = pl__text_complete(buf, (size_t)n) ? pl__parse_proc_stat(buf, out) : -EINVAL;
    free(buf);
    return rc;
}
