/* perflib: the block builder (docs/block-format.md).
 *
 * Every object keeps its instances in wire form in one growing buffer
 * (`area`): PERF_INSTANCE_DEFINITION, UTF-16LE name, padding, counter block,
 * for each instance in order. Setting a value writes straight into that
 * buffer and emitting is a header, the definitions and one memcpy per
 * object. pl_builder_reset() keeps every buffer (and every object slot with
 * its buffers), so a provider that builds the same shape on every Collect
 * stops allocating after the first one. */
#include <stdlib.h>

#include "format_internal.h"

/* Lengths stay well inside a DWORD so that sums of them cannot wrap. */
#define MAX_LEN 0x7FFFFFF0u
#define MAX_NAME_UNITS 32767u

typedef struct bctr {
    uint32_t def_pos;    /* position of its definition */
    uint32_t type;
    uint32_t off, size;  /* value in the counter block */
    uint32_t base_off;   /* 0 when there is no base */
    uint32_t base_size;
} bctr;

typedef struct bobj {
    pl_object_desc d;
    bctr *ctrs;
    uint32_t nctrs, ctr_cap;
    PERF_COUNTER_DEFINITION *defs;
    uint32_t ndefs, def_cap;
    uint32_t raw_end;    /* end of the last value in the counter block */
    uint32_t block_len;  /* align8(raw_end): PERF_COUNTER_BLOCK.ByteLength */
    uint8_t *area;       /* instances in wire form, or the single counter block */
    size_t area_len, area_cap;
    size_t *data_off;    /* per instance: its counter block in `area` */
    uint32_t ninst, inst_cap;
} bobj;

struct pl_builder {
    bobj *objs;
    uint32_t nobjs, obj_cap;
    size_t allocs;
};

static int grow(pl_builder *b, void **p, size_t elem, size_t need, size_t *cap)
{
    if (need <= *cap) return PL_OK;
    size_t n = *cap ? *cap : 4;
    while (n < need) {
        if (n > SIZE_MAX / 2 / elem) return PL_E_NOMEM;
        n *= 2;
    }
    void *q = realloc(*p, n * elem);
    if (!q) return PL_E_NOMEM;
    b->allocs++;
    *p = q;
    *cap = n;
    return PL_OK;
}

static int grow32(pl_builder *b, void **p, size_t elem, size_t need, uint32_t *cap)
{
    size_t c = *cap;
    int rc = grow(b, p, elem, need, &c);
    if (rc == PL_OK) {
        if (c > UINT32_MAX) c = UINT32_MAX;
        *cap = (uint32_t)c;
    }
    return rc;
}

/* Write valid UTF-8 `s` (len bytes) as UTF-16LE at any alignment. */
static void put_utf16(uint8_t *dst, const char *s, size_t len)
{
    for (size_t i = 0, pos = 0; i < len;) {
        uint16_t tmp[64];
        size_t chunk = len - i, got = 0;
        if (chunk > 32) {
            chunk = 32; /* 32 bytes of UTF-8 never need more than 32 units */
            while (chunk > 1 && ((unsigned char)s[i + chunk] & 0xC0) == 0x80) chunk--;
        }
        pl__utf8_to_utf16(s + i, chunk, tmp, 64, &got);
        memcpy(dst + pos * 2, tmp, got * 2);
        pos += got;
        i += chunk;
    }
}

PL_EXTERN pl_builder *pl_builder_new(void)
{
    return calloc(1, sizeof(pl_builder));
}

PL_EXTERN void pl_builder_free(pl_builder *b)
{
    if (!b) return;
    for (uint32_t i = 0; i < b->obj_cap; i++) {
        free(b->objs[i].ctrs);
        free(b->objs[i].defs);
        free(b->objs[i].area);
        free(b->objs[i].data_off);
    }
    free(b->objs);
    free(b);
}

PL_EXTERN void pl_builder_reset(pl_builder *b)
{
    if (b) b->nobjs = 0;
}

size_t pl__builder_allocations(const pl_builder *b)
{
    return b ? b->allocs : 0;
}

static bobj *get_obj(const pl_builder *b, int obj)
{
    if (!b || obj < 0 || (uint32_t)obj >= b->nobjs) return NULL;
    return &b->objs[obj];
}

/* The single counter block of an object without instances lives in `area`. */
static int ensure_single_block(pl_builder *b, bobj *o, uint32_t old_len)
{
    int rc = grow(b, (void **)&o->area, 1, o->block_len, &o->area_cap);
    if (rc != PL_OK) return rc;
    if (o->block_len > old_len) memset(o->area + old_len, 0, o->block_len - old_len);
    pl__wr32(o->area, o->block_len);
    o->area_len = o->block_len;
    return PL_OK;
}

PL_EXTERN int pl_builder_add_object(pl_builder *b, const pl_object_desc *d, int *obj)
{
    if (!b || !d || !obj || b->nobjs >= (uint32_t)INT32_MAX) return PL_E_INVAL;
    if (b->nobjs == b->obj_cap) {
        uint32_t old = b->obj_cap;
        int rc = grow32(b, (void **)&b->objs, sizeof(bobj), (size_t)b->nobjs + 1, &b->obj_cap);
        if (rc != PL_OK) return rc;
        memset(b->objs + old, 0, (size_t)(b->obj_cap - old) * sizeof(bobj));
    }
    bobj *o = &b->objs[b->nobjs];
    o->d = *d;
    o->nctrs = 0;
    o->ndefs = 0;
    o->ninst = 0;
    o->raw_end = 4;
    o->block_len = 8;
    o->area_len = 0;
    if (!d->has_instances) {
        int rc = ensure_single_block(b, o, 0);
        if (rc != PL_OK) return rc;
    }
    *obj = (int)b->nobjs++;
    return PL_OK;
}

static uint32_t align_to(uint32_t v, uint32_t a)
{
    return (v + a - 1) & ~(a - 1);
}

PL_EXTERN int pl_builder_add_counter(pl_builder *b, int obj, const pl_counter_desc *d, int *ctr)
{
    bobj *o = get_obj(b, obj);
    if (!o || !d || !ctr) return PL_E_INVAL;
    if (o->d.has_instances && o->ninst > 0) return PL_E_INVAL; /* layout is frozen */
    uint32_t size_class = d->type & PERF_SIZE_MASK;
    uint32_t size = d->size;
    switch (size_class) {
    case PERF_SIZE_DWORD:
        if (size == 0) size = d->type == PERF_DOUBLE_RAW ? 8 : 4;
        /* PERF_DOUBLE_RAW is an 8-byte double under DWORD size bits */
        if (d->type == PERF_DOUBLE_RAW && size != 8) return PL_E_INVAL;
        if (d->type == PERF_DOUBLE_RAW) break;
        /* PERF_AVERAGE_TIMER may carry 8 bytes (a time sum that must not
         * wrap; docs/block-format.md "Wide average timers"). */
        if (size != 4 && !(size == 8 && d->type == PERF_AVERAGE_TIMER)) return PL_E_INVAL;
        break;
    case PERF_SIZE_LARGE:
        if (size == 0) size = 8;
        if (size != 8) return PL_E_INVAL;
        break;
    case PERF_SIZE_ZERO:
        if (size != 0) return PL_E_INVAL;
        break;
    default: /* variable length: a fixed room of `size` bytes */
        if (size == 0 || (size & 1) || size > 0x100000) return PL_E_INVAL;
        break;
    }
    if (d->base_type) {
        if (!pl_type_is_base(d->base_type) || pl_type_size(d->base_type) == 0) return PL_E_INVAL;
        if (pl_type_is_base(d->type)) return PL_E_INVAL;
    } else if (pl__type_needs_base(d->type)) {
        return PL_E_INVAL; /* a reader would reject the block */
    }
    uint32_t ndefs_new = o->ndefs + (d->base_type ? 2u : 1u);
    if (ndefs_new > (MAX_LEN - PL__OBJ_LEN) / PL__DEF_LEN / 2) return PL_E_RANGE;

    /* Value placement: 8-byte values at 8, everything else at 4. The base
     * value comes right after the counter's own value. */
    uint64_t off = align_to(o->raw_end, size == 8 ? 8 : 4);
    uint64_t end = off + size;
    uint64_t base_off = 0, base_size = 0;
    if (d->base_type) {
        base_size = pl_type_size(d->base_type);
        /* an average declared with an explicit 8-byte value gets an 8-byte
         * PERF_AVERAGE_BASE too (an operation count that must not wrap) */
        if (d->size == 8 && d->base_type == PERF_AVERAGE_BASE) base_size = 8;
        base_off = (end + base_size - 1) & ~(base_size - 1);
        end = base_off + base_size;
    }
    if (end > MAX_LEN / 2) return PL_E_RANGE;

    int rc = grow32(b, (void **)&o->ctrs, sizeof(bctr), (size_t)o->nctrs + 1, &o->ctr_cap);
    if (rc == PL_OK) rc = grow32(b, (void **)&o->defs, sizeof(PERF_COUNTER_DEFINITION), ndefs_new, &o->def_cap);
    if (rc != PL_OK) return rc;

    uint32_t old_block = o->block_len;
    uint32_t new_raw = (uint32_t)end;
    uint32_t new_block = align_to(new_raw, 8);
    if (!o->d.has_instances) {
        o->block_len = new_block;
        rc = ensure_single_block(b, o, old_block);
        if (rc != PL_OK) {
            o->block_len = old_block;
            return rc;
        }
    }
    o->raw_end = new_raw;
    o->block_len = new_block;

    uint32_t detail = d->detail_level ? d->detail_level : PERF_DETAIL_NOVICE;
    bctr *c = &o->ctrs[o->nctrs];
    c->def_pos = o->ndefs;
    c->type = d->type;
    c->off = (uint32_t)off;
    c->size = size;
    c->base_off = (uint32_t)base_off;
    c->base_size = (uint32_t)base_size;

    PERF_COUNTER_DEFINITION *def = &o->defs[o->ndefs++];
    memset(def, 0, sizeof *def);
    def->ByteLength = PL__DEF_LEN;
    def->CounterNameTitleIndex = d->name_index;
    def->CounterHelpTitleIndex = d->help_index;
    def->DefaultScale = d->default_scale;
    def->DetailLevel = detail;
    def->CounterType = d->type;
    def->CounterSize = size;
    def->CounterOffset = (uint32_t)off;
    if (d->base_type) {
        PERF_COUNTER_DEFINITION *bd = &o->defs[o->ndefs++];
        memset(bd, 0, sizeof *bd);
        bd->ByteLength = PL__DEF_LEN;
        bd->CounterNameTitleIndex = d->base_name_index ? d->base_name_index : d->name_index;
        bd->CounterHelpTitleIndex = d->help_index;
        bd->DetailLevel = detail;
        bd->CounterType = d->base_type;
        bd->CounterSize = (uint32_t)base_size;
        bd->CounterOffset = (uint32_t)base_off;
    }
    *ctr = (int)o->nctrs++;
    return PL_OK;
}

PL_EXTERN int pl_builder_add_instance(pl_builder *b, int obj, const char *name, uint32_t parent_index,
                                      uint32_t parent_position, int32_t unique_id, int *inst)
{
    bobj *o = get_obj(b, obj);
    if (!o || !name || !inst || !o->d.has_instances || o->ninst >= (uint32_t)INT32_MAX) return PL_E_INVAL;
    size_t len = strlen(name), units = 0;
    int rc = pl__utf8_to_utf16(name, len, NULL, 0, &units);
    if (rc == PL_E_ENCODING) return rc;
    if (units > MAX_NAME_UNITS) return PL_E_RANGE;
    uint32_t name_bytes = (uint32_t)(units + 1) * 2;
    uint32_t inst_len = align_to(PL__INST_LEN + name_bytes, 8);
    size_t total = (size_t)inst_len + o->block_len;
    /* The object must stay a DWORD-sized thing. */
    if (o->area_len + total > MAX_LEN - PL__OBJ_LEN - (size_t)o->ndefs * PL__DEF_LEN) return PL_E_RANGE;

    rc = grow(b, (void **)&o->area, 1, o->area_len + total, &o->area_cap);
    if (rc == PL_OK) rc = grow32(b, (void **)&o->data_off, sizeof(size_t), (size_t)o->ninst + 1, &o->inst_cap);
    if (rc != PL_OK) return rc;

    uint8_t *p = o->area + o->area_len;
    PERF_INSTANCE_DEFINITION id = {
        .ByteLength = inst_len,
        .ParentObjectTitleIndex = parent_index,
        .ParentObjectInstance = parent_position,
        .UniqueID = unique_id,
        .NameOffset = PL__INST_LEN,
        .NameLength = name_bytes,
    };
    memcpy(p, &id, sizeof id);
    put_utf16(p + PL__INST_LEN, name, len);
    memset(p + PL__INST_LEN + units * 2, 0, inst_len - PL__INST_LEN - units * 2);
    uint8_t *blk = p + inst_len;
    memset(blk, 0, o->block_len);
    pl__wr32(blk, o->block_len);

    o->data_off[o->ninst] = o->area_len + inst_len;
    o->area_len += total;
    *inst = (int)o->ninst++;
    return PL_OK;
}

/* The counter block an (obj, inst) pair refers to, or NULL. */
static uint8_t *block_of(const pl_builder *b, int obj, int inst, int ctr, const bctr **c)
{
    bobj *o = get_obj(b, obj);
    if (!o || ctr < 0 || (uint32_t)ctr >= o->nctrs) return NULL;
    *c = &o->ctrs[ctr];
    if (o->d.has_instances) {
        if (inst < 0 || (uint32_t)inst >= o->ninst) return NULL;
        return o->area + o->data_off[inst];
    }
    if (inst != -1) return NULL;
    return o->area;
}

static int put(uint8_t *p, uint32_t size, uint64_t v)
{
    if (size == 4) pl__wr32(p, (uint32_t)v);
    else if (size == 8) pl__wr64(p, v);
    else return PL_E_INVAL;
    return PL_OK;
}

PL_EXTERN int pl_builder_set_u64(pl_builder *b, int obj, int inst, int ctr, uint64_t v)
{
    const bctr *c;
    uint8_t *blk = block_of(b, obj, inst, ctr, &c);
    if (!blk || pl__type_is_text(c->type)) return PL_E_INVAL;
    return put(blk + c->off, c->size, v);
}

PL_EXTERN int pl_builder_set_u32(pl_builder *b, int obj, int inst, int ctr, uint32_t v)
{
    return pl_builder_set_u64(b, obj, inst, ctr, v);
}

PL_EXTERN int pl_builder_set_base(pl_builder *b, int obj, int inst, int ctr, uint64_t v)
{
    const bctr *c;
    uint8_t *blk = block_of(b, obj, inst, ctr, &c);
    if (!blk || !c->base_size) return PL_E_INVAL;
    return put(blk + c->base_off, c->base_size, v);
}

PL_EXTERN int pl_builder_set_text(pl_builder *b, int obj, int inst, int ctr, const char *utf8)
{
    const bctr *c;
    uint8_t *blk = block_of(b, obj, inst, ctr, &c);
    if (!blk || !utf8 || !pl__type_is_text(c->type)) return PL_E_INVAL;
    uint8_t *dst = blk + c->off;
    size_t len = strlen(utf8);
    if ((c->type & PERF_SUBTYPE_MASK) == PERF_TEXT_ASCII) {
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)utf8[i] >= 0x80) return PL_E_ENCODING;
        if (len + 1 > c->size) return PL_E_RANGE;
        memcpy(dst, utf8, len);
        memset(dst + len, 0, c->size - len);
        return PL_OK;
    }
    size_t units = 0;
    int rc = pl__utf8_to_utf16(utf8, len, NULL, 0, &units);
    if (rc == PL_E_ENCODING) return rc;
    if ((units + 1) * 2 > c->size) return PL_E_RANGE;
    put_utf16(dst, utf8, len);
    memset(dst + units * 2, 0, c->size - units * 2);
    return PL_OK;
}

static size_t obj_size(const bobj *o)
{
    size_t data = o->d.has_instances ? (o->ninst ? o->area_len : o->block_len) : o->block_len;
    return PL__OBJ_LEN + (size_t)o->ndefs * PL__DEF_LEN + data;
}

PL_EXTERN size_t pl_builder_size(const pl_builder *b)
{
    size_t n = 0;
    if (!b) return 0;
    for (uint32_t i = 0; i < b->nobjs; i++) n += obj_size(&b->objs[i]);
    return n;
}

PL_EXTERN uint32_t pl_builder_num_objects(const pl_builder *b)
{
    return b ? b->nobjs : 0;
}

PL_EXTERN int pl_builder_emit(const pl_builder *b, void *buf, size_t cap, size_t *used, uint32_t *nobjects)
{
    if (!b || !used || !nobjects) return PL_E_INVAL;
    size_t need = pl_builder_size(b);
    if (cap < need || (!buf && need > 0)) {
        *used = need;
        *nobjects = 0;
        return PL_E_MORE_DATA;
    }
    uint8_t *p = buf;
    for (uint32_t i = 0; i < b->nobjs; i++) {
        const bobj *o = &b->objs[i];
        size_t total = obj_size(o);
        PERF_OBJECT_TYPE h;
        memset(&h, 0, sizeof h);
        h.TotalByteLength = (DWORD)total;
        h.DefinitionLength = (DWORD)(PL__OBJ_LEN + (size_t)o->ndefs * PL__DEF_LEN);
        h.HeaderLength = PL__OBJ_LEN;
        h.ObjectNameTitleIndex = o->d.name_index;
        h.ObjectHelpTitleIndex = o->d.help_index;
        h.DetailLevel = o->d.detail_level ? o->d.detail_level : PERF_DETAIL_NOVICE;
        h.NumCounters = o->ndefs;
        h.DefaultCounter = -1;
        if (o->d.default_counter >= 0 && (uint32_t)o->d.default_counter < o->nctrs)
            h.DefaultCounter = (LONG)o->ctrs[o->d.default_counter].def_pos;
        h.NumInstances = o->d.has_instances ? (LONG)o->ninst : PERF_NO_INSTANCES;
        h.CodePage = 0;
        h.PerfTime.QuadPart = o->d.perf_time;
        h.PerfFreq.QuadPart = o->d.perf_freq;
        memcpy(p, &h, sizeof h);
        p += PL__OBJ_LEN;
        if (o->ndefs) memcpy(p, o->defs, (size_t)o->ndefs * PL__DEF_LEN);
        p += (size_t)o->ndefs * PL__DEF_LEN;
        if (o->d.has_instances && o->ninst == 0) {
            /* One empty counter block, as readers that follow the KB sample
             * read a block whenever NumInstances <= 0. */
            memset(p, 0, o->block_len);
            pl__wr32(p, o->block_len);
            p += o->block_len;
        } else {
            size_t n = o->d.has_instances ? o->area_len : o->block_len;
            memcpy(p, o->area, n);
            p += n;
        }
    }
    *used = need;
    *nobjects = b->nobjs;
    return PL_OK;
}

PL_EXTERN int pl_block_write_header(const pl_block_header *h, uint32_t nobjects, size_t objects_len, void *buf,
                                    size_t cap, size_t *used)
{
    if (!h || !used) return PL_E_INVAL;
    const char *name = h->system_name ? h->system_name : "";
    size_t len = strlen(name), units = 0;
    int rc = pl__utf8_to_utf16(name, len, NULL, 0, &units);
    if (rc == PL_E_ENCODING) return rc;
    if (units > MAX_NAME_UNITS) return PL_E_RANGE;
    size_t name_bytes = (units + 1) * 2;
    size_t hlen = pl__align8(PL__HDR_LEN + name_bytes);
    if (objects_len > UINT32_MAX - hlen) return PL_E_RANGE;
    if (cap < hlen || !buf) {
        *used = hlen;
        return PL_E_MORE_DATA;
    }
    PERF_DATA_BLOCK d;
    memset(&d, 0, sizeof d);
    d.Signature[0] = 'P';
    d.Signature[1] = 'E';
    d.Signature[2] = 'R';
    d.Signature[3] = 'F';
    d.LittleEndian = 1;
    d.Version = PERF_DATA_VERSION;
    d.Revision = PERF_DATA_REVISION;
    d.TotalByteLength = (DWORD)(hlen + objects_len);
    d.HeaderLength = (DWORD)hlen;
    d.NumObjectTypes = nobjects;
    d.DefaultObject = h->default_object;
    d.SystemTime = h->system_time;
    d.PerfTime.QuadPart = h->perf_time;
    d.PerfFreq.QuadPart = h->perf_freq;
    d.PerfTime100nSec.QuadPart = h->perf_time_100ns;
    d.SystemNameLength = (DWORD)name_bytes;
    d.SystemNameOffset = PL__HDR_LEN;
    uint8_t *p = buf;
    memcpy(p, &d, sizeof d);
    memset(p + PL__HDR_LEN, 0, hlen - PL__HDR_LEN);
    put_utf16(p + PL__HDR_LEN, name, len);
    *used = hlen;
    return PL_OK;
}
