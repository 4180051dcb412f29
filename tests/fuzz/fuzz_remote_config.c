/* libFuzzer target for the remote client's text inputs: the configuration
 * file (pl_remote_settings_parse, for a target with and without a section,
 * and with PL_REMOTE_LISTED_ONLY as perfd reads its remote_config)
 * and the target string of a Foreign query (pl_remote_parse_target). What
 * parses must be consistent: strings set are NUL-terminated and the numbers
 * within their documented bounds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/remote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const pl_remote_settings *s)
{
    if (s->connect_timeout_ms < 1 || s->connect_timeout_ms > PL_REMOTE_MAX_TIMEOUT_MS) abort();
    if (s->timeout_ms < 1 || s->timeout_ms > PL_REMOTE_MAX_TIMEOUT_MS) abort();
    if (s->max_bytes < 1 || s->max_bytes > PL_REMOTE_MAX_MAX_BYTES) abort();
    if (s->port > 65535) abort();
    const char *strs[] = {s->address, s->ca_file, s->cert_file, s->key_file, s->token_file};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        if (strs[i] && strlen(strs[i]) > 1u << 20) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const targets[] = {NULL, "web1", "web1:9730", "\\\\[::1]:80"};
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        pl_remote_settings s;
        pl_error err;
        if (pl_remote_settings_parse((const char *)data, size, targets[i], &s, &err) == PL_OK) check(&s);
        else if (!memchr(err.msg, '\0', sizeof err.msg)) abort();
        pl_remote_settings_free(&s);
        /* perfd's allow-list: listed, or PL_E_DENIED, never both */
        int rc = pl_remote_settings_parse_ex((const char *)data, size, PL_REMOTE_LISTED_ONLY, targets[i], &s, &err);
        if (rc == PL_OK) {
            check(&s);
            if (targets[i] && !s.listed) abort();
        } else if (!memchr(err.msg, '\0', sizeof err.msg)) {
            abort();
        }
        pl_remote_settings_free(&s);
    }
    char *t = malloc(size + 1);
    if (!t) return 0;
    memcpy(t, data, size);
    t[size] = '\0';
    char host[256];
    unsigned port = 0;
    if (pl_remote_parse_target(t, host, sizeof host, &port, NULL) == 0) {
        if (port > 65535 || !host[0] || strlen(host) > 253) abort();
    }
    free(t);
    return 0;
}
