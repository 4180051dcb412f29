# Sourced by bench/run-*.sh: helpers the scripts share.

# need_exec FILE...: every file exists and is executable, else say which
# and exit (the tree is not built).
need_exec() {
  for f in "$@"; do
    [ -x "$f" ] || { echo "missing $f: build the tree first (cmake --build $BUILD)" >&2; exit 1; }
  done
}

# median of the numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "nan"}'; }

# curl_median URL [CURL-ARGS...]: median ms of K transfers over one
# keep-alive connection (the first, which opens the connection, is
# dropped); fails on a status other than 200. CURL-ARGS (such as -H
# 'Accept-Encoding: gzip') apply to every transfer.
curl_median() {
  u=$1
  shift
  urls=
  i=0
  while [ "$i" -le "$K" ]; do urls="$urls -o /dev/null $u"; i=$((i + 1)); done
  # shellcheck disable=SC2086
  curl -s "$@" -w '%{http_code} %{time_total}\n' $urls | tail -n +2 |
    awk '$1 != 200 {bad=1} {print $2 * 1000} END {if (bad) exit 1}' | median
}

# perfd_port LOG: wait (at most 10 s) until the perfd logging to LOG says it
# is ready, and print the port of its first 127.0.0.1 listener; else show
# the log and exit.
perfd_port() {
  _port=
  _i=0
  while [ "$_i" -lt 100 ]; do
    _port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$1" 2>/dev/null | head -1)
    [ -n "$_port" ] && grep -q 'perfd: ready' "$1" && break
    sleep 0.1
    _i=$((_i + 1))
  done
  [ -n "$_port" ] || { cat "$1" >&2; echo "perfd did not start" >&2; exit 1; }
  echo "$_port"
}
