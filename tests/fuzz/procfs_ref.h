/* The /proc/vmstat, /proc/meminfo and /proc/net/snmp{,6} parsers as they
 * were before they were made faster (issue 17), kept unchanged as the
 * reference the differential fuzz target fuzz_procfs_diff compares the
 * library's parsers with: same status, same values, same bad counts. */
#ifndef PL_FUZZ_PROCFS_REF_H
#define PL_FUZZ_PROCFS_REF_H

#include <stddef.h>
#include <stdint.h>

#include "linux/collect_os.h"

struct ref_snmp_entry {
    char proto[16];
    char name[48];
    int64_t value;
};

struct ref_snmp {
    size_t n, cap;
    struct ref_snmp_entry *e;
    size_t bad;
};

int ref_parse_proc_vmstat(const char *text, struct pl__vmstat *out);
int ref_parse_proc_meminfo(const char *text, struct pl__meminfo *out);
int ref_parse_net_snmp(const char *text, struct ref_snmp *out);
int ref_parse_net_snmp6(const char *text, struct ref_snmp *out);
int ref_snmp_get(const struct ref_snmp *s, const char *proto, const char *name, int64_t *v);
void ref_snmp_free(struct ref_snmp *s);

#endif
