/* perflib: counters published by an application (docs/app-counters.md).
 *
 * An application declares its objects and counters once, gets title indices
 * for their names through the registry store (pl_app_register, which
 * pl_app_start calls for you), and then updates plain 64-bit words in a
 * shared-memory segment: a sealed memfd, never a disk-backed file. The
 * built-in provider "AppCounters" reads every live application's segment at
 * each collection and presents its objects like any other provider's, with
 * parent instances; a dead application's objects are gone from the next
 * collection.
 *
 *   static const pl_app_counter_decl ctrs[] = {
 *       {.name = "Weight", .help = "Kilograms.", .type = PERF_COUNTER_LARGE_RAWCOUNT}};
 *   static const pl_app_object_decl objs[] = {
 *       {.name = "Behemoth", .help = "...", .parent = PL_APP_NO_PARENT_OBJECT,
 *        .max_instances = 65536, .counters = ctrs, .ncounters = 1}};
 *   pl_app_decl d = {.app = "Behemoth", .objects = objs, .nobjects = 1};
 *   pl_app *a; pl_error e;
 *   pl_app_start(&d, NULL, &a, &e);
 *   pl_app_instance gloria;
 *   pl_app_instance_create(a, 0, "Gloria", PL_APP_NONE, &gloria, &e);
 *   pl_app_value w;
 *   pl_app_counter(a, gloria, 0, &w, &e);
 *   pl_app_set(w, 1500);                 (a relaxed 64-bit store)
 *
 * Threads: pl_app_instance_create/delete and pl_app_counter may be called
 * from any thread (they take the application's mutex). Updates through a
 * pl_app_value never lock: pl_app_set and pl_app_add_single are for a
 * counter with one writer thread; pl_app_add and pl_app_inc are atomic and
 * lose nothing with any number of writers. A reader never blocks a writer. */
#ifndef PERFLIB_APP_H
#define PERFLIB_APP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "status.h"
#include "winperf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The built-in provider that presents every application's objects. */
#define PL_APP_PROVIDER "AppCounters"
/* The Linkage export of an application's record in the store: how such a
 * record (no library; its objects come through AppCounters) is told from
 * a provider's. */
#define PL_APP_RECORD_MARKER "perflib application"

/* Limits of one application. */
#define PL_APP_MAX_OBJECTS 64
#define PL_APP_MAX_COUNTERS 64        /* per object */
#define PL_APP_MAX_TOTAL_COUNTERS 1024 /* all objects together */
#define PL_APP_MAX_INSTANCES 65536    /* per object */
#define PL_APP_MAX_NAME 127           /* bytes of UTF-8 in an instance name */
#define PL_APP_MAX_APP_NAME 100       /* bytes of the application name */

#define PL_APP_NO_PARENT_OBJECT (-1)

typedef struct pl_app_counter_decl {
    const char *name;          /* English (009) name, UTF-8 */
    const char *help;          /* English help text; NULL: none */
    uint32_t type;             /* PERF_COUNTER_RAWCOUNT(_HEX), PERF_COUNTER_LARGE_RAWCOUNT(_HEX),
                                  PERF_COUNTER_COUNTER, PERF_COUNTER_BULK_COUNT,
                                  PERF_COUNTER_DELTA or PERF_COUNTER_LARGE_DELTA */
    uint32_t detail_level;     /* PERF_DETAIL_*; 0: NOVICE */
    int32_t default_scale;     /* power of ten */
} pl_app_counter_decl;

typedef struct pl_app_object_decl {
    const char *name, *help;   /* English (009), UTF-8 */
    uint32_t detail_level;     /* 0: NOVICE */
    int costly;                /* returned for "Costly" instead of "Global" */
    int parent;                /* position of the parent object in this
                                  declaration, or PL_APP_NO_PARENT_OBJECT */
    uint32_t max_instances;    /* 0: an object without instances (one counter
                                  block, always there); 1..PL_APP_MAX_INSTANCES */
    const pl_app_counter_decl *counters;
    size_t ncounters;          /* 1..PL_APP_MAX_COUNTERS */
} pl_app_object_decl;

/* A name and help text in another language. counter -1 names the object. */
typedef struct pl_app_translation {
    const char *lang;          /* "007", "019", ... (languages the store lacks are ignored) */
    uint32_t object;
    int32_t counter;
    const char *name, *help;
} pl_app_translation;

typedef struct pl_app_decl {
    const char *app;           /* the application's name: its provider record in
                                  the store (1..PL_APP_MAX_APP_NAME bytes, no
                                  control characters or backslashes) */
    const pl_app_object_decl *objects;
    size_t nobjects;           /* 1..PL_APP_MAX_OBJECTS */
    const pl_app_translation *translations;
    size_t ntranslations;
} pl_app_decl;

/* The title indices an application's names got. Name index of the n-th
 * name (objects and their counters in declaration order: object 0, its
 * counters, object 1, ...) = first_counter + 2n; help = first_help + 2n. */
typedef struct pl_app_indices {
    uint32_t first_counter, last_counter, first_help, last_help;
    int reused;                /* 1: the store already had exactly these names */
} pl_app_indices;

/* The registration call (what lodctr does for a provider's .ini): give the
 * declaration's names title indices in the store at store_path (NULL: the
 * default store, as registry.h says), in one transaction. An application
 * registered before with the same names (every 009 name and help at its
 * offset) keeps its indices; a changed declaration is uninstalled and
 * installed again (new indices). The record is marked as an application's
 * and has no library. PL_E_EXISTS when a provider that is not an
 * application already uses the name; PL_E_INVAL/PL_E_ENCODING for a bad
 * declaration (err names the field). ind may be NULL. */
PL_EXTERN int pl_app_register(const pl_app_decl *d, const char *store_path, pl_app_indices *ind, pl_error *err);
/* Remove an application's names and record (an installer's uninstall).
 * PL_E_NOT_FOUND when absent, PL_E_EXISTS when the record is not an
 * application's or belongs to another user. */
PL_EXTERN int pl_app_unregister(const char *app, const char *store_path, pl_error *err);

/* Who may publish (docs/app-counters.md, "Who may publish"): an
 * application's record belongs to the user who registered it (root may
 * register again, keeping the owner; any other user gets PL_E_EXISTS), and
 * readers show only segments published by processes of its owner or of
 * the users named here. Set the other users (at most 64; n 0: none), as
 * its owner or root: an installer
 * running as root registers the application and lets the service's user
 * publish it. PL_E_EXISTS when this process is neither, PL_E_NOT_FOUND
 * when the application is not registered. */
PL_EXTERN int pl_app_set_publishers(const char *app, const char *store_path, const uint32_t *uids, size_t n,
                                    pl_error *err);

typedef struct pl_app pl_app;

typedef struct pl_app_options {
    const char *store_path;    /* NULL: the default store */
    int no_register;           /* 1: do not register; the application must be
                                  registered already (PL_E_NOT_FOUND if not) and
                                  let this user publish it (PL_E_EXISTS if not) */
} pl_app_options;

/* Register (unless opt->no_register) and publish: create the segment and
 * announce it (docs/app-counters.md, "The segment"). Objects without
 * instances exist from the start, with zero values. *out is valid only on
 * PL_OK; free with pl_app_stop(). PL_E_OS when the segment cannot be made. */
PL_EXTERN int pl_app_start(const pl_app_decl *d, const pl_app_options *opt, pl_app **out, pl_error *err);
/* Withdraw the announcement and unmap the segment: the objects are gone
 * from the next collection. Every pl_app_value of `a` becomes invalid.
 * Accepts NULL. */
PL_EXTERN void pl_app_stop(pl_app *a);
/* The indices the application's names have. */
PL_EXTERN pl_app_indices pl_app_get_indices(const pl_app *a);

/* An instance: its object, slot and unique id (never reused within one run
 * of the application). */
typedef struct pl_app_instance {
    uint32_t object;
    uint32_t slot;
    uint64_t id;
} pl_app_instance;

/* "No instance": the parent of an instance without one. */
#define PL_APP_NONE ((pl_app_instance){UINT32_MAX, UINT32_MAX, 0})
/* The one counter block of object `obj` when it has no instances. */
#define PL_APP_SINGLE(obj) ((pl_app_instance){(uint32_t)(obj), 0, 1})

/* Create an instance of `object` (one with max_instances > 0) named `name`
 * (1..PL_APP_MAX_NAME bytes of UTF-8, no control characters), with parent
 * instance `parent` (an instance of the object's parent object, or
 * PL_APP_NONE). Readers see it whole, with zero values, or not at all.
 * PL_E_RANGE when the object already has max_instances instances,
 * PL_E_NOT_FOUND for a parent that no longer exists, PL_E_INVAL/
 * PL_E_ENCODING for bad arguments. */
PL_EXTERN int pl_app_instance_create(pl_app *a, uint32_t object, const char *name, pl_app_instance parent,
                                     pl_app_instance *out, pl_error *err);
/* Delete an instance: readers stop seeing it at once (whole). Its children
 * stay, without a parent. PL_E_NOT_FOUND when it was already deleted. */
PL_EXTERN int pl_app_instance_delete(pl_app *a, pl_app_instance inst, pl_error *err);

/* A counter's value word. */
typedef struct pl_app_value {
    _Atomic uint64_t *p;
} pl_app_value;

/* The value word of counter `counter` (position in the object's
 * declaration) of `inst` (PL_APP_SINGLE(obj) for an object without instances).
 * On an error *out still points somewhere harmless (a scratch word nobody
 * reads), so an update through it does no damage. The word is valid until
 * the instance is deleted or pl_app_stop(). */
PL_EXTERN int pl_app_counter(pl_app *a, pl_app_instance inst, uint32_t counter, pl_app_value *out, pl_error *err);

/* Updates. A 32-bit counter type whose value does not fit 32 bits is shown
 * as unavailable, never wrapped. */
static inline void pl_app_set(pl_app_value v, uint64_t x) { atomic_store_explicit(v.p, x, memory_order_relaxed); }
/* One writer thread per counter: a load and a store, no locked instruction. */
static inline void pl_app_add_single(pl_app_value v, uint64_t d)
{
    atomic_store_explicit(v.p, atomic_load_explicit(v.p, memory_order_relaxed) + d, memory_order_relaxed);
}
/* Any number of writer threads (and processes): an atomic add. */
static inline void pl_app_add(pl_app_value v, uint64_t d) { atomic_fetch_add_explicit(v.p, d, memory_order_relaxed); }
static inline void pl_app_inc(pl_app_value v) { atomic_fetch_add_explicit(v.p, 1, memory_order_relaxed); }
static inline uint64_t pl_app_get(pl_app_value v) { return atomic_load_explicit(v.p, memory_order_relaxed); }

#ifdef __cplusplus
}
#endif

#endif
