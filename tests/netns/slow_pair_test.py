#!/usr/bin/env python3
"""The report checks of tests/netns/slow_pair_test.sh: slow_pair_test.py CASE REPORT [ARG...].

Each CASE is a function below, called with the parsed report and the ARGs; a failed assert
fails the test (exit 1, with the traceback).
"""
import json
import sys

from report import all_pairs, bw_by_pair, link_verdict, net_probes, network_reasons, pair_key, show_bw, verdicts


def slow_pair(r, rate, rc, expect_localisation):
    """Only the path h1-h3 limited to RATE: that pair re-tested and at least 3 times slower than every
    other, the report's exit code the job's (RC); with EXPECT_LOCALISATION 1, the link flagged and
    nothing else."""
    rc = int(rc)
    pair = ('h1', 'h3')
    hosts = sorted(h['name'] for h in r['hosts'])
    assert hosts == ['h1', 'h2', 'h3', 'h4'], hosts
    assert r['summary']['exit_code'] == rc, (r['summary'], rc)
    for p in net_probes(r):
        assert p['status'] == 'ok', p
    # The suspect pair was measured again within the launch, and both its hosts met known-good peers.
    retested = {pair_key(p['scope']['hosts']) for p in net_probes(r, 'net.mpi.bw') if p['params'].get('retest') == 1}
    assert pair in retested, retested
    assert any('h1' in k and k != pair for k in retested) and any('h3' in k and k != pair for k in retested), retested
    assert any(n.startswith('re-test pass 1: ') and 'h1-h3' in n for n in r['run']['notes']), r['run']['notes']
    bw = bw_by_pair(r)
    assert sorted(bw) == all_pairs(hosts), bw
    others = [x for k, x in bw.items() if k != pair]
    print('slow pair %s-%s at %s:' % (pair[0], pair[1], rate), show_bw(bw))
    assert 3 * bw[pair] < min(others), show_bw(bw)
    if int(expect_localisation):
        # Target verdicts: the link h1<->h3 is flagged, neither node is (h1 and h3 are fine with
        # everyone else), and no other link is.
        link = link_verdict(r, *pair)
        assert link['state'] in ('degraded', 'failed') and network_reasons(link), link
        for v in verdicts(r, 'node').values():
            assert not network_reasons(v), v
        for k, v in verdicts(r, 'link').items():
            if pair_key(k.split('<->')) != pair:
                assert v['state'] == 'healthy', v


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
