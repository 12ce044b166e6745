#!/usr/bin/env python3
"""The checks of tests/netns/hgx_nodes_test.sh: hgx_nodes_test.py CASE FILE [ARG...].

lane_profile PROFILE LANE OUT: writes OUT, the shipped PROFILE with its network and fleet tables
replaced by the lane's (LANE). decisions REPORT EXIT LOG: the per-node decisions, exactly.
"""
import re

from report import lane_profile_from, run_case, verdicts

# The hgx-h100 fixture (tests/data/sysfs/README.md): each GPU, by bus order, and the compute HCA
# on its PCIe switch. mlx5_1, 2, 7 and 8 are storage and in-band: never rails.
GPU_BUS = ['0000:1b:00.0', '0000:20:00.0', '0000:4e:00.0', '0000:52:00.0',
           '0000:9d:00.0', '0000:a2:00.0', '0000:cd:00.0', '0000:d1:00.0']
RAIL_OF_GPU = ['mlx5_0', 'mlx5_3', 'mlx5_4', 'mlx5_5', 'mlx5_6', 'mlx5_9', 'mlx5_10', 'mlx5_11']
NOT_RAILS = ['mlx5_1:1', 'mlx5_2:1', 'mlx5_7:1', 'mlx5_8:1']
ALL_GPUS = ['gpu%d' % i for i in range(8)]
ALL_RAILS = [h + ':1' for h in RAIL_OF_GPU]


def lane_profile(profile_path, lane_path, out_path):
    parsed = lane_profile_from(profile_path, lane_path, out_path)
    assert parsed['node']['expect_gpus'] == 8 and parsed['node']['exclude_rail_with_gpu'] is True, parsed['node']


def codes(v):
    return [x['code'] for x in v['reasons']]


def decisions(r, exit_code, log_path):
    hosts = {h['name']: h for h in r['hosts']}
    assert sorted(hosts) == ['h1', 'h2', 'h3', 'h4'], sorted(hosts)
    # Every host: its GPUs found on the bus without a driver, each placed by its own switch's HCA,
    # and one rank whose rail is GPU 0's HCA, never a storage one.
    for name, h in hosts.items():
        assert [g['pci_address'] for g in h['pci_gpus']] == GPU_BUS, (name, h['pci_gpus'])
        topo = {t['gpu']: (t['hca'], t['proximity']) for t in h['topology']}
        expect = len(h['gpus'])  # h3's NVML lists seven
        assert topo == {i: (RAIL_OF_GPU[i], 'same_switch') for i in range(expect)}, (name, topo)
        assert h['rails'] == [{'local_rank': 0, 'gpu_pci': GPU_BUS[0], 'port': 'mlx5_0:1',
                               'proximity': 'same_switch', 'note': None}], (name, h['rails'])
    assert len(hosts['h3']['gpus']) == 7 and all(len(hosts[h]['gpus']) == 8 for h in ('h1', 'h2', 'h4'))

    # The pairs ran over MPI between every host (a suspect pair once more, as a re-test); the lane's
    # network limits find nothing to blame on these nodes.
    pairs = [p for p in r['probes'] if p['id'] == 'net.mpi.bw']
    measured = sorted({tuple(sorted(p['scope']['hosts'])) for p in pairs})
    assert measured == [(a, b) for a in sorted(hosts) for b in sorted(hosts) if a < b], measured
    assert all(p['status'] == 'ok' for p in pairs), [(p['scope'], p['status']) for p in pairs]
    for v in verdicts(r, 'link').values():
        assert v['state'] == 'healthy', v
    # --skip gpu.cuda: not run, and said so.
    assert not [p for p in r['probes'] if p['id'].startswith('gpu.cuda')], 'gpu.cuda probes ran'
    assert any(n.startswith('not checked (--skip): gpu.cuda (') for n in r['run']['notes']), r['run']['notes']

    ports = verdicts(r, 'hca_port')
    nodes = verdicts(r, 'node')
    gpus = verdicts(r, 'gpu')
    for name in hosts:
        # Storage and in-band ports: judged as what they are (up, not rails), no rail rule applied.
        for port in NOT_RAILS:
            v = ports[name + '/' + port]
            assert v['state'] == 'healthy' and not v['reasons'], v
        for port in ALL_RAILS:
            assert ports[name + '/' + port]['state'] == 'healthy', ports[name + '/' + port]

    for name in ('h1', 'h4'):
        node = nodes[name]
        assert node['state'] == 'healthy' and node['action'] == 'admit' and not node['reasons'], node
        assert node['usable'] == ALL_GPUS + ALL_RAILS and node['excluded'] == [], node

    ecc = nodes['h2']
    assert gpus['h2/gpu3']['state'] == 'failed' and codes(gpus['h2/gpu3']) == ['GPU_ECC_UNCORRECTABLE'], gpus['h2/gpu3']
    assert ecc['state'] == 'degraded' and ecc['action'] == 'admit_degraded', ecc
    assert codes(ecc) == ['GPUS_UNHEALTHY'] and ecc['reasons'][0]['message'] == '7 of 8 GPUs usable (gpu3 failed)', ecc
    assert ecc['excluded'] == ['gpu3', 'mlx5_5:1'], ecc
    assert ecc['usable'] == [g for g in ALL_GPUS if g != 'gpu3'] + [p for p in ALL_RAILS if p != 'mlx5_5:1'], ecc

    lost = nodes['h3']
    assert lost['state'] == 'failed' and lost['action'] == 'drain', lost
    assert codes(lost) == ['GPU_MISSING', 'GPU_MISSING'], lost
    by_bus = [x['message'] for x in lost['reasons'] if '0000:d1:00.0' in x['message']]
    assert len(by_bus) == 1 and 'NVML does not list it' in by_bus[0], lost['reasons']
    assert lost['usable'] == [], lost

    s = r['summary']
    assert (s['admit'], s['admit_degraded'], s['drain']) == (['h1', 'h4'], ['h2'], ['h3']), s
    assert s['state'] == 'failed' and s['exit_code'] == int(exit_code) == 2, (s['state'], s['exit_code'], exit_code)
    k8s = s['kubernetes']
    labels = {h: k8s[h]['labels'] for h in hosts}
    assert labels['h2']['ibgpu.io/admission'] == 'admit_degraded', labels['h2']
    assert labels['h2']['ibgpu.io/usable-gpu-count'] == '7' and labels['h2']['ibgpu.io/usable-rail-count'] == '7', labels
    assert labels['h3']['ibgpu.io/admission'] == 'drain' and labels['h3']['ibgpu.io/usable-gpu-count'] == '0', labels
    for h in ('h1', 'h4'):
        assert labels[h]['ibgpu.io/admission'] == 'admit', labels[h]
        assert labels[h]['ibgpu.io/usable-gpu-count'] == '8' and labels[h]['ibgpu.io/usable-rail-count'] == '8'
    assert k8s['h2']['annotations']['ibgpu.io/excluded'] == 'gpu3,mlx5_5:1', k8s['h2']

    # The Slurm drain (dry run): h3 alone, with the node's short reason; the others resumed if ibgpu drained them.
    with open(log_path) as f:
        log = f.read()
    drains = re.findall(r'^ibgpu: dry run: drain (\S+) .*$', log, re.M)
    assert drains == ['h3'], log
    line = re.search(r'^ibgpu: dry run: drain h3 .*$', log, re.M).group(0)
    assert "'Reason=ibgpu: failed: GPU_MISSING'" in line, line
    assert sorted(re.findall(r'^ibgpu: dry run: resume (\S+) ', log, re.M)) == ['h1', 'h2', 'h4'], log


if __name__ == '__main__':
    run_case(globals(), path_cases=('lane_profile',))
