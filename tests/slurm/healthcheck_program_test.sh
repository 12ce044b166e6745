#!/bin/bash
# ci/slurm/healthcheck.sh as slurmd's HealthCheckProgram (through a wrapper that names the
# settings file: slurmd passes almost no environment), every few seconds: fit nodes stay idle over
# several runs; a node whose RDMA port goes DOWN is drained with "ibgpu: ..." by the next runs
# and resumed once the port is up again; a node a person drained keeps the person's reason.
# s4 is admitted degraded throughout (a port that is no rail of its is DOWN: the report admits it
# with that port excluded, exit 1): it stays in service, as the health check and as a Prolog.
source "$(dirname "$0")/lib.sh"
interval=5
fixtures s1 s2 s3
mkdir -p "$SYSFS" && cp -a "$SRC/tests/data/sysfs/degraded" "$SYSFS/s4"
SLURM_CONF=$WORK/cluster/slurm.conf write_config
write_hc_wrapper
cluster_up_checked "$HC_WRAPPER" "$interval"
: >"$HC_RUNS"

runs_of() { grep -c "^$1 " "$HC_RUNS" || true; }
# Every node idle at every look until each node's health check has run twice more.
each_ran_twice() {
  local n
  expect_idle s1 s2 s3 s4
  for n in s1 s2 s3 s4; do [ "$(runs_of "$n")" -ge 2 ] || return 1; done
}
wait_for $((interval * 6)) "two health checks on every node" each_ran_twice
grep -v ' 0$' "$HC_RUNS" && fail "a health check of a fit node did not exit 0 (above)"
echo "fit nodes: $(wc -l <"$HC_RUNS") health checks, every node idle throughout (s4 admitted degraded)"

# As a Prolog (anything but 0 drains the node and requeues the job): the degraded node is fit.
set +e
slurm_in_node s4 env -i SLURMD_NODENAME=s4 SLURM_SCRIPT_CONTEXT=prolog_slurmd IBGPU_CONFIG="$CONFIG" \
  /bin/bash "$SRC/ci/slurm/healthcheck.sh" 2>"$WORK/prolog-s4.err"
prolog_rc=$?
set -e
[ "$prolog_rc" -eq 0 ] || fail "the Prolog on the admitted-degraded s4 exited $prolog_rc: $(cat "$WORK/prolog-s4.err")"
expect_idle s4

scontrol update NodeName=s2 State=DRAIN Reason="maintenance"
port_down s3
wait_for $((interval * 6)) "s3 drained by ibgpu's health check" drained_by_ibgpu s3
echo "s3 drained: Reason=$(reason s3)"
expect_idle s1 s4
port_up s3
wait_for $((interval * 6)) "s3 resumed by the health check" is_state s3 IDLE
expect_resumed s3
expect_person_drain s2 maintenance
expect_idle s1 s4
echo "s3 resumed; s2 still drained for maintenance"

# The settings keep a history (IBGPU_HISTORY): s3 was bad check after check while its port was
# down, then clean. One spell of bad checks is no flap: its first clean check admitted it, and no
# clean check of it was drained.
"$IBGPU" history --history "$WORK/history" s3 --json "$WORK/history-s3.json" >"$WORK/history-s3.txt" ||
  fail "ibgpu history s3: exit $?"
python3 - "$WORK/history-s3.json" <<'PY' || fail "s3's history is not its health checks' (above): $(cat "$WORK/history-s3.txt")"
import json, sys
records = json.load(open(sys.argv[1]))['nodes'][0]['records']
seen = [(r['state'], r['action'], r['codes']) for r in records]
print('s3:', seen)
bad = [i for i, (state, action, codes) in enumerate(seen) if action == 'drain']
assert bad and all(seen[i][0] == 'failed' and 'IB_PORT_DOWN' in seen[i][2] for i in bad), seen
assert any(state == 'healthy' and action == 'admit' for state, action, _ in seen[bad[-1] + 1:]), seen
assert not [s for s in seen if s[0] == 'healthy' and s[1] != 'admit'], seen
PY
echo "s3's history: $(grep -c . "$WORK/history/s3.jsonl") checks kept, admitted after its spell of bad ones"
