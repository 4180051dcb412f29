/* perflib: the generic-text macros of Windows' tchar.h that ported
 * performance programs use (docs/win32.md).
 *
 * Without _UNICODE, _TCHAR is char (UTF-8) and the macros are the C
 * library's functions. With _UNICODE, _TCHAR is WCHAR (UTF-16, 16 bits; the
 * C library's wchar_t functions assume 32 bits and are never used): the
 * string functions are implemented here on WCHAR, and the _tprintf family
 * formats with Windows' rules (pl_win32_vformat: %s is a WCHAR string) and
 * writes UTF-8. _tcstok is per thread in both builds, as on Windows. */
#ifndef PERFLIB_WIN32_TCHAR_H
#define PERFLIB_WIN32_TCHAR_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

#include "perflib/win32.h"
#include "windef.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef _UNICODE
/* ------------------------------------------------------------ 8-bit */
#ifndef _T
#define _T(s) s
#endif
#ifndef _TEXT
#define _TEXT(s) s
#endif
typedef char _TCHAR, _TSCHAR;
typedef unsigned char _TUCHAR;

/* Own versions where the C library's need POSIX feature macros (a strict
 * -std=c17 build has no strtok_r, strdup, strnlen or strcasecmp). */
static inline char *perflib__tcstok(char *s, const char *delim)
{
    static __thread char *save;
    if (!s) s = save;
    if (!s) return NULL;
    s += strspn(s, delim);
    if (!*s) {
        save = NULL;
        return NULL;
    }
    char *end = s + strcspn(s, delim);
    if (*end) {
        *end = '\0';
        save = end + 1;
    } else {
        save = NULL;
    }
    return s;
}
static inline char *perflib__strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = (char *)malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}
static inline size_t perflib__strnlen(const char *s, size_t max)
{
    size_t n = 0;
    while (n < max && s[n]) n++;
    return n;
}
static inline int perflib__strnicmp(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int x = (unsigned char)a[i], y = (unsigned char)b[i];
        if (x >= 'A' && x <= 'Z') x += 'a' - 'A';
        if (y >= 'A' && y <= 'Z') y += 'a' - 'A';
        if (x != y || !x) return x - y;
    }
    return 0;
}
static inline int perflib__stricmp(const char *a, const char *b) { return perflib__strnicmp(a, b, (size_t)-1); }

#define _tmain main
#define _tprintf printf
#define _ftprintf fprintf
#define _vtprintf vprintf
#define _stprintf sprintf
#define _sntprintf snprintf
#define _vsntprintf vsnprintf
#define _tcslen strlen
#define _tcsnlen perflib__strnlen
#define _tcscpy strcpy
#define _tcsncpy strncpy
#define _tcscat strcat
#define _tcscmp strcmp
#define _tcsncmp strncmp
#define _tcsicmp perflib__stricmp
#define _tcsnicmp perflib__strnicmp
#define _tcschr strchr
#define _tcsrchr strrchr
#define _tcsstr strstr
#define _tcsdup perflib__strdup
#define _tcstok perflib__tcstok
#define _ttoi atoi
#define _ttol atol
#define _tstoi atoi
#define _tcstol strtol
#define _tcstoul strtoul
#define _totupper toupper
#define _totlower tolower
#define _istdigit isdigit
#define _istspace isspace
#define _tfopen fopen
#define _tgetenv getenv

#else
/* ------------------------------------------------------------ UTF-16 */
#ifndef _T
#define _T(s) PERFLIB__WTEXT(s)
#endif
#ifndef _TEXT
#define _TEXT(s) PERFLIB__WTEXT(s)
#endif
typedef WCHAR _TCHAR, _TSCHAR, _TUCHAR;

static inline size_t perflib__wcslen(const WCHAR *s)
{
    size_t n = 0;
    while (s[n]) n++;
    return n;
}
static inline size_t perflib__wcsnlen(const WCHAR *s, size_t max)
{
    size_t n = 0;
    while (n < max && s[n]) n++;
    return n;
}
static inline WCHAR *perflib__wcscpy(WCHAR *d, const WCHAR *s)
{
    size_t i = 0;
    do d[i] = s[i];
    while (s[i++]);
    return d;
}
static inline WCHAR *perflib__wcsncpy(WCHAR *d, const WCHAR *s, size_t n)
{
    size_t i = 0;
    for (; i < n && s[i]; i++) d[i] = s[i];
    for (; i < n; i++) d[i] = 0;
    return d;
}
static inline WCHAR *perflib__wcscat(WCHAR *d, const WCHAR *s)
{
    perflib__wcscpy(d + perflib__wcslen(d), s);
    return d;
}
static inline int perflib__wfold(int c, int ci) { return ci && c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }
static inline int perflib__wcsncmp_ci(const WCHAR *a, const WCHAR *b, size_t n, int ci)
{
    for (size_t i = 0; i < n; i++) {
        int x = perflib__wfold(a[i], ci), y = perflib__wfold(b[i], ci);
        if (x != y || !x) return x - y;
    }
    return 0;
}
static inline int perflib__wcscmp(const WCHAR *a, const WCHAR *b) { return perflib__wcsncmp_ci(a, b, (size_t)-1, 0); }
static inline int perflib__wcsncmp(const WCHAR *a, const WCHAR *b, size_t n) { return perflib__wcsncmp_ci(a, b, n, 0); }
static inline int perflib__wcsicmp(const WCHAR *a, const WCHAR *b) { return perflib__wcsncmp_ci(a, b, (size_t)-1, 1); }
static inline int perflib__wcsnicmp(const WCHAR *a, const WCHAR *b, size_t n) { return perflib__wcsncmp_ci(a, b, n, 1); }
static inline WCHAR *perflib__wcschr(const WCHAR *s, int c)
{
    for (;; s++) {
        if (*s == (WCHAR)c) return (WCHAR *)s;
        if (!*s) return NULL;
    }
}
static inline WCHAR *perflib__wcsrchr(const WCHAR *s, int c)
{
    const WCHAR *last = NULL;
    for (;; s++) {
        if (*s == (WCHAR)c) last = s;
        if (!*s) return (WCHAR *)last;
    }
}
static inline WCHAR *perflib__wcsstr(const WCHAR *h, const WCHAR *n)
{
    size_t nl = perflib__wcslen(n);
    for (; *h; h++)
        if (perflib__wcsncmp(h, n, nl) == 0) return (WCHAR *)h;
    return nl ? NULL : (WCHAR *)h;
}
static inline WCHAR *perflib__wcsdup(const WCHAR *s)
{
    size_t n = perflib__wcslen(s) + 1;
    WCHAR *d = (WCHAR *)malloc(n * sizeof(WCHAR));
    if (d) memcpy(d, s, n * sizeof(WCHAR));
    return d;
}
static inline WCHAR *perflib__wcstok(WCHAR *s, const WCHAR *delim)
{
    static __thread WCHAR *save;
    if (!s) s = save;
    if (!s) return NULL;
    while (*s && perflib__wcschr(delim, *s)) s++;
    if (!*s) {
        save = NULL;
        return NULL;
    }
    WCHAR *tok = s;
    while (*s && !perflib__wcschr(delim, *s)) s++;
    if (*s) {
        *s = 0;
        save = s + 1;
    } else {
        save = NULL;
    }
    return tok;
}
static inline unsigned long perflib__wcstoul(const WCHAR *s, WCHAR **end, int base)
{
    char buf[72];
    size_t i = 0;
    while (s[i] && s[i] < 0x80 && i + 1 < sizeof buf) {
        buf[i] = (char)s[i];
        i++;
    }
    buf[i] = '\0';
    char *e = NULL;
    unsigned long v = strtoul(buf, &e, base);
    if (end) *end = (WCHAR *)s + (e - buf);
    return v;
}
static inline long perflib__wcstol(const WCHAR *s, WCHAR **end, int base)
{
    char buf[72];
    size_t i = 0;
    while (s[i] && s[i] < 0x80 && i + 1 < sizeof buf) {
        buf[i] = (char)s[i];
        i++;
    }
    buf[i] = '\0';
    char *e = NULL;
    long v = strtol(buf, &e, base);
    if (end) *end = (WCHAR *)s + (e - buf);
    return v;
}
static inline int perflib__wtoi(const WCHAR *s) { return (int)perflib__wcstol(s, NULL, 10); }
static inline long perflib__wtol(const WCHAR *s) { return perflib__wcstol(s, NULL, 10); }

/* The _tprintf family: Windows' format rules, UTF-8 out. */
static inline char *perflib__wformat(const WCHAR *fmt, va_list ap)
{
    size_t n = perflib__wcslen(fmt);
    char *f = (char *)malloc(n * 3 + 1);
    char *out = NULL;
    if (!f) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = fmt[i];
        if (c >= 0xD800 && c <= 0xDBFF && i + 1 < n && fmt[i + 1] >= 0xDC00 && fmt[i + 1] <= 0xDFFF) {
            unsigned cp = 0x10000 + ((c - 0xD800) << 10) + (fmt[++i] - 0xDC00u); /* 4 bytes for 2 units */
            f[k++] = (char)(0xF0 | (cp >> 18));
            f[k++] = (char)(0x80 | ((cp >> 12) & 0x3F));
            f[k++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            f[k++] = (char)(0x80 | (cp & 0x3F));
        } else if (c < 0x80) {
            f[k++] = (char)c;
        } else if (c < 0x800) {
            f[k++] = (char)(0xC0 | (c >> 6));
            f[k++] = (char)(0x80 | (c & 0x3F));
        } else {
            if (c >= 0xD800 && c <= 0xDFFF) c = 0xFFFD;
            f[k++] = (char)(0xE0 | (c >> 12));
            f[k++] = (char)(0x80 | ((c >> 6) & 0x3F));
            f[k++] = (char)(0x80 | (c & 0x3F));
        }
    }
    f[k] = '\0';
    if (pl_win32_vformat(1, f, ap, &out) != 0) out = NULL;
    free(f);
    return out;
}
static inline int perflib__vftprintf(FILE *fp, const WCHAR *fmt, va_list ap)
{
    char *s = perflib__wformat(fmt, ap);
    if (!s) return -1;
    int n = fputs(s, fp) < 0 ? -1 : (int)strlen(s);
    free(s);
    return n;
}
static inline int perflib__ftprintf(FILE *fp, const WCHAR *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = perflib__vftprintf(fp, fmt, ap);
    va_end(ap);
    return n;
}
static inline int perflib__tprintf(const WCHAR *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = perflib__vftprintf(stdout, fmt, ap);
    va_end(ap);
    return n;
}
static inline int perflib__vtprintf(const WCHAR *fmt, va_list ap) { return perflib__vftprintf(stdout, fmt, ap); }
/* _sntprintf: at most `count` WCHARs, NUL included when it fits; -1 when
 * the output was cut (Microsoft's _snwprintf). */
static inline int perflib__vsntprintf(WCHAR *buf, size_t count, const WCHAR *fmt, va_list ap)
{
    char *s = perflib__wformat(fmt, ap);
    if (!s) return -1;
    size_t k = 0;
    int cut = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        unsigned cp = *p, len = 1;
        if (cp >= 0xF0) cp &= 0x07, len = 4;
        else if (cp >= 0xE0) cp &= 0x0F, len = 3;
        else if (cp >= 0xC0) cp &= 0x1F, len = 2;
        for (unsigned j = 1; j < len && p[j]; j++) cp = (cp << 6) | (p[j] & 0x3Fu);
        for (unsigned j = 0; j < len && *p; j++) p++;
        size_t u = cp >= 0x10000 ? 2 : 1;
        if (k + u > count) {
            cut = 1;
            break;
        }
        if (u == 2) {
            buf[k++] = (WCHAR)(0xD800 + ((cp - 0x10000) >> 10));
            buf[k++] = (WCHAR)(0xDC00 + ((cp - 0x10000) & 0x3FF));
        } else {
            buf[k++] = (WCHAR)cp;
        }
    }
    free(s);
    if (k < count) buf[k] = 0;
    return cut ? -1 : (int)k;
}
static inline int perflib__sntprintf(WCHAR *buf, size_t count, const WCHAR *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = perflib__vsntprintf(buf, count, fmt, ap);
    va_end(ap);
    return n;
}

/* The entry point of a UNICODE program: its main comes from
 * libperflib_wmain.a (link -lperflib_wmain). C linkage, as on Windows. */
int wmain(int argc, WCHAR **argv);
#define _tmain wmain
#define _tprintf perflib__tprintf
#define _ftprintf perflib__ftprintf
#define _vtprintf perflib__vtprintf
#define _sntprintf perflib__sntprintf
#define _vsntprintf perflib__vsntprintf
#define _tcslen perflib__wcslen
#define _tcsnlen perflib__wcsnlen
#define _tcscpy perflib__wcscpy
#define _tcsncpy perflib__wcsncpy
#define _tcscat perflib__wcscat
#define _tcscmp perflib__wcscmp
#define _tcsncmp perflib__wcsncmp
#define _tcsicmp perflib__wcsicmp
#define _tcsnicmp perflib__wcsnicmp
#define _tcschr perflib__wcschr
#define _tcsrchr perflib__wcsrchr
#define _tcsstr perflib__wcsstr
#define _tcsdup perflib__wcsdup
#define _tcstok perflib__wcstok
#define _ttoi perflib__wtoi
#define _ttol perflib__wtol
#define _tstoi perflib__wtoi
#define _tcstol perflib__wcstol
#define _tcstoul perflib__wcstoul
#endif

#ifdef __cplusplus
}
#endif

#endif
