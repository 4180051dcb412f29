/* perfd: configuration (defaults, the config file, the safety check).
 *
 * The file is "key = value" lines; '#' starts a comment line; blank lines
 * are skipped; keys are those of docs/perfd.md. Hostile input: every line
 * is bounded, every number range-checked, unknown keys refused. Route files
 * may add their own keys with PERFD_CONFIG_KEY (perfd.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "daemon.h"

static perfd_config_key *extra_keys;

void perfd_config_key_add(perfd_config_key *k)
{
    k->next_ = extra_keys;
    extra_keys = k;
}

void perfd_config_defaults(perfd_config *c)
{
    memset(c, 0, sizeof *c);
    c->max_connections = 64;
    c->max_per_ip = 8;
    c->idle_timeout_s = 10;
    c->request_timeout_s = 30;
    c->max_header_bytes = 16384;
    c->max_body_bytes = 65536;
    c->max_query_bytes = 1024;
    c->max_queries = 64;
    c->max_age_ms = 100;
    c->log_interval_s = 60;
}

static int is_loopback(int family, const void *addr)
{
    if (family == AF_INET) return ((const unsigned char *)addr)[0] == 127;
    static const unsigned char lo6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    return memcmp(addr, lo6, 16) == 0;
}

int perfd_parse_listen(const char *s, perfd_listen *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    char host[128];
    const char *port = NULL;
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof host) {
        snprintf(why, whylen, "listen address \"%.80s\": empty or too long", s);
        return -1;
    }
    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (!close || (close[1] && close[1] != ':')) {
            snprintf(why, whylen, "listen address \"%s\": expected [IPv6]:PORT", s);
            return -1;
        }
        memcpy(host, s + 1, (size_t)(close - s - 1));
        host[close - s - 1] = 0;
        if (close[1] == ':') port = close + 2;
    } else {
        const char *colon = strrchr(s, ':');
        if (colon && strchr(s, ':') != colon) {
            snprintf(why, whylen, "listen address \"%s\": write IPv6 addresses as [ADDR]:PORT", s);
            return -1;
        }
        size_t hl = colon ? (size_t)(colon - s) : n;
        memcpy(host, s, hl);
        host[hl] = 0;
        if (colon) port = colon + 1;
    }
    unsigned char buf[16];
    if (inet_pton(AF_INET, host, buf) == 1) {
        out->family = AF_INET;
    } else if (inet_pton(AF_INET6, host, buf) == 1) {
        out->family = AF_INET6;
    } else {
        snprintf(why, whylen, "listen address \"%s\": \"%s\" is not a numeric IPv4 or IPv6 address", s, host);
        return -1;
    }
    out->loopback = is_loopback(out->family, buf);
    if (snprintf(out->host, sizeof out->host, "%s", host) >= (int)sizeof out->host) {
        snprintf(why, whylen, "listen address \"%s\": too long", s);
        return -1;
    }
    out->port = PERFD_DEFAULT_PORT;
    if (port) {
        char *end = NULL;
        errno = 0;
        unsigned long p = strtoul(port, &end, 10);
        if (!*port || *end || errno || p > 65535 || port[0] == '-' || port[0] == '+') {
            snprintf(why, whylen, "listen address \"%s\": port must be 0-65535", s);
            return -1;
        }
        out->port = (unsigned)p;
    }
    return 0;
}

static int parse_num(const char *v, unsigned long lo, unsigned long hi, unsigned long *out)
{
    if (!*v || *v == '-' || *v == '+') return -1;
    char *end = NULL;
    errno = 0;
    unsigned long x = strtoul(v, &end, 10);
    if (*end || errno || x < lo || x > hi) return -1;
    *out = x;
    return 0;
}

static int set_path(char *dst, size_t cap, const char *v)
{
    size_t n = strlen(v);
    if (n == 0 || n >= cap) return -1;
    memcpy(dst, v, n + 1);
    return 0;
}

typedef struct num_key {
    const char *name;
    size_t off;
    int is_size;
    unsigned long lo, hi;
} num_key;

#define U(f) offsetof(perfd_config, f), 0
#define Z(f) offsetof(perfd_config, f), 1
static const num_key num_keys[] = {
    {"max_connections", U(max_connections), 1, 4096},
    {"max_connections_per_ip", U(max_per_ip), 1, 4096},
    {"idle_timeout", U(idle_timeout_s), 1, 3600},
    {"request_timeout", U(request_timeout_s), 1, 3600},
    {"max_header_bytes", Z(max_header_bytes), 1024, 1u << 20},
    {"max_body_bytes", Z(max_body_bytes), 0, 1u << 24},
    {"max_query_bytes", Z(max_query_bytes), 16, 65536},
    {"max_queries", U(max_queries), 1, 4096},
    {"snapshot_max_age_ms", U(max_age_ms), 0, 3600000},
    {"log_interval", U(log_interval_s), 1, 3600},
};
#undef U
#undef Z

/* Apply one key; 0, or -1 with the reason (without the location). */
static int apply(perfd_config *c, const char *key, const char *val, int *listen_reset, char *why, size_t whylen)
{
    if (strcmp(key, "listen") == 0) {
        if (!*listen_reset) {
            c->n_listen = 0;
            *listen_reset = 1;
        }
        if (c->n_listen == PERFD_MAX_LISTEN) {
            snprintf(why, whylen, "more than %d listen addresses", PERFD_MAX_LISTEN);
            return -1;
        }
        return perfd_parse_listen(val, &c->listen[c->n_listen++], why, whylen);
    }
    struct {
        const char *name;
        char *dst;
        size_t cap;
    } paths[] = {
        {"registry", c->registry, sizeof c->registry},         {"system_name", c->system_name, sizeof c->system_name},
        {"tls_cert", c->tls_cert, sizeof c->tls_cert},         {"tls_key", c->tls_key, sizeof c->tls_key},
        {"tls_client_ca", c->tls_client_ca, sizeof c->tls_client_ca}, {"token_file", c->token_file, sizeof c->token_file},
        {"remote_config", c->remote_config, sizeof c->remote_config},
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        if (strcmp(key, paths[i].name) != 0) continue;
        if (set_path(paths[i].dst, paths[i].cap, val) != 0) {
            snprintf(why, whylen, "%.64s: empty or too long", key);
            return -1;
        }
        return 0;
    }
    for (size_t i = 0; i < sizeof num_keys / sizeof num_keys[0]; i++) {
        const num_key *k = &num_keys[i];
        if (strcmp(key, k->name) != 0) continue;
        unsigned long x;
        if (parse_num(val, k->lo, k->hi, &x) != 0) {
            snprintf(why, whylen, "%.64s: expected a whole number from %lu to %lu", key, k->lo, k->hi);
            return -1;
        }
        if (k->is_size)
            *(size_t *)((char *)c + k->off) = (size_t)x;
        else
            *(unsigned *)((char *)c + k->off) = (unsigned)x;
        return 0;
    }
    for (perfd_config_key *k = extra_keys; k; k = k->next_)
        if (strcmp(key, k->name) == 0) return k->set(val, why, whylen);
    snprintf(why, whylen, "unknown key \"%.64s\"", key);
    return -1;
}

int perfd_config_set(perfd_config *c, const char *key, const char *val, char *why, size_t whylen)
{
    int reset = 1; /* the command line adds to what it already set */
    return apply(c, key, val, &reset, why, whylen);
}

int perfd_config_text(const char *text, size_t len, const char *name, perfd_config *c, char *why, size_t whylen)
{
    int listen_reset = 0;
    size_t pos = 0;
    unsigned lineno = 0;
    while (pos < len) {
        lineno++;
        size_t end = pos;
        while (end < len && text[end] != '\n') end++;
        size_t n = end - pos;
        char line[4600];
        if (n >= sizeof line) {
            snprintf(why, whylen, "%s:%u: line longer than %zu bytes", name, lineno, sizeof line - 1);
            return -1;
        }
        memcpy(line, text + pos, n);
        line[n] = 0;
        pos = end < len ? end + 1 : end;
        if (memchr(line, 0, n)) {
            snprintf(why, whylen, "%s:%u: NUL byte in the line", name, lineno);
            return -1;
        }
        while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t')) line[--n] = 0;
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (!*p || *p == '#') continue;
        char *eq = strchr(p, '=');
        if (!eq) {
            snprintf(why, whylen, "%s:%u: expected \"key = value\"", name, lineno);
            return -1;
        }
        char *kend = eq;
        while (kend > p && (kend[-1] == ' ' || kend[-1] == '\t')) kend--;
        *kend = 0;
        char *val = eq + 1;
        while (*val == ' ' || *val == '\t') val++;
        for (char *q = p; *q; q++) {
            if (!((*q >= 'a' && *q <= 'z') || *q == '_' || (*q >= '0' && *q <= '9'))) {
                snprintf(why, whylen, "%s:%u: a key is lower-case letters, digits and '_'", name, lineno);
                return -1;
            }
        }
        for (char *q = val; *q; q++) {
            if ((unsigned char)*q < 0x20 && *q != '\t') {
                snprintf(why, whylen, "%s:%u: control character in the value", name, lineno);
                return -1;
            }
        }
        char reason[400];
        if (apply(c, p, val, &listen_reset, reason, sizeof reason) != 0) {
            snprintf(why, whylen, "%s:%u: %s", name, lineno, reason);
            return -1;
        }
    }
    return 0;
}

int perfd_config_file(const char *path, perfd_config *c, char *why, size_t whylen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1u << 20;
    char *buf = malloc(cap + 1);
    size_t n = buf ? fread(buf, 1, cap + 1, f) : 0;
    int err = !buf || ferror(f);
    fclose(f);
    if (err || n > cap) {
        snprintf(why, whylen, "%s: %s", path, !buf ? "out of memory" : err ? "read error" : "larger than 1 MiB");
        free(buf);
        return -1;
    }
    int rc = perfd_config_text(buf, n, path, c, why, whylen);
    free(buf);
    return rc;
}

int perfd_config_check(const perfd_config *c, char *why, size_t whylen)
{
    if ((c->tls_cert[0] != 0) != (c->tls_key[0] != 0)) {
        snprintf(why, whylen, "tls_cert and tls_key go together: give both or neither");
        return -1;
    }
    if (c->tls_client_ca[0] && !c->tls_cert[0]) {
        snprintf(why, whylen, "tls_client_ca needs TLS (tls_cert and tls_key)");
        return -1;
    }
    for (size_t i = 0; i < c->n_listen; i++) {
        const perfd_listen *l = &c->listen[i];
        if (l->loopback) continue;
        if (!c->tls_cert[0] || (!c->token_file[0] && !c->tls_client_ca[0])) {
            snprintf(why, whylen,
                     "refusing to listen on %s%s%s:%u: an address other than loopback needs TLS (tls_cert and "
                     "tls_key) and authentication (token_file or tls_client_ca); missing: %s%s",
                     l->family == AF_INET6 ? "[" : "", l->host, l->family == AF_INET6 ? "]" : "", l->port,
                     c->tls_cert[0] ? "" : "TLS",
                     (c->token_file[0] || c->tls_client_ca[0]) ? "" : (c->tls_cert[0] ? "authentication" : " and authentication"));
            return -1;
        }
    }
    if (c->max_per_ip > c->max_connections) {
        snprintf(why, whylen, "max_connections_per_ip (%u) is above max_connections (%u)", c->max_per_ip,
                 c->max_connections);
        return -1;
    }
    return 0;
}
