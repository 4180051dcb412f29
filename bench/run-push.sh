#!/bin/sh
# bench/run-push.sh -- perfd's remote_write queue while the receiver is down.
#
#   bench/run-push.sh [BUILD_DIR]
#
# Without BUILD_DIR it builds its own optimised tree in build/bench first.
# For each queue bound in QUEUES, a Debian Prometheus receiver
# (--web.enable-remote-write-receiver) on 127.0.0.1 in a temp directory and
# a perfd pushing to it every INTERVAL ms (default objects); after WARM s the
# receiver is stopped for OUTAGE s, then started again on the same port and
# data. One row per bound:
#   peak_queued  perflib_remote_write_queue_samples at its highest (polled
#                every 0.5 s during the outage)
#   dropped      perflib_remote_write_samples_dropped_total at the end
#   drain_ms     from the receiver's /-/ready again to perfd's queue empty
#                (polled every 100 ms; the backoff caps a retry wait at 10 s)
#   outage       samples of perflib_memory_available_bytes stamped inside
#                the outage (count_over_time at its end, the first and last
#                second left out) / the intervals it spans
# Environment: QUEUES ("500000 5000"), INTERVAL (1000), OUTAGE (30), WARM (5).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/build-tree.sh"
. "$HERE/lib.sh"
QUEUES=${QUEUES:-"500000 5000"}
INTERVAL=${INTERVAL:-1000}
OUTAGE=${OUTAGE:-30}
WARM=${WARM:-5}
PERFD=${PERFD:-$BUILD/tools/perfd/perfd}
need_exec "$PERFD"
command -v prometheus >/dev/null || { echo "prometheus (Debian prometheus) is not installed" >&2; exit 1; }
TMP=$(mktemp -d)
PROM_PID=
PERFD_PID=
cleanup() {
  [ -n "$PERFD_PID" ] && kill "$PERFD_PID" 2>/dev/null && wait "$PERFD_PID" 2>/dev/null
  [ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
now_ms() { date +%s%3N; }

prom_up() { # DIR PORT
  printf 'global:\n  scrape_interval: 1m\n' > "$1/p.yml"
  prometheus --config.file="$1/p.yml" --storage.tsdb.path="$1/data" --web.listen-address=127.0.0.1:"$2" \
    --web.enable-remote-write-receiver --log.level=warn 2>>"$1/prom.log" &
  PROM_PID=$!
  i=0
  while [ $i -lt 300 ]; do
    curl -sf -o /dev/null "http://127.0.0.1:$2/-/ready" && return 0
    sleep 0.1
    i=$((i + 1))
  done
  cat "$1/prom.log" >&2
  echo "prometheus did not start" >&2
  exit 1
}
prom_down() { kill "$PROM_PID"; wait "$PROM_PID" 2>/dev/null; PROM_PID=; }
self() { # PORT NAME: perfd's own metric
  curl -s "http://127.0.0.1:$1/metrics" | awk -v n="$2" '$1 == n {print $2; exit}'
}

printf '%-10s %12s %10s %9s %12s\n' queue peak_queued dropped drain_ms outage
for Q in $QUEUES; do
  D=$TMP/q$Q
  mkdir -p "$D"
  PP=$(free_port)
  prom_up "$D" "$PP"
  "$PERFD" --listen 127.0.0.1:0 --registry "$D/perflib.db" --set "remote_write_url=http://127.0.0.1:$PP/api/v1/write" \
    --set "remote_write_interval_ms=$INTERVAL" --set "remote_write_queue_samples=$Q" 2>"$D/perfd.log" &
  PERFD_PID=$!
  DP=$(perfd_port "$D/perfd.log")
  sleep "$WARM"
  prom_down
  t0=$(date +%s.%N)
  peak=0
  end=$(($(now_ms) + OUTAGE * 1000))
  while [ "$(now_ms)" -lt "$end" ]; do
    q=$(self "$DP" perflib_remote_write_queue_samples)
    [ -n "$q" ] && peak=$(echo "$q $peak" | awk '{print ($1 > $2) ? $1 : $2}')
    sleep 0.5
  done
  t1=$(date +%s.%N)
  prom_up "$D" "$PP"
  r=$(now_ms)
  i=0
  while [ $i -lt 600 ]; do
    q=$(self "$DP" perflib_remote_write_queue_samples)
    [ "$q" = 0 ] && break
    sleep 0.1
    i=$((i + 1))
  done
  drain=$(($(now_ms) - r))
  dropped=$(self "$DP" perflib_remote_write_samples_dropped_total)
  win=$(echo "$t0 $t1" | awk '{printf "%d", $2 - $1 - 2}')
  at=$(echo "$t1" | awk '{printf "%.3f", $1 - 1}')
  got=$(curl -s "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=count_over_time(perflib_memory_available_bytes[${win}s])" \
    --data-urlencode "time=$at" | sed -n 's/.*"value":\[[^,]*,"\([0-9.]*\)".*/\1/p')
  want=$(echo "$win $INTERVAL" | awk '{printf "%d", $1 * 1000 / $2}')
  printf '%-10s %12s %10s %9s %12s\n' "$Q" "$peak" "${dropped:-?}" "$drain" "${got:-0}/$want"
  kill "$PERFD_PID"; wait "$PERFD_PID" 2>/dev/null; PERFD_PID=
  prom_down
done
