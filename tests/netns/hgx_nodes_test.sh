#!/bin/bash
# Four HGX H100 nodes end to end: namespace hosts h1..h4, each with its own sysfs tree (the
# hgx-h100 fixture: eight GPUs behind four PCIe switches, eight NDR compute HCAs interleaved
# with storage and in-band ones) and its own NVML (the test-only injection library with a
# scenario per host), `ibgpu check --profile hgx-h100-ndr` over real MPI between them.
#   h1, h4  healthy                 admit, 8 GPUs and 8 rails
#   h2      gpu3 uncorrectable ECC  admit_degraded: 7 GPUs, gpu3's rail left out with it
#   h3      gpu7 fallen off the bus drain: GPU_MISSING naming its bus id
# Storage and in-band ports are never rails; the rail plan is in the report; the Kubernetes
# labels and the Slurm drain command (--slurm-drain --dry-run) say the same.
# The profile is hgx-h100-ndr as shipped for everything a node has; only its network limits
# are the lane's (veth between namespaces is no NDR fabric), and the CUDA probes are left out
# with --skip gpu.cuda (there is no GPU to run them on).
source "$(dirname "$0")/lib.sh"
hosts_up 4
gpu_nodes hgx-h100

# Each host's NVML scenario, by host name.
nvml=$IBGPU_SOURCE_DIR/tests/data/nvml
echo "$nvml/hgx_h100_healthy.toml" >"$WORK/scenario/h1"
echo "$nvml/hgx_h100_ecc_uncorrectable.toml" >"$WORK/scenario/h2"
echo "$nvml/hgx_h100_gpu_off_the_bus.toml" >"$WORK/scenario/h3"
echo "$nvml/hgx_h100_healthy.toml" >"$WORK/scenario/h4"

profile=$WORK/hgx-h100-ndr-netns.toml
check_report "$IBGPU_SOURCE_DIR/profiles/hgx-h100-ndr.toml" lane_profile "$IBGPU_SOURCE_DIR/tests/netns/lane.toml" \
  "$profile" || fail "could not write the lane's hgx-h100-ndr profile"

out=$WORK/hgx.json
ibgpu_on_hosts 120 check --profile "$profile" --skip gpu.cuda --transport mpi \
  --pairs all --sizes 64K --window 16 --iters 10 --allreduce off --timeout 20 \
  --slurm-drain --dry-run --json "$out" >"$WORK/check.out" 2>"$WORK/check.log"
[ -s "$out" ] || fail "no report (exit $rc): $(tail -n 20 "$WORK/check.log")"
validate "$out"
check_report "$out" decisions "$rc" "$WORK/check.log" || fail "decisions not as expected (above; log: $WORK/check.log)"
echo "hgx nodes: h1 h4 admit, h2 admit_degraded without gpu3 and its rail, h3 drained for gpu7 (exit $rc)"
