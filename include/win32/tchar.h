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
#include <errno.h>

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
static inline char *perflib__tcstok_s(char *s, const char *delim, char **save)
{
    if (!s) s = *save;
    if (!s) return NULL;
    s += strspn(s, delim);
    if (!*s) {
        *save = NULL;
        return NULL;
    }
    char *end = s + strcspn(s, delim);
    if (*end) {
        *end = '\0';
        *save = end + 1;
    } else {
        *save = NULL;
    }
    return s;
}
static inline char *perflib__tcstok(char *s, const char *delim)
{
    static __thread char *save;
    return perflib__tcstok_s(s, delim, &save);
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

/* What the secure (_s) forms below need, on char. Their format strings are
 * printf's (checked as such); in the _UNICODE build they are WCHAR. */
#define PERFLIB__TFMT(f, a) __attribute__((format(printf, f, a)))
typedef char perflib__tch;
static inline size_t perflib__tlen(const char *s) { return strlen(s); }
static inline size_t perflib__tnlen(const char *s, size_t max) { return perflib__strnlen(s, max); }
static inline char *perflib__ttok_s(char *s, const char *delim, char **ctx) { return perflib__tcstok_s(s, delim, ctx); }
PERFLIB__TFMT(2, 0) static inline int perflib__tvfprintf(FILE *fp, const char *fmt, va_list ap)
{
    return vfprintf(fp, fmt, ap);
}
/* The output in buf (cap > 0 characters, NUL included): its length, or -1
 * when it was cut (buf holds the cut, terminated output) or failed. */
PERFLIB__TFMT(3, 0) static inline int perflib__tvfmt(char *buf, size_t cap, const char *fmt, va_list ap)
{
    int n = vsnprintf(buf, cap, fmt, ap);
    if (n < 0) {
        buf[0] = '\0';
        return -1;
    }
    return (size_t)n < cap ? n : -1;
}
static inline FILE *perflib__tfopen(const char *name, const char *mode) { return fopen(name, mode); }

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
static inline WCHAR *perflib__wcstok_s(WCHAR *s, const WCHAR *delim, WCHAR **save)
{
    if (!s) s = *save;
    if (!s) return NULL;
    while (*s && perflib__wcschr(delim, *s)) s++;
    if (!*s) {
        *save = NULL;
        return NULL;
    }
    WCHAR *tok = s;
    while (*s && !perflib__wcschr(delim, *s)) s++;
    if (*s) {
        *s = 0;
        *save = s + 1;
    } else {
        *save = NULL;
    }
    return tok;
}
static inline WCHAR *perflib__wcstok(WCHAR *s, const WCHAR *delim)
{
    static __thread WCHAR *save;
    return perflib__wcstok_s(s, delim, &save);
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

/* A UTF-16 string as a new UTF-8 string (free()); lone surrogates become
 * U+FFFD. NULL when out of memory. */
static inline char *perflib__wtou8(const WCHAR *w)
{
    size_t n = perflib__wcslen(w);
    char *f = (char *)malloc(n * 3 + 1);
    if (!f) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = w[i];
        if (c >= 0xD800 && c <= 0xDBFF && i + 1 < n && w[i + 1] >= 0xDC00 && w[i + 1] <= 0xDFFF) {
            unsigned cp = 0x10000 + ((c - 0xD800) << 10) + (w[++i] - 0xDC00u); /* 4 bytes for 2 units */
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
    return f;
}

/* The _tprintf family: Windows' format rules, UTF-8 out. */
static inline char *perflib__wformat(const WCHAR *fmt, va_list ap)
{
    char *f = perflib__wtou8(fmt);
    char *out = NULL;
    if (!f) return NULL;
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
#define _tfopen perflib__tfopen

/* What the secure (_s) forms below need, on WCHAR. */
#define PERFLIB__TFMT(f, a)
typedef WCHAR perflib__tch;
static inline size_t perflib__tlen(const WCHAR *s) { return perflib__wcslen(s); }
static inline size_t perflib__tnlen(const WCHAR *s, size_t max) { return perflib__wcsnlen(s, max); }
static inline WCHAR *perflib__ttok_s(WCHAR *s, const WCHAR *delim, WCHAR **ctx)
{
    return perflib__wcstok_s(s, delim, ctx);
}
static inline int perflib__tvfprintf(FILE *fp, const WCHAR *fmt, va_list ap) { return perflib__vftprintf(fp, fmt, ap); }
static inline int perflib__tvfmt(WCHAR *buf, size_t cap, const WCHAR *fmt, va_list ap)
{
    buf[0] = 0; /* stays when the format fails */
    int n = perflib__vsntprintf(buf, cap - 1, fmt, ap);
    buf[n < 0 ? cap - 1 : (size_t)n] = 0; /* cut: the units that fit, then the NUL */
    return n;
}
/* _tfopen: the name and mode as UTF-8, the file system's encoding here. */
static inline FILE *perflib__tfopen(const WCHAR *name, const WCHAR *mode)
{
    char *n = perflib__wtou8(name), *m = perflib__wtou8(mode);
    FILE *fp = n && m ? fopen(n, m) : NULL;
    free(n);
    free(m);
    return fp;
}
#endif

/* ------------------------------------------------------------ secure forms */
/* The _s forms of tchar.h, on _TCHAR of either build, as the Microsoft C
 * runtime behaves when its invalid-parameter handler returns (here they
 * never end the program): a NULL pointer, a zero size or an unterminated
 * destination is EINVAL, output that does not fit is ERANGE, and either
 * empties the destination (when there is one) and sets errno; the
 * formatting forms return -1 for those. _TRUNCATE as the count cuts instead
 * (STRUNCATE, or -1 from the formatting forms). Sizes are in _TCHARs. */
#ifndef _ERRNO_T_DEFINED
#define _ERRNO_T_DEFINED
typedef int errno_t;
#endif
#ifndef _TRUNCATE
#define _TRUNCATE ((size_t)-1)
#endif
#ifndef STRUNCATE
#define STRUNCATE 80
#endif

static inline errno_t perflib__s_fail(perflib__tch *d, size_t size, errno_t e)
{
    if (d && size) d[0] = 0;
    errno = e;
    return e;
}

/* _tcsncpy_s / _tcscpy_s (count _TRUNCATE: as much as fits). */
static inline errno_t perflib__tcsncpy_s(perflib__tch *d, size_t size, const perflib__tch *s, size_t count)
{
    if (!d || !size) return perflib__s_fail(NULL, 0, EINVAL);
    if (!s) {
        if (count == 0) {
            d[0] = 0;
            return 0;
        }
        return perflib__s_fail(d, size, EINVAL);
    }
    size_t n = perflib__tnlen(s, count);
    errno_t ret = 0;
    if (n >= size) {
        if (count != _TRUNCATE) return perflib__s_fail(d, size, ERANGE);
        n = size - 1;
        ret = STRUNCATE;
    }
    memmove(d, s, n * sizeof *d);
    d[n] = 0;
    return ret;
}
static inline errno_t perflib__tcscpy_s(perflib__tch *d, size_t size, const perflib__tch *s)
{
    if (!d || !size) return perflib__s_fail(NULL, 0, EINVAL);
    if (!s) return perflib__s_fail(d, size, EINVAL);
    size_t n = perflib__tlen(s);
    if (n >= size) return perflib__s_fail(d, size, ERANGE);
    memmove(d, s, (n + 1) * sizeof *d);
    return 0;
}
/* _tcsncat_s / _tcscat_s. */
static inline errno_t perflib__tcsncat_s(perflib__tch *d, size_t size, const perflib__tch *s, size_t count)
{
    if (!d || !size) return perflib__s_fail(NULL, 0, EINVAL);
    size_t used = perflib__tnlen(d, size);
    if (used == size) return perflib__s_fail(d, size, EINVAL); /* not terminated */
    if (!s) {
        if (count == 0) return 0;
        return perflib__s_fail(d, size, EINVAL);
    }
    size_t n = perflib__tnlen(s, count);
    errno_t ret = 0;
    if (used + n >= size) {
        if (count != _TRUNCATE) return perflib__s_fail(d, size, ERANGE);
        n = size - 1 - used;
        ret = STRUNCATE;
    }
    memmove(d + used, s, n * sizeof *d);
    d[used + n] = 0;
    return ret;
}
static inline errno_t perflib__tcscat_s(perflib__tch *d, size_t size, const perflib__tch *s)
{
    return perflib__tcsncat_s(d, size, s, s ? perflib__tlen(s) : 1);
}

/* _vstprintf_s / _stprintf_s: the characters written, or -1. */
PERFLIB__TFMT(3, 0) static inline int perflib__vstprintf_s(perflib__tch *buf, size_t size, const perflib__tch *fmt, va_list ap)
{
    if (!buf || !size || !fmt) {
        (void)perflib__s_fail(buf, size, EINVAL);
        return -1;
    }
    int n = perflib__tvfmt(buf, size, fmt, ap);
    if (n < 0) (void)perflib__s_fail(buf, size, ERANGE);
    return n;
}
PERFLIB__TFMT(3, 4) static inline int perflib__stprintf_s(perflib__tch *buf, size_t size, const perflib__tch *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = perflib__vstprintf_s(buf, size, fmt, ap);
    va_end(ap);
    return n;
}
/* _vsntprintf_s / _sntprintf_s: at most count characters (_TRUNCATE: what
 * fits); cut output is kept, terminated, and gives -1 when count is
 * _TRUNCATE or smaller than the buffer; output that count allows but the
 * buffer cannot hold is ERANGE. */
PERFLIB__TFMT(4, 0) static inline int perflib__vsntprintf_s(perflib__tch *buf, size_t size, size_t count, const perflib__tch *fmt,
                                        va_list ap)
{
    if (!buf || !size || !fmt) {
        (void)perflib__s_fail(buf, size, EINVAL);
        return -1;
    }
    if (count != _TRUNCATE && count < size) return perflib__tvfmt(buf, count + 1, fmt, ap);
    int n = perflib__tvfmt(buf, size, fmt, ap);
    if (n < 0 && count != _TRUNCATE) (void)perflib__s_fail(buf, size, ERANGE);
    return n;
}
PERFLIB__TFMT(4, 5) static inline int perflib__sntprintf_s(perflib__tch *buf, size_t size, size_t count, const perflib__tch *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = perflib__vsntprintf_s(buf, size, count, fmt, ap);
    va_end(ap);
    return n;
}
/* _tprintf_s and relatives: _tprintf's output; a NULL format is -1. */
PERFLIB__TFMT(2, 0) static inline int perflib__vftprintf_s(FILE *fp, const perflib__tch *fmt, va_list ap)
{
    if (!fp || !fmt) {
        errno = EINVAL;
        return -1;
    }
    return perflib__tvfprintf(fp, fmt, ap);
}
PERFLIB__TFMT(2, 3) static inline int perflib__ftprintf_s(FILE *fp, const perflib__tch *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = perflib__vftprintf_s(fp, fmt, ap);
    va_end(ap);
    return n;
}
PERFLIB__TFMT(1, 0) static inline int perflib__vtprintf_s(const perflib__tch *fmt, va_list ap)
{
    return perflib__vftprintf_s(stdout, fmt, ap);
}
PERFLIB__TFMT(1, 2) static inline int perflib__tprintf_s(const perflib__tch *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = perflib__vftprintf_s(stdout, fmt, ap);
    va_end(ap);
    return n;
}
/* _tcstok_s: _tcstok with the caller's context. */
static inline perflib__tch *perflib__tcstok_s_ctx(perflib__tch *s, const perflib__tch *delim, perflib__tch **ctx)
{
    if (!delim || !ctx || (!s && !*ctx)) {
        errno = EINVAL;
        return NULL;
    }
    return perflib__ttok_s(s, delim, ctx);
}
/* _tcslwr_s / _tcsupr_s (ASCII letters, as lstrcmpi folds), _tcslwr /
 * _tcsupr. */
static inline errno_t perflib__tcscase_s(perflib__tch *s, size_t size, int upper)
{
    if (!s || !size) return perflib__s_fail(NULL, 0, EINVAL);
    size_t n = perflib__tnlen(s, size);
    if (n == size) return perflib__s_fail(s, size, EINVAL); /* not terminated */
    for (size_t i = 0; i < n; i++) {
        if (upper && s[i] >= 'a' && s[i] <= 'z') s[i] = (perflib__tch)(s[i] - 'a' + 'A');
        if (!upper && s[i] >= 'A' && s[i] <= 'Z') s[i] = (perflib__tch)(s[i] - 'A' + 'a');
    }
    return 0;
}
static inline perflib__tch *perflib__tcscase(perflib__tch *s, int upper)
{
    if (s) (void)perflib__tcscase_s(s, perflib__tlen(s) + 1, upper);
    return s;
}
/* _itot_s, _ltot_s, _ultot_s, _i64tot_s, _ui64tot_s (radix 2..36; a minus
 * sign only in radix 10, other radixes show the two's complement, as the C
 * runtime does) and their forms without a size. */
static inline errno_t perflib__xtot_s(unsigned long long v, int neg, perflib__tch *buf, size_t size, int radix)
{
    if (!buf || !size) return perflib__s_fail(NULL, 0, EINVAL);
    if (radix < 2 || radix > 36) return perflib__s_fail(buf, size, EINVAL);
    char tmp[72];
    size_t k = 0;
    do {
        unsigned d = (unsigned)(v % (unsigned)radix);
        tmp[k++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
        v /= (unsigned)radix;
    } while (v);
    if (neg) tmp[k++] = '-';
    if (k >= size) return perflib__s_fail(buf, size, ERANGE);
    for (size_t i = 0; i < k; i++) buf[i] = (perflib__tch)tmp[k - 1 - i];
    buf[k] = 0;
    return 0;
}
static inline errno_t perflib__i64tot_s(long long v, perflib__tch *buf, size_t size, int radix)
{
    int neg = radix == 10 && v < 0;
    unsigned long long u = neg ? 0ull - (unsigned long long)v : (unsigned long long)v;
    return perflib__xtot_s(u, neg, buf, size, radix);
}
static inline errno_t perflib__itot_s(int v, perflib__tch *buf, size_t size, int radix)
{
    /* radixes other than 10 show the 32-bit pattern, as _itoa_s does */
    if (radix != 10) return perflib__xtot_s((unsigned)v, 0, buf, size, radix);
    return perflib__i64tot_s(v, buf, size, radix);
}
static inline errno_t perflib__ui64tot_s(unsigned long long v, perflib__tch *buf, size_t size, int radix)
{
    return perflib__xtot_s(v, 0, buf, size, radix);
}
static inline perflib__tch *perflib__itot(int v, perflib__tch *buf, int radix)
{
    (void)perflib__itot_s(v, buf, 66, radix);
    return buf;
}
static inline perflib__tch *perflib__i64tot(long long v, perflib__tch *buf, int radix)
{
    (void)perflib__i64tot_s(v, buf, 66, radix);
    return buf;
}
static inline perflib__tch *perflib__ui64tot(unsigned long long v, perflib__tch *buf, int radix)
{
    (void)perflib__ui64tot_s(v, buf, 66, radix);
    return buf;
}
/* _tfopen_s: 0 and the stream, or errno and *pf NULL. */
static inline errno_t perflib__tfopen_s(FILE **pf, const perflib__tch *name, const perflib__tch *mode)
{
    if (!pf) return errno = EINVAL;
    *pf = NULL;
    if (!name || !mode) return errno = EINVAL;
    errno = 0;
    *pf = perflib__tfopen(name, mode);
    if (*pf) return 0;
    return errno ? errno : EINVAL;
}

/* LONG is 32-bit on Windows: _ltot of a LONG is _itot. */
#define _tcscpy_s perflib__tcscpy_s
#define _tcsncpy_s perflib__tcsncpy_s
#define _tcscat_s perflib__tcscat_s
#define _tcsncat_s perflib__tcsncat_s
#define _stprintf_s perflib__stprintf_s
#define _vstprintf_s perflib__vstprintf_s
#define _sntprintf_s perflib__sntprintf_s
#define _vsntprintf_s perflib__vsntprintf_s
#define _tprintf_s perflib__tprintf_s
#define _ftprintf_s perflib__ftprintf_s
#define _vtprintf_s perflib__vtprintf_s
#define _vftprintf_s perflib__vftprintf_s
#define _tcstok_s perflib__tcstok_s_ctx
#define _tcslwr_s(s, n) perflib__tcscase_s((s), (n), 0)
#define _tcsupr_s(s, n) perflib__tcscase_s((s), (n), 1)
#define _tcslwr(s) perflib__tcscase((s), 0)
#define _tcsupr(s) perflib__tcscase((s), 1)
#define _itot_s perflib__itot_s
#define _ltot_s perflib__itot_s
#define _ultot_s(v, b, n, r) perflib__ui64tot_s((unsigned)(v), (b), (n), (r))
#define _i64tot_s perflib__i64tot_s
#define _ui64tot_s perflib__ui64tot_s
#define _itot perflib__itot
#define _ltot perflib__itot
#define _ultot(v, b, r) perflib__ui64tot((unsigned)(v), (b), (r))
#define _i64tot perflib__i64tot
#define _ui64tot perflib__ui64tot
#define _tfopen_s perflib__tfopen_s

#ifdef __cplusplus
}
#endif

#endif
