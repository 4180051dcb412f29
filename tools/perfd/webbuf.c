/* perfd: text buffer for the page's JSON (webbuf.h). */
#include "webbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wb_put(wb *b, const char *s, size_t n) { pl__buf_append(b, s, n); }

int wb_reserve(wb *b, size_t extra) { return pl__buf_reserve(b, extra) == PL_OK ? 0 : -1; }

void wb_str(wb *b, const char *s) { pl__buf_str(b, s); }

void wb_printf(wb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pl__buf_vprintf(b, fmt, ap);
    va_end(ap);
}

/* Length of a valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t k = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (!k || k > n) return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    if (k == 2 && c < 0xC2) return 0;                          /* overlong */
    if (k == 3 && c == 0xE0 && s[1] < 0xA0) return 0;          /* overlong */
    if (k == 3 && c == 0xED && s[1] >= 0xA0) return 0;         /* surrogates */
    if (k == 4 && ((c == 0xF0 && s[1] < 0x90) || c > 0xF4 || (c == 0xF4 && s[1] >= 0x90))) return 0;
    return k;
}

void wb_json(wb *b, const char *s)
{
    wb_put(b, "\"", 1);
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)u);
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            wb_put(b, e, 2);
            i++;
        } else if (c < 0x20 || c == 0x7F) {
            wb_printf(b, "\\u%04x", c);
            i++;
        } else if (c < 0x80) {
            wb_put(b, (const char *)u + i, 1);
            i++;
        } else {
            size_t k = utf8_len(u + i, n - i);
            if (k) {
                wb_put(b, (const char *)u + i, k);
                i += k;
            } else {
                wb_str(b, "\\ufffd");
                i++;
            }
        }
    }
    wb_put(b, "\"", 1);
}

void wb_num(wb *b, double v)
{
    if (!isfinite(v)) {
        wb_str(b, "null");
        return;
    }
    wb_printf(b, "%.10g", v);
}

void wb_free(wb *b) { pl__buf_free(b); }
