/* libFuzzer target for the /proc text parsers of lib/platform/linux
 * (collect_os.h, collect_io.h, collect_proc.h). The first byte, modulo
 * NPARSERS, chooses the parser; the rest is the file's text:
 *    0 /proc/diskstats              1 one diskstats line ((buf,len))
 *    2 /proc/interrupts             3 /proc/softirqs (pl__parse_percpu_table)
 *    4 /proc/loadavg                5 /proc/meminfo
 *    6 /proc/self/mountinfo         7 /proc/mounts
 *    8 /proc/net/dev                9 /proc/net/snmp
 *   10 /proc/net/snmp6             11 /proc/net/tcp   ((buf,len))
 *   12 /proc/net/tcp6 ((buf,len))  13 one tcp line   ((buf,len), v4)
 *   14 one tcp6 line ((buf,len))   15 /proc/<pid>/stat
 *   16 /proc/<pid>/status          17 /proc/<pid>/io
 *   18 /proc/<pid>/schedstat       19 /proc/<pid>/maps (pl__maps_next)
 *   20 /proc/pressure/{cpu,io,memory}  21 /proc/stat
 *   22 /proc/swaps                 23 /proc/uptime
 *   24 /proc/vmstat                25 "123.45" (pl__parse_fixed2)
 *   26 /proc/<pid>/smaps (pl__parse_smaps_commit)
 * Parsers of NUL-terminated text get an exact-size heap copy with its NUL;
 * (buf,len) parsers get an exact-size copy without one, so a read one byte
 * past the text is an ASan error. Every parser runs twice on the same text
 * (owned arrays reused the second time) and must give the same result; a
 * success must leave counts within their arrays and names NUL-terminated
 * within their fields. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "linux/collect_io.h"
#include "linux/collect_os.h"
#include "linux/collect_proc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NPARSERS 27

#define CHECK(c)              \
    do {                      \
        if (!(c)) abort();    \
    } while (0)

/* The string field f of an array element ends inside the field. */
#define TERMINATED(f) (memchr((f), '\0', sizeof(f)) != NULL)

/* rc is a status: 0 or a negative errno (never a made-up positive). */
static void status_ok(int rc)
{
    CHECK(rc == 0 || rc == -EINVAL || rc == -ENOMEM || rc == -ERANGE || rc == -EOVERFLOW);
}

/* Snapshot of the first parse's array, compared after the second. */
static void *dup_array(const void *a, size_t n, size_t sz)
{
    void *c = malloc(n * sz ? n * sz : 1);
    if (!c) abort();
    if (n) memcpy(c, a, n * sz);
    return c;
}

static void same_array(void *snap, const void *a, size_t n, size_t sz)
{
    if (n) CHECK(memcmp(snap, a, n * sz) == 0);
    free(snap);
}

static void diskstats(const char *t)
{
    struct pl__diskstats s;
    memset(&s, 0, sizeof s);
    int rc = pl__parse_diskstats(t, &s);
    status_ok(rc);
    size_t n = s.n, bad = s.bad;
    void *snap = NULL;
    if (rc == 0) {
        CHECK(s.n <= s.cap && (s.n == 0 || s.d));
        for (size_t i = 0; i < s.n; i++) {
            const struct pl__diskstat *d = &s.d[i];
            CHECK(d->nfields == 11 || d->nfields == 15 || d->nfields == 17);
            CHECK(TERMINATED(d->name) && d->name[0] != '\0');
            for (unsigned k = d->nfields; k < PL__DK_NFIELDS; k++) CHECK(d->f[k] == 0);
        }
        snap = dup_array(s.d, s.n, sizeof *s.d);
    }
    int rc2 = pl__parse_diskstats(t, &s);
    CHECK(rc2 == rc);
    if (rc == 0) {
        CHECK(s.n == n && s.bad == bad);
        same_array(snap, s.d, n, sizeof *s.d);
    }
    pl__diskstats_free(&s);
}

static void diskstats_line(const char *t, size_t len)
{
    struct pl__diskstat a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    int rc = pl__parse_diskstats_line(t, len, &a);
    CHECK(rc == 0 || rc == 1);
    CHECK(pl__parse_diskstats_line(t, len, &b) == rc);
    if (rc == 1) {
        CHECK(a.nfields == 11 || a.nfields == 15 || a.nfields == 17);
        CHECK(TERMINATED(a.name) && a.name[0] != '\0');
        for (unsigned k = a.nfields; k < PL__DK_NFIELDS; k++) CHECK(a.f[k] == 0);
        CHECK(memcmp(&a, &b, sizeof a) == 0);
    }
}

static void percpu(const char *t, int skip_global)
{
    struct pl__percpu_sums s;
    memset(&s, 0, sizeof s);
    int rc = pl__parse_percpu_table(t, skip_global, &s);
    status_ok(rc);
    uint32_t n = s.ncol;
    void *c = NULL, *m = NULL;
    if (rc == 0) {
        CHECK(s.ncol <= s.cap && (s.ncol == 0 || (s.cpu && s.sum)));
        c = dup_array(s.cpu, n, sizeof *s.cpu);
        m = dup_array(s.sum, n, sizeof *s.sum);
    }
    CHECK(pl__parse_percpu_table(t, skip_global, &s) == rc);
    if (rc == 0) {
        CHECK(s.ncol == n);
        same_array(c, s.cpu, n, sizeof *s.cpu);
        same_array(m, s.sum, n, sizeof *s.sum);
    }
    pl__percpu_sums_free(&s);
}

/* Fixed-size results: two fresh parses, same status, same bytes on success
 * (both start zeroed, so padding compares equal too). */
#define FIXED(type, fn, t, extra)                          \
    do {                                                   \
        type a_, b_;                                       \
        memset(&a_, 0, sizeof a_);                         \
        memset(&b_, 0, sizeof b_);                         \
        int rc_ = fn(t, &a_);                              \
        status_ok(rc_);                                    \
        CHECK(fn(t, &b_) == rc_);                          \
        if (rc_ == 0) {                                    \
            CHECK(memcmp(&a_, &b_, sizeof a_) == 0);       \
            extra;                                         \
        }                                                  \
    } while (0)

static void loadavg(const char *t)
{
    FIXED(struct pl__loadavg, pl__parse_proc_loadavg, t, (void)0);
}

static void meminfo(const char *t)
{
    FIXED(struct pl__meminfo, pl__parse_proc_meminfo, t, {
        CHECK((a_.bad & a_.have) == 0 && a_.bad >> PL__MEM_NFIELDS == 0);
        CHECK(a_.have >> PL__MEM_NFIELDS == 0);
        CHECK(pl__mem_has(&a_, PL__MEM_TOTAL));
    });
}

static void mounts(const char *t, int info)
{
    struct pl__mounts s;
    memset(&s, 0, sizeof s);
    int rc = info ? pl__parse_mountinfo(t, &s) : pl__parse_mounts(t, &s);
    status_ok(rc);
    size_t n = s.n, bad = s.bad;
    void *snap = NULL;
    if (rc == 0) {
        CHECK(s.n <= s.cap && (s.n == 0 || s.m));
        for (size_t i = 0; i < s.n; i++) {
            const struct pl__mount *m = &s.m[i];
            CHECK(TERMINATED(m->mountpoint) && TERMINATED(m->source) && TERMINATED(m->fstype));
            if (!info) CHECK(!m->have_devno && m->major == 0 && m->minor == 0);
        }
        snap = dup_array(s.m, s.n, sizeof *s.m);
    }
    CHECK((info ? pl__parse_mountinfo(t, &s) : pl__parse_mounts(t, &s)) == rc);
    if (rc == 0) {
        CHECK(s.n == n && s.bad == bad);
        same_array(snap, s.m, n, sizeof *s.m);
    }
    pl__mounts_free(&s);
}

static void net_dev(const char *t)
{
    struct pl__netdevs s;
    memset(&s, 0, sizeof s);
    int rc = pl__parse_net_dev(t, &s);
    status_ok(rc);
    size_t n = s.n, bad = s.bad;
    void *snap = NULL;
    if (rc == 0) {
        CHECK(s.n <= s.cap && (s.n == 0 || s.d));
        for (size_t i = 0; i < s.n; i++) CHECK(TERMINATED(s.d[i].name) && s.d[i].name[0] != '\0');
        snap = dup_array(s.d, s.n, sizeof *s.d);
    }
    CHECK(pl__parse_net_dev(t, &s) == rc);
    if (rc == 0) {
        CHECK(s.n == n && s.bad == bad);
        same_array(snap, s.d, n, sizeof *s.d);
    }
    pl__netdevs_free(&s);
}

static void snmp(const char *t, int v6)
{
    struct pl__snmp s;
    memset(&s, 0, sizeof s);
    int rc = v6 ? pl__parse_net_snmp6(t, &s) : pl__parse_net_snmp(t, &s);
    status_ok(rc);
    size_t n = s.n, bad = s.bad;
    void *snap = NULL;
    if (rc == 0) {
        CHECK(s.n <= s.cap && (s.n == 0 || s.e));
        for (size_t i = 0; i < s.n; i++) {
            CHECK(TERMINATED(s.e[i].proto) && TERMINATED(s.e[i].name) && s.e[i].name[0] != '\0');
            if (v6) CHECK(s.e[i].proto[0] == '\0');
        }
        snap = dup_array(s.e, s.n, sizeof *s.e);
    }
    CHECK((v6 ? pl__parse_net_snmp6(t, &s) : pl__parse_net_snmp(t, &s)) == rc);
    if (rc == 0) {
        CHECK(s.n == n && s.bad == bad);
        same_array(snap, s.e, n, sizeof *s.e);
    }
    pl__snmp_free(&s);
}

static void tcp_socks_ok(const struct pl__tcp_socks *s, int v6)
{
    uint64_t sum = 0;
    CHECK(s->state[0] == 0);
    for (int k = 1; k < PL__TCP_STATES; k++) sum += s->state[k];
    CHECK(sum == s->lines);
    CHECK(s->estab_v4 + s->estab_v6 <= s->lines);
    if (!v6) CHECK(s->estab_v6 == 0);
}

static void net_tcp(const char *t, size_t len, int v6)
{
    struct pl__tcp_socks a, b;
    memset(&a, 0xa5, sizeof a); /* the parser resets it */
    memset(&b, 0, sizeof b);
    int rc = pl__parse_net_tcp(t, len, v6, &a);
    CHECK(rc == 0 || rc == -EINVAL);
    CHECK(pl__parse_net_tcp(t, len, v6, &b) == rc);
    if (rc == 0) {
        tcp_socks_ok(&a, v6);
        CHECK(memcmp(&a, &b, sizeof a) == 0);
        /* a socket line is at least "0: " + two addresses + state */
        CHECK(a.lines * (v6 ? 70 : 22) <= len);
    }
}

static void net_tcp_line(const char *t, size_t len, int v6)
{
    struct pl__tcp_socks a;
    memset(&a, 0, sizeof a);
    int rc = pl__parse_net_tcp_line(t, len, v6, &a);
    CHECK(rc == 0 || rc == 1);
    CHECK(a.lines == (size_t)rc && a.bad == (size_t)!rc);
    tcp_socks_ok(&a, v6);
}

static void pid_stat(const char *t)
{
    FIXED(pl_proc_stat, pl__proc_parse_stat, t, CHECK(TERMINATED(a_.comm)));
}

static void pid_status(const char *t)
{
    FIXED(pl_proc_status, pl__proc_parse_status, t, (void)0);
}

static void pid_io(const char *t)
{
    FIXED(pl_proc_io, pl__proc_parse_io, t, (void)0);
}

static void pid_schedstat(const char *t)
{
    FIXED(pl_proc_schedstat, pl__proc_parse_schedstat, t, (void)0);
}

static void maps(const char *t, size_t len)
{
    const char *p = t;
    pl_maps_entry e;
    for (size_t lines = 0; lines <= len + 1; lines++) {
        const char *before = p;
        int rc = pl__maps_next(&p, &e);
        CHECK(rc == 1 || rc == 0 || rc == -EINVAL);
        if (rc != 1) {
            CHECK(p == before);
            if (rc == 0) CHECK(before == t + len);
            return;
        }
        /* progress, inside the text, the path inside the line just read */
        CHECK(p > before && p <= t + len);
        CHECK(e.start <= e.end && e.prot >= 0 && e.prot < PL_PROT_COUNT);
        CHECK(e.path >= before && e.path + e.path_len <= p);
        CHECK(memchr(e.path, '\n', e.path_len) == NULL);
    }
    abort(); /* more entries than lines */
}

/* The commit charge: twice the same, and what it sums lies within the
 * address space of the mappings it counted (each at most 2^54 kB). */
static void smaps(const char *t)
{
    pl_smaps_commit a, b;
    int r1 = pl__parse_smaps_commit(t, &a), r2 = pl__parse_smaps_commit(t, &b);
    CHECK(r1 == 0 || r1 == -EINVAL);
    CHECK(r1 == r2);
    if (r1 != 0) return;
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    CHECK(a.mappings > 0 || (a.private_kb == 0 && a.shared_anon_kb == 0 && a.reserved_kb == 0));
}

static void pressure(const char *t)
{
    FIXED(struct pl__psi, pl__parse_proc_pressure, t, CHECK(a_.have_some || a_.have_full));
}

static void proc_stat(const char *t)
{
    struct pl__cpu_stats s;
    memset(&s, 0, sizeof s);
    int rc = pl__parse_proc_stat(t, &s);
    status_ok(rc);
    uint32_t n = s.ncpu;
    void *snap = NULL;
    struct pl__cpu_stats head;
    if (rc == 0) {
        CHECK(s.ncpu <= s.cap && (s.ncpu == 0 || s.cpu));
        CHECK(s.nfields >= 4 && s.nfields <= PL__CPU_NFIELDS);
        for (unsigned k = s.nfields; k < PL__CPU_NFIELDS; k++) CHECK(s.total[k] == 0);
        for (uint32_t i = 0; i < s.ncpu; i++) {
            for (unsigned k = s.nfields; k < PL__CPU_NFIELDS; k++) CHECK(s.cpu[i].t[k] == 0);
            if (i) CHECK(s.cpu[i].id > s.cpu[i - 1].id);
        }
        snap = dup_array(s.cpu, n, sizeof *s.cpu);
        head = s;
    }
    CHECK(pl__parse_proc_stat(t, &s) == rc);
    if (rc == 0) {
        CHECK(s.ncpu == n && s.nfields == head.nfields && s.have == head.have);
        CHECK(memcmp(s.total, head.total, sizeof s.total) == 0);
        CHECK(s.intr == head.intr && s.ctxt == head.ctxt && s.btime == head.btime);
        CHECK(s.processes == head.processes && s.procs_running == head.procs_running);
        CHECK(s.procs_blocked == head.procs_blocked && s.softirq == head.softirq);
        same_array(snap, s.cpu, n, sizeof *s.cpu);
    }
    pl__cpu_stats_free(&s);
}

static void swaps(const char *t)
{
    struct pl__swaps s;
    memset(&s, 0, sizeof s);
    int rc = pl__parse_proc_swaps(t, &s);
    status_ok(rc);
    uint32_t n = s.n;
    void *snap = NULL;
    if (rc == 0) {
        CHECK(s.n <= s.cap && (s.n == 0 || s.a));
        for (uint32_t i = 0; i < s.n; i++) {
            CHECK(TERMINATED(s.a[i].name) && TERMINATED(s.a[i].type));
        }
        snap = dup_array(s.a, n, sizeof *s.a);
    }
    CHECK(pl__parse_proc_swaps(t, &s) == rc);
    if (rc == 0) {
        CHECK(s.n == n);
        same_array(snap, s.a, n, sizeof *s.a);
    }
    pl__swaps_free(&s);
}

static void uptime(const char *t)
{
    FIXED(struct pl__uptime, pl__parse_proc_uptime, t, (void)0);
}

static void vmstat(const char *t)
{
    FIXED(struct pl__vmstat, pl__parse_proc_vmstat, t, CHECK(a_.have >> PL__VM_NFIELDS == 0));
}

static void fixed2(const char *t, size_t len)
{
    const char *p = t;
    uint64_t v = 0;
    int rc = pl__parse_fixed2(&p, &v);
    CHECK(rc == 0 || rc == 1);
    if (!rc) {
        CHECK(p == t);
        return;
    }
    /* "digits.dd": at least 4 bytes consumed, the value ends in the 2 decimals */
    CHECK(p >= t + 4 && p <= t + len);
    CHECK(p[-3] == '.' && v % 100 == (uint64_t)((p[-2] - '0') * 10 + (p[-1] - '0')));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20)) return 0;
    unsigned sel = data[0] % NPARSERS;
    size_t len = size - 1;
    /* exact-size copies: text with its NUL, raw without */
    char *text = malloc(len + 1);
    char *raw = malloc(len ? len : 1);
    if (!text || !raw) abort();
    memcpy(text, data + 1, len);
    text[len] = '\0';
    memcpy(raw, data + 1, len);
    size_t tlen = strlen(text); /* what a NUL-terminated parser sees */
    switch (sel) {
    case 0: diskstats(text); break;
    case 1: diskstats_line(raw, len); break;
    case 2: percpu(text, 1); break;
    case 3: percpu(text, 0); break;
    case 4: loadavg(text); break;
    case 5: meminfo(text); break;
    case 6: mounts(text, 1); break;
    case 7: mounts(text, 0); break;
    case 8: net_dev(text); break;
    case 9: snmp(text, 0); break;
    case 10: snmp(text, 1); break;
    case 11: net_tcp(raw, len, 0); break;
    case 12: net_tcp(raw, len, 1); break;
    case 13: net_tcp_line(raw, len, 0); break;
    case 14: net_tcp_line(raw, len, 1); break;
    case 15: pid_stat(text); break;
    case 16: pid_status(text); break;
    case 17: pid_io(text); break;
    case 18: pid_schedstat(text); break;
    case 19: maps(text, tlen); break;
    case 20: pressure(text); break;
    case 21: proc_stat(text); break;
    case 22: swaps(text); break;
    case 23: uptime(text); break;
    case 24: vmstat(text); break;
    case 25: fixed2(text, tlen); break;
    default: smaps(text); break;
    }
    free(text);
    free(raw);
    return 0;
}
