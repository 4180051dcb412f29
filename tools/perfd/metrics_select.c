/* perfd /metrics: the parsers of what a scrape serves (metrics_select.h). */
#include "metrics_select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/indices.h"
#include "perflib/pdh.h"

static int blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* The next item of a list at *p: [*s, *e) without the blanks around it
 * (empty when the item is); *p moves past its separator. 0 at the end. */
static int next_item(const char **p, const char **s, const char **e)
{
    if (!**p) return 0;
    size_t len = strcspn(*p, ";\n");
    *s = *p;
    *e = *p + len;
    while (*s < *e && blank(**s)) (*s)++;
    while (*e > *s && blank((*e)[-1])) (*e)--;
    *p += len;
    if (**p) (*p)++;
    return 1;
}

int pm_paths_parse(const char *key, const char *value, char ***paths, size_t *n, char *why, size_t whylen)
{
    *paths = NULL;
    *n = 0;
    /* first pass: how many items and bytes */
    size_t items = 0, bytes = 0;
    const char *p = value, *s, *e;
    while (next_item(&p, &s, &e)) {
        if (e == s) continue;
        if ((size_t)(e - s) > PM_PATH_LEN_MAX) {
            snprintf(why, whylen, "%s: a counter path longer than %d bytes (\"%.40s...\")", key, PM_PATH_LEN_MAX, s);
            return -1;
        }
        if (++items > PM_PATHS_MAX) {
            snprintf(why, whylen, "%s: more than %d counter paths", key, PM_PATHS_MAX);
            return -1;
        }
        bytes += (size_t)(e - s) + 1;
    }
    char **v = malloc((items + 1) * sizeof *v + bytes + 1);
    if (!v) {
        snprintf(why, whylen, "%s: out of memory", key);
        return -1;
    }
    char *w = (char *)(v + items + 1);
    size_t k = 0;
    for (p = value; next_item(&p, &s, &e);) {
        if (e == s) continue;
        memcpy(w, s, (size_t)(e - s));
        w[e - s] = '\0';
        v[k++] = w;
        w += (e - s) + 1;
    }
    v[k] = NULL;
    /* the PDH layer's own parser says whether each is a path (no titles:
     * names are not looked up here, only the syntax) */
    pl_pdh_source none = {0};
    for (size_t i = 0; i < k; i++) {
        pl_pdh_selection *sel = NULL;
        pl_error err = {0};
        const char *one[1] = {v[i]};
        if (pl_pdh_selection_new(&none, one, 1, NULL, 0, &sel, &err) != PL_PDH_CSTATUS_VALID_DATA) {
            snprintf(why, whylen, "%s: \"%.200s\" is not a counter path: %s", key, v[i], err.msg);
            free(v);
            return -1;
        }
        pl_pdh_selection_free(sel);
    }
    *paths = v;
    *n = k;
    return 0;
}

int pm_collect_parse(const char *value, pm_find_object find, void *ctx, uint32_t *index, char *why, size_t whylen)
{
    *index = 0;
    size_t len = strlen(value);
    if (len == 0) {
        snprintf(why, whylen, "collect[]: an empty object name");
        return -1;
    }
    if (len > 200) {
        snprintf(why, whylen, "collect[]: an object name longer than 200 bytes");
        return -1;
    }
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)value[i] < 0x20 || value[i] == 0x7F) {
            snprintf(why, whylen, "collect[]: a control character in an object name");
            return -1;
        }
    uint32_t idx = 0;
    if (strspn(value, "0123456789") == len) {
        unsigned long long v = len <= 10 ? strtoull(value, NULL, 10) : 0;
        if (v == 0 || v > 0xFFFFFFFFull) {
            snprintf(why, whylen, "collect[]: object index \"%s\" is out of range", value);
            return -1;
        }
        idx = (uint32_t)v;
        if (find && !find(ctx, value)) idx = 0;
    } else if (find) {
        idx = find(ctx, value);
    }
    if (!idx) {
        snprintf(why, whylen, "collect[]: no object \"%s\" in this machine's titles (an English name or an index)",
                 value);
        return -1;
    }
    *index = idx;
    return 0;
}

int pm_top_parse(const char *value, uint32_t *n, char *why, size_t whylen)
{
    *n = 0;
    if (strcmp(value, "off") == 0) return 0;
    size_t len = strlen(value);
    if (len == 0 || len > 5 || strspn(value, "0123456789") != len || strtoul(value, NULL, 10) > PM_TOP_MAX) {
        snprintf(why, whylen, "metrics_process_top: \"%.40s\" is not off or a number of processes from 0 to %d",
                 value, PM_TOP_MAX);
        return -1;
    }
    *n = (uint32_t)strtoul(value, NULL, 10);
    return 0;
}

int pm_top_by_parse(const char *value, uint32_t *index, char *why, size_t whylen)
{
    *index = 0;
    static const struct {
        const char *word;
        uint32_t index;
    } alias[] = {{"cpu", PL_CTR_PCT_PROCESSOR_TIME}, {"memory", PL_CTR_WORKING_SET}, {"io", PL_CTR_IO_DATA_BYTES_PER_SEC}};
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (strcmp(value, alias[i].word) == 0) {
            *index = alias[i].index;
            return 0;
        }
    size_t len = strlen(value);
    int bad = len == 0 || len > 200;
    for (size_t i = 0; i < len && !bad; i++) bad = (unsigned char)value[i] < 0x20 || value[i] == 0x7F;
    if (bad) {
        snprintf(why, whylen, "metrics_process_top_by: cpu, memory, io, or a Process counter's name or index (%zu bytes given)",
                 len);
        return -1;
    }
    if (strspn(value, "0123456789") == len) {
        unsigned long long v = len <= 10 ? strtoull(value, NULL, 10) : 0;
        if (v == 0 || v > 0xFFFFFFFFull) {
            snprintf(why, whylen, "metrics_process_top_by: counter index \"%.20s\" is out of range", value);
            return -1;
        }
        *index = (uint32_t)v;
    }
    return 0;
}
