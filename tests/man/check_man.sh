#!/usr/bin/env bash
# A tool's --help and its man page cannot drift: every option the help names
# must be in the page's source (docs/man/TOOL.N.scd), and --version must
# answer with the project's version.
#   check_man.sh SOURCE_DIR VERSION TOOL=PATH...
set -uo pipefail
src=$1
version=$2
shift 2
fail=0
for pair in "$@"; do
  tool=${pair%%=*}
  bin=${pair#*=}
  page=$(ls "$src"/docs/man/"$tool".[0-9].scd 2>/dev/null | head -n1)
  if [ -z "$page" ]; then echo "FAIL: $tool has no man page source in docs/man"; fail=1; continue; fi
  help=$("$bin" --help 2>&1) || { echo "FAIL: $tool --help exits non-zero"; fail=1; }
  ver=$("$bin" --version 2>&1) || { echo "FAIL: $tool --version exits non-zero"; fail=1; }
  case $ver in *"$version"*) ;; *) echo "FAIL: $tool --version says \"$ver\", not $version"; fail=1 ;; esac
  # options: -x, --long, /x as words of the help text
  opts=$(printf '%s\n' "$help" | grep -oE '(^|[ ,{\[|(])(--?[A-Za-z][A-Za-z0-9-]*|/[a-z])([ ,:=\[]|$)' |
    sed -E 's/^[ ,{\[|(]//; s/[ ,:=\[]$//' | sort -u)
  n=0
  for o in $opts; do
    n=$((n + 1))
    # in the page as *-o*, *-o* _ARG_, *-o*:..., "*--opt*," ...
    esc=$(printf '%s' "$o" | sed 's/[][\\.*^$/]/\\&/g')
    if ! grep -qE "(\*|[ ,(|])${esc}([*:, =\[]|$)" "$page"; then
      echo "FAIL: $tool: option $o is in --help but not in $(basename "$page")"
      fail=1
    fi
  done
  [ "$n" -gt 0 ] || { echo "FAIL: $tool: no option found in --help"; fail=1; }
  echo "$tool: $n options in --help, all in $(basename "$page")"
done
exit $fail
