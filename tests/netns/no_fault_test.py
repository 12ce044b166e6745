#!/usr/bin/env python3
"""The report checks of tests/netns/no_fault_test.sh: no_fault_test.py CASE REPORT [ARG...].

Each CASE is a function below, called with the parsed report and the ARGs; a failed assert
fails the test (exit 1, with the traceback).
"""
import json
import sys

from report import all_pairs, bw_by_pair, expected_clean_exit, net_probes, network_reasons, pair_key, show_bw, verdicts


def measured(r, rc, run):
    """Run RUN: 4 hosts with their ranks, every pair and link measured, the exit code a clean
    run's and the job's (RC); prints the bandwidth of each pair."""
    rc = int(rc)
    hosts = sorted(h['name'] for h in r['hosts'])
    assert hosts == ['h1', 'h2', 'h3', 'h4'], hosts
    assert [h['ranks'] for h in sorted(r['hosts'], key=lambda h: h['name'])] == [[0], [1], [2], [3]], r['hosts']
    assert r['summary']['exit_code'] == rc == expected_clean_exit(r), (r['summary'], rc)
    bw = bw_by_pair(r)
    assert sorted(bw) == all_pairs(hosts), bw
    assert sorted(pair_key(k.split('<->')) for k in verdicts(r, 'link')) == all_pairs(hosts), verdicts(r, 'link')
    assert len(net_probes(r, 'net.mpi.lat')) == 6, net_probes(r, 'net.mpi.lat')
    print('run %s:' % run, show_bw(bw))


def nothing_flagged(r):
    """No false positive: every network probe ok, every link healthy, no node with a network reason."""
    bad = [p['id'] + ' ' + str(p['scope']['hosts']) for p in net_probes(r) if p['status'] != 'ok']
    bad += [k for k, v in verdicts(r, 'link').items() if v['state'] != 'healthy' or v['reasons']]
    bad += [k for k, v in verdicts(r, 'node').items() if network_reasons(v)]
    assert sorted(verdicts(r, 'link')) and not bad, bad


def with_allreduce(r, rc):
    """The all-reduce step on: every all-reduce ok and exact across the 4 hosts, nothing flagged,
    the exit code a clean run's and the job's (RC)."""
    rc = int(rc)
    sums = [p for p in r['probes'] if p['id'].startswith('collective.')]
    assert sums and all(p['status'] == 'ok' and p['metrics']['wrong_elements_total'] == 0 for p in sums), sums
    assert sorted(sums[0]['scope']['hosts']) == ['h1', 'h2', 'h3', 'h4'], sums[0]['scope']
    assert all(v['state'] == 'healthy' for v in verdicts(r, 'link').values()), verdicts(r, 'link')
    assert not [k for k, v in verdicts(r, 'node').items() if network_reasons(v)], r['verdicts']
    assert r['summary']['exit_code'] == rc == expected_clean_exit(r), (r['summary'], rc)


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
