/* perfd: the core routes, /healthz and /v1/query (docs/perfd.md). */
#include <stdio.h>
#include <string.h>

#include "daemon.h"

static int healthz(perfd_req *r)
{
    static const char ok[] = "ok\n";
    return perfd_reply_bytes(r, MHD_HTTP_OK, "text/plain; charset=utf-8", ok, sizeof ok - 1);
}
PERFD_ROUTE(healthz, "GET", "/healthz", PERFD_NOAUTH, healthz)

static int v1_query(perfd_req *r)
{
    int rc = PERFD_DONE;
    const char *q = perfd_query_arg(r, &rc);
    if (!q) return rc;
    perfd_snap *s = perfd_snapshot(r, q);
    if (!s) return PERFD_WAIT;
    if (s->status != PL_OK) return perfd_reply_snap_error(r, s);
    return perfd_reply_snap(r, MHD_HTTP_OK, "application/octet-stream", s);
}
PERFD_ROUTE(v1_query, "GET", "/v1/query", 0, v1_query)
