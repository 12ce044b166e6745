#!/usr/bin/env python3
"""The catalogue checks of tests/cli/probe_list_test.sh: probe_list_test.py CASE FILE [ARG...]."""
import json
import sys

IDS = {'inventory.gpu', 'inventory.rdma', 'gpu.nvml.health', 'gpu.cuda.copy_bw', 'gpu.cuda.mem_bw',
       'gpu.cuda.compute', 'ib.port.counters', 'node.kernel_log', 'node.kernel_log.xid', 'node.kernel_log.link',
       'node.imex', 'collective.nccl.transport',
       'net.pairs', 'net.verbs.write_bw', 'net.verbs.write_lat', 'net.verbs.send_lat', 'net.verbs.loopback',
       'net.verbs.rail_bytes', 'net.mpi.bw', 'net.mpi.lat',
       'collective.nccl.all_reduce', 'collective.mpi.all_reduce', 'cluster.gather', 'cluster.rank'}


def kinds(doc):
    assert doc['probe_catalogue_version'] == 1, doc
    ids = [k['id'] for k in doc['kinds']]
    assert sorted(ids) == sorted(IDS) and len(ids) == len(set(ids)), ids
    for k in doc['kinds']:
        assert k['description'] and k['stage'] and k['subject'] and k['transport'], k
        assert k['runnable'] == (k['why_not'] is None), k
        if k['judged_by'] != 'none':
            assert k['metrics'], k
    return {k['id']: k for k in doc['kinds']}


def active(doc):
    """A tree with an active NDR port: the RDMA kinds can run."""
    by_id = kinds(doc)
    for i in ('net.verbs.write_bw', 'net.verbs.write_lat', 'net.verbs.loopback', 'inventory.rdma', 'ib.port.counters'):
        assert by_id[i]['runnable'], by_id[i]
    # The control of a verbs pair error is the port's own (docs/verdicts.md, the controls).
    assert by_id['net.verbs.loopback']['subject'] == 'hca_port' and by_id['net.verbs.loopback']['transport'] == 'verbs'
    # A masked rail is the port's finding (RAIL_MASKED), read by the health judge.
    assert by_id['net.verbs.rail_bytes']['subject'] == 'hca_port' and by_id['net.verbs.rail_bytes']['judged_by'] == 'health'
    assert by_id['net.verbs.rail_bytes']['runnable'], by_id['net.verbs.rail_bytes']
    assert by_id['net.verbs.write_bw']['judged_by'] == 'bandwidth' and by_id['net.verbs.write_bw']['subject'] == 'link'
    assert by_id['net.mpi.lat']['judged_by'] == 'latency' and by_id['net.mpi.lat']['transport'] == 'mpi'
    assert 'bw_avg_GBps' in by_id['net.mpi.bw']['metrics']


def no_rdma(doc, root):
    """No RDMA device: each RDMA kind names the folder it looked in; MPI kinds still run."""
    by_id = kinds(doc)
    for i in ('net.verbs.write_bw', 'net.verbs.send_lat', 'net.verbs.loopback', 'inventory.rdma', 'ib.port.counters'):
        assert not by_id[i]['runnable'], by_id[i]
        assert by_id[i]['why_not'] == 'no RDMA device under %s/class/infiniband' % root, by_id[i]
    for i in ('net.mpi.bw', 'net.mpi.lat', 'collective.mpi.all_reduce'):
        assert by_id[i]['runnable'], by_id[i]


if __name__ == '__main__':
    case, path, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(path) as f:
        globals()[case](json.load(f), *args)
