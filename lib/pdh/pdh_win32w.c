/* The W (UTF-16) forms of the Windows-named PDH functions
 * (include/win32/pdh.h): each converts its strings to UTF-8, calls the A
 * form, and converts what comes back. Sizes in characters count UTF-16
 * units; buffers of structures hold their UTF-16 strings after them. */
#include <stdlib.h>
#include <string.h>

#include "pdh_internal.h"
#include "win32/pdh.h"

/* A W argument as UTF-8 (NULL stays NULL). 0 when it is not valid UTF-16
 * (*st: PDH_INVALID_ARGUMENT) or memory ran out. */
static int n8(LPCWSTR w, char **out, PDH_STATUS *st)
{
    *out = NULL;
    if (!w) return 1;
    size_t n = 0;
    while (w[n]) n++;
    int rc = pl__utf16_to_utf8_dup(w, n, out, 0);
    if (rc != PL_OK) {
        free(*out);
        *out = NULL;
        *st = rc == PL_E_NOMEM ? PDH_MEMORY_ALLOCATION_FAILURE : PDH_INVALID_ARGUMENT;
        return 0;
    }
    return 1;
}

/* UTF-16 units of a UTF-8 string with its NUL (0 for NULL). */
static size_t wunits(const char *s)
{
    if (!s) return 0;
    size_t u = 0;
    if (pl__utf8_to_utf16(s, strlen(s), NULL, 0, &u) == PL_E_ENCODING) u = strlen(s); /* not reached: ours */
    return u + 1;
}

/* Write s as UTF-16 at *w (room known to be enough), advance, return it. */
static LPWSTR put_w(WCHAR **w, const char *s)
{
    if (!s) return NULL;
    size_t u = wunits(s);
    LPWSTR r = *w;
    size_t got = 0;
    (void)pl__utf8_to_utf16(s, strlen(s), (uint16_t *)r, u - 1, &got);
    r[u - 1] = 0;
    *w += u;
    return r;
}

/* -------------------------------------------------------------- queries */

PL_EXTERN PDH_STATUS WINAPI PdhOpenQueryW(LPCWSTR szDataSource, DWORD_PTR dwUserData, PDH_HQUERY *phQuery)
{
    if (!phQuery) return PDH_INVALID_ARGUMENT;
    PDH_STATUS st = PDH_CSTATUS_VALID_DATA;
    char *src;
    if (!n8(szDataSource, &src, &st)) return st;
    st = PdhOpenQueryA(src, dwUserData, phQuery);
    free(src);
    return st;
}

PL_EXTERN PDH_STATUS WINAPI PdhBindInputDataSourceW(PDH_HLOG *phDataSource, LPCWSTR LogFileNameList)
{
    if (!phDataSource) return PDH_INVALID_ARGUMENT;
    PDH_STATUS st = PDH_CSTATUS_VALID_DATA;
    char *name;
    if (!n8(LogFileNameList, &name, &st)) return st;
    st = PdhBindInputDataSourceA(phDataSource, name);
    free(name);
    return st;
}

PL_EXTERN PDH_STATUS WINAPI PdhGetDataSourceTimeRangeW(LPCWSTR szDataSource, LPDWORD pdwNumEntries,
                                                       PPDH_TIME_INFO pInfo, LPDWORD pdwBufferSize)
{
    PDH_STATUS st = PDH_CSTATUS_VALID_DATA;
    char *name;
    if (!n8(szDataSource, &name, &st)) return st;
    st = PdhGetDataSourceTimeRangeA(name, pdwNumEntries, pInfo, pdwBufferSize);
    free(name);
    return st;
}

static PDH_STATUS add_w(int english, PDH_HQUERY hQuery, LPCWSTR path, DWORD_PTR user, PDH_HCOUNTER *ph)
{
    if (!path || !ph) return PDH_INVALID_ARGUMENT;
    PDH_STATUS st = PDH_CSTATUS_VALID_DATA;
    char *p;
    if (!n8(path, &p, &st)) {
        *ph = NULL;
        return st;
    }
    st = english ? PdhAddEnglishCounterA(hQuery, p, user, ph) : PdhAddCounterA(hQuery, p, user, ph);
    free(p);
    return st;
}

PL_EXTERN PDH_STATUS WINAPI PdhAddCounterW(PDH_HQUERY hQuery, LPCWSTR szFullCounterPath, DWORD_PTR dwUserData,
                                           PDH_HCOUNTER *phCounter)
{
    return add_w(0, hQuery, szFullCounterPath, dwUserData, phCounter);
}

PL_EXTERN PDH_STATUS WINAPI PdhAddEnglishCounterW(PDH_HQUERY hQuery, LPCWSTR szFullCounterPath, DWORD_PTR dwUserData,
                                                  PDH_HCOUNTER *phCounter)
{
    return add_w(1, hQuery, szFullCounterPath, dwUserData, phCounter);
}

PL_EXTERN PDH_STATUS WINAPI PdhGetFormattedCounterArrayW(PDH_HCOUNTER hCounter, DWORD dwFormat,
                                                         LPDWORD lpdwBufferSize, LPDWORD lpdwItemCount,
                                                         PPDH_FMT_COUNTERVALUE_ITEM_W ItemBuffer)
{
    if (!lpdwBufferSize || !lpdwItemCount) return PDH_INVALID_ARGUMENT;
    DWORD size = 0, count = 0;
    PDH_STATUS st = PdhGetFormattedCounterArrayA(hCounter, dwFormat, &size, &count, NULL);
    if (st != PDH_MORE_DATA) return st;
    PPDH_FMT_COUNTERVALUE_ITEM_A a = malloc(size ? size : 1);
    if (!a) return PDH_MEMORY_ALLOCATION_FAILURE;
    st = PdhGetFormattedCounterArrayA(hCounter, dwFormat, &size, &count, a);
    if (st != PDH_CSTATUS_VALID_DATA) {
        free(a);
        return st;
    }
    size_t need = (size_t)count * sizeof *ItemBuffer;
    for (DWORD i = 0; i < count; i++) need += wunits(a[i].szName) * sizeof(WCHAR);
    if (need > 0xFFFFFFFFu) {
        free(a);
        return PDH_INSUFFICIENT_BUFFER;
    }
    *lpdwItemCount = count;
    if (!ItemBuffer || *lpdwBufferSize < need) {
        *lpdwBufferSize = (DWORD)need;
        free(a);
        return PDH_MORE_DATA;
    }
    WCHAR *w = (WCHAR *)(ItemBuffer + count);
    for (DWORD i = 0; i < count; i++) {
        ItemBuffer[i].FmtValue = a[i].FmtValue;
        ItemBuffer[i].szName = put_w(&w, a[i].szName);
    }
    *lpdwBufferSize = (DWORD)need;
    free(a);
    return PDH_CSTATUS_VALID_DATA;
}

PL_EXTERN PDH_STATUS WINAPI PdhGetCounterInfoW(PDH_HCOUNTER hCounter, BOOLEAN bRetrieveExplainText,
                                               LPDWORD pdwBufferSize, PPDH_COUNTER_INFO_W lpBuffer)
{
    DWORD size = 0;
    PDH_STATUS st = PdhGetCounterInfoA(hCounter, bRetrieveExplainText, pdwBufferSize ? &size : NULL, NULL);
    if (st != PDH_MORE_DATA) return st; /* a bad handle or argument, in the A form's order */
    PPDH_COUNTER_INFO_A a = malloc(size);
    if (!a) return PDH_MEMORY_ALLOCATION_FAILURE;
    st = PdhGetCounterInfoA(hCounter, bRetrieveExplainText, &size, a);
    if (st != PDH_CSTATUS_VALID_DATA) {
        free(a);
        return st;
    }
    size_t strs = wunits(a->szFullPath) + wunits(a->szMachineName) + wunits(a->szObjectName) +
                  wunits(a->szInstanceName) + wunits(a->szParentInstance) + wunits(a->szCounterName) +
                  wunits(a->szExplainText);
    size_t need = offsetof(PDH_COUNTER_INFO_W, DataBuffer) + strs * sizeof(WCHAR);
    if (need < sizeof(PDH_COUNTER_INFO_W)) need = sizeof(PDH_COUNTER_INFO_W);
    if (need > 0xFFFFFFFFu) {
        free(a);
        return PDH_INSUFFICIENT_BUFFER;
    }
    if (!lpBuffer || *pdwBufferSize < sizeof(PDH_COUNTER_INFO_W)) {
        *pdwBufferSize = (DWORD)need;
        free(a);
        return PDH_MORE_DATA;
    }
    int strings = *pdwBufferSize >= need; /* else the structure alone, as the A form */
    if (!strings) need = sizeof(PDH_COUNTER_INFO_W);
    PPDH_COUNTER_INFO_W o = lpBuffer;
    memset(o, 0, sizeof *o);
    o->dwLength = (DWORD)need;
    o->dwType = a->dwType;
    o->CVersion = a->CVersion;
    o->CStatus = a->CStatus;
    o->lScale = a->lScale;
    o->lDefaultScale = a->lDefaultScale;
    o->dwUserData = a->dwUserData;
    o->dwQueryUserData = a->dwQueryUserData;
    o->dwInstanceIndex = a->dwInstanceIndex;
    if (strings) {
        WCHAR *w = (WCHAR *)o->DataBuffer;
        o->szFullPath = put_w(&w, a->szFullPath);
        o->szMachineName = put_w(&w, a->szMachineName);
        o->szObjectName = put_w(&w, a->szObjectName);
        o->szInstanceName = put_w(&w, a->szInstanceName);
        o->szParentInstance = put_w(&w, a->szParentInstance);
        o->szCounterName = put_w(&w, a->szCounterName);
        o->szExplainText = put_w(&w, a->szExplainText);
    }
    *pdwBufferSize = (DWORD)need;
    free(a);
    return PDH_CSTATUS_VALID_DATA;
}

/* ---------------------------------------------------------------- paths */

PL_EXTERN PDH_STATUS WINAPI PdhParseCounterPathW(LPCWSTR szFullPathBuffer,
                                                 PPDH_COUNTER_PATH_ELEMENTS_W pCounterPathElements,
                                                 LPDWORD pdwBufferSize, DWORD dwFlags)
{
    if (!szFullPathBuffer || !pdwBufferSize || dwFlags != 0) return PDH_INVALID_ARGUMENT;
    PDH_STATUS st = PDH_CSTATUS_VALID_DATA;
    char *path;
    if (!n8(szFullPathBuffer, &path, &st)) return st;
    DWORD size = 0;
    st = PdhParseCounterPathA(path, NULL, &size, 0);
    PPDH_COUNTER_PATH_ELEMENTS_A a = NULL;
    if (st == PDH_MORE_DATA) {
        a = malloc(size);
        st = a ? PdhParseCounterPathA(path, a, &size, 0) : PDH_MEMORY_ALLOCATION_FAILURE;
    }
    free(path);
    if (st != PDH_CSTATUS_VALID_DATA) {
        free(a);
        return st;
    }
    size_t need = sizeof *pCounterPathElements +
                  (wunits(a->szMachineName) + wunits(a->szObjectName) + wunits(a->szInstanceName) +
                   wunits(a->szParentInstance) + wunits(a->szCounterName)) *
                      sizeof(WCHAR);
    if (!pCounterPathElements || *pdwBufferSize < need) {
        *pdwBufferSize = (DWORD)need;
        free(a);
        return PDH_MORE_DATA;
    }
    PDH_COUNTER_PATH_ELEMENTS_W t;
    WCHAR *w = (WCHAR *)(pCounterPathElements + 1);
    t.szMachineName = put_w(&w, a->szMachineName);
    t.szObjectName = put_w(&w, a->szObjectName);
    t.szInstanceName = put_w(&w, a->szInstanceName);
    t.szParentInstance = put_w(&w, a->szParentInstance);
    t.dwInstanceIndex = a->dwInstanceIndex;
    t.szCounterName = put_w(&w, a->szCounterName);
    *pCounterPathElements = t;
    *pdwBufferSize = (DWORD)need;
    free(a);
    return PDH_CSTATUS_VALID_DATA;
}

/* A UTF-8 string (with its NUL) as UTF-16 into buf of *pcch characters:
 * PDH_MORE_DATA with the size when buf is NULL or too small. */
static PDH_STATUS put_string(const char *s, LPWSTR buf, LPDWORD pcch)
{
    size_t need = wunits(s);
    if (need > 0xFFFFFFFFu) return PDH_INSUFFICIENT_BUFFER;
    if (!buf || *pcch < need) {
        *pcch = (DWORD)need;
        return PDH_MORE_DATA;
    }
    WCHAR *w = buf;
    (void)put_w(&w, s);
    *pcch = (DWORD)need;
    return PDH_CSTATUS_VALID_DATA;
}

PL_EXTERN PDH_STATUS WINAPI PdhMakeCounterPathW(PPDH_COUNTER_PATH_ELEMENTS_W pCounterPathElements,
                                                LPWSTR szFullPathBuffer, LPDWORD pcchBufferSize, DWORD dwFlags)
{
    if (!pCounterPathElements || !pcchBufferSize) return PDH_INVALID_ARGUMENT;
    const PDH_COUNTER_PATH_ELEMENTS_W *e = pCounterPathElements;
    PDH_STATUS st = PDH_CSTATUS_VALID_DATA;
    char *m = NULL, *o = NULL, *i = NULL, *p = NULL, *c = NULL;
    if (n8(e->szMachineName, &m, &st) && n8(e->szObjectName, &o, &st) && n8(e->szInstanceName, &i, &st) &&
        n8(e->szParentInstance, &p, &st) && n8(e->szCounterName, &c, &st)) {
        PDH_COUNTER_PATH_ELEMENTS_A a = {m, o, i, p, e->dwInstanceIndex, c};
        DWORD cch = 0;
        st = PdhMakeCounterPathA(&a, NULL, &cch, dwFlags);
        if (st == PDH_MORE_DATA) {
            char *path = malloc(cch ? cch : 1);
            st = path ? PdhMakeCounterPathA(&a, path, &cch, dwFlags) : PDH_MEMORY_ALLOCATION_FAILURE;
            if (st == PDH_CSTATUS_VALID_DATA) st = put_string(path, szFullPathBuffer, pcchBufferSize);
            free(path);
        }
    }
    free(m);
    free(o);
    free(i);
    free(p);
    free(c);
    return st;
}

PL_EXTERN PDH_STATUS WINAPI PdhExpandWildCardPathW(LPCWSTR szDataSource, LPCWSTR szWildCardPath,
                                                   PZZWSTR mszExpandedPathList, LPDWORD pcchPathListLength,
                                                   DWORD dwFlags)
{
    if (!szWildCardPath || !pcchPathListLength) return PDH_INVALID_ARGUMENT;
    PDH_STATUS st = PDH_CSTATUS_VALID_DATA;
    char *src = NULL, *path = NULL;
    if (!n8(szDataSource, &src, &st) || !n8(szWildCardPath, &path, &st)) {
        free(src);
        return st;
    }
    DWORD cch = 0;
    char *list = NULL;
    st = PdhExpandWildCardPathA(src, path, NULL, &cch, dwFlags);
    if (st == PDH_MORE_DATA) {
        list = malloc(cch ? cch : 1);
        st = list ? PdhExpandWildCardPathA(src, path, list, &cch, dwFlags) : PDH_MEMORY_ALLOCATION_FAILURE;
    }
    free(src);
    free(path);
    if (st == PDH_CSTATUS_VALID_DATA) {
        size_t need = 1;
        for (const char *q = list; *q; q += strlen(q) + 1) need += wunits(q);
        if (need > 0xFFFFFFFFu) {
            st = PDH_INSUFFICIENT_BUFFER;
        } else if (!mszExpandedPathList || *pcchPathListLength < need) {
            *pcchPathListLength = (DWORD)need;
            st = PDH_MORE_DATA;
        } else {
            WCHAR *w = mszExpandedPathList;
            for (const char *q = list; *q; q += strlen(q) + 1) (void)put_w(&w, q);
            *w = 0;
            *pcchPathListLength = (DWORD)need;
        }
    }
    free(list);
    return st;
}

PL_EXTERN PDH_STATUS WINAPI PdhValidatePathW(LPCWSTR szFullPathBuffer)
{
    if (!szFullPathBuffer || !*szFullPathBuffer) return PDH_INVALID_ARGUMENT;
    PDH_STATUS st = PDH_CSTATUS_VALID_DATA;
    char *p;
    if (!n8(szFullPathBuffer, &p, &st)) return st;
    st = PdhValidatePathA(p);
    free(p);
    return st;
}

PL_EXTERN PDH_STATUS WINAPI PdhValidatePathExW(PDH_HLOG hDataSource, LPCWSTR szFullPathBuffer)
{
    if (hDataSource) return PDH_INVALID_HANDLE;
    return PdhValidatePathW(szFullPathBuffer);
}

/* ---------------------------------------------------------------- names */

PL_EXTERN PDH_STATUS WINAPI PdhLookupPerfIndexByNameW(LPCWSTR szMachineName, LPCWSTR szNameBuffer,
                                                      LPDWORD pdwIndex)
{
    if (!szNameBuffer || !pdwIndex) return PDH_INVALID_ARGUMENT;
    PDH_STATUS st = PDH_CSTATUS_VALID_DATA;
    char *m = NULL, *n = NULL;
    if (n8(szMachineName, &m, &st) && n8(szNameBuffer, &n, &st)) st = PdhLookupPerfIndexByNameA(m, n, pdwIndex);
    free(m);
    free(n);
    return st;
}

PL_EXTERN PDH_STATUS WINAPI PdhLookupPerfNameByIndexW(LPCWSTR szMachineName, DWORD dwNameIndex,
                                                      LPWSTR szNameBuffer, LPDWORD pcchNameBufferSize)
{
    if (!pcchNameBufferSize) return PDH_INVALID_ARGUMENT;
    if (dwNameIndex == 0) return PDH_CSTATUS_VALID_DATA;
    PDH_STATUS st = PDH_CSTATUS_VALID_DATA;
    char *m = NULL;
    if (!n8(szMachineName, &m, &st)) return st;
    DWORD cch = 0;
    st = PdhLookupPerfNameByIndexA(m, dwNameIndex, NULL, &cch);
    if (st == PDH_MORE_DATA || (st == PDH_CSTATUS_VALID_DATA && cch)) {
        char *name = malloc(cch ? cch : 1);
        st = name ? PdhLookupPerfNameByIndexA(m, dwNameIndex, name, &cch) : PDH_MEMORY_ALLOCATION_FAILURE;
        if (st == PDH_CSTATUS_VALID_DATA) st = put_string(name, szNameBuffer, pcchNameBufferSize);
        free(name);
    }
    free(m);
    return st;
}

/* ---------------------------------------------------------- enumeration */

/* A UTF-8 MULTI_SZ as UTF-16 into out of *pcch characters. */
static PDH_STATUS put_multisz_w(const char *list, PZZWSTR out, LPDWORD pcch)
{
    size_t need = 1;
    for (const char *q = list; *q; q += strlen(q) + 1) need += wunits(q);
    if (need > 0xFFFFFFFFu) return PDH_INSUFFICIENT_BUFFER;
    if (!out || *pcch < need) {
        *pcch = (DWORD)need;
        return PDH_MORE_DATA;
    }
    WCHAR *w = out;
    for (const char *q = list; *q; q += strlen(q) + 1) (void)put_w(&w, q);
    *w = 0;
    *pcch = (DWORD)need;
    return PDH_CSTATUS_VALID_DATA;
}

PL_EXTERN PDH_STATUS WINAPI PdhEnumObjectsW(LPCWSTR szDataSource, LPCWSTR szMachineName, PZZWSTR mszObjectList,
                                            LPDWORD pcchBufferSize, DWORD dwDetailLevel, BOOL bRefresh)
{
    if (!pcchBufferSize) return PDH_INVALID_ARGUMENT;
    PDH_STATUS st = PDH_CSTATUS_VALID_DATA;
    char *src = NULL, *m = NULL, *list = NULL;
    if (n8(szDataSource, &src, &st) && n8(szMachineName, &m, &st)) {
        DWORD cch = 0;
        st = PdhEnumObjectsA(src, m, NULL, &cch, dwDetailLevel, bRefresh);
        if (st == PDH_MORE_DATA) {
            list = malloc(cch ? cch : 1);
            st = list ? PdhEnumObjectsA(src, m, list, &cch, dwDetailLevel, bRefresh) : PDH_MEMORY_ALLOCATION_FAILURE;
        }
        if (st == PDH_CSTATUS_VALID_DATA) st = put_multisz_w(list, mszObjectList, pcchBufferSize);
    }
    free(src);
    free(m);
    free(list);
    return st;
}

PL_EXTERN PDH_STATUS WINAPI PdhEnumObjectItemsW(LPCWSTR szDataSource, LPCWSTR szMachineName, LPCWSTR szObjectName,
                                                PZZWSTR mszCounterList, LPDWORD pcchCounterListLength,
                                                PZZWSTR mszInstanceList, LPDWORD pcchInstanceListLength,
                                                DWORD dwDetailLevel, DWORD dwFlags)
{
    if (!szObjectName || !pcchCounterListLength || !pcchInstanceListLength || dwFlags != 0)
        return PDH_INVALID_ARGUMENT;
    PDH_STATUS st = PDH_CSTATUS_VALID_DATA;
    char *src = NULL, *m = NULL, *obj = NULL, *cl = NULL, *il = NULL;
    if (n8(szDataSource, &src, &st) && n8(szMachineName, &m, &st) && n8(szObjectName, &obj, &st)) {
        DWORD cc = 0, ic = 0;
        st = PdhEnumObjectItemsA(src, m, obj, NULL, &cc, NULL, &ic, dwDetailLevel, 0);
        if (st == PDH_MORE_DATA) {
            cl = malloc(cc ? cc : 1);
            il = malloc(ic ? ic : 1);
            st = cl && il ? PdhEnumObjectItemsA(src, m, obj, cl, &cc, ic ? il : NULL, &ic, dwDetailLevel, 0)
                          : PDH_MEMORY_ALLOCATION_FAILURE;
        }
        if (st == PDH_CSTATUS_VALID_DATA) {
            DWORD cneed = 0, ineed = 0;
            (void)put_multisz_w(cl, NULL, &cneed);
            if (ic) (void)put_multisz_w(il, NULL, &ineed);
            int fits = mszCounterList && *pcchCounterListLength >= cneed &&
                       (!ic || (mszInstanceList && *pcchInstanceListLength >= ineed));
            if (fits) {
                (void)put_multisz_w(cl, mszCounterList, pcchCounterListLength);
                if (ic) (void)put_multisz_w(il, mszInstanceList, pcchInstanceListLength);
                else *pcchInstanceListLength = 0;
            } else {
                *pcchCounterListLength = cneed;
                *pcchInstanceListLength = ineed;
                st = PDH_MORE_DATA;
            }
        }
    }
    free(src);
    free(m);
    free(obj);
    free(cl);
    free(il);
    return st;
}
