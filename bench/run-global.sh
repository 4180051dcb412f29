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
. "$HERE/build-tree.sh"
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
echo "## engine/provider/floor: wall clock; eng_cpu/flo_cpu: the process's CPU time (all threads)"
printf '%-21s %5s %4s %9s %9s %9s %7s %7s %9s %9s %7s\n' object index inst engine provider floor x_floor prov_x \
  eng_cpu flo_cpu x_cpu
"$BG" "$K" "$STORE" "$BUILD/providers" | awk '{
  for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
  e = v["engine_us"]; p = v["provider_us"]; f = v["floor_us"]; ce = v["engine_cpu_us"]; cf = v["floor_cpu_us"]
  if (e < 0) { printf "%-21s %41.1f\n", v["object"], f; next }
  xe = (f > 0) ? sprintf("%.2f", e / f) : "-"
  xp = (f > 0 && p >= 0) ? sprintf("%.2f", p / f) : "-"
  xc = (cf > 0) ? sprintf("%.2f", ce / cf) : "-"
  printf "%-21s %5s %4s %9.1f %9s %9.1f %7s %7s %9.1f %9.1f %7s\n", v["object"], v["index"], v["instances"], e,
         (p >= 0) ? sprintf("%.1f", p) : "-", f, xe, xp, ce, cf, xc }'

echo
echo "## Start-up phases in one process (medians of ${K_STARTUP:-21}, microseconds)"
"$BG" startup "${K_STARTUP:-21}" "$STORE" "$BUILD/providers" | sed 's/phase=//; s/ median_us=/ /' |
  awk '{printf "%-14s %10.1f\n", $1, $2}'

echo
echo "## Whole commands (medians of $K runs, microseconds; the store exists)"
echo "## cpu = the child's user + system time, which the machine's load hardly changes"
export PERFLIB_REGISTRY="$STORE"
printf '%-34s %10s %10s %12s\n' command wall_us cpu_us cpu_minus_true
base=
row() {
  name=$1; shift
  line=$("$BG" exec "$K" "$@") || { printf '%-34s failed\n' "$name"; return; }
  w=$(echo "$line" | sed -n 's/.*wall_us=\([0-9]*\).*/\1/p')
  c=$(echo "$line" | sed -n 's/.*cpu_us=\([0-9]*\).*/\1/p')
  [ -z "$base" ] && base=$c
  printf '%-34s %10s %10s %12s\n' "$name" "$w" "$c" "$((c - base))"
}
row /bin/true /bin/true
row "perfquery 2 (System)" "$PQ" 2
# What every command paid before libcurl was loaded on first use only: the
# same command with libcurl (and so its ~27 libraries) loaded at start.
curl_so=$(ldconfig -p 2>/dev/null | awk '/libcurl-gnutls\.so\.4 |libcurl\.so\.4 / {print $NF; exit}')
if [ -n "$curl_so" ]; then
  LD_PRELOAD=$curl_so row "perfquery 2, libcurl loaded at start" "$PQ" 2
fi
row "perfquery (Global)" "$PQ"
row "typeperf -sc 1 \\System\\Processes" "$TP" -sc 1 '\System\Processes'
