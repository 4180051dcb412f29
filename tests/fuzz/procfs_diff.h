/* Differential check of the fast /proc parsers against their reference
 * (procfs_ref.h). */
#ifndef PL_FUZZ_PROCFS_DIFF_H
#define PL_FUZZ_PROCFS_DIFF_H

enum {
    PROCFS_DIFF_VMSTAT = 0,
    PROCFS_DIFF_MEMINFO,
    PROCFS_DIFF_SNMP,
    PROCFS_DIFF_SNMP6,
    PROCFS_DIFF_N
};

/* Parse `text` (NUL-terminated) with parser `which` % PROCFS_DIFF_N both
 * ways. NULL when both agree, else what differs. */
const char *procfs_diff(unsigned which, const char *text);

#endif
