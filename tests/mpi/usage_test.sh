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
check_json "$WORK/err.json" 'assert r["summary"]["exit_code"] == 64 and "no-such-flag" in r["error"]["message"]'

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

grep -q "64  usage or configuration error" <<<"$("$IBGPU" --help)" || fail "--help does not document exit codes"
"$IBGPU" --version | grep -q "^ibgpu " || fail "--version"
echo "usage errors: ok"
