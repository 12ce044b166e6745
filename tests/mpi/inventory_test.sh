#!/bin/bash
# `mpirun -np 2 ibgpu inventory --json` writes a schema-valid report that says
# honestly what this host lacks.
source "$(dirname "$0")/lib.sh"
out=$WORK/inventory.json
mpi 60 2 "$IBGPU" inventory --json "$out" >"$WORK/stdout"
[ "$rc" -eq 0 ] || fail "inventory exited $rc"
validate "$out"
grep -q "^Hosts" "$WORK/stdout" || fail "no table on stdout"
check_json "$out" '
hosts = r["hosts"]
assert len(hosts) == 1, hosts
assert hosts[0]["ranks"] == [0, 1], hosts[0]["ranks"]
assert r["run"]["ranks"] == 2
assert hosts[0]["versions"]["mpi"].startswith("Open MPI"), hosts[0]["versions"]
assert "PATH" not in hosts[0]["env"] and "HOME" not in hosts[0]["env"]
probes = {p["id"]: p for p in r["probes"]}
# One description per host, from its first rank.
assert sorted(p["id"] for p in r["probes"]) == ["inventory.gpu", "inventory.rdma"], r["probes"]
import os, glob
if not glob.glob("/sys/class/infiniband/*"):
    assert probes["inventory.rdma"]["status"] == "skipped"
    assert "no RDMA device" in probes["inventory.rdma"]["reason"], probes["inventory.rdma"]
    assert hosts[0]["hcas"] == []
gpu = probes["inventory.gpu"]
if gpu["status"] == "skipped":
    assert "libnvidia-ml.so.1" in gpu["reason"] or "nvmlInit" in gpu["reason"], gpu
    assert hosts[0]["gpus"] == []
assert r["summary"]["exit_code"] == 0
'
echo "inventory over 2 ranks: ok"
