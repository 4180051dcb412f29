/* libFuzzer target for what perfd's /metrics is told to serve
 * (tools/perfd/metrics_select.c): the first byte picks the parser, the rest
 * (cut at its first NUL) is the value.
 *   even: a metrics_counters / metrics_exclude value (pm_paths_parse): a
 *         refusal says why and names the setting; an accepted list holds
 *         trimmed, non-empty paths without separators, each of which the
 *         PDH layer takes as a selection again;
 *   1 mod 4: a collect[] value (pm_collect_parse) against a fixed set of
 *         names: an accepted value gives a non-zero index, a refusal says
 *         why starting with "collect[]";
 *   3 mod 4: metrics_process_top and metrics_process_top_by (pm_top_parse,
 *         pm_top_by_parse): a number in range, or a refusal naming the
 *         setting. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics_select.h"
#include "perflib/pdh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t find(void *ctx, const char *name)
{
    (void)ctx;
    if (strcmp(name, "Memory") == 0) return 4;
    if (strcmp(name, "Process") == 0) return 230;
    char *end;
    unsigned long v = strtoul(name, &end, 10);
    return *name && !*end && v > 0 && v < 5000 ? (uint32_t)v : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    char *v = malloc(size);
    if (!v) return 0;
    memcpy(v, data + 1, size - 1);
    v[size - 1] = '\0';
    char why[400] = "";
    if (data[0] % 2 == 0) {
        char **paths = NULL;
        size_t n = 0;
        if (pm_paths_parse("metrics_counters", v, &paths, &n, why, sizeof why) == 0) {
            if (n > PM_PATHS_MAX) abort();
            pl_pdh_source none = {0};
            for (size_t i = 0; i < n; i++) {
                size_t l = strlen(paths[i]);
                if (l == 0 || l > PM_PATH_LEN_MAX || strpbrk(paths[i], ";\n") || paths[i][0] == ' ' ||
                    paths[i][l - 1] == ' ')
                    abort();
                pl_pdh_selection *s = NULL;
                if (pl_pdh_selection_new(&none, (const char *const *)paths, i + 1, NULL, 0, &s, NULL) !=
                    PL_PDH_CSTATUS_VALID_DATA)
                    abort();
                uint32_t objs[4];
                if (pl_pdh_selection_objects(s, objs, 4) != 0) abort(); /* no titles: no object */
                pl_pdh_selection_free(s);
            }
            free(paths);
        } else if (strncmp(why, "metrics_counters: ", 18) != 0) {
            abort();
        }
    } else if (data[0] % 4 == 3) {
        uint32_t n = 1, idx = 1;
        if (pm_top_parse(v, &n, why, sizeof why) == 0) {
            if (n > PM_TOP_MAX) abort();
        } else if (n != 0 || strncmp(why, "metrics_process_top: ", 21) != 0) {
            abort();
        }
        if (pm_top_by_parse(v, &idx, why, sizeof why) != 0 && strncmp(why, "metrics_process_top_by: ", 24) != 0)
            abort();
    } else {
        uint32_t idx = 1;
        if (pm_collect_parse(v, find, NULL, &idx, why, sizeof why) == 0) {
            if (idx == 0) abort();
        } else if (idx != 0 || strncmp(why, "collect[]: ", 11) != 0) {
            abort();
        }
    }
    free(v);
    return 0;
}
