#!/usr/bin/env bash
# scripts/run.sh, the README's main command, must never fail in silence: a
# step that fails (configure, build) is named, its error is shown and the
# exit status is non-zero. A stand-in cmake (first on PATH) fails the way a
# real one does, in a copy of the scripts, so nothing real is built here.
#   check_run_failures.sh SOURCE_DIR
set -uo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree/scripts" "$tmp/bin"
cp "$src/scripts/run.sh" "$src/scripts/deps.sh" "$tmp/tree/scripts/"
fail=0
# MODE: configure | build
cat >"$tmp/bin/cmake" <<'FAKE'
#!/bin/sh
case "$1" in
  --build)
    [ "$PL_FAKE_FAIL" = build ] || exit 0
    echo "[1/40] Building C object lib/common/x.c.o"
    echo "[2/40] Building C object lib/common/y.c.o"
    echo "FAILED: lib/common/y.c.o"
    echo "y.c:3:9: error: expected expression before ';' token"
    echo "npm ERR! network request to https://registry.npmjs.org failed"
    echo "ninja: build stopped: subcommand failed."
    exit 1 ;;
  *)
    [ "$PL_FAKE_FAIL" = configure ] || exit 0
    echo "-- Checking for module 'libmicrohttpd'"
    echo "CMake Error at lib/CMakeLists.txt:7 (pkg_check_modules):"
    echo "  A required package was not found"
    exit 1 ;;
esac
FAKE
chmod +x "$tmp/bin/cmake"
check() { # MODE WANT...: run.sh exits non-zero and stderr has every WANT
  local mode=$1; shift
  local out rc
  out=$(cd "$tmp/tree" && PATH="$tmp/bin:$PATH" PL_FAKE_FAIL=$mode scripts/run.sh 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" -eq 0 ]; then echo "FAIL: $mode: run.sh exited 0"; fail=1; fi
  local w
  for w in "$@"; do
    if ! grep -qF -- "$w" <<<"$out"; then echo "FAIL: $mode: no [$w] in:"; echo "$out"; fail=1; fi
  done
  [ $fail -eq 0 ] && echo "ok: $mode"
}
check configure "step 'configure' failed" "A required package was not found" "build/logs/configure.log"
check build "step 'build' failed" "error: expected expression" "npm ERR! network request" "building 2% (1 of 40)" \
  "build/logs/build.log"
exit $fail
