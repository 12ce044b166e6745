#!/usr/bin/env python3
"""The report checks of tests/mpi/check_baseline_test.sh: check_baseline_test.py CASE REPORT [ARG...].

Each CASE is a function below, called with the parsed report and the ARGs; a failed assert
fails the test (exit 1, with the traceback).
"""
import json
import sys


def faster_fleet(r, out):
    """Writes to OUT the same run as a healthy fleet whose all-reduce moved a thousand times more."""
    sums = [p for p in r['probes'] if p['id'].endswith('.all_reduce') and p['status'] == 'ok'
            and isinstance(p['metrics'].get('busbw_GBps'), (int, float))]
    assert sums, 'no all-reduce measurement to build a baseline from'
    for p in sums:
        p['metrics']['busbw_GBps'] *= 1000
    for v in r['verdicts']:
        v['state'], v['reasons'] = 'healthy', []
    with open(out, 'w') as f:
        json.dump(r, f)


def judged(r, rc):
    """Judged against that baseline: recorded in the profile, the all-reduce an outlier, and the
    report's exit code the job's (RC), not 0."""
    rc = int(rc)
    b = r['run']['profile']['baseline']
    assert b['file'].endswith('fleet.json') and b['runs'] == 1 and b['kinds'] >= 1, b
    codes = [x['code'] for v in r['verdicts'] for x in v['reasons']]
    assert 'ALLREDUCE_BUSBW_OUTLIER' in codes, codes
    assert r['summary']['exit_code'] == rc != 0, (r['summary'], rc)


def own_medians(r):
    """Without --baseline: no baseline in the profile, no outlier."""
    codes = [x['code'] for v in r['verdicts'] for x in v['reasons']]
    assert 'ALLREDUCE_BUSBW_OUTLIER' not in codes and 'baseline' not in r['run']['profile'], codes


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
