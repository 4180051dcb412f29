#!/bin/sh
# bench/run-typeperf.sh -- typeperf over wildcard paths on many threads
# (issue 26 finding 7, issue 33), beside perfquery reading the same objects.
#
#   bench/run-typeperf.sh [BUILD_DIR [BASE_BUILD_DIR]]
#
# Without BUILD_DIR it configures and builds its own optimised tree in
# build/bench first (bench/build-tree.sh). It starts N idle processes of T
# threads (bench/spawn_idle; default 1 x 2000: about 2,000 Thread
# instances besides the machine's own), then for each path of $PATHS
# measures, K times each, with bench_snapshot exec (wall and the child's
# CPU, user + system, medians):
#   startup   typeperf PATH -sc 1: start-up (expanding the wildcard, adding
#             every column) and the first sample;
#   sample    typeperf PATH -sc 6 -si 1 minus -sc 1, divided by 5: what one
#             more sample costs (wall 1000 ms means it keeps the interval;
#             more means samples come late);
# and perfquery of the same object index (230 Process, 232 Thread) with its
# output thrown away: one collection and a text dump, the floor a typeperf
# sample of that object cannot go below by much. The ratio column is to
# that perfquery row's CPU time (CPU: the machine's load moves it less
# than wall time). With BASE_BUILD_DIR (another tree, e.g. main before a
# change) its typeperf is measured in the same run, in the same rounds.
# Environment: N (1), T (2000), K (5), PATHS (below, one per line).
# The machine is shared while this runs: quote medians, with min-max.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/build-tree.sh"
. "$HERE/lib.sh"
BASE=${2:-}
N=${N:-1}
T=${T:-2000}
K=${K:-5}
PATHS=${PATHS:-'\Process(*)\*
\Thread(*)\% Processor Time'}
SPAWN=$BUILD/bench/spawn_idle
SNAP=$BUILD/bench/bench_snapshot
need_exec "$SPAWN" "$SNAP" "$BUILD/tools/typeperf/typeperf" "$BUILD/tools/perfquery/perfquery"
[ -z "$BASE" ] || need_exec "$BASE/tools/typeperf/typeperf"

STORE_DIR=$(mktemp -d)
SPAWN_PID=
cleanup() {
  if [ -n "$SPAWN_PID" ]; then
    kill -TERM "$SPAWN_PID" 2>/dev/null
    wait "$SPAWN_PID" 2>/dev/null
    SPAWN_PID=
  fi
  rm -rf "$STORE_DIR"
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM HUP

# Each tree uses its own default store (the build tree's) and providers.
"$SPAWN" "$N" "$T" >"$STORE_DIR/spawn.out" &
SPAWN_PID=$!
i=0
until grep -q '^ready' "$STORE_DIR/spawn.out" 2>/dev/null; do
  i=$((i + 1))
  [ $i -le 600 ] || { echo "spawn_idle did not get ready" >&2; exit 1; }
  kill -0 "$SPAWN_PID" 2>/dev/null || { echo "spawn_idle failed" >&2; cat "$STORE_DIR/spawn.out" >&2; exit 1; }
  sleep 0.1
done
threads=$(ls -d /proc/[0-9]*/task/[0-9]* 2>/dev/null | wc -l)
procs=$(ls -d /proc/[0-9]* 2>/dev/null | wc -l)
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $procs processes, $threads threads; K=$K"

# one measurement: the median wall and CPU ms of K runs (after a warm-up)
measure() { # command args...
  "$SNAP" exec "$K" "$@" | sed -n 's/.*median_ms=\([0-9.]*\).*cpu_ms=\([0-9.]*\).*/\1 \2/p'
}

printf '%-40s %-13s %-8s %10s %10s %8s\n' path tool what wall_ms cpu_ms ratio
echo "$PATHS" | while IFS= read -r P; do
  [ -n "$P" ] || continue
  case $P in *Thread*) idx=232 ;; *) idx=230 ;; esac
  floor=$(measure "$BUILD/tools/perfquery/perfquery" "$idx")
  fw=${floor% *}
  printf '%-40s %-13s %-8s %10s %10s %8s\n' "$P" perfquery "$idx" "$fw" "${floor#* }" 1.00
  for tree in new ${BASE:+base}; do
    if [ "$tree" = new ]; then tp=$BUILD/tools/typeperf/typeperf; else tp=$BASE/tools/typeperf/typeperf; fi
    one=$(measure "$tp" "$P" -sc 1)
    six=$(measure "$tp" "$P" -sc 6 -si 1)
    ow=${one% *} oc=${one#* } sw=${six% *} sc=${six#* }
    printf '%-40s %-13s %-8s %10s %10s %8s\n' "$P" "typeperf-$tree" startup "$ow" "$oc" \
      "$(awk -v a="$oc" -v b="${floor#* }" 'BEGIN { printf "%.1f", a / b }')"
    printf '%-40s %-13s %-8s %10s %10s %8s\n' "$P" "typeperf-$tree" sample \
      "$(awk -v a="$sw" -v b="$ow" 'BEGIN { printf "%.1f", (a - b) / 5 }')" \
      "$(awk -v a="$sc" -v b="$oc" 'BEGIN { printf "%.1f", (a - b) / 5 }')" \
      "$(awk -v a="$sc" -v b="$oc" -v f="${floor#* }" 'BEGIN { printf "%.1f", (a - b) / 5 / f }')"
  done
done
