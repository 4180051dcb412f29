/* libFuzzer target for the providers' failure-state files
 * (lib/host/host_state.c, pl__state_parse): the text of a file in the
 * state directory, at most the 1,024 bytes the host reads. Whatever it
 * holds, the parse gives the same state twice, a reason without control
 * characters, counts within their bounds, and a state that its own format
 * writes and parses back unchanged. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host_state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)              \
    do {                      \
        if (!(c)) abort();    \
    } while (0)

static void same(const pl__pstate *a, const pl__pstate *b)
{
    CHECK(a->timeouts == b->timeouts && a->hung == b->hung && a->disabled == b->disabled);
    CHECK(a->closefail == b->closefail && a->breaks == b->breaks);
    CHECK(!a->hung || a->hung_time == b->hung_time);
    CHECK(!a->disabled || (a->time == b->time && strcmp(a->reason, b->reason) == 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1024) return 0;
    char *t = malloc(size ? size : 1); /* exact size, no NUL: a read past it is an ASan error */
    if (!t) abort();
    if (size) memcpy(t, data, size);
    pl__pstate a, b;
    pl__state_parse(t, size, &a);
    pl__state_parse(t, size, &b);
    free(t);
    same(&a, &b);
    CHECK(memchr(a.reason, '\0', sizeof a.reason) != NULL);
    for (const char *c = a.reason; *c; c++) CHECK((unsigned char)*c >= 0x20 && *c != 0x7F);
    CHECK(a.timeouts <= PL__STATE_TIMEOUTS_MAX && a.hung <= PL__STATE_TIMEOUTS_MAX);
    CHECK(a.closefail <= PL__STATE_TIMEOUTS_MAX && a.breaks <= PL__STATE_TIMEOUTS_MAX);
    CHECK(a.time >= 0 && a.hung_time >= 0 && a.disabled == (a.time > 0));
    char buf[1024];
    int n = pl__state_format(&a, buf, sizeof buf);
    CHECK(n > 0);
    pl__state_parse(buf, (size_t)n, &b);
    same(&a, &b);
    return 0;
}
