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
# config, tool, median wall ms, its ratio to the floor, median CPU ms (user +
# system, every thread of the measuring process, or of the command run), its
# ratio to the floor's CPU, us per process, us per thread.
# Environment: N_LIST (default "100 1000 5000"), T_LIST ("1 10"), K (11),
# TOOLS (default below), FLOOR_THREADS (2: the threads of floor-par),
# RAISE_PID_MAX (1: as root, raise pid_max for a configuration that needs
# more tasks, and put it back at the end; 0: skip such configurations).
# Ratios are to the floor row above: floor (every process and thread file,
# one thread) for the whole-snapshot rows, floor-proc (the Process object's
# files only) for the engine-proc rows and pcp, which read no per-thread
# files. The perfproc and engine rows read /proc (PERFLIB_PERFPROC_SOURCE=proc):
# a tool name ending in -bpf is the same row with PerfProc's BPF source
# (PERFLIB_PERFPROC_SOURCE=bpf: root, and the source built; the row says so
# when it cannot run), docs/providers/perfproc.md "The BPF source". A tool
# name ending in -1 is the same row with PerfProc's reader pool
# set to 1 (PERFLIB_PERFPROC_WORKERS=1: the single-threaded collection); the
# others use the pool's default (docs/providers/perfproc.md). The tool "mix"
# prints five rows, mix:floor, mix:floor-par, mix:perfproc, mix:perfproc-1,
# mix:perfproc-bpf, measured in turn within each of K rounds of one process
# (bench_snapshot mix), so a load that changes during the run weighs on them
# alike; its ratios are to mix:floor. engine-costly adds the costly Image and Process
# Address Space objects ("230 232 740 786": every process's maps and
# smaps_rollup too); its ratios are to the floor above it, which does not
# read those files.
# Build BUILD_DIR without sanitizers for meaningful numbers (docs/benchmarks.md).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/build-tree.sh"
N_LIST=${N_LIST:-"100 1000 5000"}
T_LIST=${T_LIST:-"1 10"}
K=${K:-11}
TOOLS=${TOOLS:-"floor floor-par perfproc perfproc-1 perfproc-bpf engine engine-1 engine-bpf ps ps-threads top floor-proc engine-proc engine-proc-1 engine-proc-bpf pcp engine-costly engine-costly-1 mix"}
FLOOR_THREADS=${FLOOR_THREADS:-2}
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
# 5000 x 10 needs 55,000 tasks, more than the usual pid_max of 32768: as
# root the limit is raised for the run and put back at the end
# (RAISE_PID_MAX=0 skips such configurations instead).
RAISE_PID_MAX=${RAISE_PID_MAX:-1}
PID_MAX_WAS=
restore_pid_max() {
  if [ -n "$PID_MAX_WAS" ]; then
    echo "$PID_MAX_WAS" >/proc/sys/kernel/pid_max 2>/dev/null &&
      echo "# pid_max put back to $PID_MAX_WAS"
    PID_MAX_WAS=
  fi
}
trap 'cleanup; restore_pid_max; rm -rf "$STORE_DIR"' EXIT
trap 'cleanup; restore_pid_max; exit 130' INT TERM HUP


threads_max=$(cat /proc/sys/kernel/threads-max 2>/dev/null || echo 0)
pid_max=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 0)
nproc_limit=$(ulimit -u 2>/dev/null || echo unlimited)
used_tasks=$(ls -d /proc/[0-9]*/task/[0-9]* 2>/dev/null | wc -l)

# The machine's state: the figures only mean something next to it.
echo "# $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start, K=$K," \
  "floor-par threads $FLOOR_THREADS, PerfProc readers ${PERFLIB_PERFPROC_WORKERS:-default}"
printf '%-12s %-13s %10s %8s %9s %6s %10s %10s %8s %8s\n' config tool median_ms x_floor cpu_ms x_cpu us/proc us/thread \
  procs threads
for N in $N_LIST; do
  for T in $T_LIST; do
    need=$((N * T + N))
    if [ "$RAISE_PID_MAX" != 0 ] && [ "$(id -u)" = 0 ] && [ $((need + used_tasks + 512)) -gt "$pid_max" ]; then
      want=$(( (need + used_tasks + 512) * 2 ))
      [ "$want" -gt 4194304 ] && want=4194304
      [ -z "$PID_MAX_WAS" ] && PID_MAX_WAS=$pid_max
      if echo "$want" >/proc/sys/kernel/pid_max 2>/dev/null; then
        echo "# pid_max raised from $PID_MAX_WAS to $want for ${N}x${T} (put back at the end)"
        pid_max=$want
      fi
    fi
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
    floor_cpu=
    for tool in $TOOLS; do
      procs=-; threads=-
      # -1: the same row with one PerfProc reader (no threads); -bpf: the
      # BPF source; every other PerfProc row reads /proc
      readers=
      source=proc
      case $tool in *-1) readers=1 ;; *-bpf) source=bpf ;; esac
      base=${tool%-1}
      base=${base%-bpf}
      if [ "$tool" = mix ]; then
        "$SNAP" mix "$K" "$SO" "$FLOOR_THREADS" | while read -r name rest; do
          case $rest in skipped:*) printf '%-12s %-13s %s\n' "${N}x${T}" "mix:$name" "$rest"; continue ;; esac
          ms=$(echo "$rest" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
          cpu=$(echo "$rest" | sed -n 's/.*cpu_ms=\([0-9.]*\).*/\1/p')
          p=$(echo "$rest" | sed -n 's/.*processes=\([0-9]*\).*/\1/p')
          th=$(echo "$rest" | sed -n 's/.*threads=\([0-9]*\).*/\1/p')
          [ "$name" = floor ] && { mf=$ms; mc=$cpu; }
          awk -v c="${N}x${T}" -v t="mix:$name" -v ms="$ms" -v f="$mf" -v cpu="$cpu" -v fc="$mc" -v p="$p" \
            -v th="$th" 'BEGIN {
            printf "%-12s %-13s %10.3f %8.2f %9.3f %6.2f %10.2f %10.2f %8s %8s\n", c, t, ms, ms / f, cpu, cpu / fc,
              ms * 1000 / p, ms * 1000 / th, p, th }'
        done
        continue
      fi
      case $base in
        floor|floor-par|perfproc|engine|floor-proc|engine-proc|engine-costly|pcp)
          case $base in
            floor|floor-proc) line=$("$SNAP" "$base" "$K") ;;
            floor-par) line=$("$SNAP" floor-par "$K" "$FLOOR_THREADS") ;;
            perfproc) line=$(env ${readers:+PERFLIB_PERFPROC_WORKERS=$readers} PERFLIB_PERFPROC_SOURCE=$source \
                               "$SNAP" perfproc "$K" "$SO" 2>&1) ;;
            engine|engine-proc|engine-costly)
              line=$(env ${readers:+PERFLIB_PERFPROC_WORKERS=$readers} PERFLIB_PERFPROC_SOURCE=$source \
                       "$SNAP" "$base" "$K" "$STORE" "$BUILD/providers" 2>&1) ;;
            pcp)
              if [ ! -x "$BUILD/bench/pcp_fetch" ]; then
                printf '%-12s %-13s skipped: built without libpcp (install libpcp3-dev and rebuild)\n' "${N}x${T}" pcp
                continue
              fi
              if ! line=$("$BUILD/bench/pcp_fetch" "$K" 2>"$STORE_DIR/pcp.err"); then
                printf '%-12s %-13s skipped: %s (a pmcd must run: as root, /etc/init.d/pmcd start)\n' "${N}x${T}" pcp \
                  "$(head -n1 "$STORE_DIR/pcp.err")"
                continue
              fi ;;
          esac
          ;;
        ps) line=$("$SNAP" exec "$K" ps -eo pid,ppid,comm,rss,vsz,time,nlwp) ;;
        ps-threads) line=$("$SNAP" exec "$K" ps -eLo pid,lwp,ppid,comm,rss,vsz,time) ;;
        top)
          if command -v top >/dev/null 2>&1; then line=$("$SNAP" exec "$K" top -b -n1 -w 512)
          else printf '%-12s %-13s not installed\n' "${N}x${T}" top; continue; fi ;;
        *) continue ;;
      esac
      ms=$(echo "$line" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
      cpu=$(echo "$line" | sed -n 's/.*cpu_ms=\([0-9.]*\).*/\1/p')
      procs=$(echo "$line" | sed -n 's/.*processes=\([0-9]*\).*/\1/p')
      threads=$(echo "$line" | sed -n 's/.*threads=\([0-9]*\).*/\1/p')
      [ -n "$ms" ] || { printf '%-12s %-13s failed: %s\n' "${N}x${T}" "$tool" "$line"; continue; }
      [ -n "$procs" ] || procs=-
      [ -n "$threads" ] || threads=-
      # Ratios are to the floor above the row: floor for the whole snapshot,
      # floor-proc for the Process-only rows (engine-proc, pcp).
      case $tool in floor|floor-proc) floor_ms=$ms; floor_cpu=$cpu; fl_procs=$procs; fl_threads=$threads ;; esac
      [ "$procs" = - ] && procs=${fl_procs:-$N}
      [ "$threads" = - ] && threads=${fl_threads:-$((N * T))}
      case $tool in floor-proc|engine-proc*|pcp) threads=- ;; esac
      awk -v c="${N}x${T}" -v t="$tool" -v ms="$ms" -v f="${floor_ms:-0}" -v cpu="${cpu:-0}" -v fc="${floor_cpu:-0}" \
        -v p="$procs" -v th="$threads" 'BEGIN {
        r = (f > 0) ? sprintf("%.2f", ms / f) : "-";
        rc = (fc > 0) ? sprintf("%.2f", cpu / fc) : "-";
        up = (p + 0 > 0) ? sprintf("%.2f", ms * 1000 / p) : "-";
        ut = (th + 0 > 0) ? sprintf("%.2f", ms * 1000 / th) : "-";
        printf "%-12s %-13s %10.3f %8s %9.3f %6s %10s %10s %8s %8s\n", c, t, ms, r, cpu, rc, up, ut, p, th }'
    done
    cleanup
    sleep 1
  done
done
