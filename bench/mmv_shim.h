/* Debian's libpcp-mmv1-dev ships mmv_stats.h, which needs pmAtomValue,
 * pmUnits and a few PM_* constants from <pcp/pmapi.h>, a header of another
 * package (libpcp3-dev) that the MMV package does not pull in. When that
 * header is missing, these declarations stand in for it; their values are
 * PCP's ABI as documented in pmapi.h (PCP 6), little-endian bit fields. */
#ifndef BENCH_MMV_SHIM_H
#define BENCH_MMV_SHIM_H

#include <stdint.h>
#include <sys/types.h>

#define PM_TYPE_NOSUPPORT (-1)
#define PM_TYPE_32 0
#define PM_TYPE_U32 1
#define PM_TYPE_64 2
#define PM_TYPE_U64 3
#define PM_TYPE_FLOAT 4
#define PM_TYPE_DOUBLE 5
#define PM_TYPE_STRING 6
#define PM_SEM_COUNTER 1
#define PM_SEM_INSTANT 3
#define PM_SEM_DISCRETE 4
#define PM_INDOM_NULL 0xffffffffu
#define PM_IN_NULL (-1)
#define PM_LABEL_TYPE (0x1 << 0)
#define PM_COUNT_ONE 0

typedef struct pmUnits {
    unsigned int pad : 8;
    signed int scaleCount : 4;
    unsigned int scaleTime : 4;
    unsigned int scaleSpace : 4;
    signed int dimCount : 4;
    signed int dimTime : 4;
    signed int dimSpace : 4;
} pmUnits;

typedef union {
    int32_t l;
    uint32_t ul;
    int64_t ll;
    uint64_t ull;
    float f;
    double d;
    char *cp;
    void *vbp;
} pmAtomValue;

#endif
