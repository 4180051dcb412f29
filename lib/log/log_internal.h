/* This file is private to libperflib's log module: no API/ABI guarantee.
 * The on-disk layout is documented in docs/counter-log.md. */
#ifndef PL_LOG_INTERNAL_H
#define PL_LOG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "perflib/log.h"
#include "pl_internal.h"

/* File: 16-byte preamble, then frames. */
#define PL__LOG_MAGIC "PLCLOG\r\n"
#define PL__LOG_VERSION 1u
#define PL__LOG_PREAMBLE 16u

/* Index sidecar: 32-byte preamble (magic, version, log id), 16-byte entries. */
#define PL__IDX_MAGIC "PLCIDX\r\n"
#define PL__IDX_PREAMBLE 32u
#define PL__IDX_ENTRY 16u

/* Frame header (40 bytes, little-endian):
 *   0 u32 sync (PL__FRAME_SYNC)   4 u8 kind   5 u8 flags   6 u16 zero
 *   8 u32 stored payload bytes   12 u32 decoded bytes   16 i64 time
 *  24 u64 key frame offset (delta frames; else 0)
 *  32 u32 CRC-32 of the payload  36 u32 CRC-32 of bytes 0..35 */
#define PL__FRAME_SYNC 0x474C4C50u /* "PLLG" */
#define PL__FRAME_HDR 40u
#define PL__KIND_HEADER 1
#define PL__KIND_KEY 2
#define PL__KIND_DELTA 3
#define PL__KIND_GAP 4
#define PL__FLAG_DEFLATE 1u

/* Limits on what a (hostile) file may declare. */
#ifndef PL__LOG_MAX_DECODED
#define PL__LOG_MAX_DECODED (256u << 20)
#endif
#define PL__LOG_MAX_PAYLOAD (1u << 30)
#define PL__LOG_MAX_COLUMNS 1000000u

typedef struct pl__frame {
    uint8_t kind, flags;
    uint32_t stored, decoded;
    int64_t time;
    uint64_t key_off;
    uint32_t crc;
} pl__frame;

/* Write a frame header for `f` (crc of the payload already in f->crc). */
void pl__frame_put(uint8_t out[PL__FRAME_HDR], const pl__frame *f);
/* Parse and check a frame header: 0 when the sync word and header CRC are
 * right and the fields are within limits, -1 otherwise. */
int pl__frame_get(const uint8_t in[PL__FRAME_HDR], pl__frame *f);

/* Appended to a pl__buf (pl_buf.h): a varint; a string as its varint
 * length and bytes. PL_OK or PL_E_NOMEM. */
int pl__log_varint(pl__buf *b, uint64_t v);
int pl__log_str(pl__buf *b, const char *s);

/* A bounded reader over untrusted bytes. Every get fails (returns -1 and
 * sets bad) instead of reading past the end. */
typedef struct pl__rd {
    const uint8_t *p;
    size_t len, pos;
    int bad;
} pl__rd;
int pl__rd_varint(pl__rd *r, uint64_t *v);
int pl__rd_bytes(pl__rd *r, const uint8_t **p, size_t n);
/* A string: varint length + bytes, no NUL inside; *s is malloc'd. */
int pl__rd_str(pl__rd *r, char **s);

static inline uint64_t pl__zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t pl__unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* Delta codec over 8-byte little-endian words: cur against key (key may be
 * NULL/0 for a key frame). Appends the token stream to out (docs). */
int pl__delta_encode(const uint8_t *cur, size_t len, const uint8_t *key, size_t keylen, pl__buf *out);
/* Decode `len` bytes into out (capacity >= pl__align8(len)). -1 when the
 * tokens do not describe exactly len bytes. */
int pl__delta_decode(const uint8_t *tok, size_t ntok, const uint8_t *key, size_t keylen, uint8_t *out, size_t len);

/* Payload packing: tokens, deflated when that is smaller (flag set), with
 * the token length in front. */
int pl__pack(const pl__buf *tokens, pl__buf *payload, uint8_t *flags);
/* Unpack into *tokens (malloc'd, *ntok bytes, at most max). -1 on a
 * corrupt payload. */
int pl__unpack(const uint8_t *payload, size_t n, uint8_t flags, size_t max, uint8_t **tokens, size_t *ntok);

/* The most token bytes `decoded` bytes can need (10 per word). */
static inline size_t pl__max_tokens(size_t decoded) { return (decoded / 8 + 1) * 10 + 16; }

/* The header record's payload, parsed. */
typedef struct pl__log_meta {
    uint8_t id[16];
    pl_log_header h;
    pl_log_column *cols;
    char *machine;
    pl_titles *titles, *titles_en;
} pl__log_meta;
/* Serialise h (with id) into out. */
int pl__meta_encode(const pl_log_header *h, const uint8_t id[16], pl__buf *out, pl_error *err);
/* Parse a header payload (hostile). */
int pl__meta_decode(const uint8_t *p, size_t n, pl__log_meta *m, pl_error *err);
void pl__meta_free(pl__log_meta *m);

uint32_t pl__crc32(const void *p, size_t n);

/* Reader internals the writer uses to append: the end of the last complete
 * record, the log id, a record's file offset. */
uint64_t pl__log_end(const pl_log *log);
void pl__log_id(const pl_log *log, uint8_t id[16]);
uint64_t pl__log_offset(const pl_log *log, size_t i);

#endif
