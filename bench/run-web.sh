#!/bin/sh
# bench/run-web.sh -- the System Monitor page benchmark (docs/benchmarks.md).
#
#   bench/run-web.sh [BUILD_DIR]
#
# Without BUILD_DIR it configures and builds its own optimised tree in
# build/bench first (the page included), so this one command is the whole
# benchmark. It starts perfd on 127.0.0.1 with a free port and Debian's
# chromium, and prints perfd's CPU per connected page (50 counters at 1 Hz)
# beside typeperf doing the same collection, and the page's redraw time, frame
# rate and sample-to-pixel latency with 50 series x 6,000 points at 10 Hz.
# Environment: SECONDS_PER_RUN (20), REPS (3), CHROMIUM (/usr/bin/chromium).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
if [ $# -ge 1 ]; then
  BUILD=$(cd "$1" && pwd)
else
  BUILD=$HERE/../build/bench
  "$HERE/../scripts/deps.sh" test || exit 1
  cmake -S "$HERE/.." -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPL_TESTS=OFF >/dev/null || exit 1
  cmake --build "$BUILD" >/dev/null || exit 1
fi
export PERFD="$BUILD/tools/perfd/perfd" TYPEPERF="$BUILD/tools/typeperf/typeperf"
export PL_WEB_NODE_MODULES="$BUILD/web-npm/node_modules"
TMPREG=$(mktemp -d) || exit 1
trap 'rm -rf "$TMPREG"' EXIT
# typeperf uses its own store like perfd does (lib.mjs gives perfd one).
export PERFLIB_REGISTRY="$TMPREG/perflib.db"
node "$HERE/web-bench.mjs"
