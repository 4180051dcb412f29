/* perflib: the winperf.h wire format, byte for byte (see docs/block-format.md).
 *
 * Every structure here has the size and field offsets of the modern Windows
 * header built for x86_64, which are also those of the 32-bit build: the
 * *Title fields are 32-bit on every platform. All multi-byte fields are
 * little-endian; names are UTF-16LE. The static assertions at the end of this
 * file fail the build if a compiler lays anything out differently. */
#ifndef PERFLIB_WINPERF_H
#define PERFLIB_WINPERF_H

#include <stddef.h>
#include <stdint.h>

#include "wintypes.h"

#define PERF_DATA_VERSION 1
#define PERF_DATA_REVISION 1

typedef struct _PERF_DATA_BLOCK {
    WCHAR Signature[4];          /* L"PERF" */
    DWORD LittleEndian;          /* 1 */
    DWORD Version;               /* PERF_DATA_VERSION */
    DWORD Revision;              /* PERF_DATA_REVISION */
    DWORD TotalByteLength;
    DWORD HeaderLength;          /* align8(88 + SystemNameLength) */
    DWORD NumObjectTypes;
    LONG DefaultObject;          /* 238 (Processor) */
    SYSTEMTIME SystemTime;       /* UTC */
    DWORD _pad;                  /* explicit, keeps the layout obvious */
    LARGE_INTEGER PerfTime;
    LARGE_INTEGER PerfFreq;
    LARGE_INTEGER PerfTime100nSec; /* FILETIME, UTC */
    DWORD SystemNameLength;      /* bytes, including the NUL */
    DWORD SystemNameOffset;      /* from the block start, 88 */
} PERF_DATA_BLOCK, *PPERF_DATA_BLOCK;

typedef struct _PERF_OBJECT_TYPE {
    DWORD TotalByteLength;
    DWORD DefinitionLength;
    DWORD HeaderLength;
    DWORD ObjectNameTitleIndex;
    DWORD ObjectNameTitle;       /* unused, 0 */
    DWORD ObjectHelpTitleIndex;
    DWORD ObjectHelpTitle;       /* unused, 0 */
    DWORD DetailLevel;
    DWORD NumCounters;
    LONG DefaultCounter;
    LONG NumInstances;
    DWORD CodePage;              /* 0: instance names are UTF-16LE */
    LARGE_INTEGER PerfTime;
    LARGE_INTEGER PerfFreq;
} PERF_OBJECT_TYPE, *PPERF_OBJECT_TYPE;

typedef struct _PERF_COUNTER_DEFINITION {
    DWORD ByteLength;
    DWORD CounterNameTitleIndex;
    DWORD CounterNameTitle;      /* unused, 0 */
    DWORD CounterHelpTitleIndex;
    DWORD CounterHelpTitle;      /* unused, 0 */
    LONG DefaultScale;
    DWORD DetailLevel;
    DWORD CounterType;
    DWORD CounterSize;
    DWORD CounterOffset;         /* from the start of the PERF_COUNTER_BLOCK */
} PERF_COUNTER_DEFINITION, *PPERF_COUNTER_DEFINITION;

typedef struct _PERF_INSTANCE_DEFINITION {
    DWORD ByteLength;            /* includes the name and its padding */
    DWORD ParentObjectTitleIndex;
    DWORD ParentObjectInstance;  /* 0-based position in the parent object */
    LONG UniqueID;               /* PERF_NO_UNIQUE_ID */
    DWORD NameOffset;            /* from the instance start */
    DWORD NameLength;            /* bytes, including the NUL */
} PERF_INSTANCE_DEFINITION, *PPERF_INSTANCE_DEFINITION;

typedef struct _PERF_COUNTER_BLOCK {
    DWORD ByteLength;
} PERF_COUNTER_BLOCK, *PPERF_COUNTER_BLOCK;

#define PERF_NO_INSTANCES -1 /* spelled as the SDK spells it, so a redefinition agrees */
#define PERF_NO_UNIQUE_ID -1
#define PERF_METADATA_MULTIPLE_INSTANCES (-2)
#define PERF_METADATA_NO_INSTANCES (-3)

/* Counter type bit fields. */
#define PERF_SIZE_DWORD 0x00000000u
#define PERF_SIZE_LARGE 0x00000100u
#define PERF_SIZE_ZERO 0x00000200u
#define PERF_SIZE_VARIABLE_LEN 0x00000300u
#define PERF_SIZE_MASK 0x00000300u

#define PERF_TYPE_NUMBER 0x00000000u
#define PERF_TYPE_COUNTER 0x00000400u
#define PERF_TYPE_TEXT 0x00000800u
#define PERF_TYPE_ZERO 0x00000C00u
#define PERF_TYPE_MASK 0x00000C00u

#define PERF_NUMBER_HEX 0x00000000u
#define PERF_NUMBER_DECIMAL 0x00010000u
#define PERF_NUMBER_DEC_1000 0x00020000u

#define PERF_COUNTER_VALUE 0x00000000u
#define PERF_COUNTER_RATE 0x00010000u
#define PERF_COUNTER_FRACTION 0x00020000u
#define PERF_COUNTER_BASE 0x00030000u
#define PERF_COUNTER_ELAPSED 0x00040000u
#define PERF_COUNTER_QUEUELEN 0x00050000u
#define PERF_COUNTER_HISTOGRAM 0x00060000u
#define PERF_COUNTER_PRECISION 0x00070000u
#define PERF_SUBTYPE_MASK 0x000F0000u

#define PERF_TEXT_UNICODE 0x00000000u
#define PERF_TEXT_ASCII 0x00010000u

#define PERF_TIMER_TICK 0x00000000u
#define PERF_TIMER_100NS 0x00100000u
#define PERF_OBJECT_TIMER 0x00200000u
#define PERF_TIMER_MASK 0x00300000u

#define PERF_DELTA_COUNTER 0x00400000u
#define PERF_DELTA_BASE 0x00800000u
#define PERF_INVERSE_COUNTER 0x01000000u
#define PERF_MULTI_COUNTER 0x02000000u

#define PERF_DISPLAY_NO_SUFFIX 0x00000000u
#define PERF_DISPLAY_PER_SEC 0x10000000u
#define PERF_DISPLAY_PERCENT 0x20000000u
#define PERF_DISPLAY_SECONDS 0x30000000u
#define PERF_DISPLAY_NOSHOW 0x40000000u
#define PERF_DISPLAY_MASK 0xF0000000u

/* Counter types. */
#define PERF_COUNTER_COUNTER 0x10410400u
#define PERF_COUNTER_TIMER 0x20410500u
#define PERF_COUNTER_QUEUELEN_TYPE 0x00450400u
#define PERF_COUNTER_LARGE_QUEUELEN_TYPE 0x00450500u
#define PERF_COUNTER_100NS_QUEUELEN_TYPE 0x00550500u
#define PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE 0x00650500u
#define PERF_COUNTER_BULK_COUNT 0x10410500u
#define PERF_COUNTER_TEXT 0x00000B00u
#define PERF_COUNTER_RAWCOUNT 0x00010000u
#define PERF_COUNTER_LARGE_RAWCOUNT 0x00010100u
#define PERF_COUNTER_RAWCOUNT_HEX 0x00000000u
#define PERF_COUNTER_LARGE_RAWCOUNT_HEX 0x00000100u
#define PERF_SAMPLE_FRACTION 0x20C20400u
#define PERF_SAMPLE_COUNTER 0x00410400u
#define PERF_COUNTER_NODATA 0x40000200u
#define PERF_COUNTER_TIMER_INV 0x21410500u
#define PERF_SAMPLE_BASE 0x40030401u
#define PERF_AVERAGE_TIMER 0x30020400u
#define PERF_AVERAGE_BASE 0x40030402u
#define PERF_AVERAGE_BULK 0x40020500u
#define PERF_OBJ_TIME_TIMER 0x20610500u
#define PERF_100NSEC_TIMER 0x20510500u
#define PERF_100NSEC_TIMER_INV 0x21510500u
#define PERF_COUNTER_MULTI_TIMER 0x22410500u
#define PERF_COUNTER_MULTI_TIMER_INV 0x23410500u
#define PERF_COUNTER_MULTI_BASE 0x42030500u
#define PERF_100NSEC_MULTI_TIMER 0x22510500u
#define PERF_100NSEC_MULTI_TIMER_INV 0x23510500u
#define PERF_RAW_FRACTION 0x20020400u
#define PERF_LARGE_RAW_FRACTION 0x20020500u
#define PERF_RAW_BASE 0x40030403u
#define PERF_LARGE_RAW_BASE 0x40030500u
#define PERF_ELAPSED_TIME 0x30240500u
#define PERF_COUNTER_HISTOGRAM_TYPE 0x80000000u
#define PERF_COUNTER_DELTA 0x00400400u
#define PERF_COUNTER_LARGE_DELTA 0x00400500u
#define PERF_PRECISION_SYSTEM_TIMER 0x20470500u
#define PERF_PRECISION_100NS_TIMER 0x20570500u
#define PERF_PRECISION_OBJECT_TIMER 0x20670500u
#define PERF_PRECISION_TIMESTAMP PERF_LARGE_RAW_BASE
/* A value that is already a number: an IEEE double in 8 bytes (CounterSize
 * 8 although the size bits say DWORD), as Windows' PDH presents the
 * columns of a CSV/TSV or SQL log (docs/counter-log.md, "Other formats"). */
#define PERF_DOUBLE_RAW 0x00012000u

/* Detail levels. */
#define PERF_DETAIL_NOVICE 100u
#define PERF_DETAIL_ADVANCED 200u
#define PERF_DETAIL_EXPERT 300u
#define PERF_DETAIL_WIZARD 400u
#define PERF_DETAIL_COSTLY 0x00010000u
#define PERF_DETAIL_STANDARD 0x0000FFFFu

#define PERF_QUERY_OBJECTS 0x80000000u
#define PERF_QUERY_GLOBAL 0x80000001u
#define PERF_QUERY_COSTLY 0x80000002u
#define MAX_PERF_OBJECTS_IN_QUERY_FUNCTION 64

#define WINPERF_LOG_NONE 0
#define WINPERF_LOG_USER 1
#define WINPERF_LOG_DEBUG 2
#define WINPERF_LOG_VERBOSE 3

/* Provider entry points: function types, as in the SDK (a provider declares
 * `PM_OPEN_PROC OpenPerfData;`; a pointer to one is `PM_OPEN_PROC *`). */
typedef DWORD(PM_OPEN_PROC)(LPWSTR device_names);
typedef DWORD(PM_COLLECT_PROC)(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects);
typedef DWORD(PM_CLOSE_PROC)(void);
typedef DWORD(PM_QUERY_PROC)(LPDWORD indices, LPVOID *data, LPDWORD bytes, LPDWORD objects);

/* The layout is the contract: check every size and offset at compile time. */
#ifdef __cplusplus
#define PL__STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define PL__STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif
#define PL__CHECK_OFF(T, f, o) PL__STATIC_ASSERT(offsetof(T, f) == (o), #T "." #f " at " #o)
PL__STATIC_ASSERT(sizeof(SYSTEMTIME) == 16, "SYSTEMTIME is 16 bytes");
PL__STATIC_ASSERT(sizeof(LARGE_INTEGER) == 8, "LARGE_INTEGER is 8 bytes");
PL__STATIC_ASSERT(sizeof(PERF_DATA_BLOCK) == 88, "PERF_DATA_BLOCK is 88 bytes");
PL__CHECK_OFF(PERF_DATA_BLOCK, Signature, 0);
PL__CHECK_OFF(PERF_DATA_BLOCK, LittleEndian, 8);
PL__CHECK_OFF(PERF_DATA_BLOCK, Version, 12);
PL__CHECK_OFF(PERF_DATA_BLOCK, Revision, 16);
PL__CHECK_OFF(PERF_DATA_BLOCK, TotalByteLength, 20);
PL__CHECK_OFF(PERF_DATA_BLOCK, HeaderLength, 24);
PL__CHECK_OFF(PERF_DATA_BLOCK, NumObjectTypes, 28);
PL__CHECK_OFF(PERF_DATA_BLOCK, DefaultObject, 32);
PL__CHECK_OFF(PERF_DATA_BLOCK, SystemTime, 36);
PL__CHECK_OFF(PERF_DATA_BLOCK, PerfTime, 56);
PL__CHECK_OFF(PERF_DATA_BLOCK, PerfFreq, 64);
PL__CHECK_OFF(PERF_DATA_BLOCK, PerfTime100nSec, 72);
PL__CHECK_OFF(PERF_DATA_BLOCK, SystemNameLength, 80);
PL__CHECK_OFF(PERF_DATA_BLOCK, SystemNameOffset, 84);
PL__STATIC_ASSERT(sizeof(PERF_OBJECT_TYPE) == 64, "PERF_OBJECT_TYPE is 64 bytes");
PL__CHECK_OFF(PERF_OBJECT_TYPE, TotalByteLength, 0);
PL__CHECK_OFF(PERF_OBJECT_TYPE, DefinitionLength, 4);
PL__CHECK_OFF(PERF_OBJECT_TYPE, HeaderLength, 8);
PL__CHECK_OFF(PERF_OBJECT_TYPE, ObjectNameTitleIndex, 12);
PL__CHECK_OFF(PERF_OBJECT_TYPE, ObjectNameTitle, 16);
PL__CHECK_OFF(PERF_OBJECT_TYPE, ObjectHelpTitleIndex, 20);
PL__CHECK_OFF(PERF_OBJECT_TYPE, ObjectHelpTitle, 24);
PL__CHECK_OFF(PERF_OBJECT_TYPE, DetailLevel, 28);
PL__CHECK_OFF(PERF_OBJECT_TYPE, NumCounters, 32);
PL__CHECK_OFF(PERF_OBJECT_TYPE, DefaultCounter, 36);
PL__CHECK_OFF(PERF_OBJECT_TYPE, NumInstances, 40);
PL__CHECK_OFF(PERF_OBJECT_TYPE, CodePage, 44);
PL__CHECK_OFF(PERF_OBJECT_TYPE, PerfTime, 48);
PL__CHECK_OFF(PERF_OBJECT_TYPE, PerfFreq, 56);
PL__STATIC_ASSERT(sizeof(PERF_COUNTER_DEFINITION) == 40, "PERF_COUNTER_DEFINITION is 40 bytes");
PL__CHECK_OFF(PERF_COUNTER_DEFINITION, ByteLength, 0);
PL__CHECK_OFF(PERF_COUNTER_DEFINITION, CounterNameTitleIndex, 4);
PL__CHECK_OFF(PERF_COUNTER_DEFINITION, CounterNameTitle, 8);
PL__CHECK_OFF(PERF_COUNTER_DEFINITION, CounterHelpTitleIndex, 12);
PL__CHECK_OFF(PERF_COUNTER_DEFINITION, CounterHelpTitle, 16);
PL__CHECK_OFF(PERF_COUNTER_DEFINITION, DefaultScale, 20);
PL__CHECK_OFF(PERF_COUNTER_DEFINITION, DetailLevel, 24);
PL__CHECK_OFF(PERF_COUNTER_DEFINITION, CounterType, 28);
PL__CHECK_OFF(PERF_COUNTER_DEFINITION, CounterSize, 32);
PL__CHECK_OFF(PERF_COUNTER_DEFINITION, CounterOffset, 36);
PL__STATIC_ASSERT(sizeof(PERF_INSTANCE_DEFINITION) == 24, "PERF_INSTANCE_DEFINITION is 24 bytes");
PL__CHECK_OFF(PERF_INSTANCE_DEFINITION, ByteLength, 0);
PL__CHECK_OFF(PERF_INSTANCE_DEFINITION, ParentObjectTitleIndex, 4);
PL__CHECK_OFF(PERF_INSTANCE_DEFINITION, ParentObjectInstance, 8);
PL__CHECK_OFF(PERF_INSTANCE_DEFINITION, UniqueID, 12);
PL__CHECK_OFF(PERF_INSTANCE_DEFINITION, NameOffset, 16);
PL__CHECK_OFF(PERF_INSTANCE_DEFINITION, NameLength, 20);
PL__STATIC_ASSERT(sizeof(PERF_COUNTER_BLOCK) == 4, "PERF_COUNTER_BLOCK is 4 bytes");

#endif
