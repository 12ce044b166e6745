# shellcheck shell=bash
# Sourced by three_hosts_test.sh and four_hosts_test.sh: a small group (a handful of nodes back
# from repair) with one host's link limited to a fifth of what a clean pair measures here
# (1400mbit, 0.17 GB/s, where clean pairs read 0.8-1.0 GB/s at 1 MiB; IBGPU_NETNS_SLOW_RATE
# sets another), under the default profile. Each host's pairs are held against the
# pairs that do not touch it: that host must be named, with a bandwidth reason, and no other
# node, in every run; with no limit, no node. (A pair of two other hosts that reads low twice on
# this loaded machine is a degraded link: shown, as in no_fault_test.sh, not failed.)
# Each measurement is capped at 1 s (--time-cap): through the limit a latency round trip waits
# behind the queue (10 ms), and 1000 of them at the default 3 s cap made a round 6 s.
# small_group N SLOW: hosts h1..hN, host hSLOW limited; IBGPU_NETNS_REPEAT runs (default 2) of each.
source "$(dirname "$0")/lib.sh"
# shellcheck disable=SC2034  # read by check_report (lib.sh)
REPORT_CHECKS=$IBGPU_SOURCE_DIR/tests/netns/small_group.py
small_group() {
  local n=$1 slow=$2 runs=${IBGPU_NETNS_REPEAT:-2} rate=${IBGPU_NETNS_SLOW_RATE:-1400mbit} i out
  hosts_up "$n"
  PROFILE=()  # the default (generic) profile
  CHECK=(check --transport mpi --pairs all --sizes 1M --window 16 --allreduce off --time-cap 1)
  out=$WORK/clean.json
  ibgpu_on_hosts 90 "${CHECK[@]}" --timeout 20 --json "$out" >"$WORK/clean.log" 2>&1
  validate "$out"
  check_report "$out" only_host_named "" "$n" "$rc"
  netns_limit_host "$slow" "$rate"
  for i in $(seq "$runs"); do
    out=$WORK/slow$i.json
    ibgpu_on_hosts 120 "${CHECK[@]}" --timeout 30 --json "$out" >"$WORK/slow$i.log" 2>&1
    validate "$out"
    check_report "$out" only_host_named "h$slow" "$n" "$rc" || fail "run $i: not h$slow alone named"
  done
  netns_unlimit_host "$slow"
  echo "$n hosts: no fault, nothing named; h$slow at $rate: h$slow named and no other node in $runs run(s)"
}
