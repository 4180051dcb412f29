#!/bin/sh
# bench/run-perfd.sh -- perfd against the local engine and its peers.
#
#   bench/run-perfd.sh [BUILD_DIR]
#
# Without BUILD_DIR it configures and builds its own optimised tree in
# build/bench (no sanitizers, no tests) first, so this one command is the
# whole benchmark. With N idle processes of T threads (bench/spawn_idle) it
# times, in one run:
#   engine        the local engine's snapshot, "230 232" (bench_snapshot)
#   perfd-query   GET /v1/query?q=230 232 from perfd (one keep-alive curl,
#                 K transfers, each a fresh collection: snapshot_max_age_ms=0)
#   perfd-json    GET /v1/json?q=230 232 likewise
#   perfd-metrics GET /metrics, when this perfd has it
#   node_exporter its /metrics with --collector.processes, when installed
#   perfd-query+idle  perfd-query again with $IDLE idle connections open
# then requests per second with $C concurrent clients (wrk, $D seconds) on
# /v1/query and /metrics, and the resident memory (VmRSS, VmHWM) of perfd
# and node_exporter afterwards. Ratios are to the engine row.
# Environment: N (1000), T (1), K (21), C (100), D (10), IDLE (1000).
# perfd runs with snapshot_max_age_ms=0 (every request a collection) and
# connection limits raised (1100, 128 per address) so that wrk and the idle
# connections fit.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/build-tree.sh"
. "$HERE/lib.sh"
N=${N:-1000}
T=${T:-1}
K=${K:-21}
C=${C:-100}
D=${D:-10}
IDLE=${IDLE:-1000}
SPAWN=$BUILD/bench/spawn_idle
SNAP=$BUILD/bench/bench_snapshot
PERFD=$BUILD/tools/perfd/perfd
need_exec "$SPAWN" "$SNAP" "$PERFD"
command -v curl >/dev/null || { echo "curl is needed (Debian curl)" >&2; exit 1; }

TMP=$(mktemp -d)
STORE=$TMP/perflib.db
SPAWN_PID= PERFD_PID= NE_PID= IDLE_PID=
cleanup() {
  for p in $IDLE_PID $PERFD_PID $NE_PID; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  PERFD_PID= NE_PID= IDLE_PID=
  if [ -n "$SPAWN_PID" ]; then kill -TERM "$SPAWN_PID" 2>/dev/null; wait "$SPAWN_PID" 2>/dev/null; SPAWN_PID=; fi
}
trap 'cleanup; rm -rf "$TMP"' EXIT
trap 'cleanup; exit 130' INT TERM HUP

rss() { awk '/^VmRSS/ {r=$2} /^VmHWM/ {h=$2} END {printf "%.1f MB (peak %.1f MB)", r/1024, h/1024}' "/proc/$1/status"; }

fifo=$TMP/ready
mkfifo "$fifo"
"$SPAWN" "$N" "$T" >"$fifo" &
SPAWN_PID=$!
read -r ready pg <"$fifo" || true
[ "${ready:-}" = ready ] || { echo "spawn_idle $N $T failed" >&2; exit 1; }
procs=$(ls -d /proc/[0-9]* 2>/dev/null | wc -l)
echo "perfd benchmark: $N idle processes x $T threads ($procs processes on the machine), K=$K"

# The local engine (creates and seeds the store perfd then uses).
line=$("$SNAP" engine "$K" "$STORE" "$BUILD/providers")
engine_ms=$(echo "$line" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')

PERFLIB_REGISTRY=$STORE PERFLIB_PROVIDER_DIR=$BUILD/providers \
  "$PERFD" --listen 127.0.0.1:0 --set snapshot_max_age_ms=0 --set max_connections=1100 \
  --set max_connections_per_ip=128 --set idle_timeout=60 >"$TMP/perfd.log" 2>&1 &
PERFD_PID=$!
port=$(perfd_port "$TMP/perfd.log") || exit 1
base=http://127.0.0.1:$port

row() { # name ms
  awk -v n="$1" -v ms="$2" -v e="$engine_ms" 'BEGIN {
    r = (e > 0 && ms != "nan" && ms != "") ? sprintf("%.2f", ms / e) : "-";
    printf "%-16s %10.3f %8s\n", n, ms, r }'
}
printf '%-16s %10s %8s\n' row median_ms x_engine
row engine "$engine_ms"
ms=$(curl_median "$base/v1/query?q=230%20232") && row perfd-query "$ms" || echo "perfd-query      failed"
echo "perfd RSS after the /v1/query runs: $(rss "$PERFD_PID")"
ms=$(curl_median "$base/v1/json?q=230%20232") && row perfd-json "$ms" || echo "perfd-json       failed"
have_metrics=0
if [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/metrics")" = 200 ]; then
  have_metrics=1
  ms=$(curl_median "$base/metrics") && row perfd-metrics "$ms"
else
  echo "perfd-metrics    skipped: this perfd has no /metrics"
fi
# The same scrape with IDLE idle connections held open (limits raised for
# this run so that they fit: by default perfd would refuse all but 64).
IDLE_BIN=$BUILD/bench/idle_conns
if [ -x "$IDLE_BIN" ]; then
  "$IDLE_BIN" "$port" "$IDLE" 600 >"$TMP/idle.out" 2>&1 &
  IDLE_PID=$!
  i=0
  while [ "$i" -lt 300 ] && ! grep -q '^open' "$TMP/idle.out"; do sleep 0.1; i=$((i + 1)); done
  held=$(cat "$TMP/idle.out")
  ms=$(curl_median "$base/v1/query?q=230%20232") && row "perfd-query+idle" "$ms"
  echo "  (idle_conns $IDLE: $held)"
  kill "$IDLE_PID" 2>/dev/null; wait "$IDLE_PID" 2>/dev/null
else
  echo "perfd-query+idle skipped: $IDLE_BIN not built"
fi
NE=$(command -v prometheus-node-exporter || command -v node_exporter || true)
if [ -n "$NE" ]; then
  neport=$((20000 + $$ % 20000))
  "$NE" --web.listen-address=127.0.0.1:$neport --collector.processes >"$TMP/ne.log" 2>&1 &
  NE_PID=$!
  i=0
  while [ "$i" -lt 50 ] && ! curl -s -o /dev/null "http://127.0.0.1:$neport/metrics"; do sleep 0.1; i=$((i + 1)); done
  ms=$(curl_median "http://127.0.0.1:$neport/metrics") && row node_exporter "$ms" || echo "node_exporter    failed"
else
  echo "node_exporter    skipped: not installed (Debian prometheus-node-exporter)"
fi

if command -v wrk >/dev/null; then
  for path in "/v1/query?q=230%20232" "/metrics"; do
    if [ "$path" = /metrics ] && [ "$have_metrics" = 0 ]; then continue; fi
    out=$(wrk -t2 -c"$C" -d"${D}s" --latency "$base$path" 2>&1)
    rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p50=$(echo "$out" | awk '$1 == "50%" {print $2}')
    p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
    bad=$(echo "$out" | awk '/Non-2xx|Socket errors/ {sub(/^ +/, ""); printf "; %s", $0}')
    printf 'wrk %s clients %-24s %10s req/s  p50 %s p99 %s%s\n' "$C" "$path" "${rps:-?}" "${p50:-?}" "${p99:-?}" "$bad"
  done
else
  echo "wrk              skipped: not installed (Debian wrk)"
fi
echo "perfd RSS after the runs: $(rss "$PERFD_PID")"
[ -n "$NE_PID" ] && echo "node_exporter RSS after the runs: $(rss "$NE_PID")"
grep -c 'refused' "$TMP/perfd.log" | awk '{if ($1) print "perfd refused " $1 " connections"}'
