/* Helpers shared by the format tests. */
#ifndef FMT_TEST_H
#define FMT_TEST_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pl_test.h"
#include "perflib/block.h"

static inline void put16(uint8_t *p, size_t off, uint16_t v) { memcpy(p + off, &v, 2); }
static inline void put32(uint8_t *p, size_t off, uint32_t v) { memcpy(p + off, &v, 4); }
static inline void put64(uint8_t *p, size_t off, uint64_t v) { memcpy(p + off, &v, 8); }
static inline uint32_t get32(const uint8_t *p, size_t off) { uint32_t v; memcpy(&v, p + off, 4); return v; }
static inline uint64_t get64(const uint8_t *p, size_t off) { uint64_t v; memcpy(&v, p + off, 8); return v; }

/* Emit everything a builder holds into a fresh malloc'ed buffer. */
static inline uint8_t *emit_all(pl_builder *b, size_t *len, uint32_t *nobj)
{
    size_t need = 0;
    uint32_t n = 0;
    int rc = pl_builder_emit(b, NULL, 0, &need, &n);
    assert_int_equal(rc, need ? PL_E_MORE_DATA : PL_OK);
    assert_int_equal(need, pl_builder_size(b));
    uint8_t *buf = malloc(need ? need : 1);
    assert_non_null(buf);
    assert_int_equal(pl_builder_emit(b, buf, need, len, nobj), PL_OK);
    assert_int_equal(*len, need);
    return buf;
}

#define ASSERT_OK(x) assert_int_equal((x), PL_OK)

#endif
