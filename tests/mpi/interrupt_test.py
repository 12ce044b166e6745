#!/usr/bin/env python3
"""The report checks of tests/mpi/interrupt_test.sh: interrupt_test.py CASE REPORT [ARG...].

Each CASE is a function below, called with the parsed report and the ARGs; a failed assert
fails the test (exit 1, with the traceback).
"""
import json
import sys


def interrupted(r):
    """A check stopped by a signal: marked interrupted, no action applied, exit 2 or 3, and
    nothing failed for lack of an answer."""
    assert r["run"].get("interrupted") is True, r["run"]
    assert any("not applied because the run was interrupted" in n for n in r["run"]["notes"]), r["run"]["notes"]
    assert r["summary"]["exit_code"] in (2, 3), r["summary"]
    # Nothing is failed for lack of an answer: what the stop cut short is unknown.
    for p in r["probes"]:
        if p["id"] == "cluster.gather":
            assert p["status"] == "skipped", p
    nodes = [v for v in r["verdicts"] if v["entity"]["kind"] == "node"]
    assert all(v["state"] != "failed" for v in nodes), nodes


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
