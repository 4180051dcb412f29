#!/usr/bin/env bash
# Install the build into a staging directory and build the example outside
# the tree (examples/installed) against it, with pkg-config and with the
# CMake package; run both programs on a fresh store.
#   test_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/stage
DESTDIR=$stage cmake --install "$build" --prefix /usr/local >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
prefix=$stage/usr/local
libdir=
for d in "$prefix"/lib "$prefix"/lib/*-linux-gnu; do
  if [ -e "$d/libperflib.so" ]; then libdir=$d; break; fi
done
[ -n "$libdir" ] || { echo "FAIL: no libperflib.so under $prefix"; exit 1; }
for f in "$libdir/pkgconfig/perflib.pc" "$libdir/pkgconfig/perflib-win32.pc" \
         "$libdir/cmake/perflib/perflibConfig.cmake" "$prefix/include/perflib/query.h" \
         "$prefix/include/win32/winperf.h"; do
  [ -e "$f" ] || { echo "FAIL: $f was not installed"; exit 1; }
done
export PKG_CONFIG_PATH=$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage
export LD_LIBRARY_PATH=$libdir
export PERFLIB_REGISTRY=$tmp/perflib.db PERFLIB_PROVIDER_DIR=$libdir/perflib/providers
cd "$tmp"
# shellcheck disable=SC2046
cc -std=c17 -Wall -Werror "$src/examples/installed/hello.c" -o hello $(pkg-config --cflags --libs perflib)
# shellcheck disable=SC2046
cc -std=c17 -Wall -Werror "$src/examples/installed/hello_win32.c" -o hello_win32 \
  $(pkg-config --cflags --libs perflib-win32)
out=$(./hello)
echo "pkg-config hello: $out"
case $out in *": "[1-9]*" objects in "*) ;; *) echo "FAIL: hello printed \"$out\""; exit 1 ;; esac
out=$(./hello_win32)
echo "pkg-config hello_win32: $out"
case $out in [1-9]*" objects, "*) ;; *) echo "FAIL: hello_win32 printed \"$out\""; exit 1 ;; esac
cmake -S "$src/examples/installed" -B cm -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >cm.log 2>&1 ||
  { cat cm.log; echo "FAIL: find_package(perflib)"; exit 1; }
cmake --build cm >>cm.log 2>&1 || { cat cm.log; echo "FAIL: building with perflib::perflib"; exit 1; }
out=$(cm/hello)
echo "cmake hello: $out"
case $out in *": "[1-9]*" objects in "*) ;; *) echo "FAIL: cmake hello printed \"$out\""; exit 1 ;; esac
out=$(cm/hello_win32)
echo "cmake hello_win32: $out"
case $out in [1-9]*" objects, "*) ;; *) echo "FAIL: cmake hello_win32 printed \"$out\""; exit 1 ;; esac
echo "install: pkg-config and CMake package both build and run"
