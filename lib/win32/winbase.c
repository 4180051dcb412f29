/* The base Win32 of include/win32/winbase.h that performance code uses:
 * last error, strings, wsprintf, code-page conversions, time, the computer
 * name, module file names and the event log (syslog). Shared memory and
 * events are in winsync.c. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "pl_internal.h"
#include "platform.h"
#include "win32/winbase.h"
#include "win32_internal.h"

/* ------------------------------------------------------------ errors */

static __thread DWORD t_last_error;

PL_EXTERN DWORD WINAPI GetLastError(void) { return t_last_error; }
PL_EXTERN void WINAPI SetLastError(DWORD dwErrCode) { t_last_error = dwErrCode; }

/* ------------------------------------------------------------ strings */

static size_t wlen(const WCHAR *w)
{
    size_t n = 0;
    while (w[n]) n++;
    return n;
}

PL_EXTERN int WINAPI lstrlenA(LPCSTR s)
{
    if (!s) return 0;
    size_t n = strlen(s);
    return n > INT32_MAX ? INT32_MAX : (int)n;
}

PL_EXTERN int WINAPI lstrlenW(LPCWSTR s)
{
    if (!s) return 0;
    size_t n = wlen(s);
    return n > INT32_MAX ? INT32_MAX : (int)n;
}

PL_EXTERN LPSTR WINAPI lstrcpyA(LPSTR d, LPCSTR s)
{
    if (!d || !s) return NULL;
    memmove(d, s, strlen(s) + 1);
    return d;
}

PL_EXTERN LPWSTR WINAPI lstrcpyW(LPWSTR d, LPCWSTR s)
{
    if (!d || !s) return NULL;
    memmove(d, s, (wlen(s) + 1) * sizeof(WCHAR));
    return d;
}

PL_EXTERN LPSTR WINAPI lstrcpynA(LPSTR d, LPCSTR s, int max)
{
    if (!d || !s || max <= 0) return NULL;
    size_t n = strnlen(s, (size_t)max - 1);
    memmove(d, s, n);
    d[n] = '\0';
    return d;
}

PL_EXTERN LPWSTR WINAPI lstrcpynW(LPWSTR d, LPCWSTR s, int max)
{
    if (!d || !s || max <= 0) return NULL;
    size_t n = 0;
    while (n + 1 < (size_t)max && s[n]) n++;
    memmove(d, s, n * sizeof(WCHAR));
    d[n] = 0;
    return d;
}

PL_EXTERN LPSTR WINAPI lstrcatA(LPSTR d, LPCSTR s)
{
    if (!d || !s) return NULL;
    size_t n = strlen(d);
    memmove(d + n, s, strlen(s) + 1);
    return d;
}

PL_EXTERN LPWSTR WINAPI lstrcatW(LPWSTR d, LPCWSTR s)
{
    if (!d || !s) return NULL;
    size_t n = wlen(d);
    memmove(d + n, s, (wlen(s) + 1) * sizeof(WCHAR));
    return d;
}

static int fold(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

/* NULL sorts before any string, as on Windows. */
static int cmp_a(LPCSTR a, LPCSTR b, int ci)
{
    if (!a || !b) return a ? 1 : b ? -1 : 0;
    for (;; a++, b++) {
        int x = (unsigned char)*a, y = (unsigned char)*b;
        if (ci) x = fold(x), y = fold(y);
        if (x != y || !x) return x < y ? -1 : x > y ? 1 : 0;
    }
}

static int cmp_w(LPCWSTR a, LPCWSTR b, int ci)
{
    if (!a || !b) return a ? 1 : b ? -1 : 0;
    for (;; a++, b++) {
        int x = *a, y = *b;
        if (ci) x = fold(x), y = fold(y);
        if (x != y || !x) return x < y ? -1 : x > y ? 1 : 0;
    }
}

PL_EXTERN int WINAPI lstrcmpA(LPCSTR a, LPCSTR b) { return cmp_a(a, b, 0); }
PL_EXTERN int WINAPI lstrcmpW(LPCWSTR a, LPCWSTR b) { return cmp_w(a, b, 0); }
PL_EXTERN int WINAPI lstrcmpiA(LPCSTR a, LPCSTR b) { return cmp_a(a, b, 1); }
PL_EXTERN int WINAPI lstrcmpiW(LPCWSTR a, LPCWSTR b) { return cmp_w(a, b, 1); }

/* ------------------------------------------------------------ wsprintf */

#define WSPRINTF_MAX 1024 /* characters with the NUL, as Windows documents */

PL_EXTERN int WINAPI wvsprintfA(LPSTR out, LPCSTR fmt, va_list ap)
{
    if (!out || !fmt) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return -1;
    }
    char *s = NULL;
    int rc = pl_win32_vformat(0, fmt, ap, &s);
    if (rc != PL_OK) {
        SetLastError(rc == PL_E_NOMEM ? ERROR_NOT_ENOUGH_MEMORY : ERROR_INVALID_PARAMETER);
        out[0] = '\0';
        return -1;
    }
    size_t n = strlen(s);
    if (n > WSPRINTF_MAX - 1) n = WSPRINTF_MAX - 1;
    memcpy(out, s, n);
    out[n] = '\0';
    free(s);
    return (int)n;
}

PL_EXTERN int WINAPI wvsprintfW(LPWSTR out, LPCWSTR fmt, va_list ap)
{
    if (!out || !fmt) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return -1;
    }
    char *f = NULL, *s = NULL;
    int rc = pl__utf16_to_utf8_dup(fmt, wlen(fmt), &f, 1);
    if (rc == PL_OK) rc = pl_win32_vformat(1, f, ap, &s);
    free(f);
    uint16_t *w = NULL;
    size_t units = 0;
    if (rc == PL_OK) rc = pl__utf8_to_utf16_dup(s, &w, &units);
    free(s);
    if (rc != PL_OK) {
        free(w);
        SetLastError(rc == PL_E_NOMEM ? ERROR_NOT_ENOUGH_MEMORY : ERROR_INVALID_PARAMETER);
        out[0] = 0;
        return -1;
    }
    if (units > WSPRINTF_MAX - 1) units = WSPRINTF_MAX - 1;
    memcpy(out, w, units * sizeof(WCHAR));
    out[units] = 0;
    free(w);
    return (int)units;
}

PL_EXTERN int WINAPIV wsprintfA(LPSTR out, LPCSTR fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = wvsprintfA(out, fmt, ap);
    va_end(ap);
    return n;
}

PL_EXTERN int WINAPIV wsprintfW(LPWSTR out, LPCWSTR fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = wvsprintfW(out, fmt, ap);
    va_end(ap);
    return n;
}

/* ---------------------------------------------------- readable memory */

/* Copy up to n bytes of this process's memory at src without faulting:
 * the number copied (short when an unreadable page is reached). */
static size_t safe_read(const void *src, void *dst, size_t n)
{
    struct iovec local = {dst, n}, remote = {(void *)(uintptr_t)src, n};
    ssize_t r = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    return r < 0 ? 0 : (size_t)r;
}

/* Probe whether process_vm_readv works here at all (a seccomp filter may
 * refuse it); when it does not, memory is assumed readable. */
static int probe_works(void)
{
    static int works = -1;
    if (works < 0) {
        char a = 'x', b = 0;
        int w = safe_read(&a, &b, 1) == 1 && b == 'x';
        __atomic_store_n(&works, w, __ATOMIC_RELAXED);
    }
    return __atomic_load_n(&works, __ATOMIC_RELAXED);
}

PL_EXTERN BOOL WINAPI IsBadReadPtr(const void *lp, UINT_PTR ucb)
{
    if (ucb == 0) return FALSE;
    if (!lp) return TRUE;
    if (!probe_works()) return FALSE;
    unsigned char chunk[4096];
    const unsigned char *p = lp;
    while (ucb) {
        size_t n = ucb < sizeof chunk ? ucb : sizeof chunk;
        if (safe_read(p, chunk, n) != n) return TRUE;
        p += n;
        ucb -= n;
    }
    return FALSE;
}

static BOOL bad_string(const void *lp, UINT_PTR max_units, size_t unit)
{
    if (!lp) return TRUE;
    if (max_units == 0) return FALSE;
    if (!probe_works()) return FALSE;
    unsigned char chunk[512];
    const unsigned char *p = lp;
    UINT_PTR left = max_units;
    while (left) {
        size_t units = left < sizeof chunk / unit ? left : sizeof chunk / unit;
        size_t got = safe_read(p, chunk, units * unit);
        for (size_t i = 0; i + unit <= got; i += unit) {
            int zero = unit == 1 ? chunk[i] == 0 : (chunk[i] == 0 && chunk[i + 1] == 0);
            if (zero) return FALSE;
        }
        if (got != units * unit) return TRUE;
        p += units * unit;
        left -= units;
    }
    return FALSE;
}

PL_EXTERN BOOL WINAPI IsBadStringPtrA(LPCSTR lpsz, UINT_PTR ucchMax) { return bad_string(lpsz, ucchMax, 1); }
PL_EXTERN BOOL WINAPI IsBadStringPtrW(LPCWSTR lpsz, UINT_PTR ucchMax) { return bad_string(lpsz, ucchMax, 2); }

/* ------------------------------------------------------------ code pages */

static int utf8_cp(UINT cp) { return cp == CP_ACP || cp == CP_OEMCP || cp == CP_THREAD_ACP || cp == CP_UTF8; }

PL_EXTERN UINT WINAPI GetACP(void) { return CP_UTF8; }
PL_EXTERN UINT WINAPI GetOEMCP(void) { return CP_UTF8; }

/* Decode one UTF-8 sequence at s (n bytes left): the code point, or -1 for
 * an invalid sequence (*len is then 1). */
static long utf8_next(const unsigned char *s, size_t n, size_t *len)
{
    unsigned c = s[0];
    *len = 1;
    if (c < 0x80) return c;
    size_t need;
    unsigned long cp, min;
    if (c >= 0xC2 && c <= 0xDF) need = 1, cp = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF) need = 2, cp = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4) need = 3, cp = c & 0x07, min = 0x10000;
    else return -1;
    if (n < need + 1) return -1;
    for (size_t i = 1; i <= need; i++) {
        if ((s[i] & 0xC0) != 0x80) return -1;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
    *len = need + 1;
    return (long)cp;
}

PL_EXTERN int WINAPI MultiByteToWideChar(UINT CodePage, DWORD dwFlags, LPCSTR mb, int cb, LPWSTR wc, int cch)
{
    if (!utf8_cp(CodePage) || !mb || cb == 0 || cb < -1 || cch < 0 || (cch > 0 && !wc) ||
        (cch > 0 && (const void *)mb == (const void *)wc)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    if (dwFlags & ~(DWORD)(MB_PRECOMPOSED | MB_ERR_INVALID_CHARS)) {
        SetLastError(ERROR_INVALID_FLAGS);
        return 0;
    }
    size_t n = cb == -1 ? strlen(mb) + 1 : (size_t)cb;
    const unsigned char *s = (const unsigned char *)mb;
    size_t units = 0;
    for (size_t i = 0; i < n;) {
        size_t len;
        long cp = utf8_next(s + i, n - i, &len);
        if (cp < 0) {
            if (dwFlags & MB_ERR_INVALID_CHARS) {
                SetLastError(ERROR_NO_UNICODE_TRANSLATION);
                return 0;
            }
            cp = 0xFFFD;
        }
        size_t u = cp >= 0x10000 ? 2 : 1;
        if (cch > 0) {
            if (units + u > (size_t)cch) {
                SetLastError(ERROR_INSUFFICIENT_BUFFER);
                return 0;
            }
            if (u == 2) {
                wc[units] = (WCHAR)(0xD800 + ((cp - 0x10000) >> 10));
                wc[units + 1] = (WCHAR)(0xDC00 + ((cp - 0x10000) & 0x3FF));
            } else {
                wc[units] = (WCHAR)cp;
            }
        }
        units += u;
        i += len;
        if (units > INT32_MAX - 2) {
            SetLastError(ERROR_INVALID_PARAMETER);
            return 0;
        }
    }
    return (int)units;
}

PL_EXTERN int WINAPI WideCharToMultiByte(UINT CodePage, DWORD dwFlags, LPCWSTR wc, int cch, LPSTR mb, int cb,
                                         LPCSTR lpDefaultChar, LPBOOL lpUsedDefaultChar)
{
    if (!utf8_cp(CodePage) || !wc || cch == 0 || cch < -1 || cb < 0 || (cb > 0 && !mb) ||
        (cb > 0 && (const void *)mb == (const void *)wc)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    /* UTF-8 has no default character (Windows: ERROR_INVALID_PARAMETER for
     * CP_UTF8; the ANSI code page here is UTF-8 too, so nothing is ever
     * replaced by it). */
    if (CodePage == CP_UTF8 && (lpDefaultChar || lpUsedDefaultChar)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    if (dwFlags & ~(DWORD)(WC_ERR_INVALID_CHARS | WC_COMPOSITECHECK | WC_NO_BEST_FIT_CHARS)) {
        SetLastError(ERROR_INVALID_FLAGS);
        return 0;
    }
    if (lpUsedDefaultChar) *lpUsedDefaultChar = FALSE;
    size_t n = cch == -1 ? wlen(wc) + 1 : (size_t)cch;
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t cp = wc[i];
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < n && wc[i + 1] >= 0xDC00 && wc[i + 1] <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (wc[i + 1] - 0xDC00u);
            i++;
        } else if (cp >= 0xD800 && cp <= 0xDFFF) {
            if (dwFlags & WC_ERR_INVALID_CHARS) {
                SetLastError(ERROR_NO_UNICODE_TRANSLATION);
                return 0;
            }
            cp = 0xFFFD;
        }
        char b[4];
        size_t k = pl__utf8_encode(cp, b);
        if (cb > 0) {
            if (bytes + k > (size_t)cb) {
                SetLastError(ERROR_INSUFFICIENT_BUFFER);
                return 0;
            }
            memcpy(mb + bytes, b, k);
        }
        bytes += k;
        if (bytes > INT32_MAX - 4) {
            SetLastError(ERROR_INVALID_PARAMETER);
            return 0;
        }
    }
    return (int)bytes;
}

/* --------------------------------------------------------------- time */

PL_EXTERN BOOL WINAPI QueryPerformanceCounter(LARGE_INTEGER *c)
{
    if (!c) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    c->QuadPart = pl__perf_time_now();
    return TRUE;
}

PL_EXTERN BOOL WINAPI QueryPerformanceFrequency(LARGE_INTEGER *f)
{
    if (!f) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    f->QuadPart = PL_TICKS_PER_SEC;
    return TRUE;
}

PL_EXTERN ULONGLONG WINAPI GetTickCount64(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0) clock_gettime(CLOCK_MONOTONIC, &ts);
    return (ULONGLONG)ts.tv_sec * 1000u + (ULONGLONG)ts.tv_nsec / 1000000u;
}

PL_EXTERN DWORD WINAPI GetTickCount(void) { return (DWORD)GetTickCount64(); }

static void to_systemtime(int64_t ft, LPSYSTEMTIME st, int local)
{
    int64_t unix100 = ft - PL_FILETIME_UNIX_EPOCH;
    time_t secs = (time_t)(unix100 >= 0 ? unix100 / PL_TICKS_PER_SEC : -((-unix100 + PL_TICKS_PER_SEC - 1) / PL_TICKS_PER_SEC));
    int64_t rem = unix100 - (int64_t)secs * PL_TICKS_PER_SEC;
    struct tm tm;
    if (local) localtime_r(&secs, &tm);
    else gmtime_r(&secs, &tm);
    st->wYear = (WORD)(tm.tm_year + 1900);
    st->wMonth = (WORD)(tm.tm_mon + 1);
    st->wDayOfWeek = (WORD)tm.tm_wday;
    st->wDay = (WORD)tm.tm_mday;
    st->wHour = (WORD)tm.tm_hour;
    st->wMinute = (WORD)tm.tm_min;
    st->wSecond = (WORD)tm.tm_sec;
    st->wMilliseconds = (WORD)(rem / 10000);
}

PL_EXTERN void WINAPI GetSystemTime(LPSYSTEMTIME st)
{
    if (st) to_systemtime(pl__filetime_now(), st, 0);
}

PL_EXTERN void WINAPI GetLocalTime(LPSYSTEMTIME st)
{
    if (st) to_systemtime(pl__filetime_now(), st, 1);
}

PL_EXTERN void WINAPI GetSystemTimeAsFileTime(LPFILETIME ft)
{
    if (!ft) return;
    uint64_t v = (uint64_t)pl__filetime_now();
    ft->dwLowDateTime = (DWORD)v;
    ft->dwHighDateTime = (DWORD)(v >> 32);
}

PL_EXTERN BOOL WINAPI FileTimeToSystemTime(const FILETIME *ft, LPSYSTEMTIME st)
{
    if (!ft || !st) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    uint64_t v = ((uint64_t)ft->dwHighDateTime << 32) | ft->dwLowDateTime;
    if (v > 0x7FFFFFFFFFFFFFFFull) { /* Windows: values with the top bit set fail */
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    to_systemtime((int64_t)v, st, 0);
    return TRUE;
}

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

PL_EXTERN BOOL WINAPI SystemTimeToFileTime(const SYSTEMTIME *st, LPFILETIME ft)
{
    static const unsigned char mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (!st || !ft || st->wYear < 1601 || st->wYear > 30827 || st->wMonth < 1 || st->wMonth > 12 ||
        st->wDay < 1 || st->wDay > mdays[st->wMonth - 1] || st->wHour > 23 || st->wMinute > 59 ||
        st->wSecond > 59 || st->wMilliseconds > 999) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    int leap = (st->wYear % 4 == 0 && st->wYear % 100 != 0) || st->wYear % 400 == 0;
    if (st->wMonth == 2 && st->wDay == 29 && !leap) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    int64_t days = days_from_civil(st->wYear, st->wMonth, st->wDay);
    int64_t secs = days * 86400 + st->wHour * 3600 + st->wMinute * 60 + st->wSecond;
    uint64_t v = (uint64_t)(PL_FILETIME_UNIX_EPOCH + secs * PL_TICKS_PER_SEC + (int64_t)st->wMilliseconds * 10000);
    ft->dwLowDateTime = (DWORD)v;
    ft->dwHighDateTime = (DWORD)(v >> 32);
    return TRUE;
}

PL_EXTERN LONG WINAPI CompareFileTime(const FILETIME *a, const FILETIME *b)
{
    if (!a || !b) return 0;
    uint64_t x = ((uint64_t)a->dwHighDateTime << 32) | a->dwLowDateTime;
    uint64_t y = ((uint64_t)b->dwHighDateTime << 32) | b->dwLowDateTime;
    return x < y ? -1 : x > y ? 1 : 0;
}

PL_EXTERN void WINAPI Sleep(DWORD ms)
{
    struct timespec ts = {(time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* ------------------------------------------------------------ system */

/* The name the performance data block carries (engine: the host name up
 * to the first dot, upper-case). */
static void computer_name(char *out, size_t cap)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    host[sizeof host - 1] = '\0';
    char *dot = strchr(host, '.');
    if (dot) *dot = '\0';
    size_t i = 0;
    for (; host[i] && i + 1 < cap; i++) out[i] = (char)(host[i] >= 'a' && host[i] <= 'z' ? host[i] - 32 : host[i]);
    out[i] = '\0';
    if (!out[0]) snprintf(out, cap, "LOCALHOST");
}

PL_EXTERN BOOL WINAPI GetComputerNameA(LPSTR buf, LPDWORD size)
{
    if (!size || (!buf && *size)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    char name[256];
    computer_name(name, sizeof name);
    size_t n = strlen(name);
    if (*size < n + 1) {
        *size = (DWORD)n + 1;
        SetLastError(ERROR_BUFFER_OVERFLOW);
        return FALSE;
    }
    memcpy(buf, name, n + 1);
    *size = (DWORD)n;
    return TRUE;
}

PL_EXTERN BOOL WINAPI GetComputerNameW(LPWSTR buf, LPDWORD size)
{
    if (!size || (!buf && *size)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    char name[256];
    computer_name(name, sizeof name);
    size_t n = strlen(name); /* host names are ASCII */
    if (*size < n + 1) {
        *size = (DWORD)n + 1;
        SetLastError(ERROR_BUFFER_OVERFLOW);
        return FALSE;
    }
    for (size_t i = 0; i <= n; i++) buf[i] = (WCHAR)(unsigned char)name[i];
    *size = (DWORD)n;
    return TRUE;
}

PL_EXTERN DWORD WINAPI GetCurrentProcessId(void) { return (DWORD)getpid(); }
PL_EXTERN DWORD WINAPI GetCurrentThreadId(void) { return (DWORD)syscall(SYS_gettid); }

/* The path of module h (NULL: the program), UTF-8, in a new string. */
static char *module_path(HMODULE h)
{
    if (!h) {
        char buf[4096];
        ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
        if (n <= 0) return NULL;
        buf[n] = '\0';
        return strdup(buf);
    }
    Dl_info info;
    if (!dladdr(h, &info) || info.dli_fbase != h || !info.dli_fname || !info.dli_fname[0]) return NULL;
    char *real = realpath(info.dli_fname, NULL);
    return real ? real : strdup(info.dli_fname);
}

PL_EXTERN DWORD WINAPI GetModuleFileNameA(HMODULE h, LPSTR out, DWORD size)
{
    char *p = module_path(h);
    if (!p) {
        SetLastError(ERROR_MOD_NOT_FOUND);
        return 0;
    }
    size_t n = strlen(p);
    DWORD ret;
    if (size == 0 || !out) {
        ret = 0;
        SetLastError(ERROR_INSUFFICIENT_BUFFER);
    } else if (n + 1 > size) {
        memcpy(out, p, size - 1);
        out[size - 1] = '\0';
        ret = size;
        SetLastError(ERROR_INSUFFICIENT_BUFFER);
    } else {
        memcpy(out, p, n + 1);
        ret = (DWORD)n;
        SetLastError(ERROR_SUCCESS);
    }
    free(p);
    return ret;
}

PL_EXTERN DWORD WINAPI GetModuleFileNameW(HMODULE h, LPWSTR out, DWORD size)
{
    char *p = module_path(h);
    if (!p) {
        SetLastError(ERROR_MOD_NOT_FOUND);
        return 0;
    }
    uint16_t *w = NULL;
    size_t units = 0;
    int rc = pl__utf8_to_utf16_dup(p, &w, &units);
    free(p);
    if (rc != PL_OK) {
        free(w);
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return 0;
    }
    DWORD ret;
    if (size == 0 || !out) {
        ret = 0;
        SetLastError(ERROR_INSUFFICIENT_BUFFER);
    } else if (units + 1 > size) {
        memcpy(out, w, (size - 1) * sizeof(WCHAR));
        out[size - 1] = 0;
        ret = size;
        SetLastError(ERROR_INSUFFICIENT_BUFFER);
    } else {
        memcpy(out, w, (units + 1) * sizeof(WCHAR));
        ret = (DWORD)units;
        SetLastError(ERROR_SUCCESS);
    }
    free(w);
    return ret;
}

/* ------------------------------------------------------------ event log */

#define EVSRC_MAGIC 0x45565352u /* "EVSR" */

typedef struct evsrc {
    uint32_t magic;
    char source[128];
} evsrc;

static pthread_mutex_t g_ev_mu = PTHREAD_MUTEX_INITIALIZER;
static pl_win32_event_hook g_ev_hook;
static void *g_ev_ctx;

PL_EXTERN void pl_win32_set_event_hook(pl_win32_event_hook fn, void *ctx)
{
    pthread_mutex_lock(&g_ev_mu);
    g_ev_hook = fn;
    g_ev_ctx = ctx;
    pthread_mutex_unlock(&g_ev_mu);
}

static HANDLE register_source(const char *server, const char *source)
{
    if (!source) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    if (!pl__w32_is_local(server)) {
        SetLastError(ERROR_BAD_NETPATH);
        return NULL;
    }
    evsrc *e = calloc(1, sizeof *e);
    if (!e) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    e->magic = EVSRC_MAGIC;
    /* Control characters would let a source forge log lines. */
    size_t i = 0;
    for (; source[i] && i + 1 < sizeof e->source; i++)
        e->source[i] = (unsigned char)source[i] < 0x20 || source[i] == 0x7f ? '?' : source[i];
    e->source[i] = '\0';
    if (pl__w32_handle_add(e, PL__W32_H_EVSRC) != PL_OK) {
        free(e);
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    return e;
}

PL_EXTERN HANDLE WINAPI RegisterEventSourceA(LPCSTR server, LPCSTR source) { return register_source(server, source); }

PL_EXTERN HANDLE WINAPI RegisterEventSourceW(LPCWSTR server, LPCWSTR source)
{
    int rc1, rc2;
    char *s = pl__w32_narrow(server, &rc1);
    char *n = pl__w32_narrow(source, &rc2);
    HANDLE h = NULL;
    if (rc1 != PL_OK || rc2 != PL_OK) SetLastError(ERROR_INVALID_PARAMETER);
    else h = register_source(s, n);
    free(s);
    free(n);
    return h;
}

static int prio_of(WORD type)
{
    switch (type) {
    case EVENTLOG_ERROR_TYPE: return LOG_ERR;
    case EVENTLOG_WARNING_TYPE: return LOG_WARNING;
    case EVENTLOG_AUDIT_SUCCESS:
    case EVENTLOG_AUDIT_FAILURE: return LOG_NOTICE;
    default: return LOG_INFO;
    }
}

/* strs: UTF-8 strings (NULL entries allowed). */
static BOOL report(HANDLE h, WORD type, WORD category, DWORD id, WORD n, const char *const *strs)
{
    evsrc src;
    if (!pl__w32_handle_get(h, PL__W32_H_EVSRC, &src, sizeof src)) {
        SetLastError(ERROR_INVALID_HANDLE);
        return FALSE;
    }
    char line[2048];
    int w = category ? snprintf(line, sizeof line, "%s: event %u category %u:", src.source, (unsigned)(id & 0xFFFFu),
                                (unsigned)category)
                     : snprintf(line, sizeof line, "%s: event %u:", src.source, (unsigned)(id & 0xFFFFu));
    size_t len = w > 0 ? (size_t)w : 0;
    for (WORD i = 0; i < n && len + 2 < sizeof line; i++) {
        const char *s = strs[i] ? strs[i] : "";
        line[len++] = ' ';
        for (; *s && len + 1 < sizeof line; s++)
            line[len++] = (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s;
        line[len] = '\0';
    }
    pthread_mutex_lock(&g_ev_mu);
    pl_win32_event_hook fn = g_ev_hook;
    void *ctx = g_ev_ctx;
    pthread_mutex_unlock(&g_ev_mu);
    if (fn) fn(prio_of(type), line, ctx);
    else syslog(LOG_USER | prio_of(type), "%s", line);
    return TRUE;
}

PL_EXTERN BOOL WINAPI ReportEventA(HANDLE hEventLog, WORD wType, WORD wCategory, DWORD dwEventID, PSID lpUserSid,
                                   WORD wNumStrings, DWORD dwDataSize, LPCSTR *lpStrings, LPVOID lpRawData)
{
    (void)lpUserSid;
    (void)dwDataSize;
    (void)lpRawData;
    if (wNumStrings && !lpStrings) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    return report(hEventLog, wType, wCategory, dwEventID, wNumStrings, (const char *const *)lpStrings);
}

PL_EXTERN BOOL WINAPI ReportEventW(HANDLE hEventLog, WORD wType, WORD wCategory, DWORD dwEventID, PSID lpUserSid,
                                   WORD wNumStrings, DWORD dwDataSize, LPCWSTR *lpStrings, LPVOID lpRawData)
{
    (void)lpUserSid;
    (void)dwDataSize;
    (void)lpRawData;
    if (wNumStrings && !lpStrings) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    char **strs = calloc(wNumStrings ? wNumStrings : 1, sizeof *strs);
    if (!strs) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return FALSE;
    }
    for (WORD i = 0; i < wNumStrings; i++)
        if (lpStrings[i]) (void)pl__utf16_to_utf8_dup(lpStrings[i], wlen(lpStrings[i]), &strs[i], 1);
    BOOL ok = report(hEventLog, wType, wCategory, dwEventID, wNumStrings, (const char *const *)strs);
    for (WORD i = 0; i < wNumStrings; i++) free(strs[i]);
    free(strs);
    return ok;
}

PL_EXTERN BOOL WINAPI DeregisterEventSource(HANDLE hEventLog)
{
    void *p = pl__w32_handle_remove(hEventLog, PL__W32_H_EVSRC);
    if (!p) {
        SetLastError(ERROR_INVALID_HANDLE);
        return FALSE;
    }
    free(p);
    return TRUE;
}

/* ------------------------------------------------------------ debug output */

void pl__w32_channel_line(int prio, const char *prefix, const char *text)
{
    char line[1024];
    size_t n = (size_t)snprintf(line, sizeof line, "%s", prefix);
    if (n >= sizeof line) n = sizeof line - 1;
    for (const char *p = text; *p && n + 1 < sizeof line; p++)
        line[n++] = (unsigned char)*p < 0x20 || *p == 0x7f ? ' ' : *p;
    line[n] = '\0';
    pthread_mutex_lock(&g_ev_mu);
    pl_win32_event_hook fn = g_ev_hook;
    void *ctx = g_ev_ctx;
    pthread_mutex_unlock(&g_ev_mu);
    if (fn) fn(prio, line, ctx);
    else syslog(LOG_USER | prio, "%s", line);
}

static void debug_line(const char *text) { pl__w32_channel_line(LOG_DEBUG, "debug: ", text); }

PL_EXTERN void WINAPI OutputDebugStringA(LPCSTR s)
{
    if (s) debug_line(s);
}

PL_EXTERN void WINAPI OutputDebugStringW(LPCWSTR s)
{
    if (!s) return;
    char *u = NULL;
    if (pl__utf16_to_utf8_dup(s, wlen(s), &u, 1) == PL_OK) debug_line(u);
    free(u);
}
