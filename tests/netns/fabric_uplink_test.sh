#!/bin/bash
# A fabric fault: six hosts on two "leaf switches" (bridges), three on each, joined by one veth
# pair (the uplink) limited with tbf. Every pair across the leaves is slow, every pair within a
# leaf is not, and no host is at fault. With a topology.conf naming the leaves: one uplink (or
# switch) verdict, no node blamed, no link blamed. Without it: no node blamed either (each host is
# slow with 3 of its 5 peers, a majority): one path verdict between the two groups.
source "$(dirname "$0")/lib.sh"
hosts_up 6
netns_two_leaves 3
rate=${IBGPU_NETNS_UPLINK_RATE:-50mbit}  # 6 MB/s; a pair within a leaf measures 0.09-0.5 GB/s here
netns_limit_uplink "$rate"
# 9 of the 15 pairs cross the uplink, so the fleet median is one of them and the fleet rule alone
# sees nothing: the lane's profile plus a floor between a pair through 50mbit (under 0.007 GB/s)
# and the slowest clean pair seen on this machine (0.09 GB/s).
profile=$WORK/fabric_lane.toml
{
  cat "$IBGPU_SOURCE_DIR/tests/netns/lane.toml"
  printf '\n[network.mpi_bw_GBps]\ndegraded = 0.03\n'
} >"$profile"
PROFILE=(--profile "$profile")
check_with 10
cat >"$WORK/topology.conf" <<'EOF'
# The two bridges of this test, as Slurm's topology.conf describes them
SwitchName=leaf1 Nodes=h[1-3]
SwitchName=leaf2 Nodes=h[4-6]
SwitchName=spine Switches=leaf[1-2]
EOF

out=$WORK/with_topology.json
# With the cabling ibnetdiscover printed for a fabric of the same shape (tests/data/cabling: leaf1
# h1-h3, leaf2 h4-h6, two uplinks each to spine1): the blamed leaf's uplink cables get work orders.
ibgpu_on_hosts 180 "${CHECK[@]}" --timeout 30 --topology "$WORK/topology.conf" \
  --cabling "$IBGPU_SOURCE_DIR/tests/data/cabling/two_leaves.ibnetdiscover" --json "$out" >"$WORK/with.log" 2>&1
validate "$out"
check_report "$out" with_topology "$rc" "$rate"
echo "fabric uplink with topology.conf: ok (exit $rc)"

out=$WORK/without_topology.json
ibgpu_on_hosts 180 "${CHECK[@]}" --timeout 30 --json "$out" >"$WORK/without.log" 2>&1
validate "$out"
check_report "$out" without_topology "$rc" "$rate"
echo "fabric uplink without topology.conf: ok (exit $rc)"
