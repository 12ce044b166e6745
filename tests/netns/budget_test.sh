#!/bin/bash
# `--budget` is a promise: `check --full` across 4 namespace hosts (MPI between every pair, the
# all-reduce, re-tests) with budgets of 20 s and 8 s ends within the budget plus the launcher's
# start and end (a generous 15 s on a loaded 2-core machine), and the report's notes say what the
# budget dropped or shortened. A budget of 1 s cannot hold even the smallest plan: the plan says so
# before anything runs, and the steps past it are `unknown`. Then one host crawls (50 mbit, where one
# 64 MiB message takes 11 s and one 256 MiB all-reduce a minute and a half): the 20 s budget still
# holds, because an iteration is paced to the cap (a crawling pair ends with one 1 MiB send) and
# an all-reduce size whose one iteration cannot fit the cap is not run.
source "$(dirname "$0")/lib.sh"
hosts_up 4
for budget in 20 8 1; do
  out=$WORK/budget-$budget.json
  ibgpu_on_hosts 120 check --full --transport mpi ${PROFILE[@]+"${PROFILE[@]}"} --budget "${budget}s" \
    --json "$out" >"$WORK/log-$budget" 2>&1
  [ -s "$out" ] || fail "budget ${budget}s: no report (exit $rc): $(tail -5 "$WORK/log-$budget")"
  validate "$out"
  check_json "$out" "
budget, elapsed = $budget, $elapsed
assert r['run']['budget_s'] == budget, r['run']
assert not r['run'].get('interrupted'), r['run']
notes = r['run']['notes']
said = [n for n in notes if n.startswith('budget: ')]
assert said, notes
# --full measures 64K to 64M over every pair, 10000 latency iterations and 64K to 256M of
# all-reduce: no budget here holds that at 3 s a measurement, so each run shortens something.
assert any('each measurement stops at' in n or 'dropped' in n for n in said), said
if budget == 1:
    assert any('even the smallest plan' in n for n in said), said
    assert all(p['status'] in ('ok', 'skipped') for p in r['probes']), [p for p in r['probes'] if p['status'] not in ('ok', 'skipped')]
assert elapsed <= budget + 15, (elapsed, budget, said)
print('budget %d s: %d s, %s' % (budget, elapsed, '; '.join(n[len('budget: '):] for n in said)))
"
  grep -q "^ibgpu: budget: " "$WORK/log-$budget" || fail "budget ${budget}s: stderr does not say what the budget did"
done
netns_limit_host 4 50mbit
out=$WORK/budget-crawl.json
ibgpu_on_hosts 120 check --full --transport mpi ${PROFILE[@]+"${PROFILE[@]}"} --budget 20s --json "$out" \
  >"$WORK/log-crawl" 2>&1
[ -s "$out" ] || fail "budget 20s with a crawling host: no report (exit $rc): $(tail -5 "$WORK/log-crawl")"
validate "$out"
check_json "$out" "
elapsed = $elapsed
assert not r['run'].get('interrupted'), r['run']
slow = [p for p in r['probes'] if p['id'] == 'net.mpi.bw' and 'h4' in p['scope']['hosts']]
assert slow and all(p['status'] == 'ok' and 'time_capped_s' in p['params'] for p in slow), slow
assert all(p['metrics']['bw_avg_GBps'] < 0.01 for p in slow), [p['metrics'] for p in slow]
ar = [p for p in r['probes'] if p['id'].startswith('collective.')]
cut = [p for p in ar if p['status'] == 'skipped']
assert cut and all('time cap' in p['reason'] or 'budget' in p['reason'] for p in cut), [(p['status'], p.get('reason')) for p in ar]
assert elapsed <= 20 + 15, elapsed
print('budget 20 s, one host at 50 mbit: %d s, %d all-reduce case(s) not run: %s' % (elapsed, len(cut), cut[0]['reason']))
"
echo "budget: ok"
