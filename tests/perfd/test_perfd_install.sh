#!/usr/bin/env bash
# cmake --install puts perfd, its systemd unit and its default config in
# place; the installed perfd accepts the installed config, and the unit
# starts the installed binary with it.
#   test_perfd_install.sh BUILD_DIR
set -euo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/stage
DESTDIR=$stage cmake --install "$build" --prefix /usr/local >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
prefix=$stage/usr/local
bin=$prefix/bin/perfd
unit=$prefix/lib/systemd/system/perfd.service
conf=$prefix/etc/perfd/perfd.conf
for f in "$bin" "$unit" "$conf" "$prefix/share/doc/perflib/perfd.md"; do
  [ -e "$f" ] || { echo "FAIL: $f was not installed"; exit 1; }
done
grep -qx 'ExecStart=/usr/local/bin/perfd --config /usr/local/etc/perfd/perfd.conf' "$unit" ||
  { echo "FAIL: the unit's ExecStart:"; grep ExecStart "$unit"; exit 1; }
grep -qx 'ExecReload=/bin/kill -HUP $MAINPID' "$unit" || { echo "FAIL: no SIGHUP reload in the unit"; exit 1; }
grep -qx 'DynamicUser=yes' "$unit" || { echo "FAIL: the unit runs as root"; exit 1; }
libdir=
for d in "$prefix"/lib "$prefix"/lib/*-linux-gnu; do
  if [ -e "$d/libperflib.so" ]; then libdir=$d; break; fi
done
[ -n "$libdir" ] || { echo "FAIL: no libperflib.so under $prefix"; exit 1; }
out=$(LD_LIBRARY_PATH=$libdir "$bin" --config "$conf" --check-config 2>&1) ||
  { echo "$out"; echo "FAIL: the installed config does not pass --check-config"; exit 1; }
echo "$out"
case $out in *"configuration OK (2 listen addresses, TLS off"*) ;; *) echo "FAIL: unexpected: $out"; exit 1 ;; esac
echo "install: perfd, perfd.service and perfd.conf in place and consistent"
