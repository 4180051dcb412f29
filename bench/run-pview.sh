#!/bin/sh
# bench/run-pview.sh -- what a process viewer costs, pview against top and
# htop in the same run (docs/benchmarks.md, "pview").
#
#   bench/run-pview.sh [BUILD_DIR]
#
# 1. CPU: with N idle processes (bench/spawn_idle, N in $N_LIST, default
#    2000), each viewer runs in its own tmux window (100x40) refreshing every
#    second (pview -d 1, top -d 1, htop -d 10) for $SECS seconds (default 20)
#    after a 3 s warm-up; its utime+stime over that window is printed as % of
#    one core. $REPS runs (default 3), median. pview runs three ways
#    (docs/pview.md, "Sources"): pview-proc reads /proc itself
#    (PERFLIB_PERFPROC_SOURCE=proc), pview-bpf collects with PerfProc's BPF
#    source (root; forced), pview-perfd runs as uid nobody (its PerfProc
#    would read /proc) with a perfd started here as root (the BPF source) on
#    127.0.0.1: its row is pview's CPU, and the perfd's over the same window
#    is printed beside it (the machine's cost is the sum).
# 2. First frame: with P processes x T threads (default 300 x 100, or as
#    many as pid_max allows), the time from starting each viewer until its
#    screen first shows a process table (polled every 10 ms in tmux).
# htop is installed from Debian when missing and this runs as root; a viewer
# that is absent is reported, not silently left out.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/build-tree.sh"
. "$HERE/lib.sh"
N_LIST=${N_LIST:-2000}
SECS=${SECS:-20}
REPS=${REPS:-3}
FF_P=${FF_P:-300}
FF_T=${FF_T:-100}
PVIEW=$BUILD/tools/pview/pview
PERFD=$BUILD/tools/perfd/perfd
SPAWN=$BUILD/bench/spawn_idle
need_exec "$PVIEW" "$SPAWN" "$PERFD"
VIEWERS=${VIEWERS:-"pview-proc pview-bpf pview-perfd top htop"}
command -v tmux >/dev/null || { echo "tmux is needed (apt-get install tmux)" >&2; exit 1; }
if ! command -v htop >/dev/null && [ "$(id -u)" = 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq htop >/dev/null 2>&1
fi
SOCK=pvbench$$
SPAWN_PID=
PERFD_PID=
PERFD_PORT=
PERFD_DIR=$(mktemp -d)
chmod 755 "$PERFD_DIR"
stop_perfd() {
  if [ -n "$PERFD_PID" ]; then
    kill -TERM "$PERFD_PID" 2>/dev/null
    wait "$PERFD_PID" 2>/dev/null
    PERFD_PID=
  fi
}
# A perfd on 127.0.0.1 (an ephemeral port), as root: its PerfProc uses the
# BPF source.
start_perfd() {
  "$PERFD" --listen 127.0.0.1:0 >"$PERFD_DIR/perfd.log" 2>&1 &
  PERFD_PID=$!
  for i in $(seq 200); do
    grep -q 'perfd: ready' "$PERFD_DIR/perfd.log" 2>/dev/null && break
    sleep 0.05
  done
  PERFD_PORT=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\)\/.*/\1/p' "$PERFD_DIR/perfd.log" | head -n1)
  [ -n "$PERFD_PORT" ] || { echo "perfd did not start: $(cat "$PERFD_DIR/perfd.log")" >&2; stop_perfd; return 1; }
}
cleanup() {
  tmux -L "$SOCK" kill-server 2>/dev/null
  stop_perfd
  if [ -n "$SPAWN_PID" ]; then
    kill -TERM "$SPAWN_PID" 2>/dev/null
    wait "$SPAWN_PID" 2>/dev/null
    SPAWN_PID=
  fi
}
trap 'cleanup; rm -rf "$PERFD_DIR"' EXIT
trap 'cleanup; exit 130' INT TERM HUP

spawn() { # N T
  FIFO=$(mktemp -u)
  mkfifo "$FIFO"
  "$SPAWN" "$1" "$2" >"$FIFO" &
  SPAWN_PID=$!
  read -r line <"$FIFO"
  rm -f "$FIFO"
  case $line in ready*) return 0 ;; *) echo "spawn_idle $1 $2 failed: $line" >&2; SPAWN_PID=; return 1 ;; esac
}

viewer_cmd() {
  case $1 in
    pview|pview-proc) echo "env PERFLIB_PERFPROC_SOURCE=proc $PVIEW -d 1 --no-perfd" ;;
    pview-bpf) echo "env PERFLIB_PERFPROC_SOURCE=bpf $PVIEW -d 1 --no-perfd" ;;
    pview-perfd) echo "setpriv --reuid=65534 --regid=65534 --clear-groups -- $PVIEW -d 1 --perfd 127.0.0.1:$PERFD_PORT" ;;
    top) echo "top -d 1" ;;
    htop) echo "htop -d 10" ;;
  esac
}

# utime+stime ticks of a pid
ticks() { awk '{sub(/.*\) /, ""); print $12 + $13}' "/proc/$1/stat" 2>/dev/null; }

# Quit a viewer with its own key (q), as a person would: a perflib consumer
# killed in the middle of a collection reads to the next one like a crash.
quit_viewer() {
  tmux -L "$SOCK" send-keys -t "$1" q 2>/dev/null
  for i in $(seq 100); do
    tmux -L "$SOCK" has-session -t "$1" 2>/dev/null || break
    sleep 0.05
  done
  tmux -L "$SOCK" kill-server 2>/dev/null
}


HZ=$(getconf CLK_TCK)
echo "pview benchmark: $(nproc) CPUs, $(uname -r), refresh 1 s, $SECS s windows, $REPS runs"
echo
echo "CPU of one core while refreshing every second"
printf '%-8s %-12s %10s %-24s %s\n' procs viewer "cpu_%" "runs" "(pview-perfd: the perfd's cpu_%, runs)"
pct() { awk -v a="$1" -v b="$2" -v hz="$HZ" -v s="$SECS" 'BEGIN {printf "%.2f", (b - a) / hz / s * 100}'; }
for N in $N_LIST; do
  spawn "$N" 1 || continue
  procs=$(ls /proc | grep -c '^[0-9]')
  for v in $VIEWERS; do
    if [ "$v" = pview-perfd ]; then
      [ "$(id -u)" = 0 ] || { printf '%-8s %-12s %10s\n' "$procs" $v "skipped: needs root"; continue; }
      start_perfd || continue
    fi
    if [ "$v" = pview-bpf ] && [ "$(id -u)" != 0 ]; then
      printf '%-8s %-12s %10s\n' "$procs" $v "skipped: needs root"
      continue
    fi
    cmd=$(viewer_cmd $v)
    first=${cmd%% *}
    [ "$first" = env ] && first=$PVIEW
    [ "$first" = setpriv ] && first=$PVIEW
    command -v "$first" >/dev/null || { printf '%-8s %-12s %10s\n' "$procs" $v "absent"; continue; }
    runs=""
    pruns=""
    for r in $(seq "$REPS"); do
      tmux -L "$SOCK" -f /dev/null new-session -d -s b -x 100 -y 40 "$cmd"
      sleep 3
      pid=$(tmux -L "$SOCK" list-panes -t b -F '#{pane_pid}')
      # the viewer itself, not setpriv or env (both exec it: the same pid)
      t0=$(ticks "$pid")
      [ -n "$PERFD_PID" ] && p0=$(ticks "$PERFD_PID")
      sleep "$SECS"
      t1=$(ticks "$pid")
      [ -n "$PERFD_PID" ] && p1=$(ticks "$PERFD_PID")
      quit_viewer b
      runs="$runs $(pct "$t0" "$t1")"
      [ -n "$PERFD_PID" ] && pruns="$pruns $(pct "$p0" "$p1")"
    done
    med=$(echo "$runs" | tr ' ' '\n' | grep . | median)
    if [ -n "$pruns" ]; then
      pmed=$(echo "$pruns" | tr ' ' '\n' | grep . | median)
      printf '%-8s %-12s %10s %-24s perfd %s (%s)\n' "$procs" $v "$med" "$runs" "$pmed" "$pruns"
    else
      printf '%-8s %-12s %10s %-24s\n' "$procs" $v "$med" "$runs"
    fi
    stop_perfd
  done
  cleanup
done

echo
pidmax=$(cat /proc/sys/kernel/pid_max)
want=$((FF_P * FF_T))
if [ $((want + 2000)) -gt "$pidmax" ]; then
  FF_T=$(((pidmax - 2000) / FF_P))
  echo "first frame: $FF_P x $FF_T threads (pid_max $pidmax allows no more)"
else
  echo "first frame: $FF_P x $FF_T threads"
fi
printf '%-8s %-6s %12s\n' threads viewer "first_ms"
if spawn "$FF_P" "$FF_T"; then
  threads=$(ps -eL --no-headers | wc -l)
  for v in pview-proc pview-bpf top htop; do
    cmd=$(viewer_cmd $v)
    [ "$v" = pview-bpf ] && [ "$(id -u)" != 0 ] && continue
    case $v in pview*) mark="Processes:" ;; top) mark="PID USER" ;; htop) mark="PID USER" ;; esac
    runs=""
    for r in $(seq "$REPS"); do
      t0=$(date +%s%N)
      tmux -L "$SOCK" -f /dev/null new-session -d -s f -x 120 -y 40 "$cmd"
      ms=timeout
      for i in $(seq 3000); do
        if tmux -L "$SOCK" capture-pane -p -t f 2>/dev/null | grep -q "$mark"; then
          ms=$((($(date +%s%N) - t0) / 1000000))
          break
        fi
        sleep 0.01
      done
      quit_viewer f
      runs="$runs $ms"
    done
    printf '%-8s %-6s %12s   runs:%s\n' "$threads" $v "$(echo "$runs" | tr ' ' '\n' | grep . | median)" "$runs"
  done
fi
