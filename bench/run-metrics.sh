#!/bin/sh
# bench/run-metrics.sh -- perfd's /metrics with Process and Thread against
# the local snapshot of the same objects, side by side, and the
# Prometheus-side peers.
#
#   bench/run-metrics.sh [BUILD_DIR]
#
# Without BUILD_DIR it builds an optimised tree in build/bench first. With N
# idle processes of T threads (bench/spawn_idle), in R rounds, each round
# timing in turn the median of K of each (one keep-alive curl, the first
# transfer dropped), so that a machine whose load changes weighs on all
# alike:
#   engine        the local engine's snapshot "230 232" (bench_snapshot)
#   metrics-pt    perfd /metrics with metrics_objects = Process, Thread
#                 (collects "230 232" alone; snapshot_max_age_ms=0, so
#                 every scrape is a fresh collection), plain text
#   metrics-pt-gz the same with Accept-Encoding: gzip (what Prometheus sends)
# (all with PerfProc reading /proc: PERFLIB_PERFPROC_SOURCE=proc). Each
# round prints its ratios to the engine; the summary gives the median
# and the range of the rounds' ratios (issue 24's goal: metrics-pt <= 1.3 x
# engine), the answer's size plain and gzipped, and perfd's memory after
# the rounds (VmRSS, and VmHWM, its peak) just after and 2 s later, once
# the worker has given back what it no longer needs (goal: RSS <= 10 MB at
# 1,000 processes). Then once: every Global object (metrics-all, plain and gzip),
# `prometheus-node-exporter --collector.processes` and PCP pmproxy when they
# are there, and bench_foreign ("Foreign 127.0.0.1:PORT 230 232" against the
# local "230 232"). The -bpf rows are the same with PerfProc's BPF source
# (root; docs/providers/perfproc.md), and query-pt / query-pt-bpf are the
# raw Process+Thread snapshot, GET /v1/query?q=230%20232, with its perfd's
# CPU per scrape (utime+stime over the K scrapes, from /proc) -- the
# Process+Thread scrape at 10,000 processes of issue 28: N=10000. Their
# ratios are to the median of the rounds' engine rows.
# Environment: N (1000), T (1), K (11), R (5).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/build-tree.sh"
. "$HERE/lib.sh"
N=${N:-1000}
T=${T:-1}
K=${K:-11}
R=${R:-5}
SPAWN=$BUILD/bench/spawn_idle
SNAP=$BUILD/bench/bench_snapshot
PERFD=$BUILD/tools/perfd/perfd
need_exec "$SPAWN" "$SNAP" "$PERFD"
command -v curl >/dev/null || { echo "curl is needed (Debian curl)" >&2; exit 1; }

TMP=$(mktemp -d)
STORE=$TMP/perflib.db
SPAWN_PID= P1= P2= NE_PID=
cleanup() {
  for p in $P1 $P2 $NE_PID; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  P1= P2= NE_PID=
  if [ -n "$SPAWN_PID" ]; then kill -TERM "$SPAWN_PID" 2>/dev/null; wait "$SPAWN_PID" 2>/dev/null; SPAWN_PID=; fi
}
trap 'cleanup; rm -rf "$TMP"' EXIT
trap 'cleanup; exit 130' INT TERM HUP

size_of() { curl -s "$1" | awk '!/^#/ {n++} {b += length($0) + 1} END {printf "%d KB, %d samples", b / 1024, n}'; }
gz_size_of() { curl -s -H 'Accept-Encoding: gzip' -o "$TMP/gz" "$1" && wc -c <"$TMP/gz" | awk '{printf "%d KB gzipped", $1 / 1024}'; }
mem_of() { awk '/^VmRSS|^VmHWM/ {printf "%s %.1f MB  ", $1, $2 / 1024}' "/proc/$1/status"; }

# start_perfd LOG OBJECTS [SOURCE]: sets port and last_pid (SOURCE: PerfProc's, default proc)
start_perfd() {
  : >"$1"
  PERFLIB_REGISTRY=$STORE PERFLIB_PROVIDER_DIR=$BUILD/providers PERFLIB_PERFPROC_SOURCE=${3:-proc} \
    "$PERFD" --listen 127.0.0.1:0 --set snapshot_max_age_ms=0 --set "metrics_objects=$2" >"$1" 2>&1 &
  last_pid=$!
  i=0
  while [ "$i" -lt 100 ]; do
    port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$1" | head -1)
    [ -n "$port" ] && grep -q 'perfd: ready' "$1" && return 0
    sleep 0.1
    i=$((i + 1))
  done
  cat "$1" >&2
  return 1
}

fifo=$TMP/ready
mkfifo "$fifo"
"$SPAWN" "$N" "$T" >"$fifo" &
SPAWN_PID=$!
read -r ready pg <"$fifo" || true
[ "${ready:-}" = ready ] || { echo "spawn_idle $N $T failed" >&2; exit 1; }
procs=$(ls -d /proc/[0-9]* 2>/dev/null | wc -l)
echo "/metrics benchmark: $N idle processes x $T threads ($procs processes on the machine), R=$R rounds of K=$K"

start_perfd "$TMP/p1.log" "Process, Thread" || { echo "perfd did not start" >&2; exit 1; }
P1=$last_pid
u="http://127.0.0.1:$port/metrics"
curl -s -o /dev/null "$u" # the providers opened, the worker started
printf '%-6s %10s %12s %15s %8s %8s\n' round engine_ms metrics_pt_ms metrics_pt_gz_ms x_plain x_gzip
r=1
: >"$TMP/ratios"
while [ "$r" -le "$R" ]; do
  e=$(PERFLIB_PERFPROC_SOURCE=proc "$SNAP" engine "$K" "$STORE" "$BUILD/providers" |
    sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
  m=$(curl_median "$u") || m=nan
  g=$(curl_median "$u" -H 'Accept-Encoding: gzip') || g=nan
  echo "$r $e $m $g" | awk '{ printf "%-6s %10.3f %12.3f %15.3f %8.2f %8.2f\n", $1, $2, $3, $4, $3 / $2, $4 / $2 }'
  echo "$e $m $g" | awk '{ print $2 / $1, $3 / $1, $1 }' >>"$TMP/ratios"
  r=$((r + 1))
done
# median (min-max) of column $1 of the ratios
med_range() { awk -v c="$1" '{ print $c }' "$TMP/ratios" | sort -g |
  awk '{ a[NR] = $1 } END { printf "%.2f (%.2f-%.2f)", a[int((NR + 1) / 2)], a[1], a[NR] }'; }
echo "metrics-pt / engine: median $(med_range 1); gzip: median $(med_range 2)"
echo "answer: $(size_of "$u"), $(gz_size_of "$u")"
echo "perfd (Process, Thread) just after: $(mem_of "$P1")"
sleep 2 # the worker gives memory back a second after its last job
echo "perfd (Process, Thread) 2 s later: $(mem_of "$P1")"
# the Foreign client against the local engine, same query, same perfd
if [ -x "$BUILD/bench/bench_foreign" ]; then
  echo "foreign: $(PERFLIB_REGISTRY=$STORE PERFLIB_PROVIDER_DIR=$BUILD/providers PERFLIB_REMOTE_CONFIG=/dev/null \
    PERFLIB_PERFPROC_SOURCE=proc "$BUILD/bench/bench_foreign" "127.0.0.1:$port" "$K" "230 232")"
fi
kill -TERM "$P1"; wait "$P1" 2>/dev/null; P1=

# The BPF source, and the raw snapshot through perfd, against the rounds'
# median engine row.
engine_ms=$(awk '{ print $3 }' "$TMP/ratios" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
bline=$(PERFLIB_PERFPROC_SOURCE=bpf "$SNAP" engine "$K" "$STORE" "$BUILD/providers" 2>&1)
engine_bpf_ms=$(echo "$bline" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
row() { # name ms [what]
  awk -v n="$1" -v ms="$2" -v e="$engine_ms" -v w="${3:-}" 'BEGIN {
    r = (e > 0 && ms != "nan" && ms != "") ? sprintf("%.2f", ms / e) : "-";
    printf "%-14s %10.3f %8s  %s\n", n, ms, r, w }'
}
printf '%-14s %10s %8s  %s\n' row median_ms x_engine answer
row engine "$engine_ms" '"230 232" block (median of the rounds)'
if [ -n "$engine_bpf_ms" ]; then row engine-bpf "$engine_bpf_ms" '"230 232" block, the BPF source'
else echo "engine-bpf     skipped: $bline"; fi
ticks() { awk '{sub(/.*\) /, ""); print $12 + $13}' "/proc/$1/stat" 2>/dev/null; }
HZ=$(getconf CLK_TCK)
# The raw Process+Thread snapshot through perfd, and perfd's CPU a scrape.
for src in proc bpf; do
  name=query-pt; [ "$src" = bpf ] && name=query-pt-bpf
  start_perfd "$TMP/q-$src.log" "Process, Thread" "$src" || { echo "$name       perfd did not start" >&2; continue; }
  QP=$last_pid
  u="http://127.0.0.1:$port/v1/query?q=230%20232"
  c0=$(ticks "$QP")
  ms=$(curl_median "$u")
  c1=$(ticks "$QP")
  bytes=$(curl -s "$u" | wc -c)
  cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$HZ" -v k="$K" 'BEGIN {printf "%.1f", (b - a) / hz * 1000 / (k + 1)}')
  if [ -n "$ms" ]; then row "$name" "$ms" "$((bytes / 1024)) KB; perfd $cpu ms CPU a scrape"
  else echo "$name       failed"; fi
  kill -TERM "$QP"; wait "$QP" 2>/dev/null
done

start_perfd "$TMP/p1b.log" "Process, Thread" bpf || { echo "perfd did not start" >&2; exit 1; }
P1=$last_pid
u="http://127.0.0.1:$port/metrics"
ms=$(curl_median "$u") && row metrics-pt-bpf "$ms" "$(size_of "$u")" || echo "metrics-pt-bpf failed"
kill -TERM "$P1"; wait "$P1" 2>/dev/null; P1=

start_perfd "$TMP/p2.log" all || { echo "perfd did not start" >&2; exit 1; }
P2=$last_pid
u="http://127.0.0.1:$port/metrics"
ms=$(curl_median "$u") && echo "metrics-all    $ms ms, $(size_of "$u")" || echo "metrics-all    failed"
ms=$(curl_median "$u" -H 'Accept-Encoding: gzip') && echo "metrics-all-gz $ms ms, $(gz_size_of "$u")" ||
  echo "metrics-all-gz failed"
sleep 2
echo "perfd (all) 2 s later: $(mem_of "$P2")"
kill -TERM "$P2"; wait "$P2" 2>/dev/null; P2=

NE=$(command -v prometheus-node-exporter || command -v node_exporter || true)
if [ -n "$NE" ]; then
  neport=19100
  while [ "$neport" -lt 19200 ] && curl -s -o /dev/null "http://127.0.0.1:$neport/"; do neport=$((neport + 1)); done
  "$NE" --web.listen-address="127.0.0.1:$neport" --collector.processes >"$TMP/ne.log" 2>&1 &
  NE_PID=$!
  i=0
  while [ "$i" -lt 50 ] && ! curl -s -o /dev/null "http://127.0.0.1:$neport/metrics"; do sleep 0.1; i=$((i + 1)); done
  u="http://127.0.0.1:$neport/metrics"
  ms=$(curl_median "$u") && echo "node_exporter  $ms ms, $(size_of "$u") (system-wide, --collector.processes)" ||
    echo "node_exporter  failed"
else
  echo "node_exporter  skipped: prometheus-node-exporter is not installed"
fi

if command -v pmproxy >/dev/null 2>&1 && curl -s -o /dev/null "http://127.0.0.1:44322/metrics?names=proc.psinfo.utime"; then
  u="http://127.0.0.1:44322/metrics?names=proc.psinfo.utime,proc.psinfo.stime,proc.memory.rss"
  ms=$(curl_median "$u") && echo "pmproxy        $ms ms, $(size_of "$u") (3 proc metrics)" || echo "pmproxy        failed"
else
  echo "pmproxy        skipped: PCP pmproxy (with pmcd) is not running on 127.0.0.1:44322"
fi
