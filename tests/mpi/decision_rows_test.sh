#!/bin/bash
# The decision table's rows with a finding or a missing check (docs/verdicts.md, rows 3 to 6)
# through the real binary under mpirun: two ranks on one node (IBGPU_HOSTNAME=n1), as a one-node
# check is launched on a GPU node. Rows 1 and 2 under mpirun: hgx_node_test.sh and check_test.sh.
# Each row asserts what the operator acts on: the node's state and action, the run's exit code,
# its summary line, and the admission line scripts read (`ibgpu report --format admission`:
# NODE, ACTION, STATE, and the codes the drain reason is made of).
#   3. a finding, nothing missing: both RDMA ports DOWN under the cpu profile: failed, drain, exit 2
#   4. nothing found, a check missing: the generic profile without a GPU driver: unknown, drain,
#      exit 3, and the run names --profile cpu
#   5. a degraded finding, a check missing: the HGX node with gpu3's ECC errors (NVML injection)
#      and no CUDA driver: degraded (gpu3 excluded), drain, exit 3
#   6. a failed finding, a check missing: a GPU off the bus: failed, drain, exit 2
# Within one node the MPI all-reduce and the pairs between its ranks are recorded, not judged:
# they change no row.
source "$(dirname "$0")/lib.sh"
: "${IBGPU_NVML_INJECTION_DIR:?folder of the NVML injection library (set by CTest)}"
[ -f "$IBGPU_NVML_INJECTION_DIR/libnvidia-ml.so.1" ] || fail "no libnvidia-ml.so.1 in $IBGPU_NVML_INJECTION_DIR"
data=$IBGPU_SOURCE_DIR/tests/data

# row N WANT_EXIT WANT_ADMISSION MPIRUN_ARGS... -- CHECK_ARGS...: one run of the row, then its checks.
row() {
  local n=$1 want_rc=$2 want_line=$3 args=() out=$WORK/row$1.json line
  shift 3
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  mpi 150 2 -x IBGPU_HOSTNAME=n1 "${args[@]}" "$IBGPU" check "$@" --json "$out" >"$WORK/row$n.out" 2>&1
  [ -s "$out" ] || fail "row $n: no report (exit $rc): $(tail -n 20 "$WORK/row$n.out")"
  validate "$out"
  [ "$rc" -eq "$want_rc" ] || fail "row $n: exit $rc, not $want_rc: $(grep '^Summary' "$WORK/row$n.out")"
  line=$("$IBGPU" report "$out" --format admission) || fail "row $n: report --format admission: exit $?"
  [ "$line" = "$want_line" ] || fail "row $n: admission line '$line', want '$want_line'"
  check_report "$out" "row$n" "$rc"
  echo "row $n: $(grep '^Summary' "$WORK/row$n.out"); $line"
}

tree=$WORK/both-down
cp -a "$data/sysfs/cx7-ndr" "$tree"
for port in devices/pci0000:97/0000:97:01.0/0000:99:00.0/infiniband/mlx5_1/ports/1 \
  devices/pci0000:15/0000:15:01.0/0000:17:00.0/infiniband/mlx5_0/ports/1; do
  [ -f "$tree/$port/state" ] || fail "fixture layout changed: no $port/state"
  echo "1: DOWN" >"$tree/$port/state"
  echo "2: Polling" >"$tree/$port/phys_state"
done
row 3 2 "$(printf 'n1\tdrain\tfailed\texcluded:mlx5_0:1,mlx5_1:1')" -- --profile cpu --sysfs-root "$tree"
grep -q "^Summary: failed, exit 2" "$WORK/row3.out" || fail "row 3: summary line"

row 4 3 "$(printf 'n1\tdrain\tunknown\tnot-checked:CHECK_SKIPPED')" -- --sysfs-root "$data/sysfs/empty"
grep -q "^Summary: unknown, exit 3" "$WORK/row4.out" || fail "row 4: summary line"
grep -q -- "--profile cpu" "$WORK/row4.out" || fail "row 4: the run on a CPU host does not name --profile cpu"

nvml=(-x LD_LIBRARY_PATH="$IBGPU_NVML_INJECTION_DIR")
row 5 3 "$(printf 'n1\tdrain\tdegraded\tGPUS_UNHEALTHY,not-checked:CHECK_SKIPPED,excluded:gpu3')" \
  "${nvml[@]}" -x IBGPU_NVML_SCENARIO="$data/nvml/hgx_h100_ecc_uncorrectable.toml" -- \
  --profile hgx-h100-ndr --sysfs-root "$data/sysfs/hgx-h100"
grep -q "^Summary: unknown, exit 3" "$WORK/row5.out" || fail "row 5: summary line"

row 6 2 "$(printf 'n1\tdrain\tfailed\tGPU_MISSING,not-checked:CHECK_SKIPPED')" \
  "${nvml[@]}" -x IBGPU_NVML_SCENARIO="$data/nvml/hgx_h100_gpu_off_the_bus.toml" -- \
  --profile hgx-h100-ndr --sysfs-root "$data/sysfs/hgx-h100"
grep -q "^Summary: failed, exit 2" "$WORK/row6.out" || fail "row 6: summary line"
