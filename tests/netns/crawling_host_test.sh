#!/bin/bash
# A crawling link is measured, not waited for: six hosts, one limited to 300 mbit (tbf on its
# veth), the default sizes and iterations over MPI. Every measurement stops at its time cap (plus
# the one iteration in flight, up to 64 MiB: 1.7 s at this rate), so the check ends in about a
# minute instead of five, writes its report and leaves no process behind. The pairs through the
# slow host carry the rate they reached and say they were capped. The re-test pass then meets the
# slow host with five others in turn: a partner that reaches its round early keeps waiting while
# it hears the slow host beat, and a wait for a partner that has left the round ends at once
# (heartbeats carry the sender's step): before, this hung for ever. IBGPU_NETNS_CRAWL_RUNS repeats
# the scenario.
source "$(dirname "$0")/lib.sh"
hosts_up 6
slow=h3
netns_limit_host 3 "${IBGPU_NETNS_CRAWL_RATE:-300mbit}"
runs=${IBGPU_NETNS_CRAWL_RUNS:-1}
for run in $(seq "$runs"); do
  out=$WORK/crawl-$run.json
  # The default sizes and iterations, as an operator runs it; the lane's profile, 2 s caps.
  ibgpu_on_hosts 240 check --transport mpi --allreduce mpi --time-cap 2 \
    ${PROFILE[@]+"${PROFILE[@]}"} --timeout 30 --json "$out" >"$WORK/log-$run" 2>&1
  [ -s "$out" ] || fail "run $run: no report (exit $rc): $(tail -5 "$WORK/log-$run")"
  validate "$out"
  grep -q "each measurement stops after 2 s" "$WORK/log-$run" || fail "run $run: the plan line does not give the cap"
  check_json "$out" "
slow = '$slow'
elapsed = $elapsed
assert not r['run'].get('interrupted'), r['run']
bw = [p for p in r['probes'] if p['id'] == 'net.mpi.bw' and p['status'] == 'ok']
through = [p for p in bw if slow in p['scope']['hosts']]
others = [p for p in bw if slow not in p['scope']['hosts']]
assert through and others, (len(through), len(others))
# Each measurement through the slow host stopped at the cap with the rate it had reached.
capped = [p for p in through if 'time_capped_s' in p['params']]
assert capped, [p['params'] for p in through]
for p in capped: assert p['params']['time_capped_s'] == 2 and p['params']['iters'] >= 1, p['params']
rate = lambda p: p['metrics']['bw_avg_GBps']
assert 3 * max(map(rate, through)) < min(map(rate, others)), (sorted(map(rate, through)), sorted(map(rate, others)))
# The slow host's 5 rounds and 5 re-test rounds of 3 measurements, each at most the cap and one
# 1.7 s iteration, and the all-reduce's 4 cases through it, with room for a loaded machine.
assert elapsed <= 10 * 3 * (2 + 1.7 + 1) + 4 * (2 + 3) + 30, elapsed
# Every re-test ran: nobody gave up on a partner that was alive.
retests = [p for p in r['probes'] if p['id'].startswith('net.') and p['params'].get('retest')]
assert retests and all(p['status'] == 'ok' for p in retests), [(p['scope']['hosts'], p['status'], p.get('error')) for p in retests]
print('run $run: %d s, %d of %d measurements through %s capped, %.4f GB/s at most through it' % (
    elapsed, len(capped), len(through), slow, max(map(rate, through))))
"
done
echo "crawling host: ok ($runs run(s))"
