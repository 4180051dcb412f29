/* libFuzzer target for the block reader.
 *
 * The input is tried twice: whole, as a block with a PERF_DATA_BLOCK header;
 * and, after its first byte (the object count), as a bare object sequence.
 * A header-mode success is also re-opened in bare mode on its object area.
 * Whatever opens is walked completely: every object, counter, instance,
 * value, base, text, name, parent and the full-name list; the O(1) steps
 * (pl_object_next, pl_counter_next) must agree with lookups by position. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/block.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(void)
{
    abort(); /* a validated block failed to walk: a reader bug */
}

static void walk(const pl_block *blk)
{
    pl_object step;
    int src = blk->num_objects ? pl_block_object(blk, 0, &step) : PL_E_NOT_FOUND;
    for (uint32_t i = 0; i < blk->num_objects; i++) {
        pl_object ob;
        if (pl_block_object(blk, i, &ob) != PL_OK) die();
        if (src != PL_OK || step.off != ob.off || step.position != i) die();
        src = pl_object_next(&step, &step);
        if (src != (i + 1 < blk->num_objects ? PL_OK : PL_E_NOT_FOUND)) die();
        pl_object found;
        if (pl_block_find_object(blk, ob.hdr.ObjectNameTitleIndex, &found) != PL_OK) die();
        char **names = NULL;
        uint32_t ni = pl_object_num_instances(&ob);
        int nrc = pl_object_instance_names(&ob, &names);
        if (nrc == PL_OK) {
            for (uint32_t k = 0; k < ni; k++)
                if (!names[k]) die();
            if (names[ni]) die();
            pl_free(names);
        } else if (nrc != PL_E_RANGE && nrc != PL_E_NOMEM) {
            die();
        }
        pl_counter cstep;
        int crc = ob.hdr.NumCounters ? pl_object_counter(&ob, 0, &cstep) : PL_E_NOT_FOUND;
        for (uint32_t c = 0; c < ob.hdr.NumCounters; c++) {
            pl_counter ct;
            if (pl_object_counter(&ob, c, &ct) != PL_OK) die();
            if (crc != PL_OK || cstep.off != ct.off || cstep.has_base != ct.has_base) die();
            crc = pl_counter_next(&cstep, &cstep);
            if (crc != (c + 1 < ob.hdr.NumCounters ? PL_OK : PL_E_NOT_FOUND)) die();
            pl_counter byidx;
            int rc = pl_object_find_counter(&ob, ct.def.CounterNameTitleIndex, &byidx);
            if (rc != PL_OK && rc != PL_E_NOT_FOUND) die();
            (void)pl_type_name(ct.def.CounterType);
        }
        pl_instance in;
        int rc = ni ? pl_object_instance(&ob, 0, &in) : pl_object_instance(&ob, -1, &in);
        if (ni && rc != PL_OK) die();
        uint32_t seen = 0;
        while (rc == PL_OK) {
            seen++;
            char s[64];
            pl_instance_name(&in, s, sizeof s);
            pl_object po;
            pl_instance pi;
            if (pl_instance_parent(&in, &po, &pi) == PL_OK) pl_instance_name(&pi, s, sizeof s);
            for (uint32_t c = 0; c < ob.hdr.NumCounters; c++) {
                pl_counter ct;
                uint64_t v;
                if (pl_object_counter(&ob, c, &ct) != PL_OK) die();
                int r = pl_counter_value(&ct, &in, &v);
                if (r != PL_OK && r != PL_E_INVAL) die();
                pl_counter_base(&ct, &in, &v);
                pl_counter_text(&ct, &in, s, sizeof s);
                int av = pl_counter_available(&ct, &in);
                if (av != 0 && av != 1) die();
            }
            if (in.position < 0) break;
            rc = pl_instance_next(&in, &in);
            if (rc != PL_OK && rc != PL_E_NOT_FOUND) die();
        }
        if (ni && seen != ni) die();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pl_block blk;
    pl_error err;
    /* Copy so that reads past the input are caught exactly (libFuzzer's own
     * buffer is already exact, this keeps the target correct elsewhere). */
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    if (size) memcpy(copy, data, size);
    if (pl_block_open(&blk, copy, size, 0, 0, &err) == PL_OK) {
        walk(&blk);
        pl_block bare;
        size_t hl = blk.hdr.HeaderLength, tl = blk.hdr.TotalByteLength;
        if (pl_block_open(&bare, copy + hl, tl - hl, PL_BLOCK_BARE, blk.num_objects, &err) != PL_OK) die();
        walk(&bare);
    }
    if (size >= 1 && pl_block_open(&blk, copy + 1, size - 1, PL_BLOCK_BARE, data[0], &err) == PL_OK) walk(&blk);
    free(copy);
    return 0;
}
