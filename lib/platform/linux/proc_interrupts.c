/* perflib: /proc/interrupts, reduced to the number of interrupts each online
 * CPU has serviced; also the per-CPU table parser shared with softirqs.
 *              CPU0       CPU1
 *     0:         44          0   IO-APIC   2-edge      timer
 *   LOC:     123456     654321   Local timer interrupts
 *   ERR:          0
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect_os.h"
#include "platform.h"

void pl__percpu_sums_free(struct pl__percpu_sums *s)
{
    if (!s) return;
    free(s->cpu);
    free(s->sum);
    memset(s, 0, sizeof *s);
}

static int grow(struct pl__percpu_sums *out, uint32_t need)
{
    if (need <= out->cap) return 0;
    uint32_t nc = out->cap ? out->cap : 64;
    while (nc < need) nc *= 2;
    uint32_t *c = realloc(out->cpu, (size_t)nc * sizeof *c);
    if (!c) return -ENOMEM;
    out->cpu = c;
    uint64_t *s = realloc(out->sum, (size_t)nc * sizeof *s);
    if (!s) return -ENOMEM;
    out->sum = s;
    out->cap = nc;
    return 0;
}

int pl__parse_percpu_table(const char *text, int skip_global, struct pl__percpu_sums *out)
{
    out->ncol = 0;
    const char *s = text;
    /* header: CPU0 CPU1 ... */
    for (;;) {
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '\n') break;
        if (strncmp(s, "CPU", 3) != 0) return -EINVAL;
        s += 3;
        uint64_t id;
        if (*s < '0' || *s > '9' || !pl__parse_u64(&s, &id) || id > UINT32_MAX) return -EINVAL;
        if (*s != ' ' && *s != '\t' && *s != '\n') return -EINVAL;
        if (out->ncol > 0 && id <= out->cpu[out->ncol - 1]) return -EINVAL;
        if (out->ncol >= (1u << 20)) return -EINVAL;
        int rc = grow(out, out->ncol + 1);
        if (rc < 0) return rc;
        out->cpu[out->ncol] = (uint32_t)id;
        out->sum[out->ncol] = 0;
        out->ncol++;
    }
    if (out->ncol == 0) return -EINVAL;
    s++;
    while (*s) {
        const char *r = s;
        while (*r == ' ' || *r == '\t') r++;
        const char *label = r;
        while (*r && *r != ':' && *r != '\n') r++;
        if (*r != ':' || r == label) return -EINVAL;
        size_t ll = (size_t)(r - label);
        r++;
        int global = (ll == 3 && (memcmp(label, "ERR", 3) == 0 || memcmp(label, "MIS", 3) == 0));
        /* count the numbers first, so a short row adds nothing */
        const char *q = r;
        uint32_t n = 0;
        uint64_t v;
        while (n < out->ncol && pl__parse_u64(&q, &v) && (*q == ' ' || *q == '\t' || *q == '\n' || !*q))
            n++;
        if (n < out->ncol) {
            if (!skip_global) return -EINVAL;
            global = 1;
        }
        if (!(skip_global && global)) {
            for (uint32_t i = 0; i < out->ncol; i++) {
                pl__parse_u64(&r, &v);
                if (v > UINT64_MAX - out->sum[i]) return -EINVAL; /* never a saturated sum */
                out->sum[i] += v;
            }
        }
        pl__skip_line(&s);
    }
    return 0;
}

int pl__read_proc_interrupts(int rootfd, struct pl__percpu_sums *out)
{
    char *buf = NULL;
    ssize_t n = pl__slurp_at(rootfd, "proc/interrupts", &buf);
    if (n < 0) return (int)n;
    int rc = pl__text_complete(buf, (size_t)n) ? pl__parse_percpu_table(buf, 1, out) : -EINVAL;
    free(buf);
    return rc;
}
