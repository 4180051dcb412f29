/* Windows' printf-family format rules for ported code (wsprintf, and the
 * _UNICODE tchar.h's _tprintf family): pl_win32_vformat.
 *
 * What differs from the C library, and is done here:
 *  - %s / %c take the "natural" width of the function: WCHAR strings for the
 *    W forms, char for the A forms; %S / %C the other one; %hs / %hc always
 *    char, %ls / %lc / %ws / %wc always WCHAR (UTF-16, converted to UTF-8);
 *  - integer sizes are Windows': %ld / %lu / %lx are 32-bit (LONG/DWORD),
 *    %I64d / %lld 64-bit, %I32d 32-bit, %Id / %Iu / %zd pointer-sized;
 *  - %n writes nothing (its argument is consumed; Windows disables it too).
 * Everything else (flags, width, precision, *, floating point, %p, %%) is
 * the C library's. The result is UTF-8. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_internal.h"
#include "win32_internal.h"

/* The UTF-8 of a NUL-terminated WCHAR string (lenient: lone surrogates
 * become U+FFFD), or NULL. */
static char *narrow(const WCHAR *w)
{
    size_t n = 0;
    while (w[n]) n++;
    char *out = NULL;
    if (pl__utf16_to_utf8_dup(w, n, &out, 1) != PL_OK) {
        free(out);
        return NULL;
    }
    return out;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
PL_EXTERN int pl_win32_vformat(int wide, const char *fmt, va_list ap, char **out)
{
    *out = NULL;
    if (!fmt) return PL_E_INVAL;
    pl__buf b = {0};
    pl__buf_append(&b, "", 0); /* "" when nothing else comes */
    const char *p = fmt;
    while (*p && !b.failed) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            pl__buf_append(&b, p, strlen(p));
            break;
        }
        pl__buf_append(&b, p, (size_t)(pct - p));
        p = pct + 1;
        if (*p == '%') {
            pl__buf_append(&b, "%", 1);
            p++;
            continue;
        }
        /* flags, width, precision: copied into spec as they are */
        char spec[64];
        size_t sl = 0;
        spec[sl++] = '%';
        int star_w = 0, star_p = 0;
        while (*p && strchr("-+ #0", *p) && sl < 20) spec[sl++] = *p++;
        if (*p == '*') {
            star_w = 1;
            spec[sl++] = *p++;
        } else {
            while (*p >= '0' && *p <= '9' && sl < 40) spec[sl++] = *p++;
        }
        if (*p == '.') {
            spec[sl++] = *p++;
            if (*p == '*') {
                star_p = 1;
                spec[sl++] = *p++;
            } else {
                while (*p >= '0' && *p <= '9' && sl < 58) spec[sl++] = *p++;
            }
        }
        /* length: Windows' meanings */
        enum { L_NONE, L_H, L_HH, L_L32, L_LL, L_PTR, L_WIDE, L_LD } len = L_NONE;
        if (p[0] == 'I' && p[1] == '6' && p[2] == '4') len = L_LL, p += 3;
        else if (p[0] == 'I' && p[1] == '3' && p[2] == '2') len = L_NONE, p += 3;
        else if (p[0] == 'I') len = L_PTR, p += 1;
        else if (p[0] == 'l' && p[1] == 'l') len = L_LL, p += 2;
        else if (p[0] == 'h' && p[1] == 'h') len = L_HH, p += 2;
        else if (p[0] == 'h') len = L_H, p += 1;
        else if (p[0] == 'l') len = L_L32, p += 1;
        else if (p[0] == 'w') len = L_WIDE, p += 1;
        else if (p[0] == 'z' || p[0] == 't' || p[0] == 'j') len = L_PTR, p += 1;
        else if (p[0] == 'L') len = L_LD, p += 1;
        char conv = *p;
        if (!conv) break;
        p++;
        int wv = star_w ? va_arg(ap, int) : 0;
        int pv = star_p ? va_arg(ap, int) : 0;
        switch (conv) {
        case 'd':
        case 'i':
        case 'u':
        case 'x':
        case 'X':
        case 'o': {
            if (len == L_LL || len == L_PTR) {
                spec[sl++] = 'l';
                spec[sl++] = 'l';
            }
            spec[sl++] = conv;
            spec[sl] = '\0';
            long long v;
            int sgn = conv == 'd' || conv == 'i';
            if (len == L_LL) v = va_arg(ap, long long);
            else if (len == L_PTR) v = sgn ? (long long)va_arg(ap, intptr_t) : (long long)va_arg(ap, uintptr_t);
            else if (len == L_H) v = sgn ? (short)va_arg(ap, int) : (unsigned short)va_arg(ap, int);
            else if (len == L_HH) v = sgn ? (signed char)va_arg(ap, int) : (unsigned char)va_arg(ap, int);
            else v = sgn ? (long long)va_arg(ap, int) : (long long)va_arg(ap, unsigned);
            int ll = len == L_LL || len == L_PTR;
            if (star_w && star_p) {
                if (ll) pl__buf_printf(&b, spec, wv, pv, v);
                else pl__buf_printf(&b, spec, wv, pv, (int)v);
            } else if (star_w || star_p) {
                if (ll) pl__buf_printf(&b, spec, star_w ? wv : pv, v);
                else pl__buf_printf(&b, spec, star_w ? wv : pv, (int)v);
            } else {
                if (ll) pl__buf_printf(&b, spec, v);
                else pl__buf_printf(&b, spec, (int)v);
            }
            break;
        }
        case 'e':
        case 'E':
        case 'f':
        case 'F':
        case 'g':
        case 'G':
        case 'a':
        case 'A': {
            spec[sl++] = conv;
            spec[sl] = '\0';
            double v = len == L_LD ? (double)va_arg(ap, long double) : va_arg(ap, double);
            if (star_w && star_p) pl__buf_printf(&b, spec, wv, pv, v);
            else if (star_w || star_p) pl__buf_printf(&b, spec, star_w ? wv : pv, v);
            else pl__buf_printf(&b, spec, v);
            break;
        }
        case 'p': {
            spec[sl++] = 'p';
            spec[sl] = '\0';
            void *v = va_arg(ap, void *);
            if (star_w) pl__buf_printf(&b, spec, wv, v);
            else pl__buf_printf(&b, spec, v);
            break;
        }
        case 'n':
            (void)va_arg(ap, void *);
            break;
        case 's':
        case 'S':
        case 'c':
        case 'C':
        case 'Z': {
            int is_wide = (conv == 's' || conv == 'c') ? wide : !wide;
            if (len == L_H) is_wide = 0;
            if (len == L_L32 || len == L_WIDE) is_wide = 1;
            char *tmp = NULL;
            char cbuf[8];
            const char *str;
            if (conv == 'c' || conv == 'C') {
                int c = va_arg(ap, int);
                if (is_wide) {
                    size_t n = pl__utf8_encode((uint32_t)(c & 0xFFFF), cbuf);
                    cbuf[n] = '\0';
                } else {
                    cbuf[0] = (char)c;
                    cbuf[1] = '\0';
                }
                str = cbuf;
            } else if (is_wide) {
                const WCHAR *w = va_arg(ap, const WCHAR *);
                str = w ? (tmp = narrow(w)) : "(null)";
                if (!str) str = "";
            } else {
                const char *s = va_arg(ap, const char *);
                str = s ? s : "(null)";
            }
            spec[sl++] = 's';
            spec[sl] = '\0';
            if (star_w && star_p) pl__buf_printf(&b, spec, wv, pv, str);
            else if (star_w || star_p) pl__buf_printf(&b, spec, star_w ? wv : pv, str);
            else pl__buf_printf(&b, spec, str);
            free(tmp);
            break;
        }
        default:
            /* not a conversion: print it as it was written */
            pl__buf_append(&b, pct, (size_t)(p - pct));
            break;
        }
    }
    if (b.failed) {
        int failed = b.failed;
        pl__buf_free(&b);
        return failed;
    }
    *out = b.p;
    return PL_OK;
}
#pragma GCC diagnostic pop
