/* Shared helpers for perflib's cmocka tests.
 *
 * Each test program ends with PL_TEST_MAIN(tests): with an argument, only the
 * case of that name runs (ctest runs every case in its own process that way);
 * without one, all cases run. */
#ifndef PL_TEST_H
#define PL_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#define PL_TEST_MAIN(tests)                                                  \
    int main(int argc, char **argv)                                          \
    {                                                                        \
        if (argc > 1) cmocka_set_test_filter(argv[1]);                       \
        return cmocka_run_group_tests(tests, NULL, NULL);                    \
    }

#endif
