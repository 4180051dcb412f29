/* pview: number formats, sorting and filtering of rows. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pview.h"

void pv_err(pl_error *err, int status, const char *fmt, ...)
{
    if (!err) return;
    err->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
}

static void blank(char *buf, size_t cap)
{
    if (cap) buf[0] = 0;
}

/* Bytes in K/M/G/T/P/E with 1024 steps and always a unit, so that a column
 * never mixes plain bytes with K: "0", "4.0K", "96K", "1.2M", "512M",
 * "3.0G"; at most 5 characters. */
void pv_fmt_bytes(char *buf, size_t cap, double v)
{
    if (isnan(v)) {
        blank(buf, cap);
        return;
    }
    if (v <= 0) {
        snprintf(buf, cap, "0");
        return;
    }
    static const char unit[] = "KMGTPE";
    int u = 0;
    v /= 1024;
    while (v >= 999.5 && u < 5) {
        v /= 1024;
        u++;
    }
    snprintf(buf, cap, v < 9.95 ? "%.1f%c" : "%.0f%c", v, unit[u]);
}

void pv_fmt_pct(char *buf, size_t cap, double v)
{
    if (isnan(v)) blank(buf, cap);
    else snprintf(buf, cap, "%.1f", v);
}

void pv_fmt_num(char *buf, size_t cap, double v)
{
    if (isnan(v)) blank(buf, cap);
    else snprintf(buf, cap, "%.0f", v);
}

void pv_fmt_rate(char *buf, size_t cap, double v)
{
    if (isnan(v)) blank(buf, cap);
    else if (v < 100000) snprintf(buf, cap, "%.0f", v);
    else pv_fmt_bytes(buf, cap, v);
}

/* d-hh:mm:ss, or hh:mm:ss under a day. */
void pv_fmt_elapsed(char *buf, size_t cap, double s)
{
    if (isnan(s) || s < 0) {
        blank(buf, cap);
        return;
    }
    unsigned long long t = (unsigned long long)s;
    unsigned long long d = t / 86400;
    t %= 86400;
    if (d) snprintf(buf, cap, "%llu-%02llu:%02llu", d, t / 3600, t % 3600 / 60);
    else snprintf(buf, cap, "%02llu:%02llu:%02llu", t / 3600, t % 3600 / 60, t % 60);
}

const char *pv_thread_state(double s)
{
    static const char *names[] = {"Init", "Ready", "Running", "Standby", "Term", "Wait", "Transit", "Unknown"};
    if (isnan(s) || s < 0 || s > 7) return "";
    return names[(int)s];
}

const char *pv_wait_reason(double r)
{
    static const char *names[] = {"Executive",     "FreePage",      "PageIn",        "PoolAlloc",
                                  "DelayExec",     "Suspended",     "UserRequest",   "WrExecutive",
                                  "WrFreePage",    "WrPageIn",      "WrPoolAlloc",   "WrDelayExec",
                                  "WrSuspended",   "WrUserRequest", "WrEventPair",   "WrQueue",
                                  "WrLpcReceive",  "WrLpcReply",    "WrVirtualMem",  "WrPageOut",
                                  "Unknown"};
    if (isnan(r) || r < 0) return "";
    if (r > 20) return "Unknown";
    return names[(int)r];
}

/* Case-insensitive substring match; an empty filter matches everything. */
int pv_name_matches(const char *name, const char *filter)
{
    if (!filter || !*filter) return 1;
    size_t fl = strlen(filter);
    for (const char *p = name; *p; p++) {
        size_t i = 0;
        while (i < fl && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)filter[i])) i++;
        if (i == fl) return 1;
    }
    return 0;
}

static int g_col, g_desc;

static double key(const pv_proc *p, int col)
{
    switch (col) {
    case PC_PID: return p->pid;
    case PC_CPU: return p->cpu;
    case PC_USER: return p->user;
    case PC_PRIV: return p->priv;
    case PC_WS: return p->ws;
    case PC_PRIVATE: return p->private_bytes;
    case PC_VIRTUAL: return p->virtual_bytes;
    case PC_THREADS: return p->threads;
    case PC_HANDLES: return p->handles;
    case PC_PRIO: return p->prio;
    case PC_ELAPSED: return p->elapsed;
    case PC_FAULTS: return p->faults;
    case PC_IO: return p->io;
    default: return 0;
    }
}

/* _Total last whatever the order; blanks (NaN) after numbers; ties by pid. */
static int cmp(const void *a, const void *b)
{
    const pv_proc *x = a, *y = b;
    if ((x->special == 2) != (y->special == 2)) return x->special == 2 ? 1 : -1;
    int r = 0;
    if (g_col == PC_NAME) {
        r = strcasecmp(x->name, y->name);
    } else {
        double u = key(x, g_col), v = key(y, g_col);
        if (isnan(u) != isnan(v)) return isnan(u) ? 1 : -1;
        if (!isnan(u)) r = (u > v) - (u < v);
    }
    if (g_desc) r = -r;
    if (r == 0) r = (x->pid > y->pid) - (x->pid < y->pid);
    return r;
}

void pv_sort(pv_proc *p, size_t n, int col, int descending)
{
    g_col = col;
    g_desc = descending;
    qsort(p, n, sizeof *p, cmp);
}
