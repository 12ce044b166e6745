#!/bin/bash
# A node checked alone (one process, no mpirun: a Slurm health check, a node
# back from repair): the checks between hosts are out of scope (run.scope
# node), so a CPU-only node on the `cpu` profile is healthy, exit 0. The rows of
# the decision table (docs/verdicts.md) through the real binary: one RDMA port
# of two DOWN is a rail excluded and the node admitted degraded, exit 1; both
# DOWN leave no rail and the node is not admitted, exit 2; on the `generic`
# profile, which expects GPUs to be checkable, what could not run leaves the
# node not decided, exit 3, and the run names --profile cpu. Each row's
# admission as `ibgpu report --format admission` prints it for scripts.
# (The rows with a finding and a check missing: tests/cli/nvml_injection_test.sh.)
# Host state is read from sysfs fixture trees, so the host's own RDMA devices
# do not matter.
source "$(dirname "$0")/lib.sh"
export IBGPU_HOSTNAME=n1
check_py="$(dirname "$0")/one_node_test.py"

run check --profile cpu --sysfs-root "$DATA/sysfs/empty" --json "$WORK/cpu.json"
[ "$rc" -eq 0 ] || fail "cpu profile, no GPU or RDMA: exit $rc, not 0: $(tail -n 5 "$WORK/out") $(cat "$WORK/err")"
python3 "$check_py" healthy "$WORK/cpu.json" || fail "cpu profile, no GPU or RDMA (above)"
grep -q "^Summary: healthy, exit 0" "$WORK/out" || fail "summary line: $(tail -n 3 "$WORK/out")"

# port_down PORT_DIR: the kernel's own text for a port whose peer is gone.
port_down() {
  [ -f "$1/state" ] || fail "fixture layout changed: no $1/state"
  echo "1: DOWN" >"$1/state"
  echo "2: Polling" >"$1/phys_state"
}

# Two NDR ports, one made DOWN.
cp -a "$DATA/sysfs/cx7-ndr" "$WORK/tree"
port_down "$WORK/tree/devices/pci0000:97/0000:97:01.0/0000:99:00.0/infiniband/mlx5_1/ports/1"
# With the as-built cabling (--cabling): the DOWN port's work order names its cable and switch port.
run check --profile cpu --sysfs-root "$WORK/tree" --cabling "$DATA/cabling/n1_as_built.txt" --json "$WORK/down.json"
[ "$rc" -eq 1 ] || fail "cpu profile, a port DOWN: exit $rc, not 1: $(tail -n 5 "$WORK/out")"
python3 "$check_py" port_down_work_order "$WORK/down.json" || fail "cpu profile, a port DOWN (above)"
grep -q "^Summary: degraded, exit 1" "$WORK/out" || fail "summary line: $(tail -n 3 "$WORK/out")"
grep -q "^  n1 mlx5_1:1 <-> leaf1 port 8: failed (hca_port n1/mlx5_1:1)$" "$WORK/out" ||
  fail "no work order in the table: $(grep -A6 '^Work orders' "$WORK/out")"
# A cabling file it cannot read: a usage error naming the file and line, before anything runs.
printf 'vendid=0x2c9\n[1]\t"H-0c42a10300b1c210"[1]\t\t# "n1 mlx5_0" lid 11 4xNDR\n' >"$WORK/bad_cabling.txt"
run check --profile cpu --sysfs-root "$WORK/tree" --cabling "$WORK/bad_cabling.txt"
[ "$rc" -eq 64 ] || fail "--cabling with a port line before any node: exit $rc, not 64"
grep -q "cabling: .*bad_cabling.txt:2: a port line before any node's header (Switch or Ca)" "$WORK/err" ||
  fail "error: $(cat "$WORK/err")"

# admission ROW REPORT: the node's line of `ibgpu report --format admission`.
admission() {
  local line
  line=$("$IBGPU" report "$2" --format admission) || fail "report --format admission $2: exit $?"
  [ "$line" = "$1" ] || fail "admission line of $2: '$line', want '$1'"
}
admission "$(printf 'n1\tadmit_degraded\tdegraded\texcluded:mlx5_1:1')" "$WORK/down.json"

# Both ports DOWN: no rail left, the node is not admitted for a finding.
port_down "$WORK/tree/devices/pci0000:15/0000:15:01.0/0000:17:00.0/infiniband/mlx5_0/ports/1"
run check --profile cpu --sysfs-root "$WORK/tree" --json "$WORK/both.json"
[ "$rc" -eq 2 ] || fail "cpu profile, both ports DOWN: exit $rc, not 2: $(tail -n 5 "$WORK/out")"
grep -q "^Summary: failed, exit 2" "$WORK/out" || fail "summary line: $(tail -n 3 "$WORK/out")"
admission "$(printf 'n1\tdrain\tfailed\texcluded:mlx5_0:1,mlx5_1:1')" "$WORK/both.json"

# The same tree with both ports up: healthy, both rails usable.
run check --profile cpu --sysfs-root "$DATA/sysfs/cx7-ndr" --json "$WORK/up.json"
[ "$rc" -eq 0 ] || fail "cpu profile, two ACTIVE ports: exit $rc, not 0: $(tail -n 5 "$WORK/out")"

# generic expects nothing, but calls what could not run unknown: the GPU checks
# are in scope on one host (and skipped without a driver here); the pairs are not.
run check --sysfs-root "$DATA/sysfs/empty" --json "$WORK/generic.json"
[ "$rc" -eq 3 ] || fail "generic profile, no GPU driver: exit $rc, not 3"
python3 "$check_py" generic_unknown "$WORK/generic.json" || fail "generic profile (above)"
grep -q -- "--profile cpu" "$WORK/out" || fail "the first run on a CPU host does not name --profile cpu: $(cat "$WORK/out")"
# --topology: a node the file does not list is unplaced (a note, not an error); a bad line is a
# usage error naming the file and line, before anything runs.
run check --profile cpu --sysfs-root "$DATA/sysfs/empty" --topology "$DATA/topology/two_leaves.conf" \
  --json "$WORK/topo.json"
[ "$rc" -eq 0 ] || fail "--topology with an unplaced node: exit $rc, not 0: $(cat "$WORK/err")"
grep -q '"topology: [^"]*two_leaves.conf, 0 of 1 host on its leaf switches; unplaced[^"]*: n1"' "$WORK/topo.json" ||
  fail "no unplaced note: $(grep -o '"notes":[^]]*' "$WORK/topo.json")"
run check --profile cpu --sysfs-root "$DATA/sysfs/empty" --topology "$DATA/topology/host_twice.conf"
[ "$rc" -eq 64 ] || fail "--topology with a host on two switches: exit $rc, not 64"
grep -q "host_twice.conf:3: host gpu004 is on two switches" "$WORK/err" || fail "error: $(cat "$WORK/err")"
echo "one node: ok"
