#!/bin/bash
# A rank that stops answering (hung, SIGSTOPped or killed) turns into a
# `timeout` naming its host and rank; rank 0 still writes the report, and the
# job ends within the deadline with a non-zero code.
source "$(dirname "$0")/lib.sh"
host=$(hostname)

expect_lost_rank() {  # FILE RANK [torn-down]
  validate "$1"
  check_report "$1" lost_rank "$2" "$host" "${@:3}"
}

# 1. A hung rank: rank 0 gives up after --timeout and aborts the job with the verdict's code.
start=$SECONDS
mpi 60 3 "$IBGPU" check --timeout 3 --test-stall-rank 2 --json "$WORK/hung.json" >/dev/null 2>&1
[ "$rc" -eq 2 ] || fail "hung rank: exit $rc, expected 2"
expect_lost_rank "$WORK/hung.json" 2
echo "hung rank: ok in $((SECONDS - start)) s"

# Signals the given rank once it has reached the stall (it says so on stderr).
signal_when_stalled() {  # SIGNAL RANK LOG
  local pid
  for _ in $(seq 300); do
    if grep -q "rank $2 stalling" "$3" 2>/dev/null && pid=$(pid_of_rank "$2"); then
      kill "-$1" "$pid"
      return 0
    fi
    sleep 0.1
  done
  echo "never saw rank $2 stall" >&9
}

# Finds the pid of the given rank of our job.
pid_of_rank() {
  local want=$1 pid
  for pid in $(pgrep -f "test-stall-rank"); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$want"; then
      echo "$pid"; return 0
    fi
  done
  return 1
}

# 2. A SIGSTOPped rank: deadlines detect it and MPI_Finalize is not waited on.
start=$SECONDS
signal_when_stalled STOP 1 "$WORK/stopped.log" &
mpi 60 3 "$IBGPU" check --timeout 3 --test-stall-rank 1 --json "$WORK/stopped.json" >/dev/null 2>"$WORK/stopped.log"
wait
[ "$rc" -eq 2 ] || fail "stopped rank: exit $rc, expected 2"
expect_lost_rank "$WORK/stopped.json" 1
echo "stopped rank: ok in $((SECONDS - start)) s"

# 3. A killed rank: mpirun tears the job down; rank 0 still writes what it has.
start=$SECONDS
signal_when_stalled KILL 2 "$WORK/killed.log" &
mpi 60 3 "$IBGPU" check --timeout 20 --test-stall-rank 2 --json "$WORK/killed.json" >/dev/null 2>"$WORK/killed.log"
wait
[ "$rc" -ne 0 ] || fail "killed rank: exit 0"
[ -f "$WORK/killed.json" ] || fail "killed rank: no report written"
expect_lost_rank "$WORK/killed.json" 2 torn-down
[ $((SECONDS - start)) -lt 20 ] || fail "killed rank: took $((SECONDS - start)) s, the SIGTERM path should end it early"
echo "killed rank: ok in $((SECONDS - start)) s (exit $rc)"
