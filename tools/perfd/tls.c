/* perfd: TLS material and authentication.
 *
 * The server certificate reaches GnuTLS through a retrieve callback that
 * reads the current set, so SIGHUP can swap certificate and key without
 * restarting the listeners. Sets that were replaced stay allocated until
 * exit (a handshake in flight may still use one); there is one per reload.
 * Client certificates are verified here, against the current CA list, not
 * by GnuTLS's handshake. Tokens are kept as SHA-256 digests and compared in
 * constant time: no early exit on the first differing byte, and every
 * configured token is compared. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <gnutls/abstract.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "tls.h"

#define MAX_CHAIN 16
#define MAX_TOKENS 64
#define MAX_FILE (1u << 20)

typedef struct tls_set {
    gnutls_pcert_st chain[MAX_CHAIN];
    unsigned n_chain;
    gnutls_privkey_t key;
    gnutls_x509_crt_t leaf;           /* the server certificate (its names, its dates) */
    gnutls_x509_trust_list_t ca;      /* NULL: no client certificates asked for */
    unsigned char tokens[MAX_TOKENS][32];
    unsigned n_tokens;
    int have_cert;
    struct tls_set *older;
} tls_set;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static tls_set *cur;
static char *trust_pem; /* the CA text given to libmicrohttpd at start (makes it ask for client certificates) */

static void set_free(tls_set *s)
{
    if (!s) return;
    for (unsigned i = 0; i < s->n_chain; i++) gnutls_pcert_deinit(&s->chain[i]);
    if (s->key) gnutls_privkey_deinit(s->key);
    if (s->leaf) gnutls_x509_crt_deinit(s->leaf);
    if (s->ca) gnutls_x509_trust_list_deinit(s->ca, 1);
    free(s);
}

/* Read a whole (small) file. */
static char *slurp(const char *path, size_t *len, char *why, size_t whylen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(MAX_FILE + 1);
    size_t n = buf ? fread(buf, 1, MAX_FILE + 1, f) : 0;
    int bad = !buf || ferror(f) || n > MAX_FILE;
    fclose(f);
    if (bad) {
        snprintf(why, whylen, "%s: %s", path, !buf ? "out of memory" : n > MAX_FILE ? "larger than 1 MiB" : "read error");
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

static int load_tokens(tls_set *s, const char *path, char *why, size_t whylen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "%s: the token file is not a regular file (%s)", path,
                 S_ISDIR(st.st_mode) ? "a directory" : "a device, pipe or socket");
        return -1;
    }
    if (st.st_mode & (S_IRWXG | S_IRWXO)) {
        snprintf(why, whylen, "%s: the token file is open to other users (mode %04o; chmod 600)", path,
                 (unsigned)(st.st_mode & 07777));
        return -1;
    }
    size_t len = 0;
    char *text = slurp(path, &len, why, whylen);
    if (!text) return -1;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t')) line[--n] = 0;
        while (*line == ' ' || *line == '\t') line++, n--;
        if (!n || line[0] == '#') continue;
        if (n < 16) {
            snprintf(why, whylen, "%s: a token shorter than 16 characters", path);
            free(text);
            return -1;
        }
        if (s->n_tokens == MAX_TOKENS) {
            snprintf(why, whylen, "%s: more than %d tokens", path, MAX_TOKENS);
            free(text);
            return -1;
        }
        gnutls_hash_fast(GNUTLS_DIG_SHA256, line, n, s->tokens[s->n_tokens++]);
    }
    explicit_bzero(text, len);
    free(text);
    if (!s->n_tokens) {
        snprintf(why, whylen, "%s: no token in the file", path);
        return -1;
    }
    return 0;
}

static void utc_text(time_t t, char *out, size_t len)
{
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(out, len, "%Y-%m-%d %H:%M:%S UTC", &tm)) snprintf(out, len, "?");
}

/* A certificate every handshake would fail with is refused at load, with
 * the reason: its key is not the one configured, it is not valid now, or
 * it is not for TLS server use (its key usage or extended key usage). */
static int check_cert(tls_set *s, const perfd_config *c, char *why, size_t whylen)
{
    unsigned char kc[64], kk[64];
    size_t nc = sizeof kc, nk = sizeof kk;
    gnutls_pubkey_t pub = NULL;
    int rc = gnutls_pubkey_init(&pub);
    if (rc >= 0) rc = gnutls_pubkey_import_privkey(pub, s->key, 0, 0);
    if (rc >= 0) rc = gnutls_pubkey_get_key_id(pub, GNUTLS_KEYID_USE_SHA256, kk, &nk);
    if (rc >= 0) rc = gnutls_x509_crt_get_key_id(s->leaf, GNUTLS_KEYID_USE_SHA256, kc, &nc);
    if (pub) gnutls_pubkey_deinit(pub);
    if (rc < 0) {
        snprintf(why, whylen, "%s: cannot compare the certificate with the key %s: %s", c->tls_cert, c->tls_key,
                 gnutls_strerror(rc));
        return -1;
    }
    if (nc != nk || memcmp(kc, kk, nc) != 0) {
        snprintf(why, whylen, "%s: the certificate is not for the key %s (they do not match)", c->tls_cert,
                 c->tls_key);
        return -1;
    }
    time_t now = time(NULL), from = gnutls_x509_crt_get_activation_time(s->leaf),
           until = gnutls_x509_crt_get_expiration_time(s->leaf);
    char t[64];
    if (from != (time_t)-1 && now < from) {
        utc_text(from, t, sizeof t);
        snprintf(why, whylen, "%s: the certificate is not valid before %s", c->tls_cert, t);
        return -1;
    }
    if (until != (time_t)-1 && now > until) {
        utc_text(until, t, sizeof t);
        snprintf(why, whylen, "%s: the certificate expired on %s", c->tls_cert, t);
        return -1;
    }
    unsigned usage = 0, critical = 0;
    if (gnutls_x509_crt_get_key_usage(s->leaf, &usage, &critical) >= 0 &&
        !(usage & (GNUTLS_KEY_DIGITAL_SIGNATURE | GNUTLS_KEY_KEY_ENCIPHERMENT))) {
        snprintf(why, whylen, "%s: the certificate's key usage allows neither signing nor key encipherment: "
                              "not usable for a TLS server", c->tls_cert);
        return -1;
    }
    int any = 0, server = 0;
    for (unsigned i = 0;; i++) {
        char oid[128];
        size_t n = sizeof oid;
        rc = gnutls_x509_crt_get_key_purpose_oid(s->leaf, i, oid, &n, NULL);
        if (rc == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE) break;
        if (rc < 0) continue; /* an OID too long for us: not the server one */
        any = 1;
        if (strcmp(oid, GNUTLS_KP_TLS_WWW_SERVER) == 0 || strcmp(oid, GNUTLS_KP_ANY) == 0) server = 1;
    }
    if (any && !server) {
        snprintf(why, whylen, "%s: the certificate's extended key usage does not include TLS server "
                              "authentication", c->tls_cert);
        return -1;
    }
    return 0;
}

static int load_cert(tls_set *s, const perfd_config *c, char *why, size_t whylen)
{
    size_t clen = 0, klen = 0;
    char *cert = slurp(c->tls_cert, &clen, why, whylen);
    if (!cert) return -1;
    char *key = slurp(c->tls_key, &klen, why, whylen);
    if (!key) {
        free(cert);
        return -1;
    }
    gnutls_datum_t cd = {(unsigned char *)cert, (unsigned)clen}, kd = {(unsigned char *)key, (unsigned)klen};
    unsigned n = MAX_CHAIN;
    int rc = gnutls_pcert_list_import_x509_raw(s->chain, &n, &cd, GNUTLS_X509_FMT_PEM, 0);
    if (rc < 0) {
        snprintf(why, whylen, "%s: %s", c->tls_cert, gnutls_strerror(rc));
    } else {
        s->n_chain = n;
        rc = gnutls_privkey_init(&s->key);
        if (rc >= 0) rc = gnutls_privkey_import_x509_raw(s->key, &kd, GNUTLS_X509_FMT_PEM, NULL, 0);
        if (rc < 0) snprintf(why, whylen, "%s: %s", c->tls_key, gnutls_strerror(rc));
    }
    if (rc >= 0) {
        rc = gnutls_x509_crt_init(&s->leaf);
        if (rc >= 0) rc = gnutls_x509_crt_import(s->leaf, &s->chain[0].cert, GNUTLS_X509_FMT_DER);
        if (rc < 0) snprintf(why, whylen, "%s: %s", c->tls_cert, gnutls_strerror(rc));
        else if (check_cert(s, c, why, whylen) != 0) rc = -1;
    }
    explicit_bzero(key, klen);
    free(key);
    free(cert);
    if (rc < 0) return -1;
    s->have_cert = 1;
    return 0;
}

static int load_ca(tls_set *s, const char *path, char **pem_out, char *why, size_t whylen)
{
    size_t len = 0;
    char *pem = slurp(path, &len, why, whylen);
    if (!pem) return -1;
    gnutls_datum_t d = {(unsigned char *)pem, (unsigned)len};
    int rc = gnutls_x509_trust_list_init(&s->ca, 0);
    if (rc >= 0) rc = gnutls_x509_trust_list_add_trust_mem(s->ca, &d, NULL, GNUTLS_X509_FMT_PEM, 0, 0);
    if (rc <= 0) {
        snprintf(why, whylen, "%s: %s", path, rc == 0 ? "no certificate in the file" : gnutls_strerror(rc));
        free(pem);
        return -1;
    }
    *pem_out = pem;
    return 0;
}

int perfd_tls_load(const perfd_config *c, char *why, size_t whylen)
{
    tls_set *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    char *pem = NULL;
    if ((c->tls_cert[0] && load_cert(s, c, why, whylen) != 0) ||
        (c->tls_client_ca[0] && load_ca(s, c->tls_client_ca, &pem, why, whylen) != 0) ||
        (c->token_file[0] && load_tokens(s, c->token_file, why, whylen) != 0)) {
        set_free(s);
        return -1;
    }
    pthread_mutex_lock(&mu);
    if (cur && cur->have_cert != s->have_cert) {
        pthread_mutex_unlock(&mu);
        snprintf(why, whylen, "TLS cannot be switched on or off by a reload; restart perfd");
        free(pem);
        set_free(s);
        return -1;
    }
    s->older = cur;
    cur = s;
    if (!trust_pem) {
        trust_pem = pem;
        pem = NULL;
    }
    pthread_mutex_unlock(&mu);
    free(pem);
    return 0;
}

static int retrieve_cert(gnutls_session_t session, const gnutls_datum_t *req_ca_dn, int nreqs,
                         const gnutls_pk_algorithm_t *algos, int n_algos, gnutls_pcert_st **pcert,
                         unsigned int *pcert_length, gnutls_privkey_t *privkey)
{
    (void)session;
    (void)req_ca_dn;
    (void)nreqs;
    (void)algos;
    (void)n_algos;
    pthread_mutex_lock(&mu);
    tls_set *s = cur;
    pthread_mutex_unlock(&mu);
    if (!s || !s->have_cert) return -1;
    *pcert = s->chain;
    *pcert_length = s->n_chain;
    *privkey = s->key;
    return 0;
}

size_t perfd_tls_options(struct MHD_OptionItem *items, size_t max)
{
    size_t n = 0;
    pthread_mutex_lock(&mu);
    int have = cur && cur->have_cert;
    pthread_mutex_unlock(&mu);
    if (!have || max < 3) return 0;
    items[n].option = MHD_OPTION_HTTPS_CERT_CALLBACK;
    items[n].value = 0;
    items[n++].ptr_value = (void *)retrieve_cert;
    /* TLS 1.2 and 1.3 only. */
    items[n].option = MHD_OPTION_HTTPS_PRIORITIES;
    items[n].value = 0;
    items[n++].ptr_value = (void *)"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2";
    if (trust_pem) {
        items[n].option = MHD_OPTION_HTTPS_MEM_TRUST;
        items[n].value = 0;
        items[n++].ptr_value = trust_pem;
    }
    return n;
}

int perfd_tls_cert_names(const char *host)
{
    pthread_mutex_lock(&mu);
    tls_set *s = cur;
    pthread_mutex_unlock(&mu);
    return s && s->leaf && gnutls_x509_crt_check_hostname2(s->leaf, host, 0) != 0;
}

int perfd_tls_have_tokens(void)
{
    pthread_mutex_lock(&mu);
    int n = cur ? (int)cur->n_tokens : 0;
    pthread_mutex_unlock(&mu);
    return n;
}

static int check_client_cert(struct MHD_Connection *conn, gnutls_x509_trust_list_t ca, char *why, size_t whylen)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    gnutls_session_t session = ci ? (gnutls_session_t)ci->tls_session : NULL;
    unsigned n = 0;
    const gnutls_datum_t *peers = session ? gnutls_certificate_get_peers(session, &n) : NULL;
    if (!peers || !n) {
        snprintf(why, whylen, "a client certificate is required");
        return 403;
    }
    if (n > MAX_CHAIN) n = MAX_CHAIN;
    gnutls_x509_crt_t crts[MAX_CHAIN];
    unsigned got = 0;
    int rc = 0;
    for (; got < n; got++) {
        if ((rc = gnutls_x509_crt_init(&crts[got])) < 0) break;
        if ((rc = gnutls_x509_crt_import(crts[got], &peers[got], GNUTLS_X509_FMT_DER)) < 0) {
            gnutls_x509_crt_deinit(crts[got]);
            break;
        }
    }
    unsigned status = 1;
    if (rc >= 0) {
        gnutls_typed_vdata_st purpose = {GNUTLS_DT_KEY_PURPOSE_OID, (unsigned char *)GNUTLS_KP_TLS_WWW_CLIENT, 0};
        rc = gnutls_x509_trust_list_verify_crt2(ca, crts, got, &purpose, 1, 0, &status, NULL);
    }
    for (unsigned i = 0; i < got; i++) gnutls_x509_crt_deinit(crts[i]);
    if (rc < 0 || status != 0) {
        gnutls_datum_t txt = {NULL, 0};
        if (rc >= 0 && gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &txt, 0) >= 0) {
            snprintf(why, whylen, "client certificate not trusted: %s", (const char *)txt.data);
            gnutls_free(txt.data);
        } else {
            snprintf(why, whylen, "client certificate not trusted: %s", rc < 0 ? gnutls_strerror(rc) : "invalid");
        }
        return 403;
    }
    return 0;
}

static int check_token(struct MHD_Connection *conn, const tls_set *s, char *why, size_t whylen)
{
    const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!h) {
        snprintf(why, whylen, "a bearer token is required");
        return 401;
    }
    if (strncasecmp(h, "Bearer ", 7) != 0) {
        snprintf(why, whylen, "the Authorization header is not \"Bearer <token>\"");
        return 401;
    }
    const char *tok = h + 7;
    while (*tok == ' ') tok++;
    size_t n = strlen(tok);
    while (n && tok[n - 1] == ' ') n--;
    unsigned char d[32];
    gnutls_hash_fast(GNUTLS_DIG_SHA256, tok, n, d);
    unsigned match = 0;
    for (unsigned i = 0; i < s->n_tokens; i++) {
        unsigned diff = 0;
        for (unsigned k = 0; k < 32; k++) diff |= (unsigned)(d[k] ^ s->tokens[i][k]);
        match |= (unsigned)(diff == 0);
    }
    if (!match) {
        snprintf(why, whylen, "wrong bearer token");
        return 401;
    }
    return 0;
}

int perfd_tls_authorize(struct MHD_Connection *conn, char *why, size_t whylen)
{
    pthread_mutex_lock(&mu);
    tls_set *s = cur;
    pthread_mutex_unlock(&mu);
    if (!s) return 0;
    int rc = 0;
    if (s->ca) rc = check_client_cert(conn, s->ca, why, whylen);
    if (!rc && s->n_tokens) rc = check_token(conn, s, why, whylen);
    return rc;
}

void perfd_tls_free(void)
{
    pthread_mutex_lock(&mu);
    tls_set *s = cur;
    cur = NULL;
    pthread_mutex_unlock(&mu);
    while (s) {
        tls_set *o = s->older;
        set_free(s);
        s = o;
    }
    free(trust_pem);
    trust_pem = NULL;
}
