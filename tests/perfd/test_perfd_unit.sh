#!/bin/sh
# perfd.service (issue 23 finding 8), checked on the unit file alone: no
# systemd needs to run (systemd-analyze security --offline, systemd >= 252).
#   test_perfd_unit.sh BUILD_DIR
# Fails loudly when systemd-analyze is missing (Debian systemd,
# scripts/deps.sh test).
set -eu
unit=$1/tools/perfd/perfd.service
[ -s "$unit" ] || { echo "no $unit (build perfd first)" >&2; exit 1; }
command -v systemd-analyze >/dev/null 2>&1 || {
  echo "systemd-analyze not found: install Debian systemd (scripts/deps.sh test)" >&2; exit 1; }
fail() { echo "perfd.service: $*" >&2; exit 1; }
grep -q '^RestrictAddressFamilies=.*AF_NETLINK' "$unit" || fail "RestrictAddressFamilies lacks AF_NETLINK (PerfNet's netlink counters)"
grep -q '^SystemCallFilter=@system-service' "$unit" || fail "no system call filter"
nofile=$(sed -n 's/^LimitNOFILE=//p' "$unit")
# perfd asks for 2 x max_connections + 256 descriptors; max_connections <= 4096
[ -n "$nofile" ] && [ "$nofile" -ge $((2 * 4096 + 256)) ] || fail "LimitNOFILE=$nofile is below what max_connections may need"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$unit" "$dir/perfd.service"
out=$(systemd-analyze security --offline=true "$dir/perfd.service" 2>&1) || true
score=$(printf '%s\n' "$out" | sed -n 's/.*Overall exposure level for perfd.service: \([0-9.]*\).*/\1/p')
[ -n "$score" ] || { printf '%s\n' "$out" >&2; fail "systemd-analyze gave no score"; }
echo "systemd-analyze security --offline: $score"
# 2.0 or better (lower is better)
awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }' || { printf '%s\n' "$out" | grep '✗' >&2; fail "exposure $score, above 2.0"; }
