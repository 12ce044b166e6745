#!/usr/bin/env python3
"""The report checks of tests/netns/slow_host_test.sh: slow_host_test.py CASE REPORT [ARG...].

Each CASE is a function below, called with the parsed report and the ARGs; a failed assert
fails the test (exit 1, with the traceback).
"""
import json
import sys

from report import all_pairs, bw_by_pair, net_probes, network_reasons, show_bw, verdicts


def slow_host(r, slow, rate, rc, expect_localisation):
    """Host SLOW limited to RATE: its 4 pairs at least 3 times slower than every other, the report's
    exit code the job's (RC); with EXPECT_LOCALISATION 1, the node SLOW flagged and nothing else."""
    rc = int(rc)
    hosts = sorted(h['name'] for h in r['hosts'])
    assert hosts == ['h1', 'h2', 'h3', 'h4', 'h5'], hosts
    assert r['summary']['exit_code'] == rc, (r['summary'], rc)
    for p in net_probes(r):
        assert p['status'] == 'ok', p
    bw = bw_by_pair(r)
    assert sorted(bw) == all_pairs(hosts), bw
    through = [x for k, x in bw.items() if slow in k]
    others = [x for k, x in bw.items() if slow not in k]
    print('slow host %s at %s:' % (slow, rate), show_bw(bw))
    # A factor, not absolute numbers: the slowest pair without the slow host is at least 3 times
    # faster than the fastest pair through it (10 times or more when the machine is quiet).
    assert len(through) == 4 and 3 * max(through) < min(others), show_bw(bw)
    if int(expect_localisation):
        # Target verdicts (fleet-relative rules + localisation): every pair through h2 is bad, so the
        # node is the culprit; no other node is flagged and no link without h2 is.
        # Its state may be 'unknown' rather than degraded where GPU/RDMA checks were skipped (unknown
        # outranks degraded): the network reason is what localises it.
        node = verdicts(r, 'node')
        assert node[slow]['state'] != 'healthy' and network_reasons(node[slow]), node[slow]
        # Bad with each of its four peers at a third of their speed or less: no chance reading.
        bandwidth = [x for x in network_reasons(node[slow]) if x['code'].startswith('NET_BW')]
        assert bandwidth and all(x['confidence']['level'] in ('likely', 'certain') for x in bandwidth), bandwidth
        for h in hosts:
            if h != slow:
                assert not network_reasons(node[h]), node[h]
        for k, v in verdicts(r, 'link').items():
            if slow not in k.split('<->'):
                assert v['state'] == 'healthy', v
        assert r['summary']['exit_code'] in (1, 2, 3), r['summary']
        # Its work order: its one cable (as iblinkinfo printed it), its counters said to be unread
        # (a namespace host has no HCA), the switch end's perfquery, the act for a port that reads
        # clean. No other order: its links were measured over MPI, without ports.
        orders = r['work_orders']
        print('work orders:', json.dumps(orders, indent=1))
        assert [o['cable'] for o in orders] == ['%s mlx5_0:1 <-> leaf1 port 2' % slow], orders
        o = orders[0]
        assert {'kind': 'node', 'id': slow} in o['entities'], o
        assert o['shortfall'] == network_reasons(node[slow])[0]['message'], o
        assert o['unread'] == ['%s mlx5_0:1: no error counters read during the run' % slow,
                               "leaf1 port 2: a switch's counters are not read by ibgpu "
                               "(perfquery -G 0xb83fd203004d5e40 2)"], o
        assert o['next'].startswith('inspect the switch port'), o


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
