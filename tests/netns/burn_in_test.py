#!/usr/bin/env python3
"""The report checks of tests/netns/burn_in_test.sh: burn_in_test.py CASE REPORT [ARG...]."""
import json
import sys

from report import network_reasons

LIMITED_ROUNDS = {2, 3, 4}  # limited after round 1 landed, lifted after round 3 (round 4 may start under it)
ROUNDS = {'': 2, 'h3': 5}  # --rounds of each run


def touches(entity_id, host):
    return entity_id == host or host in entity_id.split('<->')


def flagged_only(r, slow, jsonl, rc):
    """The burn-in summary REPORT and its JSON Lines stream JSONL: every round a record with its
    report, and a summary record; the exit code is the job's (RC). With SLOW '' no entity has a
    reason beyond the skipped local checks. With SLOW a host, the entities flagged are SLOW and its
    links, at least one BURN_IN_FLAKY, and every round they were flagged in is one the limit
    touched, two of them at least. Each run has the rounds it asked for (ROUNDS)."""
    with open(jsonl) as f:
        records = [json.loads(line) for line in f]
    rounds = [x for x in records if x['record'] == 'round']
    assert [x['round'] for x in rounds] == list(range(1, len(rounds) + 1)), [x['round'] for x in rounds]
    assert records[-1]['record'] == 'summary', records[-1].keys()
    assert r['burn_in']['rounds'] == len(rounds) == ROUNDS[slow], (r['burn_in']['rounds'], len(rounds))
    assert r['summary']['exit_code'] == int(rc), (r['summary'], rc)
    flagged = {v['entity']['kind'] + ' ' + v['entity']['id']: v for v in r['verdicts'] if network_reasons(v)}
    entities = {e['entity']['kind'] + ' ' + e['entity']['id']: e for e in r['burn_in']['entities']}
    for k, v in sorted(flagged.items()):
        e = entities.get(k, {})
        print(k, v['state'], [x['code'] for x in network_reasons(v)], 'rounds:', e.get('reason_rounds'))
    if not slow:
        assert not flagged, list(flagged)
        return
    others = [k for k in flagged if not touches(k.split(' ', 1)[1], slow)]
    assert not others, [flagged[k] for k in others]
    flaky = [k for k, v in flagged.items() if 'BURN_IN_FLAKY' in {x['code'] for x in v['reasons']}]
    assert flaky, list(flagged)
    for k in flagged:
        seen = set()
        for code, when in entities[k]['reason_rounds'].items():
            if code not in ('CHECK_SKIPPED', 'BURN_IN_FLAKY', 'BURN_IN_DRIFT', 'BURN_IN_SEEN_ONCE'):
                seen.update(when)
        assert seen <= LIMITED_ROUNDS, (k, sorted(seen))
        # Flaky by its rounds' verdicts (two of them at least), or by its bandwidth, which dropped
        # under 0.4 of its other rounds' in two rounds or more (health/burn_in.h).
        by_figures = any(x['code'] == 'BURN_IN_FLAKY' and x['message'].startswith('bandwidth under')
                         for x in flagged[k]['reasons'])
        if k in flaky and not by_figures:
            assert len(seen) >= 2, (k, sorted(seen))


def deep_drop_in_one_round(r, slow, rc):
    """A host at about a twentieth of its bandwidth for one round of three (issue 41: such a host was
    called healthy, as flakiness needs two rounds): SLOW is not healthy, flagged BURN_IN_FLAKY (its
    round's verdict caught it) or BURN_IN_SEEN_ONCE (its links' figures did), and admitted degraded
    at best; no other host is flagged, and what else is flagged touches SLOW. The exit code is the
    job's (RC), 1 or 2."""
    verdicts = {v['entity']['kind'] + ' ' + v['entity']['id']: v for v in r['verdicts']}
    host = verdicts['node ' + slow]
    codes = {x['code'] for x in host['reasons']}
    print(slow, host['state'], host['action'], sorted(codes))
    assert host['state'] != 'healthy' and codes & {'BURN_IN_FLAKY', 'BURN_IN_SEEN_ONCE'}, host
    assert host['action'] in ('admit_degraded', 'drain'), host
    flagged = [k for k, v in verdicts.items() if v['state'] != 'healthy']
    assert all(touches(k.split(' ', 1)[1], slow) for k in flagged), flagged
    assert r['summary']['exit_code'] == int(rc) in (1, 2), (r['summary'], rc)


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
