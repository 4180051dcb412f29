/* perfd's own metrics when a provider goes wrong: the real perfd over a
 * store with perfd's test provider (tests/perfd/pd_slowprov.c) that starts
 * failing, or breaks the Collect contract and is disabled, after two good
 * collections. Its object's series then vanish from /metrics; these say so:
 * perflib_provider_up 0, perflib_object_up 0 for its object, the errors
 * counted and the time of the last one.
 * The names, types, units and HELP of perfd's own families are pinned in
 * golden/self.{prom,om} (regenerate with PL_UPDATE_GOLDEN=1), the text
 * clean under promtool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pd_util.h"
#include "pl_test.h"
#include "pm_test.h"
#include "pq_fixture.h"

static char *scrape(const pd_proc *pd)
{
    pd_resp r;
    assert_int_equal(pd_get(pd->port, "/metrics", "", &r, 10000), 0);
    assert_int_equal(r.status, 200);
    char *b = (char *)r.body;
    r.body = NULL;
    pd_resp_free(&r);
    return b;
}

static pq_fixture fx;
static pd_proc pd;

static void provider_goes_wrong(const char *env_var, int disabled)
{
    assert_int_equal(pq_fixture_make(&fx, PL_SOURCE_DIR "/tests/perfd/pdslow.ini", PD_SLOWPROV_SO), 0);
    const char *args[] = {"--registry", fx.store, "--set", "snapshot_max_age_ms=0", "--set", "metrics_objects=PD Slow",
                          NULL};
    char env0[64];
    snprintf(env0, sizeof env0, "%s=3", env_var);
    const char *env[] = {env0, NULL};
    assert_int_equal(pd_start(&pd, args, env), 0);
    const char *up = "perflib_provider_up{provider=\"PerfdSlow\"}";
    const char *obj = "perflib_object_up{object=\"PD Slow\",provider=\"PerfdSlow\"}";
    const char *errs = "perflib_provider_errors_total{provider=\"PerfdSlow\"}";
    const char *when = "perflib_provider_last_error_timestamp_seconds{provider=\"PerfdSlow\"}";
    /* two good collections */
    for (int i = 0; i < 2; i++) {
        char *b = scrape(&pd);
        assert_true(pmt_must(b, up) == 1);
        assert_true(pmt_must(b, obj) == 1);
        assert_true(pmt_must(b, errs) == 0);
        assert_true(pmt_must(b, when) == 0);
        assert_non_null(strstr(b, "\nperflib_pd_slow_collections{pd_slow=\"instance 0\"} "));
        free(b);
    }
    /* then it fails: its series vanish, and perfd says why */
    double t0 = (double)time(NULL);
    char *b = scrape(&pd);
    assert_null(strstr(b, "\nperflib_pd_slow_collections{"));
    assert_true(pmt_must(b, up) == 0);
    assert_true(pmt_must(b, obj) == 0);
    assert_true(pmt_must(b, errs) >= 1);
    double t = pmt_must(b, when);
    assert_true(t >= t0 - 2 && t <= t0 + 60);
    free(b);
    /* and stays so */
    b = scrape(&pd);
    assert_true(pmt_must(b, up) == 0);
    assert_true(pmt_must(b, obj) == 0);
    free(b);
    char *log = pd_log(&pd);
    if (disabled && !strstr(log, "PerfdSlow")) print_message("perfd log: %s\n", log);
    free(log);
    assert_int_equal(pd_stop(&pd), 0);
}

/* The HELP, TYPE and UNIT lines of perfd's own families (those of the
 * provider's object left out). */
static char *self_headers(const char *text)
{
    size_t cap = strlen(text) + 1, n = 0;
    char *acc = malloc(cap);
    assert_non_null(acc);
    for (const char *l = text; l && *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) + 1 : strlen(l);
        const char *fam = NULL;
        if (strncmp(l, "# HELP ", 7) == 0 || strncmp(l, "# TYPE ", 7) == 0 || strncmp(l, "# UNIT ", 7) == 0)
            fam = l + 7;
        if (fam && strncmp(fam, "perflib_pd_slow_", 16) != 0) {
            memcpy(acc + n, l, len);
            n += len;
        }
        l = e ? e + 1 : NULL;
    }
    acc[n] = '\0';
    return acc;
}

static void self_families_golden(void **state)
{
    (void)state;
    assert_int_equal(pq_fixture_make(&fx, PL_SOURCE_DIR "/tests/perfd/pdslow.ini", PD_SLOWPROV_SO), 0);
    const char *args[] = {"--registry", fx.store, "--set", "metrics_objects=PD Slow", NULL};
    assert_int_equal(pd_start(&pd, args, NULL), 0);
    for (int om = 0; om < 2; om++) {
        pd_resp r;
        assert_int_equal(pd_get(pd.port, "/metrics", om ? "Accept: application/openmetrics-text; version=1.0.0\r\n" : "",
                                &r, 10000),
                         0);
        assert_int_equal(r.status, 200);
        const char *text = (const char *)r.body;
        /* every family of perfd's own has a sample here */
        assert_non_null(strstr(text, "\nperflib_provider_up{provider=\"PerfdSlow\"} 1\n"));
        if (!om) pmt_promtool_clean(text, r.body_len);
        char *h = self_headers(text);
        assert_int_equal(pq_golden(om ? PL_SOURCE_DIR "/tests/perfd_metrics/golden/self.om"
                                      : PL_SOURCE_DIR "/tests/perfd_metrics/golden/self.prom",
                                   h),
                         0);
        free(h);
        pd_resp_free(&r);
    }
    assert_int_equal(pd_stop(&pd), 0);
}

static void provider_error_is_down(void **state)
{
    (void)state;
    provider_goes_wrong("PD_FAIL_AFTER", 0);
}

static void provider_disabled_is_down(void **state)
{
    (void)state;
    provider_goes_wrong("PD_BREAK_AFTER", 1);
}

/* whatever a failed case left running is stopped */
static int teardown(void **state)
{
    (void)state;
    if (pd.pid > 0) pd_stop(&pd);
    if (fx.dir) pq_fixture_done(&fx);
    memset(&fx, 0, sizeof fx);
    return 0;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(self_families_golden, teardown),
        cmocka_unit_test_teardown(provider_error_is_down, teardown),
        cmocka_unit_test_teardown(provider_disabled_is_down, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
