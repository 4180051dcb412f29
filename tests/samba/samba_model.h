/* A model of Samba 4.17's HKEY_PERFORMANCE_DATA reader
 * (source3/registry/reg_perfcount.c, as docs/samba.md describes it),
 * written from reading that file, not copied: given the records of
 * perfmon/names.tdb and data.tdb it builds the bytes Samba answers
 * "Global" and "Counter 009"/"Explain 009" with. The live test
 * (test_samba_live.c) checks the model against the real smbd; the layout
 * tests and the fuzzer then use it where no smbd runs. */
#ifndef SAMBA_MODEL_H
#define SAMBA_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "perflib/block.h"
#include "sb_layout.h"

/* Samba's answer to "Global": *out (malloc) holds *len bytes; *len is 0
 * when Samba would fail the whole answer (a missing record, a counter
 * before its object, ...), with the reason in why. Returns -1 only for a
 * record Samba would overflow on or an answer it could not marshal
 * consistently (that is a producer bug: why says which), else 0. */
int model_global(const sb_recs *names, const sb_recs *data, size_t dword_size, const char *netbios,
                 uint8_t **out, size_t *len, char *why, size_t cap);

/* Samba's "Counter 009" (help = 0) or "Explain 009" (help = 1): UTF-16LE
 * MULTI_SZ bytes. -1 with why when a value is longer than Samba's buffer
 * or not ASCII (Samba would read past its buffers). */
int model_titles(const sb_recs *names, int help, uint8_t **out, size_t *len, char *why, size_t cap);

/* Check Samba's answer (from the model or from smbd) against the snapshot
 * it was laid out from, through the map the layout used: every object and
 * counter served where the map says, every value equal to the snapshot's
 * (to 1 part in 2^53 for 64-bit values of objects without instances, which
 * Samba reads with atof()), every unavailable value of an object without
 * instances left out, every instance name the snapshot's full name (cut to
 * 255 bytes). The answer must pass perflib's reader: its objects as they
 * are, its header once TotalByteLength counts the header too. Returns 0 or
 * -1 with why. */
int check_answer(const pl_block *src, const sb_map *map, size_t dword_size, const uint8_t *answer, size_t len,
                 char *why, size_t cap);

/* The block of b (freed here) behind a header with PerfTime 123456789,
 * PerfFreq 10^7 and system TESTHOST: *buf (malloc) holds its *len bytes,
 * opened in *blk. 0, or -1 with why. */
int model_block(pl_builder *b, uint8_t **buf, size_t *len, pl_block *blk, char *why, size_t cap);

/* Decode a UTF-16LE MULTI_SZ "index\0text\0..." into names[index] (an
 * array of `n` strdup'ed UTF-8 strings, NULL where absent). Returns the
 * number of pairs, or -1 when the list is malformed. */
int multisz_decode(const uint8_t *b, size_t len, char **names, size_t n);

#endif
