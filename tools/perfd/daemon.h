/* perfd: what main.c, config.c, server.c and snap.c share (not for route
 * files: they use perfd.h). */
#ifndef PERFD_DAEMON_H
#define PERFD_DAEMON_H

#include <stddef.h>
#include <stdint.h>

#include "perfd.h"

#define PERFD_DEFAULT_PORT 9730
#define PERFD_MAX_LISTEN 16

typedef struct perfd_listen {
    char host[64];     /* numeric address as given, without brackets */
    unsigned port;
    int family;        /* AF_INET or AF_INET6 */
    int loopback;
} perfd_listen;

typedef struct perfd_config {
    perfd_listen listen[PERFD_MAX_LISTEN];
    size_t n_listen;
    char registry[4096];       /* "" = the default store / PERFLIB_REGISTRY */
    char system_name[256];     /* "" = the host name */
    char tls_cert[4096];       /* PEM certificate chain */
    char tls_key[4096];        /* PEM private key */
    char tls_client_ca[4096];  /* PEM CA bundle: when set, clients must present a certificate it signed */
    char token_file[4096];     /* bearer tokens, one a line */
    char remote_config[4096];  /* the remote machines perfd may reach ("" = none) */
    /* limits (docs/perfd.md "Limits") */
    unsigned max_connections;  /* in total */
    unsigned max_per_ip;
    unsigned idle_timeout_s;   /* no byte in either direction */
    unsigned request_timeout_s;/* from connection (or the previous answer) to the end of the request headers */
    size_t max_header_bytes;   /* request line + headers */
    size_t max_body_bytes;
    size_t max_query_bytes;    /* the q= argument */
    unsigned max_queries;      /* distinct query strings cached at once */
    unsigned max_age_ms;       /* a snapshot this young is served again */
    unsigned log_interval_s;   /* a repeated refusal is summed up once per interval */
} perfd_config;

void perfd_config_defaults(perfd_config *c);
/* Parse "ADDR:PORT", "[ADDR6]:PORT" or "ADDR" (default port). 0 or -1 with
 * a reason in why. */
int perfd_parse_listen(const char *s, perfd_listen *out, char *why, size_t whylen);
/* Read a config file into c (over the defaults or the command line).
 * 0, or -1 with "file:line: reason" in why. */
int perfd_config_file(const char *path, perfd_config *c, char *why, size_t whylen);
/* Parse config text (for the file and the fuzzer). */
int perfd_config_text(const char *text, size_t len, const char *name, perfd_config *c, char *why, size_t whylen);
/* Set one key as the command line does (adds listen addresses). */
int perfd_config_set(perfd_config *c, const char *key, const char *val, char *why, size_t whylen);
/* Is the configuration safe and complete? 0, or -1 with the reason. */
int perfd_config_check(const perfd_config *c, char *why, size_t whylen);

/* machines.c */
/* Read remote_config (at start, --check-config, SIGHUP). 0 with the number
 * of machines in *count, or -1 with the reason (the previous list stays). */
int perfd_machines_load(const perfd_config *c, int *count, char *why, size_t whylen);
/* Give the engine a remote client that reaches only those machines. */
int perfd_machines_client(pl_engine *e, const perfd_config *c, char *why, size_t whylen);
void perfd_machines_interrupt(void); /* ends remote transfers in progress */
void perfd_machines_free(void);

/* loglimit.c: refusal lines with a rate limit (one summary per interval). */
void perfd_loglimit_init(unsigned seconds);
void perfd_log_refusal(unsigned status, const char *reason, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void perfd_loglimit_tick(void); /* the reaper, four times a second */

/* origin.c: Host and Origin (DNS rebinding, other sites' pages). 0, or the
 * HTTP status to refuse with and the reason. */
int perfd_origin_check(struct MHD_Connection *conn, const perfd_listen *l, char *why, size_t whylen);

/* snap.c */
int perfd_snap_start(pl_engine *e, const perfd_config *c);
void perfd_snap_stop(void);               /* joins the collector, wakes every waiter */
void perfd_snap_end_request(perfd_req *r); /* drops what a request held */

/* work.c: the worker finishes its queue and exits (before the server stops) */
void perfd_work_stop(void);

/* server.c */
struct sockaddr;
void perfd_addr_text(const struct sockaddr *sa, char *out, size_t len); /* "?" when unknown */
int perfd_server_start(const perfd_config *c, char *why, size_t whylen);
void perfd_server_stop(void);
/* Re-read certificates and tokens (SIGHUP). 0 or -1 with the reason; on
 * failure the previous ones stay. */
int perfd_server_reload(const perfd_config *c, char *why, size_t whylen);

#endif
