#!/bin/sh
# bench/run-logwrite.sh -- write throughput of the counter log formats, side
# by side in one run (docs/benchmarks.md, docs/counter-log.md).
#
#   bench/run-logwrite.sh [BUILD_DIR]
#
# Without BUILD_DIR it builds its own optimised tree in build/bench first.
# Starts a PostgreSQL server of its own (Debian's postgresql: initdb and
# pg_ctl in a temporary directory, as the user postgres when run as root,
# on a Unix socket there only; stopped at the end), then runs
# bench_logwrite: C columns x S samples written R times to a binary log, a
# CSV file, a SQLite log set and a PostgreSQL log set (twice: with the
# server's default synchronous_commit=on, and with it off for the session),
# in rotating order. Prints values per second (median, min, max) per format.
# Environment: C (default 100), S (default 300), R (default 5), DIR (where
# the files go; default a temporary directory).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/build-tree.sh"
C=${C:-100}
S=${S:-300}
R=${R:-5}
BW=$BUILD/bench/bench_logwrite
[ -x "$BW" ] || { echo "missing $BW: build the tree first (cmake --build $BUILD)" >&2; exit 1; }
BIN=$(pg_config --bindir 2>/dev/null)
[ -x "$BIN/initdb" ] || { echo "no PostgreSQL server (initdb) installed: scripts/deps.sh test" >&2; exit 1; }
WORK=$(mktemp -d /tmp/pl_logwrite_XXXXXX)
DIR=${DIR:-$WORK}
RUN=env
if [ "$(id -u)" = 0 ]; then
  chown postgres:postgres "$WORK" && chmod 711 "$WORK"
  RUN="runuser -u postgres --"
fi
stop() {
  [ -d "$WORK/data" ] && $RUN "$BIN/pg_ctl" -D "$WORK/data" -m fast -w -t 60 stop >/dev/null 2>&1
  rm -rf "$WORK"
}
trap stop EXIT
trap 'exit 130' INT TERM HUP
timeout 120 $RUN "$BIN/initdb" -D "$WORK/data" -A trust -U perflib -E UTF8 --locale=C >"$WORK/initdb.log" 2>&1 ||
  { cat "$WORK/initdb.log" >&2; exit 1; }
timeout 120 $RUN "$BIN/pg_ctl" -D "$WORK/data" -l "$WORK/server.log" -w -t 90 \
  -o "-k $WORK -c listen_addresses='' -p 5432" start >/dev/null 2>&1 || { cat "$WORK/server.log" >&2; exit 1; }
mkdir -p "$DIR/files" && [ "$(id -u)" = 0 ] && chmod 777 "$DIR/files"
PG="host=$WORK port=5432 user=perflib dbname=postgres"
"$BW" "$DIR/files" "$C" "$S" "$R" "$PG" "$PG options='-c synchronous_commit=off'"
