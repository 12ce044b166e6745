#!/usr/bin/env python3
"""The report checks of tests/mpi/inventory_test.sh: inventory_test.py CASE REPORT [ARG...].

Each CASE is a function below, called with the parsed report and the ARGs; a failed assert
fails the test (exit 1, with the traceback).
"""
import glob
import json
import sys


def two_ranks(r):
    """Two ranks of this host: one host described once, saying honestly what it lacks."""
    hosts = r["hosts"]
    assert len(hosts) == 1, hosts
    assert hosts[0]["ranks"] == [0, 1], hosts[0]["ranks"]
    assert r["run"]["ranks"] == 2
    assert hosts[0]["versions"]["mpi"].startswith("Open MPI"), hosts[0]["versions"]
    assert "PATH" not in hosts[0]["env"] and "HOME" not in hosts[0]["env"]
    probes = {p["id"]: p for p in r["probes"]}
    # One description per host, from its first rank.
    assert sorted(p["id"] for p in r["probes"]) == ["inventory.gpu", "inventory.rdma"], r["probes"]
    if not glob.glob("/sys/class/infiniband/*"):
        assert probes["inventory.rdma"]["status"] == "skipped"
        assert "no RDMA device" in probes["inventory.rdma"]["reason"], probes["inventory.rdma"]
        assert hosts[0]["hcas"] == []
    gpu = probes["inventory.gpu"]
    if gpu["status"] == "skipped":
        assert "libnvidia-ml.so.1" in gpu["reason"] or "nvmlInit" in gpu["reason"], gpu
        assert hosts[0]["gpus"] == []
    assert r["summary"]["exit_code"] == 0


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
