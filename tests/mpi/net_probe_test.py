#!/usr/bin/env python3
"""The report checks of tests/mpi/net_probe_test.sh: net_probe_test.py CASE REPORT [ARG...].

Each CASE is a function below, called with the parsed report and the ARGs; a failed assert
fails the test (exit 1, with the traceback).
"""
import json
import sys


def bandwidth(r):
    """`probe bw` over hosts h0-h3 at 64K and 1M: every pair once per size, in 3 rounds of 2 pairs."""
    bw = [p for p in r["probes"] if p["id"] == "net.mpi.bw"]
    pairs = sorted({tuple(p["scope"]["hosts"]) for p in bw})
    assert pairs == [("h0", "h1"), ("h0", "h2"), ("h0", "h3"), ("h1", "h2"), ("h1", "h3"), ("h2", "h3")], pairs
    assert len(bw) == 12, len(bw)
    rounds = {}
    for p in bw:
        assert p["status"] == "ok", p
        assert p["params"]["size_B"] in (65536, 1048576)
        assert p["params"]["transport"] == "mpi"
        m = p["metrics"]
        assert m["bw_avg_GBps"] > 0 and abs(m["bw_avg_Gbps"] - 8 * m["bw_avg_GBps"]) < 1e-6 * m["bw_avg_Gbps"], m
        assert m["bw_peak_GBps"] >= m["bw_avg_GBps"] * 0.999, m
        rounds.setdefault(p["params"]["round"], set()).update(p["scope"]["hosts"])
    assert len(rounds) == 3, rounds
    assert all(len(h) == 4 for h in rounds.values()), rounds  # 2 disjoint pairs per round


def latency(r):
    """`probe lat` of 200 iterations: 6 pairs, each with consistent statistics of 198 samples."""
    lat = [p for p in r["probes"] if p["id"] == "net.mpi.lat"]
    assert len(lat) == 6, len(lat)
    for p in lat:
        s = p["metrics"]["lat_us"]
        assert s["n"] == 198, s  # 200 samples, the 2 largest dropped as perftest does
        assert 0 < s["min"] <= s["p50"] <= s["p90"] <= s["p99"] <= s["p999"] <= s["max"], s
        assert s["stddev"] >= 0 and s["min"] <= s["mean"] <= s["max"], s


def stopped_h3(r):
    """h3's rank stopped mid-probe: lost, its pairs time out naming it, the other pairs complete."""
    lost = [p for p in r["probes"] if p["id"] == "cluster.gather"]
    assert len(lost) == 1 and lost[0]["scope"]["hosts"] == ["h3"], lost
    timeouts = [p for p in r["probes"] if p["id"] == "net.mpi.bw" and p["status"] == "timeout"]
    assert timeouts, r["probes"]
    for p in timeouts:
        assert "h3" in p["scope"]["hosts"], p
        assert "host h3" in p["error"], p["error"]
    # Pairs without h3 all complete (pairs with h3 may have finished before the stop).
    ok = {tuple(p["scope"]["hosts"]) for p in r["probes"] if p["id"] == "net.mpi.bw" and p["status"] == "ok"}
    assert {("h0", "h1"), ("h0", "h2"), ("h1", "h2")} <= ok, ok


def killed_h2(r):
    """h2's rank killed mid-probe: rank 0 still reports it lost."""
    lost = [p for p in r["probes"] if p["id"] == "cluster.gather"]
    assert any(p["scope"]["hosts"] == ["h2"] for p in lost), lost


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
