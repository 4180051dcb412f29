#!/usr/bin/env bash
# Installs the Debian packages perflib needs when they are missing.
# Usage: scripts/deps.sh [build|test]   (test adds the test-only tools)
# As root it runs apt-get; otherwise it names what is missing and stops.
set -euo pipefail
what=${1:-build}
# One package a line, sorted, so that additions merge cleanly.
pkgs=(
  bpftool
  clang
  cmake
  gcc
  libbpf-dev
  libc6-dev
  libcurl4-gnutls-dev
  libdeflate-dev
  libgnutls28-dev
  libmicrohttpd-dev
  libncurses-dev
  libpq-dev
  libprotobuf-c-dev
  libsnappy-dev
  libsqlite3-dev
  libtdb-dev
  ninja-build
  pkg-config
  protobuf-c-compiler
  scdoc
  procps
  sqlite3
  zlib1g-dev
)
# The System Monitor page (web/) is built with node and npm; any install that
# gives both commands will do, else Debian's.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  pkgs+=(nodejs npm)
fi
if [ "$what" = test ]; then
  pkgs+=(
    chromium
    e2fsprogs
    fio
    g++
    gnutls-bin
    iproute2
    libclang-rt-14-dev
    libcmocka-dev
    libpcp-mmv1-dev
    llvm
    man-db
    mount
    postgresql
    prometheus
    stress-ng
    python3-samba
    samba
    sysstat
    systemd
    tmux
    tzdata
  )
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "perflib: missing Debian packages: ${missing[*]}" >&2
  echo "perflib: run as root once, or: apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "perflib: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 update -qq
apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
