#!/usr/bin/env python3
"""The report checks of tests/mpi/lost_rank_test.sh: lost_rank_test.py CASE REPORT [ARG...].

Each CASE is a function below, called with the parsed report and the ARGs; a failed assert
fails the test (exit 1, with the traceback).
"""
import json
import sys


def lost_rank(r, rank, host, how=''):
    """RANK on HOST lost: a timeout naming it, its node failed and drained, exit 2 or 3; with HOW
    `torn-down` (mpirun ended the job after a SIGKILL) the run is interrupted instead."""
    lost = [p for p in r['probes'] if p['id'] == 'cluster.gather']
    named_as = 'rank %s on host %s' % (rank, host)
    rank = int(rank)
    if how == 'torn-down':
        # mpirun tears the whole job down after a SIGKILL (SIGTERM to the survivors): the run is
        # interrupted. The lost rank is named; what the teardown cut short is unknown, not failed,
        # since an interrupted run cannot tell a dead rank from one stopped on its way to rank 0.
        assert r['run'].get('interrupted') is True, r['run']
        named = [p for p in lost if p['scope']['ranks'] == [rank]]
        assert len(named) == 1 and named_as in (named[0]['reason'] or ''), lost
        assert all(p['status'] == 'skipped' for p in lost), lost
        node = [v for v in r['verdicts'] if v['entity']['kind'] == 'node'][0]
        assert node['state'] != 'failed', node
        return
    assert len(lost) == 1, r['probes']
    assert lost[0]['status'] == 'timeout' and lost[0]['scope']['ranks'] == [rank], lost
    assert named_as in lost[0]['error'], lost[0]['error']
    assert r['summary']['exit_code'] in (2, 3), r['summary']
    node = [v for v in r['verdicts'] if v['entity']['kind'] == 'node'][0]
    assert node['state'] == 'failed' and node['action'] == 'drain', node


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
