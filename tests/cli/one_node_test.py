#!/usr/bin/env python3
"""The report checks of tests/cli/one_node_test.sh: one_node_test.py CASE REPORT."""
import json
import sys


def load(path):
    with open(path) as f:
        r = json.load(f)
    assert r['run']['scope'] == 'node', r['run']
    assert any(n.startswith('scope: one host') for n in r['run']['notes']), r['run']['notes']
    pairs = [p for p in r['probes'] if p['id'] == 'net.pairs']
    assert len(pairs) == 1 and pairs[0]['status'] == 'skipped', pairs
    assert pairs[0]['reason'].startswith('out of scope on one host'), pairs[0]
    return r


def verdict(r, kind, entity_id):
    found = [v for v in r['verdicts'] if v['entity'] == {'kind': kind, 'id': entity_id}]
    assert len(found) == 1, (kind, entity_id, r['verdicts'])
    return found[0]


def reasons_about(v, probe_id):
    return [x for x in v['reasons'] if x['message'].startswith(probe_id + ':')]


def healthy(r):
    node = verdict(r, 'node', 'n1')
    assert node['state'] == 'healthy' and node['action'] == 'admit' and not node['reasons'], node
    assert r['summary']['state'] == 'healthy' and r['summary']['exit_code'] == 0, r['summary']
    assert r['summary']['admit'] == ['n1'], r['summary']


def port_down(r):
    port = verdict(r, 'hca_port', 'n1/mlx5_1:1')
    assert port['state'] == 'failed', port
    assert [x['code'] for x in port['reasons']] == ['IB_PORT_DOWN'], port
    assert verdict(r, 'hca_port', 'n1/mlx5_0:1')['state'] == 'healthy'
    node = verdict(r, 'node', 'n1')
    assert 'mlx5_1:1' in node['excluded'] and 'mlx5_0:1' in node['usable'], node
    # A rail excluded, the other usable: the node is admitted degraded, and so is the run.
    assert node['state'] == 'degraded' and node['action'] == 'admit_degraded', node
    assert r['summary']['admit_degraded'] == ['n1'] and not r['summary']['drain'], r['summary']
    assert r['summary']['state'] == 'degraded' and r['summary']['exit_code'] == 1, r['summary']


def port_down_work_order(r):
    """As port_down, with --cabling: one work order, the DOWN port's cable to leaf1 port 8, the
    act for a link that is down, the switch end's counters said to be unread."""
    port_down(r)
    orders = r['work_orders']
    assert len(orders) == 1, orders
    o = orders[0]
    assert o['cable'] == 'n1 mlx5_1:1 <-> leaf1 port 8', o
    assert o['entities'] == [{'kind': 'hca_port', 'id': 'n1/mlx5_1:1'}] and o['state'] == 'failed', o
    assert o['next'].startswith('the link is down: check the cable is seated'), o
    assert o['counters'] == {}, o  # a fixture's counters do not move
    assert o['unread'] == ["leaf1 port 8: a switch's counters are not read by ibgpu "
                           "(perfquery -G 0xb83fd203004d5e40 8)"], o
    # No --topology: the cabling's tree places n1 on leaf1.
    assert [h.get('leaf') for h in r['hosts']] == ['leaf1'], r['hosts']
    assert any(n.startswith('topology: the cabling ') and n.endswith('n1_as_built.txt, 1 of 1 host on its leaf switches')
               for n in r['run']['notes']), r['run']['notes']
    notes = [n for n in r['run']['notes'] if n.startswith('cabling: ')]
    assert len(notes) == 1 and notes[0].endswith("n1_as_built.txt, 2 cables, 2 of the hosts' 2 RDMA ports in it; "
                                                 "1 work order"), notes


def generic_unknown(r):
    node = verdict(r, 'node', 'n1')
    assert node['state'] == 'unknown' and node['action'] == 'drain', node
    assert reasons_about(node, 'inventory.gpu'), node['reasons']
    for out_of_scope in ('net.pairs', 'collective.mpi.all_reduce'):
        assert not reasons_about(node, out_of_scope), (out_of_scope, node['reasons'])
    assert r['summary']['exit_code'] == 3, r['summary']
    assert any('--profile cpu' in n for n in r['run']['notes']), r['run']['notes']


if __name__ == '__main__':
    case, path = sys.argv[1], sys.argv[2]
    globals()[case](load(path))
