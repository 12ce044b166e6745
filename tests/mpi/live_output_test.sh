#!/bin/bash
# The live output of `ibgpu check` over 4 ranks as hosts a-d: rows as they finish (local checks,
# network rounds, all-reduce sizes), on a pipe as plain lines and on a pseudo-terminal with one
# progress line redrawn in place, against a golden (tests/mpi/live_output_golden.txt) with the
# numbers normalised; stdout stays a clean report while it runs; --quiet says nothing.
# IBGPU_UPDATE_GOLDEN=1 rewrites the golden from the pipe run.
source "$(dirname "$0")/lib.sh"
CHECK=(check --sizes 64K --iters 50 --retests 0 --allreduce mpi)
# mpirun's MPMD form: one rank per host name, so the pairs are pairs of hosts.
hosts() {
  MPMD=()
  local h
  for h in a b c d; do
    [ ${#MPMD[@]} -eq 0 ] || MPMD+=(:)
    MPMD+=(-x "IBGPU_HOSTNAME=$h" -np 1 "$IBGPU" "$@")
  done
}

# 1. A pipe (a Slurm log): plain lines, no control codes, progress at most every few seconds;
#    the table on stdout carries none of it.
hosts "${CHECK[@]}" --json "$WORK/pipe.json"
start=$SECONDS
mpi 120 4 "${MPMD[@]}" >"$WORK/pipe.out" 2>"$WORK/pipe.err"
wall=$((SECONDS - start))
[ "$rc" -le 3 ] || { cat "$WORK/pipe.err"; fail "pipe: exit $rc"; }
validate "$WORK/pipe.json"
check_report "$WORK/pipe.err" pipe "$wall" "$WORK/pipe.out"
echo "pipe: ok (exit $rc, ${wall}s)"

# 2. A pseudo-terminal on stderr (mpirun's, so the ranks see it through their launcher) while
#    stdout carries the JSON report: the screen shows the same rows, the progress line is cleared
#    before the end, and stdout is one JSON document and nothing else.
hosts "${CHECK[@]}" --json -
check_report "$WORK/pty" pty 120 "$WORK/pty.out" mpirun --bind-to none -np 4 "${MPMD[@]}"
echo "pseudo-terminal: ok"

# 3. --quiet: not one line of ibgpu's on stderr, the same report.
hosts "${CHECK[@]}" --quiet --json "$WORK/quiet.json"
mpi 120 4 "${MPMD[@]}" >"$WORK/quiet.out" 2>"$WORK/quiet.err"
[ "$rc" -le 3 ] || fail "quiet: exit $rc"
validate "$WORK/quiet.json"
if grep -n "ibgpu:" "$WORK/quiet.err"; then fail "--quiet: ibgpu spoke on stderr"; fi
grep -q "^Summary: " "$WORK/quiet.out" || fail "--quiet: no report on stdout"
echo "quiet: ok"
