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
            if code not in ('CHECK_SKIPPED', 'BURN_IN_FLAKY', 'BURN_IN_DRIFT'):
                seen.update(when)
        assert seen <= LIMITED_ROUNDS, (k, sorted(seen))
        if k in flaky:
            assert len(seen) >= 2, (k, sorted(seen))


if __name__ == '__main__':
    case, path, *args = sys.argv[1:]
    with open(path) as f:
        report = json.load(f)
    globals()[case](report, *args)
