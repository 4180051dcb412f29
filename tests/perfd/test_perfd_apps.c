/* perfd and applications that start after it (issue 26, finding 3): a
 * running perfd showed such an application nowhere in /metrics or the
 * page's Add dialog and listed its objects in /v1/json without a name,
 * until it was restarted (its title database was read once). The real perfd
 * on 127.0.0.1 over a fresh store (its built-in providers disabled, so only
 * AppCounters answers), an application published by this test process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pd_util.h"
#include "perflib/app.h"
#include "perflib/query.h"
#include "perflib/registry.h"
#include "pl_test.h"
#include "pq_run.h"

static char *dir;
static char store[600];
static pd_proc pd;

static int setup(void **state)
{
    (void)state;
    dir = pq_mkdtemp();
    if (!dir) return -1;
    snprintf(store, sizeof store, "%s/store.db", dir);
    setenv("PERFLIB_APP_DIR", dir, 1);
    setenv("PERFLIB_REGISTRY", store, 1);
    pl_store *st;
    pl_error err;
    if (pl_store_open(store, 0, &st, &err) != PL_OK) return -1;
    pl_provider_info *list;
    size_t n;
    if (pl_store_providers(st, &list, &n, &err) != PL_OK) return -1;
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i].name, PL_APP_PROVIDER) != 0) pl_store_disable_provider(st, list[i].name, "not under test", &err);
    pl_provider_list_free(list, n);
    pl_store_close(st);
    char env_dir[700];
    snprintf(env_dir, sizeof env_dir, "PERFLIB_APP_DIR=%s", dir);
    const char *env[] = {env_dir, NULL};
    const char *args[] = {"--registry", store, "--set", "snapshot_max_age_ms=100", NULL};
    return pd_start(&pd, args, env);
}

static int teardown(void **state)
{
    (void)state;
    int rc = pd_stop(&pd);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) rc = -1;
    free(dir);
    return rc == 0 ? 0 : -1;
}

static char *get(const char *path)
{
    pd_resp r;
    assert_int_equal(pd_get(pd.port, path, "", &r, 10000), 0);
    assert_int_equal(r.status, 200);
    char *body = malloc(r.body_len + 1);
    memcpy(body, r.body, r.body_len);
    body[r.body_len] = '\0';
    pd_resp_free(&r);
    return body;
}

static const pl_app_counter_decl CTRS[] = {{"Weight", "Kilograms.", PERF_COUNTER_LARGE_RAWCOUNT, 0, 0}};
static const pl_app_object_decl OBJS[] = {{"Latecomer", "Started after perfd.", 0, 0, PL_APP_NO_PARENT_OBJECT, 16, CTRS, 1}};
static const pl_app_decl APP = {"LateApp", OBJS, 1, NULL, 0};

static void app_started_after_perfd(void **state)
{
    (void)state;
    /* perfd has read its titles and taken its snapshots before the
     * application exists */
    free(get("/metrics"));
    free(get("/v1/json"));
    char *objs = get("/v1/browse/objects");
    assert_null(strstr(objs, "Latecomer"));
    free(objs);

    pl_app *app;
    pl_error err;
    assert_int_equal(pl_app_start(&APP, NULL, &app, &err), PL_OK);
    pl_app_instance in;
    pl_app_value w;
    assert_int_equal(pl_app_instance_create(app, 0, "Gloria", PL_APP_NONE, &in, &err), PL_OK);
    assert_int_equal(pl_app_counter(app, in, 0, &w, &err), PL_OK);
    pl_app_set(w, 1046);
    /* perfd rereads the titles when the store changed (every 200 ms at
     * most): the new application's value within 5 s */
    char *m = get("/metrics");
    for (long deadline = pd_now_ms() + 5000;
         !strstr(m, "perflib_latecomer_weight{latecomer=\"Gloria\"} 1046") && pd_now_ms() < deadline;) {
        free(m);
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
        m = get("/metrics");
    }
    if (!strstr(m, "perflib_latecomer_weight{latecomer=\"Gloria\"} 1046")) fprintf(stderr, "/metrics:\n%s\n", m);
    assert_non_null(strstr(m, "perflib_latecomer_weight{latecomer=\"Gloria\"} 1046"));
    free(m);
    char *j = get("/v1/json");
    if (!strstr(j, "\"name\": \"Latecomer\"") && !strstr(j, "\"name\":\"Latecomer\"")) fprintf(stderr, "/v1/json:\n%s\n", j);
    assert_true(strstr(j, "\"name\": \"Latecomer\"") || strstr(j, "\"name\":\"Latecomer\""));
    free(j);
    objs = get("/v1/browse/objects");
    assert_non_null(strstr(objs, "\"name\":\"Latecomer\""));
    free(objs);
    char *o = get("/v1/browse/object?object=Latecomer");
    assert_non_null(strstr(o, "\"name\":\"Weight\""));
    assert_non_null(strstr(o, "\"Gloria\""));
    free(o);
    pl_app_stop(app);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(app_started_after_perfd, setup, teardown),
    };
    return pl_test_run(tests, argc, argv);
}
