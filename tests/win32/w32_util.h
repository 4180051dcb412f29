/* Helpers shared by the tests of the Windows registry layer. */
#ifndef W32_UTIL_H
#define W32_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "pq_fixture.h"

/* The deterministic store: the fixed title database of pq_fixture plus the
 * PerfqueryTest provider (pq_testprov.so). PERFLIB_REGISTRY points at it. */
int w32_fixture(pq_fixture *fx);

/* The First Counter/Help the store gave `provider`. 0 or -1. */
int w32_first_indices(const pq_fixture *fx, const char *provider, uint32_t *fc, uint32_t *fh);

/* A copy of `text` (free()) where each title index (a number at the start
 * of a line or after "Object " / "help ") equal to fc + k or fh + k (k even,
 * 0 <= k <= span) is written "<FC+k>" / "<FH+k>", so golden files do not
 * depend on where the store puts a new provider. */
char *w32_symbolic_indices(const char *text, uint32_t fc, uint32_t fh, uint32_t span);

/* An ASCII/UTF-8 string widened to a new UTF-16 string (free()). */
uint16_t *w32_widen(const char *s);

/* The number of strings before the empty one in an 8-bit MULTI_SZ of len
 * bytes, or -1 when it is not terminated inside len. */
long w32_multisz_count(const char *m, size_t len);
/* The string after `key` in an "index\0text\0" list, or NULL. */
const char *w32_multisz_lookup(const char *m, const char *key);

/* The name the engine gives this host: gethostname up to the first dot,
 * upper-cased. */
void w32_system_name(char *out, size_t cap);

#endif
