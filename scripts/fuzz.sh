#!/usr/bin/env bash
# A longer fuzzing run of one libFuzzer target: scripts/fuzz.sh TARGET [SECONDS]
# (TARGET: a directory of tests/fuzz/corpus: reader, ini, backup, pdh_path, ...)
# Builds build/fuzz (clang, ASan+UBSan+libFuzzer) when needed. Crashes are
# written to build/fuzz/tests/fuzz/ as crash-* files.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh TARGET [SECONDS] (TARGET: one of tests/fuzz/corpus/*)}
secs=${2:-600}
if [ ! -d "tests/fuzz/corpus/$target" ] || [ ! -f "tests/fuzz/fuzz_$target.c" ]; then
  echo "unknown target $target (one of: $(ls tests/fuzz/corpus | tr '\n' ' '))" >&2
  exit 1
fi
scripts/deps.sh test
cmake -S . -B build/fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPL_FUZZ=ON >/dev/null
cmake --build build/fuzz --target "fuzz_$target"
dir=build/fuzz/tests/fuzz
mkdir -p "$dir/corpus-$target-long"
cd "$dir"
exec "./fuzz_$target" -max_total_time="$secs" -rss_limit_mb=2048 -artifact_prefix=./ \
  "corpus-$target-long" "../../../../tests/fuzz/corpus/$target"
