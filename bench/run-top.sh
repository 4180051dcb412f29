#!/bin/sh
# bench/run-top.sh -- what each per-process mode of perfd's /metrics costs a
# fleet: the series a scrape carries and the scrape's time, with N idle
# processes (bench/spawn_idle), side by side.
#
#   bench/run-top.sh [BUILD_DIR]
#
# Without BUILD_DIR it builds an optimised tree in build/bench first. One
# perfd per mode, all running at once (snapshot_max_age_ms=0: every scrape
# is a fresh collection; PerfProc reading /proc), scraped in R rounds, each
# round timing in turn the median of K scrapes of each mode (one keep-alive
# curl, the first dropped), so that a machine whose load changes weighs on
# all alike. The modes:
#   system         metrics_objects=default (no Process, no Thread)
#   process-all    metrics_objects=Process: every family of every process
#   paths-3        metrics_counters = \Process(*)\% Processor Time;
#                  \Process(*)\Working Set; \Process(*)\IO Data Bytes/sec
#   top-10         metrics_objects=Process, metrics_process_top=10 (by cpu)
#   top-10-paths-3 the three counters of paths-3, top 10
# For each: the samples (series) of the Process families, all samples, the
# answer's size, the scrape's median time in each round and its ratio to
# process-all (median and range over the rounds), and perfd's CPU a scrape.
# Environment: N (1000), K (11), R (5).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/build-tree.sh"
. "$HERE/lib.sh"
N=${N:-1000}
K=${K:-11}
R=${R:-5}
SPAWN=$BUILD/bench/spawn_idle
PERFD=$BUILD/tools/perfd/perfd
need_exec "$SPAWN" "$PERFD"
command -v curl >/dev/null || { echo "curl is needed (Debian curl)" >&2; exit 1; }

TMP=$(mktemp -d)
STORE=$TMP/perflib.db
SPAWN_PID= PIDS=
cleanup() {
  for p in $PIDS; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  PIDS=
  if [ -n "$SPAWN_PID" ]; then kill -TERM "$SPAWN_PID" 2>/dev/null; wait "$SPAWN_PID" 2>/dev/null; SPAWN_PID=; fi
}
trap 'cleanup; rm -rf "$TMP"' EXIT
trap 'cleanup; exit 130' INT TERM HUP

PATHS3='\Process(*)\% Processor Time;\Process(*)\Working Set;\Process(*)\IO Data Bytes/sec'
MODES="system process-all paths-3 top-10 top-10-paths-3"
# start MODE: its perfd; sets port_MODE and pid_MODE
start() {
  log=$TMP/$1.log
  : >"$log"
  case $1 in
  system) set -- "$1" --set metrics_objects=default ;;
  process-all) set -- "$1" --set metrics_objects=Process ;;
  paths-3) set -- "$1" --set "metrics_counters=$PATHS3" ;;
  top-10) set -- "$1" --set metrics_objects=Process --set metrics_process_top=10 ;;
  top-10-paths-3) set -- "$1" --set "metrics_counters=$PATHS3" --set metrics_process_top=10 ;;
  esac
  m=$1
  shift
  PERFLIB_REGISTRY=$STORE PERFLIB_PROVIDER_DIR=$BUILD/providers PERFLIB_PERFPROC_SOURCE=proc \
    "$PERFD" --listen 127.0.0.1:0 --set snapshot_max_age_ms=0 "$@" >"$log" 2>&1 &
  pid=$!
  PIDS="$PIDS $pid"
  i=0
  while [ "$i" -lt 100 ]; do
    port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$log" | head -1)
    if [ -n "$port" ] && grep -q 'perfd: ready' "$log"; then
      eval "port_$(echo "$m" | tr - _)=$port pid_$(echo "$m" | tr - _)=$pid"
      return 0
    fi
    sleep 0.1
    i=$((i + 1))
  done
  cat "$log" >&2
  return 1
}
portof() { eval "echo \$port_$(echo "$1" | tr - _)"; }
pidof_mode() { eval "echo \$pid_$(echo "$1" | tr - _)"; }

fifo=$TMP/ready
mkfifo "$fifo"
"$SPAWN" "$N" 1 >"$fifo" &
SPAWN_PID=$!
read -r ready pg <"$fifo" || true
[ "${ready:-}" = ready ] || { echo "spawn_idle $N 1 failed" >&2; exit 1; }
procs=$(ls -d /proc/[0-9]* 2>/dev/null | wc -l)
echo "/metrics per-process modes: $N idle processes ($procs processes on the machine), R=$R rounds of K=$K"
for m in $MODES; do
  start "$m" || { echo "perfd ($m) did not start" >&2; exit 1; }
  curl -s -o /dev/null "http://127.0.0.1:$(portof "$m")/metrics"
done

printf '%-16s %16s %12s %10s\n' mode process_series all_series answer_KB
for m in $MODES; do
  curl -s "http://127.0.0.1:$(portof "$m")/metrics" >"$TMP/$m.txt"
  awk -v m="$m" '!/^#/ { n++; if ($0 ~ /^perflib_process_/) p++ } { b += length($0) + 1 }
    END { printf "%-16s %16d %12d %10d\n", m, p, n, b / 1024 }' "$TMP/$m.txt"
done

ticks() { awk '{sub(/.*\) /, ""); print $12 + $13}' "/proc/$1/stat" 2>/dev/null; }
HZ=$(getconf CLK_TCK)
: >"$TMP/rounds"
r=1
while [ "$r" -le "$R" ]; do
  line="$r"
  for m in $MODES; do
    p=$(pidof_mode "$m")
    c0=$(ticks "$p")
    ms=$(curl_median "http://127.0.0.1:$(portof "$m")/metrics") || ms=nan
    c1=$(ticks "$p")
    cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$HZ" -v k="$K" 'BEGIN {printf "%.2f", (b - a) / hz * 1000 / (k + 1)}')
    echo "$r $m $ms $cpu" >>"$TMP/rounds"
    line="$line $m=${ms}ms"
  done
  echo "round $line"
  r=$((r + 1))
done
printf '%-16s %10s %10s %14s %14s\n' mode median_ms cpu_ms x_process_all "(range)"
for m in $MODES; do
  ms=$(awk -v m="$m" '$2 == m { print $3 }' "$TMP/rounds" | median)
  cpu=$(awk -v m="$m" '$2 == m { print $4 }' "$TMP/rounds" | median)
  awk -v m="$m" '{ ms[$1, $2] = $3 } $2 == m { rs[$1] = 1 }
    END { for (r in rs) if (ms[r, "process-all"] > 0) print ms[r, m] / ms[r, "process-all"] }' "$TMP/rounds" |
    sort -g | awk -v m="$m" -v ms="$ms" -v cpu="$cpu" '{ a[NR] = $1 }
      END { printf "%-16s %10.3f %10.2f %14.3f %8.3f-%.3f\n", m, ms, cpu, a[int((NR + 1) / 2)], a[1], a[NR] }'
done
