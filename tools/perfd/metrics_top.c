/* perfd /metrics: the top processes' state between scrapes (metrics_top.h). */
#include "metrics_top.h"

#include <stdlib.h>
#include <string.h>

#define MAX_COLS 96
#define RANK_COL 0xFFFFFFFFu  /* the ranking counter's own column */
#define NO_ROW 0xFFFFFFFFu

/* The values of one snapshot's processes: rows in instance order, ord[]
 * the rows sorted by (pid, start) for look-ups. */
typedef struct tmap {
    uint32_t n;
    uint64_t *pid, *start;
    uint32_t *ord;
    uint32_t ncol;
    uint32_t cidx[MAX_COLS];
    uint64_t *vals[MAX_COLS];
    unsigned char *have[MAX_COLS];
} tmap;

struct pm_top {
    tmap prev, before, cur;   /* the last snapshot, the one before it, this render's */
    uint64_t seq;             /* prev's snapshot */
    uint64_t cur_seq;         /* this render's */
    int started;              /* prev holds a snapshot */
    int same;                 /* this render is of prev's snapshot again */
    unsigned char *in_other;  /* this render's, per instance */
    uint32_t *row;            /* per instance: its row in the reference map, NO_ROW when new */
    int failed;
    uint32_t nacc;
    uint32_t acc_cidx[MAX_COLS];
    uint64_t acc[MAX_COLS];   /* _Other's increases so far, per counter */
};

static void tmap_free(tmap *m)
{
    free(m->pid);
    free(m->start);
    free(m->ord);
    for (uint32_t c = 0; c < m->ncol; c++) {
        free(m->vals[c]);
        free(m->have[c]);
    }
    memset(m, 0, sizeof *m);
}

pm_top *pm_top_new(void) { return calloc(1, sizeof(pm_top)); }

void pm_top_free(pm_top *t)
{
    if (!t) return;
    tmap_free(&t->prev);
    tmap_free(&t->before);
    tmap_free(&t->cur);
    free(t->row);
    free(t->in_other);
    free(t);
}

static const tmap *sort_ctx;

static int cmp_key(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const tmap *m = sort_ctx;
    if (m->pid[x] != m->pid[y]) return m->pid[x] < m->pid[y] ? -1 : 1;
    if (m->start[x] != m->start[y]) return m->start[x] < m->start[y] ? -1 : 1;
    return (x > y) - (x < y);
}

static uint32_t find_row(const tmap *m, uint64_t pid, uint64_t start)
{
    uint32_t lo = 0, hi = m->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2, r = m->ord[mid];
        if (m->pid[r] < pid || (m->pid[r] == pid && m->start[r] < start)) lo = mid + 1;
        else hi = mid;
    }
    if (lo < m->n && m->pid[m->ord[lo]] == pid && m->start[m->ord[lo]] == start) return m->ord[lo];
    return NO_ROW;
}

static int col_of(const tmap *m, uint32_t cidx)
{
    for (uint32_t c = 0; c < m->ncol; c++)
        if (m->cidx[c] == cidx) return (int)c;
    return -1;
}

/* Keep vals as column cidx of the render's map. */
static void keep(pm_top *t, uint32_t cidx, const uint64_t *vals, const unsigned char *have)
{
    tmap *m = &t->cur;
    if (t->same || col_of(m, cidx) >= 0 || m->ncol == MAX_COLS) return;
    uint32_t c = m->ncol;
    m->vals[c] = malloc(((size_t)m->n + 1) * sizeof *m->vals[c]);
    m->have[c] = malloc((size_t)m->n + 1);
    if (!m->vals[c] || !m->have[c]) {
        free(m->vals[c]);
        free(m->have[c]);
        t->failed = 1;
        return;
    }
    memcpy(m->vals[c], vals, (size_t)m->n * sizeof *vals);
    memcpy(m->have[c], have, (size_t)m->n);
    m->cidx[c] = cidx;
    m->ncol++;
}

/* What instance i of this render did since the reference snapshot: its
 * increase, or its whole value when it (or the column) is new there. */
static uint64_t increase(const pm_top *t, const tmap *ref, int col, uint32_t i, uint64_t v, int size4)
{
    uint32_t r = t->row[i];
    if (col < 0 || r == NO_ROW || !ref->have[col][r]) return v;
    uint64_t p = ref->vals[col][r];
    if (size4) return (uint32_t)((uint32_t)v - (uint32_t)p);
    return v >= p ? v - p : 0;
}

typedef struct ranked {
    uint64_t score, raw, pid;
    uint32_t i;
} ranked;

static int cmp_rank(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    if (x->raw != y->raw) return x->raw > y->raw ? -1 : 1;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

int pm_top_begin(pm_top *t, uint64_t seq, uint32_t n, const uint64_t *pid, const uint64_t *start,
                 const unsigned char *eligible, const uint64_t *rank, int cum, int size4, uint32_t topn,
                 unsigned char *in_other)
{
    tmap_free(&t->cur);
    free(t->row);
    free(t->in_other);
    t->row = NULL;
    t->failed = 0;
    t->in_other = malloc((size_t)n + 1);
    t->same = t->started && seq == t->seq;
    t->cur_seq = seq;
    tmap *m = &t->cur;
    m->n = n;
    m->pid = malloc(((size_t)n + 1) * sizeof *m->pid);
    m->start = malloc(((size_t)n + 1) * sizeof *m->start);
    m->ord = malloc(((size_t)n + 1) * sizeof *m->ord);
    t->row = malloc(((size_t)n + 1) * sizeof *t->row);
    ranked *rk = malloc(((size_t)n + 1) * sizeof *rk);
    unsigned char *have = malloc((size_t)n + 1);
    if (!m->pid || !m->start || !m->ord || !t->row || !rk || !have || !t->in_other) {
        free(rk);
        free(have);
        tmap_free(m);
        return -1;
    }
    memcpy(m->pid, pid, (size_t)n * sizeof *pid);
    memcpy(m->start, start, (size_t)n * sizeof *start);
    for (uint32_t i = 0; i < n; i++) m->ord[i] = i;
    sort_ctx = m;
    qsort(m->ord, n, sizeof *m->ord, cmp_key);
    const tmap *ref = t->same ? &t->before : &t->prev;
    for (uint32_t i = 0; i < n; i++) t->row[i] = ref->n ? find_row(ref, pid[i], start[i]) : NO_ROW;
    int rcol = col_of(ref, RANK_COL);
    uint32_t ne = 0;
    for (uint32_t i = 0; i < n; i++) {
        in_other[i] = 0;
        have[i] = 1;
        if (!eligible[i]) continue;
        rk[ne].score = cum ? increase(t, ref, rcol, i, rank[i], size4) : rank[i];
        rk[ne].raw = rank[i];
        rk[ne].pid = pid[i];
        rk[ne].i = i;
        ne++;
    }
    qsort(rk, ne, sizeof *rk, cmp_rank);
    for (uint32_t k = topn; k < ne; k++) in_other[rk[k].i] = 1;
    memcpy(t->in_other, in_other, (size_t)n);
    free(rk);
    keep(t, RANK_COL, rank, have);
    free(have);
    return t->failed ? -1 : 0;
}

uint64_t pm_top_other(pm_top *t, uint32_t cidx, const uint64_t *vals, const unsigned char *have, int cum, int size4,
                      int *complete)
{
    const tmap *m = &t->cur;
    uint64_t sum = 0;
    *complete = 1;
    for (uint32_t i = 0; i < m->n; i++)
        if (t->in_other[i] && !have[i]) *complete = 0;
    if (!cum) {
        for (uint32_t i = 0; i < m->n; i++)
            if (t->in_other[i] && have[i]) sum += vals[i];
        return sum;
    }
    uint32_t a = 0;
    while (a < t->nacc && t->acc_cidx[a] != cidx) a++;
    if (a == t->nacc) {
        if (t->nacc == MAX_COLS) return 0;
        t->acc_cidx[a] = cidx;
        t->acc[a] = 0;
        t->nacc++;
    }
    if (!t->same) {
        const tmap *ref = &t->prev;
        int col = col_of(ref, cidx);
        uint64_t *kv = malloc(((size_t)m->n + 1) * sizeof *kv);
        unsigned char *kh = malloc((size_t)m->n + 1);
        if (!kv || !kh) {
            free(kv);
            free(kh);
            t->failed = 1;
            *complete = 0;
            return t->acc[a];
        }
        for (uint32_t i = 0; i < m->n; i++) {
            kv[i] = vals[i];
            kh[i] = have[i];
            if (have[i]) {
                if (t->in_other[i]) t->acc[a] += increase(t, ref, col, i, vals[i], size4);
            } else if (col >= 0 && t->row[i] != NO_ROW && ref->have[col][t->row[i]]) {
                kv[i] = ref->vals[col][t->row[i]]; /* the last value read */
                kh[i] = 1;
            }
        }
        keep(t, cidx, kv, kh);
        free(kv);
        free(kh);
    }
    return t->acc[a];
}

void pm_top_end(pm_top *t)
{
    if (t->same || t->failed) {
        tmap_free(&t->cur);
        return;
    }
    tmap_free(&t->before);
    t->before = t->prev;
    t->prev = t->cur;
    memset(&t->cur, 0, sizeof t->cur);
    t->seq = t->cur_seq;
    t->started = 1;
}
