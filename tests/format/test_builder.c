/* Builder: exact layouts, round trips through the reader, size contract. */
#include <stdio.h>
#include <time.h>

#include "fmt_test.h"
#include "format_internal.h"

static pl_object_desc objd(uint32_t idx, int has_instances)
{
    pl_object_desc d = {.name_index = idx, .help_index = idx + 1, .detail_level = 0, .default_counter = 0,
                        .has_instances = has_instances, .perf_time = 0, .perf_freq = 0};
    return d;
}

static pl_counter_desc ctrd(uint32_t idx, uint32_t type)
{
    pl_counter_desc d = {.name_index = idx, .help_index = idx + 1, .type = type};
    return d;
}

/* Two DWORD counters and one LARGE, instances "a" and "bb" (bb has a parent).
 * Every offset below is worked out by hand:
 *   object header 0..63, definitions 64..183 (3 x 40): DefinitionLength 184
 *   counter block: ByteLength@0, c0@4, c1@8, c2@16 (8-aligned), 24 bytes
 *   instance "a": 24 + name 4 bytes = 28 -> ByteLength 32; block 24 -> 56
 *   instance "bb": 24 + name 6 bytes = 30 -> ByteLength 32; block 24 -> 56
 *   TotalByteLength = 184 + 56 + 56 = 296 */
static void golden_small_object(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int o, c0, c1, c2, i0, i1;
    pl_object_desc od = objd(230, 1);
    od.detail_level = PERF_DETAIL_ADVANCED;
    od.default_counter = 2;
    od.perf_time = 0x1122334455667788LL;
    od.perf_freq = 10000000;
    ASSERT_OK(pl_builder_add_object(b, &od, &o));
    pl_counter_desc cd = ctrd(6, PERF_COUNTER_RAWCOUNT);
    cd.default_scale = -2;
    ASSERT_OK(pl_builder_add_counter(b, o, &cd, &c0));
    cd = ctrd(8, PERF_COUNTER_COUNTER);
    cd.detail_level = PERF_DETAIL_EXPERT;
    ASSERT_OK(pl_builder_add_counter(b, o, &cd, &c1));
    cd = ctrd(10, PERF_COUNTER_LARGE_RAWCOUNT);
    ASSERT_OK(pl_builder_add_counter(b, o, &cd, &c2));
    assert_int_equal(c0, 0);
    assert_int_equal(c1, 1);
    assert_int_equal(c2, 2);
    ASSERT_OK(pl_builder_add_instance(b, o, "a", 0, 0, PERF_NO_UNIQUE_ID, &i0));
    ASSERT_OK(pl_builder_add_instance(b, o, "bb", 2, 3, 77, &i1));
    assert_int_equal(i1, 1);
    ASSERT_OK(pl_builder_set_u32(b, o, i0, c0, 0xA0A0A0A0u));
    ASSERT_OK(pl_builder_set_u32(b, o, i0, c1, 5));
    ASSERT_OK(pl_builder_set_u64(b, o, i0, c2, 0x0102030405060708ull));
    ASSERT_OK(pl_builder_set_u64(b, o, i1, c0, 0xFFFFFFFF00000011ull)); /* low 32 bits */
    ASSERT_OK(pl_builder_set_u32(b, o, i1, c2, 9));
    assert_int_equal(pl_builder_size(b), 296);
    assert_int_equal(pl_builder_num_objects(b), 1);

    uint8_t exp[296];
    memset(exp, 0, sizeof exp);
    put32(exp, 0, 296);      /* TotalByteLength */
    put32(exp, 4, 184);      /* DefinitionLength */
    put32(exp, 8, 64);       /* HeaderLength */
    put32(exp, 12, 230);     /* ObjectNameTitleIndex */
    put32(exp, 20, 231);     /* ObjectHelpTitleIndex */
    put32(exp, 28, 200);     /* DetailLevel */
    put32(exp, 32, 3);       /* NumCounters */
    put32(exp, 36, 2);       /* DefaultCounter */
    put32(exp, 40, 2);       /* NumInstances */
    put32(exp, 44, 0);       /* CodePage */
    put64(exp, 48, 0x1122334455667788ull);
    put64(exp, 56, 10000000);
    /* definition 0 at 64 */
    put32(exp, 64, 40);
    put32(exp, 68, 6);
    put32(exp, 76, 7);
    put32(exp, 84, (uint32_t)-2);
    put32(exp, 88, 100);
    put32(exp, 92, PERF_COUNTER_RAWCOUNT);
    put32(exp, 96, 4);
    put32(exp, 100, 4);
    /* definition 1 at 104 */
    put32(exp, 104, 40);
    put32(exp, 108, 8);
    put32(exp, 116, 9);
    put32(exp, 128, 300);
    put32(exp, 132, PERF_COUNTER_COUNTER);
    put32(exp, 136, 4);
    put32(exp, 140, 8);
    /* definition 2 at 144 */
    put32(exp, 144, 40);
    put32(exp, 148, 10);
    put32(exp, 156, 11);
    put32(exp, 168, 100);
    put32(exp, 172, PERF_COUNTER_LARGE_RAWCOUNT);
    put32(exp, 176, 8);
    put32(exp, 180, 16);
    /* instance "a" at 184 */
    put32(exp, 184, 32);
    put32(exp, 196, (uint32_t)-1);
    put32(exp, 200, 24);
    put32(exp, 204, 4);
    put16(exp, 208, 'a');
    /* its counter block at 216 */
    put32(exp, 216, 24);
    put32(exp, 220, 0xA0A0A0A0u);
    put32(exp, 224, 5);
    put64(exp, 232, 0x0102030405060708ull);
    /* instance "bb" at 240 */
    put32(exp, 240, 32);
    put32(exp, 244, 2);
    put32(exp, 248, 3);
    put32(exp, 252, 77);
    put32(exp, 256, 24);
    put32(exp, 260, 6);
    put16(exp, 264, 'b');
    put16(exp, 266, 'b');
    /* its counter block at 272 */
    put32(exp, 272, 24);
    put32(exp, 276, 0x11);
    put64(exp, 288, 9);

    size_t len;
    uint32_t n;
    uint8_t *buf = emit_all(b, &len, &n);
    assert_int_equal(len, 296);
    assert_int_equal(n, 1);
    for (size_t i = 0; i < sizeof exp; i++) {
        if (buf[i] != exp[i]) fprintf(stderr, "byte %zu: got 0x%02x want 0x%02x\n", i, buf[i], exp[i]);
        assert_int_equal(buf[i], exp[i]);
    }

    /* And the reader agrees. */
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, buf, len, PL_BLOCK_BARE, 1, &err));
    pl_object ob;
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    assert_int_equal(pl_object_num_instances(&ob), 2);
    pl_instance in;
    ASSERT_OK(pl_object_instance(&ob, 1, &in));
    assert_int_equal(in.off, 240);
    assert_int_equal(in.data_off, 272);
    char name[8];
    ASSERT_OK(pl_instance_name(&in, name, sizeof name));
    assert_string_equal(name, "bb");
    free(buf);
    pl_builder_free(b);
}

/* Every size class round-trips, values and types intact. */
static void roundtrip_all_types(void **state)
{
    (void)state;
    static const uint32_t types[] = {
        PERF_COUNTER_COUNTER, PERF_COUNTER_TIMER, PERF_COUNTER_QUEUELEN_TYPE, PERF_COUNTER_LARGE_QUEUELEN_TYPE,
        PERF_COUNTER_100NS_QUEUELEN_TYPE, PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, PERF_COUNTER_BULK_COUNT,
        PERF_COUNTER_RAWCOUNT, PERF_COUNTER_LARGE_RAWCOUNT, PERF_COUNTER_RAWCOUNT_HEX,
        PERF_COUNTER_LARGE_RAWCOUNT_HEX, PERF_SAMPLE_COUNTER, PERF_COUNTER_NODATA, PERF_COUNTER_TIMER_INV,
        PERF_OBJ_TIME_TIMER, PERF_100NSEC_TIMER, PERF_100NSEC_TIMER_INV, PERF_ELAPSED_TIME,
        PERF_COUNTER_DELTA, PERF_COUNTER_LARGE_DELTA, PERF_COUNTER_HISTOGRAM_TYPE,
    };
    enum { NT = sizeof types / sizeof types[0] };
    pl_builder *b = pl_builder_new();
    int o, c[NT], inst[3];
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 500, .has_instances = 1,
                                                          .default_counter = -1}, &o));
    for (int i = 0; i < NT; i++) ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){
                                                                         .name_index = 600 + 2 * (uint32_t)i,
                                                                         .type = types[i]}, &c[i]));
    for (int k = 0; k < 3; k++) {
        char nm[8];
        snprintf(nm, sizeof nm, "i%d", k);
        ASSERT_OK(pl_builder_add_instance(b, o, nm, 0, 0, k, &inst[k]));
        for (int i = 0; i < NT; i++) {
            uint64_t v = 0xF00000000ull * (uint64_t)(i + 1) + (uint64_t)k * 1000 + (uint64_t)i;
            int rc = pl_builder_set_u64(b, o, inst[k], c[i], v);
            assert_int_equal(rc, pl_type_size(types[i]) ? PL_OK : PL_E_INVAL);
        }
    }
    size_t len;
    uint32_t n;
    uint8_t *buf = emit_all(b, &len, &n);
    assert_int_equal(len % 8, 0);
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, buf, len, PL_BLOCK_BARE, n, &err));
    pl_object ob;
    ASSERT_OK(pl_block_find_object(&blk, 500, &ob));
    assert_int_equal(ob.hdr.NumCounters, NT);
    assert_int_equal(ob.hdr.DefaultCounter, -1);
    pl_instance in;
    for (int k = 0; k < 3; k++) {
        ASSERT_OK(k == 0 ? pl_object_instance(&ob, 0, &in) : pl_instance_next(&in, &in));
        assert_int_equal(in.def.UniqueID, k);
        assert_int_equal(in.data_len % 8, 0);
        assert_int_equal(in.data_off % 8, 0);
        for (int i = 0; i < NT; i++) {
            pl_counter ct;
            ASSERT_OK(pl_object_counter(&ob, (uint32_t)i, &ct));
            assert_int_equal(ct.def.CounterType, types[i]);
            assert_int_equal(ct.def.CounterSize, pl_type_size(types[i]));
            if (ct.def.CounterSize == 8) assert_int_equal(ct.def.CounterOffset % 8, 0);
            uint64_t v, want = 0xF00000000ull * (uint64_t)(i + 1) + (uint64_t)k * 1000 + (uint64_t)i;
            int rc = pl_counter_value(&ct, &in, &v);
            if (pl_type_size(types[i]) == 8) {
                ASSERT_OK(rc);
                assert_int_equal(v, want);
            } else if (pl_type_size(types[i]) == 4) {
                ASSERT_OK(rc);
                assert_int_equal(v, want & 0xFFFFFFFFu);
            } else {
                assert_int_equal(rc, PL_E_INVAL);
            }
        }
    }
    assert_int_equal(pl_instance_next(&in, &in), PL_E_NOT_FOUND);
    free(buf);
    pl_builder_free(b);
}

/* A counter's base definition comes right after it; its value right after
 * the counter's value. */
static void base_counters_placement(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int o, c0, c1, c2, c3, c4;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 2, .default_counter = 1}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 10, .type = PERF_RAW_FRACTION,
                                                              .base_type = PERF_RAW_BASE, .base_name_index = 12},
                                     &c0));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 14, .help_index = 15,
                                                              .type = PERF_COUNTER_MULTI_TIMER,
                                                              .base_type = PERF_COUNTER_MULTI_BASE},
                                     &c1));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 16, .type = PERF_COUNTER_RAWCOUNT}, &c2));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 18, .type = PERF_PRECISION_100NS_TIMER,
                                                              .base_type = PERF_PRECISION_TIMESTAMP},
                                     &c3));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 20, .type = PERF_AVERAGE_TIMER,
                                                              .base_type = PERF_AVERAGE_BASE},
                                     &c4));
    assert_int_equal(c4, 4);
    ASSERT_OK(pl_builder_set_u32(b, o, -1, c0, 25));
    ASSERT_OK(pl_builder_set_base(b, o, -1, c0, 200));
    ASSERT_OK(pl_builder_set_u64(b, o, -1, c1, 1ull << 40));
    ASSERT_OK(pl_builder_set_base(b, o, -1, c1, 4));
    assert_int_equal(pl_builder_set_base(b, o, -1, c2, 1), PL_E_INVAL);
    ASSERT_OK(pl_builder_set_u64(b, o, -1, c3, 777));
    ASSERT_OK(pl_builder_set_base(b, o, -1, c3, 888));
    ASSERT_OK(pl_builder_set_u32(b, o, -1, c4, 31));
    ASSERT_OK(pl_builder_set_base(b, o, -1, c4, 32));
    size_t len;
    uint32_t n;
    uint8_t *buf = emit_all(b, &len, &n);
    /* definitions: 0 RAW_FRACTION, 1 RAW_BASE, 2 MULTI_TIMER, 3 MULTI_BASE,
     * 4 RAWCOUNT, 5 PRECISION, 6 TIMESTAMP, 7 AVERAGE_TIMER, 8 AVERAGE_BASE.
     * block: 0 len, 4 c0, 8 base0, 16 c1, 24 base1, 32 c2, 40 c3, 48 base3,
     *        56 c4, 60 base4 -> 64 bytes. */
    static const uint32_t want_type[9] = {PERF_RAW_FRACTION, PERF_RAW_BASE, PERF_COUNTER_MULTI_TIMER,
                                          PERF_COUNTER_MULTI_BASE, PERF_COUNTER_RAWCOUNT,
                                          PERF_PRECISION_100NS_TIMER, PERF_PRECISION_TIMESTAMP,
                                          PERF_AVERAGE_TIMER, PERF_AVERAGE_BASE};
    static const uint32_t want_off[9] = {4, 8, 16, 24, 32, 40, 48, 56, 60};
    static const uint32_t want_size[9] = {4, 4, 8, 8, 4, 8, 8, 4, 4};
    assert_int_equal(get32(buf, 32), 9);               /* NumCounters counts bases */
    assert_int_equal(get32(buf, 36), 2);               /* DefaultCounter: handle 1 is definition 2 */
    assert_int_equal(get32(buf, 40), (uint32_t)-1);    /* PERF_NO_INSTANCES */
    assert_int_equal(get32(buf, 4), 64 + 9 * 40);
    for (int i = 0; i < 9; i++) {
        size_t d = 64 + 40 * (size_t)i;
        assert_int_equal(get32(buf, d + 28), want_type[i]);
        assert_int_equal(get32(buf, d + 32), want_size[i]);
        assert_int_equal(get32(buf, d + 36), want_off[i]);
    }
    assert_int_equal(get32(buf, 64 + 40 + 4), 12);     /* base name index given */
    assert_int_equal(get32(buf, 64 + 3 * 40 + 4), 14); /* defaults to the counter's */
    assert_int_equal(get32(buf, 64 + 3 * 40 + 12), 15);
    size_t blk0 = 64 + 9 * 40;
    assert_int_equal(get32(buf, blk0), 64);
    assert_int_equal(len, blk0 + 64);
    assert_int_equal(get32(buf, blk0 + 8), 200);
    assert_int_equal(get64(buf, blk0 + 24), 4);

    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, buf, len, PL_BLOCK_BARE, 1, &err));
    pl_object ob;
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    pl_instance in;
    ASSERT_OK(pl_object_instance(&ob, -1, &in));
    pl_counter ct;
    uint64_t v;
    ASSERT_OK(pl_object_counter(&ob, 0, &ct));
    assert_true(ct.has_base);
    assert_int_equal(ct.base.CounterType, PERF_RAW_BASE);
    ASSERT_OK(pl_counter_value(&ct, &in, &v));
    assert_int_equal(v, 25);
    ASSERT_OK(pl_counter_base(&ct, &in, &v));
    assert_int_equal(v, 200);
    ASSERT_OK(pl_object_find_counter(&ob, 14, &ct));
    assert_int_equal(ct.position, 2);
    ASSERT_OK(pl_counter_base(&ct, &in, &v));
    assert_int_equal(v, 4);
    ASSERT_OK(pl_object_counter(&ob, 4, &ct));
    assert_false(ct.has_base);
    assert_int_equal(pl_counter_base(&ct, &in, &v), PL_E_NOT_FOUND);
    ASSERT_OK(pl_object_counter(&ob, 5, &ct));
    ASSERT_OK(pl_counter_base(&ct, &in, &v));
    assert_int_equal(v, 888);
    ASSERT_OK(pl_object_counter(&ob, 7, &ct));
    ASSERT_OK(pl_counter_base(&ct, &in, &v));
    assert_int_equal(v, 32);
    free(buf);
    pl_builder_free(b);
}

static void builder_rejects_bad_counters(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int o, c, i;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 2, .has_instances = 1}, &o));
    /* needs a base but declares none */
    assert_int_equal(pl_builder_add_counter(b, o, &(pl_counter_desc){.type = PERF_RAW_FRACTION}, &c), PL_E_INVAL);
    assert_int_equal(pl_builder_add_counter(b, o, &(pl_counter_desc){.type = PERF_100NSEC_MULTI_TIMER}, &c),
                     PL_E_INVAL);
    /* base_type that is not a base */
    assert_int_equal(pl_builder_add_counter(b, o, &(pl_counter_desc){.type = PERF_RAW_FRACTION,
                                                                      .base_type = PERF_COUNTER_RAWCOUNT}, &c),
                     PL_E_INVAL);
    /* sizes that contradict the type */
    assert_int_equal(pl_builder_add_counter(b, o, &(pl_counter_desc){.type = PERF_COUNTER_RAWCOUNT, .size = 8}, &c),
                     PL_E_INVAL);
    assert_int_equal(pl_builder_add_counter(b, o, &(pl_counter_desc){.type = PERF_COUNTER_TEXT, .size = 0}, &c),
                     PL_E_INVAL);
    assert_int_equal(pl_builder_add_counter(b, o, &(pl_counter_desc){.type = PERF_COUNTER_TEXT, .size = 7}, &c),
                     PL_E_INVAL);
    assert_int_equal(pl_builder_add_counter(b, 5, &(pl_counter_desc){.type = PERF_COUNTER_RAWCOUNT}, &c), PL_E_INVAL);
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.type = PERF_COUNTER_RAWCOUNT}, &c));
    /* bad instance names and handles */
    assert_int_equal(pl_builder_add_instance(b, o, "\xC3\x28", 0, 0, -1, &i), PL_E_ENCODING);
    assert_int_equal(pl_builder_add_instance(b, o, NULL, 0, 0, -1, &i), PL_E_INVAL);
    ASSERT_OK(pl_builder_add_instance(b, o, "", 0, 0, -1, &i));
    /* layout is frozen once instances exist */
    assert_int_equal(pl_builder_add_counter(b, o, &(pl_counter_desc){.type = PERF_COUNTER_RAWCOUNT}, &c), PL_E_INVAL);
    assert_int_equal(pl_builder_set_u32(b, o, 1, 0, 1), PL_E_INVAL);
    assert_int_equal(pl_builder_set_u32(b, o, -1, 0, 1), PL_E_INVAL);
    assert_int_equal(pl_builder_set_u32(b, o, 0, 1, 1), PL_E_INVAL);
    assert_int_equal(pl_builder_set_text(b, o, 0, 0, "x"), PL_E_INVAL);
    /* instances only on objects declared with them */
    int o2;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 4}, &o2));
    assert_int_equal(pl_builder_add_instance(b, o2, "x", 0, 0, -1, &i), PL_E_INVAL);
    pl_builder_free(b);
}

/* Text counters: fixed room, UTF-16LE and ASCII, NUL-terminated. */
static void text_counter(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int o, t, a, r, i;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 700, .has_instances = 1}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 702, .type = PERF_COUNTER_TEXT,
                                                              .size = 16}, &t));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 704,
                                                              .type = PERF_COUNTER_TEXT | PERF_TEXT_ASCII,
                                                              .size = 6}, &a));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 706, .type = PERF_COUNTER_LARGE_RAWCOUNT},
                                     &r));
    ASSERT_OK(pl_builder_add_instance(b, o, "x", 0, 0, -1, &i));
    ASSERT_OK(pl_builder_set_text(b, o, i, t, "h\xC3\xA9llo")); /* 5 units + NUL = 12 bytes */
    assert_int_equal(pl_builder_set_text(b, o, i, t, "12345678"), PL_E_RANGE); /* 18 > 16 */
    ASSERT_OK(pl_builder_set_text(b, o, i, a, "abcde"));
    assert_int_equal(pl_builder_set_text(b, o, i, a, "abcdef"), PL_E_RANGE);
    assert_int_equal(pl_builder_set_text(b, o, i, a, "\xC3\xA9"), PL_E_ENCODING);
    assert_int_equal(pl_builder_set_u32(b, o, i, t, 1), PL_E_INVAL);
    ASSERT_OK(pl_builder_set_u64(b, o, i, r, 42));
    size_t len;
    uint32_t n;
    uint8_t *buf = emit_all(b, &len, &n);
    /* block: len@0, text@4 (16), ascii@20 (6), large@32 -> 40 */
    size_t blk0 = 64 + 3 * 40 + 32;
    assert_int_equal(get32(buf, blk0), 40);
    assert_int_equal(get32(buf, 64 + 36), 4);
    assert_int_equal(get32(buf, 104 + 36), 20);
    assert_int_equal(get32(buf, 144 + 36), 32);
    static const uint8_t utf16[16] = {'h', 0, 0xE9, 0, 'l', 0, 'l', 0, 'o', 0, 0, 0, 0, 0, 0, 0};
    assert_memory_equal(buf + blk0 + 4, utf16, 16);
    assert_memory_equal(buf + blk0 + 20, "abcde\0", 6);

    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, buf, len, PL_BLOCK_BARE, 1, &err));
    pl_object ob;
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    pl_instance in;
    ASSERT_OK(pl_object_instance(&ob, 0, &in));
    pl_counter ct;
    char s[32];
    uint64_t v;
    ASSERT_OK(pl_object_counter(&ob, 0, &ct));
    ASSERT_OK(pl_counter_text(&ct, &in, s, sizeof s));
    assert_string_equal(s, "h\xC3\xA9llo");
    assert_int_equal(pl_counter_value(&ct, &in, &v), PL_E_INVAL);
    assert_int_equal(pl_counter_text(&ct, &in, s, 3), PL_E_MORE_DATA);
    assert_string_equal(s, "h"); /* é does not fit whole */
    ASSERT_OK(pl_object_counter(&ob, 1, &ct));
    ASSERT_OK(pl_counter_text(&ct, &in, s, sizeof s));
    assert_string_equal(s, "abcde");
    ASSERT_OK(pl_object_counter(&ob, 2, &ct));
    assert_int_equal(pl_counter_text(&ct, &in, s, sizeof s), PL_E_INVAL);
    free(buf);
    pl_builder_free(b);
}

/* An object without instances: NumInstances -1 and one counter block. */
static void object_without_instances(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int o, c0, c1;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 2, .help_index = 3}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 10, .type = PERF_COUNTER_RAWCOUNT}, &c0));
    ASSERT_OK(pl_builder_set_u32(b, o, -1, c0, 11));
    /* values survive a later counter growing the block */
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 12, .type = PERF_ELAPSED_TIME}, &c1));
    ASSERT_OK(pl_builder_set_u64(b, o, -1, c1, 1234567890123ull));
    assert_int_equal(pl_builder_set_u32(b, o, 0, c0, 1), PL_E_INVAL);
    size_t len;
    uint32_t n;
    uint8_t *buf = emit_all(b, &len, &n);
    /* 64 + 80 definitions + block (4, 8@8 -> 16) = 160 */
    assert_int_equal(len, 160);
    assert_int_equal(get32(buf, 0), 160);
    assert_int_equal(get32(buf, 4), 144);
    assert_int_equal(get32(buf, 40), (uint32_t)PERF_NO_INSTANCES);
    assert_int_equal(get32(buf, 144), 16);
    assert_int_equal(get32(buf, 148), 11);
    assert_int_equal(get64(buf, 152), 1234567890123ull);
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, buf, len, PL_BLOCK_BARE, 1, &err));
    pl_object ob;
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    assert_int_equal(pl_object_num_instances(&ob), 0);
    pl_instance in;
    assert_int_equal(pl_object_instance(&ob, 0, &in), PL_E_NOT_FOUND);
    ASSERT_OK(pl_object_instance(&ob, -1, &in));
    assert_int_equal(in.position, -1);
    assert_int_equal(in.data_off, 144);
    char nm[4];
    ASSERT_OK(pl_instance_name(&in, nm, sizeof nm));
    assert_string_equal(nm, "");
    pl_counter ct;
    uint64_t v;
    ASSERT_OK(pl_object_counter(&ob, 1, &ct));
    ASSERT_OK(pl_counter_value(&ct, &in, &v));
    assert_int_equal(v, 1234567890123ull);
    assert_int_equal(pl_object_counter(&ob, 2, &ct), PL_E_NOT_FOUND);
    free(buf);
    pl_builder_free(b);
}

/* PERF_DOUBLE_RAW: DWORD size bits, but an 8-byte double; the builder
 * gives it 8 bytes (4 is refused) and the reader wants CounterSize 8. */
static void double_raw_is_eight_bytes(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int o, c0, bad;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 2, .help_index = 3}, &o));
    assert_int_equal(
        pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 10, .type = PERF_DOUBLE_RAW, .size = 4}, &bad),
        PL_E_INVAL);
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 10, .type = PERF_DOUBLE_RAW}, &c0));
    double d = 37.5;
    uint64_t bits;
    memcpy(&bits, &d, 8);
    ASSERT_OK(pl_builder_set_u64(b, o, -1, c0, bits));
    assert_int_equal(pl_type_size(PERF_DOUBLE_RAW), 8);
    assert_string_equal(pl_type_name(PERF_DOUBLE_RAW), "PERF_DOUBLE_RAW");
    size_t len;
    uint32_t n;
    uint8_t *buf = emit_all(b, &len, &n);
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, buf, len, PL_BLOCK_BARE, 1, &err));
    pl_object ob;
    pl_counter ct;
    pl_instance in;
    uint64_t v;
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    ASSERT_OK(pl_object_counter(&ob, 0, &ct));
    assert_int_equal(ct.def.CounterSize, 8);
    ASSERT_OK(pl_object_instance(&ob, -1, &in));
    ASSERT_OK(pl_counter_value(&ct, &in, &v));
    assert_true(v == bits);
    /* a definition claiming 4 bytes is refused */
    put32(buf, 64 + 32, 4);
    assert_int_equal(pl_block_open(&blk, buf, len, PL_BLOCK_BARE, 1, &err), PL_E_BAD_BLOCK);
    assert_non_null(strstr(err.msg, "CounterSize 4"));
    free(buf);
    pl_builder_free(b);
}

/* An object with instances that has none right now: NumInstances 0 and one
 * zeroed counter block (what readers following the KB sample expect). */
static void object_with_zero_instances(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int o, c;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 230, .has_instances = 1}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 6, .type = PERF_100NSEC_TIMER}, &c));
    assert_int_equal(pl_builder_set_u64(b, o, -1, c, 1), PL_E_INVAL);
    assert_int_equal(pl_builder_set_u64(b, o, 0, c, 1), PL_E_INVAL);
    size_t len;
    uint32_t n;
    uint8_t *buf = emit_all(b, &len, &n);
    assert_int_equal(len, 64 + 40 + 16);
    assert_int_equal(get32(buf, 40), 0);
    assert_int_equal(get32(buf, 104), 16);
    assert_int_equal(get64(buf, 112), 0);
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, buf, len, PL_BLOCK_BARE, 1, &err));
    pl_object ob;
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    assert_int_equal(pl_object_num_instances(&ob), 0);
    pl_instance in;
    assert_int_equal(pl_object_instance(&ob, 0, &in), PL_E_NOT_FOUND);
    char **names = NULL;
    ASSERT_OK(pl_object_instance_names(&ob, &names));
    assert_null(names[0]);
    pl_free(names);
    free(buf);
    pl_builder_free(b);
}

/* Too small a buffer: MORE_DATA, the needed size, and not a byte written. */
static void more_data_writes_nothing(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int o, c, i;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 230, .has_instances = 1}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 6, .type = PERF_COUNTER_RAWCOUNT}, &c));
    for (int k = 0; k < 10; k++) ASSERT_OK(pl_builder_add_instance(b, o, "proc", 0, 0, -1, &i));
    size_t need = pl_builder_size(b);
    assert_int_equal(need, 64 + 40 + 10 * (40 + 8));
    enum { GUARD = 64 };
    uint8_t *mem = malloc(need + GUARD);
    for (size_t cap = 0; cap <= need; cap += (cap < 8 ? 1 : 37)) {
        memset(mem, 0xCD, need + GUARD);
        size_t used = 12345;
        uint32_t nobj = 99;
        int rc = pl_builder_emit(b, mem, cap < need ? cap : need - 1, &used, &nobj);
        assert_int_equal(rc, PL_E_MORE_DATA);
        assert_int_equal(used, need);
        assert_int_equal(nobj, 0);
        for (size_t k = 0; k < need + GUARD; k++) assert_int_equal(mem[k], 0xCD);
    }
    /* exactly enough: the guard after it stays untouched */
    memset(mem, 0xCD, need + GUARD);
    size_t used;
    uint32_t nobj;
    ASSERT_OK(pl_builder_emit(b, mem, need, &used, &nobj));
    assert_int_equal(used, need);
    assert_int_equal(nobj, 1);
    for (size_t k = need; k < need + GUARD; k++) assert_int_equal(mem[k], 0xCD);
    free(mem);
    /* exact-size heap buffer: ASan catches a single byte past it */
    uint8_t *exact = malloc(need);
    ASSERT_OK(pl_builder_emit(b, exact, need, &used, &nobj));
    free(exact);
    pl_builder_free(b);
}

static void header_lengths(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        uint32_t name_len, hdr_len;
    } cases[] = {
        {"", 2, 96},                /* 88 + 2 = 90 -> 96 */
        {"A", 4, 96},               /* 92 -> 96 */
        {"ABC", 8, 96},             /* 96 -> 96 */
        {"ABCD", 10, 104},          /* 98 -> 104 */
        {"BASEWIN2K3", 22, 112},    /* 110 -> 112 */
        {"ABCDEFGHIJK", 24, 112},   /* 112 -> 112 */
        {"\xE4\xB8\xAD\xF0\x9F\x98\x80", 8, 96}, /* 1 BMP + 1 surrogate pair = 3 units + NUL */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        pl_block_header h = {.system_time = {2024, 5, 3, 17, 12, 30, 45, 678},
                             .perf_time = 111,
                             .perf_freq = 10000000,
                             .perf_time_100ns = 133000000000000000LL,
                             .default_object = 238,
                             .system_name = cases[k].name};
        uint8_t buf[200];
        memset(buf, 0xEE, sizeof buf);
        size_t used = 0;
        assert_int_equal(pl_block_write_header(&h, 3, 1000, buf, cases[k].hdr_len - 1, &used), PL_E_MORE_DATA);
        assert_int_equal(used, cases[k].hdr_len);
        assert_int_equal(buf[0], 0xEE);
        ASSERT_OK(pl_block_write_header(&h, 3, 1000, buf, sizeof buf, &used));
        assert_int_equal(used, cases[k].hdr_len);
        assert_memory_equal(buf, "P\0E\0R\0F\0", 8);
        assert_int_equal(get32(buf, 8), 1);
        assert_int_equal(get32(buf, 12), 1);
        assert_int_equal(get32(buf, 16), 1);
        assert_int_equal(get32(buf, 20), cases[k].hdr_len + 1000);
        assert_int_equal(get32(buf, 24), cases[k].hdr_len);
        assert_int_equal(get32(buf, 28), 3);
        assert_int_equal(get32(buf, 32), 238);
        assert_int_equal(buf[36], 2024 & 0xFF);
        assert_int_equal(buf[50], 678 & 0xFF);
        assert_int_equal(get32(buf, 52), 0);
        assert_int_equal(get64(buf, 56), 111);
        assert_int_equal(get64(buf, 64), 10000000);
        assert_int_equal(get64(buf, 72), 133000000000000000ull);
        assert_int_equal(get32(buf, 80), cases[k].name_len);
        assert_int_equal(get32(buf, 84), 88);
        /* NUL and padding are zero; nothing past HeaderLength is touched */
        for (size_t i = 88 + cases[k].name_len - 2; i < cases[k].hdr_len; i++) assert_int_equal(buf[i], 0);
        assert_int_equal(buf[cases[k].hdr_len], 0xEE);
    }
    pl_block_header h = {.system_name = "BASEWIN2K3"};
    uint8_t buf[112];
    size_t used;
    ASSERT_OK(pl_block_write_header(&h, 0, 0, buf, sizeof buf, &used));
    static const uint8_t want[22] = {'B', 0, 'A', 0, 'S', 0, 'E', 0, 'W', 0, 'I', 0,
                                     'N', 0, '2', 0, 'K', 0, '3', 0, 0, 0};
    assert_memory_equal(buf + 88, want, 22);
    /* the header alone is a valid block with no objects */
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, buf, used, 0, 0, &err));
    assert_string_equal(blk.system_name, "BASEWIN2K3");
    assert_int_equal(blk.num_objects, 0);
    /* too long a total, bad name */
    assert_int_equal(pl_block_write_header(&h, 0, (size_t)UINT32_MAX, buf, sizeof buf, &used), PL_E_RANGE);
    h.system_name = "\xFF";
    assert_int_equal(pl_block_write_header(&h, 0, 0, buf, sizeof buf, &used), PL_E_ENCODING);
}

/* Header + objects, then reset and rebuild: no allocation after warm-up. */
static void build(pl_builder *b, int ninst, int nctr, uint64_t seed)
{
    int o, o2, c, i;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 230, .has_instances = 1}, &o));
    for (int k = 0; k < nctr; k++)
        ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 1000 + 2 * (uint32_t)k,
                                                                  .type = (k & 1) ? PERF_COUNTER_RAWCOUNT
                                                                                  : PERF_100NSEC_TIMER}, &c));
    char nm[32];
    for (int k = 0; k < ninst; k++) {
        snprintf(nm, sizeof nm, "process_%d", k);
        ASSERT_OK(pl_builder_add_instance(b, o, nm, 0, 0, k, &i));
        for (int j = 0; j < nctr; j++) ASSERT_OK(pl_builder_set_u64(b, o, i, j, seed + (uint64_t)(k * nctr + j)));
    }
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 2}, &o2));
    ASSERT_OK(pl_builder_add_counter(b, o2, &(pl_counter_desc){.name_index = 10, .type = PERF_COUNTER_RAWCOUNT}, &c));
    ASSERT_OK(pl_builder_set_u32(b, o2, -1, c, (uint32_t)seed));
}

static void reset_reuses_memory(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    build(b, 300, 10, 1);
    size_t len1;
    uint32_t n;
    uint8_t *first = emit_all(b, &len1, &n);
    size_t allocs = pl__builder_allocations(b);
    assert_true(allocs > 0);
    for (int round = 0; round < 5; round++) {
        pl_builder_reset(b);
        assert_int_equal(pl_builder_size(b), 0);
        assert_int_equal(pl_builder_num_objects(b), 0);
        build(b, 300 - round, 10, 1);
        assert_int_equal(pl__builder_allocations(b), allocs);
    }
    pl_builder_reset(b);
    build(b, 300, 10, 1);
    size_t len2;
    uint8_t *second = emit_all(b, &len2, &n);
    assert_int_equal(pl__builder_allocations(b), allocs);
    assert_int_equal(len1, len2);
    assert_memory_equal(first, second, len1);
    free(first);
    free(second);
    pl_builder_free(b);
}

/* 5,000 instances x 30 counters: emitted, rebuilt after a reset, and read
 * back. (How fast is measured in bench/, not here.) */
static void emit_large_5000x30(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    build(b, 5000, 30, 7);
    size_t need = pl_builder_size(b);
    uint8_t *buf = malloc(need);
    size_t used;
    uint32_t n;
    ASSERT_OK(pl_builder_emit(b, buf, need, &used, &n));
    for (int r = 0; r < 3; r++) {
        pl_builder_reset(b);
        build(b, 5000, 30, 7);
        ASSERT_OK(pl_builder_emit(b, buf, need, &used, &n));
        assert_int_equal(used, need);
    }
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, buf, used, PL_BLOCK_BARE, n, &err));
    free(buf);
    pl_builder_free(b);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden_small_object),
        cmocka_unit_test(roundtrip_all_types),
        cmocka_unit_test(base_counters_placement),
        cmocka_unit_test(builder_rejects_bad_counters),
        cmocka_unit_test(text_counter),
        cmocka_unit_test(object_without_instances),
        cmocka_unit_test(double_raw_is_eight_bytes),
        cmocka_unit_test(object_with_zero_instances),
        cmocka_unit_test(more_data_writes_nothing),
        cmocka_unit_test(header_lengths),
        cmocka_unit_test(reset_reuses_memory),
        cmocka_unit_test(emit_large_5000x30),
    };
    return pl_test_run(tests, argc, argv);
}
