/* The Windows-named PDH functions (include/win32/pdh.h) over the native
 * layer: handle table, Windows struct layouts, argument order of checks.
 *
 * Handles are not pointers: a handle packs a kind tag (query/counter), a
 * slot index and the slot's generation. A handle is valid when its tag is
 * the expected kind, the slot is in use by that kind and the generation
 * matches, so a closed handle, a counter passed as a query or any other
 * pointer value gives PDH_INVALID_HANDLE without being dereferenced.
 *
 * One process-wide lock serialises every call (the native query objects are
 * not thread-safe; Windows' PDH is). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pdh_internal.h"
#include "perflib/log.h"
#include "win32/pdh.h"

#define KIND_QUERY 0x51u   /* 'Q' */
#define KIND_COUNTER 0x43u /* 'C' */
#define KIND_LOG 0x4Cu     /* 'L': PdhBindInputDataSource; obj is the file name */

/* A query reading a counter log (docs/counter-log.md): each
 * PdhCollectQueryData moves to the next record. */
typedef struct logq {
    pl_log *log;
    pl_pdh_source src;
    pl_log_source *ls;
    size_t next;
} logq;

typedef struct slot {
    uint32_t gen;
    uint8_t kind;             /* 0: free */
    uint32_t owner;           /* counters: slot index of their query */
    DWORD_PTR user;
    void *obj;                /* pl_pdh_query * or pl_pdh_counter * */
    logq *log;                /* queries on a log file */
} slot;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static slot *g_slots;
static uint32_t g_nslots;
static pl_pdh_source g_local;  /* the local engine, opened on first use */
static int g_local_open;
static pl_pdh_source g_override; /* pl_pdh_win32_set_source */
static int g_has_override;

#if UINTPTR_MAX > 0xFFFFFFFFu
#define IDX_BITS 24
#define GEN_MASK 0xFFFFFFFFu
#define KIND_SHIFT 56
#else
#define IDX_BITS 16
#define GEN_MASK 0xFFu
#define KIND_SHIFT 24
#endif
#define MAX_SLOTS ((1u << IDX_BITS) - 2u)

static HANDLE make_handle(uint8_t kind, uint32_t idx)
{
    uintptr_t h = ((uintptr_t)kind << KIND_SHIFT) | ((uintptr_t)(g_slots[idx].gen & GEN_MASK) << IDX_BITS) |
                  (uintptr_t)(idx + 1);
    return (HANDLE)h;
}

/* The slot of a handle of `kind`, or -1. Call with the lock held. */
static int64_t find_slot(HANDLE hd, uint8_t kind)
{
    uintptr_t h = (uintptr_t)hd;
    if ((h >> KIND_SHIFT) != kind) return -1;
    uintptr_t low = h & (((uintptr_t)1 << KIND_SHIFT) - 1);
    uint32_t idx1 = (uint32_t)(low & ((1u << IDX_BITS) - 1u));
    uint32_t gen = (uint32_t)(low >> IDX_BITS);
    if (idx1 == 0 || idx1 > g_nslots) return -1;
    const slot *s = &g_slots[idx1 - 1];
    if (s->kind != kind || (s->gen & GEN_MASK) != gen || !s->obj) return -1;
    return (int64_t)(idx1 - 1);
}

static int64_t new_slot(uint8_t kind, void *obj, uint32_t owner, DWORD_PTR user)
{
    uint32_t i = 0;
    while (i < g_nslots && g_slots[i].kind) i++;
    if (i == g_nslots) {
        if (g_nslots >= MAX_SLOTS) return -1;
        uint32_t nn = g_nslots ? g_nslots * 2 : 16;
        if (nn > MAX_SLOTS) nn = MAX_SLOTS;
        slot *ns = realloc(g_slots, nn * sizeof *ns);
        if (!ns) return -1;
        memset(ns + g_nslots, 0, (nn - g_nslots) * sizeof *ns);
        for (uint32_t k = g_nslots; k < nn; k++) ns[k].gen = 1;
        g_slots = ns;
        g_nslots = nn;
    }
    slot *s = &g_slots[i];
    s->kind = kind;
    s->obj = obj;
    s->owner = owner;
    s->user = user;
    return i;
}

static void free_slot(uint32_t i)
{
    slot *s = &g_slots[i];
    s->kind = 0;
    s->obj = NULL;
    s->log = NULL;
    s->user = 0;
    s->gen = (s->gen + 1) & GEN_MASK;
    if (s->gen == 0) s->gen = 1;
}

/* The source for the real-time data source. Lock held. */
static uint32_t get_source(pl_pdh_source *out)
{
    if (g_has_override) { *out = g_override; return 0; }
    if (!g_local_open) {
        uint32_t st = pl__pdh_open_local(&g_local, NULL);
        if (st) return st;
        g_local_open = 1;
    }
    *out = g_local;
    return 0;
}

PL_EXTERN void pl_pdh_win32_set_source(const struct pl_pdh_source *src)
{
    pthread_mutex_lock(&g_lock);
    if (src) {
        g_override = *src;
        g_has_override = 1;
    } else {
        memset(&g_override, 0, sizeof g_override);
        g_has_override = 0;
    }
    pthread_mutex_unlock(&g_lock);
}

#define LOCK() pthread_mutex_lock(&g_lock)
#define UNLOCK_RET(x) do { PDH_STATUS r_ = (x); pthread_mutex_unlock(&g_lock); return r_; } while (0)

static int is_local_machine(LPCSTR m)
{
    if (!m || !*m) return 1;
    if (m[0] == '\\' && m[1] == '\\') m += 2;
    if (!*m || strcmp(m, ".") == 0 || pl__utf8_casecmp(m, "localhost") == 0) return 1;
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) == 0 && pl__utf8_casecmp(m, host) == 0) return 1;
    return 0;
}

/* ------------------------------------------------------------ log files */

static void logq_close(logq *l)
{
    if (!l) return;
    pl_pdh_source_close(&l->src);
    pl_log_close(l->log);
    free(l);
}

/* Open a counter log as a data source (its first readable record is
 * current until the first collect). */
static uint32_t logq_open(const char *file, logq **out)
{
    *out = NULL;
    logq *l = calloc(1, sizeof *l);
    if (!l) return PDH_MEMORY_ALLOCATION_FAILURE;
    int s = pl_log_open(file, &l->log, NULL);
    if (s) {
        free(l);
        switch (s) {
        case PL_E_NOT_FOUND: return PDH_FILE_NOT_FOUND;
        case PL_E_PARSE: case PL_E_UNSUPPORTED: case PL_E_ENCODING: return PDH_UNKNOWN_LOG_FORMAT;
        case PL_E_BAD_BLOCK: return PDH_UNABLE_READ_LOG_HEADER;
        case PL_E_NOMEM: return PDH_MEMORY_ALLOCATION_FAILURE;
        default: return PDH_LOG_FILE_OPEN_ERROR;
        }
    }
    if (pl_log_source_open(l->log, &l->src, &l->ls, NULL) != PL_OK) {
        /* a log of values none of whose columns is a counter path */
        pl_log_close(l->log);
        free(l);
        return PDH_LOG_TYPE_NOT_FOUND;
    }
    *out = l;
    return 0;
}

/* ------------------------------------------------------------- queries */

/* Open a query on the real-time source (file NULL) or on a log. Lock held. */
static uint32_t open_query(const char *file, DWORD_PTR dwUserData, PDH_HQUERY *phQuery)
{
    pl_pdh_source src;
    logq *l = NULL;
    uint32_t st = file ? logq_open(file, &l) : get_source(&src);
    if (st) return st;
    if (l) src = l->src;
    pl_pdh_query *q = NULL;
    st = pl_pdh_open_query(&src, &q, NULL);
    if (st) {
        logq_close(l);
        return st;
    }
    int64_t i = new_slot(KIND_QUERY, q, 0, dwUserData);
    if (i < 0) {
        pl_pdh_close_query(q);
        logq_close(l);
        return PDH_MEMORY_ALLOCATION_FAILURE;
    }
    g_slots[i].log = l;
    *phQuery = make_handle(KIND_QUERY, (uint32_t)i);
    return PDH_CSTATUS_VALID_DATA;
}

PL_EXTERN PDH_STATUS WINAPI PdhOpenQueryA(LPCSTR szDataSource, DWORD_PTR dwUserData, PDH_HQUERY *phQuery)
{
    if (!phQuery) return PDH_INVALID_ARGUMENT;
    LOCK();
    UNLOCK_RET(open_query(szDataSource && *szDataSource ? szDataSource : NULL, dwUserData, phQuery));
}

PL_EXTERN PDH_STATUS WINAPI PdhBindInputDataSourceA(PDH_HLOG *phDataSource, LPCSTR LogFileNameList)
{
    if (!phDataSource) return PDH_INVALID_ARGUMENT;
    if (!LogFileNameList || !*LogFileNameList) {
        *phDataSource = H_REALTIME_DATASOURCE;
        return PDH_CSTATUS_VALID_DATA;
    }
    /* the first name of the list; it must open as a log now */
    logq *l = NULL;
    uint32_t st = logq_open(LogFileNameList, &l);
    if (st) return st;
    logq_close(l);
    char *name = pl__strdup(LogFileNameList);
    if (!name) return PDH_MEMORY_ALLOCATION_FAILURE;
    LOCK();
    int64_t i = new_slot(KIND_LOG, name, 0, 0);
    if (i < 0) {
        free(name);
        UNLOCK_RET(PDH_MEMORY_ALLOCATION_FAILURE);
    }
    *phDataSource = make_handle(KIND_LOG, (uint32_t)i);
    UNLOCK_RET(PDH_CSTATUS_VALID_DATA);
}

PL_EXTERN PDH_STATUS WINAPI PdhOpenQueryH(PDH_HLOG hDataSource, DWORD_PTR dwUserData, PDH_HQUERY *phQuery)
{
    if (!phQuery) return PDH_INVALID_ARGUMENT;
    LOCK();
    if (hDataSource == H_REALTIME_DATASOURCE) UNLOCK_RET(open_query(NULL, dwUserData, phQuery));
    int64_t li = find_slot(hDataSource, KIND_LOG);
    if (li < 0) UNLOCK_RET(PDH_INVALID_HANDLE);
    UNLOCK_RET(open_query(g_slots[li].obj, dwUserData, phQuery));
}

PL_EXTERN PDH_STATUS WINAPI PdhCloseLog(PDH_HLOG hLog, DWORD dwFlags)
{
    (void)dwFlags;
    LOCK();
    int64_t li = find_slot(hLog, KIND_LOG);
    if (li < 0) UNLOCK_RET(PDH_INVALID_HANDLE);
    free(g_slots[li].obj);
    free_slot((uint32_t)li);
    UNLOCK_RET(PDH_CSTATUS_VALID_DATA);
}

PL_EXTERN PDH_STATUS WINAPI PdhGetDataSourceTimeRangeA(LPCSTR szDataSource, LPDWORD pdwNumEntries,
                                                       PPDH_TIME_INFO pInfo, LPDWORD pdwBufferSize)
{
    if (!pdwNumEntries || !pInfo || !pdwBufferSize) return PDH_INVALID_ARGUMENT;
    if (!szDataSource || !*szDataSource) return PDH_DATA_SOURCE_IS_REAL_TIME;
    if (*pdwBufferSize < sizeof *pInfo) {
        *pdwBufferSize = sizeof *pInfo;
        return PDH_MORE_DATA;
    }
    pl_log *log = NULL;
    int s = pl_log_open(szDataSource, &log, NULL);
    if (s) return s == PL_E_NOT_FOUND ? PDH_FILE_NOT_FOUND : s == PL_E_PARSE ? PDH_UNKNOWN_LOG_FORMAT
                                                                              : PDH_UNABLE_READ_LOG_HEADER;
    size_t n = pl_log_count(log);
    memset(pInfo, 0, sizeof *pInfo);
    if (n) {
        pInfo->StartTime = pl__pdh_local_filetime(pl_log_time(log, 0));
        pInfo->EndTime = pl__pdh_local_filetime(pl_log_time(log, n - 1));
    }
    pInfo->SampleCount = n > 0xFFFFFFFFu ? 0xFFFFFFFFu : (DWORD)n;
    pl_log_close(log);
    *pdwNumEntries = 1;
    *pdwBufferSize = sizeof *pInfo;
    return PDH_CSTATUS_VALID_DATA;
}

PL_EXTERN PDH_STATUS WINAPI PdhCloseQuery(PDH_HQUERY hQuery)
{
    LOCK();
    int64_t qi = find_slot(hQuery, KIND_QUERY);
    if (qi < 0) UNLOCK_RET(PDH_INVALID_HANDLE);
    for (uint32_t i = 0; i < g_nslots; i++)
        if (g_slots[i].kind == KIND_COUNTER && g_slots[i].owner == (uint32_t)qi) free_slot(i);
    pl_pdh_close_query(g_slots[qi].obj);
    logq_close(g_slots[qi].log);
    free_slot((uint32_t)qi);
    UNLOCK_RET(PDH_CSTATUS_VALID_DATA);
}

PL_EXTERN PDH_STATUS WINAPI PdhAddCounterA(PDH_HQUERY hQuery, LPCSTR szFullCounterPath, DWORD_PTR dwUserData,
                                           PDH_HCOUNTER *phCounter)
{
    if (!szFullCounterPath || !phCounter) return PDH_INVALID_ARGUMENT;
    LOCK();
    *phCounter = NULL;
    int64_t qi = find_slot(hQuery, KIND_QUERY);
    if (qi < 0) UNLOCK_RET(PDH_INVALID_HANDLE);
    pl_pdh_counter *c = NULL;
    uint32_t st = pl_pdh_add_counter(g_slots[qi].obj, szFullCounterPath, &c, NULL);
    if (st) UNLOCK_RET(st);
    int64_t ci = new_slot(KIND_COUNTER, c, (uint32_t)qi, dwUserData);
    if (ci < 0) {
        pl_pdh_remove_counter(c);
        UNLOCK_RET(PDH_MEMORY_ALLOCATION_FAILURE);
    }
    *phCounter = make_handle(KIND_COUNTER, (uint32_t)ci);
    UNLOCK_RET(PDH_CSTATUS_VALID_DATA);
}

PL_EXTERN PDH_STATUS WINAPI PdhAddEnglishCounterA(PDH_HQUERY hQuery, LPCSTR szFullCounterPath, DWORD_PTR dwUserData,
                                                  PDH_HCOUNTER *phCounter)
{
    return PdhAddCounterA(hQuery, szFullCounterPath, dwUserData, phCounter);
}

PL_EXTERN PDH_STATUS WINAPI PdhRemoveCounter(PDH_HCOUNTER hCounter)
{
    LOCK();
    int64_t ci = find_slot(hCounter, KIND_COUNTER);
    if (ci < 0) UNLOCK_RET(PDH_INVALID_HANDLE);
    uint32_t st = pl_pdh_remove_counter(g_slots[ci].obj);
    free_slot((uint32_t)ci);
    UNLOCK_RET(st);
}

PL_EXTERN PDH_STATUS WINAPI PdhCollectQueryData(PDH_HQUERY hQuery)
{
    LOCK();
    int64_t qi = find_slot(hQuery, KIND_QUERY);
    if (qi < 0) UNLOCK_RET(PDH_INVALID_HANDLE);
    logq *l = g_slots[qi].log;
    if (l) {
        /* a log query reads the next record; damaged records are passed
         * over, a gap collects nothing (the values are invalid) */
        int s;
        do {
            if (l->next >= pl_log_count(l->log)) UNLOCK_RET(PDH_NO_MORE_DATA);
            s = pl_log_source_set(l->ls, l->next++, NULL);
        } while (s == PL_E_BAD_BLOCK);
    }
    UNLOCK_RET(pl_pdh_collect(g_slots[qi].obj, NULL));
}

/* ------------------------------------------------------------- values */

static void to_fmt(const pl_pdh_value *v, DWORD fmt, PDH_FMT_COUNTERVALUE *out)
{
    memset(out, 0, sizeof *out);
    out->CStatus = v->cstatus;
    if (fmt & PDH_FMT_LONG) out->longValue = v->v.long_value;
    else if (fmt & PDH_FMT_LARGE) out->largeValue = v->v.large_value;
    else if (fmt & PDH_FMT_DOUBLE) out->doubleValue = v->v.double_value;
}

static void to_win_raw(const pl_pdh_raw *r, PDH_RAW_COUNTER *out)
{
    memset(out, 0, sizeof *out);
    out->CStatus = r->cstatus;
    out->TimeStamp.dwLowDateTime = (DWORD)((uint64_t)r->timestamp & 0xFFFFFFFFu);
    out->TimeStamp.dwHighDateTime = (DWORD)((uint64_t)r->timestamp >> 32);
    out->FirstValue = r->first;
    out->SecondValue = r->second;
    out->MultiCount = r->multi_count;
}

static void from_win_raw(const PDH_RAW_COUNTER *r, pl_pdh_raw *out)
{
    out->cstatus = r->CStatus;
    out->timestamp = (int64_t)(((uint64_t)r->TimeStamp.dwHighDateTime << 32) | r->TimeStamp.dwLowDateTime);
    out->first = r->FirstValue;
    out->second = r->SecondValue;
    out->multi_count = r->MultiCount;
}

/* The counter's query has not collected yet: Windows then reports a raw
 * value (and the counter info) with CStatus 0 and no data, not an error
 * (Wine's conformance test_PdhGetRawCounterValue records it). Lock held. */
static int never_collected(uint32_t ci)
{
    uint32_t qi = g_slots[ci].owner;
    return qi < g_nslots && g_slots[qi].kind == KIND_QUERY && pl_pdh_query_time(g_slots[qi].obj) == 0;
}

PL_EXTERN PDH_STATUS WINAPI PdhGetFormattedCounterValue(PDH_HCOUNTER hCounter, DWORD dwFormat, LPDWORD lpdwType,
                                                        PPDH_FMT_COUNTERVALUE pValue)
{
    if (!pValue) return PDH_INVALID_ARGUMENT;
    LOCK();
    int64_t ci = find_slot(hCounter, KIND_COUNTER);
    if (ci < 0) UNLOCK_RET(PDH_INVALID_HANDLE);
    pl_pdh_value v;
    memset(&v, 0, sizeof v);
    uint32_t type = 0;
    uint32_t st = pl_pdh_get_formatted(g_slots[ci].obj, dwFormat, &type, &v);
    if (st == PDH_INVALID_ARGUMENT) UNLOCK_RET(st);
    if (lpdwType) *lpdwType = type;
    to_fmt(&v, dwFormat, pValue);
    if (st == PDH_INVALID_DATA && never_collected((uint32_t)ci) && pl__pdh_displayable(type) &&
        !pl__pdh_two_sample(type)) {
        /* A type one sample formats (System Up Time, a raw count), asked
         * before the query's first collection: Windows succeeds (Wine's
         * test_PdhGetFormattedCounterValue). The value stays 0 and says
         * what it is: CStatus PDH_CSTATUS_INVALID_DATA, no made-up number. */
        memset(pValue, 0, sizeof *pValue);
        pValue->CStatus = PDH_CSTATUS_INVALID_DATA;
        UNLOCK_RET(PDH_CSTATUS_VALID_DATA);
    }
    UNLOCK_RET(st);
}

PL_EXTERN PDH_STATUS WINAPI PdhGetFormattedCounterArrayA(PDH_HCOUNTER hCounter, DWORD dwFormat,
                                                         LPDWORD lpdwBufferSize, LPDWORD lpdwItemCount,
                                                         PPDH_FMT_COUNTERVALUE_ITEM_A ItemBuffer)
{
    if (!lpdwBufferSize || !lpdwItemCount) return PDH_INVALID_ARGUMENT;
    LOCK();
    int64_t ci = find_slot(hCounter, KIND_COUNTER);
    if (ci < 0) UNLOCK_RET(PDH_INVALID_HANDLE);
    pl_pdh_value_item *it = NULL;
    size_t n = 0;
    uint32_t st = pl_pdh_get_formatted_array(g_slots[ci].obj, dwFormat, &it, &n);
    if (st) UNLOCK_RET(st);
    size_t need = n * sizeof *ItemBuffer;
    for (size_t i = 0; i < n; i++) need += strlen(it[i].name) + 1;
    if (need > 0xFFFFFFFFu || n > 0xFFFFFFFFu) { pl_free(it); UNLOCK_RET(PDH_INSUFFICIENT_BUFFER); }
    if (!ItemBuffer || *lpdwBufferSize < need) {
        *lpdwBufferSize = (DWORD)need;
        *lpdwItemCount = (DWORD)n;
        pl_free(it);
        UNLOCK_RET(PDH_MORE_DATA);
    }
    char *w = (char *)(ItemBuffer + n);
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(it[i].name) + 1;
        memcpy(w, it[i].name, l);
        ItemBuffer[i].szName = w;
        w += l;
        to_fmt(&it[i].value, dwFormat, &ItemBuffer[i].FmtValue);
    }
    *lpdwBufferSize = (DWORD)need;
    *lpdwItemCount = (DWORD)n;
    pl_free(it);
    UNLOCK_RET(PDH_CSTATUS_VALID_DATA);
}

PL_EXTERN PDH_STATUS WINAPI PdhGetRawCounterValue(PDH_HCOUNTER hCounter, LPDWORD lpdwType, PPDH_RAW_COUNTER pValue)
{
    if (!pValue) return PDH_INVALID_ARGUMENT;
    LOCK();
    int64_t ci = find_slot(hCounter, KIND_COUNTER);
    if (ci < 0) UNLOCK_RET(PDH_INVALID_HANDLE);
    pl_pdh_raw r;
    uint32_t type = 0;
    uint32_t st = pl_pdh_get_raw(g_slots[ci].obj, &type, &r);
    if (st == PDH_INVALID_ARGUMENT) UNLOCK_RET(st);
    /* Windows returns success and tells the data's state in CStatus */
    if (lpdwType) *lpdwType = type;
    if (never_collected((uint32_t)ci)) {
        memset(pValue, 0, sizeof *pValue);
        UNLOCK_RET(PDH_CSTATUS_VALID_DATA);
    }
    to_win_raw(&r, pValue);
    UNLOCK_RET(PDH_CSTATUS_VALID_DATA);
}

PL_EXTERN PDH_STATUS WINAPI PdhCalculateCounterFromRawValue(PDH_HCOUNTER hCounter, DWORD dwFormat,
                                                            PPDH_RAW_COUNTER rawValue1, PPDH_RAW_COUNTER rawValue2,
                                                            PPDH_FMT_COUNTERVALUE fmtValue)
{
    if (!fmtValue || !rawValue1) return PDH_INVALID_ARGUMENT;
    LOCK();
    int64_t ci = find_slot(hCounter, KIND_COUNTER);
    if (ci < 0) UNLOCK_RET(PDH_INVALID_HANDLE);
    pl_pdh_raw r1, r2;
    from_win_raw(rawValue1, &r1);
    if (rawValue2) from_win_raw(rawValue2, &r2);
    pl_pdh_value v;
    memset(&v, 0, sizeof v);
    uint32_t st = pl_pdh_calculate(g_slots[ci].obj, dwFormat, &r1, rawValue2 ? &r2 : NULL, &v);
    if (st == PDH_INVALID_ARGUMENT) UNLOCK_RET(st);
    to_fmt(&v, dwFormat, fmtValue);
    UNLOCK_RET(st);
}

PL_EXTERN PDH_STATUS WINAPI PdhComputeCounterStatistics(PDH_HCOUNTER hCounter, DWORD dwFormat, DWORD dwFirstEntry,
                                                        DWORD dwNumEntries, PPDH_RAW_COUNTER lpRawValueArray,
                                                        PPDH_STATISTICS data)
{
    if (!lpRawValueArray || !data) return PDH_INVALID_ARGUMENT;
    LOCK();
    int64_t ci = find_slot(hCounter, KIND_COUNTER);
    if (ci < 0) UNLOCK_RET(PDH_INVALID_HANDLE);
    if (dwNumEntries == 0 || dwFirstEntry >= dwNumEntries) UNLOCK_RET(PDH_INVALID_ARGUMENT);
    pl_pdh_raw *raws = malloc((size_t)dwNumEntries * sizeof *raws);
    if (!raws) UNLOCK_RET(PDH_MEMORY_ALLOCATION_FAILURE);
    for (DWORD i = 0; i < dwNumEntries; i++) from_win_raw(&lpRawValueArray[i], &raws[i]);
    pl_pdh_stats s;
    memset(&s, 0, sizeof s);
    uint32_t st = pl_pdh_statistics(g_slots[ci].obj, dwFormat, dwFirstEntry, dwNumEntries, raws, &s);
    free(raws);
    if (st == PDH_INVALID_ARGUMENT) UNLOCK_RET(st);
    memset(data, 0, sizeof *data);
    data->dwFormat = s.format;
    data->count = s.count;
    to_fmt(&s.min, dwFormat, &data->min);
    to_fmt(&s.max, dwFormat, &data->max);
    to_fmt(&s.mean, dwFormat, &data->mean);
    UNLOCK_RET(st);
}

PL_EXTERN PDH_STATUS WINAPI PdhSetCounterScaleFactor(PDH_HCOUNTER hCounter, LONG lFactor)
{
    LOCK();
    int64_t ci = find_slot(hCounter, KIND_COUNTER);
    if (ci < 0) UNLOCK_RET(PDH_INVALID_HANDLE);
    UNLOCK_RET(pl_pdh_set_scale(g_slots[ci].obj, lFactor));
}

static size_t opt_len(const char *s) { return s ? strlen(s) + 1 : 0; }

static LPSTR put_str(char **w, const char *s)
{
    if (!s) return NULL;
    size_t l = strlen(s) + 1;
    char *r = *w;
    memcpy(r, s, l);
    *w += l;
    return r;
}

PL_EXTERN PDH_STATUS WINAPI PdhGetCounterInfoA(PDH_HCOUNTER hCounter, BOOLEAN bRetrieveExplainText,
                                               LPDWORD pdwBufferSize, PPDH_COUNTER_INFO_A lpBuffer)
{
    LOCK();
    int64_t ci = find_slot(hCounter, KIND_COUNTER);
    if (ci < 0) UNLOCK_RET(PDH_INVALID_HANDLE);
    if (!pdwBufferSize) UNLOCK_RET(PDH_INVALID_ARGUMENT);
    pl_pdh_counter_info in;
    uint32_t st = pl_pdh_get_counter_info(g_slots[ci].obj, &in);
    if (st) UNLOCK_RET(st);
    const char *explain = bRetrieveExplainText ? in.explain : NULL;
    /* the strings start at DataBuffer, as Windows documents */
    size_t strs = opt_len(in.full_path) + opt_len(in.machine) + opt_len(in.object) + opt_len(in.instance) +
                  opt_len(in.parent) + opt_len(in.counter) + opt_len(explain);
    size_t need = offsetof(PDH_COUNTER_INFO_A, DataBuffer) + strs;
    if (need < sizeof(PDH_COUNTER_INFO_A)) need = sizeof(PDH_COUNTER_INFO_A);
    if (need > 0xFFFFFFFFu) UNLOCK_RET(PDH_INSUFFICIENT_BUFFER);
    if (!lpBuffer || *pdwBufferSize < sizeof(PDH_COUNTER_INFO_A)) {
        *pdwBufferSize = (DWORD)need;
        UNLOCK_RET(PDH_MORE_DATA);
    }
    /* Room for the structure but not its strings: Windows fills the
     * structure alone (the strings NULL) and succeeds, the common way to read
     * a counter's type and scale (Wine's conformance test, which passes on
     * Windows, asks with exactly sizeof(PDH_COUNTER_INFO)). */
    int strings = *pdwBufferSize >= need;
    if (!strings) need = sizeof(PDH_COUNTER_INFO_A);
    /* the native raw status of the newest sample (wildcards: none) */
    pl_pdh_raw r;
    memset(&r, 0, sizeof r);
    uint32_t rs = pl_pdh_get_raw(g_slots[ci].obj, NULL, &r);
    PPDH_COUNTER_INFO_A o = lpBuffer;
    memset(o, 0, sizeof *o);
    o->dwLength = (DWORD)need;
    o->dwType = in.type;
    o->CVersion = PDH_CVERSION_WIN50;
    o->CStatus = rs == PDH_INVALID_ARGUMENT || never_collected((uint32_t)ci) ? PDH_CSTATUS_VALID_DATA : r.cstatus;
    o->lScale = in.scale;
    o->lDefaultScale = in.default_scale;
    o->dwUserData = g_slots[ci].user;
    o->dwQueryUserData = g_slots[g_slots[ci].owner].user;
    o->dwInstanceIndex = in.instance_index;
    if (strings) {
        char *w = (char *)o->DataBuffer;
        o->szFullPath = put_str(&w, in.full_path);
        o->szMachineName = put_str(&w, in.machine);
        o->szObjectName = put_str(&w, in.object);
        o->szInstanceName = put_str(&w, in.instance);
        o->szParentInstance = put_str(&w, in.parent);
        o->szCounterName = put_str(&w, in.counter);
        o->szExplainText = put_str(&w, explain);
    }
    *pdwBufferSize = (DWORD)need;
    UNLOCK_RET(PDH_CSTATUS_VALID_DATA);
}

/* ---------------------------------------------------------------- paths */

PL_EXTERN PDH_STATUS WINAPI PdhParseCounterPathA(LPCSTR szFullPathBuffer,
                                                 PPDH_COUNTER_PATH_ELEMENTS_A pCounterPathElements,
                                                 LPDWORD pdwBufferSize, DWORD dwFlags)
{
    if (!szFullPathBuffer || !pdwBufferSize || dwFlags != 0) return PDH_INVALID_ARGUMENT;
    pl_pdh_path_elements *e = NULL;
    uint32_t st = pl_pdh_parse_path_alloc(szFullPathBuffer, &e, NULL);
    if (st) return st;
    size_t need = sizeof *pCounterPathElements + opt_len(e->machine) + opt_len(e->object) + opt_len(e->instance) +
                  opt_len(e->parent) + opt_len(e->counter);
    if (need > 0xFFFFFFFFu) { pl_free(e); return PDH_INSUFFICIENT_BUFFER; }
    if (!pCounterPathElements || *pdwBufferSize < need) {
        *pdwBufferSize = (DWORD)need;
        pl_free(e);
        return PDH_MORE_DATA;
    }
    PPDH_COUNTER_PATH_ELEMENTS_A o = pCounterPathElements;
    char *w = (char *)(o + 1);
    PDH_COUNTER_PATH_ELEMENTS_A t;
    memset(&t, 0, sizeof t);
    t.szMachineName = put_str(&w, e->machine);
    t.szObjectName = put_str(&w, e->object);
    t.szInstanceName = put_str(&w, e->instance);
    t.szParentInstance = put_str(&w, e->parent);
    t.dwInstanceIndex = e->index;
    t.szCounterName = put_str(&w, e->counter);
    *o = t;
    *pdwBufferSize = (DWORD)need;
    pl_free(e);
    return PDH_CSTATUS_VALID_DATA;
}

PL_EXTERN PDH_STATUS WINAPI PdhMakeCounterPathA(PPDH_COUNTER_PATH_ELEMENTS_A pCounterPathElements,
                                                LPSTR szFullPathBuffer, LPDWORD pcchBufferSize, DWORD dwFlags)
{
    if (!pCounterPathElements || !pcchBufferSize) return PDH_INVALID_ARGUMENT;
    if (dwFlags & (PDH_PATH_WBEM_RESULT | PDH_PATH_WBEM_INPUT)) return PDH_NOT_IMPLEMENTED;
    if (dwFlags & 0xFFFFu) return PDH_INVALID_ARGUMENT; /* the high word is a language id */
    pl_pdh_path_elements e;
    memset(&e, 0, sizeof e);
    e.machine = pCounterPathElements->szMachineName;
    e.object = pCounterPathElements->szObjectName;
    e.instance = pCounterPathElements->szInstanceName;
    e.parent = pCounterPathElements->szParentInstance;
    e.index = pCounterPathElements->dwInstanceIndex;
    e.counter = pCounterPathElements->szCounterName;
    size_t size = szFullPathBuffer ? *pcchBufferSize : 0;
    uint32_t st = pl_pdh_make_path(&e, szFullPathBuffer, &size, NULL);
    if (st == PDH_CSTATUS_VALID_DATA || st == PDH_MORE_DATA) {
        if (size > 0xFFFFFFFFu) return PDH_INSUFFICIENT_BUFFER;
        *pcchBufferSize = (DWORD)size;
    }
    return st;
}

typedef struct plist {
    char **v;
    size_t n;
} plist;

static int plist_has(const plist *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0) return 1;
    return 0;
}

/* path with its instance part and/or counter put back to the pattern's */
static char *unexpand(const char *path, const pl_pdh_path_elements *pat, int keep_counter, int keep_inst)
{
    pl_pdh_path_elements *e = NULL;
    if (pl_pdh_parse_path_alloc(path, &e, NULL)) return NULL;
    pl_pdh_path_elements t = *e;
    if (keep_counter) t.counter = pat->counter;
    if (keep_inst) {
        t.instance = pat->instance;
        t.parent = pat->parent;
        t.index = pat->index;
    }
    size_t need = 0;
    pl_pdh_make_path(&t, NULL, &need, NULL);
    char *b = malloc(need ? need : 1);
    if (b && pl_pdh_make_path(&t, b, &need, NULL)) { free(b); b = NULL; }
    pl_free(e);
    return b;
}

PL_EXTERN PDH_STATUS WINAPI PdhExpandWildCardPathA(LPCSTR szDataSource, LPCSTR szWildCardPath,
                                                   PZZSTR mszExpandedPathList, LPDWORD pcchPathListLength,
                                                   DWORD dwFlags)
{
    if (!szWildCardPath || !*szWildCardPath || !pcchPathListLength) return PDH_INVALID_ARGUMENT;
    if (dwFlags & ~(DWORD)(PDH_NOEXPANDCOUNTERS | PDH_NOEXPANDINSTANCES)) return PDH_INVALID_ARGUMENT;
    pl_pdh_path_elements *pat = NULL;
    uint32_t st = pl_pdh_parse_path_alloc(szWildCardPath, &pat, NULL);
    if (st) return st;
    int cw = strcmp(pat->counter, "*") == 0;
    int iw = (pat->instance && strcmp(pat->instance, "*") == 0) || (pat->parent && strcmp(pat->parent, "*") == 0);
    int keep_counter = cw && (dwFlags & PDH_NOEXPANDCOUNTERS);
    int keep_inst = iw && (dwFlags & PDH_NOEXPANDINSTANCES);
    LOCK();
    pl_pdh_source src;
    logq *lq = NULL;
    /* a log expands against its first readable record */
    st = szDataSource && *szDataSource ? logq_open(szDataSource, &lq) : get_source(&src);
    if (lq) src = lq->src;
    char **paths = NULL;
    size_t n = 0;
    if (!st) st = pl_pdh_expand_path(&src, szWildCardPath, &paths, &n, NULL);
    logq_close(lq);
    pthread_mutex_unlock(&g_lock);
    if (st) { pl_free(pat); return st; }
    plist out = {calloc(n + 1, sizeof(char *)), 0};
    if (!out.v) { pl_free(paths); pl_free(pat); return PDH_MEMORY_ALLOCATION_FAILURE; }
    for (size_t i = 0; i < n && !st; i++) {
        char *p = (keep_counter || keep_inst) ? unexpand(paths[i], pat, keep_counter, keep_inst) : pl__strdup(paths[i]);
        if (!p) { st = PDH_MEMORY_ALLOCATION_FAILURE; break; }
        if (plist_has(&out, p)) free(p);
        else out.v[out.n++] = p;
    }
    pl_free(paths);
    pl_free(pat);
    size_t need = 1;
    for (size_t i = 0; i < out.n; i++) need += strlen(out.v[i]) + 1;
    if (need < 2) need = 2; /* an empty list is two NULs */
    if (!st && need > 0xFFFFFFFFu) st = PDH_INSUFFICIENT_BUFFER;
    if (!st && (!mszExpandedPathList || *pcchPathListLength < need)) {
        *pcchPathListLength = (DWORD)need;
        st = PDH_MORE_DATA;
    } else if (!st) {
        char *w = mszExpandedPathList;
        for (size_t i = 0; i < out.n; i++) {
            size_t l = strlen(out.v[i]) + 1;
            memcpy(w, out.v[i], l);
            w += l;
        }
        *w++ = '\0';
        if (out.n == 0) *w = '\0';
        *pcchPathListLength = (DWORD)need;
    }
    for (size_t i = 0; i < out.n; i++) free(out.v[i]);
    free(out.v);
    return st;
}

PL_EXTERN PDH_STATUS WINAPI PdhValidatePathA(LPCSTR szFullPathBuffer)
{
    if (!szFullPathBuffer || !*szFullPathBuffer) return PDH_INVALID_ARGUMENT;
    LOCK();
    pl_pdh_source src;
    uint32_t st = get_source(&src);
    if (st) UNLOCK_RET(st);
    UNLOCK_RET(pl_pdh_validate_path(&src, szFullPathBuffer, NULL));
}

/* ---------------------------------------------------------------- names */

PL_EXTERN PDH_STATUS WINAPI PdhLookupPerfIndexByNameA(LPCSTR szMachineName, LPCSTR szNameBuffer, LPDWORD pdwIndex)
{
    if (!szNameBuffer || !pdwIndex) return PDH_INVALID_ARGUMENT;
    if (!is_local_machine(szMachineName)) return PDH_CSTATUS_NO_MACHINE;
    LOCK();
    pl_pdh_source src;
    uint32_t st = get_source(&src);
    if (st) UNLOCK_RET(st);
    uint32_t idx = 0;
    st = pl_pdh_lookup_index(&src, szNameBuffer, &idx);
    if (!st) *pdwIndex = idx;
    UNLOCK_RET(st);
}

PL_EXTERN PDH_STATUS WINAPI PdhLookupPerfNameByIndexA(LPCSTR szMachineName, DWORD dwNameIndex, LPSTR szNameBuffer,
                                                      LPDWORD pcchNameBufferSize)
{
    if (!pcchNameBufferSize) return PDH_INVALID_ARGUMENT;
    if (dwNameIndex == 0) return PDH_CSTATUS_VALID_DATA; /* Windows: success, nothing written */
    if (!is_local_machine(szMachineName)) return PDH_CSTATUS_NO_MACHINE;
    LOCK();
    pl_pdh_source src;
    uint32_t st = get_source(&src);
    if (st) UNLOCK_RET(st);
    size_t size = szNameBuffer ? *pcchNameBufferSize : 0;
    st = pl_pdh_lookup_name(&src, dwNameIndex, szNameBuffer, &size);
    if ((st == PDH_CSTATUS_VALID_DATA || st == PDH_MORE_DATA) && size <= 0xFFFFFFFFu)
        *pcchNameBufferSize = (DWORD)size;
    UNLOCK_RET(st);
}

/* ----------------------------------------------------- more functions */

PL_EXTERN PDH_STATUS WINAPI PdhCollectQueryDataWithTime(PDH_HQUERY hQuery, LONGLONG *pllTimeStamp)
{
    if (!pllTimeStamp) return PDH_INVALID_ARGUMENT;
    LOCK();
    int64_t qi = find_slot(hQuery, KIND_QUERY);
    if (qi < 0) UNLOCK_RET(PDH_INVALID_HANDLE);
    uint32_t st = pl_pdh_collect(g_slots[qi].obj, NULL);
    int64_t t = pl_pdh_query_time(g_slots[qi].obj);
    if (!st || st == PDH_NO_DATA) *pllTimeStamp = t ? pl__pdh_local_filetime(t) : 0;
    UNLOCK_RET(st);
}

PL_EXTERN PDH_STATUS WINAPI PdhGetCounterTimeBase(PDH_HCOUNTER hCounter, LONGLONG *pTimeBase)
{
    if (!pTimeBase) return PDH_INVALID_ARGUMENT; /* before the handle, as Windows: (NULL, NULL) is this */
    LOCK();
    int64_t ci = find_slot(hCounter, KIND_COUNTER);
    if (ci < 0) UNLOCK_RET(PDH_INVALID_HANDLE);
    int64_t f = 0;
    uint32_t st = pl_pdh_get_time_base(g_slots[ci].obj, &f);
    if (st) UNLOCK_RET(st);
    *pTimeBase = f;
    UNLOCK_RET(PDH_CSTATUS_VALID_DATA);
}

PL_EXTERN PDH_STATUS WINAPI PdhGetDllVersion(LPDWORD lpdwVersion)
{
    if (!lpdwVersion) return PDH_INVALID_ARGUMENT;
    *lpdwVersion = PDH_VERSION;
    return PDH_CSTATUS_VALID_DATA;
}

PL_EXTERN PDH_STATUS WINAPI PdhValidatePathExA(PDH_HLOG hDataSource, LPCSTR szFullPathBuffer)
{
    if (!hDataSource) return PdhValidatePathA(szFullPathBuffer);
    if (!szFullPathBuffer || !*szFullPathBuffer) return PDH_INVALID_ARGUMENT;
    /* a bound log: validated against its first readable record */
    LOCK();
    int64_t li = find_slot(hDataSource, KIND_LOG);
    if (li < 0) UNLOCK_RET(PDH_INVALID_HANDLE);
    logq *lq = NULL;
    uint32_t st = logq_open(g_slots[li].obj, &lq);
    if (!st) st = pl_pdh_validate_path(&lq->src, szFullPathBuffer, NULL);
    logq_close(lq);
    UNLOCK_RET(st);
}

PL_EXTERN double WINAPI PdhVbGetDoubleCounterValue(PDH_HCOUNTER hCounter, LPDWORD pdwCounterStatus)
{
    PDH_FMT_COUNTERVALUE v;
    memset(&v, 0, sizeof v);
    PDH_STATUS st = PdhGetFormattedCounterValue(hCounter, PDH_FMT_DOUBLE, NULL, &v);
    if (pdwCounterStatus) *pdwCounterStatus = st == PDH_CSTATUS_VALID_DATA ? v.CStatus : (DWORD)st;
    return st == PDH_CSTATUS_VALID_DATA ? v.doubleValue : 0.0;
}

/* A list of strings as a MULTI_SZ of *pcch characters (the final empty
 * string included): PDH_MORE_DATA with the size when `out` is NULL or too
 * small. */
static PDH_STATUS put_multisz(char *const *list, size_t n, PZZSTR out, LPDWORD pcch)
{
    size_t need = 1;
    for (size_t i = 0; i < n; i++) need += strlen(list[i]) + 1;
    if (need > 0xFFFFFFFFu) return PDH_INSUFFICIENT_BUFFER;
    if (!out || *pcch < need) {
        *pcch = (DWORD)need;
        return PDH_MORE_DATA;
    }
    char *w = out;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(list[i]) + 1;
        memcpy(w, list[i], l);
        w += l;
    }
    *w = '\0';
    *pcch = (DWORD)need;
    return PDH_CSTATUS_VALID_DATA;
}

PL_EXTERN PDH_STATUS WINAPI PdhEnumObjectsA(LPCSTR szDataSource, LPCSTR szMachineName, PZZSTR mszObjectList,
                                            LPDWORD pcchBufferSize, DWORD dwDetailLevel, BOOL bRefresh)
{
    (void)dwDetailLevel;
    (void)bRefresh;
    if (!pcchBufferSize) return PDH_INVALID_ARGUMENT;
    int is_log = szDataSource && *szDataSource;
    if (!is_log && !is_local_machine(szMachineName)) return PDH_CSTATUS_NO_MACHINE;
    LOCK();
    pl_pdh_source src;
    logq *lq = NULL;
    /* a log lists the objects of its first readable record */
    uint32_t st = is_log ? logq_open(szDataSource, &lq) : get_source(&src);
    if (st) UNLOCK_RET(st);
    if (lq) src = lq->src;
    char **names = NULL;
    size_t n = 0;
    st = pl_pdh_enum_objects(&src, 1, &names, &n, NULL);
    logq_close(lq);
    if (st) UNLOCK_RET(st);
    st = put_multisz(names, n, mszObjectList, pcchBufferSize);
    pl_free(names);
    UNLOCK_RET(st);
}

PL_EXTERN PDH_STATUS WINAPI PdhEnumObjectItemsA(LPCSTR szDataSource, LPCSTR szMachineName, LPCSTR szObjectName,
                                                PZZSTR mszCounterList, LPDWORD pcchCounterListLength,
                                                PZZSTR mszInstanceList, LPDWORD pcchInstanceListLength,
                                                DWORD dwDetailLevel, DWORD dwFlags)
{
    (void)dwDetailLevel;
    if (!szObjectName || !pcchCounterListLength || !pcchInstanceListLength || dwFlags != 0)
        return PDH_INVALID_ARGUMENT;
    int is_log = szDataSource && *szDataSource;
    if (!is_log && !is_local_machine(szMachineName)) return PDH_CSTATUS_NO_MACHINE;
    LOCK();
    pl_pdh_source src;
    logq *lq = NULL;
    uint32_t st = is_log ? logq_open(szDataSource, &lq) : get_source(&src);
    if (st) UNLOCK_RET(st);
    if (lq) src = lq->src;
    char **ctrs = NULL, **insts = NULL;
    size_t nc = 0, ni = 0;
    int has_inst = 0;
    st = pl_pdh_enum_object_items(&src, szObjectName, &ctrs, &nc, &insts, &ni, &has_inst, NULL);
    logq_close(lq);
    if (st) UNLOCK_RET(st);
    /* Sizes first: when either list does not fit, nothing is written and
     * both sizes are what is needed. */
    DWORD cneed = 0, ineed = 0;
    st = put_multisz(ctrs, nc, NULL, &cneed);
    if (has_inst && st == PDH_MORE_DATA) st = put_multisz(insts, ni, NULL, &ineed);
    if (st == PDH_MORE_DATA) {
        int fits = mszCounterList && *pcchCounterListLength >= cneed &&
                   (!has_inst || (mszInstanceList && *pcchInstanceListLength >= ineed));
        *pcchCounterListLength = cneed;
        *pcchInstanceListLength = ineed;
        st = PDH_MORE_DATA;
        if (fits) {
            (void)put_multisz(ctrs, nc, mszCounterList, &cneed);
            if (has_inst) (void)put_multisz(insts, ni, mszInstanceList, &ineed);
            st = PDH_CSTATUS_VALID_DATA;
        }
    }
    pl_free(ctrs);
    pl_free(insts);
    UNLOCK_RET(st);
}
