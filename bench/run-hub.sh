#!/bin/sh
# bench/run-hub.sh -- /metrics latency of perfd under the attacks of issue 23.
#
#   bench/run-hub.sh [BUILD_DIR [idle|blackhole|idleconns|all]]
#
# Without BUILD_DIR it builds its own optimised tree in build/bench first.
# perfd runs on 127.0.0.1 with the build tree's providers, the default
# limits (64 connections, 8 an address), snapshot_max_age_ms=0 (every scrape
# a fresh collection) and a remote_config listing one machine: a listener of
# bench/hub_bench that accepts connections and never answers (timeout_ms
# 5000). Each row is K scrapes of /metrics, one every GAP ms (p50, p99, max):
#   idle       nothing else happening (measured before and after the others)
#   blackhole  64 different Foreign queries for the black hole at once, from
#              64 addresses, started just before the scrapes
#   idleconns  1,000 idle connections from 125 loopback addresses, each
#              reopened as soon as perfd closes it
# Environment: K (50), GAP (40), PERFD (another perfd binary to time, e.g.
# the one before issue 23: one that does not know remote_config is started
# without it, and then reaches any machine a request names).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/build-tree.sh"
. "$HERE/lib.sh"
WHAT=${2:-all}
K=${K:-50}
GAP=${GAP:-40}
HB=$BUILD/bench/hub_bench
PERFD=${PERFD:-$BUILD/tools/perfd/perfd}
need_exec "$HB" "$PERFD"

TMP=$(mktemp -d)
PERFD_PID= HOLE_PID= FLOOD_PID=
cleanup() {
  for p in $FLOOD_PID $HOLE_PID $PERFD_PID; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  PERFD_PID= HOLE_PID= FLOOD_PID=
}
trap 'cleanup; rm -rf "$TMP"' EXIT
trap 'cleanup; exit 130' INT TERM HUP

"$HB" hole 600 >"$TMP/hole" &
HOLE_PID=$!
i=0
while [ "$i" -lt 100 ] && ! grep -q '^port' "$TMP/hole" 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
hole=$(sed -n 's/^port //p' "$TMP/hole")
[ -n "$hole" ] || { echo "hub_bench hole did not start" >&2; exit 1; }
printf 'connect_timeout_ms = 5000\ntimeout_ms = 5000\n[127.0.0.1:%s]\n' "$hole" >"$TMP/remote.conf"

remote="--set remote_config=$TMP/remote.conf"
"$PERFD" $remote --check-config >/dev/null 2>&1 || remote=
PERFLIB_REGISTRY=$TMP/perflib.db PERFLIB_PROVIDER_DIR=$(dirname "$(dirname "$(dirname "$PERFD")")")/providers \
  "$PERFD" --listen 127.0.0.1:0 --set snapshot_max_age_ms=0 $remote >"$TMP/perfd.log" 2>&1 &
PERFD_PID=$!
port=$(perfd_port "$TMP/perfd.log") || exit 1
"$HB" scrape "$port" 5 0 >/dev/null # warm up

row() { printf '%-10s %s\n' "$1" "$2"; }
echo "perfd /metrics under attack: $PERFD${remote:+ (remote_config: the black hole)}"
echo "K=$K scrapes, one every $GAP ms ($(nproc) CPUs; the machine may be shared)"
row idle "$("$HB" scrape "$port" "$K" "$GAP")"
if [ "$WHAT" = all ] || [ "$WHAT" = blackhole ]; then
  "$HB" attack "$port" "$hole" 64 >"$TMP/attack" &
  ATTACK_PID=$!
  sleep 0.1
  row blackhole "$("$HB" scrape "$port" "$K" "$GAP")"
  wait "$ATTACK_PID"
  row "" "$(cat "$TMP/attack")"
  sleep 6 # the machine's rest ends; the next row starts clean
fi
if [ "$WHAT" = all ] || [ "$WHAT" = idleconns ]; then
  secs=$(( (K * (GAP + 20)) / 1000 + 10 ))
  "$HB" flood "$port" 1000 "$secs" >"$TMP/flood" &
  FLOOD_PID=$!
  i=0
  while [ "$i" -lt 200 ] && ! grep -q flooding "$TMP/flood"; do sleep 0.05; i=$((i + 1)); done
  sleep 0.5
  row idleconns "$("$HB" scrape "$port" "$K" "$GAP")"
  kill -TERM "$FLOOD_PID" 2>/dev/null; wait "$FLOOD_PID" 2>/dev/null; FLOOD_PID=
fi
row idle "$("$HB" scrape "$port" "$K" "$GAP")"
echo "perfd log lines: $(wc -l <"$TMP/perfd.log")"
