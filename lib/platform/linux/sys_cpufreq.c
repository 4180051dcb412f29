/* perflib: a CPU's current and maximum frequency from cpufreq in /sys. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collect_sys.h"

int pl__read_cpufreq(int rootfd, uint32_t cpu, struct pl__cpufreq *out)
{
    memset(out, 0, sizeof *out);
    char rel[128];
    int l = snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%u/cpufreq/scaling_cur_freq", cpu);
    if (l < 0 || (size_t)l >= sizeof rel) return -EINVAL;
    int rc = pl__read_sys_u64(rootfd, rel, &out->cur_khz);
    if (rc == -ENOENT) {
        /* drivers without scaling_cur_freq; root-only on most kernels */
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%u/cpufreq/cpuinfo_cur_freq", cpu);
        rc = pl__read_sys_u64(rootfd, rel, &out->cur_khz);
    }
    out->have_cur = rc == 0;
    if (!out->have_cur) out->cur_khz = 0;
    snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%u/cpufreq/cpuinfo_max_freq", cpu);
    out->have_max = pl__read_sys_u64(rootfd, rel, &out->max_khz) == 0 && out->max_khz > 0;
    if (!out->have_max) out->max_khz = 0;
    return 0;
}
