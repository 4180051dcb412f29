/* typeperf's cell formats, shared with relog (tp_format.h). */
#include <stdio.h>
#include <string.h>

#include "tp_format.h"

void tp_fmt_time(int64_t unix_ms, char *out, size_t cap, struct tm *tmout)
{
    time_t t = (time_t)(unix_ms >= 0 ? unix_ms / 1000 : (unix_ms - 999) / 1000);
    int ms = (int)(unix_ms - (int64_t)t * 1000);
    struct tm tm;
    localtime_r(&t, &tm);
    if (tmout) *tmout = tm;
    snprintf(out, cap, "%02d/%02d/%04d %02d:%02d:%02d.%03d", tm.tm_mon + 1, tm.tm_mday, tm.tm_year + 1900, tm.tm_hour,
             tm.tm_min, tm.tm_sec, ms);
}

/* Full precision as Windows writes log files: printf "%.17g" (17
 * significant digits, so 0.05 is "0.050000000000000003" and integers have no
 * decimals), with the exponent written in three digits as the Microsoft C
 * runtime does ("7.0625001143654654e-005"). */
void tp_fmt_full(double v, char *out, size_t cap)
{
    snprintf(out, cap, "%.17g", v);
    char *e = strchr(out, 'e');
    if (e && (e[1] == '+' || e[1] == '-')) {
        char *d = e + 2;
        size_t nd = strlen(d);
        if (nd < 3 && (size_t)(d - out) + 4 <= cap) {
            memmove(d + (3 - nd), d, nd + 1);
            memset(d, '0', 3 - nd);
        }
    }
}

int tp_value(const pl_pdh_counter *c, double *v)
{
    pl_pdh_value pv;
    /* Uncapped, as System Monitor and typeperf show it since NT 4.0 SP2 (KB
     * 167050): \Process(x)\% Processor Time reaches N x 100 on N
     * processors; Processor(_Total) stays within 100 by its formula. */
    uint32_t fs = pl_pdh_get_formatted(c, PL_PDH_FMT_DOUBLE | PL_PDH_FMT_NOCAP100, NULL, &pv);
    /* a zero denominator shows as 0, as .NET shows PDH_CALC_NEGATIVE_DENOMINATOR */
    if (fs == PL_PDH_CALC_NEGATIVE_DENOMINATOR) {
        *v = 0;
        return 1;
    }
    *v = fs == 0 ? pv.v.double_value : 0;
    return fs == 0;
}
