/* Shared helpers for perflib's cmocka tests (docs/testing.md, "Writing a
 * test").
 *
 * Every test program ends with
 *
 *     return pl_test_run(tests, argc, argv);      (or PL_TEST_MAIN(tests))
 *
 * With an argument only the case of that name runs (ctest runs every case in
 * its own process that way); a name that matches no case is an error, never
 * a pass. Without one, every case runs. The exit status is 0 when everything
 * run passed, 77 when something was skipped and nothing failed (ctest shows
 * it as "Skipped", not "Passed": SKIP_RETURN_CODE), 1 otherwise.
 *
 * A case that cannot run here calls
 *
 *     pl_skip("no cpufreq on this machine (%s missing)", path);
 *
 * which says why on the output, appends "program.case<TAB>reason" to the
 * file $PL_SKIP_LOG when that is set (scripts/test.sh prints them all at the
 * end and fails a run as root on a skip not listed in tests/skips.txt), and
 * ends the case as skipped (its teardown still runs). Call it in the test's
 * own process, not in a child it forked. cmocka's bare skip() does not
 * compile here: a skip needs a reason. */
#ifndef PL_TEST_H
#define PL_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#if defined(__GNUC__) || defined(__clang__)
#define PL_TEST_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define PL_TEST_NORETURN __attribute__((noreturn))
#else
#define PL_TEST_PRINTF(a, b)
#define PL_TEST_NORETURN
#endif

/* End the running case as skipped, with a reason (printf-style). */
#define pl_skip(...) pl__test_skip(__FILE__, __LINE__, __VA_ARGS__)
PL_TEST_NORETURN void pl__test_skip(const char *file, int line, const char *fmt, ...) PL_TEST_PRINTF(3, 4);

#undef skip
#define skip()                                                                                  \
    do {                                                                                        \
        _Static_assert(0, "a skip needs a reason: call pl_skip(\"why\") (tests/common/pl_test.h)"); \
    } while (0)

/* Waiting for an event, never for a guessed time (a sleep that "should be
 * enough" is too short on a loaded machine and too long everywhere else).
 * Each returns 0 once the event happened, -1 when timeout_ms passed first
 * (the caller fails, saying what did not happen). */
/* Process pid has ended (a pidfd: also for a process this one may not reap,
 * such as a helper its library forked). */
int pl_wait_exit(int pid, int timeout_ms);
/* path exists (inotify on its directory, which must exist). */
int pl_wait_file(const char *path, int timeout_ms);

/* Run the cases of `tests` (an array) named by argv[1], or all of them. */
#define pl_test_run(tests, argc, argv) pl__test_run((tests), sizeof(tests) / sizeof((tests)[0]), (argc), (argv))
int pl__test_run(const struct CMUnitTest *tests, size_t n, int argc, char **argv);

#define PL_TEST_MAIN(tests)                                                  \
    int main(int argc, char **argv)                                          \
    {                                                                        \
        return pl_test_run(tests, argc, argv);                               \
    }

#endif
