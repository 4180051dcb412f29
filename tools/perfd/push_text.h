/* perfd: the pure parts of remote_write (push.c, docs/perfd.md, "Push:
 * remote_write"): the settings' checks, and the /metrics text exposition
 * (Prometheus text 0.0.4, as metrics_text.c writes it) read back into
 * series, so that what is pushed has exactly the names, labels and values a
 * scrape sees. Hostile input: every line is checked; fuzzed by
 * tests/fuzz/fuzz_push_text.c. */
#ifndef PERFD_PUSH_TEXT_H
#define PERFD_PUSH_TEXT_H

#include <stddef.h>
#include <stdint.h>

typedef struct pw_label {
    const char *name, *value;      /* into the batch's text */
} pw_label;

typedef struct pw_series {
    size_t first, n;               /* labels[first .. first+n), sorted by name, __name__ included */
    double value;
} pw_series;

/* One rendering: every sample of it, stamped with one time. */
typedef struct pw_batch {
    char *text;                    /* owned: the exposition, unescaped in place */
    pw_label *labels;
    size_t nlabels;
    pw_series *series;
    size_t nseries;
    int64_t ts_ms;                 /* Unix time in milliseconds */
    struct pw_batch *next;
} pw_batch;

/* Read an exposition (text, len bytes; the batch takes a copy). 0 with *out
 * (pw_batch_free it), or -1 with the reason (line number included) in why. */
int pw_parse(const char *text, size_t len, int64_t ts_ms, pw_batch **out, char *why, size_t whylen);
void pw_batch_free(pw_batch *b);

/* The settings (each 0, or -1 with the reason naming the key). */
/* remote_write_url: http:// or https://, a host, no spaces or control
 * characters, at most PW_URL_MAX bytes. */
#define PW_URL_MAX 2048
int pw_check_url(const char *v, char *why, size_t whylen);
/* A whole number from lo to hi for `key`. */
int pw_parse_uint(const char *key, const char *v, unsigned long lo, unsigned long hi, unsigned long *out, char *why,
                  size_t whylen);

#define PW_INTERVAL_MIN_MS 100ul
#define PW_INTERVAL_MAX_MS 3600000ul
#define PW_QUEUE_MIN 1000ul
#define PW_QUEUE_MAX 100000000ul

#endif
