/* instances: a provider whose instances appear and disappear.
 *
 * One object ("Rotation") with two DWORD counters per instance. The names
 * come from a fixed list of five; the n-th collection (n = 1, 2, ...) shows
 * the three names starting at position (n - 1) mod 5, wrapping around:
 *
 *   collection 1: north east south     collection 4: west center north
 *   collection 2: east south west      collection 5: center north east
 *   collection 3: south west center    collection 6: like 1 again
 *
 * "Slot" is the name's position in the list; "Appearances" counts the
 * collections, this one included, in which the instance was present. It is
 * the seed article's multi-instance provider (myperf1_inst) with a
 * predictable instance set instead of random numbers, on the builder.
 *
 * Entry points: RotationOpen, RotationCollect, RotationClose. */
#include <pthread.h>
#include <stdint.h>

#include "perflib/provider.h"
#include "perflib/provider.h"
#include "rotatesym.h"

#define ROTATE_PROVIDER "PerflibRotation"  /* drivername= in instances.ini */
#define POOL 5
#define SHOWN 3

PL_PROVIDER_EXPORT DWORD RotationOpen(LPWSTR device_names);
PL_PROVIDER_EXPORT DWORD RotationCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects);
PL_PROVIDER_EXPORT DWORD RotationClose(void);

static const char *const names[POOL] = {"north", "east", "south", "west", "center"};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pl_builder *builder;
static int opened;
static uint32_t first_counter, first_help;
static uint32_t collections;          /* collections that returned the object */
static uint32_t appearances[POOL];

/* Describe collection number n (1-based) in the builder. */
static DWORD build(uint32_t n)
{
    pl_builder_reset(builder);
    pl_object_desc od = {
        .name_index = first_counter + ROTATE_OBJECT,
        .help_index = first_help + ROTATE_OBJECT,
        .detail_level = PERF_DETAIL_NOVICE,
        .default_counter = 0,
        .has_instances = 1,
    };
    pl_counter_desc slot = {
        .name_index = first_counter + ROTATE_SLOT,
        .help_index = first_help + ROTATE_SLOT,
        .type = PERF_COUNTER_RAWCOUNT,
    };
    pl_counter_desc seen = {
        .name_index = first_counter + ROTATE_APPEARANCES,
        .help_index = first_help + ROTATE_APPEARANCES,
        .type = PERF_COUNTER_RAWCOUNT,
    };
    int obj, c_slot, c_seen;
    if (pl_builder_add_object(builder, &od, &obj) != PL_OK ||
        pl_builder_add_counter(builder, obj, &slot, &c_slot) != PL_OK ||
        pl_builder_add_counter(builder, obj, &seen, &c_seen) != PL_OK)
        return ERROR_OUTOFMEMORY;
    for (uint32_t j = 0; j < SHOWN; j++) {
        uint32_t s = (n - 1u + j) % POOL;
        int inst;
        if (pl_builder_add_instance(builder, obj, names[s], 0, 0, PERF_NO_UNIQUE_ID, &inst) != PL_OK ||
            pl_builder_set_u32(builder, obj, inst, c_slot, s) != PL_OK ||
            pl_builder_set_u32(builder, obj, inst, c_seen, appearances[s] + 1u) != PL_OK)
            return ERROR_OUTOFMEMORY;
    }
    return ERROR_SUCCESS;
}

DWORD RotationOpen(LPWSTR device_names)
{
    (void)device_names;
    uint32_t fc = 0, fh = 0;
    DWORD rc = pl_provider_first_indices(ROTATE_PROVIDER, &fc, &fh);
    if (rc != ERROR_SUCCESS) return rc;
    pthread_mutex_lock(&lock);
    if (!opened) {
        builder = pl_builder_new();
        if (!builder) {
            rc = ERROR_OUTOFMEMORY;
        } else {
            first_counter = fc;
            first_help = fh;
            collections = 0;
            for (int i = 0; i < POOL; i++) appearances[i] = 0;
            opened = 1;
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

DWORD RotationCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    pl_query_items q;
    pl_query_parse_w(query, &q);
    pthread_mutex_lock(&lock);
    if (!opened || !pl_query_wants(&q, first_counter + ROTATE_OBJECT, 0)) {
        pthread_mutex_unlock(&lock);
        *bytes = 0;
        *objects = 0;
        return ERROR_SUCCESS;
    }
    uint32_t n = collections + 1u;
    DWORD rc = build(n);
    if (rc == ERROR_SUCCESS) rc = pl_provider_emit(builder, data, bytes, objects);
    if (rc == ERROR_SUCCESS) {
        /* The rotation moves on only when the object really went out: a
         * too-small buffer makes the host ask again for the same one. */
        collections = n;
        for (uint32_t j = 0; j < SHOWN; j++) appearances[(n - 1u + j) % POOL]++;
    } else if (rc != ERROR_MORE_DATA) {
        *bytes = 0;
        *objects = 0;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

DWORD RotationClose(void)
{
    pthread_mutex_lock(&lock);
    pl_builder_free(builder);
    builder = NULL;
    opened = 0;
    pthread_mutex_unlock(&lock);
    return ERROR_SUCCESS;
}
