#!/bin/bash
# A node checked alone (one process, no mpirun: a Slurm health check, a node
# back from repair): the checks between hosts are out of scope (run.scope
# node), so a CPU-only node on the `cpu` profile is healthy, exit 0; an RDMA
# port DOWN in its sysfs tree fails it, exit 2; and on the `generic` profile,
# which expects GPUs to be checkable, what could not run stays unknown, exit 3.
# Host state is read from sysfs fixture trees, so the host's own RDMA devices
# do not matter.
source "$(dirname "$0")/lib.sh"
export IBGPU_HOSTNAME=n1
check_py="$(dirname "$0")/one_node_test.py"

run check --profile cpu --sysfs-root "$DATA/sysfs/empty" --json "$WORK/cpu.json"
[ "$rc" -eq 0 ] || fail "cpu profile, no GPU or RDMA: exit $rc, not 0: $(tail -n 5 "$WORK/out") $(cat "$WORK/err")"
python3 "$check_py" healthy "$WORK/cpu.json" || fail "cpu profile, no GPU or RDMA (above)"
grep -q "^Summary: healthy, exit 0" "$WORK/out" || fail "summary line: $(tail -n 3 "$WORK/out")"

# Two NDR ports, one made DOWN (the kernel's own text for a port whose peer is gone).
cp -a "$DATA/sysfs/cx7-ndr" "$WORK/tree"
port=$WORK/tree/devices/pci0000:97/0000:97:01.0/0000:99:00.0/infiniband/mlx5_1/ports/1
[ -f "$port/state" ] || fail "fixture layout changed: no $port/state"
echo "1: DOWN" >"$port/state"
echo "2: Polling" >"$port/phys_state"
run check --profile cpu --sysfs-root "$WORK/tree" --json "$WORK/down.json"
[ "$rc" -eq 2 ] || fail "cpu profile, a port DOWN: exit $rc, not 2: $(tail -n 5 "$WORK/out")"
python3 "$check_py" port_down "$WORK/down.json" || fail "cpu profile, a port DOWN (above)"

# The same tree with both ports up: healthy, both rails usable.
run check --profile cpu --sysfs-root "$DATA/sysfs/cx7-ndr" --json "$WORK/up.json"
[ "$rc" -eq 0 ] || fail "cpu profile, two ACTIVE ports: exit $rc, not 0: $(tail -n 5 "$WORK/out")"

# generic expects nothing, but calls what could not run unknown: the GPU checks
# are in scope on one host (and skipped without a driver here); the pairs are not.
run check --sysfs-root "$DATA/sysfs/empty" --json "$WORK/generic.json"
[ "$rc" -eq 3 ] || fail "generic profile, no GPU driver: exit $rc, not 3"
python3 "$check_py" generic_unknown "$WORK/generic.json" || fail "generic profile (above)"
# --topology: a node the file does not list is unplaced (a note, not an error); a bad line is a
# usage error naming the file and line, before anything runs.
run check --profile cpu --sysfs-root "$DATA/sysfs/empty" --topology "$DATA/topology/two_leaves.conf" \
  --json "$WORK/topo.json"
[ "$rc" -eq 0 ] || fail "--topology with an unplaced node: exit $rc, not 0: $(cat "$WORK/err")"
grep -q '"topology: [^"]*two_leaves.conf, 0 of 1 host(s) on its leaf switches; unplaced[^"]*: n1"' "$WORK/topo.json" ||
  fail "no unplaced note: $(grep -o '"notes":[^]]*' "$WORK/topo.json")"
run check --profile cpu --sysfs-root "$DATA/sysfs/empty" --topology "$DATA/topology/host_twice.conf"
[ "$rc" -eq 64 ] || fail "--topology with a host on two switches: exit $rc, not 64"
grep -q "host_twice.conf:3: host gpu004 is on two switches" "$WORK/err" || fail "error: $(cat "$WORK/err")"
echo "one node: ok"
