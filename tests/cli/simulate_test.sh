#!/bin/bash
# `ibgpu simulate`: the check's planning, re-tests, judge and localiser over a modelled fleet.
# The table names every plan, finds the injected faults at a small size, is the same for the same
# seed, and bad input is exit 64 before anything runs.
source "$(dirname "$0")/lib.sh"

# col NAME PLAN: the cell under the header NAME in PLAN's row of the last table (cells are padded
# to their header's place).
col() {
  awk -v name="$1" -v plan="$2" 'index($0, "plan ") == 1 {h = $0} $1 == plan {row = $0}
    END {split(substr(row, index(h, name)), cell, " "); print cell[1]}' "$WORK/out"
}

plans="all,quick,peers:8"
args=(simulate --nodes 64 --rails 4 --hosts-per-leaf 8 --uplinks-per-leaf 4 --plan "$plans"
  --bad-nodes 2 --bad-links 1% --bad-uplinks 1 --noise 0.1 --seed 3)
run "${args[@]}"
[ "$rc" -eq 0 ] || fail "simulate exited $rc: $(cat "$WORK/err")"
cp "$WORK/out" "$WORK/first"
grep -q "^fleet: 64 nodes x 4 rails" "$WORK/out" || fail "no fleet line: $(head -3 "$WORK/out")"
grep -q "2 slow nodes" "$WORK/out" || fail "the faults line does not count 2 slow nodes"
for plan in all quick peers:8; do
  grep -q "^$plan " "$WORK/out" || fail "no row for $plan: $(cat "$WORK/out")"
done
# peers:8 finds both slow nodes and drains no fault-free node.
row=$(grep "^peers:8 " "$WORK/out")
rounds=$(col rounds peers:8)
# 8 rounds of peers and, the leaves being known, one of hosts meeting a leaf-mate.
[ "$rounds" != "${rounds#9+}" ] || fail "peers:8 did not run 8 + 1 network rounds: $row"
[ "$(col "node rec" peers:8)" = "2/2" ] || fail "peers:8 node recall, not 2/2: $row"
[ "$(col drained peers:8)" = "0" ] || fail "peers:8 drained fault-free nodes: $row"
# What the plan was stated to find (health/power.h): nodes at half speed, always, and both were
# found (not admitted as healthy); no healthy node expected flagged.
{ [ "$(col found peers:8)" = "2/2" ] && [ "$(col power peers:8)" = "1.00" ] && [ "$(col expected peers:8)" = "0.0" ]; } ||
  fail "peers:8 found $(col found peers:8), stated power $(col power peers:8), expected $(col expected peers:8): $row"
# The judge knows the modelled leaves (--topology model, the default): the bad uplink is found.
grep -q "^topology: the modelled leaves" "$WORK/out" || fail "no topology line: $(head -3 "$WORK/out")"
{ [ "$(col "up rec" peers:8)" = "1/1" ] && [ "$(col "up prec" peers:8)" = "1/1" ]; } ||
  fail "peers:8 uplink recall $(col "up rec" peers:8), precision $(col "up prec" peers:8): $row"
run "${args[@]}" --topology none
[ "$rc" -eq 0 ] || fail "simulate --topology none exited $rc: $(cat "$WORK/err")"
{ [ "$(col "up rec" peers:8)" = "0/0" ] && [ "$(col drained peers:8)" = "0" ]; } ||
  fail "--topology none: uplink $(col "up rec" peers:8), drained $(col drained peers:8)"
rounds=$(col rounds peers:8)
[ "$rounds" != "${rounds#8+}" ] || fail "--topology none: peers:8 did not run 8 network rounds (no leaves known)"

# --profile gives the judge the profile's rules. In one quick round of a very noisy fleet (seed 1)
# one fault-free node reads failed on weak evidence: [confidence] holds it to admit_degraded, and a
# profile that drains on weak evidence drains it (docs/verdicts.md, Confidence).
weak_args=(simulate --nodes 256 --rails 4 --plan quick --bad-nodes 2% --slow-factor 0.3 --noise 0.4 --seed 1)
for drain_weak in false true; do
  printf '[network.verbs_bw_GBps]\nfailed = 40.0\ndegraded = 47.5\n[confidence]\ndrain_weak = %s\n' "$drain_weak" >"$WORK/$drain_weak.toml"
  run "${weak_args[@]}" --profile "$WORK/$drain_weak.toml"
  [ "$rc" -eq 0 ] || fail "simulate --profile exited $rc: $(cat "$WORK/err")"
  drained=$(col drained quick)
  printf -v "drained_$drain_weak" %s "$drained"
  printf -v "held_$drain_weak" %s "$((drained + $(col degraded quick)))"
done
# shellcheck disable=SC2154  # set by printf -v above
{ [ "$drained_false" = 0 ] && [ "$drained_true" -ge 1 ] && [ "$held_false" = "$held_true" ]; } ||
  fail "weak evidence: drained $drained_false (default) and $drained_true (drain_weak), flagged $held_false and $held_true"
run "${weak_args[@]}" --profile no-such-profile
[ "$rc" -eq 64 ] || fail "simulate --profile no-such-profile exited $rc, not 64"

# The same seed, the same table (the last two columns, rank 0's CPU time and the whole CPU time, aside).
run "${args[@]}"
untimed() { awk 'NF >= 2 {$NF = ""; $(NF - 1) = ""} {print}' "$1"; }
diff <(untimed "$WORK/first") <(untimed "$WORK/out") >/dev/null ||
  fail "the same seed gave another table: $(diff <(untimed "$WORK/first") <(untimed "$WORK/out") | head -4)"

# A budget picks the plan: a tight one cannot keep every pair.
run simulate --nodes 256 --plan all --budget 10s --bad-nodes 1%
[ "$rc" -eq 0 ] || fail "simulate --budget exited $rc: $(cat "$WORK/err")"
grep -q "budget: dropped pairs: peers:" "$WORK/out" || fail "a 10s budget kept every pair of 256 nodes (about 40 s): $(cat "$WORK/out")"

# Bad input: exit 64, nothing printed on stdout.
for bad in "--plan nonsense" "--plan peers:0" "--bad-nodes 200%" "--bad-nodes abc" "--bad-nodes 1.5" \
  "--nodes 1" "--noise -1" "--budget 5x" "--bad-nodes 70" "--bad-uplinks 100000" "--topology file.conf"; do
  # shellcheck disable=SC2086  # each case is several words on purpose
  run simulate --nodes 64 $bad
  [ "$rc" -eq 64 ] || fail "simulate $bad exited $rc, not 64"
  [ ! -s "$WORK/out" ] || fail "simulate $bad printed on stdout: $(head -2 "$WORK/out")"
done

# --help teaches: what it runs, what the columns are, an example.
run simulate --help
[ "$rc" -eq 0 ] || fail "simulate --help exited $rc"
grep -q "Example: ibgpu simulate" "$WORK/out" || fail "--help has no example"
grep -q -- "--bad-uplinks" "$WORK/out" || fail "--help does not list --bad-uplinks"
echo "simulate: ok"
