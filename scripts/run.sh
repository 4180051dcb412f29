#!/usr/bin/env bash
# The main job: build everything and print a summary of a Global snapshot,
# using the embedded default registry store in the build tree (no root needed
# once the packages are installed). Extra arguments go to perfquery, e.g.
#   scripts/run.sh Global        (the full PERFENUM-style dump)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh build
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPL_TESTS=OFF >/dev/null
cmake --build build/release >/dev/null
if [ $# -eq 0 ]; then set -- --summary; fi
exec build/release/tools/perfquery/perfquery "$@"
