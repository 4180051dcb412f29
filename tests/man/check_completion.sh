#!/usr/bin/env bash
# The bash completion completes typeperf paths from the machine's own lists
# (given back quoted for the shell), objects after -qx, and tool options.
# check_completion_shell.sh checks the same in a real interactive bash.
#   check_completion.sh SOURCE_DIR TYPEPERF_DIR
set -uo pipefail
export PATH=$2:$PATH
# shellcheck source=/dev/null
source "$1/scripts/completion/perflib.bash"
compopt() { :; }
fail=0
expect() { # WORDS... -- WANTED: the completion of the last word must include WANTED
  local want=${!#}
  local words=("${@:1:$#-2}")
  COMP_WORDS=("${words[@]}")
  COMP_CWORD=$((${#words[@]} - 1))
  COMPREPLY=()
  case ${words[0]} in
    typeperf) _perflib_typeperf ;;
    perfquery) _perflib_perfquery ;;
    lodctr) _perflib_lodctr ;;
    perflib-samba) _perflib_samba ;;
    *) _perflib_simple ;;
  esac
  local r
  for r in "${COMPREPLY[@]}"; do [ "$r" = "$want" ] && { echo "ok: ${words[*]} -> $want"; return; }; done
  echo "FAIL: ${words[*]} did not offer \"$want\" (got: ${COMPREPLY[*]:0:5})"
  fail=1
}
expect typeperf '\Proc' -- '\\Processor\('
expect typeperf '\Processor(_Total)\% P' -- '\\Processor\(_Total\)\\%\ Processor\ Time'
expect typeperf "'\\Processor(_Total)\\% P" -- '\Processor(_Total)\% Processor Time'
expect typeperf -qx Mem -- 'Memory'
expect typeperf -f '' -- 'CSV'
expect perfquery --su -- '--summary'
expect pview --no -- '--no-threads'
expect perfd --check -- '--check-config'
expect perflib-samba --state -- '--state-dir'
expect perflib-samba --objects Processor,Mem -- 'Processor,Memory'
exit $fail
