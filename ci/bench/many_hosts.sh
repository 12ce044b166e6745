#!/usr/bin/env bash
# The real binary across many hosts on this one machine: HOSTS namespace hosts (ci/netns/lib.sh)
# with RANKS ranks each, `check --transport mpi --pairs peers:4 --profile cpu`, one host (h7)
# slowed to a fifth of a clean pair here. Prints the launch, the wall time of mpirun, the report's
# size, the exit code, every node not admitted healthy, and whether exactly the slow host was named.
# The netns lane runs it once as it is (tests/netns/many_hosts_test.sh: about 45 s with the
# namespaces' set-up; mpirun alone 35-40 s); by hand, as root:
#   sudo ci/bench/many_hosts.sh                  # 32 hosts x 2 ranks
#   sudo HOSTS=48 RANKS=2 ci/bench/many_hosts.sh
# Environment: IBGPU (the binary, build/ibgpu), HOSTS (32), RANKS (2), SLOW_RATE (300mbit: a clean
# pair here moves about 0.25 GB/s, 2 Gbit/s), LIMIT (seconds mpirun may take, 900), KEEP (a folder
# that keeps the report and the log), ALLREDUCE (1: the all-reduce step too; its verdicts are noise here).
# Exit status: 0 when a report came back naming the slow host and no other; 1 otherwise; 77 when
# this machine cannot run namespace hosts.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
IBGPU=${IBGPU:-$root/build/ibgpu} HOSTS=${HOSTS:-32} RANKS=${RANKS:-2} SLOW_RATE=${SLOW_RATE:-300mbit}
LIMIT=${LIMIT:-900}
[ -x "$IBGPU" ] || { echo "many_hosts: no binary at $IBGPU (build it, or set IBGPU)" >&2; exit 1; }
[ "$HOSTS" -ge 8 ] || { echo "many_hosts: HOSTS must be 8 or more (h7 is the slow one)" >&2; exit 64; }
# shellcheck source=ci/netns/lib.sh
source "$root/ci/netns/lib.sh"
netns_require
NETNS_SLOTS=$RANKS
netns_up "$HOSTS"
netns_limit_host 7 "$SLOW_RATE"
out=$NETNS_DIR/report.json
# The all-reduce is off unless ALLREDUCE=1: each host's all-reduce runs while 62 other ranks poll
# the same two cores, so its figure is the scheduler's, not the host's (a quarter of the hosts read
# 0.4-0.6 of the others and are judged outliers). With it on, the run still ends with a report.
allreduce=(--allreduce off)
if [ "${ALLREDUCE:-0}" = 1 ]; then allreduce=(--allreduce mpi --allreduce-sizes 1M); fi
echo "many_hosts: $HOSTS hosts x $RANKS ranks ($((HOSTS * RANKS)) ranks on $(nproc) cores), h7 at $SLOW_RATE"
netns_mpirun "$LIMIT" --quiet "$IBGPU" check --transport mpi --pairs peers:4 --profile cpu --sizes 1M --window 16 \
  "${allreduce[@]}" \
  --iters 10 --timeout 60 --json "$out" >"$NETNS_DIR/check.log" 2>&1
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP" && cp "$NETNS_DIR/check.log" "$KEEP/"
  [ ! -s "$out" ] || cp -f "$out" "$KEEP/"  # a run without a report keeps its log
fi
echo "many_hosts: mpirun exit $rc after ${elapsed} s"
[ -s "$out" ] || { tail -n 30 "$NETNS_DIR/check.log"; echo "many_hosts: FAIL: no report"; exit 1; }
python3 - "$out" "$HOSTS" "$RANKS" <<'PY'
import json, os, sys
path, hosts, ranks = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r = json.load(open(path))
nodes = {v['entity']['id']: v for v in r['verdicts'] if v['entity']['kind'] == 'node'}
named = sorted(k for k, v in nodes.items() if v['state'] != 'healthy')
pairs = [p for p in r['probes'] if p['id'] == 'net.mpi.bw']
print('many_hosts: report %.1f MiB, %d ranks on %d hosts, %d bandwidth results, exit code %d' % (
    os.path.getsize(path) / 2**20, r['run']['ranks'], len(r['hosts']), len(pairs), r['summary']['exit_code']))
for k in named:
    v = nodes[k]
    print('many_hosts:   %s %s %s: %s' % (k, v['state'], v['action'],
          ', '.join(sorted({x['code'] for x in v['reasons'] if x['evidence'] != 'not_judged'}))))
ok = r['run']['ranks'] == hosts * ranks and len(r['hosts']) == hosts and named == ['h7']
print('many_hosts: %s' % ('ok: h7 named, and no other node' if ok else 'FAIL: expected h7 alone, named %s' % named))
sys.exit(0 if ok else 1)
PY
