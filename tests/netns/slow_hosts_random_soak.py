#!/usr/bin/env python3
"""The faults and report checks of tests/netns/slow_hosts_random_soak.sh:
  slow_hosts_random_soak.py draw SEED RUN     prints the run's faults: SLOW-HOSTS RATE CAP
  slow_hosts_random_soak.py CASE REPORT [ARG...]

Each CASE is a function below, called with the parsed report and the ARGs; a failed assert
fails the test (exit 1, with the traceback).
"""
import json
import random
import sys


def draw(seed, run):
    """Prints run RUN's faults from SEED: three of the hosts 1-8 (comma-separated), a rate in mbit
    (100, 200 or 300) and a --time-cap (1 or 2 s). The same SEED and RUN give the same faults."""
    g = random.Random(int(seed) * 1000 + int(run))
    print(','.join(str(k) for k in sorted(g.sample(range(1, 9), 3))), g.choice([100, 200, 300]), g.choice([1, 2]))


def bounded(r, slow, cap, elapsed, run):
    """Run RUN with hosts SLOW (numbers, comma-separated) crawling under caps of CAP s: every
    measurement and planned re-test ran, and ELAPSED (s) is within what the caps allow."""
    slow = ['h' + k for k in slow.split(',')]
    cap, elapsed = int(cap), int(elapsed)
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

    # The time the caps allow (docs/running.md, --time-cap): each measurement through a slow host stops at the
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
    # A margin for a loaded two-core machine (eight hosts' ranks wait for a core): half as much
    # again, a second per round of every pair's handshake, and 40 s for the start, local checks,
    # gather and the end. A measurement that waited past its cap costs many times its cap.
    allowed = 1.5 * allowed + len(rounds) + 40
    assert elapsed <= allowed, (elapsed, allowed)
    print('run %s: %d s (%d allowed), %d re-test measurements, %d rounds' % (run, elapsed, allowed, len(retests), len(rounds)))


if __name__ == '__main__':
    if sys.argv[1] == 'draw':
        draw(*sys.argv[2:])
    else:
        case, path, *args = sys.argv[1:]
        with open(path) as f:
            report = json.load(f)
        globals()[case](report, *args)
