/* The growable buffer (pl_buf.h). */
#include "pl_buf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(pl__buf *b, int status)
{
    if (!b->failed) b->failed = status;
    return b->failed;
}

int pl__buf_reserve(pl__buf *b, size_t extra)
{
    if (b->failed) return b->failed;
    if (extra > SIZE_MAX - 1 - b->len) return fail(b, PL_E_NOMEM);
    size_t need = b->len + extra + 1;
    if (need <= b->cap) return PL_OK;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) return fail(b, PL_E_NOMEM);
        cap *= 2;
    }
    char *p = realloc(b->p, cap);
    if (!p) return fail(b, PL_E_NOMEM);
    b->p = p;
    b->cap = cap;
    return PL_OK;
}

int pl__buf_append(pl__buf *b, const void *data, size_t n)
{
    int rc = pl__buf_reserve(b, n);
    if (rc != PL_OK) return rc;
    if (n) memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = '\0';
    return PL_OK;
}

int pl__buf_str(pl__buf *b, const char *s) { return pl__buf_append(b, s, strlen(s)); }

int pl__buf_vprintf(pl__buf *b, const char *fmt, va_list ap)
{
    if (b->failed) return b->failed;
    va_list again;
    va_copy(again, ap);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    int rc;
    if (n < 0) rc = fail(b, PL_E_INVAL);
    else if ((size_t)n < sizeof small) rc = pl__buf_append(b, small, (size_t)n);
    else if ((rc = pl__buf_reserve(b, (size_t)n)) == PL_OK) {
        vsnprintf(b->p + b->len, (size_t)n + 1, fmt, again);
        b->len += (size_t)n;
    }
    va_end(again);
    return rc;
}

int pl__buf_printf(pl__buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = pl__buf_vprintf(b, fmt, ap);
    va_end(ap);
    return rc;
}

void pl__buf_free(pl__buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}
