// RsdnStyle: a performance provider written the way Sergey Kholodilov's
// RSDN Magazine article (2003) writes its minimal and "almost real"
// examples: C++, extern "C" __declspec(dllexport) entry points, a DllMain
// with a DWORD return and without extern "C", MessageBox in every entry
// point, global PERF_* structures copied into the buffer with memcpy,
// rand() from <windows.h> alone, plus what the article's install code and
// its successors call: _stprintf_s, OpenSCManager, a structure ending in
// ANYSIZE_ARRAY. Built by test_win32_cxx with g++ and clang++ against
// include/win32 only, with the flags of docs/win32.md (no extern "C" or
// export added to DllMain: the host finds it as Windows' C runtime does).
//
// The one object, without instances, reports what those calls did.
#include <windows.h>
#include <tchar.h>

#include "rsdnsym.h"

#define RSDN_KEY TEXT("SYSTEM\\CurrentControlSet\\Services\\RsdnStyle\\Performance")

struct Ioctl { // a variable-length request, as driver interfaces declare them
    DWORD Length;
    BYTE Data[ANYSIZE_ARRAY];
};
C_ASSERT(FIELD_OFFSET(Ioctl, Data) == 4 && sizeof(Ioctl) == 8);

#pragma pack(push, 8)
struct CounterData {
    PERF_COUNTER_BLOCK bl;
    DWORD attaches;
    DWORD answer;
    DWORD digit;
    DWORD scm_error;
    DWORD text_length;
    DWORD pad;
};
#pragma pack(pop)

static PERF_OBJECT_TYPE type;
static PERF_COUNTER_DEFINITION counters[5];
static CounterData data;
static DWORD attaches = 0;

static DWORD UpTo8(DWORD v) { return (v + 7) & ~7u; }

static int Trace(LPCTSTR caption, LPCTSTR fmt, ...)
{
    TCHAR text[64];
    va_list ap;
    va_start(ap, fmt);
    int n = _vstprintf_s(text, ARRAYSIZE(text), fmt, ap);
    va_end(ap);
    if (n < 0) return n;
    return MessageBox(NULL, text, caption, MB_OK);
}

extern "C" __declspec(dllexport) DWORD CALLBACK Open(LPWSTR lpDeviceNames)
{
    UNREFERENCED_PARAMETER(lpDeviceNames);
    HKEY key;
    DWORD first = 0, help = 0, size = sizeof(DWORD);
    if (RegOpenKeyEx(HKEY_LOCAL_MACHINE, RSDN_KEY, 0, KEY_READ, &key) != ERROR_SUCCESS) return ERROR_FILE_NOT_FOUND;
    LONG res = RegQueryValueEx(key, TEXT("First Counter"), NULL, NULL, (LPBYTE)&first, &size);
    size = sizeof(DWORD);
    if (res == ERROR_SUCCESS) res = RegQueryValueEx(key, TEXT("First Help"), NULL, NULL, (LPBYTE)&help, &size);
    RegCloseKey(key);
    if (res != ERROR_SUCCESS) return (DWORD)res;

    TCHAR msg[32];
    data.text_length = (DWORD)_stprintf_s(msg, ARRAYSIZE(msg), TEXT("Open %d"), 42);
    data.answer = (DWORD)MessageBox(NULL, msg, TEXT("Open from counter.dll"), MB_OK);
    (void)Trace(TEXT("Trace"), TEXT("first counter %lu"), first);

    // The article's installer registers a service; here there is none.
    SC_HANDLE scm = OpenSCManager(NULL, NULL, SC_MANAGER_CONNECT);
    if (scm == NULL) data.scm_error = GetLastError();
    else CloseServiceHandle(scm);

    type.ObjectNameTitleIndex = first + RSDN_OBJ;
    type.ObjectHelpTitleIndex = help + RSDN_OBJ;
    type.NumCounters = 5;
    type.NumInstances = PERF_NO_INSTANCES;
    type.HeaderLength = sizeof(type);
    type.DetailLevel = PERF_DETAIL_NOVICE;
    const DWORD offsets[5] = {RSDN_ATTACHES, RSDN_ANSWER, RSDN_DIGIT, RSDN_SCM_ERROR, RSDN_TEXT_LENGTH};
    for (int i = 0; i < 5; i++) {
        counters[i].ByteLength = sizeof(PERF_COUNTER_DEFINITION);
        counters[i].CounterNameTitleIndex = first + offsets[i];
        counters[i].CounterHelpTitleIndex = help + offsets[i];
        counters[i].DetailLevel = PERF_DETAIL_NOVICE;
        counters[i].CounterType = PERF_SIZE_DWORD | PERF_TYPE_NUMBER | PERF_NUMBER_DECIMAL;
        counters[i].CounterSize = sizeof(DWORD);
        counters[i].CounterOffset = (DWORD)(sizeof(PERF_COUNTER_BLOCK) + i * sizeof(DWORD));
    }
    data.bl.ByteLength = sizeof(data);
    type.DefinitionLength = type.HeaderLength + sizeof(counters);
    type.TotalByteLength = UpTo8(type.DefinitionLength + data.bl.ByteLength);
    return ERROR_SUCCESS;
}

extern "C" __declspec(dllexport) DWORD WINAPI Collect(LPWSTR lpwszValue, LPVOID *lppData, LPDWORD lpcbBytes,
                                                      LPDWORD lpcObjectTypes)
{
    UNREFERENCED_PARAMETER(lpwszValue);
    if (*lpcbBytes < type.TotalByteLength) {
        *lpcbBytes = 0;
        *lpcObjectTypes = 0;
        return ERROR_MORE_DATA;
    }
    char *temp = (char *)(*lppData);
    memcpy(temp, &type, sizeof(type));
    temp += type.HeaderLength;
    memcpy(temp, counters, sizeof(counters));
    temp += sizeof(counters);
    data.attaches = attaches;
    data.digit = (DWORD)(rand() % 10);
    memcpy(temp, &data, sizeof(data));
    *lppData = (char *)(*lppData) + type.TotalByteLength;
    *lpcbBytes = type.TotalByteLength;
    *lpcObjectTypes = 1;
    return ERROR_SUCCESS;
}

extern "C" __declspec(dllexport) DWORD WINAPI Close()
{
    MessageBoxW(NULL, L"Close", L"Close from counter.dll", MB_OK);
    return ERROR_SUCCESS;
}

DWORD APIENTRY DllMain(HINSTANCE, DWORD dwReason, LPVOID)
{
    if (dwReason == DLL_PROCESS_ATTACH) attaches++;
    return TRUE;
}
