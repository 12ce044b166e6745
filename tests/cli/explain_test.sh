#!/bin/bash
# `ibgpu explain`: the reason-code table in the binary, for an operator on a node without the
# source tree: one code's row, the list, the documentation's table; a word that is no code is
# exit 64 with the codes it is close to.
source "$(dirname "$0")/lib.sh"

# Every code a saved report carries is explained, each field of its row under its label.
run report "$GOLDEN/report.json" --format json
[ "$rc" -eq 0 ] || fail "report --format json exited $rc"
mapfile -t codes < <(grep -o '"code": "[A-Z_0-9]*"' "$WORK/out" | cut -d'"' -f4 | sort -u)
[ "${#codes[@]}" -ge 3 ] || fail "the sample report has ${#codes[@]} codes: this check could not fail"
run explain "${codes[@]}"
[ "$rc" -eq 0 ] || fail "explain ${codes[*]} exited $rc: $(cat "$WORK/err")"
for code in "${codes[@]}"; do
  grep -q "^$code (" "$WORK/out" || fail "explain names no $code: $(head -3 "$WORK/out")"
done
for label in "lands on" "state" "fires when" "what to do" "in short"; do
  [ "$(grep -c "^  $label " "$WORK/out")" -eq "${#codes[@]}" ] || fail "not one '$label' per code"
done

# The width is the terminal's where the shell says it; any case is the code.
COLUMNS=50 run explain gpu_xid
[ "$rc" -eq 0 ] || fail "explain gpu_xid exited $rc"
awk 'length > 50 { bad = 1 } END { exit bad }' "$WORK/out" || fail "COLUMNS=50: a line is longer"

# Without a code: every code of the table once, with its next step.
run explain
[ "$rc" -eq 0 ] || fail "explain exited $rc"
run explain --markdown
[ "$rc" -eq 0 ] || fail "explain --markdown exited $rc"
# The documentation's table is the binary's (the unit tests hold the page to the source; this
# holds the installed binary to the page).
sed -n '/^| code | entity/,$p' "$IBGPU_SOURCE_DIR/docs/reason-codes.md" >"$WORK/doc"
cmp -s "$WORK/out" "$WORK/doc" || fail "explain --markdown differs from docs/reason-codes.md: $(diff "$WORK/doc" "$WORK/out" | head -4)"
rows=$(grep -c '^| `' "$WORK/out")
"$IBGPU" explain >"$WORK/list"
[ "$(grep -c '^  [A-Z]' "$WORK/list")" -eq "$rows" ] || fail "explain lists $(grep -c '^  [A-Z]' "$WORK/list") codes, the table has $rows"

# A word that is no code: exit 64, the close codes named, nothing on stdout.
run explain GPU_XDI
[ "$rc" -eq 64 ] || fail "explain GPU_XDI exited $rc, not 64"
grep -q "'GPU_XDI' is not a reason code; did you mean 'GPU_XID'?" "$WORK/err" || fail "no suggestion: $(cat "$WORK/err")"
[ ! -s "$WORK/out" ] || fail "explain GPU_XDI printed on stdout: $(head -2 "$WORK/out")"
echo "explain: ${#codes[@]} codes of a report explained, $rows rows as the documentation has them"
