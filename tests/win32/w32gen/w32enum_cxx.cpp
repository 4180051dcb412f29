// w32enum: a consumer in C++ with UNICODE and _UNICODE, as a Windows
// developer writes one (PERFENUM / KB Q107728 in shape): the title table from
// "Counter 009", the grow-and-retry loop on HKEY_PERFORMANCE_DATA, the
// pointer walk, _tprintf of UTF-16 names. Built only against include/win32
// with the flags of docs/win32.md (-lperflib_wmain for _tmain).
//
// Usage: w32enum <object name>; prints the system name check, then one line
// per instance and counter: "<instance>|<counter>|<value>".
#include <windows.h>
#include <tchar.h>

#include <vector>

static DWORD FindTitle(const std::vector<BYTE> &titles, LPCTSTR name)
{
    const TCHAR *p = reinterpret_cast<const TCHAR *>(titles.data());
    const TCHAR *end = p + titles.size() / sizeof(TCHAR);
    while (p < end && *p) {
        DWORD index = (DWORD)_ttol(p);
        p += _tcslen(p) + 1;
        if (p >= end) break;
        if (_tcsicmp(p, name) == 0) return index;
        p += _tcslen(p) + 1;
    }
    return 0;
}

static LPCTSTR TitleOf(const std::vector<BYTE> &titles, DWORD index)
{
    const TCHAR *p = reinterpret_cast<const TCHAR *>(titles.data());
    const TCHAR *end = p + titles.size() / sizeof(TCHAR);
    while (p < end && *p) {
        DWORD i = (DWORD)_ttol(p);
        p += _tcslen(p) + 1;
        if (p >= end) break;
        if (i == index) return p;
        p += _tcslen(p) + 1;
    }
    return TEXT("?");
}

int _tmain(int argc, _TCHAR *argv[])
{
    if (argc != 2) {
        _ftprintf(stderr, TEXT("usage: %s <object>\n"), argv[0]);
        return 2;
    }
    DWORD type = 0, size = 0;
    if (RegQueryValueEx(HKEY_PERFORMANCE_DATA, TEXT("Counter 009"), NULL, &type, NULL, &size) != ERROR_SUCCESS)
        return 3;
    std::vector<BYTE> titles(size);
    if (RegQueryValueEx(HKEY_PERFORMANCE_DATA, TEXT("Counter 009"), NULL, &type, titles.data(), &size) !=
            ERROR_SUCCESS ||
        type != REG_MULTI_SZ)
        return 3;
    DWORD object = FindTitle(titles, argv[1]);
    if (object == 0) {
        _tprintf(TEXT("no object %s\n"), argv[1]);
        return 4;
    }

    std::vector<BYTE> buf(1024);
    LARGE_INTEGER before;
    QueryPerformanceCounter(&before);
    for (;;) {
        size = (DWORD)buf.size();
        LONG rc = RegQueryValueEx(HKEY_PERFORMANCE_DATA, TEXT("Global"), NULL, &type, buf.data(), &size);
        if (rc == ERROR_SUCCESS) break;
        if (rc != ERROR_MORE_DATA || buf.size() > (64u << 20)) return 5;
        buf.resize(buf.size() + 4096);
    }
    RegCloseKey(HKEY_PERFORMANCE_DATA);
    PERF_DATA_BLOCK *pdb = reinterpret_cast<PERF_DATA_BLOCK *>(buf.data());
    TCHAR computer[MAX_COMPUTERNAME_LENGTH + 64];
    DWORD n = ARRAYSIZE(computer);
    GetComputerName(computer, &n);
    LPCWSTR sysname = reinterpret_cast<LPCWSTR>(buf.data() + pdb->SystemNameOffset);
    _tprintf(TEXT("system name %s\n"), _tcscmp(sysname, computer) == 0 ? TEXT("matches") : TEXT("differs"));
    _tprintf(TEXT("clock %s\n"), before.QuadPart <= pdb->PerfTime.QuadPart && pdb->PerfFreq.QuadPart == 10000000
                                     ? TEXT("agrees")
                                     : TEXT("differs"));

    PERF_OBJECT_TYPE *obj = reinterpret_cast<PERF_OBJECT_TYPE *>(buf.data() + pdb->HeaderLength);
    for (DWORD o = 0; o < pdb->NumObjectTypes; o++) {
        if (obj->TotalByteLength % 8 != 0) _tprintf(TEXT("object %lu not aligned\n"), obj->ObjectNameTitleIndex);
        if (obj->ObjectNameTitleIndex == object) {
            PERF_COUNTER_DEFINITION *def = reinterpret_cast<PERF_COUNTER_DEFINITION *>(
                reinterpret_cast<BYTE *>(obj) + obj->HeaderLength);
            PERF_INSTANCE_DEFINITION *inst = reinterpret_cast<PERF_INSTANCE_DEFINITION *>(
                reinterpret_cast<BYTE *>(obj) + obj->DefinitionLength);
            for (LONG i = 0; i < obj->NumInstances; i++) {
                LPCWSTR name = reinterpret_cast<LPCWSTR>(reinterpret_cast<BYTE *>(inst) + inst->NameOffset);
                BYTE *block = reinterpret_cast<BYTE *>(inst) + inst->ByteLength;
                PERF_COUNTER_DEFINITION *d = def;
                for (DWORD c = 0; c < obj->NumCounters; c++) {
                    DWORD value;
                    CopyMemory(&value, block + d->CounterOffset, sizeof value);
                    _tprintf(TEXT("%s|%s|%lu\n"), name, TitleOf(titles, d->CounterNameTitleIndex), value);
                    d = reinterpret_cast<PERF_COUNTER_DEFINITION *>(reinterpret_cast<BYTE *>(d) + d->ByteLength);
                }
                DWORD blen;
                CopyMemory(&blen, block, sizeof blen);
                inst = reinterpret_cast<PERF_INSTANCE_DEFINITION *>(block + blen);
            }
        }
        obj = reinterpret_cast<PERF_OBJECT_TYPE *>(reinterpret_cast<BYTE *>(obj) + obj->TotalByteLength);
    }
    return 0;
}
