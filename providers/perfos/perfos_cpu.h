/* perflib: PerfOS's processor objects, Processor (238) and Processor
 * Information (issue 11), built from one reading of the per-CPU sources
 * per collection (perfos_cpu.c). Private to the provider. */
#ifndef PERFOS_CPU_H
#define PERFOS_CPU_H

#include <stdint.h>

#include "linux/collect_os.h"
#include "linux/collect_sys.h"
#include "perflib/provider.h"

typedef struct pl__cstate_val pl__cstate_val;

typedef struct pl__perfos_cpu {
    int rootfd;
    long hz;                        /* USER_HZ */
    const struct pl__cpu_stats *st; /* this collection's /proc/stat */
    /* read once per collection, on first use */
    int ready;
    int have_irq, have_soft;
    struct pl__percpu_sums irq, soft;
    struct pl__cpuidle idle;        /* scratch */
    pl__cstate_val *cs;             /* ncpu */
    struct pl__cpufreq *fq;         /* ncpu */
    uint32_t *node, *nidx;          /* ncpu: NUMA node, index in the node */
    int nodes_ok;
    uint32_t cap;                   /* entries allocated in cs, fq, node, nidx */
    /* kept between collections (docs/providers/perfos.md, "CPU hotplug"):
     * each CPU's counts, continuous across hotplug: /proc/stat columns,
     * /proc/interrupts and /proc/softirqs sums, cpuidle times (at most the
     * idle time of each interval, the rest held back) and entries */
    struct pl__cpu_track t_stat, t_irq, t_soft, t_cs;
    uint32_t *ids;                  /* ncpu: this collection's online CPUs */
    uint64_t *scratch;              /* ncpu x PL__CPU_NFIELDS: a track's input */
    uint64_t *unread, *cap_idle;    /* ncpu */
    unsigned char *drop;            /* ncpu */
    /* kept between collections: each CPU's cpuidle states and levels (the
     * names are read once), dropped when cpuidle's driver changes */
    struct pl__cpuidle_map *maps;   /* per position in st->cpu, with its cpu */
    uint32_t maps_cap;
    char driver[64];                /* cpuidle/current_driver as last read */
    int driver_changed;             /* in this collection: every C-state difference dropped */
} pl__perfos_cpu;

/* Start a collection: the next build reads the sources again. */
void pl__perfos_cpu_reset(pl__perfos_cpu *c);
void pl__perfos_cpu_free(pl__perfos_cpu *c);
/* Add Processor (info = 0) or Processor Information (info = 1) to b.
 * PL_OK (also when the object is left out), PL_E_NOMEM or a builder error. */
int pl__perfos_build_cpu(pl_builder *b, pl__perfos_cpu *c, int info);

#endif
