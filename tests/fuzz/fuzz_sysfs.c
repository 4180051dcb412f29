/* libFuzzer target for the parsers of the perfos power, topology and
 * object collectors (lib/platform/linux/collect_sys.h, issue 11). The first
 * byte chooses the parser, the rest is the file's text:
 *   0: a one-number sysfs file (pl__parse_sys_u64): on success the text is
 *      exactly the number printed with one newline (after leading zeros);
 *   1: cpuidle state names, one per line (pl__cstate_level_by_name,
 *      pl__cstate_map): levels 0..3, POLL always 0, every other state 1..3;
 *   2: /proc/sysvipc/{sem,shm} (pl__parse_sysvipc_count): on success the
 *      count is the number of lines after the header;
 *   3: a NUMA node's cpulist (pl__parse_cpulist): on success the ranges
 *      ascend without overlap, listed CPUs are found and ranked by the
 *      number of listed CPUs before them;
 * Anything else is parser 0. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/collect_sys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void sys_u64(const char *s, size_t n)
{
    uint64_t v = 0;
    if (pl__parse_sys_u64(s, n, &v) != 0) return;
    /* leading zeros are accepted ("05" is 5); the rest is the number */
    while (n > 2 && s[0] == '0') {
        s++;
        n--;
    }
    char back[32];
    int l = snprintf(back, sizeof back, "%llu\n", (unsigned long long)v);
    if (l < 0 || (size_t)l != n || memcmp(back, s, n) != 0) abort();
}

static void cstates(const char *s, size_t n)
{
    char names[PL__CSTATE_MAX][PL__CSTATE_NAME_MAX];
    unsigned k = 0;
    size_t i = 0;
    while (i < n && k < PL__CSTATE_MAX) {
        size_t j = 0;
        while (i < n && s[i] != '\n') {
            if (j + 1 < PL__CSTATE_NAME_MAX) names[k][j++] = s[i];
            i++;
        }
        names[k][j] = '\0';
        i++;
        k++;
    }
    int level[PL__CSTATE_MAX];
    pl__cstate_map((const char(*)[PL__CSTATE_NAME_MAX])names, k, level);
    for (unsigned x = 0; x < k; x++) {
        int byname = pl__cstate_level_by_name(names[x]);
        if (byname < 0 || byname > 3 || level[x] < 0 || level[x] > 3) abort();
        if (strcmp(names[x], "POLL") == 0 && level[x] != 0) abort();
        if (strcmp(names[x], "POLL") != 0 && level[x] == 0) abort();
    }
}

static void sysvipc(const char *s, size_t n)
{
    uint64_t c = 0;
    if (pl__parse_sysvipc_count(s, n, &c) != 0) return;
    uint64_t lines = 0;
    for (size_t i = 0; i < n; i++) lines += s[i] == '\n';
    if (lines == 0 || c != lines - 1) abort();
}

static void cpulist(const char *s, size_t n)
{
    struct pl__cpulist l = {0};
    if (pl__parse_cpulist(s, n, &l) == 0) {
        uint32_t before = 0;
        for (uint32_t i = 0; i < l.n; i++) {
            if (l.r[i][0] > l.r[i][1] || (i > 0 && l.r[i][0] <= l.r[i - 1][1])) abort();
            /* the ends and one inside (bounded work per range) */
            uint32_t probe[3] = {l.r[i][0], l.r[i][0] + (l.r[i][1] - l.r[i][0]) / 2, l.r[i][1]};
            for (int k = 0; k < 3; k++) {
                if (!pl__cpulist_has(&l, probe[k])) abort();
                if (pl__cpulist_rank(&l, probe[k]) != before + (probe[k] - l.r[i][0])) abort();
            }
            if (l.r[i][0] > 0 && pl__cpulist_has(&l, l.r[i][0] - 1) && (i == 0 || l.r[i - 1][1] != l.r[i][0] - 1))
                abort();
            before += l.r[i][1] - l.r[i][0] + 1;
        }
    }
    pl__cpulist_free(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    size_t n = size - 1;
    char *s = malloc(n + 1);
    if (!s) return 0;
    memcpy(s, data + 1, n);
    s[n] = '\0';
    switch (data[0]) {
    case 1: cstates(s, n); break;
    case 2: sysvipc(s, n); break;
    case 3: cpulist(s, n); break;
    default: sys_u64(s, n); break;
    }
    free(s);
    return 0;
}
