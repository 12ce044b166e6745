#!/usr/bin/env python3
"""The report checks of tests/netns/fabric_uplink_test.sh: fabric_uplink_test.py CASE REPORT [ARG...].

Each CASE is a function below, called with the parsed report and the ARGs; a failed assert
fails the test (exit 1, with the traceback).
"""
import json
import sys

from report import all_pairs, bw_by_pair, net_probes, network_reasons, show_bw, verdicts

LEAVES = {"leaf1": ["h1", "h2", "h3"], "leaf2": ["h4", "h5", "h6"]}


def across(pair):
    return (pair[0] in LEAVES["leaf1"]) != (pair[1] in LEAVES["leaf1"])


def measured(r, rc, rate):
    """Every pair measured; each across the uplink at least 3 times slower than any within a leaf;
    the report's exit code the job's (RC)."""
    hosts = sorted(h["name"] for h in r["hosts"])
    assert hosts == LEAVES["leaf1"] + LEAVES["leaf2"], hosts
    assert r["summary"]["exit_code"] == int(rc), (r["summary"], rc)
    for p in net_probes(r):
        assert p["status"] == "ok", p
    bw = bw_by_pair(r)
    assert sorted(bw) == all_pairs(hosts), bw
    slow = [x for k, x in bw.items() if across(k)]
    clean = [x for k, x in bw.items() if not across(k)]
    print("uplink at %s:" % rate, show_bw(bw))
    assert len(slow) == 9 and 3 * max(slow) < min(clean), show_bw(bw)


def not_flagged(r, kinds):
    """No node has a network reason (the lane's nodes are unknown for their skipped GPU and RDMA
    checks, never for the network) and no entity of KINDS is other than healthy."""
    for h, v in verdicts(r, "node").items():
        assert not network_reasons(v), v
    for kind in kinds:
        for v in verdicts(r, kind).values():
            assert v["state"] == "healthy", v


def fabric(r, kinds):
    """The verdicts of KINDS that are not healthy."""
    return [v for v in r["verdicts"] if v["entity"]["kind"] in kinds and v["state"] != "healthy"]


def with_topology(r, rc, rate):
    """One uplink or switch verdict on leaf1 or leaf2, with a fabric reason; nothing else."""
    measured(r, rc, rate)
    found = fabric(r, ("switch", "uplink"))
    assert len(found) == 1, found
    assert found[0]["entity"]["id"] in LEAVES, found
    assert {x["code"] for x in found[0]["reasons"]} <= {"FABRIC_UPLINK_BAD", "FABRIC_SWITCH_BAD"}, found
    assert found[0]["action"] is None, found
    not_flagged(r, ("link", "path"))
    assert any("topology: " in n and "6 of 6 hosts" in n for n in r["run"]["notes"]), r["run"]["notes"]
    # The work orders (--cabling): the blamed leaf's two uplink cables, both switch ports named,
    # their counters said to be unread (switches), nothing else.
    leaf = found[0]["entity"]["id"]
    orders = r.get("work_orders", [])
    spine = (1, 2) if leaf == "leaf1" else (3, 4)
    assert [o["cable"] for o in orders] == ["%s port %d <-> spine1 port %d" % (leaf, 33 + i, spine[i])
                                            for i in (0, 1)], orders
    for o in orders:
        assert o["entities"] == [found[0]["entity"]] and o["state"] == found[0]["state"], o
        assert len(o["unread"]) == 2 and all("perfquery -G 0x" in u for u in o["unread"]), o
        print("work order: " + "; ".join([o["cable"] + ": " + o["state"], o["shortfall"]] + o["unread"] + [o["next"]]))
    assert any(n.startswith("cabling: ") and "10 cables" in n and "2 work orders" in n for n in r["run"]["notes"]), \
        r["run"]["notes"]


def without_topology(r, rc, rate):
    """No node blamed: one path verdict between the two leaves' hosts, no link."""
    measured(r, rc, rate)
    found = fabric(r, ("switch", "uplink", "path"))
    assert [v["entity"] for v in found] == [{"kind": "path", "id": "h[1-3]<->h[4-6]"}], found
    assert {x["code"] for x in found[0]["reasons"]} == {"FABRIC_PATH_BAD"}, found
    not_flagged(r, ("link",))


if __name__ == "__main__":
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
