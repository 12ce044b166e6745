#!/bin/bash
# check --baseline: a saved baseline's medians replace the run's own fleet
# medians for the kinds it has, and the report records which baseline applied.
source "$(dirname "$0")/lib.sh"
mpi 60 2 "$IBGPU" check --allreduce mpi --sizes 64K --json "$WORK/first.json" >/dev/null
# The same run as a healthy fleet whose all-reduce moved a thousand times more.
check_report "$WORK/first.json" faster_fleet "$WORK/fast.json"
"$IBGPU" report --baseline-out "$WORK/fleet.json" "$WORK/fast.json" >/dev/null || fail "--baseline-out failed"
mpi 60 2 "$IBGPU" check --allreduce mpi --sizes 64K --baseline "$WORK/fleet.json" --json "$WORK/judged.json" >/dev/null
validate "$WORK/judged.json"
check_report "$WORK/judged.json" judged "$rc"
check_report "$WORK/first.json" own_medians
echo "check --baseline: ok (exit $rc)"
