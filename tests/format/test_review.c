/* Adversarial review of the wire format (reader and builder): one case per
 * suspicion. Some of these found bugs (the instance-name amplification, the
 * quadratic definition walks); the others pin down behaviour that was checked
 * and found sound, so that it stays that way. */
#include <stdio.h>
#include <time.h>

#include "fmt_test.h"

static double secs_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t put_ascii16(uint8_t *b, size_t off, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++) put16(b, off + 2 * i, (uint16_t)(unsigned char)s[i]);
    put16(b, off + 2 * n, 0);
    return (n + 1) * 2;
}

/* ------------------------------------------------------------ reader */

/* A hostile block: one parent instance with a 32,000-character name and
 * 40,000 children that all name it. The input is 1.7 MB; the full names
 * would be 1.28 GB (and the old code built them twice over). The reader
 * must refuse with PL_E_RANGE instead of allocating without bound, and the
 * same shape with a short parent name must still work. */
static uint8_t *amplifier(size_t parent_units, int nchild, size_t *len, uint32_t *nobj)
{
    pl_builder *b = pl_builder_new();
    int p, c, ctr, i;
    char *pname = malloc(parent_units + 1);
    assert_non_null(pname);
    memset(pname, 'x', parent_units);
    pname[parent_units] = '\0';
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 10, .has_instances = 1}, &p));
    ASSERT_OK(pl_builder_add_instance(b, p, pname, 0, 0, -1, &i));
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 20, .has_instances = 1}, &c));
    ASSERT_OK(pl_builder_add_counter(b, c, &(pl_counter_desc){.name_index = 22, .type = PERF_COUNTER_RAWCOUNT},
                                     &ctr));
    for (int k = 0; k < nchild; k++) ASSERT_OK(pl_builder_add_instance(b, c, "t", 10, 0, -1, &i));
    free(pname);
    uint8_t *buf = emit_all(b, len, nobj);
    pl_builder_free(b);
    return buf;
}

static void names_amplification_is_bounded(void **state)
{
    (void)state;
    size_t len;
    uint32_t n;
    uint8_t *buf = amplifier(32000, 40000, &len, &n);
    assert_true(len < 2u << 20);
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, buf, len, PL_BLOCK_BARE, n, &err));
    pl_object ob;
    ASSERT_OK(pl_block_object(&blk, 1, &ob));
    char **names = (char **)&names; /* must stay untouched on failure */
    char **before = names;
    assert_int_equal(pl_object_instance_names(&ob, &names), PL_E_RANGE);
    assert_ptr_equal(names, before);
    /* The parent object itself is fine. */
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    ASSERT_OK(pl_object_instance_names(&ob, &names));
    assert_int_equal(strlen(names[0]), 32000);
    pl_free(names);
    free(buf);

    /* The same shape with a 200-character parent: 8 MB of names, allowed. */
    buf = amplifier(200, 40000, &len, &n);
    ASSERT_OK(pl_block_open(&blk, buf, len, PL_BLOCK_BARE, n, &err));
    ASSERT_OK(pl_block_object(&blk, 1, &ob));
    ASSERT_OK(pl_object_instance_names(&ob, &names));
    assert_int_equal(strlen(names[0]), 202);
    assert_memory_equal(names[0] + 200, "/t", 3);
    assert_string_equal(names[39999] + 200, "/t#39999");
    assert_null(names[40000]);
    pl_free(names);
    free(buf);
}

/* An object with `n` definitions where the first is 48 bytes long, so
 * definitions cannot be found by multiplication; the last definition is the
 * Unavailable Counters marker. Returns a bare object. */
static uint8_t *long_defs(uint32_t n, size_t *len)
{
    size_t deflen = 64 + 8 + (size_t)n * 40;
    size_t blk = 16; /* ByteLength, pad, the marker's 8-byte value at 8 */
    *len = deflen + blk;
    uint8_t *b = calloc(1, *len);
    assert_non_null(b);
    put32(b, 0, (uint32_t)*len);
    put32(b, 4, (uint32_t)deflen);
    put32(b, 8, 64);
    put32(b, 12, 2);
    put32(b, 32, n);
    put32(b, 36, (uint32_t)-1);
    put32(b, 40, (uint32_t)PERF_NO_INSTANCES);
    size_t p = 64;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t bl = i == 0 ? 48 : 40;
        put32(b, p, bl);
        put32(b, p + 4, 1000 + 2 * i);
        int last = i == n - 1;
        put32(b, p + 28, last ? PERF_COUNTER_LARGE_RAWCOUNT_HEX : PERF_COUNTER_RAWCOUNT);
        put32(b, p + 32, last ? 8 : 4);
        put32(b, p + 36, last ? 8 : 4);
        if (last) put32(b, p + 4, 1964);
        p += bl;
    }
    put32(b, deflen, 16);
    put64(b, deflen + 8, 1); /* definition 0 is unavailable */
    return b;
}

/* Looking a counter up, and pl_counter_available, walked the definitions
 * from the first for every position: O(n^2) on a block whose definitions
 * are not all 40 bytes. 100,000 of them (4 MB) took minutes; the walk is
 * linear now, and pl_counter_next() steps in O(1). */
static void counter_lookup_is_linear(void **state)
{
    (void)state;
    enum { N = 100000 };
    size_t len;
    uint8_t *b = long_defs(N, &len);
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, b, len, PL_BLOCK_BARE, 1, &err));
    pl_object ob;
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    pl_instance in;
    ASSERT_OK(pl_object_instance(&ob, -1, &in));
    double t0 = secs_now();
    pl_counter c;
    assert_int_equal(pl_object_find_counter(&ob, 7, &c), PL_E_NOT_FOUND);
    ASSERT_OK(pl_object_find_counter(&ob, 1000 + 2 * (N - 2), &c));
    assert_int_equal(c.position, N - 2);
    assert_int_equal(pl_counter_available(&c, &in), 1);
    ASSERT_OK(pl_object_counter(&ob, 0, &c));
    assert_int_equal(pl_counter_available(&c, &in), 0);
    /* Stepping through every definition. */
    uint32_t k = 0;
    int rc = pl_object_counter(&ob, 0, &c);
    for (; rc == PL_OK; rc = pl_counter_next(&c, &c)) {
        assert_int_equal(c.position, k);
        assert_int_equal(c.def.CounterNameTitleIndex, k == N - 1 ? 1964 : 1000 + 2 * k);
        k++;
    }
    assert_int_equal(rc, PL_E_NOT_FOUND);
    assert_int_equal(k, N);
    double dt = secs_now() - t0;
    if (dt > 3.0) fprintf(stderr, "lookups took %.1f s\n", dt);
    assert_true(dt < 3.0);
    free(b);
}

/* pl_counter_next agrees with pl_object_counter on the reference shapes, sets
 * has_base the same way, and re-checks a view edited by the caller. */
static void counter_next_matches_positions(void **state)
{
    (void)state;
    pl_builder *bl = pl_builder_new();
    int o, c, i;
    ASSERT_OK(pl_builder_add_object(bl, &(pl_object_desc){.name_index = 230, .has_instances = 1}, &o));
    ASSERT_OK(pl_builder_add_counter(bl, o, &(pl_counter_desc){.name_index = 6, .type = PERF_COUNTER_RAWCOUNT}, &c));
    ASSERT_OK(pl_builder_add_counter(bl, o, &(pl_counter_desc){.name_index = 8, .type = PERF_COUNTER_MULTI_TIMER,
                                                               .base_type = PERF_COUNTER_MULTI_BASE}, &c));
    ASSERT_OK(pl_builder_add_counter(bl, o, &(pl_counter_desc){.name_index = 10, .type = PERF_RAW_FRACTION,
                                                               .base_type = PERF_RAW_BASE}, &c));
    ASSERT_OK(pl_builder_add_instance(bl, o, "a", 0, 0, -1, &i));
    size_t len;
    uint32_t n;
    uint8_t *buf = emit_all(bl, &len, &n);
    pl_builder_free(bl);
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, buf, len, PL_BLOCK_BARE, n, &err));
    pl_object ob;
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    assert_int_equal(ob.hdr.NumCounters, 5);
    pl_counter it, ref;
    ASSERT_OK(pl_object_counter(&ob, 0, &it));
    for (uint32_t k = 0; k < 5; k++) {
        ASSERT_OK(pl_object_counter(&ob, k, &ref));
        assert_int_equal(it.position, k);
        assert_memory_equal(&it.def, &ref.def, sizeof it.def);
        assert_int_equal(it.has_base, ref.has_base);
        assert_int_equal(it.off, ref.off);
        if (k < 4) ASSERT_OK(pl_counter_next(&it, &it));
    }
    assert_int_equal(pl_counter_next(&it, &it), PL_E_NOT_FOUND);
    ASSERT_OK(pl_object_counter(&ob, 1, &it));
    assert_int_equal(it.has_base, 1);
    assert_int_equal(it.base.CounterType, PERF_COUNTER_MULTI_BASE);
    /* An edited view cannot send it out of bounds. */
    it.off = len - 8;
    assert_int_equal(pl_counter_next(&it, &ref), PL_E_BAD_BLOCK);
    it.off = (size_t)-1;
    assert_int_equal(pl_counter_next(&it, &ref), PL_E_BAD_BLOCK);
    assert_int_equal(pl_counter_next(NULL, &ref), PL_E_INVAL);
    free(buf);
}

/* pl_object_next: 200,000 objects (14 MB) walked in O(1) steps (a loop over
 * pl_block_object positions would be 2e10 steps); a stale or edited view is
 * re-checked against the buffer. */
static void object_next_walks_and_rechecks(void **state)
{
    (void)state;
    enum { N = 200000 };
    size_t len = (size_t)N * 72;
    uint8_t *b = calloc(1, len);
    assert_non_null(b);
    for (size_t i = 0; i < N; i++) {
        size_t o = i * 72;
        put32(b, o, 72);
        put32(b, o + 4, 64);
        put32(b, o + 8, 64);
        put32(b, o + 12, 2 + 2 * (uint32_t)i);
        put32(b, o + 40, (uint32_t)PERF_NO_INSTANCES);
        put32(b, o + 64, 8);
    }
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, b, len, PL_BLOCK_BARE, N, &err));
    double t0 = secs_now();
    pl_object o;
    uint32_t k = 0;
    int rc = pl_block_object(&blk, 0, &o);
    for (; rc == PL_OK; rc = pl_object_next(&o, &o)) {
        if (o.position != k || o.off != (size_t)k * 72 || o.hdr.ObjectNameTitleIndex != 2 + 2 * k)
            fail_msg("object %u", k);
        k++;
    }
    assert_int_equal(rc, PL_E_NOT_FOUND);
    assert_int_equal(k, N);
    assert_true(secs_now() - t0 < 3.0);
    ASSERT_OK(pl_block_object(&blk, 5, &o));
    pl_object next;
    o.off = len - 8; /* edited: not an object any more */
    assert_int_equal(pl_object_next(&o, &next), PL_E_BAD_BLOCK);
    o.off = (size_t)-1;
    assert_int_equal(pl_object_next(&o, &next), PL_E_BAD_BLOCK);
    o.position = UINT32_MAX;
    assert_int_equal(pl_object_next(&o, &next), PL_E_NOT_FOUND);
    assert_int_equal(pl_object_next(NULL, &next), PL_E_INVAL);
    free(b);
}

/* HeaderLength not a multiple of 8, SystemNameLength 0, a system name with
 * no NUL, trailing bytes: accepted and read at the odd offset. */
static void odd_header_shapes(void **state)
{
    (void)state;
    uint8_t b[92 + 64 + 40 + 8];
    memset(b, 0, sizeof b);
    memcpy(b, "P\0E\0R\0F\0", 8);
    put32(b, 8, 1);
    put32(b, 12, 1);
    put32(b, 16, 1);
    put32(b, 20, sizeof b);
    put32(b, 24, 92);
    put32(b, 28, 1);
    put32(b, 80, 4); /* "AB" without a NUL */
    put32(b, 84, 88);
    put16(b, 88, 'A');
    put16(b, 90, 'B');
    size_t o = 92;
    put32(b, o, 64 + 40 + 8);
    put32(b, o + 4, 64 + 40);
    put32(b, o + 8, 64);
    put32(b, o + 12, 2);
    put32(b, o + 32, 1);
    put32(b, o + 40, (uint32_t)PERF_NO_INSTANCES);
    put32(b, o + 64, 40);
    put32(b, o + 64 + 28, PERF_COUNTER_RAWCOUNT);
    put32(b, o + 64 + 32, 4);
    put32(b, o + 64 + 36, 4);
    put32(b, o + 104, 8);
    put32(b, o + 108, 77);
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, b, sizeof b, 0, 0, &err));
    assert_string_equal(blk.system_name, "AB");
    pl_object ob;
    pl_counter c;
    pl_instance in;
    uint64_t v;
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    assert_int_equal(ob.off, 92);
    ASSERT_OK(pl_object_counter(&ob, 0, &c));
    ASSERT_OK(pl_object_instance(&ob, -1, &in));
    ASSERT_OK(pl_counter_value(&c, &in, &v));
    assert_int_equal(v, 77);
    /* SystemNameLength 0: no name, any offset. */
    put32(b, 80, 0);
    put32(b, 84, 0xFFFFFFFF);
    ASSERT_OK(pl_block_open(&blk, b, sizeof b, 0, 0, &err));
    assert_string_equal(blk.system_name, "");
    /* An odd length is refused, a name that runs into the objects too. */
    put32(b, 84, 88);
    put32(b, 80, 3);
    assert_int_equal(pl_block_open(&blk, b, sizeof b, 0, 0, &err), PL_E_BAD_BLOCK);
    put32(b, 80, 6);
    assert_int_equal(pl_block_open(&blk, b, sizeof b, 0, 0, &err), PL_E_BAD_BLOCK);
    assert_non_null(strstr(err.msg, "outside 88..HeaderLength 92"));
}

/* Text counters: no NUL in the room, ASCII with an odd size, a variable-
 * length counter that is not text, CodePage names, MULTI with its base. */
static void text_and_codepage_edges(void **state)
{
    (void)state;
    /* One object, 3 instances of nothing but a name; counters:
     *   0 UTF-16 text, 6 bytes at 4, "abc" with no NUL
     *   1 ASCII text, 5 bytes at 12, "hello" with no NUL
     *   2 PERF_SIZE_VARIABLE_LEN|NUMBER, 4 bytes at 20
     *   3 MULTI_TIMER at 24, 4 MULTI_BASE at 32 */
    enum { NDEF = 5, DEFLEN = 64 + NDEF * 40, BLK = 40 };
    uint8_t b[DEFLEN + 32 + BLK];
    memset(b, 0, sizeof b);
    put32(b, 0, sizeof b);
    put32(b, 4, DEFLEN);
    put32(b, 8, 64);
    put32(b, 12, 2);
    put32(b, 32, NDEF);
    put32(b, 40, 1);
    put32(b, 44, 1252);
    static const uint32_t types[NDEF] = {PERF_COUNTER_TEXT, PERF_COUNTER_TEXT | PERF_TEXT_ASCII,
                                         PERF_SIZE_VARIABLE_LEN | PERF_TYPE_NUMBER, PERF_COUNTER_MULTI_TIMER,
                                         PERF_COUNTER_MULTI_BASE};
    static const uint32_t sizes[NDEF] = {6, 5, 4, 8, 8}, offs[NDEF] = {4, 12, 20, 24, 32};
    for (int i = 0; i < NDEF; i++) {
        size_t p = 64 + (size_t)i * 40;
        put32(b, p, 40);
        put32(b, p + 4, 100 + 2 * (uint32_t)i);
        put32(b, p + 28, types[i]);
        put32(b, p + 32, sizes[i]);
        put32(b, p + 36, offs[i]);
    }
    size_t q = DEFLEN;
    put32(b, q, 32);
    put32(b, q + 16, 24);
    put32(b, q + 20, 5);
    memcpy(b + q + 24, "caf\xE9", 5); /* code page 1252: "café" */
    q += 32;
    put32(b, q, BLK);
    put16(b, q + 4, 'a');
    put16(b, q + 6, 'b');
    put16(b, q + 8, 'c');
    memcpy(b + q + 12, "hello", 5);
    put32(b, q + 20, 0xDEADBEEF);
    put64(b, q + 24, 5);
    put64(b, q + 32, 9);
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, b, sizeof b, PL_BLOCK_BARE, 1, &err));
    pl_object ob;
    pl_instance in;
    pl_counter c;
    char s[32];
    uint64_t v;
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    ASSERT_OK(pl_object_instance(&ob, 0, &in));
    ASSERT_OK(pl_instance_name(&in, s, sizeof s));
    assert_string_equal(s, "caf\xC3\xA9");
    ASSERT_OK(pl_object_counter(&ob, 0, &c));
    ASSERT_OK(pl_counter_text(&c, &in, s, sizeof s));
    assert_string_equal(s, "abc");
    assert_int_equal(pl_counter_value(&c, &in, &v), PL_E_INVAL);
    ASSERT_OK(pl_object_counter(&ob, 1, &c));
    ASSERT_OK(pl_counter_text(&c, &in, s, sizeof s));
    assert_string_equal(s, "hello");
    assert_int_equal(pl_counter_text(&c, &in, s, 3), PL_E_MORE_DATA);
    assert_string_equal(s, "he");
    ASSERT_OK(pl_object_counter(&ob, 2, &c));
    assert_int_equal(pl_counter_value(&c, &in, &v), PL_E_INVAL);
    assert_int_equal(pl_counter_text(&c, &in, s, sizeof s), PL_E_INVAL);
    ASSERT_OK(pl_object_counter(&ob, 3, &c));
    assert_int_equal(c.has_base, 1);
    ASSERT_OK(pl_counter_value(&c, &in, &v));
    assert_int_equal(v, 5);
    ASSERT_OK(pl_counter_base(&c, &in, &v));
    assert_int_equal(v, 9);
    char **names;
    ASSERT_OK(pl_object_instance_names(&ob, &names));
    assert_string_equal(names[0], "caf\xC3\xA9");
    pl_free(names);
    /* An ASCII text counter may have an odd size; a UTF-16 one may not. */
    put32(b, 64 + 32, 5);
    assert_int_equal(pl_block_open(&blk, b, sizeof b, PL_BLOCK_BARE, 1, &err), PL_E_BAD_BLOCK);
    put32(b, 64 + 32, 6);
    /* MULTI without its base right after it is refused. */
    put32(b, 64 + 4 * 40 + 28, PERF_COUNTER_LARGE_RAWCOUNT);
    assert_int_equal(pl_block_open(&blk, b, sizeof b, PL_BLOCK_BARE, 1, &err), PL_E_BAD_BLOCK);
    assert_non_null(strstr(err.msg, "counter 3 (PERF_COUNTER_MULTI_TIMER) at offset 184 is not followed by a base"));
}

/* NumInstances 0: the counter block may be absent; 1..3 bytes of padding
 * after the definitions are not a block. Objects whose lengths overlap the
 * next object, or a block whose TotalByteLength is short of the objects. */
static void zero_instances_and_short_totals(void **state)
{
    (void)state;
    uint8_t b[64 + 40 + 4 + 64 + 40 + 8];
    memset(b, 0, sizeof b);
    size_t o = 0;
    put32(b, o, 64 + 40 + 4); /* three... four bytes after the definitions: a block of 4 */
    put32(b, o + 4, 104);
    put32(b, o + 8, 64);
    put32(b, o + 32, 1);
    put32(b, o + 40, 0);
    put32(b, o + 64, 40);
    put32(b, o + 64 + 28, PERF_COUNTER_NODATA);
    put32(b, o + 104, 4);
    o = 108;
    put32(b, o, 64 + 40 + 8);
    put32(b, o + 4, 104);
    put32(b, o + 8, 64);
    put32(b, o + 32, 1);
    put32(b, o + 40, (uint32_t)PERF_NO_INSTANCES);
    put32(b, o + 64, 40);
    put32(b, o + 64 + 28, PERF_COUNTER_RAWCOUNT);
    put32(b, o + 64 + 32, 4);
    put32(b, o + 64 + 36, 4);
    put32(b, o + 104, 8);
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, b, sizeof b, PL_BLOCK_BARE, 2, &err));
    pl_object ob;
    pl_instance in;
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    ASSERT_OK(pl_object_instance(&ob, -1, &in));
    assert_int_equal(in.data_len, 4);
    assert_int_equal(pl_object_instance(&ob, 0, &in), PL_E_NOT_FOUND);
    /* Three bytes of padding instead: no block. */
    uint8_t c[64 + 40 + 3];
    memcpy(c, b, sizeof c);
    put32(c, 0, sizeof c);
    ASSERT_OK(pl_block_open(&blk, c, sizeof c, PL_BLOCK_BARE, 1, &err));
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    assert_int_equal(pl_object_instance(&ob, -1, &in), PL_E_NOT_FOUND);
    char **names;
    ASSERT_OK(pl_object_instance_names(&ob, &names));
    assert_null(names[0]);
    pl_free(names);
    /* The first object claiming the second one's bytes leaves the second
     * short: refused. */
    put32(b, 0, 64 + 40 + 4 + 8);
    assert_int_equal(pl_block_open(&blk, b, sizeof b, PL_BLOCK_BARE, 2, &err), PL_E_BAD_BLOCK);
    /* A counter block of ByteLength 0 after zero instances is refused (it
     * would not advance). */
    put32(b, 0, 108);
    put32(b, 104, 0);
    assert_int_equal(pl_block_open(&blk, b, sizeof b, PL_BLOCK_BARE, 2, &err), PL_E_BAD_BLOCK);
}

/* A length that wraps in 32 bits: TotalByteLength near 4 GiB on a small
 * buffer, NameOffset + NameLength that would wrap, a CounterOffset near
 * 4 GiB. */
static void wrapping_lengths(void **state)
{
    (void)state;
    uint8_t b[64 + 40 + 32 + 8];
    memset(b, 0, sizeof b);
    put32(b, 0, sizeof b);
    put32(b, 4, 104);
    put32(b, 8, 64);
    put32(b, 32, 1);
    put32(b, 40, 1);
    put32(b, 64, 40);
    put32(b, 64 + 28, PERF_COUNTER_RAWCOUNT);
    put32(b, 64 + 32, 4);
    put32(b, 64 + 36, 4);
    put32(b, 104, 32);
    put32(b, 104 + 16, 24);
    put32(b, 104 + 20, (uint32_t)put_ascii16(b, 104 + 24, "ab"));
    put32(b, 136, 8);
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, b, sizeof b, PL_BLOCK_BARE, 1, &err));
    put32(b, 104 + 16, 0xFFFFFFF0); /* NameOffset */
    assert_int_equal(pl_block_open(&blk, b, sizeof b, PL_BLOCK_BARE, 1, &err), PL_E_BAD_BLOCK);
    put32(b, 104 + 16, 24);
    put32(b, 104 + 20, 0xFFFFFFFE); /* NameLength */
    assert_int_equal(pl_block_open(&blk, b, sizeof b, PL_BLOCK_BARE, 1, &err), PL_E_BAD_BLOCK);
    put32(b, 104 + 20, 6);
    put32(b, 64 + 36, 0xFFFFFFFE); /* CounterOffset + 4 wraps in 32 bits */
    assert_int_equal(pl_block_open(&blk, b, sizeof b, PL_BLOCK_BARE, 1, &err), PL_E_BAD_BLOCK);
    put32(b, 64 + 36, 4);
    put32(b, 0, 0xFFFFFFF8);
    assert_int_equal(pl_block_open(&blk, b, sizeof b, PL_BLOCK_BARE, 1, &err), PL_E_BAD_BLOCK);
    put32(b, 0, sizeof b);
    put32(b, 104, 0xFFFFFFF8); /* instance ByteLength */
    assert_int_equal(pl_block_open(&blk, b, sizeof b, PL_BLOCK_BARE, 1, &err), PL_E_BAD_BLOCK);
}

/* ------------------------------------------------------------ builder */

/* Names with 4-byte characters at every alignment against the converter's
 * 32-byte chunks, invalid UTF-8, the longest name, text at the size limit. */
static void builder_names_and_text_limits(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int o, c, t, i;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 230, .has_instances = 1}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 6, .type = PERF_COUNTER_RAWCOUNT}, &c));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 8, .type = PERF_COUNTER_TEXT,
                                                              .size = 0x100000}, &t));
    assert_int_equal(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 8, .type = PERF_COUNTER_TEXT,
                                                                     .size = 0x100002}, &t),
                     PL_E_INVAL);
    char names[8][80];
    for (int k = 0; k < 8; k++) {
        size_t n = 0;
        for (int j = 0; j < k; j++) names[k][n++] = 'a';
        for (int j = 0; j < 16; j++) {
            memcpy(names[k] + n, "\xF0\x9F\x98\x80", 4); /* U+1F600 */
            n += 4;
        }
        names[k][n] = '\0';
        ASSERT_OK(pl_builder_add_instance(b, o, names[k], 0, 0, -1, &i));
    }
    assert_int_equal(pl_builder_add_instance(b, o, "bad\xC0\xAF", 0, 0, -1, &i), PL_E_ENCODING);
    assert_int_equal(pl_builder_add_instance(b, o, "\xED\xA0\x80", 0, 0, -1, &i), PL_E_ENCODING);
    char *longest = malloc(32768 + 1);
    memset(longest, 'n', 32768);
    longest[32768] = '\0';
    assert_int_equal(pl_builder_add_instance(b, o, longest, 0, 0, -1, &i), PL_E_RANGE);
    longest[32767] = '\0';
    ASSERT_OK(pl_builder_add_instance(b, o, longest, 0, 0, -1, &i));
    assert_int_equal(i, 8);
    /* Text filling the room exactly: (units + 1) * 2 == size. */
    char *text = malloc(0x80002);
    memset(text, 'z', 0x80001);
    text[0x7FFFF] = '\0';
    ASSERT_OK(pl_builder_set_text(b, o, 8, t, text));
    memcpy(text + 0x7FFFE, "\xC3\xA9", 3); /* the same units, one more byte */
    ASSERT_OK(pl_builder_set_text(b, o, 8, t, text));
    memset(text, 'y', 0x80001);
    text[0x80000] = '\0'; /* one unit too many: refused, the old text stays */
    assert_int_equal(pl_builder_set_text(b, o, 8, t, text), PL_E_RANGE);
    size_t len;
    uint32_t n;
    uint8_t *buf = emit_all(b, &len, &n);
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, buf, len, PL_BLOCK_BARE, n, &err));
    pl_object ob;
    pl_instance in;
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    int rc = pl_object_instance(&ob, 0, &in);
    char got[32800];
    for (int k = 0; k < 9; k++, rc = pl_instance_next(&in, &in)) {
        ASSERT_OK(rc);
        ASSERT_OK(pl_instance_name(&in, got, sizeof got));
        assert_string_equal(got, k < 8 ? names[k] : longest);
    }
    pl_counter ct;
    ASSERT_OK(pl_object_counter(&ob, 1, &ct));
    char *back = malloc(0x100000);
    ASSERT_OK(pl_counter_text(&ct, &in, back, 0x100000));
    assert_int_equal(strlen(back), 0x80000);
    assert_int_equal(back[0], 'z');
    assert_memory_equal(back + 0x7FFFE, "\xC3\xA9", 3);
    free(back);
    free(buf);
    free(text);
    free(longest);
    pl_builder_free(b);
}

/* Emit into an exact-size heap buffer (ASan sees any byte past it), and into
 * one byte less, which writes nothing; 100,000 instances; reset and reuse
 * with another shape leaves no old value behind. */
static void builder_exact_buffers_and_reuse(void **state)
{
    (void)state;
    enum { N = 100000 };
    pl_builder *b = pl_builder_new();
    int o, c, l, i;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 232, .has_instances = 1}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 6, .type = PERF_COUNTER_RAWCOUNT}, &c));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 8, .type = PERF_COUNTER_LARGE_RAWCOUNT},
                                     &l));
    char nm[16];
    for (int k = 0; k < N; k++) {
        snprintf(nm, sizeof nm, "%d", k);
        ASSERT_OK(pl_builder_add_instance(b, o, nm, 230, (uint32_t)k / 10, k, &i));
        ASSERT_OK(pl_builder_set_u32(b, o, i, c, (uint32_t)k));
        ASSERT_OK(pl_builder_set_u64(b, o, i, l, (uint64_t)k << 33));
    }
    size_t need = pl_builder_size(b), used = 0;
    uint32_t n = 0;
    uint8_t *exact = malloc(need);
    uint8_t *shorter = malloc(need - 1);
    memset(shorter, 0x77, need - 1);
    assert_int_equal(pl_builder_emit(b, shorter, need - 1, &used, &n), PL_E_MORE_DATA);
    assert_int_equal(used, need);
    for (size_t k = 0; k < need - 1; k++)
        if (shorter[k] != 0x77) fail_msg("byte %zu written on MORE_DATA", k);
    ASSERT_OK(pl_builder_emit(b, exact, need, &used, &n));
    assert_int_equal(used, need);
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, exact, need, PL_BLOCK_BARE, n, &err));
    pl_object ob;
    pl_instance in;
    pl_counter cc, cl;
    uint64_t v;
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    assert_int_equal(pl_object_num_instances(&ob), N);
    ASSERT_OK(pl_object_counter(&ob, 0, &cc));
    ASSERT_OK(pl_object_counter(&ob, 1, &cl));
    int rc = pl_object_instance(&ob, 0, &in);
    for (int k = 0; k < N; k++, rc = pl_instance_next(&in, &in)) {
        ASSERT_OK(rc);
        ASSERT_OK(pl_counter_value(&cl, &in, &v));
        if (v != (uint64_t)k << 33) fail_msg("instance %d: %llu", k, (unsigned long long)v);
        assert_int_equal(in.def.ParentObjectInstance, (uint32_t)k / 10);
    }
    free(exact);
    free(shorter);
    /* Reuse: the old object slot becomes one without instances and with a
     * text counter; every value starts at zero. */
    pl_builder_reset(b);
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 2}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 8, .type = PERF_COUNTER_LARGE_RAWCOUNT},
                                     &l));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 10, .type = PERF_COUNTER_TEXT,
                                                              .size = 64}, &c));
    size_t len;
    uint8_t *buf = emit_all(b, &len, &n);
    ASSERT_OK(pl_block_open(&blk, buf, len, PL_BLOCK_BARE, n, &err));
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    ASSERT_OK(pl_object_instance(&ob, -1, &in));
    for (size_t k = in.data_off + 4; k < in.data_off + in.data_len; k++) assert_int_equal(buf[k], 0);
    free(buf);
    pl_builder_free(b);
}

/* pl_block_write_header: one byte short writes nothing; an odd-length UTF-8
 * system name; the length limit. */
static void header_writer_edges(void **state)
{
    (void)state;
    pl_block_header h = {.default_object = 238, .perf_freq = 10000000, .system_name = "HOST\xC3\xA9"};
    size_t need = 0;
    assert_int_equal(pl_block_write_header(&h, 0, 0, NULL, 0, &need), PL_E_MORE_DATA);
    assert_int_equal(need, 104); /* 88 + (5 units + NUL) * 2 = 100 -> 104 */
    uint8_t *exact = malloc(need), *shorter = malloc(need - 1);
    memset(shorter, 0x33, need - 1);
    assert_int_equal(pl_block_write_header(&h, 0, 0, shorter, need - 1, &need), PL_E_MORE_DATA);
    for (size_t k = 0; k < need - 1; k++) assert_int_equal(shorter[k], 0x33);
    ASSERT_OK(pl_block_write_header(&h, 0, 0, exact, need, &need));
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, exact, need, 0, 0, &err));
    assert_string_equal(blk.system_name, "HOST\xC3\xA9");
    h.system_name = "BAD\xFF";
    assert_int_equal(pl_block_write_header(&h, 0, 0, exact, need, &need), PL_E_ENCODING);
    h.system_name = "OK";
    assert_int_equal(pl_block_write_header(&h, 0, 0xFFFFFFFFu, exact, need, &need), PL_E_RANGE);
    free(exact);
    free(shorter);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_amplification_is_bounded),
        cmocka_unit_test(counter_lookup_is_linear),
        cmocka_unit_test(counter_next_matches_positions),
        cmocka_unit_test(object_next_walks_and_rechecks),
        cmocka_unit_test(odd_header_shapes),
        cmocka_unit_test(text_and_codepage_edges),
        cmocka_unit_test(zero_instances_and_short_totals),
        cmocka_unit_test(wrapping_lengths),
        cmocka_unit_test(builder_names_and_text_limits),
        cmocka_unit_test(builder_exact_buffers_and_reuse),
        cmocka_unit_test(header_writer_edges),
    };
    return pl_test_run(tests, argc, argv);
}
