/* perflib counter logs: the reader. The file is hostile: every frame is
 * checked (sync word, header CRC, limits, payload CRC) before it is used,
 * damage is skipped by searching for the next valid frame, and an
 * incomplete last record is ignored. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log_ext.h"
#include "log_internal.h"

typedef struct rec {
    int64_t time;
    uint64_t off;
} rec;

struct pl_log {
    int fd;
    char *path;
    uint64_t size;
    pl__log_meta meta;
    uint64_t data_start;
    rec *r;
    size_t n, cap;
    uint64_t end;
    pl_log_health health;
    /* decoding */
    uint8_t *pay;
    size_t paycap;
    uint8_t *key;
    size_t keylen, keycap;
    uint64_t key_off;
    int have_key;
    uint8_t *cur;
    size_t curcap;
    double *vals;
    unsigned char *present;
    pl__xlog *x;              /* another format (log_ext.h), else NULL */
};

static int read_at(const pl_log *log, uint64_t off, void *buf, size_t n)
{
    uint8_t *b = buf;
    while (n > 0) {
        ssize_t r = pread(log->fd, b, n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        b += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

static int ensure(uint8_t **p, size_t *cap, size_t need)
{
    if (need <= *cap) return 0;
    size_t c = need < 4096 ? 4096 : need;
    uint8_t *np = realloc(*p, c);
    if (!np) return -1;
    *p = np;
    *cap = c;
    return 0;
}

/* Read a frame's header at off; 0 when valid and complete within the file. */
static int frame_at(const pl_log *log, uint64_t off, pl__frame *f, int *torn)
{
    uint8_t h[PL__FRAME_HDR];
    *torn = 0;
    if (off > log->size || log->size - off < PL__FRAME_HDR) {
        *torn = 1;
        return -1;
    }
    if (read_at(log, off, h, sizeof h) || pl__frame_get(h, f)) return -1;
    if (log->size - off - PL__FRAME_HDR < f->stored) {
        *torn = 1;
        return -1;
    }
    return 0;
}

/* Read and check the payload of frame f at off into log->pay. */
static int payload_at(pl_log *log, uint64_t off, const pl__frame *f)
{
    if (ensure(&log->pay, &log->paycap, f->stored ? f->stored : 1)) return -1;
    if (f->stored && read_at(log, off + PL__FRAME_HDR, log->pay, f->stored)) return -1;
    return pl__crc32(log->pay, f->stored) == f->crc ? 0 : -1;
}

static int add_rec(pl_log *log, int64_t time, uint64_t off)
{
    void *p = log->r;
    if (pl__grow(&p, &log->cap, log->n + 1, sizeof *log->r)) return -1;
    log->r = p;
    log->r[log->n++] = (rec){time, off};
    return 0;
}

/* The next offset > from where a valid frame header starts, or 0. */
static uint64_t resync(pl_log *log, uint64_t from)
{
    enum { WIN = 1 << 16 };
    uint8_t buf[WIN + 4];
    static const uint8_t sync[4] = {0x50, 0x4C, 0x4C, 0x47};
    uint64_t pos = from + 1;
    while (pos < log->size && log->size - pos >= PL__FRAME_HDR) {
        size_t n = log->size - pos < sizeof buf ? (size_t)(log->size - pos) : sizeof buf;
        if (read_at(log, pos, buf, n)) return 0;
        for (size_t i = 0; i + 4 <= n; i++) {
            uint8_t *h = memchr(buf + i, 0x50, n - i - 3);
            if (!h) break;
            i = (size_t)(h - buf);
            if (memcmp(h, sync, 4) == 0 && log->size - (pos + i) >= PL__FRAME_HDR) {
                uint8_t hh[PL__FRAME_HDR];
                pl__frame f;
                if (read_at(log, pos + i, hh, sizeof hh) == 0 && pl__frame_get(hh, &f) == 0) return pos + i;
            }
        }
        pos += n - 3;
    }
    return 0;
}

/* Scan frames from pos to the end, verifying each, adding data records. */
static int scan(pl_log *log, uint64_t pos)
{
    while (pos < log->size) {
        pl__frame f;
        int torn;
        if (frame_at(log, pos, &f, &torn) == 0) {
            if (f.kind != PL__KIND_HEADER && payload_at(log, pos, &f) == 0) {
                if (add_rec(log, f.time, pos)) return PL_E_NOMEM;
                pos += PL__FRAME_HDR + f.stored;
                log->end = pos;
                continue;
            }
        } else if (torn) {
            uint8_t h[PL__FRAME_HDR];
            /* a partial header, or a valid header with a partial payload:
             * the record being written when the writer stopped */
            int partial_hdr = log->size - pos < PL__FRAME_HDR;
            if (partial_hdr || (read_at(log, pos, h, sizeof h) == 0 && pl__frame_get(h, &f) == 0)) {
                log->health.torn_tail_bytes = log->size - pos;
                return PL_OK;
            }
        }
        uint64_t next = resync(log, pos);
        if (!next) {
            log->health.torn_tail_bytes = log->size - pos;
            return PL_OK;
        }
        log->health.damaged_bytes += next - pos;
        pos = next;
    }
    return PL_OK;
}

static char *idx_path(const char *path)
{
    size_t n = strlen(path);
    char *ip = malloc(n + 5);
    if (!ip) return NULL;
    memcpy(ip, path, n);
    memcpy(ip + n, ".idx", 5);
    return ip;
}

/* Take the records from the index when it belongs to this log and its
 * entries are consistent; returns the offset to scan from, or 0 when the
 * index was not used. */
static uint64_t load_index(pl_log *log)
{
    char *ip = idx_path(log->path);
    if (!ip) return 0;
    int fd = open(ip, O_RDONLY | O_CLOEXEC);
    free(ip);
    if (fd < 0) return 0;
    struct stat st;
    uint8_t *buf = NULL;
    uint64_t resume = 0;
    size_t len = 0;
    if (fstat(fd, &st) != 0 || st.st_size < PL__IDX_PREAMBLE ||
        (uint64_t)st.st_size > PL__IDX_PREAMBLE + (log->size / PL__FRAME_HDR + 1) * PL__IDX_ENTRY)
        goto out;
    len = (size_t)st.st_size;
    buf = malloc(len);
    if (!buf) goto out;
    for (size_t got = 0; got < len;) {
        ssize_t r = pread(fd, buf + got, len - got, (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) goto out;
        got += (size_t)r;
    }
    if (memcmp(buf, PL__IDX_MAGIC, 8) != 0 || pl__rd32(buf + 8) != PL__LOG_VERSION ||
        memcmp(buf + 16, log->meta.id, 16) != 0)
        goto out;
    size_t k = (len - PL__IDX_PREAMBLE) / PL__IDX_ENTRY; /* a partial last entry is ignored */
    uint64_t prev = 0;
    for (size_t i = 0; i < k; i++) {
        const uint8_t *e = buf + PL__IDX_PREAMBLE + i * PL__IDX_ENTRY;
        int64_t t = (int64_t)pl__rd64(e);
        uint64_t off = pl__rd64(e + 8);
        if (off < log->data_start || (i && off <= prev) || off > log->size || log->size - off < PL__FRAME_HDR) {
            log->n = 0;
            goto out;
        }
        if (add_rec(log, t, off)) {
            log->n = 0;
            goto out;
        }
        prev = off;
    }
    if (log->n == 0) {
        resume = log->data_start;
    } else {
        /* check the first and the last entry against the log */
        for (int j = 0; j < 2; j++) {
            const rec *r = j ? &log->r[log->n - 1] : &log->r[0];
            pl__frame f;
            int torn;
            if (frame_at(log, r->off, &f, &torn) || f.time != r->time || f.kind == PL__KIND_HEADER) {
                log->n = 0;
                goto out;
            }
            if (j) resume = r->off + PL__FRAME_HDR + f.stored;
        }
    }
    log->end = resume;
    log->health.index_used = 1;
out:
    free(buf);
    close(fd);
    return resume;
}

/* The header record at off: frame, payload CRC, unpacked, parsed into
 * log->meta (replacing what an earlier try left). 0, or PL_E_BAD_BLOCK with
 * `why` ("" for a frame that does not check, *torn when it runs past the
 * end). */
static int read_header(pl_log *log, uint64_t off, pl__frame *f, int *torn, char *why, size_t whylen)
{
    why[0] = '\0';
    if (frame_at(log, off, f, torn) || f->kind != PL__KIND_HEADER || payload_at(log, off, f)) return PL_E_BAD_BLOCK;
    uint8_t *tok = NULL;
    size_t ntok = 0;
    if (pl__unpack(log->pay, f->stored, f->flags, f->decoded, &tok, &ntok) || ntok != f->decoded) {
        free(tok);
        snprintf(why, whylen, "it does not unpack");
        return PL_E_BAD_BLOCK;
    }
    pl__meta_free(&log->meta);
    pl_error e;
    int s = pl__meta_decode(tok, ntok, &log->meta, &e);
    free(tok);
    if (s) {
        pl__meta_free(&log->meta);
        snprintf(why, whylen, "%s", e.msg);
        return s == PL_E_NOMEM ? s : PL_E_BAD_BLOCK;
    }
    return PL_OK;
}

static int open_log(const char *path, int use_index, pl_log **out, pl_error *err)
{
    pl__clear(err);
    if (!path || !out) return pl__fail(err, PL_E_INVAL, "pl_log_open: NULL argument");
    *out = NULL;
    pl_log *log = calloc(1, sizeof *log);
    if (!log) return pl__fail(err, PL_E_NOMEM, "out of memory");
    log->path = pl__strdup(path);
    log->fd = open(path, O_RDONLY | O_CLOEXEC);
    int s = PL_OK;
    char eb[128];
    struct stat st;
    if (!log->path) {
        s = pl__fail(err, PL_E_NOMEM, "out of memory");
        goto fail;
    }
    if (log->fd < 0 || fstat(log->fd, &st) != 0) {
        int e = errno;
        s = pl__fail(err, e == ENOENT ? PL_E_NOT_FOUND : PL_E_IO, "%s: %s", path, pl__strerror(e, eb, sizeof eb));
        goto fail;
    }
    log->size = (uint64_t)st.st_size;
    log->health.file_bytes = log->size;
    uint8_t pre[PL__LOG_PREAMBLE];
    if (log->size < PL__LOG_PREAMBLE || read_at(log, 0, pre, sizeof pre) || memcmp(pre, PL__LOG_MAGIC, 8) != 0) {
        s = pl__fail(err, PL_E_PARSE, "%s is not a perflib counter log (no \"PLCLOG\" signature)", path);
        goto fail;
    }
    if (pl__rd32(pre + 8) != PL__LOG_VERSION) {
        s = pl__fail(err, PL_E_UNSUPPORTED, "%s: counter log version %u (this library reads %u)", path,
                     pl__rd32(pre + 8), PL__LOG_VERSION);
        goto fail;
    }
    /* The header record, and right after it its copy (logs written since
     * issue 26; one damaged byte in the header must not lose the log).
     * When the first does not check, the copy is looked for with the same
     * resynchronisation as damaged records; a log without one (written
     * before) is unreadable then, as it always was. */
    pl__frame f;
    int torn = 0;
    char why[sizeof err->msg];
    uint64_t hoff = PL__LOG_PREAMBLE;
    s = read_header(log, hoff, &f, &torn, why, sizeof why);
    if (s) {
        uint64_t next = resync(log, hoff);
        pl__frame c;
        int ctorn = 0;
        if (next && frame_at(log, next, &c, &ctorn) == 0 && c.kind == PL__KIND_HEADER &&
            read_header(log, next, &f, &ctorn, why, sizeof why) == 0) {
            log->health.damaged_bytes += next - hoff;
            hoff = next;
            s = PL_OK;
        } else {
            s = pl__fail(err, PL_E_BAD_BLOCK, "%s: the header record at offset %u is %s%s%s", path, PL__LOG_PREAMBLE,
                         torn ? "incomplete" : "damaged", why[0] ? ": " : "", why);
            goto fail;
        }
    }
    log->data_start = hoff + PL__FRAME_HDR + f.stored;
    /* its copy: passed over (it is not a record) */
    pl__frame c;
    int ctorn;
    if (frame_at(log, log->data_start, &c, &ctorn) == 0 && c.kind == PL__KIND_HEADER)
        log->data_start += PL__FRAME_HDR + c.stored;
    log->end = log->data_start;
    uint64_t from = use_index ? load_index(log) : 0;
    if (!from) {
        log->n = 0;
        log->health.index_used = 0;
        from = log->data_start;
    }
    if ((s = scan(log, from)) != 0) {
        s = pl__fail(err, s, "out of memory reading %s", path);
        goto fail;
    }
    *out = log;
    return PL_OK;
fail:
    pl_log_close(log);
    return s;
}

/* A log of another format (CSV/TSV, SQL): its records are the backend's. */
static int open_other(pl__xlog *x, const char *name, pl_log **out, pl_error *err)
{
    pl_log *log = calloc(1, sizeof *log);
    if (!log || !(log->path = pl__strdup(name))) {
        free(log);
        x->close(x);
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    log->fd = -1;
    log->x = x;
    log->meta.h = x->h;
    log->health = x->health;
    for (size_t i = 0; i < x->n; i++)
        if (add_rec(log, x->times[i], i) != 0) {
            pl_log_close(log);
            return pl__fail(err, PL_E_NOMEM, "out of memory");
        }
    *out = log;
    return PL_OK;
}

PL_EXTERN int pl_log_open(const char *path, pl_log **out, pl_error *err)
{
    pl__clear(err);
    if (!path || !out) return pl__fail(err, PL_E_INVAL, "pl_log_open: NULL argument");
    pl__xlog *x = NULL;
    int s = pl__xlog_open(path, &x, err);
    if (s) return s;
    if (x) return open_other(x, path, out, err);
    return open_log(path, 1, out, err);
}

PL_EXTERN int pl_log_format(const pl_log *log) { return !log ? 0 : log->x ? log->x->format : PL_LOG_FMT_BIN; }

PL_EXTERN void pl_log_close(pl_log *log)
{
    if (!log) return;
    if (log->fd >= 0) close(log->fd);
    if (log->x) {
        log->x->close(log->x);
        memset(&log->meta.h, 0, sizeof log->meta.h); /* the backend's */
    }
    pl__meta_free(&log->meta);
    free(log->r);
    free(log->pay);
    free(log->key);
    free(log->cur);
    free(log->vals);
    free(log->present);
    free(log->path);
    free(log);
}

PL_EXTERN int pl_log_reindex(const char *path, pl_error *err)
{
    pl_log *log = NULL;
    int s = open_log(path, 0, &log, err);
    if (s) return s;
    char *ip = idx_path(path);
    size_t n = ip ? strlen(ip) : 0;
    char *tmp = ip ? malloc(n + 5) : NULL;
    if (!tmp) {
        free(ip);
        pl_log_close(log);
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    memcpy(tmp, ip, n);
    memcpy(tmp + n, ".new", 5);
    size_t len = PL__IDX_PREAMBLE + log->n * PL__IDX_ENTRY;
    uint8_t *b = calloc(1, len);
    int fd = b ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
    if (fd >= 0) {
        memcpy(b, PL__IDX_MAGIC, 8);
        pl__wr32(b + 8, PL__LOG_VERSION);
        memcpy(b + 16, log->meta.id, 16);
        for (size_t i = 0; i < log->n; i++) {
            pl__wr64(b + PL__IDX_PREAMBLE + i * PL__IDX_ENTRY, (uint64_t)log->r[i].time);
            pl__wr64(b + PL__IDX_PREAMBLE + i * PL__IDX_ENTRY + 8, log->r[i].off);
        }
        size_t done = 0;
        while (done < len) {
            ssize_t w = write(fd, b + done, len - done);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) break;
            done += (size_t)w;
        }
        if (close(fd) != 0 || done != len || rename(tmp, ip) != 0) fd = -1;
    }
    if (fd < 0) {
        int e = errno;
        char eb[128];
        unlink(tmp);
        s = pl__fail(err, PL_E_IO, "cannot write %s: %s", ip, pl__strerror(e, eb, sizeof eb));
    }
    free(b);
    free(tmp);
    free(ip);
    pl_log_close(log);
    return s;
}

PL_EXTERN const pl_log_header *pl_log_get_header(const pl_log *log) { return log ? &log->meta.h : NULL; }

PL_EXTERN const pl_titles *pl_log_titles(const pl_log *log, int english)
{
    if (!log) return NULL;
    return english ? log->meta.titles_en : log->meta.titles;
}

PL_EXTERN size_t pl_log_count(const pl_log *log) { return log ? log->n : 0; }
PL_EXTERN int64_t pl_log_time(const pl_log *log, size_t i) { return log && i < log->n ? log->r[i].time : 0; }

PL_EXTERN void pl_log_seek(const pl_log *log, int64_t time, size_t *i)
{
    size_t lo = 0, hi = log ? log->n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (log->r[mid].time < time) lo = mid + 1;
        else hi = mid;
    }
    if (i) *i = lo;
}

PL_EXTERN void pl_log_get_health(const pl_log *log, pl_log_health *h)
{
    if (!h) return;
    memset(h, 0, sizeof *h);
    if (log) *h = log->health;
}

uint64_t pl__log_end(const pl_log *log) { return log->end; }
void pl__log_id(const pl_log *log, uint8_t id[16]) { memcpy(id, log->meta.id, 16); }
uint64_t pl__log_offset(const pl_log *log, size_t i) { return i < log->n ? log->r[i].off : 0; }

/* Decode the data frame f at off into *dst (capacity *cap). */
static int decode_frame(pl_log *log, uint64_t off, const pl__frame *f, const uint8_t *key, size_t keylen,
                        uint8_t **dst, size_t *cap)
{
    if (payload_at(log, off, f)) return -1;
    uint8_t *tok = NULL;
    size_t ntok = 0;
    if (pl__unpack(log->pay, f->stored, f->flags, pl__max_tokens(f->decoded), &tok, &ntok)) return -1;
    int r = -1;
    if (ensure(dst, cap, pl__align8(f->decoded) + 8) == 0)
        r = pl__delta_decode(tok, ntok, key, keylen, *dst, f->decoded);
    free(tok);
    return r;
}

static int bad(pl_log *log, pl_error *err, uint64_t off, const char *what)
{
    return pl__fail(err, PL_E_BAD_BLOCK, "%s: the record at offset %llu %s", log->path, (unsigned long long)off,
                    what);
}

/* Record i of another format, in the values record layout (ncolumns
 * doubles, then a bitmap of the present ones). */
static int read_other(pl_log *log, size_t i, const void **data, size_t *len, pl_error *err)
{
    size_t nc = log->meta.h.ncolumns, n = nc * 8 + (nc + 7) / 8;
    if (ensure(&log->cur, &log->curcap, n + 8) || ensure(&log->key, &log->keycap, nc + 1))
        return pl__fail(err, PL_E_NOMEM, "out of memory");
    double *v = (double *)(void *)log->cur;
    int s = log->x->read(log->x, i, v, log->key, err);
    if (s) return s;
    uint8_t *bits = log->cur + nc * 8;
    memset(bits, 0, (nc + 7) / 8);
    for (size_t c = 0; c < nc; c++)
        if (log->key[c]) bits[c / 8] |= (uint8_t)(1u << (c % 8));
    *data = log->cur;
    *len = n;
    return PL_OK;
}

PL_EXTERN int pl_log_read(pl_log *log, size_t i, const void **data, size_t *len, pl_error *err)
{
    pl__clear(err);
    if (!log || !data || !len) return pl__fail(err, PL_E_INVAL, "pl_log_read: NULL argument");
    *data = NULL;
    *len = 0;
    if (i >= log->n) return pl__fail(err, PL_E_NOT_FOUND, "%s: no record %zu (there are %zu)", log->path, i, log->n);
    if (log->x) return read_other(log, i, data, len, err);
    const rec *r = &log->r[i];
    pl__frame f;
    int torn;
    if (frame_at(log, r->off, &f, &torn) || f.time != r->time || f.kind == PL__KIND_HEADER)
        return bad(log, err, r->off, "is damaged (its header does not check)");
    if (f.kind == PL__KIND_GAP) return pl__fail(err, PL_E_NO_DATA, "%s: record %zu is a gap (no sample)", log->path, i);
    if (log->meta.h.kind == PL_LOG_VALUES) {
        size_t nc = log->meta.h.ncolumns;
        if (f.decoded != nc * 8 + (nc + 7) / 8) return bad(log, err, r->off, "has the wrong size for its columns");
    }
    if (f.kind == PL__KIND_KEY) {
        log->have_key = 0;
        if (decode_frame(log, r->off, &f, NULL, 0, &log->key, &log->keycap))
            return bad(log, err, r->off, "is damaged (CRC or encoding)");
        log->have_key = 1;
        log->key_off = r->off;
        log->keylen = f.decoded;
        *data = log->key;
        *len = f.decoded;
        return PL_OK;
    }
    if (f.key_off < log->data_start || f.key_off >= r->off)
        return bad(log, err, r->off, "refers to a key record that cannot be");
    if (!log->have_key || log->key_off != f.key_off) {
        pl__frame kf;
        log->have_key = 0;
        if (frame_at(log, f.key_off, &kf, &torn) || kf.kind != PL__KIND_KEY ||
            decode_frame(log, f.key_off, &kf, NULL, 0, &log->key, &log->keycap))
            return bad(log, err, r->off, "depends on a damaged key record");
        log->have_key = 1;
        log->key_off = f.key_off;
        log->keylen = kf.decoded;
    }
    if (decode_frame(log, r->off, &f, log->key, log->keylen, &log->cur, &log->curcap))
        return bad(log, err, r->off, "is damaged (CRC or encoding)");
    *data = log->cur;
    *len = f.decoded;
    return PL_OK;
}

PL_EXTERN int pl_log_read_values(pl_log *log, size_t i, const double **values, const unsigned char **present,
                                 pl_error *err)
{
    pl__clear(err);
    if (!log || !values || !present) return pl__fail(err, PL_E_INVAL, "pl_log_read_values: NULL argument");
    if (log->meta.h.kind != PL_LOG_VALUES)
        return pl__fail(err, PL_E_INVAL, "%s holds counter blocks, not values", log->path);
    const void *d;
    size_t len;
    int s = pl_log_read(log, i, &d, &len, err);
    if (s) return s;
    size_t nc = log->meta.h.ncolumns;
    if (!log->vals) {
        log->vals = calloc(nc, sizeof *log->vals);
        log->present = calloc(nc, 1);
        if (!log->vals || !log->present) return pl__fail(err, PL_E_NOMEM, "out of memory");
    }
    const uint8_t *b = d;
    for (size_t c = 0; c < nc; c++) {
        log->present[c] = (b[nc * 8 + c / 8] >> (c % 8)) & 1;
        memcpy(&log->vals[c], b + c * 8, 8);
        if (log->present[c] && !isfinite(log->vals[c])) log->present[c] = 0;
    }
    *values = log->vals;
    *present = log->present;
    return PL_OK;
}
