#!/bin/sh
# bench/run-log.sh -- counter log figures (docs/benchmarks.md, docs/counter-log.md).
#
#   bench/run-log.sh [BUILD_DIR]
#
# Without BUILD_DIR it builds its own optimised tree in build/bench first.
# 1. Size: starts spawn_idle N T (default 1000 x 10), records S samples
#    (default 60) 1 s apart of the Process and Thread objects into a perflib
#    counter log, and prints bytes per value. When a Performance Co-Pilot
#    pmcd answers, pmlogger records the numeric per-process metrics of the
#    same processes (psinfo counters, memory sizes -- not proc.memory.maps,
#    the text of /proc/PID/maps --, io, schedstat; PCP lists no
#    threads unless proc.control.all.threads is set, which made pmlogger
#    stall here) for the same S samples, and the same figure is printed from
#    the archive's size and pmdumplog's value count.
# 2. Seek: builds (once) a log of SEEK_MB megabytes (default 1024) in
#    $SEEK_DIR (default build dir) and times opening it with and without its
#    index, and K (default 1001) seeks and seek+reads to random times.
# Environment: N, T, S, SEEK_MB, SEEK_DIR, K, SKIP (size|seek|pcp to skip).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/build-tree.sh"
N=${N:-1000}
T=${T:-10}
S=${S:-60}
K=${K:-1001}
SEEK_MB=${SEEK_MB:-1024}
SEEK_DIR=${SEEK_DIR:-$BUILD}
SKIP=${SKIP:-}
SPAWN=$BUILD/bench/spawn_idle
BL=$BUILD/bench/bench_log
for f in "$SPAWN" "$BL" "$BUILD/providers/libperfproc.so"; do
  [ -e "$f" ] || { echo "missing $f: build the tree first (cmake --build $BUILD)" >&2; exit 1; }
done
WORK=$(mktemp -d)
SPAWN_PID=
cleanup() {
  if [ -n "$SPAWN_PID" ]; then
    kill -TERM "$SPAWN_PID" 2>/dev/null
    wait "$SPAWN_PID" 2>/dev/null
    SPAWN_PID=
  fi
}
trap 'cleanup; rm -rf "$WORK"' EXIT
trap 'cleanup; exit 130' INT TERM HUP

case " $SKIP " in *" size "*) ;; *)
  fifo=$WORK/fifo
  mkfifo "$fifo"
  "$SPAWN" "$N" "$T" >"$fifo" &
  SPAWN_PID=$!
  if ! read -r ready pg <"$fifo" || [ "$ready" != ready ]; then
    echo "spawn_idle $N $T failed" >&2
    exit 1
  fi
  echo "size: $N idle processes x $T threads, $S samples 1 s apart"
  "$BL" record "$S" "$WORK/perflib.db" "$BUILD/providers" "$WORK/procs.plog" || exit 1
  case " $SKIP " in *" pcp "*) ;; *)
    if command -v pmlogger >/dev/null 2>&1 && pminfo -f pmcd.version >/dev/null 2>&1; then
      cat >"$WORK/pmlogger.conf" <<'CONF'
log mandatory on 1 sec {
  proc.psinfo.utime proc.psinfo.stime proc.psinfo.minflt proc.psinfo.majflt
  proc.psinfo.cmin_flt proc.psinfo.cmaj_flt proc.psinfo.priority proc.psinfo.nice
  proc.psinfo.threads proc.psinfo.start_time proc.psinfo.vsize proc.psinfo.rss
  proc.psinfo.processor proc.psinfo.ppid
  proc.memory.vmnonlib proc.memory.vmreal proc.memory.vmpte proc.memory.vmhwm
  proc.memory.vmpin proc.memory.vmpeak proc.memory.vmswap proc.memory.vmlib
  proc.memory.vmexe proc.memory.vmstack proc.memory.vmdata proc.memory.vmrss
  proc.memory.vmlock proc.memory.vmsize proc.memory.dirty proc.memory.datrss
  proc.memory.librss proc.memory.textrss proc.memory.share proc.memory.rss
  proc.memory.size
  proc.io
  proc.schedstat
}
CONF
      pmlogger -c "$WORK/pmlogger.conf" -s "$S" -t 1sec -l "$WORK/pmlogger.log" "$WORK/pcp" >/dev/null 2>&1
      data=$(cat "$WORK"/pcp.[0-9]* 2>/dev/null | wc -c)
      all=$(cat "$WORK"/pcp.* 2>/dev/null | wc -c)
      values=$(pmdumplog "$WORK/pcp" 2>/dev/null | grep -c ' value ')
      samples=$(pmdumplog -z "$WORK/pcp" 2>/dev/null | grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]+ +[0-9]+ metrics?')
      if [ "$values" -gt 0 ]; then
        awk -v d="$data" -v a="$all" -v v="$values" -v s="$samples" 'BEGIN {
          printf "pcp records=%d values_per_record=%d data_bytes=%d all_files_bytes=%d bytes_per_value=%.4f (all files %.4f)\n",
                 s, (s ? v / s : 0), d, a, d / v, a / v }'
      else
        echo "pcp skipped: pmlogger wrote no values (see $WORK/pmlogger.log)"
      fi
    else
      echo "pcp skipped: no Performance Co-Pilot pmcd answers on this machine"
    fi ;;
  esac
  cleanup ;;
esac

case " $SKIP " in *" seek "*) ;; *)
  echo "seek: a log of $SEEK_MB MB in $SEEK_DIR"
  "$BL" seek "$SEEK_MB" "$SEEK_DIR/seek-bench.plog" "$K" || exit 1 ;;
esac
