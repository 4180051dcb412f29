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

/* A "pid=N" word (case-insensitive, N decimal 0..4294967295 without sign
 * or spaces) at s, n bytes: 1 with *pid, else 0. */
static int pid_word(const char *s, size_t n, uint32_t *pid)
{
    if (n < 5 || n > 14 || !word_eq(s, 4, "pid=")) return 0;
    uint64_t v = 0;
    for (size_t i = 4; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > 0xFFFFFFFFull) return 0;
    *pid = (uint32_t)v;
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
    /* A list of decimal indices, and at most one "pid=N" (docs/query-engine.md,
     * "One process's instances"; pl_query_process_filter); any other word
     * makes the query unknown. */
    q->kind = PL_QUERY_KIND_ITEMS;
    int filtered = 0;
    while (*s) {
        while (sep(*s)) s++;
        if (!*s) break;
        const char *we = s;
        while (*we && !sep(*we)) we++;
        uint32_t pid;
        if (*s == 'p' || *s == 'P') {
            if (filtered++ || !pid_word(s, (size_t)(we - s), &pid)) {
                q->kind = PL_QUERY_KIND_UNKNOWN;
                q->n = 0;
                return;
            }
            s = we;
            continue;
        }
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
    if (q->n == 0) q->kind = filtered ? PL_QUERY_KIND_UNKNOWN : PL_QUERY_KIND_GLOBAL; /* a filter of nothing */
}

PL_EXTERN int pl_query_process_filter(const char *query, uint32_t *pid)
{
    pl_query_items q;
    pl_query_parse(query, &q);
    if (q.kind != PL_QUERY_KIND_ITEMS) return 0;
    for (const char *s = query; *s;) {
        while (sep(*s)) s++;
        const char *we = s;
        while (*we && !sep(*we)) we++;
        if (pid_word(s, (size_t)(we - s), pid)) return 1;
        s = we;
    }
    return 0;
}

PL_EXTERN int pl_query_process_filter_w(const WCHAR *query, uint32_t *pid)
{
    if (!query) return 0;
    char buf[4096];
    size_t n = 0;
    while (query[n]) {
        if (query[n] > 0x7F) return 0;
        n++;
    }
    /* the word is short: a long index list is looked through in place */
    char *b = n < sizeof buf ? buf : malloc(n + 1);
    if (!b) return 0;
    for (size_t i = 0; i < n; i++) b[i] = (char)query[i];
    b[n] = '\0';
    int r = pl_query_process_filter(b, pid);
    if (b != buf) free(b);
    return r;
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
