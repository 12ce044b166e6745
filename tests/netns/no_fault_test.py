#!/usr/bin/env python3
"""The report checks of tests/netns/no_fault_test.sh: no_fault_test.py CASE REPORT [ARG...].

Each CASE is a function below, called with the parsed report and the ARGs; a failed assert
fails the test (exit 1, with the traceback).
"""
import json
import sys

from report import all_pairs, bw_by_pair, expected_clean_exit, net_probes, network_reasons, only_named, pair_key, show_bw, verdicts  # noqa: F401 (only_named: a CASE)


HOSTS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6']


def measured(r, rc, run):
    """Run RUN (cpu profile): 6 hosts with their ranks, every pair and link measured, every node
    admitted healthy and nothing drained, exit 0 in the report and of the job (RC); prints the
    bandwidth of each pair."""
    rc = int(rc)
    hosts = sorted(h['name'] for h in r['hosts'])
    assert hosts == HOSTS, hosts
    assert [h['ranks'] for h in sorted(r['hosts'], key=lambda h: h['name'])] == [[k] for k in range(6)], r['hosts']
    nodes = verdicts(r, 'node')
    assert sorted(nodes) == HOSTS, nodes
    assert all(v['state'] == 'healthy' and v['action'] == 'admit' for v in nodes.values()), nodes
    assert r['summary']['exit_code'] == rc == 0, (r['summary'], rc)
    bw = bw_by_pair(r)
    assert sorted(bw) == all_pairs(hosts), bw
    assert sorted(pair_key(k.split('<->')) for k in verdicts(r, 'link')) == all_pairs(hosts), verdicts(r, 'link')
    first = [p for p in net_probes(r, 'net.mpi.lat') if 'retest' not in p['params']]
    assert len(first) == 15, first
    print('run %s:' % run, show_bw(bw))
    # The plan's power, stated at the profile's noise before the run and again at the noise the
    # run's 15 pairs measured.
    stated = [n for n in r['run']['notes'] if n.startswith('power: at noise ')]
    assert len(stated) == 2 and stated[1].endswith("(the noise this run measured, its pairs' bandwidth spread)"), \
        r['run']['notes']
    print('run %s: %s' % (run, stated[1]))


def nothing_flagged(r):
    """No false positive: every network probe ok, every link healthy, no node with a network reason."""
    bad = [p['id'] + ' ' + str(p['scope']['hosts']) for p in net_probes(r) if p['status'] != 'ok']
    bad += [k for k, v in verdicts(r, 'link').items() if v['state'] != 'healthy' or network_reasons(v)]
    bad += [k for k, v in verdicts(r, 'node').items() if network_reasons(v)]
    assert sorted(verdicts(r, 'link')) and not bad, bad
    # Nor any finding anywhere stronger than weak (the confidence of docs/verdicts.md).
    strong = [(v['entity']['id'], x['code'], x['confidence']) for v in r['verdicts'] for x in v['reasons']
              if x.get('confidence', {}).get('level', 'weak') != 'weak']
    assert not strong, strong


def stand_out(r, slow):
    """Under a profile whose GPU checks cannot run here, every node is missing a check; the SLOW
    hosts (comma-separated) show their finding (failed: under [fleet].bw_fraction_failed of their
    peers), the others are unknown; all are drained (decision table rows 4 and 6)."""
    slow = slow.split(',')
    for k, v in verdicts(r, 'node').items():
        assert v['action'] == 'drain', v
        assert v['state'] == ('failed' if k in slow else 'unknown'), (k, v['state'], v['reasons'])
    # What joins across runs (issue 41): a slow host's finding cites the pair result it was read
    # from (probe, size; MPI pairs name no port), and every result says when it was in, within the run.
    for k in slow:
        reasons = verdicts(r, 'node')[k]['reasons']
        cited = [x for x in reasons if x['evidence'] == 'finding' and x.get('probe', '').startswith('net.')]
        assert cited and all(isinstance(x.get('size_B'), int) and 'port' not in x for x in cited), reasons
        sizes = {p['params'].get('size_B') for p in r['probes'] if p['id'] == cited[0]['probe']}
        assert cited[0]['size_B'] in sizes, (cited[0], sizes)
    run = r['run']
    late = [p for p in r['probes'] if not run['started'] <= p.get('time', '') <= run['finished']]
    assert not late, (run['started'], run['finished'], late[:3])


def with_allreduce(r, rc):
    """The all-reduce step on: every all-reduce ok and exact across the hosts, nothing flagged,
    the exit code a clean run's and the job's (RC)."""
    rc = int(rc)
    sums = [p for p in r['probes'] if p['id'].startswith('collective.')]
    assert sums and all(p['status'] == 'ok' and p['metrics']['wrong_elements_total'] == 0 for p in sums), sums
    assert sorted(sums[0]['scope']['hosts']) == HOSTS, sums[0]['scope']
    # The pairs are judged against each other; the one all-reduce across every host has nothing to
    # be compared with and the default profile no floor for it: recorded as not judged (NOT_JUDGED),
    # which changes no state (docs/verdicts.md).
    links = verdicts(r, 'link')
    whole = [k for k in links if '<->..<->' in k]
    assert len(whole) == 1, whole
    assert links[whole[0]]['state'] == 'healthy', links[whole[0]]
    assert {(x['code'], x['evidence']) for x in links[whole[0]]['reasons']} == {('NOT_JUDGED', 'not_judged')}, \
        links[whole[0]]
    assert all(v['state'] == 'healthy' for k, v in links.items() if k not in whole), links
    assert not [k for k, v in verdicts(r, 'node').items() if network_reasons(v)], r['verdicts']
    assert r['summary']['exit_code'] == rc == expected_clean_exit(r), (r['summary'], rc)


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
