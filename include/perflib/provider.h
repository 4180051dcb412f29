/* perflib: what a provider (a .so with Open/Collect/Close) can use.
 *
 * The entry points have the Windows signatures (PM_OPEN_PROC,
 * PM_COLLECT_PROC, PM_CLOSE_PROC in winperf.h) with fixed-width types; their
 * exported names are whatever the provider's registry record says. A
 * provider builds its objects with the builder in block.h and decides from
 * the query string which objects to return. See docs/providers.md. */
#ifndef PERFLIB_PROVIDER_H
#define PERFLIB_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

#include "block.h"
#include "export.h"
#include "winperf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Export an entry point from a provider .so built with hidden visibility. */
#define PL_PROVIDER_EXPORT __attribute__((visibility("default")))

typedef enum pl_query_kind {
    PL_QUERY_KIND_GLOBAL = 1,   /* "Global", "" or NULL: every object that is not costly */
    PL_QUERY_KIND_COSTLY = 2,   /* "Costly" */
    PL_QUERY_KIND_ITEMS = 3,    /* decimal object indices separated by spaces */
    PL_QUERY_KIND_FOREIGN = 4,  /* "Foreign <host> ...": not for local providers */
    PL_QUERY_KIND_UNKNOWN = 5,  /* anything else: no provider is asked */
} pl_query_kind;

#define PL_QUERY_MAX_ITEMS 256

typedef struct pl_query_items {
    pl_query_kind kind;
    size_t n;                           /* for ITEMS */
    uint32_t items[PL_QUERY_MAX_ITEMS]; /* in the order given, duplicates removed */
} pl_query_items;

/* Classify a query given as UTF-16LE (as Collect receives it; NULL is
 * Global) or as UTF-8. Words are case-insensitive and separated by ASCII
 * whitespace (space, tab, CR, LF, VT, FF). An ITEMS query with more than
 * PL_QUERY_MAX_ITEMS distinct indices keeps the first ones (however long
 * the string: repeated indices do not push later ones out). A UTF-16 query
 * with a character above U+007F is unknown. */
PL_EXTERN void pl_query_parse_w(const WCHAR *query, pl_query_items *q);
PL_EXTERN void pl_query_parse(const char *query, pl_query_items *q);

/* A perflib extension of index queries (docs/query-engine.md, "One
 * process's instances"): the word "pid=N" (N decimal, at most once, with at
 * least one index) asks for the instances of one process only in the
 * objects whose instances belong to processes (PerfProc: Thread, Image,
 * Process Address Space); the Process object itself stays whole, as the
 * parent positions of the others refer to it. pl_query_parse() passes over
 * the word, so a provider that does not know it answers whole objects.
 * Returns 1 and sets *pid when `query` is an index query with the word,
 * else 0 (a malformed one makes the whole query unknown). */
PL_EXTERN int pl_query_process_filter(const char *query, uint32_t *pid);
PL_EXTERN int pl_query_process_filter_w(const WCHAR *query, uint32_t *pid);

/* Should an object with this title index be returned for the query? Global
 * wants the non-costly objects, Costly the costly ones, ITEMS those listed. */
PL_EXTERN int pl_query_wants(const pl_query_items *q, uint32_t object_index, int costly);

/* The usual tail of a Collect: emit the builder's objects at *data within
 * *bytes, following the contract exactly (on success *data advances by
 * *bytes, *objects is set; on too little room returns ERROR_MORE_DATA with
 * *bytes = *objects = 0 and *data untouched). Returns a Win32 error code. */
PL_EXTERN DWORD pl_provider_emit(const pl_builder *b, LPVOID *data, LPDWORD bytes, LPDWORD objects);

/* Optional, a perflib extension (docs/provider-host.md, "Collects that
 * cannot block"): an in-process provider whose Collect entry point is named
 * C may also export C + "NonBlocking" (PerfOsCollect: PerfOsCollectNonBlocking)
 * of this type. The host calls it before each Collect with the same query;
 * a nonzero answer is the provider's promise that this Collect waits on
 * nothing that can stay blocked (no network file system, no device, no
 * mutex another task may hold for long: the kernel-generated text of /proc
 * and /sys, netlink dumps that take no such lock), so the host makes the
 * call on the consumer's own thread instead of handing it to the watchdog
 * thread, and saves the two thread wake-ups of the hand-over. Zero, or no
 * such export, keeps the watchdog. A provider that answers nonzero and then
 * hangs hangs its consumer: answer zero whenever the query reaches a source
 * that might block (a mount, rtnl), or a root other than the live one. It
 * must itself return at once, and is only called under the provider's
 * lock, as Collect is. */
typedef DWORD PL_COLLECT_NONBLOCKING_PROC(LPCWSTR query);
#define PL_NONBLOCKING_SUFFIX "NonBlocking"

/* Optional, a perflib extension (docs/provider-host.md, "The provider's
 * note"): an in-process provider whose Collect entry point is named C may
 * also export C + "Note" (PerfProcCollectNote) of this type: one line of
 * UTF-8 about how it collects now (which source it reads, why it does not
 * use a better one), written NUL-terminated into text (cap bytes, cut to
 * fit). The host asks for it when a consumer reads the provider status
 * (pl_engine_provider_status().note); it must return at once, is only
 * called under the provider's lock, and returns ERROR_SUCCESS. */
typedef DWORD PL_COLLECT_NOTE_PROC(char *text, DWORD cap);
#define PL_NOTE_SUFFIX "Note"

/* Values that could not be read (docs/block-format.md, "Unavailable values"):
 * add a counter PL_CTR_UNAVAILABLE_COUNTERS (indices.h, 1964; the host accepts
 * it from every provider) of type PERF_COUNTER_LARGE_RAWCOUNT_HEX, and set it
 * in each instance to the OR of PL_UNAVAILABLE_BIT(position) of the counters
 * that could not be read there, leaving their values 0. `position` is the
 * definition's position in the object, bases included: a counter declared
 * with base_type takes two (the builder's handle is the position only when no
 * earlier counter has a base). Positions >= 63 share bit 63. */
#define PL_UNAVAILABLE_BIT(pos) ((uint64_t)1 << ((uint64_t)(pos) >= 63 ? 63 : (uint64_t)(pos)))

/* A provider's own First Counter / First Help, as lodctr recorded them, read
 * from the registry store at Open time (a Windows provider reads them from its
 * Services\<name>\Performance key). The store is the default one
 * (PERFLIB_REGISTRY, then the installed store, then the build tree's), opened
 * read-only. Returns ERROR_SUCCESS, ERROR_FILE_NOT_FOUND when the store cannot
 * be opened, ERROR_BADKEY when the provider has no record, or ERROR_NOT_FOUND
 * when its counters were never installed. Outputs are set only on success.
 * Lives in the registry module: a provider using it links pl_registry. */
PL_EXTERN DWORD pl_provider_first_indices(const char *provider, uint32_t *first_counter, uint32_t *first_help);

#ifdef __cplusplus
}
#endif

#endif
