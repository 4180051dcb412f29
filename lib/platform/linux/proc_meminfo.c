/* perflib: /proc/meminfo ("Key:   number kB" lines), converted to bytes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect_os.h"
#include "platform.h"
#include "scan.h"

static const struct pl__key mem_keys[PL__MEM_NFIELDS] = {
    [PL__MEM_TOTAL] = PL__KEY("MemTotal"),
    [PL__MEM_FREE] = PL__KEY("MemFree"),
    [PL__MEM_AVAILABLE] = PL__KEY("MemAvailable"),
    [PL__MEM_BUFFERS] = PL__KEY("Buffers"),
    [PL__MEM_CACHED] = PL__KEY("Cached"),
    [PL__MEM_SWAP_CACHED] = PL__KEY("SwapCached"),
    [PL__MEM_ACTIVE] = PL__KEY("Active"),
    [PL__MEM_INACTIVE] = PL__KEY("Inactive"),
    [PL__MEM_SWAP_TOTAL] = PL__KEY("SwapTotal"),
    [PL__MEM_SWAP_FREE] = PL__KEY("SwapFree"),
    [PL__MEM_DIRTY] = PL__KEY("Dirty"),
    [PL__MEM_WRITEBACK] = PL__KEY("Writeback"),
    [PL__MEM_ANON_PAGES] = PL__KEY("AnonPages"),
    [PL__MEM_MAPPED] = PL__KEY("Mapped"),
    [PL__MEM_SHMEM] = PL__KEY("Shmem"),
    [PL__MEM_SLAB] = PL__KEY("Slab"),
    [PL__MEM_SRECLAIMABLE] = PL__KEY("SReclaimable"),
    [PL__MEM_SUNRECLAIM] = PL__KEY("SUnreclaim"),
    [PL__MEM_KERNEL_STACK] = PL__KEY("KernelStack"),
    [PL__MEM_PAGE_TABLES] = PL__KEY("PageTables"),
    [PL__MEM_COMMIT_LIMIT] = PL__KEY("CommitLimit"),
    [PL__MEM_COMMITTED_AS] = PL__KEY("Committed_AS"),
    [PL__MEM_HUGE_TOTAL] = PL__KEY("HugePages_Total"),
    [PL__MEM_HUGE_FREE] = PL__KEY("HugePages_Free"),
    [PL__MEM_HUGE_PAGE_SIZE] = PL__KEY("Hugepagesize"),
    [PL__MEM_ACTIVE_FILE] = PL__KEY("Active(file)"),
    [PL__MEM_INACTIVE_FILE] = PL__KEY("Inactive(file)"),
};

int pl__parse_proc_meminfo(const char *text, struct pl__meminfo *out)
{
    memset(out, 0, sizeof *out);
    struct pl__keyset ks;
    pl__keyset_init(&ks, mem_keys, PL__MEM_NFIELDS);
    const char *s = text;
    while (*s) {
        const char *colon = s;
        /* bytes above ':' (letters, '_', '(') are key bytes: one test */
        while ((unsigned char)*colon > ':' || (*colon && *colon != ':' && *colon != '\n')) colon++;
        if (*colon != ':' || colon == s) return -EINVAL;
        const char *r = colon + 1;
        uint64_t v = 0;
        int ok = pl__scan_u64(&r, &v);
        while (ok && (*r == ' ' || *r == '\t')) r++;
        if (ok && r[0] == 'k' && r[1] == 'B') {
            if (v > UINT64_MAX / 1024) ok = 0; /* never a saturated number */
            else v *= 1024;
            r += 2;
        }
        while (ok && (*r == ' ' || *r == '\t')) r++;
        if (ok && *r != '\n' && *r != '\0') ok = 0;
        int f = pl__keyset_find(&ks, s, (size_t)(colon - s));
        if (f >= 0) {
            if (((out->have | out->bad) >> f) & 1u) return -EINVAL; /* a key twice */
            if (ok) {
                out->v[f] = v;
                out->have |= (uint64_t)1 << f;
            } else {
                out->bad |= (uint64_t)1 << f;
            }
        }
        /* no newline between s and r: the line ends at r's newline (at r
         * itself when the value was well formed) */
        if (!ok) r = strchr(r, '\n');
        s = !r ? s + strlen(s) : *r ? r + 1 : r;
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
