/* libFuzzer target for typeperf's -cf counter file (tools/typeperf/
 * counterfile.c) and what typeperf does with each line next: parse it as a
 * counter path. Every path returned lies inside the buffer, is non-empty
 * and has no line break and no blank at either end. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "counterfile.h"
#include "perflib/pdh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    const char **paths = NULL;
    size_t n = 0;
    if (tp_counter_file_split(buf, &paths, &n) == 0) {
        for (size_t i = 0; i < n; i++) {
            const char *p = paths[i];
            size_t l = strlen(p);
            if (p < buf || p + l > buf + size || l == 0) abort();
            if (strchr(p, '\n') || p[0] == ' ' || p[0] == '\t' || p[l - 1] == ' ' || p[l - 1] == '\t' ||
                p[l - 1] == '\r')
                abort();
            pl_pdh_path_elements *e = NULL;
            pl_error err;
            if (pl_pdh_parse_path_alloc(p, &e, &err) == PL_PDH_CSTATUS_VALID_DATA && (!e || !e->counter)) abort();
            pl_free(e);
        }
    }
    free(paths);
    free(buf);
    return 0;
}
