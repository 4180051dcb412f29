#!/usr/bin/env bash
# A longer fuzzing run of one libFuzzer target: scripts/fuzz.sh reader|ini [SECONDS]
# Builds build/fuzz (clang, ASan+UBSan+libFuzzer) when needed. Crashes are
# written to build/fuzz/tests/fuzz/ as crash-* files.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh reader|ini [SECONDS]}
secs=${2:-600}
case $target in reader|ini) ;; *) echo "unknown target $target (reader, ini)" >&2; exit 1 ;; esac
scripts/deps.sh test
cmake -S . -B build/fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPL_FUZZ=ON >/dev/null
cmake --build build/fuzz --target "fuzz_$target"
dir=build/fuzz/tests/fuzz
mkdir -p "$dir/corpus-$target-long"
cd "$dir"
exec "./fuzz_$target" -max_total_time="$secs" -rss_limit_mb=2048 -artifact_prefix=./ \
  "corpus-$target-long" "../../../../tests/fuzz/corpus/$target"
