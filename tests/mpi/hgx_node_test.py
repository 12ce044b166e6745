"""Checks of hgx_node_test.sh on the report."""
import json
import sys


def healthy_hgx(r, exit_code, np):
    # Nothing held against the node: every reason is a figure ibgpu did not judge (the MPI host
    # all-reduce against the NCCL floor, MPI between ranks of one host against the RDMA floor).
    held = [(v['entity'], x) for v in r['verdicts'] for x in v['reasons'] if x['evidence'] != 'not_judged']
    assert not held, held
    node = [v for v in r['verdicts'] if v['entity']['kind'] == 'node']
    assert len(node) == 1 and node[0]['state'] == 'healthy' and node[0]['action'] == 'admit', node
    assert len(node[0]['usable']) == 16, node[0]  # eight GPUs and eight rails
    assert r['run']['ranks'] == int(np), r['run']
    ran = [p for p in r['probes'] if p['id'] == 'collective.mpi.all_reduce' and p['status'] == 'ok']
    assert ran, [p['id'] for p in r['probes']]
    assert r['summary']['exit_code'] == int(exit_code) == 0, (r['summary'], exit_code)


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
