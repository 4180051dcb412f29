// W32GenCxx: a performance provider in C++ with UNICODE and _UNICODE, as a
// Windows developer writes one: a provider class, a global instance (its
// constructor runs at load, its destructor at unload), PM_*_PROC function
// types, TEXT()/L"" strings, the registry, the event log and wsprintf.
// Built only against include/win32 with the flags of docs/win32.md; the test
// compiles it with g++ and with clang++.
//
// Open reads First Counter/First Help from its own key; Collect returns one
// object with two instances, "first" and "caf\u00e9", each with "Constant
// Value" (the First Counter read) and "Collections". The counter blocks are
// 12 bytes, so the object is not a multiple of 8 long, as in several
// shipping providers.
#include <Windows.h>
#include <WinPerf.h>
#include <tchar.h>

#include "w32gensym.h"

#define W32GEN_KEY TEXT("SYSTEM\\CurrentControlSet\\Services\\W32GenCxx\\Performance")

extern "C" {
__declspec(dllexport) PM_OPEN_PROC OpenW32GenCxx;
__declspec(dllexport) PM_COLLECT_PROC CollectW32GenCxx;
__declspec(dllexport) PM_CLOSE_PROC CloseW32GenCxx;
}

namespace {

#pragma pack(push, 8)
struct InstanceData {
    PERF_COUNTER_BLOCK CounterBlock;
    DWORD Constant;
    DWORD Collections;
};
#pragma pack(pop)

class W32GenProvider {
public:
    W32GenProvider() : m_opens(0), m_firstCounter(0), m_firstHelp(0), m_collections(0), m_log(NULL) {}
    ~W32GenProvider()
    {
        if (m_log) DeregisterEventSource(m_log);
    }

    DWORD Open(LPWSTR devices)
    {
        UNREFERENCED_PARAMETER(devices);
        if (m_opens++ != 0) return ERROR_SUCCESS;
        HKEY key;
        LONG status = RegOpenKeyEx(HKEY_LOCAL_MACHINE, W32GEN_KEY, 0, KEY_READ, &key);
        if (status != ERROR_SUCCESS) return (DWORD)status;
        DWORD type = 0, size = sizeof(DWORD);
        status = RegQueryValueEx(key, TEXT("First Counter"), NULL, &type, (LPBYTE)&m_firstCounter, &size);
        if (status == ERROR_SUCCESS) {
            size = sizeof(DWORD);
            status = RegQueryValueEx(key, TEXT("First Help"), NULL, &type, (LPBYTE)&m_firstHelp, &size);
        }
        RegCloseKey(key);
        if (status != ERROR_SUCCESS) return (DWORD)status;
        m_log = RegisterEventSource(NULL, TEXT("W32GenCxx"));
        TCHAR msg[128];
        wsprintf(msg, TEXT("opened: First Counter %lu, First Help %lu"), m_firstCounter, m_firstHelp);
        LPCTSTR strings[1] = {msg};
        if (m_log) ReportEvent(m_log, EVENTLOG_INFORMATION_TYPE, 0, 1000, NULL, 1, 0, strings, NULL);
        return ERROR_SUCCESS;
    }

    DWORD Collect(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
    {
        static const WCHAR *const names[2] = {L"first", L"caf\u00e9"};
        if (m_opens == 0 || !Wanted(query)) {
            *bytes = 0;
            *objects = 0;
            return ERROR_SUCCESS;
        }
        DWORD need = sizeof(PERF_OBJECT_TYPE) + 2 * sizeof(PERF_COUNTER_DEFINITION);
        for (int i = 0; i < 2; i++) need += InstanceLength(names[i]) + sizeof(InstanceData);
        if (*bytes < need) {
            *bytes = 0;
            *objects = 0;
            return ERROR_MORE_DATA;
        }
        BYTE *start = static_cast<BYTE *>(*data);
        ZeroMemory(start, need);
        PERF_OBJECT_TYPE *obj = reinterpret_cast<PERF_OBJECT_TYPE *>(start);
        obj->TotalByteLength = need;
        obj->DefinitionLength = sizeof(PERF_OBJECT_TYPE) + 2 * sizeof(PERF_COUNTER_DEFINITION);
        obj->HeaderLength = sizeof(PERF_OBJECT_TYPE);
        obj->ObjectNameTitleIndex = m_firstCounter + W32GEN_OBJ;
        obj->ObjectHelpTitleIndex = m_firstHelp + W32GEN_OBJ;
        obj->DetailLevel = PERF_DETAIL_NOVICE;
        obj->NumCounters = 2;
        obj->NumInstances = 2;
        PERF_COUNTER_DEFINITION *def = reinterpret_cast<PERF_COUNTER_DEFINITION *>(obj + 1);
        const DWORD offsets[2] = {W32GEN_CONSTANT, W32GEN_TICKS};
        for (int c = 0; c < 2; c++) {
            def[c].ByteLength = sizeof(PERF_COUNTER_DEFINITION);
            def[c].CounterNameTitleIndex = m_firstCounter + offsets[c];
            def[c].CounterHelpTitleIndex = m_firstHelp + offsets[c];
            def[c].DetailLevel = PERF_DETAIL_NOVICE;
            def[c].CounterType = PERF_COUNTER_RAWCOUNT;
            def[c].CounterSize = sizeof(DWORD);
            def[c].CounterOffset = c == 0 ? FIELD_OFFSET(InstanceData, Constant) : FIELD_OFFSET(InstanceData, Collections);
        }
        m_collections++;
        BYTE *p = start + obj->DefinitionLength;
        for (int i = 0; i < 2; i++) {
            PERF_INSTANCE_DEFINITION *inst = reinterpret_cast<PERF_INSTANCE_DEFINITION *>(p);
            DWORD len = (DWORD)(_tcslen(names[i]) + 1) * sizeof(WCHAR);
            inst->ByteLength = InstanceLength(names[i]);
            inst->UniqueID = PERF_NO_UNIQUE_ID;
            inst->NameOffset = sizeof(PERF_INSTANCE_DEFINITION);
            inst->NameLength = len;
            CopyMemory(p + inst->NameOffset, names[i], len);
            InstanceData values;
            values.CounterBlock.ByteLength = sizeof(InstanceData);
            values.Constant = m_firstCounter;
            values.Collections = m_collections;
            CopyMemory(p + inst->ByteLength, &values, sizeof values); // unaligned: memcpy
            p += inst->ByteLength + sizeof(InstanceData);
        }
        *data = p;
        *bytes = need;
        *objects = 1;
        return ERROR_SUCCESS;
    }

    DWORD Close()
    {
        if (m_opens > 0) m_opens--;
        return ERROR_SUCCESS;
    }

private:
    static DWORD InstanceLength(const WCHAR *name)
    {
        DWORD len = (DWORD)(_tcslen(name) + 1) * sizeof(WCHAR);
        return sizeof(PERF_INSTANCE_DEFINITION) + ((len + 7) & ~7u);
    }

    bool Wanted(LPCWSTR query) const
    {
        if (query == NULL || *query == 0 || _tcsnicmp(query, L"Global", 6) == 0) return true;
        TCHAR idx[16];
        wsprintf(idx, TEXT("%lu"), m_firstCounter + W32GEN_OBJ);
        return _tcsstr(query, idx) != NULL;
    }

    DWORD m_opens;
    DWORD m_firstCounter;
    DWORD m_firstHelp;
    DWORD m_collections;
    HANDLE m_log;
};

W32GenProvider g_provider;

} // namespace

DWORD APIENTRY OpenW32GenCxx(LPWSTR devices) { return g_provider.Open(devices); }

DWORD APIENTRY CollectW32GenCxx(LPWSTR query, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    return g_provider.Collect(query, data, bytes, objects);
}

DWORD APIENTRY CloseW32GenCxx(void) { return g_provider.Close(); }
