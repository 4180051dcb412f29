/* Canned Process+Thread snapshots for the pview tests. Every number can be
 * worked out by hand; samples are exactly 1 s apart on every clock.
 *
 * Header: system "CANNED", PerfTime100nSec = T0 + k*1e7 (T0 = 2026-01-02
 * 03:04:05 UTC); the tick clock on another scale and origin, PerfTime =
 * 5e8 + k*1e6 at PerfFreq 1e6 (still 1 s a sample), so a rate read against
 * the wrong time base of its type comes out wrong; the objects' own clock
 * (PERF_OBJECT_TIMER, Elapsed Time) is PerfTime100nSec at 1e7.
 * Process (230), in this order:
 *   Idle     pid 0   start BOOT
 *   init     pid 1   start BOOT+1s      cpu k*2.5e6 (25 %), user k*1e6 (10 %)
 *   sshd     pid 200 start BOOT+100s    Handle Count marked unavailable
 *   worker   pid 300 start BOOT+200s    3 threads, cpu k*1.5e7 (150 %)
 *   worker   pid 301 start BOOT+300s at k=0, BOOT+9000s at k>=1 (pid reused:
 *                                       no rate at k=1)
 *   gone     pid 250 only at k=0;   new pid 400 only at k>=1
 *   _Total
 *   faults (BULK) 100*k*pid, io (BULK) 4096*k*pid bytes; working set
 *   pid*1 MiB; private pid*512 KiB; virtual pid*4 MiB; handles 10+pid;
 *   priority base 8 (worker 13); nice 0 (worker -5).
 *   cpu% per process: Idle 15, init 25 (user 10), sshd 0, worker 300 150
 *   (user 100), worker 301 30, new 10.
 * Thread (232): init (tid 1) and worker 300 (tids 3000, 3001, 3002), each
 *   cpu 5e6 per second (50 %, user 40 %), context switches 10*tid per second,
 *   state Running for 3000, Wait (UserRequest) for the others. */
#include <stdlib.h>
#include <string.h>

#include "perflib/block.h"
#include "perflib/winperf.h"
#include "pv_canned.h"

#define CK(x) do { if ((x) != 0) goto fail; } while (0)
#define BOOT 133000000000000000LL
#define T0 134117966450000000LL  /* 2026-01-02 03:04:05 UTC as FILETIME */

static int ctr(pl_builder *b, int obj, uint32_t idx, uint32_t type, int *h)
{
    pl_counter_desc d = {0};
    d.name_index = idx;
    d.help_index = idx + 1;
    d.type = type;
    return pl_builder_add_counter(b, obj, &d, h);
}

enum { CPU, USR, PRV, FLT, IO, WS, PRIV, VIRT, THR, HND, PRI, ELA, PID, PPID, NICE, UNAV, NC };

int pv_canned(int k, void **out, size_t *outlen)
{
    pl_builder *b = pl_builder_new();
    void *buf = NULL;
    if (!b) return -1;
    int64_t now = T0 + (int64_t)k * 10000000LL;
    pl_object_desc od = {.name_index = 230, .help_index = 231, .has_instances = 1, .perf_time = now,
                         .perf_freq = 10000000};
    int po, to, c[NC], in;
    CK(pl_builder_add_object(b, &od, &po));
    static const struct { uint32_t idx, type; } defs[NC] = {
        {6, PERF_100NSEC_TIMER},       {142, PERF_100NSEC_TIMER},         {144, PERF_100NSEC_TIMER},
        {28, PERF_COUNTER_BULK_COUNT}, {1424, PERF_COUNTER_BULK_COUNT},   {180, PERF_COUNTER_LARGE_RAWCOUNT},
        {186, PERF_COUNTER_LARGE_RAWCOUNT}, {174, PERF_COUNTER_LARGE_RAWCOUNT}, {680, PERF_COUNTER_RAWCOUNT},
        {952, PERF_COUNTER_RAWCOUNT},  {682, PERF_COUNTER_RAWCOUNT},      {684, PERF_ELAPSED_TIME},
        {784, PERF_COUNTER_RAWCOUNT},  {1410, PERF_COUNTER_RAWCOUNT},     {1930, PERF_COUNTER_RAWCOUNT},
        {1964, PERF_COUNTER_LARGE_RAWCOUNT_HEX}};
    for (int i = 0; i < NC; i++) CK(ctr(b, po, defs[i].idx, defs[i].type, &c[i]));
    struct p { const char *n; uint32_t pid; int64_t start; uint64_t cpu100, usr100; int threads; int prio, nice; };
    struct p ps[8];
    int n = 0;
    ps[n++] = (struct p){"Idle", 0, BOOT, 1500000, 0, 2, 0, 0};
    ps[n++] = (struct p){"init", 1, BOOT + 10000000LL, 2500000, 1000000, 1, 8, 0};
    ps[n++] = (struct p){"sshd", 200, BOOT + 1000000000LL, 0, 0, 1, 8, 0};
    if (k == 0) ps[n++] = (struct p){"gone", 250, BOOT + 1500000000LL, 1000000, 0, 1, 8, 0};
    ps[n++] = (struct p){"worker", 300, BOOT + 2000000000LL, 15000000, 10000000, 3, 13, -5};
    ps[n++] = (struct p){"worker", 301, k == 0 ? BOOT + 3000000000LL : BOOT + 90000000000LL, 3000000, 0, 1, 13, -5};
    if (k >= 1) ps[n++] = (struct p){"new", 400, BOOT + 95000000000LL, 1000000, 0, 1, 8, 0};
    uint64_t tot[NC] = {0};
    for (int i = 0; i <= n; i++) {
        int total = i == n;
        struct p q = total ? (struct p){"_Total", 0, 0, 0, 0, 0, 0, 0} : ps[i];
        CK(pl_builder_add_instance(b, po, q.n, 0, 0, PERF_NO_UNIQUE_ID, &in));
        uint64_t v[NC] = {0};
        if (!total) {
            v[CPU] = q.cpu100 * (uint64_t)(k + 1) + (uint64_t)q.pid * 100000u;
            v[USR] = q.usr100 * (uint64_t)(k + 1);
            v[PRV] = v[CPU] - v[USR];
            v[FLT] = 100u * (uint64_t)k * q.pid;
            v[IO] = 4096u * (uint64_t)k * q.pid;
            v[WS] = (uint64_t)q.pid << 20;
            v[PRIV] = (uint64_t)q.pid << 19;
            v[VIRT] = (uint64_t)q.pid << 22;
            v[THR] = (uint64_t)q.threads;
            v[HND] = q.pid ? 10u + q.pid : 0;
            v[PRI] = (uint64_t)q.prio;
            v[ELA] = (uint64_t)q.start;
            v[PID] = q.pid;
            v[PPID] = q.pid > 1 ? 1 : 0;
            v[NICE] = (uint32_t)q.nice;
            v[UNAV] = q.pid == 200 ? (1ull << HND) : 0;
            for (int j = CPU; j <= THR; j++) tot[j] += v[j];
            tot[HND] += v[HND];
            tot[UNAV] |= v[UNAV];
        } else {
            memcpy(v, tot, sizeof v);
            v[PRI] = v[ELA] = v[PID] = v[PPID] = v[NICE] = 0;
        }
        for (int j = 0; j < NC; j++) {
            if (pl_type_size(defs[j].type) == 8) CK(pl_builder_set_u64(b, po, in, c[j], v[j]));
            else CK(pl_builder_set_u32(b, po, in, c[j], (uint32_t)v[j]));
        }
    }
    /* Thread: init (position 1) tid 1, worker 300 tids 3000..3002 */
    pl_object_desc td = {.name_index = 232, .help_index = 233, .has_instances = 1, .perf_time = now,
                         .perf_freq = 10000000};
    CK(pl_builder_add_object(b, &td, &to));
    enum { TCPU, TUSR, TPRV, TCSW, TELA, TCUR, TBASE, TSTATE, TWAIT, TPID, TTID, TN };
    static const struct { uint32_t idx, type; } tdefs[TN] = {
        {6, PERF_100NSEC_TIMER}, {142, PERF_100NSEC_TIMER}, {144, PERF_100NSEC_TIMER},
        {146, PERF_COUNTER_BULK_COUNT}, {684, PERF_ELAPSED_TIME}, {694, PERF_COUNTER_RAWCOUNT},
        {682, PERF_COUNTER_RAWCOUNT}, {46, PERF_COUNTER_RAWCOUNT}, {336, PERF_COUNTER_RAWCOUNT},
        {784, PERF_COUNTER_RAWCOUNT}, {804, PERF_COUNTER_RAWCOUNT}};
    int tc[TN];
    for (int i = 0; i < TN; i++) CK(ctr(b, to, tdefs[i].idx, tdefs[i].type, &tc[i]));
    int worker_pos = k == 0 ? 4 : 3;
    const struct { const char *n; uint32_t parent, pid, tid, state; } th[] = {
        {"0", 1, 1, 1, 5}, {"0", (uint32_t)worker_pos, 300, 3000, 2}, {"1", (uint32_t)worker_pos, 300, 3001, 5},
        {"2", (uint32_t)worker_pos, 300, 3002, 5}};
    for (int i = 0; i < 4; i++) {
        CK(pl_builder_add_instance(b, to, th[i].n, 230, th[i].parent, PERF_NO_UNIQUE_ID, &in));
        uint64_t v[TN] = {0};
        v[TCPU] = 5000000ull * (uint64_t)(k + 1);
        v[TUSR] = 4000000ull * (uint64_t)(k + 1);
        v[TPRV] = v[TCPU] - v[TUSR];
        v[TCSW] = 10ull * (uint64_t)k * th[i].tid;
        v[TELA] = (uint64_t)(BOOT + 2000000000LL);
        v[TCUR] = v[TBASE] = th[i].pid == 300 ? 13 : 8;
        v[TSTATE] = th[i].state;
        v[TWAIT] = 6;
        v[TPID] = th[i].pid;
        v[TTID] = th[i].tid;
        for (int j = 0; j < TN; j++) {
            if (pl_type_size(tdefs[j].type) == 8) CK(pl_builder_set_u64(b, to, in, tc[j], v[j]));
            else CK(pl_builder_set_u32(b, to, in, tc[j], (uint32_t)v[j]));
        }
    }
    size_t objlen = pl_builder_size(b), hlen = 0, used = 0;
    uint32_t nobj = 0;
    pl_block_header h = {0};
    h.perf_time = 500000000LL + (int64_t)k * 1000000LL;
    h.perf_freq = 1000000;
    h.perf_time_100ns = now;
    h.default_object = 238;
    h.system_name = "CANNED";
    h.system_time.wYear = 2026;
    h.system_time.wMonth = 1;
    h.system_time.wDay = 2;
    h.system_time.wHour = 3;
    h.system_time.wMinute = 4;
    h.system_time.wSecond = (uint16_t)(5 + k);
    if (pl_block_write_header(&h, 2, objlen, NULL, 0, &hlen) != PL_E_MORE_DATA) goto fail;
    buf = calloc(1, hlen + objlen);
    if (!buf) goto fail;
    CK(pl_block_write_header(&h, 2, objlen, buf, hlen, &used));
    CK(pl_builder_emit(b, (char *)buf + hlen, objlen, &used, &nobj));
    pl_builder_free(b);
    *out = buf;
    *outlen = hlen + objlen;
    return 0;
fail:
    free(buf);
    pl_builder_free(b);
    return -1;
}
