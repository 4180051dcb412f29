/* Registry store: providers, counter installation and removal, refusals,
 * concurrency between processes, snapshot and restore. */
#include <sys/wait.h>
#include <time.h>

#include "reg_test.h"

static pl_store *fresh(char *path, size_t cap)
{
    reg_tmpfile(path, cap, "perflib.db");
    return reg_open(path);
}

static void add_provider(pl_store *st, const char *name)
{
    pl_provider_info p;
    memset(&p, 0, sizeof p);
    p.name = (char *)name;
    p.library = "libmy.so";
    p.open = "MyOpen";
    p.collect = "MyCollect";
    p.close = "MyClose";
    pl_error err;
    assert_int_equal(pl_store_set_provider(st, &p, &err), PL_OK);
}

/* Three symbols (offsets 0, 2, 4): an object and two counters. */
static const pl_install_text TEXTS[] = {
    {0, "009", "My Object", "My object help."},
    {2, "009", "My Counter", "My counter help."},
    {4, "009", "My Rate", NULL},
    {0, "00c", "Mon objet", NULL},
    {0, "007", "Mein Objekt", "Hilfe"}, /* the store has no 007: ignored */
};
static const uint32_t OBJECTS[] = {0};

static pl_install_req request(const char *provider)
{
    pl_install_req r;
    memset(&r, 0, sizeof r);
    r.provider = provider;
    r.max_offset = 4;
    r.texts = TEXTS;
    r.ntexts = 3;
    r.object_offsets = OBJECTS;
    r.nobjects = 1;
    return r;
}

static void install_assigns_ranges(void **state)
{
    (void)state;
    char path[512];
    pl_store *st = fresh(path, sizeof path);
    pl_error err;
    assert_int_equal(pl_store_add_language(st, "00C", &err), PL_OK);
    pl_install_req r = request("MyApp");
    r.ntexts = 5;
    r.library = "libmyapp.so";
    r.open = "AppOpen";
    r.collect = "AppCollect";
    r.close = "AppClose";
    pl_install_result res;
    int s = pl_store_install(st, &r, &res, &err);
    if (s) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(s, PL_OK);
    assert_int_equal(res.first_counter, 3000);
    assert_int_equal(res.last_counter, 3004);
    assert_int_equal(res.first_help, 3001);
    assert_int_equal(res.last_help, 3005);

    pl_perflib_info info;
    assert_int_equal(pl_store_perflib(st, &info, &err), PL_OK);
    assert_int_equal(info.last_counter, 3004);
    assert_int_equal(info.last_help, 3005);

    pl_provider_info p;
    assert_int_equal(pl_store_provider(st, "MYAPP", &p, &err), PL_OK);
    assert_string_equal(p.name, "MyApp");
    assert_string_equal(p.library, "libmyapp.so");
    assert_string_equal(p.collect, "AppCollect");
    assert_string_equal(p.object_list, "3000");
    assert_int_equal(p.first_counter, 3000);
    assert_int_equal(p.last_help, 3005);
    assert_int_equal(p.builtin, 0);
    pl_provider_info_clear(&p);

    pl_titles *t = NULL;
    assert_int_equal(pl_titles_load(st, "009", &t, &err), PL_OK);
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 3000), "My Object");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 3002), "My Counter");
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 3004), "My Rate");
    assert_string_equal(pl_titles_get(t, PL_TITLE_HELP, 3001), "My object help.");
    assert_string_equal(pl_titles_get(t, PL_TITLE_HELP, 3003), "My counter help.");
    assert_null(pl_titles_get(t, PL_TITLE_HELP, 3005));
    assert_int_equal(pl_titles_find(t, PL_TITLE_NAME, "my counter"), 3002);
    pl_titles_free(t);
    assert_int_equal(pl_titles_load(st, "00C", &t, &err), PL_OK);
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 3000), "Mon objet");
    assert_string_equal(pl_titles_get(t, PL_TITLE_HELP, 3001), "My object help."); /* 009 help */
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 3002), "My Counter");
    pl_titles_free(t);
    pl_store_close(st);

    /* stored per language, not only through the read fallback */
    char *dump = reg_dump(path);
    assert_non_null(strstr(dump, "00C|0|3000|Mon objet|"));
    assert_non_null(strstr(dump, "00C|0|3002|My Counter|"));
    assert_non_null(strstr(dump, "00C|1|3001|My object help.|"));
    assert_null(strstr(dump, "Mein Objekt"));
    assert_null(strstr(dump, "007"));
    free(dump);
}

static void install_uninstall_identity(void **state)
{
    (void)state;
    char path[512];
    pl_store *st = fresh(path, sizeof path);
    pl_error err;
    assert_int_equal(pl_store_add_language(st, "00C", &err), PL_OK);
    add_provider(st, "MyApp");
    char *before = reg_dump(path);
    pl_install_req r = request("MyApp");
    r.ntexts = 5;
    pl_install_result res;
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_OK);
    char *mid = reg_dump(path);
    assert_string_not_equal(before, mid);
    assert_int_equal(pl_store_uninstall(st, "myapp", &err), PL_OK);
    char *after = reg_dump(path);
    reg_assert_same(before, after);
    /* and again: the same indices come back */
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_OK);
    assert_int_equal(res.first_counter, 3000);
    char *mid2 = reg_dump(path);
    reg_assert_same(mid, mid2);
    assert_int_equal(pl_store_uninstall(st, "MyApp", &err), PL_OK);
    assert_int_equal(pl_store_uninstall(st, "MyApp", &err), PL_E_NOT_FOUND);
    free(before);
    free(mid);
    free(mid2);
    free(after);
    pl_store_close(st);
}

static void uninstall_below_top(void **state)
{
    (void)state;
    char path[512];
    pl_store *st = fresh(path, sizeof path);
    pl_error err;
    pl_install_req a = request("AppA"), b = request("AppB");
    pl_install_result ra, rb;
    assert_int_equal(pl_store_install(st, &a, &ra, &err), PL_OK);
    assert_int_equal(pl_store_install(st, &b, &rb, &err), PL_OK);
    assert_int_equal(ra.first_counter, 3000);
    assert_int_equal(rb.first_counter, 3006);
    assert_int_equal(rb.first_help, 3007);
    assert_int_equal(pl_store_uninstall(st, "AppA", &err), PL_OK);
    pl_perflib_info info;
    assert_int_equal(pl_store_perflib(st, &info, &err), PL_OK);
    assert_int_equal(info.last_counter, 3010); /* B still holds the top */
    assert_int_equal(info.last_help, 3011);
    pl_titles *t = NULL;
    assert_int_equal(pl_titles_load(st, "009", &t, &err), PL_OK);
    assert_null(pl_titles_get(t, PL_TITLE_NAME, 3000));
    assert_null(pl_titles_get(t, PL_TITLE_HELP, 3001));
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 3006), "My Object");
    assert_string_equal(pl_titles_get(t, PL_TITLE_HELP, 3007), "My object help.");
    pl_titles_free(t);
    pl_provider_info p;
    assert_int_equal(pl_store_provider(st, "AppA", &p, &err), PL_OK);
    assert_int_equal(p.first_counter, 0);
    assert_int_equal(p.last_counter, 0);
    assert_int_equal(p.first_help, 0);
    assert_int_equal(p.last_help, 0);
    assert_null(p.object_list);
    pl_provider_info_clear(&p);
    /* the next install goes above B, never into A's hole */
    pl_install_req c = request("AppC");
    pl_install_result rc;
    assert_int_equal(pl_store_install(st, &c, &rc, &err), PL_OK);
    assert_int_equal(rc.first_counter, 3012);
    assert_int_equal(pl_store_uninstall(st, "AppC", &err), PL_OK);
    assert_int_equal(pl_store_uninstall(st, "AppB", &err), PL_OK);
    assert_int_equal(pl_store_perflib(st, &info, &err), PL_OK);
    assert_int_equal(info.last_counter, 2998);
    assert_int_equal(info.last_help, 2999);
    pl_store_close(st);
}

/* Each refused request leaves every table exactly as it was. */
static void refusals_leave_store_unchanged(void **state)
{
    (void)state;
    char path[512];
    pl_store *st = fresh(path, sizeof path);
    pl_error err;
    pl_install_result res = {1, 2, 3, 4};
    pl_install_req ok = request("Done");
    assert_int_equal(pl_store_install(st, &ok, &res, &err), PL_OK);
    res = (pl_install_result){1, 2, 3, 4};
    char *before = reg_dump(path);

    /* already installed */
    assert_int_equal(pl_store_install(st, &ok, &res, &err), PL_E_EXISTS);
    assert_non_null(strstr(err.msg, "Done"));

    pl_install_text odd[] = {{3, "009", "Odd", NULL}};
    pl_install_req r = request("New");
    r.texts = odd;
    r.ntexts = 1;
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_E_INVAL);
    assert_non_null(strstr(err.msg, "odd offset 3"));

    pl_install_text high[] = {{6, "009", "High", NULL}};
    r.texts = high;
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_E_INVAL);
    assert_non_null(strstr(err.msg, "above the highest offset"));

    pl_install_text dup[] = {{2, "009", "A", NULL}, {0, "009", "B", NULL}, {2, "009", NULL, "C"}};
    r.texts = dup;
    r.ntexts = 3;
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_E_INVAL);
    assert_non_null(strstr(err.msg, "two texts for offset 2"));

    pl_install_text dupcase[] = {{0, "00c", "A", NULL}, {0, "00C", "B", NULL}};
    r.texts = dupcase;
    r.ntexts = 2;
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_E_INVAL);

    pl_install_text badlang[] = {{0, "en-US", "A", NULL}};
    r.texts = badlang;
    r.ntexts = 1;
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_E_INVAL);

    pl_install_text badutf[] = {{0, "009", "bad \xFF", NULL}};
    r.texts = badutf;
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_E_ENCODING);

    r = request("New");
    r.max_offset = 5;
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_E_INVAL);
    r = request("New");
    uint32_t oddobj[] = {1};
    r.object_offsets = oddobj;
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_E_INVAL);
    uint32_t highobj[] = {8};
    r.object_offsets = highobj;
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_E_INVAL);
    r = request("");
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_E_INVAL);
    r = request("Bad\\Name");
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_E_INVAL);
    r = request("New");
    r.texts = NULL;
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_E_INVAL);

    /* texts whose index would pass 0x7FFFFFFF */
    r = request("New");
    r.max_offset = 0x7FFFFF00u;
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_E_INVAL);
    assert_non_null(strstr(err.msg, "above the highest index"));

    /* built-in and unknown providers cannot be uninstalled */
    assert_int_equal(pl_store_uninstall(st, "PerfOS", &err), PL_E_INVAL);
    assert_int_equal(pl_store_uninstall(st, "NoSuch", &err), PL_E_NOT_FOUND);
    /* a provider with counters cannot be removed */
    assert_int_equal(pl_store_remove_provider(st, "Done", &err), PL_E_EXISTS);
    assert_int_equal(pl_store_remove_provider(st, "PerfOS", &err), PL_E_EXISTS);

    char *after = reg_dump(path);
    reg_assert_same(before, after);
    assert_int_equal(res.first_counter, 1); /* untouched on error */
    free(before);
    free(after);
    pl_store_close(st);
}

/* Titles already sitting above Last Counter (a damaged store) are not
 * overwritten. */
static void install_refuses_occupied_range(void **state)
{
    (void)state;
    char path[512];
    pl_store *st = fresh(path, sizeof path);
    pl_error err;
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 3002, "Squatter", &err), PL_OK);
    char *before = reg_dump(path);
    pl_install_req r = request("New");
    pl_install_result res;
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_E_EXISTS);
    char *after = reg_dump(path);
    reg_assert_same(before, after);
    free(before);
    free(after);
    pl_store_close(st);
}

static void providers_crud(void **state)
{
    (void)state;
    char path[512];
    pl_store *st = fresh(path, sizeof path);
    pl_error err;
    pl_provider_info p;
    memset(&p, 0, sizeof p);
    p.name = "Behemoth";
    p.library = "/opt/behemoth/libbeh.so";
    p.open = "BOpen";
    p.collect = "BCollect";
    p.close = "BClose";
    p.linkage_export = "dev0 dev1";
    p.open_timeout_ms = 5000;
    p.collect_timeout_ms = 250;
    p.first_counter = 99; /* ignored: ranges are lodctr's */
    p.disabled = 1;       /* ignored */
    assert_int_equal(pl_store_set_provider(st, &p, &err), PL_OK);

    pl_provider_info got;
    assert_int_equal(pl_store_provider(st, "behemoth", &got, &err), PL_OK);
    assert_string_equal(got.name, "Behemoth");
    assert_string_equal(got.library, "/opt/behemoth/libbeh.so");
    assert_string_equal(got.open, "BOpen");
    assert_string_equal(got.collect, "BCollect");
    assert_string_equal(got.close, "BClose");
    assert_string_equal(got.linkage_export, "dev0 dev1");
    assert_int_equal(got.open_timeout_ms, 5000);
    assert_int_equal(got.collect_timeout_ms, 250);
    assert_int_equal(got.first_counter, 0);
    assert_int_equal(got.disabled, 0);
    assert_null(got.object_list);
    pl_provider_info_clear(&got);
    assert_null(got.name);

    pl_provider_info *list = NULL;
    size_t n = 0;
    assert_int_equal(pl_store_providers(st, &list, &n, &err), PL_OK);
    assert_int_equal(n, 6);
    assert_string_equal(list[0].name, "AppCounters");
    assert_string_equal(list[1].name, "Behemoth");
    assert_string_equal(list[2].name, "PerfDisk");
    pl_provider_list_free(list, n);

    /* update in place, name matched case-insensitively, name spelling kept */
    p.name = "BEHEMOTH";
    p.library = "libbeh2.so";
    p.linkage_export = NULL;
    assert_int_equal(pl_store_set_provider(st, &p, &err), PL_OK);
    assert_int_equal(pl_store_provider(st, "Behemoth", &got, &err), PL_OK);
    assert_string_equal(got.name, "Behemoth");
    assert_string_equal(got.library, "libbeh2.so");
    assert_null(got.linkage_export);
    pl_provider_info_clear(&got);

    p.name = "Bad\x01";
    assert_int_equal(pl_store_set_provider(st, &p, &err), PL_E_INVAL);
    p.name = "Behemoth";
    p.library = "\xC0\x80";
    assert_int_equal(pl_store_set_provider(st, &p, &err), PL_E_ENCODING);

    assert_int_equal(pl_store_remove_provider(st, "behemoth", &err), PL_OK);
    assert_int_equal(pl_store_provider(st, "Behemoth", &got, &err), PL_E_NOT_FOUND);
    assert_int_equal(pl_store_remove_provider(st, "Behemoth", &err), PL_E_NOT_FOUND);
    assert_int_equal(pl_store_providers(st, &list, &n, &err), PL_OK);
    assert_int_equal(n, 5);
    pl_provider_list_free(list, n);
    pl_store_close(st);
}

static void disable_enable(void **state)
{
    (void)state;
    char path[512];
    pl_store *st = fresh(path, sizeof path);
    pl_error err;
    time_t t0 = time(NULL);
    assert_int_equal(pl_store_disable_provider(st, "perfproc", "pointer did not match the buffer length", &err),
                     PL_OK);
    time_t t1 = time(NULL);
    pl_provider_info p;
    assert_int_equal(pl_store_provider(st, "PerfProc", &p, &err), PL_OK);
    assert_int_equal(p.disabled, 1);
    assert_string_equal(p.disable_reason, "pointer did not match the buffer length");
    assert_true(p.disable_time >= (int64_t)t0 && p.disable_time <= (int64_t)t1);
    assert_string_equal(p.library, "libperfproc.so"); /* nothing else touched */
    pl_provider_info_clear(&p);
    assert_int_equal(pl_store_enable_provider(st, "PerfProc", &err), PL_OK);
    assert_int_equal(pl_store_provider(st, "PerfProc", &p, &err), PL_OK);
    assert_int_equal(p.disabled, 0);
    assert_null(p.disable_reason);
    assert_int_equal(p.disable_time, 0);
    pl_provider_info_clear(&p);
    assert_int_equal(pl_store_disable_provider(st, "NoSuch", "x", &err), PL_E_NOT_FOUND);
    assert_int_equal(pl_store_enable_provider(st, "NoSuch", &err), PL_E_NOT_FOUND);
    assert_int_equal(pl_store_disable_provider(st, "PerfOS", NULL, &err), PL_OK);
    assert_int_equal(pl_store_provider(st, "PerfOS", &p, &err), PL_OK);
    assert_int_equal(p.disabled, 1);
    assert_string_equal(p.disable_reason, "");
    pl_provider_info_clear(&p);
    pl_store_close(st);
}

/* ------------------------------------------------------------ processes */

static void wait_ok(pid_t pid)
{
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* Child: open, signal ready, wait for the start gun, install. */
static int child_install(const char *path, const char *provider, int ready_w, int go_r)
{
    pl_store *st = NULL;
    pl_error err;
    if (pl_store_open(path, 0, &st, &err)) return 10;
    if (write(ready_w, "r", 1) != 1) return 11;
    char c;
    if (read(go_r, &c, 1) != 0) return 12; /* EOF is the start signal */
    static const pl_install_text texts[] = {
        {0, "009", "Obj", "Obj help"}, {2, "009", "C1", "h1"}, {4, "009", "C2", "h2"},
        {6, "009", "C3", "h3"},        {8, "009", "C4", "h4"}, {10, "009", "C5", "h5"},
    };
    pl_install_req r;
    memset(&r, 0, sizeof r);
    r.provider = provider;
    r.max_offset = 10;
    r.texts = texts;
    r.ntexts = 6;
    pl_install_result res;
    int s = pl_store_install(st, &r, &res, &err);
    pl_store_close(st);
    if (s) {
        fprintf(stderr, "child %s: %s\n", provider, err.msg);
        return 20 + s;
    }
    return 0;
}

static void two_process_install(void **state)
{
    (void)state;
    char path[512];
    pl_store_close(fresh(path, sizeof path));
    int ready[2], go[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(go), 0);
    const char *names[2] = {"RaceA", "RaceB"};
    pid_t pid[2];
    for (int i = 0; i < 2; i++) {
        pid[i] = fork();
        assert_true(pid[i] >= 0);
        if (pid[i] == 0) {
            close(ready[0]);
            close(go[1]);
            _exit(child_install(path, names[i], ready[1], go[0]));
        }
    }
    close(ready[1]);
    close(go[0]);
    char buf[2];
    assert_int_equal(read(ready[0], buf, 1), 1);
    assert_int_equal(read(ready[0], buf + 1, 1), 1);
    close(go[1]); /* both start now */
    wait_ok(pid[0]);
    wait_ok(pid[1]);
    close(ready[0]);

    pl_store *st = reg_open(path);
    pl_error err;
    pl_provider_info a, b;
    assert_int_equal(pl_store_provider(st, "RaceA", &a, &err), PL_OK);
    assert_int_equal(pl_store_provider(st, "RaceB", &b, &err), PL_OK);
    assert_int_equal(a.last_counter - a.first_counter, 10);
    assert_int_equal(b.last_counter - b.first_counter, 10);
    assert_true(a.last_counter < b.first_counter || b.last_counter < a.first_counter);
    assert_true(a.last_help < b.first_help || b.last_help < a.first_help);
    uint32_t lo = a.first_counter < b.first_counter ? a.first_counter : b.first_counter;
    assert_int_equal(lo, 3000);
    pl_perflib_info info;
    assert_int_equal(pl_store_perflib(st, &info, &err), PL_OK);
    assert_int_equal(info.last_counter, 2998 + 12 + 12);
    assert_int_equal(info.last_help, 2999 + 12 + 12);
    pl_titles *t = NULL;
    assert_int_equal(pl_titles_load(st, "009", &t, &err), PL_OK);
    uint32_t idx[4];
    assert_int_equal(pl_titles_find_all(t, PL_TITLE_NAME, "C5", idx, 4), 2);
    assert_int_equal(idx[0], lo + 10);
    assert_int_equal(idx[1], lo + 22);
    assert_string_equal(pl_titles_get(t, PL_TITLE_HELP, a.first_help), "Obj help");
    assert_string_equal(pl_titles_get(t, PL_TITLE_HELP, b.first_help), "Obj help");
    pl_titles_free(t);
    pl_provider_info_clear(&a);
    pl_provider_info_clear(&b);
    pl_store_close(st);
}

/* Reader: load the titles again and again; each load sees either the state
 * before or after an install, never half of one. */
static int child_reader(const char *path, int rounds)
{
    pl_store *st = NULL;
    pl_error err;
    if (pl_store_open(path, PL_STORE_READONLY, &st, &err)) return 30;
    for (int i = 0; i < rounds; i++) {
        pl_titles *t = NULL;
        if (pl_titles_load(st, "009", &t, &err)) {
            fprintf(stderr, "reader: %s\n", err.msg);
            return 31;
        }
        size_t n = pl_titles_count(t, PL_TITLE_NAME);
        int has = pl_titles_find(t, PL_TITLE_NAME, "Writer Object") != 0;
        int ok = pl_titles_find(t, PL_TITLE_NAME, "System") == 2 && ((n == 329 && !has) || (n == 335 && has)) &&
                 (pl_titles_last_counter(t) == 2998) == !has;
        pl_titles_free(t);
        if (!ok) return 32;
    }
    pl_store_close(st);
    return 0;
}

static void readers_while_writer(void **state)
{
    (void)state;
    char path[512];
    pl_store_close(fresh(path, sizeof path));
    pid_t readers[4];
    for (int i = 0; i < 4; i++) {
        readers[i] = fork();
        assert_true(readers[i] >= 0);
        if (readers[i] == 0) _exit(child_reader(path, 60));
    }
    pl_store *st = reg_open(path);
    pl_error err;
    static const pl_install_text texts[] = {
        {0, "009", "Writer Object", "w"}, {2, "009", "W1", NULL}, {4, "009", "W2", NULL},
        {6, "009", "W3", NULL},           {8, "009", "W4", NULL}, {10, "009", "W5", NULL},
    };
    pl_install_req r;
    memset(&r, 0, sizeof r);
    r.provider = "Writer";
    r.max_offset = 10;
    r.texts = texts;
    r.ntexts = 6;
    for (int i = 0; i < 15; i++) {
        pl_install_result res;
        assert_int_equal(pl_store_install(st, &r, &res, &err), PL_OK);
        assert_int_equal(res.first_counter, 3000);
        assert_int_equal(pl_store_uninstall(st, "Writer", &err), PL_OK);
    }
    for (int i = 0; i < 4; i++) wait_ok(readers[i]);
    pl_store_close(st);
}

/* Child: wait for the start gun, then create-or-open the store. */
static int child_create(const char *path, int ready_w, int go_r)
{
    if (write(ready_w, "r", 1) != 1) return 11;
    char c;
    if (read(go_r, &c, 1) != 0) return 12;
    pl_store *st = NULL;
    pl_error err;
    if (pl_store_open(path, 0, &st, &err)) {
        fprintf(stderr, "create: %s\n", err.msg);
        return 13;
    }
    pl_titles *t = NULL;
    int s = pl_titles_load(st, "009", &t, &err);
    int ok = !s && pl_titles_count(t, PL_TITLE_NAME) == 329;
    pl_titles_free(t);
    pl_store_close(st);
    return ok ? 0 : 14;
}

static void concurrent_create(void **state)
{
    (void)state;
    char path[512];
    reg_tmpfile(path, sizeof path, "new.db");
    int ready[2], go[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(go), 0);
    pid_t pid[4];
    for (int i = 0; i < 4; i++) {
        pid[i] = fork();
        assert_true(pid[i] >= 0);
        if (pid[i] == 0) {
            close(ready[0]);
            close(go[1]);
            _exit(child_create(path, ready[1], go[0]));
        }
    }
    close(ready[1]);
    close(go[0]);
    for (int i = 0; i < 4; i++) {
        char c;
        assert_int_equal(read(ready[0], &c, 1), 1);
    }
    close(go[1]);
    for (int i = 0; i < 4; i++) wait_ok(pid[i]);
    close(ready[0]);
    pl_store *st = reg_open(path);
    pl_provider_info *list = NULL;
    size_t n = 0;
    pl_error err;
    assert_int_equal(pl_store_providers(st, &list, &n, &err), PL_OK);
    assert_int_equal(n, 5); /* seeded exactly once */
    pl_provider_list_free(list, n);
    pl_store_close(st);
}

/* ------------------------------------------------------- snapshot/restore */

static void assert_backup_equal(const pl_backup *x, const pl_backup *y)
{
    assert_int_equal(x->base_index, y->base_index);
    assert_int_equal(x->last_counter, y->last_counter);
    assert_int_equal(x->last_help, y->last_help);
    assert_int_equal(x->nlangs, y->nlangs);
    for (size_t i = 0; i < x->nlangs; i++) {
        const pl_backup_lang *a = &x->langs[i], *b = &y->langs[i];
        assert_string_equal(a->lang, b->lang);
        assert_int_equal(a->nnames, b->nnames);
        assert_int_equal(a->nhelps, b->nhelps);
        for (size_t j = 0; j < a->nnames; j++) {
            assert_int_equal(a->names[j].index, b->names[j].index);
            assert_string_equal(a->names[j].text, b->names[j].text);
        }
        for (size_t j = 0; j < a->nhelps; j++) {
            assert_int_equal(a->helps[j].index, b->helps[j].index);
            assert_string_equal(a->helps[j].text, b->helps[j].text);
        }
    }
    assert_int_equal(x->nproviders, y->nproviders);
    for (size_t i = 0; i < x->nproviders; i++) {
        assert_string_equal(x->providers[i].name, y->providers[i].name);
        assert_int_equal(x->providers[i].first_counter, y->providers[i].first_counter);
        assert_int_equal(x->providers[i].last_counter, y->providers[i].last_counter);
        assert_int_equal(x->providers[i].first_help, y->providers[i].first_help);
        assert_int_equal(x->providers[i].last_help, y->providers[i].last_help);
    }
}

static void snapshot_restore_roundtrip(void **state)
{
    (void)state;
    char path[512];
    pl_store *st = fresh(path, sizeof path);
    pl_error err;
    assert_int_equal(pl_store_add_language(st, "00C", &err), PL_OK);
    pl_install_req r = request("MyApp");
    r.ntexts = 5;
    pl_install_result res;
    assert_int_equal(pl_store_install(st, &r, &res, &err), PL_OK);

    pl_backup *bk = NULL;
    assert_int_equal(pl_store_snapshot(st, &bk, &err), PL_OK);
    assert_int_equal(bk->base_index, 1847);
    assert_int_equal(bk->last_counter, 3004);
    assert_int_equal(bk->last_help, 3005);
    assert_int_equal(bk->nlangs, 2);
    assert_string_equal(bk->langs[0].lang, "009");
    assert_string_equal(bk->langs[1].lang, "00C");
    assert_int_equal(bk->langs[0].nnames, 332);
    assert_int_equal(bk->langs[0].names[0].index, 1);
    assert_string_equal(bk->langs[0].names[0].text, "1847");
    assert_int_equal(bk->langs[1].nnames, 3);
    assert_string_equal(bk->langs[1].names[0].text, "Mon objet");
    assert_int_equal(bk->nproviders, 5);
    assert_string_equal(bk->providers[0].name, "MyApp");
    assert_int_equal(bk->providers[0].first_counter, 3000);
    assert_int_equal(bk->providers[0].last_help, 3005);
    assert_string_equal(bk->providers[3].name, "PerfOS");

    /* restoring what is there changes nothing */
    char *before = reg_dump(path);
    assert_int_equal(pl_store_restore(st, bk, &err), PL_OK);
    char *same = reg_dump(path);
    reg_assert_same(before, same);

    /* change titles, languages, Perflib values and ranges, then restore */
    assert_int_equal(pl_store_add_language(st, "007", &err), PL_OK);
    assert_int_equal(pl_store_set_title(st, "007", PL_TITLE_NAME, 2, "System DE", &err), PL_OK);
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_NAME, 2, "Changed", &err), PL_OK);
    assert_int_equal(pl_store_set_title(st, "00C", PL_TITLE_NAME, 3000, NULL, &err), PL_OK);
    assert_int_equal(pl_store_set_title(st, "009", PL_TITLE_HELP, 7, NULL, &err), PL_OK);
    reg_sql(path, "UPDATE meta SET value = 5000 WHERE key = 'Last Counter';"
                  "UPDATE providers SET first_counter = 7, last_help = 9 WHERE name = 'MyApp';"
                  "UPDATE providers SET first_counter = 0 WHERE name = 'PerfOS';");
    assert_int_equal(pl_store_restore(st, bk, &err), PL_OK);
    char *after = reg_dump(path);
    reg_assert_same(before, after);

    /* lodctr /r after unlodctr: names and ranges come back; the Object List is
     * not part of a backup and stays cleared */
    assert_int_equal(pl_store_uninstall(st, "MyApp", &err), PL_OK);
    assert_int_equal(pl_store_restore(st, bk, &err), PL_OK);
    pl_titles *t = NULL;
    assert_int_equal(pl_titles_load(st, "00C", &t, &err), PL_OK);
    assert_string_equal(pl_titles_get(t, PL_TITLE_NAME, 3000), "Mon objet");
    pl_titles_free(t);
    pl_provider_info mp;
    assert_int_equal(pl_store_provider(st, "MyApp", &mp, &err), PL_OK);
    assert_int_equal(mp.first_counter, 3000);
    assert_int_equal(mp.last_help, 3005);
    assert_null(mp.object_list);
    pl_provider_info_clear(&mp);

    /* into another store: the same snapshot comes back out */
    char path2[512];
    pl_store *st2 = fresh(path2, sizeof path2);
    assert_int_equal(pl_store_restore(st2, bk, &err), PL_OK);
    pl_backup *bk2 = NULL;
    assert_int_equal(pl_store_snapshot(st2, &bk2, &err), PL_OK);
    assert_backup_equal(bk, bk2);
    pl_provider_info p;
    assert_int_equal(pl_store_provider(st2, "MyApp", &p, &err), PL_OK); /* created with ranges only */
    assert_null(p.library);
    assert_int_equal(p.first_counter, 3000);
    pl_provider_info_clear(&p);
    pl_backup_free(bk2);
    pl_store_close(st2);

    free(before);
    free(same);
    free(after);
    pl_backup_free(bk);
    pl_backup_free(NULL);
    pl_store_close(st);
}

static void restore_refuses_bad_backup(void **state)
{
    (void)state;
    char path[512];
    pl_store *st = fresh(path, sizeof path);
    pl_error err;
    char *before = reg_dump(path);
    pl_backup_string names[] = {{1, "1847"}, {4, "Memory"}, {2, "System"}};
    pl_backup_lang lang = {"009", names, 3, NULL, 0};
    pl_backup bk = {1847, 1847, 1847, &lang, 1, NULL, 0};
    assert_int_equal(pl_store_restore(st, &bk, &err), PL_E_INVAL); /* not ascending */
    names[2].index = 4;
    assert_int_equal(pl_store_restore(st, &bk, &err), PL_E_INVAL); /* duplicate */
    names[2].index = 0x80000000u;
    assert_int_equal(pl_store_restore(st, &bk, &err), PL_E_RANGE);
    names[2].index = 6;
    names[2].text = "bad \xE0\x80\x80";
    assert_int_equal(pl_store_restore(st, &bk, &err), PL_E_ENCODING);
    names[2].text = NULL;
    assert_int_equal(pl_store_restore(st, &bk, &err), PL_E_INVAL);
    names[2].text = "ok";
    memcpy(lang.lang, "zz", 3);
    assert_int_equal(pl_store_restore(st, &bk, &err), PL_E_INVAL);
    memcpy(lang.lang, "009", 4);
    pl_backup_lang two[2] = {lang, lang};
    bk.langs = two;
    bk.nlangs = 2;
    assert_int_equal(pl_store_restore(st, &bk, &err), PL_E_INVAL); /* language twice */
    bk.langs = &lang;
    bk.nlangs = 1;
    pl_backup_provider prov[] = {{"P", 10, 11, 8, 9}};
    bk.providers = prov;
    bk.nproviders = 1;
    assert_int_equal(pl_store_restore(st, &bk, &err), PL_E_INVAL); /* first above last */
    char *after = reg_dump(path);
    reg_assert_same(before, after);
    free(before);
    free(after);
    pl_store_close(st);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(install_assigns_ranges),
        cmocka_unit_test(install_uninstall_identity),
        cmocka_unit_test(uninstall_below_top),
        cmocka_unit_test(refusals_leave_store_unchanged),
        cmocka_unit_test(install_refuses_occupied_range),
        cmocka_unit_test(providers_crud),
        cmocka_unit_test(disable_enable),
        cmocka_unit_test(two_process_install),
        cmocka_unit_test(readers_while_writer),
        cmocka_unit_test(concurrent_create),
        cmocka_unit_test(snapshot_restore_roundtrip),
        cmocka_unit_test(restore_refuses_bad_backup),
    };
    return pl_test_run(tests, argc, argv);
}
