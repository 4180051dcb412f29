/* perfd: the remote machines this perfd may reach (docs/perfd.md, "Remote
 * machines").
 *
 * A request never names a machine perfd then connects to: the operator
 * lists them in `remote_config`, a file in the remote client's own format
 * (docs/query-engine.md), where every [host] or [host:port] section is one
 * machine, with its credentials and TLS settings. No file: no machine. The
 * file is read at start and on SIGHUP; the lookup is in memory, so the
 * server thread can ask it. The engine's remote client is opened on the same
 * file with PL_REMOTE_LISTED_ONLY | PL_REMOTE_NO_ENVIRONMENT, so even a
 * Foreign query that reached the engine some other way cannot open a socket
 * to a machine that is not listed, nor take a credential from perfd's
 * environment. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "perflib/remote.h"

#define MACHINES_FLAGS (PL_REMOTE_LISTED_ONLY | PL_REMOTE_NO_ENVIRONMENT)
#define MACHINES_MAX_BYTES (1u << 20)

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char *text;          /* the file as last loaded ("" when none) */
static size_t text_len;
static pl_remote *client;   /* the engine's (owned by the engine) */

/* A credential or CA file a section names must be a readable regular file. */
static int file_ok(const char *what, const char *section, const char *path, char *why, size_t whylen)
{
    struct stat sb;
    if (!path) return 0;
    if (stat(path, &sb) != 0) {
        snprintf(why, whylen, "remote_config [%s]: %s %s: %s", section, what, path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(sb.st_mode)) {
        snprintf(why, whylen, "remote_config [%s]: %s %s: not a regular file", section, what, path);
        return -1;
    }
    if (access(path, R_OK) != 0) {
        snprintf(why, whylen, "remote_config [%s]: %s %s: not readable by perfd", section, what, path);
        return -1;
    }
    return 0;
}

/* Every section of the text, checked: the settings it gives its machine
 * parse, and the files they name can be read. Returns the number of
 * machines, or -1. */
static int check_sections(const char *t, size_t len, char *why, size_t whylen)
{
    int n = 0;
    for (size_t i = 0; i < len;) {
        size_t b = i;
        while (i < len && t[i] != '\n') i++;
        size_t e = i++;
        while (b < e && (t[b] == ' ' || t[b] == '\t')) b++;
        while (e > b && (t[e - 1] == ' ' || t[e - 1] == '\t' || t[e - 1] == '\r')) e--;
        if (e - b < 3 || t[b] != '[' || t[e - 1] != ']') continue;
        char name[300];
        size_t nn = e - b - 2;
        if (nn >= sizeof name) {
            snprintf(why, whylen, "remote_config: a section name longer than %zu bytes", sizeof name - 1);
            return -1;
        }
        memcpy(name, t + b + 1, nn);
        name[nn] = 0;
        pl_remote_settings st;
        pl_error err = {0};
        if (pl_remote_settings_parse_ex(t, len, PL_REMOTE_LISTED_ONLY, name, &st, &err) != PL_OK) {
            snprintf(why, whylen, "remote_config [%.200s]: %.400s", name, err.msg);
            return -1;
        }
        int bad = file_ok("token_file", name, st.token_file, why, whylen) ||
                  file_ok("ca_file", name, st.ca_file, why, whylen) ||
                  file_ok("cert_file", name, st.cert_file, why, whylen) ||
                  file_ok("key_file", name, st.key_file, why, whylen);
        pl_remote_settings_free(&st);
        if (bad) return -1;
        n++;
    }
    return n;
}

int perfd_machines_load(const perfd_config *c, int *count, char *why, size_t whylen)
{
    char *t = calloc(1, 1);
    size_t len = 0;
    if (!t) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    if (c->remote_config[0]) {
        FILE *f = fopen(c->remote_config, "rb");
        struct stat sb;
        if (!f || fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
            snprintf(why, whylen, "remote_config %s: %s", c->remote_config, f ? "not a regular file" : strerror(errno));
            if (f) fclose(f);
            free(t);
            return -1;
        }
        char *buf = realloc(t, MACHINES_MAX_BYTES + 1);
        len = buf ? fread(buf, 1, MACHINES_MAX_BYTES + 1, f) : 0;
        int bad = !buf || ferror(f) || len > MACHINES_MAX_BYTES;
        fclose(f);
        t = buf ? buf : t;
        if (bad) {
            snprintf(why, whylen, "remote_config %s: %s", c->remote_config,
                     !buf ? "out of memory" : len > MACHINES_MAX_BYTES ? "larger than 1 MiB" : "read error");
            free(t);
            return -1;
        }
        t[len] = 0;
        /* every line, in every section: credentials only in a section */
        pl_remote_settings st;
        pl_error err = {0};
        if (pl_remote_settings_parse_ex(t, len, 0, NULL, &st, &err) != PL_OK) {
            snprintf(why, whylen, "remote_config %s: %s", c->remote_config, err.msg);
            free(t);
            return -1;
        }
        pl_remote_settings_free(&st);
    }
    char sub[1024];
    int n = check_sections(t, len, sub, sizeof sub);
    if (n < 0) {
        snprintf(why, whylen, "%s", sub);
        free(t);
        return -1;
    }
    if (count) *count = n;
    pthread_mutex_lock(&mu);
    char *old = text;
    text = t;
    text_len = len;
    pthread_mutex_unlock(&mu);
    free(old);
    return 0;
}

int perfd_machines_client(pl_engine *e, const perfd_config *c, char *why, size_t whylen)
{
    pl_error err = {0};
    pl_remote *r = NULL;
    /* libcurl is loaded at the client's first transfer (without it, each
     * remote request fails saying so) */
    if (pl_remote_open_ex(c->remote_config[0] ? c->remote_config : NULL, MACHINES_FLAGS, &r, &err) != PL_OK) {
        snprintf(why, whylen, "remote client: %s", err.msg);
        return -1;
    }
    if (pl_engine_set_remote(e, r, &err) != PL_OK) {
        pl_remote_close(r);
        snprintf(why, whylen, "remote client: %s", err.msg);
        return -1;
    }
    client = r;
    return 0;
}

void perfd_machines_interrupt(void)
{
    pl_remote_interrupt(client);
}

void perfd_machines_free(void)
{
    pthread_mutex_lock(&mu);
    free(text);
    text = NULL;
    text_len = 0;
    pthread_mutex_unlock(&mu);
    client = NULL;
}

int perfd_machine_lookup(const char *target, pl_remote_settings *out, char *key, size_t keylen, char *why,
                         size_t whylen)
{
    char host[256];
    unsigned port = 0;
    pl_error err = {0};
    if (pl_remote_parse_target(target, host, sizeof host, &port, &err) != PL_OK) {
        snprintf(why, whylen, "%s", err.msg);
        return -1;
    }
    pl_remote_settings st;
    pthread_mutex_lock(&mu);
    int rc = pl_remote_settings_parse_ex(text ? text : "", text ? text_len : 0, PL_REMOTE_LISTED_ONLY, target, &st,
                                         &err);
    pthread_mutex_unlock(&mu);
    if (rc != PL_OK) {
        if (rc == PL_E_DENIED)
            snprintf(why, whylen, "machine %s is not one of perfd's remote machines (remote_config); no connection "
                                  "was made", target);
        else
            snprintf(why, whylen, "%s", err.msg);
        return rc == PL_E_DENIED ? 0 : -1;
    }
    if (key) {
        for (char *p = host; *p; p++)
            if (*p >= 'A' && *p <= 'Z') *p = (char)(*p + 32);
        snprintf(key, keylen, strchr(host, ':') ? "[%s]:%u" : "%s:%u", host,
                 port ? port : st.port ? st.port : PL_REMOTE_DEFAULT_PORT);
    }
    if (out)
        *out = st;
    else
        pl_remote_settings_free(&st);
    return 1;
}

int perfd_machine_is_local(const char *machine)
{
    if (!machine || !*machine) return 1;
    if (machine[0] == '\\' && machine[1] == '\\') machine += 2;
    return strcmp(machine, ".") == 0 || strcasecmp(machine, "localhost") == 0 ||
           strcasecmp(machine, pl_engine_system_name(perfd_engine())) == 0;
}
