/* The built-in providers' <Collect>NonBlocking answers (provider.h,
 * docs/provider-host.md "Collects that cannot block"): yes only on the live
 * root, and never for a query that reaches a source that can block
 * (no built-in left: Network Interface's rtnl dump and LogicalDisk's statvfs
 * run on threads of their providers' own, with deadlines). */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "perflib/indices.h"
#include "perflib/provider.h"
#include "pl_test.h"

typedef DWORD(open_fn)(LPWSTR);
typedef DWORD(close_fn)(void);

static void *load(const char *path)
{
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) fail_msg("cannot load %s: %s", path, dlerror());
    return dl;
}

static PL_COLLECT_NONBLOCKING_PROC *nb_of(void *dl, const char *name)
{
    PL_COLLECT_NONBLOCKING_PROC *f;
    void *sym = dlsym(dl, name);
    if (!sym) fail_msg("%s is not exported", name);
    memcpy(&f, &sym, sizeof f);
    return f;
}

/* Ask with an ASCII query. */
static DWORD ask(PL_COLLECT_NONBLOCKING_PROC *f, const char *q)
{
    WCHAR w[64];
    size_t i = 0;
    for (; q[i] && i < 63; i++) w[i] = (WCHAR)q[i];
    w[i] = 0;
    return f(w);
}

static void perfos_yes_on_live_root_only(void **state)
{
    (void)state;
    unsetenv("PERFLIB_SYSROOT");
    void *dl = load(PERFOS_SO);
    PL_COLLECT_NONBLOCKING_PROC *nb = nb_of(dl, "PerfOsCollectNonBlocking");
    open_fn *op;
    close_fn *cl;
    void *o = dlsym(dl, "PerfOsOpen"), *c = dlsym(dl, "PerfOsClose");
    assert_non_null(o);
    assert_non_null(c);
    memcpy(&op, &o, sizeof op);
    memcpy(&cl, &c, sizeof cl);
    assert_int_equal(ask(nb, "2"), 0); /* not opened: no promise */
    assert_int_equal(op(NULL), 0);
    assert_true(ask(nb, "2") != 0);
    assert_true(ask(nb, "Global") != 0);
    assert_true(ask(nb, "700 4") != 0);
    assert_int_equal(cl(), 0);
    /* opened on another root: the root is fixed at Open, and it may be anything */
    setenv("PERFLIB_SYSROOT", PL_SOURCE_DIR "/tests/perfos/data", 1);
    assert_int_equal(op(NULL), 0);
    assert_int_equal(ask(nb, "2"), 0);
    assert_int_equal(cl(), 0);
    unsetenv("PERFLIB_SYSROOT");
    dlclose(dl);
}

/* PerfNet promises every object on the live root: Network Interface's
 * rtnl dump runs on PerfNet's own thread and is waited for 200 ms at most
 * (tests/perfnet/test_perfnet_dump.c); any other root keeps the watchdog. */
static void perfnet_yes_on_live_root_only(void **state)
{
    (void)state;
    unsetenv("PERFLIB_SYSROOT");
    void *dl = load(PERFNET_SO);
    PL_COLLECT_NONBLOCKING_PROC *nb = nb_of(dl, "PerfNetCollectNonBlocking");
    assert_true(ask(nb, "546") != 0);      /* IPv4: /proc/net/snmp */
    assert_true(ask(nb, "638 1530") != 0); /* TCP: snmp and sock_diag */
    assert_true(ask(nb, "510") != 0);      /* Network Interface: the dump on its thread */
    assert_true(ask(nb, "546 510") != 0);
    assert_true(ask(nb, "Global") != 0);
    setenv("PERFLIB_SYSROOT", "/tmp", 1);
    assert_int_equal(ask(nb, "546"), 0);
    assert_int_equal(ask(nb, "510"), 0);
    assert_int_equal(ask(nb, "Global"), 0);
    setenv("PERFLIB_SYSROOT", "/", 1); /* the live root, named */
    assert_true(ask(nb, "510") != 0);
    unsetenv("PERFLIB_SYSROOT");
    dlclose(dl);
}

/* LogicalDisk's statvfs() calls run on PerfDisk's space thread with a
 * deadline (docs/providers/perfdisk.md), so every PerfDisk Collect may run
 * on the caller's thread on the live root, and none on another root. */
static void perfdisk_yes_on_live_root_only(void **state)
{
    (void)state;
    unsetenv("PERFLIB_SYSROOT");
    void *dl = load(PERFDISK_SO);
    PL_COLLECT_NONBLOCKING_PROC *nb = nb_of(dl, "PerfDiskCollectNonBlocking");
    assert_true(ask(nb, "234") != 0);    /* PhysicalDisk: diskstats, /sys/block */
    assert_true(ask(nb, "236") != 0);    /* LogicalDisk: statvfs on the space thread */
    assert_true(ask(nb, "234 236") != 0);
    assert_true(ask(nb, "Global") != 0);
    setenv("PERFLIB_SYSROOT", "/tmp", 1);
    assert_int_equal(ask(nb, "234"), 0);
    assert_int_equal(ask(nb, "236"), 0);
    assert_int_equal(ask(nb, "Global"), 0);
    unsetenv("PERFLIB_SYSROOT");
    dlclose(dl);
}

/* PerfProc reads /proc/PID files, whose readers can wait on a process's
 * locks (exec_update_lock, mmap_lock): no promise at all. */
static void perfproc_makes_no_promise(void **state)
{
    (void)state;
    void *dl = load(PERFPROC_SO);
    assert_null(dlsym(dl, "PerfProcCollectNonBlocking"));
    dlclose(dl);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(perfos_yes_on_live_root_only),
        cmocka_unit_test(perfnet_yes_on_live_root_only),
        cmocka_unit_test(perfdisk_yes_on_live_root_only),
        cmocka_unit_test(perfproc_makes_no_promise),
    };
    return pl_test_run(tests, argc, argv);
}
