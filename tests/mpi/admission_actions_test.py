#!/usr/bin/env python3
"""The report checks of tests/mpi/admission_actions_test.sh: admission_actions_test.py CASE REPORT [ARG...].

Each CASE is a function below, called with the parsed report and the ARGs; a failed assert
fails the test (exit 1, with the traceback).
"""
import json
import sys


def reasons(r, host):
    """Prints HOST's short reasons as the report's Kubernetes annotation has them (the drain reason too)."""
    print(r['summary']['kubernetes'][host]['annotations']['ibgpu.io/reasons'])


def drained(r, host):
    """A failed node drained: labelled and tainted for Kubernetes; the drain succeeded."""
    k = r['summary']['kubernetes'][host]
    assert k['labels']['ibgpu.io/admission'] == 'drain', k
    assert k['taints'] == [{'key': 'ibgpu.io/unhealthy', 'value': 'failed', 'effect': 'NoSchedule'}], k
    # the plan, the scope and the word on the CPU host's profile only: the drain succeeded
    others = [n for n in r['run']['notes'] if not n.startswith(('plan: ', 'scope: ', 'no GPU and no RDMA device'))]
    assert others == [], r['run']['notes']


def left_drained(r):
    """A fit node drained by a person: left alone, and the notes say so."""
    assert any('cpu01 left drained' in n for n in r['run']['notes']), r['run']['notes']


def failing_drain(r):
    """A failing drain command: noted; verdict and exit code unchanged."""
    notes = r['run']['notes']
    assert any(n.startswith('drain of gpu02 failed (exit 1)') and 'Invalid node name' in n for n in notes), notes
    assert r['summary']['drain'] == ['gpu02'] and r['summary']['exit_code'] == 2, r['summary']


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
