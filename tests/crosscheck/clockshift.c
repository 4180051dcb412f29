/* A wall clock that a test can step, for one process: preloaded
 * (LD_PRELOAD) into a consumer, it adds a shift to CLOCK_REALTIME (and
 * time(), gettimeofday()) as the process sees it, set with
 * pl_test_clock_shift() found by dlsym. The machine's clock is never
 * touched: other test runs share it (issue 33 item 3; a time namespace
 * cannot do this, it offsets only the monotonic and boot clocks). */
#include <dlfcn.h>
#include <stddef.h>
#include <sys/time.h>
#include <time.h>

#define SHIM __attribute__((visibility("default"))) /* the build hides symbols by default */

static long long shift_ns; /* atomic */

SHIM void pl_test_clock_shift(long long seconds);
SHIM void pl_test_clock_shift(long long seconds)
{
    __atomic_store_n(&shift_ns, seconds * 1000000000LL, __ATOMIC_SEQ_CST);
}

static int wall(clockid_t id)
{
    return id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE || id == CLOCK_TAI;
}

static void add(struct timespec *ts)
{
    long long s = __atomic_load_n(&shift_ns, __ATOMIC_SEQ_CST);
    long long ns = (long long)ts->tv_nsec + s % 1000000000LL;
    ts->tv_sec += (time_t)(s / 1000000000LL + (ns >= 1000000000LL) - (ns < 0));
    ts->tv_nsec = (long)(ns >= 1000000000LL ? ns - 1000000000LL : ns < 0 ? ns + 1000000000LL : ns);
}

SHIM int clock_gettime(clockid_t id, struct timespec *ts)
{
    static int (*real)(clockid_t, struct timespec *);
    if (!real) {
        void *f = dlsym(RTLD_NEXT, "clock_gettime");
        __builtin_memcpy(&real, &f, sizeof real);
    }
    int r = real(id, ts);
    if (r == 0 && wall(id)) add(ts);
    return r;
}

SHIM int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    (void)tz;
    struct timespec ts;
    int r = clock_gettime(CLOCK_REALTIME, &ts);
    if (r == 0) {
        tv->tv_sec = ts.tv_sec;
        tv->tv_usec = ts.tv_nsec / 1000;
    }
    return r;
}

SHIM time_t time(time_t *t)
{
    struct timespec ts;
    time_t v = clock_gettime(CLOCK_REALTIME, &ts) == 0 ? ts.tv_sec : (time_t)-1;
    if (t) *t = v;
    return v;
}
