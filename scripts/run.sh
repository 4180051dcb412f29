#!/usr/bin/env bash
# The main job: build everything, print a summary of a Global snapshot, then
# serve this machine's counters with perfd on loopback and print the URL of
# the live chart (System Monitor in the browser) until Ctrl-C. Uses the
# embedded default registry store in the build tree (no root needed once the
# packages are installed).
#   scripts/run.sh               summary, then perfd on http://127.0.0.1:9730/
#   PERFD_PORT=9800 scripts/run.sh   another port
#   scripts/run.sh ARGS...       perfquery ARGS (e.g. Global: the full dump)
# Each step says what it does; a step that fails says which one, shows the
# end of its output and where the whole of it is, and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
logs=build/logs
say() { printf 'perflib: %s\n' "$*" >&2; }
# failed STEP LOG: the step's name, the lines that tell why, the log's path
failed() {
  say "step '$1' failed; the end of its output:"
  if grep -qE 'error|Error|ERR!|FAILED' "$2"; then
    grep -E -B2 -A6 'error|Error|ERR!|FAILED' "$2" | tail -n 40 >&2
  else
    tail -n 40 "$2" >&2
  fi
  say "the whole output is in $2"
  exit 1
}
say "checking the Debian packages (scripts/deps.sh build)"
if ! scripts/deps.sh build; then
  say "step 'packages' failed: see the message above (run it as root once)"
  exit 1
fi
mkdir -p "$logs"
say "configuring (cmake, build/release)"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPL_TESTS=OFF \
  >"$logs/configure.log" 2>&1 || failed configure "$logs/configure.log"
[ -f build/release/web-npm/node_modules/.package-lock.json ] ||
  say "the first build also installs the web page's npm packages (npm ci) and takes a few minutes"
say "building (build/release; the output is in $logs/build.log)"
# ninja's [done/total] lines become one progress line on a terminal, and a
# line at every tenth otherwise
set +e
cmake --build build/release 2>&1 | tee "$logs/build.log" | awk -v tty="$([ -t 2 ] && echo 1)" '
  match($0, /^\[[1-9][0-9]*\/[0-9]+\]/) {
    split(substr($0, 2, RLENGTH - 2), n, "/")
    pct = int(100 * n[1] / n[2])
    if (tty) { printf "\rperflib: building %3d%% (%d of %d)", pct, n[1], n[2] > "/dev/stderr"; fflush("/dev/stderr"); shown = 1 }
    else if (pct >= next_pct) { printf "perflib: building %d%% (%d of %d)\n", pct, n[1], n[2] > "/dev/stderr"; next_pct = pct - pct % 10 + 10 }
  }
  END { if (shown) printf "\n" > "/dev/stderr" }'
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 0 ] || failed build "$logs/build.log"
if [ $# -gt 0 ]; then
  exec build/release/tools/perfquery/perfquery "$@"
fi
build/release/tools/perfquery/perfquery --summary
port=${PERFD_PORT:-9730}
echo
echo "perfd: the live chart is at http://127.0.0.1:$port/ (Prometheus: /metrics, JSON: /v1/json);"
echo "       also try build/release/tools/pview/pview and build/release/tools/typeperf/typeperf -qx Processor."
echo "       Ctrl-C stops perfd."
exec build/release/tools/perfd/perfd --listen "127.0.0.1:$port"
