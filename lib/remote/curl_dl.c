/* perflib: libcurl loaded on first use (curl_dl.h). */
#include "curl_dl.h"

#include "pl_internal.h"

struct pl__curl_api pl__curl;

/* The runtime names of libcurl's ABI 4 (stable since curl 7.16): Debian's
 * GnuTLS flavour, which the build uses (libcurl4-gnutls-dev), then the
 * OpenSSL one that other distributions ship as the only libcurl. */
static const char *const sonames[] = {"libcurl-gnutls.so.4", "libcurl.so.4"};

int pl__curl_load(char *why, size_t cap)
{
    const pl__dl_sym fns[] = {
        {"curl_global_init", &pl__curl.global_init},
        {"curl_easy_init", &pl__curl.easy_init},
        {"curl_easy_cleanup", &pl__curl.easy_cleanup},
        {"curl_easy_reset", &pl__curl.easy_reset},
        {"curl_easy_setopt", &pl__curl.easy_setopt},
        {"curl_easy_getinfo", &pl__curl.easy_getinfo},
        {"curl_easy_perform", &pl__curl.easy_perform},
        {"curl_easy_strerror", &pl__curl.easy_strerror},
        {"curl_easy_escape", &pl__curl.easy_escape},
        {"curl_free", &pl__curl.free},
        {"curl_slist_append", &pl__curl.slist_append},
        {"curl_slist_free_all", &pl__curl.slist_free_all},
    };
    return pl__dl_load("libcurl", sonames, sizeof sonames / sizeof sonames[0], fns, sizeof fns / sizeof fns[0], why,
                       cap);
}
