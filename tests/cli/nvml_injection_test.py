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
    # The decision table's row "degraded finding, check missing": NVML's part alone would admit
    # the node degraded (gpu3 excluded); the CUDA checks cannot run (no CUDA driver), so the node
    # shows its finding (degraded) and is not decided: drained for what is missing, exit 3.
    others = [x for x in node['reasons'] if x['code'] != 'GPUS_UNHEALTHY']
    assert others and all(x['code'] == 'CHECK_SKIPPED' and x['message'].startswith('gpu.cuda.') for x in others), node
    assert all(x['evidence'] == 'unchecked' for x in others), others
    assert gpus_unhealthy[0]['evidence'] == 'finding', gpus_unhealthy
    assert node['state'] == 'degraded' and node['action'] == 'drain', node
    assert r['summary']['state'] == 'unknown' and r['summary']['drain'] == ['n1'], r['summary']
    assert r['summary']['exit_code'] == int(exit_code) == 3, (r['summary'], exit_code)


def off_the_bus(r, exit_code):
    """The HGX H100 tree: eight GPUs on the PCI bus, seven in NVML; the eighth is named by its bus id."""
    h = host(r)
    assert [g['pci_address'] for g in h['pci_gpus']] == [
        '0000:1b:00.0', '0000:20:00.0', '0000:4e:00.0', '0000:52:00.0',
        '0000:9d:00.0', '0000:a2:00.0', '0000:cd:00.0', '0000:d1:00.0'], h['pci_gpus']
    assert all(g['device_id'] == '0x2330' and g['pci_link']['width'] == 16 for g in h['pci_gpus']), h['pci_gpus']
    assert len(h['gpus']) == 7, h['gpus']
    node = verdict(r, 'node', 'n1')
    missing = [x for x in node['reasons'] if x['code'] == 'GPU_MISSING']
    assert len(missing) == 2, node['reasons']  # seven of eight expected, and which one: by its bus id
    by_bus = [x for x in missing if '0000:d1:00.0' in x['message']]
    assert len(by_bus) == 1 and 'NVML does not list it' in by_bus[0]['message'], missing
    assert node['state'] == 'failed' and node['action'] == 'drain', node
    assert int(exit_code) == 2 and r['summary']['exit_code'] == 2, (exit_code, r['summary'])
    for g in range(7):
        assert verdict(r, 'gpu', 'n1/gpu%d' % g)['state'] == 'healthy', verdict(r, 'gpu', 'n1/gpu%d' % g)


def no_driver(r):
    gpus = host(r)['gpus']
    assert not any(g['uuid'].startswith(UUID_PREFIX) for g in gpus), gpus


if __name__ == '__main__':
    case, path = sys.argv[1], sys.argv[2]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *sys.argv[3:])
