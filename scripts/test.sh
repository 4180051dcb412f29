#!/usr/bin/env bash
# The whole test suite (docs/testing.md). Installs missing Debian packages
# (as root), then:
#   1. gcc build, warnings as errors, every test;
#   2. clang build with AddressSanitizer + UndefinedBehaviorSanitizer, every
#      test again, plus each libFuzzer target for a short bounded time
#      (PL_FUZZ_SECONDS, default 10; see docs/testing.md for longer runs);
#   3. clang build with ThreadSanitizer of the tests of code that runs its
#      own threads (PerfProc's reader pool, the host's watchdog, PerfNet's
#      qdisc dump thread, PerfDisk's space thread), and those tests;
#   4. every other build flavour, gcc and clang, compiled warning-free
#      (scripts/flavours.sh);
#   5. the mutation run (scripts/mutants.sh): each checked-in one-line
#      mutation must make its named tests fail.
# At the end, whatever happened, it prints every case that skipped, with
# its reason. Run as root (as CI does), a skip not listed in
# tests/skips.txt fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
jobs=$(nproc)
mkdir -p build
skips=build/skips.tsv # build, case, reason: every skip of this run
: >"$skips"
t0=$(date +%s)
times=()
stage() { times+=("$1: $(($(date +%s) - t0)) s"); t0=$(date +%s); }

# ctest in build tree $1 (the other arguments go to ctest). Every case that
# exited 77 (pl_skip, ctest's SKIP_RETURN_CODE) goes into $skips with the
# reason it wrote to $PL_SKIP_LOG.
run_ctest() {
  local dir=$1 rc=0
  shift
  : >"$dir/skips.log"
  PL_SKIP_LOG=$PWD/$dir/skips.log ctest --test-dir "$dir" --output-on-failure "$@" 2>&1 | tee "$dir/ctest.out" || rc=$?
  # "  12/813 Test  #12: test_x.case ......***Skipped   0.01 sec"
  local t reason
  while IFS= read -r t; do
    reason=$(awk -F'\t' -v t="$t" '$1 == t { print $2; exit }' "$dir/skips.log")
    printf '%s\t%s\t%s\n' "${dir#build/}" "$t" "${reason:-exited 77 without a reason (use pl_skip)}" >>"$skips"
  done < <(sed -n 's/^.*Test *#[0-9]*: \([^ ]*\) .*\*\*\*Skipped.*$/\1/p' "$dir/ctest.out")
  store_check "$dir" || rc=1
  return $rc
}

# Most cases read the build tree's store; a provider the suite's own
# consumers got disabled there (a consumer killed inside a call, twice:
# docs/provider-host.md) makes every later case that needs it fail for a
# reason it cannot tell. Such a disable fails the run by name.
store_check() {
  local lodctr=$1/tools/lodctr/lodctr out
  [ -x "$lodctr" ] || return 0
  out=$(env -u PERFLIB_REGISTRY "$lodctr" /q 2>&1) || { echo "test.sh: $lodctr /q failed: $out" >&2; return 1; }
  if grep -q '(Disabled)' <<<"$out"; then
    echo "test.sh: the suite left providers disabled in $1's store:" >&2
    grep -E '^\[.*\(Disabled\)|^ *Disabled:' <<<"$out" >&2
    return 1
  fi
}

# The skip report; 1 when a run as root skipped a case tests/skips.txt does
# not list.
skip_report() {
  local n new=0 b t why
  n=$(wc -l <"$skips")
  echo
  echo "== skipped cases: $n"
  while IFS=$'\t' read -r b t why; do
    if awk -v t="$t" '$1 == t { found = 1 } END { exit !found }' tests/skips.txt; then
      echo "   [$b] $t: $why"
    else
      echo "   [$b] $t: $why   <-- NOT IN tests/skips.txt"
      new=1
    fi
  done <"$skips"
  if [ $new = 1 ] && [ "$(id -u)" = 0 ]; then
    echo "test.sh: a case skipped that tests/skips.txt does not list: as root (as CI runs) every case must run;" >&2
    echo "test.sh: make it run here, or add it to tests/skips.txt with the reason it cannot" >&2
    return 1
  fi
  [ $new = 1 ] && echo "   (not root: the suite expects root, as CI runs it; these skips are not enforced)"
  return 0
}
finish() {
  local rc=$?
  skip_report || rc=1
  [ ${#times[@]} -gt 0 ] && printf '== times: %s\n' "$(IFS=';'; echo "${times[*]}")"
  exit $rc
}
trap finish EXIT

cmake -S . -B build/gcc -G Ninja -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build/gcc
run_ctest build/gcc -j"$jobs"
stage gcc
cmake -S . -B build/asan -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
      -DPL_SANITIZE=ON -DPL_FUZZ=ON -DPL_FUZZ_SECONDS="${PL_FUZZ_SECONDS:-10}" >/dev/null
cmake --build build/asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_ctest build/asan -j"$jobs"
stage asan
cmake -S . -B build/tsan -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DPL_TSAN=ON >/dev/null
cmake --build build/tsan --target test_perfproc_par test_host_worker test_perfnet_dump test_perfdisk_space
TSAN_OPTIONS=halt_on_error=1:die_after_fork=0 \
  run_ctest build/tsan -R '^test_(perfproc_par|host_worker|perfnet_dump|perfdisk_space)[.]' --no-tests=error -j"$jobs"
stage tsan
scripts/flavours.sh
stage flavours
scripts/mutants.sh
stage mutants
