#!/bin/bash
# A rank killed (SIGKILL), a rank stopped (SIGSTOP) and the launcher stopped (SIGTERM, what scancel
# or a time limit does) in the middle of a check across 6 namespace hosts: the report the survivors
# write names the lost host and rank, the job ends within the deadline with the code the report
# gives, and nothing is left running in the namespaces.
source "$(dirname "$0")/lib.sh"
hosts_up 6
victim=3  # host h3, rank 2 (one rank per host, in host order)

# signal_mid_check SIGNAL [launcher]: once the victim's rank exchanges data with other hosts (it is
# past MPI_Init and the start agreement), lets it measure a moment longer, then signals it, or
# with `launcher` signals mpirun itself, once, as scancel or a job's time limit does. Writes the
# pid it signalled to $WORK/victim.pid.
signal_mid_check() {
  local pid
  for _ in $(seq 300); do
    if netns_rank_talking "$victim"; then
      sleep 1
      if [ "${2:-}" = launcher ]; then
        pid=$(pgrep -P "$(pgrep -P $$ -x timeout)" -x mpirun) || break
      else
        pid=$(netns_rank_pid "$victim") || break
      fi
      echo "$pid" >"$WORK/victim.pid"
      kill "-$1" "$pid"
      return 0
    fi
    sleep 0.1
  done
  echo "never saw host h$victim's rank talk" >&9
}

# Enough iterations that the network rounds last several seconds: the signal lands mid-probe.
# The all-reduce runs after the rounds: the stopped rank misses its roll call.
check_with 300 mpi
LONG=("${CHECK[@]}")

expect_lost() {  # FILE: the lost host and rank are named, its node failed and drained, exit 2
  validate "$1"
  check_report "$1" lost_rank "h$victim" "$((victim - 1))"
}

only_victim_flagged() {  # FILE: every failure involves the victim; pairs without it measured
  check_report "$1" only_victim_flagged "h$victim"
}

# 1. SIGSTOP: the partners and rank 0 hear silence for --timeout, go on without it, write the
# report and end the job (MPI_Abort, so nobody waits in MPI_Finalize for the stopped rank).
signal_mid_check STOP &
ibgpu_on_hosts 90 "${LONG[@]}" --timeout 4 --json "$WORK/stopped.json" >"$WORK/stopped.log" 2>&1
wait
[ -s "$WORK/victim.pid" ] || fail "stopped rank: the signal was never sent"
[ "$rc" -eq 2 ] || fail "stopped rank: exit $rc, expected 2 (a failed node)"
expect_lost "$WORK/stopped.json"
only_victim_flagged "$WORK/stopped.json"
# The all-reduce the stopped rank missed: the timeout is its host's alone; for the others it was
# not measured (skipped, `unknown`), never a failure of theirs.
check_report "$WORK/stopped.json" missed_allreduce "h$victim" "$((victim - 1))"
# The launcher's daemon kills the stopped rank as the job ends (SIGCONT, SIGTERM, SIGKILL); the
# kernel may finish that kill a moment after mpirun returns, so it gets a few seconds, no more.
pid=$(cat "$WORK/victim.pid")
gone() { [ ! -e "/proc/$1" ] || [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ]; }
for _ in $(seq 50); do gone "$pid" && break; sleep 0.1; done
gone "$pid" || fail "the stopped rank (pid $pid) still exists 5 s after the job ended"
echo "stopped rank: ok in ${elapsed}s (exit $rc)"
[ "$elapsed" -lt 60 ] || fail "stopped rank: ${elapsed}s, the 4 s deadlines should end it far sooner"
rm -f "$WORK/victim.pid"

# 2. SIGKILL: mpirun aborts the job and the survivors get SIGTERM; rank 0 still writes what it
# has. mpirun's own status is not ibgpu's (it reports the killed process). The teardown is a stop
# signal, so the run is interrupted: the lost rank is named, what the teardown cut short is
# `skipped` ("interrupted by a stop signal"), nothing is failed and no action would run (an
# interrupted run cannot tell a dead rank from one stopped on its way to rank 0).
signal_mid_check KILL &
ibgpu_on_hosts 90 "${LONG[@]}" --timeout 30 --json "$WORK/killed.json" >"$WORK/killed.log" 2>&1
wait
[ -s "$WORK/victim.pid" ] || fail "killed rank: the signal was never sent"
[ "$rc" -ne 0 ] || fail "killed rank: exit 0"
[ -f "$WORK/killed.json" ] || fail "killed rank: no report written (exit $rc)"
validate "$WORK/killed.json"
check_report "$WORK/killed.json" killed "h$victim" "$((victim - 1))"
echo "killed rank: ok in ${elapsed}s (exit $rc)"
[ "$elapsed" -lt 30 ] || fail "killed rank: ${elapsed}s, the launcher's SIGTERM should end it before the 30 s timeout"

# 3. SIGTERM to mpirun: it passes the signal to every rank and kills them a second later
# (OpenMPI's default), so rank 0 writes the report first and the table after it. The run is
# interrupted: nothing failed, nothing acts, what was cut short is `skipped`.
rm -f "$WORK/victim.pid"
signal_mid_check TERM launcher &
ibgpu_on_hosts 90 "${LONG[@]}" --timeout 30 --json "$WORK/terminated.json" \
  --drain-cmd "touch $WORK/drained-{host}" --resume-cmd "touch $WORK/resumed-{host}" >"$WORK/terminated.log" 2>&1
wait
[ -s "$WORK/victim.pid" ] || fail "stopped launcher: the signal was never sent"
[ -f "$WORK/terminated.json" ] || fail "stopped launcher: no report written (exit $rc)"
validate "$WORK/terminated.json"
check_report "$WORK/terminated.json" terminated
! ls "$WORK"/drained-* "$WORK"/resumed-* 2>/dev/null || fail "stopped launcher: an admission action ran"
echo "stopped launcher: ok in ${elapsed}s (exit $rc)"
[ "$elapsed" -lt 30 ] || fail "stopped launcher: ${elapsed}s, the launcher's SIGKILL should end it within seconds"

# 4. SIGKILL under `mpirun --enable-recovery`: the survivors keep running, deadlines find the dead
# rank as they find a stopped one, and the report blames it and nothing else. Not run by default:
# with OpenMPI 4.1 the report is right but the job then never ends (MPI_Abort after a peer died
# under recovery hangs, "PMIX ERROR: BAD-PARAM"), so mpirun runs into this test's limit.
# TODO: enable (IBGPU_NETNS_KILL_RECOVERY=1) once the end of such a job is bounded.
if [ "${IBGPU_NETNS_KILL_RECOVERY:-0}" = 1 ]; then
  rm -f "$WORK/victim.pid"
  MPIRUN_OPTS=(--enable-recovery)
  signal_mid_check KILL &
  ibgpu_on_hosts 60 "${LONG[@]}" --timeout 4 --json "$WORK/recovered.json" >"$WORK/recovered.log" 2>&1
  wait
  MPIRUN_OPTS=()
  [ "$rc" -eq 2 ] || fail "killed rank with recovery: exit $rc, expected 2"
  expect_lost "$WORK/recovered.json"
  only_victim_flagged "$WORK/recovered.json"
  echo "killed rank with --enable-recovery: ok in ${elapsed}s (exit $rc)"
else
  echo "killed rank with --enable-recovery: not run (IBGPU_NETNS_KILL_RECOVERY=1; the job hangs after its report)"
fi
