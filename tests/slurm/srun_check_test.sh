#!/bin/bash
# srun -N 4 --mpi=pmix ibgpu check over the four nodes (real Slurm, real PMIx, ranks in four
# network namespaces): the job completes, rank 0 writes a report naming the four nodes as Slurm
# names them, and Slurm shows every node idle again afterwards (the check drains nothing here).
# Then the same with Slurm's default MpiDefault=none (`srun --mpi=none`, what a plain `srun -N 2`
# does on a cluster that sets no MpiDefault): every task would be a world of one and call its node
# healthy; ibgpu refuses with exit 64 before anything runs and names srun --mpi=pmix.
source "$(dirname "$0")/lib.sh"
cluster_up
fixtures s1 s2 s3 s4
srun_check --json "$WORK/check.json" >"$WORK/srun.out" 2>"$WORK/srun.err"
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then fail "srun ibgpu check hung past 60 s: $(grep -v "^ " "$WORK/srun.err" | tail -n 12)"; fi
[ -s "$WORK/check.json" ] || fail "srun ibgpu check (exit $rc) wrote no report: $(tail -n 20 "$WORK/srun.err")"
validate "$WORK/check.json"
# Every node healthy and admitted. The links are MPI over TCP between namespaces on a shared 2-core
# machine: a pair that ran beside another at 0.6 of the rest has been seen (NET_BW_OUTLIER, exit 1,
# every node admitted); that is a link finding of this machine's noise, not the launch's.
python3 - "$WORK/check.json" "$rc" <<'PY' || fail "four fit nodes, exit $rc: see above; $(tail -n 20 "$WORK/srun.err")"
import json, sys
r = json.load(open(sys.argv[1]))
nodes = {v['entity']['id']: v for v in r['verdicts'] if v['entity']['kind'] == 'node'}
assert sorted(nodes) == ['s1', 's2', 's3', 's4'], sorted(nodes)
for v in nodes.values():
    assert v['state'] == 'healthy' and v['action'] == 'admit', v
assert r['summary']['exit_code'] == int(sys.argv[2]), (r['summary'], sys.argv[2])
bad = [v for v in r['verdicts'] if v['state'] != 'healthy']
assert all(v['entity']['kind'] == 'link' and v['state'] == 'degraded' for v in bad), bad
assert r['summary']['exit_code'] == (1 if bad else 0), r['summary']
# What Slurm says was tested joins the report: the job and its nodes.
launch = r['run']['launch']
assert launch['SLURM_JOB_ID'].isdigit() and launch['SLURM_JOB_NODELIST'] == 's[1-4]', launch
PY
wait_for 30 "the job's nodes leave COMPLETING" no_jobs
expect_idle s1 s2 s3 s4
echo "srun -N 4 --mpi=pmix ibgpu check: report for s1..s4, every node admitted healthy (exit $rc), every node idle"

set +e
# shellcheck disable=SC2016  # expanded by each task's shell
timeout 60 srun -N 2 --ntasks-per-node=1 --mpi=none --kill-on-bad-exit=0 \
  bash -c 'IBGPU_HOSTNAME=$SLURMD_NODENAME exec "$@" --sysfs-root "$IBGPU_LANE_SYSFS/$SLURMD_NODENAME"' rank \
  "$IBGPU" check --profile cpu --transport mpi --allreduce off --timeout 30 --json "$WORK/split.json" \
  >"$WORK/split.out" 2>"$WORK/split.err"
rc=$?
set -e
[ "$rc" -eq 64 ] || fail "srun --mpi=none (a world of one per task): exit $rc, want 64: $(tail -n 20 "$WORK/split.err")"
grep -q "srun --mpi=pmix" "$WORK/split.err" || fail "the refusal does not name srun --mpi=pmix: $(cat "$WORK/split.err")"
[ "$(grep -c "SLURM_STEP_NUM_TASKS=2" "$WORK/split.err")" -eq 2 ] || fail "not both tasks refused: $(cat "$WORK/split.err")"
python3 - "$WORK/split.json" <<'PY' || fail "the JSON error document is not a usage error"
import json, sys
r = json.load(open(sys.argv[1]))
assert r['error']['kind'] == 'usage' and r['summary']['exit_code'] == 64, r
PY
wait_for 30 "the job's nodes leave COMPLETING" no_jobs
expect_idle s1 s2 s3 s4
echo "srun -N 2 --mpi=none ibgpu check: refused by both tasks with exit 64, naming srun --mpi=pmix; nothing drained"
