/* libFuzzer target for the records of PerfProc's BPF pass
 * (providers/perfproc/perfproc_bpf_parse.c): the index, the CPU-time
 * conversion with its floors, and every leader turned into a slot and its
 * threads, as the provider does after each pass.
 *
 * Input: the bytes of a pass, in an exact-size 8-aligned heap copy (a read
 * past it is an ASan error); the first byte, if the length is not a
 * multiple of 8, is dropped so that most inputs have a length the index
 * accepts. Whatever the bytes: a pass is either refused (-EINVAL) or
 * indexed with every task owned by at most one leader, leaders in
 * ascending pid order and tasks ascending within each; the threads given to
 * the slots add up to the indexed ones; names are NUL-terminated; and the
 * floors kept by one pass never make the next pass of the same bytes go
 * backwards. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfproc_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static pp_bpf_index ix;
static pp_floors pf, tf;
static pp_arena arena;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20)) return 0;
    if (size % 8) {
        data++;
        size--;
    }
    uint8_t *buf = malloc(size ? size : 8);
    if (!buf) abort();
    memcpy(buf, data, size);
    pp_bpf_conv cv = {.hz = 100, .page_shift = 12, .boot_offset_ns = 0};
    /* a fresh state for every input: the floors only carry between the two
     * passes below */
    pl__pp_floors_free(&pf);
    pl__pp_floors_free(&tf);
    int rc = pl__pp_bpf_index(buf, size, &ix);
    if (rc != 0 && rc != -EINVAL && rc != -ENOMEM) abort();
    if (rc == 0) {
        if (ix.nthr + ix.orphans != ix.nall) abort();
        for (size_t j = 1; j < ix.nproc; j++)
            if (ix.proc[j]->pid <= ix.proc[j - 1]->pid) abort();
        if (pl__pp_bpf_times(&cv, &ix, &pf, &tf) != 0) abort();
        uint64_t first_u = ix.nproc ? ix.pt[0] : 0, first_s = ix.nproc ? ix.pt[1] : 0;
        size_t threads = 0;
        for (size_t j = 0; j < ix.nproc; j++) {
            pp_slot s;
            memset(&s, 0, sizeof s);
            arena.n = 0;
            if (pl__pp_bpf_slot(&cv, &ix, j, &s, &arena) != 0) abort();
            if (s.state != PP_OK || s.st.pid != ix.proc[j]->pid) abort();
            if (!memchr(s.st.comm, '\0', sizeof s.st.comm)) abort();
            if (s.nt != arena.n || s.t0 != 0) abort();
            for (size_t k = 1; k < s.nt; k++)
                if (arena.t[k].tid <= arena.t[k - 1].tid) abort();
            threads += s.nt;
        }
        if (threads != ix.nthr) abort();
        /* the same pass again: the floors kept by the first never lower a time */
        if (pl__pp_bpf_index(buf, size, &ix) != 0) abort();
        if (pl__pp_bpf_times(&cv, &ix, &pf, &tf) != 0) abort();
        if (ix.nproc && (ix.pt[0] + ix.pt[1] < first_u + first_s)) abort();
    }
    free(buf);
    return 0;
}
