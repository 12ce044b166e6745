#!/bin/bash
# Pairwise network probes over MPI between 4 "hosts" (ranks named through
# IBGPU_HOSTNAME in one MPMD launch): every host pair once, in 3 concurrent
# rounds, per size; then a rank stopped or killed mid-probe.
source "$(dirname "$0")/lib.sh"

four_hosts() {  # ARGS...: the ibgpu arguments, once per host
  local spec=() h
  for h in h0 h1 h2 h3; do
    [ ${#spec[@]} -eq 0 ] || spec+=(:)
    spec+=(-np 1 -x "IBGPU_HOSTNAME=$h" "$IBGPU" "$@")
  done
  printf '%s\0' "${spec[@]}"
}
mpmd() {  # SECONDS ARGS...
  local limit=$1; shift
  local args=()
  mapfile -d '' args < <(four_hosts "$@")
  local started=$SECONDS
  set +e
  timeout --kill-after=5 "$limit" mpirun --bind-to none "${args[@]}"
  rc=$?
  set -e
  [ $((SECONDS - started)) -lt "$limit" ] || fail "mpirun hung past ${limit}s"
}

mpmd 120 probe bw --transport mpi --sizes 64K,1M --json "$WORK/bw.json" >"$WORK/bw.out"
[ "$rc" -eq 0 ] || fail "probe bw exited $rc"
validate "$WORK/bw.json"
grep -q "^Network" "$WORK/bw.out" || fail "no Network table"
check_report "$WORK/bw.json" bandwidth

mpmd 120 probe lat --transport mpi --sizes 8 --iters 200 --json "$WORK/lat.json" >/dev/null
[ "$rc" -eq 0 ] || fail "probe lat exited $rc"
validate "$WORK/lat.json"
check_report "$WORK/lat.json" latency

# Bad sizes are usage errors before anything starts.
set +e
"$IBGPU" probe bw --sizes 8,2G >/dev/null 2>"$WORK/err"; rc=$?
set -e
[ "$rc" -eq 64 ] || fail "size 2G exited $rc"
grep -q "does not fit" "$WORK/err" || fail "size error unclear: $(cat "$WORK/err")"
set +e
"$IBGPU" probe lat --sizes 8,12Q >/dev/null 2>&1; rc=$?
set -e
[ "$rc" -eq 64 ] || fail "size 12Q exited $rc"

pid_of_host() {  # the rank process running as host $1
  local pid
  for pid in $(pgrep -f "ibgpu probe bw"); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "IBGPU_HOSTNAME=$1"; then echo "$pid"; return 0; fi
  done
  return 1
}
wait_for_report_of() {  # SIGNAL HOST: signals that host's rank once the bandwidth runs are under way
  local pid
  for _ in $(seq 100); do
    sleep 0.1
    pid=$(pid_of_host "$2") || continue
    sleep 1.5
    kill "-$1" "$pid"
    return 0
  done
}

# A rank stopped mid-probe: its pairs time out naming it; the others complete; the report is written.
# 600 iterations: with the window in one buffer a quiet machine runs 60 in well under the 1.5 s the
# signal waits, and the probe was over before the stop.
start=$SECONDS
wait_for_report_of STOP h3 &
mpmd 120 probe bw --transport mpi --sizes 1M --iters 600 --timeout 3 --json "$WORK/stopped.json" >/dev/null 2>&1
wait
[ "$rc" -eq 3 ] || fail "stopped rank: exit $rc, expected 3"
validate "$WORK/stopped.json"
check_report "$WORK/stopped.json" stopped_h3
echo "stopped mid-probe: ok in $((SECONDS - start)) s"

# A rank killed mid-probe: the launcher stops the job and rank 0 still reports.
start=$SECONDS
wait_for_report_of KILL h2 &
mpmd 120 probe bw --transport mpi --sizes 1M --iters 600 --timeout 30 --json "$WORK/killed.json" >/dev/null 2>&1
wait
[ "$rc" -ne 0 ] || fail "killed rank: exit 0"
validate "$WORK/killed.json"
check_report "$WORK/killed.json" killed_h2
[ $((SECONDS - start)) -lt 30 ] || fail "killed rank took $((SECONDS - start)) s"
echo "killed mid-probe: ok in $((SECONDS - start)) s (exit $rc)"
echo "network probes over 4 hosts: ok"
