#!/usr/bin/env bash
# The mutation run (docs/testing.md, "Mutants"): a fixed list of one-line
# mutations of the behaviours that matter most, each of which must make
# the tests named with it fail. A mutant that survives means those tests no
# longer protect the behaviour; the run fails.
#
# The tree is never changed: the files git tracks are copied into
# build/mutants/src (only those that changed since the last run), built
# there in build/mutants/build (gcc, RelWithDebInfo, only the named tests'
# targets, incrementally), and each mutation is made in the copy and undone
# there, also on Ctrl-C.
#
#   scripts/mutants.sh              # every mutant
#   scripts/mutants.sh NAME...      # these
#   scripts/mutants.sh --list       # the table of mutants and their tests
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
work=build/mutants
src=$work/src
bld=$work/build
shared=${PL_SHARED_DIR:-$(cd "$top/.." && pwd)/shared}

# mutant NAME FILE FROM TO TESTS
#   FROM: text found exactly once in FILE (it may take in the lines around
#   the one it changes, to be unique); TO: the same with one line changed.
#   TESTS: a ctest regular expression; at least one of its cases must fail.
names=() files=() froms=() tos=() tests=()
mutant() {
  names+=("$1") files+=("$2") froms+=("$3") tos+=("$4") tests+=("$5")
}

# --- PDH formulas (lib/pdh/pdh_calc.c) ----------------------------------
mutant pdh_rate_ignores_frequency lib/pdh/pdh_calc.c \
  '        *out = dn / (dd / (double)freq);' \
  '        *out = dn / dd;' \
  '^test_pdh_calc[.]'
mutant pdh_inverse_timer_not_inverted lib/pdh/pdh_calc.c \
  '        *out = 100.0 * (dd - dn) / dd; /* = 100*(1 - dN/dD), fewer rounding steps */' \
  '        *out = 100.0 * dn / dd; /* = 100*(1 - dN/dD), fewer rounding steps */' \
  '^test_pdh_calc[.]'
mutant pdh_average_timer_in_ticks lib/pdh/pdh_calc.c \
  '        *out = (dn / (double)freq) / dd;' \
  '        *out = dn / dd;' \
  '^test_pdh_calc[.]'
mutant pdh_32bit_wrap_not_unwrapped lib/pdh/pdh_calc.c \
  '    return narrow && newer < older && newer >= 0 && older >= 0 && (uint64_t)older <= UINT32_MAX;' \
  '    return 0 && narrow && newer < older && newer >= 0 && older >= 0 && (uint64_t)older <= UINT32_MAX;' \
  '^test_pdh_calc[.]'

# --- block validation (lib/format/reader.c) ------------------------------
mutant block_instance_past_object_end lib/format/reader.c \
  '            if (id.ByteLength > objend - q)' \
  '            if (id.ByteLength > objend)' \
  '^test_format_(reader|review)[.]'
mutant block_counter_size_unchecked lib/format/reader.c \
  '    if (objend - q >= 4 && blen >= 4 && blen <= objend - q && max_end <= blen) {' \
  '    if (objend - q >= 4 && blen >= 4 && blen <= objend - q) {' \
  '^test_format_(reader|review)[.]'

# --- store rollback (lib/registry/install.c) -----------------------------
mutant store_install_commits_on_error lib/registry/install.c \
  $'        s = install_locked(st, req, v, &r, err);\n        if (!s) s = pl__tx_commit(st, err);\n        else pl__tx_rollback(st);' \
  $'        s = install_locked(st, req, v, &r, err);\n        if (!s) s = pl__tx_commit(st, err);\n        else pl__tx_commit(st, NULL);' \
  '^test_registry_faults[.]'

# --- log CRC (lib/log) -----------------------------------------------------
mutant log_payload_crc_unchecked lib/log/log_read.c \
  '    return pl__crc32(log->pay, f->stored) == f->crc ? 0 : -1;' \
  '    return 0;' \
  '^test_log[.]'
mutant log_header_crc_unchecked lib/log/log_codec.c \
  '    if (pl__rd32(in) != PL__FRAME_SYNC || pl__rd32(in + 36) != pl__crc32(in, 36)) return -1;' \
  '    if (pl__rd32(in) != PL__FRAME_SYNC) return -1;' \
  '^test_log[.]'

# --- the application segment's seqlock (lib/app/segread.c) ---------------
mutant seqlock_no_recheck lib/app/segread.c \
  '        ok = atomic_load_explicit(gen, memory_order_relaxed) == g1;' \
  '        ok = 1;' \
  '^test_app[.]seqlock_reader_never_mixes_two_writes$'

# --- perfd's token comparison (tools/perfd/tls.c) -------------------------
mutant token_first_only tools/perfd/tls.c \
  '    for (unsigned i = 0; i < s->n_tokens; i++) {' \
  '    for (unsigned i = 0; i < 1; i++) {' \
  '^test_perfd_tls[.]every_token_accepted_and_keys_rotate$'
mutant token_digest_prefix_only tools/perfd/tls.c \
  '        for (unsigned k = 0; k < 32; k++) diff |= (unsigned)(d[k] ^ s->tokens[i][k]);' \
  '        for (unsigned k = 0; k < 3; k++) diff |= (unsigned)(d[k] ^ s->tokens[i][k]);' \
  '^test_perfd_tls[.]every_token_accepted_and_keys_rotate$'

# --- perfd's remote_write credentials (tools/perfd/push.c) -----------------
mutant push_token_not_reloaded tools/perfd/push.c \
  '    if (rc == 1) memcpy(P.token, tok, sizeof tok);' \
  '    if (rc == 2) memcpy(P.token, tok, sizeof tok);' \
  '^test_push_token_live[.]live_push_token_rotation$'
mutant push_401_retried_as_transient tools/perfd/push.c \
  '    if ((cc == CURLE_OK && (code == 401 || code == 403)) || tls_refused(cc)) {' \
  '    if (tls_refused(cc)) {' \
  '^test_push_token_live[.]live_push_token_401_held$'
mutant push_tls_name_unchecked tools/perfd/push.c \
  '    pl__curl.easy_setopt(c, CURLOPT_CA_CACHE_TIMEOUT, 0L);' \
  '    pl__curl.easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);' \
  '^test_push_live[.]live_push_tls$'

# --- what gets a provider disabled (lib/host) ------------------------------
mutant disable_after_four_close_timeouts lib/host/host_helper.c \
  '            if (p->closefail_in_row >= MAX_CLOSE_TIMEOUTS_IN_ROW) {' \
  '            if (p->closefail_in_row > MAX_CLOSE_TIMEOUTS_IN_ROW) {' \
  '^test_host_faults[.]iso_hang_in_close_disables_after_three$'
mutant disable_more_data_with_bytes_allowed lib/host/host.c \
  '        if (r->bytes != 0 || r->nobj != 0 || r->moved != 0) {' \
  '        if (r->bytes != 0 && r->nobj != 0 && r->moved != 0) {' \
  '^test_host[.]'
mutant disable_on_collect_error lib/host/host.c \
  $'    if (r->rc != ERROR_SUCCESS) {\n        p->errors++;' \
  $'    if (r->rc != ERROR_SUCCESS) {\n        p->disabled = 1;' \
  '^test_host[.]'
mutant consumer_start_time_is_its_size lib/platform/linux/proc_pid.c \
  '    return st.starttime;' \
  '    return st.vsize;' \
  '^test_host_faults[.]live_consumer_that_grew_not_judged$'

# --- /metrics names (tools/perfd/metrics_text.c) ---------------------------
mutant metrics_counter_without_total tools/perfd/metrics_text.c \
  '    const char *sfx = counter && !om ? "_total" : k == PM_TEXT && !om ? "_info" : "";' \
  '    const char *sfx = counter && !om ? "" : k == PM_TEXT && !om ? "_info" : "";' \
  '^test_metrics_text[.]golden_every_type$'

if [ "${1:-}" = --list ]; then
  printf '%-40s %-32s %s\n' mutant file tests
  for i in "${!names[@]}"; do printf '%-40s %-32s %s\n' "${names[$i]}" "${files[$i]}" "${tests[$i]}"; done
  exit 0
fi
pick=("$@")
chosen=()
for i in "${!names[@]}"; do
  if [ ${#pick[@]} -eq 0 ] || printf '%s\n' "${pick[@]}" | grep -qxF "${names[$i]}"; then chosen+=("$i"); fi
done
[ ${#chosen[@]} -gt 0 ] || { echo "mutants: no mutant named ${pick[*]} (--list)" >&2; exit 2; }

# Undo a mutation in the copy, whatever ends the run. A plain cp gives the
# file a new time, so ninja rebuilds it for the next mutant.
current=""
undo() {
  if [ -n "$current" ]; then
    cp "$top/$current" "$src/$current"
    current=""
  fi
}
trap 'undo' EXIT
trap 'undo; exit 130' INT
trap 'undo; exit 143' TERM

# The copy: the files git tracks, copied only when they differ (so the build
# stays incremental); files no longer tracked are removed.
start=$(date +%s)
mkdir -p "$src"
git ls-files -z --cached --others --exclude-standard | sort -z >"$work/files"
while IFS= read -r -d '' f; do
  [ -f "$f" ] || continue
  if ! cmp -s "$f" "$src/$f" 2>/dev/null; then
    mkdir -p "$src/$(dirname "$f")"
    cp "$f" "$src/$f"
  fi
done <"$work/files"
(cd "$src" && find . -type f -printf '%P\0' | sort -z) | comm -z -23 - "$work/files" |
  while IFS= read -r -d '' f; do rm -f "$src/$f"; done
cmake -S "$src" -B "$bld" -G Ninja -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DPL_SHARED_DIR="$shared" >/dev/null

# The test programs of a ctest regular expression ("prog.case" -> prog).
targets_of() {
  ctest --test-dir "$bld" -N -R "$1" | sed -n 's/^ *Test *#[0-9]*: \([^.]*\)\..*/\1/p' | sort -u
}
build() { # targets...
  cmake --build "$bld" --target "$@" >"$work/build.log" 2>&1
}

# Every named test passes unmutated, or a kill would prove nothing.
all_re=$(for i in "${chosen[@]}"; do printf '%s|' "${tests[$i]}"; done)
all_re=${all_re%|}
mapfile -t all_targets < <(targets_of "$all_re")
[ ${#all_targets[@]} -gt 0 ] || { echo "mutants: the named tests match no ctest entry" >&2; exit 1; }
if ! build "${all_targets[@]}"; then
  tail -40 "$work/build.log" >&2
  echo "mutants: the unmutated copy does not build" >&2
  exit 1
fi
if ! ctest --test-dir "$bld" -R "$all_re" -j"$(nproc)" --output-on-failure >"$work/baseline.log" 2>&1; then
  grep -E 'Failed|\*\*\*' "$work/baseline.log" >&2 || true
  echo "mutants: the named tests fail without a mutation (see $work/baseline.log)" >&2
  exit 1
fi
echo "mutants: baseline built and passing in $(($(date +%s) - start)) s (${#all_targets[@]} test programs)"

survived=() table=()
for i in "${chosen[@]}"; do
  name=${names[$i]} file=${files[$i]} from=${froms[$i]} to=${tos[$i]} re=${tests[$i]}
  t0=$(date +%s)
  # the mutation: FROM exactly once, one line changed
  n=$(FROM=$from perl -0777 -ne 'my $n = () = /\Q$ENV{FROM}\E/g; print $n' "$src/$file")
  if [ "$n" != 1 ]; then
    echo "mutants: $name: the text to change is found $n times in $file (the list needs updating)" >&2
    exit 1
  fi
  changed=$(diff <(printf '%s\n' "$from") <(printf '%s\n' "$to") | grep -c '^<' || true)
  if [ "$changed" != 1 ] || [ "$(printf '%s\n' "$from" | wc -l)" != "$(printf '%s\n' "$to" | wc -l)" ]; then
    echo "mutants: $name is not a one-line mutation" >&2
    exit 1
  fi
  current=$file
  FROM=$from TO=$to perl -0777 -i -pe 's/\Q$ENV{FROM}\E/$ENV{TO}/' "$src/$file"
  mapfile -t tg < <(targets_of "$re")
  if ! build "${tg[@]}"; then
    tail -20 "$work/build.log" >&2
    echo "mutants: $name does not compile (the list needs updating)" >&2
    exit 1
  fi
  ctest --test-dir "$bld" -R "$re" -j"$(nproc)" >"$work/$name.log" 2>&1 || true
  killers=$(sed -n 's/^.*Test *#[0-9]*: \([^ ]*\) .*\*\*\*\(Failed\|Timeout\|Exception\).*$/\1/p' "$work/$name.log" |
            sort | tr '\n' ' ')
  undo
  if [ -n "$killers" ]; then
    table+=("$(printf '%-38s killed in %3s s by %s' "$name" "$(($(date +%s) - t0))" "$killers")")
  else
    table+=("$(printf '%-38s SURVIVED (%s passed)' "$name" "$re")")
    survived+=("$name")
  fi
  echo "${table[-1]}"
done
# the copy back as the tree has it, built, for the next run
mapfile -t tg < <(targets_of "$all_re")
build "${tg[@]}" || true
echo "mutants: ${#chosen[@]} mutants, ${#survived[@]} survived, in $(($(date +%s) - start)) s"
if [ ${#survived[@]} -gt 0 ]; then
  echo "mutants: survived: ${survived[*]}: their tests no longer protect what they name" >&2
  exit 1
fi
