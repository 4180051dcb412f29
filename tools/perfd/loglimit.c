/* perfd: refusal log lines with a rate limit (docs/perfd.md, "Errors").
 *
 * Every refusal writes a line, but a flood of the same refusal (a
 * mis-tokened Prometheus, thousands of connections past the limits) must not
 * flood the log. A refusal's kind is its status and the fixed start of its
 * reason (up to the first digit, quote, parenthesis or colon, so numbers,
 * names and addresses do not make new kinds). The first refusal of a quiet
 * kind is logged in full; the next ones of that kind within log_interval
 * seconds are counted, and at the end of the interval one summary line says
 * how many there were and repeats the last one. A kind with nothing in an
 * interval is quiet again. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "daemon.h"

#define KINDS 64
#define SHAPE 48

typedef struct kind {
    unsigned status;
    char shape[SHAPE];
    uint64_t window_end_ns;   /* 0: quiet */
    unsigned long counted;    /* refusals in this window not logged in full */
    char last[400];           /* the last of them */
} kind;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static kind kinds[KINDS];
static unsigned interval_s = 60;

void perfd_loglimit_init(unsigned seconds)
{
    interval_s = seconds ? seconds : 60;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void shape_of(const char *reason, char *out)
{
    size_t n = 0;
    for (; reason[n] && n < SHAPE - 1; n++) {
        char c = reason[n];
        if ((c >= '0' && c <= '9') || c == '"' || c == '(' || c == ':') break;
        out[n] = c;
    }
    out[n] = 0;
}

/* Lock held: the summary of a window that ended. */
static void close_window(kind *k)
{
    if (k->counted)
        perfd_log("%lu more like this in the last %u s: %s", k->counted, interval_s, k->last);
    k->window_end_ns = k->counted ? now_ns() + (uint64_t)interval_s * 1000000000u : 0;
    k->counted = 0;
}

void perfd_log_refusal(unsigned status, const char *reason, const char *fmt, ...)
{
    char line[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char shape[SHAPE];
    shape_of(reason, shape);
    uint64_t now = now_ns();
    pthread_mutex_lock(&mu);
    kind *k = NULL, *free_slot = NULL;
    for (size_t i = 0; i < KINDS; i++) {
        kind *c = &kinds[i];
        if (c->window_end_ns && c->status == status && strcmp(c->shape, shape) == 0) {
            k = c;
            break;
        }
        if (!c->window_end_ns && !free_slot) free_slot = c;
    }
    if (k && k->window_end_ns <= now) close_window(k);
    if (k && k->window_end_ns) {
        k->counted++;
        snprintf(k->last, sizeof k->last, "%s", line);
        pthread_mutex_unlock(&mu);
        return;
    }
    if (!k) k = free_slot; /* every slot busy: logged in full, uncounted */
    if (k) {
        k->status = status;
        snprintf(k->shape, sizeof k->shape, "%s", shape);
        k->window_end_ns = now + (uint64_t)interval_s * 1000000000u;
        k->counted = 0;
    }
    pthread_mutex_unlock(&mu);
    perfd_log("%s", line);
}

void perfd_loglimit_tick(void)
{
    uint64_t now = now_ns();
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < KINDS; i++)
        if (kinds[i].window_end_ns && kinds[i].window_end_ns <= now) close_window(&kinds[i]);
    pthread_mutex_unlock(&mu);
}
