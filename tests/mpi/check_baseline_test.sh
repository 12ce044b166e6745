#!/bin/bash
# check --baseline: a saved baseline's medians replace the run's own fleet
# medians for the kinds it has, and the report records which baseline applied.
source "$(dirname "$0")/lib.sh"
mpi 60 2 "$IBGPU" check --allreduce mpi --sizes 64K --json "$WORK/first.json" >/dev/null
# The same run as a healthy fleet whose all-reduce moved a thousand times more.
"$PY" - "$WORK/first.json" "$WORK/fast.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
sums = [p for p in r['probes'] if p['id'].endswith('.all_reduce') and p['status'] == 'ok'
        and isinstance(p['metrics'].get('busbw_GBps'), (int, float))]
assert sums, 'no all-reduce measurement to build a baseline from'
for p in sums:
    p['metrics']['busbw_GBps'] *= 1000
for v in r['verdicts']:
    v['state'], v['reasons'] = 'healthy', []
json.dump(r, open(sys.argv[2], 'w'))
PY
"$IBGPU" report --baseline-out "$WORK/fleet.json" "$WORK/fast.json" >/dev/null || fail "--baseline-out failed"
mpi 60 2 "$IBGPU" check --allreduce mpi --sizes 64K --baseline "$WORK/fleet.json" --json "$WORK/judged.json" >/dev/null
validate "$WORK/judged.json"
check_json "$WORK/judged.json" "
b = r['run']['profile']['baseline']
assert b['file'].endswith('fleet.json') and b['runs'] == 1 and b['kinds'] >= 1, b
codes = [x['code'] for v in r['verdicts'] for x in v['reasons']]
assert 'ALLREDUCE_BUSBW_OUTLIER' in codes, codes
assert r['summary']['exit_code'] == $rc != 0, (r['summary'], $rc)
"
check_json "$WORK/first.json" "
codes = [x['code'] for v in r['verdicts'] for x in v['reasons']]
assert 'ALLREDUCE_BUSBW_OUTLIER' not in codes and 'baseline' not in r['run']['profile'], codes
"
echo "check --baseline: ok (exit $rc)"
