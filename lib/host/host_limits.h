/* This file is private to libperflib: no API/ABI guarantee.
 *
 * The limits of an isolated provider's helper process (docs/provider-host.md,
 * "Limits"): memory, CPU time per call, open files. The host passes them on
 * the helper's command line (PLH_LIMITS_ARG in helper_proto.h); the helper
 * applies them before it loads the provider and exits with
 * PLH_EXIT_MEMORY / PLH_EXIT_FILES (or dies of SIGXCPU) when a call
 * crossed one, and the host disables the provider with the reason. */
#ifndef PL_HOST_LIMITS_H
#define PL_HOST_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#define PL__HELPER_MEMORY_MB 1024u  /* peak resident size */
#define PL__HELPER_FILES 256u       /* open descriptors */

typedef struct pl__limits {
    uint32_t memory_mb;
    uint32_t files;
    uint32_t cpu_s;             /* CPU seconds per call; 0: the call's timeout, rounded up */
} pl__limits;

/* The defaults, or $PERFLIB_HELPER_MEMORY_MB (16..1048576),
 * $PERFLIB_HELPER_FILES (16..65536), $PERFLIB_HELPER_CPU_SECONDS (1..86400)
 * when set to a number in range. */
void pl__limits_get(pl__limits *l);
/* The helper's argument: "--limits=MEM,FILES,OPEN_CPU,COLLECT_CPU". */
void pl__limits_arg(const pl__limits *l, uint32_t open_ms, uint32_t collect_ms, char *out, size_t cap);

#endif
