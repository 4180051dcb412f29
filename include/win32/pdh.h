/* perflib: the Windows PDH API (pdh.h) for ported code, a thin layer over
 * the native PDH API (perflib/pdh.h). docs/pdh.md, "Windows names".
 *
 * - Strings: the "A" forms in UTF-8, the "W" forms in UTF-16 (WCHAR); the
 *   unsuffixed names (PdhAddCounter, ...) map to the A forms, or to the W
 *   forms when UNICODE is defined.
 * - Structures have the Windows x86_64 layouts (static asserts below).
 * - PDH_HQUERY / PDH_HCOUNTER are opaque handles checked against a handle
 *   table: a closed handle, a counter where a query is expected or any other
 *   pointer gives PDH_INVALID_HANDLE, never a crash.
 * - The real-time data source (szDataSource NULL) is the local query engine,
 *   opened on first use and shared by the whole process. Log files as data
 *   sources are not supported (PDH_NOT_IMPLEMENTED).
 * - Every function is safe to call from several threads (one lock).
 * - Status values are those of pdhmsg.h (win32/pdhmsg.h). */
#ifndef PERFLIB_WIN32_PDH_H
#define PERFLIB_WIN32_PDH_H

#include <stddef.h>
#include <stdint.h>

#include "pdhmsg.h"
#include "perflib/export.h"
#include "perflib/wintypes.h"
#include "perflib/winperf.h" /* PL__STATIC_ASSERT */

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------ base types */
#ifndef PERFLIB_WIN32_BASE_TYPES
#define PERFLIB_WIN32_BASE_TYPES
typedef char CHAR;
typedef CHAR *LPSTR;
typedef const CHAR *LPCSTR;
typedef uint8_t BOOLEAN;
typedef uintptr_t DWORD_PTR;
typedef void *HANDLE;
#ifndef WINAPI
#define WINAPI
#endif
#endif
#ifndef PERFLIB_WIN32_FILETIME
#define PERFLIB_WIN32_FILETIME
typedef struct _FILETIME {
    DWORD dwLowDateTime;
    DWORD dwHighDateTime;
} FILETIME, *PFILETIME, *LPFILETIME;
#endif
typedef CHAR *PZZSTR;         /* a list of strings ending with an empty one */
typedef WCHAR *PZZWSTR;

typedef HANDLE PDH_HQUERY;
typedef HANDLE PDH_HCOUNTER;
typedef HANDLE PDH_HLOG;
typedef PDH_HQUERY HQUERY;
typedef PDH_HCOUNTER HCOUNTER;

/* ------------------------------------------------------ constants */
#define PDH_FMT_RAW 0x00000010u
#define PDH_FMT_ANSI 0x00000020u
#define PDH_FMT_UNICODE 0x00000040u
#define PDH_FMT_LONG 0x00000100u
#define PDH_FMT_DOUBLE 0x00000200u
#define PDH_FMT_LARGE 0x00000400u
#define PDH_FMT_NOSCALE 0x00001000u
#define PDH_FMT_1000 0x00002000u
#define PDH_FMT_NODATA 0x00004000u
#define PDH_FMT_NOCAP100 0x00008000u
#define PDH_MAX_SCALE 7L
#define PDH_MIN_SCALE (-7L)
#define PDH_CVERSION_WIN40 0x0400u
#define PDH_CVERSION_WIN50 0x0500u
#define PDH_VERSION 0x0503u
#define MAX_COUNTER_PATH 256
#define PDH_MAX_COUNTER_NAME 1024
#define PDH_MAX_INSTANCE_NAME 1024
#define PDH_MAX_COUNTER_PATH 2048
#define PDH_MAX_DATASOURCE_PATH 1024
#define PDH_NOEXPANDCOUNTERS 1u
#define PDH_NOEXPANDINSTANCES 2u
#define PDH_REFRESHCOUNTERS 4u
#define PDH_OBJECT_HAS_INSTANCES 1u
#define PDH_PATH_WBEM_RESULT 1u
#define PDH_PATH_WBEM_INPUT 2u
#define PDH_PATH_LANG_FLAGS(l, f) ((DWORD)((((l) & 0xFFFFu) << 16) | ((f) & 0xFFFFu)))
#define DATA_SOURCE_REGISTRY 1u
#define DATA_SOURCE_LOGFILE 2u
#define DATA_SOURCE_WBEM 4u
#define H_REALTIME_DATASOURCE NULL
#define PDH_FLAGS_CLOSE_QUERY 1u

#define IsSuccessSeverity(e) ((((DWORD)(e)) & 0xC0000000u) == 0x00000000u)
#define IsInformationalSeverity(e) ((((DWORD)(e)) & 0xC0000000u) == 0x40000000u)
#define IsWarningSeverity(e) ((((DWORD)(e)) & 0xC0000000u) == 0x80000000u)
#define IsErrorSeverity(e) ((((DWORD)(e)) & 0xC0000000u) == 0xC0000000u)

/* ------------------------------------------------------ structures */
typedef struct _PDH_RAW_COUNTER {
    DWORD CStatus;
    FILETIME TimeStamp;       /* local time, as on Windows */
    LONGLONG FirstValue;
    LONGLONG SecondValue;
    DWORD MultiCount;
} PDH_RAW_COUNTER, *PPDH_RAW_COUNTER;

typedef struct _PDH_FMT_COUNTERVALUE {
    DWORD CStatus;
    union {
        LONG longValue;
        double doubleValue;
        LONGLONG largeValue;
        LPCSTR AnsiStringValue;
        LPCWSTR WideStringValue;
    };
} PDH_FMT_COUNTERVALUE, *PPDH_FMT_COUNTERVALUE;

/* PdhGetDataSourceTimeRange: times are local FILETIMEs. */
typedef struct _PDH_TIME_INFO {
    LONGLONG StartTime;
    LONGLONG EndTime;
    DWORD SampleCount;
} PDH_TIME_INFO, *PPDH_TIME_INFO;

typedef struct _PDH_STATISTICS {
    DWORD dwFormat;
    DWORD count;
    PDH_FMT_COUNTERVALUE min;
    PDH_FMT_COUNTERVALUE max;
    PDH_FMT_COUNTERVALUE mean;
} PDH_STATISTICS, *PPDH_STATISTICS;

typedef struct _PDH_FMT_COUNTERVALUE_ITEM_A {
    LPSTR szName;
    PDH_FMT_COUNTERVALUE FmtValue;
} PDH_FMT_COUNTERVALUE_ITEM_A, *PPDH_FMT_COUNTERVALUE_ITEM_A;

typedef struct _PDH_FMT_COUNTERVALUE_ITEM_W {
    LPWSTR szName;
    PDH_FMT_COUNTERVALUE FmtValue;
} PDH_FMT_COUNTERVALUE_ITEM_W, *PPDH_FMT_COUNTERVALUE_ITEM_W;

typedef struct _PDH_COUNTER_PATH_ELEMENTS_W {
    LPWSTR szMachineName;
    LPWSTR szObjectName;
    LPWSTR szInstanceName;
    LPWSTR szParentInstance;
    DWORD dwInstanceIndex;
    LPWSTR szCounterName;
} PDH_COUNTER_PATH_ELEMENTS_W, *PPDH_COUNTER_PATH_ELEMENTS_W;

typedef struct _PDH_COUNTER_INFO_W {
    DWORD dwLength;
    DWORD dwType;
    DWORD CVersion;
    DWORD CStatus;
    LONG lScale;
    LONG lDefaultScale;
    DWORD_PTR dwUserData;
    DWORD_PTR dwQueryUserData;
    LPWSTR szFullPath;
    union {
        PDH_COUNTER_PATH_ELEMENTS_W CounterPath;
        struct {
            LPWSTR szMachineName;
            LPWSTR szObjectName;
            LPWSTR szInstanceName;
            LPWSTR szParentInstance;
            DWORD dwInstanceIndex;
            LPWSTR szCounterName;
        };
    };
    LPWSTR szExplainText;
    DWORD DataBuffer[1];
} PDH_COUNTER_INFO_W, *PPDH_COUNTER_INFO_W;

typedef struct _PDH_COUNTER_PATH_ELEMENTS_A {
    LPSTR szMachineName;
    LPSTR szObjectName;
    LPSTR szInstanceName;
    LPSTR szParentInstance;
    DWORD dwInstanceIndex;
    LPSTR szCounterName;
} PDH_COUNTER_PATH_ELEMENTS_A, *PPDH_COUNTER_PATH_ELEMENTS_A;

typedef struct _PDH_COUNTER_INFO_A {
    DWORD dwLength;
    DWORD dwType;
    DWORD CVersion;
    DWORD CStatus;
    LONG lScale;
    LONG lDefaultScale;
    DWORD_PTR dwUserData;
    DWORD_PTR dwQueryUserData;
    LPSTR szFullPath;
    union {
        PDH_COUNTER_PATH_ELEMENTS_A CounterPath;
        struct {
            LPSTR szMachineName;
            LPSTR szObjectName;
            LPSTR szInstanceName;
            LPSTR szParentInstance;
            DWORD dwInstanceIndex;
            LPSTR szCounterName;
        };
    };
    LPSTR szExplainText;
    DWORD DataBuffer[1];
} PDH_COUNTER_INFO_A, *PPDH_COUNTER_INFO_A;

#if UINTPTR_MAX > 0xFFFFFFFFu
PL__STATIC_ASSERT(sizeof(PDH_RAW_COUNTER) == 40, "PDH_RAW_COUNTER is 40 bytes");
PL__STATIC_ASSERT(offsetof(PDH_RAW_COUNTER, TimeStamp) == 4, "TimeStamp@4");
PL__STATIC_ASSERT(offsetof(PDH_RAW_COUNTER, FirstValue) == 16, "FirstValue@16");
PL__STATIC_ASSERT(offsetof(PDH_RAW_COUNTER, SecondValue) == 24, "SecondValue@24");
PL__STATIC_ASSERT(offsetof(PDH_RAW_COUNTER, MultiCount) == 32, "MultiCount@32");
PL__STATIC_ASSERT(sizeof(PDH_FMT_COUNTERVALUE) == 16, "PDH_FMT_COUNTERVALUE is 16 bytes");
PL__STATIC_ASSERT(offsetof(PDH_FMT_COUNTERVALUE, doubleValue) == 8, "value@8");
PL__STATIC_ASSERT(sizeof(PDH_STATISTICS) == 56, "PDH_STATISTICS is 56 bytes");
PL__STATIC_ASSERT(offsetof(PDH_STATISTICS, min) == 8, "min@8");
PL__STATIC_ASSERT(offsetof(PDH_STATISTICS, max) == 24, "max@24");
PL__STATIC_ASSERT(offsetof(PDH_STATISTICS, mean) == 40, "mean@40");
PL__STATIC_ASSERT(sizeof(PDH_FMT_COUNTERVALUE_ITEM_A) == 24, "PDH_FMT_COUNTERVALUE_ITEM is 24 bytes");
PL__STATIC_ASSERT(sizeof(PDH_COUNTER_PATH_ELEMENTS_A) == 48, "PDH_COUNTER_PATH_ELEMENTS is 48 bytes");
PL__STATIC_ASSERT(offsetof(PDH_COUNTER_PATH_ELEMENTS_A, szParentInstance) == 24, "szParentInstance@24");
PL__STATIC_ASSERT(offsetof(PDH_COUNTER_PATH_ELEMENTS_A, dwInstanceIndex) == 32, "dwInstanceIndex@32");
PL__STATIC_ASSERT(offsetof(PDH_COUNTER_PATH_ELEMENTS_A, szCounterName) == 40, "szCounterName@40");
PL__STATIC_ASSERT(sizeof(PDH_COUNTER_INFO_A) == 112, "PDH_COUNTER_INFO is 112 bytes");
PL__STATIC_ASSERT(offsetof(PDH_COUNTER_INFO_A, lScale) == 16, "lScale@16");
PL__STATIC_ASSERT(offsetof(PDH_COUNTER_INFO_A, dwUserData) == 24, "dwUserData@24");
PL__STATIC_ASSERT(offsetof(PDH_COUNTER_INFO_A, dwQueryUserData) == 32, "dwQueryUserData@32");
PL__STATIC_ASSERT(offsetof(PDH_COUNTER_INFO_A, szFullPath) == 40, "szFullPath@40");
PL__STATIC_ASSERT(offsetof(PDH_COUNTER_INFO_A, szMachineName) == 48, "szMachineName@48");
PL__STATIC_ASSERT(offsetof(PDH_COUNTER_INFO_A, szObjectName) == 56, "szObjectName@56");
PL__STATIC_ASSERT(offsetof(PDH_COUNTER_INFO_A, szInstanceName) == 64, "szInstanceName@64");
PL__STATIC_ASSERT(offsetof(PDH_COUNTER_INFO_A, szParentInstance) == 72, "szParentInstance@72");
PL__STATIC_ASSERT(offsetof(PDH_COUNTER_INFO_A, dwInstanceIndex) == 80, "dwInstanceIndex@80");
PL__STATIC_ASSERT(offsetof(PDH_COUNTER_INFO_A, szCounterName) == 88, "szCounterName@88");
PL__STATIC_ASSERT(offsetof(PDH_COUNTER_INFO_A, szExplainText) == 96, "szExplainText@96");
PL__STATIC_ASSERT(offsetof(PDH_COUNTER_INFO_A, DataBuffer) == 104, "DataBuffer@104");
PL__STATIC_ASSERT(sizeof(PDH_COUNTER_INFO_W) == 112, "PDH_COUNTER_INFO_W is 112 bytes");
PL__STATIC_ASSERT(offsetof(PDH_COUNTER_INFO_W, szExplainText) == 96, "W szExplainText@96");
PL__STATIC_ASSERT(sizeof(PDH_COUNTER_PATH_ELEMENTS_W) == 48, "PDH_COUNTER_PATH_ELEMENTS_W is 48 bytes");
PL__STATIC_ASSERT(sizeof(PDH_FMT_COUNTERVALUE_ITEM_W) == 24, "PDH_FMT_COUNTERVALUE_ITEM_W is 24 bytes");
#endif

/* ------------------------------------------------------ functions */
/* Argument checks come before handle checks unless noted. */

/* szDataSource NULL or "": real time; the first such query opens the local
 * engine (PDH_CANNOT_CONNECT_MACHINE if that fails). Otherwise the name of
 * a perflib binary counter log (typeperf -f BIN, docs/counter-log.md): each
 * PdhCollectQueryData then reads the next record (damaged ones are passed
 * over) and returns PDH_NO_MORE_DATA after the last. Log errors:
 * PDH_FILE_NOT_FOUND, PDH_UNKNOWN_LOG_FORMAT (not a counter log),
 * PDH_UNABLE_READ_LOG_HEADER, PDH_LOG_TYPE_NOT_FOUND (a log of formatted
 * values, made from CSV), PDH_LOG_FILE_OPEN_ERROR. PDH_INVALID_ARGUMENT for
 * a NULL phQuery. */
PL_EXTERN PDH_STATUS WINAPI PdhOpenQueryA(LPCSTR szDataSource, DWORD_PTR dwUserData, PDH_HQUERY *phQuery);
/* Name a log as a data source (the first name of LogFileNameList; one log
 * per handle). NULL or "" gives H_REALTIME_DATASOURCE. The log is opened
 * once to check it (the errors of PdhOpenQueryA). */
PL_EXTERN PDH_STATUS WINAPI PdhBindInputDataSourceA(PDH_HLOG *phDataSource, LPCSTR LogFileNameList);
/* A query on a bound data source (H_REALTIME_DATASOURCE: real time); every
 * query has its own position in the log. */
PL_EXTERN PDH_STATUS WINAPI PdhOpenQueryH(PDH_HLOG hDataSource, DWORD_PTR dwUserData, PDH_HQUERY *phQuery);
/* Release a bound data source (queries opened on it stay valid). */
PL_EXTERN PDH_STATUS WINAPI PdhCloseLog(PDH_HLOG hLog, DWORD dwFlags);
/* One PDH_TIME_INFO for a log: first and last record time, record count.
 * PDH_DATA_SOURCE_IS_REAL_TIME without a file; PDH_MORE_DATA with the
 * size when *pdwBufferSize is too small. */
PL_EXTERN PDH_STATUS WINAPI PdhGetDataSourceTimeRangeA(LPCSTR szDataSource, LPDWORD pdwNumEntries,
                                                       PPDH_TIME_INFO pInfo, LPDWORD pdwBufferSize);
/* Closes the query and every counter of it; their handles become invalid. */
PL_EXTERN PDH_STATUS WINAPI PdhCloseQuery(PDH_HQUERY hQuery);
/* Path syntax and wildcards: docs/pdh.md. On failure *phCounter is set to
 * NULL (as Windows does). Object and counter names may be in the default
 * language or in English. */
PL_EXTERN PDH_STATUS WINAPI PdhAddCounterA(PDH_HQUERY hQuery, LPCSTR szFullCounterPath, DWORD_PTR dwUserData,
                                           PDH_HCOUNTER *phCounter);
/* The same as PdhAddCounterA: English names are always accepted. */
PL_EXTERN PDH_STATUS WINAPI PdhAddEnglishCounterA(PDH_HQUERY hQuery, LPCSTR szFullCounterPath, DWORD_PTR dwUserData,
                                                  PDH_HCOUNTER *phCounter);
PL_EXTERN PDH_STATUS WINAPI PdhRemoveCounter(PDH_HCOUNTER hCounter);
/* PDH_NO_DATA when the query has no counters. */
PL_EXTERN PDH_STATUS WINAPI PdhCollectQueryData(PDH_HQUERY hQuery);
/* dwFormat: PDH_FMT_LONG/DOUBLE/LARGE plus NOSCALE, NOCAP100, 1000.
 * lpdwType may be NULL. PDH_INVALID_DATA with pValue->CStatus telling why. */
PL_EXTERN PDH_STATUS WINAPI PdhGetFormattedCounterValue(PDH_HCOUNTER hCounter, DWORD dwFormat, LPDWORD lpdwType,
                                                        PPDH_FMT_COUNTERVALUE pValue);
/* Every instance of a wildcard counter (docs/pdh.md for the item names).
 * *lpdwBufferSize bytes in; PDH_MORE_DATA with the size needed when too
 * small (ItemBuffer may be NULL then). Names are stored after the items. */
PL_EXTERN PDH_STATUS WINAPI PdhGetFormattedCounterArrayA(PDH_HCOUNTER hCounter, DWORD dwFormat,
                                                         LPDWORD lpdwBufferSize, LPDWORD lpdwItemCount,
                                                         PPDH_FMT_COUNTERVALUE_ITEM_A ItemBuffer);
PL_EXTERN PDH_STATUS WINAPI PdhGetRawCounterValue(PDH_HCOUNTER hCounter, LPDWORD lpdwType, PPDH_RAW_COUNTER pValue);
/* rawValue1 is the newer sample, rawValue2 the older (may be NULL). */
PL_EXTERN PDH_STATUS WINAPI PdhCalculateCounterFromRawValue(PDH_HCOUNTER hCounter, DWORD dwFormat,
                                                            PPDH_RAW_COUNTER rawValue1, PPDH_RAW_COUNTER rawValue2,
                                                            PPDH_FMT_COUNTERVALUE fmtValue);
/* dwFirstEntry is the oldest entry of the circular lpRawValueArray. */
PL_EXTERN PDH_STATUS WINAPI PdhComputeCounterStatistics(PDH_HCOUNTER hCounter, DWORD dwFormat, DWORD dwFirstEntry,
                                                        DWORD dwNumEntries, PPDH_RAW_COUNTER lpRawValueArray,
                                                        PPDH_STATISTICS data);
/* Handle checked first; PDH_INVALID_ARGUMENT outside [-7, 7]. */
PL_EXTERN PDH_STATUS WINAPI PdhSetCounterScaleFactor(PDH_HCOUNTER hCounter, LONG lFactor);
/* Handle checked first. lpBuffer receives the structure followed by its
 * strings; *pdwBufferSize is the buffer size in, the size used or needed
 * out (PDH_MORE_DATA when too small; lpBuffer may be NULL then). */
PL_EXTERN PDH_STATUS WINAPI PdhGetCounterInfoA(PDH_HCOUNTER hCounter, BOOLEAN bRetrieveExplainText,
                                               LPDWORD pdwBufferSize, PPDH_COUNTER_INFO_A lpBuffer);
/* dwFlags must be 0. The elements are followed by their strings in the
 * buffer; PDH_MORE_DATA with the size needed; PDH_INVALID_PATH for a
 * malformed path. */
PL_EXTERN PDH_STATUS WINAPI PdhParseCounterPathA(LPCSTR szFullPathBuffer,
                                                 PPDH_COUNTER_PATH_ELEMENTS_A pCounterPathElements,
                                                 LPDWORD pdwBufferSize, DWORD dwFlags);
/* *pcchBufferSize: characters in/used/needed (with the NUL). dwFlags 0 (the
 * WBEM conversions are PDH_NOT_IMPLEMENTED). */
PL_EXTERN PDH_STATUS WINAPI PdhMakeCounterPathA(PPDH_COUNTER_PATH_ELEMENTS_A pCounterPathElements,
                                                LPSTR szFullPathBuffer, LPDWORD pcchBufferSize, DWORD dwFlags);
/* szDataSource NULL (real time) or a counter log (expanded against its
 * first readable record). The paths as a list of NUL-terminated strings ending
 * with an empty one; *pcchPathListLength characters in/used/needed
 * (PDH_MORE_DATA when too small; the list may be NULL then). dwFlags:
 * PDH_NOEXPANDCOUNTERS, PDH_NOEXPANDINSTANCES. */
PL_EXTERN PDH_STATUS WINAPI PdhExpandWildCardPathA(LPCSTR szDataSource, LPCSTR szWildCardPath,
                                                   PZZSTR mszExpandedPathList, LPDWORD pcchPathListLength,
                                                   DWORD dwFlags);
PL_EXTERN PDH_STATUS WINAPI PdhValidatePathA(LPCSTR szFullPathBuffer);
/* szMachineName: NULL or the local machine. */
PL_EXTERN PDH_STATUS WINAPI PdhLookupPerfIndexByNameA(LPCSTR szMachineName, LPCSTR szNameBuffer, LPDWORD pdwIndex);
/* Index 0 is success with nothing written (as on Windows). */
PL_EXTERN PDH_STATUS WINAPI PdhLookupPerfNameByIndexA(LPCSTR szMachineName, DWORD dwNameIndex, LPSTR szNameBuffer,
                                                      LPDWORD pcchNameBufferSize);

/* ------------------------------------------------------ W forms */
/* Every function above with strings has a W form: strings are UTF-16
 * (WCHAR); sizes given in characters count UTF-16 units; buffers of
 * structures hold their strings (UTF-16) after them, as in the A forms.
 * Behaviour and results are those of the A form. Invalid UTF-16 in an
 * argument is PDH_INVALID_ARGUMENT. */
PL_EXTERN PDH_STATUS WINAPI PdhOpenQueryW(LPCWSTR szDataSource, DWORD_PTR dwUserData, PDH_HQUERY *phQuery);
PL_EXTERN PDH_STATUS WINAPI PdhBindInputDataSourceW(PDH_HLOG *phDataSource, LPCWSTR LogFileNameList);
PL_EXTERN PDH_STATUS WINAPI PdhGetDataSourceTimeRangeW(LPCWSTR szDataSource, LPDWORD pdwNumEntries,
                                                       PPDH_TIME_INFO pInfo, LPDWORD pdwBufferSize);
PL_EXTERN PDH_STATUS WINAPI PdhAddCounterW(PDH_HQUERY hQuery, LPCWSTR szFullCounterPath, DWORD_PTR dwUserData,
                                           PDH_HCOUNTER *phCounter);
PL_EXTERN PDH_STATUS WINAPI PdhAddEnglishCounterW(PDH_HQUERY hQuery, LPCWSTR szFullCounterPath, DWORD_PTR dwUserData,
                                                  PDH_HCOUNTER *phCounter);
PL_EXTERN PDH_STATUS WINAPI PdhGetFormattedCounterArrayW(PDH_HCOUNTER hCounter, DWORD dwFormat,
                                                         LPDWORD lpdwBufferSize, LPDWORD lpdwItemCount,
                                                         PPDH_FMT_COUNTERVALUE_ITEM_W ItemBuffer);
PL_EXTERN PDH_STATUS WINAPI PdhGetCounterInfoW(PDH_HCOUNTER hCounter, BOOLEAN bRetrieveExplainText,
                                               LPDWORD pdwBufferSize, PPDH_COUNTER_INFO_W lpBuffer);
PL_EXTERN PDH_STATUS WINAPI PdhParseCounterPathW(LPCWSTR szFullPathBuffer,
                                                 PPDH_COUNTER_PATH_ELEMENTS_W pCounterPathElements,
                                                 LPDWORD pdwBufferSize, DWORD dwFlags);
PL_EXTERN PDH_STATUS WINAPI PdhMakeCounterPathW(PPDH_COUNTER_PATH_ELEMENTS_W pCounterPathElements,
                                                LPWSTR szFullPathBuffer, LPDWORD pcchBufferSize, DWORD dwFlags);
PL_EXTERN PDH_STATUS WINAPI PdhExpandWildCardPathW(LPCWSTR szDataSource, LPCWSTR szWildCardPath,
                                                   PZZWSTR mszExpandedPathList, LPDWORD pcchPathListLength,
                                                   DWORD dwFlags);
PL_EXTERN PDH_STATUS WINAPI PdhValidatePathW(LPCWSTR szFullPathBuffer);
PL_EXTERN PDH_STATUS WINAPI PdhLookupPerfIndexByNameW(LPCWSTR szMachineName, LPCWSTR szNameBuffer,
                                                      LPDWORD pdwIndex);
PL_EXTERN PDH_STATUS WINAPI PdhLookupPerfNameByIndexW(LPCWSTR szMachineName, DWORD dwNameIndex,
                                                      LPWSTR szNameBuffer, LPDWORD pcchNameBufferSize);

/* ------------------------------------------------------ more functions */
/* The objects of the data source (NULL: real time) on szMachineName (NULL
 * or this machine, else PDH_CSTATUS_NO_MACHINE) as a list of strings ending
 * with an empty one. *pcchBufferSize: characters in, used or needed out;
 * PDH_MORE_DATA (nothing written) when the list is NULL or too small.
 * dwDetailLevel and bRefresh are accepted (every object is listed; the list
 * is always current). */
PL_EXTERN PDH_STATUS WINAPI PdhEnumObjectsA(LPCSTR szDataSource, LPCSTR szMachineName, PZZSTR mszObjectList,
                                            LPDWORD pcchBufferSize, DWORD dwDetailLevel, BOOL bRefresh);
PL_EXTERN PDH_STATUS WINAPI PdhEnumObjectsW(LPCWSTR szDataSource, LPCWSTR szMachineName, PZZWSTR mszObjectList,
                                            LPDWORD pcchBufferSize, DWORD dwDetailLevel, BOOL bRefresh);
/* An object's counters and current instances, two lists as above. When
 * either list is NULL or too small: PDH_MORE_DATA with both sizes set. An
 * object without instances gives an instance size of 0 (nothing written);
 * an unknown object PDH_CSTATUS_NO_OBJECT. dwFlags must be 0. */
PL_EXTERN PDH_STATUS WINAPI PdhEnumObjectItemsA(LPCSTR szDataSource, LPCSTR szMachineName, LPCSTR szObjectName,
                                                PZZSTR mszCounterList, LPDWORD pcchCounterListLength,
                                                PZZSTR mszInstanceList, LPDWORD pcchInstanceListLength,
                                                DWORD dwDetailLevel, DWORD dwFlags);
PL_EXTERN PDH_STATUS WINAPI PdhEnumObjectItemsW(LPCWSTR szDataSource, LPCWSTR szMachineName, LPCWSTR szObjectName,
                                                PZZWSTR mszCounterList, LPDWORD pcchCounterListLength,
                                                PZZWSTR mszInstanceList, LPDWORD pcchInstanceListLength,
                                                DWORD dwDetailLevel, DWORD dwFlags);
/* Collect, and give the time of the sample as a local FILETIME (as Windows
 * stamps PDH_RAW_COUNTER). */
PL_EXTERN PDH_STATUS WINAPI PdhCollectQueryDataWithTime(PDH_HQUERY hQuery, LONGLONG *pllTimeStamp);
/* Collect every dwIntervalTime seconds on a thread of the library and set
 * hNewDataEvent (an event of CreateEvent) after each collection, until the
 * query is closed or this is called again for it. The first collection is
 * made at once. PDH_INVALID_ARGUMENT for a 0 interval or an event that is
 * not one. */
PL_EXTERN PDH_STATUS WINAPI PdhCollectQueryDataEx(PDH_HQUERY hQuery, DWORD dwIntervalTime, HANDLE hNewDataEvent);
/* The frequency of the counter's time base: 10,000,000 (PerfFreq and the
 * 100 ns types), or its object's PerfFreq for object-timer types once a
 * sample was collected (PDH_CSTATUS_INVALID_DATA before). */
PL_EXTERN PDH_STATUS WINAPI PdhGetCounterTimeBase(PDH_HCOUNTER hCounter, LONGLONG *pTimeBase);
/* PDH_VERSION (0x503, the version of Windows XP and later). */
PL_EXTERN PDH_STATUS WINAPI PdhGetDllVersion(LPDWORD lpdwVersion);
/* PdhValidatePath on a data source (hDataSource NULL: real time; a bound
 * log: its first readable record). */
PL_EXTERN PDH_STATUS WINAPI PdhValidatePathExA(PDH_HLOG hDataSource, LPCSTR szFullPathBuffer);
PL_EXTERN PDH_STATUS WINAPI PdhValidatePathExW(PDH_HLOG hDataSource, LPCWSTR szFullPathBuffer);
/* The counter as a double (PDH_FMT_DOUBLE); *pdwCounterStatus gets its
 * CStatus (may be NULL). 0.0 when it cannot be computed. */
PL_EXTERN double WINAPI PdhVbGetDoubleCounterValue(PDH_HCOUNTER hCounter, LPDWORD pdwCounterStatus);

#ifdef UNICODE
#define PdhOpenQuery PdhOpenQueryW
#define PdhBindInputDataSource PdhBindInputDataSourceW
#define PdhGetDataSourceTimeRange PdhGetDataSourceTimeRangeW
#define PdhAddCounter PdhAddCounterW
#define PdhAddEnglishCounter PdhAddEnglishCounterW
#define PdhGetFormattedCounterArray PdhGetFormattedCounterArrayW
#define PdhGetCounterInfo PdhGetCounterInfoW
#define PdhParseCounterPath PdhParseCounterPathW
#define PdhMakeCounterPath PdhMakeCounterPathW
#define PdhExpandWildCardPath PdhExpandWildCardPathW
#define PdhValidatePath PdhValidatePathW
#define PdhValidatePathEx PdhValidatePathExW
#define PdhLookupPerfIndexByName PdhLookupPerfIndexByNameW
#define PdhLookupPerfNameByIndex PdhLookupPerfNameByIndexW
#define PdhEnumObjects PdhEnumObjectsW
#define PdhEnumObjectItems PdhEnumObjectItemsW
#define PDH_COUNTER_PATH_ELEMENTS PDH_COUNTER_PATH_ELEMENTS_W
#define PPDH_COUNTER_PATH_ELEMENTS PPDH_COUNTER_PATH_ELEMENTS_W
#define PDH_COUNTER_INFO PDH_COUNTER_INFO_W
#define PPDH_COUNTER_INFO PPDH_COUNTER_INFO_W
#define PDH_FMT_COUNTERVALUE_ITEM PDH_FMT_COUNTERVALUE_ITEM_W
#define PPDH_FMT_COUNTERVALUE_ITEM PPDH_FMT_COUNTERVALUE_ITEM_W
#else
#define PdhOpenQuery PdhOpenQueryA
#define PdhBindInputDataSource PdhBindInputDataSourceA
#define PdhGetDataSourceTimeRange PdhGetDataSourceTimeRangeA
#define PdhAddCounter PdhAddCounterA
#define PdhAddEnglishCounter PdhAddEnglishCounterA
#define PdhGetFormattedCounterArray PdhGetFormattedCounterArrayA
#define PdhGetCounterInfo PdhGetCounterInfoA
#define PdhParseCounterPath PdhParseCounterPathA
#define PdhMakeCounterPath PdhMakeCounterPathA
#define PdhExpandWildCardPath PdhExpandWildCardPathA
#define PdhValidatePath PdhValidatePathA
#define PdhValidatePathEx PdhValidatePathExA
#define PdhLookupPerfIndexByName PdhLookupPerfIndexByNameA
#define PdhLookupPerfNameByIndex PdhLookupPerfNameByIndexA
#define PdhEnumObjects PdhEnumObjectsA
#define PdhEnumObjectItems PdhEnumObjectItemsA
#define PDH_COUNTER_PATH_ELEMENTS PDH_COUNTER_PATH_ELEMENTS_A
#define PPDH_COUNTER_PATH_ELEMENTS PPDH_COUNTER_PATH_ELEMENTS_A
#define PDH_COUNTER_INFO PDH_COUNTER_INFO_A
#define PPDH_COUNTER_INFO PPDH_COUNTER_INFO_A
#define PDH_FMT_COUNTERVALUE_ITEM PDH_FMT_COUNTERVALUE_ITEM_A
#define PPDH_FMT_COUNTERVALUE_ITEM PPDH_FMT_COUNTERVALUE_ITEM_A
#endif

/* perflib extension (not in Windows): make `src` the real-time data source
 * of queries opened afterwards and of the path/name functions, instead of
 * the local engine (tests, embedders). The struct is copied; what it points
 * to must outlive its use. NULL goes back to the local engine. Queries
 * already open keep their source. */
struct pl_pdh_source;
PL_EXTERN void pl_pdh_win32_set_source(const struct pl_pdh_source *src);

#ifdef __cplusplus
}
#endif

#endif
