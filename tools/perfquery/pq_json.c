/* perfquery's JSON dump of a snapshot, shared with perfd's /v1/json (the
 * schema is in docs/perfquery.md). Only the public API. */
#include <stdlib.h>
#include <string.h>

#include "pq_json.h"
#include "pq_text.h"

const char *pq_title(const pl_titles *t, uint32_t index)
{
    return t ? pl_titles_get(t, PL_TITLE_NAME, index) : NULL;
}

/* A text counter's value as a newly allocated string, or NULL. */
char *pq_counter_text(const pl_counter *c, const pl_instance *inst)
{
    size_t cap = (size_t)c->def.CounterSize * 2u + 16u;
    for (int round = 0; round < 4; round++) {
        char *s = malloc(cap);
        if (!s) return NULL;
        int rc = pl_counter_text(c, inst, s, cap);
        if (rc == PL_OK) return s;
        free(s);
        if (rc != PL_E_MORE_DATA) return NULL;
        cap *= 2u;
    }
    return NULL;
}

int pq_is_text_type(uint32_t type)
{
    return (type & PERF_SIZE_MASK) == PERF_SIZE_VARIABLE_LEN && (type & PERF_TYPE_MASK) == PERF_TYPE_TEXT;
}

static void json_values(FILE *f, const pl_object *obj, const pl_instance *inst, const char *indent)
{
    fputs("[", f);
    int first = 1;
    pl_counter c; /* walked with pl_counter_next: linear */
    for (uint32_t pos = 0; pos < obj->hdr.NumCounters; pos++) {
        if ((pos ? pl_counter_next(&c, &c) : pl_object_counter(obj, 0, &c)) != PL_OK) break;
        fprintf(f, "%s\n%s  ", first ? "" : ",", indent);
        first = 0;
        if (!pl_counter_available(&c, inst)) {
            /* marked unreadable by the provider */
            fprintf(f, "{\"%s\": null%s, \"available\": false}", pq_is_text_type(c.def.CounterType) ? "text" : "value",
                    c.has_base ? ", \"base\": null" : "");
        } else if (pq_is_text_type(c.def.CounterType)) {
            char *s = pq_counter_text(&c, inst);
            fputs("{\"text\": ", f);
            pq_json_string(f, s);
            fputs("}", f);
            free(s);
        } else {
            uint64_t v;
            if (pl_counter_value(&c, inst, &v) == PL_OK)
                fprintf(f, "{\"value\": %llu", (unsigned long long)v);
            else
                fputs("{\"value\": null", f);
            if (c.has_base) {
                uint64_t b;
                if (pl_counter_base(&c, inst, &b) == PL_OK)
                    fprintf(f, ", \"base\": %llu", (unsigned long long)b);
                else
                    fputs(", \"base\": null", f);
            }
            fputs("}", f);
        }
        if (c.has_base && (++pos, pl_counter_next(&c, &c) != PL_OK)) break; /* past the base */
    }
    if (first)
        fputs("]", f);
    else
        fprintf(f, "\n%s]", indent);
}

static void json_counter_def(FILE *f, const PERF_COUNTER_DEFINITION *d, const pl_titles *t)
{
    fprintf(f, "\"index\": %u, \"name\": ", (unsigned)d->CounterNameTitleIndex);
    pq_json_string(f, pq_title(t, d->CounterNameTitleIndex));
    fprintf(f, ", \"help_index\": %u, \"type\": %u, \"type_name\": ", (unsigned)d->CounterHelpTitleIndex,
            (unsigned)d->CounterType);
    pq_json_string(f, pl_type_name(d->CounterType));
    fprintf(f, ", \"size\": %u, \"offset\": %u, \"detail_level\": %u, \"default_scale\": %d",
            (unsigned)d->CounterSize, (unsigned)d->CounterOffset, (unsigned)d->DetailLevel, (int)d->DefaultScale);
}

void pq_json_dump(FILE *f, const pl_block *blk, const pq_header_view *hv, const pl_titles *t, const char *schema)
{
    fputs("{\n", f);
    if (schema) {
        fputs("  \"schema\": ", f);
        pq_json_string(f, schema);
        fputs(",\n", f);
    }
    fputs("  \"system_name\": ", f);
    pq_json_string(f, hv->system_name);
    fprintf(f, ",\n  \"system_time\": \"%04u-%02u-%02uT%02u:%02u:%02u.%03uZ\",\n", hv->time.year, hv->time.month,
            hv->time.day, hv->time.hour, hv->time.minute, hv->time.second, hv->time.millis);
    fprintf(f, "  \"perf_time\": %lld,\n  \"perf_freq\": %lld,\n  \"perf_time_100ns\": %lld,\n  \"num_objects\": %u,\n",
            (long long)hv->perf_time, (long long)hv->perf_freq, (long long)hv->perf_time_100ns,
            (unsigned)hv->num_objects);
    fputs("  \"objects\": [", f);
    for (uint32_t i = 0; i < blk->num_objects; i++) {
        pl_object obj;
        if (pl_block_object(blk, i, &obj) != PL_OK) break;
        fprintf(f, "%s\n    {\n      \"index\": %u,\n      \"name\": ", i ? "," : "",
                (unsigned)obj.hdr.ObjectNameTitleIndex);
        pq_json_string(f, pq_title(t, obj.hdr.ObjectNameTitleIndex));
        fprintf(f,
                ",\n      \"help_index\": %u,\n      \"detail_level\": %u,\n      \"num_counters\": %u,\n"
                "      \"default_counter\": %d,\n      \"num_instances\": %d,\n      \"perf_time\": %lld,\n"
                "      \"perf_freq\": %lld,\n      \"counters\": [",
                (unsigned)obj.hdr.ObjectHelpTitleIndex, (unsigned)obj.hdr.DetailLevel, (unsigned)obj.hdr.NumCounters,
                (int)obj.hdr.DefaultCounter, (int)obj.hdr.NumInstances, (long long)obj.hdr.PerfTime.QuadPart,
                (long long)obj.hdr.PerfFreq.QuadPart);
        int first = 1;
        pl_counter c; /* walked with pl_counter_next: linear */
        for (uint32_t pos = 0; pos < obj.hdr.NumCounters; pos++) {
            if ((pos ? pl_counter_next(&c, &c) : pl_object_counter(&obj, 0, &c)) != PL_OK) break;
            fprintf(f, "%s\n        {", first ? "" : ",");
            first = 0;
            json_counter_def(f, &c.def, t);
            if (c.has_base) {
                fprintf(f, ", \"base\": {\"index\": %u, \"type\": %u, \"type_name\": ",
                        (unsigned)c.base.CounterNameTitleIndex, (unsigned)c.base.CounterType);
                pq_json_string(f, pl_type_name(c.base.CounterType));
                fprintf(f, ", \"size\": %u, \"offset\": %u}", (unsigned)c.base.CounterSize,
                        (unsigned)c.base.CounterOffset);
            }
            fputs("}", f);
            if (c.has_base && (++pos, pl_counter_next(&c, &c) != PL_OK)) break; /* past the base */
        }
        fprintf(f, "%s],\n", first ? "" : "\n      ");
        if (obj.hdr.NumInstances == PERF_NO_INSTANCES) {
            pl_instance inst;
            fputs("      \"instances\": null,\n      \"values\": ", f);
            if (pl_object_instance(&obj, -1, &inst) == PL_OK)
                json_values(f, &obj, &inst, "      ");
            else
                fputs("null", f);
            fputs("\n    }", f);
            continue;
        }
        uint32_t n = pl_object_num_instances(&obj);
        char **names = NULL;
        if (n > 0 && pl_object_instance_names(&obj, &names) != PL_OK) names = NULL;
        fputs("      \"instances\": [", f);
        pl_instance inst; /* walked with pl_instance_next: linear, not quadratic */
        for (uint32_t k = 0; k < n; k++) {
            if ((k ? pl_instance_next(&inst, &inst) : pl_object_instance(&obj, 0, &inst)) != PL_OK) break;
            char *own = NULL;
            char buf[512];
            if (pl_instance_name(&inst, buf, sizeof buf) == PL_OK) own = buf;
            fprintf(f, "%s\n        {\n          \"name\": ", k ? "," : "");
            pq_json_string(f, names ? names[k] : NULL);
            fputs(",\n          \"own_name\": ", f);
            pq_json_string(f, own);
            fprintf(f,
                    ",\n          \"parent_index\": %u,\n          \"parent_instance\": %u,\n"
                    "          \"unique_id\": %d,\n          \"values\": ",
                    (unsigned)inst.def.ParentObjectTitleIndex, (unsigned)inst.def.ParentObjectInstance,
                    (int)inst.def.UniqueID);
            json_values(f, &obj, &inst, "          ");
            fputs("\n        }", f);
        }
        fprintf(f, "%s]\n    }", n ? "\n      " : "");
        pl_free(names);
    }
    fprintf(f, "%s]\n}\n", blk->num_objects ? "\n  " : "");
}
