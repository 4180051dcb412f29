/* perflib: the remote client's settings (include/perflib/remote.h).
 *
 * The configuration file is a list of `key = value` lines, with `#` or `;`
 * comments, and `[target]` sections whose keys apply to one target only:
 *
 *     timeout_ms = 5000
 *     ca_file = /etc/perflib/ca.pem
 *     [web1]
 *     address = 10.0.0.7
 *     token_file = /etc/perflib/web1.token
 *
 * Layers, later ones winning: the defaults, the keys before any section, the
 * section named like the target's host ("web1"), the section named
 * host:port at the port it is asked on ("web1:9730"), then the
 * PERFLIB_REMOTE_* environment. Credentials (token_file, cert_file,
 * key_file) are bound to machines: only inside a section, never from the
 * environment. Every line is checked, in every section, so a typo anywhere
 * is an error rather than a silently ignored setting. The file is hostile input: bounded in
 * size, numbers range-checked, no value may hold a control character. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perflib/remote.h"
#include "pl_internal.h"
#include "remote_internal.h"

#define CONFIG_MAX_BYTES (1u << 20)

static int is_space(char c) { return c == ' ' || c == '\t'; }

static int lower_eq(const char *a, size_t n, const char *b)
{
    size_t bl = strlen(b);
    if (n != bl) return 0;
    for (size_t i = 0; i < n; i++) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z') x = (char)(x + 32);
        if (y >= 'A' && y <= 'Z') y = (char)(y + 32);
        if (x != y) return 0;
    }
    return 1;
}

/* A decimal number in [lo, hi], the whole of s[0..n). */
static int parse_u64(const char *s, size_t n, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (n == 0 || n > 20) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    if (v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

static int set_str(char **dst, const char *v, size_t n)
{
    char *s = malloc(n + 1);
    if (!s) return PL_E_NOMEM;
    memcpy(s, v, n);
    s[n] = '\0';
    free(*dst);
    *dst = s;
    return PL_OK;
}

/* Apply one key. `where` names the line or variable for messages. With
 * s == NULL only checks. */
static int apply_key(pl_remote_settings *s, const char *k, size_t kn, const char *v, size_t vn, int in_section,
                     const char *where, pl_error *err)
{
    for (size_t i = 0; i < vn; i++)
        if ((unsigned char)v[i] < 0x20 || v[i] == 0x7F)
            return pl__fail(err, PL_E_PARSE, "%s: a control character in the value", where);
    uint64_t n = 0;
    if (lower_eq(k, kn, "tls")) {
        pl_remote_tls t;
        if (lower_eq(v, vn, "auto")) t = PL_REMOTE_TLS_AUTO;
        else if (lower_eq(v, vn, "on") || lower_eq(v, vn, "yes") || lower_eq(v, vn, "https")) t = PL_REMOTE_TLS_ON;
        else if (lower_eq(v, vn, "off") || lower_eq(v, vn, "no") || lower_eq(v, vn, "http")) t = PL_REMOTE_TLS_OFF;
        else return pl__fail(err, PL_E_PARSE, "%s: tls must be auto, on or off", where);
        if (s) {
            s->tls = t;
            s->tls_off_for_machine = in_section && t == PL_REMOTE_TLS_OFF;
        }
        return PL_OK;
    }
    if (lower_eq(k, kn, "connect_timeout_ms") || lower_eq(k, kn, "timeout_ms")) {
        if (!parse_u64(v, vn, 1, (uint64_t)PL_REMOTE_MAX_TIMEOUT_MS, &n))
            return pl__fail(err, PL_E_PARSE, "%s: %.*s must be a whole number of milliseconds from 1 to %ld", where,
                            (int)kn, k, PL_REMOTE_MAX_TIMEOUT_MS);
        if (s) {
            if (lower_eq(k, kn, "timeout_ms")) s->timeout_ms = (long)n;
            else s->connect_timeout_ms = (long)n;
        }
        return PL_OK;
    }
    if (lower_eq(k, kn, "max_bytes")) {
        if (!parse_u64(v, vn, 1, PL_REMOTE_MAX_MAX_BYTES, &n))
            return pl__fail(err, PL_E_PARSE, "%s: max_bytes must be a number from 1 to %llu", where,
                            (unsigned long long)PL_REMOTE_MAX_MAX_BYTES);
        if (s) s->max_bytes = n;
        return PL_OK;
    }
    if (lower_eq(k, kn, "port")) {
        if (!parse_u64(v, vn, 1, 65535, &n)) return pl__fail(err, PL_E_PARSE, "%s: port must be 1..65535", where);
        if (s) s->port = (unsigned)n;
        return PL_OK;
    }
    static const char *const strs[] = {"address", "ca_file", "cert_file", "key_file", "token_file"};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        if (!lower_eq(k, kn, strs[i])) continue;
        if (vn == 0) return pl__fail(err, PL_E_PARSE, "%s: %s is empty", where, strs[i]);
        if (i >= 2 && !in_section)
            return pl__fail(err, PL_E_PARSE,
                            "%s: %s must be inside the [machine] section it is for (a credential goes only to the "
                            "machines it names)",
                            where, strs[i]);
        if (i == 0) {
            for (size_t j = 0; j < vn; j++)
                if (v[j] == ' ' || v[j] == '/' || v[j] == '@' || v[j] == '?' || v[j] == '#')
                    return pl__fail(err, PL_E_PARSE, "%s: address must be a host name or an IP address", where);
        }
        if (!s) return PL_OK;
        char **dst = i == 0 ? &s->address : i == 1 ? &s->ca_file : i == 2 ? &s->cert_file : i == 3 ? &s->key_file
                                                                                                   : &s->token_file;
        if (set_str(dst, v, vn) != PL_OK) return pl__fail(err, PL_E_NOMEM, "out of memory");
        return PL_OK;
    }
    return pl__fail(err, PL_E_PARSE, "%s: unknown key \"%.*s\"", where, (int)(kn > 64 ? 64 : kn), k);
}

/* One pass over the text. Applies the keys of the sections selected by
 * `want` (NULL: the global part; else the section of that name) to s; with s
 * NULL checks every line instead. */
static int pass(const char *text, size_t len, const char *want, pl_remote_settings *s, int *seen, pl_error *err)
{
    size_t i = 0, line = 0;
    int in_want = want == NULL; /* the global part comes first */
    int in_section = 0;
    while (i < len) {
        line++;
        size_t b = i;
        while (i < len && text[i] != '\n') i++;
        size_t e = i;
        if (i < len) i++;
        if (e > b && text[e - 1] == '\r') e--;
        while (b < e && is_space(text[b])) b++;
        while (e > b && is_space(text[e - 1])) e--;
        if (b == e || text[b] == '#' || text[b] == ';') continue;
        char where[48];
        snprintf(where, sizeof where, "line %zu", line);
        if (memchr(text + b, '\0', e - b)) return pl__fail(err, PL_E_PARSE, "%s: a NUL byte", where);
        if (text[b] == '[') {
            if (text[e - 1] != ']' || e - b < 3) return pl__fail(err, PL_E_PARSE, "%s: a section is [name]", where);
            size_t nb = b + 1, ne = e - 1;
            while (nb < ne && is_space(text[nb])) nb++;
            while (ne > nb && is_space(text[ne - 1])) ne--;
            if (nb == ne) return pl__fail(err, PL_E_PARSE, "%s: an empty section name", where);
            in_want = want && lower_eq(text + nb, ne - nb, want);
            if (in_want && seen) *seen = 1;
            in_section = 1;
            continue;
        }
        const char *eq = memchr(text + b, '=', e - b);
        if (!eq) return pl__fail(err, PL_E_PARSE, "%s: expected key = value", where);
        size_t kb = b, ke = (size_t)(eq - text);
        while (ke > kb && is_space(text[ke - 1])) ke--;
        size_t vb = (size_t)(eq - text) + 1;
        while (vb < e && is_space(text[vb])) vb++;
        size_t ve = e;
        if (ve - vb >= 2 && text[vb] == '"' && text[ve - 1] == '"') {
            vb++;
            ve--;
        }
        if (ke == kb) return pl__fail(err, PL_E_PARSE, "%s: a value without a key", where);
        if (!s) {
            int rc = apply_key(NULL, text + kb, ke - kb, text + vb, ve - vb, in_section, where, err);
            if (rc != PL_OK) return rc;
        } else if (in_want) {
            int rc = apply_key(s, text + kb, ke - kb, text + vb, ve - vb, in_section, where, err);
            if (rc != PL_OK) return rc;
        }
    }
    return PL_OK;
}

static void defaults(pl_remote_settings *s)
{
    memset(s, 0, sizeof *s);
    s->tls = PL_REMOTE_TLS_AUTO;
    s->connect_timeout_ms = PL_REMOTE_DEFAULT_CONNECT_TIMEOUT_MS;
    s->timeout_ms = PL_REMOTE_DEFAULT_TIMEOUT_MS;
    s->max_bytes = PL_REMOTE_DEFAULT_MAX_BYTES;
}

PL_EXTERN void pl_remote_settings_free(pl_remote_settings *s)
{
    if (!s) return;
    free(s->address);
    free(s->ca_file);
    free(s->cert_file);
    free(s->key_file);
    free(s->token_file);
    memset(s, 0, sizeof *s);
}

/* The layers for `target`: the global part, its host's section, then the
 * section of host:port at the port it will be asked on (the target's, else
 * the `port` setting, else 9730). out->listed says whether the target has a
 * section of its own: [host:port] at that port, or [host] when the target
 * names no other port than the host's. */
static int parse_layers(const char *text, size_t len, unsigned flags, const char *target, pl_remote_settings *out,
                        pl_error *err)
{
    int rc = pass(text, len, NULL, NULL, NULL, err); /* every line checked */
    if (rc == PL_OK) rc = pass(text, len, NULL, out, NULL, err);
    if (rc != PL_OK || !target) return rc;
    char host[256];
    unsigned port = 0;
    rc = pl_remote_parse_target(target, host, sizeof host, &port, (flags & PL_REMOTE_LISTED_ONLY) ? err : NULL);
    if (rc != PL_OK) return (flags & PL_REMOTE_LISTED_ONLY) ? rc : PL_OK;
    int seen_host = 0, seen_port = 0;
    rc = pass(text, len, host, out, &seen_host, err);
    if (rc != PL_OK) return rc;
    unsigned host_port = out->port ? out->port : PL_REMOTE_DEFAULT_PORT;
    unsigned at = port ? port : host_port;
    char hp[300];
    snprintf(hp, sizeof hp, strchr(host, ':') ? "[%s]:%u" : "%s:%u", host, at);
    rc = pass(text, len, hp, out, &seen_port, err);
    if (rc != PL_OK) return rc;
    out->listed = seen_port || (seen_host && at == host_port);
    if ((flags & PL_REMOTE_LISTED_ONLY) && !out->listed)
        return pl__fail(err, PL_E_DENIED,
                        "%s: not a configured remote machine (no [%s] or [%s] section; no connection was made)", target,
                        host, hp);
    return PL_OK;
}

PL_EXTERN int pl_remote_settings_parse_ex(const char *text, size_t len, unsigned flags, const char *target,
                                          pl_remote_settings *out, pl_error *err)
{
    pl__clear(err);
    if (!out || (!text && len)) return pl__fail(err, PL_E_INVAL, "pl_remote_settings_parse: NULL argument");
    defaults(out);
    int rc = parse_layers(text ? text : "", len, flags, target, out, err);
    if (rc != PL_OK) pl_remote_settings_free(out);
    return rc;
}

PL_EXTERN int pl_remote_settings_parse(const char *text, size_t len, const char *target, pl_remote_settings *out,
                                       pl_error *err)
{
    return pl_remote_settings_parse_ex(text, len, 0, target, out, err);
}

static int read_file(const char *path, char **out, size_t *len, pl_error *err)
{
    char eb[128];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return pl__fail(err, PL_E_IO, "remote configuration %s: %s", path, pl__strerror(errno, eb, sizeof eb));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !(S_ISREG(sb.st_mode) || S_ISCHR(sb.st_mode))) {
        close(fd);
        return pl__fail(err, PL_E_IO, "remote configuration %s: not a regular file", path);
    }
    char *buf = malloc(CONFIG_MAX_BYTES + 1);
    if (!buf) {
        close(fd);
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fd, buf + n, CONFIG_MAX_BYTES + 1 - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            free(buf);
            return pl__fail(err, PL_E_IO, "remote configuration %s: %s", path, pl__strerror(e, eb, sizeof eb));
        }
        if (r == 0) break;
        n += (size_t)r;
        if (n > CONFIG_MAX_BYTES) {
            close(fd);
            free(buf);
            return pl__fail(err, PL_E_RANGE, "remote configuration %s: larger than %u bytes", path, CONFIG_MAX_BYTES);
        }
    }
    close(fd);
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return PL_OK;
}

/* The file to read: explicit, $PERFLIB_REMOTE_CONFIG, the user's, the
 * system's. *path NULL when there is none (not an error). */
static void config_path(const char *given, unsigned flags, char *buf, size_t cap, const char **path)
{
    *path = NULL;
    if (given || (flags & PL_REMOTE_NO_ENVIRONMENT)) {
        *path = given;
        return;
    }
    const char *env = getenv("PERFLIB_REMOTE_CONFIG");
    if (env && *env) {
        *path = env;
        return;
    }
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    int w = -1;
    if (xdg && *xdg) w = snprintf(buf, cap, "%s/perflib/remote.conf", xdg);
    else if (home && *home) w = snprintf(buf, cap, "%s/.config/perflib/remote.conf", home);
    if (w > 0 && (size_t)w < cap && access(buf, F_OK) == 0) {
        *path = buf;
        return;
    }
    if (access(PL_REMOTE_SYSTEM_CONFIG, F_OK) == 0) *path = PL_REMOTE_SYSTEM_CONFIG;
}

static int apply_env(pl_remote_settings *s, pl_error *err)
{
    static const struct { const char *var, *key; } env[] = {
        {"PERFLIB_REMOTE_TLS", "tls"},
        {"PERFLIB_REMOTE_CONNECT_TIMEOUT_MS", "connect_timeout_ms"},
        {"PERFLIB_REMOTE_TIMEOUT_MS", "timeout_ms"},
        {"PERFLIB_REMOTE_MAX_BYTES", "max_bytes"},
        {"PERFLIB_REMOTE_CA_FILE", "ca_file"},
        /* Credentials are not read from here: they would go to every
         * target. apply_key refuses them outside a section. */
        {"PERFLIB_REMOTE_CERT_FILE", "cert_file"},
        {"PERFLIB_REMOTE_KEY_FILE", "key_file"},
        {"PERFLIB_REMOTE_TOKEN_FILE", "token_file"},
    };
    for (size_t i = 0; i < sizeof env / sizeof env[0]; i++) {
        const char *v = getenv(env[i].var);
        if (!v || !*v) continue;
        char where[64];
        snprintf(where, sizeof where, "environment %s", env[i].var);
        int rc = apply_key(s, env[i].key, strlen(env[i].key), v, strlen(v), 0, where, err);
        if (rc != PL_OK) return rc;
    }
    return PL_OK;
}

PL_EXTERN int pl_remote_settings_load_ex(const char *config_path_in, unsigned flags, const char *target,
                                         pl_remote_settings *out, pl_error *err)
{
    pl__clear(err);
    if (!out) return pl__fail(err, PL_E_INVAL, "pl_remote_settings_load: out is NULL");
    defaults(out);
    char buf[4096];
    const char *path;
    config_path(config_path_in, flags, buf, sizeof buf, &path);
    int rc = PL_OK;
    if (path) {
        char *text = NULL;
        size_t len = 0;
        rc = read_file(path, &text, &len, err);
        if (rc == PL_OK) {
            rc = parse_layers(text, len, flags, target, out, err);
            if (rc != PL_OK && rc != PL_E_DENIED && err) {
                /* name the file in front of "line N: ..." */
                char m[sizeof err->msg];
                snprintf(m, sizeof m, "%s", err->msg);
                pl__fail(err, rc, "remote configuration %s, %s", path, m);
            }
            free(text);
        }
    } else if (flags & PL_REMOTE_LISTED_ONLY) {
        rc = target ? pl__fail(err, PL_E_DENIED, "%s: not a configured remote machine (no remote configuration; no "
                                                "connection was made)", target)
                    : PL_OK;
    }
    if (rc == PL_OK && !(flags & PL_REMOTE_NO_ENVIRONMENT)) rc = apply_env(out, err);
    if (rc != PL_OK) pl_remote_settings_free(out);
    return rc;
}

PL_EXTERN int pl_remote_settings_load(const char *config_path_in, const char *target, pl_remote_settings *out,
                                      pl_error *err)
{
    return pl_remote_settings_load_ex(config_path_in, 0, target, out, err);
}
