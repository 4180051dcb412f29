#!/usr/bin/env bash
# Compiles every C file of the tree (library, providers, tools, tests,
# examples, benchmarks) in each build flavour the project offers, with gcc
# and with clang, warnings as errors: Debug, RelWithDebInfo, Release (-O3)
# and MinSizeRel. Compile only (no link, no web page): warnings such as
# -Wformat-truncation depend on the optimiser, so each flavour can fail
# where another passes. scripts/test.sh runs it; by hand:
#   scripts/flavours.sh                      # all of them
#   scripts/flavours.sh gcc:Release          # one
# Build trees: build/flavour-<compiler>-<type> (kept, so a second run is
# incremental).
set -euo pipefail
cd "$(dirname "$0")/.."
all=(gcc:Debug gcc:Release gcc:MinSizeRel clang:Debug clang:RelWithDebInfo clang:Release clang:MinSizeRel)
# gcc:RelWithDebInfo is build/gcc, which scripts/test.sh builds and tests.
[ $# -gt 0 ] && all=("$@")
failed=()
for f in "${all[@]}"; do
  cc=${f%%:*} type=${f#*:}
  dir=build/flavour-$cc-$type
  start=$(date +%s)
  cmake -S . -B "$dir" -G Ninja -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE="$type" >/dev/null
  mapfile -t objs < <(ninja -C "$dir" -t targets all | sed -n 's/^\([^:]*\.o\): .*/\1/p')
  if ninja -C "$dir" -k 0 "${objs[@]}" >"$dir/compile.log" 2>&1; then
    echo "flavours: $cc $type: ${#objs[@]} files compiled warning-free in $(($(date +%s) - start)) s"
  else
    grep -E -B2 -A6 'error|warning' "$dir/compile.log" | head -80 >&2
    echo "flavours: $cc $type: FAILED (whole log: $dir/compile.log)" >&2
    failed+=("$cc:$type")
  fi
done
[ ${#failed[@]} -eq 0 ] || { echo "flavours: failed: ${failed[*]}" >&2; exit 1; }
