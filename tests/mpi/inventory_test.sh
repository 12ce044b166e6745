#!/bin/bash
# `mpirun -np 2 ibgpu inventory --json` writes a schema-valid report that says
# honestly what this host lacks.
source "$(dirname "$0")/lib.sh"
out=$WORK/inventory.json
mpi 60 2 "$IBGPU" inventory --json "$out" >"$WORK/stdout"
[ "$rc" -eq 0 ] || fail "inventory exited $rc"
validate "$out"
grep -q "^Hosts" "$WORK/stdout" || fail "no table on stdout"
check_report "$out" two_ranks
echo "inventory over 2 ranks: ok"
