/* perfd: libmicrohttpd's own error answers in perfd's form.
 *
 * For a request it cannot parse at all (a malformed request or header line,
 * headers past its memory, broken chunked framing, an HTTP version it does
 * not speak), libmicrohttpd 0.9.x answers by itself, before perfd sees the
 * request: a short HTML page without a Content-Type, and no log line of
 * perfd's. It has no option to change that body, but it queues the answer
 * through its exported MHD_queue_response, which this file defines too: the
 * executable's definition comes first in the dynamic symbol lookup, so
 * libmicrohttpd's calls land here. An answer of status 400 or more that
 * carries no Content-Type can only be libmicrohttpd's (every perfd answer
 * names its type): it is replaced by a text/plain reason, logged as one
 * line like every other refusal, and handed to the real function. Anything
 * else goes through unchanged. test_perfd_http checks that this holds for
 * the libmicrohttpd perfd runs with. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "daemon.h"

typedef enum MHD_Result (*queue_fn)(struct MHD_Connection *, unsigned int, struct MHD_Response *);

static queue_fn real_queue;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void find_real(void)
{
    real_queue = (queue_fn)dlsym(RTLD_NEXT, "MHD_queue_response");
}

static const char *reason_of(unsigned status)
{
    switch (status) {
    case MHD_HTTP_BAD_REQUEST: return "malformed request (libmicrohttpd could not parse it)";
    case MHD_HTTP_CONTENT_TOO_LARGE: return "request body too large";
    case MHD_HTTP_URI_TOO_LONG: return "request line too long";
    case MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE: return "request headers too large";
    case MHD_HTTP_HTTP_VERSION_NOT_SUPPORTED: return "HTTP version not supported";
    case MHD_HTTP_NOT_IMPLEMENTED: return "not implemented";
    case MHD_HTTP_SERVICE_UNAVAILABLE: return "service unavailable";
    default: return "request refused";
    }
}

__attribute__((visibility("default"))) enum MHD_Result MHD_queue_response(struct MHD_Connection *connection,
                                                                          unsigned int status_code,
                                                                          struct MHD_Response *response);

__attribute__((visibility("default"))) enum MHD_Result MHD_queue_response(struct MHD_Connection *connection,
                                                                          unsigned int status_code,
                                                                          struct MHD_Response *response)
{
    pthread_once(&once, find_real);
    if (!real_queue) return MHD_NO;
    if (status_code < 400 || !response || MHD_get_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE))
        return real_queue(connection, status_code, response);
    const char *why = reason_of(status_code);
    char client[64] = "?";
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    perfd_addr_text(ci ? ci->client_addr : NULL, client, sizeof client);
    perfd_log_refusal(status_code, why, "%u %s - -: %s", status_code, client, why);
    char body[128];
    int n = snprintf(body, sizeof body, "%s\n", why);
    struct MHD_Response *mine =
        MHD_create_response_from_buffer((size_t)n, body, MHD_RESPMEM_MUST_COPY);
    if (!mine) return real_queue(connection, status_code, response);
    MHD_add_response_header(mine, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
    MHD_add_response_header(mine, "Cache-Control", "no-store");
    MHD_add_response_header(mine, "X-Content-Type-Options", "nosniff");
    enum MHD_Result rc = real_queue(connection, status_code, mine);
    MHD_destroy_response(mine);
    return rc;
}
