/* perfd: Host and Origin checks (docs/perfd.md, "Security").
 *
 * A page on any web site can make a browser send requests to 127.0.0.1, and
 * with DNS rebinding make them same-origin for a name of the attacker's that
 * now resolves to 127.0.0.1. Both are refused here, on every listener,
 * before authentication and routes:
 *   - Host must be a name of this perfd: on a loopback listener "localhost",
 *     "127.0.0.1", "[::1]" or the listener's own address; on any other an
 *     IP address, this machine's host name or system_name; on both the
 *     names of `host_names` and those the server certificate is for. Any
 *     port. Otherwise 421.
 *   - A browser request from another origin: an Origin header that is not
 *     http(s):// followed by the request's own Host, or Sec-Fetch-Site
 *     "cross-site" or "same-site", is 403.
 * A request without Host (HTTP/1.0) is not a browser's and passes. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "daemon.h"
#include "tls.h"

#define MAX_NAMES 32
#define MAX_NAME 254

static char names[MAX_NAMES][MAX_NAME];
static size_t n_names;

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
           c == '_';
}

/* host_names = a, b c: the names clients use to reach perfd (DNS names). */
static int set_host_names(const char *v, char *why, size_t whylen)
{
    n_names = 0;
    const char *p = v;
    while (*p) {
        while (*p == ' ' || *p == ',' || *p == '\t') p++;
        if (!*p) break;
        const char *b = p;
        while (*p && *p != ' ' && *p != ',' && *p != '\t') p++;
        size_t n = (size_t)(p - b);
        if (n >= MAX_NAME || n_names == MAX_NAMES) {
            snprintf(why, whylen, "host_names: at most %d names of at most %d characters", MAX_NAMES, MAX_NAME - 1);
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            if (!name_char(b[i])) {
                snprintf(why, whylen, "host_names: \"%.*s\" is not a host name (letters, digits, '.', '-')",
                         (int)(n > 64 ? 64 : n), b);
                return -1;
            }
        }
        memcpy(names[n_names], b, n);
        names[n_names++][n] = 0;
    }
    return 0;
}
PERFD_CONFIG_KEY(host_names, "host_names", set_host_names)

/* Split a Host value into its host (brackets kept for IPv6) and check the
 * port is digits. -1 when malformed. */
static int host_part(const char *h, char *out, size_t cap)
{
    size_t n = strlen(h);
    const char *end = h + n;
    if (h[0] == '[') {
        const char *close = strchr(h, ']');
        if (!close) return -1;
        end = close + 1;
    } else {
        const char *colon = strchr(h, ':');
        if (colon) end = colon;
    }
    if (*end == ':') {
        const char *p = end + 1;
        if (!*p || strlen(p) > 5) return -1;
        for (; *p; p++)
            if (*p < '0' || *p > '9') return -1;
    } else if (*end) {
        return -1;
    }
    size_t hn = (size_t)(end - h);
    if (hn == 0 || hn >= cap) return -1;
    for (size_t i = 0; i < hn; i++)
        if (!name_char(h[i]) && h[i] != '[' && h[i] != ']' && h[i] != ':') return -1;
    memcpy(out, h, hn);
    out[hn] = 0;
    return 0;
}

static int is_ip_literal(const char *host)
{
    unsigned char a[16];
    if (inet_pton(AF_INET, host, a) == 1) return 1;
    size_t n = strlen(host);
    if (n > 2 && host[0] == '[' && host[n - 1] == ']') {
        char v6[64];
        if (n - 2 >= sizeof v6) return 0;
        memcpy(v6, host + 1, n - 2);
        v6[n - 2] = 0;
        return inet_pton(AF_INET6, v6, a) == 1;
    }
    return 0;
}

static int same_name(const char *a, const char *b)
{
    size_t n = strlen(a);
    if (n && a[n - 1] == '.') n--; /* "localhost." */
    return strlen(b) == n && strncasecmp(a, b, n) == 0;
}

static int host_allowed(const char *host, const perfd_listen *l)
{
    for (size_t i = 0; i < n_names; i++)
        if (same_name(host, names[i])) return 1;
    char bare[80];
    size_t hn = strlen(host);
    snprintf(bare, sizeof bare, "%.*s", host[0] == '[' && hn > 2 ? (int)(hn - 2) : (int)hn, host + (host[0] == '['));
    if (perfd_tls_cert_names(bare)) return 1;
    if (l && l->loopback) {
        if (same_name(host, "localhost") || strcmp(host, "127.0.0.1") == 0 || strcasecmp(host, "[::1]") == 0)
            return 1;
        char own[80];
        snprintf(own, sizeof own, l->family == AF_INET6 ? "[%s]" : "%s", l->host);
        return strcasecmp(host, own) == 0;
    }
    if (is_ip_literal(host)) return 1;
    if (same_name(host, pl_engine_system_name(perfd_engine()))) return 1;
    char me[256];
    if (gethostname(me, sizeof me) != 0) return 0;
    me[sizeof me - 1] = 0;
    if (same_name(host, me)) return 1;
    char *dot = strchr(me, '.');
    if (dot) *dot = 0;
    return same_name(host, me);
}

int perfd_origin_check(struct MHD_Connection *conn, const perfd_listen *l, char *why, size_t whylen)
{
    const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    if (h) {
        char host[300];
        if (host_part(h, host, sizeof host) != 0) {
            snprintf(why, whylen, "Host \"%.100s\" is not host[:port]", h);
            return MHD_HTTP_BAD_REQUEST;
        }
        if (!host_allowed(host, l)) {
            snprintf(why, whylen, "Host \"%.100s\" is not a name of this perfd (host_names)", host);
            return MHD_HTTP_MISDIRECTED_REQUEST;
        }
    }
    const char *site = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Sec-Fetch-Site");
    if (site && (strcasecmp(site, "cross-site") == 0 || strcasecmp(site, "same-site") == 0)) {
        snprintf(why, whylen, "a browser request from another site (Sec-Fetch-Site: %.20s)", site);
        return MHD_HTTP_FORBIDDEN;
    }
    const char *o = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ORIGIN);
    if (o) {
        const char *rest = strncasecmp(o, "http://", 7) == 0 ? o + 7 : strncasecmp(o, "https://", 8) == 0 ? o + 8 : NULL;
        if (!rest || !h || strcasecmp(rest, h) != 0) {
            snprintf(why, whylen, "a browser request from another origin (Origin: %.100s)", o);
            return MHD_HTTP_FORBIDDEN;
        }
    }
    return 0;
}
