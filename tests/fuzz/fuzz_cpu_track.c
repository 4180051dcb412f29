/* libFuzzer target for the per-CPU tracker of issue 33
 * (lib/platform/linux/cpu_track.c): a run of readings of up to 8 CPUs
 * among 32, as hostile as /proc may give them (CPUs leaving and coming
 * back, counts going backwards, unread values, dropped readings, counts
 * near 2^64, C-state allowances). Whatever comes, after every update:
 * - a CPU's published values never go back;
 * - with no allowance, a CPU's unmarked values moved exactly as its
 *   readings did since the previous update;
 * - the first `ncap` values of a CPU moved by at most its allowance;
 * - the sum over every CPU, when unmarked twice in a row, moved by exactly
 *   what the CPUs it already held moved (a CPU seen after the first
 *   update adds nothing when it appears), so it never jumps and never
 *   goes back.
 * Input: byte 0 chooses nv (1..4), ncap (0..nv) and whether unread
 * values, dropped readings and allowances are used; then per update a
 * byte with the CPU count, and per CPU an id step, a flags byte, an
 * allowance byte and per value an operation byte (a small rise, a fall,
 * 8 raw bytes, or a value near 2^64). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "linux/collect_os.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)              \
    do {                      \
        if (!(c)) abort();    \
    } while (0)

#define IDS 32
#define NMAX 8
#define NV 4

struct in {
    const uint8_t *p;
    size_t n;
};

static int byte(struct in *in, uint8_t *b)
{
    if (!in->n) return 0;
    *b = *in->p++;
    in->n--;
    return 1;
}

static struct {
    uint64_t in[IDS][NV];    /* its last reading */
    uint64_t have_in[IDS];   /* values read at least once */
    int in_prev[IDS];        /* in the previous update */
    uint64_t pub[IDS][NV];   /* its published values after the update it was last in */
    int have_pub[IDS];
    int held[IDS];           /* in the sums from before this update (seen in an earlier update) */
} S;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct in in = {data, size};
    uint8_t b;
    if (!byte(&in, &b)) return 0;
    unsigned nv = 1 + (b & 3u), ncap = (b >> 2) % (nv + 1);
    int use_unread = (b >> 5) & 1, use_drop = (b >> 6) & 1, use_cap = (b >> 7) & 1;
    memset(&S, 0, sizeof S);
    struct pl__cpu_track t;
    pl__cpu_track_init(&t, nv);
    uint64_t sum_prev[NV] = {0}, sum_m_prev = UINT64_MAX; /* nothing before the first update */
    for (int update = 0; update < 64 && in.n; update++) {
        uint8_t h;
        (void)byte(&in, &h);
        uint32_t n = h % (NMAX + 1), ids[NMAX];
        uint64_t v[NMAX * NV], unread[NMAX], cap[NMAX];
        unsigned char drop[NMAX];
        int64_t id = -1;
        uint32_t k = 0;
        for (; k < n; k++) {
            uint8_t step = 0, flags = 0, c = 0;
            (void)byte(&in, &step);
            id += 1 + step % 4;
            if (id >= IDS) break;
            ids[k] = (uint32_t)id;
            (void)byte(&in, &flags);
            (void)byte(&in, &c);
            unread[k] = use_unread ? flags & ((1u << nv) - 1) : 0;
            drop[k] = use_drop ? (flags >> 4) & 1 : 0;
            cap[k] = (uint64_t)c * (c > 250 ? UINT64_MAX / 256 : 7);
            for (unsigned j = 0; j < nv; j++) {
                uint8_t op = 0;
                (void)byte(&in, &op);
                uint64_t last = S.in[id][j], x;
                if (op < 200) x = last + op;
                else if (op < 230) x = last - (uint64_t)(op - 200);
                else if (op < 250) {
                    x = 0;
                    for (int q = 0; q < 8; q++) {
                        uint8_t r = 0;
                        (void)byte(&in, &r);
                        x = x << 8 | r;
                    }
                } else x = UINT64_MAX - (uint64_t)(op - 250);
                v[k * nv + j] = x;
            }
        }
        n = k;
        CHECK(pl__cpu_track_update(&t, n, ids, v, use_unread ? unread : NULL, use_drop ? drop : NULL,
                                   use_cap ? cap : NULL, use_cap ? ncap : 0) == 0);
        int now_in[IDS] = {0};
        for (uint32_t i = 0; i < n; i++) now_in[ids[i]] = 1;
        uint64_t moved[NV] = {0}; /* what the CPUs held in the sums moved */
        int moved_over = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t c = ids[i];
            uint64_t out[NV], m;
            CHECK(pl__cpu_track_get(&t, c, out, &m) == 0);
            uint64_t capped = 0;
            for (unsigned j = 0; j < nv; j++) {
                if (S.have_pub[c]) {
                    CHECK(out[j] >= S.pub[c][j]);
                    uint64_t d = out[j] - S.pub[c][j];
                    if (j < ncap) capped += d;
                    if (!use_cap && !(m & (1ull << j)) && S.in_prev[c] && (S.have_in[c] >> j & 1) &&
                        !(use_unread && (unread[i] >> j & 1)))
                        CHECK(d == v[i * nv + j] - S.in[c][j]);
                    if (S.held[c]) {
                        if (d > UINT64_MAX - moved[j]) moved_over = 1;
                        moved[j] += d;
                    }
                }
            }
            if (use_cap && ncap && S.have_pub[c]) CHECK(capped <= cap[i]);
            memcpy(S.pub[c], out, sizeof out);
            S.have_pub[c] = 1;
        }
        for (uint32_t c = 0; c < IDS; c++) {
            if (!now_in[c]) CHECK(pl__cpu_track_get(&t, c, (uint64_t[NV]){0}, &(uint64_t){0}) == -ENOENT);
        }
        for (uint32_t i = 0; i < n; i++)
            for (unsigned j = 0; j < nv; j++)
                if (!(use_unread && (unread[i] >> j & 1))) {
                    S.in[ids[i]][j] = v[i * nv + j];
                    S.have_in[ids[i]] |= 1ull << j;
                }
        uint64_t sum[NV], sm;
        pl__cpu_track_sum(&t, PL__CPU_TRACK_ALL, sum, &sm);
        for (unsigned j = 0; j < nv; j++) {
            if (sm & (1ull << j)) CHECK(sum[j] == 0);
            else if (!(sum_m_prev & (1ull << j)) && !moved_over) CHECK(sum[j] == sum_prev[j] + moved[j]);
        }
        memcpy(sum_prev, sum, sizeof sum);
        sum_m_prev = sm;
        for (uint32_t c = 0; c < IDS; c++) {
            S.in_prev[c] = now_in[c];
            if (now_in[c] || S.held[c]) S.held[c] = 1;
        }
    }
    pl__cpu_track_free(&t);
    return 0;
}
