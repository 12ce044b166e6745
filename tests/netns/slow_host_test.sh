#!/bin/bash
# One host's link rate-limited (tbf on both ends of its veth): every pair through that host
# measures clearly less bandwidth than every other pair, and nothing else goes wrong.
# Five hosts, not four: with four, the slow host is in 3 of the 6 pairs, so a fleet median (the
# lower one, for an even count) is one of its own pairs and no fleet-relative rule can see it.
# With five it is in 4 of 10 pairs and the median is a clean pair's.
source "$(dirname "$0")/lib.sh"
hosts_up 5
slow=h2
rate=${IBGPU_NETNS_SLOW_RATE:-50mbit}  # 6 MB/s; an unimpaired pair measures 0.25-0.5 GB/s here
netns_limit_host 2 "$rate"
out=$WORK/slow_host.json
# The cabling as iblinkinfo printed it for a two-leaf fabric of h1-h6 (tests/data/cabling): the
# slow host's work order names its cable.
ibgpu_on_hosts 120 "${CHECK[@]}" --timeout 20 --cabling "$IBGPU_SOURCE_DIR/tests/data/cabling/two_leaves.iblinkinfo" \
  --json "$out" >"$WORK/log" 2>&1
validate "$out"
# What Prometheus would scrape of it passes Prometheus' own check.
"$IBGPU_SOURCE_DIR/tests/tools/prometheus_clean.sh" "$out" || fail "slow host: the Prometheus text is not clean"
check_report "$out" slow_host "$slow" "$rate" "$rc" "$EXPECT_LOCALISATION"
echo "slow host: ok (exit $rc, verdicts $([ "$EXPECT_LOCALISATION" = 1 ] && echo asserted || echo 'not asserted: set IBGPU_NETNS_EXPECT_LOCALISATION=1'))"
