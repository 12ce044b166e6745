#!/usr/bin/env python3
"""The report checks of tests/netns/history_test.sh: history_test.py CASE FILE [ARG...].

Each CASE is a function below, called with the parsed JSON file and the ARGs; a failed assert
fails the test (exit 1, with the traceback).
"""
import json
import sys

from report import verdicts

HOSTS = ['h1', 'h2', 'h3', 'h4', 'h5']


def decided(r, rc, run, exit_code, *expected):
    """Run RUN: the job's exit code (RC) and the report's are EXIT_CODE; each EXPECTED node
    (h2=ACTION[:HISTORY_CODE]) has that action and, as its only history reason, that code (none
    without one); every other node admitted healthy with no history reason. Prints each node's
    decision."""
    nodes = verdicts(r, 'node')
    assert sorted(nodes) == HOSTS, sorted(nodes)
    want = {h: ('admit', None) for h in HOSTS}
    for e in expected:
        host, what = e.split('=')
        action, _, code = what.partition(':')
        want[host] = (action, code or None)
    got = {}
    for h, v in sorted(nodes.items()):
        history = [x['code'] for x in v['reasons'] if x['code'].startswith('HISTORY_')]
        got[h] = (v['action'], history[0] if history else None)
        assert len(history) <= 1, (h, history)
        findings = sorted({x['code'] for x in v['reasons'] if x['evidence'] == 'finding'})
        print('run %s: %s %s %s %s' % (run, h, v['state'], v['action'], ','.join(findings)))
    assert got == want, (got, want)
    for h, (action, code) in want.items():
        state = nodes[h]['state']
        if action == 'admit':
            assert state == 'healthy', (h, nodes[h])
        elif action == 'admit_degraded':
            assert state == 'degraded', (h, nodes[h])
        else:
            assert state == 'failed', (h, nodes[h])
            assert any(x['code'] == 'NET_BW_OUTLIER' for x in nodes[h]['reasons']) or code == 'HISTORY_FLAPPING', nodes[h]
    assert r['summary']['exit_code'] == int(exit_code) == int(rc), (r['summary']['exit_code'], exit_code, rc)
    notes = [n for n in r['run']['notes'] if n.startswith('history')]
    assert notes == ['history: the outcome of 5 nodes kept in ' + notes[0].split(' kept in ')[1]], notes


def fleet(j, text_path):
    """`ibgpu history --json`: every node with its six checks; h2 bad three times (two failures
    apart), flapping; h3 bad twice; the others clean; the table names h2 flapping and no lemon."""
    nodes = {n['node']: n for n in j['nodes']}
    assert sorted(nodes) == HOSTS, sorted(nodes)
    assert all(n['checks'] == 6 for n in nodes.values()), nodes
    assert (nodes['h2']['bad'], nodes['h2']['failures'], nodes['h2']['says']) == (3, 2, 'flapping'), nodes['h2']
    assert nodes['h2']['mean_time_between_failures_s'] > 0, nodes['h2']
    assert (nodes['h3']['bad'], nodes['h3']['failures'], nodes['h3']['says']) == (2, 2, None), nodes['h3']
    assert all(nodes[h]['bad'] == 0 and nodes[h]['says'] is None for h in ('h1', 'h4', 'h5')), nodes
    assert 'records' not in nodes['h2'], nodes['h2']
    with open(text_path) as f:
        text = f.read()
    print(text)
    assert 'flapping: h2\n' in text and 'lemons: none\n' in text, text


def nodes(j):
    """`ibgpu history h2 h3 --json`: their six records each, oldest first, as the runs decided."""
    got = {n['node']: [(x['state'], x['action']) for x in n['records']] for n in j['nodes']}
    assert sorted(got) == ['h2', 'h3'], got
    ok, bad = ('healthy', 'admit'), ('failed', 'drain')
    assert got['h2'] == [ok, ok, ('failed', 'admit_degraded'), ok, bad, bad], got['h2']
    assert got['h3'] == [ok, bad, ok, bad, ok, ok], got['h3']


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
