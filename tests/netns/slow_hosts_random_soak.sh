#!/bin/bash
# Ranks never disagree about what comes next: eight hosts, three of them crawling (a random three,
# at a random rate), the all-reduce on and a profile under which every pair through a slow host is
# suspect, so the re-test pass meets each slow host with known-good ones. Before rank 0 decided the
# plan after the re-tests for everyone and waits ended when the peer had left the step, this hung
# for 20 minutes with 24 processes left. Each run must end within what the time caps allow, write
# its report and leave no process behind; every re-test it planned must have run.
# IBGPU_NETNS_SEED=N replays a run (the seed is printed); IBGPU_NETNS_RANDOM_RUNS=K runs K of them.
# A soak, not in CTest (about 90 s a run on 2 cores; the lane's fixed cases cover the same paths:
# slow_host_test, crawling_host_test, budget_test). By hand, as root:
#   IBGPU=build/ibgpu IBGPU_SOURCE_DIR=$PWD IBGPU_NETNS_RANDOM_RUNS=5 bash tests/netns/slow_hosts_random_soak.sh
source "$(dirname "$0")/lib.sh"
hosts_up 8
seed=${IBGPU_NETNS_SEED:-$RANDOM}
runs=${IBGPU_NETNS_RANDOM_RUNS:-1}
# The lane's profile, and a floor between a crawling path (under 0.03 GB/s) and a clean one (0.09 and
# up, even with eight ranks on two cores): every pair through a slow host is suspect.
profile=$WORK/suspect-slow.toml
sed 's/^name = .*/name = "netns-lane-slow-suspect"/' "$IBGPU_SOURCE_DIR/tests/netns/lane.toml" >"$profile"
printf '\n[network.mpi_bw_GBps]\ndegraded = 0.05\n' >>"$profile"
stamped() { while IFS= read -r line; do echo "$(date +%T) $line"; done; }  # logs say when
for run in $(seq "$runs"); do
  read -r slow rate cap < <("$PY" "${0%.sh}.py" draw "$seed" "$run")
  for k in ${slow//,/ }; do netns_limit_host "$k" "${rate}mbit"; done
  out=$WORK/random-$run.json
  echo "run $run (seed $seed): hosts $slow at ${rate}mbit, --time-cap $cap"
  ibgpu_on_hosts 280 check --transport mpi --sizes 1M --window 16 --allreduce mpi --time-cap "$cap" \
    --profile "$profile" --timeout 30 --json "$out" > >(stamped >"$WORK/log-$run") 2>&1
  for k in ${slow//,/ }; do netns_unlimit_host "$k"; done
  [ -s "$out" ] || fail "run $run (seed $seed): no report (exit $rc): $(tail -5 "$WORK/log-$run")"
  validate "$out"
  check_report "$out" bounded "$slow" "$cap" "$elapsed" "$run"
done
echo "slow hosts, random: ok ($runs run(s), seed $seed)"
