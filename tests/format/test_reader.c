/* Reader: hostile input is rejected with the field and offset named; valid
 * blocks (including misaligned and hand-built Windows-shaped ones) are read. */
#include <stdio.h>

#include "fmt_test.h"

/* The reference block, built with the builder. Layout (checked below):
 *   header 0..111 ("TESTHOST": 88 + 18 = 106 -> 112)
 *   object 0 (230) at 112: definitions at 176 (5 x 40), DefinitionLength 264
 *     block: len@0 c0@4 c1@8 c2@16 base@20 text@24(8) -> 32
 *     instance "p0" at 376 (ByteLength 32), block at 408
 *     instance "p1" at 440, block at 472; object ends at 504 (392 bytes)
 *   object 1 (2) at 504: one definition, DefinitionLength 104, block at 608
 *     (8 bytes); ends at 616 = TotalByteLength */
enum { H = 112, O0 = 112, D0 = 176, I0 = 376, B0 = 408, I1 = 440, B1 = 472, O1 = 504, OB1 = 608, TOTAL = 616 };

static uint8_t *ref_block(size_t *len)
{
    pl_builder *b = pl_builder_new();
    int o, o1, c, i;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 230, .has_instances = 1}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 784, .type = PERF_COUNTER_RAWCOUNT}, &c));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 174, .type = PERF_COUNTER_LARGE_RAWCOUNT},
                                     &c));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 408, .type = PERF_RAW_FRACTION,
                                                              .base_type = PERF_RAW_BASE}, &c));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 900, .type = PERF_COUNTER_TEXT,
                                                              .size = 8}, &c));
    ASSERT_OK(pl_builder_add_instance(b, o, "p0", 0, 0, -1, &i));
    ASSERT_OK(pl_builder_set_u32(b, o, i, 0, 100));
    ASSERT_OK(pl_builder_add_instance(b, o, "p1", 0, 0, -1, &i));
    ASSERT_OK(pl_builder_set_u32(b, o, i, 0, 101));
    ASSERT_OK(pl_builder_set_text(b, o, i, 3, "abc"));
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 2}, &o1));
    ASSERT_OK(pl_builder_add_counter(b, o1, &(pl_counter_desc){.name_index = 44, .type = PERF_COUNTER_RAWCOUNT}, &c));
    ASSERT_OK(pl_builder_set_u32(b, o1, -1, c, 7));
    size_t objs = pl_builder_size(b);
    pl_block_header h = {.default_object = 238, .perf_freq = 10000000, .system_name = "TESTHOST"};
    size_t hl;
    uint8_t *buf = calloc(1, 1024);
    ASSERT_OK(pl_block_write_header(&h, pl_builder_num_objects(b), objs, buf, 1024, &hl));
    size_t used;
    uint32_t n;
    ASSERT_OK(pl_builder_emit(b, buf + hl, 1024 - hl, &used, &n));
    pl_builder_free(b);
    *len = hl + used;
    assert_int_equal(hl, H);
    assert_int_equal(*len, TOTAL);
    assert_int_equal(get32(buf, O0 + 4), 264);
    assert_int_equal(get32(buf, I0), 32);
    assert_int_equal(get32(buf, B0), 32);
    assert_int_equal(get32(buf, I1), 32);
    assert_int_equal(get32(buf, O0), O1 - O0);
    assert_int_equal(get32(buf, O1 + 4), OB1 - O1);
    return buf;
}

static void expect_bad(const uint8_t *buf, size_t len, int flags, uint32_t nobj, const char *substr)
{
    pl_block blk;
    memset(&blk, 0x5A, sizeof blk);
    pl_error err = {0};
    int rc = pl_block_open(&blk, buf, len, flags, nobj, &err);
    if (rc != PL_E_BAD_BLOCK || !strstr(err.msg, substr))
        fprintf(stderr, "rc %d, message \"%s\", expected \"%s\"\n", rc, err.msg, substr);
    assert_int_equal(rc, PL_E_BAD_BLOCK);
    assert_int_equal(err.status, PL_E_BAD_BLOCK);
    assert_non_null(strstr(err.msg, substr));
    /* the caller's view is untouched on failure */
    assert_int_equal(((const uint8_t *)&blk)[0], 0x5A);
}

/* Mutate a fresh copy of the reference block with `f`, expect rejection. */
typedef void (*mutator)(uint8_t *buf, size_t *len);
static void check_mut(mutator f, const char *substr)
{
    size_t len;
    uint8_t *buf = ref_block(&len);
    f(buf, &len);
    expect_bad(buf, len, 0, 0, substr);
    free(buf);
}

static void ref_block_reads_back(void **state)
{
    (void)state;
    size_t len;
    uint8_t *buf = ref_block(&len);
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, buf, len, 0, 0, &err));
    assert_int_equal(blk.num_objects, 2);
    assert_string_equal(blk.system_name, "TESTHOST");
    assert_int_equal(blk.first_object, H);
    assert_int_equal(blk.hdr.DefaultObject, 238);
    pl_object ob;
    ASSERT_OK(pl_block_object(&blk, 1, &ob));
    assert_int_equal(ob.off, O1);
    assert_int_equal(ob.hdr.ObjectNameTitleIndex, 2);
    assert_int_equal(pl_block_object(&blk, 2, &ob), PL_E_NOT_FOUND);
    assert_int_equal(pl_block_find_object(&blk, 999, &ob), PL_E_NOT_FOUND);
    ASSERT_OK(pl_block_find_object(&blk, 230, &ob));
    pl_counter ct;
    assert_int_equal(pl_object_find_counter(&ob, 1, &ct), PL_E_NOT_FOUND);
    ASSERT_OK(pl_object_find_counter(&ob, 784, &ct));
    pl_instance in;
    ASSERT_OK(pl_object_instance(&ob, 1, &in));
    assert_int_equal(in.off, I1);
    assert_int_equal(in.data_off, B1);
    uint64_t v;
    ASSERT_OK(pl_counter_value(&ct, &in, &v));
    assert_int_equal(v, 101);
    ASSERT_OK(pl_object_find_counter(&ob, 900, &ct));
    char s[16];
    ASSERT_OK(pl_counter_text(&ct, &in, s, sizeof s));
    assert_string_equal(s, "abc");
    /* a counter of another object does not mix with this instance */
    pl_object ob1;
    pl_counter c1;
    ASSERT_OK(pl_block_object(&blk, 1, &ob1));
    ASSERT_OK(pl_object_counter(&ob1, 0, &c1));
    assert_int_equal(pl_counter_value(&c1, &in, &v), PL_E_INVAL);
    pl_instance single;
    ASSERT_OK(pl_object_instance(&ob1, -1, &single));
    ASSERT_OK(pl_counter_value(&c1, &single, &v));
    assert_int_equal(v, 7);
    assert_int_equal(pl_object_instance(&ob, -1, &single), PL_E_NOT_FOUND);
    free(buf);
}

/* Misaligned copies, trailing bytes after TotalByteLength, bare mode. */
static void misaligned_trailing_and_bare(void **state)
{
    (void)state;
    size_t len;
    uint8_t *ref = ref_block(&len);
    for (size_t shift = 1; shift < 8; shift++) {
        uint8_t *m = malloc(len + shift + 16);
        memcpy(m + shift, ref, len);
        memset(m + shift + len, 0xAB, 16);
        pl_block blk;
        pl_error err;
        ASSERT_OK(pl_block_open(&blk, m + shift, len + 16, 0, 0, &err)); /* trailing bytes are fine */
        pl_object ob;
        ASSERT_OK(pl_block_object(&blk, 0, &ob));
        pl_instance in;
        pl_counter ct;
        uint64_t v;
        ASSERT_OK(pl_object_instance(&ob, 0, &in));
        ASSERT_OK(pl_object_counter(&ob, 1, &ct));
        ASSERT_OK(pl_counter_value(&ct, &in, &v));
        assert_int_equal(v, 0);
        ASSERT_OK(pl_object_counter(&ob, 0, &ct));
        ASSERT_OK(pl_counter_value(&ct, &in, &v));
        assert_int_equal(v, 100);
        free(m);
    }
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, ref + H, len - H, PL_BLOCK_BARE, 2, &err));
    assert_int_equal(blk.has_header, 0);
    assert_int_equal(blk.first_object, 0);
    assert_string_equal(blk.system_name, "");
    ASSERT_OK(pl_block_open(&blk, ref + H, O1 - O0, PL_BLOCK_BARE, 1, &err));
    ASSERT_OK(pl_block_open(&blk, ref, 0, PL_BLOCK_BARE, 0, &err));
    /* bare: wrong object count either way, trailing bytes are not allowed */
    expect_bad(ref + H, len - H, PL_BLOCK_BARE, 3, "object 2 at offset 504: 0 bytes left");
    expect_bad(ref + H, len - H, PL_BLOCK_BARE, 8, "8 objects cannot fit in 504 bytes");
    expect_bad(ref + H, len - H, PL_BLOCK_BARE, 1, "the 1 objects end at offset 392 but 504 bytes were given");
    assert_int_equal(pl_block_open(&blk, ref, len, 7, 0, &err), PL_E_INVAL);
    free(ref);
}

/* --- malformations: at least one per check, each naming field and offset */
static void m_trunc(uint8_t *b, size_t *l) { (void)b; *l = 87; }
static void m_sig(uint8_t *b, size_t *l) { (void)l; b[2] = 'X'; }
static void m_le(uint8_t *b, size_t *l) { (void)l; put32(b, 8, 0); }
static void m_ver(uint8_t *b, size_t *l) { (void)l; put32(b, 12, 2); }
static void m_rev(uint8_t *b, size_t *l) { (void)l; put32(b, 16, 0); }
static void m_total(uint8_t *b, size_t *l) { (void)l; put32(b, 20, TOTAL + 1); }
static void m_hlen_small(uint8_t *b, size_t *l) { (void)l; put32(b, 24, 80); }
static void m_hlen_big(uint8_t *b, size_t *l) { (void)l; put32(b, 24, TOTAL + 8); put32(b, 20, TOTAL); }
static void m_name_off(uint8_t *b, size_t *l) { (void)l; put32(b, 84, 100); }
static void m_name_odd(uint8_t *b, size_t *l) { (void)l; put32(b, 80, 17); }
static void m_nobj_huge(uint8_t *b, size_t *l) { (void)l; put32(b, 28, 0x40000000); }
static void m_nobj_few(uint8_t *b, size_t *l) { (void)l; put32(b, 28, 1); }
static void m_nobj_many(uint8_t *b, size_t *l) { (void)l; put32(b, 28, 3); }
static void m_obj_total0(uint8_t *b, size_t *l) { (void)l; put32(b, O0, 0); }
static void m_obj_total_past(uint8_t *b, size_t *l) { (void)l; put32(b, O1, 200); }
static void m_obj_hdrlen(uint8_t *b, size_t *l) { (void)l; put32(b, O0 + 8, 40); }
static void m_def_lt_hdr(uint8_t *b, size_t *l) { (void)l; put32(b, O0 + 4, 60); }
static void m_def_gt_total(uint8_t *b, size_t *l) { (void)l; put32(b, O0 + 4, 400); }
static void m_ncounters(uint8_t *b, size_t *l) { (void)l; put32(b, O0 + 32, 6); }
static void m_ncounters_huge(uint8_t *b, size_t *l) { (void)l; put32(b, O0 + 32, 0x10000000); }
static void m_def_overlap(uint8_t *b, size_t *l) { (void)l; put32(b, D0 + 40, 20); }
static void m_def_past(uint8_t *b, size_t *l) { (void)l; put32(b, D0 + 4 * 40, 80); }
static void m_size(uint8_t *b, size_t *l) { (void)l; put32(b, D0 + 32, 8); }
static void m_zero_size(uint8_t *b, size_t *l) { (void)l; put32(b, D0 + 28, PERF_COUNTER_NODATA); }
static void m_text_odd(uint8_t *b, size_t *l) { (void)l; put32(b, D0 + 4 * 40 + 32, 7); }
static void m_ctr_off(uint8_t *b, size_t *l) { (void)l; put32(b, D0 + 40 + 36, 28); }
static void m_no_base(uint8_t *b, size_t *l) { (void)l; put32(b, D0 + 3 * 40 + 28, PERF_COUNTER_RAWCOUNT); }
static void m_last_base(uint8_t *b, size_t *l) { (void)l; put32(b, O1 + 64 + 28, PERF_SAMPLE_FRACTION); }
static void m_ninst_huge(uint8_t *b, size_t *l) { (void)l; put32(b, O0 + 40, 100000); }
static void m_ninst_neg(uint8_t *b, size_t *l) { (void)l; put32(b, O0 + 40, (uint32_t)-2); }
static void m_ninst_more(uint8_t *b, size_t *l) { (void)l; put32(b, O0 + 40, 3); }
static void m_inst_len(uint8_t *b, size_t *l) { (void)l; put32(b, I1, 8); }
static void m_inst_len_big(uint8_t *b, size_t *l) { (void)l; put32(b, I1, 0x7FFFFFFF); }
static void m_name_range(uint8_t *b, size_t *l) { (void)l; put32(b, I0 + 16, 200); }
static void m_name_len(uint8_t *b, size_t *l) { (void)l; put32(b, I0 + 20, 12); }
static void m_name_inside_hdr(uint8_t *b, size_t *l) { (void)l; put32(b, I0 + 16, 4); }
static void m_name_odd_len(uint8_t *b, size_t *l) { (void)l; put32(b, I1 + 20, 5); }
static void m_blk_small(uint8_t *b, size_t *l) { (void)l; put32(b, B1, 2); }
static void m_blk_past(uint8_t *b, size_t *l) { (void)l; put32(b, B1, 64); }
static void m_blk_short(uint8_t *b, size_t *l) { (void)l; put32(b, B0, 24); }
static void m_single_blk(uint8_t *b, size_t *l) { (void)l; put32(b, OB1, 0); }
static void m_total_short(uint8_t *b, size_t *l) { (void)l; put32(b, 20, TOTAL - 8); }

#define MUT(name, f, s) \
    static void name(void **state) { (void)state; check_mut(f, s); }

MUT(bad_truncated_header, m_trunc, "truncated header: 87 bytes")
MUT(bad_signature, m_sig, "Signature")
MUT(bad_little_endian, m_le, "header at offset 8: LittleEndian 0")
MUT(bad_version, m_ver, "header at offset 12: Version 2")
MUT(bad_revision, m_rev, "header at offset 16: Revision 0")
MUT(bad_total_gt_len, m_total, "header at offset 20: TotalByteLength 617 > the 616 bytes given")
MUT(bad_header_length_small, m_hlen_small, "header at offset 24: HeaderLength 80 < 88")
MUT(bad_header_length_big, m_hlen_big, "HeaderLength 624 > TotalByteLength 616")
MUT(bad_system_name_range, m_name_off, "system name (SystemNameOffset 100, SystemNameLength 18)")
MUT(bad_system_name_odd, m_name_odd, "SystemNameLength 17 is odd")
MUT(bad_num_objects_huge, m_nobj_huge, "NumObjectTypes 1073741824 cannot fit")
MUT(bad_num_objects_few, m_nobj_few, "the 1 objects end at offset 504 but TotalByteLength is 616")
MUT(bad_num_objects_many, m_nobj_many, "object 2 at offset 616: 0 bytes left")
MUT(bad_object_total_zero, m_obj_total0, "object 0 (index 230) at offset 112: TotalByteLength 0 < DefinitionLength 264")
MUT(bad_object_total_past, m_obj_total_past, "object 1 (index 2) at offset 504: TotalByteLength 200 runs past")
MUT(bad_object_header_length, m_obj_hdrlen, "object 0 (index 230) at offset 112: HeaderLength 40 < 64")
MUT(bad_definition_lt_header, m_def_lt_hdr, "DefinitionLength 60 < HeaderLength 64")
MUT(bad_definition_gt_total, m_def_gt_total, "TotalByteLength 392 < DefinitionLength 400")
MUT(bad_num_counters, m_ncounters, "DefinitionLength 264 < HeaderLength + NumCounters*40 (304)")
MUT(bad_num_counters_huge, m_ncounters_huge, "NumCounters*40 (10737418304)")
MUT(bad_definitions_overlap, m_def_overlap, "counter 1 at offset 216: ByteLength 20 < 40")
MUT(bad_definition_past_area, m_def_past, "counter 4 at offset 336: ByteLength 80 runs past DefinitionLength 264")
MUT(bad_counter_size, m_size, "counter 0 at offset 176: CounterSize 8 does not match PERF_COUNTER_RAWCOUNT (4)")
MUT(bad_counter_size_zero_type, m_zero_size, "CounterSize 4 does not match PERF_COUNTER_NODATA (0)")
MUT(bad_text_size_odd, m_text_odd, "counter 4 at offset 336: CounterSize 7 of a UTF-16 text counter is odd")
MUT(bad_counter_offset, m_ctr_off, "instance 0: counter block at offset 408: ByteLength 32 < CounterOffset + "
                                   "CounterSize of counter 1 (36)")
MUT(bad_missing_base, m_no_base, "counter 2 (PERF_RAW_FRACTION) at offset 256 is not followed by a base counter")
MUT(bad_missing_base_last, m_last_base, "counter 0 (PERF_SAMPLE_FRACTION) at offset 568 is the last definition")
MUT(bad_num_instances_huge, m_ninst_huge, "NumInstances 100000 cannot fit")
MUT(bad_num_instances_negative, m_ninst_neg, "NumInstances -2")
MUT(bad_num_instances_more, m_ninst_more, "instance 2 at offset 504 runs past the object end")
MUT(bad_instance_length, m_inst_len, "instance 1 at offset 440: ByteLength 8 < 24")
MUT(bad_instance_length_big, m_inst_len_big, "instance 1 at offset 440: ByteLength 2147483647 runs past")
MUT(bad_instance_name_offset, m_name_range, "instance 0 at offset 376: name (NameOffset 200, NameLength 6)")
MUT(bad_instance_name_length, m_name_len, "name (NameOffset 24, NameLength 12) is outside the instance")
MUT(bad_instance_name_in_header, m_name_inside_hdr, "name (NameOffset 4, NameLength 6)")
MUT(bad_instance_name_odd, m_name_odd_len, "instance 1 at offset 440: NameLength 5 is odd")
MUT(bad_block_length_small, m_blk_small, "instance 1: counter block at offset 472: ByteLength 2 < 4")
MUT(bad_block_length_past, m_blk_past, "counter block at offset 472: ByteLength 64 runs past the object end (504)")
MUT(bad_block_shorter_than_counters, m_blk_short, "counter block at offset 408: ByteLength 24 < CounterOffset")
MUT(bad_single_block, m_single_blk, "object 1 (index 2) at offset 504: the counter block at offset 608: ByteLength 0")
MUT(bad_total_short, m_total_short, "object 1 (index 2) at offset 504: TotalByteLength 112 runs past the end of the "
                                    "data (104 bytes left)")

/* Flip every byte to a few values: never a crash (ASan), and whatever opens
 * is walkable without error. */
static void walk_all(const pl_block *blk)
{
    for (uint32_t i = 0; i < blk->num_objects; i++) {
        pl_object ob;
        ASSERT_OK(pl_block_object(blk, i, &ob));
        char **names = NULL;
        ASSERT_OK(pl_object_instance_names(&ob, &names));
        pl_free(names);
        uint32_t ni = pl_object_num_instances(&ob);
        pl_instance in;
        int rc = ni ? pl_object_instance(&ob, 0, &in) : pl_object_instance(&ob, -1, &in);
        for (uint32_t k = 0; rc == PL_OK; k++) {
            char s[64];
            pl_instance_name(&in, s, sizeof s);
            pl_object po;
            pl_instance pi;
            pl_instance_parent(&in, &po, &pi);
            for (uint32_t c = 0; c < ob.hdr.NumCounters; c++) {
                pl_counter ct;
                uint64_t v;
                ASSERT_OK(pl_object_counter(&ob, c, &ct));
                int r = pl_counter_value(&ct, &in, &v);
                assert_true(r == PL_OK || r == PL_E_INVAL);
                pl_counter_base(&ct, &in, &v);
                pl_counter_text(&ct, &in, s, sizeof s);
            }
            if (in.position < 0) break;
            rc = pl_instance_next(&in, &in);
        }
        assert_int_equal(rc == PL_OK || rc == PL_E_NOT_FOUND, 1);
    }
}

static void byte_flip_sweep(void **state)
{
    (void)state;
    size_t len;
    uint8_t *ref = ref_block(&len);
    static const uint8_t vals[] = {0x00, 0x01, 0x07, 0x28, 0x80, 0xFF};
    uint8_t *m = malloc(len);
    size_t opened = 0;
    for (size_t i = 0; i < len; i++) {
        for (size_t k = 0; k < sizeof vals; k++) {
            memcpy(m, ref, len);
            if (m[i] == vals[k]) continue;
            m[i] = vals[k];
            pl_block blk;
            pl_error err;
            int rc = pl_block_open(&blk, m, len, 0, 0, &err);
            if (rc == PL_OK) {
                opened++;
                walk_all(&blk);
            } else {
                assert_int_equal(rc, PL_E_BAD_BLOCK);
                assert_true(strlen(err.msg) > 10);
            }
        }
    }
    assert_true(opened > 0);
    free(m);
    free(ref);
}

/* Definitions longer than 40 bytes (allowed) are walked by ByteLength, and an
 * object with NumInstances 0 and no counter block is accepted. */
static void long_definitions_and_empty_object(void **state)
{
    (void)state;
    uint8_t b[64 + 48 + 52 + 16 + 64 + 40];
    memset(b, 0, sizeof b);
    /* object 0: two definitions of 48 and 52 bytes, no instances */
    put32(b, 0, 64 + 100 + 16);
    put32(b, 4, 64 + 100);
    put32(b, 8, 64);
    put32(b, 12, 2);
    put32(b, 32, 2);
    put32(b, 40, (uint32_t)PERF_NO_INSTANCES);
    put32(b, 64, 48);
    put32(b, 64 + 4, 10);
    put32(b, 64 + 28, PERF_COUNTER_RAWCOUNT);
    put32(b, 64 + 32, 4);
    put32(b, 64 + 36, 4);
    put32(b, 112, 52);
    put32(b, 112 + 4, 12);
    put32(b, 112 + 28, PERF_COUNTER_LARGE_RAWCOUNT);
    put32(b, 112 + 32, 8);
    put32(b, 112 + 36, 8);
    put32(b, 164, 16);
    put32(b, 168, 0xDEAD);
    put64(b, 172, 0xBEEF);
    /* object 1 at 180: 0 instances, definitions only */
    put32(b, 180, 104);
    put32(b, 184, 104);
    put32(b, 188, 64);
    put32(b, 192, 4);
    put32(b, 212, 1);
    put32(b, 180 + 64, 40);
    put32(b, 180 + 64 + 28, PERF_COUNTER_RAWCOUNT);
    put32(b, 180 + 64 + 32, 4);
    put32(b, 180 + 64 + 36, 4);
    size_t len = 284;
    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, b, len, PL_BLOCK_BARE, 2, &err));
    pl_object ob;
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    pl_counter ct;
    ASSERT_OK(pl_object_counter(&ob, 1, &ct));
    assert_int_equal(ct.def.CounterNameTitleIndex, 12);
    ASSERT_OK(pl_object_find_counter(&ob, 12, &ct));
    pl_instance in;
    ASSERT_OK(pl_object_instance(&ob, -1, &in));
    uint64_t v;
    ASSERT_OK(pl_counter_value(&ct, &in, &v));
    assert_int_equal(v, 0xBEEF);
    ASSERT_OK(pl_block_object(&blk, 1, &ob));
    assert_int_equal(pl_object_num_instances(&ob), 0);
    assert_int_equal(pl_object_instance(&ob, -1, &in), PL_E_NOT_FOUND);
    walk_all(&blk);
}

/* A block in the shape Windows Server 2003 returns: header 112 with
 * "BASEWIN2K3", a Process object with 27 counters (DefinitionLength 1144)
 * and 40-byte instances, then Thread with parents in Process. Built by hand,
 * without the builder. */
static const struct {
    uint32_t idx, type;
} w2k3_process[27] = {
    {6, PERF_100NSEC_TIMER}, {142, PERF_100NSEC_TIMER}, {144, PERF_100NSEC_TIMER},
    {172, PERF_COUNTER_LARGE_RAWCOUNT}, {174, PERF_COUNTER_LARGE_RAWCOUNT}, {28, PERF_COUNTER_COUNTER},
    {178, PERF_COUNTER_LARGE_RAWCOUNT}, {180, PERF_COUNTER_LARGE_RAWCOUNT}, {182, PERF_COUNTER_LARGE_RAWCOUNT},
    {184, PERF_COUNTER_LARGE_RAWCOUNT}, {186, PERF_COUNTER_LARGE_RAWCOUNT}, {680, PERF_COUNTER_RAWCOUNT},
    {682, PERF_COUNTER_RAWCOUNT}, {684, PERF_ELAPSED_TIME}, {784, PERF_COUNTER_RAWCOUNT},
    {1410, PERF_COUNTER_RAWCOUNT}, {56, PERF_COUNTER_RAWCOUNT}, {58, PERF_COUNTER_RAWCOUNT},
    {952, PERF_COUNTER_RAWCOUNT}, {1412, PERF_COUNTER_BULK_COUNT}, {1414, PERF_COUNTER_BULK_COUNT},
    {1416, PERF_COUNTER_BULK_COUNT}, {1418, PERF_COUNTER_BULK_COUNT}, {1420, PERF_COUNTER_BULK_COUNT},
    {1422, PERF_COUNTER_BULK_COUNT}, {1424, PERF_COUNTER_BULK_COUNT}, {1426, PERF_COUNTER_BULK_COUNT},
};

static size_t put_name(uint8_t *b, size_t off, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++) put16(b, off + 2 * i, (uint16_t)(unsigned char)s[i]);
    put16(b, off + 2 * n, 0);
    return (n + 1) * 2;
}

static void windows_2003_shape(void **state)
{
    (void)state;
    static const char *procs[3] = {"Idle", "System", "_Total"};
    static const uint32_t pids[3] = {0, 4, 0};
    uint8_t *b = calloc(1, 8192);
    /* header */
    memcpy(b, "P\0E\0R\0F\0", 8);
    put32(b, 8, 1);
    put32(b, 12, 1);
    put32(b, 16, 1);
    put32(b, 24, 112);
    put32(b, 28, 2);
    put32(b, 32, 238);
    put64(b, 64, 3579545);
    put32(b, 80, 22);
    put32(b, 84, 88);
    put_name(b, 88, "BASEWIN2K3");
    /* Process at 112: counter block offsets assigned by hand, 8-byte values
     * at 8-aligned offsets: layout computed in the loop below */
    size_t po = 112, p = po + 64;
    uint32_t off = 8; /* the first 4 bytes after ByteLength left as padding */
    uint32_t offs[27];
    for (int i = 0; i < 27; i++) {
        uint32_t sz = (w2k3_process[i].type & PERF_SIZE_MASK) == PERF_SIZE_LARGE ? 8 : 4;
        if (sz == 8) off = (off + 7) & ~7u;
        offs[i] = off;
        put32(b, p, 40);
        put32(b, p + 4, w2k3_process[i].idx);
        put32(b, p + 12, w2k3_process[i].idx + 1);
        put32(b, p + 24, PERF_DETAIL_NOVICE);
        put32(b, p + 28, w2k3_process[i].type);
        put32(b, p + 32, sz);
        put32(b, p + 36, off);
        off += sz;
        p += 40;
    }
    uint32_t blen = (off + 7) & ~7u;
    assert_int_equal(p - po, 1144);
    for (int k = 0; k < 3; k++) {
        put32(b, p, 40); /* 24 + name (<= 14 bytes) padded to 40 */
        put32(b, p + 12, (uint32_t)-1);
        put32(b, p + 16, 24);
        put32(b, p + 20, (uint32_t)put_name(b, p + 24, procs[k]));
        p += 40;
        put32(b, p, blen);
        put32(b, p + offs[14], pids[k]);           /* ID Process */
        put64(b, p + offs[4], 1000000u * (uint32_t)(k + 1)); /* Virtual Bytes */
        p += blen;
    }
    put32(b, po, (uint32_t)(p - po));
    put32(b, po + 4, 1144);
    put32(b, po + 8, 64);
    put32(b, po + 12, 230);
    put32(b, po + 20, 231);
    put32(b, po + 28, PERF_DETAIL_NOVICE);
    put32(b, po + 32, 27);
    put32(b, po + 36, 0);
    put32(b, po + 40, 3);
    /* Thread at p: ID Thread, 3 threads: System/0, System/1, Idle/0 */
    size_t to = p;
    p = to + 64;
    put32(b, p, 40);
    put32(b, p + 4, 804);
    put32(b, p + 28, PERF_COUNTER_RAWCOUNT);
    put32(b, p + 32, 4);
    put32(b, p + 36, 4);
    p += 40;
    static const uint32_t tparent[3] = {1, 1, 0};
    static const char *tname[3] = {"0", "1", "0"};
    for (int k = 0; k < 3; k++) {
        put32(b, p, 32);
        put32(b, p + 4, 230);
        put32(b, p + 8, tparent[k]);
        put32(b, p + 12, (uint32_t)-1);
        put32(b, p + 16, 24);
        put32(b, p + 20, (uint32_t)put_name(b, p + 24, tname[k]));
        p += 32;
        put32(b, p, 8);
        put32(b, p + 4, 100 + (uint32_t)k);
        p += 8;
    }
    put32(b, to, (uint32_t)(p - to));
    put32(b, to + 4, 104);
    put32(b, to + 8, 64);
    put32(b, to + 12, 232);
    put32(b, to + 32, 1);
    put32(b, to + 40, 3);
    put32(b, 20, (uint32_t)p);

    pl_block blk;
    pl_error err;
    ASSERT_OK(pl_block_open(&blk, b, p, 0, 0, &err));
    assert_string_equal(blk.system_name, "BASEWIN2K3");
    assert_int_equal(blk.hdr.HeaderLength, 112);
    assert_int_equal(blk.hdr.PerfFreq.QuadPart, 3579545);
    pl_object ob;
    ASSERT_OK(pl_block_find_object(&blk, 230, &ob));
    assert_int_equal(ob.hdr.DefinitionLength, 1144);
    assert_int_equal(ob.hdr.NumCounters, 27);
    pl_counter pid, vb;
    ASSERT_OK(pl_object_find_counter(&ob, 784, &pid));
    ASSERT_OK(pl_object_find_counter(&ob, 174, &vb));
    assert_string_equal(pl_type_name(vb.def.CounterType), "PERF_COUNTER_LARGE_RAWCOUNT");
    pl_instance in;
    char nm[32];
    for (int k = 0; k < 3; k++) {
        ASSERT_OK(k == 0 ? pl_object_instance(&ob, 0, &in) : pl_instance_next(&in, &in));
        assert_int_equal(in.def.ByteLength, 40);
        ASSERT_OK(pl_instance_name(&in, nm, sizeof nm));
        assert_string_equal(nm, procs[k]);
        uint64_t v;
        ASSERT_OK(pl_counter_value(&pid, &in, &v));
        assert_int_equal(v, pids[k]);
        ASSERT_OK(pl_counter_value(&vb, &in, &v));
        assert_int_equal(v, 1000000u * (uint32_t)(k + 1));
    }
    pl_object th;
    ASSERT_OK(pl_block_find_object(&blk, 232, &th));
    char **names;
    ASSERT_OK(pl_object_instance_names(&th, &names));
    assert_string_equal(names[0], "System/0");
    assert_string_equal(names[1], "System/1");
    assert_string_equal(names[2], "Idle/0");
    assert_null(names[3]);
    pl_free(names);
    ASSERT_OK(pl_object_instance(&th, 2, &in));
    pl_object po2;
    pl_instance pin;
    ASSERT_OK(pl_instance_parent(&in, &po2, &pin));
    ASSERT_OK(pl_instance_name(&pin, nm, sizeof nm));
    assert_string_equal(nm, "Idle");
    assert_int_equal(pin.obj, &po2);
    walk_all(&blk);
    free(b);
}

static void type_helpers(void **state)
{
    (void)state;
    assert_true(pl_type_is_base(PERF_RAW_BASE));
    assert_true(pl_type_is_base(PERF_SAMPLE_BASE));
    assert_true(pl_type_is_base(PERF_AVERAGE_BASE));
    assert_true(pl_type_is_base(PERF_COUNTER_MULTI_BASE));
    assert_true(pl_type_is_base(PERF_LARGE_RAW_BASE));
    assert_false(pl_type_is_base(PERF_RAW_FRACTION));
    assert_false(pl_type_is_base(PERF_COUNTER_RAWCOUNT));
    assert_false(pl_type_is_base(PERF_COUNTER_HISTOGRAM_TYPE));
    assert_int_equal(pl_type_size(PERF_COUNTER_RAWCOUNT), 4);
    assert_int_equal(pl_type_size(PERF_100NSEC_TIMER), 8);
    assert_int_equal(pl_type_size(PERF_COUNTER_NODATA), 0);
    assert_int_equal(pl_type_size(PERF_COUNTER_TEXT), 0);
    assert_string_equal(pl_type_name(PERF_COUNTER_RAWCOUNT_HEX), "PERF_COUNTER_RAWCOUNT_HEX");
    assert_string_equal(pl_type_name(PERF_PRECISION_TIMESTAMP), "PERF_LARGE_RAW_BASE");
    assert_string_equal(pl_type_name(0x00450400), "PERF_COUNTER_QUEUELEN_TYPE");
    assert_string_equal(pl_type_name(PERF_100NSEC_MULTI_TIMER_INV), "PERF_100NSEC_MULTI_TIMER_INV");
    assert_null(pl_type_name(0x12345678));
    /* every name from the reference table is known, and all are distinct */
    static const uint32_t all[] = {
        PERF_COUNTER_COUNTER, PERF_COUNTER_TIMER, PERF_COUNTER_QUEUELEN_TYPE, PERF_COUNTER_LARGE_QUEUELEN_TYPE,
        PERF_COUNTER_100NS_QUEUELEN_TYPE, PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, PERF_COUNTER_BULK_COUNT,
        PERF_COUNTER_TEXT, PERF_COUNTER_RAWCOUNT, PERF_COUNTER_LARGE_RAWCOUNT, PERF_COUNTER_RAWCOUNT_HEX,
        PERF_COUNTER_LARGE_RAWCOUNT_HEX, PERF_SAMPLE_FRACTION, PERF_SAMPLE_COUNTER, PERF_COUNTER_NODATA,
        PERF_COUNTER_TIMER_INV, PERF_SAMPLE_BASE, PERF_AVERAGE_TIMER, PERF_AVERAGE_BASE, PERF_AVERAGE_BULK,
        PERF_OBJ_TIME_TIMER, PERF_100NSEC_TIMER, PERF_100NSEC_TIMER_INV, PERF_COUNTER_MULTI_TIMER,
        PERF_COUNTER_MULTI_TIMER_INV, PERF_COUNTER_MULTI_BASE, PERF_100NSEC_MULTI_TIMER,
        PERF_100NSEC_MULTI_TIMER_INV, PERF_RAW_FRACTION, PERF_LARGE_RAW_FRACTION, PERF_RAW_BASE,
        PERF_LARGE_RAW_BASE, PERF_ELAPSED_TIME, PERF_COUNTER_HISTOGRAM_TYPE, PERF_COUNTER_DELTA,
        PERF_COUNTER_LARGE_DELTA, PERF_PRECISION_SYSTEM_TIMER, PERF_PRECISION_100NS_TIMER,
        PERF_PRECISION_OBJECT_TIMER,
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        assert_non_null(pl_type_name(all[i]));
        for (size_t j = 0; j < i; j++) assert_string_not_equal(pl_type_name(all[i]), pl_type_name(all[j]));
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ref_block_reads_back),
        cmocka_unit_test(misaligned_trailing_and_bare),
        cmocka_unit_test(bad_truncated_header),
        cmocka_unit_test(bad_signature),
        cmocka_unit_test(bad_little_endian),
        cmocka_unit_test(bad_version),
        cmocka_unit_test(bad_revision),
        cmocka_unit_test(bad_total_gt_len),
        cmocka_unit_test(bad_header_length_small),
        cmocka_unit_test(bad_header_length_big),
        cmocka_unit_test(bad_system_name_range),
        cmocka_unit_test(bad_system_name_odd),
        cmocka_unit_test(bad_num_objects_huge),
        cmocka_unit_test(bad_num_objects_few),
        cmocka_unit_test(bad_num_objects_many),
        cmocka_unit_test(bad_object_total_zero),
        cmocka_unit_test(bad_object_total_past),
        cmocka_unit_test(bad_object_header_length),
        cmocka_unit_test(bad_definition_lt_header),
        cmocka_unit_test(bad_definition_gt_total),
        cmocka_unit_test(bad_num_counters),
        cmocka_unit_test(bad_num_counters_huge),
        cmocka_unit_test(bad_definitions_overlap),
        cmocka_unit_test(bad_definition_past_area),
        cmocka_unit_test(bad_counter_size),
        cmocka_unit_test(bad_counter_size_zero_type),
        cmocka_unit_test(bad_text_size_odd),
        cmocka_unit_test(bad_counter_offset),
        cmocka_unit_test(bad_missing_base),
        cmocka_unit_test(bad_missing_base_last),
        cmocka_unit_test(bad_num_instances_huge),
        cmocka_unit_test(bad_num_instances_negative),
        cmocka_unit_test(bad_num_instances_more),
        cmocka_unit_test(bad_instance_length),
        cmocka_unit_test(bad_instance_length_big),
        cmocka_unit_test(bad_instance_name_offset),
        cmocka_unit_test(bad_instance_name_length),
        cmocka_unit_test(bad_instance_name_in_header),
        cmocka_unit_test(bad_instance_name_odd),
        cmocka_unit_test(bad_block_length_small),
        cmocka_unit_test(bad_block_length_past),
        cmocka_unit_test(bad_block_shorter_than_counters),
        cmocka_unit_test(bad_single_block),
        cmocka_unit_test(bad_total_short),
        cmocka_unit_test(byte_flip_sweep),
        cmocka_unit_test(long_definitions_and_empty_object),
        cmocka_unit_test(windows_2003_shape),
        cmocka_unit_test(type_helpers),
    };
    return pl_test_run(tests, argc, argv);
}
