/* libFuzzer target for perfd's /metrics (tools/perfd/metrics_text.c,
 * metrics_table.c) and the Accept-Encoding parser (gzip.c). The input is a
 * flags byte, a title (up to 255 bytes, its length first) and a block:
 *   - the title, which a provider's .ini installed, is every object's and
 *     counter's English name and Explain text, and goes through the table
 *     for every counter type: a name that comes out must be a valid metric
 *     name, the HELP one line;
 *   - the block, when it validates, is rendered in both formats (the
 *     exposition must end as it should and hold no NUL, and every
 *     OpenMetrics family with a UNIT must end with it);
 *   - the title is also an Accept-Encoding header. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics_text.h"
#include "perfd.h"
#include "perflib/block.h"
#include "perflib/winperf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char title[256];

static const char *name_of(void *ctx, uint32_t i)
{
    (void)ctx;
    return i % 3 == 1 ? NULL : title;
}

static int valid_name(const char *s)
{
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' || *s == ':')) return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == ':'))
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    uint8_t flags = data[0];
    size_t tl = data[1];
    if (size < 2 + tl) return 0;
    memcpy(title, data + 2, tl);
    title[tl] = '\0';
    const uint8_t *blk_data = data + 2 + tl;
    size_t blk_len = size - 2 - tl;

    (void)perfd_gzip_accepted(title);
    static const uint32_t types[] = {PERF_COUNTER_RAWCOUNT, PERF_COUNTER_LARGE_RAWCOUNT, PERF_COUNTER_BULK_COUNT,
                                     PERF_100NSEC_TIMER, PERF_AVERAGE_TIMER, PERF_AVERAGE_BULK, PERF_RAW_FRACTION,
                                     PERF_ELAPSED_TIME, PERF_PRECISION_100NS_TIMER, PERF_COUNTER_100NS_QUEUELEN_TYPE,
                                     PERF_COUNTER_TEXT, PERF_DOUBLE_RAW};
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        pm_metric m;
        pm_metric_of(5000 + (uint32_t)k, title, 6000 + (uint32_t)k * 2, types[k], title, title, &m);
        if (m.kind == PM_SKIP) continue;
        if (!valid_name(m.name) || m.unit_at > strlen(m.name)) abort();
    }
    pl_block blk;
    if (pl_block_open(&blk, blk_data, blk_len, 0, 0, NULL) != PL_OK) return 0;
    pm_names names = {name_of, name_of, NULL};
    pm_state *st = pm_state_new();
    for (int om = 0; om < 2; om++) {
        /* flags 4-7: the top processes (a Process object in the block is
         * ranked; the second pass renders the same snapshot again) */
        pm_options opt = {.openmetrics = om, .include_total = flags & 1, .all = (flags & 2) != 0,
                          .top_n = (flags >> 2) & 3, .top_by = flags & 32 ? 180 : 6};
        char *out = NULL;
        size_t len = 0;
        if (pm_render(&blk, 1, &names, &opt, st, &out, &len) == 0) {
            if (strlen(out) != len) abort();
            if (om && (len < 6 || strcmp(out + len - 6, "# EOF\n") != 0)) abort();
            if (len && out[len - 1] != '\n') abort();
            /* OpenMetrics: a family with a unit ends with it */
            for (const char *l = out; om && (l = strstr(l, "\n# UNIT ")) != NULL; l++) {
                const char *fam = l + 8, *sp = strchr(fam, ' '), *nl = sp ? strchr(sp, '\n') : NULL;
                if (!sp || !nl) abort();
                size_t fl = (size_t)(sp - fam), ul = (size_t)(nl - sp - 1);
                if (ul + 1 > fl || fam[fl - ul - 1] != '_' || memcmp(fam + fl - ul, sp + 1, ul) != 0) abort();
            }
            free(out);
        }
    }
    pm_state_free(st);
    return 0;
}
