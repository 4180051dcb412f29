/* perfenum: take a snapshot through HKEY_PERFORMANCE_DATA and print every
 * object, instance and counter with its raw value, written against the
 * Windows API only (<windows.h>, <winperf.h>, the C library). The idea is
 * that of Matt Pietrek's PERFENUM (MSJ, April 1996) and of Microsoft's KB
 * Q107728, in our own code:
 *   - read the counter names ("Counter 009") into a table by index;
 *   - query the snapshot with a buffer that grows until RegQueryValueEx
 *     stops answering ERROR_MORE_DATA;
 *   - walk PERF_DATA_BLOCK -> PERF_OBJECT_TYPE -> PERF_COUNTER_DEFINITION ->
 *     PERF_INSTANCE_DEFINITION -> PERF_COUNTER_BLOCK with the usual pointer
 *     arithmetic (HeaderLength, DefinitionLength, ByteLength,
 *     TotalByteLength, CounterOffset).
 * Usage: perfenum [query]   (default "Global"; e.g. "238", "2 4") */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <winperf.h>

#define FIRST_SIZE 512
#define GROW_BY 1024

static LPSTR *g_ppszName;   /* counter/object names by index */
static DWORD g_dwNames;     /* slots in g_ppszName */
static LPSTR g_pszRawNames;

static LPCSTR NameOf(DWORD dwIndex)
{
    if (dwIndex < g_dwNames && g_ppszName[dwIndex]) return g_ppszName[dwIndex];
    return "(no name)";
}

static DWORD LoadNames(void)
{
    DWORD cb = 0, dwType = 0, dwMax = 0;
    LONG lRet = RegQueryValueEx(HKEY_PERFORMANCE_DATA, "Counter 009", NULL, &dwType, NULL, &cb);
    if (lRet != ERROR_SUCCESS) return (DWORD)lRet;
    g_pszRawNames = (LPSTR)malloc(cb);
    if (!g_pszRawNames) return ERROR_OUTOFMEMORY;
    lRet = RegQueryValueEx(HKEY_PERFORMANCE_DATA, "Counter 009", NULL, &dwType, (LPBYTE)g_pszRawNames, &cb);
    if (lRet != ERROR_SUCCESS) return (DWORD)lRet;
    /* First pass: the highest index; second pass: file the names. */
    for (int pass = 0; pass < 2; pass++) {
        for (LPSTR p = g_pszRawNames; *p;) {
            DWORD dwIndex = (DWORD)strtoul(p, NULL, 10);
            p += strlen(p) + 1;
            if (!*p) break;
            if (pass == 0 && dwIndex > dwMax) dwMax = dwIndex;
            if (pass == 1) g_ppszName[dwIndex] = p;
            p += strlen(p) + 1;
        }
        if (pass == 0) {
            g_dwNames = dwMax + 1;
            g_ppszName = (LPSTR *)calloc(g_dwNames, sizeof(LPSTR));
            if (!g_ppszName) return ERROR_OUTOFMEMORY;
        }
    }
    return ERROR_SUCCESS;
}

/* Print a NUL-terminated (or cch-limited) UTF-16 string as UTF-8, with
 * control characters escaped. */
static void PrintWide(const WCHAR *pw, DWORD cch)
{
    for (DWORD i = 0; i < cch && pw[i]; i++) {
        DWORD c = pw[i];
        if (c >= 0xD800 && c < 0xDC00 && i + 1 < cch && pw[i + 1] >= 0xDC00 && pw[i + 1] < 0xE000) {
            c = 0x10000 + ((c - 0xD800) << 10) + (pw[i + 1] - 0xDC00u);
            i++;
        }
        if (c < 0x20 || c == 0x7F) printf("\\x%02lX", (unsigned long)c);
        else if (c < 0x80) putchar((int)c);
        else if (c < 0x800) printf("%c%c", (int)(0xC0 | (c >> 6)), (int)(0x80 | (c & 0x3F)));
        else if (c < 0x10000)
            printf("%c%c%c", (int)(0xE0 | (c >> 12)), (int)(0x80 | ((c >> 6) & 0x3F)), (int)(0x80 | (c & 0x3F)));
        else
            printf("%c%c%c%c", (int)(0xF0 | (c >> 18)), (int)(0x80 | ((c >> 12) & 0x3F)),
                   (int)(0x80 | ((c >> 6) & 0x3F)), (int)(0x80 | (c & 0x3F)));
    }
}

/* The raw value of one counter, by the size bits of its type. */
static void PrintValue(PPERF_COUNTER_DEFINITION pCtr, PPERF_COUNTER_BLOCK pBlock)
{
    PBYTE pData = (PBYTE)pBlock + pCtr->CounterOffset;
    switch (pCtr->CounterType & 0x00000300u) {
    case PERF_SIZE_DWORD: {
        DWORD v;
        memcpy(&v, pData, sizeof v);
        printf("%lu", (unsigned long)v);
        break;
    }
    case PERF_SIZE_LARGE: {
        ULONGLONG v;
        memcpy(&v, pData, sizeof v);
        printf("%llu", (unsigned long long)v);
        break;
    }
    case PERF_SIZE_VARIABLE_LEN:
        if ((pCtr->CounterType & 0x00000C00u) == PERF_TYPE_TEXT) {
            putchar('"');
            PrintWide((const WCHAR *)pData, pCtr->CounterSize / sizeof(WCHAR));
            putchar('"');
        } else {
            printf("(%lu bytes)", (unsigned long)pCtr->CounterSize);
        }
        break;
    default:
        printf("(no data)");
        break;
    }
}

static void PrintCounters(PPERF_OBJECT_TYPE pObj, PPERF_COUNTER_BLOCK pBlock, LPCSTR pszIndent)
{
    PPERF_COUNTER_DEFINITION pCtr = (PPERF_COUNTER_DEFINITION)((PBYTE)pObj + pObj->HeaderLength);
    for (DWORD j = 0; j < pObj->NumCounters; j++) {
        printf("%s%s = ", pszIndent, NameOf(pCtr->CounterNameTitleIndex));
        PrintValue(pCtr, pBlock);
        putchar('\n');
        pCtr = (PPERF_COUNTER_DEFINITION)((PBYTE)pCtr + pCtr->ByteLength);
    }
}

int main(int argc, char **argv)
{
    LPCSTR pszQuery = argc > 1 ? argv[1] : "Global";
    DWORD cbBuffer = FIRST_SIZE, dwType = 0;
    PPERF_DATA_BLOCK pData;
    LONG lRet;

    if ((lRet = (LONG)LoadNames()) != ERROR_SUCCESS) {
        fprintf(stderr, "perfenum: cannot read the counter names (error %ld)\n", (long)lRet);
        return 1;
    }

    /* There is no "size needed" for a snapshot: grow the buffer and retry. */
    pData = (PPERF_DATA_BLOCK)malloc(cbBuffer);
    for (;;) {
        DWORD cb = cbBuffer;
        lRet = RegQueryValueEx(HKEY_PERFORMANCE_DATA, pszQuery, NULL, &dwType, (LPBYTE)pData, &cb);
        if (lRet != ERROR_MORE_DATA) break;
        cbBuffer += GROW_BY;
        pData = (PPERF_DATA_BLOCK)realloc(pData, cbBuffer);
        if (!pData) {
            fprintf(stderr, "perfenum: out of memory\n");
            return 1;
        }
    }
    RegCloseKey(HKEY_PERFORMANCE_DATA);
    if (lRet != ERROR_SUCCESS || dwType != REG_BINARY || memcmp(pData->Signature, u"PERF", 8) != 0) {
        fprintf(stderr, "perfenum: query \"%s\" failed (error %ld)\n", pszQuery, (long)lRet);
        free(pData);
        return 1;
    }
    printf("Query \"%s\": %lu objects, default object %ld (%s)\n", pszQuery, (unsigned long)pData->NumObjectTypes,
           (long)pData->DefaultObject, NameOf((DWORD)pData->DefaultObject));

    PPERF_OBJECT_TYPE pObj = (PPERF_OBJECT_TYPE)((PBYTE)pData + pData->HeaderLength);
    for (DWORD i = 0; i < pData->NumObjectTypes; i++) {
        printf("\nObject %lu %s (help %lu, %lu counters, ", (unsigned long)pObj->ObjectNameTitleIndex,
               NameOf(pObj->ObjectNameTitleIndex), (unsigned long)pObj->ObjectHelpTitleIndex,
               (unsigned long)pObj->NumCounters);
        if (pObj->NumInstances == PERF_NO_INSTANCES) {
            printf("no instances)\n");
            /* Without instances the counter block follows the definitions. */
            PrintCounters(pObj, (PPERF_COUNTER_BLOCK)((PBYTE)pObj + pObj->DefinitionLength), "  ");
        } else {
            printf("%ld instances)\n", (long)pObj->NumInstances);
            PPERF_INSTANCE_DEFINITION pInst = (PPERF_INSTANCE_DEFINITION)((PBYTE)pObj + pObj->DefinitionLength);
            for (LONG k = 0; k < pObj->NumInstances; k++) {
                printf("  Instance \"");
                PrintWide((const WCHAR *)((PBYTE)pInst + pInst->NameOffset), pInst->NameLength / sizeof(WCHAR));
                printf("\"");
                if (pInst->ParentObjectTitleIndex)
                    printf(" (parent: %s instance %lu)", NameOf(pInst->ParentObjectTitleIndex),
                           (unsigned long)pInst->ParentObjectInstance);
                if (pInst->UniqueID != PERF_NO_UNIQUE_ID) printf(" (id %ld)", (long)pInst->UniqueID);
                putchar('\n');
                /* The instance's counter block follows its definition. */
                PPERF_COUNTER_BLOCK pBlock = (PPERF_COUNTER_BLOCK)((PBYTE)pInst + pInst->ByteLength);
                PrintCounters(pObj, pBlock, "    ");
                pInst = (PPERF_INSTANCE_DEFINITION)((PBYTE)pBlock + pBlock->ByteLength);
            }
        }
        pObj = (PPERF_OBJECT_TYPE)((PBYTE)pObj + pObj->TotalByteLength);
    }
    free(pData);
    free(g_ppszName);
    free(g_pszRawNames);
    return 0;
}
