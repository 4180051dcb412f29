#!/bin/sh
# bench/run-global.sh -- "Global at the floor" and the tools' start-up cost
# (issue 17; docs/benchmarks.md).
#
#   bench/run-global.sh [BUILD_DIR]
#
# Without BUILD_DIR it configures and builds its own optimised tree in
# build/bench (no sanitizers, no tests) first, so this one command is the
# whole benchmark.
#
# 1. Every object of a Global query: the engine's query for that object
#    alone, the provider's Collect called directly, and the floor (a minimal
#    loop over exactly the files, directories, netlink dumps and statvfs
#    calls that provider reads for it), medians of K interleaved rounds, with
#    the ratios to the floor; then Global itself; then the sources of
#    Connections Established alone: the one sock_diag dump PerfNet makes, the
#    two per-family dumps it falls back to, and /proc/net/tcp{,6} (its
#    source before).
# 2. Start-up phases inside one process (store open, engine open, first
#    query, steady query, close), medians of K.
# 3. Whole commands, wall-clock medians of K runs, against /bin/true:
#    perfquery for System, perfquery for Global, typeperf -sc 1.
# Environment: K (default 51 for 1 and 3, 21 for 2).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
if [ $# -ge 1 ]; then
  BUILD=$1
else
  BUILD=$HERE/../build/bench
  "$HERE/../scripts/deps.sh" build || exit 1
  cmake -S "$HERE/.." -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPL_TESTS=OFF >/dev/null || exit 1
  cmake --build "$BUILD" >/dev/null || exit 1
fi
K=${K:-51}
BG=$BUILD/bench/bench_global
PQ=$BUILD/tools/perfquery/perfquery
TP=$BUILD/tools/typeperf/typeperf
for f in "$BG" "$PQ" "$TP" "$BUILD/providers/libperfnet.so"; do
  [ -e "$f" ] || { echo "missing $f: build the tree first (cmake --build $BUILD)" >&2; exit 1; }
done
STORE_DIR=$(mktemp -d)
STORE=$STORE_DIR/perflib.db
trap 'rm -rf "$STORE_DIR"' EXIT
trap 'exit 130' INT TERM HUP

echo "# $(uname -r), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "## Global objects against their floors (medians of $K, microseconds)"
printf '%-18s %6s %5s %10s %11s %9s %9s %9s\n' object index inst engine_us provider_us floor_us x_floor prov_x
"$BG" "$K" "$STORE" "$BUILD/providers" | awk '{
  for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
  e = v["engine_us"]; p = v["provider_us"]; f = v["floor_us"]
  xe = (f > 0) ? sprintf("%.2f", e / f) : "-"
  xp = (f > 0 && p >= 0) ? sprintf("%.2f", p / f) : "-"
  if (e < 0) { printf "%-26s %32s %9.1f\n", v["object"], "", f; next }
  printf "%-18s %6s %5s %10.1f %11s %9.1f %9s %9s\n", v["object"], v["index"], v["instances"], e,
         (p >= 0) ? sprintf("%.1f", p) : "-", f, xe, xp }'

echo
echo "## Start-up phases in one process (medians of ${K_STARTUP:-21}, microseconds)"
"$BG" startup "${K_STARTUP:-21}" "$STORE" "$BUILD/providers" | sed 's/phase=//; s/ median_us=/ /' |
  awk '{printf "%-14s %10.1f\n", $1, $2}'

now_ns() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "nan"}'; }
# time_cmd K cmd...: median wall time in microseconds of K runs
time_cmd() {
  k=$1; shift
  i=0
  while [ "$i" -lt "$k" ]; do
    a=$(now_ns); "$@" >/dev/null 2>&1; b=$(now_ns)
    echo "$(( (b - a) / 1000 ))"
    i=$((i + 1))
  done | median
}

echo
echo "## Whole commands (wall clock, medians of $K, microseconds; the store exists)"
export PERFLIB_REGISTRY="$STORE"
base=$(time_cmd "$K" /bin/true)
printf '%-34s %10s %10s\n' command median_us minus_true
row() {
  name=$1; shift
  t=$(time_cmd "$K" "$@")
  printf '%-34s %10s %10s\n' "$name" "$t" "$((t - base))"
}
printf '%-34s %10s %10s\n' /bin/true "$base" 0
row "perfquery 2 (System)" "$PQ" 2
row "perfquery (Global)" "$PQ"
row "typeperf -sc 1 \\System\\Processes" "$TP" -sc 1 '\System\Processes'
