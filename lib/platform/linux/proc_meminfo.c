/* perflib: /proc/meminfo ("Key:   number kB" lines), converted to bytes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect_os.h"
#include "platform.h"

static const char *const mem_keys[PL__MEM_NFIELDS] = {
    [PL__MEM_TOTAL] = "MemTotal",
    [PL__MEM_FREE] = "MemFree",
    [PL__MEM_AVAILABLE] = "MemAvailable",
    [PL__MEM_BUFFERS] = "Buffers",
    [PL__MEM_CACHED] = "Cached",
    [PL__MEM_SWAP_CACHED] = "SwapCached",
    [PL__MEM_ACTIVE] = "Active",
    [PL__MEM_INACTIVE] = "Inactive",
    [PL__MEM_SWAP_TOTAL] = "SwapTotal",
    [PL__MEM_SWAP_FREE] = "SwapFree",
    [PL__MEM_DIRTY] = "Dirty",
    [PL__MEM_WRITEBACK] = "Writeback",
    [PL__MEM_ANON_PAGES] = "AnonPages",
    [PL__MEM_MAPPED] = "Mapped",
    [PL__MEM_SHMEM] = "Shmem",
    [PL__MEM_SLAB] = "Slab",
    [PL__MEM_SRECLAIMABLE] = "SReclaimable",
    [PL__MEM_SUNRECLAIM] = "SUnreclaim",
    [PL__MEM_KERNEL_STACK] = "KernelStack",
    [PL__MEM_PAGE_TABLES] = "PageTables",
    [PL__MEM_COMMIT_LIMIT] = "CommitLimit",
    [PL__MEM_COMMITTED_AS] = "Committed_AS",
    [PL__MEM_HUGE_TOTAL] = "HugePages_Total",
    [PL__MEM_HUGE_FREE] = "HugePages_Free",
    [PL__MEM_HUGE_PAGE_SIZE] = "Hugepagesize",
    [PL__MEM_ACTIVE_FILE] = "Active(file)",
    [PL__MEM_INACTIVE_FILE] = "Inactive(file)",
};

int pl__parse_proc_meminfo(const char *text, struct pl__meminfo *out)
{
    memset(out, 0, sizeof *out);
    const char *s = text;
    while (*s) {
        const char *colon = s;
        while (*colon && *colon != ':' && *colon != '\n') colon++;
        if (*colon != ':' || colon == s) return -EINVAL;
        size_t kl = (size_t)(colon - s);
        const char *r = colon + 1;
        uint64_t v = 0;
        int ok = pl__parse_u64(&r, &v);
        while (ok && (*r == ' ' || *r == '\t')) r++;
        if (ok && r[0] == 'k' && r[1] == 'B') {
            if (v > UINT64_MAX / 1024) ok = 0; /* never a saturated number */
            else v *= 1024;
            r += 2;
        }
        while (ok && (*r == ' ' || *r == '\t')) r++;
        if (ok && *r != '\n' && *r != '\0') ok = 0;
        for (int f = 0; f < PL__MEM_NFIELDS; f++) {
            if (strlen(mem_keys[f]) != kl || memcmp(mem_keys[f], s, kl) != 0) continue;
            if (((out->have | out->bad) >> f) & 1u) return -EINVAL; /* a key twice */
            if (ok) {
                out->v[f] = v;
                out->have |= (uint64_t)1 << f;
            } else {
                out->bad |= (uint64_t)1 << f;
            }
            break;
        }
        pl__skip_line(&s);
    }
    if (!pl__mem_has(out, PL__MEM_TOTAL)) return -EINVAL;
    return 0;
}

int pl__read_proc_meminfo(int rootfd, struct pl__meminfo *out)
{
    char buf[16384];
    ssize_t n = pl__read_at(rootfd, "proc/meminfo", buf, sizeof buf);
    if (n < 0) return (int)n;
    if ((size_t)n >= sizeof buf - 1) return -EINVAL; /* larger than any real meminfo */
    return pl__text_complete(buf, (size_t)n) ? pl__parse_proc_meminfo(buf, out) : -EINVAL;
}
