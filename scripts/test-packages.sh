#!/usr/bin/env bash
# The Debian packages, end to end (docs/packaging.md). Run as root:
#   scripts/test-packages.sh [WORKDIR]
# 1. builds the binary packages with dpkg-buildpackage from a clean export of
#    the committed tree (HEAD) and checks them with lintian (no error allowed);
# 2. makes a fresh Debian 12 root with debootstrap (minbase), installs the
#    packages there with apt (which brings their dependencies), and runs
#    `typeperf -sc 1` and `perfquery --summary` as root and as an ordinary
#    user;
# 3. installs the same packages again over themselves (an upgrade), removes
#    them (the store stays) and purges them (the store and the perfd user
#    go), and checks that no packaged file is left behind.
# Needs network access to the Debian archive (deb.debian.org) for
# debootstrap; takes a few minutes. Not part of scripts/test.sh (too slow
# for every CI run); its figures are in docs/packaging.md.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "test-packages: run as root (debootstrap, chroot)" >&2; exit 1; }
for p in dpkg-dev debhelper lintian debootstrap fakeroot; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$p" >/dev/null; }
done
scripts/deps.sh build
work=${1:-$(mktemp -d /tmp/perflib-pkg.XXXXXX)}
mkdir -p "$work"
root=$work/root
mounted=
cleanup() {
  if [ -n "$mounted" ]; then umount "$root/proc" 2>/dev/null || true; fi
}
trap cleanup EXIT
step() { printf '\n== %s (%ss)\n' "$1" "$SECONDS"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

step "build the packages"
version=$(dpkg-parsechangelog -S Version -l debian/changelog)
if [ "${REUSE_DEBS:-0}" = 1 ] && ls "$work"/src/*.deb >/dev/null 2>&1; then
  echo "reusing the packages in $work/src (REUSE_DEBS=1)"
else
  rm -rf "$work/src" && mkdir -p "$work/src"
  git archive --prefix="perflib-$version/" HEAD | tar -x -C "$work/src"
  (cd "$work/src/perflib-$version" && dpkg-buildpackage -b -us -uc >"$work/build.log" 2>&1) ||
    { tail -30 "$work/build.log"; fail "dpkg-buildpackage (log: $work/build.log)"; }
fi
debs=$(ls "$work"/src/*.deb | grep -v dbgsym)
echo "$debs"

step "lintian"
lintian --tag-display-limit 0 "$work"/src/*.changes | tee "$work/lintian.log" || true
grep -q '^E:' "$work/lintian.log" && fail "lintian reports errors"

step "debootstrap a fresh Debian 12 root"
if [ ! -x "$root/usr/bin/apt-get" ]; then
  debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log"; fail "debootstrap"; }
fi
mount -t proc proc "$root/proc"
mounted=1
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/tmp/debs" && cp $debs "$root/tmp/debs/"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }

step "install"
in_root apt-get update -qq
in_root sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /tmp/debs/*.deb' >"$work/install.log" 2>&1 ||
  { tail -20 "$work/install.log"; fail "apt-get install"; }
in_root test -f /var/lib/perflib/perflib.db || fail "the store was not seeded"
mode=$(in_root stat -c %a /var/lib/perflib/perflib.db)
[ "$mode" = 644 ] || fail "store mode $mode, not 644"
in_root getent passwd perfd >/dev/null || fail "no perfd system user"

step "run"
in_root typeperf "\\Processor(_Total)\\% Processor Time" -sc 2 | tee "$work/typeperf.out"
grep -q '_Total' "$work/typeperf.out" || fail "typeperf printed no counter"
in_root perfquery --summary | tee "$work/summary.out" | head -5
grep -qi 'process' "$work/summary.out" || fail "perfquery --summary shows no Process object"
chroot --userspec=nobody:nogroup "$root" /usr/bin/env -i PATH=/usr/bin:/bin perfquery --summary >/dev/null ||
  fail "perfquery as an ordinary user"
in_root perfd --check-config --config /etc/perfd/perfd.conf || fail "perfd --check-config"
in_root sh -c 'mkdir -p -m 0755 /tmp/samba-state && perflib-samba --state-dir /tmp/samba-state --once' ||
  fail "perflib-samba --once"
in_root test -f /tmp/samba-state/perfmon/names.tdb || fail "perflib-samba wrote no names.tdb"
in_root man -w typeperf >/dev/null 2>&1 || in_root test -f /usr/share/man/man1/typeperf.1.gz || fail "no typeperf man page"

step "upgrade over itself"
in_root sh -c 'DEBIAN_FRONTEND=noninteractive dpkg -i /tmp/debs/*.deb' >"$work/upgrade.log" 2>&1 ||
  { tail -20 "$work/upgrade.log"; fail "dpkg -i over itself"; }
in_root typeperf "\\Memory\\Available Bytes" -sc 1 >/dev/null || fail "typeperf after the upgrade"

step "remove: the store stays"
files=$(for d in $debs; do dpkg-deb -c "$d" | awk '{print $6}' | sed 's|^\./|/|' | grep -v '/$'; done)
in_root sh -c 'DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq perflib-samba perfd perflib-tools libperflib-dev libperflib0' \
  >"$work/remove.log" 2>&1 || { tail -20 "$work/remove.log"; fail "apt-get remove"; }
in_root test -f /var/lib/perflib/perflib.db || fail "remove deleted the store"
left=""
for f in $files; do
  case $f in /etc/*) continue ;; esac   # conffiles stay until purge
  [ -e "$root$f" ] && left="$left $f"
done
[ -z "$left" ] || fail "files left after remove:$left"

step "purge: the store and the user go"
# (dpkg: packages installed from files are unknown to apt once removed)
in_root dpkg --purge perflib-samba perfd perflib-tools libperflib-dev libperflib0 >"$work/purge.log" 2>&1 ||
  { tail -20 "$work/purge.log"; fail "dpkg --purge"; }
in_root test ! -e /var/lib/perflib || fail "purge left /var/lib/perflib"
in_root test ! -e /etc/perfd/perfd.conf || fail "purge left /etc/perfd/perfd.conf"
if in_root getent passwd perfd >/dev/null; then fail "purge left the perfd user"; fi
step "packages: built, lintian-clean, installed, run, upgraded, removed and purged"
