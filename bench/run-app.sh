#!/bin/sh
# bench/run-app.sh -- application counter updates (docs/app-counters.md).
#
#   bench/run-app.sh [BUILD_DIR] [bench_app options]
#
# Without BUILD_DIR it configures and builds its own optimised tree in
# build/bench first, so this one command is the whole benchmark. Prints, in
# one run: single-thread update costs (bare relaxed store, pl_app_set,
# pl_app_add_single, bare atomic add, pl_app_inc/add, PCP MMV mmv_inc and
# mmv_set_value when libpcp_mmv is installed -- loudly SKIPPED otherwise),
# lost updates with 2..16 threads on one counter for pl_app_inc, a bare
# atomic add and mmv_inc, the torn-read check over 10^8 writes, and the
# cost of a wrapped object against the original (bench_wrap, when built).
# Options (passed to bench_app): --reps K (11), --ops N (10^8), --torn W (10^8),
# --threads "2 4 8 16". Exit status 1 when a torn value was seen.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
if [ $# -ge 1 ] && [ -d "$1" ]; then
  BUILD=$1
  shift
else
  BUILD=$HERE/../build/bench
  "$HERE/../scripts/deps.sh" build || exit 1
  cmake -S "$HERE/.." -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPL_TESTS=OFF >/dev/null || exit 1
  cmake --build "$BUILD" >/dev/null || exit 1
fi
[ -x "$BUILD/bench/bench_app" ] || { echo "missing $BUILD/bench/bench_app: build the tree first" >&2; exit 1; }
"$BUILD/bench/bench_app" "$@"
rc=$?
if [ -x "$BUILD/bench/bench_wrap" ]; then
  "$BUILD/bench/bench_wrap" "$BUILD" || rc=1
fi
exit $rc
