/* perfd: GET /metrics — this machine's counters for Prometheus
 * (docs/perfd.md, "/metrics"). The exposition itself is metrics_text.c;
 * this file negotiates the format (Accept), takes the Global snapshot,
 * supplies the English names and Explain texts, and keeps the wrap state.
 *
 * Config keys:
 *   metrics_objects = default | all | NAME-or-INDEX[,NAME-or-INDEX...]
 *   metrics_total   = off | on      (export the _Total instances)  */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metrics_text.h"
#include "perfd.h"
#include "perflib/block.h"
#include "perflib/registry.h"

#define MAX_OBJECT_WORDS 256

static struct {
    int all;
    int include_total;
    char *words[MAX_OBJECT_WORDS];   /* names or indices as configured */
    size_t nwords;
    pm_state *state;
    pl_titles *en;                   /* English titles when the default language is another */
    int en_tried;
} M;

static int set_objects(const char *v, char *why, size_t whylen)
{
    for (size_t i = 0; i < M.nwords; i++) free(M.words[i]);
    M.nwords = 0;
    M.all = 0;
    while (*v == ' ' || *v == '\t') v++;
    if (strcasecmp(v, "default") == 0 || !*v) return 0;
    if (strcasecmp(v, "all") == 0) {
        M.all = 1;
        return 0;
    }
    const char *p = v;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        while (n && (*p == ' ' || *p == '\t')) { p++; n--; }
        while (n && (p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
        if (n == 0 || n > 200) {
            snprintf(why, whylen, "metrics_objects: an empty or overlong object name");
            return -1;
        }
        if (M.nwords == MAX_OBJECT_WORDS) {
            snprintf(why, whylen, "metrics_objects: more than %d objects", MAX_OBJECT_WORDS);
            return -1;
        }
        M.words[M.nwords] = strndup(p, n);
        if (!M.words[M.nwords]) {
            snprintf(why, whylen, "out of memory");
            return -1;
        }
        M.nwords++;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}
PERFD_CONFIG_KEY(metrics_objects, "metrics_objects", set_objects)

static int set_total(const char *v, char *why, size_t whylen)
{
    if (strcasecmp(v, "on") == 0 || strcasecmp(v, "yes") == 0 || strcmp(v, "1") == 0) M.include_total = 1;
    else if (strcasecmp(v, "off") == 0 || strcasecmp(v, "no") == 0 || strcmp(v, "0") == 0) M.include_total = 0;
    else {
        snprintf(why, whylen, "metrics_total must be on or off");
        return -1;
    }
    return 0;
}
PERFD_CONFIG_KEY(metrics_total, "metrics_total", set_total)

static const pl_titles *english(void)
{
    pl_engine *e = perfd_engine();
    const pl_titles *t = pl_engine_titles(e, NULL);
    if (t && strcmp(pl_titles_language(t), "009") == 0) return t;
    if (!M.en_tried) {
        M.en_tried = 1;
        if (pl_titles_load(pl_engine_store(e), "009", &M.en, NULL) != PL_OK) M.en = NULL;
    }
    return M.en ? M.en : t;
}

static const char *t_name(void *ctx, uint32_t i) { return ctx ? pl_titles_get(ctx, PL_TITLE_NAME, i) : NULL; }
static const char *t_help(void *ctx, uint32_t i) { return ctx ? pl_titles_get(ctx, PL_TITLE_HELP, i) : NULL; }

/* The q-value of `type` in an Accept header (0 when absent; "*" ranges count
 * for text/plain only, the default). */
static double accept_q(const char *accept, const char *type, int wildcard)
{
    double best = 0;
    const char *p = accept;
    while (p && *p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        while (n && (*p == ' ' || *p == '\t')) { p++; n--; }
        size_t tl = 0;
        while (tl < n && p[tl] != ';' && p[tl] != ' ') tl++;
        int match = (tl == strlen(type) && strncasecmp(p, type, tl) == 0) ||
                    (wildcard && ((tl == 3 && strncmp(p, "*/*", 3) == 0) || (tl == 6 && strncasecmp(p, "text/*", 6) == 0)));
        if (match) {
            double q = 1;
            for (size_t i = tl; i + 2 < n; i++)
                if ((p[i] == ';' || p[i] == ' ') && p[i + 1] == 'q' && p[i + 2] == '=') {
                    q = 0;
                    size_t j = i + 3;
                    double scale = 0;
                    for (; j < n && ((p[j] >= '0' && p[j] <= '9') || p[j] == '.'); j++) {
                        if (p[j] == '.') scale = 0.1;
                        else if (scale > 0) { q += (p[j] - '0') * scale; scale /= 10; }
                        else q = q * 10 + (p[j] - '0');
                    }
                    break;
                }
            if (q > best) best = q;
        }
        if (!e) break;
        p = e + 1;
    }
    return best;
}

static int metrics(perfd_req *r)
{
    /* The objects listed in metrics_objects are collected alone ("230 232");
     * default and all take the Global snapshot. */
    const pl_titles *t = english();
    uint32_t idx[MAX_OBJECT_WORDS];
    size_t n = 0;
    char q[MAX_OBJECT_WORDS * 11 + 1];
    size_t qw = 0;
    q[0] = '\0';
    for (size_t i = 0; i < M.nwords; i++) {
        const char *w = M.words[i];
        char *end = NULL;
        unsigned long v = strtoul(w, &end, 10);
        uint32_t found = (end && *end == '\0' && v > 0 && v <= 0xFFFFFFFFul) ? (uint32_t)v : 0;
        if (!found && t) found = pl_titles_find(t, PL_TITLE_NAME, w);
        if (!found) continue;
        idx[n++] = found;
        qw += (size_t)snprintf(q + qw, sizeof q - qw, qw ? " %u" : "%u", (unsigned)found);
    }
    if (M.nwords && n == 0) { /* nothing configured exists: an empty exposition */
        const char *accept = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Accept");
        int om = accept && accept_q(accept, "application/openmetrics-text", 0) > 0 &&
                 accept_q(accept, "application/openmetrics-text", 0) >= accept_q(accept, "text/plain", 1);
        return perfd_reply_bytes(r, 200,
                                 om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                    : "text/plain; version=0.0.4; charset=utf-8",
                                 om ? "# EOF\n" : "", om ? 6 : 0);
    }
    perfd_snap *s = perfd_snapshot(r, n ? q : "Global");
    if (!s) return PERFD_WAIT;
    if (s->status != PL_OK) return perfd_reply_snap_error(r, s);
    pl_block blk;
    pl_error err;
    if (pl_block_open(&blk, s->data, s->len, 0, 0, &err) != PL_OK) return perfd_reply_error(r, 500, err.msg);
    const char *accept = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Accept");
    double q_om = accept ? accept_q(accept, "application/openmetrics-text", 0) : 0;
    double q_text = accept ? accept_q(accept, "text/plain", 1) : 1;
    pm_options opt = {.openmetrics = q_om > 0 && q_om >= q_text, .include_total = M.include_total, .all = M.all};
    pm_names names = {.name = t_name, .help = t_help, .ctx = (void *)t};
    opt.objects = idx;
    opt.nobjects = n;
    if (!M.state && !(M.state = pm_state_new())) return perfd_reply_error(r, 500, "out of memory");
    char *text = NULL;
    size_t len = 0;
    if (pm_render(&blk, s->seq, &names, &opt, M.state, &text, &len) != 0)
        return perfd_reply_error(r, 500, "out of memory");
    if (!text) return perfd_reply_error(r, 500, "out of memory");
    return perfd_reply_owned(r, 200,
                             opt.openmetrics ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                             : "text/plain; version=0.0.4; charset=utf-8",
                             text, len);
}
PERFD_ROUTE(metrics, "GET", "/metrics", 0, metrics)
