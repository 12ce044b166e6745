#!/usr/bin/env python3
"""The checks of tests/netns/nvl72_rack_test.sh: nvl72_rack_test.py CASE FILE [ARG...].

lane_profile PROFILE LANE OUT: writes OUT, the shipped gb200-nvl72-tray PROFILE with the lane's
network and fleet tables. decisions REPORT EXIT: every tray's, GPU's and rail's verdict, exactly.
"""

from report import lane_profile_from, run_case, verdicts

HOSTS = ['h%d' % i for i in range(1, 19)]
# The gb200-tray fixture (tests/data/sysfs/README.md): each GPU by bus order and its rail.
GPU_BUS = ['0008:01:00.0', '0009:01:00.0', '0018:01:00.0', '0019:01:00.0']
RAILS = ['mlx5_%d:1' % i for i in range(4)]
GPUS = ['gpu%d' % i for i in range(4)]
CLUSTER = '8c1f4a2e-5b3d-4e6f-9a71-0b2c3d4e5f60'
RACK = CLUSTER + '/clique 32766'


def lane_profile(profile_path, lane_path, out_path):
    parsed = lane_profile_from(profile_path, lane_path, out_path)
    assert parsed['node']['expect_gpus'] == 4 and parsed['gpu']['nvlink_fabric'] is True, parsed
    assert parsed['gpu']['imex_channel'] is True and parsed['gpu']['imex_service'] is True, parsed


def codes(v):
    return [x['code'] for x in v['reasons']]


def decisions(r, exit_code):
    hosts = {h['name']: h for h in r['hosts']}
    assert sorted(hosts, key=lambda h: int(h[1:])) == HOSTS, sorted(hosts)
    # Every tray: its four GPUs found on the bus, each with an HCA of its own Grace (no switch on a
    # tray: NODE), so all four HCAs are rails; one rank a host, on GPU 0's rail.
    for name, h in hosts.items():
        assert [g['pci_address'] for g in h['pci_gpus']] == GPU_BUS, (name, h['pci_gpus'])
        topo = {t['gpu']: (t['hca'], t['proximity']) for t in h['topology']}
        assert topo == {i: (RAILS[i][:-2], 'same_numa') for i in range(4)}, (name, topo)
        assert [x['port'] for x in h['rails']] == ['mlx5_0:1'], (name, h['rails'])

    # The fabric is not at fault: every pair measured, every link healthy (the lane's limits).
    pairs = [p for p in r['probes'] if p['id'] == 'net.mpi.bw']
    assert pairs and all(p['status'] == 'ok' for p in pairs), [(p['scope'], p['status']) for p in pairs]
    for v in verdicts(r, 'link').values():
        assert v['state'] == 'healthy', v

    nodes = verdicts(r, 'node')
    gpus = verdicts(r, 'gpu')
    ports = verdicts(r, 'hca_port')
    odd = {'h4', 'h6', 'h8', 'h12', 'h14', 'h16'}
    for name in HOSTS:
        if name in odd:
            continue
        node = nodes[name]
        assert node['state'] == 'healthy' and node['action'] == 'admit' and not node['reasons'], node
        assert node['usable'] == GPUS + RAILS and node['excluded'] == [], node
        for g in GPUS:
            assert gpus[name + '/' + g]['state'] == 'healthy', gpus[name + '/' + g]
        for p in RAILS:
            assert ports[name + '/' + p]['state'] == 'healthy', ports[name + '/' + p]
    # The domain each GPU joined is in its record.
    health = [p for p in r['probes'] if p['id'] == 'gpu.nvml.health' and p['scope']['hosts'] == ['h1']]
    assert len(health) == 4 and all(p['params']['fabric_cluster_uuid'] == CLUSTER and
                                    p['params']['fabric_clique'] == 32766 for p in health), health

    # h4: no GPU registered with the fabric: each failed, the tray drained.
    for g in GPUS:
        v = gpus['h4/' + g]
        assert v['state'] == 'failed' and codes(v) == ['GPU_FABRIC_NOT_REGISTERED'], v
    assert nodes['h4']['state'] == 'failed' and nodes['h4']['action'] == 'drain', nodes['h4']
    assert nodes['h4']['usable'] == [], nodes['h4']

    # h6: no IMEX channel0; h14: no IMEX daemon. Each tray drained for it, its GPUs and rails healthy.
    imex = {p['scope']['hosts'][0]: p for p in r['probes'] if p['id'] == 'node.imex'}
    assert sorted(imex, key=lambda h: int(h[1:])) == HOSTS, sorted(imex)
    for name, p in imex.items():
        assert p['status'] == 'ok' and p['params']['channel_major'] == 234, p
        assert p['metrics']['imex_nodes'] == 18, p
    for name, code, message in (
            ('h6', 'IMEX_CHANNEL_MISSING', 'IMEX channel 0 unusable: no '),
            ('h14', 'IMEX_SERVICE_DOWN', 'no nvidia-imex process runs')):
        node = nodes[name]
        assert node['state'] == 'failed' and node['action'] == 'drain' and codes(node) == [code], node
        assert node['reasons'][0]['message'].startswith(message), node['reasons']
        assert node['usable'] == [], node
        for g in GPUS:
            assert gpus[name + '/' + g]['state'] == 'healthy', gpus[name + '/' + g]
        assert r['summary']['kubernetes'][name]['annotations']['ibgpu.io/reasons'] == 'failed: ' + code, \
            r['summary']['kubernetes'][name]
    assert imex['h6']['metrics']['imex_channel0'] == 0 and imex['h14']['metrics']['imex_daemon'] == 0

    # h8: gpu1 slow on one link (degraded, kept), gpu2 not registered and gpu3 a link down (failed,
    # left out with their rails).
    assert gpus['h8/gpu0']['state'] == 'healthy', gpus['h8/gpu0']
    assert gpus['h8/gpu1']['state'] == 'degraded' and codes(gpus['h8/gpu1']) == ['GPU_NVLINK_SLOW'], gpus['h8/gpu1']
    assert gpus['h8/gpu2']['state'] == 'failed' and codes(gpus['h8/gpu2']) == ['GPU_FABRIC_NOT_REGISTERED'], gpus['h8/gpu2']
    assert gpus['h8/gpu3']['state'] == 'failed' and codes(gpus['h8/gpu3']) == ['GPU_NVLINK_DOWN'], gpus['h8/gpu3']
    assert gpus['h8/gpu3']['reasons'][0]['message'] == '1 of 18 NVLinks down (link 11)', gpus['h8/gpu3']
    h8 = nodes['h8']
    assert h8['state'] == 'degraded' and h8['action'] == 'admit_degraded', h8
    assert h8['excluded'] == ['gpu2', 'gpu3', 'mlx5_2:1', 'mlx5_3:1'], h8
    assert h8['usable'] == ['gpu0', 'gpu1', 'mlx5_0:1', 'mlx5_1:1'], h8

    # h12: its GPUs joined two domains; h16: a domain none of the rest of its block joined.
    h12 = nodes['h12']
    assert h12['state'] == 'degraded' and h12['action'] == 'admit_degraded', h12
    assert codes(h12) == ['NVLINK_DOMAIN_SPLIT'], h12
    assert h12['reasons'][0]['message'] == (
        'its GPUs joined 2 NVLink domains (gpu0,gpu1 in %s; gpu2,gpu3 in %s/clique 32767): rack jobs cannot span '
        'them' % (RACK, CLUSTER)), h12['reasons']
    h16 = nodes['h16']
    assert h16['state'] == 'degraded' and h16['action'] == 'admit_degraded', h16
    assert codes(h16) == ['NVLINK_DOMAIN_SPLIT'], h16
    # Judged: the sixteen trays with one domain (h4 joined none, h12 is split evenly).
    assert h16['reasons'][0]['message'] == (
        'in NVLink domain %s/clique 32765, where 15 of the 16 nodes of its block rack1 joined %s' % (CLUSTER, RACK)), \
        h16['reasons']
    for name in ('h12', 'h16'):
        assert nodes[name]['usable'] == GPUS + RAILS and nodes[name]['excluded'] == [], nodes[name]
    # The rack's domain holds 15 of its 18 trays: h4 joined none, h12 is split evenly, h16 another.
    rack = verdicts(r, 'switch')['rack1']
    assert rack['state'] == 'degraded' and codes(rack) == ['NVLINK_DOMAIN_SHORT'], rack
    assert rack['reasons'][0]['message'].startswith(
        'NVLink domain %s holds 15 of the 18 nodes of block rack1 checked in this run (' % RACK), rack['reasons']

    s = r['summary']
    assert s['drain'] == ['h4', 'h6', 'h14'], s
    assert sorted(s['admit_degraded'], key=lambda h: int(h[1:])) == ['h8', 'h12', 'h16'], s
    assert len(s['admit']) == 12, s
    assert s['state'] == 'failed' and s['exit_code'] == int(exit_code) == 2, (s['state'], s['exit_code'], exit_code)
    # The domain in the Kubernetes labels: each tray's own; none for h4 (joined none) and h12 (split evenly).
    k8s = s['kubernetes']
    for name in HOSTS:
        labels, notes = k8s[name]['labels'], k8s[name]['annotations']
        if name in ('h4', 'h12'):
            assert 'ibgpu.io/nvlink-clique' not in labels and 'ibgpu.io/nvlink-domain' not in notes, (name, k8s[name])
            continue
        clique = '32765' if name == 'h16' else '32766'
        assert labels['ibgpu.io/nvlink-cluster'] == CLUSTER and labels['ibgpu.io/nvlink-clique'] == clique, (name, labels)
        assert notes['ibgpu.io/nvlink-domain'] == CLUSTER + '/clique ' + clique, (name, notes)
    assert any(n.startswith('topology: ') and n.endswith(', 18 of 18 hosts in its blocks') for n in r['run']['notes']), \
        r['run']['notes']


if __name__ == '__main__':
    run_case(globals(), path_cases=('lane_profile',))
