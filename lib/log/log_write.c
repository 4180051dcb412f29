/* perflib counter logs: the writer. One write(2) per complete frame; on a
 * write error the file is cut back to its last complete record. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log_internal.h"

/* A new key frame after this many records, or when a delta is larger than
 * half the key frame it refers to. */
#define KEY_EVERY 64u

struct pl_log_writer {
    int fd, ifd;
    char *path;
    int kind;
    size_t ncolumns;
    unsigned flags;
    uint64_t size;            /* bytes of complete records */
    uint64_t records;
    int failed;               /* a write failed: refuse further records */
    /* the current key frame (decoded) */
    pl__buf key;
    uint64_t key_off;
    size_t key_stored;
    unsigned since_key;
    int have_key;
    pl__buf tok, payload, frame, vals;
};

static int write_all(int fd, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n > 0) {
        ssize_t w = write(fd, b, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

static int fail_os(pl_error *err, const char *what, const char *path)
{
    int e = errno;
    char eb[128];
    return pl__fail(err, e == ENOSPC || e == EIO ? PL_E_IO : PL_E_OS, "%s %s: %s", what, path,
                    pl__strerror(e, eb, sizeof eb));
}

/* Append one frame (header + payload) as a single write. */
static int put_frame(pl_log_writer *w, pl__frame *f, const uint8_t *payload, size_t n, pl_error *err)
{
    f->stored = (uint32_t)n;
    f->crc = pl__crc32(payload, n);
    w->frame.len = 0;
    if (pl__buf_reserve(&w->frame, PL__FRAME_HDR + n)) return pl__fail(err, PL_E_NOMEM, "out of memory");
    pl__frame_put((uint8_t *)w->frame.p, f);
    if (n) memcpy(w->frame.p + PL__FRAME_HDR, payload, n);
    w->frame.len = PL__FRAME_HDR + n;
    if (write_all(w->fd, w->frame.p, w->frame.len) != 0) {
        int s = fail_os(err, "cannot write", w->path);
        /* keep the file made of complete records */
        if (ftruncate(w->fd, (off_t)w->size) != 0 || lseek(w->fd, (off_t)w->size, SEEK_SET) < 0) w->failed = 1;
        return s;
    }
    if ((w->flags & PL_LOG_SYNC) && fdatasync(w->fd) != 0) return fail_os(err, "cannot sync", w->path);
    uint64_t off = w->size;
    w->size += w->frame.len;
    if (f->kind != PL__KIND_HEADER && w->ifd >= 0) {
        uint8_t e[PL__IDX_ENTRY];
        pl__wr64(e, (uint64_t)f->time);
        pl__wr64(e + 8, off);
        /* the index is a cache: a failed write only costs a rebuild later */
        if (write_all(w->ifd, e, sizeof e) != 0) {
            close(w->ifd);
            w->ifd = -1;
        }
    }
    return PL_OK;
}

static int open_index(pl_log_writer *w, const uint8_t id[16], int trunc, uint64_t entries_ok)

{
    size_t n = strlen(w->path);
    char *ip = malloc(n + 5);
    if (!ip) return -1;
    memcpy(ip, w->path, n);
    memcpy(ip + n, ".idx", 5);
    w->ifd = open(ip, O_WRONLY | O_CREAT | O_CLOEXEC | (trunc ? O_TRUNC : 0), 0644);
    free(ip);
    if (w->ifd < 0) return -1;
    if (trunc) {
        uint8_t pre[PL__IDX_PREAMBLE] = {0};
        memcpy(pre, PL__IDX_MAGIC, 8);
        pl__wr32(pre + 8, PL__LOG_VERSION);
        memcpy(pre + 16, id, 16);
        if (write_all(w->ifd, pre, sizeof pre) != 0) {
            close(w->ifd);
            w->ifd = -1;
            return -1;
        }
    } else if (ftruncate(w->ifd, (off_t)(PL__IDX_PREAMBLE + entries_ok * PL__IDX_ENTRY)) != 0 ||
               lseek(w->ifd, 0, SEEK_END) < 0) {
        close(w->ifd);
        w->ifd = -1;
        return -1;
    }
    return 0;
}

static pl_log_writer *writer_new(const char *path, const pl_log_header *h, unsigned flags)
{
    pl_log_writer *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->fd = w->ifd = -1;
    w->path = pl__strdup(path);
    w->kind = h->kind;
    w->ncolumns = h->ncolumns;
    w->flags = flags;
    if (!w->path) {
        free(w);
        return NULL;
    }
    return w;
}

static void writer_free(pl_log_writer *w)
{
    if (!w) return;
    if (w->fd >= 0) close(w->fd);
    if (w->ifd >= 0) close(w->ifd);
    pl__buf_free(&w->key);
    pl__buf_free(&w->tok);
    pl__buf_free(&w->payload);
    pl__buf_free(&w->frame);
    pl__buf_free(&w->vals);
    free(w->path);
    free(w);
}

PL_EXTERN int pl_log_create(const char *path, const pl_log_header *h, unsigned flags, pl_log_writer **out,
                            pl_error *err)
{
    pl__clear(err);
    if (!path || !h || !out) return pl__fail(err, PL_E_INVAL, "pl_log_create: NULL argument");
    *out = NULL;
    uint8_t id[16];
    if (getrandom(id, sizeof id, 0) != (ssize_t)sizeof id) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        memcpy(id, &ts, sizeof ts < 16 ? sizeof ts : 16);
    }
    pl__buf meta = {0};
    int s = pl__meta_encode(h, id, &meta, err);
    if (s) {
        pl__buf_free(&meta);
        return s;
    }
    pl_log_writer *w = writer_new(path, h, flags);
    if (!w) {
        pl__buf_free(&meta);
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    int oflags = O_WRONLY | O_CREAT | O_CLOEXEC | ((flags & PL_LOG_OVERWRITE) ? O_TRUNC : O_EXCL);
    w->fd = open(path, oflags, 0644);
    if (w->fd < 0) {
        s = errno == EEXIST ? pl__fail(err, PL_E_EXISTS, "%s already exists", path) : fail_os(err, "cannot create", path);
        goto fail;
    }
    uint8_t pre[PL__LOG_PREAMBLE] = {0};
    memcpy(pre, PL__LOG_MAGIC, 8);
    pl__wr32(pre + 8, PL__LOG_VERSION);
    if (write_all(w->fd, pre, sizeof pre) != 0) {
        s = fail_os(err, "cannot write", path);
        goto fail;
    }
    w->size = sizeof pre;
    uint8_t fl = 0;
    /* the header is deflated when that helps (the titles are text) */
    pl__buf packed = {0};
    if (pl__pack(&meta, &packed, &fl)) {
        pl__buf_free(&packed);
        s = pl__fail(err, PL_E_NOMEM, "out of memory");
        goto fail;
    }
    pl__frame f = {.kind = PL__KIND_HEADER, .flags = fl, .decoded = (uint32_t)meta.len};
    if (meta.len > PL__LOG_MAX_DECODED) {
        pl__buf_free(&packed);
        s = pl__fail(err, PL_E_RANGE, "log header of %zu bytes is too large", meta.len);
        goto fail;
    }
    /* The header record and its copy (docs/counter-log.md: one damaged
     * byte in the header must not lose every record), in one write: a
     * reader sees both or neither. */
    f.stored = (uint32_t)packed.len;
    f.crc = pl__crc32((const uint8_t *)packed.p, packed.len);
    size_t one = PL__FRAME_HDR + packed.len;
    if (pl__buf_reserve(&w->frame, 2 * one)) {
        pl__buf_free(&packed);
        s = pl__fail(err, PL_E_NOMEM, "out of memory");
        goto fail;
    }
    pl__frame_put((uint8_t *)w->frame.p, &f);
    if (packed.len) memcpy(w->frame.p + PL__FRAME_HDR, packed.p, packed.len);
    memcpy(w->frame.p + one, w->frame.p, one);
    pl__buf_free(&packed);
    if (write_all(w->fd, w->frame.p, 2 * one) != 0 || ((flags & PL_LOG_SYNC) && fdatasync(w->fd) != 0)) {
        s = fail_os(err, "cannot write", path);
        goto fail;
    }
    w->size += 2 * one;
    open_index(w, id, 1, 0);
    pl__buf_free(&meta);
    *out = w;
    return PL_OK;
fail:
    pl__buf_free(&meta);
    if (w->fd >= 0) unlink(path);
    writer_free(w);
    return s;
}

/* Append a data record: a key frame when due, else a delta against it. */
static int put_data(pl_log_writer *w, int64_t time, const uint8_t *data, size_t len, pl_error *err)
{
    if (len > PL__LOG_MAX_DECODED) return pl__fail(err, PL_E_RANGE, "a record of %zu bytes is too large", len);
    int key = !w->have_key || w->since_key + 1 >= KEY_EVERY;
    uint8_t fl = 0;
    for (int attempt = 0; attempt < 2; attempt++) {
        w->tok.len = 0;
        if (pl__delta_encode(data, len, key ? NULL : (const uint8_t *)w->key.p, key ? 0 : w->key.len, &w->tok) ||
            pl__pack(&w->tok, &w->payload, &fl))
            return pl__fail(err, PL_E_NOMEM, "out of memory");
        if (key || w->payload.len <= w->key_stored / 2 + 64) break;
        key = 1;
    }
    pl__frame f = {.kind = key ? PL__KIND_KEY : PL__KIND_DELTA, .flags = fl, .decoded = (uint32_t)len,
                   .time = time, .key_off = key ? 0 : w->key_off};
    uint64_t off = w->size;
    int s = put_frame(w, &f, (const uint8_t *)w->payload.p, w->payload.len, err);
    if (s) return s;
    w->records++;
    if (key) {
        w->key.len = 0;
        if (pl__buf_append(&w->key, data, len)) {
            w->have_key = 0;
            return PL_OK;
        }
        w->have_key = 1;
        w->key_off = off;
        w->key_stored = w->payload.len;
        w->since_key = 0;
    } else {
        w->since_key++;
    }
    return PL_OK;
}

PL_EXTERN int pl_log_append(pl_log_writer *w, int64_t time, const void *data, size_t len, pl_error *err)
{
    pl__clear(err);
    if (!w || (!data && len)) return pl__fail(err, PL_E_INVAL, "pl_log_append: NULL argument");
    if (w->failed) return pl__fail(err, PL_E_IO, "%s: an earlier write failed", w->path);
    if (!data) {
        pl__frame f = {.kind = PL__KIND_GAP, .time = time};
        int s = put_frame(w, &f, NULL, 0, err);
        if (!s) w->records++;
        return s;
    }
    if (w->kind != PL_LOG_BLOCKS) return pl__fail(err, PL_E_INVAL, "%s holds values: use pl_log_append_values", w->path);
    return put_data(w, time, data, len, err);
}

PL_EXTERN int pl_log_append_values(pl_log_writer *w, int64_t time, const double *values,
                                   const unsigned char *present, pl_error *err)
{
    pl__clear(err);
    if (!w || !values || !present) return pl__fail(err, PL_E_INVAL, "pl_log_append_values: NULL argument");
    if (w->failed) return pl__fail(err, PL_E_IO, "%s: an earlier write failed", w->path);
    if (w->kind != PL_LOG_VALUES) return pl__fail(err, PL_E_INVAL, "%s holds blocks: use pl_log_append", w->path);
    size_t n = w->ncolumns, len = n * 8 + (n + 7) / 8;
    w->vals.len = 0;
    if (pl__buf_reserve(&w->vals, len)) return pl__fail(err, PL_E_NOMEM, "out of memory");
    memset(w->vals.p, 0, len);
    for (size_t i = 0; i < n; i++) {
        if (present[i]) {
            memcpy(w->vals.p + i * 8, &values[i], 8);
            w->vals.p[n * 8 + i / 8] |= (uint8_t)(1u << (i % 8));
        }
    }
    w->vals.len = len;
    return put_data(w, time, (const uint8_t *)w->vals.p, len, err);
}

PL_EXTERN uint64_t pl_log_writer_records(const pl_log_writer *w) { return w ? w->records : 0; }
PL_EXTERN uint64_t pl_log_writer_bytes(const pl_log_writer *w) { return w ? w->size : 0; }

PL_EXTERN int pl_log_writer_close(pl_log_writer *w, pl_error *err)
{
    pl__clear(err);
    if (!w) return PL_OK;
    int s = PL_OK;
    if (w->failed) s = pl__fail(err, PL_E_IO, "%s: a write failed", w->path);
    if (w->fd >= 0 && close(w->fd) != 0 && !s) s = fail_os(err, "cannot close", w->path);
    w->fd = -1;
    writer_free(w);
    return s;
}

/* Append to an existing log: its header must match; the torn tail is cut. */
PL_EXTERN int pl_log_append_open(const char *path, const pl_log_header *h, unsigned flags, pl_log_writer **out,
                                 pl_error *err)
{
    pl__clear(err);
    if (!path || !h || !out) return pl__fail(err, PL_E_INVAL, "pl_log_append_open: NULL argument");
    *out = NULL;
    pl_log *log = NULL;
    int s = pl_log_open(path, &log, err);
    if (s) return s;
    if (pl_log_format(log) != PL_LOG_FMT_BIN) {
        pl_log_close(log);
        return pl__fail(err, PL_E_INVAL, "%s is not a perflib binary counter log", path);
    }
    const pl_log_header *old = pl_log_get_header(log);
    if (old->kind != h->kind || old->ncolumns != h->ncolumns) {
        s = pl__fail(err, PL_E_INVAL, "%s: its %zu columns (%s) differ from the %zu to append", path, old->ncolumns,
                     old->kind == PL_LOG_BLOCKS ? "counter blocks" : "values", h->ncolumns);
        pl_log_close(log);
        return s;
    }
    for (size_t i = 0; i < h->ncolumns; i++) {
        if (strcmp(old->columns[i].path, h->columns[i].path) != 0) {
            s = pl__fail(err, PL_E_INVAL, "%s: column %zu is \"%s\", not \"%s\"", path, i + 1, old->columns[i].path,
                         h->columns[i].path);
            pl_log_close(log);
            return s;
        }
    }
    uint64_t end = pl__log_end(log);
    uint8_t id[16];
    pl__log_id(log, id);
    pl_log_writer *w = writer_new(path, h, flags);
    if (!w) {
        pl_log_close(log);
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    w->fd = open(path, O_WRONLY | O_CLOEXEC);
    if (w->fd < 0) {
        s = fail_os(err, "cannot open", path);
        pl_log_close(log);
        writer_free(w);
        return s;
    }
    if (ftruncate(w->fd, (off_t)end) != 0 || lseek(w->fd, (off_t)end, SEEK_SET) < 0) {
        s = fail_os(err, "cannot cut the damaged tail of", path);
        pl_log_close(log);
        writer_free(w);
        return s;
    }
    w->size = end;
    w->records = 0;
    /* a fresh index of the records there are, then ours follow (a new key
     * frame comes first: have_key is 0) */
    if (open_index(w, id, 1, 0) == 0) {
        for (size_t i = 0, n = pl_log_count(log); i < n && w->ifd >= 0; i++) {
            uint8_t e[PL__IDX_ENTRY];
            pl__wr64(e, (uint64_t)pl_log_time(log, i));
            pl__wr64(e + 8, pl__log_offset(log, i));
            if (write_all(w->ifd, e, sizeof e) != 0) {
                close(w->ifd);
                w->ifd = -1;
            }
        }
    }
    pl_log_close(log);
    *out = w;
    return PL_OK;
}
