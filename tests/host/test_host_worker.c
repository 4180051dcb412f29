/* The in-process watchdog's hand-over (lib/host/host_worker.c): calls that
 * return, calls that pass their deadline and are waited for again later
 * (late, issue 33), calls abandoned at the end, and calls that return at
 * the very moment the deadline passes or they are abandoned, where one
 * compare-and-swap decides who owns the call. Built alone with the worker, so the ThreadSanitizer tree
 * runs it too (scripts/test.sh). */
#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host_worker.h"
#include "pl_test.h"

static void busy_us(long us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static long work_us; /* set before each call (the worker reads it after the hand-over) */

/* The threads of this process (/proc/self/task). */
static int threads(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) fail_msg("cannot list /proc/self/task");
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void *noop(void *arg) { return arg; }

/* The threads before a case makes workers. A first thread made and joined
 * here: ThreadSanitizer starts a thread of its own at the first
 * pthread_create, which must be in this count, not taken for a worker. */
static int threads_before(void)
{
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, noop, NULL), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    return threads();
}

/* Abandoned workers end on their own once their call returns: wait (10 s
 * at most, a loaded machine) until the process is back to `n` threads, the
 * ones it had before the case made workers. The orphans they freed on the
 * way are LeakSanitizer's to check at exit. */
static void wait_workers_gone(int n)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int now;
    while ((now = threads()) > n) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 10) fail_msg("%d worker threads still running 10 s after their calls", now - n);
        struct timespec tick = {0, 1000000};
        nanosleep(&tick, NULL);
    }
}

static DWORD collect(LPWSTR q, LPVOID *data, LPDWORD bytes, LPDWORD nobj)
{
    (void)q;
    busy_us(__atomic_load_n(&work_us, __ATOMIC_RELAXED));
    memset(*data, 0xAB, *bytes);
    *nobj = 7;
    return 42;
}

static pl__call call_with(void *buf, DWORD len)
{
    pl__call c;
    memset(&c, 0, sizeof c);
    c.kind = PL__CALL_COLLECT;
    c.collect = collect;
    c.arg = malloc(8); /* the worker frees it */
    memset(c.arg, 0, 8);
    c.data = buf;
    c.bytes = len;
    return c;
}

static void calls_return(void **state)
{
    (void)state;
    pl__worker *w = pl__worker_new();
    assert_non_null(w);
    work_us = 0;
    unsigned char buf[64];
    for (int i = 0; i < 3000; i++) {
        memset(buf, 0, sizeof buf);
        pl__call c = call_with(buf, sizeof buf);
        assert_int_equal(pl__worker_call(w, &c, 5000), 1);
        assert_int_equal(c.rc, 42);
        assert_int_equal(c.nobj, 7);
        assert_null(c.arg);
        assert_int_equal(buf[63], 0xAB);
    }
    pl__worker_free(w);
}

/* A call past its deadline is late, not lost: the caller looks again
 * later, gets its results, and the worker serves the next call. */
static void call_late_then_returns(void **state)
{
    (void)state;
    pl__worker *w = pl__worker_new();
    assert_non_null(w);
    work_us = 150000;
    unsigned char buf[64];
    memset(buf, 0, sizeof buf);
    pl__call c = call_with(buf, 64);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    assert_int_equal(pl__worker_call(w, &c, 20), 0);
    clock_gettime(CLOCK_MONOTONIC, &b);
    long ms = (b.tv_sec - a.tv_sec) * 1000L + (b.tv_nsec - a.tv_nsec) / 1000000L;
    assert_true(ms >= 19 && ms < 140);
    assert_int_equal(pl__worker_wait(w, &c, 0), 0); /* still running */
    assert_int_equal(pl__worker_wait(w, &c, 5000), 1);
    assert_int_equal(c.rc, 42);
    assert_int_equal(c.nobj, 7);
    assert_int_equal(buf[63], 0xAB);
    work_us = 0;
    memset(buf, 0, sizeof buf);
    c = call_with(buf, 64);
    assert_int_equal(pl__worker_call(w, &c, 5000), 1);
    assert_int_equal(buf[63], 0xAB);
    pl__worker_free(w);
}

/* A late call given up for good: the worker frees the orphan (and itself)
 * when the call returns: LeakSanitizer checks that at exit. */
static void call_abandoned(void **state)
{
    (void)state;
    int before = threads_before();
    pl__worker *w = pl__worker_new();
    assert_non_null(w);
    work_us = 150000;
    unsigned char *buf = malloc(64); /* the orphan: the call writes into it */
    pl__call c = call_with(buf, 64);
    assert_int_equal(pl__worker_call(w, &c, 20), 0);
    assert_int_equal(pl__worker_abandon(w, &c, buf), 1);
    wait_workers_gone(before); /* the worker returns, frees buf and itself, and ends */
}

/* Calls that end about when their 1 ms deadline passes: each returns in
 * time, or is late and then either waited for or abandoned (a new worker
 * then) -- where an abandon races with the call's return, exactly one side
 * wins, and nothing is lost or freed twice. */
static void deadline_races(void **state)
{
    (void)state;
    int returned = 0, waited = 0, abandoned = 0, returned_at_abandon = 0, before = threads_before();
    pl__worker *w = pl__worker_new();
    assert_non_null(w);
    for (int i = 0; i < 300; i++) {
        __atomic_store_n(&work_us, 700 + (i % 7) * 100, __ATOMIC_RELAXED);
        unsigned char *buf = malloc(16);
        pl__call c = call_with(buf, 16);
        if (pl__worker_call(w, &c, 1)) {
            returned++;
        } else if (i % 2) {
            assert_int_equal(pl__worker_wait(w, &c, 5000), 1);
            waited++;
        } else if (pl__worker_abandon(w, &c, buf)) {
            abandoned++;
            w = pl__worker_new();
            assert_non_null(w);
            continue;
        } else {
            returned_at_abandon++;
        }
        assert_int_equal(c.rc, 42);
        assert_int_equal(buf[15], 0xAB);
        free(buf);
    }
    pl__worker_free(w);
    print_message("deadline races: %d returned, %d waited for, %d abandoned, %d returned as abandoned\n", returned,
                  waited, abandoned, returned_at_abandon);
    assert_int_equal(returned + waited + abandoned + returned_at_abandon, 300);
    wait_workers_gone(before); /* abandoned workers finish, free themselves and end */
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(calls_return),
        cmocka_unit_test(call_late_then_returns),
        cmocka_unit_test(call_abandoned),
        cmocka_unit_test(deadline_races),
    };
    return pl_test_run(tests, argc, argv);
}
