#!/bin/bash
# A healthy HGX H100 node as data (the hgx-h100 sysfs tree, the test-only NVML injection library
# with the healthy scenario) checked with 2 and 8 ranks under the shipped hgx-h100-ndr profile:
# admitted healthy, exit 0. Its floors are for NCCL over NVLink at 1 GiB and for MPI over RDMA:
# the MPI host all-reduce at the sizes `check` runs and MPI between ranks of one host (its memory
# and scheduling: 8 ranks share this machine's two cores) are recorded, never held to them
# (docs/verdicts.md). The CUDA probes are left out (--skip gpu.cuda): there is no GPU to run them on.
# The 2-rank run asks for the judged sizes (--allreduce-sizes judged): the plan adds 1G for the
# profile's NCCL floor, and over the MPI host backend that size is not run (said why, not judged).
source "$(dirname "$0")/lib.sh"
: "${IBGPU_NVML_INJECTION_DIR:?folder of the NVML injection library (set by CTest)}"
[ -f "$IBGPU_NVML_INJECTION_DIR/libnvidia-ml.so.1" ] || fail "no libnvidia-ml.so.1 in $IBGPU_NVML_INJECTION_DIR"
data=$IBGPU_SOURCE_DIR/tests/data
for np in 2 8; do
  out=$WORK/hgx-$np.json
  sizes=()
  [ "$np" -eq 2 ] && sizes=(--allreduce-sizes judged)
  mpi 150 "$np" -x LD_LIBRARY_PATH="$IBGPU_NVML_INJECTION_DIR" -x IBGPU_NVML_SCENARIO="$data/nvml/hgx_h100_healthy.toml" \
    -x IBGPU_HOSTNAME=n1 "$IBGPU" check --profile hgx-h100-ndr --sysfs-root "$data/sysfs/hgx-h100" --skip gpu.cuda \
    "${sizes[@]}" --json "$out" >"$WORK/hgx-$np.out" 2>"$WORK/hgx-$np.err"
  [ -s "$out" ] || fail "$np ranks: no report (exit $rc): $(tail -n 20 "$WORK/hgx-$np.err")"
  validate "$out"
  check_report "$out" healthy_hgx "$rc" "$np" "${#sizes[@]}"
  # Prometheus joins a GPU's series with its board: one ibgpu_gpu_info per GPU, with its serial.
  info=$("$IBGPU" report "$out" --format prometheus | grep -c '^ibgpu_gpu_info{host="n1",gpu="gpu[0-7]",.*serial="16549220' || true)
  [ "$info" -eq 8 ] || fail "$np ranks: $info ibgpu_gpu_info series with a serial, want 8"
  if [ "${#sizes[@]}" -gt 0 ]; then
    grep -q "ibgpu: plan: .*all-reduce at 1M,16M,1G" "$WORK/hgx-$np.err" || fail "the plan does not name the 1G step"
    grep -q "ibgpu: all-reduce: 1G added to the sweep for the profile's nccl all-reduce floor" "$WORK/hgx-$np.err" ||
      fail "the plan does not say why 1G was added"
  else
    grep -q "ibgpu: all-reduce: the sweep stops at 16M, below the 1G .*--allreduce-sizes judged adds 1G" \
      "$WORK/hgx-$np.err" || fail "the plan does not say the all-reduce stops below the floor's size"
  fi
  echo "healthy HGX node, $np ranks: admitted healthy, exit $rc"
done
