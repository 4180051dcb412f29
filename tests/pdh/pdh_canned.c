/* The canned scenario (values chosen so every expected number can be worked
 * out by hand; all samples are 1 s apart on every clock):
 *
 * Processor (238), instances 0, 1, _Total:
 *   % Processor Time (6, 100NSEC_TIMER_INV): idle k*7.5e6 / k*5e6 / k*6.25e6
 *     -> 25 %, 50 %, 37.5 %
 *   % User Time (142, 100NSEC_TIMER): k*1e6 / k*2e6 / k*1.5e6 -> 10, 20, 15 %
 *   Interrupts/sec (148, COUNTER_COUNTER): 1000+250k / 2000+125k / 3000+375k
 * Memory (4), no instances:
 *   Available Bytes (24, LARGE_RAWCOUNT): 2000000000 - k*1048576
 *   Page Faults/sec (28, COUNTER_COUNTER): 5000 + 100*k*k -> 100, 300, 500 /s
 * Process (230): k=0 init(1) svchost(100) svchost(200) bash(300)
 *                k=1 init svchost svchost python(400)
 *                k>=2 init svchost svchost svchost(250) python
 *   ID Process (784, RAWCOUNT): the pid
 *   % Processor Time (6, 100NSEC_TIMER): pid*k*1000 -> pid/100 %
 * Thread (232), parents in Process: svchost/0 (1001), svchost/1 (1002),
 *   svchost#1's 0 (2001): ID Thread (804, RAWCOUNT)
 * System (2): System Up Time (674, ELAPSED_TIME): N 1e9, object PerfTime
 *   5e9 + k*1e7 at 1e7/s -> 400 + k s
 * LogicalDisk (236), instance C:: % Free Space (408, RAW_FRACTION over
 *   RAW_BASE) 25/200 -> 12.5 %; Avg. Disk sec/Transfer (206, AVERAGE_TIMER
 *   over AVERAGE_BASE) k*2e6 ticks over 4k ops -> 0.05 s
 * Only with `unavailable` (canned_block_opt): Network Interface (510),
 *   instances eth0, wlan0, with the generic "Unavailable Counters" marker
 *   (1964, position 2; docs/block-format.md):
 *   Current Bandwidth (520, LARGE_RAWCOUNT, position 0): eth0 1e9; wlan0
 *     marked in every sample (value 0)
 *   Bytes Total/sec (388, BULK_COUNT, position 1): eth0 k*1e6 -> 1e6/s;
 *     wlan0 k*5e5, marked (value 0) in sample 1 only -> unavailable at
 *     samples 1 and 2, 500000/s at sample 3
 *   masks: eth0 0, wlan0 0x1 (k = 0, 2, 3) and 0x3 (k = 1) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pdh_canned.h"
#include "perflib/block.h"
#include "perflib/winperf.h"

#define CK(x) do { if ((x) != 0) goto fail; } while (0)

static int add_ctr(pl_builder *b, int obj, uint32_t idx, uint32_t type, uint32_t base, int *h)
{
    pl_counter_desc d = {0};
    d.name_index = idx;
    d.help_index = idx + 1;
    d.type = type;
    d.base_type = base;
    d.base_name_index = idx;
    return pl_builder_add_counter(b, obj, &d, h);
}

static int add_obj(pl_builder *b, uint32_t idx, int inst, int64_t pt, int64_t pf, int *h)
{
    pl_object_desc d = {0};
    d.name_index = idx;
    d.help_index = idx + 1;
    d.default_counter = 0;
    d.has_instances = inst;
    d.perf_time = pt;
    d.perf_freq = pf;
    return pl_builder_add_object(b, &d, h);
}

int canned_block(int k, void **out, size_t *outlen)
{
    return canned_block_opt(k, 0, out, outlen);
}

int canned_block_opt(int k, int unavailable, void **out, size_t *outlen)
{
    pl_builder *b = pl_builder_new();
    void *buf = NULL;
    if (!b) return -1;
    int o, c0, c1, c2, in;
    /* Processor */
    CK(add_obj(b, 238, 1, 0, 0, &o));
    CK(add_ctr(b, o, 6, PERF_100NSEC_TIMER_INV, 0, &c0));
    CK(add_ctr(b, o, 142, PERF_100NSEC_TIMER, 0, &c1));
    CK(add_ctr(b, o, 148, PERF_COUNTER_COUNTER, 0, &c2));
    const char *pn[] = {"0", "1", "_Total"};
    const uint64_t idle[] = {7500000, 5000000, 6250000}, user[] = {1000000, 2000000, 1500000};
    const uint32_t ib[] = {1000, 2000, 3000}, ir[] = {250, 125, 375};
    for (int i = 0; i < 3; i++) {
        CK(pl_builder_add_instance(b, o, pn[i], 0, 0, PERF_NO_UNIQUE_ID, &in));
        CK(pl_builder_set_u64(b, o, in, c0, idle[i] * (uint64_t)k));
        CK(pl_builder_set_u64(b, o, in, c1, user[i] * (uint64_t)k));
        CK(pl_builder_set_u32(b, o, in, c2, ib[i] + ir[i] * (uint32_t)k));
    }
    /* Memory */
    CK(add_obj(b, 4, 0, 0, 0, &o));
    CK(add_ctr(b, o, 24, PERF_COUNTER_LARGE_RAWCOUNT, 0, &c0));
    CK(add_ctr(b, o, 28, PERF_COUNTER_COUNTER, 0, &c1));
    CK(pl_builder_set_u64(b, o, -1, c0, 2000000000ull - (uint64_t)k * 1048576ull));
    CK(pl_builder_set_u32(b, o, -1, c1, 5000u + 100u * (uint32_t)(k * k)));
    /* Process */
    int po;
    CK(add_obj(b, 230, 1, 0, 0, &po));
    CK(add_ctr(b, po, 784, PERF_COUNTER_RAWCOUNT, 0, &c0));
    CK(add_ctr(b, po, 6, PERF_100NSEC_TIMER, 0, &c1));
    struct { const char *n; uint32_t pid; } procs[5];
    int np = 0;
    procs[np].n = "init"; procs[np++].pid = 1;
    procs[np].n = "svchost"; procs[np++].pid = 100;
    procs[np].n = "svchost"; procs[np++].pid = 200;
    if (k == 0) { procs[np].n = "bash"; procs[np++].pid = 300; }
    if (k >= 2) { procs[np].n = "svchost"; procs[np++].pid = 250; }
    if (k >= 1) { procs[np].n = "python"; procs[np++].pid = 400; }
    for (int i = 0; i < np; i++) {
        CK(pl_builder_add_instance(b, po, procs[i].n, 0, 0, PERF_NO_UNIQUE_ID, &in));
        CK(pl_builder_set_u32(b, po, in, c0, procs[i].pid));
        CK(pl_builder_set_u64(b, po, in, c1, (uint64_t)procs[i].pid * (uint64_t)k * 1000u));
    }
    /* Thread */
    CK(add_obj(b, 232, 1, 0, 0, &o));
    CK(add_ctr(b, o, 804, PERF_COUNTER_RAWCOUNT, 0, &c0));
    const struct { const char *n; uint32_t parent; uint32_t tid; } th[] = {{"0", 1, 1001}, {"1", 1, 1002}, {"0", 2, 2001}};
    for (int i = 0; i < 3; i++) {
        CK(pl_builder_add_instance(b, o, th[i].n, 230, th[i].parent, PERF_NO_UNIQUE_ID, &in));
        CK(pl_builder_set_u32(b, o, in, c0, th[i].tid));
    }
    /* System */
    CK(add_obj(b, 2, 0, 5000000000LL + (int64_t)k * 10000000LL, 10000000, &o));
    CK(add_ctr(b, o, 674, PERF_ELAPSED_TIME, 0, &c0));
    CK(pl_builder_set_u64(b, o, -1, c0, 1000000000ull));
    /* LogicalDisk */
    CK(add_obj(b, 236, 1, 0, 0, &o));
    CK(add_ctr(b, o, 408, PERF_RAW_FRACTION, PERF_RAW_BASE, &c0));
    CK(add_ctr(b, o, 206, PERF_AVERAGE_TIMER, PERF_AVERAGE_BASE, &c1));
    CK(pl_builder_add_instance(b, o, "C:", 0, 0, PERF_NO_UNIQUE_ID, &in));
    CK(pl_builder_set_u32(b, o, in, c0, 25));
    CK(pl_builder_set_base(b, o, in, c0, 200));
    CK(pl_builder_set_u32(b, o, in, c1, 2000000u * (uint32_t)k));
    CK(pl_builder_set_base(b, o, in, c1, 4u * (uint32_t)k));
    if (unavailable) {
        /* Network Interface with the marker */
        int m;
        CK(add_obj(b, 510, 1, 0, 0, &o));
        CK(add_ctr(b, o, 520, PERF_COUNTER_LARGE_RAWCOUNT, 0, &c0));
        CK(add_ctr(b, o, 388, PERF_COUNTER_BULK_COUNT, 0, &c1));
        CK(add_ctr(b, o, 1964, PERF_COUNTER_LARGE_RAWCOUNT_HEX, 0, &m));
        CK(pl_builder_add_instance(b, o, "eth0", 0, 0, PERF_NO_UNIQUE_ID, &in));
        CK(pl_builder_set_u64(b, o, in, c0, 1000000000ull));
        CK(pl_builder_set_u64(b, o, in, c1, 1000000ull * (uint64_t)k));
        CK(pl_builder_add_instance(b, o, "wlan0", 0, 0, PERF_NO_UNIQUE_ID, &in));
        CK(pl_builder_set_u64(b, o, in, c1, k == 1 ? 0 : 500000ull * (uint64_t)k));
        CK(pl_builder_set_u64(b, o, in, m, k == 1 ? 0x3 : 0x1));
    }

    size_t olen = pl_builder_size(b), hlen = 0, used = 0;
    uint32_t nobj = 0;
    pl_block_header h;
    memset(&h, 0, sizeof h);
    h.system_time.wYear = 2024;
    h.system_time.wMonth = 1;
    h.system_time.wDay = 15;
    h.system_time.wDayOfWeek = 1;
    h.system_time.wHour = 10;
    h.system_time.wSecond = (WORD)k;
    h.perf_time = CANNED_PERFTIME(k);
    h.perf_freq = CANNED_FREQ;
    h.perf_time_100ns = CANNED_FT(k);
    h.default_object = 238;
    h.system_name = CANNED_SYSTEM;
    if (pl_block_write_header(&h, pl_builder_num_objects(b), olen, NULL, 0, &hlen) != PL_E_MORE_DATA) goto fail;
    buf = calloc(1, hlen + olen);
    if (!buf) goto fail;
    CK(pl_block_write_header(&h, pl_builder_num_objects(b), olen, buf, hlen + olen, &used));
    CK(pl_builder_emit(b, (char *)buf + hlen, olen, &used, &nobj));
    pl_builder_free(b);
    *out = buf;
    *outlen = hlen + olen;
    return 0;
fail:
    free(buf);
    pl_builder_free(b);
    return -1;
}

static int c_collect(void *ctx, const char *query, void **block, size_t *len, pl_error *err)
{
    canned *c = ctx;
    c->ncollects++;
    snprintf(c->last_query, sizeof c->last_query, "%s", query);
    if (strncmp(query, "Foreign ", 8) == 0) { /* canned data has no other machine */
        if (err) { err->status = PL_E_REMOTE; snprintf(err->msg, sizeof err->msg, "no such machine"); }
        return PL_E_REMOTE;
    }
    if (c->fail) {
        if (err) { err->status = PL_E_PROVIDER; snprintf(err->msg, sizeof err->msg, "canned failure"); }
        return PL_E_PROVIDER;
    }
    if (c->garbage) {
        *block = calloc(1, 200);
        *len = 200;
        return *block ? PL_OK : PL_E_NOMEM;
    }
    return canned_block_opt(c->cur, c->unavailable, block, len) == 0 ? PL_OK : PL_E_NOMEM;
}

static const pl_titles *c_titles(void *ctx, int english)
{
    canned *c = ctx;
    return english ? c->en : c->def;
}

int canned_open(canned *c, pl_pdh_source *src, int german)
{
    memset(c, 0, sizeof *c);
    char dir[] = "/tmp/pl_pdh_XXXXXX";
    if (!mkdtemp(dir)) return -1;
    char path[256];
    snprintf(path, sizeof path, "%s/perflib.db", dir);
    if (pl_store_open(path, 0, &c->st, NULL) != PL_OK) return -1;
    if (pl_titles_load(c->st, "009", &c->en, NULL) != PL_OK) return -1;
    if (german) {
        if (pl_store_add_language(c->st, "007", NULL) != PL_OK) return -1;
        if (pl_store_set_title(c->st, "007", PL_TITLE_NAME, 238, "Prozessor", NULL) != PL_OK) return -1;
        if (pl_store_set_title(c->st, "007", PL_TITLE_NAME, 4, "Speicher", NULL) != PL_OK) return -1;
        if (pl_store_set_title(c->st, "007", PL_TITLE_NAME, 24, "Verf\xC3\xBCgbare Bytes", NULL) != PL_OK) return -1;
        if (pl_titles_load(c->st, "007", &c->def, NULL) != PL_OK) return -1;
    } else {
        if (pl_titles_load(c->st, "009", &c->def, NULL) != PL_OK) return -1;
    }
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    src->collect = c_collect;
    src->titles = c_titles;
    src->close = NULL;
    src->ctx = c;
    return 0;
}

void canned_close(canned *c)
{
    if (c->def != c->en) pl_titles_free(c->def);
    pl_titles_free(c->en);
    pl_store_close(c->st);
    if (c->dir[0]) {
        const char *sfx[] = {"", "-wal", "-shm", "-journal"};
        char p[128];
        for (int i = 0; i < 4; i++) {
            snprintf(p, sizeof p, "%s/perflib.db%s", c->dir, sfx[i]);
            unlink(p);
        }
        rmdir(c->dir);
    }
    memset(c, 0, sizeof *c);
}

int canned_write_file(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(buf, 1, len, f);
    return fclose(f) == 0 && w == len ? 0 : -1;
}

size_t canned_read_file(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        buf[0] = '\0';
        return 0;
    }
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = '\0';
    return n;
}

int canned_dir(char *dir, int unavailable, char *store, size_t store_cap)
{
    if (!mkdtemp(dir)) return -1;
    for (int k = 0; k < CANNED_SAMPLES; k++) {
        void *b = NULL;
        size_t len = 0;
        char p[160];
        if (canned_block_opt(k, unavailable, &b, &len) != 0) return -1;
        snprintf(p, sizeof p, "%s/sample%d.blk", dir, k);
        int rc = canned_write_file(p, b, len);
        free(b);
        if (rc != 0) return -1;
    }
    snprintf(store, store_cap, "%s/perflib.db", dir);
    pl_store *st = NULL;
    if (pl_store_open(store, 0, &st, NULL) != PL_OK) return -1;
    pl_store_close(st);
    return 0;
}
