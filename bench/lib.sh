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
