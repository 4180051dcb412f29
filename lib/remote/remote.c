/* perflib: the remote client (include/perflib/remote.h, docs/query-engine.md).
 *
 * One query is one HTTP GET of perfd's /v1/query?q=QUERY. libcurl does the
 * transfer; this file decides everything that makes it safe to use from a
 * library: which protocols (http, https only, no redirects, no proxies from
 * the environment), how long (connect and total timeouts always set), how
 * much (the body is capped while it arrives), who (a bearer token read from a
 * file at every query, bound to the machines whose sections name it, over
 * HTTPS unless a loopback machine's own section says "tls = off"; with
 * PL_REMOTE_LISTED_ONLY only the machines configured), and what comes
 * back (the reader validates the whole block, or the MULTI_SZ is checked,
 * before the caller sees a byte). Easy handles are pooled per client so a
 * second query to the same perfd reuses the connection (and TLS session). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "perflib/block.h"
#include "perflib/remote.h"
#include "pl_internal.h"
#include "curl_dl.h"
#include "remote_internal.h"

#define POOL_MAX 8
#define REG_BINARY 3u
#define REG_MULTI_SZ 7u

struct pl_remote {
    pthread_mutex_t mu;
    CURL *idle[POOL_MAX];
    size_t nidle;
    char *config_path;        /* NULL: the default search */
    unsigned flags;           /* PL_REMOTE_* */
    atomic_int interrupted;   /* pl_remote_interrupt: every transfer ends */
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_OK;
static char curl_load_why[256]; /* set when libcurl could not be loaded */

/* libcurl is loaded here, at the first transfer, not at start-up or at
 * pl_remote_open (curl_dl.h): perfd opens a client at start to guard its
 * engine, and libcurl with the libraries it needs (Kerberos, OpenSSL, LDAP,
 * SSH...) was ~5 MB of perfd's resident memory on a machine with no remote
 * machine configured. */
static void curl_init(void)
{
    if (pl__curl_load(curl_load_why, sizeof curl_load_why) != 0) {
        curl_init_rc = CURLE_FAILED_INIT;
        return;
    }
    curl_init_rc = pl__curl.global_init(CURL_GLOBAL_DEFAULT);
}

/* ------------------------------------------------------------ targets */

static int bad_host_char(unsigned char c)
{
    return c <= 0x20 || c == 0x7F || c == '/' || c == '?' || c == '#' || c == '@' || c == '\\' || c == '%' ||
           c == '[' || c == ']' || c == '"' || c == '\'' || c == '<' || c == '>';
}

static int parse_port(const char *s, unsigned *port)
{
    size_t n = strlen(s);
    if (n == 0 || n > 5) return 0;
    unsigned v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (v == 0 || v > 65535) return 0;
    *port = v;
    return 1;
}

PL_EXTERN int pl_remote_parse_target(const char *target, char *host, size_t cap, unsigned *port, pl_error *err)
{
    if (!target || !host || cap == 0 || !port) return pl__fail(err, PL_E_INVAL, "pl_remote_parse_target: NULL argument");
    host[0] = '\0';
    *port = 0;
    const char *t = target;
    if (t[0] == '\\' && t[1] == '\\') t += 2;
    size_t n = strlen(t);
    const char *hb = t, *pp = NULL;
    size_t hn = n;
    if (t[0] == '[') {
        const char *close = strchr(t, ']');
        if (!close) return pl__fail(err, PL_E_PARSE, "target \"%.100s\": '[' without ']'", target);
        hb = t + 1;
        hn = (size_t)(close - hb);
        if (close[1] == ':') pp = close + 2;
        else if (close[1] != '\0') return pl__fail(err, PL_E_PARSE, "target \"%.100s\": text after ']'", target);
        for (size_t i = 0; i < hn; i++)
            if (!(hb[i] == ':' || hb[i] == '.' || (hb[i] >= '0' && hb[i] <= '9') || (hb[i] >= 'a' && hb[i] <= 'f') ||
                  (hb[i] >= 'A' && hb[i] <= 'F')))
                return pl__fail(err, PL_E_PARSE, "target \"%.100s\": not an IPv6 address in brackets", target);
    } else {
        const char *c1 = strchr(t, ':');
        if (c1 && !strchr(c1 + 1, ':')) { /* exactly one colon: host:port */
            hn = (size_t)(c1 - t);
            pp = c1 + 1;
        }
    }
    if (hn == 0) return pl__fail(err, PL_E_PARSE, "target \"%.100s\": no host name", target);
    if (hn > 253) return pl__fail(err, PL_E_PARSE, "target \"%.100s...\": host name longer than 253 bytes", target);
    for (size_t i = 0; i < hn; i++)
        if (bad_host_char((unsigned char)hb[i]))
            return pl__fail(err, PL_E_PARSE, "target \"%.100s\": character 0x%02X cannot be in a host name", target,
                            (unsigned)(unsigned char)hb[i]);
    if (pp && !parse_port(pp, port))
        return pl__fail(err, PL_E_PARSE, "target \"%.100s\": the port must be a number from 1 to 65535", target);
    if (hn + 1 > cap) return pl__fail(err, PL_E_RANGE, "target \"%.100s\": host name too long", target);
    memcpy(host, hb, hn);
    host[hn] = '\0';
    return PL_OK;
}

static int is_loopback(const char *host)
{
    if (strcasecmp(host, "localhost") == 0 || strcasecmp(host, "localhost.") == 0) return 1;
    unsigned char a[16];
    if (inet_pton(AF_INET, host, a) == 1) return a[0] == 127;
    if (inet_pton(AF_INET6, host, a) == 1) {
        static const unsigned char lo[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
        static const unsigned char v4m[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
        return memcmp(a, lo, 16) == 0 || (memcmp(a, v4m, 12) == 0 && a[12] == 127);
    }
    return 0;
}

static int is_ipv6(const char *host)
{
    unsigned char a[16];
    return inet_pton(AF_INET6, host, a) == 1;
}

/* -------------------------------------------------------------- token */

/* The token file's first line, without the line end and surrounding blanks.
 * It must be printable ASCII: it goes into an HTTP header. */
static int read_token(const char *path, char *tok, size_t cap, pl_error *err)
{
    char eb[128];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return pl__fail(err, PL_E_IO, "token file %s: %s", path, pl__strerror(errno, eb, sizeof eb));
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fd, tok + n, cap - 1 - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            return pl__fail(err, PL_E_IO, "token file %s: %s", path, pl__strerror(e, eb, sizeof eb));
        }
        if (r == 0 || (n += (size_t)r) == cap - 1) break;
    }
    close(fd);
    tok[n] = '\0';
    char *nl = memchr(tok, '\n', n);
    if (!nl && n == cap - 1) return pl__fail(err, PL_E_RANGE, "token file %s: the token is longer than %zu bytes", path, cap - 2);
    if (nl) n = (size_t)(nl - tok);
    while (n > 0 && (tok[n - 1] == '\r' || tok[n - 1] == ' ' || tok[n - 1] == '\t')) n--;
    size_t b = 0;
    while (b < n && (tok[b] == ' ' || tok[b] == '\t')) b++;
    memmove(tok, tok + b, n - b);
    n -= b;
    tok[n] = '\0';
    if (n == 0) return pl__fail(err, PL_E_PARSE, "token file %s: the first line is empty", path);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)tok[i] < 0x21 || (unsigned char)tok[i] > 0x7E)
            return pl__fail(err, PL_E_PARSE, "token file %s: the token must be printable ASCII without spaces", path);
    return PL_OK;
}

/* -------------------------------------------------------------- pool */

PL_EXTERN int pl_remote_open(const char *config_path, pl_remote **out, pl_error *err)
{
    return pl_remote_open_ex(config_path, 0, out, err);
}

PL_EXTERN int pl_remote_open_ex(const char *config_path, unsigned flags, pl_remote **out, pl_error *err)
{
    pl__clear(err);
    if (!out) return pl__fail(err, PL_E_INVAL, "pl_remote_open: out is NULL");
    pl_remote *r = calloc(1, sizeof *r);
    if (!r) return pl__fail(err, PL_E_NOMEM, "out of memory");
    if (config_path && !(r->config_path = pl__strdup(config_path))) {
        free(r);
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    r->flags = flags;
    atomic_init(&r->interrupted, 0);
    pthread_mutex_init(&r->mu, NULL);
    *out = r;
    return PL_OK;
}

PL_EXTERN void pl_remote_interrupt(pl_remote *r)
{
    if (r) atomic_store(&r->interrupted, 1);
}

/* libcurl asks this at least once a second during a transfer, also while
 * nothing arrives: non-zero ends the transfer (CURLE_ABORTED_BY_CALLBACK). */
static int on_progress(void *ctx, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
    (void)dltotal;
    (void)dlnow;
    (void)ultotal;
    (void)ulnow;
    return atomic_load((atomic_int *)ctx) ? 1 : 0;
}

PL_EXTERN void pl_remote_close(pl_remote *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->nidle; i++) pl__curl.easy_cleanup(r->idle[i]);
    pthread_mutex_destroy(&r->mu);
    free(r->config_path);
    free(r);
}

/* libcurl loaded and started, once per process: PL_OK, or why not. */
static int curl_ready(const char *target, pl_error *err)
{
    pthread_once(&curl_once, curl_init);
    if (curl_load_why[0])
        return pl__fail(err, PL_E_UNSUPPORTED, "%s: remote queries need libcurl: %s", target, curl_load_why);
    if (curl_init_rc != CURLE_OK)
        return pl__fail(err, PL_E_UNSUPPORTED, "%s: libcurl could not start: %s", target,
                        pl__curl.easy_strerror(curl_init_rc));
    return PL_OK;
}

static CURL *take_handle(pl_remote *r)
{
    CURL *h = NULL;
    pthread_mutex_lock(&r->mu);
    if (r->nidle) h = r->idle[--r->nidle];
    pthread_mutex_unlock(&r->mu);
    if (h) pl__curl.easy_reset(h); /* options cleared; the connection cache stays */
    else h = pl__curl.easy_init();
    return h;
}

static void give_handle(pl_remote *r, CURL *h)
{
    pthread_mutex_lock(&r->mu);
    if (r->nidle < POOL_MAX) {
        r->idle[r->nidle++] = h;
        h = NULL;
    }
    pthread_mutex_unlock(&r->mu);
    if (h) pl__curl.easy_cleanup(h);
}

/* ------------------------------------------------------------ transfer */

typedef struct sink {
    pl__buf b;                /* the answer */
    uint64_t max;
    int over;                 /* the answer passed max */
    int said;                 /* perfd's X-Perflib-Type: 0 none, 1 REG_BINARY, 2 REG_MULTI_SZ, 3 other */
} sink;

/* perfd names what it sends (docs/perfd.md): X-Perflib-Type. */
static size_t on_header(char *data, size_t size, size_t nitems, void *ctx)
{
    sink *s = ctx;
    size_t n = size * nitems;
    static const char name[] = "x-perflib-type:";
    if (n > sizeof name - 1 && strncasecmp(data, name, sizeof name - 1) == 0) {
        const char *v = data + sizeof name - 1;
        size_t vn = n - (sizeof name - 1);
        while (vn && (*v == ' ' || *v == '\t')) { v++; vn--; }
        while (vn && (v[vn - 1] == '\r' || v[vn - 1] == '\n' || v[vn - 1] == ' ')) vn--;
        if (vn == 10 && strncmp(v, "REG_BINARY", 10) == 0) s->said = 1;
        else if (vn == 12 && strncmp(v, "REG_MULTI_SZ", 12) == 0) s->said = 2;
        else s->said = 3;
    }
    return n;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *ctx)
{
    sink *s = ctx;
    size_t n = size * nmemb;
    if ((uint64_t)s->b.len + n > s->max) {
        s->over = 1;
        return 0; /* aborts the transfer: CURLE_WRITE_ERROR */
    }
    return pl__buf_append(&s->b, data, n) == PL_OK ? n : 0;
}

/* Is this a title query ("Counter 009", "Explain", "help")? Then perfd
 * answers a MULTI_SZ, as the local engine does. */
static int title_query(const char *q)
{
    while (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n' || *q == '\v' || *q == '\f') q++;
    return strncasecmp(q, "counter", 7) == 0 || strncasecmp(q, "explain", 7) == 0 || strncasecmp(q, "help", 4) == 0;
}

/* Text from a hostile peer made safe for a one-line message. */
static void clean_text(const uint8_t *p, size_t n, char *out, size_t cap)
{
    size_t w = 0;
    for (size_t i = 0; i < n && w + 1 < cap; i++) {
        unsigned char c = p[i];
        if (c == '\n' || c == '\r') {
            if (w && out[w - 1] != ' ') out[w++] = ' ';
            continue;
        }
        out[w++] = (c < 0x20 || c >= 0x7F) ? '?' : (char)c;
    }
    while (w && out[w - 1] == ' ') w--;
    out[w] = '\0';
}

static int map_curl(CURLcode cc, const sink *s, const char *target, const char *ebuf, pl_error *err)
{
    const char *detail = ebuf[0] ? ebuf : pl__curl.easy_strerror(cc);
    switch (cc) {
    case CURLE_OUT_OF_MEMORY: return pl__fail(err, PL_E_NOMEM, "%s: out of memory", target);
    case CURLE_FILESIZE_EXCEEDED:
        return pl__fail(err, PL_E_RANGE, "%s: the answer is larger than max_bytes (%llu)", target,
                        (unsigned long long)s->max);
    case CURLE_WRITE_ERROR:
        if (s->over)
            return pl__fail(err, PL_E_RANGE, "%s: the answer is larger than max_bytes (%llu)", target,
                            (unsigned long long)s->max);
        return pl__fail(err, PL_E_NOMEM, "%s: out of memory for the answer", target);
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT:
        return pl__fail(err, PL_E_AUTH, "%s: TLS refused: %s", target, detail);
    case CURLE_SSL_CONNECT_ERROR:
        return pl__fail(err, PL_E_AUTH, "%s: TLS handshake failed (certificate, client certificate or protocol): %s",
                        target, detail);
    case CURLE_OPERATION_TIMEDOUT: return pl__fail(err, PL_E_REMOTE, "%s: timed out: %s", target, detail);
    case CURLE_ABORTED_BY_CALLBACK: return pl__fail(err, PL_E_REMOTE, "%s: interrupted (the client is closing)", target);
    case CURLE_COULDNT_RESOLVE_HOST: return pl__fail(err, PL_E_REMOTE, "%s: host name not resolved: %s", target, detail);
    case CURLE_COULDNT_CONNECT: return pl__fail(err, PL_E_REMOTE, "%s: cannot connect: %s", target, detail);
    default: return pl__fail(err, PL_E_REMOTE, "%s: %s", target, detail);
    }
}

/* Check what came back: a whole PERF_DATA_BLOCK (every length and offset,
 * TotalByteLength equal to what arrived), or a MULTI_SZ. */
static int check_answer(const sink *s, int titles, const char *target, pl_error *err)
{
    if (titles) {
        if (s->b.len < 2 || s->b.len % 2 != 0 || s->b.p[s->b.len - 1] != 0 || s->b.p[s->b.len - 2] != 0 ||
            (s->b.len >= 4 && (s->b.p[s->b.len - 3] != 0 || s->b.p[s->b.len - 4] != 0)))
            return pl__fail(err, PL_E_BAD_BLOCK, "%s: the answer (%zu bytes) is not a UTF-16 MULTI_SZ", target,
                            s->b.len);
        return PL_OK;
    }
    pl_block blk;
    pl_error e2;
    if (pl_block_open(&blk, s->b.p, s->b.len, 0, 0, &e2) != PL_OK)
        return pl__fail(err, PL_E_BAD_BLOCK, "%s: malformed block: %s", target, e2.msg);
    if (blk.hdr.TotalByteLength != s->b.len)
        return pl__fail(err, PL_E_BAD_BLOCK, "%s: malformed block: TotalByteLength %u but %zu bytes arrived", target,
                        (unsigned)blk.hdr.TotalByteLength, s->b.len);
    return PL_OK;
}

PL_EXTERN int pl_remote_query(pl_remote *r, const char *target, const char *query, void **out, size_t *len,
                              uint32_t *type, pl_error *err)
{
    pl__clear(err);
    if (!r || !target || !out || !len) return pl__fail(err, PL_E_INVAL, "pl_remote_query: NULL argument");
    *out = NULL;
    *len = 0;
    if (!query) query = "";
    char host[256];
    unsigned port = 0;
    int rc = pl_remote_parse_target(target, host, sizeof host, &port, err);
    if (rc != PL_OK) return rc;
    pl_remote_settings st;
    rc = pl_remote_settings_load_ex(r->config_path, r->flags, target, &st, err);
    if (rc != PL_OK) return rc;
    if (atomic_load(&r->interrupted)) {
        pl_remote_settings_free(&st);
        return pl__fail(err, PL_E_REMOTE, "%s: interrupted (the client is closing)", target);
    }
    if (!port) port = st.port ? st.port : PL_REMOTE_DEFAULT_PORT;
    const char *conn_host = st.address ? st.address : host;
    int loop = is_loopback(conn_host);
    /* A machine with a token is asked over HTTPS, loopback too, unless its
     * own section says "tls = off" (docs/query-engine.md). */
    int tls = st.tls == PL_REMOTE_TLS_ON || (st.tls == PL_REMOTE_TLS_AUTO && (!loop || st.token_file));
    char tok[PL_REMOTE_TOKEN_MAX + 2];
    tok[0] = '\0';
    if (st.token_file) {
        if (!tls && !(loop && st.tls_off_for_machine)) {
            pl_remote_settings_free(&st);
            return pl__fail(err, PL_E_INVAL,
                            loop ? "%s: refusing to send the bearer token without TLS (only a \"tls = off\" in this "
                                   "machine's own section allows it on loopback)"
                                 : "%s: refusing to send the bearer token without TLS to a non-loopback host",
                            target);
        }
        rc = read_token(st.token_file, tok, sizeof tok, err);
        if (rc != PL_OK) {
            pl_remote_settings_free(&st);
            return rc;
        }
    }
    size_t ql = strlen(query);
    if (ql > 65536) {
        pl_remote_settings_free(&st);
        return pl__fail(err, PL_E_RANGE, "%s: the query is longer than 65536 bytes", target);
    }

    rc = curl_ready(target, err);
    if (rc != PL_OK) {
        explicit_bzero(tok, sizeof tok);
        pl_remote_settings_free(&st);
        return rc;
    }
    CURL *h = take_handle(r);
    if (!h) {
        explicit_bzero(tok, sizeof tok);
        pl_remote_settings_free(&st);
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    char *q = pl__curl.easy_escape(h, query, (int)ql);
    size_t ulen = strlen(host) + (q ? strlen(q) : 0) + 64;
    char *url = malloc(ulen);
    char auth[PL_REMOTE_TOKEN_MAX + 32];
    char connect_to[600];
    struct curl_slist *hdrs = NULL, *ct = NULL;
    sink s = {.max = st.max_bytes};
    char ebuf[CURL_ERROR_SIZE];
    ebuf[0] = '\0';
    if (!q || !url) {
        rc = pl__fail(err, PL_E_NOMEM, "out of memory");
        goto done;
    }
    int v6 = is_ipv6(host);
    snprintf(url, ulen, "%s://%s%s%s:%u/v1/query?q=%s", tls ? "https" : "http", v6 ? "[" : "", host, v6 ? "]" : "",
             port, q);
    hdrs = pl__curl.slist_append(NULL, "Accept: application/octet-stream");
    if (hdrs && tok[0]) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", tok);
        struct curl_slist *n2 = pl__curl.slist_append(hdrs, auth);
        explicit_bzero(auth, sizeof auth);
        if (!n2) {
            pl__curl.slist_free_all(hdrs);
            hdrs = NULL;
        } else {
            hdrs = n2;
        }
    }
    if (!hdrs) {
        rc = pl__fail(err, PL_E_NOMEM, "out of memory");
        goto done;
    }
    if (st.address) {
        int a6 = is_ipv6(st.address);
        snprintf(connect_to, sizeof connect_to, "%s%s%s:%u:%s%s%s:%u", v6 ? "[" : "", host, v6 ? "]" : "", port,
                 a6 ? "[" : "", st.address, a6 ? "]" : "", port);
        if (!(ct = pl__curl.slist_append(NULL, connect_to))) {
            rc = pl__fail(err, PL_E_NOMEM, "out of memory");
            goto done;
        }
    }
    CURLcode cc = CURLE_OK;
#define SET(opt, val) \
    if (cc == CURLE_OK) cc = pl__curl.easy_setopt(h, opt, val)
    SET(CURLOPT_URL, url);
    SET(CURLOPT_ERRORBUFFER, ebuf);
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_PROTOCOLS_STR, "http,https");
    SET(CURLOPT_FOLLOWLOCATION, 0L);
    SET(CURLOPT_PROXY, ""); /* never a proxy from the environment */
    SET(CURLOPT_CONNECTTIMEOUT_MS, st.connect_timeout_ms);
    SET(CURLOPT_TIMEOUT_MS, st.timeout_ms);
    SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)st.max_bytes);
    SET(CURLOPT_WRITEFUNCTION, on_body);
    SET(CURLOPT_WRITEDATA, &s);
    SET(CURLOPT_HEADERFUNCTION, on_header);
    SET(CURLOPT_HEADERDATA, &s);
    SET(CURLOPT_HTTPHEADER, hdrs);
    SET(CURLOPT_USERAGENT, "perflib-remote/1");
    SET(CURLOPT_ACCEPT_ENCODING, NULL);
    SET(CURLOPT_NOPROGRESS, 0L);
    SET(CURLOPT_XFERINFOFUNCTION, on_progress);
    SET(CURLOPT_XFERINFODATA, (void *)&r->interrupted);
    if (ct) SET(CURLOPT_CONNECT_TO, ct);
    if (tls) {
        SET(CURLOPT_SSL_VERIFYPEER, 1L);
        SET(CURLOPT_SSL_VERIFYHOST, 2L);
        SET(CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
        if (st.ca_file) SET(CURLOPT_CAINFO, st.ca_file);
        if (st.cert_file) SET(CURLOPT_SSLCERT, st.cert_file);
        if (st.key_file) SET(CURLOPT_SSLKEY, st.key_file);
    }
#undef SET
    if (cc != CURLE_OK) {
        rc = pl__fail(err, PL_E_UNSUPPORTED, "%s: libcurl refused an option: %s", target, pl__curl.easy_strerror(cc));
        goto done;
    }
    cc = pl__curl.easy_perform(h);
    if (cc != CURLE_OK) {
        rc = map_curl(cc, &s, target, ebuf, err);
        goto done;
    }
    long code = 0;
    pl__curl.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    if (code != 200) {
        char why[160];
        clean_text((const uint8_t *)s.b.p, s.b.len < 200 ? s.b.len : 200, why, sizeof why);
        rc = pl__fail(err, code == 401 || code == 403 ? PL_E_AUTH : PL_E_REMOTE, "%s: perfd answered HTTP %ld%s%s",
                      target, code, why[0] ? ": " : "", why);
        goto done;
    }
    /* What the answer should be: a title query gives a MULTI_SZ. perfd says
     * what it sent; a peer that says otherwise is not answering this query. */
    int titles = title_query(query);
    if (s.said == 3 || (s.said && (s.said == 2) != titles)) {
        rc = pl__fail(err, PL_E_BAD_BLOCK, "%s: perfd sent %s for a %s query", target,
                      s.said == 1 ? "REG_BINARY" : s.said == 2 ? "REG_MULTI_SZ" : "an unknown X-Perflib-Type",
                      titles ? "title" : "data");
        goto done;
    }
    rc = check_answer(&s, titles, target, err);
    if (rc != PL_OK) goto done;
    if (s.b.len == 0) { /* cannot happen for a checked answer; keeps *out non-NULL */
        rc = pl__fail(err, PL_E_BAD_BLOCK, "%s: empty answer", target);
        goto done;
    }
    *out = s.b.p;
    *len = s.b.len;
    s.b.p = NULL;
    if (type) *type = titles ? REG_MULTI_SZ : REG_BINARY;
    rc = PL_OK;
done:
    /* the handle keeps pointers to these: forget them before it is pooled */
    pl__curl.easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
    pl__curl.easy_setopt(h, CURLOPT_CONNECT_TO, NULL);
    pl__curl.easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
    give_handle(r, h);
    for (struct curl_slist *l = hdrs; l; l = l->next) explicit_bzero(l->data, strlen(l->data));
    pl__curl.slist_free_all(hdrs);
    pl__curl.slist_free_all(ct);
    pl__curl.free(q);
    free(url);
    pl__buf_free(&s.b);
    explicit_bzero(tok, sizeof tok);
    pl_remote_settings_free(&st);
    return rc;
}
