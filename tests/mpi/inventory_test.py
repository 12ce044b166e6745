#!/usr/bin/env python3
"""The report checks of tests/mpi/inventory_test.sh: inventory_test.py CASE REPORT [ARG...].

Each CASE is a function below, called with the parsed report and the ARGs; a failed assert
fails the test (exit 1, with the traceback).
"""
import glob
import json
import sys


def hgx_h100_rails(r):
    """Eight ranks on the HGX H100 tree: rank i -> GPU i (bus order) -> its own compute HCA, same switch."""
    host = r["hosts"][0]
    assert host["ranks"] == list(range(8)), host["ranks"]
    rails = host["rails"]
    assert [a["local_rank"] for a in rails] == list(range(8)), rails
    assert [a["gpu_pci"] for a in rails] == [g["pci_address"] for g in host["pci_gpus"]], (rails, host["pci_gpus"])
    assert [a["port"] for a in rails] == ["mlx5_0:1", "mlx5_3:1", "mlx5_4:1", "mlx5_5:1",
                                          "mlx5_6:1", "mlx5_9:1", "mlx5_10:1", "mlx5_11:1"], rails
    assert all(a["proximity"] == "same_switch" and a["note"] is None for a in rails), rails
    storage = {"mlx5_1", "mlx5_2", "mlx5_7", "mlx5_8"}
    assert not storage & {a["port"].split(":")[0] for a in rails}, rails


def two_ranks(r):
    """Two ranks of this host: one host described once, saying honestly what it lacks."""
    hosts = r["hosts"]
    assert len(hosts) == 1, hosts
    assert hosts[0]["ranks"] == [0, 1], hosts[0]["ranks"]
    assert r["run"]["ranks"] == 2
    assert hosts[0]["versions"]["mpi"].startswith("Open MPI"), hosts[0]["versions"]
    assert "PATH" not in hosts[0]["env"] and "HOME" not in hosts[0]["env"]
    # What each rank was given, by rank: rank 1 had CUDA_VISIBLE_DEVICES=1, rank 0 nothing.
    assert hosts[0].get("cuda_visible_devices") == {"1": "1"}, hosts[0].get("cuda_visible_devices")
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
    # Found nothing to check (no GPU, no RDMA device) is unknown, exit 3, never healthy.
    nothing = not hosts[0]["gpus"] and not hosts[0].get("pci_gpus") and not hosts[0]["hcas"]
    assert r["summary"]["exit_code"] == (3 if nothing else 0), r["summary"]
    assert nothing == any(n.startswith("nothing to check") for n in r["run"]["notes"]), r["run"]["notes"]


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
