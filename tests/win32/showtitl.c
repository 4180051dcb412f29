/* showtitl: list the performance title database the way a Windows program
 * of the NT 3.51 era does it, written against the Windows API only
 * (<windows.h>, the C library). It follows the idea of Matt Pietrek's
 * SHOWTITL (MSJ, March 1996) in our own code:
 *   1. read "Last Counter"/"Last Help" from the Perflib key of
 *      HKEY_LOCAL_MACHINE to size an index table;
 *   2. ask HKEY_PERFORMANCE_DATA how big "Counter <lang>" / "Explain <lang>"
 *      is, read it, and file each "index\0text\0" pair under its index;
 *   3. print every index that has a text, names first, then help texts.
 * Usage: showtitl [language]   (default 009) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#define PERFLIB_KEY_PATH TEXT("SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib")

typedef struct TITLE_TABLE {
    DWORD dwLastIndex;
    LPSTR pszRaw;   /* the REG_MULTI_SZ as read */
    LPSTR *ppszText; /* dwLastIndex + 1 slots, NULL where nothing is named */
} TITLE_TABLE;

static DWORD ReadLastIndex(LPCSTR pszValue, DWORD *pdwLast)
{
    HKEY hKey = NULL;
    DWORD dwType = 0, cb = sizeof(DWORD);
    LONG lRet = RegOpenKeyEx(HKEY_LOCAL_MACHINE, PERFLIB_KEY_PATH, 0, KEY_READ, &hKey);
    if (lRet != ERROR_SUCCESS) return (DWORD)lRet;
    lRet = RegQueryValueEx(hKey, pszValue, NULL, &dwType, (LPBYTE)pdwLast, &cb);
    RegCloseKey(hKey);
    if (lRet == ERROR_SUCCESS && dwType != REG_DWORD) lRet = ERROR_INVALID_DATA;
    return (DWORD)lRet;
}

static DWORD LoadTitles(TITLE_TABLE *pTable, LPCSTR pszLastValue, LPCSTR pszKind, LPCSTR pszLang)
{
    CHAR szValue[64];
    DWORD dwType = 0, cbData = 0;
    LONG lRet;

    memset(pTable, 0, sizeof *pTable);
    lRet = (LONG)ReadLastIndex(pszLastValue, &pTable->dwLastIndex);
    if (lRet != ERROR_SUCCESS) return (DWORD)lRet;

    snprintf(szValue, sizeof szValue, "%s %s", pszKind, pszLang);
    /* The title text answers a size question: NULL data gives the size. */
    lRet = RegQueryValueEx(HKEY_PERFORMANCE_DATA, szValue, NULL, &dwType, NULL, &cbData);
    if (lRet != ERROR_SUCCESS) return (DWORD)lRet;
    pTable->pszRaw = (LPSTR)malloc(cbData);
    if (!pTable->pszRaw) return ERROR_OUTOFMEMORY;
    lRet = RegQueryValueEx(HKEY_PERFORMANCE_DATA, szValue, NULL, &dwType, (LPBYTE)pTable->pszRaw, &cbData);
    if (lRet != ERROR_SUCCESS) return (DWORD)lRet;
    if (dwType != REG_MULTI_SZ) return ERROR_INVALID_DATA;

    pTable->ppszText = (LPSTR *)calloc(pTable->dwLastIndex + 1, sizeof(LPSTR));
    if (!pTable->ppszText) return ERROR_OUTOFMEMORY;
    /* Pairs of strings: the decimal index, then its text; an empty string
     * ends the list. */
    for (LPSTR p = pTable->pszRaw; *p;) {
        DWORD dwIndex = (DWORD)strtoul(p, NULL, 10);
        p += strlen(p) + 1;
        if (!*p) break;
        if (dwIndex <= pTable->dwLastIndex) pTable->ppszText[dwIndex] = p;
        p += strlen(p) + 1;
    }
    return ERROR_SUCCESS;
}

static void FreeTitles(TITLE_TABLE *pTable)
{
    free(pTable->ppszText);
    free(pTable->pszRaw);
}

int main(int argc, char **argv)
{
    LPCSTR pszLang = argc > 1 ? argv[1] : "009";
    TITLE_TABLE names, helps;
    DWORD dwRet = LoadTitles(&names, "Last Counter", "Counter", pszLang);
    if (dwRet == ERROR_SUCCESS) dwRet = LoadTitles(&helps, "Last Help", "Explain", pszLang);
    else memset(&helps, 0, sizeof helps);
    if (dwRet != ERROR_SUCCESS) {
        fprintf(stderr, "showtitl: cannot read the title database (error %lu)\n", (unsigned long)dwRet);
        FreeTitles(&names);
        FreeTitles(&helps);
        return 1;
    }
    for (DWORD i = 0; i <= names.dwLastIndex; i++)
        if (names.ppszText[i]) printf("%lu %s\n", (unsigned long)i, names.ppszText[i]);
    for (DWORD i = 0; i <= helps.dwLastIndex; i++)
        if (helps.ppszText[i]) printf("%lu %s\n", (unsigned long)i, helps.ppszText[i]);
    FreeTitles(&names);
    FreeTitles(&helps);
    return 0;
}
