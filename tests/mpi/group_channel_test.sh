#!/bin/bash
# The channel and ring of the ranks that came when one was lost (point to point on the job's
# communicator, no communicator of theirs to make), among four real mpirun ranks: exact answers
# among three of them, and every wait ended within its timeout by a rank that left or fell silent,
# naming it (tests/tools/group_channel_ranks.cpp).
source "$(dirname "$0")/lib.sh"
: "${IBGPU_GROUP_CHANNEL_RANKS:?path of the ibgpu_group_channel_ranks test program}"

# run_case NAME RANKS...: the case on four ranks; each of RANKS must print PASS.
run_case() {
  local name=$1 r; shift
  MPI_SHOW_ON_HANG=("$WORK/$name.out" "$WORK/$name.err")
  mpi 60 4 "$IBGPU_GROUP_CHANNEL_RANKS" "$name" >"$WORK/$name.out" 2>"$WORK/$name.err"
  for r in "$@"; do
    grep -qx "rank $r: PASS" "$WORK/$name.out" ||
      fail "$name: rank $r: $(grep "^rank $r:" "$WORK/$name.out" || echo "no line") (mpirun exit $rc; $(tail -n 3 "$WORK/$name.err"))"
  done
  if grep -q FAIL "$WORK/$name.out"; then fail "$name: $(grep FAIL "$WORK/$name.out")"; fi
  echo "$name: ranks $* passed"
}

run_case together 0 1 2 3
run_case leaver 0 1 3
run_case silent 0 1 2
