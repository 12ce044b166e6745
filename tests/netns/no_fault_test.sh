#!/bin/bash
# No fault, 4 namespace hosts, repeated: every host pair measured over its real path, every link
# healthy, no node flagged for a network reason, the same exit code every time. Counts the runs
# with a false positive (any network entity flagged), which must be zero.
source "$(dirname "$0")/lib.sh"
hosts_up 4
runs=${IBGPU_NETNS_REPEAT:-5}
false_positives=0
for i in $(seq "$runs"); do
  out=$WORK/run$i.json
  ibgpu_on_hosts 90 "${CHECK[@]}" --timeout 20 --json "$out" >"$WORK/run$i.log" 2>&1
  validate "$out"
  check_report "$out" measured "$rc" "$i" || fail "run $i: report not as expected"
  # A false positive: a network probe not ok, a link not healthy, or a node with a network reason.
  if ! check_report "$out" nothing_flagged; then
    false_positives=$((false_positives + 1))
  fi
done
echo "no fault: $false_positives false positives in $runs runs of 4 hosts (6 links each)"
[ "$false_positives" -eq 0 ] || fail "$false_positives of $runs fault-free runs flagged something"

# Once more with the all-reduce step on (MPI backend here), as an operator runs `check`: every
# all-reduce checked and exact across the 4 hosts, and still nothing flagged.
out=$WORK/full.json
check_with 10 auto
ibgpu_on_hosts 90 "${CHECK[@]}" --timeout 20 --json "$out" >"$WORK/full.log" 2>&1
validate "$out"
check_report "$out" with_allreduce "$rc"
echo "no fault with the all-reduce step: ok (exit $rc)"
