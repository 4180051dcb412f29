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
#include "pl_internal.h" /* pl__utf8_to_utf16: perflib's decoder, the checker of cut names */
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
    char why[256];
    if (model_block(b, &x->buf, &x->len, &x->blk, why, sizeof why) != 0) fail_msg("block: %s", why);
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

/* ------------------------------------------- instance names cut at the limit */

/* Samba copies at most 255 bytes of an instance name and converts them
 * with rpcstr_push_talloc, which fails the whole answer on a cut or broken
 * UTF-8 sequence (_reg_perfcount_get_instance_info): every name the layout
 * writes must be valid UTF-8 of at most SB_VALUE_MAX bytes, and the longest
 * such prefix. These checks judge by perflib's own decoder (and by lengths
 * worked out by hand), not by the code under test. */

#define C2 "\xc3\xa9"         /* U+00E9, 2 bytes, 1 UTF-16 unit */
#define C3 "\xe2\x82\xac"     /* U+20AC, 3 bytes, 1 unit */
#define C4 "\xf0\x9f\x98\x80" /* U+1F600, 4 bytes, 2 units */
static const char *const g_chars[5] = {NULL, NULL, C2, C3, C4};

static int valid_utf8(const char *s, size_t n, size_t *units)
{
    size_t u = 0;
    int ok = pl__utf8_to_utf16(s, n, NULL, 0, &u) != PL_E_ENCODING;
    if (units) *units = u;
    return ok;
}

/* The longest prefix of s[0, n), at most max bytes, that is valid UTF-8:
 * every length tried, longest first. */
static size_t longest_valid(const char *s, size_t n, size_t max)
{
    size_t k = n < max ? n : max;
    while (k > 0 && !valid_utf8(s, k, NULL)) k--;
    return k;
}

/* s = `a` times 'a', then text, then `z` times 'z'; returns its length. */
static size_t spell(char *s, size_t a, const char *text, size_t z)
{
    memset(s, 'a', a);
    size_t n = a, t = strlen(text);
    memcpy(s + n, text, t);
    n += t;
    memset(s + n, 'z', z);
    n += z;
    s[n] = '\0';
    return n;
}

/* count copies of text in s; returns the length. */
static size_t repeat(char *s, const char *text, size_t count)
{
    size_t t = strlen(text);
    for (size_t i = 0; i < count; i++) memcpy(s + i * t, text, t);
    s[count * t] = '\0';
    return count * t;
}

/* A cut of from[0, from_len): got_len == strlen(got), at most 255 bytes,
 * valid UTF-8, a prefix of from, the longest valid one, and `want` bytes. */
static void check_cut(const char *what, const char *from, size_t from_len, const char *got, size_t got_len, size_t want)
{
    if (got_len != strlen(got)) fail_msg("%s: length %zu returned, %zu written", what, got_len, strlen(got));
    if (got_len > SB_VALUE_MAX) fail_msg("%s: %zu bytes, Samba keeps %u", what, got_len, SB_VALUE_MAX);
    if (!valid_utf8(got, got_len, NULL))
        fail_msg("%s: %zu bytes, not valid UTF-8 (Samba fails the answer)", what, got_len);
    if (got_len > from_len || memcmp(got, from, got_len) != 0) fail_msg("%s: not a prefix of the name", what);
    size_t best = longest_valid(from, from_len, SB_VALUE_MAX);
    if (got_len != best) fail_msg("%s: %zu bytes kept, the longest valid prefix is %zu", what, got_len, best);
    if (got_len != want) fail_msg("%s: %zu bytes kept, %zu expected", what, got_len, want);
}

/* sb_cut_utf8 on name, expecting want bytes. */
static void cut_expect(const char *what, const char *name, size_t len, size_t want)
{
    char out[SB_VALUE_MAX + 1];
    memset(out, 0x55, sizeof out);
    size_t n = sb_cut_utf8(name, len, out);
    check_cut(what, name, len, out, n, want);
}

/* A 2-, 3- or 4-byte character at every position around the limit: cut
 * when it would end past byte 255, kept whole when it ends at or before. */
static void cut_inside_a_character(void **state)
{
    (void)state;
    char name[600], what[64];
    for (size_t L = 2; L <= 4; L++) {
        /* from "ends two bytes early" through "starts on the last byte" */
        for (size_t start = SB_VALUE_MAX - L - 1; start < SB_VALUE_MAX; start++) {
            size_t len = spell(name, start, g_chars[L], 30);
            int fits = start + L <= SB_VALUE_MAX;
            snprintf(what, sizeof what, "%zu-byte character at byte %zu", L, start);
            cut_expect(what, name, len, fits ? SB_VALUE_MAX : start); /* the 'z's fill up */
        }
        /* the name ends with the character exactly at the limit, and one
         * byte past it */
        size_t len = spell(name, SB_VALUE_MAX - L, g_chars[L], 0);
        cut_expect("a name of exactly 255 bytes", name, len, SB_VALUE_MAX);
        len = spell(name, SB_VALUE_MAX - L + 1, g_chars[L], 0);
        cut_expect("a name of 256 bytes ending in a character", name, len, SB_VALUE_MAX - L + 1);
    }
    /* short names are not touched */
    cut_expect("a short name", "firefox " C2 C3 C4, strlen("firefox " C2 C3 C4), strlen("firefox " C2 C3 C4));
    cut_expect("the empty name", "", 0, 0);
}

/* Names of nothing but multi-byte characters, some after one to three
 * ASCII bytes so that the limit falls at each offset in a character. */
static void cut_all_multibyte(void **state)
{
    (void)state;
    char name[1200], what[64];
    size_t len = repeat(name, C2, 200);
    cut_expect("400 bytes of 2-byte characters", name, len, 254);
    len = repeat(name, C3, 100);
    cut_expect("300 bytes of 3-byte characters", name, len, 255);
    len = repeat(name, C4, 70);
    cut_expect("280 bytes of 4-byte characters", name, len, 252);
    /* after k ASCII bytes: the characters that fit, whole */
    for (size_t L = 2; L <= 4; L++)
        for (size_t k = 1; k < L; k++) {
            memset(name, 'a', k);
            len = k + repeat(name + k, g_chars[L], 400 / L);
            snprintf(what, sizeof what, "%zu ASCII, then %zu-byte characters", k, L);
            cut_expect(what, name, len, k + (SB_VALUE_MAX - k) / L * L);
        }
    /* 2-, 3- and 4-byte characters in turn: 9 bytes a round, 28 rounds
     * are 252 bytes; the next 2-byte character ends at 254, the 3-byte
     * one after it would end at 257 */
    len = 0;
    for (int r = 0; r < 40; r++) len += repeat(name + len, C2 C3 C4, 1);
    cut_expect("mixed 2-, 3- and 4-byte characters", name, len, 254);
    size_t units;
    assert_true(valid_utf8(name, 254, &units));
    assert_int_equal(units, 28 * 4 + 1); /* each round: 1 + 1 + 2 units */
}

/* Broken UTF-8 at (or before) the limit: what Samba's conversion would fail
 * on is left out, and what is before it kept. perflib's reader always gives
 * valid UTF-8 (pl_instance_name makes lone surrogates U+FFFD); the cut does
 * not count on it. */
static void cut_invalid_utf8(void **state)
{
    (void)state;
    /* `before` valid bytes, the broken bytes, 'z's: `before` kept */
    static const struct {
        size_t before;
        const char *bad, *what;
    } cases[] = {
        {254, "\xe2", "a lead byte without its continuation at byte 254"},
        {253, "\xe2\x82", "a 3-byte sequence missing its last byte at 253"},
        {252, "\xf0\x9f\x98", "a 4-byte sequence missing its last byte at 252"},
        {250, "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80", "stray continuation bytes from byte 250"},
        {252, "\xed\xa0\x80", "a UTF-16 surrogate encoded at byte 252"},
        {251, "\xf5\x80\x80\x80", "a code point past U+10FFFF at byte 251"},
        {253, "\xc0\xaf", "an overlong '/' at byte 253"},
        {10, "\xff", "a 0xFF byte at byte 10 of a long name"},
    };
    char name[600];
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        size_t len = spell(name, cases[k].before, cases[k].bad, 300);
        cut_expect(cases[k].what, name, len, cases[k].before);
    }
    cut_expect("a short name ending in a cut character", "ab\xe2\x82", 4, 2);
}

/* sb_instance_name(parent, own): "parent/own", the parent shortened, at a
 * character, to the room own leaves. */
static void join_expect(const char *what, const char *parent, const char *own, size_t want_parent)
{
    char out[SB_VALUE_MAX + 1], from[2400];
    memset(out, 0x55, sizeof out);
    size_t n = sb_instance_name(parent, own, out), ol = strlen(own);
    size_t room = SB_VALUE_MAX - 1 - ol;
    /* what must come out: the longest valid part of the parent that fits
     * the room, '/', the own name */
    size_t keep = longest_valid(parent, strlen(parent), room);
    if (keep != want_parent)
        fail_msg("%s: the checker keeps %zu bytes of the parent, %zu expected", what, keep, want_parent);
    memcpy(from, parent, keep);
    from[keep] = '/';
    memcpy(from + keep + 1, own, ol + 1);
    check_cut(what, from, keep + 1 + ol, out, n, keep + 1 + ol);
}

/* The parent is cut where the room left by the instance's own name falls
 * inside one of its characters, at every offset in one. */
static void join_cut_in_the_parent(void **state)
{
    (void)state;
    char parent[600], own[300], what[96];
    static const char *const owns[] = {"0", "12345", C2 C3 C4 "x"};
    for (size_t o = 0; o < sizeof owns / sizeof *owns; o++) {
        size_t room = SB_VALUE_MAX - 1 - strlen(owns[o]);
        for (size_t L = 2; L <= 4; L++)
            for (size_t start = room - L - 1; start < room; start++) {
                spell(parent, start, g_chars[L], 40);
                snprintf(what, sizeof what, "own '%s', %zu-byte character of the parent at %zu (room %zu)", owns[o], L,
                         start, room);
                join_expect(what, parent, owns[o], start + L <= room ? room : start); /* 'z's fill up */
            }
    }
    /* a parent of nothing but 4-byte characters */
    repeat(parent, C4, 80);
    join_expect("a parent of 4-byte characters, own '0'", parent, "0", 252);
    join_expect("a parent of 4-byte characters, own '12'", parent, "12", 252);
    join_expect("a parent of 4-byte characters, own '123'", parent, "123", 248);
    /* room for one byte only: a parent that starts with a 2-byte character
     * is left out whole, the own name and its '/' stay */
    memset(own, 'o', 253);
    own[253] = '\0';
    join_expect("room for one byte, a 2-byte character", C2 C2 C2, own, 0);
    join_expect("room for one byte, ASCII", "ab", own, 1);
    /* broken UTF-8 in the parent where the room ends: left out */
    spell(parent, 252, "\xe2", 20);
    join_expect("a lead byte alone at the room's last byte", parent, "0", 252);
    spell(parent, 251, "\xe2\x82", 20);
    join_expect("a cut 3-byte sequence at the room's end", parent, "0", 251);
}

/* An own name that leaves no room for the parent (254 bytes or more):
 * "parent/own" is cut at 255, inside a character of the own name. */
static void join_cut_in_the_instance(void **state)
{
    (void)state;
    char own[600], from[1200], out[SB_VALUE_MAX + 1], what[96];
    const char *parent = "firefox";
    size_t pl = strlen(parent);
    for (size_t L = 2; L <= 4; L++)
        for (size_t start = SB_VALUE_MAX - L - 1; start < SB_VALUE_MAX; start++) {
            /* the character at byte `start` of "firefox/own" */
            size_t ol = spell(own, start - pl - 1, g_chars[L], 300);
            snprintf(from, sizeof from, "%s/%s", parent, own);
            size_t n = sb_instance_name(parent, own, out);
            snprintf(what, sizeof what, "%zu-byte character of the instance at %zu", L, start);
            check_cut(what, from, pl + 1 + ol, out, n, start + L <= SB_VALUE_MAX ? SB_VALUE_MAX : start);
        }
    /* own names of 2-byte characters only, from 254 bytes on */
    size_t ol = repeat(own, C2, 127);
    snprintf(from, sizeof from, "%s/%s", parent, own);
    check_cut("a 254-byte own name of 2-byte characters", from, pl + 1 + ol, out, sb_instance_name(parent, own, out),
              8 + 246);
    ol = repeat(own, C4, 70);
    snprintf(from, sizeof from, "%s/%s", parent, own);
    check_cut("an own name of 4-byte characters", from, pl + 1 + ol, out, sb_instance_name(parent, own, out), 8 + 244);
    /* a parent longer than the limit too: the cut falls in the parent,
     * at a character, and nothing of the own name is left */
    char longp[400];
    repeat(longp, C2, 150);
    ol = repeat(own, C3, 100);
    snprintf(from, sizeof from, "%s/%s", longp, own);
    check_cut("parent and own both past the limit", from, 300 + 1 + ol, out, sb_instance_name(longp, own, out), 254);
    /* broken UTF-8 in a short own name: cut where it breaks */
    check_cut("a short own name ending in a cut character", "firefox/ab", 10, out,
              sb_instance_name(parent, "ab\xe2\x82", out), 10);
}

/* Through the layout: each cut name is what names.tdb holds for its
 * instance (bytes and length), Samba's answer (the model's) carries it as
 * UTF-16 of the units counted here, and the layout's prediction of the
 * answer's size, which counts those units, is the answer's. */
static void cut_names_in_the_layout(void **state)
{
    (void)state;
    enum { NP = 7, NT = 4 };
    char pn[NP][600], tn[NT][400];
    size_t pwant[NP], twant[NT];
    const char *tparent_own[NT];
    for (size_t L = 2; L <= 4; L++) { /* a character from byte 256 - L: cut */
        spell(pn[L - 2], 256 - L, g_chars[L], 3);
        pwant[L - 2] = 256 - L;
    }
    repeat(pn[3], C4, 70);
    pwant[3] = 252;
    repeat(pn[4], C2, 200);
    pwant[4] = 254;
    repeat(pn[5], C3, 100);
    pwant[5] = 255;
    spell(pn[6], 248, C3, 20); /* the parent of thread "12345": room 249 */
    pwant[6] = 255;
    /* threads: own name and its parent process (position in pn) */
    static const size_t tparent[NT] = {3, 6, 4, 4};
    tparent_own[0] = "0";
    twant[0] = 252 + 2;          /* 63 4-byte characters of the parent, "/0" */
    tparent_own[1] = "12345";
    twant[1] = 248 + 1 + 5;      /* the 3-byte character at 248 is cut */
    repeat(tn[2], C3, 90);        /* an own name of 270 bytes */
    tparent_own[2] = tn[2];
    twant[2] = 254;              /* the parent alone fills the limit: its 127 characters */
    tparent_own[3] = "xyz";
    twant[3] = 250 + 1 + 3;      /* room 251 falls inside the parent's 126th character */

    pl_builder *b = pl_builder_new();
    int p, t, c, i;
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 230, .help_index = 231, .has_instances = 1}, &p));
    ASSERT_OK(pl_builder_add_counter(b, p, &(pl_counter_desc){.name_index = 784, .type = PERF_COUNTER_RAWCOUNT}, &c));
    for (int k = 0; k < NP; k++) ASSERT_OK(pl_builder_add_instance(b, p, pn[k], 0, 0, -1, &i));
    ASSERT_OK(pl_builder_add_object(b, &(pl_object_desc){.name_index = 232, .help_index = 233, .has_instances = 1}, &t));
    ASSERT_OK(pl_builder_add_counter(b, t, &(pl_counter_desc){.name_index = 804, .type = PERF_COUNTER_RAWCOUNT}, &c));
    for (int k = 0; k < NT; k++)
        ASSERT_OK(pl_builder_add_instance(b, t, tparent_own[k], 230, (uint32_t)tparent[k], -1, &i));
    built x;
    finish(&x, b);
    sb_map map = {0};
    sb_recs names, data;
    round_trip(&x, &map, &names, &data); /* the model fails an answer with a broken name */
    uint32_t pr = slot_index(&map, 'o', 230, 0, 0), th = slot_index(&map, 'o', 232, 0, 0);

    /* the expected names, built here */
    char want[NP + NT][SB_VALUE_MAX + 1];
    for (int k = 0; k < NP; k++) {
        memcpy(want[k], pn[k], pwant[k]);
        want[k][pwant[k]] = '\0';
    }
    for (int k = 0; k < NT; k++) {
        const char *par = pn[tparent[k]], *own = tparent_own[k];
        size_t ol = strlen(own), keep = twant[k] - 1 - ol;
        char *w = want[NP + k];
        if (k == 2) {
            /* parent and own name past the limit: "parent/own" cut at 255,
             * in the parent: its 127 characters, no '/' */
            memcpy(w, par, 254);
            w[254] = '\0';
            continue;
        }
        memcpy(w, par, keep);
        w[keep] = '/';
        memcpy(w + keep + 1, own, ol + 1);
    }
    char key[48];
    for (int k = 0; k < NP + NT; k++) {
        int is_t = k >= NP;
        snprintf(key, sizeof key, "%ui%dname", is_t ? th : pr, is_t ? k - NP : k);
        const sb_rec *r = rec(&names, key);
        size_t wl = strlen(want[k]);
        if (r->vlen != wl || memcmp(r->val, want[k], wl) != 0)
            fail_msg("%s: %zu bytes written, %zu expected", key, r->vlen, wl);
        assert_int_equal(wl, is_t ? twant[k - NP] : pwant[k]);
        assert_true(valid_utf8(want[k], wl, NULL));
    }
    /* Samba's answer: every name, and NameLength = its UTF-16 units + 1, in bytes */
    uint8_t *ans;
    size_t len;
    char why[256];
    if (model_global(&names, &data, DW, "TESTHOST", &ans, &len, why, sizeof why) != 0 || len == 0)
        fail_msg("model: %s", why);
    uint32_t hl;
    memcpy(&hl, ans + 24, 4);
    pl_block objs;
    pl_error err;
    ASSERT_OK(pl_block_open(&objs, ans + hl, len - hl, PL_BLOCK_BARE, 2, &err));
    pl_object o;
    int k = 0;
    for (int orc = pl_block_object(&objs, 0, &o); orc == PL_OK; orc = pl_object_next(&o, &o)) {
        pl_instance in;
        for (int r = pl_object_instance(&o, 0, &in); r == PL_OK; r = pl_instance_next(&in, &in), k++) {
            char got[1024];
            ASSERT_OK(pl_instance_name(&in, got, sizeof got));
            assert_string_equal(got, want[k]);
            size_t units;
            assert_true(valid_utf8(want[k], strlen(want[k]), &units));
            assert_int_equal(in.def.NameLength, 2 * (units + 1));
        }
    }
    assert_int_equal(k, NP + NT);
    /* the units counted by hand for the 4-byte names: 63 characters are
     * 126 units, and with "/0" 128 */
    ASSERT_OK(pl_block_object(&objs, 0, &o));
    pl_instance in;
    ASSERT_OK(pl_object_instance(&o, 3, &in));
    assert_int_equal(in.def.NameLength, 2 * (126 + 1));
    ASSERT_OK(pl_object_next(&o, &o));
    ASSERT_OK(pl_object_instance(&o, 0, &in));
    assert_int_equal(in.def.NameLength, 2 * (128 + 1));
    free(ans);
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
        cmocka_unit_test(cut_inside_a_character),
        cmocka_unit_test(cut_all_multibyte),
        cmocka_unit_test(cut_invalid_utf8),
        cmocka_unit_test(join_cut_in_the_parent),
        cmocka_unit_test(join_cut_in_the_instance),
        cmocka_unit_test(cut_names_in_the_layout),
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
