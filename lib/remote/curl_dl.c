/* perflib: libcurl loaded on first use (curl_dl.h). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "curl_dl.h"

struct pl__curl_api pl__curl;

/* The runtime names of libcurl's ABI 4 (stable since curl 7.16): Debian's
 * GnuTLS flavour, which the build uses (libcurl4-gnutls-dev), then the
 * OpenSSL one that other distributions ship as the only libcurl. */
static const char *const sonames[] = {"libcurl-gnutls.so.4", "libcurl.so.4"};

int pl__curl_load(char *why, size_t cap)
{
    void *so = NULL;
    const char *err = "";
    for (size_t i = 0; i < sizeof sonames / sizeof sonames[0] && !so; i++) {
        so = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (!so) err = dlerror();
    }
    if (!so) {
        snprintf(why, cap, "cannot load libcurl: %s", err ? err : "?");
        return -1;
    }
    struct {
        const char *name;
        void **slot;
    } fns[] = {
        {"curl_global_init", (void **)&pl__curl.global_init},
        {"curl_easy_init", (void **)&pl__curl.easy_init},
        {"curl_easy_cleanup", (void **)&pl__curl.easy_cleanup},
        {"curl_easy_reset", (void **)&pl__curl.easy_reset},
        {"curl_easy_setopt", (void **)&pl__curl.easy_setopt},
        {"curl_easy_getinfo", (void **)&pl__curl.easy_getinfo},
        {"curl_easy_perform", (void **)&pl__curl.easy_perform},
        {"curl_easy_strerror", (void **)&pl__curl.easy_strerror},
        {"curl_easy_escape", (void **)&pl__curl.easy_escape},
        {"curl_free", (void **)&pl__curl.free},
        {"curl_slist_append", (void **)&pl__curl.slist_append},
        {"curl_slist_free_all", (void **)&pl__curl.slist_free_all},
    };
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        void *f = dlsym(so, fns[i].name);
        if (!f) {
            snprintf(why, cap, "libcurl has no %s", fns[i].name);
            memset(&pl__curl, 0, sizeof pl__curl);
            return -1; /* the library stays loaded: dlclose of a half-used libcurl gains nothing */
        }
        memcpy(fns[i].slot, &f, sizeof f);
    }
    return 0;
}
