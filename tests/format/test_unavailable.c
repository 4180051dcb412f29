/* pl_counter_available(): the generic "Unavailable Counters" protocol
 * (docs/block-format.md, "Unavailable values"), on blocks built here. */
#include "fmt_test.h"
#include "perflib/indices.h"

#define MARKER PL_CTR_UNAVAILABLE_COUNTERS

/* One object (230) with instances a, b, c, d:
 *   pos 0  784 RAWCOUNT
 *   pos 1  408 RAW_FRACTION, pos 2 its RAW_BASE
 *   pos 3  174 LARGE_RAWCOUNT
 *   pos 4  marker (1964, LARGE_RAWCOUNT_HEX)
 * masks: a = bit 0, b = bit 2 (the base), c = 0, d = bit 4 (the marker's own). */
static const uint64_t masks[4] = {1u << 0, 1u << 2, 0, 1u << 4};

typedef struct built {
    uint8_t *buf;
    size_t len;
    pl_block blk;
    pl_object obj;
} built;

static void open_built(built *x, pl_builder *b)
{
    uint32_t n;
    x->buf = emit_all(b, &x->len, &n);
    pl_builder_free(b);
    pl_error err;
    ASSERT_OK(pl_block_open(&x->blk, x->buf, x->len, PL_BLOCK_BARE, n, &err));
    ASSERT_OK(pl_block_object(&x->blk, 0, &x->obj));
}

static void build_small(built *x, uint32_t marker_type, int with_marker)
{
    pl_builder *b = pl_builder_new();
    int o, c, i;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 230, .has_instances = 1}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 784, .type = PERF_COUNTER_RAWCOUNT}, &c));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 408, .type = PERF_RAW_FRACTION,
                                                              .base_type = PERF_RAW_BASE}, &c));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 174, .type = PERF_COUNTER_LARGE_RAWCOUNT},
                                     &c));
    int m = -1;
    if (with_marker) ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = MARKER, .type = marker_type}, &m));
    const char *names[4] = {"a", "b", "c", "d"};
    for (int k = 0; k < 4; k++) {
        ASSERT_OK(pl_builder_add_instance(b, o, names[k], 0, 0, -1, &i));
        ASSERT_OK(pl_builder_set_u32(b, o, i, 0, (uint32_t)(10 + k)));
        if (m >= 0) ASSERT_OK(pl_builder_set_u64(b, o, i, m, masks[k]));
    }
    open_built(x, b);
}

/* available[instance][position] for positions 0 (784), 1 (408 + base), 3 (174), 4 */
static void expect(built *x, const int want[4][4])
{
    const uint32_t pos[4] = {0, 1, 3, 4};
    for (int k = 0; k < 4; k++) {
        pl_instance in;
        ASSERT_OK(pl_object_instance(&x->obj, k, &in));
        for (int j = 0; j < 4; j++) {
            pl_counter c;
            if (pos[j] >= x->obj.hdr.NumCounters) continue;
            ASSERT_OK(pl_object_counter(&x->obj, pos[j], &c));
            if (pl_counter_available(&c, &in) != want[k][j])
                fail_msg("instance %d position %u: available %d, want %d", k, pos[j], pl_counter_available(&c, &in),
                         want[k][j]);
        }
    }
}

static void no_marker_everything_available(void **state)
{
    (void)state;
    built x;
    build_small(&x, 0, 0);
    assert_int_equal(x.obj.hdr.NumCounters, 4);
    const int want[4][4] = {{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}};
    expect(&x, want);
    free(x.buf);
}

static void bits_set_and_clear(void **state)
{
    (void)state;
    built x;
    build_small(&x, PERF_COUNTER_LARGE_RAWCOUNT_HEX, 1);
    assert_int_equal(x.obj.hdr.NumCounters, 5);
    /* a: bit 0 -> 784 marked; b: bit 2 (the base of 408) -> 408 marked;
     * c: nothing; d: bit 4 is the marker's own position -> never marked */
    const int want[4][4] = {{0, 1, 1, 1}, {1, 0, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}};
    expect(&x, want);
    /* the base definition itself, read as a counter at position 2 */
    pl_instance in;
    pl_counter base;
    ASSERT_OK(pl_object_counter(&x.obj, 2, &base));
    assert_int_equal(base.def.CounterType, PERF_RAW_BASE);
    ASSERT_OK(pl_object_instance(&x.obj, 1, &in));
    assert_int_equal(pl_counter_available(&base, &in), 0);
    ASSERT_OK(pl_object_instance(&x.obj, 0, &in));
    assert_int_equal(pl_counter_available(&base, &in), 1);
    /* the value of a marked counter is still readable: it is just meaningless */
    pl_counter c0;
    ASSERT_OK(pl_object_counter(&x.obj, 0, &c0));
    uint64_t v;
    ASSERT_OK(pl_counter_value(&c0, &in, &v));
    assert_int_equal(v, 10);
    free(x.buf);
}

static void wrong_type_or_size_ignored(void **state)
{
    (void)state;
    const int all[4][4] = {{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}};
    built x;
    /* 8 bytes but not the HEX type */
    build_small(&x, PERF_COUNTER_LARGE_RAWCOUNT, 1);
    expect(&x, all);
    free(x.buf);
    /* the HEX type of 4 bytes */
    build_small(&x, PERF_COUNTER_RAWCOUNT_HEX, 1);
    expect(&x, all);
    free(x.buf);
    /* the right type patched to another size cannot even get that far: the
     * reader rejects a size that contradicts the type */
    build_small(&x, PERF_COUNTER_LARGE_RAWCOUNT_HEX, 1);
    size_t d4 = x.obj.off + x.obj.hdr.HeaderLength + 4 * 40;
    assert_int_equal(get32(x.buf, d4 + 4), MARKER);
    assert_int_equal(get32(x.buf, d4 + 32), 8);
    put32(x.buf, d4 + 32, 4);
    pl_error err;
    pl_block blk;
    assert_int_equal(pl_block_open(&blk, x.buf, x.len, PL_BLOCK_BARE, 1, &err), PL_E_BAD_BLOCK);
    free(x.buf);
}

/* A wrong-typed 1964 first, the real marker later: the real one counts. */
static void first_valid_marker_wins(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int o, c, bad, m, i;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 2, .has_instances = 1}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = MARKER, .type = PERF_COUNTER_RAWCOUNT_HEX},
                                     &bad));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 44, .type = PERF_COUNTER_RAWCOUNT}, &c));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = MARKER,
                                                              .type = PERF_COUNTER_LARGE_RAWCOUNT_HEX}, &m));
    ASSERT_OK(pl_builder_add_instance(b, o, "x", 0, 0, -1, &i));
    ASSERT_OK(pl_builder_set_u32(b, o, i, bad, 0x2)); /* would mark position 1 */
    ASSERT_OK(pl_builder_set_u64(b, o, i, m, 0x1));   /* marks position 0 (the bad one) */
    built x;
    open_built(&x, b);
    pl_instance in;
    ASSERT_OK(pl_object_instance(&x.obj, 0, &in));
    pl_counter k;
    ASSERT_OK(pl_object_counter(&x.obj, 0, &k));
    assert_int_equal(pl_counter_available(&k, &in), 0);
    ASSERT_OK(pl_object_counter(&x.obj, 1, &k));
    assert_int_equal(pl_counter_available(&k, &in), 1);
    ASSERT_OK(pl_object_counter(&x.obj, 2, &k));
    assert_int_equal(pl_counter_available(&k, &in), 1);
    free(x.buf);
}

/* 70 counters and the marker at position 70: bit 63 covers 63..69. */
static void positions_past_63_share_bit_63(void **state)
{
    (void)state;
    for (int variant = 0; variant < 3; variant++) {
        pl_builder *b = pl_builder_new();
        int o, c, m, i;
        ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 2, .has_instances = 1}, &o));
        for (int k = 0; k < 70; k++)
            ASSERT_OK(pl_builder_add_counter(
                b, o, &(pl_counter_desc){.name_index = 1000 + 2 * (uint32_t)k, .type = PERF_COUNTER_RAWCOUNT}, &c));
        ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = MARKER,
                                                                  .type = PERF_COUNTER_LARGE_RAWCOUNT_HEX}, &m));
        assert_int_equal(m, 70);
        ASSERT_OK(pl_builder_add_instance(b, o, "x", 0, 0, -1, &i));
        const uint64_t mask[3] = {1ull << 63, 1ull << 62, (1ull << 63) | 1u};
        ASSERT_OK(pl_builder_set_u64(b, o, i, m, mask[variant]));
        built x;
        open_built(&x, b);
        assert_int_equal(x.obj.hdr.NumCounters, 71);
        pl_instance in;
        ASSERT_OK(pl_object_instance(&x.obj, 0, &in));
        for (uint32_t p = 0; p < 71; p++) {
            pl_counter k;
            ASSERT_OK(pl_object_counter(&x.obj, p, &k));
            int want;
            if (p == 70) want = 1; /* the marker */
            else if (variant == 0) want = p < 63;
            else if (variant == 1) want = p != 62;
            else want = p != 0 && p < 63;
            if (pl_counter_available(&k, &in) != want) fail_msg("variant %d position %u", variant, p);
        }
        free(x.buf);
    }
}

/* An object without instances: the single counter block carries the mask. */
static void single_counter_block(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int o, c0, c1, m;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 2}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 44, .type = PERF_COUNTER_RAWCOUNT}, &c0));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 46, .type = PERF_COUNTER_RAWCOUNT}, &c1));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = MARKER,
                                                              .type = PERF_COUNTER_LARGE_RAWCOUNT_HEX}, &m));
    ASSERT_OK(pl_builder_set_u64(b, o, -1, m, 0x2));
    built x;
    open_built(&x, b);
    pl_instance in;
    ASSERT_OK(pl_object_instance(&x.obj, -1, &in));
    pl_counter k;
    ASSERT_OK(pl_object_counter(&x.obj, 0, &k));
    assert_int_equal(pl_counter_available(&k, &in), 1);
    ASSERT_OK(pl_object_counter(&x.obj, 1, &k));
    assert_int_equal(pl_counter_available(&k, &in), 0);
    free(x.buf);
}

/* Bad arguments say "available": the value read reports the error. */
static void bad_arguments(void **state)
{
    (void)state;
    built x;
    build_small(&x, PERF_COUNTER_LARGE_RAWCOUNT_HEX, 1);
    pl_instance in;
    pl_counter c;
    ASSERT_OK(pl_object_instance(&x.obj, 0, &in));
    ASSERT_OK(pl_object_counter(&x.obj, 0, &c));
    assert_int_equal(pl_counter_available(&c, &in), 0);
    assert_int_equal(pl_counter_available(NULL, &in), 1);
    assert_int_equal(pl_counter_available(&c, NULL), 1);
    /* an instance of another object */
    pl_object other = x.obj;
    other.off += 8;
    pl_instance in2 = in;
    in2.obj = &other;
    assert_int_equal(pl_counter_available(&c, &in2), 1);
    uint64_t v;
    assert_int_equal(pl_counter_value(&c, &in2, &v), PL_E_INVAL);
    free(x.buf);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_marker_everything_available),
        cmocka_unit_test(bits_set_and_clear),
        cmocka_unit_test(wrong_type_or_size_ignored),
        cmocka_unit_test(first_valid_marker_wins),
        cmocka_unit_test(positions_past_63_share_bit_63),
        cmocka_unit_test(single_counter_block),
        cmocka_unit_test(bad_arguments),
    };
    return pl_test_run(tests, argc, argv);
}
