#!/usr/bin/env python3
"""The report checks of tests/mpi/allreduce_test.sh: allreduce_test.py CASE REPORT [ARG...].

Each CASE is a function below, called with the parsed report and the ARGs; a failed assert
fails the test (exit 1, with the traceback).
"""
import json
import re
import sys


def sweep(r, expected_rows):
    """EXPECTED_ROWS measured all-reduce rows: busbw = algbw x 2(n-1)/n, #wrong 0 in each; healthy."""
    rows = [p for p in r['probes'] if p['id'] == 'collective.mpi.all_reduce' and p['status'] == 'ok']
    assert len(rows) == int(expected_rows), (len(rows), r['probes'])
    assert not [p for p in r['probes'] if p['status'] != 'ok'], [p for p in r['probes'] if p['status'] != 'ok']
    for p in rows:
        m, n = p['metrics'], p['params']['nranks']
        assert abs(m['busbw_GBps'] - m['algbw_GBps'] * 2 * (n - 1) / n) <= 1e-9 * max(1, m['busbw_GBps']), p
        assert m['algbw_GBps'] > 0 and m['time_us_min'] <= m['time_us_avg'] <= m['time_us_max'], m
        assert m['wrong_elements_total'] == 0 and m['wrong_ranks'] == 0, m
        assert p['params']['count'] * 4 == p['params']['size_B'] and p['params']['dtype'] == 'float', p['params']
        assert m['slowest_rank'] in p['scope']['ranks'], p
    assert r['summary']['exit_code'] == 0 and r['summary']['state'] == 'healthy', r['summary']


def placements(r):
    """Hosts a and b of two ranks each: the job, node (a, b) and rail (local rank 0, 1) groups."""
    groups = sorted({(p['params']['placement'], p['params']['group'], tuple(p['scope']['ranks']), p['params']['nranks'])
                     for p in r['probes']})
    assert groups == [('job', 'job', (0, 1, 2, 3), 4), ('node', 'a', (0, 1), 2), ('node', 'b', (2, 3), 2),
                      ('rail', 'local rank 0', (0, 2), 2), ('rail', 'local rank 1', (1, 3), 2)], groups
    # auto fell back to mpi and says why
    assert all(p['params']['backend_requested'] == 'auto' and 'nccl_unavailable' in p['params'] for p in r['probes'])


def corrupted_rank(r):
    """Rank 2's result corrupted: that rank, and only it, is reported wrong, in every case."""
    bad = [p for p in r['probes'] if p['status'] != 'ok']
    assert bad and all(p['status'] == 'failed' and p['scope']['ranks'] == [2] for p in bad), bad
    assert len(bad) == 4, bad  # every case, out-of-place and in-place
    assert all('rank 2' in p['error'] and p['metrics']['wrong_elements'] >= 1 for p in bad), bad
    for p in r['probes']:
        if p['status'] == 'ok':
            assert p['metrics']['wrong_ranks'] == 1, p['metrics']
    assert r['summary']['exit_code'] == 2, r['summary']


def control_passed(r, command):
    """Rank 2 reported an error in the job's all-reduce and the group's control passed: the error
    carries the control, the control ran on the job's four ranks by a ring, and (check) the link
    a<->b is unknown for PROBE_ERROR_NOT_REPRODUCED while both nodes are admitted; exit 3."""
    errors = [p for p in r['probes'] if p['id'].startswith('collective.') and p['status'] not in ('ok', 'skipped')
              and 'control_of' not in p['params']]
    assert len(errors) == 1 and errors[0]['scope']['ranks'] == [2] and errors[0]['status'] == 'error', errors
    control = errors[0]['params']['control']
    assert control['reproduced'] is False and control['hosts'] == ['a', 'b'], control
    assert 'by a ring of MPI point-to-point messages on host memory (ranks 0,1,2,3) passed' in control['by'], control
    ran = [p for p in r['probes'] if 'control_of' in p['params']]
    assert ran and all(p['status'] == 'ok' and p['params']['control_of'] == {'placement': 'job', 'ranks': [0, 1, 2, 3]}
                       and p['params']['call'] == 'ring of MPI_Isend/MPI_Irecv' and p['params']['group'] == 'job (control)'
                       and p['metrics']['wrong_elements_total'] == 0 for p in ran), ran
    assert r['summary']['exit_code'] == 3 and r['summary']['state'] == 'unknown', r['summary']
    if command == 'check':
        bad = {(v['entity']['kind'], v['entity']['id']): v for v in r['verdicts'] if v['state'] != 'healthy'}
        assert list(bad) == [('link', 'a<->b')], list(bad)
        codes = {x['code'] for x in bad[('link', 'a<->b')]['reasons']} - {'NOT_JUDGED'}
        assert codes == {'PROBE_ERROR_NOT_REPRODUCED'}, bad
        assert r['summary']['admit'] == ['a', 'b'] and not r['summary']['drain'], r['summary']
        assert not r['summary']['admit_degraded'], r['summary']


def control_passed_on_one_host(r, command):
    """Rank 1 of host a's two reported an error in the all-reduce and the ring on ranks 0-1 passed:
    (check) node a is not decided (unknown for PROBE_ERROR_NOT_REPRODUCED, not admitted), no GPU or
    other entity carries the error; exit 3, never 2."""
    errors = [p for p in r['probes'] if p['id'].startswith('collective.') and p['status'] not in ('ok', 'skipped')
              and 'control_of' not in p['params']]
    assert len(errors) == 1 and errors[0]['scope']['ranks'] == [1], errors
    control = errors[0]['params']['control']
    assert control['reproduced'] is False and control['hosts'] == ['a'], control
    assert 'on host memory (ranks 0,1) passed' in control['by'], control
    assert r['summary']['exit_code'] == 3 and r['summary']['state'] == 'unknown', r['summary']
    if command != 'check':
        return
    bad = {(v['entity']['kind'], v['entity']['id']): v for v in r['verdicts'] if v['state'] != 'healthy'}
    assert list(bad) == [('node', 'a')], list(bad)
    node = bad[('node', 'a')]
    assert node['state'] == 'unknown' and node['action'] == 'drain', node
    codes = {x['code'] for x in node['reasons']} - {'NOT_JUDGED'}
    assert codes == {'PROBE_ERROR_NOT_REPRODUCED'}, node
    assert r['summary']['drain'] == ['a'] and not r['summary']['admit'], r['summary']
    assert r['summary']['exit_code'] == 3 and r['summary']['state'] == 'unknown', r['summary']


def stalled_rank(r):
    """Rank 1 silent before the collective (--timeout 3): one timeout naming it, and ranks 0 and 2
    ran the all-reduce between themselves (measured, exact)."""
    t = [p for p in r['probes'] if p['status'] == 'timeout' and p['id'].startswith('collective.')]
    assert len(t) == 1 and t[0]['scope']['ranks'] == [1], r['probes']
    assert 'rank 1' in t[0]['error'] and 'silent for 3 s' in t[0]['error'], t[0]['error']
    assert 'it ran among the ranks that came' in t[0]['error'], t[0]['error']
    ran = [p for p in r['probes'] if p['id'].startswith('collective.') and p['status'] == 'ok']
    assert ran and all(p['scope']['ranks'] == [0, 2] and p['metrics']['wrong_elements'] == 0 for p in ran), r['probes']
    # no communicator of theirs (a blocking collective to make): a ring of their own messages
    assert all(p['params']['call'] == 'ring of MPI_Isend/MPI_Irecv' for p in ran), [p['params'] for p in ran]


def deaf_rank(r):
    """Rank 1 silent before the collective, rank 2 deaf to the roll call's answer (rank 0 counts it
    among the ranks that came): ranks 0 and 3 do not wait for it for ever, their all-reduce is not
    measured and names rank 2, and nothing is failed or in error."""
    absent = [p for p in r['probes'] if p['status'] == 'timeout' and p['id'].startswith('collective.')
              and p['scope']['ranks'] == [1]]
    assert len(absent) == 1, r['probes']
    for rank in (0, 3):
        mine = [p for p in r['probes'] if p['id'].startswith('collective.') and p['scope']['ranks'] == [rank]]
        assert mine and all(p['status'] == 'skipped' and p['skipped_by'] == 'ibgpu' for p in mine), mine
        assert all('rank 2 left the all-reduce of the ranks that came' in p['reason'] for p in mine), mine
    assert not [p for p in r['probes'] if p['status'] in ('failed', 'error')], r['probes']


def ring_stopped(r):
    """Rank 1 silent before the collective, rank 3 SIGSTOPped in the ring of ranks 0, 2, 3, 4:
    rank 3 is named; ranks 0, 2 and 4 keep no timeout of their own (their waits were on rank 3, or
    on a rank that gave up on it and left), none of them is lost, nothing failed or in error."""
    t = [p for p in r['probes'] if p['status'] == 'timeout']
    assert any(p['scope']['ranks'] == [3] or 'rank 3' in (p['error'] or '') for p in t), t
    assert not [p for p in t if p['scope']['ranks'] in ([0], [2], [4])], t
    lost = sorted(p['scope']['ranks'][0] for p in r['probes'] if p['id'] == 'cluster.gather')
    assert lost == [1, 3], [p for p in r['probes'] if p['id'] == 'cluster.gather']
    # a survivor that gave up on rank 3 and left is never taken for lost by one still waiting on it
    excused = [p['reason'] for p in r['probes'] if p['status'] == 'skipped' and p['reason']]
    assert not [x for x in excused if re.search(r'rank [024] was lost', x)], excused
    assert not [p for p in r['probes'] if p['status'] in ('failed', 'error')], r['probes']


def stopped_rank(r):
    """Rank 2 SIGSTOPped mid-sweep: a timeout names it; nothing failed or in error."""
    t = [p for p in r['probes'] if p['status'] == 'timeout']
    assert t, r['probes']
    assert any(p['scope']['ranks'] == [2] or 'rank 2' in (p['error'] or '') for p in t), t
    assert not [p for p in r['probes'] if p['status'] in ('failed', 'error')], r['probes']


def nccl_skipped(r):
    """NCCL without a GPU: every NCCL all-reduce skipped, the reason naming what is missing."""
    s = [p for p in r['probes'] if p['id'] == 'collective.nccl.all_reduce']
    assert s and all(p['status'] == 'skipped' and p['reason'] for p in s), s
    assert all('libnccl' in p['reason'] or 'CUDA' in p['reason'] or 'libcudart' in p['reason'] for p in s), s


def usage_error(r):
    """A usage error: the JSON error document, exit code 64."""
    assert r['summary']['exit_code'] == 64 and r['error']['message'], r


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
