/* A stand-in for perflib-provider-host that answers Load and Open like the
 * real one and then sends a malformed Collect reply, chosen by
 * $FAKE_HELPER_MODE:
 *   huge     a length far beyond the data announced
 *   type     a reply of the wrong type
 *   baddata  a well-formed reply whose data is not a valid object
 * The host is given it through $PERFLIB_PROVIDER_HOST. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "helper_proto.h"

static int rd(void *p, size_t n)
{
    uint8_t *b = p;
    while (n) {
        ssize_t r = read(PLH_FD, b, n);
        if (r <= 0) return -1;
        b += r;
        n -= (size_t)r;
    }
    return 0;
}

static void wr(const void *p, size_t n)
{
    if (send(PLH_FD, p, n, MSG_NOSIGNAL) != (ssize_t)n) _exit(0);
}

static void frame(uint32_t type, uint32_t len, const void *payload, size_t n)
{
    uint8_t h[8];
    memcpy(h, &type, 4);
    memcpy(h + 4, &len, 4);
    wr(h, 8);
    if (n) wr(payload, n);
}

int main(void)
{
    const char *mode = getenv("FAKE_HELPER_MODE");
    if (!mode) mode = "huge";
    static uint8_t pl[PLH_MAX_REQUEST];
    for (;;) {
        uint32_t h[2];
        if (rd(h, 8) != 0 || h[1] > sizeof pl || rd(pl, h[1]) != 0) return 0;
        uint32_t zero = 0;
        if (h[0] == PLH_LOAD || h[0] == PLH_OPEN || h[0] == PLH_CLOSE) {
            frame(h[0] | PLH_REPLY, 4, &zero, 4);
            if (h[0] == PLH_CLOSE) return 0;
            continue;
        }
        /* Collect: rc 0, 16 bytes, 1 object, no flags, moved 16 */
        uint8_t fixed[PLH_COLLECT_FIXED + 16];
        memset(fixed, 0, sizeof fixed);
        uint32_t v[4] = {0, 16, 1, 0};
        int64_t moved = 16;
        memcpy(fixed, v, 16);
        memcpy(fixed + 16, &moved, 8);
        if (!strcmp(mode, "huge")) frame(PLH_COLLECT | PLH_REPLY, 0xFFFFFFF0u, fixed, PLH_COLLECT_FIXED);
        else if (!strcmp(mode, "type")) frame(0x99, PLH_COLLECT_FIXED + 16, fixed, sizeof fixed);
        else frame(PLH_COLLECT | PLH_REPLY, PLH_COLLECT_FIXED + 16, fixed, sizeof fixed);
        /* stay until killed or told to go */
    }
}
