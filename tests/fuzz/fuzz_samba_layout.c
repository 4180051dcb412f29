/* libFuzzer target for perflib-samba (tools/perflib-samba, docs/samba.md):
 * the index map it reads back from names.tdb, and the layout of any block
 * perflib's reader accepts.
 *
 * Input: two bytes (little-endian) giving the length of a map text, the
 * text, then a block with its PERF_DATA_BLOCK header. The map is parsed
 * (a refusal must say why; an accepted map must format back to the same
 * text); the block, if the reader takes it, is laid out with that map and
 * titles of every awkward kind (long, non-ASCII, empty, missing), and
 * Samba's answer to it, as the model of Samba 4.17's reader
 * (tests/samba/samba_model.c) builds it, must: not overflow Samba's
 * buffers, not fail, pass perflib's reader, and carry the block's values
 * (check_answer). Names and help must be listable by Samba. The map text
 * is also cut as an instance name, alone and split in two as "parent/own"
 * (check_names): valid UTF-8 of at most 255 bytes, the longest such. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/registry.h"
#include "pl_internal.h"
#include "samba_model.h"
#include "sb_layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *title(void *ctx, int kind, uint32_t index)
{
    (void)ctx;
    static char longtext[600];
    if (!longtext[0]) {
        for (size_t i = 0; i < sizeof longtext - 1; i++) longtext[i] = (char)(i % 13 == 12 ? ' ' : 'a' + i % 26);
        longtext[sizeof longtext - 1] = '\0';
    }
    switch ((index + (uint32_t)kind) % 7) {
    case 0: return NULL;
    case 1: return "";
    case 2: return longtext;
    case 3: return "Gr\xc3\xb6\xc3\x9f" "e \xf0\x9f\x98\x80 \x01\t\n";
    case 4: return "% Processor Time";
    case 5: return "\xe2\x82\xac";
    default: return "Available Bytes";
    }
}

static int valid_utf8(const char *s, size_t n)
{
    size_t units;
    return pl__utf8_to_utf16(s, n, NULL, 0, &units) != PL_E_ENCODING;
}

/* sb_cut_utf8 and sb_instance_name on any bytes: what they write is valid
 * UTF-8 of at most SB_VALUE_MAX bytes, and the cut is the longest valid
 * prefix (the next byte or character would be past the limit or broken). */
static void check_names(const char *text, size_t len)
{
    char a[SB_VALUE_MAX * 2 + 2], b[SB_VALUE_MAX * 2 + 2], out[SB_VALUE_MAX + 1];
    if (len > SB_VALUE_MAX * 2) len = SB_VALUE_MAX * 2;
    memcpy(a, text, len);
    a[len] = '\0';
    size_t al = strlen(a), n = sb_cut_utf8(a, al, out);
    if (n > SB_VALUE_MAX || strlen(out) != n || !valid_utf8(out, n) || memcmp(out, a, n) != 0) abort();
    for (size_t k = 1; k <= 4 && n + k <= al && n + k <= SB_VALUE_MAX; k++)
        if (valid_utf8(a, n + k)) abort(); /* a longer valid prefix was left */
    size_t half = al / 2;
    memcpy(b, a + half, al - half + 1);
    a[half] = '\0';
    n = sb_instance_name(a, b, out);
    if (n > SB_VALUE_MAX || strlen(out) != n || !valid_utf8(out, n)) abort();
    /* a valid own name that leaves room for the '/' is kept whole */
    size_t ol = strlen(b);
    if (ol + 1 < SB_VALUE_MAX && valid_utf8(b, ol) &&
        (n < ol + 1 || out[n - ol - 1] != '/' || memcmp(out + n - ol, b, ol) != 0))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    size_t mlen = (size_t)data[0] | (size_t)data[1] << 8;
    if (mlen > size - 2) mlen = size - 2;
    const char *text = (const char *)data + 2;
    check_names(text, mlen);
    sb_map map;
    char why[512];
    why[0] = '\0';
    if (sb_map_parse(text, mlen, &map, why, sizeof why) == 0) {
        size_t flen;
        char *f = sb_map_format(&map, &flen);
        if (!f) abort();
        sb_map again;
        if (sb_map_parse(f, flen, &again, why, sizeof why) != 0 || again.n != map.n ||
            (map.n && memcmp(again.v, map.v, map.n * sizeof *map.v) != 0))
            abort();
        sb_map_free(&again);
        free(f);
    } else if (!why[0] || map.n != 0) {
        abort();
    }
    const uint8_t *blkp = data + 2 + mlen;
    size_t blen = size - 2 - mlen;
    pl_block blk;
    pl_error err;
    if (pl_block_open(&blk, blkp, blen, 0, 0, &err) != PL_OK) {
        sb_map_free(&map);
        return 0;
    }
    sb_layout_cfg cfg = {.dword_size = 8, .title = title};
    sb_recs names = {0}, recs = {0};
    sb_stats st;
    if (sb_layout(&blk, &cfg, &map, &names, &recs, &st, why, sizeof why) != 0) abort();
    uint8_t *ans = NULL, *t = NULL;
    size_t len = 0, tl;
    if (model_global(&names, &recs, 8, "FUZZ", &ans, &len, why, sizeof why) != 0 || len == 0) abort();
    if (check_answer(&blk, &map, 8, ans, len, why, sizeof why) != 0) abort();
    uint32_t hl;
    memcpy(&hl, ans + 24, 4);
    if (st.objects_bytes != len - hl) abort();
    for (int help = 0; help < 2; help++) {
        if (model_titles(&names, help, &t, &tl, why, sizeof why) != 0) abort();
        free(t);
    }
    free(ans);
    sb_recs_free(&names);
    sb_recs_free(&recs);
    sb_map_free(&map);
    return 0;
}
