/* perflib counter logs in other formats: which backend opens a name, and
 * the helpers they share (log_ext.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log_ext.h"

int pl__xlog_open(const char *name, pl__xlog **out, pl_error *err)
{
    *out = NULL;
    if (!name) return PL_OK;
    if (strncasecmp(name, "SQL:", 4) == 0) return pl__sqllog_open(name, out, err);
    switch (pl__textlog_sniff(name)) {
    case 1: case 2: return pl__textlog_open(name, out, err);
    case 3: return pl__fail(err, PL_E_ENCODING, "%s: UTF-16 text logs are not read (save the log as UTF-8)", name);
    default: return PL_OK;
    }
}

char *pl__path_machine(const char *path)
{
    if (!path || path[0] != '\\' || path[1] != '\\') return NULL;
    const char *m = path + 2, *e = strchr(m, '\\');
    if (!e || e == m) return NULL;
    size_t n = (size_t)(e - m);
    char *r = malloc(n + 1);
    if (!r) return NULL;
    memcpy(r, m, n);
    r[n] = '\0';
    return r;
}

/* ------------------------------------------------------------- times */

static int days_in_month(int y, int m)
{
    static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) return 29;
    return d[m - 1];
}

static int valid(const pl__walltime *w)
{
    return w->year >= 1601 && w->year <= 9999 && w->mon >= 1 && w->mon <= 12 && w->day >= 1 &&
           w->day <= days_in_month(w->year, w->mon) && w->hour >= 0 && w->hour <= 23 && w->min >= 0 &&
           w->min <= 59 && w->sec >= 0 && w->sec <= 60 && w->ms >= 0 && w->ms <= 999;
}

/* n decimal digits at *p (exactly n), advancing *p. -1 when not. */
static int digits(const char **p, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        char c = (*p)[i];
        if (c < '0' || c > '9') return -1;
        v = v * 10 + (c - '0');
    }
    *p += n;
    return v;
}

/* 1 or 2 digits. */
static int digits12(const char **p)
{
    if ((*p)[0] < '0' || (*p)[0] > '9') return -1;
    int n = (*p)[1] >= '0' && (*p)[1] <= '9' ? 2 : 1;
    return digits(p, n);
}

int pl__parse_us_time(const char *s, pl__walltime *w)
{
    memset(w, 0, sizeof *w);
    const char *p = s;
    if ((w->mon = digits12(&p)) < 0 || *p++ != '/') return -1;
    if ((w->day = digits12(&p)) < 0 || *p++ != '/') return -1;
    if ((w->year = digits(&p, 4)) < 0 || *p++ != ' ') return -1;
    if ((w->hour = digits12(&p)) < 0 || *p++ != ':') return -1;
    if ((w->min = digits(&p, 2)) < 0 || *p++ != ':') return -1;
    if ((w->sec = digits(&p, 2)) < 0) return -1;
    if (*p == '.') {
        p++;
        if ((w->ms = digits(&p, 3)) < 0) return -1;
    }
    if (*p) return -1;
    return valid(w) ? 0 : -1;
}

int pl__parse_sql_time(const char *s, pl__walltime *w)
{
    memset(w, 0, sizeof *w);
    const char *p = s;
    if ((w->year = digits(&p, 4)) < 0 || *p++ != '-') return -1;
    if ((w->mon = digits(&p, 2)) < 0 || *p++ != '-') return -1;
    if ((w->day = digits(&p, 2)) < 0 || *p++ != ' ') return -1;
    if ((w->hour = digits(&p, 2)) < 0 || *p++ != ':') return -1;
    if ((w->min = digits(&p, 2)) < 0 || *p++ != ':') return -1;
    if ((w->sec = digits(&p, 2)) < 0) return -1;
    /* milliseconds after '.', or after ':' as Microsoft documents the
     * DisplayToID times */
    if (*p == '.' || *p == ':') {
        p++;
        if ((w->ms = digits(&p, 3)) < 0) return -1;
    }
    while (*p == ' ') p++;
    if (*p) return -1;
    return valid(w) ? 0 : -1;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

#define FT_UNIX_SECONDS 11644473600LL

int64_t pl__walltime_ft(const pl__walltime *w)
{
    int64_t days = days_from_civil(w->year, w->mon, w->day);
    int64_t secs = days * 86400 + w->hour * 3600 + w->min * 60 + w->sec + FT_UNIX_SECONDS;
    return secs * 10000000 + (int64_t)w->ms * 10000;
}

void pl__ft_walltime(int64_t ft, pl__walltime *w, int *wday)
{
    int64_t ms = ft / 10000 - FT_UNIX_SECONDS * 1000;
    int64_t secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
    int64_t z = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
    int64_t sod = secs - z * 86400;
    if (wday) *wday = (int)((z % 7 + 11) % 7); /* 1970-01-01 was a Thursday */
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    w->day = (int)(doy - (153 * mp + 2) / 5 + 1);
    w->mon = (int)(mp < 10 ? mp + 3 : mp - 9);
    int64_t y = yoe + era * 400 + (w->mon <= 2);
    w->year = y < 0 ? 0 : y > 9999 ? 9999 : (int)y;
    w->hour = (int)(sod / 3600);
    w->min = (int)(sod / 60 % 60);
    w->sec = (int)(sod % 60);
    w->ms = (int)(ms - secs * 1000);
}

void pl__ft_sql_time(int64_t ft, char sep, char out[24])
{
    pl__walltime w;
    pl__ft_walltime(ft, &w, NULL);
    char b[80];
    snprintf(b, sizeof b, "%04d-%02d-%02d %02d:%02d:%02d%c%03d", w.year, w.mon, w.day, w.hour, w.min, w.sec, sep,
             w.ms);
    memcpy(out, b, 23);
    out[23] = '\0';
}
