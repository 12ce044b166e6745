#!/bin/bash
# Stress: interrupts and stopped peers at random moments, many times (default 30 runs), on the
# build given by IBGPU (ci/test runs it on the sanitizer build). Each run starts a full check over
# 4 ranks, waits a random 0.5-5.5 s, then either interrupts the job (SIGINT or SIGTERM to mpirun,
# as Ctrl-C and scancel do) or SIGSTOPs a random rank other than 0 and interrupts the job a
# little later. Passes when no process crashed (no signal death, no sanitizer report), every run
# left a report marked interrupted, no admission action ran, and no process was left behind.
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
  delay_ms=$((500 + RANDOM % 5000))
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  what=$((RANDOM % 3))
  case $what in
    0) kill -INT "$job" 2>/dev/null || true; how="SIGINT after ${delay_ms} ms"; interrupts=$((interrupts + 1)) ;;
    1) kill -TERM "$job" 2>/dev/null || true; how="SIGTERM after ${delay_ms} ms"; interrupts=$((interrupts + 1)) ;;
    2)
      victim=$((1 + RANDOM % 3))
      pid=""
      for p in $(pgrep -f -- "--json $out/report.json" || true); do
        if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$victim"; then pid=$p; fi
      done
      [ -n "$pid" ] && kill -STOP "$pid" 2>/dev/null || true
      sleep 1
      kill -INT "$job" 2>/dev/null || true
      how="SIGSTOP rank $victim after ${delay_ms} ms, then SIGINT"; stops=$((stops + 1)) ;;
  esac
  set +e
  wait "$job"
  rc=$?
  set -e
  # Whatever is left of the job (a stopped rank) is ended, and counted.
  left=$(pgrep -f -- "--json $out/report.json" || true)
  if [ -n "$left" ]; then
    kill -CONT $left 2>/dev/null || true
    kill -KILL $left 2>/dev/null || true
  fi
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
  elif ! check_json "$out/report.json" 'assert r["run"].get("interrupted") is True' 2>/dev/null; then
    problem="${problem:+$problem, }report not marked interrupted"
    missing=$((missing + 1))
  fi
  if ls "$out" | grep -qE '^(drained|resumed)-'; then
    problem="${problem:+$problem, }an admission action ran"
    actions=$((actions + 1))
  fi
  printf 'run %2d: %-45s exit %3d  %s\n' "$k" "$how" "$rc" "${problem:-ok}"
  if [ -n "$problem" ]; then
    echo "  stderr of run $k (last lines):"
    tail -n 15 "$out/stderr" | sed 's/^/    /'
  fi
done
echo "interrupt stress: $runs runs, $interrupts interrupts, $stops stops; crashes: $crashes, runs without an interrupted report: $missing, runs with an admission action: $actions"
[ "$crashes" -eq 0 ] && [ "$missing" -eq 0 ] && [ "$actions" -eq 0 ] || fail "interrupt stress failed (seed $seed)"
echo "interrupt stress: ok"
