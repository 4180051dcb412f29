/* hello: the smallest useful provider.
 *
 * One object without instances ("Hello") with two counters: a text counter
 * that always reads "Hello, World!" (PERF_COUNTER_TEXT) and a DWORD that
 * counts the Collect calls that returned the object (PERF_COUNTER_RAWCOUNT).
 * It is the seed article's single-instance provider (myperf1), rebuilt on the
 * builder so that no offset or length is computed by hand.
 *
 * Entry points: HelloOpen, HelloCollect, HelloClose (named in hello.ini). */
#include <pthread.h>
#include <stdint.h>

#include "perflib/provider.h"
#include "hellosym.h"
#include "perflib/provider.h"

#define HELLO_PROVIDER "PerflibHello"   /* drivername= in hello.ini */
#define HELLO_TEXT "Hello, World!"
#define HELLO_TEXT_ROOM 32u             /* bytes: 14 UTF-16 units, rounded up */

PL_PROVIDER_EXPORT DWORD HelloOpen(LPWSTR device_names);
PL_PROVIDER_EXPORT DWORD HelloCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects);
PL_PROVIDER_EXPORT DWORD HelloClose(void);

/* The host may call Collect from several threads; one lock keeps the
 * builder and the count consistent. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pl_builder *builder;
static int obj, ctr_greeting, ctr_collects;
static uint32_t object_index;
static uint32_t collects;

static DWORD build(uint32_t first_counter, uint32_t first_help)
{
    builder = pl_builder_new();
    if (!builder) return ERROR_OUTOFMEMORY;
    pl_object_desc od = {
        .name_index = first_counter + HELLO_OBJECT,
        .help_index = first_help + HELLO_OBJECT,
        .detail_level = PERF_DETAIL_NOVICE,
        .default_counter = 1,
        .has_instances = 0,
    };
    pl_counter_desc greeting = {
        .name_index = first_counter + HELLO_GREETING,
        .help_index = first_help + HELLO_GREETING,
        .type = PERF_COUNTER_TEXT,
        .size = HELLO_TEXT_ROOM,
        .detail_level = PERF_DETAIL_NOVICE,
    };
    pl_counter_desc calls = {
        .name_index = first_counter + HELLO_COLLECTS,
        .help_index = first_help + HELLO_COLLECTS,
        .type = PERF_COUNTER_RAWCOUNT,
        .detail_level = PERF_DETAIL_NOVICE,
    };
    if (pl_builder_add_object(builder, &od, &obj) != PL_OK ||
        pl_builder_add_counter(builder, obj, &greeting, &ctr_greeting) != PL_OK ||
        pl_builder_add_counter(builder, obj, &calls, &ctr_collects) != PL_OK ||
        pl_builder_set_text(builder, obj, -1, ctr_greeting, HELLO_TEXT) != PL_OK) {
        pl_builder_free(builder);
        builder = NULL;
        return ERROR_INVALID_PARAMETER;
    }
    object_index = od.name_index;
    return ERROR_SUCCESS;
}

DWORD HelloOpen(LPWSTR device_names)
{
    (void)device_names; /* Linkage\Export: unused */
    uint32_t first_counter = 0, first_help = 0;
    /* Like a Windows provider reading First Counter/First Help from its
     * Performance key. An error here makes the host skip us and retry later. */
    DWORD rc = pl_provider_first_indices(HELLO_PROVIDER, &first_counter, &first_help);
    if (rc != ERROR_SUCCESS) return rc;
    pthread_mutex_lock(&lock);
    if (!builder) {
        rc = build(first_counter, first_help);
        collects = 0;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

DWORD HelloCollect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    pl_query_items q;
    pl_query_parse_w(query, &q);
    pthread_mutex_lock(&lock);
    if (!builder || !pl_query_wants(&q, object_index, 0)) {
        /* Nothing asked of us: report nothing, leave *data alone. */
        pthread_mutex_unlock(&lock);
        *bytes = 0;
        *objects = 0;
        return ERROR_SUCCESS;
    }
    /* The count includes this call; it is only kept when the object really
     * went out (a too-small buffer makes the host call again). */
    pl_builder_set_u32(builder, obj, -1, ctr_collects, collects + 1u);
    DWORD rc = pl_provider_emit(builder, data, bytes, objects);
    if (rc == ERROR_SUCCESS) collects++;
    pthread_mutex_unlock(&lock);
    return rc;
}

DWORD HelloClose(void)
{
    pthread_mutex_lock(&lock);
    pl_builder_free(builder);
    builder = NULL;
    collects = 0;
    pthread_mutex_unlock(&lock);
    return ERROR_SUCCESS;
}
