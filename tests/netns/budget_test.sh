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
  check_report "$out" within "$budget" "$elapsed"
  grep -q "^ibgpu: budget: " "$WORK/log-$budget" || fail "budget ${budget}s: stderr does not say what the budget did"
done
netns_limit_host 4 50mbit
out=$WORK/budget-crawl.json
ibgpu_on_hosts 120 check --full --transport mpi ${PROFILE[@]+"${PROFILE[@]}"} --budget 20s --json "$out" \
  >"$WORK/log-crawl" 2>&1
[ -s "$out" ] || fail "budget 20s with a crawling host: no report (exit $rc): $(tail -5 "$WORK/log-crawl")"
validate "$out"
check_report "$out" crawling_host "$elapsed"
echo "budget: ok"
