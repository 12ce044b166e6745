#!/usr/bin/env python3
"""The report checks of tests/netns/small_group.sh (three_hosts_test.sh, four_hosts_test.sh)."""
import json
import sys

from report import all_pairs, bw_by_pair, expected_clean_exit, network_reasons, show_bw, verdicts


def only_host_named(r, slow, n, rc):
    """N hosts, every pair measured; SLOW ('' for none) is the only node with a network reason,
    a bandwidth one; the exit code is the job's (RC), a clean run's when nothing is slow. A pair
    of two other hosts may read low twice on this loaded machine (as in no_fault_test.py): a
    degraded link, which drains no node; printed, never failed or worse."""
    hosts = ['h%d' % k for k in range(1, int(n) + 1)]
    assert sorted(h['name'] for h in r['hosts']) == hosts, r['hosts']
    bw = bw_by_pair(r)
    assert sorted(bw) == all_pairs(hosts), bw
    assert r['summary']['exit_code'] == int(rc), (r['summary'], rc)
    named = sorted(k for k, v in verdicts(r, 'node').items() if network_reasons(v))
    links = {k: v for k, v in verdicts(r, 'link').items() if network_reasons(v) or v['state'] != 'healthy'}
    others = sorted(k for k in links if slow not in k.split('<->'))
    print('named:', named, 'links flagged:', sorted(links), 'of them between other hosts:', others, show_bw(bw))
    assert named == ([slow] if slow else []), (named, [v for v in r['verdicts'] if network_reasons(v)])
    assert all(links[k]['state'] == 'degraded' for k in others), [links[k] for k in others]
    if not slow:
        assert int(rc) == expected_clean_exit(r), (rc, r['summary'])
        return
    codes = {x['code'] for x in network_reasons(verdicts(r, 'node')[slow])}
    assert 'NET_BW_OUTLIER' in codes, (slow, codes)


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
