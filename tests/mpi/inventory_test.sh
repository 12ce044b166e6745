#!/bin/bash
# `mpirun -np 2 ibgpu inventory --json` writes a schema-valid report that says
# honestly what this host lacks.
source "$(dirname "$0")/lib.sh"
out=$WORK/inventory.json
# Rank 1 alone is given a GPU (CUDA_VISIBLE_DEVICES), as a launcher gives each task its own: the
# host's record says what each rank was given.
# shellcheck disable=SC2016  # the inner shell expands them
mpi 60 2 sh -c '[ "$OMPI_COMM_WORLD_RANK" = 1 ] && export CUDA_VISIBLE_DEVICES=1; exec "$@"' sh \
  "$IBGPU" inventory --json "$out" >"$WORK/stdout"
# 0, or 3 on a host with no GPU and no RDMA device (nothing to check): two_ranks says which.
{ [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ]; } || fail "inventory exited $rc"
validate "$out"
grep -q "^Hosts" "$WORK/stdout" || fail "no table on stdout"
check_report "$out" two_ranks

# Eight ranks on an HGX H100 node that exists only as sysfs (no GPU driver): each rank's GPU in bus
# order and that GPU's own compute HCA behind its switch, never a storage or in-band HCA.
mpi 60 8 "$IBGPU" inventory --sysfs-root "$IBGPU_SOURCE_DIR/tests/data/sysfs/hgx-h100" --json "$WORK/hgx.json" \
  >"$WORK/hgx.txt"
[ "$rc" -eq 0 ] || fail "inventory of the HGX H100 tree exited $rc"
validate "$WORK/hgx.json"
grep -q "^Rail plan" "$WORK/hgx.txt" || fail "no rail plan in the table: $(cat "$WORK/hgx.txt")"
check_report "$WORK/hgx.json" hgx_h100_rails
echo "inventory over 2 ranks: ok"
