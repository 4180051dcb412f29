/* perfd: the counter logs the page can replay (docs/web.md, "Log replay").
 *
 *   GET /v1/logs
 *     {"version":1,"logs":[{"name":..,"bytes":N,"modified":UNIX_MS}, ...],"truncated":bool}
 *
 * The regular files of log_dir whose names /v1/replay accepts
 * (perfd_log_name_ok: no hidden files; symbolic links and directories are
 * left out, as /v1/replay refuses them), newest first; a log's index
 * ("NAME.idx" beside NAME, include/perflib/log.h) is not a log. No log_dir: 404 with
 * the reason, so the page can say how to set one. The listing is bounded:
 * at most LOGS_SCAN entries of the directory are looked at and LOGS_MAX
 * listed ("truncated" says when there were more). Only names, sizes and
 * times: no log is opened here, on the server thread. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "perfd.h"
#include "stream.h"
#include "webbuf.h"

#define LOGS_MAX 1000
#define LOGS_SCAN 20000

typedef struct log_entry {
    char name[256];
    uint64_t bytes;
    int64_t modified_ms;
} log_entry;

/* NAME.idx with a regular file NAME beside it. */
static int is_index(int dfd, const char *name)
{
    size_t n = strlen(name);
    if (n <= 4 || strcmp(name + n - 4, ".idx") != 0) return 0;
    char stem[256];
    snprintf(stem, sizeof stem, "%.*s", (int)(n - 4), name);
    struct stat sb;
    return fstatat(dfd, stem, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode);
}

static int newest_first(const void *a, const void *b)
{
    const log_entry *x = a, *y = b;
    if (x->modified_ms != y->modified_ms) return x->modified_ms > y->modified_ms ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int h_logs(perfd_req *r)
{
    const char *dir = perfd_log_dir();
    if (!dir[0])
        return perfd_reply_error(r, MHD_HTTP_NOT_FOUND,
                                 "no log directory configured: set log_dir in perfd.conf (or --set log_dir=DIR)");
    DIR *d = opendir(dir);
    if (!d) {
        char why[600];
        snprintf(why, sizeof why, "cannot read the log directory %.400s: %s", dir, strerror(errno));
        return perfd_reply_error(r, MHD_HTTP_INTERNAL_SERVER_ERROR, why);
    }
    log_entry *list = malloc(LOGS_MAX * sizeof *list);
    if (!list) {
        closedir(d);
        return perfd_reply_error(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    }
    size_t n = 0, seen = 0;
    int truncated = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (++seen > LOGS_SCAN) {
            truncated = 1;
            break;
        }
        struct stat sb;
        if (!perfd_log_name_ok(e->d_name) || fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(sb.st_mode) || is_index(dirfd(d), e->d_name))
            continue;
        if (n == LOGS_MAX) {
            truncated = 1;
            break;
        }
        snprintf(list[n].name, sizeof list[n].name, "%s", e->d_name);
        list[n].bytes = (uint64_t)sb.st_size;
        list[n].modified_ms = (int64_t)sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000;
        n++;
    }
    closedir(d);
    qsort(list, n, sizeof *list, newest_first);
    wb b = {0};
    wb_str(&b, "{\"version\":1,\"logs\":[");
    for (size_t i = 0; i < n; i++) {
        wb_str(&b, i ? ",{\"name\":" : "{\"name\":");
        wb_json(&b, list[i].name);
        wb_printf(&b, ",\"bytes\":%llu,\"modified\":%lld}", (unsigned long long)list[i].bytes,
                  (long long)list[i].modified_ms);
    }
    wb_printf(&b, "],\"truncated\":%s}\n", truncated ? "true" : "false");
    free(list);
    if (b.failed) {
        wb_free(&b);
        return perfd_reply_error(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    }
    return perfd_reply_owned(r, MHD_HTTP_OK, "application/json", b.p, b.len);
}
PERFD_ROUTE(logs_route, "GET", "/v1/logs", 0, h_logs)
