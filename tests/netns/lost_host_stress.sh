#!/bin/bash
# Stress: a host lost at a random moment of a check across 6 namespace hosts, many times (RUNS,
# default 30; the netns lane runs a few). Each run picks a fault, a victim among h2..h6 (h1 runs
# rank 0, which writes the report) and a moment from 0 to 8 s after the ranks agreed to start and
# rank 0 printed the plan (local checks, pair rounds, re-tests, the all-reduce, the gather; a stop
# before the plan, inside MPI_Init, leaves no world to report on):
#   stop      the victim's ibgpu SIGSTOPped (a hung node)
#   kill      the victim's ibgpu SIGKILLed (a crash, the OOM killer); mpirun then tears the job down
#   linkdown  the victim's link set down (the processes live, the network is gone); up again once
#             the report is written: a link that stays down leaves mpirun waiting on the daemon it
#             can no longer reach to end the job, which is the launcher's to bound (docs/running.md)
#   launcher  mpirun SIGTERMed (scancel, a job's time limit)
# Every run must leave a report; a lost host is named where it was lost before its results were
# in, and no other node is failed, unknown or drained because of it (an interrupted run decides
# nothing); the report is written within --timeout plus the plan's estimate plus a margin; and no
# process is left in the namespaces (ibgpu_on_hosts fails the run otherwise). Prints one line per
# run and the totals.
#   IBGPU=build/ibgpu IBGPU_SOURCE_DIR=$PWD bash tests/netns/lost_host_stress.sh [RUNS]
source "$(dirname "$0")/lib.sh"
runs=${1:-${IBGPU_LOST_HOST_RUNS:-30}}
seed=${IBGPU_STRESS_SEED:-$$}
RANDOM=$seed
TIMEOUT=4
MARGIN=30  # seconds over --timeout + the plan's estimate: start-up, teardown and a busy 2-core machine
hosts_up 6
PROFILE=(--profile cpu)
check_with 300 mpi
echo "lost host stress: $runs runs, seed $seed, --timeout $TIMEOUT, margin ${MARGIN}s"

# The victim's ibgpu, or mpirun for the launcher fault.
fault() {  # KIND VICTIM DELAY_MS REPORT LOG
  local kind=$1 victim=$2 pid
  for _ in $(seq 600); do
    grep -q "ibgpu: plan:" "$5" 2>/dev/null && break
    sleep 0.1
  done
  sleep "$(printf '%d.%03d' $(($3 / 1000)) $(($3 % 1000)))"
  case $kind in
    stop) pid=$(netns_rank_pid "$victim") && kill -STOP "$pid" ;;
    kill) pid=$(netns_rank_pid "$victim") && kill -KILL "$pid" ;;
    linkdown)
      ip link set "ibgv${NETNS_ID}h$victim" down
      for _ in $(seq 1500); do
        [ -f "$4" ] && break
        sleep 0.1
      done
      ip link set "ibgv${NETNS_ID}h$victim" up
      ;;
    launcher) pid=$(pgrep -P "$(pgrep -P $$ -x timeout)" -x mpirun) && kill -TERM "$pid" ;;
  esac
  echo "$kind" >"$WORK/fault.done"
}

declare -A count=() late=()
slowest=0
for ((k = 1; k <= runs; ++k)); do
  kinds=(stop kill linkdown launcher)
  kind=${kinds[RANDOM % 4]}
  victim=$((2 + RANDOM % 5))
  delay_ms=$((RANDOM % 8000))
  out=$WORK/run$k.json
  rm -f "$WORK/fault.done"
  fault "$kind" "$victim" "$delay_ms" "$out" "$WORK/run$k.log" &
  started=$(date +%s)
  ibgpu_on_hosts 150 "${CHECK[@]}" --timeout "$TIMEOUT" --json "$out" >"$WORK/run$k.log" 2>&1
  wait
  ip link set "ibgv${NETNS_ID}h$victim" up
  [ -f "$WORK/fault.done" ] || fail "run $k: the $kind fault was never made (host h$victim)"
  [ -f "$out" ] || { tail -n 30 "$WORK/run$k.log" >&9; fail "run $k ($kind h$victim at ${delay_ms} ms): no report (exit $rc)"; }
  validate "$out" >/dev/null
  report_s=$(($(stat -c %Y "$out") - started))
  planned=$(grep -o 'about [0-9.]* s' "$WORK/run$k.log" | head -n 1 | grep -o '[0-9.]*' || echo 0)
  limit=$(awk -v a="$TIMEOUT" -v b="$planned" -v c="$MARGIN" 'BEGIN { printf "%d", a + b + c + 0.5 }')
  [ "$report_s" -le "$limit" ] || fail "run $k ($kind h$victim): the report took ${report_s}s, over ${limit}s"
  named=$(check_report "$out" judged "h$victim" "$kind" "$rc") ||
    { tail -n 30 "$WORK/run$k.log" >&9; fail "run $k ($kind h$victim at ${delay_ms} ms): see above"; }
  count[$kind]=$((${count[$kind]:-0} + 1))
  [ "$named" != not-named ] || late[$kind]=$((${late[$kind]:-0} + 1))
  [ "$report_s" -le "$slowest" ] || slowest=$report_s
  echo "run $k: $kind h$victim at ${delay_ms} ms: report after ${report_s}s (limit ${limit}s), exit $rc after ${elapsed}s, h$victim $named"
done
summary=""
for kind in stop kill linkdown; do
  summary+=" $kind ${count[$kind]:-0} (the fault after the host's results were in: ${late[$kind]:-0}),"
done
summary+=" launcher ${count[launcher]:-0} (after the report: ${late[launcher]:-0}),"
echo "lost host stress: $runs runs:${summary%,}; a report in every run, wrong blames 0, longest time to report ${slowest}s"
