#!/usr/bin/env python3
"""The report checks of tests/mpi/budget_test.sh: budget_test.py CASE REPORT [ARG...].

Each CASE is a function below, called with the parsed report and the ARGs; a failed assert
fails the test (exit 1, with the traceback).
"""
import json
import sys


def within(r, budget, elapsed):
    """A --budget of BUDGET s: recorded, said in run.notes, and ELAPSED (s) within it plus 15 s."""
    budget, elapsed = int(budget), int(elapsed)
    assert r['run']['budget_s'] == budget, r['run']
    said = [n for n in r['run']['notes'] if n.startswith('budget: ')]
    assert any('dropped' in n or 'each measurement stops at' in n for n in said), r['run']['notes']
    assert all(p['status'] in ('ok', 'skipped') for p in r['probes']), [p for p in r['probes'] if p['status'] not in ('ok', 'skipped')]
    assert elapsed <= budget + 15, (elapsed, said)
    print('budget %d s: %d s; %s' % (budget, elapsed, '; '.join(n[len('budget: '):] for n in said)))


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
