/* perflib: the remote client — performance data from perfd on another machine.
 *
 * The query engine's "Foreign <host[:port]> [query]" (query.h) comes here: the
 * client asks perfd at that address for `query` over HTTP or HTTPS
 * (GET /v1/query?q=...), with bounded timeouts and a size cap, and checks the
 * answer with the block reader like any provider result before handing it
 * out. Credentials (a bearer token) and TLS material (CA, client certificate)
 * come from a configuration file and environment variables; see
 * docs/query-engine.md, "Foreign queries". */
#ifndef PERFLIB_REMOTE_H
#define PERFLIB_REMOTE_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* perfd's port when a target names only the host. */
#define PL_REMOTE_DEFAULT_PORT 9730u

/* Limits that apply when neither the file nor the environment sets them. */
#define PL_REMOTE_DEFAULT_CONNECT_TIMEOUT_MS 3000L
#define PL_REMOTE_DEFAULT_TIMEOUT_MS 10000L
#define PL_REMOTE_DEFAULT_MAX_BYTES ((uint64_t)64 << 20)
/* Hard bounds on what a configuration may ask for. */
#define PL_REMOTE_MAX_TIMEOUT_MS 600000L
#define PL_REMOTE_MAX_MAX_BYTES ((uint64_t)1 << 30)

typedef enum pl_remote_tls {
    PL_REMOTE_TLS_AUTO = 0,   /* plain HTTP to a loopback address, HTTPS to anything else */
    PL_REMOTE_TLS_ON = 1,     /* always HTTPS */
    PL_REMOTE_TLS_OFF = 2,    /* always plain HTTP (refused with a token to a non-loopback host) */
} pl_remote_tls;

/* The settings for one target, as resolved from the defaults, the
 * configuration file's global part, its [target] section, then the
 * environment (later ones win). Strings are owned by the settings. */
typedef struct pl_remote_settings {
    pl_remote_tls tls;
    long connect_timeout_ms;  /* 1 .. PL_REMOTE_MAX_TIMEOUT_MS */
    long timeout_ms;          /* the whole request, connect included */
    uint64_t max_bytes;       /* the largest answer accepted, 1 .. PL_REMOTE_MAX_MAX_BYTES */
    char *address;            /* connect here instead of resolving the host name (TLS still checks the name) */
    unsigned port;            /* 0: the target's port, else PL_REMOTE_DEFAULT_PORT */
    char *ca_file;            /* PEM CA bundle to trust; NULL: the system's */
    char *cert_file;          /* PEM client certificate (mutual TLS) */
    char *key_file;           /* its PEM key; NULL: in cert_file */
    char *token_file;         /* a file holding the bearer token (first line) */
    int listed;               /* the target has a [section] of its own (its host, or host:port) */
    int tls_off_for_machine;  /* "tls = off" was written in that machine's own section */
} pl_remote_settings;

/* Flags of the _ex calls below.
 *   PL_REMOTE_LISTED_ONLY     only machines that have a [section] of their
 *                             own may be asked (a [host] section covers the
 *                             host at its port: the section's `port`, else
 *                             9730; a [host:port] section that port); any
 *                             other target is PL_E_DENIED before a socket
 *                             is opened. For a daemon (perfd) whose callers
 *                             name the machine.
 *   PL_REMOTE_NO_ENVIRONMENT  neither PERFLIB_REMOTE_* nor the default file
 *                             search: config_path or nothing. */
#define PL_REMOTE_LISTED_ONLY 0x1u
#define PL_REMOTE_NO_ENVIRONMENT 0x2u

/* The settings for `target` (NULL for the global part only). `config_path`
 * NULL uses $PERFLIB_REMOTE_CONFIG, else $XDG_CONFIG_HOME/perflib/remote.conf
 * (~/.config/...), else /etc/perflib/remote.conf, the first that is set or
 * exists; none is fine. A file that is named but unreadable, or malformed, is
 * an error (PL_E_IO, PL_E_PARSE naming the line). Free with
 * pl_remote_settings_free. */
PL_EXTERN int pl_remote_settings_load(const char *config_path, const char *target, pl_remote_settings *out,
                                      pl_error *err);
/* The same, from a configuration text in memory (no environment, no file). */
PL_EXTERN int pl_remote_settings_parse(const char *text, size_t len, const char *target, pl_remote_settings *out,
                                       pl_error *err);
PL_EXTERN void pl_remote_settings_free(pl_remote_settings *s); /* accepts NULL and zeroed */
/* The same with flags (PL_REMOTE_LISTED_ONLY: PL_E_DENIED for a target
 * without a section of its own, naming it; the settings are then not
 * filled). */
PL_EXTERN int pl_remote_settings_load_ex(const char *config_path, unsigned flags, const char *target,
                                         pl_remote_settings *out, pl_error *err);
PL_EXTERN int pl_remote_settings_parse_ex(const char *text, size_t len, unsigned flags, const char *target,
                                          pl_remote_settings *out, pl_error *err);

/* Credentials are bound to machines: token_file, cert_file and key_file
 * are accepted only inside a [section], and never from the environment
 * (PL_E_PARSE names the line or variable). A bearer token goes over plain
 * HTTP only to a loopback address whose own section says "tls = off";
 * with "tls = auto" a machine that has a token is asked over HTTPS, even
 * on loopback. */

/* Split a target: "host", "host:port", "[v6]", "[v6]:port", a bare IPv6
 * address, each optionally after "\\" (a PDH machine name). host receives the
 * name without brackets; *port 0 when none was given. PL_E_PARSE for an
 * empty host, a bad port (not 1..65535) or characters that cannot be in a
 * host name (whitespace, '/', '?', '#', '@', control bytes). */
PL_EXTERN int pl_remote_parse_target(const char *target, char *host, size_t cap, unsigned *port, pl_error *err);

/* A client: reuses connections between queries (one pool per client). May
 * be used from several threads at once. */
typedef struct pl_remote pl_remote;

/* config_path as for pl_remote_settings_load; the file is read again at
 * every query, so a rotated token or certificate is used at once. */
PL_EXTERN int pl_remote_open(const char *config_path, pl_remote **out, pl_error *err);
/* The same with flags (PL_REMOTE_*): every query of this client obeys them. */
PL_EXTERN int pl_remote_open_ex(const char *config_path, unsigned flags, pl_remote **out, pl_error *err);
/* End the queries in progress on r at once (they fail with PL_E_REMOTE,
 * "interrupted"), and every later one: for a daemon that stops. Safe from
 * any thread; r stays valid until pl_remote_close. */
PL_EXTERN void pl_remote_interrupt(pl_remote *r);
PL_EXTERN void pl_remote_close(pl_remote *r); /* accepts NULL */

/* Run `query` (NULL or "" is Global) on perfd at `target`. On PL_OK, *out
 * (freed with pl_free) holds *len bytes: a validated PERF_DATA_BLOCK carrying
 * the remote machine's system name (*type PL_REG_BINARY, 3), or for a title
 * query ("Counter 009", "Explain") a UTF-16LE MULTI_SZ (*type PL_REG_MULTI_SZ,
 * 7). Errors, each with a message naming the target:
 *   PL_E_PARSE      a malformed target
 *   PL_E_DENIED     a client opened with PL_REMOTE_LISTED_ONLY, and the
 *                   target has no section of its own (nothing was sent)
 *   PL_E_REMOTE     not reachable: name not resolved, connection refused,
 *                   timed out, reset, or an HTTP error status from perfd
 *   PL_E_AUTH       perfd refused the credentials (401, 403), or its
 *                   certificate was not trusted, or the client's could not
 *                   be loaded
 *   PL_E_BAD_BLOCK  the answer is not a valid block / MULTI_SZ
 *   PL_E_RANGE      the answer is larger than max_bytes
 *   PL_E_IO         the configuration or token file could not be read
 *   PL_E_PARSE      the configuration is malformed */
PL_EXTERN int pl_remote_query(pl_remote *r, const char *target, const char *query, void **out, size_t *len,
                              uint32_t *type, pl_error *err);

#ifdef __cplusplus
}
#endif

#endif
