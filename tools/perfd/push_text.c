/* perfd: remote_write's settings checks and exposition reader (push_text.h). */
#include "push_text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void pw_batch_free(pw_batch *b)
{
    if (!b) return;
    free(b->text);
    free(b->labels);
    free(b->series);
    free(b);
}

static int name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

static int cmp_label(const void *a, const void *b)
{
    return strcmp(((const pw_label *)a)->name, ((const pw_label *)b)->name);
}

static int add_label(pw_batch *b, size_t *cap, const char *name, const char *value)
{
    if (b->nlabels == *cap) {
        size_t nc = *cap ? *cap * 2 : 256;
        pw_label *l = realloc(b->labels, nc * sizeof *l);
        if (!l) return -1;
        b->labels = l;
        *cap = nc;
    }
    b->labels[b->nlabels].name = name;
    b->labels[b->nlabels].value = value;
    b->nlabels++;
    return 0;
}

/* One sample line, NUL-terminated, modified in place. 0, or -1 with why. */
static int parse_line(pw_batch *b, size_t *lcap, size_t *scap, char *p, char *why, size_t whylen)
{
    const char *name = p;
    if (!name_start(*p) && *p != ':') {
        snprintf(why, whylen, "a metric name starts with a letter, '_' or ':'");
        return -1;
    }
    while (name_char(*p) || *p == ':') p++;
    char after = *p;
    if (after != '{' && after != ' ') {
        snprintf(why, whylen, "expected '{' or a space after the metric name");
        return -1;
    }
    *p++ = 0;
    size_t first = b->nlabels;
    if (add_label(b, lcap, "__name__", name) != 0) goto oom;
    if (after == '{') {
        for (;;) {
            if (*p == '}') {
                p++;
                break;
            }
            const char *ln = p;
            if (!name_start(*p)) {
                snprintf(why, whylen, "a label name starts with a letter or '_'");
                return -1;
            }
            while (name_char(*p)) p++;
            if (*p != '=' || p[1] != '"') {
                snprintf(why, whylen, "expected =\" after a label name");
                return -1;
            }
            *p = 0;
            if (strcmp(ln, "__name__") == 0) {
                snprintf(why, whylen, "label __name__ given twice");
                return -1;
            }
            p += 2;
            char *val = p, *w = p;
            for (;;) {
                if (!*p) {
                    snprintf(why, whylen, "unterminated label value");
                    return -1;
                }
                if (*p == '"') break;
                if (*p == '\\') {
                    p++;
                    if (*p == 'n') *w++ = '\n';
                    else if (*p == '\\' || *p == '"') *w++ = *p;
                    else {
                        snprintf(why, whylen, "bad escape in a label value (\\\\, \\\" and \\n only)");
                        return -1;
                    }
                    p++;
                    continue;
                }
                *w++ = *p++;
            }
            p++;
            *w = 0;
            if (add_label(b, lcap, ln, val) != 0) goto oom;
            if (*p == ',') p++;
            else if (*p != '}') {
                snprintf(why, whylen, "expected ',' or '}' after a label value");
                return -1;
            }
        }
        if (*p != ' ') {
            snprintf(why, whylen, "expected a space before the value");
            return -1;
        }
    }
    while (*p == ' ') p++;
    char *vs = p;
    while (*p && *p != ' ') p++;
    if (*p) *p++ = 0; /* an optional timestamp follows: the batch's time is used */
    if (!*vs) {
        snprintf(why, whylen, "no value");
        return -1;
    }
    char *end;
    errno = 0;
    double v = strtod(vs, &end);
    if (*end || (vs[0] != '+' && vs[0] != '-' && !(vs[0] >= '0' && vs[0] <= '9') && strcasecmp(vs, "NaN") != 0)) {
        snprintf(why, whylen, "the value is not a number");
        return -1;
    }
    size_t n = b->nlabels - first;
    qsort(b->labels + first, n, sizeof *b->labels, cmp_label);
    for (size_t i = first + 1; i < b->nlabels; i++)
        if (strcmp(b->labels[i - 1].name, b->labels[i].name) == 0) {
            snprintf(why, whylen, "label %.64s given twice", b->labels[i].name);
            return -1;
        }
    if (b->nseries == *scap) {
        size_t nc = *scap ? *scap * 2 : 128;
        pw_series *s = realloc(b->series, nc * sizeof *s);
        if (!s) goto oom;
        b->series = s;
        *scap = nc;
    }
    b->series[b->nseries++] = (pw_series){.first = first, .n = n, .value = v};
    return 0;
oom:
    snprintf(why, whylen, "out of memory");
    return -1;
}

int pw_parse(const char *text, size_t len, int64_t ts_ms, pw_batch **out, char *why, size_t whylen)
{
    *out = NULL;
    pw_batch *b = calloc(1, sizeof *b);
    if (!b || !(b->text = malloc(len + 1))) {
        free(b);
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    memcpy(b->text, text, len);
    b->text[len] = 0;
    b->ts_ms = ts_ms;
    size_t lcap = 0, scap = 0, pos = 0;
    unsigned lineno = 0;
    while (pos < len) {
        lineno++;
        char *line = b->text + pos;
        char *nl = memchr(line, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - line) : len - pos;
        pos += n + (nl ? 1 : 0);
        if (memchr(line, 0, n)) {
            snprintf(why, whylen, "line %u: NUL byte", lineno);
            goto fail;
        }
        line[n] = 0;
        if (n && line[n - 1] == '\r') line[--n] = 0;
        if (!n || line[0] == '#') continue;
        char reason[200];
        if (parse_line(b, &lcap, &scap, line, reason, sizeof reason) != 0) {
            snprintf(why, whylen, "line %u: %s", lineno, reason);
            goto fail;
        }
    }
    *out = b;
    return 0;
fail:
    pw_batch_free(b);
    return -1;
}

int pw_check_url(const char *v, char *why, size_t whylen)
{
    size_t n = strlen(v);
    if (n == 0 || n > PW_URL_MAX) {
        snprintf(why, whylen, "remote_write_url: empty or longer than %d bytes", PW_URL_MAX);
        return -1;
    }
    const char *host;
    if (strncasecmp(v, "http://", 7) == 0) host = v + 7;
    else if (strncasecmp(v, "https://", 8) == 0) host = v + 8;
    else {
        snprintf(why, whylen, "remote_write_url: the scheme must be http:// or https://");
        return -1;
    }
    for (const char *q = v; *q; q++)
        if ((unsigned char)*q <= 0x20 || (unsigned char)*q == 0x7f) {
            snprintf(why, whylen, "remote_write_url: no spaces or control characters");
            return -1;
        }
    if (!*host || *host == '/' || *host == ':' || *host == '?' || *host == '#') {
        snprintf(why, whylen, "remote_write_url: no host");
        return -1;
    }
    size_t alen = strcspn(host, "/?#");
    if (memchr(host, '@', alen)) {
        snprintf(why, whylen, "remote_write_url: no credentials in the URL (remote_write_token_file)");
        return -1;
    }
    return 0;
}

int pw_parse_uint(const char *key, const char *v, unsigned long lo, unsigned long hi, unsigned long *out, char *why,
                  size_t whylen)
{
    char *end = NULL;
    errno = 0;
    unsigned long x = (*v >= '0' && *v <= '9') ? strtoul(v, &end, 10) : 0;
    if (!end || *end || errno || x < lo || x > hi) {
        snprintf(why, whylen, "%s: expected a whole number from %lu to %lu", key, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}
