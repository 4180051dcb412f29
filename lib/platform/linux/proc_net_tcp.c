/* perflib: /proc/net/tcp and /proc/net/tcp6, counted by socket state.
 *
 * Only the columns up to the state ("sl local rem st") are parsed. The file
 * can hold many thousands of sockets (~150 bytes each), so it is read in
 * 16 KiB pieces and counted line by line; nothing is kept per socket. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "collect_io.h"
#include "platform.h"

#define TCP_ST_ESTABLISHED 0x01
#define TCP_ST_CLOSE_WAIT 0x08

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* `n` hex digits (n <= 8) at p as a number; -1 when one is not a hex digit. */
static int64_t hexnum(const char *p, size_t n)
{
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++) {
        int d = hexval(p[i]);
        if (d < 0) return -1;
        v = (v << 4) | (uint32_t)d;
    }
    return v;
}

static const char *blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    return p;
}

/* "ADDR:PORT" where ADDR is `alen` hex digits. Stores the address words (as
 * the kernel printed them: each 32-bit word in host order). */
static const char *endpoint(const char *p, const char *end, size_t alen, uint32_t w[4])
{
    if ((size_t)(end - p) < alen + 5) return NULL;
    for (size_t i = 0; i < alen / 8; i++) {
        int64_t x = hexnum(p + 8 * i, 8);
        if (x < 0) return NULL;
        w[i] = (uint32_t)x;
    }
    p += alen;
    if (*p != ':' || hexnum(p + 1, 4) < 0) return NULL;
    return p + 5;
}

int pl__parse_net_tcp_line(const char *line, size_t len, int v6, struct pl__tcp_socks *acc)
{
    const char *p = line, *end = line + len;
    if (len && end[-1] == '\n') end--;
    p = blanks(p, end);
    const char *d = p;
    while (p < end && *p >= '0' && *p <= '9') p++;
    if (p == d || p >= end || *p != ':') goto bad;
    p++;
    size_t alen = v6 ? 32 : 8;
    uint32_t lw[4] = {0}, rw[4] = {0};
    p = blanks(p, end);
    if (!(p = endpoint(p, end, alen, lw))) goto bad;
    if (p >= end || (*p != ' ' && *p != '\t')) goto bad;
    p = blanks(p, end);
    if (!(p = endpoint(p, end, alen, rw))) goto bad;
    if (p >= end || (*p != ' ' && *p != '\t')) goto bad;
    p = blanks(p, end);
    if (end - p < 2) goto bad;
    int64_t st = hexnum(p, 2);
    if (st <= 0 || st >= PL__TCP_STATES) goto bad;
    p += 2;
    if (p < end && *p != ' ' && *p != '\t') goto bad;
    acc->state[st]++;
    acc->lines++;
    if (st == TCP_ST_ESTABLISHED || st == TCP_ST_CLOSE_WAIT) {
        /* An IPv6 socket talking to an IPv4 peer has the v4-mapped remote
         * ::ffff:a.b.c.d; its packets are IPv4 on the wire. */
        int mapped = v6 && rw[0] == 0 && rw[1] == 0 && ntohl(rw[2]) == 0xffffu;
        if (!v6 || mapped) acc->estab_v4++;
        else acc->estab_v6++;
    }
    return 1;
bad:
    acc->bad++;
    return 0;
}

/* The first line names the columns: "  sl  local_address rem_address   st ...". */
static int is_header(const char *line, size_t len)
{
    const char *end = line + len;
    const char *p = blanks(line, end);
    return end - p >= 3 && p[0] == 's' && p[1] == 'l' && (p[2] == ' ' || p[2] == '\t');
}

static void reset(struct pl__tcp_socks *out)
{
    memset(out, 0, sizeof *out);
}

int pl__parse_net_tcp(const char *text, size_t len, int v6, struct pl__tcp_socks *out)
{
    reset(out);
    const char *s = text, *end = text + len;
    const char *nl = memchr(s, '\n', len);
    if (!nl || !is_header(s, (size_t)(nl - s))) return -EINVAL;
    s = nl + 1;
    while (s < end) {
        nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        if (blanks(s, le) < le) {
            if (nl) pl__parse_net_tcp_line(s, (size_t)(le - s), v6, out);
            else out->bad++; /* a last line without its newline: cut short */
        }
        s = nl ? nl + 1 : end;
    }
    return 0;
}

#define CHUNK 16384
#define MAX_BYTES ((uint64_t)1 << 32) /* 4 GiB: ~28 million sockets */

int pl__read_net_tcp(int rootfd, int v6, struct pl__tcp_socks *out)
{
    reset(out);
    int fd = pl__open_regular_at(rootfd, v6 ? "proc/net/tcp6" : "proc/net/tcp");
    if (fd < 0) return fd;
    char buf[CHUNK];
    size_t have = 0;       /* bytes of an unfinished line at buf[0] */
    int header = 1;        /* the next complete line is the header */
    int skipping = 0;      /* inside a line longer than the buffer */
    uint64_t total = 0;
    int rc = 0;
    for (;;) {
        ssize_t n;
        do n = read(fd, buf + have, sizeof buf - have);
        while (n < 0 && errno == EINTR);
        if (n < 0) {
            rc = -errno;
            break;
        }
        total += (uint64_t)n;
        if (total > MAX_BYTES) {
            rc = -EFBIG;
            break;
        }
        if (n == 0) {
            /* End of file: a piece without its newline was cut short. */
            if (header) rc = -EINVAL;
            else if (!skipping && have && blanks(buf, buf + have) < buf + have) out->bad++;
            break;
        }
        size_t len = have + (size_t)n, pos = 0;
        for (;;) {
            char *nl = memchr(buf + pos, '\n', len - pos);
            if (!nl) break;
            size_t ll = (size_t)(nl - (buf + pos));
            if (skipping) {
                skipping = 0; /* the rest of an overlong line: already counted bad */
            } else if (header) {
                if (!is_header(buf + pos, ll)) {
                    rc = -EINVAL;
                    break;
                }
                header = 0;
            } else if (blanks(buf + pos, nl) < nl) {
                pl__parse_net_tcp_line(buf + pos, ll, v6, out);
            }
            pos += ll + 1;
        }
        if (rc) break;
        have = len - pos;
        if (have == sizeof buf) {
            /* One line fills the whole buffer: no socket line is that long. */
            if (header) {
                rc = -EINVAL;
                break;
            }
            if (!skipping) out->bad++;
            skipping = 1;
            have = 0;
        } else if (have) {
            memmove(buf, buf + pos, have);
        }
    }
    close(fd);
    if (rc) reset(out);
    return rc;
}
