#include "w32_util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perflib/registry.h"

int w32_fixture(pq_fixture *fx)
{
    return pq_fixture_make(fx, PQ_TEST_INI, PQ_TESTPROV_SO);
}

uint16_t *w32_widen(const char *s)
{
    size_t n = strlen(s);
    uint16_t *w = calloc(n + 1, sizeof *w);
    if (!w) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        uint32_t cp = c;
        size_t len = 1;
        if (c >= 0xF0) { cp = c & 0x07u; len = 4; }
        else if (c >= 0xE0) { cp = c & 0x0Fu; len = 3; }
        else if (c >= 0xC0) { cp = c & 0x1Fu; len = 2; }
        for (size_t j = 1; j < len && i + j < n; j++) cp = (cp << 6) | ((unsigned char)s[i + j] & 0x3Fu);
        i += len;
        if (cp >= 0x10000) {
            /* not needed by these tests */
            cp = 0xFFFD;
        }
        w[k++] = (uint16_t)cp;
    }
    w[k] = 0;
    return w;
}

long w32_multisz_count(const char *m, size_t len)
{
    long n = 0;
    size_t i = 0;
    while (i < len) {
        if (m[i] == '\0') return n;
        size_t l = strnlen(m + i, len - i);
        if (i + l >= len) return -1;
        i += l + 1;
        n++;
    }
    return -1;
}

const char *w32_multisz_lookup(const char *m, const char *key)
{
    for (const char *p = m; *p;) {
        const char *text = p + strlen(p) + 1;
        if (!*text) return NULL;
        if (strcmp(p, key) == 0) return text;
        p = text + strlen(text) + 1;
    }
    return NULL;
}

void w32_system_name(char *out, size_t cap)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0) snprintf(host, sizeof host, "LOCALHOST");
    char *dot = strchr(host, '.');
    if (dot) *dot = '\0';
    size_t i = 0;
    for (; host[i] && i + 1 < cap; i++) out[i] = (char)toupper((unsigned char)host[i]);
    out[i] = '\0';
    if (!out[0]) snprintf(out, cap, "LOCALHOST");
}

int w32_first_indices(const pq_fixture *fx, const char *provider, uint32_t *fc, uint32_t *fh)
{
    pl_store *st = NULL;
    pl_error err;
    if (pl_store_open(fx->store, 0, &st, &err) != PL_OK) return -1;
    pl_provider_info info;
    memset(&info, 0, sizeof info);
    int rc = pl_store_provider(st, provider, &info, &err) == PL_OK && info.first_counter ? 0 : -1;
    *fc = info.first_counter;
    *fh = info.first_help;
    pl_provider_info_clear(&info);
    pl_store_close(st);
    return rc;
}

char *w32_symbolic_indices(const char *text, uint32_t fc, uint32_t fh, uint32_t span)
{
    size_t n = strlen(text), cap = 2 * n + 64, o = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    for (size_t i = 0; i < n;) {
        int at_index = i == 0 || text[i - 1] == '\n' || (i >= 7 && memcmp(text + i - 7, "Object ", 7) == 0) ||
                       (i >= 5 && memcmp(text + i - 5, "help ", 5) == 0);
        if (isdigit((unsigned char)text[i]) && at_index) {
            size_t j = i;
            unsigned long long v = 0;
            while (j < n && isdigit((unsigned char)text[j]) && j - i < 12) v = v * 10 + (unsigned)(text[j++] - '0');
            if (j == n || !isdigit((unsigned char)text[j])) {
                const char *tag = NULL;
                unsigned long long k = 0;
                /* Names sit at even offsets from fc, help texts at even
                 * offsets from fh (which may be fc + 1). */
                if (v >= fc && v <= (unsigned long long)fc + span && (v - fc) % 2 == 0) {
                    tag = "FC";
                    k = v - fc;
                } else if (v >= fh && v <= (unsigned long long)fh + span && (v - fh) % 2 == 0) {
                    tag = "FH";
                    k = v - fh;
                }
                if (tag) {
                    if (o + 32 > cap) {
                        cap = 2 * cap + 32;
                        char *nb = realloc(out, cap);
                        if (!nb) { free(out); return NULL; }
                        out = nb;
                    }
                    o += (size_t)snprintf(out + o, cap - o, "<%s+%llu>", tag, k);
                    i = j;
                    continue;
                }
            }
            if (o + (j - i) + 1 > cap) {
                cap = 2 * cap + (j - i);
                char *nb = realloc(out, cap);
                if (!nb) { free(out); return NULL; }
                out = nb;
            }
            memcpy(out + o, text + i, j - i);
            o += j - i;
            i = j;
            continue;
        }
        if (o + 2 > cap) {
            cap = 2 * cap;
            char *nb = realloc(out, cap);
            if (!nb) { free(out); return NULL; }
            out = nb;
        }
        out[o++] = text[i++];
    }
    out[o] = '\0';
    return out;
}
