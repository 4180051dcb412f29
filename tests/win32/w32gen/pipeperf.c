/* PipeServicePerf: a provider for the counters that pywin32's demo service
 * declares in shared/realworld/lodctr/pywin32 (perf_install.ini and .h),
 * written as a Windows provider is: it reads First Counter/First Help from
 * its own key in Open and adds the symbol offsets of perf_install.h. Like
 * the demo, it publishes a counter at offset THREAD (8), which the demo's
 * .ini names under THREADS, a symbol the .h does not define: lodctr skips
 * that name and the provider's range ends at WRITE (6), so the counter's
 * title index lies outside it (issue 29 item 5). Windows shows the object
 * with that counter nameless; so does perflib.
 *
 * One object without instances: Heartbeat pulse 1, Bytes read/sec 100,
 * Bytes written/sec 200 and the nameless thread count 3 (raw counts, so
 * the test can read them in one sample). */
#include <windows.h>

#define SERVICE 0
#define HEARTBEAT 2
#define READ 4
#define WRITE 6
#define THREAD 8

#define PIPE_KEY "SYSTEM\\CurrentControlSet\\Services\\PipeServicePerf\\Performance"
#define NCOUNTERS 4

typedef struct {
    PERF_OBJECT_TYPE object;
    PERF_COUNTER_DEFINITION counters[NCOUNTERS];
    PERF_COUNTER_BLOCK block;
    DWORD values[NCOUNTERS];
} PIPE_DATA;

__declspec(dllexport) PM_OPEN_PROC OpenPipePerf;
__declspec(dllexport) PM_COLLECT_PROC CollectPipePerf;
__declspec(dllexport) PM_CLOSE_PROC ClosePipePerf;

static PIPE_DATA g_data;
static BOOL g_open;

__declspec(dllexport) DWORD APIENTRY OpenPipePerf(LPWSTR lpDeviceNames)
{
    UNREFERENCED_PARAMETER(lpDeviceNames);
    HKEY key;
    DWORD first = 0, help = 0, size = sizeof(DWORD);
    LONG res = RegOpenKeyExA(HKEY_LOCAL_MACHINE, PIPE_KEY, 0, KEY_READ, &key);
    if (res != ERROR_SUCCESS) return (DWORD)res;
    res = RegQueryValueExA(key, "First Counter", NULL, NULL, (LPBYTE)&first, &size);
    size = sizeof(DWORD);
    if (res == ERROR_SUCCESS) res = RegQueryValueExA(key, "First Help", NULL, NULL, (LPBYTE)&help, &size);
    RegCloseKey(key);
    if (res != ERROR_SUCCESS) return (DWORD)res;

    static const DWORD offsets[NCOUNTERS] = {HEARTBEAT, READ, WRITE, THREAD};
    static const DWORD values[NCOUNTERS] = {1, 100, 200, 3};
    ZeroMemory(&g_data, sizeof g_data);
    g_data.object.TotalByteLength = sizeof g_data;
    g_data.object.DefinitionLength = FIELD_OFFSET(PIPE_DATA, block);
    g_data.object.HeaderLength = sizeof(PERF_OBJECT_TYPE);
    g_data.object.ObjectNameTitleIndex = first + SERVICE;
    g_data.object.ObjectHelpTitleIndex = help + SERVICE;
    g_data.object.DetailLevel = PERF_DETAIL_NOVICE;
    g_data.object.NumCounters = NCOUNTERS;
    g_data.object.NumInstances = PERF_NO_INSTANCES;
    for (int i = 0; i < NCOUNTERS; i++) {
        PERF_COUNTER_DEFINITION *d = &g_data.counters[i];
        d->ByteLength = sizeof *d;
        d->CounterNameTitleIndex = first + offsets[i];
        d->CounterHelpTitleIndex = help + offsets[i];
        d->DetailLevel = PERF_DETAIL_NOVICE;
        d->CounterType = PERF_COUNTER_RAWCOUNT;
        d->CounterSize = sizeof(DWORD);
        d->CounterOffset = (DWORD)(sizeof(PERF_COUNTER_BLOCK) + i * sizeof(DWORD));
        g_data.values[i] = values[i];
    }
    g_data.block.ByteLength = sizeof(PERF_COUNTER_BLOCK) + NCOUNTERS * sizeof(DWORD);
    C_ASSERT(sizeof(PIPE_DATA) % 8 == 0);
    g_open = TRUE;
    return ERROR_SUCCESS;
}

__declspec(dllexport) DWORD APIENTRY CollectPipePerf(LPWSTR lpValueName, LPVOID *lppData, LPDWORD lpcbTotalBytes,
                                                     LPDWORD lpNumObjectTypes)
{
    UNREFERENCED_PARAMETER(lpValueName);
    if (!g_open || *lpcbTotalBytes < sizeof g_data) {
        DWORD rc = g_open ? ERROR_MORE_DATA : ERROR_SUCCESS;
        *lpcbTotalBytes = 0;
        *lpNumObjectTypes = 0;
        return rc;
    }
    CopyMemory(*lppData, &g_data, sizeof g_data);
    *lppData = (BYTE *)*lppData + sizeof g_data;
    *lpcbTotalBytes = sizeof g_data;
    *lpNumObjectTypes = 1;
    return ERROR_SUCCESS;
}

__declspec(dllexport) DWORD APIENTRY ClosePipePerf(void)
{
    g_open = FALSE;
    return ERROR_SUCCESS;
}
