#!/bin/bash
# The fleet rule on a loaded machine, under the default profile (no lane profile): six namespace
# hosts on two cores, where a clean pair measures anywhere from a third to twice another clean
# pair's bandwidth and latency medians from 4 us to over 1 ms as ranks wait for a core.
# - No fault, three times (IBGPU_NETNS_REPEAT), under the cpu profile with one of the two cores
#   held by a busy loop (as a build beside it would): every host pair measured over its real path,
#   no link or node verdict for a network reason, every node admitted healthy and the run's exit
#   code 0 every time. Counts the runs with a false positive (any network entity flagged), which
#   must be zero.
# - Two of the six hosts slow (h2, h5 at 100mbit): 9 of the 15 pairs touch them, so a median
#   would be a slow pair's; both named and no other node (a clean pair read low twice may be a
#   degraded link verdict). The default profile expects GPUs these hosts cannot have checked: the
#   peers are `unknown`, and the slow hosts' finding shows in their state (failed), not hidden.
#   At 300mbit the slow pairs' traffic held the clean pairs to 0.08-0.4 GB/s (0.5 alone), so the
#   fleet reference fell to 0.088 and a slow host's 0.035 sat at the failed level's edge (0.4 of
#   it): degraded in one CI run. At 100mbit the clean pairs measured 0.39-0.72 beside 0.012.
# - Once more with the all-reduce step on.
source "$(dirname "$0")/lib.sh"
hosts_up 6
PROFILE=()  # the default (generic) profile
# 1 MiB messages: at 64 KiB a clean pair here measured down to a fifth of another (per-message
# overhead under contention), below the fleet rule's widest limit; the default sizes start at 1M.
check_1m() {  # ALLREDUCE
  CHECK=(check --transport mpi --pairs all --sizes 1M --window 16 --iters 10 --allreduce "$1")
}
check_1m off
runs=${IBGPU_NETNS_REPEAT:-3}  # the suite's share; IBGPU_NETNS_REPEAT=20 for a longer count
false_positives=0
sh -c 'while :; do :; done' &
busy=$!
trap 'kill "$busy"; netns_down' EXIT  # the loop goes with the hosts, whatever stops the test
for i in $(seq "$runs"); do
  out=$WORK/run$i.json
  ibgpu_on_hosts 90 "${CHECK[@]}" --profile cpu --timeout 20 --json "$out" >"$WORK/run$i.log" 2>&1
  validate "$out"
  check_report "$out" measured "$rc" "$i" || fail "run $i: report not as expected"
  # A false positive: a network probe not ok, a link not healthy, or a node with a network reason.
  if ! check_report "$out" nothing_flagged; then
    false_positives=$((false_positives + 1))
  fi
done
kill "$busy"
trap 'netns_down' EXIT
echo "no fault, cpu profile, one core busy: $false_positives false positives in $runs runs of 6 hosts (15 links each)"
[ "$false_positives" -eq 0 ] || fail "$false_positives of $runs fault-free runs flagged something"

slow_runs=${IBGPU_NETNS_SLOW_REPEAT:-1}
netns_limit_host 2 100mbit
netns_limit_host 5 100mbit
for i in $(seq "$slow_runs"); do
  out=$WORK/slow$i.json
  ibgpu_on_hosts 150 "${CHECK[@]}" --timeout 30 --json "$out" >"$WORK/slow$i.log" 2>&1
  validate "$out"
  check_report "$out" only_named h2,h5 || fail "slow run $i: not exactly h2 and h5 named"
  check_report "$out" stand_out h2,h5 || fail "slow run $i: the slow hosts' state is their unchecked peers'"
done
netns_unlimit_host 2
netns_unlimit_host 5
echo "two of six hosts slow: both named and no other node, in $slow_runs run(s)"

# Once more with the all-reduce step on (MPI backend here), as an operator runs `check`: every
# all-reduce checked and exact across the hosts, and still nothing flagged.
out=$WORK/full.json
check_1m auto
ibgpu_on_hosts 90 "${CHECK[@]}" --timeout 20 --json "$out" >"$WORK/full.log" 2>&1
validate "$out"
check_report "$out" with_allreduce "$rc"
echo "no fault with the all-reduce step: ok (exit $rc)"
