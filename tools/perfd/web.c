/* perfd: the System Monitor page's files (docs/web.md).
 *
 * GET / (index.html), /app.js and /app.css, read once at start-up from the
 * page directory -- the build tree's web/ when this perfd runs from the build
 * tree, else the installed share directory; PERFD_WEB_DIR overrides both --
 * and served from memory (handlers never touch the disk), gzipped when the
 * client accepts it. Every file the page loads comes from here: nothing from
 * another host (the Content-Security-Policy says so to the browser too). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfd.h"

#ifndef PERFD_WEB_BUILD_DIR
#error "PERFD_WEB_BUILD_DIR must name the build tree's page directory"
#endif
#ifndef PERFD_WEB_INSTALL_DIR
#error "PERFD_WEB_INSTALL_DIR must name the installed page directory"
#endif
#ifndef PERFD_BUILD_EXE
#error "PERFD_BUILD_EXE must name perfd's path in the build tree"
#endif

#define WEB_MAX_FILE (4u << 20)

typedef struct web_file {
    const char *url;
    const char *name;
    const char *type;
    char *data, *gz;
    size_t len, gzlen;
    char etag[40];
} web_file;

static web_file files[] = {
    {"/", "index.html", "text/html; charset=utf-8", NULL, NULL, 0, 0, ""},
    {"/app.js", "app.js", "text/javascript; charset=utf-8", NULL, NULL, 0, 0, ""},
    {"/app.css", "app.css", "text/css; charset=utf-8", NULL, NULL, 0, 0, ""},
};
#define NFILES (sizeof files / sizeof files[0])

static char web_dir[4096];
static char web_problem[512];

static char *slurp(const char *dir, const char *name, const char *suffix, size_t *len, char *why, size_t whylen)
{
    char path[4600];
    snprintf(path, sizeof path, "%s/%s%s", dir, name, suffix);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, whylen, "%.400s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(WEB_MAX_FILE);
    size_t n = buf ? fread(buf, 1, WEB_MAX_FILE, f) : 0;
    int bad = !buf || ferror(f) || n == WEB_MAX_FILE;
    fclose(f);
    if (bad) {
        snprintf(why, whylen, "%.400s: unreadable or larger than %u bytes", path, WEB_MAX_FILE);
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* Which directory: PERFD_WEB_DIR, else the build tree's when this
 * executable is the one in the build tree, else the installed one. */
static void pick_dir(void)
{
    const char *env = getenv("PERFD_WEB_DIR");
    if (env && *env) {
        snprintf(web_dir, sizeof web_dir, "%s", env);
        return;
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    snprintf(web_dir, sizeof web_dir, "%s", strcmp(exe, PERFD_BUILD_EXE) == 0 ? PERFD_WEB_BUILD_DIR
                                                                               : PERFD_WEB_INSTALL_DIR);
}

__attribute__((constructor)) static void web_load(void)
{
    pick_dir();
    for (size_t i = 0; i < NFILES; i++) {
        web_file *f = &files[i];
        f->data = slurp(web_dir, f->name, "", &f->len, web_problem, sizeof web_problem);
        if (!f->data) {
            for (size_t j = 0; j < i; j++) {
                free(files[j].data);
                free(files[j].gz);
                files[j].data = files[j].gz = NULL;
            }
            return;
        }
        char ignored[64];
        f->gz = slurp(web_dir, f->name, ".gz", &f->gzlen, ignored, sizeof ignored);
        unsigned long h = 5381;
        for (size_t k = 0; k < f->len; k++) h = h * 33u + (unsigned char)f->data[k];
        snprintf(f->etag, sizeof f->etag, "\"%zx-%lx\"", f->len, h);
    }
    web_problem[0] = 0;
}

static int serve(perfd_req *r, const web_file *f)
{
    if (!f->data) {
        char why[700];
        snprintf(why, sizeof why, "the page is not built or not installed (%.500s); build with cmake --build (needs nodejs and npm)",
                 web_problem[0] ? web_problem : web_dir);
        return perfd_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, why);
    }
    const char *inm = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
    int not_modified = inm && strcmp(inm, f->etag) == 0;
    int gz = f->gz && perfd_accepts_gzip(r);
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        not_modified ? 0 : gz ? f->gzlen : f->len, not_modified ? (void *)"" : gz ? (void *)f->gz : (void *)f->data,
        MHD_RESPMEM_PERSISTENT);
    if (!resp) return PERFD_FAIL;
    int ok = MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, f->type) == MHD_YES &&
             MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache") == MHD_YES &&
             MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, f->etag) == MHD_YES &&
             MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept-Encoding") == MHD_YES &&
             MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff") == MHD_YES &&
             MHD_add_response_header(resp, "Content-Security-Policy",
                                     "default-src 'self'; img-src 'self' data:; style-src 'self'; "
                                     "frame-ancestors 'none'; base-uri 'none'; form-action 'none'") == MHD_YES;
    if (ok && gz && !not_modified) ok = MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip") == MHD_YES;
    if (ok) ok = MHD_queue_response(r->conn, not_modified ? MHD_HTTP_NOT_MODIFIED : MHD_HTTP_OK, resp) == MHD_YES;
    MHD_destroy_response(resp);
    return ok ? PERFD_DONE : PERFD_FAIL;
}

static int h_index(perfd_req *r) { return serve(r, &files[0]); }
static int h_js(perfd_req *r) { return serve(r, &files[1]); }
static int h_css(perfd_req *r) { return serve(r, &files[2]); }

PERFD_ROUTE(web_index, "GET", "/", 0, h_index)
PERFD_ROUTE(web_js, "GET", "/app.js", 0, h_js)
PERFD_ROUTE(web_css, "GET", "/app.css", 0, h_css)
