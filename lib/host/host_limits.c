/* perflib: the limits of a provider's helper process (host_limits.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "helper_proto.h"
#include "host_limits.h"

static uint32_t env_u32(const char *name, uint32_t lo, uint32_t hi, uint32_t dflt)
{
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    char *e;
    errno = 0;
    unsigned long x = strtoul(v, &e, 10);
    if (errno || *e || v[0] == '-' || x < lo || x > hi) return dflt;
    return (uint32_t)x;
}

void pl__limits_get(pl__limits *l)
{
    l->memory_mb = env_u32("PERFLIB_HELPER_MEMORY_MB", 16, 1048576, PL__HELPER_MEMORY_MB);
    l->files = env_u32("PERFLIB_HELPER_FILES", 16, 65536, PL__HELPER_FILES);
    l->cpu_s = env_u32("PERFLIB_HELPER_CPU_SECONDS", 1, 86400, 0);
}

static uint32_t seconds(uint32_t ms) { return ms / 1000 + (ms % 1000 ? 1 : 0) + (ms == 0); }

void pl__limits_arg(const pl__limits *l, uint32_t open_ms, uint32_t collect_ms, char *out, size_t cap)
{
    snprintf(out, cap, "%s%u,%u,%u,%u", PLH_LIMITS_ARG, l->memory_mb, l->files, l->cpu_s ? l->cpu_s : seconds(open_ms),
             l->cpu_s ? l->cpu_s : seconds(collect_ms));
}
