#!/bin/bash
# srun -N 4 --mpi=pmix ibgpu check over the four nodes (real Slurm, real PMIx, ranks in four
# network namespaces): the job completes, rank 0 writes a report naming the four nodes as Slurm
# names them, and Slurm shows every node idle again afterwards (the check drains nothing here).
source "$(dirname "$0")/lib.sh"
cluster_up
fixtures s1 s2 s3 s4
srun_check --json "$WORK/check.json" >"$WORK/srun.out" 2>"$WORK/srun.err"
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then fail "srun ibgpu check hung past 60 s: $(grep -v "^ " "$WORK/srun.err" | tail -n 12)"; fi
[ -s "$WORK/check.json" ] || fail "srun ibgpu check (exit $rc) wrote no report: $(tail -n 20 "$WORK/srun.err")"
validate "$WORK/check.json"
python3 - "$WORK/check.json" <<'PY' || fail "the report does not name the four nodes s1..s4"
import json, sys
r = json.load(open(sys.argv[1]))
hosts = sorted({v['entity']['id'] for v in r['verdicts'] if v['entity']['kind'] == 'node'})
assert hosts == ['s1', 's2', 's3', 's4'], hosts
PY
[ "$rc" -eq 0 ] || fail "four fit nodes: srun ibgpu check exited $rc, want 0 (healthy): $(tail -n 20 "$WORK/srun.err")"
wait_for 30 "the job's nodes leave COMPLETING" no_jobs
expect_idle s1 s2 s3 s4
echo "srun -N 4 --mpi=pmix ibgpu check: report for s1..s4, exit 0, every node idle"
