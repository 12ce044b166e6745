#!/usr/bin/env python3
"""The report checks of tests/netns/lost_host_stress.sh: lost_host_stress.py CASE REPORT [ARG...].

A failed assert fails the run (exit 1, with the traceback); `judged` prints whether the lost
host was named in the report ("named") or its results were in before the fault landed
("not-named"; the launcher fault has no victim: "n/a", or "not-named" when it came after the
report was written).
"""
import json
import sys

from report import verdicts


def named_lost(r, host):
    """Whether the report holds HOST's loss: a timeout of its own (the gather, an all-reduce's
    roll call) or a pair with it that timed out."""
    for p in r['probes']:
        if p['status'] == 'timeout' and host in p['scope']['hosts']:
            return True
        if p['id'] == 'cluster.gather' and p['scope']['hosts'] == [host]:
            return True
    return False


def blamed_for(v, host):
    """NODE verdict V's reasons that stem from HOST (a pair with it, its absence), not mere notes."""
    return [x for x in v['reasons'] if host in (x.get('message') or '') and x['evidence'] != 'not_judged']


def judged(r, host, kind, rc):
    """One run: the lost HOST (fault KIND, mpirun exit RC) named where it was lost, nobody else
    failed, unknown or drained for it; an interrupted run decides nothing."""
    nodes = verdicts(r, 'node')
    assert sorted(nodes) == ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'], sorted(nodes)
    s = r['summary']
    if r['run'].get('interrupted'):
        # The launcher's stop (or its teardown after a death): no node to drain or admit.
        assert kind in ('launcher', 'kill'), (kind, r['run'])
        assert not s['drain'] and not s['admit'] and not s['admit_degraded'], s
        assert s['exit_code'] in (2, 3), s
        for k, v in nodes.items():
            if k != host:
                assert v['state'] != 'failed', v
        # The round the stop cut, and those after, overlapped the teardown: recorded, not judged.
        pairs = [p for p in r['probes'] if p['id'].startswith('net.') and 'round' in p['params']]
        cut = [p['params']['round'] for p in pairs
               if p['status'] == 'skipped' and (p.get('reason') or '').startswith('interrupted by a stop signal')]
        for p in pairs:
            if cut and p['status'] == 'ok' and p['params']['round'] >= min(cut):
                assert 'not_judged' in p['params'], p
    else:
        # (A launcher stop that came after the report was written leaves it whole.)
        if kind != 'launcher':
            assert s['exit_code'] == int(rc), (s['exit_code'], rc)
        for k, v in nodes.items():
            if k == host:
                continue
            assert not blamed_for(v, host), v
            assert v['state'] in ('healthy', 'degraded') and v['action'] != 'drain', v
    if kind == 'launcher':
        print('n/a' if r['run'].get('interrupted') else 'not-named')
        return
    lost = named_lost(r, host)
    if lost and not r['run'].get('interrupted'):
        v = nodes[host]
        assert v['state'] == 'failed' and v['action'] == 'drain', v
    print('named' if lost else 'not-named')


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
