#!/usr/bin/env python3
"""A fleet report for the browser test, made from the shared fixture: 4 hosts on 2 leaves,
bandwidth and latency between every pair (c<->d slow and degraded, a<->d timed out and
failed), an MPI all-reduce sweep on two nodes, nodes in every state (b not judged), and a burn-in of 6
rounds in which a<->d failed rounds 3 and 5.

  fleet_fixture.py BASE.json OUT.json
"""
import copy, json, sys
base = json.load(open(sys.argv[1]))
hosts = ["a", "b", "c", "d"]
leaf = {"a": "leaf1", "b": "leaf1", "c": "leaf2", "d": "leaf2"}
r = copy.deepcopy(base)
r["hosts"] = []
for h in hosts:
    inv = copy.deepcopy(base["hosts"][0])
    inv["name"], inv["leaf"] = h, leaf[h]
    r["hosts"].append(inv)
def pair(pid, a, b, size, metrics, status="ok"):
    return {"id": pid, "status": status, "scope": {"hosts": [a, b], "ranks": [0, 1], "devices": []},
            "params": {"size_B": size}, "metrics": metrics, "reason": None,
            "error": None if status == "ok" else "peer did not answer within 60 s"}
def stats(p50):
    return {"n": 100, "min": p50 * 0.9, "p50": p50, "p90": p50, "p99": p50 * 1.5, "p999": p50 * 2,
            "max": p50 * 2, "mean": p50, "stddev": 0.1}
r["probes"] = []
for i, a in enumerate(hosts):
    for b in hosts[i + 1:]:
        slow, dead = (a, b) == ("c", "d"), (a, b) == ("a", "d")
        r["probes"].append(pair("net.mpi.bw", a, b, 1048576, {"bw_avg_GBps": None if dead else 3.0 if slow else 11.5},
                                "timeout" if dead else "ok"))
        r["probes"].append(pair("net.mpi.lat", a, b, 8, {"lat_us": stats(9.0 if slow else 2.0)}))
for group in ("a", "b"):
    for size in (1 << 16, 1 << 20, 1 << 24):
        for in_place in (False, True):
            r["probes"].append({"id": "collective.mpi.all_reduce", "status": "ok",
                                "scope": {"hosts": [group], "ranks": [0, 1], "devices": []},
                                "params": {"placement": "node", "group": group, "nranks": 2, "size_B": size,
                                           "in_place": in_place},
                                "metrics": {"busbw_GBps": size / 2**20 + (1 if group == "a" else 2),
                                            "algbw_GBps": 1.0, "time_us_avg": 10.0, "wrong_elements_total": 0},
                                "reason": None, "error": None})
def verdict(kind, eid, state, code=None, action=None):
    v = {"entity": {"kind": kind, "id": eid}, "state": state, "action": action,
         "reasons": [] if code is None else [{"code": code, "message": code.lower(), "metric": None,
                                              "value": None, "threshold": None}]}
    if kind == "node":
        v["usable"], v["excluded"] = [], []
    return v
r["verdicts"] = [verdict("link", "c<->d", "degraded", "NET_BW_LOW"), verdict("link", "a<->d", "failed", "BURN_IN_FLAKY"),
                 verdict("node", "a", "healthy", None, "admit"), verdict("gpu", "b/gpu0", "unknown", "CHECK_SKIPPED"),
                 verdict("node", "c", "degraded", "NET_BW_LOW", "admit_degraded"),
                 verdict("node", "d", "failed", "PROBE_TIMEOUT", "drain")]
# b has no node verdict of its own: its row says "not judged".
r["summary"] = {"state": "failed", "admit": ["a"], "admit_degraded": ["c"], "drain": ["d"], "exit_code": 2}
def figure(values):
    return {"figure": "net.mpi.bw@1048576:bw_avg_GBps", "metric": "bw_avg_GBps", "rails": None, "sense": "floor",
            "worst": min(values), "median": sorted(values)[len(values) // 2], "count": len(values),
            "series": [{"round": i + 1, "value": v} for i, v in enumerate(values)]}
def entity(kind, eid, states, bad, values):
    return {"entity": {"kind": kind, "id": eid}, "rounds_judged": 6, "states": states,
            "pass_ratio": states["healthy"] / 6, "first_not_healthy_round": bad[0] if bad else None,
            "last_not_healthy_round": bad[-1] if bad else None, "not_passed_rounds": bad,
            "reasons": {"NET_BW_LOW": len(bad)} if bad else {}, "reason_rounds": {"NET_BW_LOW": bad} if bad else {},
            "figures": [figure(values)], "counter_deltas": {}, "counter_resets": {}}
r["burn_in"] = {"rounds": 6, "duration_s": None, "interval_s": None, "first_round_started": None,
                "last_round_finished": None,
                "entities": [entity("node", "a", {"healthy": 6, "degraded": 0, "failed": 0, "unknown": 0}, [],
                                    [11.5] * 6),
                             entity("link", "a<->d", {"healthy": 4, "degraded": 0, "failed": 2, "unknown": 0}, [3, 5],
                                    [11.5, 11.4, 2.0, 11.6, 1.5, 11.5])]}
json.dump(r, open(sys.argv[2], "w"))
