/* libFuzzer target: the fast /proc/vmstat, /proc/meminfo, /proc/net/snmp
 * and /proc/net/snmp6 parsers must behave exactly as the reference copies
 * of their code before issue 17 (procfs_diff.c): no input may be accepted,
 * rejected or valued differently. The first byte, modulo 4, chooses the
 * parser (0 vmstat, 1 meminfo, 2 snmp, 3 snmp6); the rest is the text, as
 * an exact-size heap copy with its NUL. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "procfs_diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    char *t = malloc(size);
    if (!t) abort();
    memcpy(t, data + 1, size - 1);
    t[size - 1] = '\0';
    if (procfs_diff(data[0], t) != NULL) abort();
    free(t);
    return 0;
}
