#!/bin/bash
# `ibgpu report`: saved reports re-rendered exactly as the run rendered them,
# compared, and folded into a baseline; bad input is exit 64 and writes nothing.
source "$(dirname "$0")/lib.sh"

# A saved report renders as the run itself did, in every format.
# table-full: the sample is below the size past which the table is shortened, so it is the same text.
for pair in table:report.table.txt table-full:report.table.txt json:report.json prometheus:report.prom junit:report.junit.xml markdown:report.md; do
  format=${pair%%:*} golden=${pair#*:}
  run report "$GOLDEN/report.json" --format "$format"
  [ "$rc" -eq 0 ] || fail "report --format $format exited $rc: $(cat "$WORK/err")"
  cmp -s "$WORK/out" "$GOLDEN/$golden" || fail "report --format $format differs from $golden: $(diff "$GOLDEN/$golden" "$WORK/out" | head -5)"
done

# No MPI: `report` must not start it, even where a launcher's environment says
# it could. MPI_Init opens sockets and starts threads; `report` does neither.
if command -v strace >/dev/null && strace -qq -o /dev/null true 2>/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # LeakSanitizer cannot run under ptrace: in a sanitizer build it would fail the traced run.
  launched=(env OMPI_COMM_WORLD_SIZE=1 OMPI_COMM_WORLD_RANK=0 ASAN_OPTIONS=detect_leaks=0)
  calls="socket,clone,clone3,fork,vfork"
  # Exit 3 where the host has no GPU and no RDMA device (nothing to check); more is a failure.
  set +e
  strace -f -qq -e trace=$calls -o "$WORK/inventory.trace" "${launched[@]}" "$IBGPU" inventory >/dev/null 2>&1
  traced=$?
  set -e
  { [ "$traced" -eq 0 ] || [ "$traced" -eq 3 ]; } || fail "inventory under a launcher's environment exited $traced"
  [ -s "$WORK/inventory.trace" ] || fail "strace saw no socket or thread of MPI_Init: this check could not fail"
  strace -f -qq -e trace=$calls -o "$WORK/report.trace" "${launched[@]}" "$IBGPU" report "$GOLDEN/report.json" \
    >"$WORK/out" 2>"$WORK/err" || fail "report under a launcher's environment failed: $(cat "$WORK/err")"
  [ ! -s "$WORK/report.trace" ] || fail "report started MPI (sockets or threads): $(head -3 "$WORK/report.trace")"
  cmp -s "$WORK/out" "$GOLDEN/report.table.txt" || fail "report under a launcher's environment printed something else"
else
  echo "note: strace missing or not allowed to trace here; the check that report starts no MPI did not run"
fi

# --output: the same text, in a file.
run report "$GOLDEN/report.json" --format markdown --output "$WORK/summary.md"
{ [ "$rc" -eq 0 ] && [ ! -s "$WORK/out" ]; } || fail "--output exited $rc or also printed"
cmp -s "$WORK/summary.md" "$GOLDEN/report.md" || fail "--output file differs from the golden markdown"

# Several files: text formats one after the other; document formats refuse.
run report "$DATA/runs/before.json" "$DATA/runs/after.json"
[ "$rc" -eq 0 ] || fail "two files as a table exited $rc"
{ grep -q "run b3f04e0000000001" "$WORK/out" && grep -q "run af7e400000000002" "$WORK/out"; } || fail "not both runs rendered"
run report "$DATA/runs/before.json" "$DATA/runs/after.json" --format prometheus
[ "$rc" -eq 64 ] || fail "two files as prometheus exited $rc"
grep -q "one document per report" "$WORK/err" || fail "no reason for refusing two prometheus files: $(cat "$WORK/err")"

# A newer schema is a clear usage error naming the file, and nothing is written.
sed 's/"schema_version": [0-9]*,/"schema_version": 99,/' "$GOLDEN/report.json" >"$WORK/newer.json"
run report "$WORK/newer.json" --output "$WORK/never.txt"
[ "$rc" -eq 64 ] || fail "newer schema exited $rc"
[ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "expected one line on stderr: $(cat "$WORK/err")"
grep -q "newer.json: report has schema_version 99, this ibgpu reads up to 4: upgrade ibgpu" "$WORK/err" ||
  fail "unclear newer-schema error: $(cat "$WORK/err")"
[ ! -e "$WORK/never.txt" ] || fail "an output was written for an unreadable report"
# Several files: one bad file means nothing rendered.
run report "$GOLDEN/report.json" "$WORK/newer.json"
{ [ "$rc" -eq 64 ] && [ ! -s "$WORK/out" ]; } || fail "a bad second file exited $rc or rendered the first"
echo '{"schema_version": 1' >"$WORK/cut.json"
run report "$WORK/cut.json"
{ [ "$rc" -eq 64 ] && grep -q "cut.json: not JSON" "$WORK/err"; } || fail "truncated JSON: rc $rc, $(cat "$WORK/err")"
run report "$WORK/missing.json"
{ [ "$rc" -eq 64 ] && grep -q "missing.json: cannot read" "$WORK/err"; } || fail "missing file: rc $rc, $(cat "$WORK/err")"
run report
[ "$rc" -eq 64 ] || fail "report without FILE exited $rc"

# --compare: the injected slow link and failed node, and nothing else; exit 1.
run report --compare "$DATA/runs/before.json" "$DATA/runs/after.json"
[ "$rc" -eq 1 ] || fail "--compare with changes exited $rc: $(cat "$WORK/err")"
cmp -s "$WORK/out" "$GOLDEN/compare.table.txt" || fail "--compare table differs: $(diff "$GOLDEN/compare.table.txt" "$WORK/out")"
run report --compare "$DATA/runs/before.json" "$DATA/runs/after.json" --json -
[ "$rc" -eq 1 ] || fail "--compare --json - exited $rc"
{ grep -q '"changed": true' "$WORK/out" && ! grep -q "Changes from" "$WORK/out"; } || fail "--json - is not JSON only"
run report --compare "$DATA/runs/after.json" "$DATA/runs/after.json"
{ [ "$rc" -eq 0 ] && grep -q "no change" "$WORK/out"; } || fail "--compare of a run with itself exited $rc"
run report --compare "$DATA/runs/before.json"
[ "$rc" -eq 64 ] || fail "--compare with one file exited $rc"
run report --compare "$DATA/runs/before.json" "$WORK/newer.json"
[ "$rc" -eq 64 ] || fail "--compare with a newer schema exited $rc"

# --baseline-out, then check --baseline refuses a baseline it cannot read before anything starts.
run report --baseline-out "$WORK/fleet.json" "$DATA/runs/before.json" "$DATA/runs/after.json"
[ "$rc" -eq 0 ] || fail "--baseline-out exited $rc: $(cat "$WORK/err")"
grep -q '"baseline_version": 1' "$WORK/fleet.json" || fail "baseline without its version"
grep -q '"net.verbs.write_bw@8388608:bw_avg_GBps"' "$WORK/fleet.json" || fail "baseline without the bandwidth kind"
grep -q "3 measurement kinds from 2 runs" "$WORK/out" || fail "baseline summary: $(cat "$WORK/out")"
sed 's/"baseline_version": 1/"baseline_version": 7/' "$WORK/fleet.json" >"$WORK/fleet7.json"
run check --baseline "$WORK/fleet7.json"
{ [ "$rc" -eq 64 ] && grep -q "upgrade ibgpu" "$WORK/err"; } || fail "check with a newer baseline: rc $rc, $(cat "$WORK/err")"

grep -q "1 --compare found changes" <<<"$("$IBGPU" report --help)" || fail "report --help does not document its exit codes"
echo "report: ok"
