/* This file is private to libperflib: no API/ABI guarantee.
 *
 * libcurl, loaded on first use (dlopen) instead of linked: every program
 * that links libperflib would otherwise load libcurl and the ~27 libraries
 * it brings (GnuTLS, Kerberos, LDAP, ...) and run their constructors at
 * start-up, ~4 ms of CPU per process here, although only a Foreign query
 * ever uses them (docs/benchmarks.md, "Start-up"). The header still comes
 * from libcurl's -dev package; the calls go through pl__curl. */
#ifndef PL_CURL_DL_H
#define PL_CURL_DL_H

#ifndef CURL_DISABLE_TYPECHECK
#define CURL_DISABLE_TYPECHECK 1 /* curl_easy_setopt/getinfo as plain functions */
#endif
#include <curl/curl.h>

struct pl__curl_api {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    CURLcode (*easy_perform)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    char *(*easy_escape)(CURL *, const char *, int);
    void (*free)(void *);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
};

extern struct pl__curl_api pl__curl;

/* Load libcurl (libcurl-gnutls.so.4, else libcurl.so.4) and resolve every
 * function above. Call once (pthread_once). Returns 0, or -1 with a message
 * in why (cap bytes). */
int pl__curl_load(char *why, size_t cap);

#endif
