#!/usr/bin/env python3
"""The report checks of tests/netns/budget_test.sh: budget_test.py CASE REPORT [ARG...].

Each CASE is a function below, called with the parsed report and the ARGs; a failed assert
fails the test (exit 1, with the traceback).
"""
import datetime
import json
import sys


def run_seconds(r):
    """Seconds from the report's run.started to run.finished (whole seconds, as they are written)."""
    stamp = lambda s: datetime.datetime.fromisoformat(s.replace('Z', '+00:00'))
    return (stamp(r['run']['finished']) - stamp(r['run']['started'])).total_seconds()


def within(r, budget, elapsed):
    """`check --full` with a --budget of BUDGET s: recorded, what it shortened said in run.notes,
    and ELAPSED (s) within it plus 15 s; a budget of 1 s cannot hold even the smallest plan."""
    budget, elapsed = int(budget), int(elapsed)
    assert r['run']['budget_s'] == budget, r['run']
    assert not r['run'].get('interrupted'), r['run']
    notes = r['run']['notes']
    said = [n for n in notes if n.startswith('budget: ')]
    assert said, notes
    # --full measures 64K to 64M over every pair, 10000 latency iterations and 64K to 256M of
    # all-reduce: no budget here holds that at 3 s a measurement, so each run shortens something.
    assert any('each measurement stops at' in n or 'dropped' in n for n in said), said
    if budget == 1:
        assert any('even the smallest plan' in n for n in said), said
        assert all(p['status'] in ('ok', 'skipped') for p in r['probes']), [p for p in r['probes'] if p['status'] not in ('ok', 'skipped')]
    # The run's own span beside mpirun's: which of the two took the time, when it is too long.
    ran = run_seconds(r)
    assert elapsed <= budget + 15, (elapsed, 'the run itself: %d s' % ran, budget, said)
    print('budget %d s: %d s (the run itself %d s), %s' % (budget, elapsed, ran, '; '.join(n[len('budget: '):] for n in said)))


def crawling_host(r, elapsed):
    """A 20 s budget with h4 at 50 mbit: its pairs capped, all-reduce cases that cannot fit not run,
    and ELAPSED (s) within the budget plus 15 s."""
    elapsed = int(elapsed)
    assert not r['run'].get('interrupted'), r['run']
    slow = [p for p in r['probes'] if p['id'] == 'net.mpi.bw' and 'h4' in p['scope']['hosts']]
    assert slow and all(p['status'] == 'ok' and 'time_capped_s' in p['params'] for p in slow), slow
    assert all(p['metrics']['bw_avg_GBps'] < 0.01 for p in slow), [p['metrics'] for p in slow]
    ar = [p for p in r['probes'] if p['id'].startswith('collective.')]
    cut = [p for p in ar if p['status'] == 'skipped']
    assert cut and all('time cap' in p['reason'] or 'budget' in p['reason'] for p in cut), [(p['status'], p.get('reason')) for p in ar]
    assert elapsed <= 20 + 15, elapsed
    print('budget 20 s, one host at 50 mbit: %d s, %d all-reduce case(s) not run: %s' % (elapsed, len(cut), cut[0]['reason']))


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
