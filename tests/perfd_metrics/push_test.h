/* What the remote_write tests share (test_push_live.c,
 * test_push_token_live.c): perfd's own /metrics samples and its log. */
#ifndef PUSH_TEST_H
#define PUSH_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pd_util.h"
#include "pm_test.h"

/* The value of `series` in the /metrics of the perfd on port; the test
 * fails when there is none. */
static inline double pst_self(unsigned port, const char *series)
{
    pd_resp r;
    assert_int_equal(pd_get(port, "/metrics", "", &r, 20000), 0);
    if (r.status != 200) fail_msg("perfd /metrics: HTTP %d", r.status);
    double v = pmt_must((const char *)r.body, series);
    pd_resp_free(&r);
    return v;
}

/* How many times `what` is in perfd's log. */
static inline int pst_log_count(const pd_proc *p, const char *what)
{
    char *log = pd_log(p);
    int n = 0;
    for (const char *s = log; s && (s = strstr(s, what)) != NULL; s += strlen(what)) n++;
    free(log);
    return n;
}

/* Wait (at most timeout_ms) until `what` is in perfd's log at least n
 * times; the test fails with the log when it is not. */
static inline void pst_wait_log(const pd_proc *p, const char *what, int n, int timeout_ms)
{
    for (int waited = 0; waited < timeout_ms; waited += 100) {
        if (pst_log_count(p, what) >= n) return;
        usleep(100000);
    }
    static char msg[8192];
    char *log = pd_log(p);
    snprintf(msg, sizeof msg, "%s", log ? log : "");
    free(log);
    fail_msg("\"%s\" not %d times in perfd's log within %d ms: %s", what, n, timeout_ms, msg);
}

#endif
