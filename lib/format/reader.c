/* perflib: the hostile-input block reader (docs/block-format.md).
 *
 * pl_block_open() walks the whole block once and checks every length and
 * offset before anything is exposed; the accessors then walk the validated
 * structure again (still bounds-checking, as the view structs are plain
 * caller-visible data). Every multi-byte read is a memcpy: blocks loaded
 * from files or networks may be misaligned. All arithmetic is on size_t or
 * uint64_t with explicit checks, so no length can wrap. */
#include <stdio.h>
#include <stdlib.h>

#include "format_internal.h"
#include "perflib/indices.h"

/* ------------------------------------------------------------ validation */

typedef struct vctx {
    pl_error *err;
    char where[160]; /* "object 2 (index 230) at offset 1184" */
} vctx;

static int bad(vctx *v, const char *fmt, ...) PL__PRINTF(2, 3);
static int bad(vctx *v, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (v->where[0]) return pl__fail(v->err, PL_E_BAD_BLOCK, "%s: %s", v->where, msg);
    return pl__fail(v->err, PL_E_BAD_BLOCK, "%s", msg);
}

static const char *tname(uint32_t type, char *tmp, size_t cap)
{
    const char *n = pl_type_name(type);
    if (n) return n;
    snprintf(tmp, cap, "type 0x%08X", (unsigned)type);
    return tmp;
}

/* A PERF_COUNTER_BLOCK at q, inside [.., objend). max_end is the largest
 * CounterOffset + CounterSize of the object's definitions (from counter
 * max_ctr). inst is the instance's position, or -1 for the object's single
 * block; the label for a message is only made when something is wrong (this
 * runs for every instance of every block a provider returns). */
static int check_block(vctx *v, const uint8_t *buf, size_t q, size_t objend, uint64_t max_end, uint32_t max_ctr,
                       int64_t inst, uint32_t *blen_out)
{
    uint32_t blen = objend - q < 4 ? 0 : pl__rd32(buf + q);
    if (objend - q >= 4 && blen >= 4 && blen <= objend - q && max_end <= blen) {
        *blen_out = blen;
        return PL_OK;
    }
    char what[48];
    if (inst < 0) snprintf(what, sizeof what, "the");
    else snprintf(what, sizeof what, "instance %u:", (unsigned)inst);
    if (objend - q < 4) return bad(v, "%s counter block at offset %zu runs past the object end (%zu)", what, q, objend);
    if (blen < 4) return bad(v, "%s counter block at offset %zu: ByteLength %u < 4", what, q, (unsigned)blen);
    if (blen > objend - q)
        return bad(v, "%s counter block at offset %zu: ByteLength %u runs past the object end (%zu)", what, q,
                   (unsigned)blen, objend);
    return bad(v, "%s counter block at offset %zu: ByteLength %u < CounterOffset + CounterSize of counter %u (%llu)",
               what, q, (unsigned)blen, (unsigned)max_ctr, (unsigned long long)max_end);
}

static int check_object(vctx *v, const uint8_t *buf, size_t off, size_t end, uint32_t pos, size_t *next)
{
    v->where[0] = '\0';
    if (end - off < PL__OBJ_LEN)
        return bad(v, "object %u at offset %zu: %zu bytes left, a PERF_OBJECT_TYPE needs 64", (unsigned)pos, off,
                   end - off);
    PERF_OBJECT_TYPE h;
    memcpy(&h, buf + off, sizeof h);
    snprintf(v->where, sizeof v->where, "object %u (index %u) at offset %zu", (unsigned)pos,
             (unsigned)h.ObjectNameTitleIndex, off);
    if (h.HeaderLength < PL__OBJ_LEN) return bad(v, "HeaderLength %u < 64", (unsigned)h.HeaderLength);
    if (h.DefinitionLength < h.HeaderLength)
        return bad(v, "DefinitionLength %u < HeaderLength %u", (unsigned)h.DefinitionLength, (unsigned)h.HeaderLength);
    if (h.TotalByteLength < h.DefinitionLength)
        return bad(v, "TotalByteLength %u < DefinitionLength %u", (unsigned)h.TotalByteLength,
                   (unsigned)h.DefinitionLength);
    if (h.TotalByteLength > end - off)
        return bad(v, "TotalByteLength %u runs past the end of the data (%zu bytes left)", (unsigned)h.TotalByteLength,
                   end - off);
    uint64_t defs_need = (uint64_t)h.HeaderLength + (uint64_t)h.NumCounters * PL__DEF_LEN;
    if (defs_need > h.DefinitionLength)
        return bad(v, "DefinitionLength %u < HeaderLength + NumCounters*40 (%llu)", (unsigned)h.DefinitionLength,
                   (unsigned long long)defs_need);

    /* Counter definitions. */
    size_t p = off + h.HeaderLength, defend = off + h.DefinitionLength, objend = off + h.TotalByteLength;
    uint64_t max_end = 0;
    uint32_t max_ctr = 0;
    uint32_t prev_type = 0;
    size_t prev_off = 0;
    char tmp[32];
    for (uint32_t i = 0; i < h.NumCounters; i++) {
        if (defend - p < PL__DEF_LEN)
            return bad(v, "counter %u at offset %zu: definition runs past DefinitionLength %u", (unsigned)i, p,
                       (unsigned)h.DefinitionLength);
        PERF_COUNTER_DEFINITION d;
        memcpy(&d, buf + p, sizeof d);
        if (d.ByteLength < PL__DEF_LEN)
            return bad(v, "counter %u at offset %zu: ByteLength %u < 40 (definitions overlap)", (unsigned)i, p,
                       (unsigned)d.ByteLength);
        if (d.ByteLength > defend - p)
            return bad(v, "counter %u at offset %zu: ByteLength %u runs past DefinitionLength %u", (unsigned)i, p,
                       (unsigned)d.ByteLength, (unsigned)h.DefinitionLength);
        uint32_t sc = d.CounterType & PERF_SIZE_MASK;
        uint32_t want = sc == PERF_SIZE_DWORD ? 4 : sc == PERF_SIZE_LARGE ? 8 : 0;
        /* PERF_AVERAGE_TIMER and PERF_AVERAGE_BASE may be 8 bytes wide
         * (docs/block-format.md "Wide average timers") */
        if ((d.CounterType == PERF_AVERAGE_TIMER || d.CounterType == PERF_AVERAGE_BASE) && d.CounterSize == 8)
            want = 8;
        if (d.CounterType == PERF_DOUBLE_RAW) want = 8; /* a double under DWORD size bits */
        if (sc != PERF_SIZE_VARIABLE_LEN && d.CounterSize != want)
            return bad(v, "counter %u at offset %zu: CounterSize %u does not match %s (%u)", (unsigned)i, p,
                       (unsigned)d.CounterSize, tname(d.CounterType, tmp, sizeof tmp), (unsigned)want);
        if (pl__type_is_text(d.CounterType) && (d.CounterType & PERF_SUBTYPE_MASK) == PERF_TEXT_UNICODE &&
            (d.CounterSize & 1))
            return bad(v, "counter %u at offset %zu: CounterSize %u of a UTF-16 text counter is odd", (unsigned)i, p,
                       (unsigned)d.CounterSize);
        if (i > 0 && pl__type_needs_base(prev_type) && !pl_type_is_base(d.CounterType))
            return bad(v, "counter %u (%s) at offset %zu is not followed by a base counter (next is %s)",
                       (unsigned)(i - 1), tname(prev_type, tmp, sizeof tmp), prev_off,
                       pl_type_name(d.CounterType) ? pl_type_name(d.CounterType) : "an unknown type");
        uint64_t e = (uint64_t)d.CounterOffset + d.CounterSize;
        if (e > max_end) {
            max_end = e;
            max_ctr = i;
        }
        prev_type = d.CounterType;
        prev_off = p;
        p += d.ByteLength;
    }
    if (h.NumCounters > 0 && pl__type_needs_base(prev_type))
        return bad(v, "counter %u (%s) at offset %zu is the last definition and has no base counter after it",
                   (unsigned)(h.NumCounters - 1), tname(prev_type, tmp, sizeof tmp), prev_off);

    /* Instances, or the single counter block. */
    size_t q = defend;
    uint32_t blen;
    LONG ni = h.NumInstances;
    if (ni == PERF_NO_INSTANCES) {
        int rc = check_block(v, buf, q, objend, max_end, max_ctr, -1, &blen);
        if (rc != PL_OK) return rc;
    } else if (ni == 0) {
        /* The block is optional: present in what perflib writes, absent in
         * some Windows providers' output. */
        if (objend - q >= 4) {
            int rc = check_block(v, buf, q, objend, max_end, max_ctr, -1, &blen);
            if (rc != PL_OK) return rc;
        }
    } else if (ni < 0) {
        return bad(v, "NumInstances %d is neither a count nor PERF_NO_INSTANCES", (int)ni);
    } else {
        size_t room = objend - q;
        if ((uint64_t)(uint32_t)ni > room / (PL__INST_LEN + 4))
            return bad(v, "NumInstances %d cannot fit in the %zu bytes after the definitions", (int)ni, room);
        for (uint32_t k = 0; k < (uint32_t)ni; k++) {
            if (objend - q < PL__INST_LEN)
                return bad(v, "instance %u at offset %zu runs past the object end (%zu)", (unsigned)k, q, objend);
            PERF_INSTANCE_DEFINITION id;
            memcpy(&id, buf + q, sizeof id);
            if (id.ByteLength < PL__INST_LEN)
                return bad(v, "instance %u at offset %zu: ByteLength %u < 24", (unsigned)k, q, (unsigned)id.ByteLength);
            if (id.ByteLength > objend - q)
                return bad(v, "instance %u at offset %zu: ByteLength %u runs past the object end (%zu)", (unsigned)k,
                           q, (unsigned)id.ByteLength, objend);
            if (h.CodePage == 0 && (id.NameLength & 1))
                return bad(v, "instance %u at offset %zu: NameLength %u is odd for a UTF-16 name", (unsigned)k, q,
                           (unsigned)id.NameLength);
            if (id.NameLength > 0 &&
                (id.NameOffset < PL__INST_LEN || id.NameOffset > id.ByteLength ||
                 id.NameLength > id.ByteLength - id.NameOffset))
                return bad(v, "instance %u at offset %zu: name (NameOffset %u, NameLength %u) is outside the instance "
                              "(24..ByteLength %u)",
                           (unsigned)k, q, (unsigned)id.NameOffset, (unsigned)id.NameLength, (unsigned)id.ByteLength);
            int rc = check_block(v, buf, q + id.ByteLength, objend, max_end, max_ctr, k, &blen);
            if (rc != PL_OK) return rc;
            q += (size_t)id.ByteLength + blen;
        }
    }
    *next = objend;
    return PL_OK;
}

PL_EXTERN int pl_block_open(pl_block *blk, const void *buf, size_t len, int flags, uint32_t nobjects, pl_error *err)
{
    if (!blk || (!buf && len > 0) || (flags & ~PL_BLOCK_BARE))
        return pl__fail(err, PL_E_INVAL, "pl_block_open: invalid argument");
    vctx v = {.err = err, .where = ""};
    const uint8_t *b = buf;
    pl_block out;
    memset(&out, 0, sizeof out);
    out.buf = b;
    out.len = len;
    size_t end, off;
    if (flags & PL_BLOCK_BARE) {
        end = len;
        off = 0;
        out.num_objects = nobjects;
    } else {
        if (len < PL__HDR_LEN)
            return bad(&v, "truncated header: %zu bytes, a PERF_DATA_BLOCK needs 88", len);
        PERF_DATA_BLOCK h;
        memcpy(&h, b, sizeof h);
        if (memcmp(b, "P\0E\0R\0F\0", 8) != 0)
            return bad(&v, "header at offset 0: Signature is not L\"PERF\"");
        if (h.LittleEndian != 1) return bad(&v, "header at offset 8: LittleEndian %u, expected 1", (unsigned)h.LittleEndian);
        if (h.Version != PERF_DATA_VERSION)
            return bad(&v, "header at offset 12: Version %u, expected %u", (unsigned)h.Version, PERF_DATA_VERSION);
        if (h.Revision != PERF_DATA_REVISION)
            return bad(&v, "header at offset 16: Revision %u, expected %u", (unsigned)h.Revision, PERF_DATA_REVISION);
        if (h.TotalByteLength > len)
            return bad(&v, "header at offset 20: TotalByteLength %u > the %zu bytes given", (unsigned)h.TotalByteLength,
                       len);
        if (h.HeaderLength < PL__HDR_LEN)
            return bad(&v, "header at offset 24: HeaderLength %u < 88", (unsigned)h.HeaderLength);
        if (h.HeaderLength > h.TotalByteLength)
            return bad(&v, "header at offset 24: HeaderLength %u > TotalByteLength %u", (unsigned)h.HeaderLength,
                       (unsigned)h.TotalByteLength);
        if (h.SystemNameLength > 0) {
            if (h.SystemNameLength & 1)
                return bad(&v, "header at offset 80: SystemNameLength %u is odd", (unsigned)h.SystemNameLength);
            if (h.SystemNameOffset < PL__HDR_LEN || h.SystemNameOffset > h.HeaderLength ||
                h.SystemNameLength > h.HeaderLength - h.SystemNameOffset)
                return bad(&v, "header at offset 84: system name (SystemNameOffset %u, SystemNameLength %u) is outside "
                               "88..HeaderLength %u",
                           (unsigned)h.SystemNameOffset, (unsigned)h.SystemNameLength, (unsigned)h.HeaderLength);
            size_t got = 0;
            pl__utf16_to_utf8(b + h.SystemNameOffset, h.SystemNameLength / 2, out.system_name,
                              sizeof out.system_name, &got, 1);
        }
        if (h.NumObjectTypes > (h.TotalByteLength - h.HeaderLength) / PL__OBJ_LEN)
            return bad(&v, "header at offset 28: NumObjectTypes %u cannot fit in %u bytes", (unsigned)h.NumObjectTypes,
                       (unsigned)(h.TotalByteLength - h.HeaderLength));
        out.has_header = 1;
        out.hdr = h;
        out.num_objects = h.NumObjectTypes;
        end = h.TotalByteLength;
        off = h.HeaderLength;
    }
    out.first_object = off;
    if ((flags & PL_BLOCK_BARE) && nobjects > (end - off) / PL__OBJ_LEN)
        return bad(&v, "%u objects cannot fit in %zu bytes", (unsigned)nobjects, end - off);
    for (uint32_t i = 0; i < out.num_objects; i++) {
        size_t next = 0;
        int rc = check_object(&v, b, off, end, i, &next);
        if (rc != PL_OK) return rc;
        off = next;
    }
    v.where[0] = '\0';
    if (off != end) {
        if (flags & PL_BLOCK_BARE)
            return bad(&v, "the %u objects end at offset %zu but %zu bytes were given", (unsigned)out.num_objects, off,
                       end);
        return bad(&v, "the %u objects end at offset %zu but TotalByteLength is %zu", (unsigned)out.num_objects, off,
                   end);
    }
    pl__clear(err);
    *blk = out;
    return PL_OK;
}

/* ------------------------------------------------------------- accessors */

static size_t block_end(const pl_block *blk)
{
    return blk->has_header ? blk->hdr.TotalByteLength : blk->len;
}

/* Read the object at `off`; re-checks the bounds the view relies on. */
static int read_object(const pl_block *blk, size_t off, uint32_t pos, pl_object *out)
{
    size_t end = block_end(blk);
    if (end > blk->len || off > end || end - off < PL__OBJ_LEN) return PL_E_NOT_FOUND;
    PERF_OBJECT_TYPE h;
    memcpy(&h, blk->buf + off, sizeof h);
    if (h.TotalByteLength < PL__OBJ_LEN || h.TotalByteLength > end - off || h.DefinitionLength > h.TotalByteLength)
        return PL_E_BAD_BLOCK;
    out->blk = blk;
    out->position = pos;
    out->off = off;
    out->hdr = h;
    out->first_instance = off + h.DefinitionLength;
    return PL_OK;
}

PL_EXTERN int pl_block_object(const pl_block *blk, uint32_t pos, pl_object *out)
{
    if (!blk || !out) return PL_E_INVAL;
    if (pos >= blk->num_objects) return PL_E_NOT_FOUND;
    size_t off = blk->first_object;
    pl_object o;
    for (uint32_t i = 0;; i++) {
        int rc = read_object(blk, off, i, &o);
        if (rc != PL_OK) return rc;
        if (i == pos) break;
        off += o.hdr.TotalByteLength;
    }
    *out = o;
    return PL_OK;
}

PL_EXTERN int pl_object_next(const pl_object *cur, pl_object *out)
{
    if (!cur || !out || !cur->blk) return PL_E_INVAL;
    const pl_block *blk = cur->blk;
    if (cur->position + 1 >= blk->num_objects || cur->position + 1 == 0) return PL_E_NOT_FOUND;
    /* Re-read the current object's length from the buffer. */
    pl_object o;
    int rc = read_object(blk, cur->off, cur->position, &o);
    if (rc != PL_OK) return rc == PL_E_NOT_FOUND ? PL_E_BAD_BLOCK : rc;
    rc = read_object(blk, cur->off + o.hdr.TotalByteLength, cur->position + 1, &o);
    if (rc != PL_OK) return rc == PL_E_NOT_FOUND ? PL_E_BAD_BLOCK : rc;
    *out = o;
    return PL_OK;
}

PL_EXTERN int pl_block_find_object(const pl_block *blk, uint32_t name_index, pl_object *out)
{
    if (!blk || !out) return PL_E_INVAL;
    size_t off = blk->first_object;
    pl_object o;
    for (uint32_t i = 0; i < blk->num_objects; i++) {
        int rc = read_object(blk, off, i, &o);
        if (rc != PL_OK) return rc;
        if (o.hdr.ObjectNameTitleIndex == name_index) {
            *out = o;
            return PL_OK;
        }
        off += o.hdr.TotalByteLength;
    }
    return PL_E_NOT_FOUND;
}

/* Offset of definition `pos`, or 0 when it is not there. */
static size_t def_offset(const pl_object *obj, uint32_t pos)
{
    const PERF_OBJECT_TYPE *h = &obj->hdr;
    if (pos >= h->NumCounters || h->DefinitionLength < h->HeaderLength) return 0;
    size_t start = obj->off + h->HeaderLength, defend = obj->off + h->DefinitionLength;
    if (defend > obj->blk->len) return 0;
    /* Definitions that fill the area exactly are all 40 bytes long. */
    if ((uint64_t)h->DefinitionLength - h->HeaderLength == (uint64_t)h->NumCounters * PL__DEF_LEN)
        return start + (size_t)pos * PL__DEF_LEN;
    size_t p = start;
    for (uint32_t i = 0;; i++) {
        if (defend - p < PL__DEF_LEN) return 0;
        if (i == pos) return p;
        uint32_t bl = pl__rd32(obj->blk->buf + p);
        if (bl < PL__DEF_LEN || bl > defend - p) return 0;
        p += bl;
    }
}

/* The counter whose definition is at `p` (position `pos`), with its base when
 * the definition after it is one. `p` must be a definition inside the
 * object's definition area (def_offset or a checked step). */
static int counter_at(const pl_object *obj, uint32_t pos, size_t p, pl_counter *out)
{
    const PERF_OBJECT_TYPE *h = &obj->hdr;
    size_t defend = obj->off + h->DefinitionLength;
    pl_counter c;
    memset(&c, 0, sizeof c);
    c.obj = obj;
    c.position = pos;
    c.off = p;
    memcpy(&c.def, obj->blk->buf + p, sizeof c.def);
    if (pos + 1 < h->NumCounters) {
        /* The next definition, by this one's ByteLength (the walk
         * pl_block_open validated). */
        if (c.def.ByteLength < PL__DEF_LEN || c.def.ByteLength > defend - p) return PL_E_BAD_BLOCK;
        size_t q = p + c.def.ByteLength;
        if (defend - q < PL__DEF_LEN) return PL_E_BAD_BLOCK;
        PERF_COUNTER_DEFINITION n;
        memcpy(&n, obj->blk->buf + q, sizeof n);
        if (pl_type_is_base(n.CounterType)) {
            c.has_base = 1;
            c.base = n;
        }
    }
    *out = c;
    return PL_OK;
}

/* Is `p` a plausible definition offset of obj: inside the validated
 * definition area with 40 bytes present? */
static int def_inside(const pl_object *obj, size_t p)
{
    const PERF_OBJECT_TYPE *h = &obj->hdr;
    if (h->DefinitionLength < h->HeaderLength || h->HeaderLength < PL__OBJ_LEN) return 0;
    if (obj->off > obj->blk->len || h->DefinitionLength > obj->blk->len - obj->off) return 0;
    size_t start = obj->off + h->HeaderLength, defend = obj->off + h->DefinitionLength;
    return p >= start && p <= defend && defend - p >= PL__DEF_LEN;
}

PL_EXTERN int pl_object_counter(const pl_object *obj, uint32_t pos, pl_counter *out)
{
    if (!obj || !out || !obj->blk) return PL_E_INVAL;
    if (pos >= obj->hdr.NumCounters) return PL_E_NOT_FOUND;
    size_t p = def_offset(obj, pos);
    if (!p) return PL_E_BAD_BLOCK;
    return counter_at(obj, pos, p, out);
}

PL_EXTERN int pl_counter_next(const pl_counter *cur, pl_counter *out)
{
    if (!cur || !out || !cur->obj || !cur->obj->blk) return PL_E_INVAL;
    const pl_object *obj = cur->obj;
    if (cur->position + 1 >= obj->hdr.NumCounters || cur->position + 1 == 0) return PL_E_NOT_FOUND;
    /* Re-read the current definition's length: the view may be stale or
     * edited, the buffer is what was validated. */
    if (!def_inside(obj, cur->off)) return PL_E_BAD_BLOCK;
    size_t defend = obj->off + obj->hdr.DefinitionLength;
    uint32_t bl = pl__rd32(obj->blk->buf + cur->off);
    if (bl < PL__DEF_LEN || bl > defend - cur->off) return PL_E_BAD_BLOCK;
    size_t q = cur->off + bl;
    if (!def_inside(obj, q)) return PL_E_BAD_BLOCK;
    return counter_at(obj, cur->position + 1, q, out);
}

PL_EXTERN int pl_object_find_counter(const pl_object *obj, uint32_t name_index, pl_counter *out)
{
    if (!obj || !out || !obj->blk) return PL_E_INVAL;
    if (obj->hdr.NumCounters == 0) return PL_E_NOT_FOUND;
    /* One walk over the definitions (a lookup by position each time would
     * be quadratic when they are not all 40 bytes long). */
    pl_counter c;
    int rc = pl_object_counter(obj, 0, &c);
    for (; rc == PL_OK; rc = pl_counter_next(&c, &c)) {
        if (c.def.CounterNameTitleIndex == name_index && !pl_type_is_base(c.def.CounterType)) {
            *out = c;
            return PL_OK;
        }
    }
    return rc;
}

PL_EXTERN uint32_t pl_object_num_instances(const pl_object *obj)
{
    if (!obj || obj->hdr.NumInstances <= 0) return 0;
    return (uint32_t)obj->hdr.NumInstances;
}

static size_t object_end(const pl_object *obj)
{
    size_t e = obj->off + obj->hdr.TotalByteLength;
    return e > obj->blk->len ? obj->blk->len : e;
}

/* The instance at `off` with position `pos`, bounds-checked. */
static int read_instance(const pl_object *obj, size_t off, int32_t pos, pl_instance *out)
{
    size_t end = object_end(obj);
    const uint8_t *buf = obj->blk->buf;
    if (off > end || end - off < PL__INST_LEN) return PL_E_BAD_BLOCK;
    PERF_INSTANCE_DEFINITION d;
    memcpy(&d, buf + off, sizeof d);
    if (d.ByteLength < PL__INST_LEN || d.ByteLength > end - off || end - off - d.ByteLength < 4) return PL_E_BAD_BLOCK;
    size_t q = off + d.ByteLength;
    uint32_t blen = pl__rd32(buf + q);
    if (blen < 4 || blen > end - q) return PL_E_BAD_BLOCK;
    out->obj = obj;
    out->position = pos;
    out->off = off;
    out->def = d;
    out->data_off = q;
    out->data_len = blen;
    return PL_OK;
}

PL_EXTERN int pl_object_instance(const pl_object *obj, int32_t pos, pl_instance *out)
{
    if (!obj || !out || !obj->blk) return PL_E_INVAL;
    pl_instance in;
    memset(&in, 0, sizeof in);
    if (pos == -1) {
        if (obj->hdr.NumInstances > 0) return PL_E_NOT_FOUND;
        size_t q = obj->first_instance, end = object_end(obj);
        if (q > end || end - q < 4) return PL_E_NOT_FOUND; /* 0 instances and no block */
        uint32_t blen = pl__rd32(obj->blk->buf + q);
        if (blen < 4 || blen > end - q) return PL_E_BAD_BLOCK;
        in.obj = obj;
        in.position = -1;
        in.data_off = q;
        in.data_len = blen;
        *out = in;
        return PL_OK;
    }
    if (pos < 0 || (uint32_t)pos >= pl_object_num_instances(obj)) return PL_E_NOT_FOUND;
    size_t off = obj->first_instance;
    for (int32_t i = 0;; i++) {
        int rc = read_instance(obj, off, i, &in);
        if (rc != PL_OK) return rc;
        if (i == pos) break;
        off = in.data_off + in.data_len;
    }
    *out = in;
    return PL_OK;
}

PL_EXTERN int pl_instance_next(const pl_instance *cur, pl_instance *out)
{
    if (!cur || !out || !cur->obj || !cur->obj->blk) return PL_E_INVAL;
    if (cur->position < 0 || (uint32_t)cur->position + 1 >= pl_object_num_instances(cur->obj)) return PL_E_NOT_FOUND;
    pl_instance in;
    int rc = read_instance(cur->obj, cur->data_off + cur->data_len, cur->position + 1, &in);
    if (rc != PL_OK) return rc;
    *out = in;
    return PL_OK;
}

/* ----------------------------------------------------------------- names */

/* Bytes in a non-UTF-16 code page -> UTF-8, read as Latin-1 (exact for
 * ASCII, close for 1252). Stops at a NUL. snprintf size contract. */
static int bytes_to_utf8(const uint8_t *src, size_t n, char *out, size_t cap, size_t *need)
{
    size_t w = 0, pos = 0;
    int more = 0;
    for (size_t i = 0; i < n && src[i]; i++) {
        char e[2];
        size_t k = 1;
        if (src[i] < 0x80) {
            e[0] = (char)src[i];
        } else {
            e[0] = (char)(0xC0 | (src[i] >> 6));
            e[1] = (char)(0x80 | (src[i] & 0x3F));
            k = 2;
        }
        if (!more && cap > 0 && w + k <= cap - 1) {
            memcpy(out + w, e, k);
            pos = w + k;
        } else {
            more = 1;
        }
        w += k;
    }
    if (cap > 0) out[pos] = '\0';
    *need = w;
    return more ? PL_E_MORE_DATA : PL_OK;
}

/* The name bytes of an instance, re-checked against the instance. */
static int name_span(const pl_instance *inst, const uint8_t **p, size_t *n)
{
    *p = NULL;
    *n = 0;
    if (inst->position < 0 || inst->def.NameLength == 0) return PL_OK;
    const PERF_INSTANCE_DEFINITION *d = &inst->def;
    if (d->NameOffset > d->ByteLength || d->NameLength > d->ByteLength - d->NameOffset) return PL_E_BAD_BLOCK;
    if (inst->off > inst->obj->blk->len || d->ByteLength > inst->obj->blk->len - inst->off) return PL_E_BAD_BLOCK;
    *p = inst->obj->blk->buf + inst->off + d->NameOffset;
    *n = d->NameLength;
    return PL_OK;
}

static int name_utf8(const pl_instance *inst, char *out, size_t cap, size_t *need)
{
    const uint8_t *p;
    size_t n;
    *need = 0;
    int rc = name_span(inst, &p, &n);
    if (rc != PL_OK) {
        if (cap) out[0] = '\0';
        return rc;
    }
    if (!p) {
        if (cap) out[0] = '\0';
        return PL_OK;
    }
    if (inst->obj->hdr.CodePage == 0) return pl__utf16_to_utf8(p, n / 2, out, cap, need, 1);
    return bytes_to_utf8(p, n, out, cap, need);
}

PL_EXTERN int pl_instance_name(const pl_instance *inst, char *out, size_t cap)
{
    if (!inst || !inst->obj || !inst->obj->blk || (!out && cap)) return PL_E_INVAL;
    size_t need;
    return name_utf8(inst, out, cap, &need);
}

PL_EXTERN int pl_instance_parent(const pl_instance *inst, pl_object *pobj, pl_instance *pinst)
{
    if (!inst || !pobj || !pinst || !inst->obj || !inst->obj->blk) return PL_E_INVAL;
    if (inst->position < 0 || inst->def.ParentObjectTitleIndex == 0) return PL_E_NOT_FOUND;
    pl_object o;
    int rc = pl_block_find_object(inst->obj->blk, inst->def.ParentObjectTitleIndex, &o);
    if (rc != PL_OK) return rc;
    if (inst->def.ParentObjectInstance >= pl_object_num_instances(&o)) return PL_E_NOT_FOUND;
    *pobj = o;
    rc = pl_object_instance(pobj, (int32_t)inst->def.ParentObjectInstance, pinst);
    if (rc == PL_OK) pinst->obj = pobj;
    return rc;
}

/* The names of pl_object_instance_names are kept back to back in one
 * pl__buf (the arena), found by offset. */

/* Append the instance's own name (UTF-8, no NUL) to the arena. */
static int arena_name(pl__buf *a, const pl_instance *inst)
{
    size_t need = 0;
    /* A UTF-16 unit becomes at most 3 UTF-8 bytes, a byte at most 2. */
    size_t room = inst->position < 0 ? 1 : (size_t)inst->def.NameLength * 2 + 1;
    int rc = pl__buf_reserve(a, room);
    if (rc != PL_OK) return rc;
    rc = name_utf8(inst, a->p + a->len, room, &need);
    if (rc != PL_OK) return rc;
    a->len += need;
    return PL_OK;
}

typedef struct name_rec {
    size_t own_off, own_len;   /* own name in the arena */
    size_t full_off, full_len; /* full name (parent/name) in the arena */
    uint32_t dup;              /* n of "#n" */
    uint32_t hash;
} name_rec;

static uint32_t fnv1a(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

typedef struct parent_cache {
    int state;        /* 0 not looked at, 1 built, 2 absent */
    pl_object obj;
    size_t *offs;     /* instance offsets */
    uint32_t n;
    size_t *name_off; /* own names in the arena, filled lazily (SIZE_MAX = not yet) */
    size_t *name_len;
} parent_cache;

static void free_parent_caches(parent_cache *pc, uint32_t n)
{
    if (!pc) return;
    for (uint32_t i = 0; i < n; i++) {
        free(pc[i].offs);
        free(pc[i].name_off);
        free(pc[i].name_len);
    }
    free(pc);
}

PL_EXTERN int pl_object_instance_names(const pl_object *obj, char ***names)
{
    if (!obj || !names || !obj->blk) return PL_E_INVAL;
    const pl_block *blk = obj->blk;
    uint32_t n = pl_object_num_instances(obj);
    int rc = PL_OK;
    pl__buf a = {0};
    name_rec *rec = NULL;
    uint32_t *table = NULL;
    uint32_t *counts = NULL;
    parent_cache *pc = NULL;
    uint32_t nobj = blk->num_objects;
    uint32_t *byindex = NULL; /* hash: object title index -> position + 1 */
    size_t bymask = 0;
    char **res = NULL;

    if (n == 0) {
        res = malloc(sizeof(char *));
        if (!res) return PL_E_NOMEM;
        res[0] = NULL;
        *names = res;
        return PL_OK;
    }
    rec = calloc(n, sizeof *rec);
    pc = calloc(nobj ? nobj : 1, sizeof *pc);
    size_t bycap = 16;
    while (bycap < (size_t)nobj * 2) bycap *= 2;
    byindex = calloc(bycap, sizeof *byindex);
    bymask = bycap - 1;
    if (!rec || !pc || !byindex) {
        rc = PL_E_NOMEM;
        goto out;
    }
    /* Object title index -> first object with it, in one pass. */
    {
        size_t off = blk->first_object;
        for (uint32_t i = 0; i < nobj; i++) {
            rc = read_object(blk, off, i, &pc[i].obj);
            if (rc != PL_OK) goto out;
            uint32_t idx = pc[i].obj.hdr.ObjectNameTitleIndex;
            size_t h = (idx * 2654435761u) & bymask;
            while (byindex[h] && pc[byindex[h] - 1].obj.hdr.ObjectNameTitleIndex != idx) h = (h + 1) & bymask;
            if (!byindex[h]) byindex[h] = i + 1;
            off += pc[i].obj.hdr.TotalByteLength;
        }
    }

    /* PL_NAMES_MAX_BYTES(blk->len), saturating. */
    size_t names_max = blk->len > (SIZE_MAX - ((size_t)64 << 20)) / 16 ? SIZE_MAX : PL_NAMES_MAX_BYTES(blk->len);
    size_t names_total = (size_t)n * sizeof(char *);
    pl_instance in;
    for (uint32_t i = 0; i < n; i++) {
        rc = i == 0 ? pl_object_instance(obj, 0, &in) : pl_instance_next(&in, &in);
        if (rc != PL_OK) goto out;
        rec[i].own_off = a.len;
        rc = arena_name(&a, &in);
        if (rc != PL_OK) goto out;
        rec[i].own_len = a.len - rec[i].own_off;

        /* Parent, through the per-object caches. */
        size_t poff = 0, plen = 0;
        int has_parent = 0;
        uint32_t pidx = in.def.ParentObjectTitleIndex;
        if (pidx != 0) {
            size_t h = (pidx * 2654435761u) & bymask;
            while (byindex[h] && pc[byindex[h] - 1].obj.hdr.ObjectNameTitleIndex != pidx) h = (h + 1) & bymask;
            if (byindex[h]) {
                parent_cache *c = &pc[byindex[h] - 1];
                if (c->state == 0) {
                    c->state = 2;
                    c->n = pl_object_num_instances(&c->obj);
                    if (c->n) {
                        c->offs = malloc((size_t)c->n * sizeof *c->offs);
                        c->name_off = malloc((size_t)c->n * sizeof *c->name_off);
                        c->name_len = malloc((size_t)c->n * sizeof *c->name_len);
                        if (!c->offs || !c->name_off || !c->name_len) {
                            rc = PL_E_NOMEM;
                            goto out;
                        }
                        pl_instance pi;
                        for (uint32_t k = 0; k < c->n; k++) {
                            rc = k == 0 ? pl_object_instance(&c->obj, 0, &pi) : pl_instance_next(&pi, &pi);
                            if (rc != PL_OK) goto out;
                            c->offs[k] = pi.off;
                            c->name_off[k] = SIZE_MAX;
                        }
                        c->state = 1;
                    }
                }
                uint32_t ppos = in.def.ParentObjectInstance;
                if (c->state == 1 && ppos < c->n) {
                    if (c->name_off[ppos] == SIZE_MAX) {
                        pl_instance pi;
                        rc = read_instance(&c->obj, c->offs[ppos], (int32_t)ppos, &pi);
                        if (rc != PL_OK) goto out;
                        c->name_off[ppos] = a.len;
                        rc = arena_name(&a, &pi);
                        if (rc != PL_OK) goto out;
                        c->name_len[ppos] = a.len - c->name_off[ppos];
                    }
                    poff = c->name_off[ppos];
                    plen = c->name_len[ppos];
                    has_parent = 1;
                }
            }
        }
        /* Full name: "parent/name" or a copy of the own name. Many children
         * of one long-named parent would make this quadratic in the input:
         * the total is bounded before anything is copied. */
        names_total += plen + 1 + rec[i].own_len + 1;
        if (names_total > names_max) {
            rc = PL_E_RANGE;
            goto out;
        }
        rc = pl__buf_reserve(&a, plen + 1 + rec[i].own_len);
        if (rc != PL_OK) goto out;
        rec[i].full_off = a.len;
        if (has_parent) {
            memcpy(a.p + a.len, a.p + poff, plen);
            a.len += plen;
            a.p[a.len++] = '/';
        }
        memcpy(a.p + a.len, a.p + rec[i].own_off, rec[i].own_len);
        a.len += rec[i].own_len;
        rec[i].full_len = a.len - rec[i].full_off;
        rec[i].hash = fnv1a(a.p + rec[i].full_off, rec[i].full_len);
    }

    /* Duplicates: an open-addressing table of first occurrences. */
    size_t tcap = 16;
    while (tcap < (size_t)n * 2) tcap *= 2;
    table = calloc(tcap, sizeof *table);
    counts = calloc(n, sizeof *counts);
    if (!table || !counts) {
        rc = PL_E_NOMEM;
        goto out;
    }
    size_t total = (size_t)n * sizeof(char *) + sizeof(char *);
    for (uint32_t i = 0; i < n; i++) {
        size_t h = rec[i].hash & (tcap - 1);
        for (;;) {
            uint32_t e = table[h];
            if (!e) {
                table[h] = i + 1;
                rec[i].dup = 0;
                counts[i] = 1;
                break;
            }
            name_rec *r = &rec[e - 1];
            if (r->hash == rec[i].hash && r->full_len == rec[i].full_len &&
                memcmp(a.p + r->full_off, a.p + rec[i].full_off, r->full_len) == 0) {
                rec[i].dup = counts[e - 1]++;
                break;
            }
            h = (h + 1) & (tcap - 1);
        }
        total += rec[i].full_len + 1 + (rec[i].dup ? 11 : 0);
    }
    res = malloc(total);
    if (!res) {
        rc = PL_E_NOMEM;
        goto out;
    }
    char *s = (char *)(res + n + 1);
    for (uint32_t i = 0; i < n; i++) {
        res[i] = s;
        memcpy(s, a.p + rec[i].full_off, rec[i].full_len);
        s += rec[i].full_len;
        if (rec[i].dup) {
            char num[11];
            size_t k = 0;
            for (uint32_t d = rec[i].dup; d; d /= 10) num[k++] = (char)('0' + d % 10);
            *s++ = '#';
            while (k) *s++ = num[--k];
        }
        *s++ = '\0';
    }
    res[n] = NULL;
    *names = res;
    res = NULL;
out:
    free(res);
    pl__buf_free(&a);
    free(rec);
    free(table);
    free(counts);
    free(byindex);
    free_parent_caches(pc, nobj);
    return rc;
}

/* ---------------------------------------------------------------- values */

/* The value bytes of a definition in an instance's counter block. */
static int value_span(const pl_counter *c, const PERF_COUNTER_DEFINITION *d, const pl_instance *inst,
                      const uint8_t **p)
{
    if (!c || !inst || !c->obj || !inst->obj || !inst->obj->blk) return PL_E_INVAL;
    if (c->obj->off != inst->obj->off || c->obj->blk != inst->obj->blk) return PL_E_INVAL;
    const pl_block *blk = inst->obj->blk;
    if (inst->data_off > blk->len || inst->data_len > blk->len - inst->data_off) return PL_E_BAD_BLOCK;
    if ((uint64_t)d->CounterOffset + d->CounterSize > inst->data_len) return PL_E_BAD_BLOCK;
    *p = blk->buf + inst->data_off + d->CounterOffset;
    return PL_OK;
}

static int read_value(const pl_counter *c, const PERF_COUNTER_DEFINITION *d, const pl_instance *inst, uint64_t *v)
{
    if (!v) return PL_E_INVAL;
    uint32_t sc = d->CounterType & PERF_SIZE_MASK;
    if (sc != PERF_SIZE_DWORD && sc != PERF_SIZE_LARGE) return PL_E_INVAL;
    const uint8_t *p;
    int rc = value_span(c, d, inst, &p);
    if (rc != PL_OK) return rc;
    if (d->CounterSize == 4) *v = pl__rd32(p);
    else if (d->CounterSize == 8) *v = pl__rd64(p);
    else return PL_E_BAD_BLOCK;
    return PL_OK;
}

PL_EXTERN int pl_counter_value(const pl_counter *c, const pl_instance *inst, uint64_t *v)
{
    if (!c) return PL_E_INVAL;
    return read_value(c, &c->def, inst, v);
}

PL_EXTERN int pl_counter_base(const pl_counter *c, const pl_instance *inst, uint64_t *v)
{
    if (!c) return PL_E_INVAL;
    if (!c->has_base) return PL_E_NOT_FOUND;
    return read_value(c, &c->base, inst, v);
}

/* ------------------------------------------------------- availability */

/* The object's "Unavailable Counters" marker (docs/block-format.md,
 * "Unavailable values"): the first definition named PL_CTR_UNAVAILABLE_COUNTERS
 * with type PERF_COUNTER_LARGE_RAWCOUNT_HEX and size 8. 0 when there is none. */
/* The object's "Unavailable Counters" marker: its position and definition.
 * Asked for every value a consumer reads (pl_counter_available), so the walk
 * reads only the four fields it needs of each definition, with the checks
 * of pl_object_counter/pl_counter_next (a definition inside the validated
 * area, a ByteLength that reaches the next one): the same answer, without
 * copying every definition and its neighbour on the way (issue 28: it was
 * most of pview's CPU). */
static int find_marker(const pl_object *obj, uint32_t *pos, PERF_COUNTER_DEFINITION *def)
{
    uint32_t n = obj->hdr.NumCounters;
    if (!n) return 0;
    size_t p = def_offset(obj, 0);
    if (!p) return 0;
    const uint8_t *b = obj->blk->buf;
    size_t defend = obj->off + obj->hdr.DefinitionLength;
#define PL__IS_MARKER(q)                                                                                              \
    (pl__rd32(b + (q) + offsetof(PERF_COUNTER_DEFINITION, CounterNameTitleIndex)) == PL_CTR_UNAVAILABLE_COUNTERS &&  \
     pl__rd32(b + (q) + offsetof(PERF_COUNTER_DEFINITION, CounterType)) == PERF_COUNTER_LARGE_RAWCOUNT_HEX &&        \
     pl__rd32(b + (q) + offsetof(PERF_COUNTER_DEFINITION, CounterSize)) == 8)
    /* Definitions that fill the area exactly are all 40 bytes long (as
     * def_offset() knows): a stride, no lengths to follow. */
    if ((uint64_t)obj->hdr.DefinitionLength - obj->hdr.HeaderLength == (uint64_t)n * PL__DEF_LEN) {
        for (uint32_t i = 0; i < n; i++, p += PL__DEF_LEN)
            if (PL__IS_MARKER(p)) {
                *pos = i;
                memcpy(def, b + p, sizeof *def);
                return 1;
            }
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!def_inside(obj, p)) return 0;
        if (PL__IS_MARKER(p)) {
            *pos = i;
            memcpy(def, b + p, sizeof *def);
            return 1;
        }
        uint32_t bl = pl__rd32(b + p);
        if (bl < PL__DEF_LEN || bl > defend - p) return 0;
        p += bl;
    }
    return 0;
#undef PL__IS_MARKER
}

static int marked(uint64_t mask, uint32_t pos, uint32_t marker_pos)
{
    if (pos == marker_pos) return 0; /* the marker itself is always readable */
    return (mask >> (pos >= 63 ? 63 : pos)) & 1u;
}

PL_EXTERN int pl_counter_available(const pl_counter *c, const pl_instance *inst)
{
    if (!c || !inst || !c->obj || !c->obj->blk || !inst->obj) return 1;
    if (c->obj->off != inst->obj->off || c->obj->blk != inst->obj->blk) return 1;
    uint32_t mpos;
    pl_counter m;
    memset(&m, 0, sizeof m);
    m.obj = c->obj;
    if (!find_marker(c->obj, &mpos, &m.def)) return 1;
    m.position = mpos;
    uint64_t mask;
    if (read_value(&m, &m.def, inst, &mask) != PL_OK) return 1;
    if (marked(mask, c->position, mpos)) return 0;
    if (c->has_base && marked(mask, c->position + 1, mpos)) return 0;
    return 1;
}

PL_EXTERN int pl_counter_text(const pl_counter *c, const pl_instance *inst, char *out, size_t cap)
{
    if (!c || (!out && cap) || !pl__type_is_text(c->def.CounterType)) return PL_E_INVAL;
    const uint8_t *p;
    int rc = value_span(c, &c->def, inst, &p);
    if (rc != PL_OK) {
        if (cap) out[0] = '\0';
        return rc;
    }
    size_t need;
    if ((c->def.CounterType & PERF_SUBTYPE_MASK) == PERF_TEXT_ASCII)
        return bytes_to_utf8(p, c->def.CounterSize, out, cap, &need);
    return pl__utf16_to_utf8(p, c->def.CounterSize / 2, out, cap, &need, 1);
}
