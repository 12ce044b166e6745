#!/bin/bash
# `ibgpu probe list`: the catalogue, and whether each kind runs on this host
# and why not, read from the host (here: sysfs fixture trees); no MPI.
source "$(dirname "$0")/lib.sh"

# Every kind once, with its traits; RDMA kinds runnable where the tree has an active port.
run probe list --json - --sysfs-root "$DATA/sysfs/cx7-ndr"
[ "$rc" -eq 0 ] || fail "probe list exited $rc: $(cat "$WORK/err")"
python3 "$(dirname "$0")/probe_list_test.py" active "$WORK/out" || fail "catalogue with an active port (above)"

# No RDMA device: the verbs and sysfs kinds say why; the MPI ones still run.
run probe list --json - --sysfs-root "$DATA/sysfs/empty"
[ "$rc" -eq 0 ] || fail "probe list on an empty tree exited $rc: $(cat "$WORK/err")"
python3 "$(dirname "$0")/probe_list_test.py" no_rdma "$WORK/out" "$DATA/sysfs/empty" || fail "catalogue without RDMA (above)"

# The table names every kind, and what does not run here says why.
run probe list --sysfs-root "$DATA/sysfs/empty" --json "$WORK/catalogue.json"
[ "$rc" -eq 0 ] || fail "probe list as a table exited $rc"
grep -q "^  net.verbs.write_bw .* no: no RDMA device under " "$WORK/out" || fail "table row of write_bw: $(cat "$WORK/out")"
grep -q "^  net.mpi.bw .* runs$" "$WORK/out" || fail "table row of net.mpi.bw: $(cat "$WORK/out")"
python3 "$(dirname "$0")/probe_list_test.py" no_rdma "$WORK/catalogue.json" "$DATA/sysfs/empty" || fail "--json FILE"

# A bad option is a usage error.
run probe list --no-such-option
[ "$rc" -eq 64 ] || fail "a bad option exited $rc, not 64"
echo "probe list: ok"
