#!/usr/bin/env python3
"""The Prometheus queries of tests/netns/prometheus_test.sh: prometheus_test.py CASE PORT [ARG...].

Each CASE asks the real Prometheus on 127.0.0.1:PORT over its HTTP API, waiting (bounded) for
what a scrape and a rule evaluation bring; a failed assert fails the test (exit 1).
"""
import json
import sys
import time
import urllib.parse
import urllib.request

WAIT_S = 60  # scrapes and rule evaluations are every second; Prometheus starting takes a few


def api(port, path, **params):
    url = "http://127.0.0.1:%s/api/v1/%s?%s" % (port, path, urllib.parse.urlencode(params))
    with urllib.request.urlopen(url, timeout=10) as response:
        body = json.load(response)
    assert body["status"] == "success", body
    return body["data"]


def query(port, expr):
    """{frozenset of label items: value} for an instant query's vector."""
    data = api(port, "query", query=expr)
    assert data["resultType"] == "vector", data
    return {frozenset(s["metric"].items()): float(s["value"][1]) for s in data["result"]}


def wait_for(what, check):
    """Calls check() until it returns a true value or WAIT_S pass; returns the last value."""
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            value = check()
        except OSError:  # Prometheus not listening yet
            value = None
        if value or time.monotonic() > deadline:
            assert value, "waited %d s for %s" % (WAIT_S, what)
            return value
        time.sleep(0.5)


def decisions(port, report_path, instance):
    """Once the report's run is scraped (its run_id, from INSTANCE: a Pushgateway group or the
    exporter), each node's action in Prometheus is the report's, 1 for it and 0 for the others."""
    with open(report_path) as f:
        r = json.load(f)
    run = 'ibgpu_run_info{run_id="%s",instance="%s"}' % (r["run"]["id"], instance)
    wait_for("run %s from %s" % (r["run"]["id"], instance), lambda: query(port, run))
    nodes = [v for v in r["verdicts"] if v["entity"]["kind"] == "node"]
    assert nodes, r["verdicts"]
    for v in nodes:
        node = v["entity"]["id"]
        got = {dict(k)["action"]: x for k, x in query(
            port, 'ibgpu_node_action{node="%s",instance="%s"}' % (node, instance)).items()}
        want = {a: (1.0 if a == v["action"] else 0.0) for a in ("admit", "admit_degraded", "drain")}
        assert got == want, (node, got, want)
        print("%s: %s in Prometheus as in the report" % (node, v["action"]))


def actions(report_path):
    with open(report_path) as f:
        r = json.load(f)
    return {v["entity"]["id"]: v["action"] for v in r["verdicts"] if v["entity"]["kind"] == "node"}


def alerted_as_decided(port, clean_path, slow_path, slow, expect_localisation):
    """IbgpuNodeNotAdmitted fires for exactly the nodes the slow run's report drains (SLOW among
    them where the lane expects localisation, IBGPU_NETNS_EXPECT_LOCALISATION); a node the clean
    run admitted and the slow run drained changed its decision once."""
    before, after = actions(clean_path), actions(slow_path)
    drained = {n for n, a in after.items() if a == "drain"}
    if int(expect_localisation):
        assert slow in drained and all(a != "drain" for a in before.values()), (before, after)
    firing = 'ALERTS{alertname="IbgpuNodeNotAdmitted",alertstate="firing"}'
    got = wait_for("IbgpuNodeNotAdmitted for %s" % sorted(drained),
                   lambda: {dict(k)["node"] for k in query(port, firing)} == drained or None)
    assert got, got
    for node in drained:
        if before.get(node) != "drain":
            changes = query(port, 'ibgpu:node_drain_changes_1d{node="%s"}' % node)
            drain = 'ibgpu_node_action{node="%s",action="drain"}' % node
            assert list(changes.values()) == [1.0], (changes, api(port, "query", query=drain + "[10m]")["result"])
    print("IbgpuNodeNotAdmitted firing for %s, as the report drains; each changed once" % sorted(drained))


def dashboard(port, path):
    """Every panel's query, with the dashboard's variables at their 'All' values, returns series."""
    with open(path) as f:
        d = json.load(f)
    empty = []
    for panel in d["panels"]:
        for target in panel.get("targets", []):
            expr = target["expr"].replace("$node", ".*")
            got = wait_for("data for panel %r" % panel["title"], lambda: query(port, expr) or None) \
                if not empty else query(port, expr)
            if not got:
                empty.append(panel["title"])
            else:
                print("panel %r: %d series" % (panel["title"], len(got)))
    assert not empty, "panels without data: %s" % empty


def rules_healthy(port):
    """Every rule of the shipped group is loaded and evaluates without error."""
    groups = wait_for("the rules loaded", lambda: api(port, "rules")["groups"])
    rules = [rule for g in groups for rule in g["rules"]]
    assert len(rules) >= 8, rules
    bad = [(rule["name"], rule.get("lastError")) for rule in rules if rule["health"] != "ok"]
    assert not bad, bad
    print("%d rules evaluate without error" % len(rules))


if __name__ == "__main__":
    case, port, *args = sys.argv[1:]
    globals()[case](port, *args)
