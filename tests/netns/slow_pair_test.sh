#!/bin/bash
# Only the path between two hosts impaired (a tbf that only packets for the other host's address
# go through, on both hosts): that pair measures clearly less than every other pair, including the
# other pairs of the same two hosts, so the fault is the link, not either node.
source "$(dirname "$0")/lib.sh"
hosts_up 4
rate=${IBGPU_NETNS_SLOW_RATE:-50mbit}
netns_limit_pair 1 3 "$rate"
out=$WORK/slow_pair.json
ibgpu_on_hosts 120 "${CHECK[@]}" --timeout 20 --json "$out" >"$WORK/log" 2>&1
validate "$out"
check_report "$out" slow_pair "$rate" "$rc" "$EXPECT_LOCALISATION"
echo "slow pair: ok (exit $rc, verdicts $([ "$EXPECT_LOCALISATION" = 1 ] && echo asserted || echo 'not asserted: set IBGPU_NETNS_EXPECT_LOCALISATION=1'))"
