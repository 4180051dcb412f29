/* Counter logs (lib/log): round trips, the time index, truncation at every
 * length, damaged bytes, kill -9 of a real writer, values logs, appending,
 * and PDH reading a log (docs/counter-log.md). */
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pl_test.h"

#include "pdh_canned.h"
#include "perflib/log.h"
#include "perflib/pdh.h"
#include "win32/pdh.h"

typedef struct fx {
    char dir[64];
    char path[128];
    canned c;
    pl_pdh_source src;
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    if (!f) return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/pl_log_XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    snprintf(f->path, sizeof f->path, "%s/t.plog", f->dir);
    if (canned_open(&f->c, &f->src, 0) != 0) return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    char cmd[128];
    pl_pdh_source_close(&f->src);
    canned_close(&f->c);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    int r = system(cmd);
    free(f);
    return r == 0 ? 0 : -1;
}

/* Record n's bytes: mostly stable words (so deltas are small), a few that
 * change with n, and a length that changes now and then. */
static size_t g_base = 3000; /* record size; the truncation test makes it small */

static size_t gen_slow(uint64_t n, uint8_t *buf, size_t cap)
{
    size_t len = g_base + (size_t)((n / 50) % 7) * 8 + (size_t)(n % 3);
    if (len > cap) len = cap;
    uint64_t x = 88172645463325252ULL;
    for (size_t i = 0; i < len; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        buf[i] = (uint8_t)x;
    }
    for (size_t w = 0; w + 8 <= len; w += 64) {
        uint64_t v = n * 1000 + w;
        memcpy(buf + w, &v, 8);
    }
    return len;
}

/* gen_slow, remembered for the first records (the checks read them often) */
static size_t gen(uint64_t n, uint8_t *buf, size_t cap)
{
    static uint8_t memo[512][4096];
    static size_t memolen[512];
    if (n >= 512 || cap != 4096) return gen_slow(n, buf, cap);
    if (!memolen[n]) memolen[n] = gen_slow(n, memo[n], 4096);
    memcpy(buf, memo[n], memolen[n]);
    return memolen[n];
}

static const pl_log_column cols1[] = {{"\\\\BOX\\Memory\\Available Bytes", 0x10500, 0, "help"}};

static void make_log(fx *f, uint64_t nrec, int gaps)
{
    /* titles make the header large; the damage tests want small files */
    pl_log_header h = {PL_LOG_BLOCKS, "BOX", cols1, 1, nrec == 300 ? f->c.def : NULL, nrec == 300 ? f->c.en : NULL};
    pl_log_writer *w = NULL;
    pl_error err = {0};
    assert_int_equal(pl_log_create(f->path, &h, PL_LOG_OVERWRITE, &w, &err), PL_OK);
    uint8_t buf[4096];
    for (uint64_t n = 0; n < nrec; n++) {
        size_t len = gen(n, buf, sizeof buf);
        if (gaps && n % 10 == 9) assert_int_equal(pl_log_append(w, (int64_t)(1000 + n * 10), NULL, 0, &err), PL_OK);
        else assert_int_equal(pl_log_append(w, (int64_t)(1000 + n * 10), buf, len, &err), PL_OK);
    }
    assert_int_equal(pl_log_writer_close(w, &err), PL_OK);
}

/* Every record of the log must be record k (its time says which) with the
 * right bytes; returns how many were read. */
static size_t check_all(pl_log *log, int gaps)
{
    uint8_t want[4096];
    size_t ok = 0;
    for (size_t i = 0; i < pl_log_count(log); i++) {
        int64_t t = pl_log_time(log, i);
        assert_true(t >= 1000 && (t - 1000) % 10 == 0);
        uint64_t n = (uint64_t)(t - 1000) / 10;
        const void *d;
        size_t len;
        pl_error err = {0};
        int s = pl_log_read(log, i, &d, &len, &err);
        if (gaps && n % 10 == 9) {
            assert_int_equal(s, PL_E_NO_DATA);
            ok++;
            continue;
        }
        if (s == PL_E_BAD_BLOCK) continue;
        assert_int_equal(s, PL_OK);
        size_t wl = gen(n, want, sizeof want);
        assert_int_equal(len, wl);
        assert_memory_equal(d, want, wl);
        ok++;
    }
    return ok;
}

static void round_trip_and_seek(void **state)
{
    fx *f = *state;
    make_log(f, 300, 1);
    pl_log *log = NULL;
    pl_error err = {0};
    assert_int_equal(pl_log_open(f->path, &log, &err), PL_OK);
    assert_int_equal(pl_log_count(log), 300);
    assert_int_equal(check_all(log, 1), 300);
    /* random order reads go through the key records too */
    for (int i = 299; i >= 0; i -= 7) {
        const void *d;
        size_t len;
        int s = pl_log_read(log, (size_t)i, &d, &len, &err);
        assert_true(s == PL_OK || s == PL_E_NO_DATA);
    }
    const pl_log_header *h = pl_log_get_header(log);
    assert_int_equal(h->kind, PL_LOG_BLOCKS);
    assert_string_equal(h->machine, "BOX");
    assert_int_equal(h->ncolumns, 1);
    assert_string_equal(h->columns[0].path, cols1[0].path);
    assert_int_equal(h->columns[0].type, 0x10500);
    assert_string_equal(h->columns[0].help, "help");
    assert_string_equal(pl_titles_get(pl_log_titles(log, 0), PL_TITLE_NAME, 238), "Processor");
    size_t i;
    pl_log_seek(log, 1000 + 10 * 123, &i);
    assert_int_equal(i, 123);
    pl_log_seek(log, 1000 + 10 * 123 - 5, &i);
    assert_int_equal(i, 123);
    pl_log_seek(log, 0, &i);
    assert_int_equal(i, 0);
    pl_log_seek(log, 99999, &i);
    assert_int_equal(i, 300);
    pl_log_health hh;
    pl_log_get_health(log, &hh);
    assert_int_equal(hh.index_used, 1);
    assert_int_equal(hh.damaged_bytes, 0);
    assert_int_equal(hh.torn_tail_bytes, 0);
    pl_log_close(log);
}

static void lost_index_rebuilt(void **state)
{
    fx *f = *state;
    make_log(f, 100, 0);
    char idx[160];
    snprintf(idx, sizeof idx, "%s.idx", f->path);
    assert_int_equal(unlink(idx), 0);
    pl_log *log = NULL;
    pl_error err = {0};
    assert_int_equal(pl_log_open(f->path, &log, &err), PL_OK);
    pl_log_health hh;
    pl_log_get_health(log, &hh);
    assert_int_equal(hh.index_used, 0);
    assert_int_equal(check_all(log, 0), 100);
    pl_log_close(log);
    assert_int_equal(pl_log_reindex(f->path, &err), PL_OK);
    assert_int_equal(pl_log_open(f->path, &log, &err), PL_OK);
    pl_log_get_health(log, &hh);
    assert_int_equal(hh.index_used, 1);
    assert_int_equal(check_all(log, 0), 100);
    pl_log_close(log);
    /* an index of another log is not used */
    char other[160];
    snprintf(other, sizeof other, "%s/o.plog", f->dir);
    pl_log_header h = {PL_LOG_BLOCKS, "BOX", cols1, 1, NULL, NULL};
    pl_log_writer *w = NULL;
    assert_int_equal(pl_log_create(other, &h, 0, &w, &err), PL_OK);
    pl_log_writer_close(w, NULL);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "cp '%s.idx' '%s'", other, idx);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(pl_log_open(f->path, &log, &err), PL_OK);
    pl_log_get_health(log, &hh);
    assert_int_equal(hh.index_used, 0);
    assert_int_equal(pl_log_count(log), 100);
    pl_log_close(log);
}

/* Cut the file at every length: the reader keeps exactly the complete
 * records, with and without the (now too long) index. */
static void truncated_at_every_length(void **state)
{
    fx *f = *state;
    g_base = 200;
    make_log(f, 40, 1);
    struct stat st;
    assert_int_equal(stat(f->path, &st), 0);
    size_t size = (size_t)st.st_size;
    uint8_t *all = malloc(size);
    FILE *fp = fopen(f->path, "rb");
    assert_non_null(fp);
    assert_int_equal(fread(all, 1, size, fp), size);
    fclose(fp);
    /* record ends from a clean reader */
    pl_log *log = NULL;
    pl_error err = {0};
    assert_int_equal(pl_log_open(f->path, &log, &err), PL_OK);
    size_t n = pl_log_count(log);
    assert_int_equal(n, 40);
    pl_log_close(log);
    char cut[2][160], idx[160], cutidx[170];
    snprintf(cut[0], sizeof cut[0], "%s/cut.plog", f->dir);
    snprintf(cut[1], sizeof cut[1], "%s/cut2.plog", f->dir);
    snprintf(idx, sizeof idx, "%s.idx", f->path);
    snprintf(cutidx, sizeof cutidx, "%s.idx", cut[0]);
    uint32_t hstored;
    memcpy(&hstored, all + 24, 4);
    size_t hdr_end = 16 + 40 + hstored;
    static uint8_t ibuf[65536];
    fp = fopen(idx, "rb");
    assert_non_null(fp);
    size_t ilen = fread(ibuf, 1, sizeof ibuf, fp);
    fclose(fp);
    /* cut.plog keeps the whole (now too long) index, cut2.plog has none */
    fp = fopen(cutidx, "wb");
    fwrite(ibuf, 1, ilen, fp);
    fclose(fp);
    for (int c = 0; c < 2; c++) {
        fp = fopen(cut[c], "wb");
        fwrite(all, 1, size, fp);
        fclose(fp);
    }
    size_t prev = 0;
    /* every length down to the header's end, then a sample inside it */
    for (size_t len = size; len + 1 > 0; len = len > hdr_end - 64 ? len - 1 : (len > 97 ? len - 97 : len - 1)) {
        for (int c = 0; c < 2; c++) {
            assert_int_equal(truncate(cut[c], (off_t)len), 0);
            int s = pl_log_open(cut[c], &log, &err);
            if (s != PL_OK) {
                assert_true(s == PL_E_PARSE || s == PL_E_BAD_BLOCK);
                assert_true(len < hdr_end); /* only inside the preamble + header */
                continue;
            }
            size_t got = pl_log_count(log);
            assert_int_equal(check_all(log, 1), got);
            if (c == 0) {
                if (prev) assert_true(got <= prev);
                prev = got;
            }
            if (len == size) assert_int_equal(got, 40);
            pl_log_health hh;
            pl_log_get_health(log, &hh);
            assert_int_equal(hh.damaged_bytes, 0);
            pl_log_close(log);
        }
    }
    free(all);
}

/* Flip bytes anywhere: never a crash, never a wrong record; records
 * outside the damage still read. */
static void damaged_bytes(void **state)
{
    fx *f = *state;
    make_log(f, 200, 0);
    struct stat st;
    assert_int_equal(stat(f->path, &st), 0);
    size_t size = (size_t)st.st_size;
    uint8_t *all = malloc(size);
    FILE *fp = fopen(f->path, "rb");
    assert_int_equal(fread(all, 1, size, fp), size);
    fclose(fp);
    pl_log *log = NULL;
    pl_error err = {0};
    assert_int_equal(pl_log_open(f->path, &log, &err), PL_OK);
    pl_log_close(log);
    uint32_t hstored;
    memcpy(&hstored, all + 24, 4);
    size_t hdr_end = 16 + 40 + hstored;
    srand(7);
    char bad[160];
    snprintf(bad, sizeof bad, "%s/bad.plog", f->dir);
    for (int round = 0; round < 60; round++) {
        uint8_t *copy = malloc(size);
        memcpy(copy, all, size);
        int flips = 1 + rand() % 3;
        for (int k = 0; k < flips; k++) copy[hdr_end + (size_t)rand() % (size - hdr_end)] ^= (uint8_t)(1 + rand() % 255);
        fp = fopen(bad, "wb");
        fwrite(copy, 1, size, fp);
        fclose(fp);
        free(copy);
        assert_int_equal(pl_log_open(bad, &log, &err), PL_OK);
        size_t ok = check_all(log, 0);
        /* at most the damaged records and those of their key frames */
        assert_true(ok + 3 * 64 >= 200 - 3);
        pl_log_close(log);
    }
    free(all);
}

static void write_file(const char *path, const uint8_t *b, size_t n)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(b, 1, n, fp), n);
    assert_int_equal(fclose(fp), 0);
}

/* Issue 26 finding 8: one damaged byte in the header record (the names)
 * made the whole log unreadable although every record was intact. The
 * header is written twice: a byte damaged anywhere in either copy loses
 * nothing; both copies damaged is the old refusal. */
static void damaged_header_read_through_its_copy(void **state)
{
    fx *f = *state;
    make_log(f, 50, 1);
    struct stat st;
    assert_int_equal(stat(f->path, &st), 0);
    size_t size = (size_t)st.st_size;
    uint8_t *all = malloc(size), *copy = malloc(size);
    FILE *fp = fopen(f->path, "rb");
    assert_int_equal(fread(all, 1, size, fp), size);
    fclose(fp);
    uint32_t hstored;
    memcpy(&hstored, all + 24, 4);
    size_t one = 40 + hstored, h1 = 16, h2 = 16 + one;
    assert_memory_equal(all + h1, all + h2, one); /* the copy follows the header, byte for byte */
    char idx[160];
    snprintf(idx, sizeof idx, "%s.idx", f->path);
    for (int with_index = 0; with_index < 2; with_index++) {
        if (!with_index) unlink(idx);
        for (size_t p = h1; p < h2 + one; p++) {
            memcpy(copy, all, size);
            copy[p] ^= 0x5A;
            write_file(f->path, copy, size);
            pl_log *log = NULL;
            pl_error err = {0};
            int s = pl_log_open(f->path, &log, &err);
            if (s != PL_OK) fail_msg("byte %zu of the header damaged: %s", p, err.msg);
            assert_int_equal(pl_log_count(log), 50);
            assert_int_equal(check_all(log, 1), 50);
            assert_int_equal(pl_log_get_header(log)->ncolumns, 1);
            assert_string_equal(pl_log_get_header(log)->columns[0].path, cols1[0].path);
            pl_log_health hh;
            pl_log_get_health(log, &hh);
            if (p < h2) assert_int_equal(hh.damaged_bytes, one); /* the first copy, passed over */
            pl_log_close(log);
        }
    }
    /* both damaged: no header, no log */
    memcpy(copy, all, size);
    copy[h1 + 50] ^= 1;
    copy[h2 + 50] ^= 1;
    write_file(f->path, copy, size);
    pl_log *log = NULL;
    pl_error err = {0};
    assert_int_equal(pl_log_open(f->path, &log, &err), PL_E_BAD_BLOCK);
    assert_non_null(strstr(err.msg, "the header record at offset 16 is damaged"));
    free(all);
    free(copy);
}

/* Logs written before the header had a copy stay readable, whole. */
static void logs_with_one_header_still_read(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        size_t records, gaps;
    } seeds[] = {{"blocks-1header", 8, 1}, {"values-1header", 6, 0}};
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/tests/fuzz/corpus/log/%s", PL_SOURCE_DIR, seeds[i].name);
        pl_log *log = NULL;
        pl_error err = {0};
        assert_int_equal(pl_log_open(path, &log, &err), PL_OK);
        assert_int_equal(pl_log_count(log), seeds[i].records);
        size_t ok = 0, gaps = 0;
        for (size_t k = 0; k < pl_log_count(log); k++) {
            const void *d;
            size_t len;
            int s = pl_log_read(log, k, &d, &len, &err);
            if (s == PL_E_NO_DATA) gaps++;
            else if (s == PL_OK) ok++;
        }
        assert_int_equal(ok + gaps, seeds[i].records);
        assert_int_equal(gaps, seeds[i].gaps);
        pl_log_health hh;
        pl_log_get_health(log, &hh);
        assert_int_equal(hh.damaged_bytes, 0);
        pl_log_close(log);
    }
}

/* kill -9 a writer at random moments: every record it finished is there
 * and correct; at most the one being written is lost. */
static void kill9_writer(void **state)
{
    fx *f = *state;
    volatile uint64_t *done = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(done != MAP_FAILED);
    srand((unsigned)getpid());
    for (int round = 0; round < 25; round++) {
        *done = 0;
        unlink(f->path);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            pl_log_header h = {PL_LOG_BLOCKS, "BOX", cols1, 1, f->c.def, f->c.en};
            pl_log_writer *w = NULL;
            if (pl_log_create(f->path, &h, PL_LOG_OVERWRITE, &w, NULL) != PL_OK) _exit(3);
            uint8_t buf[4096];
            for (uint64_t n = 0; n < 1000000; n++) {
                size_t len = gen(n, buf, sizeof buf);
                if (pl_log_append(w, (int64_t)(1000 + n * 10), buf, len, NULL) != PL_OK) _exit(4);
                *done = n + 1;
            }
            _exit(0);
        }
        struct timespec ts = {0, 2000000 + (rand() % 20000) * 1000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        assert_true(WIFSIGNALED(status));
        uint64_t finished = *done;
        pl_log *log = NULL;
        pl_error err = {0};
        int s = pl_log_open(f->path, &log, &err);
        if (s != PL_OK) {
            /* killed before the header was complete */
            assert_int_equal(finished, 0);
            continue;
        }
        size_t n = pl_log_count(log);
        assert_true(n >= finished && n <= finished + 1);
        assert_int_equal(check_all(log, 0), n);
        pl_log_health hh;
        pl_log_get_health(log, &hh);
        assert_int_equal(hh.damaged_bytes, 0);
        pl_log_close(log);
    }
    munmap((void *)done, 4096);
}

static void values_log_and_append(void **state)
{
    fx *f = *state;
    pl_log_column c[3] = {{"\\\\A\\X\\a", 0, 0, NULL}, {"\\\\A\\X\\b", 0, 0, NULL}, {"\\\\A\\X\\c", 0, 0, NULL}};
    pl_log_header h = {PL_LOG_VALUES, "A", c, 3, NULL, NULL};
    pl_log_writer *w = NULL;
    pl_error err = {0};
    assert_int_equal(pl_log_create(f->path, &h, 0, &w, &err), PL_OK);
    pl_log_writer *w2 = NULL;
    assert_int_equal(pl_log_create(f->path, &h, 0, &w2, &err), PL_E_EXISTS);
    assert_null(w2);
    for (int k = 0; k < 10; k++) {
        double v[3] = {k * 0.1, 1e300, -3.5};
        unsigned char p[3] = {1, (unsigned char)(k % 2), 1};
        assert_int_equal(pl_log_append_values(w, 100 + k, v, p, &err), PL_OK);
    }
    assert_int_equal(pl_log_append(w, 200, "x", 1, &err), PL_E_INVAL);
    pl_log_writer_close(w, NULL);
    /* append five more; a different column set is refused */
    pl_log_header h2 = h;
    h2.ncolumns = 2;
    assert_int_equal(pl_log_append_open(f->path, &h2, 0, &w, &err), PL_E_INVAL);
    assert_int_equal(pl_log_append_open(f->path, &h, 0, &w, &err), PL_OK);
    for (int k = 10; k < 15; k++) {
        double v[3] = {k * 0.1, 1e300, -3.5};
        unsigned char p[3] = {1, (unsigned char)(k % 2), 1};
        assert_int_equal(pl_log_append_values(w, 100 + k, v, p, &err), PL_OK);
    }
    pl_log_writer_close(w, NULL);
    pl_log *log = NULL;
    assert_int_equal(pl_log_open(f->path, &log, &err), PL_OK);
    pl_log_health hh;
    pl_log_get_health(log, &hh);
    assert_int_equal(hh.index_used, 1);
    assert_int_equal(pl_log_count(log), 15);
    for (int k = 0; k < 15; k++) {
        const double *v;
        const unsigned char *p;
        assert_int_equal(pl_log_read_values(log, (size_t)k, &v, &p, &err), PL_OK);
        assert_int_equal(pl_log_time(log, (size_t)k), 100 + k);
        assert_true(v[0] == k * 0.1);
        assert_int_equal(p[1], k % 2);
        if (p[1]) assert_true(v[1] == 1e300);
        assert_true(p[2] && v[2] == -3.5);
    }
    /* PDH reads the values as they are; a missing one is no value */
    pl_pdh_source s;
    pl_log_source *ls = NULL;
    assert_int_equal(pl_log_source_open(log, &s, &ls, &err), PL_OK);
    pl_pdh_query *q = NULL;
    pl_pdh_counter *ca = NULL, *cb = NULL;
    assert_int_equal(pl_pdh_open_query(&s, &q, &err), 0);
    assert_int_equal(pl_pdh_add_counter(q, "\\\\A\\X\\a", &ca, &err), 0);
    assert_int_equal(pl_pdh_add_counter(q, "\\\\A\\X\\b", &cb, &err), 0);
    assert_int_equal(pl_pdh_validate_path(&s, "\\\\A\\X\\nope", &err), PL_PDH_CSTATUS_NO_COUNTER);
    for (int k = 0; k < 15; k++) {
        assert_int_equal(pl_log_source_set(ls, (size_t)k, &err), PL_OK);
        assert_int_equal(pl_pdh_collect(q, &err), 0);
        pl_pdh_value v;
        uint32_t type = 0;
        assert_int_equal(pl_pdh_get_formatted(ca, PL_PDH_FMT_DOUBLE, &type, &v), 0);
        assert_int_equal(type, PERF_DOUBLE_RAW);
        assert_true(v.v.double_value == k * 0.1);
        uint32_t st = pl_pdh_get_formatted(cb, PL_PDH_FMT_DOUBLE, NULL, &v);
        if (k % 2) assert_true(st == 0 && v.v.double_value == 1e300);
        else assert_int_equal(st, PL_PDH_INVALID_DATA);
    }
    pl_pdh_close_query(q);
    pl_pdh_source_close(&s);
    pl_log_close(log);
}

/* PDH over a log of the canned samples gives what PDH over the samples
 * themselves gives. */
static void pdh_reads_a_log(void **state)
{
    fx *f = *state;
    pl_log_header h = {PL_LOG_BLOCKS, CANNED_SYSTEM, cols1, 1, f->c.def, f->c.en};
    pl_log_writer *w = NULL;
    pl_error err = {0};
    assert_int_equal(pl_log_create(f->path, &h, 0, &w, &err), PL_OK);
    for (int k = 0; k < CANNED_SAMPLES; k++) {
        void *b;
        size_t len;
        assert_int_equal(canned_block(k, &b, &len), 0);
        assert_int_equal(pl_log_append(w, CANNED_FT(k), b, len, &err), PL_OK);
        free(b);
    }
    pl_log_writer_close(w, NULL);
    pl_log *log = NULL;
    assert_int_equal(pl_log_open(f->path, &log, &err), PL_OK);
    pl_pdh_source ls;
    pl_log_source *cur = NULL;
    assert_int_equal(pl_log_source_open(log, &ls, &cur, &err), PL_OK);
    pl_pdh_query *ql = NULL, *qc = NULL;
    assert_int_equal(pl_pdh_open_query(&ls, &ql, &err), 0);
    assert_int_equal(pl_pdh_open_query(&f->src, &qc, &err), 0);
    const char *paths[] = {"\\Processor(_Total)\\% Processor Time", "\\Memory\\Page Faults/sec",
                           "\\\\TESTBOX\\LogicalDisk(C:)\\Avg. Disk sec/Transfer", "\\Process(*)\\% Processor Time"};
    pl_pdh_counter *cl[4], *cc[4];
    for (int i = 0; i < 4; i++) {
        assert_int_equal(pl_pdh_add_counter(ql, paths[i], &cl[i], &err), 0);
        assert_int_equal(pl_pdh_add_counter(qc, paths[i], &cc[i], &err), 0);
    }
    /* wildcards expand against the log */
    char **exp = NULL;
    size_t nexp = 0;
    assert_int_equal(pl_pdh_expand_path(&ls, "\\Processor(*)\\% User Time", &exp, &nexp, &err), 0);
    assert_int_equal(nexp, 3);
    pl_free(exp);
    assert_int_equal(pl_pdh_validate_path(&ls, "\\Memory\\Nope", &err), PL_PDH_CSTATUS_NO_COUNTER);
    for (int k = 0; k < CANNED_SAMPLES; k++) {
        assert_int_equal(pl_log_source_set(cur, (size_t)k, &err), PL_OK);
        f->c.cur = k;
        assert_int_equal(pl_pdh_collect(ql, &err), 0);
        assert_int_equal(pl_pdh_collect(qc, &err), 0);
        assert_true(pl_pdh_query_time(ql) == pl_pdh_query_time(qc));
        for (int i = 0; i < 3; i++) {
            pl_pdh_value a, b;
            uint32_t sa = pl_pdh_get_formatted(cl[i], PL_PDH_FMT_DOUBLE, NULL, &a);
            uint32_t sb = pl_pdh_get_formatted(cc[i], PL_PDH_FMT_DOUBLE, NULL, &b);
            assert_int_equal(sa, sb);
            if (!sa) assert_true(a.v.double_value == b.v.double_value);
        }
        pl_pdh_value_item *ia = NULL, *ib = NULL;
        size_t na = 0, nb = 0;
        pl_pdh_get_formatted_array(cl[3], PL_PDH_FMT_DOUBLE, &ia, &na);
        pl_pdh_get_formatted_array(cc[3], PL_PDH_FMT_DOUBLE, &ib, &nb);
        assert_int_equal(na, nb);
        for (size_t j = 0; j < na; j++) {
            assert_string_equal(ia[j].name, ib[j].name);
            assert_true(ia[j].value.v.double_value == ib[j].value.v.double_value);
        }
        pl_free(ia);
        pl_free(ib);
    }
    pl_pdh_close_query(ql);
    pl_pdh_close_query(qc);
    pl_pdh_source_close(&ls);
    pl_log_close(log);
}

/* The Windows names: PdhOpenQuery on a log file, PdhBindInputDataSource +
 * PdhOpenQueryH, collect until PDH_NO_MORE_DATA, the time range, wildcard
 * expansion against the log, and the log errors. */
static void windows_names_read_a_log(void **state)
{
    fx *f = *state;
    pl_log_header h = {PL_LOG_BLOCKS, CANNED_SYSTEM, cols1, 1, f->c.def, f->c.en};
    pl_log_writer *w = NULL;
    pl_error err = {0};
    assert_int_equal(pl_log_create(f->path, &h, 0, &w, &err), PL_OK);
    for (int k = 0; k < CANNED_SAMPLES; k++) {
        void *b;
        size_t len;
        assert_int_equal(canned_block(k, &b, &len), 0);
        assert_int_equal(pl_log_append(w, CANNED_FT(k), b, len, &err), PL_OK);
        free(b);
    }
    pl_log_writer_close(w, NULL);
    setenv("TZ", "UTC", 1);
    PDH_HLOG hl = NULL;
    assert_int_equal(PdhBindInputDataSourceA(&hl, f->path), PDH_CSTATUS_VALID_DATA);
    PDH_HQUERY q1 = NULL, q2 = NULL;
    assert_int_equal(PdhOpenQueryH(hl, 0, &q1), PDH_CSTATUS_VALID_DATA);
    assert_int_equal(PdhOpenQueryA(f->path, 0, &q2), PDH_CSTATUS_VALID_DATA);
    PDH_HCOUNTER c1 = NULL, c2 = NULL;
    assert_int_equal(PdhAddCounterA(q1, "\\Memory\\Page Faults/sec", 0, &c1), PDH_CSTATUS_VALID_DATA);
    assert_int_equal(PdhAddCounterA(q2, "\\Processor(_Total)\\% Processor Time", 0, &c2), PDH_CSTATUS_VALID_DATA);
    /* each query has its own position */
    assert_int_equal(PdhCollectQueryData(q2), PDH_CSTATUS_VALID_DATA);
    double faults[] = {100, 300, 500};
    for (int k = 0; k < CANNED_SAMPLES; k++) {
        assert_int_equal(PdhCollectQueryData(q1), PDH_CSTATUS_VALID_DATA);
        PDH_FMT_COUNTERVALUE v;
        PDH_STATUS st = PdhGetFormattedCounterValue(c1, PDH_FMT_DOUBLE, NULL, &v);
        if (k == 0) {
            assert_int_equal(st, PDH_INVALID_DATA);
        } else {
            assert_int_equal(st, PDH_CSTATUS_VALID_DATA);
            assert_true(fabs(v.doubleValue - faults[k - 1]) < 1e-9);
        }
    }
    assert_int_equal(PdhCollectQueryData(q1), PDH_NO_MORE_DATA);
    assert_int_equal(PdhCollectQueryData(q2), PDH_CSTATUS_VALID_DATA);
    PDH_FMT_COUNTERVALUE v;
    assert_int_equal(PdhGetFormattedCounterValue(c2, PDH_FMT_DOUBLE, NULL, &v), PDH_CSTATUS_VALID_DATA);
    assert_true(fabs(v.doubleValue - 37.5) < 1e-9);
    assert_int_equal(PdhCloseQuery(q1), PDH_CSTATUS_VALID_DATA);
    assert_int_equal(PdhCloseQuery(q2), PDH_CSTATUS_VALID_DATA);
    assert_int_equal(PdhCloseLog(hl, 0), PDH_CSTATUS_VALID_DATA);
    assert_int_equal(PdhCloseLog(hl, 0), PDH_INVALID_HANDLE);

    PDH_TIME_INFO ti;
    DWORD n = 0, size = sizeof ti;
    assert_int_equal(PdhGetDataSourceTimeRangeA(f->path, &n, &ti, &size), PDH_CSTATUS_VALID_DATA);
    assert_int_equal(n, 1);
    assert_int_equal(ti.SampleCount, CANNED_SAMPLES);
    assert_true(ti.StartTime == CANNED_FT(0)); /* TZ=UTC: local is UTC */
    assert_true(ti.EndTime == CANNED_FT(CANNED_SAMPLES - 1));
    size = 4;
    assert_int_equal(PdhGetDataSourceTimeRangeA(f->path, &n, &ti, &size), PDH_MORE_DATA);
    assert_int_equal(size, sizeof ti);

    char list[1024];
    DWORD cch = sizeof list;
    assert_int_equal(PdhExpandWildCardPathA(f->path, "\\Processor(*)\\% User Time", list, &cch, 0),
                     PDH_CSTATUS_VALID_DATA);
    assert_string_equal(list, "\\Processor(0)\\% User Time");

    /* the W form, PdhValidatePathEx and PdhEnumObjects on the log */
    WCHAR wpath[256];
    size_t k = 0;
    for (; f->path[k] && k < 255; k++) wpath[k] = (WCHAR)(unsigned char)f->path[k];
    wpath[k] = 0;
    PDH_HLOG hw = NULL;
    assert_int_equal(PdhBindInputDataSourceW(&hw, wpath), PDH_CSTATUS_VALID_DATA);
    assert_int_equal(PdhValidatePathExA(hw, "\\Memory\\Available Bytes"), PDH_CSTATUS_VALID_DATA);
    assert_int_equal(PdhValidatePathExA(hw, "\\Memory\\Nope"), PDH_CSTATUS_NO_COUNTER);
    assert_int_equal(PdhCloseLog(hw, 0), PDH_CSTATUS_VALID_DATA);
    char objs[4096];
    DWORD occh = sizeof objs;
    assert_int_equal(PdhEnumObjectsA(f->path, NULL, objs, &occh, PERF_DETAIL_WIZARD, 0), PDH_CSTATUS_VALID_DATA);
    int found = 0;
    for (const char *o = objs; *o; o += strlen(o) + 1) found |= strcmp(o, "Memory") == 0;
    assert_true(found);

    char missing[160];
    snprintf(missing, sizeof missing, "%s/none", f->dir);
    PDH_HQUERY q = NULL;
    assert_int_equal(PdhOpenQueryA(missing, 0, &q), PDH_FILE_NOT_FOUND);
    assert_int_equal(PdhBindInputDataSourceA(&hl, missing), PDH_FILE_NOT_FOUND);
    FILE *fp = fopen(missing, "wb");
    fputs("not a log at all", fp);
    fclose(fp);
    assert_int_equal(PdhOpenQueryA(missing, 0, &q), PDH_UNKNOWN_LOG_FORMAT);
    assert_int_equal(PdhBindInputDataSourceA(&hl, ""), PDH_CSTATUS_VALID_DATA);
    assert_null(hl);
}

static void not_a_log(void **state)
{
    fx *f = *state;
    FILE *fp = fopen(f->path, "wb");
    fputs("Date,Value\r\n1,2\r\n", fp);
    fclose(fp);
    pl_log *log = NULL;
    pl_error err = {0};
    assert_int_equal(pl_log_open(f->path, &log, &err), PL_E_PARSE);
    assert_non_null(strstr(err.msg, "not a perflib counter log"));
    /* a CSV header without counter columns is a malformed text log */
    fp = fopen(f->path, "wb");
    fputs("\"(PDH-CSV 4.0)\"\r\n", fp);
    fclose(fp);
    assert_int_equal(pl_log_open(f->path, &log, &err), PL_E_PARSE);
    assert_non_null(strstr(err.msg, "header line 1 is malformed"));
    char missing[160];
    snprintf(missing, sizeof missing, "%s/none", f->dir);
    assert_int_equal(pl_log_open(missing, &log, &err), PL_E_NOT_FOUND);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(round_trip_and_seek, setup, teardown),
        cmocka_unit_test_setup_teardown(lost_index_rebuilt, setup, teardown),
        cmocka_unit_test_setup_teardown(truncated_at_every_length, setup, teardown),
        cmocka_unit_test_setup_teardown(damaged_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(damaged_header_read_through_its_copy, setup, teardown),
        cmocka_unit_test_setup_teardown(logs_with_one_header_still_read, setup, teardown),
        cmocka_unit_test_setup_teardown(kill9_writer, setup, teardown),
        cmocka_unit_test_setup_teardown(values_log_and_append, setup, teardown),
        cmocka_unit_test_setup_teardown(pdh_reads_a_log, setup, teardown),
        cmocka_unit_test_setup_teardown(not_a_log, setup, teardown),
        cmocka_unit_test_setup_teardown(windows_names_read_a_log, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
