/* perfd: what the page's Add Counters dialog lists (docs/web.md).
 *
 *   GET /v1/browse/objects[?machine=M]
 *     {"version":1,"machine":"NAME","objects":[{"name":..,"explain":..}, ...]}
 *     the objects of a Global snapshot, sorted by name;
 *   GET /v1/browse/object?object=NAME[&machine=M]
 *     {"version":1,"machine":..,"object":..,"explain":..,"has_instances":bool,
 *      "counters":[{"name":..,"explain":..,"type":"PERF_..."}],"instances":["parent/name#k", ...]}
 *     its counters in definition order (bases left out) and current instances
 *     in the form PDH paths take.
 *
 * Both read the collector's shared snapshots (perfd_snapshot), so a browse
 * never runs a collection of its own on the server thread. machine=M asks the
 * engine's "Foreign M ..." query (perfd on another machine) and uses this
 * machine's title database for names, as PDH does for a remote path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfd.h"
#include "perflib/block.h"
#include "perflib/indices.h"
#include "perflib/registry.h"
#include "perflib/winperf.h"
#include "webbuf.h"

#define BROWSE_MAX_NAME 256

/* A machine name as the Foreign query takes it: host, host:port, [v6]:port. */
static int good_machine(const char *m)
{
    size_t n = strlen(m);
    if (n == 0 || n > 255) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = m[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
              c == '_' || c == ':' || c == '[' || c == ']'))
            return 0;
    }
    return 1;
}

static int good_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > BROWSE_MAX_NAME) return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7F) return 0;
    return 1;
}

/* "Foreign M " when a machine is asked for, else "". -1 after replying. */
static int machine_prefix(perfd_req *r, char *out, size_t cap, int *rc)
{
    const char *m = perfd_arg(r, "machine");
    out[0] = 0;
    if (m && *m == '\\') m += (m[1] == '\\') ? 2 : 1;
    if (!m || !*m) return 0;
    if (!good_machine(m)) {
        *rc = perfd_reply_error(r, MHD_HTTP_BAD_REQUEST, "machine: expected host, host:port or [v6]:port");
        return -1;
    }
    snprintf(out, cap, "Foreign %s ", m);
    return 0;
}

static int reply_json(perfd_req *r, wb *b)
{
    if (b->failed) {
        wb_free(b);
        return perfd_reply_error(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    }
    char *p = b->p;
    size_t n = b->len;
    b->p = NULL;
    return perfd_reply_owned(r, MHD_HTTP_OK, "application/json", p, n);
}

static int open_snap(perfd_req *r, const perfd_snap *s, pl_block *blk, const pl_titles **t, int *rc)
{
    pl_error err = {0};
    if (s->status != PL_OK) {
        *rc = perfd_reply_snap_error(r, s);
        return -1;
    }
    if (pl_block_open(blk, s->data, s->len, 0, 0, &err) != PL_OK) {
        *rc = perfd_reply_error(r, MHD_HTTP_BAD_GATEWAY, err.msg);
        return -1;
    }
    *t = pl_engine_titles(perfd_engine(), &err);
    if (!*t) {
        *rc = perfd_reply_error(r, MHD_HTTP_INTERNAL_SERVER_ERROR, err.msg);
        return -1;
    }
    return 0;
}

static const char *title(const pl_titles *t, int kind, uint32_t index)
{
    const char *s = index ? pl_titles_get(t, kind, index) : NULL;
    return s ? s : "";
}

typedef struct obj_entry {
    const char *name, *explain;
} obj_entry;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const obj_entry *)a)->name, ((const obj_entry *)b)->name);
}

static int h_objects(perfd_req *r)
{
    char pre[300];
    int rc = PERFD_DONE;
    if (machine_prefix(r, pre, sizeof pre, &rc) != 0) return rc;
    char q[320];
    snprintf(q, sizeof q, "%sGlobal", pre);
    perfd_snap *s = perfd_snapshot(r, q);
    if (!s) return PERFD_WAIT;
    pl_block blk;
    const pl_titles *t;
    if (open_snap(r, s, &blk, &t, &rc) != 0) return rc;
    obj_entry *list = calloc(blk.num_objects ? blk.num_objects : 1, sizeof *list);
    if (!list) return perfd_reply_error(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    size_t n = 0;
    pl_object o;
    for (int k = pl_block_object(&blk, 0, &o); k == PL_OK && n < blk.num_objects; k = pl_object_next(&o, &o)) {
        const char *name = title(t, PL_TITLE_NAME, o.hdr.ObjectNameTitleIndex);
        if (!*name) continue;  /* no name in this language: PDH cannot name it either */
        list[n].name = name;
        list[n].explain = title(t, PL_TITLE_HELP, o.hdr.ObjectHelpTitleIndex);
        n++;
    }
    qsort(list, n, sizeof *list, by_name);
    wb b = {0};
    wb_str(&b, "{\"version\":1,\"machine\":");
    wb_json(&b, blk.system_name);
    wb_str(&b, ",\"objects\":[");
    for (size_t i = 0; i < n; i++) {
        if (i && strcmp(list[i].name, list[i - 1].name) == 0) continue;
        wb_str(&b, i ? ",{\"name\":" : "{\"name\":");
        wb_json(&b, list[i].name);
        wb_str(&b, ",\"explain\":");
        wb_json(&b, list[i].explain);
        wb_str(&b, "}");
    }
    wb_str(&b, "]}\n");
    free(list);
    return reply_json(r, &b);
}

static int h_object(perfd_req *r)
{
    const char *name = perfd_arg(r, "object");
    if (!name || !good_name(name))
        return perfd_reply_error(r, MHD_HTTP_BAD_REQUEST, "object: a name of 1 to 256 printable characters");
    char pre[300];
    int rc = PERFD_DONE;
    if (machine_prefix(r, pre, sizeof pre, &rc) != 0) return rc;
    pl_error err = {0};
    const pl_titles *t = pl_engine_titles(perfd_engine(), &err);
    if (!t) return perfd_reply_error(r, MHD_HTTP_INTERNAL_SERVER_ERROR, err.msg);
    /* Every index carrying that name: the snapshot of them all, then the
     * object whose name matches. */
    uint32_t idx[16];
    size_t ni = pl_titles_find_all(t, PL_TITLE_NAME, name, idx, 16);
    if (ni > 16) ni = 16;
    if (ni == 0) return perfd_reply_error(r, MHD_HTTP_NOT_FOUND, "no object of that name");
    char q[600];
    size_t ql = (size_t)snprintf(q, sizeof q, "%s", pre);
    for (size_t i = 0; i < ni && ql < sizeof q - 12; i++) ql += (size_t)snprintf(q + ql, sizeof q - ql, "%s%u", i ? " " : "", idx[i]);
    perfd_snap *s = perfd_snapshot(r, q);
    if (!s) return PERFD_WAIT;
    pl_block blk;
    if (open_snap(r, s, &blk, &t, &rc) != 0) return rc;
    pl_object o;
    int found = 0;
    for (int k = pl_block_object(&blk, 0, &o); k == PL_OK; k = pl_object_next(&o, &o)) {
        if (strcmp(title(t, PL_TITLE_NAME, o.hdr.ObjectNameTitleIndex), name) == 0) {
            found = 1;
            break;
        }
    }
    if (!found) return perfd_reply_error(r, MHD_HTTP_NOT_FOUND, "that object is not in this machine's data now");
    wb b = {0};
    wb_str(&b, "{\"version\":1,\"machine\":");
    wb_json(&b, blk.system_name);
    wb_str(&b, ",\"object\":");
    wb_json(&b, name);
    wb_str(&b, ",\"explain\":");
    wb_json(&b, title(t, PL_TITLE_HELP, o.hdr.ObjectHelpTitleIndex));
    wb_printf(&b, ",\"has_instances\":%s,\"counters\":[", o.hdr.NumInstances != PERF_NO_INSTANCES ? "true" : "false");
    pl_counter c;
    int first = 1;
    for (int k = pl_object_counter(&o, 0, &c); k == PL_OK; k = pl_counter_next(&c, &c)) {
        if (pl_type_is_base(c.def.CounterType) || c.def.CounterNameTitleIndex == PL_CTR_UNAVAILABLE_COUNTERS) continue;
        const char *cn = title(t, PL_TITLE_NAME, c.def.CounterNameTitleIndex);
        if (!*cn) continue;
        wb_str(&b, first ? "{\"name\":" : ",{\"name\":");
        first = 0;
        wb_json(&b, cn);
        wb_str(&b, ",\"explain\":");
        wb_json(&b, title(t, PL_TITLE_HELP, c.def.CounterHelpTitleIndex));
        const char *tn = pl_type_name(c.def.CounterType);
        wb_str(&b, ",\"type\":");
        wb_json(&b, tn ? tn : "");
        wb_str(&b, "}");
    }
    wb_str(&b, "],\"instances\":[");
    char **names = NULL;
    if (o.hdr.NumInstances > 0 && pl_object_instance_names(&o, &names) != PL_OK) names = NULL;
    for (int i = 0; names && names[i]; i++) {
        if (i) wb_str(&b, ",");
        wb_json(&b, names[i]);
    }
    pl_free(names);
    wb_str(&b, "]}\n");
    return reply_json(r, &b);
}

PERFD_ROUTE(browse_objects, "GET", "/v1/browse/objects", 0, h_objects)
PERFD_ROUTE(browse_object, "GET", "/v1/browse/object", 0, h_object)
