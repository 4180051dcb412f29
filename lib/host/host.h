/* This file is private to libperflib: no API/ABI guarantee.
 *
 * The provider host: loads the providers named in the registry store (in
 * this process, or each isolated one in its own helper process with
 * enforced timeouts), calls Open/Collect/Close with the Windows contract,
 * validates every result and disables providers that break the contract,
 * crash or keep timing out. See docs/provider-host.md. */
#ifndef PL_HOST_H
#define PL_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "perflib/provider.h"
#include "perflib/query.h"
#include "perflib/registry.h"
#include "perflib/status.h"
#include "pl_buf.h"

typedef struct pl__host pl__host;

typedef struct pl__host_config {
    const char *provider_dir;   /* where relative Library names resolve */
    int use_syslog;
    uint32_t max_more_data_rounds; /* 0: default (16) */
    size_t max_provider_bytes;     /* 0: default (256 MiB) */
} pl__host_config;

/* `st` is the engine's store, shared with it; the store serialises its own
 * calls (registry.h), so the host needs no lock of its own for it. */
int pl__host_new(pl_store *st, const pl__host_config *cfg, pl__host **out, pl_error *err);
/* Calls Close on every provider that was opened, then dlcloses them; an
 * isolated provider's helper is sent Close, then stopped and reaped. */
void pl__host_free(pl__host *h);

/* Ask every provider the query wants and append their validated objects to
 * `out`; *nobjects is increased by the number appended. Providers that fail
 * are logged/disabled/retried as the contract says; their objects are simply
 * absent. `pid` >= 0: an index query's "pid=N" (pl_query_process_filter),
 * passed on to the providers. Returns PL_OK or PL_E_NOMEM. */
int pl__host_collect(pl__host *h, const pl_query_items *q, int64_t pid, pl__buf *out, uint32_t *nobjects);

int pl__host_status(pl__host *h, pl_provider_status **list, size_t *n);

/* pl_engine_trim: free the providers' answer buffers that no call is
 * using (each call takes the provider's lock); the next Collect starts at
 * the size the buffer had. */
void pl__host_trim(pl__host *h);

/* Windows' multiple-of-8 rule (host_align.c): does a Collect result need
 * padding (its byte count or an object's TotalByteLength is not a multiple
 * of 8)? pl__host_align8 copies the objects to a new buffer (*out, free();
 * *outlen bytes), each at an 8-aligned offset, zero-padded, TotalByteLength
 * raised to the padded length. PL_OK, PL_E_NOMEM, or PL_E_BAD_BLOCK with
 * `why` when an object's header or length does not lie inside the bytes
 * returned. No other module is used (the fuzz target builds it alone). */
int pl__host_needs_align(const uint8_t *data, uint32_t bytes, uint32_t nobj);
int pl__host_align8(const uint8_t *data, uint32_t bytes, uint32_t nobj, uint8_t **out, size_t *outlen, char *why,
                    size_t whylen);

/* host_app.c: may the built-in AppCounters provider use this name (help: 1)
 * index? 0 for every other provider. */
int pl__host_app_index_ok(const pl_provider_info *p, uint32_t idx, int help);
/* host_app.c: may a provider without an Object List own an object this
 * items query names? 1, but 0 for the built-in AppCounters when every
 * index is perflib's own (<= PL_IDX_BUILTIN_RESERVED_LAST): applications'
 * objects have third-party indices (pl__host_app_index_ok), so such a
 * query is none of its business and it is not called. */
int pl__host_may_own(const pl_provider_info *p, const pl_query_items *q);
/* host_app.c: the string Open gets: the engine's store path for the
 * built-in AppCounters (so it reads the applications' records where the
 * engine reads its titles), the record's Linkage export for every other
 * provider (NULL: none). */
const char *pl__host_open_arg(pl_store *st, const pl_provider_info *p);
/* host_app.c: is this the record of an application (pl_app_register)? Its
 * objects come through AppCounters; the host never loads it. */
int pl__host_is_app_record(const pl_provider_info *p);

#endif
