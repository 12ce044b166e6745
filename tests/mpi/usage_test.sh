#!/bin/bash
# Usage errors: one line on stderr, exit 64, JSON when asked, no partial files.
source "$(dirname "$0")/lib.sh"
set +e
"$IBGPU" check --no-such-flag 2>"$WORK/err" >/dev/null; rc=$?
set -e
[ "$rc" -eq 64 ] || fail "unknown flag exited $rc"
[ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "expected one line on stderr, got: $(cat "$WORK/err")"
grep -q "no-such-flag" "$WORK/err" || fail "error does not name the flag"

set +e
"$IBGPU" check --no-such-flag --json - >"$WORK/err.json" 2>/dev/null; rc=$?
set -e
[ "$rc" -eq 64 ] || fail "unknown flag with --json exited $rc"
validate "$WORK/err.json"
check_report "$WORK/err.json" unknown_flag

set +e
"$IBGPU" frobnicate >/dev/null 2>&1; rc=$?
[ "$rc" -eq 64 ] || fail "unknown subcommand exited $rc"
"$IBGPU" check --timeout -3 >/dev/null 2>&1; rc=$?
[ "$rc" -eq 64 ] || fail "negative timeout exited $rc"
"$IBGPU" check --sysfs-root /no/such/dir >/dev/null 2>&1; rc=$?
[ "$rc" -eq 64 ] || fail "missing sysfs root exited $rc"
set -e

# An unwritable output path is refused before any probe runs, on every rank.
mpi 60 2 "$IBGPU" check --json /no/such/dir/out.json >/dev/null 2>"$WORK/err"
[ "$rc" -eq 64 ] || fail "unwritable --json under mpirun exited $rc"
grep -q "/no/such/dir/out.json" "$WORK/err" || fail "error does not name the path: $(cat "$WORK/err")"
mkdir "$WORK/ro" && chmod 555 "$WORK/ro"
if ! touch "$WORK/ro/probe" 2>/dev/null; then  # root ignores modes; test only where they apply
  mpi 60 2 "$IBGPU" inventory --json "$WORK/ro/out.json" >/dev/null 2>&1
  [ "$rc" -eq 64 ] || fail "read-only dir exited $rc"
fi
rm -f "$WORK/ro/probe"
[ -z "$(ls -A "$WORK/ro")" ] || fail "partial files left: $(ls -A "$WORK/ro")"

# Configuration errors are usage errors before anything runs: exit 64 with one line naming the
# problem, no probe, no admission action (the drain command would leave a file), no partial file.
printf 'name = "x"\n[network.verbs_bw_GBps]\nfailed = nan\n' >"$WORK/nan.toml"
printf 'name = "x"\n[fleet]\nbw_fraction = nan\n' >"$WORK/nanfleet.toml"
printf '[network.lat_p99_us]\ndegraded = inf\n' >"$WORK/inf.toml"
: >"$WORK/empty.toml"
drain=(--drain-cmd "touch $WORK/drained-{host}")
bad_configs=(
  "--pairs 0-5"                 "names node 5"
  "--pairs peers:0"             "expected peers:K"
  "--pairs peers:x"             "expected peers:K"
  "--timeout nan"               "not a finite number"
  "--timeout inf"               "not a finite number"
  "--budget 1h30"               "every part needs its unit"
  "--budget 1e308h"             "bad duration"
  "--budget 9999999999h"        "longer than 366 days"
  "--sizes ''"                  "empty list"
  "--min 8"                     "--min needs --max"
  "--max 8M"                    "--max needs --min"
  "--profile $WORK/nan.toml"    "must be a finite number"
  "--profile $WORK/nanfleet.toml" "must be a finite number"
  "--profile $WORK/inf.toml"    "must be a finite number"
  "--profile $WORK/empty.toml"  "sets nothing"
  "--profile /dev/zero"         "not a regular file"
)
argv=()
for ((i = 0; i < ${#bad_configs[@]}; i += 2)); do
  args=${bad_configs[i]} want=${bad_configs[i + 1]}
  eval "argv=($args)"  # the cases are written as a shell would read them ('' is an empty word)
  mpi 60 2 "$IBGPU" check --transport mpi --iters 5 "${argv[@]}" "${drain[@]}" --json "$WORK/cfg.json" \
    >/dev/null 2>"$WORK/err"
  [ "$rc" -eq 64 ] || fail "check $args exited $rc, expected 64: $(cat "$WORK/err")"
  grep -qF -- "$want" "$WORK/err" || fail "check $args: no '$want' on stderr: $(cat "$WORK/err")"
  ! grep -q "Probes\|net\.mpi" "$WORK/err" || fail "check $args ran probes"
  ! any_file "$WORK" 'drained-*' || fail "check $args ran the drain command"
  check_report "$WORK/cfg.json" config_error
  rm -f "$WORK/cfg.json"
done
# A single process (no launcher) gives the same answer.
set +e
"$IBGPU" check --timeout nan "${drain[@]}" >/dev/null 2>"$WORK/err"; rc=$?
set -e
[ "$rc" -eq 64 ] || fail "single-process --timeout nan exited $rc: $(cat "$WORK/err")"

grep -q "64  usage or configuration error" <<<"$("$IBGPU" --help)" || fail "--help does not document exit codes"
"$IBGPU" --version | grep -q "^ibgpu " || fail "--version"
echo "usage errors: ok"
