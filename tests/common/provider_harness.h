/* A harness for the tests of built-in providers (tests/perfos, perfproc,
 * perfdisk, perfnet): load a provider .so as the host does, collect a query
 * into an owned buffer under the Collect contract, open the result with the
 * block reader, and find objects, instances and values in it. Every helper
 * fails the running cmocka test (fail_msg / assert_*) instead of returning
 * an error, except where a return value says otherwise. Also small helpers
 * for canned trees made in a temporary directory. */
#ifndef PROVIDER_HARNESS_H
#define PROVIDER_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "perflib/block.h"
#include "perflib/winperf.h"
#include "pl_test.h"

/* ------------------------------------------------------------ loading */

typedef struct ph_provider {
    void *so;
    PM_OPEN_PROC *open;
    PM_COLLECT_PROC *collect;
    PM_CLOSE_PROC *close;
} ph_provider;

/* Set PERFLIB_SYSROOT to `sysroot` (NULL unsets it: the real "/"), dlopen
 * `so_path` (RTLD_NOW | RTLD_LOCAL) and resolve <prefix>Open, <prefix>Collect
 * and <prefix>Close ("PerfDisk" -> PerfDiskOpen, ...). Does not call Open. */
void ph_load(ph_provider *p, const char *so_path, const char *prefix, const char *sysroot);
/* Close (which must return ERROR_SUCCESS), then dlclose. */
void ph_unload(ph_provider *p);
/* dlclose without calling Close. */
void ph_dlclose(ph_provider *p);

/* A query as the UTF-16 string Collect takes (ASCII only, at most 255
 * characters). The result is one of 4 static buffers used in turn. */
WCHAR *ph_w(const char *query);

/* --------------------------------------------------------- collecting */

typedef struct ph_result {
    uint8_t *buf;             /* owned; ph_result_free() */
    DWORD bytes, objects;     /* what Collect reported */
    pl_block blk;             /* the reader's view of buf (PL_BLOCK_BARE) */
} ph_result;

/* One collection of `query` (NULL is passed to Collect as NULL) into a
 * buffer of `cap` bytes, doubled after each ERROR_MORE_DATA. Checks the
 * contract on the way: after MORE_DATA *data is unchanged, *bytes and
 * *objects are 0 and not a byte of the buffer (nor 16 guard bytes after it)
 * was written; after success *data advanced by exactly *bytes, a multiple of
 * 8 within the buffer, and the guard bytes are untouched. The result must
 * then open with pl_block_open(PL_BLOCK_BARE, *objects). Returns Collect's
 * final code; for any code but ERROR_SUCCESS, r->buf is NULL. */
DWORD ph_collect(ph_provider *p, const char *query, size_t cap, ph_result *r);
/* The same, failing the test unless Collect returns ERROR_SUCCESS. */
void ph_collect_ok(ph_provider *p, const char *query, size_t cap, ph_result *r);
void ph_result_free(ph_result *r); /* accepts a freed or failed result */
/* A Collect of `query` into a 64-byte buffer that must return `code`
 * (ERROR_SUCCESS for a query the provider does not answer, ERROR_INVALID_HANDLE
 * before Open, ...) with *bytes = *objects = 0 and *data unchanged. */
void ph_expect_nothing(ph_provider *p, const char *query, DWORD code);

/* ------------------------------------------------------------ finding */

/* The object with that title index: fails the test when it is missing. */
void ph_object(const ph_result *r, uint32_t index, pl_object *o);
int ph_has_object(const ph_result *r, uint32_t index);
/* Position of the instance whose own name is `name`; fails when missing. */
int32_t ph_instance(const pl_object *o, const char *name);
/* The counter with that name index (not a base); fails when missing. */
void ph_counter(const pl_object *o, uint32_t ctr_index, pl_counter *c);
uint32_t ph_type(const pl_object *o, uint32_t ctr_index);
uint32_t ph_position(const pl_object *o, uint32_t ctr_index);
/* Raw value, base and availability (pl_counter_available) of a counter for
 * the instance at position `inst` (-1: the single counter block)... */
uint64_t ph_value(const pl_object *o, int32_t inst, uint32_t ctr_index);
uint64_t ph_base(const pl_object *o, int32_t inst, uint32_t ctr_index); /* the counter must have a base */
int ph_available(const pl_object *o, int32_t inst, uint32_t ctr_index);
/* ... or for the instance named `name`. */
uint64_t ph_value_of(const pl_object *o, const char *name, uint32_t ctr_index);
uint64_t ph_base_of(const pl_object *o, const char *name, uint32_t ctr_index);
int ph_available_of(const pl_object *o, const char *name, uint32_t ctr_index);
/* The object has exactly these n instances, in order: own names, or (full)
 * the reader's full names ("parent/name#n"). */
void ph_names_are(const pl_object *o, const char *const *want, size_t n, int full);

/* ------------------------------------------------------ canned trees */

/* A fresh directory from mkdtemp(template) (template like
 * "/tmp/perfxx_XXXXXX", modified in place). */
void ph_tempdir(char *template_);
/* Write `text` to root/rel, creating the directories on the way. */
void ph_put(const char *root, const char *rel, const char *text);
/* Create root/rel as a directory (and its parents). */
void ph_mkdir(const char *root, const char *rel);
/* Remove root and everything below it (symlinks are removed, not followed). */
void ph_rmtree(const char *root);

#endif
