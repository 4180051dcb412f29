/* perfd: TLS (libmicrohttpd's GnuTLS support), client certificates and
 * bearer tokens. Loaded at start and again on SIGHUP. */
#ifndef PERFD_TLS_H
#define PERFD_TLS_H

#include <stddef.h>

#include <microhttpd.h>

#include "daemon.h"

/* Load (or reload) the certificate, key, client CA and tokens the config
 * names. 0, or -1 with the reason (the previous material stays in use). */
int perfd_tls_load(const perfd_config *c, char *why, size_t whylen);
/* The libmicrohttpd options that turn TLS on (0 when no certificate is
 * configured). At most max items. */
size_t perfd_tls_options(struct MHD_OptionItem *items, size_t max);
/* 0 when the request may proceed, else the HTTP status to refuse it with
 * (401 token missing or wrong, 403 client certificate missing or not
 * trusted) and the reason in why. */
int perfd_tls_authorize(struct MHD_Connection *conn, char *why, size_t whylen);
/* Does the server certificate name `host` (a DNS name or an address)? */
int perfd_tls_cert_names(const char *host);
/* Is token authentication on / are client certificates required? */
int perfd_tls_have_tokens(void);
void perfd_tls_free(void);

#endif
