/* perflib: helpers for providers: query classification and the Collect tail. */
#include <stdlib.h>
#include <string.h>

#include "perflib/block.h"
#include "perflib/provider.h"
#include "pl_internal.h"

/* Separators between words: ASCII whitespace (a query read from a line of
 * text may end in "\r\n"). */
static int sep(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int word_eq(const char *s, size_t n, const char *w)
{
    size_t wl = strlen(w);
    if (n != wl) return 0;
    for (size_t i = 0; i < n; i++) {
        char a = s[i], b = w[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a + 32);
        if (a != b) return 0;
    }
    return 1;
}

PL_EXTERN void pl_query_parse(const char *query, pl_query_items *q)
{
    memset(q, 0, sizeof *q);
    q->kind = PL_QUERY_KIND_GLOBAL;
    if (!query) return;
    const char *s = query;
    while (sep(*s)) s++;
    if (!*s) return;
    const char *e = s;
    while (*e && !sep(*e)) e++;
    if (word_eq(s, (size_t)(e - s), "global")) return;
    if (word_eq(s, (size_t)(e - s), "costly")) {
        q->kind = PL_QUERY_KIND_COSTLY;
        return;
    }
    if (word_eq(s, (size_t)(e - s), "foreign")) {
        q->kind = PL_QUERY_KIND_FOREIGN;
        return;
    }
    /* A list of decimal indices; any other word makes the query unknown. */
    q->kind = PL_QUERY_KIND_ITEMS;
    while (*s) {
        while (sep(*s)) s++;
        if (!*s) break;
        uint64_t v = 0;
        int digits = 0;
        while (*s >= '0' && *s <= '9') {
            if (v < 0xFFFFFFFFull) v = v * 10 + (uint64_t)(*s - '0');
            s++;
            digits++;
        }
        if (!digits || (*s && !sep(*s)) || v == 0 || v > 0xFFFFFFFFull) {
            q->kind = PL_QUERY_KIND_UNKNOWN;
            q->n = 0;
            return;
        }
        int dup = 0;
        for (size_t i = 0; i < q->n; i++)
            if (q->items[i] == (uint32_t)v) dup = 1;
        if (!dup && q->n < PL_QUERY_MAX_ITEMS) q->items[q->n++] = (uint32_t)v;
    }
    if (q->n == 0) q->kind = PL_QUERY_KIND_GLOBAL;
}

PL_EXTERN void pl_query_parse_w(const WCHAR *query, pl_query_items *q)
{
    if (!query) {
        pl_query_parse(NULL, q);
        return;
    }
    /* Queries are ASCII; anything else makes the query unknown. A long one
     * (thousands of repeated indices) is copied whole: cutting it would cut
     * a number in two or drop a later index. */
    size_t n = 0;
    while (query[n]) n++;
    char small[4096];
    char *buf = n < sizeof small ? small : malloc(n + 1);
    if (!buf) {
        memset(q, 0, sizeof *q);
        q->kind = PL_QUERY_KIND_UNKNOWN;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (query[i] > 0x7F) {
            if (buf != small) free(buf);
            memset(q, 0, sizeof *q);
            q->kind = PL_QUERY_KIND_UNKNOWN;
            return;
        }
        buf[i] = (char)query[i];
    }
    buf[n] = '\0';
    pl_query_parse(buf, q);
    if (buf != small) free(buf);
}

PL_EXTERN int pl_query_wants(const pl_query_items *q, uint32_t object_index, int costly)
{
    switch (q->kind) {
    case PL_QUERY_KIND_GLOBAL: return !costly;
    case PL_QUERY_KIND_COSTLY: return costly;
    case PL_QUERY_KIND_ITEMS:
        for (size_t i = 0; i < q->n; i++)
            if (q->items[i] == object_index) return 1;
        return 0;
    default: return 0;
    }
}

PL_EXTERN DWORD pl_provider_emit(const pl_builder *b, LPVOID *data, LPDWORD bytes, LPDWORD objects)
{
    size_t used = 0;
    uint32_t n = 0;
    int rc = pl_builder_emit(b, *data, *bytes, &used, &n);
    if (rc == PL_E_MORE_DATA) {
        *bytes = 0;
        *objects = 0;
        return ERROR_MORE_DATA;
    }
    if (rc != PL_OK) {
        *bytes = 0;
        *objects = 0;
        return rc == PL_E_NOMEM ? ERROR_OUTOFMEMORY : ERROR_INVALID_PARAMETER;
    }
    *data = (uint8_t *)*data + used;
    *bytes = (DWORD)used;
    *objects = n;
    return ERROR_SUCCESS;
}
