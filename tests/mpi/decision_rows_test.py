"""Checks of decision_rows_test.sh on each row's report: the node's state and action, the summary's
exit code and drain list, and which reasons hold it (findings) or stand beside it (unchecked)."""
import json
import sys


def node(r):
    nodes = [v for v in r['verdicts'] if v['entity']['kind'] == 'node']
    assert len(nodes) == 1 and nodes[0]['entity']['id'] == 'n1', nodes
    assert r['run']['ranks'] == 2, r['run']
    return nodes[0]


def codes(v, evidence):
    return sorted({x['code'] for x in v['reasons'] if x['evidence'] == evidence})


def decided(r, rc, state, action):
    v = node(r)
    assert (v['state'], v['action']) == (state, action), v
    assert r['summary']['exit_code'] == int(rc), (r['summary'], rc)
    assert r['summary']['drain'] == ['n1'] and not r['summary']['admit'], r['summary']
    # Between the node's own ranks nothing is judged: no finding on a link.
    links = [x for x in r['verdicts'] if x['entity']['kind'] == 'link']
    assert all(x['state'] == 'healthy' and not codes(x, 'finding') for x in links), links
    return v


def row3(r, rc):
    v = decided(r, rc, 'failed', 'drain')
    assert codes(v, 'unchecked') == [], v
    assert sorted(v['excluded']) == ['mlx5_0:1', 'mlx5_1:1'], v


def row4(r, rc):
    v = decided(r, rc, 'unknown', 'drain')
    assert codes(v, 'finding') == [], v
    assert codes(v, 'unchecked') == ['CHECK_SKIPPED'], v


def row5(r, rc):
    v = decided(r, rc, 'degraded', 'drain')
    assert codes(v, 'finding') == ['GPUS_UNHEALTHY'], v
    assert codes(v, 'unchecked') == ['CHECK_SKIPPED'], v
    assert v['excluded'] == ['gpu3'], v


def row6(r, rc):
    v = decided(r, rc, 'failed', 'drain')
    assert codes(v, 'finding') == ['GPU_MISSING'], v
    assert codes(v, 'unchecked') == ['CHECK_SKIPPED'], v


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
