#!/bin/bash
# No fault, 4 namespace hosts, repeated: every host pair measured over its real path, every link
# healthy, no node flagged for a network reason, the same exit code every time. Counts the runs
# with a false positive (any network entity flagged), which must be zero.
source "$(dirname "$0")/lib.sh"
hosts_up 4
runs=${IBGPU_NETNS_REPEAT:-5}
false_positives=0
for i in $(seq "$runs"); do
  out=$WORK/run$i.json
  ibgpu_on_hosts 90 "${CHECK[@]}" --timeout 20 --json "$out" >"$WORK/run$i.log" 2>&1
  validate "$out"
  check_json "$out" "
hosts = sorted(h['name'] for h in r['hosts'])
assert hosts == ['h1', 'h2', 'h3', 'h4'], hosts
assert [h['ranks'] for h in sorted(r['hosts'], key=lambda h: h['name'])] == [[0], [1], [2], [3]], r['hosts']
assert r['summary']['exit_code'] == $rc == ($expected_clean_exit), (r['summary'], $rc)
bw = bw_by_pair(r)
assert sorted(bw) == all_pairs(hosts), bw
assert sorted(pair_key(k.split('<->')) for k in verdicts(r, 'link')) == all_pairs(hosts), verdicts(r, 'link')
assert len(net_probes(r, 'net.mpi.lat')) == 6, net_probes(r, 'net.mpi.lat')
print('run $i:', show_bw(bw))
" || fail "run $i: report not as expected"
  # A false positive: a network probe not ok, a link not healthy, or a node with a network reason.
  if ! check_json "$out" "
bad = [p['id'] + ' ' + str(p['scope']['hosts']) for p in net_probes(r) if p['status'] != 'ok']
bad += [k for k, v in verdicts(r, 'link').items() if v['state'] != 'healthy' or v['reasons']]
bad += [k for k, v in verdicts(r, 'node').items() if network_reasons(v)]
assert sorted(verdicts(r, 'link')) and not bad, bad
"; then
    false_positives=$((false_positives + 1))
  fi
done
echo "no fault: $false_positives false positives in $runs runs of 4 hosts (6 links each)"
[ "$false_positives" -eq 0 ] || fail "$false_positives of $runs fault-free runs flagged something"

# Once more with the all-reduce step on (MPI backend here), as an operator runs `check`: every
# all-reduce checked and exact across the 4 hosts, and still nothing flagged.
out=$WORK/full.json
check_with 10 auto
ibgpu_on_hosts 90 "${CHECK[@]}" --timeout 20 --json "$out" >"$WORK/full.log" 2>&1
validate "$out"
check_json "$out" "
sums = [p for p in r['probes'] if p['id'].startswith('collective.')]
assert sums and all(p['status'] == 'ok' and p['metrics']['wrong_elements_total'] == 0 for p in sums), sums
assert sorted(sums[0]['scope']['hosts']) == ['h1', 'h2', 'h3', 'h4'], sums[0]['scope']
assert all(v['state'] == 'healthy' for v in verdicts(r, 'link').values()), verdicts(r, 'link')
assert not [k for k, v in verdicts(r, 'node').items() if network_reasons(v)], r['verdicts']
assert r['summary']['exit_code'] == $rc == ($expected_clean_exit), (r['summary'], $rc)
"
echo "no fault with the all-reduce step: ok (exit $rc)"
