/* PdhCollectQueryDataEx (include/win32/pdh.h): collection on a library
 * thread every interval, signalled through an event of winsync.c. It lives
 * here, beside the events, and uses only the public PDH functions. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "win32/pdh.h"
#include "win32/winbase.h"
#include "win32_internal.h"

typedef struct collector {
    PDH_HQUERY q;
    DWORD interval_s;
    HANDLE ev;
    int stop;                 /* atomic */
    struct collector *next;
} collector;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static collector *g_list;

/* Stop the collector of q, if any (it frees itself). Lock held. */
static void stop_locked(PDH_HQUERY q)
{
    for (collector **pp = &g_list; *pp; pp = &(*pp)->next) {
        if ((*pp)->q == q) {
            collector *c = *pp;
            *pp = c->next;
            __atomic_store_n(&c->stop, 1, __ATOMIC_SEQ_CST);
            return;
        }
    }
}

static void unlink_self(collector *c)
{
    pthread_mutex_lock(&g_mu);
    for (collector **pp = &g_list; *pp; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
    pthread_mutex_unlock(&g_mu);
}

static void *run(void *arg)
{
    collector *c = arg;
    for (;;) {
        /* wait the interval in short steps, so a stop is seen soon */
        for (DWORD ms = 0; ms < c->interval_s * 1000u; ms += 50) {
            if (__atomic_load_n(&c->stop, __ATOMIC_SEQ_CST)) goto done;
            struct timespec ts = {0, 50 * 1000000L};
            nanosleep(&ts, NULL);
        }
        if (__atomic_load_n(&c->stop, __ATOMIC_SEQ_CST)) goto done;
        PDH_STATUS st = PdhCollectQueryData(c->q);
        if (st == PDH_INVALID_HANDLE) break; /* the query was closed */
        if (!SetEvent(c->ev)) break;          /* the event was closed */
    }
    unlink_self(c);
done:
    free(c);
    return NULL;
}

PL_EXTERN PDH_STATUS WINAPI PdhCollectQueryDataEx(PDH_HQUERY hQuery, DWORD dwIntervalTime, HANDLE hNewDataEvent)
{
    PDH_STATUS st = PdhCollectQueryData(hQuery);
    if (st == PDH_INVALID_HANDLE) return st;
    if (dwIntervalTime == 0 || pl__w32_handle_kind(hNewDataEvent) != PL__W32_H_EVENT) return PDH_INVALID_ARGUMENT;
    collector *c = calloc(1, sizeof *c);
    if (!c) return PDH_MEMORY_ALLOCATION_FAILURE;
    c->q = hQuery;
    c->interval_s = dwIntervalTime > 86400u ? 86400u : dwIntervalTime;
    c->ev = hNewDataEvent;
    pthread_mutex_lock(&g_mu);
    stop_locked(hQuery);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t th;
    int rc = pthread_create(&th, &attr, run, c);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        pthread_mutex_unlock(&g_mu);
        free(c);
        return PDH_MEMORY_ALLOCATION_FAILURE;
    }
    c->next = g_list;
    g_list = c;
    pthread_mutex_unlock(&g_mu);
    (void)SetEvent(hNewDataEvent); /* the first sample, taken above */
    return PDH_CSTATUS_VALID_DATA;
}
