#!/bin/bash
# Stress: interrupts and stopped peers at random moments, many times (default 30 runs), on the
# build given by IBGPU (ci/test runs it on the sanitizer build). Each run starts a full check over
# 4 ranks and, once the ranks have planned (before that there is no world to report on), waits a
# random 0-5 s, then either interrupts every rank (SIGINT or SIGTERM, as scancel and a job's
# time limit do) or SIGSTOPs a random rank other than 0 and interrupts the ranks a second later.
# Passes when no process crashed (no signal death, no sanitizer report), every run left a report
# marked interrupted, and no admission action ran.
#   IBGPU=build-asan/ibgpu IBGPU_SOURCE_DIR=$PWD bash tests/mpi/interrupt_stress.sh [RUNS]
source "$(dirname "$0")/lib.sh"
runs=${1:-${IBGPU_STRESS_RUNS:-30}}
seed=${IBGPU_STRESS_SEED:-$$}
RANDOM=$seed
interrupts=0 stops=0 crashes=0 missing=0 actions=0
echo "interrupt stress: $runs runs, seed $seed, binary $IBGPU"

for ((k = 1; k <= runs; ++k)); do
  out=$WORK/run$k
  mkdir -p "$out"
  set +e
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} timeout --kill-after=5 120 mpirun --bind-to none -np 4 \
    "$IBGPU" check --full --loopback --transport mpi --timeout 5 \
    --drain-cmd "touch $out/drained-{host}" --resume-cmd "touch $out/resumed-{host}" \
    --json "$out/report.json" >"$out/stdout" 2>"$out/stderr" &
  job=$!
  set -e
  # The job's processes are found by their --json path, which is the run's own.
  for _ in $(seq 600); do
    grep -q "ibgpu: plan:" "$out/stderr" 2>/dev/null && break
    sleep 0.1
  done
  delay_ms=$((RANDOM % 5000))
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  # The job's ranks; the signal goes to each of them, as `scancel` or a job's time limit does
  # (Slurm signals every task, then SIGKILLs after KillWait, 30 s by default). Ctrl-C at mpirun,
  # which SIGKILLs the ranks one second after passing the signal on, is tests/mpi/interrupt_test.sh.
  mapfile -t ranks < <(pgrep -f -- "--json $out/report.json" | while read -r p; do
            tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -q "^OMPI_COMM_WORLD_RANK=" && echo "$p"; done || true)
  what=$((RANDOM % 3))
  case $what in
    0) kill -INT "${ranks[@]}" 2>/dev/null || true; how="SIGINT ${delay_ms} ms after the plan"; interrupts=$((interrupts + 1)) ;;
    1) kill -TERM "${ranks[@]}" 2>/dev/null || true; how="SIGTERM ${delay_ms} ms after the plan"; interrupts=$((interrupts + 1)) ;;
    2)
      victim=$((1 + RANDOM % 3))
      pid=""
      for p in "${ranks[@]}"; do
        if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$victim"; then pid=$p; fi
      done
      { [ -n "$pid" ] && kill -STOP "$pid" 2>/dev/null; } || true
      sleep 1
      kill -TERM "${ranks[@]}" 2>/dev/null || true
      how="SIGSTOP rank $victim ${delay_ms} ms after the plan, then SIGTERM"; stops=$((stops + 1)) ;;
  esac
  # The job ends by itself (a stopped rank is the launcher's to end: rank 0 aborts the job after
  # its report); 60 s is far more than a wind-down takes.
  signalled=$SECONDS
  for _ in $(seq 600); do
    kill -0 "$job" 2>/dev/null || break
    sleep 0.1
  done
  took=$((SECONDS - signalled))
  mapfile -t left < <(pgrep -f -- "--json $out/report.json" || true)
  if [ ${#left[@]} -gt 0 ]; then kill -CONT "${left[@]}" 2>/dev/null || true; kill -KILL "${left[@]}" 2>/dev/null || true; fi
  set +e
  wait "$job"
  rc=$?
  set -e
  problem=""
  if grep -qE "AddressSanitizer|UndefinedBehaviorSanitizer|runtime error:|Segmentation fault|signal 11|Signal: Segmentation|exited on signal (6|7|11)" "$out/stderr"; then
    problem="crash"
    crashes=$((crashes + 1))
  fi
  if [ "$rc" -eq 139 ] || [ "$rc" -eq 134 ]; then
    [ -n "$problem" ] || crashes=$((crashes + 1))
    problem="crash (exit $rc)"
  fi
  if [ ! -s "$out/report.json" ]; then
    problem="${problem:+$problem, }no report"
    missing=$((missing + 1))
  elif ! check_report "$out/report.json" marked_interrupted 2>/dev/null; then
    problem="${problem:+$problem, }report not marked interrupted"
    missing=$((missing + 1))
  fi
  if any_file "$out" 'drained-*' 'resumed-*'; then
    problem="${problem:+$problem, }an admission action ran"
    actions=$((actions + 1))
  fi
  printf 'run %2d: %-55s exit %3d, ended %2d s later  %s\n' "$k" "$how" "$rc" "$took" "${problem:-ok}"
  if [ -n "$problem" ]; then
    echo "  stderr of run $k (last lines):"
    tail -n 15 "$out/stderr" | sed 's/^/    /'
  fi
done
echo "interrupt stress: $runs runs, $interrupts interrupts, $stops stops; crashes: $crashes, runs without an interrupted report: $missing, runs with an admission action: $actions"
{ [ "$crashes" -eq 0 ] && [ "$missing" -eq 0 ] && [ "$actions" -eq 0 ]; } || fail "interrupt stress failed (seed $seed)"
echo "interrupt stress: ok"
