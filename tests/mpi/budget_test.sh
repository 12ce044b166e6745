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
  check_report "$WORK/b$budget.json" within "$budget" "$elapsed"
done
