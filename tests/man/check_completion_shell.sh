#!/usr/bin/env bash
# The bash completion in a real interactive bash (tmux): typeperf paths typed
# in single quotes, double quotes, escaped, or bare, and instance names, are
# completed into words the shell hands to typeperf intact -- each completed
# command is then run and typeperf's CSV header must name the path.
#   check_completion_shell.sh SOURCE_DIR TYPEPERF_DIR
set -uo pipefail
src=$1 bin=$2
command -v tmux >/dev/null || { echo "FAIL: tmux is not installed (scripts/deps.sh test)"; exit 1; }
sock=plcomp$$
dir=$(mktemp -d)
trap 'tmux -L $sock kill-server >/dev/null 2>&1; rm -rf "$dir"' EXIT
cat >"$dir/rc" <<RC
PS1='\$ '
export PATH=$bin:\$PATH
source $src/scripts/completion/perflib.bash
RC
tmux -L "$sock" -f /dev/null new-session -d -s c -x 200 -y 50 "bash --noprofile --rcfile $dir/rc -i" || exit 1
fail=0
screen() { tmux -L "$sock" capture-pane -p -J -t c; }
# wait_for TEXT: up to 30 s for TEXT on the screen (a loaded machine)
wait_for() {
  local i
  for i in $(seq 300); do screen | grep -qF -- "$1" && return 0; sleep 0.1; done
  return 1
}
# check NAME KEYS... -- WANT: type KEYS (tmux send-keys words, literal text
# with -l), then WANT must appear on the screen
run_case() {
  local name=$1 typed=$2 want_line=$3 want_out=$4
  tmux -L "$sock" send-keys -t c C-c
  tmux -L "$sock" send-keys -t c "clear" Enter
  sleep 0.3
  tmux -L "$sock" send-keys -t c -l "$typed"
  tmux -L "$sock" send-keys -t c Tab
  if ! wait_for "$want_line"; then
    echo "FAIL: $name: typed [$typed] + Tab; wanted [$want_line] on the line; the screen:"; screen | grep -v '^$'
    fail=1; return
  fi
  tmux -L "$sock" send-keys -t c -l " -sc 1"
  tmux -L "$sock" send-keys -t c Enter
  if ! wait_for "$want_out"; then
    echo "FAIL: $name: the completed command did not give typeperf [$want_out]; the screen:"; screen | grep -v '^$'
    fail=1; return
  fi
  echo "ok: $name"
}
# two Tabs list the candidates; WANT among them
list_case() {
  local name=$1 typed=$2 want=$3
  tmux -L "$sock" send-keys -t c C-c
  tmux -L "$sock" send-keys -t c "clear" Enter
  sleep 0.3
  tmux -L "$sock" send-keys -t c -l "$typed"
  tmux -L "$sock" send-keys -t c Tab
  sleep 1
  tmux -L "$sock" send-keys -t c Tab Tab
  if wait_for "$want"; then echo "ok: $name"; else
    echo "FAIL: $name: typed [$typed] + Tab Tab; wanted [$want] listed; the screen:"; screen | grep -v '^$'; fail=1
  fi
}
tmux -L "$sock" send-keys -t c -l "echo READY-\$BASH_VERSION"; tmux -L "$sock" send-keys -t c Enter
wait_for "READY-5" || { echo "FAIL: the interactive bash did not start; the screen:"; screen; exit 1; }
hdr='\Memory\Available MBytes"'
run_case "single quotes" "typeperf '\\Memory\\Available MB" "typeperf '\\Memory\\Available MBytes'" "$hdr"
run_case "double quotes" 'typeperf "\Memory\Available MB' 'typeperf "\\Memory\\Available MBytes"' "$hdr"
run_case "escaped" 'typeperf \\Memory\\Available\ MB' 'typeperf \\Memory\\Available\ MBytes' "$hdr"
run_case "bare backslashes" 'typeperf \Memory\Available\ MB' 'typeperf \\Memory\\Available\ MBytes' "$hdr"
# an object alone completes to its next level, never a closed half path
tmux -L "$sock" send-keys -t c C-c; tmux -L "$sock" send-keys -t c "clear" Enter; sleep 0.3
tmux -L "$sock" send-keys -t c -l "typeperf '\\Memo"; tmux -L "$sock" send-keys -t c Tab
if wait_for "typeperf '\\Memory\\" && ! screen | grep -qF "typeperf '\\Memory\\'"; then echo "ok: object level"; else
  echo "FAIL: object level: the screen:"; screen | grep -v '^$'; fail=1; fi
# instances: listed, then completed (the shell running this test is a bash)
list_case "instances listed" "typeperf '\\Process(ba" '\Process(bash)\'
run_case "instance path" "typeperf '\\Process(bash)\\% Proc" "typeperf '\\Process(bash)\\% Processor Time'" '\Process(bash)\% Processor Time"'
exit $fail
