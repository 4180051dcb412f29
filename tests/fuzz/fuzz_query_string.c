/* libFuzzer target for the query-string parser every provider and the host
 * use (pl_query_parse, pl_query_parse_w, pl_query_wants; lib/host/
 * provider_util.c). The input, cut at its first NUL, is parsed as UTF-8 and,
 * widened byte by byte, as UTF-16: both must agree; an item list holds at
 * most PL_QUERY_MAX_ITEMS distinct non-zero indices. Non-ASCII text is
 * unknown to the wide form. The "pid=N" filter (pl_query_process_filter)
 * is found in both forms alike, and only in an index query. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/provider.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    WCHAR *w = malloc((size + 1) * sizeof *w);
    if (!s || !w) {
        free(s);
        free(w);
        return 0;
    }
    memcpy(s, data, size);
    s[size] = '\0';
    size_t n = strlen(s);
    for (size_t i = 0; i <= n; i++) w[i] = (WCHAR)(unsigned char)s[i];
    static pl_query_items a, b;
    pl_query_parse(s, &a);
    pl_query_parse_w(w, &b);
    int ascii = 1;
    for (size_t i = 0; i < n; i++) ascii &= (unsigned char)s[i] < 0x80;
    /* Queries are ASCII: the wide form refuses anything else (UNKNOWN). */
    if (!ascii && b.kind != PL_QUERY_KIND_UNKNOWN) abort();
    if (ascii && (a.kind != b.kind || a.n != b.n || memcmp(a.items, b.items, a.n * sizeof a.items[0]) != 0)) abort();
    if (a.n > PL_QUERY_MAX_ITEMS) abort();
    for (size_t i = 0; i < a.n; i++) {
        if (a.items[i] == 0) abort();
        for (size_t j = 0; j < i; j++)
            if (a.items[i] == a.items[j]) abort();
        if (a.kind == PL_QUERY_KIND_ITEMS && !pl_query_wants(&a, a.items[i], 0)) abort();
    }
    (void)pl_query_wants(&a, 238, 1);
    uint32_t pa = 0, pb = 0;
    int fa = pl_query_process_filter(s, &pa), fb = pl_query_process_filter_w(w, &pb);
    if (fa && a.kind != PL_QUERY_KIND_ITEMS) abort();
    if (ascii && (fa != fb || (fa && pa != pb))) abort();
    if (!ascii && fb) abort();
    free(s);
    free(w);
    return 0;
}
