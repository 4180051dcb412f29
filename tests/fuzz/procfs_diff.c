/* The library's /proc/vmstat, /proc/meminfo and /proc/net/snmp{,6} parsers
 * against the reference copies of their code before issue 17
 * (procfs_ref.c): same status, same values and bad counts, and the same
 * answer to every lookup by protocol and name (the library's goes through
 * its hash index, the reference scans). Used by the fuzz target
 * fuzz_procfs_diff and by the unit test test_procfs_diff. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "linux/collect_io.h"
#include "linux/collect_os.h"
#include "procfs_diff.h"
#include "procfs_ref.h"

static const char *vmstat(const char *t)
{
    struct pl__vmstat a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    int rc = pl__parse_proc_vmstat(t, &a);
    if (rc != ref_parse_proc_vmstat(t, &b)) return "vmstat: status differs";
    if (rc == 0 && memcmp(&a, &b, sizeof a) != 0) return "vmstat: values differ";
    return NULL;
}

static const char *meminfo(const char *t)
{
    struct pl__meminfo a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    int rc = pl__parse_proc_meminfo(t, &a);
    if (rc != ref_parse_proc_meminfo(t, &b)) return "meminfo: status differs";
    if (rc == 0 && memcmp(&a, &b, sizeof a) != 0) return "meminfo: values differ";
    return NULL;
}

/* The reference's lookup (ref_snmp_get: the first entry with the key, by
 * a scan) answered from the entries sorted by key and position, so that
 * checking every entry's lookups is not quadratic. */
struct sorted {
    const struct ref_snmp *r;
    size_t *ix;
};

static int key_cmp(const struct ref_snmp_entry *e, const char *proto, const char *name)
{
    int c = strcmp(e->proto, proto);
    return c ? c : strcmp(e->name, name);
}

static const struct ref_snmp *sort_ctx;

static int ix_cmp(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int c = key_cmp(&sort_ctx->e[i], sort_ctx->e[j].proto, sort_ctx->e[j].name);
    return c ? c : (i > j) - (i < j);
}

static void sort_entries(struct sorted *so, const struct ref_snmp *r)
{
    so->r = r;
    so->ix = malloc((r->n ? r->n : 1) * sizeof *so->ix);
    if (!so->ix) abort();
    for (size_t i = 0; i < r->n; i++) so->ix[i] = i;
    sort_ctx = r;
    qsort(so->ix, r->n, sizeof *so->ix, ix_cmp);
}

static int sorted_get(const struct sorted *so, const char *proto, const char *name, int64_t *v)
{
    size_t lo = 0, hi = so->r->n;
    while (lo < hi) { /* the first position whose key is not below */
        size_t mid = lo + (hi - lo) / 2;
        if (key_cmp(&so->r->e[so->ix[mid]], proto, name) < 0) lo = mid + 1;
        else hi = mid;
    }
    if (lo == so->r->n || key_cmp(&so->r->e[so->ix[lo]], proto, name) != 0) return 0;
    *v = so->r->e[so->ix[lo]].value;
    return 1;
}

/* One lookup both ways. */
static const char *same_get(const struct pl__snmp *s, const struct sorted *so, const char *proto, const char *name)
{
    int64_t x = 0, y = 0;
    int f = pl__snmp_get(s, proto, name, &x);
    if (f != sorted_get(so, proto, name, &y)) return "snmp: a lookup finds differently";
    if (f && x != y) return "snmp: a lookup gives another value";
    return NULL;
}

/* Entries and lookups of a successful parse. */
static const char *same_snmp(const struct pl__snmp *s, const struct ref_snmp *r)
{
    if (s->n != r->n || s->bad != r->bad) return "snmp: entry or bad counts differ";
    for (size_t i = 0; i < s->n; i++) {
        const struct pl__snmp_entry *e = &s->e[i];
        if (strcmp(e->proto, r->e[i].proto) != 0 || strcmp(e->name, r->e[i].name) != 0 || e->value != r->e[i].value)
            return "snmp: an entry differs";
        if (e->hash != pl__snmp_hash(e->proto, e->name)) return "snmp: an entry's hash is wrong";
    }
    static const char *const fixed[][2] = {
        {"Ip", "InReceives"}, {"Tcp", "MaxConn"}, {"", "Ip6InReceives"}, {"Icmp", "InMsgs"}, {"", ""}, {"Ip", ""},
    };
    /* these through the reference's own scan */
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        int64_t x = 0, y = 0;
        int f = pl__snmp_get(s, fixed[i][0], fixed[i][1], &x);
        if (f != ref_snmp_get(r, fixed[i][0], fixed[i][1], &y) || (f && x != y)) return "snmp: a lookup differs";
    }
    struct sorted so;
    sort_entries(&so, r);
    const char *m = NULL;
    for (size_t i = 0; i < r->n && !m; i++) {
        const struct ref_snmp_entry *e = &r->e[i];
        char shorter[sizeof e->name];
        memcpy(shorter, e->name, sizeof shorter);
        size_t nl = strlen(shorter);
        if (nl) shorter[nl - 1] = '\0';
        m = same_get(s, &so, e->proto, e->name);
        if (!m) m = same_get(s, &so, e->proto, shorter);
        /* the same name under the protocols of the neighbours */
        if (!m && i > 0) m = same_get(s, &so, r->e[i - 1].proto, e->name);
        if (!m && i + 1 < r->n) m = same_get(s, &so, r->e[i + 1].proto, e->name);
    }
    free(so.ix);
    return m;
}

static const char *snmp(const char *t, int v6)
{
    struct pl__snmp s;
    struct ref_snmp r;
    memset(&s, 0, sizeof s);
    memset(&r, 0, sizeof r);
    const char *m = NULL;
    /* The arrays and the index reused: first the text's second half, then
     * the whole text, then the second half again, into the same struct. */
    const char *half = t + strlen(t) / 2;
    const char *texts[3] = {half, t, half};
    for (int k = 0; k < 3 && !m; k++) {
        int rc = v6 ? pl__parse_net_snmp6(texts[k], &s) : pl__parse_net_snmp(texts[k], &s);
        int rrc = v6 ? ref_parse_net_snmp6(texts[k], &r) : ref_parse_net_snmp(texts[k], &r);
        if (rc != rrc) m = "snmp: status differs";
        else if (rc == 0) m = same_snmp(&s, &r);
    }
    pl__snmp_free(&s);
    ref_snmp_free(&r);
    return m;
}

const char *procfs_diff(unsigned which, const char *text)
{
    switch (which % PROCFS_DIFF_N) {
    case PROCFS_DIFF_VMSTAT: return vmstat(text);
    case PROCFS_DIFF_MEMINFO: return meminfo(text);
    case PROCFS_DIFF_SNMP: return snmp(text, 0);
    default: return snmp(text, 1);
    }
}
