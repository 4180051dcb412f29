# Sourced by bench/run-*.sh (after HERE=the bench directory), with the
# script's own arguments: BUILD is the build directory given as the first
# argument, or else build/bench, configured and built here as an optimised
# tree without sanitizers or tests (the Debian build dependencies installed
# first), so that each run-*.sh alone is the whole benchmark.
if [ $# -ge 1 ]; then
  BUILD=$1
else
  BUILD=$HERE/../build/bench
  "$HERE/../scripts/deps.sh" build || exit 1
  cmake -S "$HERE/.." -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPL_TESTS=OFF >/dev/null || exit 1
  cmake --build "$BUILD" >/dev/null || exit 1
fi
