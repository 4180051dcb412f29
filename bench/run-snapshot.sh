#!/bin/sh
# bench/run-snapshot.sh -- the snapshot benchmark ("The objects people look at").
#
#   bench/run-snapshot.sh [BUILD_DIR]
#
# Without BUILD_DIR it configures and builds its own optimised tree in
# build/bench (no sanitizers, no tests) first, so this one command is the
# whole benchmark.
#
# For every configuration N processes x T threads (N in $N_LIST, T in $T_LIST)
# it starts N idle processes (bench/spawn_idle), times K snapshots of every
# process and thread with each tool, kills the processes, and prints a table:
# config, tool, median ms, ratio to the floor, us per process, us per thread.
# Environment: N_LIST (default "100 1000 5000"), T_LIST ("1 10"), K (11),
# TOOLS ("floor perfproc engine ps ps-threads top floor-proc engine-proc pcp").
# Ratios are to the floor row above: floor (every process and thread file)
# for the whole-snapshot rows, floor-proc (the Process object's files only)
# for engine-proc and pcp, which read no per-thread files.
# Build BUILD_DIR without sanitizers for meaningful numbers (docs/benchmarks.md).
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
N_LIST=${N_LIST:-"100 1000 5000"}
T_LIST=${T_LIST:-"1 10"}
K=${K:-11}
TOOLS=${TOOLS:-"floor perfproc engine ps ps-threads top floor-proc engine-proc pcp"}
SPAWN=$BUILD/bench/spawn_idle
SNAP=$BUILD/bench/bench_snapshot
SO=$BUILD/providers/libperfproc.so
for f in "$SPAWN" "$SNAP" "$SO"; do
  [ -e "$f" ] || { echo "missing $f: build the tree first (cmake --build $BUILD)" >&2; exit 1; }
done

STORE_DIR=$(mktemp -d)
STORE=$STORE_DIR/perflib.db
SPAWN_PID=
cleanup() {
  if [ -n "$SPAWN_PID" ]; then
    # spawn_idle takes its whole process group down on SIGTERM; children
    # that miss it exit when its pipe closes.
    kill -TERM "$SPAWN_PID" 2>/dev/null
    wait "$SPAWN_PID" 2>/dev/null
    SPAWN_PID=
  fi
}
trap 'cleanup; rm -rf "$STORE_DIR"' EXIT
trap 'cleanup; exit 130' INT TERM HUP

now_ns() { date +%s%N; }

# median of the numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "nan"}'; }

# time_cmd K cmd...: median wall time in ms of K runs of an external command
time_cmd() {
  k=$1; shift
  i=0
  while [ "$i" -lt "$k" ]; do
    a=$(now_ns); "$@" >/dev/null 2>&1; b=$(now_ns)
    echo "$(( (b - a) / 1000 ))"
    i=$((i + 1))
  done | median | awk '{printf "%.3f", $1/1000}'
}

threads_max=$(cat /proc/sys/kernel/threads-max 2>/dev/null || echo 0)
pid_max=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 0)
nproc_limit=$(ulimit -u 2>/dev/null || echo unlimited)
used_tasks=$(ls -d /proc/[0-9]*/task/[0-9]* 2>/dev/null | wc -l)

printf '%-12s %-11s %10s %8s %10s %10s %8s %8s\n' config tool median_ms x_floor us/proc us/thread procs threads
for N in $N_LIST; do
  for T in $T_LIST; do
    need=$((N * T + N))
    cap=$pid_max
    [ "$threads_max" -lt "$cap" ] && cap=$threads_max
    if [ "$nproc_limit" != unlimited ] && [ "$nproc_limit" -lt "$cap" ]; then cap=$nproc_limit; fi
    if [ $((need + used_tasks + 512)) -gt "$cap" ]; then
      printf '%-12s skipped: needs %d tasks, the limit is %d (pid_max %s, threads-max %s, RLIMIT_NPROC %s)\n' \
        "${N}x${T}" "$need" "$cap" "$pid_max" "$threads_max" "$nproc_limit"
      continue
    fi
    fifo=$(mktemp -u)
    mkfifo "$fifo"
    "$SPAWN" "$N" "$T" >"$fifo" &
    SPAWN_PID=$!
    if ! read -r ready pg <"$fifo" || [ "$ready" != ready ]; then
      rm -f "$fifo"
      echo "${N}x${T}: spawn_idle failed" >&2
      cleanup
      continue
    fi
    rm -f "$fifo"
    floor_ms=
    for tool in $TOOLS; do
      procs=-; threads=-
      case $tool in
        floor|perfproc|engine|floor-proc|engine-proc|pcp)
          case $tool in
            floor|floor-proc) line=$("$SNAP" "$tool" "$K") ;;
            perfproc) line=$("$SNAP" perfproc "$K" "$SO") ;;
            engine|engine-proc) line=$("$SNAP" "$tool" "$K" "$STORE" "$BUILD/providers") ;;
            pcp)
              if [ ! -x "$BUILD/bench/pcp_fetch" ]; then
                printf '%-12s %-11s skipped: built without libpcp (install libpcp3-dev and rebuild)\n' "${N}x${T}" pcp
                continue
              fi
              if ! line=$("$BUILD/bench/pcp_fetch" "$K" 2>/dev/null); then
                printf '%-12s %-11s skipped: no Performance Co-Pilot pmcd answers on this machine\n' "${N}x${T}" pcp
                continue
              fi ;;
          esac
          ms=$(echo "$line" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
          procs=$(echo "$line" | sed -n 's/.*processes=\([0-9]*\).*/\1/p')
          threads=$(echo "$line" | sed -n 's/.*threads=\([0-9]*\).*/\1/p')
          ;;
        ps) ms=$(time_cmd "$K" ps -eo pid,ppid,comm,rss,vsz,time,nlwp) ;;
        ps-threads) ms=$(time_cmd "$K" ps -eLo pid,lwp,ppid,comm,rss,vsz,time) ;;
        top)
          if command -v top >/dev/null 2>&1; then ms=$(time_cmd "$K" top -b -n1 -w 512)
          else printf '%-12s %-11s not installed\n' "${N}x${T}" top; continue; fi ;;
        *) continue ;;
      esac
      # Ratios are to the floor above the row: floor for the whole snapshot,
      # floor-proc for the Process-only rows (engine-proc, pcp).
      case $tool in floor|floor-proc) floor_ms=$ms; fl_procs=$procs; fl_threads=$threads ;; esac
      [ "$procs" = - ] && procs=${fl_procs:-$N}
      [ "$threads" = - ] && threads=${fl_threads:-$((N * T))}
      case $tool in floor-proc|engine-proc|pcp) threads=- ;; esac
      awk -v c="${N}x${T}" -v t="$tool" -v ms="$ms" -v f="${floor_ms:-0}" -v p="$procs" -v th="$threads" 'BEGIN {
        r = (f > 0) ? sprintf("%.2f", ms / f) : "-";
        up = (p + 0 > 0) ? sprintf("%.2f", ms * 1000 / p) : "-";
        ut = (th + 0 > 0) ? sprintf("%.2f", ms * 1000 / th) : "-";
        printf "%-12s %-11s %10.3f %8s %10s %10s %8s %8s\n", c, t, ms, r, up, ut, p, th }'
    done
    cleanup
    sleep 1
  done
done
