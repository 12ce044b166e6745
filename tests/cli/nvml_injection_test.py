#!/usr/bin/env python3
"""The report checks of tests/cli/nvml_injection_test.sh: nvml_injection_test.py CASE REPORT [EXIT]."""
import json
import sys

# The scenario's GPUs (tests/data/nvml/h100_healthy.toml), by NVML index.
BUS_IDS = ['00000000:1B:00.0', '00000000:43:00.0', '00000000:52:00.0', '00000000:61:00.0',
           '00000000:9D:00.0', '00000000:C3:00.0', '00000000:D1:00.0', '00000000:DF:00.0']
UUID_PREFIX = 'GPU-6f2c1a8e-'  # gpu0's


def host(r):
    assert [h['name'] for h in r['hosts']] == ['n1'], r['hosts']
    return r['hosts'][0]


def probe(r, probe_id, device=None):
    found = [p for p in r['probes'] if p['id'] == probe_id and (device is None or p['scope']['devices'] == [device])]
    assert len(found) == 1, (probe_id, device, [p['id'] for p in r['probes']])
    return found[0]


def verdict(r, kind, entity_id):
    found = [v for v in r['verdicts'] if v['entity'] == {'kind': kind, 'id': entity_id}]
    assert len(found) == 1, (kind, entity_id, r['verdicts'])
    return found[0]


def inventory(r):
    gpus = host(r)['gpus']
    assert [g['index'] for g in gpus] == list(range(8)), gpus
    # gpu1's handle is refused (NO_PERMISSION): listed, undescribed, its error on the probe.
    assert gpus[1]['pci_bus_id'] == '' and gpus[1]['name'] == '', gpus[1]
    for i in (0, 2, 3, 4, 5, 6, 7):
        assert gpus[i]['name'] == 'NVIDIA H100 80GB HBM3', gpus[i]
        assert gpus[i]['pci_bus_id'] == BUS_IDS[i], gpus[i]
    assert host(r)['versions']['nvidia_driver'] == '550.90.07', host(r)['versions']
    assert host(r)['versions']['cuda_driver'] == '12.4', host(r)['versions']
    gpu = probe(r, 'inventory.gpu')
    assert gpu['status'] == 'ok', gpu
    assert gpu['metrics']['gpu_count'] == 8, gpu['metrics']
    assert gpu['params']['gpu_errors'] == {'gpu1': 'nvmlDeviceGetHandleByIndex_v2: Insufficient Permissions'}, gpu
    rdma = probe(r, 'inventory.rdma')
    assert rdma['metrics']['active_port_count'] == 8, rdma['metrics']


def ecc(r, exit_code):
    health = [p for p in r['probes'] if p['id'] == 'gpu.nvml.health']
    assert sorted(p['scope']['devices'][0] for p in health) == [f'gpu{i}' for i in range(8)], health
    assert all(p['status'] == 'ok' for p in health), [(p['scope'], p['status']) for p in health]
    assert probe(r, 'gpu.nvml.health', 'gpu3')['metrics']['ecc_uncorrected_volatile'] == 2
    bad = verdict(r, 'gpu', 'n1/gpu3')
    assert bad['state'] == 'failed', bad
    assert [x['code'] for x in bad['reasons']] == ['GPU_ECC_UNCORRECTABLE'], bad
    for i in (0, 1, 2, 4, 5, 6, 7):
        v = verdict(r, 'gpu', f'n1/gpu{i}')
        assert v['state'] == 'healthy' and not v['reasons'], v
    for k in range(8):
        port = verdict(r, 'hca_port', f'n1/mlx5_{k}:1')
        assert port['state'] == 'healthy', port
    node = verdict(r, 'node', 'n1')
    assert node['excluded'] == ['gpu3'], node
    gpus_unhealthy = [x for x in node['reasons'] if x['code'] == 'GPUS_UNHEALTHY']
    assert len(gpus_unhealthy) == 1, node
    assert gpus_unhealthy[0]['message'] == '7 of 8 GPUs usable (gpu3 failed)', gpus_unhealthy
    # NVML's part alone would admit the node degraded (the unit tests show it); here the CUDA
    # checks cannot run (no CUDA driver), so the node stays unknown and is drained for that
    # reason and no other.
    others = [x for x in node['reasons'] if x['code'] != 'GPUS_UNHEALTHY']
    assert others and all(x['code'] == 'CHECK_SKIPPED' and x['message'].startswith('gpu.cuda.') for x in others), node
    assert node['state'] == 'unknown' and node['action'] == 'drain', node
    # The run's state is its worst verdict: gpu3 failed, exit 2.
    assert r['summary']['state'] == 'failed' and r['summary']['drain'] == ['n1'], r['summary']
    assert r['summary']['exit_code'] == int(exit_code) == 2, (r['summary'], exit_code)


def no_driver(r):
    gpus = host(r)['gpus']
    assert not any(g['uuid'].startswith(UUID_PREFIX) for g in gpus), gpus


if __name__ == '__main__':
    case, path = sys.argv[1], sys.argv[2]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *sys.argv[3:])
