/* W32Gen: a performance provider written as a Windows developer writes one
 * (the shape of the SDK's PerfGen sample), built only against include/win32
 * with the flags of docs/win32.md. It compiles as C and as C++, ANSI and
 * UNICODE.
 *
 * Open reads its First Counter / First Help from its own key
 * HKLM\SYSTEM\CurrentControlSet\Services\W32Gen\Performance and the Linkage
 * Export it was given. Collect answers "Global" and its object's index with
 * one object without instances: "Constant Value" (the First Counter Open
 * read, so a reader can tell the key was read) and "Collections".
 * With the Export "odd" the counter block is 12 bytes and the object 156:
 * not a multiple of 8, as several shipping providers return. */
#include <windows.h>
#include <winperf.h>

#include "w32gensym.h"

#define W32GEN_KEY TEXT("SYSTEM\\CurrentControlSet\\Services\\W32Gen\\Performance")

#pragma pack(push, 8)
typedef struct _W32GEN_DATA_DEFINITION {
    PERF_OBJECT_TYPE ObjectType;
    PERF_COUNTER_DEFINITION Constant;
    PERF_COUNTER_DEFINITION Collections;
} W32GEN_DATA_DEFINITION;

typedef struct _W32GEN_COUNTER_DATA {
    PERF_COUNTER_BLOCK CounterBlock;
    DWORD Constant;
    DWORD Collections;
} W32GEN_COUNTER_DATA;
#pragma pack(pop)

static W32GEN_DATA_DEFINITION W32GenDataDefinition;
static DWORD dwOpenCount = 0;
static BOOL bInitOK = FALSE;
static BOOL bOdd = FALSE;
static DWORD dwFirstCounter = 0;
static DWORD dwCollections = 0;

#ifdef __cplusplus
extern "C" {
#endif
__declspec(dllexport) DWORD APIENTRY OpenW32GenPerformanceData(LPWSTR lpDeviceNames);
__declspec(dllexport) DWORD APIENTRY CollectW32GenPerformanceData(LPWSTR lpValueName, LPVOID *lppData,
                                                                  LPDWORD lpcbTotalBytes,
                                                                  LPDWORD lpNumObjectTypes);
__declspec(dllexport) DWORD APIENTRY CloseW32GenPerformanceData(void);
#ifdef __cplusplus
}
#endif

static BOOL WideEquals(LPCWSTR a, const char *b)
{
    if (a == NULL) return FALSE;
    while (*a && *b && *a == (WCHAR)*b) a++, b++;
    return *a == 0 && *b == 0;
}

/* Is `number` one of the decimal numbers in the query (PerfGen's
 * IsNumberInUnicodeList, simplified). */
static BOOL IsNumberInList(DWORD number, LPCWSTR list)
{
    DWORD value = 0;
    BOOL digits = FALSE;
    if (list == NULL) return FALSE;
    for (;; list++) {
        if (*list >= '0' && *list <= '9') {
            value = value * 10 + (DWORD)(*list - '0');
            digits = TRUE;
        } else {
            if (digits && value == number) return TRUE;
            value = 0;
            digits = FALSE;
            if (*list == 0) return FALSE;
        }
    }
}

static BOOL IsGlobal(LPCWSTR q)
{
    static const char g[] = "global";
    if (q == NULL || *q == 0) return TRUE;
    for (int i = 0; g[i]; i++) {
        WCHAR c = q[i];
        if (c >= 'A' && c <= 'Z') c = (WCHAR)(c - 'A' + 'a');
        if (c != (WCHAR)g[i]) return FALSE;
    }
    return q[6] == 0 || q[6] == ' ';
}

DWORD APIENTRY OpenW32GenPerformanceData(LPWSTR lpDeviceNames)
{
    HKEY hKeyDriverPerf;
    DWORD size, type, dwFirstHelp = 0;
    LONG status;

    if (dwOpenCount++ != 0) return ERROR_SUCCESS;
    bOdd = WideEquals(lpDeviceNames, "odd");

    status = RegOpenKeyEx(HKEY_LOCAL_MACHINE, W32GEN_KEY, 0L, KEY_READ, &hKeyDriverPerf);
    if (status != ERROR_SUCCESS) return (DWORD)status;
    size = sizeof(DWORD);
    status = RegQueryValueEx(hKeyDriverPerf, TEXT("First Counter"), 0L, &type, (LPBYTE)&dwFirstCounter, &size);
    if (status == ERROR_SUCCESS && type != REG_DWORD) status = ERROR_INVALID_DATA;
    if (status == ERROR_SUCCESS) {
        size = sizeof(DWORD);
        status = RegQueryValueEx(hKeyDriverPerf, TEXT("First Help"), 0L, &type, (LPBYTE)&dwFirstHelp, &size);
    }
    RegCloseKey(hKeyDriverPerf);
    if (status != ERROR_SUCCESS) return (DWORD)status;

    PERF_OBJECT_TYPE *o = &W32GenDataDefinition.ObjectType;
    o->TotalByteLength = sizeof(W32GEN_DATA_DEFINITION) + (bOdd ? 12 : 16);
    o->DefinitionLength = sizeof(W32GEN_DATA_DEFINITION);
    o->HeaderLength = sizeof(PERF_OBJECT_TYPE);
    o->ObjectNameTitleIndex = dwFirstCounter + W32GEN_OBJ;
    o->ObjectHelpTitleIndex = dwFirstHelp + W32GEN_OBJ;
    o->DetailLevel = PERF_DETAIL_NOVICE;
    o->NumCounters = 2;
    o->DefaultCounter = 0;
    o->NumInstances = PERF_NO_INSTANCES;
    o->CodePage = 0;

    PERF_COUNTER_DEFINITION *c = &W32GenDataDefinition.Constant;
    c->ByteLength = sizeof(PERF_COUNTER_DEFINITION);
    c->CounterNameTitleIndex = dwFirstCounter + W32GEN_CONSTANT;
    c->CounterHelpTitleIndex = dwFirstHelp + W32GEN_CONSTANT;
    c->DetailLevel = PERF_DETAIL_NOVICE;
    c->CounterType = PERF_COUNTER_RAWCOUNT;
    c->CounterSize = sizeof(DWORD);
    c->CounterOffset = (DWORD)offsetof(W32GEN_COUNTER_DATA, Constant);

    c = &W32GenDataDefinition.Collections;
    c->ByteLength = sizeof(PERF_COUNTER_DEFINITION);
    c->CounterNameTitleIndex = dwFirstCounter + W32GEN_TICKS;
    c->CounterHelpTitleIndex = dwFirstHelp + W32GEN_TICKS;
    c->DetailLevel = PERF_DETAIL_NOVICE;
    c->CounterType = PERF_COUNTER_RAWCOUNT;
    c->CounterSize = sizeof(DWORD);
    c->CounterOffset = (DWORD)offsetof(W32GEN_COUNTER_DATA, Collections);

    bInitOK = TRUE;
    return ERROR_SUCCESS;
}

DWORD APIENTRY CollectW32GenPerformanceData(LPWSTR lpValueName, LPVOID *lppData, LPDWORD lpcbTotalBytes,
                                            LPDWORD lpNumObjectTypes)
{
    DWORD need = W32GenDataDefinition.ObjectType.TotalByteLength;
    if (!bInitOK || !(IsGlobal(lpValueName) ||
                      IsNumberInList(W32GenDataDefinition.ObjectType.ObjectNameTitleIndex, lpValueName))) {
        *lpcbTotalBytes = 0;
        *lpNumObjectTypes = 0;
        return ERROR_SUCCESS;
    }
    if (*lpcbTotalBytes < need) {
        *lpcbTotalBytes = 0;
        *lpNumObjectTypes = 0;
        return ERROR_MORE_DATA;
    }
    BYTE *p = (BYTE *)*lppData;
    memcpy(p, &W32GenDataDefinition, sizeof(W32GenDataDefinition));
    W32GEN_COUNTER_DATA *d = (W32GEN_COUNTER_DATA *)(p + sizeof(W32GenDataDefinition));
    memset(d, 0, bOdd ? 12 : 16);
    d->CounterBlock.ByteLength = bOdd ? 12 : 16;
    d->Constant = dwFirstCounter;
    d->Collections = ++dwCollections;
    *lppData = p + need;
    *lpcbTotalBytes = need;
    *lpNumObjectTypes = 1;
    return ERROR_SUCCESS;
}

DWORD APIENTRY CloseW32GenPerformanceData(void)
{
    if (dwOpenCount > 0) dwOpenCount--;
    return ERROR_SUCCESS;
}
