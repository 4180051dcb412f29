/* perflib: the reader of application segments (app_internal.h).
 *
 * A segment is written by another process that may be buggy or hostile,
 * and it may change while it is read. So: the fixed part is copied once
 * into private memory and validated there (every count against its limit,
 * every offset and length against the segment's size, with 64-bit
 * arithmetic that cannot overflow), and only that copy is used afterwards;
 * a slot is read whole under its seqlock into private memory and checked
 * again (name terminated, UTF-8, no control characters) before anything
 * uses it. A slot that stays busy is skipped this time: a reader never
 * waits for a writer. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_internal.h"
#include "perflib/winperf.h"
#include "pl_internal.h"

#define SLOT_TRIES 16

#ifdef PL_TEST_HOOKS
void (*pl__seg_read_hook)(uint32_t o, uint32_t slot);
#define PL__SEG_READ_HOOK(o, slot)                            \
    do {                                                      \
        if (pl__seg_read_hook) pl__seg_read_hook(o, slot);    \
    } while (0)
#else
#define PL__SEG_READ_HOOK(o, slot) ((void)0)
#endif

int pl__app_type_ok(uint32_t type)
{
    switch (type) {
    case PERF_COUNTER_RAWCOUNT:
    case PERF_COUNTER_RAWCOUNT_HEX:
    case PERF_COUNTER_LARGE_RAWCOUNT:
    case PERF_COUNTER_LARGE_RAWCOUNT_HEX:
    case PERF_COUNTER_COUNTER:
    case PERF_COUNTER_BULK_COUNT:
    case PERF_COUNTER_DELTA:
    case PERF_COUNTER_LARGE_DELTA:
        return 1;
    default:
        return 0;
    }
}

static uint64_t ld(const uint8_t *map, uint64_t off)
{
    return atomic_load_explicit((const _Atomic uint64_t *)(const void *)(map + off), memory_order_relaxed);
}

/* Copy n bytes (a multiple of 8, 8-aligned) of shared memory word by word. */
static void copy_words(uint8_t *dst, const uint8_t *map, uint64_t off, size_t n)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = ld(map, off + i);
        memcpy(dst + i, &w, 8);
    }
}

static int detail_ok(uint32_t d)
{
    return d == PERF_DETAIL_NOVICE || d == PERF_DETAIL_ADVANCED || d == PERF_DETAIL_EXPERT || d == PERF_DETAIL_WIZARD;
}

/* off + n <= size, without overflow. */
static int fits(uint64_t off, uint64_t n, uint64_t size) { return off <= size && n <= size - off; }

int pl__seg_layout_read(const void *mapv, size_t len, pl__seg_layout *lay, pl_error *err)
{
    const uint8_t *map = mapv;
    if (((uintptr_t)map & 7u) != 0) return pl__fail(err, PL_E_INVAL, "segment: mapping not 8-byte aligned");
    uint64_t have = (uint64_t)len & ~(uint64_t)7;
    if (have < PL__SEG_HEADER)
        return pl__fail(err, PL_E_BAD_BLOCK, "segment: %zu bytes, shorter than its %u-byte header", len,
                        PL__SEG_HEADER);
    uint8_t h[PL__SEG_HEADER];
    copy_words(h, map, 0, sizeof h);
    if (memcmp(h + SEG_MAGIC, PL__SEG_MAGIC, 8) != 0) return pl__fail(err, PL_E_BAD_BLOCK, "segment: bad magic");
    if (pl__rd32(h + SEG_VERSION) != PL__SEG_VERSION)
        return pl__fail(err, PL_E_BAD_BLOCK, "segment: version %u, expected %u", pl__rd32(h + SEG_VERSION),
                        PL__SEG_VERSION);
    if (pl__rd32(h + SEG_HEADER_LEN) != PL__SEG_HEADER)
        return pl__fail(err, PL_E_BAD_BLOCK, "segment: header length %u", pl__rd32(h + SEG_HEADER_LEN));
    uint64_t size = pl__rd64(h + SEG_SIZE);
    if (size < PL__SEG_HEADER || size > have || size > PL__SEG_MAX_BYTES)
        return pl__fail(err, PL_E_BAD_BLOCK, "segment: size %llu with %llu bytes mapped", (unsigned long long)size,
                        (unsigned long long)have);
    memset(lay, 0, sizeof *lay);
    lay->pid = pl__rd32(h + SEG_PID);
    lay->start = pl__rd64(h + SEG_START);
    memcpy(lay->app, h + SEG_APP, PL__SEG_NAME_BYTES);
    size_t alen = strnlen(lay->app, PL__SEG_NAME_BYTES);
    if (alen == 0 || alen > PL_APP_MAX_APP_NAME) return pl__fail(err, PL_E_BAD_BLOCK, "segment: bad application name");
    for (size_t i = 0; i < alen; i++)
        if ((unsigned char)lay->app[i] < 0x20 || lay->app[i] == '\\' || lay->app[i] == 0x7f)
            return pl__fail(err, PL_E_BAD_BLOCK, "segment: control character or backslash in the application name");
    size_t units;
    if (pl__utf8_to_utf16(lay->app, alen, NULL, 0, &units) == PL_E_ENCODING)
        return pl__fail(err, PL_E_BAD_BLOCK, "segment: application name is not UTF-8");
    lay->first_counter = pl__rd32(h + SEG_FIRST_COUNTER);
    lay->last_counter = pl__rd32(h + SEG_LAST_COUNTER);
    lay->first_help = pl__rd32(h + SEG_FIRST_HELP);
    lay->last_help = pl__rd32(h + SEG_LAST_HELP);
    if (!lay->first_counter || lay->last_counter < lay->first_counter || !lay->first_help ||
        lay->last_help < lay->first_help)
        return pl__fail(err, PL_E_BAD_BLOCK, "segment: title ranges %u-%u/%u-%u", lay->first_counter,
                        lay->last_counter, lay->first_help, lay->last_help);
    lay->nobjects = pl__rd32(h + SEG_NOBJECTS);
    lay->ncounters = pl__rd32(h + SEG_NCOUNTERS);
    if (lay->nobjects < 1 || lay->nobjects > PL_APP_MAX_OBJECTS)
        return pl__fail(err, PL_E_BAD_BLOCK, "segment: %u objects", lay->nobjects);
    if (lay->ncounters < 1 || lay->ncounters > PL_APP_MAX_TOTAL_COUNTERS)
        return pl__fail(err, PL_E_BAD_BLOCK, "segment: %u counters", lay->ncounters);
    uint64_t obj_off = pl__rd64(h + SEG_OBJ_OFF), ctr_off = pl__rd64(h + SEG_CTR_OFF);
    if (obj_off % 8 || !fits(obj_off, (uint64_t)lay->nobjects * SO_SIZE, size))
        return pl__fail(err, PL_E_BAD_BLOCK, "segment: object table at %llu", (unsigned long long)obj_off);
    if (ctr_off % 8 || !fits(ctr_off, (uint64_t)lay->ncounters * SC_SIZE, size))
        return pl__fail(err, PL_E_BAD_BLOCK, "segment: counter table at %llu", (unsigned long long)ctr_off);

    uint8_t rec[SO_SIZE];
    for (uint32_t c = 0; c < lay->ncounters; c++) {
        copy_words(rec, map, ctr_off + (uint64_t)c * SC_SIZE, SC_SIZE);
        pl__seg_counter *k = &lay->ctr[c];
        k->name_off = pl__rd32(rec + SC_NAME);
        k->type = pl__rd32(rec + SC_TYPE);
        k->detail = pl__rd32(rec + SC_DETAIL);
        k->scale = (int32_t)pl__rd32(rec + SC_SCALE);
        if (!pl__app_type_ok(k->type))
            return pl__fail(err, PL_E_BAD_BLOCK, "segment: counter %u has type 0x%08x", c, k->type);
        if (k->name_off % 2 || (uint64_t)lay->first_counter + k->name_off > lay->last_counter ||
            (uint64_t)lay->first_help + k->name_off > lay->last_help)
            return pl__fail(err, PL_E_BAD_BLOCK, "segment: counter %u name offset %u outside its range", c,
                            k->name_off);
        if (!detail_ok(k->detail)) return pl__fail(err, PL_E_BAD_BLOCK, "segment: counter %u detail %u", c, k->detail);
        if (k->scale < -10 || k->scale > 10)
            return pl__fail(err, PL_E_BAD_BLOCK, "segment: counter %u scale %d", c, k->scale);
    }
    for (uint32_t o = 0; o < lay->nobjects; o++) {
        copy_words(rec, map, obj_off + (uint64_t)o * SO_SIZE, SO_SIZE);
        pl__seg_object *ob = &lay->obj[o];
        ob->name_off = pl__rd32(rec + SO_NAME);
        ob->detail = pl__rd32(rec + SO_DETAIL);
        ob->parent = pl__rd32(rec + SO_PARENT);
        ob->max_instances = pl__rd32(rec + SO_MAX);
        ob->first_ctr = pl__rd32(rec + SO_FIRST_CTR);
        ob->nctr = pl__rd32(rec + SO_NCTR);
        ob->flags = pl__rd32(rec + SO_FLAGS);
        ob->slots_off = pl__rd64(rec + SO_SLOTS);
        ob->slot_size = pl__rd64(rec + SO_SLOT_SIZE);
        ob->high_off = obj_off + (uint64_t)o * SO_SIZE + SO_HIGH;
        if (ob->name_off % 2 || (uint64_t)lay->first_counter + ob->name_off > lay->last_counter ||
            (uint64_t)lay->first_help + ob->name_off > lay->last_help)
            return pl__fail(err, PL_E_BAD_BLOCK, "segment: object %u name offset %u outside its range", o,
                            ob->name_off);
        if (!detail_ok(ob->detail)) return pl__fail(err, PL_E_BAD_BLOCK, "segment: object %u detail %u", o, ob->detail);
        if (ob->parent != PL__SEG_NO_PARENT && ob->parent >= lay->nobjects)
            return pl__fail(err, PL_E_BAD_BLOCK, "segment: object %u has parent object %u", o, ob->parent);
        if (ob->max_instances > PL_APP_MAX_INSTANCES)
            return pl__fail(err, PL_E_BAD_BLOCK, "segment: object %u allows %u instances", o, ob->max_instances);
        if (ob->nctr < 1 || ob->nctr > PL_APP_MAX_COUNTERS || ob->first_ctr > lay->ncounters ||
            ob->nctr > lay->ncounters - ob->first_ctr)
            return pl__fail(err, PL_E_BAD_BLOCK, "segment: object %u counters %u+%u of %u", o, ob->first_ctr,
                            ob->nctr, lay->ncounters);
        if (ob->slot_size % 8 || ob->slot_size < PL__SEG_SLOT_FIXED + 8u * ob->nctr ||
            ob->slot_size > PL__SEG_SLOT_FIXED + 8u * PL_APP_MAX_COUNTERS + 64u)
            return pl__fail(err, PL_E_BAD_BLOCK, "segment: object %u slot size %llu", o,
                            (unsigned long long)ob->slot_size);
        uint64_t nslots = ob->max_instances ? ob->max_instances : 1;
        if (ob->slots_off % 8 || !fits(ob->slots_off, nslots * ob->slot_size, size))
            return pl__fail(err, PL_E_BAD_BLOCK, "segment: object %u slots at %llu run past the segment", o,
                            (unsigned long long)ob->slots_off);
    }
    /* Parent objects must have instances, and an object cannot be its own
     * ancestor through others (a cycle would make "parents included"
     * endless); an object may be its own parent (a behemoth's mother is a
     * behemoth), which ends the chain. */
    for (uint32_t o = 0; o < lay->nobjects; o++) {
        uint32_t cur = o, p = lay->obj[o].parent, steps = 0;
        if (p != PL__SEG_NO_PARENT && lay->obj[p].max_instances == 0)
            return pl__fail(err, PL_E_BAD_BLOCK, "segment: object %u's parent object has no instances", o);
        while (p != PL__SEG_NO_PARENT && p != cur) {
            if (lay->obj[p].max_instances == 0 || ++steps > lay->nobjects || p == o)
                return pl__fail(err, PL_E_BAD_BLOCK, "segment: object %u has a bad parent chain", o);
            cur = p;
            p = lay->obj[p].parent;
        }
    }
    return PL_OK;
}

uint32_t pl__seg_high(const void *mapv, const pl__seg_layout *lay, uint32_t o)
{
    const pl__seg_object *ob = &lay->obj[o];
    if (ob->max_instances == 0) return 1;
    /* The object table was validated: this word is inside the segment. */
    uint64_t high = ld(mapv, ob->high_off);
    return high < ob->max_instances ? (uint32_t)high : ob->max_instances;
}

int pl__seg_read_slot(const void *mapv, const pl__seg_layout *lay, uint32_t o, uint32_t slot, pl__seg_inst *out)
{
    const uint8_t *map = mapv;
    const pl__seg_object *ob = &lay->obj[o];
    uint32_t nslots = ob->max_instances ? ob->max_instances : 1;
    if (slot >= nslots) return 0;
    uint64_t base = ob->slots_off + (uint64_t)slot * ob->slot_size;
    const _Atomic uint64_t *gen = (const _Atomic uint64_t *)(const void *)(map + base + SL_GEN);
    uint8_t name[PL__SEG_NAME_BYTES];
    int ok = 0;
    for (int t = 0; t < SLOT_TRIES && !ok; t++) {
        uint64_t g1 = atomic_load_explicit(gen, memory_order_acquire);
        if (g1 & 1) continue;
        out->id = ld(map, base + SL_ID);
        uint64_t ps = ld(map, base + SL_PARENT);
        out->parent_slot = ps >= UINT32_MAX ? PL__SEG_NO_PARENT : (uint32_t)ps;
        out->parent_id = ld(map, base + SL_PARENT_ID);
        PL__SEG_READ_HOOK(o, slot);
        copy_words(name, map, base + SL_NAME, sizeof name);
        for (uint32_t c = 0; c < ob->nctr; c++) out->values[c] = ld(map, base + SL_VALUES + 8u * c);
        atomic_thread_fence(memory_order_acquire);
        ok = atomic_load_explicit(gen, memory_order_relaxed) == g1;
    }
    if (!ok || out->id == 0) return 0;
    out->slot = slot;
    if (ob->max_instances == 0) {
        out->name[0] = '\0';
        out->parent_slot = PL__SEG_NO_PARENT;
        return 1;
    }
    size_t n = strnlen((const char *)name, sizeof name);
    if (n == 0 || n > PL_APP_MAX_NAME) return 0;
    for (size_t i = 0; i < n; i++)
        if (name[i] < 0x20 || name[i] == 0x7f) return 0;
    size_t units;
    if (pl__utf8_to_utf16((const char *)name, n, NULL, 0, &units) == PL_E_ENCODING) return 0;
    memcpy(out->name, name, n + 1);
    return 1;
}

const char *pl__app_dir(void)
{
    const char *d = getenv("PERFLIB_APP_DIR");
    return d && d[0] == '/' ? d : PL__SEG_DIR_DEFAULT;
}
