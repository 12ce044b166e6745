"""Checks of hgx_node_test.sh on the report."""
import json
import sys


def healthy_hgx(r, exit_code, np, judged):
    # Nothing held against the node: every reason is a figure ibgpu did not judge (the MPI host
    # all-reduce against the NCCL floor, MPI between ranks of one host against the RDMA floor).
    held = [(v['entity'], x) for v in r['verdicts'] for x in v['reasons'] if x['evidence'] != 'not_judged']
    assert not held, held
    node = [v for v in r['verdicts'] if v['entity']['kind'] == 'node']
    assert len(node) == 1 and node[0]['state'] == 'healthy' and node[0]['action'] == 'admit', node
    assert len(node[0]['usable']) == 16, node[0]  # eight GPUs and eight rails
    assert r['run']['ranks'] == int(np), r['run']
    # The GPUs' identities as NVML (the scenario) gives them: UUID and board serial, for joins.
    gpus = r['hosts'][0]['gpus']
    assert [g['serial'] for g in gpus] == ['16549220%05d' % (10231 + i) for i in range(8)], gpus
    assert len({g['uuid'] for g in gpus}) == 8 and all(g['uuid'].startswith('GPU-') for g in gpus), gpus
    ran = [p for p in r['probes'] if p['id'] == 'collective.mpi.all_reduce' and p['status'] == 'ok']
    assert ran, [p['id'] for p in r['probes']]
    assert r['summary']['exit_code'] == int(exit_code) == 0, (r['summary'], exit_code)
    # --allreduce-sizes judged: 1G is there for the NCCL floor alone; over MPI it is not run, said
    # why, recorded as not judged (CHECK_NOT_RUN), and no MPI all-reduce at 1G exists.
    not_run = [p for p in r['probes'] if p['id'] == 'collective.mpi.all_reduce' and p['status'] == 'skipped']
    if int(judged):
        assert len(not_run) == 1 and not_run[0]['skipped_by'] == 'ibgpu', not_run
        assert "not run: 1G is swept only for the profile's nccl floor" in not_run[0]['reason'], not_run
        assert {x['code'] for x in node[0]['reasons'] if 'not run: 1G' in x.get('message', '')} == {'CHECK_NOT_RUN'}, node
    else:
        assert not not_run, not_run
    assert not [p for p in ran if p['params']['size_B'] >= 1 << 30], ran


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
