#!/bin/bash
# Ranks never disagree about what comes next: eight hosts, three of them crawling (a random three,
# at a random rate), the all-reduce on and a profile under which every pair through a slow host is
# suspect, so the re-test pass meets each slow host with known-good ones. Before rank 0 decided the
# plan after the re-tests for everyone and waits ended when the peer had left the step, this hung
# for 20 minutes with 24 processes left. Each run must end within what the time caps allow, write
# its report and leave no process behind; every re-test it planned must have run.
# IBGPU_NETNS_SEED=N replays a run (the seed is printed); IBGPU_NETNS_RANDOM_RUNS=K runs K of them.
source "$(dirname "$0")/lib.sh"
hosts_up 8
seed=${IBGPU_NETNS_SEED:-$RANDOM}
runs=${IBGPU_NETNS_RANDOM_RUNS:-1}
# The lane's profile, and a floor between a crawling path (under 0.03 GB/s) and a clean one (0.09 and
# up, even with eight ranks on two cores): every pair through a slow host is suspect.
profile=$WORK/suspect-slow.toml
sed 's/^name = .*/name = "netns-lane-slow-suspect"/' "$IBGPU_SOURCE_DIR/tests/netns/lane.toml" >"$profile"
printf '\n[network.mpi_bw_GBps]\ndegraded = 0.05\n' >>"$profile"
stamped() { while IFS= read -r line; do echo "$(date +%T) $line"; done; }  # logs say when
for run in $(seq "$runs"); do
  read -r slow rate cap < <("$PY" -c "
import random
g = random.Random($seed * 1000 + $run)
print(','.join(str(k) for k in sorted(g.sample(range(1, 9), 3))), g.choice([100, 200, 300]), g.choice([1, 2]))")
  for k in ${slow//,/ }; do netns_limit_host "$k" "${rate}mbit"; done
  out=$WORK/random-$run.json
  echo "run $run (seed $seed): hosts $slow at ${rate}mbit, --time-cap $cap"
  ibgpu_on_hosts 280 check --transport mpi --sizes 1M --window 16 --allreduce mpi --time-cap "$cap" \
    --profile "$profile" --timeout 30 --json "$out" > >(stamped >"$WORK/log-$run") 2>&1
  for k in ${slow//,/ }; do netns_unlimit_host "$k"; done
  [ -s "$out" ] || fail "run $run (seed $seed): no report (exit $rc): $(tail -5 "$WORK/log-$run")"
  validate "$out"
  check_json "$out" "
slow = ['h' + k for k in '$slow'.split(',')]
rate_Bps = $rate * 1e6 / 8
cap = $cap
elapsed = $elapsed
assert not r['run'].get('interrupted'), r['run']
assert r['summary']['exit_code'] in (2, 3), r['summary']
net = [p for p in r['probes'] if p['id'].startswith('net.')]
assert all(p['status'] == 'ok' for p in net), [(p['scope']['hosts'], p['status'], p.get('error')) for p in net if p['status'] != 'ok']
# The re-test pass ran, and every partner it planned was met: nobody gave up on a live peer.
retests = [p for p in net if p['params'].get('retest')]
assert retests, 'no re-test pass: the profile should make the slow pairs suspect'
assert {h for p in retests for h in p['scope']['hosts']} & set(slow), [p['scope']['hosts'] for p in retests]
ar = [p for p in r['probes'] if p['id'].startswith('collective.')]
assert ar and all(p['status'] in ('ok', 'skipped') for p in ar), [(p['status'], p.get('error')) for p in ar]
# The time the caps allow (README, --time-cap): each measurement through a slow host stops at the
# cap, and what is under way still lands: the iteration in flight and, when the cap ran out in the
# warmup, one timed iteration (a window of sends, or a latency round trip, at the rate measured),
# plus a second of handshakes and scheduling. Rounds follow one another; the pairs of a round run
# at once. Each all-reduce size: its first warmup iteration, the iterations that fit and the check,
# at the slowest rank's time. 40 s for the start, local checks, clean rounds, gather and the end.
def allowed_s(p):
    if not set(p['scope']['hosts']) & set(slow):
        return 0
    if p['id'] == 'net.mpi.bw':
        iteration = p['params']['window'] * p['params']['size_B'] / (p['metrics']['bw_avg_GBps'] * 1e9)
    else:
        iteration = 2 * p['metrics']['lat_us']['max'] * 1e-6
    return cap + 2 * iteration + 1
rounds = {}
for p in net:
    pair = rounds.setdefault((p['params'].get('retest', 0), p['params']['round']), {})
    pair[tuple(p['scope']['hosts'])] = pair.get(tuple(p['scope']['hosts']), 0) + allowed_s(p)
allowed = sum(max(pairs.values()) for pairs in rounds.values())
allowed += sum((p['params']['warmup'] + p['params']['iters'] + 1) * p['metrics']['time_us_max'] * 1e-6 + 1
               for p in ar if p['status'] == 'ok' and 'time_us_max' in p['metrics'])
allowed += 40
assert elapsed <= allowed, (elapsed, allowed)
print('run $run: %d s (%d allowed), %d re-test measurements, %d rounds' % (elapsed, allowed, len(retests), len(rounds)))
"
done
echo "slow hosts, random: ok ($runs run(s), seed $seed)"
