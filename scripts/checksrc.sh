#!/usr/bin/env bash
# Style checks that a compiler does not make (docs/testing.md), run by ctest
# as "checksrc". Exits non-zero and names file:line for every violation.
#   - everywhere: no sprintf, strcat, strncpy, strtok, gets, localtime, gmtime
#     (the _r forms are fine)
#   - in the library and providers: no printing (printf, fprintf, puts,
#     perror), no exit/abort, no strerror (not thread-safe: pl__strerror),
#     no sscanf/atoi/atol/strtol without the checked helpers
#   - in the tests: a program ends with pl_test_run() (tests/common/pl_test.h),
#     never cmocka's own runner or filter, which pass a case name that
#     matches nothing and report a skip as a pass
set -u
cd "$(dirname "$0")/.."
fail=0
report() { echo "$1"; fail=1; }
all=$(git ls-files '*.c' '*.h' 2>/dev/null || find lib providers tools tests examples bench include -name '*.[ch]')
lib=$(printf '%s\n' $all | grep -E '^(lib|providers)/')
while IFS= read -r hit; do [ -n "$hit" ] && report "$hit: banned function"; done < <(
  printf '%s\n' $all | xargs grep -nE '\b(sprintf|strcat|strncpy|strtok|gets|localtime|gmtime)\s*\(' /dev/null |
  grep -vE '\b(snprintf|vsnprintf|localtime_r|gmtime_r)\s*\(' | grep -vE '^\S+:[0-9]+:\s*(/?\*|//)')
while IFS= read -r hit; do [ -n "$hit" ] && report "$hit: not in the library (it never prints, exits or uses strerror/sscanf)"; done < <(
  printf '%s\n' $lib | xargs grep -nE '\b(printf|fprintf|puts|perror|exit|abort|strerror|sscanf|atoi|atol|strtol)\s*\(' /dev/null |
  grep -vE '\b(snprintf|vsnprintf)\s*\(' | grep -vE '^\S+:[0-9]+:\s*(/?\*|//)')
tests=$(printf '%s\n' $all | grep -E '^tests/' | grep -vE '^tests/common/pl_test\.[ch]$')
while IFS= read -r hit; do [ -n "$hit" ] && report "$hit: end a test program with pl_test_run(tests, argc, argv) (tests/common/pl_test.h)"; done < <(
  printf '%s\n' $tests | xargs grep -nE '\b(cmocka_run_group_tests(_name)?|cmocka_set_test_filter|cmocka_set_skip_filter)\s*\(' /dev/null |
  grep -vE '^\S+:[0-9]+:\s*(/?\*|//)')
[ $fail = 0 ] && echo "checksrc: clean"
exit $fail
