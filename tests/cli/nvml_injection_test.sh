#!/bin/bash
# The real binary on an HGX H100 node that exists only as data: the test-only
# NVML injection library (libnvidia-ml.so.1 in the test build, answering from
# tests/data/nvml/*.toml) is found through LD_LIBRARY_PATH where ibgpu looks for
# the driver's library, and the node's eight NDR rails are a sysfs fixture
# tree. `ibgpu inventory` lists the eight GPUs (one NVML refuses, listed with
# its error); `ibgpu check` on hgx-h100-ndr fails and excludes the GPU with
# uncorrectable ECC errors, and only it (the node is drained all the same:
# without a CUDA driver its compute checks are unknown). Both reports are
# valid against the schema where python3-jsonschema is installed.
source "$(dirname "$0")/lib.sh"
: "${IBGPU_NVML_INJECTION_DIR:?folder of the NVML injection library (set by CTest)}"
[ -f "$IBGPU_NVML_INJECTION_DIR/libnvidia-ml.so.1" ] || fail "no libnvidia-ml.so.1 in $IBGPU_NVML_INJECTION_DIR"
export IBGPU_HOSTNAME=n1
check_py="$(dirname "$0")/nvml_injection_test.py"

# run_with SCENARIO ARGS...: ibgpu with the injection library and that scenario.
run_with() {
  local scenario=$1
  shift
  LD_LIBRARY_PATH="$IBGPU_NVML_INJECTION_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    IBGPU_NVML_SCENARIO="$DATA/nvml/$scenario.toml" run "$@"
}

# Eight NDR rails: the fixture's mlx5_0 copied to six more PCI functions beside mlx5_1.
tree=$WORK/rails
cp -a "$DATA/sysfs/cx7-ndr" "$tree"
src=$tree/devices/pci0000:15/0000:15:01.0/0000:17:00.0
[ -d "$src/infiniband/mlx5_0" ] || fail "fixture layout changed: no $src/infiniband/mlx5_0"
for k in 2 3 4 5 6 7; do
  bridge=$tree/devices/pci0000:15/0000:15:0$k.0
  mkdir -p "$bridge"
  cp -a "$src" "$bridge/0000:2$k:00.0"
  mv "$bridge/0000:2$k:00.0/infiniband/mlx5_0" "$bridge/0000:2$k:00.0/infiniband/mlx5_$k"
  ln -sfn "../../../0000:2$k:00.0" "$bridge/0000:2$k:00.0/infiniband/mlx5_$k/device"
  ln -s "../../devices/pci0000:15/0000:15:0$k.0/0000:2$k:00.0/infiniband/mlx5_$k" "$tree/class/infiniband/mlx5_$k"
done

run_with h100_no_permission inventory --sysfs-root "$tree" --json "$WORK/inventory.json"
[ "$rc" -eq 0 ] || fail "inventory: exit $rc: $(tail -n 5 "$WORK/out") $(cat "$WORK/err")"
python3 "$check_py" inventory "$WORK/inventory.json" || fail "inventory (above)"

run_with h100_ecc_uncorrectable check --profile hgx-h100-ndr --sysfs-root "$tree" --allreduce off \
  --json "$WORK/check.json"
[ -s "$WORK/check.json" ] || fail "check wrote no report: exit $rc: $(tail -n 5 "$WORK/out") $(cat "$WORK/err")"
python3 "$check_py" ecc "$WORK/check.json" "$rc" || fail "check, gpu3 with ECC errors (above)"
"$IBGPU_SOURCE_DIR/tests/tools/prometheus_clean.sh" "$WORK/check.json" || fail "check: the Prometheus text is not clean"
if python3 -c 'import jsonschema' 2>/dev/null; then
  for report in inventory check; do
    python3 "$IBGPU_SOURCE_DIR/tests/tools/validate_json.py" "$IBGPU_SOURCE_DIR/reports/schema/report.schema.json" \
      "$WORK/$report.json" || fail "$report.json is not valid against the report schema (above)"
  done
fi

# The HGX H100 tree (eight GPUs on the PCI bus, its own rails) with one GPU fallen off the bus:
# NVML lists seven, and the missing one is named by its bus id.
run_with hgx_h100_gpu_off_the_bus check --profile hgx-h100-ndr --sysfs-root "$DATA/sysfs/hgx-h100" \
  --allreduce off --json "$WORK/off.json"
[ -s "$WORK/off.json" ] || fail "check wrote no report: exit $rc: $(tail -n 5 "$WORK/out") $(cat "$WORK/err")"
python3 "$check_py" off_the_bus "$WORK/off.json" "$rc" || fail "check, a GPU off the bus (above)"

# Without the library on the search path the same binary finds no NVML: nothing is found by default.
IBGPU_NVML_SCENARIO="$DATA/nvml/h100_healthy.toml" run inventory --sysfs-root "$tree" --json "$WORK/plain.json"
python3 "$check_py" no_driver "$WORK/plain.json" || fail "inventory without the injection library (above)"
echo "nvml injection: ok"
