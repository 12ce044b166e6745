#!/bin/bash
# `--budget` is a promise on one host too: `check --full --loopback` over 4 ranks with a 20 s and a
# 10 s budget ends within the budget plus mpirun's start and end (a generous 15 s on a loaded
# 2-core machine), and stderr and run.notes say what the budget dropped or shortened.
source "$(dirname "$0")/lib.sh"
for budget in 20 10; do
  started=$SECONDS
  mpi 120 4 "$IBGPU" check --full --loopback --budget "${budget}s" --json "$WORK/b$budget.json" >"$WORK/log$budget" 2>&1
  elapsed=$((SECONDS - started))
  [ -s "$WORK/b$budget.json" ] || fail "budget ${budget}s: no report (exit $rc): $(tail -5 "$WORK/log$budget")"
  validate "$WORK/b$budget.json" >/dev/null
  grep -q "^ibgpu: budget: " "$WORK/log$budget" || fail "budget ${budget}s: stderr does not say what the budget did"
  check_json "$WORK/b$budget.json" "
budget, elapsed = $budget, $elapsed
assert r['run']['budget_s'] == budget, r['run']
said = [n for n in r['run']['notes'] if n.startswith('budget: ')]
assert any('dropped' in n or 'each measurement stops at' in n for n in said), r['run']['notes']
assert all(p['status'] in ('ok', 'skipped') for p in r['probes']), [p for p in r['probes'] if p['status'] not in ('ok', 'skipped')]
assert elapsed <= budget + 15, (elapsed, said)
print('budget %d s: %d s; %s' % (budget, elapsed, '; '.join(n[len('budget: '):] for n in said)))
"
done
