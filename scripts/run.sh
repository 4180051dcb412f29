#!/usr/bin/env bash
# The main job: build everything, print a summary of a Global snapshot, then
# serve this machine's counters with perfd on loopback and print the URL of
# the live chart (System Monitor in the browser) until Ctrl-C. Uses the
# embedded default registry store in the build tree (no root needed once the
# packages are installed).
#   scripts/run.sh               summary, then perfd on http://127.0.0.1:9730/
#   PERFD_PORT=9800 scripts/run.sh   another port
#   scripts/run.sh ARGS...       perfquery ARGS (e.g. Global: the full dump)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh build
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPL_TESTS=OFF >/dev/null
cmake --build build/release >/dev/null
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
