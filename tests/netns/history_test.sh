#!/bin/bash
# check --history over a sequence of real runs of five namespace hosts, one rank each, a slow host
# being h2 or h3 rate-limited to 50mbit for one run (the fleet rule fails it: under 0.4 of its
# peers). What each run decides for the operator (state, action, history reason, exit code):
#   run  slow  h2                                      h3
#   1    -     admit                                   admit
#   2    h3    admit                                   drain (a finding; one clean check before)
#   3    h2    admit_degraded (HISTORY_TRANSIENT)      admit (back from the drain)
#   4    h3    admit                                   drain (HISTORY_LEMON: bad again after coming back)
#   5    h2    drain (a finding; bad twice in 5)        admit
#   6    h2    drain (HISTORY_FLAPPING: 3 of 6)         admit
# and every other node admitted healthy in every run. Then `ibgpu history` over the folder: h2
# flapping, each node's six checks.
source "$(dirname "$0")/lib.sh"
hosts_up 5
PROFILE=(--profile "$IBGPU_SOURCE_DIR/tests/netns/history.toml")
check_with 10
HIST=$WORK/history
run=0
check_run() {  # SLOW_HOST_NUMBER|- EXPECTATIONS...
  run=$((run + 1))
  local slow=$1 out=$WORK/run$run.json
  shift
  [ "$slow" = - ] || netns_limit_host "$slow" 50mbit
  ibgpu_on_hosts 120 "${CHECK[@]}" --timeout 30 --history "$HIST" --json "$out" >"$WORK/run$run.log" 2>&1
  [ "$slow" = - ] || netns_unlimit_host "$slow"
  validate "$out"
  check_report "$out" decided "$rc" "$run" "$@" || fail "run $run: not decided as the history says (above)"
}
check_run - 0
check_run 3 2 h3=drain
check_run 2 1 h2=admit_degraded:HISTORY_TRANSIENT
check_run 3 2 h3=drain:HISTORY_LEMON
check_run 2 2 h2=drain
check_run 2 2 h2=drain:HISTORY_FLAPPING

"$IBGPU" history --history "$HIST" --profile "$IBGPU_SOURCE_DIR/tests/netns/history.toml" --json "$WORK/fleet.json" \
  >"$WORK/fleet.txt" || fail "ibgpu history: exit $?"
"$IBGPU" history --history "$HIST" h2 h3 --json "$WORK/nodes.json" >"$WORK/nodes.txt" || fail "ibgpu history h2 h3: exit $?"
check_report "$WORK/fleet.json" fleet "$WORK/fleet.txt" || fail "ibgpu history: not the runs' story (above)"
check_report "$WORK/nodes.json" nodes || fail "ibgpu history h2 h3: not the runs' story (above)"
echo "history: six runs decided as their history says; ibgpu history names h2 flapping"
