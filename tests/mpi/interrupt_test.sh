#!/bin/bash
# A stop signal (Ctrl-C at the terminal, scancel or a time limit: mpirun passes it on) gives a
# report marked interrupted, in which what was not measured is unknown, never failed, and no
# admission action runs: a job's time limit must not drain nodes.
source "$(dirname "$0")/lib.sh"

# Starts a long check, signals mpirun once the ranks measure, and waits for the job.
interrupted_check() {  # SIGNAL NAME
  local sig=$1 name=$2 pid started
  rm -f "$WORK"/drained-* "$WORK"/resumed-*
  started=$SECONDS
  set +e
  timeout --kill-after=5 90 mpirun --bind-to none -np 4 "$IBGPU" check --transport mpi --loopback \
    --sizes 64K,1M,8M --iters 400 --timeout 20 \
    --drain-cmd "touch $WORK/drained-{host}" --resume-cmd "touch $WORK/resumed-{host}" \
    --json "$WORK/$name.json" >"$WORK/$name.out" 2>"$WORK/$name.err" &
  pid=$!
  set -e
  for _ in $(seq 200); do
    grep -q "network" "$WORK/$name.err" 2>/dev/null && break
    sleep 0.1
  done
  sleep 1
  # One signal to mpirun itself, as a terminal's Ctrl-C gives it. Signalling `timeout` would send
  # it twice (to its child and to its process group), and OpenMPI's mpirun takes a second stop
  # as "abort now": it exits at once and leaves the ranks no time to write the report.
  kill "-$sig" "$(pgrep -P "$pid" -x mpirun || echo "$pid")" 2>/dev/null || true
  set +e
  wait "$pid"
  rc=$?
  set -e
  # A hang is told apart by what rank 0 last said and how far the report got.
  [ $((SECONDS - started)) -lt 85 ] || fail "$name: the interrupted job did not end (exit $rc); stderr ends:
$(tail -20 "$WORK/$name.err")
report: $(if [ -s "$WORK/$name.json" ]; then echo written; else echo none; fi)"
}

for sig in INT TERM; do
  interrupted_check "$sig" "sig$sig"
  [ -s "$WORK/sig$sig.json" ] || fail "SIG$sig: no report (exit $rc): $(tail -5 "$WORK/sig$sig.err")"
  validate "$WORK/sig$sig.json"
  check_report "$WORK/sig$sig.json" interrupted
  ! any_file "$WORK" 'drained-*' 'resumed-*' || fail "SIG$sig: an admission action ran after the stop"
  grep -q "admission actions were not applied because the run was interrupted" "$WORK/sig$sig.err" ||
    fail "SIG$sig: stderr does not say the actions were not applied: $(tail -5 "$WORK/sig$sig.err")"
  echo "SIG$sig: report interrupted, exit $rc, no action: ok"
done
echo "interrupts: ok"
