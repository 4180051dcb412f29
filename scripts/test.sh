#!/usr/bin/env bash
# The whole test suite. Installs missing Debian packages (as root), then:
#   1. gcc build, warnings as errors, every test;
#   2. clang build with AddressSanitizer + UndefinedBehaviorSanitizer, every
#      test again, plus each libFuzzer target for a short bounded time
#      (PL_FUZZ_SECONDS, default 10; see docs/testing.md for longer runs);
#   3. clang build with ThreadSanitizer of the tests of code that runs its
#      own threads (PerfProc's reader pool, the host's watchdog, PerfNet's
#      qdisc dump thread, PerfDisk's space thread), and those tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
jobs=$(nproc)
cmake -S . -B build/gcc -G Ninja -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build/gcc
ctest --test-dir build/gcc --output-on-failure -j"$jobs"
cmake -S . -B build/asan -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
      -DPL_SANITIZE=ON -DPL_FUZZ=ON -DPL_FUZZ_SECONDS="${PL_FUZZ_SECONDS:-10}" >/dev/null
cmake --build build/asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan --output-on-failure -j"$jobs"
cmake -S . -B build/tsan -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DPL_TSAN=ON >/dev/null
cmake --build build/tsan --target test_perfproc_par test_host_worker test_perfnet_dump test_perfdisk_space
TSAN_OPTIONS=halt_on_error=1:die_after_fork=0 \
  ctest --test-dir build/tsan -R '^test_(perfproc_par|host_worker|perfnet_dump|perfdisk_space)[.]' --no-tests=error --output-on-failure -j"$jobs"
