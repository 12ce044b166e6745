#!/usr/bin/env python3
"""The report checks of tests/mpi/check_test.sh: check_test.py CASE REPORT [ARG...].

Each CASE is a function below, called with the parsed report and the ARGs; a failed assert
fails the test (exit 1, with the traceback).
"""
import json
import sys


def summary(r, rc):
    """A 2-rank `check`: the report's exit code is the job's (RC), unchecked hosts are never healthy."""
    rc = int(rc)
    assert r['summary']['exit_code'] == rc, (r['summary'], rc)
    nodes = [v for v in r['verdicts'] if v['entity']['kind'] == 'node']
    assert len(nodes) == 1
    if any(p['status'] == 'skipped' for p in r['probes']):
        assert nodes[0]['state'] != 'healthy', nodes[0]
        assert r['summary']['exit_code'] == 3
        assert nodes[0]['action'] == 'drain'
    # Local checks ran once per host, before the network, and say why when they could not.
    ids = [p['id'] for p in r['probes']]
    for local in ('gpu.nvml.health', 'gpu.cuda.copy_bw', 'gpu.cuda.mem_bw', 'gpu.cuda.compute'):
        assert local in ids, (local, ids)
    for p in r['probes']:
        if p['id'].startswith('gpu.') and p['status'] == 'skipped':
            assert p['reason'], p
    assert ids.count('node.kernel_log') == 1, ids


def allreduce(r):
    """The all-reduce step: both halves (out-of-place, in-place) of each size, nothing wrong."""
    sums = [p for p in r['probes'] if p['id'].startswith('collective.') and p['status'] == 'ok']
    assert sorted((p['params']['size_B'], p['params']['in_place']) for p in sums) == \
        [(1 << 20, False), (1 << 20, True), (16 << 20, False), (16 << 20, True)], sums
    assert all(p['metrics']['wrong_elements_total'] == 0 for p in sums), sums


def allreduce_off(r):
    """--allreduce off: no collective probe at all."""
    assert not [p for p in r['probes'] if p['id'].startswith('collective.')], r['probes']


def degraded_fixture(r, rc):
    """The sysfs fixture with a DOWN port: that port failed; an HDR port of an NDR adapter degraded."""
    ports = {v['entity']['id'].split('/')[1]: v for v in r['verdicts'] if v['entity']['kind'] == 'hca_port'}
    down = [k for k, v in ports.items() if v['state'] == 'failed']
    assert down and all(ports[k]['reasons'][0]['code'] == 'IB_PORT_DOWN' for k in down), ports
    # The HDR port of an NDR adapter trained below its capability; counters were read twice per port.
    assert ports['mlx5_0:1']['state'] == 'degraded', ports['mlx5_0:1']
    assert 'IB_PORT_SPEED_BELOW_CAPABILITY' in [x['code'] for x in ports['mlx5_0:1']['reasons']], ports['mlx5_0:1']
    counted = sorted(p['scope']['devices'][0] for p in r['probes'] if p['id'] == 'ib.port.counters')
    assert counted == ['mlx5_0:1', 'mlx5_1:1', 'mlx5_2:1', 'mlx5_3:1'], counted
    assert int(rc) == r['summary']['exit_code']


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
