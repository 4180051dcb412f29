/* perflib-samba's layout (tools/perflib-samba/sb_layout.c) against a model
 * of Samba 4.17's reader (samba_model.c, checked against the real smbd by
 * test_samba_live.c): every snapshot laid out must come back through
 * Samba's rules as a block perflib's reader accepts, with the snapshot's
 * values, names that Samba can list, and numbers that stay put. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/indices.h"
#include "perflib/query.h"
#include "perflib/registry.h"
#include "pl_test.h"
#include "samba_model.h"
#include "sb_layout.h"

#define ASSERT_OK(x) assert_int_equal((x), PL_OK)
#define DW 8 /* sizeof(long) of an amd64 smbd */

/* ------------------------------------------------------------ titles */

static char g_long_help[400];

static const char *titles(void *ctx, int kind, uint32_t index)
{
    (void)ctx;
    static char buf[8][64];
    static int k;
    if (index == 7777) return kind == PL_TITLE_NAME ? "Gr\xc3\xb6\xc3\x9f" "e \xc2\xb5s\tand\nmore" : g_long_help;
    if (index == 7779) return g_long_help;
    if (index == 0 || index == 9999) return NULL;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s %u", kind == PL_TITLE_NAME ? "Name" : "Help", index);
    return buf[k];
}

static sb_layout_cfg cfg(void)
{
    return (sb_layout_cfg){.dword_size = DW, .title = titles};
}

/* ------------------------------------------------------------ blocks */

typedef struct built {
    uint8_t *buf;
    size_t len;
    pl_block blk;
} built;

static void finish(built *x, pl_builder *b)
{
    size_t olen = pl_builder_size(b), used;
    uint32_t n = pl_builder_num_objects(b);
    pl_block_header h = {.perf_time = 123456789, .perf_freq = 10000000, .perf_time_100ns = 134403620784847216LL,
                         .default_object = 238, .system_name = "TESTHOST"};
    size_t hcap = 512;
    x->buf = calloc(1, hcap + olen);
    assert_non_null(x->buf);
    ASSERT_OK(pl_block_write_header(&h, n, olen, x->buf, hcap, &used));
    size_t oused;
    ASSERT_OK(pl_builder_emit(b, x->buf + used, olen, &oused, &n));
    x->len = used + oused;
    pl_builder_free(b);
    pl_error err;
    ASSERT_OK(pl_block_open(&x->blk, x->buf, x->len, 0, 0, &err));
}

/* Lay x out with *map, run the model, check the answer; returns the stats. */
static sb_stats round_trip(const built *x, sb_map *map, sb_recs *names, sb_recs *data)
{
    sb_layout_cfg c = cfg();
    sb_stats st;
    char why[512];
    memset(names, 0, sizeof *names);
    memset(data, 0, sizeof *data);
    int rc = sb_layout(&x->blk, &c, map, names, data, &st, why, sizeof why);
    if (rc != 0) fail_msg("layout: %s", why);
    uint8_t *ans;
    size_t len;
    if (model_global(names, data, DW, "TESTHOST", &ans, &len, why, sizeof why) != 0) fail_msg("model: %s", why);
    if (len == 0) fail_msg("Samba would answer 0 bytes: %s", why);
    if (check_answer(&x->blk, map, DW, ans, len, why, sizeof why) != 0) fail_msg("check: %s", why);
    /* the objects' size the layout predicts is Samba's */
    uint32_t hl;
    memcpy(&hl, ans + 24, 4);
    assert_int_equal(st.objects_bytes, len - hl);
    free(ans);
    uint8_t *t;
    for (int help = 0; help < 2; help++) {
        if (model_titles(names, help, &t, &len, why, sizeof why) != 0) fail_msg("titles: %s", why);
        free(t);
    }
    return st;
}

static void release(sb_recs *names, sb_recs *data, sb_map *map, void *buf)
{
    sb_recs_free(names);
    sb_recs_free(data);
    sb_map_free(map);
    free(buf);
}

static const sb_rec *rec(const sb_recs *r, const char *key)
{
    const sb_rec *x = sb_recs_find(r, key);
    if (!x) fail_msg("no record '%s'", key);
    return x;
}

static uint32_t slot_index(const sb_map *m, char kind, uint32_t obj, uint32_t ctr, uint32_t occ)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].kind == kind && m->v[i].obj == obj && m->v[i].ctr == ctr && m->v[i].occ == occ) return m->v[i].index;
    fail_msg("no slot %c %u %u %u", kind, obj, ctr, occ);
    return 0;
}

static void same_map(const sb_map *a, const sb_map *b)
{
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        assert_int_equal(a->v[i].index, b->v[i].index);
        assert_int_equal(a->v[i].kind, b->v[i].kind);
        assert_int_equal(a->v[i].obj, b->v[i].obj);
        assert_int_equal(a->v[i].ctr, b->v[i].ctr);
        assert_int_equal(a->v[i].occ, b->v[i].occ);
        assert_int_equal(a->v[i].help, b->v[i].help);
    }
}

/* --------------------------------------------------------------- cases */

/* The machine's own Global snapshot, through the build tree's engine. */
static void machine_snapshot_round_trip(void **state)
{
    (void)state;
    pl_engine *e;
    pl_error err;
    ASSERT_OK(pl_engine_open(&(pl_engine_config){0}, &e, &err));
    void *buf;
    size_t len;
    uint32_t type;
    ASSERT_OK(pl_engine_query_alloc(e, "Global", &buf, &len, &type, &err));
    built x = {.buf = buf, .len = len};
    ASSERT_OK(pl_block_open(&x.blk, buf, len, 0, 0, &err));
    sb_map map = {0};
    sb_recs names, data;
    sb_stats st = round_trip(&x, &map, &names, &data);
    assert_true(st.objects >= 10);
    assert_true(st.definitions > 200);
    /* every title Samba lists is ASCII and fits its buffer (model_titles checks) */
    sb_recs_free(&names);
    sb_recs_free(&data);
    /* and again with the map of the first: nothing moves */
    sb_map first = {0};
    first.v = malloc(map.n * sizeof *map.v);
    memcpy(first.v, map.v, map.n * sizeof *map.v);
    first.n = first.cap = map.n;
    st = round_trip(&x, &map, &names, &data);
    assert_int_equal(st.renumbered, 0);
    same_map(&map, &first);
    sb_recs_free(&names);
    sb_recs_free(&data);
    sb_map_free(&map);
    sb_map_free(&first);
    pl_free(buf);
    pl_engine_close(e);
}

/* 32-bit types become their 64-bit twins; the average types take Samba's
 * long; types with no 64-bit form are left out with their base. */
static void dword_types_served_as_large(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int o, c, i;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 2, .help_index = 3}, &o));
    struct {
        uint32_t idx, type, base;
        uint32_t size;
    } defs[] = {
        {10, PERF_COUNTER_RAWCOUNT, 0, 0},     {12, PERF_COUNTER_COUNTER, 0, 0},
        {14, PERF_RAW_FRACTION, PERF_RAW_BASE, 0}, {16, PERF_COUNTER_RAWCOUNT_HEX, 0, 0},
        {18, PERF_COUNTER_QUEUELEN_TYPE, 0, 0}, {20, PERF_COUNTER_DELTA, 0, 0},
        {22, PERF_AVERAGE_TIMER, PERF_AVERAGE_BASE, 0}, {24, PERF_SAMPLE_FRACTION, PERF_SAMPLE_BASE, 0},
        {26, PERF_COUNTER_TEXT, 0, 16},        {28, PERF_AVERAGE_BULK, PERF_AVERAGE_BASE, 8},
        {30, PERF_SAMPLE_COUNTER, 0, 0},       {32, PERF_COUNTER_LARGE_RAWCOUNT, 0, 0},
    };
    for (size_t k = 0; k < sizeof defs / sizeof defs[0]; k++) {
        ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = defs[k].idx, .help_index = defs[k].idx + 1,
                                                                  .type = defs[k].type, .base_type = defs[k].base,
                                                                  .size = defs[k].size}, &c));
        if (defs[k].type == PERF_COUNTER_TEXT) ASSERT_OK(pl_builder_set_text(b, o, -1, c, "text"));
        else ASSERT_OK(pl_builder_set_u64(b, o, -1, c, 1000 + k));
        if (defs[k].base) ASSERT_OK(pl_builder_set_base(b, o, -1, c, 7 + k));
    }
    /* the same with instances */
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 4, .help_index = 5, .has_instances = 1}, &o));
    for (size_t k = 0; k < sizeof defs / sizeof defs[0]; k++)
        ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = defs[k].idx, .help_index = defs[k].idx + 1,
                                                                  .type = defs[k].type, .base_type = defs[k].base,
                                                                  .size = defs[k].size}, &c));
    for (int n = 0; n < 3; n++) {
        char nm[8];
        snprintf(nm, sizeof nm, "i%d", n);
        ASSERT_OK(pl_builder_add_instance(b, o, nm, 0, 0, -1, &i));
        for (size_t k = 0; k < sizeof defs / sizeof defs[0]; k++) {
            if (defs[k].type == PERF_COUNTER_TEXT) continue;
            ASSERT_OK(pl_builder_set_u64(b, o, i, (int)k, (uint64_t)(n * 100 + k)));
            if (defs[k].base) ASSERT_OK(pl_builder_set_base(b, o, i, (int)k, (uint64_t)(n + k + 1)));
        }
    }
    built x;
    finish(&x, b);
    sb_map map = {0};
    sb_recs names, data;
    sb_stats st = round_trip(&x, &map, &names, &data);
    /* per object: SAMPLE_FRACTION + base, TEXT, SAMPLE_COUNTER left out */
    assert_int_equal(st.skipped, 8);
    assert_int_equal(st.definitions, 2 * 12);
    char key[32];
    const struct {
        uint32_t idx;
        char kind;
        uint32_t type;
    } want[] = {{10, 'c', PERF_COUNTER_LARGE_RAWCOUNT}, {12, 'c', PERF_COUNTER_BULK_COUNT},
                {14, 'c', PERF_LARGE_RAW_FRACTION},    {14, 'b', PERF_LARGE_RAW_BASE},
                {16, 'c', PERF_COUNTER_LARGE_RAWCOUNT_HEX}, {18, 'c', PERF_COUNTER_LARGE_QUEUELEN_TYPE},
                {20, 'c', PERF_COUNTER_LARGE_DELTA},   {22, 'c', PERF_AVERAGE_TIMER},
                {22, 'b', PERF_AVERAGE_BASE},          {28, 'c', PERF_AVERAGE_BULK},
                {28, 'b', PERF_AVERAGE_BASE},          {32, 'c', PERF_COUNTER_LARGE_RAWCOUNT}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        snprintf(key, sizeof key, "%utype", slot_index(&map, want[k].kind, 4, want[k].idx, 0));
        const sb_rec *t = rec(&names, key);
        char v[16];
        snprintf(v, sizeof v, "%u", want[k].type);
        assert_int_equal(t->vlen, strlen(v));
        assert_memory_equal(t->val, v, t->vlen);
    }
    /* an instance record: 12 values of 8 bytes, packed */
    snprintf(key, sizeof key, "%ui1", slot_index(&map, 'o', 4, 0, 0));
    assert_int_equal(rec(&data, key)->vlen, 12 * 8);
    release(&names, &data, &map, x.buf);
}

/* Zero is written as the empty text: Samba returns the text "0" as the
 * byte '0' (48), which the model shows too. */
static void zero_is_the_empty_text(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int o, c0, c1;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 2, .help_index = 3}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 10, .type = PERF_COUNTER_LARGE_RAWCOUNT}, &c0));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 12, .type = PERF_COUNTER_RAWCOUNT}, &c1));
    ASSERT_OK(pl_builder_set_u64(b, o, -1, c1, 5));
    built x;
    finish(&x, b);
    sb_map map = {0};
    sb_recs names, data;
    round_trip(&x, &map, &names, &data);
    char key[32];
    snprintf(key, sizeof key, "%u", slot_index(&map, 'c', 2, 10, 0));
    sb_rec *z = (sb_rec *)rec(&data, key);
    assert_int_equal(z->vlen, 0);
    snprintf(key, sizeof key, "%u", slot_index(&map, 'c', 2, 12, 0));
    assert_memory_equal(rec(&data, key)->val, "5", 1);
    /* what "0" would have done */
    free(z->val);
    z->val = (uint8_t *)strdup("0");
    z->vlen = 1;
    uint8_t *ans;
    size_t len;
    char why[256];
    assert_int_equal(model_global(&names, &data, DW, "H", &ans, &len, why, sizeof why), 0);
    pl_block blk;
    pl_error err;
    uint32_t hl;
    memcpy(&hl, ans + 24, 4);
    ASSERT_OK(pl_block_open(&blk, ans + hl, len - hl, PL_BLOCK_BARE, 1, &err));
    pl_object ob;
    pl_counter ct;
    pl_instance in;
    uint64_t v;
    ASSERT_OK(pl_block_object(&blk, 0, &ob));
    ASSERT_OK(pl_object_counter(&ob, 0, &ct));
    ASSERT_OK(pl_object_instance(&ob, -1, &in));
    ASSERT_OK(pl_counter_value(&ct, &in, &v));
    assert_int_equal(v, 48);
    free(ans);
    release(&names, &data, &map, x.buf);
}

/* 64-bit values of objects without instances go through atof(): above
 * 2^53 they are rounded (counted), from 2^63 on they cannot be carried
 * (left out). Instance records carry every value exactly. */
static void large_values(void **state)
{
    (void)state;
    const uint64_t vals[] = {(1ull << 53) + 1, 1ull << 63, UINT64_MAX, 134403620784847217ull, 42};
    pl_builder *b = pl_builder_new();
    int o, c, i;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 2, .help_index = 3}, &o));
    for (int k = 0; k < 5; k++) {
        ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = (uint32_t)(10 + 2 * k),
                                                                  .type = PERF_COUNTER_LARGE_RAWCOUNT}, &c));
        ASSERT_OK(pl_builder_set_u64(b, o, -1, c, vals[k]));
    }
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 4, .help_index = 5, .has_instances = 1}, &o));
    for (int k = 0; k < 5; k++)
        ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = (uint32_t)(10 + 2 * k),
                                                                  .type = PERF_COUNTER_LARGE_RAWCOUNT}, &c));
    ASSERT_OK(pl_builder_add_instance(b, o, "x", 0, 0, -1, &i));
    for (int k = 0; k < 5; k++) ASSERT_OK(pl_builder_set_u64(b, o, i, k, vals[k]));
    built x;
    finish(&x, b);
    sb_map map = {0};
    sb_recs names, data;
    sb_stats st = round_trip(&x, &map, &names, &data);
    assert_int_equal(st.omitted, 2);
    assert_int_equal(st.rounded, 2);
    char key[32];
    snprintf(key, sizeof key, "%u", slot_index(&map, 'c', 2, 12, 0));
    assert_null(sb_recs_find(&data, key));
    snprintf(key, sizeof key, "%urel", slot_index(&map, 'c', 2, 12, 0));
    assert_null(sb_recs_find(&names, key));
    release(&names, &data, &map, x.buf);
}

/* Unavailable values: left out of an object without instances (with their
 * pair, and the marker with them); in an object with instances the marker
 * stays, its bits moved to the served positions. */
static void unavailable_values(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int o, c, i;
    /* positions: 0 text (not served), 1 raw, 2 fraction, 3 its base, 4 raw, 5 marker */
    for (int withinst = 0; withinst < 2; withinst++) {
        ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = withinst ? 4u : 2u, .help_index = 3,
                                                             .has_instances = withinst}, &o));
        ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 10, .type = PERF_COUNTER_TEXT, .size = 8}, &c));
        ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 12, .type = PERF_COUNTER_RAWCOUNT}, &c));
        ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 14, .type = PERF_RAW_FRACTION,
                                                                  .base_type = PERF_RAW_BASE}, &c));
        ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 16, .type = PERF_COUNTER_RAWCOUNT}, &c));
        ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = PL_CTR_UNAVAILABLE_COUNTERS,
                                                                  .type = PERF_COUNTER_LARGE_RAWCOUNT_HEX}, &c));
        int inst = -1;
        const uint64_t masks[3] = {1u << 3, 1u << 5 | 1u << 1, 0};
        for (int n = 0; n < (withinst ? 3 : 1); n++) {
            if (withinst) {
                char nm[8];
                snprintf(nm, sizeof nm, "n%d", n);
                ASSERT_OK(pl_builder_add_instance(b, o, nm, 0, 0, -1, &i));
                inst = i;
            }
            ASSERT_OK(pl_builder_set_u64(b, o, inst, 1, 11));
            ASSERT_OK(pl_builder_set_u64(b, o, inst, 2, 12));
            ASSERT_OK(pl_builder_set_base(b, o, inst, 2, 13));
            ASSERT_OK(pl_builder_set_u64(b, o, inst, 3, 14));
            ASSERT_OK(pl_builder_set_u64(b, o, inst, 4, masks[n]));
        }
    }
    built x;
    finish(&x, b);
    sb_map map = {0};
    sb_recs names, data;
    sb_stats st = round_trip(&x, &map, &names, &data);
    /* no instances, mask bit 3: the fraction and its base left out; the
     * marker is left out too but not counted */
    assert_int_equal(st.omitted, 2);
    char key[32];
    snprintf(key, sizeof key, "%urel", slot_index(&map, 'c', 2, 14, 0));
    assert_null(sb_recs_find(&names, key));
    snprintf(key, sizeof key, "%urel", slot_index(&map, 'c', 2, PL_CTR_UNAVAILABLE_COUNTERS, 0));
    assert_null(sb_recs_find(&names, key));
    /* with instances: served positions 0 raw, 1 fraction, 2 base, 3 raw, 4
     * marker; instance n1's bit 1 (the raw) becomes bit 0 and its bit 5
     * (the marker's own, meaningless) is dropped; instance n0's bit 3 (the
     * base) marks the fraction and its base: bits 1 and 2 */
    uint32_t oi = slot_index(&map, 'o', 4, 0, 0);
    uint64_t m;
    snprintf(key, sizeof key, "%ui0", oi);
    memcpy(&m, rec(&data, key)->val + 4 * 8, 8);
    assert_int_equal(m, (1u << 1) | (1u << 2));
    snprintf(key, sizeof key, "%ui1", oi);
    memcpy(&m, rec(&data, key)->val + 4 * 8, 8);
    assert_int_equal(m, 1u << 0);
    snprintf(key, sizeof key, "%ui2", oi);
    memcpy(&m, rec(&data, key)->val + 4 * 8, 8);
    assert_int_equal(m, 0);
    release(&names, &data, &map, x.buf);
}

/* Samba sends no parent: the instance carries it in its name, as clients
 * print it ("firefox/3"), cut at a character to 255 bytes. */
static void instance_names(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int p, t, c, i;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 230, .help_index = 231, .has_instances = 1}, &p));
    ASSERT_OK(pl_builder_add_counter(b, p, &(pl_counter_desc){.name_index = 784, .type = PERF_COUNTER_RAWCOUNT}, &c));
    char longname[400];
    for (int k = 0; k < 100; k++) memcpy(longname + 3 * k, "\xe2\x82\xac", 3); /* 300 bytes of euro signs */
    longname[300] = '\0';
    ASSERT_OK(pl_builder_add_instance(b, p, "firefox", 0, 0, -1, &i));
    ASSERT_OK(pl_builder_add_instance(b, p, longname, 0, 0, -1, &i));
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 232, .help_index = 233, .has_instances = 1}, &t));
    ASSERT_OK(pl_builder_add_counter(b, t, &(pl_counter_desc){.name_index = 804, .type = PERF_COUNTER_RAWCOUNT}, &c));
    ASSERT_OK(pl_builder_add_instance(b, t, "0", 230, 0, -1, &i));
    ASSERT_OK(pl_builder_add_instance(b, t, "1", 230, 0, -1, &i));
    ASSERT_OK(pl_builder_add_instance(b, t, "0", 230, 1, -1, &i));
    built x;
    finish(&x, b);
    sb_map map = {0};
    sb_recs names, data;
    round_trip(&x, &map, &names, &data);
    char key[32];
    uint32_t th = slot_index(&map, 'o', 232, 0, 0), pr = slot_index(&map, 'o', 230, 0, 0);
    snprintf(key, sizeof key, "%ui1name", th);
    assert_int_equal(rec(&names, key)->vlen, 9);
    assert_memory_equal(rec(&names, key)->val, "firefox/1", 9);
    snprintf(key, sizeof key, "%ui1name", pr);
    assert_int_equal(rec(&names, key)->vlen, 255); /* 85 whole euro signs */
    /* the parent part is shortened, at a character, so that "/0" stays */
    snprintf(key, sizeof key, "%ui2name", th);
    assert_int_equal(rec(&names, key)->vlen, 84 * 3 + 2);
    assert_memory_equal(rec(&names, key)->val + 84 * 3, "/0", 2);
    snprintf(key, sizeof key, "%uinst", th);
    assert_memory_equal(rec(&names, key)->val, "3", 1);
    release(&names, &data, &map, x.buf);
}

/* Names and help texts: printable ASCII only (Samba sizes them by their
 * bytes), at most 255 bytes (its buffer), cut at a word with "...". */
static void titles_ascii_and_short(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof g_long_help - 1; k++) g_long_help[k] = (char)('a' + k % 7);
    for (size_t k = 10; k < sizeof g_long_help - 1; k += 10) g_long_help[k] = ' ';
    g_long_help[sizeof g_long_help - 1] = '\0';
    char out[SB_VALUE_MAX + 1];
    assert_int_equal(sb_ascii_text("Gr\xc3\xb6\xc3\x9f" "e \xc2\xb5s\tand\nmore\x01", out), 18);
    assert_string_equal(out, "Gr??e ?s and more?");
    size_t n = sb_ascii_text(g_long_help, out);
    assert_true(n <= SB_VALUE_MAX);
    assert_string_equal(out + n - 3, "...");
    assert_true(out[n - 4] != ' ');
    assert_int_equal(sb_ascii_text("", out), 0);
    /* a help text of exactly 255 bytes is kept whole */
    g_long_help[255] = '\0';
    assert_int_equal(sb_ascii_text(g_long_help, out), 255);
    assert_string_equal(out, g_long_help);
    g_long_help[255] = 'x';

    pl_builder *b = pl_builder_new();
    int o, c;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 7777, .help_index = 7779}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 9999, .help_index = 9999,
                                                              .type = PERF_COUNTER_RAWCOUNT}, &c));
    built x;
    finish(&x, b);
    sb_map map = {0};
    sb_recs names, data;
    round_trip(&x, &map, &names, &data); /* model_titles checks ASCII and length */
    char key[32];
    snprintf(key, sizeof key, "%u", slot_index(&map, 'o', 7777, 0, 0));
    assert_int_equal(rec(&names, key)->vlen, strlen("Gr??e ?s and more"));
    snprintf(key, sizeof key, "%u", slot_index(&map, 'o', 7777, 0, 0) + 1);
    assert_true(rec(&names, key)->vlen <= 255);
    /* a counter without a name or help: no record (Samba skips it) */
    snprintf(key, sizeof key, "%u", slot_index(&map, 'c', 7777, 9999, 0));
    assert_null(sb_recs_find(&names, key));
    release(&names, &data, &map, x.buf);
}

static void add_plain(pl_builder *b, uint32_t obj, int with_base_on_12, int extra)
{
    int o, c;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = obj, .help_index = obj + 1}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 10, .type = PERF_COUNTER_RAWCOUNT}, &c));
    ASSERT_OK(pl_builder_set_u32(b, o, -1, c, 1));
    if (with_base_on_12) {
        ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 12, .type = PERF_RAW_FRACTION,
                                                                  .base_type = PERF_RAW_BASE}, &c));
        ASSERT_OK(pl_builder_set_base(b, o, -1, c, 4));
    } else {
        ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 12, .type = PERF_COUNTER_RAWCOUNT}, &c));
    }
    ASSERT_OK(pl_builder_set_u32(b, o, -1, c, 2));
    for (int k = 0; k < extra; k++) {
        ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = (uint32_t)(100 + 2 * k),
                                                                  .type = PERF_COUNTER_RAWCOUNT}, &c));
        ASSERT_OK(pl_builder_set_u32(b, o, -1, c, 3));
    }
}

/* The map keeps every index across snapshots and restarts: an object that
 * goes away keeps its slots (and names), and gets them back. */
static void map_is_kept(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    add_plain(b, 2, 0, 0);
    add_plain(b, 4, 0, 0);
    built x1;
    finish(&x1, b);
    b = pl_builder_new();
    add_plain(b, 4, 0, 1); /* 2 went away, 4 gained a counter at the end */
    built x2;
    finish(&x2, b);
    sb_map map = {0};
    sb_recs names, data;
    sb_stats st = round_trip(&x1, &map, &names, &data);
    assert_int_equal(st.renumbered, 0);
    uint32_t o2 = slot_index(&map, 'o', 2, 0, 0), c4 = slot_index(&map, 'c', 4, 12, 0);
    sb_recs_free(&names);
    sb_recs_free(&data);
    st = round_trip(&x2, &map, &names, &data);
    assert_int_equal(st.renumbered, 0);
    assert_int_equal(slot_index(&map, 'o', 2, 0, 0), o2);
    assert_int_equal(slot_index(&map, 'c', 4, 12, 0), c4);
    char key[32];
    snprintf(key, sizeof key, "%u", o2);
    assert_non_null(sb_recs_find(&names, key)); /* its name stays listed */
    snprintf(key, sizeof key, "%urel", o2);
    assert_null(sb_recs_find(&names, key)); /* but it is not served */
    /* a restart reads the map back from names.tdb */
    const sb_rec *mr = rec(&names, SB_MAP_KEY);
    sb_map again;
    char why[200];
    assert_int_equal(sb_map_parse((const char *)mr->val, mr->vlen, &again, why, sizeof why), 0);
    same_map(&again, &map);
    sb_recs_free(&names);
    sb_recs_free(&data);
    st = round_trip(&x1, &again, &names, &data);
    assert_int_equal(st.renumbered, 0);
    assert_int_equal(slot_index(&again, 'o', 2, 0, 0), o2);
    sb_recs_free(&names);
    sb_recs_free(&data);
    sb_map_free(&map);
    sb_map_free(&again);
    free(x1.buf);
    free(x2.buf);
}

/* When the kept numbers cannot give Samba's order (a counter gains a base,
 * which must follow it), the map is built afresh; and it is compacted
 * when slots of vanished objects outnumber the served ones. */
static void map_renumbered(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    add_plain(b, 2, 0, 1);
    built x1;
    finish(&x1, b);
    b = pl_builder_new();
    add_plain(b, 2, 1, 1); /* counter 12 gains a base, and counter 100 follows it */
    built x2;
    finish(&x2, b);
    sb_map map = {0};
    sb_recs names, data;
    round_trip(&x1, &map, &names, &data);
    sb_recs_free(&names);
    sb_recs_free(&data);
    sb_stats st = round_trip(&x2, &map, &names, &data);
    assert_int_equal(st.renumbered, 1);
    sb_recs_free(&names);
    sb_recs_free(&data);
    /* compaction: 200 different objects one after the other */
    int renumbered = 0;
    for (uint32_t k = 0; k < 200; k++) {
        b = pl_builder_new();
        add_plain(b, 1000 + 2 * k, 0, 0);
        built x;
        finish(&x, b);
        st = round_trip(&x, &map, &names, &data);
        renumbered += st.renumbered;
        assert_true(map.n <= 2 * 3 + 256 + 3);
        sb_recs_free(&names);
        sb_recs_free(&data);
        free(x.buf);
    }
    assert_true(renumbered >= 1);
    sb_map_free(&map);
    /* a map read back with a huge index: Samba would walk up to it for
     * every request, so the numbers are made dense again */
    const char *sparse = "perflib-samba map 1\n2 o 2 0 0 3\n4 c 2 10 0 11\n6 c 2 12 0 13\n"
                         "900000000 c 2 100 0 101\n";
    char why[200];
    assert_int_equal(sb_map_parse(sparse, strlen(sparse), &map, why, sizeof why), 0);
    st = round_trip(&x1, &map, &names, &data);
    assert_int_equal(st.renumbered, 1);
    assert_memory_equal(rec(&names, "1")->val, "4", 1); /* four slots: 2..8 */
    assert_int_equal(rec(&names, "1")->vlen, 1);
    sb_recs_free(&names);
    sb_recs_free(&data);
    sb_map_free(&map);
    free(x1.buf);
    free(x2.buf);
}

static void map_parse_refuses(void **state)
{
    (void)state;
    const char *bad[] = {
        "",
        "perflib-samba map 2\n",
        "perflib-samba map 1",
        "perflib-samba map 1\n2 o 2 0 0 3",            /* no line end */
        "perflib-samba map 1\n3 o 2 0 0 3\n",          /* odd index */
        "perflib-samba map 1\n0 o 2 0 0 3\n",
        "perflib-samba map 1\n2 x 2 0 0 3\n",          /* kind */
        "perflib-samba map 1\n2 o 2 5 0 3\n",          /* an object with a counter */
        "perflib-samba map 1\n2 o 2 0 0 3\n2 c 2 10 0 11\n", /* index twice */
        "perflib-samba map 1\n2 o 2 0 0 3\n4 o 2 0 0 3\n",   /* slot twice */
        "perflib-samba map 1\n2 o 2 0 0 3 \n",         /* trailing space */
        "perflib-samba map 1\n2 o 2 0 0\n",            /* a number short */
        "perflib-samba map 1\n2 o 2 0 0 3 4\n",
        "perflib-samba map 1\n2 o 99999999999 0 0 3\n",
        "perflib-samba map 1\n2 o -2 0 0 3\n",
        "perflib-samba map 1\n2147483650 o 2 0 0 3\n", /* beyond SB_INDEX_MAX */
        "perflib-samba map 1\n2 o  2 0 0 3\n",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        sb_map m;
        char why[200] = "";
        if (sb_map_parse(bad[k], strlen(bad[k]), &m, why, sizeof why) != -1) fail_msg("accepted: %s", bad[k]);
        assert_int_equal(m.n, 0);
        assert_true(why[0] != '\0');
    }
    const char *good = "perflib-samba map 1\n2 o 2 0 0 3\n4 c 2 10 0 11\n6 b 2 10 0 11\n8 c 2 10 1 11\n";
    sb_map m;
    char why[200];
    assert_int_equal(sb_map_parse(good, strlen(good), &m, why, sizeof why), 0);
    assert_int_equal(m.n, 4);
    size_t len;
    char *t = sb_map_format(&m, &len);
    assert_int_equal(len, strlen(good));
    assert_memory_equal(t, good, len);
    free(t);
    sb_map_free(&m);
}

/* The model keeps Samba's demands: a counter walked before its object, a
 * counter without its type, an instance without its record: Samba
 * answers Global with 0 bytes. */
static sb_rec *rec_w(sb_recs *r, const char *key)
{
    return (sb_rec *)rec(r, key);
}

static void set_val(sb_rec *r, const char *v)
{
    free(r->val);
    r->val = (uint8_t *)strdup(v);
    r->vlen = strlen(v);
}

static void model_fails_like_samba(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int o, c, i;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 4, .help_index = 5, .has_instances = 1}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 10, .type = PERF_COUNTER_RAWCOUNT}, &c));
    ASSERT_OK(pl_builder_add_instance(b, o, "a", 0, 0, -1, &i));
    built x;
    finish(&x, b);
    sb_map map = {0};
    sb_recs names, data;
    uint8_t *ans;
    size_t len;
    char why[256];
    for (int k = 0; k < 3; k++) {
        round_trip(&x, &map, &names, &data);
        assert_int_equal(slot_index(&map, 'o', 4, 0, 0), 2);
        assert_int_equal(slot_index(&map, 'c', 4, 10, 0), 4);
        if (k == 0) {
            /* the object numbered above its counter: walked too late */
            rec_w(&names, "2rel")->key[0] = '8';
            set_val(rec_w(&names, "4rel"), "c[8]");
            set_val(rec_w(&names, "1"), "4");
        } else if (k == 1) {
            rec_w(&names, "4type")->key[0] = 'X'; /* a counter without its type */
        } else {
            rec_w(&data, "2i0")->key[0] = 'X'; /* an instance without its record */
        }
        assert_int_equal(model_global(&names, &data, DW, "H", &ans, &len, why, sizeof why), 0);
        assert_int_equal(len, 0);
        sb_recs_free(&names);
        sb_recs_free(&data);
    }
    sb_map_free(&map);
    free(x.buf);
}

/* Objects declared with instances that have none, a second copy of an
 * object, an object with nothing Samba can carry. */
static void odd_objects(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    int o, c;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 700, .help_index = 701, .has_instances = 1}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 702, .type = PERF_COUNTER_RAWCOUNT}, &c));
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 2, .help_index = 3}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 10, .type = PERF_COUNTER_RAWCOUNT}, &c));
    ASSERT_OK(pl_builder_set_u32(b, o, -1, c, 9));
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 2, .help_index = 3}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 10, .type = PERF_COUNTER_RAWCOUNT}, &c));
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 6, .help_index = 7}, &o));
    ASSERT_OK(pl_builder_add_counter(b, o, &(pl_counter_desc){.name_index = 10, .type = PERF_COUNTER_TEXT, .size = 8}, &c));
    built x;
    finish(&x, b);
    sb_map map = {0};
    sb_recs names, data;
    sb_stats st = round_trip(&x, &map, &names, &data);
    assert_int_equal(st.objects, 2);
    char key[32];
    snprintf(key, sizeof key, "%uinst", slot_index(&map, 'o', 700, 0, 0));
    assert_memory_equal(rec(&names, key)->val, "0", 1);
    release(&names, &data, &map, x.buf);
}

/* With the bridge stopped: every name still listed, no object served. */
static void withdrawn(void **state)
{
    (void)state;
    pl_builder *b = pl_builder_new();
    add_plain(b, 2, 1, 2);
    built x;
    finish(&x, b);
    sb_map map = {0};
    sb_recs names, data;
    round_trip(&x, &map, &names, &data);
    uint8_t *t1, *t2, *ans;
    size_t l1, l2, len;
    char why[256];
    assert_int_equal(model_titles(&names, 0, &t1, &l1, why, sizeof why), 0);
    sb_recs_free(&names);
    sb_recs_free(&data);
    sb_layout_cfg c = cfg();
    memset(&names, 0, sizeof names);
    memset(&data, 0, sizeof data);
    assert_int_equal(sb_layout_withdrawn(&map, &c, &names, &data, why, sizeof why), 0);
    assert_int_equal(model_titles(&names, 0, &t2, &l2, why, sizeof why), 0);
    assert_int_equal(l1, l2);
    assert_memory_equal(t1, t2, l1);
    assert_int_equal(model_global(&names, &data, DW, "H", &ans, &len, why, sizeof why), 0);
    uint32_t nobj;
    memcpy(&nobj, ans + 28, 4);
    assert_int_equal(nobj, 0);
    free(t1);
    free(t2);
    free(ans);
    release(&names, &data, &map, x.buf);
}

static void served_types(void **state)
{
    (void)state;
    size_t size;
    assert_int_equal(sb_served_type(PERF_COUNTER_HISTOGRAM_TYPE, 8, &size), 0);
    assert_int_equal(sb_served_type(PERF_COUNTER_NODATA, 8, &size), 0);
    assert_int_equal(sb_served_type(PERF_COUNTER_TEXT | PERF_TEXT_ASCII, 8, &size), 0);
    assert_int_equal(sb_served_type(PERF_100NSEC_TIMER, 8, &size), PERF_100NSEC_TIMER);
    assert_int_equal(size, 8);
    assert_int_equal(sb_served_type(PERF_AVERAGE_BASE, 4, &size), PERF_AVERAGE_BASE);
    assert_int_equal(size, 4);
    assert_true(sb_type_needs_object_time(PERF_ELAPSED_TIME));
    assert_true(sb_type_needs_object_time(PERF_OBJ_TIME_TIMER));
    assert_true(sb_type_needs_object_time(PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE));
    assert_false(sb_type_needs_object_time(PERF_PRECISION_OBJECT_TIMER));
    assert_false(sb_type_needs_object_time(PERF_100NSEC_TIMER));
    assert_false(sb_type_needs_object_time(PERF_COUNTER_BULK_COUNT));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(machine_snapshot_round_trip),
        cmocka_unit_test(dword_types_served_as_large),
        cmocka_unit_test(zero_is_the_empty_text),
        cmocka_unit_test(large_values),
        cmocka_unit_test(unavailable_values),
        cmocka_unit_test(instance_names),
        cmocka_unit_test(titles_ascii_and_short),
        cmocka_unit_test(map_is_kept),
        cmocka_unit_test(map_renumbered),
        cmocka_unit_test(map_parse_refuses),
        cmocka_unit_test(model_fails_like_samba),
        cmocka_unit_test(odd_objects),
        cmocka_unit_test(withdrawn),
        cmocka_unit_test(served_types),
    };
    return pl_test_run(tests, argc, argv);
}
