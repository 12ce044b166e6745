#!/usr/bin/env python3
"""The stream checks of tests/mpi/burn_in_test.sh: burn_in_test.py CASE STREAM [ARG...].

STREAM is a burn-in's JSON Lines file (--jsonl). Each CASE is a function below, called with the
stream's text and the ARGs; a failed assert fails the test (exit 1, with the traceback).
"""
import json
import sys


def finished(text, summary_path, rc):
    """A whole burn-in: rounds numbered from 1, then one summary record matching the report at
    SUMMARY_PATH, whose exit code is the job's (RC); every round judged both hosts."""
    lines = text.split("\n")
    assert lines[-1] == "", "the stream must end with a complete line"
    records = [json.loads(line) for line in lines[:-1]]
    rounds = [r for r in records if r["record"] == "round"]
    assert len(rounds) >= 2, len(rounds)
    assert [r["round"] for r in rounds] == list(range(1, len(rounds) + 1)), [r["round"] for r in rounds]
    assert records[-1]["record"] == "summary" and records.count(records[-1]) == 1
    with open(summary_path) as f:
        summary = json.load(f)
    # One burn-in id joins the stream: its header first, every round (and its report's parent), the
    # summary (and its report's run id).
    header = records[0]
    assert header["record"] == "header" and header["burn_in"] and header["command"][1] == "burn-in", header
    burn_in = header["burn_in"]
    assert all(r["burn_in"] == burn_in == r["report"]["run"]["parent"] for r in rounds), burn_in
    assert records[-1]["burn_in"] == burn_in == summary["run"]["id"] == records[-1]["report"]["run"]["id"], burn_in
    assert len({r["report"]["run"]["id"] for r in rounds} | {burn_in}) == len(rounds) + 1
    assert summary["burn_in"]["rounds"] == len(rounds), (summary["burn_in"]["rounds"], len(rounds))
    assert records[-1]["report"]["summary"] == summary["summary"]
    assert summary["summary"]["exit_code"] == int(rc), (summary["summary"], rc)
    # Every round is a full judged check of both hosts.
    for r in rounds:
        assert sorted(h["name"] for h in r["report"]["hosts"]) == ["ha", "hb"]
        assert any(p["id"] == "net.mpi.bw" and p["status"] == "ok" for p in r["report"]["probes"])
    # This machine has no GPU: each node is unknown in every round, never flaky or healthy.
    nodes = {v["entity"]["id"]: v for v in summary["verdicts"] if v["entity"]["kind"] == "node"}
    assert sorted(nodes) == ["ha", "hb"] and all(v["state"] == "unknown" for v in nodes.values()), nodes
    link = [e for e in summary["burn_in"]["entities"] if e["entity"] == {"kind": "link", "id": "ha<->hb"}]
    assert link and link[0]["rounds_judged"] == len(rounds) and link[0]["pass_ratio"] == 1, link
    print("burn-in: %d rounds, exit %s" % (len(rounds), rc))


def killed(text):
    """The writer killed mid-run: every finished round is there and parses; no summary."""
    complete = text.split("\n")[:-1]  # a line cut by the kill has no newline yet: not a finished round
    records = [json.loads(line) for line in complete]
    rounds = [r["round"] for r in records if r["record"] == "round"]
    assert len(rounds) >= 2 and rounds == list(range(1, len(rounds) + 1)), rounds
    assert not any(r["record"] == "summary" for r in records), "no summary after a kill"
    print("killed burn-in: %d finished rounds intact" % len(rounds))


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        stream = f.read()
    globals()[case](stream, *args)
