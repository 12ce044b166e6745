#!/bin/bash
# A fault that comes and goes, found by burn-in. Four hosts, MPI transport, the default profile:
# - without a fault, a burn-in of a few rounds flags nothing;
# - with h3's link limited to a fifth of a clean pair's rate (1400mbit) from the end of round 1 to
#   the end of round 3 (set and lifted by this test while the burn-in runs, as it sees the rounds
#   land in the JSON Lines file), h3 or its links are BURN_IN_FLAKY with rounds among those the
#   limit touched, and no other entity is flagged.
# A watcher in the background reads the JSON Lines file; each measurement is capped at 1 s, so a
# round takes 10-15 seconds here. The runs ask for rounds (--rounds), not a time: a slower machine
# takes longer, not fewer rounds.
source "$(dirname "$0")/lib.sh"
hosts_up 4
PROFILE=()  # the default (generic) profile
BURN=(burn-in --transport mpi --pairs all --sizes 1M --window 16 --allreduce off --time-cap 1 --timeout 20)

out=$WORK/clean.json
ibgpu_on_hosts 150 "${BURN[@]}" --rounds 2 --jsonl "$WORK/clean.jsonl" \
  --json "$out" >"$WORK/clean.log" 2>&1
validate "$out"
check_report "$out" flagged_only "" "$WORK/clean.jsonl" "$rc"

# rounds_done FILE: how many round records FILE holds.
rounds_done() {
  local n
  n=$(grep -c '"record":"round"' "$1" 2>/dev/null) || true
  echo "${n:-0}"
}
# limit_during FILE FROM TO: limits h3 once round FROM is in FILE, lifts it once round TO is.
limit_during() {
  local file=$1 from=$2 to=$3
  until [ "$(rounds_done "$file")" -ge "$from" ]; do sleep 0.2; done
  netns_limit_host 3 "${IBGPU_NETNS_SLOW_RATE:-1400mbit}"
  echo "$(date +%T) h3 limited after round $from" >>"$WORK/watcher.log"
  until [ "$(rounds_done "$file")" -ge "$to" ]; do sleep 0.2; done
  netns_unlimit_host 3
  echo "$(date +%T) h3 unlimited after round $to" >>"$WORK/watcher.log"
}
out=$WORK/flaky.json
limit_during "$WORK/flaky.jsonl" 1 3 &
watcher=$!
ibgpu_on_hosts 200 "${BURN[@]}" --rounds 5 --jsonl "$WORK/flaky.jsonl" \
  --json "$out" >"$WORK/flaky.log" 2>&1
kill "$watcher" 2>/dev/null || true
wait "$watcher" 2>/dev/null || true
netns_unlimit_host 3
cat "$WORK/watcher.log"
validate "$out"
check_report "$out" flagged_only h3 "$WORK/flaky.jsonl" "$rc"
echo "burn-in: nothing flagged without a fault; h3 limited in rounds 2-3: h3 flaky and nothing else"
